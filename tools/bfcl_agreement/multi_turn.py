"""Agreement of calltape's multi-turn checker with BFCL's own.

Run through run_multi_turn.sh (it installs bfcl-eval and builds calltape).
For each multi-turn category shipped in the installed bfcl_eval package:
1. `calltape import bfcl` the category (all entries, or --sample N);
2. make trajectories from each entry's ground truth: right (the ground
   truth), reordered (a turn's calls shuffled), partial (a call left out),
   empty (a turn with no call), wrong (one argument changed), extra (a call
   made twice), early (a call made a turn early) and cut (the last turn
   never reached);
3. judge each with `calltape bfcl-judge` (calltape's classes and checker)
   and with BFCL's `multi_turn_checker` (BFCL's classes), the runner's
   force-terminated rule first, as BFCL's eval runner applies it;
4. print verdict and failure-type agreement per category and trajectory
   kind, and every disagreement; exit 1 below 99% verdict agreement in any
   category.
"""

import argparse
import ast
import collections
import json
import random
import subprocess
import sys
from pathlib import Path

CATEGORIES = ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"]
KINDS = ["right", "reordered", "partial", "empty", "wrong", "extra", "early", "cut"]


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def changed_call(call, rng):
    """The call with one literal argument changed, or None if it has none."""
    tree = ast.parse(call, mode="eval")
    node = tree.body
    args = [a for a in node.args] + [k.value for k in node.keywords]
    literals = [a for a in args if isinstance(a, ast.Constant) or isinstance(a, (ast.List, ast.UnaryOp))]
    if not literals:
        return None
    target = rng.choice(literals)
    if isinstance(target, ast.Constant):
        v = target.value
        if isinstance(v, bool):
            target.value = not v
        elif isinstance(v, int):
            target.value = v + 1
        elif isinstance(v, float):
            target.value = v + 1.5
        elif isinstance(v, str):
            target.value = v + "_x"
        else:
            return None
    elif isinstance(target, ast.List):
        if not target.elts:
            return None
        target.elts.pop()
    else:
        return None
    return ast.unparse(tree)


def trajectory(kind, truth, rng):
    """A trajectory of the given kind from the ground truth, or None where the kind does not apply."""
    turns = [list(t) for t in truth]
    filled = [i for i, t in enumerate(turns) if t]
    if kind == "right":
        return turns
    if kind == "reordered":
        many = [i for i in filled if len(turns[i]) > 1]
        if not many:
            return None
        i = rng.choice(many)
        for _ in range(5):
            rng.shuffle(turns[i])
            if turns[i] != truth[i]:
                return turns
        return None
    if kind == "partial":
        i = rng.choice(filled)
        turns[i].pop(rng.randrange(len(turns[i])))
        return turns
    if kind == "empty":
        turns[rng.choice(filled)] = []
        return turns
    if kind == "wrong":
        order = [(i, j) for i in filled for j in range(len(turns[i]))]
        rng.shuffle(order)
        for i, j in order:
            changed = changed_call(turns[i][j], rng)
            if changed is not None:
                turns[i][j] = changed
                return turns
        return None
    if kind == "extra":
        i = rng.choice(filled)
        turns[i].append(rng.choice(turns[i]))
        return turns
    if kind == "early":
        later = [i for i in filled if i > 0]
        if not later:
            return None
        i = rng.choice(later)
        turns[i - 1].append(turns[i].pop(0))
        return turns
    if kind == "cut":
        return turns[:-1]
    raise ValueError(kind)


def bfcl_verdict(entry, truth, turns, category, n):
    """BFCL's verdict: the eval runner's length rule, then multi_turn_checker."""
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    if len(turns) != len(truth):
        return False, "multi_turn:force_terminated"
    decoded = [[t] if t else [] for t in turns]
    model_name = f"agreement_{n}"
    try:
        r = multi_turn_checker(decoded, truth, entry, category, model_name)
    finally:
        # BFCL keeps each trajectory's instances in module globals by model name.
        g = vars(multi_turn_utils)
        for k in [k for k in g if k.startswith(model_name + "_")]:
            del g[k]
    return bool(r["valid"]), (None if r["valid"] else r.get("error_type"))


def data_folder(given=None):
    """bfcl_eval's data folder: the one given, else the installed package's."""
    if given:
        return Path(given)
    import bfcl_eval

    return Path(bfcl_eval.__file__).parent / "data"


def fresh_suite(work):
    """`WORK/suite`, emptied: the calltape suite a script writes its entries into."""
    suite = Path(work).resolve() / "suite"
    suite.mkdir(parents=True, exist_ok=True)
    for p in suite.iterdir():
        p.unlink()
    return suite


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calltape", required=True)
    ap.add_argument("--work", default="target/bfcl-agreement-multi-turn")
    ap.add_argument("--data", help="bfcl_eval's data folder (default: the installed package's)")
    ap.add_argument("--sample", type=int, default=0, help="entries per category (0: all 200)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--category", action="append", help="only these categories")
    args = ap.parse_args()

    data_dir = data_folder(args.data)
    work = Path(args.work).resolve()
    suite = fresh_suite(work)
    rng = random.Random(args.seed)
    rows, lines = [], []
    for category in args.category or CATEGORIES:
        path = data_dir / f"BFCL_v4_{category}.json"
        if not path.exists():
            print(f"  {category}: not shipped, skipped")
            continue
        cmd = [args.calltape, "import", "bfcl", str(path), "--out", str(suite)]
        if args.sample:
            cmd += ["--sample", str(args.sample), "--seed", str(args.seed)]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"import of {path} failed: {out.stderr}")
        print("  " + out.stdout.strip())
        imported = {json.loads(l)["id"] for l in open(suite / f"{category}.jsonl", encoding="utf-8") if l.strip()}
        entries = {e["id"]: e for e in read_lines(path)}
        answers = {a["id"]: a["ground_truth"] for a in read_lines(data_dir / "possible_answer" / path.name)}
        for sid in sorted(imported, key=lambda s: int(s.rsplit("_", 1)[1])):
            for kind in KINDS:
                turns = trajectory(kind, answers[sid], rng)
                if turns is None:
                    continue
                n = len(rows)
                rows.append({"n": n, "category": category, "id": sid, "kind": kind, "turns": turns,
                             "entry": entries[sid], "truth": answers[sid]})
                lines.append(json.dumps({"id": sid, "n": n, "turns": turns}))
    out = subprocess.run([args.calltape, "bfcl-judge", "--suite", str(suite)], input="\n".join(lines) + "\n",
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"bfcl-judge failed: {out.stderr[-2000:]}")
    ours = {v["n"]: v for v in map(json.loads, out.stdout.splitlines())}
    per = collections.defaultdict(collections.Counter)
    kinds = collections.Counter()
    disagreements = []
    for r in rows:
        bv, btype = bfcl_verdict(r["entry"], r["truth"], r["turns"], r["category"], r["n"])
        c = ours[r["n"]]
        kinds[btype or "valid"] += 1
        same = bv == c["valid"]
        same_type = same and (bv or btype == c["error_type"])
        for key in ((r["category"], "all"), (r["category"], r["kind"])):
            per[key]["n"] += 1
            per[key]["bfcl_valid"] += bv
            per[key]["agree"] += same
            per[key]["agree_type"] += same_type
        if not same_type:
            disagreements.append({"id": r["id"], "kind": r["kind"], "bfcl": [bv, btype], "calltape": [c["valid"], c["error_type"]],
                                  "calltape_reason": c["reason"], "turns": r["turns"]})

    print("\n| category | trajectories | BFCL valid | verdicts agree | failure types agree |")
    print("| --- | ---: | ---: | ---: | ---: |")
    worst = 1.0
    for (category, kind), c in sorted(per.items(), key=lambda kv: (CATEGORIES.index(kv[0][0]), kv[0][1] != "all", kv[0][1])):
        label = category if kind == "all" else f"  {kind}"
        print(f"| {label} | {c['n']} | {c['bfcl_valid']} | {c['agree']} ({100 * c['agree'] / c['n']:.2f}%) "
              f"| {c['agree_type']} ({100 * c['agree_type'] / c['n']:.2f}%) |")
        if kind == "all":
            worst = min(worst, c["agree"] / c["n"])
    print("\nBFCL verdicts by failure type: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    print(f"\n{len(disagreements)} disagreement(s)")
    for d in disagreements:
        print(json.dumps(d)[:1500])
    (work / "agreement.json").write_text(json.dumps({"per": {f"{k[0]}/{k[1]}": dict(v) for k, v in per.items()},
                                                     "disagreements": disagreements}, indent=1))
    sys.exit(0 if worst >= 0.99 else 1)


if __name__ == "__main__":
    main()

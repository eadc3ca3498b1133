"""Single-turn answers with one or two faults, judged by calltape and by
BFCL's `ast_checker`, to compare verdicts and, above all, which error type
each reports first when an answer has two faults.

Run through run.sh with `--mutate` (it installs bfcl-eval and builds calltape):

    bash tools/bfcl_agreement/run.sh --mutate [--per-entry N] [--category simple_python]

Each answer starts from the entry's ground truth (each parameter's first
accepted value, calls in key order) and gets one or two faults, drawn from:

- `name`: the call's function name changed;
- `drop_required`: a required parameter left out;
- `drop_optional`: a parameter the key wants (no `""` alternative) left out;
- `extra`: an undeclared parameter added (first, last or in the middle);
- `type`: a value of another type (a number as a string, a string as a
  number, a list as its first item, a bool for an int, a dict as a list);
- `value`: a value of the right type but not accepted (a number off by one,
  a string changed, a list with an item more or less, a dict with a key
  more, less or changed);
- `nested`: a list item of another type;
- `count`: a call more or a call less.

Prints agreement per category and per fault pair, and every disagreement;
exits 1 below --min error-type agreement (default 99.8%).
"""

import argparse
import collections
import copy
import json
import random
import subprocess
import sys
from pathlib import Path

from agreement import CATEGORIES, bfcl_data_dir, bfcl_verdict, data_file, fc_model_name, read_lines

FAULTS = ["name", "drop_required", "drop_optional", "extra", "type", "value", "nested", "count"]
AST = [c for c in CATEGORIES if "relevance" not in c]


def tool_name(name):
    return name.replace(".", "_")


def truth_calls(answer):
    """The ground truth as an answer: each parameter's first accepted value ("" left out)."""
    calls = []
    for call in answer["ground_truth"]:
        for name, params in call.items():
            args = {}
            for k, alts in params.items():
                alts = alts if isinstance(alts, list) else [alts]
                first = next((a for a in alts if a != ""), None)
                if first is not None:
                    args[k] = copy.deepcopy(first)
            calls.append({tool_name(name): args})
    return calls


def other_type(v, rng):
    if isinstance(v, bool):
        return rng.choice([int(v), str(v).lower()])
    if isinstance(v, int):
        return rng.choice([str(v), float(v) + 0.5, [v], True])
    if isinstance(v, float):
        return rng.choice([str(v), [v], None])
    if isinstance(v, str):
        return rng.choice([len(v), [v], {"v": v}])
    if isinstance(v, list):
        return rng.choice([v[0] if v else "", {"items": v}, json.dumps(v)])
    if isinstance(v, dict):
        return rng.choice([list(v.values()), json.dumps(v)])
    return "x"


def other_value(v, rng):
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + rng.choice([1, -1, 1000])
    if isinstance(v, float):
        return v * 2 + 1.5
    if isinstance(v, str):
        return rng.choice([v + " extra", "zz" + v[::-1], ""])
    if isinstance(v, list):
        if v and rng.random() < 0.5:
            return v[:-1]
        return v + [copy.deepcopy(v[0]) if v else "item"]
    if isinstance(v, dict):
        w = dict(v)
        r = rng.random()
        if w and r < 0.33:
            w.pop(rng.choice(list(w)))
        elif w and r < 0.66:
            k = rng.choice(list(w))
            w[k] = other_value(w[k], rng)
        else:
            w["unexpected_key"] = 1
        return w
    return "changed"


def fault(kind, calls, entry, answer, rng):
    """Applies one fault in place; False where it does not apply."""
    if kind == "count":
        if len(calls) > 1 and rng.random() < 0.5:
            calls.pop(rng.randrange(len(calls)))
        else:
            calls.append(copy.deepcopy(rng.choice(calls)))
        return True
    i = rng.randrange(len(calls))
    name, args = next(iter(calls[i].items()))
    funcs = {tool_name(f["name"]): f for f in entry["function"]}
    fn = funcs.get(name)
    if fn is None:
        return False
    props = fn["parameters"].get("properties", {})
    required = fn["parameters"].get("required", [])
    if kind == "name":
        calls[i] = {name + "_v2": args}
        return True
    if kind == "drop_required":
        present = [p for p in required if p in args]
        if not present:
            return False
        del args[rng.choice(present)]
        return True
    if kind == "drop_optional":
        present = [p for p in args if p not in required]
        if not present:
            return False
        del args[rng.choice(present)]
        return True
    if kind == "extra":
        items = list(args.items())
        items.insert(rng.randrange(len(items) + 1), ("not_a_param", rng.choice([1, "x", True])))
        calls[i] = {name: dict(items)}
        return True
    if not args:
        return False
    k = rng.choice(list(args))
    if kind == "type":
        args[k] = other_type(args[k], rng)
        return True
    if kind == "value":
        args[k] = other_value(args[k], rng)
        return True
    if kind == "nested":
        lists = [p for p in args if isinstance(args[p], list) and args[p]]
        if not lists:
            return False
        p = rng.choice(lists)
        j = rng.randrange(len(args[p]))
        args[p][j] = other_type(args[p][j], rng)
        return True
    raise ValueError(kind)


def imported_entries(calltape, suite, categories):
    """Imports each category's entries with their answer key into an emptied
    `suite` folder (for `calltape bfcl-judge --suite`) and yields
    (category, entry, answer) for every entry, in file order."""
    suite.mkdir(parents=True, exist_ok=True)
    for p in suite.iterdir():
        p.unlink()
    data_dir = bfcl_data_dir()
    for category in categories:
        path = data_file(data_dir, category)
        if path is None:
            continue
        answer_path = data_dir / "possible_answer" / path.name
        out = subprocess.run([calltape, "import", "bfcl", str(path), "--answers", str(answer_path), "--out", str(suite)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"import of {path} failed: {out.stderr}")
        answers = {a["id"]: a for a in read_lines(answer_path)}
        for entry in read_lines(path):
            yield category, entry, answers[entry["id"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calltape", required=True)
    ap.add_argument("--work", default="target/bfcl-agreement-mutate-single")
    ap.add_argument("--per-entry", type=int, default=4, help="answers per entry")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--category", action="append", help="only these categories")
    ap.add_argument("--min", type=float, default=99.8, help="least error-type agreement (%%)")
    args = ap.parse_args()

    work = Path(args.work).resolve()
    suite = work / "suite"
    rng = random.Random(args.seed)
    model_name = fc_model_name()
    rows, lines = [], []
    for category, entry, answer in imported_entries(args.calltape, suite, args.category or AST):
        for _ in range(args.per_entry):
            calls = truth_calls(answer)
            kinds = rng.sample(FAULTS, rng.choice([1, 2, 2]))
            applied = [k for k in kinds if fault(k, calls, entry, answer, rng)]
            if not applied:
                continue
            n = len(rows)
            rows.append({"n": n, "category": category, "id": entry["id"], "faults": "+".join(applied),
                         "calls": calls, "entry": entry, "answer": answer})
            lines.append(json.dumps({"id": entry["id"], "n": n, "calls": calls}))
    answers_path = work / "answers.jsonl"
    answers_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = subprocess.run([args.calltape, "bfcl-judge", "--suite", str(suite), str(answers_path)], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"bfcl-judge failed: {out.stderr[:3000]}")
    ours = {v["n"]: v for v in map(json.loads, out.stdout.splitlines())}
    per = collections.defaultdict(collections.Counter)
    disagreements = []
    for r in rows:
        bv, btype = bfcl_verdict(r["category"], r["entry"], r["answer"], r["calls"], model_name)
        c = ours[r["n"]]
        same = bv == c["valid"]
        same_type = same and (bv or btype == c["error_type"])
        for key in (r["category"], "fault " + r["faults"]):
            per[key]["n"] += 1
            per[key]["agree"] += same
            per[key]["agree_type"] += same_type
        per["all"]["n"] += 1
        per["all"]["agree"] += same
        per["all"]["agree_type"] += same_type
        if not same_type:
            disagreements.append({"id": r["id"], "faults": r["faults"], "bfcl": [bv, btype],
                                  "calltape": [c["valid"], c["error_type"]], "calls": r["calls"]})
    print("| category or faults | answers | verdicts agree | error types agree |")
    print("| --- | ---: | ---: | ---: |")
    order = {c: i for i, c in enumerate(AST)}
    for key, c in sorted(per.items(), key=lambda kv: (kv[0] == "all", kv[0].startswith("fault"), order.get(kv[0], 0), kv[0])):
        print(f"| {key} | {c['n']} | {c['agree']} ({100 * c['agree'] / c['n']:.2f}%) | {c['agree_type']} ({100 * c['agree_type'] / c['n']:.2f}%) |")
    print(f"\n{len(disagreements)} disagreement(s)")
    for d in disagreements[:200]:
        print(json.dumps(d, ensure_ascii=True)[:1200])
    (work / "agreement.json").write_text(json.dumps({"per": {k: dict(v) for k, v in per.items()}, "disagreements": disagreements}, indent=1))
    total = per["all"]
    sys.exit(0 if 100 * total["agree_type"] / max(total["n"], 1) >= args.min else 1)


if __name__ == "__main__":
    main()

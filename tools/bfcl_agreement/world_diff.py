"""Differential check of calltape's BFCL API classes against BFCL's own.

Every multi-turn entry's ground-truth trajectory (and, with --mutate, each
turn's calls shuffled and with one call dropped) is executed twice: by
`calltape bfcl-judge --world` and by BFCL's `execute_multi_turn_func_call`.
Each call's result text and each class's public state after each turn must
be equal. Prints the mismatches by class and method, and the counts.

    python3 tools/bfcl_agreement/world_diff.py --calltape target/debug/calltape \
        [--data DIR] [--category multi_turn_base] [--class GorillaFileSystem] [--limit N]

DIR is bfcl_eval's data folder (default: the installed package's).
"""

import argparse
import collections
import copy
import json
import random
import subprocess
import sys
from pathlib import Path

CATEGORIES = ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"]


def data_dir(arg):
    if arg:
        return Path(arg)
    import bfcl_eval

    return Path(bfcl_eval.__file__).parent / "data"


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def plain(value):
    """A class's attribute as data: objects as their public attributes (a
    directory's parent left out: it points back up the tree), sets sorted."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        # calltape writes a set as its sorted items (Python's == ignores order).
        return sorted(plain(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "__dict__"):
        return {k: plain(v) for k, v in vars(value).items() if not k.startswith("_") and k != "parent"}
    return value


def bfcl_trace(t, key):
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call

    results, states = [], []
    for turn in t["turns"]:
        out, instances = execute_multi_turn_func_call(
            turn, t["initial_config"], t["involved_classes"], f"diff_{key}", "x", long_context=t["long_context"]
        )
        results.append(out)
        states.append([[name, {k: plain(v) for k, v in vars(inst).items() if not k.startswith("_")}] for name, inst in instances.items()])
    return {"results": results, "states": states}


def trajectories(data, categories, mutate, limit):
    rng = random.Random(7)
    for category in categories:
        entries = read_lines(data / f"BFCL_v4_{category}.json")
        answers = {a["id"]: a for a in read_lines(data / "possible_answer" / f"BFCL_v4_{category}.json")}
        for entry in entries[:limit]:
            turns = answers[entry["id"]]["ground_truth"]
            base = {
                "id": entry["id"],
                "involved_classes": entry["involved_classes"],
                "initial_config": entry.get("initial_config", {}),
                "long_context": "long_context" in category,
            }
            yield dict(base, turns=turns)
            if mutate:
                shuffled = [rng.sample(t, len(t)) for t in turns]
                yield dict(base, id=entry["id"] + "+shuffled", turns=shuffled)
                dropped = [t[: rng.randrange(len(t))] + t[rng.randrange(len(t)) + 1 :] if t else t for t in turns]
                yield dict(base, id=entry["id"] + "+dropped", turns=dropped)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--calltape", required=True)
    p.add_argument("--data")
    p.add_argument("--category", action="append")
    p.add_argument("--class", dest="only_class")
    p.add_argument("--limit", type=int, default=10**9)
    p.add_argument("--mutate", action="store_true")
    p.add_argument("--show", type=int, default=5, help="mismatches printed in full per class")
    a = p.parse_args()
    data = data_dir(a.data)
    ts = [t for t in trajectories(data, a.category or CATEGORIES, a.mutate, a.limit) if not a.only_class or a.only_class in t["involved_classes"]]
    lines = "".join(json.dumps(t) + "\n" for t in ts)
    out = subprocess.run([a.calltape, "bfcl-judge", "--world"], input=lines, capture_output=True, text=True, check=True).stdout.splitlines()
    mismatches = collections.Counter()
    shown = collections.Counter()
    checked = 0
    for i, (t, line) in enumerate(zip(ts, out)):
        ours = json.loads(line)
        theirs = bfcl_trace(copy.deepcopy(t), i)
        checked += 1
        if "error" in ours:
            mismatches["(calltape error)"] += 1
            print(f"{t['id']}: calltape: {ours['error']}")
            continue
        for turn, (r_ours, r_theirs) in enumerate(zip(ours["results"], theirs["results"])):
            for call, x, y in zip(t["turns"][turn], r_ours, r_theirs):
                if x != y:
                    method = call.split("(")[0]
                    mismatches[f"result {method}"] += 1
                    if shown[method] < a.show:
                        shown[method] += 1
                        print(f"{t['id']} turn {turn} {call}\n  calltape: {x[:400]}\n  bfcl:     {y[:400]}")
        for turn, (s_ours, s_theirs) in enumerate(zip(ours["states"], theirs["states"])):
            for (name, attrs_ours), (_, attrs_theirs) in zip(s_ours, s_theirs):
                for attr in set(attrs_theirs) | set(attrs_ours):
                    x, y = attrs_ours.get(attr, "<missing>"), attrs_theirs.get(attr, "<missing>")
                    if x != y:
                        mismatches[f"state {name}.{attr}"] += 1
                        if shown[name + attr] < a.show:
                            shown[name + attr] += 1
                            print(f"{t['id']} after turn {turn}: {name}.{attr}\n  calltape: {json.dumps(x, default=repr)[:400]}\n  bfcl:     {json.dumps(y, default=repr)[:400]}")
    print(f"\n{checked} trajectories checked")
    for k, n in mismatches.most_common():
        print(f"{n:6}  {k}")
    if not mismatches:
        print("no mismatch: every result and state equal")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()

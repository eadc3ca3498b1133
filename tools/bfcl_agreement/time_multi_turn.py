"""Speed of calltape's multi-turn judge against BFCL's `multi_turn_checker`
on the very same trajectories (the mutated ones of mutate_multi_turn.py).

    bash tools/bfcl_agreement/run_multi_turn.sh --time [--per-kind N] [--category multi_turn_base] [--rounds R]

BFCL's side: CPU time (`time.process_time`) of `multi_turn_checker` per
trajectory in this process, its instances' globals cleared after each, as
the agreement scripts judge. calltape's side: `calltape bfcl-judge --time R`
(each trajectory's call texts read and judged inside the timed loop, the
best round's mean). Prints both per trajectory and the ratio.
"""

import argparse
import json
import random
import subprocess
import time
from pathlib import Path

from agreement import judge_timing
from multi_turn import CATEGORIES, bfcl_verdict, data_folder, fresh_suite, read_lines
from mutate_multi_turn import KINDS, aliased, mutated, reset_shared_defaults


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calltape", required=True)
    ap.add_argument("--work", default="target/bfcl-time-multi-turn")
    ap.add_argument("--per-kind", type=int, default=1)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--category", action="append")
    args = ap.parse_args()

    data_dir = data_folder()
    work = Path(args.work).resolve()
    suite = fresh_suite(work)
    rng = random.Random(args.seed)
    rows = []
    for category in args.category or CATEGORIES:
        path = data_dir / f"BFCL_v4_{category}.json"
        out = subprocess.run([args.calltape, "import", "bfcl", str(path), "--out", str(suite)], capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"import of {path} failed: {out.stderr}")
        entries = {e["id"]: e for e in read_lines(path)}
        answers = {a["id"]: a["ground_truth"] for a in read_lines(data_dir / "possible_answer" / path.name)}
        for sid in sorted(entries, key=lambda s: int(s.rsplit("_", 1)[1])):
            rows.append((category, entries[sid], answers[sid], answers[sid]))
            for kind in KINDS:
                for _ in range(args.per_kind):
                    turns = aliased(entries[sid], answers[sid], rng) if kind == "alias" else mutated(kind, answers[sid], rng)
                    if turns is not None:
                        rows.append((category, entries[sid], answers[sid], turns))
    answers_path = work / "answers.jsonl"
    with open(answers_path, "w", encoding="utf-8") as f:
        for category, entry, _, turns in rows:
            f.write(json.dumps({"id": entry["id"], "turns": turns}) + "\n")

    cpu = 0.0
    for n, (category, entry, truth, turns) in enumerate(rows):
        reset_shared_defaults()
        started = time.process_time()
        bfcl_verdict(entry, truth, turns, category, n)
        cpu += time.process_time() - started
    bfcl_us = cpu * 1e6 / len(rows)

    ours = judge_timing(args.calltape, suite, args.rounds, answers_path)
    print(f"{len(rows)} trajectories ({', '.join(args.category or CATEGORIES)})")
    print(f"bfcl-eval multi_turn_checker: {bfcl_us:.0f} µs CPU a trajectory")
    print(f"calltape bfcl-judge: {ours['best_round_us']:.1f} µs a trajectory (best of {ours['rounds']} rounds; mean {ours['mean_us']:.1f})")
    print(f"ratio: {bfcl_us / ours['best_round_us']:.1f}x")


if __name__ == "__main__":
    main()

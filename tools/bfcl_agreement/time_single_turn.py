"""Speed of calltape's single-turn judge against BFCL's `ast_checker` on the
very same answers: each entry's ground truth and the faulted answers of
mutate_single_turn.py.

    bash tools/bfcl_agreement/run.sh --time [--per-entry N] [--category simple_python] [--rounds R] [--calltape PATH]

BFCL's side: CPU time (`time.process_time`) of `ast_checker` over all
answers, the best of R rounds, per answer. calltape's side: `calltape
bfcl-judge --time R` (each answer's arguments converted and judged inside
the timed loop, the best round's mean). Prints both and the ratio.
"""

import argparse
import json
import random
import time
from pathlib import Path

from agreement import fc_model_name, judge_timing, language_of
from mutate_single_turn import AST, FAULTS, fault, imported_entries, truth_calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calltape", required=True)
    ap.add_argument("--work", default="target/bfcl-time-single-turn")
    ap.add_argument("--per-entry", type=int, default=2, help="faulted answers per entry (besides the ground truth)")
    ap.add_argument("--seed", type=int, default=11)
    # A calltape round is ~3 ms: few rounds can all land in one slow stretch of a shared machine.
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--category", action="append")
    args = ap.parse_args()
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    work = Path(args.work).resolve()
    suite = work / "suite"
    rng = random.Random(args.seed)
    model_name = fc_model_name()
    prepared, lines = [], []
    for category, entry, answer in imported_entries(args.calltape, suite, args.category or AST):
        variants = [truth_calls(answer)]
        for _ in range(args.per_entry):
            calls = truth_calls(answer)
            if any([fault(k, calls, entry, answer, rng) for k in rng.sample(FAULTS, 2)]):
                variants.append(calls)
        for calls in variants:
            prepared.append((entry["function"], calls, answer["ground_truth"], language_of(category), category))
            lines.append(json.dumps({"id": entry["id"], "calls": calls}))
    answers_path = work / "answers.jsonl"
    answers_path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    best = float("inf")
    for _ in range(args.rounds):
        started = time.process_time()
        for fn, calls, gt, lang, cat in prepared:
            try:
                ast_checker(fn, calls, gt, lang, cat, model_name)
            except Exception:
                pass
        best = min(best, time.process_time() - started)
    bfcl_us = best * 1e6 / len(prepared)

    ours = judge_timing(args.calltape, suite, args.rounds, answers_path)
    print(f"{len(prepared)} answers ({', '.join(args.category or AST)}); calltape {args.calltape}")
    print(f"bfcl-eval ast_checker: {bfcl_us:.2f} µs CPU an answer (best of {args.rounds} rounds)")
    print(f"calltape bfcl-judge: {ours['best_round_us']:.2f} µs an answer (best of {ours['rounds']} rounds; mean {ours['mean_us']:.2f})")
    print(f"ratio: {bfcl_us / ours['best_round_us']:.1f}x")


if __name__ == "__main__":
    main()

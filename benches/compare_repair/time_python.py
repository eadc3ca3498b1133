"""Times Python json_repair per call over a batch file, in-process, start-up
and I/O excluded; prints {"inputs", "rounds", "mean_us"} (fastest round).

usage: time_python.py BATCH_JSONL ROUNDS
"""
import json
import sys
import time

from json_repair import repair_json


def repair_all(texts):
    for text in texts:
        try:
            repair_json(text, return_objects=True)
        except Exception:  # an input it rejects still took its time
            pass


def main():
    texts = [json.loads(line)["args"] for line in open(sys.argv[1]) if line.strip()]
    rounds = int(sys.argv[2])
    # Untimed warm-up (1 s), as for Node: CPython's adaptive interpreter also
    # specialises hot code, and both sides should be measured warm.
    until = time.perf_counter() + 1
    while time.perf_counter() < until:
        repair_all(texts)
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        repair_all(texts)
        best = min(best, (time.perf_counter() - start) * 1e6 / len(texts))
    print(json.dumps({"inputs": len(texts), "rounds": rounds, "mean_us": best}))


if __name__ == "__main__":
    main()

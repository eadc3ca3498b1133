"""Times Python json_repair per call over a batch file, in-process, start-up
and I/O excluded; prints {"inputs", "rounds", "mean_us"} (fastest round).

usage: time_python.py BATCH_JSONL ROUNDS
"""
import json
import sys
import time

from json_repair import repair_json


def main():
    texts = [json.loads(line)["args"] for line in open(sys.argv[1]) if line.strip()]
    rounds = int(sys.argv[2])
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for text in texts:
            try:
                repair_json(text, return_objects=True)
            except Exception:  # an input it rejects still took its time
                pass
        best = min(best, (time.perf_counter() - start) * 1e6 / len(texts))
    print(json.dumps({"inputs": len(texts), "rounds": rounds, "mean_us": best}))


if __name__ == "__main__":
    main()

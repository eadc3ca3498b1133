"""Instructions per call of calltape's local pipeline, counted by valgrind
(callgrind), for comparing two builds on a machine whose speed drifts: the
count barely moves between runs, where timings here move by tens of percent.
It counts what runs inside `check_call` (resolve, parse, validate, local
repair, the verdict) and divides by the calls made; it does not see cache
misses, so confirm a gain with timings (criterion, compare_repair.sh).

usage: python3 benches/instructions.py [--bin PATH] [BATCH_JSONL...]
  BATCH_JSONL: `calltape repair --batch` files ({"args": "...", "schema": {...}?}
  a line); without any, the two input sets compare_repair.sh times (the
  jsonrepair corpus and 200 tool calls, from compare_repair/make_inputs.py).
Needs valgrind; --bin defaults to target/release/calltape (build it first).
Run from the repository's root.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def instructions_per_call(binary, batch):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--toggle-collect=*check_call*", f"--callgrind-out-file={out}",
             binary, "repair", "--batch", batch, "--time", "1"],
            capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"{batch}: valgrind failed:\n{run.stderr[-2000:]}")
        text = open(out).read()
    total = int(re.search(r"^summary: (\d+)", text, re.M).group(1))
    # Function names are written once as "(id) name", later as "(id)" alone.
    ids = {m.group(1) for m in re.finditer(r"^c?fn=\((\d+)\) .*pipeline::check_call$", text, re.M)}
    lines = text.split("\n")
    calls = sum(int(lines[k + 1].split("=")[1].split()[0])
                for k, line in enumerate(lines[:-1])
                if (m := re.match(r"^cfn=\((\d+)\)", line)) and m.group(1) in ids and lines[k + 1].startswith("calls="))
    if calls == 0:
        sys.exit(f"{batch}: no check_call calls counted (a build without symbols?)")
    return total / calls, calls


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default="target/release/calltape")
    parser.add_argument("batches", nargs="*")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as inputs:
        batches = args.batches
        if not batches:
            subprocess.run([sys.executable, "benches/compare_repair/make_inputs.py",
                            "tests/fixtures/json-repair/jsonrepair.jsonl", inputs], check=True)
            batches = [os.path.join(inputs, "corpus.jsonl"), os.path.join(inputs, "tool_calls.jsonl")]
        for batch in batches:
            per_call, calls = instructions_per_call(args.bin, batch)
            print(f"{os.path.basename(batch):32s} {per_call:9.0f} instructions/call  ({calls} calls)")


if __name__ == "__main__":
    main()

"""Writes the inputs of Python json_repair's own test suite as a batch file
(`{"args": text}` a line) for timing on a second corpus, one the project
was not built against: every literal first argument of a `repair_json(...)`
call compared with `==` in its tests (`test_json_repair.py`,
`test_parse_*.py`), each text once. The cases stay in json_repair's
repository (MIT licence); this reads a checkout of it, nothing is copied
into this one.

usage: json_repair_cases.py JSON_REPAIR_CHECKOUT OUT_JSONL
  e.g. git clone https://github.com/mangiucugna/json_repair /tmp/json_repair
       (git -C /tmp/json_repair checkout 600ede6 for the figures in docs/repair-speed.md)
       python3 benches/compare_repair/json_repair_cases.py /tmp/json_repair /tmp/json_repair_cases.jsonl
       target/release/calltape repair --batch /tmp/json_repair_cases.jsonl --time 5
       target/release/examples/repair_peers time /tmp/json_repair_cases.jsonl 5
"""
import ast
import glob
import json
import os
import sys


def inputs_of(path):
    """The literal texts passed first to `repair_json` where its result is compared."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Call) and node.left.args):
            continue
        func = node.left.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name != "repair_json":
            continue
        try:
            text = ast.literal_eval(node.left.args[0])
        except (ValueError, TypeError, SyntaxError):
            continue  # built at run time: not a literal case
        if isinstance(text, str):
            yield text


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    checkout, out = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(checkout, "tests", "test_json_repair.py"))
                   + glob.glob(os.path.join(checkout, "tests", "test_parse_*.py")))
    if not files:
        sys.exit(f"{checkout}: no tests/test_json_repair.py or tests/test_parse_*.py (a json_repair checkout?)")
    seen, lines = set(), []
    for path in files:
        for text in inputs_of(path):
            if text not in seen:
                seen.add(text)
                lines.append(json.dumps({"args": text}))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{out}: {len(lines)} inputs from {len(files)} test files")


if __name__ == "__main__":
    main()

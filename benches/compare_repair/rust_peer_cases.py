"""Writes the test cases of the Rust peers' own suites as a scoring corpus
for `repair_peers score` (`{"input", "expected", "outcome", "source"}` a
line): a third corpus the project was not built against. Read from the
crates cargo has already unpacked (both MIT-licensed; nothing is copied
into this repository):

  jsonrepair-rs 0.2.6: every `ok(INPUT, EXPECTED)` and `err(INPUT)` of
    tests/repair_tests.rs, and tests/fixtures/parity_cases.json;
  llm_json 1.0.3: every `repair_json(INPUT, ...)` of src/lib.rs's tests
    followed by `assert_eq!(result, EXPECTED)`.

EXPECTED is the crate's repaired text, read as JSON; a case whose text is
not JSON is left out. Each input once (the first expectation wins).

usage: rust_peer_cases.py OUT_JSONL [CARGO_REGISTRY_SRC]
  (default: the first ~/.cargo/registry/src/*/ holding jsonrepair-rs-0.2.6)
  e.g. python3 benches/compare_repair/rust_peer_cases.py /tmp/rust_peers.jsonl
       cargo run --example repair_peers -- score /tmp/rust_peers.jsonl
"""
import glob
import json
import os
import re
import sys

ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def literals(src):
    """(start, end, value) of each Rust string literal in the source, in order."""
    i = 0
    while i < len(src):
        c = src[i]
        if src.startswith("//", i):
            i = src.find("\n", i)
            i = len(src) if i < 0 else i
            continue
        m = re.compile(r'r(#*)"').match(src, i) if c == "r" and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")) else None
        if m:
            close = '"' + m.group(1)
            end = src.find(close, m.end())
            yield i, end + len(close), src[m.end():end]
            i = end + len(close)
            continue
        if c == "'" and i + 2 < len(src) and (src[i + 2] == "'" or src[i + 1] == "\\"):
            i = src.find("'", i + 2) + 1  # a char literal such as '"' is not a string
            continue
        if c != '"':
            i += 1
            continue
        out, j = [], i + 1
        while src[j] != '"':
            if src[j] == "\\":
                e = src[j + 1]
                if e in ESCAPES:
                    out.append(ESCAPES[e])
                    j += 2
                elif e == "x":
                    out.append(chr(int(src[j + 2:j + 4], 16)))
                    j += 4
                elif e == "u":
                    close = src.index("}", j)
                    out.append(chr(int(src[j + 3:close], 16)))
                    j = close + 1
                elif e == "\n":  # a line continuation: the newline and the next line's indent go
                    j += 2
                    while src[j] in " \t\n":
                        j += 1
                else:
                    raise ValueError(f"unknown escape \\{e}")
            else:
                out.append(src[j])
                j += 1
        yield i, j + 1, "".join(out)
        i = j + 1


def calls(src, name, arity):
    """Each `name(LIT, LIT...)` whose first `arity` arguments are literals: (position, [values])."""
    lits = list(literals(src))
    for m in re.finditer(rf"(?<![\w.]){name}\(", src):
        after = [l for l in lits if l[0] >= m.end()][:arity]
        gaps = [src[m.end():after[0][0]] if after else "x"] + [src[a[1]:b[0]] for a, b in zip(after, after[1:])]
        if len(after) == arity and gaps[0].strip() == "" and all(g.strip() == "," for g in gaps[1:]):
            yield m.start(), [l[2] for l in after]


NOT_JSON = object()  # an expected text that does not read as JSON: the case is left out


def as_json(text):
    try:
        return json.loads(text)
    except ValueError:
        return NOT_JSON


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = sys.argv[1]
    if len(sys.argv) == 3:
        registry = sys.argv[2]
    else:
        found = glob.glob(os.path.expanduser("~/.cargo/registry/src/*/jsonrepair-rs-0.2.6"))
        if not found:
            sys.exit("no jsonrepair-rs-0.2.6 under ~/.cargo/registry/src (run `cargo fetch` in this repository)")
        registry = os.path.dirname(found[0])
    jr, lj = f"{registry}/jsonrepair-rs-0.2.6", f"{registry}/llm_json-1.0.3"
    cases = []
    src = open(f"{jr}/tests/repair_tests.rs", encoding="utf-8").read()
    line_of = lambda s, pos: s.count("\n", 0, pos) + 1
    for pos, (text, want) in calls(src, "ok", 2):
        cases.append((text, as_json(want), "ok", f"jsonrepair-rs tests/repair_tests.rs:{line_of(src, pos)}"))
    for pos, (text,) in calls(src, "err", 1):
        cases.append((text, None, "error", f"jsonrepair-rs tests/repair_tests.rs:{line_of(src, pos)}"))
    for case in json.load(open(f"{jr}/tests/fixtures/parity_cases.json", encoding="utf-8"))["cases"]:
        cases.append((case["input"], as_json(case["expected"]), "ok", f"jsonrepair-rs tests/fixtures/parity_cases.json {case['name']}"))
    src = open(f"{lj}/src/lib.rs", encoding="utf-8").read()
    lits = list(literals(src))
    for pos, (text,) in calls(src, "repair_json", 1):
        # The `assert_eq!(result, EXPECTED)` that follows, before the next repair.
        m = re.compile(r"assert_eq!\(\s*result,\s*").search(src, pos)
        nxt = re.compile(r"repair_json\(").search(src, pos + 1)
        if not m or (nxt and nxt.start() < m.start()):
            continue
        want = next((l[2] for l in lits if l[0] == m.end()), None)
        if want is not None:
            cases.append((text, as_json(want), "ok", f"llm_json src/lib.rs:{line_of(src, pos)}"))
    seen, lines = set(), []
    for text, value, outcome, source in cases:
        if text in seen or value is NOT_JSON:
            continue
        seen.add(text)
        lines.append(json.dumps({"input": text, "expected": value, "outcome": outcome, "source": source}, ensure_ascii=False))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{out}: {len(lines)} cases")


if __name__ == "__main__":
    main()

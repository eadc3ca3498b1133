"""Writes the inputs of Python json_repair's own test suite, one case a
line, for timing and scoring on a second corpus, one the project was not
built against: every first argument of a `repair_json(...)` call compared
with `==` in its tests (`test_json_repair.py`, `test_parse_*.py`), each
text once. A literal argument, a name bound to a literal in the test
function, and `pytest.mark.parametrize` rows all count. The cases stay in
json_repair's repository (MIT licence); this reads a checkout of it,
nothing is copied into this one.

usage: json_repair_cases.py JSON_REPAIR_CHECKOUT OUT_JSONL [--expected]
  without --expected: a batch (`{"args": text}` a line) for timing;
  with --expected: a scoring corpus, `{"input", "expected", "outcome",
  "source", "convention"?}` a line, for `repair_peers score` (the
  expected value is the compared result read as JSON; `convention` marks
  a case whose expectation is json_repair's own convention rather than
  something the text means, see docs/lenient-parser-comparison.md)
  e.g. git clone https://github.com/mangiucugna/json_repair /tmp/json_repair
       (git -C /tmp/json_repair checkout 600ede6 for the figures in the docs)
       python3 benches/compare_repair/json_repair_cases.py /tmp/json_repair /tmp/json_repair_cases.jsonl
       target/release/calltape repair --batch /tmp/json_repair_cases.jsonl --time 5
       python3 benches/compare_repair/json_repair_cases.py /tmp/json_repair /tmp/json_repair_expected.jsonl --expected
       cargo run --example repair_peers -- score /tmp/json_repair_expected.jsonl
"""
import ast
import glob
import json
import os
import sys

# Options that change what repair_json returns beyond the value: a streaming
# mode and a (value, log) pair. Those comparisons are not scored.
NOT_SCORED = {"stream_stable", "logging", "schema", "strict"}


def literal(node, names):
    """The literal a node stands for (a name bound to one included), or raise ValueError."""
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise ValueError(node.id)
    return ast.literal_eval(node)


def bindings(func):
    """Names bound to a literal by a plain assignment in a test function."""
    names = {}
    for stmt in ast.walk(func):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            try:
                names[stmt.targets[0].id] = ast.literal_eval(stmt.value)
            except (ValueError, TypeError, SyntaxError):
                pass
    return names


def parametrized(func):
    """Each row of a `pytest.mark.parametrize` decorator as a name -> literal dict."""
    rows = [{}]
    for deco in func.decorator_list:
        if not (isinstance(deco, ast.Call) and getattr(deco.func, "attr", None) == "parametrize" and len(deco.args) >= 2):
            continue
        try:
            names = ast.literal_eval(deco.args[0])
            values = ast.literal_eval(deco.args[1])
        except (ValueError, TypeError, SyntaxError):
            continue
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        rows = [dict(r, **(dict(zip(names, v)) if len(names) > 1 else {names[0]: v})) for r in rows for v in values]
    return rows


def cases_of(path):
    """(input, options, compared literal or None, line) for each `repair_json(...) == ...`."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        local = bindings(func)
        for row in parametrized(func):
            names = dict(local, **row)
            for node in ast.walk(func):
                if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Call) and node.left.args):
                    continue
                call = node.left
                name = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)
                if name != "repair_json" or not isinstance(node.ops[0], ast.Eq):
                    continue
                try:
                    text = literal(call.args[0], names)
                except (ValueError, TypeError, SyntaxError):
                    continue  # built at run time: not a literal case
                if not isinstance(text, str):
                    continue
                options = {}
                for kw in call.keywords:
                    try:
                        options[kw.arg] = literal(kw.value, names)
                    except (ValueError, TypeError, SyntaxError):
                        options[kw.arg] = "?"
                try:
                    want = literal(node.comparators[0], names)
                except (ValueError, TypeError, SyntaxError):
                    want = None
                yield text, options, want, node.lineno


def expected_case(text, options, want):
    """The scoring line for one comparison, or None when it cannot be scored."""
    if NOT_SCORED & options.keys() or want is None:
        return None
    if want == "":
        # json_repair's "no JSON here": its own convention for a text with
        # no value in it (a bare word, a lone quote), as repaired text or,
        # with return_objects, as the object.
        return {"input": text, "expected": "", "outcome": "ok", "convention": "empty result"}
    if options.get("return_objects"):
        value = want
    elif isinstance(want, str):
        try:
            value = json.loads(want)
        except ValueError:
            return None
    else:
        return None
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return None
    return {"input": text, "expected": value, "outcome": "ok"}


def main():
    args = [a for a in sys.argv[1:] if a != "--expected"]
    if len(args) != 2:
        sys.exit(__doc__)
    checkout, out = args
    scoring = "--expected" in sys.argv[1:]
    files = sorted(glob.glob(os.path.join(checkout, "tests", "test_json_repair.py"))
                   + glob.glob(os.path.join(checkout, "tests", "test_parse_*.py")))
    if not files:
        sys.exit(f"{checkout}: no tests/test_json_repair.py or tests/test_parse_*.py (a json_repair checkout?)")
    seen, lines = set(), []
    for path in files:
        for text, options, want, line in cases_of(path):
            if text in seen:
                continue
            if not scoring:
                seen.add(text)
                lines.append(json.dumps({"args": text}))
                continue
            case = expected_case(text, options, want)
            if case is not None:
                seen.add(text)
                case["source"] = {"file": os.path.relpath(path, checkout), "line": line}
                lines.append(json.dumps(case, ensure_ascii=False))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{out}: {len(lines)} {'cases' if scoring else 'inputs'} from {len(files)} test files")


if __name__ == "__main__":
    main()

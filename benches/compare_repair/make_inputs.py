"""Writes the two input sets of the repair speed comparison as batch files
(`{"args": text, "schema": {...}?}` a line), the format `calltape repair
--batch` and the Python/Node timers read:

  corpus.jsonl      the jsonrepair test corpus inputs, no schema
  tool_calls.jsonl  200 tool-call arguments as models write them, valid and
                    broken, each with its tool's JSON Schema
  kinds/KIND.jsonl  the same 200 split by kind (valid, trailing_comma, ...),
                    for the comparison kind by kind
  long.jsonl        60 long and deeply nested arguments: a file's contents
                    (2-12 KB of code with escapes and non-ASCII text) in a
                    write call, arrays of hundreds of objects, nesting 20-60
                    deep; valid and broken as models break them

usage: make_inputs.py CORPUS_JSONL OUT_DIR
"""
import json
import os
import random
import re
import sys

READ_FILE = {
    "type": "object", "additionalProperties": False,
    "properties": {"target_file": {"type": "string"}, "should_read_entire_file": {"type": "boolean"},
                   "start_line_one_indexed": {"type": "integer"}},
    "required": ["target_file", "should_read_entire_file"],
}
RUN_CMD = {
    "type": "object", "additionalProperties": False,
    "properties": {"command": {"type": "string"}, "is_background": {"type": "boolean"}},
    "required": ["command", "is_background"],
}
GREP = {
    "type": "object", "additionalProperties": False,
    "properties": {"query": {"type": "string"}, "include_pattern": {"type": "string"},
                   "exclude_pattern": {"type": "string"}, "case_sensitive": {"type": "boolean"}},
    "required": ["query"],
}
FILES = ["src/main.rs", "src/lib.rs", "Cargo.toml", "tests/api.rs", "docs/README.md", "src/pipeline/repair.rs"]
COMMANDS = ["cargo test", "ls -la /tmp", "git status --short", "npm run build", "python3 -m pytest -q"]
QUERIES = ["TODO", "fn main", "unwrap\\(\\)", "import json", "class .*Error"]


# One generator per kind of call: each takes the random source and returns
# (arguments text, schema). Written as f-strings so the breakage is exactly
# what a model emits, not what json.dumps would produce.
def valid(r):
    return json.dumps({"target_file": r.choice(FILES), "should_read_entire_file": r.random() < 0.5}), READ_FILE

def trailing_comma(r):
    return f'{{"command": "{r.choice(COMMANDS)}", "is_background": false,}}', RUN_CMD

def single_quotes(r):
    return f"{{'query': '{r.choice(QUERIES)}', 'include_pattern': '*.rs'}}", GREP

def unquoted_value(r):
    return f'{{"command": {r.choice(COMMANDS)}, "is_background": false}}', RUN_CMD

def python_literals(r):
    return f'{{"query": "{r.choice(QUERIES)}", "case_sensitive": True, "include_pattern": None}}', GREP

def code_fence(r):
    return f'```json\n{{"target_file": "{r.choice(FILES)}", "should_read_entire_file": true}}\n```', READ_FILE

def prose_around(r):
    return f'Sure, I will run it: {{"command": "{r.choice(COMMANDS)}", "is_background": false}} Let me know!', RUN_CMD

def truncated(r):
    return f'{{"target_file": "{r.choice(FILES)}", "should_read_entire_file": false, "start_line_one_indexed": {r.randint(1, 400)}', READ_FILE

def wrong_types(r):
    return f'{{"target_file": "{r.choice(FILES)}", "should_read_entire_file": "true", "start_line_one_indexed": "{r.randint(1, 400)}"}}', READ_FILE

def aliased_key(r):
    return json.dumps({"file_path": r.choice(FILES), "should_read_entire_file": True}), READ_FILE

def extra_property(r):
    return json.dumps({"command": r.choice(COMMANDS), "is_background": False, "explanation": "check the build"}), RUN_CMD

WRITE_FILE = {
    "type": "object", "additionalProperties": False,
    "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["file_path", "content"],
}
ROWS = {"type": "object", "properties": {"rows": {"type": "array", "items": {"type": "object"}}}, "required": ["rows"]}
TREE = {"type": "object"}
WORDS = ["parse", "value", "résumé", "naïve", "数据", "größe", "token", "café", "→", "user_id", "count", "línea"]


def source_file(r, kb):
    """About `kb` KB of Python as a model writes it into a file: quotes,
    backslashes, tabs, blank lines and non-ASCII comments and strings."""
    lines = []
    while sum(len(l) + 1 for l in lines) < kb * 1024:
        name, word = r.choice(WORDS[:4] + ["rows", "item"]), r.choice(WORDS)
        lines += [
            f"def {name}_{len(lines)}(path, sep=\"\\t\"):",
            f'    """Reads {word} from path; returns a dict of "{r.choice(WORDS)}" → count."""',
            f"    pattern = re.compile(r\"^(\\w+)\\s*=\\s*'([^']*)'$\")",
            f"    with open(path, encoding='utf-8') as f:",
            f"        for line in f:",
            f"\t\tkey, _, rest = line.partition(sep)  # {word}: ¿{r.randint(0, 999)}?",
            f"            print(f\"{{key!r}} → {{rest.strip()}}\\n\")",
            "",
        ]
    return "\n".join(lines) + "\n"


def row(r, i):
    return {"id": i, "name": f"{r.choice(WORDS)} {i}", "active": r.random() < 0.5, "score": round(r.uniform(0, 100), 2),
            "tags": r.sample(WORDS, 3), "owner": {"login": f"user{r.randint(1, 99)}", "verified": None}}


def nested(r, depth):
    value = {"leaf": r.choice(WORDS), "n": r.randint(0, 9)}
    for level in range(depth):
        value = {f"level_{depth - level}": value, "items": [level, r.choice(WORDS)]} if level % 3 else [value, level]
    return {"tree": value}


# The long set: (arguments text, schema) pairs, each a way models write long arguments.
def long_file_valid(r):
    return json.dumps({"file_path": r.choice(FILES), "content": source_file(r, r.randint(2, 12))}, ensure_ascii=False), WRITE_FILE

def long_file_raw_newlines(r):
    # The code pasted into the string as is: raw newlines and tabs, unescaped.
    text = json.dumps({"file_path": r.choice(FILES), "content": source_file(r, r.randint(2, 12))}, ensure_ascii=False)
    return text.replace("\\n", "\n").replace("\\t", "\t"), WRITE_FILE

def long_file_truncated(r):
    text = json.dumps({"file_path": r.choice(FILES), "content": source_file(r, r.randint(2, 12))}, ensure_ascii=False)
    return text[: len(text) * 3 // 4].rstrip("\\"), WRITE_FILE

def long_rows_valid(r):
    return json.dumps({"rows": [row(r, i) for i in range(r.randint(100, 400))]}, ensure_ascii=False), ROWS

def long_rows_python(r):
    # Python's repr of the same: single quotes, True/False/None.
    return repr({"rows": [row(r, i) for i in range(r.randint(100, 400))]}), ROWS

def long_rows_trailing_commas(r):
    text = json.dumps({"rows": [row(r, i) for i in range(r.randint(100, 400))]}, ensure_ascii=False, indent=2)
    return re.sub(r"(\S)\n(\s*)([}\]])", r"\1,\n\2\3", text), ROWS

def deep_valid(r):
    return json.dumps(nested(r, r.randint(20, 60)), ensure_ascii=False), TREE

def deep_truncated(r):
    text = json.dumps(nested(r, r.randint(20, 60)), ensure_ascii=False)
    return text[: len(text) * 2 // 3], TREE

LONG = [long_file_valid, long_file_raw_newlines, long_file_truncated, long_rows_valid, long_rows_python,
        long_rows_trailing_commas, deep_valid, deep_truncated]


KINDS = [valid, trailing_comma, single_quotes, unquoted_value, python_literals, code_fence,
         prose_around, truncated, wrong_types, aliased_key, extra_property]


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    with open(corpus) as f, open(f"{out}/corpus.jsonl", "w") as w:
        for line in f:
            w.write(json.dumps({"args": json.loads(line)["input"]}) + "\n")
    rng = random.Random(7)  # fixed seed: the same inputs on every run and machine
    os.makedirs(f"{out}/kinds", exist_ok=True)
    by_kind = {kind.__name__: open(f"{out}/kinds/{kind.__name__}.jsonl", "w") for kind in KINDS}
    with open(f"{out}/tool_calls.jsonl", "w") as w:
        for i in range(200):  # kinds in turn, so each is ~1/11 of the set
            kind = KINDS[i % len(KINDS)]
            args, schema = kind(rng)
            line = json.dumps({"args": args, "schema": schema}) + "\n"
            w.write(line)
            by_kind[kind.__name__].write(line)
    for f in by_kind.values():
        f.close()
    rng = random.Random(11)  # its own seed: the other sets stay as they were
    with open(f"{out}/long.jsonl", "w") as w:
        for i in range(60):
            args, schema = LONG[i % len(LONG)](rng)
            w.write(json.dumps({"args": args, "schema": schema}) + "\n")


if __name__ == "__main__":
    main()

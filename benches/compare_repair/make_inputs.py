"""Writes the two input sets of the repair speed comparison as batch files
(`{"args": text, "schema": {...}?}` a line), the format `calltape repair
--batch` and the Python/Node timers read:

  corpus.jsonl      the jsonrepair test corpus inputs, no schema
  tool_calls.jsonl  200 tool-call arguments as models write them, valid and
                    broken, each with its tool's JSON Schema
  kinds/KIND.jsonl  the same 200 split by kind (valid, trailing_comma, ...),
                    for the comparison kind by kind

usage: make_inputs.py CORPUS_JSONL OUT_DIR
"""
import json
import os
import random
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


if __name__ == "__main__":
    main()

"""Mutated multi-turn trajectories aimed at where Python's semantics reach
BFCL's state, judged by calltape and by BFCL's `multi_turn_checker`.

Run through run_multi_turn.sh with `--mutate` (it installs bfcl-eval and
builds calltape):

    bash tools/bfcl_agreement/run_multi_turn.sh --mutate [--per-kind N] [--category multi_turn_base]

Each trajectory is an entry's ground truth with one call argument rewritten
(or, for `alias`, two calls added), one mutation class a kind:

- `float_int`: an int passed as the float equal to it (`5` → `5.0`), a
  float with an integral value as the int (`2.0` → `2`);
- `bool_int`: an int passed as a bool (`0` → `False`, `1` → `True`, other
  ints → `True`) and a bool as an int;
- `iterable`: a list passed as a string, a tuple, a dict or a one-item list
  nested, a string passed as a list of its words;
- `surrogate`: a string with a lone surrogate escape (`'\\ud800'`), a
  surrogate pair written as two escapes, or a lone surrogate in the call
  text itself (JSON allows it; Python's `eval` refuses to encode it);
- `bigint`: an int beyond 128 bits (`2**130`, `-10**45`, `2**1100` past the
  largest float) in any literal form (decimal, hex, octal, binary, `_`-grouped);
- `literal_form`: the same value written another way: hex, octal, binary
  and `_`-grouped ints, exponent floats, every string escape Python knows
  (`\\x41`, `\\101`, `\\N{...}`, `\\u0041`, `\\a`), raw and concatenated
  strings;
- `alias`: a mention, on the model's side only, of a tweet posted without
  mentions: BFCL's `post_tweet` default `mentions=[]` is one list shared by
  every instance, the ground truth's too.

BFCL's default lists also outlive a trajectory (the next one in the process
starts with them filled); the harness empties them before each trajectory,
since which trajectory came before is an accident of the order judged.

Prints agreement per category and kind, and every disagreement; exits 1
below --min agreement (default 99.8%) in any category.
"""

import argparse
import ast
import collections
import json
import random
import subprocess
import sys
from pathlib import Path

from multi_turn import CATEGORIES, bfcl_verdict, data_folder, fresh_suite, read_lines

KINDS = ["float_int", "bool_int", "iterable", "surrogate", "bigint", "literal_form", "alias"]


def literal_nodes(call):
    """(node, text) of every literal in the call's arguments, nested ones too."""
    tree = ast.parse(call, mode="eval")
    out = []

    def walk(node):
        if isinstance(node, ast.Constant) or (isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)):
            out.append(node)
        elif isinstance(node, (ast.List, ast.Tuple)):
            out.append(node)
            for e in node.elts:
                walk(e)
        elif isinstance(node, ast.Dict):
            for v in node.values:
                walk(v)

    call_node = tree.body
    if not isinstance(call_node, ast.Call):
        return []
    for a in list(call_node.args) + [k.value for k in call_node.keywords]:
        walk(a)
    return out


def value_of(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def splice(call, node, text):
    """The call with `node`'s source replaced by `text` (calls are one line)."""
    return call[: node.col_offset] + text + call[node.end_col_offset:]


def escaped(s, rng):
    """`s` as a Python string literal, each character in a randomly chosen escape form."""
    import unicodedata

    out = []
    for c in s:
        o = ord(c)
        r = rng.random()
        if c in "\\'":
            out.append("\\" + c)
        elif r < 0.15 and o < 0x100:
            out.append(f"\\x{o:02x}")
        elif r < 0.3 and o < 0o400:
            out.append(f"\\{o:o}")
        elif r < 0.45:
            out.append(f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")
        elif r < 0.55 and unicodedata.name(c, ""):
            out.append("\\N{" + unicodedata.name(c) + "}")
        elif r < 0.6 and o <= 0xFFFF:
            out.append(f"\\U{o:08X}")
        elif c == "\n":
            out.append("\\n")
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        else:
            out.append(c)
    return "'" + "".join(out) + "'"


def rewrite(kind, node, value, rng):
    """The replacement text for a literal under the kind, or None where it does not apply."""
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if kind == "float_int":
        if is_int:
            return rng.choice([f"{value}.0", f"{float(value)!r}", f"{value}e0"])
        if isinstance(value, float) and value.is_integer() and abs(value) < 1e18:
            return str(int(value))
        return None
    if kind == "bool_int":
        if is_int:
            return "False" if value == 0 else "True"
        if isinstance(value, bool):
            return rng.choice(["1", "0", "1.0"]) if value else rng.choice(["0", "0.0"])
        return None
    if kind == "iterable":
        if isinstance(value, list) and all(isinstance(v, str) for v in value) and value:
            return rng.choice([
                repr("".join(value)),
                repr(value[0]),
                repr(tuple(value)),
                repr({v: 1 for v in value}),
                repr([value]),
            ])
        if isinstance(value, list) and value:
            return rng.choice([repr(tuple(value)), repr(value[0]) if not isinstance(value[0], (list, dict)) else None])
        if isinstance(value, str) and value:
            return rng.choice([repr(value.split()), repr([value]), repr(tuple(value.split()))])
        return None
    if kind == "surrogate":
        if isinstance(value, str):
            body = repr(value)[1:-1] if repr(value)[0] == "'" else None
            if body is None:
                return None
            form = rng.randrange(4)
            if form == 0:
                return "'" + body + "\\ud800'"
            if form == 1:
                return "'\\udfff" + body + "'"
            if form == 2:
                # A pair as two escapes: Python keeps two surrogates (JSON would join them).
                return "'" + body + "\\ud83d\\ude00'"
            # The lone surrogate in the call text itself.
            return "'" + body + "\ud800'"
        return None
    if kind == "bigint":
        if is_int:
            # 2**1100 is past the largest float: float(x) and x + 0.5 raise OverflowError.
            big = rng.choice([2**130, 2**128, 10**45, 2**200 + 7, 2**127, 2**1100 + 3])
            sign = rng.choice([1, -1])
            v = sign * big + value
            return rng.choice([str(v), hex(v), oct(v), bin(v), f"{v:_}"])
        return None
    if kind == "literal_form":
        if is_int:
            v = value
            forms = [hex(v), oct(v), bin(v), f"{v:_}", f"{v:_}".replace("_", "_"), f"0X{v:X}" if v >= 0 else None]
            forms = [f for f in forms if f]
            return rng.choice(forms)
        if isinstance(value, float):
            return rng.choice([f"{value:e}" if float(f"{value:e}") == value else repr(value), repr(value), f"{value!r}".replace("e", "E")])
        if isinstance(value, str):
            form = rng.randrange(4)
            if form == 0:
                return escaped(value, rng)
            if form == 1 and "\\" not in value and "'" not in value and "\n" not in value:
                return "r'" + value + "'"
            if form == 2 and len(value) > 1:
                cut = rng.randrange(1, len(value))
                return repr(value[:cut]) + " " + repr(value[cut:])
            return '"""' + value.replace("\\", "\\\\").replace('"', '\\"') + '"""'
        return None
    raise ValueError(kind)


def mutated(kind, truth, rng):
    """A trajectory: the ground truth with one literal rewritten under the kind, or None."""
    turns = [list(t) for t in truth]
    spots = []
    for i, turn in enumerate(turns):
        for j, call in enumerate(turn):
            try:
                nodes = literal_nodes(call)
            except SyntaxError:
                continue
            spots.extend((i, j, n) for n in range(len(nodes)))
    rng.shuffle(spots)
    for i, j, n in spots:
        node = literal_nodes(turns[i][j])[n]
        text = rewrite(kind, node, value_of(node), rng)
        if text is not None:
            turns[i][j] = splice(turns[i][j], node, text)
            return turns
    return None


def aliased(entry, truth, rng):
    """The model mentions someone on a tweet both it and the ground truth
    posted without mentions (or, where the ground truth posts none, on a
    tweet of its own made so)."""
    if "TwitterAPI" not in entry.get("involved_classes", []):
        return None
    config = entry.get("initial_config", {}).get("TwitterAPI", {})
    counter = config.get("tweet_counter", 0)
    turns = [list(t) for t in truth]
    name = rng.choice(["@alias", "@bob"])
    posts = [(i, j) for i, t in enumerate(turns) for j, c in enumerate(t)
             if c.startswith("post_tweet(") and "mentions" not in c]
    if posts:
        i, j = rng.choice(posts)
        before = sum(c.startswith("post_tweet(") for t in turns[:i] for c in t) + sum(
            c.startswith("post_tweet(") for c in turns[i][:j])
        turns[i].insert(j + 1, f"mention(tweet_id={counter + before}, mentioned_usernames=['{name}'])")
        return turns
    filled = [i for i, t in enumerate(truth) if t]
    if not filled:
        return None
    i = rng.choice(filled)
    posted = sum(c.startswith("post_tweet(") for t in truth[:i] for c in t)
    at = rng.randrange(len(turns[i]) + 1)
    turns[i][at:at] = ["post_tweet(content='aliased')", f"mention(tweet_id={counter + posted}, mentioned_usernames=['{name}'])"]
    return turns


def reset_shared_defaults():
    """Empties BFCL's `post_tweet` default lists (see the module docstring)."""
    from bfcl_eval.eval_checker.multi_turn_eval.func_source_code.posting_api import TwitterAPI

    for d in TwitterAPI.post_tweet.__defaults__:
        d.clear()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calltape", required=True)
    ap.add_argument("--work", default="target/bfcl-agreement-mutate")
    ap.add_argument("--data", help="bfcl_eval's data folder (default: the installed package's)")
    ap.add_argument("--per-kind", type=int, default=4, help="trajectories of each kind per entry")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--category", action="append", help="only these categories")
    ap.add_argument("--kind", action="append", help="only these kinds")
    ap.add_argument("--min", type=float, default=99.8, help="least verdict agreement (%%) per category")
    args = ap.parse_args()

    data_dir = data_folder(args.data)
    work = Path(args.work).resolve()
    suite = fresh_suite(work)
    rng = random.Random(args.seed)
    kinds = args.kind or KINDS
    categories = args.category or CATEGORIES
    rows, lines = [], []
    for category in categories:
        path = data_dir / f"BFCL_v4_{category}.json"
        if not path.exists():
            print(f"  {category}: not shipped, skipped")
            continue
        out = subprocess.run([args.calltape, "import", "bfcl", str(path), "--out", str(suite)], capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"import of {path} failed: {out.stderr}")
        imported = {json.loads(l)["id"] for l in open(suite / f"{category}.jsonl", encoding="utf-8") if l.strip()}
        entries = {e["id"]: e for e in read_lines(path)}
        answers = {a["id"]: a["ground_truth"] for a in read_lines(data_dir / "possible_answer" / path.name)}
        for sid in sorted(imported, key=lambda s: int(s.rsplit("_", 1)[1])):
            for kind in kinds:
                seen = set()
                for _ in range(args.per_kind):
                    if kind == "alias":
                        turns = aliased(entries[sid], answers[sid], rng)
                    else:
                        turns = mutated(kind, answers[sid], rng)
                    if turns is None:
                        break
                    key = json.dumps(turns)
                    if key in seen:
                        continue
                    seen.add(key)
                    n = len(rows)
                    rows.append({"n": n, "category": category, "id": sid, "kind": kind, "turns": turns,
                                 "entry": entries[sid], "truth": answers[sid]})
                    lines.append(json.dumps({"id": sid, "n": n, "turns": turns}))
    out = subprocess.run([args.calltape, "bfcl-judge", "--suite", str(suite)], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, errors="surrogatepass")
    if out.returncode != 0:
        raise SystemExit(f"bfcl-judge failed: {out.stderr[:3000]}")
    ours = {v["n"]: v for v in map(json.loads, out.stdout.splitlines())}
    per = collections.defaultdict(collections.Counter)
    disagreements = []
    for r in rows:
        reset_shared_defaults()
        bv, btype = bfcl_verdict(r["entry"], r["truth"], r["turns"], r["category"], r["n"])
        c = ours[r["n"]]
        same = bv == c["valid"]
        same_type = same and (bv or btype == c["error_type"])
        for key in ((r["category"], "all"), (r["category"], r["kind"])):
            per[key]["n"] += 1
            per[key]["bfcl_valid"] += bv
            per[key]["agree"] += same
            per[key]["agree_type"] += same_type
        if not same_type:
            disagreements.append({"id": r["id"], "kind": r["kind"], "bfcl": [bv, btype], "calltape": [c["valid"], c["error_type"]],
                                  "calltape_reason": c["reason"], "turns": r["turns"]})

    print("| category | trajectories | BFCL valid | verdicts agree | failure types agree |")
    print("| --- | ---: | ---: | ---: | ---: |")
    worst = 100.0
    order = {c: i for i, c in enumerate(CATEGORIES)}
    for (category, kind), c in sorted(per.items(), key=lambda kv: (order[kv[0][0]], kv[0][1] != "all", kv[0][1])):
        label = category if kind == "all" else f"  {kind}"
        print(f"| {label} | {c['n']} | {c['bfcl_valid']} | {c['agree']} ({100 * c['agree'] / c['n']:.2f}%) "
              f"| {c['agree_type']} ({100 * c['agree_type'] / c['n']:.2f}%) |")
        if kind == "all":
            worst = min(worst, 100 * c["agree"] / c["n"])
    print(f"\n{len(disagreements)} disagreement(s)")
    for d in disagreements:
        print(json.dumps(d, ensure_ascii=True)[:1500])
    (work / "agreement.json").write_text(json.dumps({"per": {f"{k[0]}/{k[1]}": dict(v) for k, v in per.items()},
                                                     "disagreements": disagreements}, indent=1, ensure_ascii=True))
    sys.exit(0 if worst >= args.min else 1)


if __name__ == "__main__":
    main()

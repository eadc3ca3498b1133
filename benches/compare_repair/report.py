"""Prints the comparison: a plain table per input set, then the same figures
as Markdown for the README.

usage: report.py WORK_DIR ROUNDS HEADER...
  WORK_DIR/<set>.times holds four JSON lines a sitting: calltape, Python, JS,
  the Rust peers (jsonrepair-rs and llm_json);
  WORK_DIR/kinds/<kind>.times the same over one kind of tool call
  (WORK_DIR/kinds/<kind>.jsonl holds its inputs).
  HEADER lines (machine, versions, command) are printed above both forms.
"""
import json
import os
import sys

from make_inputs import KINDS

SETS = {
    "corpus": "jsonrepair corpus, no schema",
    "tool_calls": "tool-call arguments, with schemas",
    "long": "long and deeply nested arguments, with schemas",
    "json_repair_cases": "Python json_repair's test inputs, no schema",  # with JSON_REPAIR_CHECKOUT only
}


def ratio(x):
    # One decimal below 100: a target such as 50× must not be met by rounding.
    return f"{x:.0f}×" if x >= 100 else f"{x:.1f}×"


PER_SITTING = 4  # calltape, Python, JS, the Rust peers


def sittings_of(path):
    """The sittings of a times file: four JSON lines each (calltape, Python, JS, Rust peers)."""
    with open(path) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return [lines[k:k + PER_SITTING] for k in range(0, len(lines), PER_SITTING)]


def rust_peers(sittings):
    """jsonrepair-rs's and llm_json's µs per call, each its fastest sitting."""
    return tuple(min(s[3][key] for s in sittings) for key in ("jsonrepair_rs_mean_us", "llm_json_mean_us"))


def load(work):
    """Per input set: its label, the inputs, each tool's fastest sitting
    (pipeline, parse, the libraries' floor, Python, JS) and the JS ÷
    pipeline and Python ÷ pipeline ratios of every sitting."""
    for name, label in SETS.items():
        if not os.path.exists(f"{work}/{name}.times"):
            continue
        sittings = sittings_of(f"{work}/{name}.times")
        best = lambda pick: min(pick(s) for s in sittings)
        pipe, parse = best(lambda s: s[0]["pipeline_mean_us"]), best(lambda s: s[0]["parse_mean_us"])
        libs = best(lambda s: s[0]["libraries_mean_us"])
        py, js = best(lambda s: s[1]["mean_us"]), best(lambda s: s[2]["mean_us"])
        spread = {
            "Python ÷ pipeline": [s[1]["mean_us"] / s[0]["pipeline_mean_us"] for s in sittings],
            "JS ÷ pipeline": [s[2]["mean_us"] / s[0]["pipeline_mean_us"] for s in sittings],
            "jsonrepair-rs ÷ pipeline": [s[3]["jsonrepair_rs_mean_us"] / s[0]["pipeline_mean_us"] for s in sittings],
            "llm_json ÷ pipeline": [s[3]["llm_json_mean_us"] / s[0]["pipeline_mean_us"] for s in sittings],
        }
        yield label, sittings[0][0]["inputs"], pipe, parse, libs, py, js, rust_peers(sittings), spread


def load_kinds(work):
    """Per kind of tool call, in make_inputs' order: its name, inputs, whether
    they are valid JSON (Python json_repair then returns json.loads', in C),
    and calltape's pipeline, Python's and JS's µs per call (each its fastest sitting)."""
    for kind in KINDS:
        base = f"{work}/kinds/{kind.__name__}"
        if not os.path.exists(f"{base}.times"):
            continue
        with open(f"{base}.jsonl") as f:
            texts = [json.loads(line)["args"] for line in f if line.strip()]
        sittings = sittings_of(f"{base}.times")
        ours = min(s[0]["pipeline_mean_us"] for s in sittings)
        py, js = (min(s[k]["mean_us"] for s in sittings) for k in (1, 2))
        yield kind.__name__, len(texts), all(is_json(t) for t in texts), ours, py, js


def by_json(kinds):
    """The kinds that are not JSON (what Python and JS repair) and those that
    are (Python returns json.loads'; calltape checks and repairs them against
    the schema): each group's mean µs per call, weighted by inputs."""
    for label, want in (("kinds that are not JSON", False), ("kinds that are JSON", True)):
        group = [k for k in kinds if k[2] == want]
        n = sum(k[1] for k in group)
        if n:
            yield (label, *(sum(k[1] * k[i] for k in group) / n for i in (3, 4, 5)))


def is_json(text):
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def spread_text(spread):
    return "; ".join(f"{k} {ratio(min(v))}–{ratio(max(v))}" for k, v in spread.items())


def main():
    work, rounds, header = sys.argv[1], sys.argv[2], sys.argv[3:]
    rows = list(load(work))
    print("\n".join(header))
    for label, n, pipe, parse, libs, py, js, (rs, lj), spread in rows:
        print(f"\n{label} ({n} inputs; µs per call, each tool's fastest sitting)")
        print(f"  {'':24}{'µs/call':>10}{'Python ÷':>10}{'JS ÷':>8}")
        print(f"  {'calltape pipeline':24}{pipe:10.2f}{ratio(py / pipe):>10}{ratio(js / pipe):>8}")
        print(f"  {'calltape parse only':24}{parse:10.2f}{ratio(py / parse):>10}{ratio(js / parse):>8}")
        print(f"  {'serde_json + jsonschema':24}{libs:10.2f}   (their share of the pipeline: a floor under it)")
        print(f"  {'Python json_repair':24}{py:10.2f}")
        print(f"  {'JS jsonrepair':24}{js:10.2f}")
        print(f"  {'Rust jsonrepair-rs':24}{rs:10.2f}   (÷ pipeline {ratio(rs / pipe)}, ÷ parse {ratio(rs / parse)})")
        print(f"  {'Rust llm_json':24}{lj:10.2f}   (÷ pipeline {ratio(lj / pipe)}, ÷ parse {ratio(lj / parse)})")
        print(f"  ratios sitting by sitting: {spread_text(spread)}")
    kinds = list(load_kinds(work))
    if kinds:
        print("\ntool calls kind by kind (µs per call, each tool's fastest sitting; valid JSON: Python json_repair reads it with json.loads)")
        print(f"  {'kind':18}{'inputs':>7}{'JSON':>6}{'calltape':>10}{'Python':>9}{'JS':>8}{'Python ÷':>10}{'JS ÷':>8}")
        for name, n, valid, ours, py, js in kinds:
            print(f"  {name:18}{n:7}{'yes' if valid else 'no':>6}{ours:10.2f}{py:9.2f}{js:8.2f}{ratio(py / ours):>10}{ratio(js / ours):>8}")
        for label, ours, py, js in by_json(kinds):
            print(f"  {label}: Python ÷ pipeline {ratio(py / ours)}, JS ÷ pipeline {ratio(js / ours)}")

    print("\n--- Markdown ---\n")
    print("\n".join(f"{line}  " for line in header))  # trailing spaces: Markdown line breaks
    print()
    print("| inputs | calltape pipeline µs | calltape parse µs | serde_json + jsonschema µs | Python json_repair µs | JS jsonrepair µs "
          "| Rust jsonrepair-rs µs | Rust llm_json µs "
          "| Python ÷ pipeline | JS ÷ pipeline | jsonrepair-rs ÷ pipeline | llm_json ÷ pipeline | Python ÷ parse | JS ÷ parse | ÷ pipeline, sitting by sitting |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for label, n, pipe, parse, libs, py, js, (rs, lj), spread in rows:
        print(f"| {label} ({n}) | {pipe:.2f} | {parse:.2f} | {libs:.2f} | {py:.1f} | {js:.2f} | {rs:.2f} | {lj:.2f} "
              f"| {ratio(py / pipe)} | {ratio(js / pipe)} | {ratio(rs / pipe)} | {ratio(lj / pipe)} | {ratio(py / parse)} | {ratio(js / parse)} | {spread_text(spread)} |")
    if kinds:
        print()
        print("| tool-call kind | inputs | valid JSON | calltape pipeline µs | Python json_repair µs | JS jsonrepair µs | Python ÷ pipeline | JS ÷ pipeline |")
        print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
        for name, n, valid, ours, py, js in kinds:
            print(f"| {name.replace('_', ' ')} | {n} | {'yes' if valid else 'no'} | {ours:.2f} | {py:.2f} | {js:.2f} | {ratio(py / ours)} | {ratio(js / ours)} |")
        for label, ours, py, js in by_json(kinds):
            print(f"| *{label}* | | | {ours:.2f} | {py:.2f} | {js:.2f} | {ratio(py / ours)} | {ratio(js / ours)} |")


if __name__ == "__main__":
    main()

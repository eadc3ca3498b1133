"""Prints the comparison: a plain table per input set, then the same figures
as Markdown for the README.

usage: report.py WORK_DIR ROUNDS HEADER...
  WORK_DIR/<set>.times holds three JSON lines a sitting: calltape, Python, JS.
  HEADER lines (machine, versions, command) are printed above both forms.
"""
import json
import sys

SETS = {"corpus": "jsonrepair corpus, no schema", "tool_calls": "tool-call arguments, with schemas"}


def ratio(x):
    # One decimal below 100: a target such as 50× must not be met by rounding.
    return f"{x:.0f}×" if x >= 100 else f"{x:.1f}×"


def load(work):
    """Per input set: its label, the inputs, each tool's fastest sitting
    (pipeline, parse, the libraries' floor, Python, JS) and the JS ÷
    pipeline and Python ÷ pipeline ratios of every sitting."""
    for name, label in SETS.items():
        with open(f"{work}/{name}.times") as f:
            lines = [json.loads(line) for line in f if line.strip()]
        sittings = [lines[k:k + 3] for k in range(0, len(lines), 3)]
        best = lambda pick: min(pick(s) for s in sittings)
        pipe, parse = best(lambda s: s[0]["pipeline_mean_us"]), best(lambda s: s[0]["parse_mean_us"])
        libs = best(lambda s: s[0]["libraries_mean_us"])
        py, js = best(lambda s: s[1]["mean_us"]), best(lambda s: s[2]["mean_us"])
        spread = {
            "Python ÷ pipeline": [s[1]["mean_us"] / s[0]["pipeline_mean_us"] for s in sittings],
            "JS ÷ pipeline": [s[2]["mean_us"] / s[0]["pipeline_mean_us"] for s in sittings],
        }
        yield label, sittings[0][0]["inputs"], pipe, parse, libs, py, js, spread


def spread_text(spread):
    return "; ".join(f"{k} {ratio(min(v))}–{ratio(max(v))}" for k, v in spread.items())


def main():
    work, rounds, header = sys.argv[1], sys.argv[2], sys.argv[3:]
    rows = list(load(work))
    print("\n".join(header))
    for label, n, pipe, parse, libs, py, js, spread in rows:
        print(f"\n{label} ({n} inputs; µs per call, each tool's fastest sitting)")
        print(f"  {'':24}{'µs/call':>10}{'Python ÷':>10}{'JS ÷':>8}")
        print(f"  {'calltape pipeline':24}{pipe:10.2f}{ratio(py / pipe):>10}{ratio(js / pipe):>8}")
        print(f"  {'calltape parse only':24}{parse:10.2f}{ratio(py / parse):>10}{ratio(js / parse):>8}")
        print(f"  {'serde_json + jsonschema':24}{libs:10.2f}   (their share of the pipeline: a floor under it)")
        print(f"  {'Python json_repair':24}{py:10.2f}")
        print(f"  {'JS jsonrepair':24}{js:10.2f}")
        print(f"  ratios sitting by sitting: {spread_text(spread)}")

    print("\n--- Markdown ---\n")
    print("\n".join(f"{line}  " for line in header))  # trailing spaces: Markdown line breaks
    print()
    print("| inputs | calltape pipeline µs | calltape parse µs | serde_json + jsonschema µs | Python json_repair µs | JS jsonrepair µs "
          "| Python ÷ pipeline | JS ÷ pipeline | Python ÷ parse | JS ÷ parse | ÷ pipeline, sitting by sitting |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for label, n, pipe, parse, libs, py, js, spread in rows:
        print(f"| {label} ({n}) | {pipe:.2f} | {parse:.2f} | {libs:.2f} | {py:.1f} | {js:.2f} "
              f"| {ratio(py / pipe)} | {ratio(js / pipe)} | {ratio(py / parse)} | {ratio(js / parse)} | {spread_text(spread)} |")


if __name__ == "__main__":
    main()

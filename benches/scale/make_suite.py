"""Writes a suite of N scenarios for the scale benchmark: the bundled coding
scenarios repeated with numbered ids, one JSONL file, plus their toolsets.
Usage: make_suite.py N OUT_DIR"""
import json
import pathlib
import shutil
import sys

n, out = int(sys.argv[1]), pathlib.Path(sys.argv[2])
src = pathlib.Path(__file__).resolve().parents[2] / "scenarios" / "coding"
base = [json.loads(p.read_text()) for p in sorted(src.glob("*.json"))]
# Interactive approval needs a person; the benchmark runs unattended.
base = [s for s in base if s.get("approvals", {}).get("mode") != "interactive"]
if out.exists():
    shutil.rmtree(out)
out.mkdir(parents=True)
shutil.copytree(src / "toolsets", out / "toolsets")
with open(out / "scenarios.jsonl", "w") as f:
    for i in range(n):
        s = dict(base[i % len(base)])
        s["id"] = f"{s['id']}-{i}"
        f.write(json.dumps(s) + "\n")
print(f"{n} scenarios -> {out}")

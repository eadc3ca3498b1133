#!/usr/bin/env bash
# How fast is calltape's local repair next to the usual tools? Runs the same
# inputs through calltape (the whole local pipeline: resolve, parse, validate,
# local repair; and parsing alone), Python json_repair, JS jsonrepair and the
# Rust crates jsonrepair-rs and llm_json (to a serde_json Value, timed by
# benches/compare_repair/peers.rs, built as the example repair_peers). Each
# is timed per call inside its own process, start-up excluded, fastest of
# ROUNDS rounds (each after 1 s of untimed warm-up, so V8's JIT is
# done), and the ratios are printed, then the same as Markdown.
# Input sets: the jsonrepair test corpus (417 inputs, no schema), 200
# tool-call arguments with their schemas and 60 long and deeply nested ones
# (file contents, arrays of hundreds of objects; benches/compare_repair/make_inputs.py),
# the tool calls kind by kind (valid, trailing comma, ...), and with
# JSON_REPAIR_CHECKOUT=DIR (a checkout of Python json_repair) its own test
# inputs (benches/compare_repair/json_repair_cases.py).
#
# usage: bash benches/compare_repair.sh      (ROUNDS=N, SITTINGS=N to change; defaults 5 and 3)
# Needs cargo, python3 and node/npm; the first run installs the pinned
# json-repair (PyPI) and jsonrepair (npm) into $cache, later runs reuse them.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
sittings=${SITTINGS:-3}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/calltape-bench
py_version=0.64.6   # json-repair on PyPI; pinned so figures stay comparable
js_version=3.15.0   # jsonrepair on npm
here=benches/compare_repair

echo "building calltape and its Rust peers (release)…" >&2
cargo build --release --quiet
cargo build --release --quiet --example repair_peers

# Reuse the cached installs only when they hold the pinned versions.
if ! "$cache/venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('json-repair') != '$py_version')" 2>/dev/null; then
  echo "installing json-repair==$py_version into $cache/venv…" >&2
  python3 -m venv "$cache/venv"
  "$cache/venv/bin/pip" install --quiet "json-repair==$py_version"
fi
if [ "$(node -p "require('$cache/node/node_modules/jsonrepair/package.json').version" 2>/dev/null)" != "$js_version" ]; then
  echo "installing jsonrepair@$js_version into $cache/node…" >&2
  mkdir -p "$cache/node"
  (cd "$cache/node" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install --silent --save-exact "jsonrepair@$js_version" >/dev/null)
fi
# The Node timer has to sit next to node_modules for `import 'jsonrepair'` to resolve.
cp "$here/time_node.mjs" "$cache/node/"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/make_inputs.py" tests/fixtures/json-repair/jsonrepair.jsonl "$work"
if [ -n "${JSON_REPAIR_CHECKOUT:-}" ]; then
  python3 "$here/json_repair_cases.py" "$JSON_REPAIR_CHECKOUT" "$work/json_repair_cases.jsonl" >&2
fi

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//' || echo unknown)
load=$(cut -d' ' -f1-3 /proc/loadavg)   # before timing: a busy machine skews every column
# The machine's speed drifts by tens of percent within minutes: the three
# tools are timed back to back, in several sittings, so a slow spell does
# not fall on one tool alone; each keeps its fastest sitting.
echo "timing ($sittings sittings of $rounds rounds per tool and input set)…" >&2
for sitting in $(seq "$sittings"); do
  # The two sets, then the tool calls kind by kind: where the ratio comes from.
  for batch in "$work"/corpus.jsonl "$work"/tool_calls.jsonl "$work"/long.jsonl "$work"/json_repair_cases.jsonl "$work"/kinds/*.jsonl; do
    [ -f "$batch" ] || continue
    {
      target/release/calltape repair --batch "$batch" --time "$rounds"
      "$cache/venv/bin/python" "$here/time_python.py" "$batch" "$rounds"
      node "$cache/node/time_node.mjs" "$batch" "$rounds"
      target/release/examples/repair_peers time "$batch" "$rounds"
    } >>"${batch%.jsonl}.times"
  done
done

python3 "$here/report.py" "$work" "$rounds" \
  "Command: \`bash benches/compare_repair.sh\` (ROUNDS=$rounds SITTINGS=$sittings${JSON_REPAIR_CHECKOUT:+ JSON_REPAIR_CHECKOUT=json_repair@$(git -C "$JSON_REPAIR_CHECKOUT" rev-parse --short HEAD 2>/dev/null)})" \
  "Method: µs per call in each tool's own process, start-up excluded, each tool warmed up 1 s, then fastest of $rounds rounds; the tools in turn, $sittings sittings, each tool's fastest sitting" \
  "Machine: $cpu, $(nproc) cores, load average $load" \
  "Versions: $(target/release/calltape --version) ($(rustc --version | cut -d' ' -f1-2)); Python $("$cache/venv/bin/python" -c 'import platform; print(platform.python_version())') json-repair $py_version; Node $(node --version) jsonrepair $js_version; Rust jsonrepair-rs and llm_json as locked in Cargo.lock"

#!/usr/bin/env bash
# Scale benchmark: suites of 1k, 10k and 100k scenarios (the bundled coding
# scenarios repeated) × 3 simulated models. For each: wall time and peak
# memory of `calltape run`, units per second, and time and peak memory of
# `calltape report` rebuilding every table from events.jsonl alone.
# Usage: benches/scale.sh [SIZES...]   (default: 1000 10000 100000)
# Needs a release build (`cargo build --release`) and GNU time (/usr/bin/time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CALLTAPE_BIN:-$root/target/release/calltape}
[[ -x $bin ]] || { echo "scale.sh: build first: cargo build --release" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "scale.sh: needs GNU time: apt-get install time" >&2; exit 2; }
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1000 10000 100000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
models=(--model sim-strong --model sim-cheap-types --model sim-cheap-syntax)
printf '| scenarios | units | run wall s | units/s | run peak MB | events | report s | report peak MB |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for n in "${sizes[@]}"; do
  python3 "$root/benches/scale/make_suite.py" "$n" "$work/suite-$n/scale" >/dev/null
  /usr/bin/time -f '%e %M' -o "$work/run.time" "$bin" run --mode live --suite "$work/suite-$n/scale" "${models[@]}" \
    --out "$work/out-$n" >/dev/null 2>"$work/run.err" || { cat "$work/run.err" >&2; exit 1; }
  read -r run_s run_kb <"$work/run.time"
  dir=$(ls -d "$work/out-$n"/2* | head -1)
  events=$(wc -l <"$dir/events.jsonl")
  /usr/bin/time -f '%e %M' -o "$work/report.time" "$bin" report "$dir" >/dev/null
  read -r rep_s rep_kb <"$work/report.time"
  units=$((n * 3))
  printf '| %d | %d | %.2f | %.0f | %.0f | %d | %.2f | %.0f |\n' "$n" "$units" "$run_s" \
    "$(echo "$units / $run_s" | bc -l)" "$(echo "$run_kb / 1024" | bc -l)" "$events" "$rep_s" "$(echo "$rep_kb / 1024" | bc -l)"
  rm -rf "$work/out-$n" "$work/suite-$n"
done

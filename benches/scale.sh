#!/usr/bin/env bash
# Scale benchmark: suites of 1k, 10k and 100k scenarios (the bundled coding
# scenarios repeated) run by 3 simulated models under the default config's
# arms (3), so 9 units a scenario. For each: the run (wall time of the whole
# command, reports included; the units' own time and rate and their peak
# memory as the run prints them; the whole command's peak memory), then
# `calltape report` rebuilding every table from events.jsonl alone (the
# tables' own time and events per second as it reports them, then its whole
# time with every report file, and peak memory).
# The simulated models are computed in-process: nothing is recorded or
# replayed (`--mode live` says so to builds that would look for cassettes).
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
printf '| scenarios | units | run s | units s | units/s | units peak MB | run peak MB | events | tables s | tables events/s | report s | report peak MB |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for n in "${sizes[@]}"; do
  python3 "$root/benches/scale/make_suite.py" "$n" "$work/suite-$n/scale" >/dev/null
  /usr/bin/time -f '%e %M' -o "$work/run.time" "$bin" run --suite "$work/suite-$n/scale" "${models[@]}" --mode live \
    --out "$work/out-$n" >"$work/run.out" 2>"$work/run.err" || { cat "$work/run.err" >&2; exit 1; }
  read -r run_s run_kb <"$work/run.time"
  # "N units ran in X s (R units/s), peak memory M MB": the units as the run
  # counted them (models × arms × scenarios × trials), their time, rate, and
  # the peak before the reports.
  line=$(grep -E '^[0-9]+ units ran in ' "$work/run.out") || { echo "scale.sh: the run printed no 'units ran' line" >&2; exit 1; }
  read -r units units_s units_rate units_mb < <(sed -E \
    's/^([0-9]+) units ran in ([0-9.]+) s \(([0-9]+) units\/s\)(, peak memory ([0-9]+) MB)?$/\1 \2 \3 \5/' <<<"$line")
  dir=$(ls -d "$work/out-$n"/2* | head -1)
  events=$(wc -l <"$dir/events.jsonl")
  /usr/bin/time -f '%e %M' -o "$work/report.time" "$bin" report "$dir" >"$work/report.out"
  read -r rep_s rep_kb <"$work/report.time"
  # "tables built from N events in X s (R events/s); ..."
  read -r tables_s tables_rate < <(sed -n 's/^tables built from [0-9]* events in \([0-9.]*\) s (\([0-9]*\) events\/s).*/\1 \2/p' "$work/report.out")
  printf '| %d | %d | %.2f | %.2f | %d | %s | %.0f | %d | %.2f | %d | %.2f | %.0f |\n' "$n" "$units" "$run_s" "$units_s" "$units_rate" \
    "${units_mb:-?}" "$(echo "$run_kb / 1024" | bc -l)" "$events" "$tables_s" "$tables_rate" "$rep_s" "$(echo "$rep_kb / 1024" | bc -l)"
  rm -rf "$work/out-$n" "$work/suite-$n"
done

#!/usr/bin/env bash
# Scale benchmark: suites of 1k, 10k and 100k scenarios (the bundled coding
# scenarios repeated) × 3 simulated models. For each: the run recorded to
# cassettes (wall time), then replayed from them (wall time, units per second,
# peak memory of the units as the run prints it, and of the whole command,
# reports included), and `calltape report` rebuilding every table from
# events.jsonl alone (the tables' own time and events per second as it
# reports them, then its whole time with every report file, and peak memory).
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
printf '| scenarios | units | record s | replay s | replay units/s | units peak MB | replay peak MB | events | tables s | tables events/s | report s | report peak MB |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for n in "${sizes[@]}"; do
  python3 "$root/benches/scale/make_suite.py" "$n" "$work/suite-$n/scale" >/dev/null
  common=(--suite "$work/suite-$n/scale" "${models[@]}" --recordings "$work/rec-$n")
  /usr/bin/time -f '%e %M' -o "$work/record.time" "$bin" run --mode record "${common[@]}" \
    --out "$work/rout-$n" >/dev/null 2>"$work/run.err" || { cat "$work/run.err" >&2; exit 1; }
  read -r rec_s _ <"$work/record.time"
  /usr/bin/time -f '%e %M' -o "$work/run.time" "$bin" run --mode replay --strict "${common[@]}" \
    --out "$work/out-$n" >"$work/run.out" 2>"$work/run.err" || { cat "$work/run.err" >&2; exit 1; }
  read -r run_s run_kb <"$work/run.time"
  # "N units ran in X s (R units/s), peak memory M MB": the peak before the reports.
  units_mb=$(sed -n 's/^[0-9]* units ran in .*, peak memory \([0-9]*\) MB$/\1/p' "$work/run.out")
  dir=$(ls -d "$work/out-$n"/2* | head -1)
  events=$(wc -l <"$dir/events.jsonl")
  /usr/bin/time -f '%e %M' -o "$work/report.time" "$bin" report "$dir" >"$work/report.out"
  read -r rep_s rep_kb <"$work/report.time"
  # "tables built from N events in X s (R events/s); ..."
  read -r tables_s tables_rate < <(sed -n 's/^tables built from [0-9]* events in \([0-9.]*\) s (\([0-9]*\) events\/s).*/\1 \2/p' "$work/report.out")
  units=$((n * 3))
  printf '| %d | %d | %.2f | %.2f | %.0f | %s | %.0f | %d | %.2f | %d | %.2f | %.0f |\n' "$n" "$units" "$rec_s" "$run_s" \
    "$(echo "$units / $run_s" | bc -l)" "${units_mb:-?}" "$(echo "$run_kb / 1024" | bc -l)" "$events" "$tables_s" "$tables_rate" "$rep_s" \
    "$(echo "$rep_kb / 1024" | bc -l)"
  rm -rf "$work/out-$n" "$work/rout-$n" "$work/rec-$n" "$work/suite-$n"
done

#!/usr/bin/env bash
# Fuzzes every target for SECONDS each (default 600) with cargo fuzz on the
# stable toolchain, seeding the corpora from the project's real fixtures.
# An input that fails is copied to regressions/<target>/, which
# tests/fuzz_corpora.rs replays on every `cargo test`.
# Usage: fuzz/run.sh [SECONDS] [TARGET...]   (needs: cargo install cargo-fuzz)
# SANITIZER=address builds with AddressSanitizer: a first build takes about
# 25 minutes here instead of 4, but a stack overflow then leaves its input
# (without it, the overflow kills libFuzzer's handler too and nothing is saved).
set -euo pipefail
cd "$(dirname "$0")"
sanitizer=${SANITIZER:-none}
seconds=${1:-600}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(lenient_parser sse_parser repair_pipeline scenario_loader report_writers)
fixtures=../tests/fixtures
seed() { # seed TARGET FILES...
  local dir=corpus/$1; shift
  mkdir -p "$dir"
  for f in "$@"; do [[ -f $f ]] && cp "$f" "$dir/$(basename "$f" | tr -c 'A-Za-z0-9._-' _)"; done
}
mkdir -p corpus
if [[ ! -d corpus/lenient_parser ]]; then
  mkdir -p corpus/lenient_parser corpus/repair_pipeline
  # One malformed-JSON case a file, from the json-repair fixture.
  python3 - "$fixtures/json-repair/jsonrepair.jsonl" <<'PY'
import json, sys, hashlib
for line in open(sys.argv[1], encoding="utf-8"):
    case = json.loads(line)
    data = case["input"].encode()
    name = hashlib.sha1(data).hexdigest()[:16]
    open(f"corpus/lenient_parser/{name}", "wb").write(data)
    open(f"corpus/repair_pipeline/{name}", "wb").write(b"read_file\n" + data)
PY
  seed sse_parser "$fixtures"/provider-fixtures/*/*.bin "$fixtures"/provider-fixtures/anthropic/tool_use_response.txt
  seed scenario_loader ../scenarios/coding/*.json
fi
# The report writers start from hostile texts kept in seeds/ (formulas, escapes, markup).
[[ -d corpus/report_writers ]] || seed report_writers seeds/report_writers/*
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  echo "== $t: ${seconds}s"
  if ! RUSTC_BOOTSTRAP=1 cargo fuzz run -s "$sanitizer" "$t" "corpus/$t" -- -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=4096; then
    echo "$t: failure found; inputs copied to regressions/$t/" >&2
  fi
  for a in artifacts/"$t"/*; do [[ -f $a ]] && cp "$a" "regressions/$t/"; done
done

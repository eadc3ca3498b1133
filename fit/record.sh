#!/usr/bin/env bash
# Records the local Qwen2.5-Coder models for `calltape sim fit` (docs/simulators.md), one shard
# of the suites at a time so that every finished shard is a complete run folder to fit from:
#   fit/record.sh 'qwen2.5-coder-0.5b*' 0.5b     (server on 18092: tools/local-model/start.sh 18092)
#   fit/record.sh 'qwen2.5-coder-1.5b*' 1.5b     (MODEL=qwen-1.5b tools/local-model/start.sh 18093)
# Env: CALLTAPE (the binary; default target/debug/calltape), SHARDS (default 16), FIRST (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
models=$1 group=$2 shards=${SHARDS:-16}
bin=${CALLTAPE:-target/debug/calltape}
for i in $(seq "${FIRST:-1}" "$shards"); do
  echo "== $group shard $i/$shards $(date -u +%H:%M:%S)"
  "$bin" run --config fit/record.toml --model "$models" --shard "$i/$shards" --shard-limits whole \
    --out "fit/runs/$group" || echo "== shard $i exited $?"
done

#!/usr/bin/env bash
# Agreement of calltape's BFCL multi-turn checker (and API classes) with BFCL's own.
#
# Installs bfcl-eval from PyPI without its dependencies (the multi-turn
# checker and API classes need only mpmath; the full package pulls in torch)
# into a venv, builds calltape, and runs multi_turn.py (see its docstring):
#
#   bash tools/bfcl_agreement/run_multi_turn.sh [--sample N] [--category multi_turn_base] [--work DIR]
#
# `--mutate` runs mutate_multi_turn.py instead: trajectories mutated where
# Python's semantics reach the state (numbers, iterables, surrogates, big
# ints, literal forms, shared defaults; see its docstring).
#
# `--time` times both judges on the same trajectories (time_multi_turn.py).
#
# Then world_diff.py compares each call's result and each class's state
# after each turn, call by call (`--world` below), for the same data.
#
# Environment: BFCL_MT_VENV (default ~/.cache/calltape-bfcl/venv-multi-turn),
# BFCL_EVAL_VERSION (default 2026.3.23).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
VENV="${BFCL_MT_VENV:-$HOME/.cache/calltape-bfcl/venv-multi-turn}"
VERSION="${BFCL_EVAL_VERSION:-2026.3.23}"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import bfcl_eval, mpmath" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --no-deps "bfcl-eval==$VERSION"
  "$VENV/bin/pip" install --quiet mpmath
fi
cd "$ROOT"
cargo build --quiet --bin calltape
if [ "${1:-}" = "--time" ]; then
  shift
  cd "$ROOT/tools/bfcl_agreement"
  exec "$VENV/bin/python" time_multi_turn.py --calltape "$ROOT/target/debug/calltape" --work "$ROOT/target/bfcl-time-multi-turn" "$@"
fi
if [ "${1:-}" = "--mutate" ]; then
  shift
  cd "$ROOT/tools/bfcl_agreement"
  exec "$VENV/bin/python" mutate_multi_turn.py --calltape "$ROOT/target/debug/calltape" --work "$ROOT/target/bfcl-agreement-mutate" "$@"
fi
if [ "${1:-}" = "--world" ]; then
  shift
  exec "$VENV/bin/python" "$ROOT/tools/bfcl_agreement/world_diff.py" --calltape "$ROOT/target/debug/calltape" "$@"
fi
exec "$VENV/bin/python" "$ROOT/tools/bfcl_agreement/multi_turn.py" --calltape "$ROOT/target/debug/calltape" "$@"

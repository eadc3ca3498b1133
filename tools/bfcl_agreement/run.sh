#!/usr/bin/env bash
# Agreement of calltape's BFCL checker with BFCL's own, and their speed.
#
# Installs bfcl-eval from PyPI into a venv (about 6 GB with torch: kept out
# of CI), imports every single-turn category that the installed package ships
# with `calltape import bfcl`, runs the bundled simulated models over them
# (right, wrong and malformed calls), and feeds the same answers to both
# checkers. Prints agreement per category, every disagreement, and timings.
#
#   bash tools/bfcl_agreement/run.sh [--sample N] [--rounds R] [--work DIR]
#
# `--mutate` runs mutate_single_turn.py instead: ground-truth answers with
# one or two faults, to compare which error type each checker reports first.
# `--time` runs time_single_turn.py: both checkers timed on the same answers
# (pass `--calltape target/release/calltape` to time a release build).
#
# Environment: BFCL_VENV (default ~/.cache/calltape-bfcl/venv),
# BFCL_EVAL_VERSION (default 2026.3.23; "latest" for the newest).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
VENV="${BFCL_VENV:-$HOME/.cache/calltape-bfcl/venv}"
VERSION="${BFCL_EVAL_VERSION:-2026.3.23}"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import bfcl_eval" 2>/dev/null; then
  python3 -m venv "$VENV"
  if [ "$VERSION" = latest ]; then spec=bfcl-eval; else spec="bfcl-eval==$VERSION"; fi
  # soundfile: a dependency bfcl-eval imports but does not declare.
  "$VENV/bin/pip" install --quiet "$spec" soundfile
fi
cd "$ROOT"
# Debug build: this machine is shared; the checker's timing is reported for what is built.
cargo build --quiet --bin calltape
if [ "${1:-}" = "--time" ]; then
  shift
  cd "$ROOT/tools/bfcl_agreement"
  exec "$VENV/bin/python" time_single_turn.py --calltape "$ROOT/target/debug/calltape" --work "$ROOT/target/bfcl-time-single-turn" "$@"
fi
if [ "${1:-}" = "--mutate" ]; then
  shift
  cd "$ROOT/tools/bfcl_agreement"
  exec "$VENV/bin/python" mutate_single_turn.py --calltape "$ROOT/target/debug/calltape" --work "$ROOT/target/bfcl-agreement-mutate-single" "$@"
fi
exec "$VENV/bin/python" "$ROOT/tools/bfcl_agreement/agreement.py" --calltape "$ROOT/target/debug/calltape" "$@"

#!/usr/bin/env bash
# GPU workflow, step 2 (on the device machine, in a copy of the repository
# with .carry/ carried): run the `gpu` tests and the examples against the
# H200 and print a summary. Builds nothing. Pass --bench to also run the
# benchmarks under bench/ side by side with cuBLAS.
set -uo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=/tmp/tilec-bin/bin
mkdir -p /tmp/tilec-bin
tar -C /tmp/tilec-bin -xJf "$TILEC_ROOT/.carry/bin.tar.xz" || exit 1
out=${OUT:-/tmp/tilec-gpu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true

status=0
echo "== gpu tests"
timeout 500 "$bin/tilec-gputests" --gtest_color=no \
  --gtest_output="xml:$out/gputests.xml" 2>&1 | tee "$out/gputests.log" \
  | grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|^SKIP|PASSED|FAILED|mismatch|error" \
  | head -200
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

if [ -x "$TILEC_ROOT/examples/run-examples.sh" ]; then
  echo "== examples"
  TILEC_BIN=$bin bash "$TILEC_ROOT/examples/run-examples.sh" || status=1
fi

if [ "${1:-}" = "--bench" ]; then
  for b in "$TILEC_ROOT"/bench/run_*.sh; do
    [ -f "$b" ] || continue
    echo "== $(basename "$b")"
    TILEC_BIN=$bin bash "$b" || status=1
  done
fi

passed=$(grep -c '^\[       OK \]' "$out/gputests.log" || true)
# A finished test's line ends with its time; gtest's closing list repeats
# the failed names without it.
failed=$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$out/gputests.log" || true)
skipped=$(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$out/gputests.log" || true)
echo "gpu: $passed passed, $failed failed, $skipped skipped"
exit $status

#!/usr/bin/env bash
# GPU workflow, step 2 (on the device machine, in a copy of the repository
# with .carry/ carried): run the `gpu` tests and the examples against the
# H200 and print a summary. Builds nothing. The benchmarks are a separate
# step: scripts/gpu-bench.sh.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-unpack.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true

status=0
echo "== gpu tests"
timeout 500 "$bin/tilec-gputests" --gtest_color=no \
  --gtest_output="xml:$out/gputests.xml" 2>&1 | tee "$out/gputests.log" \
  | grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|^SKIP|PASSED|FAILED|mismatch|error" \
  | head -200
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== examples (run_tile: every kernel of examples/*.tile against a CPU reference)"
for tile in "$TILEC_ROOT"/examples/*.tile; do
  timeout 120 "$bin/run_tile" "$tile" || status=1
done
timeout 60 "$bin/saxpy" 1000003 || status=1

passed=$(grep -c '^\[       OK \]' "$out/gputests.log" || true)
# A finished test's line ends with its time; gtest's closing list repeats
# the failed names without it.
failed=$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$out/gputests.log" || true)
skipped=$(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$out/gputests.log" || true)
echo "gpu: $passed passed, $failed failed, $skipped skipped"
exit $status

#!/usr/bin/env bash
# On the device machine (with .carry/ from `scripts/gpu-build.sh crossval`):
# the GPU half of the simulator's cross-validation (scripts/crossval.sh gpu),
# the `gpu` tests, and the mutation tests on the GPU (which breakages the
# hardware shows too). Logs go to $OUT (the device tool brings them back).
set -uo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=/tmp/tilec-bin/bin
mkdir -p /tmp/tilec-bin
tar -C /tmp/tilec-bin -xJf "$TILEC_ROOT/.carry/bin.tar.xz" || exit 1
out=${OUT:-/tmp/tilec-gpu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
echo "== tilec run on the GPU at the simulator's shapes"
bash "$TILEC_ROOT/scripts/crossval.sh" gpu "$bin/tilec" "$out/crossval-gpu" \
  2>&1 | tee "$out/crossval-gpu.log"
tar -C "$out" -czf "$out/crossval-gpu.tar.gz" crossval-gpu && rm -rf "$out/crossval-gpu"
[ "${CROSSVAL_ONLY:-0}" = 1 ] && exit 0
echo "== mutations on the GPU"
PATH=/usr/local/cuda/bin:$PATH timeout 300 python3 \
  "$TILEC_ROOT/tests/sim/mutations/run_mutations.py" --tilec "$bin/tilec" \
  --gpu --json "$out/mutations-gpu.json" 2>&1 | tee "$out/mutations-gpu.log" | tail -40
echo "== gpu tests"
timeout 420 "$bin/tilec-gputests" --gtest_color=no 2>&1 >"$out/gputests.log"
passed=$(grep -c '^\[       OK \]' "$out/gputests.log" || true)
failed=$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$out/gputests.log" || true)
echo "gpu: $passed passed, $failed failed"

#!/usr/bin/env bash
# On the device machine (with .carry/ from `scripts/gpu-build.sh crossval`):
# the 4-bit weight kernels (issue 28) on the GPU: every kernel of
# tests/sim/gemm/w4a16.tile and examples/gemm_w4a16_sm80.tile at decode and
# larger shapes (random and integer inputs, alpha/beta), the simulator's
# shape for a side-by-side with `tilec run --sim`, and the mutation rows
# w4-* on the GPU (each breakage must be caught there too). Logs go to $OUT.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-unpack.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
run() {
  echo "-- tilec run $*"
  timeout 300 "$bin/tilec" run "$@" 2>&1 | tail -n 20
}
{
  for f in "$TILEC_ROOT/tests/sim/gemm/w4a16.tile" \
           "$TILEC_ROOT/examples/gemm_w4a16_sm80.tile"; do
    run "$f" --seed 1
    run "$f" --seed 2 --integer
    run "$f" --sim-shape --seed 7
    for shape in "1 4096 4096" "16 4096 14336" "64 6144 4096" "200 1024 1024"; do
      set -- $shape
      run "$f" -m "$1" -n "$2" -k "$3" --alpha 2 --beta 0.5 --seed 3
    done
  done
} 2>&1 | tee "$out/w4a16-gpu.log"
python3 "$TILEC_ROOT/tests/sim/mutations/run_mutations.py" --gpu \
  --tilec "$bin/tilec" --only 'w4-' 2>&1 | tee "$out/w4a16-mutations-gpu.log"

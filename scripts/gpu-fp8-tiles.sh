#!/usr/bin/env bash
# On the device machine (with .carry/ from `scripts/gpu-build.sh crossval`):
# the block-scaled tiles of issue 26 on the GPU: every kernel of
# tests/sim/gemm/fp8_block_tiles.tile, the fp8 examples and the simulator's
# block-scaled programs through `tilec run` (fresh random inputs, C
# poisoned, every element against the CPU reference) at ragged shapes and
# at DeepSeek-V3 shapes, then the fp8 mutation rows on the GPU (each
# deterministic breakage must be caught there too). Logs go to $OUT.
#   run command="bash scripts/gpu-fp8-tiles.sh" carry=[".carry"]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-unpack.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
status=0
run() {
  echo "-- tilec run $*"
  timeout 300 "$bin/tilec" run "$@" 2>&1 | tail -n 20
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
}
{
  tiles=$TILEC_ROOT/tests/sim/gemm/fp8_block_tiles.tile
  run "$tiles" --seed 7
  run "$tiles" --seed 11 --integer
  run "$tiles" -m 129 -n 257 -k 200 --alpha 2 --beta 0.5 --seed 5
  run "$tiles" -m 1000 -n 1304 -k 1000 --alpha 0.75 --beta 0.5 --seed 3
  run "$tiles" -m 1024 -n 2112 -k 7168 --seed 1
  for f in examples/gemm_fp8_block_sm90.tile tests/sim/gemm/fp8_block_scaled.tile \
      tests/sim/gemm/fp8_block_swap.tile tests/lit/scale/fp8_promotion_overlap.tile \
      tests/sim/gemm/fp8_sfa_m_major.tile; do
    run "$TILEC_ROOT/$f" -m 300 -n 520 -k 1000 --seed 4
  done
} 2>&1 | tee "$out/fp8-tiles.log"
echo "== fp8 mutations on the GPU" | tee "$out/fp8-mutations.log"
PATH=/usr/local/cuda/bin:$PATH timeout 300 python3 \
  "$TILEC_ROOT/tests/sim/mutations/run_mutations.py" --tilec "$bin/tilec" \
  --gpu --only fp8 2>&1 | tee -a "$out/fp8-mutations.log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
grep -c '^PASS' "$out/fp8-tiles.log" | sed 's/^/PASS lines: /'
grep -c '^FAIL' "$out/fp8-tiles.log" | sed 's/^/FAIL lines: /'
exit $status

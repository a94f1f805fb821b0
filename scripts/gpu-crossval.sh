#!/usr/bin/env bash
# On the device machine (with .carry/ from `scripts/gpu-build.sh crossval`):
# the GPU half of the simulator's cross-validation (scripts/crossval.sh gpu),
# the `gpu` tests, and the mutation tests on the GPU (which breakages the
# hardware shows too). Logs go to $OUT (the device tool brings them back).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-unpack.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
# SKIP_CROSSVAL=1 leaves out the simulator-shape runs (the longest part),
# CROSSVAL_ONLY=1 everything else: one device call holds 600 s.
if [ "${SKIP_CROSSVAL:-0}" != 1 ]; then
  echo "== tilec run on the GPU at the simulator's shapes"
  bash "$TILEC_ROOT/scripts/crossval.sh" gpu "$bin/tilec" "$out/crossval-gpu" \
    2>&1 | tee "$out/crossval-gpu.log"
  tar -C "$out" -czf "$out/crossval-gpu.tar.gz" crossval-gpu && rm -rf "$out/crossval-gpu"
fi
[ "${CROSSVAL_ONLY:-0}" = 1 ] && exit 0
run() {
  echo "-- tilec run $*"
  timeout 300 "$bin/tilec" run "$@" 2>&1 | tail -n 20
}
echo "== grouped GEMM on the GPU (random groups: one empty, padding rows;"
echo "   rows outside every group must keep their poison)"
{
  g=$TILEC_ROOT/examples/gemm_fp8_grouped_contiguous_sm90.tile
  run "$g" -m 2048 -n 4096 -k 7168 --groups 4 --seed 1
  run "$g" -m 1000 -n 1304 -k 1000 --groups 5 --seed 3
  run "$g" --seed 7
  run "$g" --seed 11 --integer
  g=$TILEC_ROOT/examples/gemm_fp8_grouped_masked_sm90.tile
  run "$g" -m 1024 -n 4096 -k 7168 --groups 4 --seed 4
  run "$g" -m 512 -n 7168 -k 2048 --groups 2 --seed 5
  run "$g" -m 300 -n 520 -k 640 --groups 6 --seed 6
  run "$g" --seed 11 --integer
  run "$TILEC_ROOT/tests/sim/gemm/grouped.tile" --seed 7
  run "$TILEC_ROOT/tests/sim/gemm/grouped.tile" --seed 11 --integer
  for k in gc_bn96 gc_bf16_persistent gm_bn192_grid gm_f16_direct; do
    run "$TILEC_ROOT/tests/sim/gemm/grouped.tile" --kernel $k -m 1000 \
      -n 1304 -k 1024 --groups 6 --seed 8
  done
} 2>&1 | tee "$out/grouped-gpu.log"
echo "grouped: $(grep -c '^PASS' "$out/grouped-gpu.log") PASS," \
  "$(grep -c '^FAIL' "$out/grouped-gpu.log") FAIL"
PATH=/usr/local/cuda/bin:$PATH timeout 120 python3 \
  "$TILEC_ROOT/tests/sim/mutations/run_mutations.py" --tilec "$bin/tilec" \
  --gpu --only grouped 2>&1 | tail -4
# GROUPED_ONLY=1: just the grouped runs above.
[ "${GROUPED_ONLY:-0}" = 1 ] && exit 0
echo "== tilec run on the GPU at the default and larger shapes"
# The default shapes (1000x1304x1024, 64x2112x7168 for decode kernels) and a
# few more: alpha/beta with the epilogue ops, the block-scaled fp8 kernels
# at ragged and DeepSeek-V3 shapes, the persistent/cluster schedules with
# several tiles per CTA.
{
  run "$TILEC_ROOT/tests/sim/gemm/epilogue_ops.tile" --seed 5 --beta 0.5 --alpha 0.75
  run "$TILEC_ROOT/tests/sim/gemm/epilogue_ops2.tile" --seed 7
  run "$TILEC_ROOT/tests/sim/gemm/epilogue_ops2.tile" --seed 11 --integer
  run "$TILEC_ROOT/tests/sim/gemm/epilogue_ops2.tile" --seed 9 --alpha 0.75
  run "$TILEC_ROOT/tests/sim/gemm/epilogue_preload.tile" --seed 7
  run "$TILEC_ROOT/tests/sim/gemm/epilogue_preload.tile" --seed 5 --beta 0.5 --alpha 0.75
  run "$TILEC_ROOT/tests/sim/gemm/epilogue_preload.tile" -m 64 -n 24576 -k 1536 --seed 3
  run "$TILEC_ROOT/tests/sim/gemm/epilogue_preload.tile" -m 128 -n 4096 -k 7168 --seed 9
  run "$TILEC_ROOT/tests/sim/gemm/epilogue_colstage.tile" --seed 7
  run "$TILEC_ROOT/tests/sim/gemm/epilogue_colstage.tile" --seed 5 --beta 0.5 --alpha 0.75
  run "$TILEC_ROOT/tests/sim/gemm/epilogue_colstage.tile" -m 4096 -n 4096 -k 512 --seed 3
  run "$TILEC_ROOT/examples/gemm_fp8_block_sm90.tile" --seed 7
  run "$TILEC_ROOT/examples/gemm_fp8_block_sm90.tile" --seed 11 --integer
  run "$TILEC_ROOT/examples/gemm_fp8_block_sm90.tile" -m 129 -n 257 -k 200 --seed 13
  run "$TILEC_ROOT/examples/gemm_fp8_block_sm90.tile" -m 4096 -n 4096 -k 4096 --seed 3
  run "$TILEC_ROOT/examples/gemm_fp8_block_sm90.tile" -m 4096 -n 2112 -k 7168 --seed 5
  run "$TILEC_ROOT/tests/sim/gemm/fp8_block_scaled.tile" --seed 7
  run "$TILEC_ROOT/tests/sim/gemm/fp8_block_scaled.tile" --seed 11 --integer
  run "$TILEC_ROOT/tests/sim/gemm/fp8_block_scaled.tile" -m 1000 -n 1000 -k 2000 --seed 17
  # Block scales under swap-AB (issue 13): the file's kernels at ragged
  # decode shapes, and what schedule auto picks at DeepSeek-V3's M = 64 / 128.
  run "$TILEC_ROOT/tests/sim/gemm/fp8_block_swap.tile" --seed 7
  run "$TILEC_ROOT/tests/sim/gemm/fp8_block_swap.tile" --seed 11 --integer
  run "$TILEC_ROOT/tests/sim/gemm/fp8_block_swap.tile" -m 37 -n 300 -k 1000 --alpha 2 --beta 0.5 --seed 13
  run "$TILEC_ROOT/tests/sim/gemm/fp8_block_swap.tile" -m 100 -n 2112 -k 7168 --seed 15
  for k in fba_m64_n2112_k7168 fba_m128_n2112_k7168 fba_m128_n4096_k7168 fba_m64_n7168_k2048; do
    run "$TILEC_ROOT/tests/lit/scale/fp8_block_auto.tile" --kernel $k --seed 19
  done
  run "$TILEC_ROOT/tests/sim/gemm/sm90_persistent.tile" -m 4000 -n 5000 -k 1000 --alpha 2 --beta 0.5 --seed 9
  run "$TILEC_ROOT/tests/sim/gemm/sm90_persistent.tile" --seed 11 --integer
  run "$TILEC_ROOT/tests/sim/gemm/batched.tile" --seed 7
  run "$TILEC_ROOT/tests/sim/gemm/batched.tile" --seed 11 --integer
  for k in b80_bf16_tn b80_f16_nt_broadcast_b b90_bf16_staged \
           b90_f16_mn_broadcast_b_f32c b90_swap_broadcast_a; do
    run "$TILEC_ROOT/tests/sim/gemm/batched.tile" --kernel $k --batch 7 \
      -m 333 -n 1000 -k 520 --alpha 2 --beta 0.5 --seed 5
  done
  run "$TILEC_ROOT/tests/sim/gemm/batched.tile" --kernel b90_swap_broadcast_a \
    --batch 16 -m 64 -n 2112 -k 7168 --seed 3
} 2>&1 | tee "$out/runs-gpu.log"
echo "runs: $(grep -c '^PASS' "$out/runs-gpu.log") PASS, $(grep -c '^FAIL' "$out/runs-gpu.log") FAIL"
echo "== mutations on the GPU"
PATH=/usr/local/cuda/bin:$PATH timeout 300 python3 \
  "$TILEC_ROOT/tests/sim/mutations/run_mutations.py" --tilec "$bin/tilec" \
  --gpu --json "$out/mutations-gpu.json" 2>&1 | tee "$out/mutations-gpu.log" | tail -40
echo "== gpu tests"
timeout 420 "$bin/tilec-gputests" --gtest_color=no 2>&1 >"$out/gputests.log"
passed=$(grep -c '^\[       OK \]' "$out/gputests.log" || true)
failed=$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$out/gputests.log" || true)
echo "gpu: $passed passed, $failed failed"

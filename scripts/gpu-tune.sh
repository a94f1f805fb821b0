#!/usr/bin/env bash
# `tilec tune` on the GPU (issue 29). Step 1, here: `bash scripts/gpu-build.sh
# tune` (the static tilec in .carry/). Step 2, on the device machine:
#   run command="bash scripts/gpu-tune.sh" carry=[".carry"]
# TILEC_CARRY names another carry folder (a helper's copy). Builds nothing.
# Tunes a decode program with M, N, K fixed (examples/gemm_decode_auto_sm90
# .tile), a bf16 program that leaves the schedule and the store to the
# compiler at three shapes, and the block-scaled fp8 example; then lists
# the tune cache, runs the tuned kernels (`tilec run` says "(tuned: ...)")
# and shows the `// tilec: tuned by ...` line of `tilec compile
# --emit=lowered`. Logs in $OUT: tune.log, tune.json, after.log.
# TUNE_BUDGET_S: seconds per kernel and shape (default 8).
set -uo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
carry=${TILEC_CARRY:-$TILEC_ROOT/.carry}
mkdir -p /tmp/tilec-bin
tar -C /tmp/tilec-bin -xJf "$carry/bin.tar.xz" || exit 1
tilec=/tmp/tilec-bin/bin/tilec
out=${OUT:-/tmp/tilec-gpu}
mkdir -p "$out"
budget=${TUNE_BUDGET_S:-8}
export TILEC_CACHE_DIR=/tmp/tilec-tune-cache
rm -rf "$TILEC_CACHE_DIR"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true

auto=/tmp/tune_auto_sm90.tile
cat >"$auto" <<'TILE'
// bf16, run-time M, N, K; the schedule and the store left to the compiler.
kernel auto_bf16 {
  arch     sm_90a
  a        : bf16[M, K] major(K)
  b        : bf16[N, K] major(K)
  c        : bf16[M, N] major(N)
  acc      f32
  tile     (BM = 128, BN = 128, BK = 64)
  stages   4
}
TILE

status=0
{
  echo "== decode, M N K fixed"
  time "$tilec" tune "$TILEC_ROOT/examples/gemm_decode_auto_sm90.tile" \
    --shapes 64,2112,7168 --budget-s "$budget" --top 5 || status=1
  echo "== bf16 auto at three shapes, tile and stages varied too"
  time "$tilec" tune "$auto" --shapes '64,2112,7168;128,7168,2048;4096,4096,4096' \
    --vary tile,stages --budget-s "$budget" --top 5 || status=1
  echo "== fp8 block-scaled example"
  time "$tilec" tune "$TILEC_ROOT/examples/gemm_fp8_block_sm90.tile" \
    --shapes '128,7168,2048' --budget-s "$budget" --top 5 || status=1
} 2>&1 | tee "$out/tune.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

timeout 120 "$tilec" tune "$auto" --shapes 64,4096,4096 --budget-s 4 \
  --json >"$out/tune.json" 2>&1 || status=1

{
  echo "== tune --list"
  "$tilec" tune --list
  echo "== run with the remembered winners"
  "$tilec" run "$TILEC_ROOT/examples/gemm_decode_auto_sm90.tile" --seed 3
  "$tilec" run "$auto" --m 64 --n 2112 --k 7168 --seed 3
  "$tilec" run "$auto" --m 100 --n 7168 --k 2048 --seed 3   # bucket 128
  "$tilec" run "$auto" --m 4096 --n 4096 --k 4096 --seed 3
  echo "== compile --emit=lowered of the fixed-shape program"
  "$tilec" compile "$TILEC_ROOT/examples/gemm_decode_auto_sm90.tile" \
    --emit=lowered | grep -E "tilec:|tile.schedule|tile.tile|tile.stages"
  echo "== tune --clear"
  "$tilec" tune --clear "$auto"
  "$tilec" tune --list
} 2>&1 | tee "$out/after.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
echo "gpu-tune: exit $status"
exit $status

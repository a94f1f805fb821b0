#!/usr/bin/env bash
# One run on the H200: tilec's sm_90a e4m3 GEMM (bf16 out) and cuBLAS fp8
# (torch._scaled_mm, per-tensor and row-wise scales) on the same shapes,
# medians of event-timed batches of launches, side by side.
# Usage: bench/run_sm90_fp8_bench.sh [BENCH_BINARY] [ITERS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build/bench/Sm90FP8Bench}
iters=${2:-50}
log=$(mktemp)
echo "== tilec sm_90a e4m3"
timeout 150 "$bin" "$iters" | tee "$log"
echo "== cuBLAS fp8 via torch._scaled_mm"
timeout 120 python3 "$here/cublas_fp8_bench.py" "$iters" | tee -a "$log"
echo "== best tilec config per shape vs cuBLAS fp8 (median us; ratio = cuBLAS us / tilec us)"
python3 - "$log" <<'PY'
import sys
best, cublas = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 6 or f[0] not in ("tilec", "cublas"):
        continue
    key, us = (int(f[1]), int(f[2]), int(f[3])), float(f[5])
    if f[0] == "cublas":
        cublas.setdefault(key, {})[f[4]] = us
    elif key not in best or us < best[key][0]:
        best[key] = (us, f[4])
for key, (us, name) in best.items():
    m, n, k = key
    tf = 2 * m * n * k / us * 1e-6
    print(f"{m}x{n}x{k}: tilec {us:.2f} us {tf:.1f} TFLOP/s ({name})")
    for scaling, cb in cublas.get(key, {}).items():
        print(f"    vs cuBLAS {scaling}: {cb:.2f} us "
              f"{2 * m * n * k / cb * 1e-6:.1f} TFLOP/s, tilec/cuBLAS = {cb / us:.2f}")
PY
rm -f "$log"

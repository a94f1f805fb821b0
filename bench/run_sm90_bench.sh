#!/usr/bin/env bash
# One run on the H200: tilec's sm_90a GEMM and cuBLAS (torch.matmul) on the
# same shapes, medians of event-timed batches of launches, side by side.
# Usage: bench/run_sm90_bench.sh [BENCH_BINARY] [ITERS] [auto]
# ("auto": only the config codegen/Sm90Heuristic picks, not the sweep).
# Environment: TILEC_TIMEOUT, CUBLAS_TIMEOUT (seconds; 240 and 180).
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build/bench/Sm90GemmBench}
iters=${2:-50}
mode=${3:-sweep}
log=$(mktemp)
echo "== tilec sm_90a"
timeout "${TILEC_TIMEOUT:-240}" "$bin" "$iters" "$mode" | tee "$log"
echo "== cuBLAS via torch.matmul"
timeout "${CUBLAS_TIMEOUT:-180}" python3 "$here/cublas_rotating_bench.py" "$iters" | tee -a "$log"
echo "== best tilec config per shape vs cuBLAS (median us; speedup = cuBLAS / tilec)"
python3 - "$log" <<'PY'
import sys
best, cublas, auto = {}, {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 6 or f[0] not in ("tilec", "cublas"):
        continue
    key, us = (int(f[1]), int(f[2]), int(f[3])), float(f[5])
    if f[0] == "cublas":
        cublas[key] = us
    else:
        if f[4].startswith("auto_") and "direct_" not in f[4]:
            auto[key] = us
        if key not in best or us < best[key][0]:
            best[key] = (us, f[4])
print(f"{'M':>5} {'N':>5} {'K':>5} {'tilec us':>9} {'cuBLAS us':>9} {'speedup':>7}  "
      f"{'tilec TFLOP/s':>13} {'floor':>5} {'auto us':>8} {'auto x':>6}  best config")
for key, (us, name) in best.items():
    m, n, k = key
    floor = (m * k + n * k + m * n) * 2 / 4.8e12 * 1e6
    cb = cublas.get(key, float("nan"))
    au = auto.get(key, float("nan"))
    print(f"{m:5d} {n:5d} {k:5d} {us:9.2f} {cb:9.2f} {cb / us:7.2f}  "
          f"{2 * m * n * k / us * 1e-6:13.1f} {100 * floor / us:4.0f}% "
          f"{au:8.2f} {cb / au:6.2f}  {name}")
PY
rm -f "$log"

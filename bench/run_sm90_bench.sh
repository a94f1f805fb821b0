#!/usr/bin/env bash
# One run on the H200: tilec's sm_90a GEMM and cuBLAS (torch.matmul) on the
# same shapes, medians of event-timed launches, side by side.
# Usage: bench/run_sm90_bench.sh [BENCH_BINARY] [ITERS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build/bench/Sm90GemmBench}
iters=${2:-50}
echo "== tilec sm_90a"
timeout 240 "$bin" "$iters"
echo "== cuBLAS via torch.matmul"
timeout 180 python3 "$here/cublas_bench.py" "$iters"

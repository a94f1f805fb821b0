#!/usr/bin/env bash
# GPU workflow, benchmarks (on the device machine, with .carry/ carried, after
# scripts/gpu-build.sh here): tilec and cuBLAS side by side in one run, medians.
# Each script under bench/ prints its own table; the results are written up in
# bench/*Results.md.
#   bash scripts/gpu-bench.sh [sm90|vs|fp8|sm80|all|profile SHAPE...]
#     (default all; vs: the chosen sm_90a configs and cuBLAS in alternating
#     samples in one process; profile: Nsight Compute on the chosen config of
#     each MxNxK given, one steady-state launch each)
set -uo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=/tmp/tilec-bin/bin
if [ ! -x "$bin/Sm90GemmBench" ]; then
  mkdir -p /tmp/tilec-bin
  tar -C /tmp/tilec-bin -xJf "$TILEC_ROOT/.carry/bin.tar.xz" || exit 1
fi
which=${1:-all}
status=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
if [ "$which" = all ] || [ "$which" = sm90 ]; then
  TILEC_TIMEOUT=${TILEC_TIMEOUT:-150} CUBLAS_TIMEOUT=${CUBLAS_TIMEOUT:-60} \
    bash "$TILEC_ROOT/bench/run_sm90_bench.sh" "$bin/Sm90GemmBench" 30 || status=1
fi
if [ "$which" = all ] || [ "$which" = vs ]; then
  timeout 200 "$bin/Sm90GemmBench" "${VS_ITERS:-40}" vs || status=1
fi
if [ "$which" = profile ]; then
  shift
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  for shape in "$@"; do
    echo "== ncu: $shape"
    timeout 240 "$ncu" --launch-skip 25 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --section WarpStateStats --section SchedulerStats \
      --section LaunchStats --section SourceCounters \
      "$bin/Sm90GemmBench" 1 auto "$shape" 2>&1 | grep -v '^==PROF==' || status=1
  done
fi
if [ "$which" = all ] || [ "$which" = fp8 ]; then
  [ -x "$bin/Sm90FP8Bench" ] &&
    { bash "$TILEC_ROOT/bench/run_sm90_fp8_bench.sh" "$bin/Sm90FP8Bench" 30 || status=1; }
fi
if [ "$which" = all ] || [ "$which" = sm80 ]; then
  timeout 200 bash "$TILEC_ROOT/bench/run_gemm_bench.sh" "$bin" 4096 4096 4096 || status=1
fi
exit $status

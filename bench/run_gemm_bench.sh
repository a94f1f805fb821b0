#!/usr/bin/env bash
# bench/run_gemm_bench.sh: tilec's sm_80 GEMM and cuBLAS side by side, one run.
#
#   run_gemm_bench.sh [DIR_WITH_GemmBench] [M N K ...]
#
# Runs GemmBench (every tile config) and cublas_bench.py on the same shapes,
# then prints, per shape, cuBLAS's rate, tilec's best config and the ratio.
set -u
dir=${1:-.}
shift || true
here=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp)
"$dir/GemmBench" "$@" | tee -a "$log"
python3 "$here/cublas_bench.py" "$@" | tee -a "$log"
echo
printf '%-16s %-22s %10s %12s %8s\n' shape "tilec best config" "tilec TF/s" "cuBLAS TF/s" ratio
awk '/^RESULT tilec/ { tf = $7; if (!($3 in best) || tf > best[$3]) { best[$3] = tf; cfg[$3] = $4 } }
     /^RESULT cublas/ { cb[$3] = $7 }
     END { for (s in best) printf "%-16s %-22s %10.1f %12.1f %8.2f\n", s, cfg[s], best[s], cb[s], (cb[s] > 0 ? best[s] / cb[s] : 0) }' "$log"
rm -f "$log"

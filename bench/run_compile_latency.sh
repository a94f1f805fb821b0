#!/usr/bin/env bash
# bench/run_compile_latency.sh [BUILD_DIR] [RUNS]: cold-compile latency of
# examples/gemm_sm80.tile (.tile -> PTX through tilec::Compiler) and of the
# sm_90a GEMM (emitSm90Gemm) with the default compile profiles (sm_80: Light,
# sm_90a: Full), and with O3 middle end + O3 codegen (the original default)
# for comparison, then ptxas on each PTX (timed separately; not part of
# tilec's compile).
# Run from anywhere; writes the PTX to $OUT_DIR (default /tmp/tilec-latency).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
runs=${2:-100}
out=${OUT_DIR:-/tmp/tilec-latency}
mkdir -p "$out/tailored" "$out/O3"
cd "$root"
echo "# $(date -u +%FT%TZ) $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "## default profiles (sm_80 Light, sm_90a Full)"
"$build/bench/CompileLatency" --runs="$runs" --ptx-dir="$out/tailored"
echo "## -tilec-middle-end=O3 -tilec-codegen-opt=3 (the original default)"
"$build/bench/CompileLatency" --runs="$runs" --ptx-dir="$out/O3" \
  --tilec-middle-end=O3 --tilec-codegen-opt=3
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
if [ -x "$ptxas" ]; then
  echo "## ptxas -O3 (median of 5, wall seconds)"
  for kind in tailored O3; do
    for k in sm80:sm_80 sm90a:sm_90a; do
      ptx="$out/$kind/gemm_${k%%:*}.ptx"
      times=()
      for i in 1 2 3 4 5; do
        s=$(date +%s.%N)
        "$ptxas" -arch="${k#*:}" -O3 "$ptx" -o "$out/$kind/${k%%:*}.cubin"
        times+=("$(echo "$(date +%s.%N) - $s" | bc)")
      done
      med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
      info=$("$ptxas" -arch="${k#*:}" -O3 -v "$ptx" -o /dev/null 2>&1 |
        grep -o 'Used [0-9]* registers' || true)
      echo "ptxas $kind ${k#*:}: ${med} s, $info"
    done
  done
else
  echo "ptxas not found: skipped"
fi

#!/usr/bin/env bash
# The simulator's speed: wall time and simulated warp-instructions per second
# of `tilec run --sim` on 256x256x256 GEMMs of each target (the compile,
# input generation and the fp64 CPU reference are in the wall time; the
# JSON's "seconds" is the check alone), then the wall time of the CTest `sim`
# label. Results: bench/SimResults.md.
#
#   bash bench/run_sim_bench.sh [BUILD_DIR]
set -euo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$TILEC_ROOT/build}
tilec=$build/compiler/tilec/tilec
echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for tile in gemm_sm80 gemm_sm90 gemm_sm100; do
  for run in 1 2 3; do
    start=$(date +%s.%N)
    json=$("$tilec" run --sim "$TILEC_ROOT/examples/$tile.tile" --m 256 --n 256 \
      --k 256 --seed $run --json)
    end=$(date +%s.%N)
    python3 - "$tile" "$start" "$end" "$json" <<'PY'
import json, sys
tile, start, end, text = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
r = json.loads(text)[0]
rate = r["warp_instructions"] / r["seconds"] if r["seconds"] else 0
print(f"{tile:12} 256x256x256 {'PASS' if r['pass'] else 'FAIL'}: process {end - start:.2f} s, "
      f"check {r['seconds']:.3f} s, {r['warp_instructions']} warp-instructions, "
      f"{rate / 1e6:.2f} M warp-instructions/s")
PY
  done
done
start=$(date +%s)
ctest --test-dir "$build" -L sim -j "$(nproc)" 2>&1 | tail -3
echo "ctest -L sim: $(( $(date +%s) - start )) s wall"

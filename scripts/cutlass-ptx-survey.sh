#!/usr/bin/env bash
# Issue 31's first question: does the simulator load the PTX of NVIDIA's own
# GEMM kernels? Installs CUTLASS's C++ source from PyPI (nvidia-cutlass,
# into BUILD_DIR/cutlass; never into the repository), compiles a set of its
# Hopper and Blackwell examples to PTX with nvcc (BUILD_DIR/cutlass-ptx/;
# generated, not committed) and runs tilec-ptx-load on each: "loads", or the
# first construct the simulator refuses, with its PTX line. Running the
# kernels (CUTLASS's Params, its TMA descriptors, a launch in the simulator)
# is the harness still to build; this says what the simulator lacks first.
#
#   bash scripts/cutlass-ptx-survey.sh [BUILD_DIR]   (default build; about
#   3 minutes, most of it nvcc)
set -uo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${1:-$TILEC_ROOT/build}
src=$BUILD_DIR/cutlass/cutlass_library/source
sh "$TILEC_ROOT/scripts/install-cutlass.sh" "$BUILD_DIR" >/dev/null || exit 1
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
out=$BUILD_DIR/cutlass-ptx
mkdir -p "$out"
# example file : arch
examples=(
  "48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu:sm_90a"
  "49_hopper_gemm_with_collective_builder/49_collective_builder.cu:sm_90a"
  "54_hopper_fp8_warp_specialized_gemm/54_hopper_fp8_warp_specialized_gemm.cu:sm_90a"
  "67_hopper_fp8_warp_specialized_gemm_with_blockwise_scaling/67_hopper_fp8_warp_specialized_gemm_with_blockwise_scaling.cu:sm_90a"
  "70_blackwell_gemm/70_blackwell_fp16_gemm.cu:sm_100a"
  "70_blackwell_gemm/70_blackwell_fp8_gemm.cu:sm_100a"
  "71_blackwell_gemm_with_collective_builder/71_blackwell_gemm_with_collective_builder.cu:sm_100a"
  "73_blackwell_gemm_preferred_cluster/blackwell_gemm_preferred_cluster.cu:sm_100a"
  "74_blackwell_gemm_streamk/blackwell_gemm_streamk.cu:sm_100a"
)
status=0
for entry in "${examples[@]}"; do
  file=${entry%%:*} arch=${entry##*:}
  name=$(basename "$file" .cu)
  if [ ! -f "$src/examples/$file" ]; then
    echo "$name: not in this CUTLASS ($file)"
    status=1
    continue
  fi
  if ! "$nvcc" -std=c++17 -arch="$arch" --expt-relaxed-constexpr \
      -I"$src/include" -I"$src/tools/util/include" -I"$src/examples/common" \
      -ptx "$src/examples/$file" -o "$out/$name.ptx" 2>"$out/$name.log"; then
    echo "$name ($arch): nvcc failed, see $out/$name.log"
    status=1
    continue
  fi
  "$BUILD_DIR/tests/tilec-ptx-load" "$out/$name.ptx" | sed "s|$out/||"
done
exit $status

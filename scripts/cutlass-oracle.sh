#!/usr/bin/env bash
# Issue 31's oracle: NVIDIA's CUTLASS GEMM kernels run in tilec's simulator
# (docs/cutlass-oracle.md). Builds the harness tests/oracle/CutlassGemmOracle.cu
# for one kernel of tests/oracle/kernels/ with nvcc (CUTLASS from PyPI in
# BUILD_DIR/cutlass, scripts/install-cutlass.sh; the object and the PTX under
# BUILD_DIR/oracle/KERNEL, rebuilt only when a source, nvcc or a flag
# changes) and runs it: CUTLASS's host code builds the launch, the simulator
# runs the PTX, D is checked against a CPU reference.
#
#   scripts/cutlass-oracle.sh build BUILD_DIR KERNEL
#   scripts/cutlass-oracle.sh run BUILD_DIR KERNEL MxNxK [harness options]
#                                               (after build)
#   scripts/cutlass-oracle.sh all [BUILD_DIR]   every kernel and shape of
#                                               tests/oracle/kernels.txt
#
# Needs the CMake targets tilec_sim, tilec_oracle_sim and
# tilec_oracle_nocudart built in BUILD_DIR. NVCC overrides the compiler
# (default /usr/local/cuda/bin/nvcc). ORACLE_GPU=1 builds the GPU variant
# instead (BUILD_DIR/oracle-gpu/KERNEL: SASS for the kernel's arch, the CUDA
# runtime, --gpu; used by scripts/gpu-oracle.sh).
set -euo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}

usage() {
  sed -n '/^#   scripts/p' "${BASH_SOURCE[0]}" >&2
  exit 2
}

# build BUILD_DIR KERNEL: BUILD_DIR/oracle[-gpu]/KERNEL/{oracle,KERNEL.ptx}.
build() {
  local build_dir=$1 kernel=$2
  local header=$TILEC_ROOT/tests/oracle/kernels/$kernel.cuh
  [ -f "$header" ] || { echo "cutlass-oracle: no kernel $header" >&2; return 1; }
  local arch
  arch=$(sed -n 's|^// oracle-arch: *||p' "$header")
  [ -n "$arch" ] || { echo "cutlass-oracle: $header has no '// oracle-arch:' line" >&2; return 1; }
  sh "$TILEC_ROOT/scripts/install-cutlass.sh" "$build_dir" >/dev/null
  command -v "$nvcc" >/dev/null || { echo "cutlass-oracle: no nvcc at $nvcc (set NVCC)" >&2; return 1; }
  local src=$build_dir/cutlass/cutlass_library/source
  local libs=("$build_dir/tests/oracle/libtilec_oracle_sim.a")
  local variant=oracle gencode="arch=compute_${arch#sm_},code=compute_${arch#sm_}"
  local defines=() link=(-cudart none)
  if [ "${ORACLE_GPU:-0}" = 1 ]; then
    variant=oracle-gpu
    gencode="arch=compute_${arch#sm_},code=[${arch},compute_${arch#sm_}]"
    defines=(-DORACLE_GPU)
    link=(-cudart static)
  else
    libs+=("$build_dir/tests/oracle/libtilec_oracle_nocudart.a")
  fi
  libs+=("$build_dir/runtime/sim/libtilec_sim.a")
  for lib in "${libs[@]}"; do
    [ -f "$lib" ] || { echo "cutlass-oracle: $lib is missing; build the tilec_oracle_sim, tilec_oracle_nocudart and tilec_sim targets first" >&2; return 1; }
  done
  local out=$build_dir/$variant/$kernel
  mkdir -p "$out"
  local flags=(-std=c++17 -O1 --expt-relaxed-constexpr -diag-suppress 20011
               -DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL=1
               -DCUTLASS_ENABLE_CUDA_HOST_ADAPTER=1 "${defines[@]}"
               -I"$TILEC_ROOT" -I"$src/include" -I"$src/tools/util/include"
               -include "$header" -gencode "$gencode")
  local key
  key=$( { "$nvcc" --version; echo "${flags[*]}";
           cat "$TILEC_ROOT"/tests/oracle/*.cu* "$TILEC_ROOT"/tests/oracle/kernels/*.cuh \
               "$TILEC_ROOT"/tests/oracle/SimBackend.h; } | sha256sum | cut -c1-16)
  if [ ! -f "$out/harness.o" ] || [ "$(cat "$out/key" 2>/dev/null)" != "$key" ]; then
    rm -rf "$out/keep" && mkdir -p "$out/keep"
    echo "cutlass-oracle: nvcc $kernel ($arch)"
    "$nvcc" "${flags[@]}" -keep -keep-dir "$out/keep" -c \
      "$TILEC_ROOT/tests/oracle/CutlassGemmOracle.cu" -o "$out/harness.o" \
      > "$out/nvcc.log" 2>&1 || { cat "$out/nvcc.log" >&2; return 1; }
    mv "$out/keep/CutlassGemmOracle.ptx" "$out/$kernel.ptx"
    rm -rf "$out/keep"
    echo "$key" > "$out/key"
  fi
  if ! "$nvcc" "${link[@]}" "$out/harness.o" "${libs[@]}" -lpthread \
      -o "$out/oracle" > "$out/link.log" 2>&1; then
    echo "cutlass-oracle: linking $kernel failed:" >&2
    grep -o "undefined reference to .*" "$out/link.log" | sort -u >&2 ||
      tail -5 "$out/link.log" >&2
    return 1
  fi
}

# run BUILD_DIR KERNEL MxNxK [options]
run() {
  local build_dir=$1 kernel=$2 shape=$3
  shift 3
  local variant=oracle
  [ "${ORACLE_GPU:-0}" = 1 ] && variant=oracle-gpu
  local out=$build_dir/$variant/$kernel m n k
  [ -x "$out/oracle" ] || {
    echo "cutlass-oracle: $kernel is not built: scripts/cutlass-oracle.sh build $build_dir $kernel" >&2
    return 1
  }
  IFS=x read -r m n k <<< "$shape"
  "$out/oracle" --ptx "$out/$kernel.ptx" --m "$m" --n "$n" --k "$k" "$@"
}

# all [BUILD_DIR]: every kernel at every shape of kernels.txt.
all() {
  local build_dir=${1:-$TILEC_ROOT/build} failed=0 kernel shapes
  while read -r kernel shapes; do
    case $kernel in ''|'#'*) continue ;; esac
    build "$build_dir" "$kernel" || { failed=1; continue; }
    for shape in $shapes; do
      echo "== $kernel $shape"
      run "$build_dir" "$kernel" "$shape" | grep -v '^simulator: _Z' || failed=1
    done
  done < "$TILEC_ROOT/tests/oracle/kernels.txt"
  return $failed
}

case ${1:-} in
  build) [ $# = 3 ] || usage; build "$2" "$3" ;;
  run) [ $# -ge 4 ] || usage; shift; run "$@" ;;
  all) shift; all "$@" ;;
  *) usage ;;
esac

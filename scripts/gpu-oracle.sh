#!/usr/bin/env bash
# Issue 31, the sm_90a half on a GPU: CUTLASS's Hopper kernels of
# tests/oracle/kernels.txt run on the GPU and in the simulator, same inputs,
# through the same CUTLASS host code; each run must match the CPU reference
# and the GPU's D must equal the simulator's bit for bit
# (tests/oracle/GpuBackend.cuh). Two steps, like scripts/gpu-build.sh:
#
#   here:   bash scripts/gpu-oracle.sh pack [BUILD_DIR]
#             installs CUTLASS (scripts/install-cutlass.sh), builds the
#             tilec_sim and tilec_oracle_sim targets, and stages CUTLASS's
#             headers and the two libraries in .carry-oracle/ (git-ignored,
#             about 4 MB), since the device machine reaches no network;
#   device: run command="bash scripts/gpu-oracle.sh run"
#               carry=[".carry-oracle"]
#             compiles each sm_90a kernel with the machine's nvcc (SASS for
#             sm_90a and the PTX), runs every shape with --gpu and a
#             random-interleaving simulator seed; logs in $OUT.
set -uo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
carry=$TILEC_ROOT/.carry-oracle

pack() {
  local build_dir=${1:-$TILEC_ROOT/build}
  sh "$TILEC_ROOT/scripts/install-cutlass.sh" "$build_dir" || return 1
  cmake --build "$build_dir" --target tilec_sim tilec_oracle_sim || return 1
  rm -rf "$carry" && mkdir -p "$carry"
  tar -C "$build_dir" -cJf "$carry/oracle.tar.xz" \
    cutlass/cutlass_library/source/include \
    cutlass/cutlass_library/source/tools/util/include \
    runtime/sim/libtilec_sim.a tests/oracle/libtilec_oracle_sim.a || return 1
  du -h "$carry/oracle.tar.xz"
}

run() {
  local build_dir=/tmp/tilec-oracle out=${OUT:-/tmp/tilec-oracle-out}
  mkdir -p "$build_dir" "$out"
  tar -C "$build_dir" -xJf "$carry/oracle.tar.xz" || return 1
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  local status=0 kernel shapes shape
  while read -r kernel shapes; do
    case $kernel in ''|'#'*) continue ;; esac
    grep -q '^// oracle-arch: sm_90a' "$TILEC_ROOT/tests/oracle/kernels/$kernel.cuh" ||
      continue
    ORACLE_GPU=1 bash "$TILEC_ROOT/scripts/cutlass-oracle.sh" build \
      "$build_dir" "$kernel" || { status=1; continue; }
    for shape in $shapes; do
      echo "== $kernel $shape"
      ORACLE_GPU=1 timeout 300 bash "$TILEC_ROOT/scripts/cutlass-oracle.sh" \
        run "$build_dir" "$kernel" "$shape" --gpu --sim-seed 7 \
        2>&1 | grep -v '^simulator: _Z' | tee -a "$out/gpu-oracle.log"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    done
  done < "$TILEC_ROOT/tests/oracle/kernels.txt"
  echo "gpu-oracle: $(grep -c '^PASS' "$out/gpu-oracle.log") PASS, $(grep -c '^FAIL$' "$out/gpu-oracle.log") FAIL"
  return $status
}

case ${1:-} in
  pack) shift; pack "$@" ;;
  run) run ;;
  *) sed -n '/^#   here/,/^#             random/p' "$0" >&2; exit 2 ;;
esac

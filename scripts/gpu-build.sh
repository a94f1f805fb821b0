#!/usr/bin/env bash
# GPU workflow, step 1 (here, on the build machine): build tilec, the GPU
# tests, the examples and the benchmarks with LLVM linked statically, and stage
# them, stripped, in .carry/ (git-ignored) for the device machine, which has
# no LLVM. Then, with the device tool:
#   run  command="bash scripts/gpu-run.sh"  carry=[".carry"]
set -euo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$TILEC_ROOT/build-static}
BUILD_DIR=$BUILD_DIR TILEC_CMAKE_ARGS="-DTILEC_LLVM_STATIC=ON" \
  bash "$TILEC_ROOT/scripts/setup.sh"

stage=$TILEC_ROOT/.carry
rm -rf "$stage"
mkdir -p "$stage/bin"
# Static binaries are 30-45 MB each; the transfer limit is 64 MiB in all, so
# they travel xz-compressed and gpu-run.sh unpacks them.
for exe in "$BUILD_DIR/compiler/tilec/tilec" "$BUILD_DIR/tests/tilec-gputests" \
           "$BUILD_DIR"/examples/* "$BUILD_DIR"/bench/*; do
  if [ -f "$exe" ] && [ -x "$exe" ]; then
    strip -o "$stage/bin/$(basename "$exe")" "$exe"
  fi
done
tar -C "$stage" -cJf "$stage/bin.tar.xz" bin
rm -rf "$stage/bin"
du -sh "$stage"

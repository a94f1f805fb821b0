#!/usr/bin/env bash
# GPU workflow, step 1 (here, on the build machine): build tilec, the GPU
# tests, the examples and the benchmarks with LLVM linked statically, and stage
# one set of them, stripped, in .carry/ (git-ignored) for the device machine,
# which has no LLVM. Then, with the device tool:
#   gpu-build.sh tests  then  run command="bash scripts/gpu-run.sh"    carry=[".carry"]
#   gpu-build.sh bench  then  run command="bash scripts/gpu-bench.sh"  carry=[".carry"]
#   gpu-build.sh crossval  then  run command="bash scripts/gpu-crossval.sh"  carry=[".carry"]
#   gpu-build.sh crossval  then  run command="bash scripts/gpu-sanitize.sh"  carry=[".carry"]
#   gpu-build.sh tune  then  run command="bash scripts/gpu-tune.sh"  carry=[".carry"]
#   BUILD_DIR=build-static-py gpu-build.sh python  then
#     run command="bash scripts/gpu-python.sh"  carry=[".carry-py"]
set -euo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$TILEC_ROOT/build-static}

# Each static binary is ~44 MB stripped (~9 MB xz-compressed) and one device
# call carries at most 64 MiB, so a call takes one set:
#   tests: the gpu tests and the example runners (scripts/gpu-run.sh)
#   bench: the benchmarks (scripts/gpu-bench.sh)
#   python: a wheel of the Python package with the static libtilec.so
#     inside (tilec-*-py3-none-linux_x86_64.whl, pip-installed there by
#     scripts/gpu-python.sh) and bench/capi_launch_bench.c, staged in
#     .carry-py/ so that it leaves the other sets' .carry/ alone. The wheel
#     is built by `pip wheel ./python` (scikit-build-core, installed from
#     PyPI into $BUILD_DIR/wheel-venv) around the library built here
#     (-DTILEC_PREBUILT_LIBRARY, python/CMakeLists.txt), not a second build.
set_name=${1:-tests}
stage=$TILEC_ROOT/.carry
case $set_name in
  tests) wanted="tests/tilec-gputests examples/run_tile examples/saxpy" ;;
  bench) wanted="bench/Sm90GemmBench bench/Sm90FP8Bench bench/GemmBench" ;;
  crossval) wanted="compiler/tilec/tilec tests/tilec-gputests" ;;
  tune) wanted="compiler/tilec/tilec" ;;
  python) wanted="capi/libtilec.so"; stage=$TILEC_ROOT/.carry-py ;;
  *) echo "usage: gpu-build.sh [tests|bench|crossval|tune|python]" >&2; exit 2 ;;
esac
BUILD_DIR=$BUILD_DIR TILEC_CMAKE_ARGS="-DTILEC_LLVM_STATIC=ON" \
  TILEC_TARGETS="$(for exe in $wanted; do basename "$exe"; done |
    sed 's/^libtilec.so$/tilec_capi/' | xargs)" \
  bash "$TILEC_ROOT/scripts/setup.sh"
rm -rf "$stage"
mkdir -p "$stage/bin"
if [ "$set_name" = python ]; then
  strip -o "$stage/bin/libtilec.so" "$BUILD_DIR/capi/libtilec.so"
  if ldd "$stage/bin/libtilec.so" | grep -i llvm; then
    echo "gpu-build.sh: libtilec.so depends on a shared LLVM" >&2
    exit 1
  fi
  venv=$BUILD_DIR/wheel-venv
  if [ ! -x "$venv/bin/pip" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "scikit-build-core>=0.8"
  fi
  "$venv/bin/pip" wheel -q --no-deps --no-build-isolation -w "$stage" \
    -C cmake.define.TILEC_PREBUILT_LIBRARY="$stage/bin/libtilec.so" \
    -C build-dir="$BUILD_DIR/wheel" "$TILEC_ROOT/python"
  rm -rf "$stage/bin"
  cc -O2 -std=gnu11 -Wall -Wextra -I"$TILEC_ROOT/include" \
    "$TILEC_ROOT/bench/capi_launch_bench.c" -ldl -o "$stage/capi_launch_bench"
  ls -l "$stage"
  du -sh "$stage"
  exit 0
fi
# A smoke run in the simulator before anything travels: a static build dir
# once linked objects compiled against an older header (run_tile then found
# no kernel in any file and printed nothing), which no GPU run would show.
if [ "$set_name" = tests ]; then
  smoke=$(TILEC_DEVICE=sim TILEC_NO_DISK_CACHE=1 "$BUILD_DIR/examples/run_tile" \
    "$TILEC_ROOT/examples/gemm_sm80.tile" 64 64 64 || true)
  if ! grep -q "^PASS" <<<"$smoke"; then
    echo "gpu-build.sh: run_tile in the simulator did not pass ($smoke);" \
      "rebuild $BUILD_DIR from scratch" >&2
    exit 1
  fi
fi
for exe in $wanted; do
  strip -o "$stage/bin/$(basename "$exe")" "$BUILD_DIR/$exe"
done
tar -C "$stage" -cf - bin | xz -T0 -6 >"$stage/bin.tar.xz"
rm -rf "$stage/bin"
du -sh "$stage"

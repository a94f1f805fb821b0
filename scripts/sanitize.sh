#!/usr/bin/env bash
# Builds tilec, the unit tests and the libFuzzer targets with
# AddressSanitizer and UndefinedBehaviorSanitizer (clang), runs the CPU suite
# (unit tests and lit, not the `gpu`, `sim` and `oracle` labels: the oracle
# checks the simulator's semantics, which the main suite runs) and the simulator's
# unit tests and every example in the simulator under them, then runs
# each fuzz target for a fixed number of executions from a fixed seed over the
# committed corpus (tests/fuzz/corpus). Any sanitizer report, failed test or
# fuzzer crash fails the script. scripts/test.sh calls it after the main suite.
#
# Installs what it needs on Debian 12 (clang-22 and its compiler-rt, for the
# sanitizer and libFuzzer runtimes), idempotently. About 15-20 minutes on a
# 2-core machine, most of it the build.
#
# Environment:
#   TILEC_SKIP_SANITIZE=1  skip this step (scripts/test.sh honours it; the
#                          only way to leave it out of CI, say why if you do).
#   SANITIZE_BUILD_DIR     build directory (default build-sanitize).
#   TILEC_FUZZ_TILE_RUNS   executions of tilec-tile-fuzzer (default 20000).
#   TILEC_FUZZ_LAYOUT_RUNS executions of tilec-layout-expr-fuzzer
#                          (default 200000).
set -euo pipefail

if [ "${TILEC_SKIP_SANITIZE:-0}" = 1 ]; then
  echo "sanitize: skipped (TILEC_SKIP_SANITIZE=1)"
  exit 0
fi

TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${SANITIZE_BUILD_DIR:-$TILEC_ROOT/build-sanitize}
TILE_RUNS=${TILEC_FUZZ_TILE_RUNS:-20000}
LAYOUT_RUNS=${TILEC_FUZZ_LAYOUT_RUNS:-200000}
PTX_RUNS=${TILEC_FUZZ_PTX_RUNS:-100000}

source "$TILEC_ROOT/scripts/install-packages.sh"
install_missing_packages sanitize clang-22 libclang-rt-22-dev

start=$(date +%s)
# TILEC_SANITIZE builds every library with ASan, UBSan and libFuzzer's
# coverage; TILEC_FUZZ adds the fuzz targets, linked against those libraries.
cmake -S "$TILEC_ROOT" -B "$BUILD_DIR" -G Ninja \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILEC_SANITIZE=ON -DTILEC_FUZZ=ON \
  >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
echo "sanitize: build took $(( $(date +%s) - start )) s"

# A report aborts (so that lit's `not` sees a crash, not an exit code it
# expects) and prints the stack symbolized.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=abort_on_error=1:print_stacktrace=1:halt_on_error=1
symbolizer=$(command -v llvm-symbolizer-22 || command -v llvm-symbolizer ||
             ls /usr/lib/llvm-22/bin/llvm-symbolizer 2>/dev/null || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=$symbolizer

start=$(date +%s)
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" -LE 'gpu|sim|oracle'
echo "sanitize: CPU suite under ASan+UBSan took $(( $(date +%s) - start )) s"

# The simulator under the sanitizers: its unit tests, and every example
# executed in it (the interpreter, the units and the driver shim on real
# kernels).
start=$(date +%s)
"$BUILD_DIR/tests/tilec-simtests" --gtest_brief=1
for tile in "$TILEC_ROOT"/examples/*.tile; do
  "$BUILD_DIR/compiler/tilec/tilec" run --sim --seed 5 "$tile"
done
echo "sanitize: the simulator under ASan+UBSan took $(( $(date +%s) - start )) s"

# Fixed executions from a fixed seed over the committed corpus; new inputs go
# to a scratch directory (the first one named), never into the repository.
fuzz() {
  local target=$1 corpus=$2 runs=$3
  local scratch="$BUILD_DIR/fuzz-scratch/$target"
  rm -rf "$scratch" && mkdir -p "$scratch" "$BUILD_DIR/fuzz-artifacts"
  echo "sanitize: $target: $runs executions from $corpus"
  "$BUILD_DIR/tests/fuzz/$target" -runs="$runs" -seed=1 -max_len=4096 \
    -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$BUILD_DIR/fuzz-artifacts/$target-" \
    "$scratch" "$corpus"
}
start=$(date +%s)
fuzz tilec-layout-expr-fuzzer "$TILEC_ROOT/tests/fuzz/corpus/layout-expr" \
  "$LAYOUT_RUNS"
fuzz tilec-tile-fuzzer "$TILEC_ROOT/tests/fuzz/corpus/tile" "$TILE_RUNS"
fuzz tilec-ptx-fuzzer "$TILEC_ROOT/tests/fuzz/corpus/ptx" "$PTX_RUNS"
echo "sanitize: fuzzing took $(( $(date +%s) - start )) s; no findings"

#!/usr/bin/env bash
# Runs tilec's whole test suite: installs what is missing, builds, then runs
# every CTest test (unit, lit golden, ptxas, and the `gpu` label, which skips
# with a SKIP line where there is no GPU), then scripts/sanitize.sh: the CPU
# suite under ASan+UBSan and the fuzz targets for a fixed number of
# executions. TILEC_SKIP_SANITIZE=1 leaves that last step out (CI sets
# nothing, so CI runs it).
set -euo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$TILEC_ROOT/build}
bash "$TILEC_ROOT/scripts/setup.sh"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" "$@"
bash "$TILEC_ROOT/scripts/sanitize.sh"

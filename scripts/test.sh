#!/usr/bin/env bash
# Runs tilec's whole test suite: installs what is missing (the SASS tools
# from PyPI too), builds, then runs every CTest test (unit, lit golden,
# ptxas, and the `gpu` label, which skips with a SKIP line where there is no
# GPU; a skip outside that label fails the run: scripts/check_skips.py),
# then scripts/sanitize.sh: the CPU
# suite under ASan+UBSan and the fuzz targets for a fixed number of
# executions. TILEC_SKIP_SANITIZE=1 leaves that last step out (CI sets
# nothing, so CI runs it).
set -euo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$TILEC_ROOT/build}
bash "$TILEC_ROOT/scripts/setup.sh"
# The SASS test of the sm_100a kernels needs cuobjdump/nvdisasm (PyPI).
sh "$TILEC_ROOT/scripts/install-sass-tools.sh" "$BUILD_DIR"
junit="$BUILD_DIR/Testing/ctest-junit.xml"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" \
  --output-junit "$junit" "$@"
# Only the `gpu` label may skip (no GPU here); any other skip fails the run.
python3 "$TILEC_ROOT/scripts/check_skips.py" "$BUILD_DIR" "$junit"
bash "$TILEC_ROOT/scripts/sanitize.sh"

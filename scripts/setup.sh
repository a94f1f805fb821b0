#!/usr/bin/env bash
# Installs what tilec needs on a fresh Debian 12 machine, idempotently, then
# configures and builds it. Sourced by scripts/main.sh and scripts/test.sh.
#
# python3-pip: scripts/install-sass-tools.sh installs the SASS tools from PyPI.
# Environment: BUILD_DIR (default build), TILEC_CMAKE_ARGS (extra cmake args),
# TILEC_TARGETS (build only these targets).
set -euo pipefail

TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$TILEC_ROOT/build}

packages=(cmake ninja-build g++ llvm-22-dev llvm-22-tools lld-22 libfmt-dev
          libgtest-dev libzstd-dev zlib1g-dev libxml2-dev libedit-dev
          libffi-dev libz3-dev python3 python3-pytest python3-pip)
source "$TILEC_ROOT/scripts/install-packages.sh"
install_missing_packages setup "${packages[@]}"

if [ ! -x /usr/local/cuda/bin/ptxas ] && ! command -v ptxas >/dev/null; then
  echo "setup: note: no ptxas (CUDA toolkit) found; PTX assembly checks will be skipped"
fi

cmake -S "$TILEC_ROOT" -B "$BUILD_DIR" -G Ninja ${TILEC_CMAKE_ARGS:-} >/dev/null
# TILEC_TARGETS: build only these targets (default: all).
cmake --build "$BUILD_DIR" -j "$(nproc)" ${TILEC_TARGETS:+--target $TILEC_TARGETS}

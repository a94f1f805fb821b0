#!/bin/sh
# scripts/install-sass-tools.sh BUILD_DIR: installs cuobjdump and nvdisasm
# from PyPI (nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm) into
# BUILD_DIR/nvtools for the SASS test (tests/sass/sm100_sass.py, CTest
# sass-sm100). Idempotent: does nothing when they are there. Never fails the
# caller: without pip or the network the SASS test skips, saying why.
dir="${1:?usage: install-sass-tools.sh BUILD_DIR}/nvtools"
if [ -x "$dir/nvidia/cu13/bin/cuobjdump" ] && [ -x "$dir/nvidia/cu13/bin/nvdisasm" ]; then
  echo "install-sass-tools: already in $dir"
  exit 0
fi
if python3 -m pip install --quiet --disable-pip-version-check --target "$dir" \
    nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm; then
  echo "install-sass-tools: installed into $dir"
else
  echo "install-sass-tools: pip install failed; the SASS test will skip"
fi
exit 0

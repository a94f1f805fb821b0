#!/bin/sh
# scripts/install-cutlass.sh BUILD_DIR: installs CUTLASS 4.2.0's C++ source
# (the PyPI package nvidia-cutlass, whose cutlass_library/source holds
# include/, tools/ and examples/) into BUILD_DIR/cutlass, for issue 31's
# oracle (scripts/cutlass-oracle.sh) and survey (scripts/cutlass-ptx-survey.sh).
# Never into the repository. Idempotent: does nothing when it is there.
# Fails (exit 1) when pip cannot install it: the oracle must not skip.
pkg="${1:?usage: install-cutlass.sh BUILD_DIR}/cutlass"
if [ -f "$pkg/cutlass_library/source/include/cute/tensor.hpp" ]; then
  echo "install-cutlass: already in $pkg"
  exit 0
fi
if python3 -m pip install --quiet --disable-pip-version-check --no-deps \
    --target "$pkg" nvidia-cutlass==4.2.0; then
  echo "install-cutlass: nvidia-cutlass 4.2.0 installed into $pkg"
else
  echo "install-cutlass: pip install nvidia-cutlass==4.2.0 failed" >&2
  exit 1
fi

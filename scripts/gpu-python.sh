#!/usr/bin/env bash
# GPU workflow for the Python package, on the device machine (it has torch,
# Python 3.12, no LLVM): put the package on the path with the static
# libtilec.so beside it (as `pip install` lays it out), run tests/python
# (the GPU tests run there: tests/python/test_gpu_torch.py) and the launch
# benchmark (bench/python_launch_bench.py). Logs go to $OUT. Here first:
#   BUILD_DIR=build-static-py bash scripts/gpu-build.sh python
# then with the device tool:
#   run command="bash scripts/gpu-python.sh"  carry=[".carry-py"]
set -uo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-/tmp/tilec-python-out}
mkdir -p "$OUT"
site=$(mktemp -d /tmp/tilec-site.XXXXXX)
cp -r "$TILEC_ROOT/python/tilec" "$site/tilec"
xz -dc "$TILEC_ROOT/.carry-py/bin.tar.xz" | tar -C "$site" -xf -
mv "$site/bin/libtilec.so" "$site/tilec/libtilec.so"
unset TILEC_LIBRARY
export PYTHONPATH=$site PYTHONUNBUFFERED=1
export TILEC_CACHE_DIR=$(mktemp -d /tmp/tilec-cache.XXXXXX)
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import sys, torch; print("python", sys.version.split()[0],
    "torch", torch.__version__, "cuda", torch.version.cuda)'
  python3 -c 'import tilec; print("tilec", tilec.__version__, "from",
    tilec.__file__)'
} 2>&1 | tee "$OUT/env.log"
status=0
# conftest.py imports this checkout's python/tilec; give it the library.
export TILEC_LIBRARY=$site/tilec/libtilec.so
python3 -m pytest -q -rs -p no:cacheprovider "$TILEC_ROOT/tests/python" \
  2>&1 | tee "$OUT/pytest.log" || status=1
python3 "$TILEC_ROOT/bench/python_launch_bench.py" --examples \
  "$TILEC_ROOT/examples" 2>&1 | tee "$OUT/bench.log" || status=1
exit $status

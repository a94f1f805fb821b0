#!/usr/bin/env bash
# GPU workflow for the Python package, on the device machine (it has torch,
# Python 3.12, pip, no LLVM and no network): pip-install the wheel from
# .carry-py/ (the static libtilec.so inside; --no-index --no-deps, into a
# --target directory on the path, so the system's torch stays visible), run
# tests/python against the installed package (TILEC_TEST_INSTALLED=1: the
# GPU tests are tests/python/test_gpu_torch.py) and the launch benchmark
# (bench/python_launch_bench.py, with the C API's prepared launch from
# .carry-py/capi_launch_bench) and bench/epilogue_bench.py. With
# FP8_BENCH=1 bench/fp8_block_bench.py (issue 13, about 2-4 minutes, cut at
# 240 s) runs after them; FP8_BENCH=only runs it alone, skipping pytest and
# the other benchmarks (one device call is 600 s at most, so the full set
# plus the fp8 bench may not fit in one). Logs go to $OUT. Here first:
#   BUILD_DIR=build-static-py bash scripts/gpu-build.sh python
# then with the device tool:
#   run command="bash scripts/gpu-python.sh"  carry=[".carry-py"]
#   run command="FP8_BENCH=only bash scripts/gpu-python.sh"  carry=[".carry-py"]
set -uo pipefail
FP8_BENCH=${FP8_BENCH:-0}
case $FP8_BENCH in
  0|1|only) ;;
  *) echo "gpu-python.sh: FP8_BENCH=$FP8_BENCH (legal: 0, 1, only)" >&2
     exit 2 ;;
esac
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-/tmp/tilec-python-out}
mkdir -p "$OUT"
site=$(mktemp -d /tmp/tilec-site.XXXXXX)
wheel=$(ls "$TILEC_ROOT"/.carry-py/tilec-*.whl)
if ! python3 -m pip install --no-deps --no-index --target "$site" "$wheel" \
    >"$OUT/pip.log" 2>&1; then
  cat "$OUT/pip.log"
  exit 1
fi
cat "$OUT/pip.log"
unset TILEC_LIBRARY
export PYTHONPATH=$site PYTHONUNBUFFERED=1 TILEC_TEST_INSTALLED=1
export TILEC_CACHE_DIR=$(mktemp -d /tmp/tilec-cache.XXXXXX)
cd "$site" # nothing of the checkout on the path
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import sys, torch; print("python", sys.version.split()[0],
    "torch", torch.__version__, "cuda", torch.version.cuda)'
  echo "installed: $(basename "$wheel")"
  python3 -c 'import tilec, tilec._lib as l; print("tilec", tilec.__version__,
    "from", tilec.__file__, "library", l.lib._name)'
} 2>&1 | tee "$OUT/env.log"
status=0
if [ "$FP8_BENCH" != only ]; then
  python3 -m pytest -q -rs -p no:cacheprovider "$TILEC_ROOT/tests/python" \
    2>&1 | tee "$OUT/pytest.log" || status=1
  python3 "$TILEC_ROOT/bench/python_launch_bench.py" --examples \
    "$TILEC_ROOT/examples" \
    --capi-bench "$TILEC_ROOT/.carry-py/capi_launch_bench" \
    2>&1 | tee "$OUT/bench.log" || status=1
  python3 "$TILEC_ROOT/bench/epilogue_bench.py" 2>&1 \
    | tee "$OUT/epilogue_bench.log" || status=1
fi
if [ "$FP8_BENCH" != 0 ]; then
  # The bench starts no new shape after 200 s; the timeout is the backstop.
  timeout -k 10 240 python3 "$TILEC_ROOT/bench/fp8_block_bench.py" \
    --budget-s 200 2>&1 | tee "$OUT/fp8_block_bench.log"
  rc=${PIPESTATUS[0]}
  [ "$rc" = 124 ] && echo "fp8_block_bench.py: killed after 240 s" \
    | tee -a "$OUT/fp8_block_bench.log"
  [ "$rc" = 0 ] || status=1
fi
exit $status

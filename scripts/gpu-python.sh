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
# plus the fp8 bench may not fit in one). GROUPED_BENCH=1|only does the
# same for bench/fp8_grouped_bench.py (issue 13's grouped cases, about 1-3
# minutes, no new case after 170 s), and FP8_SWEEP=1|only for
# bench/fp8_block_sweep.py (tile N x stages x schedule of the block-scaled
# kernel against cuBLAS, about 40 s), and DECODE_SWEEP=1|only for
# bench/decode_sweep.py (tile x schedule x stages of the bf16 decode
# programs, bare and fused, against cuBLAS, about 3-5 minutes, no new shape
# after 450 s; DECODE_SWEEP_MATCH=REGEX picks variants), and
# EPILOGUE_COST=1|only for bench/epilogue_cost.py (each epilogue op's cost
# over the bare GEMM at 4096^3, about 1 minute), and W4A16_BENCH=1|only for
# bench/w4a16_bench.py (issue 28: tilec W4A16 against cuBLAS bf16, torch's
# int4 kernel and a device copy, 24 shapes, no new shape after 400 s; its
# rows also as JSON in $OUT/w4a16_bench.json; before it, with "only", the
# W4A16 GPU tests, tests/python/test_gpu_w4a16.py, in
# $OUT/pytest_w4a16.log; BENCH_ARGS="--tiles
# 16x32x128x4,16x64x128x4" sweeps tiles, "--shapes 1x4096x4096,..." picks
# shapes), and TUNE_SWEEP=1|only for bench/tune_sweep.py (issue 29: the
# rules' bf16 program against the tuned one and cuBLAS on the Llama-3 and
# DeepSeek-V3 projections, no new shape after 450 s); any "only" skips
# pytest and the
# other benchmarks. Logs go to $OUT. Here first:
#   BUILD_DIR=build-static-py bash scripts/gpu-build.sh python
# then with the device tool:
#   run command="bash scripts/gpu-python.sh"  carry=[".carry-py"]
#   run command="FP8_BENCH=only bash scripts/gpu-python.sh"  carry=[".carry-py"]
#   run command="GROUPED_BENCH=only bash scripts/gpu-python.sh"  carry=[".carry-py"]
#   run command="W4A16_BENCH=only bash scripts/gpu-python.sh"  carry=[".carry-py"]
set -uo pipefail
FP8_BENCH=${FP8_BENCH:-0}
GROUPED_BENCH=${GROUPED_BENCH:-0}
FP8_SWEEP=${FP8_SWEEP:-0}
DECODE_SWEEP=${DECODE_SWEEP:-0}
EPILOGUE_COST=${EPILOGUE_COST:-0}
W4A16_BENCH=${W4A16_BENCH:-0}
TUNE_SWEEP=${TUNE_SWEEP:-0}
for setting in "FP8_BENCH=$FP8_BENCH" "GROUPED_BENCH=$GROUPED_BENCH" \
    "FP8_SWEEP=$FP8_SWEEP" "DECODE_SWEEP=$DECODE_SWEEP" \
    "EPILOGUE_COST=$EPILOGUE_COST" "W4A16_BENCH=$W4A16_BENCH" \
    "TUNE_SWEEP=$TUNE_SWEEP"; do
  case ${setting#*=} in
    0|1|only) ;;
    *) echo "gpu-python.sh: $setting (legal: 0, 1, only)" >&2
       exit 2 ;;
  esac
done
ONLY=0
case "$FP8_BENCH $GROUPED_BENCH $FP8_SWEEP $DECODE_SWEEP $EPILOGUE_COST \
  $W4A16_BENCH $TUNE_SWEEP" in *only*) ONLY=1 ;; esac
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-/tmp/tilec-python-out}
mkdir -p "$OUT"
site=$(mktemp -d /tmp/tilec-site.XXXXXX)
# WHEEL_DIR picks another carried wheel (a before/after pair, e.g.
# .carry-py-old); BENCH_ARGS are appended to every benchmark below
# (e.g. "--min-m 4096" for the sweep).
WHEEL_DIR=${WHEEL_DIR:-.carry-py}
wheel=$(ls "$TILEC_ROOT/$WHEEL_DIR"/tilec-*.whl)
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
if [ "$ONLY" = 0 ]; then
  python3 -m pytest -q -rs -p no:cacheprovider "$TILEC_ROOT/tests/python" \
    2>&1 | tee "$OUT/pytest.log" || status=1
  python3 "$TILEC_ROOT/bench/python_launch_bench.py" --examples \
    "$TILEC_ROOT/examples" \
    --capi-bench "$TILEC_ROOT/$WHEEL_DIR/capi_launch_bench" \
    2>&1 | tee "$OUT/bench.log" || status=1
  python3 "$TILEC_ROOT/bench/epilogue_bench.py" 2>&1 \
    | tee "$OUT/epilogue_bench.log" || status=1
fi
# run_bench SCRIPT BUDGET [ARGS...]: a benchmark that starts no new shape
# after BUDGET seconds; the timeout, 40 s later, is the backstop.
run_bench() {
  local log="$OUT/${1%.py}.log" limit=$(($2 + 40))
  # shellcheck disable=SC2086  (BENCH_ARGS: words)
  timeout -k 10 "$limit" python3 "$TILEC_ROOT/bench/$1" --budget-s "$2" \
    "${@:3}" ${BENCH_ARGS:-} 2>&1 |
    tee "$log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 124 ] && echo "$1: killed after $limit s" | tee -a "$log"
  [ "$rc" = 0 ] || status=1
}
[ "$FP8_BENCH" != 0 ] && run_bench fp8_block_bench.py 200
[ "$GROUPED_BENCH" != 0 ] && run_bench fp8_grouped_bench.py 170
[ "$FP8_SWEEP" != 0 ] && run_bench fp8_block_sweep.py 200
[ "$DECODE_SWEEP" != 0 ] && run_bench decode_sweep.py 450
[ "$EPILOGUE_COST" != 0 ] && run_bench epilogue_cost.py 200
[ "$TUNE_SWEEP" != 0 ] && run_bench tune_sweep.py 450
if [ "$W4A16_BENCH" = only ]; then
  timeout -k 10 120 python3 -m pytest -q -rs -p no:cacheprovider \
    "$TILEC_ROOT/tests/python/test_gpu_w4a16.py" 2>&1 |
    tee "$OUT/pytest_w4a16.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
[ "$W4A16_BENCH" != 0 ] && run_bench w4a16_bench.py 400 \
  --json "$OUT/w4a16_bench.json"
exit $status

set -u
site=$(mktemp -d); python3 -m pip install -q --no-deps --no-index --target $site .carry-py/tilec-*.whl >/dev/null 2>&1
R=$PWD; export PYTHONPATH=$site TILEC_CACHE_DIR=$(mktemp -d) TILEC_TEST_INSTALLED=1 PYTHONUNBUFFERED=1
cd $site
timeout 150 python3 -m pytest -q -rs -p no:cacheprovider $R/tests/python/test_gpu_tune.py 2>&1 | tail -15 | tee $OUT/pytest_tune.log
timeout 420 python3 $R/bench/tune_sweep.py --fp8 --sfa-m-major --budget-s 370 --tune-s 6 2>&1 | tee $OUT/tune_sweep_fp8.log | tail -40

#!/usr/bin/env bash
# Cross-validation of the simulator against the GPU (issue: the simulator is
# trusted only where the hardware agrees). Runs `tilec run` on every example
# and every .tile of the simulator's GEMM matrix, at the simulator's small
# ragged shapes (--sim-shape), twice per file: small-integer inputs (the
# exact result is the only correct one, so two backends that pass agree bit
# for bit) and random inputs (both within tolerance of the fp64 reference).
# Writes one JSON file per run under OUT, for scripts/crossval_compare.py.
#
#   crossval.sh gpu TILEC OUT   # on the H200 (scripts/gpu-crossval.sh)
#   crossval.sh sim TILEC OUT   # here, in the simulator
set -uo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
backend=$1 tilec=$2 out=$3
mkdir -p "$out"
flag=""
[ "$backend" = sim ] && flag="--sim"
status=0
for tile in "$TILEC_ROOT"/examples/*.tile "$TILEC_ROOT"/tests/sim/gemm/*.tile \
            "$TILEC_ROOT"/tests/sim/mutations/*.tile; do
  name=$(basename "$tile" .tile)
  for mode in integer random; do
    extra="--seed 7"
    [ $mode = integer ] && extra="--seed 11 --integer"
    # shellcheck disable=SC2086
    timeout 900 "$tilec" run $flag --sim-shape $extra --json "$tile" \
      >"$out/$name.$mode.json" 2>"$out/$name.$mode.err" || status=1
    echo "$backend $name $mode: $(grep -c '"pass": true' "$out/$name.$mode.json") passed, $(grep -c '"pass": false' "$out/$name.$mode.json") failed"
  done
done
exit $status

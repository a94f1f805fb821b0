#!/usr/bin/env bash
# tilec's main job: install what is missing, build, then for every program in
# examples/*.tile compile each kernel to PTX with `tilec`, assemble it with
# ptxas for its target, and run every kernel against a CPU reference with
# `tilec run`: on the GPU where there is one, in the PTX simulator elsewhere.
# Finally the saxpy slice: PTX for all three targets, ptxas, and a GPU run
# when there is one.
#
# Environment: BUILD_DIR (default build), OUT_DIR for the PTX (default out/).
set -euo pipefail
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$TILEC_ROOT/build}
OUT_DIR=${OUT_DIR:-$TILEC_ROOT/out}
bash "$TILEC_ROOT/scripts/setup.sh"

tilec=$BUILD_DIR/compiler/tilec/tilec
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
[ -x "$ptxas" ] || ptxas=""
mkdir -p "$OUT_DIR"
status=0

for tile in "$TILEC_ROOT"/examples/*.tile; do
  name=$(basename "$tile" .tile)
  arch=$(awk '$1 == "arch" {print $2; exit}' "$tile")
  if "$tilec" compile "$tile" -o "$OUT_DIR/$name.ptx"; then
    line="compiled $name.tile for $arch -> out/$name.ptx ($(wc -c <"$OUT_DIR/$name.ptx") bytes)"
    if [ -n "$ptxas" ]; then
      if "$ptxas" -arch="$arch" "$OUT_DIR/$name.ptx" -o "$OUT_DIR/$name.cubin"; then
        line="$line, ptxas ok"
      else
        line="$line, ptxas FAILED"; status=1
      fi
    fi
    echo "$line"
  else
    echo "FAILED to compile $name.tile"; status=1
  fi
done

"$BUILD_DIR/examples/saxpy_ptx" "$OUT_DIR" || status=1

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  for tile in "$TILEC_ROOT"/examples/*.tile; do
    "$tilec" run "$tile" || status=1
  done
  "$BUILD_DIR/examples/saxpy" 1000003 || status=1
else
  echo "no GPU here: every example runs in the PTX simulator (tilec run --sim)"
  for tile in "$TILEC_ROOT"/examples/*.tile; do
    "$tilec" run --sim "$tile" || status=1
  done
fi
exit $status

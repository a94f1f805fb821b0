#!/usr/bin/env bash
# On the device machine (with .carry/ from `scripts/gpu-build.sh crossval`):
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck over
# `tilec run` of every example and tests/sim/gemm program at the
# simulator's small ragged shapes (--sim-shape; sm_100a kernels SKIP on a
# Hopper GPU); any report or failed check fails the run (issue 30, item 3).
# SANITIZE_TOOLS picks tools (default all four; one device call holds 600
# s, so two calls of two tools each fit), SANITIZE_JOBS the programs run
# at once (default 4). Logs go to $OUT/sanitize/.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-unpack.sh"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
tools=${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
mkdir -p "$out/sanitize"
export cs bin out
one() { # TOOL PROGRAM: one sanitized run, its log, PASS/FAIL on one line
  local tool=$1 program=$2 name log rc
  name=$(basename "$program" .tile)
  log="$out/sanitize/$tool-$name.log"
  timeout 280 "$cs" --tool "$tool" --error-exitcode 99 \
    "$bin/tilec" run "$program" --sim-shape --seed 1 >"$log" 2>&1
  rc=$?
  # A hazard, error or failed check anywhere makes the run fail.
  if [ $rc -eq 0 ] && grep -qE "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards" "$log" &&
     ! grep -q '^FAIL' "$log"; then
    echo "PASS $tool $name ($(grep -c '^PASS' "$log") kernels checked, $(grep -c '^SKIP' "$log") skipped)"
  else
    echo "FAIL $tool $name (rc $rc): $(grep -E 'ERROR SUMMARY|SUMMARY|^FAIL|Error|error' "$log" | head -3 | tr '\n' ' ')"
  fi
}
export -f one
status=0
# The check can fail: memcheck must report the store past C's rows of the
# mutation row sm80-store-row-bound-removed (tests/sim/mutations), whose
# out-of-bounds store the GPU itself does not fault on.
echo "== memcheck on a known-broken kernel (must report)"
row=$(grep -P '^sm80-store-row-bound-removed\t' "$TILEC_ROOT/tests/sim/mutations/mutations.tsv")
IFS=$'\t' read -r _ tile size pattern replacement _ <<<"$row"
"$bin/tilec" compile "$TILEC_ROOT/$tile" -o "$out/sanitize/broken.ptx"
python3 - "$out/sanitize/broken.ptx" "$pattern" "$replacement" <<'PY'
import re, sys
path, pattern, replacement = sys.argv[1:]
text, n = re.subn(pattern, replacement, open(path).read())
assert n == 1, f"the mutation matched {n} times"
open(path, "w").write(text)
PY
IFS=x read -r m n k <<<"$size"
"$cs" --tool memcheck --error-exitcode 99 "$bin/tilec" run "$TILEC_ROOT/$tile" \
  --ptx "$out/sanitize/broken.ptx" --m "$m" --n "$n" --k "$k" --seed 1 \
  >"$out/sanitize/broken.log" 2>&1
if grep -qE "ERROR SUMMARY: [1-9]" "$out/sanitize/broken.log"; then
  echo "PASS memcheck reports the broken kernel: $(grep -m1 'Invalid' "$out/sanitize/broken.log")"
else
  echo "FAIL memcheck missed the broken kernel"; status=1
fi
for tool in $tools; do
  echo "== $tool"
  ls "$TILEC_ROOT"/examples/*.tile "$TILEC_ROOT"/tests/sim/gemm/*.tile |
    xargs -P "${SANITIZE_JOBS:-4}" -I{} bash -c "one $tool {}" |
    tee "$out/sanitize/$tool.summary"
  grep -q '^FAIL' "$out/sanitize/$tool.summary" && status=1
done
cat "$out"/sanitize/*.summary | awk '{print $1}' | sort | uniq -c
exit $status

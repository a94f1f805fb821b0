#!/usr/bin/env bash
# Assembles the PTX on stdin with ptxas for one target: %ptxas-verify in lit.
# Usage: ptxas-verify.sh PTXAS ARCH [--no-spills]
# With --no-spills it also fails when ptxas -v reports spill stores or loads
# (or a stack frame) for any entry, and prints ptxas -v's lines.
set -euo pipefail
ptxas=$1 arch=$2 spills=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/in.ptx"
if [[ "$spills" != "--no-spills" ]]; then
  "$ptxas" -arch="$arch" "$tmp/in.ptx" -o "$tmp/out.cubin"
  exit 0
fi
"$ptxas" -v -arch="$arch" "$tmp/in.ptx" -o "$tmp/out.cubin" 2>"$tmp/v.txt"
cat "$tmp/v.txt"
if grep -E "[1-9][0-9]* bytes (stack frame|spill stores|spill loads)" \
    "$tmp/v.txt" >/dev/null; then
  echo "ptxas-verify: spills or a stack frame (above)" >&2
  exit 1
fi

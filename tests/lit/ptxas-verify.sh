#!/usr/bin/env bash
# Assembles the PTX on stdin with ptxas for one target: %ptxas-verify in lit.
# Usage: ptxas-verify.sh PTXAS ARCH
set -euo pipefail
ptxas=$1 arch=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/in.ptx"
"$ptxas" -arch="$arch" "$tmp/in.ptx" -o "$tmp/out.cubin"

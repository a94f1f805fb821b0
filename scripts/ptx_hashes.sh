#!/usr/bin/env bash
# The PTX of every kernel of every .tile program in the tree, one sha256
# per kernel and target: the oracle of a code-generation refactor (take the
# hashes before, compare after; a line that moves names the kernel and
# target that changed). A kernel with an `arch` line compiles once, the
# others once per target. A program of several kernels is compiled one
# kernel at a time (sed cuts `kernel NAME {` .. `}` out, as the golden lit
# test does). What does not compile hashes its diagnostics with its exit
# status, so a refactor keeps the refusals too.
#   scripts/ptx_hashes.sh [path/to/tilec] > before.txt
set -euo pipefail
cd "$(dirname "$0")/.."
tilec=$(realpath "${1:-build/compiler/tilec/tilec}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

hash_one() { # FILE LABEL
  local archs=(sm_80 sm_90a sm_100a) arch rc out
  grep -qE '^[[:space:]]*arch[[:space:]]' "$1" && archs=(own)
  for arch in "${archs[@]}"; do
    local flags=()
    [[ $arch == own ]] || flags=(--arch="$arch")
    rc=0
    out=$("$tilec" compile "${flags[@]}" "$1" -o - 2>&1) || rc=$?
    printf '%s  %s %s rc=%d\n' \
      "$(printf '%s' "$out" | sed "s|$1|PROGRAM|g" | sha256sum | cut -c1-16)" \
      "$2" "$arch" "$rc"
  done
}

git ls-files '*.tile' | sort | while read -r program; do
  mapfile -t kernels < <(sed -n 's/^kernel \([A-Za-z0-9_]*\) {.*/\1/p' "$program")
  if (( ${#kernels[@]} <= 1 )); then
    hash_one "$program" "$program"
    continue
  fi
  for kernel in "${kernels[@]}"; do
    sed -n "/^kernel $kernel {/,/^}/p" "$program" > "$work/$kernel.tile"
    hash_one "$work/$kernel.tile" "$program:$kernel"
  done
done

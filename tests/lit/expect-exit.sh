#!/usr/bin/env bash
# Runs a command and succeeds only if it exits with the given code:
# %expect-exit in lit, for the exit-code contract (0, 1 diagnostic, 2 usage).
# Usage: expect-exit.sh CODE COMMAND [ARGS...]
want=$1
shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
  echo "expect-exit: '$*' exited $got, expected $want" >&2
  exit 1
fi

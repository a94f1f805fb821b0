#!/usr/bin/env bash
# Sourced by scripts/setup.sh and scripts/sanitize.sh: installs the Debian
# packages it is given that are not installed yet (apt, idempotent; sudo
# when not root).
#   install_missing_packages PREFIX PACKAGE...
install_missing_packages() {
  local prefix=$1
  shift
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
      grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "$prefix: installing ${missing[*]}"
  local sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
}

# shellcheck shell=bash
# What the qemu checks (boot-check.sh, update-check.sh, raspi-check.sh) need on the build machine, installed
# with apt-get when missing. Sourced, never run.
#
#   host_tools PROG COMMAND:PACKAGE...   for each COMMAND not on the PATH, apt-get installs PACKAGE (as root;
#                                        otherwise "PROG: install ..." and exit 1)
host_tools() {
  local prog="$1" pair need=()
  shift
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
  done
  [ "${#need[@]}" -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || { echo "$prog: install ${need[*]} (or run as root)" >&2; exit 1; }
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
}

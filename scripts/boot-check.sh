#!/usr/bin/env bash
# Prove the board's SD-card image on this machine: boot it in qemu-system-aarch64 (the virt machine, TCG,
# the image's own kernel and initrd, its root from the image file on a write-through virtio disk) and check
#   - the first boot with a good settings file (landsend.toml on the boot partition): the root grown to the
#     "card", the settings applied, the daemon READY (Type=notify) and how long after power-on;
#   - a whole two-hand hand entered through the page's API;
#   - NetworkManager holds the hotspot profile (name and password from the settings file) and the network
#     to join, avahi publishes landsend.local and the page's service;
#   - systemctl --failed is empty, and our units logged no error (but the buttons' missing Pi GPIO in qemu);
#   - N power cuts (SIGKILL of qemu) while commands are being acknowledged: it boots again every time, every
#     acknowledged command is there, none twice;
#   - the table card written onto the boot partition; then a malformed settings file: refused whole, the
#     page says which line, nothing of it applied, the board up;
#   - keep the season: a backup downloaded from the host's phone, a fresh copy of the image booted (a newly
#     flashed card), the backup restored there from the phone (uploaded in pieces, the board starts again on
#     it): every view of the table and the season equal, JSON for JSON, and the phone still the host.
#
#   sudo scripts/boot-check.sh build/landsend-0.1.0-arm64.img             # 3 power cuts
#   sudo scripts/boot-check.sh build/landsend-0.1.0-arm64.img --cuts 30   # the long run
#   options: --port 8780 --ssh-port 8722 --mem 1024 --smp 2 --boot-timeout 900 --work DIR --seed 23
#
# In qemu's virt machine there is no Pi hardware: the good settings file selects the simulated strip
# (strip.driver = "sim"), and the buttons' fault (no Pi GPIO chip) is the one error expected. The image
# is not changed: the check boots a copy (in --work, default /var/tmp/landsend-boot-check, console logs
# kept there). Needs root only to install qemu-system-arm, mtools, fdisk and ssh when missing.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in
  ""|-h|--help) sed -n '2,27p' "$0"; exit 0 ;;
esac
# shellcheck source=scripts/lib/host-tools.sh
. "$here/scripts/lib/host-tools.sh"
host_tools boot-check.sh qemu-system-aarch64:qemu-system-arm mcopy:mtools sfdisk:fdisk ssh:openssh-client
exec python3 "$here/scripts/image/boot_check.py" "$@"

#!/usr/bin/env bash
# Boot the board's SD-card image the Pi's own way, on qemu's Raspberry Pi 3 Model B (raspi3b), and check the
# board's clock, which a Pi does not have while it is off:
#   - the image as the SD card; config.txt's kernel and initrd, cmdline.txt as it is; the Pi 3's device tree
#     from the boot partition with config.txt's overlays applied (fdtoverlay) and what the Pi firmware adds
#     (the board's revision code and serial), and two changes for qemu (no DMA for SPI; the card on the
#     SDHCI controller, as the sdio overlay puts it, since qemu's sdhost model loses interrupts);
#   - the root from mmcblk0, the daemon READY, the board identified as a Pi 3, the buttons on its GPIO chip
#     through lgpio, /dev/spidev0.0 opened by the daemon as the user landsend, the page and a whole hand over
#     qemu's USB networking; what qemu's Pi model lacks (SPI signals, Wi-Fi, sound) is named;
#   - the clock: the board comes up behind; a joined phone sets it; systemd-timesyncd keeps it; after a power
#     cut of hours a phone sets it again and the next game starts a new night with the right date; no event is
#     ever stamped before the one it follows.
#
#   scripts/raspi-check.sh build/landsend-0.1.0-arm64.img
#   options: --port 8790 --ssh-port 8732 --boot-timeout 1500 --work DIR --no-clock
#
# The image is not changed: the check boots a copy (in --work, default /var/tmp/landsend-raspi-check, console
# logs kept there). qemu emulates the Pi 3's four cores in software: the first boot takes minutes. Needs root
# only to install qemu-system-arm, mtools, fdisk, device-tree-compiler and ssh when missing.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in
  ""|-h|--help) sed -n '2,21p' "$0"; exit 0 ;;
esac
# shellcheck source=scripts/lib/host-tools.sh
. "$here/scripts/lib/host-tools.sh"
host_tools raspi-check.sh qemu-system-aarch64:qemu-system-arm mcopy:mtools sfdisk:fdisk ssh:openssh-client fdtoverlay:device-tree-compiler
exec python3 "$here/scripts/image/raspi_check.py" "$@"

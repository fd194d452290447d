#!/usr/bin/env bash
# Prove updates on the board's SD-card image (issue 35 item 5): boot it in qemu as scripts/boot-check.sh does
# (whose Disk, Api and Machine scripts/image/update_check.py imports) and, through the page's API as the host's
# phone does:
#   - play two matches and settle the night, leave a third in play;
#   - a good update: the same code with a bumped version (scripts/build-update.sh in the image's arm64 root),
#     signed by a key this check makes (gpg on this machine, never in the image) and lists in landsend.toml
#     ([update] keys): the board comes back on the new version with every match, night and payment, and the
#     match in play goes on;
#   - a bundle whose daemon exits at start: rolled back by itself, the old version running, nothing lost, the
#     page says why;
#   - refusals with nothing changed: a bad signature, a cut-short bundle, one for another architecture, one
#     older than the running version;
#   - N power cuts (SIGKILL of qemu) during updates, in turn at the upload, the unpacking, the install, the
#     switch and the new daemon's first start, while commands are being acknowledged: the board always boots
#     into a working release, with every acknowledged command.
# Every figure is printed (upload, install, rollback times, each boot after a cut).
#
#   sudo scripts/update-check.sh build/landsend-0.1.0-arm64.img               # 10 power cuts
#   options: --cuts 10 --port 8782 --ssh-port 8724 --mem 1024 --smp 2 --boot-timeout 900 --seed 35
#            --work DIR (default /var/tmp/landsend-update-check) --bundles DIR (the check's keys and bundles,
#            kept between runs; default /var/tmp/landsend-update-check-bundles)
#
# Needs root (build-update.sh's chroot), qemu-system-arm, mtools, fdisk, ssh and gnupg (installed when missing),
# and PyPI (the bundles' wheels). Set IMAGE_CACHE as for the image build: build-update.sh uses its Debian root.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in
  ""|-h|--help) sed -n '2,26p' "$0"; exit 0 ;;
esac
# shellcheck source=scripts/lib/host-tools.sh
. "$here/scripts/lib/host-tools.sh"
host_tools update-check.sh qemu-system-aarch64:qemu-system-arm mcopy:mtools sfdisk:fdisk ssh:openssh-client gpg:gnupg
exec python3 "$here/scripts/image/update_check.py" "$@"

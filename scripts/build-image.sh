#!/usr/bin/env bash
# Build the board's SD-card image: Debian bookworm arm64 (main and non-free-firmware packages only) with
# the project and every Python dependency installed, ready to flash. Nothing is fetched at first boot.
#
#   sudo scripts/build-image.sh                  # -> build/landsend-<version>-arm64.img and .img.xz
#   sudo scripts/build-image.sh --no-xz          # skip the compressed copy (a minute or more on 2 cores)
#   sudo scripts/build-image.sh --fresh          # throw the cached Debian root away first
#   IMAGE_CACHE=/somewhere sudo scripts/build-image.sh --out DIR
#
# Needs root, debootstrap, qemu-user-static (binfmt_misc), dosfstools, mtools, e2fsprogs, fdisk, dtc and
# xz-utils (installed with apt-get when missing), and the Debian and PyPI registries at build time. No
# loop device and no mount of the image: the file systems are made from directories (mkfs.vfat + mcopy,
# mke2fs -d) and put into the image file at the offsets of the partition table. The Debian root with its
# packages is made by scripts/lib/debian-root.sh (shared with scripts/pi-check.sh), cached in $IMAGE_CACHE
# (default /var/tmp/landsend-image-cache) and reused while its spec (`python3 -m firmware.image root-spec`:
# the suite, the debootstrap variant, scripts/image/packages.txt) is unchanged. `python3 -m firmware.image
# plan` lists the whole image: stages, packages, files, partitions. One line per stage with its time;
# non-zero at the first stage that fails. Check the result with scripts/boot-check.sh.
#
# Layout (firmware/image.py, docs/hardware.md): 1 FAT32 "LANDSEND" /boot/firmware (Pi firmware, kernel,
# DTBs, config.txt, landsend.toml, the table card), 2 ext4 landsend-data /var/lib/landsend (the table's
# database), 3 ext4 landsend-root / (grown to the card at first boot).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
out="$here/build"
fresh=no
xz=yes
while [ $# -gt 0 ]; do
  case "$1" in
    --fresh) fresh=yes ;;
    --no-xz) xz=no ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "build-image.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$(id -u)" -eq 0 ] || { echo "build-image.sh: run as root (debootstrap and chroot need it)" >&2; exit 1; }

prog=build-image.sh
cache="${IMAGE_CACHE:-/var/tmp/landsend-image-cache}"
# shellcheck source=scripts/lib/debian-root.sh
. "$here/scripts/lib/debian-root.sh"
trap root_cleanup EXIT
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$here/pyproject.toml" | head -1)
name="landsend-$version-arm64"
mkdir -p "$cache" "$out"

# 1. tools (scripts/lib/debian-root.sh: debootstrap, qemu-user-static, binfmt-support; here what makes the image)
root_tools dosfstools mtools e2fsprogs fdisk device-tree-compiler xz-utils

# 2. the Debian root with every package (scripts/lib/debian-root.sh; cached while its spec is unchanged)
root_base "$fresh"

# 3. a working copy of the root: the project installed with systemd/install.sh, as on a Pi
work="$cache/root-work"
root_work "$work" "$cache/bootfs"
root_install "$work" "$cache/install.log"

# 4. what makes it an image: fstab, boot config, udev rules, SPI overlay, first-boot unit (firmware/image.py)
s=$(date +%s)
image_plan write-root "$work" | sed 's/^/    /'
# shellcheck disable=SC2046
root_run "$work" systemctl enable $(image_plan units) > "$cache/enable.log" 2>&1 \
  || { cat "$cache/enable.log" >&2; fail "systemctl enable failed"; }
# the raspi-firmware hook copies kernel, initrd (Debian's "most" modules: the SD card's and qemu's virtio
# disk) and DTBs to the boot partition and writes config.txt and cmdline.txt from /etc/default/raspi-firmware*
root_run "$work" DEB_MAINT_PARAMS=configure /etc/kernel/postinst.d/z50-raspi-firmware > "$cache/raspi-firmware.log" 2>&1 \
  || { tail -20 "$cache/raspi-firmware.log" >&2; fail "the raspi-firmware hook failed"; }
image_plan write-boot "$cache/bootfs" | sed 's/^/    /'     # the owner's settings (all commented), the SPI overlay
stage "image configuration done in $(( $(date +%s) - s )) s"

# 5. static checks of the hardware access (no Pi here): DTBs with the overlay, modules, udev rules, config.txt
s=$(date +%s)
image_plan check-root "$work" "$cache/bootfs" | sed 's/^/    /' || fail "static hardware checks failed"
stage "hardware checks passed in $(( $(date +%s) - s )) s"

# 6. clean up what the build left and what must be made per board (machine id, ssh host keys, Wi-Fi password)
root_unbind_all   # the pip cache, the boot files, dev, sys, proc
image_plan clean-root "$work" | sed 's/^/    /'

# 7. file systems from directories, then the image file: partition table + each file system at its offset
s=$(date +%s)
rm -rf "$cache/parts"; mkdir -p "$cache/parts/data"
if [ -d "$work/var/lib/landsend" ]; then      # the data partition's files (none yet: the daemon makes them)
  cp -a "$work/var/lib/landsend/." "$cache/parts/data/"
  find "$work/var/lib/landsend" -mindepth 1 -delete
fi
eval "$(image_plan layout "$work")"     # sets boot_mib data_mib root_mib total_mib and the offsets
mkfs.vfat -F 32 -n LANDSEND -C "$cache/parts/boot.img" $(( boot_mib * 1024 )) >/dev/null
mcopy -s -p -i "$cache/parts/boot.img" "$cache/bootfs/"* ::/
mke2fs -q -t ext4 -L landsend-data -d "$cache/parts/data" "$cache/parts/data.img" "${data_mib}M" >/dev/null
mke2fs -q -t ext4 -L landsend-root -d "$work" "$cache/parts/root.img" "${root_mib}M" >/dev/null
img="$out/$name.img"
rm -f "$img" "$img.xz"
truncate -s "${total_mib}M" "$img"
image_plan sfdisk "$work" | sfdisk -q "$img" >/dev/null
dd if="$cache/parts/boot.img" of="$img" bs=1M seek="$boot_start_mib" conv=notrunc,sparse status=none
dd if="$cache/parts/data.img" of="$img" bs=1M seek="$data_start_mib" conv=notrunc,sparse status=none
dd if="$cache/parts/root.img" of="$img" bs=1M seek="$root_start_mib" conv=notrunc,sparse status=none
rm -rf "$cache/parts"
stage "image $img: ${total_mib} MiB (boot ${boot_mib}, data ${data_mib}, root ${root_mib} MiB) in $(( $(date +%s) - s )) s"
sfdisk -l "$img" | sed -n '/Device/,$p' | sed 's/^/    /'

# 8. the compressed copy for flashing (Raspberry Pi Imager and balenaEtcher read .img.xz directly)
if [ "$xz" = yes ]; then
  s=$(date +%s)
  xz -T0 -3 -k -f "$img"
  stage "compressed $img.xz: $(( $(stat -c %s "$img.xz") / 1048576 )) MiB in $(( $(date +%s) - s )) s"
fi
stage "build-image passed in $(( $(date +%s) - t0 )) s: $img"

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
# packages is cached in $IMAGE_CACHE (default /var/tmp/landsend-image-cache) and reused while
# scripts/image/packages.txt is unchanged. One line per stage with its time; non-zero at the first
# stage that fails. Check the result with scripts/boot-check.sh.
#
# Layout (firmware/image.py, docs/hardware.md): 1 FAT32 "LANDSEND" /boot/firmware (Pi firmware, kernel,
# DTBs, config.txt, landsend.toml, the table card), 2 ext4 landsend-data /var/lib/landsend (the table's
# database), 3 ext4 landsend-root / (grown to the card at first boot).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
cache="${IMAGE_CACHE:-/var/tmp/landsend-image-cache}"
mirror="${IMAGE_MIRROR:-http://deb.debian.org/debian}"
out="$here/build"
fresh=no
xz=yes
while [ $# -gt 0 ]; do
  case "$1" in
    --fresh) fresh=yes ;;
    --no-xz) xz=no ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "build-image.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$(id -u)" -eq 0 ] || { echo "build-image.sh: run as root (debootstrap and chroot need it)" >&2; exit 1; }

t0=$(date +%s)
stage() { echo "==> [$(( $(date +%s) - t0 )) s] $*"; }
fail() { echo "build-image.sh: $*" >&2; exit 1; }
plan() { PYTHONPATH="$here" python3 -m firmware.image "$@"; }
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$here/pyproject.toml" | head -1)
name="landsend-$version-arm64"

# 1. tools
need=()
for pkg in debootstrap qemu-user-static binfmt-support dosfstools mtools e2fsprogs fdisk device-tree-compiler xz-utils; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
  stage "installing ${need[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
fi
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || update-binfmts --import qemu-aarch64
fi
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || fail "qemu-aarch64 is not registered in binfmt_misc"

base="$cache/root-base"
work="$cache/root-work"
mkdir -p "$cache" "$out"
mounted=()
cleanup() {
  set +e
  for ((i=${#mounted[@]}-1; i>=0; i--)); do umount -l "${mounted[$i]}"; done
}
trap cleanup EXIT
bind_system() {   # proc, sys, dev into a root for chroot
  local r="$1" fs
  for fs in proc sys dev dev/pts; do
    mountpoint -q "$r/$fs" && continue
    case "$fs" in
      proc) mount -t proc proc "$r/proc" ;;
      sys) mount -t sysfs sys "$r/sys" ;;
      *) mount --bind "/$fs" "$r/$fs" ;;
    esac
    mounted+=("$r/$fs")
  done
}
unbind_all() {
  local i
  for ((i=${#mounted[@]}-1; i>=0; i--)); do umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" || true; done
  mounted=()
}
in_root() { chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive "${@:2}"; }

# 2. the Debian root with every package (cached while packages.txt is unchanged)
packages=$(sed -e 's/#.*//' "$here/scripts/image/packages.txt" | xargs)
want_stamp=$(echo "bookworm $packages" | sha256sum | cut -c1-16)
if [ "$fresh" = yes ]; then stage "removing the cached root $base"; rm -rf "$base" "$work"; fi
if [ "$(cat "$base/.landsend-image-root" 2>/dev/null)" != "$want_stamp" ]; then
  rm -rf "$base"
  stage "debootstrap bookworm arm64 (minbase) into $base (minutes under emulation)"
  s=$(date +%s)
  debootstrap --arch=arm64 --variant=minbase --components=main,non-free-firmware \
    --include=ca-certificates bookworm "$base" "$mirror" > "$cache/debootstrap.log" 2>&1 \
    || { tail -20 "$cache/debootstrap.log" >&2; fail "debootstrap failed (log: $cache/debootstrap.log)"; }
  stage "minbase root in $(( $(date +%s) - s )) s; installing $(wc -w <<<"$packages") packages"
  s=$(date +%s)
  printf '#!/bin/sh\nexit 101\n' > "$base/usr/sbin/policy-rc.d"; chmod +x "$base/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$base/etc/resolv.conf"
  echo "deb $mirror bookworm main non-free-firmware" > "$base/etc/apt/sources.list"
  echo "deb $mirror bookworm-updates main non-free-firmware" >> "$base/etc/apt/sources.list"
  # raspi-firmware's kernel hook copies the kernel, initrd and DTBs only into a mounted /boot/firmware
  mkdir -p "$base/boot/firmware" "$cache/bootfs-base"
  bind_system "$base"
  mount --bind "$cache/bootfs-base" "$base/boot/firmware"; mounted+=("$base/boot/firmware")
  in_root "$base" apt-get update -q > "$cache/apt.log" 2>&1 || { tail -20 "$cache/apt.log" >&2; fail "apt-get update failed"; }
  # one initrd, made once after every package is in: apt would make it for the kernel and again for each later
  # trigger, and each takes the best part of an hour under emulation on a busy 2-core machine
  in_root "$base" dpkg-divert --quiet --local --rename --add /usr/sbin/update-initramfs
  ln -sf /bin/true "$base/usr/sbin/update-initramfs"
  # shellcheck disable=SC2086
  in_root "$base" apt-get install -y -q --no-install-recommends $packages >> "$cache/apt.log" 2>&1 \
    || { tail -30 "$cache/apt.log" >&2; fail "apt-get install failed (log: $cache/apt.log)"; }
  rm -f "$base/usr/sbin/update-initramfs"
  in_root "$base" dpkg-divert --quiet --local --rename --remove /usr/sbin/update-initramfs
  stage "packages in after $(( $(date +%s) - s )) s; making the initrd (Debian's 'most' modules)"
  in_root "$base" update-initramfs -c -k all >> "$cache/apt.log" 2>&1 \
    || { tail -30 "$cache/apt.log" >&2; fail "update-initramfs failed (log: $cache/apt.log)"; }
  in_root "$base" apt-get clean
  unbind_all
  # the boot files the packages put there live with the root from here on
  mkdir -p "$base/boot/firmware.pkg"
  cp -a "$cache/bootfs-base/." "$base/boot/firmware.pkg/"
  rm -rf "$cache/bootfs-base"
  echo "$want_stamp" > "$base/.landsend-image-root"
  stage "packages installed in $(( $(date +%s) - s )) s ($(du -sm "$base" | cut -f1) MB)"
else
  stage "reusing the cached Debian root $base"
fi

# 3. a working copy of the root: the project installed with systemd/install.sh, as on a Pi
s=$(date +%s)
rm -rf "$work" "$cache/bootfs"
cp -a "$base" "$work"
mkdir -p "$cache/bootfs" "$cache/pip"
cp -a "$work/boot/firmware.pkg/." "$cache/bootfs/"
rm -rf "$work/boot/firmware.pkg"
bind_system "$work"
mount --bind "$cache/bootfs" "$work/boot/firmware"; mounted+=("$work/boot/firmware")
mkdir -p "$work/root/.cache/pip"
mount --bind "$cache/pip" "$work/root/.cache/pip"; mounted+=("$work/root/.cache/pip")   # wheels kept between builds
cp /etc/ssl/certs/ca-certificates.crt "$work/etc/ssl/certs/build-host-ca.crt"
stage "working root copied in $(( $(date +%s) - s )) s"
s=$(date +%s)
mkdir -p "$work/tmp/landsend-src"
tar -C "$here" --exclude=.git --exclude=.venv --exclude=__pycache__ --exclude='*.egg-info' --exclude=.pytest_cache \
  --exclude=node_modules --exclude=.cache --exclude=./build --exclude=.hypothesis -cf - . | tar -C "$work/tmp/landsend-src" -xf -
in_root "$work" PIP_CERT=/etc/ssl/certs/build-host-ca.crt bash /tmp/landsend-src/systemd/install.sh \
  > "$cache/install.log" 2>&1 || { tail -30 "$cache/install.log" >&2; fail "install.sh failed (log: $cache/install.log)"; }
grep -E '^(==>|install.sh:|note:)' "$cache/install.log" | sed 's/^/    /' || true
stage "install.sh done in $(( $(date +%s) - s )) s"

# 4. what makes it an image: fstab, boot config, udev rules, SPI overlay, first-boot unit (firmware/image.py)
s=$(date +%s)
plan write-root "$work" | sed 's/^/    /'
install -m 0644 "$here/systemd/landsend-setup.service" "$work/etc/systemd/system/landsend-setup.service"
in_root "$work" systemctl enable landsend-setup.service landsend.service NetworkManager.service avahi-daemon.service \
  ssh.service > "$cache/enable.log" 2>&1 || { cat "$cache/enable.log" >&2; fail "systemctl enable failed"; }
# the raspi-firmware hook copies kernel, initrd (Debian's "most" modules: the SD card's and qemu's virtio
# disk) and DTBs to the boot partition and writes config.txt and cmdline.txt from /etc/default/raspi-firmware*
in_root "$work" DEB_MAINT_PARAMS=configure /etc/kernel/postinst.d/z50-raspi-firmware > "$cache/raspi-firmware.log" 2>&1 \
  || { tail -20 "$cache/raspi-firmware.log" >&2; fail "the raspi-firmware hook failed"; }
mkdir -p "$cache/bootfs/overlays"
dtc -q -@ -I dts -O dtb -o "$cache/bootfs/overlays/landsend-spi.dtbo" "$here/scripts/image/landsend-spi.dts"
install -m 0644 "$here/scripts/image/landsend.toml" "$cache/bootfs/landsend.toml"     # the owner's settings, all commented
stage "image configuration done in $(( $(date +%s) - s )) s"

# 5. static checks of the hardware access (no Pi here): DTBs with the overlay, modules, udev rules, config.txt
s=$(date +%s)
plan check-root "$work" "$cache/bootfs" | sed 's/^/    /' || fail "static hardware checks failed"
stage "hardware checks passed in $(( $(date +%s) - s )) s"

# 6. clean up what the build left and what must be made per board (machine id, ssh host keys, Wi-Fi password)
unbind_all        # the pip cache, the boot files, dev, sys, proc
plan clean-root "$work" | sed 's/^/    /'

# 7. file systems from directories, then the image file: partition table + each file system at its offset
s=$(date +%s)
rm -rf "$cache/parts"; mkdir -p "$cache/parts/data"
if [ -d "$work/var/lib/landsend" ]; then      # the data partition's files (none yet: the daemon makes them)
  cp -a "$work/var/lib/landsend/." "$cache/parts/data/"
  find "$work/var/lib/landsend" -mindepth 1 -delete
fi
eval "$(plan layout "$work")"     # sets boot_mib data_mib root_mib total_mib and the offsets
mkfs.vfat -F 32 -n LANDSEND -C "$cache/parts/boot.img" $(( boot_mib * 1024 )) >/dev/null
mcopy -s -p -i "$cache/parts/boot.img" "$cache/bootfs/"* ::/
mke2fs -q -t ext4 -L landsend-data -d "$cache/parts/data" "$cache/parts/data.img" "${data_mib}M" >/dev/null
mke2fs -q -t ext4 -L landsend-root -d "$work" "$cache/parts/root.img" "${root_mib}M" >/dev/null
img="$out/$name.img"
rm -f "$img" "$img.xz"
truncate -s "${total_mib}M" "$img"
plan sfdisk "$work" | sfdisk -q "$img" >/dev/null
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

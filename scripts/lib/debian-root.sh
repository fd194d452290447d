# shellcheck shell=bash
# The one Debian root: the steps scripts/build-image.sh (the SD-card image) and scripts/pi-check.sh (the proof
# of systemd/install.sh) share. Sourced, never run: both scripts make the same cached Debian bookworm arm64
# root with the image's packages, take a working copy of it and run install.sh there exactly as on a Pi;
# then each does its own part (the image: boot files and partitions; pi-check: NetworkManager, polkit, the
# page). A script that builds on these (a Wi-Fi check, an update or backup check) sources this file too.
#
# The caller sets, before sourcing:
#   here    the checkout (the project's top folder)
#   prog    its own name, for messages ("pi-check.sh")
#   cache   where the Debian root is kept ($IMAGE_CACHE, default /var/tmp/landsend-image-cache)
# and, after sourcing, `trap root_cleanup EXIT` (or a trap of its own that calls root_unbind_all).
#
# What the root is made of is data, not this file: `python3 -m firmware.image root-spec` prints the suite,
# architecture, debootstrap variant, components and the package list (scripts/image/packages.txt), and
# `python3 -m firmware.image plan` prints the whole image. The root is rebuilt when that spec changes.
#
# Functions (each stops the script with a message and the log's tail when a step fails):
#   stage MSG                    one line, "==> [seconds since the start] MSG"
#   fail MSG                     "$prog: MSG" on stderr, exit 1
#   image_plan ARGS...           python3 -m firmware.image ARGS (this machine's Python, standard library only)
#   root_tools [PKG...]          apt-get installs what is missing of debootstrap, qemu-user-static,
#                                binfmt-support and PKG..., and registers qemu-aarch64 in binfmt_misc
#   root_run ROOT CMD...         CMD in the chroot ROOT with a clean environment (VAR=value words allowed first)
#   root_bind_system ROOT        proc, sys, dev and dev/pts of this machine into ROOT (for chroot)
#   root_bind SRC DEST           a bind mount, released by root_unbind_all
#   root_unbind_all, root_cleanup  release every mount made here, last first
#   root_base [fresh]            the cached root $cache/root-base: debootstrap + the image's packages + one initrd,
#                                reused while its spec is unchanged (fresh=yes: thrown away first); sets ROOT_BASE
#   root_work WORK BOOTFS        WORK becomes a fresh copy of ROOT_BASE, its boot files copied to BOOTFS and
#                                mounted at WORK/boot/firmware, pip's cache kept in $cache/pip, this
#                                machine's CA bundle at /etc/ssl/certs/build-host-ca.crt (for pip behind
#                                a proxy that re-signs TLS), proc/sys/dev bound
#   root_copy_source WORK [SRC]  a copy of the checkout (or SRC) in WORK/tmp/landsend-src
#   root_install WORK LOG        a copy of the checkout in WORK/tmp/landsend-src and systemd/install.sh run from it
#                                in the chroot (its log in LOG, its own "==>" lines echoed)

mirror="${IMAGE_MIRROR:-http://deb.debian.org/debian}"
t0=${t0:-$(date +%s)}
root_mounts=()

stage() { echo "==> [$(( $(date +%s) - t0 )) s] $*"; }
fail() { echo "$prog: $*" >&2; exit 1; }
image_plan() { PYTHONPATH="$here" python3 -m firmware.image "$@"; }

root_tools() {
  local need=() pkg
  for pkg in debootstrap qemu-user-static binfmt-support "$@"; do
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
}

root_run() { chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive "${@:2}"; }

root_bind_system() {
  local r="$1" fs
  for fs in proc sys dev dev/pts; do
    mountpoint -q "$r/$fs" && continue
    case "$fs" in
      proc) mount -t proc proc "$r/proc" ;;
      sys) mount -t sysfs sys "$r/sys" ;;
      *) mount --bind "/$fs" "$r/$fs" ;;
    esac
    root_mounts+=("$r/$fs")
  done
}

root_bind() { mkdir -p "$2"; mount --bind "$1" "$2"; root_mounts+=("$2"); }

root_unbind_all() {
  local i
  for ((i=${#root_mounts[@]}-1; i>=0; i--)); do
    umount "${root_mounts[$i]}" 2>/dev/null || umount -l "${root_mounts[$i]}" || true
  done
  root_mounts=()
}

root_cleanup() { set +e; root_unbind_all; }

root_base() {
  local fresh="${1:-no}" spec want s
  ROOT_BASE="$cache/root-base"
  mkdir -p "$cache"
  spec=$(image_plan root-spec) || fail "python3 -m firmware.image root-spec failed"
  eval "$spec"      # suite arch variant components include packages
  want=$(sha256sum <<<"$spec" | cut -c1-16)
  if [ "$fresh" = yes ]; then stage "removing the cached root $ROOT_BASE"; rm -rf "$ROOT_BASE"; fi
  if [ "$(cat "$ROOT_BASE/.landsend-image-root" 2>/dev/null)" = "$want" ]; then
    stage "reusing the cached Debian root $ROOT_BASE"
    return 0
  fi
  rm -rf "$ROOT_BASE"
  stage "debootstrap $suite $arch ($variant) into $ROOT_BASE (minutes under emulation)"
  s=$(date +%s)
  debootstrap --arch="$arch" --variant="$variant" --components="$components" --include="$include" \
    "$suite" "$ROOT_BASE" "$mirror" > "$cache/debootstrap.log" 2>&1 \
    || { tail -20 "$cache/debootstrap.log" >&2; fail "debootstrap failed (log: $cache/debootstrap.log)"; }
  stage "$variant root in $(( $(date +%s) - s )) s; installing $(wc -w <<<"$packages") packages"
  s=$(date +%s)
  printf '#!/bin/sh\nexit 101\n' > "$ROOT_BASE/usr/sbin/policy-rc.d"     # no service starts inside the chroot
  chmod +x "$ROOT_BASE/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$ROOT_BASE/etc/resolv.conf"
  printf 'deb %s %s %s\ndeb %s %s-updates %s\n' "$mirror" "$suite" "${components//,/ }" \
    "$mirror" "$suite" "${components//,/ }" > "$ROOT_BASE/etc/apt/sources.list"
  # raspi-firmware's kernel hook copies the kernel, initrd and DTBs only into a mounted /boot/firmware
  rm -rf "$cache/bootfs-base"; mkdir -p "$cache/bootfs-base"
  root_bind_system "$ROOT_BASE"
  root_bind "$cache/bootfs-base" "$ROOT_BASE/boot/firmware"
  root_run "$ROOT_BASE" apt-get update -q > "$cache/apt.log" 2>&1 \
    || { tail -20 "$cache/apt.log" >&2; fail "apt-get update failed (log: $cache/apt.log)"; }
  # one initrd, made once after every package is in: apt would make it for the kernel and again for each later
  # trigger, and each takes the best part of an hour under emulation on a busy 2-core machine
  root_run "$ROOT_BASE" dpkg-divert --quiet --local --rename --add /usr/sbin/update-initramfs
  ln -sf /bin/true "$ROOT_BASE/usr/sbin/update-initramfs"
  # shellcheck disable=SC2086
  root_run "$ROOT_BASE" apt-get install -y -q --no-install-recommends $packages >> "$cache/apt.log" 2>&1 \
    || { tail -30 "$cache/apt.log" >&2; fail "apt-get install failed (log: $cache/apt.log)"; }
  rm -f "$ROOT_BASE/usr/sbin/update-initramfs"
  root_run "$ROOT_BASE" dpkg-divert --quiet --local --rename --remove /usr/sbin/update-initramfs
  stage "packages in after $(( $(date +%s) - s )) s; making the initrd (Debian's 'most' modules)"
  root_run "$ROOT_BASE" update-initramfs -c -k all >> "$cache/apt.log" 2>&1 \
    || { tail -30 "$cache/apt.log" >&2; fail "update-initramfs failed (log: $cache/apt.log)"; }
  root_run "$ROOT_BASE" apt-get clean
  root_unbind_all
  # the boot files the packages put there live with the root from here on (root_work copies them out)
  mkdir -p "$ROOT_BASE/boot/firmware.pkg"
  cp -a "$cache/bootfs-base/." "$ROOT_BASE/boot/firmware.pkg/"
  rm -rf "$cache/bootfs-base"
  echo "$want" > "$ROOT_BASE/.landsend-image-root"
  stage "packages installed in $(( $(date +%s) - s )) s ($(du -sm "$ROOT_BASE" | cut -f1) MB)"
}

root_work() {
  local work="$1" bootfs="$2" s
  s=$(date +%s)
  rm -rf "$work" "$bootfs"
  cp -a "$ROOT_BASE" "$work"
  mkdir -p "$bootfs" "$cache/pip"
  cp -a "$work/boot/firmware.pkg/." "$bootfs/"
  rm -rf "$work/boot/firmware.pkg"
  root_bind_system "$work"
  root_bind "$bootfs" "$work/boot/firmware"
  root_bind "$cache/pip" "$work/root/.cache/pip"          # wheels kept between runs
  cp /etc/ssl/certs/ca-certificates.crt "$work/etc/ssl/certs/build-host-ca.crt"
  stage "working root $work copied in $(( $(date +%s) - s )) s ($(root_run "$work" uname -m), $(root_run "$work" python3 --version))"
}

root_copy_source() {
  local work="$1" from="${2:-$here}"
  rm -rf "$work/tmp/landsend-src"
  mkdir -p "$work/tmp/landsend-src"
  tar -C "$from" --exclude=.git --exclude=.venv --exclude=__pycache__ --exclude='*.egg-info' --exclude=.pytest_cache \
    --exclude=node_modules --exclude=.cache --exclude=./build --exclude=.hypothesis -cf - . | tar -C "$work/tmp/landsend-src" -xf -
}

root_install() {
  local work="$1" log="$2" s
  s=$(date +%s)
  root_copy_source "$work"
  root_run "$work" PIP_CERT=/etc/ssl/certs/build-host-ca.crt bash /tmp/landsend-src/systemd/install.sh \
    > "$log" 2>&1 || { tail -30 "$log" >&2; fail "install.sh failed (log: $log)"; }
  grep -E '^(==>|install.sh:|note:)' "$log" | sed 's/^/    /' || true
  stage "install.sh done in $(( $(date +%s) - s )) s"
}

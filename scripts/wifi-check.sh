#!/usr/bin/env bash
# Prove the board's Wi-Fi in its own SD-card image on simulated radios: boot a copy of the image in qemu's
# virt machine (like scripts/boot-check.sh: TCG, the image's own kernel and initrd, write-through virtio disk),
# load the kernel's mac80211_hwsim with three radios (the board's, a phone's, a home network's: real 802.11
# frames, WPA2 and all, between them), put the phone's and the home network's radios in their own network
# namespaces (`iw phy ... set netns name ...`), and check, through NetworkManager as the board runs it:
#   - a landsend.toml naming a network that is not there: the board's own Wi-Fi comes up and the page says so;
#   - a phone joins the board's own Wi-Fi with nothing but the table card (the card's WIFI: QR code decoded
#     from landsend-card.svg on the boot partition): WPA2, an address from the board, DNS, the captive-portal
#     probes of Android, Apple and Windows redirected to the page, a join and a whole two-hand hand over that
#     Wi-Fi; a wrong password is refused (never an address); a phone joining and leaving 20 times;
#   - the page's Wi-Fi screen from the host's phone: scan (the home network listed with its signal), a wrong
#     password (refused, the board's own Wi-Fi back, the phone reaching the board), the right one (the trial's
#     address, the board back on its own Wi-Fi), move (on the home network at the address the page said);
#   - the home network from landsend.toml at boot (hostapd + a DHCP server in the home namespace): a phone there
#     reaches the page at the board's address and at landsend.local (mDNS); the home access point goes away:
#     the time until the board's own Wi-Fi is up; it comes back: what the board does.
# Every figure is printed: power-on to the hotspot up, to the phone's address, to the captive redirect; the
# fall-back time; power-on to the home network.
#
#   sudo scripts/wifi-check.sh /var/tmp/lec-wifi/out/landsend-0.1.0-arm64.img
#   options: --port 8781 --ssh-port 8723 --mem 1024 --smp 2 --boot-timeout 900 --work DIR --joins 20
#
# Test-only tools never go into the image: hostapd and a DHCP client (udhcpc) are fetched as arm64 packages
# with apt-get in a throw-away overlay of the cached Debian root ($IMAGE_CACHE/root-base, made by
# scripts/build-image.sh; kept in $IMAGE_CACHE/wifi-check-debs) and installed over SSH into the booted copy
# only. The image file is not changed. Needs root for that chroot and to install qemu-system-arm, mtools,
# fdisk, ssh, debootstrap and qemu-user-static when missing.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
prog=wifi-check.sh
case "${1:-}" in
  ""|-h|--help) sed -n '2,31p' "$0"; exit 0 ;;
esac
cache="${IMAGE_CACHE:-/var/tmp/landsend-image-cache}"
[ "$(id -u)" -eq 0 ] || { echo "$prog: run as root (a chroot fetches the test-only packages)" >&2; exit 1; }
# shellcheck source=scripts/lib/debian-root.sh
. "$here/scripts/lib/debian-root.sh"
overlay=""
cleanup() { set +e; root_unbind_all; [ -n "$overlay" ] && { umount "$overlay/root" 2>/dev/null; rm -rf "$overlay"; }; }
trap cleanup EXIT
root_tools qemu-system-arm mtools fdisk openssh-client

# the test-only packages: what the phone and the home network need beyond the image (wpa_supplicant, dnsmasq,
# iw and python3 are in it already), with their dependencies the image lacks
debs="$cache/wifi-check-debs"
tools="hostapd udhcpc"
if [ "$(cat "$debs/.tools" 2>/dev/null)" != "$tools" ]; then
  [ -f "$cache/root-base/.landsend-image-root" ] || fail "no cached Debian root in $cache (run scripts/build-image.sh first)"
  stage "fetching $tools (arm64) in an overlay of $cache/root-base"
  overlay=$(mktemp -d /var/tmp/wifi-check-root.XXXXXX)
  mkdir -p "$overlay/upper" "$overlay/work" "$overlay/root"
  mount -t overlay overlay -o "lowerdir=$cache/root-base,upperdir=$overlay/upper,workdir=$overlay/work" "$overlay/root"
  cp /etc/resolv.conf "$overlay/root/etc/resolv.conf"
  root_bind_system "$overlay/root"
  rm -f "$overlay/root/var/cache/apt/archives/"*.deb
  # shellcheck disable=SC2086
  root_run "$overlay/root" apt-get install -y -q --download-only --no-install-recommends $tools \
    > "$overlay/apt.log" 2>&1 || { tail -20 "$overlay/apt.log" >&2; fail "apt-get could not fetch $tools"; }
  rm -rf "$debs"; mkdir -p "$debs"
  cp "$overlay/root/var/cache/apt/archives/"*.deb "$debs/"
  echo "$tools" > "$debs/.tools"
  root_unbind_all
  umount "$overlay/root"; rm -rf "$overlay"; overlay=""
fi
stage "test-only packages: $(cd "$debs" && ls -- *.deb | tr '\n' ' ')"
exec python3 "$here/scripts/image/wifi_check.py" --debs "$debs" "$@"

#!/usr/bin/env bash
# Install or update Land's End on a Raspberry Pi (Raspberry Pi OS Bookworm or later).
#
#   sudo systemd/install.sh                # from a checkout of the project
#   sudo systemd/install.sh --hostname     # also name the Pi "landsend" (http://landsend.local)
#   systemd/install.sh --root DIR          # stage: write every file under DIR, only print system commands
#
# Idempotent: run it again after `git pull` to update. It
#   1. installs python3-venv, python3-dev and build-essential (pip compiles spidev and rpi-ws281x),
#      python3-lgpio (GPIO for gpiozero), avahi-daemon, and espeak-ng + alsa-utils (the board's voice:
#      the speech engine and aplay) and network-manager (the board's Wi-Fi; Raspberry Pi OS Bookworm has it)
#      when missing; where apt has no python3-lgpio
#      (plain Debian or Ubuntu: it comes from Raspberry Pi OS's repository) it says so and puts the
#      lgpio wheel from PyPI into the venv instead,
#   2. creates the system user `landsend` in the gpio, spi and audio groups (audio: /dev/snd/*),
#   3. enables SPI (dtparam=spi=on) in the boot config (a reboot is needed the first time),
#   4. copies the source to /opt/landsend/src and installs it and its compiled play-out (native/: pip compiles
#      it with build-essential and python3-dev) into its own release folder (a venv)
#      /opt/landsend/releases/<version>, then points /opt/landsend/current at it (one rename; the units run
#      current, and a signed update from the host's phone installs its release beside it: firmware/update.py),
#   5. writes /etc/landsend/config.toml from the defaults unless it exists (yours is never overwritten),
#      and checks it: a refused config stops the install before the daemon is restarted,
#   6. installs the systemd units (the daemon; the update's root unit, its path unit and its boot step), the
#      release key updates are checked with (/usr/share/keyrings/landsend-release.gpg), the avahi service, and
#      a D-Bus policy that lets the user landsend ask avahi for the board's own name again (firmware/mdns.py),
#   7. sets up the board's own Wi-Fi (NetworkManager, installed in step 1): /etc/landsend/wifi.toml with its
#      name ("Lands End 4F2A", after the board) and a password made now (kept on later runs), the
#      hotspot profile landsend-hotspot, a dnsmasq drop-in that resolves every name to the board on that
#      Wi-Fi, and a polkit rule that lets the user landsend bring it up and join networks, nothing else,
#   8. (re)starts the daemon (in a chroot or an image build, where systemd is not running, it only
#      enables the unit for the next boot).
# With --root DIR nothing outside DIR changes and root is not needed: the files of steps 3-7 go
# under DIR, and every command that changes the running system (apt-get, groupadd, useradd,
# usermod, the venv and pip, hostnamectl, systemctl) is printed as "would run: ..." instead.
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
root=""
set_hostname=no
while [ $# -gt 0 ]; do
  case "$1" in
    --hostname) set_hostname=yes ;;
    --root)
      [ $# -ge 2 ] && [ -n "$2" ] || { echo "install.sh: --root needs a directory" >&2; exit 2; }
      root="$(mkdir -p "$2" && cd "$2" && pwd)"; shift ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$root" ] && [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: run as root (sudo $0)" >&2
  exit 1
fi
prefix="$root/opt/landsend"
etc="$root/etc/landsend"
user=landsend
say() { echo "==> $*"; }
# run a command that changes the running system (printed instead when staging)
sys() {
  if [ -n "$root" ]; then echo "would run: $*"; else "$@"; fi
}

# 1. packages (spidev and rpi-ws281x have no wheels for the Pi on PyPI: pip compiles them, which needs
#    a C compiler and the Python headers)
missing=()
for pkg in python3-venv python3-dev build-essential python3-lgpio avahi-daemon espeak-ng alsa-utils network-manager; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sys apt-get update -q
fi
# python3-lgpio comes only from Raspberry Pi OS's own repository: on plain Debian or Ubuntu apt has no
# candidate for it, so it is left out here and the lgpio wheel from PyPI goes into the venv (step 4)
lgpio_from_pip=no
want_lgpio=no
for pkg in "${missing[@]}"; do [ "$pkg" = python3-lgpio ] && want_lgpio=yes; done
if [ "$want_lgpio" = yes ] && ! apt-cache policy python3-lgpio 2>/dev/null | grep -E 'Candidate: [0-9]' >/dev/null; then
  lgpio_from_pip=yes
  kept=()
  for pkg in "${missing[@]}"; do [ "$pkg" = python3-lgpio ] || kept+=("$pkg"); done
  missing=("${kept[@]+"${kept[@]}"}")
  echo "note: python3-lgpio is not in this system's apt sources (it comes from Raspberry Pi OS's own" \
       "repository, which plain Debian and Ubuntu do not have). Installing the lgpio wheel from PyPI into" \
       "the venv instead (pip install lgpio; wheels exist for aarch64). If that fails (e.g. 32-bit armv7," \
       "no wheel): add the Raspberry Pi OS repository and apt-get install python3-lgpio, or install" \
       "swig and liblgpio's sources so pip can build it; without lgpio gpiozero tries its other pin" \
       "drivers and the page shows a buttons fault if none works." >&2
fi
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]}"
  sys apt-get install -y -q "${missing[@]}"
fi

# 2. user and groups
for group in gpio spi audio; do
  getent group "$group" >/dev/null || { say "creating group $group"; sys groupadd --system "$group"; }
done
if ! id "$user" >/dev/null 2>&1; then
  say "creating user $user"
  sys useradd --system --user-group --home-dir /var/lib/landsend --no-create-home --shell /usr/sbin/nologin "$user"
fi
sys usermod --append --groups gpio,spi,audio "$user"

# 3. SPI on (the default strip driver uses /dev/spidev0.0)
boot_config="$root/boot/firmware/config.txt"
[ -f "$boot_config" ] || boot_config="$root/boot/config.txt"
if [ -f "$boot_config" ] && ! grep -Eq '^[[:space:]]*dtparam=spi=on' "$boot_config"; then
  say "enabling SPI in $boot_config (reboot once after this install)"
  printf '\n# Land'"'"'s End LED strip on SPI MOSI (GPIO10)\ndtparam=spi=on\n' >> "$boot_config"
fi

# 4. code (a fresh copy swapped in whole, so no file of an old version is left behind) and its release folder
#    (a venv), then current pointed at it by rename
say "copying the source to $prefix/src"
install -d -m 0755 "$prefix"
rm -rf "$prefix/src.new" "$prefix/src.old"
mkdir "$prefix/src.new"
tar -C "$src" --exclude=.git --exclude=.venv --exclude=__pycache__ --exclude='*.egg-info' \
  --exclude=.pytest_cache --exclude=node_modules --exclude=.cache --exclude=build --exclude=dist -cf - . \
  | tar -C "$prefix/src.new" -xf -
[ -d "$prefix/src" ] && mv "$prefix/src" "$prefix/src.old"
mv "$prefix/src.new" "$prefix/src"
rm -rf "$prefix/src.old"
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$src/pyproject.toml" | head -1)
release="$prefix/releases/$version"
if [ ! -x "$release/bin/python" ]; then
  say "creating the release folder $release (a venv; system site packages: python3-lgpio comes from apt where it can)"
  install -d -m 0755 "$prefix/releases"
  sys python3 -m venv --system-site-packages "$release"
fi
say "installing landsend $version and its compiled play-out (native/, pegwalk) into $release"
sys "$release/bin/pip" install -q --upgrade "$prefix/src"
sys "$release/bin/pip" install -q --force-reinstall --no-deps "$prefix/src/native"
if [ "$lgpio_from_pip" = yes ]; then
  say "installing lgpio from PyPI into the venv (python3-lgpio is not in apt)"
  sys "$release/bin/pip" install -q lgpio \
    || echo "install.sh: warning: pip could not install lgpio (see the note above); continuing" >&2
fi
# the release is whole: its marker (what firmware/update.py reads), then current -> releases/<version> by rename
schema=$(PYTHONPATH="$src" "${PYTHON:-python3}" -c 'from companion.store import SCHEMA_VERSION; print(SCHEMA_VERSION)')
install -d -m 0755 "$release"
printf '{"installed_at": "%s", "schema": %s, "signer": "install.sh", "version": "%s"}\n' \
  "$(date -u +%Y-%m-%dT%H:%M:%S+00:00)" "$schema" "$version" > "$release/landsend-release.json"
ln -sfn "releases/$version" "$prefix/current.new"
mv -Tf "$prefix/current.new" "$prefix/current"
sync "$prefix" 2>/dev/null || true
if [ -d "$prefix/venv" ]; then
  say "removing the venv of the old layout ($prefix/venv): the units run $prefix/current now"
  rm -rf "$prefix/venv"
fi

# 5. config (never overwritten), checked before the daemon is restarted with it
install -d -m 0755 "$etc"
if [ ! -f "$etc/config.toml" ]; then
  say "writing $etc/config.toml (defaults; edit and: systemctl restart landsend)"
  install -m 0644 "$src/firmware/default_config.toml" "$etc/config.toml"
fi
say "checking $etc/config.toml"
python="$prefix/current/bin/python"
[ -x "$python" ] || python="${PYTHON:-python3}"
PYTHONPATH="$prefix/src" "$python" -c '
import sys
from firmware.config import ConfigError, load
try:
    load(sys.argv[1])
except ConfigError as exc:
    sys.exit(f"install.sh: config refused: {exc}")
' "$etc/config.toml"

# 6. units
install -d -m 0755 "$root/etc/systemd/system" "$root/etc/avahi/services"
for unit in landsend.service landsend-update.service landsend-update.path landsend-update-boot.service; do
  install -m 0644 "$src/systemd/$unit" "$root/etc/systemd/system/$unit"
done
install -d -m 0755 "$root/usr/share/keyrings"
install -m 0644 "$src/keys/landsend-release.gpg" "$root/usr/share/keyrings/landsend-release.gpg"
install -m 0644 "$src/systemd/landsend.avahi.service" "$root/etc/avahi/services/landsend.service"
# the daemon's user may ask avahi for the board's own name again after a spurious rename (firmware/mdns.py)
install -d -m 0755 "$root/etc/dbus-1/system.d"
install -m 0644 "$src/systemd/landsend-avahi.conf" "$root/etc/dbus-1/system.d/landsend-avahi.conf"

# 7. the board's own Wi-Fi: wifi.toml (made once; the daemon reads it, so group landsend), the NetworkManager
#    profile (root only, mode 0600, as NetworkManager demands) and dnsmasq drop-in, and the polkit rule
PYTHONPATH="$prefix/src" "$python" -m firmware.wifi install "${root:-/}"
sys chgrp "$user" "$etc/wifi.toml"
install -d -m 0755 "$root/etc/polkit-1/rules.d"
install -m 0644 "$src/systemd/landsend-wifi.rules" "$root/etc/polkit-1/rules.d/50-landsend-wifi.rules"

if [ "$set_hostname" = yes ] && [ "$(hostname)" != landsend ]; then
  say "naming this Pi landsend"
  sys hostnamectl set-hostname landsend
  [ -f "$root/etc/hosts" ] && sed -i -E 's/^(127\.0\.1\.1[[:space:]]+).*/\1landsend/' "$root/etc/hosts"
fi
if [ -z "$root" ] && [ ! -d /run/systemd/system ]; then
  # systemd is not running: a chroot or an SD-card image being built. Enable the unit (offline) so it
  # starts at the next boot; there is no daemon to reload or restart now.
  systemctl enable landsend.service landsend-update.path landsend-update-boot.service
  say "systemd is not running here (a chroot or an image build): landsend starts at the next boot"
  exit 0
fi
# NetworkManager reads new profiles on a reload (polkit notices its new rule by itself)
sys nmcli connection reload || echo "install.sh: NetworkManager is not running: the board's own Wi-Fi needs it" >&2
sys systemctl daemon-reload
sys systemctl enable landsend.service landsend-update.path landsend-update-boot.service
sys systemctl restart landsend.service landsend-update.path
sys systemctl reload-or-restart avahi-daemon.service || true
if [ -n "$root" ]; then
  say "staged under $root"
else
  say "done: $(systemctl is-active landsend.service); logs: journalctl -u landsend -f"
fi

#!/usr/bin/env bash
# Install or update Land's End on a Raspberry Pi (Raspberry Pi OS Bookworm or later).
#
#   sudo systemd/install.sh                # from a checkout of the project
#   sudo systemd/install.sh --hostname     # also name the Pi "landsend" (http://landsend.local)
#
# Idempotent: run it again after `git pull` to update. It
#   1. installs python3-venv, python3-lgpio (GPIO for gpiozero) and avahi-daemon when missing,
#   2. creates the system user `landsend` in the gpio and spi groups,
#   3. enables SPI (dtparam=spi=on) in the boot config (a reboot is needed the first time),
#   4. copies the source to /opt/landsend/src and installs it into the venv /opt/landsend/venv,
#   5. writes /etc/landsend/config.toml from the defaults unless it exists (yours is never overwritten),
#   6. installs the systemd unit and the avahi service, and (re)starts the daemon.
set -euo pipefail

prefix=/opt/landsend
etc=/etc/landsend
user=landsend
src="$(cd "$(dirname "$0")/.." && pwd)"
set_hostname=no
for arg in "$@"; do
  case "$arg" in
    --hostname) set_hostname=yes ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: run as root (sudo $0)" >&2
  exit 1
fi
say() { echo "==> $*"; }

# 1. packages
missing=()
for pkg in python3-venv python3-lgpio avahi-daemon rsync; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]}"
  apt-get update -q
  apt-get install -y -q "${missing[@]}"
fi

# 2. user and groups
for group in gpio spi; do
  getent group "$group" >/dev/null || { say "creating group $group"; groupadd --system "$group"; }
done
if ! id "$user" >/dev/null 2>&1; then
  say "creating user $user"
  useradd --system --user-group --home-dir /var/lib/landsend --no-create-home --shell /usr/sbin/nologin "$user"
fi
usermod --append --groups gpio,spi "$user"

# 3. SPI on (the default strip driver uses /dev/spidev0.0)
boot_config=/boot/firmware/config.txt
[ -f "$boot_config" ] || boot_config=/boot/config.txt
if [ -f "$boot_config" ] && ! grep -Eq '^[[:space:]]*dtparam=spi=on' "$boot_config"; then
  say "enabling SPI in $boot_config (reboot once after this install)"
  printf '\n# Land'"'"'s End LED strip on SPI MOSI (GPIO10)\ndtparam=spi=on\n' >> "$boot_config"
fi

# 4. code and venv (system site packages: python3-lgpio comes from apt)
say "copying the source to $prefix/src"
install -d -m 0755 "$prefix"
rsync -a --delete --exclude .git --exclude .venv --exclude '__pycache__' --exclude '*.egg-info' \
  --exclude build --exclude dist "$src/" "$prefix/src/"
if [ ! -x "$prefix/venv/bin/python" ]; then
  say "creating the venv $prefix/venv"
  python3 -m venv --system-site-packages "$prefix/venv"
fi
say "installing landsend into the venv"
"$prefix/venv/bin/pip" install -q --upgrade "$prefix/src"

# 5. config (never overwritten)
install -d -m 0755 "$etc"
if [ ! -f "$etc/config.toml" ]; then
  say "writing $etc/config.toml (defaults; edit and: systemctl restart landsend)"
  install -m 0644 "$src/firmware/default_config.toml" "$etc/config.toml"
fi
say "checking $etc/config.toml"
"$prefix/venv/bin/python" -c 'import sys; from firmware.config import load; load(sys.argv[1])' "$etc/config.toml"

# 6. units
install -m 0644 "$src/systemd/landsend.service" /etc/systemd/system/landsend.service
install -d -m 0755 /etc/avahi/services
install -m 0644 "$src/systemd/landsend.avahi.service" /etc/avahi/services/landsend.service
if [ "$set_hostname" = yes ] && [ "$(hostname)" != landsend ]; then
  say "naming this Pi landsend"
  hostnamectl set-hostname landsend
  sed -i -E 's/^(127\.0\.1\.1[[:space:]]+).*/\1landsend/' /etc/hosts
fi
systemctl daemon-reload
systemctl enable landsend.service >/dev/null
systemctl restart landsend.service
systemctl reload-or-restart avahi-daemon.service || true
say "done: $(systemctl is-active landsend.service); logs: journalctl -u landsend -f"

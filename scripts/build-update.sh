#!/usr/bin/env bash
# Build a signed update file for the board: landsend-<version>-arm64.update, installed from the host's phone
# (More > Board > Update) or dropped on the card's LANDSEND partition, with no internet on the board.
#
#   sudo scripts/build-update.sh --key-home ~/.landsend-release-key                  # -> build/landsend-<v>-arm64.update
#   sudo scripts/build-update.sh --version 0.1.1 --key-home DIR [--key ID] [--out DIR] [--src DIR]
#
# In the image's own Debian bookworm arm64 root (scripts/lib/debian-root.sh, cached in $IMAGE_CACHE like the
# image build's), `pip wheel` makes a wheel of the project and of every Python dependency for the board (spidev
# and rpi-ws281x are compiled there, for its Python 3.11 on aarch64). Then `python3 -m firmware.update pack`
# writes the manifest (version, arch, each wheel with its SHA-256) and the payload, gpg signs it (a detached
# signature, with the key in --key-home: never in the repository), and both go into one tar file, so that the
# board checks the signature (gpgv) before it unpacks anything. docs/operation.md: making and signing a release.
#
#   --version V   the version to build (default: pyproject.toml's); written into the copy of the source that is
#                 built, never into the checkout
#   --src DIR     build from DIR instead of this checkout (a tree of the same layout)
#   --key-home D  the gpg home holding the release key's private half (default: $GNUPGHOME or ~/.gnupg)
#   --key ID      which key of it signs (default: gpg's default key)
#   --out DIR     where the file goes (default: build/)
#
# Needs root (chroot), debootstrap and qemu-user-static (installed when missing), gpg on this machine, and PyPI.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
src="$here"
out="$here/build"
version=""
key_home="${GNUPGHOME:-}"
key=""
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="$2"; shift ;;
    --src) src="$(cd "$2" && pwd)"; shift ;;
    --key-home) key_home="$2"; shift ;;
    --key) key="$2"; shift ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "build-update.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$(id -u)" -eq 0 ] || { echo "build-update.sh: run as root (chroot needs it)" >&2; exit 1; }
command -v gpg >/dev/null || { echo "build-update.sh: gpg is missing on this machine (apt-get install gnupg)" >&2; exit 1; }
[ -n "$version" ] || version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$src/pyproject.toml" | head -1)
[[ "$version" =~ ^[0-9]+(\.[0-9]+){0,3}$ ]] || { echo "build-update.sh: --version must be numbers with dots (0.1.1), got '$version'" >&2; exit 2; }

prog=build-update.sh
cache="${IMAGE_CACHE:-/var/tmp/landsend-image-cache}"
# shellcheck source=scripts/lib/debian-root.sh
. "$here/scripts/lib/debian-root.sh"
trap root_cleanup EXIT
mkdir -p "$cache" "$out"
name="landsend-$version-arm64.update"

# 1. tools and the image's Debian root (cached; the same one the image is built from)
root_tools
root_base no

# 2. a working copy of the root with the source to build, its version set to the one asked for
work="$cache/update-root"
root_work "$work" "$cache/update-bootfs"
root_copy_source "$work" "$src"
sed -i "s/^version = \".*\"$/version = \"$version\"/" "$work/tmp/landsend-src/pyproject.toml"

# 3. wheels of the project and every dependency, made for the board (aarch64, its Python) by pip in the root, and
#    lgpio (gpiozero's pin driver, which install.sh takes from PyPI where apt has no python3-lgpio)
s=$(date +%s)
root_run "$work" python3 -m venv /tmp/wheel-venv > "$cache/update-wheels.log" 2>&1 \
  || { tail -20 "$cache/update-wheels.log" >&2; fail "python3 -m venv failed in the root"; }
# rpi-ws281x has no pyproject.toml: pip builds its wheel with setup.py, which needs the wheel package
root_run "$work" PIP_CERT=/etc/ssl/certs/build-host-ca.crt /tmp/wheel-venv/bin/pip install -q wheel \
  >> "$cache/update-wheels.log" 2>&1 || { tail -20 "$cache/update-wheels.log" >&2; fail "pip install wheel failed"; }
rm -rf "$work/tmp/wheels"
# (and the compiled play-out, native/: its wheel for aarch64, which the board's update installs with the rest)
root_run "$work" PIP_CERT=/etc/ssl/certs/build-host-ca.crt /tmp/wheel-venv/bin/pip wheel -q \
  --wheel-dir /tmp/wheels /tmp/landsend-src /tmp/landsend-src/native lgpio >> "$cache/update-wheels.log" 2>&1 \
  || { tail -30 "$cache/update-wheels.log" >&2; fail "pip wheel failed (log: $cache/update-wheels.log)"; }
ls "$work/tmp/wheels" | sed 's/^/    /'
[ -f "$work/tmp/wheels/landsend-$version-py3-none-any.whl" ] || fail "no landsend $version wheel was made"
ls "$work/tmp/wheels"/pegwalk-*-linux_aarch64.whl >/dev/null 2>&1 || fail "no aarch64 wheel of the compiled play-out (native/) was made"
python=$(root_run "$work" python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
stage "$(ls "$work/tmp/wheels" | wc -l) wheels for python $python on $(root_run "$work" uname -m) in $(( $(date +%s) - s )) s"

# 4. the manifest and the payload, signed (gpg on this machine), in one file
s=$(date +%s)
root_unbind_all
PYTHONPATH="$here" python3 -m firmware.update pack --wheels "$work/tmp/wheels" --version "$version" \
  --python "$python" --out "$out/$name" ${key_home:+--gpg-home "$key_home"} ${key:+--key "$key"} | sed 's/^/    /'
GNUPGHOME="${key_home:-$HOME/.gnupg}" gpg --batch --export ${key:+"$key"} > "$cache/update-signer.gpg"
PYTHONPATH="$here" LANDSEND_ROOT=/nonexistent python3 - "$out/$name" "$cache/update-signer.gpg" <<'EOF' | sed 's/^/    /'
import sys, tempfile
from pathlib import Path
from firmware.update import read_bundle
with tempfile.TemporaryDirectory() as work:
    b = read_bundle(Path(sys.argv[1]), Path(work), [Path(sys.argv[2])], unpack=False)
print(f"gpgv: good signature by {b.signer}; manifest: landsend {b.version} for {b.manifest['arch']}, "
      f"{len(b.manifest['wheels'])} wheels")
EOF
stage "signed and checked in $(( $(date +%s) - s )) s"
rm -rf "$work"
stage "build-update passed in $(( $(date +%s) - t0 )) s: $out/$name ($(( $(stat -c %s "$out/$name") / 1024 )) KB)"

#!/usr/bin/env bash
# Prove the Pi install on the image's own Debian root: take a working copy of the cached bookworm arm64
# root that scripts/build-image.sh makes (scripts/lib/debian-root.sh: the image's debootstrap variant and
# package list, scripts/image/packages.txt), install the project into it with systemd/install.sh exactly
# as the image build does, then check that NetworkManager accepts the board's hotspot profile, that polkit
# loads the rule and grants the service user exactly its actions (NetworkManager's network-control, wifi.scan,
# settings.modify.system and the two wifi.share ones; timedated's set-time and set-ntp), and that `landsend serve --sim`
# started there answers the page.
#
#   sudo scripts/pi-check.sh                 # the root cached in $IMAGE_CACHE (default /var/tmp/landsend-image-cache)
#   sudo scripts/pi-check.sh --fresh         # throw the cached root away first (it is the image build's too)
#   IMAGE_CACHE=/somewhere sudo scripts/pi-check.sh --port 8799
#
# Needs root, Debian's debootstrap, qemu-user-static and curl (installed with apt-get when missing) and the
# Debian and PyPI registries. Everything arm64 runs under qemu (binfmt_misc), so it is slow: the cached
# root, when it must be made, takes the best part of an hour (its initrd most of it); then a few minutes
# for install.sh (pip compiles rpi-ws281x and spidev) and the checks. Too slow for the test suite: run it
# whenever the dependencies change. It prints one line per stage with its time, and exits non-zero at the
# first stage that fails. Its working copy is $IMAGE_CACHE/pi-check-root (kept for a look afterwards).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
port=8799
fresh=no
while [ $# -gt 0 ]; do
  case "$1" in
    --fresh) fresh=yes ;;
    --port) port="$2"; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "pi-check.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$(id -u)" -eq 0 ] || { echo "pi-check.sh: run as root (debootstrap and chroot need it)" >&2; exit 1; }

prog=pi-check.sh
cache="${IMAGE_CACHE:-/var/tmp/landsend-image-cache}"
# shellcheck source=scripts/lib/debian-root.sh
. "$here/scripts/lib/debian-root.sh"
root="$cache/pi-check-root"
cleanup() {
  set +e
  [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  for f in "$root/run/pi-check-polkitd.pid" "$root/run/dbus/pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null && rm -f "$f"
  done
  root_unbind_all
}
trap cleanup EXIT

# 1. tools (scripts/lib/debian-root.sh) and curl for the page
root_tools curl

# 2. the image's Debian root (made once and cached; scripts/build-image.sh uses the same one)
root_base "$fresh"

# 3. install the project exactly as on a Pi (and as the image build does): systemd/install.sh in a working copy
root_work "$root" "$cache/pi-check-bootfs"
root_install "$root" "$cache/pi-check-install.log"
stage "$(chroot "$root" /opt/landsend/venv/bin/pip list 2>/dev/null | grep -ciE '^(landsend|flask|waitress|gpiozero|spidev|rpi.ws281x) ') of the project's packages listed by pip"

# 4. the board's own Wi-Fi: NetworkManager (1.42 on bookworm) reads the profile install.sh wrote (offline:
#    no NetworkManager runs here, it would take over this machine's network), and a broken copy is refused
s=$(date +%s)
profile=/etc/NetworkManager/system-connections/landsend-hotspot.nmconnection
[ "$(stat -c '%a %U' "$root$profile")" = "600 root" ] || { echo "pi-check.sh: $profile is not 0600 root" >&2; exit 1; }
nm_out=$(chroot "$root" sh -c "nmcli --offline connection modify connection.id landsend-hotspot < $profile" 2>&1) \
  || { echo "pi-check.sh: NetworkManager refused the hotspot profile: $nm_out" >&2; exit 1; }
for want in 'mode=ap' 'method=shared' 'address1=10.42.0.1/24' 'key-mgmt=wpa-psk' "ssid=$(sed -n 's/^ssid = "\(.*\)"$/\1/p' "$root/etc/landsend/wifi.toml")"; do
  grep -qxF "$want" <<<"$nm_out" || { echo "pi-check.sh: NetworkManager's reading of the profile lacks $want" >&2; echo "$nm_out" >&2; exit 1; }
done
if chroot "$root" sh -c "sed 's/^mode=ap/mode=moon/' $profile | nmcli --offline connection modify connection.id x" >/dev/null 2>&1; then
  echo "pi-check.sh: nmcli --offline accepted a broken profile: the check proves nothing" >&2; exit 1
fi
stage "NetworkManager $(chroot "$root" nmcli --version | grep -o '[0-9][0-9.]*$') accepts landsend-hotspot ($(grep -c . <<<"$nm_out") lines read back; a broken copy refused) in $(( $(date +%s) - s )) s"

# 5. polkit loads the rule and it grants the user landsend network-control, wifi.scan, settings.modify.system,
#    the two wifi.share actions (the board's own Wi-Fi back after a join) and timedated's set-time and set-ntp
#    (the board's clock from a phone's), and nothing else (a private system bus and polkitd inside the root)
s=$(date +%s)
mkdir -p "$root/run/dbus"
rm -f "$root/run/dbus/pid" "$root/run/dbus/system_bus_socket"
chroot "$root" dbus-daemon --system --fork
chroot "$root" sh -c '/usr/lib/polkit-1/polkitd > /tmp/pi-check-polkitd.log 2>&1 & echo $! > /run/pi-check-polkitd.pid'
# polkitd is ready when it answers (pkcheck on a root process is always authorised)
for _ in $(seq 1 120); do
  chroot "$root" pkcheck --action-id org.freedesktop.NetworkManager.reload --process 1 >/dev/null 2>&1 && break
  sleep 0.5
done
if grep -qE 'Error compiling|Error evaluating|SyntaxError|ReferenceError' "$root/tmp/pi-check-polkitd.log"; then
  echo "pi-check.sh: polkitd refused a rule:" >&2; cat "$root/tmp/pi-check-polkitd.log" >&2; exit 1
fi
verdicts=$(chroot "$root" sh -c '
  setpriv --reuid=landsend --regid=landsend --clear-groups sleep 120 & pid=$!; sleep 1
  for a in NetworkManager.network-control NetworkManager.wifi.scan NetworkManager.settings.modify.system \
           NetworkManager.wifi.share.protected NetworkManager.wifi.share.open timedate1.set-time timedate1.set-ntp \
           timedate1.set-timezone NetworkManager.enable-disable-wifi NetworkManager.settings.modify.hostname \
           NetworkManager.reload timedate1.set-local-rtc; do
    if pkcheck --action-id "org.freedesktop.$a" --process "$pid" >/dev/null 2>&1; then echo "$a:yes"; else echo "$a:no"; fi
  done
  kill $pid')
want="NetworkManager.network-control:yes NetworkManager.wifi.scan:yes NetworkManager.settings.modify.system:yes"
want="$want NetworkManager.wifi.share.protected:yes NetworkManager.wifi.share.open:yes timedate1.set-time:yes"
want="$want timedate1.set-ntp:yes"
want="$want timedate1.set-timezone:yes NetworkManager.enable-disable-wifi:no NetworkManager.settings.modify.hostname:no"
want="$want NetworkManager.reload:no timedate1.set-local-rtc:no"
# set-timezone: systemd's own policy says set-time implies it (org.freedesktop.policykit.imply), so granting
# set-time grants it too (found by this check on 2026-11-28); the board keeps its times in UTC, so a timezone
# changes nothing it stores. The RTC mode stays refused.
[ "$(echo $verdicts)" = "$want" ] || { echo "pi-check.sh: polkit answers for landsend: $(echo $verdicts); expected $want" >&2; exit 1; }
stage "polkit: $(grep -o 'Finished loading.*' "$root/tmp/pi-check-polkitd.log" || echo 'rules loaded'); landsend may: $(echo $verdicts) ($(( $(date +%s) - s )) s)"
kill "$(cat "$root/run/pi-check-polkitd.pid")" "$(cat "$root/run/dbus/pid")" 2>/dev/null || true
rm -f "$root/run/pi-check-polkitd.pid" "$root/run/dbus/pid"

# 6. serve the simulator there and ask for the page
s=$(date +%s)
rm -f "$root/tmp/pi-check.db" "$root/tmp/pi-check.db.lock"
chroot "$root" env -i PATH=/usr/bin:/bin HOME=/tmp LANDSEND_STATE_DIR=/tmp/pi-check-state \
  /opt/landsend/venv/bin/landsend serve --sim --host 127.0.0.1 --port "$port" --db /tmp/pi-check.db \
  > "$cache/pi-check-serve.log" 2>&1 &
server_pid=$!
ok=no
for _ in $(seq 1 240); do
  if curl -fsS -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null; then ok=yes; break; fi
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.5
done
if [ "$ok" != yes ]; then
  echo "pi-check.sh: the page did not answer on port $port" >&2
  tail -20 "$cache/pi-check-serve.log" >&2
  exit 1
fi
stage "page answered $(( $(date +%s) - s )) s after start; $(grep -o 'ready in [0-9.]* s' "$cache/pi-check-serve.log" || echo 'no ready line')"
page=$(curl -fsS "http://127.0.0.1:$port/" | grep -o '<title>[^<]*</title>' || true)
table=$(curl -fsS "http://127.0.0.1:$port/api/table" | python3 -c 'import json,sys; t=json.load(sys.stdin); print(t["game"], [s["score"] for s in t["sides"]])')
stage "GET / -> $page; GET /api/table -> $table"
stage "pi-check passed in $(( $(date +%s) - t0 )) s"

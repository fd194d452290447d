"""Prove the board's Wi-Fi in a booted copy of its image, on simulated radios: scripts/wifi-check.sh runs this.

Two halves in one file. On the build machine (``main``): boot the copy in qemu with boot_check's Disk,
Machine and Api, bring the check's tools and this file into it over SSH, and drive the checks. Inside the
booted copy (``python3 /etc/wifi-check/wifi_check.py guest ...``): the radios (mac80211_hwsim, the phone's and
the home network's in their own network namespaces), the home access point (hostapd and a DHCP server), and
the phone (wpa_supplicant, udhcpc, its captive-portal probes, the page over the Wi-Fi). The pure parts (the
radio plan, the files written for hostapd, dnsmasq, wpa_supplicant and udhcpc) are tested in
tests/test_wifi_check.py; the boots stay out of the suite. Standard library only on both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from boot_check import (Api, CheckFailed, Machine, card_copy, check, fresh_work, machine_options, run, say,  # noqa: E402
                        whole_hand)
from qr_read import decode, svg_codes, wifi_fields  # noqa: E402

NAME = "Lands End Wifi"
HOTSPOT_PASSWORD = "wifi-pass-1357"
HOTSPOT = "10.42.0.1"
HOME_SSID = "CheckHome"
HOME_PASSWORD = "home-pass-8642"
HOME_NET = "192.168.77"
HOME_CHANNEL = 1                # 1-9: the world regulatory domain (no country set) allows an AP there
WRONG_PASSWORD = "not-the-pass-99"
ROLES = ("board", "phone", "home")
DIR = "/etc/wifi-check"         # in the booted copy only: this file, boot_check.py, the units' files
TOOLS = "/opt/wifi-check"       # the test-only packages, unpacked there in the booted copy only
HOSTAPD = f"{TOOLS}/usr/sbin/hostapd"
UDHCPC = [f"{TOOLS}/bin/busybox", "udhcpc"]
RUN = "/run/wifi-check"
PROBES = (("connectivitycheck.gstatic.com", "/generate_204", "Android"),
          ("captive.apple.com", "/hotspot-detect.html", "Apple"),
          ("www.msftconnecttest.com", "/connecttest.txt", "Windows"))


# ---------------------------------------------------------------- the pure parts (tests/test_wifi_check.py)

def radio_plan(phys: dict[str, list[str]]) -> dict[str, dict[str, str]]:
    """Give each role (the board, a phone, a home network) one of the three simulated radios: ``phys`` maps
    each radio (``phy0``) to its network devices as /sys/class/ieee80211 lists them. The lowest-numbered
    radio is the board's (NetworkManager manages it as the Pi's wlan0), the next the phone's, the last the
    home network's. Return ``{role: {"phy", "dev"}}``.

    :raises ValueError: not exactly three radios, or a radio without exactly one device.
    """
    order = sorted(phys, key=lambda p: (int(re.sub(r"\D", "", p) or -1), p))
    if len(order) != 3:
        raise ValueError(f"the check needs 3 simulated radios, found {len(order)}: {', '.join(order) or 'none'}")
    plan = {}
    for role, phy in zip(ROLES, order):
        if len(phys[phy]) != 1:
            raise ValueError(f"{phy} has {len(phys[phy])} network devices, not one")
        plan[role] = {"phy": phy, "dev": phys[phy][0]}
    return plan


def radio_commands(plan: dict[str, dict[str, str]]) -> list[list[str]]:
    """Return the commands that put the phone's and the home network's radios in their own network
    namespaces (named after the role) and give the home access point its address."""
    cmds = []
    for role in ("phone", "home"):
        cmds += [["ip", "netns", "add", role], ["iw", "phy", plan[role]["phy"], "set", "netns", "name", role],
                 ["ip", "-n", role, "link", "set", "lo", "up"]]
    home = plan["home"]["dev"]
    cmds += [["ip", "-n", "home", "addr", "add", f"{HOME_NET}.1/24", "dev", home],
             ["ip", "-n", "home", "link", "set", home, "up"]]
    return cmds


def _wifi_name(ssid: str) -> str:
    if not 1 <= len(ssid.encode()) <= 32 or any(c in ssid for c in "\r\n\0"):
        raise ValueError(f"a network name is 1 to 32 bytes on one line: {ssid!r}")
    return ssid


def _passphrase(password: str) -> str:
    if not 8 <= len(password) <= 63 or any(ord(c) < 32 or ord(c) > 126 for c in password):
        raise ValueError(f"a WPA passphrase is 8 to 63 printable ASCII characters: {password!r}")
    return password


def hostapd_conf(iface: str, ssid: str, password: str, channel: int = HOME_CHANNEL) -> str:
    """Return hostapd's configuration of the home access point: WPA2-PSK with CCMP, 802.11g."""
    return (f"# the Wi-Fi check's home network (never on a board)\ninterface={iface}\ndriver=nl80211\n"
            f"ctrl_interface={RUN}/hostapd\nssid2={_wifi_name(ssid).encode().hex()}\nhw_mode=g\n"
            f"channel={channel}\nwpa=2\nwpa_key_mgmt=WPA-PSK\nrsn_pairwise=CCMP\n"
            f"wpa_passphrase={_passphrase(password)}\n")


def dnsmasq_conf(iface: str, net: str = HOME_NET) -> str:
    """Return dnsmasq's configuration of the home network's DHCP server (no DNS: ``port=0``); it hands out
    ``net``.10-99 and names itself (``net``.1) as the router."""
    return (f"# the Wi-Fi check's home network: DHCP only\ninterface={iface}\nbind-interfaces\nport=0\n"
            f"dhcp-range={net}.10,{net}.99,255.255.255.0,1h\ndhcp-option=option:router,{net}.1\n"
            f"dhcp-leasefile={RUN}/home.leases\ndhcp-authoritative\nuser=root\npid-file={RUN}/home-dnsmasq.pid\n")


def wpa_conf(ssid: str, password: str) -> str:
    """Return the phone's wpa_supplicant configuration: the network by name (hex, any bytes) and passphrase,
    WPA2 (RSN) with CCMP only, as a phone joins the board's own Wi-Fi."""
    return (f"# the Wi-Fi check's phone\nctrl_interface={RUN}/wpa\nnetwork={{\n"
            f"    ssid={_wifi_name(ssid).encode().hex()}\n    psk=\"{_passphrase(password)}\"\n"
            "    key_mgmt=WPA-PSK\n    proto=RSN\n    pairwise=CCMP\n    group=CCMP\n    scan_ssid=1\n}\n")


def udhcpc_script(ns: str) -> str:
    """Return the phone's udhcpc script: it sets the address, the default route and the name server it got
    (the name server into the namespace's own resolv.conf, which ``ip netns exec`` puts at /etc/resolv.conf)."""
    return f"""#!/bin/sh
# the Wi-Fi check's phone: udhcpc calls this with what the DHCP server gave
case "$1" in
  deconfig) ip -4 addr flush dev "$interface" ;;
  bound|renew)
    ip -4 addr flush dev "$interface"
    ip addr add "$ip/${{mask:-24}}" dev "$interface"
    [ -n "$router" ] && ip route replace default via "${{router%% *}}" dev "$interface"
    : > /etc/netns/{ns}/resolv.conf
    for d in $dns; do echo "nameserver $d" >> /etc/netns/{ns}/resolv.conf; done
    echo "$ip" > {RUN}/$interface.lease ;;
esac
exit 0
"""


def unit(name: str, what: str, *, start: str, kind: str = "oneshot", needs: str = "",
         before_nm: bool = False, condition: str = "", keep: bool = False) -> str:
    """Return a systemd unit of the check (installed in the booted copy only). ``keep``: what the unit leaves
    running (the phone's wpa_supplicant) is never stopped with it (``KillMode=process``)."""
    after = "After=wifi-check-radios.service\nRequires=wifi-check-radios.service\n" if needs else ""
    return (f"# the Wi-Fi check ({name}): in the check's copy of the image only\n[Unit]\nDescription=Wi-Fi check: {what}\n"
            f"{after}{'Before=NetworkManager.service' + chr(10) if before_nm else ''}"
            f"{'ConditionPathExists=' + condition + chr(10) if condition else ''}\n"
            f"[Service]\nType={kind}\n{'RemainAfterExit=yes' + chr(10) if kind == 'oneshot' else ''}"
            f"{'KillMode=process' + chr(10) if keep else ''}TimeoutStartSec=900\nExecStart={start}\n\n[Install]\nWantedBy=multi-user.target\n")


UNITS = {
    "wifi-check-radios.service": unit("radios", "three simulated radios, the phone's and the home network's in "
                                      "their own namespaces", start=f"/usr/bin/python3 {DIR}/wifi_check.py guest radios",
                                      before_nm=True),
    "wifi-check-home.service": unit("home", "the home network's access point and DHCP server", kind="simple",
                                    start=f"/usr/bin/python3 {DIR}/wifi_check.py guest home", needs="radios",
                                    before_nm=True, condition=f"{DIR}/home-on"),
    "wifi-check-phone.service": unit("phone", "a phone waiting for its network from power-on",
                                     start=f"/usr/bin/env ip netns exec phone /usr/bin/python3 {DIR}/wifi_check.py "
                                           "guest phone-boot",
                                     needs="radios", condition=f"{DIR}/phone.conf", keep=True),
}


def mdns_query(name: str, qid: int = 0) -> bytes:
    """Return a one-question mDNS query for ``name``'s IPv4 address (a legacy unicast query: the answer
    comes back to the asking port)."""
    q = b"".join(bytes([len(p)]) + p.encode() for p in name.rstrip(".").split(".")) + b"\0"
    return struct.pack("!HHHHHH", qid, 0, 1, 0, 0, 0) + q + struct.pack("!HH", 1, 1)


def mdns_answer(packet: bytes, name: str) -> str | None:
    """Return the IPv4 address an mDNS answer ``packet`` gives ``name``, or None."""
    def read_name(at: int) -> tuple[str, int]:
        labels, end = [], None
        while True:
            n = packet[at]
            if n & 0xC0 == 0xC0:
                end = at + 2 if end is None else end
                at = ((n & 0x3F) << 8) | packet[at + 1]
                continue
            if n == 0:
                return ".".join(labels), (end if end is not None else at + 1)
            labels.append(packet[at + 1:at + 1 + n].decode(errors="replace"))
            at += 1 + n

    _, flags, qd, an, ns, ar = struct.unpack("!HHHHHH", packet[:12])
    at = 12
    for _ in range(qd):
        _, at = read_name(at)
        at += 4
    for _ in range(an + ns + ar):
        rname, at = read_name(at)
        rtype, _, _, rdlen = struct.unpack("!HHIH", packet[at:at + 10])
        at += 10
        if rtype == 1 and rdlen == 4 and rname.lower() == name.lower().rstrip("."):
            return socket.inet_ntoa(packet[at:at + 4])
        at += rdlen
    return None


# ---------------------------------------------------------------- inside the booted copy

def uptime() -> float:
    return float(Path("/proc/uptime").read_text().split()[0])


def sh(*cmd: str, check_ok: bool = True, timeout: float = 120) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check_ok and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.returncode} {r.stderr.strip()} {r.stdout.strip()}")
    return r.stdout


def radios() -> dict:
    return json.loads(Path(f"{RUN}/radios.json").read_text())


def g_radios() -> None:
    Path(RUN).mkdir(parents=True, exist_ok=True)
    sh("modprobe", "mac80211_hwsim", "radios=3")
    deadline = time.monotonic() + 30
    while True:
        phys: dict[str, list[str]] = {p.name: [] for p in Path("/sys/class/ieee80211").glob("phy*")}
        for dev in Path("/sys/class/net").iterdir():
            name = dev / "phy80211" / "name"
            if name.exists():
                phys.setdefault(name.read_text().strip(), []).append(dev.name)
        if len(phys) == 3 and all(len(d) == 1 for d in phys.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    plan = radio_plan(phys)
    for cmd in radio_commands(plan):
        sh(*cmd)
    Path(f"{RUN}/radios.json").write_text(json.dumps(plan))
    print(f"radios at {uptime():.1f} s: " + ", ".join(f"{r} {plan[r]['phy']}/{plan[r]['dev']}" for r in ROLES),
          flush=True)


def g_home() -> None:
    dev = radios()["home"]["dev"]
    Path(f"{RUN}/hostapd.conf").write_text(hostapd_conf(dev, HOME_SSID, HOME_PASSWORD))
    Path(f"{RUN}/home-dnsmasq.conf").write_text(dnsmasq_conf(dev))
    subprocess.Popen(["ip", "netns", "exec", "home", "dnsmasq", "-k", f"--conf-file={RUN}/home-dnsmasq.conf"])
    os.execvp("ip", ["ip", "netns", "exec", "home", HOSTAPD, f"{RUN}/hostapd.conf"])


def wpa_state(dev: str) -> str:
    out = sh("wpa_cli", "-p", f"{RUN}/wpa", "-i", dev, "status", check_ok=False)
    m = re.search(r"^wpa_state=(\S+)", out, re.M)
    return m.group(1) if m else "NONE"


def g_join(dev: str, conf: str, timeout: float, mac: str | None = None) -> dict:
    """Start the phone's wpa_supplicant on ``conf``; wait for WPA2 to complete, then ask DHCP for an address."""
    Path(RUN).mkdir(parents=True, exist_ok=True)
    Path(f"{RUN}/{dev}.lease").unlink(missing_ok=True)
    if mac:
        sh("ip", "link", "set", dev, "down")
        sh("ip", "link", "set", dev, "address", mac)
    sh("ip", "link", "set", dev, "up")
    t0 = time.monotonic()
    sh("wpa_supplicant", "-B", "-i", dev, "-c", conf, "-P", f"{RUN}/wpa-{dev}.pid", "-f", f"{RUN}/wpa-{dev}.log")
    out = {"started": uptime(), "associated": None, "address": None}
    while time.monotonic() - t0 < timeout:
        if wpa_state(dev) == "COMPLETED":
            out["associated"] = time.monotonic() - t0
            out["associated_at"] = uptime()
            break
        time.sleep(0.2)
    if out["associated"] is None:
        out["state"] = wpa_state(dev)
        return out
    r = subprocess.run([*UDHCPC, "-i", dev, "-n", "-q", "-t", "30", "-T", "1", "-s", f"{DIR}/udhcpc.script"],
                       capture_output=True, text=True, timeout=120)
    lease = Path(f"{RUN}/{dev}.lease")
    if lease.exists():
        out["address"] = lease.read_text().strip()
        out["address_s"] = time.monotonic() - t0
        out["address_at"] = uptime()
    else:
        out["dhcp"] = (r.stdout + r.stderr).strip()[-300:]
    return out


def g_leave(dev: str) -> None:
    sh("wpa_cli", "-p", f"{RUN}/wpa", "-i", dev, "terminate", check_ok=False)
    for _ in range(50):
        if not Path(f"{RUN}/wpa/{dev}").exists():
            break
        time.sleep(0.1)
    sh("ip", "-4", "addr", "flush", "dev", dev, check_ok=False)


def http(host: str, path: str, address: str | None = None, timeout: float = 10) -> tuple[int, dict, bytes]:
    """GET ``path`` from ``host`` as a phone does: the name resolved by the network's DNS (or ``address``)."""
    import http.client
    conn = http.client.HTTPConnection(address or host, 80, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Host": host, "User-Agent": "wifi-check phone"})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def g_probe() -> dict:
    """The phone's first minute on a network: DNS, the captive-portal probes, the sign-in page."""
    out = {"dns": {}, "probes": {}}
    for name in ("connectivitycheck.gstatic.com", "captive.apple.com", "www.msftconnecttest.com", "example.org"):
        try:
            out["dns"][name] = socket.gethostbyname(name)
        except OSError as exc:
            out["dns"][name] = f"error: {exc}"
    for host, path, who in PROBES:
        try:
            code, headers, _ = http(host, path)
            out["probes"][who] = [code, headers.get("location")]
        except OSError as exc:
            out["probes"][who] = [0, str(exc)]
    try:
        code, _, body = http(HOTSPOT, "/?portal=1")
        out["sign_in"] = [code, len(body), b"<html" in body.lower() or b"<!doctype" in body.lower()]
    except OSError as exc:
        out["sign_in"] = [0, 0, str(exc)]
    return out


def phone_api(url: str) -> Api:
    """The page's API as the phone over the Wi-Fi uses it, its cookies kept between calls (the same phone)."""
    import http.cookiejar
    import urllib.request
    api = Api(80)
    api.url = api.base = url.rstrip("/")
    jar = http.cookiejar.LWPCookieJar(f"{RUN}/phone-cookies.txt")
    try:
        jar.load(ignore_discard=True)
    except OSError:
        pass
    api.jar = jar
    api.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    return api


def g_api(url: str, steps: list, wait: float) -> list:
    """Run page calls ``[[method, path, body], ...]`` as the host's phone; a call that meets no board (it is
    away trying a network) is tried again for up to ``wait`` s. ``["hand"]`` enters a whole hand; ``["until",
    path, key]`` polls until ``key`` of the answer is null."""
    api = phone_api(url)
    results: list = []
    deadline = time.monotonic() + wait
    while True:                 # the host's phone (its cookie); a phone new to this address stays a visitor
        try:
            api.host()
            break
        except CheckFailed:
            break
        except OSError as exc:
            if time.monotonic() > deadline:
                return [{"error": f"no page at {url}: {exc}"}]
            time.sleep(1)
    for step in steps:
        deadline = time.monotonic() + wait
        t0 = time.monotonic()
        if step[0] == "hand":                        # entered once: a refused command is a finding, not retried
            try:
                results.append({"hand": whole_hand(api)})
            except CheckFailed as exc:
                results.append({"error": str(exc)})
            continue
        while True:
            try:
                if step[0] == "until":
                    code, body = api.request("GET", step[1], timeout=10)
                    if code != 200 or body.get(step[2]) is not None:
                        raise OSError(f"{code} {step[2]}={body.get(step[2])}")
                    results.append({"code": code, "body": body, "s": time.monotonic() - t0})
                else:
                    code, body = api.request(step[0], step[1], step[2] if len(step) > 2 else None, timeout=30)
                    results.append({"code": code, "body": body, "s": time.monotonic() - t0})
                break
            except (OSError, CheckFailed) as exc:
                if time.monotonic() > deadline:
                    results.append({"error": str(exc), "s": time.monotonic() - t0})
                    break
                time.sleep(1)
    api.jar.save(ignore_discard=True)
    return results


def g_joins(conf: str, n: int, seed: int = 7) -> dict:
    """A phone joining and leaving ``n`` times, a new MAC address each time (as phones randomise theirs):
    each time WPA2, an address from the board and the page; return the addresses and their times."""
    dev, rng, out = radios()["phone"]["dev"], random.Random(seed), {"joins": []}
    for i in range(n):
        g_leave(dev)
        mac = "02:%02x:%02x:%02x:%02x:%02x" % tuple(rng.randrange(256) for _ in range(5))
        got = g_join(dev, conf, 60, mac)
        page = g_api(f"http://{HOTSPOT}", [["GET", "/api/table"]], 30)[0] if got.get("address") else {}
        out["joins"].append({"mac": mac, "address": got.get("address"), "s": got.get("address_s"),
                             "page": page.get("code")})
    return out


def g_watch(dev: str, until: str | None, seconds: float) -> dict:
    """Follow the board's Wi-Fi device in NetworkManager every half second: each change with its time, until
    ``until`` is the connection up (or ``seconds`` pass)."""
    t0, last, timeline = time.monotonic(), None, []
    while time.monotonic() - t0 < seconds:
        now = None
        for line in sh("nmcli", "-t", "-f", "DEVICE,STATE,CONNECTION", "device", "status").splitlines():
            f = line.split(":")
            if f[0] == dev:
                now = (f[1], ":".join(f[2:]))
        if now != last:
            timeline.append([round(time.monotonic() - t0, 1), *now] if now else [round(time.monotonic() - t0, 1)])
            last = now
        if until and now and now[0] == "connected" and now[1] == until:
            return {"reached": time.monotonic() - t0, "timeline": timeline}
        time.sleep(0.5)
    return {"reached": None, "timeline": timeline}


def g_mdns(name: str, source: str) -> str | None:
    """Ask for ``name`` by mDNS from ``source``: first as a one-shot (legacy unicast) querier, then as a full
    one (from port 5353, in the group, the answer multicast)."""
    for full in (False, True):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(source))
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
        if full:
            s.bind(("", 5353))
            s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                         socket.inet_aton("224.0.0.251") + socket.inet_aton(source))
        else:
            s.bind((source, 0))
        s.settimeout(2)
        for attempt in range(5):
            s.sendto(mdns_query(name, 0 if full else attempt + 1), ("224.0.0.251", 5353))
            try:
                while True:
                    data, _ = s.recvfrom(9000)
                    found = mdns_answer(data, name)
                    if found:
                        s.close()
                        return found
            except socket.timeout:
                continue
        s.close()
    return None


def g_phone_boot() -> None:
    """At power-on: the phone waits for its network (the card's, or the home one), then its address, then
    the captive probe's redirect; each moment is printed in seconds since the kernel started."""
    dev = radios()["phone"]["dev"]
    got = g_join(dev, f"{DIR}/phone.conf", 900)
    print(f"phone: associated at {got.get('associated_at')} s", flush=True)
    print(f"phone: address {got.get('address')} at {got.get('address_at')} s", flush=True)
    if not got.get("address"):
        return
    if not got["address"].startswith(HOTSPOT.rsplit(".", 1)[0] + "."):
        print("phone: on a network other than the board's own: no sign-in sheet to wait for", flush=True)
        return
    deadline, last = time.monotonic() + 300, ""
    while time.monotonic() < deadline:
        # each look in a new `ip netns exec`, as a phone's probe after it joined: the bind of the phone's
        # resolv.conf over /etc/resolv.conf that `ip netns exec` made when this unit started is gone once
        # NetworkManager renames its own resolv.conf into place (the kernel detaches a mount whose file is
        # replaced), and this process then asked qemu's name server, out of the phone's reach: every probe
        # of the boot-time runs hung for 60 s
        try:
            r = subprocess.run(["ip", "netns", "exec", "phone", sys.executable, os.path.abspath(__file__), "guest",
                                "probe"], capture_output=True, text=True, timeout=60)
            code, location = json.loads(r.stdout.strip().splitlines()[-1])["probes"]["Android"]
        except subprocess.TimeoutExpired:
            code, location = 0, "no answer to the probe within 60 s"
        except (ValueError, IndexError, KeyError):
            code, location = 0, r.stderr[-200:]
        if code == 302:
            print(f"phone: captive redirect to {location} at {uptime():.1f} s", flush=True)
            return
        if location != last:
            print(f"phone: probe at {uptime():.1f} s: {code} {location}", flush=True)
            last = location
        time.sleep(0.5)
    print(f"phone: no captive redirect in 300 s (last: {last})", flush=True)


def guest(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="wifi_check.py guest")
    ap.add_argument("what")
    ap.add_argument("--conf")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--mac")
    ap.add_argument("--url", default=f"http://{HOTSPOT}")
    ap.add_argument("--steps", default="[]")
    ap.add_argument("--until")
    ap.add_argument("--name", default="landsend.local")
    a = ap.parse_args(argv)
    if a.what == "radios":
        g_radios()
    elif a.what == "home":
        g_home()
    elif a.what == "phone-boot":
        g_phone_boot()
    elif a.what == "join":
        print(json.dumps(g_join(radios()["phone"]["dev"], a.conf, a.timeout, a.mac)))
    elif a.what == "joins":
        print(json.dumps(g_joins(a.conf, int(a.timeout))))
    elif a.what == "leave":
        g_leave(radios()["phone"]["dev"])
    elif a.what == "probe":
        print(json.dumps(g_probe()))
    elif a.what == "api":
        print(json.dumps(g_api(a.url, json.loads(a.steps), a.timeout)))
    elif a.what == "watch":
        print(json.dumps(g_watch(radios()["board"]["dev"], a.until, a.timeout)))
    elif a.what == "mdns":
        source = Path(f"{RUN}/{radios()['phone']['dev']}.lease").read_text().strip()
        # up to 80 s: avahi may have renamed the board on its own probe, and the daemon's name watch looks
        # every 15 s (firmware/mdns.py)
        t0, found = time.monotonic(), None
        while found is None and time.monotonic() - t0 < 80:
            found = g_mdns(a.name, source)
        print(json.dumps({"address": found, "after_s": round(time.monotonic() - t0, 1)}))
    else:
        raise SystemExit(f"unknown guest command {a.what}")
    return 0


# ---------------------------------------------------------------- on the build machine

class Guest:
    """The booted copy over SSH: files in, the guest half of this file run there."""

    def __init__(self, m: Machine):
        self.m = m

    def put(self, data: bytes, path: str, mode: str = "644") -> None:
        m = self.m
        r = subprocess.run(["ssh", "-i", str(m.work / "id"), "-p", str(m.args.ssh_port), "-o", "BatchMode=yes",
                            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o",
                            "LogLevel=ERROR", "root@127.0.0.1",
                            f"mkdir -p {shlex.quote(str(Path(path).parent))} && cat > {shlex.quote(path)} && "
                            f"chmod {mode} {shlex.quote(path)}"], input=data, capture_output=True, timeout=300)
        check(r.returncode == 0, f"cannot copy {path} into the guest: {r.stderr.decode().strip()}")

    def sh(self, command: str, timeout: float = 300) -> str:
        try:
            return self.m.ssh(command, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise CheckFailed(f"no answer within {timeout:.0f} s from the guest to: {command[:200]}") from None

    def agent(self, what: str, *args: str, ns: str | None = None, timeout: float = 600, before: str = "") -> dict:
        cmd = " ".join(shlex.quote(x) for x in ["python3", f"{DIR}/wifi_check.py", "guest", what, *args])
        if ns:
            cmd = f"ip netns exec {ns} {cmd}"
        out = self.sh(f"{before}{cmd}", timeout=timeout).strip()
        return json.loads(out.splitlines()[-1]) if out else {}

    def api(self, steps: list, *, url: str = f"http://{HOTSPOT}", wait: float = 120) -> list:
        return self.agent("api", "--url", url, "--steps", json.dumps(steps), "--timeout", str(wait), ns="phone",
                          timeout=wait * (len(steps) + 1) + 120)

    def uptime(self) -> float:
        return float(self.sh("cat /proc/uptime").split()[0])


def install(g: Guest, debs: Path) -> str:
    """Bring the check's tools (hostapd, udhcpc: the packages fetched by wifi-check.sh) and its own files into
    the booted copy; return the packages' names."""
    names = []
    for deb in sorted(debs.glob("*.deb")):
        g.put(deb.read_bytes(), f"/var/tmp/wifi-check-debs/{deb.name}")
        names.append(deb.name.split("_")[0])
    # unpacked aside, not installed: no maintainer scripts (busybox's would remake the initrd, minutes under
    # TCG; hostapd's would enable its service), nothing in dpkg's database or on the PATH
    g.sh(f"for d in /var/tmp/wifi-check-debs/*.deb; do dpkg-deb -x \"$d\" {TOOLS} || exit 1; done; "
         f"{HOSTAPD} -v 2>&1 | head -1; {UDHCPC[0]} | head -1")
    here = Path(__file__).resolve().parent
    for name in ("wifi_check.py", "boot_check.py", "qr_read.py"):
        g.put((here / name).read_bytes(), f"{DIR}/{name}")
    g.put(udhcpc_script("phone").encode(), f"{DIR}/udhcpc.script", "755")
    for name, text in UNITS.items():
        g.put(text.encode(), f"/etc/systemd/system/{name}")
    g.sh(f"mkdir -p /etc/netns/phone /etc/netns/home {RUN}; touch /etc/netns/phone/resolv.conf "
         "/etc/netns/home/resolv.conf; systemctl daemon-reload; "
         "systemctl enable wifi-check-radios wifi-check-home wifi-check-phone >/dev/null 2>&1")
    return ", ".join(names)


def journal_stamp(g: Guest, unit: str, pattern: str) -> float | None:
    """Return the first journal line of ``unit`` this boot matching ``pattern``: its seconds since the kernel
    started (``-o short-monotonic``)."""
    out = g.sh(f"journalctl -b -q --no-pager -o short-monotonic -u {unit} | grep -E {shlex.quote(pattern)} "
               "| head -1 || true")
    m = re.match(r"\[\s*([\d.]+)\]", out.strip())
    return float(m.group(1)) if m else None


def wait_hotspot(g: Guest, dev: str, timeout: float) -> float:
    got = g.agent("watch", "--until", "landsend-hotspot", "--timeout", str(timeout), timeout=timeout + 60)
    check(got["reached"] is not None, f"the board's own Wi-Fi did not come up within {timeout:.0f} s: {got}")
    return got["reached"]


def phone_joins(g: Guest, conf: str, *, timeout: float = 60, mac: str | None = None) -> dict:
    g.agent("leave", ns="phone")
    args = ["--conf", conf, "--timeout", str(timeout)] + (["--mac", mac] if mac else [])
    return g.agent("join", *args, ns="phone", timeout=timeout + 200)


def card_phone(g: Guest) -> dict[str, str]:
    """Read the table card off the boot partition, decode its WIFI: code (the phone has nothing else) and
    write the phone's files from it: the card's password, a wrong one, the home network's. Return its fields."""
    card = g.sh("cat /boot/firmware/landsend-card.svg")
    codes = svg_codes(card)
    check(len(codes) == 2, f"the card holds {len(codes)} QR codes, not 2")
    fields = wifi_fields(decode(codes[0]))
    page_url = decode(codes[1])
    check(fields.get("T") == "WPA" and fields.get("S") == NAME and fields.get("P") == HOTSPOT_PASSWORD,
          f"the card's Wi-Fi code says {fields}")
    check(f"Password: {fields['P']}" in card, "the card's printed password differs from its code")
    say(f"the card's WIFI: code decoded from the SVG's modules: T={fields['T']} S={fields['S']!r} "
        f"P={fields['P']!r}; its page code: {page_url}")
    g.put(wpa_conf(fields["S"], fields["P"]).encode(), f"{DIR}/card.conf", "600")
    g.put(wpa_conf(fields["S"], WRONG_PASSWORD).encode(), f"{DIR}/wrong.conf", "600")
    g.put(wpa_conf(HOME_SSID, HOME_PASSWORD).encode(), f"{DIR}/home.conf", "600")
    return fields


def boot1(g: Guest, m: Machine, args, figures: list[str]) -> None:
    """The first boot: the radios plugged in, the card's phone, the bad inputs, the page's Wi-Fi screen,
    the move, the fall-back and the home network coming back."""
    t0 = time.monotonic()
    g.sh("systemctl start wifi-check-radios")
    plan = json.loads(g.sh(f"cat {RUN}/radios.json"))
    dev = plan["board"]["dev"]
    say("radio plan: " + ", ".join(f"{r} {plan[r]['phy']} ({plan[r]['dev']})" for r in ROLES)
        + "; the phone's and the home network's in their own namespaces")
    wait_hotspot(g, dev, 180)
    hot = time.monotonic() - t0                  # from the radios' start (SSH's round trips included)
    say(f"the board's own Wi-Fi up on {dev} {hot:.1f} s after the check loaded the radios (NetworkManager "
        f"found the radio itself: nothing in the product names it)")
    figures.append(f"radios loaded -> hotspot up {hot:.1f} s")
    ssid_nm = g.sh("nmcli -g 802-11-wireless.ssid,802-11-wireless.mode,ipv4.method connection show landsend-hotspot")
    check(NAME in ssid_nm and "ap" in ssid_nm and "shared" in ssid_nm, f"the hotspot profile: {ssid_nm}")
    card_phone(g)
    # 2. a phone joins with the card
    got = phone_joins(g, f"{DIR}/card.conf", timeout=90)
    check(got.get("associated") is not None, f"the phone did not associate with the card's password: {got}")
    check(bool(got.get("address")) and got["address"].startswith("10.42.0."), f"the phone got no address: {got}")
    cipher = g.sh(f"ip netns exec phone wpa_cli -p {RUN}/wpa -i {plan['phone']['dev']} status")
    check("pairwise_cipher=CCMP" in cipher and "key_mgmt=WPA2-PSK" in cipher, f"not WPA2/CCMP: {cipher}")
    say(f"phone joined {NAME!r} with WPA2-PSK/CCMP in {got['associated']:.1f} s, address {got['address']} "
        f"{got['address_s']:.1f} s after it started")
    figures.append(f"phone (card's password): associated {got['associated']:.1f} s, address "
                   f"{got['address_s']:.1f} s after it started")
    probe = g.agent("probe", ns="phone")
    check(all(v == HOTSPOT for v in probe["dns"].values()), f"the board's DNS: {probe['dns']}")
    for who, (code, location) in probe["probes"].items():
        check(code == 302 and location == f"http://{HOTSPOT}/?portal=1", f"{who}'s captive probe: {code} {location}")
    check(probe["sign_in"][0] == 200 and probe["sign_in"][2], f"the sign-in page: {probe['sign_in']}")
    say(f"DNS from the board answers every name with {HOTSPOT}; captive probes "
        + ", ".join(f"{w} {c} -> {loc}" for w, (c, loc) in probe["probes"].items())
        + f"; the sign-in page {probe['sign_in'][1]} bytes")
    res = g.api([["hand"], ["GET", "/api/wifi"]])
    check("hand" in res[0], f"the hand over the Wi-Fi: {res}")
    state = res[1]["body"]
    check(state.get("mode") == "hotspot" and state.get("waiting") == [HOME_SSID],
          f"with landsend.toml naming {HOME_SSID} (not there) the page says: {state}")
    say(f"over the board's own Wi-Fi the phone claimed the table and played a whole hand ({res[0]['hand']}); "
        f"landsend.toml names {HOME_SSID}, not in reach: the page says mode hotspot, waiting {state['waiting']}")
    # the wrong password: never an address
    bad = phone_joins(g, f"{DIR}/wrong.conf", timeout=30)
    log = g.sh(f"grep -cE 'WRONG_KEY|4-Way Handshake failed|pre-shared key may be incorrect' "
               f"{RUN}/wpa-{plan['phone']['dev']}.log || true").strip()
    check(bad.get("associated") is None and not bad.get("address"), f"a wrong password got in: {bad}")
    say(f"wrong password: no association in 30 s (state {bad.get('state')}), no address; wpa_supplicant logged "
        f"{log} failed handshakes")
    figures.append("wrong password: refused, no address")
    # a phone joining and leaving N times, a new address (MAC) each time, as phones randomise theirs
    runs = g.agent("joins", "--conf", f"{DIR}/card.conf", "--timeout", str(args.joins), ns="phone",
                   timeout=args.joins * 150 + 120)["joins"]
    for i, got in enumerate(runs):
        check(bool(got["address"]) and got["page"] == 200, f"join {i + 1}/{args.joins}: {got}")
    check(len({j["address"] for j in runs}) == args.joins, f"two phones were given one address: {runs}")
    t_join = [j["s"] for j in runs]
    leases = g.sh(f"cat /var/lib/NetworkManager/dnsmasq-{dev}.leases 2>/dev/null | wc -l").strip()
    say(f"{args.joins} joins and leaves, each with a new MAC: every one got an address "
        f"({min(t_join):.1f}-{max(t_join):.1f} s) and the page; the board's DHCP holds {leases} leases")
    figures.append(f"{args.joins} joins and leaves: all served, address in {min(t_join):.1f}-{max(t_join):.1f} s, "
                   f"{leases} leases")
    got = phone_joins(g, f"{DIR}/card.conf", timeout=60)
    check(bool(got.get("address")), f"the host's phone back on the board's Wi-Fi: {got}")
    # 4. the page's Wi-Fi screen against the real NetworkManager, the home network up
    g.sh("touch /etc/wifi-check/home-on; systemctl start wifi-check-home; sleep 5; "
         "systemctl is-active wifi-check-home")
    res = g.api([["POST", "/api/wifi/scan", {}]])
    nets = res[0].get("body", {}).get("networks", [])
    home = [n for n in nets if n["ssid"] == HOME_SSID]
    check(res[0].get("code") == 200 and home and home[0]["secure"] and home[0]["signal"] > 0,
          f"the scan from the page: {res}")
    say(f"scan from the page: {HOME_SSID} listed, signal {home[0]['signal']}, secure")
    before_profiles = g.sh("nmcli -t -f NAME,TYPE connection show | sort")
    t = time.monotonic()
    res = g.api([["POST", "/api/wifi/join", {"ssid": HOME_SSID, "password": WRONG_PASSWORD}],
                 ["until", "/api/wifi", "busy"]], wait=150)
    check(res[0].get("code") == 202, f"join with a wrong password: {res[0]}")
    state = res[1].get("body", {})
    trial = state.get("trial") or {}
    check(trial.get("ok") is False and "refused the password" in (trial.get("error") or "") and
          state.get("mode") == "hotspot" and not state.get("error"), f"after a wrong password: {state}")
    after_profiles = g.sh("nmcli -t -f NAME,TYPE connection show | sort")
    check(after_profiles == before_profiles, f"a wrong password changed the profiles: {before_profiles} -> "
                                             f"{after_profiles}")
    back = g.api([["GET", "/api/table"]], wait=60)
    check(back[0].get("code") == 200, f"the phone after the wrong password: {back}")
    wrong_s = time.monotonic() - t
    say(f"join {HOME_SSID} with a wrong password: {trial['error']!r}, the board's own Wi-Fi back, the profiles "
        f"unchanged, the phone on the page again ({wrong_s:.0f} s in all)")
    t = time.monotonic()
    res = g.api([["POST", "/api/wifi/join", {"ssid": HOME_SSID, "password": HOME_PASSWORD}],
                 ["until", "/api/wifi", "busy"]], wait=150)
    state = res[1].get("body", {})
    trial = state.get("trial") or {}
    check(res[0].get("code") == 202 and trial.get("ok") is True and trial.get("moved") is False and
          (trial.get("address") or "").startswith(HOME_NET + ".") and state.get("mode") == "hotspot",
          f"after the right password: {res}")
    right_s = time.monotonic() - t
    say(f"join {HOME_SSID} with the right password: works, the board will be at {trial['address']} there; "
        f"back on its own Wi-Fi (mode {state['mode']}), the phone reads it ({right_s:.0f} s)")
    res = g.api([["POST", "/api/wifi/move", {}]], wait=30)
    check(res[0].get("code") == 202, f"move: {res}")
    got = g.agent("watch", "--until", f"landsend {HOME_SSID}", "--timeout", "120", timeout=200)
    check(got["reached"] is not None, f"the board did not move: {got}")
    addr = g.sh(f"ip -4 -o addr show dev {dev} | awk '{{print $4}}'").strip().split("/")[0]
    check(addr == trial["address"], f"on {HOME_SSID} the board is at {addr}, the page said {trial['address']}")
    code = page_status(g, "home", addr, addr)
    check(code == "200", f"the page at {addr} from the home network: {code}")
    say(f"move: the board is on {HOME_SSID} at {addr}, the address the page said; the page answers there")
    figures.append(f"page's Wi-Fi screen: scan, wrong password ({wrong_s:.0f} s, own Wi-Fi back), right one "
                   f"({right_s:.0f} s, address {trial['address']}), move ({got['reached']:.0f} s) all as promised")
    home_away_and_back(g, figures, "moved to the home network from the page")


def home_away_and_back(g: Guest, figures: list[str], how: str) -> None:
    """Stop the home access point: the time until the board's own Wi-Fi is up; start it again: what the
    board does in the next 120 s."""
    fell = g.agent("watch", "--until", "landsend-hotspot", "--timeout", "300", timeout=400,
                   before="systemctl stop wifi-check-home && ")
    check(fell["reached"] is not None, f"no fall-back to the board's own Wi-Fi ({how}): {fell}")
    say(f"home access point gone ({how}): the board's own Wi-Fi up after {fell['reached']:.1f} s "
        f"({fell['timeline']})")
    again = g.agent("watch", "--timeout", "120", timeout=240, before="systemctl start wifi-check-home && ")
    last = again["timeline"][-1]
    say(f"home access point back for 120 s: the board {again['timeline']}")
    figures.append(f"fall-back ({how}, its AP gone): own Wi-Fi up after {fell['reached']:.1f} s; the AP back: "
                   f"the board on {last[2] if len(last) > 2 else 'nothing'} after 120 s")


def page_status(g: Guest, ns: str, address: str, host: str) -> str:
    """GET /api/table at ``address`` with ``Host: host`` from namespace ``ns``; return the status."""
    return g.sh(f"ip netns exec {ns} python3 -c \"import urllib.request as u; r=u.urlopen(u.Request("
                f"'http://{address}/api/table', headers={{'Host': '{host}'}}), timeout=20); print(r.status)\"").strip()


def boot_offset(g: Guest, m: Machine) -> float:
    """Seconds from qemu's start (power-on) to the kernel's (uptime 0)."""
    host = time.monotonic() - m.started
    return max(0.0, host - g.uptime())


def boot2(g: Guest, m: Machine, figures: list[str]) -> None:
    """Power-on with the phone waiting: the hotspot, the phone's address, the sign-in sheet, in seconds."""
    off = boot_offset(g, m)
    g.sh("timeout 600 sh -c 'until journalctl -b -u wifi-check-phone -o cat | grep -q -e \"captive redirect\" "
         "-e \"address None\"; do sleep 2; done'", timeout=700)
    dev = json.loads(g.sh(f"cat {RUN}/radios.json"))["board"]["dev"]
    radios_at = journal_stamp(g, "wifi-check-radios", "radios at")
    hot = journal_stamp(g, "NetworkManager", rf"device \({dev}\): Activation: successful")
    lines = g.sh("journalctl -b -u wifi-check-phone -o cat | grep '^phone:'")
    ats = dict(re.findall(r"phone: (associated|address \S+|captive redirect to \S+) at ([\d.]+) s", lines))
    assoc = next((float(v) for k, v in ats.items() if k == "associated"), None)
    addr = next((float(v) for k, v in ats.items() if k.startswith("address")), None)
    redirect = next((float(v) for k, v in ats.items() if k.startswith("captive")), None)
    check(None not in (hot, assoc, addr, redirect), f"power-on figures missing: hotspot {hot}, phone {lines}")
    say(f"power-on (qemu start; the kernel {off:.1f} s later): radios {radios_at + off:.1f} s, hotspot up "
        f"{hot + off:.1f} s, phone associated {assoc + off:.1f} s, its address {addr + off:.1f} s, the captive "
        f"probe's redirect {redirect + off:.1f} s")
    figures.append(f"power-on -> hotspot up {hot + off:.0f} s, -> phone's address {addr + off:.0f} s, "
                   f"-> captive redirect {redirect + off:.0f} s")


def boot3(g: Guest, m: Machine, figures: list[str], findings: list[str]) -> None:
    """Power-on with the home network up: the board joins it from landsend.toml; a phone there reaches the
    page at the board's address and at landsend.local; the home network goes away and comes back."""
    off = boot_offset(g, m)
    dev = json.loads(g.sh(f"cat {RUN}/radios.json"))["board"]["dev"]
    got = g.agent("watch", "--until", f"landsend {HOME_SSID}", "--timeout", "300", timeout=400)
    check(got["reached"] is not None, f"the board did not join {HOME_SSID} from landsend.toml: {got}")
    import uuid
    src = g.sh("nmcli -t -f NAME,UUID connection show --active").strip()
    made = str(uuid.uuid5(uuid.NAMESPACE_URL, "landsend-join:" + HOME_SSID))     # firmware/firstboot.py's
    check(f"landsend {HOME_SSID}:{made}" in src.splitlines(), f"the connection up is not the settings file's: {src}")
    joined = journal_stamp(g, "NetworkManager", rf"device \({dev}\): Activation: successful")
    addr = g.sh(f"ip -4 -o addr show dev {dev} | awk '{{print $4}}'").strip().split("/")[0]
    say(f"power-on -> on {HOME_SSID} (the profile from landsend.toml) {joined + off:.1f} s, at {addr}")
    g.sh("timeout 600 sh -c 'until journalctl -b -u wifi-check-phone -o cat | grep -q \"phone: address\"; "
         "do sleep 2; done'", timeout=700)
    res = g.api([["GET", "/api/table"]], url=f"http://{addr}", wait=60)
    check(res[0].get("code") == 200, f"a phone on {HOME_SSID} at http://{addr}/: {res}")
    say(f"a phone on {HOME_SSID} reaches the page at http://{addr}/")
    code = page_status(g, "phone", addr, "landsend.local")
    check(code == "200", f"the page as landsend.local: {code}")
    found = g.agent("mdns", ns="phone")
    if found.get("address") == addr:
        say(f"the phone resolves landsend.local by mDNS to {addr} (answered after {found.get('after_s')} s); "
            "the page answers to that name")
        figures.append(f"power-on -> on the home network from landsend.toml {joined + off:.0f} s; page at its "
                       f"address and at landsend.local (mDNS)")
    else:             # a finding: the run goes on to the fall-back, and fails at its end
        avahi = g.sh("avahi-resolve -4 -n landsend.local 2>&1; journalctl -b -u avahi-daemon -o cat | tail -5")
        findings.append(f"landsend.local from a phone on {HOME_SSID}: {found}, the board at {addr} "
                        f"(on the board: {avahi.strip()})")
        say(f"FINDING: {findings[-1]}")
        figures.append(f"power-on -> on the home network from landsend.toml {joined + off:.0f} s; page at its "
                       f"address; landsend.local NOT answered by mDNS in the phone's namespace")
    home_away_and_back(g, figures, "joined at boot from landsend.toml")


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "guest":
        return guest(sys.argv[2:])
    ap = machine_options("scripts/wifi-check.sh", port=8781, ssh_port=8723, work="/var/tmp/landsend-wifi-check")
    ap.add_argument("--debs", type=Path, required=True)
    ap.add_argument("--joins", type=int, default=20)
    ap.add_argument("--only", choices=["power-on", "boots"], help="power-on: only the boot with the phone "
                    "waiting; boots: that and the boot on the home network (the first boot just reads the card)")
    args = ap.parse_args()
    work = fresh_work(args.work)
    disk, size0, kernel, cmdline = card_copy(args.image, work)
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "wifi-check", "-f", str(work / "id")])
    pub = (work / "id.pub").read_text().strip()
    settings = work / "landsend.toml"
    settings.write_text(f'# wifi-check: the board\'s Wi-Fi, and a home network to join\nname = "{NAME}"\n'
                        f'hotspot_password = "{HOTSPOT_PASSWORD}"\n[wifi]\nssid = "{HOME_SSID}"\n'
                        f'password = "{HOME_PASSWORD}"\n[ssh]\nenabled = true\nauthorized_keys = ["{pub}"]\n'
                        '[strip]\ndriver = "sim"\ntype = "GRB"\n')
    disk.fat_put(settings, "landsend.toml")
    say(f"image {args.image.name}: {size0 // 1048576} MiB, booting {kernel}")
    m = Machine(args, work, work / "vmlinuz", work / "initrd.img", cmdline)
    g = Guest(m)
    figures: list[str] = []
    findings: list[str] = []
    try:
        m.start()
        page_s = m.wait_page(Api(args.port))
        say(f"first boot: the page answered after {page_s:.0f} s; no Wi-Fi radio in qemu's virt machine yet")
        shipped = g.sh("command -v hostapd udhcpc || true").strip()
        check(shipped == "", f"the image ships a test-only tool: {shipped}")
        tools = install(g, args.debs)
        say(f"test-only tools installed into the booted copy only: {tools}")
        if args.only:
            card_phone(g)
        else:
            boot1(g, m, args, figures)
        # the next boots: the radios from power-on, the phone waiting with the card's password
        g.sh(f"rm -f {DIR}/home-on; cp {DIR}/card.conf {DIR}/phone.conf; "
             f"while nmcli connection delete id 'landsend {HOME_SSID}' >/dev/null 2>&1; do :; done")
        m.shutdown()
        m.start()
        m.wait_page(Api(args.port))
        boot2(g, m, figures)
        if args.only != "power-on":
            g.sh(f"touch {DIR}/home-on; cp {DIR}/home.conf {DIR}/phone.conf")
            m.shutdown()
            m.start()
            m.wait_page(Api(args.port))
            boot3(g, m, figures, findings)
        m.shutdown()
    except CheckFailed as exc:
        say(f"FAILED: {exc}")
        return 1
    finally:
        m.stop()
    if findings:
        say("wifi-check FAILED: " + " | ".join(findings) + "; measured: " + "; ".join(figures))
        return 1
    say("wifi-check passed: " + "; ".join(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())

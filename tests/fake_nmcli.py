"""A stand-in for NetworkManager's ``nmcli``: answers the commands firmware.wifi runs and records them.

Run as ``python fake_nmcli.py --state FILE ARGS...``. FILE is JSON::

    {"device": "wlan0", "active": "landsend-hotspot",          # the connection up on the Wi-Fi device
     "profiles": {"landsend-hotspot": {"ssid": "Lands End 4F2A", "mode": "ap"}},
     "air": [{"ssid": "Pub", "signal": 70, "security": "WPA2", "password": "pint-of-best", "address": "192.168.1.23"}],
     "other_radios": ["wlan1"],                                 # radios with nothing up, listed first
     "calls": [[...args...], ...]}                              # every command line asked, in order

It behaves as NetworkManager 1.42 does in the cases the board meets: a wrong
password fails with "Secrets were required" (exit 4) and leaves the device
disconnected, a network out of reach is "not found" (exit 10), deleting an
unknown profile fails (exit 10). Terse (``-t``) output escapes ``:`` and ``\\``.
"""

import fcntl
import json
import os
import sys
from pathlib import Path


def esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace(":", "\\:")


def fail(code: int, message: str) -> None:
    sys.stderr.write(message + "\n")
    raise SystemExit(code)


def main(argv: list[str]) -> int:
    assert argv[0] == "--state", argv
    path = Path(argv[1])
    args = argv[2:]
    with open(path.with_name(path.name + ".lock"), "w") as lock:      # one nmcli at a time, as NetworkManager
        fcntl.flock(lock, fcntl.LOCK_EX)
        st = json.loads(path.read_text())
        st.setdefault("calls", []).append(args)
        try:
            return run(st, args)
        finally:
            tmp = path.with_name(path.name + ".new")
            tmp.write_text(json.dumps(st))
            os.replace(tmp, path)


def run(st: dict, args: list[str]) -> int:
    if args and args[0] == "--wait":
        args = args[2:]
    air = {n["ssid"]: n for n in st.get("air", [])}
    profiles = st.setdefault("profiles", {})
    dev = st.get("device", "wlan0")
    if args == ["-t", "-f", "DEVICE,TYPE,STATE,CONNECTION", "device", "status"]:
        active = st.get("active")
        for other in st.get("other_radios", []):                 # listed first, as a second radio may be
            print(f"{other}:wifi:disconnected:")
        print(f"{dev}:wifi:{'connected' if active else 'disconnected'}:{esc(active or '')}")
        print(f"p2p-dev-{dev}:wifi-p2p:disconnected:")
        print("lo:loopback:connected (externally):lo")
        return 0
    if args == ["-g", "IP4.ADDRESS", "device", "show", dev]:
        prof = profiles.get(st.get("active") or "")
        if prof is None:
            print("")
        elif prof.get("mode") == "ap":
            print("10.42.0.1/24")
        else:
            print(air[prof["ssid"]]["address"] + "/24")
        return 0
    if args == ["-t", "-f", "IN-USE,SSID,SIGNAL,SECURITY", "device", "wifi", "list", "--rescan", "yes"]:
        if profiles.get(st.get("active") or "", {}).get("mode") == "ap" and st.get("no_scan_in_ap"):
            fail(1, "Error: Scanning not allowed while in AP mode.")
        using = profiles.get(st.get("active") or "", {}).get("ssid")
        for n in st.get("air", []):
            print(f"{'*' if n['ssid'] == using else ' '}:{esc(n['ssid'])}:{n['signal']}:{esc(n['security'])}")
        return 0
    if args == ["-t", "-f", "NAME,TYPE,AUTOCONNECT", "connection", "show"]:
        for name, prof in profiles.items():
            print(f"{esc(name)}:802-11-wireless:{prof.get('autoconnect', 'yes')}")
        print("lo:loopback:no")
        return 0
    if args[:4] == ["connection", "add", "type", "wifi"]:
        opts = dict(zip(args[4::2], args[5::2]))
        name = opts["con-name"]
        if name in profiles:
            fail(1, f"Error: connection '{name}' exists")
        profiles[name] = {"ssid": opts["ssid"], "psk": opts.get("wifi-sec.psk", ""),
                          "autoconnect": opts.get("connection.autoconnect", "yes")}
        print(f"Connection '{name}' (0000) successfully added.")
        return 0
    if args[:3] == ["connection", "delete", "id"]:
        if args[3] not in profiles:
            fail(10, f"Error: unknown connection '{args[3]}'.")
        del profiles[args[3]]
        if st.get("active") == args[3]:
            st["active"] = None
        return 0
    if args[:3] == ["connection", "modify", "id"]:
        name = args[3]
        if name not in profiles:
            fail(10, f"Error: unknown connection '{name}'.")
        for key, value in zip(args[4::2], args[5::2]):
            if key == "connection.id":                       # a rename
                profiles[value] = profiles.pop(name)
                if st.get("active") == name:
                    st["active"] = value
                name = value
            else:
                profiles[name][key.split(".")[-1]] = value
        return 0
    if args[:3] == ["connection", "up", "id"]:
        name = args[3]
        prof = profiles.get(name)
        if prof is None:
            fail(10, f"Error: unknown connection '{name}'.")
        if prof.get("mode") != "ap":
            net = air.get(prof["ssid"])
            if net is None:
                st["active"] = None
                fail(10, f"Error: Connection activation failed: No network with SSID '{prof['ssid']}' found.")
            if net.get("password", "") != prof.get("psk", ""):
                st["active"] = None
                fail(4, "Error: Connection activation failed: Secrets were required, but not provided.")
        st["active"] = name
        print(f"Connection successfully activated (D-Bus active path: /org/freedesktop/NetworkManager/"
              f"ActiveConnection/{len(st['calls'])})")
        return 0
    if args[:3] == ["connection", "down", "id"]:
        if st.get("active") != args[3]:
            fail(10, f"Error: '{args[3]}' is not an active connection.")
        st["active"] = None
        return 0
    fail(2, f"Error: fake nmcli does not know {' '.join(args)}")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

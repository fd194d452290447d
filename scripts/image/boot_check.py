"""Boot the board's SD-card image in qemu and check it whole, then pull its power: scripts/boot-check.sh runs this.

Standard library only (the build machine's python3); qemu-system-aarch64, mtools, sfdisk and ssh do the rest.
Every figure is printed; the exit status is 1 at the first check that fails (the console log is kept).
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

T0 = time.monotonic()
NAME = "Lands End Check"
HOTSPOT_PASSWORD = "check-pass-2468"
JOIN_SSID = "CheckNet"
OUR_UNITS = ("landsend.service", "landsend-setup.service")
#: In qemu's virt machine there is no Pi: the settings file selects the simulated strip, and the buttons
#: find no Pi GPIO chip. That fault (and only that) is expected in the journal and on the page.
EXPECTED_FAULT = re.compile(r"^(fault: )?buttons: ")     # "fault: ": the page's hub logs it too, now that the
# buttons are built after the page listens (3d8d69e)


def say(text: str) -> None:
    print(f"==> [{time.monotonic() - T0:.0f} s] {text}", flush=True)


class CheckFailed(Exception):
    pass


def check(ok: bool, what: str) -> None:
    if not ok:
        raise CheckFailed(what)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


# ---------------------------------------------------------------- the image file: partitions and the FAT

class Disk:
    def __init__(self, path: Path):
        self.path = path
        table = json.loads(run(["sfdisk", "-J", str(path)]).stdout)["partitiontable"]
        self.parts = table["partitions"]
        self.boot = f"{path}@@{self.parts[0]['start'] * 512}"

    def fat_list(self) -> list[str]:
        r = run(["mdir", "-b", "-i", self.boot, "::/"])
        return [Path(line.strip()).name for line in r.stdout.splitlines() if line.strip()]

    def fat_get(self, name: str, dest: Path) -> None:
        r = run(["mcopy", "-o", "-n", "-i", self.boot, f"::/{name}", str(dest)])
        check(r.returncode == 0, f"cannot read {name} from the boot partition: {r.stderr.strip()}")

    def fat_put(self, src: Path, name: str) -> None:
        r = run(["mcopy", "-o", "-i", self.boot, str(src), f"::/{name}"])
        check(r.returncode == 0, f"cannot write {name} onto the boot partition: {r.stderr.strip()}")


# ---------------------------------------------------------------- the page's API, as a phone uses it

class Api:
    def __init__(self, port: int):
        self.url = f"http://127.0.0.1:{port}"
        self.base = f"http://localhost:{port}"      # the name the page trusts, and its origin
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = ""

    def request(self, method: str, path: str, body: dict | None = None, timeout: float = 20) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Host", self.base.removeprefix("http://"))
        req.add_header("Accept", "application/json")
        if body is not None:
            req.add_header("Content-Type", "application/json")
            req.add_header("Origin", self.base)
            req.add_header("X-CSRF-Token", self.csrf)
        try:
            with self.opener.open(req, timeout=timeout) as r:
                raw = r.read()
                return r.status, (json.loads(raw) if raw else {})
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                return e.code, json.loads(raw)
            except ValueError:
                return e.code, {"error": raw.decode(errors="replace")}

    def get(self, path: str) -> dict:
        code, body = self.request("GET", path)
        check(code == 200, f"GET {path}: {code} {body}")
        return body

    def host(self) -> dict:
        """Become a joined phone: the host when the table is unclaimed, else join with the code we keep."""
        session = self.get("/api/session")
        self.csrf = session["csrf"]
        if session["role"] in ("host", "player"):
            return session
        code, body = self.request("POST", "/api/claim", {})
        check(code == 200, f"POST /api/claim: {code} {body}")
        self.csrf = body.get("csrf", self.csrf)
        return body

    def raw(self, method: str, path: str, timeout: float = 60) -> bytes:
        """Return the body of a GET of a file (a backup), as the host's phone downloads it."""
        req = urllib.request.Request(self.url + path, method=method)
        req.add_header("Host", self.base.removeprefix("http://"))
        with self.opener.open(req, timeout=timeout) as r:
            check(r.status == 200, f"{method} {path}: {r.status}")
            return r.read()

    def upload(self, data: bytes, piece: int, path: str = "/api/restore/upload") -> None:
        """Send a backup file in pieces, as the page does (POST /api/restore/upload?offset=N; an update file:
        ``path="/api/update/upload"``)."""
        at = 0
        while at < len(data):
            req = urllib.request.Request(f"{self.url}{path}?offset={at}", data=data[at:at + piece],
                                         method="POST")
            req.add_header("Host", self.base.removeprefix("http://"))
            req.add_header("Origin", self.base)
            req.add_header("X-CSRF-Token", self.csrf)
            req.add_header("Content-Type", "application/octet-stream")
            with self.opener.open(req, timeout=60) as r:
                at = json.loads(r.read())["have"]

    def cmd(self, command: dict, client_id: str | None = None, timeout: float = 20) -> tuple[int, dict]:
        body = dict(command)
        if client_id:
            body["client_id"] = client_id
        return self.request("POST", "/api/command", body, timeout=timeout)


def whole_hand(api: Api) -> str:
    """Enter a whole two-hand hand (Two Handed Five Card Cribbage: turn-up, the play, both shows, the
    pocket) through the API as the page does; return the scores."""
    hand = [{"type": "new_match", "game": "five-card", "players": ["Ann", "Bob"], "first_dealer": "Bob"},
            {"type": "turnup", "card": "KC"},
            *({"type": "play", "card": c} for c in ("9C", "8C", "7C", "2S", "2D", "2H")),
            {"type": "show", "cards": ["9C", "7C", "2D"]},
            {"type": "show", "cards": ["8C", "2S", "2H"]},
            {"type": "pocket", "cards": ["AS", "3D", "4H", "6S"]}]
    for c in hand:
        code, body = api.cmd(c)
        check(code == 200, f"the hand: {c} refused: {code} {body}")
    t = api.get("/api/table")
    check(t["hand_no"] == 2 and t["dealer"] == "Ann", f"after the whole hand: hand {t['hand_no']}, dealer {t['dealer']}")
    return ", ".join(f"{s['name']} {s['score']}" for s in t["sides"])


# ---------------------------------------------------------------- qemu

class Machine:
    def __init__(self, args, work: Path, kernel: Path, initrd: Path, cmdline: str, disk: str = "disk.img"):
        self.args, self.work, self.kernel, self.initrd, self.cmdline = args, work, kernel, initrd, cmdline
        self.disk = disk
        self.proc: subprocess.Popen | None = None
        self.boots = 0

    def start(self) -> None:
        self.boots += 1
        log = open(self.work / f"console-{Path(self.disk).stem}-{self.boots}.log", "w")
        a = self.args
        cmd = ["qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72", "-smp", str(a.smp), "-m", str(a.mem),
               "-kernel", str(self.kernel), "-initrd", str(self.initrd), "-append", self.cmdline,
               # write-through to the host: what the guest saw written is on the host's disk, so SIGKILL is a
               # real power cut for the guest's file systems
               "-drive", f"file={self.work / self.disk},format=raw,if=virtio,cache=directsync",
               "-netdev", f"user,id=n0,hostfwd=tcp:127.0.0.1:{a.port}-:80,hostfwd=tcp:127.0.0.1:{a.ssh_port}-:22",
               "-device", "virtio-net-pci,netdev=n0", "-device", "virtio-rng-pci",
               "-nographic", "-no-reboot", "-monitor", "none", "-serial", "stdio"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        self.started = time.monotonic()

    def wait_page(self, api: Api) -> float:
        """Wait until the page answers; return the seconds since qemu started."""
        deadline = self.started + self.args.boot_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise CheckFailed(f"qemu exited ({self.proc.returncode}) before the page answered; "
                                  f"console: {self.work}/console-{Path(self.disk).stem}-{self.boots}.log")
            try:
                code, _ = api.request("GET", "/api/table", timeout=5)
                if code == 200:
                    return time.monotonic() - self.started
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(1)
        raise CheckFailed(f"the page did not answer within {self.args.boot_timeout} s "
                          f"(console: {self.work}/console-{Path(self.disk).stem}-{self.boots}.log)")

    def ssh(self, command: str, timeout: float = 120) -> str:
        r = run(["ssh", "-i", str(self.work / "id"), "-p", str(self.args.ssh_port), "-o", "BatchMode=yes",
                 "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
                 "-o", "ConnectTimeout=20", "root@127.0.0.1", command], timeout=timeout)
        check(r.returncode == 0, f"ssh {command!r}: {r.returncode} {r.stderr.strip()} {r.stdout.strip()}")
        return r.stdout

    def cut(self) -> None:
        """Pull the plug: SIGKILL, no shutdown of any kind."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def shutdown(self) -> None:
        try:
            self.ssh("systemctl poweroff --no-block", timeout=30)
        except (CheckFailed, subprocess.TimeoutExpired):
            pass
        try:
            self.proc.wait(timeout=180)
        except subprocess.TimeoutExpired:
            self.cut()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.cut()


# ---------------------------------------------------------------- the checks

def boot_figures(m: Machine) -> str:
    state = m.ssh("systemctl is-system-running --wait || true", timeout=600).strip()
    check(state == "running", f"the system is {state!r} after booting (systemctl --failed says why)")
    out = m.ssh("systemd-analyze time | head -1; systemctl show landsend -P ActiveEnterTimestampMonotonic; "
                "systemctl show landsend -P Type; systemctl is-active landsend")
    lines = out.strip().splitlines()
    check(lines[-1] == "active" and lines[-2] == "notify", f"landsend is {lines[-1]} (Type={lines[-2]})")
    ready_s = int(lines[-3]) / 1e6
    return (f"landsend READY (Type=notify, active) {ready_s:.1f} s after the kernel started; system {state}; "
            f"{lines[0].strip()}")


IDLE_UNITS = ("landsend", "NetworkManager", "wpa_supplicant", "avahi-daemon", "systemd-journald", "ssh",
              "systemd-timesyncd", "systemd-logind", "polkit", "dbus")
ZERO2W_MB = 430
"""What a Zero 2 W's Linux has of its 512 MiB: the firmware keeps 64 MiB for the GPU (``gpu_mem``'s default on a
512 MiB board; the image's config.txt leaves it), and the kernel's own code and tables take about 18 MiB."""
IDLE_BUDGET_MB = 240
"""The image at idle (the daemon up with its warmed job worker, NetworkManager, the rest; a hand played) may use
at most this much (MemTotal - MemAvailable): the rest of :data:`ZERO2W_MB`, 190 MiB, is the room for the warm
worker's growth and a second worker's, each up to its retire line (web/jobworker.py: 96 MiB on a Zero 2 W),
and the page cache the store's reads need."""


def memory_figures(m: Machine) -> str:
    """The image's memory at idle: in use (MemTotal - MemAvailable), each big unit's share (its cgroup's
    memory.current) and the daemon's and its job worker's PSS; checked against :data:`IDLE_BUDGET_MB`."""
    # first the job worker the daemon starts ahead, done warming the advice (its CPU time still for 10 s)
    m.ssh("main=$(systemctl show -P MainPID landsend); for i in $(seq 120); do w=$(pgrep -P $main | head -1); "
          "[ -n \"$w\" ] && { a=$(cut -d' ' -f14-15 /proc/$w/stat); sleep 10; [ \"$a\" = \"$(cut -d' ' -f14-15 "
          "/proc/$w/stat)\" ] && break; }; sleep 2; done", timeout=600)
    out = m.ssh("grep -E '^(MemTotal|MemAvailable):' /proc/meminfo; for u in " + " ".join(IDLE_UNITS) + "; do "
                "echo unit $u $(systemctl show -P MemoryCurrent $u.service); done; "
                "main=$(systemctl show -P MainPID landsend); for p in $main $(pgrep -P $main); do echo pss $p "
                "$(awk '/^Pss:/ {print $2}' /proc/$p/smaps_rollup); done")
    kb = dict(re.findall(r"^(MemTotal|MemAvailable):\s+(\d+) kB", out, re.M))
    check(len(kb) == 2, f"/proc/meminfo: {out}")
    total, used = int(kb["MemTotal"]) / 1024, (int(kb["MemTotal"]) - int(kb["MemAvailable"])) / 1024
    units = {u: int(v) / 1048576 for u, v in re.findall(r"^unit (\S+) (\d+)$", out, re.M)}
    pss = [(int(kb_) / 1024, "job worker" if i else "daemon")             # the daemon first, then its children
           for i, (_, kb_) in enumerate(re.findall(r"^pss (\d+) (\d+)", out, re.M))]
    check(used <= IDLE_BUDGET_MB, f"the image at idle uses {used:.0f} MiB, over its budget of {IDLE_BUDGET_MB} MiB "
                                  f"(of a Zero 2 W's {ZERO2W_MB}): {out}")
    return (f"memory at idle: {used:.0f} MiB in use of {total:.0f} (budget {IDLE_BUDGET_MB} of a Zero 2 W's "
            f"{ZERO2W_MB}); by unit: " + ", ".join(f"{u} {v:.1f}" for u, v in sorted(units.items(), key=lambda x: -x[1]))
            + " MiB; PSS: " + ", ".join(f"{w} {v:.1f} MiB" for v, w in pss))


def system_checks(m: Machine, api: Api) -> None:
    failed = m.ssh("systemctl --failed --no-legend --plain").strip()
    check(failed == "", f"systemctl --failed: {failed}")
    say("systemctl --failed: empty")
    # systemd's own messages about our units at priority err and above, and what the daemon and the setup
    # logged at ERROR or worse (Python's logging goes to stderr, which the journal keeps at priority info)
    units = " ".join(f"-u {u}" for u in OUR_UNITS)
    errors = m.ssh(f"journalctl -b -q -p err --no-pager -o cat {units}; "
                   f"journalctl -b -q --no-pager -o cat {units} | grep -E ' (ERROR|CRITICAL) |^Traceback' || true")
    lines = [x for x in errors.splitlines() if x.strip()]
    unexpected = [x for x in lines if not EXPECTED_FAULT.search(re.sub(r"^\S+ \S+ (ERROR|CRITICAL) \S+ ", "", x))]
    check(not unexpected, "errors from our units in the journal: " + " | ".join(unexpected))
    say(f"journal of {', '.join(OUR_UNITS)}: no error" +
        (f" but the expected one of qemu's missing Pi GPIO: {lines[0][-120:]!r}" if lines else ""))
    faults = api.get("/api/session")["faults"]
    check(all(EXPECTED_FAULT.search(f) for f in faults), f"the page shows faults: {faults}")
    # the three- and four-hand advice's compiled play-out (native/, built from source when the image was made)
    native = m.ssh("/opt/landsend/current/bin/python -c 'import pegwalk; from companion.advice import pegging_multi "
                   "as m; print(m._NATIVE is pegwalk, m._SAMPLE_IN_C, pegwalk.__file__)'").split()
    check(native[:2] == ["True", "True"], f"the compiled play-out is not in use on the board: {native}")
    say(f"the advice's compiled play-out in use: {native[2]}")


def network_checks(m: Machine) -> None:
    cons = m.ssh("nmcli -t -f NAME,TYPE connection show")
    check("landsend-hotspot:802-11-wireless" in cons, f"no hotspot profile in NetworkManager: {cons}")
    check(f"landsend {JOIN_SSID}:802-11-wireless" in cons, f"no profile joining {JOIN_SSID}: {cons}")
    spot = m.ssh("nmcli -s -g 802-11-wireless.ssid,802-11-wireless.mode,802-11-wireless-security.psk,"
                 "ipv4.method connection show landsend-hotspot").strip().splitlines()
    check(spot == [NAME, "ap", HOTSPOT_PASSWORD, "shared"], f"the hotspot profile: {spot}")
    say(f"NetworkManager holds landsend-hotspot ({NAME!r}, ap, the settings file's password, shared) "
        f"and 'landsend {JOIN_SSID}'")
    # the name: avahi can rename the board (landsend-2.local) on its own probe (avahi issue #117); the daemon's
    # name watch (firmware/mdns.py, a look every 15 s) asks for landsend again. avahi-resolve gives up after 5 s,
    # so a few tries for up to 75 s, and what avahi and the daemon said when none answered.
    resolve = ("for i in $(seq 15); do avahi-resolve -4 -n landsend.local 2>&1 | grep -q '^landsend.local' && "
               "break; sleep 5; done; avahi-resolve -4 -n landsend.local 2>&1; hostname; "
               "journalctl -b -q -u avahi-daemon -o cat | grep -E 'Host name|conflict' | tail -4; "
               "journalctl -b -q -u landsend -o cat | grep 'mdns:' | tail -4")
    out = m.ssh(resolve, timeout=150)
    resolved = out.split("\n", 1)[0].split()
    check(len(resolved) == 2 and resolved[0] == "landsend.local", f"avahi: {out}")
    renamed = [x for x in out.splitlines() if "mdns: avahi had renamed" in x]
    if renamed:
        say(f"avahi renamed the board at this boot and the daemon undid it: {renamed[0][-150:]}")
    # a rename forced now (as avahi's own spurious one would): the daemon must take the name back by itself
    get = "busctl --system --json=short call org.freedesktop.Avahi / org.freedesktop.Avahi.Server GetHostName"
    m.ssh("avahi-set-host-name landsend-2")
    t0 = time.monotonic()
    name = ""
    while time.monotonic() - t0 < 90:
        name = json.loads(m.ssh(get))["data"][0]
        if name == "landsend":
            break
        time.sleep(2)
    took = time.monotonic() - t0
    said = m.ssh("journalctl -b -q -u landsend -o cat | grep 'mdns:' | tail -3")
    check(name == "landsend", f"avahi still answers as {name}.local {took:.0f} s after a rename: {said}")
    check("avahi had renamed the board landsend-2.local" in said, f"the daemon did not say it took the name back: {said}")
    out = m.ssh(resolve, timeout=150)
    resolved = out.split("\n", 1)[0].split()
    check(len(resolved) == 2 and resolved[0] == "landsend.local", f"avahi after the rename: {out}")
    say(f"avahi renamed to landsend-2.local by hand: the daemon took landsend.local back in {took:.0f} s")
    browse = m.ssh("avahi-browse -t -r -p _http._tcp | grep '^=' | head -3")
    check("Land" in browse and ";80;" in browse, f"avahi does not publish the page: {browse}")
    say(f"avahi publishes landsend.local -> {resolved[1]} and the page's _http._tcp service on port 80")


def hammer(api: Api, prefix: str, acked: list[str], stop: threading.Event, stats: dict, pause: float = 0.0) -> None:
    """Send pegs (1 point, the two sides in turn) as fast as they are acknowledged (or ``pause`` seconds apart),
    each with its own client id, until ``stop``; a finished game is followed by the next one. Record every
    acknowledged id."""
    i = 0
    while not stop.wait(pause) if pause else not stop.is_set():
        i += 1
        cid = f"{prefix}-{i}"
        side = "p1" if i % 2 else "p2"
        stats["in_flight"] = cid
        try:
            code, body = api.cmd({"type": "peg", "side": side, "points": 1}, client_id=cid, timeout=10)
        except Exception:
            return          # the plug was pulled under the request: not acknowledged
        if code == 200:
            acked.append(cid)
            stats["in_flight"] = None
        elif code == 400 and "over" in body.get("error", "") + json.dumps(api.get("/api/table").get("result")):
            stats["in_flight"] = None
            code, body = api.cmd({"type": "new_game"}, client_id=f"{cid}-next", timeout=10)
            if code == 200:
                acked.append(f"{cid}-next")
        else:
            stats["refused"] = f"{code} {body}"
            return


def verify_acked(api: Api, acked: list[str], seqs: dict[str, int], in_flight: list[str]) -> str:
    """Every acknowledged command is stored once: sent again with its client id, the table answers with the
    first event (``duplicate``) at the seq it had; the ones cut in flight are stored at most once."""
    for cid in acked:
        command = {"type": "new_game"} if cid.endswith("-next") else {"type": "peg", "side": "p1", "points": 1}
        code, body = api.cmd(command, client_id=cid)
        check(code == 200 and body.get("event", {}).get("duplicate") is True,
              f"acknowledged {cid} is not in the table after the power cut: {code} {body}")
        seq = body["seq"]
        check(seqs.setdefault(cid, seq) == seq, f"{cid} moved from seq {seqs[cid]} to {seq}")
    stored = 0
    for cid in in_flight:
        code, body = api.cmd({"type": "peg", "side": "p1", "points": 1}, client_id=cid)
        if code == 200 and body.get("event", {}).get("duplicate"):
            stored += 1
            continue
        # not stored before the cut: it is applied now, once (it counts as acknowledged from here on)
        check(code == 200 or code == 400, f"{cid} after the cut: {code} {body}")
        if code == 200:
            acked.append(cid)
            seqs[cid] = body["seq"]
    all_seqs = sorted(seqs.values())
    check(len(all_seqs) == len(set(all_seqs)), "two acknowledged commands share a seq")
    events = api.get("/api/history")["events"]
    seq_list = [e["seq"] for e in events]
    check(len(seq_list) == len(set(seq_list)), "the history has a seq twice")
    return f"{len(acked)} acknowledged commands all stored once ({stored} of {len(in_flight)} cut in flight had been stored)"


SEASON_VIEWS = ("/api/table", "/api/history", "/api/season", "/api/night", "/api/games")
"""What the phones see of the whole table: equal, JSON for JSON, after a restore on a fresh card."""


def views(api: Api) -> dict:
    """Every view, each once the season is worked out (a view answers 202 with its job until then)."""
    out = {}
    for path in SEASON_VIEWS:
        deadline = time.monotonic() + 180
        while True:
            code, body = api.request("GET", path, timeout=60)
            if code == 200:
                out[path] = body
                break
            check(code == 202 and time.monotonic() < deadline, f"GET {path}: {code} {str(body)[:200]}")
            time.sleep(1)
    return out


WATCHDOG_S = 20
"""``WatchdogSec=`` of systemd/landsend.service."""


def notify_refusals(m: Machine) -> str:
    """Check that systemd refused no notification for landsend.service in any boot of the card: a program the
    daemon started (``busctl``, ``timedatectl``: systemd's tools send ``ERRNO=`` when they fail) must not have
    the daemon's notify socket. Return what was looked at."""
    said = m.ssh("journalctl -q -u landsend -o cat | grep 'Got notification message' || true").strip()
    check(not said, f"systemd refused notifications for landsend.service: {said[:400]}")
    boots = len(m.ssh("journalctl -q --list-boots").strip().splitlines())
    return f"no notification refused in the card's {boots} boot(s)"


def keep_the_season(args, work: Path, disk: Disk, m: Machine, api: Api, *, kernel_args, settings: Path) -> str:
    """Back the board up through the page, boot a fresh copy of the image (a newly flashed card), restore the
    backup there from the phone, and compare what the phones see; return the figure line."""
    api.host()
    before = views(api)
    t0 = time.monotonic()
    data = api.raw("GET", "/api/backup")
    backup_s = time.monotonic() - t0
    say(f"backup downloaded from the host's phone: {len(data):,} bytes in {backup_s:.1f} s")
    m.shutdown()
    fresh = work / "fresh.img"                      # a newly flashed card: the image file, copied anew
    run(["cp", "--sparse=always", str(args.image), str(fresh)])
    with open(fresh, "r+b") as f:
        f.truncate(args.image.stat().st_size + 1024 * 1048576)
    Disk(fresh).fat_put(settings, "landsend.toml")
    m2 = Machine(args, work, *kernel_args, disk=fresh.name)
    try:
        m2.start()
        page_s = m2.wait_page(api)
        phone = Api(args.port)                      # the host's phone on the new board
        phone.host()
        empty = phone.get("/api/games")
        check(empty["total"] == 0 or empty["total"] == 1, f"the fresh card holds games: {empty['total']}")
        boot = phone.get("/api/session")["boot"]
        main_pid = m2.ssh("systemctl show -P MainPID landsend").strip()
        t0 = time.monotonic()
        phone.upload(data, phone.get("/api/backups")["piece"])
        code, body = phone.request("POST", "/api/restore", {"bytes": len(data)}, timeout=120)
        check(code == 202, f"POST /api/restore: {code} {body}")
        while True:                                  # the board starts again on the restored table
            check(time.monotonic() - t0 < 300, "the board did not come back within 300 s of the restore")
            try:
                code, s = phone.request("GET", "/api/session", timeout=5)
                if code == 200 and s.get("boot") != boot:
                    break
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.5)
        restore_s = time.monotonic() - t0
        phone.host()
        check(phone.get("/api/session")["role"] == "host", "the phone that restored the table no longer hosts it")
        after = views(phone)
        for path in SEASON_VIEWS:
            check(after[path] == before[path], f"{path} differs after the restore: {str(after[path])[:300]} "
                                               f"against {str(before[path])[:300]}")
        kept = phone.get("/api/backups")
        check(any(k["reason"] == "before-restore" for k in kept["kept"]), f"no backup of the fresh table: {kept}")
        say(f"a fresh card (page after {page_s:.0f} s) restored from the phone in {restore_s:.0f} s: "
            f"{', '.join(SEASON_VIEWS)} equal, JSON for JSON; the host still hosts; the fresh table kept")
        # the daemon started itself again in the same process: systemd must still hear its watchdog there
        time.sleep(max(0.0, t0 + restore_s + WATCHDOG_S + 5 - time.monotonic()))
        unit = dict(line.split("=", 1) for line in m2.ssh(
            "systemctl show -p MainPID -p NRestarts -p ActiveState -p SubState landsend").split())
        check(unit == {"MainPID": main_pid, "NRestarts": "0", "ActiveState": "active", "SubState": "running"},
              f"the daemon after its restart for the restore, {WATCHDOG_S + 5} s on: {unit} (MainPID was {main_pid})")
        say(f"  {WATCHDOG_S + 5} s after the restore's restart: the same process ({main_pid}), never restarted by "
            f"systemd (its watchdog heard); {notify_refusals(m2)}")
        m2.shutdown()
    finally:
        m2.stop()
    m.start()                                        # back to the first card for what follows
    m.wait_page(api)
    say(f"the first card: {notify_refusals(m)}")
    return (f"keep the season: backup {len(data):,} bytes in {backup_s:.1f} s, restored on a fresh card in "
            f"{restore_s:.0f} s, every view equal")


def card_copy(image: Path, work: Path) -> tuple[Disk, int, str, str]:
    """Copy ``image`` to ``work``/disk.img on a card 1 GiB larger (the first boot grows the root) and take its
    kernel, initrd and command line off the boot partition (``work``/vmlinuz, initrd.img); return the disk,
    the image's size, the kernel's name and the command line for qemu (the Pi's consoles swapped for qemu's
    serial port). The Wi-Fi and update checks boot the same way."""
    check(image.is_file(), f"no image {image}")
    disk_path = work / "disk.img"
    run(["cp", "--sparse=always", str(image), str(disk_path)])
    size0 = disk_path.stat().st_size
    with open(disk_path, "r+b") as f:      # a card larger than the image: the first boot grows the root
        f.truncate(size0 + 1024 * 1048576)
    disk = Disk(disk_path)
    names = disk.fat_list()
    kernel = sorted(n for n in names if n.startswith("vmlinuz-"))[-1]
    initrd = sorted(n for n in names if n.startswith("initrd.img-"))[-1]
    disk.fat_get(kernel, work / "vmlinuz")
    disk.fat_get(initrd, work / "initrd.img")
    disk.fat_get("cmdline.txt", work / "cmdline.txt")
    pi_cmdline = (work / "cmdline.txt").read_text().split()
    # the image's own kernel command line, its Pi consoles swapped for qemu's serial port
    cmdline = " ".join([x for x in pi_cmdline if not x.startswith("console=")] + ["console=ttyAMA0"])
    return disk, size0, kernel, cmdline


def fresh_work(work: Path) -> Path:
    """Empty the check's work folder (a copy of the image and its logs from the run before go) and return it."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    return work


def machine_options(prog: str, *, port: int, ssh_port: int, work: str) -> argparse.ArgumentParser:
    """Return the argument parser with what every check that boots the image takes: the image, qemu's ports,
    memory, CPUs, the boot's time limit and the work folder (the boot, Wi-Fi and update checks)."""
    ap = argparse.ArgumentParser(prog=prog)
    ap.add_argument("image", type=Path)
    ap.add_argument("--port", type=int, default=port)
    ap.add_argument("--ssh-port", type=int, default=ssh_port)
    ap.add_argument("--mem", type=int, default=1024)
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--boot-timeout", type=int, default=900)
    ap.add_argument("--work", type=Path, default=Path(work))
    return ap


def main() -> int:
    ap = machine_options("scripts/boot-check.sh", port=8780, ssh_port=8722, work="/var/tmp/landsend-boot-check")
    ap.add_argument("--cuts", type=int, default=3)
    ap.add_argument("--seed", type=int, default=23)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = fresh_work(args.work)
    disk, size0, kernel, cmdline = card_copy(args.image, work)
    say(f"image {args.image.name}: {size0 // 1048576} MiB, booting {kernel} with '{cmdline}' "
        f"on a {(size0 >> 20) + 1024} MiB card")
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "boot-check", "-f", str(work / "id")])
    pub = (work / "id.pub").read_text().strip()
    good = work / "landsend.toml"
    good.write_text(f'# boot-check: a good settings file\nname = "{NAME}"\nhotspot_password = "{HOTSPOT_PASSWORD}"\n'
                    f'[wifi]\nssid = "{JOIN_SSID}"\npassword = "checknet-pass"\n'
                    f'[ssh]\nenabled = true\nauthorized_keys = ["{pub}"]\n'
                    '# no Pi in qemu: the simulated strip (the buttons find no Pi GPIO and say so on the page)\n'
                    '[strip]\ndriver = "sim"\ntype = "GRB"\n')
    disk.fat_put(good, "landsend.toml")
    m = Machine(args, work, work / "vmlinuz", work / "initrd.img", cmdline)
    figures: list[str] = []
    try:
        # 1. first boot with a good settings file
        api = Api(args.port)
        m.start()
        page_s = m.wait_page(api)
        say(f"first boot: the page answered {page_s:.0f} s after power-on")
        figures.append(f"first boot: page after {page_s:.0f} s")
        say(boot_figures(m))
        setup = m.ssh("journalctl -b -q -u landsend-setup -o cat")
        check("settings applied" in setup, f"the settings file was not applied: {setup}")
        grown = re.search(r"grew \S+ from \d+ MiB to \d+ MiB", setup)
        check(grown is not None, f"the root was not grown: {setup}")
        say(f"landsend-setup: {grown.group(0)}; settings applied")
        check("landsend.service" in m.ssh("systemctl list-dependencies --plain landsend-setup.service --reverse"),
              "landsend.service does not wait for landsend-setup")
        config = m.ssh("cat /etc/landsend/config.toml; cat /etc/hostname")
        check('driver = "sim"' in config, f"config.toml: {config}")
        api.host()
        say(f"a whole two-hand hand through the API: {whole_hand(api)}")
        system_checks(m, api)
        network_checks(m)
        line = memory_figures(m)
        say(line)
        figures.append(line.split(";")[0])
        # 2. power cuts while commands are being acknowledged
        acked: list[str] = []
        seqs: dict[str, int] = {}
        in_flight: list[str] = []
        cut_figures = []
        for n in range(1, args.cuts + 1):
            stop, stats = threading.Event(), {}
            writer = threading.Thread(target=hammer, args=(api, f"cut{n}", acked, stop, stats), daemon=True)
            before = len(acked)
            writer.start()
            delay = rng.uniform(1.0, 4.0)
            time.sleep(delay)
            m.cut()
            stop.set()
            writer.join(timeout=15)
            check("refused" not in stats, f"a command was refused while hammering: {stats.get('refused')}")
            if stats.get("in_flight"):
                in_flight.append(stats["in_flight"])
            m.start()
            page_s = m.wait_page(api)
            api.host()
            result = verify_acked(api, acked, seqs, [stats["in_flight"]] if stats.get("in_flight") else [])
            t = api.get("/api/table")
            line = (f"cut {n}/{args.cuts} after {delay:.1f} s and {len(acked) - before} acknowledged commands: "
                    f"booted, page after {page_s:.0f} s; {result}; table seq {t['seq']}")
            say(line)
            cut_figures.append(page_s)
        if args.cuts:
            failed = m.ssh("systemctl --failed --no-legend --plain").strip()
            check(failed == "", f"systemctl --failed after the cuts: {failed}")
            figures.append(f"{args.cuts} power cuts: booted every time, page after {min(cut_figures):.0f}-"
                           f"{max(cut_figures):.0f} s; {len(acked)} acknowledged commands all kept, none twice")
        # 3. a clean shutdown, the table card, then a malformed settings file
        m.shutdown()
        disk.fat_get("landsend-card.svg", work / "card.svg")
        card = (work / "card.svg").read_text()
        check(NAME in card and HOTSPOT_PASSWORD in card, "the table card lacks the Wi-Fi name or password")
        say(f"the table card on the boot partition names {NAME!r} and its password ({len(card)} bytes)")
        bad = work / "landsend-bad.toml"
        bad.write_text('name = "Broken Table"\n[strip]\ndriver = "neon"\n')
        disk.fat_put(bad, "landsend.toml")
        m.start()
        page_s = m.wait_page(api)
        api.host()
        faults = api.get("/api/session")["faults"]
        refused = [f for f in faults if "settings file refused" in f]
        check(refused and "line 3" in refused[0] and "strip.driver" in refused[0], f"the page's faults: {faults}")
        say(f"malformed settings file: the page says {refused[0]!r}")
        spot = m.ssh("nmcli -g 802-11-wireless.ssid connection show landsend-hotspot").strip()
        check(spot == NAME, f"the refused file changed the Wi-Fi name to {spot!r}")
        setup = m.ssh("journalctl -b -q -u landsend-setup -o cat")
        check("settings refused, nothing of it applied" in setup, f"landsend-setup: {setup}")
        check(m.ssh("systemctl is-active landsend").strip() == "active", "the daemon is not up with a refused file")
        say(f"  nothing of it applied (the Wi-Fi is still {spot!r}), the daemon is up; board: "
            f"{next(x for x in setup.splitlines() if 'boot pattern' in x or 'boot self-test' in x)}")
        figures.append(f"malformed settings file: refused whole, shown on the page, board up after {page_s:.0f} s")
        # 4. keep the season: back the board up from the host's phone, flash a fresh card, restore it there
        figures.append(keep_the_season(args, work, disk, m, api, kernel_args=(work / "vmlinuz", work / "initrd.img",
                                                                             cmdline), settings=good))
        m.shutdown()
    except CheckFailed as exc:
        say(f"FAILED: {exc}")
        return 1
    finally:
        m.stop()
    say("boot-check passed: " + "; ".join(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())

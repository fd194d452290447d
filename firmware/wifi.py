"""The board's Wi-Fi: its own access point, and joining a network, through NetworkManager's ``nmcli``.

Three pieces:

* :class:`Hotspot` — the board's own Wi-Fi (name, password, address), read
  from ``/etc/landsend/wifi.toml``, which ``systemd/install.sh`` writes once
  (the password is made then and never changed by a later install).
* :func:`install_files` — what install.sh puts on the Pi: that file, the
  NetworkManager profile ``landsend-hotspot`` (an access point in *shared*
  mode: NetworkManager runs DHCP and DNS for the phones) and a
  ``dnsmasq-shared.d`` drop-in that makes every name resolve to the board on
  its own Wi-Fi (the phones' captive-portal checks then reach the daemon).
  The polkit rule is a plain file, ``systemd/landsend-wifi.rules``.
* :class:`Wifi` — what the page's More screen and the board's buttons use:
  scan, try a network with its password (the board comes back to the
  network it was on and says whether it worked and which address it got
  there), move to it, and bring the hotspot up or down. Every change runs
  ``nmcli`` as the service user; the polkit rule lets that user do exactly
  this. The command is injected (``nmcli``), so tests replace it with a fake
  program that records what it was asked.

The profile comes up by itself when no known network is in reach: it has
the lowest autoconnect priority, and NetworkManager only autoconnects a
client profile whose network it has seen in a scan, while an access point
needs none. :class:`LinkWatch` (started by the daemon) covers the one case
NetworkManager misses: a network gone while it still calls it connected.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import secrets
import subprocess
import sys
import threading
import time
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

log = logging.getLogger(__name__)

WIFI_FILE = Path("/etc/landsend/wifi.toml")
PROFILE = "landsend-hotspot"
ADDRESS = "10.42.0.1"
"""The board's address on its own Wi-Fi (NetworkManager's shared-mode default, written into the profile)."""
JOIN_PREFIX = "landsend "
"""Profiles the page makes are named ``landsend <network name>``."""
TRY_PREFIX = "landsend-try "
"""The profile of a network being tried: a refused try deletes it and nothing else (the settings file's
profile of that network, named ``landsend <name>`` too, is kept); a try that works takes that name."""
JOIN_WAIT_S = 45
LEAVE_DELAY_S = 2.0
"""How long a change the page asked for waits before the board leaves the network it is on: the page's
202 must reach the phone first (a move answered over the board's own Wi-Fi was lost when the board left it
at once: the Wi-Fi check's phone timed out)."""
"""How long ``nmcli`` may take to join a network before the board goes back."""
PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
"""No 0/o, 1/l/i: the password is read off a card and typed on a phone."""


class WifiError(RuntimeError):
    """NetworkManager refused or failed; the message is one sentence for the page."""

    busy = False


class WifiBusy(WifiError):
    """Another change of the Wi-Fi is running (the page answers 409)."""

    busy = True


@dataclass(frozen=True)
class Hotspot:
    """The board's own Wi-Fi."""

    ssid: str
    password: str
    address: str = ADDRESS
    profile: str = PROFILE

    @classmethod
    def load(cls, path: "str | os.PathLike[str]" = WIFI_FILE) -> "Hotspot | None":
        """Return the hotspot in ``path``, or None when install.sh has not written one."""
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            log.error("cannot read the board's Wi-Fi from %s: %s", path, exc)
            return None
        try:
            return cls(ssid=str(data["ssid"]), password=str(data["password"]),
                       address=str(data.get("address", ADDRESS)), profile=str(data.get("profile", PROFILE)))
        except KeyError as exc:
            log.error("%s has no %s: the board's own Wi-Fi is not set up (run systemd/install.sh)", path, exc)
            return None

    @property
    def url(self) -> str:
        """Return the page's address on this Wi-Fi."""
        return f"http://{self.address}/"


# ---------------------------------------------------------------- what install.sh writes

def board_id(root: Path) -> str:
    """Return four hex digits naming this board: the end of the Pi's serial number, else of the Wi-Fi
    MAC address, else of the machine id, else random."""
    for rel in ("sys/firmware/devicetree/base/serial-number", "sys/class/net/wlan0/address", "etc/machine-id"):
        try:
            text = (root / rel).read_bytes().decode("ascii", "replace")
        except OSError:
            continue
        digits = re.sub(r"[^0-9a-fA-F]", "", text)
        if len(digits) >= 4 and digits.strip("0"):
            return digits[-4:].upper()
    return secrets.token_hex(2).upper()


def new_password(length: int = 12) -> str:
    """Return a random WPA password of ``length`` easy-to-read characters (about 59 bits for 12)."""
    return "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(length))


def hotspot_profile(spot: Hotspot) -> str:
    """Return the NetworkManager keyfile of the board's access point."""
    # a fixed uuid for a fixed name: installing again rewrites the same profile instead of adding one
    uid = uuid.uuid5(uuid.NAMESPACE_URL, f"landsend-hotspot:{spot.ssid}")
    return f"""# The board's own Wi-Fi (Land's End). Written by systemd/install.sh from /etc/landsend/wifi.toml;
# edit that file and install again rather than this one.
[connection]
id={spot.profile}
uuid={uid}
type=wifi
autoconnect=true
# lowest priority: a known network in reach always wins; this comes up when none is
autoconnect-priority=-100

[wifi]
mode=ap
ssid={spot.ssid}
band=bg
# channel 6: allowed to an access point under every regulatory domain, the "world" one of a board whose
# country is not set included; left to itself NetworkManager picked channel 13 there, where an access
# point may not start ("Failed to start AP functionality": no own Wi-Fi at all, seen by the Wi-Fi check)
channel=6

[wifi-security]
key-mgmt=wpa-psk
proto=rsn
pairwise=ccmp
group=ccmp
psk={spot.password}

[ipv4]
method=shared
address1={spot.address}/24

[ipv6]
method=disabled
"""


def dnsmasq_dropin(spot: Hotspot) -> str:
    """Return the dnsmasq drop-in that makes every name resolve to the board on its own Wi-Fi."""
    return ("# Land's End: on the board's own Wi-Fi (NetworkManager shared mode) every name is the board,\n"
            "# so a phone's captive-portal check reaches the page and opens it in its sign-in sheet.\n"
            f"address=/#/{spot.address}\n")


def install_files(root: "str | os.PathLike[str]" = "/", *, wifi_file: str = str(WIFI_FILE)) -> list[str]:
    """Write the board's Wi-Fi under ``root`` (``/`` on the Pi); return one line per file written.

    ``etc/landsend/wifi.toml`` is made once (name after the board, a new
    password) and kept on later runs; the NetworkManager profile (mode 0600,
    as NetworkManager demands) and the dnsmasq drop-in are written from it
    every time.
    """
    root = Path(root)
    said = []
    wifi_path = root / wifi_file.lstrip("/")
    spot = Hotspot.load(wifi_path)
    if spot is None:
        spot = Hotspot(ssid=f"Lands End {board_id(root)}", password=new_password())
        wifi_path.parent.mkdir(parents=True, exist_ok=True)
        _write(wifi_path, "# The board's own Wi-Fi, made by systemd/install.sh (kept on later installs).\n"
                          "# The NetworkManager profile landsend-hotspot is written from this file.\n"
                          f'ssid = "{spot.ssid}"\npassword = "{spot.password}"\naddress = "{spot.address}"\n'
                          f'profile = "{spot.profile}"\n', 0o640)
        said.append(f"writing {wifi_path} (Wi-Fi {spot.ssid!r}, a new password)")
    nm = root / "etc/NetworkManager"
    profile = nm / "system-connections" / f"{spot.profile}.nmconnection"
    profile.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(profile.parent, 0o700)
    _write(profile, hotspot_profile(spot), 0o600)
    dropin = nm / "dnsmasq-shared.d" / "landsend.conf"
    dropin.parent.mkdir(parents=True, exist_ok=True)
    _write(dropin, dnsmasq_dropin(spot), 0o644)
    said.append(f"writing {profile} and {dropin}")
    return said


def _write(path: Path, text: str, mode: int) -> None:
    tmp = path.with_name(path.name + ".new")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


# ---------------------------------------------------------------- nmcli

def split_terse(line: str) -> list[str]:
    """Split one line of ``nmcli -t`` output on its unescaped colons (``\\:`` and ``\\\\`` are literal)."""
    fields, cur, i = [], [], 0
    while i < len(line):
        c = line[i]
        if c == "\\" and i + 1 < len(line):
            cur.append(line[i + 1])
            i += 2
            continue
        if c == ":":
            fields.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    fields.append("".join(cur))
    return fields


def _reason(ssid: str, err: str) -> str:
    """Return the page's sentence for nmcli's error text ``err`` while joining ``ssid``."""
    low = err.lower()
    if "secrets were required" in low or "802-1x" in low or "psk" in low and "invalid" in low:
        return f"{ssid} refused the password"
    if "no network with ssid" in low or "not found" in low:
        return f"no network named {ssid} is in reach"
    if "timeout" in low or "timed out" in low:
        return f"{ssid} did not answer within {JOIN_WAIT_S} s"
    line = err.strip().splitlines()[-1] if err.strip() else "no reason given"
    return f"joining {ssid} failed: {line.removeprefix('Error: ')}"


class Wifi:
    """Scan, try and join networks and run the board's hotspot with ``nmcli``.

    :param hotspot: the board's own Wi-Fi (None: not installed; it cannot be brought up).
    :param nmcli: the command to run (``["nmcli"]``; tests pass a fake program).
    :param run: ``subprocess.run`` (injected for tests of the thread handling only).
    :param on_change: called (no arguments) after every change of :meth:`state` (the page hears it).

    Only one change runs at a time; a second one is refused with a
    :class:`WifiError` saying what is running.
    """

    def __init__(self, hotspot: Hotspot | None, *, nmcli: Sequence[str] = ("nmcli",),
                 run: Callable[..., Any] = subprocess.run, on_change: Callable[[], None] | None = None,
                 leave_delay: float = LEAVE_DELAY_S):
        self.hotspot = hotspot
        self.leave_delay = leave_delay
        self.nmcli = list(nmcli)
        self._run = run
        self.on_change = on_change
        self._lock = threading.Lock()
        self._busy: str | None = None
        self._thread: threading.Thread | None = None
        self.networks: list[dict] = []
        self.trial: dict | None = None
        """The last network tried: ``{"ssid", "ok", "address", "error", "moved"}``."""
        self.error: str | None = None

    # -- nmcli
    def _nm(self, *args: str, timeout: float = 20.0) -> str:
        try:
            out = self._run([*self.nmcli, *args], capture_output=True, text=True, timeout=timeout,
                            env={**os.environ, "LC_ALL": "C"})
        except FileNotFoundError:
            raise WifiError("NetworkManager's nmcli is not installed (apt-get install network-manager)") from None
        except subprocess.TimeoutExpired:
            raise WifiError(f"nmcli {args[0]} did not finish within {timeout:.0f} s") from None
        if out.returncode != 0:
            raise WifiError((out.stderr or out.stdout or f"nmcli exited with {out.returncode}").strip())
        return out.stdout

    def device(self) -> tuple[str | None, str | None]:
        """Return ``(wifi device, its active connection)``; ``(None, None)`` without a Wi-Fi device.

        The device is the one NetworkManager reports, never a fixed name: with several radios (a USB
        dongle beside the Pi's own, or the simulated radios of the Wi-Fi check) the one with a
        connection up is the board's, else the first listed. Taking the first radio whatever its state
        would miss the hotspot to come back to, and a join would leave the board off its own Wi-Fi.
        """
        found: list[tuple[str, str | None]] = []
        for line in self._nm("-t", "-f", "DEVICE,TYPE,STATE,CONNECTION", "device", "status").splitlines():
            f = split_terse(line)
            if len(f) >= 4 and f[1] == "wifi":
                found.append((f[0], (f[3] or None) if f[2].startswith("connected") else None))
        up = [d for d in found if d[1] is not None]
        return (up or found or [(None, None)])[0]

    def address(self, device: str) -> str | None:
        """Return the IPv4 address of ``device`` (no prefix length), or None."""
        out = self._nm("-g", "IP4.ADDRESS", "device", "show", device).strip()
        first = out.split("|")[0].strip()
        return first.split("/")[0] or None

    # -- what the page reads
    def state(self) -> dict:
        """Return what the More screen shows (never raises: NetworkManager's error goes in ``error``)."""
        device = connection = address = None
        problem = self.error
        if self._busy != "join":                         # nmcli would only wait for the join to finish
            try:
                device, connection = self.device()
                if device and connection:
                    address = self.address(device)
            except WifiError as exc:
                problem = str(exc)
        spot = self.hotspot
        mode = "off" if connection is None else ("hotspot" if spot and connection == spot.profile else "client")
        waiting: list[str] = []
        if mode != "client" and device is not None and problem is None:
            try:
                waiting = self.known()
            except WifiError as exc:
                problem = str(exc)
        return {"device": device, "connection": connection, "mode": mode, "address": address,
                "busy": self._busy, "networks": list(self.networks), "trial": self.trial, "error": problem,
                "waiting": waiting,
                "hotspot": None if spot is None else {"ssid": spot.ssid, "address": spot.address}}

    def known(self) -> list[str]:
        """Return the networks the board joins by itself when they are in reach (the settings file's
        ``[wifi]``, a network moved to from the page): saved client profiles with autoconnect on.

        Off them, the page says the board waits for them on its own Wi-Fi: a settings file naming a
        network that is not there (or a home network gone) is not a silent hotspot.
        """
        names = []
        for line in self._nm("-t", "-f", "NAME,TYPE,AUTOCONNECT", "connection", "show").splitlines():
            f = split_terse(line)
            if (len(f) >= 3 and f[1] == "802-11-wireless" and f[2] == "yes" and f[0].startswith(JOIN_PREFIX)
                    and (self.hotspot is None or f[0] != self.hotspot.profile)):
                names.append(f[0].removeprefix(JOIN_PREFIX))
        return sorted(set(names))

    # -- changes
    def _start(self, what: str, fn: Callable[[], None], *, background: bool) -> None:
        with self._lock:
            if self._busy:
                raise WifiBusy(f"the board's Wi-Fi is busy ({self._busy}): wait for it to finish")
            self._busy = what
            self.error = None
        self._changed()

        def job() -> None:
            try:
                if background:
                    time.sleep(self.leave_delay)       # the page's answer goes out before the board leaves
                fn()
            except WifiError as exc:
                self.error = str(exc)
                log.warning("wifi %s: %s", what, exc)
            except Exception as exc:   # never leave the screen busy forever
                self.error = f"{what} failed: {exc}"
                log.exception("wifi %s", what)
            finally:
                with self._lock:
                    self._busy = None
                self._changed()

        if background:
            self._thread = threading.Thread(target=job, name=f"wifi-{what}", daemon=True)
            self._thread.start()
        else:
            job()

    def _changed(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception:
                log.exception("wifi listener failed")

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the change running in the background (tests, shutdown)."""
        t = self._thread
        if t is not None:
            t.join(timeout)

    def scan(self) -> list[dict]:
        """Return the networks in reach, strongest first: ``{"ssid", "signal", "secure", "in_use"}``.

        :raises WifiError: NetworkManager failed, or a change is running.
        """
        found: dict[str, dict] = {}

        def go() -> None:
            out = self._nm("-t", "-f", "IN-USE,SSID,SIGNAL,SECURITY", "device", "wifi", "list", "--rescan", "yes")
            for line in out.splitlines():
                f = split_terse(line)
                if len(f) < 4 or not f[1]:
                    continue                        # a hidden network has no name to join by
                if self.hotspot is not None and f[1] == self.hotspot.ssid:
                    continue
                net = {"ssid": f[1], "signal": int(f[2]) if f[2].isdigit() else 0,
                       "secure": f[3] not in ("", "--"), "in_use": f[0] == "*"}
                old = found.get(net["ssid"])
                if old is None or net["signal"] > old["signal"]:
                    found[net["ssid"]] = net
            self.networks = sorted(found.values(), key=lambda n: (-n["signal"], n["ssid"].lower()))

        self._start("scan", go, background=False)
        if self.error:
            raise WifiError(self.error)
        return list(self.networks)

    def join(self, ssid: str, password: str = "", *, background: bool = True) -> None:
        """Try network ``ssid`` with ``password``; the outcome lands in :attr:`trial`.

        The board leaves the connection it is on (its hotspot, usually) for
        up to :data:`JOIN_WAIT_S` seconds, then goes back to it, so the phone
        that asked finds the page again and reads whether it worked and the
        board's address there; :meth:`move` then switches for good. A network
        that refuses is forgotten. With nothing up before, the board comes
        back to its own Wi-Fi; only a board without one stays on a network
        that works.

        :raises ValueError: a name or password NetworkManager would refuse (nothing is run).
        :raises WifiError: a change is already running.
        """
        if not isinstance(ssid, str) or not 1 <= len(ssid.encode()) <= 32:
            raise ValueError("a network name is 1 to 32 bytes")
        if not isinstance(password, str) or (password and not 8 <= len(password) <= 63):
            raise ValueError("a Wi-Fi password is 8 to 63 characters (or none for an open network)")
        if self.hotspot is not None and ssid == self.hotspot.ssid:
            raise ValueError(f"{ssid} is the board's own Wi-Fi")
        self._start("join", lambda: self._try(ssid, password), background=background)

    def _try(self, ssid: str, password: str) -> None:
        name, trying = JOIN_PREFIX + ssid, TRY_PREFIX + ssid
        device, before = self.device()
        if device is None:
            raise WifiError("this board has no Wi-Fi device")
        self.trial = {"ssid": ssid, "ok": None, "address": None, "error": None, "moved": False}
        self._forget(trying)
        add = ["connection", "add", "type", "wifi", "ifname", device, "con-name", trying, "ssid", ssid,
               "connection.autoconnect", "no"]
        if password:
            add += ["wifi-sec.key-mgmt", "wpa-psk", "wifi-sec.psk", password]
        self._nm(*add)
        try:
            self._nm("--wait", str(JOIN_WAIT_S), "connection", "up", "id", trying, timeout=JOIN_WAIT_S + 15)
            address = self.address(device)
        except WifiError as exc:
            self._forget(trying)
            self.trial = {**self.trial, "ok": False, "error": _reason(ssid, str(exc))}
            log.info("wifi: %s", self.trial["error"])
            # a failed try never leaves the board with no Wi-Fi: back to what was up, or to its own Wi-Fi
            self._back(before or (self.hotspot.profile if self.hotspot is not None else None))
            return
        # it works: it replaces the network's saved profile (the settings file's or an earlier try's)
        self._forget(name)
        self._nm("connection", "modify", "id", trying, "connection.id", name, "connection.autoconnect", "yes")
        self.trial = {**self.trial, "ok": True, "address": address}
        log.info("wifi: %s works (address %s)", ssid, address)
        # back to what was up, or to the board's own Wi-Fi when nothing was (the host's phone finds the board
        # there and reads the address; staying put left it with no way to the page and "nothing to move to")
        back = before or (self.hotspot.profile if self.hotspot is not None else None)
        if back is None or back == name:
            self.trial["moved"] = True
            return
        self._back(back)

    def _forget(self, name: str) -> None:
        """Delete every profile named ``name`` (none is fine)."""
        for _ in range(8):
            try:
                self._nm("connection", "delete", "id", name)
            except WifiError:
                return                                 # there was none (left)

    def _back(self, before: str | None) -> None:
        if before is None:
            return
        try:
            self._nm("--wait", str(JOIN_WAIT_S), "connection", "up", "id", before, timeout=JOIN_WAIT_S + 15)
        except WifiError as exc:
            raise WifiError(f"could not go back to {before}: {exc} (hold the menu button to bring the "
                            "board's own Wi-Fi back)") from exc

    def move(self, *, background: bool = True) -> None:
        """Switch for good to the network the last :meth:`join` found working.

        :raises WifiError: no network has been tried successfully, or a change is running.
        """
        trial = self.trial
        if not trial or not trial.get("ok") or trial.get("moved"):
            raise WifiError("try a network first: nothing to move to")

        def go() -> None:
            self._nm("--wait", str(JOIN_WAIT_S), "connection", "up", "id", JOIN_PREFIX + trial["ssid"],
                     timeout=JOIN_WAIT_S + 15)
            self.trial = {**trial, "moved": True}

        self._start("move", go, background=background)

    def set_hotspot(self, on: bool, *, background: bool = True) -> None:
        """Bring the board's own Wi-Fi up (``on``) or down.

        :raises WifiError: there is no hotspot profile, or a change is running.
        """
        spot = self.hotspot
        if spot is None:
            raise WifiError("the board's own Wi-Fi is not set up here (systemd/install.sh makes it)")
        verb = "up" if on else "down"
        self._start(f"hotspot {verb}",
                    lambda: self._nm("--wait", "30", "connection", verb, "id", spot.profile, timeout=45),
                    background=background)


LINK_LOST_S = 30.0
"""How long the board may stay on a network NetworkManager calls connected while its radio has no link (no
carrier: not associated) before :class:`LinkWatch` brings the board's own Wi-Fi up."""
LINK_POLL_S = 5.0
"""How often :class:`LinkWatch` reads the radios' carrier (a file read; nmcli runs only when a link is lost)."""


def wifi_carriers(root: Path = Path("/sys/class/net")) -> dict[str, bool]:
    """Return ``{device: carrier}`` for every Wi-Fi device of this network namespace (a device that is down
    has no carrier)."""
    found = {}
    for dev in sorted(root.glob("*/phy80211")):
        try:
            found[dev.parent.name] = (dev.parent / "carrier").read_text().strip() == "1"
        except OSError:
            found[dev.parent.name] = False
    return found


class LinkWatch:
    """Bring the board's own Wi-Fi up when NetworkManager keeps a lost network "connected".

    NetworkManager gives a network that goes away 15 s to come back (then fails it, and the hotspot, the
    profile of last resort, comes up) only when it sees wpa_supplicant *disconnected*. When wpa_supplicant
    goes from disconnected to scanning at once, the two changes can reach NetworkManager as one (completed
    -> scanning) and it keeps the dead connection "connected" for ever: the Wi-Fi check caught a board on a
    home network whose access point had gone still "connected" 300 s later, with no Wi-Fi a phone could
    reach. So the daemon reads the radios' carrier every :data:`LINK_POLL_S` seconds; a radio without one for
    :data:`LINK_LOST_S` seconds on a network NetworkManager calls connected (not the board's own) is
    brought back to the board's own Wi-Fi. A change the page asked for (a try, a move) is left alone.
    """

    def __init__(self, wifi: Wifi, *, carriers: Callable[[], dict[str, bool]] = wifi_carriers,
                 clock: Callable[[], float] = time.monotonic, lost_after: float = LINK_LOST_S):
        self.wifi, self.carriers, self.clock, self.lost_after = wifi, carriers, clock, lost_after
        self._since: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> str | None:
        """Look once; return what was done (a line for the journal), or None."""
        now = self.clock()
        lost = []
        for dev, up in self.carriers().items():
            if up:
                self._since.pop(dev, None)
                continue
            since = self._since.setdefault(dev, now)
            if now - since >= self.lost_after:
                lost.append(dev)
        spot = self.wifi.hotspot
        if not lost or spot is None or self.wifi._busy:
            return None
        for dev in lost:
            self._since[dev] = now                  # look again (nmcli again) only after another spell
        try:
            device, connection = self.wifi.device()
        except WifiError as exc:
            return f"wifi: no link on {', '.join(lost)} and nmcli failed: {exc}"
        if device not in lost or connection is None or connection == spot.profile:
            return None                             # NetworkManager knows (connecting, or nothing up)
        try:
            self.wifi.set_hotspot(True, background=False)
        except WifiError as exc:
            return f"wifi: {device} lost its link to {connection}; the board's own Wi-Fi did not come up: {exc}"
        return (f"wifi: {device} had no link for {self.lost_after:.0f} s on {connection}, which NetworkManager "
                f"still called connected: the board's own Wi-Fi is up{' (' + self.wifi.error + ')' if self.wifi.error else ''}")

    def start(self, period: float = LINK_POLL_S) -> None:
        from firmware.watch import every
        self._thread = every(period, self.check, name="wifi-link-watch", stop=self._stop)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


def main(argv: "list[str] | None" = None) -> int:
    """``python -m firmware.wifi install ROOT``: write the board's Wi-Fi files (install.sh calls it)."""
    p = argparse.ArgumentParser(prog="python -m firmware.wifi")
    sub = p.add_subparsers(dest="cmd", required=True)
    inst = sub.add_parser("install", help="write wifi.toml (once), the NetworkManager profile and the dnsmasq drop-in")
    inst.add_argument("root", help="the system's root (/ on the Pi)")
    args = p.parse_args(argv)
    for line in install_files(args.root):
        print(f"==> {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The image's setup at every boot, before the network and the daemon (``landsend-setup.service``).

At the first boot, with nobody at a keyboard, it grows the root partition to the card. At every boot it
reads ``landsend.toml`` from the boot partition (:mod:`firmware.settings_file`) and, when the file is
good, applies it:

* the board's own Wi-Fi (``/etc/landsend/wifi.toml`` and the NetworkManager profile): its name
  (``name``, default "Lands End 4F2A" after the Pi's serial number) and password
  (``hotspot_password``, default made at the first boot and kept);
* a network to join (``[wifi]``): a NetworkManager profile that wins over the hotspot whenever the
  network is in reach (the hotspot comes up by itself when no known network is);
* the daemon's config (``[board]``, ``[strip]``, ``[buttons]``, ``[voice]``) into
  ``/etc/landsend/config.toml``;
* SSH: on only with ``[ssh] enabled = true`` and a public key (no password exists on the board);
* the keys that may sign updates besides the release key (``[update] keys``) into
  ``/etc/landsend/update-keys.gpg``, the keyring ``gpgv`` reads (:mod:`firmware.update`).

A refused file changes nothing: the board keeps what it had (a new board: its defaults), the reason goes
to ``/run/landsend-setup/status.json`` (the daemon shows it on the page) and the status LEDs blink red
five times after the boot self-test. Then the table card (``landsend-card.svg``: the Wi-Fi's name,
password and QR code, the page's address) is written onto the boot partition whenever it changed, so
that it can be printed from any computer.

Everything but the disk and the LEDs works on a root directory given as a parameter, so the tests run
it on a fake root (``tests/test_firstboot.py``).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from firmware import wifi
from firmware.settings_file import SETTINGS_FILE, Settings, SettingsError, config_toml
from firmware.settings_file import load as load_settings
from firmware.setup_status import STATUS, setup_faults  # noqa: F401  (the daemon reads it without this module)

log = logging.getLogger("landsend-setup")

BOOT = Path("/boot/firmware")
FIRST_DONE = "var/lib/landsend-setup/first-boot-done"
CARD = "landsend-card.svg"
JOIN_PROFILE = "etc/NetworkManager/system-connections/landsend-settings.nmconnection"
SSH_OFF = "etc/ssh/sshd_not_to_be_run"
"""Debian's ssh.service does not start while this file exists (ConditionPathExists=!)."""
AUTHORIZED_KEYS = "root/.ssh/authorized_keys"
CONFIG = "etc/landsend/config.toml"
UPDATE_KEYS = "etc/landsend/update-keys.gpg"
GROW_MIN_SECTORS = 16 * 2048
"""The root is grown only when at least 16 MiB of the card lie unused after it."""


@dataclass
class Outcome:
    """What :func:`apply` did and what is left for the running system."""

    status: dict[str, Any]
    """For the daemon and the log: ``settings`` ("ok", "refused", "absent"), ``error``, ``ssid``."""
    card: str | None
    """The table card's text when the one on the boot partition differs (None: nothing to write)."""
    ssh_host_keys: bool
    """SSH is on and the host key must be made."""
    changes: list[str]


def _write(path: Path, text: str, mode: int) -> bool:
    """Write ``text`` to ``path`` atomically unless it already holds it; return whether it changed."""
    return _write_bytes(path, text.encode("utf-8"), mode)


def _write_bytes(path: Path, data: bytes, mode: int) -> bool:
    """Write ``data`` to ``path`` atomically unless it already holds it (then only its mode is set); return
    whether it changed."""
    try:
        if path.read_bytes() == data:
            os.chmod(path, mode)
            return False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".new")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    return True


def join_profile(ssid: str, password: str) -> str:
    """Return the NetworkManager keyfile that joins ``ssid`` whenever it is in reach (before the hotspot)."""
    security = ("\n[wifi-security]\nkey-mgmt=wpa-psk\n" f"psk={password}\n") if password else ""
    return ("# Written at boot from landsend.toml [wifi] on the boot partition (firmware/firstboot.py).\n"
            f"[connection]\nid={wifi.JOIN_PREFIX}{ssid}\nuuid={uuid.uuid5(uuid.NAMESPACE_URL, 'landsend-join:' + ssid)}\n"
            "type=wifi\nautoconnect=true\nautoconnect-priority=50\n\n"
            f"[wifi]\nmode=infrastructure\nssid={ssid}\n{security}\n[ipv4]\nmethod=auto\n\n[ipv6]\nmethod=auto\n")


def _hotspot(root: Path, settings: Settings | None, changes: list[str]) -> wifi.Hotspot:
    path = root / "etc/landsend/wifi.toml"
    spot = wifi.Hotspot.load(path)
    if spot is None:
        spot = wifi.Hotspot(ssid=f"Lands End {wifi.board_id(root)}", password=wifi.new_password())
    if settings is not None:
        spot = wifi.Hotspot(ssid=settings.name or spot.ssid, password=settings.hotspot_password or spot.password,
                            address=spot.address, profile=spot.profile)
    text = ("# The board's own Wi-Fi: made at the first boot, then set from landsend.toml (name, hotspot_password).\n"
            f'ssid = "{spot.ssid}"\npassword = "{spot.password}"\naddress = "{spot.address}"\nprofile = "{spot.profile}"\n')
    if _write(path, text, 0o640):
        changes.append(f"the board's Wi-Fi is {spot.ssid!r}")
    try:
        import grp
        os.chown(path, -1, grp.getgrnam("landsend").gr_gid)      # the daemon reads it
    except (KeyError, PermissionError):
        pass
    wifi.install_files(root)
    return spot


def apply(root: Path, boot: Path) -> Outcome:
    """Apply ``boot/landsend.toml`` to the system under ``root``; see the module docstring."""
    changes: list[str] = []
    status: dict[str, Any] = {"settings": "absent", "error": None, "file": str(boot / SETTINGS_FILE)}
    try:
        settings = load_settings(boot / SETTINGS_FILE)
        if settings is not None:
            status["settings"] = "ok"
    except SettingsError as exc:
        settings = None
        status.update(settings="refused", error=str(exc))
    good = status["settings"] == "ok"
    spot = _hotspot(root, settings if good else None, changes)
    status["ssid"] = spot.ssid
    ssh_keys = False
    if status["settings"] != "refused":
        settings = settings or Settings()
        join = root / JOIN_PROFILE
        if settings.wifi_ssid:
            if _write(join, join_profile(settings.wifi_ssid, settings.wifi_password), 0o600):
                changes.append(f"joins {settings.wifi_ssid!r} when it is in reach")
        elif join.exists():
            join.unlink()
            changes.append("no network to join")
        if _write(root / CONFIG, config_toml(settings), 0o644):
            changes.append(f"board config from {SETTINGS_FILE}")
        owner_keys = root / UPDATE_KEYS
        if settings.update_keys:
            if _write_bytes(owner_keys, b"".join(settings.update_keys), 0o644):
                changes.append(f"{len(settings.update_keys)} owner key(s) may sign updates")
        elif owner_keys.exists():
            owner_keys.unlink()
            changes.append("only the release key signs updates")
        keys = root / AUTHORIZED_KEYS
        off = root / SSH_OFF
        if settings.ssh_enabled:
            keys.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if _write(keys, "\n".join(settings.ssh_keys) + "\n", 0o600):
                changes.append(f"SSH on for {len(settings.ssh_keys)} key(s)")
            if off.exists():
                off.unlink()
            ssh_keys = not any((root / "etc/ssh").glob("ssh_host_*_key"))
        else:
            if _write(off, "SSH is off: [ssh] enabled = true with a key in landsend.toml turns it on.\n", 0o644):
                changes.append("SSH off")
            if keys.exists():
                keys.unlink()
    from web.card import card_svg
    card = card_svg(spot.url, ssid=spot.ssid, password=spot.password)
    try:
        same = (boot / CARD).read_text(encoding="utf-8") == card
    except (OSError, UnicodeDecodeError):
        same = False
    return Outcome(status=status, card=None if same else card, ssh_host_keys=ssh_keys, changes=changes)


# ---------------------------------------------------------------- the first boot: grow the root

def grow_commands(disk: str, part: str, number: int, disk_sectors: int, start: int, size: int) -> list[list[str]]:
    """Return the commands that grow partition ``number`` of ``disk`` (``part``, mounted) and its ext4 to
    the end of the disk, or ``[]`` when less than :data:`GROW_MIN_SECTORS` lie unused after it."""
    if disk_sectors - (start + size) < GROW_MIN_SECTORS:
        return []
    return [["sfdisk", "--no-reread", "--no-tell-kernel", "-q", "-N", str(number), disk],   # stdin: ", +"
            ["partx", "-u", "--nr", str(number), disk],
            ["resize2fs", part]]


def grow_root(run: Callable[..., Any] = subprocess.run) -> str:
    """Grow the mounted root's partition and file system to the card; return what was done."""
    source = subprocess.run(["findmnt", "-n", "-o", "SOURCE", "/"], capture_output=True, text=True).stdout.strip()
    name = Path(source).name
    sys_part = Path("/sys/class/block") / name
    if not (sys_part / "partition").exists():
        return f"the root {source or '?'} is not a partition: not grown"
    number = int((sys_part / "partition").read_text())
    disk_name = sys_part.resolve().parent.name
    disk = f"/dev/{disk_name}"
    disk_sectors = int((Path("/sys/class/block") / disk_name / "size").read_text())
    start, size = int((sys_part / "start").read_text()), int((sys_part / "size").read_text())
    commands = grow_commands(disk, source, number, disk_sectors, start, size)
    if not commands:
        return f"{source} already fills {disk}"
    for cmd in commands:
        r = run(cmd, input=", +\n" if cmd[0] == "sfdisk" else None, capture_output=True, text=True)
        if r.returncode:
            return f"could not grow {source}: {' '.join(cmd)}: {(r.stderr or r.stdout).strip()}"
    return f"grew {source} from {size // 2048} MiB to {(disk_sectors - start) // 2048} MiB"


# ---------------------------------------------------------------- the boot pattern on the LEDs

SELFTEST_S = 0.3
BLINKS = 5
BLINK_S = 0.25


def boot_frames(geometry: Any, *, refused: bool) -> list[tuple[dict[int, tuple[int, int, int]], float]]:
    """Return the boot pattern as ``(LED index -> colour, seconds)`` steps: every lane red, green, blue
    (the self-test: a wrong colour order shows at once), then, when the settings file was refused, the
    status LEDs blink red :data:`BLINKS` times; the last step is dark."""
    lanes = [geometry.index(lane, h) for lane in range(1, geometry.lanes + 1) for h in range(1, geometry.holes + 1)]
    steps: list[tuple[dict[int, tuple[int, int, int]], float]] = [
        ({i: colour for i in lanes}, SELFTEST_S) for colour in ((255, 0, 0), (0, 255, 0), (0, 0, 255))]
    if refused:
        status = [geometry.status_index(i) for i in range(geometry.status)] or \
                 [geometry.index(lane, geometry.holes) for lane in range(1, geometry.lanes + 1)]
        for _ in range(BLINKS):
            steps += [({i: (255, 0, 0) for i in status}, BLINK_S), ({}, BLINK_S)]
    steps.append(({}, 0.0))
    return steps


def show_boot_pattern(config: Any, *, refused: bool, strip: Any = None, sleep: Callable[[float], None] = time.sleep) -> str:
    """Show :func:`boot_frames` on the board's strip; return what happened (no strip: nothing shown)."""
    from firmware.daemon import make_strip
    from firmware.drivers import StripError
    from firmware.geometry import Geometry
    from firmware.render import Light, light

    geometry = Geometry.from_config(config.board)
    if strip is None:
        if config.strip.driver == "sim":
            return "strip driver sim: no boot pattern"
        strip = make_strip(config, geometry, sim=False)
        try:
            strip.open()
        except (StripError, OSError) as exc:
            return f"no LED strip here ({exc}): no boot pattern"
    settings = Light.from_config(config.strip)
    try:
        for colours, seconds in boot_frames(geometry, refused=refused):
            px = [(0.0, 0.0, 0.0)] * geometry.count
            for i, c in colours.items():
                px[i] = tuple(float(v) for v in c)
            strip.show(light(px, geometry, settings))
            sleep(seconds)
    finally:
        strip.close()
    return "boot self-test shown" + (", then the status LEDs blinked red (settings refused)" if refused else "")


# ---------------------------------------------------------------- the unit

def _remount(boot: Path, mode: str) -> bool:
    return subprocess.run(["mount", "-o", f"remount,{mode}", str(boot)], capture_output=True).returncode == 0


def write_card(boot: Path, text: str) -> str:
    """Write the table card onto the (read-only mounted) boot partition: remounted read-write only while
    the file is written and synced."""
    remounted = _remount(boot, "rw")
    try:
        _write(boot / CARD, text, 0o644)
        os.sync()
    except OSError as exc:
        return f"could not write {boot / CARD}: {exc.strerror or exc}"
    finally:
        if remounted:
            _remount(boot, "ro")
    return f"wrote {boot / CARD}"


def main(argv: list[str] | None = None) -> int:
    """Run the setup on this system (root only); always 0, so the board comes up whatever happened."""
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    root, boot = Path("/"), BOOT
    first = not (root / FIRST_DONE).exists()
    if first:
        log.info("first boot: %s", grow_root())
    outcome = apply(root, boot)
    st = outcome.status
    if st["settings"] == "refused":
        log.warning("settings refused, nothing of it applied (the board keeps what it had): %s", st["error"])
    else:
        log.info("settings %s: %s", "applied" if st["settings"] == "ok" else f"file absent ({st['file']})",
                 "; ".join(outcome.changes) or "nothing changed")
    if outcome.ssh_host_keys:
        # one Ed25519 key: made in a moment where an RSA key takes minutes on a slow board
        r = subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", "/etc/ssh/ssh_host_ed25519_key"],
                           capture_output=True, text=True)
        log.info("SSH host key made" if r.returncode == 0 else f"ssh-keygen failed: {r.stderr.strip()}")
    if outcome.card is not None:
        log.info(write_card(boot, outcome.card))
    _write(STATUS, json.dumps(st) + "\n", 0o644)
    if first:
        _write(root / FIRST_DONE, time.strftime("%Y-%m-%dT%H:%M:%SZ\n", time.gmtime()), 0o644)
    try:
        from firmware.config import DEFAULTS, ConfigError, load
        try:
            config = load(root / CONFIG)
        except ConfigError:
            config = DEFAULTS
        log.info(show_boot_pattern(config, refused=st["settings"] == "refused"))
    except Exception as exc:     # the LEDs must never keep the board from coming up
        log.info("boot pattern not shown: %s: %s", type(exc).__name__, exc)
    return 0


if __name__ == "__main__":
    sys.exit(main())

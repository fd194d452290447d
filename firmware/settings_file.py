"""``landsend.toml``: the owner's settings on the SD card's boot partition, read strictly at every boot.

The boot partition is FAT, so the file can be edited on any computer (Windows, macOS) before the card
goes back into the board. Every key is optional; a file that is not valid TOML, or has one unknown
key, one wrong type or one value out of range, is refused *as a whole* with the line and the reason
(:class:`SettingsError`): nothing of it is applied, and the board keeps what it had (a new board, its
defaults), says so on the page and blinks its status LEDs red at boot (``firmware.firstboot``).

Keys (``scripts/image/landsend.toml`` is the commented copy that ships on the card)::

    name = "Lands End 4F2A"          # the board's Wi-Fi name (default: Lands End + 4 hex digits)
    hotspot_password = "..."         # 8-63 characters (default: made at first boot, on the card)
    [wifi]                           # a network to join when it is in reach (the hotspot otherwise)
    ssid = "Home"
    password = "..."                 # 8-63 characters, or "" for an open network
    [ssh]                            # off unless enabled with a key; there is no password anywhere
    enabled = true
    authorized_keys = ["ssh-ed25519 AAAA... me@laptop"]
    [update]                         # keys besides the release key that may sign updates for this board
    keys = ['''-----BEGIN PGP PUBLIC KEY BLOCK-----
    ...
    -----END PGP PUBLIC KEY BLOCK-----''']   # gpg --armor --export: one string each, in triple quotes
    [strip]                          # and [board], [buttons], [voice]: as in /etc/landsend/config.toml
    type = "GRB"
    driver = "spi"

The board sections are checked by :mod:`firmware.config` (its ranges and pin clashes), so the
settings file refuses exactly what the daemon would.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware import config as board_config

SETTINGS_FILE = "landsend.toml"
BOARD_SECTIONS = ("board", "strip", "buttons", "voice")
"""Sections passed to the daemon's config (``/etc/landsend/config.toml`` on the image)."""
TOP_KEYS = ("name", "hotspot_password")
SECTIONS = {"wifi": ("ssid", "password"), "ssh": ("enabled", "authorized_keys"), "update": ("keys",)}
MAX_BYTES = 64 * 1024
SSH_KEY = re.compile(r"^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|"
                     r"sk-ecdsa-sha2-nistp256@openssh\.com) [A-Za-z0-9+/]+={0,3}( [^\r\n]*)?$")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 '_.-]*$")


class SettingsError(ValueError):
    """The settings file is refused; the message names the line, the key and the reason."""

    def __init__(self, reason: str, *, key: str | None = None, line: int | None = None):
        self.reason, self.key, self.line = reason, key, line
        where = ", ".join(x for x in (f"line {line}" if line else "", key or "") if x)
        super().__init__(f"{SETTINGS_FILE}: {where}: {reason}" if where else f"{SETTINGS_FILE}: {reason}")


@dataclass(frozen=True)
class Settings:
    """What a good settings file says (None: not set, keep the board's own)."""

    name: str | None = None
    hotspot_password: str | None = None
    wifi_ssid: str | None = None
    wifi_password: str = ""
    ssh_enabled: bool = False
    ssh_keys: tuple[str, ...] = ()
    board: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The board sections as written (checked by :func:`firmware.config.from_dict`)."""
    update_keys: tuple[bytes, ...] = ()
    """``[update] keys``: OpenPGP public keys (binary, dearmoured) that may sign updates besides the release key."""


def _line(text: str, key: str, section: str | None = None) -> int | None:
    """Return the line of ``key`` (in ``[section]``, or before any section), or of ``[section]`` alone."""
    current = None
    for n, raw in enumerate(text.splitlines(), start=1):
        m = re.match(r"^\s*\[\s*([A-Za-z0-9_-]+)\s*\]", raw)
        if m:
            current = m.group(1)
            if key == "" and current == section:
                return n
            continue
        if current == section and key and re.match(rf"^\s*{re.escape(key)}\s*=", raw):
            return n
    return None


def _password(value: Any, key: str, text: str, section: str | None, *, empty_ok: bool = False) -> str:
    line = _line(text, key.split(".")[-1], section)
    if not isinstance(value, str):
        raise SettingsError(f"must be text in quotes, got {type(value).__name__}", key=key, line=line)
    if value == "" and empty_ok:
        return value
    if not 8 <= len(value) <= 63 or not all(" " <= c <= "~" for c in value):
        raise SettingsError("must be 8 to 63 characters: letters, digits, spaces or punctuation (WPA2)",
                            key=key, line=line)
    return value


def parse(text: str) -> Settings:
    """Return the settings in ``text``.

    :raises SettingsError: not TOML, an unknown key or section, a wrong type or a value out of range;
        the message names the line and the key.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise SettingsError(f"not valid TOML: {exc}", line=int(m.group(1)) if m else None) from None
    known = (*TOP_KEYS, *SECTIONS, *BOARD_SECTIONS)
    for key, value in data.items():
        if key not in known:
            raise SettingsError(f"unknown key (known: {', '.join(known)})", key=key,
                                line=_line(text, key, None) or _line(text, "", key))
        if key in SECTIONS or key in BOARD_SECTIONS:
            if not isinstance(value, dict):
                raise SettingsError(f"must be a section [{key}]", key=key, line=_line(text, key, None))
            for sub in value if key in SECTIONS else ():
                if sub not in SECTIONS[key]:
                    raise SettingsError(f"unknown key (known: {', '.join(SECTIONS[key])})", key=f"{key}.{sub}",
                                        line=_line(text, sub, key))
    name = data.get("name")
    if name is not None:
        line = _line(text, "name")
        if not isinstance(name, str):
            raise SettingsError(f"must be text in quotes, got {type(name).__name__}", key="name", line=line)
        if not 1 <= len(name.encode("utf-8")) <= 32 or not NAME.match(name):
            raise SettingsError("must be 1 to 32 letters, digits, spaces or ' _ . - (it is the Wi-Fi name), "
                                f"got {name!r}", key="name", line=line)
    hotspot = data.get("hotspot_password")
    if hotspot is not None:
        hotspot = _password(hotspot, "hotspot_password", text, None)
    wifi = data.get("wifi", {})
    ssid = wifi.get("ssid")
    wifi_password = ""
    if wifi:
        if not isinstance(ssid, str) or not 1 <= len(ssid.encode("utf-8")) <= 32 or "\n" in ssid:
            raise SettingsError("must be the network's name, 1 to 32 bytes, in quotes" if ssid is not None
                                else "[wifi] needs ssid, the network's name", key="wifi.ssid",
                                line=_line(text, "ssid", "wifi") or _line(text, "", "wifi"))
        wifi_password = _password(wifi.get("password", ""), "wifi.password", text, "wifi", empty_ok=True)
    ssh = data.get("ssh", {})
    enabled = ssh.get("enabled", False)
    if not isinstance(enabled, bool):
        raise SettingsError(f"must be true or false, got {enabled!r}", key="ssh.enabled", line=_line(text, "enabled", "ssh"))
    keys = ssh.get("authorized_keys", [])
    line = _line(text, "authorized_keys", "ssh")
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        raise SettingsError('must be a list of keys in quotes: ["ssh-ed25519 AAAA... me@laptop"]',
                            key="ssh.authorized_keys", line=line)
    for k in keys:
        if not SSH_KEY.match(k.strip()):
            raise SettingsError(f"not an SSH public key (one line of a .pub file): {k[:40]!r}",
                                key="ssh.authorized_keys", line=line)
    if enabled and not keys:
        raise SettingsError("SSH on needs at least one public key in authorized_keys: the board has no password",
                            key="ssh.enabled", line=_line(text, "enabled", "ssh"))
    update_keys = []
    listed = data.get("update", {}).get("keys", [])
    line = _line(text, "keys", "update")
    if not isinstance(listed, list) or not all(isinstance(k, str) for k in listed):
        raise SettingsError("must be a list of public keys, each in triple quotes (gpg --armor --export)",
                            key="update.keys", line=line)
    from firmware.update import dearmor
    for n, k in enumerate(listed, start=1):
        try:
            update_keys.append(dearmor(k))
        except ValueError as exc:
            raise SettingsError(f"key {n}: {exc}", key="update.keys", line=line) from None
    board = {s: data[s] for s in BOARD_SECTIONS if s in data}
    try:
        board_config.from_dict(board, text=text)
    except board_config.ConfigError as exc:
        raise SettingsError(exc.reason, key=exc.key, line=exc.line) from None
    return Settings(name=name, hotspot_password=hotspot, wifi_ssid=ssid if wifi else None, wifi_password=wifi_password,
                    ssh_enabled=enabled, ssh_keys=tuple(k.strip() for k in keys), board=board,
                    update_keys=tuple(update_keys))


def load(path: Path) -> Settings | None:
    """Return the settings in the file at ``path``, or None when there is no such file.

    :raises SettingsError: the file is unreadable, too large, not UTF-8, or refused by :func:`parse`.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(f"cannot be read: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise SettingsError(f"is {len(raw)} bytes; a settings file is at most {MAX_BYTES}")
    try:
        text = raw.decode("utf-8-sig")       # Notepad may put a byte-order mark first
    except UnicodeDecodeError:
        raise SettingsError("is not UTF-8 text (save it as UTF-8)") from None
    return parse(text.replace("\r\n", "\n"))


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    raise TypeError(f"no TOML for {type(value).__name__}")


def config_toml(settings: Settings) -> str:
    """Return the daemon's ``config.toml`` for ``settings``' board sections (the defaults for the rest)."""
    lines = ["# Written at every boot from landsend.toml on the boot partition (firmware/firstboot.py):",
             "# edit that file, not this one. Keys not given here keep their defaults (firmware/default_config.toml).", ""]
    for section, values in settings.board.items():
        lines.append(f"[{section}]")
        lines += [f"{key} = {_toml_value(v)}" for key, v in values.items()]
        lines.append("")
    return "\n".join(lines)

"""The board's TOML configuration: defaults, validation, and errors that name the line.

A config file only needs the keys that differ from the defaults::

    [strip]
    driver = "ws281x"
    type = "GRB"
    power_budget_ma = 1200

    [buttons]
    p1 = 5

Every key is checked when the daemon starts; an unknown key, a wrong type or
an out-of-range value raises :class:`ConfigError` naming the key, the line of
the file and the reason, and the daemon refuses to start.
``firmware/default_config.toml`` is the documented copy of the defaults.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from companion.frozen import Frozen

#: BCM pins a button may not use, by strip driver: the strip's own data pin
#: and, for SPI, the whole SPI0 block (CE1, CE0, MISO, MOSI, SCLK).
RESERVED_PINS: dict[str, dict[int, str]] = {
    "spi": {7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI (the strip data)", 11: "SPI0 SCLK"},
    "ws281x": {18: "PWM0 (the strip data)"},
    "sim": {},
}

#: Strip types: the order the colour bytes go on the wire, with W for RGBW strips.
STRIP_TYPES = ("GRB", "RGB", "BRG", "RBG", "GBR", "BGR", "GRBW", "RGBW")

DRIVERS = ("spi", "ws281x", "sim")
WIRINGS = ("serpentine", "straight")
#: Board palettes (firmware.render.PALETTES; kept here so the config needs no renderer import).
PALETTE_NAMES = ("standard", "colour-blind")
BUTTON_NAMES = ("p1", "p2", "p3", "menu")


class ConfigError(ValueError):
    """A configuration that the daemon refuses, with the key, line and reason in the message."""

    def __init__(self, reason: str, *, key: str | None = None, line: int | None = None, path: str | None = None):
        self.reason = reason
        self.key = key
        self.line = line
        self.path = path
        where = []
        if path:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        if key:
            where.append(key)
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)


class Record(Frozen):
    """The ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and frozen ``__setattr__`` of every config
    class (and the board's other frozen, keyword-only settings: ``firmware.render.Palette`` and ``Light``,
    ``firmware.voice.Settings``), written once (:func:`record`), instead of six functions per class that the
    dataclass machinery would compile at import, before the board's first answer (issue 25's start-up:
    importing this module 4.7 -> 0.9 ms). They do what the generated ones do: keyword-only, frozen,
    compared and hashed by value (every field; none of these classes leaves one out)."""

    __slots__ = ()

    def __init__(self, **values: Any) -> None:
        for name in values:
            if name not in self.__dataclass_fields__:           # type: ignore[attr-defined]
                raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument {name!r}")
        for name, f in self.__dataclass_fields__.items():       # type: ignore[attr-defined]
            if name in values:
                value = values[name]
            elif f.default is not dataclasses.MISSING:
                value = f.default
            elif f.default_factory is not dataclasses.MISSING:
                value = f.default_factory()
            else:
                raise TypeError(f"{type(self).__name__}.__init__() missing required keyword-only argument: {name!r}")
            object.__setattr__(self, name, value)



def record(cls: type) -> type:
    """Make ``cls`` (a :class:`Record`) a dataclass with :class:`Record`'s methods (see there)."""
    return dataclass(kw_only=True, init=False, repr=False, eq=False)(cls)



@record
class BoardConfig(Record):
    """The peg board: lanes x holes, how the strip snakes through them, status LEDs after them."""

    lanes: int = 3
    """Lanes on the board; the renderer needs exactly 3 (two outer, one middle)."""
    holes: int = 16
    """Holes per lane; the last one is the edge of the world, the others one point each per lap."""
    wiring: str = "serpentine"
    """``serpentine``: every even lane runs backwards; ``straight``: every lane runs hole 1 first."""
    status_leds: int = 4
    """LEDs chained after the lanes: one per lane (dealer/turn/pocket) and one for the phase."""
    palette: str = "standard"
    """``standard``, or ``colour-blind`` (Okabe-Ito hues, laps alternating light and dark, dashed skunk)."""


@record
class StripConfig(Record):
    """The LED strip: driver, colour order, brightness, gamma and the power budget."""

    driver: str = "spi"
    type: str = "GRB"
    brightness: float = 0.5
    """Starting brightness, 0..1 of full scale; adjustable live up to ``max_brightness``."""
    max_brightness: float = 0.8
    gamma: float = 2.8
    power_budget_ma: int = 1500
    """Current the LEDs may draw, in mA; frames over it are dimmed to fit."""
    ma_per_channel: float = 20.0
    """Estimated current of one colour channel at full scale, in mA."""
    fps: int = 30
    """Frame rate of animations (the static board is drawn once per change)."""
    spi_bus: int = 0
    spi_device: int = 0
    spi_hz: int = 2_400_000
    gpio: int = 18
    """Data pin of the ``ws281x`` driver (PWM0)."""
    dma: int = 10


@record
class ButtonConfig(Record):
    """BCM pins of the side buttons and the menu button, and their timing."""

    p1: int = 17
    p2: int = 27
    p3: int = 22
    menu: int = 23
    hold_s: float = 1.0
    """A press held at least this long (seconds) is a hold: undo, or new game on the menu button."""
    release_s: float = 5.0
    """A menu hold at least this long (seconds) releases the table (new join code)."""
    hotspot_s: float = 10.0
    """A menu hold at least this long (seconds) brings the board's own Wi-Fi back (instead of releasing)."""
    debounce_ms: float = 30.0
    """Edges closer than this to the last accepted edge are contact bounce and ignored."""

    def pins(self) -> dict[str, int]:
        """Return ``{button name: BCM pin}`` for the four buttons."""
        return {name: getattr(self, name) for name in BUTTON_NAMES}


@record
class WebConfig(Record):
    """Where the page is served (the command line overrides these)."""

    host: str = "0.0.0.0"
    port: int = 8000
    threads: int = 24
    """Web server threads; each open page holds one on its live stream, and a third (at least two)
    are kept for pages and commands (``web.server.stream_cap``)."""


VOICE_SINKS = ("auto", "alsa", "wav")
#: espeak-ng voice names: a language tag, optionally "+variant" (en-gb, en-us, en-gb-scotland, en+f3).
VOICE_NAME = re.compile(r"^[a-z]{2,3}(-[a-z0-9]{1,12})*(\+[a-z0-9]{1,12})?$")


@record
class VoiceConfig(Record):
    """The board's voice: espeak-ng speaks each announcement through the Pi's audio (docs/hardware.md)."""

    enabled: bool = False
    """Speak announcements (also switchable live from the page's settings)."""
    volume: float = 0.8
    """0..1 of espeak-ng's full amplitude (200); the sound card's own mixer level is set with alsamixer."""
    voice: str = "en-gb"
    """An espeak-ng voice (``espeak-ng --voices=en`` lists them): en-gb, en-us, en-gb-scotland, en+f3..."""
    speed: int = 160
    """Words per minute, 80..400 (espeak-ng's default is 175)."""
    device: str = "default"
    """ALSA device ``aplay -D`` plays to: "default", "hw:0" (headphone jack), "hw:1", "plughw:CARD=sndrpihifiberry"..."""
    sink: str = "auto"
    """``auto``: the speaker on a Pi, WAV files with ``--sim``; ``alsa``: always play; ``wav``: always write files."""
    wav_dir: str = ""
    """Where the ``wav`` sink writes (default: ``voice/`` beside the database)."""
    queue: int = 3
    """Announcements that may wait to be spoken; when more arrive the oldest waiting is dropped (1: only the latest)."""


@record
class Config(Record):
    """The whole daemon configuration."""

    board: BoardConfig = field(default_factory=BoardConfig)
    strip: StripConfig = field(default_factory=StripConfig)
    buttons: ButtonConfig = field(default_factory=ButtonConfig)
    web: WebConfig = field(default_factory=WebConfig)
    voice: VoiceConfig = field(default_factory=VoiceConfig)
    source: str | None = None
    """The file the config was read from (None for the built-in defaults)."""

    def replace(self, section: str, **changes: Any) -> "Config":
        """Return a copy with ``changes`` applied to one section (validated again)."""
        new = dataclasses.replace(self, **{section: dataclasses.replace(getattr(self, section), **changes)})
        validate(new)
        return new


_SECTIONS: dict[str, type] = {"board": BoardConfig, "strip": StripConfig, "buttons": ButtonConfig, "web": WebConfig,
                              "voice": VoiceConfig}


def _range(lo: float, hi: float) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        return None if lo <= v <= hi else f"must be between {lo} and {hi}, got {v}"
    return check


def _choice(options: tuple[str, ...]) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        return None if v in options else f"must be one of {', '.join(options)}, got {v!r}"
    return check


#: Per-key value checks (types come from the dataclass annotations).
_CHECKS: dict[tuple[str, str], Callable[[Any], str | None]] = {
    ("board", "lanes"): lambda v: None if v == 3 else f"must be 3 (two outer lanes and a middle lane), got {v}",
    ("board", "holes"): _range(4, 64),
    ("board", "wiring"): _choice(WIRINGS),
    ("board", "status_leds"): _range(0, 16),
    ("board", "palette"): _choice(PALETTE_NAMES),
    ("strip", "driver"): _choice(DRIVERS),
    ("strip", "type"): _choice(STRIP_TYPES),
    ("strip", "brightness"): _range(0.0, 1.0),
    ("strip", "max_brightness"): _range(0.01, 1.0),
    ("strip", "gamma"): _range(1.0, 4.0),
    ("strip", "power_budget_ma"): _range(50, 20000),
    ("strip", "ma_per_channel"): _range(1.0, 100.0),
    ("strip", "fps"): _range(1, 120),
    ("strip", "spi_bus"): _range(0, 6),
    ("strip", "spi_device"): _range(0, 2),
    ("strip", "spi_hz"): lambda v: None if 2_200_000 <= v <= 2_800_000 else
        f"must be between 2200000 and 2800000 Hz (3 SPI bits per WS2812 bit at ~800 kHz), got {v}",
    ("strip", "gpio"): lambda v: None if v in (10, 12, 18, 21) else f"must be a PWM/PCM/SPI capable pin (10, 12, 18, 21), got {v}",
    ("strip", "dma"): _range(0, 14),
    ("buttons", "p1"): _range(2, 27),
    ("buttons", "p2"): _range(2, 27),
    ("buttons", "p3"): _range(2, 27),
    ("buttons", "menu"): _range(2, 27),
    ("buttons", "hold_s"): _range(0.3, 3.0),
    ("buttons", "release_s"): _range(2.0, 30.0),
    ("buttons", "hotspot_s"): _range(5.0, 60.0),
    ("buttons", "debounce_ms"): _range(1.0, 200.0),
    ("web", "port"): _range(1, 65535),
    ("web", "threads"): _range(4, 256),
    ("voice", "volume"): _range(0.0, 1.0),
    ("voice", "voice"): lambda v: None if VOICE_NAME.match(v) else
        f"must be an espeak-ng voice name such as en-gb, en-us or en+f3, got {v!r}",
    ("voice", "speed"): _range(80, 400),
    ("voice", "device"): lambda v: None if re.match(r"^[A-Za-z0-9_:=,.-]{1,64}$", v) else
        f"must be an ALSA device name such as default, hw:0 or plughw:CARD=Headphones, got {v!r}",
    ("voice", "sink"): _choice(VOICE_SINKS),
    ("voice", "queue"): _range(1, 10),
}


def _locate(text: str, section: str, key: str | None = None) -> int | None:
    """Return the 1-based line of ``key`` in ``[section]`` (or of the header), or None."""
    current = None
    header = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$")
    for n, raw in enumerate(text.splitlines(), start=1):
        m = header.match(raw)
        if m:
            current = m.group(1)
            if key is None and current == section:
                return n
            continue
        if key is not None and current == section and re.match(rf"^\s*{re.escape(key)}\s*=", raw):
            return n
        if key is not None and current is None and re.match(rf"^\s*{re.escape(section)}\.{re.escape(key)}\s*=", raw):
            return n
    return None


def _coerce(section: str, key: str, value: Any, typ: Any) -> Any:
    """Return ``value`` as the field's type, or raise ConfigError(reason) without location."""
    names = {"int": int, "float": float, "str": str, "bool": bool}
    want = names.get(typ if isinstance(typ, str) else getattr(typ, "__name__", ""), None)
    if want is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if want is not None and (not isinstance(value, want) or (want is int and isinstance(value, bool))):
        raise ConfigError(f"must be {'a number' if want in (int, float) else 'a ' + want.__name__}"
                          f"{' (whole)' if want is int else ''}, got {type(value).__name__} {value!r}")
    return value


def from_dict(data: dict[str, Any], *, text: str = "", source: str | None = None) -> Config:
    """Return the Config for a parsed TOML mapping, defaults filled in.

    :param text: the file's text, used only to report line numbers.
    :raises ConfigError: unknown section or key, wrong type, value out of range,
        or pins that clash; the message names key, line and reason.
    """
    sections: dict[str, Any] = {}
    for name, value in data.items():
        if name not in _SECTIONS:
            raise ConfigError(f"unknown section [{name}] (known: {', '.join(_SECTIONS)})",
                              key=name, line=_locate(text, name), path=source)
        if not isinstance(value, dict):
            raise ConfigError(f"[{name}] must be a table", key=name, line=_locate(text, name) or _line_of_key(text, name),
                              path=source)
        cls = _SECTIONS[name]
        fields = {f.name: f for f in dataclasses.fields(cls)}
        values = {}
        for key, v in value.items():
            dotted = f"{name}.{key}"
            line = _locate(text, name, key)
            if key not in fields:
                raise ConfigError(f"unknown key (known: {', '.join(fields)})", key=dotted, line=line, path=source)
            try:
                v = _coerce(name, key, v, fields[key].type)
            except ConfigError as exc:
                raise ConfigError(exc.reason, key=dotted, line=line, path=source) from None
            check = _CHECKS.get((name, key))
            problem = check(v) if check else None
            if problem:
                raise ConfigError(problem, key=dotted, line=line, path=source)
            values[key] = v
        sections[name] = cls(**values)
    config = Config(**sections, source=source)
    validate(config, text=text)
    return config


def _line_of_key(text: str, key: str) -> int | None:
    for n, raw in enumerate(text.splitlines(), start=1):
        if re.match(rf"^\s*{re.escape(key)}\s*=", raw):
            return n
    return None


def validate(config: Config, *, text: str = "") -> None:
    """Check what single keys cannot: pins that clash, brightness above its limit.

    :raises ConfigError: naming the offending key and its line in ``text``.
    """
    for section, cls in _SECTIONS.items():
        obj = getattr(config, section)
        for f in dataclasses.fields(cls):
            check = _CHECKS.get((section, f.name))
            problem = check(getattr(obj, f.name)) if check else None
            if problem:
                raise ConfigError(problem, key=f"{section}.{f.name}", line=_locate(text, section, f.name),
                                  path=config.source)
    strip, buttons = config.strip, config.buttons
    if strip.brightness > strip.max_brightness:
        raise ConfigError(f"is {strip.brightness}, above strip.max_brightness {strip.max_brightness}",
                          key="strip.brightness", line=_locate(text, "strip", "brightness"), path=config.source)
    if buttons.release_s <= buttons.hold_s:
        raise ConfigError(f"must be longer than buttons.hold_s ({buttons.hold_s} s)", key="buttons.release_s",
                          line=_locate(text, "buttons", "release_s"), path=config.source)
    if buttons.hotspot_s <= buttons.release_s:
        raise ConfigError(f"must be longer than buttons.release_s ({buttons.release_s} s)", key="buttons.hotspot_s",
                          line=_locate(text, "buttons", "hotspot_s"), path=config.source)
    seen: dict[int, str] = {}
    reserved = dict(RESERVED_PINS[strip.driver])
    if strip.driver == "ws281x":
        reserved = {strip.gpio: "the ws281x strip data pin"}
    for name, pin in buttons.pins().items():
        line = _locate(text, "buttons", name)
        if pin in reserved:
            raise ConfigError(f"GPIO {pin} is {reserved[pin]} with strip.driver = {strip.driver!r}",
                              key=f"buttons.{name}", line=line, path=config.source)
        if pin in seen:
            raise ConfigError(f"GPIO {pin} is already used by buttons.{seen[pin]}", key=f"buttons.{name}",
                              line=line, path=config.source)
        seen[pin] = name


def loads(text: str, *, source: str | None = None) -> Config:
    """Return the Config described by TOML ``text``.

    :raises ConfigError: bad TOML (with its line) or a refused value (see :func:`from_dict`).
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise ConfigError(f"not valid TOML: {exc}", line=int(m.group(1)) if m else None, path=source) from None
    return from_dict(data, text=text, source=source)


def load(path: str | Path) -> Config:
    """Return the Config read from the TOML file at ``path``.

    :raises ConfigError: the file cannot be read, is not TOML, or holds a refused value.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config file: {exc.strerror or exc}", path=str(p)) from None
    except UnicodeDecodeError:
        raise ConfigError("config file is not UTF-8 text", path=str(p)) from None
    return loads(text, source=str(p))


DEFAULTS = Config()

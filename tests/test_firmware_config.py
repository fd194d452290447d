"""firmware.config: defaults, the shipped default file, and refusals that name key, line and reason."""

import dataclasses
from pathlib import Path

import pytest

from firmware import config as cfg
from firmware.config import ConfigError, loads

ROOT = Path(__file__).resolve().parents[1]


def test_defaults_are_the_documented_board():
    c = cfg.DEFAULTS
    assert (c.board.lanes, c.board.holes, c.board.wiring, c.board.status_leds) == (3, 16, "serpentine", 4)
    assert (c.strip.driver, c.strip.type, c.strip.spi_hz, c.strip.gpio) == ("spi", "GRB", 2_400_000, 18)
    assert c.buttons.pins() == {"p1": 17, "p2": 27, "p3": 22, "menu": 23}
    assert (c.buttons.hold_s, c.buttons.release_s, c.buttons.debounce_ms) == (1.0, 5.0, 30.0)
    assert (c.web.host, c.web.port, c.web.threads) == ("0.0.0.0", 8000, 24)   # waitress threads >= 16
    # the default pins stay clear of SPI0 (7-11), PWM0 (18), I2C (2, 3) and the UART (14, 15)
    assert not set(c.buttons.pins().values()) & {2, 3, 7, 8, 9, 10, 11, 14, 15, 18}


def test_shipped_default_file_equals_the_built_in_defaults():
    c = cfg.load(ROOT / "firmware" / "default_config.toml")
    assert dataclasses.replace(c, source=None) == cfg.DEFAULTS


def test_empty_file_gives_defaults_and_partial_file_overrides_only_its_keys():
    assert loads("") == cfg.DEFAULTS
    c = loads('[strip]\ndriver = "ws281x"\ntype = "GRBW"\npower_budget_ma = 900\n[buttons]\np1 = 5\n')
    assert (c.strip.driver, c.strip.type, c.strip.power_budget_ma) == ("ws281x", "GRBW", 900)
    assert c.buttons.pins() == {"p1": 5, "p2": 27, "p3": 22, "menu": 23}
    assert c.board == cfg.DEFAULTS.board


def test_an_integer_is_accepted_for_a_float_key():
    assert loads("[strip]\nbrightness = 0\n").strip.brightness == 0.0


@pytest.mark.parametrize("text, key, line, reason", [
    ("[board]\nholes = 16\nlanes = 2\n", "board.lanes", 3, "must be 3 (two outer lanes and a middle lane), got 2"),
    ("\n[strip]\ntype = \"RGBX\"\n", "strip.type", 3, "must be one of GRB, RGB, BRG, RBG, GBR, BGR, GRBW, RGBW, got 'RGBX'"),
    ("[strip]\nbrightness = \"high\"\n", "strip.brightness", 2, "must be a number, got str 'high'"),
    ("[strip]\npower_budget_ma = 1.5e3\n", "strip.power_budget_ma", 2, "must be a number (whole), got float 1500.0"),
    ("[strip]\nbrightness = 0.9\n", "strip.brightness", 2, "is 0.9, above strip.max_brightness 0.8"),
    ("[strip]\nspi_hz = 4000000\n", "strip.spi_hz", 2,
     "must be between 2200000 and 2800000 Hz (3 SPI bits per WS2812 bit at ~800 kHz), got 4000000"),
    ("[buttons]\np1 = 10\n", "buttons.p1", 2, "GPIO 10 is SPI0 MOSI (the strip data) with strip.driver = 'spi'"),
    ("[strip]\ndriver = \"ws281x\"\n[buttons]\nmenu = 18\n", "buttons.menu", 4,
     "GPIO 18 is the ws281x strip data pin with strip.driver = 'ws281x'"),
    ("[buttons]\np1 = 5\np2 = 5\n", "buttons.p2", 3, "GPIO 5 is already used by buttons.p1"),
    ("[buttons]\nhold_s = 2.0\nrelease_s = 2.0\n", "buttons.release_s", 3, "must be longer than buttons.hold_s (2.0 s)"),
    ("[buttons]\nrelease_s = 12.0\nhotspot_s = 10.0\n", "buttons.hotspot_s", 3,
     "must be longer than buttons.release_s (12.0 s)"),
    ("[buttons]\np4 = 6\n", "buttons.p4", 2, "unknown key (known: p1, p2, p3, menu, hold_s, release_s, hotspot_s, debounce_ms)"),
    ("[stripe]\ndriver = \"spi\"\n", "stripe", 1, "unknown section [stripe] (known: board, strip, buttons, web, voice)"),
    ("[web]\nport = 70000\n", "web.port", 2, "must be between 1 and 65535, got 70000"),
    ("[board]\nwiring = \"zigzag\"\n", "board.wiring", 2, "must be one of serpentine, straight, got 'zigzag'"),
])
def test_refused_values_name_key_line_and_reason(text, key, line, reason):
    with pytest.raises(ConfigError) as err:
        loads(text, source="board.toml")
    assert (err.value.key, err.value.line, err.value.reason) == (key, line, reason)
    assert str(err.value) == f"board.toml, line {line}, {key}: {reason}"


def test_bad_toml_reports_its_line():
    with pytest.raises(ConfigError) as err:
        loads("[strip]\nbrightness = 0.5\ndriver = spi\n")
    assert err.value.line == 3
    assert err.value.reason.startswith("not valid TOML: ")


def test_unreadable_file_is_refused_with_its_path(tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError) as err:
        cfg.load(missing)
    assert str(err.value) == f"{missing}: cannot read config file: No such file or directory"


def test_replace_validates_the_result():
    c = cfg.DEFAULTS.replace("strip", driver="sim", brightness=0.3)
    assert (c.strip.driver, c.strip.brightness) == ("sim", 0.3)
    with pytest.raises(ConfigError, match="strip.gamma: must be between 1.0 and 4.0, got 9.0"):
        cfg.DEFAULTS.replace("strip", gamma=9.0)


def test_config_sections_are_frozen_keyword_only_value_objects():
    """The config classes share one ``__init__``/``__repr__``/``__eq__``/``__hash__`` (firmware.config._Section,
    for the start-up) and behave as the frozen, keyword-only dataclasses they were."""
    for cls in (cfg.BoardConfig, cfg.StripConfig, cfg.ButtonConfig, cfg.WebConfig, cfg.VoiceConfig, cfg.Config):
        a, b = cls(), cls()
        assert dataclasses.is_dataclass(a) and a == b and hash(a) == hash(b) and a is not b
        name = dataclasses.fields(cls)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(a, name, None)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(a, name)
        with pytest.raises(TypeError):
            cls(1)
        with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
            cls(nope=1)
    assert cfg.Config().board is not cfg.Config().board          # a default_factory per instance
    assert repr(cfg.WebConfig(port=9)) == "WebConfig(host='0.0.0.0', port=9, threads=24)"
    assert cfg.WebConfig(port=9) != cfg.WebConfig() and cfg.WebConfig() != cfg.BoardConfig()
    assert cfg.WebConfig().__eq__(object()) is NotImplemented
    assert dataclasses.replace(cfg.DEFAULTS, source="x").source == "x"
    assert cfg.DEFAULTS.replace("board", holes=12).board.holes == 12
    assert cfg.DEFAULTS.replace("board", holes=12) != cfg.DEFAULTS
    assert {cfg.DEFAULTS: 1}[cfg.Config()] == 1


def test_the_boards_other_records_behave_as_their_dataclasses_did():
    from firmware.render import PALETTES, Light, Palette
    from firmware.voice import Settings
    with pytest.raises(TypeError, match="missing required keyword-only argument: 'name'"):
        Palette()
    p = PALETTES["standard"]
    assert dataclasses.replace(p, skunk_dashed=True) != p and dataclasses.replace(p) == p
    assert Light() == Light(brightness=0.5) and hash(Light()) == hash(Light()) and Light(gamma=2.0) != Light()
    with pytest.raises(dataclasses.FrozenInstanceError):
        Light().gamma = 1.0
    assert repr(Light()) == "Light(brightness=0.5, gamma=2.8, budget_ma=1500.0, ma_per_channel=20.0)"
    s = Settings()
    assert dataclasses.replace(s, volume=0.5).volume == 0.5 and s == Settings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.volume = 0.1

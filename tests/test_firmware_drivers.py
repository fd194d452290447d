"""Strip drivers: SPI encoding round trip and timing, ws281x on a fake _rpi_ws281x, the simulator's limits.

The fakes here are small simulators of the hardware modules (they keep the
state a real device would), not mocks: the SPI fake keeps every transfer,
the _rpi_ws281x fake keeps the channel settings and the rendered LED words.
"""

import importlib
import sys
import types
from pathlib import Path

import pytest

from firmware import png
from firmware.drivers import Strip, StripError
from firmware.drivers import spi as spi_mod
from firmware.drivers.sim import SimStrip, board_png, perceived, picture_size
from firmware.drivers.spi import SpiStrip, decode, encode, reset_bytes, timing_ns
from firmware.drivers.ws281x import Ws281xStrip
from firmware.frame import Frame, wire_bytes
from firmware.geometry import Geometry

G = Geometry()


def frame_with(**px):
    pixels = [(0, 0, 0)] * G.count
    for k, v in px.items():
        pixels[int(k[1:])] = v
    return Frame(tuple(pixels), G)


FRAME = frame_with(i0=(255, 0, 0), i1=(0, 255, 0), i2=(0, 0, 255), i17=(1, 2, 3), i51=(200, 120, 40))


# --- SPI --------------------------------------------------------------------------------
def test_one_byte_expands_to_three_spi_bytes():
    assert encode(b"\x00", 2_400_000)[:3] == bytes([0b10010010, 0b01001001, 0b00100100])
    assert encode(b"\xff", 2_400_000)[:3] == bytes([0b11011011, 0b01101101, 0b10110110])
    assert len(encode(b"\x00" * 156, 2_400_000)) == 156 * 3 + 90


def test_encode_decode_round_trip_of_every_byte_value():
    data = bytes(range(256)) + bytes(range(255, -1, -1))
    stream = encode(data, 2_400_000)
    assert decode(stream) == (data, 90)


def test_decode_refuses_a_broken_signal():
    stream = bytearray(encode(b"\x5a", 2_400_000))
    stream[0] ^= 0b10000000              # the first group becomes 000: not a WS2812 bit
    with pytest.raises(ValueError, match="SPI bit group 0 is 000, neither 100"):
        decode(bytes(stream))


@pytest.mark.parametrize("hz", [2_200_000, 2_400_000, 2_800_000])
def test_pulse_widths_are_inside_the_ws2812b_datasheet(hz):
    t = timing_ns(hz)
    for name, (lo, hi) in spi_mod.DATASHEET_NS.items():
        assert lo <= t[name] <= hi, (name, t[name])
    assert t["reset_us"] >= spi_mod.LATCH_US
    assert t["T0H"] + t["T0L"] == pytest.approx(3e9 / hz)       # one WS2812 bit = 3 SPI bits


def test_default_timing_numbers():
    t = timing_ns(2_400_000)
    assert {k: round(v, 1) for k, v in t.items()} == {"T0H": 416.7, "T0L": 833.3, "T1H": 833.3, "T1L": 416.7,
                                                       "reset_us": 300.0}
    # a frame of 52 GRB LEDs: 52 x 24 bits x 1.25 us = 1560 us of data + 300 us latch
    assert (len(encode(bytes(52 * 3))) - reset_bytes()) * 8 / 2.4 == pytest.approx(1560.0)


def test_wire_order_and_white_split():
    assert wire_bytes([(10, 20, 30)], "GRB") == bytes([20, 10, 30])
    assert wire_bytes([(10, 20, 30)], "BRG") == bytes([30, 10, 20])
    assert wire_bytes([(200, 120, 40)], "GRBW") == bytes([80, 160, 0, 40])


class FakeSpiDev:
    """What /dev/spidev keeps: settings and every transfer."""

    nodes = {(0, 0)}

    def __init__(self):
        self.transfers = []
        self.max_speed_hz = 0
        self.mode = None
        self.closed = False

    def open(self, bus, device):
        if (bus, device) not in self.nodes:
            raise FileNotFoundError(2, "No such file or directory")

    def writebytes2(self, data):
        if len(data) > 4096:
            raise OSError(90, "Message too long")
        self.transfers.append(bytes(data))

    def close(self):
        self.closed = True


def fake_spidev():
    mod = types.ModuleType("spidev")
    mod.devices = []

    def SpiDev():
        d = FakeSpiDev()
        mod.devices.append(d)
        return d
    mod.SpiDev = SpiDev
    return mod


def test_spi_strip_sends_the_frame_in_grb_order():
    mod = fake_spidev()
    strip = SpiStrip(G.count, spidev_module=mod)
    strip.open()
    strip.show(FRAME)
    dev = mod.devices[0]
    assert (dev.max_speed_hz, dev.mode) == (2_400_000, 0)
    data, trailing = decode(dev.transfers[0])
    assert trailing == 90
    leds = [tuple(data[i:i + 3]) for i in range(0, len(data), 3)]
    assert len(leds) == 52
    assert (leds[0], leds[1], leds[2], leds[17], leds[51]) == ((0, 255, 0), (255, 0, 0), (0, 0, 255), (2, 1, 3),
                                                               (120, 200, 40))
    assert sum(map(sum, leds)) == 255 * 3 + 6 + 360
    strip.close()
    assert dev.closed


def test_spi_strip_reports_a_missing_device():
    strip = SpiStrip(G.count, bus=1, spidev_module=fake_spidev())
    with pytest.raises(StripError, match=r"cannot open /dev/spidev1.0: No such file or directory \(enable SPI"):
        strip.open()
    with pytest.raises(StripError, match="spi strip is not open"):
        strip.show(FRAME)


# --- ws281x on a fake _rpi_ws281x ------------------------------------------------------------------
def fake_rpi_ws281x():
    """A stand-in for the C extension: keeps channels, LED words and calls."""
    m = types.ModuleType("_rpi_ws281x")
    for name, value in {"WS2811_STRIP_GRB": 0x081000, "WS2811_STRIP_RGB": 0x100800, "WS2811_STRIP_BRG": 0x080010,
                        "WS2811_STRIP_RBG": 0x100008, "WS2811_STRIP_GBR": 0x000810, "WS2811_STRIP_BGR": 0x001008,
                        "SK6812_STRIP_GRBW": 0x18081000, "SK6812_STRIP_RGBW": 0x18100800,
                        "WS2811_TARGET_FREQ": 800000}.items():
        setattr(m, name, value)
    m.calls = []
    m.init_result = 0

    class Leds:
        def __init__(self):
            self.channels = [dict(count=0, leds=[]) for _ in range(2)]
            self.freq = self.dma = None
            self.rendered = []

    def new_ws2811_t():
        m.leds = Leds()
        return m.leds

    def ws2811_channel_get(leds, n):
        return leds.channels[n]
    m.new_ws2811_t, m.ws2811_channel_get = new_ws2811_t, ws2811_channel_get

    def setter(key):
        def set_(chan, value):
            chan[key] = value
            if key == "count":
                chan["leds"] = [0] * value
        return set_

    for key in ("count", "gpionum", "invert", "brightness", "strip_type", "gamma"):
        setattr(m, f"ws2811_channel_t_{key}_set", setter(key))
    m.ws2811_channel_t_count_get = lambda chan: chan["count"]
    m.ws2811_t_freq_set = lambda leds, v: setattr(leds, "freq", v)
    m.ws2811_t_dmanum_set = lambda leds, v: setattr(leds, "dma", v)

    def ws2811_led_set(chan, n, value):
        chan["leds"][n] = int(value)
    m.ws2811_led_set = ws2811_led_set
    m.ws2811_led_get = lambda chan, n: chan["leds"][n]

    def ws2811_init(leds):
        m.calls.append("init")
        return m.init_result

    def ws2811_render(leds):
        m.calls.append("render")
        leds.rendered.append(list(leds.channels[0]["leds"]))
        return 0
    m.ws2811_init, m.ws2811_render = ws2811_init, ws2811_render
    m.ws2811_fini = lambda leds: m.calls.append("fini")
    m.delete_ws2811_t = lambda leds: m.calls.append("delete")
    m.ws2811_get_return_t_str = lambda code: {-5: "Failed to mmap"}.get(code, "error")
    return m


@pytest.fixture
def ws(monkeypatch):
    fake = fake_rpi_ws281x()
    monkeypatch.setitem(sys.modules, "_rpi_ws281x", fake)
    for name in ("rpi_ws281x", "rpi_ws281x.rpi_ws281x"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    yield fake
    for name in ("rpi_ws281x", "rpi_ws281x.rpi_ws281x"):
        sys.modules.pop(name, None)


PI4 = lambda: "Raspberry Pi 4 Model B Rev 1.4"  # noqa: E731


def test_ws281x_drives_the_real_pixelstrip_over_the_fake_extension(ws):
    strip = Ws281xStrip(G.count, order="GRB", board_model=PI4)
    strip.open()
    chan = ws.leds.channels[0]
    assert (chan["count"], chan["gpionum"], chan["brightness"], chan["strip_type"]) == (52, 18, 255, 0x081000)
    assert chan["gamma"] == list(range(256))          # the renderer already applied gamma
    assert (ws.leds.freq, ws.leds.dma) == (800_000, 10)
    strip.show(FRAME)
    words = ws.leds.rendered[-1]
    assert (words[0], words[1], words[2], words[17], words[51]) == (0xFF0000, 0x00FF00, 0x0000FF, 0x010203, 0xC87828)
    strip.close()
    assert ws.calls == ["init", "render", "fini", "delete"]


def test_ws281x_rgbw_moves_grey_to_the_white_channel(ws):
    strip = Ws281xStrip(G.count, order="GRBW", board_model=PI4)
    strip.open()
    strip.show(FRAME)
    assert ws.leds.channels[0]["strip_type"] == 0x18081000
    assert ws.leds.rendered[-1][51] == (40 << 24) | (160 << 16) | (80 << 8) | 0
    strip.close()


def test_ws281x_refuses_other_boards_before_touching_the_library(ws):
    for model, reason in ((lambda: None, "needs a Raspberry Pi 1-4 \\(this board: unknown\\)"),
                          (lambda: "Raspberry Pi 5 Model B Rev 1.0", "does not support the Raspberry Pi 5")):
        with pytest.raises(StripError, match=reason):
            Ws281xStrip(G.count, board_model=model).open()
    assert ws.calls == [] and "rpi_ws281x" not in sys.modules


def test_ws281x_init_failure_is_a_strip_error(ws):
    ws.init_result = -5
    with pytest.raises(StripError, match=r"ws2811_init failed with code -5 \(Failed to mmap\).*needs root"):
        Ws281xStrip(G.count, board_model=PI4).open()
    assert ws.calls == ["init", "fini", "delete"]


# --- the simulator ---------------------------------------------------------------------------
def test_sim_keeps_the_frame_and_enforces_the_hardware_limits():
    sim = SimStrip(G, budget_ma=100, ma_per_channel=20)
    with pytest.raises(StripError, match="not open"):
        sim.show(FRAME)
    sim.open()
    sim.show(frame_with(i3=(255, 255, 0)))               # 40 mA
    assert sim.frame.pixels[3] == (255, 255, 0) and sim.shown == 1
    with pytest.raises(StripError, match="frame has 51 LEDs, the strip 52"):
        sim.show(Frame(FRAME.pixels[:51], G))
    with pytest.raises(StripError, match=r"LED 5 has \(256, 0, 0\); channels must be integers 0..255"):
        sim.show(frame_with(i5=(256, 0, 0)))
    with pytest.raises(StripError, match=r"LED 5 has \(1.5, 0, 0\)"):
        sim.show(frame_with(i5=(1.5, 0, 0)))
    with pytest.raises(StripError, match="frame draws 120 mA, over the 100 mA budget"):
        sim.show(frame_with(i0=(255, 255, 255), i1=(255, 255, 255)))
    assert sim.frame.pixels[3] == (255, 255, 0) and sim.shown == 1     # refused frames change nothing


def test_sim_png_shows_lit_leds_where_the_board_has_them(tmp_path):
    sim = SimStrip(G, gamma=2.8)
    sim.open()
    sim.show(frame_with(i0=(0, 36, 0), i48=(36, 36, 36)))
    path = sim.write_png(tmp_path / "board.png")
    width, height, rgb = png.decode(path.read_bytes())
    assert (width, height) == picture_size(G) == (662, 180)

    def px(x, y):
        o = (y * width + x) * 3
        return tuple(rgb[o:o + 3])
    # lane 1 hole 1 centre: x = 18 + 18 + 36 + 14 = 86, y = 18 + 36 + 18 = 72; value 36 looks like 127
    assert px(86, 72) == (0, perceived(36, 2.8), 0) == (0, 127, 0)
    assert px(36, 72) == (127, 127, 127)                  # lane 1's status LED, left of hole 1
    assert px(122, 72) == (38, 26, 17)                    # hole 2: dark, unlit


def test_sim_ansi_has_one_line_per_lane_plus_the_phase_row():
    sim = SimStrip(G)
    sim.open()
    sim.show(frame_with(i0=(0, 36, 0)))
    lines = sim.ansi().splitlines()
    assert len(lines) == 4
    assert lines[1].count("●") == 1 and "\x1b[38;2;0;127;0m●" in lines[1]
    assert lines[1].endswith("lane 1") and lines[1].count("·") == 16


# --- the contract every driver keeps ---------------------------------------------------------------------
def make_drivers(ws_fake):
    spi = fake_spidev()
    return {
        "sim": (SimStrip(G), lambda s: s.frame.pixels),
        "spi": (SpiStrip(G.count, spidev_module=spi), lambda s: tuple(
            (d[i + 1], d[i], d[i + 2]) for d in [decode(spi.devices[-1].transfers[-1])[0]]
            for i in range(0, len(d), 3))),
        "ws281x": (Ws281xStrip(G.count, board_model=PI4), lambda s: tuple(
            ((w >> 16) & 255, (w >> 8) & 255, w & 255) for w in ws_fake.leds.rendered[-1])),
    }


def test_every_driver_shows_the_same_picture(ws):
    for name, (strip, shown) in make_drivers(ws).items():
        assert isinstance(strip, Strip), name
        strip.open()
        strip.show(FRAME)
        assert shown(strip) == FRAME.pixels, name
        strip.show(Frame.blank(G))
        assert set(shown(strip)) == {(0, 0, 0)}, name
        strip.close()


def test_importing_the_drivers_loads_no_hardware_module():
    code = ("import sys, firmware.daemon, firmware.drivers.spi, firmware.drivers.ws281x, firmware.drivers.sim;"
            "print(sorted(m for m in ('spidev', 'rpi_ws281x', '_rpi_ws281x') if m in sys.modules))")
    import subprocess
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_board_png_is_deterministic():
    assert board_png(FRAME) == board_png(FRAME)
    assert importlib.import_module("firmware.png").decode(board_png(FRAME))[0] == 662


def test_readme_picture_is_what_the_simulator_draws_mid_game(tmp_path):
    from firmware.picture import main, mid_game_snapshot
    snap = mid_game_snapshot()
    # a real game: hand 1 counted (pegging, shows, pocket), hand 2 in its matching phase
    assert [(s["id"], s["score"], s["previous"]) for s in snap["sides"]] == [("house", 11, 9), ("p1", 12, 5),
                                                                            ("p2", 9, 2)]
    assert (snap["hand_no"], snap["phase"], snap["count"], snap["turn"]) == (2, "pegging", 25, "Ann")
    main([str(tmp_path / "board.png")])
    width, height, rgb = png.decode((tmp_path / "board.png").read_bytes())
    assert (width, height) == picture_size(G, scale=2)

    def px(x, y):
        o = (y * width + x) * 3
        return tuple(rgb[o:o + 3])
    # lane 1 (Ann, 12): hole 12 centre at x = 2 x (86 + 11 x 36) = 964, y = 2 x 72 = 144; 128 looks like 199
    assert px(964, 144) == (0, 199, 0)
    # status LEDs at x = 72: Ann's turn (white), the house deals (amber), Bob owns the pocket (blue)
    assert [px(72, y) for y in (144, 216, 288)] == [(199, 199, 199), (199, 86, 0), (0, 63, 199)]
    # the README's power numbers for this board
    from firmware.render import Light, render
    text = (Path(__file__).resolve().parents[1] / "hardware" / "README.md").read_text()
    row = next(line for line in text.splitlines() if "a static mid-game board (`docs/img/board.png`)" in line)
    drawn = [round(render(snap, G, settings=Light(brightness=b, gamma=2.8, budget_ma=1500)).current_ma(20))
             for b in (0.5, 0.8, 1.0)]
    assert row.endswith(f"| {drawn[0]} / {drawn[1]} / {drawn[2]} mA |") and drawn == [93, 149, 186]
    committed = Path(__file__).resolve().parents[1] / "docs" / "img" / "board.png"
    assert committed.read_bytes() == (tmp_path / "board.png").read_bytes(), \
        "regenerate with: python -m firmware.picture docs/img/board.png"


@pytest.mark.parametrize("model, source_hz, real_hz", [
    ("Pi 3 / Zero 2 W, core 250 MHz", 250_000_000, 2_358_490),
    ("Zero 2 W, core 400 MHz", 400_000_000, 2_380_952),
    ("Pi 4, core pinned at 500 MHz", 500_000_000, 2_380_952),
    ("Pi 5, RP1 SPI clock 200 MHz", 200_000_000, 2_380_952),
])
def test_the_clock_a_pi_really_makes_for_2_4_mhz_keeps_the_datasheet_timing(model, source_hz, real_hz):
    # spi-bcm2835 and the RP1's dw-spi divide their source clock by an even divisor, rounded up
    divisor = -(-source_hz // 2_400_000)
    divisor += divisor % 2
    assert source_hz // divisor == real_hz
    t = timing_ns(real_hz)
    for name, (lo, hi) in spi_mod.DATASHEET_NS.items():
        assert lo <= t[name] <= hi, (model, name, t[name])
    # the reset is sent as zero bytes counted for 2.4 MHz: at the slower real clock it only gets longer
    assert reset_bytes() * 8 / real_hz * 1e6 >= spi_mod.LATCH_US

"""hardware/: the drawings are current, and the board face matches the firmware's strip layout."""

import importlib.util
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from firmware.geometry import Geometry

ROOT = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"


def drawings():
    spec = importlib.util.spec_from_file_location("drawings", ROOT / "hardware" / "drawings.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_committed_drawings_are_what_drawings_py_writes(tmp_path):
    drawings().main(tmp_path)
    for name in ("board-face.svg", "wiring.svg"):
        assert (tmp_path / name).read_text() == (ROOT / "hardware" / name).read_text(), \
            f"regenerate with: python hardware/drawings.py ({name})"


def test_board_face_holes_sit_one_led_pitch_apart_with_the_firmware_strip_indices():
    d = drawings()
    root = ET.parse(ROOT / "hardware" / "board-face.svg").getroot()
    holes = [(float(c.get("cx")), float(c.get("cy"))) for c in root.iter(f"{SVG}circle") if c.get("r") == "4.0"]
    lanes = {y: sorted(x for x, yy in holes if yy == y) for y in d.LANE_Y}
    assert [len(lanes[y]) for y in d.LANE_Y] == [17, 17, 17]          # 16 holes + the lane's status LED
    for y in d.LANE_Y:
        xs = lanes[y][1:]
        assert xs[0] == 62.0 and all(abs((b - a) - 1000 / 60) < 0.01 for a, b in zip(xs, xs[1:]))
    labels = [t.text for t in root.iter(f"{SVG}text") if t.text and re.fullmatch(r"#\d+", t.text)]
    g = Geometry()
    assert labels == [f"#{g.index(lane, h)}" for lane in (1, 2, 3) for h in range(1, 17)]
    status = [t.text for t in root.iter(f"{SVG}text") if t.text and re.match(r"(S\d|phase) #", t.text)]
    assert status == [f"S1 #{g.status_index(0)}", f"S2 #{g.status_index(1)}", f"S3 #{g.status_index(2)}",
                      f"phase #{g.status_index(3)}"]


def test_wiring_diagram_names_the_configured_pins():
    from firmware.config import DEFAULTS
    text = (ROOT / "hardware" / "wiring.svg").read_text()
    ET.fromstring(text)
    pins = {17: 11, 27: 13, 22: 15, 23: 16}
    for bcm in DEFAULTS.buttons.pins().values():
        assert f"GPIO{bcm} (pin {pins[bcm]})" in text
    assert "GPIO10 MOSI (pin 19)" in text and "74AHCT125" in text and "330 Ω" in text and "1000 µF" in text
    # the voice's I2S amplifier on the PCM pins (hardware/README.md's pin table)
    for label in ("MAX98357A", "BCLK ← GPIO18 (pin 12)", "LRC  ← GPIO19 (pin 35)", "DIN  ← GPIO21 (pin 40)"):
        assert label in text

"""Writes the hardware drawings: ``board-face.svg`` (hole positions, mm) and ``wiring.svg``.

    .venv/bin/python hardware/drawings.py      # rewrites both SVGs next to this file

The board face takes its numbers from the constants below, which match a
60 LEDs/m WS2812B strip (16.667 mm between LEDs): each lane is one 16-LED
piece of strip glued under a row of holes, so the holes must sit exactly one
LED pitch apart. The strip order (serpentine) is the firmware's default
``[board] wiring = "serpentine"``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# --- board face, millimetres -------------------------------------------------------
BOARD_W, BOARD_H = 340.0, 140.0
PITCH = 1000.0 / 60.0          # LED pitch of a 60 LEDs/m strip
LANES, HOLES = 3, 16
LANE_Y = (50.0, 80.0, 110.0)   # lane centre lines
HOLE1_X = 62.0                 # hole 1 of every lane
SEAT_X = 36.0                  # the lane's status LED (dealer / turn / pocket)
BUTTON_X = 14.0                # the lane's button (p1, p2, p3)
PHASE = (36.0, 20.0)           # the phase LED
MENU = (318.0, 20.0)           # the menu button
HOLE_D = 8.0                   # drilled window over each LED
BUTTON_D = 12.0                # panel hole of a 12 mm push button


def hole_x(hole: int) -> float:
    """Return the x (mm from the left edge) of ``hole`` (1..16)."""
    return HOLE1_X + (hole - 1) * PITCH


def strip_index(lane: int, hole: int) -> int:
    """Return the strip index of a hole with serpentine wiring (lane 2 runs backwards)."""
    return (lane - 1) * HOLES + (HOLES - hole if lane == 2 else hole - 1)


def board_face() -> str:
    """Return the board face drawing (SVG, 1 user unit = 1 mm)."""
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{BOARD_W}mm" height="{BOARD_H + 30}mm" '
           f'viewBox="0 0 {BOARD_W} {BOARD_H + 30}" font-family="sans-serif">',
           "<title>Land's End board face: hole positions in mm (60 LEDs/m strip)</title>",
           f'<rect x="0" y="0" width="{BOARD_W}" height="{BOARD_H}" rx="6" fill="#c8a27a" stroke="#5a3d22" '
           'stroke-width="0.8"/>',
           f'<text x="{BOARD_W / 2}" y="14" text-anchor="middle" font-size="7" fill="#5a3d22" '
           "letter-spacing=\"2\">LAND'S END</text>"]
    for lane, y in enumerate(LANE_Y, start=1):
        out.append(f'<circle cx="{BUTTON_X}" cy="{y}" r="{BUTTON_D / 2}" fill="#333" stroke="#000" stroke-width="0.4"/>'
                   f'<text x="{BUTTON_X}" y="{y + 1.6}" text-anchor="middle" font-size="4" fill="#fff">p{lane}</text>')
        out.append(f'<circle cx="{SEAT_X}" cy="{y}" r="{HOLE_D / 2}" fill="#fff8e0" stroke="#5a3d22" '
                   f'stroke-width="0.4"/><text x="{SEAT_X}" y="{y + 8.5}" text-anchor="middle" font-size="2.6" '
                   f'fill="#5a3d22">S{lane} #{48 + lane - 1}</text>')
        for hole in range(1, HOLES + 1):
            x = hole_x(hole)
            edge = hole == HOLES
            out.append(f'<circle cx="{x:.2f}" cy="{y}" r="{HOLE_D / 2}" fill="#2b1d12" '
                       f'stroke="{"#b0281e" if edge else "#5a3d22"}" stroke-width="{0.9 if edge else 0.4}"/>')
            out.append(f'<text x="{x:.2f}" y="{y - 5.5}" text-anchor="middle" font-size="2.6" fill="#5a3d22">'
                       f'{hole}</text><text x="{x:.2f}" y="{y + 8.5}" text-anchor="middle" font-size="2.2" '
                       f'fill="#7a5a3a">#{strip_index(lane, hole)}</text>')
        out.append(f'<text x="{BOARD_W - 6}" y="{y + 1.5}" text-anchor="end" font-size="3.2" fill="#5a3d22">'
                   f'lane {lane}</text>')
    out.append(f'<circle cx="{PHASE[0]}" cy="{PHASE[1]}" r="{HOLE_D / 2}" fill="#fff8e0" stroke="#5a3d22" '
               f'stroke-width="0.4"/><text x="{PHASE[0] + 7}" y="{PHASE[1] + 1.2}" font-size="3" fill="#5a3d22">'
               'phase #51</text>')
    out.append(f'<circle cx="{MENU[0]}" cy="{MENU[1]}" r="{BUTTON_D / 2}" fill="#333" stroke="#000" stroke-width="0.4"/>'
               f'<text x="{MENU[0]}" y="{MENU[1] + 1.4}" text-anchor="middle" font-size="3.4" fill="#fff">menu</text>')
    out.append(f'<text x="{hole_x(16):.2f}" y="{LANE_Y[2] + 16}" text-anchor="middle" font-size="3" '
               'fill="#b0281e">edge of the world</text>')
    # dimensions
    dy = BOARD_H + 8
    out.append(f'<g stroke="#000" stroke-width="0.3" fill="none"><path d="M{HOLE1_X} {dy} H{hole_x(16):.2f}"/>'
               f'<path d="M{HOLE1_X} {dy - 2} v4 M{hole_x(16):.2f} {dy - 2} v4"/>'
               f'<path d="M0 {dy + 10} H{BOARD_W} M0 {dy + 8} v4 M{BOARD_W} {dy + 8} v4"/></g>')
    out.append(f'<text x="{(HOLE1_X + hole_x(16)) / 2:.1f}" y="{dy - 1.5}" text-anchor="middle" font-size="3.2">'
               f'15 x {PITCH:.3f} = {15 * PITCH:.1f} mm (hole 1 at x = {HOLE1_X:.0f}, lanes at y = '
               f'{", ".join(f"{v:.0f}" for v in LANE_Y)}; holes {HOLE_D:.0f} mm, buttons {BUTTON_D:.0f} mm)</text>')
    out.append(f'<text x="{BOARD_W / 2}" y="{dy + 8.5}" text-anchor="middle" font-size="3.2">'
               f'{BOARD_W:.0f} x {BOARD_H:.0f} mm; #n = strip index (serpentine: lane 2 runs right to left)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def wiring() -> str:
    """Return the wiring diagram (SVG)."""
    s = ['<svg xmlns="http://www.w3.org/2000/svg" width="960" height="660" viewBox="0 0 960 660" '
         'font-family="sans-serif" font-size="12">',
         "<title>Land's End wiring: Pi, 74AHCT125 level shifter, WS2812B strip, buttons, power, "
         "optional I2S amplifier for the voice</title>",
         '<rect width="960" height="660" fill="#fff"/>']

    def box(x, y, w, h, title, fill="#f4f4f4"):
        s.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="{fill}" stroke="#000"/>'
                 f'<text x="{x + w / 2}" y="{y + 18}" text-anchor="middle" font-weight="bold">{title}</text>')

    def wire(points, colour, label=None, at=None):
        d = "M" + " L".join(f"{x} {y}" for x, y in points)
        s.append(f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="2.5" stroke-linejoin="round"/>')
        if label:
            lx, ly = at or points[0]
            s.append(f'<text x="{lx}" y="{ly}" font-size="11" fill="{colour}">{label}</text>')

    def pin(x, y, text, anchor="start", dy=4):
        s.append(f'<circle cx="{x}" cy="{y}" r="3.5" fill="#000"/>'
                 f'<text x="{x + (8 if anchor == "start" else -8)}" y="{y + dy}" text-anchor="{anchor}">{text}</text>')

    def junction(x, y):
        s.append(f'<circle cx="{x}" cy="{y}" r="4.5" fill="#000"/>')

    # Raspberry Pi header
    box(30, 40, 210, 300, "Raspberry Pi (40-pin header)", "#e8f5e9")
    for text, y in {"GND (pin 6)": 110, "GPIO10 MOSI (pin 19)": 150, "GPIO17 (pin 11)": 200,
                    "GPIO27 (pin 13)": 230, "GPIO22 (pin 15)": 260, "GPIO23 (pin 16)": 290}.items():
        pin(240, y, text, anchor="end")
    # level shifter
    box(340, 100, 160, 140, "74AHCT125", "#e3f2fd")
    pin(340, 150, "1A (pin 2)")
    pin(340, 180, "1OE (pin 1)")
    pin(340, 215, "GND (pin 7)")
    pin(500, 150, "1Y (pin 3)", anchor="end")
    pin(470, 100, "VCC (pin 14)", anchor="end", dy=36)
    s.append('<text x="340" y="258" font-size="10">2A, 3A, 4A, 2OE, 3OE, 4OE to GND;</text>'
             '<text x="340" y="271" font-size="10">100 nF from VCC to GND at the chip</text>')
    # power supply
    box(640, 10, 200, 40, "5 V 3 A supply (LEDs)", "#fff3e0")
    s.append('<text x="688" y="64" font-size="11">+</text><text x="806" y="66" font-size="10">-</text>')
    # strip
    box(600, 300, 220, 220, "WS2812B strip, 52 LEDs", "#fce4ec")
    for y, label in ((360, "lane 1: #0-#15, left to right"), (385, "lane 2: #16-#31, right to left"),
                     (410, "lane 3: #32-#47, left to right"), (435, "status: #48 #49 #50 (lanes)"),
                     (460, "phase LED: #51")):
        s.append(f'<text x="612" y="{y}" font-size="11">{label}</text>')
    pin(600, 330, "DIN")
    pin(820, 340, "+5V", anchor="end")
    pin(820, 380, "GND", anchor="end")
    # +5 V: supply -> strip, and the level shifter's VCC
    wire([(700, 50), (700, 70)], "#d32f2f")
    wire([(470, 100), (470, 70), (845, 70), (845, 340), (820, 340)], "#d32f2f", "+5 V", (560, 64))
    junction(700, 70)
    # GND: supply -> strip -> common ground with the Pi and the level shifter
    wire([(800, 50), (800, 58), (885, 58), (885, 600), (300, 600), (300, 110), (240, 110)], "#000",
         "common ground (Pi GND, supply -, strip GND)", (420, 594))
    wire([(885, 380), (820, 380)], "#000")
    junction(885, 380)
    wire([(340, 215), (300, 215)], "#000")
    wire([(340, 180), (320, 180), (320, 215)], "#000")
    junction(300, 215)
    # 1000 uF across the strip's supply, at the strip
    wire([(845, 250), (860, 250)], "#d32f2f")
    wire([(870, 250), (885, 250)], "#000")
    s.append('<path d="M860 236 V264 M870 236 V264" stroke="#000" stroke-width="3"/>'
             '<text x="852" y="230" font-size="10">+</text>'
             '<text x="893" y="246" font-size="11">1000 µF</text><text x="893" y="260" font-size="11">≥ 6.3 V</text>')
    junction(845, 250)
    junction(885, 250)
    # data: Pi 3.3 V -> level shifter -> 330 ohm -> DIN
    wire([(240, 150), (340, 150)], "#1565c0", "3.3 V data", (255, 143))
    wire([(500, 150), (520, 150), (520, 330), (530, 330)], "#1565c0", "5 V data", (506, 143))
    s.append('<rect x="530" y="322" width="46" height="16" fill="#fff" stroke="#000"/>'
             '<text x="528" y="316" font-size="11">330 Ω</text>')
    wire([(576, 330), (600, 330)], "#1565c0")
    # buttons: GPIO -> switch -> GND
    for name, y in (("p1", 200), ("p2", 230), ("p3", 260), ("menu", 290)):
        s.append(f'<path d="M240 {y} H262" stroke="#2e7d32" stroke-width="2.5"/>'
                 f'<circle cx="266" cy="{y}" r="3" fill="none" stroke="#000"/>'
                 f'<path d="M262 {y - 7} L282 {y - 7}" stroke="#000" stroke-width="2"/>'
                 f'<circle cx="278" cy="{y}" r="3" fill="none" stroke="#000"/>'
                 f'<path d="M281 {y} H300" stroke="#000" stroke-width="2.5"/>'
                 f'<text x="250" y="{y - 10}" font-size="10">{name}</text>')
        junction(300, y)
    # the optional voice: an I2S amplifier on the Pi's PCM pins and the Pi's own 5 V (docs/hardware.md, section 9)
    box(330, 360, 250, 200, "optional voice: MAX98357A", "#ede7f6")
    for text, y in (("VIN  ← 5 V (pin 2)", 395), ("GND  ← GND (pin 39)", 415), ("BCLK ← GPIO18 (pin 12)", 435),
                    ("LRC  ← GPIO19 (pin 35)", 455), ("DIN  ← GPIO21 (pin 40)", 475),
                    ("SD, GAIN: open (L+R mix, 9 dB)", 495)):
        pin(345, y, text)
    s.append('<path d="M524 440 h14 v-14 l16 -12 v52 l-16 -12 v-14 z" fill="#fff" stroke="#000" stroke-width="2"/>'
             '<text x="345" y="525" font-size="11">+ / - to a 4-8 Ω speaker</text>'
             '<text x="345" y="545" font-size="10">dtoverlay=max98357a; strip on spi (GPIO10)</text>')
    s.append('<text x="30" y="380" font-size="11">Buttons: each between its GPIO and GND; the</text>'
             '<text x="30" y="395" font-size="11">internal pull-up is used (no resistor).</text>'
             '<text x="30" y="420" font-size="11">Never feed the strip from the Pi\'s 5 V pins:</text>'
             '<text x="30" y="435" font-size="11">the Pi has its own supply; grounds are joined.</text>'
             '<text x="30" y="460" font-size="11">ws281x driver instead of spi (Pi 1-4): 1A from</text>'
             '<text x="30" y="475" font-size="11">GPIO18 (pin 12) instead of GPIO10.</text>'
             '<text x="30" y="640" font-size="11">Resistor and capacitor sit at the strip\'s input end; '
             'keep the 5 V data wire under 30 cm.</text>')
    s.append("</svg>")
    return "\n".join(s) + "\n"


def main(out: Path = HERE) -> int:
    """Write both drawings into ``out`` (default: next to this file); return 0."""
    (out / "board-face.svg").write_text(board_face(), encoding="utf-8")
    (out / "wiring.svg").write_text(wiring(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The simulated strip: keeps the frame, enforces the hardware's limits, draws to a terminal or a PNG.

The simulator refuses what real LEDs would not survive or could not show:
a frame with the wrong LED count, a channel outside 0..255 or not an
integer, or a frame whose estimated current exceeds the power budget.
So a renderer bug fails loudly in ``--sim`` and in tests instead of on the
table. Pictures show how the LEDs look, not the raw values: each channel is
passed through the inverse of the renderer's gamma.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Callable

from firmware import png
from firmware.drivers import StripError
from firmware.frame import RGB, Frame
from firmware.geometry import Geometry

log = logging.getLogger(__name__)

#: Picture layout, in pixels.
PITCH = 36
LED_R = 11
MARGIN = 18
GAP = 14
"""Extra space between a lane's status LED and hole 1."""
WOOD = (112, 74, 42)
GRAIN = (101, 66, 37)
HOLE = (38, 26, 17)
EDGE_RIM = (150, 40, 30)
"""Rim drawn round the last hole of each lane (the edge of the world)."""


def perceived(value: int, gamma: float) -> int:
    """Return the screen value that looks like LED channel ``value`` after the renderer's ``gamma``.

    >>> perceived(0, 2.8), perceived(255, 2.8), perceived(36, 2.8)
    (0, 255, 127)
    """
    if value <= 0:
        return 0
    return round(255 * (value / 255) ** (1 / gamma))


def led_positions(geometry: Geometry, *, scale: int = 1) -> dict[int, tuple[int, int]]:
    """Return the picture centre ``(x, y)`` of every strip index.

    Lane ``n``'s status LED sits left of its hole 1; further status LEDs
    (the phase LED) sit in a header row above lane 1.
    """
    pitch, margin, gap = PITCH * scale, MARGIN * scale, GAP * scale
    pos: dict[int, tuple[int, int]] = {}
    x0 = margin + pitch // 2
    for lane in range(1, geometry.lanes + 1):
        y = margin + pitch + (lane - 1) * pitch + pitch // 2
        for hole in range(1, geometry.holes + 1):
            pos[geometry.index(lane, hole)] = (x0 + pitch + gap + (hole - 1) * pitch, y)
    for n in range(geometry.status):
        i = geometry.status_index(n)
        if n < geometry.lanes:
            pos[i] = (x0, margin + pitch + n * pitch + pitch // 2)
        else:
            pos[i] = (x0 + (n - geometry.lanes) * pitch, margin + pitch // 2)
    return pos


def picture_size(geometry: Geometry, *, scale: int = 1) -> tuple[int, int]:
    """Return ``(width, height)`` of the board picture."""
    return (scale * (2 * MARGIN + PITCH * (geometry.holes + 1) + GAP), scale * (2 * MARGIN + PITCH * (geometry.lanes + 1)))


def board_png(frame: Frame, *, gamma: float = 2.8, scale: int = 1) -> bytes:
    """Return a PNG picture of the board face showing ``frame`` (lit LEDs glow, unlit holes are dark).

    :param scale: picture size multiplier (1: 36 px between holes).
    """
    g = frame.geometry
    width, height = picture_size(g, scale=scale)
    pos = led_positions(g, scale=scale)
    radius, rim = LED_R * scale, 2 * scale
    edge = {g.index(lane, g.holes) for lane in range(1, g.lanes + 1)}
    img = bytearray()
    for y in range(height):
        base = GRAIN if (y // (3 * scale)) % 7 == 0 else WOOD
        img.extend(base * width)
    for i, (cx, cy) in pos.items():
        colour = tuple(perceived(v, gamma) for v in frame.pixels[i])
        lit = any(colour)
        reach = radius * 2 if lit else radius + rim
        for y in range(max(0, cy - reach), min(height, cy + reach + 1)):
            for x in range(max(0, cx - reach), min(width, cx + reach + 1)):
                d = ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5
                o = (y * width + x) * 3
                if d <= radius:
                    c = colour if lit else HOLE
                elif d <= radius + rim and i in edge:
                    c = EDGE_RIM
                elif lit and d <= reach:
                    a = 0.55 * (1 - (d - radius) / (reach - radius))
                    c = tuple(round(img[o + k] * (1 - a) + colour[k] * a) for k in range(3))
                else:
                    continue
                img[o:o + 3] = bytes(c)
    return png.encode(width, height, img)


def board_ansi(frame: Frame, *, gamma: float = 2.8) -> str:
    """Return the board as terminal text with 24-bit ANSI colours (lane 1 on top, hole 1 on the left)."""
    g = frame.geometry

    def dot(p: RGB) -> str:
        if not any(p):
            return "\x1b[38;2;90;70;50m·\x1b[0m"
        r, gg, b = (perceived(v, gamma) for v in p)
        return f"\x1b[38;2;{r};{gg};{b}m●\x1b[0m"

    status = frame.status()
    lines = []
    extra = status[g.lanes:]
    if extra:
        lines.append("   " + " ".join(dot(p) for p in extra))
    for lane in range(1, g.lanes + 1):
        seat = dot(status[lane - 1]) if lane - 1 < len(status) else " "
        lines.append(f"{seat}  " + " ".join(dot(p) for p in frame.lane(lane)) + f"  lane {lane}")
    return "\n".join(lines)


class SimStrip:
    """A strip in memory with the limits of the real one.

    :param geometry: the board the strip is laid out on (gives the LED count).
    :param budget_ma: the power budget frames must respect, mA.
    :param ma_per_channel: estimated current of one channel at full scale, mA.
    :param gamma: the renderer's gamma, used only to draw pictures.
    :param on_show: called with each frame after it is accepted (e.g. a terminal view).
    """

    def __init__(self, geometry: Geometry, *, budget_ma: float = 1500.0, ma_per_channel: float = 20.0,
                 gamma: float = 2.8, on_show: Callable[[Frame], None] | None = None):
        self.geometry = geometry
        self.budget_ma = budget_ma
        self.ma_per_channel = ma_per_channel
        self.gamma = gamma
        self.on_show = on_show
        self.frame: Frame = Frame.blank(geometry)
        self.shown = 0
        """Frames accepted since :meth:`open`."""
        self.is_open = False
        self._lock = threading.Lock()

    def open(self) -> None:
        """Mark the strip open (nothing to claim)."""
        self.is_open = True
        self.shown = 0

    def show(self, frame: Frame) -> None:
        """Keep ``frame`` as the strip's picture.

        :raises StripError: the strip is not open, or the frame breaks a hardware limit
            (LED count, 0..255 integer channels, power budget).
        """
        if not self.is_open:
            raise StripError("sim strip is not open")
        if len(frame.pixels) != self.geometry.count:
            raise StripError(f"frame has {len(frame.pixels)} LEDs, the strip {self.geometry.count}")
        values = [v for p in frame.pixels for v in p]
        if (any(len(p) != 3 for p in frame.pixels) or {type(v) for v in values} != {int}
                or min(values) < 0 or max(values) > 255):
            for i, p in enumerate(frame.pixels):       # which LED breaks the limit
                if len(p) != 3 or any(type(v) is not int or not 0 <= v <= 255 for v in p):
                    raise StripError(f"LED {i} has {p!r}; channels must be integers 0..255")
        ma = frame.current_ma(self.ma_per_channel)
        if ma > self.budget_ma + 1e-6:
            raise StripError(f"frame draws {ma:.0f} mA, over the {self.budget_ma:.0f} mA budget")
        with self._lock:
            self.frame = frame
            self.shown += 1
        if self.on_show is not None:
            self.on_show(frame)

    def close(self) -> None:
        """Mark the strip closed."""
        self.is_open = False

    def ansi(self) -> str:
        """Return the current frame as ANSI terminal text."""
        return board_ansi(self.frame, gamma=self.gamma)

    def png(self) -> bytes:
        """Return a PNG picture of the current frame."""
        return board_png(self.frame, gamma=self.gamma)

    def write_png(self, path: str | Path) -> Path:
        """Write the current frame as a PNG picture to ``path`` and return the path."""
        p = Path(path)
        p.write_bytes(self.png())
        return p

"""One picture of the strip: a colour per LED in strip order, plus the views the web page needs.

A :class:`Frame` holds the values the LEDs are sent (after brightness, gamma
and the power cap), so every driver shows the same picture and the web page
can show exactly what the strip shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterable

from firmware.geometry import Geometry

RGB = tuple[int, int, int]
OFF: RGB = (0, 0, 0)


@dataclass(frozen=True)
class Frame:
    """The colours of every LED, in strip order (index 0 is the first LED on the data wire)."""

    pixels: tuple[RGB, ...]
    geometry: Geometry

    @classmethod
    def blank(cls, geometry: Geometry) -> "Frame":
        """Return the all-off frame for ``geometry``."""
        return cls(tuple([OFF] * geometry.count), geometry)

    def at(self, lane: int, hole: int) -> RGB:
        """Return the colour of ``hole`` in ``lane`` (both 1-based)."""
        return self.pixels[self.geometry.index(lane, hole)]

    def lane(self, lane: int) -> list[RGB]:
        """Return the colours of ``lane`` (1-based), hole 1 first."""
        g = self.geometry
        first, last = g.index(lane, 1), g.index(lane, g.holes)     # a lane is one run of the strip
        if first <= last:
            return list(self.pixels[first:last + 1])
        return list(self.pixels[last:first + 1])[::-1]

    def status(self) -> list[RGB]:
        """Return the colours of the status LEDs, in chain order."""
        return [self.pixels[self.geometry.status_index(n)] for n in range(self.geometry.status)]

    def to_json(self) -> dict:
        """Return ``{"lanes": [[[r,g,b] x holes] x lanes], "status": [[r,g,b], ...]}`` (GET /api/board)."""
        return {
            "lanes": [[list(c) for c in self.lane(n)] for n in range(1, self.geometry.lanes + 1)],
            "status": [list(c) for c in self.status()],
        }

    @cached_property
    def _level(self) -> int:
        """The sum of every channel of every LED (the strip and the page both ask for the current)."""
        return sum(map(sum, self.pixels))

    def current_ma(self, ma_per_channel: float) -> float:
        """Return the estimated LED current in mA: ``ma_per_channel`` per channel at full scale."""
        return self._level * ma_per_channel / 255.0


def split_white(pixel: RGB) -> tuple[int, int, int, int]:
    """Return ``(r, g, b, w)`` for an RGBW strip: the grey part of the colour moves to the white LED.

    >>> split_white((200, 120, 40))
    (160, 80, 0, 40)
    """
    r, g, b = pixel
    w = min(r, g, b)
    return r - w, g - w, b - w, w


def wire_bytes(pixels: Iterable[RGB], order: str) -> bytes:
    """Return the colour bytes of ``pixels`` in the strip's wire ``order`` (e.g. ``"GRB"``, ``"GRBW"``).

    >>> wire_bytes([(1, 2, 3)], "GRB").hex(), wire_bytes([(9, 5, 5)], "RGBW").hex()
    ('020103', '04000005')
    """
    pick = ["RGBW".index(ch) for ch in order]
    out = bytearray()
    white = "W" in order
    for p in pixels:
        chans = split_white(p) if white else (p[0], p[1], p[2], 0)
        out.extend(chans[i] for i in pick)
    return bytes(out)

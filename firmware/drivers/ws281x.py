"""WS2812 through the rpi_ws281x library (PWM on GPIO18, DMA): Raspberry Pi 1-4 only, needs root.

``rpi_ws281x`` is imported inside :meth:`Ws281xStrip.open`, and the driver
refuses to build a ``PixelStrip`` unless the board reports itself as a
Raspberry Pi 1-4 (the library pokes the Pi's registers through /dev/mem).
The library's own gamma and brightness are left neutral: the renderer has
already applied them, so this driver shows the same picture as the others.
"""

from __future__ import annotations

import importlib
import logging
import re
from pathlib import Path
from typing import Callable

from firmware.drivers import StripError
from firmware.frame import Frame, split_white

log = logging.getLogger(__name__)

#: rpi_ws281x strip-type constant per wire order.
STRIP_TYPES = {
    "GRB": "WS2811_STRIP_GRB", "RGB": "WS2811_STRIP_RGB", "BRG": "WS2811_STRIP_BRG",
    "RBG": "WS2811_STRIP_RBG", "GBR": "WS2811_STRIP_GBR", "BGR": "WS2811_STRIP_BGR",
    "GRBW": "SK6812_STRIP_GRBW", "RGBW": "SK6812_STRIP_RGBW",
}
MODEL_PATH = Path("/proc/device-tree/model")


def read_model(path: Path = MODEL_PATH) -> str | None:
    """Return the board model string from the device tree (e.g. ``"Raspberry Pi 4 Model B Rev 1.4"``), or None."""
    try:
        return path.read_bytes().rstrip(b"\0").decode("ascii", "replace")
    except OSError:
        return None


def check_model(model: str | None) -> None:
    """Refuse boards rpi_ws281x cannot drive.

    :raises StripError: not a Raspberry Pi, or a Pi 5 (whose RP1 chip the library does not support).
    """
    if not model or not model.startswith("Raspberry Pi"):
        raise StripError(f"the ws281x driver needs a Raspberry Pi 1-4 (this board: {model or 'unknown'}); "
                         "use strip.driver = \"spi\"")
    m = re.match(r"Raspberry Pi (\d+)", model)
    if m and int(m.group(1)) >= 5:
        raise StripError(f"rpi_ws281x does not support the {model}; use strip.driver = \"spi\"")


class Ws281xStrip:
    """A WS2812/SK6812 strip driven by rpi_ws281x.

    :param count: LEDs on the strip.
    :param order: wire colour order (``GRB``, ``RGB``, ``GRBW``, ``RGBW``, ...).
    :param gpio: data pin, default 18 (PWM0).
    :param dma: DMA channel, default 10.
    :param freq_hz: WS2812 bit rate, default 800 kHz.
    :param board_model: returns the board's model string; the device tree by default.
    """

    def __init__(self, count: int, *, order: str = "GRB", gpio: int = 18, dma: int = 10, freq_hz: int = 800_000,
                 board_model: Callable[[], str | None] = read_model):
        if order not in STRIP_TYPES:
            raise ValueError(f"unknown strip order {order!r}")
        self.count = count
        self.order = order
        self.gpio = gpio
        self.dma = dma
        self.freq_hz = freq_hz
        self._board_model = board_model
        self._mod = None
        self._strip = None

    def open(self) -> None:
        """Check the board, import rpi_ws281x, build and start the ``PixelStrip``.

        :raises StripError: not a Pi 1-4, library missing, or ``ws2811_init`` failed (usually: not root).
        """
        check_model(self._board_model())
        try:
            mod = importlib.import_module("rpi_ws281x")
        except ImportError as exc:
            raise StripError(f"the ws281x driver needs the rpi_ws281x module: {exc}") from None
        strip_type = getattr(mod, STRIP_TYPES[self.order])
        strip = mod.PixelStrip(self.count, self.gpio, self.freq_hz, self.dma, False, 255, 0, strip_type)
        try:
            strip.begin()
        except RuntimeError as exc:
            strip._cleanup()
            raise StripError(f"rpi_ws281x could not start on GPIO{self.gpio}: {exc} (the ws281x driver needs root)") \
                from None
        self._mod, self._strip = mod, strip
        log.info("ws281x strip: %d LEDs on GPIO%d, DMA %d", self.count, self.gpio, self.dma)

    def show(self, frame: Frame) -> None:
        """Load ``frame`` into the library's buffer and render it.

        :raises StripError: not open, wrong LED count, or the render failed.
        """
        if self._strip is None:
            raise StripError("ws281x strip is not open")
        if len(frame.pixels) != self.count:
            raise StripError(f"frame has {len(frame.pixels)} LEDs, the strip {self.count}")
        white = "W" in self.order
        for i, p in enumerate(frame.pixels):
            r, g, b, w = split_white(p) if white else (p[0], p[1], p[2], 0)
            self._strip.setPixelColor(i, self._mod.Color(r, g, b, w))
        try:
            self._strip.show()
        except RuntimeError as exc:
            raise StripError(f"rpi_ws281x render failed: {exc}") from None

    def close(self) -> None:
        """Stop the library and free its DMA buffers (idempotent)."""
        if self._strip is not None:
            self._strip._cleanup()
            self._strip = None

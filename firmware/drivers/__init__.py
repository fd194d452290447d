"""LED strip drivers: ``spi``, ``ws281x`` and ``sim``, each a :class:`Strip` (no shared base class).

A driver only moves a finished :class:`~firmware.frame.Frame` to the LEDs;
brightness, gamma and the power cap happen once, in :mod:`firmware.render`,
so every driver shows the same picture. Hardware modules (``spidev``,
``rpi_ws281x``) are imported inside ``open()``, never at import time.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from firmware.frame import Frame


class StripError(RuntimeError):
    """The strip cannot be opened or written (device missing, permission denied, wrong platform)."""


@runtime_checkable
class Strip(Protocol):
    """The three methods every strip driver implements."""

    def open(self) -> None:
        """Claim the hardware; raise :class:`StripError` with a readable reason when it cannot."""

    def show(self, frame: Frame) -> None:
        """Send ``frame`` (one colour per LED, strip order) to the LEDs."""

    def close(self) -> None:
        """Release the hardware (the caller shows a blank frame first to turn the LEDs off)."""

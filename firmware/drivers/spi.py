"""WS2812 timing on SPI MOSI (GPIO10, ``/dev/spidev0.0``): every Pi model, no root needed.

Each WS2812 data bit becomes :data:`SPI_BITS_PER_BIT` SPI bits clocked at
``hz`` (2.4 MHz by default, so one SPI bit lasts 417 ns):

=========  ==========  ===============================  ======================
WS2812 bit SPI bits    high / low at 2.4 MHz            WS2812B datasheet
=========  ==========  ===============================  ======================
0          ``100``     T0H 417 ns / T0L 833 ns          400±150 / 850±150 ns
1          ``110``     T1H 833 ns / T1L 417 ns          800±150 / 450±150 ns
=========  ==========  ===============================  ======================

All four times stay inside the datasheet windows for 2.2-2.8 MHz (the range
``strip.spi_hz`` accepts). A Pi cannot make exactly 2.4 MHz: its SPI
controller divides a source clock by an even divisor, rounded up, so it
sends at 2.358 MHz (Pi 3, Zero 2 W at a 250 MHz core; T0H 424 ns) or
2.381 MHz (Pi 4 with the core pinned at 500 MHz, Zero 2 W at 400 MHz, the
Pi 5's RP1 at 200 MHz; T0H 420 ns), well inside the same windows. After the colour data the line is held low for
:data:`RESET_US` µs (zero bytes), more than the 280 µs latch time of current
WS2812B/SK6812 parts. On a Pi 3/4 pin the core clock (``core_freq=250`` /
``core_freq_min=500`` in ``config.txt``) so the SPI clock does not drift.
"""

from __future__ import annotations

import importlib
import logging
import math
from types import ModuleType

from firmware.drivers import StripError
from firmware.frame import Frame, wire_bytes

log = logging.getLogger(__name__)

SPI_BITS_PER_BIT = 3
ZERO = 0b100
ONE = 0b110
RESET_US = 300.0
DEFAULT_HZ = 2_400_000

#: (min, max) ns of each pulse in the WS2812B datasheet (v1.0): nominal ± 150 ns.
DATASHEET_NS = {"T0H": (250.0, 550.0), "T0L": (700.0, 1000.0), "T1H": (650.0, 950.0), "T1L": (300.0, 600.0)}
#: Minimum low time (µs) that latches the data into WS2812B-V5 / SK6812 parts.
LATCH_US = 280.0


def _expand(byte: int) -> bytes:
    bits = 0
    for i in range(7, -1, -1):
        bits = (bits << SPI_BITS_PER_BIT) | (ONE if byte >> i & 1 else ZERO)
    return bits.to_bytes(SPI_BITS_PER_BIT, "big")


#: Each data byte's 24 SPI bits (3 bytes), by byte value.
_LUT: tuple[bytes, ...] = tuple(_expand(b) for b in range(256))


def reset_bytes(hz: int = DEFAULT_HZ) -> int:
    """Return how many zero bytes hold the line low for :data:`RESET_US` at ``hz``.

    >>> reset_bytes(2_400_000)
    90
    """
    return math.ceil(RESET_US * 1e-6 * hz / 8)


def encode(data: bytes, hz: int = DEFAULT_HZ) -> bytes:
    """Return the SPI byte stream that sends colour bytes ``data`` (wire order) followed by the reset.

    >>> encode(bytes([0x80]), 2_400_000)[:3].hex()
    'd24924'
    """
    return b"".join(_LUT[b] for b in data) + bytes(reset_bytes(hz))


def decode(stream: bytes) -> tuple[bytes, int]:
    """Return ``(colour bytes, trailing zero bytes)`` read back from an SPI stream made by :func:`encode`.

    :raises ValueError: a 3-bit group that is neither ``100`` nor ``110``, or
        a partial byte (the stream is not a valid WS2812 signal).
    """
    end = len(stream)
    while end > 0 and stream[end - 1] == 0:
        end -= 1
    trailing = len(stream) - end
    # every 8 SPI bits of data hold a 1 (each 3-bit group starts high), so the data never ends in a zero byte
    if end % SPI_BITS_PER_BIT:
        raise ValueError(f"{end} data bytes is not a whole number of WS2812 bytes")
    bits = int.from_bytes(stream[:end], "big") if end else 0
    nbits = end * 8
    groups = nbits // SPI_BITS_PER_BIT
    out = bytearray()
    value, count = 0, 0
    for g in range(groups):
        group = (bits >> (nbits - (g + 1) * SPI_BITS_PER_BIT)) & 0b111
        if group == ONE:
            value = value << 1 | 1
        elif group == ZERO:
            value = value << 1
        else:
            raise ValueError(f"SPI bit group {g} is {group:03b}, neither 100 (0) nor 110 (1)")
        count += 1
        if count == 8:
            out.append(value)
            value, count = 0, 0
    if count:
        raise ValueError(f"stream ends inside a byte ({count} bits)")
    return bytes(out), trailing


def timing_ns(hz: int = DEFAULT_HZ) -> dict[str, float]:
    """Return the WS2812 pulse widths (ns) produced at SPI clock ``hz``: T0H, T0L, T1H, T1L, and reset (µs).

    >>> {k: round(v) for k, v in timing_ns(2_400_000).items()}
    {'T0H': 417, 'T0L': 833, 'T1H': 833, 'T1L': 417, 'reset_us': 300}
    """
    bit = 1e9 / hz
    ones = lambda pattern: bin(pattern).count("1")  # noqa: E731 - the high time is the run of leading 1s
    return {
        "T0H": ones(ZERO) * bit, "T0L": (SPI_BITS_PER_BIT - ones(ZERO)) * bit,
        "T1H": ones(ONE) * bit, "T1L": (SPI_BITS_PER_BIT - ones(ONE)) * bit,
        "reset_us": reset_bytes(hz) * 8 * bit / 1000.0,
    }


class SpiStrip:
    """A WS2812/SK6812 strip on SPI MOSI.

    :param count: LEDs on the strip.
    :param order: wire colour order (``GRB`` for most WS2812B, ``GRBW``/``RGBW`` for SK6812 RGBW).
    :param bus: SPI bus (``/dev/spidev<bus>.<device>``), default 0.
    :param device: SPI chip select, default 0.
    :param hz: SPI clock, default 2.4 MHz (3 SPI bits per WS2812 bit).
    :param spidev_module: the ``spidev`` module to use; imported in :meth:`open` when None.
    """

    def __init__(self, count: int, *, order: str = "GRB", bus: int = 0, device: int = 0, hz: int = DEFAULT_HZ,
                 spidev_module: ModuleType | None = None):
        self.count = count
        self.order = order
        self.bus = bus
        self.device = device
        self.hz = hz
        self._module = spidev_module
        self._dev = None

    @property
    def path(self) -> str:
        """Return the device node this strip writes to."""
        return f"/dev/spidev{self.bus}.{self.device}"

    def open(self) -> None:
        """Open the SPI device at :attr:`hz`, mode 0.

        :raises StripError: spidev missing, device node missing, or permission denied.
        """
        try:
            mod = self._module or importlib.import_module("spidev")
        except ImportError as exc:
            raise StripError(f"the spi driver needs the spidev module: {exc}") from None
        dev = mod.SpiDev()
        try:
            dev.open(self.bus, self.device)
        except OSError as exc:
            hint = " (enable SPI: dtparam=spi=on)" if exc.errno == 2 else " (add the user to the spi group)" \
                if exc.errno == 13 else ""
            raise StripError(f"cannot open {self.path}: {exc.strerror or exc}{hint}") from None
        dev.max_speed_hz = self.hz
        dev.mode = 0
        self._dev = dev
        log.info("spi strip: %d LEDs on %s at %d Hz", self.count, self.path, self.hz)

    def show(self, frame: Frame) -> None:
        """Send ``frame`` as one SPI transfer.

        :raises StripError: the strip is not open, the frame has the wrong LED count, or the write failed.
        """
        if self._dev is None:
            raise StripError("spi strip is not open")
        if len(frame.pixels) != self.count:
            raise StripError(f"frame has {len(frame.pixels)} LEDs, the strip {self.count}")
        data = encode(wire_bytes(frame.pixels, self.order), self.hz)
        try:
            self._dev.writebytes2(data)
        except OSError as exc:
            raise StripError(f"write to {self.path} failed: {exc.strerror or exc}") from None

    def close(self) -> None:
        """Close the SPI device (idempotent)."""
        if self._dev is not None:
            self._dev.close()
            self._dev = None

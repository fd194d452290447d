"""A minimal PNG writer (zlib + struct, truecolour, 8 bits per channel) and reader for tests."""

from __future__ import annotations

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode(width: int, height: int, rgb: bytes | bytearray) -> bytes:
    """Return a PNG file of ``width`` x ``height`` RGB pixels given row by row (3 bytes each).

    :raises ValueError: ``rgb`` is not ``width * height * 3`` bytes.
    """
    if len(rgb) != width * height * 3:
        raise ValueError(f"expected {width * height * 3} bytes of RGB, got {len(rgb)}")
    stride = width * 3
    raw = b"".join(b"\x00" + bytes(rgb[y * stride:(y + 1) * stride]) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")


def decode(data: bytes) -> tuple[int, int, bytes]:
    """Return ``(width, height, rgb)`` of a PNG written by :func:`encode` (8-bit RGB, filter 0 rows only).

    :raises ValueError: not such a PNG, or a chunk CRC mismatch.
    """
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG file")
    pos, idat, width = len(SIGNATURE), b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise ValueError(f"bad CRC in {kind!r} chunk")
        if kind == b"IHDR":
            width, height, depth, colour, _, _, _ = struct.unpack(">IIBBBBB", body)
            if (depth, colour) != (8, 2):
                raise ValueError("only 8-bit RGB PNGs are supported")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if width is None:
        raise ValueError("PNG without IHDR")
    raw = zlib.decompress(idat)
    stride = width * 3 + 1
    rows = []
    for y in range(height):
        row = raw[y * stride:(y + 1) * stride]
        if row[0] != 0:
            raise ValueError("only filter type 0 is supported")
        rows.append(row[1:])
    return width, height, b"".join(rows)

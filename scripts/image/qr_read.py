"""Read our own QR codes back: the dark modules of a code drawn by web/card.py in an SVG, and their text.

Standard library only (the Wi-Fi check runs on the build machine's python3). It decodes what ``qrcode``
makes for the card and the More screen: versions 1-10, error correction M, numeric, alphanumeric and byte
segments. It reads a clean code (our own, from its SVG): it corrects no errors, it checks the format
information's BCH code and fails on anything it cannot read rather than guess.
"""

from __future__ import annotations

import re

#: (blocks, total codewords, data codewords) of each block group, error correction M, versions 1-10
BLOCKS_M = {1: [(1, 26, 16)], 2: [(1, 44, 28)], 3: [(1, 70, 44)], 4: [(2, 50, 32)], 5: [(2, 67, 43)],
            6: [(4, 43, 27)], 7: [(4, 49, 31)], 8: [(2, 60, 38), (2, 61, 39)], 9: [(3, 58, 36), (2, 59, 37)],
            10: [(4, 69, 43), (1, 70, 44)]}
ALIGN = {1: [], 2: [6, 18], 3: [6, 22], 4: [6, 26], 5: [6, 30], 6: [6, 34], 7: [6, 22, 38], 8: [6, 24, 42],
         9: [6, 26, 46], 10: [6, 28, 50]}
EC_M = 0                            # the format information's value of level M
ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"
MASKS = [lambda i, j: (i + j) % 2 == 0, lambda i, j: i % 2 == 0, lambda i, j: j % 3 == 0,
         lambda i, j: (i + j) % 3 == 0, lambda i, j: (i // 2 + j // 3) % 2 == 0,
         lambda i, j: (i * j) % 2 + (i * j) % 3 == 0, lambda i, j: ((i * j) % 2 + (i * j) % 3) % 2 == 0,
         lambda i, j: ((i * j) % 3 + (i + j) % 2) % 2 == 0]


class QrError(ValueError):
    """Not a code this reader can read (the message says what)."""


def svg_codes(svg: str) -> list[list[list[bool]]]:
    """Return the dark modules of every QR code in ``svg`` (web/card.py's drawing: a white square of the code
    with its quiet zone, then one path of ``M x,y h n v 1 h -n z`` runs), in the order drawn."""
    codes = []
    for m in re.finditer(r'<rect width="(\d+)" height="\1" fill="#fff"/>\s*<path fill="#000" d="([^"]*)"', svg):
        size, runs = int(m.group(1)), re.findall(r"M([\d.]+),([\d.]+)h(\d+)v1h-\3z", m.group(2))
        if not runs:
            continue
        x0 = min(float(x) for x, _, _ in runs)
        y0 = min(float(y) for _, y, _ in runs)          # the finder pattern's corner: the quiet zone ends there
        n = size - 2 * int(x0)
        grid = [[False] * n for _ in range(n)]
        for x, y, w in runs:
            row, col = int(float(y) - y0), int(float(x) - x0)
            for c in range(col, col + int(w)):
                grid[row][c] = True
        codes.append(grid)
    return codes


def _bch_format(data: int) -> int:
    d = data << 10
    for shift in range(4, -1, -1):
        if d & (1 << (10 + shift)):
            d ^= 0b10100110111 << shift
    return ((data << 10) | d) ^ 0b101010000010010


def _function_modules(n: int, version: int) -> set[tuple[int, int]]:
    # the finders with their separators and the format areas (and the dark module at (n - 8, 8))
    taken = {(r, c) for r in range(9) for c in range(9)}
    taken |= {(r, c) for r in range(9) for c in range(n - 8, n)}
    taken |= {(r, c) for r in range(n - 8, n) for c in range(9)}
    taken |= {(6, i) for i in range(n)} | {(i, 6) for i in range(n)}      # timing
    pos = ALIGN[version]
    for r in pos:
        for c in pos:
            if (r, c) in ((6, 6), (6, pos[-1]), (pos[-1], 6)):
                continue
            taken |= {(r + dr, c + dc) for dr in range(-2, 3) for dc in range(-2, 3)}
    if version >= 7:                                                       # version information
        taken |= {(r, c) for r in range(6) for c in range(n - 11, n - 8)}
        taken |= {(r, c) for r in range(n - 11, n - 8) for c in range(6)}
    return taken


def decode(grid: list[list[bool]]) -> str:
    """Return the text of the QR code ``grid`` (rows of dark modules, no quiet zone)."""
    n = len(grid)
    version = (n - 17) // 4
    if n < 21 or (n - 17) % 4 or any(len(row) != n for row in grid) or version not in BLOCKS_M:
        raise QrError(f"a {n} x {len(grid[0]) if grid else 0} grid is not a QR code of version 1-10")
    bits = 0
    for i in range(15):            # the format information next to the top-left finder, as qrcode draws it
        r = i if i < 6 else i + 1 if i < 8 else n - 15 + i
        bits |= grid[r][8] << i
    fmt = next((d for d in range(32) if _bch_format(d) == bits), None)
    if fmt is None:
        raise QrError("the format information does not read (not a clean QR code)")
    if fmt >> 3 != EC_M:
        raise QrError(f"error correction level {fmt >> 3} is not M (the card's)")
    mask = MASKS[fmt & 7]
    taken = _function_modules(n, version)
    stream: list[int] = []
    up, row = True, n - 1
    col = n - 1
    while col > 0:
        if col == 6:
            col -= 1
        for _ in range(n):
            for c in (col, col - 1):
                if (row, c) not in taken:
                    stream.append(int(grid[row][c]) ^ int(mask(row, c)))
            row += -1 if up else 1
        row -= -1 if up else 1
        up = not up
        col -= 2
    words = [int("".join(map(str, stream[i:i + 8])), 2) for i in range(0, len(stream) - 7, 8)]
    blocks = [(total, data) for count, total, data in BLOCKS_M[version] for _ in range(count)]
    out: list[list[int]] = [[] for _ in blocks]
    at = 0
    for i in range(max(d for _, d in blocks)):            # the data codewords are interleaved block by block
        for b, (_, data) in enumerate(blocks):
            if i < data:
                out[b].append(words[at])
                at += 1
    payload = "".join(f"{w:08b}" for block in out for w in block)
    return _segments(payload, version)


def _segments(bits: str, version: int) -> str:
    text, at = [], 0

    def take(k: int) -> int:
        nonlocal at
        if at + k > len(bits):
            raise QrError("the data runs past the code's end")
        at += k
        return int(bits[at - k:at], 2)

    while at + 4 <= len(bits):
        mode = take(4)
        if mode == 0:
            break
        if mode == 1:                                   # numeric: 3 digits in 10 bits
            count = take(10 if version < 10 else 12)
            digits = ""
            while len(digits) < count:
                k = min(3, count - len(digits))
                digits += f"{take({3: 10, 2: 7, 1: 4}[k]):0{k}d}"
            text.append(digits)
        elif mode == 2:                                 # alphanumeric: 2 characters in 11 bits
            count = take(9 if version < 10 else 11)
            chars = ""
            while len(chars) < count:
                if count - len(chars) >= 2:
                    v = take(11)
                    chars += ALNUM[v // 45] + ALNUM[v % 45]
                else:
                    chars += ALNUM[take(6)]
            text.append(chars)
        elif mode == 4:                                 # bytes (UTF-8)
            count = take(8 if version < 10 else 16)
            text.append(bytes(take(8) for _ in range(count)).decode("utf-8"))
        else:
            raise QrError(f"segment mode {mode} is not one our codes use")
    return "".join(text)


def wifi_fields(uri: str) -> dict[str, str]:
    r"""Return the fields of a ``WIFI:T:WPA;S:name;P:password;;`` string (``\;`` ``\,`` ``\:`` ``\\`` ``\"``
    unescaped): ``{"T": "WPA", "S": name, "P": password}``."""
    if not uri.startswith("WIFI:") or not uri.endswith(";;"):
        raise QrError(f"not a WIFI: code: {uri!r}")
    fields, key, cur, i, body = {}, None, [], 0, uri[5:-1]
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            cur.append(body[i + 1])
            i += 2
            continue
        if c == ":" and key is None:
            key, cur = "".join(cur), []
        elif c == ";":
            if key is None:
                raise QrError(f"a field without a name in {uri!r}")
            fields[key], key, cur = "".join(cur), None, []
        else:
            cur.append(c)
        i += 1
    return fields

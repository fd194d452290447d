"""Print the WCAG 2.1 contrast ratios of the page's text colours, computed from web/static/app.css.

    .venv/bin/python scripts/contrast.py           # the Markdown table of docs/accessibility.md

Each pair is a foreground and a background the page really draws text with
(the CSS custom properties of ``:root`` or a literal colour of a rule); the
values are read from the stylesheet every time, so a colour change shows up
here and in ``tests/test_contrast.py`` (which checks the documented table is
this output and that every pair passes its WCAG level).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

CSS = Path(__file__).resolve().parents[1] / "web" / "static" / "app.css"

#: (what, foreground, background, minimum ratio): colours are "--name" (a :root variable) or "#rrggbb".
#: 4.5 is WCAG AA for body text; 3.0 for large text (>= 18.66 px bold or 24 px) and for UI parts.
PAIRS: tuple[tuple[str, str, str, float], ...] = (
    ("body text on the page", "--text", "--bg", 4.5),
    ("body text on a panel", "--text", "--panel", 4.5),
    ("button text", "--text", "--panel2", 4.5),
    ("muted text on the page", "--muted", "--bg", 4.5),
    ("muted text on a panel", "--muted", "--panel", 4.5),
    ("muted chip text", "--muted", "--panel2", 4.5),
    ("announcement (accent) on the page", "--accent", "--bg", 4.5),
    ("breakdown words (accent) on a panel", "--accent", "--panel", 4.5),
    ("primary button text", "#16130a", "--accent", 4.5),
    ("'live' pill (good) on the header", "--good", "#0b0d10", 4.5),
    ("'offline' pill (accent) on the header", "--accent", "#0b0d10", 4.5),
    ("ledger plus (good) on a panel", "--good", "--panel", 4.5),
    ("ledger minus and faults (bad) on a panel", "--bad", "--panel", 4.5),
    ("fault banner text", "#ffd5d5", "#3a1518", 4.5),
    ("refusal toast text", "#ffe1e1", "#3a1518", 4.5),
    ("info toast text", "#d9ffe6", "#17301f", 4.5),
    ("black card", "#111111", "#f4f1ea", 4.5),
    ("red card (hearts, diamonds)", "#c8102e", "#f4f1ea", 4.5),
    ("four-colour deck: diamonds", "#0b5cc4", "#f4f1ea", 4.5),
    ("four-colour deck: clubs", "#137a3b", "#f4f1ea", 4.5),
    ("picker suit: red on a button", "--red", "--panel2", 4.5),
    ("picker suit: blue (four-colour)", "--blue", "--panel2", 4.5),
    ("picker suit: green (four-colour)", "--green", "--panel2", 4.5),
    ("selected rank", "#16130a", "--accent", 4.5),
)


def variables(css: str) -> dict[str, str]:
    """Return the ``:root`` custom properties of ``css`` as {"--name": "#rrggbb"}."""
    root = re.search(r":root\s*\{([^}]*)\}", css)
    return {m.group(1): m.group(2).lower() for m in re.finditer(r"(--[\w-]+)\s*:\s*(#[0-9a-fA-F]{3,6})\b",
                                                               root.group(1) if root else "")}


def rgb(colour: str) -> tuple[int, int, int]:
    """Return the (r, g, b) of ``#rgb`` or ``#rrggbb``."""
    h = colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def luminance(colour: str) -> float:
    """Return the WCAG 2.1 relative luminance of an sRGB colour.

    >>> round(luminance("#ffffff"), 4), round(luminance("#000000"), 4)
    (1.0, 0.0)
    """
    def lin(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(fg: str, bg: str) -> float:
    """Return the WCAG contrast ratio of two colours, 1..21.

    >>> round(ratio("#000000", "#ffffff"), 2)
    21.0
    >>> round(ratio("#777777", "#ffffff"), 2)
    4.48
    """
    a, b = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def rows(css: str | None = None) -> list[tuple[str, str, str, float, float]]:
    """Return (what, fg hex, bg hex, ratio, minimum) for every pair, colours resolved from the stylesheet."""
    css = CSS.read_text() if css is None else css
    var = variables(css)
    out = []
    for what, fg, bg, need in PAIRS:
        f, b = (var[c] if c.startswith("--") else c for c in (fg, bg))
        out.append((what, f, b, ratio(f, b), need))
    return out


def table(css: str | None = None) -> str:
    """Return the Markdown table of :func:`rows` (what docs/accessibility.md shows)."""
    lines = ["| text | colour | on | ratio | needs |", "|---|---|---|---:|---:|"]
    for what, f, b, r, need in rows(css):
        lines.append(f"| {what} | `{f}` | `{b}` | {r:.2f}:1 | {need:.1f}:1 |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table())

"""scripts/contrast.py: the page's text colours meet WCAG AA, and docs/accessibility.md shows the computed table."""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("contrast", ROOT / "scripts" / "contrast.py")
contrast = importlib.util.module_from_spec(spec)
spec.loader.exec_module(contrast)


@pytest.mark.parametrize("fg, bg, want", [
    ("#000000", "#ffffff", 21.0),
    ("#ffffff", "#ffffff", 1.0),
    ("#777777", "#ffffff", 4.48),            # the classic "grey on white just fails AA"
    ("#c8102e", "#f4f1ea", 5.22),            # the red card
])
def test_ratios_of_known_pairs(fg, bg, want):
    assert round(contrast.ratio(fg, bg), 2) == want


def test_the_colours_come_from_the_stylesheet():
    var = contrast.variables((ROOT / "web" / "static" / "app.css").read_text())
    assert var["--text"] == "#e9ecef" and var["--bg"] == "#101317"
    changed = contrast.rows(":root { --text: #202020; --bg: #101317; --panel: #1a1f26; --panel2: #232a33; "
                            "--muted: #9aa5b1; --accent: #f0b429; --good: #4cd07d; --bad: #ff6b6b; --red: #ff6b6b; "
                            "--blue: #6cb4ff; --green: #5ad48a; }")
    assert changed[0][:3] == ("body text on the page", "#202020", "#101317") and changed[0][3] < 1.2


def test_every_text_colour_meets_wcag_aa():
    failing = [(what, f, b, round(r, 2)) for what, f, b, r, need in contrast.rows() if r < need]
    assert failing == []


def test_the_documented_table_is_the_computed_one():
    doc = (ROOT / "docs" / "accessibility.md").read_text()
    shown = re.search(r"<!-- contrast:begin -->\n(.*?)<!-- contrast:end -->", doc, re.S).group(1)
    assert shown.strip() == contrast.table().strip()

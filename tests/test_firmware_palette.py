"""firmware.render palettes: the colour-blind-safe palette, asserted on rendered frames.

FLAT light (gamma 1, brightness 1, no cap) makes frame values equal the design
colours, so every expected pixel is an Okabe-Ito value at a hand-computed
strip index (lane 1 hole h -> h-1; lane 3 hole h -> 31 + h; status LEDs
48-50 for lanes 1-3, 51 the phase).
"""

import pytest

from firmware.config import PALETTE_NAMES, ConfigError, loads
from firmware.geometry import Geometry
from firmware.render import COLOUR_BLIND, OKABE_ITO, PALETTES, STANDARD, Light, render
from firmware.render_loop import RenderLoop

G = Geometry()
FLAT = Light(brightness=1.0, gamma=1.0, budget_ma=1e9, ma_per_channel=20.0)
YELLOW, BLUE, ORANGE = (240, 228, 66), (0, 114, 178), (230, 159, 0)
VERMILLION, GREEN = (213, 94, 0), (0, 158, 115)


def luminance(rgb):
    """WCAG relative luminance of an sRGB colour."""
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def snap(sides, **kw):
    base = {"target": 16, "reach": "loses", "phase": "manual", "dealer_side": None, "turn_side": None,
            "pocket_owner": None, "result": None, "seq": 1}
    base.update(kw)
    base["sides"] = [{"id": sid, "name": sid, "score": s, "previous": p, "house": False} for sid, s, p in sides]
    return base


def lit(frame):
    return {i: p for i, p in enumerate(frame.pixels) if any(p)}


def test_the_okabe_ito_values_are_the_published_ones():
    # Wong, "Points of view: Color blindness", Nature Methods 8:441 (2011), table of Okabe & Ito's set
    assert OKABE_ITO == {"orange": (230, 159, 0), "sky blue": (86, 180, 233), "bluish green": (0, 158, 115),
                         "yellow": (240, 228, 66), "blue": (0, 114, 178), "vermillion": (213, 94, 0),
                         "reddish purple": (204, 121, 167)}


def test_the_config_names_every_palette():
    assert set(PALETTE_NAMES) == set(PALETTES) == {"standard", "colour-blind"}
    assert loads('[board]\npalette = "colour-blind"\n').board.palette == "colour-blind"
    with pytest.raises(ConfigError, match=r"line 2, board.palette: must be one of standard, colour-blind"):
        loads('[board]\npalette = "rainbow"\n')


def test_two_hand_pegging_in_the_colour_blind_palette():
    s = snap([("p1", 7, 5), ("p2", 3, 0)], phase="pegging", dealer_side=1, pocket_owner=1, turn_side=0)
    assert lit(render(s, G, settings=FLAT, palette=COLOUR_BLIND)) == {
        6: YELLOW, 4: (84, 80, 23),       # lap 1 yellow; back peg x0.35 (84, 79.8, 23.1)
        34: YELLOW,
        48: (255, 255, 255),              # lane 1's turn: white
        50: ORANGE,                       # lane 3 deals: orange
        51: GREEN,                        # phase: pegging, bluish green
    }


def test_the_standard_palette_is_the_default_and_unchanged():
    s = snap([("p1", 7, 5), ("p2", 3, 0)], phase="pegging", dealer_side=1, pocket_owner=1, turn_side=0)
    assert render(s, G, settings=FLAT) == render(s, G, settings=FLAT, palette=STANDARD)
    assert lit(render(s, G, settings=FLAT))[6] == (0, 255, 0)


def test_every_colour_is_from_the_okabe_ito_set_white_or_grey():
    allowed = set(OKABE_ITO.values()) | {(255, 255, 255), (120, 120, 120), (0, 0, 0)}
    assert {c for _, c in COLOUR_BLIND.laps} <= allowed
    assert {COLOUR_BLIND.turn, COLOUR_BLIND.pocket, COLOUR_BLIND.dealer, COLOUR_BLIND.skunk} <= allowed
    assert set(COLOUR_BLIND.phases.values()) <= allowed


def test_each_lap_is_much_lighter_or_darker_than_the_one_before():
    laps = [c for _, c in COLOUR_BLIND.laps]
    for a, b in zip(laps, laps[1:] + laps[:1]):
        hi, lo = max(luminance(a), luminance(b)), min(luminance(a), luminance(b))
        assert (hi + 0.05) / (lo + 0.05) >= 1.3, (a, b)
    assert len(set(laps)) == 8


def test_turn_dealer_and_pocket_differ_in_lightness_not_only_hue():
    levels = sorted(luminance(c) for c in (COLOUR_BLIND.turn, COLOUR_BLIND.dealer, COLOUR_BLIND.pocket))
    assert all((b + 0.05) / (a + 0.05) >= 2.0 for a, b in zip(levels, levels[1:]))


def test_laps_of_a_61_game_in_the_colour_blind_palette():
    s = snap([("p1", 60, 44), ("p2", 16, 15)], target=61)
    assert lit(render(s, G, settings=FLAT, palette=COLOUR_BLIND)) == {
        14: VERMILLION,                   # 60 = lap 4 hole 15
        13: (30, 63, 82),                 # 44 = lap 3 (sky blue x0.35) hole 14
        32: BLUE,                         # 16 = lap 2 hole 1
        46: (84, 80, 23),                 # 15 = lap 1 hole 15, dim yellow
    }


# --- the peg-out: who collects flashes a solid lane, a skunked side a dashed one -----------------
WON = snap([("p1", 121, 117), ("p2", 80, 70)], target=121, reach="wins", phase="over",
           result={"winner": "p1", "loser": "p2", "multipliers": {"p1": 2}, "skunk": 1})


def test_the_winner_flashes_solid_in_its_peg_colour():
    f = render(WON, G, 1.6, settings=FLAT, palette=COLOUR_BLIND)
    assert tuple(f.lane(1)) == ((0, 95, 69),) * 16                       # lap 8 = bluish green, x0.6
    assert f.status()[3] == VERMILLION                            # phase LED: over


def test_the_skunked_loser_flashes_a_dashed_lane_in_vermillion():
    on = tuple(render(WON, G, 3.3, settings=FLAT, palette=COLOUR_BLIND).lane(3))
    assert on == ((128, 56, 0), (0, 0, 0)) * 8                    # vermillion x0.6 on odd holes only
    off = tuple(render(WON, G, 3.7, settings=FLAT, palette=COLOUR_BLIND).lane(3))
    assert off == ((0, 0, 0),) * 16
    # the standard palette keeps its solid red skunk
    assert tuple(render(WON, G, 3.3, settings=FLAT).lane(3)) == ((153, 0, 0),) * 16


def test_the_render_loop_switches_palette_live_and_the_page_mirror_follows():
    loop = RenderLoop(None, G, FLAT, clock=lambda: 0.0)
    s = snap([("p1", 7, 5), ("p2", 3, 0)])
    loop.update(s)
    loop.step()
    assert loop.frame_json()["palette"] == "standard"
    assert loop.frame_json()["lanes"][0][6] == [0, 255, 0]
    assert loop.set_palette("colour-blind") == "colour-blind"
    loop.step()
    assert loop.frame_json()["palette"] == "colour-blind"
    assert loop.frame_json()["lanes"][0][6] == list(YELLOW)
    with pytest.raises(ValueError, match="palette must be one of standard, colour-blind"):
        loop.set_palette("sepia")
    assert loop.palette is COLOUR_BLIND

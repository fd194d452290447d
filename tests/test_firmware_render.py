"""firmware.render: known table states give known colours at known strip indices.

FLAT (gamma 1, brightness 1, no cap) makes frame values equal the design
colours, so each expectation is the palette value at a hand-computed index:
lane 1 hole h -> h-1; lane 2 hole h -> 16 + (16-h) (serpentine); lane 3
hole h -> 31 + h; status LEDs 48 (lane 1), 49 (lane 2), 50 (lane 3), 51 (phase).
"""

import pytest

from firmware.geometry import Geometry
from firmware.render import Light, animation_length, light, render

G = Geometry()
FLAT = Light(brightness=1.0, gamma=1.0, budget_ma=1e9, ma_per_channel=20.0)
GREEN, GREEN_BACK = (0, 255, 0), (0, 89, 0)          # lap 1; back = x0.35 (89.25)
WHITE, AMBER, BLUE = (255, 255, 255), (255, 110, 0), (0, 80, 255)


def lit(frame):
    return {i: p for i, p in enumerate(frame.pixels) if any(p)}


def snap(sides, **kw):
    base = {"target": 16, "reach": "loses", "phase": "manual", "dealer_side": None, "turn_side": None,
            "pocket_owner": None, "result": None, "seq": 1}
    base.update(kw)
    base["sides"] = [{"id": sid, "name": sid, "score": s, "previous": p, "house": sid == "house"}
                     for sid, s, p in sides]
    return base


def test_two_hand_pegging():
    s = snap([("p1", 7, 5), ("p2", 3, 0)], phase="pegging", dealer_side=1, pocket_owner=1, turn_side=0)
    assert lit(render(s, G, settings=FLAT)) == {
        6: GREEN, 4: GREEN_BACK,          # p1, lane 1: front hole 7, back hole 5
        34: GREEN,                        # p2, lane 3: front hole 3, no back (previous 0)
        48: WHITE,                        # lane 1's turn
        50: AMBER,                        # lane 3 deals (and owns the pocket: not shown separately)
        51: (0, 255, 0),                  # phase: pegging
    }


def test_turn_is_shown_only_in_the_matching_phase():
    s = snap([("p1", 7, 5), ("p2", 3, 0)], phase="show", dealer_side=0, pocket_owner=0, turn_side=1)
    assert {i: p for i, p in lit(render(s, G, settings=FLAT)).items() if i >= 48} == {48: AMBER, 51: BLUE}


def test_three_hand_third_side_on_the_middle_lane():
    s = snap([("p1", 2, 1), ("p2", 9, 9), ("p3", 4, 2)], phase="cut", dealer_side=2, pocket_owner=2)
    assert lit(render(s, G, settings=FLAT)) == {
        1: GREEN, 0: GREEN_BACK,          # p1 lane 1
        40: GREEN,                        # p2 lane 3 hole 9; back = front, drawn once
        28: GREEN, 30: GREEN_BACK,        # p3 lane 2 (backwards): hole 4 -> 28, hole 2 -> 30
        49: AMBER,                        # p3 deals: lane 2's status LED
        51: (120, 120, 120),              # phase: cut
    }


def test_four_hand_casino_house_in_the_middle_and_pocket_owner():
    s = snap([("team1", 5, 3), ("team2", 11, 6), ("house", 14, 9)], phase="show", dealer_side=2,
             pocket_owner=0)
    assert lit(render(s, G, settings=FLAT)) == {
        4: GREEN, 2: GREEN_BACK,          # team1 lane 1
        42: GREEN, 37: GREEN_BACK,        # team2 lane 3
        18: GREEN, 23: GREEN_BACK,        # house lane 2: hole 14 -> 18, hole 9 -> 23
        48: BLUE,                         # team1 owns the pocket, the house deals
        49: AMBER,
        51: BLUE,                         # phase: show
    }


def test_laps_of_a_121_game_use_the_palette():
    s = snap([("p1", 47, 40), ("p2", 121, 117)], target=121)
    assert lit(render(s, G, settings=FLAT)) == {
        1: (255, 200, 0),                 # 47 = lap 4 (yellow) hole 2
        9: (56, 0, 89),                   # 40 = lap 3 (purple x0.35) hole 10
        47: WHITE,                        # 121 reached: hole 16, colour of the last lap (8, white)
        43: (89, 89, 89),                 # 117 = lap 8 hole 12, dim
    }


def test_laps_of_a_61_game():
    s = snap([("p1", 60, 44), ("p2", 16, 15)], target=61)
    assert lit(render(s, G, settings=FLAT)) == {
        14: (255, 200, 0),                # 60 = lap 4 hole 15
        13: (56, 0, 89),                  # 44 = lap 3 hole 14
        32: (0, 80, 255),                 # 16 = lap 2 hole 1
        46: GREEN_BACK,                   # 15 = lap 1 hole 15
    }


def test_without_status_leds_the_dealer_is_a_dim_marker_in_the_last_hole():
    g = Geometry(status=0)
    s = snap([("p1", 7, 5), ("p2", 3, 0)], phase="pegging", dealer_side=1, turn_side=0)
    assert lit(render(s, g, settings=FLAT)) == {
        6: GREEN, 4: GREEN_BACK, 34: GREEN,
        15: (76, 76, 76),                 # lane 1 hole 16: turn marker, white x0.3 (76.5)
        47: (76, 33, 0),                  # lane 3 hole 16: dealer marker, amber x0.3
    }


def test_no_snapshot_and_no_sides_draw_a_dark_board():
    assert lit(render(None, G, settings=FLAT)) == {}
    assert lit(render({"sides": []}, G, settings=FLAT)) == {}


def test_too_many_sides_is_refused():
    with pytest.raises(ValueError):
        render(snap([("p1", 1, 0), ("p2", 1, 0), ("p3", 1, 0), ("p4", 1, 0)]), G)


# --- peg-out --------------------------------------------------------------------------
LOST = snap([("p1", 17, 12), ("p2", 4, 2)], phase="over",
            result={"winner": "p2", "loser": "p1", "multipliers": {"p2": 3}, "settlement": {}, "skunk": 0})


def lane(frame, n):
    return frame.lane(n)


def test_peg_out_length_run_then_three_flashes():
    # run 1.2 + gap 0.3, 3 flashes of 0.7, gap 0.3, no skunk
    assert animation_length(LOST, G) == pytest.approx(3.9)
    assert animation_length(snap([("p1", 1, 0)]), G) == 0.0


@pytest.mark.parametrize("t, holes", [
    (0.0, {12: GREEN}),                                          # starts at the back hole
    (0.6, {15: GREEN, 14: (0, 115, 0), 13: (0, 51, 0)}),         # head 12 + int(7 * 0.5) = 15, tail 0.45, 0.2
    (1.1, {16: (0, 51, 0)}),                                     # head at 18: only the tail's end is left
])
def test_the_losers_peg_runs_off_the_end(t, holes):
    f = render(LOST, G, t, settings=FLAT)
    assert {h: c for h, c in enumerate(lane(f, 1), start=1) if any(c)} == holes
    assert {h: c for h, c in enumerate(lane(f, 3), start=1) if any(c)} == {4: GREEN, 2: GREEN_BACK}
    assert f.status()[3] == (255, 0, 0)                         # phase LED: over


def test_the_winner_flashes_its_multiplier():
    on = [all(c == (0, 153, 0) for c in lane(render(LOST, G, 1.5 + 0.7 * i + 0.1, settings=FLAT), 3))
          for i in range(5)]
    off = [all(c == (0, 0, 0) for c in lane(render(LOST, G, 1.5 + 0.7 * i + 0.5, settings=FLAT), 3))
           for i in range(3)]
    assert on == [True, True, True, False, False]
    assert off == [True, True, True]
    # between flashes the loser's lane shows its settled pegs
    assert lane(render(LOST, G, 1.6, settings=FLAT), 1)[15] == GREEN


def test_settled_and_late_frames_equal_the_static_board():
    static = render(LOST, G, None, settings=FLAT)
    assert render(LOST, G, 3.9, settings=FLAT) == static
    assert lit(static) == {15: GREEN, 11: GREEN_BACK, 35: GREEN, 33: GREEN_BACK, 51: (255, 0, 0)}


def test_cribbage_winner_runs_off_then_skunk_flashes_red():
    won = snap([("p1", 121, 117), ("p2", 80, 70)], target=121, reach="wins", phase="over",
               result={"winner": "p1", "loser": "p2", "multipliers": {"p1": 2}, "skunk": 1})
    assert animation_length(won, G) == pytest.approx(3.9)       # 1.5 + 2 x 0.7 + 0.3 + 1 x 0.7
    first = render(won, G, 0.0, settings=FLAT)
    assert {h: c for h, c in enumerate(lane(first, 1), start=1) if any(c)} == {12: WHITE}
    assert all(c == (153, 153, 153) for c in lane(render(won, G, 1.6, settings=FLAT), 1))
    assert all(c == (153, 0, 0) for c in lane(render(won, G, 3.3, settings=FLAT), 3))
    assert all(c == (0, 0, 0) for c in lane(render(won, G, 3.7, settings=FLAT), 3))


def test_every_collecting_side_flashes_its_own_multiplier():
    three = snap([("p1", 16, 14), ("p2", 8, 5), ("p3", 0, 0)], phase="over",
                 result={"winner": "p2", "loser": "p1", "multipliers": {"p2": 2, "p3": 4}, "skunk": 0})
    frames = [render(three, G, 1.5 + 0.7 * i + 0.1, settings=FLAT) for i in range(4)]
    assert [all(c == (0, 153, 0) for c in lane(f, 3)) for f in frames] == [True, True, False, False]
    assert [all(c == (0, 153, 0) for c in lane(f, 2)) for f in frames] == [True, True, True, True]


# --- the light stage --------------------------------------------------------------------------
def test_gamma_and_brightness_with_dim_channels_kept_lit():
    px = [(255.0, 89.25, 10.0)] + [(0.0, 0.0, 0.0)] * 51
    f = light(px, G, Light(brightness=0.5, gamma=2.8, budget_ma=1500, ma_per_channel=20))
    # 255 -> 127.5 -> 128; 0.35^2.8 x 127.5 = 6.74 -> 7; (10/255)^2.8 x 127.5 = 0.015 -> kept at 1
    assert f.pixels[0] == (128, 7, 1)
    assert light(px, G, Light(brightness=0.0)).pixels[0] == (0, 0, 0)


def test_power_cap_scales_a_full_white_board_under_the_budget():
    px = [(255.0, 255.0, 255.0)] * 52
    f = light(px, G, Light(brightness=1.0, gamma=1.0, budget_ma=1000, ma_per_channel=20))
    # 52 LEDs x 3 channels x 20 mA = 3120 mA; x 1000/3120 -> floor(81.7) = 81 per channel
    assert set(f.pixels) == {(81, 81, 81)}
    assert f.current_ma(20) == pytest.approx(52 * 3 * 81 * 20 / 255)
    assert f.current_ma(20) <= 1000
    # under the budget nothing changes
    assert set(light(px, G, Light(brightness=1.0, gamma=1.0, budget_ma=3200)).pixels) == {(255, 255, 255)}


def test_default_light_of_a_real_frame():
    s = snap([("p1", 7, 5), ("p2", 3, 0)], phase="pegging", dealer_side=1, pocket_owner=1, turn_side=0)
    assert lit(render(s, G)) == {6: (0, 128, 0), 4: (0, 7, 0), 34: (0, 128, 0), 48: (128, 128, 128),
                                 50: (128, 12, 0), 51: (0, 128, 0)}


def test_the_brightest_frame_the_renderer_draws_is_the_number_in_hardware_readme():
    # every peg white (lap 8 of 121), two sides flashing their lanes at once, status LEDs lit
    worst = snap([("p1", 121, 118), ("p2", 119, 118), ("p3", 117, 116)], target=121, reach="wins", phase="over",
                 dealer_side=0, turn_side=1, pocket_owner=2,
                 result={"winner": "p1", "loser": "p3", "multipliers": {"p1": 2, "p2": 2}, "skunk": 1})
    frames = int(animation_length(worst, G) * 30) + 2

    def peak(brightness):
        light_ = Light(brightness=brightness, gamma=2.8, budget_ma=1e9, ma_per_channel=20)
        return max(render(worst, G, i / 30, settings=light_).current_ma(20) for i in range(frames))
    # two lanes of 16 white LEDs at flash level 0.6: 0.6^2.8 x 255 = 61 per channel -> 32 x 3 x 61 / 255 x 20 mA
    # = 459.3 mA, + the other pegs and the status LEDs (hardware/README.md, "Power")
    assert round(peak(1.0), 1) == 585.0
    assert round(peak(0.5), 1) == 296.6


# --- peg-outs of real games (the table's own results) -------------------------------------------
def finished(game, players, pegs, **match):
    """Return the snapshot of a real table after ``pegs`` (side id, points), pegged 29 at a time at most."""
    from companion.table import Table
    table = Table.memory()
    table.submit({"type": "new_match", "game": game, "players": players, "stake": 1, **match})
    for side, points in pegs:
        while points:
            step = min(points, 29)
            table.submit({"type": "peg", "side": side, "points": step})
            points -= step
    snapshot = table.snapshot()
    assert snapshot["result"], snapshot
    return snapshot


def all_lit(frame, lane_no, colour):
    return all(c == colour for c in frame.lane(lane_no))


def test_real_cribbage_double_skunk_winner_flashes_x3_then_the_loser_flashes_red_twice():
    # p1 stopped at 60 (under 61: a double skunk, 3 games); p2 pegs out 121 from 116 (lap 8, hole 11)
    s = finished("cribbage", ["Ann", "Bob"], [("p1", 60), ("p2", 116), ("p2", 5)])
    assert s["result"]["multipliers"] == {"p2": 3} and s["result"]["skunk"] == 2   # keyed by the receiver (R2)
    # run 1.2 + gap 0.3, 3 flashes of 0.7, gap 0.3, 2 skunk flashes of 0.7
    assert animation_length(s, G) == pytest.approx(5.3)
    start = render(s, G, 0.0, settings=FLAT)
    assert {h: c for h, c in enumerate(start.lane(3), start=1) if any(c)} == {11: WHITE}   # the winner's peg runs
    flash_on = [all_lit(render(s, G, 1.5 + 0.7 * i + 0.1, settings=FLAT), 3, (153, 153, 153)) for i in range(4)]
    assert flash_on == [True, True, True, False]
    assert not any(all_lit(render(s, G, 1.5 + 0.7 * i + 0.1, settings=FLAT), 1, (153, 153, 153)) for i in range(3))
    red = [all_lit(render(s, G, 3.9 + 0.7 * i + 0.1, settings=FLAT), 1, (153, 0, 0)) for i in range(3)]
    assert red == [True, True, False]
    assert not all_lit(render(s, G, 4.0, settings=FLAT), 3, (153, 0, 0))


def test_real_cribbage_without_skunk_flashes_the_winner_once_and_no_red():
    s = finished("cribbage", ["Ann", "Bob"], [("p1", 95), ("p2", 121)])
    assert animation_length(s, G) == pytest.approx(2.5)             # 1.5 + 1 flash + 0.3
    assert all_lit(render(s, G, 1.6, settings=FLAT), 3, (153, 153, 153))
    assert not any(all_lit(render(s, G, t / 10, settings=FLAT), 1, (153, 0, 0)) for t in range(26))


def test_real_four_hand_casino_the_house_pegs_out_and_wins_its_peg_runs_and_its_lane_flashes_once():
    s = finished("lands-end-casino-4", ["A", "B", "C", "D"], [("team1", 3), ("house", 10), ("house", 6)])
    assert s["result"]["winner"] == "house" and s["result"]["loser"] == ["team1", "team2"]   # R1
    # the house (lane 2, backwards) runs from its back hole 10 off hole 16
    assert {h: c for h, c in enumerate(render(s, G, 0.0, settings=FLAT).lane(2), start=1) if any(c)} == {10: GREEN}
    assert animation_length(s, G) == pytest.approx(2.5)             # 1.5 + 1 flash + 0.3
    at = render(s, G, 1.6, settings=FLAT)
    assert all_lit(at, 2, (0, 153, 0))
    assert not all_lit(at, 1, (0, 153, 0)) and not all_lit(at, 3, (0, 153, 0))     # the teams pay: no flash


def test_real_four_hand_casino_a_team_pegs_out_and_pays_each_side_its_own_multiplier():
    s = finished("lands-end-casino-4", ["A", "B", "C", "D"], [("team1", 3), ("house", 10), ("team2", 16)])
    assert s["result"]["multipliers"] == {"team1": 3, "house": 2}
    assert {h: c for h, c in enumerate(render(s, G, 0.0, settings=FLAT).lane(3), start=1) if any(c)} == {1: GREEN}
    frames = [render(s, G, 1.5 + 0.7 * i + 0.1, settings=FLAT) for i in range(3)]
    assert [all_lit(f, 1, (0, 153, 0)) for f in frames] == [True, True, True]       # team1 x3 (score 3)
    assert [all_lit(f, 2, (0, 153, 0)) for f in frames] == [True, True, False]      # the house x2 (score 10)


def test_a_refused_press_blinks_its_lane_red_twice_and_leaves_the_rest_alone():
    from firmware.render import REFUSED_BLINK_S, REFUSED_LEVEL, REFUSED_S
    g = Geometry()
    light_ = Light(brightness=0.5, gamma=2.8, budget_ma=1500, ma_per_channel=20)
    snap = {"target": 16, "phase": "manual", "result": None,
            "sides": [{"id": "p1", "score": 5, "previous": 3}, {"id": "p2", "score": 7, "previous": 4}]}
    plain = render(snap, g, settings=light_)
    red = round(255 * REFUSED_LEVEL ** 2.8 * 0.5)
    assert REFUSED_S == 0.6 and REFUSED_BLINK_S == 0.15
    for s, lit in ((0.0, True), (0.14, True), (0.16, False), (0.31, True), (0.44, True), (0.46, False),
                   (0.59, False), (0.6, False), (-0.1, False)):
        frame = render(snap, g, settings=light_, refused=(2, s))
        assert frame.lane(2) == ([(red, 0, 0)] * g.holes if lit else plain.lane(2)), s
        assert (frame.lane(1), frame.lane(3), frame.status()) == (plain.lane(1), plain.lane(3), plain.status())

"""firmware.geometry: strip indices, score -> hole/lap, side -> lane."""

import pytest

from firmware.config import BoardConfig
from firmware.geometry import Geometry, side_lanes


def test_serpentine_default_runs_lane_2_backwards_and_chains_status_after():
    g = Geometry.from_config(BoardConfig())
    assert g.count == 52
    assert [g.index(1, h) for h in (1, 2, 16)] == [0, 1, 15]
    assert [g.index(2, h) for h in (16, 15, 1)] == [16, 17, 31]
    assert [g.index(3, h) for h in (1, 16)] == [32, 47]
    assert [g.status_index(n) for n in range(4)] == [48, 49, 50, 51]
    every = sorted(g.index(lane, h) for lane in (1, 2, 3) for h in range(1, 17))
    assert every == list(range(48))


def test_straight_wiring_and_other_sizes():
    g = Geometry.from_config(BoardConfig(wiring="straight", holes=20, status_leds=0))
    assert g.count == 60
    assert (g.index(2, 1), g.index(2, 20), g.index(3, 20)) == (20, 39, 59)
    assert g.per_lap == 19


def test_off_board_positions_are_refused():
    g = Geometry()
    for bad in ((0, 1), (4, 1), (1, 0), (1, 17)):
        with pytest.raises(ValueError):
            g.index(*bad)
    with pytest.raises(ValueError, match=r"status LED 4 does not exist \(0..3\)"):
        g.status_index(4)


@pytest.mark.parametrize("score, target, place", [
    (0, 16, None), (1, 16, (1, 0)), (15, 16, (15, 0)), (16, 16, (16, 0)), (23, 16, (16, 0)),
    (16, 61, (1, 1)), (30, 61, (15, 1)), (31, 61, (1, 2)), (60, 61, (15, 3)), (61, 61, (16, 3)), (64, 61, (16, 3)),
    (106, 121, (1, 7)), (120, 121, (15, 7)), (121, 121, (16, 7)),
    (29, 31, (14, 1)), (31, 31, (16, 1)),
])
def test_score_to_hole_and_lap(score, target, place):
    assert Geometry().place(score, target) == place


@pytest.mark.parametrize("sides, lanes", [
    ([{"id": "p1"}], [1]),
    ([{"id": "p1"}, {"id": "p2"}], [1, 3]),
    ([{"id": "p1"}, {"id": "p2"}, {"id": "p3"}], [1, 3, 2]),
    ([{"id": "team1"}, {"id": "team2"}], [1, 3]),
    ([{"id": "p1"}, {"id": "house", "house": True}], [1, 2]),
    ([{"id": "house", "house": True}, {"id": "p1"}, {"id": "p2"}], [2, 1, 3]),
    ([{"id": "team1"}, {"id": "team2"}, {"id": "house", "house": True}], [1, 3, 2]),
])
def test_side_lanes(sides, lanes):
    assert side_lanes(sides) == lanes


def test_side_lanes_refuses_what_does_not_fit():
    with pytest.raises(ValueError, match="4 sides do not fit on 3 lanes"):
        side_lanes([{"id": f"p{i}"} for i in range(4)])
    with pytest.raises(ValueError, match="more than one side is the house"):
        side_lanes([{"id": "a", "house": True}, {"id": "b", "house": True}])


# every preset, seated by a real table: which players play on lanes 1, 2 and 3 (docs/operation.md's table)
PRESET_LANES = {
    ("lands-end", 2): {1: ["A"], 3: ["B"]},
    ("lands-end-3", 3): {1: ["A"], 2: ["C"], 3: ["B"]},
    ("lands-end-4", 4): {1: ["A", "C"], 3: ["B", "D"]},
    ("lands-end-casino-2", 1): {1: ["A"], 2: ["House"]},
    ("lands-end-casino-3", 2): {1: ["A"], 2: ["House"], 3: ["B"]},
    ("lands-end-casino-4", 4): {1: ["A", "C"], 2: ["House"], 3: ["B", "D"]},
    ("lands-end-tabletop", 2): {1: ["A"], 3: ["B"]},
    ("cribbage", 2): {1: ["A"], 3: ["B"]},
    ("reverse-cribbage", 2): {1: ["A"], 3: ["B"]},
    ("five-card", 2): {1: ["A"], 3: ["B"]},
    ("table-top-cribbage", 2): {1: ["A"], 3: ["B"]},
    ("table-top-cribbage", 4): {1: ["A", "C"], 3: ["B", "D"]},
    ("table-top-cribbage-31", 2): {1: ["A"], 3: ["B"]},
}


def test_every_preset_is_listed():
    from companion.rulesets import RULESETS
    assert {game for game, _ in PRESET_LANES} == set(RULESETS)


@pytest.mark.parametrize("game, players", sorted(PRESET_LANES))
def test_lanes_of_every_preset_from_a_real_table(game, players):
    from companion.table import Table
    table = Table.memory()
    options = {"players": 4} if game == "table-top-cribbage" and players == 4 else {}
    table.submit({"type": "new_match", "game": game, "players": list("ABCD")[:players], "options": options,
                  "stake": 1})
    sides = table.snapshot()["sides"]
    assert {lane: side["players"] for side, lane in zip(sides, side_lanes(sides))} == PRESET_LANES[game, players]

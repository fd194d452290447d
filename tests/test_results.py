"""Results in every preset family follow RULINGS R1, R2 and S2: the snapshot, the export's replay, the CLI.

R1: ``winner`` is one side, or the list of every side that receives; ``loser``
one side, or the list of every side that pays. R2: ``multipliers`` is keyed by
the receiving side, and settlement = stake x the receiver's multiplier. S2:
reverse cribbage's skunk is mirrored (the side reaching 121 pays a double game
while the winner is under 91, a triple one under 61).

Every case is counted by hand in its comment; the scores are set with manual
pegs (the board buttons' command), in the order given.
"""

import io
import json

import pytest

from companion.cli import main
from companion.replay import replay
from engine_play import new_table

ANN_BOB = ["Ann", "Bob"]
FOUR = ["Ann", "Bob", "Cy", "Di"]      # partners sit opposite: team1 = Ann & Cy, team2 = Bob & Di

# (label, game, players, options, stake, pegs, winner, loser, multipliers, settlement, skunk)
CASES = [
    # L6: Bob reaches 16 and loses; Ann has 4 -> x3; Bob pays 5 x 3
    ("two-hand", "lands-end", ANN_BOB, {}, 5, [("p1", 4), ("p2", 16)],
     "p1", "p2", {"p1": 3}, {"p1": 15, "p2": -15}, 0),
    # M5: Cy reaches 16; Ann 12 -> x1, Bob 7 -> x2; Cy pays 2 x 1 + 2 x 2
    ("three-hand", "lands-end-3", ["Ann", "Bob", "Cy"], {}, 2, [("p1", 12), ("p2", 7), ("p3", 16)],
     ["p1", "p2"], "p3", {"p1": 1, "p2": 2}, {"p1": 2, "p2": 4, "p3": -6}, 0),
    # four-hand: team2 reaches 16; team1 never scored -> x4; 4 x 4
    ("four-hand", "lands-end-4", FOUR, {}, 4, [("team2", 16)],
     "team1", "team2", {"team1": 4}, {"team1": 16, "team2": -16}, 0),
    # H5 two-hand casino: Ann reaches 16; the house has 9 -> x2; 3 x 2
    ("casino-2 player pegs out", "lands-end-casino-2", ["Ann"], {}, 3, [("house", 9), ("p1", 16)],
     "house", "p1", {"house": 2}, {"house": 6, "p1": -6}, 0),
    # H5: the house reaches 16 and pays the player at the player's multiplier: Ann 11 -> x1
    ("casino-2 house pegs out", "lands-end-casino-2", ["Ann"], {}, 3, [("p1", 11), ("house", 16)],
     "p1", "house", {"p1": 1}, {"house": -3, "p1": 3}, 0),
    # H5 three-hand casino: the house pays Ann (7 -> x2) and Bob (0 -> x4): 10 x 2 + 10 x 4
    ("casino-3 house pegs out", "lands-end-casino-3", ANN_BOB, {}, 10, [("p1", 7), ("house", 16)],
     ["p1", "p2"], "house", {"p1": 2, "p2": 4}, {"house": -60, "p1": 20, "p2": 40}, 0),
    # Bob pegs out: pays the house (12 -> x1) and Ann (3 -> x3): 10 + 30
    ("casino-3 player pegs out", "lands-end-casino-3", ANN_BOB, {}, 10, [("house", 12), ("p1", 3), ("p2", 16)],
     ["house", "p1"], "p2", {"house": 1, "p1": 3}, {"house": 10, "p1": 30, "p2": -40}, 0),
    # H4/H5 four-hand casino: the house wins by reaching 16 and collects each team's stake once
    ("casino-4 house wins", "lands-end-casino-4", FOUR, {}, 5, [("team1", 2), ("house", 16)],
     "house", ["team1", "team2"], {"house": 1}, {"team1": -5, "team2": -5, "house": 10}, 0),
    # a team reaching 16 pays team2 (7 -> x2) and the house (3 -> x3): 5 x 2 + 5 x 3
    ("casino-4 team pegs out", "lands-end-casino-4", FOUR, {}, 5, [("team2", 7), ("house", 3), ("team1", 16)],
     ["team2", "house"], "team1", {"team2": 2, "house": 3}, {"team1": -25, "team2": 10, "house": 15}, 0),
    # T2: tabletop Land's End: 16 loses as in L5; Bob at 6 -> x2
    ("tabletop", "lands-end-tabletop", ANN_BOB, {}, 1, [("p2", 6), ("p1", 16)],
     "p2", "p1", {"p2": 2}, {"p1": -2, "p2": 2}, 0),
    # S1: Ann reaches 121, Bob at 80 (under 91): a skunk, the winner receives x2
    ("cribbage skunk", "cribbage", ANN_BOB, {}, 2, [("p2", 80), ("p1", 121)],
     "p1", "p2", {"p1": 2}, {"p1": 4, "p2": -4}, 1),
    # S1: Bob at 60 (under 61): a double skunk, x3
    ("cribbage double skunk", "cribbage", ANN_BOB, {}, 2, [("p2", 60), ("p1", 121)],
     "p1", "p2", {"p1": 3}, {"p1": 6, "p2": -6}, 2),
    # S1: Bob at 91: no skunk
    ("cribbage no skunk", "cribbage", ANN_BOB, {}, 2, [("p2", 91), ("p1", 121)],
     "p1", "p2", {"p1": 1}, {"p1": 2, "p2": -2}, 0),
    # S1 book rules: a double game only under 61: Bob at 60 -> x2, at 61 -> x1
    ("cribbage book rules under 61", "cribbage", ANN_BOB, {"book_rules": True}, 2, [("p2", 60), ("p1", 121)],
     "p1", "p2", {"p1": 2}, {"p1": 4, "p2": -4}, 1),
    ("cribbage book rules at 61", "cribbage", ANN_BOB, {"book_rules": True}, 2, [("p2", 61), ("p1", 121)],
     "p1", "p2", {"p1": 1}, {"p1": 2, "p2": -2}, 0),
    # S2: Ann reaches 121 and loses; Bob at 80 is under 91: Ann pays a double game to Bob
    ("reverse cribbage mirrored skunk", "reverse-cribbage", ANN_BOB, {}, 2, [("p2", 80), ("p1", 121)],
     "p2", "p1", {"p2": 2}, {"p1": -4, "p2": 4}, 1),
    # S2: Bob at 60 is under 61: a triple game
    ("reverse cribbage mirrored double skunk", "reverse-cribbage", ANN_BOB, {}, 2, [("p2", 60), ("p1", 121)],
     "p2", "p1", {"p2": 3}, {"p1": -6, "p2": 6}, 2),
    # S2: Bob at 91: a single game
    ("reverse cribbage single game", "reverse-cribbage", ANN_BOB, {}, 2, [("p2", 91), ("p1", 121)],
     "p2", "p1", {"p2": 1}, {"p1": -2, "p2": 2}, 0),
    # F5: five-card to 61; no stake bands: x1
    ("five-card", "five-card", ANN_BOB, {"cut_bonus": False}, 3, [("p2", 10), ("p1", 61)],
     "p1", "p2", {"p1": 1}, {"p1": 3, "p2": -3}, 0),
]


def play(game, players, options, stake, pegs):
    options = dict(options)
    cut_bonus = options.pop("cut_bonus", True)
    first = None if game.startswith("lands-end-casino") else players[-1]
    t = new_table(game, players, stake=stake, options=options, first_dealer=first)
    if not cut_bonus:
        t.submit({"type": "new_match", "game": game, "players": players, "stake": stake, "first_dealer": first,
                  "options": options, "cut_bonus": False})
    for side, points in pegs:
        while points:
            t.submit({"type": "peg", "side": side, "points": min(points, 29)})
            points -= min(points, 29)
    return t


def named(t, v):
    """A side id (or a list of them) as a replay names it: the player's name, team1/team2, House."""
    names = {s.id: (s.id if len(s.players) > 1 else s.name) for s in t.state.sides}
    return [names[x] for x in v] if isinstance(v, list) else names[v]


@pytest.mark.parametrize("label, game, players, options, stake, pegs, winner, loser, mult, settlement, skunk",
                         CASES, ids=[c[0] for c in CASES])
def test_the_result_names_winners_losers_and_keys_multipliers_by_the_receiver(
        label, game, players, options, stake, pegs, winner, loser, mult, settlement, skunk):
    t = play(game, players, options, stake, pegs)
    res = t.snapshot()["result"]
    assert (res["winner"], res["loser"]) == (winner, loser)
    assert res["winners"] == ([winner] if isinstance(winner, str) else winner)
    assert res["losers"] == ([loser] if isinstance(loser, str) else loser)
    assert res["multipliers"] == mult and res["settlement"] == settlement and res["skunk"] == skunk
    # R2: settlement = stake x the receiver's multiplier, and every payer pays what the receivers get
    assert all(settlement[sid] == stake * k for sid, k in mult.items()) or len(res["losers"]) > 1
    assert sum(settlement.values()) == 0

    # the export of the game replays to the same result, sides named by player
    got = replay(t.export_record())
    assert got["valid"] and got["finished"], got.get("error")
    assert got["winner"] == named(t, winner) and got["loser"] == named(t, loser)
    assert got["multipliers"] == {named(t, k): v for k, v in mult.items()}
    assert got["settlement"] == {named(t, k): v for k, v in settlement.items()}


def test_landsend_replay_json_lists_every_side_that_receives(tmp_path):
    t = play("lands-end-3", ["Ann", "Bob", "Cy"], {}, 2, [("p1", 12), ("p2", 7), ("p3", 16)])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(t.export_record()))
    out, err = io.StringIO(), io.StringIO()
    assert main(["replay", str(path), "--json"], stdin=io.StringIO(), stdout=out, stderr=err) == 0
    res = json.loads(out.getvalue())
    assert res["winner"] == ["Ann", "Bob"] and res["loser"] == "Cy"
    assert res["multipliers"] == {"Ann": 1, "Bob": 2} and res["settlement"] == {"Ann": 2, "Bob": 4, "Cy": -6}
    out = io.StringIO()
    assert main(["replay", str(path)], stdin=io.StringIO(), stdout=out, stderr=io.StringIO()) == 0
    assert "winners Ann and Bob, loser Cy" in out.getvalue()


def test_landsend_replay_json_keys_the_cribbage_skunk_by_the_winner(tmp_path):
    t = play("cribbage", ANN_BOB, {}, 1, [("p2", 60), ("p1", 121)])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(t.export_record()))
    out = io.StringIO()
    assert main(["replay", str(path), "--json"], stdin=io.StringIO(), stdout=out, stderr=io.StringIO()) == 0
    res = json.loads(out.getvalue())
    assert (res["winner"], res["loser"], res["multipliers"]) == ("Ann", "Bob", {"Ann": 3})
    assert res["settlement"] == {"Ann": 3, "Bob": -3}


def test_the_four_hand_casino_house_win_lists_both_paying_teams_in_the_replay():
    t = play("lands-end-casino-4", FOUR, {}, 5, [("team1", 2), ("house", 16)])
    got = replay(t.export_record())
    assert got["winner"] == "House" and got["loser"] == ["team1", "team2"]
    assert got["multipliers"] == {"House": 1}
    assert t.snapshot()["ledger"] == {"Ann": -2.5, "Bob": -2.5, "Cy": -2.5, "Di": -2.5, "House": 10}

"""Game records: replay of hand-written records (worked games, the seeds' examples, broken records),
export -> replay round trips, and the ``landsend replay`` command."""

import io
import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.errors import IllegalAction
from companion.replay import replay
from engine_play import new_table
from test_hand_deal import LE_HAND_1

RECORDS = Path(__file__).parent / "data" / "records"
CASES = sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".result.json"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_record_replays_to_its_expected_result(path):
    want = json.loads(path.with_name(path.stem + ".result.json").read_text())
    got = replay(json.loads(path.read_text()))
    assert {k: got.get(k) for k in want} == want


def test_every_record_has_an_expected_result():
    assert len(CASES) >= 10
    for p in CASES:
        assert p.with_name(p.stem + ".result.json").exists(), p


def run_cli(*argv, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_prints_every_peg_and_show_with_who_was_credited():
    code, out, err = run_cli("replay", str(RECORDS / "lands-end-two-hands.json"))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[:3] == ["Hand 1", "  [play] Ann 10H: ten", "  [play] Bob 5S: fifteen for two -> Ann +2 = 2"]
    assert "  [go] Ann: go -> Bob +1 = 5" in lines
    assert "  [show] Ann: fifteen two, and fifteen four -> Ann +4 = 10" in lines
    assert "      fifteen: 2C 3H 10H (2)" in lines
    assert "  [pocket] Bob: nothing" in lines
    assert lines[-5:] == ["      run: 7S 8H 9D (3)", "Scores: Ann 13, Bob 19",
                          "Game over in hand 2 (show): winner Ann, loser Bob",
                          "Multipliers: Ann x1", "Settlement: Ann +5, Bob -5"]


def test_cli_json_result():
    code, out, _ = run_cli("replay", str(RECORDS / "lands-end-two-hands.json"), "--json")
    res = json.loads(out)
    assert code == 0
    assert {k: res[k] for k in ("valid", "finished", "scores", "winner", "loser", "ended_at", "multipliers",
                                "settlement")} == {
        "valid": True, "finished": True, "scores": {"Ann": 13, "Bob": 19}, "winner": "Ann", "loser": "Bob",
        "ended_at": {"hand": 2, "phase": "show"}, "multipliers": {"Ann": 1}, "settlement": {"Ann": 5, "Bob": -5}}
    assert [h["hand"] for h in res["hands"]] == [1, 2]


def test_cli_invalid_record_reports_the_first_wrong_step():
    code, out, err = run_cli("replay", str(RECORDS / "invalid-out-of-turn.json"))
    assert code == 1
    assert err == ("landsend: error: hand 1, play 1 (5S by Bob) means Ann said go: "
                   "Ann cannot say go: at a count of 0 every card fits\n")
    code, out, _ = run_cli("replay", "-", "--json", stdin=(RECORDS / "invalid-card-held-twice.json").read_text())
    assert code == 1 and json.loads(out)["error"] == "hand 1: 10H is held by both Ann and Bob"


def test_cli_unreadable_input():
    code, _, err = run_cli("replay", "/nonexistent/record.json")
    assert code == 2 and err.startswith("landsend: cannot read /nonexistent/record.json")
    code, _, err = run_cli("replay", "-", stdin="{not json")
    assert code == 1 and err.startswith("landsend: - is not JSON")
    code, out, _ = run_cli("replay", "-", "--json", stdin='{"game": "lands-end"}')
    assert code == 1 and json.loads(out)["error"] == "the record has no 'players'"


def test_partnership_sides_are_team1_and_team2():
    rec = {"game": "lands-end-4", "players": ["Ann", "Bob", "Cy", "Di"], "teams": [["Ann", "Cy"], ["Bob", "Di"]],
           "stake": 1, "first_dealer": "Di",
           "hands": [{"turnup": "2C", "held": {"Ann": ["10H"], "Bob": ["5S"]}, "plays": ["10H", "5S"]}]}
    res = replay(rec)
    assert res["valid"] and res["scores"] == {"team1": 2, "team2": 0}
    assert res["hands"][0]["steps"][1]["credited"] == "team1"


def test_export_carries_manual_pegs_so_the_replay_matches():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", stake=5)
    t.submit({"type": "peg", "side": "p2", "points": 15})
    t.submit({"type": "turnup", "card": "JS"})                          # heels: Bob's 16th point
    rec = t.export_record()
    assert rec["hands"] == [{"dealer": "Bob", "turnup": "JS", "held": {"Ann": [], "Bob": []}, "pocket": None,
                             "plays": [], "pegs": [{"at": 0, "side": "p2", "points": 15}]}]
    res = replay(rec)
    assert (res["valid"], res["loser"], res["ended_at"], res["settlement"]) == (
        True, "Bob", {"hand": 1, "phase": "cut"}, {"Ann": 20, "Bob": -20})


def test_export_of_a_game_ended_by_a_go():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "peg", "side": "p2", "points": 15})
    for c in ({"type": "turnup", "card": "2C"}, {"type": "play", "card": "KH"}, {"type": "play", "card": "QH"},
              {"type": "play", "card": "9C"}, {"type": "go"}, {"type": "go"}):
        t.submit(c)
    rec = t.export_record()
    assert rec["hands"][0]["then_go"] == 2
    res = replay(rec)
    assert res["scores"] == {"Ann": 0, "Bob": 16} and res["ended_at"] == {"hand": 1, "phase": "pegging"}


def test_every_game_of_a_five_card_match_gives_the_non_dealer_three_for_last():
    """F1: each game starts with the cut; the low cutter deals, so the other player pegs 3 for last."""
    t = new_table("five-card", ["Ann", "Bob"], first_dealer="Bob")
    assert [s["score"] for s in t.snapshot()["sides"]] == [3, 0]
    rec1 = t.export_record()
    assert rec1["first_cut_bonus"] is True
    t.submit({"type": "peg", "side": "p2", "points": 29})
    t.submit({"type": "peg", "side": "p2", "points": 29})
    t.submit({"type": "peg", "side": "p2", "points": 3})
    t.submit({"type": "new_game"})                            # the deal passes: Ann deals, Bob pegs 3
    assert [s["score"] for s in t.snapshot()["sides"]] == [0, 3]
    assert t.snapshot()["last"]["text"] == "Bob cut high: three for last"
    t.submit({"type": "turnup", "card": "4S"})
    rec = t.export_record()
    assert rec["first_cut_bonus"] is True and rec["first_dealer"] == "Ann"
    assert replay(rec)["scores"] == {"Ann": 0, "Bob": 3}


def test_a_five_card_match_without_the_cut_bonus_never_gives_it():
    t = new_table("five-card", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "new_match", "game": "five-card", "players": ["Ann", "Bob"], "first_dealer": "Bob",
              "cut_bonus": False})
    t.submit({"type": "peg", "side": "p2", "points": 29})
    t.submit({"type": "peg", "side": "p2", "points": 29})
    t.submit({"type": "peg", "side": "p2", "points": 3})
    t.submit({"type": "new_game"})
    assert [s["score"] for s in t.snapshot()["sides"]] == [0, 0]
    rec = t.export_record()
    assert rec["first_cut_bonus"] is False and replay(rec)["scores"] == {"Ann": 0, "Bob": 0}


def test_new_game_may_name_its_first_dealer_after_a_new_cut():
    t = new_table("five-card", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "peg", "side": "p2", "points": 29})
    t.submit({"type": "peg", "side": "p2", "points": 29})
    t.submit({"type": "peg", "side": "p2", "points": 3})
    t.submit({"type": "new_game", "first_dealer": "Bob"})     # Bob cut low again: he deals, Ann pegs 3
    snap = t.snapshot()
    assert snap["dealer"] == "Bob" and [s["score"] for s in snap["sides"]] == [3, 0]
    with pytest.raises(IllegalAction, match="first dealer 'Zed' is not at the table"):
        t.submit({"type": "new_game", "first_dealer": "Zed"})
    casino = new_table("lands-end-casino-2", ["Ann"])
    with pytest.raises(IllegalAction, match="the house deals every game"):
        casino.submit({"type": "new_game", "first_dealer": "Ann"})


def test_claims_and_muggins_round_trip():
    from test_hand_claims import claim_table
    t = claim_table("lands-end")                  # the matching phase, every card's points claimed exactly
    t.submit({"type": "show", "claimed": 2})
    t.submit({"type": "muggins"})
    t.submit({"type": "show", "claimed": 4})
    rec = t.export_record()
    h = rec["hands"][0]
    assert h["claims"] == {"Ann": 2, "Bob": 4}
    assert len(h["play_claims"]) == 9 and h["play_claims"][-1] == {"at": 11, "side": "p1", "claimed": 1, "n": 8}
    assert h["muggins"] == [{"at": 12, "claimant": "p1", "caller": "p2", "n": 9}]
    assert replay(rec)["scores"] == {"Ann": 12, "Bob": 11}


def test_mangled_records_are_reported_never_crash():
    """Random damage to real records: replay always answers with valid true/false, never an exception."""
    import copy
    import random

    rng = random.Random(11)
    bases = [json.loads(p.read_text()) for p in CASES]
    bases.append(json.loads((RECORDS / "lands-end-two-hands.json").read_text()))
    junk = [None, 0, -3, "x", "5H", "JS", [], ["5H"], {}, {"at": "x"}, [{"at": 1.5}], True, 10 ** 6]
    invalid = 0
    for n in range(600):
        rec = copy.deepcopy(rng.choice(bases))
        for _ in range(rng.randrange(1, 4)):
            target = rec
            path = []
            while isinstance(target, (dict, list)) and target and rng.random() < 0.7:
                key = rng.choice(list(target)) if isinstance(target, dict) else rng.randrange(len(target))
                path.append(key)
                if not isinstance(target[key], (dict, list)):
                    break
                target = target[key]
            if isinstance(target, dict):
                target[rng.choice(list(target) + ["pegs", "then_go", "claims", "muggins", "dealer"])] = \
                    copy.deepcopy(rng.choice(junk))
            elif isinstance(target, list) and target:
                target[rng.randrange(len(target))] = copy.deepcopy(rng.choice(junk))
        res = replay(rec)
        assert res["valid"] in (True, False)
        assert "could not be replayed" not in res.get("error", ""), res["error"]
        if not res["valid"]:
            invalid += 1
            assert isinstance(res["error"], str) and res["error"]
    assert invalid > 300


def test_a_card_listed_twice_in_one_hand_is_refused_with_its_step():
    rec = json.loads((RECORDS / "invalid-card-in-the-unplayed-rest-and-the-pocket.json").read_text())
    rec["hands"][0]["pocket"] = None
    rec["hands"][0]["held"]["Bob"] = ["5H", "6D", "8C", "8C"]      # unplayed when Ann falls off the end
    assert replay(rec)["error"] == "hand 1, Bob's held cards: 8C is listed twice"
    rec["hands"][0]["held"]["Bob"] = ["5H", "6D", "8C", "AS"]
    assert replay(rec)["valid"] and replay(rec)["ended_at"] == {"hand": 1, "phase": "pegging"}


def test_an_export_lists_its_gos_and_an_import_checks_them():
    """Three-hand Land's End, checked by hand (tests/test_review_multi.py): the export lists every go the table
    knew; a record that lists them must list the ones its plays imply; one made before lists none."""
    import copy

    from test_review_multi import play_hand
    rec = play_hand().export_record()
    gos = [{"player": "Ann", "after": 3}, {"player": "Cy", "after": 4}, {"player": "Bob", "after": 4},
           {"player": "Ann", "after": 10}, {"player": "Cy", "after": 10}]
    assert rec["hands"][0]["gos"] == gos
    assert replay(rec)["valid"]
    before = copy.deepcopy(rec)
    del before["hands"][0]["gos"]                        # a record made before the export listed its gos
    assert replay(before)["valid"] and replay(before)["scores"] == replay(rec)["scores"]
    wrong = copy.deepcopy(rec)
    wrong["hands"][0]["gos"][1] = {"player": "Bob", "after": 4}
    got = replay(wrong)
    assert not got["valid"]
    assert got["error"] == "hand 1: the record's go 2 is Bob's after 4 cards, but its plays mean Cy's after 4 cards"
    bad = copy.deepcopy(rec)
    bad["hands"][0]["gos"] = ["Ann"]
    assert replay(bad)["error"] == 'hand 1: gos must be a list of {"player", "after"}'

"""``landsend lead`` / ``landsend peg-advice``: the worked example of docs/advice.md, JSON, JSONL, refusals."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from math import comb

from companion import cli
from companion.advice.pegging_multi import rank_plays


def run(*argv: str, stdin: str = ""):
    out, err = io.StringIO(), io.StringIO()
    rc = cli.main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def test_lands_end_lead_worked_example():
    # docs/advice.md: leading 5H from 5H 9C JD KS with 2D turned up. 47 cards unseen; 14 of them count ten
    # (10 x4, J x3, Q x4, K x3) and 3 are fives. The other player makes fifteen whenever it holds a ten-card
    # (the policy always takes the fifteen), else a pair with a five.
    a = rank_plays("5H 9C JD KS", game="lands-end", turnup="2D")
    five = next(p for p in a.plays if str(p.card) == "5H")
    hands = comb(47, 4)
    assert a.hands == hands
    assert five.reply["fifteen"] == 1 - Fraction(comb(33, 4), hands)
    assert five.reply["pair"] == Fraction(comb(33, 4) - comb(30, 4), hands)
    assert five.reply["run"] == five.reply["thirty-one"] == five.reply["go"] == 0
    # the 5 puts the most points on you, toward 16 (L2: the other player's points are yours)
    assert five.points[0] > max(p.points[0] for p in a.plays if p is not five)
    # the 9 is the best lead under Land's End's go rule (L9: the last player leads again), the king the worst
    assert [str(p.card) for p in a.plays] == ["9C", "JD", "5H", "KS"]
    # with cribbage's go rule Land's End is cribbage's pegging mirrored twice (credit to the opponent, 16
    # loses): the same ranking, the points to each side swapped
    other = rank_plays("5H 9C JD KS", game="lands-end", options={"go_lead": "other_player"}, turnup="2D")
    cr = rank_plays("5H 9C JD KS", game="cribbage", turnup="2D")
    assert [str(p.card) for p in cr.plays] == [str(p.card) for p in other.plays] == ["KS", "JD", "9C", "5H"]
    assert [p.points for p in cr.plays] == [p.points[::-1] for p in other.plays]


def test_lead_json_and_text():
    rc, out, err = run("lead", "5H", "9C", "JD", "KS", "--turnup", "2D", "--game", "lands-end", "--pone", "--json")
    assert (rc, err) == (0, "")
    d = json.loads(out)
    direct = rank_plays("5H 9C JD KS", game="lands-end", turnup="2D")
    assert [p["card"] for p in d["plays"]] == [str(p.card) for p in direct.plays]
    assert Fraction(d["plays"][0]["exact"]["net"]) == direct.plays[0].net
    assert d["other_hands"] == comb(47, 4) and "equally likely" in d["assumption"]
    rc, out, err = run("lead", "5H", "9C", "JD", "KS", "--turnup", "2D", "--pone")
    assert rc == 0 and "5H" in out and "equally likely" in out and "reply" in out


def test_peg_advice_mid_count_and_jsonl():
    rc, out, err = run("peg-advice", "--hand", "9C,JD,KS", "--played", "5H,10S", "--pone", "--turnup", "2D",
                       "-g", "cribbage", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["count"] == 15 and len(d["plays"]) == 3
    direct = rank_plays("9C JD KS", game="cribbage", played="5H,10S", turnup="2D")
    assert [Fraction(p["exact"]["net"]) for p in d["plays"]] == [p.net for p in direct.plays]
    lines = [json.dumps({"hand": ["9C", "JD", "KS"], "played": ["5H", "10S"], "turnup": "2D", "game": "cribbage"}),
             json.dumps({"hand": ["9C"], "played": ["5H"]}),
             "not json"]
    rc, out, err = run("peg-advice", "--jsonl", stdin="\n".join(lines))
    outs = [json.loads(x) for x in out.splitlines()]
    assert rc != 0 and len(outs) == 3
    assert [p["card"] for p in outs[0]["plays"]] == [p["card"] for p in d["plays"]]
    assert "error" in outs[1] and "error" in outs[2]


def test_refusals_change_nothing_and_say_why():
    rc, out, err = run("lead", "5H", "9C", "JD", "KS", "--dealer")
    assert rc != 0 and "non-dealer leads" in err
    rc, out, err = run("peg-advice", "--hand", "9C,JD,KS", "--played", "10S,5H", "--dealer")
    assert rc != 0 and "other player's turn" in err
    rc, out, err = run("lead", "5H", "5H", "JD", "KS")
    assert rc != 0 and "5H" in err
    rc, out, err = run("lead", "5H", "9C", "JD", "KS", "--turnup", "5H")
    assert rc != 0 and "twice" in err
    rc, out, err = run("lead", "5H", "9C", "JD", "KS", "-g", "lands-end-3", "--pone")
    assert rc != 0 and "--seat" in err
    rc, out, err = run("lead", "5H", "9C", "JD", "KS", "-g", "lands-end", "--seat", "1")
    assert rc != 0 and "--dealer or --pone" in err
    rc, out, err = run("lead", "5H", "9C", "JD", "KS", "-g", "lands-end-3", "--seat", "2")
    assert rc != 0 and "turn of the player at seat 1" in err
    rc, out, err = run("peg-advice", "--hand", "9C,JD,KS", "--played", "KD,go", "--dealer")
    assert rc != 0 and "go" in err


def test_docstring_examples():
    import doctest

    import companion.advice.pegging_cli
    import companion.advice.pegging_model
    for module in (companion.advice.pegging_model, companion.advice.pegging_cli):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted and not result.failed


# docs/advice.md, "A three-hand position you can check by hand": seat 1 holds 2C 10S at a count of 8.
THREE = ["--hand", "2C,10S", "--played", "6D,7S,QD,4H,AS,2D,go,AD,8S", "--turnup", "4D", "-g", "lands-end-3",
         "--seat", "1"]


def test_three_hand_worked_example_exact():
    rc, out, err = run("peg-advice", *THREE, "--json")
    assert rc == 0, err
    got = json.loads(out)
    assert got["exact_enumeration"] and got["other_hands"] == 41 * 40 and got["others_left"] == {"0": 1, "2": 1}
    assert "exactly" in got["assumption"] and got["count"] == 8 and got["seat"] == 1
    ten, two = got["plays"]
    assert ten["card"] == "10S" and two["card"] == "2C"
    # the next player (seat 2) holds one of the 41 unseen cards: a 9 makes the run 8-10-9 (four nines),
    # another ten a pair (10C 10D 10H); after the 2, a five makes fifteen (four), a two a pair (2H 2S)
    assert ten["exact"]["reply"] == {"fifteen": "0", "pair": "3/41", "run": "4/41", "thirty-one": "0", "go": "0",
                                     "scores": "7/41"}
    assert two["exact"]["reply"] == {"fifteen": "4/41", "pair": "2/41", "run": "0", "thirty-one": "0", "go": "0",
                                     "scores": "6/41"}
    assert ten["exact"]["net"] == "32/41" and two["exact"]["net"] == "371/820"
    assert ten["exact"]["points_by_side"] == {"seat 0": "18/41", "seat 1": "71/82", "seat 2": "99/82"}
    # every side's points are the other players' loss by 16 (L5): the net adds the others', less yours
    assert Fraction(ten["exact"]["net"]) == Fraction(18, 41) + Fraction(99, 82) - Fraction(71, 82)
    rc, out, err = run("peg-advice", *THREE)
    assert rc == 0 and "10S" in out.splitlines()[2] and "exactly" in out and "±se" not in out


def test_three_and_four_hand_leads_sampled_json():
    rc, out, err = run("lead", "5H", "9C", "JD", "KS", "--turnup", "2D", "-g", "lands-end-3", "--json")
    assert rc == 0, err
    got = json.loads(out)
    assert not got["exact_enumeration"] and got["sampled"] == 1000 and got["seat"] == 1
    assert "sample of 1000" in got["assumption"]
    assert all(0 < p["stderr"] < 0.25 for p in got["plays"]) and len(got["plays"]) == 4
    assert got == rank_plays("5H 9C JD KS", game="lands-end-3", seat=1, turnup="2D").to_dict()
    rc, out, err = run("lead", "5H", "9C", "JD", "KS", "--turnup", "2D", "-g", "lands-end-casino-4", "--seat", "1")
    assert rc == 0 and "±se" in out and "team A" not in out.splitlines()[0]
    rc, out, err = run("peg-advice", "--jsonl", stdin=json.dumps({"hand": ["2C", "10S"], "game": "lands-end-3",
                                                                 "seat": 1, "turnup": "4D",
                                                                 "played": "6D,7S,QD,4H,AS,2D,go,AD,8S"}) + "\n")
    assert rc == 0 and json.loads(out)["plays"][0]["exact"]["net"] == "32/41"

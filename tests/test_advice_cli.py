"""``landsend advise``: text, --json and --jsonl, and its refusals."""

from __future__ import annotations

import io
import json
from fractions import Fraction

import pytest

from companion import cli
from companion.advice.discard import advise


def run(*argv: str, stdin: str = ""):
    out, err = io.StringIO(), io.StringIO()
    rc = cli.main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def test_json_is_the_issue_shape_best_first():
    rc, out, err = run("advise", "5H", "5S", "6D", "JC", "4C", "KD", "--game", "lands-end", "--dealer",
                       "--scores", "7,3", "--json")
    assert (rc, err) == (0, "")
    d = json.loads(out)
    assert len(d["discards"]) == 15
    first = d["discards"][0]
    for key in ("discard", "keep", "hand_mean", "pocket_mean", "net", "hand_distribution", "reach_probability"):
        assert key in first
    direct = advise("5H 5S 6D JC 4C KD", game="lands-end", dealer=True, scores=[7, 3], pegging=True)
    assert [x["discard"] for x in d["discards"]] == [[str(c) for c in x.discard] for x in direct.discards]
    assert Fraction(first["exact"]["pocket_mean"]) == direct.discards[0].pocket_mean
    # at 7 the dealer keeps the fewest points: both fives go into the pocket
    assert first["discard"] == ["5H", "5S"] and first["keep"] == ["6D", "JC", "4C", "KD"]
    assert d["scores"] == [7, 3] and d["rank_by"] == "reach"


def test_human_table_lists_every_discard_and_the_assumption():
    rc, out, err = run("advise", "5H", "5S", "5D", "5C", "KH", "QH", "-g", "cribbage", "--dealer", "--no-pegging")
    assert (rc, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("Cribbage, dealt 5H 5S 5D 5C KH QH; you deal; the crib is yours")
    assert lines[2].split()[:6] == ["KH", "QH", "5H", "5S", "5D", "5C"]
    assert lines[2].split()[6] == "22.43"            # 516/23, see tests/test_advice.py
    assert len(lines) == 2 + 15 + 1 and "equally likely" in lines[-1]


def test_pegging_is_counted_by_default_and_no_pegging_gives_the_plain_ranking():
    from companion.advice.pegging import pegging_values
    from companion import get_ruleset, parse_cards
    rc, out, err = run("advise", "5H", "5S", "6D", "JC", "4C", "KD", "--dealer", "--json")
    assert (rc, err) == (0, "")
    d = json.loads(out)
    assert d["pegging"] is True and "equally likely" in d["pegging_assumption"]
    rows = d["discards"]
    totals = [Fraction(r["exact"]["net_with_pegging"]) for r in rows]
    assert totals == sorted(totals, reverse=True)
    dealt = parse_cards("5H 5S 6D JC 4C KD".split())
    for r in rows[:3]:
        you, other = pegging_values(get_ruleset("lands-end"), 0, parse_cards(r["keep"]), dealt)
        assert Fraction(r["exact"]["pegging_you"]) == you and Fraction(r["exact"]["pegging_other"]) == other
        # Land's End: your own matching points count against you, the other side's for you
        assert Fraction(r["exact"]["net_with_pegging"]) == Fraction(r["exact"]["net"]) - you + other
    rc, out, err = run("advise", "5H", "5S", "6D", "JC", "4C", "KD", "--dealer", "--json", "--no-pegging")
    plain = json.loads(out)
    direct = advise("5H 5S 6D JC 4C KD", game="lands-end", dealer=True)
    assert plain["pegging"] is False and "pegging" not in plain["discards"][0]
    assert [x["discard"] for x in plain["discards"]] == [[str(c) for c in x.discard] for x in direct.discards]
    assert plain["discards"][0]["discard"] == ["5H", "5S"]        # docs/advice.md's worked example
    rc, out, err = run("advise", "5H", "5S", "6D", "JC", "4C", "KD", "--dealer")
    assert "peg you" in out.splitlines()[1] and "Pegging:" in out


def test_jsonl_answers_every_line_in_order():
    stdin = "\n".join([
        json.dumps({"cards": ["5H", "5S", "6D", "JC", "4C"], "game": "lands-end-3", "seat": 1}),
        json.dumps({"cards": "5H 5S 6D JC 4C KD", "game": "cribbage", "dealer": False, "scores": [100, 90]}),
        json.dumps({"cards": ["5H"], "game": "cribbage", "dealer": True}),
        json.dumps({"cards": ["5H", "5S", "6D", "JC", "4C"], "game": "lands-end-casino-3", "seat": 1,
                    "pocket_owner": 1, "pocket_distribution": True}),
        json.dumps({"hand": []}),
    ]) + "\n"
    rc, out, err = run("advise", "--jsonl", stdin=stdin)
    rows = [json.loads(x) for x in out.splitlines()]
    assert rc == 1 and "2 of 5 lines refused" in err
    assert len(rows[0]["discards"]) == 5 and rows[0]["pocket_owner"] == "an opponent"
    assert all("reach_probability" in x for x in rows[1]["discards"])
    assert rows[2] == {"error": "Cribbage deals 6 cards, not 1"}
    assert rows[3]["pocket_owner"] == "you" and "pocket_distribution" in rows[3]["discards"][0]
    assert rows[4]["error"].startswith("line 5: unknown field 'hand'")


@pytest.mark.parametrize("argv, rc, message", [
    (["advise"], 2, "give the dealt cards"),
    (["advise", "--jsonl", "5H"], 2, "reads everything from stdin"),
    (["advise", "5H", "5S", "6D", "JC", "4C", "KD"], 1, "say where you sit"),
    (["advise", "5H", "5S", "6D", "JC", "4C", "--game", "lands-end-casino-3", "--seat", "1", "--owner", "x"], 1,
     "--owner is a seat number or 'house'"),
    (["advise", "5H", "5S", "6D", "JC", "4C", "KD", "--game", "table-top-cribbage", "--dealer"], 1, "grid"),
    (["advise", "5H", "5S", "6D", "JC", "4C", "KD", "--dealer", "--scores", "20,1"], 1, "0 to 15"),
])
def test_refusals_are_one_line(argv, rc, message):
    code, out, err = run(*argv)
    assert code == rc and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err

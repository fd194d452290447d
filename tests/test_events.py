"""The typed events (companion.events): each kind reads and writes exactly the dict the table stores."""

from __future__ import annotations

import dataclasses
import random

import pytest

from companion import events
from companion.commands import COMMANDS
from companion.events import EVENT_TYPES, EventError, Play, from_json
from companion.table import TABLE_COMMANDS, Table
from engine_play import GAMES, RandomPlayer, new_table
from test_amend import AFTER_31, BEFORE_31, WRONG_31, enter, lands_end


def test_every_command_kind_has_its_event_type():
    assert set(EVENT_TYPES) == set(COMMANDS) | set(TABLE_COMMANDS)
    assert all(cls.kind == kind for kind, cls in EVENT_TYPES.items())


def stored(t: Table) -> list[dict]:
    """Return every event of ``t``'s current match as the store reads it back."""
    return t.store.events(t.state.match_id)


def played_events() -> list[dict]:
    """Return the stored events of a seeded game of every preset (claim mode too), each with a new game, a
    peg and an undo, the host's events, and amends that re-derive a hand (a credit changed, an entry inserted)."""
    out = []
    for i, (game, players, options, teams) in enumerate(GAMES):
        t = new_table(game, players, seed=i, options=dict(options, claim_mode=i % 2 == 1), teams=teams)
        RandomPlayer(t, random.Random(i), claim_miss=0.3).play_game()
        for command in ({"type": "new_game"}, {"type": "peg", "side": 0, "points": 1}, {"type": "undo"}):
            t.submit(command)
        if i == 0:                              # the host's events about people and nights
            for command in ({"type": "rename", "name": "Ann", "to": "Anna"}, {"type": "merge", "name": "Bob",
                            "into": "Robert"}, {"type": "new_evening"}, {"type": "settle"}):
                t.submit(command)
        out += stored(t)
    t = lands_end()
    evs = enter(t, BEFORE_31 + [WRONG_31] + AFTER_31)
    t.submit({"type": "amend", "seq": evs[4]["seq"], "player": "Ann"})
    out += stored(t)
    t = lands_end()
    enter(t, BEFORE_31[:3])
    meanwhile = t.submit({"type": "play", "card": "4S"})
    t.submit({"type": "amend", "seq": meanwhile["seq"], "insert": {"type": "play", "card": "5H"}})
    out += stored(t)
    # issue 36: a show that names a card in doubt, a fix dismissed and kept, a card entered over it, a settle
    t = lands_end()
    enter(t, BEFORE_31 + [WRONG_31] + AFTER_31)
    t.submit({"type": "show", "named": {"2D": "Bob"}})
    kept = t.submit({"type": "doubt", "fix": {"type": "amend", "seq": 5, "player": "Ann"}})
    t.submit({"type": "doubt", "settle": kept["seq"]})
    t.submit({"type": "show"})
    t2 = lands_end()
    enter(t2, BEFORE_31[:3])
    kept = t2.submit({"type": "doubt", "fix": {"type": "amend", "seq": 3, "insert": {"type": "play", "card": "5H"}}})
    t2.submit({"type": "play", "card": "5H", "doubt": kept["seq"]})
    return out + stored(t) + stored(t2)


def test_every_stored_event_reads_into_its_type_and_writes_back_exactly():
    seen = set()
    for ev in played_events():
        typed = from_json(ev)
        assert type(typed) is EVENT_TYPES[ev["type"]]
        assert typed.to_json() == ev
        seen.add(ev["type"])
        for inner in ev.get("redo", []):           # an amend's entries re-derived (an inserted one has no seq)
            assert from_json(inner).to_json() == inner
            seen.add("seq" in inner)
    assert seen == set(EVENT_TYPES) | {True, False}


def test_the_table_stores_what_the_type_writes_over_sqlite(tmp_path):
    t = Table.open(tmp_path / "t.db", default_match=None)
    t.submit({"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"], "first_dealer": "Bob",
              "teams": None})
    t.submit({"type": "turnup", "card": "5H"})
    ev = t.submit({"type": "play", "card": "10S"})
    t.close()
    again = Table.open(tmp_path / "t.db", default_match=None)
    back = stored(again)
    assert back[-1] == ev == {"type": "play", "card": "10S", "player": "Ann", "by_turn": True, "seq": 2,
                              "at": ev["at"]}
    first = from_json(back[0])
    assert isinstance(first, events.NewMatch) and first.teams is None and "teams" in first.to_json()
    assert [from_json(e).to_json() for e in back] == back
    again.close()


def test_an_event_is_frozen_and_holds_no_list():
    ev = from_json({"type": "play", "card": "5H", "player": "Ann", "gos": ["Bob"], "seq": 4, "at": "t"})
    assert ev == Play(card="5H", player="Ann", gos=("Bob",), seq=4, at="t")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.card = "6H"
    with pytest.raises(dataclasses.FrozenInstanceError):
        del ev.card
    with pytest.raises(dataclasses.FrozenInstanceError):
        Play(card="5H", player="Ann").seq = 3
    assert dataclasses.is_dataclass(ev) and dataclasses.replace(ev, card="6H").card == "6H"
    assert ev.to_json()["gos"] == ["Bob"]


@pytest.mark.parametrize("data, message", [
    ({"type": "play", "player": "Ann"}, "a play event needs card"),
    ({"type": "play", "card": "5H", "player": "Ann", "colour": "red"}, "a play event has no field colour"),
    ({"type": "shuffle"}, "not an event: 'shuffle'"),
    ({"card": "5H"}, "not an event: None"),
    (["play"], "not an event: ['play']"),
    ({"type": "amend", "amends": 2, "was": {}, "change": {}, "redo": "x", "text": ""},
     "an amend event's redo is a list of events"),
])
def test_a_dict_that_is_not_an_event_of_its_kind_is_refused_by_name(data, message):
    with pytest.raises(EventError) as err:
        from_json(data)
    assert str(err.value) == message

"""Property tests: random legal games of every preset, played to the end through card entry.

Seeded deals and random legal play (implicit and explicit gos, shows with and
without cards, card-by-card placement or whole layouts, manual pegs mixed in,
claim mode with claims of every card's points, every show and every grid line, short
claims, lapsed claims and muggins). For every game: it ends with a result; within a
game no score ever decreases (undo aside); the exported record replays to the
same result. For a sample of games: undoing every event restores the previous
state exactly, and submitting it again gives the same state again.
"""

import random

import pytest

from companion.replay import replay
from engine_play import GAMES, RandomPlayer, new_table

# (label, game, players, options, teams, games to play)
CASES = [(f"{g}-{len(p)}" + ("-" + "-".join(f"{k}={v}" for k, v in o.items()) if o else ""), g, p, o, t)
         for g, p, o, t in GAMES]
CASES += [("lands-end-claims", "lands-end", ["Ann", "Bob"], {"claim_mode": True}, None),
          ("cribbage-claims", "cribbage", ["Ann", "Bob"], {"claim_mode": True}, None),
          # claim mode in the matching phase of the other deal games, and on the tabletop grid lines
          ("lands-end-3-claims", "lands-end-3", ["Ann", "Bob", "Cy"], {"claim_mode": True}, None),
          ("lands-end-4-claims", "lands-end-4", ["Ann", "Bob", "Cy", "Di"], {"claim_mode": True}, None),
          ("five-card-claims", "five-card", ["Ann", "Bob"], {"claim_mode": True}, None),
          ("lands-end-tabletop-claims", "lands-end-tabletop", ["Ann", "Bob"], {"claim_mode": True}, None),
          ("table-top-cribbage-claims", "table-top-cribbage", ["Ann", "Bob"], {"claim_mode": True}, None),
          ("table-top-cribbage-31-claims", "table-top-cribbage-31", ["Ann", "Bob"], {"claim_mode": True}, None)]
# L9: every two-hand preset with a restarting count also under the other go_lead (its default is above)
GO_LEAD = [("lands-end", ["Ann", "Bob"], "other_player"), ("lands-end-casino-2", ["Ann"], "other_player"),
           ("cribbage", ["Ann", "Bob"], "last_player"), ("reverse-cribbage", ["Ann", "Bob"], "last_player")]
CASES += [(f"{g}-{len(p)}-go_lead={v}", g, p, {"go_lead": v}, None) for g, p, v in GO_LEAD]
CASES += [("lands-end-claims-go_lead=other_player", "lands-end", ["Ann", "Bob"],
           {"claim_mode": True, "go_lead": "other_player"}, None)]
# claim mode sends a claim after every card: fewer games of those tables (each still plays every kind of
# claim, short claim, lapsed claim and muggins hundreds of times)
RUNS_BY_LABEL = {label: (400 if label in ("lands-end-claims", "cribbage-claims") else 150)
                 for label, *_ in CASES if "-claims" in label}
RUNS_BY_LABEL.update({label: 400 for label, *_ in CASES if "go_lead=" in label and "-claims" not in label})
# a thousand seeded games of every preset (and of the claim-mode tables)
RUNS = {"cribbage": 1000, "reverse-cribbage": 1000, "table-top-cribbage": 1000, "table-top-cribbage-31": 1000,
        "five-card": 1000}
DEFAULT_RUNS = 1000
REPLAY_EVERY = 8


def side_keys(snap):
    return {(s["id"] if len(s["players"]) > 1 else s["name"]): s["score"] for s in snap["sides"]}


def result_view(t):
    """The replay fields of the table's current game, named as a replay names them."""
    st = t.state
    res = st.result
    ids = {s.id: (s.id if len(s.players) > 1 else s.name) for s in st.sides}

    def name(v):
        return [ids[x] for x in v] if isinstance(v, list) else ids.get(v)
    return {"finished": res is not None,
            "scores": {ids[s.id]: s.score for s in st.sides},
            "winner": name(res["winner"]) if res else None,
            "loser": name(res["loser"]) if res else None,
            "ended_at": {"hand": res["hand"], "phase": res["phase"]} if res else None,
            "multipliers": {ids[k]: v for k, v in res["multipliers"].items()} if res else {},
            "settlement": {ids[k]: v for k, v in res["settlement"].items()} if res else {}}


def play_checked(t, rng, *, claims: bool):
    """Play one game, checking after each command that no score went down; return the player."""
    scores = [s.score for s in t.state.sides]

    def submit(cmd):
        ev = t.submit(cmd)
        now = [s.score for s in t.state.sides]
        assert all(a >= b for a, b in zip(now, scores)), (cmd, scores, now)
        scores[:] = now
        if not t.state.over and rng.random() < 0.02:      # a button press between card entries
            side = rng.randrange(len(now))
            t.submit({"type": "peg", "side": side, "points": 1})
            scores[:] = [s.score for s in t.state.sides]
        return ev

    p = RandomPlayer(t, rng, submit=submit, claim_miss=0.3 if claims else 0.0)
    p.play_game()
    return p


PARTS = 4   # each preset's games run in four slices so parallel workers share them evenly


@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("label, game, players, options, teams", CASES, ids=[c[0] for c in CASES])
def test_random_games_end_and_replay(label, game, players, options, teams, part):
    runs = RUNS_BY_LABEL.get(label, RUNS.get(game, DEFAULT_RUNS))
    ended_in = set()
    for seed in range(part, runs, PARTS):
        rng = random.Random(seed)
        t = new_table(game, players, seed=seed, options=options, teams=teams, stake=2)
        play_checked(t, rng, claims=bool(options.get("claim_mode")))
        res = t.state.result
        assert res is not None and t.snapshot()["expect"] == "none"
        ended_in.add(res["phase"])
        if seed % REPLAY_EVERY == 0:
            rec = t.export_record()
            got = replay(rec)
            assert got["valid"], (seed, got.get("error"))
            want = result_view(t)
            want["ended_at"]["phase"] = {"grid": "show"}.get(want["ended_at"]["phase"], want["ended_at"]["phase"])
            assert {k: got[k] for k in want} == want, seed
    assert ended_in, label


def strip(snap):
    return {k: v for k, v in snap.items() if k not in ("seq", "match_id")}


@pytest.mark.parametrize("label, game, players, options, teams", CASES, ids=[c[0] for c in CASES])
def test_undo_of_every_event_restores_the_previous_state(label, game, players, options, teams):
    for seed in range(2 if "-claims" in label else 4):
        rng = random.Random(1000 + seed)
        t = new_table(game, players, seed=seed, options=options, teams=teams)
        checked = [0]

        def submit(cmd):
            before = t.snapshot()
            steps_before = list(t.state.steps)
            ev = t.submit(cmd)
            after = t.snapshot()
            t.submit({"type": "undo"})
            assert strip(t.snapshot()) == strip(before), cmd
            assert t.state.steps == steps_before[:len(t.state.steps)] and len(t.state.steps) == len(steps_before)
            again = t.submit(cmd)
            assert strip(t.snapshot()) == strip(after) or _same_but_seq(t.snapshot(), after), cmd
            checked[0] += 1
            return again if ev else ev

        RandomPlayer(t, rng, submit=submit, claim_miss=0.3).play_game()
        assert checked[0] >= 2 and t.state.over


def _same_but_seq(a, b):
    """Snapshots equal except the seq numbers inside ``last`` and ``said`` (the redo got a new seq)."""
    a, b = strip(a), strip(b)
    la, lb = dict(a.pop("last") or {}), dict(b.pop("last") or {})
    la.pop("seq", None)
    lb.pop("seq", None)
    sa, sb = dict(a.pop("said", None) or {}), dict(b.pop("said", None) or {})
    sa.pop("seq", None)
    sb.pop("seq", None)
    if sa != sb:
        return False
    ha, hb = a.get("hand") or {}, b.get("hand") or {}
    for hand in (ha, hb):       # who each card was entered for names its event: the redo's is new (issue 26)
        if "credits" in hand:
            hand["credits"] = [{k: v for k, v in c.items() if k != "seq"} for c in hand["credits"]]
    mo_a, mo_b = ha.get("muggins_calls"), hb.get("muggins_calls")
    return a == b and la == lb and mo_a == mo_b


MULTI = [c for c in CASES if c[1] in ("lands-end", "lands-end-3", "lands-end-casino-2", "lands-end-tabletop",
                                       "five-card", "lands-end-casino-4")
         and c[0] in ("lands-end-claims",) + tuple(x[0] for x in CASES if "-claims" not in x[0])]


@pytest.mark.parametrize("label, game, players, options, teams", MULTI, ids=[c[0] for c in MULTI])
def test_matches_of_several_games_keep_the_deal_passing_and_each_game_replays(label, game, players, options, teams):
    for seed in range(40):
        rng = random.Random(5000 + seed)
        t = new_table(game, players, seed=seed, options=options, teams=teams, series={"kind": "first_to", "n": 99})
        for g in range(3):
            first_dealer = t.snapshot()["dealer"]
            play_checked(t, rng, claims=False)
            rec = t.export_record()
            assert rec["first_dealer"] == first_dealer and len(rec["hands"]) == t.state.hand_no
            got = replay(rec)
            want = result_view(t)
            assert got["valid"] and got["scores"] == want["scores"] and got["settlement"] == want["settlement"]
            last_dealer = t.snapshot()["dealer"]
            before = strip(t.snapshot())
            t.submit({"type": "new_game"})
            t.submit({"type": "undo"})                        # undo a new game: the finished game is back
            assert strip(t.snapshot()) == before
            t.submit({"type": "new_game"})
            snap = t.snapshot()
            if t.state.rules.house_deals:
                assert snap["dealer"] == "House"
            else:
                assert snap["dealer"] == t.state.seats[t.state.next_seat(t.state.seats.index(last_dealer))]
            # every game starts at 0, but five-card's non-dealer, who cut high, pegs 3 for last (F1)
            bonus = t.state.rules.first_cut_bonus
            non_dealer = t.state.seats[t.state.next_seat(t.state.dealer)] if bonus else None
            assert snap["game_no"] == g + 2
            assert [s["score"] for s in snap["sides"]] == [bonus if non_dealer in s["players"] else 0
                                                            for s in snap["sides"]]
        assert sum(t.state.wins) >= 3

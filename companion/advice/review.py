"""Advice at a real table: the hand just shown reviewed, and advice for the hand in progress.

Both read a table snapshot (``Table.snapshot()``, schema in docs/architecture.md)
and call :func:`companion.advice.discard.advise` with the seat, the pocket's owner and
the scores the table knows. Pure functions: the web layer passes the snapshot in.

* :func:`review_hand`: for each player whose dealt cards are known -- the cards
  they showed plus the ones they threw, which the pocket holds (a player says
  which pocket cards were theirs; in a game where the pocket holds only the
  players' discards, the last player's are then the cards left over) -- what
  they kept, what that was worth on average and what the best discard was worth.
* :func:`live_request`: the arguments to advise a named player on the hand in
  progress, refused unless the table allows it (the ``live_advice`` house rule:
  the rule sheet forbids table talk) or no hand is in progress.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

from ..cards import parse_cards
from ..errors import IllegalAction, InvalidCard, NotAllowed, RulesError
from ..rulesets import Ruleset, get_ruleset
from .discard import advise

__all__ = ["positions", "review_hand", "live_request", "hand_in_progress", "review_pegging", "live_peg_request"]

HOUSE = "House"


def _live_advice_allowed(rules: Ruleset) -> None:
    """Refuse advice during a hand at a table whose ``live_advice`` house rule is off (table talk).

    :raises NotAllowed: a refusal by the table's rules, not of a malformed request (``web/``: 403).
    """
    if not rules.live_advice:
        raise NotAllowed("this table does not allow advice during a hand (table talk): "
                         "review it after the show, or start a game with the live advice house rule")


def _rules(snap: Mapping[str, Any]) -> Ruleset:
    if not snap.get("game"):
        raise IllegalAction("no game at this table yet")
    return get_ruleset(snap["game"], **dict(snap.get("options") or {}))


def positions(snap: Mapping[str, Any], dealer: str, rules: Ruleset) -> dict[str, int]:
    """Return ``{player name: seat position from the dealer}`` (0 = dealer) in the direction of play."""
    seats = list(snap.get("players") or [])
    n = len(seats)
    step = -1 if rules.direction == "ccw" else 1
    if dealer in seats:
        d = seats.index(dealer)
        return {name: ((i - d) * step) % n for i, name in enumerate(seats)}
    # a house that deals without a seat deals from "before" the first seat (companion.match.next_seat)
    start = -1 if step > 0 else n
    return {seats[(start + step * p) % n]: p for p in range(1, n + 1)}


def _owner_position(snap: Mapping[str, Any], owner_side_id: str, pos: dict[str, int]) -> "int | str":
    for side in snap.get("sides") or []:
        if side.get("id") == owner_side_id:
            if side.get("house") and HOUSE not in pos:
                return "house"
            for name in side.get("players") or []:
                if name in pos:
                    return pos[name]
    raise IllegalAction(f"no side {owner_side_id!r} at this table")


def _scores_for(snap: Mapping[str, Any], player: str) -> list[int]:
    sides = list(snap.get("sides") or [])
    mine = next(i for i, s in enumerate(sides) if player in (s.get("players") or []))
    order = [mine] + [i for i in range(len(sides)) if i != mine]
    return [int(sides[i].get("score", 0)) for i in order]


def hand_in_progress(snap: Mapping[str, Any]) -> bool:
    """Return True while a hand of a deal game is being played (dealt, not yet fully shown)."""
    hand = snap.get("hand") or {}
    return bool(snap.get("game")) and not snap.get("result") and hand.get("kind") == "cards" \
        and hand.get("stage") in ("cut", "pegging", "show", "pocket")


def live_request(snap: Mapping[str, Any], player: Any) -> dict:
    """Return the :func:`~companion.advice.discard.advise` keywords (game, seat, owner, scores) for ``player``'s hand in progress.

    :raises IllegalAction: no deal game in progress, an unknown player, or a
        table that does not allow advice during a hand (``live_advice`` off).
    """
    rules = _rules(snap)
    if rules.grid:
        raise IllegalAction(f"{rules.title} is played on a grid: there is no discard to advise")
    if not hand_in_progress(snap):
        raise IllegalAction("no hand is in progress: use the practice view with any cards")
    _live_advice_allowed(rules)
    dealer = (snap.get("hand") or {}).get("dealer") or snap.get("dealer")
    pos = positions(snap, dealer, rules)
    if not isinstance(player, str) or player not in pos or player == HOUSE and rules.house and not rules.house_plays:
        raise IllegalAction(f"{player!r} does not hold cards here; players: {', '.join(pos)}")
    owner_idx = snap.get("pocket_owner")
    sides = snap.get("sides") or []
    owner = None
    if rules.pocket_owner == "rotate" and isinstance(owner_idx, int) and 0 <= owner_idx < len(sides):
        owner = _owner_position(snap, sides[owner_idx]["id"], pos)
    return {"game": rules, "seat": pos[player], "pocket_owner": owner, "scores": _scores_for(snap, player)}


@lru_cache(maxsize=64)
def _review_pegging_cached(rules, plays, dealer, player, kept, turnup, seen, seats=None, gos=None):
    """:func:`review_pegging` remembered: every tap on the review page asks again for the same hand."""
    return review_pegging(rules, [{"player": p, "card": c} for p, c in plays], dealer, player, list(kept), turnup,
                          list(seen), dict(seats) if seats else None,
                          None if gos is None else [{"player": p, "after": n} for p, n in gos])


def played_tokens(order: list, gos: "list | None") -> list[str]:
    """Return a matching phase as the engines read it (cards in order, ``"go"`` where a player said go) from the
    hand's plays (``{"card"}`` in order) and the gos the table knew (``{"player", "after"}``: said after that
    many cards of the hand; those after the last card too).

    >>> played_tokens([{"card": "10S"}, {"card": "KD"}, {"card": "5H"}], [{"player": "Ann", "after": 2}])
    ['10S', 'KD', 'go', '5H']
    """
    after = [g["after"] for g in gos]
    out: list[str] = []
    for i, o in enumerate(order):
        out += ["go"] * after.count(i)
        out.append(o["card"])
    return out + ["go"] * sum(1 for n in after if n >= len(order))


def live_peg_request(snap: Mapping[str, Any], player: Any) -> dict:
    """Return the :func:`~companion.advice.pegging.rank_plays` keywords (game, played, dealer, turn-up) for
    ``player``'s next card in the matching phase in progress; the player's cards come from the phone.

    Three- and four-hand games get ``seat`` (the player's position from the dealer) instead of
    ``dealer``, for :func:`companion.advice.pegging_multi.rank_plays`.

    :raises IllegalAction: no matching phase in progress, not the player's turn, or a table that
        does not allow advice during a hand (``live_advice`` off).
    """
    from .pegging import infer_gos
    from .pegging_multi import infer_gos_multi
    rules = _rules(snap)
    hand = snap.get("hand") or {}
    if not hand_in_progress(snap) or hand.get("stage") != "pegging":
        raise IllegalAction("no matching phase is in progress: practise a lead, or review the hand after the show")
    _live_advice_allowed(rules)
    players = list(snap.get("players") or [])
    if not isinstance(player, str) or player not in players:
        raise IllegalAction(f"{player!r} does not hold cards here; players: {', '.join(players)}")
    if hand.get("expect_player") != player:
        raise IllegalAction(f"it is {hand.get('expect_player')}'s turn, not {player}'s")
    dealer = hand.get("dealer") or snap.get("dealer")
    order = hand.get("order") or []
    gos = hand.get("gos")                       # every go the table knew (a snapshot without them: inferred)
    if rules.players != 2:
        pos = positions(snap, dealer, rules)
        tokens = played_tokens(order, gos) if gos is not None else \
            infer_gos_multi(rules, [(pos[o["player"]], o["card"]) for o in order], then=pos[player])
        return {"game": rules, "played": tokens, "seat": pos[player], "turnup": hand.get("turnup")}
    tokens = played_tokens(order, gos) if gos is not None else \
        infer_gos(rules, [(0 if o["player"] == player else 1, o["card"]) for o in order], 1 if dealer == player else 0)
    return {"game": rules, "played": tokens, "dealer": dealer == player, "turnup": hand.get("turnup")}


def _shown_hand(snap: Mapping[str, Any]) -> "dict | None":
    hand = snap.get("hand") or {}
    if hand.get("kind") != "cards":
        return None
    if hand.get("pocket"):
        return {"hand_no": hand.get("hand_no"), "dealer": hand.get("dealer"), "turnup": hand.get("turnup"),
                "shows": hand.get("shows") or [], "pocket": hand["pocket"], "plays": hand.get("order") or [],
                "gos": hand.get("gos")}
    return hand.get("previous") or None


def _word(net: float) -> str:
    return f"{net:+.2f}".replace("-", "\u2212")


def review_pegging(rules: Ruleset, order: list, dealer: str, player: str, kept: list, turnup: "str | None",
                   seen: list, seats: "Mapping[str, int] | None" = None,
                   gos: "list | None" = None) -> "list[dict] | None":
    """Return ``player``'s plays of a matching phase, each against the best by the model.

    ``order``: the hand's plays (``{"player", "card"}`` in order); ``kept``: the player's
    four shown cards; ``seen``: other cards the player knew (its thrown cards). Each item:
    ``{"card", "lead", "count", "net", "best", "best_net", "rank", "of", "text"}``, the
    nets as in :func:`companion.advice.pegging.rank_plays` (the other player's hand averaged
    over every hand it could hold). Three- and four-hand games (``seats``: each player's position
    from the dealer) by :func:`companion.advice.pegging_multi.rank_plays_multi`: exact late in the count, a
    seeded sample of the other players' deals before (its ``stderr`` said in ``sampled``). ``gos``: the
    gos the table knew (``{"player", "after"}``, as the snapshot lists them); without them (a snapshot that
    does not list its gos) they are inferred by the turn order.
    None where the model does not apply (no matching phase).
    """
    from .pegging import infer_gos, rank_plays
    from .pegging_multi import infer_gos_multi, rank_plays_multi
    if not rules.pegging or not order or rules.players != 2 and not seats:
        return None
    dealt_by_me = dealer == player
    if rules.players == 2:
        who = [(0 if o["player"] == player else 1, o["card"]) for o in order]
        tokens = played_tokens(order, gos) if gos is not None else infer_gos(rules, who, 1 if dealt_by_me else 0)

        def ranked(hand, played):
            return rank_plays(hand, game=rules, played=played, dealer=dealt_by_me, turnup=turnup, seen=seen)
    else:
        seat = seats[player]
        who = [(0 if o["player"] == player else 1, o["card"]) for o in order]
        tokens = played_tokens(order, gos) if gos is not None else \
            infer_gos_multi(rules, [(seats[o["player"]], o["card"]) for o in order])

        def ranked(hand, played):
            return rank_plays_multi(hand, game=rules, played=played, seat=seat, turnup=turnup, seen=seen)
    out = []
    hand = [c for c in kept]
    k = 0                                   # index into tokens
    for i, (p, card) in enumerate(who):
        while tokens[k] == "go":
            k += 1
        if p == 0 and card in hand:
            a = ranked(hand, tokens[:k])
            mine = next(x for x in a.plays if card in [str(c) for c in x.cards])
            best = a.plays[0]
            rank = 1 + sum(1 for x in a.plays if x.net > mine.net)
            lead = a.count == 0
            shown = mine.card.pretty
            text = f"you played {shown} at {a.count}: {_word(float(mine.net))} by the game's goal" if not lead \
                else f"you led {shown}: {_word(float(mine.net))} by the game's goal"
            if rank > 1:
                text += f"; the best {'lead' if lead else 'play'} {best.card.pretty}: {_word(float(best.net))}"
            else:
                text += " (the best)"
            err = getattr(mine, "stderr", None)
            if err is not None:
                text += f" (sampled: {a.deals} deals of the others' cards, \u00b1{err:.2f})"
            out.append({"card": card, "lead": lead, "count": a.count, "net": float(mine.net),
                        "best": str(best.card), "best_net": float(best.net), "rank": rank, "of": len(a.plays),
                        "text": text, "exact": {"net": str(mine.net), "best_net": str(best.net)},
                        "sampled": None if err is None else {"deals": a.deals, "stderr": err}})
            hand.remove(card)
        k += 1
    return out


def review_hand(snap: Mapping[str, Any], thrown: "Mapping[str, Any] | None" = None, *, pegging: bool = False) -> dict:
    """Return the review of the hand just shown (the current one once its pocket is counted, else the previous).

    ``thrown`` maps a player's name to the pocket cards that player threw.
    Returns ``{"hand_no", "dealer", "turnup", "pocket": [cards], "players": [...]}`` with, per
    player who showed, ``{"player", "kept", "thrown", "known", ...}`` and, once
    the dealt cards are known, the kept discard's figures (``hand_mean``,
    ``pocket_mean``, ``net``, ``rank`` among ``of`` discards) and the best
    discard's (``best``), all as in ``landsend advise --json``. ``pegging`` adds each card a
    player played against the model's best
    (:func:`review_pegging`; a few hundred milliseconds, so the page asks for it second).

    :raises IllegalAction: no hand has been shown with its pocket yet; an unknown player.
    :raises InvalidCard: thrown cards that are not in the pocket, the wrong number, or claimed twice.
    """
    rules = _rules(snap)
    if rules.grid:
        raise IllegalAction(f"{rules.title} is played on a grid: there is no discard to review")
    hand = _shown_hand(snap)
    if not hand:
        raise IllegalAction("no hand has been shown with its pocket yet: a review follows the pocket's count")
    pocket = list(parse_cards(hand["pocket"].get("cards") or [], what="pocket"))
    shows = {s["player"]: list(parse_cards(s.get("cards") or [], what="show")) for s in hand["shows"]}
    pos = positions(snap, hand["dealer"], rules)
    claimed: dict[str, list] = {}
    for name, cards in (thrown or {}).items():
        if name not in shows:
            raise IllegalAction(f"{name!r} did not show a hand in hand {hand.get('hand_no')}; "
                                f"players: {', '.join(shows)}")
        cs = list(parse_cards(cards.replace(",", " ").split() if isinstance(cards, str) else list(cards),
                              what="thrown cards"))
        if len(cs) != rules.discards:
            raise InvalidCard(f"each player threw {rules.discards} card{'s' if rules.discards > 1 else ''} "
                              f"to the {rules.pocket_name}, not {len(cs)}")
        for c in cs:
            if c not in pocket:
                raise InvalidCard(f"{c} was not in the {rules.pocket_name} ({' '.join(map(str, pocket))})")
            if any(c in other for other in claimed.values()):
                raise InvalidCard(f"{c} is claimed by two players")
        claimed[name] = cs
    unknown = [n for n in shows if n not in claimed]
    if rules.pocket_dealt == 0 and len(unknown) == 1 and len(shows) == rules.players:
        rest = [c for c in pocket if not any(c in v for v in claimed.values())]
        if len(rest) == rules.discards:
            claimed[unknown[0]] = rest
    owner = None
    if rules.pocket_owner == "rotate":
        owner = _owner_position(snap, hand["pocket"].get("side"), pos)
    players = []
    for name, kept in shows.items():
        row: dict[str, Any] = {"player": name, "kept": [str(c) for c in kept], "known": name in claimed,
                               "thrown": [str(c) for c in claimed.get(name, [])]}
        if name in claimed and len(kept) == rules.held:
            a = advise(kept + claimed[name], game=rules, seat=pos[name], pocket_owner=owner)
            mine = next(i for i, d in enumerate(a.discards) if set(d.discard) == set(claimed[name]))
            d, best = a.discards[mine], a.discards[0]
            row.update({"hand_mean": float(d.hand_mean), "pocket_mean": float(d.pocket_mean), "net": float(d.net),
                        "rank": mine + 1, "of": len(a.discards), "pocket_owner": a.seating.owner_words(),
                        "best": best.to_dict(), "kept_detail": d.to_dict()})
        if pegging and rules.pegging and hand.get("plays") and len(kept) == rules.held:
            try:
                row["pegging"] = _review_pegging_cached(
                    rules, tuple((o["player"], o["card"]) for o in hand["plays"]), hand["dealer"], name,
                    tuple(str(c) for c in kept), hand.get("turnup"), tuple(str(c) for c in claimed.get(name, [])),
                    None if rules.players == 2 else tuple(sorted(pos.items())),
                    None if hand.get("gos") is None else tuple((g["player"], g["after"]) for g in hand["gos"]))
            except RulesError as exc:        # a record the model cannot follow (e.g. a corrected entry)
                row["pegging_error"] = str(exc)
        players.append(row)
    return {"game": rules.name, "hand_no": hand.get("hand_no"), "dealer": hand["dealer"], "turnup": hand.get("turnup"),
            "pocket": [str(c) for c in pocket], "pocket_name": rules.pocket_name, "discards": rules.discards,
            "players": players}

"""``landsend advise``: every discard of a dealt hand ranked, on the command line.

>>> from companion.cli import main
>>> main(["advise", "5H", "5S", "5D", "5C", "KH", "QH", "--game", "cribbage", "--dealer"])  # doctest: +ELLIPSIS
Cribbage, dealt 5H 5S 5D 5C KH QH; you deal; the crib is yours; ranked by net value (with the matching phase)
...
0
"""

from __future__ import annotations

import argparse
from typing import Any

from ..console import (PROG, Streams, Subcommand, UsageError, add_game_args, answer_lines, card_list, card_tokens,
                       house_options, ruleset_from, to_json)
from ..errors import RulesError
from .discard import advise

FIELDS = {"cards", "game", "options", "dealer", "seat", "pocket_owner", "scores", "pocket_distribution", "pegging"}


def _configure(p: argparse.ArgumentParser) -> None:
    add_game_args(p, "lands-end")
    p.add_argument("cards", nargs="*", metavar="CARD", help="the dealt cards (6 in two-hand games, 5 otherwise)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--dealer", action="store_true", default=None, help="you deal (two-hand games)")
    where.add_argument("--pone", dest="dealer", action="store_false", help="you do not deal (two-hand games)")
    where.add_argument("--seat", type=int, metavar="N",
                       help="your seat from the dealer in the direction of play: 0 deals, 1 leads, ...")
    p.add_argument("--owner", metavar="SEAT|house",
                   help="who owns the pocket this hand, where it rotates (three-hand casino): a seat or 'house'")
    p.add_argument("--scores", metavar="YOURS,OTHERS",
                   help="the current scores, your side's first: adds the chance of reaching the target this hand")
    p.add_argument("--pocket-distribution", action="store_true", help="also give the pocket's whole distribution")
    p.add_argument("--no-pegging", dest="pegging", action="store_false",
                   help="leave out the matching phase's expected points "
                        "(counted by default; sampled in three- and four-hand games)")
    p.add_argument("--json", action="store_true", help='print {"discards": [...]} as JSON, best first')
    p.add_argument("--jsonl", action="store_true",
                   help='read {"cards", "game", "dealer" | "seat", "pocket_owner", "scores", "options"} lines '
                        'from stdin, write one result a line')


def _owner(text: "str | None") -> Any:
    if text is None or text == "house":
        return text
    try:
        return int(text)
    except ValueError:
        raise RulesError(f"--owner is a seat number or 'house', not {text!r}") from None


def _request(req: dict) -> dict:
    if "cards" not in req:
        raise RulesError('a request needs "cards" (the dealt cards)')
    rules = ruleset_from(req.get("game", "lands-end"), req.get("options"))
    pd = req.get("pocket_distribution", False)
    peg = req.get("pegging", True)
    for name, v in (("pocket_distribution", pd), ("pegging", peg)):
        if not isinstance(v, bool):
            raise RulesError(f"{name} is true or false, not {v!r}")
    return advise(card_list(req["cards"], "cards"), game=rules, dealer=req.get("dealer"), seat=req.get("seat"),
                  pocket_owner=req.get("pocket_owner"), scores=req.get("scores"),
                  pocket_distribution=pd, pegging=peg).to_dict()


def _run(args: argparse.Namespace, io: Streams) -> int:
    if args.jsonl:
        if args.cards or args.option or args.json or args.dealer is not None or args.seat is not None \
                or args.owner or args.scores or not args.pegging:
            raise UsageError(f"{PROG} advise --jsonl reads everything from stdin; give no cards or other options")
        return answer_lines(io, _request, FIELDS)
    if not args.cards:
        raise UsageError(f"{PROG} advise: give the dealt cards, e.g. {PROG} advise 5H 5S 6D JC 4C KD --dealer")
    rules = ruleset_from(args.game, house_options(args.option))
    a = advise(card_tokens(args.cards), game=rules, dealer=args.dealer, seat=args.seat, pocket_owner=_owner(args.owner),
               scores=args.scores, pocket_distribution=args.pocket_distribution, pegging=args.pegging)
    if args.json:
        io.stdout.write(to_json(a.to_dict()) + "\n")
        return 0
    s = a.seating
    where = "you deal" if s.seat == 0 else f"seat {s.seat} from the dealer"
    owner = {"you": "is yours", "your partner": "is your side's"}.get(s.owner_words(), f"is {s.owner_words()}'s")
    io.stdout.write(f"{rules.title}, dealt {' '.join(map(str, a.cards))}; {where}; the {rules.pocket_name} {owner}; "
                    f"ranked by {'net value' if a.rank_by == 'net' else 'the chance of reaching ' + str(rules.target)}"
                    f"{' (with the matching phase)' if a.pegging else ''}\n")
    goal = "more" if s.goal > 0 else "fewer"
    peg = a.pegging
    io.stdout.write(f"  {'discard':<8} {'keep':<13} {'hand':>6} {rules.pocket_name:>7} {'net':>7}"
                    + (f" {'peg you':>7} {'other':>6} {'total':>7}" if peg else "")
                    + (f" {'reach':>7}" if a.scores else "") + f"   (hand: {goal} is better; net: higher is better)\n")
    for d in a.discards:
        line = (f"  {' '.join(map(str, d.discard)):<8} {' '.join(map(str, d.keep)):<13} {float(d.hand_mean):>6.2f} "
                f"{float(d.pocket_mean):>7.2f} {float(d.net):>+7.2f}")
        if peg:
            line += f" {float(d.pegging[0]):>7.2f} {float(d.pegging[1]):>6.2f} {float(d.total):>+7.2f}"
        if d.reach is not None:
            line += f" {100 * float(d.reach):>6.1f}%"
        io.stdout.write(line + "\n")
    if peg:
        two = rules.players == 2
        credit = ("your opponent" if two else "the next opponent in turn order") \
            if rules.pegging_credit == "next_opponent" else "you"
        io.stdout.write(f"  peg you/other: the matching phase's expected points credited to your side and to "
                        f"{'the other side' if two else 'the other sides together'} (a point you make goes to "
                        f"{credit}); total: the net with them\n")
    io.stdout.write(f"Note: {a.assumption}.\n")
    if peg:
        if rules.players == 2:
            from .pegging import ASSUMPTION
            io.stdout.write(f"Pegging: {ASSUMPTION}; averaged over every turn-up too.\n")
        else:
            from .pegging_multi import DISCARD_ASSUMPTION
            worst = max(d.pegging_stderr for d in a.discards)
            io.stdout.write(f"Pegging: {DISCARD_ASSUMPTION}; the largest standard error here is {worst:.2f}.\n")
    return 0


ADVISE = Subcommand("advise", "rank every discard of a dealt hand by the game's goal", _configure, _run)

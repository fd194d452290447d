"""``landsend lead`` and ``landsend peg-advice``: which card to lead or play next, ranked by the game's goal.

>>> from companion.cli import main
>>> main(["lead", "5H", "9C", "JD", "KS", "--turnup", "2D", "--game", "lands-end", "--pone"])  # doctest: +ELLIPSIS
Land's End, you lead from 5H 9C JD KS; turn-up 2D; ...
0
"""

from __future__ import annotations

import argparse

from ..console import (PROG, Streams, Subcommand, UsageError, add_game_args, answer_lines, card_list, card_tokens,
                       house_options, ruleset_from, to_json)
from ..errors import RulesError
from .pegging import PegAdvice
from .pegging_multi import MultiAdvice, rank_plays

FIELDS = {"hand", "game", "options", "dealer", "seat", "played", "turnup", "seen", "turn"}
_REPLY = (("fifteen", "15"), ("pair", "pair"), ("run", "run"), ("thirty-one", "31"), ("go", "go"))


def _configure(p: argparse.ArgumentParser, *, lead: bool) -> None:
    add_game_args(p, "lands-end")
    if lead:
        p.add_argument("cards", nargs="*", metavar="CARD", help="the cards you hold for the matching phase")
    else:
        p.add_argument("cards", nargs="*", metavar="CARD", help="(or --hand) the cards you still hold")
        p.add_argument("--hand", metavar="CARDS", help="the cards you still hold, e.g. 9C,JD,KS")
        p.add_argument("--played", metavar="CARDS", default="",
                       help="every card played so far, in order, 'go' where a player said go, e.g. 10S,5H,go,KD")
        p.add_argument("--turn", choices=("me",), default="me", help="whose turn it is: yours (the only one advised)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--pone", dest="dealer", action="store_false", default=None,
                       help="you did not deal: you led the matching phase")
    where.add_argument("--dealer", dest="dealer", action="store_true", help="you dealt: the other player led")
    where.add_argument("--seat", type=int, metavar="N",
                       help="three- and four-hand games: your seat from the dealer in the direction of play "
                            "(1 leads; four-hand casino's players sit at 1..4)")
    p.add_argument("--turnup", metavar="CARD", help="the turn-up (the other player cannot hold it)")
    p.add_argument("--seen", metavar="CARDS", help="other cards you know the other player does not hold (your discards)")
    p.add_argument("--json", action="store_true", help='print {"plays": [...]} as JSON, best first')
    p.add_argument("--jsonl", action="store_true",
                   help='read {"hand", "played", "dealer", "turnup", "seen", "game", "options"} lines from stdin, '
                        'write one result a line')


def _request(req: dict) -> dict:
    if "hand" not in req:
        raise RulesError('a request needs "hand" (the cards you still hold)')
    rules = ruleset_from(req.get("game", "lands-end"), req.get("options"))
    dealer = req.get("dealer", False)
    if not isinstance(dealer, bool):
        raise RulesError(f"dealer is true or false, not {dealer!r}")
    seat = req.get("seat")
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
        raise RulesError(f"seat is a whole number from the dealer, not {seat!r}")
    played = req.get("played", [])
    if isinstance(played, str):
        played = played.replace(",", " ").split()
    if not isinstance(played, list) or not all(isinstance(t, str) for t in played):
        raise RulesError('played is a list of cards and "go", in order')
    if req.get("turn", "me") != "me":
        raise RulesError("only your own turn is advised: turn is \"me\"")
    turnup = req.get("turnup")
    if turnup is not None and not isinstance(turnup, str):
        raise RulesError(f"turnup is one card, not {turnup!r}")
    return rank_plays(card_list(req["hand"], "hand"), game=rules, played=played, dealer=dealer, turnup=turnup,
                      seen=card_list(req.get("seen") or [], "seen"), seat=seat).to_dict()


def _pct(x) -> str:
    return f"{100 * float(x):.0f}%"


def write_table(a: "PegAdvice | MultiAdvice", io: Streams) -> None:
    rules = a.rules
    sampled = isinstance(a, MultiAdvice) and not a.exact
    io.stdout.write(f"  {'play':<5} {'you':>6} {'other':>6} {'net':>7}" + (f" {'±se':>5}" if sampled else "")
                    + "   reply: " + " ".join(f"{name:>4}" for _, name in _REPLY) + f" {'any':>4}\n")
    for p in a.plays:
        mark = "*" if p.policy_choice else " "
        line = f"  {str(p.card):<4}{mark} {float(p.points[0]):>6.2f} {float(p.points[1]):>6.2f} {float(p.net):>+7.2f}"
        if sampled:
            line += f" {p.stderr:>5.2f}"
        if p.reply is not None:
            line += "          " + " ".join(f"{_pct(p.reply[k]):>4}" for k, _ in _REPLY) + f" {_pct(p.reply['scores']):>4}"
        else:
            line += "   (no reply in this count)"
        io.stdout.write(line + "\n")
    if a.go:
        io.stdout.write("  no card fits: say go\n")
    credit = ("your opponent" if rules.players == 2 else "the next opponent in turn order") \
        if rules.pegging_credit == "next_opponent" else "you"
    mine = a.goal[0] if not isinstance(a, MultiAdvice) else a.goal[a.side]
    reach = "loses" if mine < 0 else "wins"
    other = "other" if rules.players == 2 else "the other sides together"
    io.stdout.write(f"  you/other: expected points credited to your side and to {other} over the rest of the "
                    f"matching phase (a point you make goes to {credit}; reaching {rules.target} {reach}); "
                    f"net: by the game's goal, higher is better; * = the policy's own choice\n")
    if isinstance(a, MultiAdvice):
        io.stdout.write(f"Note: {a.assumption}; over {a.deals} {'deals sampled' if sampled else 'deals'} of the "
                        f"other players' cards.\n")
    else:
        io.stdout.write(f"Note: {a.assumption}; over {a.hands} hands the other player could hold.\n")


def _run(args: argparse.Namespace, io: Streams, *, lead: bool) -> int:
    name = "lead" if lead else "peg-advice"
    if args.jsonl:
        if args.cards or args.option or args.json or args.turnup or args.seen or args.dealer is not None \
                or args.seat is not None \
                or not lead and (args.hand or args.played):
            raise UsageError(f"{PROG} {name} --jsonl reads everything from stdin; give no cards or other options")
        return answer_lines(io, _request, FIELDS)
    cards = card_tokens(args.cards)
    if not lead and args.hand:
        if cards:
            raise UsageError(f"{PROG} {name}: give your cards once, as --hand or as arguments")
        cards = args.hand.replace(",", " ").split()
    if not cards:
        example = "5H 9C JD KS --turnup 2D --pone" if lead else "--hand 9C,JD,KS --played 10S,5H --dealer"
        raise UsageError(f"{PROG} {name}: give your cards, e.g. {PROG} {name} {example}")
    rules = ruleset_from(args.game, house_options(args.option))
    dealer = bool(args.dealer)
    if args.seat is not None and rules.players == 2:
        raise UsageError(f"{PROG} {name}: --seat is for three- and four-hand games; say --dealer or --pone")
    if rules.players != 2 and args.seat is None and args.dealer is not None:
        raise UsageError(f"{PROG} {name}: {rules.title} seats {rules.players} players: give --seat N "
                         f"(1 leads, from the dealer in the direction of play)")
    if lead and dealer:
        raise UsageError(f"{PROG} lead: the non-dealer leads the matching phase (--pone); "
                         f"for a later lead use {PROG} peg-advice --played ...")
    played = [] if lead else args.played.replace(",", " ").split()
    seat = args.seat if args.seat is not None else (1 if rules.players != 2 and lead else None)
    if rules.players != 2 and seat is None:
        raise UsageError(f"{PROG} {name}: {rules.title} seats {rules.players} players: give --seat N")
    a = rank_plays(cards, game=rules, played=played, dealer=dealer, turnup=args.turnup, seen=args.seen or (),
                   seat=seat)
    if args.json:
        io.stdout.write(to_json(a.to_dict()) + "\n")
        return 0
    hand = " ".join(map(str, a.hand))
    if not a.played:
        head = f"{rules.title}, you lead from {hand}"
    else:
        head = f"{rules.title}, you hold {hand} after {' '.join(a.played)} (count {a.count})"
    if args.turnup:
        head += f"; turn-up {args.turnup.upper()}"
    io.stdout.write(head + "; ranked by the net by the game's goal\n")
    write_table(a, io)
    return 0


LEAD = Subcommand("lead", "rank the leads of a matching-phase hand by the game's goal (exact in two-hand games)",
                  lambda p: _configure(p, lead=True), lambda a, io: _run(a, io, lead=True))
PEG_ADVICE = Subcommand("peg-advice", "rank the next play of a matching phase in progress (exact in two-hand games)",
                        lambda p: _configure(p, lead=False), lambda a, io: _run(a, io, lead=False))

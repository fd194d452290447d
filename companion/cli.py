"""The rules command line: ``score``, ``peg``, ``grid``, ``stats``, ``replay`` and the advice's commands.

Run as ``landsend SUBCOMMAND ...`` (the console script, :mod:`firmware.cli`, adds
``serve`` and the board's other subcommands) or ``python -m companion SUBCOMMAND ...``.

A subcommand is a :class:`Subcommand` value (its name, help, ``configure(parser)``
and ``run(args, io) -> exit status``); :func:`subcommands` lists every one of
companion's, in order, and :func:`main` takes further ones as ``extra`` (the console's
subcommands are not the table's commands, :mod:`companion.commands`). Every refusal
(:class:`~companion.errors.RulesError`, a bad option) exits non-zero with one line on
stderr and never a traceback.

>>> main(["score", "5H", "5S", "5D", "JC", "--starter", "5C", "--json"])  # doctest: +ELLIPSIS
{"total": 29, "items": [{"kind": "fifteen", ...
0
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from typing import IO, Callable, Sequence

from .console import (EXIT_RULES, EXIT_USAGE, PROG, Parser, Streams, Subcommand, UsageError, add_game_args,
                      answer_lines, card_list, card_tokens, house_options, ruleset_from, to_json)
from .errors import RulesError, StoreError, UnknownGame
from .rulesets import RULESETS
from .scoring import Breakdown, score_grid, score_hand, score_peg

__all__ = ["Subcommand", "Streams", "subcommands", "main"]

log = logging.getLogger(__name__)

# The console's shared pieces (streams, the Subcommand value, the parser, card and house-rule arguments, JSON
# lines) are companion.console's: the subcommand modules import them from there, never from here.


def _breakdown_lines(b: Breakdown, indent: str = "  ") -> list[str]:
    lines = []
    for it in b.items:
        cards = " ".join(str(c) for c in it.cards)
        lines.append(f"{indent}{it.kind:<18} {cards:<16} {it.points:>3}")
    return lines


# --- score -----------------------------------------------------------------------------


def _configure_score(p: argparse.ArgumentParser) -> None:
    add_game_args(p, "cribbage")
    p.add_argument("cards", nargs="*", metavar="CARD", help="the held cards (4, or 3 in five-card), e.g. 5H 10h TH 5♥")
    p.add_argument("--starter", "-s", metavar="CARD", help="the turn-up (starter) card")
    p.add_argument("--crib", action="store_true", help="count the cards as the crib/pocket")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--jsonl", action="store_true",
                   help='read {"game", "hand", "starter", "crib"} lines from stdin, write one result a line')


def _score_request(req: dict) -> dict:
    if "hand" not in req or "starter" not in req:
        raise RulesError("a request needs \"hand\" and \"starter\"")
    crib = req.get("crib", False)
    if not isinstance(crib, bool):
        raise RulesError(f"crib is true or false, not {crib!r}")
    rules = ruleset_from(req.get("game", "cribbage"), req.get("options"))
    starter = req["starter"]
    if not isinstance(starter, str):
        raise RulesError(f"starter must be a card, not {starter!r}")
    return score_hand(card_list(req["hand"], "hand"), starter, crib=crib, game=rules).to_dict()


def _run_score(args: argparse.Namespace, io: Streams) -> int:
    if args.jsonl:
        if args.cards or args.starter or args.crib or args.option or args.json:
            raise UsageError(f"{PROG} score --jsonl reads everything from stdin; give no cards or other options")
        return answer_lines(io, _score_request, {"game", "hand", "starter", "crib", "options"})
    if not args.cards:
        raise UsageError(f"{PROG} score: give the cards, e.g. {PROG} score 5H 5S 5D JC --starter 5C")
    if not args.starter:
        raise UsageError(f"{PROG} score: the starter is missing: add --starter CARD")
    rules = ruleset_from(args.game, house_options(args.option))
    b = score_hand(card_tokens(args.cards), args.starter, crib=args.crib, game=rules)
    if args.json:
        io.stdout.write(to_json(b.to_dict()) + "\n")
        return 0
    what = rules.pocket_name if args.crib else "hand"
    io.stdout.write(f"{rules.title} {what}: {' '.join(map(str, b.cards))}   starter {b.starter}\n")
    io.stdout.write("".join(line + "\n" for line in _breakdown_lines(b)))
    io.stdout.write(f"{b.total} points: {b.text}\n")
    return 0


# --- peg -------------------------------------------------------------------------------


def _configure_peg(p: argparse.ArgumentParser) -> None:
    add_game_args(p, "cribbage")
    p.add_argument("cards", nargs="*", metavar="CARD",
                   help="the cards played since the count last reset, in order; the last one is scored")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--jsonl", action="store_true",
                   help='read {"game", "count": [cards]} lines from stdin, write one result a line')


def _peg_request(req: dict) -> dict:
    if "count" not in req:
        raise RulesError("a request needs \"count\" (the cards played since the count last reset)")
    rules = ruleset_from(req.get("game", "cribbage"), req.get("options"))
    return score_peg(card_list(req["count"], "count"), game=rules).to_dict()


def _run_peg(args: argparse.Namespace, io: Streams) -> int:
    if args.jsonl:
        if args.cards or args.option or args.json:
            raise UsageError(f"{PROG} peg --jsonl reads everything from stdin; give no cards or other options")
        return answer_lines(io, _peg_request, {"game", "count", "options"})
    if not args.cards:
        raise UsageError(f"{PROG} peg: give the cards of the count in order, e.g. {PROG} peg 5H 6S 4D")
    rules = ruleset_from(args.game, house_options(args.option))
    p = score_peg(card_tokens(args.cards), game=rules)
    if args.json:
        io.stdout.write(to_json(p.to_dict()) + "\n")
        return 0
    io.stdout.write(f"{' '.join(map(str, p.cards))}: {p.text}\n")
    for it in p.items:
        io.stdout.write(f"  {it.kind:<18} {' '.join(map(str, it.cards)):<24} {it.points:>3}\n")
    io.stdout.write(f"{p.points} points, count {p.count}\n")
    return 0


# --- grid ------------------------------------------------------------------------------


def _configure_grid(p: argparse.ArgumentParser) -> None:
    add_game_args(p, "table-top-cribbage")
    p.add_argument("cards", nargs="*", metavar="CARD", help="25 cards in row order, the centre card 13th")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def _run_grid(args: argparse.Namespace, io: Streams) -> int:
    rules = ruleset_from(args.game, house_options(args.option))
    if not rules.grid:
        grids = ", ".join(name for name, r in RULESETS.items() if r.grid)
        raise UnknownGame(f"{rules.name} is not played on a grid; choose one of: {grids}")
    g = score_grid(card_tokens(args.cards), game=rules)
    if args.json:
        io.stdout.write(to_json(g.to_dict()) + "\n")
        return 0
    for title, lines, total in (("rows (non-dealer)", g.rows, g.rows_total),
                                ("columns (dealer)", g.cols, g.cols_total)):
        io.stdout.write(f"{rules.title}, {title}: {total}\n")
        for b in lines:
            io.stdout.write(f" {b.label}: {' '.join(map(str, b.cards))} = {b.total}: {b.text}\n")
            io.stdout.write("".join(line + "\n" for line in _breakdown_lines(b, "    ")))
    return 0


# --- stats -----------------------------------------------------------------------------


class _ProgressBar:
    """A progress bar on a terminal's stderr, shown only once the work takes more than a moment."""

    def __init__(self, stream: IO[str], label: str, *, delay: float = 0.5,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.label = label
        self.delay = delay
        self.clock = clock
        self.start = clock()
        self.shown = False
        self.tty = bool(getattr(stream, "isatty", lambda: False)())

    def __call__(self, done: int, total: int) -> None:
        if not self.tty or (not self.shown and self.clock() - self.start < self.delay):
            return
        self.shown = True
        width = 30
        filled = width * done // max(total, 1)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {100 * done // max(total, 1):3d}%")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * (len(self.label) + 40) + "\r")
            self.stream.flush()


def _configure_stats(p: argparse.ArgumentParser) -> None:
    add_game_args(p, "cribbage")
    p.add_argument("--crib", action="store_true", help="count every crib/pocket instead of every hand")
    p.add_argument("--json", action="store_true", help='print {"hands": N, "counts": {...}, "mean": x}')


def _run_stats(args: argparse.Namespace, io: Streams) -> int:
    from .stats import distribution      # only this command needs it (not `landsend serve`'s start-up)
    rules = ruleset_from(args.game, house_options(args.option))
    bar = _ProgressBar(io.stderr, f"counting {rules.name}")
    try:
        d = distribution(rules, crib=args.crib, progress=bar)
    finally:
        bar.close()
    if args.json:
        io.stdout.write(to_json(d.to_dict()) + "\n")
    else:
        io.stdout.write(d.table() + "\n")
    return 0


SCORE = Subcommand("score", "count a hand or crib with its starter", _configure_score, _run_score)
PEG = Subcommand("peg", "score the last card played in the count", _configure_peg, _run_peg)
GRID = Subcommand("grid", "count every row and column of a 5x5 tabletop layout", _configure_grid, _run_grid)
STATS = Subcommand("stats", "exact score distribution over every possible hand", _configure_stats, _run_stats)


# --- main ------------------------------------------------------------------------------


def subcommands() -> tuple[Subcommand, ...]:
    """Return every subcommand of companion's, in the order ``--help`` lists them.

    The replay and the advice wing are imported here, when the console runs (they
    build on this module's helpers), not when ``companion.cli`` is imported.
    """
    from . import replay
    from .advice.discard_cli import ADVISE
    from .advice.pegging_cli import LEAD, PEG_ADVICE
    from .season_cli import SEASON
    return (SCORE, PEG, GRID, STATS,
            Subcommand("replay", "replay a game record hand by hand and print the result",
                       replay.configure_cli, replay.run_cli),
            ADVISE, LEAD, PEG_ADVICE, SEASON)


def build_parser(commands: Sequence[Subcommand]) -> argparse.ArgumentParser:
    """Return the ``landsend`` argument parser with ``commands``."""
    parser = Parser(prog=PROG, description="Land's End table companion: scoring and tools.",
                     epilog=f"`{PROG} serve` runs the table daemon (installed with the firmware).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for cmd in commands:
        p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.help)
        cmd.configure(p)
        p.set_defaults(_command=cmd)
    return parser


def main(argv: "list[str] | None" = None, *, stdin: "IO[str] | None" = None,
         stdout: "IO[str] | None" = None, stderr: "IO[str] | None" = None,
         extra: Sequence[Subcommand] = ()) -> int:
    """Return the exit status of running ``landsend`` with ``argv`` (default ``sys.argv[1:]``):
    :func:`subcommands` and the ``extra`` ones (the firmware's ``serve``, ...).

    0 on success, 1 when the rules refuse the input, 2 for a bad command line.
    Errors are one line on ``stderr``.
    """
    io = Streams(stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr)
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        commands = subcommands() + tuple(extra)
        names = ", ".join(c.name for c in commands)
        parser = build_parser(commands)
        if not args_list:
            raise UsageError(f"{PROG}: a command is required: {names} (see {PROG} --help)")
        try:
            args = parser.parse_args(args_list)
        except SystemExit as e:          # --help / --version print and exit 0
            return int(e.code or 0)
        if getattr(args, "_command", None) is None:
            raise UsageError(f"{PROG}: a command is required: {names}")
        return args._command.run(args, io)
    except UsageError as e:
        io.stderr.write(f"{e}\n")
        return EXIT_USAGE
    except (RulesError, StoreError) as e:
        io.stderr.write(f"{PROG}: error: {e}\n")
        return EXIT_RULES
    except BrokenPipeError:
        return EXIT_RULES
    except KeyboardInterrupt:
        io.stderr.write(f"{PROG}: interrupted\n")
        return 130
    except Exception as e:  # an internal fault: still one line, the traceback only on request
        if os.environ.get("LANDSEND_DEBUG"):
            raise
        log.debug("internal error", exc_info=True)
        io.stderr.write(f"{PROG}: internal error: {type(e).__name__}: {e} (set LANDSEND_DEBUG=1 for details)\n")
        return 70

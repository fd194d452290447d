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
import json
import logging
import os
import sys
import time
from dataclasses import dataclass
from typing import IO, Any, Callable, Iterable, Sequence

from .cards import parse_cards
from .errors import RulesError, StoreError, UnknownGame
from .rulesets import RULESETS, Ruleset, get_ruleset
from .scoring import Breakdown, score_grid, score_hand, score_peg

__all__ = ["Subcommand", "Streams", "subcommands", "main"]

log = logging.getLogger(__name__)

PROG = "landsend"
EXIT_RULES = 1      # the rules refused the input (bad card, unknown game, ...)
EXIT_USAGE = 2      # the command line itself is wrong


@dataclass(frozen=True)
class Streams:
    """The streams a command reads and writes."""

    stdin: IO[str]
    stdout: IO[str]
    stderr: IO[str]


@dataclass(frozen=True)
class Subcommand:
    """One console subcommand: its ``name``, one-line ``help``, ``configure(parser)`` adding
    its arguments, and ``run(args, io) -> exit status``."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Streams], int]


class UsageError(Exception):
    """The command line could not be parsed."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of printing usage and exiting."""

    def error(self, message: str):  # noqa: D401 - argparse hook
        raise UsageError(f"{self.prog}: {message}")


# --- helpers ---------------------------------------------------------------------------


def _tokens(args: Iterable[str]) -> list[str]:
    """Return card tokens, splitting arguments written like ``5H,5S`` too."""
    out: list[str] = []
    for a in args:
        out.extend(a.replace(",", " ").split())
    return out


def _option_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _options(pairs: Iterable[str] | None) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    for pair in pairs or ():
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise UnknownGame(f"an option is written KEY=VALUE, not {pair!r}")
        opts[key.strip().replace("-", "_")] = _option_value(value.strip())
    return opts


def _rules(game: Any, options: Any = None) -> Ruleset:
    if not isinstance(game, str):
        raise UnknownGame(f"game must be a preset name, not {game!r}")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise UnknownGame(f"options must be an object of house rules, not {options!r}")
    return get_ruleset(game, **options)


def _add_game(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument("--game", "-g", default=default, metavar="PRESET",
                        help=f"the game (default {default}); one of: {', '.join(RULESETS)}")
    parser.add_argument("--option", "-o", action="append", metavar="KEY=VALUE",
                        help="a house rule, e.g. -o zero_bonus_pocket=true (repeatable)")


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _breakdown_lines(b: Breakdown, indent: str = "  ") -> list[str]:
    lines = []
    for it in b.items:
        cards = " ".join(str(c) for c in it.cards)
        lines.append(f"{indent}{it.kind:<18} {cards:<16} {it.points:>3}")
    return lines


def _jsonl(io: Streams, handle: Callable[[dict], dict], fields: set[str]) -> int:
    """Answer one JSON object per input line; a bad line gets ``{"error": ...}`` and the batch goes on."""
    bad = lines = 0
    for n, raw in enumerate(io.stdin, 1):
        if not raw.strip():
            continue
        lines += 1
        try:
            try:
                req = json.loads(raw)
            except ValueError as e:
                raise RulesError(f"line {n}: not JSON ({e.msg})") from None
            if not isinstance(req, dict):
                raise RulesError(f"line {n}: expected a JSON object, not {type(req).__name__}")
            unknown = set(req) - fields
            if unknown:
                raise RulesError(f"line {n}: unknown field {sorted(unknown)[0]!r}; fields: {', '.join(sorted(fields))}")
            out = handle(req)
        except RulesError as e:
            bad += 1
            out = {"error": str(e)}
        io.stdout.write(_dump(out) + "\n")
        io.stdout.flush()
    if bad:
        io.stderr.write(f"{PROG}: {bad} of {lines} lines refused (see their \"error\")\n")
        return EXIT_RULES
    return 0


def _card_list(value: Any, what: str) -> list:
    if isinstance(value, str):
        return _tokens([value])
    if not isinstance(value, list):
        raise RulesError(f"{what} must be a list of cards, not {value!r}")
    return value


# --- score -----------------------------------------------------------------------------


def _configure_score(p: argparse.ArgumentParser) -> None:
    _add_game(p, "cribbage")
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
    rules = _rules(req.get("game", "cribbage"), req.get("options"))
    starter = req["starter"]
    if not isinstance(starter, str):
        raise RulesError(f"starter must be a card, not {starter!r}")
    return score_hand(_card_list(req["hand"], "hand"), starter, crib=crib, game=rules).to_dict()


def _run_score(args: argparse.Namespace, io: Streams) -> int:
    if args.jsonl:
        if args.cards or args.starter or args.crib or args.option or args.json:
            raise UsageError(f"{PROG} score --jsonl reads everything from stdin; give no cards or other options")
        return _jsonl(io, _score_request, {"game", "hand", "starter", "crib", "options"})
    if not args.cards:
        raise UsageError(f"{PROG} score: give the cards, e.g. {PROG} score 5H 5S 5D JC --starter 5C")
    if not args.starter:
        raise UsageError(f"{PROG} score: the starter is missing: add --starter CARD")
    rules = _rules(args.game, _options(args.option))
    b = score_hand(_tokens(args.cards), args.starter, crib=args.crib, game=rules)
    if args.json:
        io.stdout.write(_dump(b.to_dict()) + "\n")
        return 0
    what = rules.pocket_name if args.crib else "hand"
    io.stdout.write(f"{rules.title} {what}: {' '.join(map(str, b.cards))}   starter {b.starter}\n")
    io.stdout.write("".join(line + "\n" for line in _breakdown_lines(b)))
    io.stdout.write(f"{b.total} points: {b.text}\n")
    return 0


# --- peg -------------------------------------------------------------------------------


def _configure_peg(p: argparse.ArgumentParser) -> None:
    _add_game(p, "cribbage")
    p.add_argument("cards", nargs="*", metavar="CARD",
                   help="the cards played since the count last reset, in order; the last one is scored")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--jsonl", action="store_true",
                   help='read {"game", "count": [cards]} lines from stdin, write one result a line')


def _peg_request(req: dict) -> dict:
    if "count" not in req:
        raise RulesError("a request needs \"count\" (the cards played since the count last reset)")
    rules = _rules(req.get("game", "cribbage"), req.get("options"))
    return score_peg(_card_list(req["count"], "count"), game=rules).to_dict()


def _run_peg(args: argparse.Namespace, io: Streams) -> int:
    if args.jsonl:
        if args.cards or args.option or args.json:
            raise UsageError(f"{PROG} peg --jsonl reads everything from stdin; give no cards or other options")
        return _jsonl(io, _peg_request, {"game", "count", "options"})
    if not args.cards:
        raise UsageError(f"{PROG} peg: give the cards of the count in order, e.g. {PROG} peg 5H 6S 4D")
    rules = _rules(args.game, _options(args.option))
    p = score_peg(_tokens(args.cards), game=rules)
    if args.json:
        io.stdout.write(_dump(p.to_dict()) + "\n")
        return 0
    io.stdout.write(f"{' '.join(map(str, p.cards))}: {p.text}\n")
    for it in p.items:
        io.stdout.write(f"  {it.kind:<18} {' '.join(map(str, it.cards)):<24} {it.points:>3}\n")
    io.stdout.write(f"{p.points} points, count {p.count}\n")
    return 0


# --- grid ------------------------------------------------------------------------------


def _configure_grid(p: argparse.ArgumentParser) -> None:
    _add_game(p, "table-top-cribbage")
    p.add_argument("cards", nargs="*", metavar="CARD", help="25 cards in row order, the centre card 13th")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def _run_grid(args: argparse.Namespace, io: Streams) -> int:
    rules = _rules(args.game, _options(args.option))
    if not rules.grid:
        grids = ", ".join(name for name, r in RULESETS.items() if r.grid)
        raise UnknownGame(f"{rules.name} is not played on a grid; choose one of: {grids}")
    g = score_grid(_tokens(args.cards), game=rules)
    if args.json:
        io.stdout.write(_dump(g.to_dict()) + "\n")
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
    _add_game(p, "cribbage")
    p.add_argument("--crib", action="store_true", help="count every crib/pocket instead of every hand")
    p.add_argument("--json", action="store_true", help='print {"hands": N, "counts": {...}, "mean": x}')


def _run_stats(args: argparse.Namespace, io: Streams) -> int:
    from .stats import distribution      # only this command needs it (not `landsend serve`'s start-up)
    rules = _rules(args.game, _options(args.option))
    bar = _ProgressBar(io.stderr, f"counting {rules.name}")
    try:
        d = distribution(rules, crib=args.crib, progress=bar)
    finally:
        bar.close()
    if args.json:
        io.stdout.write(_dump(d.to_dict()) + "\n")
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
    parser = _Parser(prog=PROG, description="Land's End table companion: scoring and tools.",
                     epilog=f"`{PROG} serve` runs the table daemon (installed with the firmware).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
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

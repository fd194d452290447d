"""The console's shared pieces: what every ``landsend`` subcommand module builds on (:mod:`companion.cli` and its
subcommands, :mod:`companion.advice.discard_cli`, :mod:`companion.advice.pegging_cli`,
:mod:`companion.season_cli`, :mod:`firmware.cli`). It imports none of them, so the console has no import circle:
the subcommand modules import this, and :mod:`companion.cli` lists them.

>>> card_tokens(["5H,5S", "JC"])
['5H', '5S', 'JC']
>>> house_options(["zero_bonus_pocket=true", "stake=2"])
{'zero_bonus_pocket': True, 'stake': 2}
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import IO, Any, Callable, Iterable

from .errors import RulesError, UnknownGame
from .rulesets import RULESETS, Ruleset, get_ruleset

__all__ = ["PROG", "EXIT_RULES", "EXIT_USAGE", "Streams", "Subcommand", "UsageError", "Parser", "card_tokens",
           "option_value", "house_options", "ruleset_from", "add_game_args", "to_json", "answer_lines", "card_list"]

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


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of printing usage and exiting."""

    def error(self, message: str):  # noqa: D401 - argparse hook
        raise UsageError(f"{self.prog}: {message}")


# --- helpers ---------------------------------------------------------------------------


def card_tokens(args: Iterable[str]) -> list[str]:
    """Return card tokens, splitting arguments written like ``5H,5S`` too."""
    out: list[str] = []
    for a in args:
        out.extend(a.replace(",", " ").split())
    return out


def option_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def house_options(pairs: Iterable[str] | None) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    for pair in pairs or ():
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise UnknownGame(f"an option is written KEY=VALUE, not {pair!r}")
        opts[key.strip().replace("-", "_")] = option_value(value.strip())
    return opts


def ruleset_from(game: Any, options: Any = None) -> Ruleset:
    if not isinstance(game, str):
        raise UnknownGame(f"game must be a preset name, not {game!r}")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise UnknownGame(f"options must be an object of house rules, not {options!r}")
    return get_ruleset(game, **options)


def add_game_args(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument("--game", "-g", default=default, metavar="PRESET",
                        help=f"the game (default {default}); one of: {', '.join(RULESETS)}")
    parser.add_argument("--option", "-o", action="append", metavar="KEY=VALUE",
                        help="a house rule, e.g. -o zero_bonus_pocket=true (repeatable)")


def to_json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def answer_lines(io: Streams, handle: Callable[[dict], dict], fields: set[str]) -> int:
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
        io.stdout.write(to_json(out) + "\n")
        io.stdout.flush()
    if bad:
        io.stderr.write(f"{PROG}: {bad} of {lines} lines refused (see their \"error\")\n")
        return EXIT_RULES
    return 0


def card_list(value: Any, what: str) -> list:
    if isinstance(value, str):
        return card_tokens([value])
    if not isinstance(value, list):
        raise RulesError(f"{what} must be a list of cards, not {value!r}")
    return value

"""Replaying a game record: on a fresh in-memory table, or as the current match of a table.

The record format, both halves (export from a table's state, and the commands a
record turns into), is :mod:`companion.record`; this module runs those commands on
a :class:`~companion.table.Table` and says how the game went. ``landsend replay``
is its command.
"""

from __future__ import annotations

import logging
from typing import Callable

from .errors import IllegalAction, RulesError
from .record import _Driver, result_of

log = logging.getLogger(__name__)


def _replay_table(record: dict, on_step: Callable[[str, dict], None] | None = None, **table_kwargs):
    """Return ``(table, error)``: ``record`` replayed on a fresh in-memory table, ``error`` None when valid."""
    from .table import Table
    table = Table.memory(default_match=None, **table_kwargs)
    error = None
    try:
        _Driver(table, record, on_step).run()
    except RulesError as exc:
        error = str(exc)
    except Exception as exc:  # a record no check foresaw must still get an answer, not a crash
        log.exception("replay failed")
        error = f"the record could not be replayed ({type(exc).__name__}: {exc})"
    return table, error


def replay(record: dict, *, on_step: Callable[[str, dict], None] | None = None) -> dict:
    """Return the result of replaying ``record`` on a fresh in-memory table.

    ``{"valid", "error" (when invalid), "finished", "scores", "winner", "loser",
    "ended_at": {"hand", "phase"}, "multipliers", "settlement", "hands": [...]}``;
    sides are named by player, or ``team1``/``team2`` for partnerships. ``winner``
    and ``loser`` are one side or the list of every side that receives / pays
    (RULINGS R1); ``multipliers`` is keyed by the receiving side (R2). An
    invalid record stops at its first wrong step: ``error`` says which and why,
    and the other fields describe the game up to that step.
    """
    table, error = _replay_table(record, on_step)
    return result_of(table, error)


def import_record(table, record: dict) -> dict:
    """Make ``record`` the current match of ``table``; return the replay result.

    The record is replayed on a scratch table first; only a valid record is
    then adopted, every event at once (:meth:`companion.table.Table.adopt`), so
    a refused record leaves the current match exactly as it was.

    :raises RulesError: the first wrong step of the record and why; nothing changes.
    """
    scratch, error = _replay_table(record, rng=table.rng, clock=table.clock)
    if error is not None:
        raise IllegalAction(f"the record is not valid: {error}")
    table.adopt(scratch)
    return result_of(table)


def format_result(result: dict) -> str:
    """Return a replay result as the lines ``landsend replay`` prints."""
    lines: list[str] = []
    for hand in result.get("hands", []):
        lines.append(f"Hand {hand['hand']}")
        for st in hand["steps"]:
            who = st.get("player")
            head = f"{who} {st['card']}: " if st.get("card") else (f"{who}: " if who else "")
            credit = f" -> {st['credited']} +{st['points']} = {st['score']}" if st["points"] else ""
            lines.append(f"  [{st['kind']}] {head}{st['text']}{credit}")
            if st["kind"] in ("show", "pocket", "line", "crib"):
                for it in st.get("items", []):
                    if "cards" in it:
                        lines.append(f"      {it['kind']}: {' '.join(it['cards'])} ({it['points']})")
    lines.append("Scores: " + ", ".join(f"{k} {v}" for k, v in result.get("scores", {}).items()))
    if result.get("finished"):
        end = result["ended_at"]
        who = []
        for key in ("winner", "loser"):
            names = result.get(key)
            if names:
                names = names if isinstance(names, list) else [names]
                who.append(f"{key}{'s' if len(names) > 1 else ''} {' and '.join(names)}")
        lines.append(f"Game over in hand {end['hand']} ({end['phase']}): " + ", ".join(who))
        lines.append("Multipliers: " + ", ".join(f"{k} x{v}" for k, v in result["multipliers"].items()))
        lines.append("Settlement: " + ", ".join(f"{k} {v:+}" for k, v in result["settlement"].items()))
    else:
        lines.append("The game is not finished.")
    if not result.get("valid"):
        lines.append(f"INVALID: {result.get('error')}")
    return "\n".join(lines)


# --- the ``landsend replay`` command --------------------------------------------------------

def configure_cli(parser) -> None:
    parser.add_argument("record", help="a game record (JSON file, or - for stdin)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run_cli(args, io) -> int:
    import json
    try:
        text = io.stdin.read() if args.record == "-" else open(args.record, encoding="utf-8").read()
    except OSError as exc:
        io.stderr.write(f"landsend: cannot read {args.record}: {exc.strerror or exc}\n")
        return 2
    try:
        record = json.loads(text)
    except ValueError as exc:
        io.stderr.write(f"landsend: {args.record} is not JSON: {exc}\n")
        return 1
    result = replay(record)
    if args.json:
        keys = ("valid", "error", "finished", "scores", "winner", "loser", "ended_at", "multipliers",
                "settlement", "hands")
        io.stdout.write(json.dumps({k: result[k] for k in keys if k in result}, ensure_ascii=False) + "\n")
    else:
        io.stdout.write(format_result(result) + "\n")
        if not result["valid"]:
            io.stderr.write(f"landsend: error: {result['error']}\n")
    return 0 if result["valid"] else 1

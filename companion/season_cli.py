"""``landsend season``: the night and the season of a table's database, in the console.

>>> import io, tempfile, os
>>> from companion.cli import main
>>> with tempfile.TemporaryDirectory() as d:
...     main(["season", "--db", os.path.join(d, "none.db")], stderr=io.StringIO())
1
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .console import Subcommand
from .errors import IllegalAction
from .season import Season, night_csv, season_csv
from .store import SQLiteStore


def _configure(parser) -> None:
    parser.add_argument("--db", metavar="FILE", help="the table's database (default: $LANDSEND_DB)")
    parser.add_argument("--night", type=int, metavar="N", help="this night (1 = the first; default: the last)")
    parser.add_argument("--player", metavar="NAME", help="this player's season only")
    parser.add_argument("--json", action="store_true", help='print {"night": ..., "season": ...} as JSON')
    parser.add_argument("--csv", choices=("night", "season"), help="print the night or the season as CSV")


def _signed(v) -> str:
    return f"{v:+g}" if v else "0"


def _n(k: int, what: str) -> str:
    return f"{k} {what}{'' if k == 1 else 's'}"


def format_text(night: dict, season: dict) -> str:
    """Return the night and the season as the lines ``landsend season`` prints."""
    lines = []
    if night["night"] is None:
        return "No game has been played at this table yet.\n"
    state = "settled" if night["settled"] else "open"
    lines.append(f"Night {night['night']} of {night['nights']} ({night['start'][:10]}, {state}): "
                 f"{_n(sum(g['finished'] for g in night['games']), 'game')}")
    for p in night["players"]:
        lines.append(f"  {p['name']:<16} {_signed(p['money']):>8}   {p['games']} games, {p['wins']} won, "
                     f"{p['losses']} lost")
    if night["payments"]:
        lines.append("Settle up: " + "; ".join(f"{p['from']} pays {p['to']} {p['amount']:g}" for p in night["payments"]))
    else:
        lines.append("Settle up: nobody owes anything")
    lines.append("")
    lines.append(f"Season: {_n(len(season['nights']), 'night')}")
    lines.append(f"  {'player':<16} {'money':>8} {'nights':>6} {'games':>5} {'won':>4} {'lost':>4} {'skunks':>7} "
                 f"{'hand':>5} {'pocket':>6} {'best':>4} {'29s':>3} {'zeros':>5}")
    for p in season["players"]:
        best = p["best_hand"]["points"] if p["best_hand"] else "-"
        lines.append(f"  {p['name']:<16} {_signed(p['money']):>8} {p['nights']:>6} {p['games']:>5} {p['wins']:>4} "
                     f"{p['losses']:>4} {str(p['skunks_won']) + '/' + str(p['skunked']):>7} "
                     f"{'-' if p['average_hand'] is None else p['average_hand']:>5} "
                     f"{'-' if p['average_pocket'] is None else p['average_pocket']:>6} {best:>4} "
                     f"{p['twenty_nines']:>3} {p['zero_hands']:>5}")
    return "\n".join(lines) + "\n"


def _run(args, io) -> int:
    path = args.db or os.environ.get("LANDSEND_DB")
    if not path:
        raise IllegalAction("which database? give --db FILE (or set LANDSEND_DB)")
    if not Path(path).is_file():
        raise IllegalAction(f"no table database at {path}")
    store = SQLiteStore(path)
    try:
        seasons = Season(store)
        try:
            night = seasons.night(args.night)
            season = seasons.season(args.player)
        except ValueError as exc:
            raise IllegalAction(str(exc)) from exc
    finally:
        store.close()
    if args.csv == "night":
        io.stdout.write(night_csv(night))
    elif args.csv == "season":
        io.stdout.write(season_csv(season))
    elif args.json:
        io.stdout.write(json.dumps({"night": night, "season": season}) + "\n")
    else:
        io.stdout.write(format_text(night, season))
    return 0


SEASON = Subcommand("season", "the night's standing and settle-up, and the season per player", _configure, _run)

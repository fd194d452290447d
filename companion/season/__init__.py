"""The night and the season: every game the table has kept, per player, and who pays whom tonight.

Three layers, each a plain function of values:

* :func:`summarize_match` folds one match's stored events once into what the
  views need (each game's sides, result and money, its score race hand by
  hand, every show and pocket; the host's events). A match that is over is
  summarised once and the summary kept in the store (:meth:`Season.summaries`),
  so a view reads one row per match and refolds nothing.
* :func:`group_nights` cuts the games into nights: a night is the games of one
  sitting, from the first game after a break of :data:`BREAK_HOURS` or more,
  or after the host's ``new_evening``; marking a night settled (``settle``)
  closes it, so the next game starts another.
* :func:`settle_up` says who pays whom in the fewest payments (exact), and
  :func:`night_report` / :func:`season_report` give the figures per player
  (players as people: :mod:`companion.players`).

The package, by concern: :mod:`.summary` (one match's summary), :mod:`.nights`, :mod:`.settle` (who pays
whom: small and pure), :mod:`.reports` (the night, the season per player, a game's race), :mod:`.store` (the
kept store: :class:`Season`), :mod:`.csvfile`. Their public names are all here.

Money is counted exactly (fractions: a partnership's stake is split between
its two players) and written as numbers with at most the cents the stakes make.
"""

from .csvfile import NIGHT_CSV, SEASON_CSV, night_csv, season_csv
from .nights import BREAK_HOURS, Nights, group_nights
from .reports import Tally, night_report, race, season_report
from .settle import EXACT_UP_TO, settle_up
from .store import BATCH, Season
from .summary import HOST_EVENTS, SUMMARY_VERSION, money, summarize_match

__all__ = ["BATCH", "BREAK_HOURS", "EXACT_UP_TO", "HOST_EVENTS", "NIGHT_CSV", "Nights", "SEASON_CSV", "SUMMARY_VERSION",
           "Season", "Tally", "group_nights", "money", "night_csv", "night_report", "race", "season_csv",
           "season_report", "settle_up", "summarize_match"]

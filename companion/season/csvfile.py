"""The night and the season as CSV (the page's downloads, ``landsend season --csv``)."""

from __future__ import annotations

NIGHT_CSV = ("night", "date", "row", "player", "to", "amount", "games", "wins", "losses", "settled")
SEASON_CSV = ("player", "money", "nights", "games", "wins", "losses", "skunks_won", "skunked", "hands",
              "average_hand", "pockets", "average_pocket", "best_hand", "best_hand_cards", "twenty_nines", "zero_hands")


def _csv(header: tuple, rows: list[list]) -> str:
    import csv
    import io
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(header)
    w.writerows(["" if v is None else v for v in r] for r in rows)
    return out.getvalue()


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def night_csv(report: dict) -> str:
    """Return a night (:func:`night_report`) as CSV: a ``standing`` row per player (``amount`` won, + or -),
    then a ``payment`` row per payment (``player`` pays ``to`` the ``amount``)."""
    date = (report["start"] or "")[:10]
    rows = [[report["night"], date, "standing", p["name"], "", p["money"], p["games"], p["wins"], p["losses"],
             _yes(report["settled"])] for p in report["players"]]
    rows += [[report["night"], date, "payment", p["from"], p["to"], p["amount"], "", "", "", _yes(report["settled"])]
             for p in report["payments"]]
    return _csv(NIGHT_CSV, rows)


def season_csv(report: dict) -> str:
    """Return the season (:func:`season_report`) as CSV: a row per player."""
    rows = []
    for p in report["players"]:
        best = p["best_hand"] or {}
        cards = " ".join(best.get("cards") or []) + (f" / {best['starter']}" if best.get("starter") else "")
        rows.append([p["name"], p["money"], p["nights"], p["games"], p["wins"], p["losses"], p["skunks_won"],
                     p["skunked"], p["hands"], p["average_hand"], p["pockets"], p["average_pocket"],
                     best.get("points"), cards.strip(), p["twenty_nines"], p["zero_hands"]])
    return _csv(SEASON_CSV, rows)

"""Which phone belongs to which seat (issue 14: "Ann's phone").

A joined phone may say whose it is, when joining (``POST /api/join`` with
``seat``) or later (``POST /api/seat``). A card entered on Ann's phone without
picking a player is then Ann's card: the command goes to the table with
``player: "Ann"``, and the table treats it as it would at real cards (if Bob is
to play, Bob's go is implied only where Bob could not play; otherwise the card
is refused, saying that Bob is to play). A phone that belongs to nobody (one
phone entering for the whole table) keeps the usual flow.

One phone per seat, unless the host allows more (``shared``). Releasing the
table (the board's menu hold) frees every seat. A seat is a player's name; a
phone whose name is no longer at the table (a new match with other players)
belongs to nobody there.

The seats are kept in the table's database (its ``meta`` row ``web.seats``, beside
the access state of :mod:`web.security`), so a power cut keeps Ann's phone on Ann's
seat. Each change is stored before it takes effect: one that cannot be stored raises
:class:`~companion.errors.StoreError` and changes nothing.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from companion.store import MemoryStore

log = logging.getLogger(__name__)

SEATS_STATE = "web.seats"


class SeatTaken(ValueError):
    """Another phone already belongs to that seat (and the host allows one phone per seat)."""


class Seats:
    """The seat of each phone (by device id), thread-safe; kept in ``store``'s meta (None: in memory).

    ``epoch`` is the access epoch the seats belong to: seats stored under another epoch (the
    table was released) are not taken back."""

    def __init__(self, store: Any = None, epoch: int = 1) -> None:
        self.store = store if store is not None else MemoryStore()
        self._lock = threading.Lock()
        self.epoch = epoch
        self._by_device: dict[str, str] = {}
        self.shared = False
        raw = self.store.get_meta(SEATS_STATE)
        if raw is not None:
            try:
                data = json.loads(raw)
                if int(data["epoch"]) == epoch:
                    self._by_device = {d: s for d, s in data["by_device"].items()
                                       if isinstance(d, str) and isinstance(s, str)}
                    self.shared = data.get("shared") is True
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                log.warning("ignoring unreadable seats in the table database: %s", exc)

    def _change(self, what: str, by_device: dict[str, str], shared: bool, epoch: "int | None" = None) -> None:
        """Store the seats, then take them (under the lock); unchanged if they cannot be stored."""
        epoch = self.epoch if epoch is None else epoch
        self.store.put_meta(SEATS_STATE, json.dumps({"epoch": epoch, "by_device": by_device, "shared": shared}),
                            what=what)
        self._by_device, self.shared, self.epoch = by_device, shared, epoch

    def allow_shared(self, shared: bool) -> None:
        """Allow (or not) more than one phone per seat (the host's choice)."""
        with self._lock:
            self._change("whether phones may share a seat", dict(self._by_device), bool(shared))

    def seat_of(self, device: str, players: "list[str] | None" = None) -> "str | None":
        """Return the seat of ``device``; None when it has none or (given ``players``) it is not at the table."""
        seat = self._by_device.get(device)
        if seat is None or players is None:
            return seat
        return next((p for p in players if p.lower() == seat.lower()), None)

    def taken(self, players: list[str]) -> dict[str, int]:
        """Return how many phones belong to each seat at the table."""
        out = {p: 0 for p in players}
        for seat in list(self._by_device.values()):
            for p in players:
                if p.lower() == seat.lower():
                    out[p] += 1
        return out

    def take(self, device: str, seat: "str | None", players: list[str], *, dry: bool = False,
             shared: "bool | None" = None) -> "str | None":
        """Make ``device`` ``seat``'s phone (None: nobody's); return the seat as the table spells it.
        ``dry``: only check that it could. ``shared`` (the host's choice, None: unchanged) is checked
        and stored with the seat, in one change: a refused seat leaves the sharing as it was (D8).

        :raises ValueError: ``seat`` is not a player's name at the table.
        :raises SeatTaken: another phone already belongs to that seat and the host allows one.
        """
        if seat is None:
            if not dry:
                with self._lock:
                    rest = {d: s for d, s in self._by_device.items() if d != device}
                    now = self.shared if shared is None else bool(shared)
                    if rest != self._by_device or now != self.shared:
                        self._change("the phone's seat", rest, now)
            return None
        if not isinstance(seat, str) or not seat.strip():
            raise ValueError("seat is a player's name, or null for a phone that belongs to nobody")
        name = next((p for p in players if p.lower() == seat.strip().lower()), None)
        if name is None:
            raise ValueError(f"{seat.strip()!r} is not playing; the players are {', '.join(players)}")
        with self._lock:
            now = self.shared if shared is None else bool(shared)
            if not now:
                other = [d for d, s in self._by_device.items() if d != device and s.lower() == name.lower()]
                if other:
                    raise SeatTaken(f"another phone is already {name}'s: only one phone per seat "
                                    f"unless the host allows more")
            if not dry and (self._by_device.get(device) != name or now != self.shared):
                self._change("the phone's seat", {**self._by_device, device: name}, now)
        return name

    def rename(self, old: str, new: str) -> None:
        """Make the phones of seat ``old`` the seat ``new`` (the host renamed or merged the player, issue 27)."""
        with self._lock:
            moved = {d: (new if s.lower() == old.lower() else s) for d, s in self._by_device.items()}
            if moved != self._by_device:
                self._change("the renamed player's seats", moved, self.shared)

    def clear(self, epoch: "int | None" = None) -> None:
        """Free every seat (the table was released; ``epoch``: the new access epoch)."""
        with self._lock:
            self._change("the freed seats", {}, False, epoch)


def follow_names(table: Any, seats: Seats):
    """Subscribe the seats to ``table``: when the players of the match in play change names (the host's rename or
    merge, or an undo of either, from a phone, the board's undo button or a replay alike), the phones seated
    as the old name are seated as the new one, without picking their seat anew. Returns the unsubscribe.

    It reads the states the stored events fold to: the same match, the same seats, a name changed in place.
    Subscribers are called outside the table's lock, so two states may come out of order: an older one than
    the last seen is passed over (the next compares with the newest)."""
    snap = table.snapshot()
    last = {"seq": snap.get("seq", -1), "match": snap.get("match_id"), "players": list(snap.get("players") or [])}
    lock = threading.Lock()

    def on_state(snapshot: dict) -> None:
        with lock:
            if snapshot.get("seq", -1) <= last["seq"]:
                return
            match, players = snapshot.get("match_id"), list(snapshot.get("players") or [])
            if match == last["match"] and len(players) == len(last["players"]):
                for old, new in zip(last["players"], players):
                    if old != new:
                        seats.rename(old, new)
            last.update(seq=snapshot.get("seq", -1), match=match, players=players)
    return table.subscribe(on_state)


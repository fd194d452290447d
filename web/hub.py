"""The page's link to the table: ``app.extensions["landsend"]``.

One :class:`Hub` per app holds what the daemon passed in (table, board,
buttons, faults) and what the web side owns (access state, join limiter, SSE
broadcaster). The daemon calls :meth:`Hub.release` when the board's menu
button is held.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from .live import Broadcaster, StreamSlots
from .security import Access, JoinLimiter

log = logging.getLogger(__name__)


class Hub:
    """The table, board, buttons and faults of one app, with its access state and broadcaster."""

    def __init__(self, table: Any, *, board: Any = None, buttons: Any = None,
                 faults: "list[str] | None" = None, access: Access, limiter: JoinLimiter,
                 owns_table: bool = False) -> None:
        self.table = table
        self.board = board
        self.buttons = buttons
        self.faults = faults if faults is not None else []
        self.access = access
        self.limiter = limiter
        self.broadcaster = Broadcaster()
        self.slots = StreamSlots()
        self.owns_table = owns_table
        self._unsubscribe: Callable[[], None] | None = table.subscribe(self._on_state)
        access.on_change(self._on_access)
        self.broadcaster.publish("state", table.snapshot())

    def _on_state(self, snapshot: dict) -> None:
        self.broadcaster.publish("state", snapshot)

    def _on_access(self, epoch: int) -> None:
        self.broadcaster.publish("access", {"epoch": epoch, "claimed": self.access.claimed})

    def release(self) -> int:
        """Return the new access epoch after making every phone read-only (the board's menu hold).

        The next phone to claim the table becomes the host with a new join
        code; open pages are told through the ``access`` SSE event.
        """
        return self.access.release()

    def close(self) -> None:
        """End the SSE streams, unsubscribe from the table, and close it if the app opened it."""
        self.broadcaster.close()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.owns_table:
            self.table.close()

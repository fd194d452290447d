"""A look every so often, on a daemon thread: the board's watches (:class:`firmware.wifi.LinkWatch`,
:class:`firmware.mdns.NameWatch`) share it."""

from __future__ import annotations

import logging
import threading
from typing import Callable

log = logging.getLogger(__name__)


def every(period: float, check: Callable[[], "str | None"], *, name: str, stop: threading.Event,
          first_now: bool = False) -> threading.Thread:
    """Start a daemon thread that calls ``check()`` every ``period`` seconds (first at once with ``first_now``)
    until ``stop`` is set, logging what it returns as a warning; one look that raises is logged and the
    watch goes on."""
    def run() -> None:
        if not first_now and stop.wait(period):
            return
        while True:
            try:
                said = check()
            except Exception:                       # the watch never dies of one bad look
                log.exception("%s", name)
                said = None
            if said:
                log.warning("%s", said)
            if stop.wait(period):
                return
    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread

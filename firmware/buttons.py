"""The board's push buttons: one per side and a menu button; they only submit table commands.

Wiring: each button connects its BCM pin to ground; the pin's internal
pull-up holds it high. Each button is a gpiozero
``DigitalInputDevice(pin, pull_up=True)``: that is gpiozero's ``Button``
without its hold thread, which polls ten times a second per button even when
nothing happens (we time holds ourselves, from the edges), so an idle board
costs no CPU.

================  =====================  ==========================================
button            released after < hold  released after >= hold (default 1 s)
================  =====================  ==========================================
``p1``-``p3``     peg 1 for its lane     undo the last event
``menu``          next brightness step   new game (same settings); >= 5 s: release
                                         the table (every phone must join again);
                                         >= 10 s: bring the board's own Wi-Fi back
                                         (``on_hotspot``; the table is not released)
================  =====================  ==========================================

Button ``pN`` is the button of **lane** ``N``, not of player N: it sits at
the start of lane ``N`` and pegs the side that plays on that lane
(``{"type": "peg", "side": <side id>, "points": 1}``): in a two-hand game
the sides sit on lanes 1 and 3, so ``p1`` and ``p3`` peg and ``p2`` (the
empty middle lane) is refused: a log line, the middle lane blinks red
(``on_refused``), nothing changes; in three-hand and casino play ``p2`` pegs
the third side or the house. The daemon passes ``side_for_lane``, which reads the table's current
sides; without it lane ``N`` pegs side index ``N-1``. A press is classified
when the button is released, so a long hold never triggers a short action
on the way.

Debounce is done here, not by gpiozero (whose mock pins ignore
``bounce_time``): an edge closer than ``debounce_s`` to the last accepted edge
of the same button is contact bounce and ignored, so a bouncing contact
pegs once. All timing comes from the injected ``clock``.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from companion.errors import StoreError

log = logging.getLogger(__name__)

SIDE_BUTTONS = ("p1", "p2", "p3")
MENU = "menu"
SHORT_PRESS_S = 0.1
"""How long :meth:`ButtonPanel.press` holds a simulated short press."""


class SimClock:
    """A monotonic clock that simulated presses can move forward (never backwards).

    :param base: the real clock it follows, ``time.monotonic`` by default.
    """

    def __init__(self, base: Callable[[], float] = time.monotonic):
        self._base = base
        self._offset = 0.0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        """Return the current time in seconds."""
        with self._lock:
            return self._base() + self._offset

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward.

        :raises ValueError: ``seconds`` is negative.
        """
        if seconds < 0:
            raise ValueError(f"a monotonic clock cannot go back ({seconds} s)")
        with self._lock:
            self._offset += seconds


@dataclass
class _State:
    accepted_at: float = float("-inf")
    down_at: float | None = None


SIM_PIN_HISTORY = 8
"""States a simulated pin keeps (gpiozero's ``MockPin.states``; the last press's edges stay visible)."""


class ButtonPanel:
    """The side buttons and the menu button on gpiozero input devices (pulled up, active low).

    :param pins: BCM pin per button name (``p1``, ``p2``, ``p3``, ``menu``; any may be left out).
    :param submit: called with each command dict (``table.submit``); its errors are logged, not raised.
    :param pin_factory: gpiozero pin factory (``MockFactory()`` in the simulator); gpiozero's default when None.
    :param clock: seconds, monotonic; ``time.monotonic`` by default.
    :param hold_s: a press at least this long is a hold, default 1.0 s.
    :param release_s: a menu hold at least this long releases the table, default 5.0 s.
    :param debounce_s: edges closer than this to the last accepted edge are ignored, default 0.03 s.
    :param hotspot_s: a menu hold at least this long brings the board's own Wi-Fi back, default 10.0 s.
    :param on_release: called (no arguments) when the menu button is held ``release_s`` (but under ``hotspot_s``).
    :param on_hotspot: called (no arguments) when the menu button is held ``hotspot_s``; without it such a
        hold releases the table.
    :param on_menu_press: called (no arguments) on a short menu press (the daemon steps the brightness).
    :param side_for_lane: returns the side (id or index) playing on lane 1..3, or None for an empty lane;
        default: side index ``lane - 1``.
    :param on_refused: called with the lane (1..3) when its button is pressed and no side plays there
        (the daemon blinks that lane red: :meth:`firmware.render_loop.RenderLoop.refuse`).
    :param on_store_fault: called with the lane (1..3, None for the menu button) and the
        :class:`~companion.errors.StoreError` when a press cannot be stored (a full disk): nothing
        changed, and the daemon blinks the lane red and shows the fault on every page.
    :raises gpiozero.GPIOZeroError: a pin cannot be claimed (the daemon reports it as a fault).
    """

    def __init__(self, pins: Mapping[str, int], submit: Callable[[dict], Any], *, pin_factory: Any = None,
                 clock: Callable[[], float] = time.monotonic, hold_s: float = 1.0, release_s: float = 5.0,
                 debounce_s: float = 0.03, on_release: Callable[[], Any] | None = None,
                 hotspot_s: float = 10.0, on_hotspot: Callable[[], Any] | None = None,
                 on_menu_press: Callable[[], Any] | None = None,
                 side_for_lane: Callable[[int], Any] | None = None,
                 on_refused: Callable[[int], Any] | None = None,
                 on_store_fault: Callable[["int | None", StoreError], Any] | None = None):
        from gpiozero import DigitalInputDevice

        unknown = set(pins) - set(SIDE_BUTTONS) - {MENU}
        if unknown:
            raise ValueError(f"unknown button names: {', '.join(sorted(unknown))}")
        self.submit = submit
        self.clock = clock
        self.hold_s = hold_s
        self.release_s = release_s
        self.debounce_s = debounce_s
        self.on_release = on_release
        self.hotspot_s = hotspot_s
        self.on_hotspot = on_hotspot
        self.on_menu_press = on_menu_press
        self.side_for_lane = side_for_lane or (lambda lane: lane - 1)
        self.on_refused = on_refused
        self.on_store_fault = on_store_fault
        self._failure: StoreError | None = None     # what the press being simulated could not store
        self._lock = threading.Lock()
        self._press_lock = threading.Lock()
        self._state = {name: _State() for name in pins}
        self._last: dict[str, dict | None] = {name: None for name in pins}
        self.buttons: dict[str, Any] = {}
        try:
            for name, pin in pins.items():
                button = DigitalInputDevice(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                button.when_activated = self._callback(name, down=True)
                button.when_deactivated = self._callback(name, down=False)
                self.buttons[name] = button
        except Exception:
            self.close()
            raise

    def _callback(self, name: str, *, down: bool) -> Callable[[], None]:
        def callback() -> None:
            self.edge(name, down=down)
        return callback

    def edge(self, name: str, *, down: bool) -> dict | None:
        """Handle one edge of button ``name``; return the command submitted (or None).

        Called by gpiozero for every edge; tests may call it directly.
        """
        now = self.clock()
        with self._lock:
            st = self._state[name]
            if now - st.accepted_at < self.debounce_s:
                return None
            st.accepted_at = now
            if down:
                st.down_at = now          # a press after a missed release restarts the press
                return None
            if st.down_at is None:
                return None
            held = now - st.down_at
            st.down_at = None
        command = self._act(name, held)
        self._last[name] = command
        return command

    def _act(self, name: str, held: float) -> dict | None:
        if name == MENU:
            if held >= self.hotspot_s and self.on_hotspot is not None:
                log.info("menu held %.1f s: bringing the board's own Wi-Fi back", held)
                self.on_hotspot()
                return None
            if held >= self.release_s:
                log.info("menu held %.1f s: releasing the table", held)
                if self.on_release is not None:
                    try:
                        self.on_release()
                    except StoreError as exc:      # not stored: refused, the host keeps the table
                        self._store_failed(None, exc)
                return None
            if held >= self.hold_s:
                return self._submit({"type": "new_game"}, None)
            if self.on_menu_press is not None:
                self.on_menu_press()
            return None
        lane = SIDE_BUTTONS.index(name) + 1
        if held >= self.hold_s:
            return self._submit({"type": "undo"}, lane)
        side = self.side_for_lane(lane)
        if side is None:
            log.warning("button %s (lane %d): no side plays on this lane: nothing pegged, the lane flashes red",
                        name, lane)
            if self.on_refused is not None:
                self.on_refused(lane)
            return None
        return self._submit({"type": "peg", "side": side, "points": 1}, lane)

    def _submit(self, command: dict, lane: "int | None") -> dict:
        try:
            self.submit(command)
        except StoreError as exc:  # valid, but the table could not store it: a fault, not a rule
            self._store_failed(lane, exc)
        except Exception as exc:  # a refused command (RulesError) must not kill the GPIO thread
            log.warning("button command %s refused: %s", command, exc)
        return command

    def _store_failed(self, lane: "int | None", exc: StoreError) -> None:
        log.error("button press not stored (lane %s): %s", lane, exc)
        self._failure = exc
        if self.on_store_fault is not None:
            try:
                self.on_store_fault(lane, exc)
            except Exception:
                log.exception("on_store_fault failed")

    def press(self, name: str, *, hold: bool = False, seconds: float | None = None) -> dict | None:
        """Press simulated button ``name`` and let go; return the command it submitted (or None).

        Drives the button's mock pin low, moves the :class:`SimClock` on by the
        press length (:data:`SHORT_PRESS_S`, ``hold_s`` + 0.1 when ``hold``, or
        ``seconds``), drives it high, then moves past the debounce time.

        :raises ValueError: no such button.
        :raises RuntimeError: the pins are not simulated, or the clock cannot be advanced.
        :raises StoreError: what the press did could not be stored (after ``on_store_fault`` heard it).
        """
        if name not in self.buttons:
            raise ValueError(f"unknown button {name!r} (known: {', '.join(self.buttons)})")
        advance = getattr(self.clock, "advance", None)
        pin = self.buttons[name].pin
        if advance is None or not hasattr(pin, "drive_low"):
            raise RuntimeError("press() needs simulated pins (MockFactory) and a SimClock")
        length = seconds if seconds is not None else (self.hold_s + 0.1 if hold else SHORT_PRESS_S)
        with self._press_lock:
            self._last[name] = None
            self._failure = None
            advance(self.debounce_s)
            pin.drive_low()
            advance(length)
            pin.drive_high()
            advance(self.debounce_s)
            # gpiozero's mock pin records every state it was driven to, forever: a --sim board pressed
            # from the page all evening grew by two records a press (issue 18: memory grew with the match)
            states = getattr(pin, "states", None)
            if isinstance(states, list) and len(states) > SIM_PIN_HISTORY:
                del states[:-SIM_PIN_HISTORY]
            failure, self._failure = self._failure, None
            if failure is not None:
                raise failure
            return self._last[name]

    def close(self) -> None:
        """Release every pin (idempotent)."""
        for button in self.buttons.values():
            button.close()
        self.buttons = {}

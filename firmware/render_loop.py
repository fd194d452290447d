"""The one render loop: a static frame per new state, animations at a steady rate, asleep otherwise.

:meth:`RenderLoop.update` (subscribed to the table) hands over the newest
snapshot and wakes the thread. The thread draws one frame for it and goes
back to waiting on a condition variable, so a static board costs no CPU.
Only while a peg-out animation or a refusal flash (:meth:`RenderLoop.refuse`)
runs does it wake every ``1/fps`` seconds.
A snapshot that arrives during an animation is drawn at once; if several
arrive between two frames only the newest is drawn.

The peg-out animation starts when a snapshot with a ``result`` follows one
without; a board that starts up on a finished game (after a restart or a
power cut) shows the settled final board, exactly the stored state.

The loop is also the ``board`` the web app reads: :meth:`frame_json` is the
body of ``GET /api/board`` and of the stream's ``board`` events, pushed to the
pages after every frame drawn (:meth:`subscribe`).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable, Mapping

from firmware.drivers import Strip
from firmware.frame import Frame
from firmware.geometry import Geometry, side_lanes
from firmware.render import PALETTES, REFUSED_S, STANDARD, Light, Palette, animation_length, render

log = logging.getLogger(__name__)


def starts_peg_out(previous: Mapping[str, Any] | None, current: Mapping[str, Any]) -> bool:
    """Return True when ``current`` is the first snapshot of a finished game after ``previous``.

    >>> starts_peg_out({"match_id": "m", "result": None}, {"match_id": "m", "result": {"loser": "p1"}})
    True
    >>> starts_peg_out(None, {"match_id": "m", "result": {"loser": "p1"}})
    False
    """
    return previous is not None and not previous.get("result") and bool(current.get("result"))


class RenderLoop:
    """Draws snapshots onto a strip from one thread.

    :param strip: an open :class:`~firmware.drivers.Strip`, or None (no strip: frames are
        still rendered for the web page).
    :param geometry: the board layout.
    :param settings: gamma, brightness and power budget.
    :param max_brightness: the limit live brightness changes are clamped to, 0..1.
    :param fps: animation frame rate, frames per second.
    :param clock: seconds, monotonic; injectable for tests.
    :param on_fault: called with a message the first time the strip fails to show a frame.
    :param palette: the board's colours (:data:`firmware.render.PALETTES`); changeable live.
    :param inline: draw a new snapshot on :meth:`update`'s caller when the board is still (False: always on
        the thread).
    """

    def __init__(self, strip: Strip | None, geometry: Geometry, settings: Light = Light(), *,
                 max_brightness: float = 1.0, fps: int = 30, clock: Callable[[], float] = time.monotonic,
                 on_fault: Callable[[str], None] | None = None, palette: Palette = STANDARD, inline: bool = True):
        self.strip = strip
        self.palette = palette
        self.geometry = geometry
        self.settings = settings
        self.max_brightness = max_brightness
        self.fps = fps
        self.clock = clock
        self.on_fault = on_fault
        self.frames = 0
        """Frames drawn so far."""
        self._cond = threading.Condition()
        self._pending: Mapping[str, Any] | None = None
        self._dirty = False
        self._stopping = False
        self._snapshot: Mapping[str, Any] | None = None
        self._anim_start: float | None = None
        self._frame = Frame.blank(geometry)
        self._frame_seq: int | None = None
        self._failed: str | None = None
        self._thread: threading.Thread | None = None
        self._waiting_since: float | None = None
        """When the oldest change not yet taken up by the thread arrived (None: nothing waits)."""
        self._drawing_since: float | None = None
        """When the step in progress started (None: not drawing)."""
        self._refused: tuple[int, float] | None = None
        """(lane, when) of the last press refused on an empty lane, while its flash runs."""
        self._watchers: list[Callable[[], None]] = []
        self._draw = threading.Lock()
        """Held while a step draws, on the thread or (update) on the caller's: one frame at a time."""
        self.inline = inline
        """Draw a new snapshot on :meth:`update`'s caller when the board is still (see there)."""

    # --- inputs (any thread) -----------------------------------------------------
    def update(self, snapshot: Mapping[str, Any]) -> None:
        """Take a new table snapshot: drawn at once on the caller's thread when the board is still (the thread
        is running, no animation or refusal flash is under way, no frame is being drawn), else handed over to
        the thread, which draws it.

        The board's static frame for a new state is thus drawn, shown and pushed to the watchers (the
        phones' ``board`` event) before the caller goes on to tell anyone else (the table calls the board
        first), with no hand-over to another thread in between: a press reaches the strip and the phones
        one thread switch sooner, and the phones get its state and its frame together (issue 38).
        """
        with self._cond:
            self._pending = snapshot
            self._dirty = True
            if self._waiting_since is None:
                self._waiting_since = self.clock()
            # a strip whose last frame failed is left to the thread: a write that times out (an SPI controller
            # that never answers: qemu's Pi, a broken board) must not hold up every press's answer
            inline = (self.inline and self._thread is not None and not self._stopping and self._anim_start is None
                      and self._refused is None and self._failed is None)
            if not inline:
                self._cond.notify()
                return
        if not self._draw.acquire(blocking=False):       # the thread is drawing: it draws this one next
            with self._cond:
                self._dirty = True
                self._cond.notify()
            return
        try:
            delay = self.step()
        finally:
            self._draw.release()
        if delay is not None:                            # an animation started (a peg-out): the thread runs it
            with self._cond:
                self._dirty = True
                self._cond.notify()

    def subscribe(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Call ``fn()`` (on the render thread) after every frame drawn; return the unsubscribe function.

        The web app pushes :meth:`frame_json` to the open pages this way, so no page polls the board.
        """
        with self._cond:
            self._watchers.append(fn)

        def unsubscribe() -> None:
            with self._cond:
                if fn in self._watchers:
                    self._watchers.remove(fn)
        return unsubscribe

    def refuse(self, lane: int) -> None:
        """Blink ``lane`` red (a button pressed where no side plays); the board is otherwise unchanged."""
        with self._cond:
            self._refused = (lane, self.clock())
            self._dirty = True
            if self._waiting_since is None:
                self._waiting_since = self.clock()
            self._cond.notify()

    @property
    def brightness(self) -> float:
        """Return the current brightness, 0..1 of full scale."""
        return self.settings.brightness

    def set_brightness(self, value: float) -> float:
        """Set the brightness (clamped to 0..``max_brightness``), redraw, and return the value used.

        :raises ValueError: ``value`` is not a number.
        """
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise ValueError(f"brightness must be a number from 0 to 1, got {value!r}")
        used = max(0.0, min(float(value), self.max_brightness))
        with self._cond:
            self.settings = Light(brightness=used, gamma=self.settings.gamma, budget_ma=self.settings.budget_ma,
                                  ma_per_channel=self.settings.ma_per_channel)
            self._dirty = True
            if self._waiting_since is None:
                self._waiting_since = self.clock()
            self._cond.notify()
        return used

    def step_brightness(self, steps: tuple[float, ...] = (0.1, 0.25, 0.5, 0.8, 1.0)) -> float:
        """Move to the next brightness in ``steps`` (wrapping, within the limit) and return it."""
        allowed = [s for s in steps if s <= self.max_brightness] or [self.max_brightness]
        now = self.settings.brightness
        nxt = next((s for s in allowed if s > now + 1e-9), allowed[0])
        return self.set_brightness(nxt)

    @property
    def palettes(self) -> tuple[str, ...]:
        """Return the names of the palettes :meth:`set_palette` accepts."""
        return tuple(PALETTES)

    def set_palette(self, name: str) -> str:
        """Switch the board (and so the page's mirror) to the palette ``name``, redraw, and return it.

        :raises ValueError: ``name`` is not one of :data:`firmware.render.PALETTES`.
        """
        if not isinstance(name, str) or name not in PALETTES:
            raise ValueError(f"palette must be one of {', '.join(PALETTES)}, got {name!r}")
        with self._cond:
            self.palette = PALETTES[name]
            self._dirty = True
            if self._waiting_since is None:
                self._waiting_since = self.clock()
            self._cond.notify()
        return name

    # --- outputs ---------------------------------------------------------------------
    @property
    def snapshot(self) -> Mapping[str, Any] | None:
        """Return the snapshot being drawn (set before the strip is given its frame)."""
        return self._snapshot

    @property
    def frame(self) -> Frame:
        """Return the frame last drawn."""
        with self._cond:
            return self._frame

    def frame_json(self) -> dict:
        """Return the body of ``GET /api/board``: the last frame plus what the page may show about it.

        Keys: ``lanes`` and ``status`` (docs/architecture.md), ``seq`` (the
        snapshot drawn), ``brightness``, ``gamma`` (to show LED values as they
        look: ``255 * (v/255) ** (1/gamma)``), ``current_ma`` (estimated draw),
        ``animating``, ``strip_ok``, ``palette`` (its name) and ``sides`` (``{"lane", "id", "name"}``
        per side, lane 1 first).
        """
        with self._cond:
            frame, seq = self._frame, self._frame_seq
            animating = self._anim_start is not None or self._refused is not None
            snap = self._snapshot or {}
        body = frame.to_json()
        try:
            lanes = side_lanes(snap.get("sides") or [], lanes=self.geometry.lanes)
        except ValueError:
            lanes = []
        # which side each lane shows, so the page labels the mirror's lanes and orders its panels the same way
        body["sides"] = sorted(({"lane": lane, "id": s.get("id"), "name": s.get("name")}
                                for s, lane in zip(snap.get("sides") or [], lanes)), key=lambda x: x["lane"])
        body.update(seq=seq, brightness=self.settings.brightness, gamma=self.settings.gamma,
                    current_ma=round(frame.current_ma(self.settings.ma_per_channel), 1),
                    animating=animating, strip_ok=self.strip is not None and self._failed is None,
                    palette=self.palette.name)
        return body

    # --- the loop ------------------------------------------------------------------------
    def step(self) -> float | None:
        """Draw what is due now; return the seconds until the next frame is due, or None when idle.

        The thread calls this; tests call it directly with a fake clock.
        """
        now = self.clock()
        with self._cond:
            pending, self._pending = self._pending, None
            dirty, self._dirty = self._dirty, False
            self._waiting_since = None
            self._drawing_since = now
            refused = None
            if self._refused is not None:
                lane, since = self._refused
                if now - since < REFUSED_S:
                    refused = (lane, now - since)
                else:
                    self._refused = None
                    dirty = True                  # the flash is over: draw the board without it
        if pending is not None:
            if starts_peg_out(self._snapshot, pending):
                self._anim_start = now
            elif not pending.get("result"):
                self._anim_start = None
            self._snapshot = pending
        if not dirty and self._anim_start is None and refused is None:
            with self._cond:
                self._drawing_since = None
            return None
        t = None
        if self._anim_start is not None and self._snapshot is not None:
            t = now - self._anim_start
            if t >= animation_length(self._snapshot, self.geometry):
                self._anim_start, t = None, None
        try:
            frame = render(self._snapshot, self.geometry, t, settings=self.settings, palette=self.palette,
                           refused=refused)
        except ValueError as exc:
            log.error("cannot draw this table on the board: %s", exc)
            frame = Frame.blank(self.geometry)
        self._show(frame)
        return 1.0 / self.fps if self._anim_start is not None or refused is not None else None

    def _show(self, frame: Frame) -> None:
        if self.strip is not None:
            try:
                self.strip.show(frame)
            except Exception as exc:  # a broken strip must not stop the page
                message = f"LED strip: {exc}"
                if message != self._failed:
                    log.error("%s", message)
                    if self.on_fault is not None:
                        self.on_fault(message)
                self._failed = message
            else:
                self._failed = None
        with self._cond:
            self._frame = frame
            self._frame_seq = (self._snapshot or {}).get("seq")
            self.frames += 1
            self._drawing_since = None
            watchers = list(self._watchers)
        for fn in watchers:
            try:
                fn()
            except Exception:  # a watcher's failure must not stop the board
                log.exception("frame watcher failed")

    def _run(self) -> None:
        delay: float | None = None
        due = self.clock()
        while True:
            with self._cond:
                if delay is None:
                    self._cond.wait_for(lambda: self._dirty or self._stopping)
                else:
                    due += delay
                    self._cond.wait_for(lambda: self._dirty or self._stopping, timeout=max(0.0, due - self.clock()))
                if self._stopping:
                    return
            with self._draw:
                delay = self.step()
            if delay is not None and due < self.clock() - delay:
                due = self.clock()        # fell behind (or just started): restart the cadence from now

    def start(self) -> None:
        """Start the render thread (draws the pending snapshot at once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="render-loop", daemon=True)
            self._thread.start()

    def stalled(self, limit: float) -> bool:
        """Return True when a change has waited, or a frame has been drawing, longer than ``limit`` seconds.

        The thread sleeps while the board is static, so being asleep is not
        a stall; a change it has not taken up, or a strip write that does not
        return (a hung SPI or DMA transfer), is. The daemon stops its
        watchdog pings then, and systemd restarts it.
        """
        now = self.clock()
        with self._cond:
            since = [t for t in (self._waiting_since, self._drawing_since) if t is not None]
        return any(now - t > limit for t in since)

    @property
    def alive(self) -> bool:
        """Return True while the render thread runs (the watchdog only pings while it does)."""
        return self._thread is not None and self._thread.is_alive()

    def stop(self, *, blank: bool = True) -> None:
        """Stop the thread; with ``blank`` (default) turn every LED off first."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        if blank:
            drawing = self._draw.acquire(timeout=2.0)      # a frame drawn on a caller's thread ends first
            try:
                self._show(Frame.blank(self.geometry))
            finally:
                if drawing:
                    self._draw.release()

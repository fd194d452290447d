"""Run a server of ``bench_press.py`` with a timeline of its press path recorded (``bench_press.py --trace``).

Usage (``bench_press.py`` builds these command lines)::

    python bench/press_trace.py OUT -m firmware.cli serve --sim ...     # the product
    python bench/press_trace.py OUT bench/anchor_app.py --port P ...     # the anchor

Before the server's code runs, the functions a press goes through are
wrapped so that each call notes ``(time.perf_counter_ns(), thread, what,
thread CPU ns)`` in memory, and the garbage collector's passes are noted
(``gc.callbacks``): waitress taking a request off a connection and queuing
it, a worker thread serving it and writing (the command's answer, a stream's
message), the table's submit, the store's transaction (its fdatasync
included), the table telling its subscribers, the broadcaster's publish (the
settling wait for the streams included), a stream waking up, the render
loop's step and the hub's frame push. At exit the notes are written to
``OUT`` (one JSON list per line). ``perf_counter`` is ``CLOCK_MONOTONIC``
here, the clock the bench stamps its presses with, so the two line up.

The wrappers cost a few microseconds per call: a traced run is for finding
where the slow presses waited (``bench_press.py --trace`` prints that), not
for the ratios. ``PRESS_TRACE_FINE=1`` in the environment also notes the
request's own steps (Flask's WSGI call, the session, the before-request
guards, the view, the client id's lookup, the rules' verify and apply, the
snapshot made for the subscribers).
"""

from __future__ import annotations

import atexit
import functools
import gc
import json
import runpy
import sys
import threading
import time

NOTES: list[tuple[int, str, str, int]] = []
_now = time.perf_counter_ns
_cpu = time.thread_time_ns


def note(what: str) -> None:
    NOTES.append((_now(), threading.current_thread().name, what, _cpu()))


def wrap(owner: type, name: str, label: str, *, detail=None) -> None:
    """Replace ``owner.name`` with a function noting ``label+`` on entry and ``label-`` on return."""
    fn = getattr(owner, name)

    @functools.wraps(fn)
    def traced(*args, **kw):
        what = label if detail is None else f"{label}:{detail(*args, **kw)}"
        note(what + "+")
        try:
            return fn(*args, **kw)
        finally:
            note(what + "-")
    setattr(owner, name, staticmethod(traced) if isinstance(owner.__dict__.get(name), staticmethod) else traced)


def on_gc(phase: str, info: dict) -> None:
    note(f"gc{info.get('generation')}{'+' if phase == 'start' else '-'}")


def install(product: bool) -> None:
    from waitress import channel, server, task
    wrap(channel.HTTPChannel, "received", "recv")
    wrap(server.BaseWSGIServer, "add_task", "queue")
    wrap(channel.HTTPChannel, "service", "service")
    wrap(task.Task, "write", "write", detail=lambda self, data: len(data))
    wrap(channel.HTTPChannel, "handle_write", "mainwrite")
    gc.callbacks.append(on_gc)
    if not product:
        return
    from companion.store import SQLiteStore
    from companion.table import Table
    from firmware.render_loop import RenderLoop
    from web.hub import Hub
    from web.live import Broadcaster
    wrap(Table, "submit", "submit")
    wrap(SQLiteStore, "append_many", "store")
    wrap(Table, "_notify", "notify")
    wrap(Broadcaster, "publish", "publish", detail=lambda self, kind, data: kind)
    wrap(Broadcaster, "_fresh", "wake")
    wrap(RenderLoop, "step", "render")
    wrap(Hub, "_on_frame", "frame")
    from firmware.voice import Voice
    from web.backup import Backups
    wrap(Backups, "after", "backup")
    wrap(Voice, "update", "voice")
    import os
    if os.environ.get("PRESS_TRACE_FINE"):           # the request's own steps (more notes, more overhead)
        import flask
        from companion.table import Table as T
        from web.security import RememberedSessions
        wrap(flask.Flask, "wsgi_app", "wsgi")
        wrap(flask.Flask, "preprocess_request", "pre")
        wrap(flask.Flask, "dispatch_request", "view")
        wrap(flask.Flask, "finalize_request", "fin")
        wrap(RememberedSessions, "open_session", "session")
        wrap(T, "_verify_rule", "verify")
        wrap(T, "_apply", "apply")
        wrap(T, "_published", "snapshot")
        wrap(SQLiteStore, "find_client", "dedupe")


def dump(path: str) -> None:
    with open(path, "w") as out:
        for row in list(NOTES):
            out.write(json.dumps(row) + "\n")


def main() -> None:
    out, rest = sys.argv[1], sys.argv[2:]
    product = rest[:2] == ["-m", "firmware.cli"]
    install(product)
    atexit.register(dump, out)
    if product:
        sys.argv = ["landsend"] + rest[2:]
        runpy.run_module("firmware.cli", run_name="__main__", alter_sys=True)
    else:
        sys.argv = rest
        runpy.run_path(rest[0], run_name="__main__")


if __name__ == "__main__":
    main()


def load(path: str) -> list[tuple[int, str, str, int]]:
    """Return the notes a traced server wrote at exit (time order)."""
    with open(path) as f:
        return sorted(tuple(json.loads(line)) for line in f if line.strip())


def timeline(notes: list, t0_ns: int, until_ns: int, marks: dict[str, int]) -> list[str]:
    """Return the lines of what every thread noted from ``t0_ns`` until ``until_ns``: ms after t0, the thread,
    what, and the CPU the thread used since its previous note (wall far above CPU: it waited)."""
    import bisect
    lines = []
    last: dict[str, tuple[int, int]] = {}
    lo = bisect.bisect_left(notes, (t0_ns - 2_000_000,))
    hi = bisect.bisect_right(notes, (until_ns + 500_000,))
    events = [(t, "bench", m, 0) for m, t in marks.items()] + notes[lo:hi]
    for t, thread, what, cpu in sorted(events):
        prev = last.get(thread)
        gap = "" if prev is None or thread == "bench" else \
            f"  (+{(t - prev[0]) / 1e3:.0f} us wall, +{(cpu - prev[1]) / 1e3:.0f} us CPU)"
        last[thread] = (t, cpu)
        if t >= t0_ns - 300_000:
            lines.append(f"  {(t - t0_ns) / 1e6:+8.3f} ms  {thread:<16} {what}{gap}")
    return lines

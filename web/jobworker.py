"""The worker process of :mod:`web.jobs`: ``python web/jobworker.py`` runs one call at a time (run by its path,
so it imports the advice and not the web app; :mod:`web.jobs` imports its frames from here).

Each call comes on stdin as a frame ``(module, function, kwargs, stages)``; the worker
answers on stdout with ``("progress", {"done", "of", "what"})`` frames as it goes,
then ``("done", answer, retiring)`` or ``("failed", status, message)``; ``retiring``: it
exits after this answer, having grown past :data:`MAX_RSS_MB`. ``stages`` lists the
calls to make in turn, ``[(what, kwargs overrides)]`` (a cheap pass first, then the
full one), each said as progress; the answer is the last one's, as the route's JSON
(``to_dict()`` where the value has one). A rules refusal is ``failed`` with 400 (403
for advice the table does not allow), as the route would answer it.

The process is killed to cancel a call: nothing in it needs to stop cleanly. When the daemon itself goes
(killed mid-call: its end of the pipes closed), the worker exits quietly, 0, at its next frame: there is
nobody to answer and nothing to say (no ``BrokenPipeError`` traceback in the log).

While it waits for a call, a fresh worker warms the pegging advice's caches
(:func:`warm_steps`: a few seeded rankings of every two-hand game, ``LANDSEND_WARM_UP``
rounds; :func:`warm_multi_steps`: leads of the table's three- or four-hand game), one ranking at
a time, stopping as soon as a call comes: the first advice of the evening then costs what the
hundredth does (bench/README.md, "warm worker").
"""

from __future__ import annotations

import gc
import importlib
import os
import pickle
import select
import struct
import sys
import time
from typing import Any

PRELOAD = ("companion.advice.discard", "companion.advice.review", "companion.advice.pegging_multi")


def write_frame(stream, obj: Any) -> None:
    """Write ``obj`` as one frame: its length (4 bytes, big-endian), then its pickle."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack(">I", len(data)) + data)
    stream.flush()


def read_frame(stream) -> Any:
    """Return the next frame's object; None at the end of the stream."""
    head = stream.read(4)
    if len(head) < 4:
        return None
    (n,) = struct.unpack(">I", head)
    data = stream.read(n)
    if len(data) < n:
        return None
    return pickle.loads(data)


def spin(seconds: float) -> dict:
    """Burn the CPU for ``seconds`` (the tests' and the bench's stand-in for a long answer); return how long."""
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
    return {"spun": seconds, "loops": n}


TIDY_EVERY = 500     # answers between two full collections of what the frozen ones kept


def after_call(calls: int) -> None:
    """Run after each answer is written: hide from the garbage collector what the calls have left (the advice's
    caches: hundreds of thousands of entries), so that no later call pays for walking them.

    The advice pauses the collector while it works, then a full collection falls on some later call and walks
    every cache entry: 25-95 ms here, a second or more on a Pi, on whichever call it lands (bench/README.md, "Issue
    25 item 3, night pass"). ``gc.freeze()`` (constant time) moves every tracked object to the permanent
    generation the collector skips; the caches make no reference cycles, so nothing is lost by not walking
    them. Every ``TIDY_EVERY`` answers a full collection runs once (after the answer, while the phone reads
    it), in case some call left a cycle.
    """
    if calls % TIDY_EVERY == 0:
        gc.unfreeze()
        gc.collect()
    gc.freeze()


WARM_ENV = "LANDSEND_WARM_UP"
"""The environment variable with the rounds of the advice's warm-up a fresh worker runs while it waits
(:func:`companion.advice.pegging.warm_up`; unset: its default, 0: none)."""
WARM_RULES_ENV = "LANDSEND_WARM_RULES"
"""The games to warm (:func:`warm_rules_value`: the table's, as the app last saw it); unset: every two-hand game."""


def warm_rules_value(rules) -> str:
    """The ``LANDSEND_WARM_RULES`` value for the rulesets ``rules`` (their pickle, in base64: house rules and all)."""
    import base64
    return base64.b64encode(pickle.dumps(list(rules), protocol=pickle.HIGHEST_PROTOCOL)).decode("ascii")


def _warm_rounds() -> "int | None":
    """``LANDSEND_WARM_UP``'s rounds (None: unset or unreadable, the default; 0 or less: no warm-up)."""
    raw = os.environ.get(WARM_ENV, "").strip()
    try:
        return int(raw) if raw else None
    except ValueError:
        return None


def _warm_games():
    """The rulesets of ``LANDSEND_WARM_RULES`` (None: unset, or a value it cannot read)."""
    packed = os.environ.get(WARM_RULES_ENV, "").strip()
    if not packed:
        return None
    import base64
    try:
        return list(pickle.loads(base64.b64decode(packed)))
    except Exception:                 # noqa: BLE001 - a value it cannot read: as if unset
        return None


def warm_steps():
    """The steps of the warm-up a fresh worker runs while idle (None when ``LANDSEND_WARM_UP`` is 0): the games of
    ``LANDSEND_WARM_RULES`` (the table's) that have a two-hand matching phase, else every two-hand game."""
    rounds = _warm_rounds()
    if rounds is not None and rounds <= 0:
        return None
    from companion.advice.pegging import WARM_ROUNDS, warm_up
    games = _warm_games()
    if games is not None:
        games = [r for r in games if r.players == 2 and r.pegging]
        if not games:                 # the table plays no two-hand game with pegging: nothing to warm
            return None
    return warm_up(games, rounds=WARM_ROUNDS if rounds is None else rounds)


def warm_multi_steps():
    """The steps of the three- and four-hand advice's warm-up (None when ``LANDSEND_WARM_UP`` is 0, or the games of
    ``LANDSEND_WARM_RULES`` have no three- or four-hand matching phase): leads of those games
    (:func:`companion.advice.pegging_multi.warm_up`; unset: none, a table's game is two-hand until it says not)."""
    rounds = _warm_rounds()
    games = [r for r in _warm_games() or () if r.players > 2 and r.pegging]
    if rounds is not None and rounds <= 0 or not games:
        return None
    from companion.advice.pegging_multi import WARM_ROUNDS, warm_up
    return warm_up(games, rounds=WARM_ROUNDS if rounds is None else min(rounds, WARM_ROUNDS))


def warm_all(*parts):
    """The warm-up steps of ``parts`` (iterators or None) taken in turn, one step of each while they last (None:
    none to take)."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None

    def steps():
        live = list(parts)
        while live:
            for part in list(live):
                try:
                    next(part)
                except StopIteration:
                    live.remove(part)
                    continue
                yield
    return steps()


def warm_while_idle(steps, inp, budget_mb: "float | None" = None):
    """Take ``steps`` (an iterator) one at a time while nothing waits on ``inp``; return what is left of them, or
    None once they are all taken, one failed, or this process holds more than ``budget_mb`` MiB (the warm-up's
    share of the memory: half of what retires a worker). A call arriving stops it between two steps: the longest a
    call waits is one ranking (tens of milliseconds here).

    ``inp``'s own buffer is empty here: the parent writes a call only after the answer to the one before it, and
    this runs only between calls, so ``select`` on the pipe says whether a call came."""
    fd = inp.fileno()
    while not select.select([fd], [], [], 0)[0]:
        if budget_mb is not None and rss_mb() > budget_mb:
            return None
        try:
            next(steps)
        except StopIteration:
            return None
        except Exception as exc:      # noqa: BLE001 - a warm-up that fails leaves the worker as it was: cold
            print(f"jobworker: the warm-up stopped: {type(exc).__name__}: {exc}", file=sys.stderr)
            return None
        gc.freeze()                   # what the step cached, hidden from the collector (as after_call)
    return steps


MAX_RSS_ENV = "LANDSEND_WORKER_MAX_MB"
MAX_RSS_MB = 160
"""A worker whose resident memory passed this many MiB (``LANDSEND_WORKER_MAX_MB``; at most a fifth of the
machine's memory, 96 MiB at least: 102 MiB on a 512 MiB Zero 2 W) retires after its answer (says so with it, and
exits): the advice's caches grow with every position they see (0.3-0.7 MiB a two-hand lead ranking at first),
without end but their entry caps, and a Pi has 512 MiB-8 GiB for everything, two workers included. A fresh worker
(warm again within seconds, while it waits) takes the next call."""


def rss_mb() -> float:
    """This process's resident memory, MiB (0 where /proc is not there)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def max_rss_mb() -> float:
    """The memory after which this worker retires (:data:`MAX_RSS_MB`)."""
    raw = os.environ.get(MAX_RSS_ENV, "").strip()
    try:
        if raw:
            return float(raw)
    except ValueError:
        pass
    try:
        with open("/proc/meminfo") as f:
            total = next(int(line.split()[1]) for line in f if line.startswith("MemTotal:")) / 1024
    except (OSError, ValueError, StopIteration):
        return MAX_RSS_MB
    return max(96.0, min(MAX_RSS_MB, total / 5))


def answer(value):
    return value.to_dict() if hasattr(value, "to_dict") else value


def main() -> int:
    """Answer calls until stdin ends; exit quietly (0, nothing on stderr) when the daemon is gone mid-call."""
    try:
        return serve()
    except BrokenPipeError:
        # the daemon went away (SIGKILLed mid-call): nobody reads our answers. os._exit, not a return: the
        # interpreter's exit would flush the unwritten frame into the closed pipe and print that failure too
        sys.stderr.flush()
        os._exit(0)


def serve() -> int:
    if hasattr(os, "nice"):
        os.nice(10)                             # the phones' presses go first on the board's cores
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr                     # a stray print cannot break a frame
    inp = sys.stdin.buffer
    for name in PRELOAD:                        # imported once, before the first call
        importlib.import_module(name)
    from companion.errors import NotAllowed, RulesError
    calls = 0
    after_call(calls)                           # the imports too: frozen once
    warm = warm_all(warm_steps(), warm_multi_steps())
    limit = max_rss_mb()
    while True:
        if warm is not None:                    # idle: warm the advice's caches until a call comes
            warm = warm_while_idle(warm, inp, limit / 2)
        call = read_frame(inp)
        if call is None:
            return 0
        module, function, kwargs, stages = call
        try:
            fn = spin if (module, function) == ("web.jobworker", "spin") else \
                getattr(importlib.import_module(module), function)
            stages = stages or [("working it out", {})]
            result = None
            for k, (what, extra) in enumerate(stages):
                write_frame(out, ("progress", {"done": k, "of": len(stages), "what": what}))
                result = fn(**{**kwargs, **extra})
            retire = rss_mb() > limit
            write_frame(out, ("done", answer(result), retire))
            if retire:
                return 0
        except BrokenPipeError:
            raise                   # the daemon is gone: main() exits quietly
        except RulesError as exc:
            write_frame(out, ("failed", 403 if isinstance(exc, NotAllowed) else 400, str(exc)))
        except Exception as exc:    # noqa: BLE001 - said to the job; the worker takes the next call
            write_frame(out, ("failed", 500, f"{type(exc).__name__}: {exc}"))
        calls += 1
        after_call(calls)


if __name__ == "__main__":
    sys.exit(main())

"""The job pool (issue 25 item 4): long answers off the phones' threads, run in worker processes or threads, a
few at a time, each phone served in turn.

A request that may take more than half a second on a Pi (advice, the review, the
season's first build) is started as a job (:mod:`web.jobs` has its routes, :mod:`web.jobkinds`
its kinds): the work runs away from the request threads and the table's lock, says
how far it is, and can be dropped.

Two ways to run, one bookkeeping:

* **In a worker process** (:class:`Worker`; advice and the review): a long-lived
  ``python web/jobworker.py`` (run by its path: it imports the advice, not the web app) that has imported the
  advice once, fed pickled calls on its stdin and answering on its stdout. It holds no lock of ours and no GIL
  the phones' threads need. Cancelling kills the process (the work cannot go on),
  and a fresh worker is started in the background for the next job.
* **In a thread** (:meth:`Jobs.start_thread`; the season's build, which reads and
  writes the table's own store): the work calls :meth:`Job.step` between pieces,
  which raises :class:`Cancelled` once the job was cancelled, so it stops at the
  next piece (a match, here: milliseconds).

At most :data:`RUNNING` jobs run at once. A job beyond them waits in line (it is ``running``, its progress
"waiting for its turn"), and a free slot goes to the waiting job of the phone served longest ago, so a phone
that asks now and then is answered next however often others ask (issue 37: 30 phones looping on jobs kept
both slots and a player's own advice got 503). At most :data:`MAX_WAITING` wait (more answer 503 with
``Retry-After``); a phone's new job of a kind replaces its older one of the same kind (so one phone holds
at most one job of each kind); a job that nobody has asked about for :data:`ABANDONED` seconds is cancelled
(the phone went away); a finished job's answer is kept for :data:`KEEP` seconds, then its id answers 404.
"""

from __future__ import annotations

import atexit
import logging
import os
import pickle
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from .jobworker import read_frame, write_frame

log = logging.getLogger(__name__)

RUNNING = 2          # jobs running at once (the board has 4 cores; the phones keep the rest)
ABANDONED = 20.0     # seconds without a poll after which a running job is cancelled
KEEP = 120.0         # seconds a finished job's answer is kept
MAX_KEPT = 64        # finished jobs kept at most (the oldest go first)
MAX_WAITING = 32     # jobs waiting for a free slot at most (more answer 503)
WAITING = "waiting for its turn"
ROOT = Path(__file__).resolve().parents[1]


class Cancelled(Exception):
    """The job was cancelled: the work stops here."""


class Busy(Exception):
    """Too many jobs run and wait already."""


class Job:
    """One long answer: its state (``running``, ``done``, ``failed``, ``cancelled``), progress and answer."""

    def __init__(self, kind: str, owner: str) -> None:
        self.id = secrets.token_hex(8)
        self.kind, self.owner = kind, owner
        self.state = "running"
        self.progress: dict = {"done": 0, "of": 0, "what": "starting"}
        self.result: Any = None
        self.error: str | None = None
        self.status = 200                      # the status the route it stands for would have answered
        self.started = self.seen = time.monotonic()
        self.ended: float | None = None
        self._cancel = threading.Event()
        self.finished = threading.Event()      # set when it is done, failed or cancelled
        self.worker: "Worker | None" = None
        self.waiting = False                   # in line for a free slot (its work not started)
        self.on_end: "Callable[[Job], None] | None" = None    # the pool's: a slot is free

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def step(self, done: int, of: int, what: str) -> None:
        """Say how far the work is; raise :class:`Cancelled` when the job was cancelled (thread jobs call
        this between pieces of work)."""
        if self._cancel.is_set():
            raise Cancelled(self.id)
        self.progress = {"done": done, "of": of, "what": what}

    def _end(self, state: str, *, result: Any = None, error: str | None = None, status: int = 200) -> None:
        if self.state != "running":
            return
        self.result, self.error, self.status = result, error, status
        self.state, self.ended = state, time.monotonic()
        self.finished.set()
        if self.on_end is not None:
            self.on_end(self)

    def to_dict(self) -> dict:
        """The job as ``GET /api/jobs/<id>`` answers it."""
        out = {"id": self.id, "kind": self.kind, "state": self.state, "progress": self.progress,
               "elapsed": round((self.ended or time.monotonic()) - self.started, 3), "url": f"/api/jobs/{self.id}"}
        if self.state == "done":
            out["result"] = self.result
        elif self.state == "failed":
            out["error"], out["status"] = self.error, self.status
        return out


# --- the worker process --------------------------------------------------------------------------------

class Worker:
    """A ``python web/jobworker.py`` process that runs one call at a time (:mod:`web.jobworker`)."""

    def __init__(self, warm: "list | None" = None) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
        if warm:                              # the games it warms while it waits (the table's)
            from .jobworker import WARM_RULES_ENV, warm_rules_value
            env[WARM_RULES_ENV] = warm_rules_value(warm)
        self.proc = subprocess.Popen([sys.executable, str(ROOT / "web" / "jobworker.py")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, cwd=str(ROOT), env=env)
        self.job: Job | None = None
        self.lock = threading.Lock()
        self.retiring = False

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def run(self, job: Job, call: tuple) -> None:
        """Send ``call`` (module, function, kwargs, stages) and follow it to its end (in this thread)."""
        try:
            write_frame(self.proc.stdin, call)
            while True:
                msg = read_frame(self.proc.stdout)
                if msg is None:            # the process ended: killed (cancelled) or crashed
                    if not job.cancelled:
                        job._end("failed", error="the worker stopped before the answer", status=500)
                    return
                kind = msg[0]
                if kind == "progress":
                    if not job.cancelled:
                        job.progress = msg[1]
                elif kind == "done":
                    self.retiring = len(msg) > 2 and bool(msg[2])      # it exits now: not to be used again
                    job._end("done", result=msg[1])
                    return
                elif kind == "failed":
                    job._end("failed", error=msg[2], status=msg[1])
                    return
        except (OSError, ValueError, pickle.PickleError, EOFError) as exc:
            if not job.cancelled:
                job._end("failed", error=f"the worker failed: {exc}", status=500)
            self.kill()

    def kill(self) -> None:
        """Stop the process at once (whatever it was computing) and reap it."""
        if self.alive:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:      # pragma: no cover - a kill is not refused
            log.warning("job worker %s did not end", self.proc.pid)
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass


class Jobs:
    """The app's jobs (one per app: ``app.extensions["landsend.jobs"]``)."""

    def __init__(self, *, running: int = RUNNING, abandoned: float = ABANDONED, keep: float = KEEP,
                 waiting: int = MAX_WAITING) -> None:
        self.limit, self.abandoned, self.keep, self.max_waiting = running, abandoned, keep, waiting
        self._jobs: dict[str, Job] = {}
        self._idle: list[Worker] = []
        self._line: list[tuple[Job, Callable[[Job], None]]] = []    # waiting jobs and how each starts
        self._served: dict[str, float] = {}                         # owner: when its last job started
        self._lock = threading.RLock()          # a job's end (under it when cancelled) starts the next
        self._closed = False
        self.warm: "list | None" = None                    # the rulesets a fresh worker warms (the table's game)
        self._janitor: threading.Thread | None = None      # started with the first job
        atexit.register(self.close)                        # no worker outlives the server

    # --- starting ---
    def _admit(self, kind: str, owner: str, launch: Callable[[Job], None]) -> Job:
        """Return a new job (under the lock), started by ``launch(job)`` now or, when :data:`RUNNING` run
        already, once its turn comes (:meth:`_next`); an older job of ``owner`` and ``kind`` is cancelled.

        :raises Busy: :data:`MAX_WAITING` jobs wait already.
        """
        if self._janitor is None:
            self._janitor = threading.Thread(target=self._sweep_forever, name="jobs-janitor", daemon=True)
            self._janitor.start()
        self._prune()
        for old in list(self._jobs.values()):
            if old.state == "running" and old.owner == owner and old.kind == kind:
                self._cancel(old)
        if self._free() <= 0 and len(self._line) >= self.max_waiting:
            raise Busy(f"{self.limit} long answers are being worked out and {len(self._line)} wait already: "
                       "ask again in a moment")
        job = Job(kind, owner)
        job.on_end = self._ended
        self._jobs[job.id] = job
        job.waiting = True
        job.progress = {"done": 0, "of": 0, "what": WAITING}
        self._line.append((job, launch))
        self._next()
        return job

    def _free(self) -> int:
        """The slots free now (under the lock)."""
        return self.limit - sum(j.state == "running" and not j.waiting for j in self._jobs.values())

    def _next(self) -> None:
        """Start waiting jobs while a slot is free (under the lock): each time the one whose phone was served
        longest ago (never: first), the oldest of that phone's first."""
        self._line = [(j, go) for j, go in self._line if j.state == "running"]
        while self._line and self._free() > 0:
            k = min(range(len(self._line)),
                    key=lambda i: (self._served.get(self._line[i][0].owner, float("-inf")), i))
            job, launch = self._line.pop(k)
            job.waiting = False
            job.progress = {"done": 0, "of": 0, "what": "starting"}
            self._served[job.owner] = time.monotonic()
            launch(job)

    def _ended(self, job: Job) -> None:
        if job.worker is not None and not job.cancelled:
            return          # answered by its worker: _run_process starts the next once the worker is idle again
        with self._lock:
            if not self._closed:
                self._next()

    def start_process(self, kind: str, owner: str, call: tuple) -> Job:
        """Start ``call`` = ``(module, function, kwargs, stages)`` in a worker process (see :mod:`web.jobworker`).
        Its game (a ruleset) is the one the next fresh worker warms."""
        game = call[2].get("game") if len(call) > 2 and isinstance(call[2], dict) else None
        if game is not None and hasattr(game, "players"):
            self.warm = [game]

        def launch(job: Job) -> None:
            worker = self._idle.pop() if self._idle else None
            threading.Thread(target=self._run_process, args=(job, worker, call), name=f"job-{job.id}",
                             daemon=True).start()
        with self._lock:
            return self._admit(kind, owner, launch)

    def _run_process(self, job: Job, worker: "Worker | None", call: tuple) -> None:
        try:
            if worker is None or not worker.alive:
                worker = Worker(self.warm)
        except OSError as exc:
            job._end("failed", error=f"no worker could be started: {exc}", status=503)
            return
        with self._lock:
            if job.cancelled:
                self._idle.append(worker)
                return
            job.worker = worker
        worker.run(job, call)
        with self._lock:
            job.worker = None
            keep = worker.alive and not worker.retiring and not self._closed and len(self._idle) < self.limit
            if keep:
                self._idle.append(worker)
            if not self._closed:
                self._next()                    # the next in line takes this worker, warm
            if keep:
                return
        worker.kill()
        # killed (cancelled), crashed or retired (grown too big): a fresh worker waits for the next job, so it does
        # not pay the start
        try:
            fresh = Worker(self.warm)
        except OSError:
            return
        with self._lock:
            if not self._closed and len(self._idle) < self.limit:
                self._idle.append(fresh)
                return
        fresh.kill()

    def start_thread(self, kind: str, owner: str, work: Callable[[Job], Any]) -> Job:
        """Start ``work(job)`` in a thread; it calls ``job.step`` between pieces (and so stops when cancelled)."""
        def run(job: Job) -> None:
            try:
                result = work(job)
            except Cancelled:
                return
            except Exception as exc:     # noqa: BLE001 - the job says what went wrong; the server goes on
                log.exception("job %s (%s) failed", job.id, kind)
                job._end("failed", error=str(exc) or type(exc).__name__, status=500)
                return
            job._end("done", result=result)

        def launch(job: Job) -> None:
            threading.Thread(target=run, args=(job,), name=f"job-{job.id}", daemon=True).start()
        with self._lock:
            return self._admit(kind, owner, launch)

    def find(self, kind: str) -> "Job | None":
        """Return the running job of ``kind`` (any owner), or None."""
        with self._lock:
            return next((j for j in self._jobs.values() if j.kind == kind and j.state == "running"), None)

    # --- asking, cancelling ---
    def get(self, job_id: str, owner: str | None) -> "Job | None":
        """Return the job ``job_id`` of ``owner`` (None: anyone's), noting that it was asked about."""
        with self._lock:
            self._prune()
            job = self._jobs.get(job_id)
            if job is None or (owner is not None and job.owner != owner and job.owner != "*"):
                return None
            job.seen = time.monotonic()
            return job

    def cancel(self, job_id: str, owner: str | None) -> "Job | None":
        """Cancel the job (its process killed, or its thread stopped at its next step); return it, None if none."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or (owner is not None and job.owner != owner and job.owner != "*"):
                return None
            self._cancel(job)
            return job

    def _cancel(self, job: Job) -> None:
        """Cancel ``job`` (under the lock); a waiting one leaves the line, and a slot freed goes to the next."""
        if job.state != "running":
            return
        job._cancel.set()
        job._end("cancelled")
        if job.worker is not None:
            job.worker.kill()
            job.worker = None

    def running(self) -> list[Job]:
        with self._lock:
            return [j for j in self._jobs.values() if j.state == "running"]

    def workers(self) -> list[int]:
        """The pids of the worker processes alive (busy or idle)."""
        with self._lock:
            busy = [j.worker for j in self._jobs.values() if j.worker is not None]
            return [w.proc.pid for w in busy + self._idle if w.alive]

    def prestart(self) -> "int | None":
        """Start a worker now, idle, for the first job (it warms the advice's caches while it waits,
        web/jobworker.py); return its pid, or None when one waits already or it could not start."""
        with self._lock:
            if self._closed or any(w.alive for w in self._idle):
                return None
        try:
            worker = Worker(self.warm)
        except OSError as exc:
            log.warning("no job worker could be started ahead: %s", exc)
            return None
        with self._lock:
            if not self._closed and len(self._idle) < self.limit:
                self._idle.append(worker)
                return worker.proc.pid
        worker.kill()
        return None

    # --- housekeeping ---
    def _prune(self) -> None:
        now = time.monotonic()
        for job in list(self._jobs.values()):
            if job.state == "running" and job.owner != "*" and now - job.seen > self.abandoned:
                self._cancel(job)             # nobody asks about it any more: the phone went away
        done = sorted((j for j in self._jobs.values() if j.state != "running"), key=lambda j: j.ended)
        for job in done[:max(0, len(done) - MAX_KEPT)] + [j for j in done if now - j.ended > self.keep]:
            self._jobs.pop(job.id, None)
        for owner in [o for o, at in self._served.items() if now - at > self.keep]:
            del self._served[owner]           # served long ago: as good as never (first in line)

    def _sweep_forever(self) -> None:
        while not self._closed:
            time.sleep(min(1.0, self.abandoned / 4))
            with self._lock:
                self._prune()

    def close(self) -> None:
        """Cancel every job and stop every worker (the app is closing)."""
        with self._lock:
            self._closed = True
            self._line = []
            for job in list(self._jobs.values()):
                self._cancel(job)
            idle, self._idle = self._idle, []
        for w in idle:
            w.kill()

"""Long answers off the phones' threads (issue 25 item 4): a job says so, shows its progress and can be dropped.

A request that may take more than half a second on a Pi (advice, the review, the
season's first build) is started as a job: ``POST /api/jobs`` answers 202 at once
with the job's id, the work runs away from the request threads and the table's
lock, and the page asks ``GET /api/jobs/<id>`` for its progress and, when it is
done, its answer (as the route it stands for would have given it). ``DELETE
/api/jobs/<id>`` stops it: nothing of it keeps running.

Two ways to run, one bookkeeping:

* **In a worker process** (:class:`Worker`; advice and the review): a long-lived
  ``python web/jobworker.py`` (run by its path: it imports the advice, not the web app) that has imported the advice once, fed pickled calls
  on its stdin and answering on its stdout. It holds no lock of ours and no GIL
  the phones' threads need. Cancelling kills the process (the work cannot go on),
  and a fresh worker is started in the background for the next job.
* **In a thread** (:meth:`Jobs.start_thread`; the season's build, which reads and
  writes the table's own store): the work calls :meth:`Job.step` between pieces,
  which raises :class:`Cancelled` once the job was cancelled, so it stops at the
  next piece (a match, here: milliseconds).

At most :data:`RUNNING` jobs run at once (more answer 503 with ``Retry-After``);
a phone's new job of a kind replaces its older one of the same kind; a job that
nobody has asked about for :data:`ABANDONED` seconds is cancelled (the phone went
away); a finished job's answer is kept for :data:`KEEP` seconds, then its id
answers 404.
"""

from __future__ import annotations

import atexit
import logging
import os
import pickle
import re
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
ROOT = Path(__file__).resolve().parents[1]


class Cancelled(Exception):
    """The job was cancelled: the work stops here."""


class Busy(Exception):
    """Too many jobs run already."""


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

    def __init__(self, *, running: int = RUNNING, abandoned: float = ABANDONED, keep: float = KEEP) -> None:
        self.limit, self.abandoned, self.keep = running, abandoned, keep
        self._jobs: dict[str, Job] = {}
        self._idle: list[Worker] = []
        self._lock = threading.Lock()
        self._closed = False
        self.warm: "list | None" = None                    # the rulesets a fresh worker warms (the table's game)
        self._janitor: threading.Thread | None = None      # started with the first job
        atexit.register(self.close)                        # no worker outlives the server

    # --- starting ---
    def _admit(self, kind: str, owner: str) -> Job:
        """Return a new job (under the lock): an older running job of ``owner`` and ``kind`` is cancelled.

        :raises Busy: :data:`RUNNING` jobs run already.
        """
        if self._janitor is None:
            self._janitor = threading.Thread(target=self._sweep_forever, name="jobs-janitor", daemon=True)
            self._janitor.start()
        self._prune()
        for old in list(self._jobs.values()):
            if old.state == "running" and old.owner == owner and old.kind == kind:
                self._cancel(old)
        if sum(j.state == "running" for j in self._jobs.values()) >= self.limit:
            raise Busy(f"{self.limit} long answers are being worked out already: ask again in a moment")
        job = Job(kind, owner)
        self._jobs[job.id] = job
        return job

    def start_process(self, kind: str, owner: str, call: tuple) -> Job:
        """Start ``call`` = ``(module, function, kwargs, stages)`` in a worker process (see :mod:`web.jobworker`).
        Its game (a ruleset) is the one the next fresh worker warms."""
        game = call[2].get("game") if len(call) > 2 and isinstance(call[2], dict) else None
        if game is not None and hasattr(game, "players"):
            self.warm = [game]
        with self._lock:
            job = self._admit(kind, owner)
            worker = self._idle.pop() if self._idle else None
        threading.Thread(target=self._run_process, args=(job, worker, call), name=f"job-{job.id}",
                         daemon=True).start()
        return job

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
            if worker.alive and not worker.retiring and not self._closed and len(self._idle) < self.limit:
                self._idle.append(worker)
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
        with self._lock:
            job = self._admit(kind, owner)

        def run() -> None:
            try:
                result = work(job)
            except Cancelled:
                return
            except Exception as exc:     # noqa: BLE001 - the job says what went wrong; the server goes on
                log.exception("job %s (%s) failed", job.id, kind)
                job._end("failed", error=str(exc) or type(exc).__name__, status=500)
                return
            job._end("done", result=result)
        threading.Thread(target=run, name=f"job-{job.id}", daemon=True).start()
        return job

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

    def _sweep_forever(self) -> None:
        while not self._closed:
            time.sleep(min(1.0, self.abandoned / 4))
            with self._lock:
                self._prune()

    def close(self) -> None:
        """Cancel every job and stop every worker (the app is closing)."""
        with self._lock:
            self._closed = True
            for job in list(self._jobs.values()):
                self._cancel(job)
            idle, self._idle = self._idle, []
        for w in idle:
            w.kill()


# --- the routes ---------------------------------------------------------------------------------------------

from flask import Blueprint, current_app, jsonify, request  # noqa: E402  (the worker above needs no Flask)
from werkzeug.datastructures import MultiDict  # noqa: E402

bp = Blueprint("jobs", __name__, url_prefix="/api")

KINDS: dict[str, tuple[str | None, Callable]] = {}
"""Each kind of job: the GET endpoint whose query its ``args`` are (checked as that route checks them; None:
it takes none), and its starter ``start(jobs, args: MultiDict, owner) -> Job`` (registered by web.advice and
web.season)."""

JOB_ID = re.compile(r"[0-9a-f]{16}")


_made = threading.Lock()


def jobs() -> Jobs:
    """Return the app's :class:`Jobs` (made on first use)."""
    with _made:
        j = current_app.extensions.get("landsend.jobs")
        if j is None:
            j = current_app.extensions["landsend.jobs"] = Jobs()
        return j


def prestart(app) -> "int | None":
    """Start ``app``'s first job worker now, in the background of the page (the daemon calls it once the page
    answers): the first advice then finds it started and warm. Returns its pid (None: none started)."""
    with app.app_context():
        j = jobs()
        try:
            snap = app.hub.table.snapshot()
            if snap.get("game"):
                from companion.rulesets import get_ruleset
                j.warm = [get_ruleset(snap["game"], **dict(snap.get("options") or {}))]
        except Exception:       # noqa: BLE001 - no table game to read: the worker warms every two-hand game
            log.debug("prestart: no table game to warm", exc_info=True)
        return j.prestart()


def _error(status: int, message: str, **headers: str):
    resp = jsonify({"error": message})
    resp.status_code = status
    resp.headers.update(headers)
    return resp


def accepted(job: Job):
    """202 with the job, and where to ask about it."""
    resp = jsonify(job.to_dict())
    resp.status_code = 202
    resp.headers["Location"] = f"/api/jobs/{job.id}"
    return resp


def _args(value) -> "MultiDict | None":
    """Return a job's ``args`` (an object of strings, or of lists of strings) as a query, None if malformed."""
    if not isinstance(value, dict):
        return None
    out = MultiDict()
    for k, v in value.items():
        for item in v if isinstance(v, list) else [v]:
            if not isinstance(item, str):
                return None
            out.add(k, item)
    return out


@bp.post("/jobs")
def post_job():
    """Start a long answer: ``{"kind": "advise" | "lead" | "review" | "season", "args": {<the query of its GET
    route>}}`` → 202 with the job (``id``, ``state``, ``progress``, ``url``); 400 naming what is wrong (nothing
    starts), 400/403 for a refusal of the rules, 503 with ``Retry-After`` when too many run already."""
    from companion.errors import NotAllowed, RulesError

    from . import query
    from .guard import ensure_session, json_body
    body = json_body()
    extra = sorted(k for k in body if k not in ("kind", "args"))
    if extra:
        return _error(400, f"a job takes kind and args, not {', '.join(str(k)[:20] for k in extra)}")
    kind = body.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        return _error(400, f"kind must be one of {', '.join(sorted(KINDS))}")
    args = _args(body.get("args", {}))
    if args is None:
        return _error(400, "args must be an object of query parameters (text, or lists of text)")
    endpoint, start = KINDS[kind]
    why = query.refusal(endpoint, args) if endpoint else (
        f"a {kind} job takes no args" if args else None)
    if why:
        return _error(400, why)
    try:
        job = start(jobs(), args, ensure_session()["device"])
    except Busy as exc:
        return _error(503, str(exc), **{"Retry-After": "1"})
    except RulesError as exc:
        return _error(403 if isinstance(exc, NotAllowed) else 400, str(exc))
    return accepted(job)


def _job(job_id: str, cancel: bool = False):
    from .guard import ensure_session
    if not JOB_ID.fullmatch(job_id):
        return _error(400, "a job's id is 16 hex digits (as POST /api/jobs gave it)")
    owner = ensure_session()["device"]
    job = jobs().cancel(job_id, owner) if cancel else jobs().get(job_id, owner)
    if job is None:
        return _error(404, "no such job: it finished more than 2 minutes ago, was started by another phone, "
                           "or never was")
    return jsonify(job.to_dict())


@bp.get("/jobs/<job_id>")
def get_job(job_id: str):
    """Return the job: its state (``running``, ``done``, ``failed``, ``cancelled``), progress (``done`` of
    ``of``, ``what``) and, once done, its ``result`` (the JSON its GET route answers), or its ``error`` and
    ``status`` once failed; 404 for a job that is not this phone's or no longer kept. Asking keeps it going:
    a running job nobody asks about for 20 s is cancelled."""
    return _job(job_id)


@bp.delete("/jobs/<job_id>")
def delete_job(job_id: str):
    """Cancel the job (its work stops at once: the worker process is killed, or the build stops at its next
    match); answers the job as it is then (a finished one is left as it was); 404 as for GET."""
    return _job(job_id, cancel=True)

"""The job routes: ``POST /api/jobs`` starts a long answer, ``GET /api/jobs/<id>`` says how far it is and,
when it is done, its answer, ``DELETE /api/jobs/<id>`` drops it (:mod:`web.jobpool` runs them,
:mod:`web.jobkinds` lists the kinds).

``POST /api/jobs`` answers 202 at once with the job's id; the page asks for its progress and, when it is done,
its answer (as the route it stands for would have given it). Only a phone that joined the table may start one
(a visitor asks the plain GET routes, answered in the request and capped there); its job waits its turn
behind the jobs running, never behind a line of one other phone's (:class:`web.jobpool.Jobs`).
"""

from __future__ import annotations

import logging
import re
import threading

from flask import Blueprint, current_app, jsonify
from werkzeug.datastructures import MultiDict

from .guard import require_joined
from .jobpool import Busy, Job, Jobs

log = logging.getLogger(__name__)

bp = Blueprint("jobs", __name__, url_prefix="/api")

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
@require_joined
def post_job():
    """Start a long answer: ``{"kind": "advise" | "lead" | "review" | "season", "args": {<the query of its GET
    route>}}`` → 202 with the job (``id``, ``state``, ``progress``, ``url``); 403 for a phone that has not
    joined (it asks the GET route); 400 naming what is wrong (nothing starts), 400/403 for a refusal of the
    rules, 503 with ``Retry-After`` when too many run and wait already."""
    from companion.errors import NotAllowed, RulesError

    from . import query
    from .guard import ensure_session, json_body
    body = json_body()
    extra = sorted(k for k in body if k not in ("kind", "args"))
    if extra:
        return _error(400, f"a job takes kind and args, not {', '.join(str(k)[:20] for k in extra)}")
    kinds = current_app.extensions["landsend.job_kinds"]
    kind = body.get("kind")
    if not isinstance(kind, str) or kind not in kinds:
        return _error(400, f"kind must be one of {', '.join(sorted(kinds))}")
    args = _args(body.get("args", {}))
    if args is None:
        return _error(400, "args must be an object of query parameters (text, or lists of text)")
    endpoint, start = kinds[kind]
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

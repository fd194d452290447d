"""The night and the season (``/api/night``, ``/api/season``, their CSV, a game's score race), and the host's
events about people and nights (``POST /api/season/event``: rename, merge, new evening, settle).

The views are :mod:`companion.season`'s, over the table's own store; one
:class:`~companion.season.Season` per app keeps the match in play summarised
until it changes, and the matches that are over are read from their kept summaries.
The first view of a database whose matches are not all in memory yet (an old
database, a restart) does not fold them in the request: it starts the season's
build as a job (:mod:`web.jobs`, kind ``season``, one for every phone) and
answers 202 with it; the page shows its progress and asks again when it is done.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from flask import Blueprint, Response, abort, current_app, jsonify, request

from companion.errors import RulesError

from .guard import hub, json_body, role
from .jobpool import Busy
from .jobs import accepted, jobs

if TYPE_CHECKING:       # companion.season (with fractions) loads at the first season view, not before the
    from companion.season import Season     # board's first answer (issue 25's start-up: 1.3 ms)

bp = Blueprint("season", __name__, url_prefix="/api")
_lock = threading.RLock()


def seasons() -> Season:
    """Return the app's :class:`Season` (made on first use); 404 for a table without a store."""
    with _lock:
        s = current_app.extensions.get("landsend.season")
        if s is None:
            store = getattr(hub().table, "store", None)
            if store is None or not hasattr(store, "summaries"):
                abort(404, "this table keeps no games to tell")
            from companion.season import Season
            s = current_app.extensions["landsend.season"] = Season(store)
        return s


def start_build(jobs_, args=None, owner=None):
    """Start the season's build (or return the one running): a thread job that reads and folds the matches
    not in memory, a few at a time, off the views' lock (:meth:`Season.build`)."""
    running = jobs_.find("season")
    if running is not None:
        return running
    s = seasons()

    def step(job, done, of, what):
        job.step(done, of, what)
        time.sleep(0)                   # let a phone's request take the interpreter between pieces

    return jobs_.start_thread("season", "*", lambda job: {"matches": s.build(
        lambda done, of, what: step(job, done, of, what), _lock)})



def building(status: int = 202):
    """None when the season's views cost little now; else the answer that its build (started if need be) is
    under way: 202 with the job (a view), or ``status`` with ``error`` and ``job`` (the host's event)."""
    with _lock:
        ready = seasons().ready()
    if ready:
        return None
    try:
        job = start_build(jobs())
    except Busy as exc:
        resp = jsonify({"error": str(exc)})
        resp.status_code, resp.headers["Retry-After"] = 503, "1"
        return resp
    if status == 202:
        return accepted(job)
    resp = jsonify({"error": "the season is being worked out from the games kept: try again when it is done",
                    "job": job.to_dict()})
    resp.status_code, resp.headers["Retry-After"] = status, "1"
    return resp


def not_yet(fn=None, *, status: int = 202):
    """Answer a view with its build's job while the season is being built (see the module's note)."""
    import functools

    def wrap(fn):
        @functools.wraps(fn)
        def view(*a, **kw):
            return building(status) or fn(*a, **kw)
        return view
    return wrap(fn) if fn is not None else wrap


def _night_number() -> "int | None":
    raw = request.args.get("night")        # its form is checked before the route runs (web.query)
    return None if raw is None else int(raw)


def _night() -> dict:
    try:
        with _lock:
            return seasons().night(_night_number())
    except ValueError as exc:
        abort(404, str(exc))


def _season() -> dict:
    try:
        with _lock:
            return seasons().season(request.args.get("player") or None)
    except ValueError as exc:
        abort(404, str(exc))


def _csv(text: str, name: str) -> Response:
    return Response(text, mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{name}.csv"'})


@bp.get("/night")
@not_yet
def get_night():
    """Return a night (``?night=N``, default the last): its standing per player and settle-up; 404 for no
    such night, 400 for a night that is not a number."""
    return jsonify(_night())


@bp.get("/night.csv")
@not_yet
def get_night_csv():
    """Return the night as CSV (a row per player, then a row per payment)."""
    from companion.season import night_csv
    n = _night()
    return _csv(night_csv(n), f"night-{n['night'] or 0}")


@bp.get("/season")
@not_yet
def get_season():
    """Return the season per player (``?player=NAME``: that player only; 404 for nobody of that name)."""
    return jsonify(_season())


@bp.get("/season.csv")
@not_yet
def get_season_csv():
    """Return the season as CSV (a row per player)."""
    from companion.season import season_csv
    return _csv(season_csv(_season()), "season")


@bp.get("/race")
@not_yet
def get_race():
    """Return a game's score race by hand: ``?match=ID&game=N`` (default the match in play, and its last
    game that scored); 404 when there is no such game."""
    raw = request.args.get("game")
    try:
        with _lock:
            return jsonify(seasons().race(request.args.get("match") or None, None if raw is None else int(raw)))
    except ValueError as exc:
        abort(404, str(exc))


@bp.get("/games")
@not_yet
def get_games():
    """Return the games kept, newest first (``?offset=K&limit=N``, default 0 and 50): each with its match,
    number, title, end, whether it finished and its sides' final scores (History lists them for their
    score races)."""
    offset, limit = (int(request.args.get(k) or d) for k, d in (("offset", 0), ("limit", 50)))
    with _lock:
        return jsonify(seasons().games(offset=offset, limit=limit))


HOST_ONLY = "only the host may rename or merge players, start a new evening or settle the night"


def judge_host_events(app) -> None:
    """Let ``app``'s table judge the host's events against every game kept: its verify context's ``host_check``
    is the season's :meth:`~companion.season.Season.check` (under this module's lock), so a rename, merge,
    new evening or settle is judged by the table however it comes (``POST /api/command``, the alias below)."""
    table = app.hub.table
    if not hasattr(getattr(table, "store", None), "summaries"):
        return                          # a table that keeps no games: their form alone is checked

    def check(event: dict) -> None:
        with app.app_context(), _lock:
            seasons().check(event)
    table.host_check = check


@bp.post("/season/event")
@not_yet(status=503)
def post_event():
    """The host's event about people or nights (``{"type": "rename", "name", "to"}``, ``{"type": "merge", "name",
    "into"}``, ``{"type": "new_evening"}``, ``{"type": "settle"}``): an alias of ``POST /api/command`` for these
    kinds that also answers the night. Stored in the match in play (History shows it, undo takes it back): 403
    for anyone but the host, 400 with the reason when a field is not of its type or it would say something
    untrue of the games kept (the table judges it: nothing changes). Returns ``{"event", "seq", "night"}``."""
    from companion.host import verify_host
    if role() != "host":
        abort(403, HOST_ONLY)
    body = json_body()
    command = {k: body[k] for k in ("type", "name", "to", "into", "night") if k in body}
    try:
        verify_host(command)            # its form, with the host's words, before the table reads it
        ev = hub().table.submit(command)
    except RulesError as exc:
        resp = jsonify({"error": str(exc)})
        resp.status_code = 400
        return resp
    with _lock:
        night = seasons().night(ev.get("night"))
    return jsonify({"event": ev, "seq": ev["seq"], "night": night})

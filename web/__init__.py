"""The phone page: a Flask app that shows the table live and sends it commands.

``create_app`` is the only way to get an app (no module-level app). The Pi
daemon passes its settings (``STATE_DIR``: next to its database), table, board,
simulated buttons and start-up faults, and keeps the :class:`Hub` of the app it
gets back (``app.hub``); a bare ``create_app()`` opens the table at
``DATABASE`` itself (no board, no buttons).
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, Mapping

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Rule

from companion.store import MemoryStore

from .hub import Hub
from .security import Access, JoinLimiter, RememberedSessions, TrustedHosts, adopt_legacy_state, load_secret_key

log = logging.getLogger(__name__)

__all__ = ["App", "create_app", "create_server", "Hub"]


class BuiltWhenUsed(Rule):
    """A URL rule whose URL builders (what ``url_for`` calls) are compiled the first time one is used.

    Werkzeug compiles two Python functions per rule as the rule is added, a
    parse, an ``exec`` and a ``compile`` each: about four fifths of
    :func:`create_app` (9 of 11 ms of CPU here for the app's 43 rules), all
    before the first answer (issue 25's start-up). Matching a request does not
    use them, and the page builds none of its own URLs, so here they wait
    for a first ``url_for``, which gets the builder Werkzeug would have made.
    """

    def _compile_builder(self, append_unknown: bool = True) -> Any:
        built: list = []

        def build(rule: Rule, *args: Any, **kw: Any) -> Any:
            if not built:
                built.append(Rule._compile_builder(rule, append_unknown))
            return built[0](rule, *args, **kw)
        return build


class App(Flask):
    """The phone page's Flask app, with the :class:`Hub` that links it to the table."""

    hub: Hub
    if hasattr(Rule, "_compile_builder"):      # Werkzeug's own otherwise (a version that builds differently)
        url_rule_class = BuiltWhenUsed


def create_app(test_config: "dict[str, Any] | None" = None, *, settings: "Mapping[str, Any] | None" = None,
               table: Any = None, board: Any = None, buttons: Any = None, faults: "list[str] | None" = None,
               voice: Any = None, wifi: Any = None) -> App:
    """Return the configured Flask app for the phone page and its JSON API; ``app.hub`` is its hub.

    :param test_config: config mapping that replaces ``instance/config.py`` and
        the ``LANDSEND_*`` environment.
    :param settings: config the caller decides (the daemon: ``STATE_DIR``, next
        to its database); ``instance/config.py`` and ``LANDSEND_*`` still override it.
    :param table: a ``companion.table.Table``; None opens ``Table.open(DATABASE)``
        (``":memory:"`` means ``Table.memory()``).
    :param board: an object whose ``frame_json()`` returns the LED frame the
        strip last showed; None makes ``GET /api/board`` answer 404.
    :param buttons: the simulated buttons (``press(name, *, hold=False)``), only
        in ``--sim`` mode; None makes ``POST /api/sim/press`` answer 404.
    :param faults: start-up problems to show on the page (the list is kept by
        reference, so later appends show too).
    :param voice: the board's voice (:class:`firmware.voice.Voice`); None makes its
        settings answer null and its test 404.
    :param wifi: the board's Wi-Fi control (:class:`firmware.wifi.Wifi`; see :mod:`web.wifi`); None makes
        the Wi-Fi screen answer 404. Its hotspot's address is where the captive-portal checks
        (:mod:`web.portal`) send the phones, unless ``PORTAL_ADDRESS`` says otherwise.
    """
    app = App(__name__, instance_relative_config=True)
    app.session_interface = RememberedSessions()
    app.config.from_mapping(
        STATE_DIR=None,                      # default: the Flask instance folder (older versions' page state)
        DATABASE=None,                       # default: STATE_DIR/landsend.db
        TRUSTED_HOSTS=None,                  # default: TrustedHosts() (names + current addresses)
        MAX_CONTENT_LENGTH=256 * 1024,
        SESSION_COOKIE_NAME="landsend",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=timedelta(days=30),
        # set the cookie only when the session changes: re-sending it on every request let a board poll
        # that left before a join, and answered after it, put back the cookie from before the join
        SESSION_REFRESH_EACH_REQUEST=False,
        SSE_HEARTBEAT=1.0,                   # seconds of silence before a heartbeat line (a page that hears
                                             # nothing for 3 s says "offline", issue 26)
        SSE_MAX_AGE=600.0,                   # seconds before a stream ends and the phone reconnects
        SSE_MAX_STREAMS=None,                # open streams in all; None: set by create_server from its threads
        SSE_MAX_PER_CLIENT=6,                # open streams per address (a phone with a few tabs)
        SSE_RETRY_AFTER=5,                   # seconds, in the 503 past either cap
        JOIN_MAX_FAILURES=5,                 # wrong codes per address per window
        JOIN_MAX_FAILURES_TOTAL=30,          # wrong codes from everyone per window
        JOIN_WINDOW=600.0,                   # seconds
        CLOCK=time.monotonic,                # injected in tests
        PORTAL_ADDRESS=None,                 # the board's address on its own Wi-Fi; default: the hotspot's
    )
    if settings is not None:
        app.config.from_mapping(settings)
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
        app.config.from_prefixed_env("LANDSEND")
    else:
        app.config.from_mapping(test_config)

    state_dir = Path(app.config["STATE_DIR"] or app.instance_path)
    app.config["STATE_DIR"] = str(state_dir)
    state_dir.mkdir(parents=True, exist_ok=True)
    if app.config["TRUSTED_HOSTS"] is None:
        app.config["TRUSTED_HOSTS"] = TrustedHosts()
    if app.config["DATABASE"] is None:
        app.config["DATABASE"] = str(state_dir / "landsend.db")

    owns_table = table is None
    if table is None:
        from companion.table import Table
        db = app.config["DATABASE"]
        table = Table.memory() if db == ":memory:" else Table.open(db)
    # the secret key and the access state live in the table's own database (docs/operation.md)
    store = getattr(table, "store", None)
    if not hasattr(store, "put_meta"):
        store = MemoryStore()                # a stand-in table without a store: kept in memory
    try:
        adopt_legacy_state(store, state_dir)
        if not app.config.get("SECRET_KEY"):
            app.config["SECRET_KEY"] = load_secret_key(store)
    except BaseException:
        if owns_table:
            table.close()
        raise
    hub = Hub(table, board=board, buttons=buttons, faults=faults, access=Access(store),
              limiter=JoinLimiter(per_client=app.config["JOIN_MAX_FAILURES"],
                                  overall=app.config["JOIN_MAX_FAILURES_TOTAL"],
                                  window=app.config["JOIN_WINDOW"], clock=app.config["CLOCK"]),
              owns_table=owns_table, clock=app.config["CLOCK"])
    app.hub = hub
    app.extensions["landsend"] = hub          # for the blueprints (web.guard.hub)
    app.extensions["landsend.voice"] = voice
    app.extensions["landsend.wifi"] = wifi

    from . import advice, api, guard, jobs, pages, query, season
    from .jobkinds import job_kinds
    from . import settings as board_settings   # the board's settings routes (not the settings argument)
    from . import wifi as wifi_views
    from .portal import PortalAnswers
    # the phones' captive-portal checks are answered before the Host check sees their foreign names
    app.wsgi_app = PortalAnswers(app.wsgi_app, lambda: app.config["PORTAL_ADDRESS"] or getattr(
        getattr(wifi, "hotspot", None), "address", None))
    guard.init_app(app)
    query.init_app(app)
    app.register_blueprint(pages.bp)
    for bp in api.BLUEPRINTS:               # live, access, commands, records
        app.register_blueprint(bp)
    app.register_blueprint(board_settings.bp)
    app.register_blueprint(advice.bp)
    app.register_blueprint(season.bp)
    app.register_blueprint(jobs.bp)
    app.extensions["landsend.job_kinds"] = job_kinds()     # what POST /api/jobs starts (web.jobkinds)
    season.judge_host_events(app)                           # the table judges the host's events by the season
    app.register_blueprint(wifi_views.bp)
    from . import backup, clock, update
    app.register_blueprint(backup.bp)
    app.register_blueprint(update.bp)
    app.register_blueprint(clock.bp)
    backup.init_app(app, table, wifi)
    _register_errors(app)
    return app


def _register_errors(app: Flask) -> None:
    from companion.errors import StoreError

    @app.errorhandler(StoreError)
    def _store_error(exc: StoreError):
        """Return 503 with the store's own message (a full disk, a locked or damaged file), shown as a fault."""
        app.extensions["landsend"].store_fault(str(exc))
        resp = jsonify({"error": str(exc)})
        resp.status_code = 503
        resp.headers["Retry-After"] = "30"
        return resp

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        """Return ``{"error": ...}``, or short text to a browser asking for a page (not under /api/)."""
        message = exc.description or exc.name
        if exc.code == 413:
            message = f"request body too large (limit {app.config['MAX_CONTENT_LENGTH'] // 1024} KB)"
        if _wants_page():
            resp = app.response_class(f"{exc.code} {exc.name}: {message}\n", mimetype="text/plain")
        else:
            resp = jsonify({"error": message})
        for name, value in exc.get_headers():
            if name.lower() != "content-type":
                resp.headers[name] = value           # Allow (405), Retry-After...
        resp.status_code = exc.code or 500
        return resp


def _wants_page() -> bool:
    """Return whether a browser navigates here: not under /api/, not a JSON request, and Accept puts HTML first.

    Browsers send ``text/html,...,*/*;q=0.8``; a JSON client's ``application/json``, curl's ``*/*`` and no
    Accept at all get JSON.
    """
    if request.path.startswith("/api/") or request.is_json:
        return False
    accept = request.accept_mimetypes
    return accept.quality("text/html") > accept.quality("application/json")


def create_server(app: Flask, **kw: Any):
    """Return the guarded waitress server for ``app`` (:func:`web.server.create_server`; waitress loads here)."""
    from .server import create_server as _create
    return _create(app, **kw)

"""The JSON API: table state, board frame, live events, commands, access, quick count.

Every refusal is a 4xx with ``{"error": "<one sentence>"}``, beside it the
refusal's fields (``undo_to``: :attr:`companion.errors.RulesError.data`); a refused
request changes nothing. See ``docs/api.md`` for the public contract.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re

from flask import Blueprint, Response, abort, current_app, jsonify, request, session

from companion import RULESETS, RulesError, get_ruleset, score_grid, score_hand, score_line
from companion.errors import StaleCommand, StoreError
from companion import replay as records
from companion.rulesets import CHOICES, OPTIONS

from .seats import SeatTaken
from .guard import ensure_session, hub, json_body, parse_json, require_joined, role

log = logging.getLogger(__name__)

bp = Blueprint("api", __name__, url_prefix="/api")

CLIENT_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
JOIN_CODE = re.compile(r"^\d{6}$")
SIM_BUTTONS = ("p1", "p2", "p3", "menu")
DEFAULT_MAX_STREAMS = 16                      # without create_server (which sets it from the thread count)
SIM_PRESS_SECONDS = (0.05, 10)                # a simulated press may last this long (menu 5 s: release)


def _refused(exc: RulesError):
    resp = jsonify({**exc.data, "error": str(exc)})
    resp.status_code = 400
    return resp


@bp.get("/table")
def table():
    """Return the table snapshot (the schema of ``docs/architecture.md``)."""
    return jsonify(hub().current())


@bp.get("/board")
def board():
    """Return the LED frame the strip last showed; 404 when no board is attached."""
    b = hub().board
    if b is None:
        abort(404, "no board is attached (the page is running without the daemon)")
    return jsonify(b.frame_json())


@bp.get("/events")
def events():
    """Return the Server-Sent Events stream: ``state`` (snapshot), ``board`` (LED frame), ``access``
    (epoch) and ``faults`` events; the one source of the table's state for the page.

    503 with ``Retry-After`` when ``SSE_MAX_STREAMS`` streams are open, or
    ``SSE_MAX_PER_CLIENT`` (at most half of ``SSE_MAX_STREAMS``) from this
    address, or (for a phone that has not joined) half of ``SSE_MAX_STREAMS``
    from phones that have not joined: each stream holds a server thread, the
    threads past the cap are kept for pages and commands, and the other half
    of the streams for joined phones.
    """
    h = hub()
    cfg = current_app.config
    client = request.remote_addr or "?"
    overall = int(cfg["SSE_MAX_STREAMS"] or DEFAULT_MAX_STREAMS)
    per_client = min(int(cfg["SSE_MAX_PER_CLIENT"]), max(1, overall // 2))   # one address: half the streams at most
    release = h.slots.acquire(client, overall=overall, per_client=per_client, member=role() != "visitor",
                              strangers=max(1, overall // 2))      # the other half is kept for joined phones
    if release is None:
        mine = h.slots.of(client) >= per_client
        log.info("live stream refused for %s (%s)", client, "its cap" if mine else "all streams taken")
        resp = jsonify({"error": ("this address has too many live streams open" if mine else
                                  "the table has too many live streams open") +
                                 ": the page reads the table every few seconds and tries again"})
        resp.status_code = 503
        resp.headers["Retry-After"] = str(int(cfg["SSE_RETRY_AFTER"]))
        return resp
    last = request.headers.get("Last-Event-ID") or request.args.get("last")
    stream = h.broadcaster.stream(h.table.snapshot, last_event_id=last,
                                  heartbeat=float(cfg["SSE_HEARTBEAT"]), max_age=float(cfg["SSE_MAX_AGE"]),
                                  clock=cfg["CLOCK"], catch_up=("board",),
                                  gone=request.environ.get("waitress.client_disconnected"))

    def held():
        try:
            yield from stream
        finally:
            release()
    resp = Response(held(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    resp.call_on_close(release)          # also when the server closes it before the first message
    return resp


def session_info() -> dict:
    """Return what this phone may do: role, CSRF token, join code (joined phones only), sim, faults."""
    s = ensure_session()
    h = hub()
    who = role()
    info = {
        "role": who,
        "claimable": not h.access.claimed,
        "csrf": s["csrf"],
        "sim": h.buttons is not None,
        "board": h.board is not None,
        "faults": list(h.faults),
        "epoch": h.access.epoch,
    }
    players = _players(h)
    info["seats"] = h.seats.taken(players)        # a visitor is asked whose phone it joins as: the seats taken
    info["shared_seats"] = h.seats.shared
    if who != "visitor":
        info["join_code"] = h.access.join_code
        info["phones"] = h.access.phones
        info["seat"] = h.seats.seat_of(s["device"], players)
    if who == "host":                             # the host may hand a seat to a phone, and take it back
        info["phone_list"] = [{"phone": i + 1, "name": _phone_name(h, d), "seat": h.seats.seat_of(d, players)}
                              for i, d in enumerate(h.access.devices)]
        info["phone"] = _phone_name(h)        # how the other phones call this one (told when a fix moves its card)
    return info


def _players(h) -> list[str]:
    """Return the names of the players at the table (the seats a phone may belong to)."""
    return list(h.current().get("players") or [])


def _take_seat(h, device: str, seat, *, dry: bool = False, shared: "bool | None" = None) -> None:
    """Make ``device`` the phone of ``seat`` (None: nobody's; ``shared``: the host's choice with it);
    400 not a player, 409 taken: either way nothing changes."""
    try:
        h.seats.take(device, seat, _players(h), dry=dry, shared=shared)
    except SeatTaken as exc:
        abort(409, str(exc))
    except ValueError as exc:
        abort(400, str(exc))
    if not dry:
        h.seats_changed()


@bp.get("/session")
def get_session():
    """Return this phone's role and CSRF token (creating its session)."""
    return jsonify(session_info())


@bp.post("/claim")
def claim():
    """Make this phone the host of an unclaimed table (body ``{}``); 409 when a host already holds it."""
    json_body()
    s = ensure_session()
    h = hub()
    if not h.access.claim(s["device"]):
        abort(409, "this table already has a host: ask for the join code, "
                   "or hold the board's menu button for 5 s to release it")
    s["epoch"] = h.access.epoch
    s["joined"] = True
    return jsonify(session_info())


@bp.post("/join")
def join():
    """Join the table with the host's code; 403 on a wrong code, 429 after too many."""
    body = json_body()
    s = ensure_session()
    h = hub()
    client = request.remote_addr or "?"
    wait = h.limiter.retry_after(client)
    if wait:
        resp = jsonify({"error": f"too many wrong codes: try again in {wait} s"})
        resp.status_code = 429
        resp.headers["Retry-After"] = str(wait)
        return resp
    code = body.get("code")
    if not isinstance(code, str) or not JOIN_CODE.match(code.strip()):
        abort(400, "the join code is 6 digits")
    seat = body.get("seat")
    if seat is not None:
        _take_seat(h, s["device"], seat, dry=True)     # checked before joining: a join is never half done
    if not h.access.claimed:
        abort(409, "nobody hosts this table yet: take it as host instead")
    if not h.access.check_code(code):
        h.limiter.failed(client)
        abort(403, "wrong join code")
    epoch = h.access.epoch
    h.access.joined(s["device"])         # stored first: a join that cannot be stored leaves a visitor (503)
    if seat is not None:
        _take_seat(h, s["device"], seat)
    s["epoch"] = epoch
    s["joined"] = True
    return jsonify(session_info())


@bp.post("/seat")
@require_joined
def seat():
    """Say whose phone this is: ``{"seat": "Ann"}``, or ``{"seat": null}`` for nobody's; the host may
    allow more than one phone per seat with ``{"shared": true}``, and hand a seat to another phone, or take
    it back, with ``{"phone": n, "seat": ...}`` (n: the phone's number in ``/api/session``'s ``phone_list``)."""
    body = json_body()
    s = ensure_session()
    h = hub()
    device = s["device"]
    if "phone" in body:
        n, devices = body["phone"], list(h.access.devices)
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(devices):
            abort(400, f"phone is the number of a phone at the table, 1 to {len(devices)}")
        if role() != "host":
            abort(403, "only the host hands a seat to another phone")
        if "seat" not in body:
            abort(400, "say the seat to hand to that phone (a player's name, or null to take it back)")
        device = devices[n - 1]
    shared = body.get("shared")
    if "shared" in body:
        if not isinstance(shared, bool):
            abort(400, "shared is true or false")
        if role() != "host":
            abort(403, "only the host decides whether several phones may share a seat")
    if "seat" in body:               # the seat and the sharing are checked, then stored, as one change
        _take_seat(h, device, body["seat"], shared=shared)
    elif "shared" in body:
        h.seats.allow_shared(shared)
        h.seats_changed()
    else:
        abort(400, "say the seat (a player's name, or null) or, as the host, shared: true/false")
    return jsonify(session_info())


def _client_id(body: dict) -> "str | None":
    cid = body.pop("client_id", None)
    if cid is None:
        return None
    if not isinstance(cid, str) or not CLIENT_ID.match(cid):
        abort(400, "client_id must be 1-64 letters, digits or ._:-")
    return cid


@bp.post("/command")
@require_joined
def command():
    """Submit one table command (``{"type": ..., ...}``, optional ``client_id``); 400 when refused.

    Returns ``{"event": <the stored event>, "seq": <its seq>}``: the new state
    reaches every phone, the sender included, on the live stream. A repeated
    ``client_id`` returns the original event and applies nothing.
    """
    body = json_body()
    cid = _client_id(body)
    if not isinstance(body.get("type"), str):
        abort(400, "a command needs a \"type\" (new_match, peg, undo, turnup, play, go, show, pocket, place, layout, ...)")
    h = hub()
    if body["type"] in ("play", "go") and body.get("player") is None:
        mine = h.seats.seat_of(ensure_session()["device"], _players(h))
        if mine is not None:       # a card entered on Ann's phone without picking a player is Ann's
            body["player"] = mine
            body["by_seat"] = True   # and never a guess (the show's question names only guesses)
    credits = _credits(h) if body["type"] == "amend" else None
    try:
        ev = h.table.submit(body, client_id=cid)
    except StaleCommand as exc:
        # made from a state the table has left: the sender sees the state it missed on the stream, and is
        # told what was entered meanwhile, from which phone, and the amend that fits its entry in (issue 14)
        for m in exc.data.get("meanwhile", []):
            if h.entered_by.get(m["seq"]):
                m["by"] = h.entered_by[m["seq"]]
        resp = jsonify({**exc.data, "error": str(exc), "stale": True, "seq": h.table.snapshot()["seq"]})
        resp.status_code = 400
        return resp
    except RulesError as exc:
        return _refused(exc)
    h.note_entered(ev.get("seq"), _phone_name(h))
    if credits is not None and not ev.get("duplicate"):
        _tell_moved(h, credits, ev)
    return jsonify({"event": ev, "seq": ev["seq"]})


def _credits(h) -> dict:
    """Return who each card of the matching phase is entered for now: card -> {player, seq}."""
    return {c["card"]: c for c in (h.table.snapshot().get("hand") or {}).get("credits") or []}


def _tell_moved(h, before: dict, ev: dict) -> None:
    """Tell every page which cards an amend moved to another player, and which phone had entered each
    (a ``moved`` event on the live stream): that phone says "Your 10D is now Bob's" (issue 26)."""
    after = _credits(h)
    moved = [{"card": card, "from": was["player"], "to": now["player"], "phone": h.entered_by.get(was["seq"])}
             for card, was in before.items() for now in [after.get(card)]
             if now is not None and now["player"] != was["player"]]
    if moved:
        h.broadcaster.publish("moved", {"seq": ev.get("seq"), "by": _phone_name(h), "text": ev.get("text") or "",
                                        "moved": moved})


def _phone_name(h, device: "str | None" = None) -> str:
    """Return how other phones call this one (or ``device``): "Ann's phone", "the host's phone", "phone 3"."""
    device = device or ensure_session()["device"]
    seat = h.seats.seat_of(device, _players(h))
    if seat:
        return f"{seat}'s phone"
    if device == h.access.host:
        return "the host's phone"
    devices = list(h.access.devices)
    return f"phone {devices.index(device) + 1}" if device in devices else "another phone"


@bp.post("/import")
@require_joined
def import_record():
    """Replay a game record (``{"record": {...}}``) as the current match; 400 when it does not replay."""
    body = json_body()
    record = body.get("record")
    if not isinstance(record, dict):
        abort(400, "expected {\"record\": <the exported game record>}")
    h = hub()
    try:
        result = records.import_record(h.table, record)
    except RulesError as exc:
        return _refused(exc)
    return jsonify({"result": result, "table": h.table.snapshot()})


@bp.get("/history")
def history():
    """Return ``{"events": [...]}``: every event of the current match with its breakdown.

    ``?since=N`` keeps only the events whose ``seq`` is N or more (the page
    asks for the steps of the event it has just heard of: a card that scores
    a run and then the point for last is two steps). 400 when N is not a
    plain whole number from 0 to 2^53 - 1 (:mod:`web.query`).
    """
    since = request.args.get("since")      # a plain whole number 0 to 2^53 - 1: checked by web.query
    return jsonify({"events": hub().table.history(int(since) if since is not None else 0)})


@bp.get("/export")
def export():
    """Return the game record (JSON) as a download named after the match."""
    try:
        record = hub().table.export_record()
    except RulesError as exc:
        abort(404, str(exc))
    match = str(hub().table.snapshot().get("match_id") or "game")
    name = re.sub(r"[^A-Za-z0-9_-]", "", match)[:40] or "game"
    return Response(json.dumps(record, indent=1), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="landsend-{name}.json"'})


def _option_spec(rules, name: str, help_text: str) -> "dict | None":
    fields = {f.name for f in dataclasses.fields(rules)}
    spec: dict = {"name": name, "help": help_text}
    if name == "players":
        if not rules.player_choices:
            return None
        spec.update(type="choice", choices=[rules.players, *rules.player_choices], default=rules.players)
    elif name == "direction" and not rules.house:
        return None
    elif name == "go_lead" and not rules.go_lead_applies:     # a two-hand rule (L9); M2 elsewhere
        return None
    elif name in CHOICES and name in fields:
        spec.update(type="choice", choices=list(CHOICES[name]), default=getattr(rules, name))
    elif name in fields:
        value = getattr(rules, name)
        spec.update(type="bool" if isinstance(value, bool) else "int", default=value)
    else:
        spec.update(type="bool", default=name == "stake_multipliers")
    return spec


def presets() -> list[dict]:
    """Return every preset with its description, seats and house-rule options."""
    out = []
    for r in RULESETS.values():
        opts = [s for s in (_option_spec(r, n, h) for n, h in OPTIONS.items()) if s]
        out.append({"name": r.name, "title": r.title, "description": r.description,
                    "players": r.players, "player_choices": list(r.player_choices),
                    "partnerships": r.partnerships, "house": r.house, "house_plays": r.house_plays,
                    "grid": r.grid, "grid_crib": r.crib_total, "pegging": r.pegging, "held": r.held,
                    "pocket_name": r.pocket_name, "target": r.target, "reach": r.reach,
                    "options": opts})
    return out


@bp.get("/presets")
def get_presets():
    """Return ``{"presets": [...]}``: every game a table can start, with its options."""
    return jsonify({"presets": presets()})


def _truthy(value: "str | None") -> bool:
    if value is None or value.strip().lower() in ("", "0", "false", "no", "off"):
        return False
    if value.strip().lower() in ("1", "true", "yes", "on"):
        return True
    abort(400, f"expected true or false, not {value!r}")


@bp.get("/quick")
def quick():
    """Return the count of one hand (``hand``, ``starter``, ``crib``), a 5-card grid ``line`` or a 25-card ``grid`` under ``game``.

    A calculator: needs no game and changes nothing. ``options`` is an
    optional JSON object of house rules.
    """
    args = request.args
    game = args.get("game", "lands-end")
    opts = parse_json(args.get("options") or "{}", "options must be a JSON object")
    if not isinstance(opts, dict):
        abort(400, "options must be a JSON object")
    try:
        rules = get_ruleset(game, **opts)
        if args.get("grid"):
            result = score_grid(args["grid"].replace(",", " ").split(), game=rules).to_dict()
            result["total"] = result["rows_total"] + result["cols_total"]
            return jsonify(result)
        if args.get("line"):
            # one row or column of a tabletop grid: 5 cards, no turn-up; flush and zero bonus by the line rules
            return jsonify(score_line(args["line"].replace(",", " ").split(), game=rules).to_dict())
        hand = args.get("hand", "").replace(",", " ").split()
        starter = args.get("starter", "").strip()
        if not starter:
            abort(400, "give the turn-up card (starter)")
        b = score_hand(hand, starter, crib=_truthy(args.get("crib")), game=rules)
    except RulesError as exc:
        return _refused(exc)
    return jsonify(b.to_dict())


@bp.post("/sim/press")
def sim_press():
    """Press a simulated board button (``{"button": "p1"|"p2"|"p3"|"menu", "hold": false}``); 404 unless in --sim.

    An optional ``"seconds"`` (0.05 to 10) gives the press length instead:
    the menu button held 5 s releases the table, as on the real board. Once
    the table has a host, only joined phones may press (403 otherwise).
    """
    buttons = hub().buttons
    if buttons is None:
        abort(404, "no simulated buttons: the daemon is not running with --sim")
    if hub().access.claimed and role() == "visitor":
        # the real buttons need a hand at the board; their stand-in on the page needs a joined phone
        abort(403, "this phone has not joined the table: the simulated buttons, like every change, "
                   "need the join code once the table has a host")
    body = json_body()
    name = body.get("button")
    hold = body.get("hold", False)
    seconds = body.get("seconds")
    if name not in SIM_BUTTONS:
        abort(400, f"button must be one of {', '.join(SIM_BUTTONS)}")
    if not isinstance(hold, bool):
        abort(400, "hold must be true or false")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not SIM_PRESS_SECONDS[0] <= seconds <= SIM_PRESS_SECONDS[1]):
        abort(400, "seconds must be a number from {} to {}".format(*SIM_PRESS_SECONDS))
    try:
        if seconds is None:
            buttons.press(name, hold=hold)
        else:
            buttons.press(name, hold=hold, seconds=float(seconds))
    except StoreError:                            # not stored (a full disk): 503, shown as a fault
        raise
    except (ValueError, RuntimeError) as exc:     # e.g. a board wired without a third button
        abort(400, str(exc))
    out = {"pressed": name, "hold": hold, "table": hub().table.snapshot()}
    if seconds is not None:
        out["seconds"] = seconds
    return jsonify(out)

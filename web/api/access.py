"""Who may do what: this phone's session, taking the table as host, joining with the code, whose phone
it is (``/api/session``, ``/api/claim``, ``/api/join``, ``/api/seat``)."""

from __future__ import annotations

import re

from flask import Blueprint, abort, jsonify, request

from ..guard import ensure_session, hub, json_body, require_joined, role
from ..seats import SeatTaken

bp = Blueprint("access", __name__, url_prefix="/api")

JOIN_CODE = re.compile(r"^\d{6}$")


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
        "boot": h.boot,
    }
    names = players(h)
    info["seats"] = h.seats.taken(names)        # a visitor is asked whose phone it joins as: the seats taken
    info["shared_seats"] = h.seats.shared
    if who != "visitor":
        info["join_code"] = h.access.join_code
        info["phones"] = h.access.phones
        info["seat"] = h.seats.seat_of(s["device"], names)
        info["phone"] = phone_name(h)        # how the other phones call this one (told when a fix moves its card)
        info["notes"] = h.notes_of(s["device"])   # what amends moved of this phone's entries, not yet read
    if who == "host":                             # the host may hand a seat to a phone, and take it back
        info["phone_list"] = [{"phone": i + 1, "name": phone_name(h, d), "seat": h.seats.seat_of(d, names)}
                              for i, d in enumerate(h.access.devices)]
    return info


def players(h) -> list[str]:
    """Return the names of the players at the table (the seats a phone may belong to)."""
    return list(h.current().get("players") or [])


def _take_seat(h, device: str, seat, *, dry: bool = False, shared: "bool | None" = None) -> None:
    """Make ``device`` the phone of ``seat`` (None: nobody's; ``shared``: the host's choice with it);
    400 not a player, 409 taken: either way nothing changes."""
    try:
        h.seats.take(device, seat, players(h), dry=dry, shared=shared)
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


def phone_name(h, device: "str | None" = None) -> str:
    """Return how other phones call this one (or ``device``): "Ann's phone", "the host's phone", "phone 3"."""
    device = device or ensure_session()["device"]
    seat = h.seats.seat_of(device, players(h))
    if seat:
        return f"{seat}'s phone"
    if device == h.access.host:
        return "the host's phone"
    devices = list(h.access.devices)
    return f"phone {devices.index(device) + 1}" if device in devices else "another phone"

"""Changes to the table: a command from a phone (``/api/command``), and the simulated board buttons
(``/api/sim/press``, only with ``--sim``)."""

from __future__ import annotations

import hashlib
import hmac
import re

from flask import Blueprint, abort, current_app, jsonify

from companion import RulesError
from companion.errors import StaleCommand, StoreError
from companion.host import HOST_COMMANDS

from . import refused
from .access import phone_name, players
from ..guard import ensure_session, hub, json_body, require_joined, role

bp = Blueprint("commands", __name__, url_prefix="/api")

CLIENT_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,55}$")
"""A phone's client id; stored as ``<its phone's tag>.<id>`` (:func:`table_client_id`), 64 at most."""
SIM_BUTTONS = ("p1", "p2", "p3", "menu")
SIM_PRESS_SECONDS = (0.05, 10)                # a simulated press may last this long (menu 5 s: release)


def _client_id(body: dict) -> "str | None":
    cid = body.pop("client_id", None)
    if cid is None:
        return None
    if not isinstance(cid, str) or not CLIENT_ID.match(cid):
        abort(400, "client_id must be 1-55 letters, digits or ._:-")
    return table_client_id(cid)


_TAGS: "dict[tuple[str, str], str]" = {}        # (secret key, device) -> its tag, for the last few hundred phones


def phone_tag(device: str) -> str:
    """Return the tag of the phone with session ``device``: 8 hex digits keyed by the page's secret key, so
    the stored client id says which phone sent an entry (after a restart too) and gives away no session."""
    secret = str(current_app.config["SECRET_KEY"])
    tag = _TAGS.get((secret, device))
    if tag is None:
        tag = hmac.new(secret.encode(), device.encode(), hashlib.sha256).hexdigest()[:8]
        if len(_TAGS) >= 256:
            _TAGS.clear()
        _TAGS[(secret, device)] = tag
    return tag


def table_client_id(cid: str) -> str:
    """Return the client id the table stores for this phone's ``cid``: its phone's tag, a dot, ``cid``. A
    repeat is recognised per phone, and no phone can ask after (or collide with) another phone's ids."""
    return f"{phone_tag(ensure_session()['device'])}.{cid}"


def _entered_on(h, seqs: "list[int]") -> "dict[int, str]":
    """Return the device that entered each of the current hand's ``seqs`` (kept since this start, or read
    from the tag of its stored client id: a power cut between the entry and an amend loses nobody's note)."""
    out = {s: h.entered_on[s] for s in seqs if s in h.entered_on}
    missing = [s for s in seqs if s not in out]
    if missing:
        clients = h.table.hand_clients()
        tags = {phone_tag(d): d for d in h.access.devices}
        for s in missing:
            tag = (clients.get(s) or "").partition(".")[0]
            if tag in tags:
                out[s] = tags[tag]
    return out


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
    if body["type"] in HOST_COMMANDS:
        # renames, merges and nights say something of every game kept: the host's only; the table judges them
        # against the season (its verify context's host_check, web.season.judge_host_events)
        from ..season import HOST_ONLY, building
        if role() != "host":
            abort(403, HOST_ONLY)
        not_yet = building(503)          # the season is being worked out from the games kept: not yet
        if not_yet is not None:
            return not_yet
    h = hub()
    if body["type"] in ("play", "go") and body.get("player") is None:
        mine = h.seats.seat_of(ensure_session()["device"], players(h))
        if mine is not None:       # a card entered on Ann's phone without picking a player is Ann's
            body["player"] = mine
            body["by_seat"] = True   # and never a guess (the show's question names only guesses)
    before = h.table.hand_entries() if body["type"] == "amend" else None
    try:
        ev = h.table.submit(body, client_id=cid)
    except StaleCommand as exc:
        # made from a state the table has left: the sender sees the state it missed on the stream, and is
        # told what was entered meanwhile, from which phone, and the amend that fits its entry in (issue 14)
        meanwhile = exc.data.get("meanwhile", [])
        devices = _entered_on(h, [m["seq"] for m in meanwhile if not h.entered_by.get(m["seq"])])
        for m in meanwhile:
            if h.entered_by.get(m["seq"]):
                m["by"] = h.entered_by[m["seq"]]
            elif m["seq"] in devices:        # entered before a restart: named from its stored client id
                m["by"] = phone_name(h, devices[m["seq"]])
        resp = jsonify({**exc.data, "error": str(exc), "stale": True, "seq": h.table.snapshot()["seq"]})
        resp.status_code = 400
        return resp
    except RulesError as exc:
        return refused(exc)
    device = ensure_session()["device"]
    if not ev.get("duplicate"):
        h.note_entered(ev.get("seq"), phone_name(h), device)
        if before is not None:
            _tell_moved(h, before, ev, device)
        if ev.get("type") == "doubt" and ev.get("fix"):
            _tell_doubted(h, ev, device)
    return jsonify({"event": ev, "seq": ev["seq"]})


def _tell_doubted(h, ev: dict, dismisser: str) -> None:
    """Tell the phone whose entry a dismissed fix would have changed that it stands in doubt (issue 36): kept
    for that phone until read, like an amend's note; the phone that dismissed it is not told."""
    entry = next((e for e in h.table.hand_entries() if e.get("seq") == ev["entry"]), None)
    device = _entered_on(h, [ev["entry"]]).get(ev["entry"])
    if entry is None or device is None or device == dismisser:
        return
    by = phone_name(h)
    h.tell(device, {"seq": ev.get("seq"), "by": by, "text": f"Your {_entry_words(entry)} is in doubt: {by} "
                    f"dismissed a fix that would change it ({ev['text']}). The table asks again if that card is "
                    f"entered again, and before the show."})


def _entry_words(e: dict) -> str:
    """Return an entry as the notes word it: "10D for Bob", "go for Bob", "5H at row 2, col 1"."""
    kind = e["type"]
    if kind == "play":
        return f"{e.get('card')} for {e.get('player')}"
    if kind == "go":
        return f"go for {e.get('player')}"
    if kind == "place":
        return f"{e.get('card')} " + ("in the crib" if e.get("crib") else f"at row {e.get('row')}, col {e.get('col')}")
    if kind == "peg":
        return f"+{e.get('points')} for {e.get('side')}"
    return kind.replace("_", " ") + (f" {e['card']}" if e.get("card") else "")


def _change_words(was: dict, now: "dict | None") -> str:
    """Return what an amend did to one entry, as its phone reads it ("Your 10D is now Ann's (it was Bob's)")."""
    if now is None:
        return f"Your {_entry_words(was)} was taken out"
    if was["type"] == now["type"] == "play" and was.get("card") == now.get("card"):
        return f"Your {was['card']} is now {now.get('player')}'s (it was {was.get('player')}'s)"
    if was["type"] == now["type"] == "go":
        return f"Your go for {was.get('player')} is now {now.get('player')}'s"
    return f"Your {_entry_words(was)} is now {_entry_words(now)}"


def _tell_moved(h, before: list[dict], ev: dict, amender: str) -> None:
    """Tell each phone whose entry an amend moved, taken out or changed (a card to another player, a go
    removed or made another player's) what changed and by whom (issue 26): the note is kept for that phone
    until it has read it (:meth:`web.hub.Hub.tell`), so a phone out of range or reloading still gets it."""
    after = {e["seq"]: e for e in h.table.hand_entries()}
    moved = [was for was in before if after.get(was["seq"]) != was]
    entered_on = _entered_on(h, [was["seq"] for was in moved])
    by_phone: dict[str, list[str]] = {}
    for was in moved:
        device = entered_on.get(was["seq"])
        now = after.get(was["seq"])
        if device is None or device == amender or now == was:
            continue
        by_phone.setdefault(device, []).append(_change_words(was, now))
    by = phone_name(h)
    for device, changes in by_phone.items():
        h.tell(device, {"seq": ev.get("seq"), "by": by, "text": "; ".join(changes) + f": {by} amended it ("
                        + (ev.get("text") or "an amend") + ")."})


@bp.get("/entered/<client_id>")
@require_joined
def entered(client_id: str):
    """Return what became of the command this phone sent with ``client_id`` (one it dropped without an
    answer): ``{"event", "live", "top", "seq"}`` (``seq``: the table's now); 404 with ``seq`` when the table
    never stored it in this match. A stored, live entry can then be undone (``top``) or amended away."""
    if not CLIENT_ID.match(client_id):
        abort(400, "client_id must be 1-55 letters, digits or ._:-")
    h = hub()
    got = h.table.entered(table_client_id(client_id))
    seq = h.table.snapshot()["seq"]
    if got is None:
        resp = jsonify({"error": "the table never took this command", "seq": seq})
        resp.status_code = 404
        return resp
    return jsonify({**got, "seq": seq})


@bp.post("/notes/read")
@require_joined
def notes_read():
    """Say this phone has shown its notes up to ``{"upto": id}`` (what amends moved of its entries)."""
    upto = json_body().get("upto")
    if isinstance(upto, bool) or not isinstance(upto, int):
        abort(400, "upto is the id of the last note read")
    hub().read_notes(ensure_session()["device"], upto)
    return jsonify({"notes": hub().notes_of(ensure_session()["device"])})


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

"""The records and the calculators: the current match's history, its export and the import of a record,
every preset with its options, the quick count (``/api/history``, ``/api/export``, ``/api/import``,
``/api/presets``, ``/api/quick``)."""

from __future__ import annotations

import dataclasses
import json
import re

from flask import Blueprint, Response, abort, jsonify, request

from companion import RULESETS, RulesError, get_ruleset, score_grid, score_hand, score_line
from companion import replay as records
from companion.rulesets import CHOICES, OPTIONS

from . import refused
from ..guard import hub, json_body, parse_json, require_joined

bp = Blueprint("records", __name__, url_prefix="/api")


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
        return refused(exc)
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
        return refused(exc)
    return jsonify(b.to_dict())

"""Discard advice on the page: the practice calculator, the live hand (when the table allows it), the review.

All three are GET requests that change nothing. Refusals are 400 (403 for live
advice the table does not allow) with ``{"error": "<one sentence>"}``; see
``docs/api.md`` and ``docs/advice.md``.
"""

from __future__ import annotations

from flask import Blueprint, abort, jsonify, request

from companion import RulesError, get_ruleset
from companion.errors import NotAllowed

from .guard import hub, parse_json

# The advice modules are imported by the first request that asks for advice, not at start-up: the board
# answers its phones sooner (issue 25), and nothing else needs them.

bp = Blueprint("advice", __name__, url_prefix="/api")

MAX_THROWN = 5                 # players who may say which pocket cards were theirs


def _refused(exc: RulesError, status: int = 400):
    resp = jsonify({"error": str(exc)})
    resp.status_code = status
    return resp


def _int(name: str) -> "int | None":
    value = request.args.get(name)
    if value is None or value == "":
        return None
    if not value.strip().lstrip("-").isdigit() or len(value) > 3:
        abort(400, f"{name} must be a whole number, not {value[:20]!r}")
    return int(value)


def _bool(name: str) -> "bool | None":
    value = request.args.get(name)
    if value is None or value == "":
        return None
    low = value.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    abort(400, f"{name} must be true or false, not {value[:20]!r}")


def _practice_rules():
    """The ruleset of a practice request: ``game`` and ``options`` (a JSON object of house rules)."""
    opts = parse_json(request.args.get("options") or "{}", "options must be a JSON object")
    if not isinstance(opts, dict):
        abort(400, "options must be a JSON object")
    return get_ruleset(request.args.get("game", "lands-end"), **opts)


def _advice_refused(exc: RulesError):
    """400 with the reason, 403 where the table does not allow advice during a hand (``NotAllowed``)."""
    return _refused(exc, 403 if isinstance(exc, NotAllowed) else 400)


@bp.get("/advise")
def get_advise():
    """Return every discard of ``cards`` ranked (the JSON of ``landsend advise --json``).

    Practice: ``cards``, ``game``, ``options`` (a JSON object), ``dealer`` or
    ``seat``, ``owner`` (a seat or ``house``, where the pocket rotates),
    ``scores`` (``7,3``: yours first). Live: ``player=<name>`` takes the game,
    seat, pocket owner and scores from the table's hand in progress; 403 unless
    the table's ``live_advice`` house rule is on.
    """
    from companion.advice.discard import advise
    from companion.advice.review import live_request
    args = request.args
    cards = args.get("cards", "").replace(",", " ").split()
    if not cards:
        abort(400, "give the dealt cards: cards=5H,5S,6D,JC,4C,KD")
    try:
        pegging = _bool("pegging") is not False
        if args.get("player") is not None:
            kw = live_request(hub().table.snapshot(), args["player"])
            return jsonify(advise(cards, pegging=pegging, **kw).to_dict())
        rules = _practice_rules()
        owner = "house" if args.get("owner") == "house" else _int("owner")
        a = advise(cards, game=rules, dealer=_bool("dealer"), seat=_int("seat"), pocket_owner=owner,
                   scores=args.get("scores") or None, pegging=pegging)
    except RulesError as exc:
        return _advice_refused(exc)
    return jsonify(a.to_dict())


@bp.get("/lead")
def get_lead():
    """Return every play of ``cards`` ranked (the JSON of ``landsend lead --json`` / ``peg-advice --json``).

    Practice: ``cards`` (your cards left), ``game``, ``options``, ``dealer``, ``turnup``,
    ``played`` (cards and ``go`` in order; none for the lead), ``seen`` (your discards);
    three- and four-hand games take ``seat`` (from the dealer, 1 leads) and answer with a
    seeded sample of the other players' deals or, late in a hand, exactly (``assumption``).
    Live: ``player=<name>`` takes the game, the plays so far, the dealer and the turn-up
    from the table's matching phase in progress; 403 unless ``live_advice`` is on.
    """
    from companion.advice.pegging_multi import rank_plays
    from companion.advice.review import live_peg_request
    args = request.args
    cards = args.get("cards", "").replace(",", " ").split()
    if not cards:
        abort(400, "give your cards: cards=5H,9C,JD,KS")
    seen = args.get("seen", "").replace(",", " ").split()
    try:
        if args.get("player") is not None:
            kw = live_peg_request(hub().table.snapshot(), args["player"])
            return jsonify(rank_plays(cards, seen=seen, **kw).to_dict())
        rules = _practice_rules()
        played = args.get("played", "").replace(",", " ").split()
        a = rank_plays(cards, game=rules, played=played, dealer=bool(_bool("dealer")),
                       turnup=args.get("turnup") or None, seen=seen, seat=_int("seat"))
    except RulesError as exc:
        return _advice_refused(exc)
    return jsonify(a.to_dict())


@bp.get("/review")
def get_review():
    """Return the review of the hand just shown (``companion.advice.review.review_hand``).

    ``thrown=<name>:<card>,<card>`` (repeatable) says which pocket cards a
    player threw; ``pegging=1`` adds each card played against the model's best (three- and
    four-hand games: sampled early in the count, as ``/api/lead``). 400 before any hand's pocket has been counted.
    """
    from companion.advice.review import review_hand
    thrown = {}
    for item in request.args.getlist("thrown")[:MAX_THROWN]:
        name, sep, cards = item.partition(":")
        if not sep or not name.strip():
            abort(400, "thrown is written NAME:CARD,CARD")
        thrown[name.strip()] = cards
    try:
        return jsonify(review_hand(hub().table.snapshot(), thrown, pegging=bool(_bool("pegging"))))
    except RulesError as exc:
        return _refused(exc)

"""Discard advice on the page: the practice calculator, the live hand (when the table allows it), the review.

All three are GET requests that change nothing. Refusals are 400 (403 for live
advice the table does not allow) with ``{"error": "<one sentence>"}``; see
``docs/api.md`` and ``docs/advice.md``. Each can also be started as a job
(``POST /api/jobs {"kind": "advise" | "lead" | "review", "args": {<the same
query>}}``, :mod:`web.jobs`; a joined phone's): the page does, so a long answer runs in the job
worker, off the phones' threads and the table's lock, says how far it is and
can be cancelled. The GET routes answer in the request (for scripts and the
console's users), at most :data:`AT_ONCE` at a time.
"""

from __future__ import annotations

import threading

from flask import Blueprint, abort, jsonify, request

from companion import RulesError, get_ruleset
from companion.errors import NotAllowed

from .guard import hub, parse_json

# The advice modules are imported by the first request that asks for advice, not at start-up: the board
# answers its phones sooner (issue 25), and nothing else needs them.

bp = Blueprint("advice", __name__, url_prefix="/api")

MAX_THROWN = 5                 # players who may say which pocket cards were theirs
AT_ONCE = 2                    # advice answered in a request thread at once (the rest: 503, or start a job)
_at_once = threading.BoundedSemaphore(AT_ONCE)


def _refused(exc: RulesError, status: int = 400):
    resp = jsonify({"error": str(exc)})
    resp.status_code = status
    return resp


def _int(args, name: str) -> "int | None":
    value = args.get(name)
    if value is None or value == "":
        return None
    if not value.strip().lstrip("-").isdigit() or len(value) > 3:
        abort(400, f"{name} must be a whole number, not {value[:20]!r}")
    return int(value)


def _bool(args, name: str) -> "bool | None":
    value = args.get(name)
    if value is None or value == "":
        return None
    low = value.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    abort(400, f"{name} must be true or false, not {value[:20]!r}")


def _practice_rules(args):
    """The ruleset of a practice request: ``game`` and ``options`` (a JSON object of house rules)."""
    opts = parse_json(args.get("options") or "{}", "options must be a JSON object")
    if not isinstance(opts, dict):
        abort(400, "options must be a JSON object")
    return get_ruleset(args.get("game", "lands-end"), **opts)


def _advice_refused(exc: RulesError):
    """400 with the reason, 403 where the table does not allow advice during a hand (``NotAllowed``)."""
    return _refused(exc, 403 if isinstance(exc, NotAllowed) else 400)


# --- what each asks: (module, function, keywords, stages); the table is read here, the work done elsewhere ---

def plan_advise(args) -> tuple:
    """Return the call of ``/api/advise`` for the query ``args`` (a MultiDict).

    :raises RulesError: a refusal of the rules (live advice not allowed, an unknown game ...).
    """
    from companion.advice.review import live_request
    cards = args.get("cards", "").replace(",", " ").split()
    if not cards:
        abort(400, "give the dealt cards: cards=5H,5S,6D,JC,4C,KD")
    pegging = _bool(args, "pegging") is not False
    if args.get("player") is not None:
        kw = live_request(hub().table.snapshot(), args["player"])       # the table's lock: one snapshot, no more
    else:
        owner = "house" if args.get("owner") == "house" else _int(args, "owner")
        kw = {"game": _practice_rules(args), "dealer": _bool(args, "dealer"), "seat": _int(args, "seat"),
              "pocket_owner": owner, "scores": args.get("scores") or None}
    stages = [("ranking the discards by the hand", {"pegging": False})]
    if pegging:
        stages.append(("adding what each keeps in the pegging", {"pegging": True}))
    return "companion.advice.discard", "advise", {"cards": cards, **kw, "pegging": pegging}, stages


def plan_lead(args) -> tuple:
    """Return the call of ``/api/lead`` for the query ``args``."""
    from companion.advice.review import live_peg_request
    cards = args.get("cards", "").replace(",", " ").split()
    if not cards:
        abort(400, "give your cards: cards=5H,9C,JD,KS")
    seen = args.get("seen", "").replace(",", " ").split()
    if args.get("player") is not None:
        kw = live_peg_request(hub().table.snapshot(), args["player"])
    else:
        kw = {"game": _practice_rules(args), "played": args.get("played", "").replace(",", " ").split(),
              "dealer": bool(_bool(args, "dealer")), "turnup": args.get("turnup") or None, "seat": _int(args, "seat")}
    return ("companion.advice.pegging_multi", "rank_plays", {"hand": cards, "seen": seen, **kw},
            [("ranking every play", {})])


def plan_review(args) -> tuple:
    """Return the call of ``/api/review`` for the query ``args``."""
    thrown = {}
    for item in args.getlist("thrown")[:MAX_THROWN]:
        name, sep, cards = item.partition(":")
        if not sep or not name.strip():
            abort(400, "thrown is written NAME:CARD,CARD")
        thrown[name.strip()] = cards
    pegging = bool(_bool(args, "pegging"))
    stages = [("reviewing the hand", {"pegging": False})]
    if pegging:
        stages.append(("each card played against the best", {"pegging": True}))
    return ("companion.advice.review", "review_hand",
            {"snap": hub().table.snapshot(), "thrown": thrown, "pegging": pegging}, stages)


PLANS = {"advise": ("advice.get_advise", plan_advise), "lead": ("advice.get_lead", plan_lead),
         "review": ("advice.get_review", plan_review)}
"""Each job kind of advice: the GET endpoint whose query it takes, and its plan."""


def starter(kind: str, plan):
    """Return the starter of the job ``kind`` (:mod:`web.jobkinds`): the plan reads the table in the request,
    the worker process computes."""
    def start(jobs, args, owner):
        return jobs.start_process(kind, owner, plan(args))
    return start


def _answer_here(plan, refused=_advice_refused):
    """Answer a GET in this request: the plan's call (its last stage only), at most :data:`AT_ONCE` at a time."""
    if not _at_once.acquire(blocking=False):
        resp = jsonify({"error": "the board is working out other advice: ask again in a moment, or start it "
                                 "as a job (POST /api/jobs)"})
        resp.status_code, resp.headers["Retry-After"] = 503, "1"
        return resp
    try:
        import importlib
        module, function, kw, stages = plan(request.args)
        result = getattr(importlib.import_module(module), function)(**{**kw, **stages[-1][1]})
    except RulesError as exc:
        return refused(exc)
    finally:
        _at_once.release()
    return jsonify(result.to_dict() if hasattr(result, "to_dict") else result)


@bp.get("/advise")
def get_advise():
    """Return every discard of ``cards`` ranked (the JSON of ``landsend advise --json``).

    Practice: ``cards``, ``game``, ``options`` (a JSON object), ``dealer`` or
    ``seat``, ``owner`` (a seat or ``house``, where the pocket rotates),
    ``scores`` (``7,3``: yours first). Live: ``player=<name>`` takes the game,
    seat, pocket owner and scores from the table's hand in progress; 403 unless
    the table's ``live_advice`` house rule is on.
    """
    return _answer_here(plan_advise)


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
    return _answer_here(plan_lead)


@bp.get("/review")
def get_review():
    """Return the review of the hand just shown (``companion.advice.review.review_hand``).

    ``thrown=<name>:<card>,<card>`` (repeatable) says which pocket cards a
    player threw; ``pegging=1`` adds each card played against the model's best (three- and
    four-hand games: sampled early in the count, as ``/api/lead``). 400 before any hand's pocket has been counted.
    """
    return _answer_here(plan_review, _refused)

"""The JSON API, one blueprint per concern (all under ``/api``): the table's state and its live stream
(:mod:`.live`), who may do what (:mod:`.access`: session, claim, join, seats), changes to the table
(:mod:`.commands`: commands, the simulated buttons) and the records and calculators (:mod:`.records`:
history, export, import, presets, quick count).

Every refusal is a 4xx with ``{"error": "<one sentence>"}``, beside it the
refusal's fields (``undo_to``: :attr:`companion.errors.RulesError.data`); a refused
request changes nothing. See ``docs/api.md`` for the public contract.
"""

from __future__ import annotations

from flask import jsonify

from companion import RulesError


def refused(exc: RulesError):
    """Return the 400 answer of a refused command: its sentence and its fields (``undo_to``, ``amend``)."""
    resp = jsonify({**exc.data, "error": str(exc)})
    resp.status_code = 400
    return resp


from . import access, commands, live, records  # noqa: E402  (they use refused)
from .access import session_info  # noqa: E402,F401  (the page embeds it)
from .records import presets  # noqa: E402,F401

BLUEPRINTS = (live.bp, access.bp, commands.bp, records.bp)

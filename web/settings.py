"""The board's settings the page may change: its voice and its palette.

``GET /api/settings`` returns them; ``POST /api/settings`` (joined phones)
changes any of them, all or nothing; ``POST /api/settings/voice/test`` makes
the board say something, to try the speaker from the page. Changes are live
and last until the daemon restarts (the config file holds the start-up
values, like the brightness the menu button steps).
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify

from .guard import hub, json_body, require_joined

bp = Blueprint("settings", __name__, url_prefix="/api/settings")

#: What the test button says when the page sends no text.
TEST_WORDS = "fifteen two, fifteen four, and a pair is six"
MAX_TEST_TEXT = 200


def _voice():
    return current_app.extensions.get("landsend.voice")


def _palettes(board) -> list[str]:
    return list(getattr(board, "palettes", None) or [])


def _state() -> dict:
    board, voice = hub().board, _voice()
    palette = getattr(getattr(board, "palette", None), "name", None)
    return {"voice": voice.state() if voice is not None else None,
            "palette": palette, "palettes": _palettes(board) if palette is not None else []}


@bp.get("")
def get_settings():
    """Return ``{"voice": {...} | null, "palette": name | null, "palettes": [names]}``."""
    return jsonify(_state())


@bp.post("")
@require_joined
def set_settings():
    """Change the voice (``{"voice": {"enabled", "volume", "voice", "speed"}}``) and/or ``"palette"``.

    400 (nothing changed) for an unknown key or a bad value; 404 when the
    page runs without the board (no voice, no palette to change).
    """
    body = json_body()
    unknown = sorted(set(body) - {"voice", "palette"})
    if unknown:
        abort(400, f"unknown setting {unknown[0]!r} (known: voice, palette)")
    board, voice = hub().board, _voice()
    changes = body.get("voice")
    palette = body.get("palette")
    if changes is not None:
        if voice is None:
            abort(404, "no voice: the page is running without the board")
        if not isinstance(changes, dict):
            abort(400, "voice must be an object such as {\"enabled\": true}")
        try:
            voice.settings.changed(changes)           # validate before changing anything
        except ValueError as exc:
            abort(400, str(exc))
    if palette is not None:
        if getattr(board, "set_palette", None) is None:
            abort(404, "no board: the page is running without the daemon")
        names = _palettes(board)
        if palette not in names:
            abort(400, f"palette must be one of {', '.join(names)}")
    if changes is not None:
        voice.configure(**changes)
    if palette is not None:
        board.set_palette(palette)
    return jsonify(_state())


@bp.post("/voice/test")
@require_joined
def test_voice():
    """Make the board say ``{"text": ...}`` (default: a fifteen two) now; 404 without a voice.

    Answers ``{"queued": true|false, "voice": {...}}``: false when the voice
    is off or has a fault (its ``fault`` says why).
    """
    body = json_body()
    voice = _voice()
    if voice is None:
        abort(404, "no voice: the page is running without the board")
    text = body.get("text", TEST_WORDS)
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEST_TEXT:
        abort(400, f"text must be 1 to {MAX_TEST_TEXT} characters")
    queued = voice.settings.enabled and voice.say(text)
    return jsonify({"queued": bool(queued), "voice": voice.state()})

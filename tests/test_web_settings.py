"""web.settings: the board's voice and palette from the page, all-or-nothing, joined phones only."""

from __future__ import annotations

import pytest

from companion.table import Table
from firmware.geometry import Geometry
from firmware.render import Light
from firmware.render_loop import RenderLoop
from firmware.voice import Settings, Voice
from tests.test_web_api import Phone
from web import create_app


class Recorder:
    """Engine and sink of the voice: keeps what it was asked to say."""

    def __init__(self):
        self.said = []

    def problem(self):
        return None

    def render(self, text, settings):
        return text.encode()

    def play(self, wav, text):
        self.said.append(text)


@pytest.fixture
def rig(tmp_path):
    table = Table.memory()
    rec = Recorder()
    voice = Voice(rec, rec, Settings(enabled=False))
    board = RenderLoop(None, Geometry(), Light(), clock=lambda: 0.0)
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]},
                     table=table, board=board, voice=voice)
    host = Phone(app)
    assert host.claim().status_code == 200
    yield app, host, voice, board, rec
    app.extensions["landsend"].close()
    table.close()


def test_get_settings_shows_voice_and_palette(rig):
    app, host, voice, board, rec = rig
    body = app.test_client().get("/api/settings").get_json()
    assert body["palette"] == "standard" and body["palettes"] == ["standard", "colour-blind"]
    assert {k: body["voice"][k] for k in ("enabled", "volume", "voice", "speed", "ok", "fault", "sink")} == {
        "enabled": False, "volume": 0.8, "voice": "en-gb", "speed": 160, "ok": True, "fault": None, "sink": "alsa"}


def test_a_joined_phone_turns_the_voice_on_and_the_board_colour_blind(rig):
    app, host, voice, board, rec = rig
    r = host.post("/api/settings", {"voice": {"enabled": True, "speed": 200, "voice": "en-us"},
                                     "palette": "colour-blind"})
    assert r.status_code == 200
    assert (r.get_json()["voice"]["enabled"], r.get_json()["voice"]["speed"], r.get_json()["palette"]) == \
        (True, 200, "colour-blind")
    assert voice.settings == Settings(enabled=True, speed=200, voice="en-us")
    board.step()
    assert board.frame_json()["palette"] == "colour-blind"
    r = host.post("/api/settings/voice/test", {})
    assert r.status_code == 200 and r.get_json()["queued"] is True
    host.post("/api/settings/voice/test", {"text": "fifteen two"})
    while voice.step():
        pass
    assert rec.said == ["fifteen two, fifteen four, and a pair is six", "fifteen two"]


@pytest.mark.parametrize("body, error", [
    ({"voice": {"volume": 2}}, "volume must be a number from 0 to 1, got 2"),
    ({"voice": {"enabled": True, "speed": "fast"}}, "speed must be a whole number of words per minute"),
    ({"voice": "on"}, "voice must be an object"),
    ({"palette": "sepia"}, "palette must be one of standard, colour-blind"),
    ({"voice": {"enabled": True}, "palette": "sepia"}, "palette must be one of standard, colour-blind"),
    ({"volume": 1}, "unknown setting 'volume' (known: voice, palette)"),
])
def test_bad_settings_are_400_and_change_nothing(rig, body, error):
    app, host, voice, board, rec = rig
    r = host.post("/api/settings", body)
    assert r.status_code == 400 and error in r.get_json()["error"]
    assert voice.settings == Settings() and board.palette.name == "standard"


def test_visitors_may_look_but_not_change(rig):
    app, host, voice, board, rec = rig
    visitor = Phone(app, "10.0.0.9")
    assert visitor.get("/api/settings").status_code == 200
    assert visitor.post("/api/settings", {"voice": {"enabled": True}}).status_code == 403
    assert visitor.post("/api/settings/voice/test", {}).status_code == 403
    assert voice.settings.enabled is False


def test_the_test_phrase_is_not_queued_while_the_voice_is_off_and_text_is_checked(rig):
    app, host, voice, board, rec = rig
    r = host.post("/api/settings/voice/test", {})
    assert r.status_code == 200 and r.get_json()["queued"] is False
    assert host.post("/api/settings/voice/test", {"text": ""}).status_code == 400
    assert host.post("/api/settings/voice/test", {"text": "x" * 201}).status_code == 400


def test_without_the_board_the_settings_are_null_and_changes_404(tmp_path):
    table = Table.memory()
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    host = Phone(app)
    host.claim()
    assert app.test_client().get("/api/settings").get_json() == {"voice": None, "palette": None, "palettes": []}
    assert host.post("/api/settings", {"voice": {"enabled": True}}).status_code == 404
    assert host.post("/api/settings", {"palette": "colour-blind"}).status_code == 404
    assert host.post("/api/settings/voice/test", {}).status_code == 404
    app.extensions["landsend"].close()
    table.close()

"""firmware.voice: every announcement of a real game spoken by espeak-ng, measured with sox.

The audio checks run Debian's ``espeak-ng`` and ``sox`` (``./test.sh``
installs both when it runs as root, via scripts/ensure-speech.sh); without
them those tests skip and say so. The queue, the faults and the settings are
checked with the real classes and small engines that record what they are
given (no sound, no timing).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from companion.record import drive
from companion.table import Table
from firmware.config import DEFAULTS, ConfigError, VoiceConfig, loads
from firmware.daemon import build
from firmware.voice import AlsaSink, Espeak, Settings, SpeechError, Voice, WavSink, make_voice

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "data" / "records" / "lands-end-two-hands.json"

needs_audio_tools = pytest.mark.skipif(
    shutil.which("espeak-ng") is None or shutil.which("sox") is None,
    reason="espeak-ng and sox are not installed (./test.sh installs them with apt-get when run as root)")


def stat(path: Path) -> dict[str, float]:
    """Return sox's ``stat`` of a sound file: {"Length (seconds)": ..., "RMS amplitude": ..., ...}."""
    out = subprocess.run(["sox", str(path), "-n", "stat"], capture_output=True, text=True, check=True).stderr
    values = {}
    for line in out.splitlines():
        m = re.match(r"^([A-Za-z ()]+?):\s+(-?[0-9.]+)$", line.strip())
        if m:
            values[" ".join(m.group(1).split())] = float(m.group(2))
    return values


def game_announcements() -> list[str]:
    """Return what the table announces, event by event, over the two-hand Land's End record."""
    table = Table.memory()
    said: list[str] = []
    table.subscribe(lambda s: said.append(s["said"]["speech"]) if s.get("said") else None)
    drive(table, json.loads(RECORD.read_text()))
    table.close()
    return said


# --- what is said ------------------------------------------------------------------------------
def test_the_game_announces_each_count_in_the_order_of_play():
    said = game_announcements()
    assert said[:7] == [
        "ten",
        "fifteen for two. Bob played: 2 to Ann",           # Land's End: pegging points go to the opponent
        "twenty-one",
        "twenty-five for a run of three. Bob played: 3 to Ann",
        "twenty-eight for a run of four. Ann played: 4 to Bob",
        "go. Bob said go",
        "go. Ann's go: 1 to Bob",
    ]
    assert said[10:12] == ["fifteen two, and fifteen four. 4 to Ann", "fifteen two, and fifteen four. 4 to Bob"]
    assert len(said) == 22


@needs_audio_tools
def test_every_announcement_of_a_game_is_non_silent_audio_of_plausible_length(tmp_path):
    sink = WavSink(tmp_path, keep=100)
    voice = Voice(Espeak(), sink, Settings(enabled=True), queue=100)
    said = game_announcements()
    for text in said:
        assert voice.say(text)
    while voice.step():
        pass
    files = sink.files()
    assert len(files) == len(said) and voice.spoken == len(said) and voice.fault is None
    for path, text in zip(files, said):
        s = stat(path)
        words = len(text.split())
        # 160 words a minute is 0.375 s a word: allow from half that to twice it, plus the pauses
        assert 0.18 * words <= s["Length (seconds)"] <= 0.75 * words + 1.0, (text, s)
        assert s["RMS amplitude"] > 0.02 and s["Maximum amplitude"] > 0.2, (text, s)
    assert files[1].name == "00002-fifteen-for-two-bob-played-2-to-ann.wav"


@needs_audio_tools
def test_speed_and_volume_change_the_sound():
    engine = Espeak()
    text = "twenty-five for a run of three"
    slow, fast = (len(engine.render(text, Settings(speed=v))) for v in (100, 300))
    assert fast < 0.55 * slow                       # three times the words a minute, well under half the audio
    loud = engine.render(text, Settings(volume=1.0))
    quiet = engine.render(text, Settings(volume=0.25))
    import array
    def rms(wav):
        a = array.array("h", wav[44:])
        return (sum(x * x for x in a) / len(a)) ** 0.5
    assert rms(quiet) < 0.5 * rms(loud)


def landsend(*args):
    """Return the finished ``landsend`` command line (a new process, as a user runs it)."""
    return subprocess.run([sys.executable, "-m", "firmware.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


@needs_audio_tools
def test_landsend_say_renders_to_a_wav_with_the_configured_voice(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('[voice]\nvoice = "en-us"\nspeed = 200\n')
    out = tmp_path / "fifteen.wav"
    done = landsend("say", "fifteen two", "--wav", str(out), "--config", str(cfg))
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("en-us at 200 words a minute\n")
    s = stat(out)
    assert 0.4 <= s["Length (seconds)"] <= 2.0 and s["RMS amplitude"] > 0.02
    done = landsend("say", "fifteen two", "--wav", str(out), "--voice", "zz-nope", "--config", str(cfg))
    assert (done.returncode, done.stderr) == (
        1, "landsend say: espeak-ng -v zz-nope: Error: The specified espeak-ng voice does not exist.\n")
    done = landsend("say", "fifteen two", "--wav", str(out), "--speed", "9", "--config", str(cfg))
    assert (done.returncode, done.stderr) == (
        2, "landsend say: speed must be a whole number of words per minute from 80 to 400, got 9\n")


# --- the queue: bounded, in order, never a backlog ------------------------------------------------
class Recorder:
    """An engine and a sink in one: keeps what it was asked to say."""

    def __init__(self):
        self.said: list[str] = []
        self.settings: list[Settings] = []

    def problem(self):
        return None

    def render(self, text, settings):
        self.settings.append(settings)
        return text.encode()

    def play(self, wav, text):
        self.said.append(wav.decode())


def snap(seq, speech, match="m1"):
    return {"match_id": match, "seq": seq, "said": {"seq": seq, "speech": speech, "text": speech}}


def test_a_burst_keeps_the_newest_in_order_and_drops_the_oldest():
    rec = Recorder()
    voice = Voice(rec, rec, Settings(enabled=True), queue=3)
    for n in range(1, 11):
        voice.update(snap(n, f"count {n}"))
    assert voice.state()["waiting"] == 3 and voice.dropped == 7
    while voice.step():
        pass
    assert rec.said == ["count 8", "count 9", "count 10"]


def test_a_queue_of_one_speaks_only_the_latest():
    rec = Recorder()
    voice = Voice(rec, rec, Settings(enabled=True), queue=1)
    for n in range(1, 4):
        voice.update(snap(n, f"count {n}"))
    while voice.step():
        pass
    assert rec.said == ["count 3"]


def test_the_same_event_twice_an_old_announcement_and_a_disabled_voice_say_nothing():
    rec = Recorder()
    voice = Voice(rec, rec, Settings(enabled=True))
    voice.update(snap(4, "fifteen for two"))
    voice.update(snap(4, "fifteen for two"))
    voice.update({"match_id": "m1", "seq": 5, "said": None})                  # a new game
    voice.update({"match_id": "m1", "seq": 6, "said": {"seq": 4, "speech": "stale"}})  # an undo
    while voice.step():
        pass
    assert rec.said == ["fifteen for two"]
    voice.update(snap(7, "thirty-one for two"))
    voice.configure(enabled=False)                       # turning it off drops what waits, too
    voice.update(snap(8, "go"))
    assert voice.step() is False
    assert rec.said == ["fifteen for two"]


def test_the_thread_speaks_while_the_submitting_thread_only_queues():
    gate, entered = threading.Event(), threading.Event()

    class Slow(Recorder):
        def play(self, wav, text):
            entered.set()
            gate.wait(10)
            super().play(wav, text)

    rec = Slow()
    voice = Voice(rec, rec, Settings(enabled=True), queue=2)
    voice.start()
    try:
        voice.update(snap(1, "one"))
        assert entered.wait(10)                  # the voice thread is inside play(), blocked
        for n in range(2, 6):
            voice.update(snap(n, f"n{n}"))       # returns at once although the speaker is busy
        assert voice.state()["waiting"] == 2
        gate.set()
        assert voice.wait_idle(10)
    finally:
        voice.stop()
    assert rec.said == ["one", "n4", "n5"] and voice.dropped == 2


def test_settings_are_validated_whole_and_used_for_the_next_announcement():
    rec = Recorder()
    voice = Voice(rec, rec, Settings(enabled=True))
    with pytest.raises(ValueError, match="volume must be a number from 0 to 1, got 3"):
        voice.configure(volume=3, speed=200)
    with pytest.raises(ValueError, match="unknown voice setting 'pitch'"):
        voice.configure(pitch=50)
    with pytest.raises(ValueError, match="voice must be an espeak-ng voice name"):
        voice.configure(voice="en; rm -rf /")
    assert voice.settings == Settings(enabled=True)
    voice.configure(voice="en-us", speed=220, volume=0.5)
    voice.say("go")
    voice.step()
    assert rec.settings == [Settings(enabled=True, voice="en-us", speed=220, volume=0.5)]


# --- faults: the board keeps working, silently, and says why ----------------------------------
def test_a_missing_engine_is_a_fault_and_nothing_is_queued(tmp_path):
    faults = []
    voice = Voice(Espeak(binary="espeak-ng-not-here"), WavSink(tmp_path), Settings(enabled=True),
                  on_fault=faults.append)
    assert faults == ["voice: espeak-ng-not-here is not installed (sudo apt install espeak-ng): the board stays silent"]
    assert voice.say("fifteen two") is False and voice.state()["ok"] is False
    assert voice.step() is False


def test_a_disabled_voice_does_not_check_the_engine(tmp_path):
    faults = []
    Voice(Espeak(binary="espeak-ng-not-here"), WavSink(tmp_path), Settings(enabled=False), on_fault=faults.append)
    assert faults == []


@pytest.mark.parametrize("cards, problem", [
    (None, "no sound card: the kernel has no ALSA sound support (/proc/asound/cards is missing)"),
    ("--- no soundcards ---\n", "no sound card: enable the headphone jack, HDMI audio or the I2S amplifier's "
                                "dtoverlay in /boot/firmware/config.txt (docs/hardware.md)"),
    (" 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n", None),
])
def test_the_sound_card_is_looked_for_in_proc_asound(tmp_path, cards, problem):
    path = tmp_path / "cards"
    if cards is not None:
        path.write_text(cards)
    sink = AlsaSink(binary="sh", cards=str(path))          # "sh" stands in for an installed aplay
    assert sink.problem() == problem
    assert AlsaSink(binary="aplay-not-here", cards=str(path)).problem() == \
        "aplay-not-here is not installed (sudo apt install alsa-utils)"


def test_a_failing_sound_card_becomes_a_fault_once_and_the_voice_goes_quiet():
    faults = []

    class Broken(Recorder):
        def play(self, wav, text):
            raise SpeechError("audio device hw:1: cannot open: No such device")

    rec = Broken()
    voice = Voice(rec, rec, Settings(enabled=True), on_fault=faults.append)
    voice.say("one")
    voice.say("two")
    voice.step()
    assert faults == ["voice: audio device hw:1: cannot open: No such device: the board stays silent"]
    assert voice.step() is False and voice.say("three") is False


def test_the_daemon_speaks_the_games_announcements_into_wav_files_in_the_simulator(tmp_path):
    rec = Recorder()
    config = DEFAULTS.replace("voice", enabled=True, sink="wav", wav_dir=str(tmp_path / "said"), queue=10)
    d = build(config, sim=True, table=Table.memory(), web=False)
    try:
        assert isinstance(d.voice.sink, WavSink) and d.voice.sink.directory == tmp_path / "said"
        d.voice.engine = d.voice.sink = rec             # what it would say, without the engine
        d.table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
        for card in ("2C", "10H", "5S"):
            d.table.submit({"type": "turnup" if card == "2C" else "play", "card": card})
        d.buttons.press("p1")
        assert d.voice.wait_idle(10)
        assert rec.said == ["ten", "fifteen for two. Bob played: 2 to Ann", "Ann pegs one. 1 to Ann"]
        assert d.faults == []
    finally:
        d.close()


def test_the_daemon_with_the_voice_on_and_no_engine_keeps_pegging_and_reports_why(tmp_path, monkeypatch):
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))                 # no espeak-ng on the PATH
    monkeypatch.setenv("LANDSEND_STATE_DIR", str(tmp_path))
    config = DEFAULTS.replace("voice", enabled=True, sink="wav", wav_dir=str(tmp_path / "said"))
    d = build(config, sim=True, table=Table.memory(), web=True)
    try:
        assert d.faults == ["voice: espeak-ng is not installed (sudo apt install espeak-ng): the board stays silent"]
        d.buttons.press("p1")
        assert [s["score"] for s in d.table.snapshot()["sides"]] == [1, 0]
        info = d.app.test_client().get("/api/session").get_json()
        assert info["faults"] == d.faults
        assert d.app.test_client().get("/api/settings").get_json()["voice"]["ok"] is False
    finally:
        d.close()


def test_a_voice_that_fails_while_running_is_pushed_to_open_pages_at_once(tmp_path, monkeypatch):
    class Broken(Recorder):
        def play(self, wav, text):
            raise SpeechError("audio device hw:1: cannot open: No such device")

    monkeypatch.setenv("LANDSEND_STATE_DIR", str(tmp_path))
    config = DEFAULTS.replace("voice", enabled=True, sink="wav", wav_dir=str(tmp_path / "said"))
    d = build(config, sim=True, table=Table.memory(), web=True)
    try:
        hub = d.app.extensions["landsend"]
        assert hub.broadcaster.latest("faults") is None and d.faults == []
        d.voice.engine = d.voice.sink = Broken()
        d.buttons.press("p1")                              # announced, then the sound card fails
        assert d.voice.wait_idle(10)
        message = "voice: audio device hw:1: cannot open: No such device: the board stays silent"
        # open pages hear it as a faults event (no reload), and new ones read it in their session
        assert hub.broadcaster.latest("faults") == {"faults": [message]}
        assert d.app.test_client().get("/api/session").get_json()["faults"] == [message]
        d.voice._failed("audio device hw:1: cannot open: No such device")     # the same failure again: once
        assert d.faults == [message]
        assert [s["score"] for s in d.table.snapshot()["sides"]] == [1, 0]   # the board kept pegging
    finally:
        d.close()


def test_make_voice_picks_the_sink():
    assert isinstance(make_voice(VoiceConfig(), sim=True, state_dir="/tmp/x").sink, WavSink)
    assert make_voice(VoiceConfig(), sim=True, state_dir="/tmp/x").sink.directory == Path("/tmp/x/voice")
    assert isinstance(make_voice(VoiceConfig(), sim=False, state_dir=None).sink, AlsaSink)
    assert isinstance(make_voice(VoiceConfig(sink="alsa"), sim=True, state_dir=None).sink, AlsaSink)
    assert make_voice(VoiceConfig(device="hw:1"), sim=False, state_dir=None).sink.device == "hw:1"


@pytest.mark.parametrize("text, reason", [
    ('[voice]\nvolume = 2\n', "line 2, voice.volume: must be between 0.0 and 1.0, got 2.0"),
    ('[voice]\nspeed = 20\n', "line 2, voice.speed: must be between 80 and 400, got 20"),
    ('[voice]\nvoice = "en gb"\n', "line 2, voice.voice: must be an espeak-ng voice name"),
    ('[voice]\nsink = "pulse"\n', "line 2, voice.sink: must be one of auto, alsa, wav, got 'pulse'"),
    ('[voice]\nenabled = "yes"\n', "line 2, voice.enabled: must be a bool, got str 'yes'"),
    ('[voice]\ndevice = "hw:0; reboot"\n', "line 2, voice.device: must be an ALSA device name"),
])
def test_refused_voice_config(text, reason):
    with pytest.raises(ConfigError) as err:
        loads(text)
    assert reason in str(err.value)


def test_voice_config_defaults_and_a_full_section():
    assert DEFAULTS.voice == VoiceConfig(enabled=False, volume=0.8, voice="en-gb", speed=160, device="default",
                                         sink="auto", wav_dir="", queue=3)
    c = loads('[voice]\nenabled = true\nvolume = 1\nvoice = "en-gb-scotland"\nspeed = 140\ndevice = "hw:1"\n')
    assert (c.voice.enabled, c.voice.volume, c.voice.voice, c.voice.speed, c.voice.device) == \
        (True, 1.0, "en-gb-scotland", 140, "hw:1")

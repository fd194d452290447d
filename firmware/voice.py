"""The board's voice: each announcement spoken aloud through the Pi's audio, off the table's thread.

The table builds the words (:mod:`companion.announce`, the snapshot's
``said``); this module only turns them into sound:

* :class:`Espeak` renders text to a WAV with Debian's ``espeak-ng``
  (offline, a subprocess: a crash or a hang of the engine cannot take the
  daemon with it);
* a sink plays it: :class:`AlsaSink` (``aplay`` to the headphone jack, HDMI
  or an I2S amplifier) or :class:`WavSink` (files, what the simulator does);
* :class:`Voice` ties them together. Its :meth:`Voice.update` is subscribed
  to the table: it runs in the thread that submitted the command, so it only
  appends to a bounded queue and wakes the voice's own thread, which renders
  and plays. A button press therefore reaches the LEDs exactly as fast with
  the voice on (``bench/bench_voice.py`` measures it). When announcements
  come faster than they can be spoken, at most ``queue`` wait, in order; a
  newer one pushes out the oldest waiting one (``queue = 1``: only the
  latest), so there is never a growing backlog.

A missing engine, player or sound card is a *fault* (the page shows it) and
the board keeps working silently.
"""

from __future__ import annotations

import collections
import logging
import os
import re
import shutil
import subprocess
import tempfile
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping

from firmware.config import VOICE_NAME, Record, VoiceConfig, record

log = logging.getLogger(__name__)

#: espeak-ng's amplitude at volume 1.0 (its own scale is 0..200, default 100).
FULL_AMPLITUDE = 200
#: Longest text spoken (an announcement is a line; anything longer is cut).
MAX_TEXT = 400
#: Seconds a render or a play may take before it is abandoned.
TIMEOUT_S = 30.0
#: The engine runs at a lower CPU priority, so on the Zero 2's four small cores a
#: sentence being rendered never holds up the render loop drawing a button press.
NICENESS = 10
NICE = shutil.which("nice")


class SpeechError(RuntimeError):
    """The engine or the sound card failed; the message says why (it becomes a page fault)."""


@record
class Settings(Record):
    """What the page may change live: on/off, volume (0..1), voice, speed (words per minute)."""

    enabled: bool = False
    volume: float = 0.8
    voice: str = "en-gb"
    speed: int = 160

    @classmethod
    def from_config(cls, v: VoiceConfig) -> "Settings":
        """Return the settings of a ``[voice]`` config section."""
        return cls(enabled=v.enabled, volume=v.volume, voice=v.voice, speed=v.speed)

    def changed(self, changes: Mapping[str, Any]) -> "Settings":
        """Return a copy with ``changes`` applied.

        :raises ValueError: an unknown key or a bad value, in one sentence; nothing changes.
        """
        known = ("enabled", "volume", "voice", "speed")
        for key, value in changes.items():
            if key not in known:
                raise ValueError(f"unknown voice setting {key!r} (known: {', '.join(known)})")
            if key == "enabled" and not isinstance(value, bool):
                raise ValueError("enabled must be true or false")
            if key == "volume" and (isinstance(value, bool) or not isinstance(value, (int, float))
                                    or not 0.0 <= value <= 1.0):
                raise ValueError(f"volume must be a number from 0 to 1, got {value!r}")
            if key == "speed" and (isinstance(value, bool) or not isinstance(value, int) or not 80 <= value <= 400):
                raise ValueError(f"speed must be a whole number of words per minute from 80 to 400, got {value!r}")
            if key == "voice" and (not isinstance(value, str) or not VOICE_NAME.match(value)):
                raise ValueError(f"voice must be an espeak-ng voice name such as en-gb, en-us or en+f3, got {value!r}")
        return replace(self, **{k: float(v) if k == "volume" else v for k, v in changes.items()})


class Espeak:
    """Renders text to WAV bytes with the ``espeak-ng`` program.

    :param binary: the program (default ``espeak-ng`` on the PATH).
    """

    def __init__(self, binary: str = "espeak-ng"):
        self.binary = binary

    def problem(self) -> str | None:
        """Return why the engine cannot speak (not installed), or None when it can."""
        if shutil.which(self.binary) is None:
            return f"{self.binary} is not installed (sudo apt install espeak-ng)"
        return None

    def render(self, text: str, settings: Settings) -> bytes:
        """Return the WAV (16-bit mono, 22,050 Hz) of ``text`` spoken with ``settings``.

        :raises SpeechError: the engine is missing, refuses the voice, or fails.
        """
        with tempfile.TemporaryDirectory(prefix="landsend-voice-") as tmp:
            out = Path(tmp) / "say.wav"
            cmd = [self.binary, "-w", str(out), "-v", settings.voice, "-s", str(settings.speed),
                   "-a", str(round(settings.volume * FULL_AMPLITUDE)), "--", text[:MAX_TEXT]]
            if NICE is not None:
                cmd = [NICE, "-n", str(NICENESS), *cmd]
            try:
                done = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT_S, check=False)
            except FileNotFoundError:
                raise SpeechError(f"{self.binary} is not installed (sudo apt install espeak-ng)") from None
            except subprocess.TimeoutExpired:
                raise SpeechError(f"{self.binary} took over {TIMEOUT_S:.0f} s") from None
            if done.returncode != 0 or not out.exists():
                reason = (done.stderr or done.stdout).decode(errors="replace").strip() or f"exit {done.returncode}"
                raise SpeechError(f"{self.binary} -v {settings.voice}: {reason}")
            return out.read_bytes()


class AlsaSink:
    """Plays WAVs on an ALSA device with ``aplay`` (alsa-utils).

    :param device: the ALSA device (``default``, ``hw:0``, ``plughw:CARD=...``).
    :param cards: the kernel's list of sound cards (injectable for tests).
    """

    def __init__(self, device: str = "default", *, binary: str = "aplay", cards: str = "/proc/asound/cards"):
        self.device = device
        self.binary = binary
        self.cards = Path(cards)

    def problem(self) -> str | None:
        """Return why nothing can be played (no player, no sound card), or None."""
        if shutil.which(self.binary) is None:
            return f"{self.binary} is not installed (sudo apt install alsa-utils)"
        try:
            listing = self.cards.read_text()
        except OSError:
            return "no sound card: the kernel has no ALSA sound support (/proc/asound/cards is missing)"
        if "no soundcards" in listing or not re.search(r"^\s*\d+\s*\[", listing, re.M):
            return ("no sound card: enable the headphone jack, HDMI audio or the I2S amplifier's "
                    "dtoverlay in /boot/firmware/config.txt (docs/hardware.md)")
        return None

    def play(self, wav: bytes, text: str) -> None:
        """Play ``wav`` to the end.

        :raises SpeechError: aplay is missing or the device refuses it.
        """
        try:
            done = subprocess.run([self.binary, "-q", "-D", self.device, "-"], input=wav, capture_output=True,
                                  timeout=TIMEOUT_S, check=False)
        except FileNotFoundError:
            raise SpeechError(f"{self.binary} is not installed (sudo apt install alsa-utils)") from None
        except subprocess.TimeoutExpired:
            raise SpeechError(f"{self.binary} -D {self.device} took over {TIMEOUT_S:.0f} s") from None
        if done.returncode != 0:
            reason = done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}"
            raise SpeechError(f"audio device {self.device}: {reason}")


class WavSink:
    """Writes each announcement as ``NNNNN-words.wav`` in ``directory`` (the simulator's speaker).

    :param keep: files kept; older ones are deleted, so the directory never grows without bound.
    """

    def __init__(self, directory: str | os.PathLike, *, keep: int = 50):
        self.directory = Path(directory)
        self.keep = keep
        self.count = 0

    def problem(self) -> str | None:
        """Return why files cannot be written, or None."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return f"cannot write voice files to {self.directory}: {exc.strerror or exc}"
        return None

    def play(self, wav: bytes, text: str) -> None:
        """Write ``wav`` as the next file."""
        self.count += 1
        slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "say"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            (self.directory / f"{self.count:05d}-{slug}.wav").write_bytes(wav)
        except OSError as exc:
            raise SpeechError(f"cannot write voice files to {self.directory}: {exc.strerror or exc}") from None
        files = sorted(self.directory.glob("*.wav"))
        for old in files[:-self.keep]:
            old.unlink(missing_ok=True)

    def files(self) -> list[Path]:
        """Return the files written and kept, oldest first."""
        return sorted(self.directory.glob("*.wav"))


class Voice:
    """Speaks the table's announcements from its own thread.

    :param engine: an :class:`Espeak` (anything with ``problem()`` and ``render(text, settings)``).
    :param sink: an :class:`AlsaSink` or :class:`WavSink` (``problem()``, ``play(wav, text)``).
    :param settings: on/off, volume, voice, speed (changeable live with :meth:`configure`).
    :param queue: announcements that may wait; beyond it the oldest waiting one is dropped.
    :param on_fault: called with a message when the engine or the sound card fails (once per message).
    """

    def __init__(self, engine: Any, sink: Any, settings: Settings = Settings(), *, queue: int = 3,
                 on_fault: Callable[[str], None] | None = None):
        self.engine = engine
        self.sink = sink
        self.settings = settings
        self.on_fault = on_fault
        self.spoken = 0
        """Announcements spoken (or written) so far."""
        self.dropped = 0
        """Announcements pushed out of a full queue before they were spoken."""
        self.fault: str | None = None
        """The last problem, or None while the voice works."""
        self._cond = threading.Condition()
        self._queue: collections.deque[str] = collections.deque(maxlen=queue)
        self._busy = False
        self._last_key: tuple | None = None
        self._stopping = False
        self._thread: threading.Thread | None = None
        if settings.enabled:
            self.check()

    # --- inputs (any thread; cheap) ------------------------------------------------------
    def update(self, snapshot: Mapping[str, Any]) -> None:
        """Queue the announcement of a new table ``snapshot`` (the table calls this after every event)."""
        said = snapshot.get("said") if snapshot else None
        if not said or said.get("seq") != snapshot.get("seq"):
            return
        key = (snapshot.get("match_id"), said.get("seq"))
        with self._cond:
            if key == self._last_key:
                return
            self._last_key = key
        if self.settings.enabled:
            self.say(said.get("speech") or said.get("text") or "")

    def say(self, text: str) -> bool:
        """Queue ``text`` to be spoken; return False when there is nothing to say or the voice has failed."""
        text = " ".join(str(text).split())
        if not text or self.fault is not None:
            return False
        with self._cond:
            if len(self._queue) == self._queue.maxlen:
                self.dropped += 1
            self._queue.append(text)
            self._cond.notify()
        return True

    def configure(self, **changes: Any) -> Settings:
        """Apply live setting changes (validated as a whole first) and return the new settings.

        Turning the voice on checks the engine and the sound card again (and
        clears an earlier fault when they are now there).

        :raises ValueError: a bad key or value; nothing changes.
        """
        new = self.settings.changed(changes)
        self.settings = new
        if new.enabled and changes.get("enabled") is True:
            self.fault = None
            self.check()
        if not new.enabled:
            with self._cond:
                self._queue.clear()
        return new

    def check(self) -> str | None:
        """Look for a missing engine or sound card; record it as the fault and return it (None: all there)."""
        problem = self.engine.problem() or self.sink.problem()
        if problem:
            self._failed(problem)
        return problem

    # --- outputs ---------------------------------------------------------------------------
    def state(self) -> dict:
        """Return the voice's settings and health for the page (``GET /api/settings``)."""
        s = self.settings
        with self._cond:
            waiting = len(self._queue)
        return {"enabled": s.enabled, "volume": s.volume, "voice": s.voice, "speed": s.speed,
                "ok": self.fault is None, "fault": self.fault, "waiting": waiting, "spoken": self.spoken,
                "dropped": self.dropped, "queue": self._queue.maxlen,
                "sink": "wav" if isinstance(self.sink, WavSink) else "alsa"}

    def idle(self) -> bool:
        """Return True when nothing waits and nothing is being spoken."""
        with self._cond:
            return not self._queue and not self._busy

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until :meth:`idle` (tests and ``landsend say``); return False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and not self._busy, timeout=timeout)

    # --- the thread --------------------------------------------------------------------------
    def step(self) -> bool:
        """Speak the oldest waiting announcement, if any; return whether one was taken.

        The thread calls this; tests may call it directly.
        """
        with self._cond:
            if not self._queue:
                return False
            text = self._queue.popleft()
            self._busy = True
            settings = self.settings
        try:
            wav = self.engine.render(text, settings)
            self.sink.play(wav, text)
        except SpeechError as exc:
            self._failed(str(exc))
        except Exception as exc:  # a broken voice must never stop the board
            log.exception("voice failed")
            self._failed(f"{type(exc).__name__}: {exc}")
        else:
            self.spoken += 1
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
        return True

    def _failed(self, problem: str) -> None:
        message = f"voice: {problem}: the board stays silent"
        first = message != self.fault
        self.fault = message
        with self._cond:
            self._queue.clear()
        if first:
            log.error("%s", message)
            if self.on_fault is not None:
                self.on_fault(message)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queue or self._stopping)
                if self._stopping:
                    return
            self.step()

    def start(self) -> None:
        """Start the voice's thread."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="voice", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread (what is being spoken finishes; nothing waiting is spoken)."""
        with self._cond:
            self._stopping = True
            self._queue.clear()
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=TIMEOUT_S)
            self._thread = None


def make_voice(config: VoiceConfig, *, sim: bool, state_dir: str | os.PathLike | None,
               on_fault: Callable[[str], None] | None = None) -> Voice:
    """Return the (unstarted) voice the ``[voice]`` config asks for.

    The sink is ALSA on a Pi and WAV files with ``sim`` (``sink = "auto"``);
    WAV files go to ``wav_dir``, else ``voice/`` beside the database.
    """
    wav = config.sink == "wav" or (config.sink == "auto" and sim)
    if wav:
        directory = Path(config.wav_dir) if config.wav_dir else Path(state_dir or tempfile.gettempdir()) / "voice"
        sink: Any = WavSink(directory)
    else:
        sink = AlsaSink(config.device)
    return Voice(Espeak(), sink, Settings.from_config(config), queue=config.queue, on_fault=on_fault)

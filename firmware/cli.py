"""Registers ``landsend serve``, ``landsend say`` and ``landsend release`` with the ``landsend`` command line (``companion.cli``).

The console script enters here (``firmware.cli:main``): importing this module
registers ``serve`` with companion's command registry, then companion runs. It loads
only argparse and the command registry (the daemon is imported when run).
"""

from __future__ import annotations

import argparse
from typing import Any

from companion.cli import Command, register


def _configure(parser: argparse.ArgumentParser) -> None:
    from firmware.daemon import add_arguments
    add_arguments(parser)


def _run(args: argparse.Namespace, io: Any) -> int:
    from firmware.daemon import run
    return run(args, stderr=io.stderr)


SERVE = register(Command("serve", "run the table daemon: LED board, buttons and the phone page", _configure, _run))


def _configure_say(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", help='what to say, e.g. "fifteen two"')
    parser.add_argument("--wav", metavar="FILE", help="write the speech to this WAV file instead of playing it")
    parser.add_argument("--config", metavar="FILE", help="TOML config whose [voice] gives voice, speed and volume "
                        "(default: $LANDSEND_CONFIG, /etc/landsend/config.toml, built-in defaults)")
    parser.add_argument("--voice", help="espeak-ng voice (overrides the config's)")
    parser.add_argument("--speed", type=int, help="words per minute, 80..400 (overrides the config's)")
    parser.add_argument("--volume", type=float, help="0..1 (overrides the config's)")


def _run_say(args: argparse.Namespace, io: Any) -> int:
    """Speak (or write to --wav) ``args.text`` with the configured voice; 1 when the engine or device fails."""
    from pathlib import Path

    from firmware.config import DEFAULTS, ConfigError, load
    from firmware.daemon import default_config_path
    from firmware.voice import AlsaSink, Espeak, Settings, SpeechError
    path = Path(args.config) if args.config else default_config_path()
    try:
        config = load(path) if path else DEFAULTS
    except ConfigError as exc:
        io.stderr.write(f"landsend say: config refused: {exc}\n")
        return 2
    overrides = {k: v for k, v in (("voice", args.voice), ("speed", args.speed), ("volume", args.volume))
                 if v is not None}
    try:
        settings = Settings.from_config(config.voice).changed(overrides)
    except ValueError as exc:
        io.stderr.write(f"landsend say: {exc}\n")
        return 2
    if not args.text.strip():
        io.stderr.write("landsend say: nothing to say\n")
        return 2
    try:
        wav = Espeak().render(args.text, settings)
        if args.wav:
            Path(args.wav).write_bytes(wav)
        else:
            AlsaSink(config.voice.device).play(wav, args.text)
    except (SpeechError, OSError) as exc:
        io.stderr.write(f"landsend say: {exc}\n")
        return 1
    if args.wav:
        io.stdout.write(f"{args.wav}: {len(wav)} bytes, {settings.voice} at {settings.speed} words a minute\n")
    return 0


SAY = register(Command("say", "speak a line with the board's voice (espeak-ng), or write it to a WAV file",
                       _configure_say, _run_say))


def _configure_release(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="FILE", help="the table's database (default: $LANDSEND_DB or the state dir)")


def _run_release(args: argparse.Namespace, io: Any) -> int:
    from pathlib import Path

    from firmware.daemon import release_stopped
    return release_stopped(Path(args.db) if args.db else None, stdout=io.stdout, stderr=io.stderr)


RELEASE = register(Command("release", "release a stopped table's host (as holding the menu button 5 s does)",
                           _configure_release, _run_release))


def main(argv: "list[str] | None" = None) -> int:
    """Run the ``landsend`` console script (every companion command plus ``serve``); return the exit status."""
    from companion.cli import main as companion_main
    return companion_main(argv)


if __name__ == "__main__":
    import sys
    sys.exit(main())

"""``landsend serve``, ``landsend say``, ``landsend release`` and ``landsend card``: the board's subcommands of the ``landsend`` command line (``companion.cli``).

The console script enters here (``firmware.cli:main``): companion's command line runs
with :data:`SUBCOMMANDS` added. It loads only argparse and companion's command line
(the daemon is imported when run).
"""

from __future__ import annotations

import argparse
from typing import Any

from companion.console import Subcommand


def _configure(parser: argparse.ArgumentParser) -> None:
    from firmware.daemon import add_arguments
    add_arguments(parser)


def _run(args: argparse.Namespace, io: Any) -> int:
    from firmware.daemon import run
    return run(args, stderr=io.stderr)


SERVE = Subcommand("serve", "run the table daemon: LED board, buttons and the phone page", _configure, _run)


def _add_db(parser: argparse.ArgumentParser) -> None:
    """The ``--db`` option of the board's subcommands that read a table's database."""
    parser.add_argument("--db", metavar="FILE", help="the table's database (default: $LANDSEND_DB or the state dir)")


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


SAY = Subcommand("say", "speak a line with the board's voice (espeak-ng), or write it to a WAV file",
                 _configure_say, _run_say)


def _configure_release(parser: argparse.ArgumentParser) -> None:
    _add_db(parser)


def _run_release(args: argparse.Namespace, io: Any) -> int:
    from pathlib import Path

    from firmware.daemon import release_stopped
    return release_stopped(Path(args.db) if args.db else None, stdout=io.stdout, stderr=io.stderr)


RELEASE = Subcommand("release", "release a stopped table's host (as holding the menu button 5 s does)",
                     _configure_release, _run_release)


def _configure_card(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", metavar="FILE", default="landsend-card.svg",
                        help="where to write the card (SVG, A6; default landsend-card.svg; - for standard output)")
    parser.add_argument("--address", metavar="URL", help="the page's address on the card (default: the board's "
                        "own Wi-Fi address when it has one, else http://landsend.local/)")
    parser.add_argument("--wifi", metavar="FILE", help="the board's Wi-Fi (default: $LANDSEND_WIFI, "
                        "/etc/landsend/wifi.toml, written by systemd/install.sh)")
    parser.add_argument("--no-wifi", action="store_true", help="leave the Wi-Fi name, password and code off")


def _run_card(args: argparse.Namespace, io: Any) -> int:
    """Write the table card: the board's Wi-Fi and its joining code, the page's address and its code."""
    import os
    from pathlib import Path
    from urllib.parse import urlsplit

    from firmware.wifi import WIFI_FILE, Hotspot
    from web.card import card_svg
    spot = None if args.no_wifi else Hotspot.load(args.wifi or os.environ.get("LANDSEND_WIFI") or WIFI_FILE)
    if args.wifi and spot is None and not args.no_wifi:
        io.stderr.write(f"landsend card: no Wi-Fi name and password in {args.wifi}\n")
        return 2
    address = args.address or (spot.url if spot else "http://landsend.local/")
    parts = urlsplit(address)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        io.stderr.write(f"landsend card: --address must be an http:// address, got {address!r}\n")
        return 2
    text = card_svg(address, ssid=spot.ssid if spot else None, password=spot.password if spot else None)
    if args.out == "-":
        io.stdout.write(text)
        return 0
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as exc:
        io.stderr.write(f"landsend card: cannot write {args.out}: {exc.strerror or exc}\n")
        return 1
    wifi = f"Wi-Fi {spot.ssid!r} and " if spot else ""
    io.stdout.write(f"{args.out}: the table card ({wifi}{address}); print it at 100 % on A6 or larger\n")
    return 0


CARD = Subcommand("card", "write the table card: the board's Wi-Fi and the page's address, with QR codes",
                  _configure_card, _run_card)

def _configure_backup(parser: argparse.ArgumentParser) -> None:
    _add_db(parser)
    parser.add_argument("--out", metavar="FILE", help="where to write the backup (default: "
                        "landsend-backup-<board>-<date>.landsend in this folder)")
    parser.add_argument("--board", metavar="NAME", help="the board's name in the backup (default: its Wi-Fi's, "
                        "else the host name)")


def _board(args: argparse.Namespace) -> str:
    from firmware.wifi import Hotspot
    from web.backup import board_name
    try:
        spot = Hotspot.load()
    except Exception:
        spot = None
    return args.board or board_name(spot)


def _run_backup(args: argparse.Namespace, io: Any) -> int:
    """Back the table up to one file, as the page's More → Board does (the daemon may keep running)."""
    import datetime as dt
    from pathlib import Path

    from companion import backup
    from companion.errors import StoreError
    from firmware.daemon import default_db_path
    db = Path(args.db) if args.db else default_db_path()
    if not db.is_file():
        io.stderr.write(f"landsend backup: no table database at {db}\n")
        return 2
    board = _board(args)
    out = Path(args.out or backup.file_name(board, dt.datetime.now(dt.timezone.utc)))
    try:
        manifest = backup.take(db, out, board=board, reason="console")
    except (StoreError, OSError, backup.BackupError) as exc:
        io.stderr.write(f"landsend backup: {exc}\n")
        return 1
    io.stdout.write(f"{out}: {backup.describe(manifest)}\n")
    return 0


BACKUP = Subcommand("backup", "back the whole table up to one file (every match, night and payment)",
                    _configure_backup, _run_backup)


def _configure_restore(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("backup", metavar="BACKUP", help="a .landsend backup file")
    _add_db(parser)


def _run_restore(args: argparse.Namespace, io: Any) -> int:
    """Check a backup whole, then switch the stopped board's table to it (the table before is kept)."""
    import tempfile
    from pathlib import Path

    from companion import backup
    from companion.errors import StoreError
    from firmware.daemon import _lock_database, default_db_path
    db = Path(args.db) if args.db else default_db_path()
    db.parent.mkdir(parents=True, exist_ok=True)
    lock = _lock_database(db)
    if lock is None:
        io.stderr.write(f"landsend restore: a landsend daemon is using {db.resolve()}: restore from the page "
                        "(More → Board), or stop the daemon first\n")
        return 1
    try:
        with tempfile.TemporaryDirectory(dir=db.parent, prefix=".check-") as work:
            checked = backup.check(args.backup, work)
            backup.stage(checked, db)
        kept = backup.Kept(db.parent / "backups", board=checked.manifest.get("board") or "board")
        from firmware.daemon import BOARD_META
        done = backup.apply_staged(db, kept, carry=BOARD_META)
    except (backup.BackupError, StoreError, OSError) as exc:
        io.stderr.write(f"landsend restore: {exc}\n")
        return 1
    finally:
        lock.close()
    before = f"; the table before it is kept as {done['kept_before']}" if done.get("kept_before") else ""
    io.stdout.write(f"{db}: restored from {backup.describe(done)}{before}\n")
    return 0


RESTORE = Subcommand("restore", "restore the table of a stopped board from a backup file", _configure_restore,
                     _run_restore)

#: The board's subcommands, added to companion's by :func:`main`.
SUBCOMMANDS = (SERVE, SAY, RELEASE, CARD, BACKUP, RESTORE)


def main(argv: "list[str] | None" = None) -> int:
    """Run the ``landsend`` console script (every companion subcommand plus :data:`SUBCOMMANDS`); return the exit
    status.

    ``landsend serve`` goes straight to the daemon, which parses its own options
    (:func:`firmware.daemon.add_arguments`, the same ones): building the whole
    command line would import every other command's module (the advice, the
    stats) before the board answers.
    """
    import sys
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["serve"]:
        from firmware.daemon import main as serve
        return serve(args[1:])
    from companion.cli import main as companion_main
    return companion_main(args, extra=SUBCOMMANDS)


if __name__ == "__main__":
    import sys
    sys.exit(main())

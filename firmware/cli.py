"""Registers ``landsend serve`` with the ``landsend`` command line (``companion.cli``).

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


def main(argv: "list[str] | None" = None) -> int:
    """Run the ``landsend`` console script (every companion command plus ``serve``); return the exit status."""
    from companion.cli import main as companion_main
    return companion_main(argv)


if __name__ == "__main__":
    import sys
    sys.exit(main())

"""The ``landsend`` console script: ``serve`` starts the daemon, the rest is the rules CLI.

The composition root lives in firmware (it may import companion and web);
every other subcommand (score, peg, grid, stats, replay) belongs to
:mod:`companion.cli`, which knows nothing of firmware.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run ``landsend``; return the process exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "serve":
        from .daemon import main as serve_main
        return serve_main(args[1:])
    from companion.cli import main as rules_main
    return rules_main(args)


if __name__ == "__main__":
    sys.exit(main())

"""``python -m companion``: the rules command line (see :mod:`companion.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

"""``python -m venncal``: the command line, as the ``venncal`` script runs it."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

"""``python -m usi_mate``: the same as the ``usi-mate`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

"""``python -m neardup_lab``: the same as the ``neardup-lab`` command."""

import sys

from .cli.main import main

if __name__ == "__main__":
    sys.exit(main())

"""Input files by format: text folders, JSONL, CSV, Parquet, compressed or not.

The public names of every reader module are importable from here.
"""

from .all import *  # noqa: F403
from .all import __all__  # noqa: F401

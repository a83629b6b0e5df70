"""dedup on a Dask cluster (optional: ``pip install 'neardup-lab[dask]'``; without it, ImportError)."""

from .dedup import band_partitions, dedup_dask, read_bag
from .shuffle import partition_offsets

__all__ = ["dedup_dask", "read_bag", "band_partitions", "partition_offsets"]

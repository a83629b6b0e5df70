"""The same dedup on a Dask cluster (:mod:`.dedup`) and the routing of rows (:mod:`.shuffle`).
Dask is optional (``pip install 'neardup-lab[dask]'``); without it this import fails saying so."""

from .dedup import band_partitions, dedup_dask, read_bag
from .shuffle import partition_offsets

__all__ = ["dedup_dask", "read_bag", "band_partitions", "partition_offsets"]

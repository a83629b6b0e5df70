"""The same dedup on a Dask cluster (:mod:`.dedup`) and the routing of rows (:mod:`.shuffle`).

Dask is an optional extra, ``pip install 'neardup-lab[dask]'``; without it, importing this
package raises an ImportError that says so.
"""

from .dedup import band_partitions, dedup_dask, read_bag
from .shuffle import partition_offsets

__all__ = ["dedup_dask", "read_bag", "band_partitions", "partition_offsets"]

"""The same dedup on a Dask cluster (:mod:`.dedup`) and the routing of rows (:mod:`.shuffle`).

Dask is an optional extra: ``pip install 'neardup-lab[dask]'``.
"""

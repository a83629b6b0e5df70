"""Freed arrays are reused chunk after chunk (glibc), unless the environment says otherwise."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from neardup_lab.engine.allocator import _is_glibc

GLIBC_ONLY = pytest.mark.skipif(not _is_glibc(), reason="malloc's limits are glibc's")

# Signs the same chunk of articles again and again in a fresh process; prints whether the
# limits were raised and the page faults of each later round.
CHILD = """
import json, resource
from neardup_lab import Settings, make_article
from neardup_lab.engine.allocator import keep_freed_memory
from neardup_lab.engine.pipeline import prepare

docs = [make_article(seed=i, n_words=300) for i in range(600)]
settings = Settings(scheme="one-permutation")
faults = []
for _ in range(6):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    prepare(docs, settings, "raw")
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(json.dumps({"raised": keep_freed_memory(), "faults": faults[3:]}))
"""


def _run_child(**env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env={**clean, **env}, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@GLIBC_ONLY
def test_a_chunk_signed_again_reuses_the_pages_of_the_last():
    kept = _run_child()
    assert kept["raised"] is True
    # A chunk's arrays take thousands of pages (see the opted-out run): reused, almost none fault.
    assert max(kept["faults"]) < 200, kept


@GLIBC_ONLY
def test_the_environment_s_own_malloc_setting_wins():
    given_back = _run_child(MALLOC_TRIM_THRESHOLD_="131072")
    assert given_back["raised"] is False
    # Limits fixed at glibc's starting values: every chunk's arrays are fresh pages again.
    assert min(given_back["faults"]) > 1000, given_back


@GLIBC_ONLY
def test_malloc_tunables_in_the_environment_win_too():
    tuned = _run_child(GLIBC_TUNABLES="glibc.malloc.mmap_threshold=131072")
    assert tuned["raised"] is False
    assert min(tuned["faults"]) > 1000, tuned

"""Where the package runs: natively, and in the browser's Python (Pyodide), which has no threads,
no processes and a 32-bit numpy. ``tools/pyodide_tests.py`` runs this module there; each test
says what it holds on both, or is skipped with the reason on the one it does not concern.
"""

import contextlib
import io
import warnings

import numpy as np
import pytest

from neardup_lab import dedup, make_corpus
from neardup_lab.cli.main import main
from neardup_lab.engine.workers import IN_BROWSER, ordered_map
from neardup_lab.index.store import SavedIndex

only_in_browser = pytest.mark.skipif(not IN_BROWSER, reason="concerns the browser's Python only")


def test_two_jobs_give_the_answer_of_one() -> None:
    docs = make_corpus(300, seed=3)[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        two = dedup(docs, threshold=0.7, n_jobs=2)
    one = dedup(docs, threshold=0.7, n_jobs=1)
    assert (two.clusters, two.keepers) == (one.clusters, one.keepers)
    notes = [str(w.message) for w in caught if "cannot start threads" in str(w.message)]
    assert len(notes) == (1 if IN_BROWSER else 0), notes


def test_a_progress_bar_warns_nothing() -> None:
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("always")
        dedup(["heavy rain in the north", "heavy rain in the north!"], progress=True)
    assert [str(w.message) for w in caught] == []


def test_ordered_map_keeps_the_order_with_any_threads() -> None:
    assert list(ordered_map(lambda x: x * x, range(9), threads=3)) == [x * x for x in range(9)]


def test_accented_texts_are_found() -> None:
    result = dedup(["Le café est fermé le lundi.", "le CAFÉ est fermé le lundi", "Ο καιρός σήμερα"])
    assert result.clusters == [[0, 1], [2]]


def test_an_index_is_saved_and_opened(tmp_path) -> None:
    index = SavedIndex()
    index.add(["a", "b"], ["Le café est fermé le lundi.", "Ο καιρός σήμερα είναι καλός"])
    index.save(tmp_path / "idx")
    again = SavedIndex.open(tmp_path / "idx")
    assert again.ids == ["a", "b"]
    assert np.array_equal(again.signatures, index.signatures)


@only_in_browser
def test_the_command_line_says_it_runs_natively_only(tmp_path) -> None:
    (tmp_path / "a.txt").write_text("heavy rain", encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["dedup", str(tmp_path / "a.txt")])
    assert code == 2
    assert "runs on a computer, not in the browser" in err.getvalue()

"""One cost, one figure: every chapter that projects a time reads the costs measured once per build.

- No chapter measures a shared cost itself: ``pair_cost()`` and ``pipeline_cost()`` are called
  only by ``measured_costs()``, which measures once and stores the figures for the build.
- Every cost a chapter glues (a ``duration`` of the unrelated-pair, similar-pair, signing or
  whole-dedup cost) has one value across all chapters' stored outputs.
- The whole ``dedup`` is never cheaper than its signing stage (both timed in the same runs).
- ``measured_costs`` itself: measures once, then reads; parallel chapters get one answer;
  a damaged file is measured again.
"""

from __future__ import annotations

import ast
import json
import multiprocessing
import re
from pathlib import Path

import pytest

from neardup_lab.notebook import helpers

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
SHARED_COSTS = ("pair_cost", "pipeline_cost", "signing_cost")
KINDS = ("pair.unrelated", "pair.similar", "signing", "dedup")

#: Costs glued by chapters that the test must find (so it cannot pass vacuously).
REQUIRED = {
    ("01_why_near_duplicates", "ch01_cost_per_pair"): "pair.unrelated",
    ("01_why_near_duplicates", "ch01_cost_similar"): "pair.similar",
    ("03_ground_truth", "ch03_cost_per_pair"): "pair.unrelated",
    ("03_ground_truth", "ch03_cost_similar"): "pair.similar",
    ("08_choosing_b_r", "ch08_check_cost"): "pair.similar",
    ("10_scaling", "ch10_pair_cost"): "pair.unrelated",
    ("10_scaling", "ch10_sign_per_article"): "signing",
    ("10_scaling", "ch10_per_article"): "dedup",
    ("15_faster_signatures", "ch15_shared_signing"): "signing",
    ("16_cross_check", "ch16_shared_signing"): "signing",
    ("17_scaling_out", "ch17_sign_per_doc"): "signing",
    ("17_scaling_out", "ch17_dedup_per_doc"): "dedup",
}


def _code(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def _glued(path: Path) -> dict[str, str]:
    values = {}
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            text = output.get("data", {}).get("application/papermill.record/text/plain")
            if name and text is not None:
                values[name] = ast.literal_eval(text)
    return values


def _cost_kinds(path: Path) -> dict[str, str]:
    """Glue name -> which shared cost it shows (one of ``KINDS``).

    Follows names bound to ``measured_costs()`` or its parts (``costs = measured_costs()``,
    ``cost, sign = costs.pair, costs.signing``) to ``glue("name", duration(<that cost>))``.
    """
    aliases: dict[str, str] = {}

    def resolve(node: ast.expr) -> str | None:
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "measured_costs":
            return ""
        if isinstance(node, ast.Name):
            return aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = resolve(node.value)
            return None if base is None else f"{base}.{node.attr}".lstrip(".")
        return None

    kinds = {}
    for source in _code(path):
        try:
            tree = ast.parse(source)
        except SyntaxError:  # a cell with IPython syntax holds no cost
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    pairs = [(target, node.value)]
                    if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                        pairs = list(zip(target.elts, node.value.elts))
                    for name, value in pairs:
                        if isinstance(name, ast.Name) and resolve(value) is not None:
                            aliases[name.id] = resolve(value) or ""
            elif (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "glue"
                and len(node.args) >= 2 and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[1], ast.Call) and getattr(node.args[1].func, "id", "") == "duration"
                and node.args[1].args
            ):
                kind = resolve(node.args[1].args[0])
                if kind in KINDS:
                    kinds[node.args[0].value] = kind
    return kinds


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_no_chapter_measures_a_shared_cost_itself(path: Path) -> None:
    calls = [
        f"{name}() in: {line.strip()[:70]!r}"
        for source in _code(path)
        for line in source.splitlines()
        for name in SHARED_COSTS
        if re.search(rf"\b{name}\(", line)
    ]
    assert not calls, (
        f"{path.name} measures a cost the book shares: use measured_costs() from "
        "neardup_lab.notebook.helpers (.pair.unrelated, .pair.similar, .signing), so every "
        "chapter of one build shows the same figure:\n" + "\n".join(calls)
    )


def _figures(paths: list[Path]) -> dict[str, dict[str, str]]:
    """Shared cost -> {"chapter:glue name": the stored figure} over the chapters at ``paths``."""
    seen: dict[str, dict[str, str]] = {}
    for path in paths:
        glued = _glued(path)
        for name, kind in _cost_kinds(path).items():
            seen.setdefault(kind, {})[f"{path.stem}:{name}"] = glued.get(name, "(not glued)")
    return seen


def _several_figures(seen: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    return {kind: values for kind, values in seen.items() if len(set(values.values())) > 1}


def test_every_glued_cost_has_one_value_across_chapters() -> None:
    seen = _figures(CHAPTERS)
    found = {(key.split(":")[0], key.split(":")[1]): kind for kind, v in seen.items() for key in v}
    missing = {key: kind for key, kind in REQUIRED.items() if found.get(key) != kind}
    assert not missing, f"cost glues not found (or not read from measured_costs()): {missing}"
    assert not _several_figures(seen), (
        f"a shared cost has several figures in the stored outputs: {_several_figures(seen)}. Execute "
        "the chapters in one build (make execute measures once and every chapter reads it)."
    )


def _notebook(path: Path, source: str, glued: dict[str, str]) -> Path:
    outputs = [
        {"output_type": "display_data", "metadata": {"scrapbook": {"name": name}},
         "data": {"application/papermill.record/text/plain": repr(value)}}
        for name, value in glued.items()
    ]
    cell = {"cell_type": "code", "source": source, "metadata": {}, "outputs": outputs}
    path.write_text(json.dumps({"cells": [cell]}), encoding="utf-8")
    return path


def test_two_figures_for_the_whole_dedup_are_caught(tmp_path: Path) -> None:
    source = 'costs = measured_costs()\nglue("x_dedup", duration(costs.dedup), display=False)\n'
    one = _notebook(tmp_path / "one.ipynb", source, {"x_dedup": "49.6 µs"})
    same = _notebook(tmp_path / "same.ipynb", source, {"x_dedup": "49.6 µs"})
    other = _notebook(tmp_path / "other.ipynb", source, {"x_dedup": "68.5 µs"})
    assert _cost_kinds(one) == {"x_dedup": "dedup"}
    assert not _several_figures(_figures([one, same]))
    assert _several_figures(_figures([one, other])) == {
        "dedup": {"one:x_dedup": "49.6 µs", "other:x_dedup": "68.5 µs"}
    }


def test_the_whole_dedup_is_not_cheaper_than_its_signing_stage() -> None:
    figures = _figures(CHAPTERS)
    signing = {_seconds(v) for v in figures.get("signing", {}).values()}
    whole = {_seconds(v) for v in figures.get("dedup", {}).values()}
    assert signing and whole, "no chapter glues the signing and whole-dedup costs"
    assert min(whole) >= max(signing), f"the whole dedup {whole} is cheaper than its signing stage {signing}"


def _seconds(figure: str) -> float:
    units = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
    number, unit = figure.split()
    return float(number.replace(",", "")) * units[unit]


# --- the helper ---------------------------------------------------------------------------


def _fake_measure(monkeypatch: pytest.MonkeyPatch, log: Path) -> None:
    def pair_cost() -> helpers.PairCost:
        with open(log, "a") as out:
            out.write("pair\n")
        return helpers.PairCost(1e-5, 3e-5)

    monkeypatch.setattr(helpers, "pair_cost", pair_cost)
    monkeypatch.setattr(helpers, "pipeline_cost", lambda: helpers.PipelineCost(4e-5, 6e-5))


def test_measures_once_then_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "log"
    _fake_measure(monkeypatch, log)
    path = tmp_path / "build" / "costs.json"
    first = helpers.measured_costs(path)
    second = helpers.measured_costs(path)
    assert first == second == helpers.Costs(helpers.PairCost(1e-5, 3e-5), 4e-5, 6e-5)
    assert log.read_text().count("pair") == 1
    stored = json.loads(path.read_text())
    assert (stored["signing"], stored["dedup"]) == (4e-5, 6e-5)


def test_a_file_without_the_whole_dedup_is_measured_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log"
    _fake_measure(monkeypatch, log)
    path = tmp_path / "costs.json"
    path.write_text('{"pair_unrelated": 1e-05, "pair_similar": 2e-05, "signing": 4e-05}')  # an older build
    assert helpers.measured_costs(path).dedup == 6e-5
    assert log.read_text().count("pair") == 1


def test_a_damaged_file_is_measured_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "log"
    _fake_measure(monkeypatch, log)
    path = tmp_path / "costs.json"
    path.write_text('{"pair_unrelated": 1e-05')  # cut short
    assert helpers.measured_costs(path).signing == 4e-5
    assert log.read_text().count("pair") == 1


def test_the_path_comes_from_the_environment_or_the_book_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(helpers.COSTS_ENV, str(tmp_path / "mine.json"))
    assert helpers.costs_path() == tmp_path / "mine.json"
    monkeypatch.delenv(helpers.COSTS_ENV)
    assert helpers.costs_path(ROOT / "book") == ROOT / "_build" / "costs.json"


def _measure_in_child(path: str, results: multiprocessing.Queue) -> None:
    import random
    import time

    def slow_pair_cost() -> helpers.PairCost:
        time.sleep(0.3)  # long enough for the other processes to arrive meanwhile
        return helpers.PairCost(random.random(), random.random())

    helpers.pair_cost = slow_pair_cost
    helpers.pipeline_cost = lambda: helpers.PipelineCost(random.random(), random.random())
    results.put(helpers.measured_costs(path))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_parallel_chapters_get_one_measurement(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    path = str(tmp_path / "costs.json")
    children = [context.Process(target=_measure_in_child, args=(path, results)) for _ in range(4)]
    for child in children:
        child.start()
    answers = [results.get(timeout=30) for _ in children]
    for child in children:
        child.join(timeout=30)
    assert len(set(answers)) == 1, f"parallel chapters measured separately: {answers}"

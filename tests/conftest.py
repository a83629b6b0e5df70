"""Shared test settings: hypothesis profiles (derandomised under CI=true), the slow marker, and
what the browser's Python (Pyodide, ``sys.platform == "emscripten"``) cannot run.

The same tests run natively and in Pyodide (``tools/pyodide_tests.py``). There, a module of
:data:`NATIVE_ONLY` is collected as one skipped test carrying its reason, and a test marked
``native("reason")`` is skipped with its reason: both are counted and listed, never dropped.
"""

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=100, deadline=None)
# In the page's Python (several times slower) the property tests check the platform; the variety
# of examples is the native runs' job.
settings.register_profile(
    "browser", derandomize=True, max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
IN_BROWSER = sys.platform == "emscripten"
CI = os.environ.get("CI", "").lower() == "true"
settings.load_profile("browser" if IN_BROWSER else "ci" if CI else "dev")

#: Test modules that take seconds to minutes each, and why; `make unit` leaves them out,
#: `make test` runs them.
SLOW_MODULES = {
    "test_distributed.py": "starts a Dask cluster of two processes",
    "test_cli.py": "runs the command in subprocesses",
    "test_explain_cli.py": "runs the command in subprocesses",
    "test_hostile.py": "runs the command on hostile inputs, with timeouts",
    "test_store_crash.py": "kills subprocesses at every write step",
    "test_store_concurrency.py": "queries while another process adds",
    "test_labs.py": "executes the lab notebooks",
    "test_labs_bundle.py": "builds the student zip and installs it in a fresh virtual environment",
    "test_bits_pinned.py": "dedups a corpus with every scheme",
    "test_statistics.py": "hundreds of seeds per estimate",
}


#: Test modules that test what the browser's Python does not have, and why: they run natively only.
NATIVE_ONLY = {
    "test_api_page.py": "drives a browser over the built book",
    "test_browser.py": "drives a browser over the built book",
    "test_browser_axe.py": "drives a browser over the built book",
    "test_browser_support.py": "drives a browser over the built book",
    "test_explorables.py": "drives a browser over the built book",
    "test_lite.py": "drives a browser over the built book",
    "test_lite_labs.py": "drives a browser over the built book",
    "test_lite_probe.py": "drives a browser over the built book",
    "test_lite_site.py": "drives a browser over the built book",
    "test_labs_browser.py": "drives a browser over the built book",
    "test_book_style.py": "checks the book's notebooks, not the package",
    "test_comparisons.py": "checks the book's notebooks, not the package",
    "test_costs.py": "checks the book's notebooks, not the package",
    "test_notebook_outputs.py": "checks the book's notebooks, not the package",
    "test_notation.py": "checks the book's notebooks, not the package",
    "test_licences.py": "checks the repository's licence files (with PyYAML), not the package",
    "test_teacher_notes.py": "checks the labs' teacher notes, not the package",
    "test_labs.py": "executes notebooks in Jupyter kernels (processes)",
    "test_labs_bundle.py": "builds a wheel and a virtual environment (processes)",
    "test_grade.py": "grades hand-ins in sandboxed processes",
    "test_grade_sandbox.py": "grades hand-ins in sandboxed processes",
    "test_cli.py": "runs the command line in processes",
    "test_cli_records.py": "runs the command line on files, with processes",
    "test_explain_cli.py": "runs the command line in processes",
    "test_hostile.py": "runs the command line in processes, with timeouts",
    "test_hostile3_inputs.py": "runs the command line on devices, links and processes",
    "test_hostile3_outputs.py": "runs the command line on devices, links and processes",
    "test_hostile3_index.py": "runs the command line on saved indexes, with processes",
    "test_hostile4_identity.py": "mounts folders and runs the command line in processes",
    "test_hostile4_csv.py": "runs the command line in processes",
    "test_hostile4_stdout.py": "runs the command line in processes",
    "test_hostile4_links.py": "runs the command line on links, pipes and devices, in processes",
    "test_hostile4_sticky.py": "writes through links another user owns, as root, in processes",
    "test_hostile4_parquet.py": "reads Parquet files (pyarrow is not in the page), with processes",
    "test_store_crash.py": "kills processes while they write",
    "test_store_concurrency.py": "queries while another process adds",
    "test_distributed.py": "starts a Dask cluster (processes; Dask is not in the page)",
    "test_readers_formats.py": "reads compressed and Parquet files (zstandard, pyarrow: not in the page)",
    "test_crosscheck_datasketch.py": "compares with datasketch, which is not in the page",
    "test_optimal_params_datasketch.py": "compares with datasketch, which is not in the page",
    "test_xxh3.py": "compares the XXH3 fallback with xxhash, which is not in the page",
}


#: Modules (or folders, ending in "/") of neardup_lab whose doctests need what the page lacks.
NATIVE_ONLY_SOURCES = {
    "distributed/": "needs Dask, which is not in the page",
    "checks/remote.py": "grading's sockets and threads",
    "notebook/helpers.py": "the chapters' helpers, run where the book is built (pandas is not in the page)",
    "readers/parquet.py": "reads Parquet files (pyarrow is not in the page)",
}


def native_only_reason(path: Path) -> str | None:
    """Why the test module or package module at ``path`` runs natively only, or None."""
    if path.name in NATIVE_ONLY:
        return NATIVE_ONLY[path.name]
    parts = path.parts
    if "neardup_lab" in parts:
        inside = "/".join(parts[len(parts) - parts[::-1].index("neardup_lab"):])
        for source, reason in NATIVE_ONLY_SOURCES.items():
            if inside == source or (source.endswith("/") and inside.startswith(source)):
                return reason
    return None


class _NativeOnlyModule(pytest.File):
    """A module that runs natively only, in the browser: one skipped test that says why."""

    def collect(self) -> list[pytest.Item]:
        return [_NativeOnlyItem.from_parent(self, name=self.path.stem)]


class _NativeOnlyItem(pytest.Item):
    def runtest(self) -> None:
        pytest.skip(f"native only: {native_only_reason(self.path)}")

    def reportinfo(self) -> tuple[object, int, str]:
        return self.path, 0, self.name


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector):  # noqa: ANN201 (pytest's hook)
    collectors = yield
    if IN_BROWSER and collectors and native_only_reason(file_path):
        return [_NativeOnlyModule.from_parent(parent, path=file_path)]
    return collectors


@pytest.hookimpl(wrapper=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector):  # noqa: ANN201 (pytest's hook)
    # A package whose __init__ cannot be imported here is one skipped test, not a collection error.
    collector = yield
    if IN_BROWSER and collector is not None and native_only_reason(path / "__init__.py"):
        return _NativeOnlyModule.from_parent(parent, path=path / "__init__.py")
    return collector


def pytest_configure(config: pytest.Config) -> None:
    if IN_BROWSER:  # the package is the site's wheel, outside the checkout, where checks look for them
        from neardup_lab import checks

        checks.load_grading(Path(__file__).resolve().parents[1] / "labs" / "grading")
    config.addinivalue_line(
        "markers", "native(reason): needs what the browser's Python lacks (processes, threads); skipped there"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
        native = item.get_closest_marker("native")
        if IN_BROWSER and native is not None:
            item.add_marker(pytest.mark.skip(reason=f"native only: {native.args[0]}"))

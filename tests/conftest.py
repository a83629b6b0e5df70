"""Shared test settings: hypothesis profiles (derandomised under CI=true), the slow marker."""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "dev")

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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)

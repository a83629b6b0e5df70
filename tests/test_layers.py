"""The package's layers, read from its imports: core <- engine <- tools, no cycle, no private names.

The core (the modules at the top of ``neardup_lab/``) is what the chapters teach; the engine
(``neardup_lab/engine/``) makes it fast; the tools (command line, readers, saved index, Dask)
handle files and processes. Each layer may import the ones above it in that list, never below.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import neardup_lab

PACKAGE = Path(neardup_lab.__file__).parent
TOOLS = ("cli", "readers", "index", "distributed")
#: Subpackages that sit beside the layers: the book's helpers and the labs' checks may use any layer.
BESIDE = ("notebook", "checks")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[1] in ("__init__", "__main__")):
        return "facade"
    if parts[1] == "engine":
        return "engine"
    if parts[1] in TOOLS:
        return "tools"
    if parts[1] in BESIDE:
        return "beside"
    return "core"


class Import(ast.NodeVisitor):
    """Every ``import`` and ``from ... import`` of one module, at any depth, resolved to absolute names."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.package = module if is_package else module.rpartition(".")[0]
        self.found: list[tuple[str, str | None, int]] = []  # (module, imported name or None, line)

    def visit_Import(self, node: ast.Import) -> None:
        self.found += [(alias.name, None, node.lineno) for alias in node.names]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            anchor = self.package.split(".")
            anchor = anchor[: len(anchor) - node.level + 1]
            base = ".".join(anchor + ([base] if base else []))
        for alias in node.names:
            self.found.append((base, alias.name, node.lineno))


def package_imports() -> dict[str, list[tuple[str, str | None, int]]]:
    result = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        visitor = Import(module, path.name == "__init__.py")
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        result[module] = visitor.found
    return result


IMPORTS = package_imports()
MODULES = set(IMPORTS)


def target_module(base: str, name: str | None) -> str:
    """The module an import reads: ``from pkg import mod`` a module, ``from mod import f`` its module."""
    if name and f"{base}.{name}" in MODULES:
        return f"{base}.{name}"
    return base


def internal_edges() -> list[tuple[str, str, str | None, int]]:
    return [
        (module, target_module(base, name), name, line)
        for module, found in IMPORTS.items()
        for base, name, line in found
        if base.split(".")[0] == "neardup_lab"
    ]


def test_the_package_has_the_three_layers():
    layers = {layer_of(m) for m in MODULES}
    assert {"core", "engine", "tools"} <= layers
    assert {"neardup_lab.text", "neardup_lab.minhash", "neardup_lab.lsh"} <= MODULES
    assert {"neardup_lab.engine.pipeline", "neardup_lab.reference"} <= MODULES


@pytest.mark.parametrize(
    ("layer", "forbidden"), [("core", {"engine", "tools", "beside"}), ("engine", {"tools", "beside"})]
)
def test_a_layer_imports_nothing_from_the_layers_below_it(layer, forbidden):
    wrong = [
        f"{module}:{line} imports {target}"
        for module, target, _, line in internal_edges()
        if layer_of(module) == layer and layer_of(target) in forbidden
    ]
    assert not wrong, "\n".join(wrong)


def test_no_module_imports_a_private_name_of_another():
    wrong = [
        f"{module}:{line} imports {name} from {target}"
        for module, target, name, line in internal_edges()
        if name and name.startswith("_") and not name.startswith("__") and target != module
    ]
    wrong += [
        f"{module}:{line} imports the private module {target}"
        for module, target, _, line in internal_edges()
        if any(part.startswith("_") and not part.startswith("__") for part in target.split("."))
    ]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle():
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, target, _, _ in internal_edges():
        # A package's __init__ that re-exports its modules is where the names live, not a cycle.
        if target in MODULES and target != module and not module.startswith(target + "."):
            graph[module].add(target)
    cycles, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(path[path.index(nxt) :] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_the_layer_test_sees_a_violation():
    """The checks above can fail: a core module importing the engine is seen."""
    visitor = Import("neardup_lab.text", is_package=False)
    visitor.visit(ast.parse("from .engine.pipeline import dedup\nfrom .hashing import _private"))
    (base1, name1, _), (base2, name2, _) = visitor.found
    assert layer_of(target_module(base1, name1)) == "engine"
    assert (base2, name2) == ("neardup_lab.hashing", "_private")


@pytest.mark.native("starts a Python process")
def test_import_neardup_lab_loads_numpy_and_nothing_heavier():
    code = (
        "import sys, neardup_lab\n"
        "heavy = ['scipy', 'dask', 'pyarrow', 'zstandard', 'tqdm', 'matplotlib', 'pandas']\n"
        "print(len(neardup_lab.__all__), [m for m in heavy if m in sys.modules], 'numpy' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    out = run.stdout.split(" ", 1)
    assert int(out[0]) <= 45
    assert out[1].strip() == "[] True"


def test_the_public_table_lists_every_public_name_in_reading_order():
    doc = neardup_lab.__doc__
    positions = [doc.find(f"``{name}``") for name in neardup_lab.__all__]
    missing = [name for name, at in zip(neardup_lab.__all__, positions) if at < 0]
    assert not missing, f"names missing from the module docstring's table: {missing}"
    for name in neardup_lab.__all__:
        assert getattr(neardup_lab, name).__doc__, f"{name} has no docstring"

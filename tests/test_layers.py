"""The package's layers, read from its imports: support <- core <- engine <- tools, no cycle,
no private names.

The core (the modules at the top of ``neardup_lab/``) is what the chapters teach; the engine
(``neardup_lab/engine/``) makes it fast; the tools (command line, readers, saved index, Dask)
handle files and processes. Below them all, ``neardup_lab/support/`` holds what every layer
shares and no chapter teaches (limits, ragged arrays, XXH3 in plain Python). Each layer may
import the ones above it in that list, never below.
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
    if parts[1] == "support":
        return "support"
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


def imported_within_package(start: str) -> set[str]:
    """Every package module ``start`` loads, directly or through others, at import or at call time."""
    edges: dict[str, set[str]] = {}
    for module, target, _, _ in internal_edges():
        edges.setdefault(module, set()).add(target)
    seen, todo = set(), [start]
    while todo:
        module = todo.pop()
        for target in edges.get(module, set()) - seen:
            seen.add(target)
            todo.append(target)
    return seen


def test_the_reference_pipeline_is_built_from_core_functions_only():
    loaded = imported_within_package("neardup_lab.reference")
    assert "neardup_lab.lsh" in loaded and "neardup_lab.minhash" in loaded
    assert not [m for m in loaded if layer_of(m) not in ("core", "support")], sorted(loaded)


#: The rule that keeps engine code out of the core: a core module starts no thread or process,
#: and batches no documents: it cuts no concatenated documents apart (``reduceat``) and holds no
#: ragged batch (``Ragged``, ``chunk_bounds``); and each of its functions is short enough to read
#: beside its chapter (at most MAX_CORE_FUNCTION lines of code below the docstring).
ENGINE_ONLY_IMPORTS = ("threading", "concurrent", "multiprocessing", "subprocess", "queue")
ENGINE_ONLY_NAMES = ("reduceat", "Ragged", "chunk_bounds")
MAX_CORE_FUNCTION = 45


def engine_code_in(source: str) -> list[str]:
    """What in ``source`` (a core module) is engine code by the rule above, one line each."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            module = getattr(node, "module", None)
            names = [alias.name for alias in node.names] + ([module] if module else [])
            found += [f"{node.lineno}: imports {n}" for n in names if n.split(".")[0] in ENGINE_ONLY_IMPORTS]
            found += [f"{node.lineno}: imports {n}" for n in names if n in ENGINE_ONLY_NAMES]
        elif isinstance(node, ast.Attribute | ast.Name):
            name = node.attr if isinstance(node, ast.Attribute) else node.id
            if name in ENGINE_ONLY_NAMES:
                found.append(f"{node.lineno}: uses {name}")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0]
            has_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            start = first.end_lineno + 1 if has_doc and len(node.body) > 1 else first.lineno
            if node.end_lineno - start + 1 > MAX_CORE_FUNCTION:
                found.append(f"{node.lineno}: {node.name} has {node.end_lineno - start + 1} lines of code")
    return found


def test_no_core_module_defines_engine_code():
    wrong = {
        module: found
        for module in sorted(MODULES)
        if layer_of(module) == "core"
        and (found := engine_code_in((PACKAGE / f"{module.split('.', 1)[1]}.py").read_text(encoding="utf-8")))
    }
    assert not wrong, wrong


def test_the_engine_code_rule_sees_engine_code():
    """The rule above can fail: threads, a segmented reduction and a long function are each seen."""
    long_body = "\n".join(f"    x{i} = {i}" for i in range(MAX_CORE_FUNCTION + 1))
    source = (
        "from concurrent.futures import ThreadPoolExecutor\n"
        "import numpy as np\n"
        "def sign(v, s):\n    return np.minimum.reduceat(v, s)\n"
        f"def long():\n    'Doc.'\n{long_body}\n"
    )
    found = engine_code_in(source)
    assert sorted(line.split(": ", 1)[1] for line in found) == [
        "imports concurrent.futures",
        f"long has {MAX_CORE_FUNCTION + 1} lines of code",
        "uses reduceat",
    ]


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

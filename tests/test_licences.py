"""What a teacher may reuse, said in every place they look.

The code is under MIT (``LICENSE``), the prose, figures and labs under CC BY 4.0
(``LICENSE-CONTENT``); the README, the book's footer and ``CITATION.cff`` say the same,
with one copyright holder everywhere.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
HOLDER = "The neardup-lab authors"
LEGAL_CODE = "https://creativecommons.org/licenses/by/4.0/legalcode"


def _text(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def test_code_licence_is_mit_with_the_books_author():
    licence = _text("LICENSE")
    assert licence.startswith("MIT License\n")
    assert re.search(rf"^Copyright \(c\) \d{{4}} {re.escape(HOLDER)}$", licence, re.M)
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in licence
    project = tomllib.loads(_text("pyproject.toml"))
    assert project["project"]["license"] == {"text": "MIT"}
    assert project["tool"]["setuptools"]["license-files"] == ["LICENSE", "LICENSE-CONTENT"]
    assert yaml.safe_load(_text("_config.yml"))["author"] == HOLDER


def test_content_licence_names_cc_by_and_gives_an_attribution_line():
    content = _text("LICENSE-CONTENT")
    assert "Creative Commons Attribution 4.0 International" in content and "CC BY 4.0" in content
    assert LEGAL_CODE in content
    assert HOLDER in content
    attribution = r'^\s+"neardup-lab" by the neardup-lab authors, licensed under CC BY 4\.0$'
    assert re.search(attribution, content, re.M)
    for covered in ("book/", "labs/", "figures"):
        assert covered in content, covered


def test_readme_and_footer_say_which_licence_covers_what():
    readme = _text("README.md")
    section = readme.split("## Licence\n", 1)[1].split("\n## ", 1)[0]
    links = ("[LICENSE](LICENSE)", "[LICENSE-CONTENT](LICENSE-CONTENT)", "CITATION.cff")
    for needle in ("MIT", "CC BY 4.0", *links):
        assert needle in section, needle
    footer = yaml.safe_load(_text("_config.yml"))["html"]["extra_footer"]
    assert "CC BY 4.0" in footer and "MIT" in footer
    assert 'href="https://creativecommons.org/licenses/by/4.0/"' in footer


def test_citation_file_is_valid_cff_without_invented_identifiers():
    citation = yaml.safe_load(_text("CITATION.cff"))
    assert citation["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors"):
        assert citation[key], key
    assert citation["authors"] == [{"name": HOLDER}], "the authors as one entity"
    assert citation["version"] == tomllib.loads(_text("pyproject.toml"))["project"]["version"]
    assert set(citation["license"]) == {"MIT", "CC-BY-4.0"}
    assert "doi" not in citation and "identifiers" not in citation

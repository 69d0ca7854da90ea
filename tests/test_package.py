"""The package's metadata as an index shows it: classifiers, keywords, authors, and a
long description that reads well outside the repository."""

from __future__ import annotations

import doctest
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover (3.10: the test needs tomllib)
    tomllib = None


@pytest.fixture(scope="module")
def project() -> dict:
    if tomllib is None:
        pytest.skip("tomllib needs Python 3.11")
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def test_the_metadata_says_what_the_package_is_for(project):
    assert "Topic :: Games/Entertainment :: Board Games" in project["classifiers"]
    assert {"shogi", "tsume", "USI", "詰将棋"} <= set(project["keywords"])
    assert project["authors"]
    # Every Python version requires-python allows up to the newest classified.
    assert project["requires-python"] == ">=3.10"
    assert "Programming Language :: Python :: 3.10" in project["classifiers"]


def test_the_long_description_has_no_link_that_breaks_outside_the_repository(project):
    text = (ROOT / project["readme"]).read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)]*)\)", text)
    assert all(link.startswith("https://") for link in links), links


def test_the_long_description_s_example_gives_what_it_shows(project):
    result = doctest.testfile(
        str(ROOT / project["readme"]), module_relative=False, optionflags=doctest.ELLIPSIS
    )
    assert result.attempted >= 1 and result.failed == 0


def test_the_docs_do_not_cite_the_project_s_own_issue_numbers():
    # A reader cannot open them (git keeps the history); other projects' issues, with
    # their project named, can be opened.
    pattern = re.compile(r"(\S+)\s+issues?\s+#?\d+", re.IGNORECASE)
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in pattern.finditer(line):
                assert m.group(1).strip("(") in ("YaneuraOu", "KomoringHeights"), (
                    path.name,
                    line_no,
                    line,
                )
            assert not re.match(r"\(?issues?\s+#?\d+", line.strip(), re.IGNORECASE), (
                path.name,
                line_no,
                line,
            )


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_to_a_heading_of_the_docs_finds_it():
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    anchors = {}
    for path in docs:
        text = path.read_text(encoding="utf-8")
        anchors[path.resolve()] = {
            _slug(m[1]) for m in re.finditer(r"^#+ (.+)$", text, re.MULTILINE)
        }
    for path in docs:
        text = path.read_text(encoding="utf-8")
        for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", text):
            if target.startswith("http"):
                continue
            file = (path.parent / target).resolve() if target else path.resolve()
            assert anchor in anchors.get(file, set()), (path.name, target, anchor)


def test_the_readme_s_figures_are_the_tables_they_quote():
    # A table after `<!-- quote: docs/X.md -->` must appear in that file as it is, so a
    # figure cannot disagree with its source (re-measured there, quoted here again).
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quotes = re.findall(r"<!-- quote: (\S+) -->\n((?:\|[^\n]*\n)+)", readme)
    assert len(quotes) >= 3, "the README quotes its benchmark tables"
    for source, table in quotes:
        assert table in (ROOT / source).read_text(encoding="utf-8"), (source, table)

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

"""The API reference (docs/api): built from the docstrings by Sphinx with warnings as
errors, its pages there, and rendered by headless Chromium as a reader's browser would."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest
from browser import CHROMIUM, chromium, screenshot
from png import read_png

ROOT = Path(__file__).resolve().parent.parent
PAGES = {
    "solving.html": ["usi_mate.solve", "usi_mate.Solver", "usi_mate.SearchRequest", "Position"],
    "results.html": ["usi_mate.MateResult", "SearchProgress", "Certification", "verify_no_mate"],
    "batch.html": ["usi_mate.solve_many", "usi_mate.usi_to_kif"],
    "check.html": ["usi_mate.check", "CheckReport"],
    "usi_options.html": ["USI_Hash", "MinLengthEffort", "PostSearchLevel", "ReportCooks"],
}

pytest.importorskip("sphinx", reason="Sphinx is in the test extra (pip install -e '.[test]')")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("api-html")
    # -W: a warning fails the build (a documented name without a docstring, conf.py's
    # check); -n: so does a cross-reference that resolves to nothing.
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-E",
            "-W",
            "-n",
            "--keep-going",
            "-q",
            "-b",
            "html",
            str(ROOT / "docs" / "api"),
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return out


def _text(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def test_the_reference_has_a_page_for_each_part_of_the_api(built):
    for name, needed in PAGES.items():
        text = _text(built / name)
        for word in needed:
            assert word in text, (name, word)
    # Every USI option the engine declares is on its page.
    from usi_mate.options import OPTIONS

    options = _text(built / "usi_options.html")
    assert all(option.usi_line() in options for option in OPTIONS)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (.ci/run installs it)")
def test_the_reference_renders_in_headless_chromium(built, tmp_path):
    page = built / "solving.html"
    dom = chromium("--dump-dom", page.as_uri(), profile=tmp_path / "profile")
    assert dom.returncode == 0, dom.stderr[-2000:]
    # The browser's DOM after loading: the API's entries with their anchors.
    assert 'id="usi_mate.solve"' in dom.stdout and 'id="usi_mate.Solver"' in dom.stdout
    shot = tmp_path / "solving.png"
    r = screenshot(page, shot, 1000, 800, tmp_path / "profile")
    assert r.returncode == 0 and shot.exists(), r.stderr[-2000:]
    image = read_png(shot.read_bytes())
    sample = {
        image.pixel(x, y) for y in range(0, image.height, 4) for x in range(0, image.width, 4)
    }
    assert len(sample) > 20, "a blank or flat page"

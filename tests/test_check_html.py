"""The check report as a web page (``usi-mate check --format html``, usi_mate.check_html),
and that page as a real browser draws it.

The page is read back: one board diagram per finding and variation, each the position
where the alternative arises (its pieces compared square by square with usi_mate's
Position) with the alternative's squares marked, the captions as the text report writes
them, nothing fetched from elsewhere. Then headless Chromium (Debian's, as .ci/run
installs it) takes a screenshot of the page the command wrote, and the PNG is checked
for the board: the board colour over the diagram, glyph pixels on exactly the occupied
squares of the problem, the marked squares and the verdict's colour.
"""

from __future__ import annotations

import html
import random
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib
from html.parser import HTMLParser

import pytest
from board_svg import cell, drawn_board, marked_squares, pieces_of
from browser import CHROMIUM, screenshot
from png import read_png
from test_check import COOK_AT_3, NODES, SOUND, run_cli

from usi_mate import Position, Solver, check
from usi_mate.check_html import BOARD_COLOUR, format_html
from usi_mate.check_report import finding_text, shown_alternatives

SVG_BLOCK = re.compile(r"<svg\b.*?</svg>", re.S)
FIGURE = re.compile(r'<figure class="alternative kind-([a-z_]+)".*?</figure>', re.S)
MARK_TO, MARK_FROM = "#f6b94d", "#fdf0e3"  # cshogi's colours for a move's squares
VERDICT_FLAW = "#f8d7da"  # check_html's background of a flawed verdict


@pytest.fixture(scope="module")
def report():
    return check(COOK_AT_3, solver=Solver(16), nodes_limit=NODES)


@pytest.fixture(scope="module")
def page(report) -> str:
    return format_html(report, title="cook-at-3")


def before(report, number: int) -> Position:
    pos = Position(report.sfen)
    for m in report.main_line[: number - 1]:
        pos.push_usi(m)
    return pos


class _Attributes(HTMLParser):
    """Every tag and attribute of a page (SVG included: the parser keeps its names)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(k, v or "") for k, v in attrs]


def test_the_page_is_self_contained_utf8(page):
    assert page.startswith("<!DOCTYPE html>\n") and '<meta charset="utf-8">' in page
    seen = _Attributes()
    seen.feed(page)
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(seen.tags)
    assert "url(" not in page and "@import" not in page
    for name, value in seen.attrs:
        assert name != "src", value
        if name.endswith("href"):  # xlink:href of the pieces: within the page
            assert value.startswith("#"), value
    ids = [v for k, v in seen.attrs if k == "id"]
    assert len(ids) == len(set(ids))  # several diagrams on one page, none shares an id
    assert {v[1:] for k, v in seen.attrs if k.endswith("href")} <= set(ids)
    page.encode("utf-8")


def test_the_verdict_the_problem_and_its_main_line_come_first(page, report):
    assert (report.verdict, report.verdict_move) == ("cooked", 3)
    section = page[page.index('<section class="problem"') :]
    assert section.index('<p class="verdict flaw">verdict: cooked at move 3') < section.index(
        "<svg"
    )
    first = ET.fromstring(SVG_BLOCK.search(section).group(0))  # the problem's diagram
    assert drawn_board(first) == pieces_of(Position(COOK_AT_3))
    assert marked_squares(first) == {}
    assert "▲２四桂打 △" in section  # the main line in Japanese notation


def test_one_diagram_per_finding_and_variation_where_it_arises(page, report):
    shown = shown_alternatives(report, verbose=True)
    figures = list(FIGURE.finditer(page))
    assert [f.group(1) for f in figures] == [a.kind for a in shown]
    assert "cook" in {a.kind for a in shown} and "variation" in {a.kind for a in shown}
    for a, figure in zip(shown, figures):
        (block,) = SVG_BLOCK.findall(figure.group(0))
        root = ET.fromstring(block)
        pos = before(report, a.move_number)
        assert drawn_board(root) == pieces_of(pos), a
        marks = (
            {MARK_TO: a.move[2:4]}
            if "*" in a.move
            else {MARK_TO: a.move[2:4], MARK_FROM: a.move[:2]}
        )
        assert marked_squares(root) == marks, a
        head, line = finding_text(report, a)
        assert html.escape(head) in figure.group(0)
        assert line is None or html.escape(line) in figure.group(0)
    assert "move 3 ▲２一桂成: cook (余詰)" in page


def test_without_cshogi_the_page_has_text_diagrams(report, monkeypatch):
    monkeypatch.setitem(sys.modules, "cshogi", None)
    page = format_html(report, title="<b>x</b>")
    assert "<svg" not in page and "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    figures = FIGURE.findall(page)
    assert page.count('<pre class="board-text">') == len(figures) + 1
    assert "pip install &quot;usi-mate[board]&quot; for a drawn board" in page


def run_check(*args: str) -> subprocess.CompletedProcess:
    return run_cli("check", *args, "--nodes", str(NODES), "--hash", "16")


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    """The page ``usi-mate check --format html --output FILE`` writes for COOK_AT_3."""
    path = tmp_path_factory.mktemp("html") / "report.html"
    r = run_check(COOK_AT_3, "--format", "html", "--output", str(path))
    assert r.returncode == 1, r.stderr  # cooked
    assert r.stdout == "" and r.stderr == ""
    return path


def test_the_command_writes_one_page(page_file):
    text = page_file.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.endswith("</body>\n</html>\n")
    assert text.count('<section class="problem"') == 1 and "<h2>arg 1</h2>" in text
    assert "<title>usi-mate check: arg 1</title>" in text
    assert len(FIGURE.findall(text)) == len(SVG_BLOCK.findall(text)) - 1 > 0


def test_the_command_writes_several_problems_on_one_page_to_stdout():
    r = run_check(SOUND, COOK_AT_3, "--format", "html")
    assert r.returncode == 1, r.stderr
    assert r.stdout.count("<!DOCTYPE html>") == 1 and r.stdout.count("</html>") == 1
    assert "<title>usi-mate check: 2 problems</title>" in r.stdout
    verdicts = re.findall(r'<p class="verdict (\w+)">verdict: ([^;<]+)', r.stdout)
    assert verdicts == [("good", "sound"), ("flaw", "cooked at move 3")]
    seen = _Attributes()
    seen.feed(r.stdout)
    ids = [v for k, v in seen.attrs if k == "id"]
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------------------
# In a real browser


def _png(rows: list[bytes], width: int, channels: int) -> bytes:
    """A PNG of these rows, row y filtered with filter y % 5 (the definitions of the PNG
    specification, written out plainly: the reader's oracle)."""

    def paeth(a, b, c):
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        return a if pa <= pb and pa <= pc else (b if pb <= pc else c)

    raw, prior = b"", bytes(width * channels)
    for y, row in enumerate(rows):
        kind, out = y % 5, bytearray()
        for i, v in enumerate(row):
            a = row[i - channels] if i >= channels else 0
            b, c = prior[i], prior[i - channels] if i >= channels else 0
            pred = (0, a, b, (a + b) // 2, paeth(a, b, c))[kind]
            out.append((v - pred) % 256)
        raw += bytes([kind]) + bytes(out)
        prior = row

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    colour_type = {3: 2, 4: 6}[channels]
    header = struct.pack(">IIBBBBB", width, len(rows), 8, colour_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("channels", [3, 4])
def test_the_png_reader_undoes_every_row_filter(channels):
    rng = random.Random(channels)
    width = 7
    rows = [bytes(rng.randrange(256) for _ in range(width * channels)) for _ in range(11)]
    image = read_png(_png(rows, width, channels))
    assert (image.width, image.height, image.rows) == (width, 11, rows)
    assert read_png(_png(rows, width, channels), rows=3).rows == rows[:3]


def japanese_fonts() -> list[str] | None:
    """The fonts fontconfig has for Japanese (None: no fc-list to ask)."""
    if shutil.which("fc-list") is None:
        return None
    out = subprocess.run(["fc-list", ":lang=ja", "family"], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if line.strip()]


def colour(text: str) -> tuple[int, int, int]:
    return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)


@pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium binary (Debian: apt-get install chromium fonts-ipaexfont-mincho; "
    ".ci/run installs them)",
)
def test_the_report_rendered_by_headless_chromium_shows_the_board(page_file, tmp_path):
    fonts = japanese_fonts()
    assert fonts != [], (
        "no Japanese font: the kanji would be drawn as empty boxes "
        "(Debian: apt-get install fonts-ipaexfont-mincho; .ci/run installs it)"
    )
    shot = tmp_path / "report.png"
    width, height = 1000, 1400
    r = screenshot(page_file, shot, width, height, tmp_path / "profile")
    assert r.returncode == 0 and shot.exists(), r.stderr[-2000:]
    image = read_png(shot.read_bytes())
    assert (image.width, image.height) == (width, height)
    sample = {image.pixel(x, y) for y in range(0, height, 4) for x in range(0, width, 4)}
    assert len(sample) > 20, "a blank or flat screenshot"
    assert image.count(colour(VERDICT_FLAW)) > 2_000  # the verdict "cooked" is shown
    assert image.count(colour(MARK_TO)) > 300  # an alternative's square is marked

    # The problem's diagram: the first row with a long run of the board colour is its
    # top edge (the page's first drawing); its width gives the drawing's scale.
    first = ET.fromstring(SVG_BLOCK.search(page_file.read_text(encoding="utf-8")).group(0))
    drawn_width, drawn_height = float(first.get("width")), float(first.get("height"))
    scale = drawn_width / float(first.get("viewBox").split()[2])
    board_colour = colour(BOARD_COLOUR)
    found = image.first_run(board_colour, round(0.9 * drawn_width))
    assert found is not None, f"no board colour {BOARD_COLOUR} in {shot}"
    left, top, run = found
    assert abs(run - drawn_width) <= 2, (run, drawn_width)
    box = (left, top, left + run, top + round(drawn_height))
    area = run * round(drawn_height)
    assert image.count(board_colour, box) > 0.6 * area, "the board colour is not dominant"

    def ink(square: str) -> int:
        # Dark pixels inside the square, clear of its grid lines (4 units in from each).
        cx, cy, pitch = cell(first, square)
        x0, y0 = round(left + (cx + 4) * scale), round(top + (cy + 4) * scale)
        x1, y1 = round(left + (cx + pitch - 4) * scale), round(top + (cy + pitch - 4) * scale)
        return sum(1 for y in range(y0, y1) for x in range(x0, x1) if sum(image.pixel(x, y)) < 300)

    inked = {f"{f}{rank}": ink(f"{f}{rank}") for f in range(1, 10) for rank in "abcdefghi"}
    occupied = pieces_of(Position(COOK_AT_3)).keys()
    assert {sq for sq, n in inked.items() if n >= 15} == occupied, (inked, shot)
    assert all(n == 0 for sq, n in inked.items() if sq not in occupied), (inked, shot)

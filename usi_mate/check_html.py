"""The composer's check as a web page: ``usi-mate check --format html``.

One self-contained HTML document (UTF-8, inline CSS and SVG, no script, nothing fetched)
for one or more problems. Each problem is a ``<section>``: its title and verdict first,
the problem's diagram, the main line, then every finding and variation (the findings of
the text report and its ``-v`` variations) as a figure: the diagram of the position where
the alternative arises, the alternative's squares marked, its heading and its line in
Japanese notation as the text report writes them (:mod:`usi_mate.check_report`), and the
closing counts. The diagrams are :mod:`usi_mate.board`'s (cshogi's SVG; without cshogi,
the KIF text diagram).

:func:`format_html` gives the whole page for one report; the command writes
:func:`html_head`, one :func:`html_section` per problem as each check ends, and
:data:`HTML_TAIL`.
"""

from __future__ import annotations

from html import escape

from . import board
from ._core import Position
from .check_report import (
    KIND_LABELS,
    CheckReport,
    finding_text,
    main_line_text,
    shown_alternatives,
    summary_text,
    verdict_line,
)

__all__ = ["format_html", "html_head", "html_section", "HTML_TAIL", "BOARD_COLOUR"]

# The diagrams' background (cshogi's board is transparent); the browser test looks for it.
BOARD_COLOUR = "#f3d9a4"
_VERDICT_CLASS = {
    "sound": "good",
    "undecided": "open",
    "cooked": "flaw",
    "unsound_defence": "flaw",
    "nomate": "flaw",
    "invalid": "flaw",
}
_STYLE = f"""
body {{ font-family: "Hiragino Sans", "Yu Gothic", "Noto Sans CJK JP", "IPAexGothic",
  sans-serif; margin: 1.5em; color: #222; max-width: 60em; }}
h1 {{ font-size: 1.3em; }}
section.problem {{ border-top: 2px solid #999; margin-top: 1.5em; }}
.verdict {{ font-weight: bold; padding: 0.3em 0.6em; display: inline-block; }}
.verdict.good {{ background: #dff0d8; }}
.verdict.open {{ background: #fcf3cf; }}
.verdict.flaw {{ background: #f8d7da; }}
.diagram svg {{ background: {BOARD_COLOUR}; display: block; }}
.diagram svg text {{ font-family: "Hiragino Mincho ProN", "Yu Mincho", "IPAexMincho",
  "Noto Serif CJK JP", serif; }}
.alternatives {{ display: flex; flex-wrap: wrap; gap: 1em; }}
figure {{ margin: 0; width: 360px; }}
figcaption {{ font-size: 0.9em; margin-top: 0.3em; }}
.line, .sfen {{ font-size: 0.9em; }}
.sfen {{ font-family: monospace; color: #555; }}
pre.board-text {{ font-family: "IPAexGothic", "Noto Sans Mono CJK JP", monospace; }}
.board-note {{ font-size: 0.8em; color: #a00; }}
"""
HTML_TAIL = "</body>\n</html>\n"


def html_head(title: str) -> str:
    """The start of the page, up to and with its ``<h1>``."""
    t = escape(title)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="ja">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{t}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n"
    )


def _para(cls: str, text: str) -> str:
    return f'<p class="{cls}">{escape(text)}</p>\n'


def html_section(report: CheckReport, *, title: str | None = None, index: int = 0) -> str:
    """One problem's report as a ``<section>``; ``index`` keeps the diagrams' ids apart."""
    verdict_class = _VERDICT_CLASS.get(report.verdict, "open")
    out = [f'<section class="problem" id="problem-{index + 1}">\n']
    if title:
        out.append(f"<h2>{escape(title)}</h2>\n")
    out.append(_para(f"verdict {verdict_class}", verdict_line(report)))
    out.append(
        '<div class="diagram problem-diagram">'
        + board.html(report.sfen, id_prefix=f"p{index}-start-")
        + "</div>\n"
    )
    out.append(_para("sfen", "position: " + report.sfen))
    for line in main_line_text(report):
        out.append(_para("main-line", line.strip()))
    alternatives = shown_alternatives(report, verbose=True)
    if alternatives:
        out.append("<h3>Findings and variations</h3>\n")
        out.append('<div class="alternatives">\n')
        pos = Position(report.sfen)
        played = 0
        for j, a in enumerate(alternatives):
            # The position before main move k: the main line played up to it.
            while played < a.move_number - 1:
                pos.push_usi(report.main_line[played])
                played += 1
            head, moves = finding_text(report, a)
            diagram = board.html(pos, move=a.move, id_prefix=f"p{index}-a{j}-")
            out.append(
                f'<figure class="alternative kind-{a.kind}" title="{escape(KIND_LABELS[a.kind])}">'
                f'<div class="diagram">{diagram}</div>'
                f"<figcaption>{escape(head)}"
                + (f'<div class="line">{escape(moves)}</div>' if moves else "")
                + "</figcaption></figure>\n"
            )
        out.append("</div>\n")
    for line in summary_text(report):
        out.append(_para("summary", line))
    out.append("</section>\n")
    return "".join(out)


def format_html(report: CheckReport, *, title: str | None = None) -> str:
    """The report as a whole HTML page (see the module's description)."""
    head = html_head(f"usi-mate check: {title}" if title else "usi-mate check")
    return head + html_section(report, title=title) + HTML_TAIL

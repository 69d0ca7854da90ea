"""Sphinx configuration of the API reference (docs/api).

The pages are generated from the package's docstrings by autodoc. (Not napoleon: the
docstrings are prose, and napoleon reads a property's "The side to move: BLACK ..." as a
type and a description.) Build: ``python -m sphinx -W -n --keep-going -b html docs/api
<out>``, as .ci/run and tests/test_api_docs.py do: a warning, such as a public name
without a docstring or a cross-reference that does not resolve, fails the build.
"""

from __future__ import annotations

import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, ROOT)  # the checkout's package (its core built in place, `pip install -e`)

import usi_mate  # noqa: E402
from usi_mate.options import OPTIONS  # noqa: E402

project = "usi-mate"
author = "the usi-mate authors"
copyright = "2026, the usi-mate authors"
release = usi_mate.__version__
extensions = ["sphinx.ext.autodoc"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
default_role = "py:obj"
html_theme = "alabaster"
html_static_path: list[str] = []
exclude_patterns = ["_build"]
# Names the docstrings mention that are not part of the reference: the compiled core's
# module, and types of the standard library that Sphinx does not link without intersphinx.
nitpick_ignore_regex = [
    (r"py:.*", r"usi_mate\._core.*"),
    (r"py:.*", r"concurrent\.futures\..*Executor|Iterable|Iterator|Callable|Sequence|Path"),
    (r"py:.*", r"os\.PathLike|typing\..*|collections\.abc\..*|datetime\..*"),
]


def _usi_options_page() -> str:
    """The USI options as the engine declares them (usi_mate.options.OPTIONS)."""
    lines = [
        "USI options",
        "===========",
        "",
        "What the engine declares after ``usi`` and how each ``setoption`` is read "
        "(``usi_mate.options.OPTIONS``).",
        "",
    ]
    for option in OPTIONS:
        lines += [
            f"``{option.name}``",
            "-" * (len(option.name) + 4),
            "",
            f"``{option.usi_line()}``",
            "",
            option.help,
            "",
        ]
    return "\n".join(lines)


def _write_generated(app) -> None:
    path = os.path.join(app.srcdir, "usi_options.rst")
    text = _usi_options_page()
    if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def _require_docstring(app, what, name, obj, options, lines) -> None:
    # A public name documented here must say what it is.
    if what in ("function", "class", "method") and not any(line.strip() for line in lines):
        from sphinx.util import logging

        logging.getLogger(__name__).warning("%s %s has no docstring", what, name)


def _public_name(app, env, node, contnode):
    # The docstrings name public objects as the package exports them (``MateResult``,
    # ``Solver.solve``, ``usi_mate.check``), where the reference documents them under
    # the package (``usi_mate.MateResult``): try that name before calling it missing.
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    domain = env.domains["py"]
    # Else a documented object of that name in a module of the package (a docstring of
    # usi_mate.runners naming ``ChunkSizer``), when only one has it.
    suffix = "." + target
    documented = [name for name in domain.objects if name.endswith(suffix)]
    candidates = [f"usi_mate.{target}", f"usi_mate.{target.rsplit('.', 1)[-1]}"]
    if len(documented) == 1:
        candidates.append(documented[0])
    for name in candidates:
        found = domain.resolve_xref(
            env, node["refdoc"], app.builder, node["reftype"], name, node, contnode
        )
        if found is not None:
            return found
    return None


def setup(app) -> None:
    app.connect("builder-inited", _write_generated)
    app.connect("autodoc-process-docstring", _require_docstring)
    app.connect("missing-reference", _public_name)

"""A usi_mate source folder without its compiled core says so when imported (issue 46 item 2).

From a checkout's root, ``python -m usi_mate`` and ``python -m scripts.<tool>`` import the
source folder ``usi_mate/`` before any installed package; after a plain ``pip install .`` it
has no core. The import then fails with an ImportError that names the folder and says what
to do, instead of "No module named 'usi_mate._core'".
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import usi_mate

SOURCES = Path(usi_mate.__file__).resolve().parent


def test_a_source_folder_without_core_says_what_to_do(tmp_path: Path) -> None:
    copy = tmp_path / "usi_mate"
    copy.mkdir()
    for source in SOURCES.glob("*.py"):
        shutil.copy(source, copy)
    # -S: no site-packages, so neither an installed usi_mate nor an editable install's
    # finder can supply the core; the folder is first on sys.path, as a checkout's root is.
    for command in (["-c", "import usi_mate"], ["-m", "usi_mate", "--version"]):
        done = subprocess.run(
            [sys.executable, "-S", *command],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode != 0
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith("ImportError: usi_mate was imported from the source folder ")
        assert str(copy) in last
        assert "no compiled core" in last
        assert "pip install -e ." in last
        assert "run from another folder" in last

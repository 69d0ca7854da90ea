"""Make the shared test helpers (tests/oracle.py, tests/hooks.py, scripts/mate_lines.py)
importable whatever pytest's import mode, so the test files can say ``from oracle
import ...``; and refuse to test a usi_mate other than this checkout's.

The suite imports ``usi_mate`` from wherever Python finds it: this checkout's, built in
place by ``pip install -e ".[test]"`` (the README's command), or a package installed from
it with ``pip install ".[test]"``. A copy
installed earlier from another version would be tested instead, and its missing
names would surface as import errors in single test files; this says so at once.
"""

import signal
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
CHECKOUT_PACKAGE = TESTS.parent / "usi_mate"

sys.path.insert(0, str(TESTS))
sys.path.insert(1, str(TESTS.parent / "scripts"))


def _stale_files(installed: Path) -> list[str]:
    """The checkout's Python sources that the imported package lacks or has otherwise."""
    stale = []
    for source in sorted(CHECKOUT_PACKAGE.glob("*.py")):
        copy = installed / source.name
        if not copy.is_file() or copy.read_bytes() != source.read_bytes():
            stale.append(source.name)
    return stale


def pytest_configure(config: pytest.Config) -> None:
    # A shell starts a background job with SIGINT ignored, and Python keeps what it
    # inherits: Ctrl-C would then reach neither the tests of Ctrl-C nor their children.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        import usi_mate
    except ImportError as e:
        pytest.exit(f"usi_mate cannot be imported ({e}): run pip install -e '.[test]' first", 2)
    installed = Path(usi_mate.__file__).resolve().parent
    if installed == CHECKOUT_PACKAGE.resolve() or not CHECKOUT_PACKAGE.is_dir():
        return
    stale = _stale_files(installed)
    if stale:
        pytest.exit(
            f"the usi_mate Python finds ({installed}) is not this checkout's: "
            f"{len(stale)} file(s) differ ({', '.join(stale[:5])}); "
            "run pip install -e '.[test]' here first",
            2,
        )

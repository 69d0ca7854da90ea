"""Make the shared test helpers (tests/oracle.py) importable whatever pytest's
import mode, so the test files can say ``from oracle import ...``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

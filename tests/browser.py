"""Headless Chromium as the tests drive it (the HTML check report, the API reference)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium(*args: str, profile: Path) -> subprocess.CompletedProcess:
    """Run headless Chromium with ``args``, a profile of its own in ``profile``."""
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",  # as root (CI) Chromium will not start with its sandbox
            "--disable-gpu",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def screenshot(page: Path, shot: Path, width: int, height: int, profile: Path):
    """A screenshot of ``page`` into ``shot``, pixel for pixel as the page is written."""
    return chromium(
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--force-color-profile=srgb",  # the page's colours as written
        f"--screenshot={shot}",
        f"--window-size={width},{height}",
        page.as_uri(),
        profile=profile,
    )

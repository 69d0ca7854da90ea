"""How much memory the machine can give: the guard behind ``USI_Hash`` and ``--hash``.

A table that does not fit is refused up front with a message, rather than
failing halfway (a ``MemoryError``, or Linux's OOM killer picking the GUI).
"""

from __future__ import annotations

import os
import sys

from .settings import THREAD_MB


def available_memory_mb() -> int | None:
    """Memory the machine can give us now, in MB, or None when the OS does not say."""
    if sys.platform == "win32":
        # Windows first: "/proc/meminfo" is a relative path there (the current drive's
        # root), which under Wine is Linux's own file (drive Z: is /), so a Linux-first
        # order never ran this branch in scripts.windows_check.
        available = _windows_available_mb()
        if available is not None:
            return available
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    try:  # macOS and other POSIX: total physical memory, better than nothing
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") >> 20
    except (ValueError, OSError, AttributeError):
        return None


def _windows_available_mb() -> int | None:
    """Available physical memory in MB from GlobalMemoryStatusEx, or None."""
    try:
        import ctypes

        class _MemoryStatus(ctypes.Structure):
            _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong)] + [
                (n, ctypes.c_ulonglong)
                for n in (
                    "total_phys",
                    "avail_phys",
                    "total_page",
                    "avail_page",
                    "total_virtual",
                    "avail_virtual",
                    "avail_ext_virtual",
                )
            ]

        status = _MemoryStatus()
        status.length = ctypes.sizeof(status)
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):  # type: ignore[attr-defined]
            return int(status.avail_phys >> 20)
    except (OSError, AttributeError):
        pass
    return None


def hash_limit_mb(current_mb: int = 0) -> int | None:
    """The largest table we dare allocate, or None when unknown.

    ``current_mb``: a table we hold and would free first (the core frees the old table
    before allocating the new one), so its size counts as available. 10% headroom: a
    table that fills the last free page sends Linux into the OOM killer (which may pick
    the GUI) rather than failing the allocation cleanly.
    """
    available = available_memory_mb()
    return None if available is None else max(1, int((available + current_mb) * 0.9))


def tables_fit(hash_mb: int, count: int = 1) -> str | None:
    """None when ``count`` tables of ``hash_mb`` MB fit in memory, else the reason."""
    limit = hash_limit_mb()
    if limit is None or hash_mb * count <= limit:
        return None
    what = f"{hash_mb} MB" if count == 1 else f"{count} tables of {hash_mb} MB"
    verb = "does" if count == 1 else "do"
    return f"{what} {verb} not fit in memory (about {limit} MB can be allocated)"


def threads_fit(threads: int, hash_mb: int) -> str | None:
    """None when ``threads`` search threads fit in memory beside a table of ``hash_mb``
    MB, else the reason. Each thread beyond the first has THREAD_MB of its own, outside
    the table (256 threads: about 1 GB), so USI_Hash alone does not bound it; the table
    is counted whole, though the machine has backed only the part already used."""
    extra = (threads - 1) * THREAD_MB
    limit = hash_limit_mb(hash_mb)
    if limit is None or extra <= 0 or hash_mb + extra <= limit:
        return None
    return (
        f"about {extra} MB for the threads beside the {hash_mb} MB table does not fit "
        f"in memory (about {limit} MB can be allocated)"
    )

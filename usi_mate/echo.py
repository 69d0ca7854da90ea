"""Input echoed back to a person, made safe: clipped, control characters escaped.

Every message or record that repeats what it read (an unknown USI command, a malformed
problem line, a problem id) goes through :func:`printable`, so that junk input can
neither flood a GUI's log or a terminal (an 8 MB line echoed whole) nor drive the
terminal (``\\x1b[2J`` clears the screen, ``\\x1b]0;...\\x07`` sets its title).

The USI engine writes ASCII (a GUI may read its output in any code page); the batch
tools keep Japanese ids and messages readable and escape only what a terminal would
act on.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["ECHO_LIMIT", "ECHO_ERROR_LIMIT", "ECHO_ID_LIMIT", "printable"]

# Echoed text in info strings is clipped so junk input cannot flood a GUI's log.
ECHO_LIMIT = 80
# Batch and check: a problem id (one word of the input line) and an error message,
# which quotes the input it refuses.
ECHO_ID_LIMIT = 100
ECHO_ERROR_LIMIT = 200

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Cc: C0, DEL and C1 controls (\x9b is a CSI on some terminals), format characters
# (bidi overrides that reorder what follows, zero-width characters), line and paragraph
# separators, surrogates, private use and unassigned code points.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(text: str, limit: int = ECHO_LIMIT, *, ascii_only: bool = True) -> str:
    """``text`` made safe to echo on one line: clipped to ``limit`` characters (then
    ``...``) and with control characters escaped (``\\x1b``).

    ``ascii_only`` (the USI side): every other non-ASCII character is escaped too
    (``\\u7389``). Without it (batch and check output, read by people in UTF-8),
    printable characters such as Japanese stay as they are and only those a terminal
    could act on or hide are escaped.
    """
    if len(text) > limit:
        text = text[:limit] + "..."
    if ascii_only:
        text = text.encode("ascii", "backslashreplace").decode("ascii")
        return _CONTROL.sub(lambda m: _escape(m.group()), text)
    return "".join(
        _escape(ch) if unicodedata.category(ch) in _UNSAFE_CATEGORIES else ch for ch in text
    )

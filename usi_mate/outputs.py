"""Where ``usi-mate solve`` and ``usi-mate check`` write their results, and how that fails.

A result that cannot be written (a full disk, a missing folder, an I/O error, even one
that only shows when the last buffer is flushed at close) is not a verdict about the
problems: both commands report it as one line, ``usi-mate solve: error: cannot write
out.txt: No space left on device``, and exit with status :data:`EXIT_IO` (2, the status
they already give bad usage and unreadable input). Before this module such a failure
ended in a traceback and status 1, which ``solve --check`` and ``check`` document as
"some result disagrees" and "some problem is flawed".

A reader that goes away (``usi-mate solve ... | head``) is the exception that stays
quiet, as it does for other filters: :class:`BrokenPipeError` is left as it is, for the
command to stop without a message.

A file is written in the encoding its name implies, by the KIF convention (Kakinoki's
format page, which ShogiHome follows when it opens a file): ``.kif`` and ``.ki2`` in
Shift_JIS, as CP932 (the Windows code page that Windows tools mean by Shift_JIS), with
CRLF line ends, and ``.kifu`` and ``.ki2u`` in UTF-8; other names and stdout are UTF-8
with LF. ``--encoding`` overrides the encoding (:func:`encoding_name` checks it where
it enters). CRLF goes with the Shift_JIS family because the readers that insist on it
are Windows programs (Kifu for Windows) and the format page has line ends follow the OS,
CRLF on Windows; every reader we checked takes either (tsshogi splits lines on
``\r?\n``, python-shogi and :func:`usi_mate.kif.parse_kif` both). No BOM and no
``#KIF ... encoding=`` line: the name says the encoding. Everything the KIF writers
write themselves (piece names, ▲△, kanji numerals, 詰み) is in CP932; free text may not
be (an id with é or an emoji, or with U+FFFD from a problem file that was not UTF-8): a
character the encoding lacks is an :class:`OutputError` naming it, raised before any
search when it is in a problem's id or source (:meth:`OutputStream.check_encodable`).
"""

from __future__ import annotations

import argparse
import codecs
import io
import os
import sys
from collections.abc import Callable
from typing import Any

__all__ = [
    "EXIT_IO",
    "NAMED_ENCODINGS",
    "NAMED_FORMATS",
    "OutputError",
    "OutputStream",
    "encoding_name",
    "open_output",
    "output_encoding",
    "output_format",
]

EXIT_IO = 2
# What a file name implies, by the KIF convention: Shift_JIS (as CP932) or UTF-8.
NAMED_ENCODINGS = {".kif": "cp932", ".ki2": "cp932", ".kifu": "utf-8", ".ki2u": "utf-8"}
# What a file name implies of the format, for the program that will open the file: a
# KIF reader cannot read a text table. KI2 is a format of its own that nothing here writes.
NAMED_FORMATS = {
    ".kif": "kif",
    ".kifu": "kif",
    ".ki2": "ki2",
    ".ki2u": "ki2",
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".html": "html",
    ".htm": "html",
}
# Encodings written with CRLF: the Shift_JIS family, Windows tools' files (codecs' names).
_CRLF_ENCODINGS = frozenset({"cp932", "shift_jis", "shift_jis_2004", "shift_jisx0213"})


class OutputError(Exception):
    """The results could not be written; ``str()`` is the message for the user.

    ``error`` is the OSError, or the UnicodeEncodeError of a character the output's
    encoding lacks (``where`` then says whose text it is, e.g. a problem's id).
    """

    def __init__(self, name: str, error: OSError | UnicodeEncodeError, where: str = ""):
        self.name = name
        self.error = error
        if isinstance(error, UnicodeEncodeError):
            char = error.object[error.start]
            reason = f"{char!r} (U+{ord(char):04X}){where} has no {error.encoding} form"
            if codecs.lookup(error.encoding).name != "utf-8":
                reason += "; write UTF-8 with --encoding utf-8"
                if name.lower().endswith((".kif", ".ki2")):
                    reason += f" or a .{name.rsplit('.', 1)[1].lower()}u name"
        else:
            reason = error.strerror or str(error) or type(error).__name__
        super().__init__(f"cannot write {name}: {reason}")


class OutputStream:
    """A UTF-8 text stream for results (a file or stdout) whose failures are OutputError.

    ``write``, ``flush`` and ``close`` raise :class:`OutputError` naming the output for
    any OSError but a broken pipe. After the first failure every later call is a no-op,
    so that the cleanup (a last flush, the close) cannot fail a second time and the
    user reads one message.
    """

    def __init__(self, stream: Any, name: str, *, owned: bool, encoding: str = "utf-8"):
        self._stream = stream
        self.name = name
        self.encoding = encoding
        self._owned = owned  # a file we opened (closed at the end) or stdout (detached)
        self.failed = False
        self._lost_bytes = False  # an OSError: bytes may be stuck in stdout's buffer

    def _guard(self, action: Callable[..., Any], *args: Any) -> Any:
        if self.failed:
            return None
        try:
            return action(*args)
        except BrokenPipeError:
            self.failed = self._lost_bytes = True
            raise
        except OSError as e:
            self.failed = self._lost_bytes = True
            raise OutputError(self.name, e) from None
        except UnicodeEncodeError as e:
            # Nothing of this text was written (it is encoded before it is buffered):
            # what came before is whole, and the file ends after the last whole record.
            self.failed = True
            raise OutputError(self.name, e) from None

    def check_encodable(self, text: str, where: str) -> None:
        """OutputError now if ``text`` (``where`` says whose: "in problem id 'x'") has a
        character the output's encoding lacks, rather than when its record is written."""
        try:
            text.encode(self.encoding)
        except UnicodeEncodeError as e:
            raise OutputError(self.name, e, f" {where}") from None

    def write(self, text: str) -> int:
        """Write ``text``; OutputError if it cannot be written."""
        return self._guard(self._stream.write, text) or 0

    def flush(self) -> None:
        """Flush what is buffered; OutputError if it cannot be written."""
        self._guard(self._stream.flush)

    def isatty(self) -> bool:
        """Whether the output is a terminal (for a progress bar that shares it)."""
        try:
            return bool(self._stream.isatty())
        except (AttributeError, ValueError, OSError):
            return False

    def close(self) -> None:
        """Flush and close a file, or flush and let go of stdout (left open for the caller).

        A failure of this last flush, the late form of a full disk, is OutputError as
        well, after the file is closed all the same.
        """
        try:
            if not self.failed:
                self.flush()
        finally:
            if self._owned:
                try:
                    self._stream.close()
                except OSError as e:
                    # A close that flushes what flush() did not reach: still a failure.
                    if not self.failed:
                        self.failed = True
                        raise OutputError(self.name, e) from None
            elif self._stream is not sys.stdout:
                if self._lost_bytes:
                    _silence_stdout()
                try:
                    self._stream.detach()  # sys.stdout's buffer stays open for later writers
                except (ValueError, OSError):
                    pass


def encoding_name(text: str) -> str:
    """The ``--encoding`` option's type: the codec's name (``sjis`` -> ``shift_jis``).

    An unknown name, or a codec that is no text encoding (``base64``), is an
    ArgumentTypeError: argparse prints it with the usage and exits with status 2.
    """
    try:
        name = codecs.lookup(text).name
        "".encode(name)  # LookupError for the bytes-to-bytes and str-to-str codecs
    except LookupError:
        raise argparse.ArgumentTypeError(
            f"unknown text encoding {text!r} (for example utf-8, cp932)"
        ) from None
    return name


def output_encoding(path: str | None, encoding: str | None = None) -> str:
    """The encoding results are written in: ``encoding`` when given, else what the file
    name implies (:data:`NAMED_ENCODINGS`), else UTF-8 (other names and stdout)."""
    if encoding:
        return codecs.lookup(encoding).name
    if path and path != "-":
        return NAMED_ENCODINGS.get(os.path.splitext(path)[1].lower(), "utf-8")
    return "utf-8"


def output_format(path: str | None, given: str | None, formats: tuple[str, ...]) -> str:
    """The format the results are written in: ``given`` (``--format``, None when not
    given), else what the file name implies (:data:`NAMED_FORMATS`), else ``text``.

    ValueError with the message for the user when ``given`` contradicts the name (a
    ``--format text`` written to ``x.kif``) or the name implies a format not among
    ``formats`` (the command's own).
    """
    extension = os.path.splitext(path)[1].lower() if path and path != "-" else ""
    implied = NAMED_FORMATS.get(extension)
    if implied is not None and implied not in formats:
        raise ValueError(
            f"--output {path}: a {extension} file is {implied.upper()}, which this command "
            f"does not write (its formats: {', '.join(formats)}); name the file otherwise"
        )
    if given is None:
        return implied or "text"
    if implied is not None and given != implied:
        raise ValueError(
            f"--format {given} contradicts --output {path}: a {extension} file is read as "
            f"{implied}; leave out --format, or name the file otherwise"
        )
    return given


def open_output(
    path: str | None, encoding: str | None = None, append: bool = False
) -> OutputStream:
    """The results' stream: the file ``path`` (created or emptied; with ``append``, written
    on after what it holds), or stdout for None or ``-``.

    The encoding is :func:`output_encoding`'s (``encoding`` overrides the name's), with
    CRLF line ends for the Shift_JIS family and LF otherwise (see the module docstring).
    Stdout gets its own view in that encoding, UTF-8 by default whatever the locale:
    KIF and ids are Japanese. Raises OutputError when the file cannot be opened (a
    missing folder, no permission).
    """
    encoding = output_encoding(path, encoding)
    newline = "\r\n" if encoding in _CRLF_ENCODINGS else "\n"
    if path and path != "-":
        try:
            stream = open(path, "a" if append else "w", encoding=encoding, newline=newline)
        except OSError as e:
            raise OutputError(path, e) from None
        return OutputStream(stream, path, owned=True, encoding=encoding)
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        # A text stream without bytes under it (a test's StringIO): it takes any text.
        return OutputStream(sys.stdout, "stdout", owned=False)
    wrapper = io.TextIOWrapper(buffer, encoding=encoding, newline=newline, write_through=True)
    return OutputStream(wrapper, "stdout", owned=False, encoding=encoding)


def _silence_stdout() -> None:
    # Bytes that could not be written stay in sys.stdout's buffer, and Python flushes it
    # again at exit: that would print "Exception ignored" and exit 120 instead of our
    # status. Point the descriptor at /dev/null first so that last flush succeeds.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass

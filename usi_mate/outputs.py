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
"""

from __future__ import annotations

import io
import os
import sys

__all__ = ["EXIT_IO", "OutputError", "OutputStream", "open_output"]

EXIT_IO = 2


class OutputError(Exception):
    """The results could not be written; ``str()`` is the message for the user."""

    def __init__(self, name: str, error: OSError):
        self.name = name
        self.error = error
        reason = error.strerror or str(error) or type(error).__name__
        super().__init__(f"cannot write {name}: {reason}")


class OutputStream:
    """A UTF-8 text stream for results (a file or stdout) whose failures are OutputError.

    ``write``, ``flush`` and ``close`` raise :class:`OutputError` naming the output for
    any OSError but a broken pipe. After the first failure every later call is a no-op,
    so that the cleanup (a last flush, the close) cannot fail a second time and the
    user reads one message.
    """

    def __init__(self, stream, name: str, *, owned: bool):
        self._stream = stream
        self.name = name
        self._owned = owned  # a file we opened (closed at the end) or stdout (detached)
        self.failed = False

    def _guard(self, action, *args):
        if self.failed:
            return None
        try:
            return action(*args)
        except BrokenPipeError:
            self.failed = True
            raise
        except OSError as e:
            self.failed = True
            raise OutputError(self.name, e) from None

    def write(self, text: str) -> int:
        """Write ``text``; OutputError if it cannot be written."""
        return self._guard(self._stream.write, text) or 0

    def flush(self) -> None:
        """Flush what is buffered; OutputError if it cannot be written."""
        self._guard(self._stream.flush)

    def isatty(self) -> bool:
        """Whether the output is a terminal (for a progress bar that shares it)."""
        try:
            return self._stream.isatty()
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
                if self.failed:
                    _silence_stdout()
                try:
                    self._stream.detach()  # sys.stdout's buffer stays open for later writers
                except (ValueError, OSError):
                    pass


def open_output(path: str | None) -> OutputStream:
    """The results' stream: the file ``path`` (created or emptied), or stdout for None or ``-``.

    Raises OutputError when the file cannot be opened (a missing folder, no permission).
    Stdout gets its own UTF-8 view, whatever the locale: KIF and ids are Japanese.
    """
    if path and path != "-":
        try:
            return OutputStream(open(path, "w", encoding="utf-8", newline="\n"), path, owned=True)
        except OSError as e:
            raise OutputError(path, e) from None
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        return OutputStream(sys.stdout, "stdout", owned=False)
    wrapper = io.TextIOWrapper(buffer, encoding="utf-8", newline="\n", write_through=True)
    return OutputStream(wrapper, "stdout", owned=False)


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

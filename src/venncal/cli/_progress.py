"""Progress and informational messages on stderr, and the options that control them.

Progress is drawn only when stderr is a terminal, or when ``--progress`` asks
for it; ``--quiet`` silences it and every informational message (warnings and
errors are always shown).  Messages go to stderr so that stdout carries only data
(``-o -``) or results.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

__all__ = ["Progress", "Reporter", "add_output_options"]

#: Minimum seconds between two redraws of a progress line on a terminal.
REFRESH = 0.1
#: Seconds between two progress lines when stderr is not a terminal (a log).
LOG_INTERVAL = 5.0


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--quiet`` and ``--progress`` to a subcommand parser."""
    group = parser.add_argument_group("messages")
    group.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print no progress and no informational messages (warnings and errors only)",
    )
    group.add_argument(
        "--progress",
        action="store_true",
        help="show progress on stderr even when it is not a terminal (default: only on a terminal)",
    )


class Progress:
    """A one-line progress indicator: ``label: 12,345 rows (40%)``.

    On a terminal (``live``) the line is redrawn in place with a carriage
    return, at most every ``REFRESH`` seconds; elsewhere (a log file) a new
    line is written every ``LOG_INTERVAL`` seconds.  :meth:`close` writes the
    final state.  Does nothing when ``stream`` is None.
    """

    def __init__(self, label: str, stream: TextIO | None, *, unit: str = "rows", live: bool = True):
        self.label = label
        self.stream = stream
        self.unit = unit
        self.live = live
        self.count = 0
        self.fraction: float | None = None
        self._width = 0
        self._start = time.perf_counter()
        # Time of the last line drawn: on a terminal the first update draws at once.
        self._last = 0.0 if live else self._start

    def update(self, count: int, fraction: float | None = None, *, force: bool = False) -> None:
        """Record ``count`` units done (and the fraction of the work, if known)."""
        self.count = count
        self.fraction = fraction
        if self.stream is None:
            return
        now = time.perf_counter()
        if force or now - self._last >= (REFRESH if self.live else LOG_INTERVAL):
            self._last = now
            self._draw(end="" if self.live else "\n")

    def _draw(self, end: str = "") -> None:
        text = f"{self.label}: {self.count:,} {self.unit}"
        if self.fraction is not None:
            text += f" ({min(max(self.fraction, 0.0), 1.0):.0%})"
        if end:
            text += f", {time.perf_counter() - self._start:.1f} s"
        if self.live:
            pad = " " * max(self._width - len(text), 0)
            self._width = len(text)
            text = f"\r{text}{pad}"
        self.stream.write(text + end)
        self.stream.flush()

    def close(self) -> None:
        """Draw the final state and end the line."""
        if self.stream is not None:
            if self.fraction is not None:
                self.fraction = 1.0
            self._draw(end="\n")
            self.stream = None

    def __enter__(self) -> Progress:  # noqa: PYI034 - no typing.Self on Python 3.10
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        elif self.stream is not None and self.live:  # end the partial line
            self.stream.write("\n")
            self.stream.flush()
            self.stream = None


class Reporter:
    """Where a subcommand sends progress and informational messages."""

    def __init__(self, *, quiet: bool = False, progress: bool = False, stream=None):
        self.stream = sys.stderr if stream is None else stream
        self.quiet = quiet
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty()) if isatty is not None else False
        self.show_progress = not quiet and (progress or self.tty)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Reporter:
        """Build from the ``--quiet`` and ``--progress`` options."""
        return cls(quiet=bool(args.quiet), progress=bool(args.progress))

    def info(self, message: str) -> None:
        """Print an informational message (not with ``--quiet``)."""
        if not self.quiet:
            print(message, file=self.stream)

    def warn(self, message: str) -> None:
        """Print ``warning: message``, even with ``--quiet`` (a result may be wrong)."""
        print(f"warning: {message}", file=self.stream)

    def progress(self, label: str, *, unit: str = "rows") -> Progress:
        """Return a :class:`Progress`, drawing only if progress is shown."""
        stream = self.stream if self.show_progress else None
        return Progress(label, stream, unit=unit, live=self.tty)

    def stage(self, label: str) -> Stage:
        """Return a context manager printing ``label ...`` then ``done (t s)``."""
        return Stage(label, self.stream if self.show_progress else None)


class Stage:
    """``fitting ivap ... done (0.2 s)`` around a step whose progress is unknown."""

    def __init__(self, label: str, stream: TextIO | None):
        self.label = label
        self.stream = stream
        self._start = 0.0

    def __enter__(self) -> Stage:  # noqa: PYI034 - no typing.Self on Python 3.10
        self._start = time.perf_counter()
        if self.stream is not None:
            self.stream.write(f"{self.label} ...")
            self.stream.flush()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.stream is not None:
            if exc_type is None:
                self.stream.write(f" done ({time.perf_counter() - self._start:.1f} s)\n")
            else:
                self.stream.write("\n")
            self.stream.flush()

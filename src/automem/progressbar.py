"""A progress display for long commands (stdlib only): a bar redrawn in place on a terminal, plain lines otherwise.

``ProgressBar(stream, label).update(progress)`` takes a ``bank.passes.Progress`` (transcripts, bytes, turns).
On a terminal it redraws one line at most ten times a second, sized to the terminal's width; into a pipe or a
file it writes a plain line every few seconds and one at the end, so a log shows the same figures.
"""

from __future__ import annotations

import os
import shutil
import time
from typing import Callable, TextIO

TTY_INTERVAL = 0.1
PLAIN_INTERVAL = 2.0
BAR_WIDTH = 20


class ProgressBar:
    def __init__(
        self, stream: TextIO, label: str, *, tty: bool | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.stream = stream
        self.label = label
        if tty is None:
            try:
                tty = stream.isatty()
            except (AttributeError, ValueError):
                tty = False
        self.tty = tty
        self.clock = clock
        self.interval = TTY_INTERVAL if tty else PLAIN_INTERVAL
        self.last: float | None = None
        self.drawn = False
        self.final = ""

    def update(self, progress) -> None:
        if not progress.files_total:
            return  # nothing to read: the command's own last line says so
        now = self.clock()
        if not progress.finished and self.last is not None and now - self.last < self.interval:
            return
        self.last = now
        if self.tty:
            self._write("\r" + self.bar_line(progress) + "\x1b[K")
            self.drawn = True
        else:
            line = self.plain_line(progress)
            if line != self.final:  # the closing call repeats the last figures only when they moved
                self._write(line + "\n")
                self.final = line

    def close(self) -> None:
        """End the bar's line (call once, before printing anything else)."""
        if self.tty and self.drawn:
            self._write("\n")
            self.drawn = False

    def plain_line(self, p) -> str:
        return (
            f"{self.label}: {p.files_done}/{p.files_total} transcript(s), {_mb(p.bytes_done)}/{_mb(p.bytes_total)} MB,"
            f" {p.turns} turn(s) banked"
        )

    def bar_line(self, p) -> str:
        share = p.bytes_done / p.bytes_total if p.bytes_total else (1.0 if p.finished else 0.0)
        share = min(1.0, max(0.0, share))
        figures = (
            f" {share * 100:3.0f}%  {p.files_done}/{p.files_total} transcripts  "
            f"{_mb(p.bytes_done)}/{_mb(p.bytes_total)} MB  {p.turns} turns"
        )
        columns = self._columns()
        filled = int(round(share * BAR_WIDTH))
        line = f"{self.label} [{'#' * filled}{'-' * (BAR_WIDTH - filled)}]{figures}"
        if len(line) >= columns:  # a narrow terminal: figures only, cut to fit (a wrapped line never redraws)
            line = (self.label + figures)[: max(1, columns - 1)]
        return line

    def _columns(self) -> int:
        """The width of the terminal the bar is drawn on (stderr's, not stdout's: that may be a pipe)."""
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            columns = 0
        return columns or shutil.get_terminal_size((80, 24)).columns

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass  # a closed terminal or pipe must not stop the work the bar reports on


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f}"

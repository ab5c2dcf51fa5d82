"""The error log shared by hooks, detached workers and the CLI (see capture/errlog.py)."""

from __future__ import annotations

from pathlib import Path

from automem.capture.errlog import log_error
from automem.capture.paths import log_path

__all__ = ["log_error", "tail"]


def tail(lines: int = 10, home: str | None = None) -> list[str]:
    """The last lines of the log (for status and doctor)."""
    path = Path(log_path(home))
    try:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - 64 * 1024))
            data = handle.read().decode("utf-8", "replace")
    except OSError:
        return []
    return [line for line in data.splitlines() if line.strip()][-lines:]

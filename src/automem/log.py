"""The error log shared by hooks, detached workers and the CLI (see capture/errlog.py)."""

from __future__ import annotations

from pathlib import Path

from automem.capture.errlog import log_error
from automem.capture.paths import log_path

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing into the hooks
if TYPE_CHECKING:
    from automem.home import Home

__all__ = ["log_error", "tail"]


def tail(lines: int = 10, home: Home | None = None) -> list[str]:
    """The last lines of the log (for status and doctor)."""
    path = home.log_file if home is not None else Path(log_path())
    try:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - 64 * 1024))
            data = handle.read().decode("utf-8", "replace")
    except OSError:
        return []
    return [line for line in data.splitlines() if line.strip()][-lines:]

"""Atomic file writes: temp file in the same folder, fsync, rename.

A reader (or a crash) sees the old file or the new one, never half of one.
Used by config, install bookkeeping and store/ (which adds redaction on top).

A temp file is named ``.<name>.<pid>.<random>.tmp``: a process killed between
the write and the rename leaves it behind, and ``sweep_temp_files`` removes
those whose writer is gone (a live writer's are left alone, whatever lock
the sweeper holds or not).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: Path | str, data: bytes, *, mode: int = 0o600, sync: bool = True) -> None:
    """``sync=False``: no fsync here; the caller syncs what it wrote in one go (``sync_written``) before it records
    the batch as done. The rename keeps the write atomic either way."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


TEMP_SUFFIX = ".tmp"
ORPHAN_SECONDS = 3600.0  # no write takes this long: a temp file this old is an orphan whoever wrote it


def sweep_temp_files(folder: Path | str, now: float | None = None) -> int:
    """Remove the temp files of writers that died in ``folder``; returns how many went."""
    import time

    now = time.time() if now is None else now
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        name = entry.name
        if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            parts = name[1 : -len(TEMP_SUFFIX)].rsplit(".", 2)
            pid = int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None
            age = now - entry.stat(follow_symlinks=False).st_mtime
            if age < ORPHAN_SECONDS and (pid is None and age < 60 or pid is not None and process_alive(pid)):
                continue  # being written right now (a name without a pid: an older automem's, given a minute)
            os.unlink(entry.path)
            removed += 1
        except OSError:
            continue
    return removed


def process_alive(pid: int) -> bool:
    """Is ``pid`` a running process (a zombie, killed and not yet reaped, is not)?"""
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, owned by someone else
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return True  # no /proc (macOS): kill(0) said it exists


def atomic_write_text(path: Path | str, text: str, *, mode: int = 0o600, sync: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode, sync=sync)


def sync_written(paths) -> None:
    """fsync files written with ``sync=False``, then their folders, in one go at the end of a batch: flushing
    them together costs less than one flush apiece as each is written, and the batch's record (a bank pass's
    cursors) is kept after it. Best effort: a file gone or a folder that cannot be opened is skipped."""
    folders = set()
    for path in paths:
        folders.add(os.path.dirname(str(path)))
        _fsync_path(str(path))
    for folder in sorted(folders):
        _fsync_path(folder)


def _fsync_path(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

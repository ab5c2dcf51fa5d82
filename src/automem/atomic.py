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
    """``sync=False``: no fsync of the file; the caller syncs what it wrote in one go (``sync_folder``), for
    files it can make again (a bank entry, from its transcript). The rename keeps the write atomic either way."""
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


def sync_folder(folder: Path | str) -> None:
    """fsync a folder's entries, once, after ``sync=False`` writes into it: the names are then on disk, and the
    files' bytes follow with the kernel's writeback (seconds). Only for files that can be made again: a power cut
    in that gap can leave one empty. Best effort: a folder that cannot be opened is skipped."""
    try:
        fd = os.open(str(folder), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

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
from pathlib import Path


def atomic_write_bytes(path: Path | str, data: bytes, *, mode: int = 0o600, sync: bool = True) -> None:
    """``sync=False``: no fsync here; the caller syncs what it wrote in one go (``sync_written``) before it records
    the batch as done. The rename keeps the write atomic either way."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = new_temp_file(str(path.parent), f".{path.name}.{os.getpid()}.", TEMP_SUFFIX)
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
_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


def new_temp_file(folder: str, prefix: str, suffix: str) -> tuple[int, str]:
    """A new file of mode 0600 in folder, named prefix + random + suffix, and its fd: ``tempfile.mkstemp``'s file
    (created exclusively, a symlink never followed, the fd not inherited), without importing tempfile, which brings
    shutil, random and their compressors (~3 CPU-ms of every process that writes)."""
    for _ in range(100):
        name = os.path.join(folder, f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(name, _TEMP_FLAGS, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temp file name in {folder}")


def temp_folder() -> str:
    """The folder ``tempfile.gettempdir`` picks, when an environment variable names it (TMPDIR, TEMP, TMP) or the
    system is POSIX (/tmp); tempfile itself decides otherwise."""
    for var in ("TMPDIR", "TEMP", "TMP"):
        folder = os.environ.get(var)
        if folder and os.path.isdir(folder):
            return os.path.abspath(folder)
    if os.name == "posix" and os.path.isdir("/tmp"):
        return "/tmp"
    import tempfile

    return tempfile.gettempdir()


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

"""automem's own files, and every move and delete in the tree.

``write_markdown`` (store/__init__.py) writes what a person reads, redacted. This module writes the files automem
keeps for itself (settings, consent, progress and maps, a job's one-turn transcript, a text the full pass already
cleaned), moves and deletes files, and takes the locks writers share. Like ``write_markdown`` it refuses a path that
is not inside the home (StoreError).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing into the hooks
if TYPE_CHECKING:
    from automem.home import Home


def write_file(path: Path | str, text: str, *, home: Home | None = None, durable: bool = True) -> Path:
    """Write ``text`` atomically (temp file + rename, mode 0600). Not redacted: callers write settings, ids,
    offsets and counts, or text the full pass has already cleaned.

    ``durable=False``: no fsync (~0.5 CPU-ms each), for state automem can make again (error counts across sessions, a
    note shown once): a crash may lose the new text, and the rename still never leaves half of it."""
    from automem.atomic import atomic_write_text
    from automem.store import inside_home

    target = inside_home(path, home)
    atomic_write_text(target, text, sync=durable)
    return target


def remove(path: Path | str, *, home: Home | None = None, missing_ok: bool = True) -> bool:
    """Delete one file; True when it was there (FileNotFoundError instead when ``missing_ok`` is false)."""
    from automem.store import inside_home

    inside_home(path, home)
    try:
        os.unlink(path)
    except FileNotFoundError:
        if not missing_ok:
            raise
        return False
    return True


def move(path: Path | str, target: Path | str, *, home: Home | None = None) -> Path:
    """Rename ``path`` to ``target`` (both inside the home; a file already at ``target`` is replaced)."""
    from automem.store import inside_home

    inside_home(path, home)
    inside_home(target, home)
    os.replace(path, target)
    return Path(target)


def trash(path: Path | str, trash_dir: Path, *, home: Home | None = None) -> Path:
    """Move a file into ``trash_dir`` (a name already there gets a time suffix); returns where it went."""
    path = Path(path)
    trash_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = trash_dir / path.name
    if target.exists():
        target = trash_dir / f"{path.stem}.{int(time.time())}{path.suffix}"
    return move(path, target, home=home)


def touch(path: Path | str, *, home: Home | None = None) -> None:
    """Make sure an (empty) mark file exists."""
    from automem.store import inside_home

    inside_home(path, home)
    Path(path).touch()


class FileLock:
    """An flock on a lock file: held until released, let go by the kernel if the process dies, however it dies."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.fd: int | None = None

    def acquire(self, wait: bool = True) -> bool:
        """Take the lock (False, without waiting, when another process holds it and ``wait`` is false)."""
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            os.close(fd)
            if wait:
                raise
            return False  # held by another process
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        return True

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> FileLock:
        self.acquire(wait=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

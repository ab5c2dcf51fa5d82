"""store: the one choke point that writes, moves and deletes files in the tree (see DESIGN.md).

Every file under AUTOMEM_HOME that a person reads (memories, bank entries,
journals, summaries, MAIN.md, session state) is written by ``write_markdown``,
which runs the full redaction pass on the text itself, then writes atomically;
the one caller that redacts first (a bank entry: every field in one pass, before
its caps and JSON escaping) says so with ``redacted_parts=True``. automem's own
files, moves, deletes and the locks writers share are in ``store.files``
(re-exported here). Paths outside
AUTOMEM_HOME are refused. ``clean_for_index`` is what index/ must call on every
text before it goes into index.db, and ``clean_for_model`` on anything sent to a model.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from automem.atomic import atomic_write_text, sync_written
from automem.store.files import FileLock, move, remove, touch, trash, write_file

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing into the hooks
if TYPE_CHECKING:
    from automem.home import Home

__all__ = [
    "StoreError",
    "write_markdown",
    "sync_written",
    "clean_for_index",
    "clean_for_model",
    "redacted",
    "inside_home",
    "sweep_temp_files",
    "memory_lock",
    "write_file",
    "remove",
    "move",
    "trash",
    "touch",
    "FileLock",
]


class StoreError(ValueError):
    """A write the store refuses (a path outside AUTOMEM_HOME)."""


# the texts the full pass gave back lately: the pass is idempotent, so indexing a file the store has just written
# (its text one of these) needs no second pass
_LATELY_CLEAN: dict[int, str] = {}
_LATELY_KEPT = 8


def redacted(text: str) -> str:
    """The full pass (detect-secrets + the shared rule table); idempotent."""
    from automem.redact.full import redact

    out = redact(text)
    _remember_clean(out)
    return out


def _remember_clean(text: str) -> None:
    if len(_LATELY_CLEAN) >= _LATELY_KEPT:
        _LATELY_CLEAN.pop(next(iter(_LATELY_CLEAN)))
    _LATELY_CLEAN[hash(text)] = text


def inside_home(path: Path | str, home: Home | None = None) -> Path:
    """The resolved path, or StoreError when it is not strictly inside the home (AUTOMEM_HOME by default)."""
    if home is None:
        from automem.capture.paths import automem_home

        root = Path(os.path.realpath(automem_home()))
    else:
        root = Path(os.path.realpath(home.root))
    target = Path(os.path.realpath(path))
    if target == root or root not in target.parents:
        raise StoreError(f"refusing to write {path}: not inside AUTOMEM_HOME ({root})")
    return target


def write_markdown(
    path: Path | str, text: str, *, home: Home | None = None, redacted_parts: bool = False, sync: bool = True
) -> Path:
    """Redact text with the full pass, drop terminal escapes and control characters (a tool's output may carry
    an OSC clipboard write or a clear-screen), and write it atomically (mode 0600) under AUTOMEM_HOME.

    ``redacted_parts``: the caller has already put every text in it that came from outside through the full pass,
    control characters dropped first (``redact_many`` over a bank entry's fields): it is written as it is.
    ``sync=False``: no fsync of its own (a bank pass syncs what it wrote in one go, ``sync_written``)."""
    if not isinstance(text, str):
        raise TypeError(f"write_markdown needs text, not {type(text).__name__}")
    from automem.controls import strip_controls

    target = inside_home(path, home)
    if redacted_parts:
        text = strip_controls(text)
        _remember_clean(text)
    else:
        text = redacted(strip_controls(text))
    atomic_write_text(target, text, sync=sync)
    return target


def clean_for_index(text: str) -> str:
    """What index/ stores in index.db: the same full pass as the tree (done already for a text it just gave)."""
    if not text or _LATELY_CLEAN.get(hash(text)) == text:
        return text
    return redacted(text)


def clean_for_model(text: str) -> str:
    """What llm/ may send to a model: the same full pass (capping is the caller's job)."""
    return redacted(text) if text else text


@contextmanager
def memory_lock(home: Home) -> Iterator[None]:
    """One writer of memories at a time (the extractor, MCP memory_bank): read, dedupe and save under it,
    or two writers each miss the other's memory and both store it."""
    with FileLock(home.extract_state_dir / "store.lock"):
        yield


def sweep_temp_files(home: Home, projects: list[str] | None = None) -> int:
    """Temp files that writers killed between write and rename left in the tree (their writer is gone; a live
    writer's are kept): the home's own folders and every project's, or only ``projects`` (slugs)."""
    from automem.atomic import sweep_temp_files as sweep
    from automem.home import Project

    removed = 0
    if projects is None:
        removed += sweep(home.root)
        if home.state_dir.is_dir():
            for walked, _dirs, _files in os.walk(home.state_dir):
                removed += sweep(walked)
        projects = [project.slug for project in home.projects()]
    for slug in projects:
        project = Project(home=home, slug=slug, root="")
        for folder in (
            project.dir,
            project.memories_dir,
            project.bank_dir,
            project.state_dir,
            project.summaries_dir,
            project.journal_dir,
            project.trash_dir,
        ):
            removed += sweep(folder)
    return removed

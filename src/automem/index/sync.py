"""Keeping index.db current with the tree: ``sync`` (the hooks' quick look, the full and the deep sync),
``reindex``, and the detached sync a hook starts (``python -m automem.index.sync sync``).

automem's own writes are atomic renames, which change the folder's modification time, so ``sync`` re-lists a
bank folder only when its mtime moved since the last scan (``fts_dirs``); bank entries are written once and
compared by name. Memories and journal days can also be edited in place (an editor, ``open('r+')``), which
leaves the folder's mtime alone, so those folders stat every file on every full sync: the sums of their mtimes
and sizes are kept in ``meta`` (``fts_files:<folder>``) and only a folder whose sums moved is compared file by
file. A deep sync (``reindex``) reads everything.

Imports stay light (stdlib, no YAML): the SessionStart and UserPromptSubmit hooks use this module.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time

from automem.capture import paths as _paths
from automem.index.db import home_str, open_index
from automem.index.docs import KINDS, MAIN_NAME, read_text
from automem.index.upsert import GHOSTS_KEY, atomic, compact, remove_rel, upsert

SYNC_LOCK = "index.sync.lock"
STATS_KEY = "fts_files:"  # meta key prefix: the file-stat sums of a memories/ or journal/ folder
RECHECK_SECONDS = 2.0  # one connection re-stats a quiet memories/ or journal/ folder at most this often


class SyncReport:
    """What a sync did; ``deferred`` holds the folders too big to scan within a hook's budget."""

    __slots__ = ("indexed", "removed", "dirs_scanned", "deferred")

    def __init__(self) -> None:
        self.indexed = self.removed = self.dirs_scanned = 0
        self.deferred: list[str] = []

    def as_dict(self) -> dict:
        return {
            "indexed": self.indexed,
            "removed": self.removed,
            "dirs_scanned": self.dirs_scanned,
            "deferred": self.deferred,
        }


def sync(
    conn: sqlite3.Connection,
    home_root=None,
    slugs: list[str] | None = None,
    *,
    deep: bool = False,
    max_new: int | None = None,
    max_listing: int | None = None,
    kinds: tuple[str, ...] | None = None,
    quick: bool = False,
) -> SyncReport:
    """Bring the index up to date with the tree (folders whose mtime moved; every folder when deep).

    A hook passes limits: ``max_new`` files to read and ``max_listing`` files a
    changed folder may hold to be re-listed; a folder over either is left for
    a detached sync and listed in ``deferred``. ``kinds`` limits the folders
    (e.g. only ``memory`` for per-prompt recall). ``quick`` (the hooks) looks
    only at each folder's mtime, a cost that does not grow with the tree, and
    reads no file in: a file someone else added (its folder's mtime moved) is
    listed in ``deferred`` for the detached sync, which gives it the full
    redaction pass; a file edited in place (no mtime moved) is found by the
    next full sync (the Stop worker runs one after every turn).
    """
    root = home_str(home_root)
    projects_dir = _paths.projects_dir(root)
    if slugs is None:
        try:
            slugs = sorted(e.name for e in os.scandir(projects_dir) if e.is_dir())
        except OSError:
            slugs = []
        _drop_missing_projects(conn, root, set(slugs))
    report = SyncReport()
    dirs = {row[0]: (row[1], row[2]) for row in conn.execute("SELECT path, mtime_ns, files FROM fts_dirs")}
    for slug in slugs:
        if not slug or "/" in slug or slug.startswith("."):
            continue
        if kinds is None or "main" in kinds:
            _sync_main(conn, root, slug, report, quick)
        for sub, kind in KINDS.items():
            if kinds is not None and kind not in kinds:
                continue
            rel_dir = f"projects/{slug}/{sub}"
            recorded = dirs.get(rel_dir)
            if max_listing is not None and recorded is not None and recorded[1] > max_listing:
                try:
                    changed = os.stat(os.path.join(root, rel_dir)).st_mtime_ns != recorded[0]
                except OSError:
                    changed = True
                if changed:
                    report.deferred.append(rel_dir)
                continue
            _sync_dir(conn, root, rel_dir, kind, slug, recorded, deep, max_new, report, quick)
    if not quick:
        compact(conn, root)  # only when ghosts have piled up (files removed or changed behind automem's back)
    return report


def _drop_missing_projects(conn: sqlite3.Connection, root: str, present: set[str]) -> None:
    for (slug,) in conn.execute("SELECT DISTINCT project FROM fts_docs").fetchall():
        if slug not in present:
            atomic(conn, _remove_prefix, conn, root, f"projects/{slug}/")


def _remove_prefix(conn: sqlite3.Connection, root: str, prefix: str) -> int:
    rows = conn.execute(
        "SELECT path FROM fts_docs WHERE path >= ? AND path < ?", (prefix, prefix + "\uffff")
    ).fetchall()
    for (rel,) in rows:
        remove_rel(conn, root, rel)
    conn.execute("DELETE FROM fts_dirs WHERE path >= ? AND path < ?", (prefix, prefix + "\uffff"))
    conn.execute("DELETE FROM meta WHERE key >= ? AND key < ?", (STATS_KEY + prefix, STATS_KEY + prefix + "\uffff"))
    return len(rows)


def _sync_main(conn, root: str, slug: str, report: SyncReport, quick: bool = False) -> None:
    rel = f"projects/{slug}/{MAIN_NAME}"
    full = os.path.join(root, rel)
    row = conn.execute("SELECT mtime_ns, size FROM fts_docs WHERE path = ?", (rel,)).fetchone()
    try:
        st = os.stat(full)
    except OSError:
        if row is not None:
            atomic(conn, remove_rel, conn, root, rel)
            report.removed += 1
        return
    if row is None or row[0] != st.st_mtime_ns or row[1] != st.st_size:
        if quick:
            report.deferred.append(rel)  # indexing means the full redaction pass: not in a hook
            return
        try:
            atomic(conn, upsert, conn, root, rel, slug, "main", read_text(full), st)
            report.indexed += 1
        except OSError:
            pass


def _sync_dir(
    conn, root, rel_dir, kind, slug, recorded, deep, max_new, report: SyncReport, quick: bool = False
) -> None:
    full_dir = os.path.join(root, rel_dir)
    try:
        dir_mtime = os.stat(full_dir).st_mtime_ns
    except OSError:
        if (
            recorded is not None
            or conn.execute(
                "SELECT 1 FROM fts_docs WHERE path >= ? AND path < ? LIMIT 1", (rel_dir + "/", rel_dir + "/\uffff")
            ).fetchone()
        ):
            report.removed += atomic(conn, _remove_prefix, conn, root, rel_dir + "/")
            conn.execute("DELETE FROM meta WHERE key = ?", (STATS_KEY + rel_dir,))
        return
    same_listing = not deep and recorded is not None and recorded[0] == dir_mtime
    if same_listing and (kind == "bank" or quick or _checked_lately(conn, rel_dir)):
        return
    try:
        names = [n for n in os.listdir(full_dir) if n.endswith(".md") and not n.startswith(".")]
    except OSError:
        return
    stats: dict[str, tuple[int, int]] | None = None
    sums = ""
    if same_listing:  # memories/ or journal/: was a file rewritten in place?
        stored = _stored_sums(conn, rel_dir)
        if stored is not None and stored == _quick_sums(full_dir, names):
            _mark_checked(conn, rel_dir)
            return
    if (kind != "bank" and not quick) or deep:
        stats = _stat_files(full_dir, names)
        sums = _stat_sums(stats)
    known = {
        row[0]: (row[1], row[2])
        for row in conn.execute(
            "SELECT path, mtime_ns, size FROM fts_docs WHERE path >= ? AND path < ?",
            (rel_dir + "/", rel_dir + "/\uffff"),
        )
    }
    prefix = rel_dir + "/"
    wanted = {prefix + n for n in names}
    todo = [rel for rel in wanted if rel not in known]
    if stats is not None:
        todo += [prefix + name for name, st in stats.items() if prefix + name in known and known[prefix + name] != st]
    if todo and (quick or (max_new is not None and len(todo) > max_new)):
        # a hook does not read files in: what enters index.db gets the full redaction pass (~0.1 s to load), the
        # detached sync it starts does that; a file automem wrote was indexed by its writer and is not here
        report.deferred.append(rel_dir)
        return
    removed = known.keys() - wanted
    if same_listing and not todo and not removed:
        _store_sums(conn, rel_dir, sums)  # the index already matched (a writer indexed the change itself)
        _mark_checked(conn, rel_dir)
        return
    report.dirs_scanned += 1
    conn.execute("BEGIN")
    try:
        for rel in removed:
            remove_rel(conn, root, rel)
            report.removed += 1
        for rel in todo:
            full = os.path.join(root, rel)
            try:
                st = os.stat(full)
                text = read_text(full)
            except OSError:
                continue
            upsert(conn, root, rel, slug, kind, text, st)
            report.indexed += 1
        conn.execute(
            "INSERT OR REPLACE INTO fts_dirs (path, mtime_ns, files) VALUES (?, ?, ?)", (rel_dir, dir_mtime, len(names))
        )
        if stats is not None and kind != "bank":
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (STATS_KEY + rel_dir, sums))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (a full disk): keep the real error
            conn.execute("ROLLBACK")
        raise
    if stats is not None:
        _mark_checked(conn, rel_dir)


def _stat_files(full_dir: str, names: list[str]) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) per file name; a file gone since the listing is left out."""
    out: dict[str, tuple[int, int]] = {}
    try:
        dir_fd = os.open(full_dir, os.O_RDONLY)
    except OSError:
        return out
    try:
        for name in names:
            try:
                st = os.stat(name, dir_fd=dir_fd)
            except OSError:
                continue
            out[name] = (st.st_mtime_ns, st.st_size)
    finally:
        os.close(dir_fd)
    return out


def _stat_sums(stats: dict[str, tuple[int, int]]) -> str:
    """A cheap fingerprint of a folder's files: an in-place edit moves the file's mtime, so the sum moves."""
    return f"{len(stats)}:{sum(v[0] for v in stats.values())}:{sum(v[1] for v in stats.values())}"


def _quick_sums(full_dir: str, names: list[str]) -> str | None:
    """``_stat_sums`` without keeping each file's stat (the hooks' path: ~2 us a file)."""
    try:
        dir_fd = os.open(full_dir, os.O_RDONLY)
    except OSError:
        return None
    count = mtimes = sizes = 0
    stat = os.stat
    try:
        for name in names:
            try:
                st = stat(name, dir_fd=dir_fd)
            except OSError:
                continue
            count += 1
            mtimes += st.st_mtime_ns
            sizes += st.st_size
    finally:
        os.close(dir_fd)
    return f"{count}:{mtimes}:{sizes}"


def _checked_lately(conn: sqlite3.Connection, rel_dir: str) -> bool:
    """True when this connection stat'ed the folder's files less than RECHECK_SECONDS ago.

    A hook opens one connection and syncs once, so it always stats; a process that
    queries many times on one connection (MCP server, benchmarks) stats at most
    every RECHECK_SECONDS. The note lives in a TEMP table: per connection, never on disk.
    """
    try:
        row = conn.execute("SELECT at FROM temp.fts_checked WHERE path = ?", (rel_dir,)).fetchone()
    except sqlite3.OperationalError:
        return False  # no such table yet
    return row is not None and 0 <= time.monotonic() - row[0] < RECHECK_SECONDS


def _mark_checked(conn: sqlite3.Connection, rel_dir: str) -> None:
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS fts_checked (path TEXT PRIMARY KEY, at REAL NOT NULL)")
    conn.execute("INSERT OR REPLACE INTO temp.fts_checked (path, at) VALUES (?, ?)", (rel_dir, time.monotonic()))


def _stored_sums(conn: sqlite3.Connection, rel_dir: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (STATS_KEY + rel_dir,)).fetchone()
    return row[0] if row else None


def _store_sums(conn: sqlite3.Connection, rel_dir: str, sums: str) -> None:
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (STATS_KEY + rel_dir, sums))


def reindex(home_root=None) -> SyncReport:
    """Drop every FTS row and read the whole tree again (``automem reindex``)."""
    conn = open_index(home_root)
    try:
        conn.execute("BEGIN")
        for table in ("fts_mem", "fts_text"):
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('delete-all')")
        for table in ("fts_docs", "fts_dirs"):
            conn.execute(f"DELETE FROM {table}")
        conn.execute("DELETE FROM meta WHERE key >= ? AND key < ?", (STATS_KEY, STATS_KEY + "\uffff"))
        conn.execute("DELETE FROM meta WHERE key = ?", (GHOSTS_KEY,))
        conn.execute("COMMIT")
        report = sync(conn, home_root, deep=True)
        conn.execute("INSERT INTO fts_mem(fts_mem) VALUES ('optimize')")
        conn.execute("INSERT INTO fts_text(fts_text) VALUES ('optimize')")
        _vacuum(conn)
        return report
    finally:
        conn.close()


def _vacuum(conn: sqlite3.Connection) -> None:
    """Give back the pages a rebuild freed, packed (rows indexed in listing order leave the path and date indexes
    part empty); then fold the write-ahead log into the file."""
    try:
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.OperationalError as exc:  # another connection mid-transaction: the pages are reused instead
        from automem.capture.errlog import log_error

        log_error("index", f"VACUUM after reindex skipped: {exc}")


def sync_detached(home_root=None) -> None:
    """Start a sync in the background (a hook that found too much to read in its budget)."""
    import subprocess
    import sys

    env = dict(os.environ)
    env["AUTOMEM_HOME"] = home_str(home_root)
    with open(os.devnull, "rb") as devnull_in, open(os.devnull, "wb") as devnull_out:
        subprocess.Popen(
            [sys.executable, "-m", "automem.index.sync", "sync"],
            stdin=devnull_in,
            stdout=devnull_out,
            stderr=devnull_out,
            start_new_session=True,
            close_fds=True,
            env=env,
        )


def _locked_sync(home_root=None) -> int:
    """The detached sync: single-flight through a lock file, a full (not deep) sync."""
    import fcntl

    root = home_str(home_root)
    fd = os.open(os.path.join(root, SYNC_LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0
        conn = open_index(root)
        try:
            sync(conn, root)
        finally:
            conn.close()
        return 0
    finally:
        os.close(fd)


def main(argv: list[str] | None = None) -> int:
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["sync"]:
        try:
            return _locked_sync()
        except Exception as exc:  # noqa: BLE001 - detached: log, never raise into nothing
            from automem.log import log_error

            log_error("index", f"detached sync failed: {type(exc).__name__}: {exc}")
            return 0
    if argv[:1] == ["reindex"]:
        print(json.dumps(reindex().as_dict()))
        return 0
    print("usage: python -m automem.index.sync sync|reindex", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())

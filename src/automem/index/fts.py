"""Full-text search over the memory tree: SQLite FTS5, rebuilt from the Markdown at will.

Four kinds of files are indexed, one row each in ``fts_docs`` (metadata) and
one in an FTS5 table (text): memories (``fts_mem``: summary, tags, body) and
bank entries, journal days and MAIN.md's human part (``fts_text``: title,
tags, prompt, action digest, result). Nothing here is a source of truth:
``reindex`` drops the rows and reads the tree again.

Keeping it current: automem's own writes are atomic renames, which change the
folder's modification time, so ``sync`` re-lists a bank folder only when its
mtime moved since the last scan (``fts_dirs``); bank entries are written once
and compared by name. Memories and journal days can also be edited in place
(an editor, ``open('r+')``), which leaves the folder's mtime alone, so those
folders stat every file on every sync: the sums of their mtimes and sizes are
kept in ``meta`` (``fts_files:<folder>``) and only a folder whose sums moved
is compared file by file. Writers may also call ``index_file``/``remove_file``
to be searchable at once, and a deep sync (``reindex``) reads everything.

Imports stay light (stdlib, no YAML): the SessionStart and UserPromptSubmit
hooks use this module. Frontmatter is read by automem.markdown (stdlib).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time

from automem.capture import paths as _paths
from automem.markdown import INDEX_START, human_part, split_frontmatter  # noqa: F401 - re-exported
from automem.markdown import sections as _sections_of

KINDS = {"memories": "memory", "bank": "bank", "journal": "journal"}
MAIN_NAME = "MAIN.md"
TEXT_CAP = 8000  # characters of one column kept in the index
SNIPPET_CAP = 400
MEM_WEIGHTS = "8.0, 4.0, 1.0"  # summary, tags, body
TEXT_WEIGHTS = "8.0, 4.0, 2.0, 1.0, 1.5"  # title, tags, prompt, actions, result
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


# ---------------------------------------------------------------- opening


def open_index(home_root: str | None = None) -> sqlite3.Connection:
    """index.db with the FTS tables (a corrupt file is moved aside and rebuilt by db.connect)."""
    from automem.home import Home
    from automem.index.db import connect

    return connect(Home(_root_path(home_root)))


def open_current(home_root=None) -> sqlite3.Connection | None:
    """index.db for a hook: None when it is missing, broken or of an older schema (``sync_detached`` mends it)."""
    from automem.capture.paths import index_path
    from automem.index.db import open_current as open_db

    path = index_path(_home_str(home_root))
    return open_db(path) if os.path.exists(path) else None


def _root_path(home_root):
    from pathlib import Path

    from automem.capture.paths import automem_home

    return Path(home_root or automem_home())


def _home_str(home_root) -> str:
    from automem.capture.paths import automem_home

    return str(home_root or automem_home())


# ---------------------------------------------------------------- one file


def index_file(path, home_root=None, conn: sqlite3.Connection | None = None) -> bool:
    """(Re)index one file of the tree; returns False when the path is not indexable (or is gone)."""
    own = conn is None
    conn = conn or open_index(home_root)
    try:
        root = _home_str(home_root)
        where = _classify(root, str(path))
        if where is None:
            return False
        rel, project, kind = where
        try:
            st = os.stat(os.path.join(root, rel))
            text = _read(os.path.join(root, rel))
        except OSError:
            _atomic(conn, _remove_rel, conn, root, rel)
            return False
        known = conn.execute("SELECT 1 FROM fts_docs WHERE path = ?", (rel,)).fetchone() is not None
        _atomic(conn, _upsert, conn, root, rel, project, kind, text, st)
        _note_folder(conn, root, rel, 0 if known else 1)
        return True
    finally:
        if own:
            conn.close()


def remove_file(path, home_root=None, conn: sqlite3.Connection | None = None) -> bool:
    """Take one file out of the index at once (forget, delete); True when a row was removed."""
    own = conn is None
    conn = conn or open_index(home_root)
    try:
        root = _home_str(home_root)
        where = _classify(root, str(path))
        rel = where[0] if where else os.path.relpath(str(path), root).replace(os.sep, "/")
        removed = _atomic(conn, _remove_rel, conn, root, rel)
        if removed:
            _note_folder(conn, root, rel, -1)
        return removed
    finally:
        if own:
            conn.close()


def _note_folder(conn: sqlite3.Connection, root: str, rel: str, added: int) -> None:
    """A writer that indexed its own change records the folder's new mtime, so the hooks' quick look (folder
    mtimes only) does not re-list a folder for a change the index already holds.

    Only memories/ and journal/: there the full sync compares every file's stat sum with the one it stored,
    so a file some other program added meanwhile (and this note hides from the quick look) is still found.
    bank/ is only written by bank passes, and the Stop worker's sweep re-lists it after each pass."""
    rel_dir, _, _name = rel.rpartition("/")
    if not rel_dir.endswith(("/memories", "/journal")):
        return
    try:
        mtime = os.stat(os.path.join(root, rel_dir)).st_mtime_ns
    except OSError:
        return
    conn.execute("UPDATE fts_dirs SET mtime_ns = ?, files = max(0, files + ?) WHERE path = ?", (mtime, added, rel_dir))


def _classify(root: str, path: str) -> tuple[str, str, str] | None:
    """(relative path, project slug, kind) for a file the index covers, else None."""
    full = os.path.abspath(path if os.path.isabs(path) else os.path.join(root, path))
    rel = os.path.relpath(full, os.path.abspath(root)).replace(os.sep, "/")
    parts = rel.split("/")
    if len(parts) < 3 or parts[0] != "projects" or not rel.endswith(".md"):
        return None
    if len(parts) == 3 and parts[2] == MAIN_NAME:
        return rel, parts[1], "main"
    if len(parts) == 4 and parts[2] in KINDS and not parts[3].startswith("."):
        return rel, parts[1], KINDS[parts[2]]
    return None


def _clean(text: str) -> str:
    """Everything that enters index.db gets the store's full pass (store.clean_for_index): a hand-edited file has
    had no redaction at all, and the full pass catches more than the hooks' tier. Idempotent on what the store
    wrote; detect-secrets and the engine load only when a file is indexed, not on a quick look that finds nothing."""
    from automem.store import clean_for_index

    return clean_for_index(text)


def _read(path: str) -> str:
    with open(path, "r", encoding="utf-8", errors="replace") as handle:
        return handle.read(2_000_000)


def _atomic(conn: sqlite3.Connection, func, *args):
    """``func(*args)`` in one transaction: a row of fts_docs and its row of an FTS table change together or not at
    all (a contentless table given a row to delete that it does not hold would miscount its totals). On its own it
    takes the write lock first (BEGIN IMMEDIATE: a read snapshot that later wants to write fails at once when another
    connection wrote meanwhile); inside a caller's transaction, a savepoint."""
    nested = conn.in_transaction
    conn.execute("SAVEPOINT fts_row" if nested else "BEGIN IMMEDIATE")
    try:
        result = func(*args)
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled the whole transaction back already (a full disk)
            try:
                conn.execute("ROLLBACK TO fts_row" if nested else "ROLLBACK")
                if nested:
                    conn.execute("RELEASE fts_row")
            except sqlite3.Error:
                pass
        raise
    conn.execute("RELEASE fts_row" if nested else "COMMIT")
    return result


def _columns(kind: str, doc: dict) -> tuple[str, ...]:
    """What one file puts in its FTS table, column by column (capped)."""
    tags = " ".join(doc["tags"])
    if kind == "memory":
        return doc["title"], tags, doc["body"][:TEXT_CAP]
    return doc["title"], tags, doc["prompt"][:TEXT_CAP], doc["actions"][:TEXT_CAP], doc["result"][:TEXT_CAP]


def _digest(columns) -> int:
    """A fingerprint of a row's indexed text (never 0): a file is read back only when it still gives this text."""
    import zlib

    data = "\x1f".join(columns).encode("utf-8", "replace")
    return ((zlib.crc32(data) << 31) ^ zlib.adler32(data)) or 1


def _remove_rel(conn: sqlite3.Connection, root: str, rel: str) -> bool:
    """Take one file's rows out: exactly from its text, else its fts_text row stays behind as a ghost (counted)."""
    row = conn.execute(
        "SELECT id, kind, path, title, tags, body, digest FROM fts_docs WHERE path = ?", (rel,)
    ).fetchone()
    if row is None:
        return False
    rowid, kind = row[0], row[1]
    if kind == "memory":
        if conn.execute("SELECT 1 FROM fts_mem_docsize WHERE id = ?", (rowid,)).fetchone():
            conn.execute("DELETE FROM fts_mem WHERE rowid = ?", (rowid,))  # external content: reads fts_docs
    elif conn.execute("SELECT 1 FROM fts_text_docsize WHERE id = ?", (rowid,)).fetchone():
        columns = _text_columns(root, row[1:])
        if columns is not None:
            conn.execute(
                "INSERT INTO fts_text (fts_text, rowid, title, tags, prompt, actions, result) "
                "VALUES ('delete', ?, ?, ?, ?, ?, ?)",
                (rowid, *columns),
            )
        else:
            _add_ghosts(conn, 1)
    conn.execute("DELETE FROM fts_docs WHERE id = ?", (rowid,))
    return True


def _text_columns(root: str, row) -> tuple[str, ...] | None:
    """The fts_text columns of one fts_docs row (kind, path, title, tags, body, digest), or None when its text can
    no longer be had: a bank entry's from its Markdown file, another's from ``body``; the digest must match."""
    kind, rel, title, tags, body, digest = row
    if kind == "bank" and not body:
        try:
            text = _read(os.path.join(root, rel))
        except OSError:
            return None
        _meta, md_body = split_frontmatter(text)
        sections = _sections_of(md_body)
        columns = (
            title,
            tags,
            sections.get("Prompt", "")[:TEXT_CAP],
            sections.get("Actions", "")[:TEXT_CAP],
            sections.get("Result", "")[:TEXT_CAP],
        )
    elif kind == "bank":
        try:
            prompt, actions, result = json.loads(body)
        except ValueError:
            return None
        columns = (title, tags, prompt, actions, result)
    else:
        columns = (title, tags, body, "", "")
    return columns if _digest(columns) == digest else None


def snippet_of(root: str, doc: dict) -> str:
    """A row's snippet, made from the text kept once: a memory's from its body, a bank entry's from its Markdown
    (when it still holds the indexed text, else "") or its body, a journal day's or MAIN.md's from its body."""
    if doc["kind"] == "memory":
        return memory_snippet(doc.get("body") or "")
    columns = _text_columns(
        root, (doc["kind"], doc["path"], doc["title"], doc["tags"], doc.get("body") or "", doc.get("digest") or 0)
    )
    if columns is None:
        return ""
    return " ".join((columns[4] if doc["kind"] == "bank" else columns[2]).split())[:SNIPPET_CAP]


def memory_snippet(body: str) -> str:
    """A memory's content without its **Why:** and **How to apply:**, on one line."""
    content = body.split("**Why:**", 1)[0].split("**How to apply:**", 1)[0]
    return " ".join(content.split())[:SNIPPET_CAP]


def _body(kind: str, columns: tuple[str, ...], raw: bool) -> str:
    """The text a row keeps in fts_docs.body: a memory's body, a journal day's or MAIN.md's text, and for a bank
    entry nothing when its Markdown gives the text back as indexed (``raw``: the full pass left the file as it was),
    else its three sections."""
    if kind != "bank":
        return columns[2]
    return "" if raw else json.dumps(list(columns[2:]), ensure_ascii=False)


_DOC_COLUMNS = (
    "project, kind, ref, type, title, tags, source, harness, session_id, created, last_seen, seen, "
    "mtime_ns, size, status, promoted, body, digest"
)


def _row_values(project: str, kind: str, doc: dict, mtime_ns: int, size: int, raw: bool) -> tuple[tuple, tuple]:
    """(fts_docs values in _DOC_COLUMNS order, FTS columns) of one parsed file."""
    columns = _columns(kind, doc)
    values = (
        project,
        kind,
        doc["ref"],
        doc["type"],
        doc["title"],
        columns[1],
        doc["source"],
        doc["harness"],
        doc["session_id"],
        doc["created"],
        doc["last_seen"],
        doc["seen"],
        mtime_ns,
        size,
        doc["status"],
        doc["promoted"],
        _body(kind, columns, raw),
        _digest(columns),
    )
    return values, columns


def add_row(
    conn: sqlite3.Connection,
    rel: str,
    project: str,
    kind: str,
    doc: dict,
    mtime_ns: int = 0,
    size: int = 0,
    *,
    raw: bool = False,
) -> int:
    """Index one parsed file (``parse_doc``'s fields) as a new row; its id. ``raw``: the file at ``rel`` gives the
    text back exactly as indexed (a bank entry then keeps no copy of it)."""
    values, columns = _row_values(project, kind, doc, mtime_ns, size, raw)
    cur = conn.execute(
        f"INSERT INTO fts_docs (path, {_DOC_COLUMNS}) VALUES ({','.join('?' * (len(values) + 1))})", (rel, *values)
    )
    rowid = int(cur.lastrowid or 0)
    if kind == "memory":
        conn.execute("INSERT INTO fts_mem (rowid, title, tags, body) VALUES (?,?,?,?)", (rowid, *columns))
    else:
        conn.execute(
            "INSERT INTO fts_text (rowid, title, tags, prompt, actions, result) VALUES (?,?,?,?,?,?)", (rowid, *columns)
        )
    return rowid


def _upsert(
    conn: sqlite3.Connection, root: str, rel: str, project: str, kind: str, text: str, st: os.stat_result
) -> None:
    cleaned = _clean(text)
    doc = parse_doc(kind, cleaned, os.path.basename(rel), st.st_mtime)
    raw = cleaned == text
    old = conn.execute("SELECT id, kind, digest FROM fts_docs WHERE path = ?", (rel,)).fetchone()
    if old is not None:
        values, _columns_ = _row_values(project, kind, doc, st.st_mtime_ns, st.st_size, raw)
        if old[1] == kind and old[2] == values[-1]:  # the indexed text is unchanged: its FTS row stands
            sets = ", ".join(f"{name.strip()} = ?" for name in _DOC_COLUMNS.split(","))
            conn.execute(f"UPDATE fts_docs SET {sets} WHERE id = ?", (*values, old[0]))
            return
        _remove_rel(conn, root, rel)
    add_row(conn, rel, project, kind, doc, st.st_mtime_ns, st.st_size, raw=raw)


# ---------------------------------------------------------------- ghosts: fts_text rows whose text was lost

GHOSTS_KEY = "fts_ghosts"
GHOST_SHARE = 0.02  # a full sync compacts fts_text when more than this share of its rows are ghosts
GHOST_MIN = 50


def _add_ghosts(conn: sqlite3.Connection, count: int) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET "
        "value = CAST(value AS INTEGER) + excluded.value",
        (GHOSTS_KEY, str(count)),
    )


def ghosts(conn: sqlite3.Connection) -> int:
    """fts_text rows left behind by a file changed or removed behind automem's back (as counted when it happened)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (GHOSTS_KEY,)).fetchone()
    return int(row[0]) if row and str(row[0]).isdigit() else 0


def compact(conn: sqlite3.Connection, home_root=None, *, force: bool = False) -> int:
    """Make fts_text again from each row's text, dropping every ghost; returns the rows made again (0: not needed).

    Without ``force`` only when ghosts are more than GHOST_SHARE of the rows (and GHOST_MIN). The files are read
    before the write lock is taken; a row whose text can no longer be had (its file changed since it was indexed)
    leaves fts_docs, and its folder is listed again by the next sync, which indexes the file as it is now."""
    count = ghosts(conn)
    if not count and not force:
        return 0
    if not force:
        rows_now = conn.execute("SELECT count(*) FROM fts_text_docsize").fetchone()[0]
        if count < GHOST_MIN or count <= GHOST_SHARE * rows_now:
            return 0
    root = _home_str(home_root)
    rows = conn.execute(
        "SELECT id, kind, path, title, tags, body, digest FROM fts_docs WHERE kind != 'memory'"
    ).fetchall()
    texts = {row[0]: (row[6], _text_columns(root, row[1:])) for row in rows}
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("INSERT INTO fts_text (fts_text) VALUES ('delete-all')")
        lost: list[tuple[int, str]] = []
        made = 0
        for rowid, path, digest in conn.execute(
            "SELECT id, path, digest FROM fts_docs WHERE kind != 'memory'"
        ).fetchall():
            read = texts.get(rowid)
            if read is None or read[1] is None or read[0] != digest:
                lost.append((rowid, path))
                continue
            conn.execute(
                "INSERT INTO fts_text (rowid, title, tags, prompt, actions, result) VALUES (?,?,?,?,?,?)",
                (rowid, *read[1]),
            )
            made += 1
        for rowid, path in lost:
            conn.execute("DELETE FROM fts_docs WHERE id = ?", (rowid,))
            conn.execute("DELETE FROM fts_dirs WHERE path = ?", (path.rpartition("/")[0],))
        conn.execute("DELETE FROM meta WHERE key = ?", (GHOSTS_KEY,))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("INSERT INTO fts_text (fts_text) VALUES ('optimize')")
    return made


# ---------------------------------------------------------------- parsing (our own formats, by hand)


def parse_doc(kind: str, text: str, name: str, mtime: float) -> dict:
    """The fields the index keeps for one file."""
    meta, body = split_frontmatter(text)
    doc: dict = {
        "ref": str(meta.get("id") or name[:-3]),
        "type": "",
        "title": "",
        "snippet": "",
        "tags": [],
        "source": str(meta.get("source") or ""),
        "harness": str(meta.get("harness") or ""),
        "session_id": str(meta.get("session_id") or ""),
        "created": mtime,
        "last_seen": mtime,
        "seen": 1,
        "body": "",
        "prompt": "",
        "actions": "",
        "result": "",
        "status": "",
        "promoted": "",
    }
    tags = meta.get("tags") or []
    doc["tags"] = [str(t) for t in (tags if isinstance(tags, list) else [tags])]
    if kind == "memory":
        doc["type"] = str(meta.get("type") or "observation")
        doc["title"] = str(meta.get("summary") or "")
        doc["body"] = body.strip()
        content = body.split("**Why:**", 1)[0].split("**How to apply:**", 1)[0]
        doc["snippet"] = " ".join(content.split())[:SNIPPET_CAP]
        doc["created"] = iso_epoch(meta.get("created"), mtime)
        doc["last_seen"] = iso_epoch(meta.get("last_seen"), doc["created"])
        try:
            doc["seen"] = max(1, int(meta.get("seen") or 1))
        except (TypeError, ValueError):
            doc["seen"] = 1
        doc["source"] = doc["source"] or "user"
        from automem.schema import PROMOTIONS, memory_state

        doc["status"] = memory_state(doc["source"], str(meta.get("status") or ""), doc["seen"])
        promoted = str(meta.get("promoted") or "")
        doc["promoted"] = promoted if promoted in PROMOTIONS else ""  # a reason this version does not know ranks last
    elif kind == "bank":
        sections = _sections_of(body)
        doc["title"] = str(meta.get("title") or name[:-3])
        doc["prompt"] = sections.get("Prompt", "")
        doc["actions"] = sections.get("Actions", "")
        doc["result"] = sections.get("Result", "")
        doc["snippet"] = " ".join(doc["result"].split())[:SNIPPET_CAP]
        doc["created"] = doc["last_seen"] = iso_epoch(meta.get("ts"), mtime)
    elif kind == "journal":
        day = name[:-3]
        doc["ref"] = day
        doc["title"] = f"Journal {day}"
        doc["prompt"] = body.strip()
        doc["snippet"] = " ".join(body.split())[:SNIPPET_CAP]
        doc["created"] = doc["last_seen"] = iso_epoch(day, mtime)
    else:  # main
        human = human_part(text)
        doc["ref"] = "MAIN"
        doc["title"] = "MAIN.md"
        doc["prompt"] = human
        doc["snippet"] = " ".join(human.split())[:SNIPPET_CAP]
    return doc


def iso_epoch(value, default: float) -> float:
    """Seconds since the epoch for an ISO date or time (UTC when it names no zone)."""
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value or "").strip()
    if not text:
        return default
    from datetime import datetime, timezone  # here: the hooks read the index without parsing a date

    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return default
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()


# ---------------------------------------------------------------- keeping current


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
    root = _home_str(home_root)
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
            _atomic(conn, _remove_prefix, conn, root, f"projects/{slug}/")


def _remove_prefix(conn: sqlite3.Connection, root: str, prefix: str) -> int:
    rows = conn.execute(
        "SELECT path FROM fts_docs WHERE path >= ? AND path < ?", (prefix, prefix + "\uffff")
    ).fetchall()
    for (rel,) in rows:
        _remove_rel(conn, root, rel)
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
            _atomic(conn, _remove_rel, conn, root, rel)
            report.removed += 1
        return
    if row is None or row[0] != st.st_mtime_ns or row[1] != st.st_size:
        if quick:
            report.deferred.append(rel)  # indexing means the full redaction pass: not in a hook
            return
        try:
            _atomic(conn, _upsert, conn, root, rel, slug, "main", _read(full), st)
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
            report.removed += _atomic(conn, _remove_prefix, conn, root, rel_dir + "/")
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
            _remove_rel(conn, root, rel)
            report.removed += 1
        for rel in todo:
            full = os.path.join(root, rel)
            try:
                st = os.stat(full)
                text = _read(full)
            except OSError:
                continue
            _upsert(conn, root, rel, slug, kind, text, st)
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
    env["AUTOMEM_HOME"] = _home_str(home_root)
    with open(os.devnull, "rb") as devnull_in, open(os.devnull, "wb") as devnull_out:
        subprocess.Popen(
            [sys.executable, "-m", "automem.index.fts", "sync"],
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

    root = _home_str(home_root)
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


# ---------------------------------------------------------------- drift (for `automem doctor`)


def index_drift(home) -> dict:
    """Compare the tree with the index without changing either: what is missing, stale or orphaned."""
    root = str(getattr(home, "root", home))
    conn = open_index(root)
    try:
        rows = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT path, mtime_ns, size FROM fts_docs")}
        # search rows no file stands behind: an fts_text row whose text was lost, or damage done from outside
        ghost_rows = sum(
            conn.execute(f"SELECT count(*) FROM {table}_docsize WHERE id NOT IN (SELECT id FROM fts_docs)").fetchone()[
                0
            ]
            for table in ("fts_mem", "fts_text")
        )
    finally:
        conn.close()
    on_disk: dict[str, tuple[int, int]] = {}
    projects_dir = _paths.projects_dir(root)
    try:
        slugs = [e.name for e in os.scandir(projects_dir) if e.is_dir()]
    except OSError:
        slugs = []
    for slug in slugs:
        candidates = [f"projects/{slug}/{MAIN_NAME}"]
        for sub in KINDS:
            try:
                candidates += [
                    f"projects/{slug}/{sub}/{n}"
                    for n in os.listdir(os.path.join(projects_dir, slug, sub))
                    if n.endswith(".md") and not n.startswith(".")
                ]
            except OSError:
                continue
        for rel in candidates:
            try:
                st = os.stat(os.path.join(root, rel))
            except OSError:
                continue
            on_disk[rel] = (st.st_mtime_ns, st.st_size)
    missing = sorted(set(on_disk) - set(rows))
    orphaned = sorted(set(rows) - set(on_disk))
    stale = sorted(rel for rel in set(on_disk) & set(rows) if on_disk[rel] != rows[rel])
    return {
        "files": len(on_disk),
        "indexed": len(rows),
        "missing": len(missing),
        "stale": len(stale),
        "orphaned": len(orphaned),
        "ghosts": ghost_rows,
        "ok": not (missing or stale or orphaned or ghost_rows),
        "examples": {"missing": missing[:5], "stale": stale[:5], "orphaned": orphaned[:5]},
        "fix": "automem reindex",
    }


# ---------------------------------------------------------------- queries

STOPWORDS = frozenset(
    """
a about above after again all also am an and any are as at be because been before being below between both but by
can could did do does doing done down during each few for from further had has have having he her here hers him his
how i if in into is it its itself just let lets like me more most my no nor not now of off on once only or other our
ours out over own please same she should so some such than that the their theirs them then there these they this
those through to too under until up us very was we were what when where which while who whom why will with would
you your yours yourself okay ok yes thanks thank hi hello hey use using used make made get got want need
""".split()
)

_WORD = re.compile(r"\w+", re.U)


def query_terms(text: str, limit: int = 12) -> list[str]:
    """Distinct significant words of a query, in order (stopwords and 1-letter words out)."""
    out: list[str] = []
    for word in _WORD.findall((text or "").lower()):
        if len(word) < 2 or word in STOPWORDS or word in out or word.isdigit() and len(word) < 3:
            continue
        out.append(word)
        if len(out) >= limit:
            break
    return out


def doc_frequency(conn: sqlite3.Connection, table: str, term: str) -> int:
    """Documents holding ``term`` (its exact token, else words sharing its first five letters: an upper bound)."""
    vocab = f"{table}_vocab"
    row = conn.execute(f"SELECT doc FROM {vocab} WHERE term = ?", (term,)).fetchone()
    if row:
        return int(row[0])
    stem = term[:5]
    row = conn.execute(f"SELECT max(doc) FROM {vocab} WHERE term >= ? AND term < ?", (stem, stem + "\uffff")).fetchone()
    return int(row[0] or 0)


def prune_common(conn: sqlite3.Connection, table: str, terms: list[str], share: float = 0.2) -> list[str]:
    """Drop words found in more than ``share`` of the documents (they rank nothing and cost a full scan).

    Keeps the rarest word when every word is common, so a query never becomes empty.
    """
    if len(terms) < 2:
        return terms
    total = _table_size(conn, table)
    if total < 50:
        return terms
    freq = {t: doc_frequency(conn, table, t) for t in terms}
    kept = [t for t in terms if freq[t] <= share * total]
    return kept or [min(terms, key=lambda t: freq[t])]


def _table_size(conn: sqlite3.Connection, table: str) -> int:
    """Documents in an FTS table, from the folder counts of the last scan (cheap; approximate is enough)."""
    pattern = "%/memories" if table == "fts_mem" else "%/bank"
    row = conn.execute("SELECT sum(files) FROM fts_dirs WHERE path LIKE ?", (pattern,)).fetchone()
    return int(row[0] or 0)


def match_expr(terms: list[str], op: str) -> str:
    return f" {op} ".join('"' + t.replace('"', "") + '"' for t in terms)


def search(conn: sqlite3.Connection, table: str, expr: str, pool: int) -> list[tuple[int, float]]:
    """(rowid, bm25) best first from one FTS table; bm25 is negative, lower is better."""
    weights = MEM_WEIGHTS if table == "fts_mem" else TEXT_WEIGHTS
    try:
        return conn.execute(
            f"SELECT rowid, bm25({table}, {weights}) AS score FROM {table} WHERE {table} MATCH ? ORDER BY score "
            f"LIMIT ?",
            (expr, pool),
        ).fetchall()
    except sqlite3.OperationalError:
        return []  # an expression FTS5 cannot parse: no hits rather than an error


def search_injectable_memories(conn: sqlite3.Connection, expr: str, pool: int) -> list[tuple[int, float]]:
    """Like ``search`` over fts_mem, but only memories that may be handed to an agent (promoted or the user's)."""
    try:
        return conn.execute(
            f"SELECT m.rowid, bm25(fts_mem, {MEM_WEIGHTS}) AS score FROM fts_mem m JOIN fts_docs d ON d.id = m.rowid "
            "WHERE fts_mem MATCH ? AND d.status IN ('user', 'promoted') ORDER BY score LIMIT ?",
            (expr, pool),
        ).fetchall()
    except sqlite3.OperationalError:
        return []


def memory_texts(conn: sqlite3.Connection, slugs: list[str]) -> list[tuple[str, str, str]]:
    """(path, summary, body) of every memory of these projects, oldest first (what a new memory is deduped against)."""
    marks = ",".join("?" * len(slugs))
    return conn.execute(
        f"SELECT path, title, body FROM fts_docs WHERE kind = 'memory' AND project IN ({marks}) ORDER BY id", slugs
    ).fetchall()


def docs_by_id(conn: sqlite3.Connection, ids: list[int]) -> dict[int, dict]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    cur = conn.execute(f"SELECT * FROM fts_docs WHERE id IN ({marks})", ids)
    cols = [c[0] for c in cur.description]
    return {row[0]: dict(zip(cols, row, strict=True)) for row in cur.fetchall()}


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
    print("usage: python -m automem.index.fts sync|reindex", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())

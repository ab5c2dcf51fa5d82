"""Writing index.db one file at a time: a row of fts_docs and its FTS row, added, updated or taken out together;
the ghosts a lost text leaves in fts_text, and ``compact``, which makes fts_text again without them.

Writers call ``index_file``/``remove_file`` to be searchable at once; ``sync`` (index/sync.py) uses the same
primitives for what it finds changed in the tree.
"""

from __future__ import annotations

import os
import sqlite3

from automem.index.db import home_str, open_index
from automem.index.docs import classify, index_columns, parse_doc, read_text, stored_body, text_columns, text_digest


def index_file(path, home_root=None, conn: sqlite3.Connection | None = None) -> bool:
    """(Re)index one file of the tree; returns False when the path is not indexable (or is gone)."""
    own = conn is None
    conn = conn or open_index(home_root)
    try:
        root = home_str(home_root)
        where = classify(root, str(path))
        if where is None:
            return False
        rel, project, kind = where
        try:
            st = os.stat(os.path.join(root, rel))
            text = read_text(os.path.join(root, rel))
        except OSError:
            atomic(conn, remove_rel, conn, root, rel)
            return False
        known = conn.execute("SELECT 1 FROM fts_docs WHERE path = ?", (rel,)).fetchone() is not None
        atomic(conn, upsert, conn, root, rel, project, kind, text, st)
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
        root = home_str(home_root)
        where = classify(root, str(path))
        rel = where[0] if where else os.path.relpath(str(path), root).replace(os.sep, "/")
        removed = atomic(conn, remove_rel, conn, root, rel)
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


def _clean(text: str) -> str:
    """Everything that enters index.db gets the store's full pass (store.clean_for_index): a hand-edited file has
    had no redaction at all, and the full pass catches more than the hooks' tier. Idempotent on what the store
    wrote; detect-secrets and the engine load only when a file is indexed, not on a quick look that finds nothing."""
    from automem.store import clean_for_index

    return clean_for_index(text)


def atomic(conn: sqlite3.Connection, func, *args):
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


def remove_rel(conn: sqlite3.Connection, root: str, rel: str) -> bool:
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
        columns = text_columns(root, row[1:])
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


_DOC_COLUMNS = (
    "project, kind, ref, type, title, tags, source, harness, session_id, created, last_seen, seen, "
    "mtime_ns, size, status, promoted, body, digest"
)


def _row_values(project: str, kind: str, doc: dict, mtime_ns: int, size: int, raw: bool) -> tuple[tuple, tuple]:
    """(fts_docs values in _DOC_COLUMNS order, FTS columns) of one parsed file."""
    columns = index_columns(kind, doc)
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
        stored_body(kind, columns, raw),
        text_digest(columns),
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


def upsert(
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
        remove_rel(conn, root, rel)
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
    root = home_str(home_root)
    rows = conn.execute(
        "SELECT id, kind, path, title, tags, body, digest FROM fts_docs WHERE kind != 'memory'"
    ).fetchall()
    texts = {row[0]: (row[6], text_columns(root, row[1:])) for row in rows}
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

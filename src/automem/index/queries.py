"""The queries the consumers of index.db run (recall, the brief, MCP, the hooks, the redaction rescan).

SQL stays in index/: a consumer calls one of these with plain values and gets rows back. ``Connection``,
``DatabaseError`` and ``Busy`` name sqlite3's types for code that holds a connection or catches its errors.
"""

from __future__ import annotations

import sqlite3

from automem.index.search import MEM_WEIGHTS, TEXT_WEIGHTS

Connection = sqlite3.Connection
DatabaseError = sqlite3.Error
Busy = sqlite3.OperationalError  # "database is locked" (another writer), or an expression FTS5 cannot parse

_ORDERS = ("last_seen", "seen")


def filtered_search(
    conn: Connection,
    table: str,
    expr: str,
    *,
    scope: list[str] | None,
    memory_type: str | None,
    kind: str | None,
    since: float | None,
    harness: str | None,
    limit: int,
    candidates: bool = False,
) -> list[tuple[int, dict, float]]:
    """(rowid, document row, bm25) of one FTS table, with every filter in SQL (for when filtering a ranked pool
    in Python left too few); candidates only when asked for. An expression FTS5 cannot parse finds nothing."""
    weights = MEM_WEIGHTS if table == "fts_mem" else TEXT_WEIGHTS
    where: list[str] = [f"{table} MATCH ?"]
    args: list[object] = [expr]
    if not candidates:
        where.append("(d.kind != 'memory' OR d.status IN ('user', 'promoted'))")
    if scope is not None:
        where.append(f"d.project IN ({','.join('?' * len(scope))})")
        args += scope
    if memory_type:
        where.append("d.type = ?")
        args.append(memory_type)
    elif kind:
        where.append("d.kind = ?")
        args.append(kind)
    if since is not None:
        where.append("max(d.created, d.last_seen) >= ?")
        args.append(since)
    if harness:
        where.append("d.harness = ?")
        args.append(harness)
    sql = (
        f"SELECT d.*, bm25({table}, {weights}) AS score FROM {table} JOIN fts_docs d ON d.id = {table}.rowid "
        f"WHERE {' AND '.join(where)} ORDER BY score LIMIT ?"
    )
    try:
        cur = conn.execute(sql, [*args, limit])
    except sqlite3.OperationalError:
        return []
    cols = [c[0] for c in cur.description]
    out = []
    for row in cur.fetchall():
        doc = dict(zip(cols, row, strict=True))
        out.append((doc["id"], doc, doc.pop("score")))
    return out


def memory_words(conn: Connection, rowid: int) -> tuple[str, str, str] | None:
    """(title, tags, body) of one indexed memory, as FTS5 holds them."""
    return conn.execute("SELECT title, tags, body FROM fts_mem WHERE rowid = ?", (rowid,)).fetchone()


def memories_of_tier(conn: Connection, project: str, tier: str | None, order: str, limit: int) -> list[tuple]:
    """(ref, type, title, body, seen, last_seen, project, path) of a project's memories of one evidence tier,
    the first ``limit`` by ``order`` (last_seen or seen, highest first): the user's own when ``tier`` is None,
    else those promoted for the reason ``tier`` ("" for promoted with no reason recorded). Each walks one of the
    partial indexes over memories, so its cost does not grow with their number."""
    if order not in _ORDERS:
        raise ValueError(f"order must be one of {_ORDERS}, not {order!r}")
    where, params = ("status = 'user'", ()) if tier is None else ("status = 'promoted' AND promoted = ?", (tier,))
    return conn.execute(
        f"SELECT ref, type, title, body, seen, last_seen, project, path FROM fts_docs "
        f"WHERE kind = 'memory' AND project = ? AND {where} ORDER BY {order} DESC LIMIT ?",
        (project, *params, limit),
    ).fetchall()


def newest_bank_entries(conn: Connection, project: str, limit: int) -> list[dict]:
    """A project's newest bank entries, as rows docs.snippet_of reads (title, created, kind, path, tags, body,
    digest)."""
    cur = conn.execute(
        "SELECT title, created, kind, path, tags, body, digest FROM fts_docs WHERE project = ? AND kind = 'bank' "
        "ORDER BY created DESC LIMIT ?",
        (project, limit),
    )
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def paths_of_ref(conn: Connection, ref: str) -> list[tuple[str, str]]:
    """(path relative to the home, project) of every indexed file with this id."""
    return conn.execute("SELECT path, project FROM fts_docs WHERE ref = ?", (ref,)).fetchall()


def rollback(conn: Connection) -> None:
    """End a write a busy database interrupted, so the connection can go on reading (no error if none was open)."""
    try:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass


def compact(conn: Connection) -> None:
    """Merge the FTS segments and VACUUM, so no free page keeps a text that was rewritten."""
    for table in ("fts_mem", "fts_text"):
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
    conn.execute("VACUUM")

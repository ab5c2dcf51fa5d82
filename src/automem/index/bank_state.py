"""The autobank's bookkeeping in index.db: read cursors, banked turn keys, reservations, harness windows.

Only index/ writes SQLite (DESIGN.md); the banker calls these. All of it can be
lost: banked keys are recovered from the bank entries' ``turn_key`` lines
(index/db.py), and cursors and windows start afresh.
"""

from __future__ import annotations

import sqlite3
from operator import itemgetter


class Cursor(tuple):
    """Where a transcript was read to, and the file as it was then (size, mtime, inode). A tuple written out: one is
    made per transcript a pass knows, and a named tuple's class costs a compile of its constructor in every process
    that imports this module."""

    __slots__ = ()

    def __new__(cls, offset: int, size: int, mtime_ns: int, inode: int, updated_at: float) -> Cursor:
        return tuple.__new__(cls, (offset, size, mtime_ns, inode, updated_at))

    offset = property(itemgetter(0))
    size = property(itemgetter(1))
    mtime_ns = property(itemgetter(2))
    inode = property(itemgetter(3))
    updated_at = property(itemgetter(4))

    def __repr__(self) -> str:
        return "Cursor(offset={!r}, size={!r}, mtime_ns={!r}, inode={!r}, updated_at={!r})".format(*self)


NO_CURSOR = Cursor(0, -1, -1, -1, 0.0)


def load_cursors(conn: sqlite3.Connection) -> dict[str, Cursor]:
    rows = conn.execute("SELECT path, offset, size, mtime_ns, inode, updated_at FROM cursors")
    return {row[0]: Cursor(*row[1:]) for row in rows}


def save_cursor(conn: sqlite3.Connection, path: str, harness: str, cursor: Cursor) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO cursors (path, harness, offset, size, mtime_ns, inode, head, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, '', ?)",
        (path, harness, cursor.offset, cursor.size, cursor.mtime_ns, cursor.inode, cursor.updated_at),
    )


def banked(conn: sqlite3.Connection, turn_key: str) -> tuple[str, str | None] | None:
    """(file, revision) of a banked turn, or None."""
    return conn.execute("SELECT file, revision FROM banked WHERE turn_key = ?", (turn_key,)).fetchone()


def reserve(conn: sqlite3.Connection, turn_key: str, owner: str, now: float, ttl: float) -> bool:
    """Take the turn for this pass; a reservation older than ``ttl`` (a pass that died) is taken over."""
    conn.execute("INSERT OR IGNORE INTO reservations VALUES (?, ?, ?)", (turn_key, owner, now))
    took = conn.execute(
        "UPDATE reservations SET owner = ?, at = ? WHERE turn_key = ? AND (owner = ? OR at < ?)",
        (owner, now, turn_key, owner, now - ttl),
    ).rowcount
    return bool(took)


def reservation_owner(conn: sqlite3.Connection, turn_key: str) -> str:
    row = conn.execute("SELECT owner FROM reservations WHERE turn_key = ?", (turn_key,)).fetchone()
    return str(row[0]) if row else ""


def take_over(conn: sqlite3.Connection, turn_key: str, owner: str, now: float) -> None:
    """Take a turn from a pass that is known to be gone (its process no longer exists)."""
    conn.execute("UPDATE reservations SET owner = ?, at = ? WHERE turn_key = ?", (owner, now, turn_key))


def mark_banked(
    conn: sqlite3.Connection, turn_key: str, project: str, file: str, now: float, revision: str | None
) -> None:
    """Record the turn as banked and drop its reservation, in one transaction: a pass killed between the two
    statements left a reservation that nothing would ever remove (the turn reads as banked from then on)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "INSERT OR REPLACE INTO banked (turn_key, project, file, banked_at, revision) VALUES (?, ?, ?, ?, ?)",
            (turn_key, project, file, now, revision),
        )
        conn.execute("DELETE FROM reservations WHERE turn_key = ?", (turn_key,))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def drop_settled_reservations(conn: sqlite3.Connection) -> int:
    """Reservations of turns already banked (left by an older automem killed inside ``mark_banked``)."""
    return conn.execute("DELETE FROM reservations WHERE turn_key IN (SELECT turn_key FROM banked)").rowcount


def mark_dirty(conn: sqlite3.Connection, project: str) -> None:
    """A pass is about to write entries of ``project``: its MAIN.md and summaries need rebuilding, even if the
    pass is killed before it gets there (the next pass finishes the job)."""
    conn.execute("INSERT OR IGNORE INTO meta VALUES (?, '1')", (DIRTY + project,))


def dirty_projects(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT key FROM meta WHERE key >= ? AND key < ?", (DIRTY, DIRTY + "\uffff"))
    return {row[0][len(DIRTY) :] for row in rows}


def clear_dirty(conn: sqlite3.Connection, project: str) -> None:
    conn.execute("DELETE FROM meta WHERE key = ?", (DIRTY + project,))


DIRTY = "bank_dirty:"


def note_paused(conn: sqlite3.Connection, harnesses: list[str]) -> None:
    for harness in harnesses:
        conn.execute("UPDATE harnesses SET paused = 1 WHERE harness = ?", (harness,))


def window_start(conn: sqlite3.Connection, harness: str, now: float, first_days: int) -> float:
    """Turns that finished before this are not banked: ``first_days`` back when a harness is first seen or
    switched on again after a pause (not the time it was off)."""
    row = conn.execute("SELECT window_start, paused FROM harnesses WHERE harness = ?", (harness,)).fetchone()
    fresh = now - first_days * 86400
    if row and row[1]:
        start = max(row[0], fresh)
        conn.execute("UPDATE harnesses SET window_start = ?, paused = 0 WHERE harness = ?", (start, harness))
        return start
    if row:
        return row[0]
    conn.execute("INSERT INTO harnesses (harness, enabled_at, window_start) VALUES (?, ?, ?)", (harness, now, fresh))
    return fresh


def widen_window(conn: sqlite3.Connection, harness: str, start: float) -> bool:
    """Backfill: bank from ``start`` on. When that is earlier than the window so far, every transcript of the
    harness is read once more (True); a window already that wide keeps its cursors (False), so a backfill run
    again goes on from where the last one stopped."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT window_start FROM harnesses WHERE harness = ?", (harness,)).fetchone()
        wider = row is not None and start < row[0]
        if wider:
            conn.execute("UPDATE harnesses SET window_start = ? WHERE harness = ?", (start, harness))
            conn.execute("DELETE FROM cursors WHERE harness = ?", (harness,))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return wider


def counts(conn: sqlite3.Connection) -> tuple[dict[str, int], dict[str, int], dict[str, float]]:
    """Per harness: transcripts tracked, turns banked, window start (for `automem bank status`)."""
    tracked = dict(conn.execute("SELECT harness, count(*) FROM cursors GROUP BY harness").fetchall())
    banked_by = dict(
        conn.execute("SELECT substr(turn_key, 1, instr(turn_key, ':') - 1), count(*) FROM banked GROUP BY 1").fetchall()
    )
    windows = dict(conn.execute("SELECT harness, window_start FROM harnesses").fetchall())
    return tracked, banked_by, windows

"""index.db: the derived SQLite database (only index/ writes it).

Everything in it can be rebuilt from the Markdown tree: delete it (or let it
get corrupted) and the next ``connect`` starts a fresh one; the bank's
exactly-once keys are recovered from the ``turn_key`` lines of bank entries.
WAL mode and a busy timeout let hooks, passes and the CLI share it.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from automem.home import Home
from automem.log import log_error

SCHEMA_VERSION = 2  # 2: fts_docs.status and .promoted (candidates are never injected; the brief ranks by evidence)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cursors (
    path TEXT PRIMARY KEY,
    harness TEXT NOT NULL,
    offset INTEGER NOT NULL DEFAULT 0,
    size INTEGER NOT NULL DEFAULT 0,
    mtime_ns INTEGER NOT NULL DEFAULT 0,
    inode INTEGER NOT NULL DEFAULT 0,
    head TEXT NOT NULL DEFAULT '',
    updated_at REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS banked (
    turn_key TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    file TEXT NOT NULL,
    banked_at REAL NOT NULL,
    revision TEXT
);
CREATE TABLE IF NOT EXISTS reservations (
    turn_key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS harnesses (
    harness TEXT PRIMARY KEY,
    enabled_at REAL NOT NULL,
    window_start REAL NOT NULL,
    paused INTEGER NOT NULL DEFAULT 0
);
-- full-text search over the tree (index/fts.py); every row is rebuilt from the Markdown
CREATE TABLE IF NOT EXISTS fts_docs (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    project TEXT NOT NULL,
    kind TEXT NOT NULL,
    ref TEXT NOT NULL DEFAULT '',
    type TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
    snippet TEXT NOT NULL DEFAULT '',
    tags TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT '',
    harness TEXT NOT NULL DEFAULT '',
    session_id TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL DEFAULT 0,
    last_seen REAL NOT NULL DEFAULT 0,
    seen INTEGER NOT NULL DEFAULT 1,
    mtime_ns INTEGER NOT NULL DEFAULT 0,
    size INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT '',
    promoted TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS fts_docs_newest ON fts_docs (project, kind, created);
CREATE INDEX IF NOT EXISTS fts_docs_ref ON fts_docs (ref);
CREATE VIRTUAL TABLE IF NOT EXISTS fts_mem USING fts5(title, tags, body, tokenize = 'porter unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS fts_text USING fts5(title, tags, prompt, actions, result, tokenize = 'porter unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS fts_mem_vocab USING fts5vocab(fts_mem, 'row');
CREATE VIRTUAL TABLE IF NOT EXISTS fts_text_vocab USING fts5vocab(fts_text, 'row');
CREATE TABLE IF NOT EXISTS fts_dirs (
    path TEXT PRIMARY KEY,
    mtime_ns INTEGER NOT NULL,
    files INTEGER NOT NULL DEFAULT 0
);
"""


def connect(home: Home | None = None) -> sqlite3.Connection:
    """Open (creating or rebuilding as needed) the index database."""
    home = home or Home.current()
    home.ensure()
    path = home.index_db
    try:
        conn = _open(path)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        _migrate(conn, home)
        return conn
    except sqlite3.DatabaseError as exc:
        log_error("index", f"{path} unusable ({exc}); moved aside and rebuilt")
        _move_aside(path)
        conn = _open(path)
        _migrate(conn, home)
        return conn


def _open(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=10, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    try:
        path.chmod(0o600)
    except OSError:
        pass
    return conn


KEEP_CORRUPT_COPIES = 3


def _move_aside(path: Path) -> None:
    """Keep the broken file for a post-mortem (the newest few only: a repeatedly corrupted index must not pile up)."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"-{time.time_ns() % 1_000_000_000:09d}"
    old = sorted(path.parent.glob(path.name + ".corrupt-*"), key=lambda p: p.stat().st_mtime)
    for stale in old[: max(0, len(old) - KEEP_CORRUPT_COPIES * 3 + 3)]:
        stale.unlink(missing_ok=True)
    for suffix in ("", "-wal", "-shm"):
        part = Path(str(path) + suffix)
        if part.exists():
            try:
                part.replace(Path(f"{path}.corrupt-{stamp}{suffix}"))
            except OSError:
                part.unlink(missing_ok=True)


# The brief's queries walk these from the newest and the most seen memory of one evidence tier
# (partial: memories only, a small fraction of the rows). Created after an upgrade has added the columns.
_MEMORY_INDEXES = """
CREATE INDEX IF NOT EXISTS fts_docs_mem_recent ON fts_docs (project, status, promoted, last_seen) WHERE kind = 'memory';
CREATE INDEX IF NOT EXISTS fts_docs_mem_seen ON fts_docs (project, status, promoted, seen) WHERE kind = 'memory';
"""


def _migrate(conn: sqlite3.Connection, home: Home) -> None:
    conn.executescript(_SCHEMA)
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        recover_banked_keys(conn, home)
    elif row[0].isdigit() and int(row[0]) < SCHEMA_VERSION:
        _upgrade(conn)  # a newer index (another install) is left alone, never downgraded
    if conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'fts_docs_mem_%'"
                    ).fetchone()[0] < 2:
        conn.executescript(_MEMORY_INDEXES)


def _upgrade(conn: sqlite3.Connection) -> None:
    """An index from an older automem: add what is new, and let the next sync read the tree again.

    Under BEGIN IMMEDIATE, with the version read again inside: hooks and the MCP server may open it at once."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is not None and row[0].isdigit() and int(row[0]) >= SCHEMA_VERSION:
            conn.execute("COMMIT")
            return  # another process upgraded it while this one waited
        columns = {r[1] for r in conn.execute("PRAGMA table_info(fts_docs)")}
        for column in ("status", "promoted"):
            if column not in columns:
                conn.execute(f"ALTER TABLE fts_docs ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")
        for table in ("fts_docs", "fts_mem", "fts_text", "fts_dirs"):
            conn.execute(f"DELETE FROM {table}")
        conn.execute("DELETE FROM meta WHERE key >= 'fts_files:' AND key < 'fts_files:\uffff'")
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def recover_banked_keys(conn: sqlite3.Connection, home: Home) -> int:
    """Re-learn which turns are banked from the bank entries themselves (index lost or new)."""
    count = 0
    for project in home.projects():
        bank = project.bank_dir
        if not bank.is_dir():
            continue
        for entry in bank.glob("*.md"):
            key = _frontmatter_value(entry, "turn_key")
            if key:
                conn.execute(
                    "INSERT OR IGNORE INTO banked (turn_key, project, file, banked_at) VALUES (?, ?, ?, ?)",
                    (key, project.slug, str(entry.relative_to(project.dir)), entry.stat().st_mtime),
                )
                count += 1
    return count


def _frontmatter_value(path: Path, key: str) -> str | None:
    """A top-level scalar from a Markdown file's frontmatter, read without a YAML parser."""
    try:
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            if handle.readline().strip() != "---":
                return None
            for _ in range(200):
                line = handle.readline()
                if not line or line.strip() == "---":
                    return None
                if line.startswith(key + ":"):
                    value = line.split(":", 1)[1].strip()
                    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                        value = value[1:-1]
                    return value or None
    except OSError:
        return None
    return None

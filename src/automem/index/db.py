"""index.db: the derived SQLite database (only index/ writes it).

Everything in it can be rebuilt from the Markdown tree: delete it (or let it
get corrupted) and the next ``connect`` starts a fresh one; the bank's
exactly-once keys are recovered from the ``turn_key`` lines of bank entries.
WAL mode and a busy timeout let hooks, passes and the CLI share it.
"""

from __future__ import annotations

import sqlite3
import time

from automem.capture.errlog import log_error  # stdlib only: the hooks import this module (no pathlib, no Home)

TYPE_CHECKING = False  # typing itself is not imported on the hooks' path
if TYPE_CHECKING:
    from pathlib import Path

    from automem.home import Home

SCHEMA_VERSION = 3  # 3: the text is kept once (fts_mem reads fts_docs.body; fts_text holds no copy of the bank)

# the banked keys, in a table keyed by the turn key itself (WITHOUT ROWID: no second copy of every key in an index)
_BANKED = """CREATE TABLE IF NOT EXISTS banked (
    turn_key TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    file TEXT NOT NULL,
    banked_at REAL NOT NULL,
    revision TEXT
) WITHOUT ROWID"""

# Tables that are not rebuilt from the Markdown (the bank's cursors, keys and windows) and the folder scan notes.
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
{banked};
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
CREATE TABLE IF NOT EXISTS fts_dirs (
    path TEXT PRIMARY KEY,
    mtime_ns INTEGER NOT NULL,
    files INTEGER NOT NULL DEFAULT 0
);
""".replace("{banked}", _BANKED)

# Full-text search over the tree (written by index/upsert.py), rebuilt from the Markdown. Each text is kept once:
# a memory's summary, tags and body are fts_docs columns that fts_mem reads through the fts_mem_src view (external
# content); fts_text keeps no text at all (contentless): a bank entry's text is its Markdown file, checked against
# ``digest`` before it is read back (a file the full redaction pass changed keeps its sections in ``body``), and a
# journal day's or MAIN.md's text is fts_docs.body. Snippets are made from that text when shown (``snippet_of``).
# Ids are never reused (AUTOINCREMENT): a row of fts_text whose text could not be given back when its file changed
# behind automem's back stays in the inverted index, matched by no fts_docs row, until the next compaction.
_FTS_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS fts_docs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL UNIQUE,
    project TEXT NOT NULL,
    kind TEXT NOT NULL,
    ref TEXT NOT NULL DEFAULT '',
    type TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
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
    promoted TEXT NOT NULL DEFAULT '',
    body TEXT NOT NULL DEFAULT '',
    digest INTEGER NOT NULL DEFAULT 0
)""",
    "CREATE INDEX IF NOT EXISTS fts_docs_newest ON fts_docs (project, kind, created)",
    "CREATE INDEX IF NOT EXISTS fts_docs_ref ON fts_docs (ref)",
    "CREATE VIEW IF NOT EXISTS fts_mem_src AS SELECT id, title, tags, body FROM fts_docs WHERE kind = 'memory'",
    "CREATE VIRTUAL TABLE IF NOT EXISTS fts_mem USING fts5(title, tags, body, content = 'fts_mem_src', "
    "content_rowid = 'id', tokenize = 'porter unicode61')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS fts_text USING fts5(title, tags, prompt, actions, result, content = '', "
    "tokenize = 'porter unicode61')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS fts_mem_vocab USING fts5vocab(fts_mem, 'row')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS fts_text_vocab USING fts5vocab(fts_text, 'row')",
)
# what an older schema may have left: dropped by an upgrade, then made again from _FTS_SCHEMA
_FTS_OBJECTS = (
    ("table", "fts_mem_vocab"),
    ("table", "fts_text_vocab"),
    ("table", "fts_mem"),
    ("table", "fts_text"),
    ("view", "fts_mem_src"),
    ("table", "fts_docs"),
)


def connect(home: Home | None = None) -> sqlite3.Connection:
    """Open (creating or rebuilding as needed) the index database."""
    from automem.home import Home

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


def home_str(home_root=None) -> str:
    """The home's root as a string: the one given, else AUTOMEM_HOME's (index/ takes a root string, for the hooks)."""
    from automem.capture.paths import automem_home

    return str(home_root or automem_home())


def open_index(home_root: str | None = None) -> sqlite3.Connection:
    """index.db with the FTS tables (a corrupt file is moved aside and rebuilt by ``connect``)."""
    from pathlib import Path

    from automem.home import Home

    return connect(Home(Path(home_str(home_root))))


def open_current(home_root=None) -> sqlite3.Connection | None:
    """index.db for a hook: None when it is missing, broken or of an older schema (the detached sync mends it)."""
    import os

    from automem.capture.paths import index_path

    path = index_path(home_str(home_root))
    return open_current_file(path) if os.path.exists(path) else None


def open_current_file(path: str) -> sqlite3.Connection | None:
    """index.db as it is, for a hook: one pragma says whether its schema is current. None when it is not (or is not
    a database): upgrading or rebuilding it takes seconds on a big index, so the detached sync does it."""
    conn = sqlite3.connect(path, timeout=10, isolation_level=None)
    try:
        current = conn.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION
    except sqlite3.DatabaseError:
        current = False
    if not current:
        conn.close()
        return None
    conn.execute("PRAGMA synchronous = NORMAL")  # WAL mode is the file's own (set when it was made)
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
    from pathlib import Path

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
# (partial: memories only, a small fraction of the rows).
_MEMORY_INDEXES = """
CREATE INDEX IF NOT EXISTS fts_docs_mem_recent ON fts_docs (project, status, promoted, last_seen) WHERE kind = 'memory';
CREATE INDEX IF NOT EXISTS fts_docs_mem_seen ON fts_docs (project, status, promoted, seen) WHERE kind = 'memory';
"""


def _migrate(conn: sqlite3.Connection, home: Home) -> None:
    """Make or upgrade the schema. ``PRAGMA user_version`` holds the version once it is current, so an index that
    needs nothing costs one pragma (every hook opens it)."""
    if conn.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
        return  # current, or newer (another install): a newer index is left alone, never downgraded
    conn.executescript(_SCHEMA)
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is not None and row[0].isdigit() and int(row[0]) < SCHEMA_VERSION:
        _upgrade(conn)
        return
    if row is not None and (not row[0].isdigit() or int(row[0]) > SCHEMA_VERSION):
        return  # written by a newer automem: left as it is
    _create_fts(conn)
    if row is None:  # a new index
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        recover_banked_keys(conn, home)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _create_fts(conn: sqlite3.Connection) -> None:
    for statement in _FTS_SCHEMA:
        conn.execute(statement)
    conn.executescript(_MEMORY_INDEXES)


def _upgrade(conn: sqlite3.Connection) -> None:
    """An index from an older automem: its search tables are dropped and made again empty, and the next sync
    reads the tree again (the bank's cursors, keys and windows are kept). Then VACUUM gives the freed pages back.

    Under BEGIN IMMEDIATE, with the version read again inside: hooks and the MCP server may open it at once."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is not None and row[0].isdigit() and int(row[0]) >= SCHEMA_VERSION:
            conn.execute("COMMIT")
            return  # another process upgraded it while this one waited
        present = {(r[0], r[1]) for r in conn.execute("SELECT type, name FROM sqlite_master")}
        for kind, name in _FTS_OBJECTS:
            if (kind, name) in present:
                conn.execute(f"DROP {kind.upper()} {name}")
        for statement in _FTS_SCHEMA:
            conn.execute(statement)
        for statement in _MEMORY_INDEXES.strip().splitlines():
            conn.execute(statement)
        _rebuild_banked(conn)
        conn.execute("DELETE FROM fts_dirs")
        conn.execute("DELETE FROM meta WHERE key >= 'fts_files:' AND key < 'fts_files:\uffff'")
        conn.execute("DELETE FROM meta WHERE key = 'fts_ghosts'")
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    try:
        conn.execute("VACUUM")
    except sqlite3.OperationalError as exc:  # another connection in a transaction: the pages are reused instead
        log_error("index", f"VACUUM after the upgrade skipped: {exc}")


def _rebuild_banked(conn: sqlite3.Connection) -> None:
    """An older index's banked keys moved into the WITHOUT ROWID table, every row kept."""
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'banked'").fetchone()
    if sql is None or "WITHOUT ROWID" in sql[0].upper():
        return
    conn.execute("ALTER TABLE banked RENAME TO banked_old")
    conn.execute(_BANKED)
    conn.execute(
        "INSERT INTO banked (turn_key, project, file, banked_at, revision) "
        "SELECT turn_key, project, file, banked_at, revision FROM banked_old"
    )
    conn.execute("DROP TABLE banked_old")


def recover_banked_keys(conn: sqlite3.Connection, home: Home) -> int:
    """Re-learn which turns are banked from the bank entries themselves (index lost or new)."""
    from automem.markdown import frontmatter_value

    count = 0
    for project in home.projects():
        bank = project.bank_dir
        if not bank.is_dir():
            continue
        for entry in bank.glob("*.md"):
            key = frontmatter_value(entry, "turn_key")
            if key:
                conn.execute(
                    "INSERT OR IGNORE INTO banked (turn_key, project, file, banked_at) VALUES (?, ?, ?, ?)",
                    (key, project.slug, str(entry.relative_to(project.dir)), entry.stat().st_mtime),
                )
                count += 1
    return count

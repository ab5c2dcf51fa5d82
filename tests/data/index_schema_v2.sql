-- index.db as automem wrote it at schema version 2 (fts_mem and fts_text kept their own copy of the text)
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
CREATE INDEX IF NOT EXISTS fts_docs_mem_recent ON fts_docs (project, status, promoted, last_seen) WHERE kind = 'memory';
CREATE INDEX IF NOT EXISTS fts_docs_mem_seen ON fts_docs (project, status, promoted, seen) WHERE kind = 'memory';

"""An FTS5 table held in memory (no file): what dedupe ranks candidate memories with.

Only index/ speaks SQL; extract/dedupe.py adds texts and asks which rows match, best first.
"""

from __future__ import annotations

import sqlite3


class ScratchIndex:
    """One FTS5 table (``unicode61`` tokens) in an in-memory database, rows numbered by the caller."""

    def __init__(self) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61')")

    def add(self, rowid: int, body: str) -> None:
        self.db.execute("INSERT INTO docs(rowid, body) VALUES (?, ?)", (rowid, body))

    def match(self, expr: str, limit: int) -> list[int]:
        """The rows matching an FTS5 expression, best ranked first."""
        rows = self.db.execute("SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT ?", (expr, limit))
        return [row[0] for row in rows.fetchall()]

"""Antigravity: ``~/.gemini/antigravity-cli/conversation_summaries.db`` plus ``history.jsonl``.

Antigravity keeps no readable per-turn transcript, so each conversation is one Turn: its title,
its first prompt, and a result made of the step count, the last activity and up to the last 20
prompts. The turn id is the conversation id, so the bank entry keeps its key; ``revision``
(step count + last modified) changes when the entry must be rewritten in place. The entry is
dated by the first prompt (``started_at``). Child conversations and conversations without a
workspace folder are skipped; ``since`` skips conversations last modified before a backfill window.

No real file was available: the schema below is modelled on a written description of it and kept
tolerant (columns are found by name, unknown ones ignored):

    conversation_summaries(conversation_id TEXT PRIMARY KEY, title TEXT, first_prompt TEXT,
        step_count INTEGER, created_at TEXT, last_modified TEXT, workspace_folder TEXT,
        parent_conversation_id TEXT)
    history.jsonl: {"conversation_id": str, "prompt": str, "timestamp": ISO str} per line
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Iterator, Mapping
from pathlib import Path
from urllib.parse import unquote, urlparse

from automem.harness.base import env_home, iter_records
from automem.harness.model import PROMPT_CAP, Turn, cap
from automem.isotime import iso_utc

HARNESS = "antigravity"
LAST_PROMPTS = 20

_COLUMNS = {
    "id": ("conversation_id", "id", "cascade_id"),
    "title": ("title", "summary"),
    "first_prompt": ("first_prompt", "first_user_prompt"),
    "steps": ("step_count", "num_steps", "steps"),
    "created": ("created_at", "created", "first_prompt_at"),
    "modified": ("last_modified", "last_modified_at", "updated_at", "modified_at"),
    "workspace": ("workspace_folder", "workspace", "workspace_uri"),
    "parent": ("parent_conversation_id", "parent_id", "parent"),
}


def _folder(value: str | None) -> str | None:
    if not value:
        return None
    if value.startswith("file://"):
        return unquote(urlparse(value).path) or None
    return value


def _history(path: Path) -> dict[str, deque]:
    prompts: dict[str, deque] = {}
    if not path.is_file():
        return prompts
    for _, _, record in iter_records(path):
        if not isinstance(record, dict):
            continue
        conv = record.get("conversation_id") or record.get("conversationId")
        text = record.get("prompt") or record.get("text")
        if not conv or not isinstance(text, str) or not text.strip():
            continue
        prompts.setdefault(str(conv), deque(maxlen=LAST_PROMPTS)).append(
            (iso_utc(record.get("timestamp")), cap(text.strip(), 500))
        )
    return prompts


class AntigravityStream:
    """Iterate one Turn per conversation; ``resume_offset`` stays 0 (the database is re-read)."""

    def __init__(self, db_path: Path, since: str | None = None) -> None:
        self.path = db_path
        self.since = iso_utc(since) if since else None
        self.resume_offset = 0

    def __iter__(self) -> Iterator[Turn]:
        if not self.path.is_file():
            return
        history = _history(self.path.parent / "history.jsonl")
        try:
            conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=2)
        except sqlite3.Error:
            return
        try:
            rows = self._rows(conn)
            for row in rows:
                turn = self._turn(row, history)
                if turn is not None:
                    yield turn
        except sqlite3.Error:
            return
        finally:
            conn.close()

    def _rows(self, conn: sqlite3.Connection) -> list[dict]:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        table = "conversation_summaries" if "conversation_summaries" in tables else (tables[0] if tables else None)
        if table is None:
            return []
        names = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
        pick = {key: next((c for c in options if c in names), None) for key, options in _COLUMNS.items()}
        if pick["id"] is None:
            return []
        cursor = conn.execute(f'SELECT * FROM "{table}"')
        out = []
        for values in cursor:
            raw = dict(zip(names, values, strict=False))
            out.append({key: (raw.get(col) if col else None) for key, col in pick.items()})
        return out

    def _turn(self, row: dict, history: dict[str, deque]) -> Turn | None:
        conv = str(row["id"])
        if row.get("parent"):
            return None
        folder = _folder(row.get("workspace"))
        if not folder:
            return None
        modified = iso_utc(row.get("modified"))
        if self.since and modified and modified < self.since:
            return None
        recent = list(history.get(conv, ()))
        first_prompt = row.get("first_prompt") or (recent[0][1] if recent else "")
        started = iso_utc(row.get("created")) or (recent[0][0] if recent else None) or modified
        steps = row.get("steps") or 0
        lines = [f"{steps} steps; last activity {modified or 'unknown'}."]
        if recent:
            lines.append("")
            lines.append(f"Last {len(recent)} prompts:")
            lines.extend(f"- {' '.join(text.split())[:300]}" for _, text in recent)
        return Turn(
            harness=HARNESS,
            session_id=conv,
            turn_id=conv,
            prompt=cap(str(first_prompt or row.get("title") or ""), PROMPT_CAP),
            answer="\n".join(lines),
            started_at=started,
            ended_at=modified or started,
            cwd=folder,
            finished=True,
            finish_reason="conversation",
            revision=f"{steps}|{modified}",
            title=row.get("title"),
        )


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    _, home = env_home(env)
    return home / ".gemini" / "antigravity-cli"


def discover(env: Mapping[str, str] | None = None) -> list[Path]:
    db = data_dir(env) / "conversation_summaries.db"
    return [db] if db.is_file() else []


def read_turns(
    path: str | Path, start_offset: int = 0, now: float | None = None, since: str | None = None
) -> AntigravityStream:
    return AntigravityStream(Path(path), since=since)

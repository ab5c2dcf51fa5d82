"""Antigravity reader on a database built from the hand-written fixture (schema modelled on the seed)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from automem.harness import READERS, antigravity

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "antigravity"


def _home(tmp_path: Path) -> Path:
    data = tmp_path / ".gemini" / "antigravity-cli"
    data.mkdir(parents=True)
    conn = sqlite3.connect(data / "conversation_summaries.db")
    conn.executescript((FIXTURES / "conversation_summaries.sql").read_text())
    conn.commit()
    conn.close()
    shutil.copy(FIXTURES / "history.jsonl", data / "history.jsonl")
    return data / "conversation_summaries.db"


def test_one_entry_per_top_level_conversation_with_workspace(tmp_path):
    db = _home(tmp_path)
    assert antigravity.discover({"HOME": str(tmp_path)}) == [db]
    turns = {t.turn_id: t for t in antigravity.read_turns(db)}
    # 5 rows: conv-ccc3 is a child, conv-ddd4 has no workspace folder -> 3 entries
    assert sorted(turns) == ["conv-aaa1", "conv-bbb2", "conv-eee5"]
    dark = turns["conv-aaa1"]
    assert dark.finished and dark.turn_key == "antigravity:conv-aaa1:conv-aaa1"
    assert dark.title == "Add dark mode toggle"
    assert dark.prompt == "Add a dark mode toggle to the settings page"
    assert dark.cwd == "/home/dev/webapp"  # file:// URI turned into a path
    assert dark.started_at == "2026-03-01T08:00:00.000Z"  # dated by the first prompt
    assert dark.answer.startswith("14 steps; last activity 2026-03-01T08:40:00.000Z.")
    assert dark.answer.count("\n- ") == 3 and "Use the system preference by default" in dark.answer
    assert dark.revision == "14|2026-03-01T08:40:00.000Z"


def test_revision_changes_when_steps_or_modification_change(tmp_path):
    db = _home(tmp_path)
    before = {t.turn_id: t.revision for t in antigravity.read_turns(db)}
    conn = sqlite3.connect(db)
    conn.execute(
        "UPDATE conversation_summaries SET step_count = 20, last_modified = "
        "'2026-03-05T10:00:00Z' WHERE conversation_id = 'conv-bbb2'"
    )
    conn.commit()
    conn.close()
    after = {t.turn_id: t.revision for t in antigravity.read_turns(db)}
    assert after["conv-bbb2"] != before["conv-bbb2"] and after["conv-aaa1"] == before["conv-aaa1"]


def test_backfill_window_and_missing_files(tmp_path):
    db = _home(tmp_path)
    recent = [t.turn_id for t in antigravity.read_turns(db, since="2026-02-01T00:00:00Z")]
    assert sorted(recent) == ["conv-aaa1", "conv-bbb2"]
    assert list(antigravity.read_turns(tmp_path / "missing.db")) == []
    assert antigravity.discover({"HOME": str(tmp_path / "nobody")}) == []
    assert READERS["antigravity"] is antigravity

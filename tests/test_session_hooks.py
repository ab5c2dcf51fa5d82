"""SessionStart and UserPromptSubmit still give memory while another process writes index.db."""

from __future__ import annotations

import json
import os
import sqlite3

from automem.home import Home
from automem.index.upsert import index_file
from automem.store.memories import Memory, save

CWD = "/home/dev/work/shop-api"


def payload(event: str, **fields) -> dict:
    return {"session_id": "busy-1", "transcript_path": "/tmp/x.jsonl", "cwd": CWD, "hook_event_name": event, **fields}


def test_brief_and_recall_survive_a_busy_index(automem_home, run_hook):
    home = Home.current().ensure()
    project = home.project_for_cwd(CWD)
    indexed = save(
        project,
        Memory(
            type="decision",
            summary="Use pnpm, not npm, for the frontend",
            content="The frontend builds with pnpm; npm breaks the lockfile.",
            status="promoted",
        ),
    )
    index_file(indexed, str(home.root))
    # a writer (a bank pass, a reindex) holds the database while a new memory waits to be indexed
    save(
        project,
        Memory(type="preference", summary="Prefer ruff over flake8 for linting", content="ruff", status="promoted"),
    )
    writer = sqlite3.connect(home.index_db, timeout=0)
    writer.execute("BEGIN IMMEDIATE")
    try:
        start = run_hook("SessionStart", payload("SessionStart", source="startup"))
        prompt = run_hook(
            "UserPromptSubmit", payload("UserPromptSubmit", prompt="should the frontend build use npm or pnpm here?")
        )
    finally:
        writer.rollback()
        writer.close()
    assert start.returncode == 0 and prompt.returncode == 0
    brief = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Use pnpm, not npm, for the frontend" in brief
    log = home.log_file.read_text() if home.log_file.exists() else ""
    assert "database is locked" not in log or "detached sync" in log
    assert os.path.exists(home.index_db)

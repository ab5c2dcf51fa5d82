"""A Codex session end to end through the real hooks: capture, Stop (bank + extract), the next session's brief."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from automem import consent
from automem.bank.passes import backfill
from automem.home import Home, project_slug

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "transcripts" / "codex"
ROLLOUT = next(iter(sorted(CORPUS.rglob("rollout-2025-11-06*.jsonl"))), None) if CORPUS.is_dir() else None
pytestmark = pytest.mark.skipif(ROLLOUT is None, reason="shared corpus not present")


def codex_payload(event: str, session_id: str, cwd: str, **fields) -> dict:
    """HARNESSES.md section 5: Claude-compatible fields plus turn_id; transcript_path may be null."""
    return {
        "session_id": session_id,
        "transcript_path": None,
        "cwd": cwd,
        "hook_event_name": event,
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "turn_id": "turn-1",
        **fields,
    }


def test_codex_stop_banks_and_extracts_into_the_sessions_project(automem_home, run_hook, tmp_path):
    user = Path(os.environ["HOME"])
    home = Home.current().ensure()
    consent.write(home.root, "yes")
    backfill(3650, home, harnesses=["codex"])  # the corpus session is older than the default 30-day window
    target = user / ".codex" / "sessions" / "2025" / "11" / "06" / ROLLOUT.name
    target.parent.mkdir(parents=True)
    shutil.copy(ROLLOUT, target)
    meta = json.loads(target.read_text(encoding="utf-8").splitlines()[0])["payload"]
    session_id, cwd = meta["id"], meta["cwd"]

    pre = run_hook(
        "PreToolUse",
        codex_payload("PreToolUse", session_id, cwd, tool_name="Bash", tool_input={"command": "pytest -q"}),
        args=("--harness", "codex"),
    )
    assert (pre.returncode, pre.stdout) == (0, b"")
    stop = run_hook(
        "Stop",
        codex_payload("Stop", session_id, cwd, stop_hook_active=False, last_assistant_message="Done."),
        args=("--harness", "codex"),
    )
    assert stop.returncode == 0

    project = home.root / "projects" / project_slug(cwd)
    deadline = time.time() + 90  # a detached worker on a busy 2-core machine
    while time.time() < deadline and not list(project.glob("memories/*.md")):
        time.sleep(0.2)
    entries = list(project.glob("bank/*.md"))
    assert entries and all('harness: "codex"' in p.read_text() for p in entries)
    assert list(project.glob("memories/*.md")) or list(home.root.glob("projects/_global/memories/*.md"))
    spool = (home.root / "spool" / f"{session_id}.jsonl").read_text()
    assert '"harness":"codex"' in spool and '"turn_id":"turn-1"' in spool

    # the next Stop tells the user what was stored; the next session starts with a brief of this project
    deadline = time.time() + 30
    message = ""
    while time.time() < deadline and "automem: stored" not in message:
        out = run_hook(
            "Stop", codex_payload("Stop", session_id, cwd, stop_hook_active=False), args=("--harness", "codex")
        )
        message = json.loads(out.stdout or b"{}").get("systemMessage", "")
        if "automem: stored" not in message:
            time.sleep(0.5)
    assert "automem: stored" in message
    start = run_hook(
        "SessionStart",
        codex_payload("SessionStart", "next-session", cwd, source="startup"),
        args=("--harness", "codex"),
    )
    brief = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert project_slug(cwd) in brief and "<automem-memory" in brief

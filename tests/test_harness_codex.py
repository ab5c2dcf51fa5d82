"""Codex reader on real rollouts (envelope, 0.5x envelope without task events, legacy), counted by hand."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from automem.harness import codex

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "transcripts"
CODEX = CORPUS / "codex"
needs_corpus = pytest.mark.skipif(not CODEX.is_dir(), reason="shared corpus not available")

IDAHO = CODEX / "idaho-vault" / "sessions" / "2026" / "04" / "19" / "rollout-2026-04-19T22-04-58-019da910-1d2d-7883-b552-6e3adf8a4ed9.jsonl"
LOTTO = CODEX / "lotto645" / "sessions" / "2025" / "11" / "06" / "rollout-2025-11-06T15-44-45-019a57e9-1a14-75b1-b49d-ef2792f0fb5e.jsonl"
LEGACY = CODEX / "codex-session-viewer" / "legacy-2025-09-10-cf4def41.jsonl"


def _read(path: Path, quiet: bool):
    stream = codex.read_turns(path, now=os.stat(path).st_mtime + (3600 if quiet else 10))
    return list(stream), stream


@needs_corpus
def test_task_complete_ends_turns_and_turn_aborted_is_never_banked():
    # Counted by hand: 6 event_msg/task_started (lines 2, 16, 34, 118, 179, 265), 5 task_complete and
    # one turn_aborted (line 15) for the first task ("Hello!"). Quiet time does not matter for Codex.
    turns, stream = _read(IDAHO, quiet=True)
    assert len(turns) == 6
    aborted = turns[0]
    assert aborted.prompt == "Hello!" and not aborted.finished
    assert aborted.finish_reason == "turn_aborted" and aborted.interrupted and aborted.settled
    finished = [t for t in turns if t.finished]
    assert len(finished) == 5
    assert [t.prompt.split()[0] for t in finished] == ["Close", "Yes!", "Thank", "As", "find"]
    assert {t.finish_reason for t in finished} == {"task_complete"}
    assert finished[0].turn_id == "019da910-d285-71c3-b2bd-54428f8e7a79"
    assert finished[0].session_id == "019da910-1d2d-7883-b552-6e3adf8a4ed9"
    assert finished[0].cwd == "C:\\Users\\loganf"
    # exit codes from exec_command_end: the first shell call timed out (124); the PATH turn had two 1s
    assert finished[0].actions[0].exit_code == 124
    assert [a.exit_code for a in finished[1].actions].count(1) == 3
    assert finished[1].answer.startswith("Fixed!")
    assert finished[4].answer is None and finished[4].actions == []  # 429 error, then task_complete
    assert stream.resume_offset == os.path.getsize(IDAHO)


@needs_corpus
def test_open_task_waits_for_task_complete_even_when_quiet(tmp_path):
    lines = IDAHO.read_bytes().splitlines(keepends=True)
    cut = tmp_path / IDAHO.name
    cut.write_bytes(b"".join(lines[:100]))  # inside the "Yes! Specifically…" task, after its tool calls
    turns, stream = _read(cut, quiet=True)
    assert [t.finished for t in turns] == [False, True, False]
    assert turns[2].finish_reason == "open"
    assert stream.resume_offset == turns[2].start_offset
    week = codex.read_turns(cut, now=os.stat(cut).st_mtime + 8 * 86400)
    dropped = list(week)[-1]
    assert dropped.finish_reason == "dropped" and not dropped.finished and week.resume_offset == cut.stat().st_size


@needs_corpus
def test_rollout_without_task_events_ends_turns_at_next_prompt():
    # 0.55 envelope: 7 event_msg/user_message and no task_started/task_complete at all.
    turns, _ = _read(LOTTO, quiet=False)
    assert len(turns) == 7
    assert [t.finished for t in turns] == [True] * 6 + [False]
    assert turns[5].prompt.startswith("i did 'npm install'")
    quiet, _ = _read(LOTTO, quiet=True)
    assert sum(t.finished for t in quiet) == 7 and quiet[-1].finish_reason == "quiet"
    plans = [t for t in quiet if t.todos]
    assert plans and all({"content", "status"} == set(step) for step in plans[0].todos)


@needs_corpus
def test_legacy_format_without_envelope():
    # Counted by hand: 47 bare {"type":"message","role":"user"} lines; the first two are injected
    # context (<user_instructions>, <environment_context>), leaving 45 prompts.
    turns, _ = _read(LEGACY, quiet=True)
    assert len(turns) == 45 and all(t.finished for t in turns)
    assert turns[0].prompt.startswith("What's the next task I should work on?")
    assert turns[-1].prompt == "add it as a task via task-master"
    assert turns[0].session_id == "cf4def41-21e0-4b91-adb4-5397c1492084"
    assert turns[0].cwd == "/home/user/projects/codex-session-viewer"
    shells = [a for t in turns for a in t.actions if a.name == "shell" and a.exit_code is not None]
    assert shells and any(a.exit_code == 0 for a in shells)
    assert len({t.turn_key for t in turns}) == 45  # repeated prompt texts still get distinct keys


def test_subagent_thread_is_skipped(tmp_path):
    path = tmp_path / "rollout-2026-01-01T00-00-00-019a0000-0000-7000-8000-000000000001.jsonl"
    rows = [
        {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "019a0000-0000-7000-8000-000000000001", "cwd": "/w", "source": {"subagent": "review"}}},
        {"timestamp": "2026-01-01T00:00:01Z", "type": "event_msg", "payload": {"type": "task_started", "turn_id": "t1"}},
        {"timestamp": "2026-01-01T00:00:01Z", "type": "event_msg", "payload": {"type": "user_message", "message": "review this diff"}},
        {"timestamp": "2026-01-01T00:00:09Z", "type": "event_msg", "payload": {"type": "task_complete", "turn_id": "t1", "last_agent_message": "Looks fine."}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert list(codex.read_turns(path, now=0)) == []
    main = tmp_path / "rollout-main.jsonl"
    rows[0]["payload"]["source"] = "cli"
    main.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (turn,) = list(codex.read_turns(main, now=0))
    assert turn.finished and turn.answer == "Looks fine." and turn.turn_key == "codex:019a0000-0000-7000-8000-000000000001:t1"


@needs_corpus
def test_discovery_sessions_and_archived(tmp_path):
    home = tmp_path / "codexhome"
    (home / "sessions" / "2026" / "04" / "19").mkdir(parents=True)
    (home / "archived_sessions").mkdir()
    shutil.copy(IDAHO, home / "sessions" / "2026" / "04" / "19" / IDAHO.name)
    shutil.copy(LOTTO, home / "archived_sessions" / LOTTO.name)
    (home / "sessions" / "notes.jsonl").write_text("{}\n")
    found = codex.discover({"HOME": str(tmp_path), "CODEX_HOME": str(home)})
    assert sorted(p.name for p in found) == sorted([IDAHO.name, LOTTO.name])
    assert codex.discover({"HOME": str(tmp_path / "nobody")}) == []

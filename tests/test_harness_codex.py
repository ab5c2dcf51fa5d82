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

IDAHO = (
    CODEX
    / "idaho-vault"
    / "sessions"
    / "2026"
    / "04"
    / "19"
    / "rollout-2026-04-19T22-04-58-019da910-1d2d-7883-b552-6e3adf8a4ed9.jsonl"
)
LOTTO = (
    CODEX
    / "lotto645"
    / "sessions"
    / "2025"
    / "11"
    / "06"
    / "rollout-2025-11-06T15-44-45-019a57e9-1a14-75b1-b49d-ef2792f0fb5e.jsonl"
)
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
        {
            "timestamp": "2026-01-01T00:00:00Z",
            "type": "session_meta",
            "payload": {"id": "019a0000-0000-7000-8000-000000000001", "cwd": "/w", "source": {"subagent": "review"}},
        },
        {
            "timestamp": "2026-01-01T00:00:01Z",
            "type": "event_msg",
            "payload": {"type": "task_started", "turn_id": "t1"},
        },
        {
            "timestamp": "2026-01-01T00:00:01Z",
            "type": "event_msg",
            "payload": {"type": "user_message", "message": "review this diff"},
        },
        {
            "timestamp": "2026-01-01T00:00:09Z",
            "type": "event_msg",
            "payload": {"type": "task_complete", "turn_id": "t1", "last_agent_message": "Looks fine."},
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert list(codex.read_turns(path, now=0)) == []
    main = tmp_path / "rollout-main.jsonl"
    rows[0]["payload"]["source"] = "cli"
    main.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (turn,) = list(codex.read_turns(main, now=0))
    assert (
        turn.finished
        and turn.answer == "Looks fine."
        and turn.turn_key == "codex:019a0000-0000-7000-8000-000000000001:t1"
    )


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


def _rollout_0171(path, turns):
    """A rollout shaped like Codex 0.171 writes them (not copied from one): no user_message event,
    the prompt only in response_item and item_completed/UserMessage, exec_command {"cmd"}, results with a
    "Chunk ID / Wall time / Process exited with code N" header and an item_completed/CommandExecution."""
    sid = "019f0000-0000-7000-8000-000000000171"
    lines = [
        {
            "type": "session_meta",
            "ordinal": 0,
            "timestamp": "2026-11-30T10:00:00.000Z",
            "payload": {
                "id": sid,
                "session_id": sid,
                "cwd": "/w/app",
                "originator": "codex_exec",
                "thread_source": "exec",
                "runtime_workspace_roots": ["/w/app"],
            },
        },
        {"type": "event_msg", "ordinal": 1, "payload": {"type": "thread_settings_applied"}},
    ]
    n = 2
    for t, (prompt, calls) in enumerate(turns):
        tid = f"turn-{t}"
        ts = f"2026-11-30T10:{t:02d}:00.000Z"
        lines += [
            {"type": "event_msg", "ordinal": n, "timestamp": ts, "payload": {"type": "task_started", "turn_id": tid}},
            {
                "type": "response_item",
                "ordinal": n + 1,
                "timestamp": ts,
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": prompt}],
                    "internal_chat_message_metadata_passthrough": {"turn_id": tid},
                },
            },
            {
                "type": "event_msg",
                "ordinal": n + 2,
                "timestamp": ts,
                "payload": {
                    "type": "item_completed",
                    "item": {"type": "UserMessage", "turn_id": tid, "content": [{"type": "text", "text": prompt}]},
                },
            },
        ]
        n += 3
        for c, (cmd, code, out) in enumerate(calls):
            call = f"call-{t}-{c}"
            lines += [
                {
                    "type": "response_item",
                    "ordinal": n,
                    "timestamp": ts,
                    "payload": {
                        "type": "function_call",
                        "name": "exec_command",
                        "call_id": call,
                        "arguments": json.dumps({"cmd": cmd}),
                    },
                },
                {
                    "type": "response_item",
                    "ordinal": n + 1,
                    "timestamp": ts,
                    "payload": {
                        "type": "function_call_output",
                        "call_id": call,
                        "output": f"Chunk ID: c{c}\nWall time: 0.4 seconds\nProcess exited with code {code}\n"
                        f"Original token count: 12\nOutput:\n{out}",
                    },
                },
                {
                    "type": "event_msg",
                    "ordinal": n + 2,
                    "timestamp": ts,
                    "payload": {
                        "type": "item_completed",
                        "item": {
                            "type": "CommandExecution",
                            "id": call,
                            "command": cmd.split(),
                            "exit_code": code,
                            "status": "failed" if code else "completed",
                            "aggregated_output": out,
                        },
                    },
                },
                {"type": "world_state", "ordinal": n + 3, "payload": {}},
                {"type": "token_usage_record", "ordinal": n + 4, "payload": {}},
            ]
            n += 5
        lines.append(
            {
                "type": "event_msg",
                "ordinal": n,
                "timestamp": ts,
                "payload": {"type": "task_complete", "turn_id": tid, "last_agent_message": "Done: the tests pass now."},
            }
        )
        n += 1
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_codex_0171_rollouts_bank_every_turn_with_its_prompt_and_yield_the_repeated_error(tmp_path, automem_home):
    from automem import consent
    from automem.extract.pipeline import extract
    from automem.harness.codex import read_turns
    from automem.home import Home

    failing = ("pytest -q", 1, "E   ModuleNotFoundError: No module named 'shop'\n")
    path = _rollout_0171(
        tmp_path / "rollout-2026-11-30T10-00-00-019f0000-0000-7000-8000-000000000171.jsonl",
        [
            ("run the tests", [failing, failing, ("PYTHONPATH=src pytest -q", 0, "3 passed\n")]),
            ("now lint", [("ruff check .", 0, "All checks passed!\n")]),
        ],
    )
    turns = list(read_turns(path, now=2e9))
    assert [t.prompt for t in turns] == ["run the tests", "now lint"] and all(t.finished for t in turns)
    first = turns[0]
    assert [(a.exit_code, a.is_error) for a in first.actions] == [(1, True), (1, True), (0, False)]
    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    result = extract(Home(automem_home), transcript=path, harness="codex")
    assert any(m.type == "pattern" and m.summary.startswith("pytest needs PYTHONPATH=src here") for m in result.stored)

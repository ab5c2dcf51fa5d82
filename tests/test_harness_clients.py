"""Readers on transcripts the real clients wrote in the e2e run (tests/data/clients/, refreshed by
tests/e2e/refresh_fixtures.py): Claude Code 2.1.332 print mode, Codex 0.171.0 ``codex exec``, pi 0.73.1 ``pi -p``,
omp 18.2.3 ``omp -p``."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from automem import consent
from automem.extract.turns import guess_harness
from automem.harness import claude_code, codex, omp, pi
from automem.home import Home

DATA = Path(__file__).parent / "data" / "clients"
CLAUDE = DATA / "claude-code"
CODEX = DATA / "codex"
PI = DATA / "pi"
OMP = DATA / "omp"
PROMPT = "Run the project check. Use pnpm, not npm, in this repo."


def _actions(turn):
    return [(a.input_summary, a.exit_code, a.is_error) for a in turn.actions]


def test_claude_print_mode_turn_has_no_turn_duration_and_stays_open_without_stop():
    path = CLAUDE / "failing-check-then-fix.jsonl"
    assert '"turn_duration"' not in path.read_text()
    (turn,) = claude_code.read_turns(path, now=path.stat().st_mtime + 1)
    assert not turn.finished and turn.finish_reason == "open"
    assert turn.prompt == PROMPT and turn.answer.startswith("Done: check.py passes")


def test_claude_print_mode_turn_is_finished_by_the_stop_signal():
    (turn,) = claude_code.read_turns(CLAUDE / "failing-check-then-fix.jsonl", stopped=True)
    assert turn.finished and turn.finish_reason == "stop"
    assert turn.prompt == PROMPT
    assert [(a.name, a.exit_code, a.is_error) for a in turn.actions] == [
        ("Bash", 1, True),
        ("Bash", 1, True),
        ("Bash", 0, False),
    ]
    assert "APP_MODE is not set" in turn.actions[0].result_text


@pytest.mark.parametrize(
    "name, prompt, tool",
    [
        ("next-session.jsonl", "Hello again.", None),
        ("mcp-tool-call.jsonl", "Please search your memory for pnpm.", "mcp__automem__memory_search"),
        ("slash-command.jsonl", "/memory-status", None),
    ],
)
def test_claude_other_sessions_read_as_one_turn(name, prompt, tool):
    (turn,) = claude_code.read_turns(CLAUDE / name, stopped=True)
    assert turn.finished and turn.prompt == prompt and turn.answer == "Noted."
    assert [a.name for a in turn.actions] == ([tool] if tool else [])


def test_claude_next_session_transcript_records_the_brief():
    text = (CLAUDE / "next-session.jsonl").read_text()
    assert "<automem-memory" in text and "Use pnpm, not npm" in text


def test_codex_0171_rollout_reads_prompt_failures_and_fix():
    path = CODEX / "failing-check-then-fix.jsonl"
    meta = json.loads(path.read_text().splitlines()[0])
    assert meta["type"] == "session_meta" and meta["payload"]["cli_version"] == "0.171.0"
    (turn,) = codex.read_turns(path)
    assert turn.finished and turn.finish_reason == "task_complete"
    assert turn.prompt == PROMPT and turn.answer.startswith("Done: check.py passes")
    assert _actions(turn) == [
        ("python3 check.py", 1, True),
        ("python3 check.py", 1, True),
        ("APP_MODE=test python3 check.py", 0, False),
    ]


def test_codex_0171_next_session_reads():
    (turn,) = codex.read_turns(CODEX / "next-session.jsonl")
    assert turn.finished and turn.prompt == "Hello again." and turn.answer == "Noted."


def test_pi_0731_session_reads_prompt_failures_and_fix():
    path = PI / "failing-check-then-fix.jsonl"
    assert json.loads(path.read_text().splitlines()[0])["type"] == "session"
    (turn,) = pi.read_turns(path)
    assert turn.finished and turn.prompt == PROMPT and turn.answer.startswith("Done: check.py passes")
    assert [(a.input_summary, a.is_error) for a in turn.actions] == [
        ("python3 check.py", True),
        ("python3 check.py", True),
        ("APP_MODE=test python3 check.py", False),
    ]
    assert [a.exit_code for a in turn.actions[:2]] == [1, 1]


def _omp_lines() -> list[str]:
    return (OMP / "failing-check-then-fix.jsonl").read_text().splitlines(keepends=True)


def test_omp_1823_session_reads_prompt_failures_and_fix():
    path = OMP / "failing-check-then-fix.jsonl"
    first, second = (json.loads(line) for line in _omp_lines()[:2])
    assert first["type"] == "title" and second["type"] == "session"  # the title slot comes before the header
    (turn,) = omp.read_turns(path)
    assert turn.finished and turn.finish_reason == "stop" and turn.harness == "omp"
    assert turn.prompt == PROMPT and turn.answer.startswith("Done: check.py passes")
    assert turn.session_id == second["id"] and turn.cwd == "/home/user/e2e/project"
    assert turn.model == "loopback/claude-loopback"
    assert [(a.input_summary, a.is_error) for a in turn.actions] == [
        ("python3 check.py", True),
        ("python3 check.py", True),
        ("APP_MODE=test python3 check.py", False),
    ]
    assert [a.exit_code for a in turn.actions[:2]] == [1, 1]
    assert guess_harness(path) == "omp" and guess_harness(PI / "failing-check-then-fix.jsonl") == "pi"


def test_omp_read_from_mid_file_still_knows_the_header_on_line_two(tmp_path):
    lines = _omp_lines()
    header = json.loads(lines[1])
    path = tmp_path / "session.jsonl"  # a name without the session id: only the header can give it
    path.write_text(
        "".join(lines) + lines[4].replace("Run the project check. Use pnpm, not npm, in this repo.", "And the linter?")
    )
    start = len("".join(lines).encode())
    (turn,) = omp.read_turns(path, start_offset=start, now=path.stat().st_mtime + 1)
    assert turn.prompt == "And the linter?" and not turn.finished
    assert turn.session_id == header["id"] and turn.cwd == "/home/user/e2e/project"


def test_omp_title_slot_rewritten_in_place_titles_the_turns(tmp_path):
    lines = _omp_lines()
    slot = json.loads(lines[0])
    before = len(lines[0].encode())
    slot["title"], slot["source"] = "Project check", "auto"
    slot["pad"] = ""
    line = json.dumps(slot, separators=(",", ":"))
    slot["pad"] = " " * (before - 1 - len(line.encode()))  # omp keeps the slot at one width
    lines[0] = json.dumps(slot, separators=(",", ":")) + "\n"
    assert len(lines[0].encode()) == before
    path = tmp_path / "session.jsonl"
    path.write_text("".join(lines))
    (turn,) = omp.read_turns(path)
    assert turn.title == "Project check" and turn.prompt == PROMPT


def test_omp_agent_attributed_user_messages_are_not_prompts(tmp_path):
    lines = _omp_lines()
    user = json.loads(lines[4])
    notice = dict(
        user,
        message=dict(
            user["message"],
            attribution="agent",
            content=[{"type": "text", "text": "Continue. Do not ask for confirmation."}],
        ),
    )
    agent_line = json.dumps(notice) + "\n"
    # one mid-turn (after the first tool result), one after the turn stopped, followed by the agent's work on it
    path = tmp_path / "session.jsonl"
    path.write_text("".join(lines[:8]) + agent_line + "".join(lines[8:]) + agent_line + "".join(lines[5:8]))
    first, second = omp.read_turns(path, now=path.stat().st_mtime + 1)
    assert first.prompt == PROMPT and first.finished and len(first.actions) == 3
    assert second.prompt == "" and [a.input_summary for a in second.actions] == ["python3 check.py"]
    # pi, which has no such attribution, reads each of them as a prompt
    assert [t.prompt for t in pi.read_turns(path, now=path.stat().st_mtime + 1)][1:] == [
        "Continue. Do not ask for confirmation.",
        "Continue. Do not ask for confirmation.",
    ]


# ---------------------------------------------------------------- through the real Stop hook


def _session_of(path: Path) -> tuple[str, str]:
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record.get("sessionId") and record.get("cwd"):
            return record["sessionId"], record["cwd"]
    raise AssertionError("no session id")


def _wait(predicate, deadline_s: float = 90.0):
    deadline = time.monotonic() + deadline_s
    while not predicate():
        assert time.monotonic() < deadline, "the detached worker did not finish"
        time.sleep(0.1)


def _worker_done(home: Home, session_id: str) -> bool:
    from automem.extract.trigger import worker_running

    return not worker_running(str(home.root), session_id)


@pytest.mark.parametrize("active", [False, True])
def test_claude_print_mode_turn_is_banked_at_stop(automem_home, run_hook, active):
    home = Home.current().ensure()
    consent.write(home.root, "yes")
    source = CLAUDE / "failing-check-then-fix.jsonl"
    session_id, cwd = _session_of(source)
    target = Path(os.environ["HOME"]) / ".claude" / "projects" / "-home-user-e2e-project" / f"{session_id}.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copy(source, target)
    payload = {
        "session_id": session_id,
        "transcript_path": str(target),
        "cwd": cwd,
        "hook_event_name": "Stop",
        "permission_mode": "bypassPermissions",
        "stop_hook_active": active,
        "last_assistant_message": "Done: check.py passes with APP_MODE=test.",
    }
    assert run_hook("Stop", payload).returncode == 0
    banked = lambda: list(home.root.glob("projects/*/bank/*.md"))  # noqa: E731
    if active:  # a Stop hook keeps the turn going: it is not over, so not banked yet
        _wait(lambda: _worker_done(home, session_id))
        assert banked() == []
        return
    _wait(banked)
    text = banked()[0].read_text()
    assert PROMPT in text and 'harness: "claude-code"' in text


def test_codex_0171_rollout_banks_with_its_prompt_and_yields_the_repeated_error(automem_home, run_hook):
    home = Home.current().ensure()
    consent.write(home.root, "yes")
    source = CODEX / "failing-check-then-fix.jsonl"
    meta = json.loads(source.read_text().splitlines()[0])["payload"]
    target = Path(os.environ["HOME"]) / ".codex" / "sessions" / "2026" / "12" / "01" / f"rollout-{meta['id']}.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copy(source, target)
    payload = {
        "session_id": meta["id"],
        "transcript_path": str(target),
        "cwd": meta["cwd"],
        "hook_event_name": "Stop",
        "model": "gpt-5.5",
        "turn_id": "t1",
        "stop_hook_active": False,
        "last_assistant_message": "Done: check.py passes with APP_MODE=test.",
    }
    assert run_hook("Stop", payload, args=("--harness", "codex")).returncode == 0
    memories = lambda: [p.read_text() for p in home.root.glob("projects/*/memories/*.md")]  # noqa: E731
    _wait(lambda: any("APP_MODE" in m for m in memories()))
    _wait(lambda: _worker_done(home, meta["id"]))
    entries = [p.read_text() for p in home.root.glob("projects/*/bank/*.md")]
    assert len(entries) == 1 and PROMPT in entries[0] and "Untitled turn" not in entries[0]
    lesson = [m for m in memories() if "APP_MODE" in m]
    assert any('rule: "repeated_error_rule"' in m or 'rule: "verified_fix_rule"' in m for m in lesson), lesson

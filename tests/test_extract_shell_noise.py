"""Codex shell calls: what the shell prints before every command is no error, and a program found only through the
project's environment under another spelling is a project lesson. Each case is a small rollout written here."""

from __future__ import annotations

import json
from pathlib import Path

from automem.extract.rules import Session, find_candidates
from automem.extract.steps import steps_from_turns
from automem.extract.turns import guess_harness, read_all_turns

NOISE = "/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted\n"


def _rollout(tmp_path: Path, calls: list[tuple[str, str, int]]) -> Path:
    lines = [
        {"type": "session_meta", "payload": {"id": "s1", "cwd": "/Users/ann/code/tool", "cli_version": "0.63.0"}},
        {"type": "event_msg", "payload": {"type": "task_started", "turn_id": "t1"}},
        {"type": "event_msg", "payload": {"type": "user_message", "message": "run the tests and fix what fails"}},
    ]
    for n, (cmd, out, code) in enumerate(calls):
        args = json.dumps({"command": cmd, "workdir": "/Users/ann/code/tool"})
        lines.append(
            {
                "type": "response_item",
                "payload": {"type": "function_call", "name": "shell_command", "arguments": args, "call_id": f"c{n}"},
            }
        )
        output = f"Exit code: {code}\nWall time: 0.2 seconds\nOutput:\n{out}"
        lines.append(
            {"type": "response_item", "payload": {"type": "function_call_output", "call_id": f"c{n}", "output": output}}
        )
    lines.append({"type": "event_msg", "payload": {"type": "task_complete", "turn_id": "t1"}})
    path = tmp_path / "rollout-2026-01-01T00-00-00-s1.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def _candidates(path: Path):
    steps = steps_from_turns(read_all_turns(str(path), guess_harness(path)))
    return find_candidates(Session(steps, root="/Users/ann/code/tool"))


def test_the_line_every_call_prints_is_not_the_error(tmp_path):
    calls = [
        ("ls", NOISE + "README.md\nvenv\n", 0),
        ("cat README.md", NOISE + "# tool\n", 0),
        ("pytest -q", NOISE + "zsh:1: command not found: pytest\n", 127),
        ("python -m pytest -q", NOISE + "/usr/bin/python: No module named pytest\n", 1),
        ("venv/bin/python -m pytest -q", NOISE + "4 passed in 0.2s\n", 0),
    ]
    found = _candidates(_rollout(tmp_path, calls))
    assert found
    for cand in found:
        assert "shellenv" not in cand.content and "/bin/ps" not in cand.content, cand.content


def test_a_respelling_found_through_the_projects_environment_is_a_project_lesson(tmp_path):
    calls = [
        ("ls", "README.md\nvenv\n", 0),
        ("pytest -q", "zsh:1: command not found: pytest\n", 127),
        ("python -m pytest -q", "/usr/bin/python: No module named pytest\n", 1),
        ("venv/bin/python -m pytest -q", "4 passed in 0.2s\n", 0),
    ]
    summaries = [c.summary for c in _candidates(_rollout(tmp_path, calls))]
    assert "pytest is not on the PATH in this project; run it as `venv/bin/python -m pytest`" in summaries
    assert not any("use python -m pytest instead" in s for s in summaries), summaries


def test_a_respelling_on_the_path_is_still_a_machine_lesson(tmp_path):
    calls = [("pytest -q", "zsh:1: command not found: pytest\n", 127), ("python3 -m pytest -q", "4 passed\n", 0)]
    summaries = [c.summary for c in _candidates(_rollout(tmp_path, calls))]
    assert any(s.startswith("pytest is not on the PATH on") and "python3 -m pytest" in s for s in summaries), summaries


def test_a_first_line_every_listing_prints_stays_output(tmp_path):
    calls = [
        ("ls -la", "total 0\ndrwx------ 3 ann staff 96 .\n", 0),
        ("ls -la src", "total 0\n-rw-r--r-- 1 ann staff 10 a.py\n", 0),
        ("ls -la build", "total 0\nls: build: No such file or directory\n", 1),
    ]
    steps = steps_from_turns(read_all_turns(str(p := _rollout(tmp_path, calls)), guess_harness(p)))
    assert [s.result_head.split("\n", 1)[0] for s in steps if s.kind == "action"] == ["total 0"] * 3

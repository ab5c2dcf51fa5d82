"""A token passed as a session id (a misconfigured harness, a hostile payload) never lands on disk raw: not in a
file name, not in the spool, the state, the memories or index.db."""

from __future__ import annotations

import time

from automem import consent
from automem.capture.paths import safe_session_id

TOKEN = "ghp_" + "Zq8vR2mX4kL9pT1wB6nY3cH7dF5gJ0sA2eQ4"


def test_a_secret_looking_session_id_is_hashed_and_ordinary_ids_are_kept():
    assert safe_session_id(TOKEN).startswith("sid-") and TOKEN not in safe_session_id(TOKEN)
    for ordinary in ("5c0375b4-53e7-4862-81ae-d0e013e3270b", "019a57e9-1a14-75b1-b49d-ef2792f0fb5e", "session-1"):
        assert safe_session_id(ordinary) == ordinary


def test_a_token_as_session_id_reaches_no_file_through_the_real_hooks(automem_home, tmp_path, run_hook):
    consent.write(automem_home, "yes")
    work = tmp_path / "repo"
    (work / ".git").mkdir(parents=True)
    base = {"session_id": TOKEN, "cwd": str(work), "transcript_path": str(tmp_path / "none.jsonl")}
    events = [
        ("UserPromptSubmit", {"prompt": "Use pnpm, not npm, in this repo."}),
        ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "x"}}),
        ("Stop", {}),
    ]
    for event, extra in events:
        assert run_hook(event, {**base, "hook_event_name": event, **extra}).returncode == 0
    deadline = time.monotonic() + 60
    while not list(automem_home.glob("projects/*/memories/*.md")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(automem_home.glob("projects/*/memories/*.md")), "the Stop worker stored no memory"
    assert run_hook("SessionEnd", {**base, "hook_event_name": "SessionEnd"}).returncode == 0
    time.sleep(0.5)  # SessionEnd's own writes
    for path in automem_home.rglob("*"):
        assert TOKEN not in path.name
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path

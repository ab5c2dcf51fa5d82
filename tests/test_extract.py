"""Session-end auto-memorize end to end: real hook subprocesses, real files, the real corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from automem import consent
from automem.demo import replay, wait_for_worker
from automem.extract.pipeline import extract
from automem.home import Home
from automem.store.memories import list_memories, parse

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "transcripts"

# The answer-key level reached with no model (see the report in the issue); a drop fails the test.
MIN_FOUND_PCT = 44
MIN_MATCHING_PCT = 70


def _env(home: Path, root: Path) -> dict:
    return {**os.environ, "AUTOMEM_HOME": str(home), "HOME": str(root), "AUTOMEM_MODEL": "off"}


def _memories(home: Path) -> list:
    return [parse(p) for p in sorted(home.glob("projects/*/memories/*.md"))]


@pytest.fixture
def replayed(tmp_path: Path, automem_home: Path):
    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    session_id, cwd, outputs = replay(tmp_path, _env(automem_home, tmp_path))
    assert wait_for_worker(automem_home, session_id), "the detached Stop worker never finished"
    return automem_home, session_id, cwd, tmp_path


def test_scripted_session_through_real_hooks_to_memory_files(replayed):
    home, session_id, cwd, _root = replayed
    memories = _memories(home)
    by_type = {m.type: m for m in memories}
    assert set(by_type) == {"pattern", "decision", "preference"}
    pattern = by_type["pattern"]
    assert "ModuleNotFoundError" in pattern.summary and "(2x)" in pattern.summary
    assert "PYTHONPATH=src pytest" in pattern.content  # the call that fixed it
    assert {"auto-memorize", "pattern", "error", "confirmation"} <= set(pattern.tags)
    assert pattern.scope == "project" and pattern.session_id == session_id and pattern.seen == 1
    decision = by_type["decision"]
    assert "pnpm" in decision.summary and "npm" in decision.content
    preference = by_type["preference"]
    assert "imperative" in preference.summary and preference.scope == "global"
    for memory in memories:
        text = memory.path.read_text(encoding="utf-8")
        assert text.startswith("---\n") and "**Why:**" in text and "**How to apply:**" in text
        assert len(memory.summary) <= 120


def test_next_stop_shows_the_stored_line_once(replayed, run_hook):
    home, session_id, cwd, root = replayed
    payload = {"session_id": session_id, "cwd": cwd, "hook_event_name": "Stop"}
    first = run_hook("Stop", payload, _env(home, root))
    message = json.loads(first.stdout)["systemMessage"]
    assert message.startswith("automem: stored 3 new memories: ")
    assert "pnpm" in message
    assert wait_for_worker(home, session_id)
    second = run_hook("Stop", payload, _env(home, root))
    assert not second.stdout.strip() or "stored" not in json.loads(second.stdout).get("systemMessage", "")


def test_second_run_over_the_same_session_stores_nothing_new(replayed):
    home, session_id, cwd, root = replayed
    before = {p: p.read_text() for p in home.glob("projects/*/memories/*.md")}
    os.environ["AUTOMEM_HOME"] = str(home)
    result = extract(Home(home), session_id=session_id, transcript=root / "transcript.jsonl", cwd=cwd)
    assert result.candidates >= 3
    assert result.stored == [] and result.reinforced == []
    assert {p: p.read_text() for p in home.glob("projects/*/memories/*.md")} == before


def test_a_later_session_with_the_same_lesson_reinforces_it(replayed):
    home, session_id, cwd, root = replayed
    result = extract(Home(home), session_id="another-session", transcript=root / "transcript.jsonl", cwd=cwd)
    assert result.stored == []
    assert len(result.reinforced) == 3
    assert all(m.seen == 2 for m in _memories(home))


def test_a_users_memory_is_never_rewritten(tmp_path, automem_home):
    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    home = Home(automem_home)
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    transcript = tmp_path / "t.jsonl"
    from automem.demo import write_transcript

    write_transcript(transcript, str(project))
    from automem.store.memories import Memory, save

    mine = Memory(type="decision", summary="No, don't use npm for the frontend, use pnpm instead",
                  content="The user said: \"No, don't use npm for the frontend, use pnpm instead\"", source="user")
    path = save(home.project_for_cwd(str(project)), mine)
    original = path.read_text()
    result = extract(home, session_id="s1", transcript=transcript)
    assert all("pnpm" not in m.summary for m in result.stored)  # recognised as known...
    assert path.read_text() == original  # ...and left exactly as the user wrote it


SECRETS = ("AKIAQWERTYUIOPASDFGH", "ghp_4f9Qx7LmN2pR8sT1vW3yZ5aB6cD0eF9gH2jK", "hunter2-Sup3r-S3cret-pw")


def test_secrets_planted_in_the_session_appear_nowhere_under_home(tmp_path, automem_home, run_hook):
    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    env = _env(automem_home, tmp_path)
    base = {"session_id": "secret-session", "cwd": str(project)}
    leak = f"aws_access_key_id={SECRETS[0]} token {SECRETS[1]}"
    cmd = f"curl -u admin:{SECRETS[2]} https://example.invalid/api"
    events = [
        ("UserPromptSubmit", {"prompt": f"from now on always use the token {SECRETS[1]} for the api"}),
        ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": cmd},
                         "tool_response": {"stdout": f"Error: connection refused\n{leak}", "exit_code": 7}}),
        ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": cmd},
                         "tool_response": {"stdout": f"Error: connection refused\n{leak}", "exit_code": 7}}),
        ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": cmd + " --retry 3"},
                         "tool_response": {"stdout": "ok", "exit_code": 0}}),
        ("UserPromptSubmit", {"prompt": f"no, don't use curl, use httpx instead; password is {SECRETS[2]}"}),
    ]
    for event, payload in events:
        run_hook(event, {**base, "hook_event_name": event, **payload}, env)
    result = extract(Home(automem_home), session_id="secret-session", cwd=str(project))
    assert result.stored, "the planted session should still yield lessons"
    for path in automem_home.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for secret in SECRETS:
                assert secret.encode() not in data, f"{secret[:6]}… leaked into {path}"


def test_no_consent_extracts_nothing(tmp_path, automem_home):
    automem_home.mkdir(parents=True)
    root = tmp_path
    session_id, cwd, _ = replay(root, _env(automem_home, root))
    result = extract(Home(automem_home), session_id=session_id, transcript=root / "transcript.jsonl", cwd=cwd)
    assert result.skipped.startswith("no consent") and not result.stored
    assert not list(automem_home.glob("projects/*/memories/*.md"))


def _corpus_files() -> list[str]:
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    return [e["file"] for e in manifest if e["file"].endswith(".jsonl") and e["harness"] != "aux"]


@pytest.mark.skipif(not (CORPUS / "manifest.json").exists(), reason="shared corpus not present")
def test_every_real_transcript_extracts_and_the_answer_key_score_holds(tmp_path, automem_home, monkeypatch):
    memories: dict[str, list[str]] = {}
    for index, rel in enumerate(_corpus_files()):
        home = Home(tmp_path / f"h{index}")  # one empty home per transcript, as score_lessons.py asks
        monkeypatch.setenv("AUTOMEM_HOME", str(home.root))
        home.ensure()
        consent.write(home.root, "yes")
        result = extract(home, transcript=CORPUS / rel, use_model=False)
        assert not result.skipped
        memories[rel] = [f"{m.summary}\n{m.content}\n{m.why}\n{m.how_to_apply}" for m in result.stored]
    out = tmp_path / "memories.json"
    out.write_text(json.dumps(memories))
    score = subprocess.run([sys.executable, str(CORPUS / "score_lessons.py"), str(out)],
                           capture_output=True, text=True, check=True).stdout
    first = score.splitlines()[0]
    found = int(first.split("lessons found ")[1].split("(")[1].split("%")[0])
    junk = int(first.split("junk hit ")[1].split("/")[0])
    matching = int(first.split("memories matching a lesson ")[1].split("(")[1].split("%")[0])
    print(first)
    assert junk == 0, score
    assert found >= MIN_FOUND_PCT, score
    assert matching >= MIN_MATCHING_PCT, score

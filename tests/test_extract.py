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
from automem.store.memories import parse

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "transcripts"

# The answer-key level reached with no model (see the report in the issue); a drop fails the test.
MIN_FOUND_PCT = 65
MIN_MATCHING_PCT = 82


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
    # a sentence a reader understands out of context: the command, what it needs, what fails otherwise
    assert pattern.summary == "pytest needs PYTHONPATH=src here: ModuleNotFoundError otherwise"
    assert "PYTHONPATH=src pytest" in pattern.content  # the call that fixed it
    assert "2 times" in pattern.why and "No module named" in pattern.content
    assert {"auto-memorize", "pattern", "error", "confirmation"} <= set(pattern.tags)
    assert pattern.scope == "project" and pattern.session_id == session_id and pattern.seen == 1
    decision = by_type["decision"]
    assert decision.summary == "Use pnpm, not npm, for the frontend"  # the user's "no, don't ..., use ... instead"
    assert "don't use npm" in decision.content  # their own words stay in the body
    preference = by_type["preference"]
    assert preference.summary == "Prefer short commit messages in the imperative mood" and preference.scope == "global"
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


def test_a_forgotten_memory_does_not_come_back(replayed):
    """mem0's most common complaint: forget a lesson, and the next session stores it again."""
    from click.testing import CliRunner

    from automem.cli import cli

    home, session_id, cwd, root = replayed
    decision = next(m for m in _memories(home) if m.type == "decision")
    done = CliRunner().invoke(cli, ["forget", decision.id, "--json"], env={"AUTOMEM_HOME": str(home)},
                              catch_exceptions=False)
    assert done.exit_code == 0, done.output
    result = extract(Home(home), session_id="a-new-session", transcript=root / "transcript.jsonl", cwd=cwd)
    assert decision.summary not in [m.summary for m in result.stored]
    assert decision.summary not in [m.summary for m in _memories(home)]


def test_sessions_extracting_at_once_store_one_memory(tmp_path, automem_home, run_hook):
    """Three sessions state the same preference and their workers run together: one memory, seen three times."""
    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    env = _env(automem_home, tmp_path)
    sessions = [f"par-{i}" for i in range(3)]
    for sid in sessions:
        run_hook("UserPromptSubmit", {"session_id": sid, "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
                                      "prompt": "I prefer short commit messages in the imperative mood."}, env)
    workers = [subprocess.Popen([sys.executable, "-m", "automem.extract.worker", "--no-bank", "--session", sid,
                                 "--cwd", str(tmp_path)], env=env) for sid in sessions]
    assert [w.wait(timeout=120) for w in workers] == [0, 0, 0]
    memories = _memories(automem_home)
    assert len(memories) == 1, [m.summary for m in memories]
    assert memories[0].seen == 3


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


# --- the candidate rules, one small hand-written session each ---------------------------------------

from automem.extract.candidates import (  # noqa: E402
    candidates, error_candidates, feedback_candidates, interactive_candidates, location_statement,
    mapping_candidates, repeated_requests,
)
from automem.extract.steps import Step, steps_from_turns  # noqa: E402
from automem.harness.model import ToolAction, Turn  # noqa: E402


def _fail(cmd: str, line: str, tool: str = "shell", **kw) -> Step:
    return Step("action", tool=tool, input=cmd, ok=False, result_head=line,
                errors=[{"error_type": "generic", "line": line, "signature": line}], **kw)


def _ok(cmd: str, tool: str = "shell", **kw) -> Step:
    return Step("action", tool=tool, input=cmd, ok=True, **kw)


def _prompt(text: str) -> Step:
    return Step("prompt", text=text)


def test_a_rerun_with_an_added_flag_is_an_observation_naming_the_flag():
    steps = [_fail("bash -lc make test", "Error: out of memory in worker"), _ok("bash -lc make test --jobs=1")]
    [cand] = error_candidates(steps)
    assert cand.kind == "observation"
    assert "make test" in cand.summary and "--jobs=1" in cand.summary and "out of memory" in cand.summary
    assert "make test --jobs=1" in cand.content


def test_a_different_command_afterwards_is_not_a_rerun():
    steps = [_fail("make test", "Error: out of memory in worker"), _ok("make lint --fix test")]
    assert error_candidates(steps) == []  # lint is not test run again: no lesson claimed


def test_an_escalated_rerun_of_the_same_command_says_so():
    steps = [_fail("git push origin main", "error: cannot open '.git/config.lock': Operation not permitted"),
             _ok("git push origin main", escalated=True)]
    [cand] = error_candidates(steps)
    assert "escalated permissions" in cand.summary and "Operation not permitted" in cand.summary
    assert len(cand.summary) <= 120


def test_escalation_and_wizard_questions_are_read_from_the_turn():
    wizard = "\x1b[36m?\x1b[39m \x1b[1mUse the new bundler?\x1b[22m \x1b[90m\u203a\x1b[39m No / Yes"
    code = "const mark = isOpen ? '\u203a' : ' ';"
    turn = Turn(harness="codex", session_id="s", turn_id="t", actions=[
        ToolAction(name="shell", input_summary="cp a b", input={"command": ["cp", "a", "b"],
                                                                 "with_escalated_permissions": True}),
        ToolAction(name="shell", input_summary="npm init thing", result_text=wizard, exit_code=0),
        ToolAction(name="Read", input_summary="src/view.ts", result_text=code),
        ToolAction(name="shell", input_summary="setup", result_text="Overwrite the settings? (y/N)", exit_code=0),
    ])
    escalated, wizard_step, file_view, yes_no = steps_from_turns([turn])
    assert escalated.escalated and not wizard_step.escalated
    assert wizard_step.asked == "Use the new bundler?"
    assert file_view.asked == ""  # a ternary in source code is not a question to the user
    assert yes_no.asked == "Overwrite the settings?"


def test_a_command_stopping_at_a_wizard_twice_is_a_pattern_with_what_worked_last():
    steps = [_ok("npx make-widget@latest app", asked="Would you like a src folder?"),
             _ok('echo "" | npx make-widget@latest app --src', asked="Would you like a linter?"),
             _ok('yes "" | npx make-widget@latest app --src --no-lint', asked="Would you like an alias?")]
    [cand] = interactive_candidates(steps)
    assert cand.kind == "pattern" and "npx make-widget" in cand.summary and "interactive prompt" in cand.summary
    assert "(3x)" in cand.summary and "--no-lint" in cand.content
    assert interactive_candidates(steps[:1]) == []  # asked once: nothing learnt yet


def test_where_the_user_says_a_thing_lives_becomes_an_observation():
    assert location_statement("add it there, there is a settings file at conf/app.toml") == (
        "add it there, there is a settings file at conf/app.toml")
    assert location_statement("the notes live in ~/vault/notes") == "the notes live in ~/vault/notes"
    assert location_statement("the bug is in src/app.py") == ""  # a one-off problem, not a place
    assert location_statement("see https://example.org/docs/x.md") == ""
    [cand] = feedback_candidates([_prompt("yes please, the deploy script is in tools/deploy.sh")])
    assert cand.kind == "observation" and "tools/deploy.sh" in cand.summary


def test_a_list_of_arrows_typed_by_the_user_is_a_layout_decision():
    text = "no, like this:\n\nlib -> core/lib\nviews -> ui/views\nhelpers.py, misc.py -> utils/\n\nok?"
    [cand] = mapping_candidates([_prompt(text)])
    assert cand.kind == "decision" and "lib -> core/lib" in cand.summary and "ui/views" in cand.summary
    assert mapping_candidates([_prompt("lib -> core/lib\nviews -> ui/views")]) == []  # two lines: too little
    fenced = "```\na -> b/c\nd -> e/f\ng -> h/i\n```"
    assert mapping_candidates([_prompt(fenced)]) == []  # pasted code, not the user's layout


def test_repeated_requests_skip_questions_and_count_note_taking():
    asks = [_prompt("isn't the parser in the lexer module?"), _prompt("wait, isn't the parser in the lexer module?"),
            _prompt("so isn't the parser in the lexer module?")]
    assert repeated_requests(asks) == []  # the same question thrice is not a way of working
    notes = [_prompt("fix the login page, then note progress in the journal"),
             _prompt("ok, note progress in the journal and go on"),
             _prompt("good. note the progress in the journal")]
    [cand] = repeated_requests(notes)
    assert cand.kind == "preference" and "progress" in cand.summary.lower() and "journal" in cand.summary.lower()


def test_the_file_the_user_picks_for_a_plan_or_docs_is_a_decision_even_beside_a_preference():
    text = "i only want integration tests. now write the migration plan in docs/migrate.md with checkboxes"
    found = {c.kind: c for c in feedback_candidates([_prompt(text)])}
    assert "docs/migrate.md" in found["decision"].summary and "plan" in found["decision"].summary
    assert "preference" in found  # the other sentence still counts on its own
    assert feedback_candidates([_prompt("did you read docs/migrate.md?")]) == []  # a question
    assert feedback_candidates([_prompt("the plan looks fine, go ahead")]) == []  # no file named


def test_new_rules_feed_the_candidate_list():
    steps = [_prompt("the config file is at etc/app.ini"),
             _fail("pytest -q", "Error: cannot connect to socket"), _ok("pytest -q -p no:cacheprovider")]
    kinds = sorted(c.kind for c in candidates(steps))
    assert kinds == ["observation", "observation"]


# --- the agent's own diagnosis (diagnosis.py) ---------------------------------------------------

from automem.extract.diagnosis import diagnosis_candidates, diagnosis_of, pasted_error  # noqa: E402


def _said(step: Step, text: str) -> Step:
    step.said_after = text
    return step


def test_a_diagnosis_after_a_failed_call_then_a_passing_edit_is_an_observation():
    steps = [_said(_fail("make docs", "Error: cannot open theme/base.css"),
                   "The issue is that the docs build reads theme files relative to docs/conf.py, not the repo root."),
             _ok("conf.py", tool="Edit"), _ok("make docs")]
    [cand] = diagnosis_candidates(steps)
    assert cand.kind == "observation" and "make docs" in cand.summary
    assert cand.summary.endswith("not the repo root") and "The issue is" not in cand.summary
    assert "conf.py" in cand.content and "cannot open theme/base.css" in cand.content


def test_a_diagnosis_needs_a_passing_call_a_cause_and_a_link_to_the_failure():
    failed = _fail("make docs", "Error: cannot open theme/base.css")
    plan = [_said(_fail("make docs", "Error: cannot open theme/base.css"), "Let me look at the theme folder first."),
            _ok("conf.py", tool="Edit")]
    assert diagnosis_candidates(plan) == []  # a plan, not a cause
    nothing_passed = [_said(failed, "The issue is that the theme folder moved to assets/."), _fail("make docs", "x")]
    assert diagnosis_candidates(nothing_passed) == []
    only_looked = [_said(_fail("make docs", "Error: cannot open theme/base.css"),
                         "The issue is that the theme folder moved to assets/."), _ok("ls assets", tool="bash")]
    assert diagnosis_candidates(only_looked) == []  # reading around fixes nothing
    unrelated = [_said(_fail("npm test", "Error: Worker exited unexpectedly"),
                       "Browsers require user activation for directory access."), _ok("app.tsx", tool="Edit")]
    assert diagnosis_candidates(unrelated) == []  # the remark is about something else
    slip = [_said(_fail("a.py", "Could not find the exact text in a.py", tool="Edit"),
                  "The problem is that the old text had tabs in a.py."), _ok("a.py", tool="Edit")]
    assert diagnosis_candidates(slip) == []  # tool-call slips are never lessons
    hedged = [_said(_fail("make docs", "Error: cannot open theme/base.css"),
                    "The issue might be that the theme folder moved."), _ok("conf.py", tool="Edit")]
    assert diagnosis_candidates(hedged) == []


def test_an_error_the_user_pasted_then_explained_and_fixed_is_an_observation():
    pasted = ("$ node cli.js\nnode:fs:441\nError: ENOENT: no such file or directory, open '/w/app/src/version.json'\n"
              "    at Object.openSync (node:fs:573:3)")
    prompt = _said(_prompt(pasted), "")
    steps = [prompt, _said(_ok("src/paths/find.js", tool="read"),
                           "The issue is that find.js now lives in paths/, so its parent folder is src/, not the app root."),
             _ok("src/paths/find.js", tool="edit"), _ok("node cli.js --version", tool="bash")]
    [cand] = diagnosis_candidates(steps)
    assert cand.summary.startswith("ENOENT: ") and "paths/" in cand.summary
    assert "version.json" in cand.content and "find.js" in cand.content
    assert pasted_error(pasted).startswith("Error: ENOENT")
    assert pasted_error("please add error handling to the upload form") == ""


def test_a_prompt_that_only_talks_about_errors_is_no_anchor():
    steps = [_said(_prompt("the build fails again, add better error handling"),
                   "The build fails because the server script sits inside src/."), _ok("vite.config.ts", tool="edit")]
    assert diagnosis_candidates(steps) == []  # no pasted error line and no failed call: nothing to explain


def test_diagnosis_sentences_skip_plans_questions_and_code():
    text = ("Let me check why this fails because of the cache.\n```\nerror: the issue is x\n```\n"
            "Is the problem that the port is taken?\nGot it. The root cause is that port 8080 is taken by the proxy.")
    assert diagnosis_of(text) == "The root cause is that port 8080 is taken by the proxy."
    assert diagnosis_of("All tests pass now.") == ""


def test_the_agents_words_between_calls_reach_the_steps(tmp_path):
    """A real Claude Code transcript: what the agent says after a call lands on that call's step."""
    lines = [
        {"type": "user", "uuid": "u1", "sessionId": "s", "cwd": str(tmp_path), "message": {"role": "user", "content": "run it"}},
        {"type": "assistant", "uuid": "a1", "sessionId": "s", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "text", "text": "Running it."},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make run"}}]}},
        {"type": "user", "uuid": "u2", "sessionId": "s", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "Error: port 8080 in use"}]}},
        {"type": "assistant", "uuid": "a2", "sessionId": "s", "message": {"id": "m2", "role": "assistant", "content": [
            {"type": "text", "text": "The issue is that port 8080 is taken; make run needs PORT set."},
            {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "PORT=9000 make run"}}]}},
        {"type": "user", "uuid": "u3", "sessionId": "s", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "listening on 9000"}]}},
        {"type": "assistant", "uuid": "a3", "sessionId": "s", "message": {"id": "m3", "role": "assistant", "content": [
            {"type": "text", "text": "Done."}]}},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    from automem.extract.turns import read_all_turns

    prompt, failed, passed = steps_from_turns(read_all_turns(path, "claude-code"))
    assert prompt.said_after == "Running it."
    assert failed.said_after.startswith("The issue is that port 8080") and not failed.ok
    assert passed.said_after == "Done."


def test_worker_finds_a_codex_rollout_when_the_stop_payload_has_no_path(tmp_path, automem_home):
    """Codex sends transcript_path: null; the worker looks the rollout up by its session id."""
    import shutil

    from automem.extract.worker import find_transcript

    source = next((CORPUS / "codex").rglob("rollout-*.jsonl"), None) if CORPUS.is_dir() else None
    if source is None:
        pytest.skip("shared corpus not present")
    user = tmp_path / "user"
    target = user / ".codex" / "sessions" / "2026" / "11" / "29" / source.name
    target.parent.mkdir(parents=True)
    shutil.copy(source, target)
    session_id = source.stem[-36:]
    env = {**os.environ, "HOME": str(user)}
    env.pop("CODEX_HOME", None)
    code = f"from automem.extract.worker import find_transcript; print(find_transcript('codex', {session_id!r}))"
    found = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert found.stdout.strip() == str(target)
    assert find_transcript("codex", "../etc") is None

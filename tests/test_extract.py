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
from automem.extract.trigger import claim_paths, worker_running
from automem.home import Home
from automem.store.memories import parse

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "transcripts"


def _env(home: Path, root: Path) -> dict:
    return {**os.environ, "AUTOMEM_HOME": str(home), "HOME": str(root), "AUTOMEM_MODEL": "off"}


def _memories(home: Path) -> list:
    return [parse(p) for p in sorted(home.glob("projects/*/memories/*.md"))]


@pytest.fixture
def replayed(tmp_path: Path, automem_home: Path):
    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    session_id, cwd, outputs = replay(tmp_path, _env(automem_home, tmp_path))
    assert wait_for_worker(Home(automem_home), session_id), "the detached Stop worker never finished"
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
    assert wait_for_worker(Home(home), session_id)
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


def _another_day(source: Path, target: Path) -> Path:
    """The same session on another day: every timestamp moved a day on (a new session, not a copy of this one)."""
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if isinstance(record.get("timestamp"), str):
            record["timestamp"] = record["timestamp"][:8] + "29" + record["timestamp"][10:]  # YYYY-MM-29T...
        record["sessionId"] = "another-session"
        lines.append(json.dumps(record))
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def test_a_later_session_with_the_same_lesson_reinforces_and_promotes_it(replayed):
    home, session_id, cwd, root = replayed
    later = _another_day(root / "transcript.jsonl", root / "later.jsonl")
    result = extract(Home(home), session_id="another-session", transcript=later, cwd=cwd)
    assert result.stored == []
    assert len(result.reinforced) == 3
    assert all(m.seen == 2 and m.state == "promoted" for m in _memories(home))


def test_a_candidate_seen_again_in_another_session_is_promoted(tmp_path, automem_home):
    from automem.store.memories import Memory, reinforce, save

    home = Home(automem_home)
    home.ensure()
    project = home.project_for_cwd(str(tmp_path))
    memory = Memory(
        type="pattern",
        summary='make docs fails with "theme not found" (2x); not resolved in the session',
        content="x",
        status="candidate",
        session_id="s1",
        family="s1",
    )
    save(project, memory)
    assert not memory.injectable
    reinforce(memory)
    again = parse(memory.path)
    assert again.state == "promoted" and again.promoted == "reinforced" and again.seen == 2 and again.injectable


def test_a_copy_of_the_same_session_reinforces_nothing(replayed):
    """A resumed or compacted copy starts with the same history: the same family, not new evidence."""
    home, session_id, cwd, root = replayed
    copy = root / "copy.jsonl"
    copy.write_text(
        (root / "transcript.jsonl").read_text(encoding="utf-8").replace(session_id, "copy-session"), encoding="utf-8"
    )
    result = extract(Home(home), session_id="copy-session", transcript=copy, cwd=cwd)
    assert result.stored == [] and result.reinforced == []
    assert all(m.seen == 1 for m in _memories(home))


def test_a_forgotten_memory_does_not_come_back(replayed):
    """mem0's most common complaint: forget a lesson, and the next session stores it again."""
    from click.testing import CliRunner

    from automem.cli import cli

    home, session_id, cwd, root = replayed
    decision = next(m for m in _memories(home) if m.type == "decision")
    done = CliRunner().invoke(
        cli, ["forget", decision.id, "--json"], env={"AUTOMEM_HOME": str(home)}, catch_exceptions=False
    )
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
        run_hook(
            "UserPromptSubmit",
            {
                "session_id": sid,
                "cwd": str(tmp_path),
                "hook_event_name": "UserPromptSubmit",
                "prompt": "I prefer short commit messages in the imperative mood.",
            },
            env,
        )
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "automem.extract.worker", "--no-bank", "--session", sid, "--cwd", str(tmp_path)],
            env=env,
        )
        for sid in sessions
    ]
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

    mine = Memory(
        type="decision",
        summary="No, don't use npm for the frontend, use pnpm instead",
        content='The user said: "No, don\'t use npm for the frontend, use pnpm instead"',
        source="user",
    )
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
        (
            "PostToolUse",
            {
                "tool_name": "Bash",
                "tool_input": {"command": cmd},
                "tool_response": {"stdout": f"Error: connection refused\n{leak}", "exit_code": 7},
            },
        ),
        (
            "PostToolUse",
            {
                "tool_name": "Bash",
                "tool_input": {"command": cmd},
                "tool_response": {"stdout": f"Error: connection refused\n{leak}", "exit_code": 7},
            },
        ),
        (
            "PostToolUse",
            {
                "tool_name": "Bash",
                "tool_input": {"command": cmd + " --retry 3"},
                "tool_response": {"stdout": "ok", "exit_code": 0},
            },
        ),
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


from automem.extract.steps import steps_from_turns  # noqa: E402


def test_the_agents_words_between_calls_reach_the_steps(tmp_path):
    """A real Claude Code transcript: what the agent says after a call lands on that call's step."""
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "s",
            "cwd": str(tmp_path),
            "message": {"role": "user", "content": "run it"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": "s",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Running it."},
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make run"}},
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "sessionId": "s",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "Error: port 8080 in use"}
                ],
            },
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "sessionId": "s",
            "message": {
                "id": "m2",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "The issue is that port 8080 is taken; make run needs PORT set."},
                    {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "PORT=9000 make run"}},
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u3",
            "sessionId": "s",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "listening on 9000"}],
            },
        },
        {
            "type": "assistant",
            "uuid": "a3",
            "sessionId": "s",
            "message": {"id": "m3", "role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        },
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


def test_use_x_not_y_said_to_the_real_hook_becomes_project_decisions(tmp_path, automem_home, run_hook):
    """Seen through the real clients: "Use uv, not pip, in this repo." was not captured, "Never use sudo in this
    repo." became a global preference. Through the hook subprocess and the spool, with no transcript at all."""
    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    env = _env(automem_home, tmp_path)
    for prompt in ("Use uv, not pip, in this repo.", "Use pnpm, not npm, here.", "Never use sudo in this repo."):
        run_hook(
            "UserPromptSubmit",
            {
                "session_id": "said-session",
                "cwd": str(project),
                "hook_event_name": "UserPromptSubmit",
                "prompt": prompt,
            },
            env,
        )
    result = extract(Home(automem_home), session_id="said-session", cwd=str(project))
    got = {m.summary: m for m in result.stored}
    assert set(got) == {"Use uv, not pip, in this repo", "Use pnpm, not npm, here", "Never use sudo in this repo"}
    assert all(m.scope == "project" and m.state == "promoted" and m.promoted == "instruction" for m in got.values())
    assert not list((automem_home / "projects" / "_global").glob("memories/*.md"))


def test_the_stored_line_shows_once_at_the_projects_next_session_start(replayed, run_hook):
    """A one-shot session (claude -p) never has a next Stop: the next SessionStart of the project says it."""
    home, session_id, cwd, root = replayed
    payload = {"session_id": "next-session", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"}
    first = json.loads(run_hook("SessionStart", payload, _env(home, root)).stdout)
    assert first["systemMessage"].startswith("automem: stored 3 new memories")
    assert "automem-memory" in first["hookSpecificOutput"]["additionalContext"]
    second = json.loads(run_hook("SessionStart", payload, _env(home, root)).stdout)
    assert "systemMessage" not in second


def test_a_session_end_with_no_transcript_and_no_capture_starts_nothing(tmp_path, automem_home, run_hook):
    """`claude mcp list` health checks end sessions whose transcript never existed: no worker, no error, no state."""
    import time

    from automem.extract.trigger import _not_a_session

    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    missing = str(tmp_path / "never-written.jsonl")
    payload = {
        "session_id": "health-check",
        "cwd": str(tmp_path),
        "hook_event_name": "SessionEnd",
        "transcript_path": missing,
        "reason": "other",
    }
    assert _not_a_session(str(automem_home), payload, "health-check")
    done = run_hook("SessionEnd", payload, _env(automem_home, tmp_path))
    assert done.returncode == 0 and not done.stdout.strip()
    time.sleep(2)  # a worker, had one started, would have written its state by now
    assert not list((automem_home / "state").rglob("health-check*"))
    log = automem_home / "log" / "automem.log"
    assert not log.exists() or "never-written" not in log.read_text()
    spooled = {**payload, "session_id": "real-one"}
    (automem_home / "spool").mkdir(exist_ok=True)
    (automem_home / "spool" / "real-one.jsonl").write_text("{}\n")
    assert not _not_a_session(str(automem_home), spooled, "real-one")  # it captured something: extract it


def _workers_of(session_id: str, root: Path) -> set[int]:
    """The workers of this test's session: its id and a path under its folder on the command line (another test
    suite running on the machine may have workers of the same session id)."""
    found = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"automem.extract.worker" in cmd and session_id.encode() in cmd and str(root).encode() in b" ".join(cmd):
            found.add(int(proc.name))
    return found


def _open_files(pid: int) -> set[str]:
    found = set()
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                found.add(os.readlink(fd))
            except OSError:
                continue
    except OSError:
        pass
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="counts worker processes through /proc")
def test_a_burst_of_stops_starts_one_worker_and_loses_no_turn(replayed, run_hook):
    """16 Stop events at once for one session start one worker: the Stops that find it at work leave it a mark to
    read once more, and none waits for its claim."""
    import threading

    home, session_id, cwd, root = replayed
    payload = {
        "session_id": session_id,
        "cwd": cwd,
        "hook_event_name": "Stop",
        "transcript_path": str(root / "transcript.jsonl"),
    }
    claim, queue, again = claim_paths(str(home), session_id)
    seen: set[int] = set()
    most = {"at work": 0, "waiting": 0}
    done = threading.Event()

    def watch():
        # a worker handing its claim on holds the new claim's fd for the instant between starting the next worker
        # and closing its copy: a worker counts as at work when two samples in a row find it so
        before: set[int] = set()
        while not done.is_set():
            now = _workers_of(session_id, root)
            seen.update(now)
            held = {pid: _open_files(pid) for pid in now}  # a worker past its claim holds neither: it is only exiting
            most["waiting"] = max(most["waiting"], sum(queue in files for files in held.values()))
            at_work = {pid for pid, files in held.items() if claim in files and queue not in files}
            most["at work"] = max(most["at work"], len(at_work & before) or min(len(at_work), 1))
            before = at_work
            time.sleep(0.02)

    import time

    deadline = time.monotonic() + 60
    while _workers_of(session_id, root) and time.monotonic() < deadline:
        time.sleep(0.05)  # the replay's own worker, still pruning after its note: not part of the burst
    watcher = threading.Thread(target=watch)
    watcher.start()
    hooks = [threading.Thread(target=run_hook, args=("Stop", payload, _env(home, root))) for _ in range(16)]
    for t in hooks:
        t.start()
    for t in hooks:
        t.join()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (_workers_of(session_id, root) or worker_running(str(home), session_id)):
        time.sleep(0.1)
    done.set()
    watcher.join()
    # one at a time and none waiting (a Stop coming once the worker is gone starts the next: bench_burst counts)
    assert most["at work"] == 1 and most["waiting"] == 0, (most, seen)
    assert not worker_running(str(home), session_id)
    assert not os.path.exists(again)  # the worker read for every mark


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="counts worker processes through /proc")
def test_a_worker_ended_before_it_read_a_mark_hands_it_to_a_new_worker(replayed, run_hook):
    """A Stop that found the worker at work left a mark and started none; that worker is then ended (its time
    limit, a SIGTERM) before it read again: on its way out it starts the worker that reads for the mark."""
    import signal
    import time

    home, session_id, cwd, root = replayed
    payload = {
        "session_id": session_id,
        "cwd": cwd,
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "transcript_path": str(root / "transcript.jsonl"),
    }
    again = claim_paths(str(home), session_id)[2]
    deadline = time.monotonic() + 60
    while _workers_of(session_id, root) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert run_hook("Stop", payload, _env(home, root)).returncode == 0
    while not worker_running(str(home), session_id) and time.monotonic() < deadline:
        time.sleep(0.01)
    (first,) = _workers_of(session_id, root)
    while not _catches(first, signal.SIGTERM) and time.monotonic() < deadline:
        time.sleep(0.005)  # past its start-up: the claim is held from the hook on, the handler comes later
    os.kill(first, signal.SIGSTOP)  # at work, and it stays so while the next Stop comes
    try:
        assert run_hook("Stop", payload, _env(home, root)).returncode == 0
        assert os.path.exists(again) and _workers_of(session_id, root) == {first}  # a mark, no second worker
        assert Path(again).read_text() == "stopped\n"  # what that Stop said goes with it
        os.kill(first, signal.SIGTERM)
    finally:
        os.kill(first, signal.SIGCONT)
    seen: set[int] = set()
    while time.monotonic() < deadline and (_workers_of(session_id, root) or worker_running(str(home), session_id)):
        seen |= _workers_of(session_id, root)
        time.sleep(0.02)
    assert seen - {first}, "no worker took over the mark"
    assert not os.path.exists(again)


def _catches(pid: int, signum: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next((line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), "0")
    return bool(int(caught, 16) & (1 << (signum - 1)))


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--harness", "codex", "--transcript", "/t/x.jsonl", "--session", "s1", "--cwd", "/p", "--stopped"],
        ["--no-bank", "--handed", "2", "--claim-fd", "7", "--session", "a", "--session", "b"],
        ["--queue-fd", "5", "--transcript", ""],
        ["--session=abc"],
        ["--sess", "abc"],
        ["--transcript", "-odd"],
        ["--handed", "-1"],
        ["--handed", " 3 "],
        ["--", "--session", "a"],
        ["--handed", "x"],
        ["--session"],
        ["positional"],
    ],
)
def test_the_worker_reads_its_options_as_argparse_does(argv):
    """The worker reads the command lines trigger.worker_args writes without importing argparse; every other
    command line is argparse's: the options (or the usage error) are the same either way."""
    from automem.extract import trigger, worker

    def read(parse):
        try:
            return vars(parse(argv))
        except SystemExit as exc:
            return exc.code

    assert read(worker.parse_args) == read(worker._parser().parse_args)
    written = trigger.worker_args("pi", transcript="/t/y.jsonl", session_id="s", cwd="/w", stopped=True, handed=1)
    assert vars(worker.parse_args(written[3:])) == vars(worker._parser().parse_args(written[3:]))


def test_the_detached_worker_starts_with_the_go_collector_off_unless_the_user_tuned_it(tmp_path, monkeypatch):
    """The secret scanner's Go runtime reads GOGC/GOMEMLIMIT once, from the environment the process started with:
    the hook's spawn is the only place to set them. A user's own setting of either is left alone."""
    import time

    from automem.extract import trigger

    def child_sees(env_before: dict[str, str]) -> str:
        for name in ("GOGC", "GOMEMLIMIT"):
            monkeypatch.delenv(name, raising=False)
        for name, value in env_before.items():
            monkeypatch.setenv(name, value)
        out = tmp_path / f"env-{len(list(tmp_path.iterdir()))}.txt"
        script = "import os, sys; open(sys.argv[1] + '.tmp', 'w').write(os.environ.get('GOGC', '-') + ' ' + "
        script += "os.environ.get('GOMEMLIMIT', '-')); os.rename(sys.argv[1] + '.tmp', sys.argv[1])"
        assert trigger.spawn_detached([sys.executable, "-c", script, str(out)], trigger.worker_env())
        deadline = time.monotonic() + 30
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        return out.read_text()

    assert child_sees({}) == "off 256MiB"
    assert child_sees({"GOGC": "200"}) == "200 -"
    assert child_sees({"GOMEMLIMIT": "1GiB"}) == "- 1GiB"

    given: list[dict] = []  # and the Stop hook's start of a worker is what hands it that environment
    monkeypatch.delenv("GOMEMLIMIT", raising=False)
    monkeypatch.setattr(trigger, "spawn_detached", lambda args, env=None: given.append(env) or 0)
    trigger.start_worker(["automem-worker"], (trigger.NO_CLAIM, False))
    assert given and given[0].get("GOGC") == "off" and given[0].get("GOMEMLIMIT") == "256MiB"


def test_a_rule_the_user_turns_away_from_in_a_later_session_is_retired_not_reinforced(tmp_path, automem_home, run_hook):
    """ "Use pnpm, not npm" a day after "Use npm, not yarn": alike in words, opposite in meaning. The new rule is
    stored, the old one leaves the brief and the index for trash (expired: it may be learned again)."""
    from automem import brief
    from automem.index.db import open_index
    from automem.recall import recall

    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    env = _env(automem_home, tmp_path)
    home = Home(automem_home)
    stored, retired = [], []
    said = (("first", "Use npm, not yarn, in this repo."), ("second", "Use pnpm, not npm, in this repo."))
    for session, prompt in said:
        payload = {"session_id": session, "cwd": str(project), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
        run_hook("UserPromptSubmit", payload, env)
        result = extract(home, session_id=session, cwd=str(project))
        assert result.reinforced == []
        stored += result.stored
        retired += result.retired
    old, new = stored
    assert new.summary == "Use pnpm, not npm, in this repo"
    assert [m.id for m in retired] == [old.id] and "retired: Use npm, not yarn" in result.message()
    retired = parse(next(home.project_for_cwd(str(project)).trash_dir.glob("*.md")))
    assert retired.id == old.id and retired.state == "expired" and new.id in retired.content
    conn = open_index(str(home.root))
    try:
        text = brief.build(home.project_for_cwd(str(project)).slug, home=home, conn=conn).text
        assert "pnpm, not npm" in text and "not yarn" not in text
        assert [h.id for h in recall("yarn npm", home=home, all_projects=True, conn=conn)] == [new.id]
    finally:
        conn.close()
    again = extract(home, session_id="first", cwd=str(project))  # the first session read again changes nothing
    assert again.stored == [] and again.reinforced == []
    payload = {"session_id": "third", "cwd": str(project), "hook_event_name": "UserPromptSubmit"}
    run_hook("UserPromptSubmit", {**payload, "prompt": "Use npm, not yarn, in this repo."}, env)  # back to npm
    [back] = extract(home, session_id="third", cwd=str(project)).stored
    memories = home.project_for_cwd(str(project)).memories_dir
    assert [parse(p).id for p in memories.glob("*.md")] == [back.id]  # learned again; the pnpm rule retired


@pytest.mark.parametrize(
    ("first", "later"),
    [
        ("Always run the tests before committing.", "Don't use tests in parallel, it breaks the db."),
        ("Always use npm for this project.", "Never use npm audit fix --force."),
        ("Always use spaces in YAML files.", "Prefer tabs over spaces in Go code."),
        ("Use Docker for local dev.", "Never use Docker in CI."),
    ],
)
def test_a_later_rule_about_another_thing_retires_nothing(tmp_path, automem_home, run_hook, first, later):
    """Only a rule that takes back the same tool choice, for everything or for the same scope, retires one."""
    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    home = Home(automem_home)
    env = _env(automem_home, tmp_path)
    for session, prompt in (("one", first), ("two", later)):
        payload = {"session_id": session, "cwd": str(project), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
        run_hook("UserPromptSubmit", payload, env)
        assert extract(home, session_id=session, cwd=str(project)).retired == []
    assert not list(home.project_for_cwd(str(project)).trash_dir.glob("*.md"))


@pytest.mark.parametrize("whose", ["written by the user", "automatic, edited by hand since"])
def test_the_users_own_rule_is_never_retired_by_a_later_one(tmp_path, automem_home, run_hook, whose):
    import time

    from automem.store.memories import Memory, save

    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    home = Home(automem_home)
    home.ensure()
    if whose == "written by the user":
        mine = Memory(type="decision", summary="Use npm in this repo", content="written by hand", source="user")
        save(home.project_for_cwd(str(project)), mine)
    else:
        mine = Memory(type="decision", summary="Use npm in this repo", content="The user said so", status="promoted")
        save(home.project_for_cwd(str(project)), mine)
        later = time.time() + 3600  # edited by hand an hour after automem wrote it: the user's now
        os.utime(mine.path, (later, later))
    prompt = "Use pnpm, not npm, in this repo."
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    run_hook("UserPromptSubmit", payload, _env(automem_home, tmp_path))
    assert extract(home, session_id="s", cwd=str(project)).retired == []
    assert parse(mine.path).summary == "Use npm in this repo"

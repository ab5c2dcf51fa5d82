"""The consent gate: asked once through the real Stop hook, recorded by the CLI, obeyed by the extractor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from automem import consent


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "automem", *args], capture_output=True, text=True, timeout=60)


def test_cli_records_each_answer(automem_home):
    assert cli("consent", "status").stdout.strip() == "consent: not answered"
    for answer, stored in (("yes", True), ("no", False), ("ask", "ask")):
        assert cli("consent", answer).returncode == 0
        data = json.loads((automem_home / "consent.json").read_text())
        assert data["consented"] == stored and data["at"].endswith("Z")
    assert json.loads(cli("consent", "status", "--json").stdout)["state"] == "ask"


def test_stop_hook_asks_once_then_stays_quiet(tmp_path, automem_home, run_hook):
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "Stop"}
    first = run_hook("Stop", payload)
    assert first.returncode == 0
    message = json.loads(first.stdout)["systemMessage"]
    assert "automem consent yes" in message and str(automem_home) in message
    second = run_hook("Stop", {**payload, "session_id": "s2"})
    assert second.stdout.strip() == b""  # asked once, never blocks, never nags


def test_ask_means_ask_again(automem_home):
    consent.mark_asked(automem_home, "s1")
    assert not consent.should_ask(automem_home)
    assert cli("consent", "ask").returncode == 0
    assert consent.should_ask(automem_home)


def test_no_deletes_the_sessions_spool_and_unanswered_keeps_it_seven_days(automem_home, run_hook, tmp_path):
    for sid in ("keep-me", "old-one", "declined"):
        run_hook(
            "UserPromptSubmit",
            {
                "session_id": sid,
                "cwd": str(tmp_path),
                "hook_event_name": "UserPromptSubmit",
                "prompt": "I prefer tabs over spaces",
            },
        )
    spool = automem_home / "spool"
    old = spool / "old-one.jsonl"
    eight_days = time.time() - 8 * 86400
    os.utime(old, (eight_days, eight_days))
    consent.prune_spool(automem_home, "keep-me")  # no answer yet
    assert (spool / "keep-me.jsonl").exists() and not old.exists()
    consent.write(automem_home, "no")
    consent.prune_spool(automem_home, "declined")
    assert not (spool / "declined.jsonl").exists() and (spool / "keep-me.jsonl").exists()


def test_with_consent_the_spool_is_still_bounded(automem_home, run_hook, tmp_path):
    """Consented captures are extracted at each Stop; after retention.spool_days they go, .recalled lists too."""
    for sid in ("fresh", "stale"):
        run_hook(
            "UserPromptSubmit",
            {
                "session_id": sid,
                "cwd": str(tmp_path),
                "hook_event_name": "UserPromptSubmit",
                "prompt": "I prefer tabs over spaces",
            },
        )
    spool = automem_home / "spool"
    (spool / "stale.recalled").write_text("m1\n")
    consent.write(automem_home, "yes")
    (automem_home / "config.yml").write_text("retention:\n  spool_days: 2\n")
    three_days = time.time() - 3 * 86400
    for name in ("stale.jsonl", "stale.recalled"):
        os.utime(spool / name, (three_days, three_days))
    assert consent.prune_spool(automem_home) == 2
    assert sorted(p.name for p in spool.iterdir() if not p.name.endswith(".lock")) == ["fresh.jsonl"]


def test_stop_hook_process_stays_light(tmp_path, automem_home):
    code = (
        "import sys, json, io; sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps({'session_id': 's', "
        "'hook_event_name': 'Stop', 'cwd': '.'}).encode()));"
        "from automem.capture.hook import main; main(['Stop']);"
        "heavy = [m for m in ('yaml', 'frontmatter', 'httpx', 'detect_secrets', 'automem.harness', 'sqlite3')"
        " if m in sys.modules]; print('HEAVY', heavy, file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "HEAVY []" in proc.stderr, proc.stderr


def test_the_question_names_a_command_the_user_can_run(automem_home, run_hook, tmp_path):
    """The venv's bin is rarely on PATH: the Stop message names the hook's own script."""
    from conftest import hook_command

    out = run_hook("Stop", {"session_id": "q-1", "cwd": str(tmp_path), "hook_event_name": "Stop"})
    message = json.loads(out.stdout)["systemMessage"]
    command = hook_command()[0]
    if command.endswith("automem"):
        assert f"`{command} consent yes`" in message


def test_spool_locks_go_with_their_captures(tmp_path):
    """One .lock per rotated session used to stay forever."""
    import os
    import time

    from automem import consent

    home = tmp_path / "home"
    spool = home / "spool"
    spool.mkdir(parents=True)
    consent.write(home, "yes")
    old = time.time() - 30 * 86400
    for name in ("gone.jsonl", "gone.jsonl.lock", "live.jsonl", "live.jsonl.lock", "orphan.jsonl.lock"):
        (spool / name).write_text("{}\n")
    for name in ("gone.jsonl", "gone.jsonl.lock", "orphan.jsonl.lock"):
        os.utime(spool / name, (old, old))
    consent.prune_spool(str(home))
    assert sorted(p.name for p in spool.iterdir()) == ["live.jsonl", "live.jsonl.lock"]


def test_captures_made_before_consent_are_extracted_when_it_arrives(tmp_path, automem_home, run_hook):
    """The hooks spool a session while the question is open; `consent yes` extracts it, once."""
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    payload = {"session_id": "before-consent", "cwd": str(project), "transcript_path": str(tmp_path / "gone.jsonl")}
    prompt = {**payload, "hook_event_name": "UserPromptSubmit", "prompt": "Use pnpm, not npm, in this repo."}
    assert run_hook("UserPromptSubmit", prompt).returncode == 0
    assert run_hook("Stop", {**payload, "hook_event_name": "Stop"}).returncode == 0
    from automem.extract.trigger import worker_running

    deadline = time.monotonic() + 60
    while worker_running(str(automem_home), "before-consent") and time.monotonic() < deadline:
        time.sleep(0.05)  # the Stop's worker (which finds no consent) must be done before the answer changes
    memories = automem_home / "projects"
    assert not list(memories.glob("*/memories/*.md"))  # no consent: nothing extracted, the capture waits
    assert list((automem_home / "spool").glob("*.jsonl"))

    granted = cli("consent", "yes")
    assert granted.returncode == 0, granted.stderr
    assert "extracted 1 session(s) captured before consent: 1 new memory" in granted.stdout
    stored = list(memories.glob("*/memories/*.md"))
    assert len(stored) == 1 and "pnpm" in stored[0].read_text()

    assert cli("consent", "no").returncode == 0
    again = json.loads(cli("consent", "yes", "--json").stdout)
    assert again["sessions_extracted"] == 0 and len(list(memories.glob("*/memories/*.md"))) == 1

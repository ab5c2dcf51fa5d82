"""Autobank passes on real transcripts: exactly once, across kills, appends, corrupt lines and restarts."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from automem.bank.passes import backfill, is_trivial, run_pass
from automem.harness import READERS
from automem.home import Home

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "transcripts"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")

CLAUDE_FILE = (
    CORPUS / "claude/omarchy-backup/projects/-home-vwestberg-Claude/44ef5cbf-9cc3-4f7b-ac40-337a4d39713b.jsonl"
)
CODEX_DIR = CORPUS / "codex/lotto645/sessions"
PI_FILE = CORPUS / "pi/pi-mono/large-session.jsonl"
FAR_FUTURE = time.time() + 10 * 365 * 86400


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A HOME laid out like a real machine's, holding copies of real transcripts."""
    home_dir = tmp_path / "home"
    claude_project = home_dir / ".claude" / "projects" / CLAUDE_FILE.parent.name
    claude_project.mkdir(parents=True)
    shutil.copy(CLAUDE_FILE, claude_project / CLAUDE_FILE.name)
    shutil.copytree(CLAUDE_FILE.parent / CLAUDE_FILE.stem, claude_project / CLAUDE_FILE.stem)  # subagents/
    shutil.copytree(CODEX_DIR, home_dir / ".codex" / "sessions")
    pi_dir = home_dir / ".pi" / "agent" / "sessions" / "--work-pi-mono--"
    pi_dir.mkdir(parents=True)
    shutil.copy(PI_FILE, pi_dir / PI_FILE.name)
    monkeypatch.setenv("HOME", str(home_dir))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path / "automem"))
    home = Home.current().ensure()
    backfill(36500, home)  # the corpus is older than the default 30-day window
    return home


def expected_turns() -> dict[str, set[str]]:
    """Finished turns per harness, as the readers (tested on hand counts elsewhere) see them."""
    out: dict[str, set[str]] = {}
    for harness, reader in READERS.items():
        keys = set()
        for path in reader.discover():
            keys |= {t.turn_key for t in reader.read_turns(path) if t.finished and not is_trivial(t)}
        out[harness] = keys
    return out


def bank_entries(home: Home) -> list[Path]:
    return sorted(home.projects_dir.glob("*/bank/*.md"))


def banked_keys(home: Home) -> list[str]:
    keys = []
    for path in bank_entries(home):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("turn_key:"):
                keys.append(json.loads(line.split(":", 1)[1].strip()))
    return keys


def test_pass_banks_every_finished_turn_once(env):
    expected = expected_turns()
    assert len(expected["claude-code"]) >= 5 and len(expected["codex"]) >= 3 and len(expected["pi"]) >= 50
    report = run_pass(env)
    assert report.errors == []
    keys = banked_keys(env)
    assert len(keys) == len(set(keys))
    assert set(keys) == set().union(*expected.values())
    assert report.banked == len(keys)
    # a second pass banks nothing and reads nothing
    again = run_pass(env)
    assert again.banked == 0 and again.files_read == 0
    assert len(bank_entries(env)) == len(keys)


def test_entry_format_and_project_files(env):
    run_pass(env)
    entry = next(p for p in bank_entries(env) if "claude-code" in p.read_text())
    text = entry.read_text(encoding="utf-8")
    from automem.markdown import load

    post, content = load(text)
    assert post["source"] == "autobank:claude-code" and post["harness"] == "claude-code"
    assert post["turn_key"].startswith("claude-code:44ef5cbf")
    assert post["cwd"] == "/home/vwestberg/Claude"
    assert "## Prompt" in content and "## Actions" in content and "## Result" in content
    assert entry.name.startswith(post["id"] + "--")
    project = entry.parent.parent
    main = (project / "MAIN.md").read_text(encoding="utf-8")
    rows = [line for line in main.splitlines() if line.startswith("- 20")]
    assert rows == sorted(rows, reverse=True) and len(rows) == len(list((project / "bank").glob("*.md")))
    assert list((project / "summaries").glob("*.md")), "past days get a summary"
    # Claude's TodoWrite calls give a state file
    states = list((project / "state").glob("claude-code--*.md"))
    assert states and "## Todos" in states[0].read_text()


def test_main_md_human_part_kept_byte_for_byte(env):
    run_pass(env)
    main = next(env.projects_dir.glob("*/MAIN.md"))
    human = "# Mine\n\nNotes with  odd   spacing\t and trailing space \n\n"
    text = main.read_text(encoding="utf-8")
    main.write_text(human + text[text.index("<!-- automem:index:start -->") :], encoding="utf-8")
    summary = next(main.parent.glob("summaries/*.md"))
    summary.write_text("# my own summary\n", encoding="utf-8")
    # a new turn for this project forces a rebuild
    transcript = next(Path(os.environ["HOME"]).glob(".claude/projects/*/*.jsonl"))
    env_conn = sqlite3.connect(env.index_db)
    env_conn.execute("DELETE FROM banked WHERE turn_key IN (SELECT turn_key FROM banked LIMIT 1)")
    env_conn.execute("DELETE FROM cursors")
    env_conn.commit()
    env_conn.close()
    assert run_pass(env).rewritten + run_pass(env).banked >= 0
    assert main.read_text(encoding="utf-8").startswith(human)
    assert summary.read_text(encoding="utf-8") == "# my own summary\n", "summaries are additive"
    assert transcript.exists()


def test_index_lost_banks_nothing_twice(env):
    run_pass(env)
    before = sorted(p.name for p in bank_entries(env))
    for suffix in ("", "-wal", "-shm"):
        Path(str(env.index_db) + suffix).unlink(missing_ok=True)
    backfill(36500, env)
    run_pass(env)
    assert sorted(p.name for p in bank_entries(env)) == before


def test_an_entry_a_power_cut_left_empty_is_banked_anew_on_backfill(env):
    """Entries are fsynced together at the end of a pass, not one by one: one a power cut left empty
    comes back when its transcript is read again; the others are not rewritten."""
    run_pass(env)
    entries = bank_entries(env)
    emptied = entries[len(entries) // 2]
    text = emptied.read_text(encoding="utf-8")
    emptied.write_bytes(b"")
    untouched = {p: p.stat().st_mtime_ns for p in entries if p != emptied}
    backfill(36600, env)  # a wider window: every transcript is read once more
    report = run_pass(env)
    assert report.errors == [] and report.banked == 0 and report.rewritten == 1
    assert emptied.read_text(encoding="utf-8") == text
    assert {p: p.stat().st_mtime_ns for p in untouched} == untouched


def test_appended_while_reading_and_corrupt_line(env):
    home_dir = Path(os.environ["HOME"])
    pi_file = next(home_dir.glob(".pi/agent/sessions/*/*.jsonl"))
    full = pi_file.read_bytes()
    lines = full.splitlines(keepends=True)
    half = len(lines) // 2
    # first half, with its last line cut mid-way (a writer mid-line) and a corrupt line in the middle
    first = b"".join(lines[: half // 2]) + b"{corrupt json\n" + b"".join(lines[half // 2 : half]) + lines[half][:10]
    pi_file.write_bytes(first)
    run_pass(env, harnesses=["pi"])
    pi_file.write_bytes(first + lines[half][10:] + b"".join(lines[half + 1 :]))
    run_pass(env, harnesses=["pi"])
    keys = [k for k in banked_keys(env) if k.startswith("pi:")]
    assert len(keys) == len(set(keys))
    pi_file.write_bytes(full)  # the same content without the corrupt line
    expected = {t.turn_key for t in READERS["pi"].read_turns(pi_file) if t.finished and not is_trivial(t)}
    assert set(keys) == expected


def test_killed_pass_then_new_pass_exactly_once(env, tmp_path):
    script = (
        "import sys; from automem.bank.passes import run_pass; "
        "import automem.bank.passes as p; real = p._bank_turn\n"
        "def slow(*a, **k):\n    import time; time.sleep(0.02); return real(*a, **k)\n"
        "p._bank_turn = slow; run_pass()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], env=dict(os.environ))
    deadline = time.time() + 30
    while time.time() < deadline and len(bank_entries(env)) < 10:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = len(bank_entries(env))
    assert 0 < partial < sum(len(v) for v in expected_turns().values())
    run_pass(env)
    keys = banked_keys(env)
    assert len(keys) == len(set(keys)) == sum(len(v) for v in expected_turns().values())
    leftovers = [p for p in env.projects_dir.rglob(".*.tmp")]
    assert leftovers == []
    for entry in bank_entries(env):
        text = entry.read_text(encoding="utf-8")
        assert text.startswith("---\n") and "## Result" in text and text.endswith("\n")


def test_reservations_held_and_taken_over(env):
    turn = next(
        t for t in READERS["codex"].read_turns(READERS["codex"].discover()[0]) if t.finished and not is_trivial(t)
    )
    conn = sqlite3.connect(env.index_db)
    conn.execute("INSERT INTO reservations VALUES (?, 'other-live-pass', ?)", (turn.turn_key, time.time()))
    conn.commit()
    run_pass(env, harnesses=["codex"])
    assert turn.turn_key not in banked_keys(env), "a live reservation is respected"
    conn.execute("UPDATE reservations SET at = ? WHERE turn_key = ?", (time.time() - 700, turn.turn_key))
    conn.execute("DELETE FROM cursors")
    conn.commit()
    conn.close()
    run_pass(env, harnesses=["codex"])
    assert turn.turn_key in banked_keys(env), "a reservation older than 10 minutes is taken over"


def test_switches_read_on_every_pass(env):
    env.config_file.write_text("memory:\n  auto_bank: false\n")
    assert run_pass(env).skipped and bank_entries(env) == []
    env.config_file.write_text("memory:\n  auto_bank: true\nautobank:\n  harnesses: [codex]\n")
    os.utime(env.config_file, ns=(2, 2))
    run_pass(env)
    assert {k.split(":")[0] for k in banked_keys(env)} == {"codex"}


def test_default_window_skips_old_turns(tmp_path, monkeypatch, env):
    # a fresh home where the harness is seen for the first time: only the last 30 days are banked
    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path / "fresh"))
    fresh = Home.current().ensure()
    newest = max(t.ended_at for t in READERS["pi"].read_turns(READERS["pi"].discover()[0]) if t.finished)
    from datetime import datetime

    end = datetime.fromisoformat(newest.replace("Z", "+00:00")).timestamp()
    run_pass(fresh, harnesses=["pi"], now=end + 29 * 86400)
    assert 0 < len(banked_keys(fresh)) <= len(expected_turns()["pi"])
    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path / "fresh2"))
    fresh2 = Home.current().ensure()
    run_pass(fresh2, harnesses=["pi"], now=end + 31 * 86400)
    assert banked_keys(fresh2) == []


def test_cli_bank_commands(env):
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "automem", "bank", *args], capture_output=True, text=True, env=dict(os.environ)
    )
    out = run("run", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["banked"] > 0
    status = json.loads(run("status", "--json").stdout)
    assert status["harnesses"]["pi"]["banked"] > 0 and status["harnesses"]["pi"]["enabled"]
    assert run("disable", "pi").returncode == 0
    assert json.loads(run("status", "--json").stdout)["harnesses"]["pi"]["enabled"] is False
    assert run("enable", "pi").returncode == 0
    assert "unknown harness" in run("enable", "cursor").stderr


def test_stop_hook_starts_a_detached_pass(env):
    transcript = next(Path(os.environ["HOME"]).glob(".claude/projects/*/*.jsonl"))
    payload = {
        "session_id": transcript.stem,
        "transcript_path": str(transcript),
        "cwd": "/home/x",
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    exe = Path(sys.executable).with_name("automem")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "automem"]
    proc = subprocess.run(
        [*cmd, "hook", "Stop"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=30,
    )
    assert proc.returncode == 0
    assert proc.stdout == "" or isinstance(json.loads(proc.stdout), dict), "nothing, or a single JSON object"
    deadline = time.time() + 90  # a detached worker on a busy 2-core machine
    while time.time() < deadline and set(banked_keys(env)) != expected_turns()["claude-code"]:
        time.sleep(0.1)
    assert {k for k in banked_keys(env)} == expected_turns()["claude-code"]


def test_watch_stops_on_sigterm(env):
    proc = subprocess.Popen(
        [sys.executable, "-m", "automem", "bank", "watch", "--interval", "1"],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    deadline = time.time() + 30
    while time.time() < deadline and not bank_entries(env):
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "stopped" in out
    assert bank_entries(env)


def test_trivial_turns_are_not_banked(env):
    """No tool call and a result under 200 characters: a chat line, not a working session."""
    trivial = [
        t for h, r in READERS.items() for p in r.discover() for t in r.read_turns(p) if t.finished and is_trivial(t)
    ]
    assert trivial, "the corpus has short conversational turns"
    run_pass(env)
    keys = set(banked_keys(env))
    assert not keys & {t.turn_key for t in trivial}
    assert all(t.actions == [] and len((t.answer or "").strip()) < 200 for t in trivial)


def test_reenabled_harness_banks_last_30_days_not_the_time_it_was_off(env):
    from automem.config import set_value
    from automem.index.db import connect

    set_value("autobank.harnesses", ["codex"], env)
    run_pass(env)
    conn = connect(env)
    assert conn.execute("SELECT paused FROM harnesses WHERE harness = 'pi'").fetchone() == (1,)
    conn.close()
    os.utime(env.config_file, ns=(5, 5))
    set_value("autobank.harnesses", ["codex", "pi"], env)
    report = run_pass(env)
    conn = connect(env)
    window, paused = conn.execute("SELECT window_start, paused FROM harnesses WHERE harness = 'pi'").fetchone()
    conn.close()
    assert paused == 0 and window >= time.time() - 30 * 86400 - 60
    assert report.per_harness.get("pi", 0) == 0, "the corpus's pi turns are older than 30 days"


def test_antigravity_entry_rewritten_in_place(tmp_path, monkeypatch):
    """One entry per conversation; a new step count rewrites the same entry instead of adding one."""
    fixtures = Path(__file__).resolve().parent / "fixtures" / "antigravity"
    user = tmp_path / "user"
    data = user / ".gemini" / "antigravity-cli"
    data.mkdir(parents=True)
    conn = sqlite3.connect(data / "conversation_summaries.db")
    conn.executescript((fixtures / "conversation_summaries.sql").read_text())
    conn.commit()
    shutil.copy(fixtures / "history.jsonl", data / "history.jsonl")
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path / "automem"))
    home = Home.current().ensure()
    backfill(36500, home, harnesses=["antigravity"])
    first = run_pass(home, harnesses=["antigravity"])
    entries = sorted(home.projects_dir.glob("*/bank/*.md"))
    assert first.banked == len(entries) >= 2
    before = {p.name: p.read_text() for p in entries}
    conn.execute(
        "UPDATE conversation_summaries SET step_count = step_count + 5, last_modified = ? "
        "WHERE conversation_id = 'conv-aaa1'",
        ("2026-03-05T09:00:00.000Z",),
    )
    conn.commit()
    conn.close()
    os.utime(data / "conversation_summaries.db", (time.time() + 5, time.time() + 5))
    second = run_pass(home, harnesses=["antigravity"])
    after = {p.name: p.read_text() for p in sorted(home.projects_dir.glob("*/bank/*.md"))}
    assert (second.banked, second.rewritten) == (0, 1)
    assert set(after) == set(before), "rewritten in place: same files, none added"
    assert sum(before[name] != after[name] for name in after) == 1
    assert run_pass(home, harnesses=["antigravity"]).rewritten == 0


def test_backfill_waits_for_a_running_pass(env, tmp_path, monkeypatch):
    """A backfill during a pass used to be undone by the pass writing its cursors afterwards: the files looked
    read, and the turns of the widened window were lost for good."""
    import threading

    import automem.bank.passes as passes

    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path / "fresh"))
    fresh = Home.current().ensure()  # the default 30-day window: the corpus is older, so a pass banks nothing
    real = passes._bank_file
    started = threading.Event()

    def slow(*args, **kwargs):
        started.set()
        time.sleep(0.3)
        return real(*args, **kwargs)

    passes._bank_file = slow
    try:
        worker = threading.Thread(target=lambda: run_pass(fresh))
        worker.start()
        assert started.wait(30)
        backfill(36500, fresh)  # must wait for the pass, then widen the window and reset every cursor
        worker.join(120)
    finally:
        passes._bank_file = real
    run_pass(fresh)
    assert set(banked_keys(fresh)) == set().union(*expected_turns().values())


def test_a_killed_pass_loses_no_turn(env):
    """SIGKILL mid-pass left a fresh reservation; the next pass skipped the turn and moved its cursor past it,
    so the turn was lost until a backfill. A reservation of a process that is gone is taken over at once."""
    import subprocess

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    turn = next(
        t for t in READERS["codex"].read_turns(READERS["codex"].discover()[0]) if t.finished and not is_trivial(t)
    )
    conn = sqlite3.connect(env.index_db)
    conn.execute("INSERT INTO reservations VALUES (?, ?, ?)", (turn.turn_key, f"{dead.pid}@{time.time()}", time.time()))
    conn.commit()
    conn.close()
    run_pass(env, harnesses=["codex"])
    assert turn.turn_key in banked_keys(env)


def test_a_turn_a_live_pass_holds_is_read_again_later(env):
    turn = next(
        t for t in READERS["codex"].read_turns(READERS["codex"].discover()[0]) if t.finished and not is_trivial(t)
    )
    conn = sqlite3.connect(env.index_db)
    conn.execute("INSERT INTO reservations VALUES (?, ?, ?)", (turn.turn_key, f"{os.getpid()}-other@x", time.time()))
    conn.commit()
    run_pass(env, harnesses=["codex"])
    assert turn.turn_key not in banked_keys(env)
    conn.execute("DELETE FROM reservations")
    conn.commit()
    conn.close()
    run_pass(env, harnesses=["codex"])  # no backfill, no cursor reset: the cursor stopped before the held turn
    assert turn.turn_key in banked_keys(env)


def test_a_pass_killed_inside_mark_banked_leaves_no_reservation(env):
    """The fault suite's find: banked row and reservation delete were two transactions; a kill between them left
    a reservation of a banked turn that no pass would ever remove."""
    run_pass(env, harnesses=["codex"])
    key = banked_keys(env)[0]
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    conn = sqlite3.connect(env.index_db)
    conn.execute("INSERT INTO reservations VALUES (?, ?, ?)", (key, f"{dead.pid}@{time.time()}", time.time()))
    conn.commit()
    run_pass(env, harnesses=["codex"])
    assert conn.execute("SELECT count(*) FROM reservations").fetchone()[0] == 0
    conn.close()


def test_temp_files_of_dead_writers_are_swept_and_live_ones_kept(env):
    from automem.atomic import atomic_write_text

    run_pass(env, harnesses=["codex"])
    project = next(env.projects_dir.iterdir())
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    orphans = [
        project / "bank" / f".x.md.{dead.pid}.abcd1234.tmp",
        project / "memories" / f".m.md.{dead.pid}.a1.tmp",
        env.state_dir / "extract" / f".families.json.{dead.pid}.zz.tmp",
    ]
    live = project / "bank" / f".y.md.{os.getpid()}.abcd1234.tmp"
    for path in [*orphans, live]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half")
    atomic_write_text(project / "bank" / "written.txt", "whole")
    assert not list(project.glob("bank/.written.txt.*")), "a finished write leaves no temp file"
    from automem.store import sweep_temp_files

    assert sweep_temp_files(env) == 3
    assert live.exists() and not any(p.exists() for p in orphans)


def test_a_project_a_killed_pass_left_unfinished_is_finished_by_the_next(env):
    """Killed after its last entry and before MAIN.md and the summaries: the next pass banks nothing new, yet
    rebuilds them (the project was marked unfinished in index.db before its first entry was written)."""
    run_pass(env, harnesses=["codex"])
    project = next(p for p in env.projects_dir.iterdir() if (p / "MAIN.md").exists())
    (project / "MAIN.md").unlink()
    for summary in project.glob("summaries/*.md"):
        summary.unlink()
    conn = sqlite3.connect(env.index_db)
    conn.execute("INSERT INTO meta VALUES (?, '1')", (f"bank_dirty:{project.name}",))
    conn.commit()
    assert run_pass(env, harnesses=["codex"]).banked == 0
    assert (project / "MAIN.md").exists() and list(project.glob("summaries/*.md"))
    assert conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'bank_dirty:%'").fetchone()[0] == 0
    conn.close()

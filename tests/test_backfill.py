"""`automem bank backfill` drains its whole window in one command, shows progress, and stops cleanly on Ctrl-C.

The input is real-size: the corpus's Claude Code transcripts laid out three times over at test time (each copy
its own session), about 30 MB for one harness, well past the 8 MB a budgeted pass reads.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from conftest import CORPUS_TRANSCRIPTS, build_claude_transcripts

from automem.bank.passes import READ_BUDGET_BYTES, Progress, is_trivial
from automem.harness import READERS
from automem.progressbar import ProgressBar

pytestmark = pytest.mark.skipif(not CORPUS_TRANSCRIPTS.is_dir(), reason="shared corpus not present")

DAYS = "3650"


@pytest.fixture(scope="module")
def transcripts(tmp_path_factory):
    """One HOME holding the built transcripts (built once, read-only afterwards) and the turns they hold."""
    home_dir = tmp_path_factory.mktemp("backfill") / "home"
    files = build_claude_transcripts(home_dir, copies=3)
    assert sum(f.stat().st_size for f in files) > 3 * READ_BUDGET_BYTES, "more than three budgeted passes' worth"
    keys = set()
    for path in files:
        keys |= {t.turn_key for t in READERS["claude-code"].read_turns(path) if t.finished and not is_trivial(t)}
    return home_dir, keys, files


@pytest.fixture
def env(transcripts, tmp_path, monkeypatch):
    home_dir, keys, files = transcripts
    monkeypatch.setenv("HOME", str(home_dir))
    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path / "automem"))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "automem", keys, files


def backfill_cmd(*extra: str) -> list[str]:
    return [sys.executable, "-m", "automem", "bank", "backfill", "--days", DAYS, "--harness", "claude-code", *extra]


def banked_keys(automem_home: Path) -> list[str]:
    keys = []
    for path in sorted(automem_home.glob("projects/*/bank/*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("turn_key:"):
                keys.append(json.loads(line.split(":", 1)[1].strip()))
    return keys


def banked_in(stdout: str) -> int:
    return int(stdout.split("banked ", 1)[1].split(" ", 1)[0])


def test_backfill_drains_the_window_in_one_command(env):
    automem_home, expected, files = env
    first = subprocess.run(backfill_cmd(), capture_output=True, text=True, env=dict(os.environ), timeout=600)
    assert first.returncode == 0, first.stderr
    assert "more to read" not in first.stdout
    keys = banked_keys(automem_home)
    assert len(keys) == len(set(keys)) and set(keys) == expected
    assert banked_in(first.stdout) == len(expected)
    # not a terminal: plain progress lines on stderr, the last with every transcript read
    lines = [line for line in first.stderr.splitlines() if line.startswith("backfill: ")]
    assert lines and lines[-1].startswith(f"backfill: {len(files)}/{len(files)} transcript(s)")
    assert lines[-1].endswith(f" {len(expected)} turn(s) banked")
    assert "\r" not in first.stderr and "\x1b" not in first.stderr

    # the same command again: nothing banked and nothing read (it used to start the window over)
    second = subprocess.run(backfill_cmd(), capture_output=True, text=True, env=dict(os.environ), timeout=600)
    assert second.returncode == 0, second.stderr
    assert "banked 0 turn(s) from 0 transcript(s) (0.0 MB)" in second.stdout
    assert len(banked_keys(automem_home)) == len(expected)


def test_backfill_on_a_terminal_draws_a_bar(env):
    automem_home, expected, files = env
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    proc = subprocess.Popen(backfill_cmd(), stdout=subprocess.PIPE, stderr=child, env=dict(os.environ))
    os.close(child)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    out = proc.stdout.read().decode()
    assert proc.wait(timeout=600) == 0
    text = seen.decode()
    assert "\rbackfill [" in text and "transcripts" in text and " MB " in text and "turns" in text
    assert text.rstrip().split("\n")[-1].count("\r") >= 2, "redrawn in place on one line"
    total = sum(p.stat().st_size for p in files) / 1e6
    assert f"{len(files)}/{len(files)} transcripts  {total:.1f}/{total:.1f} MB  {len(expected)} turns" in text
    assert banked_in(out) == len(expected)


def test_ctrl_c_keeps_what_was_banked_and_a_rerun_goes_on(env):
    automem_home, expected, files = env
    proc = subprocess.Popen(
        backfill_cmd(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ)
    )
    first_line = proc.stderr.readline()  # the first progress line comes after the first turn is banked
    assert first_line.startswith("backfill: "), first_line
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err
    assert "interrupted" in out and f"Run `automem bank backfill --days {DAYS} --harness claude-code`" in out
    kept = banked_keys(automem_home)
    assert 0 < len(kept) < len(expected), "stopped part way"
    assert banked_in(out) == len(kept) and len(set(kept)) == len(kept)
    assert not list(automem_home.rglob(".*.tmp")), "no temp file left"

    again = subprocess.run(backfill_cmd(), capture_output=True, text=True, env=dict(os.environ), timeout=600)
    assert again.returncode == 0, again.stderr
    assert banked_in(again.stdout) == len(expected) - len(kept), "went on from where it stopped"
    keys = banked_keys(automem_home)
    assert len(keys) == len(set(keys)) and set(keys) == expected, "every turn banked exactly once"


def test_a_second_backfill_with_a_wider_window_reads_again(env):
    """Only a wider window re-reads: the turns between the old and the new start must be banked."""
    from automem.bank.passes import backfill
    from automem.home import Home
    from automem.index import bank_state
    from automem.index.db import connect

    home = Home.current().ensure()
    backfill(10, home, harnesses=["claude-code"])
    conn = connect(home)
    try:
        conn.execute("INSERT INTO cursors (path, harness) VALUES ('x', 'claude-code')")
        assert (
            bank_state.widen_window(conn, "claude-code", bank_state.window_start(conn, "claude-code", 0, 10) + 5)
            is False
        )
        assert conn.execute("SELECT count(*) FROM cursors").fetchone()[0] == 1, "same window: cursors kept"
        assert bank_state.widen_window(conn, "claude-code", 0.0) is True
        assert conn.execute("SELECT count(*) FROM cursors").fetchone()[0] == 0, "wider: read everything again"
    finally:
        conn.close()


def test_plain_progress_lines_are_throttled():
    import io

    clock = iter([0.0, 0.5, 1.0, 2.5, 2.6, 9.0]).__next__
    stream = io.StringIO()
    bar = ProgressBar(stream, "backfill", tty=False, clock=clock)
    for n in range(5):
        bar.update(Progress(files_done=n, files_total=5, bytes_done=n * 10**6, bytes_total=5 * 10**6, turns=n))
    bar.update(
        Progress(files_done=5, files_total=5, bytes_done=5 * 10**6, bytes_total=5 * 10**6, turns=7, finished=True)
    )
    assert stream.getvalue().splitlines() == [
        "backfill: 0/5 transcript(s), 0.0/5.0 MB, 0 turn(s) banked",
        "backfill: 3/5 transcript(s), 3.0/5.0 MB, 3 turn(s) banked",
        "backfill: 5/5 transcript(s), 5.0/5.0 MB, 7 turn(s) banked",
    ]

"""Growth is bounded and bad paths are refused: what piles up per session or per failure goes away."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from automem.extract.worker import prune_session_state
from automem.home import Home
from automem.index.db import connect


def test_worker_refuses_a_transcript_path_that_is_not_a_file(automem_home, tmp_path):
    Home.current().ensure()
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    for bad in (str(fifo), "/dev/zero"):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "automem.extract.worker",
                "--transcript",
                bad,
                "--session",
                "s-bad",
                "--harness",
                "claude-code",
            ],
            env=dict(os.environ),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0
    assert "not a regular file" in (automem_home / "log" / "automem.log").read_text()


def test_old_session_state_is_pruned(tmp_path):
    folder = tmp_path / "state" / "extract"
    folder.mkdir(parents=True)
    for name in ("old.json", "old.lock", "new.json", "store.lock", "clusters-x-1234.json"):
        (folder / name).write_text("{}")
    month_ago = time.time() - 40 * 86400
    for name in ("old.json", "old.lock", "store.lock", "clusters-x-1234.json"):
        os.utime(folder / name, (month_ago, month_ago))
    assert prune_session_state(str(tmp_path)) == 2
    assert sorted(p.name for p in folder.iterdir()) == ["clusters-x-1234.json", "new.json", "store.lock"]


def test_pruning_keeps_a_claim_a_live_worker_holds_and_the_family_map(tmp_path):
    """A month-old session resumed today: its worker's claim file is old but held; removing it would let a second
    worker take a fresh claim beside it."""
    import subprocess
    import sys

    folder = tmp_path / "state" / "extract"
    folder.mkdir(parents=True)
    for name in ("resumed.worker", "families.json", "gone.worker"):
        (folder / name).write_text("")
        month_ago = time.time() - 40 * 86400
        os.utime(folder / name, (month_ago, month_ago))
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(folder / 'resumed.worker')!r}, os.O_RDWR)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert prune_session_state(str(tmp_path)) == 1
        assert sorted(p.name for p in folder.iterdir()) == ["families.json", "resumed.worker"]
    finally:
        holder.kill()
        holder.wait()


def test_a_repeatedly_corrupted_index_keeps_only_a_few_copies(automem_home):
    home = Home.current().ensure()
    for _ in range(12):
        for part in home.root.glob("index.db*"):
            if ".corrupt-" not in part.name:
                part.unlink()
        home.index_db.write_bytes(b"this is not a database" * 100)
        connect(home).close()
        time.sleep(0.01)
    copies = [p for p in home.root.iterdir() if ".corrupt-" in p.name]
    assert 3 <= len(copies) <= 7, sorted(p.name for p in copies)

"""SIGKILL at random points, then a normal pass: nothing lost, nothing doubled, nothing left behind.

Each seed gets its own memory home over the same short real transcripts. `automem bank run` is killed at a
random delay within the time a whole pass takes; the Stop worker (started by the real hook, detached) likewise
within the time a whole Stop takes; then one normal pass (`automem bank run`, or the next Stop of the session)
must leave every finished turn banked exactly once, every memory stored once, index.db agreeing with the tree,
and no temp file, reservation or lock behind. Two more tests kill at a real seam, the moment
a Markdown file appears and before index.db records it, watched from outside (no test hook in the code).
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from conftest import CORPUS_TRANSCRIPTS, build_claude_transcripts, copy_id
from faultkit import (
    AUTOMEM,
    LESSONS,
    SEEDS,
    SHORT,
    bank_run,
    check_tree,
    env_for,
    finished_turns,
    fresh_home,
    memories,
    run_killed,
    run_seeds,
    stop_hook,
    wait_gone,
    wait_idle,
    worker_pids,
)

pytestmark = [
    pytest.mark.skipif(not CORPUS_TRANSCRIPTS.is_dir(), reason="shared corpus not present"),
    pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the detached worker through /proc"),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The user's HOME with the short transcripts, the turns they hold, and a clean run of each kind to compare
    with (and to size the kill delays by)."""
    root = tmp_path_factory.mktemp("faults")
    user = root / "user"
    files = build_claude_transcripts(user, stems=SHORT)
    assert len(files) == len(SHORT)
    lessons = next(p for p in files if p.stem == copy_id(LESSONS))
    clean = fresh_home(root / "clean-pass")
    started = time.monotonic()
    report, problem = bank_run(env_for(user, clean))
    pass_seconds = time.monotonic() - started
    assert not problem and report["errors"] == []
    turns = finished_turns(files)
    assert check_tree(clean, turns) == []

    clean_stop = fresh_home(root / "clean-stop", consent=True)
    session = lessons.stem
    started = time.monotonic()
    assert stop_hook(env_for(user, clean_stop), lessons, session).returncode == 0
    assert wait_idle(clean_stop, session)
    stop_seconds = time.monotonic() - started
    lesson_turns = finished_turns([lessons])
    reference = memories(clean_stop)
    assert reference, "the session yields lessons"
    assert check_tree(clean_stop, lesson_turns, reference) == []
    return {
        "root": root,
        "user": user,
        "turns": turns,
        "pass_seconds": pass_seconds,
        "lessons": lessons,
        "session": session,
        "lesson_turns": lesson_turns,
        "reference": reference,
        "stop_seconds": stop_seconds,
    }


@pytest.mark.slow  # one killed run per seed
def test_sigkill_of_bank_run_then_a_normal_pass(world):
    def one(seed: int) -> list[str]:
        rng = random.Random(seed)
        home = fresh_home(world["root"] / f"bank-{seed}")
        env = env_for(world["user"], home)
        run_killed([*AUTOMEM, "bank", "run"], env, rng.uniform(0.0, world["pass_seconds"] * 1.2))
        report, problem = bank_run(env)
        if problem:
            return [problem]
        return [f"errors: {report['errors']}"] * bool(report["errors"]) + check_tree(home, world["turns"])

    failed = run_seeds(range(SEEDS), one)
    assert not failed, failed


@pytest.mark.slow  # one killed run per seed
def test_sigkill_of_the_stop_worker_then_the_next_stop(world):
    """The worker the real hook started (detached, its own session) is killed; the session's next Stop must start
    a worker that finishes the job. The killed one may still hold its claim when the next Stop comes: its main
    thread is a zombie (so it looks gone) while its other threads are still exiting, and the fd goes with the
    last of them. The worker the next Stop starts waits for that claim."""
    lessons, session = world["lessons"], world["session"]

    def one(seed: int) -> list[str]:
        rng = random.Random(10_000 + seed)
        home = fresh_home(world["root"] / f"stop-{seed}", consent=True)
        env = env_for(world["user"], home)
        started = time.monotonic()
        if stop_hook(env, lessons, session).returncode != 0:
            return ["the Stop hook failed"]
        delay = rng.uniform(0.0, world["stop_seconds"] * 1.2)
        pids = []
        while time.monotonic() - started < delay:
            pids = pids or worker_pids(home)
            time.sleep(0.002)
        for pid in pids or worker_pids(home):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            wait_gone(pid)
        done = stop_hook(env, lessons, session)
        if done.returncode != 0:
            return ["the next Stop hook failed"]
        if not wait_idle(home, session):
            return ["the worker of the next Stop never finished"]
        return check_tree(home, world["lesson_turns"], world["reference"])

    failed = run_seeds(range(SEEDS), one)
    assert not failed, failed


def test_the_next_stop_waits_for_a_claim_its_holder_never_lets_go_of_by_itself(world):
    """The claim held by a process that does nothing more (as a killed worker whose threads are still exiting):
    the next Stop starts one worker, which waits for the claim; the Stops after it start none while it waits; once
    the kernel lets go, that worker does the whole job."""
    import fcntl

    from automem.extract.trigger import claim_paths

    lessons, session = world["lessons"], world["session"]
    home = fresh_home(world["root"] / "held-claim", consent=True)
    env = env_for(world["user"], home)
    claim = claim_paths(str(home), session)[0]
    Path(claim).parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(claim, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        for _ in range(3):
            assert stop_hook(env, lessons, session).returncode == 0
        assert len(worker_pids(home)) == 1
    finally:
        os.close(fd)
    assert wait_idle(home, session)
    assert check_tree(home, world["lesson_turns"], world["reference"]) == []


def _killed_when(cmd: list[str], env: dict, appeared) -> bool:
    """Start ``cmd`` and SIGKILL it the moment ``appeared()`` is true; False when it finished first."""
    proc = subprocess.Popen(
        cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    while proc.poll() is None:
        if appeared():
            proc.kill()
            proc.wait()
            return True
    return False


def _indexed(home: Path) -> set[str]:
    conn = sqlite3.connect(home / "index.db")
    try:
        return {row[0] for row in conn.execute("SELECT path FROM fts_docs")}
    finally:
        conn.close()


TRIES = 8  # kills per seam test; up to MAX_TRIES while none has landed inside the window yet
MAX_TRIES = 32


def _tries():
    """Seeds for a seam test: TRIES, and more while no kill has landed between the write and the index (timing on
    a loaded machine decides where a kill lands; a run where none did checked nothing about the seam)."""
    n = 0
    while n < TRIES or (not _tries.hits and n < MAX_TRIES):
        yield n
        n += 1


def _seam_result(name: str, hits: int, tries: int) -> None:
    print(f"{name} seam: {hits} of {tries} kills landed between the Markdown write and index.db")
    if not hits:
        pytest.skip(f"no kill of {tries} landed between the {name} write and the index update on this machine")


@pytest.mark.slow  # one killed run per seed
def test_kill_between_the_bank_entry_and_index_db(world):
    """Killed the moment the first entry is on disk: index.db neither lists it as banked nor has it in the
    search index yet; the next pass banks that turn once and indexes it."""
    hits = _tries.hits = 0
    for n in _tries():
        home = fresh_home(world["root"] / f"bank-seam-{n}")
        env = env_for(world["user"], home)
        if not _killed_when([*AUTOMEM, "bank", "run"], env, lambda home=home: any(home.glob("projects/*/bank/*.md"))):
            continue
        conn = sqlite3.connect(home / "index.db")
        banked = {row[0] for row in conn.execute("SELECT file FROM banked")}
        conn.close()
        written = {f"bank/{p.name}" for p in home.glob("projects/*/bank/*.md")}
        hits += bool(written - banked)
        _tries.hits = hits
        report, problem = bank_run(env)
        assert not problem and report["errors"] == []
        assert check_tree(home, world["turns"]) == []
    _seam_result("bank entry", hits, n + 1)


@pytest.mark.slow  # one killed run per seed
def test_kill_between_a_memory_file_and_index_db(world):
    """The worker killed the moment its first memory is on disk, before the search index has it: the next Stop
    stores no second copy, and the memory becomes searchable."""
    lessons, session = world["lessons"], world["session"]
    hits = _tries.hits = 0
    for n in _tries():
        home = fresh_home(world["root"] / f"memory-seam-{n}", consent=True)
        env = env_for(world["user"], home)
        worker = [
            *AUTOMEM[:1],
            "-m",
            "automem.extract.worker",
            "--harness",
            "claude-code",
            "--transcript",
            str(lessons),
            "--session",
            session,
        ]
        if not _killed_when(worker, env, lambda home=home: any(home.glob("projects/*/memories/*.md"))):
            continue
        written = {str(p.relative_to(home)) for p in home.glob("projects/*/memories/*.md")}
        hits += bool(written - _indexed(home))
        _tries.hits = hits
        assert stop_hook(env, lessons, session).returncode == 0
        assert wait_idle(home, session)
        assert check_tree(home, world["lesson_turns"], world["reference"]) == []
    _seam_result("memory", hits, n + 1)


def test_a_memory_written_and_never_indexed_is_indexed_by_the_next_stop(world):
    """The suite's find (2 of 200 seeds): a worker killed after writing a memory and before indexing it, and
    before it saved which candidates it had emitted. The next worker found the memory on disk as a duplicate of
    its own candidate and went on, so the memory stayed out of the search index (recall, brief, MCP search)."""
    from automem.capture.paths import safe_session_id

    lessons, session = world["lessons"], world["session"]
    home = fresh_home(world["root"] / "unindexed", consent=True)
    env = env_for(world["user"], home)
    assert stop_hook(env, lessons, session).returncode == 0
    assert wait_idle(home, session)
    conn = sqlite3.connect(home / "index.db")
    conn.execute("DELETE FROM fts_docs WHERE kind = 'memory'")  # as if killed between the write and the index
    conn.commit()
    conn.close()
    (home / "state" / "extract" / f"{safe_session_id(session)}.json").unlink()  # killed before it saved its state
    assert stop_hook(env, lessons, session).returncode == 0
    assert wait_idle(home, session)
    assert check_tree(home, world["lesson_turns"], world["reference"]) == []

"""The fault suite's tools: real subprocesses killed with SIGKILL, then the tree and index.db checked.

Nothing is mocked: ``automem bank run``, ``automem hook Stop`` and the detached worker it starts are the
installed code, on real SQLite and real files. Seeds make each kill point reproducible (the delay is drawn from
``random.Random(seed)``); the machine's speed decides where in the work it lands, so many seeds cover the
whole run. AUTOMEM_FAULT_SEEDS sets how many (default 50), AUTOMEM_FAULT_PARALLEL how many run at once.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SEEDS = int(os.environ.get("AUTOMEM_FAULT_SEEDS", "50"))
PARALLEL = int(os.environ.get("AUTOMEM_FAULT_PARALLEL", "3"))
AUTOMEM = [sys.executable, "-m", "automem"]
WAIT = 120.0  # a recovery that takes longer than this is a lock that blocks (no test asserts a time)

# short real transcripts (the shared corpus's), 16 finished turns in three projects
SHORT = (
    "8c880a68-969b-4b92-8733-a4927179d072",
    "44ef5cbf-9cc3-4f7b-ac40-337a4d39713b",
    "4291f85f-91f3-438c-bae8-50625b3dd674",
    "39a6ed90-2272-4df3-8711-01d1e3739b25",
)
LESSONS = "44ef5cbf-9cc3-4f7b-ac40-337a4d39713b"  # the one whose session yields lessons (memories)


def env_for(user_home: Path, automem_home: Path) -> dict:
    env = dict(os.environ)
    env.update(HOME=str(user_home), AUTOMEM_HOME=str(automem_home), AUTOMEM_MODEL="off")
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "AUTOMEM_HARNESS"):
        env.pop(name, None)
    return env


def fresh_home(path: Path, *, consent: bool = False) -> Path:
    """A memory home whose window reaches the corpus's turns (older than the default 30 days)."""
    from automem.bank.passes import backfill
    from automem.home import Home

    path.mkdir(parents=True)
    backfill(3650, Home(path))
    if consent:
        from automem import consent as consent_mod

        consent_mod.write(str(path), "yes")
    return path


def finished_turns(paths: list[Path]) -> set[str]:
    from automem.bank.passes import is_trivial
    from automem.harness import READERS

    keys: set[str] = set()
    for path in paths:
        keys |= {t.turn_key for t in READERS["claude-code"].read_turns(path) if t.finished and not is_trivial(t)}
    return keys


def run_killed(cmd: list[str], env: dict, delay: float) -> bool:
    """Start ``cmd`` and SIGKILL it ``delay`` seconds in; False when it finished first."""
    proc = subprocess.Popen(
        cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        proc.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return True


def bank_run(env: dict) -> tuple[dict | None, str]:
    """A normal `automem bank run`; (its JSON report, a problem) — a pass that never ends is a lock left behind."""
    try:
        done = subprocess.run(
            [*AUTOMEM, "bank", "run", "--json"], env=env, capture_output=True, text=True, timeout=WAIT
        )
    except subprocess.TimeoutExpired:
        return None, "the pass after the kill did not finish: a lock left behind blocks it"
    if done.returncode != 0:
        return None, f"bank run exited {done.returncode}: {done.stderr[-500:]}"
    return json.loads(done.stdout), ""


def stop_hook(env: dict, transcript: Path, session_id: str) -> subprocess.CompletedProcess:
    payload = {
        "session_id": session_id,
        "transcript_path": str(transcript),
        "cwd": "",
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    return subprocess.run(
        [*AUTOMEM, "hook", "Stop"], input=json.dumps(payload), env=env, capture_output=True, text=True, timeout=60
    )


def worker_pids(automem_home: Path) -> list[int]:
    """Live (not zombie) worker processes of this memory home, found through /proc."""
    want = f"AUTOMEM_HOME={automem_home}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if b"automem.extract.worker" not in (proc / "cmdline").read_bytes():
                continue
            if want not in (proc / "environ").read_bytes().split(b"\0"):
                continue
            if (proc / "stat").read_bytes().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                continue
        except OSError:
            continue
        found.append(int(proc.name))
    return found


def wait_idle(automem_home: Path, session_id: str, seconds: float = WAIT) -> bool:
    """Until no worker of this home runs and none holds the session's claim; False when that never comes."""
    from automem.extract.trigger import worker_running

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not worker_pids(automem_home) and not worker_running(str(automem_home), session_id):
            return True
        time.sleep(0.02)
    return False


def wait_gone(pid: int, seconds: float = 10.0) -> None:
    from automem.atomic import process_alive

    deadline = time.monotonic() + seconds
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.005)


# --- what must hold after a kill and one normal pass -----------------------------------------------------


def bank_entries(automem_home: Path) -> dict[str, list[Path]]:
    by_key: dict[str, list[Path]] = {}
    for path in sorted(automem_home.glob("projects/*/bank/*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("turn_key:"):
                by_key.setdefault(json.loads(line.split(":", 1)[1].strip()), []).append(path)
                break
    return by_key


def memories(automem_home: Path) -> Counter:
    from automem.store.memories import parse

    return Counter(
        (m.type, m.summary, m.status) for m in (parse(p) for p in sorted(automem_home.glob("projects/*/memories/*.md")))
    )


def check_tree(automem_home: Path, expected_turns: set[str], expected_memories: Counter | None = None) -> list[str]:
    """Every finished turn banked exactly once, every memory once, index.db agreeing with the tree, no temp
    file, no reservation, no unfinished project, no lock held (a worker waiting its turn included)."""
    problems = []
    by_key = bank_entries(automem_home)
    doubled = {k: [p.name for p in v] for k, v in by_key.items() if len(v) > 1}
    if doubled:
        problems.append(f"turns banked twice: {doubled}")
    if set(by_key) != expected_turns:
        problems.append(
            f"missing turns {sorted(expected_turns - set(by_key))}, extra {sorted(set(by_key) - expected_turns)}"
        )
    conn = sqlite3.connect(automem_home / "index.db")
    try:
        banked = dict(conn.execute("SELECT turn_key, project || '/' || file FROM banked").fetchall())
        if set(banked) != set(by_key):
            problems.append(f"index.db banked keys differ from the entries: {sorted(set(banked) ^ set(by_key))}")
        for key, rel in banked.items():
            if not (automem_home / "projects" / rel).is_file():
                problems.append(f"index.db says {key} is in {rel}, which does not exist")
        left = conn.execute("SELECT turn_key, owner FROM reservations").fetchall()
        if left:
            problems.append(f"reservations left: {left}")
        dirty = conn.execute("SELECT key FROM meta WHERE key LIKE 'bank_dirty:%'").fetchall()
        if dirty:
            problems.append(f"projects left unfinished: {dirty}")
        indexed = Counter(row[0] for row in conn.execute("SELECT path FROM fts_docs WHERE kind IN ('bank', 'memory')"))
    finally:
        conn.close()
    on_disk = {str(p.relative_to(automem_home)) for p in automem_home.glob("projects/*/bank/*.md")}
    on_disk |= {str(p.relative_to(automem_home)) for p in automem_home.glob("projects/*/memories/*.md")}
    if set(indexed) != on_disk or any(n > 1 for n in indexed.values()):
        problems.append(
            f"search index differs from the tree: not indexed {sorted(on_disk - set(indexed))}, "
            f"gone {sorted(set(indexed) - on_disk)}"
        )
    for main in automem_home.glob("projects/*/MAIN.md"):
        rows = [line for line in main.read_text(encoding="utf-8").splitlines() if line.startswith("- ")]
        entries = len(list(main.parent.glob("bank/*.md")))
        if len(rows) != min(entries, 200):
            problems.append(f"{main.parent.name}/MAIN.md lists {len(rows)} of {entries} entries")
    for project in {p.parent.parent for paths in by_key.values() for p in paths}:
        if not (project / "MAIN.md").is_file():
            problems.append(f"{project.name} has entries and no MAIN.md")
        days = {p.name[:10] for p in project.glob("bank/*.md")}
        for day in days:
            summary = project / "summaries" / f"{day}.md"
            if not summary.is_file():
                problems.append(f"{project.name}: no summary for {day}")
            elif summary.read_text(encoding="utf-8").count("\n- ") != len(list(project.glob(f"bank/{day}T*.md"))):
                problems.append(f"{project.name}: the summary of {day} misses entries")
    temps = [str(p.relative_to(automem_home)) for p in automem_home.rglob("*.tmp")]
    if temps:
        problems.append(f"temp files left: {temps}")
    extract = automem_home / "state" / "extract"
    for lock in [
        automem_home / "state" / "bank.lock",
        *extract.glob("*.lock"),
        *extract.glob("*.worker"),
        *extract.glob("*.next"),
        *extract.glob("*.again"),
    ]:
        if lock.exists() and _held(lock):
            problems.append(f"{lock.name} is still held")
    if expected_memories is not None:
        found = memories(automem_home)
        if found != expected_memories:
            problems.append(
                f"memories differ from a run with no kill: extra {dict(found - expected_memories)}, "
                f"missing {dict(expected_memories - found)}"
            )
    return problems


def _held(lock: Path) -> bool:
    from automem.extract.trigger import lock_held

    return lock_held(str(lock))


def run_seeds(seeds: range, one) -> dict[int, list[str]]:
    """``one(seed)`` for every seed, PARALLEL at a time; the seeds that found a problem, with what they found."""
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        results = dict(zip(seeds, pool.map(one, seeds), strict=True))
    return {seed: problems for seed, problems in results.items() if problems}

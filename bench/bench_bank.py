"""Autobank benchmark: throughput, an idle pass over 1,000 transcripts, and memory as files grow.

    .venv/bin/python bench/bench_bank.py [--strict]

1. Throughput: a first pass (with banking) over the real corpus copied N times
   into a fresh HOME, in MB/s of transcript; floor: the readers alone on the
   same files (what a pass cannot beat), measured in the same run; the best of
   three rounds of each, so a busy machine's spikes do not decide.
2. Idle pass: 1,000 transcripts already banked, nothing new: wall time of the
   pass (budget 100 ms), next to the floor of stat()ing the same files.
3. Memory: peak RSS of a pass over one 10 MB and one 100 MB transcript (made
   by repeating a real pi session with fresh timestamps), each in a new process.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "transcripts"
sys.path.insert(0, str(ROOT / "src"))


def lay_home(base: Path, copies: int) -> Path:
    """A HOME with the corpus's Claude, Codex and pi sessions copied ``copies`` times (fresh session ids)."""
    home = base / "home"
    for i in range(copies):
        for src in (CORPUS / "claude").glob("*/projects/*/*.jsonl"):
            dst = home / ".claude" / "projects" / f"{src.parent.name}-{i}" / f"{i:04d}{src.name[4:]}"
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dst)
        for src in (CORPUS / "codex").rglob("rollout-*.jsonl"):
            dst = home / ".codex" / "sessions" / "2026" / "01" / "01" / f"{src.stem}-{i}.jsonl"
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dst)
        src = CORPUS / "pi" / "pi-mono" / "large-session.jsonl"
        dst = home / ".pi" / "agent" / "sessions" / f"--work-{i}--" / f"2026-01-01T00-00-00-000Z_{i:08d}.jsonl"
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dst)
    return home


def throughput(base: Path, rounds: int = 3) -> float:
    """Best of ``rounds``: each round times the readers alone, then a first pass into a fresh AUTOMEM_HOME."""
    home = lay_home(base, copies=8)
    os.environ["HOME"] = str(home)
    from automem.bank.passes import backfill, run_pass
    from automem.harness import READERS

    files = {h: READERS[h].discover() for h in ("claude-code", "codex", "pi")}
    size = sum(p.stat().st_size for fs in files.values() for p in fs)
    floors, passes = [], []
    for i in range(rounds):
        os.environ["AUTOMEM_HOME"] = str(base / f"automem-{i}")
        start = time.perf_counter()
        for harness, paths in files.items():
            for path in paths:
                for _ in READERS[harness].read_turns(path):
                    pass
        floors.append(time.perf_counter() - start)
        backfill(36500)
        start = time.perf_counter()
        report = run_pass(budget_bytes=1 << 40)
        passes.append(time.perf_counter() - start)
    floor, took = min(floors), min(passes)
    print(f"throughput: {size / 1e6:.1f} MB, {report.banked} turns banked (best of {rounds} rounds)")
    print(f"  readers alone  {size / 1e6 / floor:8.1f} MB/s (floor)")
    print(f"  autobank pass  {size / 1e6 / took:8.1f} MB/s  ({took / floor:.2f}x floor; budget >= 50 MB/s)")
    return size / 1e6 / took


def idle_pass(base: Path) -> float:
    home = base / "idle-home"
    sessions = home / ".claude" / "projects" / "-work-many"
    sessions.mkdir(parents=True)
    src = (
        CORPUS
        / "claude"
        / "omarchy-backup"
        / "projects"
        / "-home-vwestberg-Claude"
        / "8c880a68-969b-4b92-8733-a4927179d072.jsonl"
    )
    data = src.read_bytes()
    for i in range(1000):
        (sessions / f"{i:08d}-0000-0000-0000-000000000000.jsonl").write_bytes(data)
    os.environ["HOME"] = str(home)
    os.environ["AUTOMEM_HOME"] = str(base / "idle-automem")
    from automem.bank.passes import backfill, run_pass
    from automem.harness import READERS

    backfill(36500)
    run_pass(budget_bytes=1 << 40)  # bank everything once
    files = READERS["claude-code"].discover()
    pass_times, stat_times = [], []
    for _ in range(15):
        start = time.perf_counter()
        for path in files:
            path.stat()
        stat_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        report = run_pass()
        pass_times.append(time.perf_counter() - start)
        assert report.banked == 0
    p, s = statistics.median(pass_times) * 1000, statistics.median(stat_times) * 1000
    print(
        f"idle pass over {len(files)} transcripts: {p:.1f} ms median (stat floor {s:.1f} "
        f"ms, {p / s:.1f}x; budget 100 ms)"
    )
    return p


def memory(base: Path) -> None:
    src = CORPUS / "pi" / "pi-mono" / "large-session.jsonl"
    lines = src.read_bytes().splitlines(keepends=True)
    header, body = lines[0], lines[1:]
    results = {}
    for mb in (10, 100):
        home = base / f"mem-{mb}"
        path = home / ".pi" / "agent" / "sessions" / "--work-mem--" / "2026-01-01T00-00-00-000Z_mem.jsonl"
        path.parent.mkdir(parents=True)
        with path.open("wb") as out:
            out.write(header)
            written, rep = 0, 0
            while written < mb * 1_000_000:
                for line in body:
                    record = json.loads(line)
                    if isinstance(record.get("message"), dict) and "timestamp" in record["message"]:
                        record["message"]["timestamp"] = int(record["message"]["timestamp"]) + rep * 10_000_000
                    chunk = (json.dumps(record) + "\n").encode()
                    out.write(chunk)
                    written += len(chunk)
                rep += 1
        code = (
            "import resource, sys; sys.path.insert(0, %r)\n"
            "from automem.bank.passes import backfill, run_pass\n"
            "backfill(36500); r = run_pass(budget_bytes=1 << 40)\n"
            "print(r.banked, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n" % str(ROOT / "src")
        )
        env = {**os.environ, "HOME": str(home), "AUTOMEM_HOME": str(home / "automem")}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        results[mb] = (int(out[0]), int(out[1]) / 1024)
        print(f"memory: {mb:4d} MB transcript -> {results[mb][0]} turns banked, peak RSS {results[mb][1]:.1f} MB")
    print(f"  peak RSS ratio 100 MB / 10 MB: {results[100][1] / results[10][1]:.2f}x (flat ~ 1x)")


def main() -> int:
    strict = "--strict" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        rate = throughput(base)
        idle = idle_pass(base)
        memory(base)
    ok = rate >= 50 and idle <= 100
    print("within budget" if ok else "OVER BUDGET")
    return 0 if ok or not strict else 1


if __name__ == "__main__":
    sys.exit(main())

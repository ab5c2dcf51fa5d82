"""Transcript reader throughput and memory.

1. MB/s of every corpus transcript (Claude Code, Codex, pi) through its reader, repeated until
   more than 50 MB went through, next to a floor measured in the same run (bare line iteration +
   json.loads of the same bytes). Budget: >= 20 MB/s.
2. Peak RSS of a fresh process reading a 10 MB and a 100 MB synthetic Claude Code transcript (a
   real file's turns repeated with fresh ids, written to /tmp at run time): memory must stay flat.

Run: .venv/bin/python bench/bench_readers.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "transcripts"
sys.path.insert(0, str(ROOT / "src"))

from automem.harness import claude_code, codex, pi  # noqa: E402

TARGET_MB_PER_S = 20.0
SEED_FILE = (
    CORPUS
    / "claude"
    / "omarchy-backup"
    / "projects"
    / "-home-vwestberg-Claude"
    / "44ef5cbf-9cc3-4f7b-ac40-337a4d39713b.jsonl"
)


def corpus_files() -> list[tuple[object, Path]]:
    files = []
    for path in sorted((CORPUS / "claude").rglob("*.jsonl")):
        files.append((claude_code, path))
    for path in sorted((CORPUS / "codex").rglob("*.jsonl")):
        files.append((codex, path))
    for path in sorted((CORPUS / "pi").rglob("*.jsonl")):
        files.append((pi, path))
    return files


def floor_pass(files) -> None:
    for _, path in files:
        with open(path, "rb") as handle:
            for line in handle:
                try:
                    json.loads(line)
                except ValueError:
                    pass


def reader_pass(files) -> int:
    turns = 0
    for module, path in files:
        for _ in module.read_turns(path, now=0):
            turns += 1
    return turns


def throughput() -> None:
    files = corpus_files()
    size = sum(p.stat().st_size for _, p in files)
    repeats = max(1, int(50e6 // size) + 1)
    floor_pass(files)
    reader_pass(files)  # warm the page cache and imports
    start = time.perf_counter()
    for _ in range(repeats):
        floor_pass(files)
    floor_s = time.perf_counter() - start
    start = time.perf_counter()
    turns = 0
    for _ in range(repeats):
        turns += reader_pass(files)
    reader_s = time.perf_counter() - start
    total_mb = size * repeats / 1e6
    mbps = total_mb / reader_s
    floor_mbps = total_mb / floor_s
    print(f"corpus: {len(files)} files, {size / 1e6:.2f} MB x {repeats} = {total_mb:.1f} MB, {turns} turns")
    print(f"floor (lines + json.loads): {floor_mbps:.1f} MB/s")
    print(
        f"readers:                    {mbps:.1f} MB/s  ({mbps / floor_mbps:.2f}x floor)  "
        f"target >= {TARGET_MB_PER_S:.0f} MB/s: "
        f"{'OK' if mbps >= TARGET_MB_PER_S else 'BELOW'}"
    )


def synthesize(target_bytes: int, out: Path) -> int:
    """Repeat the seed file's lines with fresh uuids/message ids until ``target_bytes``."""
    lines = SEED_FILE.read_bytes().splitlines(keepends=True)
    written = 0
    copy = 0
    with open(out, "wb") as handle:
        while written < target_bytes:
            tag = f"{copy:06d}-".encode()
            for line in lines:
                fresh = line.replace(b'"uuid":"', b'"uuid":"' + tag).replace(b'"parentUuid":"', b'"parentUuid":"' + tag)
                fresh = fresh.replace(b'"id":"msg_', b'"id":"msg_' + tag)
                handle.write(fresh)
                written += len(fresh)
            copy += 1
    return written


CHILD = """
import resource, sys, time
sys.path.insert(0, {src!r})
from automem.harness import claude_code
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
n = sum(1 for t in claude_code.read_turns({path!r}, now=0) if t.finished)
took = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(n, base, peak, took)
"""


def memory() -> None:
    results = {}
    with tempfile.TemporaryDirectory(prefix="automem-bench-") as tmp:
        for label, size in (("10 MB", 10_000_000), ("100 MB", 100_000_000)):
            path = Path(tmp) / f"synthetic-{label.replace(' ', '')}.jsonl"
            written = synthesize(size, path)
            code = CHILD.format(src=str(ROOT / "src"), path=str(path))
            out = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout.split()
            turns, base_kb, peak_kb, took = int(out[0]), int(out[1]), int(out[2]), float(out[3])
            results[label] = peak_kb
            print(
                f"{label:>6}: {written / 1e6:6.1f} MB, {turns:6d} finished turns, peak RSS {peak_kb / 1024:6.1f} MB "
                f"(imports {base_kb / 1024:.1f} MB, reading added "
                f"{(peak_kb - base_kb) / 1024:.1f} MB), {written / 1e6 / took:.1f} MB/s"
            )
            path.unlink()
    ratio = results["100 MB"] / results["10 MB"]
    print(f"peak RSS ratio 100 MB / 10 MB file: {ratio:.2f}x (flat means close to 1.0x)")


if __name__ == "__main__":
    if not CORPUS.is_dir():
        sys.exit(f"corpus not found at {CORPUS}")
    throughput()
    memory()

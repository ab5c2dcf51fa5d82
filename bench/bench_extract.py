"""Benchmarks of the Stop hook, the extractor and dedupe (printed as figures and ratios, never asserted).

1. Stop hook, whole process, against the floor: a Python process that only parses the payload
   (budget: <= 2x; the extraction itself is detached).
2. Extraction of a 2 MB transcript, in process (budget: <= 1 s).
3. One dedupe check against 10,000 memories (budget: <= 20 ms): SQLite FTS5 (what extract uses)
   against rank-bm25, on the same texts.
4. The Stop worker, whole process (bank + extract + index sweep), in CPU-seconds, on real corpus
   transcripts with their timestamps moved to the last hour (so the bank window takes them), against
   two floors: json.loads of every line of the transcript (in process), and a Python that starts,
   imports nothing of automem and does that same json.loads. Once with every turn new to it, once as a
   Stop in a session under way: the turns before the last prompt banked by earlier Stops.

    .venv/bin/python bench/bench_extract.py
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 15


def median_ms(func, runs: int = RUNS, settle: float = 0.0) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        times.append((time.perf_counter() - start) * 1000)
        time.sleep(settle)  # untimed: lets a detached worker finish so it does not slow the next run
    return statistics.median(times)


def bench_stop_hook(tmp: Path) -> None:
    payload = json.dumps(
        {
            "session_id": "bench",
            "hook_event_name": "Stop",
            "cwd": str(tmp),
            "transcript_path": str(tmp / "missing.jsonl"),
            "stop_hook_active": False,
        }
    )
    env = {**os.environ, "AUTOMEM_HOME": str(tmp / "home"), "HOME": str(tmp)}
    floor = [sys.executable, "-c", "import json, sys; json.load(sys.stdin)"]
    hook = [sys.executable, "-m", "automem.capture.hook", "Stop"]

    def run(argv):
        subprocess.run(argv, input=payload, text=True, env=env, capture_output=True, check=False)

    floor_ms = median_ms(lambda: run(floor), settle=0.6)
    hook_ms = median_ms(lambda: run(hook), settle=0.6)
    print(
        f"stop hook: {hook_ms:.1f} ms median vs parse floor {floor_ms:.1f} ms -> {hook_ms / floor_ms:.2f}x (budget 2x)"
    )


def make_transcript(path: Path, size: int = 2_000_000) -> None:
    """A synthetic Claude Code transcript: the bundled demo turns repeated with fresh ids."""
    from importlib import resources

    template = (resources.files("automem") / "data" / "demo_session" / "transcript.jsonl").read_text()
    template = template.replace("{cwd}", str(path.parent / "proj"))
    filler = "x" * 3000
    with path.open("w") as out:
        i = 0
        while out.tell() < size:
            block = template.replace("toolu_demo_", f"toolu_{i}_").replace('"d-', f'"{i}-')
            block = block.replace("3 passed in 0.06s", f"3 passed in 0.06s {filler}")
            out.write(block)
            i += 1


def bench_extract(tmp: Path) -> None:
    home_dir = tmp / "xhome"
    os.environ["AUTOMEM_HOME"] = str(home_dir)
    from automem import consent
    from automem.extract.pipeline import extract
    from automem.home import Home

    home = Home(home_dir).ensure()
    consent.write(home.root, "yes")
    transcript = tmp / "big.jsonl"
    make_transcript(transcript)
    size = transcript.stat().st_size
    start = time.perf_counter()
    result = extract(home, session_id="big", transcript=transcript, use_model=False)
    seconds = time.perf_counter() - start
    print(f"extract: {size / 1e6:.1f} MB transcript in {seconds:.2f} s ({len(result.stored)} stored; budget 1 s)")


def corpus(n: int) -> list[str]:
    rng = random.Random(7)
    words = (
        "pytest npm pnpm docker build cache import module path env config theme color commit branch test lint "
        "format release deploy server port api token database migration schema index query shell bash python "
        "node vite react component render width file tree filter session sandbox escalate permission"
    ).split()
    return [" ".join(rng.choice(words) for _ in range(rng.randint(8, 30))) + f" item{i}" for i in range(n)]


def bench_dedupe() -> None:
    from automem.extract.dedupe import Deduper, _terms

    texts = corpus(10_000)
    queries = corpus(50)
    start = time.perf_counter()
    deduper = Deduper(texts)
    build_fts = (time.perf_counter() - start) * 1000
    it = iter(queries * 10)
    fts_ms = median_ms(lambda: deduper.best(next(it)), runs=50)
    print(
        f"dedupe FTS5: {fts_ms:.2f} ms per check on 10,000 memories (index built in {build_fts:.0f} ms; budget 20 ms)"
    )
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        print("dedupe rank-bm25: not installed")
        return
    start = time.perf_counter()
    bm25 = BM25Okapi([_terms(t) for t in texts])
    build_bm = (time.perf_counter() - start) * 1000
    it2 = iter(queries * 10)
    bm_ms = median_ms(lambda: bm25.get_scores(_terms(next(it2))), runs=50)
    print(
        f"dedupe rank-bm25: {bm_ms:.2f} ms per check (index built in {build_bm:.0f} ms) -> "
        f"FTS5 is {bm_ms / fts_ms:.1f}x faster"
    )


_STAMP = None


def _fresh_copy(src: Path, dst: Path) -> None:
    """The transcript with every ISO timestamp moved so that its last one was half an hour ago."""
    import re
    from datetime import datetime, timedelta, timezone

    global _STAMP
    _STAMP = _STAMP or re.compile(r'"timestamp":\s*"(\d{4}-\d\d-\d\dT[\d:.]+Z)"')
    text = src.read_text(encoding="utf-8")
    stamps = [datetime.fromisoformat(s.replace("Z", "+00:00")) for s in _STAMP.findall(text)]
    delta = datetime.now(timezone.utc) - timedelta(minutes=30) - max(stamps)

    def shift(match):
        moved = datetime.fromisoformat(match.group(1).replace("Z", "+00:00")) + delta
        return f'"timestamp":"{moved.strftime("%Y-%m-%dT%H:%M:%S")}.{moved.microsecond // 1000:03d}Z"'

    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(_STAMP.sub(shift, text), encoding="utf-8")


def _child_cpu(argv: list[str], env: dict) -> float:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


_PARSE = "import json, sys\nfor line in open(sys.argv[1], 'rb'):\n    json.loads(line)"  # the process floor


def _worker_sources() -> list[Path]:
    """The three largest Claude Code transcripts of the corpus."""
    corpus_dir = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "transcripts" / "claude"
    return sorted(corpus_dir.glob("*/projects/*/*.jsonl"), key=lambda p: p.stat().st_size)[-3:]


def _worker_run(base: Path, src: Path) -> tuple[Path, dict, list[str]]:
    """A fresh home with consent and the transcript under base: (transcript, environment, the worker's command)."""
    transcript = base / ".claude" / "projects" / "-work-proj" / src.name
    _fresh_copy(src, transcript)
    env = {**os.environ, "AUTOMEM_HOME": str(base / "home"), "HOME": str(base)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "automem", "consent", "yes"], env=env, capture_output=True)
    argv = [sys.executable, "-m", "automem.extract.worker", "--session", src.stem, "--transcript", str(transcript)]
    return transcript, env, [*argv, "--harness", "claude-code", "--cwd", str(base / "proj")]


def _banked(home: Path) -> int:
    return len(list((home / "projects").glob("*/bank/*.md")))


def bench_worker(tmp: Path, runs: int = 3) -> None:
    sources = _worker_sources()
    if not sources:
        print("worker: no corpus transcripts found (../shared/corpus), skipped")
        return
    from automem.extract.trigger import worker_env

    for src in sources:
        rows = []
        for run in range(runs):
            base = tmp / f"worker-{src.stem[:8]}-{run}"
            transcript, env, argv = _worker_run(base, src)
            start = time.process_time()
            with open(transcript, "rb") as handle:
                for line in handle:
                    json.loads(line)
            floor = time.process_time() - start
            process_floor = _child_cpu([sys.executable, "-c", _PARSE, str(transcript)], env)
            worker = _child_cpu(argv, worker_env(env))  # started the way the Stop hook starts it (its environment)
            rows.append((worker, floor, process_floor, _banked(base / "home")))
        worker, floor, process_floor = (statistics.median(r[i] for r in rows) for i in range(3))
        print(
            f"worker on {src.stat().st_size / 1e6:.1f} MB ({rows[-1][3]} turns banked): {worker:.3f} CPU-s; "
            f"json.loads floor {floor:.3f} s ({worker / floor:.0f}x), python + json.loads {process_floor:.3f} s "
            f"({worker / process_floor:.1f}x)"
        )


def _last_banked_offset(path: Path, home: Path) -> int:
    """Where the last turn a worker banked from this transcript starts (its prompt's line), or 0: read from the
    ``turn_key`` of the bank entries in home (``<harness>:<session>:<prompt uuid>``)."""
    import re

    keys = set()
    for entry in home.glob("projects/*/bank/*.md"):
        found = re.search(r'^turn_key: "?[^:"]+:[^:"]+:([^"\n]+)"?$', entry.read_text(encoding="utf-8"), re.M)
        if found:
            keys.add(found.group(1))
    offset = last = 0
    with path.open("rb") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            if isinstance(record, dict) and record.get("uuid") in keys:
                last = offset
            offset += len(line)
    return last


def bench_worker_last_turn(tmp: Path, runs: int = 3) -> None:
    """The worker as a Stop starts it in a session under way: the turns before the last one it banks were banked and
    extracted by earlier Stops (an untimed run on the transcript cut there), then the whole transcript."""
    from automem.extract.trigger import worker_env

    for src in _worker_sources():
        rows = []
        for run in range(runs):
            base = tmp / f"last-{src.stem[:8]}-{run}"
            transcript, env, argv = _worker_run(base, src)
            whole = transcript.read_bytes()
            scratch = {**env, "AUTOMEM_HOME": str(base / "scratch")}
            subprocess.run([sys.executable, "-m", "automem", "consent", "yes"], env=scratch, capture_output=True)
            _child_cpu(argv, worker_env(scratch))  # which turns a worker banks: the last of them is the one timed
            transcript.write_bytes(whole[: _last_banked_offset(transcript, base / "scratch")])
            _child_cpu(argv, worker_env(env))  # the earlier Stops
            before = _banked(base / "home")
            transcript.write_bytes(whole)
            worker = _child_cpu(argv, worker_env(env))
            rows.append(
                (
                    worker,
                    _child_cpu([sys.executable, "-c", _PARSE, str(transcript)], env),
                    _banked(base / "home") - before,
                )
            )
        worker, process_floor = (statistics.median(r[i] for r in rows) for i in range(2))
        print(
            f"worker, last turn of {src.stat().st_size / 1e6:.1f} MB ({rows[-1][2]} turns banked): {worker:.3f} CPU-s; "
            f"python + json.loads {process_floor:.3f} s ({worker / process_floor:.1f}x)"
        )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="automem-bench-") as tmp:
        bench_stop_hook(Path(tmp))
        bench_extract(Path(tmp))
        bench_dedupe()
        bench_worker(Path(tmp))
        bench_worker_last_turn(Path(tmp))


if __name__ == "__main__":
    main()

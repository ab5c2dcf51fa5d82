"""A burst of Stop events for one session: how many workers start, and what the burst costs in CPU-seconds.

16 `automem hook Stop` at once for one session, next to a single Stop, each on a fresh memory home (consent
given, the same transcript: the bundled demo session repeated with fresh turn ids). This process makes itself
the subreaper of everything it starts (Linux prctl), so the detached workers, orphaned when their hook
returns, are reaped here: the CPU-seconds are those of every hook and every worker, and the workers are
counted as they are reaped. Figures are printed, never asserted.

    .venv/bin/python bench/bench_burst.py [--burst 16]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36


def make_transcript(path: Path, repeats: int = 20) -> None:
    from importlib import resources

    template = (resources.files("automem") / "data" / "demo_session" / "transcript.jsonl").read_text()
    template = template.replace("{cwd}", str(path.parent / "proj"))
    with path.open("w") as out:
        for n in range(repeats):
            for line in template.splitlines():
                record = json.loads(line)
                for key in ("uuid", "parentUuid"):
                    if record.get(key):
                        record[key] = f"{record[key]}-{n}"
                out.write(json.dumps(record) + "\n")
    old = time.time() - 3600
    os.utime(path, (old, old))  # every turn settled


def run_stops(tmp: Path, name: str, count: int) -> tuple[int, float, float]:
    """``count`` Stop hooks at once on a fresh home; (workers started, CPU-seconds of all, wall seconds to idle,
    CPU-seconds of the workers alone)."""
    from automem import consent
    from automem.bank.passes import backfill
    from automem.home import Home

    home = tmp / name
    home.mkdir()
    consent.write(str(home), "yes")
    backfill(3650, Home(home))  # the demo's turns are older than the default window: bank them too
    transcript = tmp / "transcript.jsonl"
    payload = tmp / f"{name}.json"
    payload.write_text(
        json.dumps(
            {
                "session_id": "burst",
                "hook_event_name": "Stop",
                "cwd": str(tmp / "proj"),
                "transcript_path": str(transcript),
                "stop_hook_active": False,
            }
        )
    )
    env = {**os.environ, "AUTOMEM_HOME": str(home), "HOME": str(tmp), "AUTOMEM_MODEL": "off"}
    argv = [sys.executable, "-m", "automem", "hook", "Stop"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    hooks = set()
    for _ in range(count):
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, str(payload), os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        ]
        hooks.add(os.posix_spawn(argv[0], argv, env, file_actions=actions))
    workers = 0
    worker_cpu = 0.0
    while True:
        try:
            pid, _status, usage = os.wait4(-1, 0)
        except ChildProcessError:
            break  # every hook and every worker it started (adopted by this subreaper) has ended
        if pid not in hooks:
            workers += 1
            worker_cpu += usage.ru_utime + usage.ru_stime
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return workers, cpu, wall, worker_cpu


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--burst", type=int, default=16)
    args = parser.parse_args()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("needs Linux (prctl PR_SET_CHILD_SUBREAPER) to count the detached workers")
        return 1
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        make_transcript(tmp / "transcript.jsonl")
        one = run_stops(tmp, "one", 1)
        burst = run_stops(tmp, "burst", args.burst)
    print(
        f"1 Stop: {one[0]} worker(s), {one[1]:.2f} CPU-s (hook + worker; workers {one[3]:.2f}), "
        f"idle after {one[2]:.2f} s"
    )
    print(
        f"{args.burst} Stops at once: {burst[0]} worker(s), {burst[1]:.2f} CPU-s (workers {burst[3]:.2f}), "
        f"idle after {burst[2]:.2f} s -> {burst[1] / one[1]:.2f}x the CPU of one Stop"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Whole-process latency of the installed capture hook, as a ratio to a bare Python floor.

Run: ``python bench/bench_capture_hook.py [--runs N] [--strict]``. For each capture
event it times ``<venv>/bin/automem hook <Event>`` with a realistic payload on stdin,
interleaved run by run with the floor: the same venv Python running
``-c "import sys, json; json.loads(sys.stdin.buffer.read())"`` on the same payload.
Both are started the same way (a console script / a plain interpreter, with ``site``),
so the ratio is what the hook adds over the cheapest Python a harness could run.
Budget (DESIGN.md): <= 1.5x, and <= 2x for a 50 MB prompt (scanned by its head and tail). ``--strict`` exits 1
when a case is over budget.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUDGET = 1.5
BUDGETS = {"UserPromptSubmit 50MB": 2.0}  # a paste that size: DESIGN.md's budget is twice what parsing it costs
TIME_BIN = "/usr/bin/time"
FLOOR_CODE = "import sys, json; json.loads(sys.stdin.buffer.read())"
REPO = Path(__file__).resolve().parents[1]


def venv_bin() -> Path:
    """The folder holding the installed ``automem`` script and its Python."""
    for candidate in (REPO / ".venv" / "bin", Path(sys.executable).parent):
        if (candidate / "automem").exists():
            return candidate
    sys.exit("no installed automem console script found (.venv/bin/automem); run install.py or pip install -e .")


def traceback_output(size: int) -> str:
    """About ``size`` bytes of test-runner output with a Python traceback near the end."""
    lines = [f"tests/test_mod_{i % 40}.py::test_case_{i} PASSED{' ' * (i % 7)} [{i % 100:3d}%]" for i in range(4000)]
    head = "\n".join(lines)[: size - 1500]
    tail = (
        "\n=================================== FAILURES ===================================\n"
        "Traceback (most recent call last):\n"
        '  File "/home/dev/project/src/app/models.py", line 214, in load\n'
        "    return cls(**json.loads(raw))\n"
        '  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads\n'
        "    return _default_decoder.decode(s)\n"
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"
        "ERROR tests/test_models.py::test_load - json.decoder.JSONDecodeError\n"
        "========================= 1 failed, 3999 passed in 12.34s =========================\n"
    )
    return head + tail


def payloads() -> dict[str, dict]:
    common = {
        "session_id": "7f3c2a9e-bench-4a51-9d2e-2b6f0c1d8e77",
        "transcript_path": "/home/dev/.claude/projects/-home-dev-project/7f3c2a9e-bench-4a51-9d2e-2b6f0c1d8e77.jsonl",
        "cwd": "/home/dev/project",
        "permission_mode": "default",
    }
    command = {"command": "python -m pytest -x tests/", "description": "Run the test suite"}
    return {
        "PreToolUse": {
            **common,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": command,
            "tool_use_id": "toolu_01BenchPre",
        },
        "PostToolUse": {
            **common,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": command,
            "tool_response": {
                "stdout": traceback_output(100_000),
                "stderr": "",
                "interrupted": False,
                "isImage": False,
            },
            "tool_use_id": "toolu_01BenchPost",
            "duration_ms": 12340,
        },
        "UserPromptSubmit": {
            **common,
            "hook_event_name": "UserPromptSubmit",
            "prompt_id": "bench-prompt",
            "prompt": "No, don't mock the database in these tests. From now on always use the "
            "real SQLite file under tmp_path, and keep the fixtures small.",
        },
        # a 50 MB paste: the hook scans its head and tail only, so it costs what parsing it costs
        "UserPromptSubmit 50MB": {
            **common,
            "hook_event_name": "UserPromptSubmit",
            "prompt_id": "bench-prompt-big",
            "prompt": ("Why does this log end in a crash?\n" + traceback_output(100_000) * 500)[:50_000_000],
        },
    }


def run_once(argv: list[str], stdin_path: str, env: dict) -> float:
    """Wall time (s) of one child, payload on stdin, stdout discarded."""
    with open(stdin_path, "rb") as stdin, open(os.devnull, "wb") as devnull:
        start = time.perf_counter()
        pid = os.posix_spawn(
            argv[0],
            argv,
            env,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, stdin.fileno(), 0),
                (os.POSIX_SPAWN_DUP2, devnull.fileno(), 1),
            ],
        )
        _, status = os.waitpid(pid, 0)
        elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv} exited with status {status}")
    return elapsed


def peak_rss_kb(argv: list[str], stdin_path: str, env: dict, runs: int = 5) -> int | None:
    """Peak RSS of the child, through /usr/bin/time.

    Not from our own wait4(): Linux carries the parent's high-water mark into a
    vfork/fork child across exec, so a child of this (bigger) process would
    report our RSS. /usr/bin/time is a small C program, so its child reports its own.
    """
    if not os.path.exists(TIME_BIN):
        return None
    peak = 0
    for _ in range(runs):
        with open(stdin_path, "rb") as stdin:
            done = subprocess.run(
                [TIME_BIN, "-f", "%M", *argv],
                stdin=stdin,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=env,
                check=True,
            )
        peak = max(peak, int(done.stderr.split()[-1]))
    return peak


def bytecode_env(tmp: str, as_is: bool) -> dict:
    """The children's environment: a throwaway memory home, and bytecode caching on.

    A real install has .pyc files (pip compiles them); a shell with
    PYTHONDONTWRITEBYTECODE=1 and an editable install would recompile automem's
    sources on every hook call. PYTHONPYCACHEPREFIX keeps the cache out of the tree.
    Floor and hook get the same environment.
    """
    env = {**os.environ, "AUTOMEM_HOME": os.path.join(tmp, "home"), "HOME": tmp}
    if not as_is:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
    return env


def _mb(kb: int | None) -> str:
    return "n/a" if kb is None else f"{kb / 1024:.1f}MB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="runs per case and per side (>= 30 recommended)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a case is over the 1.5x budget")
    parser.add_argument(
        "--as-is", action="store_true", help="keep the environment's bytecode settings (e.g. PYTHONDONTWRITEBYTECODE=1)"
    )
    args = parser.parse_args()

    bindir = venv_bin()
    python, automem = str(bindir / "python"), str(bindir / "automem")
    over = []
    with tempfile.TemporaryDirectory(prefix="automem-bench-") as tmp:
        env = bytecode_env(tmp, args.as_is)
        cache = "as the environment says" if args.as_is else "bytecode cached in a temp PYTHONPYCACHEPREFIX"
        print(f"capture hook vs floor, {args.runs} interleaved runs each, {automem}, {cache}")
        print(
            f"{'event':<22}{'payload':>10}{'hook ms':>10}{'floor ms':>10}{'ratio':>8}{'hook RSS':>11}{'floor RSS':>11}"
        )
        for event, payload in payloads().items():
            stdin_path = os.path.join(tmp, f"{event.replace(' ', '-')}.json")
            data = json.dumps(payload).encode()
            Path(stdin_path).write_bytes(data)
            hook_argv, floor_argv = [automem, "hook", payload["hook_event_name"]], [python, "-c", FLOOR_CODE]
            for _ in range(3):  # warm the page cache and the spool directory
                run_once(hook_argv, stdin_path, env)
                run_once(floor_argv, stdin_path, env)
            hook_t, floor_t = [], []
            for _ in range(args.runs if len(data) < 10_000_000 else max(5, args.runs // 8)):
                floor_t.append(run_once(floor_argv, stdin_path, env))
                hook_t.append(run_once(hook_argv, stdin_path, env))
            hook_rss, floor_rss = peak_rss_kb(hook_argv, stdin_path, env), peak_rss_kb(floor_argv, stdin_path, env)
            hook_ms, floor_ms = statistics.median(hook_t) * 1000, statistics.median(floor_t) * 1000
            ratio = hook_ms / floor_ms
            if ratio > BUDGETS.get(event, BUDGET):
                over.append(event)
            print(
                f"{event:<22}{len(data) / 1024:>8.1f}KB{hook_ms:>10.1f}{floor_ms:>10.1f}{ratio:>7.2f}x"
                f"{_mb(hook_rss):>11}{_mb(floor_rss):>11}"
            )
        spool = Path(env["AUTOMEM_HOME"], "spool")
        lines = sum(len(p.read_bytes().splitlines()) for p in spool.glob("*.jsonl*")) if spool.exists() else 0
        log = Path(env["AUTOMEM_HOME"], "log", "automem.log")
        print(f"spool lines written: {lines}; log lines: {len(log.read_text().splitlines()) if log.exists() else 0}")
    print(f"budget {BUDGET}x (a 50 MB prompt 2x): " + ("over for " + ", ".join(over) if over else "all within"))
    return 1 if over and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())

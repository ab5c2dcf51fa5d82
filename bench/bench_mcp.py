"""`automem mcp` start-up on a tree of 10,000 memories: spawn to the initialize and tools/list answers.

Run: ``python bench/bench_mcp.py [--memories N] [--runs N] [--no-sdk] [--strict]`` (with the venv's Python).

Per run, interleaved: a bare venv Python start (``python -c pass``, the floor), then ``<venv>/bin/automem mcp``
(cwd = the big project) driven over its pipes as a client does: the initialize request, then
notifications/initialized and tools/list, each timed from the spawn to its answer. Unless --no-sdk, the same
tools served by the MCP SDK's own server (automem.mcp_sdk, what ``automem mcp`` ran before its stdio server)
are timed the same way, for comparison. After the runs, one session also times a first memory_search (index
already built) and a memory_bank (dedupe over the project's memories). Budget: tools listed within 3x the
bare Python start (median).
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
BUDGET_RATIO = 3.0
SDK_SERVER = "from automem.mcp_sdk import build_server; build_server().run('stdio')"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


def _venv_bin() -> Path:
    return REPO / ".venv" / "bin"


def _timed_process(argv: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


class Session:
    """One server process, spoken to line by line over its pipes."""

    def __init__(self, argv: list[str], env: dict, cwd: Path) -> None:
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=cwd)
        self.next_id = 1

    def send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def ask(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, **({"params": params} if params else {})})
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.next_id:
                return reply

    def open(self) -> tuple[float, float, int]:
        """Seconds from the spawn to the initialize answer and to the tools/list answer, and the tool count."""
        self.send(INIT)
        json.loads(self.proc.stdout.readline())
        initialized = time.perf_counter() - self.start
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = self.ask("tools/list")["result"]["tools"]
        return initialized, time.perf_counter() - self.start, len(tools)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-sdk", action="store_true", help="do not time the MCP SDK's server for comparison")
    parser.add_argument("--strict", action="store_true", help="exit 1 when the median start-up is over budget")
    args = parser.parse_args(argv)

    from bench_recall import make_tree

    from automem.home import find_project_root, project_slug
    from automem.index.sync import reindex

    with tempfile.TemporaryDirectory(prefix="automem-bench-mcp-") as tmp:
        root = Path(tmp)
        home, cwd = root / "home", root / "work" / "bigproject"
        cwd.mkdir(parents=True)
        env = {**os.environ, "AUTOMEM_HOME": str(home), "HOME": str(root), "AUTOMEM_MODEL": "off"}
        os.environ["AUTOMEM_HOME"] = str(home)
        slug = project_slug(find_project_root(str(cwd)))
        t = time.perf_counter()
        make_tree(home, slug, args.memories, 0)
        reindex(str(home))
        print(f"tree: {args.memories} memories in {slug}, indexed in {time.perf_counter() - t:.1f}s")

        python = str(_venv_bin() / "python")
        ours_argv = [str(_venv_bin() / "automem"), "mcp"]
        bare, init, listed, sdk_init, sdk_listed = [], [], [], [], []
        count = 0
        for _ in range(args.runs):
            bare.append(_timed_process([python, "-c", "pass"], env))
            session = Session(ours_argv, env, cwd)
            a, b, count = session.open()
            session.close()
            init.append(a)
            listed.append(b)
            if not args.no_sdk:
                session = Session([python, "-c", SDK_SERVER], env, cwd)
                a, b, _ = session.open()
                session.close()
                sdk_init.append(a)
                sdk_listed.append(b)

        session = Session(ours_argv, env, cwd)
        session.open()
        t = time.perf_counter()
        found = session.ask(
            "tools/call", {"name": "memory_search", "arguments": {"query": "pytest fixture database migration"}}
        )
        search_s = time.perf_counter() - t
        t = time.perf_counter()
        banked = session.ask(
            "tools/call",
            {
                "name": "memory_bank",
                "arguments": {
                    "type": "pattern",
                    "summary": "Bench lesson about the nightly export job",
                    "content": "The nightly export job needs the reporting replica, not the primary.",
                },
            },
        )
        bank_s = time.perf_counter() - t
        session.close()

    med = statistics.median
    ratio = med(listed) / med(bare)
    print(f"floor: bare python {med(bare) * 1000:.0f} ms (median of {args.runs})")
    print(
        f"automem mcp: spawn -> initialize {med(init) * 1000:.0f} ms, -> {count} tools listed "
        f"{med(listed) * 1000:.0f} ms (median; max {max(listed) * 1000:.0f} ms); {ratio:.2f}x the bare python "
        f"start; budget {BUDGET_RATIO:.1f}x"
    )
    if sdk_listed:
        print(
            f"the same tools on the MCP SDK's server: -> initialize {med(sdk_init) * 1000:.0f} ms, -> tools listed "
            f"{med(sdk_listed) * 1000:.0f} ms ({med(sdk_listed) / med(bare):.1f}x the bare python start, "
            f"{med(sdk_listed) / med(listed):.1f}x automem mcp)"
        )
    print(
        f"first memory_search {search_s * 1000:.0f} ms ({found['result']['structuredContent']['count']} hits); "
        f"memory_bank with dedupe over {args.memories} memories {bank_s * 1000:.0f} ms "
        f"({banked['result']['structuredContent']['status']})"
    )
    over = ratio > BUDGET_RATIO
    if over:
        print("OVER BUDGET")
    return 1 if over and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())

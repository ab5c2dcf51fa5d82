"""`automem mcp` start-up on a tree of 10,000 memories, driven by the MCP SDK's own stdio client.

Run: ``python bench/bench_mcp.py [--memories N] [--runs N] [--strict]`` (with the venv's Python, which has mcp).

Per run: spawn the server (``<venv>/bin/automem mcp``, cwd = the big project), time to the initialize
response and to the tools/list response. Floors measured in the same run, interleaved: a bare venv Python
start, and a Python that only imports the MCP SDK's server (what any SDK server pays). After the runs,
one session also times a first memory_search (index already built) and a memory_bank (dedupe over the
project's memories). Budget (issue 6): start-up to tools listed < 1 s median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
BUDGET_S = 1.0


def _venv_bin() -> Path:
    return REPO / ".venv" / "bin"


def _timed_process(argv: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _session_times(env: dict, cwd: Path, work: bool = False) -> dict:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=str(_venv_bin() / "automem"), args=["mcp"], env=env, cwd=str(cwd))
    out: dict = {}

    async def main():
        start = time.perf_counter()
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                out["initialize"] = time.perf_counter() - start
                tools = await session.list_tools()
                out["listed"] = time.perf_counter() - start
                out["tools"] = len(tools.tools)
                if work:
                    t = time.perf_counter()
                    found = await session.call_tool("memory_search", {"query": "pytest fixture database migration"})
                    out["search"] = time.perf_counter() - t
                    out["hits"] = found.structured_content["count"]
                    t = time.perf_counter()
                    banked = await session.call_tool("memory_bank", {
                        "type": "pattern", "summary": "Bench lesson about the nightly export job",
                        "content": "The nightly export job needs the reporting replica, not the primary."})
                    out["bank"] = time.perf_counter() - t
                    out["bank_status"] = banked.structured_content["status"]

    anyio.run(main)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--strict", action="store_true", help="exit 1 when the median start-up is over budget")
    args = parser.parse_args(argv)

    from bench_recall import make_tree

    from automem.home import find_project_root, project_slug
    from automem.index import fts

    with tempfile.TemporaryDirectory(prefix="automem-bench-mcp-") as tmp:
        root = Path(tmp)
        home, cwd = root / "home", root / "work" / "bigproject"
        cwd.mkdir(parents=True)
        env = {**os.environ, "AUTOMEM_HOME": str(home), "HOME": str(root), "AUTOMEM_MODEL": "off"}
        os.environ["AUTOMEM_HOME"] = str(home)
        slug = project_slug(find_project_root(str(cwd)))
        t = time.perf_counter()
        make_tree(home, slug, args.memories, 0)
        fts.reindex(str(home))
        print(f"tree: {args.memories} memories in {slug}, indexed in {time.perf_counter() - t:.1f}s")

        python = str(_venv_bin() / "python")
        bare, sdk, init, listed = [], [], [], []
        for _ in range(args.runs):
            bare.append(_timed_process([python, "-c", "pass"], env))
            sdk.append(_timed_process([python, "-c", "import mcp.server.mcpserver"], env))
            times = _session_times(env, cwd)
            init.append(times["initialize"])
            listed.append(times["listed"])
        work = _session_times(env, cwd, work=True)

    med = statistics.median
    print(f"floor: bare python {med(bare) * 1000:.0f} ms, python importing the MCP SDK server "
          f"{med(sdk) * 1000:.0f} ms (median of {args.runs})")
    print(f"automem mcp: spawn -> initialize {med(init) * 1000:.0f} ms, -> {work['tools']} tools listed "
          f"{med(listed) * 1000:.0f} ms (median; max {max(listed) * 1000:.0f} ms); "
          f"{med(listed) / med(sdk):.2f}x the SDK-import floor; budget {BUDGET_S * 1000:.0f} ms")
    print(f"first memory_search {work['search'] * 1000:.0f} ms ({work['hits']} hits); memory_bank with dedupe over "
          f"{args.memories} memories {work['bank'] * 1000:.0f} ms ({work['bank_status']})")
    over = med(listed) > BUDGET_S
    if over:
        print("OVER BUDGET")
    return 1 if over and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())

"""Recall, brief and per-prompt recall on a big tree: 10,000 memories and 100,000 bank entries.

Run: ``python bench/bench_recall.py [--memories N] [--bank N] [--runs N] [--keep DIR]``.
It writes a synthetic memory tree (real Markdown files, in automem's formats)
under a temporary AUTOMEM_HOME, builds the index with ``automem.index.sync.reindex``,
then times, interleaved run by run:

* the SessionStart hook, whole process (``<venv>/bin/automem hook SessionStart``);
* the UserPromptSubmit hook with per-prompt recall, whole process;
* a Python floor: the venv interpreter parsing the same JSON payload;
* ``recall()`` in-process over the project (memories + bank), median of many queries.

Budgets (DESIGN.md): hooks <= 150 ms median whole process, recall <= 10 ms median in-process,
index.db <= 1.2x the Markdown at 100,000 entries. Figures are printed with their ratio to the floor; ``--strict``
exits 1 when a budget is missed.

``make_tree`` is also used by the tests (at a smaller size).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOOK_BUDGET_MS = 150.0
RECALL_BUDGET_MS = 10.0
INDEX_RATIO_BUDGET = 1.2  # index.db against the Markdown it indexes, at 100,000 entries (fixed pages weigh more below)
PROJECT_CWD = "/home/dev/bigproject"

_TOPICS = [
    "pytest fixture",
    "database migration",
    "docker compose",
    "ruff lint",
    "mypy types",
    "github actions",
    "redis cache",
    "postgres index",
    "react component",
    "webpack build",
    "api pagination",
    "oauth token refresh",
    "retry backoff",
    "logging format",
    "unicode paths",
    "windows line endings",
    "git rebase",
    "semantic versioning",
    "feature flag",
    "rate limiter",
    "cron schedule",
    "s3 upload",
    "csv export",
    "timezone handling",
    "memory leak",
    "flaky test",
    "deadlock",
    "race condition",
    "schema validation",
    "config reload",
]
_TYPES = ["pattern", "decision", "preference", "observation"]


def _words(rng: random.Random, vocab: list[str], n: int) -> str:
    return " ".join(rng.choice(vocab) for _ in range(n))


def make_vocab(rng: random.Random, size: int = 4000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = set()
    while len(vocab) < size:
        vocab.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 9))))
    return sorted(vocab)


def _iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(epoch)) + f".{int(epoch * 1000) % 1000:03d}Z"


def _file_iso(epoch: float) -> str:
    return _iso(epoch).replace(":", "-").replace(".", "-")


def memory_text(i: int, rng: random.Random, vocab: list[str], now: float) -> tuple[str, str]:
    """(file name, Markdown) of one automatic memory in store/memories.py's format."""
    topic = _TOPICS[i % len(_TOPICS)]
    created = now - rng.uniform(0, 120 * 86400)
    seen = 1 + int(rng.expovariate(0.7))
    summary = f"{topic}: {_words(rng, vocab, 6)}"
    mem_id = f"{_file_iso(created)[:19]}-{i:06x}"
    front = [
        "---",
        f"id: {json.dumps(mem_id)}",
        f"type: {json.dumps(_TYPES[i % 4])}",
        f"summary: {json.dumps(summary)}",
        "tags:",
        '  - "auto-memorize"',
        f"  - {json.dumps(_TYPES[i % 4])}",
        'scope: "project"',
        'source: "auto-memorize"',
        'harness: "claude-code"',
        f'session_id: "sess-{i % 500}"',
        f"created: {json.dumps(_iso(created))}",
        f"last_seen: {json.dumps(_iso(created + seen * 3600))}",
        f"seen: {seen}",
        'status: "promoted"',
        "---",
        "",
        f"When working on {topic}, {_words(rng, vocab, 30)}.",
        "",
        f"**Why:** {_words(rng, vocab, 12)}",
        "",
        f"**How to apply:** {_words(rng, vocab, 10)}",
        "",
    ]
    return f"{_file_iso(created)}--m{i:06d}.md", "\n".join(front)


def bank_text(i: int, rng: random.Random, vocab: list[str], now: float) -> tuple[str, str]:
    """(file name, Markdown) of one bank entry in bank/entry.py's format."""
    topic = _TOPICS[(i * 7) % len(_TOPICS)]
    ts = now - rng.uniform(0, 365 * 86400)
    title = f"fix {topic} {_words(rng, vocab, 3)}"
    tags = sorted({rng.choice(["bash", "edit", "read", "write", "grep"]) for _ in range(3)})
    text = "\n".join(
        [
            "---",
            f"id: {json.dumps(_file_iso(ts))}",
            f"ts: {json.dumps(_iso(ts))}",
            f"title: {json.dumps(title)}",
            "tags:",
            *[f"  - {json.dumps(t)}" for t in tags],
            f'cwd: "{PROJECT_CWD}"',
            f'session_id: "sess-{i % 900}"',
            'harness: "claude-code"',
            f'turn_key: "claude-code:sess-{i % 900}:{i}"',
            'source: "autobank:claude-code"',
            "---",
            "",
            "## Prompt",
            "",
            f"please {title} {_words(rng, vocab, 15)}",
            "",
            "## Actions",
            "",
            f"- bash: pytest -k {rng.choice(vocab)}",
            f"- edit: src/{rng.choice(vocab)}.py",
            "",
            "## Result",
            "",
            f"Done: {topic} {_words(rng, vocab, 40)}",
            "",
        ]
    )
    return f"{_file_iso(ts)}--b{i:06d}.md", text


def make_tree(
    home: Path,
    slug: str,
    memories: int,
    bank: int,
    *,
    seed: int = 5,
    bank_files: int | None = None,
    now: float | None = None,
) -> dict:
    """Write the synthetic tree; ``bank_files`` < ``bank`` writes only that many bank files (tests)."""
    now = time.time() if now is None else now
    rng = random.Random(seed)
    vocab = make_vocab(rng)
    project = home / "projects" / slug
    for sub in ("memories", "bank", "journal"):
        (project / sub).mkdir(parents=True, exist_ok=True)
    (project / "MAIN.md").write_text(
        "# Project Memory\n\nBig synthetic project for the recall benchmark.\nUse ruff "
        "and pytest; deploy with docker compose.\n\n"
        "<!-- automem:index:start -->\n<!-- automem:index:end -->\n",
        encoding="utf-8",
    )
    for i in range(memories):
        name, text = memory_text(i, rng, vocab, now)
        (project / "memories" / name).write_text(text, encoding="utf-8")
    written = bank if bank_files is None else min(bank, bank_files)
    for i in range(written):
        name, text = bank_text(i, rng, vocab, now)
        (project / "bank" / name).write_text(text, encoding="utf-8")
    day = time.strftime("%Y-%m-%d", time.localtime(now))
    (project / "journal" / f"{day}.md").write_text(
        "".join(
            f"\n## Job #{n} (engineer) — 0{n}:00\n**Task:** nightly {_TOPICS[n]} "
            f"run\n**Result:** completed, $0.12, 40s\n"
            for n in range(1, 6)
        ),
        encoding="utf-8",
    )
    return {"vocab": vocab, "project": project}


def add_bank_rows(
    conn, slug: str, start: int, count: int, vocab: list[str], *, seed: int = 9, now: float | None = None
) -> None:
    """Index rows for bank entries that have no file (tests: a 100,000-entry index without 100,000 files)."""
    from automem.index.docs import parse_doc
    from automem.index.upsert import add_row

    now = time.time() if now is None else now
    rng = random.Random(seed)
    conn.execute("BEGIN")
    for i in range(start, start + count):
        name, text = bank_text(i, rng, vocab, now)
        doc = parse_doc("bank", text, name, now)
        add_row(conn, f"projects/{slug}/bank-rows/{name}", slug, "bank", doc)  # no file: the row keeps its text
    conn.execute("COMMIT")


# ---------------------------------------------------------------- timing


def venv_bin() -> Path:
    for candidate in (REPO / ".venv" / "bin", Path(sys.executable).parent):
        if (candidate / "automem").exists():
            return candidate
    sys.exit("no installed automem console script found (.venv/bin/automem)")


def _run_ms(argv: list[str], payload: bytes, env: dict) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(argv, input=payload, capture_output=True, env=env)
    return (time.perf_counter() - start) * 1000, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--bank", type=int, default=100_000)
    parser.add_argument(
        "--scales",
        help="Comma-separated entry counts (e.g. 1000,10000,100000): one tree each, "
        "N bank entries and N/10 memories, and the hooks' growth from the first.",
    )
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--keep", help="Build (or reuse) the tree(s) in this folder and keep them.")
    parser.add_argument("--strict", action="store_true", help="Exit 1 when a budget is missed.")
    args = parser.parse_args()

    sys.path.insert(0, str(REPO / "src"))
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="automem-bench-recall-"))
    if not args.scales:
        figures = run_scale(base, args.memories, args.bank, args.runs)
        ok = figures["ok"]
        print("within budget" if ok else "OVER BUDGET")
        return 1 if args.strict and not ok else 0
    scales = [int(n) for n in args.scales.split(",")]
    results = [(n, run_scale(base / f"n{n}", max(1, n // 10), n, args.runs)) for n in scales]
    first_n, first = results[0]
    print("\n| entries | SessionStart ms | x floor | UserPromptSubmit ms | x floor | floor ms | index / Markdown |")
    print("|---|---|---|---|---|---|---|")
    for n, fig in results:
        print(
            f"| {n:,} | {fig['start']:.1f} | {fig['start'] / fig['floor']:.2f}x | {fig['prompt']:.1f} | "
            f"{fig['prompt'] / fig['floor']:.2f}x | {fig['floor']:.1f} | {fig['index_ratio']:.2f}x |"
        )
    ok = all(fig["ok"] for _n, fig in results)
    for n, fig in results[1:]:
        ok = ok and fig["start"] <= 1.10 * first["start"] and fig["prompt"] <= 1.10 * first["prompt"]
        print(
            f"{n:,} vs {first_n:,} entries: SessionStart {fig['start'] / first['start']:.2f}x, "
            f"UserPromptSubmit {fig['prompt'] / first['prompt']:.2f}x its cost (budget <= 1.10x); "
            f"ratios to floor {first['start'] / first['floor']:.2f}x -> {fig['start'] / fig['floor']:.2f}x and "
            f"{first['prompt'] / first['floor']:.2f}x -> {fig['prompt'] / fig['floor']:.2f}x (budget <= 2x)"
        )
    print("within budget" if ok else "OVER BUDGET")
    return 1 if args.strict and not ok else 0


def _tree_bytes(home: Path) -> int:
    total = 0
    for folder, _dirs, files in os.walk(home / "projects"):
        total += sum(os.path.getsize(os.path.join(folder, f)) for f in files if f.endswith(".md"))
    return total


def run_scale(base: Path, memories: int, bank: int, runs: int) -> dict:
    """One tree: build (or reuse) it, then time the hooks against two floors, interleaved run by run."""
    from automem.home import Home, find_project_root, project_slug
    from automem.index.db import open_index
    from automem.index.sync import reindex
    from automem.recall import recall

    home = base / "home"
    slug = project_slug(find_project_root(PROJECT_CWD))
    env = {**os.environ, "AUTOMEM_HOME": str(home), "HOME": str(base)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package runs from .pyc files
    os.environ["AUTOMEM_HOME"] = str(home)
    print(f"\n== {memories:,} memories + {bank:,} bank entries")
    if not (home / "index.db").exists():
        t0 = time.perf_counter()
        make_tree(home, slug, memories, bank)
        t1 = time.perf_counter()
        report = reindex(str(home))
        t2 = time.perf_counter()
        print(f"tree written in {t1 - t0:.1f} s; reindex of {report.indexed} files in {t2 - t1:.1f} s")
    db_bytes = sum(p.stat().st_size for p in home.glob("index.db*"))
    md_bytes = _tree_bytes(home)
    print(
        f"index.db: {db_bytes / 1e6:.1f} MB for {md_bytes / 1e6:.1f} MB of Markdown ({db_bytes / md_bytes:.2f}x; "
        f"budget {INDEX_RATIO_BUDGET}x at 100,000 entries)"
    )

    binary = venv_bin()
    common = {"session_id": "bench-session", "transcript_path": "/tmp/x.jsonl", "cwd": PROJECT_CWD}
    start_payload = json.dumps({**common, "hook_event_name": "SessionStart", "source": "startup"}).encode()
    prompts = [f"how should we handle the {topic} here" for topic in fts_topics()]
    parse_floor = [str(binary / "python"), "-c", "import sys, json; json.loads(sys.stdin.buffer.read())"]
    # what any hook that reads memory must do: start Python, parse the payload, open SQLite, one FTS5 query
    query_floor = [
        str(binary / "python"),
        "-c",
        "import sys, json, sqlite3; json.loads(sys.stdin.buffer.read()); "
        f"c = sqlite3.connect({str(home / 'index.db')!r}); "
        "c.execute(\"SELECT rowid FROM fts_mem WHERE fts_mem MATCH 'redis cache' LIMIT 8\").fetchall()",
    ]
    hook = [str(binary / "automem"), "hook"]
    parse, floor, starts, prompts_ms = [], [], [], []
    out_start = out_prompt = b""
    for run in range(runs + 2):
        warm = run < 2  # the first runs fill the page cache and write .pyc files
        a = _run_ms(parse_floor, start_payload, env)[0]
        b = _run_ms(query_floor, start_payload, env)[0]
        ms, out_start = _run_ms([*hook, "SessionStart"], start_payload, env)
        payload = json.dumps(
            {
                **common,
                "session_id": f"bench-{run}",
                "hook_event_name": "UserPromptSubmit",
                "prompt": prompts[run % len(prompts)],
            }
        ).encode()
        ms2, out_prompt = _run_ms([*hook, "UserPromptSubmit"], payload, env)
        if not warm:
            parse.append(a)
            floor.append(b)
            starts.append(ms)
            prompts_ms.append(ms2)
    brief = json.loads(out_start)["hookSpecificOutput"]["additionalContext"]
    recalled = json.loads(out_prompt)["hookSpecificOutput"]["additionalContext"] if out_prompt.strip() else ""

    conn = open_index(str(home))
    queries = [f"{topic} {extra}" for topic in fts_topics() for extra in ("fix", "error", "setup")]
    recall(queries[0], project=slug, home=Home(home), conn=conn)  # warm the page cache
    recall_ms = []
    for query in queries:
        t = time.perf_counter()
        recall(query, project=slug, home=Home(home), conn=conn, limit=10)
        recall_ms.append((time.perf_counter() - t) * 1000)
    conn.close()

    pf, f, s, p, r = (statistics.median(x) for x in (parse, floor, starts, prompts_ms, recall_ms))
    print(f"python floor (parse payload):            {pf:7.1f} ms median")
    print(f"query floor (parse, open SQLite, 1 FTS5): {f:7.1f} ms median")
    print(
        f"SessionStart hook, whole:                {s:7.1f} ms median ({s / f:.2f}x query floor; "
        f"budget {HOOK_BUDGET_MS:.0f} ms)  brief {len(brief)} chars"
    )
    print(
        f"UserPromptSubmit hook, whole:            {p:7.1f} ms median ({p / f:.2f}x query floor; "
        f"budget {HOOK_BUDGET_MS:.0f} ms)  last recall {len(recalled)} chars"
    )
    print(
        f"recall() in-process:                     {r:7.2f} ms median, p90 "
        f"{sorted(recall_ms)[int(len(recall_ms) * 0.9)]:.2f} ms over {len(queries)} queries "
        f"(budget {RECALL_BUDGET_MS:.0f} ms)"
    )
    ok = s <= HOOK_BUDGET_MS and p <= HOOK_BUDGET_MS and r <= RECALL_BUDGET_MS and s / f <= 2 and p / f <= 2
    ok = ok and (bank < 100_000 or db_bytes / md_bytes <= INDEX_RATIO_BUDGET)
    return {
        "floor": f,
        "start": s,
        "prompt": p,
        "recall": r,
        "ok": ok,
        "start_excess": s - f,
        "index_ratio": db_bytes / md_bytes,
    }


def fts_topics() -> list[str]:
    return list(_TOPICS)


if __name__ == "__main__":
    sys.exit(main())

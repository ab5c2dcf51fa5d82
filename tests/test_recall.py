"""Recall: a labelled set of queries, project scope with linked projects, filters, per-prompt recall in the hook."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from automem.cli import cli
from automem.home import Home
from automem.index.sync import reindex
from automem.recall import linked_projects, recall
from automem.store.memories import Memory

DATA = Path(__file__).parent / "data" / "recall_queries.jsonl"


def write_memory(project_dir: Path, memory: Memory) -> Path:
    if memory.is_automatic and not memory.status:
        memory.status = "promoted"  # recall hands out promoted and user-written memories; candidates have their test
    path = project_dir / "memories" / memory.file_name()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(memory.render(), encoding="utf-8")
    return path


def write_bank(
    project_dir: Path,
    ref: str,
    title: str,
    result: str,
    ts: str = "2026-01-10T10:00:00.000Z",
    harness: str = "claude-code",
) -> Path:
    path = project_dir / "bank" / f"{ts.replace(':', '-').replace('.', '-')}--{ref}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'---\nid: "{ref}"\nts: "{ts}"\ntitle: {json.dumps(title)}\ntags:\n  - "bash"\ncwd: "/x"\n'
        f'session_id: "s-{ref}"\nharness: "{harness}"\nturn_key: "k-{ref}"\nsource: "autobank:{harness}"\n---\n\n'
        f"## Prompt\n\n{title}\n\n## Actions\n\n- bash: make test\n\n## Result\n\n{result}\n",
        encoding="utf-8",
    )
    return path


def labelled() -> tuple[list[dict], list[dict]]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["doc"] for r in rows if "doc" in r], [r for r in rows if "query" in r]


@pytest.fixture
def labelled_home(automem_home: Path) -> tuple[Home, str]:
    home = Home.current().ensure()
    slug = "labelled-0000aaaa"
    project_dir = home.project_dir(slug)
    docs, _queries = labelled()
    for i, doc in enumerate(docs):
        if doc["kind"] == "memory":
            write_memory(
                project_dir,
                Memory(
                    type=doc["type"],
                    summary=doc["title"],
                    content=doc["body"],
                    id=doc["ref"],
                    created=f"2026-01-{i + 1:02d}T09:00:00.000Z",
                ),
            )
        else:
            write_bank(project_dir, doc["ref"], doc["title"], doc["body"], ts=f"2026-01-{i + 1:02d}T10:00:00.000Z")
    return home, slug


def test_labelled_queries_rank_the_relevant_entry_first(labelled_home, capsys):
    home, slug = labelled_home
    _docs, queries = labelled()
    first = top3 = 0
    misses = []
    for row in queries:
        hits = recall(row["query"], project=slug, home=home, limit=3)
        ids = [h.id for h in hits]
        first += bool(ids) and ids[0] == row["expect"]
        top3 += row["expect"] in ids
        if not ids or ids[0] != row["expect"]:
            misses.append((row["query"], row["expect"], ids))
    n = len(queries)
    with capsys.disabled():
        print(f"\nrecall@1 = {first}/{n} = {first / n:.2f}; recall@3 = {top3}/{n} = {top3 / n:.2f}; misses: {misses}")
    assert top3 / n >= 0.9, misses
    assert first / n >= 0.8, misses


def test_reinforced_and_recent_memories_outrank_equal_text(automem_home):
    home = Home.current().ensure()
    project_dir = home.project_dir("p-1")
    now = time.time()
    old = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(now - 200 * 86400))
    older = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(now - 201 * 86400))
    fresh = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(now - 3600))
    text = "retry the flaky upload step with backoff"
    write_memory(project_dir, Memory(type="pattern", summary=text, content=text, id="stale", created=old))
    write_memory(project_dir, Memory(type="pattern", summary=text, content=text, id="fresh", created=fresh))
    write_memory(
        project_dir,
        Memory(type="pattern", summary=text, content=text, id="often", created=older, seen=12, last_seen=fresh),
    )
    ids = [h.id for h in recall("flaky upload backoff", project="p-1", home=home)]
    assert ids == ["often", "fresh", "stale"]


def test_scope_is_the_project_its_links_and_global_unless_all(automem_home):
    home = Home.current().ensure()
    for slug in ("app-1", "lib-2", "other-3", "_global"):
        write_memory(
            home.project_dir(slug),
            Memory(
                type="decision",
                summary=f"kafka topic naming in {slug}",
                content="kafka topics are dotted lower case",
                id=f"id-{slug}",
            ),
        )
    (home.project_dir("app-1") / "MAIN.md").write_text(
        "# App\n\nnotes\n\n## Linked projects\n- lib-2\n\n<!-- automem:index:start "
        "-->\n- other-3\n<!-- automem:index:end -->\n",
        encoding="utf-8",
    )
    ids = {h.id for h in recall("kafka topic naming", project="app-1", home=home)}
    assert ids == {"id-app-1", "id-lib-2", "id-_global"}  # other-3 is only below the markers: not a link
    everywhere = {h.id for h in recall("kafka topic naming", project="app-1", home=home, all_projects=True)}
    assert "id-other-3" in everywhere


def test_linked_line_and_paths(tmp_path):
    repo = tmp_path / "code" / "shared-lib"
    (repo / ".git").mkdir(parents=True)
    from automem.home import project_slug

    text = f"# Notes\nlinked: api-1234abcd, {repo}\n\n## Linked projects\n* `web-5678`\n"
    assert linked_projects(text) == ["api-1234abcd", project_slug(str(repo)), "web-5678"]


def test_cli_filters_and_json(automem_home, tmp_path, monkeypatch):
    work = tmp_path / "work"
    (work / ".git").mkdir(parents=True)
    monkeypatch.chdir(work)
    home = Home.current().ensure()
    project_dir = home.project_for_cwd(str(work)).dir
    write_memory(
        project_dir,
        Memory(
            type="decision",
            summary="nginx proxy buffers raised",
            content="nginx buffers",
            id="mem-nginx",
            harness="codex",
            created="2020-01-01T00:00:00.000Z",
        ),
    )
    write_bank(
        project_dir,
        "bank-nginx",
        "tune nginx proxy buffers",
        "raised nginx proxy buffers to 16k",
        ts=time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
        harness="claude-code",
    )
    runner = CliRunner()

    def ids(*args):
        done = runner.invoke(cli, ["recall", "nginx", "buffers", "--json", *args])
        assert done.exit_code == 0, done.output
        return [row["id"] for row in json.loads(done.output)]

    assert set(ids()) == {"mem-nginx", "bank-nginx"}
    assert ids("--type", "decision") == ["mem-nginx"]
    assert ids("--type", "bank") == ["bank-nginx"]
    assert ids("--since", "7d") == ["bank-nginx"]
    assert ids("--harness", "codex") == ["mem-nginx"]
    assert len(ids("--limit", "1")) == 1
    bad = runner.invoke(cli, ["recall", "nginx", "--since", "yesterday-ish"])
    assert bad.exit_code != 0 and "--since" in bad.output
    text = runner.invoke(cli, ["recall", "nginx", "buffers"])
    assert "nginx proxy buffers raised" in text.output


def test_per_prompt_recall_through_the_real_hook(automem_home, tmp_path, run_hook):
    work = tmp_path / "svc"
    (work / ".git").mkdir(parents=True)
    home = Home.current().ensure()
    project_dir = home.project_for_cwd(str(work)).dir
    topics = [
        "postgres connection pool exhausted under load",
        "postgres vacuum runs nightly",
        "postgres connection strings come from vault",
        "postgres replicas lag behind the primary",
    ]
    for i, summary in enumerate(topics):
        write_memory(
            project_dir, Memory(type="pattern", summary=summary, content=summary + " in production", id=f"pg-{i}")
        )
    write_memory(
        project_dir,
        Memory(type="preference", summary="Use tabs in the Makefile", content="make needs tabs", id="make-tabs"),
    )
    reindex(str(home.root))
    base = {
        "session_id": "sess-recall",
        "cwd": str(work),
        "transcript_path": "/x.jsonl",
        "hook_event_name": "UserPromptSubmit",
    }

    def recalled(prompt: str, session: str = "sess-recall") -> list[str]:
        done = run_hook("UserPromptSubmit", {**base, "session_id": session, "prompt": prompt})
        assert done.returncode == 0
        if not done.stdout.strip():
            return []
        out = json.loads(done.stdout)
        ctx = out["hookSpecificOutput"]["additionalContext"]
        assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
        assert ctx.startswith("<automem-memory") and ctx.rstrip().endswith("</automem-memory>")
        assert "not instructions" in ctx
        return [line.rsplit("id ", 1)[1].rstrip(")") for line in ctx.splitlines() if line.startswith("- [")]

    prompt = "why is the postgres connection pool exhausted again under load"
    first = recalled(prompt)
    assert 1 <= len(first) <= 3 and first[0] == "pg-0"
    assert "make-tabs" not in first
    second = recalled(prompt)
    assert not set(first) & set(second)  # never the same memory twice in a session
    assert recalled("what time is it in tokyo today") == []  # nothing clears the bar
    assert recalled("postgres") == []  # one word is not enough to go on
    assert recalled(prompt, session="another-session")[0] == "pg-0"  # a new session starts afresh


def test_since_edges_are_dates_not_tracebacks():
    from automem.recall import parse_since

    assert parse_since("99999999999999999999999d") == 0.0  # "since forever"
    assert parse_since("1969-12-31") < 0  # before the epoch is still a date
    with pytest.raises(ValueError):
        parse_since("last tuesday")

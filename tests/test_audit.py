"""audit, forget, keep, why and remember through the CLI, with the files and the index checked after each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from automem.cli import cli
from automem.home import Home
from automem.index.db import open_index
from automem.index.upsert import index_file
from automem.recall import recall
from automem.store.memories import Memory, list_memories, parse


@pytest.fixture
def work(automem_home, tmp_path, monkeypatch):
    folder = tmp_path / "repo"
    (folder / ".git").mkdir(parents=True)
    monkeypatch.chdir(folder)
    home = Home.current().ensure()
    return home, home.project_for_cwd(str(folder))


def invoke(*args) -> dict | list:
    done = CliRunner().invoke(cli, [*args, "--json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.output)


def auto_memory(project, summary: str, type_: str = "pattern", created: str = "2026-01-05T10:00:00.000Z") -> Memory:
    memory = Memory(
        type=type_,
        summary=summary,
        content=summary + ".",
        tags=["auto-memorize", type_, "error-signal"],
        harness="codex",
        session_id="sess-42",
        created=created,
        seen=3,
    )
    path = project.memories_dir / memory.file_name()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(memory.render(), encoding="utf-8")
    memory.path = path
    return memory


def test_remember_why_keep_forget_round_trip(work):
    home, project = work
    made = invoke("remember", "Deploys", "go", "through", "the", "staging", "cluster", "first", "--type", "decision")
    assert made["source"] == "user" and made["type"] == "decision"
    path = Path(made["path"])
    assert path.parent == project.memories_dir and parse(path).summary == "Deploys go through the staging cluster first"
    assert [h.id for h in recall("staging cluster deploys", project=project.slug, sync_first=False)] == [made["id"]]

    auto = auto_memory(project, "Retry the flaky S3 upload with backoff")
    info = invoke("why", auto.id)
    assert (info["session_id"], info["harness"], info["seen"], info["created"]) == ("sess-42", "codex", 3, auto.created)
    assert "error-signal" in info["signals"] and info["automatic"] is True

    kept = invoke("keep", auto.id)
    assert kept["source"] == "user" and kept["was"] == "auto-memorize"
    assert parse(auto.path).source == "user" and not parse(auto.path).is_automatic
    assert invoke("why", auto.id)["automatic"] is False

    gone = invoke("forget", auto.id)
    assert not auto.path.exists() and Path(gone["trash"]).parent == project.trash_dir
    assert parse(Path(gone["trash"])).id == auto.id
    assert auto.id not in [h.id for h in recall("flaky upload backoff", project=project.slug, sync_first=False)]
    conn = open_index(str(home.root))
    assert conn.execute("SELECT count(*) FROM fts_docs WHERE ref = ?", (auto.id,)).fetchone()[0] == 0
    conn.close()

    purged = invoke("forget", made["id"], "--purge")
    assert purged["purged"] and not path.exists() and not list(project.trash_dir.glob(path.name))
    missing = CliRunner().invoke(cli, ["why", made["id"]])
    assert missing.exit_code != 0 and "no memory" in missing.output


def test_audit_lists_automatic_memories_with_filters(work):
    home, project = work
    old = auto_memory(project, "Old observation about caching", "observation", "2020-01-01T00:00:00.000Z")
    new = auto_memory(
        project,
        "Prefer small commits",
        "preference",
        __import__("time").strftime("%Y-%m-%dT%H:%M:%S.000Z", __import__("time").gmtime()),
    )
    invoke("remember", "A note of my own", "--type", "observation")
    ids = [m["id"] for m in invoke("audit")]
    assert ids == [new.id, old.id]  # newest first, the user's own memory not listed
    assert [m["id"] for m in invoke("audit", "--since", "7d")] == [new.id]
    assert [m["id"] for m in invoke("audit", "--type", "observation")] == [old.id]
    text = CliRunner().invoke(cli, ["audit"])
    assert new.id in text.output and "automem forget ID" in text.output


def test_keep_leaves_users_memory_alone_and_remember_global(work):
    home, project = work
    made = invoke("remember", "Use metric units", "--type", "preference", "--global")
    assert Path(made["path"]).parent.parent.name == "_global"
    before = Path(made["path"]).read_bytes()
    kept = invoke("keep", made["id"])
    assert kept["was"] == "user" and Path(made["path"]).read_bytes() == before
    assert [m.summary for m in list_memories(home.global_project())] == ["Use metric units"]


def test_remember_rejects_empty_text(work):
    done = CliRunner().invoke(cli, ["remember", "   "])
    assert done.exit_code != 0 and "nothing to remember" in done.output


def test_remember_never_puts_a_secret_in_a_summary_a_file_name_or_the_index(work):
    home, project = work
    key = "AKIAQ3EGRWLMNV2XK7PT"
    password = "S3cretPassw0rd9x"
    invoke("remember", f"{key} is the deploy key for prod")
    invoke("remember", "note " + "x" * 75 + f" postgres://admin:{password}@db.internal:5432/app")
    names = " ".join(p.name for p in home.root.rglob("*")).lower()
    assert key.lower() not in names
    for path in (p for p in home.root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        assert key.encode() not in data and key.lower().encode() not in data, path
        assert password[:8].encode() not in data, path


def test_candidates_are_listed_searchable_when_asked_and_promoted_by_keep(work):
    home, project = work
    memory = Memory(
        type="pattern",
        summary="make docs fails with theme not found twice; not resolved",
        content="make docs failed twice.",
        status="candidate",
        session_id="s1",
        family="s1",
        rule="repeated_error_rule",
    )
    from automem.store.memories import save

    save(project, memory)
    index_file(memory.path, str(home.root))
    listed = invoke("audit", "--status", "candidate")
    assert [m["id"] for m in listed] == [memory.id] and listed[0]["status"] == "candidate"
    assert invoke("audit", "--status", "promoted") == []
    assert invoke("recall", "make", "docs", "theme") == []  # never handed to an agent
    [hit] = invoke("recall", "make", "docs", "theme", "--candidates")
    assert hit["id"] == memory.id and hit["status"] == "candidate"
    info = invoke("why", memory.id)
    assert (info["status"], info["injected"], info["rule"]) == ("candidate", False, "repeated_error_rule")
    text = CliRunner().invoke(cli, ["why", memory.id]).output
    assert "not injected until promoted" in text
    invoke("keep", memory.id)
    info = invoke("why", memory.id)
    assert (info["status"], info["promoted"], info["injected"]) == ("user", "kept", True)
    assert [h["id"] for h in invoke("recall", "make", "docs", "theme")] == [memory.id]


def test_an_unconfirmed_candidate_expires_to_trash_and_may_be_learned_again(work):
    from automem.extract.worker import expire_candidates
    from automem.store.memories import save

    home, project = work
    old = Memory(
        type="observation",
        summary="the build cache lives in var/cache here",
        content="x",
        status="candidate",
        created="2026-01-01T10:00:00.000Z",
    )
    fresh = Memory(
        type="observation", summary="the docs build needs the theme checkout", content="y", status="candidate"
    )
    promoted = Memory(
        type="observation",
        summary="the api runs on port 8100 here",
        content="z",
        status="promoted",
        promoted="instruction",
        created="2026-01-01T10:00:00.000Z",
    )
    for memory in (old, fresh, promoted):
        save(project, memory)
        index_file(memory.path, str(home.root))
    assert expire_candidates(str(home.root)) == 1
    left = {m.summary for m in list_memories(project)}
    assert left == {fresh.summary, promoted.summary}
    [trashed] = list(project.trash_dir.glob("*.md"))
    assert parse(trashed).status == "expired"
    assert [h["id"] for h in invoke("recall", "cache", "lives", "--candidates")] == []  # out of the index too
    from automem.extract.pipeline import _existing

    assert old.summary not in {m.summary for m in _existing(project, home)}  # not "forgotten": it may come back


def test_remember_dedupes_a_candidate_becomes_the_users_and_a_repeat_adds_nothing(work):
    """`automem remember` goes through the same deduped store path as MCP memory_bank."""
    home, project = work
    from automem.store.memories import save

    found = Memory(
        type="preference",
        summary="Use pnpm, not npm, in this repo",
        content="The user said: use pnpm, not npm, in this repo.",
        status="candidate",
        session_id="s1",
        family="s1",
        rule="directive",
    )
    save(project, found)
    index_file(found.path, str(home.root))
    made = invoke("remember", "Use", "pnpm,", "not", "npm,", "in", "this", "repo", "--type", "preference")
    assert made["outcome"] == "kept" and made["id"] == found.id
    assert len(list(project.memories_dir.glob("*.md"))) == 1
    info = invoke("why", found.id)
    assert (info["status"], info["promoted"], info["injected"]) == ("user", "kept", True)

    again = CliRunner().invoke(cli, ["remember", "Use pnpm, not npm, in this repo"])
    assert again.exit_code == 0 and "already remembered as " + found.id in again.output
    assert len(list(project.memories_dir.glob("*.md"))) == 1
    other = invoke("remember", "Deploys", "go", "through", "staging", "first")
    assert other["outcome"] == "stored" and len(list(project.memories_dir.glob("*.md"))) == 2


def test_the_cli_the_mcp_tool_and_the_python_api_store_through_one_deduped_path(work):
    """A lesson the agent banked over MCP, then written by hand from Python and the CLI, stays one file."""
    from automem import Memory as Api
    from automem import mcp_server

    home, project = work
    lesson = "Run the migrations with alembic upgrade head before the integration tests"
    banked = mcp_server.bank(type="pattern", summary=lesson, content=lesson + ".")
    assert banked["status"] == "stored"
    by_hand = Api(home.root).remember(lesson + ".", type="pattern")
    assert (by_hand.outcome, by_hand.id) == ("kept", banked["id"])  # the agent's record is the user's now
    assert invoke("remember", lesson, "--type", "pattern")["outcome"] == "exists"
    assert mcp_server.bank(type="pattern", summary=lesson, content=lesson + ".")["status"] == "exists"
    assert Api(home.root).remember(lesson, type="pattern").outcome == "exists"
    assert len(list(project.memories_dir.glob("*.md"))) == 1


def test_only_the_deduped_path_and_the_extractor_save_a_memory():
    """``store.memories.save`` (a new file, or an existing one rewritten) is called by audit.py, whose new memories
    go through ``store_deduped``, and by the extractor, which dedupes a whole session at once."""
    import ast

    package = Path(__file__).resolve().parents[1] / "src" / "automem"
    callers = set()
    for path in package.rglob("*.py"):
        rel = path.relative_to(package).as_posix()
        if rel.startswith("store/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if name == "save":
                    callers.add(rel)
    assert callers == {"audit.py", "extract/pipeline.py"}

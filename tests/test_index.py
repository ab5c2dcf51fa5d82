"""The FTS index: kept current by the mtime scan and by writers, rebuilt from Markdown, never fatal when broken."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from automem.atomic import atomic_write_text
from automem.cli import cli
from automem.home import Home
from automem.index import sync as index_sync
from automem.index.db import open_index
from automem.index.drift import index_drift
from automem.index.sync import reindex, sync
from automem.index.upsert import GHOST_MIN, compact, ghosts, index_file, remove_file
from automem.markdown import split_frontmatter
from automem.recall import recall
from automem.store.memories import Memory


@pytest.fixture
def tree(automem_home):
    home = Home.current().ensure()
    project_dir = home.project_dir("proj-1")
    (project_dir / "memories").mkdir(parents=True)
    return home, project_dir


def put_memory(project_dir, summary: str, mem_id: str, **kw) -> Memory:
    kw.setdefault("status", "promoted")  # what an injected memory looks like; candidates are tested on their own
    memory = Memory(
        type=kw.pop("type", "pattern"), summary=summary, content=kw.pop("content", summary), id=mem_id, **kw
    )
    memory.path = project_dir / "memories" / memory.file_name()
    atomic_write_text(memory.path, memory.render())
    return memory


def ids(home, query: str, **kw) -> list[str]:
    return [h.id for h in recall(query, project="proj-1", home=home, **kw)]


def test_mtime_scan_sees_new_changed_and_deleted_files(tree):
    home, project_dir = tree
    first = put_memory(project_dir, "gradle daemon runs out of memory", "m1")
    assert ids(home, "gradle daemon") == ["m1"]
    put_memory(project_dir, "gradle wrapper must be committed", "m2")
    assert set(ids(home, "gradle")) == {"m1", "m2"}
    time.sleep(0.01)
    first.summary = "maven build cache is shared"
    first.content = "maven build cache is shared"
    atomic_write_text(first.path, first.render())  # rewritten in place (same name)
    assert ids(home, "gradle") == ["m2"] and ids(home, "maven cache") == ["m1"]
    first.path.unlink()
    assert ids(home, "maven cache") == []


def test_every_kind_of_file_is_searchable(tree):
    home, project_dir = tree
    (project_dir / "bank").mkdir()
    (project_dir / "bank" / "2026-01-01T10-00-00-000Z--x.md").write_text(
        '---\nid: "b1"\nts: "2026-01-01T10:00:00.000Z"\ntitle: "wire the kubernetes '
        'ingress"\ntags:\n  - "bash"\n---\n\n'
        "## Prompt\n\nwire the ingress\n\n## Actions\n\n- bash: kubectl apply -f helmchart.yaml\n\n## Result\n\n"
        "the zeppelin service answers now\n",
        encoding="utf-8",
    )
    (project_dir / "journal").mkdir()
    (project_dir / "journal" / "2026-01-02.md").write_text(
        "\n## Job #7 (ops) — 10:00\n**Task:** rotate quokka keys\n", encoding="utf-8"
    )
    (project_dir / "MAIN.md").write_text(
        "# Notes\nThe staging box is called narwhal.\n<!-- automem:index:start -->\n"
        "- 2026 — platypus (bank/x.md)\n<!-- automem:index:end -->\n",
        encoding="utf-8",
    )
    assert ids(home, "kubernetes ingress") == ["b1"]  # title
    assert ids(home, "helmchart") == ["b1"]  # action digest
    assert ids(home, "zeppelin") == ["b1"]  # result
    assert ids(home, "quokka") == ["2026-01-02"]  # journal
    assert ids(home, "narwhal") == ["MAIN"]  # MAIN.md's human part
    assert ids(home, "platypus") == []  # ... and not automem's own index below the markers


def test_writers_index_and_remove_at_once(tree):
    home, project_dir = tree
    conn = open_index(str(home.root))
    sync(conn, str(home.root))  # folder state recorded
    memory = put_memory(project_dir, "terraform state lives in s3", "m-tf")
    assert index_file(memory.path, str(home.root), conn)
    assert ids(home, "terraform state", conn=conn, sync_first=False) == ["m-tf"]
    assert remove_file(memory.path, str(home.root), conn)
    assert ids(home, "terraform state", conn=conn, sync_first=False) == []
    assert not index_file(home.root / "config.yml", str(home.root), conn)  # not part of the index
    conn.close()


def test_corrupt_index_is_rebuilt_never_fatal(tree):
    home, project_dir = tree
    put_memory(project_dir, "celery workers need a visibility timeout", "m-celery")
    assert ids(home, "celery visibility") == ["m-celery"]
    db = home.index_db
    for suffix in ("-wal", "-shm"):
        if os.path.exists(str(db) + suffix):
            os.unlink(str(db) + suffix)
    db.write_bytes(b"this is not a database" * 100)
    assert ids(home, "celery visibility") == ["m-celery"]
    assert list(home.root.glob("index.db.corrupt-*"))


def test_deleted_index_is_rebuilt_by_the_cli(tree, monkeypatch, tmp_path):
    home, project_dir = tree
    put_memory(project_dir, "nomad jobs pin the docker image digest", "m-nomad")
    assert ids(home, "nomad digest") == ["m-nomad"]
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(str(home.index_db) + suffix):
            os.unlink(str(home.index_db) + suffix)
    done = CliRunner().invoke(cli, ["recall", "nomad", "digest", "--all", "--json"])
    assert done.exit_code == 0, done.output
    assert [h["id"] for h in json.loads(done.output)] == ["m-nomad"]


def test_reindex_and_drift(tree):
    home, project_dir = tree
    put_memory(project_dir, "one", "m-one")
    put_memory(project_dir, "two", "m-two")
    done = CliRunner().invoke(cli, ["reindex", "--json"])
    assert done.exit_code == 0 and json.loads(done.output)["indexed"] == 2
    assert index_drift(home)["ok"] is True
    put_memory(project_dir, "three", "m-three")  # written behind the index's back
    gone = sorted((project_dir / "memories").glob("*.md"))[0]
    gone.unlink()
    drift = index_drift(home)
    assert (drift["missing"], drift["orphaned"], drift["ok"]) == (1, 1, False)
    assert drift["fix"] == "automem reindex"
    CliRunner().invoke(cli, ["reindex"])
    assert index_drift(home)["ok"] is True


def test_frontmatter_reader_handles_hand_edits():
    meta, body = split_frontmatter(
        '---\nid: abc\ntype: \'decision\'\ntags: [one, "two"]\nsummary: "quoted: with colon"\nseen: 4\n---\nbody\n'
    )
    assert meta == {
        "id": "abc",
        "type": "decision",
        "tags": ["one", "two"],
        "summary": "quoted: with colon",
        "seen": "4",
    }
    assert body == "body\n"
    assert split_frontmatter("no frontmatter") == ({}, "no frontmatter")


def _edit_in_place(path, old: str, new: str) -> None:
    """What VS Code or open('r+') does: rewrite the same inode, so the folder's mtime stays put."""
    with open(path, "r+", encoding="utf-8") as handle:
        text = handle.read().replace(old, new)
        handle.seek(0)
        handle.write(text)
        handle.truncate()


def test_memory_and_journal_edited_in_place_reach_recall_and_brief(tree):
    from automem import brief

    home, project_dir = tree
    memory = put_memory(project_dir, "pipenv locks the dependency graph", "m-pip", type="preference")
    journal = project_dir / "journal" / "2026-01-03.md"
    journal.parent.mkdir()
    atomic_write_text(journal, "\n## Job #1 (ops) — 09:00\n**Task:** rotate the wombat certificates\n")
    assert ids(home, "pipenv") == ["m-pip"] and ids(home, "wombat") == ["2026-01-03"]
    folders = {p: os.stat(p).st_mtime_ns for p in (memory.path.parent, journal.parent)}
    time.sleep(0.01)
    _edit_in_place(memory.path, "pipenv locks the dependency graph", "uv replaces pipenv for dependency locking")
    _edit_in_place(journal, "wombat", "capybara")
    assert {p: os.stat(p).st_mtime_ns for p in folders} == folders  # nothing renamed: only the files changed
    assert index_drift(home)["stale"] == 2
    assert ids(home, "uv replaces") == ["m-pip"] and ids(home, "capybara") == ["2026-01-03"]
    assert ids(home, "wombat") == []
    assert index_drift(home)["ok"] is True
    conn = open_index(str(home.root))
    try:
        text = brief.build("proj-1", home=home, conn=conn).text
        again = sync(conn, str(home.root))
    finally:
        conn.close()
    assert "uv replaces pipenv" in text and "pipenv locks" not in text
    assert (again.indexed, again.dirs_scanned) == (0, 0)  # a quiet tree costs stats, not re-reads


def test_writer_indexed_edit_is_not_read_again(tree):
    home, project_dir = tree
    memory = put_memory(project_dir, "helm charts pin versions", "m-helm")
    conn = open_index(str(home.root))
    try:
        sync(conn, str(home.root))
        time.sleep(0.01)
        _edit_in_place(memory.path, "helm charts pin versions", "helm charts pin every chart version")
        assert index_file(memory.path, str(home.root), conn)
    finally:
        conn.close()
    for _ in range(2):  # fresh connections, as each hook opens its own
        conn = open_index(str(home.root))
        try:
            report = sync(conn, str(home.root))
            assert (report.indexed, report.dirs_scanned) == (0, 0)  # the stats moved, but the row matches the file
            assert ids(home, "every chart", conn=conn, sync_first=False) == ["m-helm"]
        finally:
            conn.close()


def test_one_connection_restats_a_quiet_folder_only_every_few_seconds(tree, monkeypatch):
    home, project_dir = tree
    memory = put_memory(project_dir, "poetry groups split dev tools", "m-poetry")
    conn = open_index(str(home.root))
    try:
        assert ids(home, "poetry groups", conn=conn) == ["m-poetry"]
        time.sleep(0.01)
        _edit_in_place(memory.path, "poetry groups split dev tools", "hatch environments split the dev tools")
        assert ids(home, "hatch environments", conn=conn) == []  # stat'ed a moment ago on this connection
        put_memory(project_dir, "tox runs the matrix", "m-tox")  # automem's own write: a rename, seen at once
        assert ids(home, "tox matrix", conn=conn) == ["m-tox"]
        assert ids(home, "hatch environments", conn=conn) == ["m-poetry"]  # the re-listing compared every file
        time.sleep(0.01)
        _edit_in_place(memory.path, "hatch environments", "nox sessions")
        monkeypatch.setattr(index_sync, "RECHECK_SECONDS", 0.0)
        assert ids(home, "nox sessions", conn=conn) == ["m-poetry"]
    finally:
        conn.close()


def test_an_old_index_is_upgraded_once_even_when_opened_at_once(automem_home):
    """Two processes opening a version-1 index.db together: one upgrades, the other waits; nothing is moved aside."""
    import sqlite3
    import threading

    from automem.index import db

    home = Home.current().ensure()
    conn = db.connect(home)
    for index in ("fts_docs_mem_recent", "fts_docs_mem_seen"):  # a version-1 index had neither
        conn.execute(f"DROP INDEX {index}")
    conn.execute("ALTER TABLE fts_docs DROP COLUMN status")
    conn.execute("ALTER TABLE fts_docs DROP COLUMN promoted")
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    conn.execute("PRAGMA user_version = 0")  # what automem set before version 3
    conn.close()
    errors: list[BaseException] = []

    def open_it():
        try:
            db.connect(home).close()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and not list(home.root.glob("index.db.corrupt-*"))
    conn = sqlite3.connect(home.index_db)
    assert {"status", "promoted"} <= {r[1] for r in conn.execute("PRAGMA table_info(fts_docs)")}
    conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    db.connect(home).close()  # a newer index is left alone
    conn = sqlite3.connect(home.index_db)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "9"
    conn.close()


@pytest.mark.parametrize("crowd", [40, 120])  # fewer than the ranked pool, and enough to fill it
def test_per_prompt_recall_finds_a_promoted_memory_among_many_candidates(tree, crowd):
    from automem.recall import relevant_memories

    home, project_dir = tree
    for i in range(crowd):
        put_memory(project_dir, f"docker compose build cache number {i} fails", f"c-{i}", status="candidate")
    put_memory(project_dir, "docker compose build needs the repo root as context", "p-1")
    conn = open_index(str(home.root))
    try:
        sync(conn, str(home.root), deep=True)
        picked = relevant_memories(conn, "why does docker compose build fail", ["proj-1"], set(), 3)
    finally:
        conn.close()
    assert [d["ref"] for d in picked] == ["p-1"]


@pytest.mark.parametrize("crowded_by", ["another project", "memories already handed out"])
def test_per_prompt_recall_is_not_crowded_out_by_memories_it_may_not_hand_out(tree, crowded_by):
    from automem.recall import relevant_memories

    home, project_dir = tree
    other = home.project_dir("proj-2")
    (other / "memories").mkdir(parents=True)
    given = set()
    for i in range(40):
        put_memory(
            other if crowded_by == "another project" else project_dir, f"docker compose build fails {i}", f"o-{i}"
        )
        given.add(f"o-{i}")
    put_memory(project_dir, "docker compose build needs the repo root as context", "p-1")
    conn = open_index(str(home.root))
    try:
        sync(conn, str(home.root), deep=True)
        exclude = given if crowded_by != "another project" else set()
        picked = relevant_memories(conn, "docker compose build fails", ["proj-1"], exclude, 3)
    finally:
        conn.close()
    assert [d["ref"] for d in picked] == ["p-1"]


def test_the_hooks_quick_look_stats_folders_not_files(tree, monkeypatch):
    """The hooks' sync costs the same for 5 memories or 500: one stat per folder, none per file."""
    home, project_dir = tree
    for n in range(200):
        put_memory(project_dir, f"memory number {n} about widgets", f"m-{n}")
    conn = open_index(str(home.root))
    try:
        sync(conn, str(home.root))
        calls = []
        real_stat = os.stat
        monkeypatch.setattr(index_sync.os, "stat", lambda *a, **kw: calls.append(a[0]) or real_stat(*a, **kw))
        report = sync(conn, str(home.root), ["proj-1"], quick=True)
    finally:
        monkeypatch.undo()
        conn.close()
    assert report.indexed == 0 and len(calls) <= 4  # MAIN.md and the memories/bank/journal folders


def test_the_hooks_quick_look_reads_no_file_in_and_defers_it(tree):
    """A file another program added is listed for the detached sync, not read by the hook (reading means the full
    redaction pass, whose detectors take ~0.1 s to load); the full sync then indexes it."""
    home, project_dir = tree
    put_memory(project_dir, "poetry lock before install", "m-lock")
    conn = open_index(str(home.root))
    try:
        sync(conn, str(home.root))
        time.sleep(0.01)
        memory = Memory(
            type="pattern", summary="tox runs the matrix", content="tox runs the matrix", id="m-tox", status="promoted"
        )
        atomic_write_text(project_dir / "memories" / memory.file_name(), memory.render())  # not indexed by us
        quick = sync(conn, str(home.root), ["proj-1"], quick=True)
        assert quick.indexed == 0 and quick.deferred == ["projects/proj-1/memories"]
        assert ids(home, "tox matrix", conn=conn, sync_first=False) == []
        full = sync(conn, str(home.root), ["proj-1"])
        assert full.indexed == 1 and ids(home, "tox matrix", conn=conn, sync_first=False) == ["m-tox"]
    finally:
        conn.close()


def test_in_place_edits_wait_for_the_workers_sweep_while_new_files_are_seen_at_once(tree, run_hook):
    """A person's in-place edit does not move the folder's mtime: the hooks leave it to the Stop worker's full sync,
    so it reaches the brief one turn later; a file added (an atomic write moves the folder) is read in by the
    detached sync the hook starts, never by the hook itself."""
    from automem.extract.worker import sweep_index

    home, project_dir = tree
    cwd = str(home.root.parent / "work" / "proj")
    slug = home.project_for_cwd(cwd).slug
    project_dir = home.project_dir(slug)
    (project_dir / "memories").mkdir(parents=True, exist_ok=True)
    memory = put_memory(project_dir, "pipenv locks the dependency graph", "m-pip", type="preference")
    reindex(str(home.root))
    payload = {
        "session_id": "s1",
        "cwd": cwd,
        "transcript_path": "/x",
        "hook_event_name": "SessionStart",
        "source": "startup",
    }

    def brief_text() -> str:
        done = run_hook("SessionStart", payload)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout.strip() else ""

    assert "pipenv locks" in brief_text()
    time.sleep(0.01)
    _edit_in_place(memory.path, "pipenv locks the dependency graph", "uv replaces pipenv for dependency locking")
    assert "pipenv locks" in brief_text()  # not yet: the hook looked at the folder only
    put_memory(project_dir, "ruff formats the code before commit", "m-ruff", type="preference")
    # a file someone else added moves the folder's mtime: the hook leaves reading it in (with the full redaction
    # pass) to the detached sync it starts, and the brief has it from then on
    deadline = time.monotonic() + 60
    while "ruff formats" not in brief_text():
        assert time.monotonic() < deadline, "the detached sync never indexed the added file"
        time.sleep(0.2)
    sweep_index()
    text = brief_text()
    assert "uv replaces pipenv" in text and "pipenv locks" not in text


def test_hand_edited_files_get_the_full_pass_before_index_db(tree):
    """A memory and a journal day written by hand (no store involved) hold secrets that only the full pass knows
    (a Pulumi token the engine finds): none of them reaches index.db."""
    import random
    import sqlite3
    import string

    from automem.redact.fast import redact_fast

    rng = random.Random()
    alnum = string.ascii_letters + string.digits
    pulumi = "pul-" + "".join(rng.choice("0123456789abcdef") for _ in range(40))
    gh = "ghp_" + "".join(rng.choice(alnum) for _ in range(36))
    home, project_dir = tree
    body = f"the narwhal deploy uses {pulumi} and {gh}"
    mem = Memory(type="pattern", summary="narwhal deploy credentials", content=body, id="m-hand", status="promoted")
    (project_dir / "memories" / mem.file_name()).write_text(mem.render(), encoding="utf-8")
    journal = project_dir / "journal" / "2026-01-04.md"
    journal.parent.mkdir()
    journal.write_text(f"\n## Job #1 (ops) — 09:00\n**Task:** narwhal rollout with {pulumi}\n", encoding="utf-8")
    assert pulumi in redact_fast(body)  # the hooks' tier alone would have let it through
    assert ids(home, "narwhal") != []
    db = (
        home.root / "index" / "index.db"
        if (home.root / "index" / "index.db").exists()
        else next(home.root.rglob("index.db"))
    )
    conn = sqlite3.connect(db)
    try:
        dump = "\n".join(conn.iterdump())
    finally:
        conn.close()
    assert "narwhal" in dump
    for secret in (pulumi, gh):
        assert secret not in dump


V2_SCHEMA = Path(__file__).resolve().parent / "data" / "index_schema_v2.sql"


def _bank_entry(bank_dir, name: str, title: str, result: str) -> None:
    bank_dir.mkdir(exist_ok=True)
    atomic_write_text(
        bank_dir / name,
        "\n".join(
            [
                "---",
                'id: "2026-01-02T03-04-05-000Z"',
                'ts: "2026-01-02T03:04:05.000Z"',
                f"title: {json.dumps(title)}",
                "tags:",
                '  - "bash"',
                'session_id: "s-1"',
                'harness: "claude-code"',
                'turn_key: "claude-code:s-1:7"',
                'source: "autobank:claude-code"',
                "---",
                "",
                "## Prompt",
                "",
                "please " + title,
                "",
                "## Actions",
                "",
                "- bash: make test",
                "",
                "## Result",
                "",
                result,
                "",
            ]
        ),
    )


def _version_2_index(home, project_dir, filler: int) -> None:
    """index.db as automem wrote it at schema version 2: every text in fts_mem's and fts_text's own content table
    (and the bank's snippet in fts_docs), the bank's own state beside it."""
    import sqlite3

    conn = sqlite3.connect(home.index_db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(V2_SCHEMA.read_text(encoding="utf-8"))
    conn.execute("INSERT INTO meta VALUES ('schema_version', '2')")
    conn.execute("INSERT INTO banked VALUES ('claude-code:s-1:7', 'proj-1', 'bank/b.md', 1.0, NULL)")
    conn.execute("INSERT INTO cursors (path, harness, offset) VALUES ('/t/s-1.jsonl', 'claude-code', 123)")
    conn.execute("INSERT INTO harnesses VALUES ('claude-code', 1.0, 0.0, 1)")
    conn.execute("BEGIN")
    for i in range(filler):  # rows of files long gone: the upgrade must not need their text
        rel = f"projects/proj-1/bank/old-{i:05d}.md"
        text = f"result {i} " + "lorem ipsum dolor sit amet " * 20
        cur = conn.execute(
            "INSERT INTO fts_docs (path, project, kind, title, snippet) VALUES (?, 'proj-1', 'bank', ?, ?)",
            (rel, f"old turn {i}", text[:400]),
        )
        conn.execute(
            "INSERT INTO fts_text (rowid, title, tags, prompt, actions, result) VALUES (?, ?, '', ?, '', ?)",
            (cur.lastrowid, f"old turn {i}", text, text),
        )
    conn.execute("INSERT INTO fts_dirs VALUES ('projects/proj-1/bank', 1, ?)", (filler,))
    conn.execute("COMMIT")
    conn.close()


def test_an_index_of_schema_2_is_made_again_smaller_keeping_the_bank_state(tree):
    """An index.db the previous schema wrote: its search tables are made again (empty, then filled by the next
    sync from the Markdown), the bank's keys, cursors and windows stay, and the freed pages are given back."""
    import sqlite3

    from automem.index import db

    home, project_dir = tree
    put_memory(project_dir, "poetry groups split dev tools", "m-poetry")
    _bank_entry(
        project_dir / "bank",
        "2026-01-02T03-04-05-000Z--quokka.md",
        "tune the quokka scheduler",
        "The quokka scheduler now batches wombat jobs. It keeps the queue short.",
    )
    _version_2_index(home, project_dir, filler=2000)
    before = os.path.getsize(home.index_db)  # closed: the WAL is checkpointed into it

    conn = db.connect(home)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(
            db.SCHEMA_VERSION
        )
        assert conn.execute("SELECT count(*) FROM fts_docs").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM fts_dirs").fetchone()[0] == 0
        assert conn.execute("SELECT turn_key FROM banked").fetchall() == [("claude-code:s-1:7",)]
        assert "WITHOUT ROWID" in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'banked'").fetchone()[0]
        assert conn.execute("SELECT offset FROM cursors").fetchall() == [(123,)]
        assert conn.execute("SELECT paused FROM harnesses").fetchall() == [(1,)]
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'fts_text'").fetchone()[0]
        assert "content = ''" in sql
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    assert os.path.getsize(home.index_db) < before / 4

    assert ids(home, "poetry groups") == ["m-poetry"]  # the next sync read the tree again
    hits = recall("quokka scheduler", project="proj-1", home=home)
    assert [h.kind for h in hits] == ["bank"]
    assert hits[0].snippet == "The quokka scheduler now batches wombat jobs. It keeps the queue short."
    drift = index_drift(home)
    assert drift["ok"] is True and drift["ghosts"] == 0
    db.connect(home).close()  # opened again: nothing more to do
    conn = sqlite3.connect(home.index_db)
    assert conn.execute("SELECT count(*) FROM fts_docs").fetchone()[0] == 2
    conn.close()


def test_a_hook_leaves_an_old_index_to_the_detached_sync(tree, monkeypatch):
    """Upgrading drops and VACUUMs tables (seconds on a big index): a hook that finds an old index.db gives no
    memory this once and starts the detached sync, which upgrades it."""
    import sqlite3

    from automem import session_hooks

    home, project_dir = tree
    put_memory(project_dir, "poetry groups split dev tools", "m-poetry")
    _version_2_index(home, project_dir, filler=10)
    started = []
    monkeypatch.setattr(index_sync, "sync_detached", lambda root=None: started.append(root))
    assert session_hooks._open_if_present(str(home.root)) is None
    assert started == [str(home.root)]
    conn = sqlite3.connect(home.index_db)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "2"
    conn.close()


def _vocab_docs(home, term: str) -> int:
    import sqlite3

    conn = sqlite3.connect(home.index_db)
    try:
        row = conn.execute("SELECT doc FROM fts_text_vocab WHERE term = ?", (term,)).fetchone()
    finally:
        conn.close()
    return row[0] if row else 0


def test_a_bank_entry_is_read_back_from_its_markdown_and_rewritten_exactly(tree):
    """index.db keeps no copy of a bank entry's text: the snippet is read back from the file (checked against the
    digest), and a writer that takes the entry out before rewriting it leaves none of its old words behind."""
    import sqlite3

    home, project_dir = tree
    bank = project_dir / "bank"
    name = "2026-01-02T03-04-05-000Z--quokka.md"
    _bank_entry(bank, name, "tune the quokka scheduler", "The quokka scheduler now batches wombat jobs.")
    reindex(str(home.root))
    conn = sqlite3.connect(home.index_db)
    assert conn.execute("SELECT body FROM fts_docs WHERE kind = 'bank'").fetchone() == ("",)
    conn.close()
    hits = recall("wombat jobs", project="proj-1", home=home)
    assert [h.snippet for h in hits] == ["The quokka scheduler now batches wombat jobs."]
    assert _vocab_docs(home, "wombat") == 1

    conn = open_index(str(home.root))
    try:
        remove_file(bank / name, str(home.root), conn)  # what the bank pass does before it rewrites an entry
        _bank_entry(bank, name, "tune the quokka scheduler", "The quokka scheduler now batches koala jobs.")
        index_file(bank / name, str(home.root), conn)
        assert ghosts(conn) == 0
    finally:
        conn.close()
    assert _vocab_docs(home, "wombat") == 0 and _vocab_docs(home, "koala") == 1
    assert recall("wombat", project="proj-1", home=home) == []
    assert index_drift(home)["ok"] is True


def test_a_bank_entry_changed_behind_the_index_leaves_a_ghost_until_compaction(tree):
    """Edited or deleted by hand, a bank entry's old text is gone: its words stay in fts_text (matched by no row,
    so never recalled), counted as ghosts and reported by the drift check, until compaction makes fts_text again."""
    home, project_dir = tree
    bank = project_dir / "bank"
    for i in range(3):
        _bank_entry(
            bank,
            f"2026-01-02T03-04-0{i}-000Z--t{i}.md",
            f"tune scheduler number {i}",
            f"The scheduler batch{i} jobs run nightly.",
        )
    reindex(str(home.root))
    (bank / "2026-01-02T03-04-00-000Z--t0.md").unlink()
    _bank_entry(bank, "2026-01-02T03-04-01-000Z--t1.md", "tune scheduler number 1", "Now it runs hourly.")
    conn = open_index(str(home.root))
    try:
        sync(conn, str(home.root))  # the deleted entry (bank folders are compared by name)
        index_file(bank / "2026-01-02T03-04-01-000Z--t1.md", str(home.root), conn)  # the edited one
        assert ghosts(conn) == 2  # below the share that compacts on its own
    finally:
        conn.close()
    assert recall("batch0", project="proj-1", home=home) == []
    assert recall("batch1", project="proj-1", home=home) == []
    assert [h.snippet for h in recall("hourly", project="proj-1", home=home)] == ["Now it runs hourly."]
    drift = index_drift(home)
    assert (drift["ghosts"], drift["missing"], drift["stale"], drift["ok"]) == (2, 0, 0, False)
    from automem.status import check_index

    check = check_index(home)
    assert check.state == "warn" and "2 search rows of removed text" in check.detail and "reindex" in check.fix
    assert _vocab_docs(home, "batch0") == 1  # still in the inverted index

    conn = open_index(str(home.root))
    try:
        assert compact(conn, str(home.root), force=True) == 2
        assert ghosts(conn) == 0
    finally:
        conn.close()
    assert _vocab_docs(home, "batch0") == 0 and _vocab_docs(home, "batch1") == 0 and _vocab_docs(home, "batch2") == 1
    assert index_drift(home)["ok"] is True
    assert [h.snippet for h in recall("batch2", project="proj-1", home=home)] == [
        "The scheduler batch2 jobs run nightly."
    ]


def test_a_full_sync_compacts_once_ghosts_pile_up(tree, monkeypatch):
    home, project_dir = tree
    bank = project_dir / "bank"
    for i in range(GHOST_MIN + 10):
        _bank_entry(
            bank,
            f"2026-01-02T03-{i // 60:02d}-{i % 60:02d}-000Z--t{i}.md",
            f"tune scheduler number {i}",
            f"The scheduler zeta{i} jobs run nightly.",
        )
    reindex(str(home.root))
    for entry in sorted(bank.glob("*.md"))[: GHOST_MIN + 5]:
        entry.unlink()
    conn = open_index(str(home.root))
    try:
        sync(conn, str(home.root))
        assert ghosts(conn) == 0
        assert conn.execute("SELECT count(*) FROM fts_text_docsize").fetchone()[0] == 5
    finally:
        conn.close()
    assert index_drift(home)["ok"] is True


def test_a_bank_entry_the_full_pass_changed_keeps_its_redacted_text(tree):
    """A bank entry written by hand with a secret in it: the Markdown cannot give back the text as indexed (the
    full pass changed it), so the row keeps its redacted sections; snippet and removal come from those."""
    import random
    import sqlite3
    import string

    rng = random.Random()
    gh = "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    home, project_dir = tree
    bank = project_dir / "bank"
    name = "2026-01-02T03-04-05-000Z--hand.md"
    _bank_entry(bank, name, "deploy the narwhal service", f"Deployed narwhal with token {gh} today.")
    reindex(str(home.root))
    conn = sqlite3.connect(home.index_db)
    body = conn.execute("SELECT body FROM fts_docs WHERE kind = 'bank'").fetchone()[0]
    dump = "\n".join(conn.iterdump())
    conn.close()
    assert "narwhal" in body and "[REDACTED:" in body and gh not in dump
    snippet = recall("narwhal", project="proj-1", home=home)[0].snippet
    assert snippet.startswith("Deployed narwhal with token [REDACTED:") and gh not in snippet
    (bank / name).unlink()
    conn = open_index(str(home.root))
    try:
        sync(conn, str(home.root))
        assert ghosts(conn) == 0  # taken out exactly, from the row's own copy
    finally:
        conn.close()
    assert _vocab_docs(home, "narwhal") == 0


def test_index_db_stays_near_the_size_of_the_markdown(automem_home):
    """The text is kept once and the bank's not at all: on bench/bench_recall.py's tree (2,000 bank entries, 200
    memories) index.db is ~1.2x the Markdown (1.15x at 100,000 entries, where fixed pages weigh less). Schema 2,
    which kept every text twice, was ~3x here."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_recall", Path(__file__).resolve().parents[1] / "bench" / "bench_recall.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    home = Home.current().ensure()
    bench.make_tree(home.root, "proj-size", 200, 2000)
    reindex(str(home.root))
    db_bytes = sum(p.stat().st_size for p in home.root.glob("index.db*"))
    assert db_bytes <= 1.35 * bench._tree_bytes(home.root)

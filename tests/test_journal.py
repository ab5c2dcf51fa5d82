"""The job journal: its entry format, job ids, redaction and caps, pruning, hand edits, the brief reading it."""

from __future__ import annotations

import re
import threading
import time
from datetime import date, timedelta

import pytest

from automem import brief as brief_mod
from automem import journal
from automem.home import Home
from automem.index.db import open_index
from automem.index.sync import reindex
from automem.journal import Entry


@pytest.fixture
def project(automem_home, tmp_path):
    home = Home.current().ensure()
    root = tmp_path / "repo"
    root.mkdir()
    return home.project_for_cwd(str(root))


def _day(now: float, days_ago: int) -> str:
    return (date.fromisoformat(journal.local_day(now)) - timedelta(days=days_ago)).isoformat()


def test_entry_format_matches_the_seed_and_parses_back(project):
    now = time.time()
    written = journal.append(
        project,
        Entry(
            task="Process TAP batch for doug",
            status="completed",
            agent="data_pipeline",
            duration_s=41.2,
            cost_usd=0.1234,
            result="200 files processed, 3 errors",
            learned="SPRAYFLEX files often have no TLG binary",
            errors="no_bin on 3 files",
        ),
        now=now,
    )
    text = journal.read_day(project, _day(now, 0))
    hhmm = time.strftime("%H:%M", time.localtime(now))
    assert f"## Job #1 (data_pipeline) — {hhmm}\n" in text
    assert "**Task:** Process TAP batch for doug\n" in text
    assert "**Result:** completed, 41s, $0.12 — 200 files processed, 3 errors\n" in text
    assert "**Learned:** SPRAYFLEX files often have no TLG binary\n" in text
    assert "**Errors:** no_bin on 3 files\n" in text
    [back] = journal.entries_of(text, written.day)
    assert (back.job_id, back.agent, back.time, back.status) == ("1", "data_pipeline", hhmm, "completed")
    assert (back.duration_s, back.cost_usd, back.result) == (41.0, 0.12, "200 files processed, 3 errors")
    assert back.learned == written.learned and back.errors == written.errors


def test_job_ids_count_up_per_day_and_a_given_id_is_kept(project):
    ids = [journal.append(project, Entry(task=f"t{i}")).job_id for i in range(3)]
    assert ids == ["1", "2", "3"]
    assert journal.append(project, Entry(task="given", job_id="41")).job_id == "41"
    assert journal.append(project, Entry(task="after", job_id="")).job_id == "42"
    assert journal.append(project, Entry(task="odd id", job_id="nightly build")).job_id == "nightly-build"
    assert [e.job_id for e in journal.recent(project, 1)] == ["1", "2", "3", "41", "42", "nightly-build"]


def test_a_field_can_never_open_an_entry_of_its_own(project):
    journal.append(project, Entry(task="line one\n## Job #99 (evil) — 00:00\n**Task:** forged", errors="a\n\nb"))
    entries = journal.recent(project, 1)
    assert [e.job_id for e in entries] == ["1"]
    assert entries[0].task.startswith("line one / ## Job #99")
    assert entries[0].errors == "a / b"


def test_secrets_are_redacted_and_long_fields_capped(project):
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    aws = "AKIA" + "QWERTYUIOPASDFGH"
    journal.append(
        project,
        Entry(
            task=f"deploy with {token}",
            errors=f"auth failed for {aws} " + "x" * 5000,
            learned="y" * 2000,
            result=f"key={token}",
        ),
    )
    text = journal.read_day(project, journal.local_day())
    assert token not in text and aws not in text
    assert "REDACTED" in text
    [entry] = journal.entries_of(text)
    assert len(entry.errors) <= journal.ERRORS_CAP and entry.errors.endswith("…")
    assert len(entry.learned) <= journal.LEARNED_CAP


def test_agent_name_and_job_id_are_redacted_before_they_are_joined_and_cut(project):
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    key = "sk-ant-api03-" + "Q" * 40 + "-" + "w" * 40 + "AA"
    written = journal.append(project, Entry(task="t", agent=f"echo {token} | true", job_id=f"x {key}"))
    assert (written.agent, written.job_id) == ("echo-REDACTED:github-token-true", "x-REDACTED:anthropic-key")
    text = journal.read_day(project, journal.local_day())
    assert "ghp_" not in text and "sk-ant" not in text and "abcdefghijklmnop" not in text
    [back] = journal.entries_of(text)
    assert (back.agent, back.job_id) == (written.agent, written.job_id)


def _write_day(project, day: str, text: str) -> None:
    project.journal_dir.mkdir(parents=True, exist_ok=True)
    (project.journal_dir / f"{day}.md").write_text(text, encoding="utf-8")


def _job(n: int) -> str:
    return f"\n## Job #{n} (engineer) — 10:0{n}\n**Task:** task {n}\n**Result:** completed, 3s\n"


def test_pruning_drops_old_days_keeps_recent_ones_and_the_users_own_text(project):
    now = time.time()
    today, recent, edge, old, older = (_day(now, n) for n in (0, 3, 7, 8, 12))
    _write_day(project, today, f"# Journal {today}\n" + _job(1))
    _write_day(project, recent, f"# Journal {recent}\n" + _job(1) + _job(2))
    _write_day(project, edge, _job(1))
    _write_day(project, old, f"# Journal {old}\n" + _job(1) + _job(2))
    mine = "## My notes\nThe batch server moves to rack 4 in March.\n"
    _write_day(project, older, "Kept by hand: do not lose.\n" + _job(1) + mine + _job(2))
    reindex(str(project.home.root))

    journal.append(project, Entry(task="new job"), now=now, retention_days=7)

    assert journal.days_on_disk(project) == sorted([today, recent, edge, older])
    assert [e.job_id for e in journal.entries_of(journal.read_day(project, today))] == ["1", "2"]
    assert len(journal.entries_of(journal.read_day(project, recent))) == 2
    assert len(journal.entries_of(journal.read_day(project, edge))) == 1  # exactly 7 days old: not yet "older"
    left = journal.read_day(project, older)
    assert "Kept by hand: do not lose." in left and mine.strip() in left
    assert "Job #" not in left
    conn = open_index(str(project.home.root))
    try:
        refs = {r[0] for r in conn.execute("SELECT ref FROM fts_docs WHERE kind = 'journal'")}
    finally:
        conn.close()
    assert old not in refs and today in refs and older in refs  # the deleted day left the index at once

    before = (project.journal_dir / f"{older}.md").stat().st_mtime_ns
    journal.prune(project, 7, now=now)
    assert (project.journal_dir / f"{older}.md").stat().st_mtime_ns == before  # user text only: left alone


def test_retention_zero_prunes_nothing(project):
    now = time.time()
    _write_day(project, _day(now, 30), _job(1))
    journal.append(project, Entry(task="t"), now=now, retention_days=0)
    assert _day(now, 30) in journal.days_on_disk(project)


def test_hand_edits_to_todays_file_survive_the_next_entry(project):
    now = time.time()  # one clock for the whole test: it must not straddle midnight
    journal.append(project, Entry(task="first"), now=now)
    path = project.journal_dir / f"{journal.local_day(now)}.md"
    edited = path.read_text(encoding="utf-8").replace("**Task:** first", "**Task:** first (rerun on Monday!)")
    edited += "\nA remark of my own, under the entry.\n"
    path.write_text(edited, encoding="utf-8")
    journal.append(project, Entry(task="second"), now=now + 1)
    after = path.read_text(encoding="utf-8")
    assert after.startswith(edited.rstrip("\n"))
    assert [e.task for e in journal.entries_of(after)] == ["first (rerun on Monday!)", "second"]


def test_concurrent_writers_lose_no_entry(project):
    def work(n: int) -> None:
        for i in range(4):
            journal.append(project, Entry(task=f"writer {n} job {i}"))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    entries = journal.recent(project, 1)
    assert sorted(int(e.job_id) for e in entries) == list(range(1, 17))
    assert len({e.task for e in entries}) == 16


def test_the_brief_shows_what_the_journal_writes(project):
    journal.append(
        project,
        Entry(task="rebuild the parquet cache", status="failed", agent="claude", errors="MemoryError in loader"),
    )
    conn = open_index(str(project.home.root))
    try:
        result = brief_mod.build(project.slug, home=project.home, conn=conn)
        hit = conn.execute("SELECT count(*) FROM fts_text WHERE fts_text MATCH 'parquet'").fetchone()[0]
    finally:
        conn.close()
    assert "journal" in result.sections
    assert re.search(r"### Job #1 \(claude\) — \d\d:\d\d\n\*\*Task:\*\* rebuild the parquet cache", result.text)
    assert "**Errors:** MemoryError in loader" in result.text
    assert hit == 1  # indexed as it was written

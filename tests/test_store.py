"""store/: the only writer of the Markdown tree redacts with the full pass and stays inside AUTOMEM_HOME."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from automem.store import StoreError, clean_for_index, clean_for_model, write_markdown

SECRETS = {
    "github": "ghp_" + "Q7kLm2Np9Rs4Tv6Wx8Yz1Ab3Cd5Ef7Gh9Jk2",
    "aws_secret": "Ha54d/5pnh4PFeqFl9i8DCqjf8mJWaqWPLBI/eV3",
    "password": "Meadow!Saffron6792",
    "url": "Velvet-Juniper9317",
    "pem_line": "MIIEpAIBAAKCAQEABgNAdccnic8YkkmP8Hc3V3KnZ17Rcjmd9O0Pg4V1wxTdkCpe",
}

NOTE = f"""---
id: m1
type: pattern
summary: deploy needs the token
---
Deploy with GITHUB_TOKEN={SECRETS["github"]} and
aws_secret_access_key = "{SECRETS["aws_secret"]}".

```
DB_PASSWORD={SECRETS["password"]}
PIP_INDEX_URL=https://ci:{SECRETS["url"]}@pypi.internal.example.com/simple
-----BEGIN RSA PRIVATE KEY-----
{SECRETS["pem_line"]}
-----END RSA PRIVATE KEY-----
```
**Why:** the commit 50787f081eeb4eb7af63e0267e66b8fd4974673c broke it.
"""


def grep_tree(root: Path, needles) -> list[str]:
    hits = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_text(encoding="utf-8", errors="replace")
            hits += [f"{path}: {n[:10]}" for n in needles if n in data]
    return hits


def test_a_secret_written_through_the_store_never_reaches_disk(automem_home: Path):
    target = automem_home / "projects" / "shop" / "memories" / "2024-05-14T10-00-00Z--deploy.md"
    written = write_markdown(target, NOTE)
    assert written == target.resolve()
    assert grep_tree(automem_home, SECRETS.values()) == []
    text = target.read_text(encoding="utf-8")
    assert "GITHUB_TOKEN=[REDACTED:github-token]" in text
    assert "DB_PASSWORD=[REDACTED:password]" in text
    assert "50787f081eeb4eb7af63e0267e66b8fd4974673c" in text  # a git SHA is not a secret
    assert text.startswith("---\nid: m1\n")  # frontmatter intact
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]  # atomic: no temp left


def test_rewriting_redacted_text_changes_nothing(automem_home: Path):
    target = automem_home / "projects" / "shop" / "MAIN.md"
    write_markdown(target, NOTE)
    first = target.read_bytes()
    write_markdown(target, target.read_text(encoding="utf-8"))
    assert target.read_bytes() == first


@pytest.mark.parametrize("where", ["../outside.md", "/tmp/automem-outside.md", ""])
def test_paths_outside_the_home_are_refused(automem_home: Path, where: str):
    automem_home.mkdir(parents=True, exist_ok=True)
    path = (automem_home / where) if where and not where.startswith("/") else Path(where or automem_home)
    with pytest.raises(StoreError):
        write_markdown(path, "hello")
    assert not (automem_home.parent / "outside.md").exists()


def test_a_symlink_out_of_the_home_is_refused(automem_home: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (automem_home / "projects").mkdir(parents=True)
    os.symlink(outside, automem_home / "projects" / "link")
    with pytest.raises(StoreError):
        write_markdown(automem_home / "projects" / "link" / "x.md", "hello")
    assert list(outside.iterdir()) == []


def test_index_and_model_texts_are_cleaned_by_the_full_pass():
    for clean in (clean_for_index, clean_for_model):
        out = clean(NOTE)
        assert all(s not in out for s in SECRETS.values())
        assert clean(out) == out
        assert clean("") == ""


def test_non_text_is_refused(automem_home: Path):
    with pytest.raises(TypeError):
        write_markdown(automem_home / "x.md", b"bytes")  # type: ignore[arg-type]


def test_old_files_without_a_status_keep_working(tmp_path, automem_home):
    """Written before statuses existed: agent-banked ones stay promoted, nothing of theirs expires, a user's file
    with a status it does not know is still read."""
    from automem.home import Home
    from automem.store.memories import Memory, expire_candidates, list_memories, save

    home = Home.current().ensure()
    project = home.project_for_cwd(str(tmp_path))
    old = "2025-01-01T10:00:00.000Z"
    banked = Memory(
        type="observation",
        summary="The API runs on port 8100 in this repo",
        content="x",
        source="mcp:claude-code",
        created=old,
    )
    auto = Memory(type="pattern", summary="make docs fails with theme not found twice here", content="y", created=old)
    mine = Memory(
        type="decision", summary="Use pnpm, not npm, in this repo", content="z", source="user", status="active"
    )
    for memory in (banked, auto, mine):
        save(project, memory)
    assert banked.state == "promoted" and auto.state == "candidate" and mine.state == "user" and mine.status == ""
    assert expire_candidates([project], 30) == []  # only files staged as candidates ever expire
    assert len(list_memories(project)) == 3


def test_terminal_escapes_never_reach_a_stored_file(automem_home, tmp_path):
    """A tool's output may carry an OSC 52 clipboard write or a clear-screen; neither is stored."""
    from automem.home import Home
    from automem.store.memories import Memory, save

    home = Home.current().ensure()
    project = home.project_for_cwd(str(tmp_path))
    path = save(
        project,
        Memory(
            type="pattern",
            summary="make fails with \x1b[31mE0463\x1b[0m twice here",
            content="out: \x1b]52;c;aGVsbG8=\x07 then \x1b[2J\u200b done",
            status="candidate",
        ),
    )
    data = path.read_text(encoding="utf-8")
    assert "\x1b" not in data and "\u200b" not in data and "]52;" not in data and "done" in data


def test_a_temp_file_is_new_private_and_named_for_the_sweep(tmp_path):
    from automem.atomic import TEMP_SUFFIX, new_temp_file, temp_folder

    names = set()
    for _ in range(20):
        fd, name = new_temp_file(str(tmp_path), ".memory.md.123.", TEMP_SUFFIX)
        os.close(fd)
        assert os.stat(name).st_mode & 0o777 == 0o600
        assert os.path.basename(name).startswith(".memory.md.123.") and name.endswith(TEMP_SUFFIX)
        assert os.path.basename(name)[1 : -len(TEMP_SUFFIX)].rsplit(".", 2)[1] == "123"  # the sweep reads the pid
        names.add(name)
    assert len(names) == 20
    import tempfile

    assert os.path.samefile(temp_folder(), tempfile.gettempdir())


@pytest.mark.parametrize("durable, fsyncs", [(True, 1), (False, 0)])
def test_state_files_may_skip_the_fsync_but_never_the_rename(automem_home: Path, monkeypatch, durable, fsyncs):
    """An extraction's own state is written without an fsync (it can be made again); what it writes is still
    whole, private, and replaces the old file in one rename."""
    from automem.store import write_file

    path = automem_home / "state" / "extract" / "s.json"
    write_file(path, "old\n")
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    write_file(path, "new\n", durable=durable)
    assert path.read_text() == "new\n" and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(synced) == fsyncs
    assert [p.name for p in path.parent.iterdir()] == ["s.json"]  # no temp file left behind

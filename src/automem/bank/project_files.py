"""The per-project files a pass maintains besides entries: MAIN.md's index and daily summaries.

MAIN.md: whatever the person wrote above the markers is kept byte for byte;
only the lines between the markers are rebuilt (newest first, 200 rows).
Summaries are additive: a past day with entries and no summary gets one; an
existing summary is never touched.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from automem import regex_cache
from automem.home import Project
from automem.markdown import INDEX_END, INDEX_START, read_frontmatter

INDEX_ROWS = 200

DEFAULT_HEAD = """# Project Memory

Add context, architecture notes, or reminders here.
Everything above the markers is yours: automem never changes it.

"""

_ENTRY_NAME = regex_cache.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z--.+\.md$")

Writer = Callable[[Path, str], object]


def entry_rows(project: Project, limit: int | None = None) -> list[tuple[str, str, list[str], str]]:
    """(ts, title, tags, relative path) of bank entries, newest first."""
    bank = project.bank_dir
    if not bank.is_dir():
        return []
    names = sorted((n for n in (p.name for p in bank.iterdir()) if _ENTRY_NAME.match(n)), reverse=True)
    rows = []
    for name in names[:limit] if limit else names:
        m = _ENTRY_NAME.match(name)
        if m is None:
            continue
        ts = f"{m.group(1)}T{m.group(2)}:{m.group(3)}:{m.group(4)}.{m.group(5)}Z"
        title, tags = _title_and_tags(bank / name)
        rows.append((ts, title, tags, f"bank/{name}"))
    return rows


def rebuild_main_md(project: Project, write: Writer) -> bool:
    """Rewrite the index between the markers; returns whether the file changed."""
    path = project.main_md
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = None
    rows = [f"- {ts} — {title} ({rel})" for ts, title, _tags, rel in entry_rows(project, INDEX_ROWS)]
    block = INDEX_START + "\n" + "\n".join(rows) + ("\n" if rows else "") + INDEX_END + "\n"
    if old is None:
        new = DEFAULT_HEAD + block
    elif INDEX_START in old and INDEX_END in old.split(INDEX_START, 1)[1]:
        head, rest = old.split(INDEX_START, 1)
        tail = rest.split(INDEX_END, 1)[1]
        new = head + block + tail.lstrip("\n")
    else:
        new = old + ("" if old.endswith("\n") or not old else "\n") + ("\n" if old.strip() else "") + block
    if new == old:
        return False
    write(path, new)
    return True


def write_missing_summaries(project: Project, write: Writer, today: str | None = None) -> list[str]:
    """Summaries for past days that have entries but no summary file; returns the days written."""
    today = today or datetime.now(timezone.utc).strftime("%Y-%m-%d")
    by_day: dict[str, list[tuple[str, str, list[str]]]] = {}
    for ts, title, tags, _rel in entry_rows(project):
        day = ts[:10]
        if day < today:
            by_day.setdefault(day, []).append((ts, title, tags))
    written = []
    for day in sorted(by_day):
        path = project.summaries_dir / f"{day}.md"
        if path.exists():
            continue
        lines = [f"- {title}" + (f" [{', '.join(tags)}]" if tags else "") for _ts, title, tags in sorted(by_day[day])]
        write(path, f"# {day}\n\n" + "\n".join(lines) + "\n")
        written.append(day)
    return written


def _title_and_tags(path: Path) -> tuple[str, list[str]]:
    """Title and tags from an entry's frontmatter, read without its body."""
    meta = read_frontmatter(path, 400) or {}
    tags = meta.get("tags")
    return str(meta.get("title") or "") or path.stem, tags if isinstance(tags, list) else []

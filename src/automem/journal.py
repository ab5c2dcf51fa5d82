"""The job journal: ``projects/<slug>/journal/<YYYY-MM-DD>.md``, one file per local day.

Each job is one entry, appended at the end of the day's file::

    ## Job #3 (claude) — 14:32
    **Task:** Process the batch for doug
    **Result:** completed, 41s, $0.12 — 200 files processed
    **Learned:** SPRAYFLEX files often have no TLG binary
    **Errors:** no_bin on 3 files

Every field is one line (newlines folded), redacted with the full pass and capped, so an entry can
never open a heading of its own; the brief (brief.py) splits the file at ``## `` headings. The file
is read, extended and written back whole through ``store.write_markdown`` under a lock, so text the
user added by hand stays as they wrote it.

Pruning (whenever a job is recorded, never by ``show``): a day more than ``retention.journal_days``
days before today loses its job entries; whatever the user wrote there under a heading of their own
(or above the first entry) is kept, and a file left with nothing of the user's is deleted.
``journal_days: 0`` turns pruning off.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from pathlib import Path

from automem.home import Project

TASK_CAP = 200
RESULT_CAP = 300
LEARNED_CAP = 500
ERRORS_CAP = 500
ID_CAP = 40
AGENT_CAP = 40
STATUSES = ("completed", "failed", "interrupted")
LOCK_NAME = ".journal.lock"

_DAY_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")
_BLOCK_HEAD = re.compile(r"^## ", re.M)
JOB_HEAD = re.compile(r"^## Job #(?P<id>\S+) \((?P<agent>[^)\n]*)\) — (?P<time>\d{2}:\d{2})[^\n]*$")
_FIELD = re.compile(r"^\*\*(Task|Result|Learned|Errors):\*\*[ \t]?(.*)$", re.M)
_RESULT = re.compile(
    r"^(?P<status>[a-z][a-z-]*)(?:, (?P<duration>\d+(?:\.\d+)?)s)?(?:, \$(?P<cost>\d+(?:\.\d+)?))?"
    r"(?: — (?P<summary>.*))?$"
)
_OUR_HEADER = re.compile(r"^# Journal \d{4}-\d{2}-\d{2}\s*$")


@dataclass
class Entry:
    """One job, as the journal shows it (times are local: the file is the local day)."""

    task: str
    status: str = "completed"
    agent: str = "agent"
    job_id: str = ""
    time: str = ""  # HH:MM
    duration_s: float | None = None
    cost_usd: float | None = None
    result: str = ""
    learned: str = ""
    errors: str = ""
    day: str = ""

    def as_dict(self) -> dict:
        return asdict(self)

    def render(self) -> str:
        result = self.status
        if self.duration_s is not None:
            result += f", {self.duration_s:.1f}s" if self.duration_s < 10 else f", {self.duration_s:.0f}s"
        if self.cost_usd is not None:
            result += (
                f", ${self.cost_usd:.2f}" if self.cost_usd >= 0.01 or self.cost_usd == 0 else f", ${self.cost_usd:.4f}"
            )
        if self.result:
            result += f" — {self.result}"
        lines = [
            f"## Job #{self.job_id} ({self.agent}) — {self.time}",
            f"**Task:** {self.task}",
            f"**Result:** {result}",
        ]
        if self.learned:
            lines.append(f"**Learned:** {self.learned}")
        if self.errors:
            lines.append(f"**Errors:** {self.errors}")
        return "\n".join(lines) + "\n"


def one_line(text: str, limit: int) -> str:
    """Redacted, folded to one line (lines joined by " / "), cut to ``limit`` with a mark."""
    from automem.store import redacted

    clean = redacted(str(text or ""))  # before the cut: a cut secret would no longer be recognised
    parts = [" ".join(line.split()) for line in clean.splitlines()]
    flat = " / ".join(p for p in parts if p)
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return flat


def _token(text: str, limit: int, default: str) -> str:
    """A job id or agent name: no spaces, brackets or newlines (they would break the heading).

    Redacted first, with the full pass: once words are joined by ``-`` and cut, a secret is no
    longer recognised (the redactor takes ``-`` as part of a token, and half a key matches nothing).
    """
    from automem.store import redacted

    value = re.sub(r"[^\w.@+:-]+", "-", redacted(str(text or "")).strip()).strip("-")[:limit]
    return value or default


def clean_entry(entry: Entry) -> Entry:
    """Every field made safe for the file: redacted, one line, capped."""
    status = entry.status if entry.status in STATUSES else one_line(entry.status, 20).lower() or "completed"
    return Entry(
        task=one_line(entry.task, TASK_CAP) or "(no task given)",
        status=re.sub(r"[^a-z-]+", "-", status).strip("-") or "completed",
        agent=_token(entry.agent, AGENT_CAP, "agent"),
        job_id=_token(entry.job_id, ID_CAP, "") if entry.job_id else "",
        time=entry.time,
        duration_s=None if entry.duration_s is None else max(0.0, float(entry.duration_s)),
        cost_usd=None if entry.cost_usd is None else max(0.0, float(entry.cost_usd)),
        result=one_line(entry.result, RESULT_CAP),
        learned=one_line(entry.learned, LEARNED_CAP),
        errors=one_line(entry.errors, ERRORS_CAP),
        day=entry.day,
    )


# ---------------------------------------------------------------- reading


def day_path(project: Project, day: str) -> Path:
    return project.journal_dir / f"{day}.md"


def local_day(now: float | None = None) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(time.time() if now is None else now))


def blocks(text: str) -> tuple[str, list[str]]:
    """(text above the first ``## `` heading, the blocks that start at each heading)."""
    starts = [m.start() for m in _BLOCK_HEAD.finditer(text)]
    if not starts:
        return text, []
    return text[: starts[0]], [
        text[s : starts[i + 1] if i + 1 < len(starts) else len(text)] for i, s in enumerate(starts)
    ]


def parse_entry(block: str, day: str = "") -> Entry | None:
    """The entry a job block holds, or None for a block that is not a job (the user's own)."""
    head, _, rest = block.partition("\n")
    match = JOB_HEAD.match(head.strip())
    if not match:
        return None
    fields = {m.group(1): m.group(2).strip() for m in _FIELD.finditer(rest)}
    entry = Entry(
        task=fields.get("Task", ""),
        agent=match["agent"],
        job_id=match["id"],
        time=match["time"],
        learned=fields.get("Learned", ""),
        errors=fields.get("Errors", ""),
        day=day,
        status="",
    )
    result = _RESULT.match(fields.get("Result", ""))
    if result:
        entry.status = result["status"]
        entry.duration_s = float(result["duration"]) if result["duration"] else None
        entry.cost_usd = float(result["cost"]) if result["cost"] else None
        entry.result = (result["summary"] or "").strip()
    else:
        entry.result = fields.get("Result", "")
    return entry


def entries_of(text: str, day: str = "") -> list[Entry]:
    return [e for e in (parse_entry(b, day) for b in blocks(text)[1]) if e is not None]


def read_day(project: Project, day: str) -> str:
    try:
        return day_path(project, day).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def days_on_disk(project: Project) -> list[str]:
    try:
        names = os.listdir(project.journal_dir)
    except OSError:
        return []
    return sorted(m.group(1) for m in map(_DAY_FILE.match, names) if m)


def recent(project: Project, days: int = 2, now: float | None = None) -> list[Entry]:
    """The entries of the last ``days`` local days (today included), oldest first."""
    today = date.fromisoformat(local_day(now))
    first = (today - timedelta(days=max(1, days) - 1)).isoformat()
    out: list[Entry] = []
    for day in days_on_disk(project):
        if first <= day <= today.isoformat():
            out.extend(entries_of(read_day(project, day), day))
    return out


def next_job_id(text: str) -> str:
    """One more than the highest numeric job id of the day (1 for the day's first job)."""
    numbers = [int(e.job_id) for e in entries_of(text) if e.job_id.isdigit()]
    return str(max(numbers, default=0) + 1)


# ---------------------------------------------------------------- writing


@contextmanager
def _locked(project: Project) -> Iterator[None]:
    """One writer at a time per project: read-modify-write of a day file must not lose an entry."""
    from automem.store import FileLock

    with FileLock(project.journal_dir / LOCK_NAME):
        yield


def append(project: Project, entry: Entry, *, now: float | None = None, retention_days: int | None = None) -> Entry:
    """Add a job entry to today's file (the next job id when none is given); prune; index. Returns the entry."""
    from automem.store import write_markdown

    now = time.time() if now is None else now
    entry = clean_entry(entry)
    entry.day = local_day(now)
    entry.time = entry.time or time.strftime("%H:%M", time.localtime(now))
    with _locked(project):
        path = day_path(project, entry.day)
        text = read_day(project, entry.day)
        entry.job_id = entry.job_id or next_job_id(text)
        if not text.strip():
            text = f"# Journal {entry.day}\n"
        body = text.rstrip("\n") + "\n\n" + entry.render()
        write_markdown(path, body, home=project.home)
        changed = [path]
        if retention_days:
            changed += prune(project, retention_days, now=now, _lock=False)
    _index(project, changed)
    return entry


def prune(project: Project, retention_days: int, *, now: float | None = None, _lock: bool = True) -> list[Path]:
    """Remove job entries of days more than ``retention_days`` before today; keep the user's own text.

    Returns the files changed or deleted (for the index). ``retention_days`` <= 0 prunes nothing.
    """
    if retention_days <= 0:
        return []
    if _lock:
        with _locked(project):
            pruned = prune(project, retention_days, now=now, _lock=False)
        _index(project, pruned)
        return pruned
    from automem.store import remove, write_markdown

    cutoff = (date.fromisoformat(local_day(now)) - timedelta(days=retention_days)).isoformat()
    changed: list[Path] = []
    for day in days_on_disk(project):
        if day >= cutoff:
            continue
        path = day_path(project, day)
        head, rest = blocks(read_day(project, day))
        if rest and all(parse_entry(b) is None for b in rest):
            continue  # only the user's own text is left here: theirs to keep
        own_head = "\n".join(line for line in head.splitlines() if line.strip() and not _OUR_HEADER.match(line))
        kept = [b for b in rest if parse_entry(b) is None]
        try:
            if own_head or kept:
                write_markdown(
                    path,
                    (head.rstrip("\n") + "\n\n" if head.strip() else "") + "".join(kept).strip("\n") + "\n",
                    home=project.home,
                )
            else:
                remove(path, home=project.home, missing_ok=False)
        except FileNotFoundError:
            pass
        changed.append(path)
    return changed


def _index(project: Project, paths: list[Path]) -> None:
    """Searchable at once (index_file drops a deleted file); the tree stays the truth if this fails."""
    if not paths:
        return
    try:
        from automem.index.db import open_index
        from automem.index.upsert import index_file

        conn = open_index(str(project.home.root))
        try:
            for path in paths:
                index_file(path, str(project.home.root), conn=conn)
        finally:
            conn.close()
    except Exception as exc:  # noqa: BLE001
        from automem.log import log_error

        log_error("journal", f"index update failed: {type(exc).__name__}: {exc}", home=str(project.home.root))

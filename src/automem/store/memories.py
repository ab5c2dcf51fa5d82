"""Learned memories as Markdown files: the format of DESIGN.md, read and written in one place.

A memory is ``projects/<slug>/memories/<file-safe-iso>--<slug>.md`` with YAML
frontmatter (id, type, summary, tags, scope, source, harness, session_id,
created, last_seen, seen, and for automatic ones status, promoted, promoted_at,
family) and a body of content, **Why:** and **How to apply:**. A memory whose
``source`` is not automatic belongs to the user: automation never rewrites or
deletes it (``is_users``).

An automatic memory is born a ``candidate``: stored, listed, searchable with
``--candidates``, never injected. ``promote`` records why it earned injection
(schema.PROMOTIONS). A file written before statuses existed has none: it counts
as promoted when it was seen twice or more (reinforced), else as a candidate.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.digest import sha256_hex
from automem.home import Project, file_safe_iso, title_slug
from automem.isotime import now_iso
from automem.markdown import frontmatter_lines, load
from automem.record import field, record
from automem.schema import (  # noqa: F401 - TYPES and is_automatic_source are imported from here by others
    CANDIDATE,
    CONTENT_CAP,
    EXPIRED,
    HOW_CAP,
    INJECTABLE,
    PROMOTED,
    REINFORCED,
    STATUSES,
    SUMMARY_CAP,
    TOOL_PROTOCOL,
    TYPES,
    WHY_CAP,
    is_automatic_source,
    memory_state,
)

TRUNCATION = "…[truncated]"

_WHY = "**Why:**"
_HOW = "**How to apply:**"


def cap(text: str, limit: int) -> str:
    """Cut to ``limit`` characters, marking the cut so a reader knows text is missing."""
    text = (text or "").strip()
    if len(text) <= limit:
        return text
    return text[: limit - len(TRUNCATION)].rstrip() + TRUNCATION


@record
class Memory:
    """One memory: what the Markdown file under memories/ holds (store/memories.py reads and writes it)."""

    type: str
    summary: str
    content: str
    why: str = ""
    how_to_apply: str = ""
    tags: list[str] = field(default_factory=list)
    scope: str = "project"  # project | global
    source: str = "auto-memorize"
    harness: str = ""
    session_id: str = ""
    created: str = field(default_factory=now_iso)
    last_seen: str = ""
    seen: int = 1
    id: str = ""
    path: Path | None = None
    status: str = ""  # candidate | promoted | expired; "" for the user's own memories
    promoted: str = ""  # why it was promoted (schema.PROMOTIONS)
    promoted_at: str = ""
    family: str = ""  # the session family (a session, its subagents and compaction copies) it came from
    rule: str = ""  # the extraction rule that found it

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"memory type must be one of {', '.join(TYPES)}, not {self.type!r}")
        if self.status not in STATUSES or not is_automatic_source(self.source):
            self.status = ""  # a hand edit or a user's own file: no status to act on (never a reason to lose it)
        self.summary = cap(" ".join((self.summary or "").split()), SUMMARY_CAP)
        self.content = cap(self.content, CONTENT_CAP)
        self.why = cap(self.why, WHY_CAP)
        self.how_to_apply = cap(self.how_to_apply, HOW_CAP)
        self.last_seen = self.last_seen or self.created
        if not self.id:
            digest = sha256_hex(f"{self.created}|{self.summary}")[:6]
            self.id = f"{file_safe_iso(self.created)[:19]}-{digest}"

    @property
    def is_automatic(self) -> bool:
        return is_automatic_source(self.source)

    @property
    def state(self) -> str:
        """user | promoted | candidate | expired: what decides whether it may be injected."""
        return memory_state(self.source, self.status, self.seen)

    @property
    def injectable(self) -> bool:
        return self.state in INJECTABLE

    def promote(self, reason: str, when: str | None = None) -> bool:
        """Mark an automatic candidate promoted for ``reason``; False when there was nothing to change."""
        if not self.is_automatic or self.state == PROMOTED:
            return False
        self.status = PROMOTED
        self.promoted = reason
        self.promoted_at = when or now_iso()
        return True

    def file_name(self) -> str:
        """Named after the summary, redacted: a file name is on disk too (and in the index, and in trash/)."""
        from automem.store import redacted

        return f"{file_safe_iso(self.created)}--{title_slug(redacted(self.summary), 50)}.md"

    def render(self) -> str:
        fields: list[tuple[str, object]] = [
            ("id", self.id),
            ("type", self.type),
            ("summary", self.summary),
            ("tags", list(self.tags)),
            ("scope", self.scope),
            ("source", self.source),
            ("harness", self.harness),
            ("session_id", self.session_id),
            ("created", self.created),
            ("last_seen", self.last_seen),
            ("seen", int(self.seen)),
            *([("status", self.status)] if self.status else []),
            *([("promoted", self.promoted)] if self.promoted else []),
            *([("promoted_at", self.promoted_at)] if self.promoted_at else []),
            *([("family", self.family)] if self.family and self.family != self.session_id else []),
            *([("rule", self.rule)] if self.rule else []),
        ]
        front = [
            *frontmatter_lines(fields),
            "",
            self.content.strip(),
            "",
        ]
        if self.why:
            front += [f"{_WHY} {self.why.strip()}", ""]
        if self.how_to_apply:
            front += [f"{_HOW} {self.how_to_apply.strip()}", ""]
        return "\n".join(front)

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "type": self.type,
            "summary": self.summary,
            "content": self.content,
            "why": self.why,
            "how_to_apply": self.how_to_apply,
            "tags": list(self.tags),
            "scope": self.scope,
            "source": self.source,
            "harness": self.harness,
            "session_id": self.session_id,
            "created": self.created,
            "last_seen": self.last_seen,
            "seen": self.seen,
            "path": str(self.path) if self.path else None,
            "status": self.state,
            "promoted": self.promoted,
            "promoted_at": self.promoted_at,
            "family": self.family or self.session_id,
            "rule": self.rule,
        }


def parse(path: Path) -> Memory:
    """Read one memory file (raises ValueError with the path when it is not one)."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            meta, body = load(handle.read())
    except Exception as exc:  # noqa: BLE001 - yaml and io errors alike: say which file
        raise ValueError(f"{path}: not a memory file ({exc})") from None
    why = how = ""
    if _HOW in body:
        body, how = body.split(_HOW, 1)
    if _WHY in body:
        body, why = body.split(_WHY, 1)
    try:
        memory = Memory(
            type=str(meta.get("type", "observation")),
            summary=str(meta.get("summary", "")),
            content=body.strip(),
            why=why.strip(),
            how_to_apply=how.strip(),
            tags=[str(t) for t in meta.get("tags") or []],
            scope=str(meta.get("scope", "project")),
            source=str(meta.get("source", "user")),
            harness=str(meta.get("harness", "") or ""),
            session_id=str(meta.get("session_id", "") or ""),
            created=str(meta.get("created", "") or now_iso()),
            last_seen=str(meta.get("last_seen", "") or ""),
            seen=int(meta.get("seen", 1) or 1),
            id=str(meta.get("id", "") or path.stem),
            status=str(meta.get("status", "") or ""),
            promoted=str(meta.get("promoted", "") or ""),
            promoted_at=str(meta.get("promoted_at", "") or ""),
            family=str(meta.get("family", "") or ""),
            rule=str(meta.get("rule", "") or ""),
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    memory.path = path
    return memory


def list_memories(project: Project) -> list[Memory]:
    """Every readable memory of a project (unreadable files are skipped, not fatal)."""
    folder = project.memories_dir
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("*.md")):
        try:
            out.append(parse(path))
        except ValueError:
            continue
    return out


def save(project: Project, memory: Memory) -> Path:
    """Write a memory through the store (redacted, atomic); returns its path."""
    from automem.store import write_markdown

    path = memory.path or (project.memories_dir / memory.file_name())
    write_markdown(path, memory.render())
    memory.path = path
    return path


def reinforce(memory: Memory, when: str | None = None) -> Path | None:
    """seen + 1 and last_seen, for an automatic memory (the same lesson again, in another session family):
    a candidate seen again is promoted, unless it is one of the harness's own tool rules (TOOL_PROTOCOL). The user's
    own are never rewritten."""
    if not memory.is_automatic or memory.path is None:
        return None
    from automem.store import write_markdown

    memory.seen += 1
    memory.last_seen = when or now_iso()
    if memory.state == CANDIDATE and TOOL_PROTOCOL not in memory.tags:
        memory.promote(REINFORCED, memory.last_seen)
    write_markdown(memory.path, memory.render())
    return memory.path


def save_status(memory: Memory) -> Path | None:
    """Rewrite an automatic memory after its status changed (promoted, expired)."""
    if not memory.is_automatic or memory.path is None:
        return None
    from automem.store import write_markdown

    write_markdown(memory.path, memory.render())
    return memory.path


_ID_SAFE = rx.compile(r"^[A-Za-z0-9._-]+$")


def find(projects: list[Project], memory_id: str) -> Memory | None:
    """A memory by id (or file stem) across the given projects."""
    if not _ID_SAFE.match(memory_id or ""):
        return None
    for project in projects:
        for memory in list_memories(project):
            if memory.id == memory_id or (memory.path and memory.path.stem == memory_id):
                return memory
    return None


def move_to_trash(memory: Memory, project: Project) -> Path:
    """Move a memory file into its project's trash/ (a name already there gets a time suffix); returns the new path."""
    from automem.store import trash

    if memory.path is None:
        raise ValueError("memory has no file")
    return trash(memory.path, project.trash_dir, home=project.home)


def expire_candidates(projects: list[Project], days: int, now: float | None = None) -> list[tuple[Memory, Path]]:
    """Automatic candidates older than ``days`` with no promotion go to trash, marked expired (so they may
    be learned again if they come back, unlike what the user forgot). Only files staged as candidates
    (``status: candidate``): an older file without a status is never expired. Call under the memory lock.
    Returns (memory, old path) pairs."""
    import time

    if days <= 0:
        return []
    now = time.time() if now is None else now
    out: list[tuple[Memory, Path]] = []
    for project in projects:
        for memory in list_memories(project):
            if memory.status != CANDIDATE or memory.path is None:
                continue
            try:
                created = datetime.fromisoformat(memory.created.replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
            if now - created < days * 86400:
                continue
            old_path = memory.path
            memory.status = EXPIRED
            from automem.store import write_markdown

            write_markdown(old_path, memory.render())
            memory.path = move_to_trash(memory, project)
            out.append((memory, old_path))
    return out

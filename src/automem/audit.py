"""Review what automation remembered: audit, forget, keep, why, and remember by hand.

Memories are found by id (or file stem) in the current project first, then
``_global``, then every other project. ``forget`` moves the file to the
project's ``trash/`` (``purge`` deletes it) and takes it out of the index at
once; ``keep`` makes a memory the user's own (``source: user``), which
automation never rewrites or deletes; ``remember`` writes a user memory
through the store (redacted, atomic) and indexes it.
"""

from __future__ import annotations

from pathlib import Path

from automem.home import GLOBAL_PROJECT, Home, Project
from automem.index.db import open_index
from automem.index.search import memory_texts
from automem.index.sync import sync
from automem.index.upsert import index_file, remove_file
from automem.isotime import iso_epoch
from automem.store import memories as store

KEPT_SOURCE = "user"


class AuditError(ValueError):
    """A memory the command cannot act on; the message says why."""


def _projects_in_order(home: Home, slug: str | None) -> list[Project]:
    first = [Project(home=home, slug=s, root="") for s in (slug, GLOBAL_PROJECT) if s]
    names = {p.slug for p in first}
    return first + [p for p in home.projects() if p.slug not in names]


def find(home: Home, memory_id: str, slug: str | None = None) -> store.Memory:
    memory = store.find(_projects_in_order(home, slug), memory_id)
    if memory is None:
        raise AuditError(f"no memory with id {memory_id!r}; `automem audit` lists them")
    return memory


def audit(
    home: Home, slug: str | None, *, since: float | None = None, type: str | None = None, all_projects: bool = False
) -> list[store.Memory]:
    """Automatic memories for review, newest first (the user's own are not listed)."""
    projects = (
        home.projects() if all_projects else [Project(home=home, slug=s, root="") for s in (slug, GLOBAL_PROJECT) if s]
    )
    out = []
    for project in projects:
        for memory in store.list_memories(project):
            if not memory.is_automatic:
                continue
            if type and memory.type != type:
                continue
            when = max(iso_epoch(memory.created, 0.0), iso_epoch(memory.last_seen, 0.0))
            if since is not None and when < since:
                continue
            out.append(memory)
    return sorted(out, key=lambda m: m.last_seen or m.created, reverse=True)


def forget(home: Home, memory_id: str, slug: str | None = None, *, purge: bool = False) -> dict:
    """Move a memory to trash/ (or delete it) and out of the index; returns what was done."""
    from automem.store import remove, trash

    memory = find(home, memory_id, slug)
    path = _path_of(memory)
    if purge:
        remove(path, home=home, missing_ok=False)
        where = None
    else:
        where = str(trash(path, _project_of(home, memory).trash_dir, home=home))
    remove_file(path, str(home.root))
    return {"id": memory.id, "forgotten": str(path), "trash": where, "purged": purge}


def keep(home: Home, memory_id: str, slug: str | None = None) -> dict:
    """Make a memory the user's own: automation never touches it again."""
    memory = find(home, memory_id, slug)
    was = memory.source
    if memory.is_automatic:
        from automem.schema import KEPT, PROMOTED

        memory.source = KEPT_SOURCE
        memory.status, memory.promoted, memory.promoted_at = PROMOTED, KEPT, store.now_iso()
        store.save(_project_of(home, memory), memory)
        index_file(memory.path, str(home.root))
    return {"id": memory.id, "source": memory.source, "was": was, "path": str(memory.path)}


def why(home: Home, memory_id: str, slug: str | None = None) -> dict:
    """Where a memory came from: session, harness, signals, when, how often seen."""
    memory = find(home, memory_id, slug)
    signals = [t for t in memory.tags if t != "auto-memorize"]
    return {
        "id": memory.id,
        "type": memory.type,
        "summary": memory.summary,
        "source": memory.source,
        "automatic": memory.is_automatic,
        "session_id": memory.session_id,
        "harness": memory.harness,
        "signals": signals,
        "tags": memory.tags,
        "created": memory.created,
        "last_seen": memory.last_seen,
        "seen": memory.seen,
        "scope": memory.scope,
        "project": _path_of(memory).parent.parent.name,
        "path": str(memory.path),
        "why": memory.why,
        "how_to_apply": memory.how_to_apply,
        "status": memory.state,
        "promoted": memory.promoted,
        "promoted_at": memory.promoted_at,
        "family": memory.family or memory.session_id,
        "rule": memory.rule,
        "injected": memory.injectable,
    }


def remember(
    home: Home,
    project: Project,
    text: str,
    *,
    type: str = "observation",
    summary: str | None = None,
    why: str = "",
    how_to_apply: str = "",
) -> store.Memory:
    """A memory written by hand (source ``user``), saved through the store and indexed at once.

    When automem already holds the same lesson, nothing is added: an automatic one becomes the user's own (kept),
    one the user wrote is returned as it is. The memory returned carries ``outcome``: stored | kept | exists."""
    from automem.store import redacted

    # redact before the Memory caps its fields (a cut secret is unrecognisable) and before a file name is made
    text = redacted(text or "").strip()
    if not text:
        raise AuditError("nothing to remember: give the text to keep")
    summary = redacted(summary) if summary else summary
    why, how_to_apply = redacted(why), redacted(how_to_apply)
    if type not in store.TYPES:
        raise AuditError(f"--type must be one of {', '.join(store.TYPES)}")
    first_line = next((line.strip() for line in text.splitlines() if line.strip()), text)
    memory = store.Memory(
        type=type,
        summary=summary or first_line,
        content=text,
        why=why,
        how_to_apply=how_to_apply,
        tags=["remembered", type],
        scope="global" if project.slug == GLOBAL_PROJECT else "project",
        source=KEPT_SOURCE,
    )
    outcome, kept = store_deduped(
        home, project, memory, [project.slug, GLOBAL_PROJECT], confirm=lambda known: _make_own(home, known)
    )
    kept.outcome = outcome
    return kept


def _make_own(home: Home, known: store.Memory) -> str:
    """The user wrote by hand what the rules (or an agent) had found: it is theirs now."""
    from automem.schema import KEPT, PROMOTED

    if not known.is_automatic:
        return "exists"
    known.source = KEPT_SOURCE
    known.status, known.promoted, known.promoted_at = PROMOTED, KEPT, store.now_iso()
    store.save(_project_of(home, known), known)
    return "kept"


def store_deduped(home: Home, target: Project, memory: store.Memory, slugs: list[str], *, confirm) -> tuple:
    """The one way a single memory enters the tree from outside the extractor (``automem remember``, MCP
    ``memory_bank``, the Python API): deduped against what these projects hold, under the memory lock, then stored
    and indexed. ``confirm(known)`` decides what a duplicate becomes and returns its outcome; the new memory's
    outcome is ``stored``. Returns (outcome, the memory stored or matched)."""
    from automem.extract.dedupe import Deduper
    from automem.store import memory_lock

    root = str(home.root)
    slugs = list(dict.fromkeys(slugs))
    conn = open_index(root)
    try:
        with memory_lock(home):  # concurrent writers (and the extractor) dedupe against each other
            sync(conn, root, slugs)
            rows = memory_texts(conn, slugs)
            deduper = Deduper([f"{title}\n{_content_of(body)}" for _path, title, body in rows])
            match = deduper.duplicate_of(memory.summary + "\n" + memory.content)
            if match is not None:
                known = store.parse(home.root / rows[match][0])
                outcome = confirm(known)
                index_file(known.path, root, conn)
                return outcome, known
            store.save(target, memory)
            index_file(memory.path, root, conn)
            return "stored", memory
    finally:
        conn.close()


def _content_of(body: str) -> str:
    """A memory's indexed body without its Why / How to apply sections (what dedupe compares)."""
    return body.split("**Why:**", 1)[0].split("**How to apply:**", 1)[0].strip()


def _path_of(memory: store.Memory) -> Path:
    if memory.path is None:
        raise AuditError(f"memory {memory.id!r} has no file")
    return Path(memory.path)


def _project_of(home: Home, memory: store.Memory) -> Project:
    """The project whose memories/ folder holds the memory's file."""
    return Project(home=home, slug=_path_of(memory).parent.parent.name, root="")

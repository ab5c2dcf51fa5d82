"""Recall: search the memory tree (memories, bank entries, journal, MAIN.md) from the FTS index.

Scope: the project's own entries, the shared ``_global`` memories, and the
projects linked from the project's MAIN.md (or every project with
``all_projects``). Links live in the human part of MAIN.md, above automem's
markers, in either form:

    linked: other-repo-1a2b3c4d, ~/code/other-repo

    ## Linked projects
    - other-repo-1a2b3c4d
    - /home/me/code/other-repo

An item is a project slug (a folder under projects/) or a path to the
project's folder (mapped to its slug the way hooks map a cwd).

Automatic memories still waiting for evidence (``candidate``) are left out unless asked for
(``candidates=True``, ``automem recall --candidates``): recall feeds agents, and only promoted
and user-written memories may reach one.

Ranking: BM25 (title and tags weigh most), then folded with reinforcement
(``seen``) and recency, so an often-confirmed, recent lesson beats a stale one
with the same words. Hits matching only some of the query words rank below
hits matching all of them.
"""

from __future__ import annotations

import math
import os
import re
import time

from automem.index import queries
from automem.index.db import open_index
from automem.index.docs import memory_snippet, snippet_of
from automem.index.search import docs_by_id, match_expr, prune_common, query_terms, search, search_injectable_memories
from automem.index.sync import sync
from automem.isotime import iso_epoch
from automem.markdown import human_part
from automem.schema import INJECTABLE, MEMORY_KIND, TEXT_KINDS, TYPES

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing into the hooks
if TYPE_CHECKING:
    from automem.home import Home

GLOBAL = "_global"
POOL = 60
PARTIAL_FACTOR = 0.6  # a hit that matches only some of the words
HALF_LIFE_DAYS = 30.0

_LINKED_LINE = re.compile(r"^\s*linked\s*:\s*(.+)$", re.I | re.M)
_LINKED_HEADING = re.compile(r"^#{1,6}\s*linked projects\s*$", re.I)


class Hit:
    """One search result; ``status`` is set for memories (user | promoted | candidate)."""

    __slots__ = (
        "kind",
        "project",
        "id",
        "type",
        "title",
        "snippet",
        "path",
        "score",
        "created",
        "last_seen",
        "seen",
        "harness",
        "source",
        "tags",
        "session_id",
        "status",
    )
    kind: str
    project: str
    id: str
    type: str
    title: str
    snippet: str
    path: str
    score: float
    created: float
    last_seen: float
    seen: int
    harness: str
    source: str
    tags: str
    session_id: str
    status: str

    def __init__(
        self,
        *,
        kind: str,
        project: str,
        id: str,
        type: str,
        title: str,
        snippet: str,
        path: str,
        score: float,
        created: float,
        last_seen: float,
        seen: int,
        harness: str,
        source: str,
        tags: str,
        session_id: str,
        status: str = "",
    ) -> None:
        values = locals()
        for name in self.__slots__:
            setattr(self, name, values[name])

    def __repr__(self) -> str:
        return f"Hit(kind={self.kind!r}, id={self.id!r}, title={self.title!r}, score={self.score:.4f})"

    def as_dict(self) -> dict:
        data = {name: getattr(self, name) for name in self.__slots__}
        data["score"] = round(self.score, 4)
        data["created"] = _iso(self.created)
        data["last_seen"] = _iso(self.last_seen)
        return data


def _iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch)) if epoch else ""


# ---------------------------------------------------------------- scope


def linked_projects(main_text: str) -> list[str]:
    """Slugs named in MAIN.md's human part (``linked:`` lines and a ``## Linked projects`` list)."""
    human = human_part(main_text)
    items: list[str] = []
    for match in _LINKED_LINE.finditer(human):
        items += [part.strip() for part in match.group(1).split(",")]
    in_list = False
    for line in human.splitlines():
        stripped = line.strip()
        if _LINKED_HEADING.match(stripped):
            in_list = True
            continue
        if in_list:
            if stripped.startswith("#"):
                in_list = False
            elif stripped.startswith(("- ", "* ")):
                items.append(stripped[2:].strip().strip("`"))
    slugs: list[str] = []
    for item in items:
        slug = _slug_for(item)
        if slug and slug not in slugs:
            slugs.append(slug)
    return slugs


def _slug_for(item: str) -> str | None:
    item = item.strip().strip("`'\"")
    if not item:
        return None
    if "/" not in item and "\\" not in item and not item.startswith("~"):
        return item if item not in (".", "..") else None
    from automem.capture.project import find_project_root, project_slug

    path = os.path.expanduser(item)
    root = find_project_root(path) if os.path.isdir(path) else path
    return project_slug(root)


def project_scope(home: Home, slug: str) -> list[str]:
    """The project itself, its linked projects and _global."""
    from automem.home import Project

    try:
        with open(Project(home=home, slug=slug, root="").main_md, encoding="utf-8", errors="replace") as f:
            main_text = f.read(200_000)
    except (OSError, ValueError):  # ValueError: not a slug, so no folder
        main_text = ""
    scope = [slug] + [s for s in linked_projects(main_text) if s != slug]
    if GLOBAL not in scope:
        scope.append(GLOBAL)
    return scope


# ---------------------------------------------------------------- ranking


def boost(seen: int, last_seen: float, now: float) -> float:
    """Reinforcement and recency folded into one factor (1.0 for a fresh, once-seen memory)."""
    age_days = max(0.0, (now - (last_seen or now)) / 86400.0)
    recency = 0.6 + 0.4 * 0.5 ** (age_days / HALF_LIFE_DAYS)
    return recency * (1.0 + 0.25 * math.log(max(1, int(seen or 1))))


def recall(
    query: str,
    *,
    project: str | None = None,
    home: Home | None = None,
    all_projects: bool = False,
    type: str | None = None,
    since: float | None = None,
    harness: str | None = None,
    limit: int = 10,
    conn: queries.Connection | None = None,
    sync_first: bool = True,
    now: float | None = None,
    candidates: bool = False,
) -> list[Hit]:
    """The best ``limit`` hits for ``query`` in the project's scope (or everywhere); candidates only when asked."""
    if home is None:
        from automem.home import Home

        home = Home.current()
    root = str(home.root)
    now = time.time() if now is None else now
    terms = query_terms(query)
    if not terms or limit <= 0:
        return []
    scope = None if all_projects or not project else project_scope(home, project)
    own = conn is None
    conn = conn or open_index(root)
    try:
        if sync_first:
            sync(conn, root, scope)
        tables = _tables_for(type)
        hits: dict[int, tuple[Hit, dict]] = {}
        for table in tables:
            for rowid, doc, score in _ranked(conn, table, terms, scope, type, since, harness, limit, candidates):
                hit = _hit(doc, score, now)
                if rowid not in hits or hits[rowid][0].score < hit.score:
                    hits[rowid] = (hit, doc)
        best = sorted(hits.values(), key=lambda pair: -pair[0].score)[:limit]
        for hit, doc in best:
            hit.snippet = snippet_of(root, doc)  # made from the text the index keeps once, for the hits shown
        return [hit for hit, _doc in best]
    finally:
        if own:
            conn.close()


def _tables_for(type: str | None) -> list[str]:
    if type in TYPES or type == MEMORY_KIND:
        return ["fts_mem"]
    if type in TEXT_KINDS:
        return ["fts_text"]
    return ["fts_mem", "fts_text"]


def _ranked(conn, table, terms, scope, type, since, harness, limit, candidates=False):
    """(rowid, doc, bm25 relevance >= 0 already folded with the partial-match factor)."""
    out = []
    seen_ids: set[int] = set()
    terms = prune_common(conn, table, terms)
    ops = ("AND", "OR") if len(terms) > 1 else ("AND",)
    for op in ops:
        expr = match_expr(terms, op)
        factor = 1.0 if op == "AND" else PARTIAL_FACTOR
        rows = search(conn, table, expr, POOL)
        docs = docs_by_id(conn, [r[0] for r in rows])
        kept = [
            (rid, docs[rid], -score * factor)
            for rid, score in rows
            if rid in docs and _wanted(docs[rid], scope, type, since, harness, candidates)
        ]
        if len(kept) < limit and len(rows) >= POOL:  # filters ate the pool: ask SQLite with the filters
            kept = [
                (rid, doc, -score * factor)
                for rid, doc, score in _filtered(conn, table, expr, scope, type, since, harness, limit * 3, candidates)
            ]
        for rid, doc, rel in kept:
            if rid not in seen_ids:
                seen_ids.add(rid)
                out.append((rid, doc, rel))
        if len(out) >= limit * 2:
            break
    return out


def injectable(doc: dict) -> bool:
    """May this index row be handed to an agent? Memories only when promoted or the user's own."""
    return doc["kind"] != "memory" or doc.get("status") in INJECTABLE


def _wanted(doc: dict, scope, type, since, harness, candidates=False) -> bool:
    if scope is not None and doc["project"] not in scope:
        return False
    if not candidates and not injectable(doc):
        return False
    if type in TYPES and doc["type"] != type:
        return False
    if type in TEXT_KINDS and doc["kind"] != type:
        return False
    if since is not None and max(doc["created"], doc["last_seen"]) < since:
        return False
    if harness and doc["harness"] != harness:
        return False
    return True


def _filtered(conn, table, expr, scope, type, since, harness, limit, candidates=False):
    return queries.filtered_search(
        conn,
        table,
        expr,
        scope=scope,
        memory_type=type if type in TYPES else None,
        kind=type if type in TEXT_KINDS else None,
        since=since,
        harness=harness,
        limit=limit,
        candidates=candidates,
    )


def _hit(doc: dict, relevance: float, now: float) -> Hit:
    return Hit(
        kind=doc["kind"],
        project=doc["project"],
        id=doc["ref"],
        type=doc["type"] or doc["kind"],
        title=doc["title"],
        snippet="",
        path=doc["path"],
        score=relevance * boost(doc["seen"], doc["last_seen"], now),
        created=doc["created"],
        last_seen=doc["last_seen"],
        seen=doc["seen"],
        harness=doc["harness"],
        source=doc["source"],
        tags=doc["tags"],
        session_id=doc["session_id"],
        status=doc.get("status") or "",
    )


def parse_since(text: str | None, now: float | None = None) -> float | None:
    """``7d``, ``12h``, ``2w``, ``30m`` or an ISO date -> epoch seconds (None when empty)."""
    if not text:
        return None
    now = time.time() if now is None else now
    match = re.fullmatch(r"\s*(\d+)\s*([mhdw])\s*", text.lower())
    if match:
        unit = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}[match.group(2)]
        return max(0.0, now - min(int(match.group(1)), 10**9) * unit)  # "since forever" is the epoch, not an overflow
    nan = float("nan")
    try:
        value = iso_epoch(text, nan)
    except (OverflowError, OSError, ValueError):
        value = nan
    if value != value:  # NaN: not a date
        raise ValueError(f"--since takes a duration like 7d, 12h, 2w or an ISO date, not {text!r}")
    return value


# ---------------------------------------------------------------- per-prompt recall

PROMPT_MIN_TERMS = 2
PROMPT_COVERAGE = 0.3  # share of the prompt's significant words a memory must contain
PROMPT_POOL = 30


_STEM = re.compile(r"\b\w{1,5}")  # each word's first five letters (a match never starts inside a word)


def _stems(text: str) -> set[str]:
    return set(_STEM.findall(text.lower()))


def relevant_memories(
    conn: queries.Connection,
    prompt: str,
    scope: list[str] | None,
    exclude: set[str],
    limit: int = 3,
    now: float | None = None,
) -> list[dict]:
    """Memories that clear the relevance bar for a prompt, best first (never one in ``exclude``).

    The bar: the memory contains at least two of the prompt's significant
    words and at least 30 % of them (words compared on their first five
    letters, so "tests" meets "testing"). A one-word prompt recalls nothing.
    """
    now = time.time() if now is None else now
    terms = query_terms(prompt)
    if len(terms) < PROMPT_MIN_TERMS or limit <= 0:
        return []
    need = max(PROMPT_MIN_TERMS, math.ceil(PROMPT_COVERAGE * len(terms)))
    rows = search_injectable_memories(conn, match_expr(terms, "OR"), PROMPT_POOL, scope, exclude)
    docs = docs_by_id(conn, [r[0] for r in rows])
    picked: list[dict] = []
    for rowid, score in rows:
        doc = docs.get(rowid)
        if doc is None or doc["ref"] in exclude or (scope is not None and doc["project"] not in scope):
            continue
        if not injectable(doc):
            continue  # a candidate waits for evidence before it may be added to a prompt
        stems = _stems(" ".join((doc["title"], doc["tags"], doc["body"])))
        matched = sum(1 for t in terms if t[:5] in stems)
        if matched < need:
            continue
        doc["relevance"] = -score * boost(doc["seen"], doc["last_seen"], now)
        doc["matched"] = matched
        picked.append(doc)
    picked.sort(key=lambda d: -d["relevance"])
    for doc in picked[:limit]:
        doc["snippet"] = memory_snippet(doc["body"])  # only for what is handed out
    return picked[:limit]

"""The FTS5 queries recall and dedupe run: significant words, their document frequency, match expressions,
bm25-ranked hits and the rows behind them."""

from __future__ import annotations

import re
import sqlite3

from automem import lazy_re as rx  # module-level patterns compile on first use

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing into the hooks
if TYPE_CHECKING:
    from collections.abc import Collection

MEM_WEIGHTS = "8.0, 4.0, 1.0"  # summary, tags, body
TEXT_WEIGHTS = "8.0, 4.0, 2.0, 1.0, 1.5"  # title, tags, prompt, actions, result

STOPWORDS = frozenset(
    """
a about above after again all also am an and any are as at be because been before being below between both but by
can could did do does doing done down during each few for from further had has have having he her here hers him his
how i if in into is it its itself just let lets like me more most my no nor not now of off on once only or other our
ours out over own please same she should so some such than that the their theirs them then there these they this
those through to too under until up us very was we were what when where which while who whom why will with would
you your yours yourself okay ok yes thanks thank hi hello hey use using used make made get got want need
""".split()
)

_WORD = rx.compile(r"\w+", re.U)


def query_terms(text: str, limit: int = 12) -> list[str]:
    """Distinct significant words of a query, in order (stopwords and 1-letter words out)."""
    out: list[str] = []
    for word in _WORD.findall((text or "").lower()):
        if len(word) < 2 or word in STOPWORDS or word in out or word.isdigit() and len(word) < 3:
            continue
        out.append(word)
        if len(out) >= limit:
            break
    return out


def doc_frequency(conn: sqlite3.Connection, table: str, term: str) -> int:
    """Documents holding ``term`` (its exact token, else words sharing its first five letters: an upper bound)."""
    vocab = f"{table}_vocab"
    row = conn.execute(f"SELECT doc FROM {vocab} WHERE term = ?", (term,)).fetchone()
    if row:
        return int(row[0])
    stem = term[:5]
    row = conn.execute(f"SELECT max(doc) FROM {vocab} WHERE term >= ? AND term < ?", (stem, stem + "\uffff")).fetchone()
    return int(row[0] or 0)


def prune_common(conn: sqlite3.Connection, table: str, terms: list[str], share: float = 0.2) -> list[str]:
    """Drop words found in more than ``share`` of the documents (they rank nothing and cost a full scan).

    Keeps the rarest word when every word is common, so a query never becomes empty.
    """
    if len(terms) < 2:
        return terms
    total = _table_size(conn, table)
    if total < 50:
        return terms
    freq = {t: doc_frequency(conn, table, t) for t in terms}
    kept = [t for t in terms if freq[t] <= share * total]
    return kept or [min(terms, key=lambda t: freq[t])]


def _table_size(conn: sqlite3.Connection, table: str) -> int:
    """Documents in an FTS table, from the folder counts of the last scan (cheap; approximate is enough)."""
    pattern = "%/memories" if table == "fts_mem" else "%/bank"
    row = conn.execute("SELECT sum(files) FROM fts_dirs WHERE path LIKE ?", (pattern,)).fetchone()
    return int(row[0] or 0)


def match_expr(terms: list[str], op: str) -> str:
    return f" {op} ".join('"' + t.replace('"', "") + '"' for t in terms)


def search(conn: sqlite3.Connection, table: str, expr: str, pool: int) -> list[tuple[int, float]]:
    """(rowid, bm25) best first from one FTS table; bm25 is negative, lower is better."""
    weights = MEM_WEIGHTS if table == "fts_mem" else TEXT_WEIGHTS
    try:
        return conn.execute(
            f"SELECT rowid, bm25({table}, {weights}) AS score FROM {table} WHERE {table} MATCH ? ORDER BY score "
            f"LIMIT ?",
            (expr, pool),
        ).fetchall()
    except sqlite3.OperationalError:
        return []  # an expression FTS5 cannot parse: no hits rather than an error


def search_injectable_memories(
    conn: sqlite3.Connection,
    expr: str,
    pool: int,
    projects: list[str] | None = None,
    exclude: Collection[str] = (),
) -> list[tuple[int, float]]:
    """Like ``search`` over fts_mem, but only memories that may be handed to an agent (promoted or the user's), of
    ``projects`` (None: any) and not in ``exclude`` (refs): another project's matches never crowd the pool out.

    FTS5 scores every match before it sorts, and a join scores each with its row looked up: so the best few times
    the pool are ranked alone and their rows read after; only when others crowd that out does the join run."""
    args = [*(projects or ()), *exclude]
    wide = search(conn, "fts_mem", expr, pool * _WIDER)
    if not wide:
        return []
    marks = ",".join("?" * len(wide))
    ids = [r[0] for r in wide]
    where = _injectable("", projects, exclude)
    rows = conn.execute(f"SELECT id FROM fts_docs WHERE id IN ({marks}) AND {where}", ids + args)
    allowed = {row[0] for row in rows}
    kept = [row for row in wide if row[0] in allowed]
    if len(kept) >= pool or len(wide) < pool * _WIDER:
        return kept[:pool]  # the pool's best, exactly as the join would rank them
    try:
        return conn.execute(
            f"SELECT m.rowid, bm25(fts_mem, {MEM_WEIGHTS}) AS score FROM fts_mem m JOIN fts_docs d ON d.id = m.rowid "
            f"WHERE fts_mem MATCH ? AND {_injectable('d.', projects, exclude)} ORDER BY score LIMIT ?",
            [expr, *args, pool],
        ).fetchall()
    except sqlite3.OperationalError:
        return []


_WIDER = 3  # how many times the pool is ranked before statuses are read


def _injectable(table: str, projects: list[str] | None, exclude: Collection[str]) -> str:
    """The condition on fts_docs (as ``table``) for rows that may be handed out; its arguments are the projects,
    then the excluded refs."""
    where = f"{table}status IN ('user', 'promoted')"
    if projects is not None:
        where += f" AND {table}project IN ({','.join('?' * len(projects))})"
    if exclude:
        where += f" AND {table}ref NOT IN ({','.join('?' * len(exclude))})"
    return where


def memory_texts(conn: sqlite3.Connection, slugs: list[str]) -> list[tuple[str, str, str]]:
    """(path, summary, body) of every memory of these projects, oldest first (what a new memory is deduped against)."""
    marks = ",".join("?" * len(slugs))
    return conn.execute(
        f"SELECT path, title, body FROM fts_docs WHERE kind = 'memory' AND project IN ({marks}) ORDER BY id", slugs
    ).fetchall()


def docs_by_id(conn: sqlite3.Connection, ids: list[int]) -> dict[int, dict]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    cur = conn.execute(f"SELECT * FROM fts_docs WHERE id IN ({marks})", ids)
    cols = [c[0] for c in cur.description]
    return {row[0]: dict(zip(cols, row, strict=True)) for row in cur.fetchall()}

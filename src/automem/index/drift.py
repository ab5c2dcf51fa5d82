"""The doctor's drift check: the tree compared with index.db, neither changed."""

from __future__ import annotations

import os

from automem.capture import paths as _paths
from automem.index.db import open_index
from automem.index.docs import KINDS, MAIN_NAME


def index_drift(home) -> dict:
    """Compare the tree with the index without changing either: what is missing, stale or orphaned."""
    root = str(getattr(home, "root", home))
    conn = open_index(root)
    try:
        rows = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT path, mtime_ns, size FROM fts_docs")}
        # search rows no file stands behind: an fts_text row whose text was lost, or damage done from outside
        ghost_rows = sum(
            conn.execute(f"SELECT count(*) FROM {table}_docsize WHERE id NOT IN (SELECT id FROM fts_docs)").fetchone()[
                0
            ]
            for table in ("fts_mem", "fts_text")
        )
    finally:
        conn.close()
    on_disk: dict[str, tuple[int, int]] = {}
    projects_dir = _paths.projects_dir(root)
    try:
        slugs = [e.name for e in os.scandir(projects_dir) if e.is_dir()]
    except OSError:
        slugs = []
    for slug in slugs:
        candidates = [f"projects/{slug}/{MAIN_NAME}"]
        for sub in KINDS:
            try:
                candidates += [
                    f"projects/{slug}/{sub}/{n}"
                    for n in os.listdir(os.path.join(projects_dir, slug, sub))
                    if n.endswith(".md") and not n.startswith(".")
                ]
            except OSError:
                continue
        for rel in candidates:
            try:
                st = os.stat(os.path.join(root, rel))
            except OSError:
                continue
            on_disk[rel] = (st.st_mtime_ns, st.st_size)
    missing = sorted(set(on_disk) - set(rows))
    orphaned = sorted(set(rows) - set(on_disk))
    stale = sorted(rel for rel in set(on_disk) & set(rows) if on_disk[rel] != rows[rel])
    return {
        "files": len(on_disk),
        "indexed": len(rows),
        "missing": len(missing),
        "stale": len(stale),
        "orphaned": len(orphaned),
        "ghosts": ghost_rows,
        "ok": not (missing or stale or orphaned or ghost_rows),
        "examples": {"missing": missing[:5], "stale": stale[:5], "orphaned": orphaned[:5]},
        "fix": "automem reindex",
    }

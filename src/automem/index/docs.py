"""What one file of the tree puts in index.db: its kind, the fields ``parse_doc`` reads, its FTS columns and the
fingerprint of their text; and the snippets made back from the text a row keeps once.

Four kinds of files are indexed, one row each in ``fts_docs`` (metadata) and one in an FTS5 table (text):
memories (``fts_mem``: summary, tags, body) and bank entries, journal days and MAIN.md's human part
(``fts_text``: title, tags, prompt, action digest, result). The Markdown is read by automem.markdown (stdlib).
"""

from __future__ import annotations

import json
import os

from automem import markdown
from automem.isotime import iso_epoch

KINDS = {"memories": "memory", "bank": "bank", "journal": "journal"}
MAIN_NAME = "MAIN.md"
TEXT_CAP = 8000  # characters of one column kept in the index
SNIPPET_CAP = 400


def classify(root: str, path: str) -> tuple[str, str, str] | None:
    """(relative path, project slug, kind) for a file the index covers, else None."""
    full = os.path.abspath(path if os.path.isabs(path) else os.path.join(root, path))
    rel = os.path.relpath(full, os.path.abspath(root)).replace(os.sep, "/")
    parts = rel.split("/")
    if len(parts) < 3 or parts[0] != "projects" or not rel.endswith(".md"):
        return None
    if len(parts) == 3 and parts[2] == MAIN_NAME:
        return rel, parts[1], "main"
    if len(parts) == 4 and parts[2] in KINDS and not parts[3].startswith("."):
        return rel, parts[1], KINDS[parts[2]]
    return None


def read_text(path: str) -> str:
    with open(path, "r", encoding="utf-8", errors="replace") as handle:
        return handle.read(2_000_000)


def parse_doc(kind: str, text: str, name: str, mtime: float) -> dict:
    """The fields the index keeps for one file."""
    meta, body = markdown.split_frontmatter(text)
    doc: dict = {
        "ref": str(meta.get("id") or name[:-3]),
        "type": "",
        "title": "",
        "snippet": "",
        "tags": [],
        "source": str(meta.get("source") or ""),
        "harness": str(meta.get("harness") or ""),
        "session_id": str(meta.get("session_id") or ""),
        "created": mtime,
        "last_seen": mtime,
        "seen": 1,
        "body": "",
        "prompt": "",
        "actions": "",
        "result": "",
        "status": "",
        "promoted": "",
    }
    tags = meta.get("tags") or []
    doc["tags"] = [str(t) for t in (tags if isinstance(tags, list) else [tags])]
    if kind == "memory":
        doc["type"] = str(meta.get("type") or "observation")
        doc["title"] = str(meta.get("summary") or "")
        doc["body"] = body.strip()
        content = body.split("**Why:**", 1)[0].split("**How to apply:**", 1)[0]
        doc["snippet"] = " ".join(content.split())[:SNIPPET_CAP]
        doc["created"] = iso_epoch(meta.get("created"), mtime)
        doc["last_seen"] = iso_epoch(meta.get("last_seen"), doc["created"])
        try:
            doc["seen"] = max(1, int(meta.get("seen") or 1))
        except (TypeError, ValueError):
            doc["seen"] = 1
        doc["source"] = doc["source"] or "user"
        from automem.schema import PROMOTIONS, memory_state

        doc["status"] = memory_state(doc["source"], str(meta.get("status") or ""), doc["seen"])
        promoted = str(meta.get("promoted") or "")
        doc["promoted"] = promoted if promoted in PROMOTIONS else ""  # a reason this version does not know ranks last
    elif kind == "bank":
        sections = markdown.sections(body)
        doc["title"] = str(meta.get("title") or name[:-3])
        doc["prompt"] = sections.get("Prompt", "")
        doc["actions"] = sections.get("Actions", "")
        doc["result"] = sections.get("Result", "")
        doc["snippet"] = " ".join(doc["result"].split())[:SNIPPET_CAP]
        doc["created"] = doc["last_seen"] = iso_epoch(meta.get("ts"), mtime)
    elif kind == "journal":
        day = name[:-3]
        doc["ref"] = day
        doc["title"] = f"Journal {day}"
        doc["prompt"] = body.strip()
        doc["snippet"] = " ".join(body.split())[:SNIPPET_CAP]
        doc["created"] = doc["last_seen"] = iso_epoch(day, mtime)
    else:  # main
        human = markdown.human_part(text)
        doc["ref"] = "MAIN"
        doc["title"] = "MAIN.md"
        doc["prompt"] = human
        doc["snippet"] = " ".join(human.split())[:SNIPPET_CAP]
    return doc


def index_columns(kind: str, doc: dict) -> tuple[str, ...]:
    """What one file puts in its FTS table, column by column (capped)."""
    tags = " ".join(doc["tags"])
    if kind == "memory":
        return doc["title"], tags, doc["body"][:TEXT_CAP]
    return doc["title"], tags, doc["prompt"][:TEXT_CAP], doc["actions"][:TEXT_CAP], doc["result"][:TEXT_CAP]


def text_digest(columns) -> int:
    """A fingerprint of a row's indexed text (never 0): a file is read back only when it still gives this text."""
    import zlib

    data = "\x1f".join(columns).encode("utf-8", "replace")
    return ((zlib.crc32(data) << 31) ^ zlib.adler32(data)) or 1


def stored_body(kind: str, columns: tuple[str, ...], raw: bool) -> str:
    """The text a row keeps in fts_docs.body: a memory's body, a journal day's or MAIN.md's text, and for a bank
    entry nothing when its Markdown gives the text back as indexed (``raw``: the full pass left the file as it was),
    else its three sections."""
    if kind != "bank":
        return columns[2]
    return "" if raw else json.dumps(list(columns[2:]), ensure_ascii=False)


def text_columns(root: str, row) -> tuple[str, ...] | None:
    """The fts_text columns of one fts_docs row (kind, path, title, tags, body, digest), or None when its text can
    no longer be had: a bank entry's from its Markdown file, another's from ``body``; the digest must match."""
    kind, rel, title, tags, body, digest = row
    if kind == "bank" and not body:
        try:
            text = read_text(os.path.join(root, rel))
        except OSError:
            return None
        _meta, md_body = markdown.split_frontmatter(text)
        sections = markdown.sections(md_body)
        columns = (
            title,
            tags,
            sections.get("Prompt", "")[:TEXT_CAP],
            sections.get("Actions", "")[:TEXT_CAP],
            sections.get("Result", "")[:TEXT_CAP],
        )
    elif kind == "bank":
        try:
            prompt, actions, result = json.loads(body)
        except ValueError:
            return None
        columns = (title, tags, prompt, actions, result)
    else:
        columns = (title, tags, body, "", "")
    return columns if text_digest(columns) == digest else None


def snippet_of(root: str, doc: dict) -> str:
    """A row's snippet, made from the text kept once: a memory's from its body, a bank entry's from its Markdown
    (when it still holds the indexed text, else "") or its body, a journal day's or MAIN.md's from its body."""
    if doc["kind"] == "memory":
        return memory_snippet(doc.get("body") or "")
    columns = text_columns(
        root, (doc["kind"], doc["path"], doc["title"], doc["tags"], doc.get("body") or "", doc.get("digest") or 0)
    )
    if columns is None:
        return ""
    return " ".join((columns[4] if doc["kind"] == "bank" else columns[2]).split())[:SNIPPET_CAP]


def memory_snippet(body: str) -> str:
    """A memory's content without its **Why:** and **How to apply:**, on one line."""
    content = body.split("**Why:**", 1)[0].split("**How to apply:**", 1)[0]
    return " ".join(content.split())[:SNIPPET_CAP]

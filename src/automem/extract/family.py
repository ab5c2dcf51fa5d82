"""Session families: a session, its subagents and its copies learn as one.

The same lesson must not count twice because it was read twice: a Claude Code subagent file
carries its parent's session id, a forked pi session names its parent in ``branchedFrom``, and a
resumed or compacted session starts with a copy of the history it continues (the same first
prompt at the same time). A lesson seen again in the same family is not a reinforcement; only
another family's session is evidence that it holds.

The map from a session's opening (first prompt and its time) to its family is kept in
``state/extract/families.json``, bounded to the newest entries.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from automem import regex_cache
from automem.digest import sha256_hex
from automem.harness.model import Turn

MAX_ENTRIES = 5000
_UUID = regex_cache.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", re.I)


def opening(turns: list[Turn]) -> str:
    """A fingerprint of how a session began; a copy of its history begins the same way."""
    first = next((t for t in turns if (t.prompt or "").strip()), None)
    if first is None:
        return ""
    text = f"{' '.join(first.prompt.split())[:400]}|{first.started_at or ''}"
    return sha256_hex(text)[:20]


def parent_of(path: Path | None) -> str:
    """The session a transcript declares it came from (a pi fork's ``branchedFrom``), else ""."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as handle:
            head = handle.readline(65536)
        record = json.loads(head)
    except (OSError, ValueError, RecursionError):
        return ""
    if isinstance(record, dict) and record.get("type") == "session" and isinstance(record.get("branchedFrom"), str):
        found = _UUID.findall(record["branchedFrom"])
        return found[-1] if found else ""
    return ""


def resolve(state_dir: Path, session_id: str, *, parent: str = "", fingerprint: str = "") -> str:
    """The family id of a session: its declared parent's family, the family its opening was first seen in,
    or its own id. Call under the memory lock (the map is read, updated and written back)."""
    from automem.capture.paths import safe_session_id
    from automem.store import write_file

    # ids as the rest of the state names them: a token passed as a session id is never written down raw
    session_id = safe_session_id(session_id)
    parent = safe_session_id(parent) if parent else ""
    path = state_dir / "families.json"
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
        known = known if isinstance(known, dict) else {}
    except (OSError, ValueError):
        known = {}
    family = ""
    if parent:
        family = known.get(f"s:{parent}", parent)
    elif fingerprint and f"o:{fingerprint}" in known:
        family = known[f"o:{fingerprint}"]
    family = family or known.get(f"s:{session_id}", "") or session_id
    changed = False
    for key in (f"s:{session_id}", *([f"o:{fingerprint}"] if fingerprint else [])):
        if key not in known:
            known[key] = family
            changed = True
    if changed:
        if len(known) > MAX_ENTRIES:
            known = dict(list(known.items())[-MAX_ENTRIES:])
        write_file(path, json.dumps(known) + "\n")
    return family

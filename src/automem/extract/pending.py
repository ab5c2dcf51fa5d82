"""Sessions captured before consent, extracted once it arrives.

Without an answer the hooks still spool what they see (redacted) and the spool keeps it
``consent.SPOOL_KEEP_DAYS`` days for exactly this: when the user says yes, every spooled session no
extraction has read yet is read now, from its transcript when the harness still has it, else from
the spool alone. Extraction is idempotent, so running this twice stores nothing new.
"""

from __future__ import annotations

import json
from pathlib import Path

from automem.home import Home


def pending_sessions(home: Home) -> list[dict]:
    """``{session_id, harness, cwd}`` of each spooled session with no extraction state yet, oldest first."""
    from automem.extract.pipeline import _session_state_path

    spool = home.spool_dir
    if not spool.is_dir():
        return []
    found: list[tuple[float, dict]] = []
    for path in spool.glob("*.jsonl"):
        first = _first_record(path)
        session_id = first.get("session_id")
        if not isinstance(session_id, str) or not session_id:
            continue
        if _session_state_path(home, session_id).exists():
            continue  # extracted already (with consent, at a Stop)
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue
        cwd = first.get("cwd") if isinstance(first.get("cwd"), str) else ""
        harness = first.get("harness") if isinstance(first.get("harness"), str) else ""
        found.append((mtime, {"session_id": session_id, "harness": harness, "cwd": cwd}))
    return [item for _mtime, item in sorted(found, key=lambda pair: pair[0])]


def _first_record(path: Path) -> dict:
    """The first whole line of a spool file that carries a session id ({} when none does)."""
    try:
        with open(path, "rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    break
                try:
                    value = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(value, dict) and value.get("session_id"):
                    return value
    except OSError:
        pass
    return {}


def extract_pending(home: Home | None = None, *, use_model: bool = True) -> list:
    """Extract every pending session (consent must be granted); the extraction results, in order."""
    from automem import consent
    from automem.extract.pipeline import extract
    from automem.extract.worker import find_transcript

    home = home or Home.current()
    if not consent.granted(str(home.root)):
        return []
    results = []
    for item in pending_sessions(home):
        transcript = find_transcript(item["harness"], item["session_id"]) if item["harness"] else None
        results.append(
            extract(
                home,
                session_id=item["session_id"],
                transcript=transcript,
                harness=item["harness"] or None,
                cwd=item["cwd"] or None,
                use_model=use_model,
            )
        )
    return results

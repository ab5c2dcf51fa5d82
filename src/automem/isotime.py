"""Times as automem's files spell them (ISO 8601) in seconds since the epoch. Standard library only: the hooks
import this module, and datetime only when a date is read."""

from __future__ import annotations


def iso_epoch(value, default: float) -> float:
    """Seconds since the epoch for an ISO date or time (UTC when it names no zone)."""
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value or "").strip()
    if not text:
        return default
    from datetime import datetime, timezone  # here: the hooks read the index without parsing a date

    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return default
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()

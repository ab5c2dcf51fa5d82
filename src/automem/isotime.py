"""Times as automem's files spell them (ISO 8601) in seconds since the epoch. Standard library only: the hooks
import this module, and datetime only when a date is read."""

from __future__ import annotations

from automem import lazy_re as rx  # module-level patterns compile on first use


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


# what Claude Code, Codex and pi write already: returned as it is (every record has one; parsing it was a tenth
# of a reader's time)
_CANONICAL = rx.compile(r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z")


def iso_utc(value) -> str | None:
    """ISO-8601 UTC with milliseconds and a Z, from an ISO string or epoch seconds/milliseconds."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and len(value) == 24 and _CANONICAL.fullmatch(value):
        return value
    from datetime import datetime, timezone

    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            seconds = value / 1000.0 if value > 1e11 else float(value)
            dt = datetime.fromtimestamp(seconds, tz=timezone.utc)
        elif isinstance(value, str):
            text = value.strip()
            if text.endswith("Z"):
                text = text[:-1] + "+00:00"
            dt = datetime.fromisoformat(text)
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=timezone.utc)
            dt = dt.astimezone(timezone.utc)
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def now_iso() -> str:
    """Now, as automem's files spell a time (UTC, milliseconds, a Z)."""
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

"""spool/<session-id>.jsonl: append-only, one JSON object per line, mode 0600.

One event's lines go out in a single O_APPEND ``write``, so concurrent hooks
interleave whole lines and a process killed mid-run leaves either its lines or
none. No line is over 8 KB; a file over MAX_SPOOL_BYTES is rotated to
``.jsonl.1`` (the previous ``.1`` is dropped), under a lock so two hooks never
rotate the same file twice.
"""

from __future__ import annotations

import json
import os

from automem.capture.paths import spool_path

MAX_LINE_BYTES = 8192
MAX_SPOOL_BYTES = 4 * 1024 * 1024
MAX_RECORDS_PER_EVENT = 32
_TRUNCATED = "…[truncated]"
_RECORD_START = b'{"v":'  # every record starts with its version (hook.capture puts it first)


def encode_line(record: dict) -> bytes:
    """The record as one JSON line of at most MAX_LINE_BYTES, shortening its longest strings."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    data = line.encode("utf-8", "replace")
    if len(data) <= MAX_LINE_BYTES:
        return data
    record = dict(record)
    record["truncated"] = True
    for _ in range(16):
        longest = max(
            (k for k, v in record.items() if isinstance(v, str)),
            key=lambda k: len(record[k]),
            default=None,
        )
        if longest is None:
            break
        over = len(data) - MAX_LINE_BYTES
        value = record[longest]
        keep = max(0, len(value) - over - len(_TRUNCATED) - 64)
        record[longest] = value[:keep] + _TRUNCATED
        data = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "replace")
        if len(data) <= MAX_LINE_BYTES:
            return data
    # nothing left to shorten sensibly: keep only the envelope, each field short
    small = {
        k: record[k] if not isinstance(record[k], str) else record[k][:200]
        for k in ("v", "ts", "event", "kind", "session_id")
        if k in record
    }
    small = {k: v for k, v in small.items() if v is None or isinstance(v, (str, int, float, bool))}
    small["truncated"] = True
    return (json.dumps(small, ensure_ascii=True, separators=(",", ":")) + "\n").encode("utf-8")


def append(session_id: object, records: list[dict], home: str) -> int:
    """Append records to the session's spool; returns bytes written."""
    if not records:
        return 0
    payload = b"".join(encode_line(r) for r in records[:MAX_RECORDS_PER_EVENT])
    path = spool_path(session_id, home)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    _rotate_if_full(path, len(payload))
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        written = os.write(fd, payload)
        while written < len(payload):  # a short write (disk nearly full) still ends on a line
            written += os.write(fd, payload[written:])
        return written
    finally:
        os.close(fd)


def _rotate_if_full(path: str, incoming: int) -> None:
    try:
        if os.stat(path).st_size + incoming <= MAX_SPOOL_BYTES:
            return
    except FileNotFoundError:
        return
    import fcntl

    lock_fd = os.open(path + ".lock", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        try:
            if os.stat(path).st_size + incoming > MAX_SPOOL_BYTES:
                os.replace(path, path + ".1")
        except FileNotFoundError:
            pass
    finally:
        os.close(lock_fd)


def _parse_line(raw: bytes) -> object:
    """One spool line; a line glued to the torn tail of a killed writer is recovered from its ``{"v":``."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        pass
    start = raw.find(_RECORD_START, 1)
    while start > 0:
        try:
            return json.loads(raw[start:])
        except (ValueError, RecursionError):
            start = raw.find(_RECORD_START, start + 1)
    return None


def read(session_id: object, home: str) -> list[dict]:
    """Every whole, parseable line of the session's spool, the rotated part first."""
    path = spool_path(session_id, home)
    records: list[dict] = []
    for part in (path + ".1", path):
        try:
            with open(part, "rb") as handle:
                for raw in handle:
                    if not raw.endswith(b"\n"):
                        break  # a line still being written
                    value = _parse_line(raw)
                    if isinstance(value, dict):
                        records.append(value)
        except FileNotFoundError:
            continue
    return records

"""What ``automem redact`` does, kept out of cli.py so it can be tested without click.

Batch protocol (shared/corpus/secrets/score.py): one JSON object ``{"id", "text"}``
per input line, one ``{"id", "text"}`` per output line, streamed and flushed line
by line. A line that is not such an object is reported on stderr and answered
with ``{"id": <id or null>, "error": "..."}`` so the stream never stops; the exit
code is 1 when any line was bad.
"""

from __future__ import annotations

import json
from typing import IO, Callable


def _redactor(tier: str) -> Callable[[str], str]:
    if tier == "fast":
        from automem.redact.fast import redact_fast

        return redact_fast
    from automem.redact.full import redact

    return redact


def run_text(stdin: IO[str], stdout: IO[str], tier: str = "full") -> None:
    stdout.write(_redactor(tier)(stdin.read()))
    stdout.flush()


def run_batch(stdin: IO[str], stdout: IO[str], stderr: IO[str], tier: str = "full") -> int:
    redact = _redactor(tier)
    bad = 0
    for number, line in enumerate(stdin, 1):
        if not line.strip():
            continue
        record_id = None
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("not a JSON object")
            record_id = record.get("id")
            text = record.get("text")
            if not isinstance(text, str):
                raise ValueError('"text" is missing or not a string')
            out = {"id": record_id, "text": redact(text)}
        except ValueError as exc:
            bad += 1
            stderr.write(f"automem redact: line {number}: {exc}\n")
            out = {"id": record_id, "error": str(exc)}
        stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        stdout.flush()
    return 1 if bad else 0

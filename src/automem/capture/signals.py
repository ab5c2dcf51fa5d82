"""Errors and failures in tool output, each with a normalized signature.

(First cut; the full detector set lands with its tests.)
"""

from __future__ import annotations

import re

_ERROR_LINE = re.compile(r"^.*\b(?:[A-Z][A-Za-z]*(?:Error|Exception)|ERROR|FATAL|error|fatal)\b.*$", re.M)


def normalize_signature(text: str) -> str:
    text = re.sub(r"(?:/[^\s:'\"]+)+", "<path>", text)
    text = re.sub(r"\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{7,}\b|\d+", "<n>", text)
    return " ".join(text.split())[:200]


def detect_errors(text: str, *, is_error: bool = False, exit_code: int | None = None) -> list[dict]:
    out = []
    for match in _ERROR_LINE.finditer(text or ""):
        line = match.group(0).strip()[:500]
        out.append({"error_type": "error", "line": line, "signature": normalize_signature(line)})
        if len(out) >= 5:
            break
    if not out and (is_error or exit_code):
        first = (text or "").strip().splitlines()[:1]
        line = first[0][:500] if first else f"exit code {exit_code}"
        out.append({"error_type": "exit", "line": line, "signature": normalize_signature(line)})
    return out

"""User feedback in prompts: corrections, confirmations, preferences, rules.

(First cut; the full rule set lands with its tests.)
"""

from __future__ import annotations

import re

_RULES = [
    ("correction", re.compile(r"\b(?:no,? don'?t|stop doing|that'?s wrong|revert that)\b", re.I)),
    ("confirmation", re.compile(r"\b(?:perfect|exactly|keep doing that)\b", re.I)),
    ("preference", re.compile(r"\b(?:i prefer|always use|never use|from now on)\b", re.I)),
    ("rule", re.compile(r"\b(?:every time|whenever)\b", re.I)),
]


def detect_feedback(prompt: str) -> list[dict]:
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", prompt):
        for kind, pattern in _RULES:
            match = pattern.search(sentence)
            if match:
                out.append({"feedback": kind, "text": sentence.strip()[:1000], "phrase": match.group(0)})
                break
    return out

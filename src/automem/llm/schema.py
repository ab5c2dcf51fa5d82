"""What a model may return: a list of memories in automem's schema, or nothing."""

from __future__ import annotations

import json
import re

from automem.store.memories import CONTENT_CAP, HOW_CAP, SUMMARY_CAP, TYPES, WHY_CAP

SIGNALS = ("correction", "confirmation", "preference", "rule", "error")


def parse_memories(text: str) -> list[dict]:
    """Valid memory dicts from a model's reply (a JSON object with "memories", maybe fenced)."""
    data = _json_in(text)
    items = data.get("memories") if isinstance(data, dict) else data if isinstance(data, list) else None
    if not isinstance(items, list):
        return []
    return [m for m in (validate(item) for item in items[:12]) if m is not None]


def validate(item: object) -> dict | None:
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    summary, content = item.get("summary"), item.get("content")
    if kind not in TYPES or not isinstance(summary, str) or not isinstance(content, str):
        return None
    summary, content = " ".join(summary.split()), content.strip()
    if not (8 <= len(summary) <= SUMMARY_CAP) or not content or len(content) > CONTENT_CAP:
        return None
    why, how = item.get("why", ""), item.get("how_to_apply", "")
    if not isinstance(why, str) or not isinstance(how, str) or len(why) > WHY_CAP or len(how) > HOW_CAP:
        return None
    scope = item.get("scope", "project")
    if scope not in ("project", "global"):
        return None
    tags = item.get("tags", [])
    signals = [t for t in tags if t in SIGNALS] if isinstance(tags, list) else []
    return {
        "type": kind,
        "summary": summary,
        "content": content,
        "why": why.strip(),
        "how_to_apply": how.strip(),
        "scope": scope,
        "signals": signals,
    }


def _json_in(text: str):
    text = (text or "").strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    if fenced:
        text = fenced.group(1)
    start = min([i for i in (text.find("{"), text.find("[")) if i >= 0], default=-1)
    if start < 0:
        return None
    try:
        return json.loads(text[start:])
    except ValueError:
        try:
            return json.loads(text[start : text.rfind("}") + 1])
        except ValueError:
            return None

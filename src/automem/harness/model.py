"""The one Turn every harness reader yields, so the banker never needs to know which harness wrote it.

A turn is one prompt plus everything the agent did until it handed control back. Readers keep
each turn small (capped tool results, trimmed tool inputs) so memory stays flat however large a
transcript grows.
"""

from __future__ import annotations

import json
from typing import Any

from automem.record import field, record

RESULT_CAP = 4000  # characters of tool result text kept per action
ANSWER_CAP = 16000  # characters of final answer kept (the bank entry caps further)
PROMPT_CAP = 16000
INPUT_VALUE_CAP = 500  # characters kept per string value of a tool input
SUMMARY_CAP = 200

QUIET_SECONDS = 5 * 60  # a turn with an answer and no pending tool is finished after this much silence
DROP_SECONDS = 7 * 24 * 3600  # an unfinished turn silent this long is dropped (settled, never banked)

# finish_reason values for turns that are settled but must never be banked
NEVER_BANKED = frozenset({"turn_aborted", "dropped", "abandoned"})


@record
class ToolAction:
    """One tool call of a turn and what came back."""

    name: str
    input_summary: str = ""
    input: dict | str | None = None
    result_text: str = ""
    is_error: bool = False
    exit_code: int | None = None
    call_id: str | None = None


@record
class Turn:
    """One prompt and the agent's work on it, in the same shape for every harness.

    ``finished`` says the turn may be banked; ``finish_reason`` says why (or, for an unfinished
    turn, ``open``, or one of NEVER_BANKED when it is settled without being banked).
    ``start_offset``/``end_offset`` are byte positions in the transcript (a cursor stores them).
    """

    harness: str
    session_id: str
    turn_id: str
    prompt: str = ""
    actions: list[ToolAction] = field(default_factory=list)
    answer: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    cwd: str | None = None
    finished: bool = False
    finish_reason: str = "open"
    interrupted: bool = False
    rejections: list[str] = field(default_factory=list)
    todos: list[dict] | None = None
    plan: str | None = None
    model: str | None = None
    start_offset: int = 0
    end_offset: int = 0
    revision: str | None = None  # Antigravity: changes when the entry must be rewritten in place
    title: str | None = None  # session/conversation title when the harness records one
    # the agent's text between tool calls as (tool calls so far, text): its diagnoses, for the extractor
    remarks: list[tuple[int, str]] = field(default_factory=list)
    # what the user typed while the turn was running (Claude Code keeps it only in queue-operation lines)
    queued: list[str] = field(default_factory=list)

    @property
    def turn_key(self) -> str:
        return f"{self.harness}:{self.session_id}:{self.turn_id}"

    @property
    def settled(self) -> bool:
        """True when no later read can change this turn: banked if finished, else never."""
        return self.finished or self.finish_reason in NEVER_BANKED


def cap(text: str | None, limit: int) -> str:
    if not text:
        return ""
    return text if len(text) <= limit else text[:limit] + f"\n[... {len(text) - limit} more characters]"


def small_input(value: Any) -> dict | str | None:
    """A tool input with every long string trimmed, so one huge Write does not bloat memory."""
    if isinstance(value, str):
        return cap(value, INPUT_VALUE_CAP)
    if isinstance(value, dict):
        return {k: _trim(v, 0) for k, v in list(value.items())[:40]}
    if value is None:
        return None
    return {"value": _trim(value, 0)}


def _trim(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return cap(value, INPUT_VALUE_CAP)
    if depth >= 4:  # deep enough for a question tool's questions[].options[].label
        return "..." if isinstance(value, (dict, list)) else value
    if isinstance(value, dict):
        return {k: _trim(v, depth + 1) for k, v in list(value.items())[:40]}
    if isinstance(value, list):
        return [_trim(v, depth + 1) for v in value[:40]]
    return value


_SUMMARY_KEYS = ("command", "cmd", "file_path", "path", "filePath", "pattern", "url", "query", "description")


def summarize_input(value: Any) -> str:
    """One line that says what a tool call did (its command or path, else compact JSON)."""
    if isinstance(value, dict):
        for key in _SUMMARY_KEYS:
            v = value.get(key)
            if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
                v = " ".join(v)
            if isinstance(v, str) and v.strip():
                return _one_line(v)
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
        except (TypeError, ValueError):
            text = str(value)
        return _one_line(text)
    if value is None:
        return ""
    return _one_line(str(value))


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SUMMARY_CAP else text[: SUMMARY_CAP - 3] + "..."


def block_text(content: Any) -> str:
    """Text of a message content that is a string or a list of blocks (images and others skipped)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") in ("text", "input_text", "output_text"):
                t = block.get("text")
                if isinstance(t, str):
                    parts.append(t)
        return "\n".join(parts)
    if isinstance(content, dict):
        t = content.get("text")
        return t if isinstance(t, str) else ""
    return ""

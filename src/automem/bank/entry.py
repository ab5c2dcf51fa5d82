"""A finished turn as a bank entry: seed 002's Markdown format, caps included.

Rendering is a pure function of the turn, so the same turn always gives the
same file name and bytes: a pass that dies after writing and before recording
the turn's key rewrites the same file instead of adding a second one.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from automem.harness.model import Turn, iso_utc
from automem.home import file_safe_iso, title_slug
from automem.markdown import frontmatter_lines
from automem.store.memories import cap

PROMPT_CAP = 2000
RESULT_CAP = 4000
ACTION_CAP = 300
MAX_ACTIONS = 60
MAX_FILE_BYTES = 1_000_000
TITLE_CAP = 80

_NOISE = re.compile(r"<(system-reminder|command-[a-z]+|local-command-[a-z]+)>.*?</\1>", re.S)


@dataclass(frozen=True)
class BankEntry:
    file_name: str
    text: str
    title: str
    ts: str
    tags: list[str]


def title_of(turn: Turn) -> str:
    """The first meaningful line of the prompt (or the session title), short enough for an index row."""
    from automem.redact.full import redact

    source = redact(_NOISE.sub(" ", turn.prompt or "")).strip()  # before the cut: a cut secret is unrecognisable
    heading = ""
    for raw in source.splitlines():
        line = " ".join(raw.split())
        if line.startswith("```"):
            continue
        if line.startswith("#"):  # a template's "## User Input" says nothing: prefer the text under it
            heading = heading or line.strip("#>*- ")
            continue
        line = line.strip(">*- ")
        if line:
            return cap(line, TITLE_CAP)
    return cap(heading or turn.title or "Untitled turn", TITLE_CAP)


def render(turn: Turn) -> BankEntry:
    # an Antigravity entry is one whole conversation, dated by its first prompt (seed 002)
    first, second = (
        (turn.started_at, turn.ended_at) if turn.harness == "antigravity" else (turn.ended_at, turn.started_at)
    )
    ts = _iso_ms(first or second or "1970-01-01T00:00:00.000Z")
    title = title_of(turn)
    tags = sorted({(a.name or "tool").lower()[:40] for a in turn.actions})
    digest = hashlib.sha256(turn.turn_key.encode("utf-8")).hexdigest()[:6]
    file_name = f"{file_safe_iso(ts)}--{title_slug(title, 40)}-{digest}.md"
    fields: list[tuple[str, object]] = [
        ("id", file_safe_iso(ts)),
        ("ts", ts),
        ("title", title),
        ("tags", tags),
        ("cwd", turn.cwd or ""),
        ("session_id", turn.session_id),
        ("harness", turn.harness),
        ("turn_key", turn.turn_key),
        ("source", "autobank:" + turn.harness),
    ]
    if turn.finish_reason and turn.finish_reason not in ("turn_duration", "task_complete", "stop", "next_prompt"):
        fields.append(("finish", turn.finish_reason))
    front = frontmatter_lines(fields)
    from automem.redact.full import redact

    actions = [
        f"- {(a.name or 'tool').lower()}: {cap(_action_text(a), ACTION_CAP)}" for a in turn.actions[:MAX_ACTIONS]
    ]
    if len(turn.actions) > MAX_ACTIONS:
        actions.append(f"- … {len(turn.actions) - MAX_ACTIONS} more actions")
    for feedback in turn.rejections[:5]:
        actions.append(f"- rejected by the user: {cap(' '.join(redact(feedback).split()), ACTION_CAP)}")
    from automem.redact.full import redact

    # redact, then cap: a secret cut in half by a cap would no longer look like one
    head = (
        "\n".join(front)
        + "\n\n## Prompt\n\n"
        + cap(redact(turn.prompt or "").strip(), PROMPT_CAP)
        + "\n\n## Actions\n\n"
    )
    head += ("\n".join(actions) if actions else "(none)") + "\n\n## Result\n\n"
    result = cap(redact(turn.answer or "").strip() or "(no answer)", RESULT_CAP)
    text = head + result + "\n"
    while len(text.encode("utf-8")) > MAX_FILE_BYTES and len(result) > 100:  # seed: trim the Result to fit 1 MB
        result = cap(result, len(result) // 2)
        text = head + result + "\n"
    return BankEntry(file_name=file_name, text=text, title=title, ts=ts, tags=tags)


def _action_text(action) -> str:
    """The call's input as compact JSON, its strings redacted first.

    JSON escaping hides a secret's shape from the redactor (a PEM block's newlines become ``\\n``, a quoted
    password's quotes become ``\\'``), so values are redacted while they are still plain text.
    """
    from automem.redact.full import redact

    if action.input is None or action.input == "":
        return redact(action.input_summary or "")
    if isinstance(action.input, str):
        return redact(action.input)
    try:
        return json.dumps(_redact_values(action.input, redact), ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return redact(action.input_summary or "")


def _redact_values(value, redact):
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redact_values(v, redact) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_values(v, redact) for v in value]
    return value


def _iso_ms(value: str) -> str:
    """``YYYY-MM-DDTHH:MM:SS.mmmZ`` (the seed's ``ts``), or the text as it came when it is no date."""
    return iso_utc(value) or value.strip()

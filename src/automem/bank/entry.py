"""A finished turn as a bank entry: the bank's Markdown format, caps included.

Rendering is a pure function of the turn, so the same turn always gives the
same file name and bytes: a pass that dies after writing and before recording
the turn's key rewrites the same file instead of adding a second one.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from automem.harness.model import Turn
from automem.home import file_safe_iso, title_slug
from automem.isotime import iso_utc
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


def title_of(turn: Turn, redacted_prompt: str | None = None) -> str:
    """The first meaningful line of the prompt (or the session title), short enough for an index row.
    ``redacted_prompt``: the prompt after the full pass, when the caller has it already."""
    if redacted_prompt is None:
        from automem.redact.full import redact

        redacted_prompt = redact(turn.prompt or "")
    source = _NOISE.sub(" ", redacted_prompt).strip()  # redacted before the cut: a cut secret is unrecognisable
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
    # an Antigravity entry is one whole conversation, dated by its first prompt
    first, second = (
        (turn.started_at, turn.ended_at) if turn.harness == "antigravity" else (turn.ended_at, turn.started_at)
    )
    ts = _iso_ms(first or second or "1970-01-01T00:00:00.000Z")
    finish = turn.finish_reason or ""
    if finish in ("turn_duration", "task_complete", "stop", "next_prompt"):
        finish = ""
    # every text the entry shows that came from the transcript goes through one full pass here, before any cap
    # (a secret cut in half would no longer look like one): the entry is then clean as assembled
    fields = _Fields()
    prompt_at = fields.add(turn.prompt or "", PROMPT_CAP)
    names_at = [fields.add((a.name or "tool").lower(), TITLE_CAP) for a in turn.actions]
    inputs = [_action_input(a, fields) for a in turn.actions[:MAX_ACTIONS]]
    rejected_at = [fields.add(feedback, ACTION_CAP) for feedback in turn.rejections[:5]]
    answer_at = fields.add(turn.answer or "", RESULT_CAP)
    cwd_at, session_at, key_at, ts_at, finish_at = (
        fields.add(value or "", PROMPT_CAP) for value in (turn.cwd, turn.session_id, turn.turn_key, ts, finish)
    )
    fields.redact()
    ts = fields[ts_at]  # a date as we wrote it, or the transcript's own text when it was none
    prompt = fields[prompt_at]
    title = title_of(turn, prompt)
    names = [fields[at] for at in names_at]
    tags = sorted({name[:40] for name in names})
    digest = hashlib.sha256(turn.turn_key.encode("utf-8")).hexdigest()[:6]
    file_name = f"{file_safe_iso(ts)}--{title_slug(title, 40)}-{digest}.md"
    front_fields: list[tuple[str, object]] = [
        ("id", file_safe_iso(ts)),
        ("ts", ts),
        ("title", title),
        ("tags", tags),
        ("cwd", fields[cwd_at]),
        ("session_id", fields[session_at]),
        ("harness", turn.harness),
        ("turn_key", fields[key_at]),
        ("source", "autobank:" + turn.harness),
    ]
    if finish:
        front_fields.append(("finish", fields[finish_at]))
    front = frontmatter_lines(front_fields)
    actions = [
        f"- {name}: {cap(fields.text_of(shape), ACTION_CAP)}"
        for name, shape in zip(names[:MAX_ACTIONS], inputs, strict=True)
    ]
    if len(turn.actions) > MAX_ACTIONS:
        actions.append(f"- … {len(turn.actions) - MAX_ACTIONS} more actions")
    for at in rejected_at:
        actions.append(f"- rejected by the user: {cap(' '.join(fields[at].split()), ACTION_CAP)}")
    head = "\n".join(front) + "\n\n## Prompt\n\n" + cap(prompt.strip(), PROMPT_CAP) + "\n\n## Actions\n\n"
    head += ("\n".join(actions) if actions else "(none)") + "\n\n## Result\n\n"
    result = cap(fields[answer_at].strip() or "(no answer)", RESULT_CAP)
    text = head + result + "\n"
    while len(text.encode("utf-8")) > MAX_FILE_BYTES and len(result) > 100:  # seed: trim the Result to fit 1 MB
        result = cap(result, len(result) // 2)
        text = head + result + "\n"
    return BankEntry(file_name=file_name, text=text, title=title, ts=ts, tags=tags)


class _Slot(int):
    """Where a string of an action's input sits among the fields."""


class _Fields:
    """The texts of one entry, redacted together in one full pass (redact_many).

    A text longer than its cap needs is redacted by its head only: ``_HEAD_EXTRA`` characters past the cap are
    enough that a secret the head cuts in two lies past what is shown, unless the pass shrank the head by nearly
    that much (big secrets turned into short markers), in which case the whole text is redacted again."""

    _HEAD_EXTRA = 16384
    _SHOWN_MARGIN = 8192

    def __init__(self) -> None:
        self._texts: list[str] = []
        self._cut: list[bool] = []
        self._keep: list[int] = []
        self._full: list[str] = []

    def add(self, text: str, keep: int) -> int:
        from automem.controls import strip_controls

        text = strip_controls(text)  # before the pass: an escape inside a secret would hide its shape from it
        limit = keep + self._HEAD_EXTRA
        self._full.append(text)
        self._cut.append(len(text) > limit)
        self._texts.append(text[:limit] if len(text) > limit else text)
        self._keep.append(keep)
        return len(self._texts) - 1

    def redact(self) -> None:
        from automem.redact.full import redact, redact_many

        self._texts = redact_many(self._texts)
        for i, cut in enumerate(self._cut):
            if cut and len(self._texts[i]) < self._keep[i] + self._SHOWN_MARGIN:
                self._texts[i] = redact(self._full[i])
        self._full = []

    def __getitem__(self, at: int) -> str:
        return self._texts[at]

    def text_of(self, shape) -> str:
        """An action's input as shown: a string as it is, a structure as compact JSON of its redacted strings."""
        if isinstance(shape, _Slot):
            return self._texts[shape]
        try:
            return json.dumps(self._filled(shape), ensure_ascii=False, separators=(",", ":"), default=str)
        except (TypeError, ValueError):
            return ""

    def _filled(self, shape):
        if isinstance(shape, _Slot):
            return self._texts[shape]
        if isinstance(shape, dict):
            return {self._filled(k): self._filled(v) for k, v in shape.items()}
        if isinstance(shape, list):
            return [self._filled(v) for v in shape]
        return shape


def _action_input(action, fields: _Fields):
    """The call's input with every string put among the fields (redacted later, with the rest).

    JSON escaping hides a secret's shape from the redactor (a PEM block's newlines become ``\\n``, a quoted
    password's quotes become ``\\'``), so values are redacted while they are still plain text."""
    if action.input is None or action.input == "":
        return _Slot(fields.add(action.input_summary or "", ACTION_CAP))
    if isinstance(action.input, str):
        return _Slot(fields.add(action.input, ACTION_CAP))
    try:
        return _shape(action.input, fields)
    except RecursionError:
        return _Slot(fields.add(action.input_summary or "", ACTION_CAP))


def _shape(value, fields: _Fields):
    if isinstance(value, str):
        return _Slot(fields.add(value, ACTION_CAP))
    if isinstance(value, dict):  # keys too: a mapping may be keyed by a token
        return {_shape(k, fields): _shape(v, fields) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v, fields) for v in value]
    return value


def _iso_ms(value: str) -> str:
    """``YYYY-MM-DDTHH:MM:SS.mmmZ`` (an entry's ``ts``), or the text as it came when it is no date."""
    return iso_utc(value) or value.strip()

"""A finished turn as a bank entry: the bank's Markdown format, caps included.

Rendering is a pure function of the turn, so the same turn always gives the
same file name and bytes: a pass that dies after writing and before recording
the turn's key rewrites the same file instead of adding a second one.
"""

from __future__ import annotations

import json
import re

from automem import regex_cache
from automem.digest import sha256_hex
from automem.harness.model import Turn
from automem.home import file_safe_iso, title_slug
from automem.isotime import iso_utc
from automem.markdown import frontmatter_lines
from automem.record import record
from automem.store.memories import cap

PROMPT_CAP = 2000
RESULT_CAP = 4000
ACTION_CAP = 300
MAX_ACTIONS = 60
MAX_FILE_BYTES = 1_000_000
TITLE_CAP = 80

_NOISE = regex_cache.compile(r"<(system-reminder|command-[a-z]+|local-command-[a-z]+)>.*?</\1>", re.S)


@record(frozen=True)
class BankEntry:
    """A turn rendered for the bank: its file name and Markdown, redacted."""

    file_name: str
    text: str
    title: str
    ts: str
    tags: list[str]


def title_of(turn: Turn, redacted_prompt: str | None = None, redacted_title: str | None = None) -> str:
    """The first meaningful line of the prompt (or the session title), short enough for an index row.
    ``redacted_prompt``, ``redacted_title``: the prompt and title after the full pass, when the caller has them."""
    from automem.redact.full import redact

    if redacted_prompt is None:
        redacted_prompt = redact(turn.prompt or "")
    if redacted_title is None:
        redacted_title = redact(turn.title or "")
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
    return cap(heading or redacted_title or "Untitled turn", TITLE_CAP)


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
    # (a secret cut in half would no longer look like one), so the entry is clean as assembled; a text is cut to a
    # head only where what is shown is a prefix of it (not the prompt: its title line may come from anywhere in it)
    fields = _Fields()
    prompt_at = fields.add(turn.prompt or "")
    names_at = [fields.add((a.name or "tool").lower()) for a in turn.actions]
    inputs = [_action_input(a, fields) for a in turn.actions[:MAX_ACTIONS]]
    rejected_at = [fields.add(" ".join(feedback.split()), ACTION_CAP) for feedback in turn.rejections[:5]]
    answer_at = fields.add((turn.answer or "").strip(), RESULT_CAP)
    cwd_at, session_at, key_at, ts_at, finish_at, title_at = (
        fields.add(value or "") for value in (turn.cwd, turn.session_id, turn.turn_key, ts, finish, turn.title)
    )
    fields.redact()
    ts = fields[ts_at]  # a date as we wrote it, or the transcript's own text when it was none
    prompt = fields[prompt_at]
    title = title_of(turn, prompt, fields[title_at])
    names = [fields[at] for at in names_at]
    tags = sorted({name[:40] for name in names})
    digest = sha256_hex(turn.turn_key)[:6]
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
    shown = [cap(fields.text_of(shape), ACTION_CAP) for shape in inputs]
    structured = [i for i, shape in enumerate(inputs) if not isinstance(shape, _Slot)]
    if structured:  # as JSON again, the way the whole entry used to be read: a number or a list beside its key
        from automem.redact.full import redact_many

        for i, text in zip(structured, redact_many([shown[i] for i in structured]), strict=True):
            shown[i] = text
    actions = [f"- {name}: {text}" for name, text in zip(names[:MAX_ACTIONS], shown, strict=True)]
    if len(turn.actions) > MAX_ACTIONS:
        actions.append(f"- … {len(turn.actions) - MAX_ACTIONS} more actions")
    for at in rejected_at:
        actions.append(f"- rejected by the user: {cap(fields[at], ACTION_CAP)}")
    head = "\n".join(front) + "\n\n## Prompt\n\n" + cap(prompt.strip(), PROMPT_CAP) + "\n\n## Actions\n\n"
    head += ("\n".join(actions) if actions else "(none)") + "\n\n## Result\n\n"
    result = cap(fields[answer_at] or "(no answer)", RESULT_CAP)
    text = head + result + "\n"
    while len(text.encode("utf-8")) > MAX_FILE_BYTES and len(result) > 100:  # an entry fits in 1 MB: trim the Result
        result = cap(result, len(result) // 2)
        text = head + result + "\n"
    return BankEntry(file_name=file_name, text=text, title=title, ts=ts, tags=tags)


class _Slot(int):
    """Where a string of an action's input sits among the fields."""


class _Pair:
    """A string value of an action's input with its key, redacted as one text (``"key": "value"``, quotes escaped
    as JSON would, newlines kept): a rule that knows a password by its key must see the two together."""

    __slots__ = ("at", "key")

    def __init__(self, at: int, key: str) -> None:
        self.at, self.key = at, key


class _Map(list):
    """An action input's mapping: its items as (key, value) shapes or _Pairs, in order."""


class _Fields:
    """The texts of one entry, redacted together in one full pass (redact_many).

    A text of which only a prefix is shown (``keep`` characters, given as it will be shown: stripped, collapsed) and
    that is much longer is redacted by its head only: ``_HEAD_EXTRA`` characters past what is shown are enough that
    a secret the head cuts in two lies past it, unless the pass shrank the head by nearly that much (big secrets
    turned into short markers), in which case the whole text is redacted again. ``keep=None``: always whole."""

    _HEAD_EXTRA = 16384
    _SHOWN_MARGIN = 8192
    _WATCH_MAX = 65536

    def __init__(self) -> None:
        self._texts: list[str] = []
        self._cut: list[bool] = []
        self._keep: list[int] = []
        self._full: list[str] = []
        self._watched: list[tuple[int, list[tuple[int, int, int]]]] = []

    def add(self, text: str, keep: int | None = None) -> int:
        from automem.controls import strip_controls

        text = strip_controls(text)  # before the pass: an escape inside a secret would hide its shape from it
        cut = keep is not None and len(text) > keep + self._HEAD_EXTRA
        self._full.append(text)
        self._cut.append(cut)
        self._texts.append(text[: (keep or 0) + self._HEAD_EXTRA] if cut else text)
        self._keep.append(keep or 0)
        return len(self._texts) - 1

    def watch(self, slots: list[int], key: str | None = None) -> None:
        """Read a list of strings (an argv, a key's values) once more as one line, ``--password x`` or
        ``"password": "x"``: the pass must see a flag beside its value. A hit there redacts each item it touches,
        whole; the line itself is never shown."""
        line = " ".join(self._full[at] for at in slots)
        if len(line) > self._WATCH_MAX:
            return
        head = f'"{_quoted(key)}": "' if key is not None else ""
        at = self.add(head + line + ('"' if key is not None else ""))
        bounds, pos = [], len(head)
        for slot in slots:
            bounds.append((pos, pos + len(self._full[slot]), slot))
            pos += len(self._full[slot]) + 1
        self._watched.append((at, bounds))

    def redact(self) -> None:
        from automem.redact.full import apply_spans, redact, spans_many

        found = spans_many(self._texts)
        watched = {at for at, _bounds in self._watched}
        self._texts = [text if i in watched else apply_spans(text, found[i]) for i, text in enumerate(self._texts)]
        for i, cut in enumerate(self._cut):
            if cut and len(self._texts[i]) < self._keep[i] + self._SHOWN_MARGIN:
                self._texts[i] = redact(self._full[i])
        for at, bounds in self._watched:
            for a, b, name in found[at]:
                for lo, hi, slot in bounds:
                    if lo < b and a < hi:
                        self._texts[slot] = f"[REDACTED:{name}]"
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
        if isinstance(shape, _Map):
            return dict(self._item(item) for item in shape)
        if isinstance(shape, list):
            return [self._filled(v) for v in shape]
        return shape

    def _item(self, item) -> tuple:
        if not isinstance(item, _Pair):
            return self._filled(item[0]), self._filled(item[1])
        text = self._texts[item.at]
        head = f'"{_quoted(item.key)}": "'
        if text.startswith(head):
            return item.key, _unquoted(text[len(head) : -1] if text.endswith('"') else text[len(head) :])
        key, sep, value = text.partition('": "')  # the pass took part of the key too (a token as a key)
        return (_unquoted(key.lstrip('"')), _unquoted(value.rstrip('"'))) if sep else (text, "")


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


_ESCAPED = regex_cache.compile(r'\\(["\\])')


def _unquoted(text: str) -> str:
    return _ESCAPED.sub(r"\1", text)


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


def _shape(value, fields: _Fields, key: str | None = None):
    """``value`` with its strings put among the fields; ``key``: the mapping key it sits under, if any."""
    if isinstance(value, str):
        return _Slot(fields.add(value, ACTION_CAP))
    if isinstance(value, dict):  # keys too: a mapping may be keyed by a token
        from automem.controls import strip_controls

        items = _Map()
        for k, v in value.items():
            if isinstance(k, str) and isinstance(v, str):
                name = strip_controls(k)
                # quotes escaped as JSON would (the pass knows `"password": "a\"b"`), newlines kept (a PEM's shape)
                pair = f'"{_quoted(name)}": "{_quoted(v)}"'
                items.append(_Pair(fields.add(pair, ACTION_CAP + len(name) + 6), name))
            else:
                items.append((_shape(k, fields), _shape(v, fields, k if isinstance(k, str) else None)))
        return items
    if isinstance(value, list):
        shapes = [_shape(v, fields) for v in value]
        if shapes and all(isinstance(v, str) for v in value) and (key is not None or len(value) > 1):
            fields.watch([int(slot) for slot in shapes], key)
        return shapes
    return value


def _iso_ms(value: str) -> str:
    """``YYYY-MM-DDTHH:MM:SS.mmmZ`` (an entry's ``ts``), or the text as it came when it is no date."""
    return iso_utc(value) or value.strip()

"""A line the user types again and again in the requests of one session, in a language the word-pair count of
said.repeated_request_rule does not read (CJK, Hangul, Cyrillic, Arabic): a standing preference, as a candidate.

"- コメントは日本語で書く" (write comments in Japanese) as an item of three task specs is how this user wants the work
done, whatever the task; the same short line sent alone ("继续", "continue") drives one task on and is no lesson.
"""

from __future__ import annotations

import re
from collections import Counter

from automem import lazy_re as rx
from automem.extract.directives import prose_lines
from automem.extract.glossary import english_terms
from automem.extract.rules import Session
from automem.schema import Candidate

MIN_PROMPTS = 3  # prompts that hold the line
MIN_AMONG_OTHERS = 2  # of them, prompts where the line is an item of a list (a spec, not the whole ask)
MIN_CHARS, MAX_CHARS = 6, 120

_NON_LATIN = rx.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af\u0400-\u04ff\u0600-\u06ff]")
_QUESTION = rx.compile(r"[?？]|(?:吗|呢|か|까)\W*$")
_ITEM = rx.compile(r"^\s*(?:[-*•・]|\d{1,2}[.)、])\s*\S")
_EDGE = rx.compile(r"^[\s\-*•·、,，.。:：;；]+|[\s,，.。;；:：!！]+$")


def _line_key(line: str) -> str:
    return " ".join(_EDGE.sub("", line).split())


def repeated_line_rule(session: Session) -> list[Candidate]:
    """The line said in three prompts or more, twice as an item of a list in a request."""
    from automem.extract.rules.said import _once_each, for_this_work

    held: Counter = Counter()
    among: Counter = Counter()
    for step in _once_each(session.steps):
        if len(step.text) > 4000:
            continue
        said = {key for line in prose_lines(step.text) if (key := _line_key(line))}
        items = {_line_key(line) for line in step.text.splitlines() if _ITEM.match(line)}
        for line in said:
            held[line] += 1
            among[line] += line in items
    out: list[Candidate] = []
    for line, n in held.most_common():
        if n < MIN_PROMPTS:
            break
        if (
            among[line] < MIN_AMONG_OTHERS
            or not MIN_CHARS <= len(re.sub(r"\s", "", line)) <= MAX_CHARS
            or not _NON_LATIN.search(line)
            or _QUESTION.search(line)
            or for_this_work(line)
        ):
            continue
        terms = english_terms(line)
        out.append(
            Candidate(
                kind="preference",
                summary=f"In this project: {line}",  # the words that make a short CJK line read alone
                content=f'The user wrote "{line}" in {n} requests of one session.'
                + (f"\nIn English terms: {', '.join(terms)}" if terms else ""),
                why=f"Typed again in {n} separate requests, among their other items: how this user wants the work.",
                how_to_apply="Do this without being asked, in this project.",
                signals=["preference"],
                scope="project",
                weight=2.0,
            )
        )
    return out[:2]

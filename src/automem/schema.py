"""The shapes every part agrees on: memory types, caps, statuses, and a lesson candidate.

Standard library only, imported by store/, extract/, llm/, recall and the brief alike, so none of
them has to import another to know what a memory looks like.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TYPES = ("pattern", "decision", "preference", "observation")
SUMMARY_CAP = 120
CONTENT_CAP = 4096
WHY_CAP = 1024
HOW_CAP = 1024

CANDIDATE = "candidate"
PROMOTED = "promoted"
EXPIRED = "expired"
STATUSES = (CANDIDATE, PROMOTED, EXPIRED)
INJECTABLE = ("user", PROMOTED)  # what the brief, per-prompt recall and MCP search may hand to a model

AUTOMATIC_SOURCES = ("auto-memorize", "mcp", "llm")  # prefixes of sources automation may rewrite


def is_automatic_source(source: str) -> bool:
    return any(str(source).startswith(prefix) for prefix in AUTOMATIC_SOURCES)


def memory_state(source: str, status: str, seen: int) -> str:
    """user | promoted | candidate | expired. A file from before statuses existed is promoted once reinforced,
    or when the agent recorded it on purpose (MCP); other old automatic files count as candidates."""
    if not is_automatic_source(source):
        return "user"
    if status in STATUSES:
        return status
    return PROMOTED if seen >= 2 or str(source).startswith("mcp") else CANDIDATE


# A learned memory is born a candidate: stored, listed, searchable with --candidates, never injected.

# Why a memory was promoted, strongest evidence first: the brief ranks by this order.
INSTRUCTION = "instruction"  # the user said it to the agent as a rule
REINFORCED = "reinforced"  # the same lesson came back in another session
VERIFIED_FIX = "verified-fix"  # the failed intent succeeded afterwards, and the difference is named
KEPT = "kept"  # the user ran `automem keep`
MODEL = "model"  # a consented model confirmed it
AGENT = "agent"  # the agent recorded it on purpose (MCP memory_bank)
PROMOTIONS = (INSTRUCTION, REINFORCED, VERIFIED_FIX, KEPT, MODEL, AGENT)


@dataclass
class Candidate:
    """A lesson the rules found, before redaction, caps and dedupe turn it into a stored memory."""

    kind: str  # pattern | decision | preference | observation
    summary: str
    content: str
    why: str
    how_to_apply: str
    signals: list[str] = field(default_factory=list)  # correction | confirmation | preference | rule | error
    scope: str = "project"
    weight: float = 1.0  # ordering when more candidates qualify than are kept
    promotion: str = ""  # one of PROMOTIONS when the evidence is already enough to inject it; "" = candidate
    rule: str = ""  # the rule that found it (shown by `automem why`)

    def text(self) -> str:
        return f"{self.summary}\n{self.content}"

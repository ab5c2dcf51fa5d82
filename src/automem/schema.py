"""The shapes every part agrees on: memory types, caps, statuses, and a lesson candidate.

Standard library only, imported by store/, extract/, llm/, recall and the brief alike, so none of
them has to import another to know what a memory looks like. No ``dataclasses`` here: the hooks import
this module, and that import (with ``inspect``) costs them ~8 ms.
"""

from __future__ import annotations

TYPES = ("pattern", "decision", "preference", "observation")
# what else a search may be narrowed to: every memory, or one of the other kinds of file the index holds
MEMORY_KIND = "memory"
TEXT_KINDS = ("bank", "journal", "main")
SEARCH_TYPES = (*TYPES, MEMORY_KIND, *TEXT_KINDS)  # `automem recall --type`, MCP memory_search's `type`
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
# A tag: the agent's harness refused a call by its own rules (an edit before a read, a size limit). The agent meets
# those rules in every project and the refusal says what to do, so seeing it again does not earn injection.
TOOL_PROTOCOL = "tool-protocol"


class Candidate:
    """A lesson the rules found, before redaction, caps and dedupe turn it into a stored memory.

    ``kind``: pattern | decision | preference | observation; ``signals``: correction | confirmation | preference |
    rule | error; ``weight`` orders candidates when more qualify than are kept; ``promotion`` is one of PROMOTIONS
    when the evidence already suffices to inject it ("" = candidate); ``rule`` names the rule that found it (shown by
    `automem why`)."""

    __slots__ = ("kind", "summary", "content", "why", "how_to_apply", "signals", "scope", "weight", "promotion", "rule")

    def __init__(
        self,
        kind: str,
        summary: str,
        content: str,
        why: str,
        how_to_apply: str,
        signals: list[str] | None = None,
        scope: str = "project",
        weight: float = 1.0,
        promotion: str = "",
        rule: str = "",
    ) -> None:
        self.kind, self.summary, self.content, self.why, self.how_to_apply = kind, summary, content, why, how_to_apply
        self.signals = list(signals) if signals is not None else []
        self.scope, self.weight, self.promotion, self.rule = scope, weight, promotion, rule

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Candidate) and self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        return "Candidate(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")"

    def text(self) -> str:
        return f"{self.summary}\n{self.content}"

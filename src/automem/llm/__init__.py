"""Optional model synthesis of lessons: Anthropic Haiku over httpx, or a local Ollama.

Only called with consent and an explicit AUTOMEM_MODEL (``claude-haiku-4-5-…`` or
``ollama:<model>``). What is sent is the deterministic candidates and a short digest of the
session, already redacted and capped, then passed through the store's model cleaner once more.
What comes back must validate against the memory schema or it is dropped; any failure returns
None and the caller keeps its deterministic candidates. Tokens and cost of each call are logged.
"""

from __future__ import annotations

from automem.llm.synth import synthesize

__all__ = ["synthesize"]

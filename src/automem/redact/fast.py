"""The fast redaction tier: standard library ``re`` only, for the capture hooks.

Its import cost counts against every hook, so it holds no rules of its own:
it applies the shared table in redact/rules.py (lazily compiled, needle-gated).
The full pass (redact/full.py) adds detect-secrets on top of the same table
before anything reaches the Markdown tree, the index or a model.
"""

from __future__ import annotations

from automem.redact.rules import apply_spans, rule_spans


def redact_fast(text: str) -> str:
    """Replace the secrets the shared rule table finds with ``[REDACTED:<rule>]``."""
    if not text:
        return text
    return apply_spans(text, rule_spans(text))

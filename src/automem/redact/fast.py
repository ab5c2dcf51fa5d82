"""The fast redaction tier: standard library ``re`` only, for the capture hooks.

Its import cost counts against every hook, so patterns are few, combined and
compiled once. The full pass (redact/full.py) runs later, before anything
reaches the Markdown tree, the index or a model.
"""

from __future__ import annotations

import re

_RULES: list[tuple[str, str]] = [
    ("private-key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"),
    ("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("url-credentials", r"(?<=://)[^\s/:@\[\]]+:[^\s/@\[\]]+(?=@)"),
    ("authorization", r"(?i)(?:(?<=bearer )|(?<=basic ))[A-Za-z0-9._~+/=-]{12,}"),
    ("password", r"(?i)(?<![A-Za-z0-9])(?:[A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|auth)[A-Za-z0-9_.-]*)[\"']?\s*[:=]\s*[\"']?(?!\[REDACTED)(?P<pwvalue>[^\s\"',;&]{6,})"),
]

_MARKER = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


def _scoped(pattern: str) -> str:
    """A leading (?i) becomes a scoped (?i:...) so patterns can be combined."""
    return f"(?i:{pattern[4:]})" if pattern.startswith("(?i)") else pattern


_COMBINED = re.compile("|".join(f"(?P<r{i}>{_scoped(pattern)})" for i, (_, pattern) in enumerate(_RULES)))
_NAMES = {f"r{i}": name for i, (name, _) in enumerate(_RULES)}


def _replace(match: re.Match[str]) -> str:
    name = _NAMES[match.lastgroup or ""]
    if name == "password":
        # keep the key, replace only the value (group after the key)
        whole = match.group(0)
        value = match.group("pwvalue")
        if value:
            return whole[: match.start("pwvalue") - match.start()] + "[REDACTED:password]"
    return f"[REDACTED:{name}]"


def redact_fast(text: str) -> str:
    """Replace the secret shapes this tier knows with ``[REDACTED:<rule>]``."""
    if not text:
        return text
    return _COMBINED.sub(_replace, text)

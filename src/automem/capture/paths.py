"""The few paths the hot path needs, without importing the rest of automem.

``automem.home`` builds the whole memory tree on top of these; they live here
so a capture hook can find its spool and log without importing anything else.
"""

from __future__ import annotations

import os
import re

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def automem_home() -> str:
    """AUTOMEM_HOME, else ~/.automem (read on every call: tests and users change it)."""
    env = os.environ.get("AUTOMEM_HOME")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    return os.path.join(os.path.expanduser("~"), ".automem")


def spool_dir(home: str | None = None) -> str:
    return os.path.join(home or automem_home(), "spool")


def log_path(home: str | None = None) -> str:
    return os.path.join(home or automem_home(), "log", "automem.log")


_SAFE_IDS: dict[str, str] = {}  # a hook asks for the same id's file name several times (spool, recalled list)


def safe_session_id(session_id: object) -> str:
    """A file name for a session id: the id itself when harmless, else a hash.

    Session ids come from the payload, so a hostile or odd one ("../x", "")
    must never choose where we write.
    """
    text = str(session_id or "").strip()
    known = _SAFE_IDS.get(text)
    if known is None:
        known = _safe_session_id(text)
        if len(_SAFE_IDS) < 256:  # a long-lived process (MCP server, tests) keeps a few, not every id it met
            _SAFE_IDS[text] = known
    return known


def _safe_session_id(text: str) -> str:
    if _SAFE_ID.fullmatch(text) and ".." not in text and (_UUID.fullmatch(text) or not _looks_secret(text)):
        return text
    if not text:
        return "unknown-session"
    import hashlib  # lazily: loading OpenSSL costs ~2.5 ms and ordinary ids never need it

    return "sid-" + hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:24]


def _looks_secret(text: str) -> bool:
    """An id the hooks' redaction would change (a token passed as a session id) must not become a file name."""
    from automem.redact.fast import redact_fast  # the capture hook has it loaded already

    return redact_fast(text) != text


def spool_path(session_id: object, home: str | None = None) -> str:
    return os.path.join(spool_dir(home), safe_session_id(session_id) + ".jsonl")

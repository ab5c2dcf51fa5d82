"""The paths the hook process needs, without importing the rest of automem.

``automem.home`` builds the whole memory tree on top of these; they live here
so a hook can find its spool, log, config, notes and claims (plain strings under
a root string) without importing anything else. Together with home.py this is
the one place that spells the tree's layout.
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


GLOBAL_PROJECT = "_global"  # the project folder of memories that hold everywhere


def config_path(home: str | None = None) -> str:
    return os.path.join(home or automem_home(), "config.yml")


def consent_path(home: str | None = None) -> str:
    return os.path.join(home or automem_home(), "consent.json")


def index_path(home: str | None = None) -> str:
    return os.path.join(home or automem_home(), "index.db")


def projects_dir(home: str | None = None) -> str:
    return os.path.join(home or automem_home(), "projects")


def state_dir(home: str | None = None) -> str:
    """automem's own bookkeeping: locks, extraction progress, session families, one-shot notes."""
    return os.path.join(home or automem_home(), "state")


def extract_state_dir(home: str | None = None) -> str:
    """The extractor's progress per session, its locks and the Stop worker's claims."""
    return os.path.join(state_dir(home), "extract")


def consent_asked_path(home: str | None = None) -> str:
    """The mark that the consent question was asked (so a Stop asks once)."""
    return os.path.join(state_dir(home), "consent-asked")


def session_note_path(home: str | None, session_id: object) -> str:
    """The last extraction's one line for a session, shown once by its next Stop."""
    return os.path.join(extract_state_dir(home), "notes", safe_session_id(session_id) + ".txt")


def project_note_path(home: str | None, slug: str) -> str:
    """The last extraction's one line for a project, shown once by its next SessionStart."""
    return os.path.join(extract_state_dir(home), "notes", f"project-{slug}.txt")


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
    from automem.digest import sha256_hex  # lazily: ordinary ids never need it

    return "sid-" + sha256_hex(text.encode("utf-8", "replace"))[:24]


def _looks_secret(text: str) -> bool:
    """An id the hooks' redaction would change (a token passed as a session id) must not become a file name."""
    from automem.redact.fast import redact_fast  # the capture hook has it loaded already

    return redact_fast(text) != text


def spool_path(session_id: object, home: str | None = None) -> str:
    return os.path.join(spool_dir(home), safe_session_id(session_id) + ".jsonl")


def recalled_path(session_id: object, home: str | None = None) -> str:
    """The ids of the memories a session was already given (brief and per-prompt recall)."""
    return os.path.join(spool_dir(home), safe_session_id(session_id) + ".recalled")

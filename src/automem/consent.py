"""consent.json: may automem extract lessons (and, with AUTOMEM_MODEL, call a model) at all?

``{"consented": true|false|"ask", "at": "<iso>"}``. No file means nobody answered yet: the Stop
hook asks once (a systemMessage, never blocking), nothing is extracted, and the session's spool is
kept at most SPOOL_KEEP_DAYS. "no" deletes the spooled signals of the session that stopped.
Stdlib only: the Stop hook reads it, so the home is a plain root (a string or a Path) here, and what
is not the hook's imports the store only when it runs.
"""

from __future__ import annotations

import json
import os
import time

from automem.capture.paths import consent_asked_path, consent_path, spool_dir

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing into the Stop hook
if TYPE_CHECKING:
    from typing import TypeAlias

    Root: TypeAlias = str | os.PathLike[str]

SPOOL_KEEP_DAYS = 7
ANSWERS: dict[str, bool | str] = {
    "yes": True,
    "y": True,
    "true": True,
    "no": False,
    "n": False,
    "false": False,
    "ask": "ask",
}
QUESTION = (
    "automem can extract lessons at the end of each turn (errors hit, fixes applied, preferences you stated) "
    "into local Markdown memory under {home}. Nothing leaves this machine unless you also set AUTOMEM_MODEL. "
    "Answer once in a terminal: `{cmd} consent yes`, `{cmd} consent no`, or `{cmd} consent ask`."
)


def _path(home: Root) -> str:
    return consent_path(os.fspath(home))


def _tree(home: Root):
    """The Home of a root, for the store (which checks every path it writes is inside it)."""
    from pathlib import Path

    from automem.home import Home

    return Home(Path(home))


def read(home: Root) -> bool | str | None:
    """True, False, "ask", or None when nobody answered (or the file is unreadable)."""
    try:
        with open(_path(home), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    value = data.get("consented") if isinstance(data, dict) else None
    return value if value in (True, False, "ask") else None


def granted(home: Root) -> bool:
    return read(home) is True


def write(home: Root, answer: str | bool) -> bool | str:
    value: bool | str | None = ANSWERS.get(str(answer).lower()) if not isinstance(answer, bool) else answer
    if value is None:
        raise ValueError(f"answer must be one of yes, no, ask; not {answer!r}")
    from automem.store import write_file

    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    write_file(_path(home), json.dumps({"consented": value, "at": stamp}) + "\n", home=_tree(home))
    return value


def question(home: Root) -> str:
    return QUESTION.format(home=home, cmd=command_name())


def command_name() -> str:
    """How the user can call automem: the hook's own script path (the venv's bin is rarely on PATH)."""
    import sys

    script = sys.argv[0] if sys.argv and sys.argv[0] else ""
    name = os.path.basename(script)
    if name == "automem" and os.sep in script:
        return os.path.abspath(script)
    if name == "automem-hook":
        return f"python3 {script} --cli"
    return "automem"


def asked_marker(home: Root) -> str:
    return consent_asked_path(os.fspath(home))


def should_ask(home: Root) -> bool:
    """True once when no answer is recorded ("ask" asks again in every new session)."""
    value = read(home)
    if value is True or value is False:
        return False
    return not os.path.exists(asked_marker(home))


def mark_asked(home: Root, session_id: str = "") -> None:
    marker = asked_marker(home)
    os.makedirs(os.path.dirname(marker), mode=0o700, exist_ok=True)
    with open(marker, "w", encoding="utf-8") as handle:
        handle.write(_safe(session_id) + "\n" if session_id else "\n")  # a token passed as an id never lands raw


def forget_asked(home: Root) -> None:
    """For "ask": the next session asks again."""
    from automem.store import remove

    remove(asked_marker(home), home=_tree(home))


def prune_spool(
    home: Root, session_id: str | None = None, now: float | None = None, keep_days: int | None = None
) -> int:
    """Apply the answer to spooled signals, and keep the spool bounded whatever the answer.

    "no" deletes the session's captures at once; with no answer they are kept 7 days; with consent they were
    extracted at each Stop, so they (and a session's .recalled list) go after ``retention.spool_days``.
    """
    from pathlib import Path

    from automem.store import remove

    value = read(home)
    spool = Path(spool_dir(os.fspath(home)))
    tree = _tree(home)
    removed = 0
    if not spool.is_dir():
        return 0
    now = time.time() if now is None else now
    if keep_days is None:
        keep_days = _spool_days(home)
    max_age = (keep_days if value is True else SPOOL_KEEP_DAYS) * 86400
    entries = [p for p in spool.iterdir() if p.is_file()]
    for path in entries:
        if path.name.endswith(".lock"):
            continue  # the locks go below, once their captures are gone
        this_session = session_id is not None and path.name.split(".jsonl")[0] == _safe(session_id)
        try:
            too_old = max_age > 0 and now - path.stat().st_mtime > max_age
        except OSError:
            continue
        if (value is False and this_session and ".jsonl" in path.name) or too_old:
            try:
                if remove(path, home=tree):
                    removed += 1
            except OSError:
                pass
    for lock in (p for p in entries if p.name.endswith(".lock")):
        stem = lock.name[: -len(".lock")].split(".jsonl")[0]
        if any(not p.name.endswith(".lock") for p in spool.glob(f"{stem}.jsonl*")):
            continue  # its session still has captures
        try:
            if now - lock.stat().st_mtime > 3600 and remove(lock, home=tree):  # not one a hook may be holding now
                removed += 1
        except OSError:
            pass
    return removed


def _spool_days(home: Root) -> int:
    try:
        from automem.config import load

        return int(load(_tree(home), strict=False).spool_days)
    except Exception:  # noqa: BLE001 - a broken config keeps the default
        return SPOOL_KEEP_DAYS


def _safe(session_id: str) -> str:
    from automem.capture.paths import safe_session_id

    return safe_session_id(session_id)

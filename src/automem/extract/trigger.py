"""Stop / SessionEnd / PreCompact hook side: start one detached worker (bank, then extract), return.

The hook process stays light: stdlib only, no yaml, no readers. Extraction is detached, so this
turn's result cannot be known here; the hook shows the previous extraction's one-line message,
which the worker left in a per-session note (consumed once), and asks for consent the first
time a session stops with no answer recorded.
"""

from __future__ import annotations

import os
import sys

from automem.capture.paths import automem_home, safe_session_id


def on_stop(payload: dict, harness: str) -> dict | None:
    home = automem_home()
    session_id = payload.get("session_id") if isinstance(payload.get("session_id"), str) else ""
    if _not_a_session(home, payload, session_id):
        return None  # `claude mcp list` health checks end "sessions" that never wrote a transcript or a capture
    args = [sys.executable, "-m", "automem.extract.worker", "--harness", harness]
    path = payload.get("transcript_path")
    if isinstance(path, str) and path:
        args += ["--transcript", path]
    if session_id:
        args += ["--session", session_id]
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and cwd:
        args += ["--cwd", cwd]
    spawn_detached(args)
    return stop_message(home, session_id)


def _not_a_session(home: str, payload: dict, session_id: str) -> bool:
    """A SessionEnd whose transcript does not exist and that captured nothing: nothing to bank or learn."""
    path = payload.get("transcript_path")
    if payload.get("hook_event_name") != "SessionEnd" or not isinstance(path, str) or not path or os.path.exists(path):
        return False
    spool = os.path.join(home, "spool", safe_session_id(session_id) + ".jsonl") if session_id else ""
    return not (spool and os.path.exists(spool))


def spawn_detached(args: list[str]) -> None:
    """A child in its own session with stdio on /dev/null: it outlives the hook, never its own time limit.

    posix_spawn where there is one (no subprocess import, no fork of this process), else subprocess.
    """
    spawn = getattr(os, "posix_spawn", None)
    if spawn is not None:
        null = os.devnull
        actions = [(os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0), (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0)]
        try:
            spawn(args[0], args, dict(os.environ), file_actions=actions, setsid=True)
            return
        except (OSError, TypeError, NotImplementedError):
            pass
    import subprocess

    subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True)


def on_subagent_stop(payload: dict, harness: str) -> None:
    """A subagent's work lands in the parent's transcript: the parent's Stop extracts it."""
    return None


def stop_message(home: str, session_id: str) -> dict | None:
    """The previous extraction's one line (consumed once) and, the first time, the consent question."""
    from automem import consent

    lines = []
    if session_id:
        note = os.path.join(home, "state", "extract", "notes", safe_session_id(session_id) + ".txt")
        try:
            with open(note, encoding="utf-8") as handle:
                text = handle.read().strip()
            os.unlink(note)
            if text:
                lines.append(text)
        except OSError:
            pass
    if consent.should_ask(home):
        consent.mark_asked(home, session_id)
        lines.append(consent.question(home))
    return {"systemMessage": "\n".join(lines)} if lines else None

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
    if payload.get("hook_event_name", "Stop") == "Stop" and payload.get("stop_hook_active") is False:
        args.append("--stopped")  # the turn ended here (no Stop hook continues it): bank it now
    if claim_worker(home, session_id):
        spawn_detached(args)
    return stop_message(home, session_id)


CLAIM_STALE_SECONDS = 180  # longer than the worker's time limit: a claim this old belongs to a killed worker


def claim_paths(home: str, session_id: str) -> tuple[str, str]:
    """(claim, again): the file a running worker of this session owns, and the mark asking it to run again."""
    base = os.path.join(home, "state", "extract", safe_session_id(session_id or "manual"))
    return base + ".worker", base + ".again"


def claim_worker(home: str, session_id: str) -> bool:
    """Single-flight at the hook: True when this call may start the session's worker. While one runs, a Stop
    leaves an "again" mark instead (its turn is not lost: the running worker reads once more before it goes)."""
    claim, again = claim_paths(home, session_id)
    for _ in range(2):
        try:
            os.makedirs(os.path.dirname(claim), mode=0o700, exist_ok=True)
            os.close(os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            return True
        except FileExistsError:
            try:
                import time

                if time.time() - os.stat(claim).st_mtime > CLAIM_STALE_SECONDS:
                    os.unlink(claim)  # a worker killed before it could let go
                    continue
            except OSError:
                continue
            try:
                os.close(os.open(again, os.O_CREAT | os.O_WRONLY, 0o600))
            except OSError:
                pass
            return False
        except OSError:
            return True  # the state folder is unusable: better a second worker than a lost turn
    return False


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

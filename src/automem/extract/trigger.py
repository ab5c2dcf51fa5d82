"""Stop / SessionEnd / PreCompact hook side: start one detached worker (bank, then extract), return.

The hook process stays light: stdlib only, no yaml, no readers. Extraction is detached, so this
turn's result cannot be known here; the hook shows the previous extraction's one-line message,
which the worker left in a per-session note (consumed once), and asks for consent the first
time a session stops with no answer recorded.
"""

from __future__ import annotations

import os
import sys

from automem.capture.paths import automem_home, extract_state_dir, safe_session_id, session_note_path, spool_path


def on_stop(payload: dict, harness: str) -> dict | None:
    home = automem_home()
    session_id = payload["session_id"] if isinstance(payload.get("session_id"), str) else ""
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
    claim = claim_worker(home, session_id)
    if claim is not None:
        try:
            if claim >= 0:
                os.set_inheritable(claim, True)
                args += ["--claim-fd", str(claim)]  # the worker holds the claim from here; the kernel drops it when it dies
            spawn_detached(args)
        finally:
            if claim >= 0:
                os.close(claim)
    return stop_message(home, session_id)


def claim_paths(home: str, session_id: str) -> tuple[str, str]:
    """(claim, again): the lock file a running worker of this session holds, and the mark asking it to run again."""
    base = os.path.join(extract_state_dir(home), safe_session_id(session_id or "manual"))
    return base + ".worker", base + ".again"


NO_CLAIM = -1  # the state folder is unusable: start a worker anyway (better a second one than a lost turn)


def claim_worker(home: str, session_id: str) -> int | None:
    """Single-flight at the hook: an fd holding the session's claim (an flock on ``<session>.worker``) when this
    call may start the session's worker, NO_CLAIM when there is no claim to take, None when a worker runs.

    The claim is a lock, not a file's existence: the worker inherits the fd, so the kernel lets go of it when the
    worker ends, however it ends (SIGKILL included). While one runs, a Stop leaves an "again" mark instead (the
    running worker reads once more before it goes) and tries once more, so a worker letting go between the two
    cannot miss the mark."""
    import fcntl

    claim, again = claim_paths(home, session_id)
    try:
        os.makedirs(os.path.dirname(claim), mode=0o700, exist_ok=True)
        fd = os.open(claim, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return NO_CLAIM
    for attempt in range(2):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if attempt == 0:
                try:
                    os.close(os.open(again, os.O_CREAT | os.O_WRONLY, 0o600))
                except OSError:
                    pass
            continue
        except OSError:
            os.close(fd)
            return NO_CLAIM
        if attempt == 1:
            _unlink(again)  # the worker let go meanwhile: the one started now reads everything
        return _above_stdio(fd)
    os.close(fd)
    return None


def worker_running(home: str, session_id: str) -> bool:
    """Does a worker hold this session's claim right now?"""
    return lock_held(claim_paths(home, session_id)[0])


def lock_held(path: str) -> bool:
    """Does some process hold an flock on this file right now (False when the file is not there)?"""
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def _above_stdio(fd: int) -> int:
    """The claim must not sit on fd 0-2: the worker's stdio is /dev/null."""
    if fd > 2:
        return fd
    import fcntl

    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.close(fd)
    return high


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _not_a_session(home: str, payload: dict, session_id: str) -> bool:
    """A SessionEnd whose transcript does not exist and that captured nothing: nothing to bank or learn."""
    path = payload.get("transcript_path")
    if payload.get("hook_event_name") != "SessionEnd" or not isinstance(path, str) or not path or os.path.exists(path):
        return False
    spool = spool_path(session_id, home) if session_id else ""
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
                     start_new_session=True, close_fds=False)  # inheritable fds only: the worker's claim


def on_subagent_stop(payload: dict, harness: str) -> None:
    """A subagent's work lands in the parent's transcript: the parent's Stop extracts it."""
    return None


def stop_message(home: str, session_id: str) -> dict | None:
    """The previous extraction's one line (consumed once) and, the first time, the consent question."""
    from automem import consent

    lines = []
    if session_id:
        note = session_note_path(home, session_id)
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

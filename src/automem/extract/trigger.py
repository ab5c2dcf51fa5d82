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
    path, cwd = payload.get("transcript_path"), payload.get("cwd")
    # the turn ended here (no Stop hook continues it): bank it now
    stopped = payload.get("hook_event_name", "Stop") == "Stop" and payload.get("stop_hook_active") is False
    claim = claim_worker(home, session_id, stopped=stopped)
    if claim is not None:
        start_worker(
            worker_args(
                harness,
                transcript=path if isinstance(path, str) else None,
                session_id=session_id,
                cwd=cwd if isinstance(cwd, str) else None,
                stopped=stopped,
            ),
            claim,
        )
    return stop_message(home, session_id)


def worker_args(
    harness: str,
    *,
    transcript: str | None,
    session_id: str,
    cwd: str | None,
    stopped: bool,
    no_bank: bool = False,
    handed: int = 0,
) -> list[str]:
    """The command line of a detached worker (``automem.extract.worker``), without its claim's fd."""
    args = [sys.executable, "-m", "automem.extract.worker", "--harness", harness]
    for flag, value in (("--transcript", transcript), ("--session", session_id), ("--cwd", cwd)):
        if value:
            args += [flag, value]
    if stopped:
        args.append("--stopped")
    if no_bank:
        args.append("--no-bank")
    if handed:
        args += ["--handed", str(handed)]
    return args


def start_worker(args: list[str], claim: tuple[int, bool]) -> None:
    """Start the worker ``claim_worker`` allowed, handing it the fd: the worker holds the lock from then on, and
    the kernel drops it when the worker dies; with --queue-fd it holds the place next in line and waits."""
    fd, waits = claim
    try:
        if fd >= 0:
            os.set_inheritable(fd, True)
            args = [*args, "--queue-fd" if waits else "--claim-fd", str(fd)]
        pid = spawn_detached(args, worker_env())
        if fd >= 0 and not waits and pid:
            write_holder(fd, pid)
    finally:
        if fd >= 0:
            os.close(fd)


def claim_paths(home: str, session_id: str) -> tuple[str, str, str]:
    """(claim, queue, again): the lock file the session's running worker holds, the one a worker waiting to run
    next holds, and the mark a Stop leaves for the running worker when it arrives while that one reads."""
    base = os.path.join(extract_state_dir(home), safe_session_id(session_id or "manual"))
    return base + ".worker", base + ".next", base + ".again"


NO_CLAIM = -1  # the state folder is unusable: start a worker anyway (better a second one than a lost turn)


def claim_worker(home: str, session_id: str, stopped: bool = False) -> tuple[int, bool] | None:
    """Single-flight at the hook: how this call may start the session's worker, or None when none is needed.

    ``(fd, False)``: fd holds the session's claim (an flock on ``<session>.worker``), the worker started now runs
    at once. None: a live worker holds the claim; a mark (``<session>.again``) is left and that worker reads once
    more before it ends, so a burst of any size starts one worker. ``(fd, True)``: the claim's holder cannot be
    counted on to read again (a killed worker whose threads are still exiting holds it, or a process that is no
    worker): fd holds the place next in line (an flock on ``<session>.next``), and the worker started now waits
    for the claim (``wait_for_claim``), then reads everything; None too when one waits so already.
    ``(NO_CLAIM, False)``: there is no claim to take.

    All are locks, not files' existence: the worker inherits the fd, so the kernel lets go of it when the worker
    ends, however it ends. The claim file names its holder's pid (the hook's own, then the worker's). The mark is
    left before the claim is tried again, and the worker looks for a mark after it lets the claim go
    (the worker's rounds): whichever comes second sees the other."""
    claim, queue, again = claim_paths(home, session_id)
    try:
        os.makedirs(os.path.dirname(claim), mode=0o700, exist_ok=True)
    except OSError:
        return NO_CLAIM, False
    import time

    deadline = time.monotonic() + HOLDER_WAIT_SECONDS
    while True:
        fd = _try_lock(claim)
        if fd is not None:
            return _claimed(fd), False
        if _live_automem_holder(claim):
            if not leave_mark(again, stopped):
                return NO_CLAIM, False
            fd = _try_lock(claim)  # the worker may have let go just now, before the mark was there
            return None if fd is None else (_claimed(fd), False)
        if time.monotonic() >= deadline:
            break
        time.sleep(0.005)  # a claim just taken names its holder a moment later; one let go is free a moment later
    fd = _try_lock(queue)
    if fd == NO_CLAIM:
        return NO_CLAIM, False
    if fd is not None:
        return _above_stdio(fd), True
    leave_mark(again, stopped)  # one waits already: it takes this mark (and what the Stop said) when it reads
    return None


def _claimed(fd: int) -> int:
    """The claim's fd made ready to hand on (NO_CLAIM stays so)."""
    if fd == NO_CLAIM:
        return fd
    fd = _above_stdio(fd)
    write_holder(fd, os.getpid())  # until the worker is spawned and named: a live holder that will hand over
    return fd


def write_holder(fd: int, pid: int) -> None:
    """Name the claim's holder in its file (the lock is the fd's; the name says who will read a mark)."""
    try:
        os.pwrite(fd, f"{pid:<20}".encode("ascii"), 0)  # one write of a fixed width: never read half-written
    except OSError:
        pass


_STARTING_EVENTS = (b"Stop", b"SessionEnd", b"PreCompact")  # the hook events that start a worker
HOLDER_WAIT_SECONDS = 0.05  # a claim just taken names its holder a moment later


def _live_automem_holder(claim: str) -> bool:
    """Is the claim's holder a live automem process (a worker, or the hook that is starting one)? A killed worker
    is a zombie until its last thread exits and lets go of the fd; a pid that names nobody, or some other
    program, is no holder to count on."""
    try:
        with open(claim, "rb") as handle:
            pid = int(handle.read(32).strip() or b"0")
    except (OSError, ValueError):
        return False
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return False  # someone else's process: not our worker
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            if handle.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                return False
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            command = handle.read()
        # the worker, or the hook that is starting one (python -m automem hook Stop, .../bin/automem hook Stop)
        return b"automem.extract.worker" in command or (
            b"automem" in command and any(b"hook\0" + event in command for event in _STARTING_EVENTS)
        )
    except FileNotFoundError:
        return not os.path.isdir("/proc")  # no /proc (macOS): alive is all there is to go by
    except (OSError, IndexError):
        return False


def leave_mark(path: str, stopped: bool = False) -> bool:
    """The run-again mark; it carries what the Stop said (``stopped``: the turn ended, bank it now)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            if stopped:
                os.write(fd, b"stopped\n")
        finally:
            os.close(fd)
        return True
    except OSError:
        return False


def take_mark(home: str, session_id: str) -> set[str] | None:
    """Consume the session's run-again mark, before reading (a Stop after this leaves a new one): what the Stops
    that left it said ({"stopped"}), or None when there was none."""
    path = claim_paths(home, session_id)[2]
    taken = f"{path}.{os.getpid()}"
    try:
        os.rename(path, taken)  # first: what a Stop appends from now on goes into a new mark
    except FileNotFoundError:
        return None
    except OSError:
        return set()  # cannot tell: reading once more costs less than a lost turn
    try:
        with open(taken, "rb") as handle:
            said = {line.decode("ascii", "replace").strip() for line in handle.read(4096).splitlines()}
        os.unlink(taken)
        return said - {""}
    except OSError:
        return set()


def mark_path(home: str, session_id: str) -> str:
    """The run-again mark a Stop leaves for the session's running worker."""
    return claim_paths(home, session_id)[2]


def mark_left(home: str, session_id: str) -> bool:
    return os.path.exists(mark_path(home, session_id))


def _try_lock(path: str) -> int | None:
    """An fd holding an exclusive flock on path, None when another holds it, NO_CLAIM when the file is unusable."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return NO_CLAIM
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd
    except BlockingIOError:
        os.close(fd)
        return None
    except OSError:
        os.close(fd)
        return NO_CLAIM


def retake_claim(home: str, session_id: str) -> int | None:
    """The claim again, for a worker that let it go and then found a mark: None when another worker took it
    meanwhile (that one reads for the mark)."""
    fd = _try_lock(claim_paths(home, session_id)[0])
    return None if fd is None or fd == NO_CLAIM else _claimed(fd)


def wait_for_claim(home: str, session_id: str, queue_fd: int) -> int:
    """The worker next in line: block until the session's claim is free and take it, then give up the place in
    line (in that order: a Stop finds one of the two held until this worker reads). The claim's fd, or NO_CLAIM
    when its file is unusable."""
    import fcntl

    claim = claim_paths(home, session_id)[0]
    fd = NO_CLAIM
    try:
        fd = os.open(claim, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        write_holder(fd, os.getpid())
    except OSError:
        if fd >= 0:
            os.close(fd)
        fd = NO_CLAIM
    finally:
        try:
            fcntl.flock(queue_fd, fcntl.LOCK_UN)
            os.close(queue_fd)
        except OSError:
            pass
    return fd


def worker_running(home: str, session_id: str) -> bool:
    """Does a worker of this session run, or wait to run, right now?"""
    claim, queue, _again = claim_paths(home, session_id)
    return lock_held(queue) or lock_held(claim)  # this order: the one waiting takes the claim before its place goes


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


def _not_a_session(home: str, payload: dict, session_id: str) -> bool:
    """A SessionEnd whose transcript does not exist and that captured nothing: nothing to bank or learn."""
    path = payload.get("transcript_path")
    if payload.get("hook_event_name") != "SessionEnd" or not isinstance(path, str) or not path or os.path.exists(path):
        return False
    spool = spool_path(session_id, home) if session_id else ""
    return not (spool and os.path.exists(spool))


# the Go runtime of the secret scanner (betterleaks) a worker loads reads these once, at process start: a worker
# lives for seconds, so the collector's passes only cost CPU (~5% of a worker); the limit still bounds its heap.
# What the worker starts in turn (the detached index sync) inherits them, harmless for a process without Go
WORKER_GO_ENV = {"GOGC": "off", "GOMEMLIMIT": "256MiB"}


def worker_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a detached worker starts with: base (this process's) plus WORKER_GO_ENV, where the user set
    neither variable."""
    env = dict(os.environ if base is None else base)
    if not any(name in env for name in WORKER_GO_ENV):
        env.update(WORKER_GO_ENV)
    return env


def spawn_detached(args: list[str], env: dict[str, str] | None = None) -> int | None:
    """A child in its own session with stdio on /dev/null: it outlives the hook, never its own time limit.

    posix_spawn where there is one (no subprocess import, no fork of this process), else subprocess.
    """
    env = dict(os.environ) if env is None else env
    spawn = getattr(os, "posix_spawn", None)
    if spawn is not None:
        null = os.devnull
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0),
        ]
        try:
            return spawn(args[0], args, env, file_actions=actions, setsid=True)
        except (OSError, TypeError, NotImplementedError):
            pass
    import subprocess

    return subprocess.Popen(
        args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=False,
        env=env,
    ).pid  # inheritable fds only: the worker's claim


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

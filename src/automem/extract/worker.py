"""The detached worker the Stop hook starts: bank the transcript, then extract its lessons.

Single-flight per session: the hook takes an flock on ``state/extract/<session>.worker`` before it
starts a worker and hands the worker that fd (``--claim-fd``), so the claim lasts exactly as long as
the worker (a SIGKILL lets go of it too); a worker started by hand takes the claim itself. A Stop
arriving while one runs starts none: it leaves a mark (``<session>.again``) and the running worker
reads once more (the extraction itself also holds an flock on ``<session>.lock``). When the claim's
holder is no live worker (one killed whose threads still hold the fd), the Stop starts one that holds
``<session>.next`` (``--queue-fd``) and blocks until the kernel lets go of the claim. A time limit
ends each round, so no process outlives its job.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import time

TIME_LIMIT_SECONDS = 120
STOP_WAIT_SECONDS = 5.0  # how long a stopped turn's answer may take to reach the transcript


def _parser():
    import argparse

    parser = argparse.ArgumentParser(prog="automem.extract.worker")
    parser.add_argument("--harness", default="claude-code")
    parser.add_argument("--transcript")
    parser.add_argument("--session", default="")
    parser.add_argument("--cwd")
    parser.add_argument("--no-bank", action="store_true")
    parser.add_argument("--claim-fd", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--queue-fd", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--handed", type=int, default=0, help=argparse.SUPPRESS)  # workers before this one in a chain
    parser.add_argument(
        "--stopped", action="store_true", help="the Stop hook said the turn ended (stop_hook_active false): bank it now"
    )
    return parser


_VALUES: dict[str, type] = {"--harness": str, "--transcript": str, "--session": str, "--cwd": str}
_NUMBERS: dict[str, type] = {"--claim-fd": int, "--queue-fd": int, "--handed": int}
_SWITCHES = ("--no-bank", "--stopped")


def parse_args(argv: list[str]):
    """The options, read as argparse would: the command lines trigger.worker_args writes are read here (argparse and
    what it imports cost ~4 CPU-ms of every worker); anything else (--help, ``--opt=value``, an abbreviation, a value
    that starts with a dash, an error) is argparse's to read."""
    from types import SimpleNamespace

    options: dict[str, object] = {
        "harness": "claude-code",
        "transcript": None,
        "session": "",
        "cwd": None,
        "no_bank": False,
    }
    options.update({"claim_fd": None, "queue_fd": None, "handed": 0, "stopped": False})
    rest = iter(argv)
    for arg in rest:
        if arg in _SWITCHES:
            options[arg[2:].replace("-", "_")] = True
            continue
        kind = _VALUES.get(arg) or _NUMBERS.get(arg)
        value = next(rest, None) if kind else None
        if kind is None or value is None or value.startswith("-"):
            return _parser().parse_args(argv)
        try:
            options[arg[2:].replace("-", "_")] = kind(value)
        except ValueError:
            return _parser().parse_args(argv)
    return SimpleNamespace(**options)


# the cyclic collector's passes over everything a run imports and parses cost ~10 CPU-ms a worker (~4%) and find a few
# hundred objects: it still runs, after this many new container objects rather than 700 (a few MB at most)
GC_THRESHOLD = 100_000


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    signal.alarm(TIME_LIMIT_SECONDS)
    import os

    from automem.capture.paths import automem_home

    if not os.path.isdir(automem_home()):
        return 0  # the home is gone (uninstalled, or a throwaway one removed): never create it from here
    global _claim
    home = automem_home()
    if args.claim_fd is not None:
        _claim = args.claim_fd
    else:
        from automem.extract.trigger import NO_CLAIM, claim_worker, wait_for_claim, write_holder

        claim: tuple[int, bool] | None = (args.queue_fd, True) if args.queue_fd is not None else None
        if claim is None:  # started by hand: take the session's claim, or leave a mark, as the hook would
            claim = claim_worker(home, args.session)
            if claim is None:
                return 0  # a worker runs and reads once more for the mark, or one waits and reads all there is
        fd, waits = claim
        if waits:
            fd = wait_for_claim(home, args.session, fd)
            signal.alarm(TIME_LIMIT_SECONDS)  # the wait lasted at most the time limit of the one before
        elif fd != NO_CLAIM:
            write_holder(fd, os.getpid())
        _claim = None if fd == NO_CLAIM else fd
    signal.signal(signal.SIGALRM, _time_is_up)
    signal.signal(signal.SIGTERM, _time_is_up)
    try:
        return _rounds(args, home)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # on the way out: nothing may cut the hand-over short
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(10)
        _release()
        _hand_over(args, home)


def _time_is_up(signum, _frame) -> None:
    """The time limit (or a SIGTERM) ends the worker through its ``finally``: the claim goes, and a mark a Stop
    left meanwhile gets a worker of its own. Should that hang, the next alarm's default action ends it."""
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(10)
    raise SystemExit(0)


def _hand_over(args, home: str) -> None:
    """A mark left that this worker will not read (its last round, or its time was up): start the next one."""
    from automem.extract.trigger import claim_worker, mark_left, start_worker, worker_args

    try:
        if not mark_left(home, args.session) or args.handed >= MAX_HANDOVERS:
            return  # (a mark that cannot be taken away must not chain workers forever: the next Stop reads it)
        claim = claim_worker(home, args.session, stopped=args.stopped)
        if claim is None:
            return  # a live worker holds the claim (the mark is its), or one waits already
        argv = worker_args(
            args.harness,
            transcript=args.transcript,
            session_id=args.session,
            cwd=args.cwd,
            stopped=args.stopped,
            no_bank=args.no_bank,
            handed=args.handed + 1,
        )
        start_worker(argv, claim)
    except Exception as exc:  # noqa: BLE001 - the next Stop starts one anyway
        from automem.log import log_error

        log_error("extract-worker", f"handing over: {type(exc).__name__}: {exc}")


MAX_ROUNDS = 8  # Stops that keep coming while a worker reads: past this many rounds a new worker takes over
MAX_HANDOVERS = 3  # workers in a row that hand a mark over; then it waits for the next Stop
LINGER_SECONDS = 0.5  # a burst's later Stops find the claim still held and leave a mark instead of a new worker


def _mark_comes(home: str, session_id: str) -> bool:
    """Is there a mark, or does one come within LINGER_SECONDS (the claim still held, nothing read meanwhile)?"""
    from automem.extract.trigger import mark_path

    mark = mark_path(home, session_id)
    deadline = time.monotonic() + LINGER_SECONDS
    pause = 0.02  # doubling: each wake-up of a worker costs ~0.2 CPU-ms, and a mark seen a little later is only
    while not os.path.exists(mark):  # read a little later
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(pause, left))
        pause = min(2 * pause, 0.16)
    return True


def _rounds(args, home: str) -> int:
    """Read until no Stop left a mark meanwhile. The mark is taken before each read (a Stop after that leaves a
    new one), looked for while the claim is held, and once more after it is let go (``claim_worker``'s order)."""
    global _claim
    from automem.extract.trigger import mark_left, retake_claim, take_mark

    code = 0
    for round_ in range(MAX_ROUNDS):
        said = take_mark(home, args.session)
        if said and "stopped" in said:
            args.stopped = True  # a Stop that joined this worker said its turn ended
        code = _main(args)
        if round_ == MAX_ROUNDS - 1:
            break  # a mark left now is handed over to a new worker (main's finally)
        if _mark_comes(home, args.session):
            signal.alarm(TIME_LIMIT_SECONDS)
            continue
        _release()
        if not mark_left(home, args.session):
            return code
        _claim = retake_claim(home, args.session)
        if _claim is None:
            return code  # another worker took the claim meanwhile: it reads for the mark
        signal.alarm(TIME_LIMIT_SECONDS)
    return code


_claim: int | None = None  # the fd holding this session's claim (an flock), while this worker holds it


def _release() -> None:
    global _claim
    import fcntl
    import os

    fd, _claim = _claim, None
    if fd is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    except OSError:
        pass


def _main(args) -> int:

    from automem.capture.paths import automem_home
    from automem.log import log_error

    missing = _missing_dependencies()
    if missing:
        log_error(
            "extract-worker",
            f"{sys.executable} lacks {', '.join(missing)}: lessons and banking need automem's "
            "dependencies; run `python3 install.py` (capture, the brief and recall work without them)",
        )
        return 0
    if args.transcript and not _regular_file(args.transcript):
        # a payload may name anything: /dev/zero or a FIFO would eat memory or block until the time limit
        log_error("extract-worker", f"transcript_path is not a regular file, ignored: {args.transcript[:200]}")
        args.transcript = None
    if not args.transcript and args.session:
        args.transcript = find_transcript(args.harness, args.session)  # Codex may send transcript_path: null
    keeper = _hold_index(automem_home())
    try:
        _work(args, log_error)
        try:
            from automem import consent

            consent.prune_spool(automem_home())  # growth is bounded: old sessions' captures go after spool_days
            prune_session_state(automem_home())
            expire_candidates(automem_home())
            from automem.home import Home
            from automem.store import sweep_temp_files

            sweep_temp_files(Home.current())  # what a killed writer left between its write and its rename
            from automem.redact.betterleaks_rules import sweep_orphan_configs

            sweep_orphan_configs()  # and the secret scanner's configs a killed worker left in the temp folder
        except Exception as exc:  # noqa: BLE001 - SystemExit (the time limit) goes through
            log_error("extract-worker", f"pruning: {type(exc).__name__}: {exc}")
        return 0  # the claim goes last (in main): nothing of this worker runs beside the next one
    finally:
        if keeper is not None:
            keeper.close()


def _hold_index(home: str):
    """One connection to index.db held for the whole run. The bank pass, each memory written and the sweep open
    their own; whichever closes last checkpoints the WAL into the database (fsyncs included), so without this
    the worker paid that once per connection instead of once."""
    from pathlib import Path

    from automem.home import Home
    from automem.index.db import connect
    from automem.index.queries import DatabaseError

    try:
        return connect(Home(Path(home)))
    except (OSError, DatabaseError):
        return None


def _work(args, log_error) -> None:
    """One round: bank the transcript, then extract the session (each line of the transcript parsed once for both)."""
    from contextlib import nullcontext

    from automem.harness.base import share_records

    with share_records(args.transcript) if args.transcript else nullcontext():
        if not args.no_bank:
            _bank(args, log_error)
        try:
            run_extraction(args.session, args.transcript, args.harness, args.cwd)
        except Exception as exc:  # noqa: BLE001
            log_error("extract-worker", f"{type(exc).__name__}: {exc}")
    try:
        sweep_index()
    except Exception as exc:  # noqa: BLE001
        log_error("extract-worker", f"index sweep: {type(exc).__name__}: {exc}")


def _bank(args, log_error) -> None:
    try:
        from pathlib import Path

        from automem.bank.passes import run_pass

        paths = {args.harness: [Path(args.transcript)]} if args.transcript else None
        stopped = [Path(args.transcript)] if args.transcript and args.stopped else []
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        report = run_pass(paths=paths, stopped=stopped)
        # Claude Code writes its transcript asynchronously: the answer Stop announced may land a moment later
        while stopped and report.waiting and time.monotonic() < deadline:
            time.sleep(0.2)
            report = run_pass(paths=paths, stopped=stopped)
    except Exception as exc:  # noqa: BLE001 - detached: nobody to show a traceback to (the time limit goes through)
        log_error("bank-worker", f"{type(exc).__name__}: {exc}")


def sweep_index() -> None:
    """A full sync after each round: the hooks only look at folder mtimes, so a memory a person edited in place,
    and the bank folder this round wrote, are caught up here, before the next prompt or session."""
    from automem.capture.paths import automem_home, index_path
    from automem.index.db import open_index
    from automem.index.sync import sync

    root = automem_home()
    if not os.path.exists(index_path(root)):
        return
    conn = open_index(root)
    try:
        sync(conn, root)
    finally:
        conn.close()


STATE_KEEP_DAYS = 30


def expire_candidates(home_root: str) -> int:
    """Candidates nobody confirmed within retention.candidate_days leave for trash/ (and the index)."""
    from pathlib import Path

    from automem.config import load
    from automem.home import Home
    from automem.index.upsert import remove_file
    from automem.store import memory_lock
    from automem.store.memories import expire_candidates as expire

    home = Home(Path(home_root))
    with memory_lock(home):  # an extraction promoting a candidate while it expires would lose one of the two
        gone = expire(home.projects(), load(home, strict=False).candidate_days)
    for _memory, old_path in gone:
        remove_file(old_path, home_root)
    return len(gone)


def find_transcript(harness: str, session_id: str) -> str | None:
    """The harness's own transcript of a session, found by its id in the file name (every harness puts it there)."""
    from automem.harness import READERS

    reader = READERS.get(harness)
    if reader is None or not session_id or "/" in session_id:
        return None
    try:
        for path in reader.discover():
            if path.stem == session_id or path.stem.endswith(session_id):
                return str(path)
    except OSError:
        return None
    return None


def _missing_dependencies() -> list[str]:
    import importlib.util

    return [name for name in ("yaml", "detect_secrets") if importlib.util.find_spec(name) is None]


def _regular_file(path: str) -> bool:
    import os
    import stat

    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def prune_session_state(home: str, now: float | None = None, keep_days: int = STATE_KEEP_DAYS) -> int:
    """Per-session progress and locks of sessions untouched for a month go (one pair per session otherwise
    piles up forever); the shared files (store.lock, error clusters, families.json) stay, and so does a lock a
    live worker holds (a month-old session resumed today: removing its claim would let a second worker in)."""
    import os
    import time
    from pathlib import Path

    from automem.capture.paths import extract_state_dir
    from automem.extract.trigger import lock_held
    from automem.home import Home
    from automem.store import remove

    tree = Home(Path(home))
    folder = extract_state_dir(home)
    now = time.time() if now is None else now
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if entry.name in ("store.lock", "families.json") or entry.name.startswith("clusters-") or not entry.is_file():
            continue
        try:
            old = now - entry.stat().st_mtime > keep_days * 86400
            if old and not lock_held(entry.path) and remove(entry.path, home=tree):
                removed += 1
        except OSError:
            continue
    return removed


def run_extraction(session_id: str, transcript: str | None, harness: str, cwd: str | None):
    from automem.capture.paths import safe_session_id
    from automem.extract.pipeline import extract
    from automem.home import Home
    from automem.store import FileLock

    home = Home.current()
    lock = FileLock(home.extract_state_dir / f"{safe_session_id(session_id or 'manual')}.lock")
    if not lock.acquire(wait=False):
        return None  # another worker is extracting this session right now
    try:
        return extract(home, session_id=session_id, transcript=transcript, harness=harness, cwd=cwd)
    finally:
        lock.release()


if __name__ == "__main__":
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    code = main()
    from automem import regex_cache

    regex_cache.flush()  # os._exit skips atexit: the patterns this run compiled are kept for the next
    sys.stdout.flush()
    sys.stderr.flush()
    import os

    os._exit(code)  # no interpreter teardown once the claim is let go: the next worker may already be starting

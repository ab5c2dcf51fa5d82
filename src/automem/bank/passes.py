"""Autobank passes: every finished turn of every enabled harness banked exactly once.

A pass walks each enabled harness's transcripts, skips files whose size,
modification time and inode match their cursor (a stat each, so an idle pass
over a thousand files costs milliseconds), reads new bytes from the cursor,
and banks each finished turn whose key is not yet in index.db.

Exactly once: a turn is reserved before its entry is written and recorded as
banked after; entry names are a pure function of the turn, so a pass killed
between the two rewrites the same file, and a reservation older than ten
minutes is taken over. Only one pass runs at a time (a lock file); a pass
asked for while one runs leaves a note, and the running pass goes again.

A pass reads at most READ_BUDGET_BYTES per harness (the Stop hook's worker has
a time limit); a backfill drains: no budget, progress reported as it goes, and
a ``stop`` check between turns that ends it cleanly (cursors at the last
settled turn, so the next pass or backfill goes on from there).
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Callable, Iterable

from automem import config as config_mod
from automem.bank.entry import render
from automem.bank.project_files import rebuild_main_md, write_missing_summaries
from automem.bank.state import write_state
from automem.harness import READERS
from automem.harness.model import DROP_SECONDS, QUIET_SECONDS, Turn
from automem.home import Home, Project
from automem.index import bank_state as state
from automem.index.db import connect
from automem.index.queries import Connection
from automem.log import log_error
from automem.record import field, record

READ_BUDGET_BYTES = 8 * 1024 * 1024  # per harness per pass
RESERVATION_TTL = 600.0
DEFAULT_BACKFILL_DAYS = 30
TRIVIAL_RESULT_CHARS = 200
MAX_REPEATS = 3


@record
class PassReport:
    """What one bank pass did, and why it stopped early when it did."""

    banked: int = 0
    rewritten: int = 0
    files_seen: int = 0
    files_read: int = 0
    bytes_read: int = 0
    skipped: str | None = None
    backlog: bool = False  # a budget stopped the pass with bytes left to read
    interrupted: bool = False  # ``stop`` ended it early; what it banked is kept, the cursors say where to go on
    waiting: int = 0  # transcripts whose Stop came before their turn's end was written
    projects: set[str] = field(default_factory=set)
    per_harness: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    # entries written without an fsync: synced together before their transcript's cursor is saved
    written: list[str] = field(default_factory=list, repr=False, compare=False)
    # the project each cwd seen in this pass belongs to (finding a checkout's root walks up the folders)
    cwd_projects: dict[str, Project] = field(default_factory=dict, repr=False, compare=False)

    def as_dict(self) -> dict:
        return {
            "banked": self.banked,
            "rewritten": self.rewritten,
            "files_seen": self.files_seen,
            "files_read": self.files_read,
            "bytes_read": self.bytes_read,
            "skipped": self.skipped,
            "backlog": self.backlog,
            "interrupted": self.interrupted,
            "waiting": self.waiting,
            "projects": sorted(self.projects),
            "per_harness": self.per_harness,
            "errors": self.errors,
        }


@record
class Progress:
    """Where a pass is: transcripts and bytes to read (known when it starts), turns banked so far."""

    harness: str = ""
    files_done: int = 0
    files_total: int = 0
    bytes_done: int = 0
    bytes_total: int = 0
    turns: int = 0
    finished: bool = False  # the last call, once every harness is read


OnProgress = Callable[[Progress], None]


def run_pass(
    home: Home | None = None,
    *,
    harnesses: Iterable[str] | None = None,
    paths: dict[str, list[Path]] | None = None,
    now: float | None = None,
    budget_bytes: int | None = READ_BUDGET_BYTES,
    wait: bool = False,
    progress: OnProgress | None = None,
    stop: Callable[[], bool] | None = None,
    stopped: Iterable[Path] = (),
) -> PassReport:
    """One pass (single-flight). ``paths`` limits it to given files per harness (the Stop hook's own);
    ``budget_bytes`` None reads everything; ``stop`` returning True ends the pass cleanly between two turns;
    ``stopped`` are transcripts whose Stop hook said the last turn ended (banked now, not after the quiet rule)."""
    ended = {str(p) for p in stopped}
    home = (home or Home.current()).ensure()
    cfg = config_mod.load(home, strict=False)
    if not cfg.auto_bank:
        return PassReport(skipped="memory.auto_bank is off")
    lock = _PassLock(home)
    if not lock.acquire(wait=wait):
        lock.leave_note()
        return PassReport(skipped="another pass is running; it will pick this up")
    try:
        total = PassReport()
        for _ in range(MAX_REPEATS):
            lock.clear_note()
            report = _one_pass(home, cfg, harnesses, paths, now, budget_bytes, progress, stop, ended)
            _merge(total, report)
            if report.interrupted or not lock.note_left():
                break
            paths = None  # someone asked meanwhile: a full pass covers whatever they wanted
        return total
    finally:
        lock.release()


def _one_pass(home, cfg, harnesses, paths, now, budget_bytes, progress, stop, stopped=frozenset()) -> PassReport:
    now = time.time() if now is None else now
    report = PassReport()
    enabled = [h for h in (harnesses or cfg.autobank_harnesses) if h in READERS and h in cfg.autobank_harnesses]
    conn = connect(home)
    try:
        # a harness switched off is paused; switched on again, it banks its last 30 days, not the time it was off
        state.note_paused(conn, [h for h in READERS if h not in cfg.autobank_harnesses])
        state.drop_settled_reservations(conn)
        cursors = state.load_cursors(conn)
        work = []
        for harness in enabled:
            window_start = state.window_start(conn, harness, now, DEFAULT_BACKFILL_DAYS)
            files = paths.get(harness, []) if paths is not None else READERS[harness].discover()
            work.append((harness, window_start, files))
        seen = Progress()
        if progress:
            _plan(work, cursors, now, seen)  # totals first, so a bar can say how far along it is
        for harness, window_start, files in work:
            budget = budget_bytes
            seen.harness = harness
            for path in files:
                report.files_seen += 1
                if budget is not None and budget <= 0:
                    report.backlog = True
                    break
                if stop is not None and stop():
                    report.interrupted = True
                    break
                try:
                    read = _bank_file(
                        home,
                        conn,
                        harness,
                        Path(path),
                        cursors,
                        window_start,
                        now,
                        report,
                        budget,
                        stop,
                        _turn_progress(progress, seen, report),
                        ended=str(path) in stopped,
                    )
                    if budget is not None:
                        budget -= read
                except Exception as exc:  # noqa: BLE001 - one bad transcript must not stop the pass
                    message = f"{harness} {path}: {type(exc).__name__}: {exc}"
                    report.errors.append(message)
                    log_error("bank", message)
                if progress:
                    seen.files_done = min(seen.files_total, report.files_read)
                    seen.bytes_done = min(seen.bytes_total, max(seen.bytes_done, report.bytes_read))
                    seen.turns = report.banked
                    progress(seen)
            if report.interrupted:
                break
        # every project this pass wrote entries of, and any a killed pass left unfinished
        for slug in sorted(report.projects | state.dirty_projects(conn)):
            project = Project(home=home, slug=slug, root="")
            from automem.store import write_markdown

            _sweep_temp_files(home, project)
            if rebuild_main_md(project, write_markdown):
                _index(home, conn, project.main_md)
            write_missing_summaries(project, write_markdown)
            state.clear_dirty(conn, slug)
        if progress:
            seen.finished = True
            seen.turns = report.banked
            progress(seen)
    finally:
        from automem.store import sync_written

        sync_written(report.written)  # what a transcript that failed half-way wrote
        conn.close()
    return report


def _plan(work, cursors, now, seen: Progress) -> None:
    """Count the transcripts a pass will read and their new bytes (a stat each, as the pass does)."""
    for _harness, window_start, files in work:
        for path in files:
            try:
                st = Path(path).stat()
            except OSError:
                continue
            start = _start_offset(st, cursors.get(str(path), state.NO_CURSOR), window_start, now)
            if start is not None:
                seen.files_total += 1
                seen.bytes_total += max(0, st.st_size - start)


def _turn_progress(progress: OnProgress | None, seen: Progress, report: PassReport):
    """Called after each turn of a file with the bytes read of it so far (a big transcript moves the bar too)."""
    if progress is None:
        return None
    base = report.bytes_read

    def after_turn(read: int) -> None:
        seen.bytes_done = min(seen.bytes_total, max(seen.bytes_done, base + read))
        seen.turns = report.banked
        progress(seen)

    return after_turn


def _start_offset(
    st: os.stat_result, cursor: state.Cursor, window_start: float, now: float, ended: bool = False
) -> int | None:
    """Where to read a transcript from, or None when there is nothing to read in it (``ended``: its Stop hook said
    the last turn ended, so an unchanged file is read again without waiting for the quiet rule)."""
    if not stat.S_ISREG(st.st_mode):
        return None  # a FIFO or a device named like a transcript would block or never end
    if st.st_mtime < window_start:
        return None  # not modified inside the backfill window: never read
    offset, size, mtime_ns, inode, updated_at = (
        cursor.offset,
        cursor.size,
        cursor.mtime_ns,
        cursor.inode,
        cursor.updated_at,
    )
    unchanged = size == st.st_size and mtime_ns == st.st_mtime_ns and inode == st.st_ino
    if unchanged:
        if offset >= st.st_size:
            return None
        # an open turn may settle through silence alone: look again once past each threshold
        mtime = st.st_mtime
        if not ended and not any(updated_at < mtime + wait <= now for wait in (QUIET_SECONDS, DROP_SECONDS)):
            return None
    if inode != st.st_ino or st.st_size < offset:
        offset = 0  # a new or rewritten file: banked keys keep this exactly-once
    return offset


def _bank_file(
    home,
    conn,
    harness,
    path,
    cursors,
    window_start,
    now,
    report,
    budget,
    stop=None,
    after_turn=None,
    ended: bool = False,
) -> int:
    """Bank what is new in one transcript; returns the bytes read. ``ended``: its Stop hook said the turn ended."""
    reader = READERS[harness]
    ended = ended and getattr(reader, "STOP_ENDS_TURN", False)
    key = str(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        return 0
    offset = _start_offset(st, cursors.get(key, state.NO_CURSOR), window_start, now, ended)
    if offset is None:
        return 0
    stream = reader.read_turns(path, start_offset=offset, now=now, **({"stopped": True} if ended else {}))
    report.files_read += 1
    settled_to = offset
    read_before_stop = 0
    stopped = False
    held_from: int | None = None  # the first turn another live pass holds: the cursor must not pass it
    for turn in stream:
        if ended and not turn.settled:
            report.waiting += 1  # Stop came, but the transcript does not show the turn's end yet (written async)
        if turn.settled:
            settled_to = max(settled_to, turn.end_offset)
        if turn.finished and not is_trivial(turn) and _turn_time(turn) >= window_start:
            if not _bank_turn(home, conn, turn, now, report) and held_from is None:
                held_from = turn.start_offset
        read_before_stop = turn.end_offset - offset
        if after_turn is not None:
            after_turn(read_before_stop)
        if budget is not None and read_before_stop > budget:
            stopped = True
            report.backlog = True
            break
        if stop is not None and stop():
            stopped = True
            report.interrupted = True
            break
    resume = settled_to if stopped else stream.resume_offset
    if held_from is not None:
        resume = min(resume, held_from)  # read that turn again next time, when its holder is done or gone
    bytes_read = read_before_stop if stopped else max(0, st.st_size - offset)
    report.bytes_read += bytes_read
    # a pass stopped early records size -1, so the next pass reads on from the settled offset
    again = stopped or held_from is not None  # size -1: the next pass reads on from `resume` even if nothing changed
    cursor = state.Cursor(resume, st.st_size if not again else -1, st.st_mtime_ns, st.st_ino, now)
    if report.written:
        from automem.store import sync_written

        sync_written(report.written)  # this transcript's entries on disk before its cursor moves past them
        report.written.clear()
    state.save_cursor(conn, key, harness, cursor)
    cursors[key] = cursor
    return bytes_read


def _index(home: Home, conn: Connection, path: Path) -> None:
    """Keep the search index current as we write (the mtime scan would catch it, only later)."""
    try:
        from automem.index.upsert import index_file

        index_file(path, home_root=str(home.root), conn=conn)
    except Exception as exc:  # noqa: BLE001 - the index is derived; `automem reindex` repairs it
        log_error("bank", f"indexing {path.name}: {type(exc).__name__}: {exc}")


def _unindex(home: Home, conn, path: Path) -> None:
    """Take an entry out of the index before it is rewritten: index.db keeps no copy of a bank entry's text, so
    its words are dropped exactly only while the file still holds them."""
    try:
        from automem.index.upsert import remove_file

        remove_file(path, home_root=str(home.root), conn=conn)
    except Exception as exc:  # noqa: BLE001 - the index is derived; `automem reindex` repairs it
        log_error("bank", f"unindexing {path.name}: {type(exc).__name__}: {exc}")


def _sweep_temp_files(home: Home, project: Project) -> None:
    """Temp files a killed pass (or any killed writer) left behind in the project."""
    from automem.store import sweep_temp_files

    sweep_temp_files(home, [project.slug])


def _turn_time(turn: Turn) -> float:
    from automem.isotime import iso_epoch

    return iso_epoch(turn.ended_at or turn.started_at, time.time())


def _alive(owner: str) -> bool:
    """Is the pass that reserved a turn (``<pid>@<time>``) still running?"""
    from automem.atomic import process_alive

    try:
        pid = int(owner.split("@", 1)[0])
    except ValueError:
        return True  # not one of ours to judge: its time limit decides
    return process_alive(pid)


def _bank_turn(home: Home, conn: Connection, turn: Turn, now: float, report: PassReport) -> bool:
    """Bank one finished turn; False only when another live pass holds it (the caller must read it again)."""
    key = turn.turn_key
    row = state.banked(conn, key)
    project = _project(home, report, turn.cwd or "")
    if row is not None and (turn.revision is None or row[1] == turn.revision) and not _left_empty(project, row[0]):
        return True
    me = f"{os.getpid()}@{now}"
    if not state.reserve(conn, key, me, now, RESERVATION_TTL):
        if _alive(state.reservation_owner(conn, key)):
            return False  # another live pass holds it
        state.take_over(conn, key, me, now)  # the pass that reserved it was killed before it could finish
    entry = render(turn)
    from automem.store import remove, write_markdown

    target = project.bank_dir / entry.file_name
    if project.slug not in report.projects:
        state.mark_dirty(conn, project.slug)  # before the first write: a kill from here on leaves it to finish
    if row is not None:
        _unindex(home, conn, project.dir / row[0])  # while the file still holds the text the index has of it
    if row is not None and row[0] != f"bank/{entry.file_name}":
        remove(project.dir / row[0], home=home)  # rewritten in place: one entry per key
    elif row is None and target.exists():
        _unindex(home, conn, target)
    # render redacted every part it took from the turn; the entries of a transcript are synced together
    write_markdown(target, entry.text, redacted_parts=True, sync=False)
    report.written.append(str(target))
    _index(home, conn, target)
    if turn.todos or turn.plan:
        write_state(project, turn, write_markdown)
    state.mark_banked(conn, key, project.slug, f"bank/{entry.file_name}", now, turn.revision)
    if row is None:
        report.banked += 1
    else:
        report.rewritten += 1
    report.per_harness[turn.harness] = report.per_harness.get(turn.harness, 0) + 1
    report.projects.add(project.slug)
    return True


def _project(home: Home, report: PassReport, cwd: str) -> Project:
    project = report.cwd_projects.get(cwd)
    if project is None:
        project = report.cwd_projects[cwd] = home.project_for_cwd(cwd)
    return project


def _left_empty(project: Project, rel: str) -> bool:
    """Is the banked entry there but empty? A transcript's entries are fsynced together before its cursor moves,
    so a power cut in between can leave one so (its key banked): the transcript is read again from the cursor,
    and the entry banked anew."""
    try:
        return (project.dir / rel).stat().st_size == 0
    except (OSError, ValueError):
        return False


def is_trivial(turn: Turn) -> bool:
    """The trivial-turn filter: no tool call and a result under 200 characters carries no durable signal.

    Antigravity entries are whole conversations and always banked.
    """
    return (
        turn.harness != "antigravity" and not turn.actions and len((turn.answer or "").strip()) < TRIVIAL_RESULT_CHARS
    )


def backfill(
    days: int, home: Home | None = None, harnesses: Iterable[str] | None = None, now: float | None = None
) -> None:
    """Widen the window to ``days``; a harness whose window grew reads every transcript once more (banked keys
    prevent repeats). A window already that wide keeps its cursors: a second backfill, or one run again after
    an interrupted one, goes on from where the last pass stopped instead of starting over."""
    home = (home or Home.current()).ensure()
    now = time.time() if now is None else now
    lock = _PassLock(home)
    lock.acquire(wait=True)  # a running pass would write its old cursors back over the reset ones
    conn = connect(home)
    try:
        for harness in harnesses or READERS:
            state.window_start(conn, harness, now, DEFAULT_BACKFILL_DAYS)
            state.widen_window(conn, harness, now - days * 86400)
    finally:
        conn.close()
        lock.release()


def _merge(total: PassReport, part: PassReport) -> None:
    total.banked += part.banked
    total.rewritten += part.rewritten
    total.files_seen += part.files_seen
    total.files_read += part.files_read
    total.bytes_read += part.bytes_read
    total.backlog = part.backlog
    total.interrupted = total.interrupted or part.interrupted
    total.waiting = part.waiting
    total.skipped = part.skipped
    total.projects |= part.projects
    for harness, count in part.per_harness.items():
        total.per_harness[harness] = total.per_harness.get(harness, 0) + count
    total.errors.extend(part.errors)


class _PassLock:
    """flock on bank.lock: held for the pass, released by the kernel if the process dies."""

    def __init__(self, home: Home) -> None:
        from automem.store import FileLock

        home.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.home = home
        self.lock = FileLock(home.state_dir / "bank.lock")
        self.note = home.state_dir / "bank.pending"

    def acquire(self, wait: bool) -> bool:
        return self.lock.acquire(wait)

    def release(self) -> None:
        self.lock.release()

    def leave_note(self) -> None:
        from automem.store import touch

        try:
            touch(self.note, home=self.home)
        except OSError:
            pass

    def note_left(self) -> bool:
        return self.note.exists()

    def clear_note(self) -> None:
        from automem.store import remove

        remove(self.note, home=self.home)

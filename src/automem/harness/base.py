"""Streaming machinery every JSONL transcript reader shares.

A transcript is read line by line from a byte offset (never whole into memory). A line without
its newline is still being written: reading stops before it and the cursor stays there. A line
that is not JSON (or nests too deep to parse) is skipped, and so is a line longer than
``MAX_LINE``: it is passed over in chunks without being held whole, so memory stays bounded by the
cap, not by the longest line. Turns come out in file order; the stream then knows the offset up
to which everything is settled, which is the start of the one turn still open (or the end of the
last complete line), so an incremental pass can resume there and re-read only that turn.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from automem.harness.model import (
    DROP_SECONDS,
    QUIET_SECONDS,
    RESULT_CAP,
    ToolAction,
    Turn,
    cap,
    small_input,
    summarize_input,
)

_loads = json.loads
MAX_LINE = 8 * 1024 * 1024  # bytes; a longer line (a pasted dump, a base64 image) is skipped as corrupt
SKIP_CHUNK = 1024 * 1024
_PARSE_ERRORS = (ValueError, RecursionError)  # RecursionError: a line nested thousands of levels deep


# files whose parsed lines are kept while share_records holds them: (st_dev, st_ino) -> the last whole read's
# (its file's signature, its records, where each record starts), or {} before the first
_SHARED: dict[tuple[int, int], dict] = {}


@contextmanager
def share_records(path: str | Path) -> Iterator[None]:
    """Within this block, a whole read of ``path`` is kept, and a later read of the file as it was then (same inode,
    size and mtime) is served from it, from any line on, instead of being parsed again. The detached worker banks a
    transcript and then extracts it: two reads of every line of the same file. The records are shared, so readers
    must not change them (none does: they copy what they keep). Nothing is kept after the block."""
    try:
        st = os.stat(path)
    except OSError:
        yield
        return
    key = (st.st_dev, st.st_ino)
    _SHARED[key] = {}
    try:
        yield
    finally:
        _SHARED.pop(key, None)


def _signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def iter_records(path: Path, start_offset: int = 0) -> Generator[tuple[int, int, Any], None, None]:
    """(offset, end offset, parsed JSON or None) per complete line from ``start_offset``.

    Stops before an unterminated last line (a writer is mid-line); yields None for a corrupt one
    and for one over ``MAX_LINE`` bytes, which is skipped to its newline without being parsed.
    """
    if _SHARED:
        try:
            before = _signature(os.stat(path))
        except OSError:
            before = None
        shared = _SHARED.get(before[:2]) if before else None
        if shared is not None:
            if shared.get("signature") == before and start_offset in shared["starts"]:
                records = shared["records"]
                yield from records[shared["starts"][start_offset] :]
                return
            if start_offset == 0:
                records = []
                for item in _read_records(path, 0):
                    records.append(item)
                    yield item
                try:
                    unchanged = _signature(os.stat(path)) == before  # unchanged while it was read: the read is the file
                except OSError:
                    unchanged = False
                if unchanged:
                    starts = {offset: i for i, (offset, _, _) in enumerate(records)}
                    shared.update(signature=before, records=records, starts=starts)
                return
    yield from _read_records(path, start_offset)


def _read_records(path: Path, start_offset: int) -> Generator[tuple[int, int, Any], None, None]:
    with open(path, "rb") as handle:
        if start_offset:
            handle.seek(start_offset)
        offset = start_offset
        while True:
            line = handle.readline(MAX_LINE)
            if not line:
                return
            if not line.endswith(b"\n"):
                if len(line) < MAX_LINE:
                    return  # the last line, still being written
                end = _skip_line(handle, offset + len(line))
                if end is None:
                    return  # an over-long line still being written: resume at its start
                yield offset, end, None
                offset = end
                continue
            end = offset + len(line)
            yield offset, end, _parse(line)
            offset = end


def _skip_line(handle, position: int) -> int | None:
    """Read past the rest of a line in chunks; the offset just after its newline, or None at EOF."""
    while True:
        chunk = handle.read(SKIP_CHUNK)
        if not chunk:
            return None
        newline = chunk.find(b"\n")
        if newline >= 0:
            end = position + newline + 1
            handle.seek(end)
            return end
        position += len(chunk)


def _parse(line: bytes) -> Any:
    try:
        return _loads(line)
    except _PARSE_ERRORS:
        return None


def read_first_record(path: Path) -> Any:
    """The first line of a file, parsed (session headers), or None."""
    try:
        with open(path, "rb") as handle:
            line = handle.readline(MAX_LINE)
    except OSError:
        return None
    if not line.endswith(b"\n"):
        return None
    return _parse(line)


def read_head_records(path: Path, count: int, limit: int) -> list[Any]:
    """The first ``count`` complete lines ending at or before byte ``limit``, parsed (None for a corrupt one)."""
    records: list[Any] = []
    try:
        stream = iter_records(path)
        for _, end, record in stream:
            if end > limit or len(records) == count:
                break
            records.append(record)
        stream.close()
    except OSError:
        return []
    return records


class OpenTurn:
    """A turn being assembled: the Turn plus what is needed to decide when it is finished."""

    __slots__ = ("turn", "pending", "by_id", "awaiting_model", "local_only")

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.pending: set[str] = set()
        self.by_id: dict[str, ToolAction] = {}
        self.awaiting_model = False  # a tool result came back and the model has not spoken since
        self.local_only = False

    def add_action(self, call_id: str | None, name: str, raw_input: Any) -> ToolAction:
        action = ToolAction(
            name=name or "tool",
            input_summary=summarize_input(raw_input),
            input=small_input(raw_input),
            call_id=call_id,
        )
        self.turn.actions.append(action)
        if call_id:
            self.pending.add(call_id)
            self.by_id[call_id] = action
        return action

    def action(self, call_id: Any) -> ToolAction | None:
        """The action a call id from a record names (None for no id, or one not seen)."""
        return self.by_id.get(call_id) if call_id else None

    def add_result(
        self, call_id: str | None, text: str, is_error: bool = False, exit_code: int | None = None
    ) -> ToolAction | None:
        action = self.by_id.get(call_id) if call_id else None
        if call_id:
            self.pending.discard(call_id)
        self.awaiting_model = True
        if action is None:
            return None
        action.result_text = cap(text, RESULT_CAP)
        action.is_error = bool(is_error) or action.is_error
        if exit_code is not None:
            action.exit_code = exit_code
        return action

    def model_spoke(self) -> None:
        self.awaiting_model = False

    def set_answer(self, text: str) -> None:
        if text and text.strip():
            self.turn.answer = text.strip()

    def close(self, reason: str, end_offset: int, ended_at: str | None, interrupted: bool = False) -> Turn:
        turn = self.turn
        turn.finished = True
        turn.finish_reason = reason
        turn.interrupted = turn.interrupted or interrupted
        turn.end_offset = end_offset
        if ended_at:
            turn.ended_at = ended_at
        return turn

    def settle_unbanked(self, reason: str, end_offset: int) -> Turn:
        turn = self.turn
        turn.finished = False
        turn.finish_reason = reason
        turn.end_offset = end_offset
        return turn

    def quiet_ready(self) -> bool:
        """An answer and nothing pending: the 5-minute quiet rule may finish it."""
        return bool(self.turn.answer) and not self.pending and not self.awaiting_model


class Parser:
    """Per-file state machine; subclasses turn records into turns.

    ``feed`` returns the turns that became settled with this record; ``current`` is the turn still
    open, if any; ``quiet_rule`` says whether silence may finish it.
    """

    quiet_rule = True
    wants_header = False
    header_records = 1  # how many leading lines ``header`` is given (a title line may precede the header)

    def __init__(self, path: Path) -> None:
        self.path = path
        self.current: OpenTurn | None = None
        self.skip_file = False

    def header(self, record: Any) -> None:  # each leading line, given before reading from a mid-file offset
        pass

    def feed(self, offset: int, end: int, record: Any) -> list[Turn]:
        raise NotImplementedError

    def quiet_allowed(self, open_turn: OpenTurn) -> bool:
        return self.quiet_rule


class TurnStream:
    """Iterate the turns of one transcript; afterwards ``resume_offset`` is where to start next time."""

    def __init__(
        self, parser: Parser, path: Path, start_offset: int = 0, now: float | None = None, stopped: bool = False
    ) -> None:
        self.parser = parser
        self.stopped = stopped  # the harness's Stop hook said the session's last turn ended (not continued)
        self.path = Path(path)
        self.start_offset = start_offset
        self.now = now
        self.resume_offset = start_offset
        self.bytes_read = 0
        self.corrupt_lines = 0  # lines that were not JSON, nested too deep, or over MAX_LINE
        self.done = False

    def __iter__(self) -> Iterator[Turn]:
        parser = self.parser
        last_end = self.start_offset
        if parser.skip_file:
            self.done = True
            return
        try:
            if self.start_offset and parser.wants_header:
                for first in read_head_records(self.path, parser.header_records, self.start_offset):
                    if first is not None:
                        parser.header(first)
            for offset, end, record in iter_records(self.path, self.start_offset):
                last_end = end
                if parser.skip_file:
                    continue
                if record is None:
                    self.corrupt_lines += 1
                    continue
                if not isinstance(record, dict):
                    continue
                settled = parser.feed(offset, end, record)
                if settled:
                    yield from settled
        except FileNotFoundError:
            self.resume_offset = self.start_offset
            self.done = True
            return
        self.bytes_read = last_end - self.start_offset
        open_turn = parser.current
        if open_turn is None or parser.skip_file:
            self.resume_offset = last_end
            self.done = True
            return
        silent_for = self._silent_for()
        turn = open_turn.turn
        if turn.end_offset < turn.start_offset:
            turn.end_offset = last_end
        if self.stopped and open_turn.quiet_ready():
            parser.current = None  # an answer, nothing pending, and Stop said so: finished now, not in 5 minutes
            self.resume_offset = last_end
            self.done = True
            yield open_turn.close("stop", last_end, turn.ended_at)
            return
        if parser.quiet_allowed(open_turn) and silent_for >= QUIET_SECONDS and open_turn.quiet_ready():
            parser.current = None
            self.resume_offset = last_end
            self.done = True
            yield open_turn.close("quiet", last_end, turn.ended_at)
            return
        if silent_for >= DROP_SECONDS:
            parser.current = None
            self.resume_offset = last_end
            self.done = True
            yield open_turn.settle_unbanked("dropped", last_end)
            return
        self.resume_offset = turn.start_offset
        self.done = True
        yield turn

    def _silent_for(self) -> float:
        now = time.time() if self.now is None else self.now
        try:
            mtime = os.stat(self.path).st_mtime
        except OSError:
            return 0.0
        return now - mtime


def env_home(env: Mapping[str, str] | None) -> tuple[Mapping[str, str], Path]:
    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    return env, Path(home)


def is_nested_session_file(path: Path) -> bool:
    """True for files inside a session's own folder (``<dir>/<session>/…/x.jsonl``): subagents."""
    for parent in list(path.parents)[:4]:
        sibling = parent.parent / (parent.name + ".jsonl")
        if parent.name and sibling.exists() and sibling != path:
            return True
    return False

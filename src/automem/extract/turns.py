"""Every turn of one transcript for the extractor, including what the banker leaves out on purpose.

The banker skips subagent files, inline sidechains and the history a forked pi session copied from
its parent, so a turn is banked once. A lesson, though, is often learnt inside a subagent, and a
transcript read alone (``automem extract --transcript``) has no parent to read: here the same
harness readers run with those skips turned off. Subagent prompts are delegations from the main
agent, not the user's words, so they are blanked (no feedback is read from them).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from automem.harness.base import TurnStream
from automem.harness.model import Turn

FAR_FUTURE = 1e12  # "now" for the quiet rule: a finished transcript's last turn counts as done


def guess_harness(path: Path) -> str:
    """claude-code | codex | pi | omp from the first lines of a transcript (its path says too little)."""
    try:
        with open(path, "rb") as handle:
            heads = [handle.readline() for _ in range(5)]
    except OSError:
        return "claude-code"
    for raw in heads:
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        kind = record.get("type")
        if kind == "title" and "pad" in record:
            return "omp"  # omp's fixed-width title slot, written before its pi-style session header
        if kind == "session" and ("cwd" in record or "branchedFrom" in record):
            return "pi"
        if kind in ("session_meta", "response_item", "event_msg", "turn_context") or "record_type" in record:
            return "codex"
        if kind in ("user", "assistant", "summary", "system") and ("sessionId" in record or "uuid" in record):
            return "claude-code"
        if "instructions" in record and "id" in record:
            return "codex"  # legacy codex header
        if kind == "message" and isinstance(record.get("message"), dict):
            return "pi"
    return "claude-code"


def read_all_turns(path: str | Path, harness: str | None = None) -> list[Turn]:
    path = Path(path)
    harness = harness or guess_harness(path)
    return list(_stream(path, harness))


def _track_remarks(parser):
    """Keep what the agent says between its tool calls, not only its last word.

    Readers keep one answer per turn (the latest text). The extractor also wants the agent's
    running commentary ("The issue was ...", "The fix is ...") and where it fell among the tool
    calls, so every new piece of answer text is recorded on the turn as ``remarks``: a list of
    (number of tool calls made before it, text).
    """
    original = parser.feed

    def feed(offset: int, end: int, record):
        open_turn = parser.current
        turn = open_turn.turn if open_turn is not None else None
        before = turn.answer if turn is not None else None
        calls = len(turn.actions) if turn is not None else 0
        out = original(offset, end, record)
        if turn is not None and turn.answer and turn.answer != before:
            new = turn.answer
            if before and new.startswith(before):
                new = new[len(before) :]  # a message written block by block: only the new block
            if new.strip():
                turn.remarks.append((calls, new.strip()))
        return out

    parser.feed = feed
    return parser


def _stream(path: Path, harness: str) -> Iterator[Turn]:
    if harness == "claude-code":
        parser = _claude_parser(path)
    elif harness == "pi" or harness == "omp":
        parser = _pi_parser(path, harness)
    elif harness == "codex":
        from automem.harness.codex import CodexParser

        parser = CodexParser(path)
        parser.skip_file = False
        original = parser._meta_or_header

        def meta(record: dict) -> bool:
            done = original(record)
            parser.skip_file = False  # a codex subagent rollout is read like any other
            return done

        parser._meta_or_header = meta  # type: ignore[method-assign]
    else:
        from automem.harness import READERS

        yield from READERS[harness].read_turns(path, now=FAR_FUTURE)
        return
    yield from TurnStream(_track_remarks(parser), path, 0, FAR_FUTURE)


def _claude_parser(path: Path):
    from automem.harness.claude_code import ClaudeCodeParser

    class AllTurns(ClaudeCodeParser):
        """Sidechain (subagent) work folds into the open turn; a subagent file becomes one turn."""

        def __init__(self, p: Path) -> None:
            super().__init__(p)
            self.skip_file = False

        def feed(self, offset: int, end: int, record: dict) -> list[Turn]:
            if record.get("type") == "queue-operation":
                content = record.get("content")
                if (
                    record.get("operation") == "enqueue"
                    and isinstance(content, str)
                    and content.strip()
                    and not content.lstrip().startswith("<")
                    and self.current is not None
                ):
                    self.current.turn.queued.append(content.strip()[:4000])
                return []
            if not record.get("isSidechain"):
                return super().feed(offset, end, record)
            record = {k: v for k, v in record.items() if k != "isSidechain"}
            if record.get("type") == "user":
                message = record.get("message")
                content = message.get("content") if isinstance(message, dict) else None
                has_result = isinstance(content, list) and any(
                    isinstance(b, dict) and b.get("type") == "tool_result" for b in content
                )
                if not has_result:
                    if self.current is None:
                        self._start(offset, record, "")  # a delegation: no user words in it
                    return []
            return super().feed(offset, end, record)

    return AllTurns(path)


def _pi_parser(path: Path, harness: str):
    from automem.harness.pi import PiParser

    base: type[PiParser] = PiParser
    if harness == "omp":
        from automem.harness.omp import OmpParser

        base = OmpParser

    class AllTurns(base):  # type: ignore[misc, valid-type]  # a base chosen at run time
        def __init__(self, p: Path) -> None:
            super().__init__(p)
            self.skip_file = False

        def _session(self, record: dict) -> None:
            super()._session(record)
            self.fork_cutoff = None  # read alone, the copied history is this transcript's own

    return AllTurns(path)

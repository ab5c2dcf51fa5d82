"""pi sessions: ``$PI_CODING_AGENT_DIR|~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl``.

Line 1 is a ``session`` header (version 1 has no ``version`` and no entry ids; version 3 has an
id/parentId tree). A turn starts at a ``user`` message and is finished when an assistant message
stops with ``stop``/``length``/``aborted`` (aborted = interrupted) or the next prompt arrives; an
``error`` stop waits, because a retry continues the turn; the 5-minute quiet rule covers a session
that exited.

Choices (documented, since streaming cannot see the final leaf of a v3 tree):
- entries are taken in file order; turns on branches the user later left are banked too, since
  that work did happen;
- a turn's id is the prompt's own millisecond timestamp (``message.timestamp``, else the entry
  timestamp), which survives pi's v1 -> v3 migration that rewrites the file and adds ids;
- a branched/forked session (header ``branchedFrom`` or ``parentSession``) copies its parent's
  entries with their original timestamps, so entries older than the header are skipped: they are
  banked once, from the parent;
- files inside a session's own folder (``<session>/…``) are subagent runs and are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from automem import regex_cache
from automem.harness.base import OpenTurn, Parser, TurnStream, env_home, is_nested_session_file
from automem.harness.model import ANSWER_CAP, PROMPT_CAP, Turn, block_text, cap
from automem.isotime import iso_utc

HARNESS = "pi"

_FINISH = {"stop": "stop", "length": "length", "aborted": "aborted"}
_EXIT = regex_cache.compile(r"(?:Command exited with code|Exit code:?) (-?\d+)")
_NAME_ID = regex_cache.compile(r"_([0-9a-fA-F-]{8,})\.jsonl$")


class PiParser(Parser):
    harness = HARNESS
    wants_header = True
    quiet_rule = True

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        match = _NAME_ID.search(path.name)
        self.session_id = match.group(1) if match else path.stem
        self.cwd: str | None = None
        self.model: str | None = None
        self.fork_cutoff: str | None = None
        self.title: str | None = None
        if is_nested_session_file(path):
            self.skip_file = True

    def header(self, record: Any) -> None:
        if isinstance(record, dict) and record.get("type") == "session":
            self._session(record)

    def _session(self, record: dict) -> None:
        if record.get("id"):
            self.session_id = str(record["id"])
        self.cwd = record.get("cwd") or self.cwd
        self.title = record.get("title") or self.title
        if record.get("modelId"):
            provider = record.get("provider")
            self.model = f"{provider}/{record['modelId']}" if provider else record["modelId"]
        if record.get("parentSession") or record.get("branchedFrom"):
            self.fork_cutoff = iso_utc(record.get("timestamp"))

    # -- turns -------------------------------------------------------------------------------
    def _start(self, offset: int, end: int, entry: dict, message: dict, text: str) -> list[Turn]:
        settled = self._close("next_prompt", offset, None) if self.current is not None else []
        stamp = message.get("timestamp")
        turn_id = (
            str(stamp)
            if isinstance(stamp, (int, float)) and not isinstance(stamp, bool)
            else (iso_utc(entry.get("timestamp")) or f"o{offset}")
        )
        ts = iso_utc(entry.get("timestamp")) or iso_utc(stamp)
        self.current = OpenTurn(
            Turn(
                harness=self.harness,
                session_id=self.session_id,
                turn_id=turn_id,
                prompt=cap(text, PROMPT_CAP),
                started_at=ts,
                ended_at=ts,
                cwd=self.cwd,
                model=self.model,
                start_offset=offset,
                end_offset=end,
                title=self.title,
            )
        )
        return settled

    def _close(self, reason: str, end: int, ts: str | None, interrupted: bool = False) -> list[Turn]:
        open_turn, self.current = self.current, None
        if open_turn is None:
            return []
        return [open_turn.close(reason, end, ts, interrupted)]

    def feed(self, offset: int, end: int, record: dict) -> list[Turn]:
        kind = record.get("type")
        if kind == "session":
            self._session(record)
            return []
        if self.fork_cutoff:
            ts = iso_utc(record.get("timestamp"))
            if ts is not None and ts < self.fork_cutoff:
                return []  # copied from the parent session
        if kind == "message":
            message = record.get("message")
            if isinstance(message, dict):
                return self._message(offset, end, record, message)
            return []
        if kind == "model_change":
            self._model_change(record)
        else:
            self.other_entry(record)
        return []

    def _model_change(self, record: dict) -> None:
        model = record.get("model")
        if isinstance(model, str) and model:
            self.model = model
        elif record.get("modelId"):
            provider = record.get("provider")
            self.model = f"{provider}/{record['modelId']}" if provider else record["modelId"]

    def other_entry(self, record: dict) -> None:
        """Entry types a derived harness (omp) may care about; pi ignores them."""

    def _message(self, offset: int, end: int, entry: dict, message: dict) -> list[Turn]:
        role = message.get("role")
        ts = iso_utc(entry.get("timestamp"))
        if role == "user":
            content = message.get("content")
            text = block_text(content).strip()
            if not text and content:
                text = "(image)"
            if not text:
                return []
            return self._start(offset, end, entry, message, text)
        open_turn = self.current
        if open_turn is None:
            return []
        turn = open_turn.turn
        turn.end_offset = end
        if ts:
            turn.ended_at = ts
        if role == "assistant":
            return self._assistant(end, ts, message)
        if role == "toolResult":
            text = block_text(message.get("content"))
            match = _EXIT.search(text[-200:]) if text else None
            exit_code = int(match.group(1)) if match else None
            open_turn.add_result(message.get("toolCallId"), text, bool(message.get("isError")), exit_code)
        elif role == "bashExecution":
            action = open_turn.add_action(None, "user-bash", {"command": message.get("command")})
            action.result_text = cap(str(message.get("output") or ""), 4000)
            code = message.get("exitCode")
            action.exit_code = code if isinstance(code, int) else None
            action.is_error = bool(message.get("cancelled")) or (action.exit_code not in (None, 0))
        return []

    def _assistant(self, end: int, ts: str | None, message: dict) -> list[Turn]:
        open_turn = self.current
        if open_turn is None:
            return []  # _message calls this only for an open turn
        turn = open_turn.turn
        if message.get("model"):
            provider = message.get("provider")
            model = message["model"]
            turn.model = f"{provider}/{model}" if provider and "/" not in model else model
        texts = []
        for block in message.get("content") or []:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif btype == "toolCall":
                name = block.get("name") or "tool"
                raw = block.get("arguments")
                open_turn.add_action(block.get("id"), name, raw)
                self.tool_call(name, raw)
        text = "\n".join(t for t in texts if t.strip())
        if text.strip():
            open_turn.set_answer(cap(text, ANSWER_CAP))
        open_turn.model_spoke()
        stop = message.get("stopReason")
        reason = _FINISH.get(stop) if isinstance(stop, str) else None
        if reason is None:
            return []  # toolUse continues; error waits for a retry
        open_turn.pending.clear()  # a stopped or aborted message leaves nothing running
        return self._close(reason, end, ts, interrupted=(reason == "aborted"))

    def tool_call(self, name: str, raw: Any) -> None:
        """Work state from tool calls: a todo tool's list."""
        if not isinstance(raw, dict) or "todo" not in name.lower():
            return
        todos = raw.get("todos") or raw.get("items")
        if isinstance(todos, list) and self.current is not None:
            self.current.turn.todos = [
                {
                    "content": str(t.get("content") or t.get("text") or t.get("title") or ""),
                    "status": str(t.get("status", "pending")),
                }
                for t in todos
                if isinstance(t, dict)
            ]


def agent_dir(env: Mapping[str, str] | None = None) -> Path:
    env, home = env_home(env)
    custom = env.get("PI_CODING_AGENT_DIR")
    return Path(custom) if custom else home / ".pi" / "agent"


def discover_in(agent: Path) -> list[Path]:
    """``sessions/<dir>/*.jsonl`` only: deeper files are subagent runs."""
    root = agent / "sessions"
    if not root.is_dir():
        return []
    return sorted(root.glob("*/*.jsonl"))


def discover(env: Mapping[str, str] | None = None) -> list[Path]:
    return discover_in(agent_dir(env))


def read_turns(path: str | Path, start_offset: int = 0, now: float | None = None) -> TurnStream:
    path = Path(path)
    return TurnStream(PiParser(path), path, start_offset, now)

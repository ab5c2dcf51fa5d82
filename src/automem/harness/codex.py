"""Codex CLI rollouts: ``$CODEX_HOME|~/.codex/{sessions,archived_sessions}/…/rollout-*.jsonl``.

Two formats: the envelope (``{"timestamp","type","payload"}``, since autumn 2025) and the legacy
one (a bare header line, then bare response items and ``record_type: state`` lines). User text
comes from ``event_msg/user_message`` in the envelope format (response-item user messages carry
injected context), and from user messages minus injected context in the legacy format.

A turn that Codex tracks (``task_started`` … ) is finished only by ``task_complete``; a
``turn_aborted`` turn is settled and never banked. Rollouts written before Codex persisted task
events (legacy, and 0.5x envelope files) have no such markers: there a turn ends at the next
prompt, and the last one by the quiet rule; this is our extension, since otherwise no turn of
those files could ever be banked. Subagent threads (``session_meta.source.subagent``) are skipped.
Exit codes come from ``exec_command_end``, else from the ``function_call_output`` text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from automem import regex_cache
from automem.harness.base import OpenTurn, Parser, TurnStream, env_home
from automem.harness.model import ANSWER_CAP, PROMPT_CAP, RESULT_CAP, Turn, block_text, cap
from automem.isotime import iso_utc

HARNESS = "codex"

_INJECTED = (
    "<user_instructions>",
    "<environment_context>",
    "# AGENTS.md instructions",
    "<turn_aborted>",
    "<user_shell_command>",
    "<INSTRUCTIONS>",
    "<permissions instructions>",
    "<subagent_notification>",
)
_EXIT_PREFIX = regex_cache.compile(r"^Exit code: (-?\d+)")
_CWD = regex_cache.compile(r"<cwd>(.*?)</cwd>", re.S)
_UUID = regex_cache.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$")


def _session_from_name(path: Path) -> str:
    match = _UUID.search(path.name)
    return match.group(1) if match else path.stem


def _parse_output(output: Any) -> tuple[str, int | None]:
    """Text and exit code of a function_call_output (JSON with metadata, or plain text)."""
    if isinstance(output, list):
        return block_text(output), None
    if isinstance(output, dict):
        text = output.get("output") or output.get("content") or ""
        meta = output.get("metadata") or {}
        return (text if isinstance(text, str) else block_text(text)), _int(meta.get("exit_code"))
    if not isinstance(output, str):
        return "", None
    stripped = output.lstrip()
    if stripped.startswith("{") and '"output"' in stripped[:200]:
        try:
            data = json.loads(stripped)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict):
            meta = data.get("metadata") or {}
            return str(data.get("output") or ""), _int(meta.get("exit_code"))
    match = _EXIT_PREFIX.match(output)
    if match:
        return output, int(match.group(1))
    if output.startswith(("Chunk ID:", "Wall time:", "Process exited")):
        # 0.171+: "Chunk ID / Wall time / Process exited with code N"
        from automem.capture.signals import strip_run_header

        return output, strip_run_header(output)[1]
    return output, None


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            return raw
    return raw


def _starts_turn(kind: Any, payload: dict) -> bool:
    ptype = payload.get("type")
    if kind == "event_msg":
        return ptype in ("user_message", "task_started")
    return kind == "response_item" and ptype == "message" and payload.get("role") == "user"


class CodexParser(Parser):
    wants_header = True

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.session_id = _session_from_name(path)
        self.cwd: str | None = None
        self.model: str | None = None
        self.header_ts: str | None = None
        self.envelope = False
        self.tracked = False  # the open turn was started by task_started
        self.task_id: str | None = None
        self.user_events = False  # event_msg/user_message seen (before 0.171 the prompt's source)

    # -- header ------------------------------------------------------------------------------
    def header(self, record: Any) -> None:
        if isinstance(record, dict):
            self._meta_or_header(record)

    def _meta_or_header(self, record: dict) -> bool:
        if record.get("type") == "session_meta" and isinstance(record.get("payload"), dict):
            self.envelope = True
            meta = record["payload"]
        elif "type" not in record and "record_type" not in record and "id" in record and "timestamp" in record:
            meta = record  # legacy header
        else:
            return False
        source = meta.get("source")
        if (isinstance(source, dict) and "subagent" in source) or (
            isinstance(source, str) and source.startswith("subagent")
        ):
            self.skip_file = True
        if meta.get("id"):
            self.session_id = str(meta["id"])
        self.cwd = meta.get("cwd") or self.cwd
        self.header_ts = iso_utc(meta.get("timestamp")) or iso_utc(record.get("timestamp")) or self.header_ts
        return True

    # -- turns -------------------------------------------------------------------------------
    def _open(self, offset: int, turn_id: str, ts: str | None, tracked: bool) -> OpenTurn:
        turn = Turn(
            harness=HARNESS,
            session_id=self.session_id,
            turn_id=turn_id,
            started_at=ts or self.header_ts,
            ended_at=ts or self.header_ts,
            cwd=self.cwd,
            model=self.model,
            start_offset=offset,
            end_offset=offset,
        )
        self.current = OpenTurn(turn)
        self.tracked = tracked
        return self.current

    def quiet_allowed(self, open_turn: OpenTurn) -> bool:
        return not self.tracked

    def _close_untracked(self, offset: int) -> list[Turn]:
        if self.current is None:
            return []
        open_turn, self.current = self.current, None
        if self.tracked:
            return [open_turn.settle_unbanked("abandoned", offset)]
        return [open_turn.close("next_prompt", offset, None)]

    def feed(self, offset: int, end: int, record: dict) -> list[Turn]:
        if "payload" in record and isinstance(record.get("payload"), dict):
            kind = record.get("type")
            payload = record["payload"]
            ts = iso_utc(record.get("timestamp"))
            self.envelope = True
        else:
            if record.get("record_type") is not None:
                return []
            kind = "response_item"
            payload = record
            ts = iso_utc(record.get("timestamp")) if "type" in record else None
        if kind == "session_meta" or (not self.envelope and "type" not in record):
            self._meta_or_header(record)
            return []
        if self.current is not None and ts and not _starts_turn(kind, payload):
            self.current.turn.ended_at = ts
        if kind == "turn_context":
            self.cwd = payload.get("cwd") or self.cwd
            self.model = payload.get("model") or self.model
            if self.current is not None:
                self.current.turn.cwd = self.cwd
                self.current.turn.model = self.model
            return []
        if kind == "event_msg":
            return self._event(offset, end, payload, ts)
        if kind == "response_item":
            return self._item(offset, end, payload, ts)
        return []

    def _event(self, offset: int, end: int, p: dict, ts: str | None) -> list[Turn]:
        etype = p.get("type")
        if etype == "task_started":
            settled = self._close_untracked(offset)
            self._open(offset, str(p.get("turn_id") or f"u{ts or offset}"), ts, tracked=True)
            return settled
        if etype == "user_message":
            self.user_events = True
            text = p["message"] if isinstance(p.get("message"), str) else ""
            return self._prompt(offset, text, ts, turn_id=f"u{ts or offset}")
        if etype == "item_completed" and isinstance(p.get("item"), dict):
            return self._completed(offset, p["item"], ts)
        if self.current is None:
            return []
        open_turn = self.current
        if etype == "task_complete":
            if not self.tracked:
                return []
            answer = p.get("last_agent_message")
            if isinstance(answer, str) and answer.strip():
                open_turn.set_answer(cap(answer, ANSWER_CAP))
            self.current = None
            return [open_turn.close("task_complete", end, ts)]
        if etype == "turn_aborted":
            self.current = None
            open_turn.turn.interrupted = True
            return [open_turn.settle_unbanked("turn_aborted", end)]
        if etype == "agent_message" and isinstance(p.get("message"), str):
            open_turn.set_answer(cap(p["message"], ANSWER_CAP))
            open_turn.model_spoke()
        elif etype == "exec_command_end":
            action = open_turn.action(p.get("call_id"))
            if action is not None:
                action.exit_code = _int(p.get("exit_code"))
                action.is_error = action.is_error or (action.exit_code not in (None, 0))
        return []

    def _completed(self, offset: int, item: dict, ts: str | None) -> list[Turn]:
        """Codex 0.171+: a finished item. A user message is the prompt (no user_message event is written any more);
        a command execution carries the exit code the function call's output only prints."""
        kind = item.get("type")
        if kind == "UserMessage" and not self.user_events:
            text = item["text"] if isinstance(item.get("text"), str) else block_text(item.get("content"))
            return self._prompt(offset, text, ts, turn_id=str(item.get("turn_id") or f"u{ts or offset}"))
        if kind == "CommandExecution" and self.current is not None:
            action = self.current.action(item.get("call_id") or item.get("id"))
            code = _int(item.get("exit_code"))
            if action is not None:
                action.exit_code = code if code is not None else action.exit_code
                action.is_error = action.is_error or item.get("status") == "failed" or code not in (None, 0)
                output = item.get("aggregated_output")
                if isinstance(output, str) and output and not action.result_text:
                    action.result_text = cap(output, RESULT_CAP)
        return []

    def _prompt(self, offset: int, text: str, ts: str | None, turn_id: str) -> list[Turn]:
        text = (text or "").strip()
        if not text or text.startswith(_INJECTED):
            return []
        if self.current is not None and self.tracked:
            if not self.current.turn.prompt:
                self.current.turn.prompt = cap(text, PROMPT_CAP)
                if ts:
                    self.current.turn.started_at = ts
            return []  # input typed while a task runs joins that task
        settled = self._close_untracked(offset)
        self._open(offset, turn_id, ts, tracked=False).turn.prompt = cap(text, PROMPT_CAP)
        return settled

    def _item(self, offset: int, end: int, p: dict, ts: str | None) -> list[Turn]:
        itype = p.get("type")
        if itype == "message":
            role = p.get("role")
            if role == "user":
                if self.envelope:
                    return []
                text = block_text(p.get("content"))
                if text.startswith("<environment_context>"):
                    match = _CWD.search(text)
                    if match:
                        self.cwd = match.group(1).strip()
                return self._prompt(offset, text, ts, turn_id=f"b{offset}")
            if role == "assistant" and self.current is not None:
                text = block_text(p.get("content"))
                if text.strip():
                    self.current.set_answer(cap(text, ANSWER_CAP))
                self.current.model_spoke()
                self.current.turn.end_offset = end
            return []
        if self.current is None:
            return []
        open_turn = self.current
        open_turn.turn.end_offset = end
        if itype in ("function_call", "custom_tool_call", "local_shell_call"):
            name = p.get("name") or itype
            raw = _arguments(p.get("arguments")) if itype == "function_call" else (p.get("input") or p.get("action"))
            open_turn.add_action(p.get("call_id") or p.get("id"), name, raw)
            open_turn.model_spoke()
            if name == "update_plan" and isinstance(raw, dict):
                self._plan(raw)
        elif itype in ("function_call_output", "custom_tool_call_output"):
            text, exit_code = _parse_output(p.get("output"))
            call_id = p.get("call_id")
            known = open_turn.action(call_id)
            if known is not None and known.exit_code is not None and exit_code is None:
                exit_code = known.exit_code
            is_error = exit_code not in (None, 0) or text.startswith(("error:", "tool call error", "failed in sandbox"))
            open_turn.add_result(call_id, text, is_error, exit_code)
        elif itype == "reasoning":
            open_turn.model_spoke()
        return []

    def _plan(self, raw: dict) -> None:
        if self.current is None:
            return
        turn = self.current.turn
        steps = raw.get("plan")
        if isinstance(steps, list):
            turn.todos = [
                {"content": str(s.get("step", "")), "status": str(s.get("status", "pending"))}
                for s in steps
                if isinstance(s, dict)
            ]
        if isinstance(raw.get("explanation"), str) and raw["explanation"].strip():
            turn.plan = cap(raw["explanation"], 8000)


def codex_home(env: Mapping[str, str] | None = None) -> Path:
    env, home = env_home(env)
    custom = env.get("CODEX_HOME")
    return Path(custom) if custom else home / ".codex"


def discover(env: Mapping[str, str] | None = None) -> list[Path]:
    """Rollouts in ``sessions/YYYY/MM/DD`` and ``archived_sessions``."""
    root = codex_home(env)
    found: list[Path] = []
    for sub in ("sessions", "archived_sessions"):
        base = root / sub
        if base.is_dir():
            found.extend(base.rglob("rollout-*.jsonl"))
    return sorted(found)


def read_turns(path: str | Path, start_offset: int = 0, now: float | None = None) -> TurnStream:
    path = Path(path)
    return TurnStream(CodexParser(path), path, start_offset, now)

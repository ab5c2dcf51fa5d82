"""Claude Code transcripts: ``$CLAUDE_CONFIG_DIR|~/.claude/projects/<slug>/<session>.jsonl``.

A turn starts at a real prompt (a ``user`` line that is not meta, not a compaction summary, not a
tool result, not a sidechain, not ``<bash-…>``/``<local-command…>``/caveat text). A slash command
(``<command-name>/x``) is a prompt ``/x args`` unless only local output follows it. The turn is
finished by a ``system/turn_duration`` record, the next real prompt, or an interrupt
(``[Request interrupted by user…]``); a plain ``end_turn`` is not enough because a Stop hook can
continue the turn, so the last turn waits for the 5-minute quiet rule, unless the Stop hook said the
turn ended (``stop_hook_active`` false: print mode, ``claude -p``, writes no ``turn_duration``). Sidechain lines (1.0.x,
inline) and ``subagents/`` files (2.x) are never read into turns. One API message split over
several lines (same ``message.id``) is joined into one answer; the CLI version may change mid-file
and is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from automem import regex_cache
from automem.harness.base import OpenTurn, Parser, TurnStream, env_home, is_nested_session_file
from automem.harness.model import ANSWER_CAP, PROMPT_CAP, Turn, block_text, cap
from automem.isotime import iso_utc

HARNESS = "claude-code"

INTERRUPT_PREFIX = "[Request interrupted by user"
_NOT_PROMPT_PREFIXES = (
    "<local-command",
    "<bash-",
    "Caveat:",
    "<task-notification",
    "<system-reminder>",
    "<user-prompt-submit-hook>",
)
_REJECTED = "The user doesn't want to proceed with this tool use"
_FEEDBACK_MARK = "the user said:\n"
_EXIT_CODE = regex_cache.compile(r"^\s*Exit code (-?\d+)")
_CMD_NAME = regex_cache.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_CMD_ARGS = regex_cache.compile(r"<command-args>(.*?)</command-args>", re.S)


def _command_prompt(text: str) -> str:
    name = _CMD_NAME.search(text)
    args = _CMD_ARGS.search(text)
    parts = [name.group(1).strip() if name else "/command"]
    if args and args.group(1).strip():
        parts.append(args.group(1).strip())
    return " ".join(parts)


class ClaudeCodeParser(Parser):
    quiet_rule = True

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.session_id = path.stem
        name = path.name
        if name.startswith("agent-") or "subagents" in path.parts or is_nested_session_file(path):
            self.skip_file = True
        self._last_message_id: str | None = None
        self._message_text: list[str] = []

    # -- helpers -----------------------------------------------------------------------------
    def _start(self, offset: int, record: dict, prompt: str) -> None:
        turn_id = record.get("uuid") or record.get("promptId") or f"t{record.get('timestamp') or offset}"
        ts = iso_utc(record.get("timestamp"))
        turn = Turn(
            harness=HARNESS,
            session_id=str(record.get("sessionId") or self.session_id),
            turn_id=str(turn_id),
            prompt=cap(prompt.strip(), PROMPT_CAP),
            started_at=ts,
            ended_at=ts,
            cwd=record.get("cwd"),
            start_offset=offset,
            end_offset=offset,
        )
        self.current = OpenTurn(turn)
        self._last_message_id = None
        self._message_text = []

    def _finish(self, reason: str, end: int, ts: str | None, interrupted: bool = False) -> list[Turn]:
        open_turn = self.current
        self.current = None
        if open_turn is None:
            return []
        if open_turn.local_only and not open_turn.turn.actions and not open_turn.turn.answer:
            return []  # a local slash command (/model, /clear…): no agent work, not a turn
        return [open_turn.close(reason, end, ts, interrupted)]

    # -- records -----------------------------------------------------------------------------
    def feed(self, offset: int, end: int, record: dict) -> list[Turn]:
        kind = record.get("type")
        if record.get("isSidechain"):
            return []
        if kind == "user":
            return self._user(offset, end, record)
        if kind == "assistant":
            self._assistant(end, record)
            return []
        if kind == "system":
            if record.get("subtype") == "turn_duration" and self.current is not None:
                return self._finish("turn_duration", end, iso_utc(record.get("timestamp")))
            return []
        return []

    def _user(self, offset: int, end: int, record: dict) -> list[Turn]:
        message = record.get("message")
        if not isinstance(message, dict):
            return []
        content = message.get("content")
        ts = iso_utc(record.get("timestamp"))
        blocks = content if isinstance(content, list) else []
        has_result = any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)
        if has_result:
            if self.current is not None:
                self._tool_results(blocks, record)
                self.current.turn.ended_at = ts or self.current.turn.ended_at
                self.current.turn.end_offset = end
            text = block_text(content)
            if INTERRUPT_PREFIX in text:
                return self._finish("interrupt", end, ts, interrupted=True)
            return []
        text = block_text(content).strip()
        if text.startswith(INTERRUPT_PREFIX):
            return self._finish("interrupt", end, ts, interrupted=True)
        if record.get("isMeta") or record.get("isCompactSummary") or record.get("isVisibleInTranscriptOnly"):
            return []
        if not text:
            return []
        if text.startswith("<local-command-stdout") or text.startswith("<local-command-stderr"):
            if self.current is not None and not self.current.turn.actions and not self.current.turn.answer:
                self.current.local_only = True
            return []
        if text.startswith(_NOT_PROMPT_PREFIXES):
            return []
        if text.startswith("<command-") or "<command-name>" in text[:300]:
            prompt = _command_prompt(text)
        else:
            prompt = text
        settled = self._finish("next_prompt", offset, None) if self.current is not None else []
        self._start(offset, record, prompt)
        return settled

    def _tool_results(self, blocks: list, record: dict) -> None:
        open_turn = self.current
        if open_turn is None:
            return  # results with no turn open: nothing to attach them to
        extra = record.get("toolUseResult")
        for block in blocks:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            text = block_text(block.get("content"))
            is_error = bool(block.get("is_error"))
            call_id = block.get("tool_use_id")
            action = open_turn.action(call_id)
            exit_code = None
            match = _EXIT_CODE.match(text) if is_error else None
            if match:
                exit_code = int(match.group(1))
            elif action is not None and action.name == "Bash" and not is_error:
                exit_code = 0
            if not text and isinstance(extra, dict):
                text = str(extra.get("stdout") or "")
            if is_error and _REJECTED in text:
                idx = text.find(_FEEDBACK_MARK)
                if idx >= 0:
                    feedback = text[idx + len(_FEEDBACK_MARK) :].strip()
                    if feedback:
                        open_turn.turn.rejections.append(cap(feedback, 2000))
            open_turn.add_result(call_id, text, is_error, exit_code)

    def _assistant(self, end: int, record: dict) -> None:
        open_turn = self.current
        if open_turn is None:
            return
        message = record.get("message")
        if not isinstance(message, dict):
            return
        turn = open_turn.turn
        turn.ended_at = iso_utc(record.get("timestamp")) or turn.ended_at
        turn.end_offset = end
        if record.get("cwd"):
            turn.cwd = record["cwd"]
        model = message.get("model")
        if model and model != "<synthetic>":
            turn.model = model
        message_id = message.get("id") or record.get("requestId") or record.get("uuid")
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            return
        spoke = False
        for block in content:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text":
                text = block.get("text") or ""
                if not text.strip():
                    continue
                if message_id != self._last_message_id:
                    self._last_message_id = message_id
                    self._message_text = []
                self._message_text.append(text.strip())
                open_turn.set_answer(cap("\n\n".join(self._message_text), ANSWER_CAP))
                spoke = True
            elif btype == "tool_use":
                name = block.get("name") or "tool"
                raw = block.get("input")
                open_turn.add_action(block.get("id"), name, raw)
                spoke = True
                self._work_state(name, raw)
            elif btype in ("thinking", "redacted_thinking"):
                spoke = True
        if spoke:
            open_turn.model_spoke()

    def _work_state(self, name: str, raw: Any) -> None:
        if not isinstance(raw, dict) or self.current is None:
            return
        turn = self.current.turn
        if name == "TodoWrite" and isinstance(raw.get("todos"), list):
            turn.todos = [
                {"content": str(t.get("content", "")), "status": str(t.get("status", "pending"))}
                for t in raw["todos"]
                if isinstance(t, dict)
            ]
        elif name == "ExitPlanMode" and isinstance(raw.get("plan"), str):
            turn.plan = cap(raw["plan"], 8000)


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    env, home = env_home(env)
    custom = env.get("CLAUDE_CONFIG_DIR")
    return Path(custom) if custom else home / ".claude"


def discover(env: Mapping[str, str] | None = None) -> list[Path]:
    """Main-session transcripts (``projects/<slug>/<uuid>.jsonl``); subagent files are left out."""
    root = config_dir(env) / "projects"
    if not root.is_dir():
        return []
    return sorted(p for p in root.glob("*/*.jsonl") if not p.name.startswith("agent-"))


STOP_ENDS_TURN = (
    True  # a Stop payload with stop_hook_active false ends the last turn (print mode writes no turn_duration)
)


def read_turns(path: str | Path, start_offset: int = 0, now: float | None = None, stopped: bool = False) -> TurnStream:
    """``stopped``: the Stop hook said the last turn ended, so an open turn with its answer is finished now."""
    path = Path(path)
    return TurnStream(ClaudeCodeParser(path), path, start_offset, now, stopped=stopped)

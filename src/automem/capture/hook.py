"""The one hook entry point: ``automem hook <Event> [--harness NAME]``, payload on stdin.

It never breaks a session: whatever happens it exits 0, prints nothing or a
single JSON object, and logs what it swallowed to log/automem.log. Capture
events (tool intents, tool results, prompts) are handled here with the
standard library only; events that need more of automem (the brief, the
detached extractor and banker) are routed by LATE_HANDLERS, whose loaders
import their handler only when such an event arrives.
"""

from __future__ import annotations

import json
import os
import sys
import time

from automem.capture import spool
from automem.capture.errlog import log_error
from automem.capture.intent import exit_code_of, response_text, summarize_input
from automem.capture.paths import automem_home
from automem.capture.switches import capture_enabled

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing into every hook call
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

    Handler: TypeAlias = Callable[[dict, str], "dict | None"]

SPOOL_VERSION = 1
MAX_STDIN_BYTES = 64 * 1024 * 1024
SCAN_LIMIT = 256 * 1024  # tool output scanned for errors: the head and the tail
PROMPT_SCAN_LIMIT = 64 * 1024  # a prompt scanned for feedback: its head and tail (a 50 MB paste costs no more)

CAPTURE_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit")

# Every event a harness may send us. Known events without a handler yet are quiet no-ops.
KNOWN_EVENTS = frozenset(
    CAPTURE_EVENTS
    + (
        "SessionStart",
        "SessionEnd",
        "Stop",
        "SubagentStop",
        "SubagentStart",
        "PreCompact",
        "PostCompact",
        "Notification",
        "PermissionRequest",
        "StopFailure",
        "PostToolBatch",
        "PermissionDenied",
        "Setup",
        "UserPromptExpansion",
        "Interrupt",
    )
)


# Each loader imports one late handler, a function taking (payload, harness) and returning a hook output dict or None,
# when its event arrives: a capture event pays for none of them.
def _stop() -> Handler:
    from automem.extract.trigger import on_stop

    return on_stop  # one detached worker: bank, then extract


def _subagent_stop() -> Handler:
    from automem.extract.trigger import on_subagent_stop

    return on_subagent_stop


def _session_start() -> Handler:
    from automem.session_hooks import on_session_start

    return on_session_start


def _user_prompt() -> Handler:
    from automem.session_hooks import on_user_prompt

    return on_user_prompt


# event -> the loader of its handler
LATE_HANDLERS: dict[str, Callable[[], Handler]] = {
    "Stop": _stop,
    "SessionEnd": _stop,
    "PreCompact": _stop,
    "SubagentStop": _subagent_stop,
    "SessionStart": _session_start,
    "UserPromptSubmit": _user_prompt,
}

REJECTION_MARK = "The user doesn't want to proceed with this tool use"
FEEDBACK_MARK = "the user said:"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        output = run(argv, _read_stdin())
        if output:
            # ASCII escapes: any stdout encoding (a Windows code page too) carries the whole object
            sys.stdout.write(json.dumps(output))
            sys.stdout.flush()
    except BaseException as exc:  # noqa: BLE001 - a hook must never fail the session
        _safe_log("hook", f"{type(exc).__name__}: {exc}")
    return 0


def run(argv: list[str], raw: bytes) -> dict | None:
    """Handle one hook call; raises only on bugs (main() logs those)."""
    event_arg, harness = _parse_args(argv)
    if not raw.strip():
        log_error("hook", f"empty payload on stdin for event {event_arg or '?'}")
        return None
    try:
        payload = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
        log_error("hook", f"payload is not JSON ({exc}) for event {event_arg or '?'}")
        return None
    if not isinstance(payload, dict):
        log_error("hook", f"payload is a JSON {type(payload).__name__}, not an object, for event {event_arg or '?'}")
        return None
    event = payload.get("hook_event_name") if isinstance(payload.get("hook_event_name"), str) else None
    event = event or event_arg
    if event not in KNOWN_EVENTS:
        log_error("hook", f"unknown event {str(event)[:80]!r}; ignored")
        return None
    if event in CAPTURE_EVENTS:
        capture(event, payload, harness)
    load = LATE_HANDLERS.get(event)
    if load is not None:
        return load()(payload, harness)
    return None


def capture(event: str, payload: dict, harness: str, home: str | None = None) -> list[dict]:
    """Turn one capture event into spool records and append them; returns the records."""
    home = home or automem_home()
    if not capture_enabled(home):
        return []
    session_id = payload.get("session_id")
    if not isinstance(session_id, str) or not session_id.strip():
        log_error("hook", f"{event} payload has no session_id; nothing captured", home=home)
        return []
    base = {
        "v": SPOOL_VERSION,
        "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "event": event,
        "harness": harness,
        "session_id": session_id,
    }
    cwd = payload.get("cwd")
    if isinstance(cwd, str):
        base["cwd"] = cwd
    for key in ("tool_use_id", "prompt_id", "turn_id", "agent_id"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            base[key] = value
    if event == "UserPromptSubmit":
        records = _prompt_records(payload)
    elif event == "PreToolUse":
        records = _intent_records(payload)
    else:
        records = _result_records(event, payload)
    records = [_redacted({**base, **record}) for record in records]
    spool.append(session_id, records, home)
    return records


def _intent_records(payload: dict) -> list[dict]:
    tool = _tool_name(payload)
    return [{"kind": "tool", "tool": tool, "input": summarize_input(tool, payload.get("tool_input"))}]


def _result_records(event: str, payload: dict) -> list[dict]:
    from automem.capture.signals import classify_result, detect_errors, strip_run_header

    tool = _tool_name(payload)
    command = summarize_input(tool, payload.get("tool_input"))
    response = payload.get("tool_response")
    if event == "PostToolUseFailure":
        response = payload.get("error", response)
    text = response_text(response)
    if REJECTION_MARK in text:
        feedback = text.split(FEEDBACK_MARK, 1)[1].strip() if FEEDBACK_MARK in text else ""
        record = {"kind": "rejection", "tool": tool, "input": command, "feedback": feedback}
        if feedback:
            from automem.capture.feedback import detect_feedback

            # the user's words on a rejected call are the richest correction there is: classify them too
            kinds = [item["feedback"] for item in detect_feedback(feedback)]
            record["feedback_kind"] = kinds[0] if kinds else "correction"
        return [record]
    if payload.get("is_interrupt") is True or (isinstance(response, dict) and response.get("interrupted") is True):
        return [{"kind": "interrupt", "tool": tool, "input": command}]
    exit_code = exit_code_of(response, text)
    marked = event == "PostToolUseFailure" or _marked_error(response)
    scanned = text if len(text) <= SCAN_LIMIT else text[: SCAN_LIMIT // 2] + "\n" + text[-SCAN_LIMIT // 2 :]
    failed, errors = classify_result(command, scanned, is_error=marked, exit_code=exit_code)
    if not marked and exit_code is None and not failed:
        errors = detect_errors(strip_run_header(scanned)[0])  # no status at all: the output itself may show a failure
    records: list[dict] = [
        {"kind": "result", "tool": tool, "input": command, "ok": not failed and not errors, "exit_code": exit_code}
    ]
    for err in errors:
        records.append({"kind": "error", "tool": tool, "input": command, **err})
    return records


def _prompt_records(payload: dict) -> list[dict]:
    from automem.capture.feedback import detect_feedback

    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return []
    if len(prompt) > PROMPT_SCAN_LIMIT:
        prompt = prompt[: PROMPT_SCAN_LIMIT // 2] + "\n" + prompt[-PROMPT_SCAN_LIMIT // 2 :]
    if prompt.lstrip().startswith("[Request interrupted by user"):
        return [{"kind": "interrupt", "tool": ""}]
    return [{"kind": "feedback", **item} for item in detect_feedback(prompt)]


def _tool_name(payload: dict) -> str:
    name = payload.get("tool_name")
    return name if isinstance(name, str) else ""


def _marked_error(response: object) -> bool:
    if isinstance(response, dict):
        return response.get("is_error") is True or response.get("isError") is True or response.get("success") is False
    return False


def _redacted(record: dict) -> dict:
    from automem.redact.fast import redact_fast

    return {k: redact_fast(v) if isinstance(v, str) else v for k, v in record.items()}


def _parse_args(argv: list[str]) -> tuple[str | None, str]:
    event = None
    harness = os.environ.get("AUTOMEM_HARNESS") or "claude-code"
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--harness" and i + 1 < len(argv):
            harness = argv[i + 1]
            i += 2
            continue
        if arg.startswith("--harness="):
            harness = arg.split("=", 1)[1]
        elif not arg.startswith("-") and event is None:
            event = arg
        i += 1
    return event, harness


def _read_stdin() -> bytes:
    stream = sys.stdin
    if stream is None or stream.closed:
        return b""
    try:
        if stream.isatty():
            return b""
        return stream.buffer.read(MAX_STDIN_BYTES)
    except (OSError, ValueError, AttributeError):
        return b""


def _safe_log(where: str, message: str) -> None:
    try:
        log_error(where, message)
    except BaseException:  # noqa: BLE001
        pass


if __name__ == "__main__":
    sys.exit(main())

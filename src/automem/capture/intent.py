"""Short summaries of what a tool was asked to do and what it gave back."""

from __future__ import annotations

import json
import re

MAX_SUMMARY = 300
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)
_PATH_KEYS = ("file_path", "path", "notebook_path", "filePath")


def summarize_input(tool_name: str, tool_input: object) -> str:
    """The Bash command, the file path, the pattern: what a reader needs to recognise the call."""
    if isinstance(tool_input, str):
        # Codex apply_patch (freeform) and some MCP tools pass a bare string
        files = _PATCH_FILE.findall(tool_input)
        return _cap(", ".join(files) if files else tool_input)
    if not isinstance(tool_input, dict):
        return ""
    command = tool_input.get("command") or tool_input.get("cmd")
    if isinstance(command, list):  # Codex <= 0.5x: ["bash", "-lc", "npm test"]
        command = (
            command[-1] if len(command) >= 3 and command[0] in ("bash", "sh", "zsh") else " ".join(map(str, command))
        )
    if isinstance(command, str) and command.strip():
        return _cap(command.strip())
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return _cap(value)
    patch = tool_input.get("input") or tool_input.get("patch")
    if isinstance(patch, str) and "*** " in patch:
        return _cap(", ".join(_PATCH_FILE.findall(patch)))
    for key in ("pattern", "url", "query", "description", "prompt", "skill"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return _cap(f"{key}: {value}")
    try:
        return _cap(json.dumps(tool_input, ensure_ascii=False, sort_keys=True, default=str))
    except (TypeError, ValueError, RecursionError):
        return ""


def _cap(text: str) -> str:
    """Redact, then cut: a secret straddling the cut would otherwise leave a tail no rule recognises."""
    from automem.redact.fast import redact_fast

    text = redact_fast(text[: MAX_SUMMARY * 8])
    text = " ".join(text.split()) if "\n" not in text[:MAX_SUMMARY] else text.strip()
    return text if len(text) <= MAX_SUMMARY else text[: MAX_SUMMARY - 1] + "…"


def response_text(response: object, limit: int = 200_000) -> str:
    """The text of a tool result, whatever its shape (string, Bash dict, content blocks)."""
    if response is None:
        return ""
    if isinstance(response, str):
        return response[:limit]
    if isinstance(response, list):
        parts = []
        for block in response:
            if isinstance(block, dict):
                text = block.get("text")
                if isinstance(text, str):
                    parts.append(text)
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)[:limit]
    if isinstance(response, dict):
        parts = []
        for key in ("stdout", "stderr", "output", "aggregated_output", "error", "content", "result", "message"):
            value = response.get(key)
            if isinstance(value, str) and value:
                parts.append(value)
            elif isinstance(value, list):
                parts.append(response_text(value, limit))
        return "\n".join(parts)[:limit]
    return ""


def exit_code_of(response: object, text: str = "") -> int | None:
    """The exit code a tool reported, from its fields or an ``Exit code N`` first line."""
    if isinstance(response, dict):
        for key in ("exit_code", "exitCode", "returncode", "return_code", "code"):
            value = response.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        metadata = response.get("metadata")
        if isinstance(metadata, dict) and isinstance(metadata.get("exit_code"), int):
            return metadata["exit_code"]
    match = re.match(r"\s*Exit code:? (-?\d+)", text)
    if match:
        return int(match.group(1))
    return None

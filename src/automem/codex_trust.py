"""Codex runs a user's hooks only once they are trusted; which automem hooks it will skip, and how to trust them.

Codex (0.12x and later) keys each configured hook handler as
``<hooks.json path>:<event in snake_case>:<group index>:<handler index>`` and runs a
non-managed one only when ``config.toml`` holds ``[hooks.state."<key>"]`` with a
``trusted_hash`` equal to the hash of the handler as configured now (``sha256:<hex>``).
The TUI writes that entry when the user trusts the hook in its ``/hooks`` review;
``codex exec`` never asks, so an untrusted hook is skipped silently.

The hash is Codex's own (a digest of its normalized TOML form of the handler), so it is
read from the binary: ``codex app-server`` answers ``hooks/list`` with every hook's
``key``, ``currentHash`` and ``trustStatus``. Without the binary we can still tell a hook
that was never reviewed (no ``trusted_hash`` at all) from one that was.

Standard library only (install.py and doctor use it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

EVENT_KEYS = {
    "PreToolUse": "pre_tool_use",
    "PostToolUse": "post_tool_use",
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "Stop": "stop",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "PermissionRequest": "permission_request",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "StopFailure": "stop_failure",
}
_OURS = re.compile(r"(?:^|[/\\\s\"'])automem(?:\.exe)?\"?\s+hook\s|automem-hook")


def _snake(event: str) -> str:
    return EVENT_KEYS.get(event) or re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def automem_hooks(hooks_path: Path) -> list[dict]:
    """automem's handlers in a Codex hooks.json: [{key, event, command}], keys as Codex forms them."""
    try:
        data = json.loads(Path(hooks_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    events = data.get("hooks") if isinstance(data, dict) else None
    out = []
    source = str(Path(os.path.abspath(hooks_path)))
    for event, groups in (events or {}).items() if isinstance(events, dict) else ():
        for gi, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for hi, handler in enumerate(handlers if isinstance(handlers, list) else []):
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str) and _OURS.search(command):
                    out.append({"key": f"{source}:{_snake(event)}:{gi}:{hi}", "event": event, "command": command})
    return out


def trusted_hashes(config_path: Path) -> dict[str, str]:
    """``hooks.state."<key>".trusted_hash`` of a config.toml (a file that is missing or broken has none)."""
    import tomllib

    try:
        data = tomllib.loads(Path(config_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    state = (data.get("hooks") or {}).get("state") if isinstance(data.get("hooks"), dict) else None
    return {
        k: v["trusted_hash"]
        for k, v in (state or {}).items()
        if isinstance(v, dict) and isinstance(v.get("trusted_hash"), str)
    }


def codex_hook_list(
    codex: str | None = None, cwd: Path | None = None, env: dict | None = None, timeout: float = 20.0
) -> list[dict] | None:
    """What the Codex binary itself reports (``codex app-server``, ``hooks/list``); None when it cannot be asked."""
    codex = codex or shutil.which("codex", path=(env or os.environ).get("PATH"))
    if not codex:
        return None
    cwd = Path(cwd or Path.cwd())
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "automem", "version": "1"}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
    ]
    try:
        proc = subprocess.Popen(
            [codex, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            text=True,
        )
    except OSError:
        return None
    result: list = []

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("id") == 2:
                result.append(message.get("result"))
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        reader.join(timeout)
    except OSError:
        pass
    finally:
        try:
            proc.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
    if not result or not isinstance(result[0], dict):
        return None
    hooks = [h for entry in result[0].get("data") or [] for h in entry.get("hooks") or []]
    return [h for h in hooks if isinstance(h, dict)]


def review(hooks_path: Path, config_path: Path, listed: list[dict] | None = None) -> list[dict]:
    """Each automem hook with its trust: [{key, event, command, status, hash?}].

    status: trusted | untrusted | modified (trusted once, changed since) | unverified (a
    trusted_hash is there but no Codex binary was asked to compare it).
    """
    ours = automem_hooks(hooks_path)
    trusted = trusted_hashes(config_path)
    by_key = {h.get("key"): h for h in listed or []}
    out = []
    for hook in ours:
        seen = by_key.get(hook["key"])
        if seen is not None:
            status = {"trusted": "trusted", "modified": "modified", "managed": "trusted"}.get(
                str(seen.get("trustStatus")).lower(), "untrusted"
            )
            out.append({**hook, "status": status, "hash": seen.get("currentHash")})
        else:
            out.append({**hook, "status": "unverified" if hook["key"] in trusted else "untrusted"})
    return out


def trust_toml(reviewed: list[dict]) -> str:
    """The config.toml lines that trust these hooks (what the TUI's /hooks review writes), for hooks with a hash."""
    blocks = [
        f"[hooks.state.{json.dumps(h['key'])}]\ntrusted_hash = {json.dumps(h['hash'])}\n"
        for h in reviewed
        if h.get("hash")
    ]
    return "\n".join(blocks)


def how_to_trust(reviewed: list[dict], config_path: Path) -> str:
    """Exactly what a user does so Codex runs the automem hooks it now skips."""
    pending = [h for h in reviewed if h["status"] in ("untrusted", "modified")]
    if not pending:
        return ""
    events = ", ".join(sorted({h["event"] for h in pending}))
    text = (
        f"Codex skips hooks it has not been told to trust, and `codex exec` never asks. Start the Codex TUI "
        f"(`codex`), type /hooks, and trust the {len(pending)} automem hooks ({events}); "
        f'the review writes `[hooks.state."<key>"] trusted_hash = ...` into {config_path}.'
    )
    snippet = trust_toml(pending)
    if snippet:
        text += f" Or append these lines to {config_path} yourself:\n{snippet}"
    return text

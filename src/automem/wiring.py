"""Where the harnesses keep their hook settings, and how automem's entries go in and out.

Standard library only: install.py imports this file by path before the
package (or any dependency) is installed, and `automem status` / `doctor`
read the same settings through it, so there is one implementation of "which
events point at automem".

Editing rules: automem's handlers are recognised by their command (the
`automem` console script followed by `hook`), everything else in the file is
kept as it was (other groups, other handlers in our group, unknown keys, key
order), and the file is written back in its own style (indent, trailing
newline, non-ASCII kept as is).
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CLAUDE_EVENTS",
    "CODEX_EVENTS",
    "EventSpec",
    "JsonStyle",
    "SettingsError",
    "add_hooks",
    "automem_events",
    "claude_config_dir",
    "claude_settings_path",
    "codex_home",
    "codex_hooks_path",
    "codex_present",
    "command_target",
    "detect_style",
    "dump_settings",
    "git_toplevel",
    "hook_command",
    "is_automem_command",
    "load_settings",
    "remove_hooks",
]


@dataclass(frozen=True)
class EventSpec:
    """One hook event as automem wires it: matcher (None = no matcher key), timeout, async."""

    event: str
    matcher: str | None
    timeout: int
    run_async: bool = False


# Claude Code (HARNESSES.md 1.2-1.5, DESIGN.md hook table). Capture prints nothing, so it runs async;
# UserPromptSubmit will return additionalContext, so it must not be async.
CLAUDE_EVENTS: tuple[EventSpec, ...] = (
    EventSpec("PreToolUse", "*", 10, True),
    EventSpec("PostToolUse", "*", 10, True),
    EventSpec("PostToolUseFailure", "*", 10, True),
    EventSpec("UserPromptSubmit", None, 10),
    EventSpec("SessionStart", "startup|resume|clear|compact", 15),
    EventSpec("Stop", None, 10),
    EventSpec("SubagentStop", None, 10),
    EventSpec("SessionEnd", None, 5),
    EventSpec("PreCompact", None, 10),
)

# Codex (HARNESSES.md 5): no async, and its matcher is a Rust regex where "*" is not "all", so
# tool events carry no matcher (omitted = every tool).
CODEX_EVENTS: tuple[EventSpec, ...] = (
    EventSpec("SessionStart", "startup|resume|clear", 15),
    EventSpec("UserPromptSubmit", None, 10),
    EventSpec("PreToolUse", None, 10),
    EventSpec("PostToolUse", None, 10),
    EventSpec("PreCompact", None, 10),
    EventSpec("Stop", None, 10),
)


class SettingsError(ValueError):
    """A settings file automem cannot edit safely; the message names the file and the line."""


# ---------------------------------------------------------------- locations


def _home() -> Path:
    return Path(os.path.expanduser("~"))


def claude_config_dir() -> Path:
    """~/.claude, or CLAUDE_CONFIG_DIR when set (it relocates the whole folder)."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(os.path.expanduser(env)) if env else _home() / ".claude"


def claude_settings_path(scope: str = "user", project: Path | None = None) -> Path:
    if scope == "project":
        return Path(project or Path.cwd()) / ".claude" / "settings.json"
    return claude_config_dir() / "settings.json"


def codex_home() -> Path:
    env = os.environ.get("CODEX_HOME")
    return Path(os.path.expanduser(env)) if env else _home() / ".codex"


def codex_hooks_path(scope: str = "user", project: Path | None = None) -> Path:
    if scope == "project":
        return Path(project or Path.cwd()) / ".codex" / "hooks.json"
    return codex_home() / "hooks.json"


def codex_present() -> bool:
    """Codex counts as installed when its home exists or `codex` is on PATH."""
    import shutil

    return codex_home().is_dir() or shutil.which("codex") is not None


def git_toplevel(cwd: Path | None = None) -> Path:
    """The git top-level of cwd (what --scope project wires), else cwd itself."""
    here = Path(cwd or Path.cwd())
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], cwd=here, capture_output=True, text=True, timeout=10
        )
        if out.returncode == 0 and out.stdout.strip():
            return Path(out.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return here


# ---------------------------------------------------------------- commands


def hook_command(automem_path: str | os.PathLike, event: str, harness: str | None = None) -> str:
    """`'<abs automem>' hook <Event> [--harness codex]`, quoted for the shell."""
    command = f"{shlex.quote(str(automem_path))} hook {event}"
    if harness and harness != "claude-code":
        command += f" --harness {harness}"
    return command


def _split(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def is_automem_command(command: object) -> bool:
    """True for `<...>/automem hook <Event> ...`: the handlers automem writes, from any install path."""
    if not isinstance(command, str):
        return False
    parts = _split(command)
    if len(parts) < 2 or parts[1] != "hook":
        return False
    name = parts[0].replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name in ("automem", "automem.exe")


def command_target(command: str) -> str:
    """The program a hook command runs (the first shell word)."""
    parts = _split(command)
    return parts[0] if parts else ""


# ---------------------------------------------------------------- reading and writing JSON


@dataclass(frozen=True)
class JsonStyle:
    indent: str | int = 2
    trailing_newline: bool = True


def detect_style(text: str) -> JsonStyle:
    """The file's own indentation (tab, or N spaces) and whether it ends with a newline."""
    indent: str | int = 2
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if not stripped or line == stripped:
            continue
        lead = line[: len(line) - len(stripped)]
        indent = "\t" if lead.startswith("\t") else len(lead)
        break
    return JsonStyle(indent=indent, trailing_newline=text.endswith("\n") if text else True)


def load_settings(path: Path) -> tuple[dict, str | None]:
    """(parsed settings, original text); ({}, None) when the file does not exist.

    Raises SettingsError, naming the file and line, for invalid JSON or a
    shape automem would have to guess about.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{path}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}. "
            "Fix or move the file, then run again; automem left it untouched."
        ) from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: expected a JSON object at the top, found {type(data).__name__}")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise SettingsError(f'{path}: "hooks" is a {type(hooks).__name__}, expected an object')
    for event, groups in (hooks or {}).items():
        if not isinstance(groups, list):
            raise SettingsError(f'{path}: "hooks"."{event}" is a {type(groups).__name__}, expected a list')
    return data, text


def dump_settings(data: dict, style: JsonStyle) -> str:
    text = json.dumps(data, indent=style.indent, ensure_ascii=False)
    return text + "\n" if style.trailing_newline else text


# ---------------------------------------------------------------- editing


def _handler(command: str, spec: EventSpec) -> dict:
    handler: dict = {"type": "command", "command": command, "timeout": spec.timeout}
    if spec.run_async:
        handler["async"] = True
    return handler


def _is_ours(handler: object) -> bool:
    return isinstance(handler, dict) and is_automem_command(handler.get("command"))


def add_hooks(data: dict, specs: tuple[EventSpec, ...], automem_path: str, harness: str | None = None) -> dict:
    """A copy of ``data`` with exactly one automem handler per event in ``specs``.

    An existing automem handler in a group with the right matcher is updated
    in place (so a second run changes nothing and other tools' entries keep
    their positions); stray automem handlers elsewhere are removed; a new
    group is appended only when none fits.
    """
    out = copy.deepcopy(data)
    for spec in specs:
        wanted = _handler(hook_command(automem_path, spec.event, harness), spec)
        if out.get("hooks") is None:  # absent, or a valid but empty `"hooks": null`
            out["hooks"] = {}
        hooks = out["hooks"]
        if hooks.get(spec.event) is None:
            hooks[spec.event] = []
        groups = hooks[spec.event]
        placed = False
        kept_groups = []
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                kept_groups.append(group)
                continue
            handlers = group["hooks"]
            if not any(_is_ours(h) for h in handlers):
                kept_groups.append(group)
                continue
            new_handlers = []
            for h in handlers:
                if not _is_ours(h):
                    new_handlers.append(h)
                elif not placed and group.get("matcher") == spec.matcher:
                    new_handlers.append(wanted)
                    placed = True
            if new_handlers:
                group["hooks"] = new_handlers
                kept_groups.append(group)
        if not placed:
            group = {"matcher": spec.matcher, "hooks": [wanted]} if spec.matcher is not None else {"hooks": [wanted]}
            kept_groups.append(group)
        hooks[spec.event] = kept_groups
    return out


def remove_hooks(data: dict) -> dict:
    """A copy of ``data`` without automem's handlers.

    A matcher group, an event key or the "hooks" key disappears only when it
    became empty because an automem handler was taken out of it.
    """
    out = copy.deepcopy(data)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        removed_any = False
        for group in groups:
            if (
                isinstance(group, dict)
                and isinstance(group.get("hooks"), list)
                and any(_is_ours(h) for h in group["hooks"])
            ):
                removed_any = True
                rest = [h for h in group["hooks"] if not _is_ours(h)]
                if rest:
                    group["hooks"] = rest
                    kept.append(group)
            else:
                kept.append(group)
        if removed_any and not kept:
            del hooks[event]
        else:
            hooks[event] = kept
    if not hooks and "hooks" in data and data["hooks"]:
        del out["hooks"]
    return out


def automem_events(data: dict) -> dict[str, list[dict]]:
    """event -> automem handlers wired for it (with their group's matcher), for status and doctor."""
    found: dict[str, list[dict]] = {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            for h in group["hooks"]:
                if _is_ours(h):
                    found.setdefault(event, []).append({**h, "matcher": group.get("matcher")})
    return found

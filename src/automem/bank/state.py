"""state/<harness>--<session>.md: a session's latest todos, plan and last 10 checkpoints.

Rewritten only when its content changes, never deleted. A checkpoint is a
banked turn that changed the todos or the plan (when, and the turn's title),
so a reader sees how the work state moved.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from automem.bank.entry import title_of
from automem.harness.model import Turn
from automem.home import Project
from automem.markdown import flow_list, quote

MAX_CHECKPOINTS = 10
_MARKS = {
    "completed": "x",
    "done": "x",
    "in_progress": "~",
    "in-progress": "~",
    "blocked": "!",
    "abandoned": "-",
    "cancelled": "-",
    "canceled": "-",
    "pending": " ",
}


def write_state(project: Project, turn: Turn, write: Callable[[Path, str], object]) -> bool:
    path = project.state_file(turn.harness, turn.session_id)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    old_todos, old_plan, checkpoints = _sections(old)
    todos = _todo_lines(turn.todos) if turn.todos is not None else old_todos
    plan = (turn.plan or "").strip() if turn.plan else old_plan
    when = turn.ended_at or turn.started_at or ""
    point = f"- {when} — {title_of(turn)}"
    if point not in checkpoints:
        checkpoints = (checkpoints + [point])[-MAX_CHECKPOINTS:]
    kinds = [
        k
        for k, present in (("todos", bool(todos)), ("plan", bool(plan)), ("checkpoints", bool(checkpoints)))
        if present
    ]
    text = "\n".join(
        [
            "---",
            f"harness: {quote(turn.harness, ascii_only=True)}",
            f"session_id: {quote(turn.session_id, ascii_only=True)}",
            f"cwd: {quote(turn.cwd or '')}",
            f"updated: {quote(when, ascii_only=True)}",
            f"kinds: {flow_list(kinds)}",
            "---",
            "",
            "## Todos",
            "",
            *(todos or ["(none)"]),
            "",
            "## Plan",
            "",
            plan or "(none)",
            "",
            "## Checkpoints",
            "",
            *checkpoints,
            "",
        ]
    )
    if _body(text) == _body(old):
        return False
    write(path, text)
    return True


def _todo_lines(todos: list[dict]) -> list[str]:
    lines = []
    for todo in todos:
        mark = _MARKS.get(str(todo.get("status", "pending")).lower(), " ")
        content = " ".join(str(todo.get("content", "")).split())
        if content:
            lines.append(f"- [{mark}] {content}")
    return lines


def _sections(text: str) -> tuple[list[str], str, list[str]]:
    todos: list[str] = []
    plan_lines: list[str] = []
    checkpoints: list[str] = []
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip().lower()
            continue
        if current == "todos" and line.startswith("- ["):
            todos.append(line)
        elif current == "plan":
            plan_lines.append(line)
        elif current == "checkpoints" and line.startswith("- "):
            checkpoints.append(line)
    plan = "\n".join(plan_lines).strip()
    return todos, ("" if plan == "(none)" else plan), checkpoints


def _body(text: str) -> str:
    """The file without its `updated:` line, so an unchanged state is not rewritten."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("updated:"))

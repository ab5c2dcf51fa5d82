"""Transcript readers, one module per harness, each yielding the same ``Turn`` (see model.py).

``READERS[name]`` has ``read_turns(path, start_offset=0, now=None)`` (an iterable of turns whose
``resume_offset`` is the byte position to start from next time) and ``discover(env=None)`` (the
transcript files under the user's home). Only ``finished`` turns may be banked.
"""

from __future__ import annotations

from types import ModuleType

from automem.harness import antigravity, claude_code, codex, omp, pi
from automem.harness.model import ToolAction, Turn

READERS: dict[str, ModuleType] = {
    "claude-code": claude_code,
    "codex": codex,
    "pi": pi,
    "omp": omp,
    "antigravity": antigravity,
}

__all__ = ["READERS", "ToolAction", "Turn"]

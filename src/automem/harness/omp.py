"""oh-my-pi (omp) sessions: ``~/.omp/agent/sessions/--<cwd>--/<ts>_<sessionId>.jsonl``.

The pi v3 format (see ``pi.py``: same turn rules, fork and subagent handling) plus omp's own
entries: ``model_change`` carries ``model: "provider/id"`` and a ``role`` (only the default role
is the model that answers); ``ttsr_injection`` (an injected rule reminder), ``session_init`` and
``mode_change`` are not prompts and are ignored; images may be ``blob:sha256:`` references, which
are never loaded; the header may carry a ``title``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from automem.harness.base import TurnStream, env_home
from automem.harness.pi import PiParser, discover_in

HARNESS = "omp"


class OmpParser(PiParser):
    harness = HARNESS

    def _model_change(self, record: dict) -> None:
        role = record.get("role")
        if role not in (None, "", "default"):
            return
        super()._model_change(record)

    def other_entry(self, record: dict) -> None:
        if record.get("type") == "session_init" and isinstance(record.get("cwd"), str):
            self.cwd = record["cwd"]


def agent_dir(env: Mapping[str, str] | None = None) -> Path:
    _, home = env_home(env)
    return home / ".omp" / "agent"


def discover(env: Mapping[str, str] | None = None) -> list[Path]:
    return discover_in(agent_dir(env))


def read_turns(path: str | Path, start_offset: int = 0, now: float | None = None) -> TurnStream:
    path = Path(path)
    return TurnStream(OmpParser(path), path, start_offset, now)

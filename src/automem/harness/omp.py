"""oh-my-pi (omp) sessions: ``~/.omp/agent/sessions/<folder>/<ts>_<sessionId>.jsonl`` (or a profile's or the XDG
data folder's ``sessions/``: ``agent_dirs``).

The folder names the session's cwd: ``-<path below HOME>`` (``-`` for HOME itself), ``-tmp-<path>``
below the temp folder, ``--<absolute path>--`` elsewhere; files inside a session's own folder
(``<ts>_<sessionId>/…``) are subagent runs and are skipped.

The pi v3 format (see ``pi.py``: same turn rules, fork and subagent handling) plus omp's own
entries. Line 1 is a fixed-width ``title`` slot that omp rewrites in place (same length, so byte
offsets stay valid) and the ``session`` header is line 2, so both are read before resuming mid-file;
``title_change`` entries update the title too. ``model_change`` carries ``model: "provider/id"``
and a ``role`` (only the default role is the model that answers); ``ttsr_injection`` (an injected
rule reminder), ``session_init``, ``mode_change`` and ``custom`` entries are not prompts and are
ignored; images may be ``blob:sha256:`` references, which are never loaded. A user message with
``attribution: "agent"`` is one omp wrote itself (a plan-mode kickoff, an auto-continue, a
reminder): it is not the user's words, so it never becomes a prompt. It continues the open turn,
or, with none open, starts one with a blank prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from automem.harness.base import TurnStream, env_home
from automem.harness.model import Turn
from automem.harness.pi import PiParser, discover_in

HARNESS = "omp"


class OmpParser(PiParser):
    harness = HARNESS
    header_records = 2  # the title slot, then the session header

    def header(self, record: Any) -> None:
        if isinstance(record, dict) and record.get("type") == "title":
            self._title(record)
        else:
            super().header(record)

    def _title(self, record: dict) -> None:
        title = record.get("title")
        if isinstance(title, str) and title.strip():
            self.title = title.strip()

    def _model_change(self, record: dict) -> None:
        role = record.get("role")
        if role not in (None, "", "default"):
            return
        super()._model_change(record)

    def other_entry(self, record: dict) -> None:
        kind = record.get("type")
        if kind in ("title", "title_change"):
            self._title(record)
        elif kind == "session_init" and isinstance(record.get("cwd"), str):
            self.cwd = record["cwd"]

    def _message(self, offset: int, end: int, entry: dict, message: dict) -> list[Turn]:
        if message.get("role") != "user" or message.get("attribution") != "agent":
            return super()._message(offset, end, entry, message)
        if self.current is None:
            return self._start(offset, end, entry, message, "")
        self.current.turn.end_offset = end
        return []


def agent_dirs(env: Mapping[str, str] | None = None) -> list[Path]:
    """Every folder omp may keep ``sessions/`` in, as omp's own path helpers resolve them: the default agent folder,
    each named profile's (``<config>/profiles/<name>/agent``, chosen by ``OMP_PROFILE``), and once ``omp config
    init-xdg`` has moved them, ``$XDG_DATA_HOME/omp`` and its ``profiles/<name>`` (XDG drops the ``agent/`` level).
    ``PI_CODING_AGENT_DIR`` is left to pi's reader, which owns that variable: reading its files twice would bank
    them twice."""
    env, home = env_home(env)
    config = home / (env.get("PI_CONFIG_DIR") or ".omp").lstrip("/")  # joined to HOME as Node's path.join does
    roots = [config / "agent", *sorted((config / "profiles").glob("*/agent"))]
    xdg = env.get("XDG_DATA_HOME")
    if xdg:
        app = Path(xdg) / "omp"
        roots += [app, *sorted((app / "profiles").glob("*"))]
    return roots


def discover(env: Mapping[str, str] | None = None) -> list[Path]:
    return sorted({path for root in agent_dirs(env) for path in discover_in(root)})


def read_turns(path: str | Path, start_offset: int = 0, now: float | None = None) -> TurnStream:
    path = Path(path)
    return TurnStream(OmpParser(path), path, start_offset, now)

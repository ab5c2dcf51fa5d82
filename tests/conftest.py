"""Shared fixtures: a throwaway memory home, and the real installed hook command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


def path_without_codex() -> str:
    """A PATH with no `codex` on it, so install.py sees Codex only where a test puts CODEX_HOME."""
    import shutil

    dirs = [str(BIN), "/usr/local/bin", "/usr/bin", "/bin"]
    git = shutil.which("git")
    if git:
        dirs.append(str(Path(git).parent))
    return os.pathsep.join(d for d in dirs if not Path(d, "codex").exists())


def hook_command() -> list[str]:
    """The console script a harness runs (``<venv>/bin/automem``), else the same entry via ``-m``."""
    script = BIN / "automem"
    return [str(script)] if script.exists() else [sys.executable, "-m", "automem"]


@pytest.fixture
def automem_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """AUTOMEM_HOME and HOME pointed at fresh folders under tmp_path (the home itself is not created)."""
    home = tmp_path / "automem-home"
    user = tmp_path / "user-home"
    user.mkdir()
    monkeypatch.setenv("AUTOMEM_HOME", str(home))
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("AUTOMEM_HARNESS", raising=False)
    return home


def run_hook(
    event: str | None,
    payload: object,
    env: dict | None = None,
    *,
    args: tuple[str, ...] = (),
    timeout: float = 60,
    **popen,
) -> subprocess.CompletedProcess:
    """Run ``automem hook <event> [args]`` as a subprocess with payload on stdin.

    payload: bytes/str are sent as they are, anything else as JSON. env defaults to
    os.environ (which the automem_home fixture has pointed at tmp dirs).
    """
    if isinstance(payload, str):
        payload = payload.encode("utf-8", "surrogatepass")
    elif not isinstance(payload, bytes):
        payload = json.dumps(payload).encode()
    argv = [*hook_command(), "hook", *([event] if event else []), *args]
    return subprocess.run(
        argv, input=payload, capture_output=True, env=dict(os.environ if env is None else env), timeout=timeout, **popen
    )


@pytest.fixture(name="run_hook")
def run_hook_fixture():
    """The run_hook helper, as a fixture so test modules need no import path tricks."""
    return run_hook


CORPUS_TRANSCRIPTS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "transcripts"


def copy_id(stem: str, copy: int = 0) -> str:
    """The session id ``build_claude_transcripts`` gives copy number ``copy`` of the corpus transcript ``stem``."""
    import uuid

    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"automem-test:{stem}.jsonl:{copy}"))


def build_claude_transcripts(
    home_dir: Path, copies: int = 1, *, age_days: float = 2.0, limit: int | None = None, stems: tuple[str, ...] = ()
) -> list[Path]:
    """Claude Code transcripts laid out under ``home_dir/.claude/projects`` at test time, from the shared corpus:
    each main transcript ``copies`` times, every copy its own session (the session id is rewritten), modified
    ``age_days`` ago (``stems`` picks transcripts by name). Nothing of the corpus is kept in the repository; the
    files live in tmp_path."""

    sources = sorted(
        p for p in CORPUS_TRANSCRIPTS.glob("claude/*/projects/*/*.jsonl") if not p.name.startswith("agent-")
    )
    if stems:
        sources = [p for p in sources if p.stem in stems]
    if limit is not None:
        sources = sources[:limit]
    made = []
    stamp = __import__("time").time() - age_days * 86400
    for n in range(copies):
        for source in sources:
            data = source.read_bytes()
            new_id = copy_id(source.stem, n)
            folder = home_dir / ".claude" / "projects" / source.parent.name
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / f"{new_id}.jsonl"
            target.write_bytes(data.replace(source.stem.encode(), new_id.encode()))
            os.utime(target, (stamp, stamp))
            made.append(target)
    return made

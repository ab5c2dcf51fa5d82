"""Stop / SessionEnd hook side of autobank: start a detached pass and return at once.

Imported by the hook process, so it imports nothing heavy: the worker
(bank/worker.py) loads config, readers and the store after the hook is gone.
"""

from __future__ import annotations

import os
import subprocess
import sys

HARNESS_OF_EVENT_SOURCE = {"claude-code": "claude-code", "codex": "codex"}


def on_stop(payload: dict, harness: str) -> None:
    """Bank the session's own transcript in the background; the hook prints nothing."""
    path = payload.get("transcript_path")
    args = [sys.executable, "-m", "automem.bank.worker", "--harness", harness]
    if isinstance(path, str) and path:
        args += ["--path", path]
    spawn_detached(args)
    return None


def spawn_detached(args: list[str]) -> None:
    """A child in its own session with no stdio: it outlives the hook, never the harness's patience."""
    with open(os.devnull, "rb") as devnull_in, open(os.devnull, "wb") as devnull_out:
        subprocess.Popen(
            args,
            stdin=devnull_in,
            stdout=devnull_out,
            stderr=devnull_out,
            start_new_session=True,
            close_fds=True,
        )

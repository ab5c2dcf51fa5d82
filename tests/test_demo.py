"""`automem demo` shows capture, stored memories and the next brief, and leaves nothing behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from automem.demo import run_demo


def test_demo_in_process_shows_everything(automem_home):
    lines: list[str] = []
    result = run_demo(echo=lines.append)
    text = "\n".join(lines)
    assert "ModuleNotFoundError" in text and "correction" in text and "preference" in text  # captured
    assert len(result["memories"]) == 3
    assert "[pattern]" in text and "[decision]" in text and "[preference]" in text
    assert "automem: stored 3 new memories" in text
    assert result["brief"] == "" or "<automem-memory" in result["brief"]
    assert not Path(result["home"]).exists()  # throwaway
    assert not automem_home.exists()  # the user's home untouched


def test_demo_cli(automem_home):
    proc = subprocess.run(
        [sys.executable, "-m", "automem", "demo"], capture_output=True, text=True, timeout=120, env=dict(os.environ)
    )
    assert proc.returncode == 0, proc.stderr
    assert "== memories stored (3)" in proc.stdout
    assert not automem_home.exists()

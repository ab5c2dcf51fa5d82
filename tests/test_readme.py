"""The README and `--help` stay true: every command the README shows exists, and every command is in the README."""

from __future__ import annotations

import os
import re
from pathlib import Path

import click

from automem.cli import cli

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_commands() -> set[tuple[str, ...]]:
    text = README.read_text(encoding="utf-8")
    found = set()
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            words = line.split("#", 1)[0].split()
            if words[:1] == ["automem"] and len(words) > 1:
                found.add(tuple(w for w in words[1:3] if re.fullmatch(r"[a-z][a-z|-]*", w)))
    return found


def test_every_readme_command_exists():
    ctx = click.Context(cli)
    for words in readme_commands():
        command = cli.get_command(ctx, words[0])
        assert command is not None, f"README shows `automem {words[0]}`, which does not exist"
        if isinstance(command, click.Group) and len(words) > 1:
            for sub in words[1].split("|"):
                assert command.get_command(ctx, sub) is not None, f"README shows `automem {words[0]} {sub}`"


def test_every_command_is_in_the_readme():
    shown = {words[0] for words in readme_commands()}
    missing = sorted(set(cli.commands) - shown)
    assert missing == [], f"commands missing from the README: {missing}"


def test_readme_test_command_is_what_ci_runs():
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert ".venv/bin/python -m pytest" in README.read_text(encoding="utf-8")
    assert ".venv/bin/python -m pytest" in ci


def test_the_readme_python_example_runs_as_written(tmp_path):
    """The README's Python API block, run as it stands in a fresh home: the remembered line reaches the brief and
    recall; and importing automem alone loads none of it."""
    import subprocess
    import sys

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Python API.*?```python\n(.*?)```", text, re.S).group(1)
    env = {**os.environ, "AUTOMEM_HOME": str(tmp_path / "home"), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "<automem-memory" in done.stdout and "Use pnpm, not npm" in done.stdout
    assert "['Use pnpm, not npm, in this repo.']" in done.stdout
    bare = subprocess.run(
        [sys.executable, "-c", "import sys, automem; print('automem.api' in sys.modules)"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert bare.stdout.strip() == "False"

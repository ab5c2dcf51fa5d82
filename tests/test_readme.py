"""The README and `--help` stay true: every command the README shows exists, and every command is in the README."""

from __future__ import annotations

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

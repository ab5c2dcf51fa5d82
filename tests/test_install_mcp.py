"""install.py registers `automem mcp` with Claude Code (and Codex when present), idempotently and reversibly.

Real install.py subprocesses (`--no-venv --skip-pip`) against throwaway HOME, CLAUDE_CONFIG_DIR and CODEX_HOME.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import path_without_codex

REPO = Path(__file__).resolve().parents[1]
INSTALL = REPO / "install.py"
AUTOMEM = Path(sys.executable).parent / "automem"

pytestmark = pytest.mark.skipif(not AUTOMEM.exists(), reason="automem console script not installed in this venv")

CODEX_CONFIG = 'model = "o4-mini"\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]\n'
CLAUDE_JSON = {
    "numStartups": 3,
    "theme": "dark",
    "projects": {"/x": {"mcpServers": {}}},
    "mcpServers": {"other": {"type": "stdio", "command": "npx", "args": ["other-mcp"]}},
}


def run(tmp: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "AUTOMEM_HOME")}
    env.update(
        HOME=str(tmp / "home"),
        AUTOMEM_HOME=str(tmp / "automem-home"),
        PATH=path_without_codex(),
        CODEX_HOME=str(tmp / "home" / ".codex"),
    )
    (tmp / "home").mkdir(exist_ok=True)
    done = subprocess.run(
        [sys.executable, str(INSTALL), "--no-venv", "--yes", "--no-demo", "--skip-pip", *args],
        env=env,
        cwd=cwd or tmp,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return done


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_user_scope_registers_in_claude_json_and_codex_config_idempotently(tmp_path):
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    claude_json = home / ".claude.json"
    claude_text = json.dumps(CLAUDE_JSON, indent=2) + "\n"
    claude_json.write_text(claude_text)
    codex = home / ".codex" / "config.toml"
    codex.write_text(CODEX_CONFIG)

    run(tmp_path)
    data = json.loads(claude_json.read_text())
    entry = data["mcpServers"]["automem"]
    assert entry["type"] == "stdio" and entry["args"] == ["mcp"]
    assert Path(entry["command"]).name == "automem" and Path(entry["command"]).is_absolute()
    assert data["mcpServers"]["other"] == CLAUDE_JSON["mcpServers"]["other"]
    assert data["projects"] == CLAUDE_JSON["projects"] and data["numStartups"] == 3
    config = tomllib.loads(codex.read_text())
    assert config["mcp_servers"]["automem"] == {"command": entry["command"], "args": ["mcp"]}
    assert config["mcp_servers"]["docs"]["command"] == "npx" and config["model"] == "o4-mini"
    assert codex.read_text().startswith(CODEX_CONFIG)

    before = tree(home)
    again = run(tmp_path)
    assert tree(home) == before
    assert "already registered" in again.stdout

    run(tmp_path, "--uninstall")
    assert claude_json.read_text() == claude_text
    assert codex.read_text() == CODEX_CONFIG


def test_the_registered_command_serves_mcp(tmp_path):
    run(tmp_path)
    entry = json.loads((tmp_path / "home" / ".claude.json").read_text())["mcpServers"]["automem"]
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "0"},
        },
    }
    done = subprocess.run(
        [entry["command"], *entry["args"]],
        input=json.dumps(request) + "\n",
        text=True,
        capture_output=True,
        timeout=60,
        env={**os.environ, "AUTOMEM_HOME": str(tmp_path / "automem-home")},
    )
    reply = json.loads(done.stdout.splitlines()[0])
    assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "automem"


def test_created_files_go_away_on_uninstall_and_codex_is_skipped_when_absent(tmp_path):
    run(tmp_path)
    claude_json = tmp_path / "home" / ".claude.json"
    assert json.loads(claude_json.read_text())["mcpServers"]["automem"]["args"] == ["mcp"]
    assert not (tmp_path / "home" / ".codex").exists()
    run(tmp_path, "--uninstall")
    assert not claude_json.exists()


def test_dry_run_shows_the_registration_and_writes_nothing(tmp_path):
    (tmp_path / "home" / ".codex").mkdir(parents=True)
    before = tree(tmp_path)
    done = run(tmp_path, "--dry-run")
    assert tree(tmp_path) == before
    assert '"mcpServers"' in done.stdout and "[mcp_servers.automem]" in done.stdout
    assert str(tmp_path / "home" / ".claude.json") in done.stdout


def test_project_scope_writes_mcp_json_at_the_project_root(tmp_path):
    project = tmp_path / "repo"
    (project / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    mcp_json = project / ".mcp.json"
    mcp_json.write_text('{\n\t"mcpServers": {\n\t\t"x": {"command": "x"}\n\t}\n}')
    original = mcp_json.read_bytes()
    run(tmp_path, "--scope", "project", cwd=project / "sub")
    data = json.loads(mcp_json.read_text())
    assert data["mcpServers"]["automem"]["args"] == ["mcp"] and data["mcpServers"]["x"] == {"command": "x"}
    assert not (tmp_path / "home" / ".claude.json").exists()
    run(tmp_path, "--scope", "project", "--uninstall", cwd=project / "sub")
    assert mcp_json.read_bytes() == original


def test_someone_elses_automem_entry_and_broken_toml_are_left_alone(tmp_path):
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    foreign = {"mcpServers": {"automem": {"command": "/opt/other/server", "args": []}}}
    (home / ".claude.json").write_text(json.dumps(foreign))
    run(tmp_path)
    assert json.loads((home / ".claude.json").read_text()) == foreign

    bad = "[mcp_servers.docs\ncommand = \n"
    (home / ".codex" / "config.toml").write_text(bad)
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR",)}
    env.update(
        HOME=str(home),
        AUTOMEM_HOME=str(tmp_path / "automem-home"),
        CODEX_HOME=str(home / ".codex"),
        PATH=path_without_codex(),
    )
    done = subprocess.run(
        [sys.executable, str(INSTALL), "--no-venv", "--yes", "--no-demo", "--skip-pip"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "not valid TOML" in done.stderr
    assert (home / ".codex" / "config.toml").read_text() == bad

"""install.py against throwaway HOME / AUTOMEM_HOME / CLAUDE_CONFIG_DIR / CODEX_HOME folders.

install.py runs as a real subprocess with `--no-venv --skip-pip` (this test's
own interpreter already has automem installed, so no pip work is done; the
pip step itself is not exercised here). Everything else is the real thing:
the settings files it writes, the hook command it wires, run on a payload.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import path_without_codex

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from automem import wiring  # noqa: E402

INSTALL = REPO / "install.py"
AUTOMEM = Path(sys.executable).parent / "automem"

pytestmark = pytest.mark.skipif(not AUTOMEM.exists(), reason="automem console script not installed in this venv")


def env_for(tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "AUTOMEM_HOME")}
    env.update(
        HOME=str(tmp / "home"),
        AUTOMEM_HOME=str(tmp / "automem-home"),
        CLAUDE_CONFIG_DIR=str(tmp / "home" / ".claude"),
        CODEX_HOME=str(tmp / "home" / ".codex"),
        PATH=path_without_codex(),
    )
    (tmp / "home").mkdir(exist_ok=True)
    return env


def run_install(tmp: Path, *args: str, cwd: Path | None = None, fast: bool = True) -> subprocess.CompletedProcess:
    extra = ["--no-venv", "--yes", "--no-demo", "--skip-pip"] if fast else ["--no-venv", "--yes"]
    return subprocess.run(
        [sys.executable, str(INSTALL), *extra, *args],
        env=env_for(tmp),
        cwd=cwd or tmp,
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_file(tmp: Path) -> Path:
    return tmp / "home" / ".claude" / "settings.json"


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()
    }


REALISTIC = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(npm run test:*)", "Read(~/.zshrc)"], "deny": ["Read(./.env)"]},
    "env": {"CLAUDE_CODE_ENABLE_TELEMETRY": "0", "GREETING": "héllo wörld ✓"},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/.claude/hooks/block-rm.sh", "timeout": 5}]},
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "npx prettier --check", "async": True}]},
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
        "Notification": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send Claude"}]}],
    },
    "model": "opus",
    "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
}


# ---------------------------------------------------------------- fresh install


def test_fresh_install_writes_expected_hooks(tmp_path):
    out = run_install(tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(settings_file(tmp_path).read_text())
    assert set(data["hooks"]) == {s.event for s in wiring.CLAUDE_EVENTS}
    for spec in wiring.CLAUDE_EVENTS:
        groups = data["hooks"][spec.event]
        assert len(groups) == 1
        assert groups[0].get("matcher") == spec.matcher
        (handler,) = groups[0]["hooks"]
        assert handler["command"] == f"{shlex.quote(str(AUTOMEM))} hook {spec.event}"
        assert handler["timeout"] == spec.timeout
        assert handler.get("async", False) is spec.run_async
    assert data["hooks"]["UserPromptSubmit"][0]["hooks"][0].get("async") is None
    assert data["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    manifest = json.loads((tmp_path / "automem-home" / "install.json").read_text())
    assert manifest["files"][str(settings_file(tmp_path))]["created"] is True
    assert manifest["automem"] == str(AUTOMEM) and manifest["venv"] is None
    assert not (tmp_path / "home" / ".codex").exists()  # no Codex, nothing written for it


def test_second_run_changes_no_byte(tmp_path):
    settings_file(tmp_path).parent.mkdir(parents=True)
    settings_file(tmp_path).write_text(json.dumps(REALISTIC, indent=4, ensure_ascii=False) + "\n", encoding="utf-8")
    assert run_install(tmp_path).returncode == 0
    before = snapshot(tmp_path)
    out = run_install(tmp_path)
    assert out.returncode == 0, out.stderr
    assert snapshot(tmp_path) == before
    assert "unchanged" in out.stdout


def test_fast_path_skips_pip_when_same_version_installed(tmp_path):
    import automem

    if Path(automem.__file__).resolve().parents[1] != INSTALL.parent / "src":
        # the interpreter runs another checkout's automem: install.py --no-venv would reinstall it from this one
        pytest.skip("the running interpreter's automem is not this checkout's: installing would repoint it")
    out = subprocess.run(
        [sys.executable, str(INSTALL), "--no-venv", "--yes", "--no-demo"],
        env=env_for(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "already installed" in out.stdout and "pip install -e" not in out.stdout


def test_keeps_other_hooks_and_settings_in_order(tmp_path):
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(REALISTIC, indent=4, ensure_ascii=False) + "\n", encoding="utf-8")
    original = path.read_bytes()
    assert run_install(tmp_path).returncode == 0
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert list(data) == list(REALISTIC)  # key order kept, nothing added at the top
    assert data["hooks"]["PreToolUse"][:2] == REALISTIC["hooks"]["PreToolUse"]
    assert data["hooks"]["Stop"][0] == REALISTIC["hooks"]["Stop"][0] and len(data["hooks"]["Stop"]) == 2
    assert data["hooks"]["Notification"] == REALISTIC["hooks"]["Notification"]
    assert "héllo wörld ✓" in text  # ensure_ascii=False
    assert '\n    "permissions"' in text  # 4-space indent kept
    backups = list(path.parent.glob("settings.json.automem-backup-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == original


def test_install_then_uninstall_is_byte_identical(tmp_path):
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(REALISTIC, indent=4, ensure_ascii=False) + "\n", encoding="utf-8")
    original = path.read_bytes()
    assert run_install(tmp_path).returncode == 0
    assert path.read_bytes() != original
    out = run_install(tmp_path, "--uninstall")
    assert out.returncode == 0, out.stderr
    assert path.read_bytes() == original
    assert not (tmp_path / "automem-home" / "install.json").exists()
    assert "rm -rf" in out.stdout  # says how to delete the memory data


def test_roundtrip_restores_odd_formatting_from_backup(tmp_path):
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    odd = (
        '{"model":"opus",\n\t"hooks": {"Stop": [ {"hooks":[{"type":"command","command":"say done"}]} ]},\n  "env": {}}'
    )
    path.write_text(odd, encoding="utf-8")
    assert run_install(tmp_path).returncode == 0
    assert run_install(tmp_path, "--uninstall").returncode == 0
    assert path.read_text(encoding="utf-8") == odd


def test_uninstall_keeps_edits_made_after_install(tmp_path):
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(REALISTIC, indent=2) + "\n", encoding="utf-8")
    assert run_install(tmp_path).returncode == 0
    data = json.loads(path.read_text())
    data["theme"] = "dark"
    data["hooks"]["PreToolUse"].append({"matcher": "Read", "hooks": [{"type": "command", "command": "audit-read"}]})
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert run_install(tmp_path, "--uninstall").returncode == 0
    after = json.loads(path.read_text())
    expected = json.loads(json.dumps(REALISTIC))
    expected["theme"] = "dark"
    expected["hooks"]["PreToolUse"].append({"matcher": "Read", "hooks": [{"type": "command", "command": "audit-read"}]})
    assert after == expected


def test_uninstall_deletes_files_it_created_and_keeps_memories(tmp_path):
    assert run_install(tmp_path).returncode == 0
    memory = tmp_path / "automem-home" / "projects" / "p-1234abcd" / "memories" / "m.md"
    memory.parent.mkdir(parents=True)
    memory.write_text("a lesson\n")
    command = tmp_path / "home" / ".claude" / "commands" / "memory-status.md"
    assert command.exists()
    assert run_install(tmp_path, "--uninstall").returncode == 0
    assert not settings_file(tmp_path).exists()
    assert not command.exists() and not command.parent.exists()
    assert memory.read_text() == "a lesson\n"


def test_replaces_an_older_automem_path(tmp_path):
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    stale = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "*",
                    "hooks": [
                        {"type": "command", "command": "npx guard"},
                        {"type": "command", "command": "'/old place/.venv/bin/automem' hook PreToolUse", "timeout": 60},
                    ],
                }
            ]
        }
    }
    path.write_text(json.dumps(stale, indent=2) + "\n")
    assert run_install(tmp_path).returncode == 0
    groups = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert len(groups) == 1
    assert [h["command"] for h in groups[0]["hooks"]] == ["npx guard", f"{shlex.quote(str(AUTOMEM))} hook PreToolUse"]


# ---------------------------------------------------------------- dry run, scope, codex, errors


def test_dry_run_writes_nothing_and_prints_a_diff(tmp_path):
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(REALISTIC, indent=4) + "\n")
    before = snapshot(tmp_path)
    out = run_install(tmp_path, "--dry-run")
    assert out.returncode == 0, out.stderr
    assert snapshot(tmp_path) == before
    assert f"--- {path}" in out.stdout and f"+++ {path}" in out.stdout
    assert f'+                        "command": "{AUTOMEM} hook PostToolUseFailure",' in out.stdout


def test_scope_project_writes_the_git_toplevel_settings(tmp_path):
    if not shutil.which("git"):
        pytest.skip("git not installed")
    repo = tmp_path / "work" / "repo"
    (repo / "pkg" / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    out = run_install(tmp_path, "--scope", "project", cwd=repo / "pkg" / "sub")
    assert out.returncode == 0, out.stderr
    data = json.loads((repo / ".claude" / "settings.json").read_text())
    assert set(data["hooks"]) == {s.event for s in wiring.CLAUDE_EVENTS}
    assert not settings_file(tmp_path).exists()
    assert (repo / ".claude" / "commands" / "memory-status.md").exists()
    assert run_install(tmp_path, "--uninstall", cwd=repo).returncode == 0
    assert not (repo / ".claude").exists()


def test_codex_wired_only_when_present(tmp_path):
    codex = tmp_path / "home" / ".codex"
    codex.mkdir(parents=True)
    out = run_install(tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads((codex / "hooks.json").read_text())
    assert list(data["hooks"]) == [s.event for s in wiring.CODEX_EVENTS]
    for spec in wiring.CODEX_EVENTS:
        (group,) = data["hooks"][spec.event]
        (handler,) = group["hooks"]
        assert handler["command"] == f"{shlex.quote(str(AUTOMEM))} hook {spec.event} --harness codex"
        assert "async" not in handler and handler["timeout"] == spec.timeout
    assert data["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear"
    assert run_install(tmp_path, "--uninstall").returncode == 0
    assert not (codex / "hooks.json").exists() and codex.is_dir()


def test_invalid_settings_json_exits_2_and_touches_nothing(tmp_path):
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    broken = '{\n  "model": "opus",\n  "hooks": {,\n}\n'
    path.write_text(broken)
    before = snapshot(tmp_path)
    out = run_install(tmp_path)
    assert out.returncode == 2
    assert str(path) in out.stderr and "line 3" in out.stderr
    assert path.read_text() == broken
    assert snapshot(tmp_path) == before  # no backup, no install.json, no command


# ---------------------------------------------------------------- the wired command and the plugin


def _failure_payload(session: str) -> dict:
    return {
        "session_id": session,
        "transcript_path": "/tmp/x.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q"},
        "tool_use_id": "toolu_01",
        "error": "Exit code 1\nE   ModuleNotFoundError: No module named 'yamlx'\n1 failed, 3 passed in 0.12s",
    }


def _spooled(home: Path) -> list[dict]:
    return [json.loads(line) for p in sorted((home / "spool").glob("*.jsonl")) for line in p.read_text().splitlines()]


def test_the_wired_command_runs_on_a_payload(tmp_path):
    assert run_install(tmp_path).returncode == 0
    data = json.loads(settings_file(tmp_path).read_text())
    command = data["hooks"]["PostToolUseFailure"][0]["hooks"][0]["command"]
    home = tmp_path / "capture-home"
    out = subprocess.run(
        command,
        shell=True,
        input=json.dumps(_failure_payload("s-wired")),
        text=True,
        env={**env_for(tmp_path), "AUTOMEM_HOME": str(home)},
        capture_output=True,
        timeout=60,
    )
    assert out.returncode == 0 and out.stdout == ""
    records = _spooled(home)
    assert any(r["kind"] == "error" and "ModuleNotFoundError" in json.dumps(r) for r in records)


def test_plugin_hooks_json_agrees_with_installed_settings(tmp_path):
    plugin = json.loads((REPO / "hooks" / "hooks.json").read_text())
    assert plugin["description"]
    assert run_install(tmp_path).returncode == 0
    installed = json.loads(settings_file(tmp_path).read_text())["hooks"]
    assert list(plugin["hooks"]) == list(installed)
    for event, groups in plugin["hooks"].items():
        (group,) = groups
        (mine,) = installed[event]
        assert group.get("matcher") == mine.get("matcher")
        (handler,) = group["hooks"]
        assert handler["command"] == f'python3 "${{CLAUDE_PLUGIN_ROOT}}/hooks/automem-hook" {event}'
        assert handler["timeout"] == mine["hooks"][0]["timeout"]
        assert handler.get("async") == mine["hooks"][0].get("async")


def test_plugin_manifest_and_commands():
    manifest = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "automem" and manifest["version"] and manifest["description"]
    assert manifest["author"]["name"]
    names = {p.stem for p in (REPO / "commands").glob("*.md")}
    assert "memory-status" in names and "memory" not in names  # /memory is a built-in (HARNESSES.md 1.7)
    text = (REPO / "commands" / "memory-status.md").read_text()
    assert text.startswith("---\n") and "description:" in text


def test_plugin_hook_script_runs_without_the_venv(tmp_path):
    """The hooks.json command, through a shell, with a python3 that has no automem installed."""
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "python3").symlink_to(base)
    probe = subprocess.run([str(bare / "python3"), "-c", "import automem"], capture_output=True, cwd=tmp_path)
    if probe.returncode == 0:
        pytest.skip("the base interpreter has automem installed; cannot test the src fallback")
    plugin = json.loads((REPO / "hooks" / "hooks.json").read_text())
    command = plugin["hooks"]["PostToolUseFailure"][0]["hooks"][0]["command"]
    home = tmp_path / "plugin-home"
    env = {
        **env_for(tmp_path),
        "AUTOMEM_HOME": str(home),
        "CLAUDE_PLUGIN_ROOT": str(REPO),
        "PATH": str(bare) + os.pathsep + "/usr/bin:/bin",
    }
    env.pop("PYTHONPATH", None)
    out = subprocess.run(
        ["bash", "-c", command],
        input=json.dumps(_failure_payload("s-plugin")),
        text=True,
        env=env,
        capture_output=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert out.returncode == 0 and out.stdout == "", out.stderr
    assert any(r["kind"] == "error" for r in _spooled(home))
    status = subprocess.run(
        [str(bare / "python3"), str(REPO / "hooks" / "automem-hook"), "--cli", "status"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert status.returncode == 0 and "spool: 1 files" in status.stdout, status.stderr
    # Stop starts the detached worker with the same interpreter: it finds the plugin's copy of automem and, lacking
    # the dependencies lessons need, says so in the log instead of dying unheard
    stop = plugin["hooks"]["Stop"][0]["hooks"][0]["command"]
    payload = {**_failure_payload("s-plugin"), "hook_event_name": "Stop", "stop_hook_active": False}
    out = subprocess.run(
        ["bash", "-c", stop],
        input=json.dumps(payload),
        text=True,
        env=env,
        capture_output=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert out.returncode == 0
    missing = subprocess.run([str(bare / "python3"), "-c", "import yaml, detect_secrets"], capture_output=True)
    if missing.returncode != 0:
        log = home / "log" / "automem.log"
        deadline = time.time() + 60
        while time.time() < deadline and "run `python3 install.py`" not in (log.read_text() if log.exists() else ""):
            time.sleep(0.2)
        assert "lessons and banking need automem's dependencies" in log.read_text()


def test_user_command_points_at_the_installed_script(tmp_path):
    assert run_install(tmp_path).returncode == 0
    text = (tmp_path / "home" / ".claude" / "commands" / "memory-status.md").read_text()
    assert "CLAUDE_PLUGIN_ROOT" not in text
    assert f'!`"{AUTOMEM}" status`' in text


def test_install_shows_it_working(tmp_path):
    out = subprocess.run(
        [sys.executable, str(INSTALL), "--no-venv", "--yes", "--skip-pip"],
        env=env_for(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    # automem demo: the scripted session's signals, the memories it stored and the next session's brief
    assert "== captured signals" in out.stdout and "ModuleNotFoundError" in out.stdout
    assert "== memories stored" in out.stdout and "<automem-memory" in out.stdout
    assert "== automem status ==" in out.stdout and str(settings_file(tmp_path)) in out.stdout
    assert not list((tmp_path / "automem-home").glob("spool/*"))  # the demo used a throwaway home


def test_uninstall_dry_run_shows_the_removal_and_keeps_everything(tmp_path):
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(REALISTIC, indent=4) + "\n")
    assert run_install(tmp_path).returncode == 0
    before = snapshot(tmp_path)
    out = run_install(tmp_path, "--uninstall", "--dry-run")
    assert out.returncode == 0, out.stderr
    assert snapshot(tmp_path) == before
    assert f'-                        "command": "{AUTOMEM} hook SessionEnd",' in out.stdout
    assert '"command": "say done"' not in "".join(line for line in out.stdout.splitlines() if line.startswith("-"))


def test_plugin_version_matches_the_package():
    import tomllib

    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())["version"] == version


CORPUS = REPO.parent / "shared" / "corpus" / "transcripts" / "claude"


def _real_failure_payload() -> dict | None:
    """A PostToolUseFailure payload cut at run time from a real transcript's failed Bash call."""
    if not CORPUS.is_dir():
        return None
    for path in sorted(CORPUS.rglob("*.jsonl")):
        uses: dict[str, dict] = {}
        for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            content = (entry.get("message") or {}).get("content") if isinstance(entry, dict) else None
            if not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use":
                    uses[block.get("id")] = block
                elif block.get("type") == "tool_result" and block.get("is_error") is True:
                    use = uses.get(block.get("tool_use_id")) or {}
                    text = block.get("content")
                    if use.get("name") == "Bash" and isinstance(text, str) and text.startswith("Exit code"):
                        return {
                            "session_id": entry.get("sessionId") or path.stem,
                            "transcript_path": str(path),
                            "cwd": entry.get("cwd") or "/",
                            "hook_event_name": "PostToolUseFailure",
                            "tool_name": "Bash",
                            "tool_input": use.get("input"),
                            "tool_use_id": block.get("tool_use_id"),
                            "error": text,
                        }
    return None


def test_plugin_hook_script_on_a_real_transcript_failure(tmp_path):
    payload = _real_failure_payload()
    if payload is None:
        pytest.skip("no failed Bash call in ../shared/corpus/transcripts")
    plugin = json.loads((REPO / "hooks" / "hooks.json").read_text())
    command = plugin["hooks"]["PostToolUseFailure"][0]["hooks"][0]["command"].replace(
        "python3", shlex.quote(sys.executable), 1
    )
    home = tmp_path / "plugin-home"
    out = subprocess.run(
        ["bash", "-c", command],
        input=json.dumps(payload),
        text=True,
        capture_output=True,
        env={**env_for(tmp_path), "AUTOMEM_HOME": str(home), "CLAUDE_PLUGIN_ROOT": str(REPO)},
        timeout=60,
    )
    assert out.returncode == 0 and out.stdout == "", out.stderr
    records = _spooled(home)
    result = next(r for r in records if r["kind"] == "result")
    assert result["ok"] is False and result["session_id"] == payload["session_id"]
    assert result["exit_code"] == int(payload["error"].split()[2].strip(":"))


def test_null_hooks_and_null_mcp_servers_are_valid_settings(tmp_path):
    """`"hooks": null` and `"mcpServers": null` are valid JSON settings: install wires them, uninstall unwires."""
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": null, "model": "opus"}\n')
    claude_json = path.parent / ".claude.json"  # CLAUDE_CONFIG_DIR is set: Claude Code keeps it there
    claude_json.write_text('{"mcpServers": null}\n')
    out = run_install(tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(path.read_text())
    assert data["model"] == "opus" and "PostToolUseFailure" in data["hooks"]
    assert "automem" in json.loads(claude_json.read_text())["mcpServers"]
    assert run_install(tmp_path, "--uninstall").returncode == 0
    assert "hooks" not in json.loads(path.read_text()) or not json.loads(path.read_text())["hooks"]

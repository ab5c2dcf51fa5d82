"""`automem status` and `automem doctor`, through the CLI and in-process, on real files in tmp dirs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from automem.home import Home  # noqa: E402
from automem.status import collect_status, format_status, run_doctor  # noqa: E402

AUTOMEM = Path(sys.executable).parent / "automem"
pytestmark = pytest.mark.skipif(not AUTOMEM.exists(), reason="automem console script not installed in this venv")


@pytest.fixture
def env(tmp_path, monkeypatch):
    """HOME, AUTOMEM_HOME, CLAUDE_CONFIG_DIR, CODEX_HOME in tmp; cwd outside any git repo."""
    values = {
        "HOME": str(tmp_path / "home"),
        "AUTOMEM_HOME": str(tmp_path / "automem-home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "home" / ".claude"),
        "CODEX_HOME": str(tmp_path / "home" / ".codex"),
        "PATH": os.pathsep.join(
            d
            for d in (str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin")
            if not Path(d, "codex").exists()
        ),
    }
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path / "work")
    return {**os.environ, **values}


def install(env, tmp_path) -> None:
    out = subprocess.run(
        [sys.executable, str(REPO / "install.py"), "--no-venv", "--yes", "--no-demo", "--skip-pip"],
        env=env,
        cwd=tmp_path / "work",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr


def cli(env, cwd, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "automem", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_status_json_shape_after_install(env, tmp_path):
    install(env, tmp_path)
    home = tmp_path / "automem-home"
    # some real content in the memory home
    (home / "consent.json").write_text(json.dumps({"consented": True, "at": "2026-08-28T10:00:00Z"}))
    spool = home / "spool"
    spool.mkdir()
    (spool / "s1.jsonl").write_bytes(b'{"kind":"tool"}\n' * 10)
    (spool / "s2.jsonl").write_bytes(b'{"kind":"tool"}\n' * 3)
    project = home / "projects" / "demo-0123abcd"
    for part, count in (("memories", 2), ("bank", 3), ("journal", 1)):
        (project / part).mkdir(parents=True)
        for i in range(count):
            (project / part / f"{i}.md").write_text("x" * 10)
    (home / "index.db").write_bytes(b"\0" * 4096)
    (home / "log").mkdir()
    (home / "log" / "automem.log").write_text("".join(f"2026-08-28 line {i}\n" for i in range(8)))

    out = cli(env, tmp_path / "work", "status", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert set(report) >= {
        "version",
        "home",
        "install",
        "wiring",
        "plugin",
        "consent",
        "config",
        "spool",
        "projects",
        "index",
        "log",
    }
    (claude,) = [w for w in report["wiring"] if w["events"]]
    assert claude["file"] == str(tmp_path / "home" / ".claude" / "settings.json")
    assert claude["missing_events"] == []
    hook = claude["events"]["PostToolUseFailure"][0]
    assert hook["target"] == str(AUTOMEM) and hook["target_ok"] is True and hook["async"] is True
    assert report["consent"]["state"] == "consented" and report["consent"]["at"] == "2026-08-28T10:00:00Z"
    assert report["spool"]["files"] == 2 and report["spool"]["bytes"] == 16 * 13
    # install registered the MCP server with Claude Code at user scope
    assert [m["registered"] for m in report["mcp"]] == [True]
    assert report["mcp"][0]["file"].endswith(".claude.json")
    assert report["spool"]["biggest"] == {"name": "s1.jsonl", "bytes": 160}
    assert report["projects"] == [{"slug": "demo-0123abcd", "bytes": 60, "memories": 2, "bank": 3, "journal": 1}]
    assert report["index"]["bytes"] == 4096
    assert report["log"]["last"] == [f"2026-08-28 line {i}" for i in range(3, 8)]
    assert report["install"]["scope"] == "user"

    text = cli(env, tmp_path / "work", "status").stdout
    assert "consent: consented" in text and "spool: 2 files" in text and "demo-0123abcd: 2 memories" in text


def test_status_in_process_fresh_home(env, tmp_path):
    report = collect_status()
    assert report["home"]["exists"] is False
    assert report["consent"]["state"] == "not asked yet"
    assert report["install"] is None and all(not w["events"] for w in report["wiring"])
    assert report["spool"] == {"path": str(Home.current().spool_dir), "files": 0, "bytes": 0, "biggest": None}
    text = format_status(report)
    assert "nothing wired" in text and "consent: not asked yet" in text


def test_status_shows_a_broken_config_and_a_missing_command(env, tmp_path):
    home = tmp_path / "automem-home"
    home.mkdir()
    (home / "config.yml").write_text("memory:\n  capture: [unclosed\n")
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        json.dumps(
            {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/gone/venv/bin/automem hook Stop"}]}]}}
        )
    )
    report = collect_status()
    assert report["config"]["ok"] is False and "config.yml" in report["config"]["error"]
    (entry,) = [w for w in report["wiring"] if w["events"]]
    assert entry["events"]["Stop"][0]["target_ok"] is False
    assert "PreToolUse" in entry["missing_events"]
    assert "MISSING" in format_status(report)


def test_status_detects_the_plugin(env, tmp_path):
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"enabledPlugins": {"automem@automem-local": True, "other@x": True}}))
    assert collect_status()["plugin"] == {"enabled": True, "entries": {"automem@automem-local": True}}


# ---------------------------------------------------------------- doctor


def _states(checks) -> dict[str, str]:
    return {
        c["name"] if isinstance(c, dict) else c.name: c["state"] if isinstance(c, dict) else c.state for c in checks
    }


def test_doctor_passes_after_install(env, tmp_path):
    install(env, tmp_path)
    out = cli(env, tmp_path / "work", "doctor", "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    checks = json.loads(out.stdout)
    states = _states(checks)
    assert set(states) == {
        "python",
        "home",
        "config",
        "claude-code",
        "hook command",
        "hook run",
        "dependencies",
        "sizes",
        "index",
        "redaction",
        "codex",
        "codex trust",
    }
    assert set(states.values()) == {"ok"}, checks
    hook_run = next(c for c in checks if c["name"] == "hook run")
    assert str(AUTOMEM) in hook_run["detail"] and "spool line" in hook_run["detail"]


def test_doctor_fails_with_fixes(env, tmp_path):
    home = tmp_path / "automem-home"
    home.mkdir()
    (home / "config.yml").write_text("memory:\n  capture: [unclosed\n")
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "PostToolUseFailure": [
                        {
                            "matcher": "*",
                            "hooks": [{"type": "command", "command": "/gone/venv/bin/automem hook PostToolUseFailure"}],
                        }
                    ]
                }
            }
        )
    )
    checks = {c.name: c for c in run_doctor()}
    assert checks["config"].state == "fail" and "automem config reset" in checks["config"].fix
    assert checks["hook command"].state == "fail" and "/gone/venv/bin/automem" in checks["hook command"].detail
    assert checks["claude-code"].state == "warn" and "PreToolUse" in checks["claude-code"].detail
    assert checks["hook command"].fix and checks["claude-code"].fix
    assert checks["config"].as_dict()["state"] == "fail"

    out = cli(env, tmp_path / "work", "doctor")
    assert out.returncode == 1
    assert "[FAIL] config" in out.stdout and "fix: " in out.stdout


def test_doctor_missing_home_and_nothing_wired(env, tmp_path):
    checks = {c.name: c for c in run_doctor()}
    assert checks["home"].state == "fail" and "install.py" in checks["home"].fix
    assert checks["claude-code"].state == "warn" and checks["claude-code"].fix == "run `python3 install.py`"
    # with nothing wired, the hook run still tests this interpreter's entry point for real
    assert checks["hook run"].state == "ok" and "-m automem hook" in checks["hook run"].detail


def test_doctor_hook_run_fails_when_capture_writes_nothing(env, tmp_path):
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    script = bin_dir / "automem"
    script.write_text("#!/bin/sh\ncat >/dev/null\nexit 0\n")  # exits 0 but captures nothing
    script.chmod(0o755)
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "PostToolUseFailure": [
                        {"matcher": "*", "hooks": [{"type": "command", "command": f"{script} hook PostToolUseFailure"}]}
                    ]
                }
            }
        )
    )
    checks = {c.name: c for c in run_doctor()}
    assert checks["hook command"].state == "ok"
    assert checks["hook run"].state == "fail" and "spooled nothing" in checks["hook run"].detail


def test_doctor_codex_present_but_not_wired(env, tmp_path):
    (tmp_path / "home" / ".codex").mkdir()
    checks = {c.name: c for c in run_doctor()}
    assert checks["codex"].state == "warn" and checks["codex"].fix == "run `python3 install.py`"
    install(env, tmp_path)
    checks = {c.name: c for c in run_doctor()}
    assert checks["codex"].state == "ok"


def test_doctor_reports_index_drift(tmp_path, monkeypatch):
    """The Markdown is the truth: a memory file the index has not seen is drift, and reindex mends it."""
    from automem.home import Home
    from automem.index.sync import reindex
    from automem.status import check_index
    from automem.store.memories import Memory, save

    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path / "am"))
    home = Home.current().ensure()
    project = home.project_for_cwd(str(tmp_path))
    save(project, Memory(type="decision", summary="Use pnpm, not npm, in this repo", content="pnpm only"))
    reindex(str(home.root))
    assert check_index(home).state == "ok"
    save(project, Memory(type="preference", summary="Prefer ruff over flake8", content="ruff"))
    drifted = check_index(home)
    assert drifted.state == "warn" and "1 missing" in drifted.detail and "reindex" in drifted.fix
    reindex(str(home.root))
    assert check_index(home).state == "ok"

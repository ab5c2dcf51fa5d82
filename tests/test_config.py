"""config.yml: defaults, validation, live reload, and the hook's forgiving mode."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from automem import config
from automem.home import Home


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path))
    monkeypatch.delenv("AUTOMEM_MODEL", raising=False)
    return Home.current()


def test_defaults_without_file(home):
    cfg = config.load(home)
    assert cfg.auto_bank and cfg.auto_memorize and cfg.capture
    assert cfg.model == "off"
    assert cfg.brief_budget_tokens == 1500
    assert "claude-code" in cfg.autobank_harnesses


def test_default_file_parses_to_defaults(home):
    config.write_default(home)
    assert config.load(home).data == config.DEFAULTS


def test_change_is_seen_without_restart(home):
    home.config_file.write_text("memory:\n  auto_bank: true\n")
    assert config.load(home).auto_bank is True
    home.config_file.write_text("memory:\n  auto_bank: false\nbrief:\n  budget_tokens: 900\n")
    os.utime(home.config_file, ns=(1, 1))  # a different mtime even on coarse clocks
    cfg = config.load(home)
    assert cfg.auto_bank is False and cfg.brief_budget_tokens == 900


def test_model_env_wins_and_yaml_off(home):
    home.config_file.write_text("llm:\n  model: off\n")  # bare off is YAML false
    assert config.load(home).model == "off"
    os.environ["AUTOMEM_MODEL"] = "ollama:llama3.2"
    try:
        assert config.load(home).model == "ollama:llama3.2"
    finally:
        del os.environ["AUTOMEM_MODEL"]


@pytest.mark.parametrize(
    "text, needle",
    [
        ("memory:\n  auto_bank: [unclosed\n", "line"),
        ("memory: yes\n", "must be a section"),
        ("memory:\n  auto_bank: maybe\n", "true or false"),
        ("brief:\n  budget_tokens: -5\n", "whole number"),
        ("autobank:\n  harnesses: [cursor]\n", "unknown harness"),
        ("- just\n- a list\n", "mapping"),
    ],
)
def test_broken_config_is_a_clear_error(home, text, needle):
    home.config_file.write_text(text)
    with pytest.raises(config.ConfigError) as info:
        config.load(home)
    assert needle in str(info.value) and str(home.config_file) in str(info.value)


def test_hook_mode_falls_back_to_defaults_and_logs(home):
    home.config_file.write_text("memory: [\n")
    cfg = config.load(home, strict=False)
    assert cfg.data == config.DEFAULTS
    assert "config" in home.log_file.read_text()


def test_cli_reports_broken_config_cleanly(home):
    home.config_file.write_text("memory:\n  auto_bank: maybe\n")
    env = {**os.environ, "AUTOMEM_HOME": str(home.root)}
    proc = subprocess.run([sys.executable, "-m", "automem", "config", "show"], env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "true or false" in proc.stderr and "Traceback" not in proc.stderr


def test_unknown_keys_are_kept(home):
    home.config_file.write_text("future:\n  thing: 1\n")
    assert config.load(home).get("future.thing") == 1


@pytest.mark.parametrize(
    "command",
    [
        ["recall", "x"],
        ["bank", "run"],
        ["audit"],
        ["journal", "show"],
        ["remember", "y"],
        ["consent", "status"],
        ["reindex"],
        ["brief"],
    ],
)
def test_every_command_reports_a_broken_config(home, command, tmp_path):
    home.root.mkdir(parents=True, exist_ok=True)
    home.config_file.write_text("memory:\n  capture: [oops\n")
    env = {**os.environ, "AUTOMEM_HOME": str(home.root), "HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "automem", *command], env=env, capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert proc.returncode != 0, proc.stdout
    assert "config.yml" in proc.stderr and "line" in proc.stderr and "Traceback" not in proc.stderr

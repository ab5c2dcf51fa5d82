"""Codex hook trust: which automem hooks Codex will skip, what doctor and install.py say, on a real
config.toml and hooks.json in a temporary CODEX_HOME (install.py writes them). The Codex binary's own
view (``codex app-server`` hooks/list) is exercised in tests/e2e/test_codex.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from test_install import AUTOMEM, env_for, run_install

from automem import codex_trust


def _codex_home(tmp: Path) -> Path:
    home = tmp / "home" / ".codex"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('model = "gpt-5.5"\n\n[projects."/somewhere"]\ntrust_level = "trusted"\n')
    return home


def _doctor(tmp: Path) -> dict:
    out = subprocess.run(
        [str(AUTOMEM), "doctor", "--json"], env=env_for(tmp), cwd=tmp, capture_output=True, text=True, timeout=120
    )
    return {c["name"]: c for c in json.loads(out.stdout)}


def test_keys_are_the_ones_codex_forms(tmp_path):
    codex_home = _codex_home(tmp_path)
    assert run_install(tmp_path).returncode == 0
    hooks = codex_trust.automem_hooks(codex_home / "hooks.json")
    keys = {h["key"] for h in hooks}
    assert f"{codex_home / 'hooks.json'}:session_start:0:0" in keys
    assert f"{codex_home / 'hooks.json'}:user_prompt_submit:0:0" in keys
    assert f"{codex_home / 'hooks.json'}:pre_tool_use:0:0" in keys and len(keys) == len(hooks) == 6


def test_install_says_how_to_trust_and_doctor_warns(tmp_path):
    codex_home = _codex_home(tmp_path)
    out = run_install(tmp_path)
    assert out.returncode == 0
    assert "do not run until you trust them" in out.stdout and "/hooks" in out.stdout
    check = _doctor(tmp_path)["codex trust"]
    assert check["state"] == "warn" and "skip 6 of 6" in check["detail"]
    assert "/hooks" in check["fix"] and str(codex_home / "config.toml") in check["fix"]


def test_doctor_ok_once_trust_is_recorded(tmp_path):
    codex_home = _codex_home(tmp_path)
    assert run_install(tmp_path).returncode == 0
    hooks = codex_trust.automem_hooks(codex_home / "hooks.json")
    with (codex_home / "config.toml").open("a") as handle:
        for hook in hooks:  # what the TUI's review writes (the hash itself is Codex's; see the e2e test)
            handle.write(f'\n[hooks.state.{json.dumps(hook["key"])}]\ntrusted_hash = "sha256:{"0" * 64}"\n')
    check = _doctor(tmp_path)["codex trust"]
    assert check["state"] == "ok" and "not checked" in check["detail"]
    assert "trusted before" in run_install(tmp_path).stdout


def test_review_follows_what_the_binary_reports(tmp_path):
    codex_home = _codex_home(tmp_path)
    assert run_install(tmp_path).returncode == 0
    hooks_path, config = codex_home / "hooks.json", codex_home / "config.toml"
    hooks = codex_trust.automem_hooks(hooks_path)
    listed = [
        {"key": h["key"], "currentHash": f"sha256:{i:064x}", "trustStatus": status}
        for i, (h, status) in enumerate(zip(hooks, ["trusted", "modified"] + ["untrusted"] * 4, strict=False))
    ]
    reviewed = codex_trust.review(hooks_path, config, listed)
    assert [h["status"] for h in reviewed] == ["trusted", "modified"] + ["untrusted"] * 4
    text = codex_trust.how_to_trust(reviewed, config)
    assert "trust the 5 automem hooks" in text
    snippet = codex_trust.trust_toml([h for h in reviewed if h["status"] != "trusted"])
    import tomllib

    state = tomllib.loads(snippet)["hooks"]["state"]
    assert set(state) == {h["key"] for h in reviewed[1:]}
    assert state[reviewed[1]["key"]]["trusted_hash"] == f"sha256:{1:064x}"


def test_other_tools_hooks_and_a_broken_config_are_not_ours(tmp_path):
    hooks_path = tmp_path / "hooks.json"
    hooks_path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}))
    assert codex_trust.automem_hooks(hooks_path) == []
    (tmp_path / "config.toml").write_text("this is [not toml")
    assert codex_trust.trusted_hashes(tmp_path / "config.toml") == {}
    assert codex_trust.codex_hook_list(codex=str(tmp_path / "no-such-codex")) is None

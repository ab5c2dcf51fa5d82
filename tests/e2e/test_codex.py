"""The real Codex CLI (``codex exec``) against a scripted OpenAI Responses server on loopback.

Codex runs a user's hooks only when they are trusted (``hooks.state."<key>".trusted_hash`` in
config.toml, what the TUI's /hooks review writes). With trust: the hooks capture the session,
Stop banks the turn and stores the lessons, the next session starts with the brief. Without:
nothing runs, and ``automem doctor`` says so and how to fix it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from automem import codex_trust

from .e2e_support import AUTOMEM, CLIENTS, World, wait_for
from .model_server import ModelServer

PROMPT = "Run the project check. Use pnpm, not npm, in this repo."
FAIL = "python3 check.py"
FIX = "APP_MODE=test python3 check.py"


def user_texts(body: dict) -> list[str]:
    return [
        c.get("text", "")
        for item in body.get("input", [])
        if isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "user"
        for c in item.get("content") or []
        if isinstance(c, dict)
    ]


def responder(kind: str, body: dict) -> list:
    outputs = [i for i in body.get("input", []) if isinstance(i, dict) and i.get("type") == "function_call_output"]
    if any("Use pnpm" in t for t in user_texts(body)):
        if len(outputs) < 2:
            return [("tool", "exec_command", {"cmd": FAIL})]
        if len(outputs) == 2:
            return [("tool", "exec_command", {"cmd": FIX})]
        return [("text", "Done: check.py passes with APP_MODE=test.")]
    return [("text", "Noted.")]


class CodexUser:
    def __init__(self, world: World, codex: Path, server: ModelServer):
        self.world, self.codex, self.server = world, codex, server
        self.codex_home = world.home / ".codex"
        self.codex_home.mkdir()
        world.extra_path = [str(codex.parent)]
        self.install_output = world.install(CODEX_HOME=str(self.codex_home))
        config = self.codex_home / "config.toml"
        provider = (
            f'model = "gpt-5.5"\nmodel_provider = "loopback"\n\n[model_providers.loopback]\n'
            f'name = "loopback"\nbase_url = "{server.url}/v1"\nwire_api = "responses"\n'
            f'env_key = "LOOPBACK_API_KEY"\n\n'
        )
        config.write_text(provider + config.read_text())
        self.config = config
        self.hooks = self.codex_home / "hooks.json"

    def env(self) -> dict:
        return self.world.env(CODEX_HOME=str(self.codex_home), LOOPBACK_API_KEY="dummy")

    def trust(self) -> None:
        """What the TUI's /hooks review writes: each hook's current hash, as the binary computes it."""
        listed = codex_trust.codex_hook_list(str(self.codex), self.world.project, self.env())
        assert listed, "codex app-server did not answer hooks/list"
        reviewed = codex_trust.review(self.hooks, self.config, listed)
        assert reviewed and all(h["status"] == "untrusted" for h in reviewed)
        with self.config.open("a") as handle:
            handle.write("\n" + codex_trust.trust_toml(reviewed))

    def run(self, prompt: str) -> subprocess.CompletedProcess:
        out = subprocess.run(
            [str(self.codex), "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", prompt],
            cwd=self.world.project,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=240,
            stdin=subprocess.DEVNULL,
        )
        assert out.returncode == 0, f"codex exec failed ({out.returncode}):\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}"
        return out

    def doctor(self) -> list[dict]:
        out = subprocess.run(
            [str(AUTOMEM), "doctor", "--json"],
            cwd=self.world.project,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        return json.loads(out.stdout)


@pytest.fixture(scope="module")
def trusted(npm_clients, tmp_path_factory):
    server = ModelServer(responder).__enter__()
    user = CodexUser(World(tmp_path_factory.mktemp("codex")), npm_clients["codex"], server)
    user.trust()
    out = user.run(PROMPT)
    yield user, out
    server.__exit__(None, None, None)
    user.world.keep("codex", sorted((user.codex_home / "sessions").rglob("rollout-*.jsonl")))


def test_installed_version_is_the_pinned_one(npm_clients):
    out = subprocess.run([str(npm_clients["codex"]), "--version"], capture_output=True, text=True, timeout=60)
    assert out.stdout.split()[-1] == CLIENTS["codex"][1]


def test_the_scripted_session_ran_through_the_real_shell_tool(trusted):
    user, out = trusted
    assert "Done: check.py passes" in out.stdout
    last = user.server.model_requests()[-1].body
    outputs = [json.dumps(i.get("output")) for i in last["input"] if i.get("type") == "function_call_output"]
    assert len(outputs) == 3 and "APP_MODE is not set" in outputs[0] and "check ok" in outputs[2]


def test_trusted_hooks_fired_into_the_spool(trusted):
    user, _ = trusted
    events = wait_for(lambda: user.world.spool(), "spool lines")
    names = {e["event"] for e in events}
    assert {"UserPromptSubmit", "PreToolUse", "PostToolUse"} <= names, names
    assert all(e["harness"] == "codex" for e in events)
    assert any(e.get("kind") == "feedback" and "pnpm" in e.get("text", "") for e in events)
    assert "Traceback" not in user.world.log()


def test_doctor_sees_the_hooks_trusted(trusted):
    user, _ = trusted
    check = [c for c in user.doctor() if c["name"] == "codex trust"]
    assert check and check[0]["state"] == "ok", check


def test_the_turn_is_banked_at_stop(trusted):
    user, _ = trusted
    entries = wait_for(user.world.bank_entries, "a bank entry for the Codex turn")
    text = entries[0].read_text()
    assert 'harness: "codex"' in text and "Use pnpm, not npm" in text


def test_the_preference_is_a_promoted_memory(trusted):
    user, _ = trusted
    found = wait_for(
        lambda: [p.read_text() for p in user.world.memories() if "Use pnpm, not npm" in p.read_text()],
        "the preference as a memory",
    )
    assert 'status: "promoted"' in found[0]


def test_the_next_session_gets_the_brief(trusted):
    user, _ = trusted
    wait_for(lambda: any("Use pnpm" in p.read_text() for p in user.world.memories()), "the stored preference")
    user.server.reset()
    user.run("Hello again.")
    bodies = [r.text for r in user.server.model_requests()]
    assert bodies and "<automem-memory" in bodies[0]


def test_untrusted_hooks_never_run_and_doctor_says_how_to_trust_them(npm_clients, tmp_path):
    with ModelServer(responder) as server:
        user = CodexUser(World(tmp_path), npm_clients["codex"], server)
        assert "trust" in user.install_output and "/hooks" in user.install_output
        user.run(PROMPT)
        assert user.world.spool() == []  # Codex skipped every automem hook, silently
        check = [c for c in user.doctor() if c["name"] == "codex trust"]
        assert check and check[0]["state"] == "warn", check
        assert "/hooks" in check[0]["fix"] and "trusted_hash" in check[0]["fix"]
        # the exact lines doctor offers make Codex run the hooks
        snippet = check[0]["fix"].split(f"{user.config} yourself:\n", 1)[1]
        with user.config.open("a") as handle:
            handle.write("\n" + snippet)
        listed = codex_trust.codex_hook_list(str(user.codex), user.world.project, user.env())
        assert all(h["status"] == "trusted" for h in codex_trust.review(user.hooks, user.config, listed))

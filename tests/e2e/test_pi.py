"""The real pi coding agent (``pi -p``) against the scripted Anthropic Messages server on loopback.

pi has no shell-hook contract (its extensions are TypeScript), so automem reaches it the way it
reaches any headless agent: ``automem bank run`` banks its session files, ``automem extract`` learns
from one, and ``automem run -- pi -p "{memory} ..."`` puts the memory into the next job's prompt.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from .e2e_support import AUTOMEM, CLIENTS, World, tool_results, wait_for
from .model_server import ModelServer

PROMPT = "Run the project check. Use pnpm, not npm, in this repo."
FAIL = "python3 check.py"
FIX = "APP_MODE=test python3 check.py"


def responder(kind: str, body: dict) -> list:
    if not body.get("tools"):
        return [("text", "Project check")]
    first = body["messages"][0]["content"]
    text = first if isinstance(first, str) else " ".join(b.get("text", "") for b in first if isinstance(b, dict))
    done = len(tool_results(body))
    if "Use pnpm" in text and "<automem-memory" not in text:
        if done < 2:
            return [("tool", "bash", {"command": FAIL})]
        if done == 2:
            return [("tool", "bash", {"command": FIX})]
        return [("text", "Done: check.py passes with APP_MODE=test.")]
    return [("text", "Noted.")]


@pytest.fixture(scope="module")
def pi_user(npm_clients, tmp_path_factory):
    world = World(tmp_path_factory.mktemp("pi"))
    world.install()
    server = ModelServer(responder).__enter__()
    agent = world.home / ".pi" / "agent"
    agent.mkdir(parents=True)
    (agent / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "loopback": {
                        "baseUrl": server.url,
                        "api": "anthropic-messages",
                        "apiKey": "dummy",
                        "models": [{"id": "claude-loopback"}],
                    }
                }
            }
        )
    )
    env = world.env(PI_OFFLINE="1", PI_TELEMETRY="0", PI_SKIP_VERSION_CHECK="1")
    argv = [str(npm_clients["pi"]), "-p", "--provider", "loopback", "--model", "claude-loopback"]
    out = subprocess.run(
        [*argv, PROMPT],
        cwd=world.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    sessions = sorted((agent / "sessions").rglob("*.jsonl"))
    yield world, server, out, argv, env, sessions
    server.__exit__(None, None, None)
    world.keep("pi", sessions)


def test_installed_version_is_the_pinned_one(npm_clients):
    out = subprocess.run(
        [str(npm_clients["pi"]), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "PI_OFFLINE": "1"},
    )
    assert (out.stdout + out.stderr).strip().endswith(CLIENTS["pi"][1])


def test_the_scripted_session_ran_through_the_real_bash_tool(pi_user):
    world, server, out, *_, sessions = pi_user
    assert "Done: check.py passes" in out.stdout and len(sessions) == 1
    results = [json.dumps(r.get("content")) for r in tool_results(server.model_requests()[-1].body)]
    assert len(results) == 3 and "APP_MODE is not set" in results[0] and "check ok" in results[2]


def test_bank_run_banks_the_pi_turn(pi_user):
    world, *_ = pi_user
    out = world.automem("bank", "run")
    assert out.returncode == 0, out.stderr
    entries = world.bank_entries()
    assert len(entries) == 1 and 'harness: "pi"' in entries[0].read_text() and PROMPT in entries[0].read_text()


def test_extract_learns_the_preference_and_the_failure(pi_user):
    world, *_, sessions = pi_user
    out = world.automem("extract", "--transcript", str(sessions[0]), "--harness", "pi")
    assert out.returncode == 0, out.stdout + out.stderr
    texts = [p.read_text() for p in world.memories()]
    pref = [t for t in texts if "Use pnpm, not npm, in this repo" in t]
    assert pref and 'status: "promoted"' in pref[0] and 'harness: "pi"' in pref[0]
    assert any("APP_MODE" in t for t in texts), texts


def test_the_next_job_gets_the_memory_through_automem_run(pi_user):
    world, server, _, argv, env, _ = pi_user
    wait_for(lambda: any("Use pnpm" in p.read_text() for p in world.memories()), "the stored preference", 5)
    server.reset()
    out = subprocess.run(
        [str(AUTOMEM), "run", "--", *argv, "{memory}\n\nHello again."],
        cwd=world.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    bodies = [r.text for r in server.model_requests() if r.body.get("tools")]
    assert bodies and "<automem-memory" in bodies[0] and "pnpm" in bodies[0]

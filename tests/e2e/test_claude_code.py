"""The real Claude Code client (print mode) against a scripted Anthropic Messages server on loopback.

Session 1: the user states a preference; the model runs ``python3 check.py`` (fails twice),
then ``APP_MODE=test python3 check.py`` (succeeds), then answers. The hooks capture it, the
Stop worker banks the turn and stores the lessons. Session 2 starts with the brief. Also:
``claude mcp list`` shows automem connected, an automem MCP tool call round trip and a slash command.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .e2e_support import CLIENTS, World, tool_results, wait_for
from .model_server import ModelServer

PROMPT = "Run the project check. Use pnpm, not npm, in this repo."
FAIL = "python3 check.py"
FIX = "APP_MODE=test python3 check.py"


def claude_env(world: World, server: ModelServer) -> dict:
    return world.env(
        ANTHROPIC_BASE_URL=server.url,
        ANTHROPIC_API_KEY="dummy",
        IS_SANDBOX="1",
        DISABLE_TELEMETRY="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_ERROR_REPORTING="1",
    )


def run_claude(claude: Path, world: World, server: ModelServer, prompt: str) -> subprocess.CompletedProcess:
    out = subprocess.run(
        [str(claude), "-p", "--dangerously-skip-permissions", prompt],
        cwd=world.project,
        env=claude_env(world, server),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, f"claude -p failed ({out.returncode}):\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}"
    return out


def first_prompt(body: dict) -> str:
    for message in body.get("messages", []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        return "\n".join(t for t in texts if not t.startswith("<system-reminder>"))
    return ""


def responder(kind: str, body: dict) -> list:
    """The script: decided by the conversation's first prompt and how many tool results it has."""
    if not body.get("tools"):  # a side request (title, summary): any short text will do
        return [("text", "Project check")]
    prompt, done = first_prompt(body), len(tool_results(body))
    if "Use pnpm" in prompt:
        if done < 2:
            return [("tool", "Bash", {"command": FAIL, "description": "Run the project check"})]
        if done == 2:
            return [("tool", "Bash", {"command": FIX, "description": "Run the check with APP_MODE set"})]
        return [("text", "Done: check.py passes with APP_MODE=test.")]
    if "search your memory" in prompt and done == 0:
        return [("tool", "mcp__automem__memory_search", {"query": "pnpm"})]
    return [("text", "Noted.")]


@pytest.fixture(scope="module")
def claude_world(npm_clients, tmp_path_factory):
    """One Claude Code user for the module: installed, then session 1 run once (the tests read what it left)."""
    world = World(tmp_path_factory.mktemp("claude"))
    world.install()
    server = ModelServer(responder).__enter__()
    out = run_claude(npm_clients["claude"], world, server, PROMPT)
    yield world, server, out, npm_clients["claude"]
    server.__exit__(None, None, None)
    world.keep("claude-code", sorted((world.home / ".claude" / "projects").glob("*/*.jsonl")))


def transcript(world: World) -> Path:
    files = sorted((world.home / ".claude" / "projects").glob("*/*.jsonl"))
    assert files, "Claude Code wrote no transcript"
    return files[0]


def test_installed_version_is_the_pinned_one(claude_world):
    _, _, _, claude = claude_world
    out = subprocess.run([str(claude), "--version"], capture_output=True, text=True, timeout=60)
    assert out.stdout.startswith(CLIENTS["claude"][1])


def test_the_scripted_session_ran_through_the_real_bash_tool(claude_world):
    world, server, out, _ = claude_world
    assert "Done: check.py passes" in out.stdout
    last = [r for r in server.model_requests() if r.body.get("tools")][-1].body
    results = [json.dumps(r.get("content")) for r in tool_results(last)]
    assert len(results) == 3 and "APP_MODE is not set" in results[0] and "check ok" in results[2]


def test_hooks_fired_into_the_spool(claude_world):
    world, _, _, _ = claude_world
    events = wait_for(lambda: world.spool(), "spool lines")
    kinds = {(e["event"], e.get("kind")) for e in events}
    assert ("UserPromptSubmit", "feedback") in kinds
    assert ("PreToolUse", "tool") in kinds
    failures = [e for e in events if e["event"] == "PostToolUseFailure" and e.get("kind") == "result"]
    assert len(failures) == 2 and all(e["input"] == FAIL and e["exit_code"] == 1 for e in failures)
    assert any(e["event"] == "PostToolUse" and e.get("input") == FIX for e in events)
    assert all(e["harness"] == "claude-code" for e in events)
    assert "Traceback" not in world.log()


def test_the_turn_is_banked_at_stop(claude_world):
    world, _, _, _ = claude_world
    entries = wait_for(world.bank_entries, "a bank entry for the print-mode turn (no turn_duration record)")
    text = entries[0].read_text()
    assert 'harness: "claude-code"' in text and "Use pnpm, not npm" in text


def test_the_preference_is_a_promoted_memory_and_the_fix_a_lesson(claude_world):
    world, _, _, _ = claude_world

    def stored():
        texts = [p.read_text() for p in world.memories()]
        pref = [t for t in texts if "Use pnpm, not npm, in this repo" in t]
        fix = [t for t in texts if "APP_MODE" in t]
        return (pref, fix) if pref and fix else None

    pref, fix = wait_for(stored, "the preference and the fix as memories")
    assert 'status: "promoted"' in pref[0]
    assert any('rule: "repeated_error_rule"' in t or 'rule: "verified_fix_rule"' in t for t in fix), fix


def test_the_next_session_gets_the_brief(claude_world):
    world, server, _, claude = claude_world
    wait_for(lambda: any("Use pnpm" in p.read_text() for p in world.memories()), "the stored preference")
    server.reset()
    run_claude(claude, world, server, "Hello again.")
    bodies = [r.text for r in server.model_requests() if r.body.get("tools")]
    assert bodies and "<automem-memory" in bodies[0]
    assert "pnpm" in bodies[0].split("<automem-memory", 1)[1]


def test_claude_mcp_list_shows_automem_connected(claude_world):
    world, server, _, claude = claude_world
    out = subprocess.run(
        [str(claude), "mcp", "list"],
        cwd=world.project,
        env=claude_env(world, server),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    line = next((line for line in out.stdout.splitlines() if line.startswith("automem")), "")
    assert "Connected" in line and "mcp" in line, out.stdout


def test_mcp_tool_call_round_trip(claude_world):
    world, server, _, claude = claude_world
    wait_for(lambda: any("Use pnpm" in p.read_text() for p in world.memories()), "the stored preference")
    server.reset()
    run_claude(claude, world, server, "Please search your memory for pnpm.")
    answered = [r.body for r in server.model_requests() if tool_results(r.body)]
    assert answered, "no request carried the MCP tool's result"
    result = json.dumps(tool_results(answered[-1])[-1])
    assert "still connecting" not in result, result
    assert "Use pnpm" in result and '"is_error": true' not in result, result


def test_slash_command_runs_automem(claude_world):
    world, server, _, claude = claude_world
    server.reset()
    run_claude(claude, world, server, "/memory-status")
    bodies = [r.text for r in server.model_requests() if r.body.get("tools")]
    assert bodies and "## automem status" in bodies[0]
    assert str(world.automem_home) in bodies[0] or "consent" in bodies[0]

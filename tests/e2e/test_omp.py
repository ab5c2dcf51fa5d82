"""The real oh-my-pi coding agent (``omp -p``, on Bun) against the scripted Anthropic Messages server on loopback.

omp is a fork of pi and, like it, has no shell-hook contract: ``automem bank run`` banks its session
files, ``automem extract`` learns from one, and ``automem run -- omp -p "{memory} ..."`` puts the
memory into the next job's prompt. The loopback model is a custom provider in
``~/.omp/agent/models.yml``; ``--model loopback/claude-loopback`` selects it.
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
MODELS_YML = """\
providers:
  loopback:
    baseUrl: {url}
    api: anthropic-messages
    apiKey: dummy
    models:
      - id: claude-loopback
"""


def responder(kind: str, body: dict) -> list:
    if not body.get("tools"):
        return [("text", "Project check")]
    first = body["messages"][0]["content"]  # omp puts a <system-reminder> (date, cwd) before the prompt
    text = first if isinstance(first, str) else " ".join(b.get("text", "") for b in first if isinstance(b, dict))
    done = len(tool_results(body))
    if "Use pnpm" in text and "<automem-memory" not in text:
        if done < 2:
            return [("tool", "bash", {"command": FAIL})]
        if done == 2:
            return [("tool", "bash", {"command": FIX})]
        return [("text", "Done: check.py passes with APP_MODE=test.")]
    return [("text", "Noted.")]


def bun_only_path(world_root, npm_clients) -> str:
    """A PATH folder holding only ``bun`` (omp's interpreter), not the other clients' executables."""
    folder = world_root / "bun-bin"
    folder.mkdir(exist_ok=True)
    link = folder / "bun"
    if not link.exists():
        link.symlink_to(npm_clients["bun"])
    return str(folder)


@pytest.fixture(scope="module")
def omp_user(npm_clients, tmp_path_factory):
    world = World(tmp_path_factory.mktemp("omp"))
    world.extra_path.append(bun_only_path(world.root, npm_clients))
    world.install()
    server = ModelServer(responder).__enter__()
    agent = world.home / ".omp" / "agent"
    agent.mkdir(parents=True)
    (agent / "models.yml").write_text(MODELS_YML.format(url=server.url))
    env = world.env()
    argv = [str(npm_clients["omp"]), "-p", "--model", "loopback/claude-loopback"]
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
    sessions = sorted((agent / "sessions").glob("*/*.jsonl"))
    yield world, server, out, argv, env, sessions
    server.__exit__(None, None, None)
    world.keep("omp", sessions)


def test_installed_version_is_the_pinned_one(npm_clients, tmp_path):
    path = f"{bun_only_path(tmp_path, npm_clients)}:/usr/local/bin:/usr/bin:/bin"
    out = subprocess.run(
        [str(npm_clients["omp"]), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": path, "HOME": str(tmp_path)},
    )
    assert (out.stdout + out.stderr).strip().endswith(CLIENTS["omp"][1]), out.stdout + out.stderr
    bun = subprocess.run([str(npm_clients["bun"]), "--version"], capture_output=True, text=True, timeout=60)
    assert bun.stdout.strip() == CLIENTS["bun"][1]


def test_the_scripted_session_ran_through_the_real_bash_tool(omp_user):
    world, server, out, *_, sessions = omp_user
    assert "Done: check.py passes" in out.stdout and len(sessions) == 1
    results = [json.dumps(r.get("content")) for r in tool_results(server.model_requests()[-1].body)]
    assert len(results) == 3 and "APP_MODE is not set" in results[0] and "check ok" in results[2]
    # what the omp reader relies on: the title slot first, then the pi-style session header
    first, second = (json.loads(line) for line in sessions[0].read_text().splitlines()[:2])
    assert first["type"] == "title" and second["type"] == "session" and second["cwd"] == str(world.project)


def test_bank_run_banks_the_omp_turn(omp_user):
    world, *_ = omp_user
    out = world.automem("bank", "run")
    assert out.returncode == 0, out.stderr
    entries = world.bank_entries()
    assert len(entries) == 1
    text = entries[0].read_text()
    assert 'harness: "omp"' in text and PROMPT in text and "APP_MODE=test python3 check.py" in text


def test_extract_learns_the_preference_and_the_failure(omp_user):
    world, *_, sessions = omp_user
    out = world.automem("extract", "--transcript", str(sessions[0]))  # the format is recognised, not given
    assert out.returncode == 0, out.stdout + out.stderr
    texts = [p.read_text() for p in world.memories()]
    pref = [t for t in texts if "Use pnpm, not npm, in this repo" in t]
    assert pref and 'status: "promoted"' in pref[0] and 'harness: "omp"' in pref[0]
    lesson = [t for t in texts if "APP_MODE" in t]
    assert lesson and any('rule: "repeated_error_rule"' in t or 'rule: "verified_fix_rule"' in t for t in lesson), texts


def test_the_next_job_gets_the_memory_through_automem_run(omp_user):
    world, server, _, argv, env, _ = omp_user
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
    assert "Noted." in out.stdout
    bodies = [r.text for r in server.model_requests() if r.body.get("tools")]
    assert bodies and "<automem-memory" in bodies[0] and "pnpm" in bodies[0]

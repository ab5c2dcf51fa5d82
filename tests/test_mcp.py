"""`automem mcp` driven by the MCP SDK's own stdio client: a real server subprocess, a real memory tree."""

from __future__ import annotations

import os
import secrets
import string
import sys
from pathlib import Path

import anyio
import pytest

mcp = pytest.importorskip("mcp")

from mcp import types  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

BIN = Path(sys.executable).parent
TOOLS = {"memory_search", "recall_memory", "memory_get", "memory_bank", "record_learning", "context_brief"}
LESSON = {
    "type": "pattern",
    "summary": "Run the test suite through the project venv",
    "content": "Call .venv/bin/python -m pytest -q: the system interpreter lacks click and frontmatter.",
    "why": "The suite failed with ImportError twice.",
    "how_to_apply": "Always use the venv interpreter.",
    "tags": ["pytest", "venv"],
}


def _command() -> tuple[str, list[str]]:
    script = BIN / "automem"
    return (str(script), ["mcp"]) if script.exists() else (sys.executable, ["-m", "automem", "mcp"])


@pytest.fixture
def env(tmp_path: Path) -> dict:
    home, user, project = tmp_path / "automem-home", tmp_path / "user", tmp_path / "work" / "shop-app"
    user.mkdir()
    project.mkdir(parents=True)
    return {
        "home": home,
        "project": project,
        "env": {**os.environ, "AUTOMEM_HOME": str(home), "HOME": str(user), "AUTOMEM_MODEL": "off"},
    }


def session(env: dict, scenario, client: str = "pytest-agent"):
    """Run ``scenario(session)`` against a fresh ``automem mcp`` subprocess started in the project folder."""
    command, args = _command()
    params = StdioServerParameters(command=command, args=args, env=env["env"], cwd=str(env["project"]))

    async def main():
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write, client_info=types.Implementation(name=client, version="1")) as s:
                    await s.initialize()
                    return await scenario(s)

    return anyio.run(main)


def _ok(result) -> dict:
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def _error_text(result) -> str:
    assert result.is_error
    return " ".join(c.text for c in result.content if isinstance(c, types.TextContent))


def test_lists_every_tool_with_schema_descriptions_and_annotations(env):
    async def scenario(s):
        return (await s.list_tools()).tools

    tools = {t.name: t for t in session(env, scenario)}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40
        props = tool.input_schema["properties"]
        assert props and all(p.get("description") for p in props.values()), tool.name
        assert "cwd" in props
        assert tool.annotations is not None and tool.annotations.open_world_hint is False
    for name in ("memory_search", "recall_memory", "memory_get", "context_brief"):
        assert tools[name].annotations.read_only_hint is True
    for name in ("memory_bank", "record_learning"):
        assert tools[name].annotations.read_only_hint is False
        assert tools[name].annotations.destructive_hint is False
        assert set(tools[name].input_schema["required"]) == {"type", "summary", "content"}
        assert tools[name].input_schema["properties"]["type"]["enum"] == [
            "pattern",
            "decision",
            "preference",
            "observation",
        ]
    assert tools["memory_search"].input_schema["required"] == ["query"]
    assert tools["recall_memory"].input_schema == tools["memory_search"].input_schema
    assert {"query", "type", "since", "harness", "limit", "all_projects", "cwd"} <= set(
        tools["memory_search"].input_schema["properties"]
    )


def test_bank_then_search_get_and_brief_each_tool(env):
    async def scenario(s):
        banked = _ok(await s.call_tool("memory_bank", LESSON))
        other = _ok(
            await s.call_tool(
                "record_learning",
                {
                    "type": "preference",
                    "summary": "Prefer ruff format over black in this repository",
                    "content": "The user reformatted with ruff and asked to keep ruff as the formatter.",
                    "scope": "global",
                },
            )
        )
        found = _ok(await s.call_tool("memory_search", {"query": "pytest venv interpreter"}))
        alias = _ok(await s.call_tool("recall_memory", {"query": "pytest venv interpreter", "type": "pattern"}))
        none = _ok(await s.call_tool("memory_search", {"query": "pytest", "type": "decision"}))
        by_id = _ok(await s.call_tool("memory_get", {"id": banked["id"]}))
        by_path = _ok(await s.call_tool("memory_get", {"path": found["hits"][0]["path"]}))
        brief = _ok(await s.call_tool("context_brief", {"budget_tokens": 400}))
        return banked, other, found, alias, none, by_id, by_path, brief

    banked, other, found, alias, none, by_id, by_path, brief = session(env, scenario, client="Claude Code")
    assert banked["status"] == "stored" and other["status"] == "stored"
    assert other["project"] == "_global"
    assert found["hits"][0]["id"] == banked["id"] and "memory_get" in found["more"]
    assert len(found["hits"][0].get("snippet", "")) <= 201
    assert alias["hits"] == found["hits"]
    assert none["count"] == 0
    assert LESSON["content"] in by_id["text"] and LESSON["why"] in by_id["text"]
    assert by_path["text"] == by_id["text"]
    assert 'source: "mcp:Claude-Code"' in by_id["text"] and 'harness: "claude-code"' in by_id["text"]
    assert banked["id"] in brief["memory_ids"] and banked["id"] in brief["text"]
    assert brief["tokens"] <= 400 and brief["text"].startswith("<automem-memory")
    files = list((env["home"] / "projects").glob("*/memories/*.md"))
    assert len(files) == 2


def test_bank_twice_reinforces_instead_of_duplicating(env):
    async def scenario(s):
        first = _ok(await s.call_tool("memory_bank", LESSON))
        again = _ok(await s.call_tool("record_learning", {**LESSON, "why": "", "how_to_apply": ""}))
        different = _ok(
            await s.call_tool(
                "memory_bank",
                {
                    "type": "decision",
                    "summary": "Store dates as UTC ISO strings in the orders table",
                    "content": "Local times broke the nightly report across the DST change; all writers now use UTC.",
                },
            )
        )
        return first, again, different

    first, again, different = session(env, scenario)
    assert first["status"] == "stored"
    assert again["status"] == "reinforced" and again["id"] == first["id"] and again["seen"] == 2
    assert different["status"] == "stored" and different["id"] != first["id"]
    files = sorted((env["home"] / "projects").glob("*/memories/*.md"))
    assert len(files) == 2
    assert any("seen: 2" in f.read_text() for f in files)


def test_bad_arguments_get_a_clear_error_and_the_server_keeps_serving(env):
    outside = env["project"].parent / "secret-notes.md"
    outside.write_text("not memory\n")

    async def scenario(s):
        errors = {
            "limit": await s.call_tool("memory_search", {"query": "x", "limit": "many"}),
            "missing": await s.call_tool("memory_bank", {"type": "pattern", "summary": "no content"}),
            "type": await s.call_tool("memory_bank", {**LESSON, "type": "rumour"}),
            "since": await s.call_tool("memory_search", {"query": "pytest", "since": "last tuesday"}),
            "both": await s.call_tool("memory_get", {"id": "a", "path": "b"}),
            "unknown_id": await s.call_tool("memory_get", {"id": "no-such-id"}),
            "outside": await s.call_tool("memory_get", {"path": str(outside)}),
            "dotdot": await s.call_tool("memory_get", {"path": "../" + outside.name}),
            "cwd": await s.call_tool("context_brief", {"cwd": "relative/path"}),
            "budget": await s.call_tool("context_brief", {"budget_tokens": 10**9}),
        }
        after = _ok(await s.call_tool("memory_bank", LESSON))
        return errors, after

    errors, after = session(env, scenario)
    text = {k: _error_text(v) for k, v in errors.items()}
    assert "limit" in text["limit"]
    assert "content" in text["missing"] and "required" in text["missing"].lower()
    assert "pattern" in text["type"]
    assert "7d" in text["since"]
    assert "exactly one of id or path" in text["both"]
    assert "no-such-id" in text["unknown_id"] and "memory_search" in text["unknown_id"]
    assert "AUTOMEM_HOME" in text["outside"] and "AUTOMEM_HOME" in text["dotdot"]
    assert "not memory" not in text["outside"]
    assert "absolute" in text["cwd"]
    assert "budget_tokens" in text["budget"]
    assert after["status"] == "stored"


def test_a_secret_given_to_memory_bank_is_nowhere_under_automem_home(env):
    alphabet = string.ascii_letters + string.digits
    token = "ghp_" + "".join(secrets.choice(alphabet) for _ in range(36))
    password = "Zq" + "".join(secrets.choice(alphabet) for _ in range(18)) + "!9"

    async def scenario(s):
        stored = _ok(
            await s.call_tool(
                "memory_bank",
                {
                    "type": "observation",
                    "summary": f"Deploys authenticate with {token}",
                    "content": f"The staging deploy script reads the token {token} from its "
                    f"config.\npassword={password}\n"
                    "Rotate it when the deploy user changes.",
                    "why": f"password={password}",
                    "tags": ["deploy", token],
                },
            )
        )
        found = _ok(await s.call_tool("memory_search", {"query": "staging deploy script token"}))
        return stored, found

    stored, found = session(env, scenario)
    assert stored["status"] == "stored" and token not in str(stored)
    assert found["count"] >= 1 and token not in str(found) and password not in str(found)
    files = [p for p in env["home"].rglob("*") if p.is_file()]
    assert any(p.name == "index.db" for p in files) and any(p.suffix == ".md" for p in files)
    for path in files:
        data = path.read_bytes()
        assert token.encode() not in data, path
        assert password.encode() not in data, path
    memory = next(p for p in files if p.parent.name == "memories")
    assert "Rotate it when the deploy user changes." in memory.read_text()


def test_concurrent_memory_bank_calls_store_one_memory_and_count_every_call(env):
    """Six agents bank the same lesson at once: one file, seen six times (no duplicate, no lost reinforcement)."""

    async def scenario(s):
        results = []

        async def call():
            results.append(_ok(await s.call_tool("memory_bank", LESSON)))

        async with anyio.create_task_group() as group:
            for _ in range(6):
                group.start_soon(call)
        return results

    results = session(env, scenario)
    assert sorted(r["status"] for r in results) == ["reinforced"] * 5 + ["stored"]
    files = list(env["home"].glob("projects/*/memories/*.md"))
    assert len(files) == 1
    assert "seen: 6" in files[0].read_text()


def test_memory_get_by_id_refuses_a_symlink_out_of_the_tree(env, tmp_path):
    outside = tmp_path / "private-notes.md"
    outside.write_text("---\nid: evil\ntype: observation\nsummary: private\n---\n\nnot automem's to show\n")

    async def scenario(s):
        _ok(await s.call_tool("memory_bank", LESSON))
        folder = next(env["home"].glob("projects/*/memories"))
        (folder / "evil.md").symlink_to(outside)
        return await s.call_tool("memory_get", {"id": "evil"})

    result = session(env, scenario)
    assert result.is_error and "not automem's to show" not in str(result.content)


def test_memory_bank_restating_a_candidate_promotes_it_without_counting_a_session(automem_home, tmp_path):
    from automem import mcp_server
    from automem.home import Home
    from automem.index.upsert import index_file
    from automem.store.memories import Memory, parse, save

    home = Home.current().ensure()
    project = home.project_for_cwd(str(tmp_path))
    memory = Memory(
        type="pattern",
        summary="vite build bundles log-server.mjs; keep it outside src",
        content="vite build kept bundling log-server.mjs until it moved to tools/",
        status="candidate",
    )
    save(project, memory)
    index_file(memory.path, str(home.root))
    done = mcp_server.bank(
        type="pattern",
        summary="vite build bundles log-server.mjs; keep it outside src",
        content="vite build kept bundling log-server.mjs until it moved to tools/",
        cwd=str(tmp_path),
    )
    assert done["status"] == "promoted" and done["id"] == memory.id
    again = parse(memory.path)
    assert (again.state, again.promoted, again.seen) == ("promoted", "agent", 1)

"""`automem mcp` as raw JSON-RPC over a pipe: negotiation, notifications, errors, order, a clean stdout, EOF.

tests/test_mcp.py drives the server with the MCP SDK's own client; these send the lines a client
might send, well-formed or not, and read every line that comes back.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import hook_command

from automem import __version__, mcp_server, mcp_stdio
from automem.mcp_stdio import Server, ToolError

LESSON = {
    "type": "pattern",
    "summary": "Run the test suite through the project venv",
    "content": "Call .venv/bin/python -m pytest -q: the system interpreter lacks click.",
}


def init(version: str = "2025-11-25", ident=1, client: str = "raw-test") -> dict:
    return {
        "jsonrpc": "2.0",
        "id": ident,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": client, "version": "1"}},
    }


def request(ident, method: str, params: dict | None = None) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": method, **({"params": params} if params is not None else {})}


def call(ident, name: str, arguments) -> dict:
    return request(ident, "tools/call", {"name": name, "arguments": arguments})


@pytest.fixture
def world(tmp_path: Path) -> dict:
    home, user, project = tmp_path / "automem-home", tmp_path / "user", tmp_path / "work" / "shop-app"
    user.mkdir()
    project.mkdir(parents=True)
    env = {**os.environ, "AUTOMEM_HOME": str(home), "HOME": str(user), "AUTOMEM_MODEL": "off"}
    return {"home": home, "user": user, "project": project, "env": env}


def exchange(world: dict, lines: list, *, argv: list[str] | None = None) -> tuple[list, subprocess.CompletedProcess]:
    """Write every line at once, close stdin, and return each stdout line decoded (and the finished process)."""
    data = b"".join((line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n" for line in lines)
    done = subprocess.run(
        argv or [*hook_command(), "mcp"],
        input=data,
        capture_output=True,
        env=world["env"],
        cwd=world["project"],
        timeout=120,
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    return replies, done


def test_initialize_echoes_a_supported_version_and_answers_the_latest_otherwise(world):
    versions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01", "next"]
    for version in versions:
        replies, done = exchange(world, [init(version)])
        assert done.returncode == 0 and len(replies) == 1, done.stderr
        result = replies[0]["result"]
        expected = version if version in mcp_stdio.PROTOCOL_VERSIONS else "2025-11-25"
        assert result["protocolVersion"] == expected, version
        assert result["capabilities"] == {"tools": {"listChanged": False}}
        assert result["serverInfo"] == {"name": "automem", "version": __version__}
        assert result["instructions"] == mcp_server.INSTRUCTIONS
        assert replies[0]["id"] == 1 and replies[0]["jsonrpc"] == "2.0"


def test_notifications_get_no_reply_and_requests_are_answered_in_order(world):
    lines = [
        init(),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "method": "notifications/whatever"},
        {"jsonrpc": "2.0", "id": 99, "result": {}},  # a response to a request the server never sent
        request(2, "ping"),
        request("three", "tools/list"),
        call(4, "memory_bank", LESSON),
        call(5, "memory_search", {"query": "pytest venv interpreter"}),
        request(6, "ping", {"_meta": {}}),
    ]
    replies, done = exchange(world, lines)
    assert done.returncode == 0, done.stderr
    assert [r["id"] for r in replies] == [1, 2, "three", 4, 5, 6]
    assert replies[1]["result"] == {} and replies[5]["result"] == {}
    assert [t["name"] for t in replies[2]["result"]["tools"]] == list(mcp_server.HANDLERS)
    banked, found = replies[3]["result"], replies[4]["result"]
    assert banked["isError"] is False and banked["structuredContent"]["status"] == "stored"
    assert found["structuredContent"]["hits"][0]["id"] == banked["structuredContent"]["id"]  # the bank ran first
    assert json.loads(found["content"][0]["text"]) == found["structuredContent"]
    assert found["content"][0]["type"] == "text"


def test_json_rpc_errors(world):
    lines = [
        init(),
        b"this is not json {",
        b"\xff\xfe not utf-8",
        request(2, "resources/list"),
        request(3, "no/such/method", {"x": 1}),
        {"id": 4, "method": "ping"},  # no jsonrpc member
        {"jsonrpc": "1.0", "id": 5, "method": "ping"},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "2.0", "id": 9, "method": 12},
        {"jsonrpc": "2.0", "id": 10},
        b"42",
        request(12, "tools/list", ["not", "an", "object"]),
        {"jsonrpc": "2.0", "id": 13, "method": "initialize", "params": {"capabilities": {}}},
        request(14, "tools/call", {"arguments": {}}),
        call(15, "memory_search", "query=pytest"),
        call(16, "no_such_tool", {}),
        request(17, "ping"),
    ]
    replies, done = exchange(world, lines)
    assert done.returncode == 0, done.stderr
    codes = [(r["id"], r.get("error", {}).get("code")) for r in replies]
    assert codes == [
        (1, None),
        (None, -32700),
        (None, -32700),
        (2, -32601),
        (3, -32601),
        (4, -32600),
        (5, -32600),
        (None, -32600),
        (None, -32600),
        (9, -32600),
        (10, -32600),
        (None, -32600),
        (12, -32602),
        (13, -32602),
        (14, -32602),
        (15, -32602),
        (16, -32602),
        (17, None),
    ]
    by_id = {r["id"]: r for r in replies if r["id"] is not None}
    assert by_id[3]["error"]["message"] == "Method not found" and by_id[3]["error"]["data"] == "no/such/method"
    assert "protocolVersion" in by_id[13]["error"]["message"]
    assert by_id[16]["error"]["message"] == "Unknown tool: no_such_tool"
    assert all(set(r) == {"jsonrpc", "id", "error"} for r in replies if "error" in r)


def test_a_batch_gets_one_array_of_replies(world):
    batch = json.dumps(
        [request(2, "ping"), {"jsonrpc": "2.0", "method": "notifications/initialized"}, request(3, "nope"), "junk"]
    ).encode()
    replies, done = exchange(
        world, [init(), batch, b"[]", json.dumps([{"jsonrpc": "2.0", "method": "x"}]).encode(), request(4, "ping")]
    )
    assert done.returncode == 0, done.stderr
    assert replies[1] == [
        {"jsonrpc": "2.0", "id": 2, "result": {}},
        {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "Method not found", "data": "nope"}},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request: not a JSON object"}},
    ]
    assert replies[2]["error"]["code"] == -32600  # the empty batch; the batch of one notification has no reply
    assert replies[3]["id"] == 4 and len(replies) == 4


def test_tool_errors_are_results_with_a_clear_text(world):
    lines = [
        init(),
        call(2, "memory_search", {"query": "x", "limit": "many", "since": 7}),
        call(3, "memory_bank", {"type": "rumour", "summary": "s"}),
        call(4, "memory_get", {"id": "a", "path": "b"}),
        call(5, "context_brief", {"cwd": "relative/path"}),
        call(6, "memory_search", {"query": "pytest", "since": "last tuesday"}),
    ]
    replies, _ = exchange(world, lines)
    texts = {}
    for reply in replies[1:]:
        result = reply["result"]
        assert result["isError"] is True and "structuredContent" not in result
        assert [c["type"] for c in result["content"]] == ["text"]
        texts[reply["id"]] = result["content"][0]["text"]
    assert texts[2] == (
        "Error executing tool memory_search: 2 invalid arguments: since: should be a string or null, "
        'not 7; limit: should be an integer, not "many"'
    )
    assert texts[3] == (
        'Error executing tool memory_bank: 2 invalid arguments: type: should be one of "pattern", '
        '"decision", "preference", "observation", not "rumour"; content: required, not given'
    )
    assert texts[4].startswith("Error executing tool memory_get: give exactly one of id or path")
    assert "absolute" in texts[5] and "7d" in texts[6]


def test_lenient_arguments_are_converted_as_the_sdk_converts_them(world):
    lines = [
        init(),
        call(2, "memory_bank", {**LESSON, "tags": '["pytest", "venv"]', "scope": "project"}),
        call(3, "memory_search", {"query": "pytest", "limit": "3", "all_projects": "true", "cwd": None}),
        call(4, "context_brief", {"budget_tokens": 400.0}),
        call(5, "memory_get", None),
    ]
    replies, _ = exchange(world, lines)
    assert [r["result"]["isError"] for r in replies[1:4]] == [False, False, False]
    memory = next(world["home"].glob("projects/*/memories/*.md")).read_text()
    assert '"pytest"' in memory and '"venv"' in memory
    assert replies[3]["result"]["structuredContent"]["budget_tokens"] == 400
    assert "exactly one of id or path" in replies[4]["result"]["content"][0]["text"]  # no arguments: all defaults


def test_the_client_name_from_initialize_tags_what_memory_bank_stores(world):
    replies, _ = exchange(world, [init(client="codex-mcp-client"), call(2, "memory_bank", LESSON)])
    assert replies[1]["result"]["isError"] is False
    memory = next(world["home"].glob("projects/*/memories/*.md")).read_text()
    assert 'source: "mcp:codex-mcp-client"' in memory and 'harness: "codex"' in memory


def test_nothing_is_read_or_written_under_the_home_before_a_tool_call(world):
    lines = [
        init(),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        request(2, "tools/list"),
        request(3, "ping"),
        request(4, "nope"),
        b"not json",
        call(5, "no_such_tool", {}),
    ]
    replies, done = exchange(world, lines)
    assert done.returncode == 0 and len(replies) == 6
    assert not world["home"].exists()
    assert list(world["user"].iterdir()) == []


def _imports(stderr: bytes) -> list[str]:
    lines = stderr.decode().splitlines()
    return [line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:") and "|" in line][1:]


def test_start_up_imports_only_the_standard_library_and_the_protocol_module(world):
    """What `automem mcp` imports up to its tools/list answer (python -X importtime lists every import)."""
    command = hook_command()
    entry = ["-m", "automem"] if command[0] == sys.executable else command
    replies, done = exchange(
        world, [init(), request(2, "tools/list")], argv=[sys.executable, "-X", "importtime", *entry, "mcp"]
    )
    assert len(replies) == 2 and "tools" in replies[1]["result"]
    bare = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, env=world["env"])
    names = [n for n in _imports(done.stderr) if n not in set(_imports(bare.stderr))]  # not the interpreter's own
    assert "automem.mcp_stdio" in names
    outside = [
        n
        for n in names
        if n.split(".")[0] not in sys.stdlib_module_names
        and n not in ("automem", "automem.__main__", "automem.mcp_stdio")
    ]
    assert outside == []
    assert "pathlib" not in names and "typing" not in names


def test_eof_ends_the_server_cleanly_even_after_a_line_without_newline(world):
    done = subprocess.run(
        [*hook_command(), "mcp"],
        input=json.dumps(init()).encode(),
        capture_output=True,
        env=world["env"],
        cwd=world["project"],
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == b""
    assert json.loads(done.stdout)["result"]["serverInfo"]["name"] == "automem"
    empty = subprocess.run([*hook_command(), "mcp"], input=b"", capture_output=True, env=world["env"], timeout=60)
    assert (empty.returncode, empty.stdout, empty.stderr) == (0, b"", b"")


def test_stdout_carries_only_protocol_lines_whatever_a_tool_prints(world):
    """A handler's print and a child process's output go to stderr; stdout stays JSON-RPC."""
    script = textwrap.dedent("""
        import os, sys
        from automem import mcp_stdio
        def noisy(arguments, client):
            print("print from a tool")
            sys.stdout.write("write from a tool\\n")
            os.system("echo from a child process")
            os.write(1, b"raw fd 1 write\\n")
            return {"ok": True}
        tool = {"name": "noisy", "inputSchema": {"type": "object", "properties": {}}}
        mcp_stdio.serve_stdio(mcp_stdio.Server(name="t", version="1", instructions="", tools=[tool],
                                               handlers={"noisy": noisy}))
    """)
    replies, done = exchange(
        world, [init(), call(2, "noisy", {}), request(3, "ping")], argv=[sys.executable, "-c", script]
    )
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert replies[1]["result"]["structuredContent"] == {"ok": True}
    for text in (b"print from a tool", b"write from a tool", b"from a child process", b"raw fd 1 write"):
        assert text in done.stderr and text not in done.stdout


# ---------------------------------------------------------------- the Server in process


def _server(handlers: dict, tools: list | None = None, crashes: list | None = None) -> Server:
    tools = tools or [{"name": n, "inputSchema": {"type": "object", "properties": {}}} for n in handlers]
    return Server(
        name="t",
        version="1",
        instructions="",
        tools=tools,
        handlers=handlers,
        on_crash=lambda where, exc: (crashes if crashes is not None else []).append((where, exc)),
    )


def _run(server: Server, lines: list) -> list:
    out = io.BytesIO()
    server.run(io.BytesIO(b"".join(json.dumps(line).encode() + b"\n" for line in lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_crashing_tool_is_that_call_s_error_and_the_session_goes_on():
    crashes = []

    def broken(arguments, client):
        raise KeyError("boom")

    def refuses(arguments, client):
        raise ToolError("not today")

    replies = _run(
        _server({"broken": broken, "refuses": refuses}, crashes=crashes),
        [init(), call(2, "broken", {}), call(3, "refuses", {}), request(4, "ping")],
    )
    assert replies[1]["result"]["isError"] is True
    assert replies[1]["result"]["content"][0]["text"].startswith("Error executing tool broken: unexpected KeyError")
    assert replies[2]["result"]["content"][0]["text"] == "Error executing tool refuses: not today"
    assert replies[3]["result"] == {}
    assert [(where, type(exc)) for where, exc in crashes] == [("tool broken", KeyError)]


def test_handlers_are_loaded_on_the_first_tool_call_only():
    loads = []

    def load():
        loads.append(1)
        return {"t": lambda arguments, client: {"client": client.get("name")}}

    server = _server({"t": None})
    server._handlers = load
    replies = _run(server, [init(client="pi"), request(2, "tools/list"), request(3, "ping")])
    assert len(replies) == 3 and loads == []
    replies = _run(server, [call(4, "t", {}), call(5, "t", {})])
    assert [r["result"]["structuredContent"] for r in replies] == [{"client": "pi"}] * 2 and loads == [1]


def test_any_text_a_tool_returns_is_sent_as_one_valid_line():
    odd = {"text": "line one\nline two\u2028\u2029 \ud800 lone surrogate, \x00 nul, \U0001f600 emoji"}
    replies = _run(_server({"t": lambda arguments, client: odd}), [call(1, "t", {})])
    assert replies[0]["result"]["structuredContent"] == odd
    assert json.loads(replies[0]["result"]["content"][0]["text"]) == odd


def test_client_name_is_made_safe_and_points_at_the_harness():
    assert mcp_server.client_name({"name": "Claude Code"}) == "Claude-Code"
    assert mcp_server.client_name({"name": ' my editor\n"x": 1'}) == "my-editor-x-1"
    assert mcp_server.client_name({}) == "" and mcp_server.client_name(None) == ""
    assert mcp_server.client_name({"name": 7}) == ""
    assert [
        mcp_server.harness_of(mcp_server.client_name({"name": n}))
        for n in ("claude-code", "codex-mcp-client", "pi", "omp", "Antigravity", "some-editor")
    ] == ["claude-code", "codex", "pi", "omp", "antigravity", ""]

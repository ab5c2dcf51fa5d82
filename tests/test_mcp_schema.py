"""`automem mcp` stays true to the official MCP SDK: the same tools/list, the same arguments accepted.

data/mcp_tools.json is what automem.mcp_sdk's SDK server lists; automem.mcp_stdio must accept,
convert and refuse tool arguments as the SDK's own validation (pydantic) does.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from automem import __version__, mcp_sdk, mcp_server, mcp_stdio  # noqa: E402
from automem.mcp_stdio import ArgumentsError, check_arguments  # noqa: E402

REGENERATE = f"{Path(sys.executable).name} -m automem.mcp_sdk"


@pytest.fixture(scope="module")
def sdk_server():
    return mcp_sdk.build_server()


def test_the_checked_in_tools_file_is_what_the_sdk_generates(sdk_server):
    generated = mcp_sdk.render(mcp_sdk.declaration(sdk_server))
    on_disk = Path(mcp_stdio.TOOLS_FILE).read_text(encoding="utf-8")
    assert on_disk == generated, f"data/mcp_tools.json is stale: run `{REGENERATE}`"


def test_every_declared_tool_has_a_handler_and_a_schema_the_server_can_check():
    declared = mcp_stdio.load_declaration()
    assert [t["name"] for t in declared["tools"]] == list(mcp_server.HANDLERS)
    assert declared["name"] == mcp_server.SERVER_NAME and declared["instructions"] == mcp_server.INSTRUCTIONS
    for tool in declared["tools"]:
        assert mcp_stdio.schema_keywords(tool["inputSchema"]) <= mcp_stdio.SCHEMA_KEYWORDS, tool["name"]
    mcp_stdio.build_server()  # refuses a schema keyword it does not check


def test_a_schema_keyword_the_server_does_not_check_is_refused_at_start():
    tool = {"name": "t", "inputSchema": {"type": "object", "properties": {"x": {"type": "string", "pattern": "a+"}}}}
    with pytest.raises(ValueError, match="pattern"):
        mcp_stdio.Server(name="t", version="1", instructions="", tools=[tool], handlers={})


# ---------------------------------------------------------------- on the wire, next to the SDK server


def _exchange(argv: list[str], tmp_path: Path, label: str, lines: list[dict]) -> list[dict]:
    """Each request's reply from a server started in a project under tmp_path, with its own home."""
    home = tmp_path / f"home-{label}"
    env = {**os.environ, "AUTOMEM_HOME": str(home), "HOME": str(tmp_path), "AUTOMEM_MODEL": "off"}
    project = tmp_path / "work" / "shop-app"
    project.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=project
    )
    replies = []
    for line in data.splitlines(keepends=True):  # one at a time: the SDK server answers concurrently
        proc.stdin.write(line)
        proc.stdin.flush()
        if "id" in json.loads(line):
            replies.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0, proc.stderr.read()
    return replies


CALLS = [
    ("memory_search", {"query": "pytest"}),
    ("memory_search", {"query": "pytest", "limit": "5", "all_projects": "yes", "unknown": 1}),
    ("memory_search", {"query": "pytest", "limit": "many"}),
    ("memory_search", {"query": "pytest", "limit": None}),
    ("memory_search", {"query": "pytest", "limit": 3.0, "type": "decision", "since": "7d", "cwd": "null"}),
    ("memory_search", {"query": ""}),
    ("memory_search", {"query": 7}),
    ("memory_search", {"query": "x", "type": "bogus"}),
    ("memory_get", {"id": "a", "path": "b"}),
    ("memory_get", {}),
    ("memory_bank", {"type": "rumour", "summary": "s"}),
    (
        "memory_bank",
        {
            "type": "pattern",
            "summary": "Run tests with the venv",
            "content": "Use .venv/bin/python.",
            "tags": '["pytest", "venv"]',
        },
    ),
    ("memory_bank", {"type": "pattern", "summary": "s", "content": "c", "tags": ["x"] * 51}),
    ("context_brief", {"budget_tokens": 10**9}),
    ("context_brief", {"budget_tokens": "400"}),
    ("context_brief", {}),
]


def _timeless(result: dict) -> str:
    """The result with memory ids (they carry the time of the write) and timestamps masked."""
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-[0-9a-f]{6}", "<id>", json.dumps(result, sort_keys=True))
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?", "<time>", text)


def test_initialize_tools_list_and_call_outcomes_match_the_sdk_server(tmp_path):
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    lines = [
        init,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ]
    lines += [
        {"jsonrpc": "2.0", "id": 2 + i, "method": "tools/call", "params": {"name": name, "arguments": args}}
        for i, (name, args) in enumerate(CALLS)
    ]
    sdk = _exchange(
        [sys.executable, "-c", "from automem.mcp_sdk import build_server; build_server().run('stdio')"],
        tmp_path,
        "sdk",
        lines,
    )
    ours = _exchange([sys.executable, "-m", "automem", "mcp"], tmp_path, "ours", lines)

    sdk_init, our_init = sdk[0]["result"], ours[0]["result"]
    assert our_init["capabilities"] == {"tools": sdk_init["capabilities"]["tools"]}  # tools only: no prompts, resources
    assert {k: v for k, v in our_init.items() if k != "capabilities"} == {
        k: v for k, v in sdk_init.items() if k != "capabilities"
    }
    assert our_init["serverInfo"] == {"name": "automem", "version": __version__}
    assert ours[1] == sdk[1]  # tools/list, byte for byte as data
    for (name, args), mine, theirs in zip(CALLS, ours[2:], sdk[2:], strict=True):
        assert mine["result"]["isError"] == theirs["result"]["isError"], (name, args, mine, theirs)
        if not mine["result"]["isError"]:
            assert set(mine["result"]) == set(theirs["result"]) == {"content", "structuredContent", "isError"}
            assert json.loads(mine["result"]["content"][0]["text"]) == mine["result"]["structuredContent"]
            assert _timeless(mine["result"]["structuredContent"]) == _timeless(theirs["result"]["structuredContent"])
        else:
            text = mine["result"]["content"][0]["text"]
            assert text.startswith(f"Error executing tool {name}: ")


# ---------------------------------------------------------------- the arguments, against pydantic


def _sdk_outcome(sdk_server, name: str, arguments: dict):
    from pydantic import ValidationError

    tool = sdk_server._tool_manager.get_tool(name)
    try:
        return "ok", tool.fn_metadata.validate_arguments(arguments)
    except ValidationError as exc:
        return "error", sorted({str(e["loc"][0]) for e in exc.errors()})


def _our_outcome(name: str, arguments: dict):
    schema = next(t["inputSchema"] for t in mcp_stdio.load_declaration()["tools"] if t["name"] == name)
    try:
        return "ok", check_arguments(schema, arguments)
    except ArgumentsError as exc:
        return "error", sorted(exc.fields)


NUMBERISH = st.text(alphabet="0123456789+-_. e\t\n\x1c\xa0\u2003", max_size=6)
BOOLISH = st.text(alphabet="tTrRuUeEyYsSnNoOfFlL01 ", max_size=5)
WORDS = st.sampled_from(
    [
        "",
        "5",
        " 5 ",
        "5.0",
        "5.",
        "1_000",
        "-0",
        "150",
        "2500",
        "2501",
        "true",
        "False",
        "yes",
        "off",
        "t",
        "null",
        "[]",
        '["a", "b"]',
        '["a", 1]',
        "{}",
        '"pattern"',
        "pattern",
        "decision",
        "memory",
        "global",
        "project",
        "7d",
        "x" * 201,
        "x" * 2001,
        "/tmp",
    ]
)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3000),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1.0, 0.0, 10.0, 150.0, 2500.5]),
    WORDS,
    NUMBERISH,
    BOOLISH,
    st.text(max_size=8),
    st.lists(st.one_of(st.text(max_size=4), st.integers(0, 3)), max_size=3),
    st.lists(st.just("tag"), min_size=49, max_size=52),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
PROPERTIES = {
    t["name"]: list(t["inputSchema"]["properties"])
    for t in json.loads(Path(mcp_stdio.TOOLS_FILE).read_text(encoding="utf-8"))["tools"]
}


@st.composite
def tool_arguments(draw):
    name = draw(st.sampled_from(sorted(PROPERTIES)))
    keys = draw(st.lists(st.sampled_from(PROPERTIES[name] + ["extra"]), unique=True))
    return name, {key: draw(VALUES) for key in keys}


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_arguments())
def test_arguments_are_accepted_converted_and_refused_as_the_sdk_does(sdk_server, case):
    name, arguments = case
    assert _our_outcome(name, arguments) == _sdk_outcome(sdk_server, name, arguments), (name, arguments)


@pytest.mark.parametrize("name, arguments", CALLS)
def test_the_wire_cases_agree_with_the_sdk_in_process(sdk_server, name, arguments):
    assert _our_outcome(name, arguments) == _sdk_outcome(sdk_server, name, arguments)

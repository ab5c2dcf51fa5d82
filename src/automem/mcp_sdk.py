"""automem's MCP tools declared with the official MCP SDK: the source of data/mcp_tools.json.

``automem mcp`` does not import the SDK (its start-up would cost the SDK's import, about half a
second warm); it serves the ``tools/list`` entries this module generated, with automem.mcp_stdio.
The schemas come from here: the parameters' types, constraints and descriptions below, turned into
JSON Schema by the SDK the way any SDK server would. Needs the ``mcp`` package (the test extra).

Regenerate after changing a tool's parameters, title, description or annotations::

    .venv/bin/python -m automem.mcp_sdk

tests/test_mcp_schema.py does the same and fails when the checked-in file differs, and checks that
automem.mcp_stdio accepts and converts arguments as the SDK's validation does. ``build_server()`` is
a working SDK server over the same tool bodies, for those comparisons.
(No ``from __future__ import annotations``: the SDK reads the tools' annotations, defined inside
``build_server``, as real objects.)
"""

import json
import sys
from typing import Annotated, Any, Literal

from pydantic import Field

from automem import mcp_server
from automem.mcp_server import INSTRUCTIONS, MAX_TAGS, SERVER_NAME
from automem.mcp_stdio import TOOLS_FILE
from automem.schema import SEARCH_TYPES, TYPES

# ---------------------------------------------------------------- argument types (schema + descriptions)

Cwd = Annotated[
    str | None,
    Field(description="The project folder the call is about (absolute path). Default: the folder the server runs in."),
]
Query = Annotated[str, Field(min_length=1, max_length=2000, description="Words to search for (BM25 full text).")]
SearchType = Annotated[
    Literal[SEARCH_TYPES] | None,  # type: ignore[valid-type]
    Field(
        description="Only this memory type (pattern, decision, preference, observation), all memories (memory), or "
        "one kind of file (bank, journal, main)."
    ),
]
Since = Annotated[
    str | None, Field(description="Only what was written or seen since: 7d, 12h, 2w, 30m or an ISO date.")
]
HarnessName = Annotated[
    str | None, Field(description="Only what came from this harness (claude-code, codex, pi, omp, antigravity).")
]
Limit = Annotated[int, Field(ge=1, le=50, description="How many hits at most.")]
AllProjects = Annotated[
    bool, Field(description="Search every project, not just this one, its linked projects and _global.")
]
EntryId = Annotated[str | None, Field(max_length=200, description="An id from memory_search or context_brief.")]
EntryPath = Annotated[
    str | None,
    Field(max_length=4096, description="Or a path of a .md file under AUTOMEM_HOME (absolute or relative to it)."),
]
MemoryType = Annotated[
    Literal[TYPES],  # type: ignore[valid-type]
    Field(
        description="pattern (how things work here), decision (a choice made and why), preference (how the user wants "
        "things done), observation (a fact worth knowing)."
    ),
]
Summary = Annotated[
    str, Field(min_length=1, max_length=1000, description="One line, <= 120 characters (longer is cut).")
]
Content = Annotated[
    str, Field(min_length=1, max_length=20_000, description="The lesson itself, <= 4096 characters (longer is cut).")
]
Why = Annotated[str, Field(max_length=5000, description="Why it matters (<= 1024 characters).")]
HowToApply = Annotated[str, Field(max_length=5000, description="How to apply it next time (<= 1024 characters).")]
Tags = Annotated[list[str], Field(max_length=50, description=f"A few keywords (at most {MAX_TAGS} kept).")]
Scope = Annotated[
    Literal["project", "global"],
    Field(description="project (this project only) or global (every project: stored under _global)."),
]
Budget = Annotated[
    int | None,
    Field(
        ge=150,
        le=2500,
        description="Token budget of the brief (default: the configured brief.budget_tokens, about 1500).",
    ),
]


def build_server():
    """An SDK MCPServer with automem's tools registered, calling the same handlers as ``automem mcp``."""
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    from automem import __version__

    server = MCPServer(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    read_only = ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)

    def run(handler, args: dict, ctx=None) -> dict[str, Any]:
        try:
            return handler(args, _client_info(ctx))
        except mcp_server.ToolError as exc:
            raise ToolError(str(exc)) from None

    def memory_search(
        query: Query,
        type: SearchType = None,
        since: Since = None,
        harness: HarnessName = None,
        limit: Limit = 10,
        all_projects: AllProjects = False,
        cwd: Cwd = None,
    ) -> dict[str, Any]:
        return run(
            mcp_server.memory_search,
            {
                "query": query,
                "type": type,
                "since": since,
                "harness": harness,
                "limit": limit,
                "all_projects": all_projects,
                "cwd": cwd,
            },
        )

    search_doc = (
        "Search automem's memory (lessons, finished turns, job journals, MAIN.md) of this project, its "
        "linked projects and _global; ranked by BM25 with reinforcement and recency. Returns ids and "
        "short snippets: use memory_get with an id for the full text."
    )
    for name, title in (("memory_search", "Search memory"), ("recall_memory", "Recall memory")):
        server.add_tool(
            memory_search,
            name=name,
            title=title,
            annotations=read_only,
            description=search_doc + ("" if name == "memory_search" else " (Alias of memory_search.)"),
        )

    def memory_get(id: EntryId = None, path: EntryPath = None, cwd: Cwd = None) -> dict[str, Any]:
        return run(mcp_server.memory_get, {"id": id, "path": path, "cwd": cwd})

    server.add_tool(
        memory_get,
        name="memory_get",
        title="Read one memory entry",
        annotations=read_only,
        description="The Markdown of one entry (a memory, bank entry, journal day or MAIN.md) by id or "
        "by path under AUTOMEM_HOME. Pass exactly one of id or path.",
    )

    def memory_bank(
        type: MemoryType,
        summary: Summary,
        content: Content,
        why: Why = "",
        how_to_apply: HowToApply = "",
        tags: Tags = [],  # noqa: B006 - never mutated
        scope: Scope = "project",
        cwd: Cwd = None,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> dict[str, Any]:
        return run(
            mcp_server.memory_bank,
            {
                "type": type,
                "summary": summary,
                "content": content,
                "why": why,
                "how_to_apply": how_to_apply,
                "tags": tags,
                "scope": scope,
                "cwd": cwd,
            },
            ctx,
        )

    bank_doc = (
        "Store one lesson worth remembering in later sessions (a pattern, decision, preference or "
        "observation): short, specific, no secrets (they are redacted anyway). When the same lesson is "
        "already stored it is reinforced instead of duplicated. Returns status (stored, reinforced or "
        "exists) and the id."
    )
    for name, title in (("memory_bank", "Bank a lesson"), ("record_learning", "Record a learning")):
        server.add_tool(
            memory_bank,
            name=name,
            title=title,
            annotations=writes,
            description=bank_doc + ("" if name == "memory_bank" else " (Alias of memory_bank.)"),
        )

    def context_brief(budget_tokens: Budget = None, cwd: Cwd = None) -> dict[str, Any]:
        return run(mcp_server.context_brief, {"budget_tokens": budget_tokens, "cwd": cwd})

    server.add_tool(
        context_brief,
        name="context_brief",
        title="Project brief",
        annotations=read_only,
        description="The budgeted brief of the project (MAIN.md notes, the memories that matter most, "
        "newest turns, recent jobs), fenced as recalled notes; memory ids inside work with "
        "memory_get.",
    )
    return server


def _client_info(ctx: Any) -> dict:
    try:
        info = ctx.session.client_params.client_info
    except AttributeError:
        return {}
    return info.model_dump(mode="json", by_alias=True, exclude_none=True) if info is not None else {}


def declaration(server=None) -> dict:
    """What data/mcp_tools.json holds: the SDK server's name, instructions and tools/list entries."""
    import anyio

    server = server or build_server()

    async def listed():
        return await server.list_tools()

    tools = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in anyio.run(listed)]
    return {"name": server.name, "instructions": server.instructions, "tools": tools}


def render(declared: dict) -> str:
    """data/mcp_tools.json's text."""
    return json.dumps(declared, indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    text = render(declaration())
    try:
        with open(TOOLS_FILE, encoding="utf-8") as handle:
            old = handle.read()
    except FileNotFoundError:
        old = ""
    if text == old:
        print(f"{TOOLS_FILE}: unchanged")
        return 0
    with open(TOOLS_FILE, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"{TOOLS_FILE}: written ({len(json.loads(text)['tools'])} tools)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

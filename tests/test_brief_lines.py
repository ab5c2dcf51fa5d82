"""What a brief line says, read as its user would: no harness rules, whole lines, plain sentences."""

from __future__ import annotations

from automem.extract.rules import Session, errors
from automem.extract.steps import Step
from automem.schema import TOOL_PROTOCOL


def _fail(target: str, line: str, tool: str, wrapped: bool = False) -> Step:
    head = f"<tool_use_error>{line}</tool_use_error>" if wrapped else line
    return Step(
        "action",
        tool=tool,
        input=target,
        ok=False,
        result_head=head,
        errors=[{"error_type": "tool-error", "line": line, "signature": line}],
    )


def _ok(target: str, tool: str) -> Step:
    return Step("action", tool=tool, input=target, ok=True)


def test_the_harness_refusing_an_edit_before_a_read_is_a_candidate_never_promoted():
    refusal = "File has not been read yet. Read it first before writing to it."
    steps = [_fail(f"src/{n}.ts", refusal, "Edit", wrapped=True) for n in "abcd"]
    steps += [_ok("src/d.ts", "Read"), _ok("src/d.ts", "Edit")]
    [cand] = errors.repeated_error_rule(Session(steps))
    assert cand.promotion == "" and TOOL_PROTOCOL in cand.signals


def test_a_refusal_known_only_by_the_harness_wrapper_is_a_tool_protocol_error():
    step = _fail("notes.ipynb", "Cell ids must be unique within the notebook.", "NotebookEdit", wrapped=True)
    assert errors.harness_protocol(step)
    assert not errors.harness_protocol(_fail("npm test", "Error: Cannot find module 'x'", "Bash"))


def test_a_tool_protocol_memory_seen_in_another_session_stays_a_candidate(tmp_path, monkeypatch):
    from automem.schema import CANDIDATE
    from automem.store.memories import Memory, reinforce

    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path))
    path = tmp_path / "m.md"
    for tags, promoted in (([TOOL_PROTOCOL], False), ([], True)):
        memory = Memory(
            "pattern", "Edit needs a read first", "Edit failed 3 times", tags=["auto-memorize", *tags], status=CANDIDATE
        )
        memory.path = path
        reinforce(memory)
        assert (memory.state != CANDIDATE) is promoted

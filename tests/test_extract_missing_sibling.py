"""A program the shell could not find: another that does the same job run in its place is named, and the shell's
words for it read short. Short hand-written sessions."""

from __future__ import annotations

from automem.extract.rules import Session, errors
from automem.extract.steps import Step


def _not_found(cmd: str, line: str) -> Step:
    return Step(
        "action",
        tool="shell",
        input=cmd,
        ok=False,
        result_head=line,
        errors=[{"error_type": "not-found", "line": line, "signature": line}],
    )


def _ok(cmd: str) -> Step:
    return Step("action", tool="shell", input=cmd, ok=True)


def test_a_program_missing_then_its_sibling_run_for_the_job_names_the_sibling():
    steps = [_not_found("netstat -tlnp | grep :8080", "bash: line 1: netstat: command not found"), _ok("ss -tlnp")]
    [cand] = errors.missing_command_rule(Session(steps))
    assert cand.summary.startswith("netstat is not installed") and cand.summary.endswith("the session used ss")
    assert not cand.promotion
    alone = [_not_found("netstat -tlnp", "bash: netstat: command not found"), _ok("ls")]
    [plain] = errors.missing_command_rule(Session(alone))
    assert "ss" not in plain.summary.split()


def test_cmds_not_recognized_line_reads_short_and_with_no_quote_left_open():
    line = "'vitest' is not recognized as an internal or external command, operable program or batch file."
    assert errors._gist(line) == "vitest is not recognized as a command"

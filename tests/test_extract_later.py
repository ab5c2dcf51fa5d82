"""What happened later in a session undoes a lesson: rules/later.py, and errors that teach their own remedy."""

from __future__ import annotations

from automem.extract.rules import Session, errors
from automem.extract.rules.later import absent_programs, check_later, deleted_at_end
from automem.extract.steps import Step
from automem.schema import INSTRUCTION, VERIFIED_FIX, Candidate


def _ok(cmd: str, tool: str = "shell", **kw) -> Step:
    return Step("action", tool=tool, input=cmd, ok=True, **kw)


def _fail(cmd: str, line: str, tool: str = "shell") -> Step:
    return Step(
        "action", tool=tool, input=cmd, ok=False, result_head=line, errors=[{"error_type": "error-line", "line": line}]
    )


def _fix(content: str) -> Candidate:
    return Candidate("observation", "/tmp is not writable here", content, "why", "how", promotion=VERIFIED_FIX)


def _plan(promotion: str = INSTRUCTION) -> Candidate:
    return Candidate(
        "decision",
        "The plan is kept in coding-agent/docs/plan.md; keep it up to date",
        "c",
        "w",
        "h",
        promotion=promotion,
    )


WORKED = "Writing /tmp/x.log failed\nWhat worked: `nohup python3 -m http.server 8080 > x.log 2>&1 &` (elsewhere)"
NOHUP_SAYS = "nohup: failed to run command 'python3': No such file or directory"


def test_a_fix_whose_program_the_session_later_shows_missing_did_not_work():
    steps = [_ok("nohup python3 -m http.server 8080 > x.log 2>&1 & sleep 1; cat x.log", result_head=NOHUP_SAYS)]
    session = Session(steps)
    assert absent_programs(session) == {"python3"}
    [cand] = check_later(session, [_fix(WORKED)])
    assert "What worked" not in cand.content and cand.content == "Writing /tmp/x.log failed"
    assert cand.promotion == ""


def test_a_program_installed_after_it_was_missing_is_not_absent():
    steps = [
        _fail("python3 -V", "bash: python3: command not found"),
        _ok("pkg install python -y"),
        _ok("python3 -V"),
    ]
    session = Session(steps)
    assert absent_programs(session) == set()
    [cand] = check_later(session, [_fix(WORKED)])
    assert cand.content == WORKED and cand.promotion == VERIFIED_FIX
    other = Session([_fail("ssh -V", "bash: ssh: command not found"), _ok("pkg install python -y")])
    assert absent_programs(other) == {"ssh"}  # an install of something else brings no ssh


def test_a_lesson_naming_a_file_the_session_deleted_waits_as_a_candidate():
    for deleting in (
        "rm packages/coding-agent/docs/plan.md",
        "git rm -q coding-agent/docs/plan.md",
        "mv coding-agent/docs/plan.md /tmp/old-plan.md",
        "cd x && rm -f docs/plan.md",
    ):
        session = Session([_ok("ls"), _ok(deleting)])
        [cand] = check_later(session, [_plan()])
        assert cand.promotion == "", deleting
        assert "was deleted or moved away" in cand.why
        assert cand.how_to_apply.startswith("Check that coding-agent/docs/plan.md still exists first; if it does, ")


def test_a_file_deleted_then_written_again_or_another_file_keeps_the_lesson():
    written_again = Session([_ok("rm docs/plan.md"), _ok("docs/plan.md", tool="Write")])
    assert deleted_at_end(written_again) == []
    for session in (
        written_again,
        Session([_ok("rm other/notes.md")]),
        Session([_ok("rm plan.md")]),  # a bare name that the lesson's longer path does not end at a folder boundary
        Session([_fail("rm coding-agent/docs/plan.md", "rm: cannot remove: Permission denied")]),
    ):
        [cand] = check_later(session, [_plan()])
        assert cand.promotion == INSTRUCTION
    for steps in (
        [_ok("git rm --cached coding-agent/docs/plan.md")],  # untracked, still on disk
        [_ok("cd /tmp/scratch && rm coding-agent/docs/plan.md")],  # another folder's file
        [_ok("rm /tmp/fixture/coding-agent/docs/plan.md")],
        [_ok("rm ../other/coding-agent/docs/plan.md")],
        [_ok("rm coding-agent/docs/plan.md"), _ok("git checkout -- coding-agent/docs/plan.md")],  # brought back
        [_ok("mv coding-agent/docs/plan.md /tmp/p.md"), _ok("mv /tmp/p.md coding-agent/docs/plan.md")],
        [_ok("git mv coding-agent/docs/plan.md coding-agent/docs/Plan.md")],  # its case only
    ):
        [cand] = check_later(Session(steps, root="/work/repo"), [_plan()])
        assert cand.promotion == INSTRUCTION, steps
    [cand] = check_later(Session([_ok("rm /work/repo/coding-agent/docs/plan.md")], root="/work/repo"), [_plan()])
    assert cand.promotion == ""  # the project's own file, by its absolute path
    about_it = Candidate("decision", "docs/plan.md was deleted at the user's request", "c", "w", "h", promotion="x")
    [cand] = check_later(Session([_ok("rm docs/plan.md")]), [about_it])
    assert cand.promotion == "x"


TOO_BIG = (
    "File content (21901 tokens) exceeds maximum allowed tokens (10000). Use offset and limit parameters to read "
    "specific portions of the file, or search for specific content instead of reading the whole file."
)


def test_an_error_that_prescribes_its_remedy_waits_unless_it_keeps_coming_back():
    assert errors.self_taught(TOO_BIG)
    assert errors.self_taught("File has not been read yet. Read it first before writing to it.")
    assert not errors.self_taught("npm ERR! code ERESOLVE unable to resolve dependency tree")
    assert not errors.self_taught("error: cannot use -p with a value here")  # "use" not as an imperative
    for plain in (
        "error: use of undeclared identifier 'foo'",
        "error[E0382]: use of moved value: `x`",
        "Uncaught Error: Call to a member function save() on null",
        "Install failed: no space left on device",
        "urllib3: Read timed out.",
        "TypeError: Set objects are not subscriptable",
    ):
        assert not errors.self_taught(plain), plain


def test_advice_continuing_a_sentence_keeps_a_names_capitals():
    from automem.extract.rules.later import _lowered

    assert _lowered("Keep the lock file") == "keep the lock file"
    assert _lowered("PyPI needs a token") == "PyPI needs a token"

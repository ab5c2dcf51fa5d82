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
    # the wrapper around what the project's layout says is no rule of the harness
    assert not errors.harness_protocol(_fail("src/app.py", "File does not exist.", "Read", wrapped=True))


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


def test_a_list_line_too_long_for_a_brief_line_stops_at_the_titles_last_whole_item():
    from automem.brief import ITEM_CAP, memory_line

    title = "The user's choices: Language: Go; Database: Postgres; Queue: NATS; …"
    rest = " ".join(f"Part {n}: a value long enough to make the line run past the cap" for n in range(12))
    line = memory_line(
        "c1", "decision", title, f"The user chose, item by item: Language: Go Database: Postgres Queue: NATS {rest}", 1
    )
    assert line == f"- [decision] {title} (id c1)" and len(line) < ITEM_CAP + 20


def test_a_list_the_title_cut_short_goes_on_in_the_same_line_with_its_items_apart():
    from automem.brief import memory_line

    title = "The user's layout: api -> src/api; ui -> src/ui; …"
    body = "The user laid out where each part goes: - api -> src/api - ui -> src/ui - db -> src/db - cli -> bin/"
    line = memory_line("l1", "decision", title, body, 1)
    assert line == "- [decision] The user's layout: api -> src/api; ui -> src/ui; db -> src/db; cli -> bin/ (id l1)"


def test_any_brief_line_over_its_cap_is_whole_never_cut_inside_a_word():
    from automem.brief import memory_line

    detail = "What worked: `make " + " ".join(f"target{n}" for n in range(80)) + "`"
    line = memory_line("w1", "pattern", "make needs its targets named here", detail, 1)
    assert line == "- [pattern] make needs its targets named here (id w1)"


def test_a_rule_said_after_a_tool_failed_reads_as_a_sentence_naming_the_tool_at_its_end():
    from automem.capture.feedback import detect_feedback
    from automem.extract.rules import said

    line = "tool call error: tool call failed for `notes/add_entry`"
    fail = Step(
        "action",
        tool="notes__add_entry",
        input="{}",
        ok=False,
        result_head=line,
        errors=[{"error_type": "tool-error", "line": line, "signature": line}],
    )
    text = "you have to create the notebook before adding an entry to notes"
    steps = [Step("prompt", text="log what you did"), fail, Step("prompt", text=text, feedback=detect_feedback(text))]
    [cand] = said.directive_rule(Session(steps))
    assert cand.summary == "Create the notebook before adding an entry to notes (when calling notes/add_entry)"


def test_a_brief_line_leaves_out_a_quote_that_says_nothing_its_title_does_not():
    from automem.brief import memory_line

    title = "Create the notebook before adding an entry to notes (when calling notes/add_entry)"
    body = (
        'The user said: "you have to create the notebook before adding an entry to notes"\n'
        "Said after notes/add_entry failed in the turn before"
    )
    assert memory_line("n1", "decision", title, body, 1) == f"- [decision] {title} (id n1)"
    title = "When asked to summarise a log, summarise the whole log"
    body = 'The user asked for "summarise … whole" in 4 prompts, e.g.: "Summarise the whole log"'
    assert memory_line("n2", "preference", title, body, 1) == f"- [preference] {title} (id n2)"
    title = "The docs live in ~/notes/site, not where the agent starts"
    body = 'The user stopped the agent and said: "no -- the docs are in notes/site"'
    assert memory_line("n3", "observation", title, body, 1) == f"- [observation] {title} (id n3)"
    # a quote in other words than the title's stays: it is what the user said
    body = 'The user said: "中文交互，用中文来问我"'
    assert memory_line("n4", "preference", "Talk to the user in Chinese", body, 1).endswith(f"{body} (id n4)")


def test_what_worked_is_shown_only_when_it_says_more_than_the_title():
    from automem.brief import brief_detail

    title = "ruby is not on the PATH here; use ruby3 instead"
    assert brief_detail(title, "`ruby -v` failed: not found What worked: `ruby3` for the same job.") == ""
    title = "The sandbox blocks cargo publish here; rerun it with escalated permissions"
    assert brief_detail(title, "`cargo publish` failed: denied What worked: the same calls, escalated.") == ""
    # a note repeating what the command shows goes; the command stays when it tells how to pass the flag
    fix = "`make test` failed: Killed What worked: `make test ARGS=--jobs=1` (--jobs=1)."
    assert brief_detail("make test needs --jobs=1 here", fix) == "What worked: `make test ARGS=--jobs=1`."


def test_what_worked_never_shows_a_command_cut_short_or_a_cd_into_the_sessions_folder():
    from automem.brief import brief_detail

    cut = "`ls -R` failed: timed out What worked: `Get-ChildItem -Recurse | Select-Object -First 9 Name | ForEach {…`"
    assert brief_detail("Listing the vault in full times out; list it with a limit", cut) == ""
    run = "`./serve` failed: port in use What worked: `cd ~/code/shop && ./serve --port 8081` (with --port 8081)."
    assert (
        brief_detail("./serve fails when its port is taken", run)
        == "What worked: `./serve --port 8081` (with --port 8081)."
    )
    inside = "`npm test` failed: no package.json What worked: `cd web && npm test --coverage` (in web)."
    assert brief_detail("npm test must run in web", inside) == "What worked: `cd web && npm test --coverage` (in web)."
    # a folder inside the project is part of the fix even when the title does not name it
    sub = "`npm test` failed: Missing script: test What worked: `cd frontend && npm test`."
    assert brief_detail("npm test fails with 'Missing script: test'", sub) == "What worked: `cd frontend && npm test`."

"""Two lessons about how the user works with the agent: a request to fix the agent's own instructions so a mistake
does not come back, and commands split over lines that broke when the user pasted them. Each case is a short
hand-written session."""

from __future__ import annotations

from automem.extract.rules import Session, reports, requests
from automem.extract.steps import steps_from_turns
from automem.harness.model import Turn


def _session(*pairs: tuple[str, str]) -> Session:
    turns = [
        Turn(harness="claude-code", session_id="s", turn_id=str(n), prompt=p, answer=a)
        for n, (p, a) in enumerate(pairs, 1)
    ]
    return Session(steps_from_turns(turns))


def test_asking_to_fix_your_instructions_so_it_never_happens_again_is_a_preference():
    session = _session(
        ("run the migration", "Done."),
        ("look at your instructions and find what can be done to prevent this from happening again", "Here is why."),
    )
    [cand] = requests.fix_at_source_rule(session)
    assert cand.kind == "preference" and cand.promotion == "" and cand.scope == "global"
    assert "instructions" in cand.summary and "prevent" in cand.summary


def test_a_bare_agent_is_the_subagent_the_session_called_by_name():
    session = _session(
        ('@"db-migrator (agent)" migrate the users table', "Migrated."),
        ("you forgot the index", "Added it."),
        ("update agent to avoid the same miss in the future", "Updated."),
    )
    [cand] = requests.fix_at_source_rule(session)
    assert "db-migrator agent" in cand.summary and cand.scope == "project"


def test_a_bare_agent_counts_when_an_instruction_file_is_named_next():
    asked = ("How should we change the agents so this does not happen in the future", "Add a checklist.")
    assert requests.fix_at_source_rule(_session(asked, ("Update CLAUDE.md and commit", "Done."))) != []
    assert requests.fix_at_source_rule(_session(asked, ("ok do it", "Done."))) == []


def test_the_agent_the_project_builds_or_a_one_off_fix_is_no_such_preference():
    for prompt in (
        "modify the agent loop to prevent the orphan tool call in the future",  # the product is an agent
        "fix the parser so it doesn't crash again",  # no instructions named
        "update your instructions to use pnpm",  # nothing that should not recur
        "don't do that again",
        "prevent the modal from opening again when the user clicks twice, and update the docs",
    ):
        assert requests.fix_at_source_rule(_session((prompt, "Done."))) == [], prompt


_SPLIT = "Run it:\n```bash\npython -m app.cli \\\n  --input data/in.csv \\\n  --out build\n```"


def test_an_option_run_as_a_command_after_a_split_command_means_paste_single_lines():
    pasted = "usage: cli.py [-h] --input INPUT\ncli.py: error: required: --input\n--input: command not found"
    [cand] = reports.pasted_continuation_rule(_session(("how do I run it", _SPLIT), (pasted, "Use one line.")))
    assert cand.scope == "global" and "single-line" in cand.summary and "--input" in cand.summary
    zsh = "zsh: command not found: --out"
    assert reports.pasted_continuation_rule(_session(("how do I run it", _SPLIT), (zsh, "Use one line."))) != []


def test_a_command_not_found_without_a_split_command_before_is_no_paste_lesson():
    one_line = "Run it:\n```bash\npython -m app.cli --input data/in.csv\n```"
    pasted = "--input: command not found"
    assert reports.pasted_continuation_rule(_session(("how do I run it", one_line), (pasted, ""))) == []
    tool = "rg: command not found"  # a program missing, not an option
    assert reports.pasted_continuation_rule(_session(("how do I run it", _SPLIT), (tool, ""))) == []
    later = "--verbose: command not found"  # an option the split command does not continue with
    assert reports.pasted_continuation_rule(_session(("how do I run it", _SPLIT), (later, ""))) == []


def _with_calls(prompt: str, calls: list[tuple[str, str]]) -> Session:
    from automem.extract.steps import Step

    steps = [Step("prompt", text=prompt, answer="Done.")]
    steps += [Step("action", tool=tool, input=arg, raw=arg) for tool, arg in calls]
    return Session(steps)


_FOUND_AND_EDITED = [
    ("Glob", "**/deploy-check.md"),
    ("Read", "/home/u/src/dotfiles/commands/deploy-check.md"),
    ("Edit", "/home/u/src/dotfiles/commands/deploy-check.md"),
]


def test_a_slash_command_the_agent_had_to_find_before_editing_is_where_it_lives():
    [cand] = requests.command_source_rule(_with_calls("update /deploy-check to also lint", _FOUND_AND_EDITED))
    assert "/deploy-check" in cand.summary and "dotfiles/commands/deploy-check.md" in cand.summary
    assert cand.promotion == "" and cand.scope == "global"  # a file outside the project: every project's command
    session = _with_calls("update /deploy-check to also lint", _FOUND_AND_EDITED)
    session.root = "/home/u/src/dotfiles"
    [here] = requests.command_source_rule(session)
    assert here.scope == "project"  # the project's own .claude/commands file


def test_running_a_command_or_editing_it_without_a_search_is_no_location_lesson():
    assert requests.command_source_rule(_with_calls("/deploy-check fix the lint", _FOUND_AND_EDITED)) == []
    edited = _FOUND_AND_EDITED[1:]
    assert requests.command_source_rule(_with_calls("update /deploy-check to also lint", edited)) == []
    other = [("Glob", "**/*.md"), ("Edit", "/home/u/src/app/README.md")]
    assert requests.command_source_rule(_with_calls("update /deploy-check in the README", other)) == []
    assert requests.command_source_rule(_with_calls("fix the link to /docs in the footer", other)) == []


def test_a_named_agent_or_skill_of_the_project_is_no_such_preference():
    for prompt in (
        "fix the sales-bot agent so it doesn't hallucinate prices again",
        "change the skill cooldown so it does not trigger twice again",
    ):
        assert requests.fix_at_source_rule(_session((prompt, "Done."))) == [], prompt
    named = ("fix the sales-bot agent so it doesn't hallucinate prices again", "Done.")
    [cand] = requests.fix_at_source_rule(_session(named, ("now update .claude/agents/sales-bot.md too", "Done.")))
    assert "sales-bot agent" in cand.summary

"""The summary rewriter: hand-written sentences in, sentences a reader understands out of context out."""

from __future__ import annotations

import pytest

from automem.extract import phrasing
from automem.extract.candidates import error_candidates, feedback_candidates, mapping_candidates
from automem.extract.steps import Step


@pytest.mark.parametrize(("said", "summary"), [
    ("No, don't use npm for the frontend, use pnpm instead", "Use pnpm, not npm, for the frontend"),
    ("nope. do not run the migrations by hand; use make migrate instead.", "Use make migrate, not the migrations by hand"),
    ("please use uv instead of pip", "Use uv, not pip"),
    ("ok so you should call the wrapper script rather than docker directly",
     "Call the wrapper script, not docker directly"),
    ("Alright, please remove the sidebar by default", "Remove the sidebar by default"),
    ("keep logs in var/log, make sure you don't write them to /tmp", "Keep logs in var/log, never write them to /tmp"),
    ("dont squash the commits", "Don't squash the commits"),
    ("I think the parser must not allocate per token", "The parser must not allocate per token"),
])
def test_corrections_and_decisions_become_instructions(said, summary):
    assert phrasing.imperative(said) == summary


@pytest.mark.parametrize(("said", "summary"), [
    ("I prefer short commit messages in the imperative mood", "Prefer short commit messages in the imperative mood"),
    ("i'd rather you ask before deleting files", "Prefer to ask before deleting files"),
    ("I always write the test first", "Always write the test first"),
    ("i never push on fridays", "Never push on fridays"),
    ("from now on, always run the linter before committing", "Always run the linter before committing"),
    ("i hate when you add comments to every line", "Don't add comments to every line"),
    ("I would only want integration tests for the api", "Prefer only integration tests for the api"),
    ("yeah i'd prefer tabs", "Prefer tabs"),
])
def test_preferences_become_prefer_always_never(said, summary):
    assert phrasing.preference(said) == summary


def test_i_never_said_is_a_correction_not_a_habit():
    assert not phrasing.preference("I never said to delete that file").startswith("Never ")


def test_commands_are_named_as_a_reader_would():
    assert phrasing.command_name("PYTHONPATH=src pytest -q tests") == "pytest"
    assert phrasing.command_name('bash -lc "cd web && npm run build -- --prod"') == "npm run build"
    assert phrasing.command_name("git push origin main") == "git push"
    assert phrasing.command_name("python -m pytest tests/unit") == "python -m pytest"
    assert phrasing.command_name("./scripts/release.sh --dry") == "release.sh"
    assert phrasing.command_name("", tool="Edit") == "Edit"


def test_error_patterns_read_as_needs_or_fails_with():
    assert phrasing.env_needed("pytest -q", "PYTHONPATH=src pytest -q") == ["PYTHONPATH=src"]
    assert phrasing.env_needed("A=1 make", "A=1 make") == []
    assert phrasing.needs_summary("pytest", "PYTHONPATH=src", "E   ModuleNotFoundError: No module named 'app'") == (
        "pytest needs PYTHONPATH=src here: ModuleNotFoundError otherwise")
    assert phrasing.needs_summary("cargo build", "--offline", "error: failed to fetch index: network down") == (
        "cargo build needs --offline here: failed to fetch index: network down otherwise")
    assert phrasing.fails_summary("make docs", "Error: sphinx-build not found", "`pip install sphinx`") == (
        'make docs fails with "sphinx-build not found"; `pip install sphinx` fixes it')
    assert phrasing.fails_summary("npm run build", "[TypeError: x is not a function]").endswith("not resolved yet")
    assert phrasing.error_name("src/a.ts(6,3): error TS2307: Cannot find module") == "TS2307"
    assert phrasing.error_name("Error: ENOENT: no such file") == "ENOENT"
    assert phrasing.error_name("plain words") == ""


def test_long_text_loses_clauses_not_half_words():
    long = ("The release job must upload the wheel before the sdist (the mirror polls in that order), "
            "because the mirror indexes whatever arrives first and never looks again after that, which broke installs")
    out = phrasing.fit(long)
    assert len(out) <= 120 and out == ("The release job must upload the wheel before the sdist")
    words = " ".join(["parameter"] * 30)
    cut = phrasing.fit(words)
    assert len(cut) <= 120 and cut.endswith("…") and all(w == "parameter" for w in cut[:-1].split())
    assert phrasing.fit("short enough.") == "short enough"


def test_a_listing_keeps_whole_items_and_says_when_it_left_some_out():
    items = [f"module{i} -> packages/area{i}/module{i}" for i in range(8)]
    out = phrasing.listing("Layout", items)
    assert len(out) <= 120 and out.endswith("; …") and "module0 -> packages/area0/module0" in out
    assert phrasing.listing("Layout", items[:2]) == "Layout: " + "; ".join(items[:2])


def test_where_a_thing_lives_is_stated_plainly():
    assert phrasing.location("to change it, there is a settings file at conf/app.toml") == (
        "The settings file is at conf/app.toml")
    assert phrasing.location("the build works now") == ""


# --- the rewriter inside the candidate rules -------------------------------------------------------


def _fail(cmd: str, line: str, tool: str = "Bash") -> Step:
    return Step("action", tool=tool, input=cmd, ok=False, result_head=line,
                errors=[{"error_type": "generic", "line": line, "signature": line}])


def test_a_repeated_error_with_an_env_fix_reads_as_needs():
    line = "E   ModuleNotFoundError: No module named 'shop'"
    steps = [_fail("pytest -q", line), _fail("pytest -q tests/test_cart.py", line),
             Step("action", tool="Bash", input="PYTHONPATH=src pytest -q", ok=True)]
    [cand] = error_candidates(steps)
    assert cand.summary == "pytest needs PYTHONPATH=src here: ModuleNotFoundError otherwise"
    assert "PYTHONPATH=src pytest -q" in cand.content and "2 times" in cand.why


def test_user_words_are_rephrased_but_kept_whole_in_the_content():
    found = feedback_candidates([Step("prompt", text="no, don't use yarn for the docs site, use pnpm instead")])
    [cand] = [c for c in found if c.kind in ("decision", "observation")]
    assert cand.summary == "Use pnpm, not yarn, for the docs site"
    assert "don't use yarn for the docs site" in cand.content
    rejected = feedback_candidates([Step("rejection", text="use the staging bucket instead", tool="Bash",
                                         input="aws s3 cp out s3://prod")])
    assert rejected[0].summary == "Use the staging bucket instead"  # the rejected call goes to the content
    assert "aws s3 cp" in rejected[0].content and "aws" not in rejected[0].summary


def test_a_layout_summary_never_cuts_an_item_in_half():
    text = "\n".join(f"component{i} -> src/features/area{i}/component{i}" for i in range(6))
    [cand] = mapping_candidates([Step("prompt", text=text)])
    assert len(cand.summary) <= 120 and cand.summary.endswith("; …")
    for item in cand.summary.split(": ", 1)[1].split("; ")[:-1]:
        assert item in text


def test_one_named_error_fixed_by_editing_one_file_is_an_observation():
    line = "TypeError: cannot read properties of undefined (reading 'port')"
    steps = [_fail("node server.js", line),
             Step("action", tool="Edit", input="config/defaults.json", ok=True),
             Step("action", tool="Bash", input="node server.js", ok=True)]
    [cand] = error_candidates(steps)
    assert cand.kind == "observation" and cand.summary.startswith('node server.js fails with "TypeError')
    assert cand.summary.endswith("editing defaults.json fixes it") and len(cand.summary) <= 120
    interrupted = [steps[0], Step("prompt", text="the config is wrong"), *steps[1:]]
    assert error_candidates(interrupted) == []  # the user stepped in: the edit alone is not proven to fix it
    unnamed = [_fail("node server.js", "something went wrong"), *steps[1:]]
    assert error_candidates(unnamed) == []  # nothing durable to name


def test_a_plain_dont_instruction_is_a_decision():
    [cand] = feedback_candidates([Step("prompt", text="ok, don't touch the generated files under build/")])
    assert cand.kind == "decision" and cand.summary == "Don't touch the generated files under build/"
    assert feedback_candidates([Step("prompt", text="don't worry about the tests")]) == []

"""The summary rewriter: hand-written sentences in, sentences a reader understands out of context out."""

from __future__ import annotations

import pytest

from automem.extract import phrasing


@pytest.mark.parametrize(
    ("said", "summary"),
    [
        ("No, don't use npm for the frontend, use pnpm instead", "Use pnpm, not npm, for the frontend"),
        (
            "nope. do not run the migrations by hand; use make migrate instead.",
            "Use make migrate, not the migrations by hand",
        ),
        ("please use uv instead of pip", "Use uv, not pip"),
        (
            "ok so you should call the wrapper script rather than docker directly",
            "Call the wrapper script, not docker directly",
        ),
        ("Alright, please remove the sidebar by default", "Remove the sidebar by default"),
        (
            "keep logs in var/log, make sure you don't write them to /tmp",
            "Keep logs in var/log, never write them to /tmp",
        ),
        ("dont squash the commits", "Don't squash the commits"),
        ("I think the parser must not allocate per token", "The parser must not allocate per token"),
    ],
)
def test_corrections_and_decisions_become_instructions(said, summary):
    assert phrasing.imperative(said) == summary


@pytest.mark.parametrize(
    ("said", "summary"),
    [
        (
            "I prefer short commit messages in the imperative mood",
            "Prefer short commit messages in the imperative mood",
        ),
        ("i'd rather you ask before deleting files", "Ask before deleting files"),
        ("I always write the test first", "Always write the test first"),
        ("i never push on fridays", "Never push on fridays"),
        ("from now on, always run the linter before committing", "Always run the linter before committing"),
        ("i hate when you add comments to every line", "Don't add comments to every line"),
        ("I would only want integration tests for the api", "Prefer only integration tests for the api"),
        ("yeah i'd prefer tabs", "Prefer tabs"),
    ],
)
def test_preferences_become_prefer_always_never(said, summary):
    assert phrasing.preference(said) == summary


def test_i_never_said_is_a_correction_not_a_habit():
    assert not phrasing.preference("I never said to delete that file").startswith("Never ")


def test_commands_are_named_as_a_reader_would():
    from automem.extract.intent import intent_of

    def name(command: str) -> str:
        return intent_of("Bash", command).main.name()

    assert name("PYTHONPATH=src pytest -q tests") == "pytest"
    assert name('bash -lc "cd web && npm run build -- --prod"') == "npm run build"
    assert name("git push origin main") == "git push"
    assert name("python -m pytest tests/unit") == "python -m pytest"
    assert name("./scripts/release.sh --dry") == "release.sh"
    assert name("[Environment]::SetEnvironmentVariable('Path', 'x', 'User')") == "SetEnvironmentVariable"


def test_error_patterns_read_as_needs():
    assert phrasing.needs_summary("pytest", "PYTHONPATH=src", "E   ModuleNotFoundError: No module named 'app'") == (
        "pytest needs PYTHONPATH=src here: ModuleNotFoundError otherwise"
    )
    assert phrasing.needs_summary("cargo build", "--offline", "error: failed to fetch index: network down") == (
        "cargo build needs --offline here: failed to fetch index: network down otherwise"
    )
    assert phrasing.error_name("src/a.ts(6,3): error TS2307: Cannot find module") == "TS2307"
    assert phrasing.error_name("Error: ENOENT: no such file") == "ENOENT"
    assert phrasing.error_name("plain words") == ""


def test_long_text_loses_clauses_not_half_words():
    long = (
        "The release job must upload the wheel before the sdist (the mirror polls in that order), "
        "because the mirror indexes whatever arrives first and never looks again after that, which broke installs"
    )
    out = phrasing.fit(long)
    assert len(out) <= 120 and out == ("The release job must upload the wheel before the sdist")
    words = " ".join(["parameter"] * 30)
    cut = phrasing.fit(words)
    assert len(cut) <= 120 and cut.endswith("…") and all(w == "parameter" for w in cut[:-1].split())
    assert phrasing.fit("short enough.") == "short enough"


def test_a_bare_path_then_what_not_to_use_reads_as_use_this_not_that():
    assert phrasing.imperative("~/.cache/app, make sure you dont use APP_HOME.") == "Use ~/.cache/app, not APP_HOME"
    assert phrasing.imperative("later, dont use npm") == "Later, dont use npm"  # a word, not a name: left as said


def test_shortening_drops_asides_but_never_the_parentheses_of_code():
    text = (
        "Since the move `root` is now `lib/`, so `parent(root)` lands in `lib/` (not the package root), "
        "and every lookup of the manifest file fails"
    )
    out = phrasing.fit(text)
    assert "`parent(root)`" in out and "(not the package root)" not in out
    aside = "Verify tokens with the JWKS (key by `kid`), falling back to the realm key for each of the services we run"
    longer = aside + " in the staging cluster"
    assert phrasing.fit(longer) == longer.replace(" (key by `kid`)", "")


def test_a_listing_keeps_whole_items_and_says_when_it_left_some_out():
    items = [f"module{i} -> packages/area{i}/module{i}" for i in range(8)]
    out = phrasing.listing("Layout", items)
    assert len(out) <= 120 and out.endswith("; …") and "module0 -> packages/area0/module0" in out
    assert phrasing.listing("Layout", items[:2]) == "Layout: " + "; ".join(items[:2])


def test_where_a_thing_lives_is_stated_plainly():
    assert phrasing.location("to change it, there is a settings file at conf/app.toml") == (
        "The settings file is at conf/app.toml"
    )
    assert phrasing.location("the build works now") == ""


def test_a_log_level_is_not_an_error_name():
    assert phrasing.error_name("2026-01-09 ERROR [org.keycloak] Client is not allowed") == ""


@pytest.mark.parametrize(
    ("said", "summary"),
    [
        ("we use pnpm in this repo", "This repo uses pnpm"),
        ("we don't commit lockfiles here", "This project doesn't commit lockfiles"),
        ("we always squash merges across the monorepo", "This monorepo always squashes merges"),
        ("we tried pnpm", ""),  # the state of one conversation, not how the team works
    ],
)
def test_how_the_team_works_reads_as_a_fact_of_the_project(said: str, summary: str) -> None:
    assert phrasing.team_practice(said) == summary


def test_a_summary_starts_with_a_capital_unless_it_starts_with_a_name_from_code() -> None:
    assert phrasing.capitalized("the tests are in x") == "The tests are in x"
    assert phrasing.capitalized("apply_patch needs the lines read first") == "apply_patch needs the lines read first"
    assert phrasing.capitalized("vite.config.ts sets the port") == "vite.config.ts sets the port"
    assert phrasing.capitalized("") == ""


@pytest.mark.parametrize(
    ("said", "summary"),
    [
        ("remember to not touch the files the deploy service needs.", "Don't touch the files the deploy service needs"),
        ("Remember to not run migrations by hand", "Don't run migrations by hand"),
        ("not only the tests but the docs too", "Not only the tests but the docs too"),
    ],
)
def test_a_not_left_in_front_once_the_ask_is_off_reads_as_dont(said, summary):
    assert phrasing.imperative(said) == summary

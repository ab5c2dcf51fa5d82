"""Text that looks like a lesson but is none: a hook's message, a pasted error, a "for now" step, a fix whose cause is
unknown, a value that is a secret or a folder of one machine. Each case is a small hand-written session."""

from __future__ import annotations

import pytest

from automem.capture.feedback import detect_feedback
from automem.extract.rules import Session, find_candidates
from automem.extract.steps import Step, steps_from_turns
from automem.harness.model import Turn


def _fail(cmd: str, line: str, tool: str = "shell", **kw) -> Step:
    return Step(
        "action",
        tool=tool,
        input=cmd,
        ok=False,
        result_head=line,
        errors=[{"error_type": "error-line", "line": line, "signature": line}],
        **kw,
    )


def _ok(cmd: str, tool: str = "shell", **kw) -> Step:
    return Step("action", tool=tool, input=cmd, ok=True, **kw)


def _prompt(text: str, **kw) -> Step:
    return Step("prompt", text=text, feedback=detect_feedback(text), **kw)


def _turn(prompt: str, number: int = 1) -> Turn:
    return Turn(harness="claude-code", session_id="s", turn_id=str(number), prompt=prompt, answer="Done.")


# --- a hook speaks, not the user ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Stop hook feedback:\n[~/.config/agent/check-git.sh]: Always commit and push your changes before you stop.",
        "Stop hook feedback:\n- [lint-guard]: Never leave print statements in the code, remove them first.",
        "SubagentStop hook feedback:\nYou must always verify the files you said you wrote.",
        'PostToolUse:Edit hook blocking error from command: "./hooks/fmt.sh": Always run the formatter after edits.',
        'Stop hook blocking error from command "guard": you must never stop before the tests pass',
        "[Hook] Never commit console.log statements; remove them before committing",
        "[pre-stop-hook.sh]: Always update the changelog before finishing.",
        "Prompt hook condition was not met: the session must always log its research before it stops.",
    ],
)
def test_a_hooks_message_recorded_as_a_user_message_is_not_the_users_voice(text):
    assert detect_feedback(text) == []
    steps = steps_from_turns([_turn(text)])
    assert not [s for s in steps if s.kind == "prompt"]
    assert find_candidates(Session(steps)) == []
    queued = Turn(harness="claude-code", session_id="s", turn_id="1", prompt="fix the login form", queued=[text])
    assert [s.text for s in steps_from_turns([queued]) if s.kind == "prompt"] == ["fix the login form"]


def test_a_user_who_writes_about_hooks_is_still_heard():
    text = "Always run the pre-commit hook before you push."
    assert detect_feedback(text)
    assert [s.text for s in steps_from_turns([_turn(text)]) if s.kind == "prompt"] == [text]
    assert find_candidates(Session([_prompt(text)]))


# --- a pasted error states no rule ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "TypeError: greet() argument must be str, not int",
        "I get this when I run the report: TypeError: format_row() must be str, not int",
        'still failing:\nTraceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
        "TypeError: join() argument must be str, not int",
        "ValueError: the port must always be a positive integer",
        "Error: you must never call render() twice, got render() called twice",
        "error: the lockfile should be committed together with the manifest",
        "got this after your edit\nTypeError: cannot read 'id' of undefined. The store must always be set up first",
        "warning: you should always pass --locked when building in CI",
    ],
)
def test_a_pasted_error_that_says_must_is_no_rule_of_the_user(text):
    found = find_candidates(Session([_prompt(text)]))
    assert not [c for c in found if c.kind in ("decision", "preference") or c.promotion], [c.summary for c in found]
    assert not [c for c in found if "must" in c.summary.lower() and c.rule != "reported_problem_rule"]


def test_a_rule_said_on_the_line_before_a_pasted_error_is_still_heard():
    text = "Never use sudo in this repo. It fails with:\nError: EACCES: permission denied, open '/etc/hosts'"
    assert [c.summary for c in find_candidates(Session([_prompt(text)]))] == ["Never use sudo in this repo"]


def test_a_type_error_in_the_code_is_no_requirement_to_meet_first():
    """A call failing with "X must be str, not int" and passing after an edit of the code: the code's bug was the
    work, not a condition of the environment a later session must meet before it runs the call."""
    failed = _fail("python3 report.py", "TypeError: format_row() argument must be str, not int")
    steps = [failed, _ok("report.py", tool="Edit"), _ok("python3 report.py")]
    found = find_candidates(Session(steps))
    assert not [c for c in found if c.rule == "stated_requirement_rule"], [c.summary for c in found]
    # an error about the setting a call ran in still states what it needs
    branch = _fail("./release.sh", "error: not on a release branch; must be run from a release/* branch")
    found = find_candidates(Session([branch, _ok("git switch release/2.0"), _ok("./release.sh")]))
    assert [c for c in found if c.rule == "stated_requirement_rule"]


# --- "for now": temporary by the user's own words ------------------------------------------------


def _patch(path: str, *lines: str) -> str:
    return "*** Begin Patch\n*** Update File: " + path + "\n@@\n" + "\n".join(lines) + "\n*** End Patch"


@pytest.mark.parametrize(
    "text",
    [
        "just add the coverage folder to .gitignore for now",
        "skip that flaky test for now",
        "Don't run the e2e tests for now, they need a browser",
        "Always use the mock server for now",
        "for now, never touch the payments module",
        "Use sqlite for the time being, not postgres",
        "keep the old API around until further notice, don't delete it yet",
        "Don't bother with type hints at this point",
        "for now put the release notes in docs/notes.md",
        "the settings file lives in conf/app.toml for now",
        "暂时不要用 npm，改用 pnpm",
    ],
)
def test_a_for_now_instruction_is_no_lasting_rule(text):
    found = find_candidates(Session([_prompt(text)]))
    assert not [c for c in found if c.promotion or c.kind in ("decision", "preference")], [c.summary for c in found]


def test_a_for_now_ignore_is_no_lasting_gitignore_fact():
    from automem.extract.steps import added_text

    patch = _patch(".gitignore", " node_modules/", "+coverage/")
    steps = [
        _prompt("just gitignore the coverage folder for now"),
        _ok(patch, tool="apply_patch", added=added_text(patch)),
    ]
    assert find_candidates(Session(steps)) == []
    asked = [_prompt("please gitignore the coverage folder"), steps[1]]
    assert [c.summary for c in find_candidates(Session(asked))] == [
        "coverage/ is git-ignored in this project (the user asked)"
    ]


def test_a_for_now_rejection_or_redirect_is_no_lasting_correction():
    rejected = Step(
        "rejection", text="skip the migration test for now", tool="Bash", input="pytest tests/test_migrate.py"
    )
    assert find_candidates(Session([_prompt("run the tests"), rejected])) == []
    stopped = [
        _prompt("run the whole suite"),
        Step("interrupt"),
        _prompt("no, only run the unit tests for now", after_interrupt=True),
    ]
    found = find_candidates(Session(stopped))
    assert not [c for c in found if c.promotion], [c.summary for c in found]


# --- a credential's value is never part of a lesson -----------------------------------------------

_FAKE_KEY = "sk-proj-" + "Qw3rTy5uI7oP9aS1dF3gH5jK7lZ9xC1vB3nM5qW7eR9tY1uI3"


def test_a_fix_that_set_a_credential_names_the_setting_not_its_value():
    failed = _fail("python3 bot.py", "openai.AuthenticationError: No API key provided")
    [cand] = find_candidates(Session([failed, _ok(f"OPENAI_API_KEY={_FAKE_KEY} python3 bot.py")]))
    assert cand.summary.startswith("python3 bot.py needs OPENAI_API_KEY set here")
    text = "\n".join((cand.summary, cand.content, cand.why, cand.how_to_apply))
    assert _FAKE_KEY not in text and "REDACTED" not in text and "sk-proj" not in text
    assert "OPENAI_API_KEY=<secret> python3 bot.py" in cand.content
    # a URL with its password in it is a secret too, whatever the setting's name
    deploy = _fail("npm run deploy", "Error: DATABASE_URL is not set")
    fixed = _ok("DATABASE_URL=postgres://app:pa55w0rd-x9@db.internal:5432/app npm run deploy")
    [url] = find_candidates(Session([deploy, fixed]))
    assert "pa55w0rd" not in url.summary + url.content + url.how_to_apply and "DATABASE_URL set" in url.summary
    # a setting that holds no secret is the lesson itself
    plain = _fail("make test", "Error: DATABASE_URL is not set")
    [kept] = find_candidates(Session([plain, _ok("DATABASE_URL=sqlite:///t.db make test")]))
    assert "DATABASE_URL=sqlite:///t.db" in kept.summary


def test_a_rule_that_quotes_a_credential_keeps_the_name_only():
    found = find_candidates(Session([_prompt(f"Always use OPENAI_API_KEY={_FAKE_KEY} when you run the tests")]))
    assert found and all(_FAKE_KEY not in c.summary + c.content for c in found)
    assert all("REDACTED" not in c.summary for c in found)


@pytest.mark.parametrize(
    "setting, secret",
    [
        ("GH_TOKEN=ghx_0123456789abcdefghij", True),
        ("DB_PASSWORD=correct-horse-battery", True),
        ("SKIP_AUTH=1", False),
        ("TOKEN_FILE=./secrets/token.txt", False),
        ("API_KEY=$OPENAI_API_KEY", False),
        ("NODE_ENV=production", False),
        ("PASSWORD_MIN_LENGTH=12", False),
    ],
)
def test_which_settings_hold_a_secret(setting, secret):
    from automem.extract.usable import secret_setting

    assert secret_setting(setting) is secret


# --- two changes before the retry that worked: which one fixed it is not known ---------------------


@pytest.mark.parametrize(
    "between, retry",
    [
        # two different steps ran between the failure and the same call run again
        (["pip install requests", "chmod +x scripts/run.sh"], "./scripts/run.sh"),
        (["git pull --rebase", "npm install"], "./scripts/run.sh"),
        (["docker compose up -d db", "npm install"], "./scripts/run.sh"),
        # one step between, and the retry itself changed too
        (["npm install"], "./scripts/run.sh --verbose"),
        (["export API_BASE=http://localhost:8080"], "NODE_ENV=test ./scripts/run.sh"),
        # the retry changed two things at once
        ([], "PYTHONPATH=src ./scripts/run.sh --no-cache"),
        ([], "cd app && NODE_ENV=test ./scripts/run.sh"),
    ],
)
def test_a_fix_after_two_different_changes_is_credited_to_neither(between, retry):
    failed = _fail("./scripts/run.sh", "Error: connection refused while loading fixtures")
    steps = [failed, *[_ok(cmd) for cmd in between], _ok(retry)]
    found = find_candidates(Session(steps))
    assert not [c for c in found if c.promotion], [c.summary for c in found]
    assert not [c for c in found if c.rule in ("fixed_error_rule", "repeated_error_rule")], [c.summary for c in found]


def test_a_fix_after_one_change_is_still_credited():
    failed = _fail("./scripts/run.sh", "Error: connection refused while loading fixtures")
    [cand] = find_candidates(Session([failed, _ok("docker compose up -d db"), _ok("./scripts/run.sh")]))
    assert "docker compose up -d db" in cand.summary
    [flag] = find_candidates(Session([failed, _ok("./scripts/run.sh --retries=5")]))
    assert "--retries=5" in flag.summary


def test_the_path_set_for_the_session_and_saved_for_good_is_one_change():
    from automem.extract.intent import _changes, intent_of

    failed = intent_of("shell", "Get-Command rg")
    fix = intent_of("shell", "$env:Path += ';C:\\Tools\\rg'; Get-Command rg")
    between = [
        intent_of("shell", "Get-ChildItem 'C:\\Tools' -Force"),
        intent_of("shell", "[Environment]::SetEnvironmentVariable('Path', $env:Path + ';C:\\Tools\\rg', 'User')"),
        intent_of("shell", "[Environment]::GetEnvironmentVariable('Path', 'User')"),
    ]
    same = next(c for c in fix.commands if c.program == "get-command")
    assert _changes(failed, fix, same, between) == 1


# --- installing the project's declared dependencies is an install too ---------------------------------


@pytest.mark.parametrize(
    "run, error, install",
    [
        ("node server.js", "Error: Cannot find module 'express'", "npm ci"),
        ("node server.js", "Error: Cannot find module 'express'", "pnpm install"),
        ("node server.js", "Error: Cannot find module 'express'", "yarn install --frozen-lockfile"),
        ("python -m shop", "ModuleNotFoundError: No module named 'httpx'", "uv sync"),
        ("python -m shop", "ModuleNotFoundError: No module named 'httpx'", "pip install -e ."),
        ("python -m shop", "ModuleNotFoundError: No module named 'httpx'", "pip install -r requirements.txt"),
        ("python -m shop", "ModuleNotFoundError: No module named 'httpx'", "poetry install"),
        ("python -m shop", "ModuleNotFoundError: No module named 'httpx'", "pipenv install"),
    ],
)
def test_installing_the_projects_dependencies_is_the_install_that_fixed_a_missing_module(run, error, install):
    from automem.extract.intent import intent_of, is_install

    assert all(is_install(c) for c in intent_of("shell", install).commands)
    found = find_candidates(Session([_fail(run, error), _ok(install), _ok(run)]))
    [module] = [c for c in found if c.rule == "missing_module_rule"]
    assert f"`{install}`" in module.summary and "importing it fails" not in module.summary
    assert "dependencies" in module.summary and not module.promotion  # installed now: it waits to be met again


@pytest.mark.parametrize("install", ["npm ci", "uv sync", "bundle install", "poetry install", "composer install"])
def test_installing_the_projects_dependencies_before_a_rerun_is_named_as_the_step(install):
    failed = _fail("make build", "Error: build tool failed to load its plugins")
    found = find_candidates(Session([failed, _ok(install), _ok("make build")]))
    assert [c.summary for c in found if c.rule == "fixed_error_rule"] == [
        f"make build works only after `{install}`: build tool failed to load its plugins otherwise"
    ]
    assert not found[0].promotion  # the dependencies are there now: a state repaired, it waits


# --- an unwritable folder of one machine is no lesson for another -----------------------------------------------


@pytest.mark.parametrize(
    "failed, error, retry",
    [
        (
            "python3 gen.py --out /home/bob/shared/report.csv",
            "Error: open /home/bob/shared/report.csv: permission denied",
            "python3 gen.py --out ./report.csv",
        ),
        (
            "tar -xzf pkg.tgz -C /mnt/disk7/ana-build-12/x",
            "tar: /mnt/disk7/ana-build-12/x: Cannot open: Permission denied",
            "tar -xzf pkg.tgz -C ./x",
        ),
        (
            "python3 gen.py > /home/ana/Desktop/out.txt",
            "bash: /home/ana/Desktop/out.txt: Permission denied",
            "python3 gen.py > out.txt",
        ),
        (
            "python3 gen.py > /tmp/ana-x8k2/out.txt",
            "bash: /tmp/ana-x8k2/out.txt: Permission denied",
            "python3 gen.py > out.txt",
        ),
        (
            "cp dist/app.js /opt/ana-tools/bin/app.js",
            "cp: cannot create regular file '/opt/ana-tools/bin/app.js': Permission denied",
            "cp dist/app.js bin/app.js",
        ),
    ],
)
def test_a_write_refused_in_a_folder_of_this_machine_names_no_machine_path(failed, error, retry):
    steps = [_fail(failed, error), _ok(retry), _fail(failed, error), _ok(retry)]
    for session in (steps[:2], steps):
        for cand in find_candidates(Session(session, root="/home/ana/work/shop")):
            text = "\n".join((cand.summary, cand.content, cand.why, cand.how_to_apply))
            for machine_part in ("bob", "shared", "disk7", "ana-", "Desktop", "x8k2", "ana-tools"):
                assert machine_part not in text, (machine_part, cand.summary)


def test_a_write_refused_in_a_folder_every_machine_has_is_said_of_that_folder():
    refused = _fail("python3 gen.py > /tmp/out.txt", "bash: /tmp/out.txt: Permission denied")
    found = find_candidates(Session([refused, _ok("python3 gen.py > out.txt")], root="/home/ana/work/shop"))
    assert any(c.summary.startswith("/tmp is not writable") for c in found), [c.summary for c in found]
    cache = _fail(
        "tool build --cache /home/ana/.cache/tool/x1", "Error: mkdir /home/ana/.cache/tool/x1: permission denied"
    )
    found = find_candidates(Session([cache, _ok("tool build --cache ./.cache")], root="/home/ana/work/shop"))
    assert [c.summary for c in found] == [
        "~/.cache is not writable here (permission denied); tool worked writing elsewhere"
    ]
    assert "Run tool" not in found[0].how_to_apply and "~/.cache" in found[0].how_to_apply


def test_a_note_label_opens_the_users_own_rule():
    for text in ("Note: always use pnpm in this repo", "NOTE: never force push to main"):
        found = find_candidates(Session([_prompt(text)]))
        assert [c.promotion for c in found] == ["instruction"], text


def test_a_health_check_between_is_no_second_change_and_for_now_on_is_from_now_on():
    failed = _fail("./scripts/run.sh", "Error: connection refused while loading fixtures")
    steps = [failed, _ok("docker compose up -d db"), _ok("curl -s localhost:5432/health"), _ok("./scripts/run.sh")]
    [cand] = find_candidates(Session(steps))
    assert "docker compose up -d db" in cand.summary
    from automem.extract.directives import temporary

    assert temporary("use pnpm for now") and not temporary("for now on, always use pnpm")


# --- a brief written for one task: its limits are the task's ---------------------------------------


def test_a_file_the_harness_pastes_under_attached_contents_speaks_no_rule():
    spec = "# Brief\n\nBuild an invoice tracker with a REST API.\n\nDo not skip files.\n\nDo not use placeholders.\n"
    text = (
        "I uploaded the archive, finish the rest<attached_contents>\nThe following files were provided:\n"
        f'<file path="attached_assets/brief.txt" lines="1-7">\n{spec}</file>\n</attached_contents>'
    )
    assert find_candidates(Session([_prompt(text)])) == []


@pytest.mark.parametrize(
    "opening",
    [
        "You are a Senior Backend Engineer and Data Architect.",
        "ROLE\nYou are a senior full stack developer.",
        "# ROLE\n\nAct as an expert mobile app designer.",
    ],
)
def test_limits_in_a_brief_that_casts_the_agent_as_an_expert_are_stored_not_injected(opening):
    text = f"{opening}\n\nBuild a booking service for a small clinic.\n\nDo not skip files.\n\nDo not use placeholders."
    found = find_candidates(Session([_prompt(text)]))
    assert found and all(not c.promotion for c in found), [(c.summary, c.promotion) for c in found]


@pytest.mark.parametrize(
    "part",
    [
        "You are reviewer `coverage`; the other reviewers check the same branch in their own sessions.",
        "You are the implementer for lane api.",
        "Your role: planner.",
    ],
)
def test_limits_in_a_brief_that_gives_the_agent_a_part_in_a_run_are_stored_not_injected(part):
    text = (
        "Review only the tests of this branch. Quote each requirement verbatim. Never paraphrase a quote. "
        f"Always name the file and line. The report is the only file you may write. {part}"
    )
    found = find_candidates(Session([_prompt(text)]))
    assert all(not c.promotion for c in found), [(c.summary, c.promotion) for c in found]


@pytest.mark.parametrize(
    "text",
    [
        "You're a terrible tester. Never skip the integration tests.",
        "Never push to main. You are the best reviewer I have.",
    ],
)
def test_a_judgement_of_the_agent_is_no_part_in_a_run(text):
    [cand] = find_candidates(Session([_prompt(text)]))
    assert cand.promotion


def test_a_rule_said_from_now_on_in_a_brief_that_gives_a_part_still_holds():
    text = "You are the reviewer for this lane. From now on, never approve a branch with failing tests."
    [cand] = find_candidates(Session([_prompt(text)]))
    assert cand.promotion


def test_a_rule_said_to_last_in_an_expert_brief_still_holds():
    text = "You are an expert React developer. From now on, never use class components."
    [cand] = find_candidates(Session([_prompt(text)]))
    assert cand.promotion


@pytest.mark.parametrize(
    "text",
    [
        'The Status column has several "Unknown" which should not be happening',
        "There are duplicate rows in the export, which shouldn't happen.",
        "The build prints two warnings that should not be there.",
    ],
)
def test_a_fault_the_user_saw_in_the_output_is_no_rule(text):
    assert find_candidates(Session([_prompt(text)])) == []


@pytest.mark.parametrize(
    "text", ["Never commit .env files, that should never happen again.", "Tests should not hit the network."]
)
def test_a_rule_with_should_not_is_still_one(text):
    [cand] = find_candidates(Session([_prompt(text)]))
    assert cand.promotion


def test_a_rule_repeated_after_as_i_asked_is_the_rule_without_the_complaint_and_stands():
    rule = "Config paths in the loader should be single strings, not split across lines with implicit concatenation."
    steps = [
        _prompt(rule),
        _ok("edit loader.m", tool="Edit"),
        _prompt(f"is this the file you updated?\nthe path is still not corrected as I asked {rule}\n\nwhy is this?"),
    ]
    [cand] = find_candidates(Session(steps))
    assert cand.summary.startswith("Config paths in the loader should be single strings"), cand.summary
    assert cand.promotion


def test_a_request_after_as_i_asked_is_still_a_request():
    for text in ("As I asked, please make the header blue.", "like I told you before, the README should be short"):
        assert not any(c.promotion for c in find_candidates(Session([_prompt(text)]))), text


# --- how the product behaves: a spec, not how the agent works ------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The queue must never exceed 100 songs.",
        "Users should never see other users' trips.",
        "The bot should never join a voice channel unless someone uses /play.",
        "There should not be lines under the social login links.",
        "The logo should always be visible in the header.",
        "Also, the sidebar should not overlap the content on mobile.",
    ],
)
def test_what_a_thing_of_the_product_must_not_do_is_stored_not_injected(text):
    found = find_candidates(Session([_prompt(text)]))
    assert all(not c.promotion for c in found), [(c.summary, c.promotion) for c in found]


@pytest.mark.parametrize(
    "text",
    [
        "Tests should not hit the network.",
        "Generated files should never be edited by hand.",
        "The production database must never be touched from local scripts.",
        "invalid themes must NEVER explode",
        "From now on the bot should never post in #general.",
        "Commit messages must always be in English.",
        "The changelog should always be updated with each release.",
    ],
)
def test_a_rule_about_the_work_or_said_to_last_is_still_promoted(text):
    [cand] = find_candidates(Session([_prompt(text)]))
    assert cand.promotion, cand.summary


def test_do_not_stop_pushes_this_work_on_and_is_no_rule():
    for text in ("complete what i asked for. do not stop", "Keep working and never stop until all tests pass."):
        assert not any(c.promotion for c in find_candidates(Session([_prompt(text)]))), text
    [cand] = find_candidates(Session([_prompt("Don't stop the dev server when you run the tests.")]))
    assert cand.promotion


def test_a_file_copied_into_place_before_the_retry_is_a_state_repaired_once():
    failed = _fail("npx prisma migrate dev", "Error: Environment variable not found: DATABASE_URL.")
    steps = [failed, _ok("cp .env.example .env"), _ok("npx prisma migrate dev")]
    found = find_candidates(Session(steps))
    assert found and all(not c.promotion for c in found), [(c.summary, c.promotion) for c in found]


def test_forcing_open_a_lock_held_at_that_moment_is_no_step_to_repeat():
    failed = _fail("terraform apply -auto-approve", "Error: Error acquiring the state lock")
    steps = [failed, _ok("terraform force-unlock -force 3f2a1b4c && terraform apply -auto-approve")]
    assert all(not c.promotion for c in find_candidates(Session(steps)))


@pytest.mark.parametrize(
    ("command", "line", "repair"),
    [
        ("alembic upgrade head", "FAILED: Can't locate revision identified by 'a1b2'", "alembic stamp head"),
        ("psql -d shop_dev -c 'select 1'", 'FATAL:  database "shop_dev" does not exist', "createdb shop_dev"),
        ("npx prisma migrate dev", "Drift detected: schema not in sync", "npx prisma migrate reset --force"),
        ("bin/rails db:migrate", 'PG::DuplicateTable: ERROR:  relation "users" already exists', "bin/rails db:reset"),
    ],
)
def test_a_database_created_reset_or_stamped_before_the_retry_is_no_step_to_repeat(command, line, repair):
    steps = [_fail(command, line), _ok(f"{repair} && {command}")]
    assert all(not c.promotion for c in find_candidates(Session(steps))), repair


def test_logging_in_before_the_retry_is_kept_until_it_expires_and_no_step_to_repeat():
    failed = _fail("docker push ghcr.io/acme/app:1.0", "unauthorized: authentication required")
    steps = [failed, _ok("docker login ghcr.io -u acme --password-stdin && docker push ghcr.io/acme/app:1.0")]
    assert all(not c.promotion for c in find_candidates(Session(steps)))


def test_pip_pushed_past_the_systems_own_packages_is_no_lesson():
    failed = _fail("pip install requests", "error: externally-managed-environment")
    steps = [failed, _ok("pip install --break-system-packages requests")]
    assert not any("break-system-packages" in c.summary for c in find_candidates(Session(steps)))


@pytest.mark.parametrize(
    "text", ["I prefer the second layout.", "I prefer the first design, it's cleaner.", "Go with the other mockup."]
)
def test_a_pick_among_the_drafts_shown_is_no_preference(text):
    assert not any(c.promotion for c in find_candidates(Session([_prompt(text)])))


@pytest.mark.parametrize(
    "text",
    [
        "I prefer the cards to have rounded corners.",
        "I prefer a dark theme for the dashboard.",
        "I'd rather have the chart on the left.",
    ],
)
def test_a_preference_for_the_products_look_is_stored_not_injected(text):
    found = find_candidates(Session([_prompt(text)]))
    assert found and all(not c.promotion for c in found), [(c.summary, c.promotion) for c in found]


@pytest.mark.parametrize("text", ["I prefer Tailwind over plain CSS.", "From now on I prefer icons from lucide."])
def test_a_preference_for_a_tool_or_said_to_last_still_holds(text):
    [cand] = find_candidates(Session([_prompt(text)]))
    assert cand.promotion


def test_a_variable_the_retry_set_goes_before_the_command_in_how_to_apply():
    failed = _fail("pytest tests/", "E   ModuleNotFoundError: No module named 'app'")
    found = [c for c in find_candidates(Session([failed, _ok("PYTHONPATH=. pytest tests/")])) if c.promotion]
    assert found and all("`PYTHONPATH=. pytest`" in c.how_to_apply for c in found), [c.how_to_apply for c in found]

"""The extraction rules one by one, each on a small hand-written session (the corpus tests are in test_extract*.py)."""

from __future__ import annotations

import json

import pytest

from automem.extract.intent import difference, edited_files, intent_of, same_intent
from automem.extract.rules import Session, errors, find_candidates, reports, said
from automem.extract.steps import Step, steps_from_turns
from automem.harness.model import ToolAction, Turn
from automem.schema import INSTRUCTION, VERIFIED_FIX


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


def _not_found(cmd: str, line: str) -> Step:
    """A call the shell could not run: the program is not on the PATH."""
    step = _fail(cmd, line)
    step.errors[0]["error_type"] = "not-found"
    return step


def _ok(cmd: str, tool: str = "shell", **kw) -> Step:
    return Step("action", tool=tool, input=cmd, ok=True, **kw)


def _prompt(text: str, **kw) -> Step:
    return Step("prompt", text=text, **kw)


def _run(rule, steps, root: str = "") -> list:
    return rule(Session(steps, root=root))


# --- intents: what counts as the same call -------------------------------------------------------


def test_the_same_program_and_subcommand_after_wrappers_is_the_same_intent():
    failed = intent_of("Bash", "cd app && sudo -E env CI=1 npm run build -- --verbose")
    assert failed.main.program == "npm" and failed.main.subcommand == "build" and failed.cwd == "app"
    assert same_intent(failed, intent_of("Bash", "npm run build"))
    assert not same_intent(failed, intent_of("Bash", "npm test"))  # another subcommand is another call
    assert same_intent(intent_of("Bash", "npx tsx src/cli.ts"), intent_of("Bash", "tsx src/cli.ts --help"))
    assert not same_intent(intent_of("Bash", "python a.py"), intent_of("Bash", "python b.py"))


def test_a_look_is_never_the_fix_of_a_call_that_did_something_else():
    failed = intent_of("shell", "apply_patch <<'P'\n*** Begin Patch\n*** Update File: src/App.tsx\n@@\n-a\n+b\nP")
    assert failed.kind == "edit" and failed.targets == ["src/app.tsx"]
    assert not same_intent(failed, intent_of("shell", "sed -n '1,80p' src/App.tsx"))
    assert not same_intent(intent_of("Bash", "git status"), intent_of("Bash", "git status"))  # a failed look: exploring


def test_a_status_asked_of_a_tool_is_a_look_and_never_the_fix():
    from automem.extract.intent import is_look

    for line in ("gh auth status", "supabase status", "systemctl status nginx"):
        [command] = intent_of("Bash", line).commands
        assert is_look(command), line
    [script] = intent_of("Bash", "npm run status").commands
    assert not is_look(script)  # a script of the project's, whatever it does
    login = _fail("gh pr create --fill", "To get started with GitHub CLI, please run:  gh auth login")
    assert _run(errors.fixed_error_rule, [login, _ok("gh auth status"), _ok("gh pr create --fill")]) == []


def test_a_quoted_separator_does_not_split_a_command_line():
    commands, _ = __import__("automem.extract.intent", fromlist=["x"]).parse_command_line(
        "$env:Path += ';C:\\Git\\bin'; Get-Command bash"
    )
    assert [c.program for c in commands] == ["$env:path", "get-command"]


@pytest.mark.parametrize(
    "line, segments",
    [
        ("make && ./run || echo no; ls\nls -la", ["make", "./run", "echo no", "ls", "ls -la"]),
        ("pytest -q 2>&1 | tail -5", ["pytest -q 2>&1", "tail -5"]),
        ("echo hi >| out.txt & wait", ["echo hi >| out.txt & wait"]),  # a clobber and a background job: no cut
        ("a ||| b", ["a", "b"]),
        ("echo 'a; b' && grep \"x|y\" f", ["echo 'a; b'", 'grep "x|y" f']),  # quoted separators stay
        ("make \\\n  install", ["make    install"]),  # a line continuation joins
    ],
)
def test_a_command_line_is_cut_at_its_separators(line, segments):
    from automem.extract.intent import split_segments

    assert split_segments(line) == segments


@pytest.mark.parametrize(
    "line, setup",
    [
        ("cd app && source .venv/bin/activate && pytest -q", ["source .venv/bin/activate"]),
        ('export PATH="$HOME/bin:$PATH"; . ./env.sh\nmake', ['export PATH="$HOME/bin:$PATH"', ". ./env.sh"]),
        ("echo 'source it later' && python -c \"print('set x')\"", []),  # setup words inside quotes set nothing
        ("git reset --hard && npm test", []),
        ("export\\\nFOO=1 && make", ["export FOO=1"]),  # a line continued right after the word
    ],
)
def test_the_setup_steps_of_a_command_line_are_found(line, setup):
    from automem.extract.intent import _setup_of

    assert _setup_of(line) == setup


def test_the_difference_names_the_flag_env_step_or_escalation():
    base = intent_of("Bash", "pytest -q")
    assert difference(base, intent_of("Bash", "PYTHONPATH=src pytest -q")).text == "PYTHONPATH=src"
    assert difference(base, intent_of("Bash", "pytest -q -p no:cacheprovider")).text == "-p"
    assert difference(base, intent_of("Bash", "pytest -q"), fix_escalated=True).kind == "escalated"
    assert difference(base, intent_of("Bash", "pip install -e . && pytest -q")).text == "after `pip install -e .`"
    edited = [intent_of("Edit", "conf/app.ini"), intent_of("Edit", "src/main.py")]
    assert not difference(base, intent_of("Bash", "pytest -q"), between=edited)  # which edit fixed it is unknown


# --- failures ------------------------------------------------------------------------------------


def test_a_rerun_with_an_added_flag_is_a_verified_fix_naming_the_flag():
    steps = [_fail("bash -lc 'make test'", "Error: out of memory in worker"), _ok("bash -lc 'make test --jobs=1'")]
    [cand] = _run(errors.fixed_error_rule, steps)
    assert cand.kind == "observation" and cand.promotion == VERIFIED_FIX
    assert "make test" in cand.summary and "--jobs=1" in cand.summary
    assert "make test --jobs=1" in cand.content


def test_a_flag_the_error_output_itself_named_is_a_fix_that_waits():
    """npm's ERESOLVE says "retry this command with --force or --legacy-peer-deps", pip's PEP 668 error "by passing
    --break-system-packages": the error teaches that flag again next time, so the lesson is not injected."""
    from automem.extract.steps import named_flags

    output = (
        "npm ERR! code ERESOLVE\nnpm ERR! Fix the upstream dependency conflict, or retry\n"
        "npm ERR! this command with --force or --legacy-peer-deps\nnpm ERR! to accept an incorrect resolution."
    )
    assert named_flags(output) == ["--force", "--legacy-peer-deps"]
    assert named_flags("see https://x.org/a--b and ./--weird") == []
    failed = _fail("npm install chart-lib", "npm ERR! code ERESOLVE", named_flags=named_flags(output))
    [cand] = _run(errors.fixed_error_rule, [failed, _ok("npm install chart-lib --legacy-peer-deps")])
    assert "--legacy-peer-deps" in cand.summary and not cand.promotion
    unnamed = _fail("npm install chart-lib", "npm ERR! code ERESOLVE")
    [told] = _run(errors.fixed_error_rule, [unnamed, _ok("npm install chart-lib --legacy-peer-deps")])
    assert told.promotion == VERIFIED_FIX  # the output did not name it: the session found it


def test_an_empty_value_added_after_an_option_is_the_fix_bsd_sed_needs():
    """BSD sed on macOS takes the backup suffix after -i: `sed -i 's/a/b/' f` fails, `sed -i '' 's/a/b/' f` works."""
    failed, fixed = "sed -i 's/old/new/g' src/app.js", "sed -i '' 's/old/new/g' src/app.js"
    assert intent_of("Bash", fixed).main.positional == ["s/old/new/g", "src/app.js"]  # '' names nothing
    assert difference(intent_of("Bash", failed), intent_of("Bash", fixed)).text == "-i ''"
    other = "sed -i '' 's/old/new/g' src/other.js"
    assert not difference(intent_of("Bash", failed), intent_of("Bash", other))  # another file: another call
    line = 'sed: 1: "src/app.js": command c expects \\ followed by text'
    [cand] = _run(errors.fixed_error_rule, [_fail(failed, line, tool="Bash"), _ok(fixed, tool="Bash")])
    assert cand.summary.startswith("sed needs -i '' here") and cand.promotion == VERIFIED_FIX


def test_the_next_successful_call_is_not_a_fix():
    """Failure class 1: a diagnostic or a write to another file after a failure fixes nothing."""
    failed = _fail("npm run build", "Error: Cannot read config vite.config.ts")
    for later in (
        _ok("sed -n '1,40p' vite.config.ts"),
        _ok("git status"),
        _ok("README.md", tool="Write"),
        _ok("npm run lint"),
    ):
        steps = [failed, later]
        assert _run(errors.fixed_error_rule, steps) == [] and _run(errors.repeated_error_rule, steps) == []


def test_an_escalated_rerun_of_the_same_command_says_so():
    steps = [
        _fail("git push origin main", "error: cannot open '.git/config.lock': Operation not permitted"),
        _ok("git push origin main", escalated=True),
    ]
    [cand] = _run(errors.fixed_error_rule, steps)
    assert "escalated sandbox permissions" in cand.summary and "Operation not permitted" in cand.summary
    assert len(cand.summary) <= 120


def test_a_retry_that_leaves_out_what_the_error_named_is_no_fix():
    """Listing what exists, then running again without the clashing part, teaches nothing about the call."""
    failed = "cd /srv/app && \\\n  git tag v0.1.0 f56b7 && \\\n  git tag v0.4.0 fad28 && \\\n  git push origin --tags"
    retry = "cd /srv/app && \\\n  git tag v0.5.0 0a0c61c && \\\n  git push origin --tags"
    listing = _ok("cd /srv/app && git tag | sort")
    assert intent_of("bash", listing.input).read_only()  # listing tags through a filter only looks
    parsed = intent_of("bash", failed)
    assert parsed.cwd == "/srv/app" and [c.subcommand for c in parsed.commands] == ["tag", "tag", "push"]
    steps = [_fail(failed, "fatal: tag 'v0.4.0' already exists"), listing, _ok(retry)]
    assert _run(errors.fixed_error_rule, steps) == [] and _run(errors.repeated_error_rule, steps) == []
    deleted = [steps[0], _ok("git tag -d v0.4.0"), _ok(failed)]
    assert _run(errors.fixed_error_rule, deleted) == []  # `git tag -d` is another action, not `git tag` fixed
    aborted = [_fail("git rebase main", "error: could not apply 1a2b3c"), _ok("git rebase --abort")]
    assert _run(errors.fixed_error_rule, aborted) == []
    pushed = _fail("git push origin main", "error: failed to push some refs to the remote")
    other = [pushed, _ok("git switch -c fix-login"), _ok("git push origin fix-login")]
    assert _run(errors.fixed_error_rule, other) == []  # run with other arguments: the step before proves nothing
    [cand] = _run(errors.fixed_error_rule, [pushed, _ok("git pull --rebase"), _ok("git push origin main")])
    assert "after `git pull --rebase`" in cand.summary


def test_one_named_error_fixed_by_editing_one_file_names_the_file():
    line = "TypeError: cannot read properties of undefined (reading 'port')"
    steps = [_fail("node server.js", line), _ok("config/defaults.json", tool="Edit"), _ok("node server.js")]
    [cand] = _run(errors.fixed_error_rule, steps)
    assert cand.summary.startswith('node server.js fails with "') and "cannot read properties" in cand.summary
    # the edit fixed the file for good: stored, promoted only when another session meets it again
    assert "defaults.json" in cand.summary and not cand.promotion
    interrupted = [steps[0], _prompt("no, the config is fine", after_interrupt=True), *steps[1:]]
    assert _run(errors.fixed_error_rule, interrupted) == []  # the user stepped in: not the agent's proven fix
    unnamed = [_fail("node server.js", "exit code 1"), *steps[1:]]
    unnamed[0].errors[0]["error_type"] = "exit-code"
    assert _run(errors.fixed_error_rule, unnamed) == []  # nothing says what failed


def test_a_repeated_error_with_an_env_fix_reads_as_needs():
    line = "E   ModuleNotFoundError: No module named 'shop'"
    steps = [
        _fail("pytest -q", "Error: collection failed"),
        _fail("pytest -q tests/test_cart.py", "Error: collection failed"),
        _ok("PYTHONPATH=src pytest -q"),
    ]
    [cand] = _run(errors.repeated_error_rule, steps)
    assert cand.kind == "pattern" and cand.promotion == VERIFIED_FIX
    assert cand.summary.startswith("pytest needs PYTHONPATH=src here") and "2 times" in cand.content
    del line


def test_a_repeated_error_without_a_fix_is_an_unresolved_candidate():
    steps = [_fail("npm run build", "TypeError: generate is not a function")] * 2
    [cand] = _run(errors.repeated_error_rule, steps)
    assert "not resolved" in cand.summary and "generate is not a function" in cand.summary and not cand.promotion


def test_a_single_unexplained_error_is_not_a_memory():
    assert find_candidates(Session([_fail("cargo build", "error: linking with `cc` failed")])) == []


def test_a_tool_slip_twice_needs_its_way_around_and_three_times_is_a_pattern():
    slip = "File has not been read yet. Read it first before writing to it."
    once = [_fail("a.py", slip, tool="Edit"), _ok("a.py", tool="Read"), _ok("a.py", tool="Edit")]
    assert _run(errors.repeated_error_rule, once) == [] and _run(errors.fixed_error_rule, once) == []
    twice = [
        _fail("a.py", slip, tool="Edit"),
        _fail("b.py", slip, tool="Edit"),
        _ok("b.py", tool="Read"),
        _ok("b.py", tool="Edit"),
    ]
    [cand] = _run(errors.repeated_error_rule, twice)
    assert cand.scope == "global" and "read first" in cand.summary


def test_empty_searches_and_diffs_are_not_failures():
    """Failure class 7: grep/rg finding nothing, diff finding a difference, test being false."""
    from automem.capture.signals import classify_result

    assert classify_result("rg -n TODO src", "Exit code: 1\nWall time: 0.9 seconds\nOutput:\n", exit_code=1) == (
        False,
        [],
    )
    assert classify_result("cd x && grep -q foo a.txt", "", exit_code=1) == (False, [])
    assert classify_result("diff -u a b", "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n", exit_code=1) == (False, [])
    assert classify_result("git diff --quiet", "", exit_code=1) == (False, [])
    assert classify_result("[ -f x ]", "", exit_code=1) == (False, [])
    failed, found = classify_result("rg -n TODO src", "rg: src: No such file or directory (os error 2)", exit_code=2)
    assert failed and found  # a real error of the same program still counts
    failed, found = classify_result(
        "npm test",
        "Chunk ID: 7f\nWall time: 1.2 seconds\nProcess exited with code 1\n"
        "Original token count: 9\nOutput:\nError: boom\n",
    )
    assert failed and "Wall time" not in json.dumps(found) and "Chunk" not in json.dumps(found)


def test_a_search_at_the_end_of_a_pipeline_answers_even_with_a_bar_in_its_pattern():
    """A `|` inside quotes separates nothing: the pipeline ends with rg, whose exit 1 says "no match"."""
    from automem.capture.signals import _last_program, classify_result, strip_run_header

    header = (
        "Command: /bin/zsh -lc 'ghostty +list-fonts 2>/dev/null | rg -i \"Maple Mono|NF CN\"'\n"
        "Chunk ID: 39ba96\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 0\nOutput:\n"
    )
    assert classify_result('ghostty +list-fonts 2>/dev/null | rg -i "Maple Mono|NF CN"', header) == (False, [])
    wrapped = "/bin/zsh -lc 'ls /Applications | rg \"^(Terminal|iTerm).*.app$\"'"
    assert classify_result(wrapped, "", exit_code=1) == (False, [])
    # the Command line belongs to the header: a real failure's signature is its error, not the command echoed
    failed, found = classify_result("npm test", header.replace("Output:\n", "Output:\nError: boom\n"))
    assert failed and [e["signature"] for e in found] == ["Error: boom"]
    # an exit 1 with nothing to say is bare, which never makes a lesson on its own
    failed, found = classify_result("ls -la ~/.config/x 2>/dev/null", header)
    assert failed and found[0]["signature"] == "exit code 1"
    # the echo may span lines (a heredoc); a process still running has no exit status yet
    heredoc = "Command: /bin/zsh -lc 'cat <<EOF > a\nhi\nEOF\nrg foo a'\n" + header.split("\n", 1)[1]
    assert strip_run_header(heredoc) == ("", 1)
    assert strip_run_header("Process running with session ID 42\nOriginal token count: 0\nOutput:\nhi") == ("hi", None)
    assert strip_run_header("Command: echo hi\nhi") == ("Command: echo hi\nhi", None)  # no header: plain output
    # wrappers peeled: env, bash -lc with escaped quotes, cmd /c
    assert _last_program("/usr/bin/env bash -c 'git status | grep x'")[0] == "grep"
    assert _last_program('bash -lc "rg \\"a|b\\" src"') == ("rg", ['"a|b"', "src"])
    assert _last_program('cmd /c "dir | findstr foo"')[0] == "findstr"


def test_not_installed_only_when_nothing_later_ran_it():
    """Failure class 6: "X is not installed" when X was installed, or found, later."""
    missing = _not_found("jq . a.json", "bash: jq: command not found")
    [cand] = _run(errors.missing_command_rule, [missing])
    assert cand.summary.startswith("jq is not installed") and cand.scope == "global" and not cand.promotion
    assert _run(errors.missing_command_rule, [missing, _ok("jq --version")]) == []  # it ran later after all
    installed = _run(errors.missing_command_rule, [missing, _ok("brew install jq"), _ok("jq . a.json")])
    assert installed[0].summary == "jq was not preinstalled on this machine; `brew install jq` installed it"
    # an install a pipe let exit 0 although sudo refused it installed nothing (the user did, outside the session)
    refused = _ok("sudo pacman -S --noconfirm jq 2>&1 | tail -3", result_head="sudo: a password is required")
    assert _run(errors.missing_command_rule, [missing, refused, _ok("jq . a.json")]) == []
    python = _fail("python a.py", "bash: python: command not found")
    [alt] = _run(errors.missing_command_rule, [python, _ok("python3 a.py")])
    assert alt.summary == "python is not on the PATH on this machine; use python3 instead" and alt.promotion
    zsh = _fail("fd -e py", "zsh:1: command not found: fd")
    assert _run(errors.missing_command_rule, [zsh])[0].summary.startswith("fd is not installed")  # not "1"


def test_the_gnu_build_of_a_missing_program_is_the_way_to_call_it_not_a_typo():
    """macOS has no `timeout`; Homebrew's coreutils install it as `gtimeout`: one letter more, yet no slip."""
    missing = _not_found("timeout 10 npm start", "zsh: command not found: timeout")
    [gnu] = _run(errors.missing_command_rule, [missing, _ok("gtimeout 10 npm start")])
    assert gnu.summary == "timeout is not on the PATH on this machine; use gtimeout instead"
    assert gnu.promotion == VERIFIED_FIX


def test_a_missing_program_run_by_its_windows_launcher_is_the_way_to_call_it_not_missing():
    missing = _not_found("mvnw verify", "'mvnw' is not recognized as an internal or external command,")
    [launcher] = _run(errors.missing_command_rule, [missing, _ok("mvnw.cmd verify", tool="PowerShell")])
    assert launcher.summary == "mvnw is not on the PATH on this machine; use mvnw.cmd instead"
    assert launcher.promotion == VERIFIED_FIX
    runner = _not_found("npx eslint .", "'npx' is not recognized as an internal or external command,")
    [shim] = _run(errors.missing_command_rule, [runner, _ok("npx.cmd eslint .", tool="PowerShell")])
    assert shim.summary == "npx is not on the PATH on this machine; use npx.cmd instead"
    assert _run(errors.missing_command_rule, [runner, _ok("npx eslint --fix .")]) == []  # it ran after all


def test_a_missing_lookup_program_replaced_by_another_lookup_is_the_way_to_look_programs_up():
    """No `which` on a minimal system; `command -v` (a shell builtin) found the same program right after."""
    which = _not_found("which node && node --version", "sh: 1: which: not found")
    [lookup] = _run(errors.missing_command_rule, [which, _ok("ls"), _ok("command -v node && node --version")])
    assert lookup.summary == "which is not on the PATH on this machine; use command -v instead"
    assert lookup.promotion == VERIFIED_FIX
    other = _ok("command -v go")  # another program looked up: no sign it stands in for the failed lookup
    assert _run(errors.missing_command_rule, [which, other])[0].summary.startswith("which is not installed")


def test_a_lookup_that_found_nothing_is_quoted_without_the_machines_path_listing():
    """`which: no foo in (/usr/bin:~/.local/share/mise/installs/node/25.0.0/bin)`: the folders are this machine's
    setup of the day, not the lesson."""
    line = "which: no deno in (/usr/local/bin:/home/ana/.local/share/mise/installs/node/25.0.0/bin:/usr/bin)"
    [cand] = _run(errors.missing_command_rule, [_prompt("Serve it with deno"), _fail("which deno", line)])
    assert cand.summary.startswith("deno is not installed")
    assert "which: no deno in the PATH" in cand.content and "mise" not in cand.content


def test_a_lookup_that_fails_is_no_missing_program_unless_the_work_needed_it():
    """`which X`, `command -v X`, `X --version` ask what is there; the answer matters only if X was wanted."""
    probe = _not_found("command -v deno", "")
    probe.errors = [{"error_type": "exit-code", "line": "exit code 1", "signature": "exit code 1"}]
    probe.result_head = "zsh: command not found: deno"
    version = _not_found("zig version", "bash: zig: command not found")
    moved_on = [_prompt("Check the build scripts"), version, _ok("make build")]
    assert _run(errors.missing_command_rule, moved_on) == []
    wanted = [_prompt("Build it with zig please"), version, _ok("make build")]
    assert _run(errors.missing_command_rule, wanted)[0].summary.startswith("zig is not installed")
    tried = [version, _ok("ls"), _not_found("zig build -Doptimize=ReleaseFast", "bash: zig: command not found")]
    assert _run(errors.missing_command_rule, tried)[0].summary.startswith("zig is not installed")
    run = _not_found("zig build", "bash: zig: command not found")  # a call that ran it for work
    assert _run(errors.missing_command_rule, [run, _ok("make build")])[0].summary.startswith("zig is not installed")


def test_a_package_manager_looked_up_and_replaced_by_another_is_what_the_session_used():
    yarn = _not_found("yarn --version", "bash: yarn: command not found")
    [cand] = _run(errors.missing_command_rule, [yarn, _ok("npm install"), _ok("npm run dev")])
    assert cand.summary == "yarn is not installed on this machine; the session used npm" and not cand.promotion
    assert "`npm install`" in cand.content


def test_a_program_searched_for_in_several_places_is_no_binary_not_a_tool_to_install():
    which = _fail("which figma-linux", "which: no figma-linux in (/usr/bin)")
    empty = "(Bash completed with no output)"
    searches = [
        _ok("ls /opt/ | grep -i figma-linux", result_head=empty),
        _ok("find ~/.local -iname '*figma-linux*'", result_head=empty),
    ]
    [cand] = _run(errors.missing_command_rule, [which, *searches])
    assert cand.summary.startswith("No figma-linux binary on this machine") and "install it" not in cand.summary
    assert "/opt/, ~/.local" in cand.content
    assert _run(errors.missing_command_rule, [which, searches[0]]) == []  # one look more: still only a probe


def test_a_tool_missing_inside_a_package_script_is_no_missing_program_of_the_machine():
    inside = _fail("pnpm test", "sh: jest: command not found")
    assert _run(errors.missing_command_rule, [_prompt("run the tests"), inside]) == []
    direct = _not_found("jest --ci", "zsh: command not found: jest")
    assert _run(errors.missing_command_rule, [_prompt("run the tests"), direct]) != []


def test_a_tool_found_through_the_projects_runner_is_run_that_way_and_a_typo_is_no_missing_program():
    def missing(command: str, name: str) -> Step:
        return _not_found(command, f"bash: {name}: command not found")

    for worked, how in (
        ("uv run pytest -q", "uv run pytest"),
        (".venv/bin/pytest -q", ".venv/bin/pytest"),
        ("source .venv/bin/activate && pytest -q", "source .venv/bin/activate && pytest"),
    ):
        [cand] = _run(errors.missing_command_rule, [missing("pytest -q", "pytest"), _ok(worked)])
        assert cand.summary == f"pytest is not on the PATH in this project; run it as `{how}`", worked
        assert cand.scope == "project" and cand.promotion == VERIFIED_FIX
    [tsc] = _run(errors.missing_command_rule, [missing("tsc --noEmit", "tsc"), _ok("npx tsc --noEmit")])
    assert tsc.summary.endswith("run it as `npx tsc`")
    assert _run(errors.missing_command_rule, [missing("gti status", "gti"), _ok("git status")]) == []
    assert _run(errors.missing_command_rule, [missing("pyhton a.py", "pyhton"), _ok("python a.py")]) == []
    [pip] = _run(errors.missing_command_rule, [missing("pip install x", "pip"), _ok("pip3 install x")])
    assert pip.summary.startswith("pip is not on the PATH")  # pip3 is another version, not a slip


def test_a_missing_program_run_in_its_plugin_or_module_form_is_the_way_to_call_it():
    """docker-compose -> `docker compose`, pip -> `python3 -m pip`: the same job under another spelling."""
    compose = _not_found("docker-compose up -d db", "bash: docker-compose: command not found")
    [plugin] = _run(errors.missing_command_rule, [compose, _ok("docker compose up -d db")])
    assert plugin.summary == "docker-compose is not on the PATH on this machine; use docker compose instead"
    assert plugin.promotion == VERIFIED_FIX
    pip = _not_found("pip install -r requirements.txt", "zsh: command not found: pip")
    [module] = _run(errors.missing_command_rule, [pip, _ok("python3 -m pip install -r requirements.txt")])
    assert module.summary.endswith("use python3 -m pip instead") and module.promotion == VERIFIED_FIX
    for other in ("docker compose version", "docker ps", "python3 -m venv .venv", "python3 -m pip --version"):
        found = _run(errors.missing_command_rule, [compose if "docker" in other else pip, _ok(other)])
        assert not any(c.promotion for c in found), other  # another job: no way to call it is shown


def test_a_cmdlet_in_bash_and_a_failure_the_session_got_past_are_no_lessons():
    cmdlet = _not_found("Get-ChildItem -Path . -Force", "/usr/bin/bash: line 1: Get-ChildItem: command not found")
    assert find_candidates(Session([cmdlet])) == []  # PowerShell in the wrong shell, nothing to install
    line = "fatal: not a git repository (or any parent up to mount point /)"
    steps = [_fail("git status", line), _fail("git diff", line), _fail("git log -5", line)]
    assert _run(errors.repeated_error_rule, [*steps, _ok("git init"), _ok("git status")]) == []
    assert _run(errors.repeated_error_rule, steps)[0].summary.endswith("not resolved in the session")
    mac = _not_found("timeout 15s npm start", "(eval):1: command not found: timeout")
    [missing] = _run(errors.missing_command_rule, [mac])
    assert missing.summary.startswith("timeout is not installed")


def test_an_install_after_a_not_found_a_pipe_hid_is_a_lesson_that_waits():
    """`ssh -V 2>&1 | head -1` exits 0 with "ssh: command not found"; the install and a later run make it a lesson,
    a candidate: the install lasts, so on this machine the problem is gone until another session meets it again."""
    probe = _ok("ssh -V 2>&1 | head -1", result_head="bash: line 1: ssh: command not found\n")
    install, run = _ok("pkg install openssh -y 2>&1 | tail -3"), _ok("ssh -V")
    [cand] = _run(errors.missing_command_rule, [probe, install, run])
    assert cand.summary == "ssh was not preinstalled on this machine; `pkg install openssh -y` installed it"
    assert cand.promotion == "" and "said: ssh: command not found" in cand.content
    assert _run(errors.missing_command_rule, [probe]) == []  # a hidden "not found" alone is not a memory
    assert _run(errors.missing_command_rule, [probe, run]) == []  # it ran later without an install
    assert _run(errors.missing_command_rule, [probe, _ok("pkg install openjdk-17"), run]) == []  # not what provides ssh


def test_a_host_lookup_failing_in_a_sandboxed_session_is_no_network_there():
    offline = _fail(
        "npm install left-pad",
        "npm error network request to https://registry.example.org/left-pad failed, "
        "reason: getaddrinfo ENOTFOUND registry.example.org",
    )
    sandboxed = _ok("git commit -m x", escalated=True)
    [cand] = _run(errors.offline_sandbox_rule, [sandboxed, offline])
    assert cand.summary.startswith("npm has no network access in the agent's sandbox here")
    assert "registry.example.org" in cand.summary and not cand.promotion
    assert _run(errors.offline_sandbox_rule, [offline]) == []  # no sign of a sandbox: maybe an outage
    assert _run(errors.offline_sandbox_rule, [sandboxed, offline, _ok("npm install left-pad", escalated=True)]) == []
    assert _run(errors.offline_sandbox_rule, [sandboxed, offline, _ok("npm install left-pad")]) == []  # transient


def test_an_error_naming_a_newer_python_feature_dates_the_interpreter():
    subscript = _fail("python tools/report.py", "TypeError: 'type' object is not subscriptable")
    future = _fail("python tools/report.py", "SyntaxError: future feature annotations is not defined")
    [cand] = _run(errors.old_python_rule, [subscript, _ok("python -V"), future])
    assert cand.summary.startswith("`python` here predates Python 3.7") and "typing" in cand.summary
    [later] = _run(errors.old_python_rule, [subscript])
    assert "predates Python 3.9" in later.summary and not later.promotion
    node = _fail("node tools/report.js", "TypeError: 'type' object is not subscriptable")
    assert _run(errors.old_python_rule, [node]) == []  # only an interpreter the call ran can be dated


def test_a_commit_failing_inside_a_hook_that_runs_the_checks_says_so():
    out = "\n> shop@1.2.0 verify\n> eslint . && tsc --noEmit\n\nsrc/a.ts(3,1): error TS2304: Cannot find name 'x'.\n"
    commit = _fail('git commit -m "Add cart"', "src/a.ts(3,1): error TS2304: Cannot find name 'x'.")
    commit.result_head = out
    [cand] = _run(errors.commit_hook_rule, [commit])
    assert cand.summary == (
        "git commit runs `npm run verify` (eslint . && tsc --noEmit) as a hook here; "
        "make npm run verify pass before committing"
    )
    assert cand.scope == "project" and not cand.promotion
    husky = _fail("git commit -m x", "husky - pre-commit hook exited with code 1 (error)")
    assert "husky" in _run(errors.commit_hook_rule, [husky])[0].summary
    plain = _fail("git commit -m x", "error: pathspec 'x' did not match any file(s) known to git")
    build = _fail("npm run build", "error TS2304")
    build.result_head = out
    assert _run(errors.commit_hook_rule, [plain, build]) == []  # no hook in a commit's output; not a commit


def test_a_profile_loaded_tool_is_not_loaded_rather_than_not_installed():
    """nvm, rvm, sdk, conda ... are shell functions or hooks from the profile an agent's shell never reads."""
    nvm = _fail("nvm use 20", "zsh:1: command not found: nvm")
    [cand] = _run(errors.missing_command_rule, [nvm])
    assert (
        cand.summary
        == "nvm is not loaded in the agent's non-interactive shell; `source ~/.nvm/nvm.sh` before calling it"
    )
    assert "not installed" not in cand.summary and "Node version manager" in cand.content and not cand.promotion
    sdk = _fail("sdk use java 21", "bash: sdk: command not found")
    assert "sdkman-init.sh" in _run(errors.missing_command_rule, [sdk])[0].summary
    loaded = _run(errors.missing_command_rule, [nvm, _ok("source ~/.nvm/nvm.sh && nvm use 20")])
    assert [c.summary for c in loaded] == [
        "nvm is not loaded in the agent's non-interactive shell until `source ~/.nvm/nvm.sh`"
    ] and loaded[0].promotion == VERIFIED_FIX
    assert _run(errors.missing_command_rule, [nvm, _ok("nvm use 20")]) == []  # it ran later as it was


def test_a_missing_package_is_named_and_a_missing_file_is_not():
    pkg = _fail("npx tsc --noEmit", "error TS2307: Cannot find module '@testing-library/react'")
    [cand] = _run(errors.missing_module_rule, [pkg, _ok("src/a.test.ts", tool="Edit"), _ok("npx tsc --noEmit")])
    assert "@testing-library/react" in cand.summary
    script = _fail("node server.js", "Error: Cannot find module '/w/app/server.js'")
    assert _run(errors.missing_module_rule, [script, _ok("server.js", tool="Write"), _ok("node server.js")]) == []


def test_a_dependency_the_session_installed_is_a_fix_that_waits():
    """After `pip install pandas` or `cargo add serde_json` the project has it: "must be installed first" would be
    stale from the next session on, so the lesson waits until another session meets the same failure."""
    missing = _fail("python3 report.py", "ModuleNotFoundError: No module named 'pandas'")
    steps = [missing, _ok("pip install pandas"), _ok("python3 report.py")]
    [module] = _run(errors.missing_module_rule, steps)
    assert module.summary == "pandas was not installed in this project; `pip install pandas` installed it"
    assert not module.promotion
    unresolved = _fail("cargo build", "error[E0432]: unresolved import `serde_json`")
    [added] = _run(errors.fixed_error_rule, [unresolved, _ok("cargo add serde_json"), _ok("cargo build")])
    assert "after `cargo add serde_json`" in added.summary and not added.promotion
    env = _fail("make test", "Error: DATABASE_URL is not set")
    [kept] = _run(errors.fixed_error_rule, [env, _ok("DATABASE_URL=sqlite:///t.db make test")])
    assert kept.promotion == VERIFIED_FIX  # a setting the next call needs again, not a dependency added


def test_an_install_run_by_the_path_of_an_environments_pip_is_a_fix_that_waits():
    missing = _fail(".env/bin/jupyter nbconvert --execute demo.ipynb", ".env/bin/jupyter: No such file or directory")
    steps = [missing, _ok(".env/bin/pip install -q jupyter"), _ok(".env/bin/jupyter nbconvert --execute demo.ipynb")]
    [cand] = _run(errors.fixed_error_rule, steps)
    assert "after `.env/bin/pip install -q jupyter`" in cand.summary and not cand.promotion
    steps[1] = _ok("/opt/venv/bin/python -m pip install jupyter")
    [also] = _run(errors.fixed_error_rule, steps)
    assert not also.promotion


def test_an_import_that_works_from_the_projects_environment_is_no_missing_package():
    missing = _fail("python3 tools/report.py", "ModuleNotFoundError: No module named 'yaml'")
    for fix, how in (
        ("source venv/bin/activate && python3 tools/report.py", "source venv/bin/activate && python3"),
        ("uv run python3 tools/report.py", "uv run python3"),
    ):
        [cand] = _run(errors.missing_module_rule, [missing, _ok(fix)])
        assert cand.summary == f"yaml is installed in the project's environment only; run python3 as `{how}`"
        assert "not installed" not in cand.summary
    installed = [missing, _ok("pip install pyyaml"), _ok("source venv/bin/activate && python3 tools/report.py")]
    [cand] = _run(errors.missing_module_rule, installed)
    assert "environment only" not in cand.summary  # an install came between: the install is the news


def test_a_probe_refused_until_the_session_started_its_server_is_no_lesson():
    refused = _fail("curl -s localhost:8080/health", "curl: (7) Failed to connect to localhost port 8080: refused")
    started = [refused, _ok("npm run serve > /tmp/serve.log 2>&1 &"), _ok("curl -s localhost:8080/health")]
    assert _run(errors.fixed_error_rule, started) == []
    needs_db = _fail("pytest -q tests/integration", "psycopg.OperationalError: connection refused")
    steps = [needs_db, _ok("docker compose up -d db"), _ok("pytest -q tests/integration")]
    [kept] = _run(errors.fixed_error_rule, steps)
    assert "after `docker compose up -d db`" in kept.summary  # the tests need the service: a lesson


def test_a_commit_with_nothing_staged_is_a_slip_not_a_fix_by_git_add():
    empty = _fail('git commit -m "docs: notes"', "nothing added to commit but untracked files present (use git add)")
    assert _run(errors.fixed_error_rule, [empty, _ok("git add docs && git commit -m 'docs: notes'")]) == []
    unstaged = _fail("git commit -m fix", 'no changes added to commit (use "git add" and/or "git commit -a")')
    assert _run(errors.fixed_error_rule, [unstaged, _ok("git add -A"), _ok("git commit -m fix")]) == []


def test_a_way_round_a_busy_port_waits_as_a_candidate():
    busy = _fail("npm run dev", "Error: listen EADDRINUSE: address already in use :::5173")
    [cand] = _run(errors.fixed_error_rule, [busy, _ok("PORT=5174 npm run dev")])
    assert "PORT=5174" in cand.summary and not cand.promotion  # the port was taken then, maybe not next time
    heap = _fail("npm run build", "FATAL ERROR: Reached heap limit Allocation failed")
    [kept] = _run(errors.fixed_error_rule, [heap, _ok("NODE_OPTIONS=--max-old-space-size=4096 npm run build")])
    assert kept.promotion == VERIFIED_FIX


def test_and_and_refused_by_windows_powershell_teaches_how_to_chain_commands():
    refused = _fail("cd api && dotnet build", "The token '&&' is not a valid statement separator in this version.")
    steps = [_prompt("build the api"), refused, _ok("cd api; dotnet build")]
    [cand] = find_candidates(Session(steps, root="C:/work/shop"))
    assert cand.summary.startswith("The shell on this Windows machine is Windows PowerShell: it does not take `&&`")
    assert cand.scope == "global" and cand.promotion == VERIFIED_FIX
    assert find_candidates(Session([_prompt("build the api"), refused])) == []  # never chained otherwise


def test_the_windows_python_launcher_is_another_spelling_of_python():
    missing = _not_found("python3 manage.py check", "python3 : The term 'python3' is not recognized as a cmdlet")
    [cand] = _run(errors.missing_command_rule, [missing, _ok("py -3 manage.py check")])
    assert cand.summary.endswith("use py instead") and cand.promotion == VERIFIED_FIX
    other = [missing, _ok("py -3 tools/other.py")]  # py ran something else: no respelling shown
    assert all("use py instead" not in c.summary for c in _run(errors.missing_command_rule, other))


def test_the_agents_own_inline_script_bug_is_a_slip():
    steps = [_fail("node -e \"eval(fs.readFileSync('data.js'))\"", "ReferenceError: window is not defined")] * 2
    assert _run(errors.repeated_error_rule, steps) == []


def test_a_command_stopping_at_a_wizard_twice_is_a_pattern_with_what_worked_last():
    steps = [
        _ok("npx make-widget@latest app", asked="Would you like a src folder?"),
        _ok('echo "" | npx make-widget@latest app --src', asked="Would you like a linter?"),
        _ok('yes "" | npx make-widget@latest app --src --no-lint', asked="Would you like an alias?"),
    ]
    [cand] = _run(errors.interactive_rule, steps)
    assert cand.kind == "pattern" and "make-widget" in cand.summary and "interactive prompts" in cand.summary
    assert "(3x)" in cand.summary and "--no-lint" in cand.content
    assert _run(errors.interactive_rule, steps[:1]) == []


def test_a_wizard_is_named_without_the_folder_it_was_asked_to_make():
    steps = [
        _ok("npx make-site@latest blog-site", asked="Would you like a router?"),
        _ok('yes "" | npx make-site@latest blog-site --router', asked="Would you like a linter?"),
        _ok("cd blog-site && npm run dev"),
    ]
    [cand] = _run(errors.interactive_rule, steps)
    assert cand.summary.startswith("make-site stops at interactive prompts (2x)"), cand.summary
    assert "make-site's questions" in cand.content
    scaffold = [
        _ok("npx tool-kit init", asked="Which preset?"),
        _ok("echo 1 | npx tool-kit init", asked="Which theme?"),
    ]
    [sub] = _run(errors.interactive_rule, scaffold)
    assert sub.summary.startswith("tool-kit init stops"), sub.summary  # a subcommand stays


def test_escalation_and_wizard_questions_are_read_from_the_turn():
    wizard = "\x1b[36m?\x1b[39m \x1b[1mUse the new bundler?\x1b[22m \x1b[90m\u203a\x1b[39m No / Yes"
    code = "const mark = isOpen ? '\u203a' : ' ';"
    turn = Turn(
        harness="codex",
        session_id="s",
        turn_id="t",
        actions=[
            ToolAction(
                name="shell",
                input_summary="cp a b",
                input={"command": ["cp", "a", "b"], "with_escalated_permissions": True},
            ),
            ToolAction(name="shell", input_summary="npm init thing", result_text=wizard, exit_code=0),
            ToolAction(name="Read", input_summary="src/view.ts", result_text=code),
            ToolAction(name="shell", input_summary="setup", result_text="Overwrite the settings? (y/N)", exit_code=0),
        ],
    )
    escalated, wizard_step, file_view, yes_no = steps_from_turns([turn])
    assert escalated.escalated and not wizard_step.escalated
    assert wizard_step.asked == "Use the new bundler?"
    assert file_view.asked == ""
    assert yes_no.asked == "Overwrite the settings?"


def test_a_diagnosis_after_a_failed_call_then_a_passing_edit_is_an_observation():
    failed = _fail("make docs", "Error: cannot open theme/base.css")
    failed.said_after = (
        "The issue is that the docs build reads theme files relative to docs/conf.py, not the repo root."
    )
    [cand] = _run(reports.diagnosis_rule, [failed, _ok("docs/conf.py", tool="Edit"), _ok("make docs")])
    assert cand.kind == "observation" and "make docs" in cand.summary and "The issue is" not in cand.summary
    assert "conf.py" in cand.content and "cannot open theme/base.css" in cand.content


def test_a_diagnosis_needs_a_cause_a_change_a_pass_and_a_link_to_the_failure():
    def said(step: Step, text: str) -> Step:
        step.said_after = text
        return step

    plan = [
        said(_fail("make docs", "Error: cannot open theme/base.css"), "Let me look at the theme folder first."),
        _ok("conf.py", tool="Edit"),
        _ok("make docs"),
    ]
    assert _run(reports.diagnosis_rule, plan) == []
    nothing_passed = [
        said(_fail("make docs", "Error: cannot open theme/base.css"), "The issue is that the theme moved."),
        _ok("conf.py", tool="Edit"),
    ]
    assert _run(reports.diagnosis_rule, nothing_passed) == []
    unrelated = [
        said(
            _fail("npm test", "Error: Worker exited unexpectedly"),
            "The issue is that browsers require user activation for directory access.",
        ),
        _ok("app.tsx", tool="Edit"),
        _ok("npm test"),
    ]
    assert _run(reports.diagnosis_rule, unrelated) == []  # failure class 11: about another thing
    hedged = [
        said(_fail("make docs", "Error: cannot open theme/base.css"), "The issue might be that the theme moved."),
        _ok("conf.py", tool="Edit"),
        _ok("make docs"),
    ]
    assert _run(reports.diagnosis_rule, hedged) == []


def test_a_failure_the_agent_caused_by_its_own_edit_in_the_turn_and_mended_is_no_lesson():
    def steps(*before: Step) -> list[Step]:
        failed = _fail("pytest tests/test_cart.py -q", "E   NameError: name 'Decimal' is not defined")
        failed.said_after = "The issue is that the Decimal import was dropped from cart.py when the helper moved."
        return [*before, failed, _ok("src/shop/cart.py", tool="Edit"), _ok("pytest tests/test_cart.py -q")]

    own = steps(_prompt("Move the rounding helper out of the cart"), _ok("src/shop/cart.py", tool="Edit"))
    assert _run(reports.diagnosis_rule, own) == []
    by_sed = steps(_prompt("Move the rounding helper"), _ok("sed -i 's/^from decimal.*//' src/shop/cart.py"))
    assert _run(reports.diagnosis_rule, by_sed) == []
    # the file was last changed in an earlier turn, or another file was: the diagnosis may teach something
    earlier_turn = steps(_ok("src/shop/cart.py", tool="Edit", turn=0), _prompt("Run the cart tests", turn=1))
    for step in earlier_turn[2:]:
        step.turn = 1
    assert len(_run(reports.diagnosis_rule, earlier_turn)) == 1
    other_file = steps(_prompt("Move the rounding helper out of the cart"), _ok("src/shop/money.py", tool="Edit"))
    assert len(_run(reports.diagnosis_rule, other_file)) == 1


def test_a_config_file_the_agent_edited_then_edited_again_to_pass_is_no_lesson():
    own = [
        _prompt("Add the new alias to the compiler options"),
        _ok("tsconfig.json", tool="Edit"),
        _fail("npx tsc --noEmit", "error TS5023: Unknown compiler option 'baseUrll'."),
        _ok("tsconfig.json", tool="Edit"),
        _ok("npx tsc --noEmit"),
    ]
    assert _run(errors.fixed_error_rule, own) == []
    assert len(_run(errors.fixed_error_rule, [own[0], *own[2:]])) == 1  # a config edit the failure called for


def test_a_problem_the_user_reported_then_fixed_with_a_stated_cause():
    report = _prompt(
        "After logging in I'm getting stuck on a page saying Signing in...",
        answer="The view was stuck because the UI never re-rendered after the auth callback. I added a gate.",
    )
    steps = [
        report,
        _ok("*** Begin Patch\n*** Update File: src/main.tsx\n", tool="apply_patch"),
        _prompt("next: the lobby"),
    ]
    [cand] = _run(reports.reported_problem_rule, steps)
    assert "never re-rendered" in cand.summary and "main.tsx" in cand.content and not cand.promotion
    again = [
        report,
        steps[1],
        _prompt("still broken: I'm getting stuck on a page saying Signing in...", after_interrupt=True),
    ]
    assert _run(reports.reported_problem_rule, again) == []  # reported again at once: not fixed


def test_a_stated_cause_loses_its_lead_in_and_a_browser_console_label():
    assert reports._cause("Two issues: `cartStore` was removed during the refactor.") == (
        "`cartStore` was removed during the refactor"
    )
    assert reports._cause("I found why it's not loading: nginx only serves `dist/`") == "Nginx only serves `dist/`"
    report = _prompt(
        "GET http://localhost:5173/pages/Cart net::ERR_ABORTED 404 (Not Found)Understand this error",
        answer="Those 404s are because the browser requests extensionless module paths. I fixed server.js.",
    )
    steps = [report, _ok('{"file_path": "/w/app/server.js"}', tool="Edit"), _prompt("next: the lobby")]
    [cand] = _run(reports.reported_problem_rule, steps)
    assert "Understand this" not in cand.summary and "extensionless" in cand.summary


def test_a_reported_error_cut_before_its_quoted_file_names_the_file():
    steps = [
        _prompt(
            "Error: ENOENT: no such file or directory, open './pkg/src/app.json'",
            answer="The issue is that `config.ts` moved to `lib/`, so its parent folder is `src/` now.",
        ),
        _ok('{"file_path": "/w/pkg/src/lib/config.ts"}', tool="Edit"),
        _prompt("next: the lobby"),
    ]
    [cand] = _run(reports.reported_problem_rule, steps)
    assert cand.summary.startswith("no such file or directory, open app.json: `config.ts` moved to `lib/`")


def test_a_fix_request_is_quoted_as_asked_and_the_fixed_file_keeps_its_case():
    steps = [
        _prompt("fix CartScreen", answer="Two issues: `cartStore` was removed during the refactor. Use `state`."),
        _ok('{"file_path": "/w/app/src/CartScreen.kt"}', tool="Edit"),
        _prompt("next: the lobby"),
    ]
    [cand] = _run(reports.reported_problem_rule, steps)
    assert cand.summary == "`cartStore` was removed during the refactor (fixed in CartScreen.kt)"
    assert cand.content.startswith("The user asked: fix CartScreen\n") and "Changed: CartScreen.kt" in cand.content


def test_a_fixed_cause_read_later_says_it_was_fixed_and_keeps_its_reason():
    answer = "The sidebar is empty because the loader reads the menu from the old settings key. I changed both."
    steps = [
        _prompt("The sidebar is not showing any links since yesterday", answer=answer),
        _ok("src/menu/loader.ts", tool="Edit"),
        _ok("src/settings/keys.ts", tool="Edit"),
        _prompt("next: the footer"),
    ]
    [two] = _run(reports.reported_problem_rule, steps)
    assert two.summary == (
        "The sidebar is empty because the loader reads the menu from the old settings key (fixed in loader.ts, keys.ts)"
    ), two.summary
    wider = [*steps[:3], _ok("src/app.ts", tool="Edit"), steps[3]]
    [three] = _run(reports.reported_problem_rule, wider)
    assert three.summary.endswith("old settings key (fixed)"), three.summary  # too many files to name: still fixed
    long_answer = (
        "The exporter drops every row after the first page because the cursor is reset when the filter"
        " panel re-renders. I fixed it."
    )
    report = _prompt("TypeError: Cannot read properties of undefined (reading 'rows')", answer=long_answer)
    [whole] = _run(reports.reported_problem_rule, [report, *wider[1:]])
    assert "because the cursor is reset" in whole.summary and whole.summary.endswith("(fixed)"), whole.summary


def test_the_same_pasted_error_in_several_prompts_is_one_pattern():
    def report(module: str) -> list[Step]:
        return [
            _prompt(
                f'Uncaught TypeError: Failed to resolve module specifier "{module}". Relative references must '
                'start with either "/", "./", or "../".',
                answer=f"Added `{module}` to the import map in index.html so the browser can resolve it.",
            ),
            _ok("*** Begin Patch\n*** Update File: public/index.html\n", tool="apply_patch"),
        ]

    steps = report("react") + report("@otel/api") + report("@otel/sdk")
    [cand] = _run(reports.reported_problem_rule, steps)
    assert cand.kind == "pattern" and "(3x)" in cand.summary and "import map" in cand.summary


# --- what the user said ---------------------------------------------------------------------------


def test_directives_are_promoted_and_rephrased_with_the_words_kept():
    steps = [_prompt("no, don't use yarn for the docs site, use pnpm instead")]
    [cand] = _run(said.directive_rule, steps)
    assert cand.summary == "Use pnpm, not yarn, for the docs site" and cand.promotion == INSTRUCTION
    assert "don't use yarn for the docs site" in cand.content
    [plain] = _run(said.directive_rule, [_prompt("ok, don't touch the generated files under build/")])
    assert plain.kind == "decision" and plain.summary == "Don't touch the generated files under build/"
    assert _run(said.directive_rule, [_prompt("don't worry about the tests")]) == []


def test_use_x_not_y_forms_and_their_scope():
    """The forms the real clients showed the hook missing, and "this repo" rules stay in the project."""
    for text, summary in (
        ("Use uv, not pip, in this repo.", "Use uv, not pip, in this repo"),
        ("Use pnpm, not npm, here.", "Use pnpm, not npm, here"),
        ("Never use sudo in this repo.", "Never use sudo in this repo"),
    ):
        [cand] = _run(said.directive_rule, [_prompt(text)])
        assert cand.summary == summary and cand.scope == "project", text
    [general] = _run(said.directive_rule, [_prompt("I prefer short commit messages in the imperative mood.")])
    assert general.scope == "global" and general.kind == "preference"
    for text in ("Please use British spelling in all docs", "Use conventional commits for every commit"):
        [scoped] = _run(said.directive_rule, [_prompt(text)])
        assert scoped.promotion == INSTRUCTION, text
    for text in ("Use a map for each row in the table", "Put the button in every card"):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text  # this page's rows and cards
    [avoid] = _run(said.directive_rule, [_prompt("Avoid using any in TypeScript")])
    assert avoid.promotion == INSTRUCTION
    assert not _run(said.directive_rule, [_prompt("Avoid the header bug by resetting state")])[0].promotion
    [both] = _run(said.directive_rule, [_prompt("Don't change /api/health, and don't remove the privacy notice.")])
    assert both.summary == "Don't change /api/health, and don't remove the privacy notice"  # no clause lost
    [spelled] = _run(said.directive_rule, [_prompt("Do not use emojis in code or docs")])
    assert spelled.summary == "Don't use emojis in code or docs"  # "Do not ..." is no question like "Do you ...?"
    [explain] = _run(said.directive_rule, [_prompt("I prefer you to explain before making changes")])
    assert explain.summary == "Explain before making changes"
    [tabs] = _run(said.directive_rule, [_prompt("Remember that I prefer tabs over spaces")])
    assert tabs.summary == "Prefer tabs over spaces"
    [short] = _run(said.directive_rule, [_prompt("No, pnpm, not npm")])
    assert short.summary.lower().startswith("pnpm, not npm")
    for pointer in ("no, not that header, the one in the sidebar", "No, not the red one, the blue one"):
        assert _run(said.directive_rule, [_prompt(pointer)]) == [], pointer  # which one of this turn's things


def test_a_standing_always_asked_of_the_agent_is_a_rule_and_a_plain_request_is_not():
    """ "I want you to always X" states a habit; "I want you to X" asks for this turn's work."""
    for text in (
        "Please add a flag. I want you to always run the tests before committing.",
        "I'd like you to always explain the diff first.",
        "I would like you to always use pnpm",
    ):
        [cand] = _run(said.directive_rule, [_prompt(text)])
        assert cand.promotion == INSTRUCTION and cand.summary.startswith("Always "), text
    for text in ("I want you to fix the login bug", "I'd like you to add a flag", "I want you to always the same"):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text


def test_a_rule_passed_on_from_someone_else_is_kept_in_their_words():
    for text in (
        "The team lead wants us to never push directly to main.",
        "Our reviewer says: always add a changelog entry.",
        "He told me to always restart the server after editing config",
    ):
        [cand] = _run(said.directive_rule, [_prompt(text)])
        assert cand.promotion == INSTRUCTION and cand.summary == text.rstrip("."), text
    for text in ("my boss told me to look at the logs", "the error told me to never mind", "John said it is broken"):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text


def test_directives_in_other_languages():
    """Failure class 12: Chinese, Japanese, Korean, Russian, Spanish, German, French and Portuguese cue words."""
    cases = {
        "以后不要用 npm，改用 pnpm": "zh",
        "コミットする前に必ずテストを実行して": "ja",
        "앞으로 커밋 메시지는 영어로 써": "ko",
        "Никогда не используй sudo в этом репозитории": "ru",
        "Nunca uses sudo en este repositorio": "es",
        "Verwende niemals sudo in diesem Repo": "de",
        "N'utilise jamais sudo dans ce dépôt": "fr",
        "Nunca use sudo neste repositório": "pt",
    }
    for text, language in cases.items():
        [cand] = _run(said.directive_rule, [_prompt(text)])
        assert cand.promotion == INSTRUCTION and "another language" in cand.why, (text, language)
    [lang] = _run(said.directive_rule, [_prompt("中文交互，用中文来问我")])
    assert lang.summary.startswith("Talk to the user in Chinese") and lang.scope == "global"
    assert _run(said.directive_rule, [_prompt("这个文档和当前代码实现符合吗")]) == []  # a question


def test_an_instruction_the_agent_applied_names_the_files_it_changed_in_that_turn():
    """A directive in the user's language gains the file it took effect in (as written, not lowered)."""
    steps = [
        _prompt("以后不要用 npm，改用 pnpm"),
        _ok("cat package.json"),
        _ok('{"file_path": "/w/shop/scripts/Build.sh", "old_string": "npm", "new_string": "pnpm"}', tool="Edit"),
        _prompt("再检查一下"),
        _ok('{"file_path": "/w/shop/README.md"}', tool="Edit"),
    ]
    [cand] = _run(said.directive_rule, steps, root="/w/shop")
    assert "Applied to: /w/shop/scripts/Build.sh" in cand.content and "README" not in cand.content
    [portable] = find_candidates(Session(steps, root="/w/shop"))
    assert "Applied to: ./scripts/Build.sh" in portable.content
    mixed = [
        _prompt("Fix the login page and add a logout button. Never use sudo in this repo."),
        _ok('{"file_path": "/w/shop/login.tsx"}', tool="Edit"),
    ]
    assert "Applied to" not in _run(said.directive_rule, mixed)[0].content  # the turn did more than apply the rule
    many = [steps[0]] + [_ok(f'{{"file_path": "/w/shop/f{n}.sh"}}', tool="Edit") for n in range(4)]
    assert "Applied to" not in _run(said.directive_rule, many)[0].content


def test_narrative_role_play_questions_and_pasted_logs_are_never_directives():
    """Failure class 5: role-play and lore are not preferences."""
    for text in (
        "The knight draws his sword and says: never trust the king.",
        "You are Aria, a cheerful assistant who always answers in rhymes.",
        "Should we never cache the tokens?",
        "```\nnever use this in production\n```",
        "> always use the v2 API\n",
        'Uncaught TypeError: x. Relative references must start with either "/", "./", or "../".',
        "From now on, you are a pirate.",
        "Translate to French: 'Always wash your hands. Never touch your face.'",
        "From now on wards lets consider your name as SAIA",
        "don't be stupid.  I'm a solo dev who gets angry when you mess up.",
        "The prompt for the bot should say: 'You are a helpful assistant. Always answer in English.'",
        "Always the same problem with you!",
        "never gonna give you up",
    ):
        assert find_candidates(Session([_prompt(text)])) == [], text
    lore = "\n".join(f"Line {i} of the story: the dragon always sleeps by day." for i in range(30))
    assert find_candidates(Session([_prompt(lore + "\nplease never delete chapter files")])) != []
    assert all("dragon" not in c.summary for c in find_candidates(Session([_prompt(lore)])))


def test_fragments_that_mean_nothing_out_of_context_are_not_stored():
    """Failure class 4: "They must never...", "Close -- it's at...", a pointer to "that"."""
    for text in ("They must never see the admin page", "no, dimGray should be that", "Close -- it's at /Documents/x"):
        assert find_candidates(Session([_prompt(text, after_interrupt=True)])) == [], text


def test_where_the_user_says_a_thing_lives_becomes_an_observation():
    assert said.location_statement("add it there, there is a settings file at conf/app.toml") == (
        "add it there, there is a settings file at conf/app.toml"
    )
    assert said.location_statement("the bug is in src/app.py") == ""
    assert said.location_statement("see https://example.org/docs/x.md") == ""
    [cand] = _run(said.location_rule, [_prompt("yes please, the deploy script is in tools/deploy.sh")])
    assert cand.kind == "observation" and "tools/deploy.sh" in cand.summary


def test_a_rule_followed_by_a_request_to_undo_what_broke_it_is_kept_without_the_request():
    [cand] = find_candidates(Session([_prompt("We must never hardcode the port number, please revert that.")]))
    assert cand.summary == "Never hardcode the port number" and cand.promotion == INSTRUCTION
    [shouted] = find_candidates(Session([_prompt("We must NEVER hardcode the port in the API, please revert that.")]))
    assert shouted.summary == "Never hardcode the port in the API"  # the weight word in the usual case, names kept
    [emphasis] = find_candidates(Session([_prompt("Do NOT use NOT NULL on the notes column.")]))
    assert emphasis.summary.startswith("Don't use NOT NULL")  # an SQL phrase keeps its capitals
    [value] = find_candidates(Session([_prompt("Always set imagePullPolicy to ALWAYS in the chart.")]))
    assert "to ALWAYS" in value.summary  # a value keeps its capitals
    assert find_candidates(Session([_prompt("Move the port to the config, please revert that.")])) == []
    [alternative] = find_candidates(Session([_prompt("Do not use moment.js, please use date-fns.")]))
    assert "date-fns" in alternative.summary  # the alternative the user gave is no pointer: the rule keeps it


def test_the_rules_of_a_pasted_prompt_file_are_the_files_not_the_users():
    steps = "\n".join(f"{i}) Read the ticket file number {i} and summarize what it asks for." for i in range(1, 25))
    prompt_file = f"# /triage: sort the inbox\n\nPurpose: label tickets.\n\n{steps}\n\nDo not open browsers."
    assert len(prompt_file) > said.DOCUMENT_CHARS
    assert _run(said.directive_rule, [_prompt(prompt_file)]) == []
    [cand] = _run(said.directive_rule, [_prompt("Do not open browsers.")])
    assert cand.promotion == INSTRUCTION


def test_a_pasted_terminal_session_is_output_not_something_the_user_said():
    text = (
        "the build says this:\n~/code/shop main\n❯ make run\nPlease set the token in your config at conf/local.toml\n"
        "make: *** [run] Error 1\n\nbut the token is already there"
    )
    assert "conf/local.toml" not in " ".join(__import__("automem.extract.directives", fromlist=["x"]).sentences(text))
    assert _run(said.location_rule, [_prompt(text)]) == []
    [cand] = _run(said.location_rule, [_prompt("the token lives in conf/local.toml, not in the env")])
    assert "conf/local.toml" in cand.summary


def test_a_setting_the_user_made_on_purpose_is_their_choice_to_leave_alone():
    [kept] = _run(said.deliberate_setting_rule, [_prompt("I disabled the cache on purpose, so builds stay honest.")])
    assert kept.summary.startswith("The user disabled the cache on purpose") and kept.promotion == ""
    told = _prompt("I pinned the node version to 18 on purpose because CI is old. Nothing to fix there.")
    [leave] = _run(said.deliberate_setting_rule, [told])
    assert "node version to 18" in leave.summary and leave.promotion == INSTRUCTION
    for text in ("Did I set the flag on purpose?", "I set it on purpose, leave it"):
        assert _run(said.deliberate_setting_rule, [_prompt(text)]) == [], text


def test_a_list_of_arrows_typed_by_the_user_is_a_layout_decision():
    text = "no, like this:\n\nlib -> core/lib\nviews -> ui/views\nhelpers.py, misc.py -> utils/\n\nok?"
    [cand] = _run(said.mapping_rule, [_prompt(text)])
    assert cand.kind == "decision" and "lib -> core/lib" in cand.summary
    assert _run(said.mapping_rule, [_prompt("lib -> core/lib\nviews -> ui/views")]) == []
    assert _run(said.mapping_rule, [_prompt("```\na -> b/c\nd -> e/f\ng -> h/i\n```")]) == []


def test_repeated_requests_skip_questions_and_count_note_taking():
    asks = [_prompt("isn't the parser in the lexer module?")] * 3
    assert _run(said.repeated_request_rule, asks) == []
    notes = [
        _prompt("fix the login page, then note progress in the journal"),
        _prompt("ok, note progress in the journal and go on"),
        _prompt("good. note the progress in the journal"),
    ]
    [cand] = _run(said.repeated_request_rule, notes)
    assert "progress" in cand.summary.lower() and "journal" in cand.summary.lower()


def test_one_thing_named_in_prompts_that_each_ask_something_else_of_it_is_no_habit():
    named = [
        _prompt("run the deploy checklist"),
        _prompt("extend the deploy checklist with a smoke test"),
        _prompt("shorten the deploy checklist"),
    ]
    assert _run(said.repeated_request_rule, named) == []
    other = [_prompt(t) for t in ("add a login page", "style the header", "fix the footer links", "add a logo")]
    asked = [_prompt(t) for t in ("run the deploy checklist", "ok, run the deploy checklist")] * 2
    assert _run(said.repeated_request_rule, named + other) == []
    assert _run(said.repeated_request_rule, asked + other) != []


def test_a_prompt_sent_again_corrected_or_extended_is_one_request_not_a_habit():
    """A user who retypes a prompt (a typo fixed, a name added) asked once, however many times it was sent."""
    resent = [
        _prompt("please check the build folder again"),
        _prompt("please check the build folder again, the file is called REPORT.tx"),
        _prompt("please check the build folder again, the file is called REPORT.txt"),
    ]
    assert _run(said.repeated_request_rule, resent) == []
    asked = [_prompt("please check the build folder again"), _prompt("add a logo")] * 3
    assert _run(said.repeated_request_rule, asked) != []  # asked anew after other work: still a habit


def test_a_repeated_request_acting_on_it_names_the_file_the_other_asks_named():
    """'Read it in full' out of context says nothing; the user's other asks named files there."""
    reads = [
        _prompt("read src/app/main.ts in full, then plan"),
        _prompt("ok, read lexer.py in full first"),
        _prompt("now read it in full"),
    ]
    [cand] = _run(said.repeated_request_rule, reads)
    assert cand.summary == "When asked to read a file, read the file in full"  # each time another file
    vague = [
        _prompt("check the parser and fix it properly"),
        _prompt("check the lexer again, fix it properly"),
        _prompt("fix it properly"),
    ]
    assert all("fix it" not in c.summary.lower() for c in find_candidates(Session(vague)))


def test_a_how_question_answered_with_a_command_reads_as_a_goal_not_a_quote():
    steps = steps_from_turns(
        [
            Turn(
                harness="claude-code",
                session_id="s",
                turn_id="1",
                prompt="so when the build breaks how am i supposed to clear the cache",
                answer="Run this from the project root.\n```bash\nnpm run clean\n```\nIt removes .next and dist.",
            ),
        ]
    )
    [cand] = _run(reports.answered_question_rule, steps)
    assert cand.summary == "To clear the cache, when the build breaks: `npm run clean`"
    assert 'The user asked: "so when the build breaks how am i supposed to clear the cache"' in cand.content


def test_the_file_the_user_picks_for_a_plan_is_a_decision():
    [cand] = _run(said.doc_file_rule, [_prompt("now write the migration plan in docs/migrate.md with checkboxes")])
    assert "docs/migrate.md" in cand.summary
    assert _run(said.doc_file_rule, [_prompt("did you read docs/migrate.md?")]) == []


def test_a_stack_typed_as_a_list_is_the_users_choice():
    text = (
        "Create the plan using: - Language: TypeScript everywhere - Frontend: React UI - Backend: Express "
        "(Node.js) - Auth: Keycloak (OIDC) - Deployment: Docker Compose"
    )
    [cand] = _run(said.stack_rule, [_prompt(text)])
    assert "Language: TypeScript everywhere" in cand.summary and "Keycloak" in cand.content
    rules = "Rules: - Flush: five cards of the same suit (e.g., hearts) - Straight: five in a row - Pair: two of a rank"
    assert _run(said.stack_rule, [_prompt(rules)]) == []


def test_picking_an_offered_option_is_a_decision_candidate():
    steps = steps_from_turns(
        [
            Turn(
                harness="claude-code",
                session_id="s",
                turn_id="1",
                prompt="add a login screen",
                answer="Which way?\n1. Keep `LoginResult` as it is\n2. Convert `LoginResult` into `LoginEffect`\n",
            ),
            Turn(harness="claude-code", session_id="s", turn_id="2", prompt="2"),
        ]
    )
    [cand] = _run(said.choice_rule, steps)
    assert "LoginEffect" in cand.summary and not cand.promotion


def test_a_number_picking_an_option_is_quoted_as_the_reply_and_the_option_loses_its_or():
    answer = (
        "Should I:\n1. Keep the cart models in `CartModels.kt` (next to the older order models we already have)\n"
        "2. Or merge `CartResult` into `CartEffect` (removing `CartResult`)?\n"
    )
    turns = [
        Turn(harness="claude-code", session_id="s", turn_id="1", prompt="migrate the cart", answer=answer),
        Turn(harness="claude-code", session_id="s", turn_id="2", prompt="2"),
    ]
    [cand] = _run(said.choice_rule, steps_from_turns(turns))
    assert cand.summary == "Chosen by the user: Merge `CartResult` into `CartEffect` (removing `CartResult`)"
    assert 'the user replied "2", picking: Merge `CartResult`' in cand.content
    assert cand.content.endswith("Not chosen: Keep the cart models in `CartModels.kt`")  # no aside cut in half


# --- text a later session can use ------------------------------------------------------------------


def test_paths_escapes_and_cut_words_never_reach_a_summary():
    """Failure classes 3 and 8: machine paths, ANSI codes, a cut token."""
    line = "\x1b[31mError: EACCES: permission denied, open '/home/ana/work/shop/build/out.log'\x1b[0m"
    steps = [
        _fail("cd /home/ana/work/shop && npm run build", line),
        _ok("cd /home/ana/work/shop && npm run build", escalated=True),
    ]
    [cand] = find_candidates(Session(steps, root="/home/ana/work/shop"))
    for text in (cand.summary, cand.content):
        assert "/home/ana" not in text and "\x1b" not in text and "[31m" not in text
    assert "./build/out.log" in cand.content
    from automem.extract.usable import readable, summary_text

    assert summary_text("writes to /tmp/tmpa8f3k2/out.txt then fails", "") == "writes to /tmp then fails"
    assert summary_text("C:\\Users\\ana\\app\\x.py fails", "") == "%USERPROFILE%\\app\\x.py fails"
    assert not readable("npm run build fails with E0463]") and not readable("Run the tests in the fol…")
    assert readable("Use pnpm, not npm, for the frontend")
    assert not readable("Read it in full") and not readable("Fix that one too") and readable("Read the file in full")
    assert not readable("这个改为整个 config 目录") and not readable("それを全部削除してください")
    assert readable("这个项目以后不要用 npm，改用 pnpm")


def test_a_retry_that_changed_two_things_credits_no_flag_with_the_fix():
    """A venv activated and a flag added in one retry: which of them fixed it is not known, so no flag is named."""
    failed = intent_of("shell", "python manage.py migrate")
    fixed = intent_of("shell", "source .venv/bin/activate && python manage.py migrate --noinput")
    diff = difference(failed, fixed, error="ModuleNotFoundError: No module named 'django'")
    assert diff.kind != "flag" and "--noinput" not in diff.text
    flag_only = intent_of("shell", "python manage.py migrate --noinput")
    assert difference(failed, flag_only, error="EOFError").kind == "flag"


def test_a_quoted_command_says_the_project_folder_as_dot_and_drops_a_cd_into_it():
    """The next session starts in the project: `cd <project> &&` says nothing there, and the project written from
    the home folder (~/work/shop) is the same folder as /home/ana/work/shop."""
    from automem.extract.usable import generalize

    root = "/home/ana/work/shop"
    assert generalize("What worked: `cd /home/ana/work/shop && npm run build`", root) == "What worked: `npm run build`"
    assert generalize("ran `cd ~/work/shop/deploy && bash start.sh`", root) == "ran `cd ./deploy && bash start.sh`"
    assert generalize("`cd ~/work/shop; make`", root) == "`make`"
    assert generalize("`cd ~/work/shopping && make`", root) == "`cd ~/work/shopping && make`"  # another folder
    assert generalize("`make && cd . && ls`", root) == "`make && cd . && ls`"  # only a leading cd


def test_this_repo_in_a_short_rule_is_where_it_holds_not_a_pointer():
    """ "Use tabs in this repo" names its place: the next session is in that repo too, unlike "Fix that one too"."""
    from automem.extract.usable import readable

    assert readable("Use tabs in this repo") and readable("No emojis in this codebase")
    assert not readable("Fix this one too") and not readable("Move that to this")
    [rule] = find_candidates(Session([_prompt("Use tabs in this repo. Please remember this for next time.")]))
    assert rule.summary == "Use tabs in this repo" and rule.promotion == INSTRUCTION


def test_no_before_a_noun_is_the_rules_own_word_not_an_opener():
    """ "remember: no force pushes on main" must never come out as "Force pushes on main"."""
    from automem.extract import phrasing

    assert phrasing.strip_openers("no force pushes on main") == "no force pushes on main"
    assert phrasing.strip_openers("no, use pnpm") == "use pnpm"
    [rule] = find_candidates(Session([_prompt("remember: no force pushes on main")]))
    assert rule.summary == "No force pushes on main"


def test_an_install_or_a_lookalike_counts_only_when_it_is_the_missing_program():
    rg = _fail("rg -n TODO", "bash: rg: command not found")
    assert _run(errors.missing_command_rule, [rg, _ok("pip install requests"), _ok("rg -n TODO")]) == []  # ran later
    pip = _fail("pip install httpx", "bash: pip: command not found")
    [not_pipx] = _run(errors.missing_command_rule, [pip, _ok("pipx list")])
    assert "pipx" not in not_pipx.summary and not not_pipx.promotion
    [pip3] = _run(errors.missing_command_rule, [pip, _ok("pip3 install httpx")])
    assert pip3.summary.endswith("use pip3 instead")


def test_a_backgrounded_command_succeeding_proves_nothing():
    failed = _fail("python3 -m http.server 8000 > /tmp/s.log 2>&1 &", "bash: /tmp/s.log: Permission denied")
    later = _ok("nohup python3 -m http.server 8000 > s.log 2>&1 &")
    assert _run(errors.fixed_error_rule, [failed, later]) == []


def test_a_line_of_spaces_does_not_stall_the_rules():
    """A pasted block with long runs of spaces used to take minutes in the layout rule."""
    steps = [_prompt(" " * 5000 + "-> x\n" + "  " * 3000), _prompt("a" + " " * 4000 + "b -> c/d")]
    find_candidates(Session(steps))  # finishes; before, matching was cubic in the run of spaces


# --- what is stored and briefed reads well to its user ----------------------------------------------


def test_a_one_off_request_is_stored_as_a_candidate_and_a_standing_rule_is_promoted():
    one_off = _run(said.directive_rule, [_prompt("I want the UI to be pretty.")])
    assert [c.promotion for c in one_off] == [""]  # the task of that turn: never briefed
    default = _run(said.directive_rule, [_prompt("also remove the file tree by default until added by user")])
    assert all(c.promotion == "" for c in default)
    for text in (
        "Never use sudo in this repo.",
        "The chat should use usernames instead of UUIDs",
        "Every line a component renders must not be wider than the width",
        "you have to create the entity first",
    ):
        cands = _run(said.directive_rule, [_prompt(text)])
        assert cands and all(c.promotion == INSTRUCTION for c in cands), text


def test_a_preference_about_the_user_reads_in_the_third_person_throughout():
    from automem.extract import phrasing

    assert (
        phrasing.preference("I don't need to view file here, I can read in my IDE")
        == "The user doesn't need to view file here, they can read in their IDE"
    )


def test_a_quoted_command_names_the_program_not_the_script_or_spec_it_was_given():
    gist = errors.command_gist
    assert gist("python - <<'PY'\nimport re\nfor p in paths:\n    print(p)\nPY") == "python - <<'PY' … (inline script)"
    spec = gist(
        '.specify/scripts/bash/create-new-feature.sh --json "Build a web-based poker website (MVP) for '
        "play-money Texas Hold’em. Users can create a nickname and avatar."
    )
    assert spec.startswith('.specify/scripts/bash/create-new-feature.sh --json "Build a') and len(spec) < 90
    assert gist('git commit -m "short" && ls') == 'git commit -m "short" && ls'
    assert "toolu_" not in gist("grep -n x ~/.claude/projects/p/abc/tool-results/toolu_01AB.txt")
    assert len(gist("npm run build " + "--flag " * 60)) <= errors.COMMAND_MAX + 2


def test_a_quoted_script_drops_its_comments_and_keeps_the_command_that_matters():
    gist = errors.command_gist
    script = "# warm up the cache first\nls build/\nmake assets  # slow\necho 'done # really'"
    assert gist(script) == "ls build/; make assets; echo 'done # really'"
    assert gist("if [ -d out ]; then\n  rm -r out\nfi\nmake \\\n  all") == "if [ -d out ]; then rm -r out; fi; make all"
    long_line = (
        "cd services/billing && docker compose up -d postgres redis mailhog 2>&1 | tail -20 && sleep 5 && "
        "npm run migrate -- --env staging --verbose && curl -s localhost:8080/health | head -3"
    )
    assert gist(long_line) == "cd services/billing && docker compose up -d postgres redis mailhog …"
    assert gist(long_line, focus="curl") == "cd services/billing && … curl -s localhost:8080/health"
    many_files = "pytest " + " ".join(f"tests/unit/test_part_{n}.py" for n in range(4)) + " -q -x 2>&1 | tail -30"
    assert gist(many_files) == many_files.removesuffix(" 2>&1 | tail -30")  # the output trim goes first


def test_a_call_inside_a_sandbox_or_shell_wrapper_is_quoted_as_the_call():
    from automem.extract.intent import unwrap

    assert unwrap("/bin/zsh -lc 'cargo build --release'") == "cargo build --release"
    assert unwrap('/usr/bin/env bash -c "make lint"') == "make lint"
    profile = "sandbox-exec -p '(version 1)(deny network*)' /bin/bash -lc 'go test ./...'"
    assert unwrap(profile) == "go test ./..."
    assert unwrap('bwrap --ro-bind / / --bind "$PWD" "$PWD" --unshare-net -- yarn test') == "yarn test"
    assert unwrap("bash deploy.sh") == "bash deploy.sh" and unwrap("rg -n -- --flag") == "rg -n -- --flag"


def test_a_missing_program_in_a_termux_script_is_quoted_without_machine_folders():
    from automem.extract.usable import generalize

    assert generalize("/data/data/com.termux/files/usr/bin/ruby -v") == "$PREFIX/bin/ruby -v"
    raw = (
        "# serve the docs folder\ncd /data/data/com.termux/files/home/wiki\n"
        "nohup php -S 0.0.0.0:8000 -t public > /data/data/com.termux/files/home/wiki/server.log 2>&1 &\n"
        "sleep 2\ncurl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8000/ | head -1"
    )
    line = "/data/data/com.termux/files/usr/bin/bash: line 3: php: command not found"
    failed = _not_found(" ".join(raw.split()), line)
    failed.raw = raw
    session = Session([_prompt("Serve the wiki"), failed], root="/data/data/com.termux/files/home/wiki")
    [cand] = [c for c in find_candidates(session) if "php" in c.summary]
    quoted = cand.content.split("`")[1]
    assert quoted == "nohup php -S 0.0.0.0:8000 -t public > ./server.log & …", cand.content
    assert "/data/data" not in cand.content and "serve the docs" not in cand.content
    assert "bash: line 3: php: command not found" in cand.content


def test_an_error_that_went_away_for_no_named_reason_is_not_stored():
    steps = [
        _fail("npm run check", "error TS2739: Type is missing properties"),
        _fail("npm run check", "error TS2739: Type is missing properties"),
        _ok("npm run check"),
    ]
    assert [c for c in _run(errors.repeated_error_rule, steps) if "TS2739" in c.summary] == []


def test_the_user_driving_the_task_on_is_not_a_habit():
    prompts = [_prompt(f"Configure the {w} part in full until completed") for w in ("db", "api", "ui", "cli")]
    assert _run(said.repeated_request_rule, prompts) == []
    asks = [
        _prompt(f"Read {f} in full, then change the {w} part")
        for f, w in (("a.ts", "db"), ("b.ts", "api"), ("c.ts", "ui"))
    ]
    assert any("full" in c.summary for c in _run(said.repeated_request_rule, asks))


def test_a_rejected_plan_is_quoted_as_text_not_as_json():
    raw = json.dumps({"plan": "# Add Teams Keybinding\n\n## Context\nUser wants a keybinding."})
    assert said._call_gist(raw) == "Add Teams Keybinding Context User wants a keybinding."
    assert "{" not in said._call_gist(raw[:40])


def test_a_reported_fix_is_stated_as_the_fix_not_in_the_agents_voice():
    assert (
        reports._cause("I fixed the rate-limit test by making the middleware read the env at request time.")
        == "Fixed the rate-limit test by making the middleware read the env at request time"
    )
    assert reports._cause("I updated JWT verification to use the JWKS.").startswith("Updated JWT")


def test_the_file_a_record_is_kept_in_is_stated_as_where_it_lives_not_as_the_task():
    [cand] = _run(
        said.doc_file_rule,
        [
            _prompt(
                "Alright, createa full implementation plan in docs/refactor.md, "
                "it needs to cover all the things we want to do"
            )
        ],
    )
    assert cand.summary == "The implementation plan is kept in docs/refactor.md; keep it up to date"
    assert "createa full implementation plan" in cand.content


def test_a_question_asked_in_passing_inside_parentheses_does_not_cut_the_quote():
    [cand] = _run(
        said.doc_file_rule,
        [_prompt("then delete the old files (a.ts, b.ts right? nothing else), and add a code map to NOTES.md please")],
    )
    assert cand.summary == "The code map is kept in NOTES.md; keep it up to date"
    assert cand.content.startswith('The user said: "Then delete the old files (a.ts, b.ts right? nothing else)')


# --- machine facts: a lookup's output, a folder that refused a write -----------------------------------------


def test_a_lookup_that_prints_no_path_for_a_program_confirms_a_hidden_not_found():
    """``nohup python3 ... &`` exits 0 and hides the failure in its log; ``which`` finding only node settles it."""
    from automem.extract.rules import machine

    steps = [
        _ok(
            "nohup python3 -m http.server 8080 > server.log 2>&1 & sleep 2; cat server.log",
            result_head="nohup: failed to run command 'python3': No such file or directory",
        ),
        _ok("which python python3 node 2>/dev/null", result_head="/data/data/com.termux/files/usr/bin/node\n"),
        _ok("node server.js"),
    ]
    found = _run(errors.missing_command_rule, steps, root="/data/data/com.termux/files/home/site")
    assert [c.summary for c in found] == [
        "python3 is not installed on this Termux machine; `which` found node but no python3"
    ]
    assert found[0].scope == "global" and not found[0].promotion
    assert machine.machine_label("/Users/ana/code/app") == "Mac" and machine.machine_label("/home/ana/app") == ""


def test_a_lookup_that_found_the_program_means_it_is_there():
    steps = [
        _ok(
            "nohup python3 -m http.server 8080 > server.log 2>&1 & cat server.log",
            result_head="nohup: failed to run command 'python3': No such file or directory",
        ),
        _ok("which python3 node", result_head="/usr/bin/python3\n/usr/bin/node\n"),
    ]
    assert _run(errors.missing_command_rule, steps) == []


def test_a_lookup_whose_output_says_nothing_proves_nothing():
    steps = [
        _ok(
            "nohup python3 -m http.server > s.log 2>&1 & cat s.log",
            result_head="nohup: failed to run command 'python3': No such file or directory",
        ),
        _ok("which python3 >/dev/null 2>&1 || echo missing", result_head="missing\n"),
    ]
    assert _run(errors.missing_command_rule, steps) == []


def test_a_system_folder_that_refused_a_write_is_a_lesson_once_the_job_wrote_elsewhere():
    from automem.extract.rules import machine

    refused = _fail(
        "python3 -m http.server 8765 > /tmp/server.log 2>&1 &", "bash: line 1: /tmp/server.log: Permission denied"
    )
    steps = [refused, _ok("nohup python3 -m http.server 8765 > server.log 2>&1 &")]
    found = _run(machine.unwritable_place_rule, steps, root="/data/data/com.termux/files/home/site")
    assert [c.summary for c in found] == [
        "/tmp is not writable on this Termux machine; keep logs and temp files in the project"
    ]
    assert found[0].promotion == VERIFIED_FIX and found[0].scope == "global"
    # the same refusal with no later write elsewhere, or a file of the project itself, says nothing about the machine
    assert _run(machine.unwritable_place_rule, [refused, _ok("ls")]) == []
    own = _fail("echo x > /srv/app/out.log", "bash: /srv/app/out.log: Permission denied")
    assert _run(machine.unwritable_place_rule, [own, _ok("echo x > out.log")], root="/srv/app") == []


# --- facts a user's request settled in one turn -----------------------------------------------------------------


def _patch(path: str, *lines: str) -> str:
    return "*** Begin Patch\n*** Update File: " + path + "\n@@\n" + "\n".join(lines) + "\n*** End Patch"


def test_a_folder_the_user_asked_to_ignore_and_the_turn_added_to_gitignore():
    from automem.extract.rules import requests
    from automem.extract.steps import added_text

    patch = _patch(".gitignore", " node_modules/", "+coverage/")
    steps = [
        _prompt("do people gitignore their coverage folder?"),
        _prompt("Please ignore it"),
        _ok(patch, tool="apply_patch", added=added_text(patch)),
    ]
    found = _run(requests.ignored_by_request_rule, steps)
    assert [c.summary for c in found] == ["coverage/ is git-ignored in this project (the user asked)"]
    assert not found[0].promotion
    # an ignore-file template written without being asked is not the user's decision
    assert _run(requests.ignored_by_request_rule, [_prompt("set up the repo"), steps[2]]) == []


def test_a_package_the_user_named_and_the_turn_added_is_the_projects_choice():
    from automem.extract.rules import requests
    from automem.extract.steps import added_text

    patch = _patch(
        "package.json", '-    "vitest": "^1.2.0"', '+    "vitest": "^1.2.0",', '+    "@vitest/coverage-v8": "^1.2.0"'
    )
    steps = [
        _prompt("I want coverage in webstorm. It says I need vitest coverage-v8"),
        _ok(patch, tool="apply_patch", added=added_text(patch)),
    ]
    found = _run(requests.dependency_by_request_rule, steps)
    assert [c.summary for c in found] == [
        "The project uses @vitest/coverage-v8 (added to package.json at the user's request)"
    ]  # not vitest: only a comma
    assert _run(requests.dependency_by_request_rule, [_prompt("add test coverage"), steps[1]]) == []
    # an install command adds to the project; one onto the machine (global, --user, a system manager) does not
    [local] = _run(requests.dependency_by_request_rule, [_prompt("please add express"), _ok("npm install express")])
    assert local.summary == "The project uses express (installed with npm at the user's request)"
    for command in ("npm install -g ruflo", "pip install --user ruflo", "brew install ruflo", "cargo install ruflo"):
        assert _run(requests.dependency_by_request_rule, [_prompt("install ruflo"), _ok(command)]) == [], command


def test_a_folder_the_user_named_for_deletion_and_the_turn_removed():
    from automem.extract.rules import requests

    steps = [_prompt("you can delete the 001-init-poker directory"), _ok("rm -rf specs/001-init-poker")]
    found = _run(requests.deleted_by_request_rule, steps)
    assert [c.summary for c in found] == ["specs/001-init-poker was deleted at the user's request; do not recreate it"]
    assert _run(requests.deleted_by_request_rule, [_prompt("clean up"), steps[1]]) == []  # not asked by name
    assert _run(requests.deleted_by_request_rule, [steps[0], _ok("rm specs/001-init-poker/a.md")]) == []  # a file


# --- what the user said ---------------------------------------------------------------------------------------


def test_a_habit_cue_makes_a_standing_preference():
    steps = [_prompt("As with all software projects, let's start with the README and then the notes it references.")]
    found = _run(said.directive_rule, steps)
    assert [c.summary for c in found] == [
        "Start with the README and then the notes it references (as with all software projects)"
    ]
    assert found[0].promotion == INSTRUCTION


def test_asked_to_remember_is_a_standing_rule_even_misspelt():
    """ "remember this, X" asks for exactly what a memory keeps; a question or a memory of the past is no rule."""
    for text, summary in (
        (
            "remembe this, you can use the tool ask_user for questions during the plan",
            "You can use the tool ask_user for questions during the plan",
        ),
        (
            "Remember: the staging db is read-only, use the replica for tests",
            "The staging db is read-only, use the replica for tests",
        ),
        ("Keep in mind that prod deploys go through the release branch", "Prod deploys go through the release branch"),
        ("For future reference, the api runs on port 8100", "The api runs on port 8100"),
        ("remeber this, always use pnpm", "Always use pnpm"),
    ):
        [cand] = _run(said.directive_rule, [_prompt(text)])
        assert cand.summary == summary and cand.promotion == INSTRUCTION, text
    # "remember, X" without asking for X to be kept waits as a candidate unless X reads as a rule
    [flaky] = _run(said.directive_rule, [_prompt("Remember - the tests are flaky on CI")])
    assert flaky.summary == "The tests are flaky on CI" and not flaky.promotion
    for text in (
        "Do you remember that bug from yesterday?",
        "I remember that it worked before",
        "remember when we fixed the login page",
        "note: this is only a test run",
        "Remember that?",
        # the state of this conversation, not a fact to keep
        "Remember, the dev server is already running on port 3000",
        "Remember: we're on step 3 of the plan",
        "remember that I asked you to fix the login page first",
        "remember that you already tried this and it failed",
        "Remember, you are Aria, a helpful assistant",
    ):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text
    pasted = "Here is the guide I found:\n" + "Some setup step explained at length. " * 40 + "\nRemember: commit often."
    assert _run(said.directive_rule, [_prompt(pasted)]) == []  # a pasted document's advice is the document's


def test_asked_to_save_to_memory_is_asked_to_remember():
    """ "save in memory: X", "add to your memory that X", "memorize this: X", "X. Save this to memory." ask for
    exactly what a memory keeps; a question, a task about data in memory, or the state of this session is no rule."""
    for text, summary in (
        ("save in memory: the addons folder is where modules live", "The addons folder is where modules live"),
        ("add to your memory that the api runs on port 8100", "The api runs on port 8100"),
        ("memorize this: tests run with make check", "Tests run with make check"),
        ("Use tabs in this repo. Save this to memory.", "Use tabs in this repo"),
    ):
        [cand] = find_candidates(Session([_prompt(text)]))
        assert cand.summary == summary and cand.promotion == INSTRUCTION, text
    for text in (
        "can you save in memory what we did today?",
        "save the result to memory",
        "save it in memory and reuse it in the loop",
        "memorize: we are on step 3 of the plan",
    ):
        assert find_candidates(Session([_prompt(text)])) == [], text


def test_remember_how_we_work_is_a_fact_of_the_project():
    """ "we use X" said with a verb of working practice is how the team works, not the state of this conversation."""
    for text, summary in (
        ("remember that we use pnpm in this repo", "This repo uses pnpm"),
        ("We always use pnpm in this repo.", "This repo always uses pnpm"),
        ("Keep in mind that we deploy from the release branch", "This project deploys from the release branch"),
    ):
        [cand] = find_candidates(Session([_prompt(text)]))
        assert (cand.summary, cand.scope, cand.promotion) == (summary, "project", INSTRUCTION), text
    for text in ("remember that we used pnpm", "remember that we need to use pnpm", "remember, we currently use pnpm"):
        assert find_candidates(Session([_prompt(text)])) == [], text


def test_what_the_team_never_does_is_a_rule_of_the_project():
    """ "we never push to main", "we don't use classes here": a verb of working practice after "we never/don't"."""
    for text, summary in (
        ("We never push to main directly.", "This project never pushes to main directly"),
        ("We don't use classes in this project.", "This project doesn't use classes"),
    ):
        [cand] = find_candidates(Session([_prompt(text)]))
        assert (cand.summary, cand.scope, cand.promotion) == (summary, "project", INSTRUCTION), text
    for text in ("we never got it to work", "we don't have tests yet", "We never used docker here."):
        assert find_candidates(Session([_prompt(text)])) == [], text


def test_put_or_keep_this_in_memory_is_asked_to_remember():
    """The ask's own "this" points at what follows: only the words after it can be too vague to keep."""
    for text, summary in (
        ("put this in memory: the staging db is read-only", "The staging db is read-only"),
        ("Keep this in memory - deploys go through the release branch", "Deploys go through the release branch"),
    ):
        [cand] = find_candidates(Session([_prompt(text)]))
        assert cand.summary == summary and cand.promotion == INSTRUCTION, text
    for text in ("put this in memory: use that one", "keep that in memory: do it like this"):
        assert find_candidates(Session([_prompt(text)])) == [], text


def test_a_sentence_the_next_one_asks_to_remember_is_a_standing_rule():
    for text, summary in (
        ("Don't use emojis in commit messages. remember that I want this", "Don't use emojis in commit messages"),
        ("The staging db is called shop_stg. Keep this in mind.", "The staging db is called shop_stg"),
        ("Use tabs in this repo. Please remember this for next time.", "Use tabs in this repo"),
    ):
        [cand] = _run(said.directive_rule, [_prompt(text)])
        assert cand.summary == summary and cand.promotion == INSTRUCTION, text
    for text in ("We are on step 3 now. Remember that.", "Is the server up? Remember that.", "Remember that."):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text


def test_a_pronoun_directive_takes_its_subject_from_the_files_its_turn_changed():
    steps = [
        _prompt("这个改为整个.claude目录 │ ~/.claude/skills/  │ .claude/skills/  │"),
        _ok("~/.claude/skills/sync-work/scripts/sync.sh", tool="Edit"),
        _ok("~/.claude/skills/sync-work/SKILL.md", tool="Edit"),
    ]
    found = _run(said.directive_rule, steps)
    assert [c.summary for c in found] == ["sync-work: 改为整个.claude目录"]
    assert not found[0].promotion  # "change this to ...": this turn's edit, not a standing rule


def test_a_rejection_is_promoted_only_when_it_states_a_rule():
    rejected = Step("rejection", text="Super shift alt t should open btop", tool="ExitPlanMode", input="# Plan")
    assert not _run(said.rejection_rule, [rejected])[0].promotion
    rule = Step("rejection", text="Use pnpm, not npm, in this repo", tool="Bash", input="npm install")
    assert _run(said.rejection_rule, [rule])[0].promotion == INSTRUCTION
    for feedback in ("Don't push to main yet", "don't change the API, just fix the UI"):
        later = Step("rejection", text=feedback, tool="Bash", input="git push origin main")
        assert not _run(said.rejection_rule, [later])[0].promotion, feedback  # this step's choice, not a rule


def test_a_listing_that_timed_out_and_then_worked_with_a_limit():
    from automem.extract.rules import slow

    timed_out = _fail(
        "powershell.exe -Command Get-ChildItem -Force", "exit code 124: command timed out after 10034 milliseconds"
    )
    bounded = _ok("powershell.exe -Command Get-ChildItem -Directory -Force | Select-Object -First 30 Name")
    found = _run(slow.big_listing_rule, [timed_out, _ok("Get-ChildItem | Measure-Object"), bounded])
    assert [c.summary for c in found] == [
        "Listing this folder in full times out; list it with a limit (Select-Object -First 30)"
    ]
    assert _run(slow.big_listing_rule, [timed_out, _ok("git status")]) == []  # no bounded listing: a slow moment
    slow_test = _fail("npm test", "Command timed out after 60 seconds")
    assert _run(slow.big_listing_rule, [slow_test, _ok("npm test | head -20")]) == []  # not a listing


def test_it_is_at_after_stopping_the_agent_names_the_folder_the_agent_then_went_to():
    steps = [
        _ok("ls ~"),
        Step("interrupt"),
        _prompt("Close -- it's at user /Documents/VAULT", after_interrupt=True),
        _ok("powershell.exe -Command Set-Location C:\\Users\\ana\\Documents\\VAULT; Get-ChildItem"),
    ]
    found = _run(said.location_rule, steps)
    assert [c.summary for c in found] == ["VAULT is at C:\\Users\\ana\\Documents\\VAULT, not where the agent starts"]
    assert found[0].promotion == INSTRUCTION
    steps[3] = _ok("cd ~/other && ls")  # the agent went somewhere else: what "it" was stays unknown
    assert _run(said.location_rule, steps) == []


def test_a_request_repeated_with_a_typo_counts_and_a_complaint_is_not_a_request():
    steps = [
        _prompt("read src/theme.ts in full, then the selectors"),
        _prompt("you broke it. reda the full file"),
        _prompt("ok, read it in full"),
        _prompt("read the docs first"),
        _prompt("the colors are too intense"),
        _prompt("now the colors are too intense"),
        _prompt("again the colors are too intense"),
    ]
    summaries = [c.summary for c in _run(said.repeated_request_rule, steps)]
    assert "Read the full file" in summaries
    assert not any("intense" in s for s in summaries)


def test_a_rule_the_user_overturned_later_in_the_session_is_not_stored():
    steps = [
        _prompt("Always use npm for installs in this repo."),
        _ok("npm install"),
        _prompt("Actually, use pnpm, not npm, in this repo."),
        _prompt("Never use sudo here."),
    ]
    assert [c.summary for c in _run(said.directive_rule, steps)] == [
        "Use pnpm, not npm, in this repo",
        "Never use sudo here",
    ]


def test_calls_the_sandbox_let_through_only_escalated_are_one_memory():
    from automem.extract.rules import merge_escalations
    from automem.schema import Candidate

    def esc(summary):
        return Candidate("observation", summary, summary + " (content)", "", "", promotion=VERIFIED_FIX)

    found = merge_escalations(
        [
            esc(
                "git fetch needs escalated sandbox permissions to write in .git here: Operation not permitted otherwise"
            ),
            Candidate("decision", "Use pnpm, not npm", "", "", ""),
            esc("git ls-remote needs escalated sandbox permissions here: Could not read from remote otherwise"),
            esc(
                "create-new-feature.sh needs escalated sandbox permissions to write in .git here: cannot lock ref "
                "otherwise"
            ),
        ]
    )
    assert [c.summary for c in found] == [
        "The sandbox blocks git fetch and create-new-feature.sh and git ls-remote here; "
        "rerun them with escalated permissions",
        "Use pnpm, not npm",
    ]  # fitted to the summary's length: no "(writing ...)"
    assert found[0].promotion == VERIFIED_FIX and found[0].content.count("(content)") == 3
    single = [
        esc("mkdir needs escalated sandbox permissions to write in .codex here: Operation not permitted otherwise")
    ]
    assert merge_escalations(single) == single


def test_calls_let_through_only_escalated_read_as_their_failures_then_one_fix():
    from automem.brief import brief_detail
    from automem.extract.rules import merge_escalations
    from automem.schema import Candidate

    def esc(program, error):
        return Candidate(
            "observation",
            f"{program} needs escalated sandbox permissions here: {error} otherwise",
            f"`{program} --all` failed: {error}\nWhat worked: `{program} --all` (with escalated sandbox permissions).",
            "",
            "",
            promotion=VERIFIED_FIX,
        )

    [merged] = merge_escalations([esc("rsync", "Operation not permitted"), esc("hg pull", "cannot lock")])
    assert merged.content.splitlines() == [
        "`rsync --all` failed: Operation not permitted",
        "What worked: the same calls, escalated.",
        "`hg pull --all` failed: cannot lock",
    ]
    detail = brief_detail(merged.summary, " ".join(merged.content.split()))
    assert "escalated" in merged.summary and detail == "", detail  # the title says it: rerun them escalated


def test_a_windows_path_keeps_its_backslashes_in_a_parsed_command():
    intent = intent_of("shell", "powershell.exe -Command Set-Location C:\\Users\\ana\\Documents\\VAULT; Get-ChildItem")
    assert intent.cwd == "C:\\Users\\ana\\Documents\\VAULT"
    assert intent_of("Bash", "cd /srv/my\\ app && ls").cwd == "/srv/my app"  # POSIX escapes still work


def test_a_home_dotfolder_the_user_names_is_written_from_the_home():
    steps = [_prompt("there is a keybindings file at .config/hypr/bindings.conf")]
    assert [c.summary for c in _run(said.location_rule, steps)] == [
        "The keybindings file is at ~/.config/hypr/bindings.conf"
    ]


def test_a_reported_problem_states_its_cause_without_the_agents_pointer_and_where_it_was_fixed():
    from automem.extract.rules.reports import _cause

    assert (
        _cause("Those 404s are because the browser requests extensionless module paths.")
        == "The browser requests extensionless module paths"
    )
    assert _cause("The Keycloak error is because the UI uses the implicit flow") == "The UI uses the implicit flow"
    answer = "The view was stuck because the UI never re-rendered after the auth callback finished. I added a gate."
    steps = [
        _prompt('After logging in, I\'m getting stuck on a page saying "Signing in..."', answer=answer),
        _ok("src/main.tsx", tool="Edit"),
        _prompt("next: the timer"),
    ]
    summaries = [c.summary for c in _run(reports.reported_problem_rule, steps)]
    assert summaries == [
        "The view was stuck because the UI never re-rendered after the auth callback finished (fixed in main.tsx)"
    ], summaries


def test_the_user_saying_a_program_is_installed_beats_a_failed_lookup():
    missing = _fail("which teams", "which: no teams in (/usr/bin)")
    wanted = _prompt("Open teams with a key binding")
    assert _run(errors.missing_command_rule, [wanted, missing])  # not installed, as far as the session knows
    assert _run(errors.missing_command_rule, [missing]) == []  # only looked up: nothing needed it
    assert _run(errors.missing_command_rule, [wanted, missing, _prompt("Teams is installed as a pwa")]) == []
    assert _run(errors.missing_command_rule, [missing, _prompt("teams is not installed, add it")])


def test_a_rule_in_another_language_carries_english_terms_for_searches():
    from automem.extract.glossary import english_terms

    assert english_terms("구현은 단순하게 하고, 각 기능들은 진행상황을 알수 있게 콘솔로그를 출력해야한다") == [
        "simple",
        "progress",
        "console",
        "log",
    ]
    assert english_terms("Use pnpm, not npm") == []
    [cand] = _run(said.directive_rule, [_prompt("以后提交前必须先运行测试")])
    assert "In English terms: commit, test" in cand.content


def test_a_layout_keeps_a_file_the_user_moved_elsewhere_later():
    layout = _prompt(
        "no, that's horrible.\n\ntools -> core/tools\ntui -> modes/interactive/components\n"
        "changelog.ts, config.ts, fuzzy.ts -> utils"
    )
    steps = [layout, _ok("git mv a b"), _prompt("move @packages/coding-agent/src/utils/config.ts to src/")]
    [cand] = _run(said.mapping_rule, steps)
    assert "- changelog.ts, fuzzy.ts -> utils\n- config.ts -> src/" in cand.content


def test_what_a_review_found_the_new_rules_must_not_store():
    from automem.extract.rules import machine, requests, slow
    from automem.extract.steps import added_text

    # two real words a letter-swap apart are not a typo of each other
    forms = [_prompt("fix the login form validation please"), _ok("npm test")] * 3
    forms.append(_prompt("from here, from there, from now"))
    assert [c.summary for c in _run(said.repeated_request_rule, forms)] == ["Fix the login form validation please"]
    # an article is not the tool a later rule avoids
    rules = [_prompt("Always use the staging database for tests."), _prompt("Never use the prod credentials here.")]
    assert len(_run(said.directive_rule, rules)) == 2
    # small talk after "as always" is no habit
    assert (
        _run(said.directive_rule, [_prompt("As always, thanks!"), _prompt("As for all the tests, they are flaky")])
        == []
    )
    # a lookup whose output a pipe cut says nothing of the names it does not show
    hidden = _ok(
        "nohup rg x > o.log 2>&1 & cat o.log",
        result_head="nohup: failed to run command 'rg': No such file or directory",
    )
    cut = _ok("which python3 node rg | head -1", result_head="/usr/bin/python3\n")
    assert _run(errors.missing_command_rule, [hidden, cut]) == []
    # a bounded listing of another folder is not the fix of a listing that timed out
    assert (
        _run(
            slow.big_listing_rule,
            [_fail("find / -name foo", "Command timed out after 60 seconds"), _ok("ls src | head -20")],
        )
        == []
    )
    # a project's own dotfolder stays the project's
    place = _run(said.location_rule, [_prompt("The project settings are in .config/app.yml for this repo")])
    assert place and "~/" not in place[0].summary
    # "dist" is not named by "distinct"; "ignore the lint warnings" is not about git
    assert _run(requests.deleted_by_request_rule, [_prompt("remove the distinct rows"), _ok("rm -rf dist")]) == []
    patch = "*** Begin Patch\n*** Update File: .gitignore\n@@\n+coverage/\n*** End Patch"
    lint = [_prompt("ignore the lint warnings"), _ok(patch, tool="apply_patch", added=added_text(patch))]
    assert _run(requests.ignored_by_request_rule, lint) == []
    assert machine.machine_label("") == ""


def test_english_terms_find_a_russian_stem_only_at_a_words_start():
    from automem.extract.glossary import english_terms

    assert english_terms("не трогай диалог") == []  # "лог" inside "диалог" is no log
    assert english_terms("удали лог перед коммитом") == ["delete", "log", "commit"]


def test_a_listing_lesson_names_the_folder_as_written():
    from automem.extract.rules import slow

    timed_out = _fail(
        "powershell.exe -Command Set-Location C:\\Users\\ana\\VAULT; Get-ChildItem -Force",
        "exit code 124: command timed out after 10034 milliseconds",
    )
    [cand] = _run(slow.big_listing_rule, [timed_out, _ok("Get-ChildItem -Force | Select-Object -First 30 Name")])
    assert cand.summary.startswith("Listing VAULT in full times out")


def test_a_typed_list_of_rules_is_one_memory_promoted_when_its_heading_says_whose():
    prompt = (
        "We are scaffolding.\n\n## Coding rules\n- Work one milestone at a time.\n"
        "- Do not refactor unrelated files.\n- Prefer small files and small functions.\n\nLet's discuss the stack."
    )
    [cand] = _run(said.rule_list_rule, [_prompt(prompt)])
    assert cand.summary.startswith("The user's coding rules: Work one milestone at a time; Do not refactor")
    assert cand.promotion == INSTRUCTION and "- Prefer small files and small functions" in cand.content
    # its items are not stored again one by one
    assert _run(said.directive_rule, [_prompt(prompt)]) == []
    # typed as the content of a file the prompt asks to write: the file's, not a memory
    assert _run(said.rule_list_rule, [_prompt("Create a CLAUDE.md file.\n" + prompt)]) == []
    [building] = _run(
        said.rule_list_rule, [_prompt("some Rules while building app:\n- Plan first\n- No extra features")]
    )
    assert building.summary == "The user's rules while building app: Plan first; No extra features"
    assert building.promotion == INSTRUCTION
    # a bare "Rules:" under a task, or rules "for this task", are that task's limits: not stored, nor their items
    task = "Task:\nSet up the extension shell.\n\nRules:\n- Do not implement OpenAI.\n- Plan first.\n"
    assert _run(said.rule_list_rule, [_prompt(task)]) == [] and _run(said.directive_rule, [_prompt(task)]) == []
    for_task = "Rules for the login fix:\n- Don't change the API\n- Keep the old session cookie"
    assert _run(said.rule_list_rule, [_prompt(for_task)]) == [] and _run(said.directive_rule, [_prompt(for_task)]) == []
    # a bare "Rules:" with nothing to tell leaves its items to the directive rule
    bare = "Rules:\n- Never use npm, always pnpm\n- Never commit .env files"
    assert _run(said.rule_list_rule, [_prompt(bare)]) == [] and len(_run(said.directive_rule, [_prompt(bare)])) == 2
    # a blank line ends the list; two items of one list are both kept, however alike
    both = (
        "Coding rules:\n- Don't commit to main\n- Don't push to main\n\n1. Add the login page\n2. Add the signup page"
    )
    [kept] = _run(said.rule_list_rule, [_prompt(both)])
    assert kept.summary == "The user's coding rules: Don't commit to main; Don't push to main"
    # sections of a file to write, and a checklist of tasks, are no rules
    doc = "Write a CONTRIBUTING.md with these sections.\n## Coding conventions\n- Naming things well\n- Format the code"
    assert _run(said.rule_list_rule, [_prompt(doc)]) == []
    assert _run(said.rule_list_rule, [_prompt("## Project rules\n- [ ] add CI\n- [ ] add lint")]) == []
    # a list typed later restates the rules: its items first, an earlier item it says again in other words left out
    [later] = _run(
        said.rule_list_rule,
        [_prompt(prompt), _prompt("some Rules while building app:\n- Plan first\n- No unrelated refactors")],
    )
    assert later.summary.startswith("The user's rules while building app: Plan first; No unrelated refactors; Work one")
    assert "Do not refactor unrelated files" not in later.content
    assert "- Prefer small files and small functions" in later.content
    # one item, questions or code are no rule list
    assert _run(said.rule_list_rule, [_prompt("Rules:\n- Plan first\n\nthanks")]) == []
    assert _run(said.rule_list_rule, [_prompt("Coding rules:\n- why is this slow?\n- what about `x = 1`?")]) == []


def test_a_rule_for_this_stage_or_this_piece_of_work_is_not_stored():
    for text in (
        "Dont start writing code.",
        "Don't push to main yet.",
        "Never deploy at this stage.",
        "Don't touch the database schema for this fix.",
        "Please don't change the API, just fix the UI.",
        "this should be a class not a function",
        "Don't stop until all tests pass.",
        "Switch to the dev branch, not main.",
        "Pick option 2, not option 1.",
        "Use the second approach instead.",
        "Keep the old function, not the new one.",
        "Don't change anything else.",
        "Don't write any code, only plan.",
        "Explore this repo and tell me how it is structured. Don't change anything.",
        "don't change anything. I am just testing",
        "Don't call it server/client leg, just reuse the badges",
        "don't overthink it, just make the header sticky",
        "Use the sandbox key instead of the live one for this demo.",
    ):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text
    for text in (
        "Don't start the dev server, I run it myself.",
        "Never merge until CI is green.",
        "Don't use var, use const or let.",
        "Go with Postgres rather than MySQL.",
        "Never push to main until I review the diff",
        "Never start implementing before I approve the plan",
        "Never claim a feature works if you haven't tested it yet",
        "Don't over-engineer, just do what I ask",
        "Switch to uv instead of pip",
        "Always run the linter, right now you keep forgetting",
        "I would only want e2e tests for the session class, anything else is noise.",
    ):
        [lasting] = _run(said.directive_rule, [_prompt(text)])
        assert lasting.promotion == INSTRUCTION, text
    for text, summary in (
        (
            "now after each phase commit all your changes and push to origin",
            "After each phase commit all your changes and push to origin",
        ),
        ("Before every commit, run the linter.", "Before every commit, run the linter"),
    ):
        [each] = _run(said.directive_rule, [_prompt(text)])
        assert each.summary == summary and each.promotion == INSTRUCTION
    for report in (
        "After each test run the output is long.",
        "After every commit push fails with 403",
        "After every change, test coverage drops",
        "Before every push, lint errors show up",
    ):
        assert _run(said.directive_rule, [_prompt(report)]) == [], report
    for text, summary in (
        ("I'd rather you ask me before installing packages.", "Ask me before installing packages"),
        ("I'd rather you didn't add comments", "Don't add comments"),
        ("I'd rather you used pnpm", "Prefer that you used pnpm"),
    ):
        [rather] = _run(said.directive_rule, [_prompt(text)])
        assert rather.summary == summary


def test_a_name_repeated_from_a_pasted_list_is_no_habit():
    prompts = [_prompt(f"Stack for step {n}:\n- Chrome Extension Manifest V3\n- React") for n in range(3)]
    assert _run(said.repeated_request_rule, prompts) == []


def test_answers_to_the_agents_questions_are_one_candidate_decision_per_round():
    questions = {
        "questions": [
            {
                "question": "Which window style do you want?",
                "header": "Style",
                "options": [{"label": "Sticky note"}, {"label": "Widget"}],
            },
            {
                "question": "Which stack?",
                "header": "Stack",
                "options": [{"label": "Electron + Vue3"}, {"label": "Tauri + Vue3"}],
            },
            {
                "question": "Which database?",
                "header": "DB",
                "options": [{"label": "SQLite"}, {"label": "You recommend"}],
            },
        ]
    }
    result = (
        'Your questions have been answered: "Which window style do you want?"="Sticky note", "Which stack?"="Tauri + '
        'Vue3", "Which database?"="You recommend". You can now continue with these answers in mind.'
    )
    turn = Turn("claude-code", "s", "t1", prompt="build me a sticky note app")
    turn.actions = [ToolAction("AskUserQuestion", input=questions, result_text=result)]
    [cand] = _run(said.asked_choice_rule, steps_from_turns([turn]))
    assert cand.summary == "Chosen by the user: Style: Sticky note; Stack: Tauri + Vue3"  # the deferred one left out
    assert '"Which stack?", the user picked "Tauri + Vue3" (not: Electron + Vue3)' in cand.content
    assert not cand.promotion
    # a tool's ordinary output that happens to hold a quoted pair is no answer
    turn.actions = [ToolAction("Bash", input={"command": "cat a.txt"}, result_text='"a b c"="d"')]
    assert _run(said.asked_choice_rule, steps_from_turns([turn])) == []


def test_sudo_that_needs_a_password_the_agent_cannot_type():
    from automem.extract.rules import machine

    refused = _ok("sudo pacman -S --noconfirm figlet 2>&1 | tail -3", result_head="sudo: a terminal is required")
    [cand] = _run(machine.sudo_password_rule, [refused], root="/Users/me/app")
    assert cand.summary.startswith("sudo asks for a password on this Mac") and cand.scope == "global"
    assert not cand.promotion and "sudo: a terminal is required" in cand.content
    failed = _fail("sudo apt-get install jq", "sudo: a password is required")
    assert len(_run(machine.sudo_password_rule, [failed])) == 1
    # a later sudo call that went through: a password was cached, or none is needed
    assert _run(machine.sudo_password_rule, [refused, _ok("sudo pacman -S figlet", result_head="installing")]) == []
    assert _run(machine.sudo_password_rule, [_ok("sudo ls /root", result_head="a.txt")]) == []


def test_a_command_is_split_into_words_as_shlex_splits_it():
    """A segment with no quote, backslash or odd whitespace is split without shlex: the same words."""
    import random
    import shlex

    from automem.extract import intent

    chars = list("ab c\t\r\n'\"\\$#;|&()=-x\x0b\x0c\x1c\xa0\u2003é*?~`{}[]")
    rng = random.Random(7)
    for _ in range(20000):
        segment = "".join(rng.choice(chars) for _ in range(rng.randint(0, 12)))
        try:
            want = shlex.split(segment, posix=True)
        except ValueError:
            want = segment.split()
        if not intent._WINDOWS_PATH.search(segment):
            assert intent._split_words(segment) == want, repr(segment)


def test_the_options_offered_are_the_last_numbered_list_and_not_numbered_questions():
    from automem.extract.steps import offered_options

    answer = (
        "Problems I found:\n1. It uses the Options API\n2. No types\n\nWhich way?\n"
        "1. Keep `LoginResult` as it is\n2. Convert `LoginResult` into `LoginEffect`\n"
    )
    assert offered_options(answer) == ["Keep `LoginResult` as it is", "Convert `LoginResult` into `LoginEffect`"]
    questions = "A few questions:\n1. Convert it to the Composition API, or keep the Options API?\n2. Add tests?\n"
    assert offered_options(questions) == []
    assert offered_options("三个问题：\n1. 转换为 Composition API 还是保持 Options API？\n2. 要加测试吗？\n") == []
    asks = "Questions:\n1. Direction: convert to Vue 3, or keep Vue 2?\n2. Types: add them?\n3. Tests: which runner?"
    assert offered_options(asks) == []
    both = "Which?\n1. Add `LoginUiState` at the bottom?\n2. Or convert `LoginResult` into `LoginEffect`?"
    assert len(offered_options(both)) == 2  # options asked as questions, the second the other side of the first


def test_a_question_typed_back_to_the_question_tool_is_no_choice():
    questions = {"questions": [{"question": "Where should the docs live?", "header": "Location", "options": []}]}
    result = 'User has answered your questions: "Where should the docs live?"="so this folder is what does it?".'
    turn = Turn("claude-code", "s", "t1", prompt="set up docs")
    turn.actions = [ToolAction("AskUserQuestion", input=questions, result_text=result)]
    assert _run(said.asked_choice_rule, steps_from_turns([turn])) == []


def test_a_rule_for_now_in_chinese_japanese_or_korean_is_not_stored():
    for text in ("先不要提交代码", "暂时不要修改数据库", "実装はまだ始めてはいけない"):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text
    [japanese] = _run(said.directive_rule, [_prompt("日本語で解答して")])
    assert japanese.summary == "Talk to the user in Japanese; they asked for it"


def test_a_failure_fixed_by_editing_the_code_is_the_work_not_a_lesson():
    """A failing test, a type error or a lint finding that an edit of the code fixed is development; an edit of a
    file that configures the call (tsconfig.json, package.json, .env) can be what the call needed."""

    def edit(path: str) -> Step:
        return _ok(path, tool="Edit")

    test = _fail("pytest tests/test_a.py", "AssertionError: assert 2 == 3")
    assert _run(errors.fixed_error_rule, [test, edit("src/a.py"), _ok("pytest tests/test_a.py")]) == []
    typed = _fail("npm run build", "src/page.tsx(3,5): error TS2322: Type 'string' is not assignable to type 'number'.")
    steps = [typed, edit("src/page.tsx"), _fail("npm run build", typed.errors[0]["line"]), edit("src/page.tsx")]
    assert _run(errors.repeated_error_rule, steps + [_ok("npm run build")]) == []
    config = _fail("npx tsc -p apps/api", "error TS6059: File 'tests/a.ts' is not under 'rootDir' './src'.")
    [fixed] = _run(errors.fixed_error_rule, [config, edit("apps/api/tsconfig.json"), _ok("npx tsc -p apps/api")])
    assert fixed.summary.endswith("until tsconfig.json is fixed") and not fixed.promotion
    for code in ("src/config/routes.ts", "config/routes.rb", ".github/workflows/ci.yml", "k8s/deploy.yaml"):
        steps = [config, edit(code), _ok("npx tsc -p apps/api")]
        assert _run(errors.fixed_error_rule, steps) == [], code  # code kept in a config folder is code


def test_a_process_id_in_the_step_that_fixed_a_call_is_not_kept():
    busy = _fail("npm run dev", "Error: listen EADDRINUSE: address already in use :::3000")
    [cand] = _run(errors.fixed_error_rule, [busy, _ok("kill -9 48213"), _ok("npm run dev")])
    assert "`kill -9 <pid>`" in cand.summary and "48213" not in cand.summary + cand.how_to_apply
    assert not cand.promotion  # a stale process killed is gone: a state of that moment


def test_a_fix_that_repaired_the_state_once_waits_and_one_to_repeat_is_promoted():
    for failed, repair in (
        (_fail("./run.sh", "bash: ./run.sh: Permission denied"), "chmod +x run.sh"),
        (_fail("git push", "! [rejected] main -> main (non-fast-forward)"), "git pull --rebase"),
        (_fail("git checkout main", "error: Your local changes would be overwritten by checkout"), "git stash"),
        (_fail("npm install", "npm ERR! code EEXIST"), "rm -rf node_modules package-lock.json"),
    ):
        [cand] = _run(errors.fixed_error_rule, [failed, _ok(repair), _ok(failed.input)])
        assert f"after `{repair}`" in cand.summary and not cand.promotion, repair
    old_node = _fail("npm test", "SyntaxError: Unexpected token '?'")
    [cand] = _run(errors.fixed_error_rule, [old_node, _ok("nvm use 20"), _ok("npm test")])
    assert "after `nvm use 20`" in cand.summary and cand.promotion == VERIFIED_FIX  # needed in every new shell


def test_a_retry_that_overrode_the_check_that_refused_it_is_no_lesson():
    """ "git push needs --force here" injected into the next session would be harm, not memory."""
    for failed, retry in (
        ("git push origin main", "git push --force origin main"),
        ('git commit -m "x"', 'git commit --no-verify -m "x"'),
        ("curl https://intranet.local/api", "curl -k https://intranet.local/api"),
        ("git checkout main", "git checkout -f main"),
        ("rm build", "rm -r build"),
        ('git commit -m "x"', 'HUSKY=0 git commit -m "x"'),
        ("node sync.js", "NODE_TLS_REJECT_UNAUTHORIZED=0 node sync.js"),
    ):
        steps = [_fail(failed, "error: refused by a check"), _ok(retry)]
        assert _run(errors.fixed_error_rule, steps) == [], retry
    no_package = _fail("npm test", "npm ERR! enoent Could not read package.json")
    assert _run(errors.fixed_error_rule, [no_package, _ok("cd /tmp/build-123 && npm test")]) == []  # a temp folder
    [sub] = _run(errors.fixed_error_rule, [no_package, _ok("cd web && npm test")])
    assert sub.summary.startswith("npm test must run from web")
    reset = [_fail("git pull", "error: Your local changes would be overwritten by merge"), _ok("git reset --hard")]
    assert _run(errors.fixed_error_rule, [*reset, _ok("git pull")]) == []
    [kept] = _run(errors.fixed_error_rule, [_fail("docker run app", "exec format error"), _ok("docker run -f x app")])
    assert "needs -f" in kept.summary  # -f overrides only where it means force


def test_a_call_that_worked_from_a_folder_outside_the_project_is_no_lesson_of_where_to_run_it():
    """`cd ~/other-repo && npm test` ran the job in another project: nothing says where it runs in this one."""
    no_script = _fail("npm test", 'npm error Missing script: "test"')
    for elsewhere in ("cd ~/other-repo", "cd /home/u/tools/cli", "cd ../sibling", "cd D:\\work\\app"):
        steps = [no_script, _ok(f"{elsewhere} && npm test")]
        assert _run(errors.fixed_error_rule, steps, root="/home/u/proj") == [], elsewhere
    [inside] = _run(errors.fixed_error_rule, [no_script, _ok("cd /home/u/proj/web && npm test")], root="/home/u/proj")
    assert inside.summary.startswith("npm test must run from /home/u/proj/web")  # ./web once generalized


def test_a_retry_that_checked_less_is_no_fix():
    """Deselecting the failing test, skipping library checks or hushing the linter passes by checking less."""
    for failed, line, retry in (
        ("pytest tests/", "FAILED tests/test_api.py::test_login - AssertionError", 'pytest tests/ -k "not login"'),
        ("pytest", "FAILED tests/test_api.py::test_login - AssertionError", "pytest --deselect tests/test_api.py"),
        ("pytest", "ERROR collecting tests/test_slow.py", "pytest --ignore=tests/test_slow.py"),
        ("npm run lint", "error  Unexpected any  @typescript-eslint/no-explicit-any", "npm run lint -- --quiet"),
        ("cargo test", "test result: FAILED. 3 passed; 1 failed", "cargo test --lib"),
        ("mypy src", "error: Incompatible types in assignment", "mypy src --ignore-missing-imports"),
        ("tsc", "error TS2307: Cannot find module 'x'", "tsc --skipLibCheck"),
        ("npx vitest", "FAIL src/a.test.ts > renders", "npx vitest -t renders"),
        ("go test ./store -v", "--- FAIL: TestSaveDraft (0.00s)", 'go test ./store -run "TestLoad" -v'),
        ("go test ./...", "--- FAIL: TestParse (0.01s)", "go test ./... -skip TestParse"),
        ("mvn test", "Tests run: 5, Failures: 1, Errors: 0", "mvn test -Dtest=InvoiceTest"),
        ("./gradlew test", "3 tests completed, 1 failed", "./gradlew test --tests InvoiceTest"),
    ):
        assert _run(errors.fixed_error_rule, [_fail(failed, line), _ok(retry)]) == [], retry
    crashed = _fail("npm test", "Error: Worker exited")
    [threads] = _run(errors.fixed_error_rule, [crashed, _ok("npm test -- --pool=threads")])
    assert "--pool=threads" in threads.summary  # a way to run the same tests is a lesson
    watching = _fail("npx vitest", "Error: cannot start watch mode without a terminal")
    [once] = _run(errors.fixed_error_rule, [watching, _ok("npx vitest --run")])
    assert "--run" in once.summary  # the same tests, run once rather than watched


def test_complaints_forecasts_and_pointers_in_other_languages_are_no_rules():
    for text in (
        "还是有问题，我让你看codewhale的你看了没，不要老是轻松下结论",  # "still broken, did you even look"
        "但是问题是，你为什么只读部分，而不是全文，你这样永远都不全",  # a question
        "今後は一つのツールに固執するのではなく、組み合わせる戦略が普及するでしょう",  # a forecast
        "앞으로는 자신의 실력을 더 늘리기 위해 노력해야겠다고 생각했습니다!",  # a reflection
        "앞으로는 generate_daily_analysis 가 가장 이른 날짜로 맞춰준다.",  # what the code does
        "لا تستخدم المثبّت السابق 0.8.2 لهذا التصحيح.",  # "for this fix"
        "새 프로젝트: 위 포트는 사용하지 마세요.",  # "the ports above"
        "记得：我们在第三步",  # "remember: we're on step 3"
        "我他妈说的是你选了文字是需要改对应文字背景",  # a sworn complaint about this turn
        "не знаю, что делать",
    ):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text
    assert find_candidates(Session([_prompt("不要改動原本的綠色主題")])) == []  # short, and nothing says it lasts
    [korean] = _run(said.directive_rule, [_prompt("앞으로는 커밋 메시지를 한국어로 작성해 주세요")])
    assert korean.promotion == INSTRUCTION
    for text, language in (
        ("以后都用英文回答", "English"),
        ("Réponds toujours en français, de façon concise.", "French"),
        ("답변은 항상 한국어로 하세요.", "Korean"),
    ):
        [asked] = find_candidates(Session([_prompt(text)]))
        assert asked.summary == f"Talk to the user in {language}; they asked for it", text
    for text in (
        "以后不要再聊工作压力",
        "今後は変更ファイルのみの差分ZIPで渡してください。",
        "记住：摘要放在文末",
        "Не коммитьте `.env` файл в Git",
        "لا تنشئ PR أو commit أو push إلا بطلب صريح",
    ):
        [short] = find_candidates(Session([_prompt(text)]))  # a short rule in characters, not words, is readable
        assert short.summary == text and short.promotion == INSTRUCTION


def test_a_rule_in_chinese_japanese_or_korean_that_names_nothing_is_no_rule():
    """ "絶対に実行しないでください" after a pasted command is "never run it": what "it" is stayed in the session."""
    for text in (
        "これがログです。絶対に実行しないでください。分析だけしてください。",
        "必ず確認してください",
        "永远不要执行",
        "절대 실행하지 마세요",
    ):
        assert find_candidates(Session([_prompt(text)])) == [], text
    for text in ("絶対に本番DBを触らないでください", "以后不要加注释", "앞으로는 커밋 메시지를 한국어로 작성해 주세요"):
        [rule] = find_candidates(Session([_prompt(text)]))
        assert rule.promotion == INSTRUCTION, text


def test_a_constraint_on_the_task_its_prompt_asked_for_waits():
    """ "Print 1 to 5. Don't use a for loop." is the exercise's rule; "Never ..." or "in this repo" outlast it."""
    for text in (
        "Print the numbers 1 to 5, each on a new line. Don't use a for loop.",
        "Выведи числа от 1 до 5, каждое на новой строке. Не используй `for`.",
    ):
        [cand] = _run(said.directive_rule, [_prompt(text)])
        assert not cand.promotion, text
    [never] = _run(said.directive_rule, [_prompt("Build a todo app with React. Never use inline styles.")])
    assert never.promotion == INSTRUCTION
    # a prompt that sends the agent to one piece of work: its "don't" says how to do that work
    for text in (
        "Run the lint agent on billing only. Do not change the invoice logic unless a rule exposes a real bug.",
        "Fix the flaky upload test. Don't change the retry helper. Tell me what was wrong.",
    ):
        [cand] = _run(said.directive_rule, [_prompt(text)])
        assert not cand.promotion, text
    [rule] = _run(said.directive_rule, [_prompt("Fix the flaky upload test. Never change the retry helper.")])
    assert rule.promotion == INSTRUCTION


def test_a_limit_on_the_request_its_own_sentence_opened_with_waits():
    """ "帮我修复 X，不要修改 API" asks for this turn's fix and says how; 以后 / 항상 make the limit outlast it."""
    for text in (
        "幫我在全局的 git 中 disable .serena，不要改到專案",
        "帮我修复登录页面的 bug，不要修改 API",
        "이 버그 고쳐줘, 다른 파일은 수정하지 마",
    ):
        [cand] = _run(said.directive_rule, [_prompt(text)])
        assert not cand.promotion, text
    for text in ("帮我记住：以后不要用 npm", "帮我修复这个 bug，以后不要修改 API", "不要修改 config.py 的内容"):
        [rule] = _run(said.directive_rule, [_prompt(text)])
        assert rule.promotion == INSTRUCTION, text


def test_a_task_done_in_a_language_is_no_request_to_talk_in_it():
    for text in ("このissueに日本語で返信して", "README の使い方を日本語で説明して", "用中文写这个README"):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text
    [chinese] = _run(said.directive_rule, [_prompt("以后用中文回答我")])
    assert chinese.summary == "Talk to the user in Chinese; they asked for it"
    # "everything" in the language: all the work and the talk, not one piece of it
    for text, name in (
        ("schreibe alles auf deutsch", "German"),
        ("write everything in Italian", "Italian"),
        ("escribe todo en español", "Spanish"),
    ):
        [rule] = _run(said.directive_rule, [_prompt(text)])
        assert rule.summary == f"Talk to the user in {name}; they asked for it", text
    assert _run(said.directive_rule, [_prompt("schreibe die README auf deutsch")]) == []


def test_words_that_only_look_like_for_now_keep_the_rule():
    for text in ("一旦测试失败就停下来，不要继续", "永远不要提交 .env 文件", "항상 타입 안전성을 우선으로 해"):
        found = _run(said.directive_rule, [_prompt(text)])
        assert all(c.promotion for c in found), text
    assert _run(said.directive_rule, [_prompt("永远不要提交 .env 文件，暂时也不要推送")])[0].promotion


def test_sudo_refused_elsewhere_says_nothing_of_this_machine():
    from automem.extract.rules import machine

    for command in (
        "ssh deploy@prod 'sudo systemctl restart api'",
        "docker exec web sudo apt-get install -y jq",
        "rg -n 'a password is required' src",
    ):
        step = _fail(command, "sudo: a password is required")
        assert _run(machine.sudo_password_rule, [step]) == [], command
    refused = _fail("sudo apt-get install jq", "sudo: a password is required")
    assert _run(machine.sudo_password_rule, [refused, _ok("bash -c 'sudo apt install jq'", result_head="ok")]) == []


def test_answers_that_choose_nothing_lasting_are_left_out():
    def answered(pairs: str) -> list:
        turn = Turn("claude-code", "s", "t1", prompt="go")
        turn.actions = [
            ToolAction("AskUserQuestion", input={}, result_text=f"User has answered your questions: {pairs}")
        ]
        return _run(said.asked_choice_rule, steps_from_turns([turn]))

    for pairs in (
        '"Push now?"="Yes"',
        '"Next step"="Commit and push"',
        '"Which store?"="your call"',
        '"库"="你决定吧"',
        '"Does the login page load fast?"="Need to check"',
        '"Tested on a phone?"="No, haven\'t tested yet"',
    ):
        assert answered(pairs) == [], pairs
    [picked] = answered('"State library"="Zustand (Recommended)", "Target"="macOS"')
    assert picked.summary == "Chosen by the user: State library: Zustand; Target: macOS"
    [kept] = answered('"Agentes"="Mantener 7 agentes (Recomendado)"')
    assert kept.summary == "Chosen by the user: Agentes: Mantener 7 agentes"


def test_an_answer_quoting_something_is_read_whole_and_the_options_survive_the_reader():
    from automem.harness.model import small_input

    asked = {
        "questions": [
            {"question": "Which installer?", "header": "Installer", "options": [{"label": "uv"}, {"label": "pip"}]},
            {"question": "Which target?", "header": "Target", "options": [{"label": "macOS"}, {"label": "Linux"}]},
        ]
    }
    kept = small_input(asked)
    assert kept["questions"][1]["options"][1] == {"label": "Linux"}  # labels are not cut to "..."
    result = (
        'User has answered your questions: "Which installer?"="Always "uv", never "pip"", "Which target?"="macOS".'
        " You can now continue with the user's answers in mind."
    )
    turn = Turn("claude-code", "s", "t1", prompt="set up the project")
    turn.actions = [ToolAction("AskUserQuestion", input=kept, result_text=result)]
    [picked] = _run(said.asked_choice_rule, steps_from_turns([turn]))
    assert picked.summary == 'Chosen by the user: Installer: Always "uv", never "pip"; Target: macOS'
    assert "(not: Linux)" in picked.content


def test_the_list_right_after_the_last_question_is_the_options():
    from automem.extract.steps import offered_options

    plan = "Which approach?\n1. Keep the session cookie\n2. Move to JWT\n\nThen I will:\n1. Update it\n2. Test it"
    assert offered_options(plan) == ["Keep the session cookie", "Move to JWT"]
    nested = "Options:\n1. Redis\n   1. fast\n   2. needs a server\n2. SQLite\n   1. single instance only\n\nWhich one?"
    assert offered_options(nested) == ["Redis", "SQLite"]
    one_with_or = "What now?\n1. Fix them\n2. Skip them, or mark them xfail?\n3. Delete them"
    assert offered_options(one_with_or) == ["Fix them", "Skip them, or mark them xfail?", "Delete them"]


def test_installs_onto_the_machine_in_other_spellings():
    from automem.extract.intent import installed_names, installs_for_project, intent_of

    for command in (
        "yarn global add ruflo",
        "npm install --location global ruflo",
        "pip install --break-system-packages ruflo",
        "pip install -t vendor ruflo",
    ):
        [parsed] = intent_of("Bash", command).commands
        assert not installs_for_project(parsed), command
    [local] = intent_of("Bash", "pip install ruflo").commands
    assert installs_for_project(local)
    [short] = intent_of("Bash", "npm i express").commands  # the short verb installs too
    assert installs_for_project(short) and installed_names(short) == ["express"]


def test_what_the_user_says_of_the_work_after_stopping_the_agent_is_no_fact():
    def after_stop(text: str) -> list:
        return _run(said.correction_rule, [Step("interrupt"), _prompt(text, after_interrupt=True)])

    for text in (
        "it's not working",
        "you are editing the wrong file",
        "the build is broken because of your change",
        "that's not what I asked",
        "please review milestone 5. Complete milestone 6 when milestone 5 is done",
        "the server is already running on port 3000",
        "the migration is still running",
    ):
        assert after_stop(text) == [], text
    [fact] = after_stop("wait, the function is called getUser not fetchUser")
    assert fact.summary == "The function is called getUser not fetchUser" and fact.promotion == INSTRUCTION
    assert '"Wait, the function is called getUser not fetchUser"' in fact.content  # the user's words, as typed


def test_an_exit_code_whose_output_names_an_npm_error_code_is_a_named_failure():
    warned = "npm warn ERESOLVE overriding peer dependency"
    step = _fail("npm install", warned)
    step.errors[0].update(error_type="exit-code", signature=f"exit code 1: {warned}")
    [cand] = _run(errors.fixed_error_rule, [step, _ok("npm install --legacy-peer-deps")])
    assert cand.summary == "npm install needs --legacy-peer-deps here: ERESOLVE otherwise"


def test_a_requirement_quoted_from_the_middle_of_a_wrapped_sentence_is_not_stated():
    line = "available. On Debian/Ubuntu systems, you need to install the python3-venv"
    venv = _fail("python3 -m venv venv", line)
    fixed = [venv, _ok("sudo apt install -y python3.12-venv"), _ok("python3 -m venv venv")]
    assert _run(errors.stated_requirement_rule, fixed) == []


def test_naming_another_tool_right_after_stopping_the_agent_switches_tools():
    stopped = [_prompt("set up the project"), _fail('pip install -e ".[dev]"', "interrupted")]
    switched = [*stopped, _prompt("use uv", after_interrupt=True), _ok("uv sync"), _ok("uv run pytest -q")]
    [use] = _run(said.redirect_rule, switched)
    assert use.summary == "Use uv, not pip" and use.promotion == INSTRUCTION
    assert _run(said.redirect_rule, [*stopped, _prompt("use uv", after_interrupt=True), _ok("ls")]) == []  # never ran
    assert _run(said.redirect_rule, [*stopped, _prompt("use tabs", after_interrupt=True), _ok("ls")]) == []
    assert _run(said.redirect_rule, [*stopped, _prompt("use uv"), _ok("uv sync")]) == []  # not typed after a stop
    pytest = [_prompt("test it"), _fail("python -m pytest -q", "No module named pytest")]
    after = [*pytest, _prompt("use uv", after_interrupt=True), _ok("uv run pytest -q")]
    assert _run(said.redirect_rule, after) == []  # uv does not do python's job: "use uv, not python" would mislead


def test_a_thing_handed_over_for_this_turn_is_not_where_something_lives():
    for text in (
        "I put the file in /tmp/x.txt",
        "the output is in /tmp/out.txt",
        "the screenshot is at ~/Desktop/shot.png",
        "check the file at src/utils/helpers.ts",
        "the file is at ./data/input.csv",  # which file: only this turn knew
        "the component is in src/components/Header.tsx",
        "the new version is in v2/api.py",
        "there's a typo in README.md",
    ):
        assert _run(said.location_rule, [_prompt(text)]) == [], text
        assert find_candidates(Session([_prompt(text)])) == [], text
        typed_after_stop = [_prompt("fix it"), _ok("ls"), _prompt(text, after_interrupt=True)]
        assert find_candidates(Session(typed_after_stop)) == [], text
    [logs] = _run(said.location_rule, [_prompt("the logs are in ~/Library/Logs/app")])
    assert logs.summary == "The logs are in ~/Library/Logs/app" and logs.promotion == INSTRUCTION


def test_a_record_written_once_and_a_tickets_fields_are_no_decisions():
    assert _run(said.doc_file_rule, [_prompt("write a summary of the changes to notes.md")]) == []
    assert _run(said.doc_file_rule, [_prompt("save your findings to report.md")]) == []
    [log] = _run(said.doc_file_rule, [_prompt("keep notes of what you did in progress.md")])
    assert log.summary == "The notes are kept in progress.md; keep it up to date"
    [changes] = _run(said.doc_file_rule, [_prompt("keep a changelog in CHANGELOG.md")])
    assert changes.summary == "The changelog is kept in CHANGELOG.md; keep it up to date"
    [decided] = _run(said.doc_file_rule, [_prompt("log every decision in DECISIONS.md")])
    assert decided.summary == "The decisions are kept in DECISIONS.md; keep it up to date"
    assert _run(said.doc_file_rule, [_prompt("add a todo to README.md")]) == []  # an edit of this turn
    # the record word is only the file's own name: an edit of that file this turn, no record the user placed
    assert _run(said.doc_file_rule, [_prompt("Update deploy-log.md only, and keep it short.")]) == []
    assert _run(said.doc_file_rule, [_prompt("please update docs/release-notes.md with the new flag")]) == []
    ticket = "Here's the ticket:\n- Status: done\n- Owner: me\n- Priority: high\n- Due: Friday"
    assert _run(said.stack_rule, [_prompt(ticket)]) == []
    stack = "- Language: Python\n- Framework: FastAPI\n- Database: Postgres\n- Deploy: Fly.io"
    [choices] = _run(said.stack_rule, [_prompt(stack)])
    assert choices.summary.startswith("The user's choices: Language: Python; Framework: FastAPI")


def test_a_rule_that_opens_with_a_name_from_code_keeps_its_spelling():
    [cand] = _run(said.directive_rule, [_prompt("run_tests button should be in the toolbar, not in the settings menu")])
    assert cand.summary.startswith("run_tests button")
    for text, first in (
        ("useMemo must never wrap a fetch", "useMemo"),
        ("config.yaml must never hold secrets", "config.yaml"),
    ):
        [cand] = _run(said.directive_rule, [_prompt(text)])
        assert cand.summary.split()[0] == first, cand.summary
    [plain] = _run(said.directive_rule, [_prompt("never push to main without a review")])
    assert plain.summary.startswith("Never push")


def test_what_the_user_needs_to_do_themselves_is_no_standing_rule():
    [own] = _run(said.directive_rule, [_prompt("I don't need to see the diff in chat, I can open it in my editor")])
    assert own.promotion == "" and own.summary.startswith("The user doesn't need to")
    [told] = _run(said.directive_rule, [_prompt("I don't want you to print whole files in the chat")])
    assert told.promotion == INSTRUCTION


def test_a_rule_given_after_a_tool_failed_names_that_tool():
    steps = [
        _prompt("save the notes"),
        _fail('{"page": "home"}', "tool call error: tool call failed", tool="wiki__append_paragraphs"),
        _prompt("you have to create the page before paragraphs in the wiki"),
    ]
    [cand] = _run(said.directive_rule, steps)
    assert cand.summary.endswith(" (when calling wiki/append_paragraphs)") and "failed" in cand.content
    shell = [_prompt("go"), _fail("make build", "error: no rule", tool="shell"), _prompt(steps[2].text)]
    assert "shell" not in _run(said.directive_rule, shell)[0].summary


def test_a_repeated_request_names_the_tool_that_carried_it_out():
    saved = _ok('{"text": "done"}', tool="mcp__journal__append_entry")
    steps = []
    for ask in ("log progress in the journal and go on", "log progress in the journal", "log progress in journal"):
        steps += [_prompt(ask), saved]
    [habit] = _run(said.repeated_request_rule, steps)
    assert habit.summary.endswith("(with the journal MCP server)"), habit.summary


def test_a_language_request_keeps_the_rule_said_with_it():
    steps = [_prompt("Please reply in Italian and write the changelog entries in English.")]
    summaries = [c.summary for c in _run(said.directive_rule, steps)]
    assert summaries == ["Talk to the user in Italian; they asked for it", "Write the changelog entries in English"]
    [talk, rule] = _run(said.directive_rule, [_prompt("Speak to me in German, but never rename public functions")])
    assert "German" in talk.summary and rule.summary == "Never rename public functions"
    assert len(_run(said.directive_rule, [_prompt("answer in Spanish")])) == 1


def test_an_answer_typed_at_some_length_is_still_the_users_choice():
    picked = "Keep the importer as it is, but add a retry with backoff for the upstream API and log every skipped row"
    step = Step("action", tool="AskUserQuestion", answers=[("Importer", "How should the importer change?", picked, [])])
    [cand] = _run(said.asked_choice_rule, [step])
    assert picked in cand.content and len(cand.summary) <= 140
    essay = Step("action", tool="AskUserQuestion", answers=[("Importer", "How?", "x " * 200, [])])
    assert _run(said.asked_choice_rule, [essay]) == []


def test_a_file_rewritten_through_the_shell_is_an_edit_never_a_step_to_run_first():
    """`sed -i`, `perl -pi` or a heredoc into a source file changes the code: the call that passed after it was not
    run differently, so no "works only after `sed -i …`" lesson."""
    line = "error: Property 'id' does not exist on type 'User'"
    for edit in (
        "sed -i 's/user.id/user.uid/' src/models/user.ts",
        "perl -pi -e 's/\\bid\\b/uid/' src/models/user.ts",
        "cat <<'EOF' > src/models/user.ts\nexport type User = { uid: string }\nEOF",
        "cat > src/models/user.ts <<'EOF'\nexport type User = { uid: string }\nEOF",
    ):
        assert edited_files(intent_of("Bash", edit)) == ["src/models/user.ts"], edit
        chained = [_fail("npm run check", line), _ok(f"{edit} && npm run check")]
        between = [_fail("npm run check", line), _ok(edit), _ok("npm run check")]
        for steps in (chained, between):
            assert _run(errors.fixed_error_rule, steps) == [], edit
    assert edited_files(intent_of("Bash", "npm test 2>&1 > /tmp/out.log | tee test.log")) == []
    assert edited_files(intent_of("Bash", "echo 'export PATH=$HOME/.local/bin:$PATH' >> ~/.bashrc")) == []
    for not_an_edit in (
        "ruby -Ilib test/models/user_test.rb",  # -I carries its argument: no -i
        "perl -Mstrict -we 1 lib/x.pl",
        "npm test > results.json",  # a report of the run, not the code
        "curl -s localhost:3000/api > resp.json",
        "sed -i 's/old/new/' ~/.zshrc",  # the machine's setup
    ):
        assert edited_files(intent_of("Bash", not_an_edit)) == [], not_an_edit
    assert edited_files(intent_of("Bash", "cat > ~/code/app/src/a.ts <<'EOF'\nx\nEOF")) == ["~/code/app/src/a.ts"]
    [setup] = _run(errors.fixed_error_rule, [_fail("npm run check", line), _ok("npm run gen && npm run check")])
    assert "after `npm run gen`" in setup.summary  # a step that is no edit still counts


def test_a_test_run_piped_into_tail_fails_by_its_output_though_the_pipe_exits_0():
    """`cargo test 2>&1 | tail -20` exits with tail's status: the failure lines the output shows still count."""
    cargo = "failures:\n    tests::parses_empty\n\ntest result: FAILED. 3 passed; 1 failed; 0 ignored\n"
    pytest = "FAILED tests/test_cli.py::test_help - AssertionError\n1 failed, 9 passed in 0.41s\n"
    jest = "Tests:       2 failed, 14 passed, 16 total\n"

    def action(command: str, output: str) -> ToolAction:
        return ToolAction(
            name="Bash", input_summary=command, input={"command": command}, result_text=output, exit_code=0
        )

    turn = Turn(
        harness="claude-code",
        session_id="s",
        turn_id="t",
        actions=[
            action("cd core && cargo test 2>&1 | tail -20", cargo),
            action("uv run pytest -q | tail -5", pytest),
            action("npm test 2>&1 | head -40", jest),
            action("cargo test 2>&1 | tail -3", "test result: ok. 4 passed; 0 failed\n"),
            action("cat ci.log | tail -20", cargo),  # an old log read back is no test run
            action("go test ./... |& tail -5", "--- FAIL: TestParse (0.00s)\nFAIL\tgithub.com/x/y\t0.01s\n"),
        ],
    )
    steps = steps_from_turns([turn])
    assert [s.ok for s in steps] == [False, False, False, True, True, False]
    assert "test result: FAILED" in steps[0].errors[0]["line"]
    assert steps[1].errors[0]["error_type"] == "pytest"


def test_an_option_the_program_says_it_does_not_take_then_another_that_worked_is_how_to_call_it():
    """BSD grep on macOS has no -P: "invalid option -- P", then `grep -E` on the same file passed."""
    usage = "grep: invalid option -- P\nusage: grep [-abcdDEFGHhIiJLlMmnOopqRSUVvXxZz] [-A num] [pattern] [file ...]"
    failed = _fail("grep -rnP 'id:\\s*\\d+' src/", "exit code 2: grep: invalid option -- P", tool="Bash")
    failed.errors[0]["error_type"], failed.result_head = "exit-code", usage
    [cand] = _run(errors.unsupported_option_rule, [failed, _ok("grep -rnE 'id:\\s*[0-9]+' src/", tool="Bash")])
    assert cand.summary == 'grep on this machine does not take -P ("invalid option -- P"); grep -E worked instead'
    assert cand.scope == "global" and cand.promotion == VERIFIED_FIX
    for later in (
        _ok("grep -rnE 'id' lib/", tool="Bash"),  # other files: another call
        _ok("grep -rn 'id' src/", tool="Bash"),  # nothing took the option's place
        _ok("rg -n 'id:\\s*\\d+' src/", tool="Bash"),  # another program is _respelled's to name
    ):
        assert _run(errors.unsupported_option_rule, [failed, later]) == []
    unnamed = _fail("grep -rnP 'x' src/", "grep: src/: Is a directory", tool="Bash")
    assert _run(errors.unsupported_option_rule, [unnamed, _ok("grep -rnE 'x' src/", tool="Bash")]) == []


def test_before_moving_forward_is_going_on_with_this_work_not_from_now_on():
    """ "Before moving forward" asks to finish something first; "going forward" alone still means from now on."""
    for text in (
        "Sorry, I wanted to understand the two services before moving forward.",
        "Please read the spec first, prior to going forward.",
    ):
        assert all(c.promotion == "" for c in _run(said.directive_rule, [_prompt(text)])), text
    [rule] = _run(said.directive_rule, [_prompt("Going forward, run the linter before every commit.")])
    assert rule.promotion == INSTRUCTION


def test_a_change_want_or_duty_of_one_thing_waits_as_a_candidate():
    """An edit of one thing, a want of one thing of the work, the user's own duty: this work, not a standing rule."""
    for text in (
        "I want to change my shell config to use zsh instead of bash.",
        "Please convert the build script to use make instead of just.",
        "I want my report to look only at the open tickets.",
    ):
        found = _run(said.directive_rule, [_prompt(text)])
        assert found and all(c.promotion == "" for c in found), text
    for text in ("Use zsh instead of bash.", "I want the generated files to be kept out of git, always."):
        [rule] = _run(said.directive_rule, [_prompt(text)])
        assert rule.promotion == INSTRUCTION, text


def test_a_should_is_read_in_its_own_clause():
    """ "Not" in a clause beside the "should" (what is so now, or the thing it replaces) makes no standing rule."""
    for text in (
        "We are not using the icon font, we should use the sprite from the header.",
        "The --verbose flag should be on the build step, not the deploy step.",
    ):
        found = _run(said.directive_rule, [_prompt(text)])
        assert found and all(c.promotion == "" for c in found), text
    [rule] = _run(said.directive_rule, [_prompt("We should never commit the .env file, please remove it.")])
    assert rule.promotion == INSTRUCTION


def test_a_use_that_is_a_later_step_of_the_task_or_the_users_own_duty_is_no_lesson():
    """ "Pull X into a constant and then use it instead of Y": the use is a step of this edit; "I shouldn't be seeing
    X unless ..." tells how the work behaves for the user: neither is stored."""
    for text in (
        "Pull the base url into a constant and then use the constant in the fetch calls instead of the literal.",
        "I shouldn't be seeing the admin menu unless I'm an admin (and I'm not).",
        "Hm, I shouldn't be able to open the billing page unless I'm signed in.",
    ):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text
    [rule] = _run(said.directive_rule, [_prompt("Use the constant instead of the literal url.")])
    assert rule.promotion == INSTRUCTION


def test_liking_what_was_done_is_no_preference():
    """ "I like where this is going" approves the work; "I like short functions" is a preference."""
    for text in ("I like where this is going.", "I really like how the header looks now."):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text
    [rule] = _run(said.directive_rule, [_prompt("I like short functions.")])
    assert rule.promotion == INSTRUCTION


def test_lets_always_or_never_is_a_rule_and_lets_alone_proposes_this_turns_step():
    """ "let's" proposes what to do next, unless a rule word follows it: "let's always run the formatter"."""
    for text, summary in (
        ("Let's always run the formatter before committing.", "Always run the formatter before committing"),
        ("Lets always write the test first.", "Always write the test first"),
        ("Let's never commit generated files.", "Never commit generated files"),
    ):
        [cand] = find_candidates(Session([_prompt(text)]))
        assert (cand.summary, cand.promotion) == (summary, INSTRUCTION), text
    for text in ("Let's use the second approach.", "Lets fix the login bug first.", "let's always the same thing"):
        assert find_candidates(Session([_prompt(text)])) == [], text


def _rules_in(texts: tuple[str, ...]) -> list[str]:
    """The texts whose rule was not kept, or kept wrong (should be empty for standing rules): in the languages of
    more_languages a rule is promoted when said with "from now on" or "remember" (or as a language request), else it
    waits as a candidate; in the others it is promoted."""
    from automem.extract import more_languages as more
    from automem.extract.directives import classify

    def right(text: str) -> bool:
        found = _run(said.directive_rule, [_prompt(text)])
        d = classify(text)
        waits = (
            d is not None
            and d.language in more.READ_HERE
            and d.cue not in ("future", "language", "remember", "remembered")
            and not more.FROM_NOW_ON.search(text)
        )
        return [c.promotion for c in found] == ["" if waits else INSTRUCTION]

    return [t for t in texts if not right(t)]


def _stored(texts: tuple[str, ...]) -> list[str]:
    """The texts that became a promoted memory (should be empty for one-off requests and questions)."""
    return [t for t in texts if any(c.promotion for c in _run(said.directive_rule, [_prompt(t)]))]


def _talks_in(text: str) -> str:
    [lang] = _run(said.directive_rule, [_prompt(text)])
    assert lang.scope == "global" and lang.promotion == INSTRUCTION, text
    return lang.summary


def test_a_rule_in_a_newer_language_waits_unless_said_from_now_on():
    """The cue words of more_languages read fewer shapes than the older ones: a rule said there without "from now on"
    is stored as a candidate (promoted by evidence), one said with it is promoted at once."""
    [waits] = _run(said.directive_rule, [_prompt("Nie używaj npm w tym projekcie")])
    assert waits.promotion == ""
    [promoted] = _run(said.directive_rule, [_prompt("Od teraz nie używaj npm")])
    assert promoted.promotion == INSTRUCTION


def test_italian_rules_one_offs_and_language():
    assert _rules_in(("D'ora in poi usa sempre pnpm", "Non usare mai sudo", "Ricordati che usiamo Poetry")) == []
    [scoped] = _run(said.directive_rule, [_prompt("Usa sempre pnpm in questo progetto")])
    assert scoped.scope == "project" and "another language" in scoped.why
    assert (
        _stored(
            (
                "Il test fallisce sempre",
                "Il server usa sempre la porta 80",
                "Correggi il bug nel login",
                "Non toccare il file per questa volta",
                "Perché non usare Redis?",
                "Sistema il login, non toccare il resto per ora",
            )
        )
        == []
    )
    assert _talks_in("Rispondi sempre in italiano") == "Talk to the user in Italian; they asked for it"


def test_polish_rules_one_offs_and_language():
    assert (
        _rules_in(
            (
                "Od teraz zawsze pisz testy najpierw",
                "Nie używaj npm, używaj pnpm",
                "nigdy nie uzywaj emoji w odpowiedziach",
            )
        )
        == []
    )
    assert (
        _stored(
            ("Strona nie działa", "Popraw błąd w formularzu", "To nigdy nie działało", "czy możesz tworzyć pliki word?")
        )
        == []
    )  # "nie" is no German "nie" (never)
    assert _talks_in("Odpowiadaj zawsze po polsku").endswith("in Polish; they asked for it")


def test_turkish_rules_one_offs_and_language():
    assert _rules_in(("Bundan sonra her zaman önce test yaz", "Asla sudo kullanma", "npm yerine pnpm kullan")) == []
    assert (
        _stored(
            (
                "Test hep başarısız oluyor",
                "Giriş sayfasını düzelt",
                "Bu sefer testleri çalıştırma",
                "Bunu yapabilir misin",
                "Merak etme",
                "Bu dosyayı silme",
            )
        )
        == []
    )
    assert _talks_in("Bana Türkçe cevap ver").endswith("in Turkish; they asked for it")


def test_dutch_rules_one_offs_and_language():
    assert _rules_in(("Gebruik altijd pnpm", "Push nooit naar main", "Vanaf nu schrijf je eerst tests")) == []
    assert (
        _stored(
            (
                "Het werkte nooit",
                "Repareer de loginpagina",
                "Waarom faalt de test",
                "Push nog niet",
                "Ik heb liever de tweede optie",
            )
        )
        == []
    )
    assert _talks_in("Antwoord altijd in het Nederlands").endswith("in Dutch; they asked for it")
    [must] = _run(said.directive_rule, [_prompt("Een sessie moet vanaf nu altijd in een workspace zitten")])
    assert must.promotion == INSTRUCTION


def test_ukrainian_rules_one_offs_and_language():
    assert _rules_in(("Відтепер завжди пиши тести спочатку", "Ніколи не використовуй sudo")) == []
    assert (
        _stored(("Сторінка не працює", "Виправ помилку в формі", "Це завжди падає", "Цього разу не запускай тести"))
        == []
    )
    assert _talks_in("Відповідай українською").endswith("in Ukrainian; they asked for it")


def test_vietnamese_rules_one_offs_and_language():
    assert _rules_in(("Từ giờ luôn viết test trước", "Đừng bao giờ dùng sudo")) == []
    assert (
        _stored(
            (
                "Sửa lỗi đăng nhập",
                "Làm luôn đi",
                "Trang này chạy được không",
                "Lần này đừng dùng cache",
                "Không bao giờ chạy được",
            )
        )
        == []
    )
    assert _talks_in("Trả lời bằng tiếng Việt").endswith("in Vietnamese; they asked for it")
    assert _rules_in(("tu gio luon dung pnpm", "khong bao gio dung sudo")) == []  # typed without accents
    assert _stored(("từ giờ nó chạy được rồi", "trang nay luon bi loi")) == []


def test_indonesian_rules_one_offs_and_language():
    assert (
        _rules_in(
            (
                "Mulai sekarang selalu tulis test dulu",
                "Jangan pernah pakai sudo",
                "Gunakan pnpm, bukan npm",
                "Jangan pernah menulis kode untuk fitur yang belum saya minta",
            )
        )
        == []
    )
    assert (
        _stored(
            (
                "Perbaiki halaman login",
                "Halaman selalu error",
                "Jangan lupa commit",
                "Untuk sementara jangan push dulu",
                "Mulai sekarang, kamu akan bertindak sebagai Lead Developer",
                "apa memerlukan akses root",
            )
        )
        == []
    )
    assert _talks_in("Jawab dalam bahasa Indonesia").endswith("in Indonesian; they asked for it")
    assert _talks_in("Mulai sekarang selalu balas dalam bahasa Inggris").endswith("in English; they asked for it")
    assert _rules_in(("Ke depannya, saya lebih suka setiap balasanmu memakai poin pendek",)) == []
    assert (
        _stored(("Jangan pakai tool; bantu aku lewat percakapan ini saja", "Aku lebih suka jawaban ini singkat")) == []
    )


def test_a_short_english_rule_is_read_as_english_though_a_small_word_is_also_polish():
    """ "i" is Polish for "and": "I like short functions" must still be read with the English cues."""
    [rule] = _run(said.directive_rule, [_prompt("I like short functions.")])
    assert rule.promotion == INSTRUCTION


def test_a_sentence_the_newer_languages_claim_by_a_small_word_keeps_its_own_languages_rule():
    """ "per" is Italian, "nie" Polish, "un"/"con" Italian too: an English, German or Spanish rule that holds them is
    still read with its own cues; a report or a one-off in the newer languages is never promoted."""
    for text in (
        "Always run e2e per PR.",
        "Never mock DI per service.",
        "Nutze nie npm.",
        "Verwende nie var.",
        "Prefiero un enfoque con tipos.",
    ):
        [rule] = _run(said.directive_rule, [_prompt(text)])
        assert rule.promotion == INSTRUCTION, text
    assert (
        _stored(
            (
                "Sunucudan her zaman aynı 500 hatasını alıyorum.",
                "Build bundan sonra asla çalışmadı bende.",
                "Test luôn chạy lỗi trên CI.",
                "De test faalt altijd op CI.",
                "Не переживай, я сам виправлю конфіг у проєкті.",
                "Jangan menunggu saya, lanjutkan migrasi database dulu.",
                "Non toccare il file config.yaml adesso.",
                "Usa sempre la porta 3000 anche se imposto PORT, è un bug.",
            )
        )
        == []
    )
    [kept] = _run(said.directive_rule, [_prompt("Usa sempre pnpm per il progetto, mi raccomando.")])
    assert kept.promotion == ""  # "mi" is Italian "me" here, no Turkish question: a rule, waiting for evidence


def test_what_the_team_does_not_do_told_as_a_cause_and_carrying_on_with_this_work_are_no_rules():
    """ "we don't test that path, which is why it crashed" explains a problem; "going forward with the migration" and
    "keep moving forward" carry on with this work; "I love the way you refactored it" approves the work."""
    assert (
        _stored(
            (
                "We don't test that path, which is why it crashed.",
                "We don't build on ARM and it fails.",
                "We don't manage to get the build green.",
                "Going forward with the migration, use the new schema file db/schema.sql.",
                "Keep moving forward and use the mock API for the login page.",
                "I love the way you refactored the parser.",
            )
        )
        == []
    )
    [rule] = _run(said.directive_rule, [_prompt("Going forward, use the new schema file db/schema.sql.")])
    assert rule.promotion == INSTRUCTION


def test_a_path_then_dont_use_says_where_the_rule_holds_unless_one_name_follows():
    from automem.extract import phrasing

    assert phrasing.imperative(".codex/sessions, never use CODEX_HOME") == "Use .codex/sessions, not CODEX_HOME"
    assert phrasing.imperative("src/db.py, don't use raw SQL in there") == "src/db.py, don't use raw SQL in there"
    assert not phrasing.imperative("e.g., don't use var").startswith("Use")


def test_dont_worry_and_dont_wait_are_no_rules_in_russian_or_ukrainian():
    assert (
        _stored(
            (
                "Не переживай, я сам поправлю конфиг в проекте.",
                "Не переживай, я сам виправлю конфіг у проєкті.",
                "Не чекай на мене, продовжуй роботу.",
            )
        )
        == []
    )
    [rule] = _run(said.directive_rule, [_prompt("Не используй sudo в этом проекте.")])
    assert rule.promotion == INSTRUCTION


def test_newer_language_rules_naming_this_project_or_opening_with_her_zaman_are_kept():
    """Indonesian "proyek ini" is "this project" (the demonstrative follows its noun); Turkish "her zaman" is
    "always", no English "her"; Italian "Preferisco" with its capital is the prefer cue."""
    for text in (
        "Selalu gunakan pnpm di proyek ini.",
        "Her zaman pnpm kullan, npm kullanma projede.",
        "Preferisco usare pnpm per il progetto e non npm.",
    ):
        assert _run(said.directive_rule, [_prompt(text)]), text
    assert _run(said.directive_rule, [_prompt("Jangan lakukan itu.")]) == []  # "don't do that": names nothing


def test_an_act_on_anything_or_nothing_alone_is_no_rule():
    """ "Don't do anything" names nothing a later session could follow: it steers the turn it was said in (a test
    prompt, a pause). A rule that names where it applies is still kept."""
    assert (
        _stored(
            ("Just a test message. Don't do anything", "Do nothing.", "Don't touch anything else.", "dont do anythin")
        )
        == []
    )
    assert _rules_in(("Never run anything as root.", "Don't change anything under vendor/, ever.")) == []


def test_items_of_a_task_spec_are_no_rules():
    """A list in a prompt that specifies one piece of work is that work's spec: under a heading scoped to the run,
    in a prompt that labels its task, or in a prompt that asks for a document (the list says what goes in it)."""
    run = (
        "Graded import run.\n\nRun-specific rules:\n- Write every helper script in the scratch folder only.\n"
        "- Do not call the billing endpoint twice.\n- Do not ask questions.\n\nTask:\nImport the March invoices."
    )
    assert _stored((run,)) == []
    labelled = "Task: add the export button.\nNotes:\n- Never touch the legacy exporter.\n- Keep the old CSV columns."
    assert _stored((labelled,)) == []
    document = (
        "Please write a CONTRIBUTING.md file for newcomers.\n\nNotes:\n"
        "- Don't include the release checklist.\n- Avoid listing every make target."
    )
    assert _stored((document,)) == []
    # the same items typed as the user's own rules, with nothing that makes them one task's, are kept
    assert _stored(("Never touch the legacy exporter.",)) == ["Never touch the legacy exporter."]


def test_a_should_or_want_after_a_verdict_on_the_last_answer_is_no_lesson():
    """ "That's almost right. But X should only ...", "Closer. Now I want X bigger" say how the piece of work just
    done should be: not stored. The same verdict before a rule said with always/never keeps the rule."""
    for text in (
        "That's almost right. But the badge on the card should only have a thin outline (not a fill).",
        "That's almost right. Now I want the badge to be a bit wider (about the card's padding).",
        "Closer, but I want the shadow under the card to be softer.",
    ):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text
    [rule] = _run(said.directive_rule, [_prompt("Not quite. The unit tests should never hit the network.")])
    assert rule.promotion == INSTRUCTION
    [plain] = _run(said.directive_rule, [_prompt("The badge on the card should only have a thin outline.")])
    assert plain.promotion == INSTRUCTION


def test_the_limits_in_a_long_labelled_task_spec_are_the_tasks():
    """A long prompt that labels its goal or its definition of done is one task's spec: its "don't"s limit that task
    (stored nowhere). A "never" or "from now on" in it still makes a rule."""
    body = "\n\n".join(
        [
            "Goal:\nChange only what is listed below; leave the rest of the dashboard as it is.",
            "Do not rename unrelated modules.",
            "1. Add a 7/30 day switch to the sales chart, keep the axis labels readable at both ranges and keep the "
            "legend where it is today.",
            "2. Rename the visible tab captions. Do not change which tabs exist, only their captions.",
            "3. Region filter: show every region that had at least one order in the selected range, sorted by "
            "revenue, with the totals row pinned at the bottom; hide regions whose revenue is zero in that range, and "
            "keep the filter's reset button in the toolbar next to the date picker.",
            "4. Tooltips: show the order count and the revenue of the hovered bar, formatted with the account's "
            "currency and two decimals; keep the tooltip inside the chart area on narrow screens and let it follow "
            "the pointer without covering the bar itself.",
            "5. Export: the CSV export takes the selected range and region filter into account, names the file after "
            "the range, and writes the same columns as the table below the chart, in the same order.",
            "Definition of Done:\n- the switch works for both ranges\n- the captions are renamed\n- the changelog "
            "lists the change and the screenshots in the docs folder show the new captions on every tab",
        ]
    )
    assert len(body) > said.DOCUMENT_CHARS
    assert _stored((body,)) == []
    assert _stored((body + "\n\nFrom now on, never push to main without a review.",)) != []


def test_going_forward_said_alone_makes_a_rule_of_the_next_sentence():
    """ "Going forward." or "From now on" as a sentence or a line of its own announces the rule after it."""
    for prompt in (
        "Going forward. Use tabs in the makefiles.",
        "ok, from now on.\nUse tabs in the makefiles",
        "From now on\n- use tabs in the makefiles",
    ):
        [rule] = _run(said.directive_rule, [_prompt(prompt)])
        assert rule.summary == "Use tabs in the makefiles" and rule.promotion == INSTRUCTION, prompt
        quoted = rule.content.splitlines()[0].lower()
        assert quoted.startswith(('the user said: "going forward', 'the user said: "ok, from', 'the user said: "from'))
    for prompt in (
        "Going forward. The deploy looks slow today.",  # no rule after it
        "From now on. Why does the deploy take so long?",
        "From now on.\nYou are Max, a grumpy pirate.",
        "Going forward.",
    ):
        assert _run(said.directive_rule, [_prompt(prompt)]) == [], prompt


def test_a_bare_convention_is_stored_as_a_candidate_and_a_one_off_request_is_not():
    """ "Use 4 spaces for indentation" may be a standing convention or this turn's wish: short and about style,
    format, layout or process, it waits as a candidate (promoted only if said again); a request is not stored."""
    conventions = {
        "Use 4 spaces for indentation.": "Use 4 spaces for indentation",
        "Keep pull requests small": "Keep pull requests small",
        "Benchmarks live in bench/": "Benchmarks live in `bench/`",
        "We follow conventional commits.": "This project follows conventional commits",
        "Use snake_case for module names": "Use snake_case for module names",
    }
    for prompt, summary in conventions.items():
        found = find_candidates(Session([_prompt(prompt)]))
        assert [(c.summary, c.promotion) for c in found] == [(summary, "")], prompt
        assert "convention" in found[0].why
    for prompt in (
        "Use the other config",
        "Use the staging database",
        "Keep going",
        "Use tabs here",
        "Please use 4 spaces for indentation in this file",
        "Benchmarks live in bench/ and fix the flaky one",
        "Keep commits small, then push the branch",
        "We use Redis",
        "Use double quotes like the rest of it",
    ):
        assert find_candidates(Session([_prompt(prompt)])) == [], prompt
    [rule] = find_candidates(Session([_prompt("From now on. Use 4 spaces for indentation.")]))
    assert rule.promotion == INSTRUCTION  # said to hold from now on: a rule


def test_halting_the_agent_now_and_letting_a_thing_go_are_no_rules():
    """ "stop editing, someone else is on it!" halts this moment's work; "you don't need to use X, instead ..." lets X
    go without asking for anything: neither names a rule for later sessions."""
    for text in (
        "Stop writing, another agent is busy there!",
        "Stop it, you're breaking the build.",
        "You don't need to use the exact enum names, instead a plain string could match the column.",
        "You don't need to run the formatter, the pre-commit hook does it instead.",
    ):
        assert find_candidates(Session([_prompt(text)])) == [], text
    for text in ("Please stop adding emojis to commit messages.", "You don't have to use yarn, use pnpm instead."):
        [rule] = find_candidates(Session([_prompt(text)]))
        assert rule.promotion == INSTRUCTION, text


def test_a_command_file_sent_as_the_prompt_holds_no_rules_of_the_user():
    """A prompt opening with front matter is a slash command, skill or agent file: its "always" and "do not" are the
    file's own, kept there, short or long."""
    command = (
        "---\ndescription: Draft release notes from the merged pull requests.\n---\n\n"
        "Arguments: $ARGUMENTS\n\n"
        "Always read the changelog before writing anything. Do not ask the user for the version unless the tag is "
        "missing. Never publish the draft yourself."
    )
    assert _run(said.directive_rule, [_prompt(command)]) == []
    typed = "---\nI have a question about the release notes.\n---\nNever publish the draft yourself."
    [rule] = _run(said.directive_rule, [_prompt(typed)])  # a line of dashes with no fields is no front matter
    assert rule.promotion == INSTRUCTION


def test_a_repeated_error_is_named_by_its_own_line_when_the_output_opens_with_it():
    """ "execution error: ..." is the error itself, not some first output line: the summary quotes it, and a Rust I/O
    error printed as a value (`Io(Custom { ... error: "..." })`) is read as its message."""
    line = 'exit code 1: execution error: Io(Custom { kind: Other, error: "sandbox runner error: spawn aborted" })'
    steps = [_fail("ls -la", line), _fail("cat notes.txt", line), _fail("pwd", line)]
    [pattern] = _run(errors.repeated_error_rule, steps)
    assert "sandbox runner error" in pattern.summary and "exit code" not in pattern.summary
    assert errors._gist("exit code 1: > vite build") == "exit code 1"  # a first output line that names nothing


def test_a_rule_about_errors_is_no_pasted_error():
    """ "error" as the topic of a rule ("error reporting", "error messages") is no error output pasted into the prompt;
    an error class or an "error:" line still is."""
    for text in (
        "Never swallow error messages in the API layer.",
        "Don't use `alert()` for frontend error reporting, use toasts instead.",
    ):
        [rule] = find_candidates(Session([_prompt(text)]))
        assert rule.promotion == INSTRUCTION, text
    assert find_candidates(Session([_prompt("Never mind the TypeError: x is undefined, always rerun it")])) == []


def test_keep_doing_a_habit_is_a_rule_and_keep_going_is_not():
    """ "keep committing after each task" carries a habit on; "keep going" only carries this turn's work on."""
    [commits] = find_candidates(
        Session([_prompt("keep automatically committing in the repo's commit style after each task")])
    )
    assert commits.promotion == INSTRUCTION
    [tool] = find_candidates(Session([_prompt("keep using uv for the scripts")]))
    assert not tool.promotion  # said once, with no word that makes it outlast the session: it waits
    for text in ("keep going", "keep trying until the build passes", "keep checking the deploy, it is still running"):
        assert find_candidates(Session([_prompt(text)])) == [], text


def test_a_task_box_is_a_list_mark_not_part_of_the_rule():
    """ "- [ ] Never ..." is a list item: the box is dropped like a bullet, and the cue still opens the sentence."""
    prompt = "Do these as separate commits:\n- [ ] fix the router link\n- [x] Never commit .env files, use .env.example"
    [rule] = find_candidates(Session([_prompt(prompt)]))
    assert rule.summary.startswith("Never commit .env files") and "[" not in rule.summary


def test_a_letter_picks_an_option_labelled_with_it_unless_the_user_then_stopped_the_work():
    answer = (
        "How should pasted lyrics be split by default?\n"
        "- A) Keep each line whole until the user cuts it\n"
        "- B) Split every character into its own syllable\n"
        "- C) Split on spaces for languages that use them\n"
        "Which one do you prefer?"
    )

    def turns(reply: str, stopped: bool) -> list:
        return [
            Turn(harness="claude-code", session_id="s", turn_id="1", prompt="design the timing editor", answer=answer),
            Turn(harness="claude-code", session_id="s", turn_id="2", prompt=reply, interrupted=stopped),
            Turn(harness="claude-code", session_id="s", turn_id="3", prompt="split on spaces, keep the rest whole"),
        ]

    [cand] = _run(said.choice_rule, steps_from_turns(turns("C", False)))
    assert cand.summary == "Chosen by the user: Split on spaces for languages that use them"
    assert _run(said.choice_rule, steps_from_turns(turns("A", True))) == []  # stopped right after: no pick kept


def test_still_failing_said_in_another_language_is_a_report_not_a_rule():
    """ "immer noch", "toujours pas", "todavía", "ainda" say "still"; "siempre da error" says how often it fails: a
    report of how the work goes. The same words in a request stay rules."""
    for text in (
        "Der Login klappt immer noch nicht.",
        "Ich bekomme immer den gleichen Fehler beim Deploy.",
        "le formulaire ne marche toujours pas",
        "todavía no carga, siempre sale el mismo error",
        "ainda não abre, sempre dá erro no login",
        "no anda nunca el botón",
        "Сборка всегда падает на этапе линтера",
        "아직도 로그인이 안 돼요, 항상 같은 오류가 나요",
        "we always get a timeout from the staging database",  # what happens, not how to work
        "you always end up rewriting the whole component",
        "always fails on the second run, no idea why",
        "Never works on the first try.",
    ):
        assert find_candidates(Session([_prompt(text)])) == [], text
    for text in (
        "Verwende immer pnpm statt npm.",
        "Il faut toujours lancer les tests avant de commit.",
        "Всегда используй pnpm вместо npm.",
    ):
        [rule] = find_candidates(Session([_prompt(text)]))
        assert rule.promotion == INSTRUCTION, text


def test_a_repeated_frame_of_words_asking_other_things_each_time_is_no_habit():
    """ "lets look at X", "yes please remove Y", "we should use Z": the repeated words frame the ask, whose object
    changes each time."""
    framed = [
        _prompt("lets look at the billing module"),
        _prompt("ok lets look at how the cache gets warmed"),
        _prompt("lets look at the queue consumer now"),
        _prompt("we should use the blue icons for the header"),
        _prompt("we should use the shared helper for dates"),
        _prompt("no, we should use the retry wrapper from utils"),
        _prompt("yes please remove the old migrations"),
        _prompt("yes please remove anything unused"),
        _prompt("yes please remove the dead feature flags"),
    ]
    assert _run(said.repeated_request_rule, framed) == []
    habit = [_prompt(t) for t in ("then log the progress in notes", "ok, log the progress in notes", "good")] * 2
    assert _run(said.repeated_request_rule, habit) != []


def test_the_user_telling_what_they_did_or_must_do_themselves_is_no_repeated_request():
    told = [
        _prompt("I ran the importer again and the totals column is still empty"),
        _prompt("I've just added three logos to the assets folder"),
        _prompt("I've added another logo to the assets folder, shrink it"),
        _prompt("I need to renew my stripe test key first"),
        _prompt("the totals column should be right aligned"),
        _prompt("I am adding a totals column to the report"),
        _prompt("wait I need to renew my stripe key"),
        _prompt("I've added a logo for the footer"),
    ]
    assert _run(said.repeated_request_rule, told) == []


def test_one_field_of_the_code_asked_about_again_and_again_is_one_change_not_a_habit():
    pasted = [
        _prompt("Make retryLimit optional in the client options."),
        _prompt("The retryLimit field must be optional to match the schema."),
        _prompt("ok, make retryLimit optional then"),
    ]
    assert _run(said.repeated_request_rule, pasted) == []


def test_a_repeated_report_in_a_later_clause_is_no_request():
    reported = [
        _prompt("the parser chokes on tabs, i get this error in the build log"),
        _prompt("the lexer is fine, i get this error in the build log again"),
        _prompt("i get this error in the build log when the cache is cold"),
    ]
    assert _run(said.repeated_request_rule, reported) == []


def test_a_want_followed_by_asking_if_it_is_possible_decides_nothing():
    for text in (
        "I want my search to look only within the north district. Is that possible?",
        "I want my export to look only at the archived rows. Can we do that?",
        "The report should only list open tickets. Would that work?",
    ):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text
    kept = "I want my search to look only within the north district. Thanks!"
    assert _run(said.directive_rule, [_prompt(kept)]) != []


def test_a_want_that_spells_out_the_change_asked_just_before_is_no_lesson():
    for text in (
        "Can you update `parseRow` so that it accepts a delimiter too. I want the second argument to be an options"
        " object like `parseFile`.",
        "Please add a retry to the uploader. I want the delay to double each time.",
    ):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text
    kept = "I noticed the poller keeps its state in memory maps. I want all of that state stored in redis."
    assert _run(said.directive_rule, [_prompt(kept)]) != []


def test_nothing_else_steers_this_turn_however_it_is_typed():
    for text in (
        "Create the config/app.toml file. Do not do anythign else.",
        "Add the route. Don't change anyhting else.",
    ):
        assert _run(said.directive_rule, [_prompt(text)]) == [], text


def test_a_rule_about_other_peoples_work_is_no_limit_of_this_work():
    """ "anything else" limits the work at hand; "anybody else's" names other people's things in a standing rule."""
    rule = find_candidates(Session([Step(kind="prompt", text="Never touch anybody else's branches.")]))
    assert rule and rule[0].promotion
    assert not find_candidates(Session([Step(kind="prompt", text="Add the endpoint. Don't touch anything else.")]))


# --- work the agent destroyed ----------------------------------------------------------------------


def test_never_do_that_again_after_one_destructive_command_names_the_command():
    from automem.extract.rules import destructive

    steps = [
        _prompt("clean up the repo"),
        _ok("git reset --hard HEAD"),
        _prompt("you wiped my changes, never do that again"),
    ]
    [cand] = _run(destructive.destructive_rule, steps)
    assert cand.summary == "Ask the user before running `git reset --hard`"
    assert cand.promotion == INSTRUCTION and cand.scope == "global"
    named = [_prompt("clean"), _ok("rm -rf drafts"), _prompt("you deleted ~/clients/acme-corp/drafts, never again")]
    [kept] = _run(destructive.destructive_rule, named)
    assert "acme-corp" not in kept.content and "you deleted <path>, never again" in kept.content  # global: no folders
    complaint = [_prompt("tidy up"), _ok("git clean -fdx"), _prompt("You just deleted my .env!")]
    [waits] = _run(destructive.destructive_rule, complaint)
    assert waits.summary.endswith("`git clean -f`") and not waits.promotion  # a candidate: nothing forbidden yet


def test_a_complaint_in_chinese_or_japanese_about_deleted_work_gives_a_candidate():
    from automem.extract.rules import destructive

    for said_after in ("你刚才误删了我的配置目录，还能恢复吗？", "刪了我的專案資料夾！", "作業フォルダが消された…"):
        steps = [_prompt("clean up the temp folder"), _ok("rm -rf ~/tmpdir 2>/dev/null; ls"), _prompt(said_after)]
        [waits] = _run(destructive.destructive_rule, steps)
        assert waits.summary == "Ask the user before running `rm -rf`" and not waits.promotion, said_after
    for said_after in (
        "你删了我的代码！以后不要再这样做了",
        "二度とやらないで",
        "Больше так не делай!",
        "Mach das nie wieder.",
    ):
        steps = [_prompt("clean up"), _ok("git reset --hard"), _prompt(said_after)]
        [rule] = _run(destructive.destructive_rule, steps)  # forbidden again: the user's instruction
        assert rule.summary.endswith("`git reset --hard`") and rule.promotion == INSTRUCTION, said_after
        assert not said.directive_rule(Session([steps[-1]])), said_after  # alone it names nothing
    calm = [_prompt("clean up"), _ok("rm -rf build"), _prompt("删除了构建目录吗？好的，继续")]  # no complaint
    assert _run(destructive.destructive_rule, calm) == []


def test_that_stays_unresolved_with_no_or_several_destructive_commands_or_a_rule_said_in_full():
    from automem.extract.rules import destructive

    said_again = _prompt("never do that again")
    for steps in (
        [_prompt("clean"), _ok("git clean -fd"), _ok("git reset --hard"), said_again],  # which one?
        [_prompt("run the tests"), _ok("pytest -q"), said_again],  # nothing destructive ran
        [_prompt("drop the old logs"), _ok("rm -rf logs/old"), _prompt("great, now commit it")],  # no complaint
        [_prompt("push"), _ok("git push --force origin main"), _prompt("never force push to main")],  # said in full
        [_prompt("edit it"), _ok("rm -r build"), _prompt("why did you remove the import?")],  # about an edit
    ):
        assert _run(destructive.destructive_rule, steps) == [], steps[-1].text


def test_that_is_the_destructive_command_only_when_nothing_else_could_be_meant():
    """A complaint names a loss and may come a turn later: the last few turns must hold one destructive command.
    "Never do that again" names nothing: the turn before must have done that alone. A forbid needs "again"/"ever"."""
    from automem.extract.rules import destructive

    for steps in (
        # a loss named after two turns that each destroyed something: which one?
        [
            _prompt("reset it"),
            _ok("git reset --hard"),
            _prompt("now clean the build"),
            _ok("rm -rf build"),
            _prompt("wait, you wiped my changes to app.py! never do that again"),
        ],
        # "that" beside other work of the turn, no loss named: the edit may be what is meant
        [
            _prompt("reinstall and fix the api"),
            _ok("rm -rf node_modules && npm install"),
            _ok("api.py", tool="Edit"),
            _prompt("Don't do that again, you changed the public API signature without asking."),
        ],
        # no forbid of what happened
        [
            _prompt("undo my edit"),
            _ok("git checkout -- src/a.py"),
            _prompt("Don't do it this way, write a helper function instead."),
        ],
        [_prompt("clean it"), _ok("git clean -fdx"), _prompt("I never run it by hand, the CI does that.")],
        # the destructive command failed: nothing was destroyed by it
        [_prompt("reset"), _fail("git reset --hard", "fatal: not a git repository"), _prompt("never do that again")],
    ):
        assert _run(destructive.destructive_rule, steps) == [], steps[-1].text
    later = [
        _prompt("reset it"),
        _ok("git reset --hard"),
        _prompt("run the tests"),
        _ok("pytest -q"),
        _prompt("hey, all my changes are gone! you reset them"),
    ]
    [waits] = _run(destructive.destructive_rule, later)
    assert waits.summary == "Ask the user before running `git reset --hard`" and not waits.promotion
    alone = [_prompt("tidy"), _ok("git status"), _ok("git clean -fd"), _ok("ls"), _prompt("don't ever do that")]
    [rule] = _run(destructive.destructive_rule, alone)
    assert rule.summary.endswith("`git clean -f`") and rule.promotion == INSTRUCTION


@pytest.mark.parametrize(
    "line, gist",
    [
        ("git checkout -- .", "git checkout -- <paths>"),
        ("git push -f origin main", "git push --force"),
        ("rm -rf dist", "rm -rf"),
        ("git stash drop", "git stash drop"),
        ("git checkout main", ""),
        ("git restore --staged a.py", ""),
        ("rm a.txt", ""),
    ],
)
def test_what_counts_as_a_command_that_destroys_work(line, gist):
    from automem.extract.rules.destructive import destructive_gist

    [command] = intent_of("Bash", line).commands
    assert destructive_gist(command) == gist


@pytest.mark.parametrize(
    "text",
    [
        "deploy.sh 应该上传构建目录里的全部文件",  # what one script should do: the task at hand
        "这个页面必须显示所有订单",
        "backup.sh는 모든 로그를 압축해야 합니다",
        "Эта кнопка должна быть зелёной",
    ],
)
def test_a_must_about_one_thing_of_the_project_is_no_rule_in_other_languages_either(text):
    assert _run(said.directive_rule, [_prompt(text)]) == []


@pytest.mark.parametrize(
    "text",
    [
        "必须用 yarn 安装依赖",  # no subject: said to the agent
        "你应该先跑格式化再提交",
        "以后合并前应该先跑测试",  # limited by "from now on"
        "의존성은 yarn만 사용해야 합니다",  # limited by "only"
        "yarn을 사용해야 합니다",
        "Ты должен всегда запускать линтер перед коммитом",
        "测试文件应该放在 tests 目录里",  # a kind of thing, not one of them
        "这个项目必须用 yarn 管理依赖",  # "this project": where the rule holds
        "이 프로젝트는 yarn을 사용해야 합니다",
    ],
)
def test_a_must_said_to_the_agent_or_limited_stays_a_rule_in_other_languages(text):
    assert len(_run(said.directive_rule, [_prompt(text)])) == 1


def test_the_folders_of_a_windows_path_named_in_three_prompts_are_no_habit():
    asks = [
        _prompt(r"please read the notes and draft a plan for C:\Users\jdoe\work\repos\Billing_App"),
        _prompt(r"now copy the demo files into C:\Users\jdoe\work\repos\Invoices too"),
        _prompt(r'look at "C:\Users\jdoe\work\repos\Billing_App" and write the report'),
    ]
    assert _run(said.repeated_request_rule, asks) == []


def test_a_japanese_limit_after_a_clause_asking_for_this_turns_work_waits():
    """ "…を調査して 書き込みは禁止": look into it, no writes meanwhile; a clause apart by a space counts too."""
    for text in (
        "同期が遅い原因を調査して 本番データベースへの書き込みは禁止",
        "ログを確認してください、設定ファイルは変更しないで",
    ):
        [cand] = _run(said.directive_rule, [_prompt(text)])
        assert not cand.promotion, text
    for text in (
        "本番データベースへの書き込みは禁止",
        "今後は調査して、設定ファイルは変更しないでください",
        "生成されたファイルについて 手で編集することは禁止",  # "about": no request before the rule
    ):
        [rule] = _run(said.directive_rule, [_prompt(text)])
        assert rule.promotion == INSTRUCTION, text


def test_one_long_task_sentence_sent_again_is_no_habit():
    opening = "We need to write new quiz questions for the midterm in exams/midterm.tex as you can see"
    asks = [
        _prompt(f"{opening}. Start with one per chapter, five choices each, conceptual ones."),
        _ok("ls exams"),
        _prompt(f"{opening}. Start with one per chapter, five choices each, numeric ones."),
        _ok("ls exams"),
        _prompt(f"{opening}. Do question three for every chapter, numeric, harder."),
        _ok("ls exams"),
        _prompt("now add the new questions to the quiz index"),
    ]
    assert _run(said.repeated_request_rule, asks) == []
    template = "Each question must use the file exams/templates/{}.tex as its template and have five choices"
    asks = [_prompt(template.format(name)) for name in ("single-a", "single-b", "single-c")]
    assert _run(said.repeated_request_rule, asks) == []


@pytest.mark.parametrize(
    ("later", "earlier", "taken_back"),
    [
        ("Use pnpm, not npm, in this repo", "Use npm, not yarn, in this repo", True),
        ("Use npm, not yarn, in this repo", "Use pnpm, not npm, in this repo", True),  # back to npm
        ("Use pnpm instead of npm", "Always use npm", True),
        ("Never use npm", "Use npm for the frontend", True),
        ("Don't use npm; use pnpm", "Use npm", True),
        ("Use uv, not pip, for the backend", "Use pip for the backend", True),
        ("Don't run tests in parallel, it breaks the db.", "Always run the tests before committing", False),
        ("Never run git push --force.", "Always use git worktrees for parallel work", False),
        ("Never use npm audit fix --force.", "Always use npm for this project", False),  # one command of npm
        ("Prefer tabs over spaces in Go code.", "Always use spaces in YAML files", False),  # another scope
        ("Always use npm for publishing the package.", "Use pnpm, not npm, in this repo", False),
        ("Use rebase, not merge", "Use merge commits for release branches", False),
        ("Never use Docker in CI", "Use Docker for local dev", False),
        ("Use pnpm instead of npm", "Use npm scripts for builds", False),
        ("Use pnpm, not npm, for the frontend", "Use npm", False),  # narrower: npm still holds elsewhere
    ],
)
def test_a_rule_takes_back_only_the_same_tool_choice(later, earlier, taken_back):
    from automem.extract.rules.said import contradicts

    assert contradicts(later, earlier) is taken_back

"""The real hook command on real payload shapes (shared/HARNESSES.md): what reaches the spool, and what does not."""

from __future__ import annotations

import json
import os
import secrets
import stat
from pathlib import Path

import pytest

from automem.capture.hook import CAPTURE_EVENTS, KNOWN_EVENTS, LATE_HANDLERS

SESSION = "0b7e3c52-8f1d-4b8e-a7a3-5d0c2f9e6a11"
CWD = "/home/dev/work/shop-api"


def claude(event: str, **fields) -> dict:
    """A Claude Code payload: the common input fields plus the event's own."""
    return {
        "session_id": SESSION,
        "transcript_path": f"/home/dev/.claude/projects/-home-dev-work-shop-api/{SESSION}.jsonl",
        "cwd": CWD,
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


def codex(event: str, **fields) -> dict:
    """A Codex payload: transcript_path may be null, turn_id is Codex's own."""
    return {
        "session_id": "019a2f4e-77c1-7d30-9e1b-0c5a8d3f2b64",
        "transcript_path": None,
        "cwd": "/home/dev/work/rustle",
        "hook_event_name": event,
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "turn_id": "turn-7",
        **fields,
    }


def bash_response(stdout: str, stderr: str = "", interrupted: bool = False) -> dict:
    return {"stdout": stdout, "stderr": stderr, "interrupted": interrupted, "isImage": False}


def spool_files(home: Path) -> list[Path]:
    return sorted((home / "spool").glob("*.jsonl")) if (home / "spool").exists() else []


def spool_records(home: Path) -> list[dict]:
    """Every spool line, each checked to be whole, valid JSON, and under the 8 KB cap."""
    records = []
    for path in spool_files(home):
        data = path.read_bytes()
        assert data.endswith(b"\n"), f"{path.name} ends in a partial line"
        for line in data.splitlines(keepends=True):
            assert len(line) <= 8192
            records.append(json.loads(line))
    return records


def ok_run(run_hook, event, payload, *args) -> None:
    """The hook ran as a harness needs: exit 0, nothing on stdout or stderr."""
    done = run_hook(event, payload, args=args)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""
    assert done.stderr == b""


def assert_quiet_log(home: Path) -> None:
    log = home / "log" / "automem.log"
    assert not log.exists(), log.read_text()


def test_pretooluse_bash_records_the_command(automem_home, run_hook):
    payload = claude(
        "PreToolUse",
        tool_name="Bash",
        tool_use_id="toolu_01AbCdEf",
        tool_input={"command": "npm test -- --watch=false", "description": "Run the tests"},
    )
    ok_run(run_hook, "PreToolUse", payload)
    [record] = spool_records(automem_home)
    assert record["kind"] == "tool"
    assert record["tool"] == "Bash"
    assert record["input"] == "npm test -- --watch=false"
    assert record["event"] == "PreToolUse"
    assert record["harness"] == "claude-code"
    assert record["session_id"] == SESSION
    assert record["cwd"] == CWD
    assert record["tool_use_id"] == "toolu_01AbCdEf"
    [path] = spool_files(automem_home)
    assert path.name == f"{SESSION}.jsonl"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert_quiet_log(automem_home)


@pytest.mark.parametrize(
    "tool, tool_input",
    [
        (
            "Edit",
            {
                "file_path": "/home/dev/work/shop-api/src/cart.py",
                "old_string": "total = 0",
                "new_string": "total = Decimal(0)",
                "replace_all": False,
            },
        ),
        ("Write", {"file_path": "/home/dev/work/shop-api/src/cart.py", "content": "import decimal\n" * 400}),
        ("Read", {"file_path": "/home/dev/work/shop-api/src/cart.py", "offset": 10, "limit": 50}),
    ],
)
def test_pretooluse_file_tools_record_the_path_not_the_content(automem_home, run_hook, tool, tool_input):
    ok_run(run_hook, "PreToolUse", claude("PreToolUse", tool_name=tool, tool_input=tool_input, tool_use_id="toolu_x"))
    [record] = spool_records(automem_home)
    assert (record["kind"], record["tool"], record["input"]) == ("tool", tool, tool_input["file_path"])
    assert "Decimal" not in json.dumps(record) and "import decimal" not in json.dumps(record)


def test_secrets_in_a_command_never_reach_the_disk(automem_home, run_hook):
    token = "ghp_" + secrets.token_hex(18)  # 36 characters, made up at run time
    payload = claude(
        "PreToolUse",
        tool_name="Bash",
        tool_input={"command": f"curl -H 'Authorization: token {token}' https://api.github.com/user"},
    )
    ok_run(run_hook, "PreToolUse", payload)
    [record] = spool_records(automem_home)
    assert "[REDACTED:" in record["input"]
    assert token not in (automem_home / "spool" / f"{SESSION}.jsonl").read_text()


def test_posttooluse_bash_clean_output_is_an_ok_result(automem_home, run_hook):
    payload = claude(
        "PostToolUse",
        tool_name="Bash",
        tool_use_id="toolu_ok",
        tool_input={"command": "ls src"},
        tool_response=bash_response("cart.py\norders.py\n__init__.py\n"),
        duration_ms=12,
    )
    ok_run(run_hook, "PostToolUse", payload)
    [record] = spool_records(automem_home)
    assert record["kind"] == "result" and record["ok"] is True
    assert (record["tool"], record["input"], record["session_id"]) == ("Bash", "ls src", SESSION)


def test_posttooluse_bash_traceback_gives_an_error_record(automem_home, run_hook):
    stdout = (
        "collected 12 items\n\ntests/test_cart.py ..F\n\n"
        "Traceback (most recent call last):\n"
        '  File "/home/dev/work/shop-api/src/cart.py", line 41, in total\n'
        "    return sum(item.price for item in items)\n"
        "TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'\n"
    )
    payload = claude(
        "PostToolUse",
        tool_name="Bash",
        tool_use_id="toolu_tb",
        tool_input={"command": "pytest -x"},
        tool_response=bash_response(stdout),
    )
    ok_run(run_hook, "PostToolUse", payload)
    records = spool_records(automem_home)
    assert records[0]["kind"] == "result" and records[0]["ok"] is False
    errors = [r for r in records if r["kind"] == "error"]
    assert errors and all(r["input"] == "pytest -x" and r["tool"] == "Bash" for r in errors)
    assert any("TypeError" in json.dumps(r) for r in errors)


def test_posttooluse_write_result(automem_home, run_hook):
    path = "/home/dev/work/shop-api/README.md"
    payload = claude(
        "PostToolUse",
        tool_name="Write",
        tool_use_id="toolu_w",
        tool_input={"file_path": path, "content": "# shop-api\n"},
        tool_response={"filePath": path, "success": True},
    )
    ok_run(run_hook, "PostToolUse", payload)
    [record] = spool_records(automem_home)
    assert (record["kind"], record["tool"], record["input"], record["ok"]) == ("result", "Write", path, True)


def test_posttoolusefailure_exit_code(automem_home, run_hook):
    error = "Exit code 1\nnpm ERR! code ELIFECYCLE\nnpm ERR! errno 1\nnpm ERR! shop-api@1.0.0 test: `jest`"
    payload = claude(
        "PostToolUseFailure",
        tool_name="Bash",
        tool_use_id="toolu_f",
        tool_input={"command": "npm test"},
        error=error,
        duration_ms=3100,
    )
    ok_run(run_hook, "PostToolUseFailure", payload)
    records = spool_records(automem_home)
    assert records[0]["kind"] == "result"
    assert records[0]["ok"] is False and records[0]["exit_code"] == 1
    assert any(r["kind"] == "error" for r in records[1:])
    assert {r["event"] for r in records} == {"PostToolUseFailure"}


REJECTION = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
    "the new_string was NOT written to the file). To tell you how to proceed, the user said:\n"
)


@pytest.mark.parametrize("field", ["error", "tool_response"])
def test_rejection_keeps_the_users_feedback(automem_home, run_hook, field):
    feedback = "don't touch the migrations, edit the model instead"
    event = "PostToolUseFailure" if field == "error" else "PostToolUse"
    payload = claude(
        event,
        tool_name="Edit",
        tool_use_id="toolu_r",
        tool_input={"file_path": "/home/dev/work/shop-api/migrations/0003.py", "old_string": "a", "new_string": "b"},
        **{field: "Error: " + REJECTION + feedback},
    )
    ok_run(run_hook, event, payload)
    [record] = spool_records(automem_home)
    assert record["kind"] == "rejection"
    assert record["feedback"] == feedback
    assert record["feedback_kind"] == "correction"
    assert record["input"] == "/home/dev/work/shop-api/migrations/0003.py"


def test_rejection_without_feedback(automem_home, run_hook):
    text = (
        REJECTION.split(" To tell you")[0]
        + " STOP what you are doing and wait for the user to tell you how to proceed."
    )
    payload = claude("PostToolUseFailure", tool_name="Bash", tool_input={"command": "rm -rf build"}, error=text)
    ok_run(run_hook, "PostToolUseFailure", payload)
    [record] = spool_records(automem_home)
    assert (record["kind"], record["feedback"], record["input"]) == ("rejection", "", "rm -rf build")
    assert "feedback_kind" not in record


@pytest.mark.parametrize(
    "event, extra",
    [
        ("PostToolUseFailure", {"error": "Interrupted by user", "is_interrupt": True}),
        ("PostToolUse", {"tool_response": bash_response("partial output\n", interrupted=True)}),
    ],
)
def test_interrupts(automem_home, run_hook, event, extra):
    payload = claude(event, tool_name="Bash", tool_use_id="toolu_i", tool_input={"command": "npm run dev"}, **extra)
    ok_run(run_hook, event, payload)
    [record] = spool_records(automem_home)
    assert (record["kind"], record["tool"], record["input"]) == ("interrupt", "Bash", "npm run dev")


def test_userpromptsubmit_feedback_keeps_the_sentence(automem_home, run_hook):
    prompt = "No, don't mock the payment gateway in these tests. Use the sandbox account."
    ok_run(run_hook, "UserPromptSubmit", claude("UserPromptSubmit", prompt=prompt, prompt_id="p-1"))
    records = spool_records(automem_home)
    assert records and all(r["kind"] == "feedback" for r in records)
    assert any("mock the payment gateway" in json.dumps(r) for r in records)
    assert records[0]["prompt_id"] == "p-1" and records[0]["session_id"] == SESSION


def test_userpromptsubmit_interrupt_marker(automem_home, run_hook):
    ok_run(
        run_hook, "UserPromptSubmit", claude("UserPromptSubmit", prompt="[Request interrupted by user for tool use]")
    )
    [record] = spool_records(automem_home)
    assert record["kind"] == "interrupt"


def test_plain_prompt_writes_nothing(automem_home, run_hook):
    ok_run(
        run_hook, "UserPromptSubmit", claude("UserPromptSubmit", prompt="Add a section about deployment to the README.")
    )
    assert spool_records(automem_home) == []
    assert_quiet_log(automem_home)


def test_event_from_argv_when_the_payload_has_no_hook_event_name(automem_home, run_hook):
    payload = claude("PreToolUse", tool_name="Bash", tool_input={"command": "make"})
    del payload["hook_event_name"]  # Claude Code before 1.0.41
    ok_run(run_hook, "PreToolUse", payload)
    [record] = spool_records(automem_home)
    assert (record["event"], record["input"]) == ("PreToolUse", "make")


@pytest.mark.parametrize("how", [("--harness", "codex"), ("--harness=codex",), "env"])
def test_codex_bash(automem_home, run_hook, monkeypatch, how):
    if how == "env":
        monkeypatch.setenv("AUTOMEM_HARNESS", "codex")
        how = ()
    ok_run(run_hook, "PreToolUse", codex("PreToolUse", tool_name="Bash", tool_input={"command": "cargo test"}), *how)
    [record] = spool_records(automem_home)
    assert (record["harness"], record["turn_id"], record["tool"], record["input"]) == (
        "codex",
        "turn-7",
        "Bash",
        "cargo test",
    )
    assert record["cwd"] == "/home/dev/work/rustle"


@pytest.mark.parametrize("as_string", [True, False])
def test_codex_apply_patch_records_the_files(automem_home, run_hook, as_string):
    patch = (
        "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-fn a() {}\n+fn a() -> u8 { 1 }\n"
        "*** Add File: src/util.rs\n+pub fn b() {}\n*** End Patch\n"
    )
    tool_input = patch if as_string else {"input": patch}
    ok_run(
        run_hook,
        "PreToolUse",
        codex("PreToolUse", tool_name="apply_patch", tool_input=tool_input),
        "--harness",
        "codex",
    )
    [record] = spool_records(automem_home)
    assert (record["tool"], record["input"], record["harness"]) == ("apply_patch", "src/lib.rs, src/util.rs", "codex")


def test_codex_failed_command_output(automem_home, run_hook):
    output = (
        "Exit code: 101\nWall time: 2.4 seconds\nOutput:\nerror[E0308]: mismatched types\n"
        " --> src/lib.rs:2:20\nerror: could not compile `rustle` due to previous error\n"
    )
    payload = codex("PostToolUse", tool_name="Bash", tool_input={"command": "cargo build"}, tool_response=output)
    ok_run(run_hook, "PostToolUse", payload, "--harness", "codex")
    records = spool_records(automem_home)
    assert records[0]["kind"] == "result" and records[0]["exit_code"] == 101 and records[0]["ok"] is False
    assert {r["harness"] for r in records} == {"codex"}
    assert any(r["kind"] == "error" for r in records)


def test_codex_prompt(automem_home, run_hook):
    payload = codex("UserPromptSubmit", prompt="From now on always use cargo nextest for the tests.")
    ok_run(run_hook, "UserPromptSubmit", payload, "--harness", "codex")
    records = spool_records(automem_home)
    assert records and records[0]["kind"] == "feedback" and records[0]["harness"] == "codex"


QUIET_EVENTS = sorted(KNOWN_EVENTS - set(CAPTURE_EVENTS))


@pytest.mark.parametrize("event", QUIET_EVENTS)
def test_known_non_capture_events_are_quiet(automem_home, run_hook, event):
    payload = claude(event, source="startup", stop_hook_active=False, reason="other", trigger="auto")
    done = run_hook(event, payload)
    assert done.returncode == 0 and done.stderr == b""
    assert spool_records(automem_home) == []
    if event in LATE_HANDLERS:  # a handler may answer, but only with one JSON object
        assert done.stdout == b"" or isinstance(json.loads(done.stdout), dict)
    else:
        assert done.stdout == b""
        assert_quiet_log(automem_home)


def test_unknown_event_is_one_log_line(automem_home, run_hook):
    done = run_hook("FutureEvent", claude("FutureEvent"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    lines = (automem_home / "log" / "automem.log").read_text().splitlines()
    assert len(lines) == 1 and "FutureEvent" in lines[0]
    assert stat.S_IMODE(os.stat(automem_home / "log" / "automem.log").st_mode) == 0o600


def test_every_capture_event_appends_to_one_file_per_session(automem_home, run_hook):
    ok_run(run_hook, "PreToolUse", claude("PreToolUse", tool_name="Bash", tool_input={"command": "pytest"}))
    ok_run(
        run_hook,
        "PostToolUse",
        claude(
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "pytest"},
            tool_response=bash_response("3 passed in 0.12s\n"),
        ),
    )
    other = claude("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, session_id="another-session")
    ok_run(run_hook, "PreToolUse", other)
    assert {p.name for p in spool_files(automem_home)} == {"another-session.jsonl", f"{SESSION}.jsonl"}
    by_session = {}
    for record in spool_records(automem_home):
        by_session.setdefault(record["session_id"], []).append(record["kind"])
    assert by_session == {SESSION: ["tool", "result"], "another-session": ["tool"]}
    assert stat.S_IMODE((automem_home / "spool").stat().st_mode) == 0o700


def test_secret_across_the_summary_cut_never_reaches_the_spool(automem_home, run_hook):
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"
    for cut in range(270, 300, 3):
        command = "echo " + "x" * cut + " " + token + " done"
        ok_run(run_hook, "PreToolUse", claude("PreToolUse", tool_name="Bash", tool_input={"command": command}))
    text = next(automem_home.glob("spool/*.jsonl")).read_text()
    for size in range(8, len(token) + 1):
        assert size < 12 or token[:size] not in text, f"a {size}-char prefix of the token leaked"


def test_credential_across_the_error_line_cut_never_reaches_the_spool(automem_home, run_hook):
    """Error lines are capped at 500 characters: the cap must fall after redaction, not before it."""
    password = "S3cretPassw0rd9"
    for pad in range(440, 500, 7):
        line = "ERROR: could not connect " + "x" * pad + f" postgres://admin:{password}@db.internal:5432/app"
        payload = claude(
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "psql"},
            tool_response={"stdout": "", "stderr": line, "interrupted": False, "isImage": False},
        )
        ok_run(run_hook, "PostToolUse", payload)
    text = next(automem_home.glob("spool/*.jsonl")).read_text()
    assert "ERROR" in text and password[:8] not in text


def test_hook_output_survives_a_non_utf8_stdout(automem_home, run_hook):
    """Windows pipes use the ANSI code page: the brief must still come out whole (as ASCII JSON escapes)."""
    import os as _os

    from automem.home import Home
    from automem.store.memories import Memory, save

    home = Home.current().ensure()
    project = home.project_for_cwd(CWD)
    path = save(
        project,
        Memory(type="preference", summary="Use the 日本語 locale in tests ✅", content="locale ✅", status="promoted"),
    )
    from automem.index.upsert import index_file

    index_file(path, str(home.root))
    env = {**_os.environ, "PYTHONIOENCODING": "cp1252"}
    payload = claude("SessionStart", source="startup")
    result = run_hook("SessionStart", payload, env)
    assert result.returncode == 0
    out = json.loads(result.stdout)
    assert "日本語" in out["hookSpecificOutput"]["additionalContext"]


def test_an_empty_search_is_an_answer_not_an_error(automem_home, run_hook):
    """Claude Code sends a grep/rg with no match as PostToolUseFailure "Exit code 1"; Codex prints a run header."""
    empty = claude(
        "PostToolUseFailure", tool_name="Bash", tool_input={"command": "rg -n TODO src"}, error="Exit code 1\n"
    )
    header = codex(
        "PostToolUse",
        tool_name="shell",
        tool_input={"command": ["bash", "-lc", "grep -q foo a.txt"]},
        tool_response={"output": "Exit code: 1\nWall time: 0.9 seconds\nOutput:\n", "exit_code": 1},
    )
    real = claude(
        "PostToolUseFailure",
        tool_name="Bash",
        tool_input={"command": "npm test"},
        error="Exit code 1\nWall time: 2 seconds\nError: Cannot find module 'vitest'\n",
    )
    for payload in (empty, header, real):
        assert run_hook(payload["hook_event_name"], payload).returncode == 0
    records = spool_records(automem_home)
    results = [r for r in records if r.get("kind") == "result"]
    assert [r["ok"] for r in results] == [True, True, False]
    errors = [r for r in records if r.get("kind") == "error"]
    assert errors and all("Wall time" not in r["signature"] for r in errors)
    assert all("rg -n" not in r.get("input", "") and "grep" not in r.get("input", "") for r in errors)


@pytest.mark.parametrize("event", sorted(LATE_HANDLERS))
def test_every_late_handler_imports_and_takes_a_payload_and_a_harness(event):
    """Each entry of the routing table loads a real function (a moved or renamed handler fails here, not in a hook)."""
    import inspect

    assert event in KNOWN_EVENTS
    handler = LATE_HANDLERS[event]()
    assert callable(handler)
    assert list(inspect.signature(handler).parameters)[:2] == ["payload", "harness"]

"""Capture events import nothing outside the standard library, automem.capture and the fast redaction tier.

Each hook call pays for every module it imports; DESIGN.md keeps yaml, click,
detect-secrets, httpx and friends off the capture path. The checks run in fresh
interpreters so that nothing this test process imported can hide an import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

# automem.__main__ is the console script's entry; automem.redact.rules is the stdlib rule table the fast tier applies
# session_hooks: per-prompt recall rides on UserPromptSubmit; it imports only os until a memory exists
# regex_cache: the rule tables' compiled patterns, read from beside the bytecode; lazy_re: compiled on first use
ALLOWED = {
    "automem",
    "automem.__main__",
    "automem.digest",  # SHA-256 of a project path or an odd session id (stdlib only)
    "automem.redact",
    "automem.redact.fast",
    "automem.redact.rules",
    "automem.lazy_re",
    "automem.regex_cache",
    "automem.session_hooks",
}
FORBIDDEN = ("yaml", "click", "detect_secrets", "httpx", "frontmatter", "ollama", "mcp", "rank_bm25", "sqlite3")

# Drives the console script's own entry (automem.__main__.main) in-process with every capture event,
# including the paths that load more code: errors, feedback, redaction, a hashed session id, rotation, the log.
DRIVER = textwrap.dedent("""
    import io, json, sys
    before = set(sys.modules)
    import automem.__main__
    from automem.__main__ import main
    from automem.capture import spool
    automem.__main__.EXIT_FAST = False  # main() would end this process after the first call
    spool.MAX_SPOOL_BYTES = 2000  # so the rotation path runs too
    tb = ('Traceback (most recent call last):\\n  File "/app/x.py", line 3, in f\\n'
          'ModuleNotFoundError: No module named yaml\\n')
    base = {"session_id": "imports-check", "cwd": "/home/dev/app", "transcript_path": None}
    calls = [
        ("PreToolUse", {"tool_name": "Bash",
                        "tool_input": {"command": "curl -H 'Authorization: Bearer abcdefghijklmnop1234' x"}}),
        ("PreToolUse", {"tool_name": "Edit",
                        "tool_input": {"file_path": "/home/dev/app/x.py", "old_string": "a", "new_string": "b"}}),
        ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": "pytest"},
                         "tool_response": {"stdout": tb * 50, "stderr": "", "interrupted": False, "isImage": False}}),
        ("PostToolUseFailure", {"tool_name": "Bash", "tool_input": {"command": "npm test"},
                                "error": "Exit code 1\\nnpm ERR! test failed"}),
        ("PostToolUseFailure", {"tool_name": "Edit", "tool_input": {},
                                "error": "The user doesn't want to proceed with this tool use. the user said:\\nno"}),
        ("UserPromptSubmit", {"prompt": "No, don't do that. From now on always run the linter first. Perfect."}),
        ("PreToolUse", {"tool_name": "Read", "tool_input": {"file_path": "/x"},
                        "session_id": "../odd id needing a hash"}),
        ("PreToolUse", {"tool_name": "Bash", "session_id": None}),  # logged: no session id
        ("PreToolUse", b"not json"),
    ]
    for event, fields in calls:
        raw = fields if isinstance(fields, bytes) else json.dumps({**base, "hook_event_name": event, **fields}).encode()
        sys.argv = ["automem", "hook", event, *sys.argv[1:2]]
        sys.stdin = io.TextIOWrapper(io.BytesIO(raw))
        assert main() == 0
    new = sorted(set(sys.modules) - before)
    print(json.dumps({"new": new, "all": sorted(sys.modules)}))
""")


def outside_stdlib(names: list[str]) -> list[str]:
    return [n for n in names if n.split(".")[0] not in sys.stdlib_module_names]


def test_capture_events_import_only_stdlib_and_automem_capture(tmp_path):
    env = {**os.environ, "AUTOMEM_HOME": str(tmp_path / "home"), "HOME": str(tmp_path)}
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "config.yml").write_text("memory:\n  capture: true\n")  # the switch is read, not parsed
    for harness_args in ([], ["--harness=codex"]):
        done = subprocess.run([sys.executable, "-c", DRIVER, *harness_args], capture_output=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr.decode()
        report = json.loads(done.stdout.decode().strip().splitlines()[-1])
        bad = [m for m in outside_stdlib(report["new"]) if m not in ALLOWED and not m.startswith("automem.capture")]
        assert bad == []
        assert not [m for m in report["all"] if m.split(".")[0] in FORBIDDEN]
    # it really ran every path: spool lines, a rotated part, a hashed file name, a log line
    spool = tmp_path / "home" / "spool"
    names = {p.name for p in spool.iterdir()}
    assert "imports-check.jsonl" in names and "imports-check.jsonl.1" in names
    assert any(n.startswith("sid-") for n in names)
    assert (tmp_path / "home" / "log" / "automem.log").read_text().count("\n") >= 2


def test_the_installed_command_imports_nothing_more_than_the_floor(tmp_path):
    """The real console script, with PYTHONPROFILEIMPORTTIME listing every import it makes."""
    env = {**os.environ, "AUTOMEM_HOME": str(tmp_path / "home"), "HOME": str(tmp_path), "PYTHONPROFILEIMPORTTIME": "1"}
    payload = json.dumps(
        {
            "session_id": "s",
            "cwd": "/x",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "make"},
            "tool_response": "Exit code 2\nerror: no rule",
        }
    ).encode()

    def imported(argv: list[str]) -> set[str]:
        done = subprocess.run(argv, input=payload, capture_output=True, env=env, timeout=60)
        assert done.returncode == 0 and done.stdout == b""
        rows = [line.split("|")[-1] for line in done.stderr.decode().splitlines() if line.startswith("import time:")]
        return {row.strip() for row in rows[1:]}  # the first row is the header

    floor = imported([sys.executable, "-c", "import sys, json; json.loads(sys.stdin.buffer.read())"])
    script = os.path.join(os.path.dirname(sys.executable), "automem")
    hook = imported(
        [script, "hook", "PostToolUse"]
        if os.path.exists(script)
        else [sys.executable, "-m", "automem", "hook", "PostToolUse"]
    )
    assert (tmp_path / "home" / "spool" / "s.jsonl").exists()
    extra = outside_stdlib(sorted(hook - floor))
    assert [m for m in extra if m not in ALLOWED and not m.startswith("automem.capture")] == []
    assert not [m for m in hook if m.split(".")[0] in FORBIDDEN]

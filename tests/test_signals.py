"""Error signals in tool output: every kind found, no false alarm, stable signatures."""

from __future__ import annotations

import pytest

from automem.capture.signals import MAX_SIGNALS, detect_errors, normalize_signature

PY_TRACEBACK = """\
Traceback (most recent call last):
  File "/home/ana/proj/app.py", line 12, in <module>
    import foo
ModuleNotFoundError: No module named 'foo'
"""

# (sample output, expected error_type of the first signal)
KINDS = [
    (PY_TRACEBACK, "ModuleNotFoundError"),
    ('Traceback (most recent call last):\n  File "x.py", line 1, in f\nTypeError: unsupported operand', "TypeError"),
    (
        "/app/index.js:3\n    generate()\n    ^\n\nTypeError: generate is not a "
        "function\n    at Object.<anonymous> (/app/index.js:3:5)",
        "TypeError",
    ),
    ("> Build error occurred\n[TypeError: generate is not a function]", "TypeError"),
    ('Exception in thread "main" java.lang.NullPointerException: name is null', "NullPointerException"),
    ("error: cannot find symbol in this scope", "error-line"),
    ("ERROR: Could not find a version that satisfies the requirement nothere", "error-line"),
    ("Error: Invalid configuration object passed to webpack", "error-line"),
    ("fatal: not a git repository (or any of the parent directories): .git", "error-line"),
    ("2024-05-01 10:00:01,123 ERROR [main] c.f.App - failed to connect to db", "error-line"),
    ("[ERROR] Failed to execute goal on project app", "error-line"),
    ('FATAL: password authentication failed for user "app"', "error-line"),
    ("=========== 2 failed, 3 passed in 0.51s ===========", "pytest"),
    ("FAILED tests/test_api.py::test_login - AssertionError: assert 401 == 200", "pytest"),
    ("ERROR tests/test_db.py::test_conn - ConnectionError", "pytest"),
    ("Tests:       1 failed, 12 passed, 13 total", "jest"),
    (" Test Files  1 failed | 4 passed (5)", "jest"),
    (" FAIL  src/app.test.ts > renders", "jest"),
    ("--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1 want 2", "go-test"),
    ("FAIL\tgithub.com/acme/tool/parse\t0.012s", "go-test"),
    ("test result: FAILED. 7 passed; 1 failed; 0 ignored; 0 measured", "cargo-test"),
    ("npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/nothere", "npm"),
    ("npm error code ENOTFOUND\nnpm error syscall getaddrinfo", "npm"),
    ("main.c:14:5: error: use of undeclared identifier 'x'", "compiler"),
    ("src/a.ts(6,33): error TS2307: Cannot find module '@scope/lib'", "compiler"),
    ("src/a.ts:6:33 - error TS2322: Type 'string' is not assignable to type 'number'.", "compiler"),
    ("error[E0308]: mismatched types\n --> src/main.rs:4:18\n", "compiler"),
    ("bash: rg: command not found", "not-found"),
    ("zsh: command not found: pnpm", "not-found"),
    ("ls: cannot access 'build/': No such file or directory", "not-found"),
    ("Error: ENOENT: no such file or directory, open '/tmp/x.json'", "not-found"),
    ("'foo' is not recognized as an internal or external command,", "not-found"),
    ("mkdir: cannot create directory '/opt/x': Permission denied", "permission-denied"),
    ("npm WARN checkPermissions\nError: EACCES: permission denied, mkdir '/usr/lib/node_modules'", "permission-denied"),
    ("error: cannot open '.git/FETCH_HEAD': Operation not permitted", "permission-denied"),
    ("panic: runtime error: index out of range [3] with length 3", "error-line"),
]


@pytest.mark.parametrize("text,kind", KINDS, ids=[k + "-" + str(i) for i, (_, k) in enumerate(KINDS)])
def test_every_kind_is_found(text, kind):
    signals = detect_errors(text)
    assert signals, text
    assert signals[0]["error_type"] == kind
    for signal in signals:
        assert signal["line"] and len(signal["line"]) <= 500
        assert signal["signature"]


def test_traceback_takes_the_final_exception_line():
    [signal] = detect_errors(PY_TRACEBACK)
    assert signal["line"] == "ModuleNotFoundError: No module named 'foo'"
    assert signal["signature"] == "ModuleNotFoundError: No module named 'foo'"  # module name is the identity


def test_rustc_line_carries_its_location():
    [signal] = detect_errors("error[E0308]: mismatched types\n --> src/main.rs:4:18\n")
    assert "src/main.rs:4:18" in signal["line"]
    assert signal["signature"] == "error[E0308]: mismatched types"


CLEAN = [
    "src/app.py:12:def error_handler(request, exc):\nsrc/app.py:40:    return error_handler(r, e)",
    "errors.py\nerror_pages/\nErrorBoundary.tsx\nuser_errors.go",
    "Compiled successfully. 0 errors, 0 warnings",
    "error: 0\nwarnings: 2",
    "no errors found",
    "Errors: none",
    "usage: tool [--error-format FORMAT] [--max-errors N]",
    'log_level: error\nLOG_LEVEL=ERROR\nlevel = "error"',
    'logging:\n  level: ERROR  # only errors\n  error: "Something went wrong"',
    "============ 5 passed in 0.12s ============",
    "test result: ok. 12 passed; 0 failed; 0 ignored",
    "Tests:       13 passed, 13 total",
    "ok  \tgithub.com/acme/tool\t0.01s",
    'class MyError(Exception):\n    pass\n\ndef f(x):\n    if x < 0:\n        raise ValueError("negative")\n',
    '    """Parse.\n\n    Raises:\n        ValueError: if the input is empty.\n    """',
    "if (err.code === 'ENOENT') { return null; }\nthrow new TypeError('bad');",
    "     1→class MyError(Exception):\n     2→    pass\n     3→TypeError: documented here\n",
    "README.md: - **Errors**: permission denied is reported to the caller",
    "Exit code 0\nall good",
]


@pytest.mark.parametrize("text", CLEAN)
def test_no_false_alarm_on_clean_output(text):
    assert detect_errors(text) == []


def test_code_read_is_an_error_only_when_marked():
    source = "class MyError(Exception):\n    pass\n\nraise ValueError('x')\n"
    assert detect_errors(source) == []
    [signal] = detect_errors(source, is_error=True)
    assert signal["error_type"] == "tool-error"
    assert signal["line"] == "class MyError(Exception):"


def test_marked_error_without_a_known_line_gives_one_tool_error_from_its_first_line():
    [signal] = detect_errors("\n<tool_use_error>File has not been read yet.</tool_use_error>\n", is_error=True)
    assert signal == {
        "error_type": "tool-error",
        "line": "File has not been read yet.",
        "signature": "File has not been read yet.",
    }
    assert detect_errors("", is_error=True)[0]["error_type"] == "tool-error"


def test_non_zero_exit_code_from_argument_and_from_text():
    [from_arg] = detect_errors("which: no teams in (/usr/bin:/bin)", exit_code=1)
    assert from_arg["error_type"] == "exit-code"
    assert from_arg["line"].startswith("exit code 1: which: no teams")
    assert from_arg["signature"] == "exit code 1: which: no teams in (<path>:<path>)"
    [from_text] = detect_errors("Exit code 127\nsomething odd happened")
    assert from_text["error_type"] == "exit-code" and "127" in from_text["signature"]
    [pi_style] = detect_errors("(no output)\n\nCommand exited with code 2")
    assert pi_style["signature"].startswith("exit code 2")
    assert detect_errors("fine", exit_code=0) == []


def test_a_recognised_line_wins_over_the_bare_exit_code():
    signals = detect_errors("Exit code 1\nbash: rg: command not found", is_error=True, exit_code=1)
    assert [s["error_type"] for s in signals] == ["not-found"]


def test_signatures_equal_across_paths_numbers_and_machines():
    assert normalize_signature('File "/home/a/x.py", line 12') == normalize_signature("/Users/b/y.py line 99")
    a = detect_errors("Traceback (most recent call last):\n  File \"/home/a/p/x.py\", line 3\nKeyError: 'user_id'")
    b = detect_errors(
        "Traceback (most recent call last):\n  File \"C:\\Users\\b\\q\\y.py\", line 80\nKeyError: 'user_id'"
    )
    assert a[0]["signature"] == b[0]["signature"] == "KeyError: 'user_id'"
    first = detect_errors("FileNotFoundError: [Errno 2] No such file or directory: '/tmp/tmpa81kx0/data.json'")
    second = detect_errors(
        "FileNotFoundError: [Errno 2] No such file or directory: '/var/folders/9x/T/tmpzz12/data.json'"
    )
    assert first[0]["signature"] == second[0]["signature"]
    assert first[0]["error_type"] == "FileNotFoundError"
    x = normalize_signature(
        "Segfault at 0x7ffd5e8a1b20 in worker 3f2a9c1e-1b2c-4d5e-8f90-123456789abc at 2024-05-01T10:00:01Z"
    )
    y = normalize_signature("Segfault at 0x1 in worker 00000000-0000-4000-8000-000000000000 at 2025-12-31 23:59:59")
    assert x == y == "Segfault at <addr> in worker <uuid> at <ts>"
    assert normalize_signature("commit 4f9e2ab1c0 failed") == normalize_signature("commit 9a8b7c6d5e4f failed")
    assert normalize_signature("open 'tmpk3j4h5x9'") == normalize_signature("open 'tmp0a9s8d7f'")


def test_signatures_keep_what_names_the_error():
    assert normalize_signature("No module named 'foo'") != normalize_signature("No module named 'bar'")
    ts1 = detect_errors("a.ts(1,2): error TS2307: Cannot find module 'x'")[0]["signature"]
    ts2 = detect_errors("b.ts(9,9): error TS2322: Cannot find module 'x'")[0]["signature"]
    assert ts1 != ts2 and "TS2307" in ts1
    assert "E0308" in detect_errors("error[E0308]: mismatched types")[0]["signature"]
    npm_old = detect_errors("npm ERR! code E404")[0]["signature"]
    npm_new = detect_errors("npm error code E404")[0]["signature"]
    assert npm_old == npm_new


def test_same_error_once_per_text_and_capped():
    repeated = "\n".join(f"ERROR: failed to fetch item {i} from /data/{i}.json" for i in range(50))
    assert len(detect_errors(repeated)) == 1
    names = [a + b for a in "abcdefg" for b in "xyz"]
    varied = "\n".join(f"src/m{i}.c:{i}:1: error: unknown type name '{name}'" for i, name in enumerate(names))
    varied += "\nbash: rg: command not found"
    signals = detect_errors(varied)
    assert len(signals) == MAX_SIGNALS
    assert "not-found" in {s["error_type"] for s in signals}  # a flood of one kind hides no other kind


def test_long_lines_are_capped():
    [signal] = detect_errors("ERROR: " + "word " * 300)
    assert len(signal["line"]) <= 500
    assert len(signal["signature"]) <= 300


def test_large_output_with_the_error_at_the_end():
    text = "\n".join(f"compiling module {i} ok" for i in range(5000)) + "\nValueError: bad value 3\n"
    assert [s["error_type"] for s in detect_errors(text)] == ["ValueError"]

"""Errors and failures in tool output, each with a normalized signature.

Runs on every tool call, so it is built for speed and for precision: cheap
substring checks find the few candidate lines, then anchored patterns decide
what each line is. A word like "error" alone is never enough: the line must
have the shape of a real failure (a level word at its start, a test summary
with a non-zero count, a compiler diagnostic, an exception line at column 0).

The signature strips what changes between runs and machines (paths, numbers,
hashes, addresses, UUIDs, timestamps, temp names) and keeps what names the
error (exception type, module name, error code, test name), so the same error
compares equal across sessions and projects.
"""

from __future__ import annotations

import re

from automem import lazy_re as rx  # module-level patterns compile on first use

MAX_SIGNALS = 8
MAX_LINE = 500
MAX_SIGNATURE = 300
_MAX_CANDIDATES = 400  # candidate lines classified per text
_MAX_LINE_SCAN = 4000  # longer lines are data blobs (minified code), not diagnostics

# Lower-case substrings that every recognised line contains (the prefilter).
_KEYWORDS = (
    "error",
    "fail",
    "fatal",
    "exception",
    "denied",
    "not permitted",
    "not found",
    "no such file",
    "not recognized",
    "panic",
    "err!",
    "exit code",
    "exited with",
    "exit status",
)

# --- test runners -----------------------------------------------------------
_TEST_RUNNERS = (  # (kind, substrings one of which the line must hold, pattern)
    ("pytest", ("FAILED ", "ERROR "), rx.compile(r"^(?:FAILED|ERROR) \S+::\S+|^ERROR \S+\.py\b")),
    (
        "pytest",
        (" in ",),
        rx.compile(
            r"^=*[ \t]*[1-9]\d* (?:failed|errors?)\b(?:, \d+ \w+)*[ \t]+in [\d.]+s\b"
            r"|^=+ .*?\b[1-9]\d* (?:failed|errors?)\b.* in [\d.]+s\b"
        ),
    ),
    ("jest", ("Test",), rx.compile(r"^[ \t]*(?:Tests?|Test Files|Test Suites):?[ \t]+.*?\b[1-9]\d* failed\b")),
    ("jest", ("FAIL ",), rx.compile(r"^[ \t]*FAIL[ \t]+\S+\.[cm]?[jt]sx?\b")),
    ("go-test", ("FAIL",), rx.compile(r"^[ \t]*--- FAIL: \S+|^FAIL\t\S+")),
    (
        "cargo-test",
        ("FAILED", "test failed"),
        rx.compile(r"^test result: FAILED\b|^test \S+ \.\.\. FAILED$|^error: test failed\b"),
    ),
    ("node-test", ("# fail",), rx.compile(r"^# fail [1-9]\d*$")),
)
_NPM = rx.compile(r"^npm (?:ERR!|error) +\S")
_COMPILERS = (
    # gcc/clang/javac/swiftc: file:line[:col]: [fatal] error: message
    rx.compile(r"^[ \t]*[^\s:]+:\d+(?::\d+)?:[ \t]+(?:fatal )?error:[ \t]+\S"),
    # tsc: file(line,col): error TS2322: ... / file:line:col - error TS2322: ...
    rx.compile(r"^[ \t]*\S+?(?:\(\d+,\d+\)|:\d+:\d+ -):? error TS\d+: |^error TS\d+: "),
    # rustc: error[E0308]: mismatched types ; MSVC: file(12): error C2065: ...
    rx.compile(r"^error\[E\d{4}\]: \S|^\S+\(\d+\)[ \t]*: (?:fatal )?error [A-Z]+\d+: "),
    # eslint / biome style: "  12:5  error  message  rule"
    rx.compile(r"^[ \t]+\d+:\d+[ \t]+error[ \t]+\S"),
)
# An exception at column 0: Python's last traceback line, JS/Node, Java.
_EXCEPTION = rx.compile(
    r"^(?:E[ \t]+|\[|Uncaught[ \t]+|Caused by:[ \t]+|Exception in thread \"[^\"]*\"[ \t]+"
    r"|Unhandled(?: promise)? rejection:?[ \t]+)?"
    r"(?P<exc>(?:[A-Za-z_]\w*\.)*[A-Z]\w*?(?:Error|Exception|Fault))"
    r"(?:[ \t]\[\w+\])?(?::[ \t]*(?P<msg>.*?))?\]?[ \t]*$"
)
_POWERSHELL = rx.compile(r"^[ \t]*\+ FullyQualifiedErrorId : (?:[\w.,-]+,)?(?P<exc>[\w.]+?(?:Exception|Error))?\b")
_AFTER_COLON = r"(?:^[ \t]*|:[ \t]*|\b(?:code|errno)[ \t]+)"  # where a system error message starts
_PERMISSION = rx.compile(
    _AFTER_COLON + r"(?:Permission denied|PERMISSION DENIED|EACCES|EPERM|[Oo]peration not permitted"
    r"|Access is denied|Access to the path .{1,200} is denied)(?![\"'`\w])"
)
_NOT_FOUND = rx.compile(
    _AFTER_COLON + r"(?:command not found|[Nn]o such file or directory|ENOENT|[Cc]annot find the path specified"
    r"|Cannot find module '[^']+')(?![\"'`\w])"
    r"|is not recognized as (?:the name of a cmdlet|an internal or external command)"
    r"|^\S*sh: (?:line )?\d+: .+: not found$"
)
_ERROR_LINE = rx.compile(
    r"^(?P<indent>[ \t]*)"
    r"(?P<prefix>(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d[\d:.,]*(?:Z|[+-]\d\d:?\d\d)?[ \t]+)?"
    r"(?:\[[^\]\n]{1,60}\][ \t]*)*?"
    r"(?:(?P<prog>[\w.+-]{1,40}(?:\[\d+\])?):[ \t]+)?)"
    r"(?:(?P<tag>(?i:\[(?:error|fatal|err|critical|emerg)\]|<(?:error|fatal)>))"
    r"|(?P<upper>ERROR|FATAL|CRITICAL|PANIC|FATAL ERROR)(?=[:\] \t])"
    r"|(?P<lower>[Ee]rror|[Ff]atal(?: error)?|panic)(?:[ \t]?\[[\w-]+\])?:"
    r"|(?P<make>make(?:\[\d+\])?: \*\*\* .*Error \d+))"
    r"[ \t]*[:\]-]?[ \t]*(?P<msg>.*)$"
)
_NULLISH = rx.compile(
    r"^(?:0+|none|no(?:ne)? (?:errors?|issues|problems)\b.*|false|null|nil|n/?a|ok|"
    r"off|\[\]|\{\}|-+)?[ \t]*[,;.]?[ \t]*$",
    re.I,
)
_NOT_A_MESSAGE = rx.compile(r"^[=(){},.;\"|>&*#]")
_CONFIG_KEY = rx.compile(r"level|log|verbosity|severity|threshold|format|mode", re.I)
_EXIT_LINE = rx.compile(
    r"^[ \t]*(?:Exit code:?|Command exited with code|Process finished with exit code|exit status"
    r"|Process completed with exit code)[ \t]+(?P<code>-?\d+)\b"
)
_NO_DIGITS = str.maketrans("", "", "0123456789")
_TRACEBACK = "Traceback (most recent call last)"
_FILE_VIEW_LINE = rx.compile(r"^[ \t]*\d+(?:→|\t)")
_TAGS = rx.compile(r"</?[a-z_]+>")

# --- signature normalization -------------------------------------------------
_SIG_TOKENS = rx.compile(
    r"(?P<uuid>\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)"
    r"|(?P<ts>\b\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d)?(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)?\b"
    r"|\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b)"
    r"|(?P<url>\b[a-z][a-z0-9+.-]*://[^\s'\"<>)\]]+)"
    r"|(?P<quoted>(?<!\w)'[^'\n]{0,200}'(?!\w)|\"[^\"\n]{0,200}\"|`[^`\n]{0,200}`)"
    r"|(?P<winpath>\b[A-Za-z]:\\[^\s'\"<>|:*?]*)"
    r"|(?P<path>(?:~|(?<![\w.@+-])[\w.@+-]+)?(?:/[\w.@+-]+)+/?|(?<![\w/])\.{0,2}/(?=\s|$)"
    r"|(?<![\w.@+-])[\w.@+-]+\.(?:py|pyi|js|mjs|cjs|jsx|ts|tsx|go|rs|c|cc|cpp|h|hpp|java|kt|rb|php|cs|swift|sh)\b)"
    r"|(?P<addr>\b0x[0-9a-fA-F]+\b)"
    r"|(?P<hash>\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b)"
    r"|(?P<tmp>\b(?:tmp|temp)[\w-]{5,}\b|\bpytest-\d+\b)"
    r"|(?P<num>(?<![\w.])\d+(?:\.\d+)*(?:ms|us|ns|s|m|h|[kKMG]i?B|B|x|%)?(?!\w))"
)
_LOCATIONS = rx.compile(
    r"File <path>, line <n>(?:, in \S+)?"
    r"|<path>(?:(?::<n>){1,2}|\(<n>(?:,<n>)?\)|,? line <n>(?:, column <n>)?)"
)
_DECOR = rx.compile(r"[=━─_*~#-]{3,}|^[>+|×✖✗✘!]+[ \t]")


def _sig_token(match: re.Match) -> str:
    kind = match.lastgroup or ""  # every alternative of the pattern is a named group
    text = match.group(0)
    if kind == "quoted":
        inner = text[1:-1]
        if _looks_like_path(inner):
            return text[0] + "<path>" + text[-1]
        if re.fullmatch(r"(?:tmp|temp)[\w.-]*", inner, re.I):
            return text[0] + "<tmp>" + text[-1]
        return text[0] + _SIG_TOKENS.sub(_sig_token_inner, inner) + text[-1]
    if kind in ("path", "winpath"):
        return "<path>"
    return {
        "uuid": "<uuid>",
        "ts": "<ts>",
        "url": "<url>",
        "addr": "<addr>",
        "hash": "<hash>",
        "tmp": "<tmp>",
        "num": "<n>",
    }[kind]


def _sig_token_inner(match: re.Match) -> str:
    """Inside a kept quoted string: only the volatile parts, never module-like names."""
    kind = match.lastgroup
    if kind in ("path", "winpath", "quoted"):
        text = match.group(0)
        return "<path>" if _looks_like_path(text) else text
    return _sig_token(match)


def _looks_like_path(text: str) -> bool:
    return (
        text.startswith(("/", "~/", "./", "../", "\\\\"))
        or bool(re.match(r"[A-Za-z]:[\\/]", text))
        or (text.count("/") >= 2 and " " not in text)
        or bool(re.search(r"\.(?:py|js|ts|tsx|jsx|go|rs|c|h|cpp|java|rb|json|ya?ml|toml|md|txt|log|sh)$", text))
    )


def normalize_signature(text: str) -> str:
    """Volatile parts replaced by placeholders; the identity of the error kept."""
    text = text or ""
    if text.startswith("npm ERR!"):
        text = "npm error" + text[len("npm ERR!") :]
    text = _DECOR.sub(" ", text)
    text = _SIG_TOKENS.sub(_sig_token, text)
    if "<path>" in text:
        text = text.replace('"<path>"', "<path>").replace("'<path>'", "<path>")
        text = _LOCATIONS.sub("<loc>", text)
    return " ".join(text.split())[:MAX_SIGNATURE]


# --- detection --------------------------------------------------------------


def _looks_like_file_view(text: str) -> bool:
    """A numbered file listing (Claude Code Read output): content, not a failure."""
    seen = 0
    for line in text.lstrip("\n").split("\n", 6)[:5]:
        if not line.strip():
            continue
        if not _FILE_VIEW_LINE.match(line):
            return False
        seen += 1
    return seen > 0


def _candidate_lines(text: str, lower: str):
    """(start, end) of each line holding a keyword, in text order, capped."""
    starts: dict[int, int] = {}
    for keyword in _KEYWORDS:
        if keyword not in lower:
            continue
        pos = lower.find(keyword)
        while pos != -1 and len(starts) < _MAX_CANDIDATES * 2:
            start = lower.rfind("\n", 0, pos) + 1
            end = lower.find("\n", pos)
            end = len(lower) if end == -1 else end
            starts.setdefault(start, end)
            pos = lower.find(keyword, end)
    for start in sorted(starts)[:_MAX_CANDIDATES]:
        yield start, starts[start]


def _classify(line: str, has_traceback: bool) -> str | None:
    """The error type of one line, or None when it is not a failure line.

    Each family is tried only when the line holds the text it needs, so its
    pattern is compiled (and run) only when it can match.
    """
    low = line.lower()
    has_error = "error" in low
    if "fail" in low or (has_error and ("::" in line or " in " in line)):
        for kind, needles, pattern in _TEST_RUNNERS:
            if any(n in line for n in needles) and pattern.search(line):
                return kind
    if line.startswith("npm ") and _NPM.match(line):
        return "npm"
    if has_error and (": error" in line or "error TS" in line or "error[" in line or " error " in line):
        for pattern in _COMPILERS:
            if pattern.match(line):
                return "compiler"
    if "Error" in line or "Exception" in line or "Fault" in line:
        exc = _EXCEPTION.match(line)
        if exc and (exc.group("msg") or (exc.group("msg") is None and has_traceback)):
            return exc.group("exc").rsplit(".", 1)[-1]
        if "FullyQualifiedErrorId" in line:
            ps = _POWERSHELL.match(line)
            if ps:
                return ps.group("exc") or "powershell"
    if ("denied" in low or "not permitted" in low or "EACCES" in line or "EPERM" in line) and _PERMISSION.search(line):
        return "permission-denied"
    if (
        "not found" in low
        or "no such file" in low
        or "ENOENT" in line
        or "not recognized" in low
        or "annot find" in low
    ) and _NOT_FOUND.search(line):
        return "not-found"
    if (has_error or "fatal" in low or "panic" in low) and _is_error_line(line):
        return "error-line"
    return None


def _is_error_line(line: str) -> bool:
    match = _ERROR_LINE.match(line)
    if not match:
        return False
    if match.group("make"):
        return True
    msg = match.group("msg").strip()
    if not msg or _NULLISH.match(msg) or _NOT_A_MESSAGE.match(msg):
        return False
    prog = match.group("prog") or ""
    if prog and _CONFIG_KEY.search(prog):
        return False  # "log_level: ERROR ..." is configuration
    if match.group("lower") and match.group("indent") and not match.group("prefix"):
        return False  # an indented "error: ..." is a YAML/JSON key, not a diagnostic
    if match.group("lower") and not match.group("lower")[0].isupper() and msg.startswith(("'", "`")):
        return False
    return True


def _with_location(line: str, text: str, end: int) -> str:
    """The carrying line, plus the "--> file:line" that rustc prints under it."""
    next_end = text.find("\n", end + 1)
    following = text[end + 1 : next_end if next_end != -1 else len(text)].strip()
    if line.startswith("error") and following.startswith("--> "):
        return line.strip() + " " + following
    return line


def _signal(error_type: str, line: str, signature_source: str | None = None) -> dict:
    """Redact, then cut: a credential cut in half (``postgres://admin:pw`` without its ``@host``) is unrecognisable."""
    from automem.redact.fast import redact_fast

    if "\x1b" in line:
        line = _ANSI.sub("", line)
    line = redact_fast(line.strip())[:MAX_LINE]
    source = redact_fast(signature_source) if signature_source else line
    return {"error_type": error_type, "line": line, "signature": normalize_signature(source)}


_ANSI = rx.compile(  # as automem.controls.ANSI
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]"
)


def _first_line(text: str, skip: re.Pattern | None = None) -> str:
    """The first line that says something (decoration such as "════" or an ANSI-only line is passed over)."""
    for raw in text.splitlines():
        line = _TAGS.sub("", _ANSI.sub("", raw) if "\x1b" in raw else raw).strip()
        if line and not (skip and skip.match(line)) and sum(ch.isalnum() for ch in line) >= 3:
            return line
    return ""


def _fallback(text: str, is_error: bool, exit_code: int | None, exit_in_text: int | None) -> list[dict]:
    code = exit_code if exit_code else exit_in_text
    if code:
        context = _first_line(text, _EXIT_LINE)
        line = f"exit code {code}: {context}" if context else f"exit code {code}"
        signal = _signal("exit-code", line)
        signal["signature"] = f"exit code {code}: {normalize_signature(context)}".rstrip(": ")
        return [signal]
    if is_error:
        line = _first_line(text) or "(tool reported an error with no output)"
        return [_signal("tool-error", line)]
    return []


def detect_errors(text: str, *, is_error: bool = False, exit_code: int | None = None) -> list[dict]:
    """Failure signals of one tool output: [{error_type, line, signature}], at most MAX_SIGNALS."""
    text = text or ""
    if "\x1b" in text:
        text = _ANSI.sub("", text)  # colour codes would hide "Error:" at the start of a line
    lower = text.lower()
    found: list[dict] = []
    exit_in_text: int | None = None
    if any(k in lower for k in _KEYWORDS) and not _looks_like_file_view(text):
        has_traceback = _TRACEBACK in text
        signatures: set[str] = set()
        kinds: set[str] = set()
        shapes: set[str] = set()
        for start, end in _candidate_lines(text, lower):
            line = text[start:end].rstrip("\r")
            if len(line) > _MAX_LINE_SCAN:
                continue
            exit_match = _EXIT_LINE.match(line)
            if exit_match:
                if exit_in_text is None and exit_match.group("code") != "0":
                    exit_in_text = int(exit_match.group("code"))
                continue
            shape = line.translate(_NO_DIGITS).strip()
            if shape in shapes:
                continue  # the same line again with other numbers: same signature
            shapes.add(shape)
            kind = _classify(line, has_traceback)
            if kind is None or (kind == "npm" and kind in kinds):
                continue  # npm repeats one failure over many lines: keep its first
            signal = _signal(kind, _with_location(line, text, end), line)
            if signal["signature"] in signatures:
                continue
            signatures.add(signal["signature"])
            kinds.add(kind)
            found.append(signal)
    if not found:
        return _fallback(text, is_error, exit_code, exit_in_text)
    return _pick(found)


def _pick(found: list[dict]) -> list[dict]:
    """At most MAX_SIGNALS, one of each type first so a flood of one kind hides nothing."""
    if len(found) <= MAX_SIGNALS:
        return found
    chosen: list[int] = []
    types: set[str] = set()
    for i, signal in enumerate(found):
        if signal["error_type"] not in types:
            types.add(signal["error_type"])
            chosen.append(i)
    for i in range(len(found)):
        if len(chosen) >= MAX_SIGNALS:
            break
        if i not in chosen:
            chosen.append(i)
    return [found[i] for i in sorted(chosen[:MAX_SIGNALS])]


# --- answers that are not failures ------------------------------------------------------------

# A run header some harnesses put above a command's output (Codex: "Command: /bin/zsh -lc '...'" on its first line
# in some versions, "Exit code: 1", "Wall time: 0.1 seconds", "Chunk ID: ...", "Process exited with code 1",
# "Process running with session ID 42", "Original token count: ...", "Output:"): never part of an error.
_RUN_HEADER = rx.compile(
    r"^[ \t]*(?:Chunk ID:[ \t]*\S*|Wall time:[ \t]*[\d.]+[ \t]*\w*|Process exited with code[ \t]+-?\d+"
    r"|Process running with session ID[ \t]+\d+"
    r"|Original token count:[ \t]*\d+|Exit code:?[ \t]*-?\d+|Output:|Total output lines:[ \t]*\d+)[ \t]*$"
)
# the first header line after a "Command: ..." echo
_HEADER_AFTER_ECHO = rx.compile(
    r"\n(?:Chunk ID:|Wall time:|Process (?:exited with code|running with session ID)|Exit code:)"
)
_HEADER_EXIT = rx.compile(r"(?:Process exited with code|Exit code:?)[ \t]+(-?\d+)")
# programs whose exit status 1 is an answer ("no match", "they differ", "false", "not found"), not a failure
_ANSWERING = frozenset(
    {
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "ack",
        "diff",
        "cmp",
        "test",
        "[",
        "[[",
        "which",
        "where",
        "pgrep",
        "pidof",
        "comm",
        "git-grep",
        "fd",
        "type",
        "command",
        "findstr",
        "select-string",
        "test-path",
    }
)
_NO_MATCH = rx.compile(r"^\s*(?:\(no output\)|no matches(?: found)?\.?|no results(?: found)?\.?|0|)\s*$", re.I)
# a quoted string (to its end when unterminated: one pass, never a retry from each quote) or a separator
_SEGMENT = rx.compile(r"""'[^']*(?:'|$)|"(?:[^"\\]|\\.)*(?:"|$)|(&&|\|\||;|\|&|\||\n)""")
_SHELL_WRAP = rx.compile(
    r"^(?:(?:/\S*/)?env\s+)?(?:/\S*/)?(?:bash|sh|zsh)(?:\s+-[a-z]+)*\s+-l?c\s+"
    r"|^(?:pwsh|powershell)(?:\.exe)?\s+(?:-\w+\s+)*?-Command\s+|^cmd(?:\.exe)?\s+/[ck]\s+",
    re.I,
)


def _command_echo(text: str) -> int:
    """Where a Codex "Command: ..." echo ends (it may span lines: a heredoc), when a run header follows it; else 0."""
    if not text.startswith("Command: "):
        return 0
    found = _HEADER_AFTER_ECHO.search(text[:8000])
    return found.start() + 1 if found else 0


def strip_run_header(text: str) -> tuple[str, int | None]:
    """The output without a harness's run header above it, and the exit code the header named."""
    if not text:
        return "", None
    echo = _command_echo(text)
    lines = text[echo:].split("\n", 8)
    code: int | None = None
    taken = 0
    for line in lines[:8]:
        if not _RUN_HEADER.match(line):
            break
        found = _HEADER_EXIT.search(line)
        if found:
            code = int(found.group(1))
        taken += 1
    if not taken:
        return text, None
    return "\n".join(lines[taken:]), code


def _segments(command: str) -> list[tuple[str, str]]:
    """The commands of a shell line (split at separators outside quotes), each with the separator after it."""
    body = (command or "").strip()
    wrapper = _SHELL_WRAP.match(body)
    if wrapper:
        body = body[wrapper.end() :].strip()
        if len(body) > 1 and body[0] in "'\"" and body[-1] == body[0]:
            body = body[1:-1] if body[0] == "'" else body[1:-1].replace('\\"', '"')
    # split at separators outside quotes: "a | rg 'x|y'" ends with rg, not with y'
    pieces, start = [], 0
    for match in _SEGMENT.finditer(body):
        if match.group(1):
            pieces.append((body[start : match.start()], match.group(1)))
            start = match.end()
    pieces.append((body[start:], ""))
    return [(text, separator) for text, separator in pieces if text.strip()]


def _program_of(segment: str) -> tuple[str, list[str]]:
    """argv[0] (basename, lower-case) and arguments of one command, past assignments and sudo/env/time."""
    words = segment.split()
    while words and (
        "=" in words[0] and not words[0].startswith("-") or words[0] in ("sudo", "env", "time", "command")
    ):
        words.pop(0)
    if not words:
        return "", []
    program = words[0].replace("\\", "/").rsplit("/", 1)[-1].lower()
    if program == "git" and len(words) > 1 and words[1] == "grep":
        program = "git-grep"
    return program, words[1:]


def _last_program(command: str) -> tuple[str, list[str]]:
    """argv[0] (basename, lower-case) and arguments of the last command a shell line runs."""
    segments = _segments(command)
    return _program_of(segments[-1][0]) if segments else ("", [])


def is_answer_exit(command: str, exit_code: int | None, output: str) -> bool:
    """True when a non-zero exit is the command's answer, not a failure: grep/rg finding nothing, diff/cmp
    finding a difference, ``test``/``[`` being false, ``which`` not finding, ``git diff --quiet`` seeing changes."""
    if exit_code != 1:
        return False
    program, args = _last_program(command)
    body = strip_run_header(output)[0] if output else ""
    if program in ("diff", "cmp", "comm"):
        return True  # 1 means "they differ"; trouble is exit 2
    if program == "git" and args[:1] == ["diff"] and ("--quiet" in args or "--exit-code" in args):
        return True
    if program in _ANSWERING:
        return bool(_NO_MATCH.match(body)) or program in ("test", "[", "[[")
    return False


def classify_result(
    command: str, text: str, *, is_error: bool = False, exit_code: int | None = None
) -> tuple[bool, list[dict]]:
    """(failed, error signals) for one tool result: run headers stripped, answers that look like failures
    (an empty grep, a diff) not counted, timing and chunk lines never part of a signature."""
    body, header_code = strip_run_header(text or "")
    code = exit_code if exit_code is not None else header_code
    failed = is_error or code not in (None, 0)
    if not failed:
        hidden = hidden_test_failure(command, body)
        return bool(hidden), hidden
    if is_answer_exit(command, code, body):
        return False, []
    return True, detect_errors(body, is_error=True, exit_code=code)


# --- failures a pipe hid ----------------------------------------------------------------------

# a command that runs a project's tests (after assignments and a runner such as npx or uv run)
_TEST_COMMAND = rx.compile(
    r"^(?:[A-Za-z_]\w*=\S*\s+)*(?:(?:sudo|env|time|npx|bunx|pnpx|uvx|(?:uv|poetry|pipenv|pdm|hatch|rye) run)\s+)*"
    r"(?:\S*/)?(?:pytest|py\.test|python[\d.]*\s+-m\s+(?:pytest|unittest)|cargo\s+(?:test|nextest)|go\s+test"
    r"|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test[\w:-]*|jest|vitest|mocha|deno\s+test|make\s+test[\w-]*"
    r"|dotnet\s+test|mvn\s+test|gradlew?\s+test|tox|nox)(?![\w.-])"
)
# programs that pass on part of the output and exit with their own status
_OUTPUT_FILTERS = frozenset({"tail", "head", "tee", "grep", "egrep", "rg"})
# error types that only a test run or a build failing prints: never a passing run's log line
_RUN_FAILURES = frozenset({"pytest", "jest", "go-test", "cargo-test", "node-test", "compiler"})


def hidden_test_failure(command: str, output: str) -> list[dict]:
    """The failure lines of a test run piped into tail/head/grep (``cargo test 2>&1 | tail -20``): the pipe's status
    is the filter's, so the call exits 0 though the tests failed; [] when nothing hid one."""
    if "|" not in (command or ""):
        return []
    segments = _segments(command)
    piped = any(
        separator in ("|", "|&") and _TEST_COMMAND.match(text.strip()) and _program_of(after)[0] in _OUTPUT_FILTERS
        for (text, separator), (after, _) in zip(segments, segments[1:], strict=False)
    )
    if not piped:
        return []
    found = detect_errors(output)
    return found if any(e["error_type"] in _RUN_FAILURES for e in found) else []

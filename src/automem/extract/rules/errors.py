"""Lessons from failed tool calls: verified fixes, repeated errors, missing programs and modules.

A fix is never assumed from "the next call that worked": it is a later successful call with the
same intent (extract/intent.py), and the lesson says what differed. A single failure is a memory
only when such a fix names its difference, or when the error itself states a durable fact about
the machine (a program that is not installed, a package that is missing) and nothing later in the
session contradicts it. The same error twice or more is a pattern, resolved or not.
"""

from __future__ import annotations

import re
from collections import Counter

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.extract import phrasing
from automem.extract.intent import (
    Command,
    Difference,
    Intent,
    difference,
    edited_files,
    installed_names,
    installs_dependencies,
    is_install,
    is_probe,
    same_intent,
)
from automem.extract.rules import Session, machine
from automem.extract.steps import Step
from automem.schema import TOOL_PROTOCOL, VERIFIED_FIX, Candidate

WINDOW = 40  # steps after a failure in which its fix must come
SLIP_PATTERN_MIN = 3  # a tool-call slip is a lesson only when it keeps happening

_SLIP = rx.compile(
    r"InputValidationError|required parameter|Cancelled: parallel tool call|Permission for this tool use was denied"
    r"|haven't granted it yet|Could not find the exact text|String to replace not found|No changes made to"
    r"|replacement produced identical|old_string|Command aborted|aborted by user|Path does not exist: https?:"
    r"|Too Many Requests|\b429\b|rate.?limit|Request interrupted|hit your (?:usage )?limit|unexpected EOF|unterminated"
    r"|here-document|literal \"\\\\n\" is not allowed|syntax error near unexpected|File has not been read yet"
    r"|Failed to find expected lines|patch (?:does not apply|failed)|Invalid patch|tool_use_error"
    r"|File content \(\d+ tokens\) exceeds|exceeds maximum allowed (?:tokens|size)"
    # git with nothing staged: the commit came before its `git add`, the order of the work
    r"|nothing (?:added )?to commit|no changes added to commit",
    re.I,
)
_INLINE_CODE = rx.compile(r"\b(?:node|deno|bun)\s+(?:-e|--eval|-p)\b|\bpython[\d.]*\s+(?:-c\b|-\s*<<)|<<\s*['\"]?\w+")
_CONTEXT_MISMATCH = rx.compile(
    r"Failed to find expected lines|Could not find the exact text|String to replace not found"
    r"|old_string|patch does not apply",
    re.I,
)
_PROTOCOL = rx.compile(
    r"File has not been read yet|Failed to find expected lines|exceeds maximum allowed|File content \(", re.I
)
# Claude Code wraps what its own tool layer refuses (a file not read yet, a cancelled parallel call, bad input) in this
_HARNESS_REFUSAL = rx.compile(r"^\s*<tool_use_error>")
# a path the project lacks: what the user's world says, whoever reports it
_MISSING_PATH = rx.compile(r"No such file|not found|does not exist|cannot access|ENOENT|is a directory", re.I)


def harness_protocol(step: Step) -> bool:
    """Did the agent's harness refuse the call by its own rules (read before edit, a size limit, a patch whose context
    is gone) rather than a program of the project fail? Such a rule holds in every project and its error says what
    to do: a lesson about the agent's tools, not about the user's work."""
    text = _error_text(step)
    if _PROTOCOL.search(text) or _CONTEXT_MISMATCH.search(text):
        return True
    # the wrapper also carries what the project's layout says ("File does not exist"): that is the user's world
    return bool(_HARNESS_REFUSAL.match(step.result_head)) and not _MISSING_PATH.search(text)


_BARE = rx.compile(
    r"^(?:exit code -?\d+|command exited with code \d+|error|\(tool reported an error with no output\))$", re.I
)
_VOLATILE = rx.compile(r"\[[^\]]*\]|\"[^\"]*\"|'[^']*'|`[^`]*`|<[a-z]+>|\d+")
_MISSING = (
    rx.compile(r"(?:^|[\s:])([\w.+-]+): (?:command not found|not found)$", re.M),
    rx.compile(r"command not found: ([\w.+-]+)"),
    rx.compile(r"The term '([\w.+-]+)' is not recognized"),
    rx.compile(r"'([\w.+-]+)' is not recognized as an internal or external command"),
    rx.compile(r"^which: no ([\w.+-]+) in", re.M),
    rx.compile(r"(?:^|\s)([\w.+-]+): No such file or directory$", re.M),
    rx.compile(r"failed to run command '([\w.+-]+)': No such file or directory"),  # nohup
    rx.compile(r"exec: \"([\w.+-]+)\": executable file not found"),
)
_MODULE = rx.compile(r"Cannot find module '([^']+)'|No module named '?([\w.]+)'?|Could not resolve \"([^\"]+)\"")
_PATH_IN = rx.compile(r"[\w.-]*/[\w./-]+|\b[\w-]+\.(?:py|js|ts|tsx|jsx|json|md|sh|rs|go|java|kt|rb|toml|ya?ml)\b")


def cluster(signature: str) -> str:
    """Errors that differ only in quoted text, numbers or paths fall in one cluster."""
    text = " ".join(_VOLATILE.sub("…", signature).split()).lower()
    return text if len(text) <= 64 else text[:64].rsplit(" ", 1)[0]


def cluster_of(step: Step) -> str:
    return cluster(step.errors[0]["signature"]) if step.errors else ""


def _error_text(step: Step) -> str:
    return "\n".join(e.get("line", "") for e in step.errors) + "\n" + step.result_head


_REASON = rx.compile(
    r"not allowed|denied|not permitted|refused|cannot|can't|unable to|invalid|missing|failed to|not found"
    r"|no such|does not exist|not supported|requires?|must|should|expect(?:s|ed)|could not|couldn't"
    r"|incompatible|conflict"
    r"|(?-i:\bE(?:RESOLVE|ACCES|NOENT|ADDRINUSE|CONNREFUSED|TIMEDOUT|PERM|NOTFOUND|INTEGRITY)\b)",
    re.I,
)


def named(step: Step) -> bool:
    """Does the error say what went wrong (a type, a reason), beyond an exit status and the first output line?"""
    return any(
        e.get("error_type") not in ("exit-code", "tool-error") or _REASON.search(e.get("line", "")) for e in step.errors
    )


_PLACEHOLDER_OR_PATH = rx.compile(r"<\w+>|\S*/\S*")
_LETTER_WORD = rx.compile(r"[^\W\d_]{3,}")


def _says_little(signature: str) -> bool:
    words = _LETTER_WORD.findall(_PLACEHOLDER_OR_PATH.sub(" ", signature.removeprefix("exit code")))
    return len(words) < 2


_TIMED_OUT = rx.compile(r"\btimed out\b|\btimeout\b", re.I)


def is_slip(step: Step) -> bool:
    """A tool-call slip or transient noise: never a lesson on its own."""
    from automem.extract.intent import intent_of

    if not step.errors or all(
        _BARE.match(e.get("signature", "").strip()) or _says_little(e.get("signature", "")) for e in step.errors
    ):
        return True  # nothing names the failure
    if _SLIP.search(step.result_head) or all(_SLIP.search(e.get("line", "")) for e in step.errors):
        return True
    intent = intent_of(step.tool, step.input)
    if _INLINE_CODE.search(step.input) and re.search(
        r"\b(?:Syntax|Reference|Name|Type|Indentation)Error\b", _error_text(step)
    ):
        return True  # the agent's own throwaway script (node -e, python -c, a heredoc) had a bug
    if _TIMED_OUT.search(_error_text(step)):
        return True  # how long something took says little on its own
    if intent.read_only() and _MISSING_PATH.search(_error_text(step)):
        return True  # looking for a path that is not there is exploration
    return False


def is_failure(step: Step) -> bool:
    return step.kind == "action" and not step.ok and bool(step.errors)


def failures(session: Session) -> list[int]:
    return [i for i, s in enumerate(session.steps) if is_failure(s)]


def verified_fix(session: Session, index: int, *, through_user: bool = False) -> tuple[int, list[Intent]] | None:
    """The later successful call with the failed call's intent, and the successful calls made in between.

    A call sent to the background (``cmd &``, ``nohup``) proves nothing by succeeding: it was only started. Unless
    ``through_user``, a correction by the user ends the search: what follows is their fix, not one the agent found.
    """
    steps = session.steps
    failed = session.intent(index)
    between: list[Intent] = []
    for j in range(index + 1, min(len(steps), index + WINDOW)):
        step = steps[j]
        if step.kind == "prompt":
            if not through_user and (
                step.after_interrupt or any(f.get("feedback") == "correction" for f in step.feedback)
            ):
                return None
            continue
        if step.kind != "action":
            continue
        later = session.intent(j)
        if step.ok and same_intent(failed, later) and not _backgrounded(later, failed):
            return j, between
        if step.ok:
            between.append(later)
    return None


def repairs_own_edit(session: Session, index: int, fix_index: int) -> bool:
    """Does a change made between the failure and its fix, in the failure's turn, go back to a file the agent had
    edited earlier in that same turn? Then the agent broke its own work and mended it (an import its edit removed,
    a name it renamed): the turn's work, not something a later session needs to know."""
    steps = session.steps
    turn = steps[index].turn
    earlier: set[str] = set()
    for j in range(index - 1, -1, -1):
        step = steps[j]
        if step.kind == "prompt" or step.turn != turn:
            break
        if step.kind == "action" and step.ok:
            earlier.update(edited_files(session.intent(j)))
    if not earlier:
        return False
    for j in range(index + 1, fix_index):
        step = steps[j]
        if step.kind == "prompt" or step.turn != turn:
            break
        if step.kind == "action" and step.ok and earlier & set(edited_files(session.intent(j))):
            return True
    return False


def _backgrounded(later: Intent, failed: Intent) -> bool:
    main = failed.main
    return any(c.background for c in later.commands if main is not None and c.program == main.program)


def _run_differently(session: Session, indexes: list[int]) -> bool:
    """Was an import failure got past by running the same call differently (an env var, a flag, a folder)?"""
    explained = explained_fix(session, indexes)
    return explained is not None and explained[2].kind in ("env", "flag", "cwd", "escalated")


def confirmed_after(session: Session, index: int) -> bool:
    """Did the user's next prompt after this call confirm the work ("perfect", "that works")?"""
    for step in session.steps[index + 1 :]:
        if step.kind == "prompt":
            return any(f.get("feedback") == "confirmation" for f in step.feedback)
    return False


def explained_fix(
    session: Session, indexes: list[int], *, through_user: bool = False
) -> tuple[int, int, Difference] | None:
    """(failure, fix, difference) for the first failure of a cluster whose fix names what changed."""
    for index in indexes:
        found = verified_fix(session, index, through_user=through_user)
        if found is None:
            continue
        fix_index, between = found
        step, fix = session.steps[index], session.steps[fix_index]
        diff = difference(
            session.intent(index),
            session.intent(fix_index),
            failed_escalated=step.escalated,
            fix_escalated=fix.escalated,
            between=between,
            error=_error_text(step),
        )
        if diff and not (diff.kind == "cwd" and _outside_project(diff.text.removeprefix("from "), session.root)):
            return index, fix_index, diff
    return None


# a folder said as this machine's, not the project's: an absolute path, a home's, a parent's, a Windows drive's
_ELSEWHERE = rx.compile(r"^(?:/|~|%USERPROFILE%|\.\.(?:/|$)|[A-Za-z]:)")


def _outside_project(folder: str, root: str) -> bool:
    """Is the folder a call worked from outside the project (`cd ~/other-repo && npm test`)? The call then ran in
    another project, so it says nothing of where to run it in this one."""
    from automem.extract.usable import generalize

    return bool(_ELSEWHERE.match(generalize(folder, root).replace("\\", "/")))


def _name(session: Session, index: int) -> str:
    step = session.steps[index]
    intent = session.intent(index)
    if intent.kind == "shell" and intent.main is not None:
        name = intent.main.name()
        return name if any(ch.isalnum() for ch in name) else ""  # a lesson about a call it cannot name says nothing
    tool = "apply_patch" if intent.tool == "apply_patch" else step.tool
    if intent.kind in ("edit", "read") and intent.targets and _scope(step, intent) == "project":
        return f"{tool} of {intent.targets[0].rsplit('/', 1)[-1]}"
    return tool or "the call"


def _line(step: Step) -> str:
    """The error line that says most: one naming a reason when there is one, else the first."""
    lines = [e.get("line", "") for e in step.errors] or [step.result_head]
    best = next((line for line in lines + step.result_head.splitlines()[:6] if _REASON_TAIL.search(line)), lines[0])
    best = _SHELL_AT.sub(r"\1:", " ".join(best.split()))
    return _WHICH_LISTING.sub(r"\1 the PATH", best)[:240]


# "/data/data/com.termux/files/usr/bin/bash: line 4: ssh: command not found": the shell, not where it is installed
_SHELL_AT = rx.compile(r"(?<![\w/])/[\w./+-]*/bin/((?:ba|z|da|k)?sh):")


# "which: no deno in (/usr/bin:~/.local/share/mise/installs/node/25.0.0/bin)": the folders are the machine's setup
# of the day, not what failed; a listing the output cut short has no closing parenthesis
_WHICH_LISTING = rx.compile(r"\b(which: no [\w.+-]+ in) \([^)]*\)?")


_REASON_TAIL = rx.compile(
    r"(?:[\w ]{0,40}\bis not allowed|[\w ]{0,40}\bis denied|Operation not permitted|Permission denied|No such file "
    r"or directory|command not found|Connection refused"
    r"|Could not resolve host[^\n]*|Read-only file system|not a git repository|Address already in use|ENOTFOUND[^\n]*"
    r"|EADDRINUSE[^\n]*|Unable to create [^\n]*?\.lock|cannot lock ref[^:\n]*|Could not read from remote repository)",
    re.I,
)


# a Rust I/O error printed as a value: `Io(Custom { kind: Other, error: "windows sandbox: ..." })` -> its message
_IO_ERROR = rx.compile(r"\b\w+\(Custom \{ kind: \w+, error: \"([^\"]+)\" \}\)")
# an output line that opens by saying it is an error: "execution error: ...", "fatal: ...", "runner error: ..."
_SAYS_ERROR = rx.compile(r"^(?:[\w -]{0,30}\b(?:error|fatal|failed)\b\s*:)", re.I)


_QUOTED_PROGRAM = rx.compile(r"^([\w.-]+)['\"](?=\s)")
# cmd's long way of saying a program is not there
_CMD_NOT_RECOGNIZED = rx.compile(
    r"is not recognized as an internal or external command,?(?: operable program or batch file\.?)?"
)
_EXIT_CODE_LINE = rx.compile(r"^exit code (-?\d+)(?::\s*(.*))?$")


def _gist(line: str, room: int = 60) -> str:
    """The part of an error line that names the failure, short: "TypeError: x is not a function", "Operation not
    permitted"."""
    text = _IO_ERROR.sub(r"\1", " ".join((line or "").split())).strip("[]'\" ")
    text = _QUOTED_PROGRAM.sub(r"\1", text)  # "'vitest' is not recognized": no quote left open
    text = _CMD_NOT_RECOGNIZED.sub("is not recognized as a command", text)
    bare = _EXIT_CODE_LINE.match(text)
    if bare:
        rest = bare.group(2) or ""
        if not (_REASON.search(rest) or _REASON_TAIL.search(rest) or _SAYS_ERROR.match(rest)):
            return f"exit code {bare.group(1)}"  # the first output line is not the error
        text = rest
    text = re.sub(r"^\S+\s+\|\s+", "", text)  # "service-1  | Error: ..." (a compose log prefix)
    typed = re.search(
        r"\b([A-Z][a-z]+(?:[A-Z][a-z]+)*(?:Error|Exception)|E(?!RROR\b)[A-Z]{3,9}|TS\d{4})\b:?\s*(.*)", text
    )
    reason = _REASON_TAIL.search(text)
    if typed and reason and not typed.group(2):
        typed = None  # "SecurityException" alone says less than "registry access is not allowed"
    if typed:
        full = f"{typed.group(1)}: {typed.group(2)}".rstrip(": ")
        if len(full) <= room:
            return full
        message = phrasing.fit(re.split(r"[.;]\s|\s[\"'(]", typed.group(2))[0], room)
        return message if len(message) >= 16 and not message.endswith("…") else typed.group(1)
    tail = _REASON_TAIL.search(text)
    if tail:
        return tail.group(0).strip()[:room]
    return phrasing.error_gist(text, room)


_PATH_NAMED = rx.compile(r"(?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]+)*|\.[\w-]+/[\w./-]+")


def _protected_place(line: str) -> str:
    """Where a permission error happened, as the folder a rule can name: ".git", "./.codex", "~/Library"."""
    from automem.extract.usable import generalize

    for path in _PATH_NAMED.findall(generalize(line)):
        dotted = next((p for p in path.split("/") if p.startswith(".") and p not in (".", "..")), "")
        if dotted:
            return dotted  # .git, .codex, .ssh: the tool's own folder is what the sandbox guards
    return ""


# a process id is this run's: the lesson is to stop the process, whichever id it has next time
_PID = rx.compile(
    r"\b((?:kill|pkill|taskkill|stop-process)\b(?:\s+(?:--?[A-Za-z]\S*|-\d+(?=\s+-?\d)|--|/\S+))*\s+)-?\d+(?:\s+-?\d+)*",
    re.I,
)


def _without_pid(text: str) -> str:
    return _PID.sub(r"\g<1><pid>", text)


# a step that repaired the state that failed, once: a stale process stopped, a file made executable or removed, a
# folder made, the branch pulled, stashed or pushed, git configured (the program also named by its path, as a
# virtual environment's `.venv/bin/pip install`). The next call finds the state repaired; what
# was learned is a state of that moment, not something to do every time (unlike `nvm use 20` or starting a service)
_REPAIRS_STATE = rx.compile(
    r"^(?:after )?`?(?:sudo\s+)?(?:[\w.~-]*/)*(?:kill|pkill|killall|taskkill|stop-process|fuser -k"
    r"|chmod|chown|rm|rmdir|del|remove-item|mkdir|md|new-item|touch|mv|ln|unlink"
    # a file copied into place ("cp .env.example .env"): there from now on, and copied again it would overwrite edits
    r"|cp|copy|copy-item|xcopy|robocopy"
    r"|git (?:stash|pull|fetch|config|push|add|commit|checkout|switch|reset|restore|rebase|merge|init|remote|clean"
    r"|rm|branch|tag|worktree|submodule)"
    r"|docker(?:-compose| compose| container)? (?:rm|stop|kill|down|prune)|docker system prune"
    r"|(?:npm|pnpm|yarn) cache|ssh-keygen|ssh-add|terraform force-unlock"
    # logged in, a host key taken: kept until it expires, no step to run before every call
    r"|(?:echo\s+\S+\s*\|\s*)?(?:docker|podman|helm|npm|pnpm|yarn|gh(?: auth)?|gcloud auth|az|firebase|vercel|heroku"
    r"|netlify|flyctl|fly|wrangler|aws sso|aws ecr get-login-password|huggingface-cli|supabase|railway) login"
    r"|ssh-keyscan"
    # a database created, dropped, reset or marked migrated: done once (and stamping or resetting again loses data)
    r"|createdb|dropdb|alembic stamp|(?:npx |pnpm |bunx )?prisma (?:migrate (?:reset|resolve)|db push)"
    r"|(?:rails|rake) db:(?:create|drop|reset|setup|schema:load)|flyway (?:repair|baseline)"
    r"|(?:python3? )?manage\.py (?:flush|migrate\s+\S*\s*--fake)"
    # a dependency installed or added: the project has it from now on
    r"|(?:npm|pnpm|yarn|bun) (?:install|i|add|ci)|(?:python3? -m )?pip3? install|uv (?:add|sync|pip install)"
    r"|poetry (?:add|install)|pipenv (?:install|sync)|pdm (?:add|install|sync)"
    r"|cargo (?:add|fetch)|go (?:get|mod download|mod tidy)|bundle (?:add|install)"
    r"|gem install|composer (?:require|install))\b",
    re.I,
)


def _fixed_summary(name: str, diff: Difference, line: str) -> str:
    gist = _gist(line, 48)
    if diff.kind == "escalated":
        place = _protected_place(line)
        where = f" to write in {place}" if place else ""
        return phrasing.fit(f"{name} needs escalated sandbox permissions{where} here: {gist} otherwise")
    if diff.kind == "tool":
        return phrasing.fit(f'{name} fails with "{gist}" here; {diff.text} worked')
    if diff.kind == "before" and diff.text.startswith("after reading"):
        return phrasing.fit(f'{name} needs the file read first in the session: "{gist}" otherwise')
    if diff.kind == "before":
        step = _without_pid(diff.text.removeprefix("after ").strip("`"))
        return phrasing.fit(f"{name} works only after `{step}`: {gist} otherwise")
    if diff.kind == "cwd":
        return phrasing.fit(f"{name} must run {diff.text}: {gist} otherwise")
    if diff.kind == "edit":
        return phrasing.fit(f'{name} fails with "{gist}" until {diff.text.removeprefix("after editing ")} is fixed')
    if diff.kind == "path":
        return phrasing.fit(f"{diff.text} is not writable here ({gist}); {name} worked writing elsewhere")
    return phrasing.needs_summary(name, diff.text.removeprefix("with "), line)


def _done(diff: Difference) -> str:
    """What the call that worked did differently, as words after "ran": "--jobs=1", "writing outside /tmp"."""
    return f"writing outside {diff.text}" if diff.kind == "path" else diff.text


def _unwritable_how(name: str, diff: Difference) -> str:
    return f"Have {name} write outside {diff.text} here; another folder worked." if diff.kind == "path" else ""


_HEREDOC = rx.compile(r"<<-?\s*(['\"]?)(\w+)\1")
_LONG_QUOTED = rx.compile(
    r"(?<![^\s=])(\")([^\"]{48,})(?:\"|$)|(?<![^\s=])(')([^']{48,})(?:'|$)"
)  # closed, or cut before it closed
_SPILLED = rx.compile(r"\S*/tool-results/\S+")
COMMAND_MAX = 120


def command_gist(text: str, limit: int = COMMAND_MAX, focus: str = "") -> str:
    """A call as a memory quotes it: the program, its subcommand and flags, not the script or spec it was handed.

    A heredoc is cut at its marker ("python - <<'PY' …"), the comments of a script go and its lines are joined as
    the shell reads them (``a; b``), a long quoted argument (a pasted spec) keeps its first words, a spilled
    tool-output file is named as such. A line still too long sheds what only trims the output it shows
    (``2>&1 | tail -8``), then keeps the command that matters (``focus``, a program's name, else the first that is
    not a look) with the ``cd`` before it, and the whole is capped on a word boundary.
    """
    if "\n" in text:
        text = _script_lines(text)
    text = " ".join(text.split())
    heredoc = _HEREDOC.search(text)
    if heredoc:
        text = text[: heredoc.end()] + " … (inline script)"
    text = _LONG_QUOTED.sub(
        lambda m: (q := m.group(1) or m.group(3)) + (m.group(2) or m.group(4))[:28].rstrip() + "…" + q, text
    )
    text = _SPILLED.sub("<saved tool output>", text)
    if len(text) > limit:
        text = _OUTPUT_TRIM.sub("", text).strip()
    if len(text) > limit and not heredoc:
        text = _one_command(text, focus) or text
    if len(text) > limit:
        cut = text[:limit].rsplit(" ", 1)[0]
        text = (cut if len(cut) > limit // 2 else text[:limit]) + " …"
    return text


# what only trims or hides the output a call shows: it changes nothing of what the call does
_OUTPUT_TRIM = rx.compile(
    r"\s+\|\s*(?:tail|head)(?:\s+-n)?(?:\s+-?\d+)?(?=\s*(?:$|[;&|)]))|\s+[12]?>&[12]|\s+[12]?>\s*/dev/null"
)


def _script_lines(text: str) -> str:
    """A script's lines as one command line: comments out, each line ended as the shell ends it (``;``), a line
    continuation or an open ``&&``/``|`` joined with the next. From a heredoc's marker on the text is left as it is
    (the gist cuts it there)."""
    lines: list[str] = []
    joined = True  # the next line continues the last one
    rows = text.splitlines()
    for at, row in enumerate(rows):
        line = _without_comment(row).rstrip()
        if not line.strip():
            continue
        if lines and not joined:
            lines[-1] += ";"
        if _HEREDOC.search(line):
            return " ".join([*lines, row, *rows[at + 1 :]])
        joined = line.endswith(("\\", "&&", "||", "|", ";", "{", "(")) or bool(re.search(r"\b(?:then|do|else)$", line))
        lines.append(line.removesuffix("\\"))
    return " ".join(lines)


def _without_comment(line: str) -> str:
    """A shell line without its ``# comment`` (a ``#`` inside quotes or a word, as in ``a#b`` or ``$#``, stays)."""
    quote = ""
    for at, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (at == 0 or line[at - 1] in " \t;&|("):
            return line[:at]
    return line


def _one_command(text: str, focus: str = "") -> str:
    """The command of a long command line that matters, after the ``cd`` that put it in its folder: the one running
    ``focus`` when given, else the first that is not a look; "…" marks the commands left out around it. "" when the
    line is one command."""
    from automem.extract.intent import is_look, parse_command_line

    commands, cwd = parse_command_line(text)
    if len(commands) < 2 and not cwd:
        return ""
    chosen = next((c for c in commands if focus and c.program == focus.lower()), None)
    if chosen is None:
        chosen = next((c for c in commands if not is_look(c)), commands[0] if commands else None)
    if chosen is None or not chosen.text:
        return ""
    at = commands.index(chosen)
    body = ("… " if at > 0 else "") + chosen.text.strip() + (" …" if at < len(commands) - 1 else "")
    lead = f"cd {cwd} && " if cwd and not chosen.text.strip().startswith("cd ") else ""
    return lead + body if len(lead + body) < len(text) else ""


def _command_text(step: Step | None, focus: str = "") -> str:
    from automem.extract.intent import unwrap
    from automem.extract.usable import generalize

    if step is None:
        return ""
    # machine folders shortened before the length is weighed (the project's own folder is made ./ later)
    return command_gist(generalize(unwrap(step.raw or step.input)), focus=focus)


def _scope(step: Step, intent: Intent) -> str:
    """A built-in tool's slip that names no file of the project holds everywhere; anything else is this project's."""
    if intent.kind in ("edit", "read") and not _PATH_IN.search(" ".join(e.get("line", "") for e in step.errors)):
        return "global"
    return "project"


def _clusters(session: Session) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for i in failures(session):
        groups.setdefault(cluster_of(session.steps[i]), []).append(i)
    return groups


_PROBES = frozenset({"which", "where", "get-command", "type", "command", "whereis"})


def _run_programs(intent: Intent) -> set[str]:
    """The programs a call ran, its runners included (``npx tsc`` runs npx as well as tsc)."""
    runners = {c.runner.split()[0] for c in intent.commands if c.runner and not c.runner.endswith("/")}
    return set(intent.programs) | runners


def missing_name(session: Session, index: int) -> str:
    """The program a failure says is not there, when the call really ran it (or looked it up)."""
    step = session.steps[index]
    intent = session.intent(index)
    looked_up = {a.lower() for c in intent.commands if c.program in _PROBES for a in c.positional}
    text = _error_text(step)
    for pattern in _MISSING:
        for match in pattern.finditer(text):
            name = match.group(1).lower()
            if name in _run_programs(intent) or name in looked_up:
                return name
    shell = _SHELL_SAYS.search(text)  # "bash: X: command not found" from inside a script or job the call ran
    if shell and re.fullmatch(r"[a-z][\w.+-]{1,40}", shell.group(1) or shell.group(2) or ""):
        return (shell.group(1) or shell.group(2)).lower()
    return ""


_SHELL_SAYS = rx.compile(
    r"\b(?:ba|z|da|k)?sh: (?:line \d+: )?([A-Za-z][\w.+-]*): command not found"
    r"|(?:\bzsh:\d*:?|\(eval\):\d+:) command not found: ([A-Za-z][\w.+-]*)"  # (eval): Claude Code's zsh on a Mac
)


def repeated_error_rule(session: Session) -> list[Candidate]:
    """The same error twice or more in a session: a pattern, with its verified fix when there is one."""
    out: list[Candidate] = []
    for key, indexes in _clusters(session).items():
        first = session.steps[indexes[0]]
        if missing_name(session, indexes[0]) or (
            _MODULE.search(_error_text(first)) and not _run_differently(session, indexes)
        ):
            continue  # missing programs and modules have rules of their own
        count = len(indexes) + session.prior_clusters.get(key, 0)
        slip = is_slip(first)
        if slip and not (_PROTOCOL.search(_error_text(first)) and count >= 2):
            continue
        if count < 2:
            continue
        explained = explained_fix(session, indexes, through_user=True)
        if slip and count < SLIP_PATTERN_MIN and not explained:
            continue  # a slip made twice is a lesson only when the way around it is known
        at = explained[0] if explained else indexes[0]
        line = _line(session.steps[at])
        name = _name(session, at)
        if not name:
            continue
        intent = session.intent(at)
        diff = explained[2] if explained else Difference("", "")
        fix_step = session.steps[explained[1]] if explained else None
        earlier = " (also in earlier sessions)" if session.prior_clusters.get(key) else ""
        passed_later = (
            explained is not None
            or verified_fix(session, indexes[-1], through_user=True) is not None
            or _ran_again_fine(session, indexes)
        )
        mismatch = diff.kind == "before" and _CONTEXT_MISMATCH.search(line)
        protocol = harness_protocol(first)
        if mismatch:
            summary = phrasing.fit(
                f'{name} fails with "{mismatch.group(0)}" ({count}x); re-read the exact lines right before patching'
            )
            content = (
                f"{first.tool} failed {count} times{earlier} with: {line}\n"
                f"It went through once the lines were read again just before: `{_command_text(fix_step)}`"
            )
            how = "Read the lines you are about to change right before the edit; do not patch from an old read."
        elif diff:
            summary = _fixed_summary(name, diff, line)
            content = (
                f"{first.tool} failed {count} times{earlier} with: {line}\n"
                f"What worked: `{_command_text(fix_step)}` ({_done(diff)})."
            )
            how = _unwritable_how(name, diff) or f"Do it that way from the start: {diff.text}."
        elif passed_later and not earlier:
            continue  # it went away for a reason the session never named: nothing a later session can act on
        elif passed_later:
            summary = phrasing.fit(
                f'{name} fails with "{_gist(line, 56)}" ({count}x) here; it passed later, '
                "for a reason the session did not name"
            )
            content = f"{first.tool} failed {count} times{earlier} with: {line}\nFailing call: `{_command_text(first)}`"
            how = "Expect this failure here; look for its cause before retrying the same call."
        else:
            summary = phrasing.fit(f'{name} fails with "{_gist(line, 56)}" ({count}x); not resolved in the session')
            content = f"{first.tool} failed {count} times{earlier} with: {line}\nFailing call: `{_command_text(first)}`"
            how = "Expect this failure here; look for its cause before retrying the same call."
        out.append(
            Candidate(
                kind="pattern",
                summary=summary,
                content=content,
                why=f"The same error came back {count} times"
                + (f"; it stopped once the call ran {_done(diff)}" if diff else "")
                + ".",
                how_to_apply=how,
                signals=["error"]
                + (["confirmation"] if explained and confirmed_after(session, explained[1]) else [])
                + ([TOOL_PROTOCOL] if protocol else []),
                scope=_scope(first, intent),
                weight=3.0 if diff else 2.0,
                promotion=VERIFIED_FIX
                if diff
                and not mismatch
                and not protocol
                and lasting_fix(diff)
                and (count >= SLIP_PATTERN_MIN or not self_taught(line, session.steps[at], diff))
                else "",
            )
        )
    return out


_CMDLET = rx.compile(
    r"^(?:get|set|new|remove|select|where|foreach|convertfrom|convertto|test|write|out|invoke|start|stop|import|export"
    r"|add|clear|copy|move|rename|join|split|measure|sort|format|resolve|expand|compress|read|update)-[a-z]+$"
)


def _ran_again_fine(session: Session, indexes: list[int]) -> bool:
    """Did a call of the cluster (program and subcommand, looks too) succeed after its last failure? `git status`,
    `git diff`, `git log` failing "not a git repository", then `git init` and `git status` fine: resolved."""
    calls = {(m.program, m.subcommand) for i in indexes if (m := session.intent(i).main) is not None and m.program}
    for j in range(indexes[-1] + 1, len(session.steps)):
        step = session.steps[j]
        main = session.intent(j).main if step.kind == "action" and step.ok else None
        if main is not None and (main.program, main.subcommand) in calls:
            return True
    return False


def fixed_error_rule(session: Session) -> list[Candidate]:
    """A single failure that the same intent, done differently, got past: the difference is the lesson."""
    out: list[Candidate] = []
    for key, indexes in _clusters(session).items():
        if len(indexes) != 1 or session.prior_clusters.get(key):
            continue
        index = indexes[0]
        step = session.steps[index]
        if is_slip(step) or not named(step) or missing_name(session, index):
            continue
        if _MODULE.search(_error_text(step)) and not _run_differently(session, [index]):
            continue  # a missing package: missing_module_rule says it better
        explained = explained_fix(session, [index])
        if explained is None:
            continue
        _at, fix_index, diff = explained
        if diff.kind == "edit" and repairs_own_edit(session, index, fix_index):
            continue  # the file the fix edited is one the agent had just changed: its own slip, mended
        line = _line(step)
        if diff.kind == "before" and _REFUSED.search(line) and is_probe(session.intent(index)):
            continue  # `curl localhost:3000` refused until the session started its server: the work, no lesson
        fix = session.steps[fix_index]
        name = _name(session, index)
        if not name:
            continue
        out.append(
            Candidate(
                kind="observation",
                summary=_fixed_summary(name, diff, line),
                content=f"`{_command_text(step)}` failed: {line}\nWhat worked: `{_command_text(fix)}` ({_done(diff)}).",
                why="The same call failed, then worked once it ran " + _done(diff) + ".",
                how_to_apply=_unwritable_how(name, diff)
                or (
                    f"Run `{diff.text} {name}` from the start here."  # the variable goes before the command
                    if _ENV_SETTING.match(diff.text)
                    else f"Run {name} {_without_pid(diff.text)} from the start here."
                ),
                signals=["error"] + (["confirmation"] if confirmed_after(session, fix_index) else []),
                scope=_scope(step, session.intent(index)),
                weight=2.2,
                promotion=""
                if self_taught(line, step, diff) or not lasting_fix(diff) or _BUSY.search(line)
                else VERIFIED_FIX,
            )
        )
    return out


# something else held the port or the lock at that moment: the way round it (another port, waiting) is of that
# moment too, stored but not promoted until another session meets it again
_BUSY = rx.compile(
    r"EADDRINUSE|address already in use|port \d+ is (?:already )?in use|Could not get lock|is locked by another"
    r"|acquiring the state lock|\bLock Info:"
    r"|Another (?:git|instance|process)\b[^\n]{0,40}(?:running|in progress)",
    re.I,
)


# nothing listens there yet: the server the call asks was not started
_REFUSED = rx.compile(
    r"connection refused|couldn'?t connect to server|failed to connect to|ECONNREFUSED|no route to host", re.I
)


# the difference is an environment variable set for the call: "PYTHONPATH=.", "NODE_OPTIONS=--max-old-space-size=4096"
_ENV_SETTING = rx.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*(?:\s+[A-Za-z_][A-Za-z0-9_]*=\S*)*$")


def lasting_fix(diff: Difference) -> bool:
    """Does the fix hold for the next call, or did it change the state that failed? A config file edited is fixed
    for good, a stale process killed is gone, a script made executable stays so: stored, but promoted only when
    another session meets it again."""
    return diff.kind != "edit" and not (diff.kind == "before" and _REPAIRS_STATE.search(diff.text))


# an error that says what to do instead: "... Use offset and limit parameters ...", "Read it first before writing"
_PRESCRIBES = rx.compile(
    r"(?:^|[.!;]\s+)(?:please\s+)?(?:use|try|run|read|pass|set|add|call|specify|provide|install)"
    r"(?!\s+(?:of|to|failed|timed|objects?|out)\b)\s+\S",
    re.I,
)


def self_taught(line: str, failed: Step | None = None, diff: Difference | None = None) -> bool:
    """Does the error text prescribe its own remedy (in its line, or by naming the very flag the fix added)? Then the
    error teaches it again next time, at the cost of one call: the lesson waits as a candidate unless it keeps
    coming back."""
    if failed is not None and diff is not None and diff.kind == "flag" and diff.text in failed.named_flags:
        return True
    return _PRESCRIBES.search(line) is not None


def _later_success_with(session: Session, start: int, name: str) -> int | None:
    """The first later successful call that runs ``name`` (or finds it with which/command -v/Get-Command)."""
    for j in range(start + 1, len(session.steps)):
        step = session.steps[j]
        if step.kind != "action" or not step.ok:
            continue
        intent = session.intent(j)
        if name in _run_programs(intent):
            return j
        shown = machine.probe_shows(step, intent, name)
        if shown or (shown is None and name in machine.probed_names(step, intent)):
            return j  # found by the lookup (or a lookup that exited 0 and printed nothing to say otherwise)
    return None


def _alternative(session: Session, index: int, name: str) -> tuple[str, str, int]:
    """Another spelling of the same program, run later with the same arguments, successfully: how to call it here,
    the project's environment it ran from ("venv/bin/" in `venv/bin/python -m pytest`; "" for the PATH), and the
    call that ran it."""
    failed = next((c for c in session.intent(index).commands if c.program == name), None)
    for j in range(index + 1, min(len(session.steps), index + WINDOW)):
        step = session.steps[j]
        if step.kind != "action" or not step.ok:
            continue
        for other in session.intent(j).commands:
            spelled, rest = _respelled(other, name)
            if spelled and (failed is None or rest[:1] == failed.positional[:1]):
                return spelled, other.runner, j
    return "", "", index


def _other_lookup(session: Session, index: int, name: str) -> str:
    """A lookup program that is missing (``which``) and another lookup (``command -v``, ``type``) that found the
    same programs soon after: how programs are looked up here."""
    if name.lower() not in machine.PROBES:
        return ""
    asked = set(machine.probed_names(session.steps[index], session.intent(index)))
    for j in range(index + 1, min(len(session.steps), index + WINDOW)):
        step = session.steps[j]
        if step.kind != "action" or not step.ok:
            continue
        intent = session.intent(j)
        if not asked & set(machine.probed_names(step, intent)):
            continue
        for command in intent.commands:
            if command.program.lower() in machine.PROBES and command.program.lower() != name.lower():
                return " ".join([command.program, *command.options[:1]])
    return ""


_PYTHON = rx.compile(r"python[\d.]*")
_GNU_PREFIX = "g"  # Homebrew's GNU coreutils, findutils, sed and grep on macOS: gtimeout, gsed, gdate, gfind
_WINDOWS_LAUNCHERS = (".cmd", ".bat", ".exe", ".ps1")  # yarn.cmd, gradle.bat: how Windows shells find a tool


def _respelled(other: Command, name: str) -> tuple[str, list[str]]:
    """How ``other`` runs the program ``name`` under another spelling, and its arguments after that spelling:
    python3 for python and pip3 for pip (a version suffix; pipx is another program), gtimeout for timeout (the GNU
    build on macOS), gradle.bat for gradle (the Windows launcher), ``docker compose`` for
    docker-compose (the plugin form of a hyphenated tool), ``python3 -m pip`` for pip (the module form), ``py`` for
    python (the launcher of Windows)."""
    if other.program == name:
        return "", []
    shorter, longer = sorted((name, other.program), key=len)
    if longer.startswith(shorter) and re.fullmatch(r"[\d.]{1,2}", longer[len(shorter) :]):
        return other.program, other.positional
    if other.program == _GNU_PREFIX + name:
        return other.program, other.positional
    if other.program.lower() in {name + suffix for suffix in _WINDOWS_LAUNCHERS}:
        return other.program, other.positional
    head, _, tail = name.partition("-")
    if tail and other.program == head and other.positional[:1] == [tail]:
        return f"{head} {tail}", other.positional[1:]
    if _PYTHON.fullmatch(other.program) and other.args[:2] == ["-m", name]:
        return f"{other.program} -m {name}", other.positional[1:]
    if other.program.lower() == "py" and _PYTHON.fullmatch(name):
        rest = list(other.positional)
        while rest and re.fullmatch(r"-\d+(?:\.\d+)?(?:-\d+)?", rest[0]):
            rest = rest[1:]  # `py -3`, `py -3.12`: the version the launcher picks
        return "py", rest  # the Python launcher of Windows
    return "", []


# "grep: invalid option -- P", "illegal option -- P", "unrecognized option '--color'", "Unknown option: --foo"
_BAD_OPTION = rx.compile(
    r"\b(?:invalid|illegal|unrecognized|unrecognised|unknown) option\b\s*(?:--\s+)?[:'\"`\u2018]?\s*"
    r"(?P<option>-{0,2}[A-Za-z][\w-]*)",
    re.I,
)


def _has_option(command: Command, option: str) -> bool:
    """Does the command pass ``option`` (``-P`` also inside ``-rnP``, ``--color`` also as ``--color=auto``)?"""
    if option.startswith("--"):
        return any(o.split("=", 1)[0] == option for o in command.options)
    return any(not o.startswith("--") and option[1:] in o[1:] for o in command.options)


def _rejected_option(session: Session, index: int) -> tuple[Command, str, str] | None:
    """The command of a failed call, the option its error says the program does not take (when it passed it), and
    the words that said so."""
    match = _BAD_OPTION.search(_error_text(session.steps[index]))
    if not match:
        return None
    option = match.group("option")
    option = option if option.startswith("-") else f"-{option}" if len(option) == 1 else f"--{option}"
    for command in session.intent(index).commands:
        if _has_option(command, option):
            return command, option, " ".join(match.group(0).split())
    return None


def _short_letters(command: Command) -> set[str]:
    return {ch for o in command.options if not o.startswith("--") for ch in o[1:].split("=", 1)[0]}


def _added_options(failed: Command, other: Command) -> list[str]:
    """The options ``other`` passes that ``failed`` did not, a new letter of combined flags (-rnE) on its own (-E)."""
    letters = _short_letters(failed)
    added = [o for o in other.options if o.startswith("--") and o not in failed.options]
    return added + [f"-{ch}" for ch in sorted(_short_letters(other) - letters) if ch.isalpha()]


def _option_respelled(session: Session, index: int, failed: Command, option: str) -> tuple[int, str]:
    """The later successful call of the same program on the same operands without ``option`` and with another option
    instead (``grep -E`` for ``grep -P``), and the options it added; (-1, "") when none came."""
    for j in range(index + 1, min(len(session.steps), index + WINDOW)):
        step = session.steps[j]
        if step.kind != "action" or not step.ok:
            continue
        for other in session.intent(j).commands:
            if other.program != failed.program or _has_option(other, option):
                continue
            added = _added_options(failed, other)
            if added and _operands(other) == _operands(failed):
                return j, " ".join(added[:2])
    return -1, ""


# programs whose first operand is a pattern the retry may rewrite for its other syntax (-P to -E)
_PATTERN_FIRST = frozenset({"grep", "egrep", "sed", "awk", "rg"})


def _operands(command: Command) -> list[str]:
    """What the command works on: its arguments, less a leading pattern a respelt option may have rewritten."""
    return command.positional[1:] if command.program in _PATTERN_FIRST else command.positional


def unsupported_option_rule(session: Session) -> list[Candidate]:
    """An option the machine's build of a program does not take (BSD grep has no -P), and the option that then
    worked: how to call the program here."""
    out: list[Candidate] = []
    done: set[tuple[str, str]] = set()
    for index in failures(session):
        rejected = _rejected_option(session, index)
        if rejected is None or (rejected[0].program, rejected[1]) in done:
            continue
        failed, option, said = rejected
        fix_index, added = _option_respelled(session, index, failed, option)
        if fix_index < 0:
            continue
        done.add((failed.program, option))
        step, name = session.steps[index], failed.program
        out.append(
            Candidate(
                kind="observation",
                summary=phrasing.fit(
                    f'{name} on {machine.this_machine(session)} does not take {option} ("{said}"); {name} {added} '
                    "worked instead"
                ),
                content=f"`{_command_text(step)}` failed: {_line(step)}\n"
                f"What worked: `{_command_text(session.steps[fix_index])}`",
                why=f"{name} said it does not know {option}, and the same call with {added} instead passed.",
                how_to_apply=f"Call {name} with {added}, not {option}, on this machine.",
                signals=["error"],
                scope="global",
                weight=2.2,
                promotion=VERIFIED_FIX,
            )
        )
    return out


# Tools that are shell functions (or need a shell hook) loaded from the user's profile: an agent's non-interactive
# shell never reads that profile, so "command not found" says the tool is not loaded, not that it is missing.
SHELL_FUNCTIONS = {
    "nvm": ("nvm, the Node version manager", "source ~/.nvm/nvm.sh"),
    "rvm": ("rvm, the Ruby version manager", "source ~/.rvm/scripts/rvm"),
    "sdk": ("sdk, SDKMAN's command", "source ~/.sdkman/bin/sdkman-init.sh"),
    "pyenv": ("pyenv, the Python version manager", 'export PATH="$HOME/.pyenv/bin:$PATH" && eval "$(pyenv init -)"'),
    "rbenv": ("rbenv, the Ruby version manager", 'eval "$(rbenv init -)"'),
    "conda": ("conda", "source <conda install>/etc/profile.d/conda.sh"),
    "mamba": ("mamba", "source <mamba install>/etc/profile.d/mamba.sh"),
    "micromamba": ("micromamba", 'eval "$(micromamba shell hook --shell bash)"'),
    "jenv": ("jenv, the Java version manager", 'eval "$(jenv init -)"'),
    "goenv": ("goenv, the Go version manager", 'eval "$(goenv init -)"'),
    "fnm": ("fnm, the Node version manager", 'eval "$(fnm env)"'),
}
_LOADS = rx.compile(r"^(?:source|\.)\s+\S|^eval\b.*\b(?:init|hook|env)\b")


def _shell_function_lesson(session: Session, index: int, name: str, line: str, count: int) -> Candidate:
    """A profile-loaded tool the agent's shell did not have: not loaded, rather than not installed."""
    what, init = SHELL_FUNCTIONS[name]
    step = session.steps[index]
    return Candidate(
        kind="observation",
        summary=phrasing.fit(f"{name} is not loaded in the agent's non-interactive shell; `{init}` before calling it"),
        content=(
            f"`{_command_text(step, name)}` failed: {line}" + (f" ({count}x)" if count > 1 else "") + "\n"
            f"{what} is set up by the user's shell profile (a shell function or hook), which the agent's shell does"
            f" not read; that the command was not found does not mean it is not installed."
        ),
        why=f"The agent's shell could not find {name}, a tool loaded from the shell profile.",
        how_to_apply=f"Run `{init} && {name} ...` in the same command, or call the tool it selects by its full path.",
        signals=["error"],
        scope="global",
        weight=1.7,
    )


def _loaded_by(session: Session, index: int, later: int, name: str) -> str:
    """The init command (``source ~/.nvm/nvm.sh``, ``eval "$(pyenv init -)"``) the later successful call ran first."""
    from automem.extract.intent import unwrap

    text = unwrap(session.steps[later].input)
    head = re.split(rf"(?:^|[;&|]\s*|\s)(?:command\s+)?{re.escape(name)}\b", text, maxsplit=1)[0]
    for part in re.split(r"\s*(?:&&|;|\|\|)\s*", head.rstrip(" &;|")):
        if _LOADS.search(part.strip()):
            return part.strip()[:100]
    return ""


# an install that exited 0 only because a pipe hid its status (``sudo pacman -S x 2>&1 | tail -3``)
_INSTALL_REFUSED = rx.compile(
    r"sudo: (?:a )?(?:password|terminal) is required|no tty present|Permission denied|Could not open lock"
    r"|are you root|EACCES|unable to lock database|you cannot perform this operation",
    re.I,
)


def installs_between(session: Session, index: int, later: int, name: str) -> list:
    """The successful install commands between two calls that name a package containing ``name``."""
    return [
        c
        for j in range(index + 1, later)
        if session.steps[j].kind == "action"
        and session.steps[j].ok
        and not _INSTALL_REFUSED.search(session.steps[j].result_head)
        for c in session.intent(j).commands
        if is_install(c) and any(_provides(p, name) for p in installed_names(c))
    ]


def _provides(package: str, name: str) -> bool:
    """Does an installed package plausibly provide program ``name`` (openssh -> ssh, python3-pip -> pip)?"""
    package = re.sub(r"^@[\w.-]+/|@[\w.^~<>=*-]+$|[<>=]=?.*$", "", package.lower())
    return package == name or (
        len(name) >= 2
        and re.search(rf"(?:^|[\w-]){re.escape(name)}$|^{re.escape(name)}(?:[\d.-]|$)", package) is not None
    )


_LOOKUP_FAILED = rx.compile(r"not found|not recognized|which: no |failed to run command")


def _masked_missing(session: Session) -> list[int]:
    """Calls that passed although a program they ran was not found (``ssh -V 2>&1 | head -1`` exits 0)."""
    out = []
    for i, step in enumerate(session.steps):
        if step.kind == "action" and step.ok and _LOOKUP_FAILED.search(step.result_head):
            if missing_name(session, i):
                out.append(i)
    return out


def missing_command_rule(session: Session) -> list[Candidate]:
    """A program that is not there: stated only when nothing later in the session ran it after all."""
    out: list[Candidate] = []
    done: set[str] = set()
    masked = _masked_missing(session)
    for index in sorted(failures(session) + masked):
        name = missing_name(session, index)
        if not name or name in done:
            continue
        step = session.steps[index]
        later = _later_success_with(session, index, name)
        if index in masked and later is None and (probe := machine.absent_by_probe(session, index, name)):
            done.add(name)
            out.append(_probed_absent(session, index, name, probe[1]))
            continue
        if index in masked and (later is None or not installs_between(session, index, later, name)):
            continue  # a "not found" a pipe hid says no more than that: an install and a run, or a lookup, make it one
        done.add(name)
        count = sum(1 for i in failures(session) if missing_name(session, i) == name)
        line = (
            _line(step)
            if not step.ok
            else next(
                (
                    " ".join(m.group(0).split())
                    for p in _MISSING
                    for m in p.finditer(step.result_head)
                    if name in m.group(0).lower()
                ),
                _line(step),
            )
        )
        if later is not None and name in SHELL_FUNCTIONS and (init := _loaded_by(session, index, later, name)):
            out.append(
                Candidate(
                    kind="observation",
                    summary=phrasing.fit(f"{name} is not loaded in the agent's non-interactive shell until `{init}`"),
                    content=f"`{_command_text(step, name)}` failed: {line}\nWhat worked: "
                    f"`{_command_text(session.steps[later])}`",
                    why=f"{name} is loaded by the shell profile, which the agent's shell does not read; it ran once "
                    f"the "
                    f"session ran `{init}` first.",
                    how_to_apply=f"Run `{init}` in the same command before calling {name}.",
                    signals=["error"],
                    scope="global",
                    weight=2.3,
                    promotion=VERIFIED_FIX,
                )
            )
            continue
        if later is not None and (via := _project_runner(session, index, later, name)):
            out.append(_runner_lesson(session, index, later, name, via, line))
            continue
        if later is not None:
            installs = installs_between(session, index, later, name)
            if installs:
                how = re.sub(r"\s+(?:\d?>>?|&>)\s*\S+|\s+\d?>&\d", "", installs[-1].text)[:80]
                out.append(
                    Candidate(
                        kind="observation",
                        summary=phrasing.fit(
                            f"{name} was not preinstalled on {machine.this_machine(session)}; `{how}` installed it"
                        ),
                        content=(
                            f"`{_command_text(step, name)}` " + ("said" if step.ok else "failed") + f": {line}\n"
                            f"What worked: `{how}`, then {name} ran."
                        ),
                        why=f"{name} was missing until it was installed in this session.",
                        how_to_apply=f"Install it with `{how}` before using {name} on a new setup of this machine.",
                        signals=["error"],
                        scope="global",
                        weight=2.3,
                        # a candidate: the install lasts, so on this machine the problem is gone; it is worth a
                        # brief line only when another session meets the same missing program again
                    )
                )
            elif (
                (explained := explained_fix(session, [index]))
                and explained[2].kind == "before"
                and re.search(r"\bpath\b", explained[2].text, re.I)
            ):
                change = explained[2].text.removeprefix("after ").strip("`")
                if _path_persisted(session):  # made permanent in the session: a past fact, stored as one
                    added = re.findall(r"[;'\"]\s*([^;'\"]{3,})['\"]", change)
                    folder = added[-1].strip() if added else "a folder"
                    out.append(
                        Candidate(
                            kind="observation",
                            summary=phrasing.fit(
                                f"{name} was not on the PATH until {folder} was added; the session made it "
                                f"permanent (user PATH)"
                            ),
                            content=f"`{_command_text(step, name)}` failed: {line}\nWhat worked: `{change}`",
                            why=f"{name} was found once {folder} was on the PATH, and the session saved that to the "
                            f"user PATH.",
                            how_to_apply=f"If {name} is missing on a new setup, add {folder} to the PATH.",
                            signals=["error"],
                            scope="global",
                            weight=1.6,
                        )
                    )
                    continue
                out.append(
                    Candidate(
                        kind="observation",
                        summary=phrasing.fit(f"{name} is not on the PATH here until `{change}`"),
                        content=f"`{_command_text(step, name)}` failed: {line}\nWhat worked: "
                        f"`{_command_text(session.steps[explained[1]])}`",
                        why=f"{name} was found once the session ran `{change}`.",
                        how_to_apply=f"Run `{change}` (or make it permanent) before calling {name}.",
                        signals=["error"],
                        scope="global",
                        weight=2.3,
                        promotion=VERIFIED_FIX,
                    )
                )
            continue  # it ran later: whatever the first failure was, "not installed" would be wrong
        if name in SHELL_FUNCTIONS:
            out.append(_shell_function_lesson(session, index, name, line, count))
            continue
        if _user_says_installed(session, name):
            continue  # "Teams is installed as a pwa": there is no binary, and the user says it is there
        if _mistyped(session, index, name):
            continue  # `gti status`, then `git status`: a slip of the keys, not a missing program
        sibling = ""
        if _only_probed(session, index, name):
            sibling = _sibling_used(session, index, name)
            searched = _searched_for(session, index, name)
            if len(searched) >= 2:
                done.add(name)
                out.append(_no_binary_lesson(session, index, name, searched))
                continue
            if not sibling and not _needed_after(session, index, name):
                continue  # `which X` or `X --version` to see what is there, then other work: nothing needed X
        if sibling:
            out.append(_sibling_lesson(session, index, name, sibling, line))
            continue
        if _CMDLET.match(name):
            continue  # Get-ChildItem in bash: a PowerShell command in the wrong shell, not a program to install
        if _inside_package_script(session, index, name):
            continue  # `npm test` -> "vitest: command not found": the project's dependencies, not the machine
        alt, runner, ran = _alternative(session, index, name)
        if alt and runner.endswith("/"):
            # `venv/bin/python -m pytest` worked: the project's environment has it, not the machine's PATH
            out.append(_runner_lesson(session, index, ran, alt, runner, line, missing=name))
            continue
        alt = alt or _other_lookup(session, index, name)
        if alt:
            out.append(
                Candidate(
                    kind="observation",
                    summary=phrasing.fit(
                        f"{name} is not on the PATH on {machine.this_machine(session)}; use {alt} instead"
                    ),
                    content=f"`{_command_text(step, name)}` failed: {line}\nWhat worked: `{alt}` for the same job.",
                    why=f"No {name} here ({count}x), while {alt} worked in the same session.",
                    how_to_apply=f"Call {alt}, not {name}, on this machine.",
                    signals=["error"],
                    scope="global",
                    weight=2.4,
                    promotion=VERIFIED_FIX,
                )
            )
            continue
        sibling = _sibling_used(session, index, name)  # `netstat` not found, then `ss` for the same job
        if sibling:
            out.append(_sibling_lesson(session, index, name, sibling, line))
            continue
        out.append(
            Candidate(
                kind="pattern" if count >= 2 else "observation",
                summary=phrasing.fit(
                    f"{name} is not installed or not on the PATH on {machine.this_machine(session)} (no {name} "
                    f"binary found)"
                ),
                content=f"`{_command_text(step, name)}` failed: {line}" + (f" ({count}x)" if count > 1 else ""),
                why=f"The shell could not find {name}, and nothing later in the session ran it.",
                how_to_apply=f"Check for {name} before relying on it here, or install it.",
                signals=["error"],
                scope="global",
                weight=1.6,
            )
        )
    return out


_PACKAGE_SCRIPT_RUNNERS = frozenset({"npm", "yarn", "pnpm", "bun"})


def _inside_package_script(session: Session, index: int, name: str) -> bool:
    """Did ``name`` go missing inside a package script the call ran (``npm test`` running vitest)? Such a script
    finds its tools in the project's node_modules, so the program is missing from the project, not the machine."""
    intent = session.intent(index)
    typed = re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", session.steps[index].input, re.I)
    return not typed and bool(_PACKAGE_SCRIPT_RUNNERS & _run_programs(intent))


_ACTIVATE = rx.compile(r"(?:^|[;&|]\s*)(?:source|\.)\s+(\S*activate)\b")


def _project_runner(session: Session, index: int, later: int, name: str) -> str:
    """How the call that worked ran ``name`` from the project's own environment when the failed one asked the PATH:
    "uv run", "npx", ".venv/bin/", or "source .venv/bin/activate &&"; "" when it did not."""
    failed = next((c for c in session.intent(index).commands if c.program == name), None)
    if failed is None or failed.runner:
        return ""
    worked = session.intent(later)
    via = next((c.runner for c in worked.commands if c.program == name and c.runner), "")
    if via:
        return via
    activate = _ACTIVATE.search(session.steps[later].raw or session.steps[later].input)
    return f"source {activate.group(1)} &&" if activate else ""


def _runner_lesson(
    session: Session, index: int, later: int, name: str, via: str, line: str, missing: str = ""
) -> Candidate:
    """``missing`` not on the PATH, ``name`` run through ``via`` (the project's environment) found it."""
    step = session.steps[index]
    how = f"{via}{name}" if via.endswith("/") else f"{via} {name}"
    missing = missing or name
    return Candidate(
        kind="observation",
        summary=phrasing.fit(f"{missing} is not on the PATH in this project; run it as `{how}`"),
        content=f"`{_command_text(step)}` failed: {line}\nWhat worked: `{_command_text(session.steps[later])}`",
        why=f"{missing} lives in the project's own environment, not on the PATH; `{how}` found it.",
        how_to_apply=f"Call `{how}`, not a bare {missing}, in this project.",
        signals=["error"],
        scope="project",
        weight=2.4,
        promotion=VERIFIED_FIX,
    )


_ASKS_VERSION = frozenset({"--version", "-v", "-V", "version", "--help", "-h", "help"})
# programs that do one job, any of which a session takes when another is not there
_SIBLINGS = (
    frozenset({"npm", "pnpm", "yarn", "bun"}),
    frozenset({"docker", "podman"}),
    frozenset({"pip", "pip3", "uv"}),
    frozenset({"netstat", "ss"}),
    frozenset({"ifconfig", "ip"}),
    frozenset({"curl", "wget"}),
)


def _probes(command: Command, name: str) -> bool:
    """Does this command only look for ``name`` (``which name``, ``command -v name``, ``name --version``)?"""
    if command.program.lower() in machine.PROBES:
        return name in {w.lower() for w in command.positional}
    return command.program == name and bool(command.args) and all(a in _ASKS_VERSION for a in command.args)


def _only_probed(session: Session, index: int, name: str) -> bool:
    """Did the failed call only look ``name`` up, never run it for a job?"""
    commands = [c for c in session.intent(index).commands if c.program == name or _probes(c, name)]
    return bool(commands) and all(_probes(c, name) for c in commands)


def _needed_after(session: Session, index: int, name: str) -> bool:
    """Was ``name`` wanted for the work, not just looked for: a later call that runs it or installs it, or a prompt
    of the user's that names it?"""
    said = rx.compile(rf"(?<![\w./-]){re.escape(name)}(?![\w/-])", re.I)
    for j, step in enumerate(session.steps):
        if step.kind == "prompt" and said.search(step.text):
            return True
        if j <= index or step.kind != "action":
            continue
        for command in session.intent(j).commands:
            if command.program == name and not _probes(command, name):
                return True
            if is_install(command) and any(_provides(p, name) for p in installed_names(command)):
                return True
    return False


def _sibling_used(session: Session, index: int, name: str) -> str:
    """Another program for the same job (pnpm -> npm) that a later call ran for work: it was there to run, whatever
    the call then met (a sandbox without network fails npm as it would have failed pnpm)."""
    return next((c.program for _j, c in _sibling_runs(session, index, name)), "")


def _sibling_runs(session: Session, index: int, name: str):
    family = next((f for f in _SIBLINGS if name in f), frozenset())
    for j in range(index + 1, min(len(session.steps), index + WINDOW)):
        step = session.steps[j]
        if step.kind != "action" or (not step.ok and missing_name(session, j)):
            continue
        for command in session.intent(j).commands:
            if command.program in family - {name} and not _probes(command, command.program):
                yield j, command


def _sibling_lesson(session: Session, index: int, name: str, sibling: str, line: str) -> Candidate:
    step = session.steps[index]
    return Candidate(
        kind="observation",
        summary=phrasing.fit(f"{name} is not installed on {machine.this_machine(session)}; the session used {sibling}"),
        content=f"`{_command_text(step, name)}` failed: {line}\nThen the session ran {sibling} for the job: "
        f"`{_command_text(session.steps[next(j for j, _c in _sibling_runs(session, index, name))], sibling)}`",
        why=f"The shell found no {name}, and the session went on with {sibling} instead.",
        how_to_apply=f"Use {sibling} here unless the project needs {name}; then install {name} first.",
        signals=["error"],
        scope="global",
        weight=1.6,
    )


_NO_OUTPUT = rx.compile(r"^\s*(?:\((?:\w+ )?completed with no output\)|\(no output\))?\s*$", re.I)


def _searched_for(session: Session, index: int, name: str) -> list[str]:
    """The places later calls searched for ``name`` by other means and found nothing (``ls /usr/bin | grep -i
    name``, ``find ~ -name '*name*'``): the search was the work, and its empty result the finding."""
    places: list[str] = []
    for j in range(index + 1, min(len(session.steps), index + WINDOW)):
        step = session.steps[j]
        if step.kind != "action" or not step.ok or not _NO_OUTPUT.match(step.result_head or ""):
            continue
        commands = session.intent(j).commands
        greps = [c for c in commands if c.program == "grep" and name in c.positional[:1]]
        found = [c for c in commands if c.program == "find" and any(name in a.lower() for a in c.positional[1:])]
        if greps and commands[0].program == "ls" and commands[0].positional:
            places.append(commands[0].positional[0])
        elif found:
            places.append(found[0].positional[0] if found[0].positional else ".")
    return list(dict.fromkeys(places))


def _no_binary_lesson(session: Session, index: int, name: str, places: list[str]) -> Candidate:
    step = session.steps[index]
    listed = ", ".join(places[:4])
    return Candidate(
        kind="observation",
        summary=phrasing.fit(f"No {name} binary on {machine.this_machine(session)}: `which` and searches of {listed}"),
        content=f"`{_command_text(step, name)}` failed: {_line(step)}\nSearched later, nothing found: {listed}.",
        why=f"The session looked for {name} in several ways and none found a program.",
        how_to_apply=f"Do not hunt for a {name} binary again; if {name} is needed, ask how it is installed (an "
        f"app, a web app) or install it.",
        signals=["error"],
        scope="global",
        weight=1.4,
    )


def _mistyped(session: Session, index: int, name: str) -> bool:
    """Did a later successful call run a program one keystroke away from ``name`` (gti -> git, pyhton -> python)?"""
    programs = {
        c.program
        for j in range(index + 1, min(len(session.steps), index + WINDOW))
        if session.steps[j].kind == "action" and session.steps[j].ok
        for c in session.intent(j).commands
    }
    return any(p != name and _one_slip(name, p) for p in programs)


def _one_slip(typed: str, meant: str) -> bool:
    """One key swapped, doubled, dropped or mistaken inside the name (gti, pyhton, pyton), on names of three letters
    or more."""
    if min(len(typed), len(meant)) < 3 or abs(len(typed) - len(meant)) > 1:
        return False
    if len(typed) == len(meant):
        diff = [i for i, (a, b) in enumerate(zip(typed, meant, strict=True)) if a != b]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1 and typed[diff[0]] == meant[diff[1]]
        return len(diff) == 1 or (swapped and typed[diff[1]] == meant[diff[0]])
    short, long = sorted((typed, meant), key=len)
    if long == _GNU_PREFIX + short:
        return False  # gtimeout, gsed: the GNU build of the program, not a slip
    # a letter dropped or doubled inside the name; one more at its end is another program (pip3, pipx, nodemon)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long) - 1))


_PERSISTS_PATH = rx.compile(
    r"SetEnvironmentVariable\(\s*['\"]Path['\"][^)]*['\"](?:User|Machine)['\"]|\bsetx\s+PATH\b"
    r"|export\s+PATH=.*>>\s*~?/?\S*(?:bashrc|zshrc|profile)\b",
    re.I,
)


def _path_persisted(session: Session) -> bool:
    """Did a successful call make a PATH change permanent (the user PATH, a shell profile)? Then "not on the PATH
    until ..." is stale for every later session."""
    return any(s.kind == "action" and s.ok and _PERSISTS_PATH.search(s.raw or s.input) for s in session.steps)


def says_installed(text: str, name: str) -> bool:
    """Does ``text`` say the program is installed ("Teams is installed as a pwa"), not that it is not?"""
    said = re.search(rf"\b{re.escape(name)}\b[^.?!\n]{{0,40}}?\b(?:is|are|'s)\s+(?:already\s+)?installed\b", text, re.I)
    return said is not None and not re.search(r"\bnot\b", said.group(0), re.I)


def _user_says_installed(session: Session, name: str) -> bool:
    """Did the user say the program is installed (as an app, a PWA, somewhere else)? Their word beats a lookup."""
    return any(s.kind == "prompt" and says_installed(s.text, name) for s in session.steps)


def _probed_absent(session: Session, index: int, name: str, found: list[str]) -> Candidate:
    """A program a call tried to run that a later lookup (``which``) confirmed is not there."""
    step = session.steps[index]
    line = next(
        (
            " ".join(m.group(0).split())
            for p in _MISSING
            for m in p.finditer(_error_text(step))
            if name in m.group(0).lower()
        ),
        _line(step),
    )
    others = [n for n in found if n != name]
    return Candidate(
        kind="observation",
        summary=phrasing.fit(
            f"{name} is not installed on {machine.this_machine(session)}"
            + (f"; `which` found {', '.join(others[:2])} but no {name}" if others else "")
        ),
        content=f"`{_command_text(step, name)}` said: {line}\nA later lookup found no {name}"
        + (f" (it found {', '.join(others)})." if others else "."),
        why=f"The call's output said {name} could not be run, and `which` then found no {name}.",
        how_to_apply=f"Do not plan on {name} here"
        + (f"; {others[0]} is available." if others else "; install it first."),
        signals=["error"],
        scope="global",
        weight=1.8,
    )


def missing_module_rule(session: Session) -> list[Candidate]:
    """A package the project does not have, shown by an import failing and the work going on without it."""
    out: list[Candidate] = []
    done: set[str] = set()
    for index in failures(session):
        step = session.steps[index]
        match = _MODULE.search(_error_text(step))
        if not match:
            continue
        module = next(g for g in match.groups() if g)
        if module in done or module.startswith((".", "/", "~")) or re.search(r"\.(?:js|ts|mjs|cjs|py|json)$", module):
            continue  # a file of the project that was not there yet, not a package
        done.add(module)
        found = verified_fix(session, index)
        if found is None or _run_differently(
            session, [i for i in failures(session) if _MODULE.search(_error_text(session.steps[i]))]
        ):
            continue  # no fix, or the same call run differently (PYTHONPATH=src) got past it: not a missing package
        fix_index, between = found
        installed = [
            c.text
            for i in between
            for c in i.commands
            if is_install(c) and any(module.split("/")[0] in n for n in installed_names(c))
        ]
        declared = [c.text for i in between for c in i.commands if installs_dependencies(c)]
        name = _name(session, index)
        gist = phrasing.error_name(_line(step))
        main = session.intent(index).main
        program = main.program if main else ""
        # `python x.py` failed, `source .venv/bin/activate && python x.py` worked: the package is there, in the
        # project's environment, which the failed call did not use
        via = "" if installed or declared or not program else _project_runner(session, index, fix_index, program)
        if via:
            how = f"{via}{program}" if via.endswith("/") else f"{via} {program}"
            summary = phrasing.fit(f"{module} is installed in the project's environment only; run {program} as `{how}`")
        elif installed:
            summary = phrasing.fit(f"{module} was not installed in this project; `{installed[-1][:60]}` installed it")
        elif declared:  # `npm ci`, `uv sync`, `pip install -e .`: the project declares it, its install had not run
            summary = phrasing.fit(
                f"{module} was missing until `{declared[-1][:60]}` installed the project's dependencies"
            )
            installed = declared
        else:
            summary = phrasing.fit(
                f"{module} is not installed in this project: importing it fails" + (f" ({gist})" if gist else "")
            )
        out.append(
            Candidate(
                kind="observation",
                summary=summary,
                content=f"`{_command_text(step)}` failed: {_line(step)}\n{name} passed later: "
                f"`{_command_text(session.steps[fix_index])}`",
                why=f"{name} found {module} only when run from the project's environment."
                if via
                else f"{module} is missing here; {name} passed once the session "
                + ("installed it." if installed else "worked around it."),
                how_to_apply=f"Run {program} as `{how}` in this project."
                if via
                else f"Run `{declared[-1][:60]}` first on a fresh checkout or environment."
                if declared
                else f"Install {module} before importing it, or do without it as the session did.",
                signals=["error"],
                scope="project",
                weight=1.8,
                # a candidate either way: an install lasts, so here the import works from now on; it is worth a
                # brief line only when another session meets the same missing package again
            )
        )
    return out


def _piped_program(text: str, folders: str = "") -> str:
    """The program a wizard's answers were piped into, with its subcommand ("npm init"); a first argument the
    session then used as a folder (``folders``: the session's calls) is the name of what it made, not a
    subcommand ("create-next-app my-app")."""
    from automem.extract.intent import parse_command_line

    commands, _cwd = parse_command_line(text)
    if not commands:
        return ""
    last = commands[-1]
    words = [last.program] + [
        a
        for a in last.positional[:1]
        if re.fullmatch(r"[a-z][\w.-]*", a)
        and not re.search(rf"(?<![\w.-]){re.escape(a)}/|\bcd\s+(?:\./)?{re.escape(a)}(?![\w.-])", folders)
    ]
    return " ".join(re.sub(r"@[\w.^~-]+$", "", w) for w in words)


def interactive_rule(session: Session) -> list[Candidate]:
    """A command that stops at a wizard's question in the agent's shell, twice or more: nobody answers there."""
    groups: dict[str, list[Step]] = {}
    folders = "\n".join(s.input for s in session.steps if s.kind == "action" and s.input)
    for step in session.steps:
        if step.kind == "action" and step.asked and (prog := _piped_program(step.input, folders)):
            groups.setdefault(prog, []).append(step)
    out = []
    for prog, calls in groups.items():
        if len(calls) < 2:
            continue
        last = _command_text(calls[-1])
        questions = list(dict.fromkeys(c.asked for c in calls))
        out.append(
            Candidate(
                kind="pattern",
                summary=phrasing.fit(
                    f"{prog} stops at interactive prompts ({len(calls)}x); pass every answer as a flag up front"
                ),
                content=(
                    f"In the agent's shell nobody answers {prog}'s questions: "
                    + "; ".join(f"'{q[:80]}'" for q in questions[:3])
                    + f".\nWhat the session ended with: `{last}`"
                ),
                why=f"{prog} waited for input {len(calls)} times in one session.",
                how_to_apply=f"Pass {prog} every answer as a flag (or pipe them in) so it never stops to ask.",
                signals=["error"],
                scope="global",
                weight=2.0,
            )
        )
    return out


def error_clusters(steps: list[Step]) -> Counter:
    """cluster -> count of the session's real failures, kept per project so a pattern can span sessions."""
    counts: Counter = Counter()
    for step in steps:
        if is_failure(step) and not is_slip(step):
            counts[cluster_of(step)] += 1
    return counts


_REQUIREMENT = rx.compile(
    r"\b(?:not on an? [\w-]+|must be|should be|requires?|needs? to|only (?:works|allowed|supported)"
    r"|expected (?:to|a|an)|is not a|not a [\w-]+ (?:repository|branch|directory))\b",
    re.I,
)


_MID_SENTENCE = rx.compile(r"^[a-z][\w-]*[.,;]\s")
# a bug in the code that a call ran, not a condition of its setting: "TypeError: f() argument must be str, not int",
# "x is not a function", "expected a string, got number"
_CODE_BUG = rx.compile(
    r"\b(?:Type|Value|Attribute|Key|Index|Name|Assertion|Reference|Syntax|ZeroDivision|Argument|Range)Error\b"
    r"|\bmust be (?:an? )?[\w.`'\"]+, not\b|\bis not a (?:function|constructor|callable|valid \w+ literal)\b"
    r"|\b(?:must be|expected) (?:an? |of type )?[`'\"]?(?:str|string|int|integer|number|bool|boolean|float|list"
    r"|dict|tuple|bytes|object|array|iterable|callable|none|null|undefined)\b[`'\"]?(?:,| but| got| found|$)"
)


# Windows PowerShell 5 has no `&&` or `||` between commands (PowerShell 7 has): the shell's, not the program's
_NO_AND_AND = rx.compile(r"The token '(&&|\|\|)' is not a valid statement separator")


def shell_separator_rule(session: Session) -> list[Candidate]:
    """`a && b` refused by Windows PowerShell, then the same work chained with `;`: how to chain commands here."""
    for index in failures(session):
        refused = _NO_AND_AND.search(_error_text(session.steps[index]))
        if not refused:
            continue
        later = next(
            (
                j
                for j in range(index + 1, min(len(session.steps), index + WINDOW))
                if session.steps[j].kind == "action"
                and session.steps[j].ok
                and ";" in session.steps[j].input
                and refused.group(1) not in session.steps[j].input
            ),
            None,
        )
        if later is None:
            continue
        token = refused.group(1)
        return [
            Candidate(
                kind="observation",
                summary=phrasing.fit(
                    f"The shell on {machine.this_machine(session)} is Windows PowerShell: it does not take `{token}`"
                    " between commands; chain them with `;`"
                ),
                content=f"`{_command_text(session.steps[index])}` failed: {_line(session.steps[index])}\n"
                f"What worked: `{_command_text(session.steps[later])}`",
                why=f"The shell refused `{token}` as a separator, and the same work chained with `;` ran.",
                how_to_apply=f"Chain commands with `;` (or `if ($?) {{ ... }}`), never `{token}`, in this shell.",
                signals=["error"],
                scope="global",
                weight=2.2,
                promotion=VERIFIED_FIX,
            )
        ]
    return []


def stated_requirement_rule(session: Session) -> list[Candidate]:
    """An error that states its own requirement ("Not on a feature branch", "must be run from ..."), met later."""
    out: list[Candidate] = []
    for indexes in _clusters(session).values():
        index = indexes[0]
        step = session.steps[index]
        if is_slip(step) or missing_name(session, index) or _NO_AND_AND.search(_error_text(step)):
            continue  # `&&` refused is the shell's rule, not the program's (shell_separator_rule)
        lines = [e.get("line", "") for e in step.errors] + step.result_head.splitlines()[:4]
        stated = next(
            (" ".join(line.split()) for line in lines if _REQUIREMENT.search(line) and not _CODE_BUG.search(line)), ""
        )
        if not stated or len(stated) > 240 or _MID_SENTENCE.match(stated):
            continue  # "available. On Debian/Ubuntu systems ...": a wrapped line begun mid-sentence reads as nothing
        found = verified_fix(session, indexes[-1])
        if found is None:
            continue
        name = _name(session, index)
        text = re.sub(r"^(?:error|fatal|ERROR)\s*:\s*", "", stated)
        out.append(
            Candidate(
                kind="observation",
                summary=phrasing.fit(f'{name} fails when "{_gist(text, 70)}": meet that first'),
                content=f"`{_command_text(step)}` failed: {stated}\nIt passed later in the session: "
                f"`{_command_text(session.steps[found[0]])}`",
                why="The error itself said what it needs, and the same call passed once that was true.",
                how_to_apply=f"Before running {name}, make sure of what the error asked for.",
                signals=["error"],
                scope="project",
                weight=1.5,
            )
        )
    return out


_NO_DNS = rx.compile(
    r"getaddrinfo (?:ENOTFOUND|EAI_AGAIN)\s*([\w.-]*)|Could not resolve host(?:name)?:?\s*([\w.-]*)"
    r"|Temporary failure in name resolution|Name or service not known|nodename nor servname provided",
    re.I,
)


def offline_sandbox_rule(session: Session) -> list[Candidate]:
    """A network call that could not even resolve its host, in a sandboxed session, and never went through later.

    Sandboxed agents (Codex's workspace sandbox, for one) have no network unless a call is escalated; a session shows
    it runs sandboxed when some call was escalated. Without that, a failed lookup may be a passing outage: no memory.
    A later successful call with the same intent (escalated or not) is a fix other rules state, or says it was
    transient.
    """
    if not any(s.kind == "action" and s.escalated for s in session.steps):
        return []
    out: list[Candidate] = []
    done: set[str] = set()
    for index in failures(session):
        step = session.steps[index]
        match = _NO_DNS.search(_error_text(step))
        intent = session.intent(index)
        if not match or intent.main is None or step.escalated:
            continue
        name = intent.main.program
        if name in done or verified_fix(session, index, through_user=True) is not None:
            continue
        done.add(name)
        host = next((g for g in match.groups() if g), "")
        gist = f"its host{' ' + host if host else ''} did not resolve"
        out.append(
            Candidate(
                kind="observation",
                summary=phrasing.fit(f"{name} has no network access in the agent's sandbox here ({gist})"),
                content=f"`{_command_text(step)}` failed: {_line(step)}\nNothing later in the session ran it "
                f"successfully.",
                why="The session runs sandboxed (other calls needed escalated permissions) and this network call "
                "could not "
                "resolve its host.",
                how_to_apply=f"Run {name} network calls with escalated permissions, or ask the user to run them.",
                signals=["error"],
                scope="global",
                weight=1.6,
            )
        )
    return out


# Errors that name a Python feature the interpreter is too old for: (pattern, "older than", what fails, what works)
_OLD_PYTHON = (
    (
        rx.compile(r"future feature annotations is not defined"),
        "3.7",
        "`from __future__ import annotations`",
        "typing's Optional/Tuple",
    ),
    (rx.compile(r"'type' object is not subscriptable"), "3.9", "tuple[...]/list[...] hints", "typing's Tuple/List"),
    (
        rx.compile(r"unsupported operand type\(s\) for \|: 'type' and '(?:NoneType|type)'"),
        "3.10",
        "`X | None` annotations",
        "typing's Optional/Union",
    ),
)


_PYTHON_NAME = rx.compile(r"python[\d.]*")


def old_python_rule(session: Session) -> list[Candidate]:
    """An interpreter too old for a feature the error names: a fact about this machine's python, said once."""
    found: dict[str, tuple] = {}  # program -> (bound, what fails, what works, index)
    for index in failures(session):
        text = _error_text(session.steps[index])
        intent = session.intent(index)
        program = next((p for p in intent.programs if _PYTHON_NAME.fullmatch(p)), "")
        if not program:
            continue
        for pattern, bound, fails, works in _OLD_PYTHON:
            if pattern.search(text) and (program not in found or float(bound) < float(found[program][0])):
                found[program] = (bound, fails, works, index)
    out = []
    for program, (bound, fails, works, index) in found.items():
        step = session.steps[index]
        out.append(
            Candidate(
                kind="observation",
                summary=phrasing.fit(f"`{program}` here predates Python {bound}: {fails} fails; use {works}"),
                content=f"`{_command_text(step)}` failed: {_line(step)}",
                why=f"The error names a feature Python {bound} brought, so this interpreter predates it.",
                how_to_apply=f"Write code for `{program}` without features newer than its version, or call a newer "
                "interpreter if the machine has one.",
                signals=["error"],
                scope="global",
                weight=1.8,
            )
        )
    return out


_NPM_SCRIPT = rx.compile(r"^> [\w@/.-]+@[\w.+-]+ ([\w:.-]+)\r?\n> (.+)$", re.M)
_HOOK_SAYS = rx.compile(
    r"husky - (pre-commit|commit-msg|pre-push)\b|\b(lint-staged)\b|^[\w .()/-]{3,}?\.{4,}(?:Failed|Passed)$", re.M
)


def commit_hook_rule(session: Session) -> list[Candidate]:
    """`git commit` failed inside a hook that runs the project's checks: commit only once those checks pass."""
    for index in failures(session):
        intent = session.intent(index)
        main = intent.main
        if main is None or main.program != "git" or main.subcommand != "commit":
            continue
        text = session.steps[index].result_head
        script = _NPM_SCRIPT.search(text)
        hook = _HOOK_SAYS.search(text)
        if script:
            runs = f"`npm run {script.group(1)}` ({phrasing.fit(script.group(2).strip(), 60)})"
            check = f"npm run {script.group(1)}"
        elif hook:
            runs = (
                "a husky hook"
                if hook.group(1)
                else "lint-staged"
                if hook.group(2)
                else "the pre-commit framework's hooks"
            )
            check = "those checks"
        else:
            continue
        step = session.steps[index]
        return [
            Candidate(
                kind="observation",
                summary=phrasing.fit(f"git commit runs {runs} as a hook here; make {check} pass before committing"),
                content=f"`{_command_text(step)}` failed in its hook: {_line(step)}",
                why="The commit's own output shows a hook running the project's checks, and the commit failed with "
                "them.",
                how_to_apply=f"Run {check} and fix what it reports (in tests too) before `git commit`.",
                signals=["error"],
                scope="project",
                weight=1.9,
            )
        ]
    return []

"""What a tool call was trying to do, so a later call can be judged "the same thing, done right".

A fix is only claimed when a later successful call has the same intent as the failed one: the
same program (argv[0] once ``env``/``sudo``/``timeout``/``npx`` and shell wrappers are peeled
off) with the same first argument or subcommand, or an edit/read/tool call on the same target.
The lesson then states what differed (an added flag, an environment variable, a step run before
it, escalated permissions, another working directory). A look at something (``sed -n``, ``grep``,
``git status``, a Read) never fixes a call that did something else.
"""

from __future__ import annotations

import re
import shlex

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.record import field, record

SHELL_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "shell_command",
        "exec_command",
        "local_shell",
        "run_shell_command",
        "powershell",
        "terminal",
        "cmd",
        "command",
        "run_terminal_cmd",
        "execute_command",
    }
)
EDIT_TOOLS = frozenset(
    {
        "edit",
        "multiedit",
        "write",
        "apply_patch",
        "str_replace_based_edit_tool",
        "replace",
        "write_file",
        "edit_file",
        "create_file",
        "notebookedit",
    }
)
READ_TOOLS = frozenset(
    {
        "read",
        "read_file",
        "view",
        "grep",
        "glob",
        "ls",
        "list",
        "find",
        "search",
        "webfetch",
        "websearch",
        "cat",
        "list_dir",
        "read_many_files",
    }
)

_WRAPPER = rx.compile(
    r"^(?:\S*/)?(?:env\s+)?(?:bash|sh|zsh|dash)(?:\s+-[a-z]+)*\s+-l?c\s+"
    r"|^(?:\S*[/\\])?(?:pwsh|powershell)(?:\.exe)?\s+(?:-\w+\s+)*?-Command\s+"
    r"|^cmd(?:\.exe)?\s+/[ck]\s+"
    # a sandbox around the call: its profile and mounts are the machine's, the command inside is the call
    r"|^(?:\S*/)?sandbox-exec(?:\s+-[fpD]\s+(?:'[^']*'|\"[^\"]*\"|\S+))+\s+"
    r"|^(?:\S*/)?(?:bwrap|firejail|proot(?:-distro)?|nsjail)\s(?:[^'\"]|'[^']*'|\"[^\"]*\")*?\s--\s+",
    re.I,
)
_ENV = rx.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# programs that run the next word as the real program
_PREFIXES = frozenset({"sudo", "env", "time", "nice", "nohup", "command", "exec", "doas", "stdbuf", "caffeinate"})


def _looks_up(words: list[str]) -> bool:
    """``command -v node`` asks where node is (a lookup, like ``which``); ``command node`` runs it."""
    return words[0].lower() == "command" and words[1:2] in (["-v"], ["-V"])


_RUNNERS = frozenset({"npx", "bunx", "pnpx", "uvx"})
# a tool run from the project's environment: `uv run pytest`, `poetry run black`, `bundle exec rspec`
_PROJECT_RUNNERS = frozenset(
    {("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"), ("hatch", "run"), ("rye", "run")}
    | {("bundle", "exec"), ("pnpm", "exec"), ("npm", "exec"), ("yarn", "exec"), ("conda", "run")}
)
_PROJECT_BIN = rx.compile(r"^(?:\./)?(?:\.?venv|env|node_modules/\.bin|vendor/bin|bin)/(?:bin/|Scripts/)?(?=[^/]+$)")
_SUBCOMMAND_TOOLS = frozenset(
    {
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "uv",
        "pip",
        "pip3",
        "cargo",
        "go",
        "git",
        "docker",
        "kubectl",
        "gh",
        "poetry",
        "brew",
        "apt",
        "apt-get",
        "pkg",
        "dnf",
        "conda",
        "make",
        "dotnet",
        "mvn",
        "gradle",
        "terraform",
        "helm",
        "systemctl",
        "deno",
        "rustup",
        "npm.cmd",
        "pnpm.cmd",
    }
)
_NPM_LIKE = frozenset({"npm", "pnpm", "yarn", "bun", "npm.cmd", "pnpm.cmd"})
_LOOK = frozenset(
    {
        "ls",
        "cat",
        "head",
        "tail",
        "grep",
        "egrep",
        "rg",
        "ag",
        "ack",
        "find",
        "fd",
        "stat",
        "file",
        "tree",
        "wc",
        "echo",
        "pwd",
        "which",
        "type",
        "whereis",
        "less",
        "more",
        "du",
        "df",
        "printf",
        "get-childitem",
        "get-content",
        "select-string",
        "get-command",
        "test-path",
        "get-item",
        "dir",
        "ps",
        "lsof",
        "ss",
        "netstat",
        "id",
        "whoami",
        "uname",
        "date",
        "env",
        "printenv",
        "sleep",
        "true",
        "sort",
        "uniq",
        "cut",
        "tr",
        "column",
        "nl",
        "tac",
    }
)
_LOOK_GIT = frozenset({"status", "log", "diff", "show", "branch", "remote", "rev-parse", "ls-files", "blame"})
_INSTALLERS = {
    "pip": "install",
    "pip3": "install",
    "uv": "add",
    "npm": "install",
    "pnpm": "add",
    "yarn": "add",
    "bun": "add",
    "poetry": "add",
    "pipenv": "install",
    "pdm": "add",
    "bundle": "install",
    "composer": "require",
    "brew": "install",
    "apt": "install",
    "apt-get": "install",
    "pkg": "install",
    "dnf": "install",
    "pacman": "-S",
    "conda": "install",
    "cargo": "install",
    "gem": "install",
    "go": "install",
    "choco": "install",
    "winget": "install",
    "scoop": "install",
}
_OPTION = rx.compile(r"^--?[A-Za-z][\w-]*(?:=.*)?$")
_PATCH_FILE = rx.compile(r"\*\*\* (?:Add|Update|Delete) File: (\S+)")
_PATHLIKE = rx.compile(r"[\w.~-]*[/\\][\w./\\~@+-]+|[\w-]+\.[A-Za-z]{1,5}\b")


@record
class Command:
    """One program invocation inside a shell command line."""

    program: str  # basename of argv[0], lower-case, after prefixes and runners
    args: list[str] = field(default_factory=list)  # the rest, options included, in order
    env: list[str] = field(default_factory=list)  # VAR=value assignments in front of it
    text: str = ""  # the segment as written
    background: bool = False  # `cmd &` or nohup: started, not finished (its success proves nothing)
    runner: str = ""  # what ran it from the project's own tools: "npx", "uv run", ".venv/bin/" ("" when the PATH did)

    @property
    def positional(self) -> list[str]:
        """The arguments that name something: not options, nor an empty value given to one (``sed -i ''``)."""
        return [a for a in self.args if a and not _OPTION.match(a)]

    @property
    def options(self) -> list[str]:
        return [a for a in self.args if _OPTION.match(a)]

    @property
    def subcommand(self) -> str:
        pos = self.positional
        if not pos:
            return ""
        first = pos[0].lower()
        if self.program in _NPM_LIKE and first in ("run", "run-script") and len(pos) > 1:
            return pos[1].lower()
        return first

    def name(self) -> str:
        """How a reader names it: "git push", "npm run build", "pytest", "python -m pytest"."""
        static = _STATIC_CALL.match(self.text)
        if static:
            return static.group(1)  # a PowerShell static call: [Environment]::SetEnvironmentVariable(...)
        pos = self.positional
        if self.program in _NPM_LIKE and pos[:1] in (["run"], ["run-script"]) and len(pos) > 1:
            return f"{self.program} run {pos[1]}"
        if self.program in _SUBCOMMAND_TOOLS and pos and _SUBCOMMAND.fullmatch(pos[0]):
            return f"{self.program} {pos[0]}"
        if self.program.startswith("python") and self.args[:1] == ["-m"] and len(self.args) > 1:
            return f"{self.program} -m {self.args[1]}"
        if pos and _SCRIPT.fullmatch(pos[0].rsplit("/", 1)[-1]):
            return f"{self.program} {pos[0].rsplit('/', 1)[-1]}"
        return self.program


@record
class Intent:
    """What one call did: shell commands, an edit of files, a read, or another tool on a target."""

    kind: str  # shell | edit | read | tool
    tool: str
    commands: list[Command] = field(default_factory=list)
    cwd: str = ""  # a leading ``cd X &&``
    targets: list[str] = field(default_factory=list)  # files an edit/read touched, or a tool's main argument
    setup: list[str] = field(default_factory=list)  # ``source .venv/bin/activate``, ``export X=1``: no command

    @property
    def main(self) -> Command | None:
        """The command that matters: the first one that is not a look (``ls``, ``cat``) when there is one."""
        for command in self.commands:
            if not is_look(command):
                return command
        return self.commands[0] if self.commands else None

    @property
    def programs(self) -> set[str]:
        return {c.program for c in self.commands}

    def read_only(self) -> bool:
        if self.kind == "read":
            return True
        if self.kind == "shell":
            return bool(self.commands) and all(is_look(c) for c in self.commands)
        return False


def is_look(command: Command) -> bool:
    if command.program in _LOOK:
        return True
    if command.program == "sed" and ("-n" in command.args or any(a.startswith("-n") for a in command.args[:1])):
        return True
    if command.program == "git" and command.subcommand in _LOOK_GIT:
        return True
    if command.program == "git" and command.subcommand == "tag":
        return len(command.positional) == 1 or "-l" in command.args or "--list" in command.args  # lists tags
    # a status asked of any tool (`gh auth status`, `supabase status`, `systemctl status app`): it changes nothing
    return "status" in command.positional[:2] and command.program not in ("npm", "pnpm", "yarn", "bun", "make")


# programs that rewrite the files they are given when run with an in-place option: `sed -i`, `perl -pi -e`; perl's and
# ruby's -i only after the switches that bundle with it (-Ilib, -Mstrict carry an argument and rewrite nothing)
_IN_PLACE_OPTION = {"sed": rx.compile(r"^-[a-zA-Z]*i|^--in-place\b"), "perl": rx.compile(r"^-[0-9lnpaws]*i")}
_IN_PLACE_OPTION["ruby"] = _IN_PLACE_OPTION["perl"]
# programs whose output is what they were given: redirected into a file, they write it (`cat <<EOF > src/x.ts`); the
# output of anything else redirected (`npm test > results.json`) is a report, not an edit
_WRITERS = frozenset({"cat", "echo", "printf"})
_REDIRECT = rx.compile(r"^(?:\d?>>?|&>>?)(.*)$")
# a file of the project's code or configuration (a log, an output dump, /dev/null or a temp file is none)
_SOURCE_FILE = rx.compile(
    r"\.(?:py|pyi|[cm]?[jt]sx?|vue|svelte|astro|rs|go|java|kt|kts|scala|swift|rb|php|c|h|cc|cpp|hpp|cs|lua|ex|exs"
    r"|sh|bash|zsh|ps1|sql|html?|css|scss|sass|less|json|jsonc|toml|ya?ml|ini|cfg|conf|xml|gradle|lock|mdx?)$"
    r"|(?:^|/)(?:\.env[\w.-]*|\.\w+rc|\.gitignore|Makefile|Dockerfile[\w.-]*)$",
    re.I,
)

# the user's own setup (a dotfile or dot-folder of the home, /etc): writing there sets the machine up, it changes no
# code; a project under the home (~/code/app/src/a.ts) is code
_MACHINE_FILE = rx.compile(r"^(?:(?:~|\$HOME\b|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE)[\\/]\.|/etc/)", re.I)


def rewritten_files(command: Command) -> list[str]:
    """The files a command rewrites in place: ``sed -i``, ``perl -pi``, ``tee``, or cat/echo/printf redirected into
    a source file. Such a command is an edit made through the shell: a change to the code, never a way to run a
    call."""
    option = _IN_PLACE_OPTION.get(command.program)
    if option is not None and any(option.match(a) for a in command.options):
        files = command.positional[-1:]
    elif command.program == "tee":
        files = list(command.positional)
    elif command.program in _WRITERS:
        files = [
            redirect.group(1) or (command.args[at + 1] if at + 1 < len(command.args) else "")
            for at, arg in enumerate(command.args)
            if (redirect := _REDIRECT.match(arg))
        ]
    else:
        return []
    return [f for f in files if _SOURCE_FILE.search(f) and not _TEMP_DIR.match(f) and not _MACHINE_FILE.match(f)]


def edited_files(intent: Intent) -> list[str]:
    """The files a call changed: an edit tool's targets, or the files its shell commands rewrote in place."""
    if intent.kind == "edit":
        return intent.targets
    return [_norm_path(f) for c in intent.commands for f in rewritten_files(c)]


def unwrap(text: str) -> str:
    """The command inside a shell wrapper (``bash -lc "x"`` -> ``x``)."""
    text = (text or "").strip()
    for _ in range(3):
        match = _WRAPPER.match(text)
        if not match:
            break
        text = text[match.end() :].strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1]
    return text


_STATIC_CALL = rx.compile(r"\[?[\w.]+\]?::(\w+)")  # a PowerShell static call: [Environment]::Method(...)
_SUBCOMMAND = rx.compile(r"[a-z][\w:-]*")
_SCRIPT = rx.compile(r"[\w.-]+\.(?:py|js|mjs|cjs|ts|sh|rb|pl|ps1)")
_DURATION = rx.compile(r"\d+[smhd]?")
_VERSION_PIN = rx.compile(r"@[\w.^~-]+$")  # npx pkg@1.2 -> pkg
_WORD = rx.compile(r"[\w.-]{3,}")
_WINDOWS_PATH = rx.compile(r"(?<![\w])[A-Za-z]:\\")


# a quote, a backslash, or whitespace shlex does not split at (it splits at space, tab, CR and LF only)
_NEEDS_SHLEX = rx.compile(r"['\"\\\\]|[^\S \t\r\n]")


def _split_words(segment: str) -> list[str]:
    if not _NEEDS_SHLEX.search(segment):
        return segment.split()  # what shlex.split gives for a segment with no quote, escape or other whitespace
    try:
        if _WINDOWS_PATH.search(segment):  # C:\Users\x: a backslash there separates folders, it escapes nothing
            lexer = shlex.shlex(segment, posix=True)
            lexer.whitespace_split, lexer.escape = True, ""
            return list(lexer)
        return shlex.split(segment, posix=True)
    except ValueError:
        return segment.split()


# where a command line without quotes or backslashes is cut: what the walk below cuts at when there are none
_PLAIN_CUT = rx.compile(r"&&|\|\||[;\n]|(?<!>)\|")
_OUTSIDE_MARK = rx.compile(r"[\"'`\\;\n&|]")  # what the walk stops at outside quotes; the rest is copied in runs
_QUOTE_END = {"'": rx.compile(r"'"), "`": rx.compile(r"`"), '"': rx.compile(r'["\\]')}  # a backslash escapes in "..."


def split_segments(body: str) -> list[str]:
    """A command line cut at ``&&``, ``||``, ``;``, ``|`` and newlines outside quotes."""
    if not any(mark in body for mark in ("'", '"', "`", "\\")):  # most command lines: no quote to walk around
        return [s.strip() for s in _PLAIN_CUT.split(body) if s.strip()]
    out: list[str] = []
    current: list[str] = []
    quote = ""
    i, end = 0, len(body)
    while i < end:
        if quote:
            mark = _QUOTE_END[quote].search(body, i)
            if mark is None:
                current.append(body[i:])
                break
            j = mark.start()
            if body[j] == "\\":  # inside double quotes: the backslash and the character it escapes
                current.append(body[i : j + 2])
                i = j + 2
                continue
            current.append(body[i : j + 1])
            quote, i = "", j + 1
            continue
        mark = _OUTSIDE_MARK.search(body, i)
        if mark is None:
            current.append(body[i:])
            break
        j = mark.start()
        ch = body[j]
        current.append(body[i:j])
        i = j + 1
        if ch in "'\"`":
            quote = ch
            current.append(ch)
        elif ch == "\\":
            if body[j + 1 : j + 2] in ("\n", "\r"):
                current.append(" ")  # a line continuation joins the next line to this command
                i = j + (3 if body[j + 1 : j + 3] == "\r\n" else 2)
            else:
                current.append(ch)
        elif ch in ";\n" or body[j : j + 2] in ("&&", "||") or (ch == "|" and body[j - 1 : j] != ">"):
            out.append("".join(current))
            current = []
            if body[j : j + 2] in ("&&", "||"):
                i = j + 2
        else:
            current.append(ch)  # a lone & (a background job) or a clobbering >|
    out.append("".join(current))
    return [s.strip() for s in out if s.strip()]


_HEREDOC_MARK = rx.compile(r"<<-?\s*(['\"]?)\w+\1")


def parse_command_line(text: str) -> tuple[list[Command], str]:
    """Every program run by a command line, and the folder a leading ``cd`` moved to."""
    body = unwrap(text)
    heredoc = _HEREDOC_MARK.search(body)
    if heredoc:  # the script fed in is no command; the rest of its line is (`cat <<'EOF' > src/app.ts`)
        body = body[: heredoc.start()] + body[heredoc.end() :].split("\n", 1)[0]
    elif "<<" in body:
        body = body[: body.find("<<")]
    commands: list[Command] = []
    cwd = ""
    for segment in split_segments(body):
        segment = segment.strip().lstrip("({").strip()
        if not segment or segment.startswith("#"):
            continue
        background = segment.rstrip(" )").endswith("&") or segment.startswith(("nohup ", "setsid "))
        words = _split_words(segment.rstrip(" &)") if background else segment)
        env: list[str] = []
        while words and _ENV.match(words[0]):
            env.append(words.pop(0))
        while words and words[0].lower() in _PREFIXES and not _looks_up(words):
            words.pop(0)
            while words and (_OPTION.match(words[0]) or _ENV.match(words[0])):
                word = words.pop(0)
                if _ENV.match(word):
                    env.append(word)
        if words and words[0] == "timeout":
            words.pop(0)
            while words and (_OPTION.match(words[0]) or _DURATION.fullmatch(words[0])):
                words.pop(0)
        runner = ""
        if words and words[0].lower() in _RUNNERS:
            runner = words.pop(0).lower()
            while words and _OPTION.match(words[0]):
                words.pop(0)
        elif len(words) > 2 and (words[0].lower(), words[1]) in _PROJECT_RUNNERS and not _OPTION.match(words[2]):
            runner = f"{words[0].lower()} {words[1]}"
            words = words[2:]
        if words and words[0].lower() in ("pnpm", "yarn") and words[1:2] == ["dlx"]:
            words = words[2:]
        if not words:
            continue
        program = _VERSION_PIN.sub("", words[0].replace("\\", "/").rsplit("/", 1)[-1]).lower()
        if program in ("cd", "pushd", "set-location", "sl"):
            if not commands and len(words) > 1:
                cwd = words[1]
            continue
        if program in ("export", "set", "source", ".", "setopt", "unset"):
            continue
        if not runner and (project_bin := _PROJECT_BIN.match(words[0])):
            runner = project_bin.group(0)
        commands.append(
            Command(program=program, args=words[1:], env=env, text=segment, background=background, runner=runner)
        )
    return commands, cwd


def intent_of(tool: str, text: str) -> Intent:
    """The intent of a call from its tool name and its (summarised) input."""
    name = (tool or "").lower()
    text = text or ""
    patched = _PATCH_FILE.findall(text)
    if name in EDIT_TOOLS or patched or text.lstrip().startswith("apply_patch"):
        files = patched or [_first_path(text)]
        tool = name if name in EDIT_TOOLS else "apply_patch"  # a patch fed to a shell is still an edit
        return Intent("edit", tool, targets=[_norm_path(f) for f in files if f])
    if name in READ_TOOLS:
        return Intent("read", name, targets=[_norm_path(p) for p in [_first_path(text)] if p])
    if name in SHELL_TOOLS or name.endswith("shell") or name.endswith("bash"):
        commands, cwd = parse_command_line(text)
        return Intent("shell", name, commands=commands, cwd=cwd, setup=_setup_of(text))
    target = _first_path(text) or _first_word(text)
    return Intent("tool", name, targets=[target] if target else [])


_SETUP = rx.compile(r"^\s*(?:source|\.|export|set|setopt|unset)\s+\S")


# a setup word where a segment may start (the start, whitespace or a separator before it) and a space or a line
# continuation after it: without one, no segment can be a setup step, and the line need not be cut
_MAY_SET_UP = rx.compile(r"(?:^|[\s;&|])(?:source|\.|export|set|setopt|unset)[\s\\]")  # \\: a continued line


def _setup_of(text: str) -> list[str]:
    """The parts of a command line that set the shell up for what follows (a venv sourced, a variable exported)."""
    body = unwrap(text)
    if not _MAY_SET_UP.search(body):
        return []
    return [" ".join(seg.split()) for seg in split_segments(body) if _SETUP.match(seg)]


_PATH_VALUE = rx.compile(r'"(?:file_path|path|notebook_path|file)"\s*:\s*"([^"]+)"')


def _first_path(text: str) -> str:
    head = text[:400]
    match = _PATH_VALUE.search(head)
    if match:
        return match.group(1)
    match = _PATHLIKE.search(head)
    return match.group(0) if match else ""


def _first_word(text: str) -> str:
    match = _WORD.search(text[:200])
    return match.group(0).lower() if match else ""


def _norm_path(path: str) -> str:
    return path.replace("\\", "/").strip("'\"` ").rstrip("/").lower()


def _same_target(a: str, b: str) -> bool:
    if not a or not b:
        return False
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    return long_.endswith("/" + short) and "/" in short  # a relative path and its absolute form


def same_intent(failed: Intent, later: Intent) -> bool:
    """Does ``later`` try what ``failed`` tried (so its success shows how the failure is avoided)?"""
    if failed.kind != later.kind:
        return False
    if failed.kind in ("edit", "read"):
        return any(_same_target(a, b) for a in failed.targets for b in later.targets)
    if failed.kind == "tool":
        return failed.tool == later.tool
    main = failed.main
    if main is None:
        return False
    if is_look(main):
        return False  # a failed look is exploration; nothing is learned from trying again
    for command in later.commands:
        if command.program != main.program:
            continue
        if main.subcommand and command.subcommand != main.subcommand:
            continue
        return True
    return False


@record
class Difference:
    """What a working call did differently from the failed one, in words a lesson can use."""

    kind: str  # flag | env | escalated | before | cwd | args | ""
    text: str

    def __bool__(self) -> bool:
        return bool(self.kind)


_PERMISSION = rx.compile(r"Permission denied|Operation not permitted|EACCES|EPERM|Read-only file system", re.I)
_ERROR_PATH = rx.compile(r"(?:^|[\s'\"`(])((?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]+)*)")


# folders every machine of the kind has, where a refused write says something about the machine
SYSTEM_DIRS = ("/tmp", "/var/tmp", "/var", "/opt", "/usr", "/usr/local", "/etc", "/srv", "/mnt", "/run")
_TOOL_HOME = rx.compile(r"^(~/(?:\.[\w.-]+|Library/(?:Caches|Application Support|Preferences)))(?:/|$)")


def portable_folder(path: str) -> str:
    """The folder a refused write went to, said so that it holds on another machine of the user: a system folder
    the file was right in (/tmp), a tool's folder in the home (~/.npm, ~/.cache, ~/Library/Caches), or a folder of
    the project (./build); "" for a folder of this machine only (another home's folder, ~/Desktop/x, a random temp
    folder such as /tmp/ana-x8k2, a mounted disk's folder)."""
    from automem.extract.usable import generalize

    text = generalize(path).rstrip("/")
    parent = text.rsplit("/", 1)[0] if text.count("/") > 1 else text
    if parent in SYSTEM_DIRS:
        return parent
    tool = _TOOL_HOME.match(text)
    if tool:
        return tool.group(1)
    if text.startswith("./") and "<tmp>" not in text:
        return parent if parent != "." else "./"
    return ""


def _reads(intent: Intent, targets: list[str]) -> bool:
    """Did this successful call look at one of ``targets`` (a Read, or ``cat``/``sed -n`` of the file)?"""
    if intent.kind == "read":
        return any(_same_target(a, b) for a in targets for b in intent.targets)
    if intent.kind == "shell":
        names = {t.rsplit("/", 1)[-1] for t in targets}
        return any(
            is_look(c) and any(a.replace("\\", "/").rsplit("/", 1)[-1].lower() in names for a in c.positional)
            for c in intent.commands
        )
    return False


# a name an error quotes: tag 'v1.0' already exists, pathspec "docs" did not match
_QUOTED_NAME = rx.compile(r"""['"`\u2018\u201c]([^'"`\u2019\u201d\s]{2,80})['"`\u2019\u201d]""")


# options that make a call do another thing than the one that failed
_OTHER_ACTION = frozenset(
    {"--delete", "--abort", "--continue", "--skip", "--quit", "--list", "--remove", "--unset", "--help", "--version"}
    | {"--dry-run", "-h"}
)
_OTHER_GIT_ACTION = frozenset({"-d", "-D", "-l", "-m", "-M"})  # git branch/tag: delete, list, rename
# options that push past the check that refused the call (a rejected push, a commit hook, a certificate): whether that
# was right is the user's call each time, never a lesson to apply from the start
_OVERRIDES = frozenset(
    {"--force", "--force-with-lease", "--no-verify", "--insecure", "--hard", "--allow-unrelated-histories"}
    | {"--no-check-certificate", "--unsafe-perm", "--skip-verify", "--no-gpg-sign"}
    | {"--break-system-packages", "--trusted-host"}  # pip past the system's own packages, or past TLS checks
)
_OVERRIDES_OF = {"git": frozenset({"-f", "-n"}), "curl": frozenset({"-k"}), "wget": frozenset({"-k"})}


_OVERRIDING_ENV = rx.compile(
    r"(?:HUSKY=0|NODE_TLS_REJECT_UNAUTHORIZED=0|GIT_SSL_NO_VERIFY=|PYTHONHTTPSVERIFY=0|SKIP=|PRE_COMMIT_ALLOW_NO_CONFIG="
    r"|SKIP_PREFLIGHT_CHECK=|\w*_NO_VERIFY=|\w*INSECURE\w*=)",
    re.I,
)


_TEMP_DIR = rx.compile(r"^(?:/tmp\b|/private/tmp\b|/var/folders/|/var/tmp\b|\$TMPDIR|%TEMP%|.*[\\/]Temp[\\/])", re.I)


# options that make a check check less: a subset of the tests, a rule or a path skipped, findings hushed
_NARROWS = frozenset(
    {"--deselect", "--lf", "--last-failed", "--co", "--collect-only", "--testNamePattern", "--testPathIgnorePatterns"}
    | {"--onlyChanged", "--passWithNoTests", "--grep", "--grep-invert", "--shard", "--changed", "--related"}
    | {"--findRelatedTests", "--lib", "--bins", "--bin", "--quiet", "--exit-zero", "--max-warnings", "--skipLibCheck"}
    | {"--ignore-missing-imports", "--follow-imports", "--no-strict", "--allow-untyped-defs", "--warn-only"}
)
_NARROWING_PREFIX = ("--ignore", "--skip", "--exclude", "--extend-exclude", "--disable", "--no-verify")
_TEST_RUNNERS = frozenset({"pytest", "py.test", "jest", "vitest", "mocha", "playwright", "cypress", "ava", "tap"})
_NARROWS_TESTS = frozenset(
    {"-k", "-m", "-t", "-o", "--project", "--filter", "--only", "--tags", "-run", "-skip", "--tests", "-Dtest"}
    | {"-Dit.test"}
)


def _narrows(command: Command, option: str) -> bool:
    name = option.split("=", 1)[0]
    if name in _NARROWS or name.startswith(_NARROWING_PREFIX):
        return True
    tests = command.program in _TEST_RUNNERS or "test" in command.subcommand or command.subcommand == "run"
    return tests and name in _NARROWS_TESTS


def _overrides(command: Command, option: str) -> bool:
    name = option.split("=", 1)[0]
    return name in _OVERRIDES or name in _OVERRIDES_OF.get(command.program, ())


def _avoided(failed: Intent, fix: Intent, error: str) -> bool:
    """Did the retry drop a name the error quoted that the failed call had?"""
    failed_text = " ".join(c.text for c in failed.commands)
    fix_text = " ".join(c.text for c in fix.commands)
    return any(name in failed_text and name not in fix_text for name in _QUOTED_NAME.findall(error))


def _empty_value_added(failed: Command, fix: Command) -> str:
    """The option an empty argument was added after, all else the same (BSD ``sed -i ''`` for ``sed -i``), or ""."""
    if len(fix.args) != len(failed.args) + 1:
        return ""
    for at, arg in enumerate(fix.args):
        if (
            arg == ""
            and at > 0
            and _OPTION.match(fix.args[at - 1])
            and fix.args[:at] + fix.args[at + 1 :] == failed.args
        ):
            return fix.args[at - 1]
    return ""


def _set_up_first(failed: Intent, fix: Intent, index: int) -> bool:
    """The retry ran a command of its own before the call (``source .venv/bin/activate &&``) that the failed one
    did not: a second change besides any flag."""
    ran = {c.text for c in failed.commands}
    return any(not is_look(c) and c.text not in ran for c in fix.commands[:index]) or bool(
        set(fix.setup) - set(failed.setup)
    )


# PowerShell's reading verbs and .NET getters: Get-*, Select-*, Format-*, [Environment]::GetEnvironmentVariable
_POWERSHELL_LOOK = rx.compile(r"^(?:(?:get|select|format|measure|test|write|out)-\w|\[[\w.]+\]::get)", re.I)
_SETS_PATH = rx.compile(
    r"\$env:path\b|\bPATH=|SetEnvironmentVariable\(\s*['\"]path['\"]|\bsetx\s+path\b|\bfish_add_path\b"
    r"|\bset\s+-\w*x\w*\s+PATH\b",
    re.I,
)


_NETWORK_PROBES = frozenset({"ping", "dig", "nslookup", "host", "traceroute"})
_CURL_SENDS = frozenset(
    {"-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "-X", "--request", "-T", "--upload-file", "-F"}
    | {"--form", "-o", "-O", "--output", "--remote-name"}
)


def _probe(command: Command) -> bool:
    """A call that only asks a server something: a plain ``curl`` GET (a health check), ``ping``, ``dig``."""
    if command.program in _NETWORK_PROBES:
        return True
    return command.program == "curl" and not any(o.split("=", 1)[0] in _CURL_SENDS for o in command.options)


def is_probe(intent: Intent) -> bool:
    """Is the call's main command one that only asks a server something (a plain curl GET, ping, dig)?"""
    return intent.main is not None and _probe(intent.main)


def _changes(failed: Intent, fix: Intent, same: Command, between: list[Intent]) -> int:
    """How many different changes came between the failed call and the one that worked: each other command run in
    between or in front of the retry (not a look, nor another try of the same call), and in the retry itself its
    added settings, its added options and another folder, each counted once."""
    main = failed.main
    if main is None:
        return 0
    ran = {c.text for c in failed.commands}

    def other(c: Command) -> bool:
        return (
            not is_look(c)
            and not _POWERSHELL_LOOK.match(c.program)
            and not _probe(c)
            and c.text not in ran
            and (c.program, c.subcommand) != (main.program, main.subcommand)
        )

    def change(text: str) -> str:
        return "PATH" if _SETS_PATH.search(text) else text  # the PATH set for the session and saved: one change

    done = {change(c.text) for i in between if i.kind == "shell" for c in i.commands if other(c)}
    done |= {change(s) for i in between if i.kind == "shell" for s in i.setup if s not in failed.setup}
    done |= {change(c.text) for c in fix.commands[: fix.commands.index(same)] if other(c)}
    done |= {change(s) for s in set(fix.setup) - set(failed.setup)}
    count = len(done)
    count += any(e not in main.env for e in same.env)
    count += any(o not in main.options and o != "--" for o in same.options)
    count += bool(fix.cwd and fix.cwd != failed.cwd)
    return count


def difference(
    failed: Intent,
    fix: Intent,
    *,
    failed_escalated: bool = False,
    fix_escalated: bool = False,
    between: list[Intent] | None = None,
    error: str = "",
) -> Difference:
    """The change that made ``fix`` work where ``failed`` did not; empty when none can be named.

    ``between`` are the calls that succeeded between the two. When one of them edited a file, that
    edit may be what made the difference, so nothing is claimed (the diagnosis rule covers it).
    """
    between = between or []
    if failed.kind == "read":
        if fix.tool != failed.tool:
            return Difference("tool", f"{fix.tool} on the same file")
        return Difference("", "")
    if failed.kind == "edit":
        if any(_reads(i, failed.targets) for i in between):
            return Difference("before", "after reading the file first")
        return Difference("", "")
    edits = [i for i in between if edited_files(i)]
    if failed.kind == "tool":
        others = [i for i in between if i.kind == "tool" and i.tool != failed.tool]
        if others and not edits:
            return Difference("before", f"after `{others[-1].tool}`")
        return Difference("", "")
    if failed.kind != "shell" or fix.kind != "shell":
        return Difference("", "")
    main = failed.main
    if main is None:
        return Difference("", "")
    same = next(
        (
            c
            for c in fix.commands
            if c.program == main.program and (not main.subcommand or c.subcommand == main.subcommand)
        ),
        None,
    )
    if same is None:
        return Difference("", "")
    if fix_escalated and not failed_escalated and same.text == main.text:
        return Difference("escalated", "with escalated sandbox permissions")
    if any(rewritten_files(c) for c in fix.commands[: fix.commands.index(same)]):
        return Difference("", "")  # `sed -i … && npm test`: the code was changed, the call was not run differently
    if edits:
        files = {t for i in edits for t in edited_files(i)}
        path = next(iter(files)) if len(files) == 1 else ""
        edited = path.rsplit("/", 1)[-1]
        configures = _CONFIG_FILE.search(edited) or _CONFIG_DIR.search(path)
        if configures and same.text == main.text and len(between) == len(edits):
            return Difference("edit", f"after editing {edited}")
        # several changes, or a fix to the code the call runs or checks (a failing test, a type error, a lint
        # finding): that is the work itself, not a lesson about running the call
        return Difference("", "")
    if _avoided(failed, fix, error):
        return Difference("", "")  # the retry left out what the error named: that is the work, not a way to run it
    if _changes(failed, fix, same, between) >= 2:
        return Difference("", "")  # two different changes before it worked: which one fixed it is not known
    added_env = [e for e in same.env if e not in main.env]
    if any(_OVERRIDING_ENV.match(e) for e in added_env):
        return Difference("", "")  # HUSKY=0, NODE_TLS_REJECT_UNAUTHORIZED=0: a check switched off, as with --no-verify
    if added_env:
        from automem.extract.usable import secret_setting

        secret = [e.split("=", 1)[0] for e in added_env[:2] if secret_setting(e)]
        if secret:  # a credential: the lesson names the setting, never its value
            plain = [e for e in added_env[:2] if e.split("=", 1)[0] not in secret]
            return Difference("env", "with " + " and ".join(plain + [" and ".join(secret) + " set"]))
        return Difference("env", " ".join(added_env[:2]))
    added = [o for o in dict.fromkeys(same.options) if o not in main.options and o != "--"]
    lists_refs = main.program == "git" and main.subcommand in ("branch", "tag")
    other = _OTHER_ACTION | (_OTHER_GIT_ACTION if lists_refs else frozenset())
    if any(o.split("=", 1)[0] in other for o in added):
        return Difference("", "")  # `git tag -d`, `git rebase --abort`: another action, not the same call fixed
    if any(_narrows(same, o) for o in added):
        return Difference("", "")  # fewer tests run, a check skipped, findings hushed: it passed by checking less
    if main.program in ("rm", "rmdir", "del", "remove-item") or any(_overrides(same, o) for o in added):
        return Difference("", "")  # the retry overrode the check that stopped it: no way to run the call from the start
    ran_before = fix.commands[: fix.commands.index(same)] + [c for i in between for c in i.commands]
    if any(_overrides(c, o) for c in ran_before for o in c.options):
        return Difference("", "")  # `git reset --hard` first: what it threw away is the user's call each time
    index = fix.commands.index(same)
    if added and _set_up_first(failed, fix, index):
        return Difference("", "")  # a flag added and a setup run first: which one fixed the call is not known
    if added:
        return Difference("flag", " ".join(added[:3]))
    emptied = _empty_value_added(main, same)
    if emptied:
        return Difference("flag", f"{emptied} ''")
    if _PERMISSION.search(error):
        gone = [p for p in _ERROR_PATH.findall(error) if p in main.text and p not in same.text]
        if gone:
            folder = portable_folder(gone[0])
            # a folder of this machine only (another user's home, a random temp folder, a disk's mount): no lesson
            return Difference("path", folder) if folder else Difference("", "")
    before = [
        c.text for c in fix.commands[:index] if not is_look(c) and c.text not in {x.text for x in failed.commands}
    ]
    if before:
        return Difference("before", "after `" + " && ".join(before[-2:])[:100] + "`")
    installs = [c for i in between for c in i.commands if is_install(c)]
    if installs:
        return Difference("before", f"after `{installs[-1].text[:80]}`")
    asked = [i for i in between if i.kind == "shell" and i.commands and all(_probe(c) for c in i.commands)]
    last = next((i for i in reversed(between) if i not in asked), None)  # a health check asks, changes nothing
    if (
        last is not None
        and last.kind == "shell"
        and not last.read_only()
        and last.main is not None
        and (last.main.program != main.program or last.main.subcommand != main.subcommand)
        and same.text == main.text  # run again unchanged: only the call before it can have made the difference
    ):
        return Difference("before", f"after `{last.main.text[:80]}`")  # the call made right before it worked
    if fix.cwd and fix.cwd != failed.cwd and not _TEMP_DIR.match(fix.cwd):  # a temp folder is no place to keep
        return Difference("cwd", f"from {fix.cwd}")
    return Difference("", "")


def is_install(command: Command) -> bool:
    program, args = _installer(command)
    verb = _INSTALLERS.get(program)
    return bool(verb) and any(a == verb or a in _INSTALL_ALIASES.get(program, ()) for a in args[:3])


_PYTHON_OR_PY = rx.compile(r"python[\d.]*|py")


def _installer(command: Command) -> tuple[str, list[str]]:
    """The package manager a command runs and its arguments: ``python -m pip install x`` runs pip."""
    args = command.args
    if _PYTHON_OR_PY.fullmatch(command.program) and args[:1] == ["-m"] and args[1:2] in (["pip"], ["pip3"]):
        return "pip", args[2:]
    return command.program, args


# the other words a package manager takes for its install verb: the packages it names, or (none named) the ones the
# project declares: `npm ci`, `uv sync`, `poetry install`, `bundle install`
_INSTALL_ALIASES = {
    "npm": ("i", "add", "ci"),
    "pnpm": ("install", "i"),
    "bun": ("install", "i"),
    "yarn": ("install",),
    "uv": ("sync", "install"),
    "poetry": ("install",),
    "pdm": ("install", "sync"),
    "bundle": ("add",),
    "composer": ("install",),
}
_REQUIREMENTS_FILE = rx.compile(r"(?:^|/)(?:requirements|constraints)[\w.-]*\.(?:txt|in)$|^\.(?:\[[\w,.-]+\])?$")


def installs_dependencies(command: Command) -> bool:
    """An install of the packages the project declares (``npm ci``, ``uv sync``, ``pip install -e .`` or ``-r
    requirements.txt``, ``poetry install``, ``bundle install``), naming no package of its own."""
    if not is_install(command):
        return False
    program, args = _installer(command)
    if program in _SYSTEM_INSTALLERS:
        return False
    names = installed_names(command)
    if any(a in ("-r", "--requirement") for a in args):
        return len(names) == 1  # the file of requirements
    if any(a in ("-e", "--editable") for a in args):
        return all(_REQUIREMENTS_FILE.search(n) or n.startswith(("./", "../")) for n in names)
    return all(_REQUIREMENTS_FILE.search(n) for n in names)


_SYSTEM_INSTALLERS = frozenset(
    {"brew", "apt", "apt-get", "pkg", "dnf", "yum", "pacman", "zypper", "apk", "winget", "choco", "scoop", "pipx"}
    | {"snap", "cargo", "go", "gem"}
)


# files that configure how a call runs, rather than the code it runs: an edit of one can be what a call needed
_CONFIG_FILE = rx.compile(
    r"^(?:package\.json|tsconfig[\w.-]*\.json|jsconfig\.json|pyproject\.toml|setup\.cfg|setup\.py|tox\.ini"
    r"|pytest\.ini|requirements[\w.-]*\.txt|Pipfile|Cargo\.toml|go\.mod|Gemfile|Makefile|CMakeLists\.txt"
    r"|Dockerfile[\w.-]*|docker-compose[\w.-]*\.ya?ml|compose[\w.-]*\.ya?ml|\.env[\w.-]*|\.\w+rc(?:\.\w+)?"
    r"|[\w.-]+\.config\.[cm]?[jt]s|[\w.-]+\.(?:toml|ini|cfg|conf|properties|gradle)"
    r"|(?:config|settings|defaults)[\w.-]*\.json)$",
    re.I,
)
# a data file in a configuration folder (config/defaults.json), not code kept there (config/routes.rb)
_CONFIG_DIR = rx.compile(r"(?:^|/)(?:config|configs|conf|settings)/[^/]+\.(?:json|ya?ml|toml|ini|env|cfg|conf)$", re.I)


def installs_for_project(command: Command) -> bool:
    """An install into the project (its manifest or environment), not onto the machine: not ``npm i -g``, ``pip
    install --user``, brew, apt or another system package manager."""
    if not is_install(command) or command.program in _SYSTEM_INSTALLERS:
        return False
    args = command.args
    if command.program == "yarn" and "global" in args[:2]:
        return False
    return not any(
        a in _MACHINE_WIDE or (a == "--location" and args[i + 1 : i + 2] == ["global"]) for i, a in enumerate(args)
    )


_MACHINE_WIDE = frozenset(
    {"-g", "--global", "--location=global", "--user", "--break-system-packages", "-t", "--target", "--prefix", "--root"}
)


def installed_names(command: Command) -> list[str]:
    """The packages an install command names (``pkg install openssh`` -> ["openssh"])."""
    if not is_install(command):
        return []
    program, _args = _installer(command)
    verbs = {_INSTALLERS[program], *_INSTALL_ALIASES.get(program, ()), "install", "add", "i", "global", "-S"}
    if program == "uv":
        verbs.add("pip")  # `uv pip install x`
    return [a for a in command.positional[2 if program != command.program else 0 :] if a not in verbs]

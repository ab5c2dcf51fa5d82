"""Text a future session can use: no machine paths, no terminal noise, no sentence fragments.

A memory is read later, on another day and maybe another machine, by an agent that saw none of
the session. So the extractor's text goes through here before it is stored:

- terminal escapes (ANSI colour, OSC titles and clipboard writes) and control characters go;
- the project's own folder becomes ``./``, home folders become ``~`` (whoever's they are: the
  user name is not a lesson), temp folders become ``<tmp>`` in the body and leave the summary;
- a summary must read as a sentence out of context: a few real words, not ending in a cut word
  or a dangling "the"/"to"/"--", not opening on a pronoun whose referent stayed in the session
  ("They must never...", "Close -- it's at...") nor, when it is a few words, acting on one ("Read it in full").
  Anything else is not stored.
"""

from __future__ import annotations

import re

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.controls import strip_controls

_HOME = rx.compile(
    r"(?<![\w/.])(?:/home/[^/\s'\"`:]+|/Users/[^/\s'\"`:]+|/data/data/com\.termux/files/home|/var/home/[^/\s'\"`:]+"
    r"|/root(?=/|\b))"
    r"|(?<![\w])[A-Za-z]:[\\/](?:Users|Documents and Settings)[\\/][^\\/\s'\"`:]+",
    re.I,
)
# Termux's install prefix (what its shell calls $PREFIX): the same programs live there on every phone
_TERMUX_PREFIX = rx.compile(r"(?<![\w/.])/data/data/com\.termux/files/usr(?=/|\b)")
_TEMP = rx.compile(
    r"(?<![\w/])(?:/private)?/(?:tmp|var/tmp|var/folders/[\w/+-]+?/T)(?:/[^\s'\"`)\]]*)?"
    r"|(?:~|%USERPROFILE%)[\\/]AppData[\\/]Local[\\/]Temp(?:[\\/][^\s'\"`)\]]*)?",
    re.I,
)


def _root_forms(root: str) -> list[str]:
    """The spellings of a project folder a transcript may use (POSIX, Windows, either slash, from the home folder)."""
    root = (root or "").rstrip("/\\")
    if len(root) < 4 or root in ("/", "~"):
        return []
    forms = {root, root.replace("\\", "/"), root.replace("/", "\\")}
    if re.match(r"[A-Za-z]:[\\/]", root) and len(root) >= 7:
        # a Windows folder as a path parser leaves it, without its drive (c:\work\shop -> /work/shop)
        forms |= {root[2:].replace("\\", "/"), root[2:].replace("/", "\\")}
    home = _HOME.match(root)
    if home and root[home.end() :][:1] == "/":
        forms.add("~" + root[home.end() :])  # ~/work/shop: the same folder, written as the shell lets one write it
    return sorted(forms, key=len, reverse=True)


# `cd <project> &&` opening a command: the next session starts in the project, so the cd says nothing there
_CD_INTO_PROJECT = rx.compile(r"(?:^|(?<=`))cd\s+(['\"]?)\./?\1\s*(?:&&|;)\s*", re.M)


def generalize(text: str, project_root: str = "") -> str:
    """Machine-specific folders out: the project becomes ``./``, homes ``~`` (``%USERPROFILE%`` on Windows), Termux's
    install folder ``$PREFIX``, temp folders ``<tmp>``."""
    text = strip_controls(text)
    if project_root and _HOME.fullmatch(project_root.rstrip("/\\")):
        project_root = ""  # a session started in a home folder: the home rule below says it better
    for form in _root_forms(project_root):
        text = re.sub(
            re.escape(form) + r"(?:[\\/](?=\S)|(?![\w.-]))",
            lambda m: "./" if m.group(0)[-1:] in "/\\" else ".",
            text,
            flags=re.I,
        )
    if project_root:
        text = _CD_INTO_PROJECT.sub("", text)
    text = _HOME.sub(_home, text)
    text = _TERMUX_PREFIX.sub("$PREFIX", text)
    return _TEMP.sub(_temp, text)


def _home(match: re.Match) -> str:
    """``~`` for a POSIX home; ``%USERPROFILE%`` for a Windows one: ``~`` there reads as a real folder name, while
    ``%USERPROFILE%`` is the placeholder Windows users know to fill in (no shell expands it everywhere: cmd does,
    PowerShell does not, so a stored command is text to adapt, not to paste)."""
    return "%USERPROFILE%" if match.group(0)[1:2] == ":" else "~"


_RANDOM = rx.compile(r"(?:tmp|temp)[\w.-]{4,}|[0-9a-f]{8,}|[\w-]*\d{5,}[\w-]*|claude-\d+|pytest-\d+", re.I)


def _temp(match: re.Match) -> str:
    """A temp path keeps its folder and a meaningful name; generated parts (tmpab12cd, hashes) become <tmp>."""
    path = match.group(0)
    head = re.match(
        r"(?:/private)?/(?:tmp|var/tmp)|(?:~|%USERPROFILE%)[\\/]AppData[\\/]Local[\\/]Temp|/var/folders", path, re.I
    )
    if not head:
        return "<tmp>"
    rest = path[head.end() :][:300]
    if not rest.strip("/\\"):
        return head.group(0)
    if _RANDOM.search(rest) or rest.count("/") + rest.count("\\") > 2:
        return head.group(0) + "/<tmp>"
    return path


_DOT_SLASH = rx.compile(r"(?<![\w.])\./(?=\s|$|[,;:)])")


def summary_text(text: str, project_root: str = "") -> str:
    """A summary without temp folders, and with the project and homes written portably."""
    text = generalize(text, project_root)
    text = re.sub(r"(?<=/tmp)/\S+", "", text)
    text = re.sub(r"\s*\S*<tmp>\S*", "", text)
    text = _DOT_SLASH.sub("the project folder", text)
    return " ".join(text.split())


_DANGLING = rx.compile(
    r"(?:\b(?:the|a|an|to|of|and|or|with|in|on|for|from|by|at|as|is|are|that|which|but|so|if|when|then|via|into|than"
    r"|not|no|your|my|our|their|its)|--?|[:,;(\[{/\\=+&|<>*])\s*…?$",
    re.I,
)
# "this repo", "this project": the place a rule holds in, which the next session is in too
_THIS_PLACE = r"(?!\s+(?:repo|repository|project|codebase|folder|directory|machine|workspace|session|file named)\b)"
_PRONOUN_START = rx.compile(
    r"^(?!her (?:zaman|seferinde)\b)"  # Turkish "her zaman" (always) opens a rule, no English "her"
    r"(?:they|them|it|its|it's|this|that|these|those|he|she|him|her|there|here|close|same|or|and|but)"
    r"(?![A-Za-z])" + _THIS_PLACE,
    re.I,
)
_PRONOUN_START_CJK = rx.compile(  # "这个改为…" ("change this to…"), "それを…": the referent stayed in the session
    r"^(?:这个|这些|这里|那个|那些|它们?|他们|她们|此|これ|それ|あれ|この|その|あの|이거|이것|이건|그거|그것|그건|저것)"
    r"(?!\s*(?:项目|仓库|目录|文件夹|工程|仓|プロジェクト|リポジトリ|フォルダ|프로젝트|저장소|폴더))"
)
_BARE_OBJECT = rx.compile(r"(?<![\w'])(?:it|them|this|that|these|those)(?![\w'])" + _THIS_PLACE, re.I)
_CJK_CLASS = r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"  # kana, CJK ideographs, Hangul syllables
CJK_CHAR = rx.compile(_CJK_CLASS)  # in these scripts a character says about what a word does
_WORD = rx.compile(r"[^\W\d_]{2,}|" + _CJK_CLASS)


def readable(summary: str) -> bool:
    """Does a summary read as a sentence out of context (or should the memory not be stored)?"""
    text = " ".join((summary or "").split())
    if len(text) < 12 or len(_WORD.findall(text)) < 3:
        # a line of Chinese or Japanese counts no words; a short one reads alone when it says it lasts ("以后...")
        from automem.extract.directives import OUTLASTS

        if len(CJK_CHAR.findall(text)) < 6 or not OUTLASTS.search(text):
            return False
    if text.endswith("…") and not re.search(r"[;:]\s*…$", text):
        return False  # cut inside a word or a clause
    if _DANGLING.search(re.sub(r";\s*…$", "", text).rstrip(".!")):
        return False
    if _PRONOUN_START.match(text) or _PRONOUN_START_CJK.match(text):
        return False
    if _BARE_OBJECT.search(text) and len(text.split()) <= 5:
        return False  # "Read it in full", "Fix that too": what "it" is stayed in the session
    if (
        text.count("`") % 2
        or text.count('"') % 2
        or text.count("(") != text.count(")")
        or text.count("[") != text.count("]")
    ):
        return False  # a quote or parenthesis opened and never closed: a cut
    return True


# --- secret values --------------------------------------------------------------------------------

# a setting whose name says it holds a credential: OPENAI_API_KEY, GH_TOKEN, DB_PASSWORD, AWS_SECRET_ACCESS_KEY
_SECRET_NAME = rx.compile(
    r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PASSPHRASE|CREDENTIALS?|AUTH|PAT|COOKIE|PRIVATE_KEY"
    r"|ACCESS_KEY(?:_ID)?|CLIENT_SECRET|DSN)(?:_|$)|APIKEY|AUTHTOKEN",
    re.I,
)
# NAME=value as a shell, an env file or docker's -e writes it (quoted or bare)
_SETTING = rx.compile(r"(?<![\w$.-])([A-Za-z_][A-Za-z0-9_]{1,63})=(\"[^\"\n]*\"|'[^'\n]*'|[^\s'\"`;&|()<>]+)")
SECRET_VALUE = "<secret>"


def secret_setting(assignment: str) -> bool:
    """Does ``NAME=value`` set a credential: a name that says so with a value that could be one (not a flag, a number,
    a path or a reference to another setting), or a value the redaction rules take for a secret (a token, a URL with
    its password)?"""
    name, _, value = assignment.partition("=")
    value = value.strip("'\"")
    if not value or value.startswith(("$", "%", "<", "[REDACTED")):
        return False
    if (
        _SECRET_NAME.search(name)
        and not _NOT_A_SECRET_NAME.search(name)
        and len(value) >= 6
        and not _PLAIN_VALUE.fullmatch(value)
    ):
        return True
    return holds_secret(assignment)


# a setting about a credential that holds none: where it is, how long it lives
_NOT_A_SECRET_NAME = rx.compile(
    r"_(?:FILE|PATH|DIR|URL|HOST|PORT|NAME|ID|LENGTH|LEN|TTL|TIMEOUT|EXPIRY|HEADER|TYPE|MODE|ENABLED|DISABLED"
    r"|REQUIRED)$|^(?:SKIP|NO|DISABLE|ENABLE|USE)_",
    re.I,
)
_PLAIN_VALUE = rx.compile(r"true|false|yes|no|on|off|none|null|\d+|[.~/].*|\w+\.(?:json|pem|key|txt|env|ya?ml)", re.I)


def without_secret_values(text: str) -> str:
    """``NAME=value`` settings that hold a credential written ``NAME=<secret>``: a lesson may name the setting, never
    its value."""
    if not text or "=" not in text:
        return text
    return _SETTING.sub(
        lambda m: f"{m.group(1)}={SECRET_VALUE}" if secret_setting(m.group(0)) else m.group(0),
        text,
    )


def holds_secret(text: str) -> bool:
    """Does the text still carry something the redaction rules would hide?"""
    from automem.redact.fast import redact_fast

    return bool(text) and redact_fast(text) != text

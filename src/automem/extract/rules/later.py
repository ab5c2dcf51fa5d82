"""Every candidate checked once more against the whole session: what happened later can undo a lesson.

A rule reads the calls around its evidence; the session may have gone on to show that the evidence meant less. Two
checks; each makes a lesson wait as a candidate rather than inject what the session took back:

- a "What worked: `cmd`" whose program the session later shows missing (``nohup: failed to run command 'python3'``)
  did not work: that line is dropped, and the candidate loses the verified-fix that rested on it;
- a candidate that names a file the session deleted or moved away in the end (``rm``, ``git rm``, ``mv``,
  ``Remove-Item``, and nothing wrote it again afterwards) would point the next session at nothing: it stays a
  candidate, never injected unless the user says it again.
"""

from __future__ import annotations

import re

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.extract.intent import intent_of
from automem.extract.rules import Session
from automem.schema import VERIFIED_FIX, Candidate

_SAYS_MISSING = rx.compile(r"not found|not recognized|failed to run command|No such file or directory")
_WORKED = rx.compile(r"\n?What worked: `([^`\n]+)`[^\n]*")
_DELETERS = frozenset({"rm", "unlink", "del", "erase", "remove-item", "ri", "rmdir", "trash"})
# a path-like word of a summary: a/b/c.md, ./docs/plan.md, notes.md
_PATH_WORD = rx.compile(r"(?<![\w/.@-])(?:\.{0,2}/)?(?:[\w.@-]+/)*[\w@-][\w.@-]*\.[A-Za-z0-9]{1,8}(?![\w/])")


def check_later(session: Session, found: list[Candidate]) -> list[Candidate]:
    """The candidates, each weighed once more against the rest of its session (see the module's text)."""
    absent = absent_programs(session)
    deleted = deleted_at_end(session)
    out = []
    for cand in found:
        gone = names_deleted(cand, deleted) if deleted else ""
        if gone:
            cand.promotion = ""
            cand.why = f"{cand.why.rstrip()} Later in the session {gone} was deleted or moved away.".strip()
            cand.how_to_apply = f"Check that {gone} still exists first; if it does, {_lowered(cand.how_to_apply)}"
        if absent:
            _unverify(cand, absent)
        out.append(cand)
    return out


def _lowered(advice: str) -> str:
    """Advice continuing a sentence: its first letter lowered unless it starts a name ("Keep it" -> "keep it")."""
    first = advice.split(" ", 1)[0]
    return advice[:1].lower() + advice[1:] if first[1:].islower() else advice  # "PyPI ..." stays


def absent_programs(session: Session) -> set[str]:
    """Programs a call reported missing and that nothing after that report brought back: no install of a package
    providing them, no call that ran them without the same report."""
    from automem.extract.rules.errors import installs_between, missing_name

    absent: dict[str, int] = {}
    for index, step in enumerate(session.steps):
        if step.kind != "action":
            continue
        name = ""
        if not step.ok or _SAYS_MISSING.search(step.result_head):
            name = missing_name(session, index)
        if name:
            absent[name] = index
        elif step.ok:
            for ran in session.intent(index).programs & absent.keys():
                del absent[ran]  # it ran after all
    end = len(session.steps)
    return {name for name, index in absent.items() if not installs_between(session, index, end, name)}


def _unverify(cand: Candidate, absent: set[str]) -> None:
    match = _WORKED.search(cand.content)
    if not match or not intent_of("Bash", match.group(1)).programs & absent:
        return
    cand.content = (cand.content[: match.start()] + cand.content[match.end() :]).strip()
    if cand.promotion == VERIFIED_FIX:
        cand.promotion = ""


def deleted_at_end(session: Session) -> list[str]:
    """Files of the project a call deleted or moved away and that no later call named again (a tool that writes
    them back, a copy, a checkout, an edit): lower-case, ``/`` for ``\\``."""
    deleted: dict[str, str] = {}  # path -> its file name
    root = session.root.replace("\\", "/").rstrip("/").lower()
    for index, step in enumerate(session.steps):
        if step.kind != "action" or not step.ok:
            continue
        text = (step.raw or step.input).lower()
        for path in [p for p, name in deleted.items() if name in text]:
            del deleted[path]  # named again after it went: written back, copied or checked out, maybe
        intent = session.intent(index)
        if intent.cwd and intent.cwd.startswith(("/", "~")) and not _under(_norm_abs(intent.cwd), root):
            continue  # a folder elsewhere: not the project's file
        for command in intent.commands:
            args = command.positional
            moving = command.program in ("mv", "move-item")
            if command.program == "git" and args[:1] in (["rm"], ["mv"]):
                if "--cached" in command.args:
                    continue  # untracked, not deleted
                moving, args = args[0] == "mv", args[1:]
            elif not moving and command.program not in _DELETERS:
                continue
            if moving:
                if len(args) == 2 and _norm(args[0]) == _norm(args[1]):
                    continue  # a rename of its case only
                args = args[:-1]  # the sources: moved away
            for arg in (a.strip("'\"") for a in args):
                if "*" in arg or not _PATH_WORD.fullmatch(arg) or arg.startswith("../"):
                    continue
                if arg.startswith(("/", "~")) and not _under(_norm_abs(arg), root):
                    continue  # outside the project
                deleted[_norm(arg)] = _norm(arg).rsplit("/", 1)[-1]
    return list(deleted)


def names_deleted(cand: Candidate, deleted: list[str]) -> str:
    """The deleted file the candidate's summary names, as the summary spells it ("" when none, or when the
    candidate is about the deletion itself)."""
    if re.search(r"\b(?:delet|remov)", cand.summary, re.I) or cand.rule == "deleted_by_request_rule":
        return ""
    for word in _PATH_WORD.findall(cand.summary):
        if any(_same_file(_norm(word), path) for path in deleted):
            return word
    return ""


def _norm(path: str) -> str:
    path = path.replace("\\", "/").rstrip("/").lower()
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def _norm_abs(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").lower()


def _under(path: str, root: str) -> bool:
    return bool(root) and (path == root or path.startswith(root + "/"))


def _same_file(a: str, b: str) -> bool:
    """One path ends the other at a folder boundary (docs/plan.md and repo/docs/plan.md); bare names must be equal."""
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    return "/" in short and long.endswith("/" + short)

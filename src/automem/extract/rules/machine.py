"""Facts about the machine a session ran on: what a program lookup found, and places it could not write.

These are global lessons (they hold for every project on the machine), so each is stated only from
direct evidence: the output of ``which``/``command -v`` for what is installed, and a write that was
refused followed by the same job writing somewhere else for a place that is not writable.
"""

from __future__ import annotations

import re

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.extract import phrasing
from automem.extract.intent import SYSTEM_DIRS
from automem.extract.rules import Session
from automem.extract.steps import Step
from automem.schema import VERIFIED_FIX, Candidate

WINDOW = 12  # steps after a refused write in which the same job must have written elsewhere
HEAD_CAP = 300  # a step keeps this much of a call's output (extract/steps.py): a longer one was cut

PROBES = frozenset({"which", "where", "where.exe", "command", "type", "whereis", "get-command"})
_NAME = rx.compile(r"[A-Za-z][\w.+-]{0,40}")
_PATH_LINE = rx.compile(r"^\s*(?:(?P<name>[\w.+-]+) is )?(?P<path>/[^\s:]+|[A-Za-z]:\\[^\n:]+)\s*$")
_WHICH_NO = rx.compile(r"^which: no ([\w.+-]+) in", re.M)


def machine_label(root: str) -> str:
    """What kind of machine a project folder says it is on: "Termux", "Mac", "Windows", "WSL", or ""."""
    root = (root or "").replace("\\", "/")
    if "/com.termux/" in root:
        return "Termux"
    if re.match(r"^/mnt/[a-z]/", root):
        return "WSL"
    if re.match(r"^[A-Za-z]:/", root):
        return "Windows"
    if root.startswith("/Users/"):
        return "Mac"
    return ""


def this_machine(session: Session) -> str:
    """ "this machine", or "this Mac" / "this Termux machine" when the project folder says which."""
    label = machine_label(session.root)
    return {"Mac": "this Mac", "": "this machine"}.get(label, f"this {label} machine")


def probed_names(step: Step, intent) -> list[str]:
    """The program names a lookup call (``which a b``, ``command -v a``) asked about."""
    names: list[str] = []
    for command in intent.commands:
        if command.program.lower() not in PROBES:
            continue
        for word in command.positional:
            if _NAME.fullmatch(word) and word.lower() not in names and word not in ("-v", "-a"):
                names.append(word.lower())
    return names


def probe_shows(step: Step, intent, name: str) -> bool | None:
    """Did a lookup's output find ``name`` (True), show it missing (False), or say nothing either way (None)?

    ``which`` prints one path per program it finds and nothing (or "which: no X in ...") for one it does not;
    an output with no path line at all (silenced, or swallowed by a pipe) cannot tell."""
    if name not in probed_names(step, intent):
        return None
    text = step.result_head or ""
    found, any_path = set(), False
    for line in text.splitlines():
        match = _PATH_LINE.match(line)
        if match:
            any_path = True
            base = re.split(r"[/\\]", match.group("path").rstrip("/\\"))[-1].lower().removesuffix(".exe")
            found.add((match.group("name") or base).lower())
    if name in found:
        return True
    missing = {m.lower() for m in _WHICH_NO.findall(text)}
    if name in missing:
        return False
    probe = next((c.program for c in intent.commands if c.program.lower() in PROBES), "which")
    piped = re.search(rf"\b{re.escape(probe)}\b[^\n;&|]*\|", step.raw or step.input or "", re.I)
    cut = len(text) >= HEAD_CAP or piped
    return False if any_path and not cut else None  # a cut output may have dropped the name's line


def absent_by_probe(session: Session, start: int, name: str) -> tuple[int, list[str]] | None:
    """A later successful lookup whose output shows ``name`` missing, and the names the same lookup did find."""
    for j in range(start + 1, len(session.steps)):
        step = session.steps[j]
        if step.kind != "action" or not step.ok:
            continue
        intent = session.intent(j)
        shown = probe_shows(step, intent, name)
        if shown is True:
            return None
        if shown is False:
            found = [n for n in probed_names(step, intent) if probe_shows(step, intent, n)]
            return j, found
    return None


# "/tmp/x.log: Permission denied", "cannot create /var/log/x: Read-only file system"
_REFUSED = rx.compile(
    r"(?P<path>/(?:[\w.@+-]+/)*[\w.@+-]+):\s+(?:Permission denied|Read-only file system)"
    r"|cannot (?:create|open|touch|write)[^/\n]{0,30}(?P<path2>/(?:[\w.@+-]+/)*[\w.@+-]+)[^\n]*?"
    r"(?:Permission denied|Read-only file system)"
)


def _refused_place(step: Step, root: str) -> tuple[str, str] | None:
    """The system folder a failed call could not write to, and the file it tried: ("/tmp", "server.log")."""
    for error in step.errors:
        match = _REFUSED.search(error.get("line", ""))
        if not match:
            continue
        path = match.group("path") or match.group("path2")
        if root and path.startswith(root.rstrip("/") + "/"):
            return None  # a file of the project itself: a permissions problem of that file, not of the machine
        folder, _, name = path.rpartition("/")
        if folder in SYSTEM_DIRS and name:  # right in it: /tmp/ana-x8k2/out.txt says nothing of /tmp itself
            return folder, name
    return None


def unwritable_place_rule(session: Session) -> list[Candidate]:
    """A system folder (/tmp, /var, ...) refused a write, and the same job then wrote the file elsewhere."""
    out: list[Candidate] = []
    done: set[str] = set()
    for index, step in enumerate(session.steps):
        if step.kind != "action" or step.ok or not step.errors:
            continue
        refused = _refused_place(step, session.root)
        if not refused or refused[0] in done:
            continue
        folder, filename = refused
        programs = session.intent(index).programs - PROBES - {"cd", "echo", "sleep", "cat"}
        for j in range(index + 1, min(len(session.steps), index + WINDOW)):
            later = session.steps[j]
            if later.kind == "prompt":
                break
            if later.kind != "action" or not later.ok:
                continue
            text = later.raw or later.input
            if filename in text and folder + "/" not in text and programs & session.intent(j).programs:
                done.add(folder)
                where = this_machine(session)
                out.append(
                    Candidate(
                        kind="observation",
                        summary=phrasing.fit(
                            f"{folder} is not writable on {where}; keep logs and temp files in the project"
                        ),
                        content=(
                            f"Writing {folder}/{filename} failed: {_line(step)}\n"
                            f"What worked: `{_gist(_segment_with(text, filename))}` (writing {filename} elsewhere)"
                        ),
                        why=f"{folder} refused the write, and the session's next try wrote the file in another place.",
                        how_to_apply=f"Do not write to {folder} here; put logs and scratch files in the project "
                        f"folder.",
                        signals=["error"],
                        scope="global",
                        weight=2.2,
                        promotion=VERIFIED_FIX,
                    )
                )
                break
    return out


def _line(step: Step) -> str:
    line = next((e.get("line", "") for e in step.errors if _REFUSED.search(e.get("line", ""))), "")
    line = re.sub(
        r"^\S*/(?:ba|z|da)?sh: (?:line \d+: )?", "", line
    )  # "/usr/bin/bash: line 1: /tmp/x: ..." -> "/tmp/x: ..."
    return " ".join(line.split())[:160]


def _segment_with(text: str, filename: str) -> str:
    """The one command of a command line that wrote ``filename`` (not the ``pkill`` and ``sleep`` around it)."""
    from automem.extract.intent import split_segments

    return next((seg for seg in split_segments(text) if filename in seg), text).strip()


def _gist(text: str) -> str:
    from automem.extract.rules.errors import command_gist

    return command_gist(" ".join(text.split()), 100)


_SUDO_REFUSED = rx.compile(
    r"sudo: (?:a )?(?:terminal|password) is required|sudo: no tty present and no askpass program specified"
)


_RUNS_SUDO = rx.compile(r"(?:^|[;&|(\'\"]\s*)sudo\s", re.M)
# sudo run elsewhere (a server, a container): its password says nothing about this machine
_ELSEWHERE = rx.compile(
    r"\b(?:ssh|docker\s+(?:exec|run)|podman\s+(?:exec|run)|kubectl\s+exec|vagrant\s+ssh|lxc\s+exec)\b"
)


def _sudo_here(step: Step) -> bool:
    """Did the call itself run sudo on this machine (not grep for the message, not over ssh or in a container)?"""
    command = step.raw or step.input
    return bool(_RUNS_SUDO.search(command)) and not _ELSEWHERE.search(command)


def _sudo_refusal(step: Step) -> str:
    found = _SUDO_REFUSED.search(step.result_head + "\n" + "\n".join(e.get("line", "") for e in step.errors))
    return found.group(0) if found else ""


def sudo_password_rule(session: Session) -> list[Candidate]:
    """sudo asking for a password the agent's shell cannot type: the agent's sudo calls fail on this machine, so the
    user has to run them. Told by sudo's own words, whatever exit status a pipe left; not when a later sudo call of
    the session went through (a password cached, or no password needed after all)."""
    refused = [i for i, s in enumerate(session.steps) if s.kind == "action" and _sudo_refusal(s) and _sudo_here(s)]
    if not refused:
        return []
    for later in range(refused[-1] + 1, len(session.steps)):
        step = session.steps[later]
        if step.kind == "action" and step.ok and _RUNS_SUDO.search(step.raw or step.input) and not _sudo_refusal(step):
            return []
    first = session.steps[refused[0]]
    command = " ".join((first.raw or first.input).split())[:160]
    many = f" ({len(refused)} sudo calls)" if len(refused) > 1 else ""
    return [
        Candidate(
            kind="observation",
            summary=phrasing.fit(
                f"sudo asks for a password on {this_machine(session)} that the agent's shell cannot type; "
                "ask the user to run sudo commands"
            ),
            content=f"`{command}` said: {_sudo_refusal(first)}{many}",
            why="sudo itself said it needs a password or a terminal, which the agent's shell does not have.",
            how_to_apply="Give the user the sudo command to run themselves instead of running it.",
            signals=["error"],
            scope="global",
            weight=1.8,
        )
    ]

"""A command that destroyed the user's work, and the user's reaction to it: "never do that again".

"Don't do that again" names nothing by itself, so the directive rule leaves it; here "that" is resolved to the one
destructive command the agent ran in the turn before (`git reset --hard`, `git clean -f`, `rm -r`, a force push,
...). With more than one such command in that turn, or none, "that" stays unresolved and nothing is kept. A prompt
that only complains ("you wiped my changes!") gives a candidate that waits for evidence; one that forbids it again
is the user's instruction.
"""

from __future__ import annotations

import re

from automem import lazy_re as rx
from automem.extract import phrasing
from automem.extract.intent import Command
from automem.extract.rules import Session
from automem.extract.rules.said import directive_rule
from automem.schema import INSTRUCTION, Candidate

# forbidding "that" again: "never do that again", "don't ever do this", "do not do it again"
_FORBIDS = rx.compile(
    r"\b(?:never|don'?t|do not|dont)\s+(?:ever\s+)?(?:do|run|try)\s+(?:that|this|it)(?:\s+(?:again|ever))?\b"
    r"|\bnever\s+again\b",
    re.I,
)
# saying what it destroyed: "you wiped my changes", "why did you delete src/x?", "all my work is gone"
_COMPLAINS = rx.compile(
    r"\byou\s+(?:just\s+)?(?:deleted|wiped|erased|destroyed|nuked|lost|reset|overwrote|discarded|threw away"
    r"|force[- ]pushed)\b"
    r"|\bwhy\s+(?:did|would)\s+you\s+(?:delete|wipe|erase|destroy|nuke|reset|discard|force)\b"
    r"|\b(?:my|all (?:my|the|of my))\s+(?:\w+\s+)?(?:changes|work|files|edits|commits|data)\s+(?:are|is)\s+"
    r"(?:gone|lost)\b"
    # in Chinese and Japanese: "误删了" (deleted by mistake), "删了我的" (deleted my ...), "覆盖了我的" (overwrote
    # my ...), "消された" / "削除された" (got deleted on me)
    r"|误删|誤刪|[删刪](?:掉|除)?了我的|覆[盖蓋]了我的|(?:消|削除|上書き)され(?:た|ました|てしまった)",
    re.I,
)
_RECURSIVE = re.compile(r"^-[a-zA-Z]*[rR]")


def destructive_gist(command: Command) -> str:
    """The command and the options that make it destroy work ("git reset --hard", "rm -rf"), or ""."""
    args = command.args
    if command.program == "git" and args:
        sub = args[0]
        if sub == "reset" and "--hard" in args:
            return "git reset --hard"
        if sub == "checkout" and ("--" in args or "." in args[1:]):
            return "git checkout -- <paths>"
        if sub == "restore" and "--staged" not in args:
            return "git restore"
        if sub == "clean" and any(a.startswith("-") and "f" in a.lstrip("-") for a in args[1:]):
            return "git clean -f"
        if sub == "push" and any(a in ("-f", "--force", "--force-with-lease") for a in args[1:]):
            return "git push --force"
        if sub == "branch" and "-D" in args:
            return "git branch -D"
        if sub == "stash" and args[1:2] in (["drop"], ["clear"]):
            return f"git stash {args[1]}"
        return ""
    if command.program == "rm" and any(_RECURSIVE.match(a) or a == "--recursive" for a in args):
        return "rm -r" + ("f" if any(a.startswith("-") and "f" in a for a in args) else "")
    return ""


def destructive_rule(session: Session) -> list[Candidate]:
    out: list[Candidate] = []
    last_prompt = -1
    for index, step in enumerate(session.steps):
        if step.kind != "prompt":
            continue
        before, last_prompt = last_prompt, index
        said = " ".join((step.text or "").split())
        if before < 0 or not said or len(said) > 400:
            continue
        forbids = bool(_FORBIDS.search(said))
        if not forbids and not _COMPLAINS.search(said):
            continue
        if directive_rule(Session([step])):
            continue  # "never force push to main" says it all itself: the directive rule keeps it
        ran = {
            gist
            for j in range(before + 1, index)
            if session.steps[j].kind == "action"
            for command in session.intent(j).commands
            if (gist := destructive_gist(command))
        }
        if len(ran) != 1:
            continue  # none, or several: "that" could be any of them
        gist = ran.pop()
        out.append(
            Candidate(
                kind="decision",
                summary=phrasing.fit(f"Ask the user before running `{gist}`"),
                content=f'The agent ran `{gist}` and the user said: "{said[:200]}"',
                why="A command of the agent's destroyed work the user wanted kept.",
                how_to_apply=f"Before `{gist}` (or anything that discards uncommitted work), stop and ask.",
                signals=["correction"],
                scope="global",
                weight=2.4,
                promotion=INSTRUCTION if forbids else "",
            )
        )
    return out

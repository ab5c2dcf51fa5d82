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
from automem.extract.intent import Command, is_look
from automem.extract.rules import Session
from automem.extract.rules.said import directive_rule
from automem.schema import INSTRUCTION, Candidate

# forbidding "that" again: "never do that again", "don't ever do this", "do not do it again" ("don't do it this
# way" and "I never run it by hand" forbid nothing that happened)
_FORBIDS = rx.compile(
    r"\b(?:never|don'?t|do not|dont)\s+(?:ever\s+(?:do|run|try)\s+(?:that|this|it)\b"
    r"|(?:do|run|try)\s+(?:that|this|it)\s+(?:again|ever)\b)"
    r"|\bnever\s+again\b"
    # the same beside English: 不要再这样做, 二度とやらないで, больше так не делай, no vuelvas a hacerlo, mach das nie
    # wieder, ne refais plus ça, não faça isso de novo
    r"|(?:不要|别|別|不准|不许|不許|不可以)再(?:这样|那样|這樣|那樣|这么|這麼)|二度と(?:やら|し)ないで|もう(?:やら|し)ないで"
    r"|\bбольше\s+(?:так\s+)?не\s+делай|\bникогда\s+(?:так\s+|больше\s+)?не\s+делай"
    r"|\bno\s+(?:vuelvas|vuelva|vuelvan)\s+a\s+hacer(?:lo|\s+eso|\s+esto)"
    r"|\b(?:mach|tu)\s+(?:das|dies|sowas)\s+nie\s+wieder"
    r"|\bne\s+(?:refais|refaites)\s+(?:plus|jamais)|\bne\s+(?:fais|faites)\s+plus\s+(?:jamais\s+)?(?:ça|cela)"
    r"|\bnão\s+(?:faça|faz|faças)\s+(?:isso|isto)\s+(?:de novo|novamente|outra vez)|\bnunca mais\s+(?:faça|faz)",
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
# a folder the user names ("you deleted ~/clients/acme/drafts") belongs to their machine, not to a global rule
_PATH = rx.compile(r"(?:(?<![\w.])(?:~|\.{1,2})?/|(?<!\w)[A-Za-z]:\\|(?<!\S)[\w.-]+\\)[^\s'\"`)\]]*(?<![.,;:!?])")


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


LOOK_BACK_TURNS = 3  # a complaint names a loss the user may find a turn or two later


def destructive_rule(session: Session) -> list[Candidate]:
    out: list[Candidate] = []
    prompts = [i for i, step in enumerate(session.steps) if step.kind == "prompt"]
    for n, index in enumerate(prompts):
        step = session.steps[index]
        said = " ".join((step.text or "").split())
        if n == 0 or not said or len(said) > 400:
            continue
        forbids = bool(_FORBIDS.search(said))
        complains = bool(_COMPLAINS.search(said))
        if not forbids and not complains:
            continue
        if directive_rule(Session([step])):
            continue  # "never force push to main" says it all itself: the directive rule keeps it
        gist = _the_destructive_command(session, prompts, n, complains)
        if not gist:
            continue
        out.append(
            Candidate(
                kind="decision",
                summary=phrasing.fit(f"Ask the user before running `{gist}`"),
                content=f'The agent ran `{gist}` and the user said: "{_PATH.sub("<path>", said)[:200]}"',
                why="A command of the agent's destroyed work the user wanted kept.",
                how_to_apply=f"Before `{gist}` (or anything that discards uncommitted work), stop and ask.",
                signals=["correction"],
                scope="global",
                weight=2.4,
                promotion=INSTRUCTION if forbids else "",
            )
        )
    return out


def _the_destructive_command(session: Session, prompts: list[int], n: int, complains: bool) -> str:
    """What "that" is: the one destructive command that ran (and did not fail) in the turns before prompt ``n``.

    A complaint says what was lost, so it may come a few turns later: the last LOOK_BACK_TURNS turns must hold
    one destructive command, no other. "Never do that again" says nothing of what it means: the turn just before
    must have done that one thing (looks around it aside), else it may mean anything else the turn did."""
    first = max(0, n - (LOOK_BACK_TURNS if complains else 1))
    found: set[str] = set()
    other_change = False
    for k in range(first, n):
        end = prompts[k + 1]
        for j in range(prompts[k] + 1, end):
            if session.steps[j].kind != "action":
                continue
            intent = session.intent(j)
            gists = {g for command in intent.commands if (g := destructive_gist(command))}
            if gists and session.steps[j].ok:
                found |= gists
            if k == n - 1 and not intent.read_only():
                besides = [c for c in intent.commands if not destructive_gist(c) and not is_look(c)]
                other_change = other_change or bool(besides) or intent.kind != "shell"
    if len(found) != 1 or (other_change and not complains):
        return ""  # none, several, or beside other work: "that" could be any of them
    return found.pop()

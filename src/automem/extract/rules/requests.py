"""Facts of the project a user's request settled in one turn: a file kept out of git, a package chosen, a folder
deleted on purpose.

Each needs both halves in the same turn: the user asked for it in their own words, and the agent's
next calls did exactly that (the edit of .gitignore, the dependency added, the ``rm -r``). Stored as
candidates: a one-off request becomes a rule only when it is seen again or kept.
"""

from __future__ import annotations

import re

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.extract import phrasing
from automem.extract.intent import installed_names, installs_for_project
from automem.extract.rules import Session
from automem.extract.usable import generalize
from automem.schema import Candidate

MAX_ENTRIES = 4  # more lines added to an ignore file than this: a template, not what the user asked for

_IGNORE_ASKED = rx.compile(r"\bignored?\b|\bgit-?ignored?\b|\bkeep (?:it|them|\S+) out of git\b", re.I)
_GIT_WORD = rx.compile(r"\bgit-?ignored?\b|\.gitignore\b|\bgit\b", re.I)
_DELETE_ASKED = rx.compile(r"\b(?:delete|remove|rm|get rid of|drop)\b|删除|删掉|삭제|удали", re.I)
_MANIFESTS = (
    "package.json",
    "pyproject.toml",
    "requirements.txt",
    "requirements-dev.txt",
    "cargo.toml",
    "go.mod",
    "gemfile",
    "composer.json",
)
_NPM_DEP = rx.compile(r'^\s*"(@?[\w.-]+(?:/[\w.-]+)?)"\s*:\s*"(?:[\^~>=<]*\d|workspace:|latest|\*)', re.M)
_PY_DEP = rx.compile(r'^\s*"?([A-Za-z][\w.-]+)(?:\[[\w,.-]+\])?\s*(?:[<>=~!]=?|\^)', re.M)


def _quote(prompt: str, limit: int = 200) -> str:
    text = " ".join(prompt.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def _turns(session: Session):
    """(prompt index, the indexes of the successful actions of its turn) for every prompt."""
    steps = session.steps
    for index, step in enumerate(steps):
        if step.kind != "prompt" or not step.text:
            continue
        actions = []
        for j in range(index + 1, len(steps)):
            if steps[j].kind in ("prompt", "interrupt", "rejection"):
                break
            if steps[j].kind == "action" and steps[j].ok:
                actions.append(j)
        yield index, actions


def _added_to(step, name: str) -> str:
    """The lines an edit added to the file ``name`` (a patch may touch several files)."""
    text = step.added or ""
    if "*** File: " not in text:
        return text
    out, current = [], ""
    for line in text.splitlines():
        if line.startswith("*** File: "):
            current = line[len("*** File: ") :].strip().replace("\\", "/").rsplit("/", 1)[-1].lower()
        elif current == name:
            out.append(line)
    return "\n".join(out)


def _edited(session: Session, j: int, names: tuple[str, ...]) -> str:
    """The basename of the file among ``names`` that action ``j`` edited, or ""."""
    intent = session.intent(j)
    if intent.kind != "edit":
        return ""
    return next((t.rsplit("/", 1)[-1] for t in intent.targets if t.rsplit("/", 1)[-1] in names), "")


def ignored_by_request_rule(session: Session) -> list[Candidate]:
    """The user asked to keep something out of git, and the turn added it to .gitignore."""
    out: list[Candidate] = []
    for index, actions in _turns(session):
        prompt = session.steps[index].text
        before = next((s.text for s in reversed(session.steps[:index]) if s.kind == "prompt"), "")
        if not _IGNORE_ASKED.search(prompt) or len(prompt) > 400 or not _GIT_WORD.search(prompt + "\n" + before[:400]):
            continue  # "ignore the lint warnings" is not about git
        for j in actions:
            if not _edited(session, j, (".gitignore",)):
                continue
            entries = [
                e.strip()
                for e in _added_to(session.steps[j], ".gitignore").splitlines()
                if e.strip() and not e.strip().startswith("#")
            ]
            if not 0 < len(entries) <= MAX_ENTRIES or any(len(e) > 60 for e in entries):
                continue
            listed = ", ".join(entries)
            out.append(
                Candidate(
                    kind="decision",
                    summary=phrasing.fit(
                        f"{listed} {'is' if len(entries) == 1 else 'are'} git-ignored in this project (the user asked)"
                    ),
                    content=f'The user said: "{_quote(prompt)}"\nAdded to .gitignore: {listed}',
                    why="The user asked for it, and the agent added it to .gitignore in the same turn.",
                    how_to_apply=f"Keep {listed} out of commits; do not un-ignore it.",
                    signals=["rule"],
                    scope="project",
                    weight=1.4,
                )
            )
            break
    return out


def _dependencies(session: Session, j: int) -> list[tuple[str, str]]:
    """(package, manifest) pairs action ``j`` added: a line of a dependency manifest, or an install command."""
    found = []
    manifest = _edited(session, j, _MANIFESTS)
    if manifest:
        text = _added_to(session.steps[j], manifest)
        pattern = _NPM_DEP if manifest.endswith(".json") else _PY_DEP
        found += [(name, manifest) for name in pattern.findall(text)]
    for command in session.intent(j).commands:
        if installs_for_project(command):
            found += [
                (re.sub(r"(?<=.)@[^/]*$|[<>=~!].*$", "", name), command.program)
                for name in installed_names(command)
                if not name.startswith("-")
            ]
    return found


def _named_in(prompt: str, package: str) -> bool:
    """Does the prompt name the package (``@vitest/coverage-v8`` by "coverage-v8" too)?"""
    text = prompt.lower()
    for name in {package.lower(), package.lower().rsplit("/", 1)[-1]}:
        if len(name) >= 4 and re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text):
            return True
    return False


def dependency_by_request_rule(session: Session) -> list[Candidate]:
    """A package the user named, added to the project's dependencies in the same turn."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for index, actions in _turns(session):
        prompt = session.steps[index].text
        if len(prompt) > 600:
            continue  # a pasted spec names many packages; what the turn added is the spec's choice
        for j in actions:
            for package, where in _dependencies(session, j):
                if package in seen or not _named_in(prompt, package):
                    continue
                seen.add(package)
                via = f"added to {where}" if "." in where else f"installed with {where}"
                did = f"added it to {where}" if "." in where else f"installed it with {where}"
                out.append(
                    Candidate(
                        kind="decision",
                        summary=phrasing.fit(f"The project uses {package} ({via} at the user's request)"),
                        content=f'The user said: "{_quote(prompt)}"\nThe agent then {did}.',
                        why="The user named the package, and the agent added it to the project in the same turn.",
                        how_to_apply=f"Keep using {package} for this; do not swap it for an alternative unasked.",
                        signals=["rule"],
                        scope="project",
                        weight=1.5,
                    )
                )
    return out


_REMOVE = rx.compile(r"^(?:rm|git rm|remove-item|rmdir|rd|del)$", re.I)


def deleted_by_request_rule(session: Session) -> list[Candidate]:
    """A folder the user asked to delete (naming it), deleted in the same turn: gone on purpose."""
    out: list[Candidate] = []
    for index, actions in _turns(session):
        prompt = session.steps[index].text
        if not _DELETE_ASKED.search(prompt) or len(prompt) > 300:
            continue
        for j in actions:
            for command in session.intent(j).commands:
                name = command.program if command.program != "git" else f"git {command.subcommand}"
                recursive = any(re.fullmatch(r"-[a-zA-Z]*[rR][a-zA-Z]*|-Recurse|/s", o) for o in command.options)
                if not _REMOVE.match(name) or not recursive:
                    continue
                for target in command.positional:
                    base = target.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
                    if len(base) < 4 or not re.search(
                        rf"(?<![\w.-]){re.escape(base.lower())}(?![\w-])", prompt.lower()
                    ):
                        continue
                    out.append(
                        Candidate(
                            kind="decision",
                            summary=phrasing.fit(
                                f"{target.rstrip('/')} was deleted at the user's request; do not recreate it"
                            ),
                            content=f'The user said: "{_quote(prompt)}"\nThe agent ran: `{command.text[:160]}`',
                            why="The user asked for this folder to go, by name, and the agent removed it in the "
                            "same turn.",
                            how_to_apply="Treat it as removed on purpose: do not restore or recreate it.",
                            signals=["rule"],
                            scope="project",
                            weight=1.3,
                        )
                    )
                    break
    return out


# the agent's own instructions, as a user names them when asking for a change there
_OWN_INSTRUCTIONS = rx.compile(
    r"\byour (?:own )?(?:instructions|rules|system prompt|guidelines|skills?|agents?|subagents?)\b"
    r"|\b(?:CLAUDE|AGENTS|GEMINI)\.md\b|\.claude/(?:agents|skills|commands)/",
    re.I,
)
_NAMED_AGENT = rx.compile(r"\b(?:the|this|that)\s+([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\s+(?:agent|subagent|skill)\b", re.I)
_MENTIONED_AGENT = rx.compile(r'@"([a-z][\w-]*) \(agent\)"', re.I)
_BARE_AGENT = rx.compile(r"\b(?:sub-?)?agents?\b|\bskills?\b", re.I)
_INSTRUCTION_FILE = rx.compile(
    r"\b(?:CLAUDE|AGENTS|GEMINI)\.md\b|\.claude/(?:agents|skills|commands)/|/SKILL\.md\b", re.I
)
_FOLLOWING = 2  # prompts after the request in which the instructions it meant may be named or edited


def _instructions_touched(session: Session, index: int) -> bool:
    """The next prompts, or the calls of their turns, name or edit an instruction file (CLAUDE.md, a subagent's or a
    skill's file): what "the agent" in the request at ``index`` meant."""
    prompts = 0
    for step in session.steps[index + 1 :]:
        if step.kind == "prompt":
            prompts += 1
            if prompts > _FOLLOWING:
                break
            text = step.text or ""
        else:
            text = f"{step.input} {step.raw}" if step.kind == "action" else ""
        if _INSTRUCTION_FILE.search(text):
            return True
    return False


_CHANGE_VERB = rx.compile(
    r"\b(?:modify|update|change|fix|improve|adjust|edit|amend|examine|review|revise|rewrite|tweak|check"
    r"|look (?:at|into))\b",
    re.I,
)
_NOT_AGAIN = rx.compile(
    r"\b(?:prevent|avoid|stop)\b[^.?!\n]{0,60}?\b(?:again|in (?:the )?future|next time|from (?:ever )?happening"
    r"|recurr\w*)\b"
    r"|\bso (?:that )?(?:it|this|you|the same \w+(?: \w+)?) (?:doesn'?t|does not|won'?t|will not|never)\b[^.?!\n]{0,40}"
    r"\b(?:again|in (?:the )?future|next time)\b",
    re.I,
)


_SENTENCE_OR_LINE = rx.compile(r"(?<=[.?!])\s+|\n+")


def fix_at_source_rule(session: Session) -> list[Candidate]:
    """The user asks for the agent's own instructions (a subagent, a skill, CLAUDE.md) to be changed so that what
    just went wrong does not happen again: how this user wants a failing workflow handled, not just the one fix.
    "The agent" or "the skill" (named or not) counts only in a session that called a subagent by name (Claude Code's
    ``@"name (agent)"``) or that names or edits an instruction file right after: elsewhere it may be an agent or a
    skill the project builds."""
    called = ""
    for index, step in enumerate(session.steps):
        if step.kind != "prompt" or not step.text:
            continue
        text = step.text
        mentioned = _MENTIONED_AGENT.search(text)
        if mentioned:
            called = mentioned.group(1)
            continue  # the prompt that calls the subagent gives it its task
        if len(text) > 400:
            continue
        for sentence in _SENTENCE_OR_LINE.split(text):
            if not (_CHANGE_VERB.search(sentence) and _NOT_AGAIN.search(sentence)):
                continue
            named = _NAMED_AGENT.search(sentence)
            bare = bool(_BARE_AGENT.search(sentence))
            own = bool(_OWN_INSTRUCTIONS.search(sentence))
            if not own and not bare:
                continue
            if not own and not called and not _instructions_touched(session, index):
                continue  # "the agent", "the sales-bot agent", "the skill": maybe what the project builds
            if named and (named.group(1) == called or not called):
                name = named.group(1)
            else:
                name = called if bare and not own else ""
            quote = _quote(sentence)
            if name:
                summary = f"When the {name} agent gets something wrong, fix its instructions to prevent the same issue"
            else:
                summary = (
                    "When an agent workflow goes wrong, trace the cause to its instructions and fix them to prevent "
                    "it recurring"
                )
            return [
                Candidate(
                    kind="preference",
                    summary=summary,
                    content=f'The user said: "{quote}"',
                    why="The user asked for the fix in the instructions that made the mistake, not only in the work.",
                    how_to_apply="When a workflow goes wrong, say which instruction caused it and propose a change "
                    "there.",
                    signals=["preference"],
                    scope="project" if name else "global",
                    weight=0.9,
                )
            ]
    return []


_COMMAND_CHANGE = rx.compile(
    r"\b(?:update|modify|change|edit|fix|improve|adjust|rewrite|tweak|amend)\b[^.?!\n]{0,40}?(?<![\w/.~-])/([a-z][\w-]{2,40})"
    r"(?![\w/.-])",
    re.I,
)
_LOOKUP_TOOLS = frozenset({"task", "agent", "glob", "grep", "find", "ls", "search"})


def command_source_rule(session: Session) -> list[Candidate]:
    """The user asks to change one of their slash commands ("update /refactor-livedata"), the agent had to look for
    its file, then edited it (``<name>.md``, or ``<name>/SKILL.md``): where that command is defined. Its file can
    live anywhere (a repository the commands folder links to), and the next change to it would search again."""
    for index, actions in _turns(session):
        match = _COMMAND_CHANGE.search(session.steps[index].text)
        if not match or session.steps[index].text.lstrip().startswith("/"):
            continue  # "/name args" runs the command; it asks for no change to it
        name = match.group(1).lower()
        looked = False
        for j in actions:
            step = session.steps[j]
            tool = step.tool.lower()
            if tool in _LOOKUP_TOOLS or (
                tool in ("bash", "shell") and re.match(r"\s*(?:find|ls|fd|rg|grep)\b", step.input)
            ):
                looked = True
                continue
            path = step.input.strip().replace("\\", "/")
            target = path if path.lower().endswith((f"/{name}.md", f"/{name}/skill.md")) else ""
            if target and session.intent(j).kind == "edit" and looked:
                return [
                    Candidate(
                        kind="observation",
                        summary=f"The /{name} command is defined in {target}",
                        content=f'The user asked: "{_quote(session.steps[index].text)}"\n'
                        f"The agent looked for the command's file and edited {target}.",
                        why="The command's file had to be searched for before it could be changed.",
                        how_to_apply=f"To change /{name}, edit {target} directly.",
                        signals=["preference"],
                        scope="project" if generalize(target, session.root).startswith("./") else "global",
                        weight=0.9,
                    )
                ]
    return []

"""Lessons the agent spells out: the cause of a failure it then fixed, or of a problem the user reported.

The clearest statement of what went wrong is often the agent's own text: "The issue is that X",
"Those 404s are because Y", "Fixed the build by Z". It counts only with evidence around it:

- after a failed call, the same intent must pass later, after a change (an edit), and the
  explanation must name something the failure names (not a remark about another thing);
- after a problem the user reported (a pasted error, "I don't see X"), the agent must have
  changed something in that turn and the user's next prompt must not report the same error
  again. The same error reported in two prompts or more is a pattern.

Claims with no such evidence ("the files didn't persist", "that module does not exist") are not
stored: the agent's word alone is a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.extract import phrasing
from automem.extract.intent import EDIT_TOOLS
from automem.extract.rules import Session
from automem.extract.rules.errors import (
    _command_text,
    _gist,
    cluster,
    is_failure,
    is_slip,
    repairs_own_edit,
    verified_fix,
)
from automem.extract.steps import Step
from automem.schema import Candidate

_CAUSE = rx.compile(
    r"\b(?:the|this|that|main|real|root)\s+(?:issue|problem|error|failure|cause|culprit|reason)\s+"
    r"(?:here\s+)?(?:is|was|seems to be|appears to be)\b"
    r"|\b(?:fails?|failed|failing|breaks?|broke|crash(?:es|ed)?|errors?|404s?|happens?|happened)\s+(?:\w+\s+){0,3}?because\b"
    r"|\b(?:is|are|was|were)\s+(?:caused|triggered)\s+by\b|\bdue to\b|\bfound why\b"
    r"|\bthe\s+fix\s+(?:is|was)\b"
    r"|\b(?:requires?|needs? to be (?:run|called|invoked|started|built|installed|set|passed|used)|must be "
    r"(?:run|called|invoked|started|built|installed|set|passed|used))\b"
    r"|\bonly works (?:with|when|if|from|in|on)\b"
    r"|\bdoes(?:n't| not) (?:support|accept|allow)\b"
    r"|\b(?:is|are|was|were)(?:n't| not) (?:supported|allowed|installed|available|on (?:the )?PATH|writable|being "
    r"served)\b",
    re.I,
)
_BECAUSE = rx.compile(
    r"\bbecause\b|\bsince\b(?= the\b)|, so (?:the |you|it)|\bfound it\b|\bis missing\b"
    r"|\b(?:was|were) (?:removed|renamed|deleted|never)\b|\bno longer exists?\b",
    re.I,
)
_FIX_REQUEST = rx.compile(
    r"^(?:please\s+|can you\s+|now\s+)?(?:fix|check|debug|investigate|troubleshoot|look into)\b", re.I
)
_FIXED = rx.compile(
    r"^(?:I\s+)?(?:fixed|added|updated|switched|changed|moved|removed|replaced|wired|adjusted)\b"
    r"(?=[^.]*(?:`|\b\w+\.\w{1,5}\b|\b(?:so|to|because|instead)\b))",
    re.I,
)
_PLAN = rx.compile(r"^(?:let me|let's|i'll|i will|now\b|next\b|first\b|i need to|i should)", re.I)
_HEDGE = rx.compile(
    r"\b(?:might|may|maybe|perhaps|possibly|probably|could be|not sure|i think|seems like|likely)\b", re.I
)
_SLIP_LIKE = rx.compile(
    r"\b(?:old_string|old text|exact text|string to replace|not (?:been )?read yet|parameter|persist\w*)\b", re.I
)
_PROBLEM = rx.compile(
    r"\b(?:(?:isn'?t|aren'?t|is not|are not|not)\s+(?:working|showing|loading|rendering)|is broken|doesn'?t "
    r"work|does not work"
    r"|i (?:don'?t|do not|can'?t|cannot) see|(?:getting|seeing) (?:this|an?|these|all these) errors?|i'?m getting"
    r"|still (?:broken|failing)"
    r"|fails? to|crash(?:es|ed)?|just (?:text|black|blank|white))\b",
    re.I,
)
_PART = rx.compile(r"[A-Za-z]{3,}")
_GENERIC = frozenset(
    "the and for not but are was were has have had its now can you this that with from been when then than into "
    "what error errors fail fails failed failing failure issue problem because same still file files code just only "
    "also does doesn work works working need needs should would could there their here user again let see".split()
)


_LIST_MARK = rx.compile(r"^(?:[-*•]|\d+[.)])\s+")
_SENTENCE_GAP = rx.compile(r"(?<=[.!?])\s+(?=[A-Z`])")


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    in_fence = False
    for line in (text or "").splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence or not stripped or stripped.startswith(("|", ">", "#")):
            continue
        stripped = _LIST_MARK.sub("", stripped)
        out.extend(s.strip() for s in _SENTENCE_GAP.split(stripped) if s.strip())
    return out


def stated_cause(text: str, *, because: bool = False, fixes: bool = False) -> str:
    """The first sentence of the agent's text that states a cause; with ``because`` (a reply to a problem the
    user reported) also a plain "because"/"so"; with ``fixes`` what it fixed and how."""
    for sentence in _sentences(text):
        if not 20 <= len(sentence) <= 400 or sentence.endswith("?") or _PLAN.match(sentence):
            continue
        if _HEDGE.search(sentence) or _SLIP_LIKE.search(sentence):
            continue
        if _CAUSE.search(sentence) or (because and _BECAUSE.search(sentence)) or (fixes and _FIXED.match(sentence)):
            return sentence.rstrip(":")
    return ""


def _after(text: str, sentence: str) -> str:
    """The sentence that follows ``sentence`` in ``text`` (it often says where the fix went)."""
    parts = _sentences(text)
    if sentence in parts:
        at = parts.index(sentence)
        return parts[at + 1] if at + 1 < len(parts) and len(parts[at + 1]) >= 20 else ""
    return ""


def _terms(text: str) -> set[str]:
    return {w.lower() for w in _PART.findall(text)} - _GENERIC


def _changed(steps: list[Step]) -> list[str]:
    """Files the passing calls edited, by name."""
    from automem.extract.intent import intent_of

    names: list[str] = []
    for step in steps:
        if step.kind == "action" and step.ok and step.tool.lower() in EDIT_TOOLS | {"shell", "shell_command", "bash"}:
            intent = intent_of(step.tool, step.input)
            if intent.kind == "edit":
                names += [_as_written(t, step.input).rsplit("/", 1)[-1] for t in intent.targets]
    return list(dict.fromkeys(n for n in names if n))


def _as_written(target: str, text: str) -> str:
    """``target`` with the letter case the call wrote it in (intents keep paths lowered, a reader wants the name)."""
    written = text.replace("\\", "/")
    at = written.lower().find(target)
    return written[at : at + len(target)] if at >= 0 else target


def diagnosis_rule(session: Session) -> list[Candidate]:
    """A failed call -> the agent's stated cause -> a change -> the same intent passing."""
    out: list[Candidate] = []
    steps = session.steps
    seen: set[str] = set()
    for i, step in enumerate(steps):
        if not is_failure(step) or is_slip(step):
            continue
        window = [step]
        for later in steps[i + 1 : i + 12]:
            if later.kind == "prompt" or is_failure(later):
                break  # what the agent says after another failure is about that one
            window.append(later)
        sentence = next((stated_cause(s.said_after) for s in window if s.said_after and stated_cause(s.said_after)), "")
        if not sentence:
            continue
        found = verified_fix(session, i)
        if found is None:
            continue
        fix_index, _between = found
        edited = _changed(steps[i + 1 : fix_index])
        if not edited:
            continue  # nothing was changed: the explanation is not what made it pass
        if repairs_own_edit(session, i, fix_index):
            continue  # the agent mended what its own edit broke in the same turn: the work, not a lesson
        error = " ".join(step.errors[0].get("line", "").split())
        if not (_terms(sentence) & _terms(f"{error} {step.input} {' '.join(edited)}")):
            continue  # the explanation is about something else
        name = phrasing.error_name(error) or phrasing.error_gist(error, 40)
        cause = _cause(sentence)
        if cause.lower() in seen:
            continue
        seen.add(cause.lower())
        main = session.intent(i).main
        subject = main.name() if main is not None else step.tool
        out.append(
            Candidate(
                kind="observation",
                summary=phrasing.fit(f"{subject} ({name}): {cause}"),
                content=(
                    f"`{_command_text(step)}` failed: {error[:300]}\nThe agent's diagnosis: {sentence[:400]}\n"
                    f"Changed: {', '.join(edited[:4])}; then `{_command_text(steps[fix_index])}` passed."
                ),
                why="A failure the agent explained, fixed by a change, and proved by the same call passing afterwards.",
                how_to_apply=f"When {name} shows up again, check this cause first.",
                signals=["error"],
                scope="project",
                weight=1.7,
            )
        )
    return out


_CAUSE_LEAD = rx.compile(
    r"^(?:(?:ok(?:ay)?|ah|i see|got it|found it|good|great|yes)[,.!:]*\s+)*"
    r"(?:(?:i(?:'ve)?\s+)?found (?:it|why\b[^:—–]{0,60}|the (?:issue|problem|cause|bug))\s*[:—–-]\s*"
    r"|(?:two|three|several|a few|\d+) (?:issues|problems|things|bugs)\s*:\s*)?"
    r"(?:(?:the|this|that|main|real|root)\s+(?:issue|problem|error|failure|cause|culprit|reason)\s+"
    r"(?:here\s+)?(?:is|was|seems to be|appears to be)\s*(?:that\s+)?[:,-]?\s*)?",
    re.I,
)


_AGENT_I = rx.compile(
    r"^I(?:'ve| have)?\s+(?=(?:fixed|updated|changed|added|removed|moved|made|switched|replaced|"
    r"rewrote|wired|set|kept)\b)"
)


# "Those 404s are because X", "The Keycloak error is because X": the pointer goes, the cause stays
_POINTER_BECAUSE = rx.compile(
    r"^(?:(?:those|these|this|that|it)(?:\s+[\w.“”\"'…-]+){0,3}?|the [\w .“”\"'…-]{1,40}?)\s+"
    r"(?:is|are|was|were|happens?|happened)"
    r"\s+(?:only\s+)?because\s+(?:of\s+)?",
    re.I,
)


def _cause(sentence: str) -> str:
    text = _CAUSE_LEAD.sub("", sentence.replace("**", "").strip()).strip(" —–-:").rstrip(".")
    text = _POINTER_BECAUSE.sub("", text)
    text = _AGENT_I.sub("", text)  # the agent's "I fixed X by ..." -> "Fixed X by ...": the fix, not who made it
    return phrasing.capitalized(text) if len(text) >= 12 else sentence


_LOG_PREFIX = rx.compile(r"(?m)^[\w.-]+(?:-\d+)?\s+\|\s?")  # docker compose log prefixes ("ui-1  | ")


_CONSOLE_LABEL = rx.compile(r"\s*Understand this (?:error|warning)\b")


def _pasted(prompt: str) -> str:
    """The first error line the user pasted into a prompt (from their own terminal or browser), else ""."""
    if len(prompt) > 20000:
        return ""
    from automem.capture.signals import detect_errors

    text = _LOG_PREFIX.sub("", prompt)
    text = _CONSOLE_LABEL.sub("\n", text)  # the label a browser console copies along
    found = detect_errors(text, is_error=False, exit_code=None)
    if found:
        return " ".join(found[0].get("line", "").split())[:300]
    inline = _INLINE_ERROR.search(text)  # "I'm getting this when I run the build: error TS6059: ..."
    if not inline:
        return ""
    return " ".join((inline.group("msg") or inline.group(0)).split())[:300]


_INLINE_ERROR = rx.compile(
    r"\berror TS\d+:[^\n]{5,240}|\b(?:Uncaught\s+)?[A-Z][a-zA-Z]+(?:Error|Exception):\s[^\n]{3,240}|\bnpm "
    r"ERR![^\n]{5,200}"
    r"|Cannot find module '[^']+'|\bnet::ERR_[A-Z_]+[^\n]{0,120}"
    r"|\b(?:ENOENT|EADDRINUSE|ECONNREFUSED|EACCES)\b[^\n]{0,160}"
    r"|\b(?:ERROR|FATAL)\b[^\n]{10,200}"  # a log line's level word, mid-line
    r"|\b(?:reason|error|err|message)[\"']?\s*[:=]\s*[\"'](?P<msg>[^\"'\n]{4,80})[\"']"  # a log's quoted error message
)


def _gist_naming_file(error: str) -> str:
    """The error's gist; when it stops before the quoted file the error names ("no such file or directory, open
    './src/package.json'"), the file's name goes with it, or the gist ends on a dangling verb."""
    gist = _gist(error, 50)
    named = re.search(re.escape(gist) + r"\s*['\"]([^'\"\s]+)['\"]", error)
    name = named.group(1).replace("\\", "/").rsplit("/", 1)[-1] if named else ""
    return f"{gist} {name}" if re.fullmatch(r"[\w.-]+\.\w{1,5}", name) else gist  # a file, not a module name


def reported_problem_rule(session: Session) -> list[Candidate]:
    """A problem the user reported, what the agent found and changed, and the user moving on."""
    from automem.capture.signals import normalize_signature

    steps = session.steps
    prompts = [i for i, s in enumerate(steps) if s.kind == "prompt" and not s.queued]
    reports: list[tuple[int, str, str]] = []  # (prompt index, cluster, error line)
    for i in prompts:
        text = steps[i].text
        error = _pasted(text)
        if error:
            reports.append((i, cluster(normalize_signature(error)), error))
        elif (_PROBLEM.search(text[:600]) or _FIX_REQUEST.match(text)) and not text.rstrip().endswith("?"):
            reports.append((i, "", " ".join(text.split())[:200]))
    by_cluster: dict[str, list[int]] = {}
    for i, key, _error in reports:
        if key:
            by_cluster.setdefault(key, []).append(i)
    out: list[Candidate] = []
    done: set[str] = set()
    for i, key, error in reports:
        following = [j for j in prompts if j > i]
        end = following[0] if following else len(steps)
        edited = _changed(steps[i + 1 : end])
        if not edited:
            continue
        if following and key and any(k == key for j, k, _e in reports if j == following[0]):
            continue  # reported again right after: this attempt did not fix it
        if following and (
            steps[following[0]].after_interrupt
            or any(f.get("feedback") == "correction" for f in steps[following[0]].feedback)
        ):
            continue
        said = "\n".join(s.said_after for s in steps[i:end] if s.said_after)
        answer = steps[i].answer or ""
        repeats = len(by_cluster.get(key, [])) if key else 1
        # one report needs a stated cause; a pattern may also be stated by its fix ("Added X to the import map")
        asked_fix = bool(_FIX_REQUEST.match(steps[i].text))
        sentence = (
            stated_cause(said)
            or stated_cause(answer, because=True)
            or (stated_cause(said, because=True) if asked_fix else "")
            or (stated_cause(answer, fixes=True) if repeats >= 2 or asked_fix else "")
        )
        source = said if sentence and sentence in said else answer
        if not sentence or sentence.lower() in done:
            continue
        done.add(sentence.lower())
        if key and repeats >= 2 and by_cluster[key][-1] != i:
            continue  # a pattern is stated once, from its last (working) fix
        gist = _gist_naming_file(error) if key else ""
        lead = f"{gist} ({repeats}x)" if key and repeats >= 2 else gist
        from automem.extract.usable import readable

        cause = _cause(sentence)
        summary = next(
            (s for s in _summaries(lead, cause, edited) if readable(s) and cause[:16] in s), ""
        )  # the cause must survive
        if not summary:
            continue
        follow = [f for f in [_after(source, sentence)] if f]
        out.append(
            Candidate(
                kind="pattern" if repeats >= 2 else "observation",
                summary=summary,
                content=(
                    f"{_reported_as(key, asked_fix)}{f' ({repeats} times)' if repeats >= 2 else ''}: {error}\n"
                    f"The agent: {sentence[:300]}"
                    + (f" {follow[0][:200]}" if follow else "")
                    + f"\nChanged: {', '.join(edited[:4])}"
                ),
                why="The user reported this; the agent changed the named files and the user moved on without "
                "reporting it again.",
                how_to_apply="When this shows up again, look at the same place first.",
                signals=["error"],
                scope="project",
                weight=1.9 if repeats >= 2 else 1.4,
            )
        )
    return out


def _summaries(lead: str, cause: str, edited: list[str]) -> Iterator[str]:
    """The summaries to try, best first, for a reported problem the agent fixed. A cause says how things stood
    before the fix ("The UI uses the implicit flow"), so it carries where it was fixed, or at least that it was:
    read in a later session without it, it states the old state as the present one. A cause that is itself the fix
    ("Added X to the import map") needs no such mark."""
    from automem.extract.usable import readable

    names = [e.rsplit("/", 1)[-1] for e in edited]
    tails = [f" (fixed in {', '.join(names)})"] if 1 <= len(names) <= 2 else []
    if _FIXED.match(cause):
        tails = [t for t in tails if not all(n.lower() in cause.lower() for n in names)] + [""]
    else:
        tails.append(" (fixed)")
    bodies = [f"{lead}: {cause}", cause] if lead else [cause]
    for shorten in (phrasing.fit_whole, phrasing.fit):  # a clause of the cause cut only when nothing fits whole
        for body in bodies:
            for tail in tails:
                head = shorten(body, phrasing.LIMIT - len(tail))
                if head and readable(head):
                    yield head + tail


def _reported_as(key: str, asked_fix: bool) -> str:
    """How the prompt is introduced: "fix the login page" asked for a fix, it reported nothing itself."""
    return "The user asked" if asked_fix and not key else "The user reported"


_HOW_QUESTION = rx.compile(
    r"^(?:(?:so|ok(?:ay)?|and|but)[,\s]+)*(?:(?:if|when)\b[^?]{0,60}?\s)?"
    r"(?:how (?:do|can|am|should|would) i|how to|why (?:is|are|does|do|did|isn'?t|aren'?t|doesn'?t|are you)"
    r"|where (?:do|does|is|are))\b",
    re.I,
)
_CODE_LINE = rx.compile(r"```[\w-]*\n\s*([^\n`]{3,80})\n")
_INLINE_COMMAND = rx.compile(r"`((?:[a-z][\w.-]*)(?: (?:--?[\w-]+|[\w./:=-]+)){1,4})`")


_HOW_TO = rx.compile(
    r"^(?P<lead>.*?)\bhow (?:do|can|could|should|would|am|are) (?:i|we)\s+(?:be\s+)?"
    r"(?:(?:supposed|suposed|able|meant) to\s+)?(?P<goal>.{6,})$|^(?P<lead2>.*?)\bhow to\s+(?P<goal2>.{6,})$",
    re.I,
)


def _as_goal(question: str) -> str:
    """ "so if i close you how am i supposed to pick back up" -> "To pick back up, if I close you": a heading, not
    a quote."""
    match = _HOW_TO.match(question)
    if not match:
        return phrasing.capitalized(question)
    lead = re.sub(
        r"^(?:(?:so|ok(?:ay)?|and|but)[,\s]+)+", "", (match["lead"] or match["lead2"] or "").strip(" ,"), flags=re.I
    )
    goal = (match["goal"] or match["goal2"]).strip(" ,")
    text = f"To {goal}" + (f", {lead}" if re.match(r"(?:if|when)\b", lead, re.I) else "")
    return re.sub(r"\bi\b", "I", text)


# the next prompt says the answer did not work: "'next' is not recognized as an internal or external command"
# (read at the head of that prompt: a new question later on, "now how do I fix the CORS error?", says nothing of it)
_DID_NOT_WORK = rx.compile(
    r"\bnot recognized as an? (?:internal|external|cmdlet)|\bcommand not found\b|\bis not recognized\b"
    r"|\bno such file\b|\b(?:it|that|this|which) (?:can ?not|can'?t) find\b"
    r"|\b(?:it|that|this|which|the command|the script)?\s*(?:doesn'?t|does not|didn'?t|did not|won'?t)"
    r" (?:work|run|start)\b"
    r"|\bnot working\b|\bstill (?:broken|failing|fails)\b|\bsomething(?:'s| is) wrong\b"
    r"|^\W*(?:(?:no|nope|hmm|but|it)\W+)*(?:(?:got|gives?|gave|shows?|throws?|printed) )?(?:an? )?error\b"
    r"|^\W*(?:(?:no|nope|hmm|but)\W+)*failed\b|\b(?:it|that|this|which) (?:still |also )?failed\b",
    re.I,
)
_HEAD_OF_REPLY = 120
# a command that runs this project's own scripts, or a question about this project's things: not a global lesson
_PROJECT_COMMAND = rx.compile(
    r"^(?:(?:npm|pnpm|yarn|bun)\s+(?:run\b|start\b|test\b|dev\b|build\b|serve\b)|(?:make|just|rake|gradle|mvn|cargo"
    r"|mix|sbt)\b|\.{1,2}/|python3? manage\.py\b|php artisan\b|bundle exec\b|docker[- ]compose\b|(?:poetry|uv) run\b"
    r"|npx\s+(?!-)\S)",
    re.I,
)
_PROJECT_THING = rx.compile(
    r"\b(?:the|this|our|my) (?:app|application|project|repo|server|site|website|backend|frontend|api|tests?|build"
    r"|service|bot|game|demo)\b",
    re.I,
)


# the first line of an answer's code block that is no command to run for the goal: a "key: value" line (a setting,
# a login), or a cd that only says where the real command runs
_NOT_A_COMMAND = rx.compile(r"[\w .-]{1,30}:\s|cd\s", re.I)


def answered_question_rule(session: Session) -> list[Candidate]:
    """The user asks how to do something (or why it happens) and the agent answers with a command to run."""
    out: list[Candidate] = []
    for i, step in enumerate(session.steps):
        if step.kind != "prompt" or step.queued or not _HOW_QUESTION.match(step.text.strip()) or len(step.text) > 200:
            continue
        answer = step.answer or ""
        code = _CODE_LINE.search(answer) or _INLINE_COMMAND.search(answer[:600])
        if not code or re.search(r"[|;&<>]|\$\(", code.group(1)) or _sentences(answer)[:1] == [answer.strip()]:
            continue  # no single command to remember
        if _NOT_A_COMMAND.match(code.group(1).strip()):
            continue  # "username: admin" (a setting or a login), "cd web" (where the command runs, not the command)
        following = next((s for s in session.steps[i + 1 :] if s.kind == "prompt"), None)
        if following is not None and (
            following.after_interrupt
            or any(f.get("feedback") == "correction" for f in following.feedback)
            or _DID_NOT_WORK.search((following.text or "")[:_HEAD_OF_REPLY])
        ):
            continue  # the answer was corrected, or did not work
        question = " ".join(step.text.split()).rstrip("?")
        first = next((s for s in _sentences(answer) if len(s) >= 20 and not s.endswith(":")), "")
        command = code.group(1).strip()
        out.append(
            Candidate(
                kind="observation",
                summary=phrasing.fit(f"{_as_goal(question)}: `{command}`"),
                content=f'The user asked: "{question}"\nThe agent answered: {first[:300]}\nCommand: `{command}`',
                why="The user asked how to do this; the agent's answer gave the command.",
                how_to_apply="Offer the same command when the question comes up again.",
                signals=["question"],
                scope="project"
                if re.search(r"[\w-]+\.\w{1,5}\b|/", command)
                or _PROJECT_COMMAND.match(command)
                or _PROJECT_THING.search(question)
                else "global",
                weight=1.2,
            )
        )
    return out


# a line of pasted terminal output in which the shell ran an option as a command: "--universe: command not found",
# "zsh: command not found: --mode", PowerShell's "The term '--mode' is not recognized"
_OPTION_RAN = rx.compile(
    r"^\s*(?:(?:ba|z|da|k)?sh:\s*(?:line \d+:\s*)?)?(-{1,2}[A-Za-z][\w-]*): command not found\s*$"
    r"|\bcommand not found: (-{1,2}[A-Za-z][\w-]*)\s*$"
    r"|\bThe term '(-{1,2}[A-Za-z][\w-]*)' is not recognized\b",
    re.M,
)
_EARLIER_ANSWERS = 3  # how many of the agent's answers before the report may hold the command that broke


def pasted_continuation_rule(session: Session) -> list[Candidate]:
    """The user pastes output where the shell ran an option as a command ("--universe: command not found"), and an
    answer of the agent just before gave a command split over lines with backslashes whose next line starts with
    that option: the pasted lines ran one by one. A fact of the user's terminal, said once per session."""
    answers: list[str] = []
    for step in session.steps:
        if step.kind != "prompt":
            continue
        flags = [next(g for g in m.groups() if g) for m in _OPTION_RAN.finditer(step.text or "")]
        broken = next(
            (
                flag
                for flag in flags
                for answer in answers[-_EARLIER_ANSWERS:]
                if re.search(r"\\[ \t]*\r?\n[ \t]*" + re.escape(flag) + r"(?![\w-])", answer)
            ),
            "",
        )
        if broken:
            return [
                Candidate(
                    kind="observation",
                    summary=f"Give the user single-line shell commands: pasted multi-line ones ran line by line "
                    f"('{broken}: command not found')",
                    content=f'The user pasted: "{broken}: command not found" after running a command the agent had '
                    "split over lines with backslashes.",
                    why="The continuation lines were lost when pasted, so the shell ran each option as a command.",
                    how_to_apply="Put a command the user is to paste on one line, without backslash continuations.",
                    signals=["report"],
                    scope="global",
                    weight=1.0,
                )
            ]
        if step.answer:
            answers.append(step.answer)
    return []

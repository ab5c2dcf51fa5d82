"""Lessons the agent spells out itself: its diagnosis of a failure that a later call then fixed.

In a coding-agent session the clearest statement of what went wrong is often the agent's own
text right after a failure: "The issue is that X", "This fails because Y", "Z requires W". The
failure is either a tool call that failed or an error the user pasted into a prompt (a traceback
or an error line they saw in their own terminal). The diagnosis counts only when the agent then
did something that passed (an edit, or a command that worked) before the user spoke again, so
an idle guess that led nowhere is not stored. Tool-call slips (an edit whose old text did not
match, a missing parameter) are never lessons, whatever the agent says about them.

The cue words are the few that English-writing agents use for a cause or a requirement; the
rest of the rule is structure (failure -> explanation -> passing call), so it holds for any
project, tool or language the session is about.
"""

from __future__ import annotations

import re

from automem.extract import phrasing
from automem.extract.steps import Step

WINDOW = 12  # actions after the failure in which the diagnosis and the fix must come

# A sentence that names a cause or a requirement (not a plan: "let me", "I'll" are not diagnoses).
_CAUSE = re.compile(
    r"\b(?:the|this|that|main|real|root)\s+(?:issue|problem|error|failure|cause|culprit|reason)\s+"
    r"(?:here\s+)?(?:is|was|seems to be|appears to be)\b"
    r"|\b(?:fails?|failed|failing|breaks?|broke|crash(?:es|ed)?|errors?)\s+(?:\w+\s+){0,3}?because\b"
    r"|\b(?:is|was|are|were)\s+caused\s+by\b"
    r"|\bthe\s+fix\s+(?:is|was)\b"
    r"|\b(?:requires?|needs? to be (?:run|called|invoked|started|built|installed|set|passed|used)|must be "
    r"(?:run|called|invoked|started|built|installed|set|passed|used))\b"
    r"|\bonly works (?:with|when|if|from|in|on)\b"
    r"|\bdoes(?:n't| not) (?:support|accept|allow|exist)\b"
    r"|\b(?:is|are|was|were)(?:n't| not) (?:supported|allowed|installed|available|on (?:the )?PATH|writable)\b"
    r"|\b(?:failed|fails|failing|blocked|denied|rejected)\s+(?:\w+\s+){0,3}?(?:due to|by)\b"
    r"|\b(?:had|needed) to (?:run|rerun|re-run|retry|use|pass|set|install|add|move|escalate)\b",
    re.I,
)
_PLAN = re.compile(r"^(?:let me|let's|i'll|i will|now\b|next\b|first\b)", re.I)
_HEDGE = re.compile(r"\b(?:might|may|maybe|perhaps|possibly|probably|could be|not sure|i think|seems like)\b", re.I)
_CAUSE_LEAD = re.compile(
    r"^(?:(?:ok(?:ay)?|ah|i see|got it|found it|good|great)[,.!:]*\s+)*"
    r"(?:(?:the|this|that|main|real|root)\s+(?:issue|problem|error|failure|cause|culprit|reason)\s+"
    r"(?:here\s+)?(?:is|was|seems to be|appears to be)\s*(?:that\s+)?[:,-]?\s*)?",
    re.I,
)
_SLIP_LIKE = re.compile(r"\b(?:old_string|old text|exact text|string to replace|not (?:been )?read yet|parameter)\b", re.I)
_EDIT_TOOLS = frozenset({"edit", "multiedit", "write", "apply_patch", "str_replace_based_edit_tool", "replace"})


def _sentences(text: str) -> list[str]:
    out = []
    in_fence = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence or not stripped or stripped.startswith(("|", ">", "#")):
            continue
        stripped = re.sub(r"^(?:[-*•]|\d+[.)])\s+", "", stripped)
        out.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`])", stripped) if s.strip())
    return out


def diagnosis_of(text: str) -> str:
    """The first sentence of the agent's text that states a cause or a requirement, else ""."""
    for sentence in _sentences(text):
        if not 20 <= len(sentence) <= 400 or sentence.endswith("?") or _PLAN.match(sentence):
            continue
        if _CAUSE.search(sentence) and not _HEDGE.search(sentence) and not _SLIP_LIKE.search(sentence):
            return sentence.rstrip(":")
    return ""


def pasted_error(prompt: str) -> str:
    """The first error line the user pasted into a prompt (from their own terminal), else ""."""
    if len(prompt) > 20000:
        return ""
    from automem.capture.signals import detect_errors

    found = detect_errors(prompt, is_error=False, exit_code=None)
    return " ".join(found[0].get("line", "").split())[:300] if found else ""


def _cause(sentence: str, room: int) -> str:
    """ "The issue is that `x` is now y" -> "`x` is now y"; "A failed because B" -> B when both do not fit."""
    text = _CAUSE_LEAD.sub("", sentence.strip()).strip().rstrip(".")
    text = phrasing._cap(text) if len(text) >= 12 else sentence
    head, sep, tail = text.partition(" because ")
    if sep and len(text) > room and len(tail) >= 12:
        return phrasing._cap(tail)
    return text


_PART = re.compile(r"[A-Za-z]{3,}")
_GENERIC = frozenset(
    "the and for not but are was were has have had its now can you this that with from been when then than into "
    "what error errors fail fails failed failing failure issue problem because same still file files code just only "
    "also does doesn work works working need needs should would could there their here user again let see".split()
)


def _terms(text: str) -> set[str]:
    """Word parts, so "log-server.mjs" and "the log server" share "log" and "server"."""
    return {w.lower() for w in _PART.findall(text)} - _GENERIC


def _relevant(sentence: str, context: str) -> bool:
    """The diagnosis names something the failure or its fix also names (not a remark about another thing)."""
    return bool(_terms(sentence) & _terms(context))


def _fix_target(step: Step) -> str:
    """What a passing call changed or ran, in a few words: a file name or a command."""
    patched = re.findall(r"\*\*\* (?:Add|Update|Delete) File: (\S+)", step.input)
    if patched:
        return ", ".join(p.rsplit("/", 1)[-1] for p in dict.fromkeys(patched))
    if step.tool.lower() in _EDIT_TOOLS:
        names = re.findall(r"[\w.-]+\.\w{1,5}\b", step.input[:300])
        return names[0].rsplit("/", 1)[-1] if names else step.tool
    return "`" + " ".join(phrasing.shell_words(step.input))[:60] + "`"


def _is_failure(step: Step) -> bool:
    from automem.extract.candidates import _is_slip

    return step.kind == "action" and not step.ok and not _is_slip(step)


def diagnosis_candidates(steps: list[Step]) -> list:
    """Failure (a failed call or a pasted error) -> the agent's stated cause -> a passing call."""
    from automem.extract.candidates import Candidate

    out = []
    seen: set[str] = set()
    for i, step in enumerate(steps):
        if _is_failure(step):
            error, subject = step.errors[0].get("line", ""), phrasing.command_name(step.input, step.tool)
            origin = f"`{step.input[:150]}` failed"
            window = [step]
        elif step.kind == "prompt" and (error := pasted_error(step.text)):
            subject, origin, window = "", "The user pasted", [step]
        else:
            continue
        for later in steps[i + 1 :]:
            if later.kind != "action" or len(window) > WINDOW:
                break
            window.append(later)
        found = _diagnosed_fix(window)
        if found is None:
            continue
        sentence, fixes = found
        error = " ".join(error.split())
        fixed = ", ".join(dict.fromkeys(_fix_target(f) for f in fixes[:3]))
        if not _relevant(sentence, f"{error} {step.input} {fixed}"):
            continue
        name = phrasing.error_name(error) or phrasing.error_gist(error, 40)
        lead = f"{subject} ({name})" if subject else name
        cause = _cause(sentence, phrasing.LIMIT - len(lead) - 2)
        if cause.lower() in seen:
            continue
        seen.add(cause.lower())
        out.append(Candidate(
            kind="observation",
            summary=phrasing.fit(f"{lead}: {cause}"),
            content=(f"{origin}: {error[:300]}\nThe agent's diagnosis: {sentence[:400]}\n"
                     f"What passed afterwards: {fixed}"),
            why="A single failure the agent explained and then got past in this session (the explanation is its own).",
            how_to_apply=f"When {name} shows up again, check this cause first.",
            signals=["error"], scope="project", weight=1.3,
        ))
    return out


def _diagnosed_fix(window: list[Step]) -> tuple[str, list[Step]] | None:
    """In failure-and-after actions: the first stated cause, and the passing calls that followed it."""
    for j, step in enumerate(window):
        sentence = diagnosis_of(step.said_after) if step.said_after else ""
        if not sentence:
            continue
        passed = []
        for later in window[j + 1 :]:
            if not later.ok:
                if passed:
                    break
                continue
            passed.append(later)
        changed = [p for p in passed if p.tool.lower() in _EDIT_TOOLS or not _looks_read_only(p)]
        return (sentence, changed) if changed else None
    return None


_READ_ONLY = re.compile(r"^(?:ls|cat|head|tail|grep|rg|find|sed -n|stat|file|tree|wc|echo|pwd|which|git (?:status|log|diff|show))\b")


def _looks_read_only(step: Step) -> bool:
    """A call that only looked at something (a read, a search) fixes nothing."""
    if step.tool.lower() in ("read", "grep", "glob", "ls", "find", "search", "view", "webfetch", "websearch"):
        return True
    return bool(_READ_ONLY.match(" ".join(phrasing.shell_words(step.input))))

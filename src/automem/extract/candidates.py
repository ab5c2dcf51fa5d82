"""Deterministic lesson candidates from a session's steps: no model, precision first.

Four rules, one per memory type (issue 7, item 3):
- pattern: the same error signature twice or more, with the call that fixed it when one followed;
- decision: an explicit choice ("X should be Y, not Z", "make sure you don't ...", a rejected tool
  call whose feedback names the alternative, a rule stated with must/never);
- preference: "I prefer ...", "always/never ...", "from now on ...", or a request repeated in
  three prompts or more;
- observation: one error followed by its fix when the error says something durable (a missing
  command or module), or a user correction (what they typed right after stopping the agent).
Tool-call slips (a missing parameter, an edit whose old text did not match, a cancelled sibling,
a denied permission, a grep with no match) and transient noise are never lessons.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from automem.extract.steps import Step

MAX_CANDIDATES = 12


@dataclass
class Candidate:
    kind: str  # pattern | decision | preference | observation
    summary: str
    content: str
    why: str
    how_to_apply: str
    signals: list[str] = field(default_factory=list)  # correction | confirmation | preference | rule | error
    scope: str = "project"
    weight: float = 1.0  # ordering when more than MAX_CANDIDATES qualify

    def text(self) -> str:
        return f"{self.summary}\n{self.content}"


# --- errors -------------------------------------------------------------------------------

_SLIP = re.compile(
    r"InputValidationError|required parameter|Cancelled: parallel tool call|Permission for this tool use was denied"
    r"|haven't granted it yet|Could not find the exact text|No changes made to|replacement produced identical"
    r"|Command aborted|Path does not exist: https?:|Too Many Requests|\b429\b|rate.?limit|Request interrupted"
    r"|unexpected EOF|unterminated|here-document|literal \"\\\\n\" is not allowed|syntax error near unexpected",
    re.I,
)
_NOT_FOUND_CMD = re.compile(
    r"(?:^|[\s:])([\w.+-]+): command not found|The term '([\w.+-]+)' is not recognized"
    r"|'([\w.+-]+)' is not recognized as an internal or external command|^which: no ([\w.+-]+) in", re.M,
)
_MISSING_MODULE = re.compile(r"Cannot find module '([^']+)'|No module named '?([\w.]+)'?|ModuleNotFoundError: No module named '?([\w.]+)")
_VOLATILE = re.compile(r"\[[^\]]*\]|\"[^\"]*\"|'[^']*'|<[a-z]+>|\d+")


def _cluster(signature: str) -> str:
    """Errors that differ only in quoted text, numbers or paths fall in one cluster."""
    return " ".join(_VOLATILE.sub("…", signature).split())[:80].lower()


_EXPLORE = re.compile(r"^(?:ls|cat|head|tail|grep|rg|find|sed|stat|file|tree|wc)\b")
_BARE_EXIT = re.compile(r"^(?:exit code \d+|command exited with code \d+|error)$", re.I)


def _is_slip(step: Step) -> bool:
    if _SLIP.search(step.result_head):
        return True
    if _EXPLORE.match(_command(step.input)) and "No such file" in step.result_head:
        return True  # looking for a path that is not there is exploration, not a lesson
    if all(_BARE_EXIT.match(e.get("signature", "").strip()) for e in step.errors):
        return True  # a bare exit status says nothing (grep with no match)
    if not step.errors:
        return True  # a failure with nothing that names it (grep with no match, empty output)
    return all(_SLIP.search(e.get("line", "")) for e in step.errors)


_SHELL_WRAPPER = re.compile(r"^(?:bash|sh|zsh) -l?c |^powershell(?:\.exe)? -Command |^cmd(?:\.exe)? /c ", re.I)


def _command(text: str) -> str:
    """The command inside a shell wrapper (``bash -lc "x"`` -> ``x``)."""
    text = _SHELL_WRAPPER.sub("", text.strip()).strip().strip("'\"")
    return text or "?"


def _target(text: str) -> set[str]:
    return {w for w in re.findall(r"[\w.-]{3,}", text.lower()) if not w.isdigit()}


def _fix_after(steps: list[Step], index: int, failed: Step) -> Step | None:
    """The first later successful call that touches what failed (same tool or same target)."""
    want = _target(failed.input)
    for step in steps[index + 1 : index + 25]:
        if step.kind == "prompt":
            if step.feedback and any(f.get("feedback") == "correction" for f in step.feedback):
                return None
            continue
        if step.kind != "action":
            continue
        if not step.ok:
            if _cluster_of(step) == _cluster_of(failed):
                continue
            continue
        if step.input and (step.tool != failed.tool or step.input != failed.input) and (want & _target(step.input)):
            return step
    return None


def _cluster_of(step: Step) -> str:
    return _cluster(step.errors[0]["signature"]) if step.errors else ""


def _confirmed_after(steps: list[Step], index: int) -> bool:
    for step in steps[index + 1 :]:
        if step.kind == "prompt":
            return any(f.get("feedback") == "confirmation" for f in step.feedback)
    return False


def error_candidates(steps: list[Step], prior_clusters: Counter | None = None) -> list[Candidate]:
    prior_clusters = prior_clusters or Counter()
    groups: dict[str, list[int]] = {}
    for i, step in enumerate(steps):
        if step.kind == "action" and not step.ok and not _is_slip(step):
            groups.setdefault(_cluster_of(step), []).append(i)
    out: list[Candidate] = []
    for key, indexes in groups.items():
        first = steps[indexes[0]]
        last_i = indexes[-1]
        err = first.errors[0]
        line = " ".join(err["line"].split())[:200]
        fix = _fix_after(steps, last_i, steps[last_i])
        repeated = len(indexes) + prior_clusters.get(key, 0)
        confirmed = _confirmed_after(steps, last_i)
        missing = _NOT_FOUND_CMD.search(err["line"]) or _NOT_FOUND_CMD.search(first.result_head)
        module = _MISSING_MODULE.search(err["line"])
        signals = ["error"] + (["confirmation"] if confirmed else [])
        if missing:
            name = next(g for g in missing.groups() if g)
            alt = _command(fix.input).split()[0] if fix is not None else ""
            use = f"; use {alt} instead" if alt and alt != name and (name in alt or alt in name) else ""
            out.append(Candidate(
                kind="pattern" if repeated >= 2 else "observation",
                summary=f"{name} is not installed or not on PATH here (no {name} binary found){use}",
                content=f"Running `{_command(first.input)[:150]}` failed: {line}."
                + (f" What worked next: {_command(fix.input)[:200]}" if fix is not None else ""),
                why=f"'{name}' was not found on this machine ({repeated}x).",
                how_to_apply=f"Do not call {name} on this machine" + (f"; use {alt}." if use else "; check the PATH first."),
                signals=signals, scope="global", weight=1.5,
            ))
            continue
        if repeated >= 3 or (repeated >= 2 and fix is not None):
            fix_text = f"; fixed by: {fix.tool} {fix.input}" if fix else "; no fix found in the session"
            tools = "/".join(dict.fromkeys(steps[i].tool for i in indexes))
            summary = f"{tools} {_command(first.input)[:40]} fails with '{line[:70]}' ({repeated}x)" + (
                f"; fix: {_command(fix.input)[:50]}" if fix is not None else "")
            out.append(Candidate(
                kind="pattern",
                summary=summary,
                content=(f"{first.tool} failed {repeated} times with: {line}{fix_text}.\n"
                         f"Failing call: {first.tool} {first.input[:200]}"),
                why=f"Hit the same error {repeated} times" + (" (also in earlier sessions)" if prior_clusters.get(key) else "")
                + (f"; the call that worked afterwards was {fix.tool} {fix.input[:150]}" if fix else "")
                + ("; the user confirmed the fix" if confirmed else "") + ".",
                how_to_apply=(f"Before running {first.tool} {first.input[:80]} again, "
                              + (f"do what worked: {fix.input[:150]}." if fix else "expect this error; it was not resolved.")),
                signals=signals, scope="project", weight=2.0 + (1 if fix else 0),
            ))
            continue
        if fix is None or repeated >= 2:
            continue
        if module:
            name = next(g for g in module.groups() if g)
            out.append(Candidate(
                kind="observation",
                summary=f"{name} is not installed in this project: '{line[:60]}'",
                content=f"{first.tool} {first.input[:150]} failed: {line}. Fixed by: {fix.tool} {fix.input[:200]}",
                why=f"The module {name} is not installed here; the session worked around it.",
                how_to_apply=f"Install {name} before importing it, or do without it as the session did.",
                signals=signals, scope="project", weight=1.5,
            ))
    return out


# --- what the user said -----------------------------------------------------------------------

_PROFANITY = re.compile(r"\b(?:fucking|fuckoing|fucked|fuck|shit|damn|omfg|wtf|my dude|dude|jesus|fucking hell)\b[,!]*\s*", re.I)
_DECISION = re.compile(
    r"\b(?:should|must|needs? to) (?:be|stay|go|live|use|have)\b[^.!?]{0,120}?\bnot\b"
    r"|\bmake sure (?:you )?(?:do ?n[o']?t|never|to not|not to)\b"
    r"|\b(?:must|should) (?:never|not)\b|\bmust never\b|\bmust not\b"
    r"|\b(?:use|using) [^,.!?]{1,60}?,? (?:no|not|instead of|rather than) \S"
    r"|\byou have to \w+|\bi never said\b|\bby default\b"
    r"|\binstead\b",
    re.I,
)
_NOT_A_RULE = re.compile(r"^(?:why|what|how|when|where|who|which|is|are|does|do|did|can|could|would|will)\b", re.I)
_STOP = frozenset(
    "the a an and or to of in on for with it this that is are be i you we me my our your can do don't not no "
    "please just then so if at as by from all also now there here what how why when which its it's was were "
    "make sure add update note".split()
)


def _clean(sentence: str) -> str:
    text = _PROFANITY.sub("", sentence).strip(" ,;:-").rstrip(".")
    text = " ".join(text.split())
    return text[:1].upper() + text[1:] if text else text


def _sentences(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("```", ">", "|", "at ", "{", "[")) or len(line) > 600:
            continue
        out.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+", line) if s.strip())
    return out


_PREFERENCE = re.compile(
    r"\bi (?:would |'d )?only want\b|\bi (?:really )?(?:like|hate|dislike|don'?t like|love)\b|\bi (?:always|never)\b",
    re.I,
)
_FACT_SHAPE = re.compile(r"\b(?:is|are|was|were|it'?s|isn'?t|aren'?t|lives?|located|installed|uses?|at|in|under|not)\b", re.I)
_NOISE_TOKEN = re.compile(r"^(?:#?[0-9a-f]{6}|#?[0-9a-f]{3}|\d+[%\w]*)$", re.I)
_CONTENT_WORD = re.compile(r"[A-Za-z][\w./@-]{3,}")
_FILLER = frozenset("that this what with have just really think would could should there their about horrible right "
                    "wrong again actually maybe thing stuff good great nice look looks like doesn't isn't".split())


def _informative(sentence: str) -> bool:
    """A sentence that states something: enough real words, not a list of numbers or colors."""
    tokens = sentence.split()
    if not tokens or sum(bool(_NOISE_TOKEN.match(t.strip(",.;:!"))) for t in tokens) * 4 > len(tokens):
        return False
    words = [w for w in _CONTENT_WORD.findall(_PROFANITY.sub("", sentence)) if w.lower() not in _FILLER]
    return len(words) >= 2


def feedback_candidates(steps: list[Step]) -> list[Candidate]:
    out: list[Candidate] = []
    seen: set[str] = set()

    def add(kind: str, sentence: str, signal: str, why: str, how: str, weight: float = 1.0) -> None:
        clean = _clean(sentence)
        if len(clean) < 12 or clean.lower() in seen or not _informative(clean):
            return
        seen.add(clean.lower())
        out.append(Candidate(
            kind=kind, summary=clean, content=f"The user said: \"{clean}\"", why=why, how_to_apply=how,
            signals=[signal], scope=_scope_of(clean) if kind == "preference" else "project", weight=weight,
        ))

    for step in steps:
        if step.kind == "rejection" and step.text:
            add("decision", f"{step.text} (instead of {step.tool} {step.input[:60]})", "correction",
                f"The user rejected the agent's {step.tool} call and said what to do instead.",
                "Follow the user's choice when the same step comes up again.", weight=2.5)
            continue
        if step.kind != "prompt":
            continue
        taken = False
        for item in step.feedback:
            kind, text = item.get("feedback"), item.get("text", "")
            if text.rstrip().endswith("?"):
                continue
            if kind in ("preference", "rule"):
                add("preference", text, kind,
                    "The user stated this as a standing preference.", "Apply it in every later session.", 2.0)
                taken = True
            elif kind == "correction" and _PROJECT_THING.search(text):
                add("observation", text, "correction",
                    "The user corrected the agent.", "Do it the corrected way from the start next time.", 1.8)
                taken = True
        if taken:
            continue
        text = step.text.strip()
        if (step.after_interrupt and len(text) <= 160 and not text.endswith("?") and not _NOT_A_RULE.match(text)
                and _FACT_SHAPE.search(text)):
            add("observation", text, "correction",
                "The user stopped the agent and corrected its course with this.",
                "Start from this fact instead of rediscovering it.", 2.2)
            continue
        for sentence in _sentences(step.text):
            if _NOT_A_RULE.match(sentence) or sentence.endswith("?") or not 12 <= len(sentence) <= 240:
                continue
            if _PREFERENCE.search(sentence):
                add("preference", sentence, "preference", "The user said what they want in general.",
                    "Apply it in later sessions of this project.", 1.7)
                break
            if _DECISION.search(sentence):
                add("decision", sentence, "rule", "An explicit choice the user made in this session.",
                    "Keep to this choice in later work on the project.", 1.6)
                break
    return out + repeated_requests(steps)


def repeated_requests(steps: list[Step], min_prompts: int = 3, max_items: int = 2) -> list[Candidate]:
    """A request the user makes in three prompts or more is a preference, however they phrase it.

    Counted as pairs of words that occur close together (within five words) in one sentence of
    at least three different prompts; the shortest such sentence becomes the memory.
    """
    counts: Counter = Counter()
    where: dict[tuple[str, str], list[str]] = {}
    for step in steps:
        if step.kind != "prompt" or len(step.text) > 2000:
            continue
        pairs: set[tuple[str, str]] = set()
        for sentence in _sentences(step.text):
            plain = re.sub(r"\S*[/@.]\S*", " ", _PROFANITY.sub("", sentence.lower()))
            words = re.findall(r"[a-z][a-z'-]+", plain)
            for i, a in enumerate(words):
                if a in _STOP or len(a) < 3:
                    continue
                for b in words[i + 1 : i + 6]:
                    if b not in _STOP and len(b) >= 3 and b != a:
                        if (a, b) not in pairs:
                            pairs.add((a, b))
                            where.setdefault((a, b), []).append(sentence)
        counts.update(pairs)
    out: list[Candidate] = []
    used: set[str] = set()
    for pair, n in counts.most_common(12):
        if n < min_prompts or len(out) >= max_items:
            break
        sentence = min(where[pair], key=len)
        clean = _clean(sentence)
        if clean.lower() in used or len(clean.split()) < 3 or not _informative(clean):
            continue
        used.add(clean.lower())
        out.append(Candidate(
            kind="preference",
            summary=f"Repeated request ({n} prompts): {clean}"[:120],
            content=f"The user asked for \"{pair[0]} … {pair[1]}\" in {n} prompts, e.g.: \"{clean[:300]}\"",
            why=f"Asked in {n} separate prompts of one session: a habit of this user, not a one-off.",
            how_to_apply="Do this without being asked.",
            signals=["preference"], scope="project", weight=1.2,
        ))
    return out


_PROJECT_THING = re.compile(r"[\w-]+\.[a-z]{1,5}\b|/|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z]\w+|\b[A-Z][a-z]+[A-Z]\w+")


def _scope_of(text: str) -> str:
    """Global unless it names something of a project (a file, a path, an identifier)."""
    return "project" if _PROJECT_THING.search(text) else "global"


def candidates(steps: list[Step], prior_clusters: Counter | None = None) -> list[Candidate]:
    found = error_candidates(steps, prior_clusters) + feedback_candidates(steps)
    found.sort(key=lambda c: -c.weight)
    return found[:MAX_CANDIDATES]


def error_clusters(steps: list[Step]) -> Counter:
    """cluster|tool -> count, kept per project so a pattern can span sessions."""
    counts: Counter = Counter()
    for step in steps:
        if step.kind == "action" and not step.ok and not _is_slip(step):
            counts[_cluster_of(step)] += 1
    return counts

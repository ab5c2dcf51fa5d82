"""Deterministic lesson candidates from a session's steps: no model, precision first.

Four rules, one per memory type (issue 7, item 3):
- pattern: the same error signature twice or more, with the call that fixed it when one followed;
  a command that stops at a CLI wizard's question twice or more (nobody answers it in the agent's shell);
- decision: an explicit choice ("X should be Y, not Z", "make sure you don't ...", a rejected tool
  call whose feedback names the alternative, a rule stated with must/never), a layout the user
  typed as "a -> b" lines, the file the user picks to keep a plan or docs in;
- preference: "I prefer ...", "always/never ...", "from now on ...", or a request (not a question)
  repeated in three prompts or more;
- observation: the agent's own diagnosis of a failure (a failed call or an error the user reported)
  that a passing call then followed (diagnosis.py); one error followed by its fix when the error says something durable (a missing
  command or module) or when the fix is the same command rerun differently (an added flag, escalated
  sandbox permissions), a user correction (what they typed right after stopping the agent), or the
  user saying where something lives ("there is a config file at x/y.conf").
Tool-call slips (a missing parameter, an edit whose old text did not match, a cancelled sibling,
a denied permission, a grep with no match) and transient noise are never lessons.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from automem.extract import phrasing
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
        rerun = step.escalated and not failed.escalated  # same command, outside the sandbox this time
        if step.input and (rerun or step.tool != failed.tool or step.input != failed.input) and (want & _target(step.input)):
            return step
    return None


_OPTION = re.compile(r"(?<!\S)(--?[A-Za-z][\w-]*(?:=\S+)?)")


_REASON = re.compile(r"not permitted|not allowed|denied|cannot|can't|unable|not found|no such|refused|exception|error", re.I)


def _reason_line(step: Step) -> str:
    """The output line that says why a call failed (the first that names a cause), one line."""
    lines = [e.get("line", "") for e in step.errors] + step.result_head.splitlines()[:3]
    lines = [" ".join(line.split()) for line in lines if line.strip()]
    for line in lines:
        if _REASON.search(line) and not line.startswith(("+ ", "At line")):
            return line
    return lines[0] if lines else "failed"


def _short_reason(line: str) -> str:
    """The cause at the end of an error line ("...: Operation not permitted"), else its start."""
    line = re.sub(r"^(?:error|fatal|Error|ERROR)\s*:\s*", "", line).strip()
    if len(line) > 48:
        tail = line.rsplit(": ", 1)[-1].strip(" .\"'")
        if 12 <= len(tail) <= 60 and _REASON.search(tail):
            return tail
    return line


def _program_words(text: str) -> list[str]:
    """The words of the first real command: past ``cd dir &&``, up to the next ``&&``, ``;`` or ``|``."""
    command = re.sub(r"^(?:cd \S+\s*(?:&&|;)\s*)+", "", _command(text))
    command = re.split(r"\s(?:&&|\|\|?|;)\s", command)[0]
    return [w for w in command.split() if "=" not in w or w.startswith("-")]


_RUNNER_WORDS = frozenset({"run", "exec", "x"})  # "npm test" = "npm run test", "pnpm x" = "pnpm exec"


def _rerun_change(failed: Step, fix: Step) -> str:
    """How a fix reran the failed command: "with escalated permissions", "with --flag", or ""."""
    was, now = _program_words(failed.input), _program_words(fix.input)
    plain = [w for w in was if not w.startswith("-")]
    extra = [w for i, w in enumerate(now)  # words new to the fix, other than options and their values
             if not w.startswith("-") and w not in plain and not (i and now[i - 1].startswith("-"))]
    if failed.tool != fix.tool or not was or not now or was[0] != now[0] or not set(plain) <= set(now):
        return ""  # not the same command run again (its words must all still be there)
    if any(w not in _RUNNER_WORDS for w in extra):
        return ""  # a new subcommand or argument: another command, not the same one rerun
    if fix.escalated and not failed.escalated:
        return "with escalated permissions"
    before = set(_OPTION.findall(" ".join(_program_words(failed.input))))
    after = _OPTION.findall(" ".join(_program_words(fix.input)))
    added = [o for o in dict.fromkeys(after) if o not in before and o != "--"]
    return ("with " + " ".join(added[:3])) if added else ""


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
                summary=phrasing.fit(f"{name} is not installed or not on PATH on this machine (no {name} binary)"
                                     + (use or "; check before calling it")),
                content=f"Running `{_command(first.input)[:150]}` failed: {line}."
                + (f" What worked next: {_command(fix.input)[:200]}" if fix is not None else ""),
                why=f"No '{name}' binary was found on this machine ({repeated}x).",
                how_to_apply=f"Do not call {name} on this machine" + (f"; use {alt}." if use else "; check the PATH first."),
                signals=signals, scope="global", weight=1.5,
            ))
            continue
        if repeated >= 3 or (repeated >= 2 and fix is not None):
            fix_text = f"; fixed by: {fix.tool} {fix.input}" if fix else "; no fix found in the session"
            summary = _error_summary(first, fix, err["line"])
            out.append(Candidate(
                kind="pattern",
                summary=summary,
                content=(f"{first.tool} failed {repeated} times with: {line}{fix_text}.\n"
                         f"Failing call: {first.tool} {first.input[:200]}"),
                why=f"Hit the same error {repeated} times" + (" (also in earlier sessions)" if prior_clusters.get(key) else "")
                + (f"; the call that worked afterwards was {fix.tool} {fix.input[:150]}" if fix else "")
                + ("; the user confirmed the fix" if confirmed else "") + ".",
                how_to_apply=(f"Whenever {_call_name(first)} comes up in this project, "
                              + (f"do what worked from the start: {_command(fix.input)[:150]}." if fix
                                 else "expect this error; the session did not resolve it.")),
                signals=signals, scope="project", weight=2.0 + (1 if fix else 0),
            ))
            continue
        edited = _edit_then_rerun(steps, indexes[0], first)
        if repeated == 1 and not module and edited is not None and phrasing.error_name(line):
            name = phrasing.command_name(first.input, first.tool)
            out.append(Candidate(
                kind="observation",
                summary=phrasing.fails_summary(name, line, f"editing {edited}"),
                content=(f"`{_command(first.input)[:150]}` failed: {line}.\n"
                         f"After an edit of {edited} the same command passed."),
                why="A single named error that an edit of one file fixed, proven by the same command passing after it.",
                how_to_apply=f"When {name} fails like this again, look at {edited} first.",
                signals=signals, scope="project", weight=1.4,
            ))
            continue
        if fix is None or repeated >= 2:
            continue
        variant = _rerun_change(first, fix)
        if variant and not module:
            words = _program_words(first.input)
            prog = " ".join([words[0].rsplit("/", 1)[-1], *words[1:2]])[:28]
            reason = _reason_line(first)
            same = _command(fix.input) == _command(first.input)
            out.append(Candidate(
                kind="observation",
                summary=phrasing.needs_summary(phrasing.command_name(first.input, first.tool),
                                               variant.removeprefix("with "), _short_reason(reason)),
                content=(f"Rerunning it {variant} worked" + ("" if same else f": `{_command(fix.input)[:160]}`")
                         + f".\nThe failure: `{_command(first.input)[:120]}` -> {reason[:240]}"),
                why="A single failure that the same command, run differently, got past in this session.",
                how_to_apply=f"Run {prog} {variant} from the start here.",
                signals=signals, scope="project", weight=1.6,
            ))
            continue
        if module:
            name = next(g for g in module.groups() if g)
            out.append(Candidate(
                kind="observation",
                summary=phrasing.fit(f"{name} is not installed in this project: importing it fails"
                                     + (f" ({phrasing.error_name(line)})" if phrasing.error_name(line) else "")),
                content=f"{first.tool} {first.input[:150]} failed: {line}. Fixed by: {fix.tool} {fix.input[:200]}",
                why=f"The module {name} is not installed here; the session worked around it.",
                how_to_apply=f"Install {name} before importing it, or do without it as the session did.",
                signals=signals, scope="project", weight=1.5,
            ))
            continue
    return out


_EDIT_TOOLS = frozenset({"edit", "multiedit", "write", "apply_patch", "str_replace_based_edit_tool", "replace"})


def _edit_then_rerun(steps: list[Step], index: int, failed: Step) -> str | None:
    """The one file edited between a failed shell command and the same command passing, else None."""
    if not _is_shell(failed):
        return None
    want = phrasing.shell_words(failed.input)[:2]
    edits: list[str] = []
    for step in steps[index + 1 : index + 25]:
        if step.kind == "prompt":
            return None  # the user stepped in: what fixed it is no longer the agent's edit alone
        if step.kind != "action":
            continue
        if step.tool.lower() in _EDIT_TOOLS and step.ok:
            target = re.findall(r"[\w.-]+\.\w{1,5}\b", step.input[:300])
            edits.extend(target[:1])
        elif _is_shell(step) and phrasing.shell_words(step.input)[:2] == want:
            if not step.ok:
                return None
            files = list(dict.fromkeys(edits))
            return files[0] if len(files) == 1 else None
    return None


def _error_summary(failed: Step, fix: Step | None, line: str) -> str:
    """ "pytest needs PYTHONPATH=src here: ModuleNotFoundError otherwise", else "<cmd> fails with ...; <fix> fixes it"."""
    name = phrasing.command_name(failed.input, failed.tool) if _is_shell(failed) else failed.tool
    if fix is None:
        return phrasing.fails_summary(name, line)
    env = phrasing.env_needed(failed.input, fix.input)
    change = " ".join(env) or _rerun_change(failed, fix).removeprefix("with ")
    if change:
        return phrasing.needs_summary(name, change, line)
    if _is_shell(fix):
        fixed_by = " ".join(phrasing.shell_words(fix.input))
        fixed_by = fixed_by if len(fixed_by) <= 40 else phrasing.command_name(fix.input, fix.tool)
        fixed_by = f"`{fixed_by}`"
    else:
        target = re.findall(r"[\w.-]+", fix.input.rsplit("/", 1)[-1])
        fixed_by = f"{fix.tool} {target[0]}" if target and fix.tool != failed.tool else f"another {fix.tool} call"
    return phrasing.fails_summary(name, line, fixed_by)


def _call_name(step: Step) -> str:
    return phrasing.command_name(step.input, step.tool) if _is_shell(step) else f"a {step.tool} call"


def _is_shell(step: Step) -> bool:
    return step.tool.lower() in ("bash", "shell", "exec_command", "local_shell", "run_shell_command", "powershell",
                                 "terminal", "cmd") or step.tool.lower().endswith("shell")


def _piped_program(text: str) -> str:
    """The program that reads the pipe (``yes | npx tool --x`` -> ``npx tool``), versions dropped."""
    tail = re.split(r"\s\|\s", re.sub(r"^(?:cd \S+\s*(?:&&|;)\s*)+", "", _command(text)))[-1]
    words = [re.sub(r"(?<=\w)@[\w.^~-]+$", "", w) for w in tail.split()[:2]]
    return " ".join(w for w in words if not w.startswith("-"))


def interactive_candidates(steps: list[Step]) -> list[Candidate]:
    """A command that stops at a wizard's question ("? Would you like ...? ›") in the agent's shell.

    Nobody answers it there, so the agent retries with piped answers or flags. Seen twice or more
    for one program, the last attempt is what the session settled on.
    """
    groups: dict[str, list[Step]] = {}
    for step in steps:
        if step.kind == "action" and step.asked and _piped_program(step.input):
            groups.setdefault(_piped_program(step.input), []).append(step)
    out = []
    for prog, calls in groups.items():
        if len(calls) < 2:
            continue
        last = _command(calls[-1].input)
        questions = list(dict.fromkeys(c.asked for c in calls))
        out.append(Candidate(
            kind="pattern",
            summary=phrasing.fit(f"{prog} stops at interactive prompts ({len(calls)}x); pass every answer as a flag up front"),
            content=(f"In the agent's shell nobody answers {prog}'s questions: "
                     + "; ".join(f"'{q[:80]}'" for q in questions[:3])
                     + f".\nWhat the session ended with: `{last[:200]}`"),
            why=f"{prog} waited for input {len(calls)} times in one session.",
            how_to_apply=f"Pass {prog} every answer as a flag (or pipe them in) so it never stops to ask.",
            signals=["error"], scope="global", weight=2.0,
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
    r"|\binstead\b"
    r"|^(?:(?:no|nope|ok|okay|so|and|also|please|but|and please)[,.!]*\s+)*(?:don'?t|dont|do not|never)\s+(?!know\b|worry\b|mind\b)\w+",
    re.I,
)
_NOT_A_RULE = re.compile(r"^(?:why|what|how|when|where|who|which|is|are|does|do|did|can|could|would|will)\b", re.I)
_STOP = frozenset(
    "the a an and or to of in on for with it this that is are be i you we me my our your can do don't not no "
    "please just then so if at as by from all also now there here what how why when which its it's was were "
    "make sure add update".split()
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

    def add(kind: str, sentence: str, signal: str, why: str, how: str, weight: float = 1.0,
            content: str = "") -> None:
        clean = _clean(sentence)
        if len(clean) < 12 or clean.lower() in seen or not _informative(clean):
            return
        seen.add(clean.lower())
        phrase = phrasing.preference if kind == "preference" else phrasing.imperative
        summary = phrasing.location(clean) or phrase(clean) or clean
        out.append(Candidate(
            kind=kind, summary=summary, content=content or f"The user said: \"{clean}\"", why=why, how_to_apply=how,
            signals=[signal], scope=_scope_of(clean) if kind == "preference" else "project", weight=weight,
        ))

    for step in steps:
        if step.kind == "rejection" and step.text:
            add("decision", step.text, "correction",
                f"The user rejected the agent's {step.tool} call and said what to do instead.",
                "Follow the user's choice when the same step comes up again.", weight=2.5,
                content=f"The user said: \"{_clean(step.text)}\" (rejecting {step.tool} {step.input[:80]})")
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
        for sentence in _sentences(step.text):  # where the user wants a plan or docs kept: its own rule
            if (_DOC_FILE.search(sentence) and _RECORD_VERB.search(sentence) and not _NOT_A_RULE.match(sentence)
                    and not sentence.endswith("?") and 12 <= len(sentence) <= 400):
                add("decision", sentence, "rule",
                    "The user chose the file where this is written down (a plan, a map, notes).",
                    "Keep that file up to date, and read it first when picking the work up again.", 1.5)
                break
        for sentence in _sentences(step.text):
            if _NOT_A_RULE.match(sentence) or sentence.endswith("?") or not 12 <= len(sentence) <= 240:
                continue
            place = location_statement(sentence)
            if place:
                add("observation", place, "correction",
                    "The user said where this lives; the agent did not know.",
                    "Look there first instead of searching.", 1.9)
                break
            if _PREFERENCE.search(sentence):
                add("preference", sentence, "preference", "The user said what they want in general.",
                    "Apply it in later sessions of this project.", 1.7)
                break
            if _DECISION.search(sentence):
                add("decision", sentence, "rule", "An explicit choice the user made in this session.",
                    "Keep to this choice in later work on the project.", 1.6)
                break
    return out + mapping_candidates(steps) + repeated_requests(steps)


_PATH = r"(?:~?[\w.-]*/)+[\w.-]+|[\w-]+\.(?:conf|json|ya?ml|toml|ini|md|env|cfg|lock|txt)\b"
_LOCATION = re.compile(
    r"\b(?:there(?:'s| is| are) (?:an? |the |my )?[\w -]{0,40}?(?:at|in|under)"
    r"|(?:is|are|lives?|located|kept|stored|sits?) (?:at|in|under|inside)"
    r"|(?:file|folder|directory|dir|config) (?:is )?(?:at|in|under))\s+(?:the )?(?P<path>" + _PATH + ")",
    re.I,
)


_DOC_FILE = re.compile(r"(?<![\w/])[\w./-]*[\w-]\.md\b", re.I)
_RECORD_VERB = re.compile(
    r"\b(?:create|add|write|keep|put|update)\b[^.!?]{0,60}?\b(?:plan|code ?map|notes?|docs?|documentation|log|checklist)\b"
    r"|\b(?:plan|code ?map|notes|checklist)\s+(?:in|to|into)\s+\S+\.md\b",
    re.I,
)
_TROUBLE = re.compile(r"\b(?:error|bug|issue|problem|typo|crash|fail\w*|wrong|broken|exception)s?\b", re.I)


def location_statement(sentence: str) -> str:
    """'there is a settings file at conf/app.toml' -> that clause; where the user says a thing lives."""
    match = _LOCATION.search(sentence)
    if not match or match.group("path").startswith(("http", "www.")) or "://" in sentence:
        return ""
    if _TROUBLE.search(sentence[max(0, match.start() - 40) : match.start()]):
        return ""  # "the bug is in x.py" points at a one-off problem, not at where something lives
    start = sentence.rfind(" ", 0, max(0, match.start() - 30)) + 1 if match.start() > 30 else 0
    return sentence[start : match.end()].strip()


_MAPPING_LINE = re.compile(r"^\s*[-*]?\s*([\w./@, -]{1,100}?)\s*(?:->|→|=>)\s*([\w./@-]{1,80})\s*(?:\(.*\))?\s*$")


def mapping_candidates(steps: list[Step]) -> list[Candidate]:
    """Three or more "a -> b" lines typed by the user: where things go (a layout, a renaming)."""
    out = []
    for step in steps:
        if step.kind != "prompt" or "```" in step.text:
            continue
        pairs = [m.groups() for m in map(_MAPPING_LINE.match, step.text.splitlines()) if m]
        pairs = [(a.strip(), b.strip()) for a, b in pairs if "/" in a + b or "." in a + b]
        if len(pairs) < 3:
            continue
        arrows = [f"{a} -> {b}" for a, b in pairs]
        out.append(Candidate(
            kind="decision",
            summary=phrasing.listing("The user's layout for files", arrows),
            content="The user laid out where each part goes:\n" + "\n".join(f"- {arrow}" for arrow in arrows[:20]),
            why="The user spelled out the mapping line by line: a decision, not a suggestion.",
            how_to_apply="Put new and moved files where this layout says.",
            signals=["rule"], scope="project", weight=2.4,
        ))
    return out


TOPIC_SHARE = 0.2  # a word in this share of the prompts is what the session is about
MIN_PHRASE_SHARE = 0.3  # a habit's words come together in at least this share of the prompts using either


def repeated_requests(steps: list[Step], min_prompts: int = 3, max_items: int = 2) -> list[Candidate]:
    """A request the user makes in three prompts or more is a preference, however they phrase it.

    Counted as pairs of words that occur close together (within five words) in one sentence of
    at least three different prompts; the shortest such sentence becomes the memory. A pair with
    a word the user writes in many other prompts too (the session's topic, "theme" in a theming
    session) is the subject of the work, not a habit: a habit is a phrase that comes back whole.
    """
    counts: Counter = Counter()
    spread: Counter = Counter()  # word -> prompts it occurs in
    where: dict[tuple[str, str], list[str]] = {}
    for step in steps:
        if step.kind != "prompt" or len(step.text) > 2000:
            continue
        pairs: set[tuple[str, str]] = set()
        spread.update(set(re.findall(r"[a-z][a-z'-]+", step.text.lower())))
        for sentence in _sentences(step.text):
            if sentence.rstrip().endswith("?"):
                continue  # a question asks about something; it does not ask for a way of working
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
    prompts = sum(1 for step in steps if step.kind == "prompt" and len(step.text) <= 2000)
    topics = {w for w, k in spread.items() if k >= max(5, TOPIC_SHARE * prompts) and w not in _STOP}
    out: list[Candidate] = []
    used: set[str] = set()
    for pair, n in counts.most_common(4):  # only the strongest: weaker pairs are mostly chance
        if n < min_prompts or len(out) >= max_items:
            break
        if n < MIN_PHRASE_SHARE * max(spread[pair[0]], spread[pair[1]]):
            continue  # one of its words is all over the session: a topic, not a repeated request
        sentence = min(where[pair], key=len)
        clean = _clean(sentence)
        tokens = [t.strip(",.;:!").lower() for t in clean.split()]
        if any(t in topics or _NOISE_TOKEN.match(t) for t in tokens):
            continue  # a task on the session's subject, or exact values: not a way of working
        if clean.lower() in used or len(clean.split()) < 3 or not _informative(clean):
            continue
        used.add(clean.lower())
        out.append(Candidate(
            kind="preference",
            summary=phrasing.imperative(clean),
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
    from automem.extract.diagnosis import diagnosis_candidates

    found = (error_candidates(steps, prior_clusters) + interactive_candidates(steps) + feedback_candidates(steps)
             + diagnosis_candidates(steps))
    found.sort(key=lambda c: -c.weight)
    return found[:MAX_CANDIDATES]


def error_clusters(steps: list[Step]) -> Counter:
    """cluster|tool -> count, kept per project so a pattern can span sessions."""
    counts: Counter = Counter()
    for step in steps:
        if step.kind == "action" and not step.ok and not _is_slip(step):
            counts[_cluster_of(step)] += 1
    return counts

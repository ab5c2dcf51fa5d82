"""One neutral list of steps per session, whether it came from the spool or from a transcript.

The candidate rules (candidates.py) read only these steps, so they work the same on a live
session (hook spool lines) and on a past transcript read alone. A step is a user prompt with the
feedback found in it, a tool action with the errors found in its output, a rejected tool call
with the user's reason, or an interrupt.
"""

from __future__ import annotations

import re
from collections import Counter

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.harness.model import Turn
from automem.record import field, record

_USER_INPUT_BLOCK = rx.compile(r"##\s*User Input\s*\n+\s*```[a-z]*\n(.*?)```", re.S | re.I)
from automem.controls import ANSI as _ANSI  # noqa: E402

# A CLI wizard's question: "? Would you like X? › No / Yes", "Proceed? (y/N)", "Overwrite? [Y/n]".
_ASKED = rx.compile(
    r"^\s*[?✔]\s+([A-Z][^\n?=;{}]{5,120}\?)[^\n]{0,40}?›"
    r"|^\s*([A-Z][^\n?=;{}]{5,120}\?)\s*(?:\(y/n\)|\[y/n\]|\(yes/no\))",
    re.M | re.I,
)


@record
class Step:
    """One step of a session as the rules read it: a prompt, a tool action with its errors, a rejection."""

    kind: str  # prompt | action | rejection | interrupt
    text: str = ""  # prompt text, or rejection feedback
    tool: str = ""
    input: str = ""
    ok: bool = True
    errors: list[dict] = field(default_factory=list)
    result_head: str = ""
    feedback: list[dict] = field(default_factory=list)  # prompt: [{feedback, text, phrase}]
    after_interrupt: bool = False  # prompt typed right after the user stopped the agent
    turn: int = 0
    escalated: bool = False  # action: run with raised sandbox permissions (Codex asks the user first)
    asked: str = ""  # action: the interactive question its output stopped at (a CLI wizard waiting for input)
    said_after: str = ""  # what the agent wrote after this prompt or call and before its next call (its reading of it)
    answer: str = ""  # prompt: the agent's last word on the turn (what it says it did, or found)
    queued: bool = False  # prompt: typed while the agent was still working
    raw: str = ""  # action: the command as the tool received it, line breaks kept (``input`` is one line)
    offered: list[str] = field(default_factory=list)  # prompt: the options the agent's previous answer offered
    added: str = ""  # action: the text an edit or write put in (new lines of a patch), capped
    answers: list[tuple[str, str, str, list[str]]] = field(default_factory=list)  # action: see answered_questions
    named_flags: list[str] = field(default_factory=list)  # failed action: options its output told to pass


_NAMED_FLAG = rx.compile(r"(?<![\w/.-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?![\w-])")


def named_flags(output: str) -> list[str]:
    """The long options a failed call's output names ("retry with --force or --legacy-peer-deps", "by passing
    --break-system-packages"): a fix that adds one of them was read off the error."""
    return sorted(set(_NAMED_FLAG.findall((output or "")[:20000])))[:40]


def user_words(prompt: str) -> str:
    """What the user typed, without command templates and injected context around it; "" for a hook's message that
    the harness recorded in the user's place."""
    block = _USER_INPUT_BLOCK.search(prompt or "")
    if block:
        return block.group(1).strip()
    from automem.capture.feedback import INJECTED, is_hook_message

    words = INJECTED.sub(" ", prompt or "").strip()
    return "" if is_hook_message(words) else words


def _escalated(raw) -> bool:
    """Codex marks a command it reran outside the sandbox (after the user approved it)."""
    if not isinstance(raw, dict):
        return False
    return (
        raw.get("with_escalated_permissions") in (True, "true") or raw.get("sandbox_permissions") == "require_escalated"
    )


def _raw_command(raw) -> str:
    """A shell call's command with its line breaks (they separate commands, as ``;`` does)."""
    if isinstance(raw, dict):
        for key in ("command", "cmd"):
            value = raw.get(key)
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                value = " ".join(value)
            if isinstance(value, str) and value.strip():
                return value[:4000]
    return ""


ADDED_MAX = 2000
_PATCH_FILE = rx.compile(r"^\*\*\* (?:Add|Update) File: (.+)$")


def added_text(raw) -> str:
    """What an edit or write put in: ``new_string``/``content`` of a call, or the ``+`` lines of a patch, each
    patch's lines under a "*** File: path" line so a rule can tell which file they went to."""
    if isinstance(raw, dict):
        for key in ("input", "patch"):
            if isinstance(raw.get(key), str) and "*** Begin Patch" in raw[key]:
                return added_text(raw[key])
        listed = raw.get("edits")
        edits: list = listed if isinstance(listed, list) else [raw]
        parts: list[str] = []
        for edit in (e for e in edits if isinstance(e, dict)):
            new = next((edit[k] for k in ("new_string", "content", "new_str") if isinstance(edit.get(k), str)), "")
            old = next((edit[k] for k in ("old_string", "old_str") if isinstance(edit.get(k), str)), "")
            kept = set(old.splitlines())
            parts.append("\n".join(line for line in new.splitlines() if line not in kept))
        return "\n".join(p for p in parts if p)[:ADDED_MAX]
    if not isinstance(raw, str) or "*** Begin Patch" not in raw:
        return ""
    lines: list[str] = []
    removed = {line[1:].strip().rstrip(",") for line in raw.splitlines() if line.startswith("-")}
    for line in raw.splitlines():
        named = _PATCH_FILE.match(line)
        if named:
            lines.append(f"*** File: {named.group(1).strip()}")
        elif line.startswith("+") and line[1:].strip().rstrip(",") not in removed:  # a comma added is no new line
            lines.append(line[1:])
    return "\n".join(lines)[:ADDED_MAX]


def _asked(text: str) -> str:
    """The interactive question a command's output shows, if it stopped to ask one."""
    head = text[:3000]
    if "?" not in head:
        return ""
    match = _ASKED.search(_ANSI.sub("", head))
    return " ".join((match.group(1) or match.group(2)).split()) if match else ""


_OPTION_LINE = rx.compile(
    r"^\s*(?:\*\*)?(?:(\d{1,2})[.)]|[-*]\s*\*\*(\d{1,2})[.)]?\*\*|<option>"
    r"|(?:[-*]\s+)?(?:\*\*)?([A-I])[.)](?:\*\*)?(?=\s))\s*(.+?)(?:</option>)?\s*$",
    re.M,
)


def _numbered_lists(text: str) -> list[tuple[int, int, list[str]]]:
    """(first line, last line, items) of each numbered list: numbering that starts again, or prose at the list's own
    indent, starts a new one; deeper lines (an option's pros and cons) belong to the item above."""
    lists: list[tuple[int, int, list[str]]] = []
    current: list[str] = []
    start = end = indent = 0
    for at, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        m = _OPTION_LINE.match(line)
        if m and (not current or depth <= indent):
            number = m.group(1) or m.group(2) or m.group(3)  # "B) ..." counts as the second option
            if current and number in ("1", "A"):
                lists.append((start, end, current))
                current = []
            if not current:
                start, indent = at, depth
            current.append(" ".join(m.group(4).replace("**", "").split()))
            end = at
        elif current and depth <= indent:
            lists.append((start, end, current))
            current = []
    if current:
        lists.append((start, end, current))
    return lists


def offered_options(answer: str) -> list[str]:
    """The numbered choices (or ``<option>`` items) an answer ends by offering the user, else []: the list right after
    its last question, or the one that holds or ends at it; none when the items are questions of their own."""
    tail = (answer or "")[-3000:]
    if "?" not in tail and "？" not in tail and "<option>" not in tail:
        return []
    lines = tail.splitlines()
    asked = max((at for at, line in enumerate(lines) if "?" in line or "？" in line), default=len(lines))
    lists = _numbered_lists(tail)
    after = [items for first, _last, items in lists if first > asked]
    before = [items for first, _last, items in lists if first <= asked]
    found = after[0] if after else (before[-1] if before else [])
    questions = sum(item.rstrip("*` ").endswith(("?", "？")) for item in found)
    if sum(bool(_OWN_ALTERNATIVES.search(item)) for item in found) * 2 >= max(1, len(found)) or (
        questions * 2 >= max(1, len(found)) and not any(_OR_NEXT.match(item) for item in found)
    ):
        return []  # numbered questions, not options: "1" answers a question, picks nothing
    return found[:9] if 2 <= len(found) <= 9 else []


# an option phrased as the other side of a question ("Or convert X into Y?")
_OR_NEXT = rx.compile(r"^(?:or|otherwise|还是|還是|或者|それとも|または|아니면)\b", re.I)
# a question that holds its own alternatives ("Convert to X, or keep Y?", "转换为 X 还是保持 Y？")
_OWN_ALTERNATIVES = rx.compile(r"\S\s+or\s+[^?？]*[?？]\s*$|.还是|.還是|.または|.それとも|.아니면", re.I)


_ANSWERED = rx.compile(r"^\s*(?:User has answered your questions|Your questions have been answered)\s*:", re.I)
_ANSWER_PAIR = rx.compile(r'"((?:[^"\\]|\\.){3,600}?)"="((?:[^"\\]|\\.){1,300}?)"')


def answered_questions(raw, result: str) -> list[tuple[str, str, str, list[str]]]:
    """(header, question, picked, not picked) for each question of a question tool (Claude Code's AskUserQuestion)
    the user answered; the header is the question's short label when the call gave one, "not picked" the other
    options when the call's input still holds them."""
    if not result or not _ANSWERED.match(result):
        return []
    asked: dict[str, tuple[str, list[str]]] = {}
    questions = raw.get("questions") if isinstance(raw, dict) else None
    for item in questions if isinstance(questions, list) else []:
        if isinstance(item, dict) and isinstance(item.get("question"), str):
            options = item.get("options")
            labels = [o.get("label", "") for o in options if isinstance(o, dict)] if isinstance(options, list) else []
            asked[item["question"].strip()] = (str(item.get("header") or ""), [str(x) for x in labels if x])
    pairs = _pairs_of_known_questions(result, list(asked)) or [
        (m.group(1).strip(), m.group(2).strip()) for m in _ANSWER_PAIR.finditer(result)
    ]
    out = []
    for question, picked in pairs:
        header, labels = asked.get(question, ("", []))
        out.append((header, question, picked, [label for label in labels if label not in picked]))
    return out


def _pairs_of_known_questions(result: str, questions: list[str]) -> list[tuple[str, str]]:
    """(question, answer) cut at the next asked question rather than at the next quote, so an answer that
    quotes something ("use "uv" not pip") is read whole; empty when the result does not hold every question."""
    if not questions:
        return []
    starts: list[tuple[int, str]] = []
    for question in questions:
        at = result.find(f'"{question}"="')
        if at == -1:
            return []
        starts.append((at, question))
    starts.sort()
    ends = [at for at, _ in starts[1:]] + [len(result)]
    pairs = []
    for (at, question), end in zip(starts, ends, strict=True):
        answer = result[at + len(question) + 4 : end].rstrip()
        answer = _ANSWER_TAIL.sub("", answer)
        pairs.append((question, answer.strip()))
    return pairs


# what follows the last answer's closing quote, or the comma before the next question
_ANSWER_TAIL = rx.compile(r'"\s*(?:,|\.\s*You can now continue\b.*|\.?)\s*$', re.S)


def steps_from_turns(turns: list[Turn]) -> list[Step]:
    from automem.capture.feedback import detect_feedback
    from automem.capture.signals import classify_result, strip_run_header

    steps: list[Step] = []
    stopped = False
    offered: list[str] = []
    for index, turn in enumerate(turns):
        words = user_words(turn.prompt)
        said: dict[int, list[str]] = {}
        for calls, remark in turn.remarks:
            said.setdefault(calls, []).append(remark)
        if words:
            steps.append(
                Step(
                    "prompt",
                    text=words,
                    feedback=detect_feedback(words),
                    after_interrupt=stopped,
                    turn=index,
                    said_after="\n".join(said.get(0, ()))[:4000],
                    answer=(turn.answer or "")[:4000],
                    offered=offered,
                )
            )
        for queued in (q for q in turn.queued if user_words(q)):
            steps.append(Step("prompt", text=queued, feedback=detect_feedback(queued), turn=index, queued=True))
        offered = offered_options(turn.answer or "")
        stopped = False
        rejections = list(turn.rejections)
        for number, action in enumerate(turn.actions, 1):
            text = action.result_text or ""
            failed = action.is_error or action.exit_code not in (None, 0)
            if failed and "doesn't want to proceed with this tool use" in text:
                feedback = rejections.pop(0) if rejections and "the user said" in text else ""
                steps.append(Step("rejection", text=feedback, tool=action.name, input=action.input_summary, turn=index))
                if not feedback:
                    stopped = True
                continue
            failed, errors = classify_result(
                _raw_command(action.input) or action.input_summary,
                text[:20000],
                is_error=action.is_error,
                exit_code=action.exit_code,
            )
            steps.append(
                Step(
                    "action",
                    tool=action.name,
                    input=action.input_summary,
                    ok=not failed,
                    errors=errors,
                    result_head=strip_run_header(text)[0][:300],
                    turn=index,
                    escalated=_escalated(action.input),
                    asked=_asked(text),
                    raw=_raw_command(action.input),
                    added=added_text(action.input) if not failed else "",
                    said_after="\n".join(said.get(number, ()))[:4000],
                    answers=answered_questions(action.input, text) if not failed else [],
                    named_flags=named_flags(text) if failed else [],
                )
            )
        if turn.interrupted:
            steps.append(Step("interrupt", turn=index))
            stopped = True
    return _without_startup_noise(steps)


# what an error line says (a first line "total 0" of every `ls -la` is output, not noise)
_COMPLAINT = rx.compile(
    r"\b(?:error|warning|denied|not permitted|not found|no such file|cannot|can't|unable|failed|invalid)\b", re.I
)


def _without_startup_noise(steps: list[Step]) -> list[Step]:
    """The steps without what the shell prints before every command ("shellenv.sh: line 18: /bin/ps: Operation not
    permitted" from a profile in a sandbox): a first output line that calls which succeeded print too says nothing
    of why one call failed, so it is neither its error line nor its error."""
    firsts = Counter(s.result_head.split("\n", 1)[0] for s in steps if s.kind == "action" and s.ok and s.result_head)
    noise = {line for line, count in firsts.items() if count >= 2 and _COMPLAINT.search(line)}
    if not noise:
        return steps
    for step in steps:
        if step.kind != "action":
            continue
        while step.result_head.split("\n", 1)[0] in noise and "\n" in step.result_head:
            step.result_head = step.result_head.split("\n", 1)[1]
        if not step.ok:
            step.errors = [e for e in step.errors if e.get("line", "") not in noise]
    return steps


def steps_from_spool(records: list[dict]) -> list[Step]:
    """Spool lines (already redacted by the hook) as steps; prompts exist only as their feedback."""
    steps: list[Step] = []
    stopped = False
    turn = 0
    last_action: Step | None = None
    for entry in records:
        kind = entry.get("kind")
        if kind == "feedback":
            turn += 1
            item = {k: entry.get(k, "") for k in ("feedback", "text", "phrase")}
            steps.append(Step("prompt", text=str(item["text"]), feedback=[item], after_interrupt=stopped, turn=turn))
            stopped = False
        elif kind == "result":
            last_action = Step(
                "action",
                tool=str(entry.get("tool", "")),
                input=str(entry.get("input", "")),
                ok=bool(entry.get("ok", True)),
                turn=turn,
            )
            steps.append(last_action)
        elif kind == "error" and last_action is not None and last_action.input == entry.get("input"):
            last_action.ok = False
            last_action.errors.append({k: str(entry.get(k, "")) for k in ("error_type", "line", "signature")})
            last_action.result_head = last_action.result_head or str(entry.get("line", ""))
        elif kind == "rejection":
            feedback = str(entry.get("feedback", ""))
            steps.append(
                Step(
                    "rejection",
                    text=feedback,
                    tool=str(entry.get("tool", "")),
                    input=str(entry.get("input", "")),
                    turn=turn,
                )
            )
            stopped = stopped or not feedback
        elif kind == "interrupt":
            steps.append(Step("interrupt", turn=turn))
            stopped = True
    return steps

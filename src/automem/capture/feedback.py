"""User feedback in prompts: corrections, confirmations, preferences, rules.

What the user says about the agent's work is the richest signal for what to
remember, so each hit keeps the whole sentence that carries it. Precision
first: pasted code and logs are skipped, questions are not rules, negated
praise is not praise, and a retraction ("never mind") cancels what came
before it in the same prompt.
"""

from __future__ import annotations

import re

from automem import regex_cache

MAX_ITEMS = 5
MAX_TEXT = 1000

_NEG = r"(?<!\bnot )(?<!n't )(?<!\bnever )(?<!\bno )(?<!\bnot really )"

# (kind, pattern); the first family that matches a sentence names it.
_RULES: tuple[tuple[str, re.Pattern], ...] = (
    (
        "correction",
        regex_cache.compile(
            r"^(?:no|nope|nah)\b[,.!]*\s+(?:don'?t|do not|stop|that'?s|it'?s|this is|not|you|"
            r"i said|i meant|use|we|please|the"
            r"|wrong|undo|revert|never|leave|keep|put|instead)\b"
            r"|\b(?:stop|quit) (?:doing|using|adding|writing|changing|making|creating|running|trying|removing|deleting"
            r"|putting|touching|editing|asking|guessing)\b"
            r"|\b(?:that|this|it)(?:'s| is| was) (?:(?:just |completely |totally |all )?(?:wrong|incorrect|broken)"
            r"|not (?:right|correct|what i (?:asked|wanted|meant|said)))\b"
            r"|\bnot what i (?:asked for|asked|wanted|meant|said)\b"
            r"|\b(?:revert|undo|roll ?back) (?:that|this|it|those|these|the (?:last |previous "
            r")?(?:change|changes|edit|edits|commit))\b"
            r"|\b(?:don'?t|do not|never)\b[^.!?]{1,120}\binstead\b"
            r"|\bdon'?t do (?:that|this) again\b|\bi (?:told you|said) (?:not to|to not|to|already)\b"
            r"|\byou (?:shouldn'?t|should not) have\b"
            r"|^no,\s+[^?]*\bshould\b|^no \w+(?: \w+)?!"
            r"|\b(?:that|this|it)(?:'s| is) not (?:it|the right|how|what)\b"
            r"|\b(?:this|that|it) (?:doesn'?t|does not) (?:look|seem) right\b"
            r"|\byou (?:\w+ )?(?:fucked|messed|screwed) (?:\S+ ){0,4}?up\b|\byou broke\b"
            r"|\bi (?:undid|reverted) your\b|\bare you (?:\w+ )?(?:stupid|dumb|kidding)\b",
            re.I,
        ),
    ),
    (
        "rule",
        regex_cache.compile(
            r"^(?:and |also |please |so )?(?:every ?time|each time|whenever|any ?time)\b(?=[^?]*$)"
            r"(?:\s+you\b|[^,]{1,120},\s*(?:please\s+)?(?:always\s+|also\s+|first\s+)?"
            r"(?:run|make sure|use|add|update|check|remember|ensure|do|don'?t|never|write|commit|create|keep|ask|test"
            r"|rebuild|restart|call|put|include|tell|bump|format|lint)\b)"
            r"|\b(?:remember|make sure) (?:to |that you )?(?:always|never)\b",
            re.I,
        ),
    ),
    (
        "preference",
        regex_cache.compile(
            _NEG + r"\bi (?:really |strongly |much |always |generally )?(?:would |'d |do )?(?:prefer|rather)\b"
            r"|\bi'd rather\b"
            r"|" + _NEG + r"\b(?:always|never) (?:use|run|write|add|put|call|prefer|commit|push|include|keep|make"
            r"|create|ask|format|import|name|pin|leave|touch|edit|delete|remove|modify|install)\b"
            r"|\b(?:from now on|going forward|in the future|moving forward)\b"
            r"|\buse \S+(?: \S+){0,3} instead of\b|\bprefer \S+(?: \S+){0,3} (?:over|to)\b"
            r"|^(?:please )?(?:use|run|call) [^,.;!?]{1,40},\s*(?:not|never|rather than)\s+\S",
            re.I,
        ),
    ),
    (
        "confirmation",
        regex_cache.compile(
            r"^(?:oh |ok(?:ay)?,? |yes,? |yeah,? )?(?:perfect|exactly|excellent|awesome|great|"
            r"sweet|nice|brilliant|beautiful"
            r"|lgtm|well done|good job|nice work|great work|thanks,? that works)\b(?!\s+(?:question|point)\b)"
            r"|\bkeep doing (?:that|this|it)\b"
            r"|"
            + _NEG
            + r"\b(?:that|this|it)(?:'s| is| was| would be| sounds| looks|'d be)(?: just| really| absolutely)?"
            r" (?:exactly )?(?:right|correct|perfect|great|exactly (?:it|right|what i (?:wanted|needed|meant))"
            r"|what i (?:wanted|needed|meant)|it)\b(?![-\w])"
            r"|" + _NEG + r"\bexactly what i (?:wanted|needed|meant|asked for)\b"
            r"|" + _NEG + r"\b(?:looks|sounds|works) (?:great|good|perfect|amazing|fine)\b"
            r"|"
            + _NEG
            + r"\b(?:it|this|that|everything)(?:'s| is| looks) (?:good|great|amazing)\b(?! (?:idea|question|point))"
            r"|" + _NEG + r"\b(?:it|this|that|everything) (?:works|worked|did it|fixed it)\b(?! for\b)",
            re.I,
        ),
    ),
)
_RETRACTION = regex_cache.compile(
    r"\b(?:never ?mind|nvm|just kidding|jk|scratch that|ignore (?:that|what i said|my last(?: message)?)"
    r"|forget (?:that|what i said|i said that))\b",
    re.I,
)
# "no" followed by a comma or stop is an interjection ("no, always use pnpm"), not a negation of what follows
_NEGATION_BEFORE = regex_cache.compile(
    r"\b(?:not|never|no(?!\s*[,.;:!])|isn'?t|wasn'?t|don'?t|doesn'?t|didn'?t|hardly)\W+(?:\w+\W+)?$", re.I
)
_QUESTION_START = regex_cache.compile(r"^(?:why|what|how|when|where|who|which|is|are|does|do|did)\b", re.I)
# blocks a harness or a template puts into a prompt: not the user's words; the files a harness pastes under
# <attached_contents> or as <file path="…"> are the files' text
INJECTED = regex_cache.compile(
    r"<(system-reminder|command-[\w-]+|local-command-[\w-]+|bash-[\w-]+|user-prompt-submit-hook|task-notification"
    r"|environment_context|user_instructions|INSTRUCTIONS|image|attachments?|attached_contents|file(?=\s+path=))"
    r"(?:\s[^>]*)?>.*?</\1>",
    re.S,
)
_FENCE = regex_cache.compile(r"^\s*(?:```|~~~)")
_CODE_OR_LOG = regex_cache.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d\b|\d\d:\d\d:\d\d|\[(?:[A-Z]+|\d[^\]]*)\]|(?:DEBUG|INFO|WARN|WARNING|ERROR|FATAL|TRACE)\b"
    r"|at \S+ \(|File \"|Traceback|def |class |import |from \S+ import |const |let |var |function |return |#include"
    r"|\$ |>>> |npm ERR!|<[/\w!?]|[{}\[\]]\s*$|[\w.]+\(.*\)\s*;?$)"
    r"|[;{]\s*$|^\s*(?:[\w.]+\s*(?:=|\+=|==|=>)\s*\S+)$"
)
_SENTENCE_END = regex_cache.compile(r"(?<=[.!?])\s+")


def prose_lines(prompt: str):
    """Lines a person wrote: no injected blocks, fenced blocks, quoted text, indented code or log lines."""
    in_fence = False
    for line in (INJECTED.sub(" ", prompt) if "<" in prompt else prompt).splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence or not line.strip():
            continue
        stripped = line.strip()
        if stripped.startswith(">"):
            continue  # quoting someone else
        if (line.startswith("    ") or line.startswith("\t")) and not re.match(r"[-*+]|\d+[.)]", stripped):
            continue  # indented code
        if _CODE_OR_LOG.search(line):
            continue
        yield stripped


def _sentences(prompt: str):
    for line in prose_lines(prompt):
        for sentence in _SENTENCE_END.split(line):
            sentence = sentence.strip()
            if sentence:
                yield sentence


def _negated(sentence: str, start: int) -> bool:
    return bool(_NEGATION_BEFORE.search(sentence[max(0, start - 40) : start]))


def _classify(sentence: str) -> tuple[str, str] | None:
    body = sentence.lstrip("-*+ ").strip()
    is_question = body.endswith("?")
    for kind, pattern in _RULES:
        match = pattern.search(body)
        if not match:
            continue
        if kind == "correction":
            if is_question and _QUESTION_START.match(body):
                continue  # "why did you revert that?" asks, it does not correct
            return kind, match.group(0)
        if is_question:
            continue  # "always returns None?" is a question, not a rule
        if kind in ("confirmation", "preference") and _negated(body, match.start()):
            continue  # "not perfect", "I don't always use ..."
        return kind, match.group(0)
    return None


# what a harness records in the user's place when a hook speaks: Claude Code's "Stop hook feedback:\n[cmd]: ...",
# "PostToolUse:Edit hook blocking error from command: ...", a prompt hook's verdict, a hook script's "[Hook] ..."
HOOK_MESSAGE = regex_cache.compile(
    r"^\s*(?:(?:Stop|SubagentStop|PreToolUse|PostToolUse|PostToolUseFailure|UserPromptSubmit|SessionStart|SessionEnd"
    r"|Notification|PreCompact|PermissionRequest)(?::\S*)?\s+hook\s+(?:feedback|blocking error|error"
    r"|additional context|stopped continuation)\b"
    r"|(?:prompt|agent) hook condition was not met\b"
    r"|\w+ operation blocked by (?:a )?hook\b"
    r"|\[[^\]\n]{0,200}(?<![a-z0-9])hooks?(?![a-z0-9])[^\]\n]{0,200}\](?::|\s))",
    re.I,
)


def is_hook_message(text: str) -> bool:
    """True when a "user" message is a hook's output the harness recorded as one: not the user's words."""
    return bool(HOOK_MESSAGE.match(text or ""))


def detect_feedback(prompt: str) -> list[dict]:
    """[{feedback, text, phrase}] for the sentences of a prompt that carry feedback (none in a hook's message)."""
    if not isinstance(prompt, str) or not prompt.strip() or is_hook_message(prompt):
        return []
    items: list[dict] = []
    for sentence in _sentences(prompt):
        retraction = _RETRACTION.search(sentence)
        if retraction:
            items.clear()  # "never mind" cancels what came before it
            sentence = sentence[retraction.end() :].lstrip(" ,.;:!-")
            if not sentence:
                continue
        found = _classify(sentence)
        if found:
            kind, phrase = found
            from automem.redact.fast import redact_fast

            # redact before the cut, for the same reason as everywhere: half a secret is unrecognisable
            items.append({"feedback": kind, "text": redact_fast(sentence)[:MAX_TEXT], "phrase": phrase.strip()})
    return items[:MAX_ITEMS]

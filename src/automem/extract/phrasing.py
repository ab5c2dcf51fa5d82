"""Summaries a reader understands out of context: the user's words and raw errors, rephrased.

A memory's summary is read later, in another session, with none of the conversation around it.
So "No, don't use npm for the frontend, use pnpm instead" becomes "Use pnpm, not npm, for the
frontend", "I prefer short commits" becomes "Prefer short commits", and an error that a changed
command got past becomes "pytest needs PYTHONPATH=src here: ModuleNotFoundError otherwise".
Deterministic and generic (no model, no word lists about any one project); the raw words stay in
the memory's content, so nothing is lost when a rule rewrites too little.

Long summaries are shortened by dropping clauses (parentheses, then trailing clauses), and only
cut at a word boundary, marked with "…", when no clause can go.
"""

from __future__ import annotations

import re

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.extract.directives import PRACTICE_VERBS, REMEMBER

LIMIT = 120

# Openers that carry tone, not content: "no,", "ok so", "please", "also", "alright". A "no" without a stop after it
# is the rule's own word ("no force pushes on main"), never an opener.
_OPENER = rx.compile(
    r"^(?:no(?=[,.!:;-])|nope|nah|ok(?:ay)?|alright|right|yes|yeah|yep|sure|well|so|and|but|also|then|hey|hmm+|oh|actually"
    r"|wait|great|good|nice|perfect|cool|thanks|thank you|btw|fyi|now|again|just|hm|i think|i guess|i believe"
    r"|i feel like|i suppose|it seems(?: like)?|looks like)\b[,.!:;-]*\s+",
    re.I,
)
_POLITE = rx.compile(
    r"^(?:please|pls|plz|kindly|(?:can|could|would|will) you(?: please)?|i(?: want| need| would like|'d like) you to"
    r"|i want to|you (?:should|must|need to|have to|gotta)|we (?:should|must|need to|have to)|let'?s"
    r"|make sure (?:that )?(?:you )?(?:to )?|remember to|be sure to)\b[,]?\s+"
    r"|^(?:" + REMEMBER + r")(?: this| that)?"
    r"(?: for (?:the )?(?:future|next time|later))?\s*(?:[,:;!]|\s-\s)\s*"
    r"|^(?:" + REMEMBER + r") that\s+"
    r"|^(?:note )?for (?:future reference|the future|next time)\s*[,:;-]\s*",
    re.I,
)
_INSTEAD = rx.compile(  # "don't use X (for Y), use Z instead"
    r"^(?:do not|don'?t|dont|never|stop)\s+(?:use|using|run|running|call|calling)\s+(?P<old>[^,;]+?)"
    r"(?P<ctx>\s+(?:for|in|with|on|inside|when)\s+[^,;]+?)?\s*[,;]\s*(?:and\s+|but\s+|just\s+|please\s+)*"
    r"(?:use|run|call)\s+(?P<new>[^,;]+?)\s+instead\b(?P<rest>.*)$",
    re.I,
)
_INSTEAD_OF = rx.compile(  # "use Z instead of X (for Y)"
    r"^(?P<verb>use|run|call|prefer)\s+(?P<new>[^,;]+?)\s+(?:instead of|rather than|over)\s+(?P<old>[^,;]+?)"
    r"(?P<rest>\s*(?:[,;].*)?)$",
    re.I,
)
_PREFER = (
    (rx.compile(r"^i(?:'d| would| do)?(?: really| strongly| much| generally)? prefer (?:you|the agent) to ", re.I), ""),
    (
        rx.compile(
            r"^i(?:'d| would| do)?(?: really| strongly| much| generally)?(?: would|'d| do)? "
            r"prefer (?:it if |that )?(?:you )?",
            re.I,
        ),
        "Prefer ",
    ),
    (rx.compile(r"^i(?: would|'d) rather you (?:didn'?t|did not) ", re.I), "Don't "),
    (
        rx.compile(r"^i(?: would|'d) rather you (?=\w+ed\b|wrote\b|made\b|ran\b|kept\b|left\b|took\b)", re.I),
        "Prefer that you ",
    ),
    (rx.compile(r"^i(?: would|'d) rather you (?!not\b)", re.I), ""),
    (rx.compile(r"^i(?: would|'d) rather (?:you )?", re.I), "Prefer to "),
    (rx.compile(r"^i(?: would|'d)? only want (?:you to )?", re.I), "Prefer only "),
    (rx.compile(r"^i (?:really )?(?:hate|dislike|don'?t like|do not like) (?:it )?when you ", re.I), "Don't "),
    (rx.compile(r"^i (?:really )?(?:like|love|want) (?:it )?when (?:you )?", re.I), "Prefer when you "),
    (rx.compile(r"^i (?:really )?(?:like|love) ", re.I), "Prefer "),
    (
        rx.compile(r"^i (?:really )?(?:hate|dislike|don'?t like|do not like) (?:it )?(?:when )?(?:you )?", re.I),
        "Avoid ",
    ),
    (rx.compile(r"^i (?:don'?t|do not) (?:need|want) you to ", re.I), "Don't "),
    (rx.compile(r"^i (?:don'?t|do not) need to ", re.I), "The user doesn't need to "),
    (rx.compile(r"^i (?:don'?t|do not) want to ", re.I), "The user doesn't want to "),
    (
        rx.compile(
            r"^i (?:really )?(?:want|need|would like|'d like) (?=(?:the|all|every|each|this|"
            r"that|these|those|our|my|it|them)\b)",
            re.I,
        ),
        "The user wants ",
    ),
    (rx.compile(r"^i always ", re.I), "Always "),
    (rx.compile(r"^i never (?:said|asked|told) (?:you )?to ", re.I), "Don't, unless asked: "),
    (rx.compile(r"^i never (?!said|told|asked|meant|wanted|did|do\b)", re.I), "Never "),
    (rx.compile(r"^(?:from now on|going forward|in the future|moving forward)\b[,:]?\s*", re.I), ""),
)
_MID_NEVER = rx.compile(r"\b(?:make sure|be sure) (?:that )?(?:you )?(?:do ?n[o']?t|never|to not|not to) ", re.I)
_ENDING = rx.compile(r"[\s,;:.!]+$")
_PAREN = rx.compile(r"\s*(?<![\w.])\([^()]*\)")  # an aside; "f(x)" glued to a name is a call, not an aside
_CODE_SPAN = rx.compile(r"`[^`\n]*`")
_HIDDEN_PARENS = str.maketrans("()", "\ue000\ue001")
_SHOWN_PARENS = str.maketrans("\ue000\ue001", "()")


def _without_asides(text: str) -> str:
    """``text`` without its parenthesised asides; a code span keeps its own ("`dirname(x)`" is code, not an aside)."""
    masked = _CODE_SPAN.sub(lambda m: m.group(0).translate(_HIDDEN_PARENS), text)
    return _PAREN.sub("", masked).translate(_SHOWN_PARENS)


_CLAUSE_SPLIT = rx.compile(
    r"(?<=\S)(?:\s*[;]\s+|,\s+|\s+-{1,2}\s+|:\s+|\s+(?:because|since|so that|so|which|but|and then)\s+)"
)


# a first word that is a name from code ("apply_patch", "npm", "camelCase", "x.ts"): capitalized it names nothing
_CODE_WORD = rx.compile(
    r"^(?:[\w-]*_[\w-]*|[a-z]+[A-Z]\w*|[\w-]+\.[\w.-]+|[\w-]*\d[\w-]*|\.?[\w.-]+/[\w./-]*)(?=[\s,;:]|$)"
)  # a path ("src/db.py") too


def capitalized(text: str) -> str:
    """The text with a capital first letter, as a summary starts; a leading name from code ("apply_patch", "x.ts",
    "camelCase") keeps its case, since capitalized it would name nothing."""
    if not text or _CODE_WORD.match(text):
        return text
    return text[:1].upper() + text[1:]


def _tidy(text: str) -> str:
    return _ENDING.sub("", " ".join(text.split()))


def strip_openers(sentence: str) -> str:
    """ "No, please use X" -> "use X": tone words and politeness off the front, repeatedly."""
    text = _tidy(re.sub(r"^[^()]{0,40}\)[,.;:]?\s+", "", sentence))  # a fragment closing an earlier parenthesis
    for _ in range(6):
        new = _POLITE.sub("", _OPENER.sub("", text))
        if new == text:
            break
        text = new
    return text


# a rule word typed in capitals for weight ("do NOT use", "NEVER commit"): the summary says it in the usual case;
# only before a lowercase word and never as a value ("set it to ALWAYS", "mode: ALL"), so a value or a code
# phrase keeps its capitals ("NOT NULL")
_SHOUTED = rx.compile(r"(?<!\bto )(?<!= )(?<!: )\b(?:NEVER|ALWAYS|DON'T|DO NOT|MUST|EVER|NOT|ONLY|ANY|ALL)\b(?= [a-z])")


# ".codex/sessions, don't use CODEX_HOME": a path or code name (not a word like "later"), then what not to use
# only when what not to use is one name (an env variable, a path, code) and nothing follows: "src/db.py, don't use raw
# SQL in there" says where a rule holds, not what to use instead
_BARE_CHOICE = rx.compile(
    r"^(?!(?:e\.g|i\.e|etc)\b)(?P<new>(?=[^\s,]{2,60},)[^\s,]*[./_@`][^\s,]*),\s+(?:never|don'?t|dont|do not)\s+use\s+"
    r"(?P<old>`[^`]+`|\$?[A-Z_][A-Z0-9_]+|\S*[/.]\S*)\W*$"
)


_BARE_NOT = rx.compile(
    r"^not\s+(?:to\s+)?(?!(?:only|just|all|a|an|the|sure|yet|now|quite|really|that|this)\b)(?=[a-z])", re.I
)


def imperative(sentence: str) -> str:
    """A correction or decision as an instruction: "no, don't use X for Y, use Z instead" -> "Use Z, not X, for Y"."""
    text = strip_openers(sentence)
    swap = _INSTEAD.match(text)
    if swap:
        ctx = (swap.group("ctx") or "").strip()
        rest = _tidy(swap.group("rest") or "").lstrip(",; ")
        out = f"Use {_tidy(swap.group('new'))}, not {_tidy(swap.group('old'))}" + (f", {ctx}" if ctx else "")
        return fit(capitalized(out) + (f"; {rest}" if rest else ""))
    swap = _INSTEAD_OF.match(text)
    if swap:
        rest = _tidy(swap.group("rest")).lstrip(",; ")
        out = f"{swap.group('verb').lower()} {_tidy(swap.group('new'))}, not {_tidy(swap.group('old'))}"
        return fit(capitalized(out) + (f"; {rest}" if rest else ""))
    text = _MID_NEVER.sub("never ", text)
    bare = _BARE_CHOICE.match(text)
    if bare:
        return fit(f"Use {bare['new']}, not {_tidy(bare['old'])}")
    text = _SHOUTED.sub(lambda m: m.group(0).lower(), text)
    text = re.sub(r"^dont\b", "Don't", text, flags=re.I)
    text = re.sub(r"^do not\b", "Don't", text, flags=re.I)
    # "remember to not touch X", "make sure not to touch X": the ask off the front leaves "not (to) touch X"
    text = _BARE_NOT.sub("Don't ", text)
    return fit(capitalized(text))


_FIRST_PERSON = (
    (rx.compile(r"\bI'm\b"), "they're"),
    (rx.compile(r"\bI've\b"), "they've"),
    (rx.compile(r"\bI\b"), "they"),
    (rx.compile(r"\bmy\b", re.I), "their"),
    (rx.compile(r"\bme\b"), "them"),
    (rx.compile(r"\bmyself\b", re.I), "themselves"),
)


def third_person(text: str) -> str:
    """The rest of a sentence the summary now tells about the user:
    "I can read it in my IDE" -> "they can ... their"."""
    for pattern, repl in _FIRST_PERSON:
        text = pattern.sub(repl, text)
    return text


def preference(sentence: str) -> str:
    """ "I prefer X" -> "Prefer X", "I always X" -> "Always X"; a rule already phrased as one stays."""
    text = strip_openers(sentence)
    for pattern, lead in _PREFER:
        match = pattern.match(text)
        if match and match.end() < len(text):
            rest = text[match.end() :]
            if not lead:
                return imperative(rest)
            if lead.startswith("The user"):
                rest = third_person(rest)  # "The user doesn't need to X, I can Y" -> "..., they can Y"
            return fit(lead + rest)
    return imperative(text)


# "we use pnpm in this repo": how the user's team works, said with a verb of working practice (not "we tried",
# "we need to", "we're on step 3": the state of one conversation)
_WE_DO = rx.compile(
    r"^we\s+(?P<adverb>(?:always|usually|normally|only|never)\s+)?(?P<negation>(?:don'?t|do not)\s+)?"
    r"(?P<verb>" + PRACTICE_VERBS + r")\b(?P<rest>\s+\S.*)$",
    re.I,
)
_OUR_PLACE = rx.compile(
    r"\s*\b(?:in|for|across|within|throughout) (?:this|the|our) "
    r"(?P<place>repo|repository|project|codebase|monorepo|app|workspace)\b|\s+here\b",
    re.I,
)


def team_practice(sentence: str) -> str:
    """ "we use pnpm in this repo" -> "This repo uses pnpm": the team's way of working as a fact of the project; ""
    when the sentence says no such thing."""
    match = _WE_DO.match(_tidy(sentence))
    if not match:
        return ""
    rest = match.group("rest")
    place = _OUR_PLACE.search(rest)
    subject = f"This {place.group('place').lower()}" if place and place.group("place") else "This project"
    if place:
        rest = rest[: place.start()] + rest[place.end() :]
    verb = match.group("verb").lower()
    said = f"doesn't {verb}" if match.group("negation") else _third_person_verb(verb)
    return fit(f"{subject} {(match.group('adverb') or '').lower()}{said}{rest}")


def _third_person_verb(verb: str) -> str:
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


_THERE_IS = rx.compile(
    r"\bthere(?:'s| is| are) (?:an? |the |my |our )?(?P<thing>[\w -]{1,40}?) "
    r"(?P<prep>at|in|under|inside) (?P<place>\S+)\s*$",
    re.I,
)


def listing(lead: str, items: list[str], limit: int = LIMIT) -> str:
    """ "lead: a; b; c" with as many whole items as fit, "; …" when some were left out."""
    out = lead
    for i, item in enumerate(items):
        sep = ": " if i == 0 else "; "
        more = "; …" if i + 1 < len(items) else ""
        if len(out) + len(sep) + len(item) + len(more) > limit:
            return out + ("; …" if i else "")
        out += sep + item
    return out


def location(sentence: str) -> str:
    """ "to add it, there is a keybindings file at x/y.conf" -> "The keybindings file is at x/y.conf"; else ""."""
    match = _THERE_IS.search(_tidy(sentence))
    if not match:
        return ""
    thing, prep, place = match.group("thing").strip(), match.group("prep").lower(), match.group("place")
    verb = "are" if match.group(0).lower().startswith("there are") else "is"
    return fit(f"The {thing} {verb} {prep} {place}")


# --- errors -------------------------------------------------------------------------------------

_ERROR_TYPE = rx.compile(
    r"\b([A-Z][A-Za-z]+(?:Error|Exception|Failure|Fault))\b|\b(E(?!RROR\b)[A-Z]{3,9})\b|\b(TS\d{4})\b"
)


def error_name(line: str) -> str:
    """The error's type when it names one ("ModuleNotFoundError", "ENOENT", "TS2307"), else ""."""
    match = _ERROR_TYPE.search(line or "")
    return next((g for g in match.groups() if g), "") if match else ""


def error_gist(line: str, limit: int = 60) -> str:
    """A short, whole-word statement of an error line, without "Error:" prefixes and noise."""
    text = " ".join((line or "").split())
    text = re.sub(r"^(?:E\s+|error|fatal|ERROR|Error)\s*[:\]]?\s*", "", text).strip(" '\"[]")
    text = re.sub(r"^[\w./\\-]+\(\d+,\d+\):\s*", "", text)  # "file.ts(6,33): error ..." -> "error ..."
    text = re.sub(r"^(?:error|Error)\s+", "", text)
    return fit(text, limit) if text else "an error"


def needs_summary(name: str, change: str, error_line: str) -> str:
    """ "<command> needs <change> here: <ErrorType> otherwise"."""
    head = f"{name} needs {change} here"
    room = LIMIT - len(head) - len(": … otherwise")
    cause = error_name(error_line) or (error_gist(error_line, room) if room >= 16 else "")
    return fit(f"{head}: {cause} otherwise") if cause else fit(head)


# --- length ---------------------------------------------------------------------------------------


def fit_whole(text: str, limit: int = LIMIT) -> str:
    """``text`` in at most ``limit`` characters with none of its clauses cut (its parentheses may go), else ""."""
    text = _tidy(text)
    if len(text) <= limit:
        return text
    bare = _tidy(_without_asides(text))
    return bare if bare and len(bare) <= limit else ""


def fit(text: str, limit: int = LIMIT) -> str:
    """At most ``limit`` characters: drop parentheses, then trailing clauses; cut at a word only as a last resort."""
    text = _tidy(text)
    if len(text) <= limit:
        return text
    bare = _tidy(_without_asides(text))
    if bare and len(bare) <= limit:
        return bare
    text = bare or text
    for clause in reversed(list(_CLAUSE_SPLIT.finditer(text))):
        head = _tidy(text[: clause.start()])
        if 24 <= len(head) <= limit:
            return head
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    return _tidy(cut).rstrip(",;:-(") + "…"

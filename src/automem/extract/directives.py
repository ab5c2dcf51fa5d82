"""Directives: what the user told the agent to do from now on, in any of the languages people type.

Only a sentence addressed to the agent as a standing rule counts: "use X, not Y", "X, not Y,
here", "never ...", "don't ...", "always ...", "from now on ...", "X must ...", "I prefer ...",
"I want X to be ...", and a short convention said bare ("Use 2 spaces for indentation", "Tests go in
tests/": cue "convention", a candidate only). Not a directive: a question, a task ("fix the login page"), text inside
code fences, quotes, pasted logs or tables, and narrative or role-play ("The knight draws his
sword", "You are Aria, a ..."). Long prompts are read line by line and only lines that look
written by the user to the agent count.

Other languages are covered by a small table of cue words for never / always / don't / must /
instead / from now on / prefer (Chinese, Japanese, Korean, Russian, Spanish, German, French,
Portuguese, Arabic; Italian, Polish, Turkish, Dutch, Ukrainian, Vietnamese and Indonesian in
more_languages), plus the common "talk to me in <language>".
"""

from __future__ import annotations

import re

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.extract import more_languages as more
from automem.record import record

MAX_SENTENCE = 240
LONG_PROMPT_LINES = 25  # a prompt longer than this is a pasted document: only short imperative lines count
MAX_PROMPT = 50_000  # longer pastes are read by their head and tail


@record
class Directive:
    """A sentence of the user's that states a standing rule or preference, and where it applies."""

    sentence: str
    kind: str  # decision | preference
    cue: str  # swap | never | always | dont | must | future | prefer | want | language | default | habit ...
    scope: str  # project | global
    language: str = "en"  # en, or the language whose cue words matched
    lead: str = ""  # a sentence of its own before it that made it a rule ("Going forward."), as typed


# --- English ----------------------------------------------------------------------------------

_OPENERS = (
    r"(?:(?:no|nope|ok(?:ay)?|so|and|also|but|please|pls|hey|oh|yes|yeah|alright|"
    r"right|actually|again|btw|fyi|remember|note)[,.!:]*\s+)*"
)
# "remember" and its usual slips, and asking outright for a memory: "save this to memory", "memorize this"
REMEMBER = (
    r"remember|remembe|remeber|remmeber|rember|rememeber|remmember|keep in mind|memori[sz]e"
    r"|commit (?:this |that |it )?to memory|(?:save|store|add|put|write|keep) (?:this |that |it )?(?:in|to|into) "
    r"(?:your |the )?memory"
)
# words that make what is asked a stopgap by the user's own account: "skip that test for now", "use sqlite for the
# time being" (not "for now on", a slip for "from now on")
TEMPORARY = (
    r"for now(?! on\b)|for the (?:time being|moment)|temporarily|as a stopgap|until we (?:fix|sort|figure)"
    r"|暂时|暫時|目前先|とりあえず|一旦|일단|пока что|на время|por ahora|de momento|pour l'instant|vorerst|fürs erste"
    r"|por enquanto"
)
_TEMPORARY = rx.compile(r"(?<!\w)(?:" + TEMPORARY + r"|" + more.THIS_STAGE + r")(?!\w)", re.I)


def temporary(text: str) -> bool:
    """Does the user call what they ask a stopgap ("for now", "for the time being", "暂时")?"""
    return bool(_TEMPORARY.search(text or ""))


# verbs of a team's way of working: "we use pnpm", "we never push to main" state how the project is run
PRACTICE_VERBS = (
    r"use|prefer|deploy|run|keep|follow|name|write|store|build|test|host|ship|release|target|support"
    r"|squash|rebase|merge|commit|push|pin|vendor|format|lint|avoid|publish|track|manage(?!\s+to\b)|require|develop"
)
# words after "always"/"never" that make no rule of it: "always the same problem", "never gonna give you up", "always
# fails on CI" (what happens, not what to do)
_NOT_A_VERB = (
    r"(?:the|a|an|so|such|same|like|been|was|were|is|are|has|had|gonna|going|mind|with|in|on|at|for|more|less|too"
    r"|very|this|that|it|my|your|our|their"
    r"|fails|crashes|breaks|errors|hangs|happens|returns|throws|shows|gives|gets|seems|looks|works|times out)\b"
)
# "going forward" as "from now on", not "before moving forward" (before going on with this work)
_FORWARD = (
    r"(?<!\bbefore )(?<!\bprior to )(?<!\bwithout )(?<!\bkeep )(?<!\bcontinue )(?:going|moving) forward"
    r"(?!\s+(?:with|on|to|from)\b)"  # "going forward with the migration": carrying on with this work
)

# "we don't test that path, which is why it crashed": what the team does not do, told as the cause of a problem
_NO_CONSEQUENCE = (
    r"(?![^.!?]*(?:\bwhich is why\b|\bthat'?s (?:the|why|a)\b|\band (?:it|that|this) (?:fails|breaks|crashes)\b"
    r"|\bbecause\b|\bbugs?\b|\bcrash\w*|\bfail\w*|\bbroken\b|\bproblems?\b))"
)
# "you don't need to use X, instead ...": X is let go, not asked for; the "use" that counts is one said outright
_NOT_NEEDED = r"(?<!n't need to )(?<!not need to )(?<!n't have to )(?<!not have to )(?<!no need to )(?<!needn't )"
_EN: tuple[tuple[str, str, re.Pattern], ...] = (
    (
        "habit",
        "preference",
        rx.compile(  # "As with all software projects, start with the README": a standing habit
            r"^" + _OPENERS + r"(?:as (?:with|in) (?:all|every|any|most) [^,.;!?]{2,40},|as (?:always|usual),)\s*"
            r"(?:let'?s\s+|please\s+)?(?:start|begin|use|run|keep|read|check|write|put|follow|commit|test|add|make"
            r"|open|ask|always|never|don'?t|do)\b",
            re.I,
        ),
    ),
    (
        "swap",
        "decision",
        rx.compile(
            r"\b(?:use|using|run|call|prefer|pick|choose|go with|switch to|stick (?:to|with)|keep)\s+[^,.;!?]{1,60}?"
            r"(?:,\s*|\s+)(?:not|no|instead of|rather than|over|and not|but not)\s+\S"
            r"|\b(?:instead of|rather than)\s+\S[^.!?]{0,80}?,?\s*(?:use|run|call|do|put|keep|write|go)\b"
            r"|^" + _OPENERS + r"(?!(?:no|nope|yes|yeah|ok|okay|so|and|but|well|wait|hmm|hey|oh)\b)"
            r"[\w./@`'-]+(?:\s+[\w./@`'-]+){0,3},\s+not\s+(?!(?:that|this|those|these|it|the one)\b)[\w./@`'-]+"
            r"|" + _NOT_NEEDED + r"\b(?:use|do|run|put)\b[^.!?]{1,80}\binstead\b",
            re.I,
        ),
    ),
    (
        "never",
        "decision",
        rx.compile(
            r"^" + _OPENERS + r"(?:let'?s\s+)?(?:never|don'?t ever|do not ever)\s+(?!" + _NOT_A_VERB + r")\w+"
            r"|\b(?:must|should|shall)\s+(?:never|not|NEVER|NOT)\s+\w+|\bmustn'?t\b|\bshouldn'?t\s+(?!have\b)\w+"
            r"|\b(?:make sure|be sure|ensure)\s+(?:that\s+)?(?:you\s+)?(?:do ?n[o']?t|never|to not|not to)\s+\w+"
            r"|^" + _OPENERS + r"i never (?:said|asked|told) (?:you )?to\s+\w+"
            r"|\b(?:wants?|asked|asks|told|tells|needs?|expects?)\s+(?:us|me|everyone|everybody)\s+to\s+never\s+"
            r"(?!" + _NOT_A_VERB + r")\w+"
            r"|\b(?:says?|said|insists?)\s*:\s*(?:please\s+)?(?:never|don'?t ever|do not ever)\s+"
            r"(?!" + _NOT_A_VERB + r")\w+"
            r"|^" + _OPENERS + r"we\s+(?:never|don'?t|do not)\s+(?:" + PRACTICE_VERBS + r")\b" + _NO_CONSEQUENCE,
            re.I,
        ),
    ),
    (
        "keep",
        "preference",
        rx.compile(  # "keep committing after each task", "keep using the LPLP commit style": a habit to carry on
            r"^" + _OPENERS + r"keep\s+(?:on\s+)?(?:automatically\s+|always\s+)?"
            r"(?:commit+ing|pushing|running|testing|linting|formatting|documenting|logging|updating|using|writing"
            r"|following|adding|asking)\b",
            re.I,
        ),
    ),
    (
        "dont",
        "decision",
        rx.compile(
            # "stop" with a habit ("stop adding X") or a when ("stop X before you rebuild"), not "stop the server"
            r"^" + _OPENERS + r"(?:don'?t|dont|do not"
            # ("stop running the tests, it's taking forever" halts what runs now)
            r"|stop(?=\s+\w+ing\b(?![^.!?]*\b(?:taking (?:forever|too long|so long|ages)|right now|for now|hanging"
            r"|stuck)\b)|\s+(?:it\s+)?with\b|[^.!?]*\b(?:before|whenever|every ?time|each time)\b))"
            r"\s+(?!know\b|worry\b|mind\b|think\b"
            r"|understand\b|see\b|get\b|care\b|forget\b|have\b|remember\b|hesitate\b|bother\b)\w+",
            re.I,
        ),
    ),
    (
        "always",
        "preference",
        rx.compile(
            r"^" + _OPENERS + r"(?:let'?s\s+)?always\s+(?!" + _NOT_A_VERB + r")\w+"
            r"|\b(?:you|we)\s+(?:should\s+)?always\s+"
            r"(?!(?:get|got|see|saw|hit|run into|ran into|end up|crash|fail)\b)"  # "we always get X": what happens
            # "you always forget X", "you always break Y": a complaint about the agent, not a way to work
            r"(?!(?:forget|forgot|break|broke|ignore|miss|skip|mess|screw|mix|confuse|overcomplicate|hallucinate"
            r"|guess|assume|do (?:this|that|it)|make (?:the same|a|this|that)|leave|lose|overwrite|undo)\b)\w+"
            # the rule said after such a complaint: "you always skip the type check; please always run tsc"
            r"|\byou\s+(?:always|keep)\s+\w+[^.!?;:,]*[;:,]\s*(?:(?:so|please|and|but)\s+)*always\s+"
            r"(?!" + _NOT_A_VERB + r")\w+"
            r"|\bi(?:\s+(?:really\s+)?(?:want|need|would like)|'d like)\s+you\s+to\s+always\s+"
            r"(?!" + _NOT_A_VERB + r")\w+"
            r"|\b(?:wants?|asked|asks|told|tells|needs?|expects?)\s+(?:us|me|everyone|everybody)\s+to\s+always\s+"
            r"(?!" + _NOT_A_VERB + r")\w+"  # a rule passed on: "the lead wants us to always ..."
            r"|\b(?:says?|said|insists?)\s*:\s*(?:please\s+)?always\s+(?!" + _NOT_A_VERB + r")\w+"
            r"|\b(?:every ?time|each time|whenever)\b[^.!?]{3,120}?,\s*(?:please\s+)?(?:always\s+|first\s+)?"
            r"(?:run|use|make|add|update|check|do|write|commit|create|keep|ask|test|rebuild|restart|include|tell|read)\b"
            r"|\b(?:after|before) (?:each|every) \w+(?: \w+)?,?\s+(?:please\s+)?(?:always\s+|first\s+)?"
            r"(?:run|commit|push|update|check|test|write|ask|tell|review|rebuild|restart|lint|format)\b"
            r"(?![^.!?]*\b(?:is|are|was|were|gets?|looks?|seems?|fail\w*|drops?|dropped|breaks?|broke|errors?|crash\w*"
            r"|hangs?|show up|shows up|goes|went|stops?)\b)",
            re.I,
        ),
    ),
    (
        "remember",
        "decision",
        rx.compile(  # "remember this: X", "keep in mind that X", "for future reference, X": said to be kept
            r"^" + _OPENERS + r"(?:please\s+)?(?:"
            r"(?:" + REMEMBER + r")(?:\s+(?:this|that))?(?:\s+for (?:the )?(?:future|next time|later))?"
            r"\s*(?:[,:;!]|\s-\s)"
            r"|(?:" + REMEMBER + r")\s+that\s+(?=\w+\s+\w+\s+\w)"
            r"|(?:note )?for (?:future reference|the future|next time)\s*[,:;-])\s*\w",
            re.I,
        ),
    ),
    (
        "future",
        "preference",
        rx.compile(
            r"\b(?:from now on|" + _FORWARD + r"|from here on)\b"
            r"|^" + _OPENERS + r"in (?:the )?future\b",
            re.I,
        ),
    ),
    ("default", "decision", rx.compile(r"\bby default\b", re.I)),
    ("avoid", "decision", rx.compile(r"^" + _OPENERS + r"(?:please\s+)?(?:try to\s+)?avoid\s+\w+", re.I)),
    (  # "use British spelling in all docs", "use conventional commits for every commit"
        "scope",
        "decision",
        rx.compile(
            r"^" + _OPENERS + r"(?:please\s+)?(?:use|write|keep|name|format|indent|put|place|store)\b[^.!?]{2,80}?"
            r"\b(?:in|for|on|across) (?:all|every|each|any) (?:(?:new|future|the|our|my|your)\s+)?(?:docs?|documents?"
            r"|documentation|files?|commits?|commit messages?|comments?|functions?|methods?|classes|tests?|prs?"
            r"|pull requests?|components?|modules?|messages?|projects?|repos?|repositories|code|scripts?|responses?"
            r"|answers?|replies|branches|migrations?|endpoints?|sessions?|changes?)\b",
            re.I,
        ),
    ),
    (
        "must",
        "decision",
        rx.compile(
            r"\b(?:must|(?<!not )(?<!n't )(?:has to|have to|needs? to be)|should (?:be|stay|live|go|use|have|only|"
            r"always|look|open|show|be))\b",
            re.I,
        ),
    ),
    (
        "sequence",
        "decision",
        rx.compile(
            r"^" + _OPENERS + r"(?:(?:update|change|make|set up|configure)\b[^.!?]{0,60}?\bto\s+)?(?:always\s+)?"
            r"(?:run|use|call|do|execute|source|load)\s+[^.!?]{1,50}?\s+(?:before|prior to)\s+"
            r"(?:running|committing|pushing|starting|testing|linting|deploying|any|each|every|you)\b",
            re.I,
        ),
    ),
    (
        "prefer",
        "preference",
        rx.compile(
            r"^" + _OPENERS + r"prefer\s+\w+"
            r"|(?<!\bnot )\bi(?:'d| would| really| strongly| much| generally)*\s+(?:prefer|rather)\b"
            r"|\bi\s+(?:really\s+)?(?:like|love|hate|dislike|don'?t like|do not like)\s+(?:it\s+)?(?:when\s+)?\w+"
            r"|\bi\s+(?:don'?t|do not)\s+(?:need|want)\s+(?:you\s+)?to\s+\w+"
            r"|\bi\s+(?:would\s+|'d\s+)?only\s+want\b",
            re.I,
        ),
    ),
    (
        "want",
        "preference",
        rx.compile(
            r"\bi\s+(?:want|need|would like|'d like)\s+(?!to\b|you to (?:fix|check|look|make|"
            r"add|create|build|run|help|do|tell|see|find)\b)"
            r"(?:the|all|every|each|this|that|these|those|our|my|it|them|\w+s)\b[^.!?]{0,80}?"
            r"\b(?:to be|to stay|to look|stored|kept|removed|hidden)\b",
            re.I,
        ),
    ),
)

# A convention said bare: "Use 2 spaces for indentation", "Keep commits small", "Tests go in tests/", "We use
# conventional commits". As ambiguous as a one-off request ("Use the other file"), so only a short sentence about
# style, format, layout or process counts, with no word pointing into the conversation, and it waits as a candidate.
_STYLE_WORDS = (
    r"indent(?:ation|s|ed)?|(?:\d+ )?spaces|tabs|(?:single|double|back) ?quotes|semicolons|line (?:length|width)s?"
    r"|trailing commas|camel ?case|snake[_ ]case|kebab[- ]case|pascal ?case|naming|(?:lower|upper) ?case|formatting"
    r"|code style|style guide|type hints|docstrings|f-strings|(?:british|american) spelling|conventional commits"
    r"|commit messages?|commits|squash(?:ed)? merges|rebase|prs|pull requests|branch names|changelog|semver"
    r"|imports (?:sorted|at the top)|sorted imports|absolute imports|relative imports"
)
_SMALL = r"(?:small|short|focused|atomic|sorted|flat|under \d+ \w+)"
_POINTING = (
    r"(?!.*\b(?:this|that|these|those|it|them|other|same|previous|old|new|first|second|last|here|there|instead"
    r"|again|now|today|yet|must|should|shall|always|never|not|no|don'?t|please do|then)\b)"
    r"(?!.*\band\s+(?:fix|make|add|remove|run|update|change|check|commit|push|create|delete|move|open|write|test)\b)"
)
_CONVENTION = rx.compile(
    r"^" + _OPENERS + r"(?=(?:\S+\s+){0,9}\S+\W*$)" + _POINTING + r"(?:"
    r"(?:please\s+)?(?:use|keep|prefer|follow|name|format|indent|prefix|wrap|sort|write|put)\b[^.!?]{0,50}?\b(?:"
    + _STYLE_WORDS
    + r")\b"
    r"|(?:please\s+)?keep\s+(?:all\s+|our\s+)?(?:commits|prs|pull requests|functions|methods|modules|files|lines"
    r"|imports|components)\s+" + _SMALL + r"\b"
    r"|we\s+(?:use|follow|prefer|write|name|format|indent|keep|squash|rebase|tag)\b[^.!?]{0,50}?\b(?:"
    + _STYLE_WORDS
    + r")\b"
    r"|(?:all\s+)?(?:[\w-]+\s+)?(?:tests|specs|fixtures|docs|scripts|helpers|utils|components|migrations|assets"
    r"|types|hooks|stories|examples|benchmarks|configs?)\s+(?:go|live|belong|stay)\s+(?:in|under|into|inside)\s+"
    r"(?:`?[\w.~-]*/[\w./-]*`?|the\s+[\w.-]+\s+(?:folder|directory|dir))"
    r")(?!\w)[^.!?]{0,60}[.!]?\s*$",
    re.I,
)

_QUESTION_START = rx.compile(
    r"^(?:why|what|how|when|where|who|which|whose|is|are|was|were|does|do(?!\s+not\b)|did|can|could|would|will"
    r"|should|shall|may"
    r"|have|has|am|isn'?t|aren'?t|doesn'?t|didn'?t|won'?t|wouldn'?t|couldn'?t)\b",
    re.I,
)
_NARRATIVE = rx.compile(
    r"^(?:you are|you're|act as|pretend|imagine|roleplay|role-play|your name is|as an? \w+,? you|once upon)\b"
    r"|^(?:(?:from now on|going forward|for the rest of (?:this|the) (?:session|chat|conversation)|now|ok(?:ay)?|so)"
    r"[,:]?\s+)+(?:you are|you're|you will be|act as|pretend|your name is|play)\s+(?:a|an|my|the|\w+,? the"
    r"|(?-i:[A-Z][a-z]+)\b(?=[,.!]|\s*$))"
    r"|\b(?:consider your name|your name (?:is|will be|as)|call yourself|you(?:'re| are| will be) called)\b"
    r"|\b(?:he|she|they)\s+(?:draws?|says?|said|walks?|looks?|turns?|smiles?|whispers?|nods?|runs?|stands?|grabs?)\b"
    r"|\b(?:the|a)\s+(?:knight|king|queen|dragon|wizard|hero|villain|princess|warrior|character|narrator)\b",
    re.I,
)
# besides the code and log lines the hook already skips: tables, docker build steps, compose log prefixes
_MORE_DATA = rx.compile(r"^\s*(?:\[[A-Z0-9:. -]+\]|[{}\[\]()]|\||#\d+ |[\w-]+\s*\|)")
# a sentence ends at a stop and a space, at a CJK stop, and at an ASCII "?" or "!" typed straight before CJK text
# ("…创建skills?我有一份…"); a "." there is more often a file name's ("README.md中")
# a sentence's end; also where a complaint runs on into the rule it repeats without a stop ("the source is still
# not corrected as I asked File paths in M code should be …"): the rule starts at the capital
_SENTENCE_END = rx.compile(
    r"(?<=[.!?。！？])\s+|(?<=[。！？；])|(?<=[!?])(?=[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af])"
    r"|(?:"
    + "|".join(f"(?<=\\bas {i} {w})" for i in "Ii" for w in ("asked", "said", "told you", "mentioned"))
    + r")[,:]?\s+(?=[A-Z][a-z])"
)


# --- other languages ---------------------------------------------------------------------------

# (language, cue kind, kind, pattern): cue words for the same few directives as above
_INTL: tuple[tuple[str, str, str, re.Pattern], ...] = (
    (  # "不要怕"/"不要担心" (don't worry about ...) reassures; it forbids nothing
        "zh",
        "never",
        "decision",
        rx.compile(
            r"(?:永远|绝对|千万)?(?:不要(?!怕|害怕|担心|擔心|紧张|緊張|着急|著急|慌|客气|客氣)|不许|不准|禁止|别再|不得)"
        ),
    ),
    ("zh", "always", "preference", rx.compile(r"(?:总是|始终|一律|每次都|务必)")),
    ("zh", "swap", "decision", rx.compile(r"(?:改用|而不是|代替|取代|不用\S{1,20}[，,]\s*用)")),
    ("zh", "change", "decision", rx.compile(r"(?:换成|改成|改为)")),  # "change this to ...": an edit, not a rule
    ("zh", "future", "preference", rx.compile(r"(?:从现在开始|从今以后|以后都|今后|以后)")),
    ("zh", "must", "decision", rx.compile(r"(?:必须|一定要|应该)")),
    ("ko", "must", "decision", rx.compile(r"(?:해야\s?한다|해야\s?합니다|해야\s?함)")),
    ("zh", "prefer", "preference", rx.compile(r"(?:我(?:更)?(?:喜欢|偏好|希望|想要)|我不喜欢|我讨厌)")),
    ("zh", "remember", "decision", rx.compile(r"^(?:请)?(?:记住|记得|請記住)[：:，,]\s*\S")),
    ("ja", "never", "decision", rx.compile(r"(?:絶対に|決して)|(?:しないで|使わないで|やめて)(?:ください)?|禁止")),
    ("ja", "always", "preference", rx.compile(r"(?:常に|いつも|必ず)")),
    ("ja", "swap", "decision", rx.compile(r"(?:の代わりに|ではなく|じゃなくて)")),
    (  # a request, not a forecast ("...が普及するでしょう") or what the code will do
        "ja",
        "future",
        "preference",
        rx.compile(
            r"(?:今後|これから(?:は)?|次回から)(?=.*(?:ください|して|しないで|すること|するように|しなさい|お願い))"
        ),
    ),
    ("ko", "never", "decision", rx.compile(r"(?:절대|하지\s?마|하지\s?말|쓰지\s?마|사용하지\s?마|금지)")),
    ("ko", "always", "preference", rx.compile(r"(?:항상|언제나|반드시|꼭)")),
    ("ko", "swap", "decision", rx.compile(r"(?:대신|말고)")),
    (  # a request, not a reflection ("...생각했습니다") or what the code does from now on
        "ko",
        "future",
        "preference",
        rx.compile(
            r"(?:앞으로|이제부터|다음부터)(?=.*(?:주세요|줘|해|하세요|해라|하라|하지\s?마|마|말아|할 것|하도록"
            r"|해요|써|봐|쓰세요|[어아]라)\W*$)"
        ),
    ),
    (
        "ru",
        "never",
        "decision",
        rx.compile(  # "не" and an imperative: не используй, не коммитьте, не пишите
            r"\b(?:никогда|нельзя|не\s+(?:используй|делай|надо|трогай|пиши|запускай|меняй)\w*"
            r"|не\s+(?!(?:переживай|обращай|торопись|спеши|жди|парься|бойся|чекай|поспішай|зважай)\w*)[а-яё]+(?:ай|яй|ей|уй|ой|йте|ите|ьте)\b"
            # "без моего подтверждения ты не удаляешь файлы": what the agent does not do without the user's word
            r"|без\s+моего\s+(?:подтверждени|разрешени|согласи|одобрени)\w*[^.!?]{0,40}\bне\s+[а-яё]+)",
            re.I,
        ),
    ),
    ("ru", "always", "preference", rx.compile(r"\bвсегда\b", re.I)),
    ("ru", "swap", "decision", rx.compile(r"\b(?:вместо|а\s+не)\b", re.I)),
    (
        "ru",
        "future",
        "preference",
        rx.compile(r"\b(?:отныне|впредь|с\s+этого\s+момента|с\s+сегодняшнего\s+дня)\b", re.I),
    ),
    ("ru", "must", "decision", rx.compile(r"\b(?:обязательно|должн[аыо]?)\b", re.I)),
    ("ru", "prefer", "preference", rx.compile(r"\bпредпочитаю\b", re.I)),
    (
        "es",
        "never",
        "decision",
        rx.compile(r"\b(?:nunca|jamás|no\s+(?:uses|hagas|toques|cambies|ejecutes|borres))\b", re.I),
    ),
    ("es", "always", "preference", rx.compile(r"\bsiempre\b", re.I)),
    ("es", "swap", "decision", rx.compile(r"\b(?:en\s+lugar\s+de|en\s+vez\s+de)\b", re.I)),
    ("es", "future", "preference", rx.compile(r"\b(?:a\s+partir\s+de\s+ahora|de\s+ahora\s+en\s+adelante)\b", re.I)),
    ("es", "prefer", "preference", rx.compile(r"\bprefiero\b", re.I)),
    (
        "de",
        "never",
        "decision",
        rx.compile(
            r"\b(?:niemals|nie\s+\w+|(?:verwende|benutze|nutze)\s+kein\w*|nicht\s+(?:verwenden|benutzen|ändern))\b",
            re.I,
        ),
    ),
    ("de", "always", "preference", rx.compile(r"\bimmer\b", re.I)),
    ("de", "swap", "decision", rx.compile(r"\b(?:statt|anstatt|anstelle\s+von)\b", re.I)),
    ("de", "future", "preference", rx.compile(r"\b(?:ab\s+jetzt|von\s+nun\s+an|künftig|zukünftig)\b", re.I)),
    ("de", "prefer", "preference", rx.compile(r"\b(?:ich\s+bevorzuge|lieber)\b", re.I)),
    ("fr", "never", "decision", rx.compile(r"\b(?:jamais|n['e]\s*(?:utilise|fais|touche|modifie)\w*\s+pas)\b", re.I)),
    ("fr", "always", "preference", rx.compile(r"\btoujours\b", re.I)),
    ("fr", "swap", "decision", rx.compile(r"\b(?:au\s+lieu\s+de|plutôt\s+que)\b", re.I)),
    ("fr", "future", "preference", rx.compile(r"\b(?:désormais|dorénavant|à\s+partir\s+de\s+maintenant)\b", re.I)),
    ("fr", "prefer", "preference", rx.compile(r"\bje\s+préfère\b", re.I)),
    ("pt", "never", "decision", rx.compile(r"\b(?:nunca|jamais|não\s+(?:use|faça|mexa|altere|rode))\b", re.I)),
    ("pt", "always", "preference", rx.compile(r"\bsempre\b", re.I)),
    ("pt", "swap", "decision", rx.compile(r"\b(?:em\s+vez\s+de|ao\s+invés\s+de)\b", re.I)),
    ("pt", "future", "preference", rx.compile(r"\b(?:a\s+partir\s+de\s+agora|de\s+agora\s+em\s+diante)\b", re.I)),
    ("pt", "prefer", "preference", rx.compile(r"\bprefiro\b", re.I)),
    (
        "ar",
        "never",
        "decision",
        rx.compile(
            r"(?:أبدا|أبداً|ممنوع|لا\s+(?:تستخدم|تستعمل|تغير|تغيّر|تنشئ|تضف|تضيف|تحذف|تعدل|تعدّل|تدفع|ترفع|تكتب|تلمس"
            r"|تقم|تعمل\s+commit|تنفذ|تشغل))"
        ),
    ),
    ("ar", "always", "preference", rx.compile(r"(?:دائما|دائماً)")),
    ("ar", "swap", "decision", rx.compile(r"(?:بدلا\s+من|بدلاً\s+من)")),
    ("ar", "future", "preference", rx.compile(r"(?:من\s+الآن\s+فصاعدا|من\s+الآن\s+فصاعداً)")),
    *more.CUES,
)
# "still" (immer noch, toujours pas, todavía, ainda) or a failure named: a report of how the work goes, in which
# "immer", "toujours", "siempre", "nunca" say how often it fails, not how the agent should work
_REPORTED = {
    "de": rx.compile(
        r"\b(?:immer\s+(?:noch|wieder|mehr|weniger)|noch\s+immer|fehler\w*|kaputt\w*|fehlgeschlagen|abgestürzt"
        r"|(?:funktioniert|geht|klappt|läuft|lädt|startet|kompiliert|baut)\s+(?:(?:immer\s+)?noch\s+|immer\s+|nie\s+)?nicht"
        r"|nie\s+(?:funktioniert|geklappt|geladen|gestartet|kompiliert))\b",
        re.I,
    ),
    "fr": rx.compile(
        r"\b(?:toujours\s+pas|toujours\s+(?:le|la|les)\s+m[êe]mes?|erreurs?|plant\w*|bugu?\w*|échou\w*"
        r"|ne\s+(?:marche|fonctionne|compile|démarre|charge)\s+(?:toujours\s+|jamais\s+)?(?:pas|jamais|plus))\b",
        re.I,
    ),
    "es": rx.compile(
        r"\b(?:todav[ií]a|a[uú]n\s+no|errore?s?|falla\w*|no\s+(?:funciona|anda|carga|compila|arranca)\w*)\b", re.I
    ),
    "pt": rx.compile(
        r"\b(?:ainda|erros?|falh\w+|quebr\w+|trava\w*|não\s+(?:funciona|carrega|compila|roda|abre)\w*)\b", re.I
    ),
    "ru": rx.compile(
        r"(?:вс[её]\s+ещ[её]|до\s+сих\s+пор|ошибк\w*|не\s+(?:работает|запускается|грузится|собирается|открывается)"
        r"|пада\w*|упал\w*|вылета\w*|слома\w*|крашит\w*)",
        re.I,
    ),
    "ko": rx.compile(r"여전히|아직도|에러|오류|안\s*돼|안\s*되|실패|깨져|깨지|크래시|멈춰"),
}


# "is always" in the Latin-script languages read: a thing described ("die Gebühr ist immer abhängig von ..."), where
# a rule would tell someone what to do ("verwende immer ...", "tests must always ...")
_DESCRIBED = rx.compile(r"\b(?:ist|sind|est|sont|es|son|é|são)\s+(?:immer|toujours|siempre|sempre)\b(?!\s+noch)", re.I)


def _reported(lang: str, text: str) -> bool:
    """Does the sentence report how the work still fails, in ``lang`` (any of the four Latin-script languages read
    together, as their cues are)?"""
    if lang in _LATIN:
        return any(_REPORTED[other].search(text) for other in _LATIN)
    found = _REPORTED.get(lang)
    return found is not None and found.search(text) is not None


_SCRIPT = (  # kana before Han: Japanese text uses both
    ("ja", rx.compile(r"[\u3040-\u30ff]")),
    ("zh", rx.compile(r"[\u4e00-\u9fff]")),
    ("ko", rx.compile(r"[\uac00-\ud7af]")),
    ("uk", more.UKRAINIAN_LETTERS),
    ("ru", rx.compile(r"[\u0400-\u04ff]")),
    ("ar", rx.compile(r"[\u0600-\u06ff]")),
)
_LATIN = ("es", "de", "fr", "pt")

# "talk to me in Chinese" in the language itself or in English
_LANGUAGES = (
    # said to the agent about talking with the user, not a task done in the language ("用中文写 README")
    (
        "Chinese",
        rx.compile(
            r"用中文来?(?:回答|回复|交流|沟通|问我|和我|跟我|说|讲|交互)|中文(?:交互|回答|回复|交流|沟通|问我)|说中文|讲中文"
        ),
    ),
    ("English", rx.compile(r"用英[文语語]来?(?:回答|回复|交流|沟通|问我|和我|跟我|说|讲|交互)|说英[文语]|讲英[文语]")),
    (
        "Japanese",
        rx.compile(
            r"^(?:今後は?|これから(?:は)?|以後|常に|いつも)?[、,\s]*日本語で(?:話|答え|解答|回答|返事|返信|お願い)"
        ),
    ),
    (  # "한글로 답변해줘" (the script's name for the language): answering only, "README를 한글로 써줘" is a task
        "Korean",
        rx.compile(r"(?:한국어로\s*(?:대답|답변|응답|말|해|하|써))|(?:한글|한국말)로\s*(?:대답|답변|응답|답|말)"),
    ),
    (  # "говори и думай на русском", "пиши по русски"
        "Russian",
        rx.compile(
            r"(?:(?:отвечай|говори|пиши|общайся)(?:\s+и\s+(?:думай|пиши|говори|отвечай|рассуждай))?"
            r"\s+(?:по-русски|по\s+русск\w*|на\s+русском))",
            re.I,
        ),
    ),
    (
        "Spanish",
        rx.compile(
            r"\b(?:(?:responde|habla|contesta|escribe)(?:me)?\s+(?:siempre\s+)?(?:todo\s+)?en\s+español)\b", re.I
        ),
    ),
    (
        "German",
        rx.compile(
            r"\b(?:(?:antworte|sprich|schreib)\w*\s+(?:bitte\s+)?(?:immer\s+)?(?:alles\s+)?(?:auf|in)\s+deutsch)\b",
            re.I,
        ),
    ),
    (
        "French",
        rx.compile(
            r"\b(?:(?:réponds|parle|écris)\w*\s+(?:moi\s+)?(?:toujours\s+|uniquement\s+)?(?:tout\s+)?"
            r"en\s+français)\b",
            re.I,
        ),
    ),
    ("Portuguese", rx.compile(r"\b(?:(?:responda|fale|escreva)\s+(?:tudo\s+)?em\s+português)\b", re.I)),
    ("Arabic", rx.compile(r"(?:باللغة\s+العربية|بالعربي)")),
    *more.LANGUAGES,
    (
        None,
        rx.compile(
            r"\b(?:reply|respond|answer|talk|speak|write|ask me)\s+(?:to me\s+)?(?:only\s+)?"
            r"(?:everything\s+|all\s+)?in\s+"
            r"(English|Chinese|Japanese|Korean|Russian|Spanish|German|French|Portuguese|Arabic|Italian|Dutch"
            r"|Turkish|Polish|Vietnamese|Hindi|Ukrainian|Indonesian)\b",
            re.I,
        ),
    ),
)

# --- scope ----------------------------------------------------------------------------------------

_PROJECT_WORDS = rx.compile(
    r"\b(?:this|our|the)\s+(?:repo|repository|project|codebase|code base|app|folder|"
    r"directory|package|module|service"
    r"|workspace|site|game|bot|ui|api|backend|frontend|server)\b|\bhere\b|\bin here\b|"
    r"这个项目|本项目|该项目|このプロジェクト|이 프로젝트",
    re.I,
)
_PROJECT_THING = rx.compile(
    r"`[^`]+`|[\w-]+\.[a-z]{1,5}\b|[\w.-]*/[\w./-]+|\b[a-z]+_[a-z_]+\b|"
    r"\b[a-z]+[A-Z]\w+|\b[A-Z][a-z]+[A-Z]\w+",
    re.U,
)
_CONDUCT = rx.compile(
    r"\b(?:commit messages?|reply|replies|respond|answer|explain|explanations?|"
    r"summar\w+|tone|emoji|language|ask(?:ing)? me"
    r"|questions?|read (?:the )?(?:whole |entire )?files?|in full|comments?|"
    r"docstrings?|verbose|concise|short|brief|chat"
    r"|confirm|permission)\b",
    re.I,
)


def scope_of(sentence: str, kind: str) -> str:
    """Global only for a way of working with no project thing in it; anything naming this repo is project."""
    if _PROJECT_WORDS.search(sentence) or _PROJECT_THING.search(sentence):
        return "project"
    if kind == "preference" and _CONDUCT.search(sentence):
        return "global"
    return "project"


# --- reading a prompt -------------------------------------------------------------------------


_LIST_MARK = rx.compile(r"^(?:(?:[-*+•]|\d+[.)])\s+)?(?:\[[ xX]\]\s+)?")  # a bullet, a number, a task box


def prose_lines(prompt: str) -> list[str]:
    """Lines a person wrote to the agent (capture.feedback.prose_lines), without tables, headings, comments and
    build logs; in a long pasted document only short lines spoken to the agent."""
    from automem.capture.feedback import INJECTED
    from automem.capture.feedback import prose_lines as written_lines

    prompt = prompt or ""
    if len(prompt) > MAX_PROMPT:
        prompt = prompt[: MAX_PROMPT // 2] + "\n" + prompt[-MAX_PROMPT // 2 :]
    body = INJECTED.sub(" ", prompt) if "<" in prompt else prompt
    if "│" in body:  # "change this to the whole folder │ ~/a/ │ b/": a sentence, then a table row pasted after it
        body = "\n".join(line if line.lstrip().startswith("│") else line.split("│")[0] for line in body.splitlines())
    body = without_terminal_output(body)
    long_prompt = sum(1 for line in body.splitlines() if line.strip()) > LONG_PROMPT_LINES
    out: list[str] = []
    for stripped in written_lines(body):
        if stripped.startswith(("#", "|", "//", "<!--")) or _MORE_DATA.search(stripped):
            continue
        error = _PASTED_ERROR.search(stripped)
        if error:  # "I get this: TypeError: x must be str, not int": from the error on, the program speaks
            stripped = stripped[: error.start()].rstrip()
            if not stripped:
                continue
        if long_prompt and (len(stripped) > 200 or not _SPOKEN.match(stripped)):
            continue  # a pasted document: only short lines spoken to the agent count
        out.append(_LIST_MARK.sub("", stripped))
    return out


_TERMINAL_PROMPT = rx.compile(r"^\s*(?:[❯➜λ$%]\s+\S|\S+@[\w.-]+[:~]\S*\s*[$#%]|PS [A-Za-z]:\\[^>]*>)")


def without_terminal_output(body: str) -> str:
    """The prompt without pasted terminal sessions: a shell-prompt line ("❯ ruby", "$ make") and the output under
    it up to the next blank line were printed by a program, not said to the agent."""
    kept: list[str] = []
    in_terminal = False
    for line in body.splitlines():
        if not line.strip():
            in_terminal = False
        elif _TERMINAL_PROMPT.match(line):
            in_terminal = True
        if not in_terminal:
            kept.append(line)
    return "\n".join(kept)


# where a pasted error starts on a line: an exception's name and its colon, a compiler's "error:", npm's "ERR!"; a
# compiler's lowercase "warning:" only at the line's start (a person's "Note:" or "Warning:" opens their own words)
_PASTED_ERROR = rx.compile(
    r"(?:\bUncaught\s+)?(?-i:\b[A-Z]\w*(?:Error|Exception)\b)(?:\s*\[[^\]]*\])?\s*:"
    r"|\b(?:error|fatal|panic)(?:\[\w+\]| TS\d+)?:\s|\bnpm ERR!|\bTraceback\b"
    r"|(?-i:^(?:warning|warn)(?:\[\w+\])?:\s)",
    re.I,
)


_SPOKEN = rx.compile(r"^[-*+]?\s*(?:please |you |never |don'?t |always |use |do not )", re.I)


_INLINE_ITEM = rx.compile(r"\s+[-*•]\s+(?=[A-Z])")


def sentences(prompt: str) -> list[str]:
    """Sentences of the prose lines; a list typed on one line ("Constraints: - A - B") counts item by item."""
    out: list[str] = []
    for line in prose_lines(prompt):
        if len(line) > 4000:
            continue  # a line this long is pasted data, not something said to the agent
        for sentence in _split_sentences(line):
            for part in _INLINE_ITEM.split(sentence):
                part = _NEXT_LABEL.sub("", part.strip())  # "... and tests Output format:" -> "... and tests"
                if part:
                    out.append(part)
    return out


_NEXT_LABEL = rx.compile(r"\s+[A-Z][a-z]+(?: [a-z]+){0,2}:$")


def _split_sentences(line: str) -> list[str]:
    """The line cut at sentence ends, but not inside a parenthesis closed later on the line: "remove the old files
    (main.ts, cli.ts right? nothing else), and add a map" is one sentence, an aside asked in passing."""
    parts: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer(line):
        before = line[start : end.start()]
        if before.count("(") > before.count(")") and ")" in line[end.end() :]:
            continue
        parts.append(before)
        start = end.end()
    parts.append(line[start:])
    return parts


_CJK_QUESTION_END = rx.compile(r"(?:吗|呢|か|까)[。.]?$")
# a Chinese question without a question mark: "…吗, …" asked on the way, or an A-not-A form in the last clause
# ("不删除会不会比较好", "是不是要重启"); "不管是不是测试文件，都要…" asks nothing
_CJK_ASKED = rx.compile(r"吗\s*[,，]|(?:会不会|是不是|能不能|要不要|可不可以|有没有|对不对|好不好|行不行)[^，,。；;]*$")
_CJK_WHY = rx.compile(r"为什么|為什麼|怎么回事|なぜ|どうして")


_QUESTION_OPENER = rx.compile(r"^(?:¿|هل\s)")


def _is_question(sentence: str) -> bool:
    text = sentence.strip()
    return (
        text.endswith(("?", "？"))
        or bool(_QUESTION_START.match(text))
        or bool(_CJK_QUESTION_END.search(text))
        or bool(_CJK_WHY.search(text))
        or bool(_CJK_ASKED.search(text))
        or bool(_QUESTION_OPENER.match(text))
    )


def _language(sentence: str) -> str:
    """The script's language for CJK, Cyrillic and Arabic text; for Latin script the language its small words name
    among those of more_languages, else "latin" (English or a neighbour)."""
    for name, pattern in _SCRIPT:
        if pattern.search(sentence):
            return name
    return more.latin_language(sentence)


_MORE_QUESTION = rx.compile(
    r"^(?:" + more.QUESTION_START + r")|^(?!langkah)\w+kah\b|\b(?:không|chưa)\W*$",
    re.I,
)
# Turkish question particles; "mi" is also Italian and Polish for "me" ("mi raccomando", "nie pisz mi")
_TURKISH_QUESTION = rx.compile(r"\b(?:mı|mi|mu|mü|mısın|misin|musun|müsün)\b", re.I)
_MORE_NOT_A_RULE = rx.compile(more.ROLE + r"|\b(?:" + more.THIS_WORK + r")\b", re.I)  # a part to play; this work only


def _reads_in(lang: str, language: str) -> bool:
    """Are ``lang``'s cue words read in a sentence of ``language``? Spanish, German, French and Portuguese in any
    Latin text no other language claims; Ukrainian cues in Russian-looking text too."""
    return lang == language or (language == "latin" and lang in _LATIN) or (language == "ru" and lang == "uk")


def language_request(sentence: str) -> str:
    """The language the user asks the agent to use with them ("用中文来问我" -> "Chinese"), else ""."""
    for name, pattern in _LANGUAGES:
        match = pattern.search(sentence)
        if match:
            return name or match.group(1).capitalize()
    return ""


_ENGLISH_WORD = rx.compile(r"\b(?:the|and|you|with|this|that|is|are)\b", re.I)


def classify(sentence: str) -> Directive | None:
    """The directive a sentence carries, or None (questions, tasks, narrative, long or empty lines)."""
    text = " ".join((sentence or "").split())
    if not 6 <= len(text) <= MAX_SENTENCE or _NARRATIVE.search(text):
        return None
    wanted = language_request(text)
    if wanted:
        return Directive(text, "preference", "language", "global", _language(text))
    if _is_question(text):
        return None
    language = _language(text)
    if language == "latin":
        found = _english(text)
        if found or _ENGLISH_WORD.search(text):
            return found  # English: with its cue, or none
    elif language in more.READ_HERE and (
        _MORE_QUESTION.search(text)
        or (language == "tr" and _TURKISH_QUESTION.search(text))
        or _MORE_NOT_A_RULE.search(text)
    ):
        return None
    for lang, cue, kind, pattern in _INTL:
        if _reads_in(lang, language) and pattern.search(text):
            if cue in ("always", "never") and _reported(lang, text):
                continue  # "es geht immer noch nicht", "no funciona nunca": how it still fails, not a rule
            if cue == "always" and _DESCRIBED.search(text):
                continue  # "die Gebühr ist immer abhängig vom Parkplatz": how a thing is, not what to do
            return Directive(text, kind, cue, scope_of(text, kind), lang)
    # a Latin-script language told by a few small words may be English after all ("Always run e2e per PR")
    return _english(text) if language in more.NEW_LATIN else None


# "stop changing, another agent is working there!", "stop it": halting what the agent is doing now, with nothing
# named that a rule could be kept about
_HALT = rx.compile(
    r"^" + _OPENERS + r"stop(?:\s+\w+ing)?(?:\s+(?:it|that|this|now|there|here|right now))?\s*(?:[,.!;:]|$)", re.I
)


def _english(text: str) -> Directive | None:
    if _HALT.match(text):
        return None
    for cue, kind, pattern in _EN:
        if pattern.search(text):
            return Directive(text, kind, cue, scope_of(text, kind))
    if _CONVENTION.search(text):
        return Directive(text, "decision", "convention", "project")
    return None


# "..., please revert that": a request about what broke the rule, split off; "..., please use date-fns" stays whole
_UNDO_POINTER = (
    r"please\s+(?:revert|undo|redo|fix|remove|delete|roll back|change|update)\s+(?:that|it|this|those|them)\b"
)
_CLAUSE = rx.compile(
    r";\s+|,\s+(?:and|but|so)\s+(?=\w)|,\s+(?=" + _UNDO_POINTER + r")|\s+(?:and|but) (?:also |then )?(?=(?:fix|make|"
    r"add|remove|check|update|troubleshoot)\b)"
)


# words that make a rule outlast the prompt it was said in, in the languages read
OUTLASTS = rx.compile(
    r"\b(?:always|never|from now on|" + _FORWARD + r"|in this (?:repo|repository|project|codebase)|in (?:all|every))\b"
    r"|以后|今后|從今|从今|永远|永遠|总是|始终|每次|记住|記住|今後|これから|常に|必ず|次回から|絶対|항상|절대|앞으로"
    r"|всегда|никогда|впредь|\b(?:siempre|nunca|toujours|jamais|immer|niemals|sempre)\b|" + more.OUTLASTS,
    re.I,
)


# a sentence that asks to keep the one before it: "Remember that.", "Please remember this for next time."
_REMEMBER_TAIL = rx.compile(
    r"^(?:please\s+)?(?:(?:" + REMEMBER + r")(?:\s+(?:this|that|it))?|keep (?:this|that|it) in mind)"
    r"(?:\s+(?:i|we)\s+(?:want|like|prefer|need)\s+(?:this|that|it)(?:\s+(?:this|that)\s+way)?)?"
    r"(?:\s+(?:for (?:the )?(?:future|next time|later)|going forward|from now on))?"
    r"(?:\s*,?\s*(?:please|thanks?|thank you))?\s*[.!。]*$",
    re.I,
)


# a quoted passage of a sentence or more: text to translate, write or put in a prompt, someone else's words
_QUOTED_PASSAGE = rx.compile(
    r"(?:(?<=^)|(?<=[\s:(]))(['\"\u201c\u2018])(?=\S)"
    r"(?=(?:[^'\"\u201c\u201d\u2018\u2019\n]|(?<=\w)'(?=\w)){0,600}?[.!?]['\"\u201d\u2019]?(?:$|[\s,;:)]))"
    r"(?:[^'\"\u201c\u201d\u2018\u2019\n]|(?<=\w)'(?=\w)){20,600}?['\"\u201d\u2019](?=$|[\s.,;:!?)])"
)


# a passage in corner brackets that runs over a line or a long sentence: 『...』 text to paste into another prompt, a
# quoted message; a short 「npm」 is a name and stays
_CJK_QUOTED = rx.compile(r"『[^』]*?(?:\n|[^』]{40})[^』]*』|「[^」]*?(?:\n|[^」]{40})[^」]*」")


_CLOSING = {"\u201c": "\u201d", "「": "」", "『": "』", '"': '"', "«": "»", "„": "\u201c"}


def _dictated(prompt: str) -> bool:
    """Does the prompt open a quotation it never closes ("“must be written to the log folder")? Then it goes on with
    text the user dictates for a file or another prompt, begun in an earlier prompt: their words for it, not a rule."""
    text = prompt.strip()
    if not text or text[0] not in _CLOSING:
        return False
    close = _CLOSING[text[0]]
    return text[1:].count(close) == 0 if close != text[0] else text.count(close) == 1


_LANGUAGE_NAMES = (
    r"English|Chinese|Japanese|Korean|Russian|Spanish|German|French|Portuguese|Arabic|Italian|Dutch|Turkish|Polish"
    r"|Vietnamese|Hindi|Ukrainian|Indonesian"
)
# "keep commit messages in English", "write code comments in English": the language of one kind of text
_TEXT_IN_LANGUAGE = rx.compile(
    r"^(?:please\s+)?(?:but\s+)?(?:keep|write|leave|use|do|put)\b[^.!?]{2,60}?\bin\s+(?:" + _LANGUAGE_NAMES + r")\b",
    re.I,
)
_LANGUAGE_CLAUSE = rx.compile(r",?\s+(?:and|but)\s+|;\s+|,\s+(?=(?:keep|write|leave|use|do|put)\b)", re.I)


def _language_clauses(sentence: str) -> list[Directive]:
    """ "Answer in French and keep commit messages in English": the language to talk in, then each other clause that
    is a rule of its own, so that no clause is lost under the first."""
    clauses = [c.strip(" ,.") for c in _LANGUAGE_CLAUSE.split(sentence) if c.strip(" ,.")]
    talk = next((c for c in clauses if language_request(c)), sentence)
    out = [Directive(talk if len(talk) >= 6 else sentence, "preference", "language", "global", _language(sentence))]
    for clause in clauses:
        if clause == talk:
            continue
        if _TEXT_IN_LANGUAGE.match(clause):
            language = _language(clause)
            out.append(
                Directive(
                    clause, "preference", "scope", scope_of(clause, "preference"), language.replace("latin", "en")
                )
            )
        elif (found := classify(clause)) is not None and found.cue != "language":
            out.append(found)
    return out


# "Going forward." or "From now on" said as a sentence or line of its own: it makes a rule of the sentence after it
_BARE_FUTURE = rx.compile(
    r"^" + _OPENERS + r"(?:from now on|" + _FORWARD + r"|from here on(?:wards?)?|henceforth|in (?:the )?future)"
    r"\s*[.!:;,]*$",
    re.I,
)
# how a rule opens: an imperative, a rule word, or the team's or the user's way of working
_RULE_OPENING = rx.compile(
    r"^" + _OPENERS + r"(?:please\s+)?(?:(?:let'?s\s+)?(?:always|never|only)\b|don'?t\b|do not\b|we\s+\w+"
    r"|i\s+(?:want|prefer|like|need)\b|(?:use|run|keep|put|write|name|format|indent|add|ask|check|commit|push|test"
    r"|make|call|prefer|avoid|follow|read|create|update|document|lint|include|mention|tell|stop|start|wrap|sort"
    r"|place|store|give|show|reply|respond|answer|talk|split|prefix)\b)",
    re.I,
)


def _carried(marker: str, sentence: str) -> Directive | None:
    """The rule a sentence states when the sentence before it was only "Going forward." / "From now on"."""
    text = " ".join(sentence.split())
    if not 6 <= len(text) <= MAX_SENTENCE or _is_question(text) or _NARRATIVE.search(f"{marker} {text}"):
        return None
    found = classify(text)
    if found is None and not _RULE_OPENING.match(text):
        return None
    kind = found.kind if found is not None and found.cue != "language" else "decision"
    if found is not None and found.cue == "language":
        return Directive(text, "preference", "language", "global", found.language, lead=marker)
    return Directive(text, kind, "future", scope_of(text, kind), "en", lead=marker)


# a Chinese clause that asks for this turn's work: "删除目前所有skills", "把X改成Y", "请重构…"
_ZH_TASK_CLAUSE = rx.compile(
    r"^\W*(?:请|請|麻烦|麻煩)?(?:帮我|幫我|帮忙|幫忙|删除|删掉|修改|创建|新建|添加|生成|实现|修复|更新|重构|安装|运行|执行|把|将)"
)


def _from_lasting_clause(found: Directive) -> Directive:
    """ "删除目前所有skills,软链到我的文件夹,以后创建的skills都放在那里": the task clauses before the one that says what
    holds from now on ("以后…") are this turn's work; the rule starts at that clause."""
    parts = re.split(r"([，,；;])", found.sentence)
    clauses = parts[0::2]
    at = next((i for i, c in enumerate(clauses) if OUTLASTS.search(c)), 0)
    if at == 0 or not _ZH_TASK_CLAUSE.match(clauses[0]):
        return found
    rest = "".join(parts[2 * at :]).strip()
    if not rest:
        return found
    return Directive(rest, found.kind, found.cue, scope_of(rest, found.kind), found.language, found.lead)


# a short span in double quotes inside a CJK sentence: words the user quotes ("每次都重新打开文件"), not their own
_CJK_SHORT_QUOTE = rx.compile(r'"[^"\n]{1,40}"|\u201c[^\u201d\n]{1,40}\u201d')
_CJK_CHAR = rx.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")


_QUOTES_THEMSELVES = rx.compile(
    r"(?:我(?:已经|早就|之前|刚才)?(?:说|讲|提|要求)(?:过|了)|记住|記住|记得|記得|规则是|規則是|我的要求是|言った|覚えて)"
    r"\s*[:：,，]?\s*[\"\u201c「]"
)


def _cue_only_quoted(sentence: str, cue: str) -> bool:
    """Does the word that makes a CJK sentence a rule stand only inside a phrase it quotes (praise of a finding:
    "你指出的"每次都重新打开文件"这个瓶颈")? Read with the quoted phrases blanked, it is no rule, or another one."""
    if not _CJK_CHAR.search(sentence) or not _CJK_SHORT_QUOTE.search(sentence):
        return False
    if _QUOTES_THEMSELVES.search(sentence):
        return False  # 我说过"不要修改测试文件", 记住："提交前必须运行 npm test": the user's own rule, quoted
    blanked = classify(_CJK_SHORT_QUOTE.sub("“…”", sentence))
    return blanked is None or blanked.cue != cue


def directives(prompt: str, limit: int = 3) -> list[Directive]:
    """The directives of one prompt, in order, at most ``limit``: a sentence, or the clause of it that holds the cue.

    A sentence followed by one that only asks to remember it ("Use tabs. Remember that.") is a directive whatever
    its words, with the cue "remembered". A quoted passage (text to translate, to write, someone's words) is not
    read."""
    out: list[Directive] = []
    if _dictated(prompt):
        return out
    if "『" in prompt or "「" in prompt:
        prompt = _CJK_QUOTED.sub(" ", prompt)
    quoted = "'" in prompt or '"' in prompt or "\u201c" in prompt
    said = sentences(_QUOTED_PASSAGE.sub(" ", prompt) if quoted else prompt)
    carried_to = -1
    for at, sentence in enumerate(said):
        if at == carried_to:
            continue  # already read as the rule the sentence before announced
        if _BARE_FUTURE.match(sentence.strip()):
            found = _carried(" ".join(sentence.split()), said[at + 1]) if at + 1 < len(said) else None
            if found is not None and _language(said[at + 1]) == "latin":
                carried_to = at + 1
                if all(found.sentence != d.sentence for d in out):
                    out.append(found)
                if len(out) >= limit:
                    break
            continue  # the marker alone is no rule
        if at + 1 < len(said) and _REMEMBER_TAIL.match(said[at + 1]) and not _REMEMBER_TAIL.match(sentence):
            text = " ".join(sentence.split())
            if 6 <= len(text) <= MAX_SENTENCE and not _is_question(text) and not _NARRATIVE.search(text):
                out.append(Directive(text, "decision", "remembered", scope_of(text, "decision"), _language(text)))
                if len(out) >= limit:
                    break
                continue
        found = classify(sentence)
        if found is not None and _cue_only_quoted(sentence, found.cue):
            found = None
        if found is not None and found.cue == "language":
            out.extend(d for d in _language_clauses(sentence) if all(d.sentence != o.sentence for o in out))
            found = None
        elif found is not None:
            clauses = [c for c in _CLAUSE.split(sentence) if c.strip()]
            if len(clauses) > 1:
                each = [classify(c) for c in clauses]
                if not all(each):  # "don't X, and don't Y": every clause a rule, the sentence is kept whole
                    found = next((d for d in each if d is not None), found)
        if found is not None and found.language == "zh":
            found = _from_lasting_clause(found)
        if found and all(found.sentence != d.sentence for d in out):
            out.append(found)
        if len(out) >= limit:
            break
    return out[:limit]

"""Lessons from what the user said: directives, rejections, corrections, where things live, choices.

What the user tells the agent directly is the strongest evidence there is, so it is promoted at
once ("instruction"): a rule ("use X, not Y"), a rejection whose feedback says what to do instead,
a fact typed right after stopping the agent, where a thing lives, a layout or a stack typed item by
item, the file chosen for a plan. What only points at the moment (an option picked from the
agent's list, a request repeated within one session, a rejection whose feedback points into the
rejected call) is stored as a candidate and waits for more evidence before it is ever injected.
"""

from __future__ import annotations

import os
import re
from collections import Counter

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.extract import more_languages as more
from automem.extract import phrasing
from automem.extract.directives import _NARRATIVE, OUTLASTS, REMEMBER, Directive, directives, scope_of, sentences
from automem.extract.glossary import english_terms
from automem.extract.rules import Session
from automem.extract.steps import Step
from automem.extract.usable import CJK_CHAR
from automem.schema import INSTRUCTION, Candidate

DOCUMENT_CHARS = 1200  # a prompt longer than this is a pasted spec or document

_PROFANITY = rx.compile(
    r"\b(?:fucking|fuckoing|fucked|fuck|shit|shitty|damn|omfg|wtf|my dude|dude|jesus|fucking hell)\b[,!]*\s*", re.I
)
_VAGUE = rx.compile(
    r"\b(?:do|undo|set|fix|use|make|keep|change|put|try|revert|remove|delete|move|copy)\s+(?:that|this|it|them|those)\b"
    r"(?!\s+(?:file|folder|directory|function|method|class|component|test|page|button|script|command|module|package|repo"
    r"|config|branch|dependency|api|endpoint|flag|option|setting|theme|color|image|directive|rule)s?\b)"
    r"|\b(?:should|must|to) be (?:that|this|it)\b|\bas is\b|\bsame as (?:that|this|before|above)\b|\blike "
    r"(?:that|this)\b"
    r"|\b(?:that|this) (?:file|one|thing|part|bit|stuff)\b|\b(?:these|those) (?:files|ones|things|parts|changes)\b"
    r"|\b(?:that|this|it|them|those|these)\s*[.!]?$"
    # an act on "anything" or "nothing" alone names nothing: "Don't do anything", "Do nothing", "Don't touch anything";
    # nor does "any work" or "any changes", this turn asking for an answer only ("Don't do any work, just explain")
    r"|^\W*(?:please\s+)?(?:(?:don'?t|dont|do not|never)\s+)?(?:do|touch|change|edit|modify|run|say|write|add|make"
    r"|implement)\s+(?:(?:a+ny|no|some|every)thin\w?|a+ny\s+(?:more\s+)?(?:work|changes?|edits?|code|modifications?"
    r"|fix(?:es)?))(?:\s+else)?(?:\s+(?:yet|now|for now|right now))?(?:\W+(?:just|only)\s+(?:explain|tell|check"
    r"|investigate|answer|analy[sz]e|plan|look|review|describe|report|show|list)\b[^.!?]{0,60})?\W*$"
    # what was said above in this conversation, or what the user did, in Chinese: "改成你上面说的" (changed to what you
    # said above), "我改过" / "我已经试了" (I changed it, I already tried): a pointer or a report, no rule
    r"|你(?:上面|刚才|之前|前面)?说的|(?:按|照)你(?:说的|的意思)|上面(?:说|提)的"
    r"|^\W*我(?:已经|刚才|也)?(?:改|试|用|装|跑|运行|删|加|换|重启)(?:过|了)",
    re.I,
)
_ERRORISH = rx.compile(
    r"(?-i:\b\w*(?:Error|Exception)\b)|\berror:|\bUncaught\b|\bTraceback\b|\berror TS\d+|\bERR_[A-Z_]+|\bexit code\b"
    r"|\bfailed to\b|\bnpm ERR",
    re.I,
)
# a fault the user saw in the output: "Category_Type has several "Unknown" which should not be happening"
_FAULT_SEEN = rx.compile(
    r"\b(?:which|that|this|it)\s+(?:should(?:\s+not|n'?t|\s+never)|must(?:\s+not|n'?t|\s+never))\s+(?:be\s+)?"
    r"(?:happen(?:ing)?|occur(?:ring)?|there|exist(?:ing)?|appear(?:ing)?|show(?:ing)?\s+up|the case)\b",
    re.I,
)
# "The queue must never exceed 100 songs", "The logo should always be visible": a thing of the product that must
# (not, always) do something, said as the subject of the sentence
_PRODUCT_MUST = rx.compile(
    r"^\W*(?:(?:also|and|but|btw|plus|oh and)\W+)?"
    r"(?P<subject>(?:(?:the|a|an|every|each|all|any|no|our|my|this|that)\s+)?(?:[\w'/.-]+\s+){0,3}?[\w'/.-]+)\s+"
    r"(?:must|should|shall|can|may|will|is|are)(?:\s+(?:not|never|no longer|always)|n'?t)\b",
    re.I,
)
# subjects that are the work, not the product: rules about them are how to work ("Tests should not hit the network")
_WORK_SUBJECT = rx.compile(
    r"\b(?:tests?|specs?|fixtures?|mocks?|commits?|commit messages?|code|files?|functions?|methods?|variables?"
    r"|comments?|docstrings?|prs?|pull requests?|branch(?:es)?|migrations?|readme|docs?|documentation|changelog"
    r"|changes?|edits?|scripts?|imports?|dependenc(?:y|ies)|packages?|libraries|lib|logs?|logging|secrets?"
    r"|credentials?|keys?|tokens?|passwords?|env|\.env|config(?:uration)?s?|settings|builds?|ci|lint(?:er|ing)?"
    r"|types?|typing|styles?|css|formatting|indentation|names?|naming|identifiers?|paths?|folders?|directories"
    r"|lines?|components?"
    r"|repo(?:sitory)?|git|history|output|answers?|replies|responses?|messages?|summar(?:y|ies)|you|we|i|agents?"
    r"|claude|codex|it|this|that|they|he|she|nothing|anything|everything|one)\b",
    re.I,
)

# how the product looks: "the cards to have rounded corners", "a dark theme for the dashboard"
_LOOK_OF_THE_PRODUCT = rx.compile(
    r"\b(?:corners?|theme|colou?rs?|palette|fonts?|typography|layout|header|footer|sidebar|navbar|nav bar|menu"
    r"|buttons?|cards?|icons?|logo|background|animations?|spacing|margins?|padding|shadows?|gradients?|modal"
    r"|dashboard|landing page|homepage|home page|hero|banner|chart|charts|graphs?)\b",
    re.I,
)


def _behaviour_of_the_product(sentence: str) -> bool:
    """Does the sentence say what a thing of the product must or must not do, not how the work is done?"""
    found = _PRODUCT_MUST.match(sentence)
    if not found or _WORK_SUBJECT.search(found.group("subject")) or _FROM_NOW.search(sentence):
        return False
    if re.search(r"\b(?:NEVER|NOT|MUST)\b", sentence):
        return False  # "invalid themes must NEVER explode": shouted, a rule the user holds the code to
    return not _DONE_TO.match(sentence[found.end() :])  # "… must never be touched": what the agent may do to it


_FROM_NOW = rx.compile(r"\b(?:from now on|going forward|in (?:the )?future|from here on)\b", re.I)
_DONE_TO = rx.compile(r"\s+(?:be|get)\s+(?:\w+ly\s+)?\w+(?:ed|en|wn|ne|t)\b", re.I)


# the words just before a rule that say the user asked for it before ("as I asked", "like I told you")
_RESTATED = rx.compile(r"\b(?:as|like) i (?:asked|said|told you|mentioned)(?: before| earlier)?[,:]?\s*$", re.I)
_IMPERATIVE_OPENING = rx.compile(r"^\W*(?:please\s+)?(?:never|don'?t|do not|always|avoid|stop)\b", re.I)
# "let's" proposes this turn's next step, unless a rule word follows ("let's always run the formatter")
_HEDGE = rx.compile(
    r"\b(?:maybe|perhaps|probably|i guess|not sure|real quick|for now|for the moment|let me"
    r"|i'?m wondering|i was wondering|i wonder|it seems like|we'?d want"
    r"|let's(?!\s+(?:always|never)\b))\b",
    re.I,
)
_OPINION = rx.compile(r"\bi (?:have a feeling|think|guess|suppose|feel|assume|would assume|believe)\b", re.I)
_RESTRICTED = rx.compile(
    r"\b(?:not|never|no longer|only|always|instead|rather than|n't|NEVER|NOT)\b|\byou (?:must|have to|need to)\b"
)


def _clean(sentence: str) -> str:
    text = _PROFANITY.sub("", sentence).strip(" ,;:-").rstrip(".")
    text = " ".join(text.split())
    return phrasing.capitalized(text)


def _first_sentence(text: str, limit: int = 220) -> str:
    """The agent's first sentence when it says what was done (not "Perfect!", "Understood." or "Now X will:")."""
    for line in (text or "").splitlines():
        line = line.strip().strip("*#>-").strip()
        if len(line) >= 12:
            first = re.split(r"(?<=[.!?。])\s+", line)[0]
            if len(first.split()) < 6 or first.rstrip().endswith(":"):
                return ""
            return first[:limit]
    return ""


# a complaint phrased as a rule: "don't be stupid", "stop being lazy"
_INSULT = rx.compile(
    r"^\W*(?:please\s+)?(?:don'?t|dont|do not|never|stop)\s+(?:be(?:ing)?|act(?:ing)?)\s+(?:so\s+)?(?:stupid|dumb"
    r"|an? idiot|idiotic|lazy|useless|annoying|ridiculous|silly|retarded|an? moron|an? asshole|a dick)\b",
    re.I,
)


# how a complaint about this turn opens in Chinese, Japanese or Korean: "still broken", "did you look", "I told you"
_COMPLAINT = rx.compile(
    r"还是有问题|还是不行|还是没|看了没|我都说了|我说了|我让你|请问你|你这样|没解决|又错|又不对|瞎猜|他妈|我说的是"
    r"|まだ直って|言ったでしょ|言ったよね|아직도 안|말했잖아|했잖아"
)
# "you (always) forget / get it wrong": a complaint about the agent, not a way to work ("don't forget X" is one),
# unless a clause after it says what to do from now on ("你老是忘了更新文档，以后改代码一定要同步更新README")
_FORGETS = rx.compile(
    r"你(?:总是|總是|每次都|老是|又|经常|經常|一直)?(?:忘记|忘記|忘了|搞错|搞錯|弄错|弄錯|搞砸|弄坏|漏掉)"
    r"|いつも[^。]*?(?:忘れ(?:る|てる|ている|ます)|間違え(?:る|てる|ている|ます))"
    r"|(?:너는|넌|당신은)[^.]*?(?:잊어버려|잊어버리|까먹|틀려|실수)"
    r"|(?i:\bdu (?:\w+ )?(?:vergisst|machst (?:\w+ )*falsch)\b|\bte (?:olvidas|equivocas)\b|\bsiempre olvidas\b"
    r"|\bты (?:\w+ )?(?:забываешь|ломаешь|ошибаешься)|\btu (?:\w+ )?(?:oublies|casses|te trompes)\b"
    r"|\bvocê (?:\w+ )?(?:esquece|quebra)\b|\b(?:ti )?dimentichi\b)"
)
_NEXT_CLAUSE = rx.compile(r"[,;:，；、]|\b(?:so|also|deshalb|donc|por eso|поэтому)\b|所以|因此")


def _complains_of_forgetting(text: str) -> bool:
    found = _FORGETS.search(text)
    if found is None:
        return False
    after = _NEXT_CLAUSE.split(text[found.end() :], maxsplit=1)
    return len(after) < 2 or not OUTLASTS.search(after[1])


# a forecast, a thought or a report, not a request: "...が普及するでしょう", "...생각했습니다"
_FORECAST = rx.compile(
    r"(?:でしょう|だろう|と思います|と思う|かもしれない|ました|생각했습니다|것 같습니다|것 같다|했습니다|였습니다)\W*$"
)
# "the ports above", "上面的文件": a pointer into this conversation
_POINTS_ABOVE = rx.compile(r"上面的|上面那|上述|上記の|以上の|위의?\s*\S+[은는이가을를]|위에서 말한")


# the words of a rule that say how it binds, not what it is about: "always", "never", "from now on", "please"
_BINDING = {
    "zh": rx.compile(
        r"以后|今后|从今以后|从现在开始|永远|永遠|总是|始终|每次都?|一律|务必|必须|一定要|千万|绝对|絕對|请|請"
        r"|不要|不许|不准|禁止|别再|别|不得|再|都|要|也"
    ),
    "ja": rx.compile(
        r"絶対に?|決して|常に|いつも|必ず|今後は?|これから(?:は)?|次回から(?:は)?"
        r"|(?:しないで|使わないで|やめて|して)(?:ください|下さい)?|ください|お願い(?:します)?"
    ),
    "ko": rx.compile(
        r"절대(?:로)?|항상|언제나|반드시|꼭|앞으로(?:는)?|이제부터(?:는)?|다음부터(?:는)?"
        r"|하지\s?마(?:세요|십시오)?|마세요|주세요|해\s?줘"
    ),
}
# what shows a Japanese or Korean rule names a thing: a particle after a word, or a word in Latin letters
_ARGUMENT = {
    "ja": rx.compile(r"[をがはもへでとのに]|[A-Za-z]{2,}"),
    "ko": rx.compile(r"[을를은는이가에로도의](?=\s|$)|[A-Za-z]{2,}"),
}


def _names_something(d: Directive) -> bool:
    """Does a Chinese, Japanese or Korean rule say what it is about, beyond how it binds and the act? "絶対に実行し
    ないでください" (never run [it]) and "永远不要执行" name nothing the next session could find: the object stayed in
    the conversation, as with "Never run it"."""
    binding = _BINDING.get(d.language)
    if binding is None or d.cue == "language":
        return True
    rest = binding.sub(" ", d.sentence)
    if d.language in _ARGUMENT:
        return bool(_ARGUMENT[d.language].search(rest))
    return len(CJK_CHAR.findall(rest)) >= 3 or bool(re.search(r"[A-Za-z.]{2,}", rest))


_VAGUE_ELSEWHERE = rx.compile(more.VAGUE, re.I)
# "don't do that (again)" in the languages read beside English names nothing either: 以后不要再这样做了, こういうことを
# しないで, 이렇게 하지 마, больше так не делай, no vuelvas a hacer eso, mach das nie wieder, ne refais plus ça, não
# faça isso
_VAGUE_DONT_AGAIN = rx.compile(
    r"(?:这样|那样|这么|那么|這樣|那樣|這麼|那麼)(?:做|干|幹|搞|弄|写|寫|处理|處理)?(?:了|啦|呀|啊)?\W*$"
    r"|(?:こういう|そういう|ああいう|こんな|そんな|あんな)(?:こと|の)|(?:それ|これ|あれ)(?:を|は)?(?:しないで|やらないで)"
    r"|(?:이렇게|그렇게|저렇게|이런|그런)\s*(?:짓|거|것|식)?\s*(?:하지|하면)"
    r"|\bтак\s+(?:больше\s+|никогда\s+)?не\s+(?:делай|делайте|поступай|поступайте)\b"
    r"|\bне\s+(?:делай|делайте)\s+(?:так|этого|это)\b"
    r"|\b(?:hacer|hagas|haga|hagan|hacerlo)\s+(?:eso|esto|lo mismo)\b"
    r"|\b(?:mach|macht|machen|tu|tut|tun)\s+(?:das|dies|sowas|so etwas)"
    r"(?=\s+(?:nie|nicht|bitte|mehr|wieder|noch)\b|\W*$)"
    r"|\b(?:fais|faites|refais|refaites|faire|refaire)\s+(?:(?:plus|jamais|pas)\s+)*(?:ça|cela|ceci)\b"
    r"|\b(?:faça|faz|fazer|faças|façam)\s+(?:isso|isto)\b",
    re.I,
)


_HEADED = rx.compile(r"^\s*#{1,3} \S")
# a prompt that opens with a front matter block ("---\ndescription: ...\n---"): a command, skill or agent file sent
# as the prompt; its rules are the file's, kept there
_PROMPT_FILE = rx.compile(r"^\s*---[ \t]*\n(?:[\w-]+[ \t]*:[^\n]*\n){1,20}---[ \t]*(?:\n|$)")


# a prompt that gives the agent a part or a mode to be in ("你现在进入“调度员”模式", "你扮演…", "あなたは…として"):
# its rules belong to the part, for this conversation
_SETS_A_PART = rx.compile(
    r"你(?:现在|現在|将|將|要)?(?:进入|進入)[^。\n]{0,30}模式|(?:请|請)?你?扮演|你(?:现在|現在)是一(?:个|個|名|位)"
    r"|あなたは[^。\n]{0,30}として|になりきって|ロールプレイ"
)

# a prompt that opens by casting the agent as an expert for the work it then lays out ("# ROLE\n\nYou are a Senior
# Full Stack Engineer and AI Systems Architect. Build …"): a brief written for this task, its limits the task's
_CASTS_AN_EXPERT = rx.compile(
    r"\A\W*(?:role\W*\n\W*)?(?:act as|you are(?: now)?|you're) (?:an?|the) (?:[\w/+.-]+ ){0,6}(?:engineer|developer"
    r"|architect|expert|designer|programmer|consultant|analyst|specialist|scientist|reviewer|strategist|lead|cto)s?\b",
    re.I,
)


# words of judgement before a role ("you're a terrible tester"): a complaint or praise, not a part in a run
_JUDGED = (
    r"(?:best|worst|terrible|great|good|bad|awesome|amazing|smart|lazy|stupid|genius|brilliant|careless|sloppy"
    r"|excellent|fantastic|horrible|useless|perfect|better|worse|real|true|only|most)\b"
)
# a prompt that gives the agent its part in a run of agents, anywhere in it ("… You are reviewer `coverage`; the other
# reviewers …", "You are the implementer for lane api.", "Your role: planner"): a brief an orchestrator wrote for one
# task, its limits the task's, even said with "never" or "always"
_GIVES_A_PART_IN_A_RUN = rx.compile(
    r"(?:\A|(?<=[.!?;:])\s|\n)[^\w\n]{0,6}(?:you are(?: now)?|you're|your role is|your role\s*:)\s+"
    r"(?:(?:an?|the|one of(?: the| \w+)?)\s+)?(?:`[^`\n]{1,40}`\s+|(?!" + _JUDGED + r")[\w/+.-]{1,30}\s+){0,2}?"
    r"(?:reviewer|worker|implementer|planner|tester"
    r"|verifier|validator|auditor|scout|sub-?agent|orchestrator|coordinator|executor|challenger|critic|fixer)s?\b",
    re.I,
)


_CLAUSE_WORD = rx.compile(r"^(?:where|which|that|if|when|whether|what|how)\b", re.I)

# A "must" in Chinese, Korean or Russian binds the agent as the English one does, unless what comes before it is one
# named thing of the project: a file ("sync.sh 应该同步所有文件", "backup.sh는 …해야 합니다") or "this/that X" ("这个页
# 面必须…", "эта кнопка должна…"). That says what the one thing should do, the task at hand, unless a word limits it
# (not, never, only, always, instead, from now on). A kind of thing ("测试应该放在…", "구현은 단순하게…") stays a rule.
_MUST_LIMITED = {
    "zh": rx.compile(
        r"不(?!会|會|是|过|過|错|錯)|别|別|只|仅|僅|永远|永遠|总是|總是|始终|始終|每次|一律|以后|以後|今后|今後"
        r"|从现在|從現在|从今|從今|而不是|代替|禁止|千万|千萬|绝对|絕對"
    ),
    "ko": rx.compile(r"않|안\s|말고|대신|마세요|지\s?마|항상|언제나|절대|앞으로|이제부터|다음부터|만\s"),
    "ru": rx.compile(r"\b(?:не|никогда|только|всегда|вместо|отныне|впредь)\b", re.I),
}
_MUST_CUE = {
    "zh": rx.compile(r"必须|一定要|应该"),
    "ko": rx.compile(r"해야\s?(?:한다|합니다|함)"),
    "ru": rx.compile(r"\bдолжн", re.I),
}
# "this project", "this repo": the place a rule holds in, not one thing of it
_ONE_THING = {
    "zh": rx.compile(
        r"[\w-]+\.[A-Za-z]{1,5}(?![A-Za-z])|/\w|^\W*[A-Za-z_][\w-]*\s*$"  # a file, a path, a command or name alone
        r"|(?:(?:这|這|那)(?:个|個)?(?![个個])|该|該|此)(?!\s*(?:项目|項目|仓库|倉庫|代码库|程式庫|工程|目录|目錄|repo))"
    ),
    "ko": rx.compile(r"[\w-]+\.[A-Za-z]{1,5}(?![A-Za-z])|/\w|(?:^|\s)(?:이|그|저)\s(?!프로젝트|저장소|레포)"),
    "ru": rx.compile(
        r"[\w-]+\.[A-Za-z]{1,5}(?![A-Za-z])|/\w|^\W*[A-Za-z_][\w-]*\s*$"
        r"|\b(?:этот|эта|это|эти|этого|этой|этом|данн\w+)\b(?!\s+(?:проект|репозитори|код))",
        re.I,
    ),
}


# "Должно быть feature:feature" (it must be ...), "应该是 X": the "must" has no subject of its own; what it binds was
# said in the sentence before, and the next session would not know
_SUBJECTLESS_MUST = rx.compile(
    r"^\W*(?:(?:это|оно)\s+)?(?:должн[оаы]?|обязательно)\s+быть\b|^\W*(?:应该|必须|一定要)是", re.I
)


def _restricted_elsewhere(d: Directive) -> bool:
    """Does a Chinese, Korean or Russian "must" bind the agent: limited by a word, or not said of one named thing?"""
    if _MUST_LIMITED[d.language].search(d.sentence):
        return True
    cue = _MUST_CUE[d.language].search(d.sentence)
    return cue is None or not _ONE_THING[d.language].search(d.sentence[: cue.start()])


# "Don't touch the code, just explain what happened", "Stop making changes and just answer my question": a halt that
# asks for an answer about this turn instead of work, not a rule (the answer's object, if any, is this conversation)
_ANSWER_ONLY = rx.compile(
    # what not to do names no one thing ("any work", "the code", "changes"): "don't edit the lockfile, just tell me"
    # keeps the lockfile out of every turn
    r"\b(?:don'?t|dont|do not|never|stop|no need to)\s+(?:\w+\s+){0,2}?(?:any\w*|the code|code|changes?|it|this"
    r"|that|files?|work)\b[^.!?]{0,30}?\b(?:just|only|simply)\s+(?:explain|answer|tell(?:\s+me)?"
    r"|describe|investigate|check|report|say)\b(?:\s+(?:(?:what|why|how|where)\b[^.!?]{0,40}|it|this|that|me"
    r"|my question|the (?:error|issue|problem|bug|difference|reason|cause)s?))?\W*$",
    re.I,
)


def _keep(d: Directive, document: bool) -> bool:
    """Precision first: the cue must make it a standing rule, not a one-off request or a hedge."""
    text = d.sentence
    if _ANSWER_ONLY.search(text):
        return False
    if _INSULT.search(text) or _COMPLAINT.search(text) or _complains_of_forgetting(text) or _POINTS_ABOVE.search(text):
        return False
    if _FORECAST.search(text):
        return False
    if _FAULT_SEEN.search(text) and not _IMPERATIVE_OPENING.match(text):
        return False
    if _VAGUE.search(_to_keep(d)) or (d.language in more.READ_HERE and _VAGUE_ELSEWHERE.search(d.sentence)):
        return False
    if d.language != "en" and _VAGUE_DONT_AGAIN.search(d.sentence):
        return False
    if _ERRORISH.search(text) or (_HEDGE.search(text) and d.cue != "habit"):
        return False
    if d.cue in ("must", "want", "default", "remember", "remembered") and document:
        return False  # requirements of a pasted spec are the spec's, not a rule for the agent
    if d.cue == "must" and d.language == "en" and not _RESTRICTED.search(text):
        return False  # "X should open Y" is a one-off setting; "X must never Y", "you have to Y" are rules
    if d.cue == "must" and _SUBJECTLESS_MUST.search(text):
        return False
    if d.cue == "must" and d.language in _MUST_CUE and not _restricted_elsewhere(d):
        return False  # the same in Chinese, Korean, Russian: "sync.sh 应该同步所有文件" says what one script should do
    if _CLAUSE_WORD.match(text) or (d.cue == "prefer" and _APPROVAL.search(text)):
        return False
    return _names_something(d)


# liking what was done: "I like where we're headed", "I really like how this looks"
_APPROVAL = rx.compile(
    r"\bi\s+(?:really\s+|do\s+)?(?:like|love)\s+(?:where|what|how|the way|the new\b|(?:\w+\s+){1,3}you\s+"
    r"(?:did|added|made|built|wrote|refactored|changed|fixed))\b",
    re.I,
)


def _to_keep(d: Directive) -> str:
    """The words a "remember" directive asks to keep, without the ask: "put this in memory: X" -> "X". The ask's own
    "this" points at what follows, so only the rest can be too vague to mean anything."""
    lead = _REMEMBER_LEAD.match(d.sentence) if d.cue == "remember" else None
    return d.sentence[lead.end() :].strip(" ,:;-") if lead else d.sentence


_RULE_CLAUSE = rx.compile(r"\b(?:invariant|rule|requirement|principle|convention|constraint)\s+that\s+", re.I)


_I_PREFER = rx.compile(r"^i(?:'d| would| really| do)?\s+prefer\b", re.I)


_AS_WITH = rx.compile(r"^(as (?:with|for|in) [^,]+|as (?:always|usual)),\s*(?:let'?s\s+|we\s+)?(.+)$", re.I)


def _summary(d: Directive) -> str:
    if d.cue == "language":
        from automem.extract.directives import language_request

        return phrasing.fit(f"Talk to the user in {language_request(d.sentence)}; they asked for it")
    clean = _clean(d.sentence)
    habit = _AS_WITH.match(clean)
    if (
        d.cue == "habit" and habit
    ):  # "As with all projects, let's start with X" -> "Start with X (as with all projects)"
        clean = f"{habit.group(2)[:1].upper()}{habit.group(2)[1:]} ({habit.group(1).lower()})"
    rule = _RULE_CLAUSE.search(clean)
    if rule and len(clean) > phrasing.LIMIT:
        # "... doesn't adhere to the invariant that X must Y" -> "X must Y"
        clean = phrasing.capitalized(clean[rule.end() :])
    if d.language != "en":
        return phrasing.fit(clean)
    told = _REMEMBER_LEAD.sub("", clean).strip(" ,:;-")  # "Remember that I prefer tabs" -> "I prefer tabs"
    if told and (practice := phrasing.team_practice(told)):
        return practice  # "Remember that we use pnpm in this repo" -> "This repo uses pnpm"
    if told and told != clean and _I_PREFER.match(told):
        clean = told
    if d.kind == "preference" or _I_PREFER.match(clean):
        return phrasing.preference(clean)
    if d.cue == "convention":  # "Tests go in tests/": the folder as code, so a closing slash reads as a name
        clean = re.sub(r"(?<![`\w./-])((?:[\w.~-]+/)+)$", r"`\1`", clean)
    return phrasing.imperative(clean)


def _context_before(text: str, sentence: str) -> str:
    """The sentence just before a directive that points back at it ("... maps for connections. I want all of
    that ...")."""
    text = " ".join(text.split())
    at = text.find(sentence)
    if at <= 0 or not re.search(r"\b(?:that|this|those|these|it|them)\b", sentence, re.I):
        return ""
    before = re.split(r"(?<=[.!?。])\s+", text[:at].strip())
    last = before[-1].strip() if before else ""
    return last if 12 <= len(last) <= 240 and "```" not in last else ""


def _list_context(text: str, sentence: str) -> str:
    """For a rule given as an item of a list, the prompt's first sentence: what the list is about."""
    text = " ".join(text.split())
    at = text.find(sentence)
    if at <= 0 or not re.search(r"(?:^|\s)[-*]\s+$", text[max(0, at - 4) : at]):
        return ""
    first = re.split(r"(?<=[.!?:])\s+", text.strip(), maxsplit=1)[0]
    return first if 12 <= len(first) <= 240 and sentence not in first else ""


APPLIED_MAX = 3  # more files changed after an instruction than this: the turn did more than apply it


def _changed_after(session: Session, index: int) -> list[str]:
    """The files the agent changed after prompt ``index`` and before the user's next prompt (its turn), in order."""
    files: list[str] = []
    for j in range(index + 1, len(session.steps)):
        step = session.steps[j]
        if step.kind in ("prompt", "interrupt", "rejection"):
            break
        if step.kind != "action" or not step.ok:
            continue
        intent = session.intent(j)
        if intent.kind == "edit":
            written = (step.raw or step.input).replace("\\", "/")
            for target in intent.targets:
                at = written.lower().find(target)
                path = (
                    written[at : at + len(target)] if at >= 0 else target
                )  # as the call wrote it (targets are lowered)
                if path not in files:
                    files.append(path)
    return files


_GENERIC_FOLDER = frozenset(
    "src lib app apps source sources scripts script docs doc test tests packages package "
    "components pages utils skills repos home users".split()
)


def _subject_of(files: list[str]) -> str:
    """What a turn's changed files have in common, to name what "this" meant: their nearest meaningful folder, or the
    file when there is one; "" when nothing specific is shared."""
    parts = [[p for p in f.strip("/").split("/") if p not in ("", ".", "~")] for f in files]
    if len(parts) == 1:
        return "/".join(parts[0][-2:])
    common = []
    for names in zip(*(p[:-1] for p in parts), strict=False):
        if len(set(names)) > 1:
            break
        common.append(names[0])
    meaningful = [c for c in common if c.lower() not in _GENERIC_FOLDER and not c.startswith(".")]
    return meaningful[-1] if meaningful else ""


def _with_subject(summary: str, subject: str) -> str:
    """ "这个改为整个.claude目录" -> "sync-work: 改为整个.claude目录": a leading pronoun replaced by what the turn
    changed."""
    from automem.extract.usable import _PRONOUN_START, _PRONOUN_START_CJK

    for pattern in (_PRONOUN_START_CJK, _PRONOUN_START):
        match = pattern.match(summary)
        if match:
            rest = summary[match.end() :].lstrip(" ,:")
            return phrasing.fit(f"{subject}: {rest}") if len(rest) >= 4 else summary
    return summary


_WORDS = rx.compile(r"\w+")


def _sole_request(prompt: str, sentence: str) -> bool:
    """Is the instruction (nearly) all the prompt says, so that what the agent did next was doing it?"""

    def words(text: str) -> int:
        return len(_WORDS.findall(text)) + len(CJK_CHAR.findall(text))

    return words(sentence) >= 0.7 * words(prompt)


_STRONG_CUES = ("swap", "never", "dont", "always", "future", "prefer", "language", "sequence", "habit", "scope")
_LASTING = rx.compile(
    r"\b(?:never|always|only|not|no|don'?t|instead of|rather than|from now on|every|each|any"
    r"|in this (?:repo|repository|project|codebase)|you (?:have to|must|need to|should))\b",
    re.I,
)


# What steers only this piece of work, not the work from now on. Read in the whole sentence: "for this fix",
# "don't change the API, just fix the UI", "this should be a class", "switch to the dev branch", "option 2",
# "the second approach", "don't stop until ...".
_THIS_WORK = rx.compile(
    r"\b(?:for|in) (?:this|the current) (?:task|fix|change|pr|bug|issue|ticket|feature|step|commit|turn|one|part)\b"
    r"|\bfor (?:this|the current) (?:test|run|demo|experiment|session|request|query|call)\b"
    r"|\bjust (?:fix|change|update|reuse|use|keep|copy|move|rename|remove|delete|add|make|set|put) (?:the|this|that)\b"
    r"|^\W*(?:this|that|it)\s+(?:should|must|needs?|has to)\b"
    r"|\b(?:switch|check ?out|go back|revert|roll back) to (?:the )?\S+ branch\b"
    r"|^\W*(?:please\s+)?(?:go back|revert|roll back) to\b"
    r"|\b(?:option|approach|variant|choice|alternative|solution|proposal)\s+(?:\d|[a-d]\b|#)"
    r"|\bthe (?:first|second|third|last|other|previous|original) (?:one|approach|option|version|way|solution|layout"
    r"|design|variant|style|mockup|draft|proposal|plan|idea|color|colour|theme|logo)s?\b"
    r"|\b(?:the )?(?:old|new|previous|original|other) one\b"
    r"|\b(?:stop|finish|quit|give up|end)\s+until\b"
    r"|\b(?:change|touch|modify|edit|do|add|remove|delete|fix|update|refactor)\s+(?:any|every|no)(?!body|one)[a-z]{4,6}"
    r" else\b|\bthe rest of (?:it|the (?:file|code|page))\b"
    r"|\b(?:only|just) (?:plan|analy[sz]e|investigate|review|read|look|explore|research|diagnose)\b"
    r"|^\W*(?:please\s+)?(?:don'?t|dont|do not)\s+(?:change|touch|modify|edit|write|commit)\s+anything\W*$"
    r"|^\W*(?:please\s+)?(?:don'?t|dont|do not)\s+(?:make|do)\s+any\s+(?:changes|edits)\W*$"
    # "for this fix / this time" in other languages
    r"|لهذا (?:التصحيح|الإصلاح|التغيير|المهمة|الطلب)|هذه المرة"
    r"|这次|本次|这个任务|这个修复|今回|このタスク|この修正|이번에?|이 작업"
    r"|(?:这个|這個|这次|此次|(?<![\u4e00-\u9fff])本)(?:重构|重構|阶段|階段|功能|页面|頁面|模块|模塊|需求)"
    r"|阶段[一二三四五六七八九十\d]|階段[一二三四五六七八九十\d]"
    # when this work starts: "开始开发" (start developing), "不准开始" (don't start), "我们先讨论" (let's first discuss)
    r"|开始(?:开发|实施|动手)(?!前|之前|以前|时|的时候)|(?:不准|不要|别)开始(?=$|\W|开发|写代码|实施|动手)"
    r"|先不开始|先不开发|先不要开发"
    r"|我们先(?:探讨|讨论|聊|看|分析|研究|确认|商量)"
    r"|для этой задачи|в этот раз|на этот раз|para esta (?:tarea|corrección)|esta vez|pour cette (?:tâche|correction)"
    r"|cette fois|für diese (?:aufgabe|änderung)|diesmal|dieses mal|desta vez|para esta tarefa"
    r"|\b(?:" + more.THIS_WORK + r")\b",
    re.I,
)
# no work this turn, an answer only: "不要做任何修改，只解释", "説明だけ", "no hagas cambios, solo explica" (unless said
# to last, or of whenever the user asks: "以后我提问的时候不要做任何修改", "cuando pregunto algo, solo explica")
_ANSWER_THIS_TIME = rx.compile(
    r"(?:不要|别|不用)(?:做|进行)?任何(?:修改|改动|更改|操作)|只(?:需要?)?(?:解释|说明|分析|回答|告诉我)|先回答"
    r"|(?:説明|回答|答え)(?:だけ|のみ)|何もしないで|(?:설명|답)만|아무것도 하지 ?마"
    r"|\bs[oó]lo (?:explica|responde|dime)\b|\bno hagas (?:ningún cambio|cambios|nada)\b"
    r"|\bexplique seulement\b|\bjuste (?:explique|expliquer|réponds)\b|\bne (?:fais|change|modifie|touche) rien\b"
    r"|\bnur (?:erklären|erkläre|antworten|beantworten)\b|\berkläre nur\b|\bkeine änderungen\b"
    r"|(?:просто|только) (?:объясни|ответь|расскажи)|ничего не (?:меняй|делай|трогай)",
    re.I,
)
_WHEN_I_ASK = rx.compile(
    r"我(?:提问|问问题|问)的?时候|(?:質問|聞いた)(?:する)?(?:とき|時)|질문할 때|\bcuando (?:pregunto|te pregunte)\b"
    r"|\bquand je (?:pose|demande)\b|\bwenn ich (?:frage|eine frage)\b|\bкогда я (?:спрашиваю|задаю)\b"
    r"|\bquando (?:eu )?pergunto\b|\bwhen(?:ever)? I ask\b",
    re.I,
)
# Read in the first clause only, where it qualifies the rule itself ("always run the linter, right now you keep
# forgetting" stays a rule): "don't push yet", "don't deploy right now", "don't start writing code".
_THIS_STAGE = rx.compile(
    r"^(?!.*\b(?:if|unless|when|until|before)\b).*\byet$|\bnot yet\b"
    r"|\b(?:right now|at this (?:point|stage)|at the moment|this time)\b"
    r"|^\W*(?:don'?t|dont|do not)\s+(?:start|begin)\s+\w+ing\b(?!.*\b(?:before|until|unless)\b)"
    r"|(?<!首)先不|暂时|暫時|目前先|还不要|還不要|先别|まだ(?![^、。]*(?:なら|たら|ければ))|今は|とりあえず|아직|일단"
    r"|\b(?:" + more.THIS_STAGE + r")\b",
    re.I,
)


_FIRST_CLAUSE_END = rx.compile(r",\s+|;\s+|\s+-\s+|[，、；]")


def for_this_work(sentence: str) -> bool:
    """Does the sentence steer only the work at hand ("don't touch the schema for this fix", "don't push yet")?"""
    first = _FIRST_CLAUSE_END.split(sentence.strip().rstrip(".!"), maxsplit=1)[0]
    if _THIS_WORK.search(sentence) or _THIS_STAGE.search(first):
        return True
    return bool(_ANSWER_THIS_TIME.search(sentence)) and not (OUTLASTS.search(sentence) or _WHEN_I_ASK.search(sentence))


_REMEMBER_LEAD = rx.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|and|also|but|please|pls|hey|oh|btw|fyi|note)[,.!:]*\s+)*(?:please\s+)?"
    r"(?P<lead>(?:" + REMEMBER + r")(?:\s+(?:this|that))?(?:\s+for (?:the )?(?:future|next time|later))?"
    r"|(?:note )?for (?:future reference|the future|next time))",
    re.I,
)
# words for this moment of the conversation: what is so now, not a fact to keep
_NOW_WORDS = rx.compile(
    r"\b(?:already|currently|still|right now|at the moment|today|so far|for now|step \d+)\b"
    r"|我们(?:在|正在)|现在|目前|已经|刚才|第[一二三四五六七八九十\d]+步|今は|いま|すでに|もう|지금|이미|현재",
    re.I,
)
# what the user said about this moment of the conversation, not a fact to keep
_ABOUT_NOW = rx.compile(
    r"^(?:i|we|i'm|we're|i've|we've|i'd|we'd)\b|^you (?:already|just|said|tried|did|were|asked|told|are)\b",
    re.I,
)


def _remembered(d: Directive) -> tuple[bool, bool]:
    """(keep, promote) for a "remember ..." directive: what follows the cue must be a fact or rule to keep, not the
    state of this conversation ("remember, we're on step 3"); it is promoted when the user asked for it to be kept
    ("remember this: X", "keep in mind that X", "for future reference, X") or it reads as a rule."""
    lead = _REMEMBER_LEAD.match(d.sentence)
    rest = phrasing.strip_openers(d.sentence)
    asked = d.cue == "remembered" or d.language != "en"  # "X. Remember that.", "记住：X"
    now = (_ABOUT_NOW.search(rest) and not phrasing.team_practice(rest)) or _NOW_WORDS.search(rest)
    if (not lead and not asked) or now or _NARRATIVE.search(rest):
        return False, False
    if not lead:
        return True, True  # the next sentence asked for this one to be remembered
    explicit = bool(
        re.search(r"(?:this|that|future|next time|later|reference|memory|memori[sz]e)$", lead.group("lead"), re.I)
    )
    return True, explicit or bool(_LASTING.search(rest))


def lasting(d: Directive) -> bool:
    """Does the directive read as a standing rule, not the task of its turn?

    "Use X, not Y", "never ...", "from now on ...", "I prefer ...", "every line must ...", "you have to ..." do;
    "I want the UI to be pretty" or "Remove the file tree by default" ask for this turn's work: stored, not promoted.
    """
    if d.cue in ("change", "convention") or for_this_work(d.sentence):
        return False  # a convention said bare reads like a one-off request too: it waits until said again
    if d.cue == "sequence" and re.match(
        r"^\W*(?:please\s+)?(?:update|change|make|set up|configure)\b", d.sentence, re.I
    ):
        return (
            False  # "Update the skill to run X before tests": an edit to a file this turn, which holds it from now on
        )
    if _OWN_NEED.search(d.sentence):
        return False  # "I don't need to view it here": what the user needs at this moment, not what the agent does
    if d.language == "en" and _weakly_lasting(d):
        return False
    if d.language in more.READ_HERE and d.cue not in ("future", "language") and not more.FROM_NOW_ON.search(d.sentence):
        return False  # these languages' cues read fewer shapes: a rule said without "from now on" waits for evidence
    words = _cue_clause(d.sentence) if d.cue == "must" and d.language == "en" else d.sentence
    return d.cue in _STRONG_CUES or d.language != "en" or bool(_LASTING.search(words))


# an edit of one thing to a new state: "change my setup to use X instead of Y", "let's convert the app to Z"
_ONE_TIME_EDIT = rx.compile(
    r"^\W*(?:(?:i|we)\s+(?:really\s+)?(?:want|need|would like|'d like)\s+to\s+|let'?s\s+|please\s+"
    r"|(?:can|could) you\s+)?(?:change|switch|convert|migrate|move|port|rewrite|update|modify|refactor)"
    r"\s+(?!to\b|over\b)(?:\S+\s+){1,4}?(?:to|into)\s",
    re.I,
)
# what the user wants of one thing of the work: "I want my search to look only within X"
_WANT_OF_ONE_THING = rx.compile(
    r"\bi\s+(?:really\s+)?(?:want|need|would like|'d like)\s+(?:my|our|the|this|that|it)\b", re.I
)
# a "use" that is a later step of the task the sentence opened with: "pull X into a variable and then use it ..."
_LATER_STEP = rx.compile(
    r"^\W*(?:please\s+)?(?!(?:always|never|use|prefer|don'?t|do not)\b)[a-z]+\b[^.!?]{3,80}?"
    r"\b(?:and(?:\s+then)?|then)\s+use\b",
    re.I,
)
# the user speaking of their own duty: "I shouldn't be accessing this page unless I'm logged in"
_OWN_DUTY = rx.compile(
    r"^\W*(?:(?:hm+|ok(?:ay)?|so|but|well|also|and)[,.!]*\s+)*i\s+(?:should|must|shall)(?:n'?t|\s+not|\s+never)?\s+\w+",
    re.I,
)


def _step_or_own_duty(d: Directive) -> bool:
    """ "Pull X into a variable and then use it ...", "I shouldn't be seeing this page unless I'm logged in": a step of
    this turn's edit, or the user telling how the work behaves for them (a problem report), no instruction to keep."""
    return (
        d.language == "en"
        and not OUTLASTS.search(d.sentence)
        and bool(_OWN_DUTY.search(d.sentence) or _LATER_STEP.search(d.sentence))
    )


# a question right after a want, whether it can be done at all: the user asks, nothing is decided yet
_IF_POSSIBLE = rx.compile(
    r"^\W*(?:(?:is|would) (?:that|this|it|something like that) (?:even )?(?:possible|doable|feasible|an option)"
    r"|(?:can|could) (?:we|you|that|this|it) (?:even )?(?:do|be done|handle|support)\b(?:\s+(?:that|this|it))?"
    r"|would (?:that|this|it) work)\b[^.!]*\?\s*$",
    re.I,
)


# a sentence that asks the agent for a change: "Can you update X so that ...", "Please add a flag for Y"
_ASKS_FOR_A_CHANGE = rx.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|now|and|also)[,.!]*\s+)?(?:(?:can|could|would|will) you\s+(?:please\s+)?|please\s+)?"
    r"(?:update|change|add|make|fix|refactor|rename|move|remove|create|write|implement|extend|adjust|rework)\b",
    re.I,
)


def _specifies_the_request(prompt: str, d: Directive) -> bool:
    """ "Can you update X so that it accepts Y. I want the second argument to be Z": the want spells out the change
    asked for just before in the same prompt, not how later work should go."""
    said = sentences(prompt)
    if d.cue != "want" or d.sentence not in said or OUTLASTS.search(d.sentence):
        return False
    return any(_ASKS_FOR_A_CHANGE.match(s) for s in said[: said.index(d.sentence)])


def _asked_if_possible(prompt: str, sentence: str) -> bool:
    said = sentences(prompt)
    after = [said[i + 1] for i, s in enumerate(said[:-1]) if s == sentence]
    return bool(after) and bool(_IF_POSSIBLE.match(after[0])) and not OUTLASTS.search(sentence)


def _weakly_lasting(d: Directive) -> bool:
    """Is it a change, want or duty of this piece of work, said without a word that makes it outlast the work?"""
    if OUTLASTS.search(d.sentence):
        return False
    if _ONE_TIME_EDIT.search(d.sentence) or _OWN_DUTY.search(d.sentence) or _LATER_STEP.search(d.sentence):
        return True
    return d.cue == "want" and bool(_WANT_OF_ONE_THING.search(d.sentence))


_CLAUSE_SPLIT = rx.compile(r"[,;:]\s+|\s+-\s+|\s+(?:but|and|so)\s+(?=(?:we|you|i|it|they)\b)", re.I)
_MUST_WORD = rx.compile(r"\b(?:must|has to|have to|needs? to be|should|shall)\b", re.I)


def _cue_clause(sentence: str) -> str:
    """The clause that holds "should"/"must": "we are not using X, we should use Y" -> "we should use Y"."""
    return next((c for c in _CLAUSE_SPLIT.split(sentence) if _MUST_WORD.search(c)), sentence)


# the user saying what they themselves need or want to do, not what the agent should do
_OWN_NEED = rx.compile(r"\bi\s+(?:don'?t|do not)\s+(?:need|want)\s+to\b(?!.*\b(?:always|never|from now on)\b)", re.I)


# a prompt that opens by asking for a piece of work ("Write a function ...", "Выведи числа ...", "写一个 ...")
_TASK_OPENING = rx.compile(
    r"^\W*(?:please\s+|pls\s+|can you\s+|could you\s+)?(?:write|create|implement|build|make|print|output|generate"
    r"|code|develop|solve|program)\b"
    r"|^\W*(?:напиши|напишите|выведи|выведите|реализуй|реализуйте|создай|создайте|сделай|сделайте)"
    r"|^\W*(?:请|請)?(?:帮我)?(?:写|寫|编写|實現|实现|创建|生成|输出|打印)"
    r"|(?:書いて|作って|実装して|出力して)(?:ください)?[。.]?$|(?:작성해|만들어|구현해|출력해)(?:\s?주세요|줘)?[.]?$"
    r"|^\W*(?:escribe|escriba|crea|cree|implementa|imprime|genera|écris|écrivez|crée|créez|implémente|affiche"
    r"|schreibe?|erstelle|implementiere|escreva|crie|implemente|imprima)\b|" + more.TASK_OPENING,
    re.I,
)


# a prompt that opens by sending the agent to one piece of work on the code ("Run the linter on X only.", "Fix the
# login bug.", "Update the parser to ..."): a "don't" that follows limits how to do that work
_WORK_OPENING = rx.compile(
    r"^\W*(?:please\s+|pls\s+|can you\s+|could you\s+)?(?:run|fix|refactor|update|add|review|validate|delegate"
    r"|migrate|rename|port|test)\b",
    re.I,
)


# how a CJK prompt lays out the spec of one request: a lenticular-bracket heading that names its part ("【需求二】",
# "【总体约束】", "【验证】", "【タスク】") or a lead-in to its steps ("请执行以下操作：", "完成以下所有工作")
_CJK_TASK_SPEC = rx.compile(
    r"【[^】\n]{0,16}(?:需求|任务|任務|要求|约束|約束|说明|說明|验证|驗證|验收|步骤|步驟|实现要点|實現要點|完成后|执行指令"
    r"|タスク|要件|手順|制約|検証)[^】\n]{0,16}】"
    r"|(?:执行|執行|完成|按照?|遵循)以下(?:所有|全部)?(?:的)?(?:操作|步骤|步驟|工作|任务|任務|修改|要求)"
    r"|以下の(?:手順|作業|タスク)"
)


# words that make a spec's lead-in lay down lasting rules ("本项目的编码规范，请遵循以下要求")
_CONVENTIONS = rx.compile(r"规范|規範|规则|規則|约定|約定|编码标准|編碼標準|规矩|ルール|規約|コーディング規約")


def _in_a_task_spec(prompt: str, d: Directive) -> bool:
    """Is the directive a line of a CJK prompt laid out as the spec of one request (bracketed part headings, or a
    lead-in to numbered steps), said without a word that makes it outlast the request? Its "不要"/"必须" are that
    request's limits; the same words typed as a standing rule carry "以后" (from now on)."""
    if d.language not in ("zh", "ja") or OUTLASTS.search(d.sentence):
        return False
    spec = _CJK_TASK_SPEC.search(prompt)
    if spec is None:
        return False
    # the lead-in's own line: "以后写代码请遵循以下要求：", "本项目的编码规范，请遵循…" lay down lasting rules
    line_end = prompt.find("\n", spec.end())
    lead = prompt[prompt.rfind("\n", 0, spec.start()) + 1 : line_end if line_end >= 0 else len(prompt)]
    return not (OUTLASTS.search(lead) or _CONVENTIONS.search(lead))


def _constrains_the_task(prompt: str, d: Directive) -> bool:
    """Is the directive a constraint on the piece of work its prompt opened with ("Write X. Don't use Y.", "Run the
    test agent on X only. Do not change the service unless a test fails."), said without a word that makes it
    outlast the prompt? After an exercise's opening ("write", "implement") "never" and "must" limit it too; after
    any other piece of work only a plain "don't" does: "Fix X. Never use Y." still reads as a rule."""
    said = sentences(prompt)
    if len(said) < 2 or said[0] == d.sentence or OUTLASTS.search(d.sentence):
        return False
    if _TASK_OPENING.search(said[0]):
        return d.cue in ("dont", "never", "must")
    return d.cue == "dont" and bool(_WORK_OPENING.search(said[0]))


# a verdict on the agent's last answer, opening a prompt: "That's almost right.", "Not quite.", "Closer, but"
_VERDICT = rx.compile(
    r"^\W*(?:(?:ok(?:ay)?|hmm+|yes|yeah|no)[,.!]*\s+)?(?:(?:that'?s|that is|this is|it'?s|it is)\s+)?"
    r"(?:almost|nearly|not quite|close|closer|better|much better|getting (?:closer|there)|partly|mostly)"
    r"(?:\s+(?:right|there|correct|working|done|it))?\s*(?:[.!,;:]|$|\s+but\b)",
    re.I,
)


def _corrects_the_answer(prompt: str, d: Directive) -> bool:
    """Does the prompt open with a verdict on the agent's last answer ("That's almost right. But X should only ..."),
    so that a "should" in it says how that piece of work should be, not a rule for later work?"""
    said = sentences(prompt)
    return bool(said) and bool(_VERDICT.match(said[0])) and not OUTLASTS.search(d.sentence)


# a first clause that asks for this turn's work: "帮我修复 X", "請幫我 ...", "이 버그 고쳐줘", "X를 만들어 주세요"
_REQUEST_CLAUSE = rx.compile(r"^\W*(?:请|請|麻烦你?|麻煩你?)?(?:帮我|幫我|帮忙|幫忙)|(?:줘|주세요|주십시오)\W*$")


# leave to go on without the user ("don't ask for permission", "don't wait for my approval", "proceed autonomously"):
# said to let one piece of work run; injected into every later session it would skip the confirmations they need
_AUTONOMY = rx.compile(
    r"\b(?:don'?t|dont|do not|no need to)\s+(?:ask(?:ing)?|wait(?:ing)?|check(?:ing)? (?:in|back))"
    r"(?:\s+(?:me|us))?\s*(?:for\s+(?:my\s+|any\s+)?(?:permission|approval|confirmation|input)|again|anything"
    r"|questions?)?\b|\bproceed (?:autonomously|without asking)\b|\bfull autonomy\b|\bon your own\b"
    r"|\b(?:don'?t|dont|do not|never)\s+stop\b(?=\s*(?:$|[.!,;]|until\b|till\b|before\b|now\b))"
    r"|(?:不要|别|不用|无需)(?:再)?(?:问我|确认|等我)|直接做|(?:質問|確認)しないで|聞かないで|묻지 말|물어보지 마"
    r"|не спрашивай|не жди (?:подтверждения|меня)|\bno (?:me )?preguntes\b|\bfrag (?:mich )?nicht\b"
    r"|\bne me demande pas\b",
    re.I,
)


def _limits_the_request(d: Directive) -> bool:
    """Is the rule a later clause of a sentence that opened by asking for this turn's work ("帮我修复登录页，不要修改
    API": fix the login page without touching the API), said without a word that makes it outlast the request?"""
    if d.language in ("en", "latin"):
        return False
    if d.language == "ja":
        return _limits_the_ja_request(d.sentence)
    first, *rest = re.split(r"[，,、；;]\s*", d.sentence.strip(), maxsplit=1)
    return bool(rest) and bool(_REQUEST_CLAUSE.search(first)) and not OUTLASTS.search(d.sentence)


# a Japanese clause that asks for this turn's work in the te-form ("調査して", "確認してください", "読んで"), not one
# that itself forbids ("使わないで", "やめて"); clauses often stand apart with a space, not a comma
_JA_REQUEST = rx.compile(
    r"(?<!すべ)(?<!全)(?<!つい)(?<!とし)(?<!よっ)(?<!対し)(?<!関し)(?<!初め)(?<!改め)(?<!決し)(?<!あえ)"
    r"(?:て|んで)(?:ください|下さい)?$"
)  # not "すべて" (all), "について" (about), "として" (as), "によって" (by): words that end in て too
_JA_FORBIDS = rx.compile(r"ないで|やめて|禁止")


def _limits_the_ja_request(sentence: str) -> bool:
    """ "…を調査して 副作用のあるコマンドは実行禁止" (look into it, running commands with side effects forbidden): the
    rule after a clause asking for this turn's work limits that work, unless a word makes it outlast the request."""
    clauses = [c for c in re.split(r"[，,、；;。\s]+", sentence.strip()) if c]
    asked = any(_JA_REQUEST.search(c) and not _JA_FORBIDS.search(c) for c in clauses[:-1])
    return asked and not OUTLASTS.search(sentence)


# a prompt that gives the agent a part to play: a name, a character, a persona ("you are Matt", "你就是我的助理小美")
_ROLE_CJK = rx.compile(r"你(?:就|现在|以后)?是我的|你(?:就|现在)是|扮演|假装你是|你叫|になりきって|役を演じ|역할을")
_ROLE_MORE = rx.compile(
    more.ROLE + r"|^(?:eres|du bist|tu es|você é|voce e) (?:un|una|ein|eine|mein|meine|mon|ma|um|uma|meu|minha|mi)\b"
    r"|^(?:eres|du bist|tu es|tu t'appelles|você é|voce e|dein name ist|te llamas|tu nombre es) (?-i:[A-Z][a-z]+)\W*$"
    r"|\b(?:actúa como|finge que|spiel die rolle|tu so, als|joue le rôle|fais comme si|aja como|finja que"
    r"|играй роль|веди себя как|представь,? что ты)\b|^ты [а-яё]+[.!]?$|^あなたは[^。]{1,20}です|になりきって"
    r"|^너는 [^.]{1,15}(?:이야|야)[.!]?$",
    re.I,
)
# how the part speaks or is called: said inside such a prompt, it is the play's, not the user's way of working
_PERSONA = rx.compile(
    # as a name or a character ("answer as Matt", "talk like a pirate"), not a manner ("as concisely as possible",
    # "as a bulleted list", "as JSON")
    r"\b(?:answer|respond|reply|talk|speak|write|act|sound)\s+(?:as|like)\s+(?:(?!(?i:markdown|json|yaml|html"
    r"|plain|english)\b)(?-i:[A-Z][a-z])\w*"
    r"|an? (?!(?:list|table|bullet|json|markdown|plain|short|single|senior)\b)\w+\W*$"
    r"|an? (?:pirate|cowboy|child|robot|knight|wizard|butler|barista|detective)\b)|\b(?:in|of|out of|break(?:ing)?)"
    r" character\b|\bcall (?:me|yourself)\b|\bstay in (?:role|character)\b|\bpersona\b"
    r"|叫我|称呼我|扮演|と呼んで|口調|として(?:答|話|振る舞)|のように話|처럼 (?:말|대답)"
    r"|\b(?:habla|responde|contesta|sprich|antworte|parle|réponds|fale|responda)(?:\s+\w+)?\s+(?:como|wie|als|comme"
    r"|en tant que)\b|(?:говори|отвечай)(?:\s+\w+)?\s+как",
    re.I,
)


def _casts_a_role(text: str) -> bool:
    """Does the prompt give the agent a part to play (a name, a character)?"""
    said = sentences(text)
    return any(_NARRATIVE.search(s) or _ROLE_MORE.search(s) for s in said) or bool(_ROLE_CJK.search(text))


def directive_rule(session: Session) -> list[Candidate]:
    """A rule the user gave the agent in a prompt: promoted at once, the user's words kept in the body.

    When the instruction is all the prompt asked and the agent then changed one to three files in the same turn,
    the body names them: where the rule took effect is context a later session (and the user) can check.
    """
    out: list[Candidate] = []
    for index, step in enumerate(session.steps):
        if step.kind != "prompt" or not step.text:
            continue
        document = len(step.text) > DOCUMENT_CHARS
        if (document and _HEADED.match(step.text)) or _PROMPT_FILE.match(step.text):
            continue  # a prompt file or spec ("# /deploy: ...", "## Task"): its rules are the file's, kept there
        if _SETS_A_PART.search(step.text):
            continue  # a part to play or a mode to be in: its rules are the part's
        listed = {
            " ".join(i.lower().split())
            for _h, status, items in rule_lists(step.text)
            if status != "bare"
            for i in items
        }
        cast = _casts_a_role(step.text)
        for d in directives(step.text, limit=3):
            if not _keep(d, document) or " ".join(d.sentence.lower().split()).rstrip(".;,") in listed:
                continue  # an item of a typed rule list is rule_list_rule's
            if cast and _PERSONA.search(d.sentence):
                continue  # "you are Matt ... always answer as Matt": how to play a part, not a rule for the work
            if for_this_work(d.sentence):
                continue  # it steers this piece of work only; said again in another session it still would
            if document and _TASK_LABEL.search(step.text) and not OUTLASTS.search(d.sentence):
                continue  # a long spec of one task ("Goal: ... Definition of Done: ..."): its limits are the task's
            if spec_item(step.text, d.sentence):
                continue  # an item of one task's spec ("Run-specific rules:", a list under "Task:", a file's notes)
            if (
                _step_or_own_duty(d)
                or _asked_if_possible(step.text, d.sentence)
                or _specifies_the_request(step.text, d)
            ):
                continue  # a step of this edit, a problem the user met, a want they ask is possible: no rule
            keep, standing = _remembered(d) if d.cue in ("remember", "remembered") else (True, lasting(d))
            if not keep:
                continue
            if not standing and d.language == "en" and _RESTATED.search(step.text.split(d.sentence, 1)[0]):
                standing = True  # "… still not corrected as I asked File paths should be …": said before, so a rule
            if standing and _in_a_task_spec(step.text, d):
                standing = False  # "【总体约束】不要修改…", "请执行以下操作：1. …": the spec of this request, stored
            if standing and _constrains_the_task(step.text, d):
                standing = False  # "Print 1 to 5. Don't use a for loop.": the exercise's rule, stored, not injected
            if (not standing or d.cue == "must") and _corrects_the_answer(step.text, d):
                continue  # "That's almost right. Now I want X bigger": how the answer at hand should be, no lesson
            if standing and _limits_the_request(d):
                standing = False  # "帮我修复 X，不要修改 API": how to do this request, stored, not injected
            if standing and _CASTS_AN_EXPERT.search(step.text) and not OUTLASTS.search(d.sentence):
                standing = False  # "You are a Senior Engineer. Build … Do not skip files.": the brief's, stored
            if standing and _GIVES_A_PART_IN_A_RUN.search(step.text) and not _FROM_NOW.search(d.sentence):
                standing = False  # "… Never paraphrase a quote. You are reviewer `coverage`": its "never" the run's
            if (
                standing
                and d.cue == "prefer"
                and _LOOK_OF_THE_PRODUCT.search(d.sentence)
                and not _FROM_NOW.search(d.sentence)
            ):
                standing = False  # "I prefer a dark theme for the dashboard": the product's look, stored, not injected
            if standing and d.language == "en" and _behaviour_of_the_product(d.sentence):
                standing = False  # "The queue must never exceed 100 songs": the product's spec, stored, not injected
            if standing and _AUTONOMY.search(d.sentence) and not OUTLASTS.search(d.sentence):
                standing = False  # "don't ask, proceed autonomously": leave to run this work, stored, not injected
            summary = _summary(d)
            context = _context_before(step.text, d.sentence) or _list_context(step.text, d.sentence)
            done = _first_sentence(step.answer)
            said = " ".join(sentences(step.text))  # the prompt without pasted code, logs and tables
            changed = _changed_after(session, index) if _sole_request(said, d.sentence) else []
            applied = ", ".join(changed) if 0 < len(changed) <= APPLIED_MAX else ""
            if applied and (subject := _subject_of(changed)):
                summary = _with_subject(summary, subject)
            failing = _failing_tool_named(session, index, d.sentence)
            if failing:
                summary = phrasing.fit(f"{summary.rstrip('.')} (when calling {failing})")
            terms = english_terms(d.sentence) if d.language != "en" else []
            content = (
                f'The user said: "{(d.lead + " ") if d.lead else ""}{d.sentence}"'
                + (f"\nIn English terms: {', '.join(terms)}" if terms else "")
                + (f'\nJust before: "{context}"' if context else "")
                + (f"\nApplied to: {applied}" if applied else "")
                + (f"\nSaid after {failing} failed in the turn before" if failing else "")
                + (f"\nThe agent then: {done}" if done else "")
            )
            language = " (in another language)" if d.language != "en" else ""
            out.append(
                Candidate(
                    kind=d.kind,
                    summary=summary,
                    content=content,
                    why=(
                        f"The user said this to the agent as a rule{language}."
                        if standing
                        else "The user stated this convention once, without saying it holds from now on."
                        if d.cue == "convention"
                        else f"The user asked for this in one turn{language}; not yet a standing rule."
                    ),
                    how_to_apply=(
                        "Follow it in later sessions"
                        + (" of this project." if d.scope == "project" else " everywhere.")
                    )
                    if standing
                    else "Keep to it in this project when it fits; it becomes a rule once the user says it again."
                    if d.cue == "convention"
                    else "It describes how this was left; follow it as a rule only once the user says it again.",
                    signals=["rule" if d.kind == "decision" else "preference"],
                    scope=d.scope,
                    weight=2.6 if d.cue in _STRONG_CUES and d.cue != "sequence" else 2.0,
                    promotion=INSTRUCTION if standing else "",
                )
            )
    return _latest_stands(out)


# words of tool names that say nothing of what the tool is for
_GENERIC_TOOL_WORDS = frozenset(
    "shell bash exec command read edit write multiedit apply patch grep glob task tool tools local container "
    "function functions run mcp view create update delete list search fetch file files".split()
)


def _tool_words(tool: str) -> set[str]:
    """The telling words of a tool's name ("memory__add_observations" -> memory, observations), cut to five letters
    so that "entity" meets "entities"."""
    words = re.split(r"[^a-z0-9]+", tool.lower())
    return {w[:5] for w in words if len(w) >= 4 and w not in _GENERIC_TOOL_WORDS}


def _failing_tool_named(session: Session, index: int, sentence: str) -> str:
    """The tool that failed in the turn before prompt ``index`` when the prompt names it ("you have to X before
    observations" after add_observations failed): the rule is about how to call that tool, and says so."""
    said = {w[:5] for w in re.findall(r"[a-z0-9]{4,}", sentence.lower())}
    for j in range(index - 1, -1, -1):
        step = session.steps[j]
        if step.kind == "prompt":
            break
        telling = _tool_words(step.tool) if step.kind == "action" and not step.ok else set()
        if len(telling & said) >= min(2, len(telling)) and telling:
            return step.tool.replace("__", "/")
    return ""


_DET = r"(?:(?:the|a|an|my|our|your|this|that)\s+)?"
_USES = rx.compile(r"\b(?:use|using|run|prefer|switch to|stick (?:to|with)|go with)\s+" + _DET + r"([\w.@/+-]+)", re.I)
_AVOIDS = rx.compile(
    r"(?:,\s*|\s)(?:not|instead of|rather than|over)\s+" + _DET + r"([\w.@/+-]+)"
    r"|\b(?:never|don'?t|do not|stop|avoid)\s+(?:use\s+|using\s+|run(?:ning)?\s+)" + _DET + r"([\w.@/+-]+)",
    re.I,
)


def _avoided(rule: str) -> set[str]:
    return {(a or b).lower().strip(".,") for a, b in _AVOIDS.findall(rule)} - {""}


def overturns(later: str, earlier: str) -> bool:
    """Does the rule ``later`` turn away from what the rule ``earlier`` uses ("Use pnpm, not npm" after "Use npm")?
    What ``earlier`` itself avoids is not used ("don't use npm, use pnpm" uses pnpm alone). A loose reading, for
    keeping two such rules apart (neither reinforces the other); `contradicts` is the strict one that retires."""
    avoided = _avoided(later)
    if not avoided:
        return False
    used = {u.lower().strip(".,") for u in _USES.findall(earlier)} - _avoided(earlier)
    return bool(used & avoided)


# a rule that is one tool choice and nothing else: "use A" / "use A, not B" / "never use B", with at most a scope
# after it ("for the frontend"); the tool is one token, so "npm audit fix" or "merge commits" is no choice of npm
_LEAD = r"^\W*(?:(?:always|from now on|going forward|please|in this (?:project|repo|repository))\W+)*"
_CHOICE_TOOL = r"([\w.@/+-]+)"
_CHOOSE = r"(?:use|prefer|switch to|stick (?:to|with)|go with)\s+"
_SWAP = rx.compile(
    _LEAD
    + _CHOOSE
    + _DET
    + _CHOICE_TOOL
    + r"(?:\s*,\s*not|,?\s+instead of|,?\s+rather than|\s+over)\s+"
    + _DET
    + _CHOICE_TOOL
    + r"(.*)$",
    re.I,
)
_SWAP_BACK = rx.compile(
    _LEAD
    + r"(?:don'?t|do not|never|stop|avoid)\s+(?:use|using)\s+"
    + _DET
    + _CHOICE_TOOL
    + r"\s*[,;]\s*"
    + _CHOOSE
    + _DET
    + _CHOICE_TOOL
    + r"(.*)$",
    re.I,
)
_USE_ONLY = rx.compile(_LEAD + _CHOOSE + _DET + _CHOICE_TOOL + r"(.*)$", re.I)
_NEVER_ONLY = rx.compile(
    _LEAD + r"(?:never|don'?t|do not|stop|avoid)\s+(?:use|using)\s+" + _DET + _CHOICE_TOOL + r"(.*)$", re.I
)
_SCOPE_START = rx.compile(
    r"^\s*(?:$|[,;:.!)]|(?:for|in|on|when|while|with|across|throughout|everywhere|here|from now on|going forward)\b)",
    re.I,
)
_NO_SCOPE = rx.compile(
    r"\b(?:in|for|across|throughout)\s+(?:this|the|our)\s+(?:project|repo|repository|codebase|workspace)\b"
    r"|\b(?:here|always|from now on|going forward|please|everywhere)\b",
    re.I,
)


def _choice(rule: str) -> tuple[str, str, str] | None:
    """(used, avoided, scope) of a rule that is one tool choice ("" where it names none), else None."""
    for pattern, used_at, avoided_at in ((_SWAP, 1, 2), (_SWAP_BACK, 2, 1), (_USE_ONLY, 1, 0), (_NEVER_ONLY, 0, 1)):
        found = pattern.match(rule.strip())
        if found is None:
            continue
        rest = found.group(found.lastindex or 0)
        if not _SCOPE_START.match(rest):
            return None  # more words of the tool's name ("npm audit fix"): not a choice of the tool
        used = found.group(used_at).lower().strip(".,") if used_at else ""
        avoided = found.group(avoided_at).lower().strip(".,") if avoided_at else ""
        scope = " ".join(w.strip(".") for w in re.findall(r"[\w.@/+-]+", _NO_SCOPE.sub(" ", rest).lower()))
        return used, avoided, scope
    return None


def contradicts(later: str, earlier: str) -> bool:
    """Does ``later`` take back the tool choice of ``earlier``: it avoids the tool ``earlier`` uses, or uses the one
    ``earlier`` avoids, where ``earlier`` held ("Use pnpm, not npm" after "Use npm, not yarn"; "Use npm" after
    "Use pnpm, not npm")? A later rule limited to a scope the earlier did not name ("never use Docker in CI" after
    "use Docker for local dev") leaves it standing; so does anything but one tool choice."""
    mine, theirs = _choice(later), _choice(earlier)
    if mine is None or theirs is None:
        return False
    used, avoided, scope = mine
    clash = (avoided and avoided == theirs[0]) or (used and used == theirs[1])
    return bool(clash) and (not scope or scope == theirs[2])


def _latest_stands(found: list[Candidate]) -> list[Candidate]:
    """Later evidence wins: a rule the user took back later in the session ("use npm", then "use pnpm, not npm")
    is dropped; the later statement stays, as does the later of the same rule said twice (it may say why it holds)."""
    kept: list[Candidate] = []
    for cand in found:
        said_again = cand.summary.lower()
        if any(k.summary.lower() == said_again and k.promotion and not cand.promotion for k in kept):
            continue  # said first as a rule, then again inside a request: the rule stands
        kept = [k for k in kept if not contradicts(cand.summary, k.summary) and k.summary.lower() != said_again]
        kept.append(cand)
    return kept


def _what_was_rejected(step: Step) -> str:
    """A few words naming the rejected call: the plan's title, the file, or the command."""
    from automem.extract.intent import intent_of

    if step.tool.lower() == "exitplanmode":
        title = re.search(r"#\s*([^\n\\#]{4,60})", step.input)
        return f'the plan "{title.group(1).strip()}"' if title else "the plan"
    intent = intent_of(step.tool, step.input)
    if intent.targets:
        return f"{step.tool} of {intent.targets[0].rsplit('/', 1)[-1]}"
    if intent.main is not None:
        return f"`{intent.main.name()}`"
    return step.tool or "a tool call"


def _call_gist(raw: str, limit: int = 160) -> str:
    """A rejected call's input as text: the first text field of a JSON input (a plan), without its JSON syntax."""
    import json

    text = raw
    if raw.lstrip().startswith("{"):
        try:
            value = json.loads(raw)
            text = next((v for v in value.values() if isinstance(v, str) and v.strip()), raw)
        except (ValueError, AttributeError):
            text = re.sub(r'\\n|[{}"\\]', " ", re.sub(r'^\s*\{\s*"\w+"\s*:\s*', "", raw))  # cut: no JSON
    text = " ".join(re.sub(r"(?:^|(?<=\s))#+\s+", "", " ".join(text.replace("\\n", "\n").split())).split())
    return text[:limit].rsplit(" ", 1)[0] + " …" if len(text) > limit else text


_USE_ONE = rx.compile(r"^\W*(?:no[,.!]?\s+)?(?:please\s+)?use\s+([A-Za-z][\w.+-]{1,30})(?:\s+instead)?\W*$", re.I)
_NOT_A_TOOL = frozenset({"sudo", "it", "this", "that", "them", "tabs", "spaces", "english", "the", "a", "an"})
# tools that do one job, so that naming one instead of another is a swap
_SAME_JOB = (
    frozenset({"pip", "pip3", "pipx", "poetry", "pipenv", "conda", "mamba", "micromamba", "uv", "pdm", "hatch", "rye"}),
    frozenset({"npm", "yarn", "pnpm", "bun", "npx", "bunx", "pnpx"}),
    frozenset({"jest", "vitest", "mocha", "ava"}),
    frozenset({"pytest", "unittest", "nose2", "ward"}),
    frozenset({"docker", "podman", "nerdctl"}),
    frozenset({"grep", "rg", "ag", "ack", "git-grep"}),
    frozenset({"find", "fd"}),
    frozenset({"curl", "wget", "http", "xh"}),
    frozenset({"python", "python3", "py"}),
    frozenset({"make", "just", "task", "mise"}),
    frozenset({"eslint", "biome", "oxlint"}),
    frozenset({"black", "ruff", "autopep8", "yapf"}),
    frozenset({"prettier", "biome", "dprint"}),
    frozenset({"tsc", "tsgo"}),
    frozenset({"webpack", "vite", "esbuild", "rollup", "parcel", "turbopack", "rspack"}),
)


def redirect_rule(session: Session) -> list[Candidate]:
    """ "use uv", typed right after the user stopped a `pip install`, when the agent then ran uv: "Use uv, not pip".
    The tool the user named must run later in the session; otherwise it may not be a tool at all."""
    out: list[Candidate] = []
    for index, step in enumerate(session.steps):
        if step.kind != "prompt" or not step.after_interrupt:
            continue
        said = _USE_ONE.match(" ".join(step.text.split()))
        wanted = said.group(1).lower() if said else ""
        if not wanted or wanted in _NOT_A_TOOL:
            continue
        stopped = next((j for j in range(index - 1, -1, -1) if session.steps[j].kind == "action"), None)
        main = session.intent(stopped).main if stopped is not None else None
        if main is None or not main.program or main.program == wanted:
            continue
        was = main.args[1].lower() if main.program.startswith("python") and main.args[:1] == ["-m"] else main.program
        if was == wanted or not any(wanted in family and was in family for family in _SAME_JOB):
            continue  # "use uv" after `python -m pytest`: uv is no python; only a tool for the same job is a swap
        ran = any(
            session.steps[j].kind == "action"
            and session.steps[j].ok
            and any(c.program == wanted or c.runner.split(" ")[0] == wanted for c in session.intent(j).commands)
            for j in range(index + 1, len(session.steps))
        )
        if not ran:
            continue
        out.append(
            Candidate(
                kind="decision",
                summary=phrasing.fit(f"Use {wanted}, not {was}"),
                content=f'The user stopped `{main.text[:120]}` and said: "{step.text.strip()[:120]}"; the agent '
                f"then ran {wanted}.",
                why="The user stopped the agent to switch it to this tool.",
                how_to_apply=f"Reach for {wanted} where {was} would have been used, in this project.",
                signals=["correction"],
                scope="project",
                weight=2.2,
                promotion=INSTRUCTION,
            )
        )
    return out


def rejection_rule(session: Session) -> list[Candidate]:
    """A rejected tool call whose feedback says what to do instead: the user's decision."""
    out: list[Candidate] = []
    for step in session.steps:
        if step.kind != "rejection" or len(step.text.strip()) < 8:
            continue
        feedback = _clean(step.text)
        if _ERRORISH.search(feedback) or feedback.endswith("?"):
            continue
        what = _what_was_rejected(step)
        vague = bool(_VAGUE.search(feedback))  # "set that as ..." points into the rejected call: a candidate only
        summary = phrasing.fit(f"On {what}, the user said: {feedback}") if vague else phrasing.imperative(feedback)
        out.append(
            Candidate(
                kind="decision",
                summary=summary,
                content=f'The user rejected {what} and said: "{feedback}"\nRejected call: {step.tool} '
                f"{_call_gist(step.input)}",
                why="The user stopped the agent's call and said what to do instead.",
                how_to_apply="Follow the user's choice when the same step comes up again.",
                signals=["correction"],
                scope=scope_of(feedback, "decision"),
                weight=2.5,
                promotion=INSTRUCTION if not vague and _standing(feedback) else "",
            )
        )
    return out


def _standing(feedback: str) -> bool:
    """Does a rejection's feedback state a rule ("use X, not Y", "never ..."), not only this step's choice
    ("Super shift alt t should open btop")?"""
    if for_this_work(feedback):
        return False
    return bool(_LASTING.search(feedback)) or any(
        lasting(d) for d in directives(feedback, limit=2) if d.cue not in ("must", "want", "default")
    )


_FACT_SHAPE = rx.compile(r"\b(?:is|are|was|were|isn'?t|aren'?t|lives?|located|installed|uses?|runs?|not)\b", re.I)
_NOT_A_FACT = rx.compile(
    r"^(?:why|what|how|when|where|who|which|is|are|does|do|did|can|could|would|will|please|ok|yes|no)\b", re.I
)


# what the user says of the agent's work at that moment, rather than a fact about the project or the machine
_ABOUT_THE_WORK = rx.compile(
    r"\b(?:you|your|you'?re|you'?ve)\b|^(?:it|that|this)(?:'s|\s+is|\s+was)?\s+(?!is\s+an?\b)(?:not|still|broken|wrong"
    r"|working|failing|done|fine|better|worse|good|bad)\b|^(?:that|this)\s+(?:file|one|thing|part|change|code)\b"
    r"|\b(?:not working|doesn'?t work|isn'?t working|broken|wrong|still fail\w*|still broken|not what i)\b",
    re.I,
)


def correction_rule(session: Session) -> list[Candidate]:
    """What the user typed right after stopping the agent, when it states a fact ("Teams is installed as a pwa")."""
    out: list[Candidate] = []
    for step in session.steps:
        if step.kind != "prompt" or not step.after_interrupt:
            continue
        said = _clean(step.text.strip())
        if not 12 <= len(said) <= 160 or said.endswith("?") or _NOT_A_FACT.match(said) or not _FACT_SHAPE.search(said):
            continue
        text = phrasing.capitalized(phrasing.strip_openers(said))  # "wait, the tests are in x" -> "The tests are in x"
        if _ABOUT_THE_WORK.search(text) or _NOW_WORDS.search(text):
            continue  # "you are editing the wrong file", "the server is already running": this turn, not a fact
        if _LOCATION.search(text):
            continue  # where a thing lives: the location rule's, which also knows when it names no lasting place
        if _VAGUE.search(text) or _ERRORISH.search(text) or directives(text):
            continue  # a directive is the directive rule's; a pointer to "that" means nothing later
        out.append(
            Candidate(
                kind="observation",
                summary=phrasing.fit(text),
                content=f'The user stopped the agent and said: "{said}"',
                why="The user interrupted the agent to correct its course with this fact.",
                how_to_apply="Start from this fact instead of rediscovering it.",
                signals=["correction"],
                scope="project",
                weight=2.2,
                promotion=INSTRUCTION,
            )
        )
    return out


_PATH = r"(?:~?[\w.-]*/)+[\w.-]+|[\w-]+\.(?:conf|json|ya?ml|toml|ini|md|env|cfg|lock|txt)\b"
_LOCATION = rx.compile(
    r"\b(?:there(?:'s| is| are) (?:an? |the |my )?[\w -]{0,40}?(?:at|in|under)"
    r"|(?:is|are|lives?|located|kept|stored|sits?) (?:at|in|under|inside)"
    r"|(?:file|folder|directory|dir|config) (?:is )?(?:at|in|under))\s+(?:the )?(?P<path>" + _PATH + ")",
    re.I,
)
_TROUBLE = rx.compile(r"\b(?:error|bug|issue|problem|typo|crash|fail\w*|wrong|broken|exception)s?\b", re.I)


def location_statement(sentence: str) -> str:
    """'there is a settings file at conf/app.toml' -> that clause; where the user says a thing lives."""
    match = _LOCATION.search(sentence)
    if not match or match.group("path").startswith(("http", "www.")) or "://" in sentence:
        return ""
    before = sentence[max(0, match.start() - 40) : match.start()]
    if _TROUBLE.search(before) or _TROUBLE.search(match.group(0)[:40]):
        return ""  # "the bug is in x.py", "there's a typo in x.md" point at a one-off problem, not where a thing lives
    lead = match.group(0).split(None, 1)[0].lower()  # "file" when the match began at "file is at"
    subject = before + lead if lead in ("file", "folder", "directory", "dir", "config") else before
    if _VAGUE_SUBJECT.search(subject) or _VAGUE_THERE.match(match.group(0)):
        return ""  # "the file is at x", "the component is in y": which one, only this turn knew
    if _FLEETING.search(sentence) or _FLEETING_PLACE.search(match.group("path")):
        return ""  # "I put the file in /tmp/x", "the screenshot is at ~/Desktop/a.png", "check the file at x": now only
    start = sentence.rfind(" ", 0, max(0, match.start() - 30)) + 1 if match.start() > 30 else 0
    return sentence[start : match.end()].strip()


# a subject that names nothing out of its turn: "the file", "the new version", "this component"
_VAGUE_THING = (
    r"(?:(?:new|old|other|same|first|second|updated|current|right|correct)\s+)?(?:file|component|function|method"
    r"|class|code|script|thing|one|version|change|logic|part|page|line|test|snippet|module|implementation|helper)"
)
_VAGUE_SUBJECT = rx.compile(
    r"(?:^|\b(?:and|but|so|no|ok|okay|oh|wait)\W+)\W*(?:the|this|that|its|a)\s+" + _VAGUE_THING + r"\s*$", re.I
)
_VAGUE_THERE = rx.compile(r"there(?:'s| is| are) (?:an? |the )?" + _VAGUE_THING + r"\s+(?:at|in|under)\b", re.I)
# a thing handed over for this turn, or a request to look at it, rather than where something lives
_FLEETING = rx.compile(
    r"^\W*(?:please\s+)?(?:check|look at|see|open|read|fix|edit|review|use|try|run)\b"
    r"|\bi(?:'ve| have)?\s+(?:just\s+)?(?:put|saved|added|dropped|uploaded|attached|copied|moved|pasted|exported)\b"
    r"|\b(?:screenshot|screen shot|image|picture|photo|attachment|export|output|dump|recording)s?\b",
    re.I,
)
_FLEETING_PLACE = rx.compile(
    r"^(?:/tmp/|/var/folders/|/private/tmp/|~/Downloads/|~/Desktop/|[A-Za-z]:[\\/]Users[\\/][^\\/]+[\\/](?:Downloads|Desktop)"
    r"|.*[\\/]Temp[\\/]|%TEMP%)",
    re.I,
)
_IT_IS_AT = rx.compile(r"\bit(?:'s| is) (?:at|in|under) (?P<path>\S.{2,120})$", re.I)
_GOES_TO = frozenset({"cd", "set-location", "push-location", "pushd", "sl"})


def _pointed_place(session: Session, index: int) -> str:
    """After "it's at <path>" typed right after stopping the agent: the folder the agent then went to, when it ends
    in the same name the user gave (the user's own spelling is often partial: "user /Documents/VAULT")."""
    step = session.steps[index]
    match = _IT_IS_AT.search(" ".join(step.text.split()))
    if not (step.after_interrupt and match):
        return ""
    name = re.split(r"[/\\]", match.group("path").strip().rstrip("/\\."))[-1].lower()
    if len(name) < 3:
        return ""
    for j in range(index + 1, min(len(session.steps), index + 4)):
        later = session.steps[j]
        if later.kind != "action":
            break
        went = session.intent(j).cwd or next(
            (next(iter(c.positional), "") for c in session.intent(j).commands if c.program.lower() in _GOES_TO), ""
        )
        if went and went.rstrip("/\\").lower().endswith(name):
            spelled = re.search(
                rf"(?:[A-Za-z]:[\\/]|~|/)[^\s;'\"|&]*?{re.escape(name)}(?![\w-])", later.raw or later.input, re.I
            )  # as written (the parsed form loses backslashes)
            return spelled.group(0) if spelled else went
    return ""


_ABOUT_PROJECT = rx.compile(r"\b(?:this|the|our)\s+(?:repo|repository|project|codebase|app)\b|\bin here\b", re.I)
_HOME_DOTFILE = rx.compile(
    r"(^|\s)(\.(?:config|local|ssh|cache|aws|kube|gnupg|docker)/|\.(?:bashrc|zshrc|profile|gitconfig"
    r"|npmrc|bash_profile)\b)"
)


def location_rule(session: Session) -> list[Candidate]:
    """The user saying where something lives ("there is a keybindings file at .config/hypr/bindings.conf")."""
    from automem.extract.directives import sentences

    out: list[Candidate] = []
    for index, step in enumerate(session.steps):
        if step.kind != "prompt":
            continue
        pointed = _pointed_place(session, index)
        if pointed:
            name = re.split(r"[/\\]", pointed.rstrip("/\\"))[-1]
            out.append(
                Candidate(
                    kind="observation",
                    summary=phrasing.fit(f"{name} is at {pointed}, not where the agent starts"),
                    content=f'The user stopped the agent and said: "{_clean(step.text)}"\nThe agent then: went to '
                    f"{pointed}",
                    why="The agent was looking in the wrong folder; the user said where this is.",
                    how_to_apply=f"Go to {pointed} first instead of searching from the start folder.",
                    signals=["correction"],
                    scope="project",
                    weight=1.9,
                    promotion=INSTRUCTION,
                )
            )
            continue
        for sentence in sentences(step.text):
            if sentence.endswith("?") or not 12 <= len(sentence) <= 240:
                continue
            place = location_statement(sentence)
            if not place:
                continue
            if not _ABOUT_PROJECT.search(sentence):  # ".config/hypr/x.conf" is the home's, wherever the agent is
                place = _HOME_DOTFILE.sub(r"\1~/\2", place)
            summary = phrasing.location(_clean(place)) or phrasing.fit(
                phrasing.capitalized(phrasing.strip_openers(_clean(place)))
            )
            out.append(
                Candidate(
                    kind="observation",
                    summary=summary,
                    content=f'The user said: "{_clean(sentence)}"',
                    why="The user said where this lives; the agent did not know.",
                    how_to_apply="Look there first instead of searching.",
                    signals=["correction"],
                    scope="project",
                    weight=1.9,
                    promotion=INSTRUCTION,
                )
            )
            break
    return out


_MAPPING_LINE = rx.compile(r"^(?:[-*]\s+)?(\S[\w./@, -]{0,99}?)\s*(?:->|→|=>)\s*([\w./@-]{1,80})(?:\s+\([^()\n]*\))?$")


def mapping_rule(session: Session) -> list[Candidate]:
    """Three or more "a -> b" lines typed by the user: where things go (a layout, a renaming)."""
    out = []
    for index, step in enumerate(session.steps):
        if step.kind != "prompt" or "```" in step.text:
            continue
        lines = [
            line.strip()
            for line in step.text.splitlines()
            if len(line) <= 300 and ("->" in line or "→" in line or "=>" in line)
        ]
        found = [(m.group(1), m.group(2)) for m in map(_MAPPING_LINE.match, lines) if m]
        pairs = [(a.strip(), b.strip()) for a, b in found if "/" in a + b or "." in a + b]
        if len(pairs) < 3:
            continue
        arrows = [f"{a} -> {b}" for a, b in _moved_later(session, index, pairs)]
        out.append(
            Candidate(
                kind="decision",
                summary=phrasing.listing("The user's layout for files", arrows),
                content="The user laid out where each part goes:\n" + "\n".join(f"- {arrow}" for arrow in arrows[:20]),
                why="The user spelled out the mapping line by line: a decision, not a suggestion.",
                how_to_apply="Put new and moved files where this layout says.",
                signals=["rule"],
                scope="project",
                weight=2.4,
                promotion=INSTRUCTION,
            )
        )
    return out


_MOVE = rx.compile(r"^\W*(?:now\s+|then\s+|please\s+)?move\s+@?(\S+?)\s+(?:back\s+)?(?:in)?to\s+@?(\S+?)[.!]?$", re.I)


def _moved_later(session: Session, index: int, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The layout as it ended: a later "move utils/config.ts to src/" takes config.ts out of its item and gives
    it its own line (later evidence wins)."""
    pairs = list(pairs)
    for step in session.steps[index + 1 :]:
        if step.kind != "prompt":
            continue
        move = _MOVE.match(" ".join(step.text.split()))
        if not move:
            continue
        name = move.group(1).rstrip("/").rsplit("/", 1)[-1]
        for i, (left, right) in enumerate(pairs):
            items = [item.strip() for item in left.split(",")]
            if name in items:
                rest = ", ".join(item for item in items if item != name)
                pairs[i : i + 1] = ([(rest, right)] if rest else []) + [(name, move.group(2).rstrip("/") + "/")]
                break
    return pairs


def _option_text(option: str) -> str:
    """An offered option as a statement: "Or convert X into Y?" -> "Convert X into Y" (the offer's "or" and "?" go)."""
    return _clean(re.sub(r"^(?:or|and)\s+", "", option.strip(), flags=re.I)).rstrip("?？ ")


def choice_rule(session: Session) -> list[Candidate]:
    """The user picking one of the options the agent offered ("2", or the option's text)."""
    out = []
    prompts = [s for s in session.steps if s.kind == "prompt"]
    for at, step in enumerate(prompts):
        if not step.offered:
            continue
        if at + 1 < len(prompts) and prompts[at + 1].after_interrupt:
            continue  # the user stopped the work the pick started: the next prompt says what they want instead
        reply = step.text.strip().rstrip(".")
        picked = ""
        if re.fullmatch(r"\d", reply) and 1 <= int(reply) <= len(step.offered):
            picked = step.offered[int(reply) - 1]
        elif re.fullmatch(r"[A-I]", reply) and ord(reply) - ord("A") < len(step.offered):
            picked = step.offered[ord(reply) - ord("A")]  # "C" picks the third of options labelled A), B), C)
        elif 8 <= len(reply) <= 200:
            picked = next((o for o in step.offered if o.strip().lower() == reply.lower()), "")
        if not picked or len(picked) < 12:
            continue
        others = [_option_text(o) for o in step.offered if o != picked]
        replied = f'the user replied "{reply}", picking: ' if reply.isdigit() else "the user picked: "
        out.append(
            Candidate(
                kind="decision",
                summary=phrasing.fit("Chosen by the user: " + _option_text(picked)),
                content=f"The agent offered {len(step.offered)} options; {replied}{_option_text(picked)}\n"
                + "Not chosen: "
                + "; ".join(phrasing.fit(o, 80) for o in others[:4]),
                why="The user chose this among the options the agent offered.",
                how_to_apply="Keep to this choice when the same question comes up.",
                signals=["rule"],
                scope="project",
                weight=1.5,
            )
        )
    return out


_DEFERS = rx.compile(
    r"^(?:you recommend|your (?:call|choice|pick)|you (?:decide|choose|pick)|up to you|either|any|other|none|skip"
    r"|not sure|later|not yet|whatever|doesn'?t matter|no preference|need to (?:check|test|verify|look)"
    r"|(?:no,?\s*)?(?:i\s+)?ha(?:ve)?n'?t (?:tested|checked|tried|looked)|not (?:tested|checked|tried) yet)\b"
    r"|^\W*(?:yes|no|yeah|yep|nope|ok(?:ay)?|sure|cancel|continue|proceed|go ahead|done)\W*$"
    r"|^\W*(?:commit|push|merge|deploy|release|publish|run|start|stop)\b"
    r"|推荐|随便|都行|你来|你决定|お?まかせ|お任せ|任せ|추천|알아서",
    re.I,
)
_RECOMMENDED = rx.compile(
    r"\s*\((?:recommended|推荐|推奨|추천|recomendad[oa]|recommandée?|empfohlen|рекомендуется|рекомендую)\)", re.I
)


ANSWER_MAX = 300  # a typed answer of a few sentences is still the user's choice; a longer one is a document


def asked_choice_rule(session: Session) -> list[Candidate]:
    """What the user picked when the agent asked through a question tool (AskUserQuestion): one candidate decision
    per round of questions, leaving out a question where the user left the choice to the agent."""
    out = []
    for step in session.steps:
        picks = [
            (header or question, question, picked, others)
            for header, question, raw_pick, others in step.answers
            if (picked := _RECOMMENDED.sub("", raw_pick).strip())
            and len(picked) <= ANSWER_MAX
            and not _DEFERS.search(picked)
            and not re.search(r"[?？]", picked)
            and not for_this_work(picked)
        ]
        if not picks:
            continue
        listed = [f"{phrasing.fit(topic, 60)}: {phrasing.fit(picked, 80)}" for topic, _q, picked, _o in picks]
        lines = [
            f'Asked "{question[:300]}", the user picked "{picked}"'
            + (f" (not: {'; '.join(o[:60] for o in others[:4])})" if others else "")
            for _t, question, picked, others in picks
        ]
        out.append(
            Candidate(
                kind="decision",
                summary=phrasing.listing("Chosen by the user", listed)
                if len(listed) > 1
                else f"Chosen by the user: {listed[0]}",
                content="\n".join(lines),
                why="The user chose this when the agent asked.",
                how_to_apply="Keep to these choices when the same questions come up.",
                signals=["rule"],
                scope="project",
                weight=1.5,
            )
        )
    return out


TOPIC_SHARE = 0.2  # a word in this share of the prompts is what the session is about
MIN_PHRASE_SHARE = 0.3  # a habit's words come together in at least this share of the prompts using either
_STOP = frozenset(
    "the a an and or to of in on for with it this that is are be i you we me my our your can do don't not no "
    "please just then so if at as by from all also now there here what how why when which its it's was were "
    "make sure add update".split()
    # words that frame an ask, whatever it asks for: "lets look at X", "yes please remove Y", "we should use Z"
    + "lets let's yes yeah yep okay should must need needs want wants i've i'm i'll we're we've that's wait".split()
)
_NOISE_TOKEN = rx.compile(r"^(?:#?[0-9a-f]{6}|#?[0-9a-f]{3}|\d+[%\w]*)$", re.I)
_CONTENT_WORD = rx.compile(r"[A-Za-z][\w./@-]{3,}")
_FILLER = frozenset(
    "that this what with have just really think would could should there their about horrible right "
    "wrong again actually maybe thing stuff good great nice look looks like doesn't isn't".split()
)


def _informative(sentence: str) -> bool:
    tokens = sentence.split()
    if not tokens or sum(bool(_NOISE_TOKEN.match(t.strip(",.;:!"))) for t in tokens) * 4 > len(tokens):
        return False
    words = [w for w in _CONTENT_WORD.findall(_PROFANITY.sub("", sentence)) if w.lower() not in _FILLER]
    return len(words) >= 2


_OBJECT_PRONOUN = rx.compile(r"(?<![\w'])(?:it|them|this|that)(?![\w'])", re.I)
_FILE_TOKEN = rx.compile(r"@?[\w.-]*/[\w./-]+|\b[\w-]+\.[a-z]{1,5}\b")


def _named_object(clean: str, pair: tuple[str, str], examples: list[str]) -> str:
    """ "Read it in full" becomes "Read the file in full" when the user's other asks named a file in that place."""
    pronoun = _OBJECT_PRONOUN.search(clean)
    if not pronoun:
        return clean
    between = re.compile(rf"\b{re.escape(pair[0])}\b(.*?)\b{re.escape(pair[1])}\b", re.I)
    named = sum(1 for e in examples if (m := between.search(e)) and _FILE_TOKEN.search(m.group(1)))
    if not named:
        return clean
    return clean[: pronoun.start()] + "the file" + clean[pronoun.end() :]


_THE_FILE = rx.compile(r"\bthe (?:\w+ )?file\b", re.I)


def _each_time(summary: str, examples: list[str]) -> str:
    """ "Read the file in full", asked each time of another file -> "When asked to read a file, read the file in
    full": the habit holds for whatever file comes next, and "the file" alone would name none."""
    named = {m.group(0).lstrip("@").lower() for e in examples for m in _FILE_TOKEN.finditer(e)}
    if len(named) < 2 or not _THE_FILE.search(summary):
        return summary
    verb = summary.split()[0].lower()
    return phrasing.fit(f"When asked to {verb} a file, {verb}{summary[len(verb) :]}")


def _tool_for(session: Session, request: str) -> str:
    """The tool the agent most often called with success whose name shares a telling word with the request ("note
    progress in memory" -> the memory MCP server): what the request means in this setup."""
    said = {w[:5] for w in re.findall(r"[a-z0-9]{4,}", request.lower())}
    used = Counter(
        step.tool for step in session.steps if step.kind == "action" and step.ok and _tool_words(step.tool) & said
    )
    if not used:
        return ""
    tool = used.most_common(1)[0][0]
    parts = [p for p in tool.split("__") if p and p != "mcp"]
    return f"the {parts[0]} MCP server" if "__" in tool and len(parts) > 1 else tool


def _with_tool(summary: str, tool: str) -> str:
    return phrasing.fit(f"{summary} (with {tool})") if tool else summary


_CARRY_ON = frozenset(
    "until completed complete completion done finish finished continue proceed remaining next resume".split()
)


# acts that reach past the working tree or stop what runs (push, deploy, merge, restart, delete): asked for again and
# again, they are the user deciding when; "do this without being asked" would take that from them
_USERS_CALL = frozenset(
    "commit push deploy publish release merge tag upload send email post restart stop kill shutdown delete drop "
    "reset rollback revert".split()
)


_CARRY_ON_TEXT = rx.compile(
    r"\b(?:until (?:it'?s |it is )?(?:completed?|done|finished)|keep going|carry on"
    r"|get (?:this|it|that) (?:resolved|done|fixed|working|finished))\b",
    re.I,
)


_SHELL_PROMPT = rx.compile(r"^\s*(?:[➜❯λ$%#>]\s|\S+@\S+[:~]|\S+\s+git:\()")  # a pasted terminal line, not a request


def _typo_map(spread: Counter) -> dict[str, str]:
    """Words typed once with two neighbouring letters swapped ("reda", "remoev") -> the word the user types in
    three prompts or more; two real words a swap apart ("form", "from") are both typed more than once."""
    out: dict[str, str] = {}
    for word, count in spread.items():
        if len(word) < 4:
            continue
        for i in range(len(word) - 1):
            swapped = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
            if swapped != word and count == 1 and spread.get(swapped, 0) >= 3:  # "form"/"from": both typed often
                out[word] = swapped
                break
    return out


_DESCRIBES = rx.compile(r"^(?:the|a|an|this|that|these|those|it|its|our|my)\b", re.I)
_ASKS = rx.compile(r"\b(?:should|must|need|needs|want|wants|has to|have to|please)\b", re.I)


def _untypo(sentence: str, typed: dict[str, str]) -> str:
    if not typed:
        return sentence

    def fixed(match: re.Match) -> str:
        word = match.group(0)
        right = typed.get(word.lower(), word)
        return right[:1].upper() + right[1:] if word[:1].isupper() else right

    return re.sub(r"[A-Za-z][a-z'-]+", fixed, sentence)


def _one_name_asked_different_things(pair: tuple[str, str], options: list[str]) -> bool:
    """ "Run the release prompt", "update the release prompt", "which step of the release prompt": the pair is the
    name of one thing, written as one phrase each time, and every prompt asks something else of it."""
    phrase = re.compile(rf"\b{re.escape(pair[0])}\W+{re.escape(pair[1])}\b", re.I)
    openers = [s.split()[0].lower() for s in options if s.split()]
    return all(phrase.search(s) for s in options) and len(set(openers)) == len(openers)


def _resent(earlier: str, later: str) -> bool:
    """The later prompt repeats the earlier one, corrected or extended (a typo fixed, a name added): the user
    sending one request again, not asking for it anew."""
    a, b = " ".join(earlier.lower().split()), " ".join(later.lower().split())
    shorter = min(len(a), len(b))
    common = len(os.path.commonprefix([a, b]))
    return shorter >= 20 and common >= 0.8 * shorter


def _once_each(steps: list[Step]) -> list[Step]:
    """The session's prompts, a prompt resent before the agent did anything counted once, as its last version."""
    out: list[Step] = []
    acted = False
    for step in steps:
        if step.kind != "prompt":
            acted = acted or step.kind == "action"
            continue
        if out and not acted and _resent(out[-1].text, step.text):
            out[-1] = step
        else:
            out.append(step)
        acted = False
    return out


# the user telling what they did, are doing or must do themselves ("I ran the importer again and ...", "I've just
# added the logos", "I need to renew my key"): a report or their own errand, not something they ask of the agent
_SELF_TOLD = rx.compile(
    r"^\W*(?:(?:wait|ok(?:ay)?|so|also|and|but|now|well)[,.!]*\s+)*i(?:'ve|'m| have| am| had)?\s+"
    r"(?:just\s+|already\s+|also\s+)?(?!(?:want|'d|would|prefer|like|love|need you|expect|always|never)\b)[a-z]+",
    re.I,
)
# a name from the code ("retryLimit", "max_items"): asks about it are asks for one change of the code
_CODE_NAME = rx.compile(r"^(?:[a-z]+[A-Z]\w*|[A-Za-z]+_\w+)$")


def _names_code(pair: tuple[str, str], options: list[str]) -> bool:
    return any(
        _CODE_NAME.match(token) and token.lower() in pair
        for s in options
        for token in re.findall(r"[A-Za-z][A-Za-z0-9_]+", s)
    )


def _asks_apart(options: list[str]) -> int:
    """How many separate asks the sentences are: one long sentence (eight words or more, paths aside) found in several
    prompts is one task sent again, edited or rerun ("We must write new exercises for the exam in X, as you can see",
    three times with other details after it), however much the agent did in between; a short ask said again ("run
    the tests first") counts each time."""
    said = Counter(" ".join(re.findall(r"\w+", re.sub(r"\S*[/@.\\]\S*", " ", s.lower()))) for s in options)
    return sum(1 if len(words.split()) >= 8 else n for words, n in said.items())


_LOWER_WORD = rx.compile(r"[a-z][a-z0-9_'-]+")


def repeated_request_rule(session: Session, min_prompts: int = 3, max_items: int = 2) -> list[Candidate]:
    """A request the user makes in three prompts or more is a habit, however they phrase it.

    Counted as pairs of words close together (within five words) in one sentence of at least three
    prompts; the shortest such sentence becomes the memory. A pair with a word the user writes in
    many other prompts too (the session's topic) is the subject of the work, not a habit.
    """
    from automem.extract.directives import sentences

    prompts = [s for s in _once_each(session.steps) if len(s.text) <= 2000]
    counts: Counter = Counter()
    spread: Counter = Counter()
    where: dict[tuple[str, str], list[str]] = {}
    for step in prompts:
        spread.update(set(_LOWER_WORD.findall(step.text.lower())))
    typed = _typo_map(spread)
    for step in prompts:
        pairs: set[tuple[str, str]] = set()
        for sentence in sentences(step.text):
            if sentence.rstrip().endswith("?"):
                continue
            # paths, addresses and file names, a Windows path with its backslashes too, are no words of a request
            plain = re.sub(r"\S*[/@.\\]\S*", " ", _PROFANITY.sub("", sentence.lower()))
            words = [typed.get(w, w) for w in re.findall(r"[a-z][a-z0-9_'-]+", plain)]
            for i, a in enumerate(words):
                if a in _STOP or len(a) < 3:
                    continue
                for b in words[i + 1 : i + 6]:
                    if b not in _STOP and len(b) >= 3 and b != a and (a, b) not in pairs:
                        pairs.add((a, b))
                        where.setdefault((a, b), []).append(_untypo(sentence, typed))
        counts.update(pairs)
    topics = {w for w, k in spread.items() if k >= max(5, TOPIC_SHARE * len(prompts)) and w not in _STOP}
    out: list[Candidate] = []
    used: set[str] = set()
    for pair, n in counts.most_common(8):
        if n < min_prompts or len(out) >= max_items:
            break
        if n < MIN_PHRASE_SHARE * max(spread[pair[0]], spread[pair[1]]):
            continue
        if _CARRY_ON & set(pair):
            continue  # "... until completed", "continue with the next": the user driving the task on, not a habit
        if _USERS_CALL & set(pair):
            continue  # "commit and push", "deploy to staging", "restart the server": the user says when, each time
        options = [
            s
            for s in where[pair]
            if not _HEDGE.search(s)
            and not _OPINION.search(s)
            and not re.match(r"^(?:if|when|once|so|because)\b|.*\bcould be\b", s, re.I)
            and not _SHELL_PROMPT.match(s)
            and not _SELF_TOLD.match(s)
        ]
        if len(options) < 2 or _one_name_asked_different_things(pair, options):
            continue  # one sentence left that asks for it is no habit
        if n - (len(options) - _asks_apart(options)) < min_prompts:
            continue  # the same long sentence in several prompts: one task sent again (edited, rerun), not a habit
        if _names_code(pair, options):
            continue  # "make retryLimit optional", asked again: one change of the code, not a habit
        sentence = min(options, key=len)
        clause = next(
            (c for c in re.split(r",\s+|;\s+", sentence) if pair[0] in c.lower() and pair[1] in c.lower()), sentence
        )
        if _SELF_TOLD.match(clause):
            continue  # "X can't find my files, i get this error": the clause that holds the pair is a report
        clean = _named_object(_clean(clause), pair, options)
        tokens = [t.strip(",.;:!").lower() for t in clean.split()]
        if any(t in topics or _NOISE_TOKEN.match(t) for t in tokens):
            continue
        if _CARRY_ON_TEXT.search(clean):
            continue
        if _DESCRIBES.match(clean) and not _ASKS.search(clean):
            continue  # "The thinking level colors are too intense": a complaint about this turn's result, not a request
        if clean.lower() in used or len(clean.split()) < 3 or not _informative(clean) or _VAGUE.search(clean):
            continue
        if all(w[:1].isupper() or w[:1].isdigit() for w in clean.split()):
            continue  # "Chrome Extension Manifest V3": a name from a pasted list, asking for nothing
        used.add(clean.lower())
        out.append(
            Candidate(
                kind="preference",
                summary=_with_tool(_each_time(phrasing.imperative(clean), options), _tool_for(session, clean)),
                content=f'The user asked for "{pair[0]} … {pair[1]}" in {n} prompts, e.g.: "{clean[:300]}"',
                why=f"Asked in {n} separate prompts of one session: a habit of this user, not a one-off.",
                how_to_apply="Do this without being asked.",
                # the user's words for one task, repeated: a candidate until another session asks for it again
                signals=["preference"],
                scope=scope_of(clean, "preference"),
                weight=2.1,
            )
        )
    return out


_DOC_FILE = rx.compile(r"(?<![\w/])[\w./-]*[\w-]\.md\b", re.I)
_RECORD_VERB = rx.compile(
    r"\b(?:create|add|write|keep|put|update|log|record|track)\b[^.!?]{0,60}?\b(?:plan|code "
    r"?map|notes?|docs?|documentation|log|checklist|changelog|todo(?: list)?|to-do list|decisions?)\b"
    r"|\b(?:plan|code ?map|notes|checklist|changelog|todo list|decisions)\s+(?:in|to|into)\s+\S+\.md\b",
    re.I,
)


_RECORD_NOUN = rx.compile(
    r"\b(?:(?:implementation|refactor(?:ing)?|project|design|migration|release|decision)\s+)?"
    r"(?:plan|code ?map|notes|checklist|log|documentation|changelog|todo list|to-do list|decisions)\b",
    re.I,
)


def _paths_blanked(text: str) -> str:
    """The text with each Markdown file named in it as "file.md": a record word inside a file's name
    ("orchestration-log.md", "notes.md") names the file, not a record the user asked to keep in it."""
    return _DOC_FILE.sub("file.md", text)


def _record_summary(clause: str) -> str:
    """ "createa full implementation plan in docs/refactor.md" -> "The implementation plan is kept in docs/refactor.md":
    what lasts is where the record lives, not the request to write it."""
    named = re.sub(r"^\W*(?:please\s+)?(?:log|record|track)\s+", "", clause, flags=re.I)  # "log every decision in"
    noun, where = _RECORD_NOUN.search(_paths_blanked(named)) or _RECORD_NOUN.search(named), _DOC_FILE.search(named)
    if not noun or not where:
        return ""  # no record named ("add a todo to README.md"): a change to a file, this turn's
    thing = noun.group(0).lower()
    verb = "are" if thing.endswith("s") and not thing.endswith("ss") else "is"
    return phrasing.fit(f"The {thing} {verb} kept in {where.group(0)}; keep it up to date")


# a record written once, for this turn: a summary of the changes, a report of findings
_ONE_OFF_RECORD = rx.compile(r"\b(?:summary|summari[sz]e|report|findings|results|output|answer)\b", re.I)


_PATH_TOKEN = rx.compile(r"[^\s\"'`()<>]*\.md\b", re.I)


def _outside_project(clause: str, root: str) -> bool:
    """Does the clause name its .md file by a path of this machine (home, drive, absolute) outside the project?"""
    from automem.extract.usable import generalize

    home_or_root = ("~", "/", "$", "%", "\\")
    for token in _PATH_TOKEN.findall(clause):
        windows = re.match(r"[A-Za-z]:[\\/]", token)
        if not (windows or token.startswith(home_or_root)) or token.startswith(("./", ".\\")):
            continue  # docs\plan.md, .\docs\plan.md: inside the project, however the slashes lean
        spelt = re.sub(r"^(?:\$HOME|\$\{HOME\}|%USERPROFILE%)(?=[\\/])", "~", token)
        if root and generalize(spelt, root).startswith(("./", ".\\")):
            continue  # the project's own folder, spelt out in full or from the home folder (~/shop/docs/plan.md)
        return True
    return False


def doc_file_rule(session: Session) -> list[Candidate]:
    """The file the user picks to keep a plan, a code map or notes in ("create a plan in docs/refactor.md")."""
    from automem.extract.directives import sentences

    out: list[Candidate] = []
    for step in session.steps:
        if step.kind != "prompt":
            continue
        for sentence in sentences(step.text):
            if (
                not _DOC_FILE.search(sentence)
                or not _RECORD_VERB.search(_paths_blanked(sentence))
                or sentence.endswith("?")
                or not 12 <= len(sentence) <= 400
                or re.match(r"^(?:why|what|how|is|are|does|do|can)\b", sentence, re.I)
                or _ONE_OFF_RECORD.search(sentence)
            ):
                continue
            clause = next(
                (
                    c
                    for c in re.split(r";\s+|,\s+(?:and\s+)?|\)\s*,?\s*and\s+", sentence)
                    if _DOC_FILE.search(c) and _RECORD_VERB.search(_paths_blanked(c))
                ),
                "",
            )
            if clause and _outside_project(clause, session.root):
                continue  # "~/notes/todo.md", "C:\\Users\\me\\plan.md": a file of this machine, not of the project
            # no one clause names both the record and its file ("write a plan, persist it, then write an AGENTS.md"):
            # the file may hold something else
            summary = _record_summary(_clean(clause)) if clause else ""
            if not summary:
                continue
            out.append(
                Candidate(
                    kind="decision",
                    summary=summary,
                    content=f'The user said: "{_clean(sentence)}"',
                    why="The user chose the file where this is written down (a plan, a map, notes).",
                    how_to_apply="Keep that file up to date, and read it first when picking the work up again.",
                    signals=["rule"],
                    scope="project",
                    weight=2.0,
                    promotion=INSTRUCTION,
                )
            )
            break
    return out


_STACK_LABEL = rx.compile(
    r"\b(?:language|lang|framework|front-?end|back-?end|server|client|ui|database|db|storage|cache|queue|auth\w*|identity"
    r"|real-?time|api|orm|runtime|platform|hosting|host|deploy\w*|infra\w*|cloud|ci|cd|build|bundler|package manager"
    r"|testing|tests?|styling|css|state|routing|mobile|desktop|observability|monitoring|logging|dashboards?|metrics"
    r"|tracing|search|messaging|payments?|email|container\w*|orchestration|editor|os|shell|llm|model|ai|embeddings?"
    r"|vector\w*|analytics|stack|tooling|lint\w*|format\w*|docs?)\b",
    re.I,
)
_ITEM_SPLIT = rx.compile(r"(?:^|\s)[-*•]\s+|\n")
_CHOICE_ITEM = rx.compile(r"^([A-Z][\w/&+.-]*(?: [\w/&+.-]+){0,2}):\s+([^:\n]{2,80}?)\s*$")


def stack_rule(session: Session) -> list[Candidate]:
    """A list of "- Label: choice" items the user typed (Language: TypeScript, Backend: Express, ...): their stack."""
    out: list[Candidate] = []
    for step in session.steps:
        if step.kind != "prompt" or "```" in step.text:
            continue
        items: list[tuple[str, str]] = []
        for part in _ITEM_SPLIT.split(step.text):
            match = _CHOICE_ITEM.match(part.strip())
            if match and match.group(1).lower() not in {label.lower() for label, _v in items}:
                items.append((match.group(1), match.group(2).rstrip(".,;")))
        if len(items) < 4 or any("e.g." in v or "i.e." in v for _l, v in items):
            continue  # examples and explanations are a spec's prose, not a list of choices
        if sum(bool(_STACK_LABEL.search(label)) for label, _v in items) * 5 < len(items) * 3:
            continue  # "Status: done, Owner: me, Priority: high": a ticket's fields, not the parts of a stack
        if sum(len(v.split()) <= 6 for _l, v in items) < 0.6 * len(items):
            continue
        listed = [f"{label}: {value}" for label, value in items]
        if any(c.content.endswith("\n".join(listed[:12])) for c in out):
            continue  # the same list pasted again
        out.append(
            Candidate(
                kind="decision",
                summary=phrasing.listing("The user's choices", listed),
                content="The user chose, item by item:\n" + "\n".join(listed[:12]),
                why="The user listed these choices for the project themselves.",
                how_to_apply="Build with these choices; ask before swapping one out.",
                signals=["rule"],
                scope="project",
                weight=2.3,
                promotion=INSTRUCTION,
            )
        )
    return out


_RULES_HEAD = rx.compile(
    r"^(?:#{1,6}\s*)?(?P<kind>(?:(?:some|my|our|a few|few|general|coding|code|project|team|house|ground|working"
    r"|development|dev|style|build|building)\s+)*)(?:rules|guidelines|conventions|principles|coding standards)"
    r"(?P<qual>\s+(?:while|when|for|in)\s+[^:]{1,50}?)?\s*:?\s*$",
    re.I,
)
_OWNER_WORD = rx.compile(
    r"\b(?:my|our|general|coding|code|project|team|house|ground|working|development|dev|style)\b", re.I
)
_STANDING_QUAL = rx.compile(
    r"^\s*(?:while|when) (?:building|working|coding|developing|writing|making)\b"
    r"|^\s*(?:for|in) (?:this|the|our|my) (?:project|repo|repository|codebase|app|team|code)\s*$",
    re.I,
)
_TASK_LABEL = rx.compile(
    r"^\W*(?:task|goal|objective|expected(?: result| output)?|deliverables?|scope|definition of done"
    r"|acceptance criteria)\s*:",
    re.I | re.M,
)
_WRITE_A_DOC = rx.compile(
    r"\b(?:create|write|make|generate|draft|add|update)\b[^.\n]{0,60}\b(?:file|doc|document|readme|section|page"
    r"|[\w-]+\.md)\b",
    re.I,
)
_RULE_ITEM = rx.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+(?P<item>\S.*)$")
_CHECKBOX = rx.compile(r"^\[[ xX]\]")
# how a rule starts: an imperative or a negation ("Plan first", "No unrelated refactors", "Keep X simple")
_RULE_START = rx.compile(
    r"^(?:no|not|never|always|only|don'?t|do|avoid|keep|prefer|use|write|add|run|make|plan|touch|work|return|follow"
    r"|test|commit|document|ask|check|explain|be|stay|limit|put|name|handle|log|validate|create|update|remove|split"
    r"|reuse|before|after|when|each|every|one|all|ensure|include|start|stop|read|respond|reply|answer)\b",
    re.I,
)


def rule_lists(text: str) -> list[tuple[str, str, list[str]]]:
    """(heading, status, items) for each heading such as "Coding rules:" typed over two or more short rule-like
    items. The status says whose rules they are: "standing" (the heading names the project or the way of working:
    "Coding rules", "Rules while building the app"), "task" (one request's limits: a bare "Rules:" in a prompt that
    states its task, or "Rules for this task"), "document" (content of a file the prompt asks to write), or "bare"
    (a bare "Rules:" heading, nothing else to tell)."""
    lines = (text or "").splitlines()
    found: list[tuple[str, str, list[str]]] = []
    in_fence = False
    for at, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        head = None if in_fence else _RULES_HEAD.match(line.strip())
        if not head:
            continue
        items: list[str] = []
        for later in lines[at + 1 :]:
            item = _RULE_ITEM.match(later)
            if not item:
                break  # a blank line or prose ends the list
            items.append(item.group("item").rstrip().rstrip(".;,"))
        rules = [i for i in items if len(i) <= 100 and 2 <= len(i.split()) <= 15 and not i.endswith("?")]
        if (
            len(items) < 2
            or len(rules) < len(items)
            or any(_CHECKBOX.match(i) or "`" in i for i in items)
            or sum(bool(_RULE_START.match(i)) for i in items) * 2 < len(items)
        ):
            continue
        qual = head.group("qual") or ""
        if _WRITE_A_DOC.search("\n".join(lines[:at])):
            status = "document"
        elif qual and not _STANDING_QUAL.match(qual):
            status = "task"
        elif qual or _OWNER_WORD.search(head.group("kind")):
            status = "standing"
        else:
            status = "task" if _TASK_LABEL.search(text) else "bare"
        found.append((line.strip().lstrip("# ").rstrip(": "), status, items))
    return found


# stems of five letters, so "refactor" meets "refactors" and "unrelated" itself; words every rule has are left out
_COMMON_STEMS = frozenset(
    {"not", "the", "and", "any", "all", "for", "don", "new", "with", "from", "this", "that", "your"}
)


def _stems(item: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]{3,}", item.lower())} - _COMMON_STEMS


def _restates(item: str, others: list[str]) -> bool:
    """Does one of others say the same ("Do not refactor unrelated files" / "No unrelated refactors")?"""
    mine = _stems(item)
    return any(len(mine & (theirs := _stems(o))) >= max(1, 0.6 * min(len(mine), len(theirs))) for o in others)


# a list heading that scopes the list to one run or task: "Run-specific rules:", "Constraints for this task:"
_THIS_RUN_HEAD = rx.compile(
    r"\b(?:run|task|job|request|ticket|exercise|assignment)[- ]specific\b"
    r"|\b(?:for|of|in) (?:this|the current|today'?s) (?:run|task|job|request|ticket|exercise|assignment)\b",
    re.I,
)


def spec_item(text: str, sentence: str) -> bool:
    """Is the sentence an item of a headed list in a prompt that specifies one piece of work: a list whose heading
    scopes it to this run ("Run-specific rules:"), a list in a prompt that labels its task ("Task: ..."), or a list
    in a prompt that asks for a document, whose content the list describes ("create a CLAUDE.md file ... Usage
    notes: - Don't include X")? Such items are the work's spec, not rules for later sessions."""
    lines = (text or "").splitlines()
    key = " ".join(sentence.split()).rstrip(".;,")[:60]
    for at, line in enumerate(lines):
        if not _RULE_ITEM.match(line) or key not in " ".join(line.split()):
            continue
        up = at - 1
        while up >= 0 and _RULE_ITEM.match(lines[up]):
            up -= 1
        heading = lines[up].strip() if up >= 0 else ""
        if not heading.endswith(":"):
            return False
        return bool(
            _THIS_RUN_HEAD.search(heading) or _TASK_LABEL.search(text) or _WRITE_A_DOC.search("\n".join(lines[:up]))
        )
    return False


def rule_list_rule(session: Session) -> list[Candidate]:
    """Rules the user typed as a list under a heading that says whose they are ("Coding rules:", "Rules while
    building the app:"): one memory holding them all, promoted. A bare "Rules:" heading is often one task's limits
    ("Task: ... Rules: ... Expected result: ..."), so it is not stored. Lists typed later in the session restate the
    rules: their items come first, and an earlier item they say again in other words is left out."""
    lists: list[tuple[str, list[str]]] = []
    for step in session.steps:
        if step.kind != "prompt" or not step.text:
            continue
        lists.extend((heading, items) for heading, status, items in rule_lists(step.text) if status == "standing")
    if not lists:
        return []
    items: list[str] = []
    for _heading, listed in reversed(lists):
        later = list(items)  # only a later list restates: two items of one list are both the user's
        items.extend(i for i in listed if not _restates(i, later))
    heading = lists[-1][0]
    named = re.sub(r"^(?:some|my|our|a few|few)\s+", "", heading, flags=re.I)
    headings = ", then ".join(f"“{h}”" for h in dict.fromkeys(h for h, _i in lists))
    return [
        Candidate(
            kind="decision",
            summary=phrasing.listing("The user's " + named[:1].lower() + named[1:], items),
            content=f"The user typed, under {headings}:\n" + "\n".join(f"- {i}" for i in items[:12]),
            why="The user listed these as the rules for working on this project.",
            how_to_apply="Follow every one of them in later sessions of this project.",
            signals=["rule"],
            scope="project",
            weight=2.4,
            promotion=INSTRUCTION,
        )
    ]


_ON_PURPOSE = rx.compile(
    r"\b(?:i|we)(?:'ve| have)?\s+(?P<act>set|made|configured|disabled|enabled|turned (?:off|on)|blocked|denied|left"
    r"|put|added|removed|pinned|kept|changed|renamed|excluded|commented out)\b(?P<what>[^.;!?]{3,120}?)\s+"
    r"(?:on purpose|intentionally|deliberately)\b(?P<why>[^.;!?]*)",
    re.I,
)
_LEAVE_IT = rx.compile(
    r"\b(?:nothing to (?:fix|change)|leave (?:it|that|them|this)\b|no need to (?:fix|change)"
    r"|(?:don'?t|do not) (?:touch|change|fix|revert|undo|remove)\b)",
    re.I,
)


def deliberate_setting_rule(session: Session) -> list[Candidate]:
    """ "I set the read permission to deny on purpose, so that ...": a setting the agent may take for a fault is the
    user's choice. Promoted when the user also says to leave it ("nothing to fix there")."""
    out: list[Candidate] = []
    for step in session.steps:
        if step.kind != "prompt" or not step.text or len(step.text) > DOCUMENT_CHARS:
            continue
        for sentence in sentences(step.text):
            match = _ON_PURPOSE.search(sentence)
            if not match or sentence.rstrip().endswith("?"):
                continue
            what = " ".join(match.group("what").split())
            if re.fullmatch(r"(?:it|that|this|them|those|these|one)(?: up| out| in| off| on| there| so)?", what, re.I):
                continue  # "I set it on purpose": the thing is named only in the talk before
            reason = match.group("why").strip(" ,")
            out.append(
                Candidate(
                    kind="decision",
                    summary=phrasing.fit(f"The user {match.group('act').lower()} {what} on purpose; leave it as it is"),
                    content=f'The user said: "{_clean(sentence)}"',
                    why="The user said it is deliberate" + (f": {reason}" if reason else "."),
                    how_to_apply="Do not change or fix it; ask the user first if it seems to be in the way.",
                    signals=["rule"],
                    scope="project",
                    weight=2.0,
                    promotion=INSTRUCTION if _LEAVE_IT.search(step.text) else "",
                )
            )
            break
    return out

"""The one rule table both redaction tiers share (standard library only).

The capture hooks import this through redact/fast.py, so it must stay cheap:
patterns compile lazily, on the first text that holds one of their needles.
A rule fires only where a cheap literal needle occurs (``str.find``), then a
regex is matched at that spot; texts without any needle cost one scan each.

Rule kinds:
- vendor prefixes (``ghp_``, ``AKIA``, ``xoxb-`` ...): the regex starts at the needle;
- windowed shapes whose needle sits inside the secret (``:AA`` of a Telegram token):
  the regex is searched in a small window around the needle;
- key/value assignments (``password=``, ``"api_key": "..."``, ``--token x``, ``<password>``,
  ``name: X / value: Y``): the key is found from a keyword, then classified, and only
  its value is replaced, so the key stays readable.
An allow-list (placeholders, template references, documented example keys,
already-redacted text) keeps look-alikes intact. Markers are ``[REDACTED:<rule>]``.
"""

from __future__ import annotations

import bisect
import math
import re

from automem import lazy_re, regex_cache

MARKER_RX = lazy_re.compile(r"\[REDACTED(?::[a-z0-9-]+)?\]")

# ---------------------------------------------------------------- allow-list

# Keys published in vendor documentation as examples; they must survive untouched.
DOCUMENTED_EXAMPLES = frozenset(
    {
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "xoxb-not-a-real-token-this-will-not-work",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
        "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
    }
)

PLACEHOLDER_WORDS = frozenset(
    """password passwd pass pwd secret secrets token apikey api_key key test testing tests admin administrator
    root postgres mysql guest user username changeme changeit change_me change-me replaceme replace-me replace_me
    todo tbd fixme example sample dummy fake placeholder none null nil undefined true false empty default
    required optional string str value redacted hidden masked removed foo bar baz foobar qwerty letmein
    123456 12345678 123456789 password1 password123 abc123 mypassword yourpassword secret123 s3cr3t
    env unset missing n/a na""".split()
)

# Placeholder words count only as whole words (delimited), so a random token that happens
# to spell "fake" inside its body is still a secret.
_PLACEHOLDER_RX = lazy_re.compile(
    r"(?i)(?:^|[^a-z0-9])(?:your|example|examples|sample|placeholder|changeme|change[_-]me|replace[_-]?me|replace|dummy"
    r"|fake|not[_-]?a[_-]?real|notreal|insert|redacted|masked|abc123|123456|todo|here)(?:[^a-z0-9]|$)"
    r"|<[^>]*>|\*{3,}|\.\.\.|…|•|█|EXAMPLE"
)
_TEMPLATE_RX = lazy_re.compile(
    r"^(?:\$\{|\$\(|\$[A-Za-z_]|\{\{|\{%|%\(|%[A-Za-z_][\w.]*%|@@|!vault|#\{|<%|\[\[)|\$\{[^}]*\}|\{\{.*\}\}"
)
_SAME_CHAR_RX = lazy_re.compile(r"^(.)\1*$")
_NON_ALNUM_RX = lazy_re.compile(r"[^A-Za-z0-9]+")
_SEP_RX = lazy_re.compile(r"[:@/._-]+")


def is_allowed(value: str) -> bool:
    """True for values that are not secrets: placeholders, templates, redactions, documented examples."""
    v = value.strip().strip("\"'`")
    if len(v) < 3:
        return True
    if v in DOCUMENTED_EXAMPLES or MARKER_RX.search(v):
        return True
    low = v.lower()
    if low in PLACEHOLDER_WORDS or _SAME_CHAR_RX.match(v):
        return True
    if _TEMPLATE_RX.search(v) or _PLACEHOLDER_RX.search(v):
        return True
    if v[0] == "<" or v[-1] == ">":
        return True  # one end of a <placeholder> (curl -u <user:password>)
    core = _NON_ALNUM_RX.sub("", v)
    if len(set(core.lower())) <= 1:
        return True  # 00000000-0000-0000-0000-000000000000, SG.xxxx.xxxx
    parts = [p for p in _SEP_RX.split(low) if p]
    if len(parts) > 1 and all(p in PLACEHOLDER_WORDS for p in parts):
        return True  # USERNAME:PASSWORD, user:pass
    x = sum(1 for c in v if c in "xX*")
    return x * 2 >= len(v)


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    if not n:
        return 0.0
    return math.log2(n) - sum(c * math.log2(c) for c in map(value.count, set(value))) / n


_RANDOM_CHARS = lazy_re.compile(r"[A-Za-z0-9+/=_.~-]+")
_HAS_DIGIT = lazy_re.compile(r"\d")
_HAS_ALPHA = lazy_re.compile(r"[A-Za-z]")


def looks_random(value: str, min_len: int = 16) -> bool:
    """Machine-made: long, token alphabet, letters and digits mixed, high entropy."""
    return (
        len(value) >= min_len
        and _RANDOM_CHARS.fullmatch(value) is not None
        and _HAS_DIGIT.search(value) is not None
        and _HAS_ALPHA.search(value) is not None
        and entropy(value) >= 3.0
    )


def looks_strong(value: str) -> bool:
    """A human password: 8+ chars, letters and digits, plus mixed case or a symbol."""
    if len(value) < 8 or not _HAS_DIGIT.search(value) or not _HAS_ALPHA.search(value):
        return False
    has_upper = any(c.isupper() for c in value)
    has_lower = any(c.islower() for c in value)
    has_symbol = any(not c.isalnum() for c in value)
    return (has_upper and has_lower) or has_symbol


def looks_tokenish(value: str) -> bool:
    """An opaque credential after Bearer/token: digits in it, or long and mixed case."""
    if len(value) < 8:
        return False
    if _HAS_DIGIT.search(value) and _HAS_ALPHA.search(value):
        return True
    return len(value) >= 16 and any(c.isupper() for c in value) and any(c.islower() for c in value)


# ---------------------------------------------------------------- keys

_KEY_WORD_RX = lazy_re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_STRONG_LAST = {
    "password": "password",
    "passwd": "password",
    "pwd": "password",
    "passphrase": "password",
    "pass": "password",
    "passcode": "password",
    "requirepass": "password",
    "masterauth": "password",
    "secret": "secret",
    "token": "token",
    "apikey": "api-key",
    "credential": "credential",
    "credentials": "credential",
    "pat": "token",
}
_STRONG_SUFFIX = (
    ("password", "password"),
    ("passwd", "password"),
    ("secret", "secret"),
    ("token", "token"),
    ("apikey", "api-key"),
)
_STRONG_KEY_QUALIFIERS = {
    "api": "api-key",
    "secret": "secret",
    "private": "private-key",
    "access": "secret",
    "auth": "secret",
    "priv": "private-key",
}
_DENY_WORDS = frozenset(
    """public publishable pub page pagination next prev max min total input output count num number
    limit len length size expires expiry expiration ttl type types hash hashed digest checksum fingerprint
    idempotency cache sort partition primary foreign routing lookup row unique composite map dict object
    name names file path dir url uri endpoint id ids format policy prefix header field label hint reset
    confirmation confirm strength validation validator policy rule rules env var enabled disabled required
    length min usage used budget window rotation store manager provider kind mode method bucket schema""".split()
)


def key_words(key: str) -> list[str]:
    return [w.lower() for w in _KEY_WORD_RX.findall(key)]


def classify_key(key: str) -> tuple[str, str] | None:
    """('strong'|'weak', marker name) for secret-holding keys, else None."""
    words = key_words(key)
    if not words or len(key) > 80:
        return None
    if any(w in _DENY_WORDS for w in words):
        return None
    last = words[-1]
    if last in _STRONG_LAST:
        return "strong", _STRONG_LAST[last]
    for suffix, name in _STRONG_SUFFIX:
        if last.endswith(suffix):
            return "strong", name
    if last == "key" or last.endswith("key") and len(last) > 6:
        prev = words[-2] if len(words) > 1 else last[:-3]
        if prev in _STRONG_KEY_QUALIFIERS:
            return "strong", _STRONG_KEY_QUALIFIERS[prev]
        if prev and prev != "key":
            return "weak", "secret-key"
        return None
    if last in ("auth", "sig", "signature", "salt", "pepper", "dsn") and len(words) <= 3:
        return "weak", "secret"
    return None


# ---------------------------------------------------------------- rule table


_B = r"(?<![A-Za-z0-9_-])"  # left boundary for tokens
_E = r"(?![A-Za-z0-9_-])"  # right boundary


class Rule:
    """One detector: needles (literals that must occur), a regex and how to apply it there."""

    __slots__ = ("name", "needles", "pattern", "flags", "back", "fwd", "check", "ci", "run", "near", "_rx")

    def __init__(
        self,
        name: str,
        needles: tuple[str, ...],
        pattern: str,
        *,
        back: int = 0,
        fwd: int = 0,
        check: str | None = None,
        ci: bool = False,
        flags: int = 0,
        run: bool | None = None,
        near: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.needles = needles
        self.pattern = pattern
        self.flags = flags
        self.back = back  # >0: search a window [needle-back, needle+fwd] instead of matching at the needle
        self.fwd = fwd
        self.check = check  # value check applied to group "v": None | "tokenish" | "strong" | "random"
        self.ci = ci  # needles are lowercase and looked up in the lowered text
        # run rules start where a run of token characters starts (see _run_starts): found by a
        # 2-character prefix lookup instead of one scan of the text per needle
        self.run = (pattern.startswith(_B) and not back and not ci) if run is None else run
        # windowed rules: words one of which every match holds; a window without any is skipped
        self.near = near
        self._rx: re.Pattern[str] | None = None

    @property
    def rx(self) -> re.Pattern[str]:
        if self._rx is None:
            self._rx = regex_cache.compile(self.pattern, self.flags)
        return self._rx


VENDOR_RULES: list[Rule] = [
    Rule(
        "aws-access-key",
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])",
        run=True,
    ),
    Rule("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), _B + r"gh[pousr]_[A-Za-z0-9]{36,255}" + _E),
    Rule("github-token", ("github_pat_",), _B + r"github_pat_[A-Za-z0-9_]{22,255}"),
    Rule(
        "gitlab-token",
        (
            "glpat-",
            "glrt-",
            "glptt-",
            "gldt-",
            "glsoat-",
            "glcbt-",
            "glft-",
            "glimt-",
            "glagent-",
            "gloas-",
            "GR1348941",
        ),
        _B + r"(?:gl(?:pat|rt|ptt|dt|soat|cbt|ft|imt|agent|oas)-|GR1348941)[A-Za-z0-9_-]{20,}",
    ),
    Rule(
        "slack-token",
        ("xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xoxe."),
        _B + r"xox(?:[abposr]|e\.xox[bp]|e)-[A-Za-z0-9-]{10,}",
    ),
    Rule("slack-token", ("xapp-",), _B + r"xapp-\d-[A-Za-z0-9-]{10,}"),
    Rule(
        "slack-webhook",
        ("hooks.slack.com/",),
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9_/-]{16,})",
        run=True,
    ),
    Rule(
        "discord-webhook",
        ("discord.com/api/", "discordapp.com/api/", "ptb.discord", "canary.discord"),
        r"(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/(?P<v>\d{5,}/[A-Za-z0-9_-]{20,})",
        run=True,
    ),
    Rule("teams-webhook", ("office.com/webhook",), r"office\.com/webhook(?:b2)?/(?P<v>[^\s\"'<>`\\]{16,})"),
    Rule("anthropic-key", ("sk-ant-",), _B + r"sk-ant-[A-Za-z0-9_-]{20,}"),
    Rule(
        "openai-key",
        ("sk-",),
        _B
        + r"sk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,}"
        + _E,
    ),
    Rule("stripe-key", ("sk_live_", "sk_test_", "rk_live_", "rk_test_"), _B + r"[sr]k_(?:live|test)_[A-Za-z0-9]{10,}"),
    Rule("stripe-webhook-secret", ("whsec_",), _B + r"whsec_[A-Za-z0-9+/=]{20,}"),
    Rule("google-api-key", ("AIza",), _B + r"AIza[0-9A-Za-z_-]{35}" + _E),
    Rule("google-oauth-secret", ("GOCSPX-",), _B + r"GOCSPX-[A-Za-z0-9_-]{20,}"),
    Rule("google-oauth-token", ("ya29.",), _B + r"ya29\.[0-9A-Za-z_-]{20,}"),
    Rule(
        "fcm-server-key",
        (":APA91b",),
        r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{7,}:APA91b[A-Za-z0-9_-]{60,}",
        back=40,
        fwd=400,
    ),
    Rule("alibaba-access-key", ("LTAI",), _B + r"LTAI[A-Za-z0-9]{12,24}" + _E),
    Rule("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"), _B + r"do[por]_v1_[a-f0-9]{64}"),
    Rule("heroku-key", ("HRKU-",), _B + r"HRKU-[A-Za-z0-9_-]{20,}"),
    Rule("databricks-token", ("dapi",), _B + r"dapi[a-f0-9]{32}(?:-\d)?" + _E),
    Rule("vault-token", ("hvs.", "hvb.", "hvr."), _B + r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),
    Rule(
        "vault-token",
        ("s.",),
        r"(?<![A-Za-z0-9._/-])s\.(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]{24}(?![A-Za-z0-9._-])",
        run=True,
    ),
    Rule(
        "terraform-token",
        (".atlasv1.",),
        r"(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}",
        back=14,
        fwd=200,
    ),
    Rule("atlassian-token", ("ATATT3", "ATCTT3"), _B + r"AT[AC]TT3[A-Za-z0-9_=-]{50,}"),
    Rule("telegram-token", (":AA",), r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{30,36}" + _E, back=10, fwd=40),
    Rule("twilio-key", ("SK",), r"(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])", run=True),
    Rule(
        "twilio-auth-token",
        ("AC",),
        r"(?<![A-Za-z0-9])AC[0-9a-f]{32}\\?[\"']?\s*[,:]\s*\\?[\"']?(?P<v>[0-9a-f]{32})(?![A-Za-z0-9])",
        run=True,
    ),
    Rule("sendgrid-key", ("SG.",), _B + r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"),
    Rule("mailgun-key", ("key-",), _B + r"key-[0-9a-f]{32}" + _E),
    Rule("mailchimp-key", ("-us",), r"(?<![A-Za-z0-9])[0-9a-f]{32}-us[0-9]{1,2}(?![A-Za-z0-9])", back=33, fwd=6),
    Rule("square-token", ("EAAA",), _B + r"EAAA[A-Za-z0-9_-]{40,}"),
    Rule("square-token", ("sq0csp-", "sq0atp-"), _B + r"sq0(?:csp|atp)-[A-Za-z0-9_-]{20,}"),
    Rule("shopify-token", ("shpat_", "shpss_", "shpca_", "shppa_"), _B + r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    Rule(
        "braintree-token",
        ("access_token$",),
        r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}",
        run=True,
    ),
    Rule("huggingface-token", ("hf_",), _B + r"hf_[A-Za-z0-9]{30,}" + _E),
    Rule("groq-key", ("gsk_",), _B + r"gsk_[A-Za-z0-9]{40,}"),
    Rule("replicate-token", ("r8_",), _B + r"r8_[A-Za-z0-9]{30,}"),
    Rule("perplexity-key", ("pplx-",), _B + r"pplx-[A-Za-z0-9]{40,}"),
    Rule("npm-token", ("npm_",), _B + r"npm_[A-Za-z0-9]{36}" + _E),
    Rule("pypi-token", ("pypi-AgE",), _B + r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    Rule("dockerhub-token", ("dckr_pat_",), _B + r"dckr_pat_[A-Za-z0-9_-]{20,}"),
    Rule("rubygems-key", ("rubygems_",), _B + r"rubygems_[a-f0-9]{48}"),
    Rule("supabase-token", ("sbp_", "sb_secret_"), _B + r"(?:sbp_[a-z0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,})"),
    Rule("newrelic-key", ("NRAK-", "NRJS-", "NRII-"), _B + r"NR(?:AK|JS|II)-[A-Z0-9]{19,}"),
    Rule("linear-key", ("lin_api_",), _B + r"lin_api_[A-Za-z0-9]{40}"),
    Rule("notion-token", ("ntn_",), _B + r"ntn_[A-Za-z0-9]{40,}"),
    Rule(
        "grafana-token", ("glsa_", "glc_"), _B + r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})"
    ),
    Rule(
        "doppler-token",
        ("dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."),
        _B + r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}",
    ),
    Rule("postman-key", ("PMAK-",), _B + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    Rule("sentry-token", ("sntrys_", "sntryu_"), _B + r"sntry[su]_[A-Za-z0-9=_+/-]{40,}"),
    Rule("age-secret-key", ("AGE-SECRET-KEY-1",), r"AGE-SECRET-KEY-1[0-9A-Z]{58}", run=True),
    Rule(
        "azure-client-secret",
        ("Q~",),
        r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        back=4,
        fwd=40,
    ),
    Rule("azure-sas-signature", ("sig=",), r"(?<=[?&;])sig=(?P<v>[A-Za-z0-9%+/=_-]{16,})"),
    Rule("jwt", ("eyJ",), _B + r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    Rule(
        "private-key",
        ("-----BEGIN",),
        r"-----BEGIN (?P<kind>[A-Z0-9 ]*?PRIVATE KEY(?: BLOCK)?)-----(?:[\s\S]{0,"
        r"20000}?-----END (?P=kind)-----|(?:[A-Za-z0-9+/=\s:,.-]|\\[nr])*)",
        run=False,
    ),  # found by its needle: JSON text puts "\n" right before it
    Rule("url-password", ("://",), r"://(?P<u>[^\s:/?#@'\"`\\<>]*):(?P<v>[^\s/'\"`\\<>]+)@(?=[A-Za-z0-9\[])"),
    # a token used as the URL's user name (https://<token>@github.com/o/r.git): long, and not a word
    Rule(
        "url-token",
        ("://",),
        r"(?:(?<=http)|(?<=https))://(?P<v>(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,})@(?=[A-Za-z0-9\[])(?![^/\s]*sentry)",
        check="random",
    ),  # a Sentry DSN's key is public by design
    Rule(
        "password",
        ("htpasswd",),
        r"(?i)\bhtpasswd\s+(?:-[a-zA-Z]*b[a-zA-Z]*\s+)(?:-\S+\s+)*\S+\s+\S+\s+(?P<q>[\"']?)(?P<v>[^\s\"']+)(?P=q)",
        ci=True,
    ),
    Rule(
        "authorization",
        ("bearer",),
        r"(?i)(?<![A-Za-z])bearer\s+(?P<v>[A-Za-z0-9._~+/=-]{8,})",
        check="tokenish",
        ci=True,
    ),
    Rule("basic-auth", ("basic",), r"(?i)(?<![A-Za-z])basic\s+(?P<v>[A-Za-z0-9+/]{8,}={0,2})", check="basic", ci=True),
    Rule(
        "authorization",
        ("authorization",),
        r"(?i)authorization\\?[\"']?\s*[:=]\s*\\?[\"']?(?!bearer\b|basic\b)(?:(?:token|bot|apikey|key|sso-key|digest|hmac|negotiate)\s+)?(?P<v>[^\s\"'\\,;]{8,})",
        check="tokenish",
        ci=True,
    ),
    Rule(
        "token",
        ("use ",),
        r"(?i)use\s+(?P<v>[^\s\"'`]{8,})\s+as\s+(?:the|my|your|a|an|"
        r"our)?\s*(?:[\w-]+\s+)?(?:token|key|password|secret|credential|api key)\b",
        check="tokenish",
        ci=True,
    ),
    Rule(
        "password",
        ("convertto-securestring",),
        r"(?i)convertto-securestring\s+(?:-string\s+)?(?P<q>[\"'])(?P<v>[^\"'\n]+)(?P=q)",
        ci=True,
    ),
    Rule("password", ("identified by",), r"(?i)identified\s+by\s+(?P<q>[\"'])(?P<v>[^\"'\n]+)(?P=q)", ci=True),
    Rule(
        "password",
        ("-p",),
        # mysql's `-p name` prompts for the password: name is the database
        r"(?:(?:mysql\w*|mariadb\w*|mysqladmin)\b[^\n|;&]*?\s-p(?=\S)"
        r"|(?:sshpass|(?:docker|podman|nerdctl|helm|oras|buildah|skopeo)\s+(?:\w+\s+)?login)\b[^\n|;&]*?\s-p\s*)"
        r"(?P<q>[\"']?)(?P<v>[^\s\"']+)(?P=q)",
        back=300,
        fwd=200,
        near=("mysql", "mariadb", "sshpass", "login"),
    ),
    Rule("password", ("-p",), r"(?<![\w-])-p(?P<q>[\"'])(?P<v>[^\"'\n]{3,})(?P=q)", run=False),
    Rule(
        "password",
        ("-u", "-a "),
        r"(?:(?<=\s)|(?<=\s-)|^)(?:-u|-user|-a|-auth)(?:\s+|=)(?P<q>\\?[\"']?)[^\s:\"'\\]+:(?P<v>(?=[^\s\"'\\]*[A-Za-z])[^\s\"'\\]+)(?P=q)",
    ),
    Rule(
        "password",
        (":",),
        r"(?m)(?:^|(?<=\\n))[A-Za-z0-9_.*-]+:(?:\d{2,5}|\*):[^\s:]+:[^\s:]+:(?P<v>[^\s:\\]{4,})(?=$|\\n)",
        check="pgpass",
        run=False,
    ),
    # vendor shapes from betterleaks' rule set that the hooks must not wait for the full pass to catch
    Rule("sonar-token", ("squ_", "sqp_", "sqa_"), _B + r"sq[upa]_[0-9a-f]{40}" + _E),
    Rule("easypost-key", ("EZAK", "EZTK"), _B + r"EZ[AT]K[A-Za-z0-9]{54}" + _E),
    Rule("adobe-secret", ("p8e-",), _B + r"p8e-[A-Za-z0-9]{32}" + _E),
    Rule(
        "adobe-client-id",
        ("adobe",),
        r"(?i)adobe[\w.-]{0,24}\\?[\"']?\s*[:=]\s*\\?[\"']?(?P<v>(?-i:[a-f0-9]{32}))(?![A-Za-z0-9])",
        ci=True,
    ),
    Rule(
        "etsy-key",
        ("etsy",),
        r"(?i)etsy[\w.-]{0,24}\\?[\"']?\s*[:=]\s*\\?[\"']?(?P<v>(?-i:[a-z0-9]{24}))(?![A-Za-z0-9])",
        ci=True,
        check="random",
    ),
    Rule("flutterwave-key", ("FLWSECK",), _B + r"FLWSECK(?:_TEST)?(?:-[0-9a-fA-F]{32}-X|[0-9a-fA-F]{12})" + _E),
    Rule("harness-token", ("pat.", "sat."), _B + r"[ps]at\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}" + _E),
    Rule("shippo-token", ("shippo_",), _B + r"shippo_(?:live|test)_[a-f0-9]{40}" + _E),
    Rule(
        "hubspot-token",
        ("pat-",),
        _B + r"pat-(?:na|eu|ap)\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}" + _E,
    ),
    Rule("openshift-token", ("sha256~",), _B + r"sha256~[A-Za-z0-9_-]{43}" + _E),
    Rule(
        "discord-token",
        ("discord",),
        r"(?i)discord[\w.-]{0,30}\\?[\"']?\s*[:=]\s*\\?[\"']?(?P<v>(?-i:[MN][A-Za-z0-9]{23}\.[\w-]{6}\.[\w-]{27}|[a-f0-9]{64}))(?![\w-])",
        ci=True,
    ),
    Rule(
        "messagebird-key",
        ("messagebird",),
        r"(?i)messagebird[^\n]{0,60}?\\?[\"'](?P<v>(?-i:[A-Za-z0-9]{25}))\\?[\"']",
        ci=True,
        check="random",
    ),
    Rule(
        "sidekiq-credential",
        ("contribsys",),
        r"(?i)contribsys(?:__|\.)com[ \t]*(?:=|[ \t]+)\\?[\"']?(?P<v>[0-9a-f]{8}:[0-9a-f]{8})(?![0-9a-f])",
        ci=True,
    ),
    Rule(
        "sidekiq-credential",
        ("contribsys.com",),
        r"(?i)(?P<v>[0-9a-f]{8}:[0-9a-f]{8})@[\w.-]*contribsys\.com",
        back=30,
        fwd=20,
        ci=True,
    ),
    Rule(
        "snyk-token",
        ("snyk auth",),
        r"(?i)snyk\s+auth\s+(?P<v>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})",
        ci=True,
    ),
    Rule(
        "password",
        ("cleartextpassword",),
        r"(?i)cleartextpassword\\?[\"']\s+value\s*=\s*\\?[\"'](?P<v>[^\"'\\\n]+)\\?[\"']",
        ci=True,
    ),
    # Kafka SASL (Confluent Cloud): the user name is the API key
    Rule(
        "confluent-key",
        ("loginmodule",),
        r"(?i)loginmodule\s+required\s+username\s*=\s*\\?[\"'](?P<v>(?-i:[A-Z0-9]{16}))\\?[\"']",
        ci=True,
    ),
    # encoded forms: base64 of a JWT or of a line holding a secret; a token whose first letters are escaped
    Rule("jwt", ("ZXlK",), _B + r"ZXlK[A-Za-z0-9+/]{40,}={0,2}", check="b64secret"),
    Rule(
        "encoded-secret",
        ("base64 -d", "base64 --decode", "base64 -D"),
        r"(?P<q>\\?[\"']?)(?P<v>[A-Za-z0-9+/]{12,}={0,2})(?P=q)\s*\|\s*base64\s+(?:-d|--decode|-D)\b",
        back=400,
        fwd=20,
        check="b64secret",
    ),
    # a run's first escape only, and a few of them: a long run of escapes (\\u0000\\u0000...) costs one match,
    # not one per escape
    Rule(
        "escaped-token",
        ("\\x", "\\u00"),
        r"(?<!\\u00[0-9a-fA-F]{2})(?<!\\x[0-9a-fA-F]{2})(?:\\x[0-9a-fA-F]{2}|\\u00[0-9a-fA-F]{2}){1,8}[A-Za-z0-9_-]{8,256}",
        check="escaped",
        run=False,
    ),
]

# Keywords that start a key/value lookup (lowercase; looked up in the lowered text).
KEY_NEEDLES = ("pass", "pwd", "secret", "token", "key", "auth", "credential")

_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.$-")

_VALUE = r"(?:[^\s\"'`\\;<]|\\(?![nrt\"'`\\/u]))+"
_ASSIGN_RX = lazy_re.compile(
    r"(?P<k>[A-Za-z0-9_.$-]+)(?P<kq>\\?[\"'])?(?:\[[^\]\n]{0,40}\])?"
    r"(?:(?P<sep>[ \t]*(?:=>|:=|==?|:)[ \t]*|[ \t]+(?:is|was|to|=)[ \t]+|[ \t]+)"
    r"(?P<vq>(?:[bBrRuU]{1,2})?\\?[\"'`])?(?P<v>" + _VALUE + r"))"
)
_XML_RX = lazy_re.compile(r"(?P<k>[A-Za-z0-9_.:-]+)>(?P<v>[^<\s]{3,})</(?P=k)>")
_K8S_RX = lazy_re.compile(
    r"(?i)name:\s*\\?[\"']?(?P<k>[A-Za-z0-9_.-]+)\\?[\"']?\s*(?:\\n|\n|,)\s*value:\s*(?P<vq>\\?[\"'])?(?P<v>"
    + _VALUE
    + ")"
)
# an HTML form field: name="api_token" ... value="..." (the attributes of one tag, name first)
_HTML_FIELD_RX = lazy_re.compile(
    r"(?i)name=(?P<kq>[\"'])(?P<k>[A-Za-z0-9_.\[\]-]+)(?P=kq)(?:\s+[\w-]+=(?:\"[^\"<>]*\"|'[^'<>]*'))*?"
    r"\s+value=(?P<vq>[\"'])(?P<v>[^\"'<>\s]+)"
)
# the names of a form field or meta tag holding an anti-forgery token: what a page hands every visitor, no credential
ANTI_FORGERY_NAME = r"(?:x-)?(?:authenticity_token|csrf[\w-]*|xsrf[\w-]*|_token|__requestverificationtoken)"
_PUBLIC_FIELD = lazy_re.compile(ANTI_FORGERY_NAME, re.I)
_CODE_RX = lazy_re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*(?:\(|\[|\)|,|;)?")
_CALL_RX = lazy_re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*[(\[]")
_CALL_LITERAL_RX = lazy_re.compile(r"(?P<q>\\?[\"'])(?P<v>[A-Za-z0-9+/=_.~-]{16,})(?P=q)")
_TRAILING = ",)]};"
# the rest of a quoted string after an escape, to (not including) its closing quote, on one line
# (a JSON string crosses its escaped line breaks; a ' or ` string, more likely prose, stops at them)
_STRING_REST_RX = {
    '"': lazy_re.compile(r'(?:[^"\\\n]|\\.){0,4096}(?=")'),
    "'": lazy_re.compile(r"(?:[^'\\\n]|\\[^nr]){0,256}(?=')"),
    "`": lazy_re.compile(r"(?:[^`\\\n]|\\[^nr]){0,256}(?=`)"),
}
_TRAILING_ESCAPES = lazy_re.compile(r"(?:\\[nrt\\\"'])+$")
_ANGLE_PLACEHOLDER_RX = lazy_re.compile(r"<[^<>\s]{1,40}>")
# a Maven groupId (io.jsonwebtoken) before a coordinate (artifact[:version])
_MAVEN_KEY_RX = lazy_re.compile(r"(?:io|com|org|net|dev|me|co|de|uk)\.[a-z0-9_.-]+$")
_COORD_RX = lazy_re.compile(r"[a-z][a-z0-9_.-]*(?::[0-9][A-Za-z0-9_.+-]*)?")
# a path or a file name: words between slashes, or a trailing extension
_PATHLIKE_RX = lazy_re.compile(
    r"(?:^|/)[a-z]{3,}(?:[-_][a-z0-9]+)*/|\.(?:png|jpe?g|gif|svg|json|csv|parquet|txt|log|gz|zip|tar|pdf|html?|js|css|py)$"
)


def _value_ok(check: str | None, value: str) -> bool:
    if is_allowed(value):
        return False
    if check is None:
        return True
    if check == "tokenish":
        return looks_tokenish(value)
    if check == "strong":
        return looks_strong(value)
    if check == "random":
        return looks_random(value)
    if check == "basic":
        return _basic_ok(value)
    if check == "pgpass":
        return not value.isdigit()
    if check == "b64secret":
        return _b64_secret(value)
    if check == "escaped":
        return _escaped_secret(value)
    return True


def _b64_secret(value: str) -> bool:
    """Base64 of text that itself holds a secret (a JWT, a KEY=secret line)."""
    import base64
    import binascii

    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    if not decoded or not decoded.replace("\n", "").replace("\t", "").isprintable():
        return False
    return bool(rule_spans(decoded))


_ESCAPE_RX = lazy_re.compile(r"\\x([0-9a-fA-F]{2})|\\u00([0-9a-fA-F]{2})")


def _escaped_secret(value: str) -> bool:
    """A token written with escapes (\\x67hp_..., \\u0067hp_...) that is a secret once decoded."""
    decoded = _ESCAPE_RX.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), value)
    return decoded != value and bool(vendor_spans(decoded))


def _basic_ok(value: str) -> bool:
    import base64
    import binascii

    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return looks_tokenish(value)
    return b":" in decoded or looks_tokenish(value)


class AsciiView:
    """A text as ASCII bytes for needle searches, built once per text and shared by every rule.

    Every non-ASCII character becomes ``?`` (one byte each), so positions are the text's
    positions, and no needle (all ASCII, none with ``?``) can match where it did not before.
    Byte searches skip the cost of wide strings (a transcript with one emoji is stored
    4 bytes a character), and ``bytes.lower`` is far cheaper than ``str.lower``. The one
    non-ASCII character that ``str.lower`` turns into ASCII, KELVIN SIGN -> ``k``, could only
    complete ``key``/``token``, whose key regexes run on the text and reject it anyway.
    """

    __slots__ = ("data", "low", "_hits")

    def __init__(self, text: str) -> None:
        self.data = text.encode("ascii", "replace")
        self.low = self.data.lower()
        self._hits: dict[tuple[str, bool], list[int]] = {}

    def find_all(self, needle: str, ci: bool = False) -> list[int]:
        """Every position of needle (in the lowered text when ci), cached per text."""
        hits = self._hits.get((needle, ci))
        if hits is None:
            hay = self.low if ci else self.data
            raw = needle.encode("ascii")
            parent = _PARENT_NEEDLE.get(needle)
            if parent is not None:  # filter the hits of a shorter needle instead of one more scan
                hits = [i for i in self.find_all(parent, ci) if hay.startswith(raw, i)]
            else:
                first = hay.find(raw)  # absent needles (most of them) cost one byte search
                hits = [] if first < 0 else [m.start() for m in _needle_rx(raw).finditer(hay, first)]
            self._hits[(needle, ci)] = hits
        return hits


# needle -> a prefix of it that is searched anyway (or rare). None of these prefixes can overlap
# itself, so its non-overlapping hits are all its occurrences, and so hold every needle occurrence.
_PARENT_NEEDLE = {":AA": ":A", ":APA91b": ":A", "-us": "-u", "authorization": "auth"}


_NEEDLE_RX: dict[bytes, re.Pattern[bytes]] = {}


def _needle_rx(raw: bytes) -> re.Pattern[bytes]:
    rx = _NEEDLE_RX.get(raw)
    if rx is None:
        rx = _NEEDLE_RX[raw] = re.compile(re.escape(raw))
    return rx


def _group_span(m: re.Match[str]) -> tuple[int, int]:
    if "v" in m.re.groupindex and m.group("v") is not None:
        return m.span("v")
    return m.span()


_RUN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.$~-"
_RUN_TABLE = bytes(0x61 if i in _RUN_CHARS else 0x20 for i in range(256))
_RUN_MIN = 10
_RUN_RX = lazy_re.compile(b" " + b"a" * _RUN_MIN)
_DISPATCH: dict[str, list[Rule]] = {}
_FIND_RULES: list[Rule] = []
for _rule in VENDOR_RULES:
    if _rule.run:
        for _needle in _rule.needles:
            _bucket = _DISPATCH.setdefault(_needle[:2], [])
            if _rule not in _bucket:
                _bucket.append(_rule)
    else:
        _FIND_RULES.append(_rule)
# where a .pgpass line may hold its port; "?" stands for any non-ASCII character (the
# rule's \d also takes non-ASCII digits): a line found here is then matched on the text
_PGPASS_PORT_RX = lazy_re.compile(rb":(?:[0-9?]{2,5}|\*):")


def _run_starts(view: AsciiView) -> list[int]:
    """Where runs of 10+ token characters start: the only places a prefixed token can begin.

    One bytes.translate and one literal search, so the cost does not grow with the number of rules.
    """
    data = b" " + view.data.translate(_RUN_TABLE)
    return [m.start() for m in _RUN_RX.finditer(data)]


def _accept(rule: Rule, m: re.Match[str], text: str) -> tuple[int, int, str] | None:
    start, end = _group_span(m)
    if end <= start:
        return None
    value = text[start:end]
    if rule.name in DOC_CHECK_FULL:
        if is_allowed(m.group(0)) or is_allowed(value):
            return None
    elif not _value_ok(rule.check, value):
        return None
    return start, end, rule.name


def vendor_spans(text: str, view: AsciiView | None = None) -> list[tuple[int, int, str]]:
    """Spans found by the vendor/shape rules (not key/value assignments)."""
    if view is None:
        view = AsciiView(text)
    spans: list[tuple[int, int, str]] = []
    dispatch = _DISPATCH
    for s in _run_starts(view):
        bucket = dispatch.get(text[s : s + 2])
        if bucket:
            for rule in bucket:
                m = rule.rx.match(text, s)
                if m:
                    hit = _accept(rule, m, text)
                    if hit:
                        spans.append(hit)
                        break
    for rule in _FIND_RULES:
        if rule.check == "pgpass":
            positions = [m.start() for m in _PGPASS_PORT_RX.finditer(view.data)] if b":" in view.data else []
        elif len(rule.needles) == 1:
            positions = view.find_all(rule.needles[0], rule.ci)
        else:
            positions = []
            for needle in rule.needles:
                positions.extend(view.find_all(needle, rule.ci))
        near = [w.encode("ascii") for w in rule.near]
        seen_end = -1
        for i in positions:
            if i < seen_end:
                continue
            if rule.back:
                lo, hi = max(0, i - rule.back), min(len(text), i + rule.back + rule.fwd + 8)
                if near and not any(view.data.find(w, lo, hi) >= 0 for w in near):
                    continue  # no word the rule needs in this window (cheaper than scanning the text for them)
                m = _match_around(rule.rx, text, i, lo, hi)
            elif rule.check == "pgpass":
                m = _pgpass_at(rule, text, i)
            else:
                m = rule.rx.match(text, i)
            if m is None:
                continue
            hit = _accept(rule, m, text)
            if hit:
                spans.append(hit)
                seen_end = m.end()
    return spans


# Rules whose whole match is checked against the allow-list (tokens with prefixes: sk_test_XXXX..., xoxb-your-token).
DOC_CHECK_FULL = frozenset(
    r.name
    for r in VENDOR_RULES
    if r.check is None and r.name not in ("password", "url-password", "azure-sas-signature", "private-key")
)


def _match_around(rx: re.Pattern[str], text: str, i: int, lo: int, hi: int) -> re.Match[str] | None:
    """The match in the window that holds the needle at ``i`` (not merely the window's first match,
    which may be an earlier line's: that one had its own turn)."""
    for m in rx.finditer(text, lo, hi):
        if m.start() <= i < max(m.end(), m.start() + 1):
            return m
        if m.start() > i:
            break
    return None


def _pgpass_at(rule: Rule, text: str, i: int):
    escaped = text.rfind("\\n", 0, i)
    line_start = max(text.rfind("\n", 0, i) + 1, escaped + 2 if escaped >= 0 else 0)
    return rule.rx.match(text, line_start)


_KEY_BACK_RX = lazy_re.compile(r"[A-Za-z0-9_.$-]{0,64}")
_KEY_FWD_RX = lazy_re.compile(r"[A-Za-z0-9_.$-]{0,96}")
# after the key: an optional closing quote / subscript, then a separator or a blank before a value
_KEY_TAIL_RX = lazy_re.compile(r"(?:\\?[\"'])?(?:\[[^\]\n]{0,40}\])?(?:[ \t]*(?:=|:|>)|[ \t]+[^\s])")
_classify_cache: dict[str, tuple[str, str] | None] = {}


def _classify_cached(key: str) -> tuple[str, str] | None:
    try:
        return _classify_cache[key]
    except KeyError:
        if len(_classify_cache) > 4096:
            _classify_cache.clear()
        result = _classify_cache[key] = classify_key(key)
        return result


def assignment_spans(
    text: str, view: AsciiView | None = None, key_starts: list[int] | None = None
) -> list[tuple[int, int, str]]:
    """Values of secret-named keys: KEY=value, "key": "value", --key value, <key>value</key> ...

    key_starts, when given, collects where secret-named keys start (the full pass looks there too).
    """
    if view is None:
        view = AsciiView(text)
    low = view.low
    seen: set[int] = set()
    spans: list[tuple[int, int, str]] = []
    for needle in KEY_NEEDLES:
        for i in view.find_all(needle, True):
            k_end = _KEY_FWD_RX.match(text, i).end()  # type: ignore[union-attr]  # {0,96}: always matches
            if not _KEY_TAIL_RX.match(text, k_end):
                continue
            back = text[max(0, i - 64) : i][::-1]
            start = i - _KEY_BACK_RX.match(back).end()  # type: ignore[union-attr]  # {0,64}: always matches
            if start in seen:
                continue
            seen.add(start)
            span = _assignment_at(text, start, k_end)
            if (
                span is None
                and key_starts is not None
                and (_classify_cached(text[start:k_end]) or ("",))[0] == "strong"
            ):
                key_starts.append(start)  # a secret-named key whose value the rules let through
            if span:
                spans.append(span)
    if b"value=" in low and b"name=" in low:
        for i in view.find_all("name=", True):
            m = _HTML_FIELD_RX.match(text, i)
            if m and not _PUBLIC_FIELD.fullmatch(m.group("k")):
                cls = _classify_cached(m.group("k").replace("[", "_").replace("]", ""))
                if cls:
                    span = _judge_assignment(text, m, cls[0], m.group("k"), k8s=True)
                    if span:
                        spans.append((*span, cls[1]))
    if b"value" in low and b"name" in low:
        for i in view.find_all("name:", True):
            m = _K8S_RX.match(text, i)
            if m:
                cls = _classify_cached(m.group("k"))
                if cls:
                    span = _judge_assignment(text, m, cls[0], m.group("k"), k8s=True)
                    if span:
                        spans.append((*span, cls[1]))
    return spans


def _assignment_at(text: str, start: int, k_end: int) -> tuple[int, int, str] | None:
    key = text[start:k_end]
    if start > 1 and text[start - 1] == "{" and text[start - 2] in "$%#":
        return None  # a template reference: ${API_KEY:?missing}
    if text.startswith("://", start - 3):
        return None  # URL user info: the url-password rule owns it
    cls = _classify_cached(key)
    if cls is None:
        return None
    strength, name = cls
    if start > 0 and text[start - 1] == "<":
        m = _XML_RX.match(text, start)
        if m and _value_ok(None, m.group("v")):
            return (*m.span("v"), name)
        return None
    m = _ASSIGN_RX.match(text, start)
    if m is None or m.end("k") != k_end:
        return None
    span = _judge_assignment(text, m, strength, key)
    return (*span, name) if span else None


# an Amazon Resource Name up to its resource type (arn:aws:secretsmanager:us-east-1:123456789012:secret:...): what
# follows names a resource, it is not the value of a key
_ARN_HEAD = lazy_re.compile(r"\barn:aws[\w-]*:[\w-]+:[\w-]*:\d{0,12}:$")


def _judge_assignment(text: str, m: re.Match[str], strength: str, key: str, k8s: bool = False):
    v_start, v_end = m.span("v")
    value = m.group("v")
    quoted = m.group("vq") is not None
    sep = "=" if k8s else (m.group("sep") or "")
    bare_sep = sep.strip()
    if bare_sep == ":" and _ARN_HEAD.search(text, max(0, m.start("k") - 100), m.start("k")):
        return None
    if quoted:
        q = m.group("vq")[-1]
        if text.startswith("\\", v_end) and not m.group("vq").endswith("\\" + q):
            # an escape inside a string opened by a bare quote (`"password": "a\": \"b"`, `"pwd": "a\tb"`) is
            # part of the value: the value is the whole string, to its closing quote
            rest = _STRING_REST_RX[q].match(text, v_end)
            if rest is not None:
                v_end = rest.end()
                value = text[v_start:v_end]
                if is_allowed(_TRAILING_ESCAPES.sub("", value)):
                    return None  # "None\n", "%s\t": a placeholder with a line break after it
        # the value must be closed by the same quote; otherwise it held spaces or was not a literal
        if not (text.startswith(q, v_end) or text.startswith("\\" + q, v_end)):
            return None
    else:
        if m.start("k") > 0 and text[m.start("k") - 1] in "?&" and "&" in value:
            value = value.split("&", 1)[0]
            v_end = v_start + len(value)
        while value and value[-1] in _TRAILING and not _balanced(value):
            value = value[:-1]
            v_end -= 1
    if not value or is_allowed(value):
        return None
    if text.startswith("<", v_end) and _ANGLE_PLACEHOLDER_RX.match(text, v_end):
        return None  # shippo_test_<your-token>, pat.<account-id>.<token-id>: a placeholder in a vendor's shape
    if bare_sep == ":" and not quoted and _MAVEN_KEY_RX.match(key) and _COORD_RX.fullmatch(value):
        return None  # io.jsonwebtoken:jjwt-api:0.12.6 is a package, not a key and its value
    if (
        not quoted
        and sep != bare_sep
        and _more_on_line(text, v_end)
        and not (looks_strong(value) or looks_random(value))
    ):
        return None  # `key = Some-Command "arg" -Flag`: an expression, not a literal
    if bare_sep in ("", "is", "was", "to"):
        # prose or whitespace-separated ("password hunter2X!", "requirepass x", "the key is x")
        if strength == "weak":
            return None
        if "://" in value or value.startswith("/"):
            return None  # `curl -u USER:PASSWORD https://...`: the next word is a URL or a path
        if key.lower() == "pass":
            return None  # "pass `x` to y": the verb, not a key
        if not (
            looks_strong(value)
            or looks_random(value)
            or (quoted and bare_sep == "" and len(value) >= 6 and _HAS_DIGIT.search(value) and _HAS_ALPHA.search(value))
        ):
            return None
        if key.startswith("-") and not quoted and not (looks_strong(value) or looks_random(value)):
            return None
        return v_start, v_end
    if not quoted and _CALL_RX.match(value):
        # a call or subscript: a secret only when it wraps a machine-made literal (bytes.fromhex("..."))
        lit = _CALL_LITERAL_RX.match(text, v_start + value.index("(") + 1) if "(" in value else None
        if lit and looks_random(lit.group("v")):
            return lit.span("v")
        return None
    if strength == "weak":
        if not looks_random(value, 12) or _PATHLIKE_RX.search(value):
            return None
        return v_start, v_end
    if not quoted:
        if value.isdigit() and len(value) < 8:
            return None
        if _CODE_RX.fullmatch(value):
            # an identifier or a dotted reference: a secret only if part of it is machine-made, or when it is the
            # literal of a KEY=value line (env files, CLI flags, query strings: `DB_PASSWORD=correcthorse`)
            parts = re.split(r"[.(\[\]),;:>-]+", value)
            if _env_name(value):
                return None
            if not any(looks_random(p, 12) or looks_strong(p) for p in parts if p):
                if not (bare_sep == "=" and sep == "=" and _literal_word(value, key)):
                    return None
        if len(value) < 4:
            return None
    elif len(value) < 4:
        return None
    return v_start, v_end


_NAME_SEGMENT = lazy_re.compile(r"(?:[A-Z][a-z]{0,11}|[A-Z]{1,12}|[a-z]{1,12})\d{0,2}|\d{1,3}")


# where code reads a setting: process.env.X, os.environ.X, config.X, settings.X, ...
_ACCESSOR = lazy_re.compile(
    r"(?:process\.env|import\.meta\.env|os\.environ|env|ENV|config|settings|secrets|vars|self|this)\.(?=[^.]+$)"
)


def _env_name(value: str) -> bool:
    """``process.env.STRIPE_SECRET_KEY_2``: a setting read by its name, the name spelt of words: not a value."""
    m = _ACCESSOR.match(value)
    return m is not None and _word_name(value[m.end() :])


def _word_name(part: str) -> bool:
    """A name spelt of words between underscores (STRIPE_SECRET_KEY_2, db_password_v2). A segment of a
    machine-made token is longer or mixes cases and digits (sk_live_4eC39HqLyjWD...)."""
    segments = part.split("_")
    return (
        len(segments) >= 2
        and any(seg.isalpha() for seg in segments)
        and all(_NAME_SEGMENT.fullmatch(seg) for seg in segments if seg)
    )


_CODE_WORDS = frozenset(
    "none null nil true false undefined self this env os getpass input prompt password passwd secret token key "
    "required optional string str int bool bytes any value default empty changeme".split()
)


def _literal_word(value: str, key: str) -> bool:
    """In ``KEY=value`` with no spaces, is an identifier-shaped value a literal (a password) rather than a name?"""
    low = value.lower()
    if "." in value or low in _CODE_WORDS or len(value) < 6:
        return False
    if re.search(r"\d", value):
        return True  # password1, mytoken2024: a literal, however it is spelled
    base = re.sub(r"[^a-z]", "", key.lower())
    for word in ("password", "passwd", "secret", "token", "apikey", "key", "pass", "pwd"):
        if word in base and word in low and (value != low or "_" in value):
            return False  # password=passwordField, token=token_value: a variable named after the key
    return True


def _more_on_line(text: str, pos: int) -> bool:
    i = pos
    n = len(text)
    while i < n and text[i] in " \t":
        i += 1
    if i == pos or i >= n or text[i] in "\r\n#" or text.startswith(("\\n", "//"), i):
        return False
    return True


def _balanced(value: str) -> bool:
    last = value[-1]
    pairs = {")": "(", "]": "[", "}": "{"}
    if last in pairs:
        return value.count(pairs[last]) >= value.count(last)
    return False


# ---------------------------------------------------------------- applying spans


# a Kubernetes Secret manifest in YAML: every value of its data/stringData map is a credential (base64 or plain),
# whatever its key is called and however plain its letters look
_K8S_SECRET_KIND_RX = lazy_re.compile(
    r"(?m)^(?P<lead>[ \t]*(?:-[ \t]+)?)kind:[ \t]*[\"']?Secret[\"']?[ \t]*(?:#[^\n]*)?\r?$"
)
# where one YAML document (or a fenced block of a message) ends and the next begins
_K8S_DOC_END_RX = lazy_re.compile(r"(?m)^(?:---|\.\.\.|[ \t]*```)[^\n]*$")
_K8S_DATA_KEY = ("data:", "stringData:")
_K8S_ENTRY_RX = lazy_re.compile(r"[\"']?[A-Za-z0-9_.-]+[\"']?:[ \t]*(?P<v>\S.*?)?[ \t]*")


def k8s_secret_spans(text: str) -> list[tuple[int, int, str]]:
    """The values of the data:/stringData: map of each mapping that says ``kind: Secret`` (a document, or an item of
    a ``kind: List``), the map at the kind's own indentation. Each Secret reads only its own mapping's lines."""
    kinds = list(_K8S_SECRET_KIND_RX.finditer(text))
    if not kinds:
        return []
    ends = [m.start() for m in _K8S_DOC_END_RX.finditer(text)]
    spans: list[tuple[int, int, str]] = []
    done_to = -1  # a mapping already read (two kind lines in one mapping)
    for kind in kinds:
        if kind.start() < done_to:
            continue
        i = bisect.bisect_right(ends, kind.start())
        doc_start = text.find("\n", ends[i - 1]) + 1 if i > 0 else 0
        doc_end = ends[i] if i < len(ends) else len(text)
        indent = len(kind.group("lead"))
        lines = _mapping_lines(text, kind.start(), doc_start, doc_end, indent)
        done_to = lines[-1][1] if lines else kind.end()
        spans.extend(_k8s_data_values(text, lines, indent))
    return spans


def _indent_of(text: str, start: int, stop: int) -> int | None:
    """The indentation of a line (a list item's dash counts as indentation); None for a blank line."""
    i = start
    while i < stop and text[i] in " \t-":
        if text[i] == "-" and not (i + 1 < stop and text[i + 1] in " \t"):
            break
        i += 1
    return None if i >= stop or text[i] in "\r#" else i - start


def _mapping_lines(text: str, at: int, lo: int, hi: int, indent: int) -> list[tuple[int, int]]:
    """The lines (start, stop) of the mapping holding the line at ``at``: its neighbours at this indentation or
    deeper, up to a line less indented or a list item's dash at the mapping's own key column."""
    first = text.rfind("\n", lo, at) + 1 if at > lo else lo
    before: list[tuple[int, int]] = []
    stop = first - 1
    while stop > lo:
        start = text.rfind("\n", lo, stop) + 1 if stop > lo else lo
        depth = _indent_of(text, start, stop)
        if depth is not None:
            if depth < indent:
                break
            before.append((start, stop))
            if depth == indent and "-" in text[start : start + depth]:
                break  # this item's first line
        stop = start - 1
    after: list[tuple[int, int]] = []
    start = first
    while start < hi:
        stop = text.find("\n", start, hi)
        stop = hi if stop < 0 else stop
        depth = _indent_of(text, start, stop)
        if depth is not None:
            if depth < indent or (after and depth == indent and "-" in text[start : start + depth]):
                break
        after.append((start, stop))
        start = stop + 1
    return before[::-1] + after


def _k8s_data_values(text: str, lines: list[tuple[int, int]], indent: int) -> list[tuple[int, int, str]]:
    """The values of the mapping's data:/stringData: keys: each entry's value, and every line deeper than the
    entries (a block scalar, a value on the next line, a plain scalar's continuation) whole."""
    spans: list[tuple[int, int, str]] = []
    in_data = False
    entry_depth = -1
    for start, stop in lines:
        if stop > start and text[stop - 1] == "\r":
            stop -= 1
        depth = _indent_of(text, start, stop)
        if depth is None:
            continue
        body = text[start + depth : stop]
        if depth == indent:
            in_data = body.rstrip().startswith(_K8S_DATA_KEY) and body.split(":", 1)[1].strip() in ("", "|", ">")
            entry_depth = -1
            continue
        if not in_data:
            continue
        if entry_depth < 0:
            entry_depth = depth
        if depth > entry_depth:
            spans.append((start + depth, stop, "k8s-secret"))
            continue
        m = _K8S_ENTRY_RX.fullmatch(body)
        value = m.group("v") if m else None
        if m and value and not (value[:1] in "|>" and len(value) <= 3) and not is_allowed(value.strip("\"'")):
            spans.append((start + depth + m.start("v"), start + depth + m.end("v"), "k8s-secret"))
    return spans


def rule_spans(
    text: str, key_starts: list[int] | None = None, view: AsciiView | None = None
) -> list[tuple[int, int, str]]:
    """Every span the shared rule table finds in text (before merging)."""
    if view is None:
        view = AsciiView(text)
    spans = vendor_spans(text, view)
    spans.extend(assignment_spans(text, view, key_starts))
    if b"Secret" in view.data:
        spans.extend(k8s_secret_spans(text))
    return spans


def apply_spans(text: str, spans: list[tuple[int, int, str]]) -> str:
    """Replace merged spans with markers, never touching text that is already a marker."""
    if not spans:
        return text
    markers = [m.span() for m in MARKER_RX.finditer(text)] if "[REDACTED" in text else []
    clean: list[tuple[int, int, str]] = []
    for s, e, name in spans:
        if any(ms < e and s < me for ms, me in markers):
            continue
        clean.append((s, e, name))
    if not clean:
        return text
    clean.sort(key=lambda t: (t[0], -t[1]))
    out: list[str] = []
    pos = 0
    cur_s, cur_e, cur_name = clean[0]
    for s, e, name in clean[1:]:
        if s <= cur_e:
            cur_e = max(cur_e, e)
            continue
        out.append(text[pos:cur_s])
        out.append(f"[REDACTED:{cur_name}]")
        pos = cur_e
        cur_s, cur_e, cur_name = s, e, name
    out.append(text[pos:cur_s])
    out.append(f"[REDACTED:{cur_name}]")
    out.append(text[cur_e:])
    return "".join(out)

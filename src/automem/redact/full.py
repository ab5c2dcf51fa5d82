"""The full redaction pass: the shared rule table, detect-secrets, and betterleaks as a peer engine.

betterleaks (redact/engines.py, loaded once per process, never by a hook) runs its vendor rules on the whole text in
overlapping 4 KB chunks (it is several times faster on small inputs), compiling only the rules whose keywords the text
holds (redact/betterleaks_rules.py), and its keyword rules only on the same windows as detect-secrets; while it is
loaded, detect-secrets' KeywordDetector is left out (same job, far slower). Its hits are widened and filtered like
detect-secrets' hits. Without it (missing wheel, broken library) every detect-secrets
plugin runs as before, and one line is logged.

Every writer (store/, the index, anything sent to a model) goes through here.
detect-secrets runs in-process, plugin by plugin, but only on small windows
around suspicious spots (keywords, quoted high-entropy strings, spans the rule
table already found), because running it on every line is slow. Its hits are
widened to the whole token (it reports only ``ghp`` of a GitHub token) and
filtered by the same allow-list as the rules, plus shape checks for the
look-alikes its entropy plugins love: hashes, UUIDs, integrity strings,
public keys, base64 of plain text.

Speed without changing results: a plugin is skipped on a window that lacks every
literal its regexes require (derived from the regexes themselves), and its module is
imported only when a window may need it (redact/detect_secrets_plugins.py); no entropy is
computed for hits too short to pass the plugin's limit.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import math
import re

from automem import regex_cache
from automem.redact.rules import (
    ANTI_FORGERY_NAME,
    AsciiView,
    apply_spans,
    classify_key,
    is_allowed,
    looks_random,
    looks_strong,
    rule_spans,
)

_WINDOW_BACK = 96
_WINDOW_FWD = 224
# searched in the ASCII view (non-ASCII characters are "?", in no class here): same matches, cheaper scan
_QUOTED_CANDIDATE = regex_cache.compile(rb"[\"']([A-Za-z0-9+/=_.-]{20,})[\"']")
# ids that transcripts are full of: message, tool-use, request ids
_ID_PREFIX = regex_cache.compile(
    r"(?:msg|toolu|req|call|run|resp|chatcmpl|evt|cus|pi|ch|sub|in|file|asst|thread|batch)_[A-Za-z0-9]"
)
_WIDEN_RIGHT = regex_cache.compile(r"[A-Za-z0-9_\-+/=.~]*")
_WIDEN_LEFT = regex_cache.compile(r"[A-Za-z0-9_-]*")


def _run_end(pattern: re.Pattern, text: str, pos: int = 0) -> int:
    """Where a run of ``pattern``'s characters starting at ``pos`` ends (the pattern also matches none)."""
    found = pattern.match(text, pos)
    return found.end() if found else pos


_KEY_BEFORE = regex_cache.compile(r"([A-Za-z0-9_.$-]+)\\?[\"']?\s*(?:=>|:=|==?|:)\s*(?:[bru]{0,2}\\?[\"'`])?$")

# Shapes that are not secrets when nothing names them as one.
_SHAPE_RXES = [
    regex_cache.compile(r"[0-9a-fA-F]{7,40}"),  # git SHAs, short digests
    regex_cache.compile(r"[0-9a-fA-F]{64}|[0-9a-fA-F]{96}|[0-9a-fA-F]{128}"),  # sha256/384/512 digests
    regex_cache.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),  # UUIDs
    regex_cache.compile(r"(?:sha(?:1|224|256|384|512)|md5)[-:=][A-Za-z0-9+/=_-]+"),  # SRI integrity, digests
    regex_cache.compile(r"h1:[A-Za-z0-9+/=]+"),  # go.sum
    regex_cache.compile(
        r"AAAA(?:B3NzaC1yc2E|C3NzaC1lZDI1NTE5|E2VjZHNhLXNoYTItbmlzdHA)[A-Za-z0-9+/=]*"
    ),  # SSH public keys
    regex_cache.compile(r"(?:iVBORw0KGgo|/9j/|R0lGOD|PHN2Zy|UklGR)[A-Za-z0-9+/=]*"),  # base64 images
    regex_cache.compile(r"pk_(?:live|test)_[A-Za-z0-9]+"),  # Stripe publishable keys are public by design
    # ISO times, and the ids automem gives entries and memories (a time and a few hex digits)
    regex_cache.compile(
        r"\d{4}-\d\d-\d\dT\d\d[-:]\d\d[-:]\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?(?:-[0-9a-f]{4,12})?"
    ),
]
_PUBLIC_KEYS = frozenset(
    re.sub(r"[^a-z0-9]", "", k)
    for k in "n e x y x5c x5t kid publickey public_key pubkey integrity hash checksum digest etag "
    "sha sha1 sha256 sha512 content_hash fingerprint id uid uuid request_id trace_id span_id cursor next_page_token "
    "page_token nonce "
    "data src href url uri path file name image icon favicon thumb bundle".split()
)


def _entropy_cannot_pass(plugin, hit: str) -> bool:
    """True when hit is too short to exceed the plugin's entropy limit (entropy <= log2(len))."""
    return math.log2(len(hit)) < plugin.entropy_limit - 1e-6


def _is_shape(value: str) -> bool:
    return any(rx.fullmatch(value) for rx in _SHAPE_RXES)


def _is_plain_base64(value: str) -> bool:
    """Base64 that decodes to readable text (a bundle, a note) rather than key material."""
    if len(value) < 16 or not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", value):
        return False
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return False
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    printable = sum(1 for c in decoded if c.isprintable() or c in "\n\t")
    # "user:pass" (Basic auth, docker config) decodes to printable text too: demand a word gap
    return printable == len(decoded) and (" " in decoded or decoded.isalpha())


# an absolute path of three or more parts, two of them words (a folder name, a file's extension)
_PATH_VALUE = regex_cache.compile(r"/(?:[A-Za-z0-9_.-]+/){2,}[A-Za-z0-9_.-]*")
_PATH_WORD = regex_cache.compile(r"(?:^|/)(?:[a-z]{3,}|[A-Z][a-z]{2,})(?:[-_.][A-Za-z0-9]+)*(?=/|$)|\.[a-z]{1,5}$")
_PATH_PART = regex_cache.compile(r"[/._-]+")


def _is_plain_path(value: str) -> bool:
    """A file's path with no machine-made part ("/Users/ana.b/Documents/app-2/src/Login.kt"): tool calls are full of
    them, and a window around each would load the entropy detectors for nothing. A random base64 string passes for
    one about once in 40,000 of those that start with "/"; a part that looks random keeps the window."""
    return (
        _PATH_VALUE.fullmatch(value) is not None
        and len(_PATH_WORD.findall(value)) >= 2
        and not any(looks_random(part, 16) for part in _PATH_PART.split(value))
    )


def _suspicious_spots(text: str, view: AsciiView | None = None) -> list[int]:
    """Quoted machine-made strings that are not ids, hashes or plain paths (keyed spots come from the rule table)."""
    data = (view or AsciiView(text)).data
    spots: list[int] = []
    for m in _QUOTED_CANDIDATE.finditer(data):
        value = text[m.start(1) : m.end(1)]
        if not _ID_PREFIX.match(value) and looks_random(value, 20) and not _is_shape(value):
            if not _is_plain_path(value):
                spots.append(m.start())
    return spots


def _windows(text: str, seeds: list[int], view: AsciiView | None = None) -> list[tuple[int, int]]:
    """Merged windows around suspicious positions, clipped to their line."""
    spots = list(seeds) + _suspicious_spots(text, view)
    if not spots:
        return []
    spots.sort()
    windows: list[tuple[int, int]] = []
    n = len(text)
    for p in spots:
        s = max(0, p - _WINDOW_BACK)
        e = min(n, p + _WINDOW_FWD)
        nl = text.rfind("\n", s, p)
        if nl >= 0:
            s = nl + 1
        nl = text.find("\n", p, e)
        if nl >= 0:
            e = nl
        if windows and s <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], e))
        else:
            windows.append((s, e))
    return windows


# plugins that never run: an address is not a credential (its hits were always dropped)
_NEVER_RUN = frozenset({"IPPublicDetector"})
# with the peer engine loaded, its keyword rules judge the same windows as this one did, for a fraction of the time
_ENGINE_COVERS = frozenset({"KeywordDetector"})


def detect_secrets_spans(
    text: str,
    seeds: list[int] | None = None,
    view: AsciiView | None = None,
    windows: list[tuple[int, int]] | None = None,
    engine_loaded: bool = False,
) -> list[tuple[int, int, str]]:
    """detect-secrets hits in text, widened to whole tokens and filtered by the allow-list."""
    spans: list[tuple[int, int, str]] = []
    if windows is None:
        windows = _windows(text, seeds or [], view)
    if not windows:
        return spans  # nothing suspicious: detect-secrets (~0.2 s to import) is not even loaded
    from automem.redact.detect_secrets_plugins import slots

    plugins = slots(_NEVER_RUN | _ENGINE_COVERS if engine_loaded else _NEVER_RUN)
    entropy_memo: dict[tuple[int, str], bool] = {}
    for ws, we in windows:
        window = text[ws:we]
        lowered: list[str] = []
        for slot in plugins:
            if slot.skip(window, lowered):
                continue
            plugin = slot.plugin()  # outside the try: a plugin that cannot load stops the pass, it is never skipped
            try:
                hits = set(plugin.analyze_string(window))
            except Exception:  # noqa: BLE001 - one plugin's bug must not stop the pass
                continue
            for hit in hits:
                if not isinstance(hit, str) or not hit:
                    continue
                for span in _judge_hit(plugin, text, window, ws, hit, entropy_memo):
                    spans.append(span)
    return spans


def _judge_hit(plugin, text: str, window: str, ws: int, hit: str, entropy_memo: dict | None = None):
    kind = plugin.secret_type
    if kind == "Public IP (ipv4)":
        return  # an address is not a credential
    entropy_kind = kind in ("Base64 High Entropy String", "Hex High Entropy String")
    if entropy_kind and (_ID_PREFIX.match(hit) or _low_entropy(plugin, hit, entropy_memo)):
        return
    name = (
        "secret" if kind in ("Secret Keyword",) or entropy_kind else re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")
    )
    start = window.find(hit)
    while start >= 0:
        a = ws + start
        b = a + len(hit)
        if kind == "Private Key":
            b = ws + len(window)  # the rest of the line; rules.py removes whole PEM blocks
        else:
            b = _run_end(_WIDEN_RIGHT, text, b)
            left = _run_end(_WIDEN_LEFT, text[max(0, a - 64) : a][::-1])
            a -= left
        token = text[a:b]
        if _keep(kind, entropy_kind, text, a, token):
            yield a, b, name
        start = window.find(hit, start + 1)


def _low_entropy(plugin, hit: str, memo: dict | None) -> bool:
    """The plugin's own verdict (entropy <= its limit), skipping the count for short hits and repeats."""
    if _entropy_cannot_pass(plugin, hit):
        return True
    key = (id(plugin), hit)
    if memo is not None and key in memo:
        return memo[key]
    low = plugin.calculate_shannon_entropy(hit) <= plugin.entropy_limit
    if memo is not None:
        memo[key] = low
    return low


# an anti-forgery token in a form field or meta tag: per-session, public to the page, not a credential
_CSRF_BEFORE = regex_cache.compile(
    r"(?i)(?<![\w-])" + ANTI_FORGERY_NAME + r"\\?[\"']"
    r"(?:\s+[\w-]+=\\?[\"'][^\"'<>]*\\?[\"'])*\s+(?:value|content)=\\?[\"']$"
)


def _keep(kind: str, entropy_kind: bool, text: str, a: int, token: str) -> bool:
    if kind == "Private Key":
        return True
    if is_allowed(token):
        return False
    # a detector whose pattern starts at the quote or '=' before the value (Artifactory's) judged from the value
    value_at = a + len(token) - len(token.lstrip("\"'=: \t"))
    if _CSRF_BEFORE.search(text, max(0, value_at - 200), value_at):
        return False
    m = _KEY_BEFORE.search(text, max(0, a - 80), a)
    key = m.group(1) if m else ""
    cls = classify_key(key) if key else None
    if entropy_kind or kind == "Secret Keyword":
        norm = re.sub(r"[^a-z0-9]", "", key.lower())
        if norm in _PUBLIC_KEYS or norm.endswith(("id", "ids")) or _ID_PREFIX.match(token):
            return False
        if cls is not None:
            return looks_random(token, 8) or looks_strong(token) or cls[0] == "strong" and len(token) >= 6
        if _is_shape(token) or _is_plain_base64(token):
            return False
        return looks_random(token, 20)
    return True


# ---------------------------------------------------------------- the peer engine (betterleaks)

ENGINE = "betterleaks"
_CHUNK = 4096  # the engine is fastest on inputs of a few KB (its keyword prefilter runs per fragment)
_OVERLAP = 256  # a token cut by a chunk's end is whole in the next chunk
# its keyword-only rules: a value after a key, judged like detect-secrets' keyword hits
_GENERIC_RULES = frozenset({"generic-api-key", "generic-password", "generic-credential-uri", "generic-username"})
_ENGINE_SKIP = frozenset({"generic-username"})  # a user name is not a credential


def _chunks(text: str) -> list[tuple[int, int]]:
    """Overlapping pieces of about _CHUNK characters, cut at a line end where one is near."""
    n = len(text)
    if n <= _CHUNK:
        return [(0, n)]
    out = []
    s = 0
    while s < n:
        e = min(n, s + _CHUNK)
        if e < n:
            nl = text.rfind("\n", s + _CHUNK // 2, e)
            if nl >= 0:
                e = nl + 1
        out.append((s, e))
        if e >= n:
            break
        nxt = e - _OVERLAP
        nl = text.find("\n", nxt, e)
        s = nl + 1 if 0 <= nl < e - 1 else max(s + 1, nxt)
    return out


def _joined(text: str, windows: list[tuple[int, int]]) -> list[tuple[str, list[int], list[int]]]:
    """Windows glued into inputs of about _CHUNK characters, one window a line:
    (input, starts in input, starts in text)."""
    out = []
    parts: list[str] = []
    local: list[int] = []
    orig: list[int] = []
    size = 0
    for s, e in windows:
        if parts and size + e - s > _CHUNK:
            out.append(("\n".join(parts), local, orig))
            parts, local, orig, size = [], [], [], 0
        local.append(size)
        orig.append(s)
        parts.append(text[s:e].replace("\n", " "))
        size += e - s + 1
    if parts:
        out.append(("\n".join(parts), local, orig))
    return out


def engine_spans(text: str, windows: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """The peer engine's hits: its vendor rules on the whole text, its keyword rules on the windows around keys;
    widened and filtered like detect-secrets' hits. [] when the engine is missing or broken (logged once)."""
    from automem.redact import engines

    if engines.load_error(ENGINE) is not None:
        return []
    spans: list[tuple[int, int, str]] = []
    vendor = engines.vendor_config(text)  # the vendor rules whose keywords text holds; None: no rule can fire
    for cs, ce in _chunks(text) if vendor else ():
        for a, b, rule in engines.betterleaks_spans(text[cs:ce], vendor):
            spans.extend(_judge_engine_hit(text, cs + a, cs + b, rule))
    generic = engines.generic_config()
    for joined, local, orig in _joined(text, windows):
        if not engines.generic_may_fire(joined):
            continue
        for a, b, rule in engines.betterleaks_spans(joined, generic):
            if rule not in _GENERIC_RULES:
                continue  # the vendor rules already ran on the whole text
            i = bisect.bisect_right(local, a) - 1
            if i < 0:
                continue
            off = orig[i] - local[i]
            spans.extend(_judge_engine_hit(text, a + off, b + off, rule))
    return spans


def _judge_engine_hit(text: str, a: int, b: int, rule: str):
    if rule in _ENGINE_SKIP or not 0 <= a < b <= len(text):
        return
    if rule == "private-key":
        yield a, b, "private-key"
        return
    generic = rule in _GENERIC_RULES
    b = _run_end(_WIDEN_RIGHT, text, b)
    a -= _run_end(_WIDEN_LEFT, text[max(0, a - 64) : a][::-1])
    token = text[a:b]
    if generic and not (looks_random(token, 8) or looks_strong(token)):
        return  # a name in code (password = user_password): the rule table judges keyed plain words itself
    if _keep("Secret Keyword" if generic else rule, generic, text, a, token) and not _engine_lookalike(text, a, token):
        yield a, b, "secret" if generic else re.sub(r"[^a-z0-9]+", "-", rule.lower()).strip("-")


def _engine_lookalike(text: str, a: int, token: str) -> bool:
    """Vendor-shaped values that are still not secrets: placeholders inside the shape."""
    core = re.sub(r"[^A-Za-z0-9]", "", token)
    return len(set(core.lower())) <= 2


def redact(text: str) -> str:
    """The full pass: rule table + detect-secrets + betterleaks; markers ``[REDACTED:<rule>]``; idempotent."""
    if not text:
        return text
    return apply_spans(text, _spans(text))


# a line of its own between the texts redact_many joins: no secret shape runs through it, and the quotes and
# brackets end the look-behinds that judge a hit by what precedes it on its line or in its tag
FIELD_BREAK = "\n\n<\"'\u2042\u2042\u2042'\">\n\n"


def redact_many(texts: list[str]) -> list[str]:
    """The full pass over several texts (the fields of one record) in one scan of their join.

    Each detector costs a fixed amount per call, and a record's fields are mostly short: one scan of the join
    costs what one long text does. A hit that reaches over a break is applied, cut to size, to every text it
    touches (more is redacted, never less); a text holding the break itself is redacted on its own."""
    return [apply_spans(t, found) if t else t for t, found in zip(texts, spans_many(texts), strict=True)]


def spans_many(texts: list[str]) -> list[list[tuple[int, int, str]]]:
    """Each text's hits (start, end, rule), unmerged, from one scan of their join (see redact_many)."""
    out: list[list[tuple[int, int, str]]] = [[] for _ in texts]
    joinable = []
    for i, text in enumerate(texts):
        if text and (len(texts) < 2 or FIELD_BREAK in text):
            out[i] = _spans(text)
        elif text:
            joinable.append(i)
    if not joinable:
        return out
    joined = FIELD_BREAK.join(texts[i] for i in joinable)
    starts = []
    pos = 0
    for i in joinable:
        starts.append(pos)
        pos += len(texts[i]) + len(FIELD_BREAK)
    for a, b, name in _spans(joined):
        k = max(0, bisect.bisect_right(starts, a) - 1)
        while k < len(joinable) and starts[k] < b:
            s0, n = starts[k], len(texts[joinable[k]])
            lo, hi = max(a, s0) - s0, min(b, s0 + n) - s0
            if lo < hi:
                out[joinable[k]].append((lo, hi, name))
            k += 1
    return out


def _spans(text: str) -> list[tuple[int, int, str]]:
    """Every detector's hits on text, unmerged."""
    key_starts: list[int] = []
    view = AsciiView(text)
    spans = rule_spans(text, key_starts, view)
    windows = _windows(text, key_starts, view)
    from automem.redact import engines

    engine_loaded = engines.load_error(ENGINE) is None
    spans.extend(detect_secrets_spans(text, key_starts, view, windows, engine_loaded))
    if engine_loaded:
        spans.extend(engine_spans(text, windows))
        if engines.load_error(ENGINE) is not None:  # its keyword rules failed to load: the detector they replace
            spans.extend(detect_secrets_spans(text, key_starts, view, windows, engine_loaded=False))
    return spans


def is_clean(text: str) -> bool:
    """True when the full pass would not change text (nothing left to redact)."""
    return redact(text) == text

"""Peer secret-scanning engines for the full pass (never the hook path).

Each adapter turns an engine's findings into ``(start, end, rule_id)`` spans in
*character* offsets of the text given: both engines report UTF-8 byte offsets
(betterleaks as 1-based line/column in bytes, kingfisher as absolute bytes), so
non-ASCII text needs a byte-to-character map. Engines are loaded lazily, once per
process; one that is missing or broken is reported by ``load_error`` and yields
no spans, so the other detectors still run and no write is lost.
"""

from __future__ import annotations

import bisect
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from automem.redact.betterleaks_rules import ByNeed

_LOCK = threading.Lock()
_STATE: dict[str, object] = {}  # name -> engine handle, or an Exception when it failed to load


def _encode(text: str) -> bytes:
    # lone surrogates (from JSON escapes) must keep a fixed width so offsets map back
    return text.encode("utf-8", "surrogatepass")


class _ByteMap:
    """Maps UTF-8 byte offsets of text back to character offsets."""

    __slots__ = ("_ascii", "_starts")

    def __init__(self, text: str, data: bytes) -> None:
        self._ascii = len(data) == len(text)
        self._starts: list[int] = []  # ASCII text needs none: a byte is a character
        if not self._ascii:
            starts, pos = [], 0
            for ch in text:
                starts.append(pos)
                o = ord(ch)
                pos += 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
            starts.append(pos)
            self._starts = starts

    def char(self, byte_off: int) -> int:
        """The character holding byte_off (an offset inside a character maps to its start)."""
        if self._ascii:
            return byte_off
        return max(0, bisect.bisect_right(self._starts, byte_off) - 1)

    def char_end(self, byte_off: int) -> int:
        """The first character at or after byte_off (an offset inside a character covers it all)."""
        if self._ascii:
            return byte_off
        return bisect.bisect_left(self._starts, byte_off)


def _load(name: str):
    with _LOCK:
        if name in _STATE:
            return _STATE[name]
        try:
            handle = _LOADERS[name]()
        except Exception as exc:  # noqa: BLE001 - a broken wheel must only cost its own detector
            handle = exc
            _log(name, exc)
        _STATE[name] = handle
        return handle


def _log(name: str, exc: BaseException) -> None:
    try:
        from automem.log import log_error

        log_error("redact.engines", f"{name} failed, the full pass goes on without it: {type(exc).__name__}: {exc}")
    except Exception:  # noqa: BLE001 - logging must not break redaction
        pass


_SCAN_FAILED: set[str] = set()


def _scan_failed(name: str, exc: BaseException) -> None:
    if name not in _SCAN_FAILED:
        _SCAN_FAILED.add(name)
        _log(name, exc)


def load_error(name: str) -> BaseException | None:
    """The exception that stopped engine name from loading (it loads on this call if it has not yet)."""
    handle = _load(name)
    return handle if isinstance(handle, BaseException) else None


def _reset(name: str | None = None) -> None:
    """Forget loaded engines (tests)."""
    with _LOCK:
        if name is None:
            _STATE.clear()
            _SCAN_FAILED.clear()
            _BY_NEED.clear()
        else:
            _STATE.pop(name, None)
            _SCAN_FAILED.discard(name)
            _BY_NEED.pop(name, None)


# ---------------------------------------------------------------- betterleaks


# betterleaks' default rules less its keyword-only ones (generic-api-key and friends): those cost most of its
# time on transcript text, and the full pass runs them only on the windows around keys (see full.py). This set
# extends the engine's own default: the full pass compiles it only when the generated rule files below do not come
# from the installed betterleaks; otherwise it compiles just the vendor rules a text needs (betterleaks_rules.py)
VENDOR_CONFIG = str(Path(__file__).resolve().parents[1] / "data" / "betterleaks_vendor.toml")
# the keyword-only rules alone, for the windows: standalone (generated from the same default), and extending the
# engine's default for a betterleaks other than the one the generated files came from
GENERIC_CONFIG: str | None = str(Path(__file__).resolve().parents[1] / "data" / "betterleaks_generic_rules.toml")
GENERIC_FALLBACK = str(Path(__file__).resolve().parents[1] / "data" / "betterleaks_generic.toml")

_BY_NEED: dict[str, ByNeed | None] = {}  # "betterleaks" -> its ByNeed, or None while the generated rules do not apply


def _load_betterleaks():
    from automem.redact import betterleaks_lib, betterleaks_rules

    library = betterleaks_lib.Library()
    # the Go runtime and the rule sets start here, not on a user's text; a bad config fails the load
    by_need = None
    version = betterleaks_lib.version()
    if version is not None and betterleaks_rules.source_version() == version:
        by_need = betterleaks_rules.ByNeed(library)
        warm = []  # each config is compiled when a text first needs it (the tests check the generated files load)
    else:
        warm = [GENERIC_FALLBACK, VENDOR_CONFIG]
    for config in warm:
        library.scan(b"warm up", config)
    _BY_NEED["betterleaks"] = by_need
    return library


def vendor_config(text: str) -> str | None:
    """The config to scan text with for betterleaks' vendor rules: one holding the rules whose keywords text has
    (betterleaks_rules.py), or the whole set (VENDOR_CONFIG) when the generated rules do not apply or the probe
    fails (logged once). None when no vendor rule can fire on text, or the engine is missing."""
    binding = _load("betterleaks")
    if isinstance(binding, BaseException) or not text:
        return None
    by_need = _BY_NEED.get("betterleaks")
    if by_need is None:
        return VENDOR_CONFIG
    try:
        return by_need.config_for(_encode(text.replace("\0", " ") if "\0" in text else text))
    except Exception as exc:  # noqa: BLE001 - the whole set still finds everything
        _scan_failed("betterleaks", exc)
        return VENDOR_CONFIG


def generic_config() -> str | None:
    """The config of betterleaks' keyword-only rules (None: the engine's whole default)."""
    return GENERIC_CONFIG if _BY_NEED.get("betterleaks") is not None or GENERIC_CONFIG is None else GENERIC_FALLBACK


def generic_may_fire(text: str) -> bool:
    """Can a keyword-only rule of the generated set report on text? Not without one of its keywords: then the
    set (some 15 CPU-ms to compile) need not be compiled for it. Always with any other config."""
    if _BY_NEED.get("betterleaks") is None or generic_config() != GENERIC_CONFIG:
        return True
    from automem.redact.betterleaks_rules import keyword_probe

    return keyword_probe().generic_may_fire(_encode(text.replace("\0", " ") if "\0" in text else text))


def betterleaks_spans(text: str, config: str | None = None) -> list[tuple[int, int, str]]:
    """betterleaks findings as character spans (default rules, or those of config);
    [] when the engine is unavailable or fails on this text (logged once)."""
    binding = _load("betterleaks")
    if isinstance(binding, BaseException) or not text:
        return []
    # the C API takes a NUL-terminated string: a NUL would end the scan early; same width keeps offsets
    data = _encode(text.replace("\0", " ") if "\0" in text else text)
    try:
        resp = binding.scan(data, config)
    except Exception as exc:  # noqa: BLE001 - the other detectors still run on this text
        _scan_failed("betterleaks", exc)
        if config == GENERIC_CONFIG and "config" in str(exc):
            # the keyword-only rules' file does not load (it is compiled on first need, not at the engine's load):
            # the engine counts as not loaded from now on, so detect-secrets' keyword detector runs again
            with _LOCK:
                _STATE["betterleaks"] = exc
        return []
    found = resp.get("data") or []
    if not found:
        return []
    bmap = _ByteMap(text, data)
    line_starts = [0]
    pos = data.find(b"\n")
    while pos >= 0:
        line_starts.append(pos + 1)
        pos = data.find(b"\n", pos + 1)
    spans = []
    for item in found:
        loc = item.get("location") or {}
        value = ((item.get("match") or {}).get("value") or "").encode("utf-8", "surrogatepass")
        try:
            line0 = int(loc.get("start_line", 0)) - 1
            line1 = int(loc.get("end_line", 0)) - 1
            a = line_starts[line0] + int(loc.get("start_column", 0)) - 1
            b = line_starts[line1] + int(loc.get("end_column", 0))
        except (IndexError, TypeError, ValueError):
            continue
        if not 0 <= a < b <= len(data):
            continue
        if value and data[a:b] != value:
            # a decoded finding (base64, percent, hex) is located on its encoded text; keep that span.
            # otherwise the value should sit at the reported spot: search its line for it
            hit = data.find(
                value, line_starts[line0], line_starts[line1 + 1] if line1 + 1 < len(line_starts) else len(data)
            )
            if hit >= 0 and not item.get("encodings"):
                a, b = hit, hit + len(value)
        spans.append((bmap.char(a), bmap.char_end(b), str(item.get("rule_id") or "betterleaks")))
    return spans


# ---------------------------------------------------------------- kingfisher


def _load_kingfisher():
    import kingfisher_sdk

    scanner = kingfisher_sdk.Scanner()
    scanner.scan(b"warm up")
    return scanner


def kingfisher_spans(text: str) -> list[tuple[int, int, str]]:
    """kingfisher findings as character spans; [] when the engine is unavailable or fails on this text."""
    scanner = _load("kingfisher")
    if isinstance(scanner, BaseException) or not text:
        return []
    data = _encode(text)
    try:
        found = scanner.scan(data)
    except Exception as exc:  # noqa: BLE001
        _scan_failed("kingfisher", exc)
        return []
    if not found:
        return []
    bmap = _ByteMap(text, data)
    spans = []
    for f in found:
        try:
            if not f.visible:
                continue
            loc = f.location
            a, b = int(loc["start_offset"]), int(loc["end_offset"])
        except Exception:  # noqa: BLE001
            continue
        if 0 <= a < b <= len(data):
            spans.append((bmap.char(a), bmap.char_end(b), str(f.rule_id)))
    return spans


_LOADERS = {"betterleaks": _load_betterleaks, "kingfisher": _load_kingfisher}
SPANS = {"betterleaks": betterleaks_spans, "kingfisher": kingfisher_spans}

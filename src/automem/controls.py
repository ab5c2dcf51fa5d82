"""Terminal escapes and invisible characters out of text that is stored, printed or injected.

Standard library only (the hooks use it): ANSI colour and cursor codes, OSC titles and clipboard writes, C0/C1
control characters (newlines and tabs stay), and every format character a reader cannot see but a model or a
matcher would: zero-width spaces and joiners, bidi controls, the soft hyphen, variation selectors, tag characters.
"""

from __future__ import annotations

from automem import regex_cache

# ESC [ ... final byte; ESC ] ... BEL or ESC \ ; other two-byte ESC sequences; the 8-bit CSI
ANSI = regex_cache.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]"
)
_ANSI_REMNANT = regex_cache.compile(r"\[(?:\d{1,3}(?:;\d{1,3})*)m")  # a colour code whose ESC was lost on the way
_INVISIBLE = regex_cache.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
_REPLACEMENT = regex_cache.compile("\ufffd+")


def strip_controls(text: str) -> str:
    """Terminal escapes, control and invisible format characters out (newlines and tabs stay)."""
    if not text:
        return text or ""
    if "\x1b" in text or "\x9b" in text:
        text = ANSI.sub("", text)
    if "[" in text:
        text = _ANSI_REMNANT.sub("", text)
    return _INVISIBLE.sub("", _REPLACEMENT.sub("", text))

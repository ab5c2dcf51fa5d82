"""Read the capture switch from config.yml without a YAML library.

The hook may not import PyYAML (about 20 ms), so this scans the block-style
file that ``automem config`` writes for ``memory:`` -> ``capture:``. Anything
it cannot read plainly counts as "on": config.py, which uses the real parser,
reports a broken file from the CLI and the non-capture hooks.
"""

from __future__ import annotations

from automem.capture.paths import config_path

_FALSE = {"false", "no", "off", "n"}


def capture_enabled(home: str) -> bool:
    try:
        with open(config_path(home), "r", encoding="utf-8", errors="replace") as handle:
            text = handle.read(65536)
    except OSError:
        return True
    in_memory = False
    memory_indent = 0
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        key, sep, value = line.strip().partition(":")
        if not sep:
            continue
        if indent == 0:
            in_memory = key.strip() == "memory"
            memory_indent = 0
            continue
        if in_memory:
            if memory_indent == 0:
                memory_indent = indent
            if indent == memory_indent and key.strip() == "capture":
                return value.strip().strip("'\"").lower() not in _FALSE
    return True

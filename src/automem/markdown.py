"""The tree's Markdown format, read and written in one place: YAML frontmatter, ``## `` sections, MAIN.md's markers.

Standard library only (json, re; datetime when a date is read), so the hooks and index/ may import it.

Reading, two ways:

- ``split_frontmatter``: the index's reading. Flat and forgiving: scalars and lists of scalars as strings, a line
  it does not understand skipped; it never fails. ``frontmatter_value`` and ``read_frontmatter`` read a file's
  frontmatter the same way, line by line, without reading the body.
- ``load``: a memory file read the way python-frontmatter with PyYAML's safe loader read it: the text's CRLFs made
  LFs and stripped, the frontmatter between the first two ``---`` lines, plain scalars resolved as YAML 1.1 does
  (null, booleans, integers, floats, dates and times), quoted scalars, block and flow lists, nested mappings,
  block scalars (``|``, ``>``). YAML it cannot read raises ``FrontmatterError`` (a ValueError); a file without
  frontmatter is all body.

Writing: ``frontmatter_lines`` writes the fields as automem's files carry them: strings as YAML double-quoted
scalars (JSON strings are valid YAML), integers bare, lists as block lists (``key: []`` when empty); ``quote``
and ``flow_list`` are the scalar and the one-line list.
"""

from __future__ import annotations

import json
import re

INDEX_START = "<!-- automem:index:start -->"  # MAIN.md: automem's index below, the person's notes above
INDEX_END = "<!-- automem:index:end -->"

_HEADING = re.compile(r"^## (.+)$", re.M)


class FrontmatterError(ValueError):
    """Frontmatter that is not YAML ``load`` can read."""


# ---------------------------------------------------------------- writing


def quote(value: object, *, ascii_only: bool = False) -> str:
    """A YAML double-quoted scalar (a JSON string); ``ascii_only`` escapes every non-ASCII character."""
    return json.dumps(str(value), ensure_ascii=ascii_only)


def flow_list(values, *, ascii_only: bool = True) -> str:
    """A one-line YAML flow list of strings (a JSON array)."""
    return json.dumps(list(values), ensure_ascii=ascii_only)


def frontmatter_lines(fields) -> list[str]:
    """The frontmatter of ``(key, value)`` pairs, fences included: a string quoted, an integer bare, a list as a
    block list of quoted strings (``key: []`` when empty)."""
    lines = ["---"]
    for key, value in fields:
        if isinstance(value, bool):
            raise TypeError(f"{key}: write a boolean as a string")
        if isinstance(value, int):
            lines.append(f"{key}: {value}")
        elif isinstance(value, (list, tuple)):
            lines.append(f"{key}:" + ("" if value else " []"))
            lines.extend(f"  - {quote(item)}" for item in value)
        else:
            lines.append(f"{key}: {quote(value)}")
    lines.append("---")
    return lines


# ---------------------------------------------------------------- the index's reading (flat, never fails)


def split_frontmatter(text: str) -> tuple[dict, str]:
    """(metadata, body) of a Markdown file with simple YAML frontmatter (scalars and lists of scalars)."""
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text
    head = text[3:end]
    body = text[end + 4 :]
    if body.startswith("\n"):
        body = body[1:]
    return _flat_fields(head.splitlines()), body


def _flat_fields(lines) -> dict:
    meta: dict = {}
    last_key = None
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith((" ", "\t")) and line.strip().startswith("- ") and last_key:
            if not isinstance(meta.get(last_key), list):
                meta[last_key] = []
            meta[last_key].append(flat_scalar(line.strip()[2:]))
            continue
        if ":" not in line or line.startswith((" ", "\t")):
            continue
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        last_key = key
        if value.startswith("[") and value.endswith("]"):
            inner = value[1:-1].strip()
            meta[key] = [flat_scalar(v) for v in _split_flow(inner)] if inner else []
        else:
            meta[key] = flat_scalar(value) if value else ""
    return meta


def _split_flow(inner: str) -> list[str]:
    if '"' in inner:
        try:
            return [str(v) for v in json.loads("[" + inner + "]")]
        except ValueError:
            pass
    return [v.strip() for v in inner.split(",") if v.strip()]


def flat_scalar(value: str) -> str:
    """One scalar as a string: a double-quoted one decoded as JSON, a single-quoted one unquoted, else as written."""
    value = value.strip()
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        try:
            return json.loads(value)
        except ValueError:
            return value[1:-1]
    if len(value) >= 2 and value[0] == "'" and value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def _head_lines(handle, max_lines: int):
    """The frontmatter lines of an open file, read one by one (none when it has no frontmatter)."""
    if handle.readline().strip() != "---":
        return
    for _ in range(max_lines):
        line = handle.readline()
        if not line or line.strip() == "---":
            return
        yield line.rstrip("\r\n")


def frontmatter_value(path, key: str, max_lines: int = 200) -> str | None:
    """A top-level scalar of a file's frontmatter, read line by line up to ``key`` (None when absent or empty)."""
    prefix = key + ":"
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as handle:
            for line in _head_lines(handle, max_lines):
                if line.startswith(prefix):
                    return flat_scalar(line[len(prefix) :]) or None
    except OSError:
        return None
    return None


def read_frontmatter(path, max_lines: int = 400) -> dict | None:
    """A file's frontmatter as ``split_frontmatter`` reads it, without reading the body (None: no frontmatter,
    or the file cannot be read)."""
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as handle:
            first = handle.readline()
            if first.strip() != "---":
                return None
            handle.seek(0)
            return _flat_fields(list(_head_lines(handle, max_lines)))
    except OSError:
        return None


def sections(body: str) -> dict[str, str]:
    """The text under each ``## `` heading, by heading."""
    out: dict[str, str] = {}
    matches = list(_HEADING.finditer(body))
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(body)
        out[match.group(1).strip()] = body[match.end() : end].strip()
    return out


def human_part(main_text: str) -> str:
    """What the person wrote in MAIN.md: everything above automem's index markers."""
    return main_text.split(INDEX_START, 1)[0].strip()


# ---------------------------------------------------------------- YAML's reading (a memory a person may have edited)

# YAML's patterns, compiled on first use (``_re``): the hooks import this module and never read YAML
_PATTERNS: dict[str, tuple[str, int]] = {
    "boundary": (r"^-{3,}\s*$", re.M),
    # what YAML refuses to read at all (PyYAML's Reader): control characters other than tab, LF, CR and NEL
    "non_printable": ("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]", 0),
}
_COMPILED: dict[str, re.Pattern] = {}


def _re(name: str) -> re.Pattern:
    pattern = _COMPILED.get(name)
    if pattern is None:
        pattern = _COMPILED[name] = re.compile(*_PATTERNS[name])
    return pattern


def load(text: str) -> tuple[dict, str]:
    """(metadata, body) of a Markdown file whose frontmatter is YAML (see the module's docstring)."""
    text = text.replace("\r\n", "\n").strip()
    boundary = _re("boundary")
    if not boundary.match(text):
        return {}, text
    parts = boundary.split(text, 2)
    if len(parts) < 3:
        return {}, text
    data = load_yaml(parts[1])
    return (data if isinstance(data, dict) else {}), parts[2].strip()


def load_yaml(head: str):
    """The value of one YAML document of block mappings, block lists and scalars (FrontmatterError otherwise)."""
    bad = _re("non_printable").search(head)
    if bad:
        raise FrontmatterError(f"unacceptable character {bad.group()!r}")
    parser = _Block(head.split("\n"))
    try:
        return parser.document()
    except FrontmatterError:
        raise
    except (ValueError, OverflowError) as exc:  # a date or number out of range
        raise FrontmatterError(f"line {parser.pos + 1}: {exc}") from None


_PATTERNS["null"] = (r"^(?:~|null|Null|NULL|)$", 0)
_BOOL = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
}
_PATTERNS["int"] = (
    r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0x[0-9a-fA-F_]+
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""",
    re.X,
)
_PATTERNS["float"] = (
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)
_PATTERNS["timestamp"] = (
    r"""^(?P<year>[0-9][0-9][0-9][0-9])-(?P<month>[0-9][0-9]?)-(?P<day>[0-9][0-9]?)
    (?:(?:[Tt]|[ \t]+)(?P<hour>[0-9][0-9]?):(?P<minute>[0-9][0-9]):(?P<second>[0-9][0-9])
    (?:\.(?P<fraction>[0-9]*))?
    (?:[ \t]*(?P<tz>Z|(?P<tz_sign>[-+])(?P<tz_hour>[0-9][0-9]?)(?::(?P<tz_minute>[0-9][0-9]))?))?)?$""",
    re.X,
)
_PATTERNS["date"] = (r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", 0)


def resolve(plain: str):
    """A plain (unquoted) scalar as YAML 1.1 types it: None, a bool, an int, a float, a date or datetime, a str."""
    if _re("null").match(plain):
        return None
    if plain in _BOOL:
        return _BOOL[plain]
    first = plain[:1]
    if first and first in "-+0123456789.":
        if _re("float").match(plain):
            return _float(plain)
        if first != "." and _re("int").match(plain):
            return _int(plain)
        match = _re("timestamp").match(plain)
        if match and (match.group("hour") or _re("date").match(plain)):
            return _timestamp(match)
    return plain


def _int(value: str) -> int:
    value = value.replace("_", "")
    sign = -1 if value[0] == "-" else 1
    if value[0] in "+-":
        value = value[1:]
    if value == "0":
        return 0
    if value.startswith("0b"):
        return sign * int(value[2:], 2)
    if value.startswith("0x"):
        return sign * int(value[2:], 16)
    if value[0] == "0":
        return sign * int(value, 8)
    if ":" in value:
        total = 0
        for part in value.split(":"):
            total = total * 60 + int(part)
        return sign * total
    return sign * int(value)


def _float(value: str) -> float:
    value = value.replace("_", "").lower()
    sign = -1 if value[0] == "-" else 1
    if value[0] in "+-":
        value = value[1:]
    if value == ".inf":
        return sign * float("inf")
    if value == ".nan":
        return float("nan")
    if ":" in value:
        total = 0.0
        for part in value.split(":"):
            total = total * 60 + float(part)
        return sign * total
    return sign * float(value)


def _timestamp(match: re.Match):
    import datetime

    year, month, day = int(match["year"]), int(match["month"]), int(match["day"])
    if not match["hour"]:
        return datetime.date(year, month, day)
    fraction = int((match["fraction"] or "")[:6].ljust(6, "0"))
    tzinfo = None
    if match["tz_sign"]:
        delta = datetime.timedelta(hours=int(match["tz_hour"]), minutes=int(match["tz_minute"] or 0))
        tzinfo = datetime.timezone(-delta if match["tz_sign"] == "-" else delta)
    elif match["tz"]:
        tzinfo = datetime.timezone.utc
    return datetime.datetime(
        year, month, day, int(match["hour"]), int(match["minute"]), int(match["second"]), fraction, tzinfo=tzinfo
    )


_ESCAPES = {
    "0": "\0",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
# a plain scalar may not start with these (``-``, ``?`` and ``:`` only when a space follows)
_NOT_PLAIN_START = set(",[]{}#&*!|>'\"%@`")


def _fold(lines: list[str]) -> str:
    """Lines of a multi-line scalar joined as YAML folds them: one line break a space, each blank line a newline."""
    out = lines[0]
    blanks = 0
    for number, line in enumerate(lines[1:], 2):
        if not line and number < len(lines):
            blanks += 1
            continue
        out += ("\n" * blanks if blanks else " ") + line
        blanks = 0
    return out


class _Block:
    """A small recursive reader of YAML's block style over the frontmatter's lines."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.pos = 0

    # lines

    def _error(self, what: str) -> FrontmatterError:
        return FrontmatterError(f"line {self.pos + 1}: {what}")

    @staticmethod
    def _indent(line: str) -> int:
        return len(line) - len(line.lstrip(" "))

    def _skip_blank(self) -> None:
        while self.pos < len(self.lines):
            stripped = self.lines[self.pos].strip()
            if stripped and not stripped.startswith("#"):
                return
            self.pos += 1

    def _next_indent(self) -> int | None:
        self._skip_blank()
        if self.pos >= len(self.lines):
            return None
        line = self.lines[self.pos]
        if line[self._indent(line) : self._indent(line) + 1] == "\t":
            raise self._error("a tab indents this line")
        return self._indent(line)

    # nodes

    def document(self):
        indent = self._next_indent()
        if indent is None:
            return None
        value = self._node(indent)
        if self._next_indent() is not None:
            raise self._error("more than one value at the top")
        return value

    def _node(self, indent: int):
        text = self.lines[self.pos][indent:]
        if text == "-" or text.startswith(("- ", "-\t")):
            return self._sequence(indent)
        if self._key(text) is not None:
            return self._mapping(indent)
        if text[0] in "\"'[{|>":
            return self._value(text, indent - 1, in_mapping=False)
        return self._scalar_lines(text, indent - 1)

    @staticmethod
    def _key(text: str) -> tuple[str, str] | None:
        """(key, rest) of ``key: rest`` (quoted keys too), None when the line is no mapping entry."""
        if text[:1] in ('"', "'"):
            end = _quoted_end(text, 0)
            if end < 0:
                return None
            after = text[end + 1 :]
            stripped = after.lstrip(" \t")
            if not stripped.startswith(":") or stripped[1:2] not in ("", " ", "\t"):
                return None
            return _unquote(text[: end + 1]), stripped[1:].strip(" \t")
        if text[:1] in _NOT_PLAIN_START or text.startswith(("? ", ": ")):
            return None
        at = 0
        while True:
            at = text.find(":", at)
            if at < 0:
                return None
            if at + 1 == len(text) or text[at + 1] in " \t":
                key = text[:at].rstrip(" \t")
                if " #" in key or "\t#" in key:
                    return None
                return key, text[at + 1 :].strip(" \t")
            at += 1

    def _mapping(self, indent: int) -> dict:
        out: dict = {}
        while True:
            here = self._next_indent()
            if here is None or here < indent:
                return out
            if here > indent:
                raise self._error("this line is indented more than the keys above it")
            text = self.lines[self.pos][indent:]
            entry = self._key(text)
            if entry is None:
                if text == "-" or text.startswith(("- ", "-\t")):
                    raise self._error("a list item where a key was expected")
                raise self._error("expected 'key: value'")
            key, rest = entry
            out[key] = self._value(rest, indent, in_mapping=True)

    def _sequence(self, indent: int) -> list:
        out: list = []
        while True:
            here = self._next_indent()
            if here is None or here < indent:
                return out
            text = self.lines[self.pos][indent:]
            if here == indent and not (text == "-" or text.startswith(("- ", "-\t"))):
                return out  # a list at its key's column ends at the next key
            if here > indent:
                raise self._error("expected a list item ('- value')")
            rest = text[1:].lstrip(" \t")
            if rest and not rest.startswith("#") and (rest.startswith(("- ", "-\t")) or self._key(rest)):
                # a compact nested node: read it as if it stood on its own line, at its own column
                column = len(self.lines[self.pos]) - len(rest)
                self.lines[self.pos] = " " * column + rest
                out.append(self._node(column))
                continue
            out.append(self._value(rest, indent, in_mapping=False))

    def _value(self, rest: str, indent: int, *, in_mapping: bool):
        """The value after ``key:`` or ``-`` on the current line; leaves ``pos`` after it."""
        if not rest or rest.startswith("#"):
            self.pos += 1
            below = self._next_indent()
            if below is None:
                return None
            if below > indent:
                return self._node(below)
            text = self.lines[self.pos][below:]
            if in_mapping and below == indent and (text == "-" or text.startswith(("- ", "-\t"))):
                return self._sequence(indent)  # a list at the key's own column
            return None
        if rest[0] in "|>":
            return self._block_scalar(rest, indent)
        if rest[0] in "\"'[{":
            return self._flow_lines(rest, indent)
        return self._scalar_lines(rest, indent)

    def _scalar_lines(self, first: str, indent: int):
        """A plain scalar starting on the current line, continued on lines indented past ``indent``."""
        if first[0] in _NOT_PLAIN_START or (first[0] in "-?:" and first[1:2] in ("", " ", "\t")):
            raise self._error(f"a value may not start with {first[0]!r} unquoted")
        parts = [self._plain_part(first)]
        self.pos += 1
        ended = parts[0][1]
        while not ended and self.pos < len(self.lines):
            line = self.lines[self.pos]
            stripped = line.strip(" \t")
            if stripped and self._indent(line) <= indent:
                break
            if stripped.startswith("#"):
                break
            text, ended = self._plain_part(stripped) if stripped else ("", False)
            parts.append((text, ended))
            self.pos += 1
        texts = [text for text, _ended in parts]
        while len(texts) > 1 and not texts[-1]:
            texts.pop()
        return resolve(_fold(texts))

    def _plain_part(self, text: str) -> tuple[str, bool]:
        """One line of a plain scalar without its comment; True when a comment ended it."""
        ended = False
        for marker in (" #", "\t#"):
            at = text.find(marker)
            if at >= 0:
                text, ended = text[:at], True
        text = text.strip(" \t")
        if ": " in text or ":\t" in text or text.endswith(":"):
            raise self._error("a ': ' inside an unquoted value (quote the value)")
        return text, ended

    def _flow_lines(self, first: str, indent: int):
        """A quoted scalar or a flow collection, on one line or several."""
        text = first
        start = self.pos
        while True:
            try:
                value, end = _Flow(text).node_and_end()
                break
            except _Incomplete:
                self.pos += 1
                if self.pos >= len(self.lines):
                    self.pos = start
                    raise self._error("a quote or bracket is not closed") from None
                text += "\n" + self.lines[self.pos]
        tail = text[end:].strip(" \t")
        if tail and not tail.startswith("#"):
            self.pos = start
            raise self._error(f"unexpected {tail[:20]!r} after the value")
        self.pos += 1
        return value

    def _block_scalar(self, header: str, indent: int) -> str:
        match = re.match(r"^([|>])([-+]?)([1-9]?)([-+]?)\s*(#.*)?$", header)
        if not match or (match[2] and match[4]):
            raise self._error(f"a block scalar header {header!r} YAML does not know")
        folded = match[1] == ">"
        chomp = match[2] or match[4]
        self.pos += 1
        body: list[str] = []
        content = indent + int(match[3]) if match[3] else None
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if line.strip(" "):
                here = self._indent(line)
                if content is None:
                    if here <= indent:
                        break
                    content = here
                if here < content:
                    break
                body.append(line[content:])
            else:
                body.append(line[content:] if content is not None and len(line) > content else "")
            self.pos += 1
        trailing = 0
        while body and not body[-1]:
            body.pop()
            trailing += 1
        if folded:
            text = ""
            previous = None
            for line in body:
                if previous is None:
                    text = line
                elif not line:
                    text += "\n"
                elif line[0] in " \t" or (previous and previous[0] in " \t"):
                    text += "\n" + line if previous else line
                else:
                    text += line if not previous else " " + line
                previous = line
        else:
            text = "\n".join(body)
        if not body:
            return "\n" * trailing if chomp == "+" else ""
        if chomp == "-":
            return text
        if chomp == "+":
            return text + "\n" * (trailing + 1)
        return text + "\n"


class _Incomplete(Exception):
    """A flow node that goes on past the text so far."""


def _quoted_end(text: str, start: int) -> int:
    """Index of the quote closing the quoted scalar opened at ``start``, -1 when it is not closed."""
    quote_char = text[start]
    at = start + 1
    while at < len(text):
        ch = text[at]
        if quote_char == '"' and ch == "\\":
            at += 2
            continue
        if ch == quote_char:
            if quote_char == "'" and text[at + 1 : at + 2] == "'":
                at += 2
                continue
            return at
        at += 1
    return -1


def _unquote(quoted: str) -> str:
    """A quoted scalar's value: line breaks folded, a double-quoted one's escapes decoded."""
    inner = quoted[1:-1]
    if quoted[0] == "'":
        return _fold_quoted(inner).replace("''", "'")
    if "\n" not in inner:
        return _decode(inner)
    lines = inner.split("\n")
    out = ""
    blanks = 0
    glue = False  # the line before ended in an escaped line break: this one joins it directly
    for number, line in enumerate(lines):
        if number:
            line = line.lstrip(" \t")
        escaped = number < len(lines) - 1 and _ends_with_escape(line)
        if escaped:
            line = line[:-1]
        elif number < len(lines) - 1:
            line = line.rstrip(" \t")
        text = _decode(line)
        if number == 0 or glue:
            out += text
        elif not text and number < len(lines) - 1:
            blanks += 1
            continue
        else:
            out += ("\n" * blanks if blanks else " ") + text
        blanks = 0
        glue = escaped
    return out


def _ends_with_escape(line: str) -> bool:
    count = len(line) - len(line.rstrip("\\"))
    return count % 2 == 1


def _fold_quoted(inner: str) -> str:
    if "\n" not in inner:
        return inner
    lines = inner.split("\n")
    cleaned = [lines[0].rstrip(" \t")] + [line.strip(" \t") for line in lines[1:-1]] + [lines[-1].lstrip(" \t")]
    return _fold(cleaned) if len(cleaned) > 1 else cleaned[0]


def _decode(text: str) -> str:
    if "\\" not in text:
        return text
    out: list[str] = []
    at = 0
    while at < len(text):
        ch = text[at]
        if ch != "\\":
            out.append(ch)
            at += 1
            continue
        code = text[at + 1 : at + 2]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            at += 2
        elif code in _HEX_ESCAPES:
            width = _HEX_ESCAPES[code]
            digits = text[at + 2 : at + 2 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise FrontmatterError(f"a bad escape \\{code}{digits}")
            out.append(chr(int(digits, 16)))
            at += 2 + width
        else:
            raise FrontmatterError(f"an unknown escape \\{code}")
    return "".join(out)


class _Flow:
    """A quoted scalar or a flow collection (``[a, "b"]``, ``{k: v}``) from the start of a text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def node_and_end(self):
        value = self._node(top=True)
        return value, self.at

    def _space(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in " \t\n":
            if self.text[self.at] == "\n":
                pass
            self.at += 1
        if self.text.startswith("#", self.at) and (self.at == 0 or self.text[self.at - 1] in " \t\n"):
            end = self.text.find("\n", self.at)
            if end < 0:
                raise _Incomplete
            self.at = end
            self._space()

    def _node(self, top: bool = False):
        self._space()
        if self.at >= len(self.text):
            raise _Incomplete
        ch = self.text[self.at]
        if ch in "\"'":
            end = _quoted_end(self.text, self.at)
            if end < 0:
                raise _Incomplete
            value = _unquote(self.text[self.at : end + 1])
            self.at = end + 1
            return value
        if ch == "[":
            return self._sequence()
        if ch == "{":
            return self._mapping()
        if top:
            raise FrontmatterError(f"unexpected {ch!r}")
        return self._plain()

    def _plain(self):
        start = self.at
        if self.text[start] in "#&*!|>%@`" or (
            self.text[start] in "-?:" and self.text[start + 1 : start + 2] in ("", " ", "\t", "\n", ",", "]", "}")
        ):
            raise FrontmatterError(f"a flow value may not start with {self.text[start]!r} unquoted")
        while self.at < len(self.text):
            ch = self.text[self.at]
            if ch in ",[]{}":
                break
            if ch == ":" and self.text[self.at + 1 : self.at + 2] in ("", " ", "\t", "\n", ",", "[", "]", "{", "}"):
                break
            if ch == "#" and self.text[self.at - 1] in " \t\n":
                break
            self.at += 1
        if self.at >= len(self.text):
            raise _Incomplete
        raw = self.text[start : self.at]
        lines = [line.strip(" \t") for line in raw.split("\n")]
        while len(lines) > 1 and not lines[-1]:
            lines.pop()
        return resolve(_fold(lines).strip(" \t"))

    def _sequence(self) -> list:
        self.at += 1
        out: list = []
        while True:
            self._space()
            if self.at >= len(self.text):
                raise _Incomplete
            if self.text[self.at] == "]":
                self.at += 1
                return out
            item = self._node()
            self._space()
            if self.at < len(self.text) and self.text[self.at] == ":":  # a one-pair mapping inside a list
                self.at += 1
                item = {item: self._node()}
                self._space()
            out.append(item)
            if self.at >= len(self.text):
                raise _Incomplete
            if self.text[self.at] == ",":
                self.at += 1
            elif self.text[self.at] != "]":
                raise FrontmatterError(f"expected ',' or ']' in a list, found {self.text[self.at]!r}")

    def _mapping(self) -> dict:
        self.at += 1
        out: dict = {}
        while True:
            self._space()
            if self.at >= len(self.text):
                raise _Incomplete
            if self.text[self.at] == "}":
                self.at += 1
                return out
            key = self._node()
            self._space()
            value = None
            if self.at < len(self.text) and self.text[self.at] == ":":
                self.at += 1
                self._space()
                if self.at < len(self.text) and self.text[self.at] in ",}":
                    value = None
                else:
                    value = self._node()
                self._space()
            out[key] = value
            if self.at >= len(self.text):
                raise _Incomplete
            if self.text[self.at] == ",":
                self.at += 1
            elif self.text[self.at] != "}":
                raise FrontmatterError(f"expected ',' or '}}' in a mapping, found {self.text[self.at]!r}")

"""The tree's Markdown format, read and written in one place: YAML frontmatter, ``## `` sections, MAIN.md's markers.

Importing it takes the standard library only (json, re), so the hooks and index/ may import it; ``load`` alone
imports PyYAML, when a memory is read.

Reading, two ways:

- ``split_frontmatter``: the index's reading. Flat and forgiving: scalars and lists of scalars as strings, a line
  it does not understand skipped; it never fails. ``frontmatter_value`` and ``read_frontmatter`` read a file's
  frontmatter the same way, line by line, without reading the body.
- ``load``: a memory file read the way python-frontmatter read it: the text's CRLFs made LFs and stripped, the
  frontmatter between the first two ``---`` lines read by PyYAML's safe loader. YAML it cannot read raises
  ``FrontmatterError`` (a ValueError naming the line); a file without frontmatter is all body.

Writing: ``frontmatter_lines`` writes the fields as automem's files carry them: strings as YAML double-quoted
scalars (JSON strings are valid YAML), integers bare, lists as block lists (``key: []`` when empty); ``quote``
and ``flow_list`` are the scalar and the one-line list.
"""

from __future__ import annotations

import json
import re

from automem import lazy_re as rx  # module-level patterns compile on first use

INDEX_START = "<!-- automem:index:start -->"  # MAIN.md: automem's index below, the person's notes above
INDEX_END = "<!-- automem:index:end -->"

_HEADING = rx.compile(r"^## (.+)$", re.M)


class FrontmatterError(ValueError):
    """Frontmatter that is not YAML ``load`` can read."""


# ---------------------------------------------------------------- writing


def quote(value: object, *, ascii_only: bool = False) -> str:
    """A YAML double-quoted scalar (a JSON string); ``ascii_only`` escapes every non-ASCII character."""
    return json.dumps(str(value), ensure_ascii=ascii_only)


def flow_list(values, *, ascii_only: bool = True) -> str:
    """A one-line YAML flow list of strings (a JSON array)."""
    return json.dumps(list(values), ensure_ascii=ascii_only)


_PLAIN_KEY = rx.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_YAML_WORDS = frozenset({"yes", "no", "on", "off", "true", "false", "null", "y", "n"})  # YAML 1.1 reads as bool/null


def yaml_key(key: object) -> str:
    """A mapping key as written: bare when YAML reads it back as that string, else double-quoted."""
    key = str(key)
    if _PLAIN_KEY.fullmatch(key) and key.lower() not in _YAML_WORDS:
        return key
    return quote(key)


def frontmatter_lines(fields) -> list[str]:
    """The frontmatter of ``(key, value)`` pairs, fences included: a key bare unless YAML would read it as
    something else, a string quoted, an integer bare, a list as a block list of quoted strings (``key: []`` when
    empty)."""
    lines = ["---"]
    for key, value in fields:
        key = yaml_key(key)
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
        key, value = _flat_key(line)
        if key is None:
            continue
        last_key = key
        if value.startswith("[") and value.endswith("]"):
            inner = value[1:-1].strip()
            meta[key] = [flat_scalar(v) for v in _split_flow(inner)] if inner else []
        else:
            meta[key] = flat_scalar(value) if value else ""
    return meta


def _flat_key(line: str) -> tuple[str | None, str]:
    """(key, the rest after its colon) of a ``key: value`` line; a double-quoted key decoded as JSON."""
    if line.startswith('"'):
        try:
            key, end = json.JSONDecoder().raw_decode(line)
        except ValueError:
            return None, ""
        rest = line[end:].lstrip()
        if not isinstance(key, str) or not rest.startswith(":"):
            return None, ""
        return key, rest[1:].strip()
    key, _, value = line.partition(":")
    return key.strip(), value.strip()


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
    prefix = yaml_key(key) + ":"  # as frontmatter_lines writes it
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

_BOUNDARY = rx.compile(r"^-{3,}\s*$", re.M)


def load(text: str) -> tuple[dict, str]:
    """(metadata, body) of a Markdown file whose frontmatter is YAML, as python-frontmatter read it: CRLFs made LFs
    and the text stripped, the frontmatter between the first two ``---`` lines, read by PyYAML's safe loader
    (imported here, never by the hooks); a file without frontmatter is all body. FrontmatterError (a ValueError,
    naming the line) when the frontmatter is not YAML."""
    text = text.replace("\r\n", "\n").strip()
    if not _BOUNDARY.match(text):
        return {}, text
    parts = _BOUNDARY.split(text, 2)
    if len(parts) < 3:
        return {}, text
    data = written_fields(parts[1])
    if data is None:
        data = load_yaml(parts[1])
    return (data if isinstance(data, dict) else {}), parts[2].strip()


_ESCAPES = frozenset('"\\/bfnrt')  # JSON's escapes but \u: YAML reads each the same (\u pairs it does not join)


def _written_string(raw: str) -> str | None:
    """A double-quoted scalar as ``quote`` writes it, decoded; None for anything YAML might read otherwise: a
    character outside Python's printable ones (YAML folds line separators, refuses controls), an escape but the
    ones JSON and YAML read alike."""
    if len(raw) < 2 or raw[0] != '"' or raw[-1] != '"' or not raw.isprintable():
        return None
    at = raw.find("\\")
    while at >= 0:
        if raw[at + 1 : at + 2] not in _ESCAPES:
            return None
        at = raw.find("\\", at + 2)
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


_WRITTEN_INT = rx.compile(r"0|-?[1-9][0-9]*")


def written_fields(head: str) -> dict | None:
    """The frontmatter ``frontmatter_lines`` writes, read without PyYAML: each line a key and a double-quoted
    string, a plain integer or ``[]``, or a key and its block list of double-quoted strings; no key twice. PyYAML
    reads such a head as these same values, so ``load`` takes them; None when any line is not of these shapes
    (``load`` then asks PyYAML). A memory file automem wrote is read without importing PyYAML (~7 CPU-ms)."""
    lines = head.split("\n")
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    fields: dict = {}
    key = None  # the key whose block list the next lines may add to
    empty = set()  # keys of block lists with no item yet (YAML reads a bare ``key:`` as null)
    for line in lines:
        if line.startswith("  - ") and key is not None:
            item = _written_string(line[4:])
            if item is None:
                return None
            fields[key].append(item)
            empty.discard(key)
            continue
        if line.startswith('"'):
            end = line.find('":')
            name = _written_string(line[: end + 1]) if end > 0 else None
            rest = line[end + 2 :]
        else:
            name, colon, rest = line.partition(":")
            if not colon or not _PLAIN_KEY.fullmatch(name) or name.lower() in _YAML_WORDS:
                return None
        if name is None or name in fields:
            return None
        key = None
        if not rest:
            fields[name] = []  # a block list: its items follow
            key = name
            empty.add(name)
            continue
        if rest[0] != " ":
            return None
        rest = rest[1:]
        if rest == "[]":
            fields[name] = []
        elif _WRITTEN_INT.fullmatch(rest):
            fields[name] = int(rest)
        else:
            value = _written_string(rest)
            if value is None:
                return None
            fields[name] = value
    return None if empty else fields


def load_yaml(head: str):
    """The value of one YAML document (PyYAML's safe loader; its C loader when built), or FrontmatterError."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(head, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        # the start of what it was reading (a key without its colon), else where it stopped; head's first line is
        # the rest of the opening ---, so a 0-based line in it is the file's 1-based one
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise FrontmatterError(f"{where}{getattr(exc, 'problem', None) or exc}") from None
    except (ValueError, OverflowError) as exc:  # a date or number out of range
        raise FrontmatterError(str(exc)) from None

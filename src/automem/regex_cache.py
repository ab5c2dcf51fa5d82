"""Compiled regexes kept across processes, the way Python keeps compiled modules in ``__pycache__``.

``re`` parses and compiles a pattern in pure Python; the engine (``_sre``) then takes the resulting code, a list of
integers. The detached worker reaches some 300 patterns and spent about a quarter of its CPU time on that step,
every run, for the same constant patterns. ``compile`` keeps each pattern's code in a file beside this module's
bytecode (same folder, same switches: nothing is written under ``-B``/``PYTHONDONTWRITEBYTECODE`` or to an
unwritable folder) and hands it straight to the engine the next time: the pattern is the one ``re.compile`` makes
(``Pattern.__eq__`` compares the code; tests/test_regex_cache.py checks every pattern of the extractor).

The file is keyed by the interpreter (its version string, the engine's magic and code width): any other
interpreter, or an unreadable file, starts afresh. Only constant patterns of automem's own modules belong here,
never one built from a transcript's text: the file holds each pattern's source.
"""

from __future__ import annotations

import os
import re
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing into every hook call
if TYPE_CHECKING:
    from typing import AnyStr

try:  # re's own parts (no stubs: typed as Any here)
    import _sre  # type: ignore[import-not-found]
    from re import _compiler, _parser  # type: ignore[attr-defined]

    # the code is kept as the bytes of 32-bit words, read back by a memoryview (the capture hooks import this
    # module: no array, no struct); an engine of another word size compiles as usual
    if _sre.CODESIZE != 4 or memoryview(bytes(4)).cast("I").itemsize != 4:
        raise ImportError("another code word size")
except ImportError:  # another implementation of ``re``: compile as usual
    _sre = None

_FORMAT = 1
_plain_compile = re.compile  # re's own, even while a caller routes re.compile through here
_MAX_ENTRIES = 4096  # past this many the file starts afresh (the project holds about 500 patterns)

# (flags, code, groups, groupindex, indexgroup): _sre.compile's arguments after the pattern, the code as bytes
# (marshal reads bytes at once; a list of ints it reads one by one, ten times slower)
Entry = tuple

_table: dict[tuple[str | bytes, int], Entry] | None = None  # what the file held, then what this process added
_added: dict[tuple[str | bytes, int], Entry] = {}
_flush_registered = False


def compile(pattern: AnyStr, flags: int | re.RegexFlag = 0) -> re.Pattern[AnyStr]:  # noqa: A001 - re.compile's stand-in
    """``re.compile(pattern, flags)``, from the code kept in the cache file when it holds the pattern."""
    flags = int(flags)
    if _sre is None or not isinstance(pattern, (str, bytes)) or flags & re.DEBUG:
        return _plain_compile(pattern, flags)
    table = _load() if _table is None else _table
    key = (pattern, flags)
    entry = table.get(key)
    if entry is not None:
        try:
            flags_, code, groups, groupindex, indexgroup = entry
            words = memoryview(code).cast("I").tolist()
            return _sre.compile(pattern, flags_, words, groups, groupindex, indexgroup)
        except Exception:  # noqa: BLE001 - a code the engine refuses (its validator) is compiled afresh
            pass
    try:
        compiled, entry = _compile(pattern, flags)
    except Exception:  # noqa: BLE001 - a bad pattern (re.compile raises its error), or re's internals changed shape
        return _plain_compile(pattern, flags)
    table[key] = _added[key] = entry
    _register_flush()
    return compiled


def _compile(pattern: AnyStr, flags: int) -> tuple[re.Pattern[AnyStr], Entry]:
    """What ``re._compiler.compile`` does, keeping the engine's arguments."""
    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    flags, groups = int(flags | parsed.state.flags), parsed.state.groups - 1
    compiled = _sre.compile(pattern, flags, code, groups, groupindex, tuple(indexgroup))
    from array import array

    return compiled, (flags, array("I", code).tobytes(), groups, groupindex, tuple(indexgroup))


def _stamp() -> tuple:
    return (_FORMAT, sys.version, sys.implementation.cache_tag, _sre.MAGIC, _sre.CODESIZE, sys.maxunicode)


def cache_path() -> str | None:
    """The cache file: beside this module's bytecode (None when the interpreter keeps no bytecode cache)."""
    try:
        from _frozen_importlib_external import cache_from_source  # importlib.util's, without importing that
    except ImportError:
        from importlib.util import cache_from_source
    try:
        return os.path.splitext(cache_from_source(__file__))[0] + ".patterns"
    except (NotImplementedError, ValueError):
        return None


def _read(path: str | None) -> dict[tuple[str | bytes, int], Entry]:
    if path is None:
        return {}
    import marshal

    try:
        with open(path, "rb") as handle:
            stamp, table = marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return table if stamp == _stamp() and isinstance(table, dict) else {}


def _load() -> dict[tuple[str | bytes, int], Entry]:
    global _table
    _table = _read(cache_path())
    return _table


def _register_flush() -> None:
    global _flush_registered
    if not _flush_registered:
        import atexit

        atexit.register(flush)
        _flush_registered = True


def flush() -> None:
    """Write what this process compiled into the cache file (merged with what others wrote meanwhile). A process
    that ends by ``os._exit`` calls this itself; any other does at exit."""
    if not _added or sys.dont_write_bytecode or _sre is None:
        return
    path = cache_path()
    if path is None:
        return
    import marshal

    table = _read(path)
    if len(table) + len(_added) > _MAX_ENTRIES:
        table = {}
    table.update(_added)
    _added.clear()
    temp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temp, "wb") as handle:
            handle.write(marshal.dumps((_stamp(), table)))
        os.replace(temp, path)  # a reader sees the old file or the new one, never half of one
    except OSError:
        try:
            os.unlink(temp)
        except OSError:
            pass

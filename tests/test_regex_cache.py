"""automem.regex_cache: a pattern made from the kept code is the one re.compile makes, and the file is only a cache."""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys

import pytest

import automem
from automem import lazy_re, regex_cache


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache file of this test's own, nothing loaded yet, and writing on (the suite may run under -B)."""
    path = str(tmp_path / "regex.patterns")
    monkeypatch.setattr(regex_cache, "cache_path", lambda: path)
    monkeypatch.setattr(regex_cache, "_table", None)
    monkeypatch.setattr(regex_cache, "_added", {})
    monkeypatch.setattr(regex_cache, "_flush_registered", True)  # no atexit hook left behind by a test
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return path


def _next_process(monkeypatch) -> None:
    """What a new process starts with: nothing loaded, nothing added."""
    monkeypatch.setattr(regex_cache, "_table", None)
    monkeypatch.setattr(regex_cache, "_added", {})


PATTERNS = [
    (r"(?P<user>\w+)@(?P<host>[\w.]+)", re.I),
    (r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", 0),  # a charset beyond Latin-1
    (r"(?i)(?:^|\b)no\b(?!\s*,)", 0),  # inline flags
    (r"^(a)(b)?(?(2)c|d)$", re.M | re.S),
    (rb"[\"']([A-Za-z0-9+/=_.-]{20,})[\"']", 0),  # bytes
]


def test_kept_code_makes_the_same_pattern(cache, monkeypatch):
    fresh = [regex_cache.compile(p, f) for p, f in PATTERNS]
    regex_cache.flush()
    _next_process(monkeypatch)

    def no_compiling(*_args, **_kwargs):
        raise AssertionError("compiled again: the kept code was not used")

    monkeypatch.setattr(regex_cache, "_compile", no_compiling)
    for (pattern, flags), first in zip(PATTERNS, fresh, strict=True):
        kept = regex_cache.compile(pattern, flags)
        plain = re.compile(pattern, flags)
        assert kept == plain == first  # Pattern equality compares the engine's code, flags and source
        assert (kept.groups, kept.groupindex, kept.flags) == (plain.groups, plain.groupindex, plain.flags)


def test_every_cached_pattern_of_automem_is_what_re_compiles(cache, monkeypatch):
    """Every pattern automem's modules make through the cache, rebuilt from the file, equals re.compile's."""
    for info in pkgutil.walk_packages(automem.__path__, "automem."):
        if info.name.endswith(("__main__", ".worker")):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, lazy_re._Lazy):
                regex_cache.compile(value.pattern, value._flags)
    patterns = dict(regex_cache._added)
    assert len(patterns) > 150
    regex_cache.flush()
    _next_process(monkeypatch)
    for pattern, flags in patterns:
        assert regex_cache.compile(pattern, flags) == re.compile(pattern, flags), pattern


def test_a_file_of_another_interpreter_or_a_broken_one_is_ignored(cache, monkeypatch):
    regex_cache.compile(r"a+b", 0)
    regex_cache.flush()
    _next_process(monkeypatch)
    monkeypatch.setattr(regex_cache, "_stamp", lambda: ("another", "interpreter"))
    assert regex_cache._read(cache) == {}
    with open(cache, "wb") as handle:
        handle.write(b"not marshal data")
    assert regex_cache._read(cache) == {}
    assert regex_cache.compile(r"a+b", 0) == re.compile(r"a+b")


def test_a_bad_pattern_raises_what_re_raises(cache):
    with pytest.raises(re.error):
        regex_cache.compile(r"(unclosed", 0)
    assert not regex_cache._added


def test_nothing_is_written_when_bytecode_is_not(cache, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    regex_cache.compile(r"x{2,}", 0)
    regex_cache.flush()
    assert regex_cache._read(cache) == {}


def test_what_another_process_wrote_meanwhile_is_kept(cache, monkeypatch):
    regex_cache.compile(r"first", 0)
    regex_cache.flush()
    _next_process(monkeypatch)
    regex_cache._load()  # this process read the file before the other wrote
    other = regex_cache._read(cache)
    other[("second", 0)] = regex_cache._compile("second", 0)[1]
    with open(cache, "wb") as handle:
        import marshal

        handle.write(marshal.dumps((regex_cache._stamp(), other)))
    regex_cache.compile(r"third", 0)
    regex_cache.flush()
    assert set(regex_cache._read(cache)) == {("first", 0), ("second", 0), ("third", 0)}

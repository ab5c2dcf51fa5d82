"""automem.lazy_re: a module-level pattern compiles on first use and then is the compiled pattern's methods."""

from __future__ import annotations

import importlib
import pkgutil
import re

import automem.extract
from automem import lazy_re


def test_a_lazy_pattern_does_what_the_compiled_one_does():
    lazy = lazy_re.compile(r"(\w+)@(\w+)", re.I)
    plain = re.compile(r"(\w+)@(\w+)", re.I)
    assert "_compiled" not in vars(lazy)  # nothing compiled yet
    text = "Mail A@B and c@d"
    assert lazy.search(text).groups() == plain.search(text).groups()
    compiled = vars(lazy)["_compiled"]
    assert compiled == plain and vars(lazy)["search"] == compiled.search  # its own attribute from now on
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in plain.finditer(text)]
    assert lazy.sub(r"\2", text) == plain.sub(r"\2", text) and lazy.findall(text) == plain.findall(text)
    assert (lazy.pattern, lazy.flags, lazy.groups) == (plain.pattern, plain.flags, plain.groups)
    assert lazy.fullmatch("x@y") and not lazy.match(" x@y") and lazy.split(text) == plain.split(text)


def _lazy_patterns(value, seen: set[int]):
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, lazy_re._Lazy):
        yield value
    elif isinstance(value, (tuple, list, set, frozenset)):
        for item in value:
            yield from _lazy_patterns(item, seen)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _lazy_patterns(item, seen)


def test_every_lazy_pattern_of_the_extractor_compiles():
    """A pattern is compiled on first use: a broken one must not wait for the one session that reaches it."""
    seen: set[int] = set()
    found = []
    for info in pkgutil.walk_packages(automem.extract.__path__, "automem.extract."):
        module = importlib.import_module(info.name)
        found.extend(_lazy_patterns(list(vars(module).values()), seen))
    assert len(found) > 150
    for pattern in found:
        assert isinstance(pattern.groups, int), pattern  # compiles it (a bad pattern raises re.error here)

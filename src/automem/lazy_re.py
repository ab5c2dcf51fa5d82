"""Regexes compiled on first use, for the rule tables of the detached worker's modules and of the capture hooks.

The extractor's modules hold about 300 patterns, and ``re`` compiles each in pure Python (its parser and compiler):
about 45 CPU-ms of a worker's start, of which a third goes to patterns a given session never reaches (other
languages' cue words, error shapes it does not have), and the rest comes from regex_cache once a run has compiled
them. ``compile`` returns a stand-in that compiles its pattern the first time it is used, then serves the
compiled pattern's methods as its own attributes (no indirection after that). It offers what a ``re.Pattern``
does to code that uses one (methods and attributes), not to ``re``'s functions: pass it to ``re.sub`` and the
like and they refuse it, so a module-level pattern made here is used through its methods only. The capture hooks
import this module too: it imports nothing but ``re`` and regex_cache.
"""

from __future__ import annotations

import re

from automem import regex_cache

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing into every hook call
if TYPE_CHECKING:
    from typing import AnyStr

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")


class _Lazy:
    """A pattern that compiles itself the first time one of its methods or attributes is asked for."""

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str):
        # only called for what the instance does not have yet: the methods, once compiled, are its own attributes
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = regex_cache.compile(self.pattern, self._flags)
            self._compiled = compiled
            for method in _METHODS:
                setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_re.compile({self.pattern!r}, {self._flags!r})"


def compile(pattern: AnyStr, flags: int | re.RegexFlag = 0) -> re.Pattern[AnyStr]:  # noqa: A001 - re.compile's stand-in
    """``re.compile(pattern, flags)``, done the first time the pattern is used."""
    return _Lazy(pattern, int(flags))  # type: ignore[return-value]  # it offers what a re.Pattern does

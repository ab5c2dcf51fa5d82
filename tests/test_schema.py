"""schema.py is the one list of memory types: no other module spells them out (an AST walk, nothing imported)."""

from __future__ import annotations

import ast
from pathlib import Path

from automem import brief
from automem.schema import MEMORY_KIND, SEARCH_TYPES, TEXT_KINDS, TYPES

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "automem"

# orders and caps over the types, not lists of them: the brief shows preferences first, and caps each type
ORDERS = {("brief.py", "TYPE_ORDER"), ("brief.py", "PER_TYPE_CAP")}


def _literals(tree: ast.AST):
    """(the name it is assigned to or "", the strings) of every tuple, list, set and dict-keys literal."""
    named: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and node.value is not None:
                    named[id(node.value)] = target.id
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [key for key in node.keys if key is not None]
        else:
            continue
        strings = {item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)}
        yield node.lineno, named.get(id(node), ""), strings


def test_no_module_but_schema_lists_the_memory_types():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "schema.py":
            continue
        for line, name, strings in _literals(ast.parse(path.read_text(encoding="utf-8"))):
            if set(TYPES) <= strings and (rel, name) not in ORDERS:
                bad.append(f"{rel}:{line} {name or 'a literal'} lists the memory types: use automem.schema.TYPES")
    assert bad == [], "\n".join(bad)


def test_the_walk_sees_a_list_of_the_types():
    code = f"CHOICES = {list(TYPES) + ['bank']!r}\ndef f(t):\n    return t in {tuple(TYPES)!r}\n"
    found = [(name, strings) for _line, name, strings in _literals(ast.parse(code)) if set(TYPES) <= strings]
    assert [name for name, _strings in found] == ["CHOICES", ""]


def test_the_brief_orders_and_caps_exactly_the_types():
    assert sorted(brief.TYPE_ORDER) == sorted(TYPES)
    assert sorted(brief.PER_TYPE_CAP) == sorted(TYPES)


def test_a_search_narrows_to_a_type_every_memory_or_one_kind_of_file():
    assert SEARCH_TYPES == (*TYPES, MEMORY_KIND, *TEXT_KINDS)
    assert len(set(SEARCH_TYPES)) == len(SEARCH_TYPES)

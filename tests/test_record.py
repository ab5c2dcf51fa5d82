"""``automem.record`` against ``dataclasses``: the same class written both ways behaves the same."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections import Counter
from typing import ClassVar

import pytest

from automem import record as rec


def _shape(decorator, field, frozen: bool):
    @decorator(frozen=frozen)
    class Shape:
        """A shape."""

        name: str
        sides: int = 3
        tags: list[str] = field(default_factory=list)
        hidden: dict = field(default_factory=dict, repr=False, compare=False)
        counts: Counter = field(default_factory=Counter)

        def area(self) -> int:
            return self.sides * 2

    return Shape


def _both(frozen: bool = False):
    """The same class body made into a dataclass and a record."""
    return _shape(dataclasses.dataclass, dataclasses.field, frozen), _shape(rec._record, rec._field, frozen)


@pytest.mark.parametrize("frozen", [False, True])
def test_a_record_behaves_as_the_same_dataclass(frozen):
    dc, rc = _both(frozen)
    for args, kwargs in [(("tri",), {}), (("sq", 4), {}), ((), {"name": "x", "tags": ["a"]}), (("p", 5, ["t"]), {})]:
        a, b = dc(*args, **kwargs), rc(*args, **kwargs)
        assert repr(a).replace("Shape", "X") == repr(b).replace("Shape", "X")
        assert vars(a) == vars(b) and list(vars(a)) == list(vars(b))  # same fields, same order
        assert b.area() == a.area()
        assert b == rc(*args, **kwargs) and b != rc("other")
        assert (b == a) is False  # another class: never equal
    assert rc("a").tags is not rc("a").tags  # a fresh list each time
    b1, b2 = rc("a", hidden={"x": 1}), rc("a", hidden={"y": 2})
    assert b1 == b2  # compare=False
    assert "hidden" not in repr(b1)  # repr=False
    if frozen:
        with pytest.raises(AttributeError):
            b1.name = "z"
        with pytest.raises(rec.FrozenInstanceError):
            del b1.name
        hashable = {"tags": ("t",), "counts": ()}  # hashed as a tuple of the compared fields
        assert hash(rc("a", **hashable)) == hash(rc("a", **hashable)) == hash(dc("a", **hashable))
    else:
        b1.name = "z"
        assert b1.name == "z"
        with pytest.raises(TypeError):
            hash(b1)
    assert rc.__match_args__ == dc.__match_args__


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((), {}),  # a required field missing
        (("a", 1, [], {}, Counter(), "extra"), {}),  # too many positional
        (("a",), {"name": "b"}),  # twice
        (("a",), {"colour": "red"}),  # unknown
    ],
)
def test_bad_arguments_raise_type_error_like_dataclasses(args, kwargs):
    dc, rc = _both()
    with pytest.raises(TypeError):
        dc(*args, **kwargs)
    with pytest.raises(TypeError):
        rc(*args, **kwargs)


def test_class_rules_of_dataclasses_hold():
    with pytest.raises(TypeError, match="non-default argument"):

        @rec._record
        class Bad:
            a: int = 1
            b: int

    with pytest.raises(ValueError, match="mutable default"):

        @rec._record
        class Mutable:
            a: list = []  # noqa: RUF012

    with pytest.raises(ValueError):
        rec._field(default=1, default_factory=list)


def test_inheritance_reads_as_dataclasses_reads_it():
    for decorator in (dataclasses.dataclass, rec._record):

        @decorator
        class Base:
            x: int = 5

        @decorator
        class Child(Base):
            x: int  # re-annotated: keeps the base's default
            y: str = "y"

        assert (Child().x, Child().y) == (5, "y")
        with pytest.raises(TypeError):
            decorator(frozen=True)(type("Frozen", (Base,), {"__annotations__": {"z": "int"}, "z": 1}))


def test_post_init_class_vars_inheritance_and_own_methods():
    calls = []

    @rec._record
    class Base:
        a: int
        b: str = "x"
        kind: ClassVar[str] = "base"

        def __post_init__(self) -> None:
            calls.append(self.a)

    @rec._record
    class Child(Base):
        c: float = 0.5
        b: str = "y"

        def __repr__(self) -> str:
            return "mine"

    child = Child(1)
    assert (child.a, child.b, child.c) == (1, "y", 0.5)
    assert list(vars(child)) == ["a", "b", "c"]
    assert Child.__match_args__ == ("a", "b", "c")
    assert repr(child) == "mine" and repr(Base(2)).endswith(".Base(a=2, b='x')")  # the qualified name, as dataclasses
    assert Base.kind == "base" and "kind" not in vars(Base(3))
    assert calls == [1, 2, 3]


def test_records_of_the_worker_need_no_dataclasses():
    """The classes a Stop worker makes are records: importing them brings in neither dataclasses nor what it
    imports (inspect, ast, dis, tokenize)."""
    code = (
        "import sys\n"
        "import automem.bank.passes, automem.extract.pipeline, automem.extract.directives\n"
        "print(sorted(m for m in ('dataclasses', 'inspect', 'ast', 'dis', 'tokenize') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"

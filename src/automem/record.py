"""``@record``: the part of ``@dataclass`` automem's data classes use, made without compiling code.

``dataclasses`` writes each class's ``__init__``, ``__repr__`` and ``__eq__`` as source text and compiles it:
about half a CPU-ms a class, and the detached Stop worker makes some fifteen classes on every run. ``record``
makes the same methods from closures over the class's fields. It knows what these classes use: fields with
defaults, ``field(default=..., default_factory=..., repr=..., compare=...)``, ``frozen=True``, ``__post_init__``,
a record class deriving from another. A class needing more of dataclasses (``asdict``, ``slots``, ``order``) uses
dataclasses. Type checkers are told ``record`` is ``dataclasses.dataclass`` and ``field`` its ``field``, so each
record class is checked as a dataclass; tests/test_record.py checks that one behaves as the same dataclass does.
"""

from __future__ import annotations

from operator import attrgetter

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing for it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a frozen record (dataclasses' error of the same name)."""


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


class Field:
    """A field's options, as ``field()`` gives them."""

    __slots__ = ("default", "default_factory", "repr", "compare")

    def __init__(self, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True, compare: bool = True):  # noqa: A002
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare


def _field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    repr: bool = True,
    compare: bool = True,  # noqa: A002
) -> Any:
    return Field(default, default_factory, repr, compare)


_FIELDS = "__record_fields__"  # the class's fields in order: (name, Field)
_FROZEN = "__record_frozen__"


def _record(cls: type | None = None, /, *, frozen: bool = False) -> Any:
    def wrap(cls: type) -> type:
        return _make(cls, frozen)

    return wrap if cls is None else wrap(cls)


def _is_class_var(annotation: object) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return isinstance(text, str) and text.split("[", 1)[0].rsplit(".", 1)[-1] == "ClassVar"


def _make(cls: type, frozen: bool) -> type:
    fields: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        if _FIELDS in base.__dict__:
            if base.__dict__.get(_FROZEN, False) != frozen:
                raise TypeError("a frozen record and a record that is not cannot derive from each other")
            fields.update(base.__dict__[_FIELDS])
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if _is_class_var(annotation):
            continue
        value = getattr(cls, name, MISSING)  # a base's default too, as dataclasses reads it
        spec = value if isinstance(value, Field) else Field(default=value)
        if isinstance(value, Field):
            if spec.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
        if spec.default is not MISSING and type(spec.default).__hash__ is None:
            raise ValueError(
                f"mutable default {type(spec.default)} for field {name} is not allowed: use default_factory"
            )
        fields[name] = spec  # a field a subclass names again keeps its place, with the subclass's options
    setattr(cls, _FIELDS, fields)
    setattr(cls, _FROZEN, frozen)
    names = tuple(fields)
    seen_default = False
    for name, spec in fields.items():
        has_default = spec.default is not MISSING or spec.default_factory is not MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {name!r} follows default argument")
        seen_default = seen_default or has_default

    shown = tuple(name for name, spec in fields.items() if spec.repr)
    compared = tuple(name for name, spec in fields.items() if spec.compare)
    own = cls.__dict__
    _set(cls, "__init__", _init(cls.__qualname__, fields, hasattr(cls, "__post_init__")))
    _set(cls, "__repr__", _repr(shown))
    _set(cls, "__eq__", _eq(compared))
    if frozen:
        _set(cls, "__setattr__", _frozen_setattr)
        _set(cls, "__delattr__", _frozen_delattr)
    if "__hash__" not in own or own["__hash__"] is None:  # dataclasses' rule for eq=True: hashable when frozen
        cls.__hash__ = _hash(compared) if frozen else None  # type: ignore[assignment]
    _set(cls, "__match_args__", names)
    return cls


def _set(cls: type, name: str, value: object) -> None:
    if name not in cls.__dict__:  # a method the class writes itself stays, as with dataclasses
        setattr(cls, name, value)


def _init(qualname: str, fields: dict[str, Field], post_init: bool) -> Callable[..., None]:
    names = tuple(fields)
    count = len(names)
    allowed = frozenset(names)
    # every field in order, holding its plain default (MISSING for a required one, or one a factory fills): copied
    # into the instance in one go, then the arguments and the factories' values over it, each in its place
    start = {name: spec.default for name, spec in fields.items()}
    factories = tuple(
        (name, spec.default_factory) for name, spec in fields.items() if spec.default_factory is not MISSING
    )
    required = tuple(
        name for name, spec in fields.items() if spec.default is MISSING and spec.default_factory is MISSING
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        values = self.__dict__
        values.update(start)
        if args:
            if len(args) > count:
                raise TypeError(
                    f"{qualname}.__init__() takes {count + 1} positional arguments but {len(args) + 1} were given"
                )
            values.update(zip(names, args, strict=False))  # args may be fewer than the fields
        if kwargs:
            if not allowed.issuperset(kwargs):
                unknown = next(key for key in kwargs if key not in allowed)
                raise TypeError(f"{qualname}.__init__() got an unexpected keyword argument {unknown!r}")
            if args:
                for name in names[: len(args)]:
                    if name in kwargs:
                        raise TypeError(f"{qualname}.__init__() got multiple values for argument {name!r}")
            values.update(kwargs)
        for name, factory in factories:
            if values[name] is MISSING:
                values[name] = factory()
        for name in required:
            if values[name] is MISSING:
                missing = [n for n in required if values[n] is MISSING]
                raise TypeError(f"{qualname}.__init__() missing {len(missing)} required argument(s): {missing}")
        if post_init:
            self.__post_init__()

    __init__.__qualname__ = f"{qualname}.__init__"
    return __init__


def _repr(shown: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in shown)})"

    return __repr__


def _values(compared: tuple[str, ...]) -> Callable[[Any], tuple]:
    if not compared:
        return lambda _self: ()
    get = attrgetter(*compared)
    return (lambda self: (get(self),)) if len(compared) == 1 else get


def _eq(compared: tuple[str, ...]) -> Callable[[Any, object], Any]:
    values = _values(compared)

    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return values(self) == values(other)

    return __eq__


def _hash(compared: tuple[str, ...]) -> Callable[[Any], int]:
    values = _values(compared)
    return lambda self: hash(values(self))


def _frozen_setattr(self: Any, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


if TYPE_CHECKING:
    from dataclasses import dataclass as record
    from dataclasses import field
else:
    record, field = _record, _field

"""A faster :func:`dataclasses.replace` for the frozen records the hot path copies with a change.

``dataclasses.replace`` walks the class's fields, builds the keyword arguments and calls ``__init__``, which for
a frozen class sets every field with ``object.__setattr__``: about 30 µs for the 21 fields of an
``EngineSettings``, which the layout search copies with another layout thousands of times in a lint.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")
C = TypeVar("C", bound=type)


def python_class(cls: C) -> C:
    """``cls`` as it is. As a class decorator it keeps a class of a module compiled by mypyc (scripts/build-mypyc.sh)
    a Python class: mypyc makes a native class (its fields in C slots, no ``__dict__``) only of a class whose
    decorators are all ones it knows, and :func:`evolve` and the sizing make these records from a dict."""
    return cls


def evolve(obj: T, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)`` for a dataclass whose ``__init__`` only sets its fields: no
    ``__post_init__``, no ``InitVar``, no ``field(init=False)``, no cached property in its ``__dict__`` (the
    copy is of the instance's dict). ``changes`` must name fields."""
    assert changes.keys() <= obj.__dataclass_fields__.keys(), changes  # type: ignore[attr-defined]
    new = object.__new__(type(obj))
    d = new.__dict__
    d.update(obj.__dict__)
    d.update(changes)
    return new

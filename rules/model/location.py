"""Where an object of the inventory came from: :class:`Location` (re-exported by :mod:`.inventory` and the model's
face). A module of its own so that ``make setup`` compiles it with mypyc (scripts/mypyc_build.py): a lint makes about
31 locations a file and, with two jobs, pickles and unpickles about 28 of them on their way to the parent.

Compiled, the class is a native class: the compiled readers make one by a direct C call (about 900 instructions
with the list it goes into, where a Python dataclass made from compiled code cost about 2,200), and ``__reduce__``'s
pickling and the unpickling's call are C too. It is written as a plain class and not as a ``@dataclass``: mypyc keeps a
dataclass's generated ``__init__`` as a Python function, which made a compiled frozen dataclass dearer than the
Python one (about 5,900 instructions). The methods are those ``@dataclass(frozen=True)`` wrote (``__eq__`` against
the same class only, ``__hash__`` of the three fields' tuple, the same ``repr``); the fields are ``Final``, which
mypy holds every write to and the compiled class refuses at run time (``AttributeError``; from the source, not
compiled, only mypy holds them)."""

from __future__ import annotations

from typing import Final


class Location:
    """Where an object came from: a file and line, or a Pulumi URN."""

    __slots__ = ("file", "line", "urn")

    def __init__(self, file: str | None = None, line: int | None = None, urn: str | None = None) -> None:
        self.file: Final = file
        self.line: Final = line
        self.urn: Final = urn

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            assert isinstance(other, Location)
            return (self.file, self.line, self.urn) == (other.file, other.line, other.urn)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.file, self.line, self.urn))

    def __repr__(self) -> str:
        return f"Location(file={self.file!r}, line={self.line!r}, urn={self.urn!r})"

    def __reduce__(self) -> tuple[type[Location], tuple[str | None, int | None, str | None]]:
        # to and from a process of a parallel run (adapters._load_parallel, engine.split): the three values
        return (Location, (self.file, self.line, self.urn))

    def __str__(self) -> str:
        if self.file:
            return f"{self.file}:{self.line}" if self.line else self.file
        return self.urn or "<unknown location>"

"""Errors shardwise raises for bad input. The CLI turns each into one clear line and exit 2."""

from __future__ import annotations


class ShardwiseError(Exception):
    """Base class for every error shardwise reports to a user."""


class InputError(ShardwiseError):
    """Bad input: unparseable file, wrong type, absurd number. Names the file and line when known, and the
    column (1-based, as editors count) where the reader gives one: a YAML syntax error."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column if line else None
        super().__init__(self.__str__())

    def __reduce__(self):  # type: ignore[override]  # survives a trip to and from a worker process
        if self.column is None:  # subclasses whose __init__ takes other arguments after line
            return (type(self), (self.message, self.file, self.line))
        return (type(self), (self.message, self.file, self.line, self.column))

    @property
    def position(self) -> str:
        """``line`` or ``line:column``; empty without a line."""
        if not self.line:
            return ""
        return f"{self.line}:{self.column}" if self.column else str(self.line)

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.position}: " if self.line else f"{self.file}: "
        return f"{where}{self.message}"


class CatalogError(InputError):
    """An unknown GPU, instance type or model; the message suggests close matches."""


def detached(error: BaseException) -> BaseException:
    """``error``, kept as a value past the handler that caught it, without the tracebacks of it and of the errors it
    was raised from or during (``__cause__``, ``__context__``): a traceback holds the frames it passed through, each
    frame its caller's, and the frame that keeps the error holds it, a reference cycle that only the garbage
    collector frees (the pack serves with it off: ``rules/__main__.py``, review29). Returns ``error``."""
    seen: set[int] = set()
    todo: list[BaseException] = [error]
    while todo:
        link = todo.pop()
        if id(link) in seen:
            continue
        seen.add(id(link))
        link.__traceback__ = None
        todo.extend(e for e in (link.__cause__, link.__context__) if e is not None)
    return error

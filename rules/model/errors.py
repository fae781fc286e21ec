"""Errors shardwise raises for bad input. The CLI turns each into one clear line and exit 2."""

from __future__ import annotations


class ShardwiseError(Exception):
    """Base class for every error shardwise reports to a user."""


class InputError(ShardwiseError):
    """Bad input: unparseable file, wrong type, absurd number. Names the file and line when known."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        super().__init__(self.__str__())

    def __reduce__(self):  # type: ignore[override]  # survives a trip to and from a worker process
        return (type(self), (self.message, self.file, self.line))

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        return f"{where}{self.message}"


class CatalogError(InputError):
    """An unknown GPU, instance type or model; the message suggests close matches."""

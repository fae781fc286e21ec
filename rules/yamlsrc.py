"""YAML loading that keeps line numbers, fast (libyaml's parser when present).

Mappings load as :class:`LineDict`, a ``dict`` that also knows the line of itself and of each key,
so adapters can point findings and input errors at ``file:line``. Lines are 1-based.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import yaml

from .errors import InputError

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class LineDict(dict):
    """A mapping that remembers where it and each of its keys were written."""

    __slots__ = ("line", "key_lines")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line: int | None = None
        self.key_lines: dict[str, int] = {}

    def line_of(self, key: str) -> int | None:
        return self.key_lines.get(key, self.line)


class _LineLoader(_Base):  # type: ignore[misc, valid-type]
    pass


def _construct_mapping(loader: Any, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    d = LineDict()
    d.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise InputError(
                f"unhashable mapping key at line {key_node.start_mark.line + 1}"
            ) from None
        d[key] = loader.construct_object(value_node, deep=True)
        if isinstance(key, str):
            d.key_lines[key] = key_node.start_mark.line + 1
    return d


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_all(text: str, file: str) -> Iterator[Any]:
    """Yield each document of ``text``; raise :class:`InputError` with file and line on a YAML error."""
    try:
        yield from yaml.load_all(text, Loader=_LineLoader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = e.problem or e.context or "invalid YAML"
        raise InputError(f"cannot parse YAML: {problem}", file, line) from None
    except yaml.YAMLError as e:
        raise InputError(f"cannot parse YAML: {e}", file) from None
    except RecursionError:
        raise InputError("cannot parse YAML: nesting too deep", file) from None


def read_text(path: str) -> str:
    """Read a file (``-`` for stdin) as UTF-8 text, or raise :class:`InputError`."""
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except UnicodeDecodeError:
        raise InputError("not a UTF-8 text file", path) from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", path) from None

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


def _bad_scalar(tag: str, value: str, implicit: bool, err: Exception, mark: Any) -> yaml.MarkedYAMLError:
    """A scalar PyYAML's constructor rejects (``2024-13-45``, ``!!float abc``) as a YAML error at its line."""
    kind = tag.rsplit(":", 1)[-1]
    hint = "; quote it to keep it as text" if implicit else ""
    return yaml.constructor.ConstructorError(None, None, f"{value!r} is not a valid {kind} ({err}){hint}", mark)


class _LineLoader(_Base):  # type: ignore[misc, valid-type]
    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as e:  # a scalar constructor's own error, not a YAMLError
            if not isinstance(node, yaml.ScalarNode):
                raise
            raise _bad_scalar(node.tag, node.value, False, e, node.start_mark) from None


def _construct_mapping(loader: Any, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    d = LineDict()
    d.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, f"unhashable mapping key at line {key_node.start_mark.line + 1} "
                "(a key must be text or a number)", key_node.start_mark,
            ) from None
        d[key] = loader.construct_object(value_node, deep=True)
        if isinstance(key, str):
            d.key_lines[key] = key_node.start_mark.line + 1
    return d


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


class _Fallback(Exception):
    """The text uses a feature the event loader leaves to PyYAML's constructor (anchors, tags, merges)."""


_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAGS = (None, "tag:yaml.org,2002:map")
_SEQ_TAGS = (None, "tag:yaml.org,2002:seq")
_resolved: dict[tuple[str, tuple[bool, bool]], str] = {}
_scalar_ctor = yaml.SafeLoader("")  # only its scalar constructors are called: they keep no state


def _load_events(text: str) -> list[Any]:
    """Build the documents straight from libyaml's events: the same values and lines as
    :class:`_LineLoader`, without PyYAML's node graph. Raises :class:`_Fallback` for anchors,
    aliases, explicit tags, ``<<`` merge keys and duplicate or unhashable keys."""
    from yaml.events import (
        AliasEvent,
        DocumentEndEvent,
        DocumentStartEvent,
        MappingEndEvent,
        MappingStartEvent,
        ScalarEvent,
        SequenceEndEvent,
        SequenceStartEvent,
        StreamEndEvent,
    )

    loader = _Base(text)
    get, resolve = loader.get_event, loader.resolve
    constructors = yaml.SafeLoader.yaml_constructors
    nokey = _Fallback  # a sentinel no YAML value can be
    docs: list[Any] = []
    stack: list[tuple[Any, Any, int | None]] = []
    cur: Any = None
    key: Any = nokey
    key_line: int | None = None
    root: Any = None
    try:
        while True:
            ev = get()
            cls = ev.__class__
            if cls is ScalarEvent:
                if ev.anchor is not None:
                    raise _Fallback
                tag = ev.tag
                if tag is None or tag == "!":
                    if ev.implicit[0]:
                        k = (ev.value, ev.implicit)
                        tag = _resolved.get(k)
                        if tag is None:
                            tag = _resolved[k] = resolve(yaml.ScalarNode, ev.value, ev.implicit)
                    else:
                        tag = _STR_TAG
                if tag == _STR_TAG:
                    val = ev.value
                else:
                    ctor = constructors.get(tag)
                    if ctor is None:
                        raise _Fallback
                    try:
                        val = ctor(_scalar_ctor, yaml.ScalarNode(tag, ev.value, ev.start_mark, ev.end_mark,
                                                                 ev.style))
                    except (ValueError, OverflowError) as e:  # 2024-13-45 resolves as a timestamp
                        raise _bad_scalar(tag, ev.value, ev.tag is None, e, ev.start_mark) from None
                line: int | None = ev.start_mark.line + 1
            elif cls is MappingStartEvent:
                if ev.anchor is not None or (ev.tag not in _MAP_TAGS and not ev.implicit):
                    raise _Fallback
                d = LineDict()
                d.line = ev.start_mark.line + 1
                stack.append((cur, key, key_line))
                cur, key = d, nokey
                continue
            elif cls is SequenceStartEvent:
                if ev.anchor is not None or (ev.tag not in _SEQ_TAGS and not ev.implicit):
                    raise _Fallback
                stack.append((cur, key, key_line))
                cur, key = [], nokey
                continue
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                val, line = cur, None
                cur, key, key_line = stack.pop()
            elif cls is DocumentStartEvent:
                cur, key, stack = None, nokey, []
                continue
            elif cls is DocumentEndEvent:
                docs.append(root)
                root = None
                continue
            elif cls is StreamEndEvent:
                return docs
            elif cls is AliasEvent:
                raise _Fallback
            else:  # StreamStartEvent
                continue
            if cur is None:
                root = val
            elif cur.__class__ is list:
                cur.append(val)
            elif key is nokey:
                if val == "<<" or val.__class__ in (list, LineDict) or val in cur:
                    raise _Fallback
                key, key_line = val, line
            else:
                cur[key] = val
                if key.__class__ is str:
                    cur.key_lines[key] = key_line
                key = nokey
    finally:
        loader.dispose()


#: A document whose aliases make it larger than this is refused (a "billion laughs": a few lines of
#: anchors that expand to billions of values, which every reader of the document would then walk).
MAX_EXPANDED_VALUES = 1_000_000


def _expanded_size(root: Any, limit: int) -> int:
    """How many values ``root`` holds with every alias expanded (shared lists and mappings counted each
    time they appear), a number above ``limit`` as soon as it passes it, or -1 when a list holds itself.
    Linear in the distinct values."""
    if not isinstance(root, dict | list):
        return 1
    sizes: dict[int, int] = {}
    pending: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        items = node.values() if isinstance(node, dict) else node
        if children_done:
            total = 1 + sum(sizes.get(id(c), 1) for c in items)
            if total > limit:
                return total
            sizes[key] = total
            pending.discard(key)
        elif key in pending:
            return -1  # it contains itself
        elif key not in sizes:
            pending.add(key)
            stack.append((node, True))
            stack.extend((c, False) for c in items if isinstance(c, dict | list) and id(c) not in sizes)
    return sizes[id(root)]


def load_all(text: str, file: str) -> Iterator[Any]:
    """Yield each document of ``text``; raise :class:`InputError` with file and line on a YAML error.

    Plain documents are built from libyaml's events (fast); a text with anchors, aliases, tags or
    merge keys goes through PyYAML's constructor with the same result.
    """
    try:
        try:
            yield from _load_events(text)
            return
        except _Fallback:
            pass
        loader = _LineLoader(text)  # yaml.load_all, with each document's line
        try:
            while loader.check_node():
                node = loader.get_node()
                doc = loader.construct_document(node)
                size = _expanded_size(doc, MAX_EXPANDED_VALUES)
                if size < 0 or size > MAX_EXPANDED_VALUES:
                    what = "make a list that contains itself" if size < 0 else \
                        f"expand to more than {MAX_EXPANDED_VALUES:,} values"
                    raise InputError(f"cannot parse YAML: its aliases {what}", file, node.start_mark.line + 1)
                yield doc
        finally:
            loader.dispose()
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
            buffer = getattr(sys.stdin, "buffer", None)
            if buffer is not None:  # not sys.stdin's own decoding: it may be surrogateescape
                return buffer.read().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
            text = sys.stdin.read()
            text.encode("utf-8")  # a replaced stdin may still hold lone surrogates
            return text
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (UnicodeDecodeError, UnicodeEncodeError):
        raise InputError("not a UTF-8 text file", "<stdin>" if path == "-" else path) from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", path) from None

"""The Python YAML reader (PyYAML): what the compiled reader (``rules/_yamlfast``) leaves to it, and the
whole reading where it is not built (or ``SHARDWISE_PURE_YAML=1``).

:mod:`.yamlsrc` is the way in: it reads a text with the compiled reader first and imports this module only
for a text that reader does not take (anchors, aliases, tags, merge keys, a plain scalar it cannot type
alone, every error), so a run over plain manifests never imports PyYAML (start-up time). The values, lines
and error messages are the same whichever reader built them.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

import yaml
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

from ..model.errors import InputError
from ..model.files import MAX_FILE_BYTES, size_text
from .yamlsrc import (
    _INT_TAG,
    _MAP_TAGS,
    _NOT_HERE,
    _SCALAR_TAGS,
    _SEQ_TAGS,
    _STR_TAG,
    _WHAT,
    MAX_EXPANDED_CHARS,
    MAX_EXPANDED_VALUES,
    TEMPLATE_PROBLEM,
    TERRAFORM_DIRECTIVE_PROBLEM,
    LineDict,
    LocalTagError,
    YamlTooCostly,
    _bad_character,
    _directive_line,
    _Fallback,
    _short,
    _template_line,
)

_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_FLOAT_TAG = "tag:yaml.org,2002:float"
#: YAML 1.1's ints and floats as kubectl reads them (sigs.k8s.io/yaml, its goyaml.v2 fork): binary, octal (``0777``),
#: decimal and hex ints, floats, ``.inf`` and ``.nan``, but no base-60 numbers (``1:30`` is text, "purposefully not
#: supported" in goyaml's README), and no timestamps (goyaml.v2 decodes an unquoted ``2024-01-31`` into an
#: ``interface{}`` as the string, "for backward compatibility"): PyYAML's resolvers without those forms (hostile8).
#: goyaml.v2's resolve.go reads a plain scalar that starts with a digit or a sign with Go's
#: ``strconv.ParseInt(plain, 0, 64)`` once its ``_`` are dropped, and base 0 takes the prefixes ``0x``, ``0o``, ``0b``
#: in either case (``0X10`` is 16, ``0o10`` and ``0O10`` are 8, ``0B10`` is 2) and a leading ``0`` (octal): all ints
#: to kubectl, so ``nvidia.com/gpu: 0o10`` is 8 GPUs and ``replicas: 0X2`` two replicas (review27; YAML 1.1's own
#: int has only ``0b``, ``0x`` and the leading ``0``, so PyYAML read ``0o10`` as text).
_KUBE_INT = re.compile(r"""^(?:[-+]?0[bB][0-1_]+
    |[-+]?0[oO][0-7_]+
    |[-+]?0[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0[xX][0-9a-fA-F_]+)$""", re.X)
#: A plain scalar no int takes is a float to goyaml.v2 where, its ``_`` dropped, it matches resolve.go's
#: ``yamlStyleFloat`` (``[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?``): ``1e3`` and ``1.5e3`` (an exponent
#: without a sign), ``-.5``, and ``08`` (no octal) are floats to kubectl, where YAML 1.1 has them text (review27).
#: PyYAML tries the float resolver before the int one, so the whole numbers an int takes are left out here.
_KUBE_FLOAT = re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9][0-9_]*)?
    |[-+]?[0-9][0-9_]*[eE][-+]?[0-9][0-9_]*
    |[-+]?0[0-9_]*[89][0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""", re.X)


#: YAML 1.1's "value key" type: PyYAML resolves a plain ``=`` to it and has no constructor for it.
_VALUE_TAG = "tag:yaml.org,2002:value"


def _kube_resolvers(base: Any) -> dict[str, list[tuple[str, Any]]]:
    """``base``'s implicit resolvers with YAML 1.1's base-60 numbers, timestamps and value key left out (text, as
    kubectl reads them). A plain ``=`` (an AlertmanagerConfig matcher's ``matchType: =``) is the text "=":
    goyaml.v2's resolve table (resolve.go: bools, nulls, .inf/.nan and ``<<``) has no entry for it, so it
    resolves as a string, where PyYAML refused it ("could not determine a constructor", corpus29)."""
    swap = {_INT_TAG: _KUBE_INT, _FLOAT_TAG: _KUBE_FLOAT}
    return {first: kept for first, pairs in base.yaml_implicit_resolvers.items()
            if (kept := [(tag, swap.get(tag, rx)) for tag, rx in pairs if tag not in (_TIMESTAMP_TAG, _VALUE_TAG)])}


class _KubeLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader (libyaml's where built), resolving plain scalars as kubectl does
    (:func:`_kube_resolvers`)."""


class _KubeScalars(yaml.SafeLoader):
    """The pure-Python safe loader with the same resolvers: its scalar constructors type a plain scalar."""


_KubeLoader.yaml_implicit_resolvers = _kube_resolvers(yaml.SafeLoader)
_KubeScalars.yaml_implicit_resolvers = _kube_resolvers(yaml.SafeLoader)

#: The bases of :data:`_KUBE_INT`'s prefixes (Go's ``strconv.ParseInt`` with base 0 reads them in either case).
_INT_BASES = {"0b": 2, "0o": 8, "0x": 16}


def _construct_kube_int(loader: Any, node: Any) -> int:
    """An int as goyaml.v2 reads it (:data:`_KUBE_INT`): ``_`` dropped, a sign, then ``0x``/``0o``/``0b`` in either
    case, a leading ``0`` (octal) or decimal digits. Raises ValueError for a text of none of those (``!!int 0x``,
    ``!!int 09``), which the readers report as a value its tag cannot construct."""
    text = loader.construct_scalar(node).replace("_", "")
    sign = -1 if text[:1] == "-" else 1
    digits = text[1:] if text[:1] in ("-", "+") else text
    base = _INT_BASES.get(digits[:2].lower())
    if base is not None:
        digits = digits[2:]
    elif len(digits) > 1 and digits[0] == "0":
        base = 8
    if not digits.isascii() or not digits.isalnum():  # int() would take a sign, blanks or "_" there: not Go's
        raise ValueError(text)
    return sign * int(digits, base or 10)


def _construct_kube_float(loader: Any, node: Any) -> float | str:
    """A float as goyaml.v2 reads it (:data:`_KUBE_FLOAT`); one past the largest float (``1e400``) is text there, as
    Go's ``strconv.ParseFloat`` refuses it (``ErrRange``) and resolve.go keeps the scalar a string."""
    value = yaml.SafeLoader.construct_yaml_float(loader, node)
    text = str(node.value)
    return text if math.isinf(value) and "inf" not in text.lower() else value


_KubeLoader.add_constructor(_INT_TAG, _construct_kube_int)
_KubeScalars.add_constructor(_INT_TAG, _construct_kube_int)
_KubeLoader.add_constructor(_FLOAT_TAG, _construct_kube_float)
_KubeScalars.add_constructor(_FLOAT_TAG, _construct_kube_float)
_Base: Any = _KubeLoader


#: What the report says where a parse error follows a byte order mark inside the text (review28: libyaml's words,
#: "did not find expected key" a line later, do not name it). libyaml and go-yaml skip a mark only where a token may
#: start at column 0 (``yaml_parser_scan_to_next_token``), and the column it takes moves what follows; kubectl reads a
#: document that a ``---`` line opens as a stream of its own, where a leading mark is dropped (decode_text)
STRAY_BOM = ("a byte order mark (U+FEFF) inside the text: only the start of the file, or of a document after a "
             "`---` line, may hold one (a file joined after another?); remove it")


def _stray_bom(text: str, base: int, context: int | None, line: int) -> tuple[int, int] | None:
    """The file line and column of the first byte order mark on the lines from the parser's context (or the line
    before the error) to the error's line, or None: a mark elsewhere (inside a quoted value) is not the cause."""
    first = min(context, line - 1) if context is not None else line - 1
    rows = text.split("\n")
    for number in range(max(first, base + 1), line + 1):
        row = number - base - 1
        if 0 <= row < len(rows):
            at = rows[row].find("\ufeff")
            if at >= 0:
                return number, at + 1
    return None


def _bad_scalar(tag: str, value: str, implicit: bool, mark: Any) -> yaml.MarkedYAMLError:
    """A scalar its tag cannot construct (``!!bool maybe``, an unquoted ``2024-13-45``, ``!!float abc``)
    as a YAML error at its line, in our words (never the constructor's exception text)."""
    kind = tag.rsplit(":", 1)[-1]
    what = _WHAT.get(kind, f"a valid {kind}")
    digits = sum(c.isdigit() for c in value)
    if kind == "int" and digits > sys.get_int_max_str_digits():  # Python reads no longer decimal integer
        problem = (f"{_short(value)} is an integer of {digits:,} digits; shardwise reads integers of at most "
                   f"{sys.get_int_max_str_digits():,} digits" + ("; quote it to keep it as text" if implicit else ""))
        return yaml.constructor.ConstructorError(None, None, problem, mark)
    if implicit:  # no tag written: the value only looks like a date or a number
        problem = f"{_short(value)} is not {what}; quote it to keep it as text"
    else:
        problem = f"{_short(value)} tagged !!{kind} is not {what}"
    return yaml.constructor.ConstructorError(None, None, problem, mark)


#: The name of a mark made for a line alone (:func:`_mark`): its column is no position the reader found.
_LINE_ONLY = "<line only>"


def _mark(line: int) -> Any:
    """A mark at the start of 0-based ``line`` (for errors found after the parser's own marks are gone)."""
    return yaml.Mark(_LINE_ONLY, 0, line, 0, None, None)


def _duplicate_key(key: Any, first: int | None, line: int) -> yaml.MarkedYAMLError:
    """A key written twice in one mapping, reported at the second (``line`` is 1-based)."""
    also = f" (first written on line {first})" if first else ""
    return yaml.constructor.ConstructorError(
        None, None, f"duplicate key {_short(str(key))}{also}: a mapping's keys must be unique, keep one",
        _mark(line - 1))


class _LineLoader(_Base):  # type: ignore[misc, valid-type]
    """PyYAML's constructor (anchors, aliases, tags, merge keys) building :class:`LineDict` mappings.
    ``line_base`` is added to every line: the document's offset in its file when parsed alone. With a
    ``dups`` list, a duplicate key is recorded there as ``(key, first line, line)`` and the last value kept."""

    line_base = 0
    dups: list[tuple[Any, int | None, int]] | None = None

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (yaml.YAMLError, RecursionError):
            raise
        except Exception:  # noqa: BLE001 - a constructor's own error (KeyError for !!bool maybe, ValueError, ...)
            if isinstance(node, yaml.ScalarNode):
                implicit = not node.style and self.resolve(yaml.ScalarNode, node.value, (True, False)) == node.tag
                raise _bad_scalar(node.tag, node.value, implicit, node.start_mark) from None
            kind = str(node.tag).rsplit(":", 1)[-1]
            raise yaml.constructor.ConstructorError(
                None, None, f"this value cannot be read as !!{kind}", node.start_mark) from None


class _Redefining(_LineLoader):
    """:class:`_LineLoader` composing with PyYAML's Python composer, where an anchor written again names the node
    it is written on from there on, as YAML says ("an alias node refers to the most recent preceding node having
    the same anchor", YAML 1.2.2 section 3.2.2.2; 1.1 says the same) and as kubectl's reader does (goyaml.v2
    decode.go: ``parser.anchor`` sets ``doc.anchors[name]`` again, at the node's start). PyYAML's composers
    refuse the second anchor ("found duplicate anchor"); GitOps trees write ``- name: &name X`` once per
    env var (corpus29: four of seven home-ops repositories exited 2 on it). Used only for a text the C composer
    refused so (:func:`parse`): the Python composer is slower."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self.anchors: dict[str, Any] = {}

    check_node = yaml.composer.Composer.check_node
    get_node = yaml.composer.Composer.get_node
    compose_document = yaml.composer.Composer.compose_document
    compose_scalar_node = yaml.composer.Composer.compose_scalar_node
    compose_sequence_node = yaml.composer.Composer.compose_sequence_node
    compose_mapping_node = yaml.composer.Composer.compose_mapping_node

    def compose_node(self, parent: Any, index: Any) -> Any:
        if not self.check_event(AliasEvent):
            anchor = self.peek_event().anchor
            if anchor is not None:  # the earlier node keeps its value; the name moves to this one
                self.anchors.pop(anchor, None)
        return yaml.composer.Composer.compose_node(self, parent, index)


class _Untagged(_Redefining):
    """The loader that reads a local tag (``!env_var``, ``!secret``, ``!Find``: YAML's "local tags are specific to
    a single application", 1.2.2 section 3.2.1.3) as kubectl's reader does: goyaml.v2 resolves a scalar whose tag
    it does not know to its text (resolve.go: ``resolve`` returns the value as written when ``resolvableTag`` is
    false) and builds a list or mapping whatever its tag. Used only to say what a file PyYAML refused for such a
    tag is (:func:`.load._application_tags`); the tags met are kept in ``tags``."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self.tags: list[str] = []


def _construct_untagged(loader: Any, suffix: str, node: Any) -> Any:
    tag = "!" + suffix
    if tag not in loader.tags:
        loader.tags.append(tag)
    if isinstance(node, yaml.MappingNode):
        return _construct_mapping(loader, node)
    if isinstance(node, yaml.SequenceNode):
        return [loader.construct_object(v, deep=True) for v in node.value]
    return str(node.value)


_Untagged.add_multi_constructor("!", _construct_untagged)

_MERGE_TAG = "tag:yaml.org,2002:merge"


def _construct_mapping(loader: Any, node: yaml.MappingNode) -> LineDict:
    base = loader.line_base
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:  # the keys written in this mapping (merged ones may be overridden)
        if key_node.tag == _MERGE_TAG:
            continue
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1 + base
        try:
            first = seen.get(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, f"unhashable mapping key at line {line} "
                "(a key must be text or a number)", key_node.start_mark,
            ) from None
        if first is not None:
            if loader.dups is None:
                raise _duplicate_key(key, first, key_node.start_mark.line + 1)
            loader.dups.append((key, first if isinstance(key, str) else None, line))
        seen[key] = line
    _flatten(node)
    d = LineDict()
    d.line = node.start_mark.line + 1 + base
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        d[key] = loader.construct_object(value_node, deep=True)
        if isinstance(key, str):
            d.key_lines[key] = key_node.start_mark.line + 1 + base
    return d


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _flatten(node: yaml.MappingNode) -> None:
    """``node``'s ``<<`` merge keys replaced by the pairs they merge, in place, as the merge key's specification and
    kubectl's reader (goyaml.v2) merge them: a key written in the mapping wins over a merged one, and of a list of
    mappings (``<<: [*a, *b]``) the earlier wins (PyYAML 6.0.4's ``flatten_mapping`` lets the later win). A merged
    key is kept once, the first time met, so merges of merges grow with the keys, not with the aliases
    (hostile8)."""
    merged: list[tuple[Any, Any]] = []
    seen: set[Any] = set()
    own: list[tuple[Any, Any]] = []
    for key_node, value_node in node.value:
        if key_node.tag != _MERGE_TAG:
            own.append((key_node, value_node))
            continue
        if isinstance(value_node, yaml.MappingNode):
            sources = [value_node]
        elif isinstance(value_node, yaml.SequenceNode):
            sources = value_node.value
        else:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark, "expected a mapping or list of mappings for "
                f"merging, but found {value_node.id}", value_node.start_mark)
        for sub in sources:
            if not isinstance(sub, yaml.MappingNode):
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark,
                    f"expected a mapping for merging, but found {sub.id}", sub.start_mark)
            _flatten(sub)
            for pair in sub.value:
                k = pair[0]
                ident = (k.tag, k.value) if isinstance(k, yaml.ScalarNode) else id(k)
                if ident not in seen:
                    seen.add(ident)
                    merged.append(pair)
    if merged or len(own) != len(node.value):
        node.value = merged + own


#: The tag of each plain scalar seen (a plain scalar's tag depends on its text only), bounded.
_resolved: dict[str, str] = {}
_scalar_ctor = _KubeScalars("")  # only its resolvers and scalar constructors are called: they keep no state


def _plain_tag(value: str) -> str:
    """The tag PyYAML's resolvers give a plain (untagged, unquoted) scalar: it follows from the text alone."""
    tag = _resolved.get(value)
    if tag is None:
        if len(_resolved) >= 65536:
            _resolved.clear()
        tag = _resolved[value] = _scalar_ctor.resolve(yaml.ScalarNode, value, (True, False))
    return tag


def _scalar(tag: str, value: str) -> Any:
    """The value of a non-text scalar with ``tag``: a plain decimal int directly, else the tag's
    constructor's. Raises :class:`_Fallback` for a tag with no scalar constructor (``!!set x``, an
    unknown tag) and the constructor's own exception for a text it cannot construct (``!!bool maybe``)."""
    if tag == _INT_TAG and value.isascii() and value.isdigit() and (len(value) == 1 or value[0] != "0"):
        return int(value)  # plain decimal (a leading 0 is octal)
    ctor = _SCALAR_CONSTRUCTORS.get(tag)
    if ctor is None:
        raise _Fallback
    return ctor(_scalar_ctor, yaml.ScalarNode(tag, value, None, None, None))  # marks only serve errors


def plain_value(value: str) -> Any:
    """A plain scalar as :func:`load_events` builds it, or :data:`~.yamlsrc._NOT_HERE` when only the
    Python reader can say (a merge key, a tag without a constructor, a value its tag cannot construct)."""
    tag = _plain_tag(value)
    if tag == _STR_TAG:
        return value
    try:
        return _scalar(tag, value)
    except Exception:  # noqa: BLE001 - _Fallback or the constructor's error: the Python reader reports it
        return _NOT_HERE


_SCALAR_CONSTRUCTORS = {t: c for t, c in _KubeScalars.yaml_constructors.items() if t in _SCALAR_TAGS}


def load_events(text: str, base: int = 0, starts: list[int] | None = None,
                dups: list[tuple[Any, int | None, int]] | None = None) -> list[Any]:
    """Build the documents straight from libyaml's events: the same values and lines as
    :class:`_LineLoader`, without PyYAML's node graph (``base`` is added to every line). An alias is the very
    value its anchor built (as PyYAML's constructor shares it), at the anchor's line, and adds that value's size
    (:func:`_check_aliases`' count: values and scalar text, expanded); past :data:`MAX_EXPANDED_VALUES` or
    :data:`MAX_EXPANDED_CHARS` added in the text, an alias to an anchor not yet ended (a collection that would
    contain itself) or never written, it raises :class:`_Fallback` and
    :func:`parse` reports it in PyYAML's or its own words. Raises :class:`_Fallback` too for tags it has no
    constructor for, ``<<`` merge keys and unhashable keys; a duplicate key is a YAML error at its line, or with
    ``dups`` recorded there (the last value kept). ``starts`` receives each document's first line.

    The compiled reader (:func:`.yamlsrc._fast_module`) builds the same documents from the same parser's
    events in Rust when the text takes only the common path; anything else, and every error, is left
    to the Python code below."""

    loader = _Base(text)
    get = loader.get_event
    roots = (ScalarEvent, MappingStartEvent, SequenceStartEvent, AliasEvent)
    nokey = _Fallback  # a sentinel no YAML value can be
    docs: list[Any] = []
    # per open collection: the collection, key and key line around it, its anchor and line, and the values and
    # characters counted before it began
    stack: list[tuple[Any, Any, int, str | None, int, int, int]] = []
    cur: Any = None
    key: Any = nokey
    key_line: int = 0
    root: Any = None
    # hostile18: each ended anchor's (value, values, characters, line); the values and characters read so far
    # (aliases expanded), and what the aliases added (the bound's count)
    anchors: dict[str, tuple[Any, int, int, int]] = {}
    values = chars = added = added_chars = 0
    try:
        while True:
            ev = get()
            cls = ev.__class__
            if cur is None and starts is not None and cls in roots:  # a document's value begins
                starts.append(ev.start_mark.line + 1 + base)
            line = ev.start_mark.line + 1
            if cls is ScalarEvent:
                val = ev.value
                values += 1
                chars += len(val)
                tag = ev.tag
                if tag is None or tag == "!":
                    tag = _plain_tag(val) if ev.implicit[0] else _STR_TAG
                if tag != _STR_TAG:
                    try:
                        val = _scalar(tag, val)
                    except _Fallback:  # a collection tag on a scalar, an unknown tag: the constructor's error
                        raise
                    except Exception:  # noqa: BLE001 - 2024-13-45 resolves as a timestamp; !!bool maybe: KeyError
                        raise _bad_scalar(tag, ev.value, ev.tag is None or ev.tag == "!", ev.start_mark) from None
                if ev.anchor is not None:  # written again, it names this value from here on (_Redefining)
                    anchors[ev.anchor] = (val, 1, len(ev.value), line)
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                mapping = cls is MappingStartEvent
                if ev.tag not in (_MAP_TAGS if mapping else _SEQ_TAGS) and not ev.implicit:
                    raise _Fallback
                if ev.anchor is not None:  # not in anchors until it ends: an alias to it inside falls back
                    anchors.pop(ev.anchor, None)
                stack.append((cur, key, key_line, ev.anchor, line, values, chars))
                values += 1
                if mapping:
                    cur = LineDict()
                    cur.line = line + base
                else:
                    cur = []
                key = nokey
                continue
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                val = cur
                cur, key, key_line, anchor, start, values0, chars0 = stack.pop()
                if anchor is not None:
                    anchors[anchor] = (val, values - values0, chars - chars0, start)
            elif cls is AliasEvent:
                found = anchors.get(ev.anchor)
                if found is None:  # never written, or a collection not ended (it would contain itself)
                    raise _Fallback
                val, n, c, line = found
                values += n
                chars += c
                added += n
                added_chars += c
                if added > MAX_EXPANDED_VALUES or added_chars > MAX_EXPANDED_CHARS:  # _check_aliases says so
                    raise _Fallback
            elif cls is DocumentStartEvent:
                cur, key, stack = None, nokey, []
                anchors.clear()
                continue
            elif cls is DocumentEndEvent:
                docs.append(root)
                root = None
                continue
            elif cls is StreamEndEvent:
                return docs
            else:  # StreamStartEvent
                continue
            if cur is None:
                root = val
            elif cur.__class__ is list:
                cur.append(val)
            elif key is nokey:  # a key: always a scalar here (a collection key falls back)
                if val == "<<" or val.__class__ in (list, LineDict):
                    raise _Fallback
                try:
                    if val in cur:
                        if dups is None:
                            raise _duplicate_key(val, cur.key_lines.get(val), line)
                        dups.append((val, cur.key_lines.get(val), line + base))
                except TypeError:  # an unhashable scalar key (a !!set): the constructor says so
                    raise _Fallback from None
                key, key_line = val, line + base
            else:
                cur[key] = val
                if key.__class__ is str:
                    cur.key_lines[key] = key_line
                key = nokey
    finally:
        loader.dispose()


def _check_aliases(text: str, file: str, base: int) -> int:
    """Raise :class:`InputError` when a document's aliases add more than :data:`MAX_EXPANDED_VALUES` values
    (mappings, lists and scalars, keys included) or :data:`MAX_EXPANDED_CHARS` characters of scalar text;
    return the index of the first document where an alias names a collection still open (one that contains
    itself), where the pass stops, or -1. Only what the aliases add is counted: each alias adds the size of
    the node its anchor names, fully expanded, computed once per anchor when that node ends. The document
    itself, however large, adds nothing (the bytes read per file bound it). A ``<<`` merge adds the pairs of
    each mapping it merges, each anchor once per mapping (:func:`_flatten` keeps a merged key once, so a
    merge of merges grows with the keys; pairs merged from two anchors are both counted, an upper bound). One
    pass over the parser's events, before any node or value is built, in memory of the anchors and the open
    collections; the error is at the line where the document's value begins, as soon as the bound is passed."""
    loader = _Base(text)
    get = loader.get_event
    roots = (ScalarEvent, MappingStartEvent, SequenceStartEvent, AliasEvent)
    anchors: dict[str, tuple[int, int]] = {}
    # per open collection: [values, characters, its anchor, a mapping?, a key next?, merging?, anchors merged]
    # (merging: a mapping whose value being read is a `<<` key's, or the list of such a value)
    open_: list[list[Any]] = []
    added = added_chars = 0
    start = 0
    index = -1
    try:
        while True:
            ev = get()
            cls = ev.__class__
            if not open_ and cls in roots:
                start = ev.start_mark.line + 1 + base
            top = open_[-1] if open_ else None
            merge = top is not None and top[5] and not (top[3] and top[4])
            if cls is MappingStartEvent or cls is SequenceStartEvent:
                mapping = cls is MappingStartEvent
                open_.append([1, 0, ev.anchor, mapping, mapping, merge and not mapping, None])
                continue
            if cls is ScalarEvent:
                size = (1, len(ev.value))
                if ev.anchor is not None:
                    anchors[ev.anchor] = size
            elif cls is AliasEvent:
                found = anchors.get(ev.anchor)
                if found is None:
                    # an alias naming a collection still open (it contains itself: the document is refused once
                    # built, see parse) or no anchor (the composer's error at its line): counted no further
                    return index if any(c[2] == ev.anchor for c in open_) else -1
                size = found
                if merge and top is not None:  # `<<: *a` or `<<: [*a, …]`: a's pairs, once per mapping
                    into = top if top[3] else open_[-2]
                    if into[6] is None:
                        into[6] = set()
                    size = (0, 0) if ev.anchor in into[6] else (found[0] - 1, found[1])
                    into[6].add(ev.anchor)
                added += size[0]
                added_chars += size[1]
                if added > MAX_EXPANDED_VALUES or added_chars > MAX_EXPANDED_CHARS:
                    what = (f"expand to more than {MAX_EXPANDED_VALUES:,} values" if added > MAX_EXPANDED_VALUES else
                            f"expand to more than {MAX_EXPANDED_CHARS:,} characters of text (the most shardwise "
                            f"reads from one file, {size_text(MAX_FILE_BYTES)})")
                    raise YamlTooCostly(f"cannot parse YAML: its aliases {what}", file, start)
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                values, chars, anchor = open_.pop()[:3]
                size = (values, chars)
                if anchor is not None:
                    anchors[anchor] = size
            elif cls is DocumentStartEvent:
                anchors.clear()
                index += 1
                continue
            elif cls is StreamEndEvent:
                return -1
            else:
                continue
            if open_:
                top = open_[-1]
                top[0] += size[0]
                top[1] += size[1]
                if top[3]:  # a mapping: a key, then its value
                    if top[4]:
                        top[5] = cls is ScalarEvent and ev.value == "<<" and ev.tag is None and ev.implicit[0]
                    else:
                        top[5] = False
                    top[4] = not top[4]
    finally:
        loader.dispose()


def _compose(loader: Any, text: str, file: str, base: int, starts: list[int] | None,
             dups: list[tuple[Any, int | None, int]] | None, cyclic: int) -> list[Any]:
    """Every document of ``text`` as ``loader`` (a :class:`_LineLoader` of it) builds it: yaml.load_all, with each
    document's line; the document ``cyclic`` (:func:`_check_aliases`) is refused once built."""
    loader.line_base = base
    loader.dups = dups
    docs: list[Any] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if starts is not None:
                starts.append(node.start_mark.line + 1 + base)
            doc = loader.construct_document(node)  # PyYAML refuses most recursive nodes: at the alias's line
            if len(docs) == cyclic:  # the first collection that contains itself, built: a root list or mapping
                raise InputError("cannot parse YAML: its aliases make a list that contains itself", file,
                                 node.start_mark.line + 1 + base)
            docs.append(doc)
    finally:
        loader.dispose()
    return docs


def parse(text: str, file: str, base: int = 0, starts: list[int] | None = None,
          dups: list[tuple[Any, int | None, int]] | None = None, tags: list[str] | None = None) -> list[Any]:
    """Every document of ``text`` (lines shifted by ``base``), or :class:`InputError` for the first error.
    ``starts`` receives the first line of each document; ``dups``, when given, the duplicate keys, which
    are then no error (the last value is kept). A tag no constructor reads is an error, a
    :class:`.yamlsrc.LocalTagError` for a local one; with ``tags`` given, local tags are read as kubectl reads
    them (:class:`_Untagged`) and ``tags`` receives those met."""
    try:
        if tags is None:
            try:
                return load_events(text, base, starts, dups)
            except _Fallback:
                if starts is not None:
                    del starts[:]
                if dups is not None:
                    del dups[:]
        # an alias (none without a '*'): what the aliases add is bounded before a node is built
        cyclic = _check_aliases(text, file, base) if "*" in text else -1
        if tags is not None:
            loader = _Untagged(text)
            try:
                return _compose(loader, text, file, base, starts, dups, cyclic)
            finally:
                tags.extend(loader.tags)
        try:
            return _compose(_LineLoader(text), text, file, base, starts, dups, cyclic)
        except yaml.composer.ComposerError as e:
            if not str(e.context).startswith("found duplicate anchor"):
                raise
            if starts is not None:
                del starts[:]
            if dups is not None:
                del dups[:]
        return _compose(_Redefining(text), text, file, base, starts, dups, cyclic)
    except yaml.reader.ReaderError:
        raise _bad_character(text, file, base) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 + base if mark is not None else None
        # the reader's column (0-based in PyYAML and libyaml alike, counted in characters) as editors count it
        column = mark.column + 1 if mark is not None and mark.name != _LINE_ONLY else None
        context = e.context_mark.line + 1 + base if e.context_mark is not None else None
        template = _template_line(text, (line, context), base)
        if template is not None:
            raise InputError(f"cannot parse YAML: {TEMPLATE_PROBLEM}", file, template) from None
        directive = _directive_line(text, (line, context), base)
        if directive is not None:
            raise InputError(f"cannot parse YAML: {TERRAFORM_DIRECTIVE_PROBLEM}", file, directive) from None
        problem = e.problem or e.context or "invalid YAML"
        mark_at = _stray_bom(text, base, context, line) if line is not None and "\ufeff" in text else None
        if mark_at is not None:
            where = f"line {line}" + (f", column {column}" if column is not None else "")
            raise InputError(f"cannot parse YAML: {STRAY_BOM} (the parser: {problem}, {where})", file, *mark_at) \
                from None
        error = LocalTagError if problem.startswith("could not determine a constructor for the tag '!") else \
            InputError
        raise error(f"cannot parse YAML: {problem}", file, line, column) from None
    except yaml.YAMLError:
        raise InputError("cannot parse YAML", file) from None
    except RecursionError:
        raise YamlTooCostly("cannot parse YAML: nesting too deep", file) from None

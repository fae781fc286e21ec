"""Where each object of a kustomize build came from: kustomize's build annotations, read and removed (newuser16).

A finding on an object a kustomize overlay builds points at a line of the build's output (``DIR/kustomization.yaml
(kustomize build):143``), a line no file of the repository has. kustomize can say where each object came from:
``buildMetadata: [originAnnotations]`` in a kustomization (kustomize v4.5.5+) adds ``config.kubernetes.io/origin``
(``path:`` of the resource file, relative to that kustomization; ``repo:``/``ref:`` for a remote base), and
``transformerAnnotations`` adds ``alpha.config.kubernetes.io/transformations`` (sigs.k8s.io/kustomize
``api/internal/utils/annotations.go``: ``OriginAnnotationKey``, ``TransformerAnnotationKey``). What kustomize v5.8.1
writes, measured (tests/adapters/test_origins.py):

- the overlay is built through a kustomization that lists it and sets ``buildMetadata``, so nothing is written into
  the user's tree; kustomize refuses an absolute path there (``new root ... cannot be absolute``): the entry is the
  overlay's path relative to the wrapping folder, and ``path:`` is relative to the wrapping folder too;
- the transformations annotation names the kustomization a transformer is configured in (``configuredIn``) and its
  kind (``PatchTransformer``), never the patch file, and it is on every object the transformer visited, a Service
  that a ``target: {kind: Deployment}`` patch did not change included: it does not say which object a patch changed.

:func:`strip_build_metadata` removes both annotations from the build's output text (and the ``annotations:`` key
they leave empty), so that no rule reads them and every other line is what a build without them emits, and says,
for each document, the lines it spans and its origin. :func:`place_build` (newuser17) gives each line of the output
the repository file and line that wrote it, which ``charts.Renderer._kustomize`` puts on the objects' locations.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..model.errors import InputError
from .overlays import _patch_docs
from .yamlsrc import load_documents, read_text

#: The annotations ``buildMetadata: [originAnnotations, transformerAnnotations]`` adds.
ORIGIN = "config.kubernetes.io/origin"
TRANSFORMATIONS = "alpha.config.kubernetes.io/transformations"
_BUILD_KEYS = (ORIGIN, TRANSFORMATIONS)


@dataclass
class DocOrigin:
    """One document of a build's output, after :func:`strip_build_metadata`: its first and last line (1-based, of
    the stripped text) and where kustomize says it came from."""

    first: int
    last: int
    #: ``path:`` of the origin annotation (relative to the kustomization that asked for it), "" where none
    path: str = ""
    #: ``repo:`` and ``ref:`` of a remote base's object, "" where none
    repo: str = ""
    ref: str = ""
    #: a generated object's (a ``configMapGenerator``'s): the kustomization that configures its generator, "" where
    #: none (its origin annotation names no ``path``)
    generated_in: str = ""
    #: the ``configuredIn`` kustomizations the transformations annotation names, in its order, each once
    configured_in: tuple[str, ...] = ()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _field(block: list[str], key: str) -> str:
    """The plain scalar ``key: VALUE`` of a block's lines (the annotation's text, dedented or not), "" where none."""
    for line in block:
        text = line.strip()
        if text.startswith("- "):
            text = text[2:].strip()
        if text.startswith(key + ":"):
            value = text[len(key) + 1:].strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            return value
    return ""


def _strip_doc(lines: list[str]) -> tuple[list[str], DocOrigin]:
    """One document's lines without the build annotations, and its origin (lines not yet numbered)."""
    origin = DocOrigin(0, 0)
    out: list[str] = []
    in_meta = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _indent(line) == 0 and line.strip():
            in_meta = line.rstrip() == "metadata:"
        if not (in_meta and line.rstrip() == "  annotations:"):
            out.append(line)
            i += 1
            continue
        # the annotations of metadata: keep every entry but the build's
        kept: list[str] = []
        i += 1
        while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > 2):
            entry = [lines[i]]
            i += 1
            while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > 4):
                entry.append(lines[i])
                i += 1
            key = entry[0].strip().split(":", 1)[0].strip("'\"")
            if key == ORIGIN:
                origin.path, origin.repo, origin.ref, origin.generated_in = (
                    _field(entry[1:], k) for k in ("path", "repo", "ref", "configuredIn"))
            elif key == TRANSFORMATIONS:
                seen = [_field([t], "configuredIn") for t in entry[1:] if "configuredIn:" in t]
                origin.configured_in = tuple(dict.fromkeys(s for s in seen if s))
            else:
                kept.extend(entry)
        if kept:
            out.append(line)
            out.extend(kept)
    return out, origin


def strip_build_metadata(text: str) -> tuple[str, list[DocOrigin]]:
    """``text`` (what ``kustomize build`` emitted) without the build annotations, and each document's origin."""
    docs: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.rstrip() == "---":
            docs.append([])
        else:
            docs[-1].append(line)
    out: list[str] = []
    origins: list[DocOrigin] = []
    for n, lines in enumerate(docs):
        if n:
            out.append("---")
        kept, origin = _strip_doc(lines)
        origin.first = len(out) + 1
        out.extend(kept)
        origin.last = len(out)
        if kept:
            origins.append(origin)
    return "\n".join(out) + ("\n" if out else ""), origins


# ------------------------------------------------------------------------------------------ placing (newuser17)
#
# Each line of a build's output is placed at the line of a repository file that wrote it. The output's line is the
# start of a node (a key, a list item) whose path in its object (``spec``, ``template``, ..., a list item by its
# ``name`` where it has one, else by its index) is looked up in the files kustomize says the object came from: the
# last transformer of the kustomizations that transformed it that set the path, in kustomize's order (a strategic
# merge patch that sets the value; a JSON 6902 operation whose ``path`` is the node or above it; the kustomization's
# ``namespace:``, ``replicas:`` or ``images:`` entry), else the object's own document in its origin file (the node,
# else its nearest ancestor there: a field no file holds, a label kustomize adds, stays on the object). A line that
# starts no node (in a block scalar) is placed as the node above it; a mapping all of whose values one patch wrote
# is placed at that patch (:func:`_hoist`).

#: One step of a path: a mapping's key, or a list item as (its index, its ``name`` where it is a mapping with one).
Step = str | tuple[int, str | None]

_PATCH_KEYS = ("patches", "patchesStrategicMerge", "patchesJson6902")
_GENERATOR_KEYS = ("configMapGenerator", "secretGenerator")
#: The fields a strategic merge patch repeats to name its object, never to set them.
_IDENTITY = {("apiVersion",), ("kind",), ("metadata", "name"), ("metadata", "namespace")}


def _item_line(lines: list[str], key_line: int | None, index: int) -> int | None:
    """The line of item ``index`` of the block list of scalars whose key is at ``key_line``; the key's line for a
    flow list (``args: ["--model", "x"]``) or where the items cannot be counted."""
    if not key_line or key_line > len(lines):
        return key_line
    if "[" in lines[key_line - 1].split(":", 1)[-1]:
        return key_line
    indent: int | None = None
    seen = -1
    for n in range(key_line, len(lines)):
        text = lines[n]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        here = _indent(text)
        if indent is None:
            if not text.lstrip().startswith("-"):
                return key_line
            indent = here
        if here < indent or (here == indent and not text.lstrip().startswith("-")):
            break
        if here == indent:
            seen += 1
            if seen == index:
                return n + 1
    return key_line


def _steps(doc: Any, lines: list[str]) -> dict[int, tuple[Step, ...]]:
    """The path of the deepest node that starts at each line of ``doc`` (a document of ``lines``); a list item's, not
    its first key's, where both start at one line (``- args:``: the container)."""
    out: dict[int, tuple[Step, ...]] = {}

    def walk(node: Any, path: tuple[Step, ...], line: int | None) -> None:
        if isinstance(node, dict):
            key_lines = getattr(node, "key_lines", {})
            for key, value in node.items():
                if not isinstance(key, str):
                    continue
                at = key_lines.get(key)
                if at and (at != getattr(node, "line", None) or not path or isinstance(path[-1], str)):
                    out[at] = (*path, key)  # (a list item's first key shares its line: the line is the item's)
                walk(value, (*path, key), at)
        elif isinstance(node, list):
            for i, item in enumerate(node):
                name = item.get("name") if isinstance(item, dict) else None
                step = (*path, (i, name if isinstance(name, str) else None))
                at = getattr(item, "line", None) if isinstance(item, dict) else _item_line(lines, line, i)
                if at and at != line:
                    out[at] = step
                walk(item, step, at)

    walk(doc, (), getattr(doc, "line", None))
    return out


def _find(node: Any, path: tuple[Step, ...], lines: list[str]) -> tuple[int | None, bool, Any]:
    """(the line of ``path`` in ``node``, else of its deepest ancestor there; whether the whole path is there; the
    value there)."""
    line = getattr(node, "line", None)
    for step in path:
        if isinstance(step, str):
            if not isinstance(node, dict) or step not in node:
                return line, False, None
            line = getattr(node, "key_lines", {}).get(step, line)
            node = node[step]
            continue
        index, name = step
        if not isinstance(node, list):
            return line, False, None
        item: Any = None
        if name is not None:
            item = next((x for x in node if isinstance(x, dict) and x.get("name") == name), None)
            if item is None:
                return line, False, None
        elif index < len(node):
            item = node[index]
        else:
            return line, False, None
        if isinstance(item, dict):
            line = getattr(item, "line", None) or line
        else:
            line = _item_line(lines, line, node.index(item) if name is not None else index)
        node = item
    return line, True, node


def _pointer(path: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]


class _Files:
    """The files a build's objects came from, each read once: its lines and its documents (with their lines)."""

    def __init__(self) -> None:
        self.read: dict[str, tuple[list[str], list[Any]] | None] = {}

    def get(self, path: str) -> tuple[list[str], list[Any]] | None:
        if path not in self.read:
            try:
                text = read_text(path)
                docs = [d for _, d in load_documents(text, path) if isinstance(d, dict)]
                self.read[path] = (text.splitlines(), docs)
            except InputError:
                self.read[path] = None
        return self.read[path]


def _named(doc: Any) -> tuple[Any, str]:
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    return (doc.get("kind") if isinstance(doc, dict) else None), (name if isinstance(name, str) else "")


def _origin_doc(docs: list[Any], kind: Any, name: str) -> Any:
    """The document of ``kind`` in an origin file whose name is the built ``name`` with the prefixes and suffixes
    the kustomizations add (``namePrefix``, ``nameSuffix``) taken off: the longest name of that kind that ``name``
    holds; None where none does."""
    best: Any = None
    for doc in docs:
        k, n = _named(doc)
        if k == kind and n and n in name and (best is None or len(n) > len(_named(best)[1])):
            best = doc
    if best is None and kind == "Namespace":  # review45: a kustomization's `namespace:` renames a Namespace object
        own = [doc for doc in docs if _named(doc)[0] == "Namespace"]  # (its namespace transformer), once in a file
        best = own[0] if len(own) == 1 else None
    return best


@dataclass
class _Patch:
    """One patch document of a kustomization: the file that holds its text and the line of that text's line 0."""

    file: str
    offset: int
    lines: list[str]
    target: dict[str, Any]
    doc: Any
    #: the kustomization's key that lists it (``patches``, ``patchesStrategicMerge``, ``patchesJson6902``)
    key: str = "patches"


def _patches(kustomization: str, files: _Files) -> list[_Patch]:
    """The patches of one kustomization (or component), in its order, each document with where its text is."""
    read = files.get(kustomization)
    if read is None or not read[1]:
        return []
    lines, docs = read
    here = os.path.dirname(kustomization)
    out: list[_Patch] = []
    for key in _PATCH_KEYS:
        entries = docs[0].get(key)
        for entry in entries if isinstance(entries, list) else []:
            target, patch_docs = _patch_docs(entry, here)
            path = entry.get("path") if isinstance(entry, dict) else entry
            if isinstance(entry, dict) and isinstance(entry.get("patch"), str):
                file, offset, text_lines = kustomization, getattr(entry, "key_lines", {}).get("patch", 1), lines
                after = lines[offset - 1].split("patch:", 1)[-1].strip() if 0 < offset <= len(lines) else "|"
                if after and after[0] not in "|>#":  # review45: `patch: '[{"op": …}]'`, its text on the key's line
                    offset -= 1
            elif isinstance(path, str) and "\n" not in path and ":" not in path:
                file, offset = os.path.normpath(os.path.join(here, path)), 0
                got = files.get(file)
                text_lines = got[0] if got else []
            else:  # inline as a string: its own lines are not known in the file, the entry's are
                file, offset, text_lines = kustomization, getattr(entry, "line", None) or 1, lines
            for d in patch_docs:
                out.append(_Patch(file, offset, text_lines, target, d, key))
    return out


#: A selector pattern Python's backtracking matcher could take exponential or high-polynomial time on (kustomize's
#: RE2 is linear): a quantified group, or more than two quantifiers. Such a pattern is not matched as an expression.
_COSTLY_PATTERN = re.compile(r"\)[*+?{]|(?:[*+{][^*+{]*){3}")
#: A ``?`` that makes what precedes it optional (not the one of ``(?``, nor a lazy ``*?``): each doubles the ways a
#: backtracking matcher may try; more than :data:`_OPTIONALS_MAX` is not matched as an expression either (fuzz25:
#: ``a?`` thirty times then ``a`` thirty times, no ``*``, ``+`` or ``{``, took exponential time on a 30-letter name).
_OPTIONAL = re.compile(r"(?<![(*+?}])\?")
_OPTIONALS_MAX = 3
#: The longest name a pattern is matched against as an expression: an object name of Kubernetes is at most 253
#: characters (a DNS-1123 subdomain: apimachinery pkg/util/validation ``DNS1123SubdomainMaxLength``), and a
#: pattern of two quantifiers takes time of the square of the name's length (fuzz25: ``.*.*x`` or ``a*a*b`` against
#: a name of 100,000 characters, which kustomize builds and the API server refuses, hung the run).
_MATCHED_NAME_MAX = 253


def kustomize_selects(pattern: str, *names: str) -> bool | None:
    """Whether kustomize's selector field ``pattern`` (a target's ``kind`` or ``name``) selects any of ``names``: a
    regular expression matched whole (sigs.k8s.io/kustomize v5.8.1 api/types/selector.go ``NewSelectorRegex``,
    ``anchorRegex``: ``^(?:PATTERN)$``). None where Python cannot tell in bounded time and the pattern does not spell
    a name: a pattern of :data:`_COSTLY_PATTERN` or of more than :data:`_OPTIONALS_MAX` ``?``, one Python cannot
    read, or a name longer than :data:`_MATCHED_NAME_MAX` (matched by its spelling only)."""
    if pattern in names:
        return True
    if not any(c in pattern for c in ".*+?[]()|{}\\^$"):
        return False
    if _COSTLY_PATTERN.search(pattern) or len(_OPTIONAL.findall(pattern)) > _OPTIONALS_MAX:
        return None
    try:
        compiled = re.compile(f"(?:{pattern})")
    except (re.error, RecursionError, OverflowError):
        return None
    if any(compiled.fullmatch(n) is not None for n in names if len(n) <= _MATCHED_NAME_MAX):
        return True
    return None if any(len(n) > _MATCHED_NAME_MAX for n in names) else False


def _selects(pattern: str, *names: str) -> bool:
    """:func:`kustomize_selects` against the object's original and its current name (api/resmap/reswrangler.go
    ``Select``); a pattern Python cannot match in bounded time, or that is not a valid expression, selects only the
    name it spells."""
    return kustomize_selects(pattern, *names) is True


_LABEL = r"[A-Za-z0-9][-A-Za-z0-9_./]*"
_REQUIREMENT = re.compile(rf"\s*(?:(?P<absent>!)\s*(?P<key0>{_LABEL})|(?P<key1>{_LABEL})\s*(?P<op>==|=|!=)\s*"
                          rf"(?P<value>[-A-Za-z0-9_.]*)|(?P<key2>{_LABEL})\s+(?P<set>in|notin)\s*\((?P<values>[^()]*)\)"
                          rf"|(?P<key3>{_LABEL}))\s*")


def _selector_picks(selector: str, labels: Any) -> bool | None:
    """Whether a label (or annotation) selector picks an object of ``labels`` (k8s.io/apimachinery
    pkg/labels/selector.go ``Parse``, as kustomize's target ``labelSelector`` and ``annotationSelector`` read it:
    ``key=value``, ``==``, ``!=``, ``key in (a, b)``, ``notin``, ``key``, ``!key``, each of a comma-separated list);
    None where the selector is not one of those."""
    have = {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}
    parts, depth, here = [], 0, ""
    for c in selector:
        depth += 1 if c == "(" else -1 if c == ")" else 0
        if c == "," and depth == 0:
            parts.append(here)
            here = ""
        else:
            here += c
    parts.append(here)
    for part in parts:
        m = _REQUIREMENT.fullmatch(part)
        if m is None:
            return None
        if m.group("absent"):
            ok = m.group("key0") not in have
        elif m.group("op"):
            key, value = m.group("key1"), m.group("value")
            ok = (have.get(key) != value) if m.group("op") == "!=" else have.get(key) == value
        elif m.group("set"):
            key, allowed = m.group("key2"), {v.strip() for v in m.group("values").split(",")}
            ok = (have.get(key) in allowed) if m.group("set") == "in" else have.get(key) not in allowed
        else:
            ok = m.group("key3") in have
        if not ok:
            return False
    return True


def _targets(patch: _Patch, kind: Any, names: tuple[str, str], built: Any = None) -> bool:
    """Whether ``patch`` is applied to the object of ``kind`` whose ``names`` are (as built, as its file writes it):
    a patch names it as written or as built, or as an inner overlay's prefix and suffix left it (a name that holds
    the written one and that the built one holds); a patch of ``vllm`` is not one of ``vllm-router``. A target's
    ``kind`` and ``name`` are regular expressions matched whole (review45: ``name: "qwen-.*"`` left the GPU count
    its JSON 6902 operation set at the base's line, which writes another count). A ``labelSelector`` or
    ``annotationSelector`` is matched against the built object's labels or annotations (``built``): a patch of
    ``app=qwen`` is not one of the Deployment labelled ``app=llama`` beside it; one not read picks nothing here."""
    want_kind = patch.target.get("kind")
    want_name = patch.target.get("name")
    meta = built.get("metadata") if isinstance(built, dict) else None
    for key, field in (("labelSelector", "labels"), ("annotationSelector", "annotations")):
        selector = patch.target.get(key)
        if isinstance(selector, str) and selector.strip():  # review45: it picks by the object's labels
            if _selector_picks(selector, meta.get(field) if isinstance(meta, dict) else None) is not True:
                return False
    if isinstance(patch.doc, dict) and not patch.target:
        want_kind, want_name = _named(patch.doc)
        if want_kind is not None and want_kind != kind:
            return False
    elif isinstance(want_kind, str) and want_kind and not (isinstance(kind, str) and _selects(want_kind, kind)):
        return False
    if not isinstance(want_name, str) or not want_name:
        return True
    built, written = names
    if want_name in names or (bool(written) and written in want_name and want_name in built):
        return True
    return patch.target != {} and _selects(want_name, *(n for n in names if n))


def _in_patch(patch: _Patch, path: tuple[Step, ...], origin: Any, origin_lines: list[str]) -> int | None:
    """The line (of the patch's text) that sets ``path``, None where the patch does not."""
    if isinstance(patch.doc, dict):  # strategic merge: a value it sets, or what it adds that the origin has not
        line, whole, value = _find(patch.doc, path, patch.lines[patch.offset:] if patch.offset else patch.lines)
        if not whole or not path:
            return None
        if origin is None or not _find(origin, path, origin_lines)[1]:
            return line
        # what names the object or a list item (a container's `name`, the merge key) and the mappings and lists of
        # mappings it descends through are the origin's: the patch repeats them to say where its values go
        if path in _IDENTITY or (path[-1] == "name" and len(path) > 1 and not isinstance(path[-2], str)):
            return None
        if isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, dict) for v in value)):
            return None
        return line
    if not isinstance(patch.doc, list):
        return None
    hit: int | None = None
    appended: dict[str, int] = {}  # the items each list has had appended (`/-`) so far, by the list's pointer
    for op in patch.doc:  # JSON 6902: an operation whose path is the node or above it; the last one counts
        if not isinstance(op, dict) or op.get("op") not in ("add", "replace", "copy", "move"):
            continue
        pointer = op.get("path")
        if not isinstance(pointer, str):
            continue
        segs = _pointer(pointer)
        if segs and segs[-1] == "-":  # the n-th item appended to a list of k in the origin is item k + n
            at_list = pointer[:-2]
            count = appended[at_list] = appended.get(at_list, -1) + 1
            there = _find(origin, tuple(path[:len(segs) - 1]), origin_lines) if origin is not None else None
            size = len(there[2]) if there and there[1] and isinstance(there[2], list) else 0
            segs = [*segs[:-1], str(size + count)]
        if len(segs) > len(path):
            continue
        ok = True
        for seg, step in zip(segs, path, strict=False):
            ok = seg == step if isinstance(step, str) else seg.isdigit() and int(seg) == step[0]
            if not ok:
                break
        if not ok:
            continue
        value = op.get("value")
        deeper = path[len(segs):]
        at = getattr(op, "key_lines", {}).get("value", getattr(op, "line", None))
        if deeper and isinstance(value, dict | list):
            got, whole, _ = _find(value, deeper, [])
            at = got if got else at
        hit = at or getattr(op, "line", None)
    return hit


#: The order kustomize applies a kustomization's own transformers in (sigs.k8s.io/kustomize v5.8.1
#: ``api/internal/target/kusttarget_configplugin.go``, ``configureBuiltinTransformers``: strategic merge patches,
#: patches, namespace, prefix and suffix, labels, annotations, JSON 6902 patches, replicas, images, replacements), the
#: ones that
#: set a field a rule reads; a component's run before the kustomization that lists it, and the transformations
#: annotation names them in that order.
_STAGES = ("patchesStrategicMerge", "patches", "namespace", "patchesJson6902", "replicas", "images", "replacements")


def _field_path(text: str) -> list[str]:
    """A replacement target's ``fieldPaths`` entry as its segments: split at each ``.`` outside ``[...]`` and not
    escaped (``nvidia\\.com/gpu``), as kustomize's ``utils.SmarterPathSplitter`` reads it."""
    out: list[str] = []
    here, depth, i = "", 0, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] == ".":
            here += "."
            i += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth = max(0, depth - 1)
        if c == "." and depth == 0:
            out.append(here)
            here = ""
        else:
            here += c
        i += 1
    out.append(here)
    return out


def _writes(segments: list[str], path: tuple[Step, ...], built: Any) -> bool:
    """Whether a replacement's field path (:func:`_field_path`) is ``path`` of ``built`` or above it: a key, a list
    item by ``[key=value]``, by its index or ``*``."""
    if len(segments) > len(path):
        return False
    node = built
    for seg, step in zip(segments, path, strict=False):
        if isinstance(step, str):
            if seg != step and seg != "*":
                return False
            node = node.get(step) if isinstance(node, dict) else None
            continue
        index, _ = step
        item = node[index] if isinstance(node, list) and index < len(node) else None
        if seg.startswith("[") and seg.endswith("]") and "=" in seg:
            key, value = seg[1:-1].split("=", 1)
            if not isinstance(item, dict) or str(item.get(key)) != value:
                return False
        elif seg != "*" and not (seg.isdigit() and int(seg) == index):
            return False
        node = item
    return True


def _picks(selector: dict[str, Any], kind: Any, names: tuple[str, ...]) -> bool:
    """Whether a replacement's ``select`` or ``reject`` selector picks the object of ``kind`` and ``names``: its
    ``kind`` and ``name`` matched whole as regular expressions (:func:`_selects`), a field it leaves out any."""
    want_kind, want_name = selector.get("kind"), selector.get("name")
    if isinstance(want_kind, str) and want_kind and not (isinstance(kind, str) and _selects(want_kind, kind)):
        return False
    return not (isinstance(want_name, str) and want_name and not _selects(want_name, *(n for n in names if n)))


def _replacements(kustomization: str, k: Any, files: _Files) -> list[tuple[str, Any]]:
    """The replacements of the kustomization ``k`` (its file ``kustomization``), each with the file that writes it:
    an inline one, and each of a file an entry names (``- path: r.yaml``: one replacement or a list of them)."""
    entries = k.get("replacements") if isinstance(k, dict) else None
    out: list[tuple[str, Any]] = []
    for entry in entries if isinstance(entries, list) else []:
        named = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(named, str):
            out.append((kustomization, entry))
            continue
        file = os.path.normpath(os.path.join(os.path.dirname(kustomization), named))
        try:
            docs = [d for _, d in load_documents(read_text(file), file)]
        except InputError:
            continue
        for d in docs:
            out.extend((file, r) for r in (d if isinstance(d, list) else [d]))
    return out


def _replaced(path: tuple[Step, ...], built: Any, names: tuple[str, ...],
              entries: list[tuple[str, Any]]) -> tuple[str, int] | None:
    """The line of the last ``replacements`` target that writes ``path`` of ``built`` (kustomize's
    ReplacementTransformer, the last of a kustomization's: its ``select`` by kind and name, as a patch's target, none
    of its ``reject``), None where none does; ``entries``: :func:`_replacements`."""
    kind, _ = _named(built)
    hit: tuple[str, int] | None = None
    for file, entry in entries:
        targets = entry.get("targets") if isinstance(entry, dict) else None
        for target in targets if isinstance(targets, list) else []:
            if not isinstance(target, dict):
                continue
            select, rejects, paths = target.get("select"), target.get("reject"), target.get("fieldPaths")
            if not isinstance(select, dict) or not isinstance(paths, list):
                continue
            if any(key not in ("group", "version", "kind", "name") for key in select):
                continue  # a namespace or a label selector: not told here
            rejected = [r for r in (rejects if isinstance(rejects, list) else []) if isinstance(r, dict)]
            if any(key not in ("group", "version", "kind", "name") for r in rejected for key in r):
                continue
            if not _picks(select, kind, names) or any(_picks(r, kind, names) for r in rejected):
                continue
            if any(isinstance(fp, str) and _writes(_field_path(fp), path, built) for fp in paths):
                hit = (file, getattr(target, "line", None) or getattr(entry, "line", None) or 1)
    return hit


def _by_field(stage: str, path: tuple[Step, ...], built: Any, names: tuple[str, ...], file: str,
              k: Any) -> tuple[str, int] | None:
    """The line of the kustomization ``k``'s own field ``stage`` where it sets ``path`` of the built object:
    ``namespace:`` its namespace, a ``replicas:`` entry its replicas, an ``images:`` entry a container's image."""
    if not path or not isinstance(path[-1], str) or not isinstance(k, dict):
        return None
    key_lines = getattr(k, "key_lines", {})
    value = k.get(stage)
    hit: tuple[str, int] | None = None
    if stage == "namespace" and isinstance(value, str) and (path == ("metadata", "namespace") or (
            # review45: the transformer also renames a Namespace object, and sets a binding's subjects' namespace
            _find(built, path, [])[2] == value and (path == ("metadata", "name") and _named(built)[0] == "Namespace"
                                                    or (len(path) == 3 and path[0] == "subjects"
                                                        and path[2] == "namespace")))):
        hit = (file, key_lines.get("namespace", 1))
    elif stage == "replicas" and path == ("spec", "replicas") and isinstance(value, list):
        for r in value:
            if isinstance(r, dict) and isinstance(r.get("name"), str) and r["name"] in names:
                hit = (file, getattr(r, "line", None) or key_lines.get("replicas", 1))
    elif stage == "images" and path[-1] == "image" and isinstance(value, list):
        _, _, image = _find(built, path, [])
        if not isinstance(image, str):
            return None
        repo = image.split("@", 1)[0]
        repo = repo.rsplit(":", 1)[0] if ":" in repo.rsplit("/", 1)[-1] else repo
        for entry in value:
            if isinstance(entry, dict) and (entry.get("newName") == repo or (
                    entry.get("name") == repo and "newName" not in entry)):
                hit = (file, getattr(entry, "line", None) or key_lines.get("images", 1))
    return hit


def place_build(text: str, origins: list[DocOrigin], resolve: Callable[[str], str]) -> dict[int, tuple[str, int]]:
    """For each line of ``text`` (a build's output, its annotations stripped: :func:`strip_build_metadata`) that a
    repository file wrote, that file and line. ``resolve`` turns a path kustomize wrote (relative to the
    kustomization that asked for the annotations) into the path to read and report. A remote base's object, and one
    whose origin file cannot be read or holds no document of its kind and name, has no line here: it stays at the
    output's."""
    placed: dict[int, tuple[str, int]] = {}
    lines = text.splitlines()
    files = _Files()
    for _, doc in load_documents(text, "kustomize build"):
        at = getattr(doc, "line", None) if isinstance(doc, dict) else None
        if not at:
            continue
        origin = next((o for o in origins if o.first <= at <= o.last), None)
        if origin is None or origin.repo:
            continue
        kind, name = _named(doc)
        home: tuple[str, list[str], Any] | None = None
        if origin.path:
            file = resolve(origin.path)
            got = files.get(file)
            found = _origin_doc(got[1], kind, name) if got else None
            if got is None or found is None:
                continue
            home = (file, got[0], found)
        elif origin.generated_in:  # a generated object: its generator's entry in the kustomization
            file = resolve(origin.generated_in)
            got = files.get(file)
            entry = None
            for key in _GENERATOR_KEYS:
                gens = got[1][0].get(key) if got and got[1] else None
                for gen in gens if isinstance(gens, list) else []:
                    if (isinstance(gen, dict) and isinstance(gen.get("name"), str) and gen["name"] in name
                            and getattr(gen, "line", None)):
                        entry = gen
            if entry is None:
                continue
            for n in range(origin.first, origin.last + 1):
                placed[n] = (file, getattr(entry, "line", 1))
            continue
        else:
            continue
        file, origin_lines, origin_doc = home
        names: tuple[str, str] = (name, _named(origin_doc)[1])
        chain = []  # each kustomization that transformed the object, in the order kustomize ran them
        for k in dict.fromkeys(resolve(k) for k in origin.configured_in):
            got = files.get(k)
            if got and got[1]:
                chain.append((k, got[1][0], [p for p in _patches(k, files) if _targets(p, kind, names, doc)],
                              _replacements(k, got[1][0], files)))
        steps = _steps(doc, lines)
        path: tuple[Step, ...] = ()
        for n in range(origin.first, origin.last + 1):
            path = steps.get(n, path)
            target: tuple[str, int] | None = None
            for k, kdoc, patches, replacements in chain:  # the last transformer that set the field wrote it
                for stage in _STAGES:
                    if stage.startswith("patches"):
                        for patch in patches:
                            hit = _in_patch(patch, path, origin_doc, origin_lines) if patch.key == stage else None
                            target = (patch.file, patch.offset + hit) if hit else target
                    else:
                        target = (_replaced(path, doc, names, replacements) if stage == "replacements"
                                  else _by_field(stage, path, doc, names, k, kdoc)) or target
            if target is None:
                line, _, _ = _find(origin_doc, path, origin_lines)
                target = (file, line or origin_doc.line or 1)
            placed[n] = target
        _hoist(placed, steps, origin.first, origin.last, file)
    return placed


def _hoist(placed: dict[int, tuple[str, int]], steps: dict[int, tuple[Step, ...]], first: int, last: int,
           origin_file: str) -> None:
    """A mapping or list every value of which one patch (or kustomization field) wrote is placed at that file's first
    line of them, not at the origin's key: a JSON 6902 ``replace`` of ``.../resources/limits/nvidia.com~1gpu`` moves
    ``resources:`` (where a rule points at the container's request) to the operation, which wrote the count that rule
    reads; ``spec:`` with the origin's values under it stays. Deepest first, so that a node's nodes are placed."""
    for n in range(last, first - 1, -1):
        path = steps.get(n)
        if path is None:
            continue
        inner = []
        for m in range(n + 1, last + 1):
            below = steps.get(m)
            if below is not None and below[:len(path)] != path:
                break
            inner.append(placed[m])
        files = {f for f, _ in inner}
        if inner and len(files) == 1 and origin_file not in files:
            placed[n] = min(inner)

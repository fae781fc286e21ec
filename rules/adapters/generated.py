"""The ConfigMaps a kustomization's ``configMapGenerator`` makes, when the kustomization is not built (met while
searching a folder, or read plainly after its build failed), as ConfigMaps of the inputs: a Deployment that runs
``vllm serve --config /etc/vllm/config.yaml`` mounted from a generated ConfigMap has its ``--config`` file read
(corpus32), as it is where the kustomization is built (kustomize emits the ConfigMap and rewrites the reference).

kustomize (``api/types/configmapargs.go``, ``kvpairsources.go``; kubectl.docs.kubernetes.io, "configMapGenerator"):
a generator's ``files`` entry is ``PATH`` (the key is the file's base name) or ``KEY=PATH``, its ``literals``
``KEY=VALUE``; a PATH is relative to the kustomization's folder and may not leave it (its default load restrictor,
``LoadRestrictionsRootOnly``). kustomize appends a hash of the data to the name (``vllm-config-5f7c9h2m4k``) and
rewrites every reference to it in the objects it builds; the files read here are not built, so their references
still name the generator's ``name``, which is the name the ConfigMap is known by here, and only by the workloads of
the files the kustomization reaches (``ConfigMap.seen_by``): another workload naming ``vllm-config`` meets another
ConfigMap in the cluster. Where the generator's ``options`` or the kustomization's ``generatorOptions`` set
``disableNameSuffixHash: true`` (a global true wins: kustomize api/types/generatoroptions.go), the name is plain and
every workload of its namespace meets it. The kustomization's
``namespace:`` moves its resources and its ConfigMap alike: where it sets one, the ConfigMap is also known in the
namespaces its resources' files write (:func:`generated_config_maps`'s ``readers``), as a pod of those files meets
it in the build. Its namespace is the
kustomization's ``namespace:`` (kustomize's namespace transformer), else the generator's own ``namespace``, else
``default``.

What is left out, so the values it would give stay unknown as before: a generator that reads a file that is missing,
outside the kustomization's folder or not readable text, or an ``env``/``envs`` file; a generator with
``behavior: merge`` or ``replace``, and every generator of a name one of those changes, or a kustomization's patches,
replacements (inline or in a file) or transformer configurations may select as a ConfigMap, in any namespace (an
overlay that merges a base's model id sets no namespace of its own; which data each overlay's build holds is not
read here); a name two generators create with different data stays ambiguous
as two ConfigMaps of one name are (:mod:`.k8s.configjoin`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from ..model import ConfigMap, Location
from ..model.errors import InputError
from ..model.files import inside
from .origins import kustomize_selects
from .overlays import _patch_docs, reached_files
from .yamlsrc import load_documents, read_text


def _generators(path: str) -> tuple[str, list[Any], bool, list[str | None]]:
    """(the kustomization's namespace, its configMapGenerator entries, whether its ``generatorOptions`` turn the name
    suffix hash off for all of them, the ConfigMap names its patches and replacements change: :func:`_patched`)."""
    try:
        docs = load_documents(read_text(path), path)
    except InputError:
        return "", [], False, []
    doc = docs[0][1] if len(docs) == 1 else None
    if not isinstance(doc, dict):
        return "", [], False, []
    ns = doc.get("namespace")
    gens = doc.get("configMapGenerator")
    return ((ns if isinstance(ns, str) else ""), (gens if isinstance(gens, list) else []),
            _unhashed(doc, "generatorOptions"), _patched(doc, os.path.dirname(path)))


def _patched(doc: Mapping[str, Any], here: str) -> list[str | None]:
    """The names (kustomize's regular expressions, matched whole; None: any) of the ConfigMaps a kustomization's
    ``patches``, ``patchesStrategicMerge``, ``patchesJson6902``, ``replacements`` (inline or in a file) and
    ``transformers`` may change: a target or a
    replacement's ``select`` of kind ConfigMap or of no kind, a strategic merge patch of kind ConfigMap. An overlay
    that patches a base's generated ConfigMap (`/data/config.yaml` replaced) builds other data than the base's
    generator gives (review30)."""
    out: list[str | None] = []
    for entry in [*_items(doc.get("patches")), *_items(doc.get("patchesStrategicMerge")),
                  *_items(doc.get("patchesJson6902"))]:
        target, docs = _patch_docs(entry, here)
        if target and target.get("kind") in (None, "ConfigMap"):
            out.append(_name(target))
        for d in docs:
            if isinstance(d, dict) and d.get("kind") == "ConfigMap":
                meta = d.get("metadata")
                out.append(_name(meta) if isinstance(meta, dict) else None)
    out.extend(_replaced(_items(doc.get("replacements")), here))
    for entry in _items(doc.get("transformers")):
        out.extend(_transformed(entry, here))
    return out


def _replaced(replacements: list[Any], here: str) -> list[str | None]:
    """The ConfigMap names ``replacements`` entries may write: each target's ``select`` of kind ConfigMap or of no
    kind. An entry ``path: FILE`` holds its replacement in a file (kustomize's site docs, Reference/API/replacements:
    ``replacements: [{path: replacement.yaml}]``, the file one ``source``/``targets`` mapping); a file not read here
    may write any (review32: the targets of a replacement in a file were not looked at, and its ConfigMap was read
    as the generator's data)."""
    out: list[str | None] = []
    for r in replacements:
        if isinstance(r, dict) and "targets" not in r and isinstance(r.get("path"), str):
            docs = _file_docs(os.path.join(here, r["path"]))
            if docs is None:
                out.append(None)
                continue
            out.extend(_replaced([i for d in docs for i in (d if isinstance(d, list) else [d])], here))
            continue
        for t in _items(r.get("targets") if isinstance(r, dict) else None):
            select = t.get("select") if isinstance(t, dict) else None
            if not isinstance(select, dict) or select.get("kind") in (None, "ConfigMap"):
                out.append(_name(select) if isinstance(select, dict) else None)
    return out


#: kustomize's builtin transformers that change no ConfigMap's data (api/builtins: labels, annotations, namespace,
#: name prefix and suffix, images, replica counts)
_DATA_KEPT = frozenset({"LabelTransformer", "AnnotationsTransformer", "NamespaceTransformer",
                        "PrefixSuffixTransformer", "PrefixTransformer", "SuffixTransformer", "ImageTagTransformer",
                        "ReplicaCountTransformer"})


def _transformed(entry: Any, here: str) -> list[str | None]:
    """The ConfigMap names a ``transformers`` entry (a transformer configuration: a file, or inline YAML) may change:
    a ``PatchTransformer``'s or ``PatchJson6902Transformer``'s target of kind ConfigMap or of no kind, a
    ``ReplacementTransformer``'s replacements; none for the builtins that change no data (:data:`_DATA_KEPT`); any
    (None) for every other kind (a strategic merge patch transformer, a plugin, a KRM function) and for what is not
    read here (a folder of them). review32: a PatchTransformer of the generated ConfigMap was not looked at."""
    if isinstance(entry, str) and "\n" not in entry and ":" not in entry:
        docs = _file_docs(os.path.join(here, entry))
    elif isinstance(entry, str):
        try:
            docs = [d for _, d in load_documents(entry, "transformer") if not isinstance(d, InputError)]
        except InputError:
            docs = None
    else:
        docs = None
    if not docs:
        return [None]
    out: list[str | None] = []
    for d in docs:
        kind = d.get("kind") if isinstance(d, dict) else None
        if not isinstance(d, dict) or kind in _DATA_KEPT:
            continue
        target = d.get("target")
        if kind in ("PatchTransformer", "PatchJson6902Transformer") and isinstance(target, dict):
            if target.get("kind") in (None, "ConfigMap"):
                out.append(_name(target))
        elif kind == "ReplacementTransformer":
            out.extend(_replaced(_items(d.get("replacements")), here))
        else:
            out.append(None)
    return out


def _file_docs(path: str) -> list[Any] | None:
    """The YAML documents of ``path``, None where it is not read (missing, a folder, not text, not YAML)."""
    try:
        return [d for _, d in load_documents(read_text(path), path) if not isinstance(d, InputError)]
    except (InputError, OSError):
        return None


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _name(holder: Mapping[str, Any]) -> str | None:
    name = holder.get("name")
    return name if isinstance(name, str) and name else None


def _matches(pattern: str | None, name: str) -> bool:
    """Whether a target's name ``pattern`` selects ``name`` (kustomize anchors it: ``^(?:pattern)$``; one Python's
    ``re`` cannot read, or cannot match in bounded time, is taken to: :func:`.origins.kustomize_selects`; fuzz25:
    ``(a+)+$`` against a generator's name was matched unguarded)."""
    if pattern is None:
        return True
    return kustomize_selects(pattern, name) is not False


def _unhashed(holder: Mapping[str, Any], key: str) -> bool:
    """Whether ``holder[key]`` (a kustomization's ``generatorOptions``, a generator's ``options``) sets
    ``disableNameSuffixHash: true``."""
    options = holder.get(key)
    return isinstance(options, dict) and options.get("disableNameSuffixHash") is True


def _data(entry: dict[str, Any], folder: str) -> dict[str, str] | None:
    """The data a generator entry gives, or None when any of it is not known here."""
    if entry.get("env") is not None or entry.get("envs") is not None:
        return None
    data: dict[str, str] = {}
    files, literals = entry.get("files"), entry.get("literals")
    for f in files if isinstance(files, list) else ([] if files is None else [None]):
        if not isinstance(f, str) or not f.strip():
            return None
        key, _, rel = f.strip().rpartition("=")
        local = os.path.normpath(os.path.join(folder, rel))
        if "://" in rel or not inside(os.path.realpath(local), os.path.realpath(folder)):
            return None
        try:
            data[key or os.path.basename(rel)] = read_text(local)
        except (InputError, OSError):
            return None  # missing or not text: the file's value stays unknown
    for lit in literals if isinstance(literals, list) else ([] if literals is None else [None]):
        if not isinstance(lit, str) or "=" not in lit:
            return None
        key, _, value = lit.partition("=")
        quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
        data[key.strip()] = value[1:-1] if quoted else value
    return data


def generated_config_maps(kustomizations: Iterable[str],
                          readers: Mapping[str, set[str]] | None = None) -> list[ConfigMap]:
    """The ConfigMaps the ``configMapGenerator`` entries of ``kustomizations`` (files not built) create. ``readers``:
    for each file (absolute) of a workload that looked up a ConfigMap its input does not hold, the namespaces its
    objects are written in; a kustomization with a ``namespace:`` moves the objects of the files it reaches there
    with its ConfigMap, so the ConfigMap is also known in the namespaces those files' readers are written in (a base
    ``namespace: llm`` beside a Deployment that names none)."""
    made: list[tuple[str, str, dict[str, str], str, frozenset[str] | None]] = []
    changed: set[str] = set()
    patched: list[str | None] = []
    for path in kustomizations:
        ns, gens, unhashed, patches = _generators(path)
        patched.extend(patches)
        reached: frozenset[str] | None = None
        for entry in gens:
            name = entry.get("name") if isinstance(entry, dict) else None
            if not isinstance(name, str) or not name:
                continue
            if entry.get("behavior") not in (None, "create"):
                changed.add(name)  # by name: an overlay that merges sets no namespace of its own (adminless-io)
                continue
            own = entry.get("namespace")  # the generator's own, which the kustomization's namespace: overrides
            data = _data(entry, os.path.dirname(path))
            if data is None:
                continue
            if reached is None:
                reached = frozenset(reached_files([os.path.dirname(path)]))
            # with the name suffix hash (kustomize's default), the ConfigMap is vllm-config-<hash> in the cluster, and
            # only the references kustomize rewrites in this build, those of the files it reaches, name it: another
            # workload of the namespace that names vllm-config meets another ConfigMap (review30)
            seen = None if unhashed or _unhashed(entry, "options") else reached
            made.append((ns or (own if isinstance(own, str) and own else "default"), name, data, path, seen))
            if ns and readers:
                moved = {n for f in reached for n in readers.get(f, ())}  # a kustomization that sets a namespace
                made.extend((n, name, data, path, seen) for n in sorted(moved - {ns}))
    return [ConfigMap(name=name, namespace=ns, data=data, location=Location(file=path), seen_by=seen)
            for ns, name, data, path, seen in made
            if name not in changed and not any(_matches(pattern, name) for pattern in patched)]

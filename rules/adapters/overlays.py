"""What a kustomization that is not built says about the objects of its bases: their replicas, images and namespace.

A kustomization met while searching a folder that is not built (:mod:`.found`: no kustomize or kubectl on PATH, a
build that fails, building switched off; and every one read by :func:`~shardwise.rules.adapters.read_inputs` without
``build_found``) has the files of its bases read one by one as plain manifests, and so has a named kustomization
whose build failed. Its overlay's ``replicas:`` field and
its patches that set ``spec.replicas`` change the number of pods the applied object runs, and its ``images:`` field
the image; read as written, a base Deployment at ``replicas: 0`` that every overlay runs at 2 was judged as running
nothing (advisory findings), where ``kustomize build`` of the overlay gives 2. This module reads those fields of each
such kustomization and applies them to the objects read from the files it reaches (its ``resources``, a folder's
through that folder's own kustomization, transitively), as kustomize's transformers do (kustomize
``api/internal/builtins``: ReplicaCountTransformer on Deployment, ReplicaSet, ReplicationController and StatefulSet
by the resource's name before a ``namePrefix``; ImageTagTransformer on every container's image by its name):

- the count an overlay sets wins over the base's;
- a workload that two or more overlays reach (a base of dev and prod) is one object per overlay, as ``kustomize
  build`` of each emits its own: one copy each, named by the overlay (``base/deploy.yaml (via
  overlays/prod/kustomization.yaml)``), with that overlay's count, images, namespace and patches, and of that
  overlay's deployable unit (:mod:`.units`); so one finding per deployed object, never the base's as well
  (:func:`_split_by_overlay`, readers17; before, the base was read once with the largest count of its overlays);
- the Services, Ingresses and network policies of a file that two or more overlays reach are copied likewise, one
  per overlay in that overlay's namespace, whether or not the overlay patches them (readers19; a cluster-scoped
  policy is one object and is not copied);
- an image is rewritten only where every overlay that reaches the object writes the same one (``newName``,
  ``newTag``, ``digest``); where they differ the object keeps its own;
- so is the namespace (the ``namespace:`` of the outermost kustomization that sets one, kustomize's namespace
  transformer), of workloads, Services, Ingresses, network policies and routers alike (:func:`_apply_namespaces`).
  ``namePrefix``/``nameSuffix`` are not applied (kustomize's name references rename an Ingress's backend with its
  Service, so names read unprefixed still match each other), nor are components or generators.

A patch that changes a container's ``args``, ``command``, ``env`` or device count (an extended resource such as
``nvidia.com/gpu`` among its ``resources``; a JSON 6902 operation on them, or on the containers whole; a strategic
merge patch of a container that sets them), or the pod's ``nodeSelector`` or ``affinity`` (readers17: the GPU count
and type an overlay gives), is not applied: the flags were read from the
base, so the object records the overlay (``ServingGroup.patched_by``) and its blocking capacity, topology and
reliability findings are advisory, saying to lint what the overlay builds. Remote bases and files outside the reached
folders are not followed.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Iterable
from typing import Any

from ..model import Inventory, LaunchIssue, Location, ServingGroup
from ..model.errors import InputError
from .yamlsrc import load_documents, read_text

#: The kinds kustomize's ``replicas:`` field sets (its ReplicaCountTransformer's default field specs).
_REPLICA_KINDS = frozenset({"Deployment", "ReplicaSet", "ReplicationController", "StatefulSet"})
_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")



#: Why a folder the tool built is still not judged (newuser15): what its build emitted could not be read (a vLLM
#: flag a template left without a value). Was "its build failed", though helm or kustomize had succeeded.
UNREADABLE = "what its build emitted could not be read"


def not_built_clause(why: str, verb: str = "built") -> str:
    """``was not built (WHY)``, or, where the tool built it and its output could not be read (:data:`UNREADABLE`),
    ``was built, but WHY``: the words a record of a folder met while searching uses for why it was not judged."""
    return f"was {verb}, but {why}" if why.startswith(UNREADABLE) else f"was not {verb} ({why})"


def _doc(path: str) -> Any:
    try:
        docs = load_documents(read_text(path), path)
    except InputError:
        return None
    return docs[0][1] if docs and not isinstance(docs[0][1], InputError) else None


def _kustomization_in(folder: str) -> str | None:
    return next((os.path.join(folder, n) for n in _NAMES if os.path.isfile(os.path.join(folder, n))), None)


def _reached(path: str, chain: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
    """The files a kustomization's ``resources`` (and old ``bases``) reach, folders through their kustomization, each
    with the kustomizations it is reached through (this one first, the one that lists it last)."""
    out: dict[str, tuple[str, ...]] = {}
    if path in chain:
        return out
    chain = (*chain, path)
    doc = _doc(path)
    if not isinstance(doc, dict):
        return out
    here = os.path.dirname(path)
    for entry in [*_list(doc.get("resources")), *_list(doc.get("bases"))]:
        if not isinstance(entry, str) or "://" in entry or entry.startswith(("github.com/", "git@")):
            continue
        target = os.path.normpath(os.path.join(here, entry))
        if os.path.isdir(target):
            inner = _kustomization_in(target)
            if inner is not None:
                for f, through in _reached(os.path.abspath(inner), chain).items():
                    out.setdefault(f, through)
        elif os.path.isfile(target):
            out.setdefault(os.path.abspath(target), chain)
    return out


def reached_files(folders: Iterable[str], kustomizations: bool = False) -> set[str]:
    """The files (absolute) the kustomizations of ``folders`` reach through their ``resources`` and ``bases``: a
    kustomization a GitOps object builds emits its bases' objects, so their files are not also read one by one
    (adopt17: a base's Deployment was reported as written and again through the overlay). With ``kustomizations``,
    the kustomization files they are reached through too (a base's own, which a build applies)."""
    out: set[str] = set()
    for folder in folders:
        own = _kustomization_in(folder)
        if own is not None:
            reach = _reached(os.path.abspath(own))
            out.update(reach)
            if kustomizations:
                out.update(k for through in reach.values() for k in through)
    return out


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _patch_docs(entry: Any, here: str) -> tuple[dict[str, Any], list[Any]]:
    """(the target, the patch's documents) of one ``patches`` / ``patchesStrategicMerge`` / ``patchesJson6902``
    entry: inline (``patch:``, or a string) or in a file (``path:``)."""
    target: dict[str, Any] = {}
    text: str | None = None
    if isinstance(entry, str):
        if "\n" in entry or ":" in entry:
            text = entry
        else:
            try:
                text = read_text(os.path.join(here, entry))
            except InputError:
                return target, []
    elif isinstance(entry, dict):
        target = _map(entry.get("target"))
        if isinstance(entry.get("patch"), str):
            text = entry["patch"]
        elif isinstance(entry.get("path"), str):
            try:
                text = read_text(os.path.join(here, entry["path"]))
            except InputError:
                return target, []
    if text is None:
        return target, []
    try:
        docs = load_documents(text, "patch")
    except InputError:
        return target, []
    return target, [d for _, d in docs if not isinstance(d, InputError)]


def _counts(doc: dict[str, Any], here: str) -> list[tuple[str | None, str, int]]:
    """(kind or None for any, name, count) of every replica count a kustomization sets."""
    out: list[tuple[str | None, str, int]] = []
    for r in _list(doc.get("replicas")):
        if isinstance(r, dict) and isinstance(r.get("name"), str) and type(r.get("count")) is int:
            out.append((None, r["name"], r["count"]))
    for entry in [*_list(doc.get("patches")), *_list(doc.get("patchesStrategicMerge")),
                  *_list(doc.get("patchesJson6902"))]:
        target, docs = _patch_docs(entry, here)
        for d in docs:
            if isinstance(d, list):  # JSON 6902 operations on the target
                for op in d:
                    if (isinstance(op, dict) and op.get("op") in ("replace", "add")
                            and op.get("path") == "/spec/replicas" and type(op.get("value")) is int
                            and isinstance(target.get("name"), str)):
                        out.append((target.get("kind"), target["name"], op["value"]))
            elif isinstance(d, dict):  # a strategic merge patch names its object itself (or the target does)
                spec = _map(d.get("spec"))
                meta = _map(d.get("metadata"))
                name = meta.get("name") if isinstance(meta.get("name"), str) else target.get("name")
                if type(spec.get("replicas")) is int and isinstance(name, str):
                    out.append((d.get("kind") or target.get("kind"), name, spec["replicas"]))
    return out


#: Where a JSON 6902 operation changes what a container runs (its args, command or env, or the containers whole).
_RUN_PATHS = ("/spec/template/spec/containers", "/spec/template/spec/initContainers")
_RUN_FIELDS = ("args", "command", "env", "envFrom")
#: What a pod-level patch sets that moves the pods (the GPU type they land on): not applied either (readers17).
_PLACE_FIELDS = ("nodeSelector", "affinity")
_PLACE_PATHS = tuple(f"/spec/template/spec/{f}" for f in _PLACE_FIELDS)


def _changes_run(op_path: str) -> bool:
    if op_path in ("/spec", "/spec/template", "/spec/template/spec") or op_path.startswith(_PLACE_PATHS):
        return True
    if not op_path.startswith(_RUN_PATHS):
        return False
    parts = op_path.split("/")
    # /spec/template/spec/containers[/N[/field...]]: the list, one container whole, or one of the fields it runs by
    if len(parts) <= 6 or parts[6] in _RUN_FIELDS:
        return True
    # its resources whole, their limits or requests whole, or a device among them (``nvidia.com~1gpu``: JSON
    # pointer's escaped slash; cpu and memory name no device)
    return parts[6] == "resources" and (len(parts) <= 8 or "~1" in parts[8])


def _devices(container: dict[str, Any]) -> bool:
    """Whether a patch's container sets a device count (an extended resource, ``vendor/name``) among its resources."""
    res = _map(container.get("resources"))
    return any(isinstance(k, str) and "/" in k for part in ("limits", "requests") for k in _map(res.get(part)))


def _run_patches(doc: dict[str, Any], here: str) -> list[tuple[str | None, str | None]]:
    """(kind, name; None for any) of the objects a kustomization's patches change the args, command or env of."""
    out: list[tuple[str | None, str | None]] = []
    for entry in [*_list(doc.get("patches")), *_list(doc.get("patchesStrategicMerge")),
                  *_list(doc.get("patchesJson6902"))]:
        target, docs = _patch_docs(entry, here)
        kind, name = target.get("kind"), target.get("name")
        for d in docs:
            if isinstance(d, list):
                if any(isinstance(op, dict) and isinstance(op.get("path"), str) and _changes_run(op["path"])
                       for op in d):
                    out.append((kind if isinstance(kind, str) else None, name if isinstance(name, str) else None))
            elif isinstance(d, dict):
                spec = _map(d.get("spec"))
                template = _map(spec.get("template"))
                pod = _map(template.get("spec"))
                containers = [*_list(pod.get("containers")), *_list(pod.get("initContainers"))]
                if (any(isinstance(c, dict) and (any(f in c for f in _RUN_FIELDS) or _devices(c))
                        for c in containers) or any(f in pod for f in _PLACE_FIELDS)):
                    meta = _map(d.get("metadata"))
                    own = meta.get("name") if isinstance(meta.get("name"), str) else name
                    out.append((d.get("kind") or kind, own if isinstance(own, str) else None))
    return out


def _image(image: str, rules: list[dict[str, Any]]) -> str:
    """``image`` as kustomize's ``images:`` entries rewrite it (the first entry whose ``name`` is its name)."""
    at = image.find("@")
    rest = image[:at] if at >= 0 else image
    slash = rest.rfind("/")
    colon = rest.rfind(":")
    name = rest[:colon] if colon > slash else rest
    for r in rules:
        if r.get("name") != name:
            continue
        new_name = _text(r.get("newName")) or name
        if isinstance(r.get("digest"), str):
            return f"{new_name}@{r['digest']}"
        if isinstance(r.get("newTag"), str):
            return f"{new_name}:{r['newTag']}"
        return new_name + image[len(name):]
    return image


def apply_overlays(inv: Inventory, kustomizations: Iterable[str], searched: Iterable[str] = (),
                   not_built: dict[str, str] | None = None) -> None:
    """Apply the replica counts and images of ``kustomizations`` (files, not built) to the groups of the files they
    reach, by the rules of this module. Only a kustomization no other of them lists is a deployment (an overlay); a
    base's own kustomization is applied through the overlays that list it, inner first (the outer count wins).
    Each object that an overlay among ``searched`` (kustomizations met while searching a folder) deploys with a patch
    this module does not apply is an SW005 record naming the command that lints what it deploys
    (:func:`_patched_not_read`), with why it was not built where ``not_built`` (its folder, absolute -> why,
    :mod:`.found`) says."""
    given = {os.path.abspath(k): k for k in kustomizations}
    paths = list(given)
    reach = {k: _reached(k) for k in paths}
    listed = {k2 for k in paths for through in reach[k].values() for k2 in through[1:]}
    docs: dict[str, dict[str, Any]] = {}
    for k in {k2 for r in reach.values() for through in r.values() for k2 in through}:
        doc = _doc(k)
        docs[k] = doc if isinstance(doc, dict) else {}
    copies = _split_by_overlay(inv, [k for k in paths if k not in listed], reach)
    by_file: dict[str, list[ServingGroup]] = {}
    for g in inv.groups:
        if id(g) in copies:
            by_file.setdefault(copies[id(g)][1], []).append(g)
        elif g.location.file:
            by_file.setdefault(os.path.abspath(g.location.file), []).append(g)
    counts: dict[int, list[int]] = {}
    images: dict[tuple[int, int], set[str]] = {}
    changed: set[int] = set()
    unread: dict[int, tuple[ServingGroup, str, str]] = {}
    for leaf in paths:
        if leaf in listed:
            continue
        for f, through in reach[leaf].items():
            for g in by_file.get(f, []):
                if id(g) in copies and copies[id(g)][0] != leaf:
                    continue  # the copy another overlay deploys
                count = g.replicas
                image = {i: c.image for i, c in enumerate(g.containers)}
                prefix = suffix = ""
                for k in reversed(through):  # the innermost kustomization first: the outer one wins
                    doc = docs.get(k, {})
                    names = {g.name, f"{prefix}{g.name}{suffix}"}
                    for kind, name, n in _counts(doc, os.path.dirname(k)):
                        if g.kind in _REPLICA_KINDS and name in names and kind in (None, g.kind):
                            count = n
                            changed.add(id(g))
                    for patched_kind, patched in _run_patches(doc, os.path.dirname(k)):
                        if (patched is None or patched in names) and patched_kind in (None, g.kind):
                            g.patched_by = os.path.relpath(k, os.path.dirname(f))  # from the object's folder
                            unread[id(g)] = (g, k, leaf)
                    rules = [r for r in _list(doc.get("images")) if isinstance(r, dict)
                             and isinstance(r.get("name"), str)]
                    for i, img in image.items():
                        if rules and isinstance(img, str):
                            image[i] = _image(img, rules)
                    prefix = _text(doc.get("namePrefix")) + prefix
                    suffix = suffix + _text(doc.get("nameSuffix"))
                counts.setdefault(id(g), []).append(count)
                for i, img in image.items():
                    images.setdefault((id(g), i), set()).add(img)  # type: ignore[arg-type]
    _apply_namespaces(inv, paths, reach, listed, docs, copies)
    looked = {os.path.abspath(k) for k in searched}
    for g, k, leaf in unread.values():
        if leaf in looked:
            why = None if not_built is None else not_built.get(os.path.dirname(leaf))
            inv.launch_issues.append(_patched_not_read(g, given.get(k, k), given[leaf], why))
    for g in inv.groups:
        held = [n for n in counts.get(id(g), []) if type(n) is int]
        if id(g) in changed and type(g.replicas) is int and len(held) == len(counts[id(g)]):
            g.replicas = max(held)
        for i, c in enumerate(g.containers):
            rewritten = images.get((id(g), i))
            if rewritten is not None and len(rewritten) == 1:
                c.image = next(iter(rewritten))


#: The line of a kustomization's patches, where an object's SW005 record points.
_PATCHES = re.compile(r"^(?:patches|patchesStrategicMerge|patchesJson6902)\s*:", re.MULTILINE)


def _patched_not_read(g: ServingGroup, kustomization: str, overlay: str, why: str | None = None) -> LaunchIssue:
    """SW005's record of an object that ``overlay`` (met while searching a folder, so not built) deploys with a patch
    of its containers' args, command, env or device count, or its pods' nodeSelector or affinity, written in
    ``kustomization`` (the overlay or one it lists): the object was linted as its base writes it, and its blocking
    capacity, topology and reliability findings are advisory (``engine.rule``), so a run with none of those passed
    with no word that what the overlay deploys was never judged (newuser11: a prod overlay that patches a base's
    7B model to a 72B one at TP8 passed, its workload reported as the base's 7B at TP1). The record points at the
    kustomization's patches and says how to lint what the overlay builds, and why the overlay was not built where the
    run tried (``why``, :mod:`.found`: such a record blocks under ``require_build``)."""
    try:
        m = _PATCHES.search(read_text(kustomization))
        line = 1 if m is None else m.string.count("\n", 0, m.start()) + 1
    except InputError:
        line = 1
    subject = f"{g.kind} {g.namespace}/{g.name}" if g.namespace else f"{g.kind} {g.name}"
    folder = os.path.dirname(overlay) or "."
    how = f"shardwise lint {folder}" if folder != "." else "kustomize build . | shardwise lint -"
    return LaunchIssue(
        subject, "",
        f"what {kustomization} patches in (its containers' args, command, env or device count, or its pods' "
        "nodeSelector or affinity) is not applied: "
        + ("a kustomization met while searching a folder is not built" if why is None else
           f"the overlay {folder}, met while searching a folder, {not_built_clause(why)}")
        + ", so this object was linted as its base writes it (the model, the flags, the GPUs and the pool) and its "
        f"capacity, topology and reliability findings do not block; to lint what it deploys: {how}",
        Location(kustomization, line), suppressions=list(g.suppressions), mentioned=True, not_built=why is not None,
        not_built_folder=os.path.dirname(os.path.abspath(overlay)) if why is not None else "")


def _split_by_overlay(inv: Inventory, leaves: list[str],
                      reach: dict[str, dict[str, tuple[str, ...]]]) -> dict[int, tuple[str, str]]:
    """Replace each workload of a file that two or more overlays reach (a base of dev and prod) by one copy per
    overlay, named by it (``base/deploy.yaml (via overlays/prod/kustomization.yaml)``, the line the base's) and of
    its own deployable unit (:mod:`.units`: the overlay refines the repository's unit, as an Argo CD destination
    does): ``kustomize build`` of each overlay emits its own object, with its own replicas, images, namespace and
    patches, and each is deployed (readers17; before, the base was read once, with the largest count of the
    overlays, and both overlays were one unit). Returns, by the id of each copy, (its overlay, the base's file).
    A file one overlay reaches keeps its name: it is one deployable object."""
    from .charts import _relocate

    by: dict[str, list[str]] = {}
    for leaf in leaves:
        for f in reach[leaf]:
            by.setdefault(f, []).append(leaf)
    split = {f for f, ls in by.items() if len(ls) > 1}
    copies: dict[int, tuple[str, str]] = {}
    if not split:
        return copies
    kept: list[ServingGroup] = []
    for g in inv.groups:
        full = os.path.abspath(g.location.file) if g.location.file else None
        if full is None or full not in split:
            kept.append(g)
            continue
        old = g.location.file
        assert old is not None
        for leaf in by[full]:
            twin = copy.deepcopy(g)
            suffix = f" (via {leaf if os.path.isabs(old) else os.path.relpath(leaf)})"  # as the file was given
            _relocate(twin, old, old + suffix, lambda n: n)
            inv.clusters[suffix] = f"kustomize={os.path.relpath(os.path.dirname(leaf))}"
            copies[id(twin)] = (leaf, full)
            kept.append(twin)
    inv.groups[:] = kept
    for objects in (inv.services, inv.ingresses, inv.network_policies, inv.pod_ports):
        _split_objects(objects, split, by, copies)
    return copies


def _split_objects(objects: list[Any], split: set[str], by: dict[str, list[str]],
                   copies: dict[int, tuple[str, str]]) -> None:
    """The Services, Ingresses, network policies and named pod ports of a file that two or more overlays reach, one
    copy per overlay, as :func:`_split_by_overlay` copies its workloads: ``kustomize build`` of each overlay emits the
    base's Service and NetworkPolicy too, whether or not it patches them, in that overlay's namespace (readers19;
    before, they were read once and kept the base's own namespace where the overlays give different ones, so the dev
    and prod copies of a Deployment had no Service and no default-deny policy beside them). A cluster-scoped policy
    (``namespaces`` set) is one object however many overlays apply it, and is not copied."""
    from .charts import _relocate

    kept: list[Any] = []
    for obj in objects:
        full = os.path.abspath(obj.location.file) if obj.location.file else None
        if full is None or full not in split or getattr(obj, "namespaces", None) is not None:
            kept.append(obj)
            continue
        old = obj.location.file
        for leaf in by[full]:
            twin = copy.deepcopy(obj)
            _relocate(twin, old, old + f" (via {leaf if os.path.isabs(old) else os.path.relpath(leaf)})", lambda n: n)
            copies[id(twin)] = (leaf, full)
            kept.append(twin)
    objects[:] = kept


def _apply_namespaces(inv: Inventory, paths: list[str], reach: dict[str, dict[str, tuple[str, ...]]],
                      listed: set[str], docs: dict[str, dict[str, Any]],
                      copies: dict[int, tuple[str, str]]) -> None:
    """Set the namespace of the workloads, Services, Ingresses, network policies and routers read from the files the
    overlays reach to the one kustomize's namespace transformer gives them (the ``namespace:`` of the outermost
    kustomization on the way that sets one; it overrides the object's own), where every overlay reaching the object
    gives the same one (place16). Before, the base's namespace was kept: an overlay's own default-deny NetworkPolicy in
    ``serving`` did not cover the base's Deployment it moves to ``serving``, and a Service of the overlay did not select
    its pods. Where overlays disagree (dev and prod namespaces) the object keeps its own: it runs in each, and no one
    of them is the object's. Cluster-scoped policies (``namespaces`` set) are left alone, as kustomize leaves
    cluster-scoped kinds."""
    given: dict[str, set[str | None]] = {}  # file -> the namespaces the overlays reaching it give (None: none set)
    of_leaf: dict[tuple[str, str], str | None] = {}  # (overlay, file) -> the namespace that overlay gives
    for leaf in paths:
        if leaf in listed:
            continue
        for f, through in reach[leaf].items():
            ns = next((_text(docs.get(k, {}).get("namespace")) for k in through  # the outermost first
                       if _text(docs.get(k, {}).get("namespace"))), None)
            given.setdefault(f, set()).add(ns)
            of_leaf[leaf, f] = ns
    if not given:
        return
    objects: list[Any] = [*inv.groups, *inv.services, *inv.ingresses, *inv.network_policies, *inv.routers,
                          *inv.pod_ports]
    for obj in objects:
        if not obj.location.file or getattr(obj, "namespaces", None) is not None:
            continue
        twin = copies.get(id(obj))
        found: set[str | None] | None = (
            {of_leaf.get(twin)} if twin is not None  # one overlay's copy: that overlay's namespace
            else given.get(os.path.abspath(obj.location.file)))
        if found is not None and len(found) == 1 and None not in found:
            obj.namespace = next(iter(found))

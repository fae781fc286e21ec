"""Deployable units: which inputs of one lint run go to one cluster, so that a pool places only their workloads.

A node pool is a candidate for a workload only when both are of the same deployable unit, and so is a Service, an
Ingress or HTTPRoute, a NetworkPolicy (of any CNI) or a production-stack router: a Service of one repository does
not select the pods of another's, and a default-deny policy of one does not isolate another's namespace of the same
name (place16; before, only pools were scoped). A lint run may be handed
several unrelated things at once (two repositories, the previews of two stacks), and a pod without a selector would
otherwise be sized on another repository's pool, or a pool of another stack. What the inputs say decides the unit of
a file, the first rule that applies:

1. A Pulumi stack: a ``pulumi preview --json`` or ``pulumi stack export`` file, or a shardwise stack config, is one
   stack, deployed on its own; its pools place only its own workloads, and its workloads take only its pools.
2. A git repository: a file inside a git work tree (the nearest folder above it that holds ``.git``, a directory or,
   for a submodule or a linked worktree, a file) is of that repository. The folders of one repository are one unit,
   whatever folders of it the command line names (``shardwise lint k8s/ karpenter/``): a repository's NodePools place
   its workloads. Two checkouts (``shardwise lint repo-a/ repo-b/``), or a submodule and its parent, are two units.
3. The command line: outside any git work tree, each folder named on the command line is a unit (its whole tree,
   the charts and kustomizations rendered from it included).

A file named on its own on the command line (and standard input), other than a stack, was put beside the rest on
purpose: it is of every unit of the run (``shardwise lint ~/nodes.yaml repo-a/ repo-b/`` sizes the workloads of both
repositories on those nodes, and ``shardwise lint $(git ls-files '*.yaml')`` lints one unit, as before).

A chart or kustomization rendered from a folder of the command line is of that folder's unit. A file no rule places
(a location that is no file, an object rendered from a file named) is of every unit.

4. An Argo CD destination: the objects an Argo CD Application of the inputs renders (``adapters.gitops``) go to the
   cluster of its ``spec.destination``; their unit is their repository's (or folder's) refined by that cluster
   (``git:ROOT|server=URL``). Two Applications of one repository deploying to two servers (or two cluster names)
   are two units: the NetworkPolicy or Service of one is not judged against the other's workloads, nor does one's
   NodePool place the other's. Two Applications of the same destination are one cluster, and share their Services
   and policies as Kubernetes does (a NetworkPolicy selects pods, whichever Application made them). A destination
   given by name and another by server may be one cluster (Argo CD maps names to servers in its own cluster
   secrets, which the inputs do not hold): one unit. The repository's files that no Application renders are of
   every destination of it (``Inventory.same_unit``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..model import Inventory
from ..model.inventory import CLUSTER_MARK, EVERY_UNIT


def _git_root(directory: str, seen: dict[str, str | None]) -> str | None:
    """The nearest folder at or above ``directory`` that holds a ``.git`` entry, None when there is none."""
    walked: list[str] = []
    d = directory
    found: str | None = None
    while True:
        if d in seen:
            found = seen[d]
            break
        walked.append(d)
        if os.path.lexists(os.path.join(d, ".git")):
            found = d
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    for w in walked:
        seen[w] = found
    return found


def real_path(full: str, real_dirs: dict[str, str]) -> str:
    """:func:`os.path.realpath` of the absolute path ``full``: its folder's real path (made once per folder, kept in
    ``real_dirs``) and its name, where that name is no link, as ``realpath`` makes it component by component, with
    one ``lstat`` of the file in place of one of each folder above it (lintspeed23: a searched folder's files share
    their folders; ``realpath`` of each was about 0.7 % of a lint of 400 generated files)."""
    folder, name = os.path.split(full)
    if not name or name in (".", "..") or os.path.islink(full):
        return os.path.realpath(full)
    real_dir = real_dirs.get(folder)
    if real_dir is None:
        real_dir = real_dirs[folder] = os.path.realpath(folder)
    return os.path.join(real_dir, name)


def _folder_of(full: str, tops: list[tuple[str, str]], real_dirs: dict[str, str]) -> str | None:
    """The first of the folders ``tops`` (each with its real path, longest first) that holds ``full``, links followed:
    :func:`~..model.files.inside` with each folder's real path made once per run, not once per file and folder
    (``full``'s: :func:`real_path`)."""
    real = real_path(full, real_dirs)
    for folder, top in tops:
        try:
            if os.path.commonpath([real, top]) == top:
                return folder
        except ValueError:  # different drives
            continue
    return None


def assign_units(inv: Inventory, paths: Iterable[str]) -> None:
    """Set ``inv.units`` for the files that hold a pool, a workload, a Service, an Ingress, a network policy, a
    router or a LimitRange, by the rules above, from the paths the command line named."""
    paths = list(paths)
    folders = sorted({os.path.abspath(p) for p in paths if p != "-" and os.path.isdir(p)}, key=len, reverse=True)
    tops: list[tuple[str, str]] | None = None  # each folder and its real path, made when a file first needs them
    named = {os.path.abspath(p) for p in paths if p != "-" and not os.path.isdir(p)}
    stacks = set(inv.stacks)
    seen: dict[str, str | None] = {}
    real_dirs: dict[str, str] = {}
    units: dict[str, str] = {}
    files = {p.location.file for p in inv.pools} | {g.location.file for g in inv.groups}
    files |= {s.location.file for s in inv.services} | {i.location.file for i in inv.ingresses}
    files |= {n.location.file for n in inv.network_policies} | {r.location.file for r in inv.routers}
    files |= {p.location.file for p in inv.pod_ports} | {lr.location.file for lr in inv.limit_ranges}
    for f in files:
        if not f:
            continue
        if f in stacks:
            units[f] = f"stack:{f}"
            continue
        full = os.path.abspath(f)
        if f == "<stdin>" or full in named:
            units[f] = EVERY_UNIT
            continue
        root = _git_root(os.path.dirname(full), seen)
        if root is not None:  # a repository's file: the folders named do not decide (each was looked for, 2 realpaths)
            unit = f"git:{root}"
        else:
            if tops is None:
                tops = [(d, os.path.realpath(d)) for d in folders]
            folder = _folder_of(full, tops, real_dirs)
            unit = f"folder:{folder}" if folder is not None else EVERY_UNIT
        via = f.rfind(" (via ")
        cluster = inv.clusters.get(f[via:]) if via >= 0 and unit != EVERY_UNIT else None
        units[f] = f"{unit}{CLUSTER_MARK}{cluster}" if cluster else unit  # (EVERY_UNIT: rendered from a file named)
    inv.units = units

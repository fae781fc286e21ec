"""Kustomizations and Helm charts met while searching a folder, built as a user deploys them (newuser14).

``shardwise lint deploy/`` read an overlay met while searching raw: its bases' objects as they are written, with
the overlay's replicas, images and namespace laid over them (:mod:`.overlays`), and an object whose args, GPUs or
pool the overlay patches was an advisory SW005 only. A hard gate on ``lint .`` passed a prod overlay that shards a
model one GPU holds over two (newuser13). Now, as the GitOps renderer builds what an Argo CD Application or a Flux
object names (:mod:`.gitops`), the ``lint`` command builds what a user deploys from the folders it searches:

- each kustomization met while searching that no other one met lists among its ``resources`` or ``bases`` (the
  leaves: ``overlays/dev``, ``overlays/prod``; a base is built through each overlay that lists it, never alone),
  with ``kustomize build`` (or ``kubectl kustomize``), as a kustomization named on the command line is; a
  ``kind: Component`` is no leaf (kustomize builds it only inside a kustomization that lists it);
- each Helm chart met while searching (the outermost, for a subchart), with ``helm template`` and the chart's own
  default values (its ``values.yaml``): helm reads no other values file by itself, and which of ``values-prod.yaml``
  or ``values-dev.yaml`` a release uses the repository does not say; such a file that configures vLLM stays an SW005
  record that names the command that lints it with the chart.

What a build emits is judged as the named folder's is (findings point at ``DIR/kustomization.yaml (kustomize
build)`` or the chart's template lines), and the files it reads (its bases' manifests, its patches, the kustomizations
on the way, the chart's templates and values) are not read one by one as well: each object is judged once per leaf
that deploys it (:func:`~shardwise.rules.adapters._not_searched_where_rendered`). A base that a leaf which was not
built also reaches is still read raw for that leaf.

What is not built stays visible, never a silent pass: without the tool, on a build error (an input the build
refuses, a remote base without ``--fetch-remote-bases``), past :data:`MAX_FOUND_BUILDS`, or with building switched
off (``--no-build-found``, ``build_found = false``), the folder is read as before and its SW005 records (an object
whose run an overlay patches, a chart that runs vLLM) say why it was not built (:attr:`.model.LaunchIssue.not_built`).
``require_build = true`` (or ``--require-build``) makes those records block.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..model import RELEASE_NAMESPACE, Inventory, LaunchIssue, Location, progress
from ..model.errors import InputError
from .charts import release_name
from .overlays import UNREADABLE, _doc, _reached, not_built_clause
from .renderkind import KUSTOMIZATION_FILES
from .select import Selection, unrendered_folders

if TYPE_CHECKING:
    from .charts import Renderer

#: The most kustomizations and charts met while searching that one run builds: each is a helm or kustomize process
#: (about 0.05 s of CPU each; a monorepo of a thousand overlays would otherwise hold the run for minutes). Past it,
#: the rest are read as before and their SW005 records say why.
MAX_FOUND_BUILDS = 100
#: Why nothing met while searching was built, where the user switched building off.
SWITCHED_OFF = ("building what a search meets is switched off: --no-build-found, or build_found = false in the "
                "configuration")


@dataclass
class FoundBuilds:
    """What :func:`build_found` built, and why the rest was not built."""

    #: (folder as met, its inventory), in the order met: kustomizations first, then charts
    built: list[tuple[str, Inventory]] = field(default_factory=list)
    #: the folder (absolute) of each kustomization leaf and chart met that was not built -> why, in words
    not_built: dict[str, str] = field(default_factory=dict)
    #: the folder (absolute) of each leaf and chart met -> the folder as met (relative where the search was)
    met: dict[str, str] = field(default_factory=dict)


def switched_off(sel: Selection) -> FoundBuilds:
    """What :func:`build_found` says of ``sel`` where building is switched off: every leaf and chart, not built."""
    out = FoundBuilds()
    for folder in [*found_leaves(sel), *found_charts(sel)]:
        out.not_built[os.path.abspath(folder)] = SWITCHED_OFF
        out.met[os.path.abspath(folder)] = folder
    return out


def unbuilt_records(inv: Inventory, found: FoundBuilds, every: bool) -> list[LaunchIssue]:
    """An SW005 record of each leaf or chart that was not built and that no other record names (an object its overlay
    patches, a chart that runs vLLM): its bases were read raw, or not at all (a remote base, a base outside the folder
    searched). Where the tool ran and the build failed or was refused, or past :data:`MAX_FOUND_BUILDS`, always
    (advisory): the run does not pass over it in silence; with ``every`` (``require_build``: the records block) also
    where the tool is not on PATH or building is switched off, so that a gate that asks every one be built fails."""
    said = {li.not_built_folder for li in inv.launch_issues if li.not_built}
    out: list[LaunchIssue] = []
    for full, why in found.not_built.items():
        if full in said or not every and (why == SWITCHED_OFF or why.endswith(" on PATH")):
            continue
        folder = found.met.get(full, full)
        chart = os.path.isfile(os.path.join(folder, "Chart.yaml"))
        name = next((n for n in ("Chart.yaml", *KUSTOMIZATION_FILES) if os.path.lexists(os.path.join(folder, n))),
                    "kustomization.yaml")
        how = f"shardwise lint {folder}" if folder != "." else (
            "helm template . | shardwise lint -" if chart else "kustomize build . | shardwise lint -")
        out.append(LaunchIssue(
            f"{'Helm chart' if chart else 'Kustomization'} {folder}", "",
            f"what it deploys was not judged: this {'chart' if chart else 'kustomization'}, met while searching a "
            f"folder, {not_built_clause(why)}; to lint what it deploys: {how}",
            Location(name if folder == "." else os.path.join(folder, name), 1), mentioned=True, source_unread=True,
            not_built=True, not_built_folder=full))
    return out


def _kind_of(path: str) -> str:
    """The ``kind:`` a kustomization file declares at its top level (``Kustomization`` when it says none)."""
    doc = _doc(path)
    kind = doc.get("kind") if isinstance(doc, dict) else None
    return kind if isinstance(kind, str) else "Kustomization"


def found_leaves(sel: Selection) -> list[str]:
    """The folders of the kustomizations among ``sel.skipped`` (met while searching) that no other of them lists
    (:func:`.overlays._reached`, through ``resources`` and ``bases``), in the order met; a ``kind: Component`` is
    none. A file named ``kustomization.yaml`` only (a flattened ``a__b__kustomization.yaml`` names no folder to
    build)."""
    files = [f for f, why in sel.skipped if why == "Kustomize file" and os.path.basename(f) in KUSTOMIZATION_FILES]
    if not files:
        return []
    full = {os.path.abspath(f): f for f in files}
    listed: set[str] = set()
    for k in full:
        for through in _reached(k).values():
            listed.update(through[1:])
    out: list[str] = []
    seen: set[str] = set()
    for k, f in full.items():
        folder = os.path.dirname(f) or "."
        if k in listed or folder in seen or _kind_of(k) == "Component":
            continue
        seen.add(folder)
        out.append(folder)
    return out


def found_charts(sel: Selection) -> list[str]:
    """The folders of the Helm charts whose files ``sel.skipped`` holds unrendered (met while searching), each once,
    the outermost of a chart and its subcharts."""
    return [d for d, what in unrendered_folders(sel.skipped) if what == "Helm chart"]


def _short(message: str) -> str:
    """An error's message as one clause: the first 300 characters of its first line."""
    line = message.strip().splitlines()[0] if message.strip() else "it failed"
    return line if len(line) <= 300 else line[:297] + "..."


def build_found(sel: Selection, renderer: Renderer, which: Callable[[str], str | None] | None = None) -> FoundBuilds:
    """Build each kustomization leaf and chart ``sel`` met while searching (:func:`found_leaves`,
    :func:`found_charts`), at most :data:`MAX_FOUND_BUILDS`; a folder whose build fails is not built, and why."""
    which = which or renderer.which
    out = FoundBuilds()
    leaves = found_leaves(sel)
    charts = found_charts(sel)
    if not leaves and not charts:
        return out
    kustomize = which("kustomize") is not None or which("kubectl") is not None
    helm = which("helm") is not None
    builds = 0
    for folder, kind in [*((d, "kustomize") for d in leaves), *((d, "helm") for d in charts)]:
        full = os.path.abspath(folder)
        out.met[full] = folder
        if kind == "kustomize" and not kustomize:
            out.not_built[full] = "neither kustomize nor kubectl is on PATH"
            continue
        if kind == "helm" and not helm:
            out.not_built[full] = "helm is not on PATH"
            continue
        if builds >= MAX_FOUND_BUILDS:
            out.not_built[full] = (f"shardwise builds at most {MAX_FOUND_BUILDS} kustomizations and charts met while "
                                   "searching in one run")
            continue
        builds += 1
        progress.step(f"building {folder} with {'kustomize' if kind == 'kustomize' else 'helm'} (met while searching)")
        if kind == "kustomize":
            part = renderer.render(folder)
            # an error of the build's output is of an inventory read from it (at `DIR/kustomization.yaml (kustomize
            # build)`, or at the repository line that wrote it); one of the build is alone in one of the folder's own
            output = bool(part.errors) and part.sources != [folder]
        else:
            try:
                part = renderer.helm_release(folder, release_name(folder), RELEASE_NAMESPACE)
                output = True  # helm rendered it: what it rendered could not be read
            except InputError as e:
                part = Inventory(sources=[folder])
                part.errors.append(e)
                output = False
        if part.errors:
            first = part.errors[0]
            out.not_built[full] = (
                f"{UNREADABLE}: {_short(first.message)}{f' (at {first.file}:{first.line})' if first.line else ''}"
                if output else f"its build failed: {_short(first.message)}")
            continue
        out.built.append((folder, part))
    return out


def not_built_why(folder: str, why: dict[str, str] | None) -> str | None:
    """Why the kustomization or chart in ``folder`` was not built, where the run said (:attr:`FoundBuilds.not_built`),
    else None."""
    if why is None:
        return None
    return why.get(os.path.abspath(folder))

"""Adapters: every input turned into one :class:`~shardwise.rules.model.Inventory`.

:func:`read_inputs` takes files, directories (recursively) and ``-`` (stdin), leaves out what the
exclusion patterns name and what is not an input (:mod:`.select`), and picks the adapter per file by
its parsed content (:mod:`.kinds`): a Pulumi stack config (``config:`` with
``<project>:environment``), a ``pulumi preview --json`` / ``pulumi stack export`` file, or
Kubernetes manifests. Nothing that cannot be read stops the run: a file, a document of a
multi-document file or an object that is an input error lands in ``Inventory.errors`` with its file
and line, and everything else is still read. :func:`load_inputs` is the strict form (the first
input error is raised). Adapters are imported only when a file needs them, so linting manifests
never imports pydantic.
"""

from __future__ import annotations

import gc
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..model import Inventory, LaunchIssue, Location, progress
from ..model.errors import InputError
from ..model.files import inside, read_file_bytes
from .k8s import resolve_pools
from .k8s.configfile import namespace_of
from .k8s.configjoin import CONFIG_REF, link_config_maps
from .kinds import ANSIBLE, _values_name, ansible_file
from .load import UNPARSED_JSON, Marked, UnparsedJson, adopt, load_file, load_text, marked_texts, run_memo
from .renderkind import KUSTOMIZATION_FILES, has_gitops, render_kind
from .select import (
    CHART_FILE,
    CHART_TEMPLATE,
    HELM_VALUES,
    HELMFILE,
    KUSTOMIZE_NOT_BUILT,
    KUSTOMIZE_REFUSED,
    Excludes,
    Selection,
    select_inputs,
    tidy,
    unrendered_folders,
)
from .yamlsrc import load_documents, split_documents

if TYPE_CHECKING:
    from .charts import Renderer
    from .found import FoundBuilds
    from .jsonsrc import parse_json
    from .namedvalues import Named

__all__ = [
    "PARALLEL_MIN_FILES", "default_jobs", "load_file", "load_inputs", "load_text", "parse_json", "read_inputs",
]

def __getattr__(name: str) -> Any:
    """:func:`parse_json`, from :mod:`.jsonsrc` when first asked for: a run over YAML files never loads it."""
    if name == "parse_json":
        from .jsonsrc import parse_json

        return parse_json
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Below this many files one process reads them all; above it they are split over the CPUs.
PARALLEL_MIN_FILES = 200


def _load_chunk(files: list[str], tell: bool = False) -> Inventory:
    """Read ``files`` here; with ``tell``, say how many are read (:func:`..model.progress.files`)."""
    gc.disable()  # adapters allocate many small objects and free none: the cycle collector only costs
    inv = Inventory()
    for i, f in enumerate(files):
        if tell:
            progress.files(i, len(files))
        inv.extend(load_file(f))
    return inv


def _reread(files: list[str], kept: Callable[[str], bool], pieces: list[tuple[list[str], Inventory]]) -> Inventory:
    """The inventory of the files ``kept`` keeps, in input order, without reading a file again: a batch another
    process read (``pieces``: its files and its inventory, :func:`_load_parallel`) is taken whole where it keeps
    every file, and a file this process read is in the run's memo (:func:`.load.run_memo`). Only a file that another
    process read, in a batch that loses a file, is read a second time."""
    if not pieces:
        return _load_chunk([f for f in files if kept(f)])
    inv = Inventory()
    for batch, piece in pieces:
        keep = [f for f in batch if kept(f)]
        inv.extend(piece if len(keep) == len(batch) else _load_chunk(keep))
    return inv


def _load_parallel(files: list[str], jobs: int, meanwhile: Callable[[Inventory], object] | None = None,
                   pieces: list[tuple[list[str], Inventory]] | None = None) -> Inventory:
    """Read ``files`` in ``jobs`` processes, this one and forked ones (:mod:`..forked`), merged in input order.

    The files are cut into batches of :data:`_BATCH_FILES`, smaller towards the end
    (:func:`~..engine.forked.batches`), and each process takes the next batch when it is done with one
    (:class:`~..engine.forked.Tickets`), so that a process the machine gives less CPU reads less and sends less
    back (its batches are pickled to this process, which is most of what reading in several processes costs),
    rather than holding up the others with a fixed share. A batch whose process failed is read here.

    ``meanwhile`` is called in this process with each batch it read itself, after the batch (the children do not
    call it): work the run needs after the reading, done while the other processes still read and then take fewer
    batches of this one, rather than on this process alone after the last batch (:func:`read_inputs`)."""
    from ..engine.forked import Tickets, batches, map_pieces

    bounds = batches(len(files), jobs, _BATCH_FILES, _LEAST_FILES)
    with Tickets(len(bounds)) as tickets:

        def share(index: int) -> Iterator[tuple[int, tuple[Inventory, Marked | None]]]:
            for k in tickets:  # a child pickles one batch while it reads the next
                start, stop = bounds[k]
                if index == 0:  # the batches before k are taken: about as many files read
                    progress.files(start, len(files))
                piece = _load_chunk(files[start:stop])
                # a child's batch goes with the texts of its files that name a GitOps API group (most have none)
                yield k, (piece, marked_texts(files[start:stop]) if index else None)
                if index == 0 and meanwhile is not None:
                    meanwhile(piece)

        read = {k: got for shares in map_pieces(share, jobs) for k, got in shares}
    inv = Inventory()
    for k, (start, stop) in enumerate(bounds):
        got = read.get(k)
        if got is None:
            piece = _load_chunk(files[start:stop])
        else:
            piece, marked = got
            if marked is not None:
                adopt(files[start:stop], marked)
        inv.extend(piece)
        if pieces is not None:
            pieces.append((files[start:stop], piece))
    return inv


#: Files per batch a reading process takes (:func:`_load_parallel`), and the fewest in the smaller batches at the
#: end (:func:`~..engine.forked.batches`): a process that finishes its last batch waits at most for one small batch
#: of another's (about 15 ms of reading for 25 files, 2-3 ms for 4).
_BATCH_FILES = 25
_LEAST_FILES = 4


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def read_inputs(paths: Iterable[str], jobs: int | None = None, excludes: Excludes | None = None,
                render: Renderer | None = None, gitops_revision: tuple[str, str] | None = None,
                meanwhile: Callable[[Inventory], object] | None = None, build_found: bool | None = None,
                require_build: bool = False) -> Inventory:
    """Read every input into one inventory and match workloads to the pools declared anywhere.

    What could not be read is in ``errors`` (input errors with file and line, in input order), what is
    not an input in ``skipped_files``, and what ``excludes`` left out in ``excluded``. Many files are
    read by ``jobs`` processes (default: the CPUs this process may use), on platforms that can fork;
    the result is the same as reading them one by one. Chart and kustomization directories among
    ``paths`` are rendered by ``render`` (default: helm/kustomize from PATH, no values; :mod:`.charts`).
    ``gitops_revision`` (a branch and who names it) is a revision the checkout also stands for when GitOps objects
    whose source is this checkout are rendered (:func:`.gitops.stands_for`). ``meanwhile``, where the files are read
    by several processes, is called in this one with each batch of files it read (:func:`_load_parallel`); it must
    not change the batch. ``build_found`` (the ``lint`` command's): True builds the kustomization leaves and charts
    met while searching (:mod:`.found`), False says in their SW005 records that building them is switched off; None
    (the default) reads them as before, unbuilt. One whose build failed and that no other SW005 record names is a
    record of its own (:func:`.found.unbuilt_records`); with ``require_build`` so is one not built for want of the
    tool or by the switch, so that the run fails.
    """
    paths = list(paths)
    sel = select_inputs(paths, excludes)
    if sel.renders and (sel.files or sel.skipped):
        _not_searched_where_rendered(sel, paths)
    builds: FoundBuilds | None = None
    # a kustomization's folder or a chart met (not the wide corpus's flattened a__kustomization.yaml): else nothing
    # of the builds is even imported
    if build_found is not None and any(why in (CHART_TEMPLATE, CHART_FILE) or why == "Kustomize file"
                                       and os.path.basename(f) in KUSTOMIZATION_FILES for f, why in sel.skipped):
        builds = _build_found(sel, paths, render, build_found)
    found_built = builds.built if builds is not None else []
    not_built = builds.not_built if builds is not None else None
    files = sel.files
    jobs = default_jobs() if jobs is None else jobs
    with run_memo():  # a file the GitOps plan reads again, or reads without a folder it builds, is read once
        enabled = gc.isenabled()
        gc.disable()
        pieces: list[tuple[list[str], Inventory]] = []
        try:
            if jobs > 1 and len(files) >= PARALLEL_MIN_FILES and "-" not in files and sys.platform == "linux":
                inv = _load_parallel(files, jobs, meanwhile, pieces)
            else:
                inv = _load_chunk(files, tell=True)
        finally:
            if enabled:
                gc.enable()
        gitops = has_gitops(inv.skipped, (li.subject for li in inv.launch_issues if li.mentioned))
        rendered_values: set[str] = set()  # the values files a GitOps render read with its chart
        gitops_built: set[str] = set()
        gitops_named: dict[str, Named] = {}
        if gitops:
            from .charts import Renderer
            from .gitops import built_folders, plan, render_gitops
            from .namedvalues import named_values

            # the values files its objects name, read here from the run's memo (a file is read once a run)
            gitops_named = named_values([], files)[0]

            planned = plan(files, gitops_revision)
            built = built_folders(planned)
            if built:  # a kustomization a GitOps object builds: its files are judged as built, not also one by one,
                from .overlays import reached_files  # nor are its bases' files outside its folder (readers17)

                bases = reached_files(built)

                def kept(f: str) -> bool:
                    return not any(inside(f, d) for d in built) and os.path.abspath(f) not in bases

                inv = _reread(files, kept, pieces)
            through = render_gitops(inv, planned, render or Renderer())
            rendered_values = {os.path.abspath(v) for r in planned for src in r.sources if src.folder in through
                               for v in src.value_files}
            # a chart's files met while searching, skipped as not rendered, were rendered through a GitOps object
            sel.skipped = [(f, why) for f, why in sel.skipped if not any(inside(f, d) for d in through)]
            gitops_built = {os.path.abspath(d) for d in (*built, *through)}
    for folder, part in found_built:  # a folder a GitOps object builds is judged as it builds it, not twice
        if os.path.abspath(folder) not in gitops_built:
            inv.extend(part)
    if not_built and gitops_built:  # nor is it unbuilt where a GitOps object built it
        for d in gitops_built:
            not_built.pop(d, None)
    if sel.renders:
        from .charts import KustomizationRefused, Renderer, render_kind

        renderer = render or Renderer()
        for directory in sel.renders:
            kind = render_kind(directory)
            progress.step(f"rendering {directory} with {kind or 'helm'}")
            rendered = renderer.render(directory)
            if rendered.errors and kind == "kustomize" and isinstance(rendered.errors[0], KustomizationRefused):
                rendered = _kustomization_refused(directory, rendered, excludes)
            elif rendered.errors and kind == "kustomize":
                rendered = _kustomization_read_plainly(directory, rendered, excludes)
            elif rendered.errors and not os.path.isfile(os.path.join(directory, "Chart.yaml")):
                # fuzz13: a Chart.yaml that is no file (a FIFO, a directory, a broken link) hides no manifest beside it
                rendered = _kustomization_read_plainly(directory, rendered, excludes, "templates not rendered")
            inv.extend(rendered)
    if inv.template_vars or inv.envsubst_files:  # a ${VAR} only envsubst fills (corpus23), or of a file a deploy
        # script pipes through envsubst (corpus25): no crash
        from .k8s.workloads import drop_filled_placeholders

        drop_filled_placeholders(inv)
    found = [*(excludes.errors if excludes else []), *sel.errors, *inv.errors]
    if any(isinstance(e, UnparsedJson) for e in inv.errors):
        found = _searched_json_skipped(inv, found, paths)
    if found and any(why in ("Kustomize file", KUSTOMIZE_NOT_BUILT) for _, why in [*sel.skipped, *inv.skipped_files]):
        found = _generator_data_skipped(inv, found, paths, [*sel.skipped, *inv.skipped_files])
    if found and any(why in _ANSIBLE_SKIPS for _, why in [*sel.skipped, *inv.skipped_files]):
        found = _ansible_template_skipped(inv, found, paths, [*sel.skipped, *inv.skipped_files])
    if any(e.message.startswith("cannot parse YAML") for e in found):
        found = _helm_template_skipped(inv, found, paths)
    inv.errors = sorted(found, key=lambda e: sel.place(e.file))  # stable: lines stay in order
    inv.skipped_files = sorted([*sel.skipped, *inv.skipped_files], key=lambda s: sel.place(s[0]))
    inv.excluded.extend(sel.excluded)
    named: dict[str, Named] = {}
    helmfiles = [f for f, why in inv.skipped_files if why == HELMFILE]
    if helmfiles or gitops_named:  # a file a helmfile release or a GitOps object names as its values is Helm values
        from .namedvalues import named_values

        named, pending = named_values(helmfiles, [])
        for values_file, why_named in gitops_named.items():  # a helmfile's word first, as one pass gave it
            named.setdefault(values_file, why_named)
        inv.skipped_files = [(f, HELM_VALUES if os.path.abspath(f) in named and _values_by_content(why) else why)
                             for f, why in inv.skipped_files]
        inv.launch_issues.extend(li for li, may_be, says in pending if says or any(_mention(f) for f in may_be))
    unread = _unrendered_error(inv.skipped_files, not_built) if not inv.sources else None
    if unread is not None:
        inv.errors.append(unread)
    elif any(why in _CHART_SKIPS for _, why in inv.skipped_files):
        inv.launch_issues.extend(_unrendered_charts_serving_vllm(inv.skipped_files, not_built))
        if not gitops:  # an Argo CD Application's valueFiles may name a values file outside its chart's folder
            inv.launch_issues.extend(_values_serving_vllm(inv.skipped_files, named))
        elif named:  # only those a GitOps object or helmfile names, and no render read with its chart
            inv.launch_issues.extend(_values_serving_vllm(
                [(f, why) for f, why in inv.skipped_files if os.path.abspath(f) in named
                 and os.path.abspath(f) not in rendered_values], named))
    overlays = [f for f, why in inv.skipped_files if why in ("Kustomize file", KUSTOMIZE_NOT_BUILT)]
    if overlays and any(r.kind == CONFIG_REF and not r.done for r in inv.cross_refs):
        from .generated import generated_config_maps

        readers: dict[str, set[str]] = {}
        for r in inv.cross_refs:
            if r.kind == CONFIG_REF and not r.done and r.location.file:
                readers.setdefault(os.path.abspath(r.location.file), set()).add(namespace_of(r.obj))
        made = generated_config_maps(overlays, readers)  # a kustomization not built: the ConfigMaps it generates
        if made:
            inv.config_maps.extend(made)
            link_config_maps(inv)  # before the overlays: the workloads read again take their namespace and counts
    if overlays and (inv.groups or (inv.services and inv.pod_ports)):
        # with no vLLM workload too, where a Service may select other pods: the namespace an unbuilt kustomization
        # gives its Deployment is where the Service's named targetPort finds its port (corpus34: a homelab's
        # MariaDB Service in `databases`, its Deployment naming none, was SW301 "cannot decide", blocking)
        from .overlays import apply_overlays

        apply_overlays(inv, overlays, [f for f, why in inv.skipped_files if why == "Kustomize file"], not_built)
        # a kustomization not built: its replicas and images over its bases' objects; one met while searching that
        # patches what it does not apply says so (SW005)
    if builds is not None and builds.not_built:
        from .found import unbuilt_records

        inv.launch_issues.extend(unbuilt_records(inv, builds, require_build))
    if inv.groups and (inv.pools or inv.services or inv.ingresses or inv.network_policies or inv.routers
                       or inv.limit_ranges):
        from .units import assign_units

        assign_units(inv, paths)  # a pool, a Service, a policy judge only the workloads of their own deployable unit
    resolve_pools(inv)
    return inv


def _build_found(sel: Selection, paths: list[str], render: Renderer | None, enabled: bool) -> FoundBuilds:
    """Build the kustomization leaves and charts ``sel`` met while searching (:func:`.found.build_found`), and leave
    out of ``sel`` the files their builds read, as for a folder named (:func:`_not_searched_where_rendered`): each
    object is judged as its leaf deploys it, once. A chart's values file other than its ``values.yaml`` stays skipped
    (helm did not read it: what it configures was not judged, and SW005 says so where it configures vLLM). Returns
    what was built and why each other leaf or chart was not."""
    from .found import build_found, switched_off

    if not enabled:
        return switched_off(sel)
    from .charts import Renderer

    got = build_found(sel, render or Renderer())
    if got.built:
        charts = [d for d, _ in got.built if render_kind(d) == "helm"]
        values = [(f, why) for f, why in sel.skipped if why == HELM_VALUES and os.path.basename(f) != "values.yaml"
                  and any(inside(f, d) for d in charts)]
        named = sel.renders
        sel.renders = [d for d, _ in got.built]
        try:
            _not_searched_where_rendered(sel, paths)
        finally:
            sel.renders = named
        left = set(sel.skipped)
        sel.skipped.extend(v for v in values if v not in left)
        for folder, part in got.built:
            if folder in charts and not part.groups and not any(li.mentioned for li in part.launch_issues):
                quiet = _chart_serves_off_defaults(folder)
                if quiet is not None:
                    part.launch_issues.append(quiet)
    return got


def _chart_serves_off_defaults(chart: str) -> LaunchIssue | None:
    """SW005's record of a Helm chart met while searching and built with its own ``values.yaml`` (:mod:`.found`)
    that deployed no vLLM workload, where one of its templates, or that values.yaml, says it runs vLLM
    (:data:`_CHART_SERVES`, read as :func:`_unrendered_charts_serving_vllm` reads an unbuilt chart): the values it is
    deployed with (``values-prod.yaml``, ``--set``) switch the server on, and helm read none of them, so what it
    deploys was not judged (review35: a chart whose ``values.yaml`` says ``enabled: false`` and whose
    ``values-prod.yaml`` serves a model at TP2 on one GPU passed in silence, where unbuilt its template was an SW005
    record). None where neither mentions a vLLM server. The record points at the first mention and names the
    chart's other values files in the command that lints it."""
    top = os.path.join(chart, "templates")
    files: list[str] = []
    for folder, dirs, names in os.walk(top):
        dirs.sort()
        files.extend(os.path.join(folder, n) for n in sorted(names))
        if len(files) >= _CHART_FILES:
            break
    files = [*files[:_CHART_FILES], os.path.join(chart, "values.yaml")]  # the image is often a value: templates first
    for f in files:
        hit = _mention(f)
        if hit is None:
            continue
        line, words = hit
        try:
            others = sorted(n for n in os.listdir(chart) if _values_name(n) and n != "values.yaml"
                            and os.path.isfile(os.path.join(chart, n)))
        except OSError:
            others = []
        how = (" or ".join(f"shardwise lint {chart} --values {os.path.join(chart, n)}" for n in others[:3])
               if others else f"shardwise lint {chart} --values FILE (the values you deploy with)")
        return LaunchIssue(
            f"Helm chart {_chart_name(chart)}", "",
            f"its {os.path.relpath(f, chart)} runs vLLM (`{words}` at line {line}), but this chart, met while "
            "searching a folder, was built with its values.yaml alone and deployed no vLLM workload: the values "
            f"that switch the server on were not judged; to lint them: {how}",
            Location(f, line), mentioned=True)
    return None


#: What of a chart's folder ``helm template`` reads: its templates, subcharts and CRDs, its metadata and values. Any
#: other file there (``examples/``, ``docs/``, a raw manifest beside the chart) is none of the chart's.
_CHART_PARTS = frozenset({"templates", "charts", "crds"})
#: A template's read of a file of its chart (``.Files.Get "manifests/x.yaml"``, ``.Files.Glob "files/*"``): the first
#: path component of the file named.
_FILES_READ = re.compile(r"\.Files\.\w+\s+\(?\s*\"(?:\./)?([^\"/*?]+)")
_CHART_OWN_FILES = frozenset({"Chart.yaml", "Chart.lock", "requirements.yaml", "requirements.lock",
                              "values.schema.json", ".helmignore"})


def _rendered_parts(sel: Selection, paths: list[str]) -> Callable[[str], bool]:
    """Whether a file inside a chart or kustomization named among ``paths`` is one its render reads: a chart's
    :data:`_CHART_PARTS` and :data:`_CHART_OWN_FILES`, its values files and those its templates read
    (``.Files.Get``); a kustomization's resources (its bases, and
    the kustomizations it reaches them through: :func:`.overlays.reached_files`), its own kustomization, and a file
    one of those kustomizations names (a patch, a component, a generator's file). Any other
    file there is none of the render's: the search reads it as it would without the folder named (review28: a
    Deployment beside an overlay's kustomization that lists it nowhere, a chart's ``examples/`` manifest, were read
    by neither the render nor the search of ``lint . overlays/prod charts/vllm``, where ``lint .`` reads them)."""
    from .overlays import reached_files

    kustomize = [d for d in sel.renders if render_kind(d) == "kustomize"]
    reached = reached_files(kustomize, kustomizations=True)
    charts = [os.path.abspath(d) for d in sel.renders if render_kind(d) == "helm"]
    folders = [os.path.abspath(d) for d in kustomize]
    named_by: dict[str, str] = {}  # a kustomization in a named folder -> its text

    def kustomization_text(k: str) -> str:
        if k not in named_by:
            try:
                named_by[k] = read_file_bytes(k, k).decode("utf-8", "replace")
            except (InputError, OSError):
                named_by[k] = ""
        return named_by[k]

    # the kustomizations a build of the named folders applies: their own, and those their bases are reached through
    kustomizations = {k for k in reached if os.path.basename(k) in KUSTOMIZATION_FILES}
    kustomizations.update(os.path.join(d, n) for d in folders for n in KUSTOMIZATION_FILES
                          if os.path.lexists(os.path.join(d, n)))

    files_of: dict[str, set[str]] = {}

    def files_read(top: str) -> set[str]:
        """The first path components a template of the chart ``top`` names where it reads a file of the chart
        (``.Files.Get "manifests/x.yaml"``, ``.Files.Glob "dashboards/*"``): those files are rendered too."""
        if top not in files_of:
            found: set[str] = set()
            for folder, _, names in os.walk(os.path.join(top, "templates")):
                for n in names[:_CHART_FILES]:
                    try:
                        text = read_file_bytes(os.path.join(folder, n), n).decode("utf-8", "replace")
                    except (InputError, OSError):
                        continue
                    found.update(m.group(1) for m in _FILES_READ.finditer(text))
            files_of[top] = found
        return files_of[top]

    def rendered(full: str) -> bool:
        name = os.path.basename(full)
        for top in charts:
            if inside(full, top):
                first = os.path.relpath(full, top).split(os.sep, 1)[0]
                return (first in _CHART_PARTS or name in _CHART_OWN_FILES or _values_name(name)
                        or first in files_read(top))
        for top in folders:
            if inside(full, top):
                if full in reached or full in kustomizations:
                    return True
                for k in kustomizations:
                    here = os.path.dirname(k)
                    if inside(k, top) and inside(full, here):
                        rel = re.escape(os.path.relpath(full, here))
                        if re.search(rf"(?<![\w./-])(?:\./)?{rel}(?![\w.-])", kustomization_text(k)):
                            return True
                return False
        return False

    return rendered


def _not_searched_where_rendered(sel: Selection, paths: list[str]) -> None:
    """Leave out of ``sel``'s files, and out of its skipped files, those a chart or kustomization named among
    ``paths`` renders, where another path's search also met them: the files of the named folder its render reads
    (:func:`_rendered_parts`), and those its kustomization reaches (its bases and their kustomizations,
    :func:`.overlays.reached_files`). They are judged as rendered, as for a kustomization a GitOps object builds
    (readers17). A file named on its own is kept, and so is a base that an overlay met while searching (not named)
    reaches too: it is read for that overlay.

    newuser11: ``shardwise lint . charts/vllm deploy/overlays/prod``, as docs/ci.md says to name a chart or an
    overlay beside the searched repository, also read the chart's and the overlay's files as met while searching:
    SW005 said the named chart was "not rendered ... to lint them: shardwise lint charts/vllm", the overlay's
    patches "not applied ... shardwise lint deploy/overlays/prod", and the base's objects were reported again as
    written or through the overlay, beside the built ones."""
    from .overlays import reached_files

    named = {os.path.abspath(tidy(p)) for p in paths if p != "-"}
    reached = reached_files([d for d in sel.renders if render_kind(d) == "kustomize"], kustomizations=True)
    part = _rendered_parts(sel, paths)

    def rendered(f: str, keep: set[str] = set()) -> bool:  # noqa: B006 - read, never written
        if f == "-":
            return False
        full = os.path.abspath(f)
        return full not in named and full not in keep and (full in reached or part(full))

    # a base that an overlay met while searching also reaches (dev, beside a named prod) is still read for it
    searched = [os.path.dirname(f) or "." for f, why in sel.skipped if why == "Kustomize file" and not rendered(f)]
    keep = reached_files(searched, kustomizations=True) if searched else set()
    sel.files = [f for f in sel.files if not rendered(f, keep)]
    sel.skipped = [(f, why) for f, why in sel.skipped if not rendered(f, keep)]


def _searched_json_skipped(inv: Inventory, found: list[InputError], paths: list[str]) -> list[InputError]:
    """``found`` without the :class:`.load.UnparsedJson` errors of files met while searching a folder: those files
    are skipped (``inv.skipped_files``, no longer among ``inv.sources``) as JSON that is not an input. A file named on
    the command line stays an input error: the user asked for it (docs/cli.md, "Files that are not inputs")."""
    named = {tidy(p) for p in paths}
    moved = {e.file for e in found if isinstance(e, UnparsedJson) and e.file is not None and e.file not in named}
    if not moved:
        return found
    reasons = {e.file: e.reason or UNPARSED_JSON for e in found if isinstance(e, UnparsedJson) and e.file in moved}
    inv.skipped_files.extend((f, reasons[f]) for f in sorted(moved))
    inv.sources = [f for f in inv.sources if f not in moved]
    return [e for e in found if not (isinstance(e, UnparsedJson) and e.file in moved)]


#: The skip reason of a file a kustomization met while searching hands a ConfigMap or Secret generator as data.
GENERATOR_DATA = "data a kustomization's configMapGenerator or secretGenerator reads (a file's text, not a manifest)"


def _generator_data_skipped(inv: Inventory, found: list[InputError], paths: list[str],
                            skipped: list[tuple[str, str]]) -> list[InputError]:
    """``found`` without the YAML errors of files that a kustomization met while searching names in a
    ``configMapGenerator`` or ``secretGenerator``'s ``files`` (``[KEY=]PATH``): kustomize puts such a file's text in
    the ConfigMap or Secret as it is and never parses it (sigs.k8s.io/kustomize api/kv: ``KvLoader`` reads each
    file source as bytes), so a YAML error in it (homepage's ``{{HOMEPAGE_VAR_…}}`` placeholders, an application's own
    tags) is no broken manifest (corpus29). Only a file of one document, every error of which is a YAML one, is moved
    (skipped, :data:`GENERATOR_DATA`); a file named on the command line stays an error."""
    from .charts import _file_entries

    data: set[str] = set()
    for kfile, why in skipped:
        if why not in ("Kustomize file", KUSTOMIZE_NOT_BUILT):
            continue
        try:
            text = read_file_bytes(kfile).decode("utf-8")
        except (InputError, OSError, UnicodeDecodeError):
            continue
        for _, doc in load_documents(text, kfile):
            if isinstance(doc, dict):
                base = os.path.dirname(kfile)
                data.update(os.path.normpath(os.path.join(base, f)) for key, f in _file_entries(doc)
                            if key.endswith("Generator files") and "://" not in f)
    if not data:
        return found
    named = {tidy(p) for p in paths}
    by_file: dict[str, list[InputError]] = {}
    for e in found:
        if e.file is not None:
            by_file.setdefault(e.file, []).append(e)
    moved = set()
    for f, errors in by_file.items():
        if f in named or os.path.normpath(f) not in data:
            continue
        if not all(e.message.startswith("cannot parse YAML") for e in errors):
            continue
        try:
            parts = split_documents(read_file_bytes(f).decode("utf-8"))
        except (InputError, OSError, UnicodeDecodeError):
            continue
        if sum(any(line.strip() not in ("", "---", "...") and not line.lstrip().startswith("#")
                   for line in part.splitlines()) for _, part in parts) > 1:
            continue  # another document of the file may have been read (a comment before `---` is none)
        moved.add(f)
    if not moved:
        return found
    inv.skipped_files.extend((f, GENERATOR_DATA) for f in sorted(moved))
    inv.sources = [f for f in inv.sources if f not in moved]
    return [e for e in found if e.file not in moved]


#: The skip reason of a YAML file an Ansible task met while searching renders with its ``template`` module.
ANSIBLE_TEMPLATE = ("Ansible template (an Ansible task of the inputs renders it with its template module, which fills "
                    "its {{ … }} first: lint what Ansible renders)")
#: The same, for a template that mentions vLLM: said, so its servers do not pass without a word.
ANSIBLE_TEMPLATE_VLLM = (ANSIBLE_TEMPLATE[:-1].replace("{", "{{").replace("}", "}}")
                         + "; it mentions vLLM (`{word}` at line {line}), not linted)")
#: The keys of Ansible's template module in a task (ansible-core's builtin, and the legacy name it resolves to).
_TEMPLATE_MODULES = ("template", "ansible.builtin.template", "ansible.legacy.template")
#: The skip reasons a playbook or a role's tasks file gets when met while searching.
_ANSIBLE_SKIPS = ("YAML that is not a Kubernetes object", ANSIBLE)


def _template_sources(value: Any) -> Iterator[str]:
    """The ``src`` of each template task in ``value`` (a playbook's plays, their tasks, blocks and handlers, or a
    role's list of tasks): ``template: {src: …}`` or the short form ``template: src=… dest=…``."""
    if isinstance(value, list):
        for item in value:
            yield from _template_sources(item)
    elif isinstance(value, dict):
        for key, arg in value.items():
            if key in _TEMPLATE_MODULES:
                if isinstance(arg, dict) and isinstance(arg.get("src"), str):
                    yield arg["src"]
                elif isinstance(arg, str):
                    yield from (w[4:] for w in arg.split() if w.startswith("src="))
            elif isinstance(arg, list):  # tasks, pre_tasks, post_tasks, handlers, block, rescue, always
                yield from _template_sources(arg)


def _files_read(inv: Inventory) -> set[str]:
    """The files an object of the inventory was read from (a file skipped as a template must have given none)."""
    return {obj.location.file for objs in (inv.groups, inv.services, inv.ingresses, inv.routers, inv.network_policies,
                                           inv.autoscalers, inv.config_maps, inv.pod_ports, inv.limit_ranges,
                                           inv.launch_issues)
            for obj in objs if obj.location.file is not None}


def _ansible_template_skipped(inv: Inventory, found: list[InputError], paths: list[str],
                              skipped: list[tuple[str, str]]) -> list[InputError]:
    """``found`` without the YAML errors of files that an Ansible playbook or role's tasks met while searching renders
    with its ``template`` module: Ansible fills the file's Jinja ``{{ … }}`` before anything reads it as YAML, so an
    unquoted placeholder (``controlPlaneEndpoint: {{cp_ip}}:6443``) is no broken manifest (corpus35: a kubeadm
    configuration a playbook templates to ``/tmp/k8s/create.yml`` made a repository's run exit 2). A relative ``src``
    is found as Ansible finds it: in the role's or the task file's folder, or its ``templates/`` folder
    (docs.ansible.com, playbook_guide/playbook_pathing.html, "Resolving local relative paths"). Only a file all
    whose errors are YAML ones and of which nothing was read is moved (skipped, :data:`ANSIBLE_TEMPLATE`); a file
    named on the command line stays an error, as a Terraform template does."""
    named = {tidy(p) for p in paths}
    by_file: dict[str, list[InputError]] = {}
    for e in found:
        if e.file is not None and e.file not in named:
            by_file.setdefault(e.file, []).append(e)
    broken = {os.path.normpath(os.path.abspath(f)): f for f, errors in by_file.items()
              if all(e.message.startswith("cannot parse YAML") for e in errors)}
    if not broken:
        return found
    read = _files_read(inv)
    folders = {os.path.dirname(p) for p in broken} | {os.path.dirname(os.path.dirname(p)) for p in broken}
    moved: set[str] = set()
    for task_file, why in skipped:
        here = os.path.dirname(os.path.abspath(task_file))
        if why not in _ANSIBLE_SKIPS or not task_file.endswith((".yml", ".yaml")) or not (
                here in folders or os.path.dirname(here) in folders):
            continue
        try:
            docs = load_documents(read_file_bytes(task_file, task_file).decode("utf-8"), task_file)
        except (InputError, OSError, UnicodeDecodeError):
            continue
        if not ansible_file(task_file, docs):
            continue
        for _, doc in docs:
            for src in _template_sources(doc):
                for base in (here, os.path.dirname(here)):
                    for where in (os.path.join(base, "templates", src), os.path.join(base, src)):
                        f = broken.get(os.path.normpath(where))
                        if f is not None and f not in read:
                            moved.add(f)
    if not moved:
        return found
    inv.skipped_files.extend((f, _ansible_reason(f)) for f in sorted(moved))
    inv.sources = [f for f in inv.sources if f not in moved]
    return [e for e in found if e.file not in moved]


def _ansible_reason(file: str) -> str:
    """:data:`ANSIBLE_TEMPLATE_VLLM` with the first line that mentions vLLM outside a comment, else
    :data:`ANSIBLE_TEMPLATE`."""
    return _template_reason(file, ANSIBLE_TEMPLATE, ANSIBLE_TEMPLATE_VLLM)


def _template_reason(file: str, plain: str, with_vllm: str) -> str:
    """``with_vllm`` filled with the first line of ``file`` that mentions vLLM outside a comment, else ``plain``."""
    try:
        text = read_file_bytes(file, file).decode("utf-8", "replace")
    except (InputError, OSError):
        return plain
    for n, line in enumerate(text.splitlines(), 1):
        if not line.lstrip().startswith("#") and re.search(r"vllm", line, re.I):
            word = line.strip()
            return with_vllm.format(word=word if len(word) <= 80 else word[:77] + "...", line=n)
    return plain


#: The skip reason of a YAML file met while searching whose Go template actions read Helm's built-in objects, in no
#: chart (no Chart.yaml in a folder above it).
HELM_TEMPLATE = ("Helm template outside a chart (its {{ … }} read Helm's .Values, .Release or include, and no "
                 "Chart.yaml is above it: a script or tool copies it into the chart it renders; lint that chart)")
#: The same, for a template that mentions vLLM: said, so its servers do not pass without a word.
HELM_TEMPLATE_VLLM = (HELM_TEMPLATE[:-1].replace("{", "{{").replace("}", "}}")
                      + "; it mentions vLLM (`{word}` at line {line}), not linted)")
#: A Go template action that reads one of Helm's built-in objects or calls its ``include``: written for Helm
#: (helm.sh/docs/chart_template_guide/builtin_objects/), never an envsubst, Jinja or Ansible placeholder. Go's own
#: ``{{ template "x" . }}`` is not Helm's alone (an operator's text/template: corpus39, trustyai's gorch templates).
_HELM_ACTION = re.compile(r"\{\{-?[^}]*?(?:\$?\.(?:Values|Release|Chart|Capabilities|Files)\.|\binclude\s+\")")


def _helm_template_skipped(inv: Inventory, found: list[InputError], paths: list[str]) -> list[InputError]:
    """``found`` without the YAML errors of files met while searching that are Helm templates in no chart: a folder
    of a chart's templates kept apart from its Chart.yaml, which a script copies into the chart it packages
    (corpus39: a repository that repackages upstream charts keeps ``charts/NAME/parent/templates/*.yaml``, with
    ``{{ .Release.Namespace }}`` and ``{{- include "x.labels" . }}``, beside a script that assembles the chart; 35
    input errors made its run exit 2). Such a file is no broken manifest: Helm renders it, once it is in a chart.
    Only a file not named on the command line, all whose errors are YAML ones, of which nothing was read, whose
    text reads Helm's built-in objects (:data:`_HELM_ACTION`), and with no ``Chart.yaml`` in a folder above it, is
    moved (skipped, :data:`HELM_TEMPLATE`; a chart's own ``templates/`` are skipped by place already)."""
    named = {tidy(p) for p in paths}
    by_file: dict[str, list[InputError]] = {}
    for e in found:
        if e.file is not None and e.file not in named:
            by_file.setdefault(e.file, []).append(e)
    broken = [f for f, errors in by_file.items() if all(e.message.startswith("cannot parse YAML") for e in errors)]
    if not broken:
        return found
    read = _files_read(inv)
    moved: set[str] = set()
    for f in broken:
        if f in read or _chart_above(f):
            continue
        try:
            text = read_file_bytes(f, f).decode("utf-8", "replace")
        except (InputError, OSError):
            continue
        if _HELM_ACTION.search(text):
            moved.add(f)
    if not moved:
        return found
    inv.skipped_files.extend((f, _template_reason(f, HELM_TEMPLATE, HELM_TEMPLATE_VLLM)) for f in sorted(moved))
    inv.sources = [f for f in inv.sources if f not in moved]
    return [e for e in found if e.file not in moved]


def _chart_above(file: str) -> bool:
    """Whether a folder holding ``file``, or one above it, holds a ``Chart.yaml`` (of any kind: one that is no regular
    file leaves the chart unrendered, and its error says so; its templates' own errors stay)."""
    d = os.path.dirname(os.path.abspath(file))
    while True:
        if os.path.lexists(os.path.join(d, "Chart.yaml")):
            return True
        parent = os.path.dirname(d)
        if parent == d:
            return False
        d = parent


def _unrendered_error(skipped: list[tuple[str, str]], not_built: dict[str, str] | None = None) -> InputError | None:
    """Nothing was read, and charts or kustomizations found by searching were skipped unrendered: the run
    would pass having linted nothing of them (a silent pass), so it is an input error naming their folders and
    the command that lints them. None when no such folder was skipped (a repository with no vLLM passes). A folder
    that was built, but whose build's output could not be read (``not_built``'s :data:`.overlays.UNREADABLE`), is
    said to be so, not "not rendered" (mend24; its SW005 record says what could not be read, and where)."""
    folders = unrendered_folders(skipped)
    if not folders:
        return None
    from .overlays import UNREADABLE

    why = not_built or {}
    unread = {d for d, _ in folders if why.get(os.path.abspath(d), "").startswith(UNREADABLE)}
    by_name = [d for d, _ in folders if d != "."]
    how = []
    if by_name:
        how.append("shardwise lint " + " ".join(by_name))
    for d, what in folders:
        if d == ".":
            how.append(f"{'helm template .' if what == 'Helm chart' else 'kustomize build .'} | shardwise lint -")
    if unread and len(unread) == len(folders):
        named = ", ".join(f"{d} ({what}{_called(d)})" for d, what in folders)
        return InputError("no file was read: the only inputs met are charts or kustomizations met while searching a "
                          f"folder, built, but what their build emitted could not be read: {named}; to lint them, and "
                          f"see what could not be read at its line: {' and '.join(how)}")
    if unread:
        named = ", ".join(f"{d} ({what}{_called(d)}"
                          f"{': built, but what its build emitted could not be read' if d in unread else ''})"
                          for d, what in folders)
        return InputError("no file was read: the only inputs met are charts or kustomizations met while searching a "
                          "folder (or as .), not rendered, or built and what their build emitted could not be read: "
                          f"{named}; to lint them: {' and '.join(how)}")
    named = ", ".join(f"{d} ({what}{_called(d)})" for d, what in folders)
    return InputError("no file was read: the only inputs met are charts or kustomizations, not rendered when met "
                      f"while searching a folder (or as .): {named}; to lint them: {' and '.join(how)}")


#: The skip reasons of a chart's own files (:mod:`.select`): its templates, its ``files/`` and its values.
_CHART_SKIPS = frozenset({CHART_TEMPLATE, CHART_FILE, HELM_VALUES})
#: What in a chart's template or values file says the chart runs a vLLM server: a launch, vLLM's image (written whole,
#: or as a values file's ``repository:``, under any registry path: ``ghcr.io/neuralmagic/nm-vllm-openai``,
#: ``quay.io/rh-aiservices-bu/vllm-openai-ubi9``), a flag only ``vllm serve`` takes; never a Service's or a label's name
#: (``vllmService: vllm-openai``) nor a URL's host (``upstream: http://vllm-openai:8000/v1``). vLLM's CPU release
#: images count as its image: ``public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo`` and ``vllm-arm64-cpu-release-repo``,
#: the images vLLM's Kubernetes guide runs on CPUs (vllm-project/vllm docs/deployment/k8s.md, "Deployment with
#: CPUs"; corpus43: brokedba/vllm-lab's production-stack values for a CPU cluster were skipped as Helm values
#: without SW005, their only image being that one).
_CHART_SERVES = re.compile(r"\bvllm\s+serve\b|\bvllm\.entrypoints\.openai\b|\bvllm/vllm-openai\b"
                           r"|(?:image|repository):\s*[\"']?(?:[\w.-]+(?::\d+)?/)*[\w.-]*vllm-openai\b"
                           r"|(?:image|repository):\s*[\"']?(?:[\w.-]+(?::\d+)?/)*vllm(?:-arm64)?-cpu-release-repo\b"
                           r"|--tensor-parallel-size\b")
#: The bytes of a chart's file looked at for such a mention (a template is a few KiB; a hostile one is not read on).
_CHART_HEAD = 256 * 1024
#: The files of one chart looked at.
_CHART_FILES = 200


def _serving_mention(text: str) -> re.Match[str] | None:
    """The first :data:`_CHART_SERVES` mention in ``text`` that is not on a YAML comment's line: a comment configures
    nothing (corpus24: AccelBench's values say `# ... route through .../dockerhub/vllm/vllm-openai` of images its API
    pulls for the pods it creates, and SW005 quoted that comment as the chart running vLLM); a line commented out
    (`# command: vllm serve ...`) runs nothing either."""
    for m in _CHART_SERVES.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        if not text[start:m.start()].lstrip().startswith("#"):
            return m
    return None


def _unrendered_charts_serving_vllm(skipped: list[tuple[str, str]],
                                    not_built: dict[str, str] | None = None) -> list[LaunchIssue]:
    """SW005's record of each Helm chart met while searching a folder (so not rendered) whose templates or values say
    it runs vLLM: a run that reads other files linted none of the chart's workloads, and without this its report
    said so only in the summary's count of skipped files (adopt20: a service's own chart passed unremarked). The
    record points at the first mention (file and line) and says how to lint the chart; the files are looked at as
    text, their first 256 KiB each, and never rendered here (a run reads the same whatever tools are installed)."""
    out: list[LaunchIssue] = []
    for chart, what in unrendered_folders(skipped):
        if what != "Helm chart":
            continue
        mine = [f for f, why in skipped if why in _CHART_SKIPS and (chart == "." and not os.path.isabs(f)
                                                                     or inside(f, chart))]
        hit = None
        for f in sorted(mine, key=lambda f: ("/templates/" not in f.replace(os.sep, "/"), f))[:_CHART_FILES]:
            try:
                text = read_file_bytes(f, limit=_CHART_HEAD, head=True).decode("utf-8", "replace")
            except InputError:
                continue
            m = _serving_mention(text)
            if m is not None:
                hit = (f, text.count("\n", 0, m.start()) + 1, " ".join(m.group(0).split()))
                break
        if hit is None:
            continue
        file, line, words = hit
        name = _chart_name(chart)
        how = f"shardwise lint {chart}" if chart != "." else "helm template . | shardwise lint -"
        why = None if not_built is None else not_built.get(os.path.abspath(chart))
        from .overlays import not_built_clause  # the module imports on demand, as above
        unrendered = ("a chart met while searching a folder is not rendered" if why is None else
                      f"this chart, met while searching a folder, {not_built_clause(why, 'rendered')}")
        out.append(LaunchIssue(
            f"Helm chart {name}", "",
            f"its {os.path.relpath(file, chart) if chart != '.' else file} runs vLLM (`{words}` at line {line}), but "
            f"{unrendered}, so none of its workloads was linted; to lint "
            f"them: {how} (with --values FILE for the values you deploy with)",
            Location(file, line), mentioned=True, not_built=why is not None,
            not_built_folder=os.path.abspath(chart) if why is not None else ""))
    return out


def _mention(file: str) -> tuple[int, str] | None:
    """The line and words of the first mention of a vLLM server in ``file``'s first 256 KiB (:data:`_CHART_SERVES`),
    or None."""
    try:
        text = read_file_bytes(file, limit=_CHART_HEAD, head=True).decode("utf-8", "replace")
    except InputError:
        return None
    m = _serving_mention(text)
    # the words without a value's quotes: `repository: "vllm/vllm-openai` read as a quote left open
    return None if m is None else (text.count("\n", 0, m.start()) + 1,
                                   " ".join(m.group(0).replace('"', "").replace("'", "").split()))


#: The reasons a YAML file is skipped for what its content looks like (:func:`.kinds.yaml_kind`): a file the inputs
#: name as Helm values (:mod:`.namedvalues`) is values instead, whatever it looks like.
_CONTENT_SKIPS = frozenset({"YAML that is not a Kubernetes object", "CI configuration", "Docker Compose file",
                            "Pulumi project file"})


def _values_by_content(why: str) -> bool:
    """Whether a file skipped for ``why`` was taken for what it is by its content alone (:data:`_CONTENT_SKIPS`)."""
    return why in _CONTENT_SKIPS or why.startswith("Pulumi stack configuration")


def _values_serving_vllm(skipped: list[tuple[str, str]], named: Mapping[str, Named] | None = None
                         ) -> list[LaunchIssue]:
    """SW005's record of each Helm values file skipped outside the charts met while searching (those say it through
    :func:`_unrendered_charts_serving_vllm`) whose text says it runs vLLM: a values file named alone
    (``shardwise lint values-prod.yaml``), or one kept apart from its chart, is not an input, and the run passed
    having linted nothing of what it configures, with only the summary's count of skipped files to say so
    (newuser9: a production-stack ``values.yaml`` with ``tensorParallelSize: 2``). The record says how to lint the
    workloads it configures: with its chart, where the file's folder holds one, else through ``helm template``."""
    charts = [d for d, what in unrendered_folders(skipped) if what == "Helm chart"]
    out: list[LaunchIssue] = []
    for file, why in skipped[:_CHART_FILES * 8]:
        if why != HELM_VALUES or any(chart == "." and not os.path.isabs(file) or inside(file, chart)
                                     for chart in charts):
            continue
        hit = _mention(file)
        if hit is None:
            continue
        line, words = hit
        folder = os.path.dirname(file) or "."
        by = (named or {}).get(os.path.abspath(file))
        how = (f"shardwise lint {folder} --values {file}" if os.path.isfile(os.path.join(folder, "Chart.yaml"))
               else by.how if by is not None
               else f"helm template RELEASE CHART -f {file} | shardwise lint - (CHART: the chart it is deployed with)")
        said = f"; {by.by}" if by is not None else ""
        out.append(LaunchIssue(
            f"Helm values {os.path.basename(file)}", "",
            f"it configures vLLM (`{words}` at line {line}){said}, but a Helm values file is read only with its "
            f"chart, so none of the workloads it configures was linted; to lint them: {how}",
            Location(file, line), mentioned=True))
    return out


def _chart_name(folder: str) -> str:
    """The ``name:`` of the chart's Chart.yaml, else its folder's name."""
    try:
        text = read_file_bytes(os.path.join(folder, "Chart.yaml"), limit=64 * 1024, head=True).decode("utf-8",
                                                                                                      "replace")
    except InputError:
        text = ""
    m = re.search(r"^name:\s*[\"']?([\w.-]+)", text, re.MULTILINE)
    return m.group(1) if m else os.path.basename(os.path.abspath(folder))


def _called(folder: str) -> str:
    """`` `NAME` `` for a folder written only as dots (``.``, ``..``): the name a reader knows it by."""
    if os.path.basename(os.path.normpath(folder)) not in (".", ".."):
        return ""
    name = os.path.basename(os.path.abspath(folder))
    return f" `{name}`" if name else ""


def _kustomization_read_plainly(directory: str, failed: Inventory, excludes: Excludes | None,
                                not_applied: str = "patches, overlays and generators not applied") -> Inventory:
    """A kustomization that did not build (no kustomize on PATH, a resource it cannot resolve, a remote
    base): its error stays, and its files are read one by one as plain manifests, so that the
    workloads in them are still linted rather than left unread behind the error. Patches and
    generators are not applied to what is read that way; the error's message says so. Its own kustomization file
    is skipped as not built (:data:`.select.KUSTOMIZE_NOT_BUILT`), so the summary gives no hint to name the folder
    that was named."""
    sel = select_inputs([directory], excludes, render=False)
    inv = _load_chunk(sel.files)
    inv.errors = [*failed.errors, *sel.errors, *inv.errors]
    if sel.files:
        first = inv.errors[0]
        n = len(sel.files)
        files = f"{n} YAML files were" if n != 1 else "1 YAML file was"
        inv.errors[0] = InputError(f"{first.message}; its {files} read one by one instead ({not_applied})",
                                   first.file, first.line)
    own = os.path.normpath(directory)
    inv.skipped_files.extend((f, KUSTOMIZE_NOT_BUILT if why == "Kustomize file" and os.path.dirname(
        os.path.normpath(f)) == own else why) for f, why in sel.skipped)
    inv.excluded.extend(sel.excluded)
    return inv


def _kustomization_refused(directory: str, failed: Inventory, excludes: Excludes | None) -> Inventory:
    """A kustomization refused before kustomize runs for what it would hand it (:class:`.charts.KustomizationRefused`:
    past a bound on its patches' operations, its objects, a mapping's keys or its YAML nodes): its error stays, once,
    and its files are listed as skipped for it (:data:`.select.KUSTOMIZE_REFUSED`), not read one by one as those of
    a kustomization that fails to build are (hostile18: near the node bound that parsed them all a second time, the
    file that passed the bound included). Only their names are taken: no file of it is opened."""
    sel = select_inputs([directory], excludes, render=False)
    inv = Inventory()
    inv.errors = [*failed.errors, *sel.errors]
    first = inv.errors[0]
    n = len(sel.files)
    files = f"{n} YAML files were" if n != 1 else "1 YAML file was"
    inv.errors[0] = InputError(f"{first.message}; its {files} not read one by one either (what shardwise does not "
                               "hand kustomize it does not read another way)", first.file, first.line)
    inv.skipped_files.extend((f, KUSTOMIZE_REFUSED) for f in sel.files)
    inv.skipped_files.extend((f, KUSTOMIZE_REFUSED if why == "Kustomize file" else why) for f, why in sel.skipped)
    inv.excluded.extend(sel.excluded)
    return inv


def load_inputs(paths: Iterable[str], jobs: int | None = None, excludes: Excludes | None = None) -> Inventory:
    """:func:`read_inputs`, raising the first input error (for callers that need all inputs or none)."""
    inv = read_inputs(paths, jobs, excludes)
    if inv.errors:
        raise inv.errors[0]
    return inv

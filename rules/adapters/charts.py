"""Helm charts and Kustomize directories: rendered by the real tools, then linted as manifests.

A directory named on the command line (other than the current directory; or its ``Chart.yaml`` or
kustomization file) that holds a ``Chart.yaml`` is rendered with
``helm template RELEASE DIR [--values FILE]… [--set K=V]…`` (RELEASE is the directory's name), one that
holds a ``kustomization.yaml`` (or ``.yml``, or ``Kustomization``) with ``kustomize build DIR``, else
``kubectl kustomize DIR`` — whichever is on ``PATH``, as checkov does — with its files kept under the
kustomization's root; a base outside the repository or a remote one (which kustomize would fetch) is refused
first (:func:`check_kustomization`). Without the tool, the directory
is an input error that says how to install it and how to render by hand. Directories met while
searching a tree, and ``.``, are not rendered by the selection: their files are skipped as chart metadata, values
and unrendered templates; the ``lint`` command then builds the kustomization leaves and charts among them where the
tools are on PATH (:mod:`.found`), and reads the rest unbuilt.

Where findings point. Helm writes ``# Source: CHART/templates/FILE`` above each document it renders;
each document is read as if it were that template file (``DIR/templates/FILE``), and each rendered line
is mapped to the template line it came from: the next template line, in order, whose literal text (the
part before the first ``{{``) starts the rendered line. Lines a template produces through ``include``,
``toYaml`` or ``tpl`` have no literal twin and point at the last matched line above them — the line
that includes them (``resources:`` above ``{{- toYaml .Values.resources | nindent 12 }}``). A kustomization is
built through one in a temporary folder that asks for kustomize's build annotations (:func:`_build_with_origins`),
and each line it builds points at the repository file and line that wrote it (:func:`.origins.place_build`), in a
file named ``FILE (via DIR/kustomization.yaml)`` (the kustomization's own file as it is); a line whose origin cannot
be found (a remote base's object; a tool too old to annotate) at the line of the build output, in a file named
``DIR/kustomization.yaml (kustomize build)``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import posixpath
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..model import RELEASE_NAMESPACE, Inventory, Location
from ..model.errors import InputError
from ..model.files import MAX_FILE_BYTES, inside, link_target, read_file_bytes, size_text
from ..model.wall import wall_limit
from .load import load_text
from .origins import place_build, strip_build_metadata
from .renderkind import KUSTOMIZATION_FILES, render_kind
from .yamlsrc import YamlTooCostly, decode_text, load_all

HELM_INSTALL = "https://helm.sh/docs/intro/install/ (or: go install helm.sh/helm/v3/cmd/helm@v3.22.0)"
KUSTOMIZE_INSTALL = ("https://kubectl.docs.kubernetes.io/installation/kustomize/ (or: go install "
                     "sigs.k8s.io/kustomize/kustomize/v5@v5.8.1; `kubectl kustomize` works too)")
_SOURCE = re.compile(r"^# Source: (.+?)\s*$")
#: The wall time helm or kustomize may take, at a load of one process per core or less (loadlimits1): it catches a
#: tool that is blocked (a FIFO, a network) and uses no CPU. :data:`_CPU_S` below bounds the work; on a busy machine
#: the same 30 s of CPU take longer, so the limit is this times the load per core (:func:`~..model.wall.wall_limit`)
#: and a good chart on a shared CI runner is not stopped.
_TIMEOUT_S = 120
#: What helm or kustomize may use (fuzz20): a template that loops (``{{ range until 100000000 }}``, ``tpl`` of a
#: value that calls ``tpl`` on itself) builds its whole output in memory before it writes a byte, about 9 bytes of
#: heap a byte rendered: 9 GiB and a minute of CPU before the wall-time limit above, the machine's memory taken from
#: every other process. A render is stopped at 1 GiB of data (``RLIMIT_DATA``, which counts what Go's heap and
#: goroutine stacks map, not the address space it reserves: ``RLIMIT_AS`` stops helm before its first line) or at
#: 30 s of CPU (``RLIMIT_CPU``); a real chart or kustomization renders in well under a second and 100 MiB.
_MEMORY_BYTES = 1 << 30
_CPU_S = 30


@dataclass
class Renderer:
    """How charts are rendered in this run: ``--values`` files and ``--set`` values (Helm only)."""

    values: list[str] = field(default_factory=list)
    set_values: list[str] = field(default_factory=list)
    which: Callable[[str], str | None] = shutil.which
    #: Let kustomize fetch remote bases (``--fetch-remote-bases``): by default one is an input error.
    remote_bases: bool = False

    def render(self, directory: str) -> Inventory:
        """The inventory of one chart or kustomization directory; what fails is an input error of it."""
        kind = render_kind(directory)
        try:
            if kind == "helm":
                return self._helm(directory)
            if kind == "kustomize":
                return self._kustomize(directory)
            raise InputError("neither a Helm chart (Chart.yaml) nor a Kustomize directory (kustomization.yaml)",
                             directory)
        except InputError as e:
            inv = Inventory(sources=[directory])
            inv.errors.append(e)
            return inv

    # ------------------------------------------------------------------------------------------ helm

    def _helm(self, directory: str) -> Inventory:
        # a chart named on its own: the namespace it is installed in is not known (never `default`)
        return self.helm_release(directory, release_name(directory), RELEASE_NAMESPACE, values=self.values,
                                 sets=[("--set", s) for s in self.set_values])

    def helm_release(self, directory: str, release: str, namespace: str | None = None,
                     values: list[str] | tuple[str, ...] = (),
                     sets: list[tuple[str, str]] | tuple[()] = ()) -> Inventory:
        """``helm template RELEASE DIR [--namespace NS] [--values FILE]… [FLAG K=V]…`` (FLAG ``--set`` or
        ``--set-string``), values in the order given (helm merges each over the ones before); :class:`InputError`
        when helm is missing or fails."""
        helm = self.which("helm")
        if helm is None:
            raise InputError(
                "this Helm chart cannot be rendered: the helm binary is not on PATH; install it from "
                f"{HELM_INSTALL}, or render it yourself: helm template NAME {directory} | shardwise lint -",
                os.path.join(directory, "Chart.yaml"))
        _check_metadata_file(os.path.join(directory, "Chart.yaml"), "the chart is not rendered")
        ignore = os.path.join(directory, ".helmignore")
        if os.path.exists(ignore):  # helm opens it before it checks the chart's files are regular (fuzz14: a FIFO
            _check_metadata_file(ignore, "the chart is not rendered")  # held it until the timeout); none is fine
        _check_chart_links(directory)
        _check_chart_files(directory)
        cmd = [helm, "template", release, directory]
        if namespace:
            cmd += ["--namespace", namespace]
        for v in values:
            _check_values_file(v, os.path.join(directory, "Chart.yaml"))
            cmd += ["--values", v]
        for flag, s in sets:
            cmd += [flag, s]
        try:
            out = _run(cmd, os.path.join(directory, "Chart.yaml"), "helm template")
        except InputError as e:
            file, line = helm_error_location(e.message, directory, values)
            if file is not None:
                raise InputError(e.message, file, line) from None
            raise
        inv = helm_inventory(out, directory, namespace)
        if inv.errors or inv.launch_issues:
            name_unset_values(inv, directory, values, list(sets))
        return inv

    def kustomize_build(self, directory: str, namespace: str | None = None) -> Inventory:
        """:meth:`render` of a kustomization directory, its failure raised as :class:`InputError`; ``namespace`` the
        one its objects are applied in (an Argo CD Application's destination), given to those that name none."""
        return self._kustomize(directory, namespace)

    # ------------------------------------------------------------------------------------- kustomize

    def _kustomize(self, directory: str, namespace: str | None = None) -> Inventory:
        kustomize, kubectl = self.which("kustomize"), self.which("kubectl")
        name = next(f for f in KUSTOMIZATION_FILES if os.path.lexists(os.path.join(directory, f)))
        where = os.path.join(directory, name)
        _check_metadata_file(where, "the kustomization is not built")
        if kustomize is not None:
            cmd, what = [kustomize, "build", _ROOT_ONLY, directory], "kustomize build"
        elif kubectl is not None:
            cmd, what = [kubectl, "kustomize", _ROOT_ONLY, directory], "kubectl kustomize"
        else:
            raise InputError(
                "this Kustomize directory cannot be built: neither kustomize nor kubectl is on PATH; "
                f"install one from {KUSTOMIZE_INSTALL}, or build it yourself: kustomize build {directory} | "
                "shardwise lint -", where)
        # --values and --set are the Helm charts' of the run (lint refuses them when no chart is named): a
        # kustomization named beside a chart is built as it is (newuser7: the two in one run were an input error)
        check_kustomization(directory, self.remote_bases)
        virtual = f"{where} (kustomize build)"
        built = _build_with_origins(cmd[:-1], directory, where, what)
        if built is None:  # the tool cannot say where its objects came from: the plain build, at its output's lines
            return load_text(_run(cmd, where, what), virtual, namespace)
        text, place = built
        inv = load_text(text, virtual, namespace)
        # newuser17: each object at the repository lines kustomize says wrote it, named by the overlay that built it
        # (`base/deploy.yaml (via overlays/prod/kustomization.yaml)`, as an overlay read unbuilt names its base's
        # objects); the overlay's own kustomization file (a patch inline, `namespace:`, `images:`) as it is
        labels = {f: f if f == where else f"{f} (via {where})" for f, _ in place.values()}
        _relocate(inv, virtual, virtual, lambda n: n,
                  place=lambda n: (labels[p[0]], p[1]) if (p := place.get(n)) else None)
        return inv


#: What a kustomization that wraps the one built asks kustomize for: each object's origin file and the
#: kustomizations whose transformers touched it (adapters.origins).
_BUILD_METADATA = "buildMetadata: [originAnnotations, transformerAnnotations]\n"


def _build_with_origins(tool: list[str], directory: str, where: str,
                        what: str) -> tuple[str, dict[int, tuple[str, int]]] | None:
    """newuser17: the build of ``directory`` through a kustomization in a temporary folder that lists it and asks
    for kustomize's build annotations (:mod:`.origins`): the output with them removed (what the plain build emits)
    and the repository file and line each line of it was written at. None where that build fails (a kustomize before
    v4.5.5 knows no ``buildMetadata``; the kustomization's own error is then said by the plain build, in words that
    name no temporary folder). kustomize refuses an absolute entry, so the entry is the directory's real path relative
    to the temporary folder's, and so are the paths of the annotations."""
    with tempfile.TemporaryDirectory(prefix="shardwise-kustomize-") as tmp:
        wrap = os.path.realpath(tmp)
        real = os.path.realpath(directory)
        entry = os.path.relpath(real, wrap)
        with open(os.path.join(wrap, "kustomization.yaml"), "w", encoding="utf-8") as f:
            f.write(f"resources:\n- {json.dumps(entry)}\n{_BUILD_METADATA}")
        try:
            out = _run([*tool, wrap], where, what)
        except InputError as e:
            if e.message.startswith((f"{what} did not finish", f"{what} used more than")):
                raise  # stopped at a limit: the plain build would be stopped too (and take as long again)
            return None
    text, origins = strip_build_metadata(out)
    if not origins or not any(o.path or o.generated_in for o in origins):
        return text, {}

    def resolve(path: str) -> str:  # kustomize's path (relative to the wrapper) as the directory was named
        target = os.path.normpath(os.path.join(wrap, path))
        named = os.path.normpath(os.path.join(directory, os.path.relpath(target, real)))
        if os.path.realpath(named) == os.path.realpath(target):
            return named
        # mend27: a link on the way (`envs/prod -> ../deploy/overlays/prod`, resources `../../base`): kustomize
        # went up from the link's target, so the file is named from its real path, relative to the run's folder
        return target if os.path.isabs(directory) else os.path.relpath(target, os.path.realpath(os.getcwd()))

    return text, place_build(text, origins, resolve)


def release_name(directory: str) -> str:
    """The release name ``helm template`` is given for the chart in ``directory`` (named, or met while searching):
    its folder's name, lower case, as a release name may be written."""
    release = os.path.basename(os.path.abspath(directory)).lower() or "release"
    return re.sub(r"[^a-z0-9-]", "-", release).strip("-")[:53] or "release"


#: Files a kustomization loads stay under its own root (kustomize's default, said explicitly).
_ROOT_ONLY = "--load-restrictor=LoadRestrictionsRootOnly"
#: What kustomize takes for a remote base when no local path has the name: a URL with a scheme
#: (https://, ssh://, file://), git@host:, git::, or a host name first (github.com/org/repo//path?ref=v1).
_REMOTE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*://|[^/\s]+@[^/\s]+:|git::|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/)")
#: What kustomize clones before it looks for a folder of that name (fuzz20): ``FileLoader.New`` asks
#: ``git.NewRepoSpecFromURL`` first, which takes an entry whose host part starts with one of these (any case) or
#: that holds Azure's ``_git/`` (sigs.k8s.io/kustomize ``api/internal/loader/fileloader.go``,
#: ``api/internal/git/repospec.go`` ``parseHostSpec``); kustomize v5.8.1 ran ``git fetch --depth=1
#: https://github.com/acme/x`` for ``resources: [github.com/acme/x]`` beside a folder ``github.com/acme/x``, and for
#: ``github.com:acme/x``, which :data:`_REMOTE` did not take for remote. Only a regular file of the name is read
#: first (``accumulateFile``).
_GIT_HOSTS = ("git::", "gh:", "ssh://", "https://", "http://", "git@", "github.com:", "github.com/", "oci://")


def _cloned(entry: str) -> bool:
    low = entry.lower()
    return low.startswith(_GIT_HOSTS) or "_git/" in low


#: The keys of a kustomization that name other kustomizations (or files) to build in.
_BASE_KEYS = ("resources", "bases", "components")
#: The keys whose entries are files (or, for the plugin lists, kustomizations) kustomize reads besides its bases
#: (sigs.k8s.io/kustomize ``api/types/kustomization.go``, ``generatorargs.go``, ``kvpairsources.go``): a list of
#: paths, a list of mappings with ``path``, a generator's ``files`` (``[KEY=]PATH``), ``envs`` and ``env``, and
#: ``openapi.path``. A FIFO at any of them held kustomize until the timeout (fuzz14). An ``http(s)://`` entry of any
#: of them kustomize downloads (``FileLoader.Load``: ``IsRemoteFile``, then an HTTP GET before any load restriction;
#: fuzz20: a repository's kustomization could make the run fetch any address the runner reaches), refused as a
#: remote base is.
_FILE_LIST_KEYS = ("crds", "configurations", "generators", "transformers", "validators", "patchesStrategicMerge")
_PATH_ITEM_KEYS = ("patches", "patchesJson6902", "replacements")
_GENERATOR_KEYS = ("configMapGenerator", "secretGenerator")


#: The most JSON 6902 operations one kustomization (with the kustomizations it includes) may apply. Kustomize
#: applies each operation to the whole object it patches, so its work grows with operations x object size: with
#: kustomize v5.8.1, ``add`` operations of one label each on a Deployment took 0.3 s for 1,000, 1.6 s for 4,000 and
#: more than 60 s for 20,000 (fuzz14). Past this the kustomization is an input error that says so (fuzz15).
MAX_JSON6902_OPS = 5000

#: The most objects kustomize may be handed by one kustomization and what it includes (its resource files'
#: documents, one per generator entry), and the most keys of one mapping in any of them. Kustomize's work grows
#: with the square of both, whatever the objects hold (kustomize v5.8.1 here, two cores shared, load 10: 1,000
#: custom objects of one name each 1.7 s, 2,000 9.6 s; ConfigMaps 4.5 s, 27.7 s and 4,000 202 s; a Deployment of
#: 4,000 labels 3.1 s, of 20,000 28-56 s, fuzz15), so the 120 s timeout was the only bound. Both are counted from
#: the files before kustomize runs; past either the kustomization is an input error that names the file (fuzz16).
MAX_KUSTOMIZE_OBJECTS = 2500
MAX_KUSTOMIZE_KEYS = 10000

#: The most YAML nodes (every mapping, list and scalar, each mapping key counted too) kustomize may be handed by one
#: kustomization and what it includes. Within both bounds above, 2,500 objects of 10,000 keys each still held
#: kustomize until the 120 s timeout (fuzz16's open (4)): its work also grows with everything it reads. Measured
#: here (kustomize v5.8.1, GOMAXPROCS=1, two cores shared, load 8-11; nodes counted by :func:`_shape`): ConfigMaps of
#: 1,000 data keys, 10 (20,110 nodes) 1.4 s, 160 (321,760) 17.1 s; 10 of 16,000 keys (320,110) 101 s; one custom
#: object of small nested mappings, 252,011 nodes (1.8 MB) 16.7 s, 630,011 34.2 s, 1,008,011 49.4 s, 1,260,011
#: 46.8 s; 40 such objects, 1,008,440 nodes 41.2 s; 2,500 ConfigMaps of 195 keys (1,002,500) 80.8 s, of 97 keys
#: (512,500, about this bound) 87.5 s and 90.2 s. Counted from the files before kustomize runs (one file at a time:
#: the files after the one that passes it are not parsed); past it the kustomization is an input error at that
#: file (fuzz17).
MAX_KUSTOMIZE_NODES = 500_000


class KustomizationRefused(InputError):
    """A kustomization refused before kustomize runs for what it would hand kustomize (past
    :data:`MAX_JSON6902_OPS`, :data:`MAX_KUSTOMIZE_OBJECTS`, :data:`MAX_KUSTOMIZE_KEYS` or
    :data:`MAX_KUSTOMIZE_NODES`): its files are not read one by one after it (hostile18: they were, so a
    kustomization refused near the node bound had its files parsed a second time, the hostile one included)."""


@dataclass
class _Cost:
    """What a kustomization hands kustomize, counted before it runs (:func:`check_kustomization`)."""

    ops: int = 0  # JSON 6902 operations
    objects: int = 0  # documents of resource files, generator entries
    widest: int = 0  # keys of the widest mapping seen
    widest_at: str = ""  # the file that holds it
    nodes: int = 0  # YAML nodes, mapping keys counted
    nodes_at: str = ""  # the file whose nodes passed MAX_KUSTOMIZE_NODES first


def _shape(doc: Any) -> tuple[int, int]:
    """The most keys of any mapping in ``doc`` (a parsed document) and its nodes (every mapping, list and scalar,
    each mapping key counted too; a value shared by aliases once per place), walked without recursion."""
    most, nodes, todo = 0, 1, [doc]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            most = max(most, len(node))
            nodes += 2 * len(node)
            todo.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            nodes += len(node)
            todo.extend(v for v in node if isinstance(v, dict | list))
    return most, nodes


def _add_nodes(cost: _Cost, nodes: int, where: str) -> None:
    cost.nodes += nodes
    if cost.nodes > MAX_KUSTOMIZE_NODES and not cost.nodes_at:
        cost.nodes_at = where


def _measure(text: str, where: str, cost: _Cost, *, objects: bool) -> int:
    """Add to ``cost`` what ``text`` (a resource file with ``objects``, else a patch) hands kustomize: its documents
    (a resource file's), the keys of its widest mapping; return the JSON 6902 operations it holds (the length of a
    list it is, JSON or YAML; 0 for a strategic-merge patch). A text that does not parse counts nothing: kustomize
    says why in its own words."""
    try:
        docs = list(load_all(text, where))
    except YamlTooCostly:
        raise  # kustomize would pay the cost: refused by the caller (fuzz24)
    except InputError:
        return 0
    if objects:
        cost.objects += sum(1 for d in docs if d is not None)
    for d in docs:
        if d is None:
            continue
        wide, nodes = _shape(d)
        if wide > cost.widest:
            cost.widest, cost.widest_at = wide, where
        _add_nodes(cost, nodes, where)
    return sum(len(d) for d in docs if isinstance(d, list)) if not objects else 0


def _patch_texts(d: str, doc: dict[str, Any], root: str) -> list[tuple[str, str, str]]:
    """``(key, entry, text)`` for each patch of ``doc`` that may hold JSON 6902 operations: an inline ``patch:``
    of ``patches`` or ``patchesJson6902``, and the regular file a ``path:`` of them names under ``root``."""
    out: list[tuple[str, str, str]] = []
    for key in ("patches", "patchesJson6902"):
        entries = doc.get(key)
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            inline, path = entry.get("patch"), entry.get("path")
            if isinstance(inline, str):
                out.append((key, "patch", inline))
            if isinstance(path, str) and path.strip() and "\n" not in path:
                local = os.path.normpath(os.path.join(d, path.strip()))
                if os.path.isfile(local) and inside(local, root):
                    try:
                        out.append((key, path.strip(), decode_text(read_file_bytes(local), local)))
                    except InputError:
                        continue  # refused with its path by the file check
    return out


def _file_entries(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """``(key, path)`` for each file a kustomization names outside its bases (:data:`_FILE_LIST_KEYS` and kin);
    inline patches and values of another type are left to kustomize's own words."""
    out: list[tuple[str, str]] = []

    def add(key: str, value: object) -> None:
        if isinstance(value, str) and value.strip() and "\n" not in value:
            out.append((key, value.strip()))

    for key in _FILE_LIST_KEYS:
        entries = doc.get(key)
        for entry in entries if isinstance(entries, list) else []:
            add(key, entry)
    for key in _PATH_ITEM_KEYS:
        entries = doc.get(key)
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict):
                add(f"{key} path", entry.get("path"))
    for key in _GENERATOR_KEYS:
        entries = doc.get(key)
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            files, envs = entry.get("files"), entry.get("envs")
            for f in files if isinstance(files, list) else []:
                add(f"{key} files", f.split("=", 1)[-1] if isinstance(f, str) else f)
            for f in envs if isinstance(envs, list) else []:
                add(f"{key} envs", f)
            add(f"{key} env", entry.get("env"))
    openapi = doc.get("openapi")
    if isinstance(openapi, dict):
        add("openapi path", openapi.get("path"))
    return out


def _root_text(root: str, directory: str) -> str:
    """The folder a chart or a kustomization must stay in, as a message names it: never its absolute path (two
    checkouts give the same report, mend21). ``root`` is the current directory, or the named ``directory`` where it
    lies elsewhere (then by its base name, as the user named it)."""
    if root != directory:
        return "the current directory"
    return f"the folder named ({os.path.basename(os.path.normpath(directory)) or directory})"


def _as_named(path: str, directory: str) -> str:
    """``path`` as the user named ``directory``: absolute where they named it so, else relative to the current
    directory (the message then holds only what the run was given)."""
    return path if os.path.isabs(directory) else os.path.relpath(path)


def check_kustomization(directory: str, remote: bool = False) -> None:
    """Refuse, before kustomize runs, a kustomization that would build from outside the request: a
    ``resources``/``bases``/``components`` entry (in it or in any kustomization it includes) that leads
    outside the repository (the current directory; the named directory when it lies elsewhere), or a remote
    base, which kustomize would ``git fetch`` (allowed with ``remote``). :class:`InputError` at the
    kustomization file that names it. Kustomize itself keeps every other file under its kustomization's root
    (``--load-restrictor=LoadRestrictionsRootOnly``), runs no plugin or function (no ``--enable-alpha-plugins``,
    no ``--enable-exec``) and inflates no Helm chart (no ``--enable-helm``). What it would be handed is measured on
    the way (:data:`MAX_JSON6902_OPS`, :data:`MAX_KUSTOMIZE_OBJECTS`, :data:`MAX_KUSTOMIZE_KEYS`,
    :data:`MAX_KUSTOMIZE_NODES`): past a bound the
    kustomization is refused too, so kustomize never runs for minutes."""
    root = os.getcwd() if inside(directory, os.getcwd()) else directory
    seen: set[str] = set()
    cost = _Cost()
    top: str | None = None  # the named kustomization's file
    todo = [directory]
    while todo:
        d = todo.pop()
        real = os.path.realpath(d)
        name = next((f for f in KUSTOMIZATION_FILES if os.path.lexists(os.path.join(d, f))), None)
        if real in seen or name is None:
            continue
        seen.add(real)
        where = os.path.join(d, name)
        # a FIFO here (or a resource below) held kustomize until the timeout: refused with its path (fuzz13)
        try:
            data = read_file_bytes(where)
        except InputError as e:
            raise InputError(f"the kustomization is not built: {e.message}", where) from None
        try:
            # kustomize's YAML reader (go-yaml v3) takes UTF-16 with a BOM as well as UTF-8 (hostile9's
            # h9-kust-utf16 builds): the entries are checked in the text kustomize reads
            text = data.decode("utf-16") if data.startswith((b"\xff\xfe", b"\xfe\xff")) else decode_text(data, where)
            docs = list(load_all(text, where))
        except (InputError, UnicodeDecodeError) as e:
            # fuzz20 (seed 20011 case 447): what is not checked is not built. A kustomization this check could not
            # read was left to kustomize "to report in its own words", and kustomize read a UTF-16 one and opened the
            # FIFO it names, holding the run for the 120 s timeout
            why = e.message if isinstance(e, InputError) else "not UTF-16 text, though it starts with a UTF-16 mark"
            raise InputError(f"the kustomization is not built: shardwise cannot check what it names ({why}), so "
                             "kustomize is not run on it", where) from None
        doc = docs[0] if docs else None
        if not isinstance(doc, dict):
            continue
        for key in _BASE_KEYS:
            entries = doc.get(key)
            for entry in entries if isinstance(entries, list) else []:
                if not isinstance(entry, str) or not entry.strip():
                    continue
                local = os.path.normpath(os.path.join(d, entry))
                cloned = _cloned(entry.strip())
                if os.path.lexists(local) and not (cloned and not os.path.isfile(local)):
                    if not inside(local, root):
                        how = "run it from a directory that holds both"
                        if root == directory:  # named from elsewhere: the folder that holds both, and the line
                            top = os.path.commonpath([os.path.realpath(local), os.path.realpath(directory)])
                            how += f": cd {_as_named(top, directory)} && shardwise lint " + os.path.relpath(
                                os.path.realpath(directory), top)
                        # neither the entry's target nor the root is printed: both are the checkout's absolute paths
                        # (mend21: two checkouts give the same report); the entry is as the kustomization writes it
                        raise InputError(f"{key} entry {entry!r} leads outside {_root_text(root, directory)}: the "
                                         "kustomization is not built (shardwise builds nothing from outside the "
                                         f"repository; {how})", where)
                    if os.path.isdir(local):
                        todo.append(local)
                    else:  # a file kustomize reads: a regular one (a FIFO would hold it until the timeout)
                        try:
                            data = read_file_bytes(local)
                        except InputError as e:
                            raise InputError(f"the kustomization {where} is not built: its {key} entry {entry!r}: "
                                             f"{e.message}", local) from None
                        try:
                            _measure(decode_text(data, local), local, cost, objects=True)
                        except YamlTooCostly as e:
                            raise _too_costly(where, key, entry, e) from None
                        except InputError:
                            pass  # not text: kustomize says so in its own words
                        _check_cost(cost, directory, top or where)  # before reading the next file
                elif (cloned or _REMOTE.match(entry.strip())) and not remote:
                    before = ", which it tries before the folder of that name" if os.path.lexists(local) else ""
                    raise InputError(f"remote base {entry!r} not fetched: kustomize would download it (git fetch)"
                                     f"{before}; pass --fetch-remote-bases to let it, or build the kustomization "
                                     f"yourself: kustomize build {directory} | shardwise lint -", where)
        for key in _GENERATOR_KEYS:  # one object each, a key for each literal and file
            entries = doc.get(key)
            for gen in entries if isinstance(entries, list) else []:
                cost.objects += 1
                if isinstance(gen, dict):
                    wide = sum(len(v) for v in (gen.get("literals"), gen.get("files")) if isinstance(v, list))
                    if wide > cost.widest:
                        cost.widest, cost.widest_at = wide, where
                    _add_nodes(cost, 2 * wide, where)  # a key and a value each
        for key, entry, text in _patch_texts(d, doc, root):
            try:
                ops = cost.ops = cost.ops + _measure(text, where if entry == "patch" else os.path.join(d, entry), cost,
                                                     objects=False)
            except YamlTooCostly as e:
                raise _too_costly(where, key, entry, e) from None
            if ops > MAX_JSON6902_OPS:
                raise KustomizationRefused(
                    f"the kustomization is not built: its JSON 6902 patches hold more than {MAX_JSON6902_OPS:,} "
                    f"operations ({ops:,} counted up to its {key} entry {entry!r}); kustomize applies each to the "
                    "whole object (20,000 took it over a minute), so shardwise bounds them; build it yourself: "
                    f"kustomize build {directory} | shardwise lint -", where)
        _check_cost(cost, directory, top or where)
        top = top or where
        for key, entry in _file_entries(doc):
            if not remote and entry.lower().startswith(("http://", "https://")):
                raise InputError(f"remote file {entry!r} ({key}) not fetched: kustomize would download it (HTTP GET); "
                                 "pass --fetch-remote-bases to let it, or build the kustomization yourself: "
                                 f"kustomize build {directory} | shardwise lint -", where)
            local = os.path.normpath(os.path.join(d, entry))
            if not os.path.lexists(local) or not inside(local, root):
                continue  # missing, or outside the root: kustomize says so in its own words, at once
            if os.path.isdir(local):
                todo.append(local)  # a generator or transformer kustomization
                continue
            try:  # a regular file: a FIFO held kustomize until the timeout, a device fed it without end
                data = read_file_bytes(local)
            except InputError as e:
                raise InputError(f"the kustomization {where} is not built: its {key} entry {entry!r}: "
                                 f"{e.message}", local) from None
            if not key.startswith(_GENERATOR_KEYS):  # kustomize parses it as YAML (a generator's files it does not)
                _check_yaml_cost(data, local, where, key, entry)


def _too_costly(where: str, key: str, entry: str, e: InputError) -> InputError:
    """The input error for a file a kustomization names that shardwise's own reader refuses for what reading it would
    cost (:class:`.yamlsrc.YamlTooCostly`: aliases that expand past the bound, nesting too deep), at the kustomization
    file ``where``; the file itself is refused at its line when the folder is read one by one. Kustomize read such a
    resource before shardwise refused it and grew to its 1 GiB memory bound in 3-11 s (fuzz24)."""
    line = f" (line {e.line})" if e.line is not None else ""
    return InputError(f"the kustomization is not built: its {key} entry {entry!r}{line}: {e.message}; kustomize would "
                      "read it whole, so shardwise hands kustomize no file it refuses to read itself", where)


def _check_yaml_cost(data: bytes, path: str, where: str, key: str, entry: str) -> None:
    """Parse ``data`` (the bytes of ``path``, a file a kustomization or a chart hands its tool as YAML) with
    shardwise's own reader and raise :func:`_too_costly`'s error where that refuses it for its cost; a text that is
    not UTF-8 or does not parse for another reason is left to the tool's own words."""
    try:
        list(load_all(decode_text(data, path), path))
    except YamlTooCostly as e:
        raise _too_costly(where, key, entry, e) from None
    except InputError:
        pass


def _check_cost(cost: _Cost, directory: str, where: str) -> None:
    """:class:`KustomizationRefused` when what the kustomization hands kustomize, counted so far, passes
    :data:`MAX_KUSTOMIZE_KEYS` (at the file that holds the widest mapping) or :data:`MAX_KUSTOMIZE_OBJECTS` (at
    the named kustomization's file ``where``)."""
    by_hand = f"build it yourself: kustomize build {directory} | shardwise lint -"
    if cost.widest > MAX_KUSTOMIZE_KEYS:
        raise KustomizationRefused(
            f"the kustomization is not built: a mapping of {cost.widest:,} keys, more than the {MAX_KUSTOMIZE_KEYS:,} "
            "shardwise hands kustomize (its work grows with the square of a mapping's keys: 20,000 labels took it "
            f"28-56 s); {by_hand}", cost.widest_at)
    if cost.nodes > MAX_KUSTOMIZE_NODES:
        raise KustomizationRefused(
            "the kustomization is not built: it and the kustomizations it includes hand kustomize more than "
            f"{MAX_KUSTOMIZE_NODES:,} YAML nodes ({cost.nodes:,} counted by this file: kustomize's work grows with all "
            f"it reads, and 2,500 objects of 10,000 keys each held it past 120 s); {by_hand}", cost.nodes_at)
    if cost.objects > MAX_KUSTOMIZE_OBJECTS:
        raise KustomizationRefused(
            f"the kustomization is not built: it and the kustomizations it includes hold {cost.objects:,} objects, "
            f"more than the {MAX_KUSTOMIZE_OBJECTS:,} shardwise hands kustomize (its work grows with the square of the "
            f"objects: 4,000 ConfigMaps took it 202 s); {by_hand}", where)


def _check_metadata_file(path: str, what: str) -> None:
    """Refuse a chart's ``Chart.yaml`` or a kustomization file that helm or kustomize could not read in bounded time:
    a FIFO held the tool until the timeout, and a directory or a link that loops or leads nowhere gave the tool's
    own words at best (fuzz13). A regular file of at most :data:`~..model.files.MAX_FILE_BYTES` passes."""
    try:
        read_file_bytes(path)
    except InputError as e:
        raise InputError(f"{what}: {e.message}", path) from None


def _check_chart_links(directory: str) -> None:
    """Refuse a chart holding a symbolic link out of the repository (the current directory; the chart's own directory
    when it lies elsewhere), in it or in a folder a link inside leads to: helm follows every link of the chart it loads
    (``sympath.Walk``: "found symbolic link in path … Contents of linked file included and used"), so a template
    linked to a manifest, a secret or ``/usr/share`` elsewhere on the machine was read, rendered and linted as the
    chart's (fuzz20). Links that loop, or lead to a FIFO or a device, are helm's to refuse, at once."""
    root = os.getcwd() if inside(directory, os.getcwd()) else directory
    todo, seen = [directory], {os.path.realpath(directory)}
    while todo:
        d = todo.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue  # helm says why in its own words
        for e in entries:
            try:
                link = e.is_symlink()
                if link and not inside(e.path, root):
                    raise InputError(f"the chart is not rendered: a symbolic link to {link_target(e.path)}, outside "
                                     f"{_root_text(root, directory)}; helm would read what it leads to (shardwise "
                                     "reads nothing from outside the repository)", e.path)
                if e.is_dir(follow_symlinks=True):
                    real = os.path.realpath(e.path) if link else None
                    if real is None or real not in seen:
                        if real is not None:
                            seen.add(real)
                        todo.append(e.path)
            except OSError:
                continue


def _check_values_file(path: str, where: str) -> None:
    """Refuse a ``--values`` file helm could not read in bounded time and memory: helm reads it whole, so a FIFO
    held the run until the timeout and ``/dev/zero`` grew helm past 3 GB until it crashed. A regular file of at
    most :data:`~..model.files.MAX_FILE_BYTES` passes (read once here; a URL is helm's to fetch, and ``-`` is
    helm's standard input)."""
    if "://" in path or path.strip() == "-":
        return
    try:
        data = read_file_bytes(path)
    except InputError as e:
        raise InputError(f"the chart is not rendered: --values {path}: {e.message}", where) from None
    cost = _yaml_cost(data, path)
    if cost is not None:  # fuzz24: helm read a values file of aliases that expand without end before it refused it
        raise InputError(f"the chart is not rendered: --values {path}: {cost.message}{_HELM_WHOLE}", path, cost.line)


_HELM_WHOLE = "; helm would read it whole, so shardwise hands helm no file it refuses to read itself"


def _yaml_cost(data: bytes, path: str) -> InputError | None:
    """The error of shardwise's own reader where it refuses ``data`` (the bytes of ``path``) for what reading it would
    cost (:class:`.yamlsrc.YamlTooCostly`), else None: a text that does not parse for another reason is left to the
    tool's own words."""
    try:
        list(load_all(decode_text(data, path), path))
    except YamlTooCostly as e:
        return e
    except InputError:
        pass
    return None


def _go_match(pattern: str, name: str) -> bool:
    """Go's ``path/filepath.Match`` (go1.22): ``*`` any run and ``?`` any one character but ``/``, ``[...]`` a class
    (``^`` negates it), ``\\`` escapes; a malformed pattern matches nothing."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                return False
            body = pattern[i + 1:end]
            neg = body.startswith("^")
            body = body[1:] if neg else body
            out.append(("[^" if neg else "[") + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    try:
        return re.fullmatch("".join(out), name) is not None
    except re.error:
        return False


def _go_bad_pattern(pattern: str) -> bool:
    """Whether Go's ``path/filepath.Match`` (go1.22, on Unix) answers ``ErrBadPattern`` for ``pattern``: it checks the
    whole pattern whatever the name, so a pattern is bad where a class is left open (``[a``), is empty or starts with
    ``-`` or ``]`` (``[]``, ``[-a]``), a range has no end (``[a-]``), or a ``\\`` ends the pattern or the class."""
    i, n = 0, len(pattern)

    def esc(j: int) -> int:  # Go's getEsc: one character of a class, escaped or not; -1 where malformed
        if j >= n or pattern[j] in "-]":
            return -1
        if pattern[j] == "\\":
            j += 1
            if j >= n:
                return -1
        j += 1
        return j if j < n else -1  # a class must go on past it (its `]`)

    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                return True
            i += 2
        elif c == "[":
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            ranges = 0
            while not (i < n and pattern[i] == "]" and ranges > 0):
                i = esc(i)
                if i < 0:
                    return True
                if pattern[i] == "-":
                    i = esc(i + 1)
                    if i < 0:
                        return True
                ranges += 1
            i += 1
        else:
            i += 1
    return False


def _helmignore_rules(directory: str) -> list[tuple[bool, bool, str]]:
    """The chart's ``.helmignore`` as helm parses it (helm v3.16.0 pkg/ignore/rules.go ``parseRule``): one pattern a
    line, blank lines and ``#`` comments skipped, ``!`` negates, a trailing ``/`` matches folders only; then helm's one
    default, ``templates/.?*``. Each as (negate, folders only, pattern). Only the top chart's file counts: helm's
    ``loader.LoadDir`` reads no subchart's ``.helmignore`` (subcharts are loaded from the parent's walk). A file that
    cannot be read counts as none: helm fails on it in its own words. A rule helm refuses (``parseRule``: one holding
    ``**``, or one ``filepath.Match`` calls malformed) fails helm's load of the whole chart (``ignore.ParseFile``'s
    error is ``LoadDir``'s): :class:`InputError` at its line, helm not run, no file of the chart read (review45: the
    rule was skipped here, and the files it names were read as if nothing ignored them)."""
    rules: list[tuple[bool, bool, str]] = []
    ignore = os.path.join(directory, ".helmignore")
    try:
        with open(ignore, encoding="utf-8", errors="replace") as f:
            lines = f.read(MAX_FILE_BYTES).splitlines()
    except OSError:
        lines = []
    for number, line in enumerate([*lines, "templates/.?*"], 1):
        rule = line.strip()
        if not rule or rule.startswith("#"):
            continue
        if "**" in rule or _go_bad_pattern(rule):
            why = ("double-star (**) syntax is not supported" if "**" in rule
                   else "syntax error in pattern (Go's filepath.Match)")
            raise InputError(f"the chart is not rendered: helm refuses the .helmignore rule `{rule}` at line {number}: "
                             f"{why}; helm loads no chart whose .helmignore holds one (a rule with no `/` matches "
                             "that name in every folder, `*.bak`; a folder's rule, `name/`, ignores all under it)",
                             ignore, number)
        negate = rule.startswith("!")
        rule = rule[1:] if negate else rule
        must_dir = rule.endswith("/")
        rules.append((negate, must_dir, rule.rstrip("/") if must_dir else rule))
    return rules


def _helm_ignores(rules: list[tuple[bool, bool, str]], name: str, is_dir: bool) -> bool:
    """Whether helm skips ``name`` (relative to the chart, ``/``-separated): pkg/ignore ``Rules.Ignore``, the first
    rule that decides wins; a pattern with no ``/`` is matched against the last element only, one with a leading
    ``/`` against the whole path from the chart."""
    for negate, must_dir, rule in rules:
        if rule.startswith("/"):
            hit = _go_match(rule[1:], name)
        elif "/" in rule:
            hit = _go_match(rule, name)
        else:
            hit = _go_match(rule, name.rsplit("/", 1)[-1])
        if negate:
            if (must_dir and not is_dir) or not hit:
                return True
            continue
        if must_dir and not is_dir:
            continue
        if hit:
            return True
    return False


def _check_chart_files(directory: str) -> None:
    """Read what helm loads of a chart and its subcharts folders (``values.yaml``, every file under ``templates/``,
    ``charts/*/``, and each packed subchart ``charts/*.tgz``: :func:`_check_packed_subchart`) through shardwise's own
    reader before helm runs: helm reads each whole, so a values file of aliases
    that expand without end, a template of 2 GiB (a sparse file) or a FIFO is refused here, at its path, never handed
    to helm (fuzz24). A values file must also parse within the bounds of :class:`.yamlsrc.YamlTooCostly`; a template
    is Go template text, only held to what any file may be (a regular file of at most
    :data:`~..model.files.MAX_FILE_BYTES`). What the chart's ``.helmignore`` excludes helm never opens, nor does this
    (mend27: an ignored ``templates/fixtures/`` of a 40 MiB blob or a FIFO, an ignored ``charts/old/``)."""
    rules = _helmignore_rules(directory)

    def ignored(path: str) -> bool:  # path under the chart; each folder on the way checked as helm's walk does
        parts = os.path.relpath(path, directory).replace(os.sep, "/").split("/")
        for i in range(1, len(parts)):
            if _helm_ignores(rules, "/".join(parts[:i]), True):
                return True
        return _helm_ignores(rules, "/".join(parts), os.path.isdir(path))

    todo, seen = [directory], set()
    while todo:
        chart = todo.pop()
        real = os.path.realpath(chart)
        if real in seen:
            continue
        seen.add(real)
        values = os.path.join(chart, "values.yaml")
        if os.path.lexists(values) and not ignored(values):
            try:
                data = read_file_bytes(values)
            except InputError as e:
                raise InputError(f"the chart is not rendered: {e.message}", values) from None
            cost = _yaml_cost(data, values)
            if cost is not None:
                raise InputError(f"the chart is not rendered: {cost.message}{_HELM_WHOLE}", values, cost.line)
        templates = os.path.join(chart, "templates")
        walked: set[str] = set()
        count = 0
        for top, dirs, files in os.walk(templates, followlinks=True):
            here = os.path.realpath(top)
            if here in walked or ignored(top):  # a link to a folder above it: helm refuses the loop in its own words
                dirs[:] = []
                continue
            walked.add(here)
            for f in sorted(files):
                if ignored(os.path.join(top, f)):
                    continue
                count += 1
                if count > MAX_CHART_FILES:
                    raise InputError(f"the chart is not rendered: its templates folder holds more than "
                                     f"{MAX_CHART_FILES:,} files{_TOO_MANY}", templates)
                try:
                    read_file_bytes(os.path.join(top, f))
                except InputError as e:
                    raise InputError(f"the chart is not rendered: {e.message}", os.path.join(top, f)) from None
        try:
            entries = sorted(os.scandir(os.path.join(chart, "charts")), key=lambda e: e.name)
        except OSError:
            entries = []
        # every folder of charts/ is a subchart to helm's loader (load.go: its name is the first path component under
        # charts/), which parses its values.yaml before it finds Chart.yaml missing (mend29: one without it was
        # handed to helm unread)
        todo.extend(e.path for e in entries if e.is_dir() and not ignored(e.path))
        for packed in (e.path for e in entries if e.name.endswith(".tgz") and not e.is_dir()):
            if not ignored(packed):
                _check_packed_subchart(packed)


#: helm's bounds on a chart archive (helm v3 pkg/chart/loader/archive.go): what all its files expand to, and one file.
_HELM_ARCHIVE_BYTES = 100 * 1024 * 1024
_HELM_ARCHIVE_FILE_BYTES = 5 * 1024 * 1024
#: The most files shardwise hands helm in one chart's templates folder or one packed subchart. helm bounds none
#: (v3.22.0 pkg/chart/loader/archive.go ``LoadArchiveFiles`` bounds only bytes, :data:`_HELM_ARCHIVE_BYTES` in all and
#: :data:`_HELM_ARCHIVE_FILE_BYTES` a file; load.go and directory.go no count), so 100 MiB of tar headers is 200,000
#: empty files: fuzz26, a ``charts/sub.tgz`` of 100,000 tiny templates took 7.5 s of CPU and 16 s under load, and
#: passed. A chart a person writes holds tens or hundreds of templates.
MAX_CHART_FILES = 10_000
_TOO_MANY = (" (helm bounds a chart's bytes, not its files; shardwise stops there, as rendering and reading each one "
             "grows with their number): split it, or render it yourself: helm template NAME DIR | shardwise lint -")


def _helm_archive_name(name: str) -> str | None:
    """The name helm gives an archive's entry in the chart it loads (helm v3.22.0 pkg/chart/loader/archive.go,
    ``LoadArchiveFiles``): the first path component (the chart's folder, whatever its name, ``.`` too) dropped, ``\\``
    the separator where the name holds one, then ``path.Clean``; None where helm refuses the entry (an absolute path,
    one out of the chart). fuzz26: ``sub/./values.yaml``, ``./values.yaml`` and ``sub/x/../values.yaml`` are the
    chart's values.yaml to helm, and an alias bomb in one was handed to it unread (only ``sub/values.yaml`` was)."""
    sep = "\\" if "\\" in name else "/"
    rest = sep.join(name.split(sep)[1:]).replace(sep, "/")
    if rest.startswith("/"):
        return None  # helm: "chart illegally contains absolute paths"
    clean = posixpath.normpath(rest) if rest else "."
    if clean == "." or clean.startswith(".."):
        return None
    return clean


def _check_packed_subchart(path: str) -> None:
    """A packed subchart, ``charts/NAME.tgz``, read as helm loads it (its loader reads every ``charts/*.tgz`` whole and
    loads it as an archive: pkg/chart/loader/load.go) through shardwise's own reader: a FIFO, a device or a file over
    :data:`~..model.files.MAX_FILE_BYTES` is refused at its path, and so is a ``values.yaml`` of the archive's chart
    that shardwise's reader refuses for what parsing it would cost (aliases that expand without end), as a
    subchart folder's values.yaml is (mend29: a packed subchart went to helm unread). An archive helm refuses itself
    (not gzip, not tar, beyond its decompressed bounds) is left to helm's words; no more than those bounds is
    decompressed here."""
    import tarfile
    import zlib
    from io import BytesIO

    try:
        data = read_file_bytes(path)
    except InputError as e:
        raise InputError(f"the chart is not rendered: {e.message}", path) from None
    try:
        unzip = zlib.decompressobj(16 + zlib.MAX_WBITS)
        raw = unzip.decompress(data, _HELM_ARCHIVE_BYTES + 1)
        if len(raw) > _HELM_ARCHIVE_BYTES:
            return  # beyond helm's bound: helm refuses it ("chart exceeds maximum decompressed size")
        with tarfile.open(fileobj=BytesIO(raw), mode="r:") as tar:
            count = 0
            for member in tar:
                count += not member.isdir()
                if count > MAX_CHART_FILES:
                    raise InputError(f"the chart is not rendered: this packed subchart holds more than "
                                     f"{MAX_CHART_FILES:,} files{_TOO_MANY}", path)
                if not (member.isfile() and _helm_archive_name(member.name) == "values.yaml"):
                    continue
                if member.size > _HELM_ARCHIVE_FILE_BYTES:
                    return  # helm refuses it in its own words
                held = tar.extractfile(member)
                text = held.read(_HELM_ARCHIVE_FILE_BYTES + 1) if held is not None else b""
                where = f"{path} ({member.name})"
                cost = _yaml_cost(text, where)
                if cost is not None:
                    raise InputError(f"the chart is not rendered: {member.name} in this packed subchart: "
                                     f"{cost.message}{_HELM_WHOLE}", path)
    except (zlib.error, tarfile.TarError, EOFError, OSError):
        return  # not an archive helm can load: helm says why


#: Where helm's error says it is (helm v3.22): a template's ``(CHART/templates/x.yaml:9)``, ``(…:1:3)`` or
#: ``template: CHART/templates/x.yaml:8:22:``, where CHART is the chart's own name; a file helm could not read,
#: ``YAML parse error on CHART/templates/x.yaml:`` (a line of its output, not of the template: the file only),
#: ``cannot load values.yaml:``/``Chart.yaml:`` and ``failed to parse FILE:`` (a --values file), with goyaml's
#: ``yaml: line N:`` after them.
_HELM_AT = re.compile(r"(?:\(|template: )([^\s():]+/templates/[^\s():]+):(\d+)")
_HELM_ON = re.compile(r"YAML parse error on ([^\s:]+/templates/[^\s:]+):")
_HELM_FILE = re.compile(r"(?:cannot load (values\.yaml|Chart\.yaml)|failed to parse ([^:]+)): (?:.*?yaml: line (\d+))?")


def helm_error_location(message: str, directory: str,
                        values: list[str] | tuple[str, ...] = ()) -> tuple[str | None, int | None]:
    """The file and line of a failed ``helm template``'s error (:data:`_HELM_AT` and its kin), as this run names the
    chart's files (``DIR/templates/x.yaml``); ``(None, None)`` where it names none. Was always the chart's
    ``Chart.yaml`` with no line (hostile9)."""
    m = _HELM_AT.search(message)
    if m:
        return os.path.join(directory, m.group(1).split("/", 1)[1]), int(m.group(2))
    chart, packed = _helm_subchart(message, directory)
    m = _HELM_ON.search(message)
    if m:
        return os.path.join(directory, m.group(1).split("/", 1)[1]), None
    m = _HELM_FILE.search(message)
    if m:
        line = int(m.group(3)) if m.group(3) else None
        if m.group(1):
            if packed is not None:  # a file in a packed subchart: the archive is what the repository holds
                return packed, None
            return os.path.join(chart, m.group(1)), line
        if m.group(2) in values:
            return m.group(2), line
    if packed is not None:  # anything else helm refused in a packed subchart ("chart illegally references ...")
        return packed, None
    return None, None


#: helm's loader wraps a subchart's failure in ``error unpacking subchart NAME in PARENT: `` (helm v3
#: pkg/chart/loader/load.go, LoadFiles), NAME the first path component under the parent's ``charts/`` (a folder, or
#: a packed ``NAME.tgz``); nested subcharts nest the prefix.
_HELM_SUBCHART = re.compile(r"error unpacking subchart ([^/\s:]+) in [^\s:]+: ")


def _helm_subchart(message: str, directory: str) -> tuple[str, str | None]:
    """The chart folder a helm error is about (``directory``, or ``directory/charts/NAME/...`` after each
    :data:`_HELM_SUBCHART` prefix) and the packed subchart (``charts/NAME.tgz``) it is in, if any: the first archive
    on the way, as the files in it are not in the repository (fuzz25: a broken values.yaml of ``charts/sub.tgz`` or of
    ``charts/sub/`` was placed at the chart's own values.yaml, a file that may not exist)."""
    chart, at = directory, None
    for m in _HELM_SUBCHART.finditer(message):
        if at is not None and m.start() != at:
            break  # only the prefixes that follow one another
        at = m.end()
        chart = os.path.join(chart, "charts", m.group(1))
        if m.group(1).endswith(".tgz"):  # helm: filepath.Ext(n) == ".tgz", loaded as an archive
            return chart, chart
    return chart, None


#: The header klog (kubernetes/klog, klog.go: "Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg") writes before each line
#: kubectl logs: ``E1206 20:16:40.943496   21334 run.go:72] "command failed" err="kustomization.yaml is empty"``. Its
#: time and process id made a report differ at every run of the same inputs (fuzz18: seed 7301 case 858).
_KLOG_HEADER = re.compile(r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d{6}\s+\d+ [^\s\]]+:\d+\](?: |$)")


def _children_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def _limit(pid: int) -> None:
    """:data:`_MEMORY_BYTES` of data and :data:`_CPU_S` of CPU for the tool just started (its children inherit them;
    the hard CPU limit kills it, Go ignores the soft limit's ``SIGXCPU``). Set from here, not in the child between
    fork and exec (``preexec_fn`` is not safe beside threads): the tool has run for a few microseconds, no more.
    Where the system has no ``prlimit`` (not Linux) the tool runs as before, under the wall-time limit alone."""
    prlimit = getattr(resource, "prlimit", None)
    if prlimit is None:
        return
    for which, value in ((resource.RLIMIT_DATA, _MEMORY_BYTES), (resource.RLIMIT_CPU, _CPU_S)):
        try:
            soft, hard = prlimit(pid, which)
            if hard == resource.RLIM_INFINITY or hard > value:
                prlimit(pid, which, (value, value))
        except (OSError, ValueError):
            pass  # the tool has already ended, or the system refuses: the wall-time limit still holds


#: A Go program's crash (helm and kustomize are Go): ``fatal error: …`` (the runtime's ``throw``) or ``panic: …``,
#: after it the dump of every goroutine, whose last lines said nothing of why (``created by main.runInstall in
#: goroutine 1``).
_GO_FATAL = re.compile(r"^(?:runtime: .*\n)*(?:fatal error|panic): .+", re.M)
#: Go's crash by a signal in its own runtime, not a program's panic: ``fatal error: unexpected signal during runtime
#: execution`` (``sigpanic`` where the runtime cannot panic) and ``fatal error: fault`` (after ``unexpected fault
#: address``), then ``[signal SIGSEGV: segmentation violation code=… addr=… pc=…]``; or the bare form of
#: ``fatalsignal`` (``SIGSEGV: segmentation violation``, then ``PC=0x… m=3 sigcode=1 addr=0x…`` and a register dump,
#: ``rax 0x0`` … ``cs 0x33 fs 0x0 gs 0x0``). Go 1.26 runtime/signal_unix.go (``sigpanic``, ``fatalsignal``) and
#: runtime/panic.go (``dopanic_m``). helm and kustomize are pure Go, so such a crash is the runtime failing, and under
#: shardwise's memory limit that is the limit: fuzz26, ``range until 100000000`` ended in it in some runs and in
#: ``fatal error: runtime: out of memory`` in others. A ``panic: runtime error: invalid memory address or nil pointer
#: dereference`` with the same ``[signal SIGSEGV …]`` line is the program's own nil pointer: said as it is.
_GO_SIGNAL = re.compile(r"^(?:fatal error: (?:unexpected signal during runtime execution|fault)$"
                        r"|SIG[A-Z0-9]+: [^\n]+\nPC=0x[0-9a-f]+ m=\d+ sigcode=)", re.M)
#: What Go says of memory it could not have: ``fatal error: runtime: out of memory``, ``runtime: out of memory: cannot
#: allocate 4194304-byte block``, ``fatal error: runtime: cannot allocate memory`` (runtime/malloc.go, mheap.go), a
#: thread not made for want of memory (``runtime: failed to create new OS thread (have 5 already; errno=12)``, ENOMEM,
#: runtime/os_linux.go ``newosproc``) and ``fork/exec …: cannot allocate memory`` of a program the tool runs.
_GO_MEMORY = re.compile(r"out of memory|cannot allocate memory|\berrno=12\)")
#: The same, where no ``fatal error:`` follows (the dump cut short, or the tool's own error about a program it could
#: not start): only at a line's start, so that a template's ``fail "out of memory"`` is not read as memory.
_GO_MEMORY_LINE = re.compile(r"^(?:runtime: (?:out of memory|cannot allocate memory|failed to create new OS thread .*"
                             r"errno=12\))|.*\bfork/exec [^\n:]+: cannot allocate memory)", re.M)
#: os/exec's ``ProcessState.String`` of a program the tool ran (kustomize's helm, helm's post-renderer) that was
#: killed: ``signal: killed`` (SIGKILL: the hard CPU limit it inherits, or the system's out-of-memory killer).
_GO_CHILD_KILLED = re.compile(r"\bsignal: killed\b")


def _memory_said() -> str:
    return f"out of memory: shardwise lets helm and kustomize use at most {size_text(_MEMORY_BYTES)} of memory"


def _go_crash(head: str) -> str | None:
    """What a Go crash in ``head`` (the start of the tool's stderr) says: its ``fatal error:`` line, with the first of
    the runtime's lines just before it (``runtime: goroutine stack exceeds 1000000000-byte limit``), or, for memory,
    shardwise's limit; a crash by a signal in Go's runtime (:data:`_GO_SIGNAL`) is said as memory, and a program
    the tool ran that was killed (``signal: killed``) by both limits; None when it is no crash."""
    m = _GO_FATAL.search(head)
    if _GO_SIGNAL.search(head) or (m is not None and _GO_MEMORY.search(m.group())):
        # where the runtime noticed it varies from run to run ("allocating heap arena metadata", "runtime: out of
        # memory: cannot allocate 4194304-byte block", a SIGSEGV in the runtime): the same input is said the same way
        return _memory_said()
    if m is None:
        if _GO_CHILD_KILLED.search(head):
            return (f"a program it ran was killed (signal: killed): shardwise lets helm and kustomize and what they "
                    f"run use at most {size_text(_MEMORY_BYTES)} of memory and {_CPU_S} s of CPU")
        if _GO_MEMORY_LINE.search(head):
            return _memory_said()
        return None
    lines = m.group().splitlines()
    said = lines[-1].strip()
    if len(lines) > 1:
        said = f"{said} ({lines[0].removeprefix('runtime: ').strip()})"
    return said


def _run(cmd: list[str], where: str, what: str) -> str:
    """The standard output of ``cmd`` (helm or kustomize), or :class:`InputError`: it could not start, failed, ran
    past :data:`_TIMEOUT_S` (times the load per core, read as it starts), or wrote more than
    :data:`~..model.files.MAX_FILE_BYTES` (the most shardwise reads from one file). The output is read as it comes
    and the tool is stopped at the limit: a chart that renders without end (``range until 100000000``) held all of
    it in memory before."""
    used = _children_cpu()
    limit_s = wall_limit(_TIMEOUT_S)
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise InputError(f"cannot run {what}: {e.strerror or e}", where) from None
    _limit(proc.pid)
    stderr: list[bytes] = []
    head: list[bytes] = []

    def drain() -> None:  # the first 16 KiB and the last 64 KiB of stderr, the rest read and dropped (a full pipe
        assert proc.stderr is not None  # would stall the tool); a Go crash says why at the head of its dump
        while chunk := proc.stderr.read(1 << 16):
            if sum(map(len, head)) < 1 << 14:
                head.append(chunk[:1 << 14])
            stderr[:] = [b"".join([*stderr, chunk])[-(1 << 16):]]

    expired = threading.Event()

    def expire() -> None:
        expired.set()
        proc.kill()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    timer = threading.Timer(limit_s, expire)
    timer.start()
    chunks: list[bytes] = []
    size, over = 0, False
    out = proc.stdout
    assert out is not None
    try:
        while chunk := os.read(out.fileno(), 1 << 20):
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                over = True
                proc.kill()
                break
            chunks.append(chunk)
    finally:
        timer.cancel()
        proc.wait()
        reader.join(5)
        out.close()
        if proc.stderr is not None:
            proc.stderr.close()
    if over:
        raise InputError(f"{what} wrote more than {size_text(MAX_FILE_BYTES)}, the most shardwise reads from one "
                         "file: stopped", where)
    if expired.is_set():
        scaled = f" ({_TIMEOUT_S} s times the machine's load per core)" if limit_s > _TIMEOUT_S else ""
        raise InputError(f"{what} did not finish in {limit_s} s{scaled}", where)
    if proc.returncode != 0:
        if proc.returncode == -signal.SIGKILL and _children_cpu() - used >= _CPU_S / 2:
            raise InputError(f"{what} used more than {_CPU_S} s of CPU, the most shardwise lets it use: stopped", where)
        crash = _go_crash(b"".join(head).decode("utf-8", "replace"))
        if crash is not None:
            raise InputError(f"{what} failed: {crash}", where)
        lines = _error_lines(b"".join(stderr).decode("utf-8", "replace"))
        detail = "; ".join(lines[-3:]) or f"exit status {proc.returncode}"
        if "kustomize" in what:
            detail = repository_relative(detail)
        raise InputError(f"{what} failed: {detail}", where)
    return b"".join(chunks).decode("utf-8", "replace")


def _error_lines(text: str) -> list[str]:
    """The lines of a tool's ``text`` (its standard error), each stripped of its klog header, empty ones dropped, and
    a Go tool's ``Error: …`` message kept whole, as one: the lines that follow it, up to the next ``Error: `` or klog
    line, continue it (cobra writes the error once, ``Error: %v``), each joined to it with its line break written
    ``\\n`` (a path or value that holds one), or with ``; `` after an empty line (helm's ``…: no model set`` then
    ``Use --debug flag to render out invalid YAML``, a paragraph of its own). fuzz26: a kustomize resource named
    ``"evil\\nshardwise: passed\\n.yaml"`` was said by the last three pieces of its error (``.yaml' : lstat …;
    shardwise: passed; .yaml: no such file or directory``), its start lost. Only ``\\n`` and ``\\r`` end a line
    (``str.splitlines`` also breaks at ``\\x1c``-``\\x1e``, ``\\x85`` and ``\\u2028``, which the report escapes)."""
    out: list[str] = []
    going, gap = False, False
    for raw in re.split(r"\r\n|\r|\n", text):
        line = raw.strip()
        klog = _KLOG_HEADER.match(line) is not None
        line = _KLOG_HEADER.sub("", line)
        if not line:
            gap = True
            continue
        if going and not klog and not line.startswith("Error: "):
            out[-1] += ("; " if gap else "\\n") + line
        else:
            out.append(line)
            going = line.startswith("Error: ")
        gap = False
    return out


def repository_relative(text: str) -> str:
    """``text`` (a tool's error) with each absolute path inside the run's folder (the repository root) written
    relative to it, as every other path of a report is (review45): kustomize makes each path it reads absolute before
    it says it (``evalsymlink failure on '/home/ci/work/repo/overlays/prod/gone.yaml'``, ``must resolve to a file``,
    ``cycle detected: candidate root '/tmp/…/badkust'``: sigs.k8s.io/kustomize v5.8.1 api/internal/target and
    kyaml/filesys ``ConfirmDir``), so its words named the checkout's folder, a temporary one in CI. The folder itself
    is ``.``; a path outside it is left as kustomize wrote it."""
    here = os.getcwd()
    for root in sorted({here, os.path.realpath(here)}, key=len, reverse=True):
        if root == os.sep:
            continue
        text = re.sub(r"(?<![\w.~/-])" + re.escape(root) + r"(/|(?![^\s'\":;,)]))",
                      lambda m: "" if m.group(1) else ".", text)
    return text


# ------------------------------------------------------------------------------------ source mapping


def split_sources(rendered: str) -> list[tuple[str | None, str]]:
    """``helm template`` output as ``(source, text)`` pieces, one per rendered document, in order; the
    text starts on the line after the ``# Source:`` comment. Text before the first comment (or output
    without any) has source None."""
    pieces: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in rendered.splitlines(keepends=True):
        m = _SOURCE.match(line.rstrip("\n"))
        if m:
            pieces.append((m.group(1), []))
            continue
        if line.rstrip() == "---":
            continue  # the separator before the next "# Source:" belongs to no document
        pieces[-1][1].append(line)
    return [(src, "".join(lines)) for src, lines in pieces if src is not None or "".join(lines).strip()]


def _literal(line: str) -> str:
    """The part of a template line before its first action, stripped (``"image: "`` of
    ``image: "{{ .Values.image }}"``)."""
    return line.split("{{", 1)[0].strip()


def line_map(rendered: str, template: str) -> list[int]:
    """For each line of ``rendered`` (index 0 = line 1), the template line (1-based) it came from (see
    the module docstring); 1 before the first match."""
    literals = [_literal(t) for t in template.splitlines()]
    out: list[int] = []
    last = 0  # index of the last matched template line (-1 based: 0 means none yet)
    for line in rendered.splitlines():
        text = line.strip()
        hit = None
        if text and not text.startswith("#"):
            for j in range(last, len(literals)):
                lit = literals[j]
                if lit and len(lit) >= 2 and not lit.startswith("#") and text.startswith(lit):
                    hit = j + 1
                    break
        if hit is not None:
            last = hit
        out.append(last or 1)
    return out


def _chart_path(directory: str, source: str) -> str:
    """``mychart/templates/x.yaml`` (as Helm names it) → ``DIR/templates/x.yaml``."""
    parts = source.replace("\\", "/").split("/", 1)
    return os.path.join(directory, parts[1]) if len(parts) == 2 else os.path.join(directory, source)


def helm_inventory(rendered: str, directory: str, namespace: str | None = None) -> Inventory:
    """The inventory of ``helm template`` output for the chart in ``directory``, each object and error
    pointing at its template file and line; ``namespace`` the release's, given to the objects that name none."""
    inv = Inventory()
    for source, text in split_sources(rendered):
        if source is None:
            part = load_text(text, f"{directory} (helm template)", namespace)
            inv.extend(part)
            continue
        path = _chart_path(directory, source)
        virtual = f"{path} (rendered)"
        part = load_text(text, virtual, namespace)
        try:
            template: str | None = read_file_bytes(path).decode("utf-8")  # a regular file only, bounded
        except (InputError, UnicodeDecodeError):
            template = None  # a subchart from a .tgz: point at the rendered document's own lines
        if template is not None:
            _relocate(part, virtual, path, _lookup(line_map(text, template)))
        inv.extend(part)
    if not inv.sources:
        inv.sources.append(directory)
    return inv


#: A template action that only prints a value: ``{{ .Values.a.b }}``, ``{{- $.Values.a -}}``. Helm prints a value
#: that no values file sets as nothing (``missingkey`` is not ``error`` in ``helm template``), so the line renders
#: empty there; an action with a pipeline (``| default 2``, ``| quote``) or a function is left alone.
_BARE_VALUE = re.compile(r"\{\{-?\s*\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_-]*)+)\s*-?\}\}")


def _merge(into: dict[str, Any], over: Any) -> None:
    """Helm's merge of one values file over those before it (helm v3 ``pkg/cli/values/options.go`` mergeMaps): maps
    key by key, anything else replaces, a null kept as null (it deletes only when coalesced over the chart's
    values, :func:`_coalesce`)."""
    if not isinstance(over, dict):
        return
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = v


def _coalesce(given: dict[str, Any], defaults: Any) -> None:
    """The release's values ``given`` coalesced over the chart's own ``defaults`` as helm does (mend25; helm v3
    ``pkg/chartutil/coalesce.go`` coalesceValues and CoalesceTables): a key the release sets to null is deleted, the
    chart's default with it ("When the YAML value is null, we remove the value's key"), at any depth of nested
    maps; a key it does not set takes the default; its own value wins over a default otherwise."""
    if not isinstance(defaults, dict):
        return
    for key, default in defaults.items():
        if key not in given:
            given[key] = default
        elif given[key] is None:
            del given[key]
        elif isinstance(given[key], dict) and isinstance(default, dict):
            _coalesce(given[key], default)


def _values_given(directory: str, values: list[str] | tuple[str, ...]) -> dict[str, Any] | None:
    """The chart's ``values.yaml`` with the values files coalesced over it, as helm does (:func:`_merge`,
    :func:`_coalesce`: a null a values file writes deletes the chart's default); None where one cannot be read
    (then nothing is said of a value)."""
    own = os.path.join(directory, "values.yaml")
    read: list[dict[str, Any]] = []
    for path in [own, *values] if os.path.exists(own) else list(values):
        merged: dict[str, Any] = {}
        try:
            docs = list(load_all(decode_text(read_file_bytes(path), path), path))
        except (InputError, UnicodeDecodeError):
            return None
        for doc in docs:
            _merge(merged, doc)
        read.append(merged)
    chart = read.pop(0) if os.path.exists(own) and read else {}
    given: dict[str, Any] = {}
    for one in read:
        _merge(given, one)
    _coalesce(given, chart)
    return given


def _unset(values: dict[str, Any], path: list[str], sets: list[tuple[str, str]]) -> bool:
    """Whether the values path ``a.b`` is set nowhere: absent from ``values`` (a map missing the key on the way) or
    null there, and named by no ``--set`` (any of whose keys starts with it, or it with one of them), the last that
    names it deciding. ``--set a.b=null`` (``null`` in any case) or ``--set a=null`` gives no value: helm's strvals
    reads it as nil (helm v3 ``pkg/strvals/parser.go`` typedVal: ``strings.EqualFold(val, "null")``), and coalescing
    deletes the key (:func:`_coalesce`), so the template prints nothing (mend29: it counted as given);
    ``--set-string a.b=null`` is the string ``null``."""
    dotted = ".".join(path)
    decided: bool | None = None
    for flag, s in sets:
        for piece in s.split(","):
            key, _eq, value = piece.partition("=")
            key = key.strip()
            if key and (key == dotted or key.startswith(dotted + ".") or key.startswith(dotted + "[")
                        or dotted.startswith(key + ".")):
                deleted = (flag == "--set" and value.lower() == "null"  # as written: " null" is a string
                           and (key == dotted or dotted.startswith(key + ".")))
                decided = deleted
    if decided is not None:
        return decided
    node: Any = values
    for key in path:
        if not isinstance(node, dict):
            return False  # a list or a scalar on the way: not a missing key
        if key not in node:
            return True
        node = node[key]
    return node is None  # null: helm prints nothing of it (a key no default gives, set to null by a values file)


def name_unset_values(inv: Inventory, directory: str, values: list[str] | tuple[str, ...],
                      sets: list[tuple[str, str]]) -> None:
    """newuser15: an input error, or a command vLLM refuses (SW003), at a line of the chart's own templates that prints
    a value no values file (the chart's ``values.yaml`` included) and no ``--set`` sets (``--tensor-parallel-size {{
    .Values.tensorParallelSize }}``, rendered ``--tensor-parallel-size`` and nothing) says which value that is and to
    give it, where it said only what the rendered text lacked (``--tensor-parallel-size: expects a value``)."""
    templates = os.path.join(directory, "templates") + os.sep
    given: list[dict[str, Any] | None] = []
    lines: dict[str, list[str]] = {}

    def note(file: str | None, line: int | None) -> str:
        if not file or not line or not file.startswith(templates):
            return ""
        if file not in lines:
            try:
                lines[file] = read_file_bytes(file).decode("utf-8").splitlines()
            except (InputError, UnicodeDecodeError):
                lines[file] = []
        text = lines[file]
        # the line and the lines after it that :func:`line_map` points at it (no literal text of their own:
        # ``- {{ .Values.command }}`` under ``args:``), each with the values it prints
        refs: list[tuple[int, str]] = []
        n = line
        while 0 < n <= len(text) and (n == line or len(_literal(text[n - 1])) < 2):
            refs += [(n, m.group(1)[1:]) for m in _BARE_VALUE.finditer(text[n - 1])]
            n += 1
        if not refs:
            return ""
        if not given:
            given.append(_values_given(directory, values))
        merged = given[0]
        if merged is None:
            return ""
        missing = list(dict.fromkeys((n, r) for n, r in refs if _unset(merged, r.split("."), sets)))
        if not missing:
            return ""
        said = " and ".join(f"{{{{ .Values.{r} }}}} at line {n}" for n, r in missing)
        names = ", ".join(dict.fromkeys(f"`{r}`" for _, r in missing))
        return (f" (the template prints {said}, a value that no values file (values.yaml included) and no --set "
                f"gives, so helm rendered it empty: give {names} in the release's values)")

    for e in inv.errors:
        e.message += note(e.file, e.line)
    for i, issue in enumerate(inv.launch_issues):
        if issue.crash:
            said = note(issue.location.file, issue.location.line)
            if said:
                inv.launch_issues[i] = dataclasses.replace(issue, reason=issue.reason + said)


def _lookup(mapping: list[int]) -> Callable[[int], int]:
    return lambda n: mapping[n - 1] if 0 < n <= len(mapping) else n


def _relocate(obj: Any, old: str, new: str, line: Callable[[int], int],
              place: Callable[[int], tuple[str, int] | None] | None = None) -> None:
    """Replace every location in ``obj`` (an inventory and what it holds) that names ``old``: file ``new``,
    line mapped through ``line``; or, where ``place`` gives a file and line for the line, those."""
    model_module = Inventory.__module__  # (Location's own module is model.location)
    seen: set[int] = set()

    def fix(value: Any) -> Any:
        if isinstance(value, Location):
            if value.file == old:
                at = place(value.line) if place is not None and value.line else None
                if at is not None:
                    return Location(at[0], at[1], value.urn)
                return Location(new, line(value.line) if value.line else value.line, value.urn)
            return value
        if isinstance(value, InputError):
            if value.file == old:
                at = place(value.line) if place is not None and value.line else None
                if at is not None:
                    value.file, value.line = at
                else:
                    value.file = new
                    if value.line:
                        value.line = line(value.line)
                value.args = (str(value),)
            return value
        if isinstance(value, str) or id(value) in seen:
            return value
        if isinstance(value, list):
            seen.add(id(value))
            value[:] = [fix(v) for v in value]
        elif isinstance(value, dict):
            seen.add(id(value))
            for k in list(value):
                value[k] = fix(value[k])
        elif isinstance(value, tuple):
            return type(value)(*map(fix, value)) if hasattr(value, "_fields") else tuple(fix(v) for v in value)
        elif dataclasses.is_dataclass(value) and type(value).__module__ == model_module:
            seen.add(id(value))
            for f in dataclasses.fields(value):
                current = getattr(value, f.name)
                updated = fix(current)
                if updated is not current:
                    object.__setattr__(value, f.name, updated)
        return value

    fix(obj)
    if isinstance(obj, Inventory):
        obj.sources[:] = [new if s == old else s for s in obj.sources]
        obj.skipped_files[:] = [(new if f == old else f, why) for f, why in obj.skipped_files]


def relabel(inv: Inventory, rename: Callable[[str], str]) -> None:
    """Every file name in ``inv`` (its sources, skipped files, and each location and input error it holds)
    passed through ``rename``; lines kept."""
    for old in sorted({*inv.sources, *(f for f, _ in inv.skipped_files), *_files_in(inv)}):
        new = rename(old)
        if new != old:
            _relocate(inv, old, new, lambda n: n)


def _files_in(inv: Inventory) -> set[str]:
    """The file of every location and input error ``inv`` holds, at any depth (newuser17: a kustomize build's object
    is at its base's file and a flag of it at the patch's, which a GitOps object's label must reach too)."""
    model_module = Inventory.__module__
    found: set[str] = set()
    seen: set[int] = set()
    todo: list[Any] = [inv]
    while todo:
        value = todo.pop()
        if isinstance(value, Location | InputError):
            if value.file:
                found.add(value.file)
            continue
        if isinstance(value, str) or id(value) in seen:
            continue
        if isinstance(value, list | tuple):
            seen.add(id(value))
            todo.extend(value)
        elif isinstance(value, dict):
            seen.add(id(value))
            todo.extend(value.values())
        elif dataclasses.is_dataclass(value) and type(value).__module__ == model_module:
            seen.add(id(value))
            todo.extend(getattr(value, f.name) for f in dataclasses.fields(value))
    return found

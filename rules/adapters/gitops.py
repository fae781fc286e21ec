"""GitOps objects whose source is this checkout, rendered as Argo CD or Flux would render them.

An Argo CD ``Application`` (``spec.source`` or each of ``spec.sources``), a Flux ``HelmRelease`` (its chart from a
``GitRepository``) or a Flux ``Kustomization`` names a chart or a kustomize folder and the values to render it with.
Where that source is the repository being linted, the workload the cluster will run is in the inputs: it is rendered
here and linted like a chart or kustomization named on the command line (:mod:`.charts`). A source is this checkout
when

- its repository is the checkout's: Argo CD's ``repoURL``, or the ``url`` of the Flux ``GitRepository`` (of the inputs)
  that ``sourceRef`` names, equal to ``git config --get remote.origin.url`` once both are normalised (scheme, user,
  ``git@host:`` and ``ssh://`` spellings, a trailing ``.git`` or ``/``, letter case of the host); no network;
- its revision is the one checked out, where that can be told: no revision, ``HEAD``, the checked-out branch, a tag
  on the checked-out commit, or a prefix of that commit (Argo CD's ``targetRevision``; Flux's ``spec.ref`` branch,
  tag or commit), or the branch the checkout stands for (:func:`stands_for`: ``--gitops-revision``, else a pull
  request's target branch as the CI names it, else on a detached HEAD the branch a CI names for a push: a pull
  request's job checks out a detached merge commit, which proposes what the target branch will hold). Any other
  revision may hold other files: not rendered;
- its ``path`` (Argo CD) or ``chart: ./path`` (Flux) is a folder under the repository root holding a ``Chart.yaml``
  or a kustomization.

Helm values are merged in Argo CD's order (its user guide, "Helm": "parameters > valuesObject > values > valueFiles >
helm repository values.yaml"): ``valueFiles`` (relative to the chart; ``$ref/...`` through a ``ref`` source that is this
checkout too), then ``valuesObject``, or where it is not written the ``values`` text (never both), then ``parameters``
(``--set``, ``--set-string`` with ``forceString``). The release is ``helm.releaseName``, else the Application's name
(Flux: ``releaseName``, else ``[targetNamespace-]name``), the namespace ``spec.destination.namespace`` (Flux:
``targetNamespace``, else the object's). Flux's ``values`` are inline; a release with ``valuesFrom`` (ConfigMaps or
Secrets merged under them) is not rendered.

Each rendered object points at its template line as a chart named on the command line does, in a file named
``TEMPLATE (via KIND NAMESPACE/NAME)``: a finding says which GitOps object it came through, and the same template
linted directly (the chart named on the command line) shows under its plain name, so a reviewer who sees two
findings at one template line sees why (two releases of one chart, with different values).

What is not rendered stays as before (SW005 where the object names vLLM), and SW005's message says exactly why:
another repository, a Helm repository or OCI chart, another revision, a path that is not there, a field an
ApplicationSet's generator fills in (``{{path}}``: unknown until the generator runs, not guessed). A repository is
told to be this one only by the checkout's ``origin``: with no remote (or outside a git checkout) no source is.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..model import Inventory, LaunchIssue, Location
from ..model.errors import InputError
from ..model.files import inside
from ..model.wall import wall_limit
from .load import GITOPS_MARKS, gitops_text
from .renderkind import render_kind
from .yamlsrc import load_documents, read_text

#: The GitOps kinds read here, by API group.
ARGO_GROUP, HELM_GROUP, KUSTOMIZE_GROUP, SOURCE_GROUP = (
    "argoproj.io", "helm.toolkit.fluxcd.io", "kustomize.toolkit.fluxcd.io", "source.toolkit.fluxcd.io")
_MARKERS = GITOPS_MARKS
_TEMPLATED = re.compile(r"\{\{.*?\}\}")


@dataclass
class Checkout:
    """The repository being linted: its root, normalised remote URL, branch, commit and tags on it."""

    root: str
    remote: str | None
    branch: str | None
    commit: str | None
    tags: frozenset[str]
    #: The branch this checkout also stands for (:func:`stands_for`): a pull request's target branch, the branch a
    #: CI names for a push on a detached HEAD, or ``--gitops-revision``; and who said it.
    stands_for: str | None = None
    stands_by: str | None = None

    def revision_why(self, revision: str | None) -> str | None:
        """None when ``revision`` is the checked-out one, else why it is not (or cannot be told)."""
        rev = (revision or "").strip()
        branch = rev.removeprefix("refs/heads/")
        if rev in ("", "HEAD") or branch == self.branch or rev in self.tags or rev.removeprefix("refs/tags/") in \
                self.tags or (self.stands_for and branch.removeprefix("refs/tags/") == self.stands_for):
            return None
        if self.commit and re.fullmatch(r"[0-9a-f]{7,40}", rev) and self.commit.startswith(rev):
            return None
        here = self.branch or (self.commit or "")[:12] or "unknown"
        if self.stands_for:
            here += f", standing for {self.stands_for} by {self.stands_by}"
        return (f"its revision {rev!r} is not the one checked out here ({here}), so the files it renders may differ "
                f"from these; if this checkout stands for {branch}, say so with --gitops-revision {branch} (or "
                "gitops_revision in the config file)")


#: A pull request's target branch, as each CI names it: GitHub Actions (``pull_request``/``pull_request_target``
#: events only; empty on others), GitLab merge-request pipelines, Azure Pipelines PR builds (``refs/heads/main``
#: for Azure Repos, ``main`` for GitHub), Bitbucket Pipelines pull-request pipelines.
PR_TARGET_VARS = ("GITHUB_BASE_REF", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "SYSTEM_PULLREQUEST_TARGETBRANCH",
                  "BITBUCKET_PR_DESTINATION_BRANCH")


def stands_for(env: Mapping[str, str], detached: bool, override: tuple[str, str] | None = None
               ) -> tuple[str | None, str | None]:
    """The branch a checkout stands for besides what it checks out, and who says it: ``override`` (a branch and its
    origin, ``--gitops-revision`` or the config file's ``gitops_revision``) first; else a pull request's target
    branch the CI names (:data:`PR_TARGET_VARS`: the change proposes what that branch holds once merged, and CIs
    check out a detached merge commit); else, on a detached HEAD only, the branch a CI names for a push
    (``GITHUB_REF_NAME`` with ``GITHUB_REF_TYPE=branch``, GitLab's ``CI_COMMIT_BRANCH``). (None, None) when none."""
    if override and override[0].strip():
        return override[0].strip().removeprefix("refs/heads/").removeprefix("refs/tags/"), override[1]
    for var in PR_TARGET_VARS:
        value = env.get(var, "").strip().removeprefix("refs/heads/")
        if value:
            return value, var
    if detached:
        if env.get("GITHUB_REF_TYPE") == "branch" and env.get("GITHUB_REF_NAME", "").strip():
            return env["GITHUB_REF_NAME"].strip(), "GITHUB_REF_NAME"
        if env.get("CI_COMMIT_BRANCH", "").strip():
            return env["CI_COMMIT_BRANCH"].strip(), "CI_COMMIT_BRANCH"
    return None, None


#: The wall time one of :func:`checkout`'s local git calls may take at a load of one per core or less: a read of
#: the repository's config, HEAD and tags, milliseconds on any checkout. It catches a git that is blocked (on a
#: lock, a hook); times the load per core (:func:`~..model.wall.wall_limit`, loadlimits1), because a git stopped on
#: a busy runner reads as no checkout, and the repository's GitOps objects then render nothing.
_GIT_TIMEOUT_S = 10


def _git(args: list[str], cwd: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                             timeout=wall_limit(_GIT_TIMEOUT_S), check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


#: The checkout a snapshot of it stands for while it is linted (:func:`snapshot_of`), innermost last.
_SNAPSHOTS: list[Checkout] = []


@contextmanager
def snapshot_of(root: str, commit: str | None) -> Iterator[None]:
    """While linting a snapshot of the current directory's checkout extracted at ``root`` (``shardwise diff``'s base,
    written from ``git cat-file``: no ``.git``), read its GitOps objects as this checkout's at ``commit``: same origin,
    branch and tags, files under ``root``. Without it the snapshot has no remote and its objects render nothing, so
    every finding of a rendered object would read as new in the change."""
    real = checkout()
    _SNAPSHOTS.append(dataclasses.replace(real, root=root, commit=commit or real.commit))
    try:
        yield
    finally:
        _SNAPSHOTS.pop()


def checkout(cwd: str | None = None) -> Checkout:
    """The checkout the current directory is in (git, no network); outside one, the current directory with no
    remote (nothing is then told to be this repository)."""
    here = cwd or os.getcwd()
    root = _git(["rev-parse", "--show-toplevel"], here)
    if root is None:
        return Checkout(here, None, None, None, frozenset())
    remote = _git(["config", "--get", "remote.origin.url"], here)
    branch = _git(["symbolic-ref", "--short", "-q", "HEAD"], here)
    commit = _git(["rev-parse", "-q", "--verify", "HEAD"], here)
    tags = _git(["tag", "--points-at", "HEAD"], here) if commit else None
    stands, by = stands_for(os.environ, detached=not branch)
    return Checkout(root, normalise_url(remote) if remote else None, branch or None, commit or None,
                    frozenset((tags or "").split()), stands, by)


def normalise_url(url: str) -> str:
    """A git URL as ``host/owner/repo``: ``https://github.com/o/r.git``, ``git@github.com:o/r``,
    ``ssh://git@github.com/o/r/`` all give ``github.com/o/r`` (the host in lower case)."""
    u = url.strip()
    m = re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/]+@)?([^/:]+)(?::\d+)?/(.*)$", u)
    if m is None:
        m = re.match(r"^(?:[^@/]+@)?([^/:]+):(?!//)(.*)$", u)
    if m is None:
        return u.rstrip("/").removesuffix(".git")
    host, path = m.group(1).lower(), m.group(2).strip("/")
    return f"{host}/{path.removesuffix('.git').strip('/')}"


# -------------------------------------------------------------------------------------------- sources


@dataclass
class Source:
    """One source to render: the folder (relative to the current directory) and, for a chart, how."""

    folder: str
    release: str
    namespace: str | None
    value_files: list[str]
    values_texts: list[str]  # valuesObject or the values text, as YAML/JSON texts helm reads as files
    sets: list[tuple[str, str]]
    #: what writes each of ``values_texts`` (``helm.values``, ``helm.valuesObject``, ``spec.values``): helm's error
    #: names the temporary file each is handed in, and the message names this instead (review45)
    values_labels: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    """What became of one GitOps object: the sources rendered, or why not."""

    kind: str
    namespace: str
    name: str
    file: str
    line: int | None
    sources: list[Source]
    why_not: str | None = None
    #: The cluster it deploys to, where it names one (an Argo CD Application's ``spec.destination``:
    #: :func:`argo_cluster`); None for Flux's objects (the cluster Flux runs in, or a ``kubeConfig``'s)
    cluster: str | None = None
    #: Its kustomize source holds GitOps objects of the inputs, or its source is a plain folder of manifests of this
    #: checkout that the inputs hold: read one by one instead of rendered (:func:`plan`)
    read_instead: bool = False
    #: The plain folders of manifests (no chart, no kustomization) of this checkout its sources name
    plain: list[str] = dataclasses.field(default_factory=list)
    #: Argo CD's own refusal of a source of this checkout at this revision (:func:`_argo_refuses`): an input error
    refused: str | None = None

    @property
    def subject(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


def _map(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _templated(v: Any) -> bool:
    if isinstance(v, str):
        return _TEMPLATED.search(v) is not None
    if isinstance(v, Mapping):
        return any(_templated(x) for x in v.values())
    if isinstance(v, list):
        return any(_templated(x) for x in v)
    return False


def _leaves(rel: str) -> bool:
    """Whether a path relative to the repository root leads out of it: ``..`` or ``../x``, not a folder of the
    repository whose name begins with two dots (``..cfg/values.yaml``; review20)."""
    return rel == os.pardir or rel.startswith(os.pardir + os.sep)


def _folder(co: Checkout, path: str) -> tuple[str | None, str | None]:
    """(the folder relative to the current directory, None) or (None, why it is not rendered)."""
    if not path or os.path.isabs(path):
        return None, f"its path {path!r} is not a folder of the repository"
    full = os.path.normpath(os.path.join(co.root, path))
    if _leaves(os.path.relpath(full, co.root)) or (os.path.exists(full) and not inside(full, co.root)):
        return None, f"its path {path!r} leads outside the repository"
    if not os.path.isdir(full):
        return None, f"its path {path!r} is not a folder of this checkout ({co.root})"
    if render_kind(full) is None:
        return None, (f"its path {path!r} holds neither a Chart.yaml nor a kustomization (a plain folder of manifests "
                      "is linted by naming it)")
    return os.path.relpath(full), None


def _repo_why(co: Checkout, url: str) -> str | None:
    if co.remote is None or normalise_url(url) != co.remote:  # one message whatever the checkout's remote
        return f"its source {url} is not this checkout's git remote (origin): not fetched"
    return None


def _dump(value: Any) -> str:
    return json.dumps(value, default=str)  # JSON is YAML: helm reads it as a values file


def _argo_refuses(co: Checkout, path: str) -> str | None:
    """Argo CD's words when it refuses an Application's ``path`` in its repository (argo-cd ``util/app/path/path.go``,
    ``Path``: the path joined to the repository root as text, then looked at), None when it takes it. An empty path is
    the repository root, which it takes."""
    if os.path.isabs(path):
        return f"{path}: app path is absolute"
    full = os.path.normpath(os.path.join(co.root, path))
    if _leaves(os.path.relpath(full, co.root)):
        return f"{path}: app path outside root"
    if not os.path.lexists(full):
        return f"{path}: app path does not exist"
    if os.path.exists(full) and not os.path.isdir(full):
        return f"{path}: app path is not a directory"
    return None


def _argo_source(co: Checkout, src: Mapping[str, Any], refs: Mapping[str, str], name: str,
                 namespace: str | None, refusals: list[str] | None = None) -> tuple[Source | None, str | None]:
    url = str(src.get("repoURL") or "")
    if src.get("chart") and not src.get("path"):
        from .k8s.helmrelease import modelled_why, source_values

        helm = _map(src.get("helm"))
        return None, modelled_why(str(src["chart"]), src.get("targetRevision"), helm, source_values(helm)) or (
            f"it installs the chart {src.get('chart')!r} from the Helm repository {url}, which has no "
            "copy in this checkout: not fetched")
    why = _repo_why(co, url) or co.revision_why(str(src.get("targetRevision") or ""))
    if why:
        return None, why
    path = src.get("path")
    refused = _argo_refuses(co, path) if isinstance(path, str) and path and not _templated(path) else None
    if refused is not None and refusals is not None:  # this checkout at this revision: what Argo CD will say
        refusals.append(refused)
    folder, why = _folder(co, str(path or ""))
    if folder is None:
        return None, why
    helm = _map(src.get("helm"))
    if helm.get("fileParameters"):
        return None, "its helm.fileParameters are not passed to helm here (--set-file): not rendered"
    if render_kind(folder) == "kustomize" and _map(src.get("kustomize")):
        return None, ("its kustomize options (images, name prefix, patches ...) are Argo CD's to apply, not the "
                      "kustomization's: not rendered")
    files: list[str] = []
    for f in _list(helm.get("valueFiles")):
        f = str(f)
        if "://" in f:
            return None, f"its value file {f} is a URL: not fetched"
        if f.startswith("$"):
            ref, _, rest = f[1:].partition("/")
            if ref not in refs:
                return None, f"its value file {f} names the source ${ref}, which is not this checkout"
            full = os.path.join(refs[ref], rest)
        else:
            full = os.path.join(folder, f)
        # readers18: a path that leaves the repository as written (`$values/../../x.yaml`) says so, existing or not
        if _leaves(os.path.relpath(os.path.abspath(full), os.path.abspath(co.root))) or (
                os.path.lexists(full) and not inside(full, co.root)):
            return None, f"its value file {f} is outside the repository: not read"
        if not os.path.isfile(full):
            if helm.get("ignoreMissingValueFiles") is True:
                continue
            return None, f"its value file {f} is not in this checkout"
        files.append(os.path.relpath(full))
    texts: list[str] = []
    labels: list[str] = []
    # one of the two, never both: valuesObject where it is written, else the values text (argo-cd at 6328f8ba
    # pkg/apis/application/v1alpha1/types.go ApplicationSourceHelm.ValuesYAML, which the repo server hands helm as
    # one values file; review49: both were read, so a key only the values text wrote was rendered, which Argo CD
    # ignores)
    if isinstance(helm.get("valuesObject"), Mapping):
        texts.append(_dump(helm["valuesObject"]))
        labels.append("helm.valuesObject")
    elif isinstance(helm.get("values"), str) and helm["values"].strip():
        texts.append(helm["values"])
        labels.append("helm.values")
    elif isinstance(helm.get("values"), Mapping):  # older Applications wrote the values as a map
        texts.append(_dump(helm["values"]))
        labels.append("helm.values")
    sets = [("--set-string" if _map(p).get("forceString") is True else "--set",
             f"{_map(p).get('name')}={_map(p).get('value', '')}")
            for p in _list(helm.get("parameters")) if _map(p).get("name")]
    release = str(helm.get("releaseName") or name)
    return Source(folder, release, namespace, files, texts, sets, labels), None


def argo_cluster(obj: Mapping[str, Any]) -> str | None:
    """The cluster an Argo CD Application (or an ApplicationSet's template) deploys to, from ``spec.destination``:
    ``server=URL`` (the API server's URL, its scheme and host lower-cased, no trailing ``/``), else ``name=NAME`` (a
    cluster Argo CD knows by that name; ``in-cluster`` is its own). Argo CD requires one of them (a destination with
    both is refused: "application destination can't have both name and server defined"); None when neither is a
    plain value (unset, or a generator's ``{{...}}``)."""
    spec = _map(obj.get("spec"))
    if obj.get("kind") == "ApplicationSet":
        spec = _map(_map(spec.get("template")).get("spec"))
    dest = _map(spec.get("destination"))
    server, name = dest.get("server"), dest.get("name")
    if isinstance(server, str) and server.strip() and not _templated(server):
        url = server.strip().rstrip("/")
        scheme, sep, rest = url.partition("://")
        host, slash, path = rest.partition("/")
        return f"server={scheme.lower()}{sep}{host.lower()}{slash}{path}" if sep else f"server={url.lower()}"
    if isinstance(name, str) and name.strip() and not _templated(name):
        return f"name={name.strip()}"
    return None


def _argo(co: Checkout, kind: str, obj: Mapping[str, Any], refusals: list[str] | None = None
          ) -> tuple[list[Source], str | None]:
    meta = _map(obj.get("metadata"))
    spec = _map(obj.get("spec"))
    if kind == "ApplicationSet":
        template = _map(spec.get("template"))
        if _templated(template.get("spec")) or _templated(_map(template.get("metadata")).get("name")):
            fields = sorted(set(_TEMPLATED.findall(str(template))))[:3]
            return [], (f"its template's fields ({', '.join(fields)}) are filled in by its generators when Argo CD "
                        "runs them: the Applications it makes are unknown until then, and not guessed")
        spec = _map(template.get("spec"))
        meta = _map(template.get("metadata"))
    name = str(meta.get("name") or "")
    namespace = _map(spec.get("destination")).get("namespace")
    sources = [_map(s) for s in _list(spec.get("sources"))] or [_map(spec.get("source"))]
    if not spec.get("sourceHydrator") and not any(str(s.get("repoURL") or "").strip() for s in sources):
        # Argo CD's ApplicationSource.repoURL has no omitempty (argo-cd pkg/apis/application/v1alpha1/types.go), so
        # its CRD requires it: an object without one is a kustomize patch naming only what it changes (corpus37:
        # redhat-ai-services/ai-accelerator's overlays patch `spec.source.path` and an ApplicationSet's generators),
        # which read "its source  is not this checkout's git remote (origin)", with no source between the spaces
        where = "its template's spec.source.repoURL" if kind == "ApplicationSet" else "spec.source.repoURL"
        return [], (f"it names no source repository ({where}): a patch of such an object names only what it "
                    "changes, and one applied as written is refused")
    refs: dict[str, str] = {}
    for s in sources:
        if s.get("ref") and _repo_why(co, str(s.get("repoURL") or "")) is None and \
                co.revision_why(str(s.get("targetRevision") or "")) is None:
            refs[str(s["ref"])] = os.path.relpath(co.root)
    out: list[Source] = []
    whys: list[str] = []
    for s in sources:
        if s.get("ref") and not s.get("path") and not s.get("chart"):
            continue  # a values-only source
        made, why = _argo_source(co, s, refs, name, str(namespace) if namespace else None, refusals)
        if made is not None:
            out.append(made)
        elif why:
            whys.append(why)
    return out, "; ".join(whys) or (None if out else "it names no source")


def _plain_folders(co: Checkout, obj: Mapping[str, Any]) -> list[str]:
    """The folders of this checkout (its own repository) that an Argo CD Application's sources name by ``path`` and
    that hold neither a chart nor a kustomization: Argo CD applies their manifests as they are."""
    spec = _map(obj.get("spec"))
    out: list[str] = []
    for s in [_map(s) for s in _list(spec.get("sources"))] or [_map(spec.get("source"))]:
        path = s.get("path")
        if not isinstance(path, str) or not path or _repo_why(co, str(s.get("repoURL") or "")) is not None:
            continue
        full = os.path.normpath(os.path.join(co.root, path))
        if os.path.isdir(full) and inside(full, co.root) and render_kind(full) is None:
            out.append(os.path.abspath(full))
    return out


def _flux_repo(co: Checkout, spec: Mapping[str, Any], repos: Mapping[tuple[str, str], Mapping[str, Any]],
               namespace: str) -> str | None:
    ref = _map(spec.get("sourceRef"))
    if not ref:  # readers17: it said "its source is the unnamed"
        return ("it names no source (sourceRef): a patch of such an object names only what it changes, and one "
                "applied as written is refused")
    if ref.get("kind") != "GitRepository":
        return (f"its source is the {ref.get('kind') or 'unnamed'} {ref.get('name') or ''}".rstrip() +
                ", not a GitRepository of this checkout: not fetched")
    key = (str(ref.get("namespace") or namespace), str(ref.get("name") or ""))
    repo = repos.get(key)
    if repo is None:
        return f"its GitRepository {key[0]}/{key[1]} is not in the inputs, so where it points is not known"
    rspec = _map(repo.get("spec"))
    gitref = _map(rspec.get("ref"))
    rev = gitref.get("commit") or gitref.get("tag") or gitref.get("branch") or gitref.get("name")
    return _repo_why(co, str(rspec.get("url") or "")) or co.revision_why(str(rev) if rev else None)


def _flux(co: Checkout, kind: str, obj: Mapping[str, Any],
          repos: Mapping[tuple[str, str], Mapping[str, Any]]) -> tuple[list[Source], str | None]:
    meta = _map(obj.get("metadata"))
    spec = _map(obj.get("spec"))
    name, ns = str(meta.get("name") or ""), str(meta.get("namespace") or "default")
    target = spec.get("targetNamespace")
    if kind == "Kustomization":
        own = [k for k in ("patches", "images", "namePrefix", "nameSuffix", "targetNamespace", "components",
                           "postBuild") if spec.get(k)]
        if own:
            return [], (f"its own {', '.join(own)} are Flux's to apply over the kustomization (postBuild substitutes "
                        "variables the inputs may not hold): not rendered")
        why = _flux_repo(co, spec, repos, ns)
        if why:
            return [], why
        folder, why = _folder(co, str(spec.get("path") or "./"))
        if folder is None or render_kind(folder) != "kustomize":
            return [], why or "its path holds a Chart.yaml, not a kustomization"
        return [Source(folder, name, None, [], [], [])], None
    chart = _map(_map(spec.get("chart")).get("spec"))
    if not chart and spec.get("chartRef"):
        return [], "its chart is a chartRef (an OCIRepository or HelmChart object): not fetched"
    why = _flux_repo(co, chart, repos, ns)
    if why and _map(chart.get("sourceRef")).get("kind") != "GitRepository":
        from .k8s.helmrelease import modelled_why

        why = modelled_why(str(chart.get("chart") or ""), chart.get("version"), spec, spec.get("values")) or why
    if why:
        return [], why
    if spec.get("postRenderers"):
        return [], "its postRenderers (kustomize patches over the rendered chart) are Flux's to apply: not rendered"
    if spec.get("valuesFrom"):
        from .k8s.helmrelease import values_from_why

        return [], values_from_why(spec.get("valuesFrom"))
    folder, why = _folder(co, str(chart.get("chart") or ""))
    if folder is None:
        return [], why
    texts = [_dump(spec["values"])] if isinstance(spec.get("values"), Mapping) else []
    files = [os.path.relpath(os.path.join(co.root, str(f))) for f in _list(chart.get("valuesFiles"))]
    outside = [f for f in files if os.path.lexists(f) and not inside(f, co.root)]
    if outside:
        return [], f"its values file {outside[0]} is outside the repository: not read"
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        return [], f"its values file {missing[0]} is not in this checkout"
    release = str(spec.get("releaseName") or (f"{target}-{name}" if target else name))
    return [Source(folder, release, str(target or ns), files, texts, [], ["spec.values"] * len(texts))], None


# -------------------------------------------------------------------------------------------- reading


def _objects(files: list[str]) -> list[tuple[str, int | None, Mapping[str, Any]]]:
    found: list[tuple[str, int | None, Mapping[str, Any]]] = []
    for f in files:
        if f == "-":
            continue
        try:
            text = gitops_text(f)  # from the run's memo where read_inputs read it
        except InputError:
            continue
        if text is None or not any(m in text for m in _MARKERS):
            continue
        for line, doc in load_documents(text, f):
            if isinstance(doc, Mapping):
                group = str(doc.get("apiVersion", "")).split("/", 1)[0]
                if group in (ARGO_GROUP, HELM_GROUP, KUSTOMIZE_GROUP, SOURCE_GROUP):
                    found.append((f, line, doc))
    return found


def outcomes(files: list[str], co: Checkout) -> list[Outcome]:
    """What each GitOps object of ``files`` renders, or why it renders nothing."""
    objs = _objects(files)
    repos = {(str(_map(o.get("metadata")).get("namespace") or "default"), str(_map(o.get("metadata")).get("name"))): o
             for _, _, o in objs if o.get("kind") == "GitRepository"}
    out: list[Outcome] = []
    for f, line, obj in objs:
        kind = str(obj.get("kind", ""))
        group = str(obj.get("apiVersion", "")).split("/", 1)[0]
        meta = _map(obj.get("metadata"))
        res = Outcome(kind, str(meta.get("namespace") or "default"), str(meta.get("name") or "unnamed"), f, line, [])
        if (group, kind) in ((ARGO_GROUP, "Application"), (ARGO_GROUP, "ApplicationSet")):
            refusals: list[str] = []
            res.sources, res.why_not = _argo(co, kind, obj, refusals)
            res.refused = "; ".join(refusals) or None
            res.cluster = argo_cluster(obj)
            res.plain = _plain_folders(co, obj) if res.why_not else []
        elif (group, kind) in ((HELM_GROUP, "HelmRelease"), (KUSTOMIZE_GROUP, "Kustomization")):
            res.sources, res.why_not = _flux(co, kind, obj, repos)
            spec = _map(obj.get("spec"))
            if kind == "Kustomization" and res.why_not and _flux_repo(co, spec, repos, res.namespace) is None:
                # Flux applies a folder without a kustomization as it is (it generates one): a plain folder
                full = os.path.normpath(os.path.join(co.root, str(spec.get("path") or "./")))
                if os.path.isdir(full) and inside(full, co.root) and render_kind(full) is None:
                    res.plain = [os.path.abspath(full)]
        else:
            continue
        out.append(res)
    return out


def plan(files: list[str], revision: tuple[str, str] | None = None) -> list[Outcome]:
    """:func:`outcomes` of ``files`` in the current directory's checkout, which also stands for ``revision`` (a
    branch and who names it, :func:`stands_for`) when given. A kustomize source whose folder holds
    GitOps objects of ``files`` (a Flux Kustomization that syncs the cluster's own folder, an Argo CD root
    Application over a kustomization of Applications) is not rendered: those objects are read one by one here."""
    co = _SNAPSHOTS[-1] if _SNAPSHOTS else checkout()
    if revision and revision[0].strip():
        stands, by = stands_for({}, detached=False, override=revision)
        co = dataclasses.replace(co, stands_for=stands, stands_by=by)
    found = outcomes(files, co)
    read = [os.path.abspath(f) for f in files]
    for res in found:  # a plain folder whose manifests are among the inputs: they are linted as they are
        if res.plain and any(inside(f, d) for d in res.plain for f in read):
            res.read_instead = True
    own = {os.path.dirname(os.path.abspath(r.file)) for r in found}
    for res in found:
        for src in list(res.sources):
            if render_kind(src.folder) == "kustomize" and any(inside(d, src.folder) for d in own):
                res.sources.remove(src)
                res.read_instead = True
                res.why_not = (f"its path {src.folder} holds GitOps objects of the inputs (the sync of a folder of "
                               "Applications, HelmReleases or Kustomizations): they are read one by one instead")
    return found


def built_folders(found: list[Outcome]) -> set[str]:
    """The kustomize folders the plan builds: their files are judged as built (the namespace and patches the
    kustomization applies), not also as plain manifests."""
    return {s.folder for r in found for s in r.sources if render_kind(s.folder) == "kustomize"}


#: The most GitOps sources (an Application's chart or kustomization, a HelmRelease's chart, ...) one run renders
#: (fuzz20): each runs helm or kustomize, about 0.2 s on two shared cores, and a repository's file of 10,000 Argo CD
#: Applications naming one chart (2.5 MB) held the run for half an hour. Past it, the next object is an input error
#: naming how many were left, and each says why in its SW005 record.
MAX_GITOPS_RENDERS = 250


def render_gitops(inv: Inventory, found: list[Outcome], renderer: Any) -> set[str]:
    """Render into ``inv`` what ``found`` (:func:`plan`) renders (``renderer``: a :class:`.charts.Renderer`); the
    SW005 record of a rendered object goes, and it is no longer counted as an unread kind; the SW005 record of one
    that is not rendered says why. Returns the folders rendered."""
    from .charts import relabel

    done: set[str] = set()
    renders = 0
    for k, res in enumerate(found):
        if res.sources and renders + len(res.sources) > MAX_GITOPS_RENDERS:
            if renders <= MAX_GITOPS_RENDERS:  # said once, at the first object left unrendered
                left = sum(1 for r in found[k + 1:] if r.sources)
                after = ("" if not left else ", nor the sources of the GitOps object after it" if left == 1 else
                         f", nor the sources of the {left} GitOps objects after it")
                inv.errors.append(InputError(
                    f"{res.subject}: its source {res.sources[0].folder} was not rendered{after}: this run has rendered "
                    f"{renders} GitOps sources, and shardwise renders at most {MAX_GITOPS_RENDERS} in one run (each "
                    "runs helm or kustomize); lint the repository's GitOps objects a part at a time", res.file,
                    res.line))
                renders = MAX_GITOPS_RENDERS + 1
            _settle_sw005(inv, dataclasses.replace(res, why_not=res.why_not or (
                f"shardwise renders at most {MAX_GITOPS_RENDERS} GitOps sources in one run")), False)
            continue
        renders += len(res.sources)
        rendered = False
        for src in res.sources:
            part = _render(renderer, src, res)
            if not part.errors:
                relabel(part, _via(f" (via {res.subject})"))
                rendered = True
                done.add(src.folder)
                if res.cluster is not None:  # its objects are of that cluster's deployable unit (adapters.units)
                    inv.clusters[f" (via {res.subject})"] = res.cluster
            inv.extend(part)
        if res.refused is not None:  # Argo CD refuses the Application: it syncs nothing (fuzz16)
            inv.errors.append(InputError(
                f"{res.subject}: Argo CD refuses its source in this repository ({res.refused}; argo-cd "
                "util/app/path): it syncs nothing; point the path at a folder of the repository", res.file, res.line))
        _settle_sw005(inv, res, rendered)
    return done


def _via(suffix: str) -> Callable[[str], str]:
    return lambda f: f if f.endswith(suffix) else f + suffix


def _render(renderer: Any, src: Source, res: Outcome) -> Inventory:
    where = f"{res.file}"
    try:
        if render_kind(src.folder) == "kustomize":
            # newuser12: Argo CD applies what a kustomize source builds in its destination namespace where an object
            # names none, as it does a chart's (a Flux Kustomization's source has none: targetNamespace is not rendered)
            return renderer.kustomize_build(src.folder, src.namespace)  # type: ignore[no-any-return]
        with tempfile.TemporaryDirectory(prefix="shardwise-gitops-") as tmp:
            texts = []
            for i, text in enumerate(src.values_texts):
                path = os.path.join(tmp, f"values-{i}.yaml")
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(text)
                texts.append(path)
            try:
                return renderer.helm_release(src.folder, src.release, src.namespace,  # type: ignore[no-any-return]
                                             values=[*src.value_files, *texts], sets=src.sets)
            except InputError as e:  # review45: helm names the temporary file a values text was handed in
                said = e.message
                for i, path in enumerate(texts):
                    label = src.values_labels[i] if i < len(src.values_labels) else "inline values"
                    for form in dict.fromkeys((path, os.path.realpath(path))):
                        said = said.replace(form, f"its {label}")
                raise InputError(said, e.file, e.line) from None
    except InputError as e:
        inv = Inventory(sources=[where])
        inv.errors.append(InputError(f"{res.subject}: its source {src.folder} was not rendered: {e.message}",
                                     res.file, res.line))
        return inv


#: What a Flux object leaves unsaid of where it deploys (readers17): the facts of the cluster its objects run on.
FLUX_CLUSTER = ("it names no cluster (Flux applies it to the cluster Flux runs in, or to the one its spec.kubeConfig "
                "Secret names), so that cluster's GPU nodes, node pools and network policies are known only where "
                "the inputs hold them")


def _unskip(inv: Inventory, kind: str) -> None:
    if inv.skipped.get(kind, 0) > 0:  # read after all, or said why: not an unknown kind skipped silently
        inv.skipped[kind] -= 1
        if not inv.skipped[kind]:
            del inv.skipped[kind]


def _read_from(inv: Inventory, res: Outcome) -> bool:
    """Whether anything of ``inv`` was read from the GitOps object ``res`` (a modelled chart's HelmRelease or
    Application, read as the workloads it deploys): an item located in its document of its file."""
    if res.line is None:
        return True  # not to be told apart: say nothing more
    try:
        text = gitops_text(res.file) or read_text(res.file)
        starts = sorted(line for line, _ in load_documents(text, res.file) if line is not None)
    except InputError:
        return True
    end = next((line for line in starts if line > res.line), None)
    items: list[Any] = [*inv.groups, *inv.routers, *inv.services, *inv.launch_issues]
    return any(i.location.file == res.file and isinstance(i.location.line, int) and i.location.line >= res.line
               and (end is None or i.location.line < end) for i in items)


def _settle_sw005(inv: Inventory, res: Outcome, rendered: bool) -> None:
    if rendered:
        _unskip(inv, res.kind)
    elif res.why_not and not res.read_instead and not _read_from(inv, res):
        # readers17: an object that names no vLLM was only counted among the skipped objects of unknown kinds; what
        # it deploys was not read, so it says why (SW005, advisory), naming the source it cannot read
        flux = res.kind in ("HelmRelease", "Kustomization")
        inv.launch_issues.append(LaunchIssue(
            res.subject, "", f"what it deploys was not read: {res.why_not}"
            + (f"; {FLUX_CLUSTER}" if flux else "") + "; lint that source (a checkout of it, or what it renders) "
            "with the rest, or suppress SW005 on it with the reason it deploys no vLLM server",
            Location(res.file, res.line), mentioned=True, source_unread=True))
        _unskip(inv, res.kind)
        return
    keep: list[LaunchIssue] = []
    for li in inv.launch_issues:
        if li.mentioned and li.subject == res.subject and li.location.file == res.file:
            if rendered:
                continue  # its workload was read: what it renders is judged instead
            if res.why_not:  # why, then what was said before (who renders it, and how to lint it)
                mention, _, before = li.reason.partition(" but ")
                cluster = f"; {FLUX_CLUSTER}" if res.kind in ("HelmRelease", "Kustomization") else ""
                li = dataclasses.replace(li, reason=f"{mention} but it was not rendered: {res.why_not}{cluster}; "
                                                    f"{before}")
        keep.append(li)
    inv.launch_issues[:] = keep

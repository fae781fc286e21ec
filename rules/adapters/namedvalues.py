"""Files that something in the inputs names as Helm values, whatever their names (mend31).

A values file is read by shardwise only with its chart; where it configures vLLM and no chart of the inputs is
rendered with it, SW005 says so (``_values_serving_vllm`` in :mod:`~shardwise.rules.adapters`). A file was taken for
one by its name alone (``values*.yaml``): ``custom.yaml`` that a helmfile release installs its chart with was
"YAML that is not a Kubernetes object", and what it configures passed in silence. Here the inputs say which files are
values:

- a helmfile state file's releases (:data:`.select.HELMFILE`): each string of ``releases[].values`` (and of a release
  template's, ``templates.NAME.values``), relative to the helmfile's folder (helmfile v1 pkg/state, ``values``: "a
  list of values files"). ``environments.NAME.values`` are helmfile's own state values, not the chart's: not
  named. A path that holds ``{{ .Environment.Name }}`` is read for each environment the file declares (``default``
  where it declares none); a path with any other template (``{{ requiredEnv "TEAM" }}``) is an unknown until helmfile
  renders it: an SW005 record at the release says so, and each file the path may be (the template read as ``*``) is
  read as values;
- an Argo CD Application's (or ApplicationSet template's) ``helm.valueFiles`` of a source whose ``path`` is a folder
  of this checkout (relative to it), and ``$REF/PATH`` through a source of ``ref: REF`` (relative to the checkout's
  root); argo-cd reposerver resolves ``$ref`` paths against the ref source's repository root;
- a Flux HelmRelease's ``spec.chart.spec.valuesFiles`` of a ``GitRepository`` source (relative to its root: Flux's
  HelmChart API, "valuesFiles ... expected to be a relative path in the SourceRef"); of a ``HelmRepository`` they are
  files of the chart's package.

A named file that the GitOps render read (:mod:`.gitops`) was judged with its chart and is no SW005 record.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..model import LaunchIssue, Location
from ..model.errors import InputError
from ..model.files import read_file_bytes
from .yamlsrc import LineDict, decode_text, load_documents

#: A Go template action of helmfile's (``{{ .Environment.Name }}``, ``{{- if ... }}``).
_ACTION = re.compile(r"\{\{.*?\}\}")
_ENV_NAME = re.compile(r"\{\{-?\s*\.Environment\.Name\s*-?\}\}")
#: A line that is one template action alone (``{{- if eq .Environment.Name "prod" }}``): no YAML of its own.
_ACTION_LINE = re.compile(r"^[ \t]*\{\{[^\n]*?\}\}[ \t]*$", re.MULTILINE)
#: The most files one templated path is read as (its template read as ``*``).
_MAX_CANDIDATES = 32


@dataclass
class Named:
    """A file named as Helm values: by what (in words), and the command that lints what it configures."""

    by: str
    how: str


def _map(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _line(m: Mapping[str, Any], key: str) -> int | None:
    return m.line_of(key) if isinstance(m, LineDict) else None


def _how(release: str, chart: str, values: str) -> str:
    """The command that lints what a helmfile release installs with ``values``."""
    return (f"helm template {release or 'RELEASE'} {chart} -f {os.path.relpath(values)} | shardwise lint - (or: "
            "helmfile template | shardwise lint -)")


def _helmfile_docs(path: str) -> list[Mapping[str, Any]]:
    """The YAML documents of a helmfile state file, its template actions blanked: a line that is an action alone
    goes (line numbers kept), an action inside a value is kept as written (quoted where the value starts with it)."""
    try:
        text = decode_text(read_file_bytes(path, path), path)
    except InputError:
        return []
    text = _ACTION_LINE.sub("", text)
    if "{{" in text:  # a plain value may not start with `{` (a flow mapping): quoted as YAML's single quotes do
        text = re.sub(r"(^[ \t]*(?:- |[\w.-]+: ))(\{\{.*?)[ \t]*$",
                      lambda m: m.group(1) + "'" + m.group(2).replace("'", "''") + "'", text, flags=re.MULTILINE)
    return [d for _, d in load_documents(text, path) if isinstance(d, Mapping)]


#: An SW005 record of a templated values path, the files it may be, and whether its release names vLLM
Pending = tuple[LaunchIssue, list[str], bool]


def _helmfile(path: str, named: dict[str, Named], issues: list[Pending]) -> None:
    docs = _helmfile_docs(path)
    folder = os.path.dirname(path)
    envs = sorted({str(k) for d in docs for k in _map(d.get("environments"))}) or ["default"]
    where = os.path.basename(path) if os.path.basename(folder) != "helmfile.d" else os.path.relpath(path)
    for doc in docs:
        templates = [t for t in _map(doc.get("templates")).values() if isinstance(t, Mapping)]
        for item in [*_list(doc.get("releases")), *templates]:
            rel = _map(item)
            name = str(rel.get("name") or "")
            chart = str(rel.get("chart") or "CHART")
            who = f"{where}'s release `{name}`" if name else f"a release template of {where}"
            for v in _list(rel.get("values")):
                if not isinstance(v, str) or not v.strip():
                    continue  # inline values: no file
                for written in {_ENV_NAME.sub(e, v) for e in envs}:
                    full = os.path.normpath(os.path.join(folder, written))
                    if not _ACTION.search(written):
                        named.setdefault(os.path.abspath(full), Named(f"{who} names it among its values files",
                                                                      _how(name, chart, full)))
                        continue
                    found = [f for f in sorted(glob.glob(os.path.join(glob.escape(folder), _ACTION.sub("*", written))))
                             if os.path.abspath(f) != os.path.abspath(path) and os.path.isfile(f)]
                    for f in found[:_MAX_CANDIDATES]:
                        named.setdefault(os.path.abspath(f), Named(
                            f"{who} may name it among its values files (`{v}`, a path helmfile fills in)",
                            _how(name, chart, f)))
                    shown = ", ".join(os.path.relpath(f) for f in found[:3]) or "none in the inputs"
                    issues.append((LaunchIssue(
                        f"helmfile release {name or 'unnamed'}", "",
                        f"its values file `{v}` holds a template helmfile fills in when it runs "
                        f"({', '.join(sorted(set(_ACTION.findall(written))))}): which file it is is unknown here, "
                        f"and each file it may be was read as a Helm values file ({shown}); to lint the release: "
                        "helmfile template | shardwise lint -",
                        Location(path, _line(rel, "values")), mentioned=True),
                        [os.path.abspath(f) for f in found[:_MAX_CANDIDATES]], "vllm" in f"{name} {chart}".lower()))
                    break


def _gitops(files: list[str], named: dict[str, Named]) -> None:
    if not files:
        return
    from .gitops import ARGO_GROUP, HELM_GROUP, _objects, checkout

    objs = _objects(files)
    if not objs:
        return
    root = checkout().root
    for f, _, obj in objs:
        group = str(obj.get("apiVersion", "")).split("/", 1)[0]
        kind = str(obj.get("kind", ""))
        meta = _map(obj.get("metadata"))
        spec = _map(obj.get("spec"))
        subject = f"{kind} {meta.get('namespace') or 'default'}/{meta.get('name') or 'unnamed'}"
        if (group, kind) == (ARGO_GROUP, "ApplicationSet"):
            spec = _map(_map(spec.get("template")).get("spec"))
        if group == ARGO_GROUP and kind in ("Application", "ApplicationSet"):
            sources = [_map(s) for s in _list(spec.get("sources"))] or [_map(spec.get("source"))]
            refs = {str(s["ref"]) for s in sources if s.get("ref")}
            for s in sources:
                chart = str(s.get("chart") or s.get("path") or "CHART")
                for item in _list(_map(s.get("helm")).get("valueFiles")):
                    v = str(item)
                    if "://" in v or "{{" in v:
                        continue
                    if v.startswith("$"):
                        ref, _, rest = v[1:].partition("/")
                        full = os.path.join(root, rest) if ref in refs else ""
                    elif isinstance(s.get("path"), str) and s.get("path"):
                        full = os.path.join(root, str(s["path"]), v)
                    else:
                        full = ""  # relative to a chart of a Helm repository: not in this checkout
                    if full and os.path.isfile(full):
                        named.setdefault(os.path.abspath(full), Named(
                            f"{subject} ({os.path.relpath(f)}) names it in helm.valueFiles (`{v}`)",
                            f"helm template RELEASE {chart} -f {os.path.relpath(full)} | shardwise lint -"))
        elif (group, kind) == (HELM_GROUP, "HelmRelease"):
            chart_spec = _map(_map(spec.get("chart")).get("spec"))
            if _map(chart_spec.get("sourceRef")).get("kind") != "GitRepository":
                continue  # a HelmRepository's (or OCI) valuesFiles are files of the chart's package, not this checkout
            for item in _list(chart_spec.get("valuesFiles")):
                v = str(item)
                full = os.path.join(root, v)
                if os.path.isfile(full):
                    named.setdefault(os.path.abspath(full), Named(
                        f"{subject} ({os.path.relpath(f)}) names it in spec.chart.spec.valuesFiles (`{v}`)",
                        f"helm template RELEASE {chart_spec.get('chart') or 'CHART'} -f {os.path.relpath(full)} | "
                        "shardwise lint -"))


def named_values(helmfiles: list[str], files: list[str]) -> tuple[dict[str, Named], list[Pending]]:
    """The files (absolute) the helmfile state files ``helmfiles`` and the GitOps objects of ``files`` name as Helm
    values, and an SW005 record of each helmfile values path that holds a template helmfile fills in (with the
    files it may be, and whether its release names vLLM: the caller keeps it where one of those says vLLM)."""
    named: dict[str, Named] = {}
    issues: list[Pending] = []
    for h in helmfiles:
        _helmfile(h, named, issues)
    _gitops(files, named)
    return named, issues

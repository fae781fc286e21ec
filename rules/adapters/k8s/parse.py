"""Manifest text -> Kubernetes objects with their lines, and finding a word's line in that text."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ...model import UNKNOWN, Location
from ...model.errors import InputError
from ..yamlsrc import LineDict, load_documents

#: file -> the lines of its text, for pointing at the line a word is written on.
Lines = Mapping[str, Sequence[str]]


def yaml_type(value: Any) -> str:
    """How YAML names the type of ``value``: a mapping, a list, a string, a number, a boolean, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping" if isinstance(value, dict) else f"a {type(value).__name__}"


def objects_from_documents(docs: Iterable[tuple[int | None, Any]], file: str,
                           errors: list[InputError]) -> list[tuple[LineDict, Location]]:
    """Every Kubernetes object in ``docs`` (:func:`~shardwise.rules.adapters.yamlsrc.load_documents`) with its
    location; ``kind: List`` items are flattened. Empty documents (a Helm ``# Source:`` comment alone)
    are skipped. A document that did not parse, is not a mapping, or lacks ``apiVersion`` or ``kind``
    is an :class:`InputError` with file and line, added to ``errors``; the other documents are read.
    """
    out: list[tuple[LineDict, Location]] = []
    for line, doc in docs:
        if doc is None:
            continue
        if isinstance(doc, InputError):
            errors.append(doc)
        elif not isinstance(doc, LineDict):
            errors.append(InputError(f"expected a Kubernetes object (a mapping), found {yaml_type(doc)}", file, line))
        else:
            try:
                _collect(doc, file, out)
            except InputError as e:
                errors.append(e)
    return out


def parse_manifests(text: str, file: str) -> list[tuple[LineDict, Location]]:
    """Every Kubernetes object in ``text`` with its location (see :func:`objects_from_documents`);
    the first input error is raised."""
    errors: list[InputError] = []
    objs = objects_from_documents(load_documents(text, file), file, errors)
    if errors:
        raise errors[0]
    return objs


def _collect(obj: LineDict, file: str, out: list[tuple[LineDict, Location]]) -> None:
    for key in ("apiVersion", "kind"):
        value = obj.get(key)
        if not isinstance(value, str) or not value:
            if value is not None and value != "":  # written, as another type (`kind: !!binary ...`): at its line
                raise InputError(f"{key}: expected a string, found {yaml_type(value)}", file,
                                 obj.line_of(key) or obj.line)
            raise InputError(f"object has no {key}", file, obj.line)
    if obj["kind"] == "List" or (obj["kind"].endswith("List") and isinstance(obj.get("items"), list)):
        items = obj.get("items")
        if items is not None and not isinstance(items, list):
            raise InputError(f"items: expected a list of Kubernetes objects, found {yaml_type(items)}", file,
                             obj.line_of("items"))
        for item in items or ():
            if not isinstance(item, LineDict):
                raise InputError("List item is not a Kubernetes object (a mapping)", file, obj.line_of("items"))
            _collect(item, file, out)
        return
    meta = obj.get("metadata")
    if isinstance(meta, LineDict):  # the object's name and namespace name it in every finding: strings, or refused
        for key in ("name", "namespace"):
            value = meta.get(key)
            if value is not None and not isinstance(value, str) and value is not UNKNOWN:
                if type(value) is int and _read_by_kustomize(file):
                    # kustomize reads the scalar's text (kyaml's GetName), matches a patch by it and writes a
                    # string: `name: 0` in a patch of a base named "0" builds (corpus30: llm-d-router's
                    # kubernetes-base patch-statefulset.yaml); the API server never sees the number
                    meta[key] = str(value)
                    continue
                raise InputError(f"metadata.{key}: expected a string, found {yaml_type(value)}; Kubernetes refuses "
                                 "the object as written", file, meta.line_of(key) or obj.line)
        name = meta.get("name")
        if isinstance(name, str) and len(name) > _DNS_LABEL_MAX:
            _check_name_length(obj, name, file, meta.line_of("name") or obj.line)
    out.append((obj, location_at(file, obj.line)))


#: The longest ``metadata.name`` the Kubernetes API server takes, by the rule it validates a kind's name with
#: (kubernetes v1.35.4): a DNS label, 63 characters (``NameIsDNSLabel``, ``NameIsDNS1035Label``), or a DNS subdomain,
#: 253 (``NameIsDNSSubdomain``; apimachinery pkg/util/validation ``DNS1123LabelMaxLength``,
#: ``DNS1123SubdomainMaxLength``). pkg/apis/core/validation: ``ValidateServiceName`` (a DNS-1035 label; a DNS label
#: with RelaxedServiceNameValidation), ``ValidateNamespaceName``, and a DNS subdomain for a Pod, ReplicationController,
#: Node, LimitRange, ResourceQuota, Secret, ConfigMap, ServiceAccount, Endpoints, PersistentVolume and its claim;
#: pkg/apis/apps/validation: ``ValidateStatefulSetName`` a DNS label (its pods' names are its own and an index), a
#: Deployment, DaemonSet, ReplicaSet and ControllerRevision a DNS subdomain; batch: a Job and a CronJob; networking:
#: an Ingress and an IngressClass; autoscaling: a HorizontalPodAutoscaler; scheduling: a PriorityClass. Every custom
#: resource is a DNS subdomain (apiextensions-apiserver pkg/registry/customresource/validator.go ``validate``). A kind
#: not here (RBAC's path segment names, which have no bound) is not checked.
_DNS_LABEL_MAX = 63
_DNS_SUBDOMAIN_MAX = 253
_NAME_MAX: dict[tuple[str, str], tuple[int, str]] = {
    **{("", k): (_DNS_LABEL_MAX, "pkg/apis/core/validation ValidateServiceName" if k == "Service" else
                 "pkg/apis/core/validation ValidateNamespaceName") for k in ("Service", "Namespace")},
    ("apps", "StatefulSet"): (_DNS_LABEL_MAX, "pkg/apis/apps/validation ValidateStatefulSetName"),
    **{("", k): (_DNS_SUBDOMAIN_MAX, "pkg/apis/core/validation") for k in (
        "Pod", "ReplicationController", "Node", "LimitRange", "ResourceQuota", "Secret", "ConfigMap", "ServiceAccount",
        "Endpoints", "PersistentVolume", "PersistentVolumeClaim")},
    **{("apps", k): (_DNS_SUBDOMAIN_MAX, "pkg/apis/apps/validation") for k in (
        "Deployment", "DaemonSet", "ReplicaSet", "ControllerRevision")},
    **{("batch", k): (_DNS_SUBDOMAIN_MAX, "pkg/apis/batch/validation") for k in ("Job", "CronJob")},
    **{("networking.k8s.io", k): (_DNS_SUBDOMAIN_MAX, "pkg/apis/networking/validation") for k in (
        "Ingress", "IngressClass")},
    ("autoscaling", "HorizontalPodAutoscaler"): (_DNS_SUBDOMAIN_MAX, "pkg/apis/autoscaling/validation"),
    ("scheduling.k8s.io", "PriorityClass"): (_DNS_SUBDOMAIN_MAX, "pkg/apis/scheduling/validation"),
}
#: The API groups the API server serves itself (kubernetes v1.35.4 pkg/apis); an object of another group with a dot
#: in it is a custom resource.
_BUILT_IN_GROUPS = frozenset({
    "admissionregistration.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io", "authentication.k8s.io",
    "authorization.k8s.io", "certificates.k8s.io", "coordination.k8s.io", "discovery.k8s.io", "events.k8s.io",
    "flowcontrol.apiserver.k8s.io", "internal.apiserver.k8s.io", "networking.k8s.io", "node.k8s.io",
    "rbac.authorization.k8s.io", "resource.k8s.io", "scheduling.k8s.io", "storage.k8s.io", "storagemigration.k8s.io"})


def _check_name_length(obj: LineDict, name: str, file: str, line: int | None) -> None:
    """An :class:`InputError` at ``metadata.name`` where it is longer than the API server takes for the object's kind
    (:data:`_NAME_MAX`; fuzz26: a name of 100,000 characters linted without a word). A name that holds an unrendered
    placeholder (``{{``, ``${``) is no name yet: its length is not known."""
    if "{{" in name or "${" in name:
        return
    api = str(obj.get("apiVersion", ""))
    group = api.rpartition("/")[0] if "/" in api else ""
    kind = str(obj.get("kind", ""))
    rule = _NAME_MAX.get((group, kind))
    if rule is None and "." in group and group not in _BUILT_IN_GROUPS:
        rule = (_DNS_SUBDOMAIN_MAX, "apiextensions-apiserver, a custom resource")
    if rule is None or len(name) <= rule[0]:
        return
    what = "a DNS label" if rule[0] == _DNS_LABEL_MAX else "a DNS subdomain"
    raise InputError(f"metadata.name: {len(name):,} characters, more than the {rule[0]} the Kubernetes API server "
                     f"takes in the name of kind {kind} ({what}: kubernetes {rule[1]}); Kubernetes refuses the object "
                     "as written",
                     file, line)


def _read_by_kustomize(file: str) -> bool:
    from .workloads import kustomize_file  # only for a name written as a number (rare)

    return kustomize_file(file)


def location_at(file: str | None, line: int | None) -> Location:
    """``Location(file, line)``: the locations the compiled readers make most (a container's key lines, the flags found
    in the command). The class is compiled too (:mod:`~shardwise.rules.model.location`), so this is a direct C call."""
    return Location(file, line)


class _Locate:
    """What :func:`make_locate` returns: a class, not a closure. Compiled by mypyc, a closure that rebinds a name of
    its maker (the joined block, made on first use) is held by the environment it holds: a reference cycle per call,
    which a run with the collector off (``shardwise lint``, the pack) never frees, and which kept each file's lines
    alive to the end of the run."""

    __slots__ = ("lines", "lo", "hi", "file", "block")

    def __init__(self, lines: Sequence[str], lo: int, hi: int, file: str | None) -> None:
        self.lines = lines
        self.lo = lo
        self.hi = hi
        self.file = file
        self.block: str | None = None

    def __call__(self, token: str) -> Location | None:
        if not token:
            return None
        if "\n" in token:  # a word of several lines is never found on one
            return None
        block = self.block
        if block is None:  # the lines joined once: one search in C per word instead of a loop over lines
            block = self.block = "\n".join(self.lines[self.lo:self.hi])
        n = len(token)
        pos = block.find(token)
        while pos >= 0:  # a line's start or end (a newline here) bounds a word as a blank does
            before = block[pos - 1] if pos > 0 else " "
            after = block[pos + n] if pos + n < len(block) else " "
            if not (before.isalnum() or before in "-_") and not (after.isalnum() or after in "-_"):
                # its line: the newlines before it, counted in C (no table of where each line starts)
                return location_at(self.file, self.lo + 1 + block.count("\n", 0, pos))
            pos = block.find(token, pos + 1)
        return None


def make_locate(lines: Sequence[str] | None, start: int | None, end: int | None,
                file: str | None) -> Callable[[str], Location | None] | None:
    """A finder of the first line in ``start..end`` where a word is written (None without the text). ``lines`` are
    a text's lines as ``str.splitlines`` gives them: none holds a newline."""
    if not lines or start is None:
        return None
    lo = max(start - 1, 0)
    return _Locate(lines, lo, min(end if end is not None else lo + 400, len(lines)), file)



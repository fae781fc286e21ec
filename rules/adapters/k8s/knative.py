"""Knative Serving (``serving.knative.dev``): Service, Configuration and Revision.

A Knative ``Service`` is no core Service: it runs a pod. Its ``spec.template`` (a Configuration's too) is a
pod template, and a Revision's ``spec`` is the pod spec itself (knative.dev/serving, pkg/apis/serving/v1).
What Knative gives the pod, read as if written:

- replicas from the template's autoscaling annotations (pkg/apis/autoscaling/register.go):
  ``autoscaling.knative.dev/min-scale`` when it is at least 1, else ``initial-scale``, else 1 (Knative
  starts one pod and, with min-scale 0, the default, scales to zero when idle); the older spellings
  ``minScale``/``initialScale`` too;
- the labels Knative puts on the pods (pkg/reconciler/service/resources/configuration.go,
  configuration/resources/revision.go): ``serving.knative.dev/service`` and ``…/configuration``, over the
  template's own (the revision's name and uid are made at run time and nobody selects on them in a manifest);
- a TCP readiness probe on the serving container when it has none (pkg/apis/serving/v1/revision_defaults.go:
  the container with a port, or the only one), which Knative's queue-proxy runs;
- a Service's route: Knative publishes every Service on the cluster's ingress gateway, at an external address,
  unless the Service carries the label ``networking.knative.dev/visibility: cluster-local``
  (knative.dev/networking pkg/apis/networking/register.go ``VisibilityLabelKey``; "Configuring private
  Services" in Knative's documentation); SW306 reads it as ``ServingGroup.published``. A Cloud Run service (the
  same kind, with ``run.googleapis.com/`` keys) has no Knative ingress: Cloud Run serves it behind its IAM invoker
  check, which no manifest shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import UNKNOWN, Inventory, Location
from ...model.errors import InputError
from ...model.unknown import is_placeholder
from .fields import as_list, as_map, line_of, read_annotations, str_map, typed_map
from .groups import KNATIVE_GROUP as GROUP
from .parse import Lines
from .pods import read_pod
from .serving import placed, replaced, with_containers
from .workloads import add_more_groups, make_group, note_launch, pod_ports

_SCALE = "autoscaling.knative.dev/"
#: The label that keeps a Knative Service's route inside the cluster, and its value.
VISIBILITY = "networking.knative.dev/visibility"
CLUSTER_LOCAL = "cluster-local"
#: Knative's default port for the serving container when it names none (the PORT it sets).
_DEFAULT_PORT = 8080


def _scale(ann: Mapping[str, str], lines: Mapping[str, int | None], loc: Location) -> tuple[int, str | None]:
    """(replicas, the annotation that set them) from the autoscaling annotations."""
    values: dict[str, tuple[int, str]] = {}
    for name, spellings in (("min", ("min-scale", "minScale")), ("initial", ("initial-scale", "initialScale"))):
        for spelling in spellings:
            key = _SCALE + spelling
            if key not in ann:
                continue
            try:
                n = int(ann[key].strip())
            except ValueError:
                raise InputError(f"{key}: expected a whole number of pods, got {ann[key]!r}", loc.file,
                                 lines.get(key) or loc.line) from None
            if n < 0:
                raise InputError(f"{key}: expected a whole number of pods, got {ann[key]!r}", loc.file,
                                 lines.get(key) or loc.line)
            values[name] = (n, key)
            break
    for name in ("min", "initial"):
        if name in values and values[name][0] >= 1:
            return values[name]
    return 1, None


def _serving_container(containers: list[Any]) -> int | None:
    """The index of the container Knative routes to: the only one, else the one with a port."""
    if len(containers) == 1:
        return 0
    return next((i for i, c in enumerate(containers) if as_list(as_map(c).get("ports"))), None)


def with_default_probe(pod_spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """``pod_spec`` with the TCP readiness probe Knative gives the serving container when it has none."""
    containers = as_list(pod_spec.get("containers"))
    i = _serving_container(containers)
    if i is None or not isinstance(containers[i], dict) or containers[i].get("readinessProbe") is not None:
        return pod_spec
    c = containers[i]
    ports = [p for p in as_list(c.get("ports")) if isinstance(as_map(p).get("containerPort"), int)]
    port = ports[0]["containerPort"] if ports else _DEFAULT_PORT
    probe = placed({"tcpSocket": {"port": port}, "successThreshold": 1}, c)
    return with_containers(pod_spec, [*containers[:i], replaced(c, readinessProbe=probe), *containers[i + 1:]])


#: The name Knative gives an unnamed container (``container-name-template`` of ``config-defaults``).
_DEFAULT_NAME = "user-container"


def with_default_names(pod_spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """``pod_spec`` with the names Knative's defaulting webhook gives unnamed containers
    (``applyDefaultContainerNames``, pkg/apis/serving/v1/revision_defaults.go): ``user-container`` for the only
    container, else ``user-container-0``, ``-1``, … in order, skipping the names the spec already uses."""
    containers = as_list(pod_spec.get("containers"))
    if not any(isinstance(c, dict) and not c.get("name") for c in containers):
        return pod_spec
    taken = {str(c.get("name")) for c in containers if isinstance(c, dict) and c.get("name")}
    taken |= {str(c.get("name")) for c in as_list(pod_spec.get("initContainers")) if isinstance(c, dict)
              and c.get("name")}
    named, suffix = [], 0
    for c in containers:
        if isinstance(c, dict) and not c.get("name"):
            name = _DEFAULT_NAME
            if len(containers) > 1 or name in taken:
                while True:
                    name = f"{_DEFAULT_NAME}-{suffix}"
                    suffix += 1
                    if name not in taken:
                        break
            c = replaced(c, name=name)
        named.append(c)
    return with_containers(pod_spec, named)


#: Key prefixes only a Cloud Run service carries (its annotations, its location label, its GPU node selector).
_CLOUD_RUN = ("run.googleapis.com/", "cloud.googleapis.com/")


def cloud_run(*maps: Any) -> bool:
    """Whether the object is a Cloud Run service (``gcloud run services replace`` takes a Knative Service): a key of
    its labels, annotations or node selector is Cloud Run's."""
    return any(isinstance(k, str) and k.startswith(_CLOUD_RUN) for m in maps for k in as_map(m))


def published(name: str, namespace: str, meta: Mapping[str, Any]) -> Any:
    """What publishes a Knative Service outside the cluster (for SW306), None when its visibility label keeps
    it cluster-local, UNKNOWN when the labels or the label's value are not known yet."""
    labels = meta.get("labels")
    if labels is UNKNOWN:
        return UNKNOWN
    value = as_map(labels).get(VISIBILITY)
    if value is UNKNOWN or is_placeholder(value):
        return UNKNOWN
    if isinstance(value, str) and value.strip() == CLUSTER_LOCAL:
        return None
    return (f"has no `{VISIBILITY}: {CLUSTER_LOCAL}` label, so Knative publishes its route "
            f"(http://{name}.{namespace}.<the cluster's domain>) on the ingress gateway's external address")


#: Why a Knative route is only advisory for SW306: since Knative Serving 1.8 (knative/serving#13259) the domain a
#: cluster gets without a config-domain entry is svc.cluster.local, and routes under it are not exposed through the
#: ingress; whether the route is reachable from outside is the cluster's config-domain and its ingress gateway's
#: Service, which the inputs do not show.
KNATIVE_DOMAIN_ADVISORY = ("whether the route is reachable from outside the cluster is the cluster's Knative "
                           "config-domain (since Knative 1.8 the default, svc.cluster.local, is not exposed through "
                           "the ingress) and its ingress gateway's Service, which the inputs do not show")


def add_knative(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    """The serving group of a Knative Service, Configuration or Revision whose container runs vLLM (its kind
    shown as ``Knative Service``: a core Service is another thing)."""
    file = loc.file
    file_lines = lines.get(file) if lines is not None and file is not None else None
    meta = as_map(obj.get("metadata"))
    spec = typed_map(obj, "spec", "spec", loc)
    if kind == "Revision":  # its spec is the pod spec
        tmeta: Mapping[str, Any] = meta
        pod_spec: Mapping[str, Any] = spec
        path = "spec"
    else:
        template = typed_map(spec, "template", "spec.template", loc)
        tmeta = typed_map(template, "metadata", "spec.template.metadata", loc)
        pod_spec = typed_map(template, "spec", "spec.template.spec", loc)
        path = "spec.template.spec"
    if not pod_spec:
        return False
    namespace = str(meta.get("namespace") or "default")
    name = str(meta.get("name") or "unnamed")
    labels = str_map(tmeta.get("labels"))
    if kind in ("Service", "Configuration"):
        labels[f"{GROUP}/configuration"] = name
    if kind == "Service":
        labels[f"{GROUP}/service"] = name
    # a Configuration has no route; a Cloud Run service is served on its run.app URL behind Cloud Run's IAM invoker
    # check (public only with allUsers, which no manifest shows), not on a Knative ingress
    route = (published(name, namespace, meta) if kind == "Service" and not cloud_run(
        meta.get("labels"), meta.get("annotations"), tmeta.get("annotations"), pod_spec.get("nodeSelector"))
        else None)
    kind = f"Knative {kind}"
    ports = pod_ports(f"{kind} {namespace}/{name}", namespace, {"labels": labels}, pod_spec, loc)
    if ports is not None:
        inv.pod_ports.append(ports)
    pod = read_pod(tmeta, with_default_probe(with_default_names(pod_spec)), file, file_lines, {}, where=loc, path=path)
    if pod.engine is None:
        note_launch(inv, kind, obj, loc, pod, None)
        return pod.unread is not None
    ann, ann_lines = read_annotations(tmeta)
    replicas, by = _scale(ann, ann_lines, loc)
    group = make_group(kind, obj, loc, pod, replicas, file)
    group.pod_labels = labels
    group.published = route
    if route is not None and route is not UNKNOWN:
        group.published_advisory = KNATIVE_DOMAIN_ADVISORY
    if route is not None and isinstance(meta, dict):
        group.locations["published"] = Location(file, line_of(meta, "labels") or loc.line)
    if by is not None and ann_lines.get(by) is not None:
        group.locations["replicas"] = Location(file, ann_lines[by])
    elif isinstance(tmeta, dict) and line_of(tmeta, "annotations"):
        group.locations.setdefault("replicas", Location(file, line_of(tmeta, "annotations")))
    inv.groups.append(group)
    note_launch(inv, kind, obj, loc, pod, group)
    add_more_groups(kind, obj, loc, pod, replicas, file, inv, group)
    return True

"""Pod templates: containers (command, args, env, resources, probes, mounts), volumes and placement.

:func:`read_pod` reads one pod spec into what a serving group needs: every container, the first one
that runs a vLLM server with its engine flags (each pointing at the line it is written on when the
manifest text is known), its GPU request, and the pod's volumes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from ...catalog.accelerators import family_known, is_extended_resource, resource_names
from ...model import (
    UNKNOWN,
    UNKNOWN_TOKEN,
    Container,
    EngineArgs,
    EnvSource,
    HostAccess,
    Location,
    MatchExpression,
    Probe,
    SecurityContext,
    Toleration,
    Volume,
)
from ...model.errors import InputError, detached
from ...model.unknown import holds_placeholder, is_placeholder
from ...model.vocab import EFA_RESOURCE, HOSTNAME
from ...vllm.args import (
    BENCH_CLIENTS,
    BENCH_ENGINES,
    RefusedValue,
    bench_subcommand,
    downloads_weights_only,
    expand_k8s,
    find_vllm_invocation,
    fronts_a_server,
    is_vllm_image,
    literal_crash,
    names_unknown,
    parse_serve_args,
)
from ...vllm.flags import (
    BY_IMAGE,
    RELEASES_READ,
    absent_flag,
    flags_release,
    fork_build,
    line_releases,
    model_option_raises,
    release_value_refused,
    unread_release_refusal,
)
from ...vllm.imageref import parse_image
from ...vllm.versions import Version, parse_version
from ..yamlsrc import LineDict
from .claims import claim_refs
from .configfile import config_map_key, config_tokens, env_from_values, mounted_config, mounted_script
from .fields import (
    as_list,
    as_map,
    line_of,
    port_names,
    quantity,
    quantity_problem,
    str_map,
    typed_items,
    typed_list,
    typed_map,
    whole_quantity,
)
from .parse import location_at, make_locate, yaml_type


def read_node_selector(spec: Mapping[str, Any], loc: Location) -> Any:
    """The pod's nodeSelector; UNKNOWN when it (or a value in it) is not known yet."""
    value = spec.get("nodeSelector")
    if value is UNKNOWN or (isinstance(value, Mapping) and any(v is UNKNOWN for v in value.values())):
        return UNKNOWN
    if value is not None and not isinstance(value, Mapping):
        raise InputError(f"nodeSelector: expected a mapping of node labels, got {type(value).__name__}",
                         loc.file, line_of(spec, "nodeSelector") or loc.line)
    for key, label in (value or {}).items():  # map[string]string: a list or mapping is never a label value (fuzz16)
        if isinstance(label, dict | list):
            raise InputError(f"nodeSelector.{key}: expected a string, found {yaml_type(label)}; Kubernetes refuses "
                             "the object as written", loc.file, line_of(value, key) or line_of(spec, "nodeSelector")
                             or loc.line)
    selector = str_map(value)
    bound = spec.get("nodeName")
    if isinstance(bound, str) and bound and not is_placeholder(bound) and HOSTNAME not in selector:
        # mend37: a pod with spec.nodeName is not scheduled: it is that Node's (the scheduler skips a pod whose
        # nodeName is set, and the kubelet of that Node runs it), read as a pin on that Node, as matchFields
        # metadata.name is (:func:`read_affinity`)
        selector = {**selector, HOSTNAME: bound}
    return selector



def _quantity_int(resources: Mapping[str, Any], name: str, file: str | None, line: int | None) -> Any:
    """The whole-number count of resource ``name`` the container requests (limits first), None when it requests
    none, UNKNOWN when the count is not known yet (a computed value, a template placeholder such as
    ``${GPU_PER_WORKER}`` that the template's tool fills); any other value that is no whole number is an
    :class:`InputError` at its line (Kubernetes refuses the object)."""
    for part in ("limits", "requests"):
        section = resources.get(part) if isinstance(resources, dict) else None
        if not isinstance(section, dict):  # absent, null, not known yet (empty) or of another type (InputError)
            section = typed_map(resources, part, f"resources.{part}", Location(file, line))
        if name in section:
            value = section[name]
            if value is UNKNOWN or is_placeholder(value):
                return UNKNOWN
            n = whole_quantity(value)
            if n is None:
                shown = str(value).lower() if isinstance(value, bool) else repr(value)  # YAML's true, not True
                raise InputError(f"resources.{part}.{name}: expected a whole number, got {shown} "
                                 f"({quantity_problem(value)})", file, line_of(section, name) or line)
            return n
    return None


def _overcommit_allowed(name: str) -> bool:
    """Whether Kubernetes lets a container request less of resource ``name`` than its limit: a native resource
    (``cpu``, ``memory``, ``ephemeral-storage``, a ``kubernetes.io/`` name) other than huge pages. An extended
    resource (``nvidia.com/gpu``, ``amd.com/gpu``, ``vpc.amazonaws.com/efa``) and huge pages are never overcommitted
    (kubernetes pkg/apis/core/helper/helpers.go, ``IsOvercommitAllowed``: ``IsNativeResource(name) &&
    !IsHugePageResourceName(name)``; ``IsNativeResource``: no domain, or one containing ``kubernetes.io/``)."""
    native = "/" not in name or "kubernetes.io/" in name
    return native and not name.startswith("hugepages-")


def check_requests_within_limits(resources: Any, what: str, file: str | None, line: int | None) -> None:
    """An :class:`InputError` at the request's line where a container's ``resources`` set both a request and a limit
    of one resource that the API server refuses together (kubernetes pkg/apis/core/validation/validation.go,
    ``ValidateContainerResourceRequirements``): a request above its limit (``must be less than or equal to cpu
    limit``), or, for a resource that is never overcommitted (:func:`_overcommit_allowed`), a request other than its
    limit (``must be equal to nvidia.com/gpu limit``). The pod is never created, so neither number is the pod's: the
    object is an input error, never sized on one of them. A value that is no quantity, or not known yet, is left to
    the readers of the count.

    A request without a limit of a resource that is never overcommitted is refused as written too (``Limit must be
    set for non overcommitable resources``: kubernetes v1.35.4 validation.go, ``validateResourceRequirements``), but
    admission runs before validation and may write the limit: the LimitRanger plugin gives a Pod's containers their
    namespace's ``default`` limits (plugin/pkg/admission/limitranger, ``SupportsAttributes``: Pods only), and a
    mutating webhook may do it on any object: GKE Autopilot sets a workload's limits to its requests (GKE docs,
    "Resource requests in Autopilot"; Hugging Face's GKE TGI examples write ``requests: {nvidia.com/gpu: 1}`` alone).
    Neither is in the inputs, so it is not sure that Kubernetes refuses the object, and a pod that runs has a limit
    equal to the request it wrote (or is refused): the request is the pod's count (readers20), never an input
    error."""
    if not isinstance(resources, dict):
        return
    requests, limits = resources.get("requests"), resources.get("limits")
    if not isinstance(requests, dict) or not isinstance(limits, dict):
        return
    for name, asked in requests.items():
        if name not in limits:
            continue
        limit = limits[name]
        # the same value written twice (``cpu: '32'`` under both, as most manifests have it) is the same quantity, or
        # no quantity twice: nothing to judge, and no quantity parsed (two Fractions a resource; readers19 added the
        # check, lintspeed21 measured it). Equal values of one type parse alike: the same text, the same int, or
        # floats whose values are equal (0.0 and -0.0 are both 0); a bool is never a quantity.
        if type(asked) is type(limit) and asked == limit:
            continue
        req, lim = quantity(asked), quantity(limit)
        if req is None or lim is None or req == lim:
            continue
        name = str(name)
        shown_req, shown_lim = _shown_quantity(asked), _shown_quantity(limits[name])
        at = line_of(requests, name) or line
        if not _overcommit_allowed(name):
            raise InputError(
                f"{what}.resources.requests.{name}: {shown_req}, but limits.{name} is {shown_lim}; Kubernetes "
                f"refuses the pod (\"must be equal to {name} limit\": {name} is never overcommitted, so a "
                "container's request must equal its limit) and runs neither count: write the count once, under "
                "limits (the request defaults to it)", file, at)
        if req > lim:
            raise InputError(
                f"{what}.resources.requests.{name}: {shown_req} is more than limits.{name}, {shown_lim}; "
                f"Kubernetes refuses the pod (\"must be less than or equal to {name} limit\"): lower the request or "
                "raise the limit", file, at)


#: What a pod-level ``spec.resources`` may name (PodLevelResources: alpha 1.32, beta and on by default from 1.34):
#: kubernetes v1.35.4 staging/src/k8s.io/component-helpers/resource/helpers.go, ``supportedPodLevelResources`` (cpu,
#: memory) and ``IsSupportedPodLevelResource`` (and any ``hugepages-`` size).
POD_LEVEL_RESOURCES = ("cpu", "memory")


def check_pod_level_resources(spec: Mapping[str, Any], path: str, file: str | None, line: int | None) -> None:
    """An :class:`InputError` at its line where a pod's own ``resources`` (``spec.resources``, beside its containers')
    name a resource other than cpu, memory or huge pages (``nvidia.com/gpu``): the API server refuses it
    (pkg/apis/core/validation/validation.go, ``validatePodResourceName``: ``Unsupported value``) wherever the
    PodLevelResources gate is on (by default from 1.34, pkg/features/kube_features.go), and drops the whole field
    where it is off (pkg/api/pod/util.go, ``dropDisabledPodLevelResources``). On no release does it give the pod a GPU,
    so it is never read as one: the pod's accelerators are its containers' limits (readers20). Asked of the pod specs
    the API server validates as written only (``read_pod``'s ``validated``); in an operator's object the field is
    not read either."""
    resources = spec.get("resources")
    if not isinstance(resources, dict):
        return
    for part in ("requests", "limits"):
        section = resources.get(part)
        if not isinstance(section, dict):
            continue
        for name in section:
            name = str(name)
            if name in POD_LEVEL_RESOURCES or name.startswith("hugepages-"):
                continue
            raise InputError(
                f"{path}.resources.{part}.{name}: a pod's own resources take only cpu, memory and hugepages-*; "
                f"Kubernetes refuses the pod (\"Unsupported value: \"{name}\"\": PodLevelResources, on by default "
                "from 1.34; before, the field is dropped), and on no release does it give the pod a device: request "
                f"{name} in the limits of the container that uses it", file, line_of(section, name) or line)


def _shown_quantity(value: Any) -> str:
    """A quantity as a message quotes it: as written."""
    return str(value).strip()


def _efa(resources: Mapping[str, Any], file: str | None, line: int | None) -> Any:
    """The container's ``vpc.amazonaws.com/efa`` devices: a count, 0 when it requests none, or UNKNOWN."""
    count = _quantity_int(resources, EFA_RESOURCE, file, line)
    return 0 if count is None else count


#: What in an ``nvidia.com/`` resource's name says it is a NIC, not a GPU (the NVIDIA Network Operator's SR-IOV and
#: host-device networks name their resources; ``nvidia.com/gpu``, ``nvidia.com/mig-1g.10gb`` hold none of these).
_NIC_WORDS = ("rdma", "hostdev", "sriov", "mlnx", "roce")


def _nics(resources: Mapping[str, Any]) -> list[str]:
    """The RDMA or NIC extended resources a container requests (limits or requests), as written: ``rdma/...`` (the
    Mellanox k8s-rdma-shared-dev-plugin's ``rdma/<resourceName>``), and ``nvidia.com/...`` ones naming a NIC."""
    out: list[str] = []
    for part in ("limits", "requests"):
        section = resources.get(part)
        if not isinstance(section, Mapping):
            continue
        for key in section:
            name = str(key)
            nic = name.startswith("rdma/") or (name.startswith("nvidia.com/")
                                               and any(w in name[len("nvidia.com/"):].lower() for w in _NIC_WORDS))
            if nic and name not in out:
                out.append(name)
    return out


def template_counts(resources: Any) -> bool:
    """Whether a container's ``resources`` (limits or requests) hold a template placeholder as a quantity
    (``nvidia.com/gpu: ${GPU_PER_WORKER}``): Kubernetes refuses such an object as written, so the document it is
    in is a template a tool fills before it is applied."""
    if not isinstance(resources, Mapping):
        return False
    return any(is_placeholder(v) for part in ("limits", "requests")
               if isinstance(resources.get(part), Mapping) for v in resources[part].values())


def template_image(container: Any) -> bool:
    """Whether a container's ``image`` holds a template placeholder (``image: ${IMAGE_NAME}``,
    ``registry/${PROJECT}/vllm:{{ .Values.tag }}``): no image reference admits ``$``, ``{`` or ``}`` (the distribution
    reference grammar), so the kubelet refuses to pull it (InvalidImageName) and the pod never runs as written; the
    document is a template a tool (envsubst, Helm) fills before it is applied."""
    return isinstance(container, Mapping) and holds_placeholder(container.get("image"))


def template_name(obj: Any) -> bool:
    """Whether an object's own ``metadata.name`` or ``metadata.namespace`` holds a template placeholder
    (``name: ${JOB_NAME}``, ``vllm-{{ .Release.Name }}``): the API server admits only DNS-1123 names (lower-case
    letters, digits, ``-`` and ``.``), so it refuses such an object as written and the document is a template a
    tool (envsubst, Helm) fills before it is applied."""
    meta = obj.get("metadata") if isinstance(obj, Mapping) else None
    return isinstance(meta, Mapping) and any(holds_placeholder(meta.get(k)) for k in ("name", "namespace"))


#: An absent probe handler (what :func:`.fields.as_map` reads a field that is not a mapping as).
_NO_HANDLER: Mapping[str, Any] = MappingProxyType({})


def _probe(kind: str, raw: Any) -> Probe | None:
    if not isinstance(raw, dict) or not raw:  # as_map's test, written out: three probes a container
        return None
    p: Mapping[str, Any] = raw
    http = p.get("httpGet")
    http = http if isinstance(http, dict) else _NO_HANDLER
    tcp = p.get("tcpSocket")
    tcp = tcp if isinstance(tcp, dict) else _NO_HANDLER
    grpc = p.get("grpc")
    grpc = grpc if isinstance(grpc, dict) else _NO_HANDLER
    port = http.get("port", tcp.get("port", grpc.get("port")))
    handler = None
    for h in _HANDLERS:
        if h in p:
            handler = h
            break
    return Probe(
        kind=kind,  # type: ignore[arg-type]
        path=str(http["path"]) if http.get("path") is not None else None,
        port=port,
        handler=handler,
        initial_delay_seconds=_probe_int(p, "initialDelaySeconds", 0),
        period_seconds=_probe_int(p, "periodSeconds", 10),
        failure_threshold=_probe_int(p, "failureThreshold", 3),
        timeout_seconds=_probe_int(p, "timeoutSeconds", 1),
    )


#: A probe's handlers, in the order :func:`_probe` names the first one written.
_HANDLERS = ("httpGet", "tcpSocket", "grpc", "exec")


def _probe_int(p: Mapping[str, Any], key: str, default: int) -> int:
    """A probe's whole-number field, else ``default`` (absent, or not a number)."""
    v = p.get(key)
    try:
        return int(v) if v is not None else default
    except (TypeError, ValueError, OverflowError):  # OverflowError: .inf
        return default


def _env(c: Mapping[str, Any], injected: Mapping[str, str], what: str, where: Location,
         refs: dict[str, tuple[str, str]] | None = None, from_values: Mapping[str, str] | None = None,
         ) -> tuple[dict[str, Any], dict[str, str], dict[str, Location], dict[str, str]]:
    """(Container.env with UNKNOWN for valueFrom, literal env for expansion, the line of each variable, what
    was written for each value that referenced other variables with ``$(VAR)``, :data:`UNKNOWN_TOKEN` for a plain
    value not known); ``refs`` collects the
    ``valueFrom.configMapKeyRef`` of each variable; ``from_values`` are the variables the container's envFrom
    sets when every source is a ConfigMap of the input (configfile.env_from_values), else None."""
    refs = {} if refs is None else refs
    written: dict[str, str] = {}
    env: dict[str, Any] = {}
    literal: dict[str, str] = {**injected, **(from_values or {})}
    lines: dict[str, Location] = {}
    # Kubernetes resolves envFrom first, then each env value over envFrom, the entries before it and the
    # Service variables (kubelet makeEnvironmentVariables)
    unknown: set[str] = {"*"} if c.get("envFrom") and from_values is None else set()
    for i, item in enumerate(typed_items(c, "env", f"{what}.env", where)):
        at = item.line if isinstance(item, LineDict) else where.line
        name = item.get("name")
        if type(name) is not str:  # the message and its line are made only for a value that is no string
            name = string_field(name, f"{what}.env[{i}].name", where.file, line_of(item, "name") or at)
            if not isinstance(name, str):
                continue
        if "value" in item and type(item["value"]) is not str:
            string_field(item["value"], f"{what}.env[{i}].value ({name})", where.file, line_of(item, "value") or at)
        if isinstance(item, LineDict):
            lines[name] = location_at(where.file, item.line)
        if written.get(name) == UNKNOWN_TOKEN:
            del written[name]  # an entry before of the same name: Kubernetes keeps the last
        if "value" in item and item["value"] is UNKNOWN:
            env[name] = UNKNOWN
            literal.pop(name, None)
            unknown.add(name)
            written[name] = UNKNOWN_TOKEN  # a plain value not known (computed at preview): no Secret's
        elif "value" in item:
            raw = "" if item["value"] is None else str(item["value"])
            try:
                value = expand_k8s(raw, literal)  # env values may reference earlier variables
            except InputError as e:
                raise InputError(f"{what}.env[{i}].value ({name}): {e.message}", where.file,
                                 line_of(item, "value") or at) from None
            if value != raw:
                written[name] = raw
            if names_unknown(value, unknown):  # an earlier variable from a Secret: the value is not known
                env[name] = UNKNOWN
                literal.pop(name, None)
                unknown.add(name)
                continue
            env[name] = value
            literal[name] = value
        elif "valueFrom" in item:
            env[name] = UNKNOWN
            literal.pop(name, None)
            ref = as_map(as_map(item.get("valueFrom")).get("configMapKeyRef"))
            known = None
            if isinstance(ref.get("name"), str) and isinstance(ref.get("key"), str):
                refs[name] = (ref["name"], ref["key"])
                known = config_map_key(ref["name"], ref["key"])
            if known is None:
                unknown.add(name)
            else:  # a ConfigMap of the input: $(NAME) in the args and later env values is its value, as kubelet does
                literal[name] = known
        else:
            env[name] = ""
            literal[name] = ""
    for k, v in injected.items():
        env.setdefault(k, v)
    return env, literal, lines, written


def _env_from(c: Mapping[str, Any], what: str, where: Location) -> list[EnvSource]:
    out: list[EnvSource] = []
    for i, item in enumerate(typed_items(c, "envFrom", f"{what}.envFrom", where)):
        at = Location(where.file, item.line if isinstance(item, LineDict) else where.line)
        prefix = item.get("prefix")
        for key, kind in (("configMapRef", "configMap"), ("secretRef", "secret")):
            if key in item:
                ref = typed_map(item, key, f"{what}.envFrom[{i}].{key}", at)
                name = item[key] if item[key] is UNKNOWN else ref.get("name")
                out.append(EnvSource(kind, name if name is UNKNOWN else str(name or ""),  # type: ignore[arg-type]
                                     prefix if prefix is UNKNOWN else str(prefix or ""), at))
    return out


def _security(pod_sc: Mapping[str, Any], c: Mapping[str, Any], what: str, where: Location) -> SecurityContext:
    """The container's securityContext over the pod's (seccomp may be set on either)."""
    sc = typed_map(c, "securityContext", f"{what}.securityContext", where)
    out = SecurityContext(location=Location(where.file, line_of(c, "securityContext") or where.line))
    privileged = sc.get("privileged")
    if privileged is UNKNOWN or isinstance(privileged, bool):
        out.privileged = privileged
    elif privileged is not None:
        raise InputError(f"{what}.securityContext.privileged: expected true or false, found {yaml_type(privileged)}",
                         where.file, line_of(sc, "privileged") or where.line)
    caps = typed_map(sc, "capabilities", f"{what}.securityContext.capabilities", where)
    out.capabilities_add = [str(x).upper() for x in typed_list(caps, "add", f"{what}.securityContext.capabilities.add",
                                                               where) if x is not UNKNOWN]
    if any(x is UNKNOWN for x in as_list(caps.get("add"))):
        out.capabilities_add.append("<unknown>")
    for holder in (sc, pod_sc):
        profile = holder.get("seccompProfile")
        if profile is UNKNOWN:
            out.seccomp = UNKNOWN
            break
        kind = as_map(profile).get("type")
        if kind is not None:
            out.seccomp = kind if kind is UNKNOWN else str(kind)
            break
    return out


def read_host_access(spec: Mapping[str, Any], what: str, where: Location) -> HostAccess:
    """``hostNetwork``, ``hostIPC``, ``hostPID`` of a pod spec (a value that is not a boolean is an InputError)."""
    host = HostAccess()
    for key, attr in (("hostNetwork", "network"), ("hostIPC", "ipc"), ("hostPID", "pid")):
        value = spec.get(key)
        if value is None:
            continue
        if value is not UNKNOWN and not isinstance(value, bool):
            raise InputError(f"{what}.{key}: expected true or false, found {yaml_type(value)}", where.file,
                             line_of(spec, key) or where.line)
        setattr(host, attr, value)
        host.locations[attr] = Location(where.file, line_of(spec, key) or where.line)
    return host


def string_field(value: Any, what: str, file: str | None, line: int | None) -> Any:
    """``value`` of a field Kubernetes types as a string (a container's ``name``, ``image``, an ``args`` word, an
    ``env`` name or value): the string, None when null (the API server reads null there as the empty string),
    UNKNOWN when not known yet; a number, a boolean, a list or a mapping is an :class:`InputError` at ``line``:
    the API server refuses the object (``cannot unmarshal number into Go struct field Container.args of type
    string``), so it is never read as the text the value would have had quoted."""
    if value is None or value is UNKNOWN or isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        raise InputError(f"{what}: expected a string, found {yaml_type(value)}", file, line)
    shown = str(value).lower() if isinstance(value, bool) else str(value)
    raise InputError(f"{what}: expected a string, found {yaml_type(value)} ({shown}); Kubernetes refuses the object "
                     f"as written: quote it (\"{shown}\")", file, line)


def _tokens(c: Mapping[str, Any], key: str, container: str, file: str | None, line: int | None) -> list[str]:
    """A container's ``command`` or ``args``: words (null reads as the empty word, as the API server reads it);
    any other value that is no string is an :class:`InputError` (:func:`string_field`)."""
    if c.get(key) is UNKNOWN:  # the whole list is not known yet: a word that may carry any flag, not none
        return [UNKNOWN_TOKEN]
    words: list[str] = []
    written = c.get(key) if isinstance(c, dict) else None
    if written is None:  # absent or null: no words (typed_list's answer, without its message made)
        return words
    at = line_of(c, key) or line
    for i, t in enumerate(written if isinstance(written, list)
                          else typed_list(c, key, f"container {container!r}: {key}", Location(file, line))):
        if type(t) is str:  # the common word: no message made for it
            words.append(t)
            continue
        word = string_field(t, f"container {container!r}: {key}[{i}]", file, at)
        words.append(UNKNOWN_TOKEN if word is UNKNOWN else word or "")
    return words


class Pod:
    """What one pod template contributes to a serving group."""

    __slots__ = ("containers", "engine", "vllm", "vllm_raw", "gpus", "accelerator_resource", "spec", "meta",
                 "volumes", "image_vllm", "unread", "unread_why", "crash", "crash_pending", "crash_placeholder",
                 "crash_advisory", "locations", "host", "more", "flag_check", "pod_gpus", "pod_gpus_from")

    def __init__(self) -> None:
        self.containers: list[Container] = []
        self.engine: EngineArgs | None = None
        self.vllm: Container | None = None
        self.vllm_raw: Mapping[str, Any] = {}
        self.gpus: Any = None
        self.accelerator_resource: str | None = None
        self.spec: Mapping[str, Any] = {}
        self.meta: Mapping[str, Any] = {}
        self.volumes: list[Volume] = []
        self.image_vllm = False
        self.unread: Container | None = None  # the first container that looks like vLLM but did not parse
        self.unread_why: str | None = None  # what its command runs instead of a server, when that is known
        self.crash: str | None = None  # why vLLM would exit at start-up with the command as written
        #: the variable whose absence makes it so (an undefined $(VAR)): whether it is sure depends on what
        #: builds the pod (note_launch), else None
        self.crash_pending: str | None = None
        self.crash_placeholder = False  # the crash is a template's placeholder (``${TP}``): see Crash.placeholder
        #: the crash holds at every release read but the image names none of them (flags.unread_release_refusal): a
        #: release not read might take the command, so SW003 reports it as advisory
        self.crash_advisory = False
        self.locations: dict[str, Location] = {}  # see ServingGroup.locations
        self.host = HostAccess()
        self.more: list[Pod] = []  # the same pod seen from each further container that runs a vLLM server
        #: what judges the engine container's flags again against a release the workload declares
        #: (``shardwise.dev/vllm-version``, :func:`judge_declared_release`), kept only where its image names no
        #: release read and its command pins none
        self.flag_check: tuple[Any, ...] | None = None
        #: the pod's request of the server's accelerator resource as the scheduler counts it, where it is more than the
        #: server's own (:func:`scheduled_request`), and what else in the pod requests it; None and () otherwise
        self.pod_gpus: Any = None
        self.pod_gpus_from: tuple[str, ...] = ()

    def for_container(self, c: Container, engine: EngineArgs, raw: Mapping[str, Any]) -> Pod:
        """This pod as the serving group of another vLLM container in it (its own engine and GPUs)."""
        other = Pod()
        for slot in ("containers", "spec", "meta", "volumes", "image_vllm", "host"):
            setattr(other, slot, getattr(self, slot))
        other.locations = {k: v for k, v in self.locations.items()
                           if k in ("nodeSelector", "affinity", "tolerations", "volumes", "podSpec")}
        other.engine, other.vllm, other.vllm_raw = engine, c, raw
        other.gpus, other.accelerator_resource = c.gpus, c.accelerator_resource
        return other


def _accelerators(resources: Mapping[str, Any], file: str | None, line: int | None) -> tuple[Any, str | None]:
    """(count, resource) of the accelerator the container requests, else (None, None): the first resource of
    the vendor table it names, else the first other ``<domain>/<name>`` extended resource, a family the
    table does not know (its count UNKNOWN: what it holds is not known)."""
    for resource in resource_names():
        count = _quantity_int(resources, resource, file, line)
        if count is not None:
            return count, resource
    for part in ("limits", "requests"):
        for name in typed_map(resources, part, f"resources.{part}", Location(file, line)):
            name = str(name)
            if not is_extended_resource(name):
                continue
            if family_known(name):  # a MIG slice, a Furiosa partition
                count = _quantity_int(resources, name, file, line)
                if count is not None:
                    return count, name
                continue
            return UNKNOWN, name
    return None, None


def _key_location(d: Any, key: str, file: str | None) -> Location | None:
    return location_at(file, d.key_lines[key]) if isinstance(d, LineDict) and key in d.key_lines else None


def read_pod(template_meta: Any, pod_spec: Any, file: str | None, lines: Sequence[str] | None,
             injected: Mapping[str, str], entrypoint: tuple[str | None, Sequence[str]] | None = None,
             where: Location | None = None, path: str = "spec", validated: bool = False) -> Pod:
    """Read one pod spec. ``entrypoint`` is ``(container name, command)``: the command the serving
    runtime's image runs when that container (None: the first) gives only ``args``. ``where`` and
    ``path`` (``"spec.template.spec"``) name the pod spec in input errors: a field of the wrong type is
    an :class:`InputError` at its line, never read as absent. ``validated``: the pod spec is one the API server
    validates as written (a Pod's, or the template of a Deployment, StatefulSet, Job ...: not an operator's object,
    whose CRD schema may prune a field and whose controller writes the pods), so a pod-level ``resources`` Kubernetes
    refuses is an input error (:func:`check_pod_level_resources`).

    Every container that runs a vLLM server is read: the first becomes the pod's engine, each further
    one a :meth:`Pod.for_container` view in ``Pod.more``. A native sidecar (an init container with ``restartPolicy:
    Always``) that runs one is read after the app containers (:func:`_native_vllm`)."""
    pod = Pod()
    where = where or Location(file, None)
    pod.meta = as_map(template_meta)
    pod.spec = spec = as_map(pod_spec)
    pod.host = read_host_access(spec, path, where)
    pod_sc = typed_map(spec, "securityContext", f"{path}.securityContext", where)
    raw_containers = typed_items(spec, "containers", f"{path}.containers", where)
    refs = claim_refs(spec)
    if validated:
        check_pod_level_resources(spec, path, file, where.line)
    for idx, init in enumerate(as_list(spec.get("initContainers"))):  # the API server validates them alike
        if isinstance(init, dict):
            check_requests_within_limits(init.get("resources"), f"{path}.initContainers[{idx}]", file,
                                         init.line if isinstance(init, LineDict) else where.line)
    inits = as_list(spec.get("initContainers"))
    entries: list[tuple[Any, str, list[Any], int, bool]] = [
        (c, f"{path}.containers[{i}]", raw_containers, i, False) for i, c in enumerate(raw_containers)]
    entries += [(c, f"{path}.initContainers[{i}]", inits, i, True) for i, c in enumerate(inits) if _native_vllm(c)]
    sidecars: list[Container] = []  # the native sidecars read: kept only where one runs the vLLM server
    for idx, (c, what, siblings, at, sidecar) in enumerate(entries):
        cline = c.line if isinstance(c, LineDict) else where.line
        cloc = location_at(file, cline)
        name = c.get("name")
        if type(name) is not str:
            name = string_field(name, f"{what}.name", file, line_of(c, "name") or cline)
        name = str(name or f"container-{idx}")
        raw_image = c.get("image")
        if type(raw_image) is not str:
            raw_image = string_field(raw_image, f"{what}.image", file, line_of(c, "image") or cline)
        image = str(raw_image) if raw_image is not None and raw_image is not UNKNOWN else None
        looks_vllm = bool(image and is_vllm_image(image))
        pod.image_vllm = pod.image_vllm or looks_vllm
        command = _tokens(c, "command", name, file, cline)
        args = _tokens(c, "args", name, file, cline)
        env_refs: dict[str, tuple[str, str]] = {}
        from_values = env_from_values(c.get("envFrom")) if c.get("envFrom") else None
        env, literal, env_lines, env_written = _env(c, injected, what, cloc, env_refs, from_values)
        env_from = _env_from(c, what, cloc)
        resources = typed_map(c, "resources", f"{what}.resources", cloc)
        check_requests_within_limits(resources, what, file, cline)
        gpus, accelerator = _accelerators(resources, file, cline)
        written = {part: resources.get(part) if isinstance(resources, dict) else None
                   for part in ("requests", "limits")}
        request_only = (accelerator is not None and isinstance(written["requests"], dict)
                        and accelerator in written["requests"]
                        and not (isinstance(written["limits"], dict) and accelerator in written["limits"]))
        ports = typed_items(c, "ports", f"{what}.ports", cloc)
        for i, port in enumerate(ports):
            number = port.get("containerPort")
            if number is None or number is UNKNOWN or is_placeholder(number) or (
                    isinstance(number, int) and not isinstance(number, bool)):
                continue  # a template's ${PORT} is filled before the object is applied
            shown = str(number).lower() if isinstance(number, bool) else f'"{number}"' if isinstance(number, str) \
                else str(number)
            fix = f": write the number without quotes ({number.strip()})" if isinstance(number, str) and \
                number.strip().isascii() and number.strip().isdigit() else ""
            raise InputError(f"{what}.ports[{i}].containerPort: expected an integer, found {yaml_type(number)} "
                             f"({shown}); Kubernetes refuses the object as written{fix}", file,
                             line_of(port, "containerPort") or cline)
        # a mount's name a list or a mapping was read as its Python text (``['dshm']``): SW401 mandatory, "a volume the
        # pod does not define", on a value the API server refuses (fuzz22); it is an input error, as an env name is
        mount_items = typed_items(c, "volumeMounts", f"{what}.volumeMounts", cloc)
        # (its message and line made only for a name that is no string: string_field passes a string, null or UNKNOWN)
        for mount_at, mount in enumerate(mount_items):
            if "name" in mount and not isinstance(mount["name"], str):
                string_field(mount["name"], f"{what}.volumeMounts[{mount_at}].name", file,
                             line_of(mount, "name") or cline)
        container = Container(
            name=name,
            image=UNKNOWN if raw_image is UNKNOWN else image,
            command=command,
            args=args,
            env=env,
            ports=[int(p["containerPort"]) for p in ports if isinstance(p.get("containerPort"), int)],
            gpus=gpus,
            accelerator_resource=accelerator,
            gpus_request_only=request_only,
            efa=_efa(resources, file, cline),
            nics=_nics(resources),
            volume_mounts={str(m["name"]): str(m.get("mountPath", "")) for m in mount_items if "name" in m},
            location=cloc,
            env_from=env_from,
            env_locations=env_lines,
            image_location=_key_location(c, "image", file),
            port_names=port_names(c.get("ports")),
            security=_security(pod_sc, c, what, cloc),
            resource_claims=[str(x.get("name")) for x in typed_items(resources, "claims", f"{what}.resources.claims",
                                                                     cloc) if x.get("name")],
            claim_refs=refs,
            env_written=env_written,
            env_refs=env_refs,
            runtime_class=spec.get("runtimeClassName") if spec.get("runtimeClassName") in (None, UNKNOWN)
            else str(spec.get("runtimeClassName")),
        )
        for key, kind in (("startupProbe", "startup"), ("livenessProbe", "liveness"),
                          ("readinessProbe", "readiness")):
            probe = _probe(kind, c.get(key))
            if probe is not None:
                container.probes[kind] = probe
        pod.containers.append(container)
        if sidecar:
            sidecars.append(container)
        run = command
        if entrypoint is not None and not command and (entrypoint[0] in (None, name) if idx == 0 and not sidecar
                                                       else entrypoint[0] == name):
            run = list(entrypoint[1])
        if not (run or args or image):
            continue
        key_lines = [x for x in (line_of(c, "command") if "command" in c else None,
                                 line_of(c, "args") if "args" in c else None) if x is not None]
        start = min(key_lines) if key_lines else cline
        nxt = siblings[at + 1] if at + 1 < len(siblings) else None
        end = nxt.line - 1 if isinstance(nxt, LineDict) and nxt.line else None
        flag_loc = location_at(file, (line_of(c, "args") if "args" in c else None) or start)
        locate = make_locate(lines, start, end, file)
        unknown_env = {k for k, v in env.items() if v is UNKNOWN} | (
            {"*"} if env_from and from_values is None else set())  # envFrom of ConfigMaps of the input is known
        for j, word in enumerate((*run, *args)):  # bounded before any reader expands them (fuzz15)
            try:
                expand_k8s(str(word), literal)
            except InputError as e:
                part = f"command[{j}]" if j < len(run) else f"args[{j - len(run)}]"
                raise InputError(f"{what}.{part}: {e.message}", flag_loc.file, flag_loc.line) from None
        if c.get("volumeMounts"):  # a shell script mounted from a ConfigMap of the input that the command runs
            script = mounted_script([expand_k8s(str(w), literal) for w in (*run, *args)], c, spec)
            if script is not None and find_vllm_invocation(run, args, literal, image, unknown_env) is None:
                run, args = ["/bin/sh", "-c", script[0], *script[1]], []  # read as the container's own script
        crash = literal_crash(run, args, literal, image, unknown_env)
        if crash is not None:  # a word vLLM exits on: read in its place a word that leaves the setting unknown
            words = [*run, *args]
            crashed, words[crash.at] = words[crash.at], crash.word
            run, args = words[:len(run)], words[len(run):]
        # what parse_vllm_command does, with the invocation kept: the --config file and the absent flag read it too
        invocation = find_vllm_invocation(run, args, literal, image, unknown_env)
        refused: RefusedValue | None = None
        engine = None
        if invocation is not None:
            engine, tokens, refused = _parse_refusing(invocation[1], invocation[0], flag_loc, locate)
            invocation = (invocation[0], tokens)
        if engine is not None and invocation is not None and isinstance(engine.extra.get("config"), str):
            # `--config FILE` mounted from a ConfigMap of the input: its settings, then the command line's
            config_text = mounted_config(engine.extra["config"], c, spec)
            settings = config_tokens(config_text) if config_text is not None else None
            if settings is not None:
                engine = parse_serve_args([*settings, *_without_config(invocation[1])], invocation[0], flag_loc,
                                          locate)
        if engine is not None and crash is None and refused is not None and pod.engine is None \
                and pod.crash is None:
            pod.crash = refused.crash
            pod.locations["crash"] = Location(refused.file, refused.line) if refused.line else flag_loc
        elif engine is not None and crash is not None and pod.engine is None and pod.crash is None:
            pod.crash = crash.why
            pod.crash_pending = crash.pending
            pod.crash_placeholder = crash.placeholder
            pod.locations["crash"] = (locate(crashed) if locate is not None else None) or flag_loc
        elif engine is not None and pod.engine is None and pod.crash is None:
            _absent_flag(pod, run, args, invocation, image, locate, flag_loc)
        if engine is not None:
            container.runs_vllm = True
            if pod.engine is None:
                pod.engine = engine
                pod.vllm = container
                pod.vllm_raw = c
                pod.gpus = container.gpus
                pod.accelerator_resource = accelerator
                _container_locations(pod.locations, c, file)
                _doubled_serve(pod, engine, locate, flag_loc)
            else:
                other = pod.for_container(container, engine, c)
                _container_locations(other.locations, c, file)
                _doubled_serve(other, engine, locate, flag_loc)
                pod.more.append(other)
        elif not sidecar and looks_vllm and pod.unread is None and (bench := bench_subcommand(run, args)) \
                not in BENCH_CLIENTS \
                and not fronts_a_server(image, container.gpus, [str(w) for w in (*run, *args)], env) \
                and downloads_weights_only(run, args) is None:
            # (a proxy, router or gateway named for vLLM, in front of a server: no engine either; nor a Job in the
            # vLLM image that only downloads the weights, `modelscope download` or `hf download`)
            # vLLM's benchmark client (`vllm bench serve`) on the vLLM image is no server and no GPU workload
            pod.unread = container
            pod.unread_why = _bench_why(bench)
            pod.locations["unread"] = (_key_location(c, "command", file) or _key_location(c, "args", file)
                                       or container.location)
    idle = [c for c in sidecars if not c.runs_vllm]
    if idle:  # a native sidecar that runs no vLLM server is not read as one of the pod's containers (as before)
        pod.containers[:] = [c for c in pod.containers if all(c is not x for x in idle)]
    if isinstance(spec, LineDict) and spec.line is not None:  # where a selector or affinity would go
        pod.locations["podSpec"] = location_at(file, spec.line)
    for key in ("nodeSelector", "affinity", "tolerations", "volumes"):
        found = _key_location(spec, key, file)
        if found is not None:
            pod.locations[key] = found
            for other in pod.more:
                other.locations[key] = found
    for vol_at, v in enumerate(typed_items(spec, "volumes", f"{path}.volumes", where)):
        if "name" not in v:
            continue
        if not isinstance(v["name"], str):  # as a mount's name, above
            string_field(v["name"], f"{path}.volumes[{vol_at}].name", where.file, line_of(v, "name") or where.line)
        vol = Volume(name=str(v["name"]), kind="other")
        for kind in ("emptyDir", "persistentVolumeClaim", "secret", "hostPath", "configMap"):
            if kind in v:
                vol.kind = kind
                break
        if vol.kind == "emptyDir":
            ed = as_map(v.get("emptyDir"))
            vol.medium = str(ed["medium"]) if ed.get("medium") else None
            vol.size_limit = str(ed["sizeLimit"]) if ed.get("sizeLimit") is not None else None
        pod.volumes.append(vol)
    for view in (pod, *pod.more):
        if view.accelerator_resource is not None and view.gpus is not UNKNOWN:
            view.pod_gpus, view.pod_gpus_from = scheduled_request(spec, view.accelerator_resource, view.vllm_raw,
                                                                  view.gpus, file, where.line)
    return pod


def _native_vllm(c: Any) -> bool:
    """Whether an init container is a native sidecar (``restartPolicy: Always``: it runs for the pod's life, beside the
    app containers; Kubernetes 1.28+, KEP-753) that may run the vLLM server: a vLLM image, or ``vllm`` in its command
    or args. Such a sidecar is read like an app container; the server it runs is the pod's (the app containers'
    first, where both run one)."""
    if not isinstance(c, dict) or c.get("restartPolicy") != "Always":
        return False
    image = c.get("image")
    if isinstance(image, str) and is_vllm_image(image):
        return True
    return any(isinstance(w, str) and "vllm" in w.lower() for key in ("command", "args") for w in as_list(c.get(key)))


def scheduled_request(spec: Mapping[str, Any], resource: str, server: Any, own: Any, file: str | None,
                      line: int | None) -> tuple[Any, tuple[str, ...]]:
    """(the count of ``resource`` one pod of ``spec`` requests as the scheduler counts it, what in the pod other
    than the ``server`` container, whose own count is ``own``, requests it), where that count is not ``own``;
    (None, ()) where it is.

    Kubernetes sums the app containers' requests and adds every native sidecar's (an init container with
    ``restartPolicy: Always``, which runs for the pod's life), and takes the larger of that and the peak of the init
    phase, where each init container runs beside the sidecars started before it (KEP-753, "Resources calculation
    for scheduling and pod admission"; kubernetes staging/src/k8s.io/component-helpers/resource/helpers.go,
    ``AggregateContainerRequests``). The scheduler's NodeResourcesFit filter places the pod on a node only where
    that much is allocatable, so a GPU a native sidecar or another container requests counts for the pod's fit
    though the vLLM server does not see it. UNKNOWN where a count is not known yet. A count is read as
    :func:`_quantity_int` reads the server's (limits first: an extended resource's request equals its limit)."""
    running, sidecars, peak = 0, 0, 0
    peak_from: tuple[str, ...] = ()  # the init container whose run is the peak, and the sidecars beside it
    others: list[str] = []
    started: list[str] = []  # the native sidecars started so far that request the resource
    unknown = False

    def count(c: Any) -> int:
        nonlocal unknown
        n = _quantity_int(as_map(c.get("resources")), resource, file, c.line if isinstance(c, LineDict) else line)
        if n is UNKNOWN:
            unknown = True
            return 0
        return int(n or 0)

    for c in as_list(spec.get("containers")):
        if isinstance(c, dict):
            n = count(c)
            running += n
            if n and c is not server:
                others.append(f"container `{c.get('name')}` ({n})")
    for c in as_list(spec.get("initContainers")):
        if not isinstance(c, dict):
            continue
        n = count(c)
        if c.get("restartPolicy") == "Always":  # the server itself may be one (its count is its own)
            running += n
            sidecars += n
            if n and c is not server:
                others.append(f"native sidecar `{c.get('name')}` ({n})")
                started.append(others[-1])
            if sidecars > peak:
                peak, peak_from = sidecars, ()
        elif n + sidecars > peak:
            peak, peak_from = n + sidecars, (*started, f"init container `{c.get('name')}` ({n})")
    if unknown:
        return UNKNOWN, tuple(others)
    mine = own if isinstance(own, int) else 0
    total = max(running, peak)
    if total == mine:
        return None, ()
    return (peak, peak_from) if peak > running and peak_from else (total, tuple(others))


def _parse_refusing(tokens: Sequence[str], form: str, flag_loc: Location, locate: Any
                    ) -> tuple[EngineArgs, list[str], RefusedValue | None]:
    """vLLM's arguments parsed, each value vLLM refuses at start-up (:class:`~shardwise.rules.vllm.args.RefusedValue`)
    read as unknown in its place: (the settings, the arguments so read, the first refusal or None). The workload is
    still one (its other settings and its findings stand); the refusal is its crash (SW003)."""
    words = list(tokens)
    first: RefusedValue | None = None
    for _ in range(len(words) + 1):  # each round reads one more word as unknown
        try:
            return parse_serve_args(words, form, flag_loc, locate), words, first
        except RefusedValue as e:
            if not 0 <= e.at < len(words) or UNKNOWN_TOKEN in words[e.at]:
                raise
            if first is None:  # kept past this handler: without the tracebacks, which hold this frame and so
                first = e      # ``first`` (a cycle per refused value, never freed with the collector off: review29)
                detached(first)
            spelled = words[e.at].partition("=")[0]
            words[e.at] = f"{spelled}={UNKNOWN_TOKEN}" if e.inline else UNKNOWN_TOKEN
    raise AssertionError("unreachable: every round reads one more word as unknown")


def _bench_why(bench: str | None) -> str | None:
    """What the command of a container that runs vLLM's benchmark ``bench`` (not the client) does instead of
    starting a server, as the SW002 finding says it; None for any other command."""
    if bench in BENCH_ENGINES:
        return (f"runs vLLM's offline benchmark `vllm bench {bench}`, which loads the model on the container's GPUs "
                "with engine flags but starts no server; shardwise reads only a server's launch, so its layout is not "
                "checked")
    if bench == "sweep":
        return ("runs `vllm bench sweep`, which starts the servers its --serve-cmd string names; shardwise does not "
                "read a server's launch from that string")
    return None


def _absent_flag(pod: Pod, run: Sequence[str], args: Sequence[str], found: tuple[str, list[str]] | None,
                 image: str | None, locate: Any, flag_loc: Location) -> None:
    """A flag the release of a vLLM image does not define (:mod:`shardwise.rules.vllm.flags`): vLLM exits on it.
    ``found`` is the container's vLLM invocation (:func:`~shardwise.rules.vllm.args.find_vllm_invocation`). An image
    naming no release read is judged only on what every release read refuses, as advisory
    (:func:`~shardwise.rules.vllm.flags.unread_release_refusal`). A release the command pins with pip is the one
    judged, as an image's would be (:func:`~shardwise.rules.vllm.flags.flags_release`)."""
    if found is None:
        return
    words = [str(w) for w in (*run, *args)]
    release, said, named_as, named = flags_release(image, words)
    if release is None and named_as is None and not fork_build(image):  # a fork's parser is not the release declared
        pod.flag_check = (words, found, bool(run), locate, flag_loc)
    patches = line_releases(image) if release is None and named_as is None else ()
    if patches:  # an AWS DLC floating tag: one of its line's patches
        _judge_line(pod, words, found, bool(run), patches, image or "", locate, flag_loc)
        return
    if release is None:
        refused = unread_release_refusal(words, found[1], image, named_as, named)
        if refused is not None:
            pod.crash, pod.crash_advisory = refused[1], True
            pod.locations["crash"] = (locate(refused[0]) if locate is not None else None) or flag_loc
        return
    _judge_at(pod, words, found, bool(run), release, said, locate, flag_loc)


def _refusal_at(words: list[str], found: tuple[str, list[str]], run: bool,
                release: Version) -> tuple[str, str] | None:
    """(the word, why) of the first flag or value of the command line ``words`` that vLLM ``release`` refuses, or
    None (``run``: the container gives a command, not only arguments to the image's entrypoint)."""
    absent = absent_flag(words, found[1], release)
    if absent is None and run and found[0] == "serve":  # `vllm serve` as the command, not the image's entrypoint
        why = model_option_raises(found[1], release)
        absent = ("--model", why) if why is not None else None
    if absent is None:
        absent = release_value_refused(words, found[1], release)
    return absent


def _judge_line(pod: Pod, words: list[str], found: tuple[str, list[str]], run: bool, patches: tuple[Version, ...],
                image: str, locate: Any, flag_loc: Location) -> None:
    """Judge the command line at every patch read of the line an AWS DLC floating tag holds one of (``patches``,
    :func:`~shardwise.rules.vllm.flags.line_releases`): a refusal every patch makes is sure, one only some make is
    advisory and says which patches refuse it and which take it."""
    verdicts = [(v, _refusal_at(words, found, run, v)) for v in patches]
    refusing = [(v, r) for v, r in verdicts if r is not None]
    if not refusing:
        return
    taking = [str(v) for v, r in verdicts if r is None]
    line = f"{patches[0].parts[0]}.{patches[0].parts[1]}"
    tag = parse_image(image).tag
    first, (word, why) = refusing[0]
    if taking:
        said = (f"(a patch the floating tag {tag} may hold: it moves over the vLLM {line} patches, and "
                f"{_listed([str(v) for v, _ in refusing])} {'refuses' if len(refusing) == 1 else 'refuse'} this "
                f"while {_listed(taking)} {'takes' if len(taking) == 1 else 'take'} it; pin a full tag to have it "
                "judged for sure)")
    else:
        said = (f"(every patch read of vLLM {line}, {_listed([str(v) for v in patches])}, which the floating tag "
                f"{tag} moves over)")
    pod.crash = why.replace(BY_IMAGE, said)
    pod.crash_advisory = bool(taking)
    pod.locations["crash"] = (locate(word) if locate is not None else None) or flag_loc


def _listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def _judge_at(pod: Pod, words: list[str], found: tuple[str, list[str]], run: bool, release: Version, said: str,
              locate: Any, flag_loc: Location) -> None:
    """Set ``pod.crash`` to the first flag or value of the command line ``words`` that vLLM ``release`` refuses
    (``said``: how the finding names where the release comes from, :data:`BY_IMAGE` for the image's tag; ``run``:
    the container gives a command, not only arguments to the image's entrypoint)."""
    absent = _refusal_at(words, found, run, release)
    if absent is not None:
        word, why = absent
        if said != BY_IMAGE:
            why = why.replace(BY_IMAGE, said)
            if said.startswith(_PINNED):  # the fix is a pin, not an image
                why = why.replace(_FIX_BY_IMAGE, "install vLLM ")
        pod.crash = why
        pod.locations["crash"] = (locate(word) if locate is not None else None) or flag_loc


#: How a finding names a release its command pins (:func:`~shardwise.rules.vllm.flags.flags_release`), and how a
#: fix written for an image's release begins.
_PINNED = "(the release `"
_FIX_BY_IMAGE = "use an image of vLLM "


def judge_declared_release(pod: Pod, declared: str | None) -> None:
    """Judge the pod's vLLM flags against the release the workload declares with ``shardwise.dev/vllm-version``
    (``declared``, a release number, or None), where its image names no release read and its command pins none: the
    release the capacity model sizes for (:func:`~shardwise.rules.capacity.group.vllm_version`), so SW003 says for
    sure what that release refuses, in place of the advisory every release read gives. A release not read leaves
    the advisory as it was."""
    check = pod.flag_check
    release = parse_version(declared) if declared is not None else None
    if check is None or release is None or str(release) not in RELEASES_READ:
        return
    words, found, run, locate, flag_loc = check
    pod.crash, pod.crash_advisory = None, False
    pod.locations.pop("crash", None)
    _judge_at(pod, words, found, run, release, "(the release the annotation shardwise.dev/vllm-version declares)",
              locate, flag_loc)


def _without_config(tokens: Sequence[str]) -> list[str]:
    """vLLM's arguments without ``--config FILE`` (its settings are read in its place)."""
    out: list[str] = []
    skip = False
    for tok in tokens:
        if skip:
            skip = False
        elif tok == "--config":
            skip = True
        elif not tok.startswith("--config="):
            out.append(tok)
    return out


#: The container's keys whose lines :func:`_container_locations` keeps, by the name a finding asks for.
_CONTAINER_KEYS = (("resources", "resources"), ("startupProbe", "probe:startup"), ("livenessProbe", "probe:liveness"),
                   ("readinessProbe", "probe:readiness"), ("volumeMounts", "volumeMounts"), ("env", "env"),
                   ("image", "image"))


def _container_locations(out: dict[str, Location], c: Any, file: str | None) -> None:
    """The lines of the vLLM container's fields a finding may point at."""
    if isinstance(c, LineDict):  # (_key_location's test, once a container)
        lines = c.key_lines
        for key, name in _CONTAINER_KEYS:
            if key in lines:
                out[name] = location_at(file, lines[key])
        if c.line is not None:
            out["container"] = location_at(file, c.line)
    resources = c.get("resources") if isinstance(c, Mapping) else None
    for part in ("limits", "requests"):  # the line of the EFA count (a rule that cannot decide on it points there)
        where = _key_location(resources.get(part), EFA_RESOURCE, file) if isinstance(resources, Mapping) else None
        if where is not None:
            out[EFA_RESOURCE] = where
            break


def _doubled_serve(pod: Pod, engine: EngineArgs, locate: Any, flag_loc: Location) -> None:
    """``vllm serve serve MODEL`` (or ``vllm serve serve --model MODEL``): vLLM reads the second ``serve`` as the
    model, which wins over ``--model``, and exits. Record the crash (at the ``serve`` word) and read the rest as
    what was meant, ``vllm serve MODEL``."""
    flag_model = engine.extra.pop("model_flag", None)
    if engine.model != "serve":
        return
    rest = list(engine.extra.pop("positional", None) or [])
    meant = rest.pop(0) if rest else None
    if rest:
        engine.extra["positional"] = rest
    written = f" {meant}" if meant else ""
    if meant is None and flag_model is not None:
        meant, written = str(flag_model), f" --model {flag_model}"
    pod.crash = (f"the command reads as `vllm serve serve{written}`: the image's entrypoint "
                 "already runs `vllm serve`, so vLLM takes `serve` as the model name and exits; remove `serve` "
                 "from args")
    # a sure crash, whatever the release: neither the advisory an unread release gave nor a release the workload
    # declares (judge_declared_release) takes its place
    pod.crash_advisory, pod.flag_check = False, None
    pod.locations["crash"] = engine.locations.get("model", flag_loc)
    engine.model = meant
    if meant is not None:
        engine.locations["model"] = (locate(meant) if locate is not None else None) or flag_loc
    else:
        engine.locations.pop("model", None)


def read_affinity(spec: Mapping[str, Any]) -> list[list[MatchExpression]]:
    """The terms of the pod's required node affinity (ORed), each its expressions (ANDed). A term of ``matchFields``
    only names nodes by ``metadata.name``, the one field Kubernetes takes there (k8s.io/api core/v1
    ``NodeSelectorTerm``), which the kubelet sets from the host's name unless told otherwise: it is read as the node
    pin ``kubernetes.io/hostname`` is (review48: the term was dropped, so a pod whose other term named a T4 was judged
    on the T4 alone, a false block where it may be bound to the named node). Beside ``matchExpressions`` a
    ``matchFields`` narrows the term further and is left out (the GPU the expressions name still holds)."""
    node_aff = as_map(as_map(spec.get("affinity")).get("nodeAffinity"))
    required = as_map(node_aff.get("requiredDuringSchedulingIgnoredDuringExecution"))
    terms: list[list[MatchExpression]] = []
    for term in as_list(required.get("nodeSelectorTerms")):
        exprs = [
            MatchExpression(str(e.get("key")), str(e.get("operator", "In")),
                            tuple(str(x) for x in as_list(e.get("values"))))
            for e in as_list(as_map(term).get("matchExpressions")) if isinstance(e, dict) and e.get("key")
        ]
        if not exprs:
            exprs = [
                MatchExpression(HOSTNAME, str(e.get("operator", "In")), tuple(str(x) for x in as_list(e.get("values"))))
                for e in as_list(as_map(term).get("matchFields"))
                if isinstance(e, dict) and e.get("key") == _NODE_NAME_FIELD
            ]
        if exprs:
            terms.append(exprs)
    return terms


#: The one field a node selector term's ``matchFields`` may name (k8s.io/api core/v1 ``NodeSelectorTerm``).
_NODE_NAME_FIELD = "metadata.name"


def read_tolerations(spec: Mapping[str, Any]) -> list[Toleration]:
    out = []
    for t in as_list(spec.get("tolerations")):
        t = as_map(t)
        if not t:
            continue
        out.append(Toleration(
            key=str(t["key"]) if t.get("key") else None,
            operator=str(t.get("operator") or "Equal"),
            value=str(t["value"]) if t.get("value") is not None else None,
            effect=str(t["effect"]) if t.get("effect") else None,
        ))
    return out

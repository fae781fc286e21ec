"""Networking objects: Service, Ingress, Gateway API HTTPRoute and NetworkPolicy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import (
    RELEASE_NAMESPACE,
    UNKNOWN,
    UNKNOWN_NAMESPACE,
    CrossRef,
    Ingress,
    Inventory,
    Location,
    NetworkPolicy,
    RemoteRef,
    Service,
    Unknown,
)
from ...model.errors import InputError
from ...model.unknown import holds_placeholder, is_placeholder, is_unknown
from .fields import (
    as_list,
    as_map,
    line_of,
    read_annotations,
    str_map,
    suppressions_from,
    typed_items,
    typed_list,
    typed_map,
)
from .parse import yaml_type

#: The Service types Kubernetes accepts, spelled exactly so: the API server rejects any other spelling
#: ("loadbalancer", "Loadbalancer", "LoadBalancer " with a space, full-width letters).
SERVICE_TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")


def _service_type(spec: Mapping[str, Any], loc: Location) -> Any:
    value = spec.get("type")
    if value is None or value is UNKNOWN:
        return "ClusterIP" if value is None else UNKNOWN
    if value in SERVICE_TYPES:
        return value
    import unicodedata  # only for a type Kubernetes refuses (its .so is 0.5M instructions of every start)

    close = next((t for t in SERVICE_TYPES
                  if isinstance(value, str) and unicodedata.normalize("NFKC", value).strip().lower() == t.lower()),
                 None)
    hint = f"; did you mean {close}?" if close else ""
    raise InputError(f"spec.type: {value!r} is not a Service type Kubernetes accepts "
                     f"({', '.join(SERVICE_TYPES)}, spelled exactly){hint}",
                     loc.file, line_of(spec, "type") or loc.line)


def _unseen(value: Any) -> bool:
    """Whether ``value`` is not known yet: UNKNOWN, or a string holding a template placeholder."""
    return is_unknown(value) or holds_placeholder(value)


def label_selector(value: Any) -> dict[str, str] | Unknown:
    """A Service's (or a v1alpha2 InferencePool's) label selector as a map of labels, UNKNOWN where it, one of its keys
    or one of its values is not known yet: a placeholder written as the whole selector (``selector: ${SEL}``) or in a
    label (``app: ${POOL_APP}``, ``app: vllm-{{ .Values.name }}``), which the template's tool fills. Read as written,
    ``${SEL}`` was an empty selector and ``${POOL_APP}`` a label no pod has: either selected no pods, and SW312 said
    no route was in front of the server, though what it selects is not known (mend13)."""
    if _unseen(value) or any(_unseen(k) or _unseen(v) for k, v in as_map(value).items()):
        return UNKNOWN
    return str_map(value)


def _port(entry: Mapping[str, Any], key: str, what: str, at: Location, named: bool) -> Any:
    """A Service port (a number 1-65535) or targetPort (the same, or a port name): any other value Kubernetes
    rejects is an :class:`InputError` at the entry's line, never read as absent (UNKNOWN and absent pass). A
    template's placeholder written as the whole value (``port: ${SERVICE_PORT}`` in a deploy script's here-document
    or an envsubst template, ``{{ .Values.port }}``) is the value the tool fills: unknown, as a replica count so
    written is (corpus26: nb-qbits/vllm-ocp-deploy's Service made the whole run exit 2)."""
    value = entry.get(key)
    if value is None or value is UNKNOWN:
        return value
    if is_placeholder(value):
        return UNKNOWN
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 65535:
        return value
    if named and isinstance(value, str) and value.strip():
        return value
    accepted = "a port number (1-65535) or a port name" if named else "a port number (1-65535)"
    shown = repr(value) if isinstance(value, int | float | str) and not isinstance(value, bool) else _kind(value)
    raise InputError(f"{what}.{key}: expected {accepted}, found {shown}", at.file,
                     line_of(entry, key) or at.line)


def _kind(value: Any) -> str:
    return yaml_type(value)


def add_service(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta = as_map(obj.get("metadata"))
    spec = typed_map(obj, "spec", "spec", loc)
    ann, lines = read_annotations(meta)
    ports, targets = [], []
    names: dict[str, Any] = {}
    for i, p in enumerate(typed_items(spec, "ports", "spec.ports", loc)):
        at = Location(loc.file, getattr(p, "line", None) or loc.line)
        port = _port(p, "port", f"spec.ports[{i}]", at, named=False)
        if isinstance(port, int):
            ports.append(port)
        target = _port(p, "targetPort", f"spec.ports[{i}]", at, named=True) if "targetPort" in p else port
        targets.append(target)
        if isinstance(p.get("name"), str):
            names[p["name"]] = target
    lb_class = spec.get("loadBalancerClass")
    inv.services.append(Service(
        name=str(meta.get("name") or "unnamed"),
        namespace=str(meta.get("namespace") or "default"),
        type=_service_type(spec, loc),
        ports=ports,
        target_ports=targets,
        selector=label_selector(spec.get("selector")),
        annotations=ann,
        location=loc,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
        port_names=names,
        type_location=Location(loc.file, line_of(spec, "type")) if "type" in spec and line_of(spec, "type") else None,
        load_balancer_class=lb_class if lb_class is UNKNOWN or lb_class is None else str(lb_class),
    ))


def _backend(b: Any, services: list[str], ports: list[Any], by_service: dict[str, list[Any]]) -> None:
    b = as_map(b)
    svc = as_map(b.get("service"))
    name = svc.get("name") or b.get("serviceName")
    if name:
        services.append(str(name))
        port = as_map(svc.get("port"))
        value = port.get("number", port.get("name")) if port else b.get("servicePort")
        if value is not None:
            ports.append(value)
            by_service.setdefault(str(name), []).append(value)


def add_ingress(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    ann, lines = read_annotations(meta)
    services: list[str] = []
    ports: list[Any] = []
    by_service: dict[str, list[Any]] = {}
    _backend(spec.get("defaultBackend") or spec.get("backend"), services, ports, by_service)
    for rule in as_list(spec.get("rules")):
        for path in as_list(as_map(as_map(rule).get("http")).get("paths")):
            _backend(as_map(path).get("backend"), services, ports, by_service)
    class_name = spec.get("ingressClassName", ann.get("kubernetes.io/ingress.class"))
    inv.ingresses.append(Ingress(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        kind="Ingress", annotations=ann, services=services, ports=ports, location=loc, service_ports=by_service,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
        class_name=class_name if class_name is UNKNOWN or class_name is None else str(class_name),
    ))


#: Cross-reference kinds of an IngressClass and of the ALB's IngressClassParams (AWS Load Balancer Controller's
#: elbv2.k8s.aws, EKS Auto Mode's eks.amazonaws.com), joined to the Ingresses once every input is read.
INGRESS_CLASS_REF = "ingress class"
INGRESS_PARAMS_REF = "ingress class params"
#: The IngressClass annotation that makes a class the cluster's default (networking.k8s.io/v1 IngressClass).
_DEFAULT_CLASS = "ingressclass.kubernetes.io/is-default-class"


def add_ingress_class(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    kind = INGRESS_CLASS_REF if obj.get("kind") == "IngressClass" else INGRESS_PARAMS_REF
    inv.cross_refs.append(CrossRef(kind, obj, loc))


def link_ingress_classes(inv: Inventory) -> None:
    """Give each Ingress what its IngressClass of the inputs says: the controller, and the scheme of the
    IngressClassParams the class names (an Ingress with no class takes the class marked the default)."""
    classes = [r.obj for r in inv.cross_refs if r.kind == INGRESS_CLASS_REF]
    params = {str(as_map(r.obj.get("metadata")).get("name")): r.obj for r in inv.cross_refs
              if r.kind == INGRESS_PARAMS_REF}
    default = [c for c in classes
               if str(as_map(as_map(c.get("metadata")).get("annotations")).get(_DEFAULT_CLASS)).lower() == "true"]
    for ing in inv.ingresses:
        if ing.kind != "Ingress" or ing.class_name is UNKNOWN:
            continue
        named = [c for c in classes if as_map(c.get("metadata")).get("name") == ing.class_name]
        found = named if ing.class_name is not None else default
        if len(found) != 1:
            continue
        spec = as_map(found[0].get("spec"))
        controller = spec.get("controller")
        ing.class_controller = controller if isinstance(controller, str) else None
        ref = as_map(spec.get("parameters"))
        p = params.get(str(ref.get("name"))) if ref.get("kind") == "IngressClassParams" else None
        scheme = as_map(as_map(p).get("spec")).get("scheme") if p is not None else None
        if isinstance(scheme, str):
            ing.class_scheme = (scheme.strip(), f"IngressClassParams `{ref.get('name')}`")


def add_http_route(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    """An HTTPRoute: its parent Gateways, and its backendRefs by namespace. A backendRef's namespace defaults to the
    route's (gateway-api apis/v1 ``BackendObjectReference.Namespace``); one that names another namespace, or one not
    known yet, is a :class:`RemoteRef`, sent to only where a ReferenceGrant permits it (:func:`link_backends`). Read
    as the route's own, ``namespace: llm-d`` joined the same-named Service or InferencePool of the route's namespace
    (mend16). A backendRef names a Service only with kind ``Service`` (the default) of the core group, written ``""``
    or left out (gateway-api v1.2.0 apis/v1 ``BackendObjectReference.Group``: "When unspecified or empty string, core
    API group is inferred"); an InferencePool only with kind InferencePool of one of :data:`POOL_GROUPS`, and of that
    group (:func:`link_backends`). Any other kind or group (multicluster's ServiceImport, Envoy Gateway's ``Backend``,
    an InferencePool of no group) is no Service of the inputs: read as one, a route to a ServiceImport ``vllm``
    joined the Service ``vllm`` (mend23). ``group: core`` is no group the Gateway API names, but Linkerd's policy
    controller reads it as the core group (linkerd2 policy-controller ``is_backend_service``) and others reject the
    ref: whether the route sends to that Service is the implementation's, which the inputs do not show."""
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    ann, lines = read_annotations(meta)
    written = meta.get("namespace")
    namespace = str(written or "default")
    services: list[str] = []
    ports: list[Any] = []
    by_service: dict[str, list[Any]] = {}
    extensions: list[tuple[str, str]] = []
    pools: list[str] = []
    pool_groups: list[str] = []
    remote: list[RemoteRef] = []
    for rule in as_list(spec.get("rules")):
        for ref in as_list(as_map(rule).get("backendRefs")):
            ref = as_map(ref)
            if not ref.get("name"):
                continue
            kind, group = _backend_kind(ref)
            where = ref.get("namespace")
            if kind == UNSEEN_KIND:  # it may name a Service or a pool: which, the inputs do not show yet (mend29)
                ref_ns = namespace if where is None or where == "" else where
                remote.extend(_unseen_kind_refs(ref, ref_ns))
                kind = None
            if kind is None:  # a kind the Gateway does not resolve to a Service or a pool of the inputs
                if ref.get("port") is not None:
                    ports.append(ref["port"])
                continue
            pool = kind == "InferencePool"
            # `namespace: default` written by a route that names none is no ref of its own namespace: the route lands
            # in the one it is applied into, and sends there as to another namespace unless that is `default`
            if where is not None and where is not UNKNOWN and where in ("", namespace) and (written or where == ""):
                where = None
            if group == "core":  # the implementation decides (Linkerd reads it as "", the others reject it)
                ref_ns = namespace if where is None else where
                remote.append(_remote_ref("Service", ref_ns, str(ref["name"]), "", core=True))
            elif where is not None:
                remote.append(_remote_ref(kind, where, str(ref["name"]), group))
            elif pool:
                pools.append(str(ref["name"]))
                pool_groups.append(group)
            else:
                services.append(str(ref["name"]))
                if ref.get("port") is not None:
                    by_service.setdefault(str(ref["name"]), []).append(ref["port"])
            if not pool and ref.get("port") is not None:
                ports.append(ref["port"])
        for f in as_list(as_map(rule).get("filters")):  # an ALB listener rule's actions (AWS LBC), say
            ext = as_map(as_map(f).get("extensionRef"))
            if ext.get("name"):
                extensions.append((str(ext.get("kind") or ""), str(ext["name"])))
    refs = [dict(as_map(p), namespace=as_map(p).get("namespace") or namespace)
            for p in as_list(spec.get("parentRefs")) if as_map(p).get("name")]
    parents = [f"{p['namespace']}/{p['name']}" for p in refs]
    route = Ingress(
        name=str(meta.get("name") or "unnamed"), namespace=namespace,
        kind="HTTPRoute", annotations=ann, services=services, ports=ports, location=loc, service_ports=by_service,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line), parents=parents,
        parent_refs=refs, hostnames=list(as_list(spec.get("hostnames"))), extension_refs=extensions,
        pool_refs=pools, pool_groups=pool_groups, remote_refs=remote,
        namespace_applied=not written or namespace == RELEASE_NAMESPACE,
    )
    if route.namespace_applied:  # until link_backends reads the grants (where no input needs it to, for good)
        for r in remote:
            if not (r.note or r.unseen or r.namespace == UNKNOWN_NAMESPACE):
                r.permitted = _applied_own(route, r)
    inv.ingresses.append(route)


#: What :func:`_backend_kind` answers for a backendRef whose kind or group is not known yet.
UNSEEN_KIND = "unseen"


def _backend_kind(ref: Mapping[str, Any]) -> tuple[str | None, str]:
    """(``"Service"``, ``"InferencePool"``, :data:`UNSEEN_KIND` where the kind or group is not known yet, or None for
    any other kind; the ref's group as written: ``"core"`` for a Service ref that names it). A kind or group not known
    yet (``kind: {{ .Values.backend.kind }}`` unrendered, a preview's computed value) was read as a Service, and the
    route surely in front of the same-named Service (mend29): :func:`_unseen_kind_refs`."""
    kind, group = ref.get("kind", "Service"), ref.get("group")
    group = "" if group is None else group
    if _unseen(kind) or _unseen(group):
        return UNSEEN_KIND, ""
    if kind == "InferencePool" and group in POOL_GROUPS:
        return "InferencePool", str(group)
    if kind == "Service" and group in ("", "core"):
        return "Service", str(group)
    return None, str(group)


def _unseen_kind_refs(ref: Mapping[str, Any], where: Any) -> list[RemoteRef]:
    """The objects a backendRef whose kind or group is not known yet may name, of namespace ``where`` (the route's,
    the one it writes, or one not known): a Service where its kind may be ``Service`` and its group the core one, an
    InferencePool where its kind may be ``InferencePool`` and its group one of :data:`POOL_GROUPS` (``group`` ""
    where that is not known: any of them). Each says which value is not known; none is a sure backend."""
    kind, group = ref.get("kind", "Service"), ref.get("group")
    group = "" if group is None else group
    said = [f"{field} {_written(value)}" for field, value in (("kind", kind), ("group", group)) if _unseen(value)]
    why = f"its backendRef's {' and its '.join(said)}"
    if _unseen(where):
        why += ", and its namespace is not known either"
    ns = UNKNOWN_NAMESPACE if _unseen(where) else str(where)
    out: list[RemoteRef] = []
    if (_unseen(kind) or kind == "Service") and (_unseen(group) or group in ("", "core")):
        out.append(RemoteRef("Service", ns, str(ref["name"]), why, outside=False, unseen=True))
    if (_unseen(kind) or kind == "InferencePool") and (_unseen(group) or group in POOL_GROUPS):
        out.append(RemoteRef("InferencePool", ns, str(ref["name"]), why, outside=False,
                             group="" if _unseen(group) else str(group), unseen=True))
    return out


def _written(value: Any) -> str:
    """How a value not known yet was written: ``"is a computed value"``, ``"is the template placeholder `X`"``."""
    return "is a computed value" if is_unknown(value) else f"is the template placeholder `{str(value).strip()}`"


def _remote_ref(kind: str, where: Any, name: str, group: str, core: bool = False) -> RemoteRef:
    """A backendRef to namespace ``where`` (not the route's), as read: until :func:`link_backends` finds a
    ReferenceGrant of that namespace in the inputs, whether the route sends there is not known. ``core``: a Service
    ref of ``group: core`` (of any namespace), which only some implementations resolve (:func:`add_http_route`)."""
    note = ("its backendRef names group `core`, which the Gateway API does not name (the core group is written \"\" "
            "or left out): Linkerd reads it as the core group, other implementations reject the ref, and the "
            "inputs do not show which implementation serves the route") if core else ""
    if _unseen(where):
        written = "a computed value" if where is UNKNOWN else f"the template placeholder `{str(where).strip()}`"
        return RemoteRef(kind, UNKNOWN_NAMESPACE, name, f"the namespace its backendRef names is {written}",
                         outside=False, group=group, note=note)
    return RemoteRef(kind, str(where), name, note or _no_grant(str(where)), group=group, note=note)


def _no_grant(namespace: str) -> str:
    return (f"no ReferenceGrant of namespace `{namespace}` is in the inputs, and one applied apart from them may "
            "permit it")


#: The cross reference of a Gateway API ReferenceGrant, kept for :func:`link_backends`.
GRANT_REF = "gateway api reference grant"


def add_reference_grant(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    """Keep a ReferenceGrant for :func:`link_backends`."""
    inv.cross_refs.append(CrossRef(GRANT_REF, obj, loc))


def _grant_permits(grant: Mapping[str, Any], route: Ingress, ref: RemoteRef) -> bool | str | None:
    """Whether ReferenceGrant ``grant`` (of the ref's namespace) permits ``route`` to send to ``ref``: one of its
    ``from`` entries is the route's group, kind and namespace, and one of its ``to`` entries the ref's group and kind,
    with no name or the ref's (gateway-api apis/v1beta1 ``ReferenceGrantSpec``: entries combined with OR; a ``to``
    without a name covers every object of that group and kind in the grant's namespace). None where a value that
    decides it is not known yet (a placeholder; a value a preview computes, an entry's or a whole list; a route whose
    namespace is not known). :data:`APPLIED` where it permits the route only if the route, which names no namespace
    (``Ingress.namespace_applied``), is applied into the namespace its ``from`` entry names: read as ``default`` it
    was "does not permit", and the Gateway's backend was left out in silence though ``kubectl apply -n llm-d`` makes
    it one (mend23)."""
    spec = as_map(grant.get("spec"))
    hidden = _unseen(grant.get("spec"))  # a preview's computed spec, or list, or entry: any entry (mend18)
    answers: list[bool | None] = []
    for entry in _entries(spec, "from", hidden):
        if _unseen(entry):
            answers.append(None)
            continue
        entry = as_map(entry)
        pairs = ((entry.get("group"), "gateway.networking.k8s.io"), (entry.get("kind"), route.kind))
        if route.namespace == UNKNOWN_NAMESPACE:  # the route's namespace not known yet: it may be the one named
            answers.append(_all_equal(pairs, True))
        elif route.namespace_applied and not (route.namespace == RELEASE_NAMESPACE == entry.get("namespace")):
            # the namespace it is applied into may be the one named, or not: never "does not permit" (mend23)
            answers.append(_applied(_all_equal(pairs, False), entry.get("namespace")))
        else:
            answers.append(_all_equal((*pairs, (entry.get("namespace"), route.namespace)), False))
    source: Any = _any(answers)
    if source is False and APPLIED in answers:
        source = APPLIED
    answers = []
    for entry in _entries(spec, "to", hidden):
        if _unseen(entry):
            answers.append(None)
            continue
        entry = as_map(entry)
        named = () if entry.get("name") is None else ((entry.get("name"), ref.name),)
        answers.append(_all_equal((("" if entry.get("group") is None else entry.get("group"), ref.group),
                                   (entry.get("kind"), ref.kind), *named), False))
    target = _any(answers)
    if source is False or target is False:
        return False
    if source is APPLIED:
        return APPLIED if target is True else None
    return True if source and target else None


#: What :func:`_grant_permits` answers where only the namespace a route that names none is applied into decides it.
APPLIED = "applied"


def _applied(kinds: bool | None, namespace: Any) -> Any:
    """A ``from`` entry's answer for a route whose namespace is the one it is applied into: False where its group or
    kind differs, None where one of those or the namespace is not known yet, else :data:`APPLIED`."""
    if kinds is False:
        return False
    return None if kinds is None or _unseen(namespace) else APPLIED


def _entries(spec: Mapping[str, Any], key: str, hidden: bool) -> list[Any]:
    """A grant's ``from`` or ``to`` entries; one entry not known where the spec or the list is not known yet."""
    return [UNKNOWN] if hidden or _unseen(spec.get(key)) else as_list(spec.get(key))


def _all_equal(pairs: tuple[tuple[Any, str], ...], route_unseen: bool) -> bool | None:
    """Whether each written value equals what it must; None where one is not known yet and none differs."""
    unseen = route_unseen
    for written, wanted in pairs:
        if _unseen(written):
            unseen = True
        elif str(written) != wanted:
            return False
    return None if unseen else True


def _any(answers: list[Any]) -> bool | None:
    return True if True in answers else None if None in answers else False


def _permitted(grants: list[CrossRef], route: Ingress, ref: RemoteRef) -> tuple[bool | str, bool]:
    """(whether ``route`` sends to ``ref`` as the ReferenceGrants of the inputs say, True where only a grant outside
    them may decide it): True where one permits it; False where grants of its namespace are in the inputs and none
    does (decided: the Gateway configures no such backend, ResolvedRefs False with reason RefNotPermitted); why not,
    where one may and a value is not known yet, or where the inputs hold no grant of that namespace."""
    mine = [g for g in grants if _grant_namespace(g) in (ref.namespace, UNKNOWN_NAMESPACE)]
    # a grant whose namespace is not known yet may be of another namespace: at most "it may permit it"
    answers = [None if permits and _grant_namespace(g) == UNKNOWN_NAMESPACE else permits
               for g, permits in ((g, _grant_permits(g.obj, route, ref)) for g in mine)]
    if True in answers:
        return True, True
    if None in answers:
        name = str(as_map(mine[answers.index(None)].obj.get("metadata")).get("name") or "unnamed")
        return f"ReferenceGrant `{name}` holds a value not known yet", False
    if APPLIED in answers:  # outside the inputs: the namespace the route is applied into (mend23)
        grant = mine[answers.index(APPLIED)].obj
        name = str(as_map(grant.get("metadata")).get("name") or "unnamed")
        named = sorted({str(as_map(e).get("namespace")) for e in as_list(as_map(grant.get("spec")).get("from"))
                        if as_map(e).get("kind") == route.kind and as_map(e).get("namespace") is not None})
        return (f"{route.kind} `{route.name}` lands in the namespace it is applied into (it names none, or its Helm "
                "release's), as `kubectl apply -n` or `helm install -n` puts it; ReferenceGrant "
                f"`{ref.namespace}/{name}` permits {route.kind}s of {', '.join(f'`{n}`' for n in named)} only, and "
                "the inputs do not show whether it is applied there"), True
    if route.namespace_applied:  # applied into the ref's namespace, the ref is of its own and needs no grant
        return _applied_own(route, ref), True
    if any(_grant_namespace(g) == ref.namespace for g in mine):
        return False, True
    return _no_grant(ref.namespace), True


def _applied_own(route: Ingress, ref: RemoteRef) -> str:
    """Why whether ``route``, which names no namespace (or its Helm release's), sends to ``ref`` is not known where no
    ReferenceGrant of the inputs permits it: applied into the ref's namespace, the ref is of the route's own namespace
    and needs no grant (gateway-api v1.2.0 apis/v1 ``BackendObjectReference.Namespace``: a ReferenceGrant is required
    only "when the namespace is different than the local namespace"); applied into any other, it needs a grant of the
    ref's namespace, and one applied apart from the inputs may permit it. Read as ``default``, a ref that wrote
    ``namespace: default`` was the route's own and surely sent to, and one to a namespace whose grants permit other
    kinds only was left out (mend29)."""
    return (f"{route.kind} `{route.name}` lands in the namespace it is applied into (it names none, or its Helm "
            f"release's), as `kubectl apply -n` or `helm install -n` puts it: applied into `{ref.namespace}` its "
            "backendRef is of its own namespace and needs no ReferenceGrant, applied into any other no ReferenceGrant "
            "of the inputs permits it though one applied apart from them may, and the inputs do not show where it is "
            "applied")


def _grant_namespace(grant: CrossRef) -> str:
    value = as_map(grant.obj.get("metadata")).get("namespace")
    return UNKNOWN_NAMESPACE if _unseen(value) else str(value or "default")


#: The API groups of the Gateway API Inference Extension's InferencePool: v1alpha2 and v1.
POOL_GROUPS = ("inference.networking.x-k8s.io", "inference.networking.k8s.io")
#: The cross reference of an InferencePool, kept for :func:`link_backends` (a "gateway api " kind: nodes.resolve_pools
#: links those).
POOL_REF = "gateway api inference pool"


def add_inference_pool(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    """Keep an InferencePool for :func:`link_backends`."""
    inv.cross_refs.append(CrossRef(POOL_REF, obj, loc))


def _pool(obj: Mapping[str, Any], loc: Location) -> Service:
    """An InferencePool as what it selects: the model server pods of its namespace whose labels its selector matches
    (v1alpha2's ``spec.selector`` is a plain label map, v1's a LabelSelector whose ``matchLabels`` count; a
    ``matchExpressions`` term is kept as a label no pod can equal, as a NetworkPolicy's is), and the port the Gateway
    sends to (v1alpha2's ``spec.targetPortNumber``, v1's ``spec.targetPorts[].number``; gateway-api-inference-extension
    api/v1alpha2 and api/v1 ``InferencePoolSpec``)."""
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    sel = as_map(spec.get("selector"))
    selector: dict[str, str] | Unknown
    if _unseen(spec.get("selector")) or _unseen(sel.get("matchLabels")) or _unseen(sel.get("matchExpressions")) or any(
            _unseen_term(e) for e in as_list(sel.get("matchExpressions"))):
        selector = UNKNOWN  # what it selects is not known yet (mend13), never "no pods"
    elif "matchLabels" in sel or "matchExpressions" in sel:
        selector = label_selector(sel.get("matchLabels"))
        if isinstance(selector, dict):
            for e in as_list(sel.get("matchExpressions")):
                if as_map(e).get("key"):
                    values = ",".join(str(v) for v in as_list(as_map(e).get("values")))
                    selector[str(as_map(e)["key"])] = f"{as_map(e).get('operator', 'In')}({values})"
    else:
        selector = label_selector(sel)
    ports = [as_map(p).get("number") for p in as_list(spec.get("targetPorts"))] or [spec.get("targetPortNumber")]
    targets = [p for p in ports if p is not None]
    return Service(name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
                   ports=list(targets), target_ports=list(targets), selector=selector, location=loc,
                   kind="InferencePool")


def link_backends(inv: Inventory) -> None:
    """Join each HTTPRoute to the InferencePools of the inputs its backendRefs name (of the ref's group and
    namespace, the route's where it names none), and say of each backendRef to another namespace whether the
    ReferenceGrants of the inputs let the route send there (:func:`_permitted`). The Gateway sends a request to one of
    a pool's pods that its endpoint picker chooses, so the route is in front of them as it is of a Service's pods. A
    pool not in the inputs joins nothing: what it selects is not known. A v1 and a v1alpha2 pool of one name in one
    namespace are two objects (inference.networking.k8s.io and inference.networking.x-k8s.io): a ref joins the one
    of the group it names, never whichever was read first (mend23). Run at every join (idempotent): the grants are
    read anew each time."""
    refs = inv.cross_refs
    grants = [r for r in refs if r.kind == GRANT_REF]
    by_key: dict[tuple[str, str, str], Service] = {}
    for r in refs:
        if r.kind == POOL_REF:
            svc = _pool(r.obj, r.location)
            group = str(r.obj.get("apiVersion") or "").partition("/")[0]
            by_key.setdefault((group, svc.namespace, svc.name), svc)
    for ing in inv.ingresses:
        if ing.kind != "HTTPRoute":
            continue
        for ref in ing.remote_refs:
            if ref.unseen or ref.namespace == UNKNOWN_NAMESPACE or (ref.namespace == ing.namespace
                                                      and (ref.note or not ing.namespace_applied)):
                continue  # not known yet; or a ref of its own namespace that only its group leaves open (core)
            ref.permitted, ref.outside = _permitted(grants, ing, ref)
            if ref.permitted is True and ref.note:
                ref.permitted, ref.outside = ref.note, True
        if by_key and not ing.pools:
            wanted = [*((g, ing.namespace, n) for g, n in zip(ing.pool_groups, ing.pool_refs, strict=True)),
                      *((r.group, r.namespace, r.name) for r in ing.remote_refs if r.kind == "InferencePool")]
            for w in dict.fromkeys(wanted):  # in the order the route names them; a namespace not known: any
                # a group not known yet (a ref whose group is a placeholder): a pool of either group
                keys = [k for k in by_key if (k[0] == w[0] if w[0] else k[0] in POOL_GROUPS) and k[2] == w[2]
                        and w[1] in (UNKNOWN_NAMESPACE, k[1])]
                for key in keys:
                    if key in by_key and not any(p is by_key[key] for p in ing.pools):
                        ing.pools.append(by_key[key])


def add_route(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    """An OpenShift Route: the router publishes its host onto the Service in ``spec.to`` (and the alternate
    backends), at ``spec.port.targetPort``."""
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    ann, lines = read_annotations(meta)
    services = [str(as_map(b).get("name")) for b in (spec.get("to"), *as_list(spec.get("alternateBackends")))
                if as_map(b).get("name") and as_map(b).get("kind", "Service") == "Service"]
    port = as_map(spec.get("port")).get("targetPort")
    inv.ingresses.append(Ingress(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        kind="Route", annotations=ann, services=services, ports=[port] if port is not None else [], location=loc,
        suppressions=suppressions_from(ann, lines, loc.file, loc.line),
    ))


def add_network_policy(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    # a field of the wrong type is an input error: Kubernetes rejects the policy, so it isolates nothing (and
    # `spec: 7` must never read as an empty podSelector, which selects every pod)
    meta, spec = as_map(obj.get("metadata")), typed_map(obj, "spec", "spec", loc)
    unknown_part = _unseen_selector(spec, "podSelector", "spec.podSelector")
    for i, rule in enumerate(as_list(spec.get("ingress"))):
        for j, peer in enumerate(as_list(as_map(rule).get("from"))):
            for key in ("podSelector", "namespaceSelector"):
                unknown_part = unknown_part or _unseen_selector(as_map(peer), key, f"spec.ingress[{i}].from[{j}].{key}")
    unknown_part = unknown_part or _unseen_peers(spec)
    types_unseen = _unseen(spec.get("policyTypes")) or any(_unseen(t) for t in as_list(spec.get("policyTypes")))
    unknown_part = unknown_part or ("spec.policyTypes" if types_unseen else None)
    sel = {} if _unseen(spec.get("podSelector")) else typed_map(spec, "podSelector", "spec.podSelector", loc)
    pod_selector = {} if _unseen(sel.get("matchLabels")) else str_map(
        typed_map(sel, "matchLabels", "spec.podSelector.matchLabels", loc))
    # matchExpressions cannot be folded into labels; record them so the policy is never mistaken
    # for one that selects every pod (a selector a pod's labels cannot equal is the safe reading).
    for e in ([] if _unseen(sel.get("matchExpressions")) else
              typed_items(sel, "matchExpressions", "spec.podSelector.matchExpressions", loc)):
        if e.get("key"):
            values = ",".join(str(v) for v in as_list(e.get("values")))
            pod_selector[str(e["key"])] = f"{e.get('operator', 'In')}({values})"
    ingress = [] if _unseen(spec.get("ingress")) else typed_list(spec, "ingress", "spec.ingress", loc)
    egress = [] if _unseen(spec.get("egress")) else typed_list(spec, "egress", "spec.egress", loc)
    # a policy type the template fills is not known (unknown_part), never an input error nor a type read as written
    types = ["Ingress"] if types_unseen else [str(t) for t in typed_list(spec, "policyTypes", "spec.policyTypes", loc)]
    wrong = [t for t in types if t not in ("Ingress", "Egress")]
    if wrong:
        raise InputError(f"spec.policyTypes: {wrong[0]!r} is not a policy type Kubernetes accepts (Ingress, Egress)",
                         loc.file, line_of(spec, "policyTypes") or loc.line)
    if not types:
        types = ["Ingress"] + (["Egress"] if egress else [])
    inv.network_policies.append(NetworkPolicy(
        name=str(meta.get("name") or "unnamed"), namespace=str(meta.get("namespace") or "default"),
        pod_selector=pod_selector, policy_types=types, ingress_rules=len(ingress), egress_rules=len(egress),
        location=loc, open_ingress=any(_admits_everyone(r) for r in ingress),
        unknown_part=unknown_part,
    ))
    if unknown_part is not None:  # never mistaken for a policy that selects every pod (or none)
        inv.network_policies[-1].pod_selector = {**pod_selector, UNKNOWN_NAMESPACE: UNKNOWN_NAMESPACE}


def _unseen_selector(d: Mapping[str, Any], key: str, what: str) -> str | None:
    """``what`` where the label selector ``d[key]`` holds a value not known yet: a template's placeholder written as
    the whole selector (``podSelector: ${SEL}``), as its ``matchLabels``, or in a label's key or value
    (``app: ${APP}``, ``app: vllm-{{ .Values.name }}``) or a ``matchExpressions`` term, which the template's tool fills.
    Read as written, ``app: ${APP}`` was a label no pod has and ``${SEL}`` an empty selector (every pod, or an input
    error): the policy silently selected (or admitted) pods it may not (mend14, as mend13 read Service selectors)."""
    sel = d.get(key)
    if sel is None:
        return None
    if _unseen(sel):
        return what
    sel = as_map(sel)
    labels, exprs = sel.get("matchLabels"), sel.get("matchExpressions")
    if _unseen(labels) or _unseen(exprs) or any(_unseen(k) or _unseen(v) for k, v in as_map(labels).items()) or any(
            _unseen_term(e) for e in as_list(exprs)):
        return what
    return None


def _unseen_term(term: Any) -> bool:
    """Whether a label selector's ``matchExpressions`` term holds a value not known yet: the whole term, its key, its
    operator, its ``values`` list written as one placeholder (``values: ${APPS}``, which the template fills with a
    list: read as written it was no list, so ``In ()``, a term no pod matches) or one of its values (review38)."""
    e = as_map(term)
    return _unseen(term) or _unseen(e.get("key")) or _unseen(e.get("operator")) or _unseen(e.get("values")) or any(
        _unseen(v) for v in as_list(e.get("values")))


def _unseen_peers(spec: Mapping[str, Any]) -> str | None:
    """The field of a NetworkPolicy's ingress, other than a peer's selectors (:func:`_unseen_selector`), that holds a
    value not known yet, which decides whom the policy admits: the rules (``ingress: ${RULES}``), a rule's ``from``
    (``from: ${PEERS}``: once filled with ``[]`` it admits every source), a peer written as one placeholder, or a
    peer's ``ipBlock`` (``cidr: ${ALLOWED_CIDR}``, which may be 0.0.0.0/0). Read as written, each was a policy that
    admits only some sources, and SW305 took the pods it selects as isolated (review38, as mend14 read selectors)."""
    if _unseen(spec.get("ingress")):
        return "spec.ingress"
    for i, rule in enumerate(as_list(spec.get("ingress"))):
        if _unseen(rule) or _unseen(as_map(rule).get("from")):
            return f"spec.ingress[{i}].from" if not _unseen(rule) else f"spec.ingress[{i}]"
        for j, peer in enumerate(as_list(as_map(rule).get("from"))):
            block = as_map(peer).get("ipBlock")
            if _unseen(peer) or _unseen(block) or _unseen(as_map(block).get("cidr")) or _unseen(
                    as_map(block).get("except")) or any(_unseen(c) for c in as_list(as_map(block).get("except"))):
                return f"spec.ingress[{i}].from[{j}]" + ("" if _unseen(peer) else ".ipBlock")
    return None


def _admits_everyone(rule: Any) -> bool:
    """An ingress rule of a NetworkPolicy that admits every source: no ``from`` at all, a peer of every
    namespace (``namespaceSelector: {}`` with no narrower podSelector) or an ipBlock of the whole internet."""
    peers = as_map(rule).get("from")
    if not peers:
        return True
    for peer in as_list(peers):
        peer = as_map(peer)
        ns_sel, pod_sel = peer.get("namespaceSelector"), peer.get("podSelector")
        if ns_sel is not None and not as_map(ns_sel) and not as_map(pod_sel):
            return True
        block = as_map(peer.get("ipBlock"))
        if str(block.get("cidr", "")).strip() in ("0.0.0.0/0", "::/0") and not block.get("except"):
            return True
    return False


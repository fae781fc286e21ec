"""Pod templates: containers (command, args, env, resources, probes, mounts), volumes and placement.

:func:`read_pod` reads one pod spec into what a serving group needs: every container, the first one
that runs a vLLM server with its engine flags (each pointing at the line it is written on when the
manifest text is known), its GPU request, and the pod's volumes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import InputError
from ...model import (
    UNKNOWN,
    UNKNOWN_TOKEN,
    Container,
    EngineArgs,
    Location,
    MatchExpression,
    Probe,
    Toleration,
    Volume,
)
from ...vocab import ACCELERATOR_RESOURCES, EFA_RESOURCE
from ...yamlsrc import LineDict
from ..vllm_args import expand_k8s, is_vllm_image, parse_vllm_command
from .fields import as_list, as_map, line_of, str_map
from .parse import make_locate, yaml_type


def read_node_selector(spec: Mapping[str, Any], loc: Location) -> Any:
    """The pod's nodeSelector; UNKNOWN when it (or a value in it) is not known yet."""
    value = spec.get("nodeSelector")
    if value is UNKNOWN or (isinstance(value, Mapping) and any(v is UNKNOWN for v in value.values())):
        return UNKNOWN
    if value is not None and not isinstance(value, Mapping):
        raise InputError(f"nodeSelector: expected a mapping of node labels, got {type(value).__name__}",
                         loc.file, line_of(spec, "nodeSelector") or loc.line)
    return str_map(value)



def _quantity_int(resources: Mapping[str, Any], name: str, file: str | None, line: int | None) -> Any:
    for part in ("limits", "requests"):
        section = as_map(resources.get(part))
        if name in section:
            value = section[name]
            if value is UNKNOWN:
                return UNKNOWN
            try:
                n = int(str(value).strip())
            except ValueError:
                raise InputError(f"resources.{part}.{name}: expected a whole number, got {value!r}", file,
                                 line_of(section, name) or line) from None
            return n
    return None


def _probe(kind: str, raw: Any) -> Probe | None:
    p = as_map(raw)
    if not p:
        return None
    http = as_map(p.get("httpGet"))
    tcp = as_map(p.get("tcpSocket"))
    grpc = as_map(p.get("grpc"))
    port = http.get("port", tcp.get("port", grpc.get("port")))

    def num(key: str, default: int) -> int:
        v = p.get(key)
        try:
            return int(v) if v is not None else default
        except (TypeError, ValueError, OverflowError):  # OverflowError: .inf
            return default

    return Probe(
        kind=kind,  # type: ignore[arg-type]
        path=str(http["path"]) if http.get("path") is not None else None,
        port=port,
        initial_delay_seconds=num("initialDelaySeconds", 0),
        period_seconds=num("periodSeconds", 10),
        failure_threshold=num("failureThreshold", 3),
        timeout_seconds=num("timeoutSeconds", 1),
    )


def _env(c: Mapping[str, Any], injected: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """(Container.env with UNKNOWN for valueFrom, literal env for expansion)."""
    env: dict[str, Any] = {}
    literal: dict[str, str] = dict(injected)
    for item in as_list(c.get("env")):
        item = as_map(item)
        name = item.get("name")
        if not isinstance(name, str):
            continue
        if "value" in item and item["value"] is UNKNOWN:
            env[name] = UNKNOWN
            literal.pop(name, None)
        elif "value" in item:
            value = "" if item["value"] is None else str(item["value"])
            value = expand_k8s(value, literal)  # env values may reference earlier variables
            env[name] = value
            literal[name] = value
        elif "valueFrom" in item:
            env[name] = UNKNOWN
            literal.pop(name, None)
        else:
            env[name] = ""
            literal[name] = ""
    for k, v in injected.items():
        env.setdefault(k, v)
    return env, literal



def _token(value: Any) -> str:
    return UNKNOWN_TOKEN if value is UNKNOWN else str(value)


def _tokens(c: Mapping[str, Any], key: str, container: str, file: str | None, line: int | None) -> list[str]:
    """A container's ``command`` or ``args``: words; a number or boolean reads as its text, a list or
    mapping (a nested list, or an alias to one) is an :class:`InputError`."""
    words = []
    for i, t in enumerate(as_list(c.get(key))):
        if isinstance(t, dict | list):
            raise InputError(f"container {container!r}: {key}[{i}]: expected a string, found {yaml_type(t)}",
                             file, line_of(c, key) or line)
        words.append(_token(t))
    return words


class Pod:
    """What one pod template contributes to a serving group."""

    __slots__ = ("containers", "engine", "vllm", "vllm_raw", "gpus", "accelerator_resource", "spec", "meta",
                 "volumes", "image_vllm", "unread", "crash", "locations")

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
        self.crash: str | None = None  # why vLLM would exit at start-up with the command as written
        self.locations: dict[str, Location] = {}  # see ServingGroup.locations


def _accelerators(resources: Mapping[str, Any], file: str | None, line: int | None) -> tuple[Any, str | None]:
    """(count, resource) of the first accelerator resource the container requests, else (None, None)."""
    for resource in ACCELERATOR_RESOURCES:
        count = _quantity_int(resources, resource, file, line)
        if count is not None:
            return count, resource
    return None, None


def _key_location(d: Any, key: str, file: str | None) -> Location | None:
    return Location(file, d.line_of(key)) if isinstance(d, LineDict) and key in d else None


def read_pod(template_meta: Any, pod_spec: Any, file: str | None, lines: Sequence[str] | None,
             injected: Mapping[str, str], entrypoint: tuple[str | None, Sequence[str]] | None = None) -> Pod:
    """Read one pod spec. ``entrypoint`` is ``(container name, command)``: the command the serving
    runtime's image runs when that container (None: the first) gives only ``args``."""
    pod = Pod()
    pod.meta = as_map(template_meta)
    pod.spec = spec = as_map(pod_spec)
    raw_containers = [c for c in as_list(spec.get("containers")) if isinstance(c, dict)]
    for idx, c in enumerate(raw_containers):
        name = str(c.get("name") or f"container-{idx}")
        cline = c.line if isinstance(c, LineDict) else None
        raw_image = c.get("image")
        image = str(raw_image) if raw_image is not None and raw_image is not UNKNOWN else None
        looks_vllm = bool(image and is_vllm_image(image))
        pod.image_vllm = pod.image_vllm or looks_vllm
        command = _tokens(c, "command", name, file, cline)
        args = _tokens(c, "args", name, file, cline)
        env, literal = _env(c, injected)
        resources = as_map(c.get("resources"))
        gpus, accelerator = _accelerators(resources, file, cline)
        container = Container(
            name=name,
            image=UNKNOWN if raw_image is UNKNOWN else image,
            command=command,
            args=args,
            env=env,
            ports=[int(p["containerPort"]) for p in as_list(c.get("ports"))
                   if isinstance(p, dict) and isinstance(p.get("containerPort"), int)],
            gpus=gpus,
            accelerator_resource=accelerator,
            efa=_quantity_int(resources, EFA_RESOURCE, file, cline) or 0,
            volume_mounts={str(m["name"]): str(m.get("mountPath", "")) for m in as_list(c.get("volumeMounts"))
                           if isinstance(m, dict) and "name" in m},
            location=Location(file, cline),
        )
        for key, kind in (("startupProbe", "startup"), ("livenessProbe", "liveness"),
                          ("readinessProbe", "readiness")):
            probe = _probe(kind, c.get(key))
            if probe is not None:
                container.probes[kind] = probe
        pod.containers.append(container)
        run = command
        if entrypoint is not None and not command and (entrypoint[0] in (None, name) if idx == 0
                                                       else entrypoint[0] == name):
            run = list(entrypoint[1])
        if pod.engine is None and (run or args or image):
            key_lines = [x for x in (line_of(c, "command") if "command" in c else None,
                                     line_of(c, "args") if "args" in c else None) if x is not None]
            start = min(key_lines) if key_lines else cline
            nxt = raw_containers[idx + 1] if idx + 1 < len(raw_containers) else None
            end = nxt.line - 1 if isinstance(nxt, LineDict) and nxt.line else None
            flag_loc = Location(file, (line_of(c, "args") if "args" in c else None) or start)
            locate = make_locate(lines, start, end, file)
            engine = parse_vllm_command(run, args, literal, image, flag_loc, locate)
            if engine is not None:
                pod.engine = engine
                pod.vllm = container
                pod.vllm_raw = c
                pod.gpus = container.gpus
                pod.accelerator_resource = accelerator
                _container_locations(pod.locations, c, file)
                _doubled_serve(pod, engine, locate, flag_loc)
            elif looks_vllm and pod.unread is None:
                pod.unread = container
                pod.locations["unread"] = (_key_location(c, "command", file) or _key_location(c, "args", file)
                                           or container.location)
    for key in ("nodeSelector", "affinity", "tolerations", "volumes"):
        where = _key_location(spec, key, file)
        if where is not None:
            pod.locations[key] = where
    for v in as_list(spec.get("volumes")):
        if not isinstance(v, dict) or "name" not in v:
            continue
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
    return pod


def _container_locations(out: dict[str, Location], c: Any, file: str | None) -> None:
    """The lines of the vLLM container's fields a finding may point at."""
    for key, name in (("resources", "resources"), ("startupProbe", "probe:startup"),
                      ("livenessProbe", "probe:liveness"), ("readinessProbe", "probe:readiness"),
                      ("volumeMounts", "volumeMounts"), ("env", "env"), ("image", "image")):
        where = _key_location(c, key, file)
        if where is not None:
            out[name] = where


def _doubled_serve(pod: Pod, engine: EngineArgs, locate: Any, flag_loc: Location) -> None:
    """``vllm serve serve MODEL``: vLLM reads the second ``serve`` as the model and exits. Record the crash
    (at the ``serve`` word) and read the rest as what was meant, ``vllm serve MODEL``."""
    if engine.model != "serve":
        return
    rest = list(engine.extra.pop("positional", None) or [])
    meant = rest.pop(0) if rest else None
    if rest:
        engine.extra["positional"] = rest
    pod.crash = (f"the command reads as `vllm serve serve{' ' + meant if meant else ''}`: the image's entrypoint "
                 "already runs `vllm serve`, so vLLM takes `serve` as the model name and exits; remove `serve` "
                 "from args")
    pod.locations["crash"] = engine.locations.get("model", flag_loc)
    engine.model = meant
    if meant is not None:
        engine.locations["model"] = (locate(meant) if locate is not None else None) or flag_loc
    else:
        engine.locations.pop("model", None)


def read_affinity(spec: Mapping[str, Any]) -> list[list[MatchExpression]]:
    node_aff = as_map(as_map(spec.get("affinity")).get("nodeAffinity"))
    required = as_map(node_aff.get("requiredDuringSchedulingIgnoredDuringExecution"))
    terms: list[list[MatchExpression]] = []
    for term in as_list(required.get("nodeSelectorTerms")):
        exprs = [
            MatchExpression(str(e.get("key")), str(e.get("operator", "In")),
                            tuple(str(x) for x in as_list(e.get("values"))))
            for e in as_list(as_map(term).get("matchExpressions")) if isinstance(e, dict) and e.get("key")
        ]
        if exprs:  # a term of matchFields only is not modelled
            terms.append(exprs)
    return terms


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

"""KubeRay and Ray Serve LLM: RayCluster, RayService, and AIBrix's RayClusterFleet.

- A Ray cluster (``spec.headGroupSpec.template``, ``spec.workerGroupSpecs[].template``) whose head or
  worker container runs ``vllm serve`` is a serving group. With the Ray executor vLLM places its
  TP × PP workers on the cluster's GPU pods: when the vLLM pod's own GPUs are fewer than TP × PP, the
  group spans the head (if it has GPUs) and every worker replica. Placement the vLLM pod leaves out
  is taken from the other pods.
- ``RayService``: its ``rayClusterConfig`` as above, and each Ray Serve LLM application of
  ``serveConfigV2`` (``import_path: ray.serve.llm:build_openai_app``, ``args.llm_configs``): one group
  per ``llm_config`` (``NAME/<model_id>``) with the model from ``model_loading_config.model_source``,
  the vLLM settings from ``engine_kwargs``, the GPU bundles of its placement group per replica (its
  ``placement_group_config``, else TP × PP: :func:`_replica_gpus`), replicas from
  ``deployment_config`` (``num_replicas`` or ``autoscaling_config.min_replicas``), and the GPU from
  ``accelerator_type`` (else the worker pods' placement). Lines inside a ``|`` block point into it.
- ``RayClusterFleet`` (``orchestration.aibrix.ai``): ``spec.template.spec`` is a Ray cluster,
  ``spec.replicas`` of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import catalog
from ...model import (
    UNKNOWN,
    Inventory,
    LaunchIssue,
    Location,
    NodePool,
    PodPorts,
    Service,
    ServingGroup,
    engine_world_size,
    world_size,
)
from ...model.errors import CatalogError, InputError
from ..yamlsrc import LineDict, load_all
from .fields import as_list, as_map, int_field, line_of, str_map
from .parse import Lines
from .pods import read_pod
from .serving import (
    Implied,
    crd_group,
    first_container,
    key_location,
    memory_shm,
    model_from_uri,
    mounts_shm,
    replaced,
    with_containers,
)
from .workloads import (
    fill_placement,
    make_group,
    note_launch,
    pending_env,
    ray_default_workers,
    ray_open,
    ray_params_as_run,
    ray_release,
    ray_start_ports,
    runs_dist,
)


def _cluster_pods(cluster: Mapping[str, Any]) -> tuple[Mapping[str, Any], list[tuple[Mapping[str, Any], Any, str]]]:
    """(head template, [(worker template, replicas, group name)]), each as KubeRay creates the pod
    (:func:`_object_store`)."""
    head_group = as_map(cluster.get("headGroupSpec"))
    head = _object_store(as_map(head_group.get("template")), head_group.get("rayStartParams"))
    workers = []
    for wg in as_list(cluster.get("workerGroupSpecs")):
        wg = as_map(wg)
        replicas = wg.get("replicas", wg.get("minReplicas", 1))
        workers.append((_object_store(as_map(wg.get("template")), wg.get("rayStartParams")), replicas,
                        str(wg.get("groupName") or "")))
    return head, workers


#: The group name KubeRay gives the head's pods (ray-operator/controllers/ray/utils/constant.go).
_HEAD_GROUP = "headgroup"


def ray_pod_labels(kind: str, obj: Mapping[str, Any], template: Mapping[str, Any], head: bool,
                   group: str) -> dict[str, str]:
    """The labels KubeRay gives a Ray pod (ray-operator/controllers/ray/common/pod.go, labelPod): its defaults
    (``ray.io/is-ray-node``, ``app.kubernetes.io/name: kuberay``, ``app.kubernetes.io/created-by``,
    ``ray.io/identifier``) under the template's labels, and over them ``ray.io/node-type``, ``ray.io/group`` and
    ``ray.io/cluster``, which a template cannot override. A RayService's cluster (and a fleet's) gets a
    generated name, so its pods' ``ray.io/cluster`` is not known from the manifest; a RayService's pods carry
    ``ray.io/serve: "true"`` once they serve (its controller sets it on the head when Serve is ready)."""
    name = str(as_map(obj.get("metadata")).get("name") or "unnamed")
    node_type = "head" if head else "worker"
    labels = {"ray.io/is-ray-node": "yes", "app.kubernetes.io/name": "kuberay",
              "app.kubernetes.io/created-by": "kuberay-operator"}
    if kind == "RayCluster":
        labels["ray.io/identifier"] = f"{name}-{node_type}"
    labels.update(str_map(as_map(template.get("metadata")).get("labels")))
    if kind == "RayService":
        labels["ray.io/serve"] = "true"
    labels["ray.io/node-type"] = node_type
    labels["ray.io/group"] = _HEAD_GROUP if head else group
    if kind == "RayCluster":
        labels["ray.io/cluster"] = name
    return labels


def _object_store(template: Mapping[str, Any], params: Any) -> Mapping[str, Any]:
    """``template`` with the memory-backed /dev/shm KubeRay mounts in a Ray pod's first container for the
    object store, unless ``rayStartParams`` names a plasma-directory or something is mounted there already
    (ray-operator/controllers/ray/common/pod.go, addEmptyDir)."""
    spec = as_map(template.get("spec"))
    containers = as_list(spec.get("containers"))
    if not containers or not isinstance(containers[0], Mapping) or mounts_shm(containers[0]):
        return template
    if "plasma-directory" in as_map(params):
        return template
    first = containers[0]
    volume, mount = memory_shm("shared-mem", first)
    volumes = as_list(spec.get("volumes"))
    if not any(isinstance(v, Mapping) and v.get("name") == "shared-mem" for v in volumes):
        volumes = [*volumes, volume]  # a volume of that name already there is the one mounted
    first = replaced(first, volumeMounts=[*as_list(first.get("volumeMounts")), mount])
    spec = replaced(spec, containers=[first, *containers[1:]], volumes=volumes)
    return replaced(template, spec=spec)


def add_ray_cluster(kind: str, obj: Mapping[str, Any], cluster: Mapping[str, Any], loc: Location,
                    inv: Inventory, lines: Lines | None, replicas: Any = 1) -> bool:
    """The serving group of a Ray cluster whose head or a worker runs ``vllm serve``."""
    file = loc.file
    file_lines = lines.get(file) if lines is not None and file is not None else None
    head, workers = _cluster_pods(cluster)
    templates = [(head, 1, True, _HEAD_GROUP)] + [(t, r, False, name) for t, r, name in workers]
    pods = [(read_pod(t.get("metadata"), t.get("spec"), file, file_lines, {}), r, is_head)
            for t, r, is_head, _ in templates if t]
    labels = [ray_pod_labels(kind, obj, t, is_head, name) for t, _, is_head, name in templates if t]
    serving = next((p for p in pods if p[0].engine is not None), None)
    if serving is None:
        unread = next((p for p, _, _ in pods if p.unread is not None), None)
        if unread is not None:
            apps = _serve_apps(obj) if kind == "RayService" else []
            if apps and unread.unread_why is None:
                unread.unread_why = _SERVE_APP_WHY.format(apps=", ".join(f"`{a}`" for a in apps))
            note_launch(inv, kind, obj, loc, unread, None)
        return bool(pods)
    pod = serving[0]
    for other, _, _ in pods:
        if other is not pod:
            fill_placement(pod, other)
    engine = pod.engine
    assert engine is not None
    group = make_group(kind, obj, loc, pod, replicas, file)
    group.pod_labels = labels[pods.index(serving)]
    tp, pp = engine.tensor_parallel_size, engine.pipeline_parallel_size
    # the workers of one engine, vLLM's world_size: TP × PP × PCP (model.world_size; engine22); a PCP not known yet
    # leaves the count to the layout's readers
    world = engine_world_size(engine)
    if world is None and isinstance(tp, int) and isinstance(pp, int):
        world = world_size(tp, pp)
    if isinstance(tp, int) and isinstance(pp, int) and isinstance(pod.gpus, int) and world is not None and (
            pod.gpus < world):
        counted = [(p, r) for p, r, _ in pods if any(c.gpus for c in p.containers)]
        if any(not isinstance(r, int) for _, r in counted):
            group.pods_per_group = UNKNOWN
        else:
            group.pods_per_group = sum(r for _, r in counted) or 1
    inv.groups.append(group)
    note_launch(inv, kind, obj, loc, pod, group)
    return True


#: The named ports of the head Service KubeRay creates when the head container names none
#: (ray-operator/controllers/ray/utils/constant.go: client, gcs-server, dashboard, metrics).
_HEAD_DEFAULT_PORTS = {"client": 10001, "gcs-server": 6379, "dashboard": 8265, "metrics": 8080}


def _ray_node_ports(params: Any, head: bool, container: Any = None, declared: Any = None) -> Any:
    """The Ray ports a KubeRay pod listens on (:attr:`PodPorts.ray`, mend11): KubeRay starts the head with ``ray start
    --head`` and a worker with ``ray start --address=…`` (ray-operator/controllers/ray/common/pod.go,
    generateRayStartCommand), each with the group's ``rayStartParams`` as flags (:func:`ray_start_ports`: a worker
    listens on its dashboard agent's port only). The container's port names do not move Ray (mend24; KubeRay v1.7.0
    pod.go: ``GetHeadPort`` is rayStartParams' ``port`` or 6379, ``setMissingRayStartParams`` adds dashboard-host,
    metrics-export-port, block and dashboard-agent-listen-port, never a port a container names; the names only
    build the head Service and find the dashboard's URL, utils.FindContainerPort): a head's ``gcs-server`` port of
    another number than its ``--port``, or a worker's, has no Ray server behind it (KubeRay's docs, rayStartParams.md:
    ``--port`` "Please ensure this value matches the gcs-server container port"). True (every default port Ray's)
    where the parameters are not a map KubeRay reads or a value is not read, beside the ports its readable flags pin (a
    :class:`RayPins`, mend25; naming a value not known yet, or the whole map). A value is read as the Ray container
    (``container``, the first) runs it, its variables from its env (:func:`ray_params_as_run`, review41). The Ray
    release, where its image's tag or the cluster's ``rayVersion`` (``declared``) says it (:func:`ray_release`),
    decides whether a head's ``--dashboard-grpc-port`` is a Ray port (mend28)."""
    if params is UNKNOWN:  # its flags not known yet (a preview's computed map): any port may be pinned (mend25)
        return ray_open((), "KubeRay's rayStartParams")
    if params is not None and not isinstance(params, Mapping):
        return True
    given = ray_params_as_run(as_map(params), container)
    if head:  # KubeRay writes dashboard-host 0.0.0.0 where the head's parameters name none (review37)
        given.setdefault("dashboard-host", "0.0.0.0")
    release = ray_release(as_map(container).get("image"), declared)
    return ray_start_ports(given, head, pending_env(container), release)


def add_ray_pods(kind: str, obj: Mapping[str, Any], cluster: Mapping[str, Any], loc: Location,
                 inv: Inventory) -> None:
    """The ports of a Ray cluster's pods with the labels KubeRay gives them (``ray.io/cluster``,
    ``ray.io/node-type``, ``ray.io/group``, ``ray.io/is-ray-node``), so that a Service selecting the head
    by them resolves its named ``targetPort`` (``dashboard``); and the head Service KubeRay itself creates
    from ``headGroupSpec.serviceType``: with LoadBalancer or NodePort it publishes every port of the head
    container (KubeRay's defaults, among them the Ray dashboard and client, when it names none)."""
    meta = as_map(obj.get("metadata"))
    name, namespace = str(meta.get("name") or "unnamed"), str(meta.get("namespace") or "default")
    subject = f"{kind} {namespace}/{name}"
    head_group = as_map(cluster.get("headGroupSpec"))
    workers = [as_map(wg) for wg in as_list(cluster.get("workerGroupSpecs"))]
    groups = [(head_group, "head", _HEAD_GROUP)] + [(wg, "worker", str(wg.get("groupName") or "")) for wg in workers]
    for group, node_type, group_name in groups:
        template = as_map(group.get("template"))
        labels = ray_pod_labels(kind, obj, template, node_type == "head", group_name)
        named: dict[str, int] = {}
        containers = as_list(as_map(template.get("spec")).get("containers"))
        for p in as_list(as_map(containers[0] if containers else None).get("ports")):
            p = as_map(p)
            if isinstance(p.get("containerPort"), int) and not isinstance(p.get("containerPort"), bool):
                named.setdefault(str(p.get("name") or p["containerPort"]), p["containerPort"])
        if node_type == "head" and not named:
            named = dict(_HEAD_DEFAULT_PORTS)
        ray = _ray_node_ports(group.get("rayStartParams"), node_type == "head", containers[0] if containers else None,
                              cluster.get("rayVersion"))
        default_workers = ray_default_workers(as_map(group.get("rayStartParams"))) if isinstance(ray, frozenset) \
            else None
        inv.pod_ports.append(PodPorts(subject, namespace, labels, named, loc, ray=ray, dist=runs_dist(containers),
                                      ray_workers=default_workers))
        service_type = group.get("serviceType") if node_type == "head" else None
        if service_type in ("LoadBalancer", "NodePort"):
            inv.services.append(Service(
                name=f"{name}-head-svc", namespace=namespace, type=str(service_type),
                ports=list(named.values()), target_ports=list(named.values()),
                selector={k: labels[k] for k in ("ray.io/node-type", "ray.io/cluster") if k in labels},
                location=key_location(group, "serviceType", loc.file, loc),
                port_names={n: p for n, p in named.items()},
            ))


def add_ray_cluster_object(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory,
                           lines: Lines | None) -> bool:
    spec = as_map(obj.get("spec"))
    if kind in ("RayCluster", "RayService"):
        add_ray_pods(kind, obj, as_map(spec.get("rayClusterConfig")) if kind == "RayService" else spec, loc, inv)
    if kind == "RayClusterFleet":
        template = as_map(spec.get("template"))
        replicas = int_field(spec, "replicas", 1, loc, "spec.replicas")
        return add_ray_cluster(kind, obj, as_map(template.get("spec")), loc, inv, lines, replicas)
    if kind == "RayService":
        cluster = as_map(spec.get("rayClusterConfig"))
        added = add_ray_cluster(kind, obj, cluster, loc, inv, lines)
        return _serve_llm(obj, spec, cluster, loc, inv, lines) or added
    return add_ray_cluster(kind, obj, spec, loc, inv, lines)


# ---------------------------------------------------------------------------------------------
# Ray Serve LLM (serveConfigV2)
# ---------------------------------------------------------------------------------------------


#: What a Ray pod's container runs when the engine is a Ray Serve application of the RayService's own code: KubeRay
#: writes the container's command (``ray start``; ray-operator/controllers/ray/common/pod.go, BuildPod) and Serve
#: deploys the application's replicas onto the cluster (corpus23: jagrutsharma/multinode-llm-serving's
#: ``import_path: serve_vllm:app`` in its image ray-qwen-vllm read as "the image entrypoint, no args";
#: aws-samples/sample-genai-on-eks mounts its ``vllm_serve.py`` from a ConfigMap).
_SERVE_APP_WHY = ("is not where vLLM starts: KubeRay runs `ray start` in a Ray pod's container, and vLLM runs inside "
                  "the RayService's Ray Serve application {apps} (serveConfigV2), Python code of its own (in the "
                  "image, or a file mounted into the pods) that shardwise does not read, so the model, layout and "
                  "context length are not in the object; Ray Serve LLM's `ray.serve.llm:build_openai_app` with "
                  "inline `llm_configs` is read")


def _serve_apps(obj: Mapping[str, Any]) -> list[str]:
    """The import paths of a RayService's Serve applications that are not Ray Serve LLM's (which
    :func:`_serve_llm` reads): the repository's own code, shipped in the image. A serveConfigV2 that does not
    parse gives none here (:func:`_serve_llm` reports it)."""
    try:
        config, _ = _serve_config(as_map(obj.get("spec")), None)
    except InputError:
        return []
    paths = []
    for app in as_list(as_map(config).get("applications")):
        app = as_map(app)
        path = app.get("import_path")
        if (isinstance(path, str) and path.strip() and "ray.serve.llm" not in path
                and "llm_configs" not in as_map(app.get("args"))):
            paths.append(path.strip())
    return paths


def _serve_config(spec: Mapping[str, Any], file: str | None) -> tuple[Any, int]:
    """The parsed serveConfigV2 and the line offset of its text in the file."""
    text = spec.get("serveConfigV2")
    if not isinstance(text, str) or not text.strip():
        return None, 0
    offset = line_of(spec, "serveConfigV2") or 0  # a `|` block starts on the line after its key
    try:
        docs = list(load_all(text, file or "<serveConfigV2>"))
    except InputError as e:
        raise InputError(f"serveConfigV2: {e.message}", file,
                         offset + e.line if e.line is not None else line_of(spec, "serveConfigV2")) from None
    return (docs[0] if docs else None), offset


def _shift(d: Any, offset: int) -> Any:
    """Move the lines of a mapping parsed from an embedded YAML text to the file's lines."""
    if isinstance(d, LineDict):
        if d.line is not None:
            d.line += offset
        d.key_lines = {k: v + offset for k, v in d.key_lines.items()}
        for v in d.values():
            _shift(v, offset)
    elif isinstance(d, list):
        for v in d:
            _shift(v, offset)
    return d


def _engine_flags(kwargs: Mapping[str, Any], file: str | None, loc: Location) -> list[tuple[str, Any, Location]]:
    flags: list[tuple[str, Any, Location]] = []
    for key, value in kwargs.items():
        if value is None or isinstance(value, dict | list):
            continue
        flag = "--" + str(key).replace("_", "-")
        if value is False:
            flag, value = "--no-" + flag[2:], True
        flags.append((flag, value, key_location(kwargs, key, file, loc)))
    return flags


def _replica_gpus(cfg: Mapping[str, Any], engine: Any) -> Any:
    """The GPUs Ray Serve LLM reserves for one replica: the placement group its vLLM engine runs in, one GPU a bundle.

    Ray (python/ray/llm/_internal/serve/engines/vllm/vllm_models.py, ``VLLMEngineConfig.placement_bundles``) takes
    the bundles of the LLMConfig's ``placement_group_config`` where it is given (a bundle without ``GPU`` holds one:
    ``BundleConfig.GPU`` defaults to 1.0), else ``num_devices`` bundles of one GPU: ``tensor_parallel_size ×
    pipeline_parallel_size``, without ``--prefill-context-parallel-size``. vLLM's Ray executor counts the bundles that
    hold a GPU against its world size, TP × PP × PCP (``model.world_size``), and refuses fewer
    (its ``ray_utils.py``, ``initialize_ray_cluster``: "The number of required GPUs exceeds the total number
    of available GPUs in the placement group"), as it refuses a bundle of more than one GPU: the count is what the
    replica holds, and SW204 compares it with the workers. A bundle of a fraction of a GPU, more than one, or a count
    not known yet leaves it unknown."""
    config = cfg.get("placement_group_config")
    if config is None:
        tp, pp = engine.tensor_parallel_size, engine.pipeline_parallel_size
        return world_size(tp, pp) if isinstance(tp, int) and isinstance(pp, int) else UNKNOWN
    bundles = as_map(config).get("bundles")
    if not isinstance(bundles, list) or not bundles:
        return UNKNOWN
    count = 0
    for bundle in bundles:
        if not isinstance(bundle, Mapping):
            return UNKNOWN
        gpu = bundle.get("GPU", 1)
        if isinstance(gpu, bool) or not isinstance(gpu, int | float) or gpu not in (0, 1):
            return UNKNOWN
        count += int(gpu)
    return count


def _dp_group_gpus(bundles: Any, dp: Any) -> Any:
    """The GPUs one data-parallel group of ``build_dp_openai_app`` holds: ``data_parallel_size`` Serve replicas, one a
    DP rank, each with the LLMConfig's placement bundles (:func:`_replica_gpus`). Ray
    (``python/ray/llm/_internal/serve/serving_patterns/data_parallel/dp_server.py``, ``DPServer``): the
    deployment's ``num_replicas`` and ``autoscaling_config`` replicas are DP groups, multiplied by
    ``data_parallel_size`` into Serve replicas, which one gang placement group concatenating each rank's bundles
    reserves ("rank i owns bundles [i*B, ..., i*B+B-1]"); earlier releases (``deployments/data_parallel/dp_server.py``)
    ran ``data_parallel_size`` replicas of B bundles each. Either way the group holds DP × B GPUs for DP engines of
    vLLM's world size each, as a Kubernetes pod of a DP engine set holds DP × TP × PP × PCP. A count not known is
    unknown."""
    if isinstance(bundles, int) and isinstance(dp, int) and not isinstance(dp, bool) and dp > 0:
        return bundles * dp
    return UNKNOWN


def _plain_app_dp(group: ServingGroup) -> None:
    """Leave a replica's GPUs undecided where the plain app (``build_openai_app``'s ``LLMServer``) is given vLLM data
    parallelism (``engine_kwargs.data_parallel_size`` above 1, or not known yet). Ray passes it to vLLM with the other
    engine_kwargs unchecked (``VLLMEngineConfig.from_llm_config`` keeps every ``AsyncEngineArgs`` field; the
    earlier ``deployments/llm/vllm/vllm_models.py`` passed engine_kwargs whole) and reserves TP × PP bundles only
    (``placement_bundles``, ``num_devices``), neither refusing nor multiplying by it; vLLM's engine client then
    starts the DP ranks itself, outside those bundles. Whether they find GPUs depends on vLLM's
    ``data_parallel_backend`` and the cluster's free GPUs, not on the replica's bundles, so SW204 cannot count them
    against TP × PP × DP (build_dp_openai_app, which reserves each rank's bundles, is :func:`_dp_group_gpus`)."""
    dp = group.engine.data_parallel_size
    if dp == 1 and not isinstance(dp, bool):
        return
    written = f"data_parallel_size {dp}" if isinstance(dp, int) else "a data_parallel_size not known yet"
    group.gpus_per_pod = UNKNOWN
    group.gpus_undecided = (
        f"the GPUs a replica of the plain Ray Serve LLM app (build_openai_app) holds with {written}",
        "Ray reserves the replica tensor_parallel_size × pipeline_parallel_size bundles and passes data_parallel_size "
        "to vLLM unchecked, which starts the other data-parallel ranks itself, outside those bundles, on GPUs its "
        "data_parallel_backend (mp: the replica's node; ray: placement groups of its own) finds free in the cluster; "
        "serve it with ray.serve.llm:build_dp_openai_app (llm_config), which reserves every rank's bundles")


def _accelerator_pool(accelerator: Any, where: Location) -> NodePool | None:
    """A pool for Ray's ``accelerator_type`` ("A10G", "L4", "H100", "A100-80G", "AMD-Instinct-MI300X-OAM")."""
    if not isinstance(accelerator, str) or not accelerator.strip():
        return None
    name = accelerator.strip()
    # Ray Serve LLM packs a replica's TP bundles onto one node (STRICT_PACK), so the node size does not
    # bound the layout the way a pod's request does; gpus_per_node stays unset.
    pool = NodePool(name=f"accelerator_type={name}", location=where, kind="ray-accelerator")
    try:
        gpu = catalog.find_gpu(name[:-1] + "GB" if name.upper().endswith(("-40G", "-80G")) else name)
    except CatalogError:
        pool.gpu_memory_gib = UNKNOWN  # named, but not a GPU the catalog knows: capacity is undecided
        return pool
    pool.gpu = gpu
    pool.gpu_memory_gib = gpu.memory_gib
    pool.accelerator = gpu.vendor
    return pool


def _serve_llm(obj: Mapping[str, Any], spec: Mapping[str, Any], cluster: Mapping[str, Any], loc: Location,
               inv: Inventory, lines: Lines | None) -> bool:
    file = loc.file
    config, offset = _serve_config(spec, file)
    if not isinstance(config, dict):
        return False
    _shift(config, offset)
    head, workers = _cluster_pods(cluster)
    placement = as_map(next((t.get("spec") for t, _, _ in workers if t), head.get("spec")))
    # the Serve HTTP proxy on the head answers the app's requests: a Service in front of it selects the head
    proxy = ray_pod_labels("RayService", obj, head, True, _HEAD_GROUP)
    added = False
    for app in as_list(config.get("applications")):
        app = as_map(app)
        args = as_map(app.get("args"))
        if "ray.serve.llm" not in str(app.get("import_path", "")) and "llm_configs" not in args:
            continue
        # build_dp_openai_app takes one LLMConfig, ``llm_config`` (DPOpenAiServingArgs), not a list
        dp_app = "build_dp_openai_app" in str(app.get("import_path", ""))
        configs = [args.get("llm_config")] if dp_app and "llm_config" in args else as_list(args.get("llm_configs"))
        for cfg in configs:
            where = Location(file, cfg.line) if isinstance(cfg, LineDict) else key_location(args, "llm_configs",
                                                                                             file, loc)
            if not isinstance(cfg, dict):  # a path to a config file in the image
                inv.launch_issues.append(_unread_config(obj, cfg, where))
                continue
            added = _llm_config(obj, cfg, placement, where, loc, inv, lines, proxy, dp_app) or added
    return added


def _unread_config(obj: Mapping[str, Any], cfg: Any, where: Location) -> Any:
    meta = as_map(obj.get("metadata"))
    return LaunchIssue(
        f"RayService {meta.get('namespace') or 'default'}/{meta.get('name') or 'unnamed'}", "serveConfigV2",
        f"llm_configs entry {cfg!r} is a file inside the image, which shardwise cannot read; write the LLMConfig "
        "inline in serveConfigV2", where)


def _llm_config(obj: Mapping[str, Any], cfg: Mapping[str, Any], placement: Any, where: Location, loc: Location,
                inv: Inventory, lines: Lines | None, proxy: dict[str, str], dp_app: bool = False) -> bool:
    file = loc.file
    loading = as_map(cfg.get("model_loading_config"))
    source = loading.get("model_source") or loading.get("model_id")
    model = model_from_uri(source) if isinstance(source, str) else None
    model_id = str(loading.get("model_id") or model or "model")
    kwargs = as_map(cfg.get("engine_kwargs"))
    implied = Implied(entrypoint=(None, ("vllm", "serve")), flags=_engine_flags(kwargs, file, where))
    if model is not None:
        key = "model_source" if loading.get("model_source") else "model_id"
        implied.model = (model, key_location(loading, key, file, where))
    deployment = as_map(cfg.get("deployment_config"))
    autoscaling = as_map(deployment.get("autoscaling_config"))
    if "num_replicas" in deployment:
        replicas = int_field(deployment, "num_replicas", 1, where, "deployment_config.num_replicas",
                             text_ok=True)
    else:
        replicas = int_field(autoscaling, "min_replicas", 1, where, "autoscaling_config.min_replicas",
                             text_ok=True)
    implied.pool = _accelerator_pool(cfg.get("accelerator_type"), key_location(cfg, "accelerator_type", file, where))
    # vLLM runs in the Ray worker pods: their container (mounts, probes, image) without Ray's own command
    worker = first_container(placement)
    container = LineDict({k: v for k, v in worker.items() if k not in ("command", "args")})
    if isinstance(worker, LineDict):
        container.line = worker.line
        container.key_lines = {k: v for k, v in worker.key_lines.items() if k not in ("command", "args")}
    else:
        container.line = where.line
    container.setdefault("name", "llm-server")
    pod_spec = with_containers(placement, [container])
    name = f"{as_map(obj.get('metadata')).get('name') or 'unnamed'}/{model_id}"
    group = crd_group(inv, "RayService", obj, where, lines, pod_meta=None, pod_spec=pod_spec, replicas=replicas,
                      implied=implied, name=name)
    if group is None:
        return False
    group.pod_labels = dict(proxy)
    group.gpus_per_pod = _replica_gpus(cfg, group.engine)
    group.gpus_written = ("give the LLMConfig a placement_group_config of {units} bundles of one GPU each (Ray Serve "
                          "LLM reserves tensor_parallel_size × pipeline_parallel_size bundles without one)")
    if dp_app:
        group.gpus_per_pod = _dp_group_gpus(group.gpus_per_pod, group.engine.data_parallel_size)
        group.gpus_written = ("give the LLMConfig a placement_group_config whose one-GPU bundles, times "
                              "data_parallel_size, make {units} (build_dp_openai_app reserves each data-parallel "
                              "rank's bundles: tensor_parallel_size × pipeline_parallel_size without one)")
    else:
        _plain_app_dp(group)
    group.accelerator_resource = group.accelerator_resource or (
        "google.com/tpu" if implied.pool is not None and implied.pool.accelerator == "google" else "nvidia.com/gpu")
    group.locations["resources"] = group.at("tensor_parallel_size", "model")
    return True

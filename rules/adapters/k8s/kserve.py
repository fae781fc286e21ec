"""KServe: InferenceService, ServingRuntime / ClusterServingRuntime and LLMInferenceService.

- ``InferenceService`` (``serving.kserve.io/v1beta1``): a predictor with custom ``containers`` is read
  as a pod spec; a predictor ``model`` (``modelFormat``, ``runtime``, ``args``, ``env``, ``resources``,
  ``storageUri``) runs on a serving runtime: one defined in the same file (by ``runtime`` name, or the
  runtime whose ``supportedModelFormats`` auto-selects the format), else KServe's Hugging Face runtime
  for ``huggingface`` (vLLM backend unless ``--backend`` says otherwise; a runtime of its image whose container writes
  the image's entrypoint out, ``python3 -m huggingfaceserver``, is that runtime) and the vLLM runtime for
  ``vLLM``. The runtime's pod fields (``volumes``, ``nodeSelector``, ``tolerations``, ...) lie under the predictor's,
  as KServe merges them (:func:`_merge_runtime_pod`). The model is ``--model_id`` or the ``storageUri``
  (``hf://org/name``); ``workerSpec``
  (``tensorParallelSize``, ``pipelineParallelSize``) is a multi-node group, one pod per pipeline stage.
  Replicas: ``minReplicas`` (KServe's default 1). How KServe publishes the service on the cluster's ingress (by the
  ``serving.kserve.io/deploymentMode`` annotation and the visibility labels) is read for SW306 as
  ``ServingGroup.published`` (:func:`published`).
- ``ServingRuntime`` / ``ClusterServingRuntime`` alone deploy nothing: they are recognised, and used by
  the InferenceServices of the input that name them (``runtime``) or auto-select them. A runtime in another file
  than its InferenceService (a repository keeps ``servingruntime.yaml`` beside ``inferenceservice.yaml``) is
  joined once every input is read (:func:`link_runtimes`, run in ``resolve_pools``): the service is read on it,
  and the runtime is no longer linted alone as a template (it was one workload counted twice).
- ``LLMInferenceService`` (``serving.kserve.io/v1alpha1``): ``model.uri``, ``replicas``,
  ``parallelism`` (``tensor``, ``pipeline``, ``data``, ``dataLocal``, ``expert``), the ``template`` pod
  spec (its ``main`` container runs ``vllm serve`` unless it says otherwise, its ``VLLM_ADDITIONAL_ARGS`` words
  vLLM's flags: :func:`additional_args`) and ``worker`` for
  multi-node; ``prefill`` is a second group (``NAME/prefill``) of the same shape. The controller
  merges the template over its own base config (strategic merge: containers by name, a probe field by
  field), which gives the ``main`` container a memory-backed ``/dev/shm`` and startup, liveness and
  readiness probes on ``/health``; those are read as if written (:func:`with_controller_defaults`).
  Its ``spec.router.route`` makes KServe publish it through a Gateway API HTTPRoute (:func:`router_published`),
  read for SW306 as ``ServingGroup.published``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...model import UNKNOWN, CrossRef, Inventory, LaunchIssue, Location
from ...model.errors import InputError
from ...model.unknown import UNKNOWN_TOKEN, holds_placeholder, is_placeholder
from ...vllm.args import expand_k8s
from ...vllm.images import kserve_hf_release
from ..yamlsrc import LineDict
from .fields import as_list, as_map, int_field, line_of, read_annotations, str_map, suppressions_from
from .ome import merge
from .parse import Lines, make_locate
from .serving import (
    API_SERVER,
    VLLM_SERVE,
    Implied,
    crd_group,
    first_container,
    key_location,
    model_field,
    model_from_uri,
    mounts_shm,
    parallelism,
    placed,
    replaced,
    synthetic_container,
    unplaced,
    with_containers,
)
from .workloads import literal_env

#: KServe's Hugging Face server: its own flags beside vLLM's (which it passes through to the engine).
_HF_SERVER_FLAGS = ("--model_name", "--model-name", "--model_dir", "--model-dir", "--model_id", "--model-id",
                    "--backend", "--task", "--return_probabilities", "--disable_lower_case", "--http_port",
                    "--grpc_port")


#: CrossRef kinds: an InferenceService whose named runtime is not in its input yet, and a KServe runtime.
SERVICE_REF = "kserve InferenceService"
RUNTIME_REF = "kserve runtime"


def add_runtime(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> None:
    """A serving runtime deploys nothing by itself; the InferenceServices that name it use it. It is kept for
    :func:`link_runtimes` (what is read of it alone, as a template, is dropped when a service joins it)."""
    inv.cross_refs.append(CrossRef(RUNTIME_REF, obj, loc, lines))


def _runtime_for(model: Mapping[str, Any], runtimes: list[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    name = model.get("runtime")
    fmt = str(as_map(model.get("modelFormat")).get("name") or "").lower()
    for rt in runtimes:
        if name and as_map(rt.get("metadata")).get("name") == name:
            return rt
    if name:
        return None
    for rt in runtimes:
        for f in as_list(as_map(rt.get("spec")).get("supportedModelFormats")):
            f = as_map(f)
            if str(f.get("name") or "").lower() == fmt and f.get("autoSelect"):
                return rt
    return None


def runtimes_used(services: list[Mapping[str, Any]], runtimes: list[Mapping[str, Any]]) -> set[int]:
    """The ids of the ``runtimes`` that the InferenceServices ``services`` run their predictor model on."""
    used: set[int] = set()
    for isvc in services:
        model = as_map(as_map(as_map(isvc.get("spec")).get("predictor")).get("model"))
        if model:
            rt = _runtime_for(model, runtimes)
            if rt is not None:
                used.add(id(rt))
    return used


def _hf_server_command(command: Any) -> bool:
    """``command`` starts KServe's Hugging Face server as its image's ``ENTRYPOINT ["python3", "-m",
    "huggingfaceserver"]`` does (kserve/kserve python/huggingface_server.Dockerfile): a runtime that writes that
    entrypoint out as its container's command runs what a runtime with args only runs (corpus42: kubeflow/docs-agent's
    ServingRuntime ``command: ["python", "-m", "huggingfaceserver"]`` under InferenceServices with ``--backend=vllm``
    read as no server at all, a silent pass)."""
    words = [str(w) for w in as_list(command)]
    return (len(words) >= 3 and words[0].rsplit("/", 1)[-1] in ("python", "python3")
            and words[-2:] == ["-m", "huggingfaceserver"] and all(w.startswith("-") for w in words[1:-2]))


#: The values KServe's Hugging Face server takes for ``--backend``: it converts each with ``type=lambda t: Backend[t]``,
#: a lookup of its ``Backend`` enum by member name, exactly as written (kserve/kserve v0.13.0 to v0.20.0, each minor
#: release read, and master aaac4e29: python/huggingfaceserver/huggingfaceserver/__main__.py, ``class Backend`` in
#: __init__.py with the members ``auto``, ``huggingface`` and ``vllm``). Any other value (``VLLM``, ``vLLM``, ``""``)
#: raises KeyError, which argparse does not catch (``_get_value`` turns only ArgumentTypeError, TypeError and
#: ValueError into "invalid value"): it ends the module at import, at ``parser.parse_known_args()``, before any server
#: starts, and the container exits 1. Every occurrence is converted, so a later valid ``--backend`` does not save an
#: earlier one. v0.12 has no ``--backend`` (parse_known_args ignores it).
HF_BACKENDS = ("auto", "huggingface", "vllm")
#: The KServe releases read whose Hugging Face server takes only :data:`HF_BACKENDS`: the first with ``--backend``, and
#: the last read (a later one may take more).
_HF_BACKEND_READ = ((0, 13), (0, 20))


def _refused_backend(values: list[tuple[str, int]]) -> tuple[str, int] | None:
    """The first ``--backend`` value KServe's Hugging Face server refuses (:data:`HF_BACKENDS`) with the index of the
    flag that wrote it, None where each is one it takes or not known yet (a ``$(VAR)`` the container's env does not
    define, a template's placeholder)."""
    for value, at in values:
        if "$(" in value or UNKNOWN_TOKEN in value or is_placeholder(value) or holds_placeholder(value):
            continue
        if value not in HF_BACKENDS:
            return value, at
    return None


def _hf_server_args(args: list[Any], env: Mapping[str, str],
                    backends: list[tuple[str, int]] | None = None
                    ) -> tuple[list[Any], tuple[str, str] | None] | None:
    """KServe Hugging Face server args -> (vLLM API-server args, (model, the flag that named it)); None when
    ``--backend`` picks the Hugging Face backend, which is not vLLM. The server reads its flags with argparse
    (kserve/kserve python/huggingfaceserver/huggingfaceserver/__main__.py, ``--backend`` a plain store), so the last
    ``--backend`` wins, and KServe appends the InferenceService's args to its runtime's (MergeRuntimeContainers,
    pkg/controller/v1beta1/inferenceservice/utils/utils.go): an InferenceService's ``--backend=vllm`` overrides a
    runtime's ``--backend=huggingface`` (review43: read first-wins, that pair was no workload, a silent pass), and
    its ``--backend=huggingface`` overrides a runtime's ``--backend=vllm``. The kubelet expands each ``$(VAR)`` of
    the container's ``env`` in its args before the server reads them (review43: a runtime's ``--backend=$(BACKEND)``
    with ``BACKEND: vllm`` was no workload, a silent pass, and ``--model_id=$(MODEL_NAME)`` named no model): the
    backend and the model are read so; the other args stay as written, for the pod's reader expands them the same."""
    out: list[Any] = []
    named: dict[str, tuple[str, str]] = {}
    backend = ""
    i = 0
    while i < len(args):
        tok, start = args[i], i
        name, eq, value = str(tok).partition("=")
        takes = name in _HF_SERVER_FLAGS
        if takes and not eq and i + 1 < len(args):
            value = str(args[i + 1])
            i += 1
        i += 1
        if not takes:
            out.append(tok)
        elif name == "--backend":
            backend = expand_k8s(value, env)
            if backends is not None:  # with the index of the flag that wrote it
                backends.append((backend, start))
        elif name in ("--model_id", "--model-id", "--model_dir", "--model-dir"):
            named[name.replace("-", "_").lstrip("_")] = (expand_k8s(value, env), name)
    if backend.strip().lower() not in ("vllm", "auto", ""):
        return None
    return out, named.get("model_id") or named.get("model_dir")


def _refused_backend_issue(obj: Mapping[str, Any], model: Mapping[str, Any], loc: Location, lines: Lines | None,
                           value: str, image: Any, runtime: bool) -> LaunchIssue:
    """SW003's record of an InferenceService whose Hugging Face server is given a ``--backend`` it refuses: it exits
    at start-up (:data:`HF_BACKENDS`). Sure where the image is a KServe release read that reads ``--backend``
    (``kserve/huggingfaceserver:v0.13.0`` to ``v0.20.x``, ``-gpu`` or not); advisory where the image names no release
    read, or where none is written (the cluster's ClusterServingRuntime, not in the inputs: v0.12's server ignores the
    flag). At the service's ``--backend``, or at its ``runtime`` where the runtime's args wrote the value."""
    meta = as_map(obj.get("metadata"))
    namespace = str(meta.get("namespace") or "default")
    file = loc.file
    at = key_location(model, "modelFormat", file, loc)
    if runtime:
        where = key_location(model, "runtime", file, at)
    else:
        at = key_location(model, "args", file, at)
        locate = make_locate(lines.get(file) if lines is not None and file else None, at.line, None, file)
        where = (locate("--backend") if locate is not None else None) or at
    found = kserve_hf_release(image) if isinstance(image, str) else None
    sure = found is not None and _HF_BACKEND_READ[0] <= found[0] <= _HF_BACKEND_READ[1]
    reason = (f"container 'kserve-container': KServe's Hugging Face server refuses `--backend {value}` and exits at "
              "start-up: it looks the value up by name in its Backend enum (`auto`, `huggingface` or `vllm`, lower "
              "case, as written), and any other value raises a KeyError that ends the server before it serves "
              "(kserve v0.13.0 to v0.20.0, huggingfaceserver/__main__.py); write `--backend=vllm`")
    if not sure:
        which = (f"its image `{image}` names" if isinstance(image, str)
                 else "the cluster's runtime, not in the inputs, names")
        reason += (f" (advisory: {which} no KServe release from v0.13.0 to v0.20.0; v0.12's server has no --backend "
                   "and ignores it, and a later release may take more values)")
    ann, ann_lines = read_annotations(meta)
    return LaunchIssue(f"InferenceService {namespace}/{meta.get('name') or 'unnamed'}", "kserve-container", reason,
                       where, crash=True, suppressions=suppressions_from(ann, ann_lines, file, loc.line),
                       namespace=namespace, advisory=not sure)


def _backend_at(model: Mapping[str, Any], loc: Location, lines: Lines | None, runtime: bool) -> Location:
    """Where an InferenceService's ``--backend`` is written: its ``args`` line of the flag, or its ``runtime`` where
    the runtime's args wrote it."""
    file = loc.file
    at = key_location(model, "modelFormat", file, loc)
    if runtime:
        return key_location(model, "runtime", file, at)
    at = key_location(model, "args", file, at)
    locate = make_locate(lines.get(file) if lines is not None and file else None, at.line, None, file)
    return (locate("--backend") if locate is not None else None) or at


def _env_source(value: str, items: list[Any]) -> str:
    """Where the first ``$(VAR)`` of ``value`` takes its value from, in words: the ConfigMap or Secret key the
    container's ``env`` names for it (the last item of that name, as KServe merges the service's after the
    runtime's), else that no ``env`` of the inputs defines it."""
    var = value.split("$(", 1)[1].split(")", 1)[0]
    source: Mapping[str, Any] = {}
    for item in items:
        if isinstance(item, Mapping) and item.get("name") == var:
            source = as_map(item.get("valueFrom"))
    for kind, key in (("ConfigMap", "configMapKeyRef"), ("Secret", "secretKeyRef")):
        ref = as_map(source.get(key))
        if ref:
            return f"`{var}` is key `{ref.get('key')}` of the {kind} `{ref.get('name')}`, which is not in the inputs"
    if source:
        return f"`{var}` comes from a `valueFrom` the inputs do not resolve"
    return (f"`{var}` is set by no `env` of the inputs (an `envFrom` ConfigMap or Secret not in the inputs, or "
            "the cluster's runtime, may set it; where nothing does, the kubelet leaves it as written and the server "
            "refuses it)")


def _undecided_backend_issue(obj: Mapping[str, Any], model: Mapping[str, Any], loc: Location, lines: Lines | None,
                             value: str, source: str, runtime: bool) -> LaunchIssue:
    """SW005's record of an InferenceService on KServe's Hugging Face server whose ``--backend`` is a ``$(VAR)`` the
    inputs give no value: what a ConfigMap or Secret not in the inputs holds is not an unknown (DESIGN.md), and the
    backend decides whether vLLM runs at all, so no workload is read and the record says what would decide it
    (review43 read such a service as no workload, a silent pass). ``auto``, the server's default, runs vLLM where the
    image carries vLLM and vLLM's registry holds the model's architecture (kserve/kserve v0.14.0 and v0.15.0,
    python/huggingfaceserver/huggingfaceserver/__main__.py and vllm/utils.py,
    ``infer_vllm_supported_from_model_architecture``); ``huggingface`` runs Transformers, not vLLM."""
    meta = as_map(obj.get("metadata"))
    namespace = str(meta.get("namespace") or "default")
    reason = (f"container 'kserve-container': KServe's Hugging Face server is given `--backend {value}` and {source}; "
              "vLLM serves only where it is `vllm`, or `auto` on an image that carries vLLM with a model vLLM "
              "supports, while `huggingface` serves with Transformers, so no vLLM rule judges it: put that value in "
              "the inputs (a literal `--backend=vllm`, or the ConfigMap or Secret that holds it) to have it judged")
    ann, ann_lines = read_annotations(meta)
    return LaunchIssue(f"InferenceService {namespace}/{meta.get('name') or 'unnamed'}", "kserve-container", reason,
                       _backend_at(model, loc, lines, runtime),
                       suppressions=suppressions_from(ann, ann_lines, loc.file, loc.line), mentioned=True,
                       namespace=namespace)


def add_inference_service(obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None,
                          runtimes: list[Mapping[str, Any]]) -> bool:
    """The serving group of an InferenceService whose predictor runs vLLM."""
    spec = as_map(obj.get("spec"))
    predictor = as_map(spec.get("predictor"))
    file = loc.file
    replicas = int_field(predictor, "minReplicas", 1, loc, "spec.predictor.minReplicas")
    implied = Implied()
    model = as_map(predictor.get("model"))
    storage = (model_field(model, "storageUri", "spec.predictor.model.storageUri", file, loc)
               or model_field(predictor, "storageUri", "spec.predictor.storageUri", file, loc))
    uri_model = model_from_uri(storage)
    if uri_model is not None:
        holder = model if model.get("storageUri") else predictor
        implied.model = (uri_model, key_location(holder, "storageUri", file, loc))
    elif isinstance(as_map(model.get("storage")).get("path"), str) and as_map(model.get("storage"))["path"].strip("/ "):
        # `storage: {key, path}`: the storage initializer copies <path> of the data connection's bucket to
        # /mnt/models, and the path names the model the way its files were uploaded (`mistralai/Mistral-7B-
        # Instruct-v0.3/`, rh-aiservices-bu/models-aas), as a storageUri's would
        stored = as_map(model.get("storage"))
        implied.model = (stored["path"].strip("/ "), key_location(stored, "path", file, loc))
    pod_spec: Any = predictor
    if model and not as_list(predictor.get("containers")):
        refused: list[tuple[str, Any, bool]] = []
        undecided: list[tuple[str, str, bool]] = []
        pod_spec = _model_pod(model, predictor, runtimes, implied, lines, file, refused, undecided,
                              as_map(obj.get("metadata")))
        if refused:
            inv.launch_issues.append(_refused_backend_issue(obj, model, loc, lines, *refused[0]))
        if undecided:
            inv.launch_issues.append(_undecided_backend_issue(obj, model, loc, lines, *undecided[0]))
        if pod_spec is None:
            return True  # a KServe model server that is not vLLM (Hugging Face backend, sklearn, ...)
    worker = as_map(predictor.get("workerSpec"))
    pods = 1
    if worker:
        values = parallelism(implied, worker, ("tensorParallelSize", "pipelineParallelSize"),
                             "spec.predictor.workerSpec", loc, file)
        stages = values["pipelineParallelSize"]
        pods = 1 if stages is None else stages  # one pod per pipeline stage
    mark = len(inv.groups)
    group = crd_group(inv, "InferenceService", obj, loc, lines, pod_meta=obj.get("metadata"), pod_spec=pod_spec,
                      replicas=replicas, implied=implied, others=[worker] if worker else [], pods_per_group=pods)
    if group is not None:
        group.pod_labels = predictor_labels(obj, predictor)
    meta = as_map(obj.get("metadata"))
    route, advisory = published(meta)
    for g in inv.groups[mark:]:
        g.published, g.published_advisory = route, advisory
        if route is not None and isinstance(meta, dict):
            key = next((k for k in ("labels", "annotations") if k in meta), None)  # the label, else the mode
            g.locations["published"] = Location(file, (line_of(meta, key) if key else None) or loc.line)
    if model and model.get("runtime") and pod_spec is not predictor and _runtime_for(model, runtimes) is None:
        for g in inv.groups[mark:]:  # the runtime it names (not in its file) builds the container: image, command,
            g.unknown_operator = True  # env, resources; what it adds (a CPU build, GPUs) is not known
        inv.cross_refs.append(CrossRef(SERVICE_REF, obj, loc, lines))  # joined if another input holds the runtime
    return True


def link_runtimes(inv: Inventory) -> None:
    """Read each InferenceService whose named runtime is in another input on that runtime, once every input is
    read: its groups read without the runtime, and the runtime's read alone as a template, give way to the
    service read on it (the runtime's lines are another file's: its fields point at the service)."""
    services = [r for r in inv.cross_refs if r.kind == SERVICE_REF and not r.done]
    if not services:
        return
    runtimes = [r for r in inv.cross_refs if r.kind == RUNTIME_REF]
    for svc in services:
        model = as_map(as_map(as_map(svc.obj.get("spec")).get("predictor")).get("model"))
        namespace = str(as_map(svc.obj.get("metadata")).get("namespace") or "default")
        rt = _named_runtime(runtimes, str(model.get("runtime")), namespace)
        if rt is None:
            continue
        svc.done = True
        joined = Inventory()
        try:
            add_inference_service(svc.obj, svc.location, joined, svc.lines, [unplaced(rt.obj)])
        except InputError as e:
            inv.errors.append(e)
            continue
        gone = {id(x) for x in (*svc.groups, *rt.groups, *svc.issues, *rt.issues)}
        inv.groups[:] = [g for g in inv.groups if id(g) not in gone]
        inv.launch_issues[:] = [i for i in inv.launch_issues if id(i) not in gone]
        rt.groups, rt.issues = [], []
        inv.groups.extend(joined.groups)
        inv.launch_issues.extend(joined.launch_issues)


def _named_runtime(runtimes: list[CrossRef], name: str, namespace: str) -> CrossRef | None:
    """The runtime an InferenceService names: a ServingRuntime of its namespace, else a ClusterServingRuntime
    (KServe's GetServingRuntime). A ServingRuntime whose metadata names no namespace lands in the one it is applied
    to (``kubectl apply -n``, a Kustomize ``namespace:`` or namespace transformer: corpus16, parasol-insurance's
    runtime beside the InferenceService that names it), so it is the service's when no runtime of that name names
    the service's namespace."""
    def found(kind: str, match: Any) -> CrossRef | None:
        for r in runtimes:
            meta = as_map(r.obj.get("metadata"))
            if r.obj.get("kind") == kind and meta.get("name") == name and match(meta.get("namespace")):
                return r
        return None

    return (found("ServingRuntime", lambda ns: str(ns or "default") == namespace)
            or found("ServingRuntime", lambda ns: not ns)
            or found("ClusterServingRuntime", lambda ns: True))


#: The InferenceService annotation that picks how KServe deploys the predictor (pkg/constants).
_DEPLOYMENT_MODE = "serving.kserve.io/deploymentMode"


#: The labels that keep an InferenceService off the cluster's ingress (KServe's pkg/constants): Knative's, read in
#: Serverless (Knative) mode (reconcilers/ingress/ingress_reconciler.go; the InferenceService's labels are the
#: predictor Knative Service's), and KServe's own, read in RawDeployment (Standard) mode
#: (kube_ingress_reconciler.go, httproute_reconciler.go); both take ``cluster-local``.
KNATIVE_VISIBILITY = "networking.knative.dev/visibility"
KSERVE_VISIBILITY = "networking.kserve.io/visibility"
_CLUSTER_LOCAL = "cluster-local"
_KNATIVE_MODES = ("Serverless", "Knative")
_STANDARD_MODES = ("RawDeployment", "Standard")


#: Open Data Hub / OpenShift AI's token authentication of an InferenceService's route: the annotation in Serverless
#: mode (an Authorino check on the Istio gateway), the label in RawDeployment mode (an auth proxy in front of the
#: predictor); what the dashboard's "Require token authentication" writes (opendatahub-io docs, "Protecting
#: Inference Services under authorization", ODH 2.9 on).
_AUTH = (("annotations", "security.opendatahub.io/enable-auth"),
         ("labels", "security.openshift.io/enable-authentication"))


def authenticated(labels: Mapping[str, Any], annotations: Mapping[str, Any]) -> bool:
    """Whether the InferenceService asks its platform to authenticate the clients of its route."""
    maps = {"labels": labels, "annotations": annotations}
    return any(str(maps[where].get(key, "")).strip().lower() == "true" for where, key in _AUTH)


#: The ConfigMap KServe's controller reads its cluster-wide settings from (pkg/constants:
#: InferenceServiceConfigMapName),
#: in the controller's namespace: ``deploy.defaultDeploymentMode`` and ``ingress.disableIngressCreation``, JSON.
CONFIG_NAME = "inferenceservice-config"


def cluster_config(inv: Inventory) -> tuple[str, bool, str] | None:
    """(default deployment mode, whether Standard mode creates no Ingress, which ConfigMap says so) from the
    inferenceservice-config ConfigMaps of the inputs; None when there is none, one cannot be read as KServe reads
    it (JSON), or they disagree (a base and the patches of its overlays: which one the cluster runs is not in
    the inputs)."""
    import json  # only when the inputs hold KServe's ConfigMap

    seen: set[tuple[str, bool]] = set()
    where = ""
    for m in inv.config_maps:
        if m.kind != "ConfigMap" or m.name != CONFIG_NAME:
            continue
        try:
            deploy = json.loads(m.data.get("deploy") or "{}")
            ingress = json.loads(m.data.get("ingress") or "{}")
        except (TypeError, ValueError):
            return None
        if not isinstance(deploy, dict) or not isinstance(ingress, dict):
            return None
        mode, off = deploy.get("defaultDeploymentMode", "Serverless"), ingress.get("disableIngressCreation", False)
        if not isinstance(mode, str) or not isinstance(off, bool):
            return None
        seen.add((mode.strip(), off))
        where = where or f"`{m.namespace}/{m.name}`"
    if len(seen) != 1:
        return None
    [(mode, off)] = seen
    return mode, off, where


def apply_cluster_config(inv: Inventory) -> None:
    """Judge the InferenceServices by the inferenceservice-config ConfigMap of the inputs (the default mode of those
    that name none, and whether Standard mode creates an Ingress), once every input is read."""
    config = cluster_config(inv)
    if config is None:
        return
    for g in inv.groups:
        if g.kind != "InferenceService" or g.published is UNKNOWN:
            continue
        meta = {"name": g.name, "namespace": g.namespace, "labels": g.pod_labels, "annotations": g.annotations}
        g.published, g.published_advisory = published(meta, config)


def published(meta: Mapping[str, Any], config: tuple[str, bool, str] | None = None) -> tuple[Any, str]:
    """How KServe publishes an InferenceService on the cluster's ingress (for SW306): (None, "") when nothing
    does, (UNKNOWN, "") when the labels or the mode are not known yet, else (how, as SW306 says it; why it is only
    advisory, "" when it blocks).

    The mode is the ``serving.kserve.io/deploymentMode`` annotation; without it, the cluster's default, the
    ``deploy.defaultDeploymentMode`` of the inferenceservice-config ConfigMap, which KServe ships as ``Serverless``
    in every release from v0.10 to v0.19 (config/configmap/inferenceservice.yaml; the Helm charts' ``Serverless``,
    ``Knative`` from v0.16). A ``networking.kserve.io/visibility`` label with no Knative one says the author's
    cluster runs Standard mode: only that mode reads it.

    - Serverless / Knative: the predictor's Knative Service gets a route on the ingress gateway and KServe an Istio
      VirtualService on the external domain, unless the InferenceService carries
      ``networking.knative.dev/visibility: cluster-local``. Advisory, as for a Knative Service: whether the route
      is reachable from outside is the gateway's Service and the cluster's domain, which the inputs do not show.
    - RawDeployment / Standard: KServe creates an Ingress (or a Gateway API HTTPRoute) on the ingress domain unless
      the service carries ``networking.kserve.io/visibility: cluster-local``, but only where the ingress config
      leaves ``disableIngressCreation`` off and the domain is not ``svc.cluster.local``: OpenShift AI ships it off
      and publishes only the services labelled ``networking.kserve.io/visibility: exposed``. Advisory.
    - ModelMesh: the model mesh's own Service, not the InferenceService, serves it.

    A service that asks Open Data Hub / OpenShift AI for token authentication (:data:`_AUTH`) is published behind a
    gateway that authenticates clients: nothing to report. ``config``, the inferenceservice-config of the inputs
    (:func:`cluster_config`), gives the default mode in place of KServe's shipped one, and with
    ``disableIngressCreation`` true Standard mode creates no Ingress.
    """
    name, namespace = str(meta.get("name") or "unnamed"), str(meta.get("namespace") or "default")
    labels = meta.get("labels")
    annotations = meta.get("annotations")
    if labels is UNKNOWN or annotations is UNKNOWN:
        return UNKNOWN, ""
    labels, annotations = as_map(labels), as_map(annotations)
    mode = annotations.get(_DEPLOYMENT_MODE)
    knative, kserve = labels.get(KNATIVE_VISIBILITY), labels.get(KSERVE_VISIBILITY)
    if any(v is UNKNOWN or is_placeholder(v) for v in (mode, knative, kserve)):
        return UNKNOWN, ""
    mode = mode.strip() if isinstance(mode, str) else ""
    default = ""
    if config is not None and mode not in (*_KNATIVE_MODES, *_STANDARD_MODES, "ModelMesh"):
        why = (f"no `{_DEPLOYMENT_MODE}` annotation" if not mode else
               f"`{_DEPLOYMENT_MODE}: {mode}` is none of its modes")
        mode, default = config[0], f" ({why}: the default of the {CONFIG_NAME} ConfigMap {config[2]} of the inputs)"
    if mode == "ModelMesh" or authenticated(labels, annotations):
        return None, ""
    standard = mode in _STANDARD_MODES or (mode not in _KNATIVE_MODES and kserve is not None and knative is None)
    said = (f"in {mode} mode{default}" if mode in (*_KNATIVE_MODES, *_STANDARD_MODES) else
            "in Standard mode (the only mode that reads its visibility label)" if standard else
            "in Serverless mode (no `serving.kserve.io/deploymentMode` annotation: the default KServe's "
            "inferenceservice-config ships)" if not mode else
            f"in Serverless mode (`{_DEPLOYMENT_MODE}: {mode}` is none of KServe's modes, which takes the default "
            "its inferenceservice-config ships)")
    if standard:
        value = str(kserve).strip() if kserve is not None else ""
        if value == _CLUSTER_LOCAL or (config is not None and config[1]):
            return None, ""  # cluster-local, or the cluster's config turns Standard mode's Ingress creation off
        how = ("is labelled `networking.kserve.io/visibility: exposed`" if value == "exposed" else
               f"has no `{KSERVE_VISIBILITY}: {_CLUSTER_LOCAL}` label")
        if config is not None:  # the inputs' ConfigMap leaves Ingress creation on
            return (f"{how}, so KServe {said} creates an Ingress (or an HTTPRoute) for it on the cluster's ingress "
                    "domain", f"where it is reachable is the ingress controller of the class {config[2]} names, "
                    "which the inputs do not show")
        return (f"{how}, so KServe {said} creates an Ingress (or an HTTPRoute) for it on the cluster's ingress "
                "domain",
                "whether KServe creates it and where it is reachable is the ingress config of the cluster's "
                "inferenceservice-config (disableIngressCreation, ingressDomain, the ingress class), which the "
                "inputs do not show; OpenShift AI ships ingress creation off")
    value = str(knative).strip() if knative is not None else ""
    if value == _CLUSTER_LOCAL:
        return None, ""
    return (f"has no `{KNATIVE_VISIBILITY}: {_CLUSTER_LOCAL}` label, so KServe {said} publishes it "
            f"(http://{name}.{namespace}.<the cluster's domain>, a Knative route and an Istio VirtualService) on the "
            "ingress gateway's external address"), ("whether it is reachable from outside the cluster is the "
            "ingress gateway's Service and the domain of the cluster's inferenceservice-config and Knative "
            "config-domain, which the inputs do not show")


def predictor_labels(obj: Mapping[str, Any], predictor: Mapping[str, Any]) -> dict[str, str]:
    """The labels of the predictor's pods (KServe's pkg/controller/v1beta1/inferenceservice/components/predictor.go,
    buildObjectMeta): the InferenceService's labels, the predictor's, and ``serving.kserve.io/inferenceservice``
    and ``component: predictor``; in raw deployment mode ``app: isvc.<name>-predictor`` (the Deployment's
    selector, reconcilers/deployment), in serverless mode the Knative Service's ``serving.knative.dev/service``
    and ``…/configuration`` (``<name>-predictor``). The mode the cluster defaults to is not in the manifest: those
    labels are added only when the annotation names the mode."""
    meta = as_map(obj.get("metadata"))
    name = str(meta.get("name") or "unnamed")
    labels = {**str_map(meta.get("labels")), **str_map(predictor.get("labels")),
              "serving.kserve.io/inferenceservice": name, "component": "predictor"}
    mode = str_map(meta.get("annotations")).get(_DEPLOYMENT_MODE, "").strip()
    if mode in ("RawDeployment", "Standard"):
        labels["app"] = f"isvc.{name}-predictor"
    elif mode in ("Serverless", "Knative"):
        labels["serving.knative.dev/service"] = labels["serving.knative.dev/configuration"] = f"{name}-predictor"
    return labels


def _model_pod(model: Mapping[str, Any], predictor: Mapping[str, Any], runtimes: list[Mapping[str, Any]],
               implied: Implied, lines: Lines | None, file: str | None,
               refused: list[tuple[str, Any, bool]] | None = None,
               undecided: list[tuple[str, str, bool]] | None = None,
               meta: Mapping[str, Any] | None = None) -> LineDict | None:
    """The pod spec a predictor ``model`` runs as: the runtime's container with the model's args, env and
    resources (KServe appends the InferenceService's args to the runtime's). None where no vLLM server runs: another
    format's runtime, the Hugging Face backend, or a ``--backend`` KServe's Hugging Face server refuses, which is put
    in ``refused`` with the image that runs it and whether the runtime wrote it (:data:`HF_BACKENDS`: read as vLLM's
    ``vllm``, ``--backend=VLLM`` was a workload that never starts), or a ``--backend`` whose ``$(VAR)`` the inputs
    give no value (a ConfigMap or Secret not in the inputs), put in ``undecided`` with where its value comes from and
    whether the runtime wrote it."""
    fmt = str(as_map(model.get("modelFormat")).get("name") or "").lower()
    runtime = _runtime_for(model, runtimes)
    args = list(as_list(model.get("args")))
    base: Mapping[str, Any] = {}
    if runtime is not None:
        base = first_container(as_map(runtime.get("spec")), "kserve-container")
        args = [*as_list(base.get("args")), *args]
    if meta is not None and any("{{" in str(a) for a in [*args, *as_list(base.get("command")),
                                                        *as_list(model.get("command"))]):
        args = [filled_placeholders(a, meta) for a in args]
    env_items = [*as_list(base.get("env")), *as_list(model.get("env"))]
    if meta is not None:  # KServe fills the whole merged container, its env values too (ReplacePlaceholders)
        env_items = [_filled_env_item(item, meta) for item in env_items]
    hf = fmt == "huggingface" and (runtime is None or "huggingfaceserver" in str(base.get("image", "")))
    if hf:
        # the variables the kubelet expands in the args: the runtime's container's, then the model's (KServe merges
        # them by name, the InferenceService's last)
        env, _pending = literal_env({"env": env_items,
                                     "envFrom": [*as_list(base.get("envFrom")), *as_list(model.get("envFrom"))]})
        backends: list[tuple[str, int]] = []
        converted = _hf_server_args(args, env, backends)
        bad = _refused_backend(backends)
        if bad is not None:
            if refused is not None:  # the runtime's args come first (KServe appends the service's)
                refused.append((bad[0], model.get("image") or base.get("image"),
                                bad[1] < len(args) - len(as_list(model.get("args")))))
            return None
        last = backends[-1][0] if backends else ""
        if "$(" in last:  # a variable the inputs give no value: which backend runs is not known (never a pass)
            if undecided is not None:
                undecided.append((last, _env_source(last, [*as_list(base.get("env")), *as_list(model.get("env"))]),
                                  backends[-1][1] < len(args) - len(as_list(model.get("args")))))
            return None
        if converted is None:
            return None
        args, named = converted
        if named is not None:  # --model_id (or --model_dir): it wins over storageUri, as in KServe
            args_at = key_location(model, "args", file, Location(file, None))
            locate = make_locate(lines.get(file) if lines is not None and file else None, args_at.line, None, file)
            implied.model = (named[0], (locate(named[1]) if locate is not None else None) or args_at)
        implied.entrypoint = (None, API_SERVER)
    elif runtime is None:
        if fmt != "vllm":
            return None
        implied.entrypoint = (None, API_SERVER)
        if not any(str(a).split("=", 1)[0] == "--model" for a in args):
            args = ["--model", "/mnt/models", *args]
    command = model.get("command", base.get("command"))  # the service's replaces the runtime's (a list, no merge key)
    if meta is not None and isinstance(command, list) and any("{{" in str(a) for a in command):
        command = [filled_placeholders(a, meta) for a in command]
    if hf and _hf_server_command(command):
        command = None  # the image's entrypoint written out: the server implied.entrypoint stands for
    container = synthetic_container(
        "kserve-container", model, None,
        image=model.get("image") or base.get("image"),
        command=command,
        args=args,
        env=env_items or None,
        resources=_merged(base, model, "resources"),
    )
    for key in ("startupProbe", "livenessProbe", "readinessProbe", "volumeMounts"):
        if key in base or key in model:
            container[key] = _merged(base, model, key)
    for key in container:  # each field at the line of what wrote it: the model's, else the runtime's container
        own = key in model and (bool(model.get(key)) or key not in ("image", "resources", "args", "env"))
        source = model if own else base
        if isinstance(source, LineDict) and key in source.key_lines:
            container.key_lines[key] = source.key_lines[key]
    if isinstance(predictor, LineDict) and "model" in predictor.key_lines:
        container.line = predictor.key_lines["model"]  # the predictor's model is its container
    pod = with_containers(predictor, [container])
    if runtime is not None:
        _merge_runtime_pod(pod, as_map(runtime.get("spec")))
    return pod


#: A placeholder KServe fills in a predictor's container from the InferenceService's metadata (``ReplacePlaceholders``,
#: pkg/controller/v1beta1/inferenceservice/utils/utils.go: the merged container's JSON executed as a Go template with
#: the service's ObjectMeta as data): ``{{.Name}}``, ``{{.Namespace}}``, ``{{.Labels.KEY}}``, ``{{.Annotations.KEY}}``
#: (KEY a Go identifier) and ``{{index .Annotations "KEY"}}`` (any key).
_KSERVE_PLACEHOLDER = re.compile(
    r"\{\{-?\s*(?:\.(?P<field>Name|Namespace)|\.(?P<map>Labels|Annotations)\.(?P<key>[A-Za-z_][A-Za-z0-9_]*)"
    r"|index\s+\.(?P<imap>Labels|Annotations)\s+\"(?P<ikey>[^\"\\]*)\")\s*-?\}\}")


def filled_placeholders(value: Any, meta: Mapping[str, Any]) -> Any:
    """``value`` (a container's arg or command word) with each KServe placeholder (:data:`_KSERVE_PLACEHOLDER`) the
    InferenceService's metadata ``meta`` gives a value filled in, as KServe fills it before the pod is made (review50:
    ``--tensor-parallel-size={{.Annotations.tp}}`` in a ServingRuntime's args, the service annotated ``tp: "2"``,
    was an unrendered Helm placeholder, a false SW003 block). A placeholder whose field or key the metadata does not
    hold, or whose value is not a plain string (html/template escapes ``<>&'"`` in it), is left as written: KServe
    renders a missing key empty, and SW003 names the placeholder and the label or annotation it lacks where vLLM
    cannot read what is left (mend38)."""
    if not isinstance(value, str) or "{{" not in value:
        return value

    def fill(m: re.Match[str]) -> str:
        if m.group("field"):
            got: Any = meta.get(m.group("field").lower())
            if m.group("field") == "Namespace" and got is None:
                got = "default"
        else:
            found = as_map(meta.get((m.group("map") or m.group("imap")).lower()))
            got = found.get(m.group("key") or m.group("ikey"))
        if not isinstance(got, str) or is_placeholder(got) or any(c in got for c in "<>&'\"+"):
            return m.group(0)
        return got

    return _KSERVE_PLACEHOLDER.sub(fill, value)


def _filled_env_item(item: Any, meta: Mapping[str, Any]) -> Any:
    """An env item of a predictor's container with its ``value``'s KServe placeholders filled
    (:func:`filled_placeholders`): ``ReplacePlaceholders`` executes the JSON of the whole merged container as a
    template, env included (mend38: ``value: "{{.Annotations.max_len}}"`` was read as written). The item keeps the
    lines it was written at."""
    value = item.get("value") if isinstance(item, Mapping) else None
    if not isinstance(value, str) or "{{" not in value:
        return item
    filled = filled_placeholders(value, meta)
    if filled == value:
        return item
    copy = LineDict(item)
    if isinstance(item, LineDict):
        copy.line = item.line
        copy.key_lines = dict(item.key_lines)
    copy["value"] = filled
    return copy


def _merged(base: Mapping[str, Any], model: Mapping[str, Any], key: str) -> Any:
    """Field ``key`` of the container KServe runs for a predictor ``model`` on its runtime's container ``base``:
    ``MergeRuntimeContainers`` (pkg/controller/v1beta1/inferenceservice/utils/utils.go: kserve/kserve 00bd5d06 through
    pkg/utils ``MergeContainerWithPatch``, and the earlier form that calls ``strategicpatch.StrategicMergePatch``
    itself; both then concatenate the args) applies the service's container to the runtime's as a strategic merge
    patch, so
    ``resources`` merges key by key (a service that writes only cpu and memory keeps the runtime's nvidia.com/gpu),
    ``volumeMounts`` item by item by mountPath (the runtime's /dev/shm mount stays beside the service's cache) and a
    probe field by field (review50: the service's replaced the runtime's whole, two false blocks, SW204 and SW401)."""
    if key in base and key in model and model[key] is not None:
        return merge(base[key], model[key], key)
    return model.get(key) if key in model and model[key] is not None else base.get(key)


#: The pod fields of a ServingRuntime's spec that KServe's predictor reconciler merges under the InferenceService's
#: predictor (``MergePodSpec``, pkg/controller/v1beta1/inferenceservice/utils/utils.go: NodeSelector, Affinity,
#: Tolerations, Volumes, ImagePullSecrets, then DNSPolicy, HostNetwork, SchedulerName and HostIPC in later releases),
#: by a strategic merge patch whose patch is the predictor: volumes and imagePullSecrets merge by name (the
#: predictor's wins), nodeSelector key by key, affinity field by field, and a list without a merge key (tolerations)
#: or a scalar the predictor writes replaces the runtime's.
_RUNTIME_POD_FIELDS = ("nodeSelector", "affinity", "tolerations", "volumes", "imagePullSecrets", "dnsPolicy",
                       "hostNetwork", "schedulerName", "hostIPC")


def _merge_runtime_pod(pod: LineDict, runtime_spec: Mapping[str, Any]) -> None:
    """Put under ``pod`` (the predictor's pod spec) what KServe takes from the runtime's pod fields: a runtime's
    memory /dev/shm volume, node selector or tolerations are the predictor pod's too (corpus22: an OpenShift AI
    runtime's ``volumes: [{name: shm, emptyDir: {medium: Memory}}]`` mounted at /dev/shm by its container was read
    as a mount of a volume the pod does not define, SW401 mandatory)."""
    for key in _RUNTIME_POD_FIELDS:
        if key not in runtime_spec:
            continue
        theirs = runtime_spec[key]
        if key not in pod:
            pod[key] = theirs
        elif key in ("volumes", "imagePullSecrets") and isinstance(pod[key], list) and isinstance(theirs, list):
            # by their names where those are strings (a list or a mapping as a name was a TypeError: fuzz22)
            own = {v["name"] for v in pod[key] if isinstance(v, Mapping) and isinstance(v.get("name"), str)}
            pod[key] = [*(v for v in theirs if not (isinstance(v, Mapping) and isinstance(v.get("name"), str)
                                                    and v["name"] in own)), *pod[key]]
            continue
        elif key in ("nodeSelector", "affinity") and isinstance(pod[key], Mapping) and isinstance(theirs, Mapping):
            merged = LineDict({**theirs, **pod[key]})
            if isinstance(pod[key], LineDict):
                merged.line, merged.key_lines = pod[key].line, dict(pod[key].key_lines)
            pod[key] = merged
            continue
        else:
            continue  # the predictor's own value replaces the runtime's
        if isinstance(runtime_spec, LineDict) and key in runtime_spec.key_lines:
            pod.key_lines[key] = runtime_spec.key_lines[key]


#: Probes KServe's LLMInferenceService controller gives the ``main`` container in its base config
#: (config/llmisvcconfig/config-llm-template.yaml, KServe of 2026; its first release, of October 2025,
#: had a 150 s liveness probe and no startup probe).
_LLMISVC_PROBES: dict[str, dict[str, Any]] = {
    "startupProbe": {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 60},
    "livenessProbe": {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "timeoutSeconds": 1,
                      "failureThreshold": 10},
    "readinessProbe": {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 1, "timeoutSeconds": 1,
                       "failureThreshold": 2},
}
#: The memory-backed /dev/shm of the same base config (every release has it).
_LLMISVC_SHM_VOLUME = {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}}
_LLMISVC_SHM_MOUNT = {"name": "dshm", "mountPath": "/dev/shm"}


#: The variable of the ``main`` container whose words KServe's base config puts into its ``vllm serve`` command, after
#: its own flags and before the container's ``args`` (config/llmisvcconfig/config-llm-template.yaml from v0.18.0 to
#: v0.20.0: ``eval "exec vllm serve /mnt/models --served-model-name ... --port 8000 ... ${VLLM_ADDITIONAL_ARGS} $@"``
#: under ``/bin/bash -c``, the container's ``args`` after ``--`` its ``$@``; the prefill, decode and data-parallel
#: worker configs alike; OpenShift AI 3's LLMInferenceService documents it as the way to pass vLLM flags).
ADDITIONAL_ARGS = "VLLM_ADDITIONAL_ARGS"


def additional_args(container: Mapping[str, Any]) -> list[str] | None:
    """The words the base config's ``eval`` makes of the ``main`` container's :data:`ADDITIONAL_ARGS` (shell words:
    ``eval`` parses the value again, quotes included), or one word that stays unknown (:data:`UNKNOWN_TOKEN`, which
    undecides what a flag there could set) when the value comes from ``valueFrom`` (a ConfigMap, a Secret);
    None when the container sets no such variable, or writes its own ``command`` (then the base config's script
    does not run)."""
    if "command" in container:
        return None
    value: Any = None
    for item in as_list(container.get("env")):
        if isinstance(item, Mapping) and item.get("name") == ADDITIONAL_ARGS:
            value = item.get("value") if "valueFrom" not in item else UNKNOWN  # the last one set wins (kubelet)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        return [UNKNOWN_TOKEN]  # flags not known yet: what they could set is undecided, never a default
    import shlex  # only an LLMInferenceService that sets the variable (start-up time)

    try:
        return shlex.split(value)
    except ValueError:  # an unbalanced quote: bash's eval refuses it too; the words as written, best effort
        return value.split()


def with_controller_defaults(template: Mapping[str, Any], model: str | None = None) -> LineDict:
    """The pod spec KServe's controller runs for ``template``: its ``main`` container gets the base
    config's probes (a probe the template writes keeps its fields and takes the others from the base)
    and the memory-backed /dev/shm, unless something is already mounted there; the words of its
    ``VLLM_ADDITIONAL_ARGS`` come before its ``args`` (:func:`additional_args`), after ``model`` (the model
    ``spec.model.uri`` names), which stands for the positional ``/mnt/models`` the base config writes before them:
    a flag among them cannot change which model is served (vLLM's positional model wins over ``--model``)."""
    containers = []
    shm = False
    for c in as_list(template.get("containers")):
        if not isinstance(c, Mapping) or c.get("name") != "main":
            containers.append(c)
            continue
        main = replaced(c)
        extra = additional_args(c)
        if extra is not None:
            own = c.get("args")
            # with words not known, the model goes first: it stands for the base config's positional /mnt/models,
            # which no flag among them changes (known words are read after the model the resource implies)
            main["args"] = [*([model] if model and UNKNOWN_TOKEN in extra else []), *extra,
                            *(own if isinstance(own, list) else [] if own is None else [own])]
        for key, base in _LLMISVC_PROBES.items():
            own = c.get(key)
            if own is None:
                main[key] = placed(base, c)
            elif isinstance(own, Mapping):  # the template's fields over the base's
                main[key] = replaced(own, **{k: v for k, v in placed(base, own).items() if k not in own})
        if not mounts_shm(c):
            main["volumeMounts"] = [*as_list(c.get("volumeMounts")), placed(_LLMISVC_SHM_MOUNT, c)]
            shm = True
        containers.append(main)
    out = replaced(template, containers=containers)
    volumes = as_list(template.get("volumes"))
    if shm and not any(isinstance(v, Mapping) and v.get("name") == "dshm" for v in volumes):
        out["volumes"] = [*volumes, placed(_LLMISVC_SHM_VOLUME, template)]
    return out


#: The Gateway KServe's managed HTTPRoute of an LLMInferenceService names when ``spec.router.gateway.refs`` names
#: none: ``ingress.kserveIngressGateway`` of the inferenceservice-config ConfigMap, ``kserve/kserve-ingress-gateway``
#: as KServe ships it (config/configmap/inferenceservice.yaml; config/llmisvcconfig/config-llm-router-route.yaml
#: puts it in the route's parentRefs), kserve at aaac4e2.
LLMISVC_DEFAULT_GATEWAY = "kserve/kserve-ingress-gateway"

#: Why an LLMInferenceService's route on a Gateway is only advisory for SW306: the Gateway's reach (as for an
#: HTTPRoute of the inputs) and the policies attached to it, which Open Data Hub's models-as-a-service gateway uses
#: to authenticate clients.
GATEWAY_ADVISORY = ("whether the Gateway is reachable from outside the cluster is its GatewayClass and the Service "
                    "its controller makes, and whether a policy attached to it authenticates clients (a Kuadrant "
                    "AuthPolicy, an Envoy Gateway SecurityPolicy), which the inputs do not show")


def router_published(obj: Mapping[str, Any]) -> tuple[Any, str, int | None]:
    """How KServe publishes an LLMInferenceService through the Gateway API (for SW306): (how, as SW306 says it, or
    None when nothing does, or UNKNOWN when ``spec.router`` or the auth annotation is not known yet; why it is only
    advisory; the line the finding points at: ``spec.router`` or its ``route``).

    kserve at aaac4e2, pkg/controller/v1alpha2/llmisvc/router.go ``reconcileHTTPRoutes``: without
    ``spec.router.route`` the controller deletes its HTTPRoute and publishes nothing. With ``route.http.refs`` the
    HTTPRoutes it names (the user's, read as any HTTPRoute of the inputs) publish it; otherwise
    ``expectedHTTPRoute`` builds ``NAME-kserve-route`` from the router-route preset (config_merge.go adds
    config-llm-router-route for a ``route`` without refs), whose parentRefs are ``spec.router.gateway.refs`` when
    given, else an inline ``route.http.spec.parentRefs``, else the cluster's default Gateway
    (:data:`LLMISVC_DEFAULT_GATEWAY`). Whether that Gateway faces the internet is its GatewayClass and the Service
    its controller makes, never in a service's own file: advisory, as an HTTPRoute is. Open Data Hub's
    ``security.opendatahub.io/enable-auth: "true"`` puts an auth policy in front: nothing to report.
    """
    meta, spec = as_map(obj.get("metadata")), as_map(obj.get("spec"))
    router = spec.get("router")
    if router is UNKNOWN or is_placeholder(router):
        return UNKNOWN, "", line_of(spec, "router")
    router = as_map(router)
    at = line_of(router, "route") or line_of(spec, "router")
    route = router.get("route")
    if route is UNKNOWN or is_placeholder(route):
        return UNKNOWN, "", at
    if route is None or not isinstance(route, Mapping):
        return None, "", None
    labels, annotations = meta.get("labels"), meta.get("annotations")
    if labels is UNKNOWN or annotations is UNKNOWN:
        return UNKNOWN, "", at
    if authenticated(as_map(labels), as_map(annotations)):
        return None, "", None
    name, namespace = str(meta.get("name") or "unnamed"), str(meta.get("namespace") or "default")
    http = as_map(route.get("http"))
    refs = [str(as_map(r).get("name")) for r in as_list(http.get("refs")) if as_map(r).get("name")]
    if refs:
        said = ", ".join(f"`{namespace}/{r}`" for r in refs)
        return (f"is published through HTTPRoute {said} (spec.router.route.http.refs)", GATEWAY_ADVISORY, at)

    def parents(items: Any) -> list[str]:
        return [f"`{as_map(p).get('namespace') or namespace}/{as_map(p).get('name')}`" for p in as_list(items)
                if as_map(p).get("name")]

    gateways = parents(as_map(router.get("gateway")).get("refs"))
    where = "spec.router.gateway.refs"
    if not gateways:
        gateways, where = parents(as_map(http.get("spec")).get("parentRefs")), "spec.router.route.http.spec.parentRefs"
    if not gateways:
        gateways, where = [f"`{LLMISVC_DEFAULT_GATEWAY}`"], "the cluster's default, as KServe ships it"
    return (f"is published by KServe's HTTPRoute `{namespace}/{name}-kserve-route` on Gateway "
            f"{', '.join(gateways)} ({where})", GATEWAY_ADVISORY, at)


def router_refs(obj: Mapping[str, Any]) -> tuple[list[tuple[str, str]], list[str]]:
    """(the Gateways KServe's own HTTPRoute names, as (namespace, name), empty for the cluster's default; the user's
    HTTPRoutes ``route.http.refs`` names) of an LLMInferenceService whose ``spec.router.route`` is set, read as
    :func:`router_published` reads them, for the Gateways of the inputs to judge (adapters.k8s.gateway)."""
    meta, router = as_map(obj.get("metadata")), as_map(as_map(obj.get("spec")).get("router"))
    namespace = str(meta.get("namespace") or "default")
    http = as_map(as_map(router.get("route")).get("http"))
    routes = [str(as_map(r).get("name")) for r in as_list(http.get("refs")) if as_map(r).get("name")]
    if routes:
        return [], routes

    def parents(items: Any) -> list[tuple[str, str]]:
        return [(str(as_map(p).get("namespace") or namespace), str(as_map(p).get("name"))) for p in as_list(items)
                if as_map(p).get("name")]

    gateways = (parents(as_map(router.get("gateway")).get("refs"))
                or parents(as_map(http.get("spec")).get("parentRefs")))
    return gateways, []


def add_llm_inference_service(obj: Mapping[str, Any], loc: Location, inv: Inventory,
                              lines: Lines | None) -> bool:
    spec = as_map(obj.get("spec"))
    file = loc.file
    mark = len(inv.groups)
    model = as_map(spec.get("model"))
    uri = model_from_uri(model_field(model, "uri", "spec.model.uri", file, loc))
    # `uri: ''` written in a kustomize base whose overlays set it: a value that does not exist yet, not a refusal
    empty = uri is None and "uri" in model and model.get("uri") in ("", None)
    for part, workload, name in (("spec", spec, None), ("spec.prefill", as_map(spec.get("prefill")), "prefill")):
        if part == "spec.prefill" and not workload:
            continue
        implied = Implied(entrypoint=("main", VLLM_SERVE))
        if uri is not None:
            implied.model = (uri, key_location(model, "uri", file, loc))
        elif empty:
            implied.model = (UNKNOWN, key_location(model, "uri", file, loc))
        par = as_map(workload.get("parallelism"))
        values = parallelism(implied, par, ("tensor", "pipeline", "data", "dataLocal"), f"{part}.parallelism",
                             loc, file)
        if par.get("expert") is True:
            implied.flags.append(("--enable-expert-parallel", True, key_location(par, "expert", file, loc)))
        template = as_map(workload.get("template"))
        worker = as_map(workload.get("worker"))
        if not as_list(template.get("containers")):
            template = with_containers(template, [synthetic_container("main", workload, None)])
            if spec.get("baseRefs"):  # the GPU request comes from a config this file does not hold
                implied.gpus = (UNKNOWN, key_location(spec, "baseRefs", file, loc))
        main = next((c for c in as_list(template.get("containers")) if isinstance(c, Mapping)
                     and c.get("name") == "main"), None)
        if main is not None and additional_args(main) == [UNKNOWN_TOKEN]:
            # the base config writes these flags before ${VLLM_ADDITIONAL_ARGS}, whose value is not known: they may
            # be set again there (vLLM's last occurrence wins), so they are as unknown as the rest it may carry
            implied.flags = []
        template = with_controller_defaults(template, uri if isinstance(uri, str) else None)
        pods: Any = 1
        if worker:
            data, local = values.get("data"), values.get("dataLocal")
            if isinstance(data, int) and isinstance(local, int):
                pods = max(1, data // local)
            elif isinstance(values.get("pipeline"), int):
                pods = values["pipeline"]
            elif UNKNOWN in (data, local, values.get("pipeline")):
                pods = UNKNOWN
        replicas = int_field(workload, "replicas", 1, loc, f"{part}.replicas")
        full = f"{as_map(obj.get('metadata')).get('name') or 'unnamed'}/{name}" if name else None
        where = key_location(spec, "prefill", file, loc) if name else loc
        group = crd_group(inv, "LLMInferenceService", obj, where, lines, pod_meta=None, pod_spec=template,
                          replicas=replicas, implied=implied, name=full, others=[worker] if worker else [],
                          pods_per_group=pods)
        if group is not None and workload.get("replicas") is not None:
            group.locations["replicas"] = Location(file, line_of(workload, "replicas"))
        if group is not None and not implied.flags and implied.model is not None and group.engine.model == uri:
            group.engine.locations["model"] = implied.model[1]  # the model stays spec.model.uri's (see above)
        if group is not None and empty and group.engine.model is UNKNOWN:
            group.model, group.model_assumed, group.model_error = None, None, None
            group.model_unknown = ("spec.model.uri is empty, a value this file leaves to be set (a kustomize base "
                                   "whose overlays patch it): lint the rendered overlay, or name the model here")
    route, advisory, at = router_published(obj)
    if route is not None:
        for g in inv.groups[mark:mark + 1]:  # the route's backend is the main (decode) workload; prefill is behind it
            g.published, g.published_advisory = route, advisory
            g.locations["published"] = Location(file, at or loc.line)
            if isinstance(route, str) and advisory == GATEWAY_ADVISORY:  # the Gateways of the inputs may say more
                from .gateway import LLMISVC_REF

                gateways, routes = router_refs(obj)
                meta = as_map(obj.get("metadata"))
                info = {"namespace": str(meta.get("namespace") or "default"), "gateways": gateways,
                        "routes": routes, "how": route}
                inv.cross_refs.append(CrossRef(LLMISVC_REF, info, loc, groups=[g]))
    return True

"""Workloads with a pod template -> :class:`ServingGroup`: Deployment, StatefulSet, DaemonSet,
ReplicaSet, ReplicationController, Job, CronJob, Pod, Argo Rollout, OpenKruise CloneSet (and its
StatefulSet and DaemonSet), OpenShift DeploymentConfig, LeaderWorkerSet, and unknown custom resources
with ``spec.template``. Each kind is known by its API group (:data:`WORKLOAD_GROUPS`): a ``Deployment``
of another group is a custom resource like any other.

Annotations read on workloads (object metadata merged with the pod template's, the pod template
winning): ``shardwise.dev/p95-context-tokens``, ``shardwise.dev/base-model``,
``shardwise.dev/production`` and ``shardwise.dev/ignore``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any

from ...catalog.lookup import find_model_exact
from ...catalog.resolve import resolve_model
from ...model import (
    UNKNOWN,
    Container,
    HostAccess,
    Inventory,
    LaunchIssue,
    Location,
    PodPorts,
    RayPins,
    ServingGroup,
    Suppression,
)
from ...model.errors import InputError
from ...model.inventory import UNRECOGNISED_ENGINE
from ...model.unknown import holds_placeholder
from ...model.vocab import (
    ANN_BASE_MODEL,
    ANN_OUTPUT_TPS,
    ANN_P95,
    ANN_PRODUCTION,
    ANN_TARGET_CONCURRENCY,
    ANN_TPOT_TARGET,
    ANN_VLLM_VERSION,
    LWS_EXCLUSIVE,
    LWS_GROUP_INDEX,
    LWS_NAME,
    LWS_WORKER_INDEX,
)
from ...vllm.args import expand_k8s, names_vllm_build
from ...vllm.flags import checkpoint_quantization_refused
from ...vllm.versions import parse_version
from ..yamlsrc import LineDict
from .configfile import config_map_key, env_from_known, env_from_values, mounted_config
from .engines import other_engine, simulator, unrecognised_server
from .fields import (
    as_list,
    as_map,
    int_field,
    line_of,
    port_names,
    read_annotations,
    str_map,
    suppressions_from,
    typed_map,
)
from .parse import Lines
from .pods import (
    Pod,
    judge_declared_release,
    read_affinity,
    read_node_selector,
    read_pod,
    read_tolerations,
    template_counts,
    template_image,
    template_name,
)
from .router import add_router

#: The workload kinds read here, by the API groups that define them with this shape (``spec.template`` a pod
#: template, ``spec.replicas``): Kubernetes' own (``extensions`` the groups before ``apps``), Argo Rollouts,
#: OpenKruise (apps.kruise.io: CloneSet, Advanced StatefulSet and DaemonSet, the upstream shape), OpenShift's
#: DeploymentConfig, and LeaderWorkerSet.
WORKLOAD_GROUPS: dict[str, tuple[str, ...]] = {
    "Deployment": ("apps", "extensions"),
    "StatefulSet": ("apps", "apps.kruise.io"),
    "DaemonSet": ("apps", "extensions", "apps.kruise.io"),
    "ReplicaSet": ("apps", "extensions"),
    "ReplicationController": ("",),
    "Job": ("batch",),
    "CronJob": ("batch",),
    "Pod": ("",),
    "Rollout": ("argoproj.io",),
    "CloneSet": ("apps.kruise.io",),
    "DeploymentConfig": ("apps.openshift.io",),
    "LeaderWorkerSet": ("leaderworkerset.x-k8s.io",),
}
SIMPLE_WORKLOADS = frozenset(WORKLOAD_GROUPS)
#: The (API group, kind) of the objects whose pod spec the API server validates as written when they are created: a
#: Pod, and the workloads whose pod template pkg/apis/apps/validation, pkg/apis/batch/validation and the core group's
#: ReplicationController validation pass to ``ValidatePodTemplateSpec``. Not OpenKruise's (apps.kruise.io: a CRD).
API_VALIDATED_PODS = frozenset({
    ("", "Pod"), ("apps", "Deployment"), ("apps", "StatefulSet"), ("apps", "DaemonSet"), ("apps", "ReplicaSet"),
    ("batch", "Job"), ("batch", "CronJob"), ("", "ReplicationController"),
})
_HUMAN_INT = re.compile(r"^(\d+)([kK])$")



def _vllm_image_words(image: Any) -> str:
    """How a launch issue names the image: "the vLLM image X" for a build of vLLM's server, else "X, an image named
    for vLLM," (``quay.io/joopark/vllm-optimizer-backend``, a project's web backend, is no vLLM image; corpus26)."""
    if not isinstance(image, str):  # not known yet: nothing is said of its name
        return f"the image {image}"
    return f"the vLLM image {image}" if names_vllm_build(image) else f"{image}, an image named for vLLM,"


def _production(value: str, file: str | None, line: int | None) -> bool:
    v = value.strip().lower()
    if v in ("true", "yes", "1"):
        return True
    if v in ("false", "no", "0"):
        return False
    raise InputError(f"{ANN_PRODUCTION}: expected \"true\" or \"false\", got {value!r}", file, line)


#: The largest load an annotation may declare, as `plan`'s flags and the config's load fields take it: a count or
#: rate above it is no deployment's, and past a float's range it would overflow the sizing.
_MOST = 10_000_000


def _positive(key: str, what: str, value: str, file: str | None, line: int | None) -> int:
    v = value.strip().replace("_", "")
    m = _HUMAN_INT.match(v)
    try:
        n = int(m.group(1)) * (1000 if m.group(2) == "k" else 1024) if m else int(v)
    except ValueError:
        raise InputError(f"{key}: expected a whole number of {what}, got {value!r}", file, line) from None
    if n <= 0:
        raise InputError(f"{key}: expected a positive number of {what}, got {value!r}", file, line)
    if n > _MOST:
        raise InputError(f"{key}: expected at most {_MOST:,} {what}, got {_shown(value)}", file, line)
    return n


def _shown(value: str) -> str:
    """A value as an error quotes it, a long one cut to its first 24 characters and its length."""
    text = value.strip()
    return repr(text) if len(text) <= 32 else f"{text[:24]!r}… ({len(text):,} characters)"


def _milliseconds(key: str, value: str, file: str | None, line: int | None) -> float:
    """A positive duration in milliseconds: ``20``, ``17.5`` or ``20ms``."""
    v = value.strip().lower().removesuffix("ms").strip()
    try:
        ms = float(v)
    except ValueError:
        raise InputError(f"{key}: expected a number of milliseconds, got {value!r}", file, line) from None
    if not 0 < ms < 3_600_000:  # nan fails both
        raise InputError(f"{key}: expected a positive number of milliseconds, got {value!r}", file, line)
    return ms


def _release(value: str, file: str | None, line: int | None) -> str:
    """A vLLM release number (``0.10.2``, ``v0.11.0``): the image's release where its tag names none."""
    text = value.strip().removeprefix("v")
    if parse_version(text) is None:
        raise InputError(f"{ANN_VLLM_VERSION}: expected a vLLM release number (e.g. 0.11.0), got {value!r}", file,
                         line)
    return text


def _p95(value: str, file: str | None, line: int | None) -> int:
    return _positive(ANN_P95, "tokens", value, file, line)


def _rate(key: str, value: str, file: str | None, line: int | None) -> float:
    """A positive, finite number (``"1850"``, ``"2.4e3"``)."""
    try:
        rate = float(value.strip().replace("_", ""))
    except ValueError:
        raise InputError(f"{key}: expected a number of tokens per second, got {value!r}", file, line) from None
    if not 0 < rate < float("inf"):
        raise InputError(f"{key}: expected a positive number of tokens per second, got {value!r}", file, line)
    if rate > _MOST:
        raise InputError(f"{key}: expected at most {_MOST:,} tokens per second, got {_shown(value)}", file, line)
    return rate



#: Kinds whose pods share one template and tell ranks apart by their ordinal (a StatefulSet's pod-N, an indexed
#: Job's completion index): ``replicas`` pods of vLLM's native multi-node launch are ``replicas ÷ nnodes`` engines.
_ORDINAL_KINDS = ("StatefulSet", "Job")


def _native_multinode(g: ServingGroup, kind: str) -> None:
    """vLLM's own multi-node launch (``--nnodes N --node-rank R --master-addr``, vLLM >= 0.11.1): one engine runs on
    N pods, rank 0 serving the API and the others ``--headless``, each holding ``world ÷ N`` of its GPUs (the
    multiprocessing executor starts that many local workers per node). So a group written with ``--nnodes N`` spans
    N pods, as a LeaderWorkerSet of size N does; a StatefulSet's (or indexed Job's) ``replicas`` pods are that many
    ÷ N engines. An unknown or absent ``--nnodes`` leaves one pod per engine."""
    n = g.engine.nnodes
    if isinstance(n, bool) or not isinstance(n, int) or n <= 1:
        return
    g.pods_per_group = n
    r = g.replicas
    if kind in _ORDINAL_KINDS and isinstance(r, int) and not isinstance(r, bool) and r >= n and r % n == 0:
        g.replicas = r // n


#: ``ray start --head`` and ``ray start ... --address`` in one script: the head on one pod, the others joining it.
_RAY_HEAD = re.compile(r"\bray\s+start\b[^\n;&|]*--head\b")
_RAY_JOIN = re.compile(r"\bray\s+start\b[^\n;&|]*--address\b")


def _ray_over_ordinals(g: ServingGroup, kind: str, pod: Pod) -> None:
    """A StatefulSet (or indexed Job) whose one pod template starts Ray's head on one pod and joins the others to
    it, the role chosen in its script (by the pod's ordinal), is one Ray cluster over its ``replicas`` pods; vLLM's
    Ray executor places the engine's workers on any node of that cluster, so one engine spans them all, as a
    LeaderWorkerSet's group does. Without both halves in the script (a head alone, or workers joining an address
    outside the workload) the pods per engine stay unknown to shardwise and one pod is assumed."""
    r = g.replicas
    if (kind not in _ORDINAL_KINDS or g.pods_per_group != 1 or pod.vllm is None
            or isinstance(r, bool) or not isinstance(r, int) or r < 2):
        return
    # one line per command: a shell line continued with a backslash is the same command
    text = "\n".join(str(w) for w in (*pod.vllm.command, *pod.vllm.args)).replace("\\\n", " ")
    if _RAY_HEAD.search(text) and _RAY_JOIN.search(text):
        g.pods_per_group = r
        g.replicas = 1


def make_group(kind: str, obj: Mapping[str, Any], loc: Location, pod: Pod, replicas: Any,
               file: str | None, name: str | None = None, template: bool = False,
               model_left_to: str = "") -> ServingGroup:
    """The serving group of a pod whose container runs vLLM (``name`` overrides the object's name). ``template``:
    the pod is a serving runtime's (KServe's ServingRuntime), which the services naming it fill in: a model it does
    not name is the service's to give, an unknown, not an input error. ``model_left_to``: the pod is an operator's
    resource shardwise does not read, whose operator builds the server's pod and may add the model; a model the
    container does not name is then unknown, for that reason, not an input error."""
    meta = as_map(obj.get("metadata"))
    name = name or str(meta.get("name") or meta.get("generateName") or "unnamed")
    ann, ann_lines = read_annotations(meta, pod.meta if pod.meta is not meta else {})
    engine = pod.engine
    assert engine is not None and pod.vllm is not None
    if loc.line is not None:  # objects without lines (rendered from a stack spec) point at their object
        engine.locations = {k: v if v.line is not None or v.file != loc.file else loc
                            for k, v in engine.locations.items()}
    g = ServingGroup(
        name=name,
        kind=kind,
        location=loc,
        namespace=str(meta.get("namespace") or "default"),
        engine=engine,
        replicas=replicas,
        gpus_per_pod=pod.gpus,
        pod_gpus=pod.pod_gpus,
        pod_gpus_from=pod.pod_gpus_from,
        accelerator_resource=pod.accelerator_resource,
        node_selector=read_node_selector(pod.spec, loc),
        affinity=read_affinity(pod.spec),
        tolerations=read_tolerations(pod.spec),
        annotations=ann,
        pod_labels=str_map(pod.meta.get("labels")),
        containers=pod.containers,
        vllm_container=pod.vllm.name,
        volumes=pod.volumes,
        host=pod.host,
    )
    g.locations.update(pod.locations)
    g.fragment = patch_fragment(kind, obj, file, pod.vllm)
    _image_required(kind, obj, file, pod, name)
    _native_multinode(g, kind)
    _ray_over_ordinals(g, kind, pod)
    _object_locations(g, obj, file)
    if loc.line is not None:
        for key, line in ann_lines.items():
            if line is not None:
                g.locations[f"annotation:{key}"] = Location(file, line)
    if ANN_P95 in ann:
        g.p95_context = _p95(ann[ANN_P95], file, ann_lines.get(ANN_P95) or loc.line)
    if ANN_TARGET_CONCURRENCY in ann:
        g.target_concurrency = _positive(ANN_TARGET_CONCURRENCY, "sequences", ann[ANN_TARGET_CONCURRENCY], file,
                                         ann_lines.get(ANN_TARGET_CONCURRENCY) or loc.line)
    if ANN_OUTPUT_TPS in ann:
        g.output_tokens_per_second = _rate(ANN_OUTPUT_TPS, ann[ANN_OUTPUT_TPS], file,
                                           ann_lines.get(ANN_OUTPUT_TPS) or loc.line)
    if ANN_TPOT_TARGET in ann:
        g.tpot_target_ms = _milliseconds(ANN_TPOT_TARGET, ann[ANN_TPOT_TARGET], file,
                                         ann_lines.get(ANN_TPOT_TARGET) or loc.line)
    if ANN_PRODUCTION in ann:
        g.production = _production(ann[ANN_PRODUCTION], file, ann_lines.get(ANN_PRODUCTION) or loc.line)
    if ANN_VLLM_VERSION in ann:
        g.vllm_version = _release(ann[ANN_VLLM_VERSION], file, ann_lines.get(ANN_VLLM_VERSION) or loc.line)
        judge_declared_release(pod, g.vllm_version)
        if "crash" in pod.locations:
            g.locations["crash"] = pod.locations["crash"]
    g.suppressions = suppressions_from(ann, ann_lines, file, loc.line)
    if engine.model is None:
        where = pod.vllm.location if pod.vllm.location.line else loc
        if "config" in engine.extra:
            g.engine.model = UNKNOWN
            g.model_unknown = (f"it is set in the --config file {engine.extra['config']!r}, which shardwise "
                               "cannot read; pass the model on the command line")
        elif template:
            # KServe appends the InferenceService's model args to the runtime's container and mounts its storageUri
            # at /mnt/models (the runtime's own args often name it, not always: corpus16, parasol-insurance)
            g.engine.model = UNKNOWN
            g.model_unknown = ("the serving runtime names none: the InferenceService that uses it gives the model "
                               "(its args, its storageUri); lint the runtime with that InferenceService")
        elif model_left_to:
            g.engine.model = UNKNOWN
            g.model_unknown = model_left_to
        elif g.fragment:
            # a kustomize patch that sets vLLM's command and leaves the model to the overlays built on it
            # (corpus30: llm-d's TPU P/D base patch sets `vllm serve`; each TPU generation's overlay adds the model
            # in its own patch's args): what the patch leaves to others is unknown here, as its GPUs are
            g.engine.model = UNKNOWN
            g.model_unknown = ("this patch names none: the kustomization it is merged in, or an overlay over it, "
                               "gives the model; lint what the overlay builds (kustomize build DIR | shardwise "
                               "lint -)")
        else:
            raise InputError(
                f"container {pod.vllm.name!r} runs vLLM but names no model "
                "(give it as `vllm serve MODEL` or `--model MODEL`)",
                where.file, where.line,
            )
    else:
        resolve_model(g, os.path.dirname(file) if file else None)
    return g


def _object_locations(g: ServingGroup, obj: Mapping[str, Any], file: str | None) -> None:
    """The lines of the workload's own fields a finding may point at (replicas, an LWS's size and
    restartPolicy)."""
    spec = as_map(obj.get("spec"))
    lwt = as_map(spec.get("leaderWorkerTemplate"))
    for holder, key, name in ((spec, "replicas", "replicas"), (spec, "parallelism", "replicas"),
                              (lwt, "size", "size"), (lwt, "restartPolicy", "restartPolicy")):
        if isinstance(holder, LineDict) and key in holder.key_lines and name not in g.locations:
            g.locations[name] = Location(file, holder.key_lines[key])


def launch_issue(inv: Inventory, subject: str, container: Container, reason: str, where: Location,
                 suppressions: list[Suppression], crash: bool = False, advisory: bool = False,
                 placeholder_vars: tuple[str, ...] = ()) -> None:
    inv.launch_issues.append(LaunchIssue(subject, container.name, reason, where, crash, list(suppressions),
                                         advisory=advisory, placeholder_vars=placeholder_vars))


#: The workload kinds whose controller creates pods from the template as written, adding to a container's env
#: only what :func:`_injected_name` names: Kubernetes' own (the Service variables aside) and LeaderWorkerSet
#: (LWS_LEADER_ADDRESS, LWS_GROUP_SIZE, LWS_WORKER_INDEX). An operator's resource (OME, KServe, kthena, RBG,
#: Knative, Ray, a custom resource with spec.template) is a template the operator builds the pod from, and may
#: add env of its own (OME's MODEL_PATH): an undefined $(VAR) there is not sure to stay as written.
_AS_WRITTEN = frozenset((group, kind) for kind, groups in WORKLOAD_GROUPS.items() for group in groups
                        if group in ("", "apps", "extensions", "batch", "leaderworkerset.x-k8s.io"))
#: kustomize's files: a folder holding one is a kustomization, whose files are bases and patches.
_KUSTOMIZATION = ("kustomization.yaml", "kustomization.yml", "Kustomization")
#: A file whose name calls it a patch (deployment.patch.yaml, patch-env.yaml, patches/...): a fragment merged
#: onto a base elsewhere.
_PATCH_NAME = re.compile(r"(?:^|[._/-])patch(?:es)?(?:[._/-]|$)", re.I)


def _injected_name(kind: str, name: str) -> bool:
    """Whether something other than the manifest may put ``name`` into the container's env: LeaderWorkerSet's
    variables, and the TPU variables GKE's webhook and LeaderWorkerSet give a pod requesting TPUs
    (TPU_WORKER_ID, TPU_WORKER_HOSTNAMES, ...)."""
    return name.startswith("TPU_") or (kind == "LeaderWorkerSet" and name.startswith("LWS_"))


def _in_kustomization(directory: str, stop: str) -> bool:
    """Whether ``directory`` or a folder above it, up to ``stop`` (the tree linted), is a kustomization."""
    while True:
        if any(os.path.isfile(os.path.join(directory, k)) for k in _KUSTOMIZATION):
            return True
        parent = os.path.dirname(directory)
        if parent == directory or not parent.startswith(stop):
            return False
        directory = parent


def kustomize_file(file: str | None) -> bool:
    """Whether ``file`` is a file of a kustomization searched plainly (in a folder holding one, up to the tree linted)
    or named as a patch: kustomize, not the API server, reads it first (the part of :func:`runs_as_read` that looks
    at the file, not the kind)."""
    if file is None or not os.path.isfile(file):
        return False
    path = os.path.abspath(file)
    if _PATCH_NAME.search(os.path.relpath(path, os.path.dirname(os.path.dirname(path)))):
        return True
    cwd = os.getcwd()
    stop = cwd if path.startswith(cwd + os.sep) else os.path.dirname(path)
    return _in_kustomization(os.path.dirname(path), stop)


def runs_as_read(kind: str, obj: Mapping[str, Any], file: str | None) -> bool:
    """Whether the object read is what Kubernetes receives and its pods run as written: a workload kind of
    :data:`_AS_WRITTEN`, not read from a file of a kustomization searched plainly (a base an overlay may
    patch, or a patch) nor from a file named as a patch. Stdin and rendered output (helm template,
    kustomize build, a Pulumi program's resources) are what is applied."""
    api = str(obj.get("apiVersion") or "")
    group = api.rpartition("/")[0] if "/" in api else ""
    if (group, kind) not in _AS_WRITTEN:
        return False
    if file is None or not os.path.isfile(file):
        return True
    return not kustomize_file(file)


def _image_required(kind: str, obj: Mapping[str, Any], file: str | None, pod: Pod, name: str) -> None:
    """A container without an image in an object Kubernetes receives as written (:func:`runs_as_read`: a kind of
    :data:`_AS_WRITTEN` read from standard input, rendered output, or a file that is in no kustomization and not
    named as a patch) is an input error at the container's line: the API server refuses it (k8s.io/kubernetes
    pkg/apis/core/validation, validateContainerCommon: ``containers[0].image: Required value``, for a Pod and for a
    Deployment's, StatefulSet's, DaemonSet's, Job's or LeaderWorkerSet's pod template alike), so it was read as a
    workload with no image and linted without a word. A strategic-merge patch of a kustomization, which leaves the
    image to its base, stays a fragment (:func:`patch_fragment`); an operator's resource (KServe, a serving
    runtime, a custom resource) whose controller fills the image is no kind of :data:`_AS_WRITTEN`."""
    missing = [(i, c) for i, c in enumerate(pod.containers) if c.image is None or c.image == ""]
    if not missing or not runs_as_read(kind, obj, file):
        return
    i, c = missing[0]
    raise InputError(f"{kind} `{name}`: container `{c.name}` has no image (containers[{i}].image: Required value): "
                     "Kubernetes refuses a container without one, so the object is never applied as written",
                     c.location.file or file, c.location.line)


def patch_fragment(kind: str, obj: Mapping[str, Any], file: str | None, container: Container) -> str | None:
    """Why an object is a patch merged onto a base elsewhere, a kustomize overlay's strategic-merge patch, rather than
    the whole object applied; None when nothing says so. Its vLLM container has no image (a kind Kubernetes
    validates as written, :data:`_AS_WRITTEN`): the API server refuses a container without one (core validation's
    validateContainerCommon: ``image`` Required, for a Deployment's or a StatefulSet's pod template as for a Pod),
    so the object is never applied as written; or its file, or the folder holding it (``patches/``), is named
    as a patch (:data:`_PATCH_NAME`). The patch's
    fields replace or merge into the base's (its ``args`` replace the base's list), and what it leaves out (the
    resources, volumes, probes) is the base's. A file named as a patch is one for an operator's resource too
    (corpus39: an LLMInferenceService overlay's ``llm-infra-patch.yaml`` sets only ``spec.model.uri`` and leaves the
    GPUs to its base's template): only the missing image needs a kind Kubernetes validates as written."""
    api = str(obj.get("apiVersion") or "")
    as_written = (api.rpartition("/")[0] if "/" in api else "", kind) in _AS_WRITTEN
    if as_written and container.image is None:
        return (f"its container `{container.name}` has no image, which Kubernetes requires of every container, so "
                f"this {kind} is not applied as written: it is a patch merged onto a base elsewhere (a kustomize "
                "overlay's)")
    if file is not None and file.endswith((".yaml", ".yml")):  # a manifest (not a preview's JSON, a URN)
        folder, name = os.path.split(file)
        # the folder's own name as os.path.abspath would give it: its last part, unless that is none, "." or ".."
        # (then the absolute path's; abspath of every file read, a normpath in Python, was 1 % of a lint's reading)
        last = os.path.basename(folder)
        if last in ("", ".", ".."):
            last = os.path.basename(os.path.abspath(folder or "."))
        if _PATCH_NAME.search(name) or last.lower() in ("patch", "patches"):
            return (f"its file {os.path.basename(file)} is named as a patch: a fragment merged onto a base elsewhere "
                    "(a kustomize overlay's)")
    return None


def note_launch(inv: Inventory, kind: str, obj: Mapping[str, Any], loc: Location, pod: Pod,
                group: ServingGroup | None, name: str | None = None) -> None:
    """Record a pod whose vLLM command would crash, or that looks like vLLM but could not be read. A crash that
    rests on a variable the container's env does not define (``$(TP)``) is sure only where the pod runs as
    read (:func:`runs_as_read`): elsewhere an overlay or the operator may define it, and the value the
    variable stands for stays an unknown."""
    meta = as_map(obj.get("metadata"))
    subject = f"{kind} {meta.get('namespace') or 'default'}/{name or meta.get('name') or 'unnamed'}"
    pending = pod.crash_pending
    sure = pending is None or (not _injected_name(kind, pending) and runs_as_read(kind, obj, loc.file))
    if pod.crash_placeholder and (is_template(obj) or _placeholder_image(obj)
                                  or _filled_elsewhere(pod.crash, loc.file)):
        sure = False  # ${TP} in args is the template's placeholder: the value the tool fills stays unknown
    if group is not None and pod.crash is not None and pod.vllm is not None and sure:
        launch_issue(inv, subject, pod.vllm, f"container {pod.vllm.name!r}: {pod.crash}",
                     group.at("crash"), group.suppressions, crash=True, advisory=pod.crash_advisory,
                     placeholder_vars=tuple(sorted(set(_ENVSUBST.findall(pod.crash))))
                     if pod.crash_placeholder else ())
    elif group is not None and pod.vllm is not None and (why := _quantization_refused(group)) is not None:
        launch_issue(inv, subject, pod.vllm, f"container {pod.vllm.name!r}: {why}",
                     group.at("quantization"), group.suppressions, crash=True)
    elif group is None and pod.unread is not None:
        ann, ann_lines = read_annotations(meta, pod.meta if pod.meta is not meta else {})
        c = pod.unread
        where, suppressions = pod.locations.get("unread", loc), suppressions_from(ann, ann_lines, loc.file, loc.line)
        flag = _flag_as_entrypoint(c)
        if flag is not None and runs_as_read(kind, obj, loc.file):
            launch_issue(inv, subject, c, (
                f"container {c.name!r}: its command starts with the flag `{flag}` "
                f"({_shown_command([*c.command, *c.args])}): Kubernetes runs a container's command in place of the "
                f"image's entrypoint, so the container runtime looks for an executable named "
                f"`{flag}`, finds none and the container never starts; write vLLM's flags under `args`"),
                where, suppressions, crash=True)
        else:
            launch_issue(inv, subject, c, (
                f"container {c.name!r} runs {_vllm_image_words(c.image)} but its command "
                f"({_shown_command([*c.command, *c.args])}) "
                f"{pod.unread_why or 'does not start a vLLM server shardwise can read'}"),
                where, suppressions)
    elif group is None and pod.unread is None and (other := other_engine(pod.containers)) is not None:
        c, engine, seen = other
        ann, ann_lines = read_annotations(meta, pod.meta if pod.meta is not meta else {})
        inv.launch_issues.append(LaunchIssue(
            subject, c.name, (
                f"container {c.name!r} serves a model with {engine}, not with vLLM's own server ({seen}): "
                f"shardwise checks vLLM servers, so no capacity, topology, network or reliability rule looked at "
                f"this workload"),
            c.image_location or loc, suppressions=suppressions_from(ann, ann_lines, loc.file, loc.line),
            other_engine=engine))
    elif group is None and pod.unread is None and (sim := simulator(pod.containers)) is not None:
        ann, ann_lines = read_annotations(meta, pod.meta if pod.meta is not meta else {})
        inv.launch_issues.append(LaunchIssue(
            subject, sim.name, (
                f"container {sim.name!r} runs a simulator of an LLM server (its image is {sim.image}), recognised as "
                f"one: it loads no model and uses no accelerator, so no capacity, topology or reliability rule has a "
                f"server to check here"),
            sim.image_location or sim.location or loc,
            suppressions=suppressions_from(ann, ann_lines, loc.file, loc.line), other_engine="a simulator"))
    elif group is None and pod.unread is None and (server := unrecognised_server(pod.containers)) is not None:
        c, seen = server
        ann, ann_lines = read_annotations(meta, pod.meta if pod.meta is not meta else {})
        run = [str(w)[:200] for w in [*c.command[:32], *c.args[:32]]]  # a hostile pod's words: bounded
        inv.launch_issues.append(LaunchIssue(
            subject, c.name, (
                f"container {c.name!r} serves a model on accelerators ({seen}), but its command "
                f"({_shown_command(run)}) and its image "
                f"({c.image if isinstance(c.image, str) else 'not known'}) name no server shardwise knows: no "
                f"capacity, topology, network or reliability rule looked at this workload; if it runs vLLM, write "
                f"`vllm serve` (or `python -m vllm.entrypoints.openai.api_server`) in its command or args"),
            c.image_location or c.location or loc,
            suppressions=suppressions_from(ann, ann_lines, loc.file, loc.line),
            other_engine=UNRECOGNISED_ENGINE))


def _flag_as_entrypoint(container: Container) -> str | None:
    """The first word of ``container``'s own ``command`` when it is a flag (``--model``), else None. Kubernetes
    runs ``command`` in place of the image's ENTRYPOINT, without a shell (the Container API: "Entrypoint array. Not
    executed within a shell. The container image's ENTRYPOINT is used if this is not provided"), so the runtime
    looks for an executable of that name and the container never starts. Engine flags belong in ``args``, which
    Kubernetes hands to the image's entrypoint (``vllm serve`` in vllm/vllm-openai). A ``$(VAR)`` first word is
    not a flag as written."""
    first = container.command[0] if container.command else None
    return first if isinstance(first, str) and first.startswith("-") else None


#: Engine settings under which the checkpoint loaded may not be the catalog entry's files as published (another
#: branch, overridden config keys, a quantisation config of its own, a loader that reads no checkpoint).
_CHECKPOINT_CHANGED = ("revision", "hf_overrides", "quantization_config", "load_format")


def _quantization_refused(group: ServingGroup) -> str | None:
    """Why vLLM exits on the group's ``--quantization`` for its checkpoint
    (:func:`~shardwise.rules.vllm.flags.checkpoint_quantization_refused`), judged only where the checkpoint is
    known exactly: the model is a catalog id (not a re-upload known by its name, a path, a base-model annotation)
    served as published."""
    q, model = group.engine.quantization, group.engine.model
    if not isinstance(q, str) or not isinstance(model, str) or group.annotations.get(ANN_BASE_MODEL):
        return None
    if any(k in group.engine.extra for k in _CHECKPOINT_CHANGED):
        return None
    shape = find_model_exact(model)
    if shape is None:
        return None
    return checkpoint_quantization_refused(q, model, shape.quantization, shape.precision)


def is_template(obj: Any, depth: int = 0) -> bool:
    """Whether a document is evidently a template a tool fills before it is applied (envsubst, Helm): its own name
    or namespace holds a placeholder (``name: ${JOB_NAME}``), or a container in it requests a resource quantity
    written as a placeholder (``nvidia.com/gpu: ${GPU_PER_WORKER}``); Kubernetes refuses either as written. A
    document valid as written is read as the object that runs."""
    if depth > 64:
        return False
    if depth == 0 and template_name(obj):
        return True
    if isinstance(obj, Mapping):
        for key in ("containers", "initContainers"):
            containers = obj.get(key)
            if isinstance(containers, list) and any(isinstance(c, Mapping) and template_counts(c.get("resources"))
                                                    for c in containers):
                return True
        return any(is_template(v, depth + 1) for v in obj.values() if isinstance(v, Mapping | list))
    if isinstance(obj, list):
        return any(is_template(v, depth + 1) for v in obj if isinstance(v, Mapping | list))
    return False


#: ``${VAR}`` as envsubst fills it (a name of letters, digits and underscores); ``${{ }}`` (GitHub Actions) and
#: ``$(VAR)`` (Kubernetes) are not it.
_ENVSUBST = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
#: Where a ``${VAR}`` may be meant as written: a container's command and args (a shell there expands it), a probe's
#: or hook's command, the data of a ConfigMap or Secret (scripts and files a workload reads), annotations
#: (kubectl's last-applied-configuration copies the object, args and all), and the other fields a shell runs
#: (review23): a Tekton step's ``script`` (written to a file and run, ``/bin/sh`` without a shebang: Tekton's "Tasks",
#: "Running scripts within Steps"), an Argo Workflows script template's ``source`` (run by its ``command``: Argo's
#: "Scripts & Results"), a KubeRay RayJob's ``entrypoint`` (a shell command Ray's job manager runs: Ray's "Ray Jobs
#: Overview"), and the ``run`` and ``setup`` scripts of a CI step or a SkyPilot task. A ``${VAR}`` there is the
#: shell's, no sign that a template tool fills the file. Those script fields only where their value is a string (an
#: Argo CD Application's ``source`` is a mapping of repository fields, which no shell runs).
_SHELL_KEYS = frozenset({"command", "args", "data", "stringData", "binaryData", "annotations"})
_SCRIPT_KEYS = frozenset({"script", "source", "entrypoint", "run", "setup"})
#: For each file of the input being read, the ``${VAR}`` its objects hold where nothing expands them (:func:`
#: template_files`).
_TEMPLATE_VARS: ContextVar[Mapping[str | None, frozenset[str]] | None] = ContextVar("template_vars", default=None)


def _envsubst_outside_shell(value: Any) -> set[str]:
    """The ``${VAR}`` written in fields that neither Kubernetes nor a shell expands (:data:`_SHELL_KEYS` and the
    script strings of :data:`_SCRIPT_KEYS` aside): a PersistentVolume's ``volumeAttributes.bucketName``, a label, an
    env value. Nodes deeper than 64 levels are not looked at."""
    found: set[str] = set()
    if isinstance(value, str):
        if "${" in value:
            found.update(_ENVSUBST.findall(value))
    elif isinstance(value, Mapping | list):
        _collect_envsubst(value, 0, found)
    return found


def _collect_envsubst(value: Mapping[Any, Any] | list[Any], depth: int, found: set[str]) -> None:
    """Add to ``found`` the ``${VAR}`` of the strings under ``value`` (a mapping or a list ``depth`` levels down),
    down to level 64. Every node of every object is walked (lintspeed22: it was the run's largest cost after the
    YAML reader's parse, 48,255 calls for 400 files, each making a set), so a string is looked at in place, and
    searched only where it holds ``${``."""
    if depth >= 64:  # its items are below level 64
        return
    if isinstance(value, Mapping):
        for k, v in value.items():
            if k in _SHELL_KEYS:
                continue
            if isinstance(v, str):
                if "${" in v and k not in _SCRIPT_KEYS:  # a script string: the shell's variable
                    found.update(_ENVSUBST.findall(v))
            elif isinstance(v, _NODES) or not isinstance(v, _LEAVES) and isinstance(v, Mapping):
                _collect_envsubst(v, depth + 1, found)
        return
    for v in value:
        if isinstance(v, str):
            if "${" in v:
                found.update(_ENVSUBST.findall(v))
        elif isinstance(v, _NODES) or not isinstance(v, _LEAVES) and isinstance(v, Mapping):
            _collect_envsubst(v, depth + 1, found)


#: What a YAML or JSON reader gives: the collections walked (a Mapping of another type too), and scalars, which are
#: not asked whether they are a Mapping (an ABC's check).
_NODES = (dict, list)
_LEAVES = (int, float, type(None))


def _filled_elsewhere(crash: str | None, file: str | None) -> bool:
    """Whether a ``${VAR}`` of the crash is one the same file writes where only a template tool can fill it: then
    envsubst (or its kind) fills the file, and the args' ``${VAR}`` with it."""
    names = (_TEMPLATE_VARS.get() or {}).get(file)
    return bool(names and crash and names.intersection(_ENVSUBST.findall(crash)))


def drop_filled_placeholders(inv: Inventory) -> None:
    """Drop the crashes on a ``${VAR}`` of vLLM's args that another file of the inputs writes where only a template
    tool fills it (:attr:`Inventory.template_vars`): the repository fills its files with that tool, and the args'
    ``${VAR}`` with them, so the value is not known yet (aws-samples/sample-genai-on-eks: its workshop Deployments load
    ``s3://${S3_BUCKET_NAME}/...`` while vllm-with-lora.yaml's PersistentVolume writes ``bucketName:
    ${S3_BUCKET_NAME}``, corpus23), or of a file a deploy script of the inputs pipes through envsubst
    (:attr:`Inventory.envsubst_files`: gnosia93/inference-on-eks's vllm-eval.yaml, whose ``--model=${MODEL}`` its
    lesson fills with ``envsubst < vllm-eval.yaml``, corpus25). A lint of the one file keeps the crash: nothing there
    says a tool fills it."""
    if not (inv.template_vars or inv.envsubst_files) or not inv.launch_issues:
        return
    filled = set(inv.template_vars)
    files = [f.replace(os.sep, "/") for f in inv.envsubst_files]
    inv.launch_issues = [i for i in inv.launch_issues
                         if not (i.crash and i.placeholder_vars and (filled.intersection(i.placeholder_vars)
                                                                     or _substituted(i.location.file, files)))]


def _substituted(file: str | None, files: list[str]) -> bool:
    """Whether ``file`` is one a deploy script pipes through envsubst (:attr:`Inventory.envsubst_files`): the path
    the script names, from the folder it runs in or its own, is the file's path or the end of it
    (``k8s/vllm.yaml`` for ``repo/k8s/vllm.yaml``)."""
    if not file or not files:
        return False
    path = os.path.normpath(file).replace(os.sep, "/")
    return any(path == f or path.endswith("/" + f.lstrip("./")) for f in files if f not in (".", ""))


class _TemplateFiles:
    """:func:`template_files`'s context (a class, as :class:`.configfile._ConfigMapsOf`)."""

    __slots__ = ("names", "token")

    def __init__(self, objs: Iterable[tuple[Mapping[str, Any], Any]]) -> None:
        names: dict[str | None, set[str]] = {}  # file -> the variables it writes where nothing expands them
        for obj, loc in objs:
            found = _envsubst_outside_shell(obj) if isinstance(obj, Mapping) else set()
            if found:
                names.setdefault(getattr(loc, "file", None), set()).update(found)
        self.names = {file: frozenset(found) for file, found in names.items()}

    def __enter__(self) -> None:
        self.token = _TEMPLATE_VARS.set(self.names)

    def __exit__(self, *exc: object) -> None:
        _TEMPLATE_VARS.reset(self.token)


def template_files(objs: Iterable[tuple[Mapping[str, Any], Any]]) -> _TemplateFiles:
    """While the input is read, the ``${VAR}`` each file writes where Kubernetes expands nothing and no shell runs:
    such a variable is a template tool's (envsubst fills a whole file), so the same ``${VAR}`` in a vLLM container's
    args of that file is the tool's placeholder, an unknown, not a word vLLM receives as written
    (aws-samples/sample-genai-on-eks's vllm-with-lora.yaml: a PersistentVolume whose S3 ``bucketName`` is
    ``${S3_BUCKET_NAME}`` beside the Deployment whose ``--model=s3://${S3_BUCKET_NAME}/...`` was SW003's sure
    crash, corpus23). A ``${VAR}`` no such field names still crashes as written, whatever else the file holds."""
    return _TemplateFiles(objs)


def _placeholder_image(obj: Any, depth: int = 0) -> bool:
    """Whether a container of the document has an image written as a template placeholder (:func:`.pods.
    template_image`): the pod cannot run as written, so a ``${MODEL_PATH}`` in its command is the template's
    placeholder too, a value not known yet (corpus22: a Deployment with ``image: ${IMAGE_NAME}`` and ``vllm serve
    ${MODEL_PATH}`` was SW003 mandatory as a variable Kubernetes does not expand). A Dynamo v1alpha1 service's one
    container, ``extraPodSpec.mainContainer``, counts as a container (corpus27: sozercan/dynamo-actions' templates,
    ``image: $MAIN_CONTAINER_IMAGE`` and ``args: [-m, dynamo.vllm, --model, $MODEL]``, which its workflow fills with
    envsubst, were SW003 mandatory)."""
    if depth > 64:
        return False
    if isinstance(obj, Mapping):
        for key in ("containers", "initContainers"):
            containers = obj.get(key)
            if isinstance(containers, list) and any(template_image(c) for c in containers):
                return True
        if template_image(obj.get("mainContainer")):
            return True
        return any(_placeholder_image(v, depth + 1) for v in obj.values() if isinstance(v, Mapping | list))
    if isinstance(obj, list):
        return any(_placeholder_image(v, depth + 1) for v in obj if isinstance(v, Mapping | list))
    return False


def _shown_command(words: list[str], most: int = 80) -> str:
    """A command as a finding quotes it: on one line, cut after ``most`` characters (a script can run to pages)."""
    text = " ".join(" ".join(words).split()) or "the image entrypoint, no args"
    return text if len(text) <= most else text[:most].rstrip() + " …"


def _written_null(d: Any, key: str, what: str, loc: Location) -> None:
    """A required field written as null (or, for ``containers``, as an empty list) in a kind Kubernetes defines:
    the API server rejects the object, so it is an input error at its line, not a workload that silently
    vanishes (a patch that leaves the field out is not one)."""
    if not isinstance(d, dict) or key not in d:
        return
    value = d[key]
    if value is None or (key == "containers" and value == []):
        need = "at least one container" if key == "containers" else "a value"
        raise InputError(f"{what}: written as {'null' if value is None else 'an empty list'}, but Kubernetes requires "
                         f"{need} (the object is rejected)", loc.file, line_of(d, key) or loc.line)


def _note_workload_ref(obj: Mapping[str, Any], spec: Mapping[str, Any], inv: Inventory) -> None:
    """Record an Argo Rollout that runs another workload's pod template (``spec.workloadRef``, a Deployment by
    default): Argo Rollouts builds the Rollout's ReplicaSets from that template, ``spec.replicas`` of them (default
    1), and the Deployment is typically kept at ``replicas: 0`` (or scaled down by ``workloadRef.scaleDown``), so
    that workload runs pods though its own replicas say none (argoproj/argo-rollouts, docs/migrating.md, "Reference
    Deployment From Rollout")."""
    ref = as_map(spec.get("workloadRef"))
    if not isinstance(ref.get("name"), str):
        return
    namespace = str(as_map(obj.get("metadata")).get("namespace") or "default")
    raw = spec.get("replicas")  # absent or null: 1, the Rollout's default; a placeholder: not known yet
    replicas = 1 if raw is None else raw if type(raw) is int else UNKNOWN
    inv.workload_refs.append((namespace, str(ref.get("kind") or "Deployment"), ref["name"], replicas))


def size_referenced_workloads(inv: Inventory) -> None:
    """Size a workload at ``replicas: 0`` that Argo Rollouts runs through ``spec.workloadRef`` at the replicas of the
    Rollouts that name it: Argo Rollouts builds its ReplicaSets from the referenced pod template at the Rollout's
    ``spec.replicas`` (default 1; argoproj/argo-rollouts, docs/migrating.md, "Reference Deployment From Rollout"),
    so the GPUs, nodes and cost are the Rollout's pods, not the none the Deployment's own field says. Two Rollouts
    naming one Deployment run their pods each (the sum); a Rollout whose replicas is not known yet (a template's
    placeholder) leaves the count unknown. A KEDA HTTPScaledObject (no count: on demand) sizes nothing, and a
    workload at replicas other than 0 keeps its own (the Rollout's pods may run beside its own; not modelled)."""
    counts: dict[tuple[str, str, str], Any] = {}
    for ns, kind, name, n in inv.workload_refs:
        if n is None:  # an HTTPScaledObject: runs the target on demand, at no count the inputs say
            continue
        key = (ns, kind, name)
        before = counts.get(key, 0)
        counts[key] = before + n if type(before) is int and type(n) is int else UNKNOWN
    if not counts:
        return
    for g in inv.groups:
        n = counts.get((g.namespace, g.kind, g.name))
        if n is None or type(g.replicas) is not int or g.replicas != 0:
            continue
        g.replicas = n


def _template_of(kind: str, spec: Mapping[str, Any], loc: Location, strict: bool) -> tuple[Any, Any, str] | None:
    """(template metadata, pod spec, the pod spec's path) for a workload, or None when it has no pod
    template. For the workload kinds known (``strict``), a template or pod spec of the wrong type is an
    InputError at its line (Kubernetes rejects the object; it must not vanish from the run)."""
    if strict and kind == "Pod":
        return None
    if strict and kind == "CronJob":
        _written_null(spec, "jobTemplate", "spec.jobTemplate", loc)
        job_template = typed_map(spec, "jobTemplate", "spec.jobTemplate", loc)
        _written_null(job_template, "spec", "spec.jobTemplate.spec", loc)
        job = typed_map(job_template, "spec", "spec.jobTemplate.spec", loc)
        _written_null(job, "template", "spec.jobTemplate.spec.template", loc)
        template, path = typed_map(job, "template", "spec.jobTemplate.spec.template", loc), "spec.jobTemplate.spec"
    elif strict:
        template, path = typed_map(spec, "template", "spec.template", loc), "spec"
    else:
        template, path = as_map(spec.get("template")), "spec"
    if not template:
        return None
    if strict:
        typed_map(template, "metadata", f"{path}.template.metadata", loc)
        typed_map(template, "spec", f"{path}.template.spec", loc)
        _written_null(template, "spec", f"{path}.template.spec", loc)
    elif not isinstance(template.get("spec"), dict):
        return None
    return template.get("metadata"), template.get("spec"), f"{path}.template.spec"


def pod_ports(subject: str, namespace: str, meta: Any, pod_spec: Any, loc: Location) -> PodPorts | None:
    """The named container ports of a pod template (any workload) at ``loc``; an empty map when its containers
    name no port, so that a Service selecting these pods by a port name they do not declare is known to reach
    none of them (Kubernetes' EndpointSlice controller leaves such a pod out: ``podutil.FindPort`` finds no
    container port of that name), not taken for a Service whose pods are not in the inputs. ``"*"`` -> UNKNOWN
    when the pod spec or its container list is not known yet. None when the template has no container list."""
    named: dict[str, Any] = {}
    containers = pod_spec.get("containers") if isinstance(pod_spec, Mapping) else pod_spec
    if containers is UNKNOWN:
        named["*"] = UNKNOWN
    elif not isinstance(containers, list):
        return None
    # readers18: then the native sidecars' (an init container with restartPolicy Always runs for the pod's life; the
    # EndpointSlice controller's findPort looks at them after the containers: kubernetes staging/src/k8s.io/
    # endpointslice/utils.go, "also support sidecar container (initContainer with restartPolicy=Always)")
    inits = pod_spec.get("initContainers") if isinstance(pod_spec, Mapping) else None
    sidecars = [c for c in as_list(inits) if isinstance(c, Mapping) and c.get("restartPolicy") == "Always"]
    declared: dict[str, frozenset[int]] = {}
    for c in [*as_list(containers), *sidecars]:
        if c is UNKNOWN:
            named["*"] = UNKNOWN
            continue
        for name, number in port_names(as_map(c).get("ports"), first_wins=True).items():
            named.setdefault(name, number)
        numbers = frozenset(n for p in as_list(as_map(c).get("ports")) if isinstance(p, Mapping)
                            for n in (p.get("containerPort"),) if isinstance(n, int) and not isinstance(n, bool))
        if numbers and isinstance(as_map(c).get("name"), str):
            declared[str(as_map(c).get("name"))] = numbers
    labels = as_map(meta).get("labels")
    ray = UNKNOWN if containers is UNKNOWN else runs_ray([*as_list(containers), *sidecars], pod_spec)
    dist = UNKNOWN if containers is UNKNOWN else runs_dist([*as_list(containers), *sidecars], pod_spec)
    entrypoints = [] if containers is UNKNOWN else own_entrypoints([*as_list(containers), *sidecars])
    workers = None
    if isinstance(ray, frozenset):  # every Ray container runs a ray start of known flags (mend24)
        spec = as_map(pod_spec)
        ranges = [ray_start_command_workers(t) for c in [*as_list(containers), *sidecars] if isinstance(c, Mapping)
                  for t in map(as_ray_start, command_texts(as_map(c), spec)[0]) if _RAY_START.search(t)]
        workers = ranges[0] if ranges and all(r is not None for r in ranges) else None
    return PodPorts(subject, namespace, UNKNOWN if labels is UNKNOWN else str_map(labels), named, loc, ray=ray,
                    dist=dist, entrypoints=entrypoints, ray_workers=workers, declared=declared)


#: An image that ships Ray: a repository of the ``rayproject`` or ``anyscale`` organisations, or one named ``ray``
#: or ``ray-…`` (``rayproject/ray:2.40.0``, ``rayproject/ray-ml``, ``anyscale/ray-llm``, ``myregistry/ray:custom``).
_RAY_IMAGE = re.compile(r"(?:^|/)(?:rayproject|anyscale)/|(?:^|/)ray(?:-[\w.-]+)?(?::|@|$)", re.IGNORECASE)
#: A command that starts or joins a Ray cluster or a Ray Serve application, or vLLM's ray executor: ``ray start``,
#: ``serve run``/``serve deploy``, ``python -m ray…``, ``import ray``/``ray.init``, ``--distributed-executor-backend
#: ray``, ``--data-parallel-backend=ray``.
_RAY_COMMAND = re.compile(
    r"(?:^|[\s/;&|(])ray\s+start\b|(?:^|[\s/;&|(])serve\s+(?:run|deploy)\b|-m\s+ray\b|\bimport\s+ray\b|\bray\.init\b"
    r"|--(?:distributed-executor|data-parallel)-backend[=\s]+['\"]?ray\b")



def _may_name_ray(text: str) -> bool:
    """Whether ``text`` holds the words without which :data:`_RAY_COMMAND` cannot match (each of its branches
    spells ``ray``, or ``serve`` followed by ``run`` or ``deploy``): a test of three substrings, where the pattern's
    search, whose branches share no first character, tries each of them at every position of the command (about
    40,000 instructions for a 180-character vLLM command line; most commands name no Ray)."""
    return "ray" in text or ("serve" in text and ("run" in text or "deploy" in text))

#: Ray's ports a ``ray start`` chooses, by its flag (a KubeRay ``rayStartParams`` key is the flag without its dashes),
#: with the default (ray-project/ray python/ray/scripts/scripts.py ``start``: ``--port`` the GCS server's, "only for
#: the head node", 6379; ``--dashboard-port`` 8265 and ``--ray-client-server-port`` 10001, which only the head runs;
#: ``--dashboard-agent-listen-port`` 52365, the dashboard agent every node runs, head or worker). A worker (``ray
#: start --address=…``, KubeRay's worker pods: ray-operator/controllers/ray/common/pod.go generateRayStartCommand)
#: joins the head's GCS and runs no GCS, dashboard or client server: of these, it listens on its agent's port only
#: (its raylet's and object manager's ports are free ones, the ephemeral range; its --metrics-export-port, 8080 in
#: KubeRay, serves Prometheus metrics, no runtime port).
RAY_START_PORTS: dict[str, int] = {
    "port": 6379, "dashboard-port": 8265, "ray-client-server-port": 10001, "dashboard-agent-listen-port": 52365}
_RAY_WORKER_PORTS = ("dashboard-agent-listen-port",)
#: The ports other ``ray start`` flags pin on every node, head or worker (mend22; ray-project/ray
#: python/ray/scripts/scripts.py ``start``): ``--node-manager-port`` (the raylet's gRPC server, default 0),
#: ``--object-manager-port`` (no default), ``--runtime-env-agent-port`` and ``--dashboard-agent-grpc-port`` (no
#: default): absent or 0, each takes a free port (the ephemeral range, judged there); a number given is where that
#: server listens, whatever the number. ``--metrics-export-port`` is not one of them (its Prometheus exporter
#: serves metrics, no runtime; KubeRay writes 8080 on every node). Nor is ``--dashboard-grpc-port`` (review41): the
#: dashboard head served gRPC there on a head up to Ray 2.44 (python/ray/dashboard/head.py
#: ``initialize_grpc_port_and_server``); from Ray 2.45.0 the flag is "(Deprecated) No longer used" (scripts.py) and
#: no server listens there. Counted only where the pod's Ray release is readable and 2.44 or earlier (mend28,
#: :data:`RAY_DASHBOARD_GRPC_UNTIL`); elsewhere the port is not known to be Ray's.
RAY_PINNED_PORTS = ("node-manager-port", "object-manager-port", "runtime-env-agent-port", "dashboard-agent-grpc-port")
#: The range of the ports Ray's worker processes bind (mend22; scripts.py ``--min-worker-port`` "the lowest port
#: number that workers will bind on", default 10002, and ``--max-worker-port``, default 19999 at Ray 2.x master
#: (10999 in older releases); ``--worker-port-list`` "a comma-separated list of open ports for workers to bind on",
#: which overrides the range). Counted where a flag of them is given (a pin); the other bound of the range, where
#: not given, is Ray's default.
RAY_WORKER_RANGE: dict[str, int] = {"min-worker-port": 10002, "max-worker-port": 19999}
#: Where no flag pins them, Ray's workers bind ports of ray start's default range (mend24; ray 2.9.0 and 2.46.0 wheels,
#: ray/scripts/scripts.py ``--min-worker-port`` default 10002 and ``--max-worker-port`` default 19999; KubeRay starts
#: every node with ``ray start``). The raylet hands each new worker the first port of its queue of the range that is
#: free and puts a port back at the queue's end when its worker exits (ray-project/ray
#: src/ray/raylet/worker_pool.cc: ``free_ports_`` filled from min_worker_port to max_worker_port,
#: ``GetNextFreePort``), so every port of the range is a worker's gRPC server's in its turn. (``ray.init()``'s own
#: local cluster leaves them to random ports: parameter.py ``min_worker_port=None``; only ``ray start`` is read here.)
RAY_DEFAULT_WORKERS = (RAY_WORKER_RANGE["min-worker-port"], RAY_WORKER_RANGE["max-worker-port"])


def ray_default_workers(params: Mapping[str, Any]) -> tuple[int, int] | None:
    """ray start's default worker range where ``params`` (its flags, known) pin none of the worker ports, else None."""
    pinned = any(key in params for key in (*RAY_WORKER_RANGE, "worker-port-list"))
    return None if pinned else RAY_DEFAULT_WORKERS


#: vLLM's examples/online_serving/multi-node-serving.sh (the LeaderWorkerSet guide's) run as ``leader`` or ``worker``
#: (review44; read at vllm-project/vllm main; the ``ray_init.sh`` copies images ship are not read, and stay as they
#: were: every default Ray port Ray's, fail closed): ``leader`` runs ``ray
#: start --head --port=$ray_port "${start_params[@]}"``, ``worker`` ``ray start --address=$ray_address:$ray_port
#: --block "${start_params[@]}"``; ``--ray_port`` (6379), ``--ray_address``, ``--ray_cluster_size`` and
#: ``--ray_init_timeout`` are the script's own, every other word goes to ``ray start``.
_RAY_SCRIPT = re.compile(r"[\w./-]*multi-node-serving\.sh\s+(leader|worker)\b([^;&|\n]*)")


def as_ray_start(text: str) -> str:
    """``text`` with each run of vLLM's multi-node-serving.sh (:data:`_RAY_SCRIPT`) written as the ``ray start`` it
    runs, so that its Ray ports and worker range are read as a ``ray start``'s are (review44: a LeaderWorkerSet
    leader's dashboard, on the pod's loopback by Ray's default, blocked as published, and its default worker range
    went unseen)."""
    if ".sh" not in text:
        return text
    out: list[str] = []
    last = 0
    for m in _RAY_SCRIPT.finditer(text):
        port, address = "6379", ""
        rest: list[str] = []
        for word in m.group(2).split():
            key, _, value = word.partition("=")
            if key == "--ray_port":
                port = value
            elif key == "--ray_address":
                address = value
            elif key not in ("--ray_cluster_size", "--ray_init_timeout"):
                rest.append(word)
        head = (f"ray start --head --port={port}" if m.group(1) == "leader" else
                f"ray start --address={address}:{port} --block")
        out += [text[last:m.start()], " ".join([head, *rest])]
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def ray_start_command_workers(text: str) -> tuple[int, int] | None:
    """The default worker range where every ``ray start`` of ``text`` pins no worker port (:func:`ray_default_workers`),
    else None (none runs, or one pins them: the pinned ports are :func:`ray_start_command_ports`')."""
    found: tuple[int, int] | None = None
    for m in _RAY_START.finditer(text):
        words = {w.split("=", 1)[0].lstrip("-") for w in m.group(1).split() if w.startswith("--")}
        found = ray_default_workers(dict.fromkeys(words))
        if found is None:
            return None
    return found


#: The last Ray release whose dashboard head serves gRPC on ``--dashboard-grpc-port`` (mend28; review41 read it:
#: python/ray/dashboard/head.py ``initialize_grpc_port_and_server`` binds it on a head up to Ray 2.44, and from 2.45.0
#: scripts.py says "(Deprecated) No longer used"). Counted, on a head, where the pod's Ray release is readable
#: (:func:`ray_release`); where it is not, the flag says nothing (no port is known to be Ray's by it).
RAY_DASHBOARD_GRPC_UNTIL = (2, 44)
#: Every ``ray start`` flag :func:`ray_start_ports` reads.
RAY_PORT_FLAGS = frozenset({*RAY_START_PORTS, *RAY_PINNED_PORTS, *RAY_WORKER_RANGE, "worker-port-list",
                            "dashboard-host", "include-dashboard", "dashboard-grpc-port"})
#: Ray's own images, whose tag is the Ray release (``rayproject/ray:2.44.1-py311-gpu``, ``rayproject/ray-ml:2.9.0``),
#: also through a mirror that keeps the path.
_RAY_RELEASE_IMAGE = re.compile(r"(?:[^@\s]+/)?rayproject/ray(?:-ml)?(?::([\w.-]+))?(@sha256:[0-9a-fA-F]{64})?")
_RAY_RELEASE_TAG = re.compile(r"(\d+)\.(\d+)(?:\.\d+)?(?:[-_.][\w.-]*)?")
_RAY_RELEASE = re.compile(r"\s*v?(\d+)\.(\d+)(?:\.\d+)?\s*")


def ray_release(image: Any, declared: Any = None) -> tuple[int, int] | None:
    """(major, minor) of the Ray a pod runs, where it is readable (mend28): the tag of Ray's own image (the image
    runs; a digest beside the tag changes nothing), else a KubeRay ``rayVersion`` (``"2.41.0"``); None otherwise (a
    vLLM or a team's image with no rayVersion, a value not known yet). Ray's own image whose tag names no release
    (``nightly``, ``latest``, no tag) runs Ray's master or its newest release whatever a ``rayVersion`` beside it says
    (review46: a stale ``rayVersion: 2.41.0`` beside ``rayproject/ray:nightly`` made a head's --dashboard-grpc-port
    Ray's, which no Ray from 2.45 serves): None; only a digest alone leaves the image's release to ``rayVersion``."""
    if isinstance(image, str):
        m = _RAY_RELEASE_IMAGE.fullmatch(image.strip())
        if m:
            tag = m.group(1)
            t = _RAY_RELEASE_TAG.fullmatch(tag) if tag else None
            if t:
                return int(t.group(1)), int(t.group(2))
            if tag or not m.group(2):  # nightly, latest, or no tag (latest): not the release a rayVersion names
                return None
    if isinstance(declared, str):
        m = _RAY_RELEASE.fullmatch(declared)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


#: The ``--dashboard-host`` values that keep the head's dashboard on the pod's loopback (review37): Ray's default,
#: ``DEFAULT_DASHBOARD_IP = "127.0.0.1"`` (python/ray/_private/ray_constants.py), "either localhost (127.0.0.1) or
#: 0.0.0.0"; KubeRay writes ``dashboard-host: 0.0.0.0`` where a head's rayStartParams name none (ray-operator
#: controllers/ray/common/pod.go setMissingRayStartParams: "The default value of `dashboard-host` is `localhost`
#: which is not accessible from outside the head Pod"). A Service or Ingress reaches nothing there.
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


#: The words click reads as false for a ``type=bool`` option (click ``types.BoolParamType``).
_CLICK_FALSE = frozenset({"false", "0", "f", "n", "no", "off"})


def ray_dashboard_off(params: Mapping[str, Any]) -> bool:
    """Whether a head started with ``params`` serves no dashboard web server (review41): ``--include-dashboard``
    false. Ray's ``start_api_server`` (python/ray/_private/services.py, Ray 2.46.0) then starts the dashboard head
    with ``--disable-frontend``, and python/ray/dashboard/head.py starts its HTTP server only ``if
    self.serve_frontend`` ("http server disabled"). A value not read: it may serve (fail closed)."""
    value = params.get("include-dashboard")
    if isinstance(value, bool):
        return not value
    return isinstance(value, str) and value.strip().strip("'\"").lower() in _CLICK_FALSE


def ray_dashboard_reachable(params: Mapping[str, Any]) -> bool:
    """Whether a head started with ``params`` (``ray start`` flags without their dashes) serves its dashboard beyond
    the pod's loopback: False only where ``dashboard-host`` is absent (Ray's default, 127.0.0.1) or a loopback
    address written as such, or where it serves no dashboard (:func:`ray_dashboard_off`, review41); a value not read
    (a ``$(VAR)``, not known yet) may be any: True (fail closed)."""
    if ray_dashboard_off(params):
        return False
    host = params.get("dashboard-host", "127.0.0.1")
    return not (isinstance(host, str) and host.strip().strip("'\"") in _LOOPBACK_HOSTS)


#: ``ray start`` and the words after it up to the end of that shell command.
_RAY_START = re.compile(r"(?:^|[\s/;&|(])ray\s+start\b([^;&|\n]*)")


def ray_start_ports(params: Mapping[str, Any], head: bool, pending: Iterable[str] = (),
                    release: tuple[int, int] | None = None) -> Any:
    """The Ray ports (of :data:`RAY_START_PORTS`, each at the number ``params`` give it or its default) that a ``ray
    start`` with ``params`` listens on: the head's four, a worker's agent port (mend11: a Service on a worker's 6379,
    8265 or 10001 reaches nothing of Ray's); and on any node the ports its other flags pin (mend22,
    :func:`ray_pinned_ports`: the raylet's, the object manager's, the runtime-env and dashboard agents', the worker
    range's). Where a value is not a port number (``$(GCS_PORT)``), every default port is Ray's (fail closed) and the
    ports its readable flags give are kept (mend25, :func:`ray_open`: a :class:`RayPins`, or True where they give
    none but defaults); a value not known yet (a preview's computed output, a variable of ``pending``, a template's
    placeholder) is named there, as SW301 cannot decide at it. A head's ``--dashboard-grpc-port`` counts as a pin where
    ``release`` (:func:`ray_release`) is Ray 2.44 or earlier (:data:`RAY_DASHBOARD_GRPC_UNTIL`), never otherwise."""
    found: set[int] = set()
    unread: list[str] = []
    if head and release is not None and release <= RAY_DASHBOARD_GRPC_UNTIL and "dashboard-grpc-port" in params:
        grpc = _flag_port(params["dashboard-grpc-port"])
        if grpc is None:
            unread.append("dashboard-grpc-port")
        elif grpc:  # 0: a free port
            found.add(grpc)
    for key, default in RAY_START_PORTS.items():
        if not head and key not in _RAY_WORKER_PORTS:
            continue
        if key == "dashboard-port" and not ray_dashboard_reachable(params):  # review37: on the pod's loopback
            continue
        value = params.get(key, default)
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536:
            unread.append(key)
            continue
        found.add(value)
    pinned, unread_pins = ray_pinned_ports(params)
    unread += unread_pins
    if not unread:
        return frozenset(found | pinned)
    later = [k for k in unread if k in params and _not_known_yet(params[k], frozenset(pending))]
    return ray_open(found | pinned, f"--{later[0]}" if later else "")


def ray_open(ports: Iterable[int], unknown: str = "") -> Any:
    """:attr:`PodPorts.ray` of pods that run Ray with a port flag not read (mend25): a :class:`RayPins` of the ports
    given that are not Ray's defaults (those are Ray's anyway, fail closed) and the flag not known yet; True where
    there are neither."""
    kept = frozenset(ports) - frozenset(RAY_START_PORTS.values())
    return RayPins(kept, unknown) if kept or unknown else True


def pending_env(container: Any) -> set[str]:
    """The env names of a container whose values are not known yet (computed at preview, :func:`literal_env`)."""
    return literal_env(as_map(container))[1] if isinstance(container, Mapping) else set()


def _not_known_yet(value: Any, pending: frozenset[str]) -> bool:
    """Whether a ``ray start`` flag's value is not known yet (mend25): a preview's computed output, a reference to a
    variable whose value is (``pending``), a word a template tool fills in (``{{ .Values.port }}``, ``<PORT>``); a
    Secret's is no unknown (DESIGN.md)."""
    if value is UNKNOWN:
        return True
    if not isinstance(value, str):
        return False
    if "$" not in value:  # a Helm or Kustomize placeholder, an angle-bracket one: filled in before it is applied
        return holds_placeholder(value)
    # a shell's or kubelet's reference is a variable's value when the pod runs: not known yet only where that is
    names = {m.group(1) or m.group(2) or m.group(3) or m.group(4) for m in _VAR_REF.finditer(value)}
    return bool(names & pending)


def ray_params_as_run(params: Mapping[str, Any], container: Any) -> dict[str, Any]:
    """KubeRay's ``rayStartParams`` as its Ray container runs them (review41): KubeRay writes them as ``--key=value``
    flags of a ``ray start`` in the container's args, run by ``/bin/bash -lc`` (ray-operator
    controllers/ray/common/pod.go BuildPod), so kubelet's ``$(VAR)`` and the shell's ``$VAR``, ``${VAR}`` and
    ``${VAR:-word}`` in a value are read from the container's env as a command's are (:func:`command_texts`); a
    variable whose value is not known yet, or that the input does not show, keeps its reference (not a port number:
    fail closed)."""
    c = as_map(container)
    env, pending = literal_env(c)
    declared = {i["name"] for i in as_list(c.get("env")) if isinstance(i, Mapping) and isinstance(i.get("name"), str)}
    unread = {name for name in declared if name not in env}
    any_unread = bool(c.get("envFrom")) and env_from_values(c.get("envFrom")) is None
    read: dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, str) and "$" in value:
            text, open_ = _expanded(value, env, pending, unread, any_unread)
            read[key] = value if open_ else text
        else:
            read[key] = value
    return read


def _flag_port(value: Any) -> int | None:
    """The port number a ``ray start`` flag's value gives, 0 where it asks for a free one; None where it is not a
    port number (``$(PORT)``, a value not known yet, none written: fail closed)."""
    if isinstance(value, str) and value.strip().strip("'\"").isdigit():
        value = int(value.strip().strip("'\""))
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 65536:
        return None
    return value


def ray_pinned_ports(params: Mapping[str, Any]) -> tuple[set[int], list[str]]:
    """(the ports ``params`` pin Ray's other servers on, mend22: :data:`RAY_PINNED_PORTS`, a worker range
    :data:`RAY_WORKER_RANGE` or a ``worker-port-list``; the flags whose value is not a port number yet, whose ports
    are not among them: mend25, the readable ones are kept beside them)."""
    pinned: set[int] = set()
    unread: list[str] = []
    for key in RAY_PINNED_PORTS:
        if key in params:
            number = _flag_port(params[key])
            if number is None:
                unread.append(key)
            elif number:
                pinned.add(number)
    listed = params.get("worker-port-list")
    if listed is not None:
        for word in str(listed).strip().strip("'\"").split(",") if isinstance(listed, (str, int)) else [listed]:
            number = _flag_port(word)
            if number is None:
                if "worker-port-list" not in unread:
                    unread.append("worker-port-list")
            elif number:
                pinned.add(number)
        return pinned, unread
    if any(key in params for key in RAY_WORKER_RANGE):
        low = _flag_port(params.get("min-worker-port", RAY_WORKER_RANGE["min-worker-port"]))
        high = _flag_port(params.get("max-worker-port", RAY_WORKER_RANGE["max-worker-port"]))
        if low is None or high is None:
            unread += [k for k in RAY_WORKER_RANGE if k in params and _flag_port(params[k]) is None]
        elif low:  # 0: workers take free ports
            pinned.update(range(low, high + 1))
    return pinned, unread


def fold_ray_ports(found: set[int], ports: Any) -> tuple[bool, str]:
    """Adds to ``found`` the Ray ports one ``ray start`` listens on (a frozenset: all of them known; a
    :class:`RayPins`: those its readable flags pin) and says whether every default port of Ray's is Ray's there (a
    flag not read: fail closed) and the pin flag whose value is not known yet ("" where none). The one fold of a
    command's ``ray start`` results and of a pod's containers' (mend28: two copies of it had to be kept alike)."""
    if isinstance(ports, frozenset):
        found |= ports
        return False, ""
    if isinstance(ports, RayPins):
        found |= ports.ports
        return True, ports.unknown
    return True, ""


def ray_start_command_ports(text: str, pending: Iterable[str] = (), release: tuple[int, int] | None = None) -> Any:
    """The Ray ports the ``ray start`` commands of ``text`` listen on (:func:`ray_start_ports`: ``--head`` a head's,
    else a worker's, each flag's ``--flag=N`` or ``--flag N``; a :class:`RayPins` or True where a value is not read,
    ``pending`` the variables whose value is not known yet, ``release`` the Ray it runs where readable); None where it
    runs no ``ray start``."""
    found: set[int] = set()
    started = False
    closed = False
    unknown = ""
    if "\\\n" in text or "\\\r\n" in text:  # a shell's continued lines are one command (review41)
        text = text.replace("\\\r\n", " ").replace("\\\n", " ")
    for m in _RAY_START.finditer(text):
        started = True
        words = m.group(1).replace("=", " ").split()
        params: dict[str, Any] = {}
        for i, w in enumerate(words):
            key = w.lstrip("-").strip("'\"")
            if w.startswith("--") and key in RAY_PORT_FLAGS:
                params[key] = words[i + 1].strip("'\"") if i + 1 < len(words) else ""
        shut, later = fold_ray_ports(found, ray_start_ports(params, "--head" in words, pending, release))
        closed = closed or shut
        unknown = unknown or later
    if closed:
        return ray_open(found, unknown)
    return frozenset(found) if started else None


def runs_ray(containers: Iterable[Any], pod_spec: Any = None) -> Any:
    """Whether a pod's containers run Ray (:attr:`PodPorts.ray`): True where an image or the words of a command say
    so, UNKNOWN where a container, its image, command or an argument is not known yet and none says so, else False.
    Where every container that runs Ray runs ``ray start`` (mend11), the Ray ports those listen on
    (:func:`ray_start_command_ports`: a worker's agent port, a head's ports at the numbers its flags choose), and
    UNKNOWN where another container is not known yet. Where one says Ray otherwise, or a flag's value is not read,
    the ports the readable flags pin are kept beside the fail-closed marker (mend25, :func:`ray_open`). The words are
    read as the container runs them (:func:`command_texts`)."""
    spec = as_map(pod_spec)
    unknown = False
    started: set[int] = set()
    starts = False
    closed = False  # every default port Ray's: a Ray image, a command that says Ray, a flag not read
    later = ""  # a pin flag whose value is not known yet
    for c in containers:
        if c is UNKNOWN:
            unknown = True
            continue
        container = as_map(c)
        image = container.get("image")
        texts, open_ = command_texts(container, spec)
        texts = [as_ray_start(t) for t in texts]  # vLLM's multi-node-serving.sh is the ray start it runs (review44)
        named = [t for t in texts if _may_name_ray(t) and _RAY_COMMAND.search(t)]
        if named:
            pending = literal_env(container)[1]
            starts = True
            for t in named:
                shut, pin = fold_ray_ports(started, ray_start_command_ports(t, pending, ray_release(image)))
                closed = closed or shut
                later = later or pin
            unknown = unknown or open_
            continue
        if image is UNKNOWN:
            unknown = True
        elif isinstance(image, str) and _RAY_IMAGE.search(image.strip()):
            closed = True
        elif holds_placeholder(image):  # ``${RAY_IMAGE}``, ``{{ .Values.image }}``: filled in before it is applied
            unknown = True
        unknown = unknown or open_
    if closed:
        return ray_open(started, later)
    if unknown:
        return UNKNOWN
    return frozenset(started) if starts else False


#: The repositories of images well known to run another program than Ray, by name (the last part of the repository,
#: registry, organisation, tag and digest aside: ``redis:7.2``, ``docker.io/library/nginx``, ``grafana/grafana``,
#: ``quay.io/minio/minio``): with no ``command`` their own entrypoint starts that program (a key-value store, a web
#: server or proxy, a database, a monitoring server, an object store), which may listen on a Ray default port number
#: (Redis's 6379 is Ray GCS's) but is not Ray.
_OTHER_PROGRAM_IMAGES = frozenset({
    "redis", "redis-stack", "redis-stack-server", "valkey", "keydb", "dragonfly", "memcached",
    "nginx", "nginx-unprivileged", "openresty", "httpd", "caddy", "traefik", "envoy", "haproxy",
    "grafana", "grafana-oss", "grafana-enterprise", "prometheus", "alertmanager", "pushgateway", "node-exporter",
    "postgres", "postgresql", "mysql", "mariadb", "mongo", "mongodb", "rabbitmq", "etcd", "elasticsearch",
    "opensearch", "kibana", "minio"})
#: The organisations whose every image runs a packaged program of its own (Bitnami's: ``bitnami/redis``,
#: ``bitnamilegacy/postgresql``); a Ray image of theirs is Ray's (:data:`_RAY_IMAGE` is read first).
_OTHER_PROGRAM_ORGS = frozenset({"bitnami", "bitnamilegacy", "bitnamisecure"})


def another_programs_image(image: str) -> bool:
    """Whether ``image`` is one well known to run another program than Ray (:data:`_OTHER_PROGRAM_IMAGES` by the
    repository's last name, or an organisation of :data:`_OTHER_PROGRAM_ORGS`)."""
    repository = image.strip().lower().split("@", 1)[0]
    parts = repository.split("/")
    last = parts[-1].split(":", 1)[0]
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]  # the registry's host
    return last in _OTHER_PROGRAM_IMAGES or any(part in _OTHER_PROGRAM_ORGS for part in parts[:-1])


def own_entrypoints(containers: Iterable[Any]) -> list[str]:
    """The images of ``containers`` that run their image's own entrypoint (:attr:`PodPorts.entrypoints`): a container
    with no ``command`` (or an empty one) runs its image's ENTRYPOINT (the Container API: "The container image's
    ENTRYPOINT is used if this is not provided"; its ``args`` only replace the image's CMD), which the input does not
    show, unless the image says what it runs (:data:`_RAY_IMAGE`, or :func:`another_programs_image`). A container, an
    image or a command not known yet is none of them (:func:`runs_ray` says UNKNOWN of it)."""
    found: list[str] = []
    for c in containers:
        if c is UNKNOWN:
            continue
        container = as_map(c)
        image = container.get("image")
        command = container.get("command")
        if not isinstance(image, str) or not image.strip() or holds_placeholder(image) or command is UNKNOWN:
            continue
        written = bool(command) if isinstance(command, list) else command is not None  # Kubernetes rejects a non-list
        if written or _RAY_IMAGE.search(image.strip()) or another_programs_image(image):
            continue
        if image.strip() not in found:
            found.append(image.strip())
    return found


def command_texts(container: Mapping[str, Any], spec: Mapping[str, Any]) -> tuple[list[str], bool]:
    """(what a container runs, as texts to search: its command and args words joined, then each script a ConfigMap
    of the input mounts at a path a word names; whether a word is not known yet). The words are read as the container
    runs them (review29): kubelet's ``$(VAR)`` and a shell's ``$VAR``/``${VAR}`` expanded from the container's
    literal env and the ConfigMaps of the input it reads (``configMapKeyRef``, ``envFrom``), so ``sh -c "$(START)"``
    with ``START: ray start --head`` in a ConfigMap says Ray, and ``command: [/scripts/start.sh]`` whose ConfigMap
    holds the script is read with its script (:func:`~.configfile.mounted_config`). A variable from a Secret or a
    ConfigMap not in the input is no unknown (DESIGN.md): its reference stays as written; one whose value is not
    known yet (computed at preview) is, and so is a word a template tool fills in before the object is applied
    (:func:`_filled_in_later`)."""
    env, pending = literal_env(container)
    # a name that is no string (a list, a mapping: the pod's reader says so) declares nothing; it was a TypeError
    declared = {i["name"] for i in as_list(container.get("env"))
                if isinstance(i, Mapping) and isinstance(i.get("name"), str)}
    env_from = bool(container.get("envFrom"))
    # what a Secret, a ConfigMap not in the input or the downward API sets: a ${VAR:-word} there is not its default;
    # nor where the script assigns the variable itself (`export GCS_PORT=7000; ray start --port=${GCS_PORT:-6379}`)
    unread = {name for name in declared if name not in env}
    any_unread = env_from and env_from_values(container.get("envFrom")) is None
    assigns = [w for key in ("command", "args") for w in as_list(container.get(key)) if isinstance(w, str) and "=" in w]
    if assigns:  # a variable the script assigns once, to a value read, before it refers to it (review43)
        names: set[str] = set()
        for assign in assigns:  # not `w`: mypyc would type the words read below as str and refuse a list in them
            names.update(_SCRIPT_ASSIGN.findall(assign))
        # every name _script_assignments reads is one of these (its pattern is this one and a value, over the same
        # words joined): where the words assign none (`--max-model-len=8192`), its search of the script is skipped
        assigned = _script_assignments(assigns, env, pending, set(unread), any_unread) if names else {}
        unread.update(names)
        if assigned:
            env = {**env, **assigned}
            unread -= set(assigned)
    unknown = False
    words: list[str] = []
    for key in ("command", "args"):
        value = container.get(key)
        if value is UNKNOWN:
            unknown = True
        for w in as_list(value):
            if w is UNKNOWN:
                unknown = True
            elif isinstance(w, (str, int, float)):
                text, open_ = _expanded(str(w), env, pending, unread, any_unread)
                # a word that is one variable as a whole stays a template's placeholder, its default or not (a
                # Flux substitution's ${VAR:=word} is filled in before the object is applied)
                unknown = unknown or open_ or _filled_in_later(text, declared, env_from) or (
                    text != w and _filled_in_later(str(w), declared, env_from))
                words.append(text)
    script = " ".join(words)
    texts = [script]
    for path in _SCRIPT_PATH.findall(script) if spec else ():
        mounted = mounted_config(path, container, spec)
        if mounted is not None:
            texts.append(mounted)
    return texts, unknown


#: The env of a process group member: torch.distributed's env:// rendezvous (``MASTER_ADDR``, ``MASTER_PORT``,
#: ``WORLD_SIZE``, ``RANK``: pytorch ``torch/distributed/rendezvous.py``; torchrun's ``PET_*`` as Kubeflow's training
#: operator sets them), NCCL's and Gloo's settings, vLLM's data-parallel and NIXL ports (``VLLM_DP_MASTER_PORT``,
#: ``VLLM_NIXL_SIDE_CHANNEL_PORT``: vllm ``vllm/envs.py``), a LeaderWorkerSet's leader address.
_DIST_ENV = re.compile(
    r"(?:MASTER_ADDR|MASTER_PORT|WORLD_SIZE|NODE_RANK|GROUP_RANK|LWS_LEADER_ADDRESS|VLLM_HOST_IP)$"
    r"|(?:NCCL_|TORCH_NCCL_|TORCH_DISTRIBUTED_|GLOO_|PET_|VLLM_DP_|VLLM_NIXL_|VLLM_MOONCAKE_)")
#: An image of vLLM (``vllm/vllm-openai``, ``lmcache/vllm-openai``, ``…/vllm:tag``): the runtime ports are its own.
_DIST_IMAGE = re.compile(r"(?:^|/)vllm(?:-[\w.-]+)?(?::|@|$)", re.IGNORECASE)
#: A command that starts a process group or vLLM: ``torchrun``, ``python -m torch.distributed.run``/``launch``,
#: torchrun's and vLLM's master and rendezvous flags (``--master-port``, ``--master_addr``, ``--nnodes``,
#: ``--rdzv-endpoint``), vLLM's data-parallel and KV-transfer flags, ``--headless`` (a vLLM multi-node follower),
#: ``deepspeed``, ``accelerate launch``, ``init_process_group``, ``vllm serve``, ``vllm.entrypoints``.
_DIST_COMMAND = re.compile(
    r"\btorchrun\b|\btorch\.distributed\.(?:run|launch)\b|--master[-_](?:port|addr)\b|--nnodes\b|--rdzv[-_]"
    r"|--data[-_]parallel[-_](?:rpc[-_]port|address|master[-_]port|size)\b|--kv[-_]transfer[-_]config\b|--headless\b"
    r"|(?:^|[\s/;&|(])deepspeed\s|\baccelerate\s+launch\b|\binit_process_group\b|(?:^|[\s/;&|(])vllm\s+serve\b"
    r"|\bvllm\.entrypoints\b")


def runs_dist(containers: Iterable[Any], pod_spec: Any = None) -> Any:
    """Whether a pod's containers run torch.distributed, NCCL or vLLM's runtime (:attr:`PodPorts.dist`): True where an
    env name, an image or the words of a command say so; the ports an env fixes where only NCCL's ``NCCL_COMM_ID``
    (``host:port``) says so (mend9: NCCL's bootstrap otherwise listens on an ephemeral port, so ``NCCL_DEBUG`` and the
    other ``NCCL_*`` settings open no runtime port: nccl ``src/bootstrap.cc`` bootstrapNetInit/ncclGetUniqueId); UNKNOWN
    where a container, its image, command, an argument, its env, an env name, an ``envFrom`` source the input names
    but cannot show yet (a ConfigMap's name or value not known, two ConfigMaps of one name) or ``NCCL_COMM_ID``'s value
    is not known and none says so, else False. The env is its ``env`` entries and the variables its ``envFrom``
    ConfigMaps of the input set (:func:`~.configfile.env_from_known`); a Secret's, or a ConfigMap's the input does not
    hold, set nothing judged here: what they could contain is not an unknown (DESIGN.md). The words are read as the
    container runs them (:func:`command_texts`: its variables and the scripts ConfigMaps of the input mount, as
    :func:`runs_ray`)."""
    spec = as_map(pod_spec)
    unknown = False
    fixed: set[int] = set()
    for c in containers:
        if c is UNKNOWN:
            unknown = True
            continue
        container = as_map(c)
        image = container.get("image")
        if image is UNKNOWN:
            unknown = True
        elif isinstance(image, str) and _DIST_IMAGE.search(image.strip()):
            return True
        elif holds_placeholder(image):  # filled in before it is applied: not known yet (review29)
            unknown = True
        env = container.get("env")
        if env is UNKNOWN:
            unknown = True
        names: list[Any] = []
        for entry in as_list(env):
            names.append(as_map(entry).get("name") if entry is not UNKNOWN else UNKNOWN)
        if container.get("envFrom"):
            sourced = env_from_known(container.get("envFrom"))
            if sourced is None:  # a source the input names but cannot show yet (a Secret's or an absent
                unknown = True   # ConfigMap's variables are no unknown: DESIGN.md, env_from_known)
            else:
                names.extend(sourced)
        values, pending = literal_env(container)
        for name in names:
            if name is UNKNOWN:
                unknown = True
            elif isinstance(name, str) and name.strip() == "NCCL_COMM_ID":
                port = _comm_id_port(values.get("NCCL_COMM_ID"))
                if port is None or "NCCL_COMM_ID" in pending:
                    unknown = True
                else:
                    fixed.add(port)
            elif isinstance(name, str) and _DIST_ENV.match(name.strip()) and not _NCCL_ENV.match(name.strip()):
                return True
        texts, open_ = command_texts(container, spec)
        unknown = unknown or open_
        if any(_DIST_COMMAND.search(t) for t in texts):
            return True
    if unknown:
        return UNKNOWN
    return frozenset(fixed) if fixed else False


#: NCCL's settings, which name no port it listens on (all but ``NCCL_COMM_ID``, read by :func:`_comm_id_port`).
_NCCL_ENV = re.compile(r"(?:TORCH_)?NCCL_")


#: a module constant, not a literal in the function: this module is compiled by mypyc (rules/_regex_code.py)
_COMM_ID_PORT = re.compile(r":(\d{1,5})\s*$")


def _comm_id_port(value: Any) -> int | None:
    """The port of an ``NCCL_COMM_ID`` value (``host:port``, ``[v6addr]:port``: the root's bootstrap address, nccl
    ``src/misc/socket.cc`` ncclSocketGetAddrFromString); None where it is not known or has no port."""
    if not isinstance(value, str):
        return None
    m = _COMM_ID_PORT.search(value)
    return int(m.group(1)) if m else None


def dist_with(found: Any, ports: frozenset[int]) -> Any:
    """:attr:`PodPorts.dist` of pods that run torch.distributed on ``ports`` (a PyTorchJob's MASTER_PORT, a multi-node
    LeaderWorkerSet's 29500 and 29501) besides what their containers say (:func:`runs_dist`): True and UNKNOWN stay."""
    if found is True or found is UNKNOWN:
        return found
    if isinstance(found, frozenset):
        return found | ports
    return ports


#: The ports a multi-node group's members open by being one (mend9): torch.distributed's store (29500) and vLLM's
#: native multi-node master (29501); not the KV connectors' ports (5600, 8998, 14579) nor the data-parallel RPC port.
MULTI_NODE_PORTS = frozenset({29500, 29501})


def master_port(template: Any) -> Any:
    """The ports a PyTorchJob's pods run torch.distributed's store on: the MASTER_PORT the training operator sets, the
    number of the container port named ``pytorchjob-port`` (23456 where none is: kubeflow training-operator
    ``pkg/apis/kubeflow.org/v1/pytorch_types.go`` PytorchJobDefaultPort, ``pytorch_defaults.go`` setPytorchDefaultPort),
    the value a container's env (or envFrom ConfigMap of the input) gives MASTER_PORT, and torch.distributed's own
    default 29500 (a launcher in the image may take it); UNKNOWN where a container sets MASTER_PORT to a value not
    known (a Secret, a computed value)."""
    spec = as_map(as_map(template).get("spec"))
    found: set[int] = {29500}
    named_port = False
    for c in as_list(spec.get("containers")):
        if not isinstance(c, Mapping):
            continue
        number = port_names(as_map(c).get("ports"), first_wins=True).get("pytorchjob-port")
        if isinstance(number, int) and not isinstance(number, bool):
            found.add(number)
            named_port = True
        values, pending = literal_env(c)
        named = any(isinstance(e, Mapping) and e.get("name") == "MASTER_PORT" for e in as_list(c.get("env")))
        if "MASTER_PORT" in pending or (c.get("envFrom") and env_from_known(c.get("envFrom")) is None
                                        and "MASTER_PORT" not in values):
            return UNKNOWN
        value = values.get("MASTER_PORT")
        if value is not None and value.strip().isdigit():
            found.add(int(value.strip()))
        elif named or value is not None:
            return UNKNOWN
    if not named_port:
        found.add(23456)
    return frozenset(found)


def with_labels(meta: Any, added: Mapping[str, str]) -> Any:
    """A pod template's metadata with the labels its controller puts on the pods it creates over the template's own
    (the controller's win: it sets them after copying the template's); labels not known yet stay not known."""
    labels = as_map(meta).get("labels")
    if labels is UNKNOWN:
        return meta
    return {**as_map(meta), "labels": {**str_map(labels), **added}}


#: The labels Kubeflow's training operator (v1.5 on) puts on the pods of a job it creates (kubeflow/training-operator
#: ``pkg/controller.v1/common/pod.go`` createNewPod, ``job_controller.go`` GenLabels; the keys in kubeflow/common
#: ``pkg/apis/common/v1/constants.go``): the operator's name, the job's name, the replica type in lower case
#: (``master``, ``worker``), the replica's index (the first pod's: 0) and, on a PyTorchJob's Master
#: (``PyTorchJobReconciler.IsMasterRole``), the job role ``master``.
_KUBEFLOW_LABEL = "training.kubeflow.org/"


def pytorch_job_labels(name: str, replica_type: str) -> dict[str, str]:
    """The labels the training operator puts on the first pod of a PyTorchJob's replica type (:data:`_KUBEFLOW_LABEL`):
    a Service selecting the job's pods by them selects these pods in the cluster, and so here (SW301)."""
    labels = {f"{_KUBEFLOW_LABEL}operator-name": "pytorchjob-controller", f"{_KUBEFLOW_LABEL}job-name": name,
              f"{_KUBEFLOW_LABEL}replica-type": replica_type.lower(), f"{_KUBEFLOW_LABEL}replica-index": "0"}
    if replica_type == "Master":
        labels[f"{_KUBEFLOW_LABEL}job-role"] = "master"
    return labels


def add_pytorch_job_pods(obj: Mapping[str, Any], loc: Location, inv: Inventory) -> None:
    """The ports of a Kubeflow PyTorchJob's pods (``spec.pytorchReplicaSpecs.{Master,Worker}.template``), which run
    torch.distributed (the training operator sets ``MASTER_ADDR``/``MASTER_PORT`` in them): a Service selecting them
    by their template's labels, or by the labels the operator adds (:func:`pytorch_job_labels`: review33, a selector on
    ``training.kubeflow.org/job-name`` matched the cluster's pods but none here), reaches a process group (SW301)."""
    meta = as_map(obj.get("metadata"))
    namespace = str(meta.get("namespace") or "default")
    name = str(meta.get("name") or "unnamed")
    subject = f"PyTorchJob {namespace}/{name}"
    replicas = as_map(as_map(obj.get("spec")).get("pytorchReplicaSpecs"))
    for replica_type, role in replicas.items():
        template = as_map(as_map(role).get("template"))
        pod_meta = with_labels(template.get("metadata"), pytorch_job_labels(name, str(replica_type)))
        ports = pod_ports(subject, namespace, pod_meta, template.get("spec"), loc)
        if ports is None:
            continue
        # review33: where the job has a Master, the store is the Master's: the operator points every pod's
        # MASTER_ADDR at it (training-operator pkg/controller.v1/pytorch/envvar.go setPodEnv, "If the master is not
        # null"), so a Worker connects to MASTER_PORT and listens on none of them; without a Master, a Worker is
        # rank 0 or runs the rendezvous: its pods keep them
        if str(replica_type) == "Master" or "Master" not in replicas:
            opened = master_port(template)  # mend9: its MASTER_PORT, not every runtime port
            ports.dist = UNKNOWN if opened is UNKNOWN else dist_with(ports.dist, opened)
        inv.pod_ports.append(ports)


#: A shell variable a script assigns (``GCS_PORT=7000``, ``export GCS_PORT=7000``, ``: ${GCS_PORT:=7000}`` aside):
#: its ``${GCS_PORT:-word}`` after is not read as the default (review41).
_SCRIPT_ASSIGN = re.compile(r"(?:^|[\s;&|(])(?:export\s+|local\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)=")
#: A shell assignment and its value, as written: double-quoted, single-quoted or a bare word (review43).
_SCRIPT_ASSIGN_VALUE = re.compile(r"(?:^|[\s;&|(])(?:export\s+|local\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)="
                                  r"(\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|()'\"]*)")


def _script_assignments(words: list[str], env: Mapping[str, str], pending: set[str], unread: set[str],
                        any_unread: bool) -> dict[str, str]:
    """The variables a container's script assigns that are read (review43): ``HEAD_PORT=${HEAD_PORT:-6385}`` then
    ``ray start --head --port=$HEAD_PORT`` listens on 6385 (read as no port number, a LoadBalancer on 6385 passed in
    silence). Only a name assigned once in the words, before any reference to it, to a value that reads to a text
    with no variable left (a literal, ``"$OTHER"`` or ``${NAME:-word}`` of the env as :func:`_expanded` reads it; no
    command substitution): a name assigned twice (a branch each) or to what the input does not show stays unread."""
    script = " ".join(words)
    seen: dict[str, list[tuple[int, str]]] = {}
    for m in _SCRIPT_ASSIGN_VALUE.finditer(script):
        seen.setdefault(m.group(1), []).append((m.start(1), m.group(2)))
    out: dict[str, str] = {}
    for name, found in seen.items():
        if len(found) != 1 or name in pending:
            continue
        at, raw = found[0]
        first = re.search(r"\$\{?" + name + r"(?![A-Za-z0-9_])", script)
        if first is not None and first.start() < at:
            continue  # referred to before the script assigns it
        if raw.startswith("'"):
            out[name] = raw[1:-1]
            continue
        body = raw[1:-1] if raw.startswith('"') else raw
        if "`" in body or "$(" in body:
            continue
        value, open_ = _expanded(body, env, pending, unread, any_unread)
        if not open_ and "$" not in value:
            out[name] = value
    return out


#: A path a command word names (``/scripts/start.sh``, ``bash /opt/run/head.sh``): a script a ConfigMap may mount. A
#: ``/`` not after a word character or ``$``, written with the slash first (lintspeed29): a pattern that starts with
#: a lookbehind has no literal prefix, and the regular expression engine tried it at every position of every
#: container's command (about 25 times the search of the slash, which it skips to; the same matches).
_SCRIPT_PATH = re.compile(r"/(?<![\w$]/)[\w.\-/]+")
#: The references a container's words make to its variables: kubelet's ``$(VAR)`` and a shell's ``$VAR``/``${VAR}``,
#: and the shell's ``${VAR:-word}`` / ``${VAR-word}`` (and ``:=`` / ``=``), its default (groups 4-6; review41).
_VAR_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.\-]*)\)|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)"
                      r"|\$\{([A-Za-z_][A-Za-z0-9_]*)(:?[-=])((?:[^}$]|\$(?!\{))*)\}")
#: A ``${VAR:-word}`` whose default holds another ``${…}`` (``${RAY_HEAD_PORT:-${GCS_PORT:-6385}}``): _VAR_REF reads
#: the innermost first, then the one around it (review43).
_NESTED_DEFAULT = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=][^}]*\$\{")


def literal_env(c: Mapping[str, Any]) -> tuple[dict[str, str], set[str]]:
    """(the variables of a container whose values the input gives: its ``envFrom`` ConfigMaps of the input, then
    its ``env`` literal values and ``configMapKeyRef`` values of the input, each expanded over the ones before it
    (kubelet's makeEnvironmentVariables); the names whose values are not known yet, computed at preview)."""
    env: dict[str, str] = dict(env_from_values(c.get("envFrom")) or {}) if c.get("envFrom") else {}
    pending: set[str] = set()
    for item in as_list(c.get("env")):
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            continue
        name = item["name"]
        env.pop(name, None)
        pending.discard(name)
        raw = item.get("value")
        if raw is UNKNOWN:
            pending.add(name)
        elif "value" in item:
            try:
                env[name] = expand_k8s("" if raw is None else str(raw), env)
            except InputError:  # an expansion past what execve takes: the pod's own reading says so
                pending.add(name)
        else:
            source = item.get("valueFrom")
            ref = as_map(as_map(source).get("configMapKeyRef"))
            if source is UNKNOWN or as_map(source).get("configMapKeyRef") is UNKNOWN:
                pending.add(name)
            elif isinstance(ref.get("name"), str) and isinstance(ref.get("key"), str):
                held = config_map_key(ref["name"], ref["key"])
                if held is not None:
                    env[name] = held
    return env, pending


#: A word that is one variable as a whole: envsubst's or the shell's ``${CMD}``/``$CMD``.
_WHOLE_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)(?:[:?+-][^}]*)?\}?")


def _filled_in_later(word: str, declared: set[Any], env_from: bool) -> bool:
    """Whether a command word is a template placeholder that a tool fills before the object is applied: an unrendered
    Helm/Go ``{{ … }}`` anywhere, or a word that is a variable as a whole (``${START_CMD}``) that the container's
    env does not set (nor may its ``envFrom``): envsubst's, not the shell's."""
    if "{{" in word and "}}" in word:
        return True
    m = _WHOLE_VAR.fullmatch(word.strip())
    return m is not None and not env_from and m.group(1) not in declared


def _expanded(word: str, env: Mapping[str, str], pending: set[str], unread: set[str] | None = None,
              any_unread: bool = False) -> tuple[str, bool]:
    """(``word`` with each reference to a variable of ``env`` replaced by its value; whether it refers to one whose
    value is not known yet). A shell's ``${VAR:-word}`` (``${VAR-word}``, ``:=``, ``=``) is the variable's value
    where ``env`` holds it (``:`` forms: a value not empty), else its default ``word`` where nothing may set the
    variable (review41: ``ray start --port=${GCS_PORT:-6385}`` listens on 6385); where a variable the input does
    not show may set it (``unread``: the env names of a Secret, of a ConfigMap not in the input, of the downward
    API; ``any_unread``: an ``envFrom`` whose variables are not all read) its reference stays as written, as a
    plain one's does. A default that holds another (``${A:-${B:-6385}}``) is read as bash reads it, the inner one
    first (review43: read as the default ``${B:-6385`` and a stray ``}``, no port number, the GCS port a
    LoadBalancer published on 6385 passed in silence). A loop, not ``re.sub`` with a closure (compiled modules: no
    closure per call)."""
    if "$" not in word:
        return word, False
    text, open_ = _expanded_once(word, env, pending, unread, any_unread)
    for _depth in range(8):  # each pass reads one level of nested defaults, from the innermost
        if text == word or _NESTED_DEFAULT.search(word) is None:
            break
        word = text
        text, inner_open = _expanded_once(word, env, pending, unread, any_unread)
        open_ = open_ or inner_open
    return text, open_


def _expanded_once(word: str, env: Mapping[str, str], pending: set[str], unread: set[str] | None,
                   any_unread: bool) -> tuple[str, bool]:
    """One pass of :func:`_expanded`: each reference :data:`_VAR_REF` finds, a default holding no ``${`` only."""
    parts: list[str] = []
    pos = 0
    open_ = False
    for m in _VAR_REF.finditer(word):
        name = m.group(1) or m.group(2) or m.group(3) or m.group(4)
        parts.append(word[pos:m.start()])
        held = env.get(name)
        op = m.group(5)
        if op is not None and name not in pending and (held is None or (op.startswith(":") and not held)):
            if held is None and (any_unread or (unread is not None and name in unread)):
                parts.append(m.group(0))  # a value the input does not show may be set: not the default
            else:
                default, inner_open = _expanded(m.group(6), env, pending, unread, any_unread)
                parts.append(default)
                open_ = open_ or inner_open
        else:
            parts.append(m.group(0) if held is None else held)
        open_ = open_ or name in pending
        pos = m.end()
    parts.append(word[pos:])
    return "".join(parts), open_


def add_more_groups(kind: str, obj: Mapping[str, Any], loc: Location, pod: Pod, replicas: Any, file: str | None,
                     inv: Inventory, first: ServingGroup) -> None:
    """A serving group for each further vLLM container of the pod, named ``<name>:<container>``.

    Each container is checked once: a further group holds only its own container, the first group the
    others; what belongs to the pod (host namespaces) stays on the first group."""
    others = [o.vllm for o in pod.more if o.vllm is not None]
    if others:
        first.containers = [c for c in first.containers if c not in others]
    for other in pod.more:
        assert other.vllm is not None
        g = make_group(kind, obj, loc, other, replicas, file, name=f"{first.name}:{other.vllm.name}")
        g.containers = [other.vllm]
        g.host = HostAccess()
        g.pod_labels = first.pod_labels
        g.pods_per_group = first.pods_per_group
        g.restart_policy, g.exclusive_topology = first.restart_policy, first.exclusive_topology
        g.unknown_operator = first.unknown_operator
        inv.groups.append(g)
        note_launch(inv, kind, obj, loc, other, g, name=g.name)


def _replicas(kind: str, obj: Mapping[str, Any], loc: Location, known: bool) -> Any:
    spec = as_map(obj.get("spec"))
    if not known:
        return int_field(spec, "replicas", 1, loc, "spec.replicas")
    if kind == "DaemonSet":
        return UNKNOWN  # one per matching node
    if kind == "Pod":
        return 1
    if kind == "Job":
        return int_field(spec, "parallelism", 1, loc, "spec.parallelism")
    if kind == "CronJob":
        job = as_map(as_map(spec.get("jobTemplate")).get("spec"))
        return int_field(job, "parallelism", 1, loc, "spec.jobTemplate.spec.parallelism")
    return int_field(spec, "replicas", 1, loc, "spec.replicas")


def controller_labels(kind: str, obj: Mapping[str, Any]) -> dict[str, str]:
    """The labels Kubernetes' controllers add to the pods they create that a manifest can select on, for the first
    pod (k8s.io/api apps/v1 and batch/v1 types.go): a StatefulSet's ``statefulset.kubernetes.io/pod-name``
    (``<name>-0``) and ``apps.kubernetes.io/pod-index``, a Job's ``batch.kubernetes.io/job-name`` and the older
    ``job-name`` (and the completion index of an Indexed Job). A Deployment's ``pod-template-hash`` and the
    controllers' uids are made at run time: nobody selects on them in a manifest."""
    name = str(as_map(obj.get("metadata")).get("name") or "unnamed")
    if kind == "StatefulSet":
        return {"statefulset.kubernetes.io/pod-name": f"{name}-0", "apps.kubernetes.io/pod-index": "0"}
    if kind == "Job":
        labels = {"batch.kubernetes.io/job-name": name, "job-name": name}
        if as_map(obj.get("spec")).get("completionMode") == "Indexed":
            labels["batch.kubernetes.io/job-completion-index"] = "0"
        return labels
    return {}


#: The fields of an operator's resource that name, as text, the model its operator serves (llmos-operator's
#: ModelService ``spec.model``): quoted where the model is left to the operator, never read as the model.
_OPERATOR_MODEL_FIELDS = ("model", "modelName", "modelId", "modelID", "model_id", "modelUri", "modelURI")


def left_to_operator(kind: str, obj: Mapping[str, Any]) -> str:
    """Why the model of an operator's resource whose vLLM container names none is not known: the operator, which
    shardwise does not read, builds the server's pod from the resource and may add it, as llmos-operator appends
    ``--model=<spec.model>`` (and ``--served-model-name``, ``--tensor-parallel-size``) to the template's args
    (llmos-ai/llmos-operator pkg/controller/master/modelservice/common.go, ``buildArgs``). Its sample ModelService, a
    vLLM container with only ``--dtype=half``, was the input error "runs vLLM but names no model" and the repository's
    lint exited 2 (corpus37). A field of the resource that names a model is quoted, not taken for the model: what
    the operator makes of it (a registry path, a local cache folder) is its own."""
    spec = as_map(obj.get("spec"))
    named = ""
    for key in _OPERATOR_MODEL_FIELDS:
        value = spec.get(key)
        if isinstance(value, str) and value.strip():
            named = f" (its spec.{key} names {value.strip()!r})"
            break
    group = str(obj.get("apiVersion") or "").rpartition("/")[0]
    owner = f"{kind} ({group})" if group else kind
    return (f"the container names none: {owner} is an operator's resource, and its operator, which shardwise does "
            f"not read, builds the server's pod and may add the model{named}; lint the pod it renders "
            "(kubectl get pod -o yaml)")


def add_workload(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None,
                 known: bool = True, rendered: bool = False) -> bool:
    """Add a serving group for a workload that runs vLLM; True when one was added. ``known``: the object is
    one of :data:`WORKLOAD_GROUPS` (its group checked by the caller); else a custom resource read by the
    shape it shares with them (``spec.template``), whose operator may add to the pod (``unknown_operator``) unless
    ``rendered``: the object is what a modelled operator renders (``psoperator``), so what it adds is in it."""
    file = loc.file
    file_lines = lines.get(file) if lines is not None and file is not None else None
    strict = known and kind in SIMPLE_WORKLOADS
    spec = typed_map(obj, "spec", "spec", loc) if strict else as_map(obj.get("spec"))
    if strict:
        _written_null(obj, "spec", "spec", loc)
    if strict and kind == "LeaderWorkerSet":
        return add_lws(obj, loc, inv, file_lines)
    if strict and kind == "Pod":
        meta, pod_spec, path = obj.get("metadata"), spec, "spec"
    else:
        if strict and kind != "CronJob":
            _written_null(spec, "template", "spec.template", loc)
        tpl = _template_of(kind, spec, loc, strict)
        if tpl is None:
            if known and kind == "Rollout":
                _note_workload_ref(obj, spec, inv)
            return False
        meta, pod_spec, path = tpl
        if not strict and not isinstance(as_map(pod_spec).get("containers"), list):
            return False
    if strict:
        _written_null(pod_spec, "containers", f"{path}.containers", loc)
    obj_meta = as_map(obj.get("metadata"))
    namespace = str(obj_meta.get("namespace") or "default")
    bare_pod = strict and kind == "Pod"
    ports = pod_ports(f"{kind} {namespace}/{obj_meta.get('name') or 'unnamed'}", namespace,
                      obj_meta if bare_pod else meta, pod_spec, loc)
    if ports is not None:
        inv.pod_ports.append(ports)
    api_group = str(obj.get("apiVersion") or "").rpartition("/")[0]
    pod = read_pod(meta, pod_spec, file, file_lines, {}, where=loc, path=path,
                   validated=strict and (api_group, kind) in API_VALIDATED_PODS)
    if pod.engine is None:
        add_router(kind, obj, loc, pod.containers, inv)  # production-stack's router: SW406 judges its routing
        note_launch(inv, kind, obj, loc, pod, None)
        return pod.unread is not None
    replicas = _replicas(kind, obj, loc, strict)
    operator = not known and not rendered
    group = make_group(kind, obj, loc, pod, replicas, file,
                       model_left_to=left_to_operator(kind, obj) if operator else "")
    # a custom resource of an operator shardwise does not know: the operator builds the pod from this template and
    # may add resources, /dev/shm or probes (engine.OPERATOR_ADDS), as for the generic reader's objects
    group.unknown_operator = operator
    if bare_pod:  # a bare pod's annotations and labels are its own
        group.pod_labels = str_map(as_map(obj.get("metadata")).get("labels"))
    elif strict:
        group.pod_labels = {**group.pod_labels, **controller_labels(kind, obj)}  # type: ignore[dict-item]  # a manifest's: known
    inv.groups.append(group)
    note_launch(inv, kind, obj, loc, pod, group)
    add_more_groups(kind, obj, loc, pod, replicas, file, inv, group)
    return True


def add_lws(obj: Mapping[str, Any], loc: Location, inv: Inventory, file_lines: Sequence[str] | None) -> bool:
    file = loc.file
    spec = typed_map(obj, "spec", "spec", loc)
    lwt = typed_map(spec, "leaderWorkerTemplate", "spec.leaderWorkerTemplate", loc)
    size = int_field(lwt, "size", 1, loc, "spec.leaderWorkerTemplate.size", minimum=1)
    injected = {"LWS_GROUP_SIZE": str(size)}
    base = "spec.leaderWorkerTemplate"
    leader_raw = typed_map(lwt, "leaderTemplate", f"{base}.leaderTemplate", loc)
    worker_raw = typed_map(lwt, "workerTemplate", f"{base}.workerTemplate", loc)
    _written_null(spec, "leaderWorkerTemplate", "spec.leaderWorkerTemplate", loc)
    _written_null(lwt, "workerTemplate", f"{base}.workerTemplate", loc)
    for raw, name in ((leader_raw, "leaderTemplate"), (worker_raw, "workerTemplate")):
        typed_map(raw, "metadata", f"{base}.{name}.metadata", loc)
        typed_map(raw, "spec", f"{base}.{name}.spec", loc)
        _written_null(raw, "spec", f"{base}.{name}.spec", loc)
    obj_meta = as_map(obj.get("metadata"))
    namespace = str(obj_meta.get("namespace") or "default")
    set_name = str(obj_meta.get("name") or "unnamed")
    for raw in (leader_raw, worker_raw):
        # review33: the labels the LWS controller puts on the pods (as on the group's, below), so that a Service
        # selecting them by the set's name selects them here as in the cluster: the first group's leader (worker
        # index 0; a worker template without a leader template makes the leader too) and its first worker
        index = "1" if raw is worker_raw and bool(leader_raw) else "0"
        added = {LWS_NAME: set_name, LWS_GROUP_INDEX: "0", LWS_WORKER_INDEX: index}
        ports = pod_ports(f"LeaderWorkerSet {namespace}/{set_name}", namespace,
                          with_labels(raw.get("metadata"), added), raw.get("spec"), loc)
        if ports is not None:
            if isinstance(size, int) and size > 1:  # pods of one group: the leader is its process group's master
                ports.dist = dist_with(ports.dist, MULTI_NODE_PORTS)  # mend9: not the KV connectors' ports
            elif size is UNKNOWN and ports.dist is False:
                ports.dist = UNKNOWN
            inv.pod_ports.append(ports)
    leader = read_pod(leader_raw.get("metadata"), leader_raw.get("spec"), file, file_lines,
                      {**injected, "LWS_WORKER_INDEX": "0"}, where=loc,
                      path=f"{base}.leaderTemplate.spec") if leader_raw else None
    worker = read_pod(worker_raw.get("metadata"), worker_raw.get("spec"), file, file_lines,
                      injected if leader_raw else {**injected, "LWS_WORKER_INDEX": "0"}, where=loc,
                      path=f"{base}.workerTemplate.spec")
    chosen = leader if leader is not None and leader.engine is not None else worker
    other = worker if chosen is leader else leader
    if chosen.engine is None:
        unread = leader if leader is not None and leader.unread is not None else worker
        note_launch(inv, "LeaderWorkerSet", obj, loc, unread, None)
        return unread.unread is not None
    if other is not None:
        fill_placement(chosen, other)
    group = make_group("LeaderWorkerSet", obj, loc, chosen, int_field(spec, "replicas", 1, loc, "spec.replicas"),
                   file)
    group.pods_per_group = size
    # the labels the LWS controller puts on the pods it creates, over the template's (sigs.k8s.io/lws,
    # api/leaderworkerset/v1): the set's name, the group index (the first group's pods: 0) and the worker
    # index, 0 for the leader (the pod a Service in front of the group selects) and 1.. for the workers
    leads = leader is None or chosen is leader
    group.pod_labels = {**group.pod_labels, LWS_NAME: str(obj_meta.get("name") or "unnamed"),  # type: ignore[dict-item]
                        LWS_GROUP_INDEX: "0", LWS_WORKER_INDEX: "0" if leads else "1"}
    rp = lwt.get("restartPolicy")
    group.restart_policy = str(rp) if rp is not None else None
    meta_ann = str_map(as_map(obj.get("metadata")).get("annotations"))
    group.exclusive_topology = meta_ann.get(LWS_EXCLUSIVE) or group.annotations.get(LWS_EXCLUSIVE) or None
    inv.groups.append(group)
    note_launch(inv, "LeaderWorkerSet", obj, loc, chosen, group)
    add_more_groups("LeaderWorkerSet", obj, loc, chosen, group.replicas, file, inv, group)
    return True


def fill_placement(chosen: Pod, other: Pod) -> None:
    """Placement usually lives in both pod templates of a group (leader and workers, head and
    workers); fill what the vLLM pod leaves out from the other one."""
    if not chosen.spec.get("nodeSelector") and other.spec.get("nodeSelector"):
        chosen.spec = {**chosen.spec, "nodeSelector": other.spec["nodeSelector"]}
        _take_location(chosen, other, "nodeSelector")
    if not read_affinity(chosen.spec) and read_affinity(other.spec):
        chosen.spec = {**chosen.spec, "affinity": other.spec.get("affinity")}
        _take_location(chosen, other, "affinity")
    if not chosen.spec.get("tolerations") and other.spec.get("tolerations"):
        chosen.spec = {**chosen.spec, "tolerations": other.spec["tolerations"]}
        _take_location(chosen, other, "tolerations")
    if chosen.gpus is None and other.containers:
        chosen.gpus = other.containers[0].gpus
        chosen.accelerator_resource = other.containers[0].accelerator_resource


def _take_location(chosen: Pod, other: Pod, key: str) -> None:
    if key in other.locations:
        chosen.locations[key] = other.locations[key]


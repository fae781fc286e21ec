"""Never silent: an object that mentions vLLM but gave no workload is recorded for SW005, with why."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import Inventory, LaunchIssue, Location, Suppression
from ...model.errors import InputError
from ...model.unknown import is_placeholder
from ...vllm.args import BENCH_CLIENTS, bench_subcommand, downloads_weights_only
from .dispatch import holds_data, is_template
from .fields import as_list, as_map, read_annotations, suppressions_from
from .generic import RUN_OF_IMAGE, FoundPod, annotation_mentions, find_pods, vllm_mentions
from .groups import KNATIVE_GROUP

#: AMD AIM Engine (amd-enterprise-ai/aim-engine, read at v0.2.1: ``api/v1alpha1``): the kinds that say what a service
#: serves. The operator resolves an AIMService's model to a service template, runs the AIM image's discovery and
#: takes the engine (``metadata.engine``: vllm, tgi...), its ``engine_args``, the GPU model and count and the
#: precision from the profile the image publishes (``AIMServiceTemplate`` ``status.profile``,
#: ``aimservicetemplate_shared.go``), then creates a KServe InferenceService: none of it is in the object.
AIM_GROUP = "aim.eai.amd.com"
AIM_KINDS = frozenset({"AIMService", "AIMModel", "AIMClusterModel", "AIMServiceTemplate",
                       "AIMClusterServiceTemplate"})
AIM_WHY = ("AMD's AIM operator (aim.eai.amd.com) takes the engine, its arguments, the GPU model and count and the "
           "precision from the profile the AIM image publishes when its discovery runs in the cluster (a service "
           "template's status.profile), then creates a KServe InferenceService: shardwise does not read AIM objects, "
           "so lint the InferenceService the operator creates (kubectl get inferenceservice -o yaml)")


#: The ``serving.knative.dev`` versions Knative Serving no longer serves: v1alpha1 and v1beta1 were dropped in
#: Knative Serving 0.19 (knative/serving#8638, "Drop serving v1beta1 & v1alpha1 APIs", done by #9620), which serves
#: ``serving.knative.dev/v1`` alone. v1alpha1's own pod shapes (``spec.runLatest``, ``release``, ``pinned``,
#: ``manual``, their ``configuration.revisionTemplate`` and its one ``container``) hold no pod spec shardwise reads.
KNATIVE_REMOVED = frozenset({"v1alpha1", "v1beta1"})


def _knative_removed(obj: Mapping[str, Any]) -> str | None:
    """Why an object of a ``serving.knative.dev`` version Knative removed gave no workload, or None for any other."""
    group, _, version = str(obj.get("apiVersion", "")).partition("/")
    if group != KNATIVE_GROUP or version not in KNATIVE_REMOVED:
        return None
    spec = as_map(obj.get("spec"))
    modes = [k for k in ("runLatest", "release", "pinned", "manual") if k in spec]
    shape = f" (spec.{modes[0]}, v1alpha1's own shape)" if modes else ""
    return (f"its apiVersion serving.knative.dev/{version} is one Knative Serving removed in 0.19 "
            f"(knative/serving#8638): a cluster's Knative since then refuses the object, and its pod{shape} is not "
            "where shardwise reads it; "
            "Knative serves serving.knative.dev/v1, whose Service holds the pod at spec.template.spec with a list of "
            "containers: write it as v1 and lint it again")


def note_unread(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory,
                 errors: list[InputError] | None) -> bool:
    """SW005's record: an object that mentions vLLM but gave no workload; True when one was added (or its
    suppression annotation is an input error, added to ``errors`` when given)."""
    mention: tuple[str, Location | None] | None
    special = None
    in_annotation = annotation_mentions(obj)
    if in_annotation is not None:  # a pod patch in an annotation: a controller builds the server's pod from it
        what, at, key = in_annotation
        mention = (f"{what} in the annotation `{key}`", at)
        special = ("a controller reads that text to build the server's pod (as llm-d's dual-pods controller "
                   "applies dual-pod.llm-d.ai/server-patch to the requester's pod), so that pod is not in the "
                   "inputs: lint the pod the controller creates (kubectl get pod -o yaml)")
    else:
        mention = vllm_mentions(obj)
    # what operators and GitOps objects say of vLLM: read only for an object that gave no workload (start-up time)
    from .mentions import gitops_why, operator_mention

    aim = kind in AIM_KINDS and str(obj.get("apiVersion", "")).split("/", 1)[0] == AIM_GROUP
    said = mention is not None
    if aim:  # readers16: AMD AIM's engine settings are in its image's profiles, never in the object
        mention = mention or (f"an AMD AIM {kind}, whose engine is vLLM or another as the AIM image's profile says",
                              None)
        special = AIM_WHY
    if mention is None:  # an operator's fields that name vLLM (runtime: vllm, backendName: vllm, vllmArgs: ...)
        found = operator_mention(kind, obj, loc)
        if found is None:
            return False
        mention, special = found[:2], found[2]
    try:
        suppressions = object_suppressions(obj, loc)
    except InputError as e:
        if errors is None:
            raise
        errors.append(e)
        return True
    what, at = mention
    meta = as_map(obj.get("metadata"))
    subject = f"{kind or '(no kind)'} {meta.get('namespace') or 'default'}/{meta.get('name') or 'unnamed'}"
    if holds_data(obj):
        why = ("it holds data a workload reads, and no workload in this file was read: lint it together with "
               "the workload that mounts it")
    elif is_template(obj):
        why = ("it is a template its services merge, and none in the inputs uses it: lint it together with "
               "the services that run on it")
    elif pods := find_pods(obj):
        client = _bench_client(pods)
        fetch = _downloader(pods)
        entry = _placeholder_entrypoint(pods)
        why = (f"its container {client!r} runs vLLM's benchmark client (`vllm bench serve`), which sends requests to "
               "a server it names and loads no model: there is no server or GPU layout here to check"
               if client is not None else
               f"its container {fetch[0]!r} only runs `{fetch[1]}`, which fetches the model's weights and exits: "
               "there is no server or GPU layout here to check (lint the workload that serves them)"
               if fetch is not None else
               f"its container {entry[0]!r} gives only args, so the entrypoint of its image"
               f"{'' if entry[1] in mention[0] else f' `{entry[1]}`'} decides what runs, and that image is a "
               "template's placeholder, not known until the template is rendered (vLLM, or a simulator or another "
               "server that takes the same flags): render it first (envsubst, helm template) and lint the output"
               if entry is not None else
               "none of its pod specs starts a vLLM server shardwise can read: the server is started "
               "elsewhere (a script, a job's entrypoint, the operator's own command)")
    elif RUN_OF_IMAGE in what:  # corpus41: a Crossplane composite's EC2 userData runs vLLM with docker
        why = ("that container run is in a script the object carries (a virtual machine's userData or start-up "
               "script), which starts vLLM outside any pod: shardwise lints no server a machine runs itself; "
               "a Kubernetes workload of it can be linted")
    else:
        why = ("shardwise found no pod spec in it whose container starts a vLLM server it can read (no "
               "`containers` list or container with image and command at any depth); the operator builds "
               "the pod from fields shardwise does not know")
    # a Flux HelmRelease or Argo CD Application whose values hold a container (bjw-s' app-template: image, args):
    # the chart is rendered in the cluster, whatever mentioned vLLM
    why = special or _knative_removed(obj) or gitops_why(kind, obj) or why
    where = Location(loc.file, at.line if at is not None and at.line is not None else loc.line)
    text = f"it is {what}, and {why}" if aim and not said else f"it mentions vLLM ({what}) but {why}"
    inv.launch_issues.append(LaunchIssue(subject, "", text, where,
                                         mentioned=True, suppressions=suppressions))
    return True


def _bench_client(pods: list[FoundPod]) -> str | None:
    """The name of the first container of ``pods`` that runs vLLM's benchmark client (:data:`BENCH_CLIENTS`)."""
    for pod in pods:
        for c in as_list(pod.spec.get("containers")):
            c = as_map(c)
            command, args = as_list(c.get("command")), as_list(c.get("args"))
            if bench_subcommand([str(w) for w in command], [str(w) for w in args]) in BENCH_CLIENTS:
                return str(c.get("name") or "")
    return None


def _downloader(pods: list[FoundPod]) -> tuple[str, str] | None:
    """(container name, download command) of the first container of ``pods`` that only downloads a model's weights
    (:func:`..vllm.args.downloads_weights_only`)."""
    for pod in pods:
        for c in as_list(pod.spec.get("containers")):
            c = as_map(c)
            command, args = as_list(c.get("command")), as_list(c.get("args"))
            found = downloads_weights_only([str(w) for w in command], [str(w) for w in args])
            if found is not None:
                return str(c.get("name") or ""), found
    return None


def _placeholder_entrypoint(pods: list[FoundPod]) -> tuple[str, str] | None:
    """(container name, image) of the first container of ``pods`` whose image is a whole template placeholder
    (``${VLLM_IMAGE}``) and that gives ``args`` but no ``command``: its image's entrypoint, not known yet, decides
    what runs."""
    for pod in pods:
        for c in as_list(pod.spec.get("containers")):
            c = as_map(c)
            image = c.get("image")
            if is_placeholder(image) and c.get("args") and not c.get("command"):
                return str(c.get("name") or ""), str(image).strip()
    return None


def object_suppressions(obj: Mapping[str, Any], loc: Location) -> list[Suppression]:
    meta = as_map(obj.get("metadata"))
    ann, ann_lines = read_annotations(meta, {})
    return suppressions_from(ann, ann_lines, loc.file, loc.line)

"""Fields of an operator's object that say it runs vLLM where no pod spec in it does (SW005's record).

:func:`.generic.vllm_mentions` finds vLLM in images, commands and package lists; operators that build the pod
themselves name their engine in fields instead, and such an object that gives no workload must say why too
(DESIGN: "A file that mentions vLLM but yields no workload says why"):

- a runtime, backend or engine named for vLLM (``runtime: vllm`` on a KServe model, ``backendName: vllm`` on an
  llmaz Playground, ``modelFormat: {name: vLLM}``, ``engine: {type: vllm}`` on an AI Runway ModelDeployment,
  ``engine: "vllm"`` on an operator's own kind; a key in any spelling: ``engineType``, ``inference_engine``);
- a field named for vLLM (nebari's ``vllm:``, ``vllmArgs:``);
- an image whose tag names its vLLM build (``kubeagi/arcadia-fastchat-worker:vllm-v0.4.0``);
- a Ray Serve application whose import path is a vLLM module (``...vllm.serve_tpu:model``) or RayLLM's
  (``rayllm.backend:router_application``: RayLLM serves each model with the engine its model file names,
  ``engine_config: {type: VLLMEngine}``, and those files are not in the pod spec);
- DJL Serving's LMI container (SageMaker's ``djl-inference`` image) told to run vLLM by its options:
  ``OPTION_ROLLING_BATCH=vllm``, or ``OPTION_ENTRYPOINT=djl_python.lmi_vllm.vllm_async_service`` (LMI 0.33 and
  later), as a container's ``env`` or a HyperPod InferenceEndpointConfig's ``environmentVariables``;
- NVIDIA Dynamo's SDK serving a vLLM worker class (``dynamo serve graphs.disagg:VllmWorker -f configs/x.yaml``,
  Dynamo 0.1 to 0.3): the engine's arguments are in the graph's config file inside the image;
- a kind whose operator runs vLLM by default: an llmaz ``Playground`` (its backend defaults to vLLM) and a KAITO
  ``InferenceSet`` with an inference preset (KAITO's default runtime is vLLM, as for its Workspace), and a KAITO
  ``MultiRoleInference`` naming a model (prefill/decode disaggregation, whose roles KAITO runs with vLLM only:
  kaito-project/kaito website/docs/prefill-decode-disaggregation.md at 056b8280, "Currently supports vLLM runtime
  only"; corpus24: the DeepSeek-V3 example passed without a word);
- an image written as Helm's convention in the operator's own fields (``image: {repository: vllm/vllm-openai, tag:
  v0.11.0}``), on any kind (fuzz13: such an object of an unknown kind was skipped without a word);
- a GitOps object that renders a Helm chart in the cluster (an Argo CD ``Application`` or ``ApplicationSet``, a Flux
  ``HelmRelease``, a k3s ``HelmChart``) whose Helm values name a vLLM image: ``repository: vllm/vllm-openai``, a
  parameter ``{name: image.repository, value: vllm/vllm-openai}``, or the same in a values text; or llm-d-modelservice's
  ``modelCommand: vllmServe`` / ``imageDefault`` (the chart writes the vLLM command).

Only ``spec`` is looked at: labels and annotations name routes and metrics (``vllm:num_requests_waiting``);
an annotation whose text writes a container (a pod patch a controller applies) is
:func:`.generic.annotation_mentions`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from ...catalog.accelerators import is_extended_resource, resource_names
from ...model import Location
from ...model.unknown import holds_placeholder, is_placeholder, named_as_written
from ...vllm.args import is_vllm_image
from ...vllm.imageref import parse_image
from ..yamlsrc import LineDict, load_documents
from .fields import as_map

#: Kinds that name an engine but run no server: NVIDIA's NIMCache downloads the model a NIMService later serves
#: (its ``engine: vllm`` picks which model profile to cache).
_NO_SERVER = frozenset({("apps.nvidia.com", "NIMCache")})
#: vLLM as a word of a name: ``vllm``, ``vLLM``, ``kserve-vllm``, ``vllm-runtime``, ``vllm0.5.0``.
_WORD = re.compile(r"(?:^|[^a-z0-9])vllm(?:[^a-z]|$)")
#: Keys whose value names the engine or runtime that serves.
_NAME_KEYS = frozenset({"runtime", "runtimename", "backend", "backendname", "engine", "inferenceengine",
                        "framework", "servingruntime"})
#: A key named for the engine, runtime or backend that serves, in any operator's spelling (mend18: ``engineType``,
#: ``servingEngine``, ``inference_engine``, ``runtime_name``; the key lower-cased without ``_`` and ``-``).
_NAME_KEY = re.compile(r"(?:engine|runtime|backend|framework)(?:name|type)?$")
#: Keys whose value is a Ray Serve application's import path.
_IMPORT_KEYS = frozenset({"import_path", "importpath"})
#: An import path of a vLLM module written in text (RayService ``serveConfigV2``).
_IMPORT = re.compile(r"\bimport_path:\s*['\"]?(\S*(?:^|[^a-z0-9])vllm[^a-z]\S*)", re.IGNORECASE)
#: RayLLM's application (ray-project/ray-llm, archived): ``import_path: rayllm.backend:router_application``.
_RAYLLM = re.compile(r"\bimport_path:\s*['\"]?(rayllm[.:]\S*)")
_RAYLLM_WHY = ("RayLLM reads each model's engine config (model, vLLM engine_kwargs, GPUs per replica) from the model "
               "files its application names (here mounted into the pod), not from the pod spec, so no vLLM command "
               "is in the object; RayLLM is archived: ray.serve.llm's LLMConfig in serveConfigV2 is read")
#: DJL Serving's options that name the engine its LMI container runs (``option.rolling_batch``,
#: ``option.entrypoint`` of serving.properties, written ``OPTION_<NAME>`` in the environment): ``vllm`` or
#: ``djl_python.lmi_vllm.vllm_async_service`` run vLLM inside DJL's Python engine (deepjavalibrary/djl-serving,
#: serving/docs/lmi/user_guides/vllm_user_guide.md).
_DJL_OPTIONS = frozenset({"OPTION_ROLLING_BATCH", "OPTION_ENTRYPOINT"})
_DJL_WHY = ("DJL Serving's LMI container runs vLLM inside its own Python engine from its OPTION_* settings "
            "(OPTION_TENSOR_PARALLEL_DEGREE, OPTION_MAX_MODEL_LEN, ...), not from a vLLM command, and shardwise does "
            "not read those settings, so it checks no layout, model or context length here")
#: ``dynamo serve <module>:<class>`` whose class is one of Dynamo's vLLM workers (VllmWorker, VllmPrefillWorker,
#: VllmDecodeWorker): ai-dynamo/dynamo 0.1-0.3, examples/llm/components/worker.py runs vLLM's AsyncLLM from the
#: ``-f`` config's VllmWorker section.
_DYNAMO_SDK = re.compile(r"\bdynamo\s+serve\s+([\w./-]+:Vllm\w*)")
_DYNAMO_WHY = ("Dynamo's SDK (`dynamo serve`) starts the vLLM engine from the graph's config file (its -f YAML, "
               "inside the image), not from a vLLM command, so its model, layout and context length are not in the "
               "object: lint the config's vLLM arguments, or the pod Dynamo 0.4 and later writes with python3 -m "
               "dynamo.vllm")
#: A value left for the reader to fill, beside a template's placeholders (:func:`.model.unknown.is_placeholder`):
#: ``<your-image>``.
_ANGLED = re.compile(r"^<[^>]+>$")


def _named(value: Any) -> bool:
    return isinstance(value, str) and _WORD.search(value.lower()) is not None


def _at(holder: Any, key: str, file: str | None) -> Location | None:
    if isinstance(holder, LineDict):
        return Location(file, holder.key_lines.get(key, holder.line))
    return None


def _walk(node: Any) -> Iterator[tuple[str, Any, Any]]:
    """(key, value, the mapping that holds it) for every key under ``node``, in document order and at any depth: the
    reader bounds nesting and refuses a recursive alias (a bound of 40 levels here hid a field below it: fuzz18)."""
    stack: list[tuple[Any, Any]] = [(None, node)]  # (the mapping that holds the key, a key) or (None, a node)
    while stack:
        holder, item = stack.pop()
        if holder is not None:
            yield str(item), holder[item], holder
            stack.append((None, holder[item]))
        elif isinstance(item, dict):
            stack.extend((item, k) for k in reversed(item.keys()))
        elif isinstance(item, list):
            stack.extend((None, v) for v in reversed(item))


Mention = tuple[str, Location | None, str | None]

#: GitOps objects that render a Helm chart in the cluster, and who renders it.
_GITOPS = {("argoproj.io", "Application"): "Argo CD", ("argoproj.io", "ApplicationSet"): "Argo CD",
           ("helm.toolkit.fluxcd.io", "HelmRelease"): "Flux", ("helm.cattle.io", "HelmChart"): "k3s' Helm controller"}
#: An image in a Helm values text (Argo CD's ``helm.values``, k3s' ``valuesContent``): ``repository: x``, ``image: x``.
_VALUES_IMAGE = re.compile(r"^[ \t]*-?[ \t]*(?:repository|image):[ \t]*['\"]?([^\s'\"#]+)", re.MULTILINE)


def gitops_why(kind: str, obj: Mapping[str, Any]) -> str | None:
    """Why a GitOps object that renders a Helm chart gives no workload, or None for another object."""
    renderer = _GITOPS.get((str(obj.get("apiVersion", "")).split("/", 1)[0], kind))
    if renderer is None:
        return None
    return (f"{renderer} renders the Helm chart it names in the cluster, so its pods are not in the inputs: lint the "
            "chart rendered with these values (helm template, with the values or parameters set here)")


def _gitops_image(spec: Any, file: str | None) -> tuple[str, Location | None] | None:
    """The vLLM image a GitOps object's Helm values name, and its line: Helm's ``image.repository`` convention
    as a map, as an Argo CD parameter (``name: image.repository``, ``value: ...``) or in a values text."""
    for key, value, holder in _walk(spec):
        low = key.lower()
        if low == "repository" and isinstance(value, str) and is_vllm_image(value):
            return f"the vLLM image {value} in its Helm values", _at(holder, key, file)
        if low == "name" and isinstance(value, str) and value.lower().endswith(("image", "repository")) \
                and isinstance(holder, dict) and isinstance(holder.get("value"), str) \
                and is_vllm_image(holder["value"]):
            return f"the vLLM image {holder['value']} as its Helm parameter {value}", _at(holder, "value", file)
        if low in ("values", "valuescontent") and isinstance(value, str):
            for m in _VALUES_IMAGE.finditer(value):
                if is_vllm_image(m.group(1)):
                    return f"the vLLM image {m.group(1)} in its Helm values", _at(holder, key, file)
    return None


def helm_values_mention(values: Mapping[str, Any]) -> str | None:
    """What in a Helm release's values says it runs vLLM, in words (a vLLM image in Helm's ``image.repository``
    convention, llm-d-modelservice's ``modelCommand``), as a GitOps object's are read; None when nothing does (a Pulumi
    Helm Release's, :func:`~shardwise.rules.adapters.pulumi.k8s.helm_release_mention`)."""
    found = _gitops_image({"values": values}, None) or _gitops_model_command({"values": values}, None)
    return found[0] if found is not None else None


#: llm-d-modelservice's ``modelCommand`` values that run vLLM (``vllm serve``, or the image's entrypoint given vLLM's
#: ``--model``/``--served-model-name``), as a field or in a values text.
_MODEL_COMMANDS = ("vllmServe", "imageDefault")
_VALUES_MODEL_COMMAND = re.compile(r"^[ \t]*-?[ \t]*modelCommand:[ \t]*['\"]?(vllmServe|imageDefault)\b", re.MULTILINE)


def _gitops_model_command(spec: Any, file: str | None) -> tuple[str, Location | None] | None:
    """llm-d-modelservice's ``modelCommand: vllmServe`` (or ``imageDefault``) in a GitOps object's Helm values: the
    chart writes the vLLM command itself (readers14: a release at a version not modelled was silent)."""
    for key, value, holder in _walk(spec):
        low = key.lower()
        if low == "modelcommand" and value in _MODEL_COMMANDS and isinstance(holder, Mapping) \
                and "llm-d-inference-sim" not in str(holder.get("image") or ""):  # the simulator runs no vLLM
            return f"llm-d-modelservice's modelCommand {value} (vLLM) in its Helm values", _at(holder, key, file)
        if low in ("values", "valuescontent") and isinstance(value, str):
            # the values text read as YAML, so its container's image is judged as in the branch above (small16: a
            # simulator release in a values text was read as vLLM); the line is the values key's
            parsed = [doc for _, doc in load_documents(value, file or "values") if isinstance(doc, (Mapping, list))]
            if parsed:
                found = _gitops_model_command(parsed, None)
                if found is not None:
                    return found[0], _at(holder, key, file)
                continue
            m = _VALUES_MODEL_COMMAND.search(value)  # a text that is not YAML (a template): its words only
            if m is not None and "llm-d-inference-sim" not in value:
                return (f"llm-d-modelservice's modelCommand {m.group(1)} (vLLM) in its Helm values",
                        _at(holder, key, file))
    return None


#: A kind's words: ``VLLMModel`` -> ``VLLM Model``, ``VllmDeployment`` -> ``Vllm Deployment``.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_OPERATOR_WHY = ("it is an operator's object (its API is named for vLLM) that asks for accelerators, and shardwise "
                 "does not read that operator's fields: the operator writes the vLLM command (model, layout, "
                 "engine settings) into a pod spec that is not in the inputs; lint the pod it renders (kubectl "
                 "get pod -o yaml) to check the layout")


def _named_operator(group: str, kind: str, spec: Mapping[str, Any], file: str | None) -> Mention | None:
    """An object of an operator named for vLLM (its API group, ``llm.vllm-operator.io``, or its kind, ``VLLMModel``)
    whose spec asks for accelerators (``resources.limits`` with ``nvidia.com/gpu``): the operator serves a model with
    them (corpus15: ycra-dev/vllm-operator's ``LLM`` and PhenixForge's ``VLLMModel`` were skipped without a word).
    Objects of such groups that ask for no accelerator are routers, caches and adapters (production-stack's
    ``VLLMRouter``, ``CacheServer``; the semantic router's pools): nothing is said of them."""
    if not (_named(group) or _named(_CAMEL.sub(" ", kind))):
        return None
    for key, value, _holder in _walk(spec):
        if key not in ("limits", "requests") or not isinstance(value, Mapping):
            continue
        for name in value:
            name = str(name)
            if name in resource_names() or (is_extended_resource(name) and name.split("/", 1)[1].startswith("gpu")):
                return (f"the {kind} of {group}, which asks for {value[name]} {name}", _at(value, name, file),
                        _OPERATOR_WHY)
    return None


def _vllm_chart(key: str, value: Any) -> str | None:
    """The Helm chart a ``chart`` field names when that chart is vLLM's own (named ``vllm``: substratusai's
    ``vllm``, ``oci://.../vllm``): an installer object of a kind the GitOps planner does not render (an app-store
    ``AppEntry``) that runs it (corpus15: dhnt/appstore's AppEntry was skipped without a word). Charts named for
    something beside vLLM (``vllm-router``, ``vllm-semantic-router``) are not vLLM's server and say nothing here."""
    if key != "chart":
        return None
    name = value if isinstance(value, str) else as_map(value).get("name") or as_map(value).get("chart")
    if isinstance(name, Mapping):  # Flux: chart: {spec: {chart: vllm}}
        name = as_map(name.get("spec")).get("chart")
    if not isinstance(name, str) or not name.strip():
        return None
    text = name.strip()
    return text if text.lower().rstrip("/").rsplit("/", 1)[-1] == "vllm" else None


def operator_mention(kind: str, obj: Mapping[str, Any], loc: Location) -> Mention | None:
    """(what mentions vLLM, its line, why no workload was read or None for the general reason), or None."""
    spec = obj.get("spec")
    group = str(obj.get("apiVersion", "")).split("/", 1)[0]
    if (group, kind) in _NO_SERVER:
        return None
    file = loc.file
    why = gitops_why(kind, obj)
    gitops = why is not None  # Argo CD, Flux, k3s: rendered (or said why not) by the GitOps planner, not here
    if why is not None:
        image = _gitops_image(spec, file) or _gitops_model_command(spec, file)
        if image is not None:
            return (*image, why)
    for key, value, holder in _walk(spec):
        low = key.lower()
        if (low == "name" and isinstance(value, str) and value.upper() in _DJL_OPTIONS
                and _named(holder.get("value"))):
            return f"DJL Serving's {value}={holder['value']}", _at(holder, key, file), _DJL_WHY
        if low.startswith("vllm"):
            return f"the field `{key}`", _at(holder, key, file), None
        # Helm's image convention in an operator's own fields ({repository: vllm/vllm-openai, tag: v0.11.0}): fuzz13,
        # an object of an unknown kind that wrote its vLLM image so was skipped without a word
        if low == "repository" and isinstance(value, str) and is_vllm_image(value):
            return f"the vLLM image repository {value}", _at(holder, key, file), None
        named_key = low in _NAME_KEYS or _NAME_KEY.search(low.replace("_", "").replace("-", "")) is not None
        if named_key and _named(value):
            why = None
            if kind == "InferenceService" and low == "runtime":
                why = (f"it runs on the serving runtime `{value}`, which is not in its file, so what it runs (the "
                       "vLLM command, its layout, GPUs and image) is not known: lint it together with that "
                       "ServingRuntime or ClusterServingRuntime, in one file")
            return f"`{key}: {value}`", _at(holder, key, file), why
        if named_key and isinstance(value, Mapping):  # AI Runway's engine: {type: vllm}
            inner = next((k for k in ("type", "name") if _named(value.get(k))), None)
            if inner is not None:
                return f"`{key}.{inner}: {value[inner]}`", _at(value, inner, file), None
        chart = None if gitops else _vllm_chart(low, value)
        if chart is not None:
            return (f"the Helm chart `{chart}`", _at(holder, key, file),
                    f"it installs the Helm chart `{chart}` in the cluster, so the pods that chart runs are not in the "
                    "inputs: lint the chart rendered with its values (helm template, with the values it names)")
        if low == "modelformat" and _named(as_map(value).get("name")):
            return f"the model format `{as_map(value).get('name')}`", _at(holder, key, file), None
        if low.endswith("image") and isinstance(value, str) and value.strip():
            text = value.strip()
            # an unrendered image named for vLLM: $VLLM_IMAGE, {{ .Values.vllmImage }}, <vllm-image>
            if (is_placeholder(text) or _ANGLED.match(text)) and _named(text):
                return f"the image placeholder `{text}`", _at(holder, key, file), None
            name, colon, tag = parse_image(text).name_and_tag.rpartition(":")
            if colon and tag and _named(tag):
                return f"the vLLM image {text}", _at(holder, key, file), None
        if low in ("command", "args") and isinstance(value, list):  # a container's command: its words
            for word in value:
                d = _DYNAMO_SDK.search(word) if isinstance(word, str) else None
                if d is not None:
                    return f"Dynamo's vLLM worker `{d.group(1)}`", _at(holder, key, file), _DYNAMO_WHY
        if isinstance(value, str):
            d = _DYNAMO_SDK.search(value)
            if d is not None:
                return f"Dynamo's vLLM worker `{d.group(1)}`", _at(holder, key, file), _DYNAMO_WHY
            r = _RAYLLM.search(value)
            if r is not None or (low in _IMPORT_KEYS and value.startswith(("rayllm.", "rayllm:"))):
                return (f"the RayLLM application `{r.group(1) if r is not None else value}`, which runs vLLM",
                        _at(holder, key, file), _RAYLLM_WHY)
            m = _IMPORT.search(value)  # Ray Serve's import_path, as a field or in serveConfigV2's text
            if (low in _IMPORT_KEYS and _named(value)) or m is not None:
                return (f"the Ray Serve application `{m.group(1) if m is not None else value}`",
                        _at(holder, key, file), None)
    spec_map = as_map(spec)
    served = _named_operator(group, kind, spec_map, file)
    if served is not None:
        return served
    if group == "inference.llmaz.io" and kind == "Playground":
        backend = as_map(spec_map.get("backendRuntimeConfig")).get("backendName")
        if not backend:  # llmaz's default backend is vLLM
            return "an llmaz Playground (its backend defaults to vLLM)", _at(spec_map, "modelClaims", file) or \
                _at(spec_map, "modelClaim", file), None
    if group == "kaito.sh" and kind == "InferenceSet":
        preset = as_map(as_map(as_map(spec_map.get("template")).get("inference")).get("preset"))
        if preset.get("name"):
            return (f"{named_as_written(preset['name'], 'KAITO preset')} (vLLM is KAITO's default runtime)",
                    _at(preset, "name", file),
                    "KAITO's InferenceSet controller creates Workspaces from its template and KAITO writes the vLLM "
                    "command (model, tensor parallel size from the instance type's GPUs, max model length) itself, "
                    "so no command is in the object; lint the pod it renders (kubectl get pod -o yaml) to check "
                    "the layout")
    if group == "kaito.sh" and kind == "MultiRoleInference":
        model = as_map(spec_map.get("model"))
        if model.get("name"):
            of = named_as_written(model["name"], "model") if holds_placeholder(model["name"]) else repr(model["name"])
            return (f"KAITO's prefill/decode roles of {of} (KAITO runs them with vLLM only)",
                    _at(model, "name", file),
                    "KAITO's MultiRoleInference controller creates an InferenceSet per role (prefill, decode) and "
                    "KAITO writes each role's vLLM command (tensor parallel size from the role's instance type, the "
                    "NIXL KV transfer between them) itself, so no command is in the object; lint the pods it renders "
                    "(kubectl get pod -o yaml) to check each role's layout")
    return None

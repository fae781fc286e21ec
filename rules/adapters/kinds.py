"""What a parsed file is: Kubernetes manifests, a shardwise stack, Pulumi JSON, or not an input.

Decided from the parsed documents (never a pattern over the text: a stack file in YAML flow style
is a stack file), with the file's name only as a hint for the reason given. A file is skipped (not
an input, counted in the summary) only when nothing in it could be a Kubernetes object: a document
with ``apiVersion`` or ``kind``, or with both ``metadata`` and ``spec``, makes the file manifests,
and what is wrong with them is then an input error. A document that is text or a number is an input
error too (a manifest the shell or a template mangled), never a reason to skip.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from ..model.errors import InputError
from .select import HELM_VALUES
from .yamlsrc import DuplicateKey

KUBERNETES = "kubernetes"
STACK = "stack"
PULUMI = "pulumi"
#: An OCI AI Blueprints recipe (``ocirecipe.py``).
OCI_RECIPE = "OCI AI Blueprints recipe"

_KUSTOMIZE_GROUP = "kustomize.config.k8s.io/"
#: Tools that deploy to Kubernetes and write their own configuration with a `kind` but never an `apiVersion`
#: (every Kubernetes object has one): Zarf's zarf.yaml and UDS CLI's uds-bundle.yaml (defenseunicorns/leapfrogai).
#: A document of another kind without `apiVersion` stays an input error.
_TOOL_CONFIGS = {"ZarfPackageConfig": "Zarf package configuration", "ZarfInitConfig": "Zarf package configuration",
                 "UDSBundle": "UDS bundle configuration"}


#: A Kubernetes kind's name: UpperCamelCase (the API conventions: "Kind is the name of a particular object schema",
#: written in CamelCase: Pod, Deployment, InferenceService).
_KIND_NAME = re.compile(r"[A-Z][A-Za-z0-9]*")


def _k8s_like(value: Any) -> bool:
    """Whether a mapping was meant as a Kubernetes object: an apiVersion, metadata with a spec, or a kind. A kind
    of another format's words, with neither of the others, is that format's (an agent runtime's JSON registries,
    ``"kind": "skill_registry"``; corpus26: s-aws/vllm-agent-gateway's 206 such files made its lint exit 2 with
    "object has no apiVersion"), or a list or mapping under `kind` (Prow's label configuration, `.prowlabels.yaml`);
    a kind that is a number or a boolean is still a broken manifest."""
    if isinstance(value, Mapping):
        if "apiVersion" in value or ("metadata" in value and "spec" in value):
            return True
        if "kind" not in value:
            return False
        kind = value["kind"]
        if isinstance(kind, Mapping | list):  # a list of kinds (Prow's label config: `kind: [bug, feature]`)
            return False
        return not isinstance(kind, str) or _KIND_NAME.fullmatch(kind) is not None
    if isinstance(value, list):
        return any(isinstance(v, Mapping) and _k8s_like(v) for v in value)
    return False


def is_shardwise_stack(doc: Any) -> bool:
    """A Pulumi stack file for shardwise: ``config`` holds ``shardwise:…`` keys, or a
    ``<project>:environment`` whose value is a mapping (or JSON text of one). Another project's
    ``<project>:environment: production`` is not one."""
    config = doc.get("config") if isinstance(doc, Mapping) else None
    if not isinstance(config, Mapping):
        return False
    for key, value in config.items():
        if not isinstance(key, str):
            continue
        if key.startswith("shardwise:"):
            return True
        if key.endswith(":environment") and key.count(":") == 1 and (
                isinstance(value, Mapping) or (isinstance(value, str) and value.lstrip().startswith("{"))):
            return True
    return False


def _helm_chart(doc: Mapping[str, Any]) -> bool:
    return doc.get("apiVersion") in ("v1", "v2") and "kind" not in doc and "name" in doc and "version" in doc


def _tool_config(doc: Mapping[str, Any]) -> bool:
    return "apiVersion" not in doc and isinstance(doc.get("kind"), str) and doc["kind"] in _TOOL_CONFIGS


#: The top-level lists of Grafana's provisioning files (grafana/grafana docs, "Provision Grafana": data sources,
#: dashboard providers, alerting resources, plugins), each written under ``apiVersion: 1``.
_GRAFANA_LISTS = frozenset({"datasources", "deleteDatasources", "providers", "apps", "notifiers", "deleteNotifiers",
                            "contactPoints", "deleteContactPoints", "policies", "resetPolicies", "templates",
                            "deleteTemplates", "muteTimes", "deleteMuteTimes", "groups", "deleteRules"})


def _grafana_provisioning(doc: Mapping[str, Any]) -> bool:
    """A Grafana provisioning file: ``apiVersion`` a number (Grafana's format version, ``1``), no ``kind`` and no
    ``metadata``, and one of Grafana's lists (:data:`_GRAFANA_LISTS`). A Kubernetes ``apiVersion`` is always a
    string (``v1``, ``apps/v1``), and an object has a ``kind``: such a file is Grafana's, kept beside a repository's
    manifests (corpus16: harshit-ojha0324/forge's deploy/local/grafana, two input errors and exit 2 before)."""
    version = doc.get("apiVersion")
    return (isinstance(version, int | float) and not isinstance(version, bool) and "kind" not in doc
            and "metadata" not in doc and any(k in doc for k in _GRAFANA_LISTS))


def _values_name(name: str) -> bool:
    base = os.path.basename(name)
    return base.startswith("values") or base.endswith(("values.yaml", "values.yml"))


def _helm_values(doc: Mapping[str, Any], name: str) -> bool:
    """A Helm values file whose chart switches its workload kind with a top-level ``kind: Deployment`` (or
    StatefulSet): a `kind` but no `apiVersion` and no `metadata`, in a file named as values files are
    (infracloudio/charts' vllm chart). A Kubernetes object always has an `apiVersion`; one that lost it keeps its
    `metadata`, and stays an input error."""
    return "apiVersion" not in doc and "metadata" not in doc and _values_name(name)


#: A SkyPilot task or service (docs.skypilot.co, reference/yaml-spec: `resources`, `num_nodes`, `envs`, `setup`,
#: `run`, `service`, `config`); SkyPilot builds the pod it launches on Kubernetes itself, so the file is no manifest.
SKYPILOT = "SkyPilot task"
#: the fields of SkyPilot's `resources` (reference/yaml-spec: infra, or cloud before 0.10; the hardware and image)
_SKYPILOT_RESOURCES = frozenset({"infra", "cloud", "accelerators", "instance_type", "image_id", "use_spot",
                                 "disk_size", "any_of", "ordered"})


def _skypilot_task(doc: Mapping[str, Any]) -> bool:
    """A SkyPilot task: a `resources` mapping with SkyPilot's fields (:data:`_SKYPILOT_RESOURCES`) and a `run`, a
    `setup` or a `service`. Its `config:` (SkyPilot's own settings, such as `kubernetes.pod_config`) made
    nebius/nebius-ps-services' vLLM tasks read as a Pulumi stack configuration (corpus23)."""
    resources = doc.get("resources")
    return (isinstance(resources, Mapping) and any(k in resources for k in _SKYPILOT_RESOURCES)
            and any(k in doc for k in ("run", "setup", "service")))


#: A Ray Serve config file, for ``serve deploy`` or ``serve run`` against a running Ray cluster (Ray's "Serve Config
#: Files": a top-level `applications` list, each with an `import_path`), Ray Serve LLM's among them
#: (``import_path: ray.serve.llm:build_openai_app`` and its `llm_configs`, ``build_pd_openai_app`` and its
#: `prefill_config` / `decode_config` with vLLM's `engine_kwargs`). No Kubernetes object; the same applications in a
#: KubeRay RayService's `serveConfigV2` are read as its workload.
RAY_SERVE = ("Ray Serve config file (for `serve deploy` or `serve run` on a running Ray cluster, not a Kubernetes "
             "object; the same applications in a KubeRay RayService's serveConfigV2 are read and linted)")


def _ray_serve_config(doc: Mapping[str, Any]) -> bool:
    """A Ray Serve config file (:data:`RAY_SERVE`): a non-empty `applications` list of mappings, each with an
    `import_path`. ray-project/ray's prefill/decode examples, vLLM engines of Ray Serve LLM, were said to be "YAML that
    is not a Kubernetes object", nothing a reader of them would recognise (corpus25)."""
    apps = doc.get("applications")
    return (isinstance(apps, list) and bool(apps)
            and all(isinstance(a, Mapping) and isinstance(a.get("import_path"), str) for a in apps))


def _pulumi_stack_config(doc: Mapping[str, Any]) -> bool:
    """A Pulumi stack's settings (``Pulumi.<stack>.yaml``): its encryption settings, or a `config:` whose keys are
    all namespaced (``aws:region``, ``<project>:<key>``: Pulumi docs, "Configuration", the key format
    ``[<namespace>:]<key-name>``, which `pulumi config set` writes with the project's name)."""
    if "encryptionsalt" in doc or "secretsprovider" in doc:
        return True
    config = doc.get("config")
    return isinstance(config, Mapping) and all(isinstance(k, str) and ":" in k for k in config)


#: A Talos Linux machine configuration (``talosctl gen config``'s controlplane.yaml and worker.yaml, and their patches):
#: "one or more configuration documents separated by ---"; the v1alpha1 document "has its own (legacy) structure"
#: (``version: v1alpha1`` with ``machine`` and ``cluster``), "while every other document" has ``apiVersion: v1alpha1``,
#: a ``kind`` and, if named, a ``name`` (docs.siderolabs.com, talos/v1.7 reference/configuration/overview;
#: HostnameConfig, v1.12). Talos installs the node Kubernetes runs on; it is no Kubernetes object: an ``apiVersion``
#: with no group is the core API's, whose only version is ``v1``.
TALOS = "Talos machine configuration (talosctl's, for the node; not a Kubernetes object)"


def _talos_config(doc: Mapping[str, Any]) -> bool:
    """A document of a Talos machine configuration (:data:`TALOS`): the v1alpha1 document (``version: v1alpha1`` and
    a ``machine`` or ``cluster`` mapping, no ``apiVersion`` nor ``kind``), or another of its documents
    (``apiVersion: v1alpha1``, no group, a ``kind`` and neither ``metadata`` nor ``spec``).
    illMadeCoder/illm-k8s-ai-labs' platform/cluster/controlplane-template.yaml (a v1alpha1 document and a
    HostnameConfig) was an input error "object has no apiVersion" and its repository's lint exited 2 (corpus27)."""
    if doc.get("version") == "v1alpha1" and "apiVersion" not in doc and "kind" not in doc:
        return any(isinstance(doc.get(k), Mapping) for k in ("machine", "cluster"))
    return (doc.get("apiVersion") == "v1alpha1" and isinstance(doc.get("kind"), str)
            and "metadata" not in doc and "spec" not in doc)


#: A Sidero Omni cluster template (``omnictl cluster template sync``): "a YAML file consisting of multiple documents.
#: Each document contains a kind field that specifies the document type" (Cluster, ControlPlane, Workers, Machine;
#: docs.siderolabs.com/omni/reference/cluster-templates), with no ``apiVersion``; the Cluster document names the
#: Kubernetes and Talos versions. Omni builds Talos nodes from it; it is no Kubernetes object.
OMNI = "Omni cluster template (omnictl's, for Talos nodes; not a Kubernetes object)"
_OMNI_KINDS = frozenset({"Cluster", "ControlPlane", "Workers", "Machine"})


def _omni_template(docs: list[Mapping[str, Any]]) -> bool:
    """Whether ``docs`` are an Omni cluster template (:data:`OMNI`): each an Omni kind with no ``apiVersion``,
    ``metadata`` or ``spec``, one of them the Cluster with its ``talos`` mapping. thaynes43/haynes-ops'
    bootstrap/omni/cluster-template.yaml (a Cluster, its ControlPlane, Workers and six Machines) was an input error
    "object has no apiVersion" nine times and its repository's lint exited 2 (corpus29)."""
    return bool(docs) and all(
        isinstance(d.get("kind"), str) and d["kind"] in _OMNI_KINDS
        and "apiVersion" not in d and "metadata" not in d and "spec" not in d
        for d in docs) and any(d.get("kind") == "Cluster" and isinstance(d.get("talos"), Mapping) for d in docs)



#: A SkyShift object (sky-shift/skyshift, ``skyctl apply -f``): SkyShift's own API, which schedules a Job or a Service
#: across the clusters it manages and builds the Kubernetes objects itself. Its documents write a `kind`, `metadata` and
#: `spec` but never an `apiVersion`, and their fields are snake_case (skyshift/templates: JobSpec's `run`, `envs`,
#: `restart_policy` and flat `resources` of `cpus`, `gpus`, `memory`, `disk` or an accelerator's name; ServiceSpec's
#: `primary_cluster` and ports' `target_port`; a Cluster's `manager_type`; FilterPolicySpec's `cluster_filter`).
SKYSHIFT = ("SkyShift object (skyctl's, which schedules it across clusters and builds the Kubernetes objects itself; "
            "not a Kubernetes object)")


def _skyshift_object(doc: Mapping[str, Any]) -> bool:
    """A SkyShift object (:data:`SKYSHIFT`): no `apiVersion`, and a SkyShift kind written in SkyShift's own fields,
    which a Kubernetes object of that kind that lost its `apiVersion` never has (a Job's `spec.template`, a Service
    port's `targetPort`). sky-shift/skyshift's examples (a vLLM Job among them: ``run: vllm serve ...``, ``resources:
    {L4: 1}``) were 33 input errors "object has no apiVersion" and its repository's lint exited 2 (corpus42)."""
    if "apiVersion" in doc or not isinstance(doc.get("kind"), str):
        return False
    kind, meta, spec = doc["kind"], doc.get("metadata"), doc.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    if kind == "Job":
        resources = spec.get("resources")
        return not any(k in spec for k in ("template", "jobTemplate", "containers")) and (
            any(k in spec for k in ("run", "restart_policy", "envs")) or (
                isinstance(resources, Mapping) and bool(resources) and "limits" not in resources
                and "requests" not in resources and isinstance(spec.get("image"), str)))
    if kind in ("Service", "Endpoints"):
        ports = spec.get("ports")
        return "primary_cluster" in spec or (isinstance(ports, list) and any(
            isinstance(q, Mapping) and "target_port" in q for q in ports))
    if kind == "Cluster":
        return isinstance(meta, Mapping) and "manager_type" in meta
    if kind == "FilterPolicy":
        return "cluster_filter" in spec or "labels_selector" in spec
    if kind == "Link":
        return "source_cluster" in spec or "target_cluster" in spec
    return False


#: A Yamale schema: documents whose every value is a validator written as a call, ``str()``, ``int(min=1)``,
#: ``list(include('maintainer'), required=False)``, ``any(str(), num())``, the first document the schema and each
#: later one a definition its ``include('name')`` names (23andMe/Yamale README, "Schema"; the tags of
#: yamale/validators/validators.py). chart-testing validates every chart's Chart.yaml against one
#: (helm/chart-testing etc/chart_schema.yaml; ``chart-yaml-schema`` in ct.yaml), which chart repositories keep at
#: their root beside ct.yaml and lintconf.yaml; its first document writes ``apiVersion: str()``, as a Chart.yaml has
#: an apiVersion. It is no Kubernetes object.
YAMALE = "Yamale schema (chart-testing's chart_schema.yaml, for Chart.yaml files; not a Kubernetes object)"
_YAMALE_VALIDATOR = re.compile(r"(?:str|num|int|bool|enum|day|timestamp|map|list|include|any|subset|null|regex|ip"
                               r"|mac|semver)\(.*\)", re.S)


def _yamale_schema(docs: list[Any]) -> bool:
    """Whether ``docs`` are a Yamale schema (:data:`YAMALE`): all mappings, every value at any depth a validator call
    (a nested mapping is a nested schema). yuanwu2017/llm-d-infra's chart_schema.yaml (``apiVersion: str()``, then
    ``maintainer`` and ``dependency`` definitions) was four input errors "object has no kind / apiVersion" and its
    repository's lint exited 2 (corpus40)."""

    def schema(node: Any) -> bool:
        if isinstance(node, Mapping):
            return bool(node) and all(schema(v) for v in node.values())
        return isinstance(node, str) and _YAMALE_VALIDATOR.fullmatch(node.strip()) is not None

    return bool(docs) and all(isinstance(d, Mapping) and schema(d) for d in docs)

#: A Helm chart repository's index (``helm repo index``; served as ``index.yaml`` beside the packaged charts): an
#: ``apiVersion``, the time it was ``generated`` and its ``entries``, each chart's name to the list of its versions,
#: every one a chart's metadata with its ``urls`` and ``digest`` (helm/helm v3 pkg/repo/index.go, ``IndexFile`` and
#: ``ChartVersion``). Helm downloads charts by it; it is no Kubernetes object, though it writes ``apiVersion: v1``.
HELM_INDEX = "Helm chart repository index (helm repo index's; not a Kubernetes object)"


def _helm_index(doc: Mapping[str, Any]) -> bool:
    """A Helm repository index (:data:`HELM_INDEX`): ``entries`` a non-empty mapping whose every value is a list of
    mappings, each with the ``version`` every chart has, and neither ``kind``, ``metadata`` nor ``spec``.
    hoohooprog/eks-gpu-sharing-scaling-tf's index.yaml (its chart's GitHub Pages repository, committed beside the
    Terraform) was an input error "object has no kind" and its repository's lint exited 2 (corpus34)."""
    entries = doc.get("entries")
    return (isinstance(entries, Mapping) and bool(entries) and not any(k in doc for k in ("kind", "metadata", "spec"))
            and all(isinstance(v, list) and bool(v) and all(isinstance(c, Mapping) and "version" in c for c in v)
                    for v in entries.values()))


#: An Ansible Vault encrypted file: the header ``$ANSIBLE_VAULT;1.1;AES256`` (1.2 adds ``;`` and a vault ID), then the
#: ciphertext as hexadecimal lines of 80 characters (ansible-core lib/ansible/parsing/vault/__init__.py,
#: ``format_vaulttext_envelope``); Ansible reads a whole group_vars or host_vars file so encrypted (docs.ansible.com,
#: "Protecting sensitive data with Ansible vault"). YAML reads it as one plain text, the lines joined by spaces.
ANSIBLE_VAULT = "Ansible Vault encrypted file (ciphertext Ansible decrypts; not a Kubernetes object)"
_VAULT_TEXT = re.compile(r"\$ANSIBLE_VAULT;\d+\.\d+;\w+(?:;[^\s;]+)?(?: [0-9a-fA-F]+)+")


def _ansible_vault(value: Any) -> bool:
    """Whether a document is an Ansible Vault file's text (:data:`ANSIBLE_VAULT`). X-McKay/kubani's
    ansible/group_vars/all/vault.yml was the input error "expected a Kubernetes object (a mapping), found a string"
    and its repository's lint exited 2 (corpus34); any other text where an object should be stays an input error."""
    return isinstance(value, str) and _VAULT_TEXT.fullmatch(value.strip()) is not None


#: A file Ansible reads: a role's tasks, handlers, defaults, variables or metadata, an inventory's group_vars and
#: host_vars (the folders of docs.ansible.com's "Roles" and "Organizing host and group variables"), or a playbook (a
#: list of plays, each with its `hosts` or an `import_playbook`).
ANSIBLE = ("Ansible file (a playbook, a role's tasks or variables; not a Kubernetes object), with a key written twice "
           "that Ansible reads with its last value")
_ANSIBLE_FOLDERS = re.compile(r"(?:^|/)(?:roles/[^/]+/(?:tasks|handlers|defaults|vars|meta)|group_vars|host_vars)/")
_PLAY_KEYS = ("hosts", "import_playbook", "ansible.builtin.import_playbook")


def ansible_file(file: str, docs: list[tuple[int | None, Any]]) -> bool:
    """Whether ``file``, of the parsed ``docs``, is one Ansible reads: by its folder, or as a playbook. Ansible's YAML
    loader keeps a key written twice with its last value and warns ("found a duplicate dict key ... Using last defined
    value only": ansible-core's AnsibleConstructor, the DUPLICATE_YAML_DICT_KEY setting, `warn` by default;
    docs.ansible.com reference_appendices/config.html), so a duplicate key there is Ansible's to warn about, not a
    broken input of this run (corpus34: stianfro/lab's roles/kubernetes-tools/tasks/main.yaml, a task's `mode` written
    twice, made a homelab repository's lint exit 2)."""
    if _ANSIBLE_FOLDERS.search(file.replace(os.sep, "/")):
        return True
    values = [d for _, d in docs if d is not None and not isinstance(d, InputError)]
    return bool(values) and all(
        isinstance(v, list) and bool(v) and all(isinstance(p, Mapping) and any(k in p for k in _PLAY_KEYS) for p in v)
        for v in values)


def _kustomize(doc: Mapping[str, Any]) -> bool:
    return str(doc.get("apiVersion", "")).startswith(_KUSTOMIZE_GROUP) and doc.get("kind") in (
        "Kustomization", "Component")


def _what_yaml(doc: Mapping[str, Any], name: str) -> str:
    """Why a mapping that is no Kubernetes object is not an input, in the words its users know."""
    if _helm_chart(doc):
        return "Helm chart metadata"
    if _helm_index(doc):
        return HELM_INDEX
    if _values_name(name):  # before the words of other tools: values often hold a `config:` or `services:`
        return HELM_VALUES
    if _skypilot_task(doc):  # before Pulumi's words: a SkyPilot task may hold a `config:` of its own
        return SKYPILOT
    if _ray_serve_config(doc):
        return RAY_SERVE
    if _pulumi_stack_config(doc):
        return "Pulumi stack configuration with no `<project>:environment` (no stack of shardwise's components)"
    if "runtime" in doc and "name" in doc:
        return "Pulumi project file"
    if "jobs" in doc and ("on" in doc or True in doc):  # YAML 1.1 reads `on:` as true
        return "CI configuration"
    if "stages" in doc or any(isinstance(v, Mapping) and "script" in v for v in doc.values()):
        return "CI configuration"
    services = doc.get("services")
    if isinstance(services, Mapping) and any(isinstance(v, Mapping) and ("image" in v or "build" in v)
                                             for v in services.values()):
        return "Docker Compose file"
    return "YAML that is not a Kubernetes object"


def yaml_kind(docs: list[tuple[int | None, Any]], name: str) -> str:
    """:data:`KUBERNETES`, :data:`STACK`, or the reason the file is not an input."""
    values = [d for _, d in docs if d is not None and not isinstance(d, DuplicateKey)]  # read all the same
    if not values or any(isinstance(v, InputError) for v in values):
        return KUBERNETES  # empty, or broken: the manifest reader reports each document
    first = values[0]
    if is_shardwise_stack(first):
        return STACK
    if isinstance(first, Mapping) and "apiVersion" not in first and all(isinstance(v, Mapping) for v in values) \
            and _omni_template(values):
        return OMNI
    if _yamale_schema(values):
        return YAMALE
    if all(isinstance(v, Mapping) and _skyshift_object(v) for v in values):
        return SKYSHIFT
    if any(isinstance(v, Mapping) and _k8s_like(v) and not _helm_chart(v) and not _kustomize(v)
           and not _tool_config(v) and not _helm_values(v, name) and not _grafana_provisioning(v)
           and not _talos_config(v) and not _helm_index(v) for v in values):
        return KUBERNETES
    if all(_ansible_vault(v) for v in values):
        return ANSIBLE_VAULT
    if any(not isinstance(v, Mapping | list) for v in values):
        return KUBERNETES  # text or a number where an object should be: an input error, not a skip
    if any(_k8s_like(v) for v in values if isinstance(v, list)):
        return KUBERNETES  # a list of objects: an input error (a manifest is a mapping)
    mappings = [v for v in values if isinstance(v, Mapping)]
    if mappings and all(_kustomize(v) for v in mappings):
        return "Kustomize file"
    if mappings and all(_talos_config(v) for v in mappings):
        return TALOS
    tools = [v for v in mappings if _tool_config(v)]
    if tools:
        return _TOOL_CONFIGS[tools[0]["kind"]]
    if any(_grafana_provisioning(v) for v in mappings):
        return "Grafana provisioning file"
    if mappings:
        return _what_yaml(mappings[0], name)
    return "YAML that is not a Kubernetes object"


#: The top-level keys Pulumi writes: ``pulumi preview --json``'s PreviewDigest (config, steps, diagnostics, duration,
#: changeSummary, maybeCorrupt: pulumi/pulumi sdk/go/common/display/json.go) and ``pulumi stack export``'s
#: UntypedDeployment (version, deployment: sdk/go/common/apitype/core.go).
_PULUMI_KEYS = frozenset({"config", "steps", "diagnostics", "duration", "changeSummary", "maybeCorrupt",
                          "version", "deployment"})

#: Keys of a stack export's deployment object (DeploymentV3) and of a preview step (PreviewStep).
_DEPLOYMENT_KEYS = frozenset({"manifest", "resources", "secrets_providers", "pending_operations"})
_STEP_KEYS = frozenset({"op", "urn", "newState", "oldState"})


def _pulumi_like(data: Any) -> bool:
    """Whether a JSON document that is no readable Pulumi file was still meant to be one: every key is one Pulumi
    writes, or a Pulumi key holds what Pulumi writes there (a deployment with its manifest or resources, steps with
    an op or urn, a change summary object). A key of that name beside keys Pulumi never writes and holding something
    else is another file's: a tokenizer vocabulary's ``"steps": 4831``, a Cloud Build file's ``steps`` of build
    images, an application's ``deployment`` settings."""
    if not isinstance(data, Mapping):
        return False
    if any(k in data for k in ("deployment", "steps", "changeSummary")):
        if all(isinstance(k, str) and k in _PULUMI_KEYS for k in data):
            return True
        dep, steps = data.get("deployment"), data.get("steps")
        if (isinstance(dep, list) or (isinstance(dep, Mapping) and any(k in dep for k in _DEPLOYMENT_KEYS))
                or (isinstance(steps, list) and any(isinstance(s, Mapping) and any(k in s for k in _STEP_KEYS)
                                                   for s in steps))
                or isinstance(data.get("changeSummary"), Mapping)):
            return True
    res = data.get("resources")
    return isinstance(res, list) and any(isinstance(r, Mapping) and "urn" in r for r in res)


def _number_table(data: Any) -> bool:
    """A mapping of names to numbers only: a tokenizer's vocabulary (GPT-2's ``gpt2-vocab.json``, 50,257 tokens with
    their ids, among them ``kind``, ``metadata``, ``spec`` and ``steps``), a label map. A Kubernetes object's kind and
    apiVersion are text and a Pulumi file holds objects, so words of theirs among the keys make it neither."""
    return (isinstance(data, Mapping) and len(data) > 1
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in data.values()))


#: Why a Triton Inference Server vLLM backend's ``model.json`` is not read: the engine arguments Triton hands vLLM's
#: AsyncLLMEngine for a model whose ``config.pbtxt`` says ``backend: "vllm"`` (triton-inference-server/vllm_backend
#: README.md, samples/model_repository/vllm_model/1/model.json). It was "JSON that is not a Kubernetes object", a word
#: that hid the vLLM server it configures (corpus45: redhat-na-ssa/llm-test, Llama-3-8B at tensor_parallel_size 4).
TRITON_VLLM = ("vLLM engine arguments in JSON (a Triton Inference Server vLLM backend's model.json, which Triton "
               "hands vLLM's engine): shardwise reads no Triton model repository, so no capacity or topology rule "
               "looked at this server; the same settings as vLLM flags in a Kubernetes manifest are linted")
#: Engine arguments a vLLM backend's model.json sets beside ``model`` (vLLM's AsyncEngineArgs field names), one of
#: which it must hold to be read as one: a JSON of ``model`` alone is too common a shape to name.
_ENGINE_JSON_KEYS = frozenset({"gpu_memory_utilization", "tensor_parallel_size", "pipeline_parallel_size",
                               "max_model_len", "max_num_seqs", "max_num_batched_tokens", "enforce_eager",
                               "disable_log_requests", "enable_chunked_prefill", "enable_prefix_caching",
                               "kv_cache_dtype", "block_size", "swap_space", "quantization", "trust_remote_code",
                               "download_dir", "dtype", "speculative_model", "speculative_config",
                               "num_speculative_tokens", "enable_lora", "max_lora_rank", "max_loras",
                               "distributed_executor_backend", "cpu_offload_gb", "load_format"})


def _vllm_engine_json(data: Any) -> bool:
    """Whether ``data`` is vLLM engine arguments as a JSON object: a string ``model``, one of
    :data:`_ENGINE_JSON_KEYS`, and only snake_case keys (an AsyncEngineArgs field each)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("model"), str):
        return False
    keys = [k for k in data if isinstance(k, str)]
    return len(keys) == len(data) and any(k in _ENGINE_JSON_KEYS for k in keys) and all(
        k.replace("_", "").isalnum() and k == k.lower() for k in keys)


#: Why a JSON file that is no input of any kind shardwise knows is not read.
GENERIC_JSON = "JSON that is not a Kubernetes object nor a Pulumi preview or state file"


def json_kind(data: Any, name: str) -> str:
    """:data:`PULUMI`, :data:`KUBERNETES`, or the reason a JSON file is not an input."""
    from .pulumi import is_pulumi_json

    if is_pulumi_json(data):
        return PULUMI
    if _pulumi_like(data):
        raise InputError("looks like a Pulumi preview or state file (deployment, steps or resources) but has "
                         "no list of resources with urn and type; expected `pulumi preview --json` or "
                         "`pulumi stack export` output", name, 1)
    if _number_table(data):
        return "JSON table of numbers (a tokenizer vocabulary or an id map), not a Kubernetes object"
    if _k8s_like(data):
        return KUBERNETES
    if (isinstance(data, Mapping) and isinstance(data.get("recipe_image_uri"), str)
            and ("recipe_mode" in data or "recipe_id" in data)):
        return OCI_RECIPE  # read by ocirecipe.py
    if isinstance(data, Mapping) and "shardwise_baseline" in data:
        return "shardwise baseline"  # --create-baseline's file, committed beside the manifests
    if _vllm_engine_json(data):
        return TRITON_VLLM
    return GENERIC_JSON


#: Kinds whose objects belong to no namespace (``kubectl api-resources --namespaced=false`` of Kubernetes, and the
#: cluster-scoped kinds of the add-ons the readers know: Karpenter, Cilium, Calico, the network-policy API, KServe,
#: OME, the GPU Operator, Gateway API's GatewayClass). A release namespace is given to none of them.
CLUSTER_SCOPED_KINDS = frozenset({
    "Namespace", "Node", "PersistentVolume", "ClusterRole", "ClusterRoleBinding", "StorageClass", "CSIDriver",
    "CSINode", "VolumeAttachment", "CustomResourceDefinition", "APIService", "IngressClass", "PriorityClass",
    "RuntimeClass", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
    "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding", "FlowSchema", "PriorityLevelConfiguration", "CertificateSigningRequest",
    "DeviceClass", "ResourceSlice", "GatewayClass", "NodePool", "EC2NodeClass", "NodeClaim", "NodeClass",
    "CiliumClusterwideNetworkPolicy", "GlobalNetworkPolicy", "GlobalNetworkSet", "AdminNetworkPolicy",
    "BaselineAdminNetworkPolicy", "ClusterNetworkPolicy", "ClusterServingRuntime", "ClusterStorageContainer",
    "ClusterBaseModel", "ClusterPolicy", "ClusterIssuer", "ComputeDomain",
})


def fill_namespace(docs: list[tuple[int | None, Any]], namespace: str) -> None:
    """Give each namespaced object of ``docs`` (and of a ``kind: List``'s items) that names no namespace
    ``namespace``, as ``helm install --namespace`` and ``kubectl apply --namespace`` create it there."""
    def fill(obj: Any) -> None:
        if not isinstance(obj, dict):
            return
        if obj.get("kind") == "List" or (isinstance(obj.get("kind"), str) and str(obj["kind"]).endswith("List")
                                         and isinstance(obj.get("items"), list)):
            for item in obj.get("items") or ():
                fill(item)
            return
        meta = obj.get("metadata")
        if not isinstance(meta, dict) or meta.get("namespace") or obj.get("kind") in CLUSTER_SCOPED_KINDS:
            return
        meta["namespace"] = namespace

    for _, doc in docs:
        fill(doc)

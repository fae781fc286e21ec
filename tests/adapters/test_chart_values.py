"""Helm values of charts whose rendering shardwise models, read as the workloads they render: llm-d's
``llm-d-modelservice`` (a values file, or a Flux HelmRelease of it) and bjw-s' ``app-template`` (a Flux HelmRelease).

Fixtures under fixtures/k8s/chartvalues/ (PROVENANCE.md there): public files vendored verbatim, among them the
chart's own example values beside the manifests ``helm template`` rendered from them, and files written in the shapes
home-ops repositories use. Each test asserts every serving group exactly, and what must not be read.
"""

from __future__ import annotations

import os

from repo_paths import FIXTURES
from shardwise.rules.adapters.k8s import load_kubernetes_file, load_kubernetes_text
from shardwise.rules.adapters.k8s.helmrelease import modelled_why, rendered_objects
from shardwise.rules.adapters.k8s.modelservice import version_why
from shardwise.rules.adapters.load import load_file, load_text
from shardwise.rules.adapters.yamlsrc import load_documents
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules
from shardwise.rules.model import UNKNOWN, Inventory

FIX = os.path.join(FIXTURES, "k8s", "chartvalues")


def path(name: str) -> str:
    return os.path.join(FIX, name)


def show(v):
    return "UNKNOWN" if v is UNKNOWN else v


def groups(inv: Inventory) -> list[tuple]:
    """(kind, namespace, name, line, model, TP, DP, max_model_len, GPUs per pod, resource, replicas, pods per group,
    (pool, its GPU))"""
    out = []
    for g in inv.groups:
        e, p = g.engine, g.pool
        out.append((g.kind, g.namespace, g.name, g.location.line, show(e.model), show(e.tensor_parallel_size),
                    show(e.data_parallel_size), e.max_model_len, show(g.gpus_per_pod), g.accelerator_resource,
                    show(g.replicas), show(g.pods_per_group), (p.name, p.gpu.name if p.gpu else None) if p else None))
    return out


def findings(inv: Inventory) -> list[tuple[str, str, int | None]]:
    return sorted((f.code, f.subject, f.location.line) for f in run_rules(ALL_RULES, inv) if f.level == "mandatory")


# --- llm-d-modelservice values -----------------------------------------------------------------------------------


def test_modelservice_values_read_as_the_chart_renders_them():
    # the chart's own example (values-pd.yaml) and what helm template renders from it (output-pd.yaml, chart
    # v0.4.12): the same two Deployments, model from modelArtifacts.uri's template, one GPU each (tensor 1)
    values, rendered = load_file(path("values-pd.yaml")), load_kubernetes_file(path("output-pd.yaml"))
    assert groups(values) == [
        ("Deployment", "default", "llm-d-modelservice-decode", 28, "facebook/opt-125m", 1, 1, None, 1,
         "nvidia.com/gpu", 1, 1, None),
        ("Deployment", "default", "llm-d-modelservice-prefill", 67, "facebook/opt-125m", 1, 1, None, 1,
         "nvidia.com/gpu", 1, 1, None),
    ]
    assert [g[4:] for g in groups(values)] == [g[4:] for g in groups(rendered)]
    assert ([g.engine.port for g in values.groups], [g.engine.port for g in rendered.groups]) == ([8200, 8000],) * 2
    assert values.skipped_files == [] and values.errors == []


def test_modelservice_values_of_a_guide_with_vllm_args():
    # yeqcharlotte/router's DeepSeek-V3.1 values: modelCommand vllmServe, tensor 8 and 8 GPUs written (every chart
    # version renders 8)
    inv = load_file(path("deepseek-v31-llm-d-values.yaml"))
    assert groups(inv) == [
        ("Deployment", "default", "llm-d-modelservice-decode", 26, "deepseek-ai/DeepSeek-V3.1", 8, 1, 32000, 8,
         "nvidia.com/gpu", 1, 1, None),
        ("Deployment", "default", "llm-d-modelservice-prefill", 98, "deepseek-ai/DeepSeek-V3.1", 8, 1, 32000, 8,
         "nvidia.com/gpu", 1, 1, None),
    ]


def test_modelservice_values_that_chart_versions_render_differently_are_unknown():
    # llm-d's wide-EP guide: multinode, parallelism data 2 tensor 1 and 8 GPUs written. v0.3 writes
    # nvidia.com/gpu: 1 (tensor) over the 8 and sizes the LeaderWorkerSet by data (2); v0.4 keeps the 8 and sizes
    # it by workers (1): both unknown. The prefill's data 1 is 1 in both; its DP is the script's $((...)), unknown.
    # Both select CoreWeave's gpu.nvidia.com/model=H200 (acceleratorTypes.labelKey): read since gaps15.
    inv = load_file(path("ms-wide-ep-values.yaml"))
    assert groups(inv) == [
        ("LeaderWorkerSet", "default", "llm-d-modelservice-decode", 70, "deepseek-ai/DeepSeek-R1-0528", 1,
         "UNKNOWN", None, "UNKNOWN", "nvidia.com/gpu", 1, "UNKNOWN", ("model=H200", "H200-141GB")),
        ("LeaderWorkerSet", "default", "llm-d-modelservice-prefill", 209, "deepseek-ai/DeepSeek-R1-0528", 1,
         "UNKNOWN", None, "UNKNOWN", "nvidia.com/gpu", 1, 1, ("model=H200", "H200-141GB")),
    ]
    # what blocks is what the values write: SYS_RAWIO on both workers; no SW003 on the arithmetic
    assert findings(inv) == [
        ("SW309", "LeaderWorkerSet default/llm-d-modelservice-decode", 172),
        ("SW309", "LeaderWorkerSet default/llm-d-modelservice-prefill", 310),
    ]


VALUES = """\
modelArtifacts:
  uri: hf://Qwen/Qwen3-32B
  name: qwen3-32b
decode:
  replicas: 3
  parallelism:
    tensor: 2
  acceleratorTypes:
    labelKey: node.kubernetes.io/instance-type
    labelValues: [p5.48xlarge]
  containers:
  - name: vllm
    image: ghcr.io/llm-d/llm-d-cuda:v0.3.0
    modelCommand: vllmServe
    args: [--max-model-len, "32768"]
    mountModelVolume: true
prefill:
  create: false
  containers:
  - name: vllm
    image: ghcr.io/llm-d/llm-d-cuda:v0.3.0
    modelCommand: vllmServe
"""


def test_modelservice_values_written_in_the_shape_of_the_guides():
    # vllmServe with tensor 2 and no GPU count written: both versions request 2; the accelerator types are a
    # required node affinity; prefill has create: false
    inv = load_text(VALUES, "ms-values.yaml")
    assert groups(inv) == [
        ("Deployment", "default", "llm-d-modelservice-decode", 5, "Qwen/Qwen3-32B", 2, 1, 32768, 2, "nvidia.com/gpu",
         3, 1, ("instance-type=p5.48xlarge", "H100-SXM-80GB")),
    ]
    assert inv.groups[0].engine.extra.get("served_model_name") == ["qwen3-32b"]
    # dataLocal 2 without a written count: v0.3 requests tensor (2), v0.4 dataLocal x tensor (4): unknown
    inv = load_text(VALUES.replace("    tensor: 2\n", "    tensor: 2\n    dataLocal: 2\n"), "ms-values.yaml")
    assert [show(g.gpus_per_pod) for g in inv.groups] == ["UNKNOWN"]
    # a written count equal to tensor (2) with dataLocal 2: v0.3.0 and v0.3.17 on request 2, but v0.3.6 to v0.3.16
    # write dataLocal x tensor (4) over it (charts/llm-d-modelservice/templates/_helpers.tpl, "resources"): unknown
    two = VALUES.replace("    mountModelVolume: true\n", "    mountModelVolume: true\n    resources:\n"
                         "      limits: {nvidia.com/gpu: 2}\n      requests: {nvidia.com/gpu: 2}\n")
    assert [show(g.gpus_per_pod) for g in load_text(two, "ms-values.yaml").groups] == [2]
    inv = load_text(two.replace("    tensor: 2\n", "    tensor: 2\n    dataLocal: 2\n"), "ms-values.yaml")
    assert [show(g.gpus_per_pod) for g in inv.groups] == ["UNKNOWN"]


def test_values_of_other_charts_stay_skipped():
    # the chart's default values (the inference simulator) and values of another chart are no workload
    assert load_text("decode:\n  containers:\n  - name: vllm\n    image: x\n", "values.yaml").skipped_files == [
        ("values.yaml", "Helm values")]
    inv = load_text("modelArtifacts: {uri: hf://a/b}\ndecode:\n  containers:\n  - name: vllm\n"
                    "    image: ghcr.io/llm-d/llm-d-inference-sim:v0.3.0\n    modelCommand: imageDefault\n",
                    "values.yaml")
    # readers18: the modelservice chart's default values deploy the inference simulator; no workload, and the decode
    # Deployment says it was recognised as a simulator (SW005) where the file was only counted as Helm values
    assert (inv.groups, inv.skipped_files) == ([], [])
    assert [(i.subject, i.other_engine, i.location.line) for i in inv.launch_issues] == [
        ("Deployment default/llm-d-modelservice-decode", "a simulator", 5)]


# --- Flux HelmReleases ------------------------------------------------------------------------------------------


_LLMD_APP = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ms, namespace: argocd}
spec:
  destination: {server: https://kubernetes.default.svc, namespace: llm}
  source:
    repoURL: https://llm-d-incubation.github.io/llm-d-modelservice
    chart: llm-d-modelservice
    targetRevision: v0.2.3
    helm:
      values: |
        modelArtifacts: {uri: hf://Qwen/Qwen3-0.6B}
        decode:
          containers:
          - name: vllm
            image: IMAGE
            modelCommand: imageDefault
"""


def test_app_template_releases():
    inv = load_kubernetes_file(path("app-template-releases.yaml"))
    assert groups(inv) == [
        # two controllers: <release>-<controller>; the pod options from defaultPodOptions
        ("Deployment", "ai", "chat-vllm", 30, "Qwen/Qwen2.5-7B-Instruct", 2, 1, 32768, 2, "nvidia.com/gpu", 2, 1,
         ("instance-type=g6e.12xlarge", "L40S")),
        # one controller: the release's name; command written as a string
        ("Deployment", "ai", "embed", 110, "Qwen/Qwen2.5-7B-Instruct", 1, 1, 16384, 1, "nvidia.com/gpu", 1, 1,
         ("instance-type=g6e.12xlarge", "L40S")),
    ]
    # valuesFrom: values from the cluster, not read (SW005 says why)
    assert [(li.subject, li.location.line) for li in inv.launch_issues] == [("HelmRelease ai/from-cluster", 143)]
    # sharding a model one L40S holds blocks, at the HelmRelease's line; /dev/shm comes from persistence (no SW401)
    assert findings(inv) == [("SW104", "Deployment ai/chat-vllm", 40)]
    # the shm item mounted elsewhere: TP2 without a memory /dev/shm blocks, at the container
    with open(path("app-template-releases.yaml"), encoding="utf-8") as fh:
        text = fh.read().replace("- path: /dev/shm", "- path: /dev/shm-cache")
    assert findings(load_kubernetes_text(text, "f.yaml")) == [("SW104", "Deployment ai/chat-vllm", 40),
                                                            ("SW401", "Deployment ai/chat-vllm", 34)]


def test_app_template_rendering():
    with open(path("app-template-releases.yaml"), encoding="utf-8") as fh:
        docs = load_documents(fh.read(), "f.yaml")
    chat = rendered_objects(docs[0][1])
    assert [o["metadata"]["name"] for o in chat] == ["chat-vllm", "chat-webui"]
    pod = chat[0]["spec"]["template"]["spec"]
    c = pod["containers"][0]
    assert c["env"] == [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token"}}},
                        {"name": "VLLM_WORKER_MULTIPROC_METHOD", "value": "spawn"}]
    # a probe that is not custom: HTTP on the port of the controller's service, the chart's timings
    assert c["livenessProbe"] == {"initialDelaySeconds": 0, "failureThreshold": 3, "timeoutSeconds": 1,
                                  "periodSeconds": 10, "httpGet": {"path": "/health", "scheme": "HTTP", "port": 8000}}
    assert c["startupProbe"] == {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10,
                                 "failureThreshold": 90}
    assert c["volumeMounts"] == [{"name": "models", "mountPath": "/root/.cache/huggingface"},
                                 {"name": "shm", "mountPath": "/dev/shm"}]
    assert pod["volumes"] == [{"name": "models", "persistentVolumeClaim": {"claimName": "hf-cache"}},
                              {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}]
    # advancedMounts name the vllm controller only
    assert "volumes" not in chat[1]["spec"]["template"]["spec"]
    assert rendered_objects(docs[2][1]) is None  # valuesFrom


# corpus29: home-ops trees run Open WebUI through app-template with the env written as a list and a boolean value
# (jahanson/theshire, rafaribe/home-ops; no licence, the shape written here). The common library writes a number or
# a boolean as text in either form (lib/container/fields/_env.tpl, common-4.1.1): Kubernetes gets "true", "3".
_ENV_LIST_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: &app open-webui
  namespace: ai
spec:
  chartRef:
    kind: OCIRepository
    name: app-template
  values:
    controllers:
      open-webui:
        containers:
          app:
            image:
              repository: ghcr.io/open-webui/open-webui
              tag: v0.6.5
            env:
              - name: ENABLE_RAG_WEB_SEARCH
                value: true
              - name: RAG_WEB_SEARCH_RESULT_COUNT
                value: 3
              - name: RAG_WEB_SEARCH_ENGINE
                value: searxng
              - name: WEBUI_SECRET_KEY
                valueFrom:
                  secretKeyRef:
                    name: *app
                    key: secret-key
"""


def test_app_template_env_list_values_are_written_as_text():
    (doc,) = [d for _, d in load_documents(_ENV_LIST_RELEASE, "f.yaml")]
    (deployment,) = rendered_objects(doc)
    env = deployment["spec"]["template"]["spec"]["containers"][0]["env"]
    assert env == [{"name": "ENABLE_RAG_WEB_SEARCH", "value": "true"},
                   {"name": "RAG_WEB_SEARCH_RESULT_COUNT", "value": "3"},
                   {"name": "RAG_WEB_SEARCH_ENGINE", "value": "searxng"},
                   {"name": "WEBUI_SECRET_KEY", "valueFrom": {"secretKeyRef": {"name": "open-webui",
                                                                               "key": "secret-key"}}}]
    assert (env[0].line, env[1].line) == (19, 21)  # each item keeps its line
    inv = load_kubernetes_text(_ENV_LIST_RELEASE, "f.yaml")  # was: "...env[0].value (ENABLE_RAG_WEB_SEARCH):
    assert groups(inv) == [] and findings(inv) == []  # expected a string, found a boolean (true)"


def test_public_app_template_releases():
    # chingcodes/home-ops: ROCm vLLM on one AMD GPU, probes disabled; no pool, so not sized
    inv = load_kubernetes_file(path("chingcodes-vllm-helmrelease.yaml"))
    assert groups(inv) == [("Deployment", "default", "vllm", 22, "Qwen/Qwen2-1.5B-Instruct", 1, 1, None, 1,
                            "amd.com/gpu", 1, 1, None)]
    assert findings(inv) == []
    # timblakely/cogito-ops: two controllers (llm-vllm, the name its driftDetection targets, and llm-proxy), the
    # vLLM one scaled to 0; VLLM_SERVER_DEV_MODE=1 in its env blocks as in any pod
    inv = load_kubernetes_file(path("timblakely-llm-helmrelease.yaml"))
    assert groups(inv) == [("Deployment", "default", "llm-vllm", 42, "google/gemma-4-31B-it-qat-w4a16-ct", 2, 1,
                            229376, 4, "nvidia.com/gpu", 0, 1, ("hostname=iggy", None))]
    assert findings(inv) == [("SW306", "Deployment default/llm-vllm", 108)]


MODELSERVICE_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: qwen
  namespace: llm-d
spec:
  chart:
    spec:
      chart: llm-d-modelservice
      version: v0.3.0
      sourceRef: {kind: HelmRepository, name: llm-d-modelservice}
  values:
"""


def test_modelservice_helm_release_and_one_of_a_chart_in_this_checkout():
    text = MODELSERVICE_RELEASE + "".join(f"    {ln}\n" for ln in VALUES.splitlines())
    inv = load_kubernetes_text(text, "hr.yaml")
    assert groups(inv) == [
        ("Deployment", "llm-d", "qwen-llm-d-modelservice-decode", 17, "Qwen/Qwen3-32B", 2, 1, 32768, 2,
         "nvidia.com/gpu", 3, 1, ("instance-type=p5.48xlarge", "H100-SXM-80GB")),
    ]
    # a chart from a GitRepository is the GitOps reader's to render (gitops.py): not read here
    local = text.replace("kind: HelmRepository", "kind: GitRepository")
    assert rendered_objects(load_documents(local, "hr.yaml")[0][1]) is None


def test_modelservice_release_versions_not_modelled_say_so():
    """readers14: a HelmRelease or Application naming an exact llm-d-modelservice release that renders its workloads
    unlike v0.2.16 and v0.3.0 to v0.4.12 (tags read, ``_helpers.tpl``) is not read as those render it: SW005 names
    the release and what it renders differently. A range resolves in the cluster to the newest match: read."""
    text = MODELSERVICE_RELEASE + "".join(f"    {ln}\n" for ln in VALUES.splitlines())
    for version, read in (("v0.2.16", True), ("v0.4.12", True), ("0.2.x", True), ("v0.2.7", False),
                          ("v0.2.14", False), ("v0.2.15", False), ("0.0.20", False), ("v0.5.0", False)):
        obj = load_documents(text.replace("version: v0.3.0", f"version: {version}"), "hr.yaml")[0][1]
        assert (rendered_objects(obj) is not None) is read, version
    assert version_why("v0.2.5") == (
        "llm-d-modelservice v0.2.5 renders the accelerator request only above parallelism.tensor 1 and always as "
        "nvidia.com/gpu (v0.2.8 on write it from tensor 1, of accelerator.type's resource): not modelled (shardwise "
        "reads v0.2.16 and v0.3.0 to v0.4.12)")
    assert version_why("v0.2.9") == (
        "llm-d-modelservice v0.2.9 takes vllmServe's and imageDefault's --tensor-parallel-size from the container's "
        "own parallelism, not the role's, while the GPU count follows the role's (v0.2.15 fixed it): not modelled "
        "(shardwise reads v0.2.16 and v0.3.0 to v0.4.12)")
    assert version_why("v0.2.15") == (
        "llm-d-modelservice v0.2.15 passes vllmServe's --tensor-parallel-size as the text \"$TP_SIZE\", which "
        "Kubernetes does not expand (v0.2.16 fixed it): not modelled (shardwise reads v0.2.16 and v0.3.0 to "
        "v0.4.12)")
    old = text.replace("version: v0.3.0", "version: v0.2.3")
    inv = load_text(old, "hr.yaml")
    # its values are the chart's, not a pod spec: no input error for a container naming no model (it was one), and
    # SW005 says why at the modelCommand that runs vLLM
    assert not inv.groups and not inv.errors
    assert [(f.code, f.location.line, f.level, f.message) for f in run_rules(ALL_RULES, inv)
            if f.code == "SW005"] == [("SW005", 26, "advisory", (
                "not read: it mentions vLLM (llm-d-modelservice's modelCommand vllmServe (vLLM) in its Helm values) "
                "but Flux renders the Helm chart it names in the cluster, so its pods are not in the inputs: lint the "
                "chart rendered with these values (helm template, with the values or parameters set here)"))]
    # a release of a version read but with valuesFrom (not read): was an input error (exit 2), now SW005 too
    vf = text.replace("  values:\n", "  valuesFrom: [{kind: ConfigMap, name: qwen-values}]\n  values:\n", 1)
    inv_vf = load_text(vf, "hr.yaml")
    assert not inv_vf.errors and not inv_vf.groups
    assert [(f.code, f.location.line) for f in run_rules(ALL_RULES, inv_vf) if f.code == "SW005"] == [("SW005", 27)]
    # llm-d's inference simulator (Apocrathia/homelab's release, triaged: no vLLM engine) mentions no vLLM
    sim = load_text(old.replace("ghcr.io/llm-d/llm-d-cuda:v0.3.0", "ghcr.io/llm-d/llm-d-inference-sim:v0.6.1"),
                    "hr.yaml")
    assert [f.code for f in run_rules(ALL_RULES, sim) if f.code == "SW005"] == []
    # the same values as a text (Argo CD's helm.values, small16): the simulator mentions no vLLM there either, and
    # the llm-d image's modelCommand still does, at the values' line
    app = (_LLMD_APP.replace("IMAGE", "ghcr.io/llm-d/llm-d-inference-sim:v0.6.1"))
    assert [f.code for f in run_rules(ALL_RULES, load_text(app, "app.yaml")) if f.code == "SW005"] == []
    app = _LLMD_APP.replace("IMAGE", "ghcr.io/llm-d/llm-d-cuda:v0.3.0")
    assert [(f.location.line, f.message.split(") but")[0]) for f in run_rules(ALL_RULES, load_text(app, "app.yaml"))
            if f.code == "SW005"] == [(11, "not read: it mentions vLLM (llm-d-modelservice's modelCommand imageDefault "
                                          "(vLLM) in its Helm values")]
    # a run from a checkout gives the GitOps reader's words (gitops.py): the release and what it renders otherwise
    spec = load_documents(old, "hr.yaml")[0][1]["spec"]
    assert modelled_why("llm-d-modelservice", "v0.2.3", spec, spec["values"]) == version_why("v0.2.3")


# --- vLLM production-stack (vllm-stack) releases; Argo CD Applications of Helm-repository charts ----------------


def test_vllm_stack_releases_and_applications():
    inv = load_kubernetes_file(path("vllm-stack-releases.yaml"))
    assert groups(inv) == [
        # 0.1.12: <release>-<name>-deployment-vllm per modelSpec entry, TP and GPUs from vllmConfig and requestGPU,
        # nodeSelectorTerms as a required node affinity; the raySpec entry (KubeRay) and the disabled one: none
        ("Deployment", "ai", "llm-llama8b-deployment-vllm", 27, "meta-llama/Llama-3.1-8B-Instruct", 2, 1, 32768, 2,
         "nvidia.com/gpu", 2, 1, ("instance-type=p5.48xlarge", "H100-SXM-80GB")),
        # keda.enabled: no replicas written (KEDA scales it)
        ("Deployment", "ai", "llm-qwen7b-deployment-vllm", 65, "Qwen/Qwen2.5-7B-Instruct", 1, 1, 16384, 1,
         "nvidia.com/gpu", 1, 1, ("instance-type=g6e.xlarge", "L40S")),
        # 0.1.5
        ("Deployment", "ai", "legacy-mistral-deployment-vllm", 101, "mistralai/Mistral-7B-Instruct-v0.3", 2, 1, 8192,
         1, "nvidia.com/gpu", 1, 1, None),
        # an Argo CD Application: helm.valuesObject, releaseName, destination namespace
        ("Deployment", "serving", "chat-qwen32b-deployment-vllm", 158, "Qwen/Qwen2.5-32B-Instruct", 4, 1, 32768, 4,
         "nvidia.com/gpu", 1, 1, ("instance-type=g6e.12xlarge", "L40S")),
        # an Argo CD Application of app-template: helm.values, a YAML text read at its own lines
        ("Deployment", "serving", "embed", 193, "Qwen/Qwen3-Embedding-0.6B", 1, 1, 8192, 1, "nvidia.com/gpu", 1, 1,
         ("instance-type=g6e.xlarge", "L40S")),
    ]
    # a version range, and $values files: not read, SW005 says why
    assert [(li.subject, li.location.line) for li in inv.launch_issues] == [
        ("HelmRelease ai/floating", 131), ("Application argocd/from-git-values", 227)]
    # what SW005 says in place of "not fetched" (the GitOps reader's words, gitops.py, for a run from a checkout)
    assert modelled_why("vllm-stack", ">=0.1.10", {}) == (
        "shardwise reads the vllm-stack chart's values at an exact release 0.1.3 to 0.1.12, and this one names "
        "'>=0.1.10' (a range or none is resolved in the cluster; another release is not modelled)")
    assert modelled_why("vllm-stack", "0.1.12", {"valueFiles": ["$values/serving/vllm-stack.yaml"]}) == (
        "its valueFiles (or fileParameters) are files the inputs do not hold: its values are not known here")
    assert modelled_why("vllm-stack", "0.1.12", {}) is None and modelled_why("other", None, {}) is None
    # TP2 for a model one H100 holds blocks; 0.1.5's TP2 on requestGPU 1 blocks; the chart's /dev/shm (written
    # with tensorParallelSize) keeps SW401 quiet
    assert findings(inv) == [("SW104", "Deployment ai/llm-llama8b-deployment-vllm", 40),
                             ("SW204", "Deployment ai/legacy-mistral-deployment-vllm", 101)]


def test_vllm_stack_rendering_by_release():
    with open(path("vllm-stack-releases.yaml"), encoding="utf-8") as fh:
        docs = load_documents(fh.read(), "f.yaml")
    rendered = rendered_objects(docs[0][1])
    assert rendered is not None
    router, llm = rendered[0], rendered[1:]
    assert [o["metadata"]["name"] for o in rendered] == [
        "llm-deployment-router", "llm-llama8b-deployment-vllm", "llm-qwen7b-deployment-vllm"]
    assert router["spec"]["template"]["spec"]["containers"][0] == {
        "name": "router-container", "image": "lmcache/lmstack-router:latest",
        "args": ["--host", "0.0.0.0", "--port", "8000", "--service-discovery", "k8s", "--k8s-namespace", "ai",
                 # 0.1.8 on (review14): `--k8s-service-discovery-type {{ default "pod-ip" ... }}`
                 "--k8s-service-discovery-type", "pod-ip",
                 "--k8s-label-selector", "environment=test,release=test", "--routing-logic", "roundrobin"]}
    assert llm[0]["spec"]["template"]["metadata"]["labels"] == {
        "model": "llama8b", "helm-release-name": "llm", "environment": "test", "release": "test"}
    assert "replicas" not in llm[1]["spec"]  # keda.enabled
    pod = llm[0]["spec"]["template"]["spec"]
    c = pod["containers"][0]
    assert c["command"] == ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--host", "0.0.0.0", "--port", "8000",
                            "--no-enable-prefix-caching", "--max-model-len", "32768", "--tensor-parallel-size", "2",
                            "--gpu_memory_utilization", "0.9"]
    assert c["resources"] == {"requests": {"memory": "64Gi", "cpu": "8", "nvidia.com/gpu": "2"},
                              "limits": {"nvidia.com/gpu": "2"}}
    assert c["startupProbe"] == {"initialDelaySeconds": 15, "periodSeconds": 10, "failureThreshold": 60,
                                 "httpGet": {"path": "/health", "port": 8000}}
    assert c["securityContext"] == {"runAsNonRoot": False}
    assert c["volumeMounts"] == [{"name": "shm", "mountPath": "/dev/shm"}]
    assert pod["volumes"] == [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "20Gi"}}]
    assert (pod["runtimeClassName"], pod["tolerations"]) == (
        "nvidia", [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])
    # 0.1.5 writes securityContext twice: SYS_PTRACE, then containerSecurityContext (default runAsNonRoot: false),
    # which wins; with containerSecurityContext emptied, SYS_PTRACE holds
    legacy = (rendered_objects(docs[1][1]) or [])[1:]
    assert legacy
    assert legacy[0]["spec"]["template"]["spec"]["containers"][0]["securityContext"] == {"runAsNonRoot": False}
    docs[1][1]["spec"]["values"]["servingEngineSpec"]["containerSecurityContext"] = None
    assert rendered_objects(docs[1][1])[1]["spec"]["template"]["spec"]["containers"][0][  # type: ignore[index]
        "securityContext"] == {"capabilities": {"add": ["SYS_PTRACE"]}}
    # before 0.1.8 no readiness probe; before 0.1.10 a probe is the value as written (no field defaulted)
    legacy_c = legacy[0]["spec"]["template"]["spec"]["containers"][0]
    assert "readinessProbe" not in legacy_c and "readinessProbe" in c
    docs[1][1]["spec"]["values"]["servingEngineSpec"]["livenessProbe"] = {"httpGet": {"path": "/health"}}
    assert rendered_objects(docs[1][1])[1]["spec"]["template"]["spec"]["containers"][0][  # type: ignore[index]
        "livenessProbe"] == {"initialDelaySeconds": 15, "failureThreshold": 3, "periodSeconds": 10,
                             "httpGet": {"path": "/health", "port": 8000}}  # merged over the chart's default
    docs[1][1]["spec"]["values"]["servingEngineSpec"]["livenessProbe"] = {"initialDelaySeconds": None,
                                                                          "httpGet": {"path": "/health"}}
    assert rendered_objects(docs[1][1])[1]["spec"]["template"]["spec"]["containers"][0][  # type: ignore[index]
        "livenessProbe"] == {"failureThreshold": 3, "periodSeconds": 10, "httpGet": {"path": "/health", "port": 8000}}
    del docs[1][1]["spec"]["values"]["servingEngineSpec"]["livenessProbe"]
    # 0.1.4 sets hostIPC and hostPID on every engine pod
    docs[1][1]["spec"]["chart"]["spec"]["version"] = "0.1.4"
    pod4 = rendered_objects(docs[1][1])[1]["spec"]["template"]["spec"]  # type: ignore[index]
    assert (pod4["hostIPC"], pod4["hostPID"]) == (True, True)
    del docs[1][1]["spec"]["values"]["servingEngineSpec"]["containerSecurityContext"]
    docs[1][1]["spec"]["chart"]["spec"]["version"] = "0.1.5"
    assert rendered_objects(docs[2][1]) is None  # version ">=0.1.10"
    # a required value missing (requestCPU, with no resources): helm renders nothing, and SW005 says so
    entry = docs[1][1]["spec"]["values"]["servingEngineSpec"]["modelSpec"][0]
    del entry["requestCPU"]
    assert rendered_objects(docs[1][1]) == []
    assert modelled_why("vllm-stack", "0.1.5", docs[1][1]["spec"], docs[1][1]["spec"]["values"]) == (
        "the chart refuses its values (servingEngineSpec.modelSpec[0] has no requestCPU, which it requires): it "
        "renders nothing")
    entry["requestCPU"] = 6
    # the same values at 0.1.12: the chart's containerSecurityContext, no capability; emptied, none written
    release = docs[1][1]
    release["spec"]["chart"]["spec"]["version"] = "0.1.12"
    container = rendered_objects(release)[1]["spec"]["template"]["spec"]["containers"][0]  # type: ignore[index]
    assert container["securityContext"] == {"runAsNonRoot": False}
    release["spec"]["values"]["servingEngineSpec"]["containerSecurityContext"] = None
    container = rendered_objects(release)[1]["spec"]["template"]["spec"]["containers"][0]  # type: ignore[index]
    assert "securityContext" not in container


def test_public_vllm_stack_releases():
    # amasolov/home-ops: 0.1.5, a CPU-only image with requestGPU 0: a workload with no accelerator, no blocking
    inv = load_kubernetes_file(path("amasolov-vllm-stack-helmrelease.yaml"))
    assert groups(inv) == [("Deployment", "default", "vllm-nm-llama-31-8b-deployment-vllm", 34,
                            "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", 1, 1, 16384, None, None, 1, 1, None)]
    assert findings(inv) == [] and inv.launch_issues == []
    # teo/homelab-gitops: its postRenderers patch the rendered Deployment: not read (SW005 says why) ...
    with open(path("teo-vllm-stack-helmrelease.yaml"), encoding="utf-8") as fh:
        text = fh.read()
    inv = load_kubernetes_text(text, "teo.yaml")
    assert (inv.groups, [(li.subject, li.location.line) for li in inv.launch_issues]) == ([], [("HelmRelease llm/vllm",
                                                                                                 77)])
    assert modelled_why("vllm-stack", "0.1.12", load_documents(text, "teo.yaml")[1][1]["spec"]) == (
        "its postRenderers (kustomize patches over the rendered chart) are Flux's to apply: not rendered")
    # ... and without them, 0.1.12's Deployment: its own resources (one GPU), TP1, the values' startup probe
    inv = load_kubernetes_text(text[:text.index("  postRenderers:")] + text[text.index("  values:"):], "teo.yaml")
    assert groups(inv) == [("Deployment", "llm", "vllm-qwen36-35b-a3b-nvfp4-deployment-vllm", 54,
                            "nvidia/Qwen3.6-35B-A3B-NVFP4", 1, 1, 32768, 1, "nvidia.com/gpu", 1, 1, None)]
    assert findings(inv) == []


# --- input errors name the values key ----------------------------------------------------------------------------


def test_input_errors_name_the_values_key():
    # a value Kubernetes refuses, written in Helm values: the error names the key written, and what it renders
    hr = MODELSERVICE_RELEASE + "".join(f"    {ln}\n" for ln in VALUES.splitlines())
    hr = hr.replace("replicas: 3", "replicas: three")
    assert "replicas: three" in hr
    inv = load_text(hr, "hr.yaml")
    assert [str(e) for e in inv.errors] == [
        "hr.yaml:17: values.decode.replicas (rendered as spec.replicas): expected an integer, got 'three'"]
    # the same values as a values file: the key from its top
    inv = load_text(VALUES.replace("replicas: 3", "replicas: three"), "ms-values.yaml")
    assert [str(e) for e in inv.errors] == [
        "ms-values.yaml:5: decode.replicas (rendered as spec.replicas): expected an integer, got 'three'"]
    # an Argo CD Application's values text, and production-stack's replicaCount rendered as the replicas
    with open(path("vllm-stack-releases.yaml"), encoding="utf-8") as fh:
        text = fh.read()
    bad = text.replace("nvidia.com/gpu: 1\n            pod:", "nvidia.com/gpu: one\n            pod:").replace(
        "replicaCount: 2\n", "replicaCount: two\n")
    assert bad.count("one") == text.count("one") + 1
    inv = load_text(bad, "f.yaml")
    assert [str(e) for e in inv.errors] == [
        "f.yaml:31: values.servingEngineSpec.modelSpec[0].replicaCount (rendered as spec.replicas): expected an "
        "integer, got 'two'",
        "f.yaml:201: helm.values.controllers.embed.containers.app.resources.limits.nvidia.com/gpu (rendered as "
        "resources.limits.nvidia.com/gpu): expected a whole number, got 'one' (not a Kubernetes quantity)"]


def test_vllm_stack_empty_vllm_config_renders_no_flag():
    """review13: the chart writes the vllmConfig flags inside ``{{- with $modelSpec.vllmConfig }}``
    (helm/templates/deployment-vllm-multi.yaml at vllm-stack-0.1.4 to 0.1.12), and Go's templates take a map of
    length zero as false: ``vllmConfig: {}`` renders no ``--no-enable-prefix-caching``, which was read before."""
    text = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: llm, namespace: ai}
spec:
  chart:
    spec: {chart: vllm-stack, version: 0.1.12, sourceRef: {kind: HelmRepository, name: vllm}}
  values:
    servingEngineSpec:
      modelSpec:
        - name: qwen
          repository: vllm/vllm-openai
          tag: v0.11.0
          modelURL: Qwen/Qwen2.5-7B-Instruct
          replicaCount: 1
          requestCPU: 4
          requestMemory: 32Gi
          requestGPU: 1
          vllmConfig: {}
"""
    _router, obj = rendered_objects(load_documents(text, "f.yaml")[0][1]) or []
    assert obj["spec"]["template"]["spec"]["containers"][0]["command"] == [
        "vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--host", "0.0.0.0", "--port", "8000"]


_ROUTED = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: chat, namespace: llm}
spec:
  chart:
    spec: {chart: vllm-stack, version: "0.1.12", sourceRef: {kind: HelmRepository, name: vllm}}
  values:
    servingEngineSpec:
      labels: {environment: prod}
      modelSpec:
        - name: llama
          repository: vllm/vllm-openai
          tag: v0.11.0
          modelURL: meta-llama/Llama-3.1-8B-Instruct
          replicaCount: 3
          requestCPU: 6
          requestMemory: 16Gi
          requestGPU: 1
    routerSpec:
      routingLogic: roundrobin
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: chat-b, namespace: argocd}
spec:
  destination: {server: https://kubernetes.default.svc, namespace: llm-b}
  source:
    repoURL: https://vllm-project.github.io/production-stack
    chart: vllm-stack
    targetRevision: 0.1.8
    helm:
      values: |
        servingEngineSpec:
          modelSpec:
            - name: qwen
              repository: vllm/vllm-openai
              tag: v0.11.0
              modelURL: Qwen/Qwen2.5-7B-Instruct
              replicaCount: 2
              requestCPU: 6
              requestMemory: 16Gi
              requestGPU: 1
"""


def sw406(inv: Inventory) -> list[tuple[str, str, int | None, str]]:
    return [(f.subject, f.message, f.location.line, f.level) for f in run_rules(ALL_RULES, inv) if f.code == "SW406"]


def test_vllm_stack_router_routing_logic_judged_by_sw406():
    """readers14: the chart's router (``deployment-router.yaml``, the same at vllm-stack-0.1.4 to 0.1.12) discovers
    the engine pods of the release's namespace by ``servingEngineSpec.labels`` (merged over the chart's
    ``environment: test, release: test``) and routes with ``routerSpec.routingLogic``, ``roundrobin`` by default at
    every release: SW406 judges it as it judges an Ingress's round robin (advisory), at ``routingLogic``'s line
    where it is written, else at the release's."""
    inv = load_kubernetes_text(_ROUTED, "f.yaml")
    assert [(r.name, r.namespace, r.logic, r.selector) for r in inv.routers] == [
        ("chat-deployment-router", "llm", "roundrobin", {"environment": "prod", "release": "test"}),
        ("chat-b-deployment-router", "llm-b", "roundrobin", {"environment": "test", "release": "test"})]
    assert sw406(inv) == [
        ("Deployment llm/chat-deployment-router", "vllm-router balances Deployment llm/chat-llama-deployment-vllm "
         "with --routing-logic roundrobin, which ignores each replica's load", 20, "advisory"),
        ("Deployment llm-b/chat-b-deployment-router", "vllm-router balances Deployment "
         "llm-b/chat-b-qwen-deployment-vllm with --routing-logic roundrobin, which ignores each replica's load", 22,
         "advisory")]
    # the other logics route by session or prefix and else to the engine with the lowest request rate: no finding
    for logic in ("session", "prefixaware", "kvaware"):
        text = _ROUTED.replace("routingLogic: roundrobin", f"routingLogic: {logic}\n      sessionKey: x-user")
        assert [s for s, *_ in sw406(load_kubernetes_text(text, "f.yaml"))] == [
            "Deployment llm-b/chat-b-deployment-router"]
    # routerSpec.enableRouter false: the chart renders no router
    text = _ROUTED.replace("routingLogic: roundrobin", "routingLogic: roundrobin\n      enableRouter: false")
    assert [r.name for r in load_kubernetes_text(text, "f.yaml").routers] == ["chat-b-deployment-router"]
    # a routing logic no release of the router takes (it exits on argparse's choices): SW003's crash (advisory: its
    # image names no release), and nothing more for SW406 to say of a router that routes nothing (mend1)
    text = _ROUTED.replace("routingLogic: roundrobin", "routingLogic: least_loaded")
    refused = load_kubernetes_text(text, "f.yaml")
    assert [s for s, *_ in sw406(refused)] == ["Deployment llm-b/chat-b-deployment-router"]
    assert [(i.subject, i.crash, i.advisory, i.location.line, i.reason.split(" (")[0]) for i in refused.launch_issues
            if i.crash] == [("Deployment llm/chat-deployment-router", True, True, 20,
                             "vllm-router exits at start: --routing-logic `least_loaded` is none of its choices at any "
                             "release read")]
    # static discovery without the backends the template requires: helm renders nothing, and SW005 says so
    docs = load_documents(_ROUTED, "f.yaml")
    release = docs[0][1]
    release["spec"]["values"]["routerSpec"]["serviceDiscovery"] = "static"
    assert rendered_objects(release) == []
    assert modelled_why("vllm-stack", "0.1.12", release["spec"], release["spec"]["values"]) == (
        "the chart refuses its values (routerSpec.serviceDiscovery is static and routerSpec has no staticBackends "
        "or staticModels, which it then requires): it renders nothing")
    release["spec"]["values"]["routerSpec"].update(staticBackends="http://a:8000,http://b:8000",
                                                   staticModels="m,m")
    (router, _engine) = rendered_objects(release) or []
    assert router["spec"]["template"]["spec"]["containers"][0]["args"] == [
        "--host", "0.0.0.0", "--port", "8000", "--service-discovery", "static", "--static-backends",
        "http://a:8000,http://b:8000", "--static-models", "m,m", "--routing-logic", "roundrobin"]


def test_vllm_stack_0_1_3_and_older_releases():
    """readers14: 0.1.3 renders as 0.1.4 less what 0.1.4 added (``git diff vllm-stack-0.1.3 vllm-stack-0.1.4 --
    helm``: values.yaml and _helpers.tpl alike): no hostIPC/hostPID, no SYS_PTRACE, no ucx-port, and a ``raySpec``
    of ``servingEngineSpec`` (not of an entry) renders no engine. 0.1.0 to 0.1.2 are not read, and say why."""
    with open(path("vllm-stack-releases.yaml"), encoding="utf-8") as fh:
        docs = load_documents(fh.read(), "f.yaml")
    release = docs[1][1]
    release["spec"]["chart"]["spec"]["version"] = "0.1.3"
    router, engine = rendered_objects(release) or []
    assert router["metadata"]["name"] == "legacy-deployment-router"
    pod = engine["spec"]["template"]["spec"]
    assert "hostIPC" not in pod and "hostPID" not in pod
    c = pod["containers"][0]
    assert c["securityContext"] == {"runAsNonRoot": False}
    assert c["ports"] == [{"name": "container-port", "containerPort": 8000}, {"name": "zmq-port", "containerPort": 55555}]
    release["spec"]["values"]["servingEngineSpec"]["containerSecurityContext"] = None
    assert "securityContext" not in (rendered_objects(release) or [])[1]["spec"]["template"]["spec"]["containers"][0]
    # an entry's raySpec is 0.1.4's: at 0.1.3 the entry is still an engine; servingEngineSpec's raySpec drops them all
    entry = release["spec"]["values"]["servingEngineSpec"]["modelSpec"][0]
    entry["raySpec"] = {"headNode": {"requestCPU": 2}}
    assert [o["metadata"]["name"] for o in rendered_objects(release) or []] == [
        "legacy-deployment-router", "legacy-mistral-deployment-vllm"]
    del entry["raySpec"]
    release["spec"]["values"]["servingEngineSpec"]["raySpec"] = {"headNode": {"requestCPU": 2}}
    assert [o["metadata"]["name"] for o in rendered_objects(release) or []] == ["legacy-deployment-router"]
    for older in ("0.1.2", "0.1.0", "0.0.11"):
        release["spec"]["chart"]["spec"]["version"] = older
        assert rendered_objects(release) is None
    assert modelled_why("vllm-stack", "0.1.2", {}) == (
        "vllm-stack 0.1.2 renders its engines unlike 0.1.3 to 0.1.12, the releases read: the executable is always "
        "`vllm`, `--enable-prefix-caching` is written only when true (no `--no-enable-prefix-caching`), no POD_IP "
        "env, zmq port or `nodeName`, and before 0.1.2 no `enableEngine` gate: not modelled")


def test_router_container_recognised_by_image_or_command():
    """readers14: production-stack's router image under any registry or mirror path, or its entry point; not an image
    whose name only ends in the same words, nor vLLM's engine."""
    from shardwise.rules.adapters.k8s.router import is_router
    from shardwise.rules.model import Container

    images = ["lmcache/lmstack-router:latest", "docker.io/lmcache/lmstack-router@sha256:ab",
              "ghcr.io/x/lmcache/lmstack-router:v1", "notlmcache/lmstack-router:1", "vllm/vllm-openai:v0.11.0"]
    assert [is_router(Container("c", image=i)) for i in images] == [True, True, True, False, False]
    assert is_router(Container("c", image="python:3.12", command=["/opt/venv/bin/vllm-router"]))
    assert is_router(Container("c", image="python:3.12", command=["python3", "-m", "vllm_router.app"]))
    assert not is_router(Container("c", image="python:3.12", command=["vllm", "serve", "m"]))


_STATIC_ROUTER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: static-router
  namespace: llm
spec:
  template:
    spec:
      containers:
        - name: router
          image: lmcache/lmstack-router:v0.1.12
          args: [--service-discovery, static, --static-backends, "http://a:8000,http://b:8000,http://c:8000",
                 --static-models, "MODELS", --routing-logic, roundrobin]
"""


def test_static_router_balances_only_the_backends_of_one_model():
    """review14: the router sends a request only to the static backends whose model it names
    (``src/vllm_router/services/request_service/request.py`` at vllm-stack-0.1.12: ``model in ep.model_names``, each
    URL paired with the model of the same place in ``--static-models``), so round robin over backends that each serve
    another model balances nothing; without ``--static-models``, or with a different count, the router exits at start
    (``validate_args``, ``StaticServiceDiscovery``'s assertion)."""
    def found(models: str) -> list[str]:
        return [m for _, m, *_ in sw406(load_kubernetes_text(_STATIC_ROUTER.replace("MODELS", models), "f.yaml"))]

    assert found("llama,qwen,mistral") == []
    assert found("llama,qwen,llama") == [
        "vllm-router balances 2 static backends (http://a:8000, http://c:8000) with --routing-logic roundrobin, which "
        "ignores each engine's load"]
    assert found("m,m,m") == [
        "vllm-router balances 3 static backends (http://a:8000, http://b:8000, http://c:8000) with --routing-logic "
        "roundrobin, which ignores each engine's load"]
    assert found("llama,qwen") == []  # two models for three URLs: the router does not start
    assert found("$(MODELS)") == [
        "cannot decide: the router's --static-models is not known (a computed value or an unresolved reference): "
        "write it literally in the inputs (not a reference to a ConfigMap or Secret, nor a computed output)"]


def test_router_service_name_discovery_is_no_pod_level_routing():
    """review14: with ``--k8s-service-discovery-type service-name`` (production-stack ``service_discovery.py``
    K8sServiceNameServiceDiscovery, the chart's ``routerSpec.k8sServiceDiscoveryType``, written from 0.1.8) the router
    sends each request to a Service (``http://{service_name}:{port}``), and kube-proxy picks one of its pods: a session
    or prefix affinity, or the lowest request rate, is no longer about a replica, so ``session`` over three replicas
    passes no longer silently; which Services the router finds is not read, so SW406 cannot decide. ``pod-ip`` (the
    default) is judged as before."""
    text = _ROUTED.replace("routingLogic: roundrobin",
                           "routingLogic: session\n      sessionKey: x-user\n      k8sServiceDiscoveryType: service-name")
    inv = load_kubernetes_text(text, "f.yaml")
    assert [r.discovery_type for r in inv.routers] == ["service-name", "pod-ip"]
    assert sw406(inv)[0] == (
        "Deployment llm/chat-deployment-router", "cannot decide: how the router's Services spread requests over the "
        "engine pods is not known (--k8s-service-discovery-type service-name: the router sends each request to a "
        "Service, which kube-proxy spreads over its pods without regard to their load, whatever --routing-logic "
        "session picks; shardwise does not read which Services it finds)", 20, "advisory")
    # pod-ip written: session routes among the pods, no finding; 0.1.5 writes no --k8s-service-discovery-type
    text = _ROUTED.replace("routingLogic: roundrobin",
                           "routingLogic: session\n      sessionKey: x-user\n      k8sServiceDiscoveryType: pod-ip")
    assert [s for s, *_ in sw406(load_kubernetes_text(text, "f.yaml"))] == ["Deployment llm-b/chat-b-deployment-router"]
    text = text.replace('version: "0.1.12"', 'version: "0.1.5"').replace("k8sServiceDiscoveryType: pod-ip",
                                                                      "k8sServiceDiscoveryType: service-name")
    assert [r.discovery_type for r in load_kubernetes_text(text, "f.yaml").routers] == ["pod-ip", "pod-ip"]


def test_router_extra_args_are_written_last_and_win():
    """review14: ``deployment-router.yaml`` writes ``routerSpec.extraArgs`` after ``--routing-logic`` at every release
    0.1.3 to 0.1.12, and the router's argparse keeps a flag's last value: a logic given there is the one that runs."""
    text = _ROUTED.replace("routingLogic: roundrobin", 'routingLogic: roundrobin\n      extraArgs: ["--routing-logic", '
                           '"prefixaware", "--log-level", "debug"]')
    inv = load_kubernetes_text(text, "f.yaml")
    assert [r.logic for r in inv.routers] == ["prefixaware", "roundrobin"]
    assert [s for s, *_ in sw406(inv)] == ["Deployment llm-b/chat-b-deployment-router"]


def test_vllm_stack_request_gpu_infinite_renders_no_gpu():
    """fuzz15 (seed 15015 case 381): ``requestGPU: .inf`` raised OverflowError converting it to an int, an internal
    error for the whole file. Sprig's ``int`` of +Inf is Go's conversion, the most negative int64 on amd64: the
    chart's ``gt 0`` is false, so the container requests no GPU, as with ``requestGPU: 0``."""
    with open(path("vllm-stack-releases.yaml"), encoding="utf-8") as fh:
        text = fh.read()
    assert text.count("requestGPU: 2\n") == 1
    docs = load_documents(text.replace("requestGPU: 2\n", "requestGPU: .inf\n"), "f.yaml")
    rendered = rendered_objects(docs[0][1])
    assert rendered is not None
    resources = rendered[1]["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert (rendered[1]["metadata"]["name"], resources) == ("llm-llama8b-deployment-vllm",
                                                            {"requests": {"memory": "64Gi", "cpu": "8"}})

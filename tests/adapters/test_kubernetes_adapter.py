"""Kubernetes manifests -> Inventory, through the real adapter, with exact fields and lines."""

from __future__ import annotations

import os
import textwrap

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings
from repo_paths import FIXTURES
from shardwise.rules.adapters.k8s import (
    load_kubernetes_file,
    load_kubernetes_text,
    parse_ignore,
    parse_manifests,
    resolve_pools,
)
from shardwise.rules.catalog.hardware import pool_from_labels
from shardwise.rules.model import (
    UNKNOWN,
    UNKNOWN_NAMESPACE,
    Autoscaler,
    Ingress,
    Inventory,
    Location,
    MatchExpression,
    NetworkPolicy,
    Probe,
    Service,
    ServingGroup,
    Suppression,
    Taint,
    Toleration,
    Volume,
)
from shardwise.rules.model.errors import InputError

FIX = os.path.join(FIXTURES, "k8s")


def fixture(name: str) -> str:
    return os.path.join(FIX, name)


def load(name: str) -> Inventory:
    return load_kubernetes_file(fixture(name))


def at(name: str, line: int) -> Location:
    return Location(fixture(name), line)


def text(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


# --- Deployment on p5 ------------------------------------------------------------------------------


def test_deployment_on_p5_engine_and_pool():
    inv = load("llama-70b-p5.yaml")
    assert [(g.kind, g.namespace, g.name) for g in inv.groups] == [("Deployment", "llm", "llama-70b")]
    g = inv.groups[0]
    f = "llama-70b-p5.yaml"
    assert g.location == at(f, 7)
    e = g.engine
    assert (e.model, e.tensor_parallel_size, e.pipeline_parallel_size, e.max_model_len, e.max_num_seqs,
            e.gpu_memory_utilization, e.port) == ("meta-llama/Llama-3.1-70B-Instruct", 4, 1, 32768, 128, 0.92, 8000)
    assert e.extra == {"enable_prefix_caching": True}
    assert e.locations == {
        "model": at(f, 40), "tensor_parallel_size": at(f, 41), "max_model_len": at(f, 43),
        "gpu_memory_utilization": at(f, 44), "max_num_seqs": at(f, 46), "enable_prefix_caching": at(f, 48),
        "port": at(f, 49),
    }
    assert g.model is not None and g.model.id == "meta-llama/Llama-3.1-70B-Instruct"
    assert g.model_error is None
    assert (g.replicas, g.pods_per_group, g.gpus_per_pod) == (2, 1, 4)
    assert g.node_selector == {"node.kubernetes.io/instance-type": "p5.48xlarge"}
    assert g.tolerations == [Toleration("nvidia.com/gpu", "Exists", None, "NoSchedule")]
    pool = g.pool
    assert pool is not None
    assert (pool.name, pool.kind, pool.gpu.name, pool.gpus_per_node, pool.interconnect, pool.efa,
            pool.nvlink_domain_size, pool.instance_type, pool.gpu_memory_gib) == (
        "instance-type=p5.48xlarge", "selector", "H100-SXM-80GB", 8, "nvswitch", True, 8, "p5.48xlarge", 79.19)
    assert inv.pools == []  # a synthesised pool is not a declared one
    assert inv.skipped == {}


def test_deployment_annotations_probes_volumes_and_containers():
    g = load("llama-70b-p5.yaml").groups[0]
    f = "llama-70b-p5.yaml"
    assert g.p95_context == 6000
    assert g.production is True
    assert g.suppressions == [
        Suppression("SW104", "benchmarked TP4 p95 TPOT 18 ms vs 31 ms at TP2", at(f, 27)),
        Suppression("SW106", "", at(f, 27)),
    ]
    assert g.annotations == {
        "shardwise.dev/p95-context-tokens": "6000",
        "shardwise.dev/production": "true",
        "shardwise.dev/ignore": "SW104: benchmarked TP4 p95 TPOT 18 ms vs 31 ms at TP2; SW106",
    }
    assert g.pod_labels == {"app": "llama-70b"}
    assert g.vllm_container == "vllm"
    c = g.main_container
    assert c is not None and c.name == "vllm"
    assert (c.image, c.command, c.args[:3]) == (
        "vllm/vllm-openai:v0.10.1", ["vllm", "serve"],
        ["meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "4"])
    assert c.env == {"HF_TOKEN": UNKNOWN}
    assert (c.ports, c.gpus, c.efa) == ([8000], 4, 0)
    assert c.location == at(f, 36)
    assert c.probes == {
        "startup": Probe("startup", "/health", "http", 0, 10, 90),
        "liveness": Probe("liveness", "/health", 8000, 15, 10, 3),
        "readiness": Probe("readiness", "/health", 8000, 0, 5, 3),
    }
    assert c.probes["startup"].budget_seconds == 900
    assert c.volume_mounts == {"dshm": "/dev/shm", "cache": "/root/.cache/huggingface"}
    assert g.volumes == [Volume("dshm", "emptyDir", "Memory", "16Gi"), Volume("cache", "persistentVolumeClaim")]


def test_service_and_keda_scaledobject_beside_the_deployment():
    inv = load("llama-70b-p5.yaml")
    f = "llama-70b-p5.yaml"
    assert inv.services == [Service("llama-70b", "llm", "ClusterIP", [80], ["http"], {"app": "llama-70b"}, {},
                                    at(f, 96), port_names={"http": "http"})]
    assert inv.autoscalers == [Autoscaler(
        "llama-70b", "llm", "ScaledObject", "Deployment", "llama-70b", ["vllm:num_requests_waiting"],
        2, 8, 300, at(f, 109))]
    assert inv.sources == [fixture(f)]


# --- other workload kinds ----------------------------------------------------------------------------


def test_statefulset_api_server_form_with_gfd_selector():
    inv = load("qwen-statefulset-l4.yaml")
    f = "qwen-statefulset-l4.yaml"
    [g] = inv.groups
    assert (g.kind, g.name, g.namespace, g.replicas, g.gpus_per_pod) == ("StatefulSet", "qwen-7b", "default", 3, 1)
    e = g.engine
    assert (e.model, e.dtype, e.max_model_len, e.tensor_parallel_size) == (
        "Qwen/Qwen2.5-7B-Instruct", "bfloat16", 16000, 1)
    assert e.locations == {"model": at(f, 27), "dtype": at(f, 28), "max_model_len": at(f, 29),
                           "tensor_parallel_size": at(f, 30)}
    assert g.vllm_container == "server"
    p = g.pool
    assert (p.name, p.gpu.name, p.gpus_per_node, p.interconnect, p.gpu_memory_gib) == (
        "gpu.product=NVIDIA-L4", "L4", None, "pcie", 21.99)  # L4s have no NVLink: PCIe on any node


def test_pod_with_bash_script_and_env():
    inv = load("mistral-pod-shell.yaml")
    f = "mistral-pod-shell.yaml"
    [g] = inv.groups
    assert (g.kind, g.name, g.namespace, g.replicas, g.gpus_per_pod) == ("Pod", "phi-debug", "research", 1, 2)
    e = g.engine
    assert (e.model, e.tensor_parallel_size, e.max_num_seqs, e.enforce_eager, e.kv_cache_dtype) == (
        "microsoft/phi-4", 2, 64, True, "fp8")
    # flags written in the script point at their own line; those from $EXTRA_ARGS at the args key
    assert e.locations == {"model": at(f, 21), "tensor_parallel_size": at(f, 26), "max_num_seqs": at(f, 27),
                           "enforce_eager": at(f, 21), "kv_cache_dtype": at(f, 21)}
    assert g.pod_labels == {"app": "phi-debug"}
    assert g.pool is None  # no selector


def test_job_args_only_on_vllm_openai_image_with_karpenter_selector():
    inv = load("benchmark-job.yaml")
    [g] = inv.groups
    assert (g.kind, g.name, g.namespace, g.replicas, g.gpus_per_pod) == ("Job", "bench-llama-8b", "bench", 2, 4)
    e = g.engine
    assert (e.model, e.tensor_parallel_size, e.extra) == (
        "meta-llama/Llama-3.1-8B-Instruct", 4, {"enable_prefix_caching": False})
    assert e.locations["tensor_parallel_size"] == at("benchmark-job.yaml", 21)
    p = g.pool
    assert (p.name, p.gpu.name, p.gpus_per_node, p.interconnect, p.efa) == (
        "instance-gpu-name=a10g,instance-gpu-count=4", "A10G", 4, "pcie", None)


def test_leaderworkerset_group():
    inv = load("deepseek-lws.yaml")
    f = "deepseek-lws.yaml"
    [g] = inv.groups
    assert (g.kind, g.name, g.namespace, g.location) == ("LeaderWorkerSet", "deepseek-r1", "llm", at(f, 2))
    assert (g.replicas, g.pods_per_group, g.gpus_per_pod) == (1, 2, 8)
    assert (g.restart_policy, g.exclusive_topology) == (
        "RecreateGroupOnPodRestart", "topology.k8s.aws/network-node-layer-3")
    e = g.engine
    assert (e.model, e.tensor_parallel_size, e.pipeline_parallel_size, e.distributed_executor_backend,
            e.max_model_len) == ("deepseek-ai/DeepSeek-R1", 8, 2, "ray", 65536)
    assert e.locations["pipeline_parallel_size"] == at(f, 27)
    assert g.vllm_container == "vllm-leader"
    assert [c.name for c in g.containers] == ["vllm-leader"]
    assert g.main_container.efa == 32
    assert g.main_container.env == {"FI_PROVIDER": "efa", "LWS_GROUP_SIZE": "2", "LWS_WORKER_INDEX": "0"}
    # the leader's labels, with those the LWS controller adds to the pods it creates (0: the first group's leader)
    assert g.pod_labels == {"role": "leader", "leaderworkerset.sigs.k8s.io/name": "deepseek-r1",
                            "leaderworkerset.sigs.k8s.io/group-index": "0", "leaderworkerset.sigs.k8s.io/worker-index": "0"}
    assert (g.pool.name, g.pool.gpus_per_node, g.pool.efa) == ("instance-type=p5.48xlarge", 8, True)


def test_leaderworkerset_worker_template_only_defaults():
    inv = load_kubernetes_text(text("""
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata:
          name: llama-405b
        spec:
          leaderWorkerTemplate:
            workerTemplate:
              spec:
                containers:
                  - name: vllm
                    image: vllm/vllm-openai:v0.10.1
                    command: ["vllm", "serve", "meta-llama/Llama-3.1-405B-Instruct",
                              "--nnodes", "$(LWS_GROUP_SIZE)", "--node-rank", "$(LWS_WORKER_INDEX)",
                              "--master-addr", "$(LWS_LEADER_ADDRESS)"]
    """), "lws.yaml")
    [g] = inv.groups
    assert (g.replicas, g.pods_per_group, g.restart_policy, g.exclusive_topology) == (1, 1, None, None)
    assert (g.engine.nnodes, g.engine.extra) == (
        1, {"node_rank": 0, "master_addr": "$(LWS_LEADER_ADDRESS)"})


def test_cronjob_rollout_daemonset_and_unknown_crd_with_template():
    container = """
                containers:
                  - name: vllm
                    image: vllm/vllm-openai:v0.10.1
                    args: ["Qwen/Qwen3-8B"]
    """
    docs = [
        "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\nspec:\n  schedule: '0 1 * * *'\n"
        "  jobTemplate:\n    spec:\n      parallelism: 3\n      template:\n        spec:" + container,
        "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: canary}\nspec:\n  replicas: 4\n"
        "  template:\n    spec:" + container,
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: per-node}\nspec:\n  template:\n    spec:"
        + container,
        "apiVersion: serving.example.com/v1\nkind: InferenceThing\nmetadata: {name: crd}\nspec:\n  replicas: 2\n"
        "  template:\n    spec:" + container,
    ]
    inv = load_kubernetes_text("---\n".join(textwrap.dedent(d) for d in docs), "many.yaml")
    assert [(g.kind, g.name, g.replicas) for g in inv.groups] == [
        ("CronJob", "nightly", 3), ("Rollout", "canary", 4), ("DaemonSet", "per-node", UNKNOWN),
        ("InferenceThing", "crd", 2)]
    assert inv.skipped == {}


def test_nginx_deployment_is_not_a_group_and_not_skipped():
    inv = load("nginx-deployment.yaml")
    assert (inv.groups, dict(inv.skipped)) == ([], {})


def test_vllm_image_with_unreadable_command_is_a_launch_issue():
    inv = load_kubernetes_text(text("""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: scripted}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.10.1
                  command: ["/bin/sh", "/scripts/start.sh"]
    """), "s.yaml")
    assert (inv.groups, dict(inv.skipped)) == ([], {})
    [issue] = inv.launch_issues
    assert (issue.subject, issue.container, issue.location, issue.crash) == (
        "Deployment default/scripted", "vllm", Location("s.yaml", 10), False)
    assert issue.reason == (
        "container 'vllm' runs the vLLM image vllm/vllm-openai:v0.10.1 but its command (/bin/sh /scripts/start.sh) "
        "does not start a vLLM server shardwise can read")


# --- multi-doc, List, skipped kinds, errors -----------------------------------------------------------


def test_list_multidoc_empty_docs_and_skipped_kinds():
    inv = load("kubectl-list.yaml")
    f = "kubectl-list.yaml"
    [g] = inv.groups
    assert (g.kind, g.name, g.location, g.engine.model, g.engine.max_model_len, g.replicas) == (
        "Deployment", "gemma-9b", at(f, 7), "google/gemma-2-9b-it", 8192, 1)
    assert inv.services == [Service("gemma-9b", "default", "LoadBalancer", [8000], [8000], {"app": "gemma-9b"},
                                    {}, at(f, 25))]
    assert dict(inv.skipped) == {"ModelServer": 1}
    assert [(cm.name, cm.data, cm.location) for cm in inv.config_maps] == [
        ("prompts", {"system": "You are helpful."}, at(f, 36))]


def test_parse_manifests_locations():
    with open(fixture("kubectl-list.yaml"), encoding="utf-8") as fh:
        objs = parse_manifests(fh.read(), "l.yaml")
    assert [(o["kind"], loc) for o, loc in objs] == [
        ("Deployment", Location("l.yaml", 7)), ("Service", Location("l.yaml", 25)),
        ("ConfigMap", Location("l.yaml", 36)), ("ModelServer", Location("l.yaml", 45))]


def test_bad_yaml_is_an_input_error_with_line():
    with pytest.raises(InputError) as err:
        load("bad-yaml.yaml")
    assert (err.value.file, err.value.line) == (fixture("bad-yaml.yaml"), 11)
    assert err.value.message == "cannot parse YAML: did not find expected ',' or ']'"


def test_document_that_is_not_a_mapping():
    with pytest.raises(InputError) as err:
        load("not-an-object.yaml")
    assert (err.value.line, err.value.message) == (6, "expected a Kubernetes object (a mapping), found a list")


def test_document_without_kind():
    with pytest.raises(InputError) as err:
        load_kubernetes_text("---\napiVersion: v1\nmetadata: {name: x}\n", "k.yaml")
    assert str(err.value) == "k.yaml:2: object has no kind"


def test_bad_p95_annotation_is_an_input_error_with_line():
    with pytest.raises(InputError) as err:
        load("bad-p95.yaml")
    assert str(err.value) == (f"{fixture('bad-p95.yaml')}:6: shardwise.dev/p95-context-tokens: "
                              "expected a whole number of tokens, got 'about 6000'")


_LOADED = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: heavy
  annotations:
    {key}: '{value}'
spec:
  selector: {{matchLabels: {{app: heavy}}}}
  template:
    metadata: {{labels: {{app: heavy}}}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.20.0
        args: [google/gemma-3n-E4B-it, --max-model-len, '32768']
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


@pytest.mark.parametrize(("key", "value", "message"), [
    # a fuzz seed's 332-digit concurrency reached the sizing and overflowed a float (an internal error in SW106)
    ("shardwise.dev/target-concurrency", "9" * 332,
     "shardwise.dev/target-concurrency: expected at most 10,000,000 sequences, got '999999999999999999999999'… "
     "(332 characters)"),
    ("shardwise.dev/target-concurrency", "10_000_001",
     "shardwise.dev/target-concurrency: expected at most 10,000,000 sequences, got '10_000_001'"),
    ("shardwise.dev/p95-context-tokens", "20000k",
     "shardwise.dev/p95-context-tokens: expected at most 10,000,000 tokens, got '20000k'"),
    ("shardwise.dev/output-tokens-per-second", "1e300",
     "shardwise.dev/output-tokens-per-second: expected at most 10,000,000 tokens per second, got '1e300'"),
])
def test_a_load_annotation_above_what_plan_takes_is_an_input_error(key, value, message):
    """The annotations take the bounds `plan`'s --concurrency, --p95-context and --output-tokens-per-second take."""
    with pytest.raises(InputError) as err:
        load_kubernetes_text(_LOADED.format(key=key, value=value), "l.yaml")
    assert (err.value.line, err.value.message) == (6, message)


def test_a_load_annotation_at_the_bound_is_taken():
    inv = load_kubernetes_text(_LOADED.format(key="shardwise.dev/target-concurrency", value="10_000_000"), "l.yaml")
    assert inv.groups[0].target_concurrency == 10_000_000


def test_bad_tensor_parallel_value_points_at_its_line():
    """A value vLLM refuses at start-up is the workload's crash at the value's line (SW003), the setting read as
    unknown; it was an input error that hid the workload ("no vLLM workload found") before flags48."""
    inv = load("bad-tp.yaml")
    assert [(i.crash, i.reason, i.location) for i in inv.launch_issues] == [
        (True, "container 'vllm': --tensor-parallel-size: 'abc' is not an integer: vLLM refuses it at start-up (it "
               "exits) and the pod crash-loops", at("bad-tp.yaml", 13))]
    assert len(inv.groups) == 1 and inv.groups[0].engine.tensor_parallel_size is UNKNOWN


def test_vllm_container_without_model():
    with pytest.raises(InputError) as err:
        load("no-model.yaml")
    assert str(err.value) == (f"{fixture('no-model.yaml')}:9: container 'vllm' runs vLLM but names no model "
                              "(give it as `vllm serve MODEL` or `--model MODEL`)")


#: A kustomize base's patch that sets vLLM's command and leaves the model to the overlays over it, in the shape of
#: llm-d's TPU P/D guide (corpus30: base/vllm/patch-decode.yaml sets `vllm serve`, each TPU generation's overlay
#: adds the model in its own patch's args; the container has no image, its base's placeholder is rewritten by an
#: overlay's `images:`).
PATCH_WITHOUT_MODEL = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: decode
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: modelserver
          command: ["vllm", "serve"]
          env:
            - name: TPU_KV_TRANSFER_PORT
              value: "9100"
"""


@pytest.mark.parametrize("name, kustomization", [
    ("base/vllm/patch-decode.yaml", None),  # named as a patch
    ("base/vllm/decode.yaml", "patches:\n  - path: decode.yaml\n"),  # in a kustomization, with no image
])
def test_a_patch_that_leaves_the_model_to_its_overlays_is_an_unknown_model_not_an_error(name, kustomization,
                                                                                      tmp_path, monkeypatch):
    """A patch (named so, or in a kustomization with no image) naming no model: the model is unknown on it, as the
    GPUs it leaves to its base are; it was the input error "runs vLLM but names no model" and the repository's lint
    exited 2."""
    monkeypatch.chdir(tmp_path)
    os.makedirs("base/vllm")
    with open(name, "w") as f:
        f.write(PATCH_WITHOUT_MODEL)
    if kustomization:
        with open("base/vllm/kustomization.yaml", "w") as f:
            f.write(kustomization)
    [g] = load_kubernetes_file(name).groups
    assert g.engine.model is UNKNOWN and g.fragment
    assert g.model_unknown == ("this patch names none: the kustomization it is merged in, or an overlay over it, "
                               "gives the model; lint what the overlay builds (kustomize build DIR | shardwise "
                               "lint -)")
    whole = PATCH_WITHOUT_MODEL.replace("- name: modelserver", "- name: modelserver\n          image: vllm/vllm-tpu")
    with open("decode.yaml", "w") as f:
        f.write(whole)
    with pytest.raises(InputError, match=r"^decode.yaml:10: container 'modelserver' runs vLLM but names no model"):
        load_kubernetes_file("decode.yaml")  # whole, in no kustomization: an error as before


def test_bad_gpu_limit():
    with pytest.raises(InputError, match=r"g.yaml:12: resources.limits.nvidia.com/gpu: expected a whole number"):
        load_kubernetes_text(text("""
            apiVersion: v1
            kind: Pod
            metadata: {name: p}
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai
                  args: [org/m]
                  resources:
                    limits:
                      cpu: 4
                      nvidia.com/gpu: two
        """), "g.yaml")


@pytest.mark.parametrize("gpus,efa", [
    ('"${GPU_PER_WORKER}"', '"${EFA_PER_WORKER}"'),  # aws-samples/aws-do-eks' LeaderWorkerSet templates
    ("${GPU_PER_WORKER}", "${EFA}"),  # unquoted: YAML reads the same text
    ("$GPUS", "$EFA"),
    ('"{{ .Values.gpus }}"', '"{{ .Values.efa }}"'),  # an unrendered Helm value
])
def test_a_placeholder_count_is_unknown(gpus, efa):
    inv = load_kubernetes_text(text(f"""
        apiVersion: v1
        kind: Pod
        metadata: {{name: p}}
        spec:
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.11.0
              args: [org/m]
              resources:
                limits:
                  nvidia.com/gpu: {gpus}
                  vpc.amazonaws.com/efa: {efa}
    """), "t.yaml")
    (g,) = inv.groups
    assert g.gpus_per_pod is UNKNOWN
    assert g.containers[0].gpus is UNKNOWN
    assert g.containers[0].efa is UNKNOWN
    assert g.at("vpc.amazonaws.com/efa") == Location("t.yaml", 12)


def test_efa_counts_as_written():
    inv = load_kubernetes_text(text("""
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.11.0
              args: [org/m]
              resources: {limits: {nvidia.com/gpu: 8, vpc.amazonaws.com/efa: "32"}}
            - name: sidecar
              image: busybox
    """), "t.yaml")
    (g,) = inv.groups
    assert [c.efa for c in g.containers] == [32, 0]


def test_a_placeholder_replica_count_or_group_size_is_unknown():
    # a template's spec.replicas and LeaderWorkerSet size (aws-do-eks writes them as ${NUM_WORKERS}): unknown, so the
    # rules that need them say "cannot decide"; before, "spec.replicas: expected an integer" failed the run
    inv = load_kubernetes_text(text("""
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata: {name: big}
        spec:
          replicas: ${REPLICAS}
          leaderWorkerTemplate:
            size: "{{ .Values.groupSize }}"
            workerTemplate:
              spec:
                containers:
                  - name: vllm
                    image: vllm/vllm-openai:v0.11.0
                    args: [org/m, --tensor-parallel-size, "8", --pipeline-parallel-size, "2"]
                    resources: {limits: {nvidia.com/gpu: 8}}
    """), "t.yaml")
    (g,) = inv.groups
    assert (g.replicas, g.pods_per_group) == (UNKNOWN, UNKNOWN)
    with pytest.raises(InputError, match=r"t.yaml:5: spec.replicas: expected an integer, got '2x'"):
        load_kubernetes_text(text("""
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: d}
            spec:
              replicas: 2x
              template: {spec: {containers: [{name: vllm, image: vllm/vllm-openai, args: [org/m]}]}}
        """), "t.yaml")


@pytest.mark.parametrize("value", ["GPUS", "$(GPUS)", "${GPUS}x", "2${GPUS}", "{{ x }} 2"])
def test_a_count_that_is_no_placeholder_is_an_input_error(value):
    with pytest.raises(InputError, match=r"t.yaml:9: resources.limits.nvidia.com/gpu: expected a whole number"):
        load_kubernetes_text(text(f"""
            apiVersion: v1
            kind: Pod
            metadata: {{name: p}}
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai
                  args: [org/m]
                  resources: {{limits: {{nvidia.com/gpu: "{value}"}}}}
        """), "t.yaml")


def test_bad_replicas():
    with pytest.raises(InputError, match=r"r.yaml:5: spec.replicas: expected an integer, got 'two'"):
        load_kubernetes_text(text("""
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: d}
            spec:
              replicas: two
              template:
                spec:
                  containers: [{name: vllm, image: vllm/vllm-openai, args: [org/m]}]
        """), "r.yaml")


# --- models ---------------------------------------------------------------------------------------------


def test_unknown_model_is_recorded_not_raised():
    inv = load("unknown-model.yaml")
    [g] = inv.groups
    assert (g.model, g.model_error) == (None, None)  # was an input error (exit 2); now SW004 reports it
    assert g.model_unknown == (
        "'meta-llama/Llama-3.1-70B-Instruc' is not in the catalog; did you mean: "
        "meta-llama/Llama-3.1-70B-Instruct, meta-llama/Llama-3.3-70B-Instruct, meta-llama/Meta-Llama-3-70B-Instruct?")


def test_base_model_annotation_resolves_a_reupload():
    inv = load_kubernetes_text(text("""
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: awq
          annotations:
            shardwise.dev/base-model: meta-llama/Llama-3.1-70B-Instruct
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai
                  args: [someone/llama-70b-private-AWQ]
    """), "b.yaml")
    [g] = inv.groups
    assert (g.model_error, g.model.base_model, g.model.precision) == (
        None, "meta-llama/Llama-3.1-70B-Instruct", "int4")


def test_model_from_unset_env_var_is_unknown_with_the_reason():
    inv = load_kubernetes_text(text("""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: secret-model}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai
                  env:
                    - name: MODEL_ID
                      valueFrom: {configMapKeyRef: {name: cfg, key: model}}
                  args: ["--model", "$(MODEL_ID)"]
    """), "e.yaml")
    [g] = inv.groups
    assert (g.model, g.model_error, g.engine.model) == (None, None, UNKNOWN)
    assert g.model_unknown == (
        "it is $(MODEL_ID), set from a Secret, ConfigMap or the downward API, so shardwise cannot see which model it is; "
        "name the model with the annotation shardwise.dev/base-model (a catalog id, or the repository path of its "
        "config.json), or lint the ConfigMap that sets it with the workload")


def test_local_model_path_loads_config_json(tmp_path):
    model_dir = tmp_path / "tiny-llama"
    model_dir.mkdir()
    (model_dir / "config.json").write_text(
        '{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,'
        ' "intermediate_size": 5632, "num_hidden_layers": 22, "num_attention_heads": 32,'
        ' "num_key_value_heads": 4, "vocab_size": 32000, "max_position_embeddings": 2048,'
        ' "torch_dtype": "bfloat16"}')
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(text("""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: local}
        spec:
          template:
            spec:
              containers:
                - {name: vllm, image: vllm/vllm-openai, args: [./tiny-llama]}
    """))
    [g] = load_kubernetes_file(str(manifest)).groups
    assert g.model_error is None
    assert (g.model.id, g.model.num_hidden_layers, g.model.num_key_value_heads) == ("tiny-llama", 22, 4)


# --- suppressions ---------------------------------------------------------------------------------------


def test_parse_ignore_forms():
    loc = Location("f.yaml", 3)
    assert parse_ignore("SW104: benchmarked TP2 is faster; SW106: quality", loc) == [
        Suppression("SW104", "benchmarked TP2 is faster", loc), Suppression("SW106", "quality", loc)]
    assert parse_ignore("SW104\nSW105:\n sw106 : why", loc) == [
        Suppression("SW104", "", loc), Suppression("SW105", "", loc), Suppression("SW106", "why", loc)]
    assert parse_ignore("SW104, SW106: shared reason", loc) == [
        Suppression("SW104", "shared reason", loc), Suppression("SW106", "shared reason", loc)]
    assert parse_ignore("SW104 no colon here", loc) == [Suppression("SW104", "no colon here", loc)]
    assert parse_ignore("SW104: tested; rollback ready; SW106: ok", loc) == [
        Suppression("SW104", "tested; rollback ready", loc), Suppression("SW106", "ok", loc)]


def test_parse_ignore_rejects_a_non_code():
    with pytest.raises(InputError) as err:
        parse_ignore("because I said so", Location("f.yaml", 9))
    assert str(err.value) == (
        "f.yaml:9: shardwise.dev/ignore: 'because I said so' does not start with a rule code (SWnnn)")


def test_object_annotations_merge_with_pod_template_winning():
    inv = load_kubernetes_text(text("""
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: merged
          annotations:
            shardwise.dev/ignore: "SW101: from the object"
            shardwise.dev/production: "false"
        spec:
          template:
            metadata:
              annotations:
                shardwise.dev/ignore: "SW102: from the pod template"
            spec:
              containers: [{name: vllm, image: vllm/vllm-openai, args: [Qwen/Qwen3-8B]}]
    """), "m.yaml")
    [g] = inv.groups
    assert g.suppressions == [Suppression("SW102", "from the pod template", Location("m.yaml", 12))]
    assert g.production is False


# --- pools ---------------------------------------------------------------------------------------------


def test_karpenter_nodepool_ec2nodeclass_and_a_workload_selecting_it():
    inv = load("karpenter-gpu.yaml")
    f = "karpenter-gpu.yaml"
    taint = Taint("nvidia.com/gpu", "true", "NoSchedule")
    assert [(p.name, p.kind, p.gpu.name, p.gpus_per_node, p.interconnect, p.efa, p.capacity_type,
             p.launch_template, p.taints, p.location) for p in inv.pools] == [
        ("gpu/p5.48xlarge", "karpenter", "H100-SXM-80GB", 8, "nvswitch", True, "on-demand", "gpu", [taint], at(f, 2)),
        ("gpu/p4d.24xlarge", "karpenter", "A100-40GB", 8, "nvswitch", True, "on-demand", "gpu", [taint], at(f, 2)),
    ]
    assert inv.pools[0].labels == {
        "shardwise.dev/pool": "gpu", "karpenter.sh/nodepool": "gpu",
        "karpenter.sh/capacity-type": "on-demand", "node.kubernetes.io/instance-type": "p5.48xlarge"}
    [lt] = inv.launch_templates
    assert (lt.name, lt.http_tokens, lt.http_put_response_hop_limit, lt.location) == ("gpu", "optional", 2, at(f, 28))
    [g] = inv.groups
    # the matchFields term names a node by metadata.name: read as the node pin kubernetes.io/hostname is (review48)
    assert g.affinity == [[MatchExpression("karpenter.sh/nodepool", "In", ("gpu",)),
                           MatchExpression("node.kubernetes.io/instance-type", "In", ("p4d.24xlarge",))],
                          [MatchExpression("kubernetes.io/hostname", "In", ("node-a",))]]
    assert g.pool is inv.pools[1]


def test_ec2nodeclass_defaults_to_karpenter_imdsv2_defaults():
    inv = load_kubernetes_text("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: d}\n"
                               "spec: {role: R}\n", "n.yaml")
    [lt] = inv.launch_templates
    assert (lt.http_tokens, lt.http_put_response_hop_limit) == ("required", 1)


def test_an_eks_auto_mode_node_pool_launches_with_aws_imds_settings_once_per_node_class():
    # nodeClassRef group eks.amazonaws.com: EC2 managed instances, IMDSv2 required with hop limit 1 whatever the
    # NodeClass says (it has no such field); two pools on the built-in `default` share one record, and an
    # EC2NodeClass of the same name stays Karpenter's own
    pool = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: {0}}}\nspec:\n  template:\n"
            "    spec:\n      nodeClassRef: {{group: {1}, kind: {2}, name: default}}\n")
    inv = load_kubernetes_text("---\n".join([
        pool.format("a", "eks.amazonaws.com", "NodeClass"), pool.format("b", "eks.amazonaws.com", "NodeClass"),
        pool.format("c", "karpenter.k8s.aws", "EC2NodeClass"),
        "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\nspec:\n"
        "  metadataOptions: {httpTokens: optional}\n"]), "auto.yaml")
    assert [p.launch_template for p in inv.pools] == [
        "eks.amazonaws.com/NodeClass/default", "eks.amazonaws.com/NodeClass/default", "default"]
    assert [(lt.name, lt.id, lt.http_tokens, lt.http_put_response_hop_limit, lt.location.line)
            for lt in inv.launch_templates] == [
        ("EKS Auto Mode NodeClass default", "eks.amazonaws.com/NodeClass/default", "required", 1, 1),
        ("default", None, "optional", 1, 25)]


def test_gfd_nodes_tolerations_and_taints():
    inv = load("gfd-nodes.yaml")
    f = "gfd-nodes.yaml"
    l40s, h100 = inv.pools
    assert (l40s.name, l40s.kind, l40s.gpu.name, l40s.gpus_per_node, l40s.gpu_memory_gib, l40s.interconnect,
            l40s.efa, l40s.instance_type, l40s.taints) == (
        "ip-10-0-1-23.ec2.internal", "node", "L40S", 4, 44.31, "pcie", True, "g6e.12xlarge",
        [Taint("nvidia.com/gpu", None, "NoSchedule")])
    assert (h100.gpu.name, h100.gpus_per_node, h100.interconnect, h100.nvlink_domain_size, h100.clique,
            h100.efa, h100.location) == (
        "H100-SXM-80GB", 8, "nvswitch", 8, "7f6c1a52-1b37-4e33-9d6f-4a3e9e2b1c11.1", None, at(f, 19))
    tolerant, intolerant = inv.groups
    assert (tolerant.name, tolerant.pool) == ("tolerant", l40s)
    assert (intolerant.name, intolerant.pool) == ("intolerant", None)


def test_resolve_pools_reresolves_selector_pools_after_merging():
    a = load("llama-70b-p5.yaml")
    assert a.groups[0].pool.kind == "selector"
    declared = pool_from_labels("p5-nodes", {"node.kubernetes.io/instance-type": "p5.48xlarge"},
                                Location("stack.yaml", 4), [Taint("nvidia.com/gpu", None, "NoSchedule")],
                                kind="stack")
    a.pools.append(declared)
    resolve_pools(a)
    assert a.groups[0].pool is declared


def test_group_without_selector_and_without_pools_has_no_pool():
    inv = load("kubectl-list.yaml")
    assert inv.groups[0].pool is None


def test_pool_prefers_a_gpu_pool_when_the_group_requests_gpus():
    cpu = pool_from_labels("cpu", {"node.kubernetes.io/instance-type": "m5.large"}, Location("s", 1))
    gpu = pool_from_labels("gpu", {"node.kubernetes.io/instance-type": "g5.xlarge"}, Location("s", 2))
    inv = Inventory(pools=[cpu, gpu], groups=[ServingGroup("g", "Deployment", gpus_per_pod=1)])
    resolve_pools(inv)
    assert inv.groups[0].pool is gpu


def test_pool_from_labels_explicit_labels_win_over_instance_type():
    pool = pool_from_labels("x", {
        "node.kubernetes.io/instance-type": "p4d.24xlarge",
        "shardwise.dev/gpu-count": "4",
        "shardwise.dev/nvlink": "pcie",
        "shardwise.dev/efa": "false",
        "shardwise.dev/gpu-memory-gib": "39.0",
        "shardwise.dev/nvlink-domain-size": "4",
    }, Location("f", 1))
    assert (pool.gpu.name, pool.gpus_per_node, pool.interconnect, pool.efa, pool.gpu_memory_gib,
            pool.nvlink_domain_size, pool.instance_type) == ("A100-40GB", 4, "pcie", False, 39.0, 4, "p4d.24xlarge")


def test_pool_from_labels_karpenter_memory_picks_the_gpu_size():
    pool = pool_from_labels("x", {"karpenter.k8s.aws/instance-gpu-name": "a100",
                                  "karpenter.k8s.aws/instance-gpu-memory": "81920",
                                  "beta.kubernetes.io/instance-type": "p4de.24xlarge"}, Location("f", 1))
    assert (pool.gpu.name, pool.gpu_memory_gib, pool.instance_type) == ("A100-80GB", 79.15, "p4de.24xlarge")


def test_pool_from_labels_unknown_gpu_is_left_unset():
    pool = pool_from_labels("x", {"nvidia.com/gpu.product": "NVIDIA-Imaginary-9000", "nvidia.com/gpu.count": "2",
                                  "nvidia.com/gpu.memory": "40960"}, Location("f", 1))
    assert (pool.gpu, pool.gpus_per_node, pool.gpu_memory_gib, pool.interconnect) == (None, 2, 40.0, None)


# --- networking and autoscaling ---------------------------------------------------------------------------


def test_networking_objects():
    inv = load("networking.yaml")
    f = "networking.yaml"
    assert inv.services == [Service(
        "vllm-public", "llm", "LoadBalancer", [443, 9090], [8000, 9090], {"app": "llama-70b"},
        {"service.beta.kubernetes.io/aws-load-balancer-scheme": "internet-facing",
         "shardwise.dev/ignore": "SW306: demo endpoint behind an API gateway"},
        at(f, 2), [Suppression("SW306", "demo endpoint behind an API gateway", at(f, 9))],
        port_names={"http": 8000, "metrics": 9090})]
    assert inv.ingresses == [
        Ingress("llm", "llm", "Ingress",
                {"alb.ingress.kubernetes.io/target-group-attributes":
                 "load_balancing.algorithm.type=least_outstanding_requests"},
                ["fallback", "llama-70b"], [80, "http"], at(f, 21), class_name="alb",
                service_ports={"fallback": [80], "llama-70b": ["http"]}),  # review49: each backend's own ports
        # the InferencePool backendRef is the pool's, not a Service's (corpus37: link_backends joins the pool)
        Ingress("llm-route", "llm", "HTTPRoute", {}, ["llama-70b"], [8000], at(f, 47),
                parents=["llm/inference-gateway"], parent_refs=[{"name": "inference-gateway", "namespace": "llm"}],
                pool_refs=["llama-pool"], pool_groups=["inference.networking.x-k8s.io"],
                service_ports={"llama-70b": [8000]}),
    ]
    assert inv.network_policies == [
        NetworkPolicy("default-deny", "llm", {}, ["Ingress"], 0, 0, at(f, 63)),
        NetworkPolicy("allow-gateway", "llm", {"app": "llama-70b"}, ["Ingress", "Egress"], 1, 1, at(f, 71)),
    ]
    assert inv.network_policies[0].default_deny_ingress is True
    assert inv.network_policies[1].default_deny_ingress is False


def test_autoscalers():
    inv = load("networking.yaml")
    f = "networking.yaml"
    assert inv.autoscalers == [
        Autoscaler("llama-70b-gpu", "llm", "HorizontalPodAutoscaler", "Deployment", "llama-70b",
                   ["cpu", "gpu-utilization", "vllm:num_requests_waiting"], 2, 6, 600, at(f, 90)),
        Autoscaler("legacy", "default", "HorizontalPodAutoscaler", "Deployment", "web", ["cpu"], 1, 3, None,
                   at(f, 127)),
        Autoscaler("cpu-scaler", "llm", "ScaledObject", "LeaderWorkerSet", "deepseek-r1",
                   ["cpu", "gpu-utilization"], 0, 100, None, at(f, 139)),
    ]


def test_network_policy_expressions_and_explicit_types():
    inv = load_kubernetes_text(text("""
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        metadata: {name: expr}
        spec:
          podSelector:
            matchExpressions:
              - {key: app, operator: In, values: [a, b]}
          policyTypes: [Egress]
    """), "np.yaml")
    assert inv.network_policies == [
        NetworkPolicy("expr", "default", {"app": "In(a,b)"}, ["Egress"], 0, 0, Location("np.yaml", 1))]


@pytest.mark.parametrize(("spec", "part"), [
    ("podSelector: {matchLabels: {app: '${APP}'}}", "spec.podSelector"),
    ("podSelector: '${SEL}'", "spec.podSelector"),
    ("podSelector: {matchLabels: '${LABELS}'}", "spec.podSelector"),
    ("podSelector: {matchExpressions: [{key: app, operator: In, values: ['{{ .Values.app }}']}]}", "spec.podSelector"),
    ("podSelector: {matchLabels: {app: vllm}}\n  ingress: [{from: [{namespaceSelector: '${NS_SELECTOR}'}]}]",
     "spec.ingress[0].from[0].namespaceSelector"),
    ("podSelector: {matchLabels: {app: vllm}}\n  ingress: [{from: [{podSelector: {matchLabels: {app: '${GW}'}}}]}]",
     "spec.ingress[0].from[0].podSelector"),
])
def test_network_policy_selector_a_template_fills_is_not_known(spec, part):
    """mend14: a placeholder in a selector is not known: never a label no pod has, nor an empty (every-pod) selector
    nor an input error; the sentinel label keeps the policy from reading as one that selects every pod."""
    inv = load_kubernetes_text(text("""
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        metadata: {name: np, namespace: llm}
        spec:
          SPEC
          policyTypes: [Ingress]
    """).replace("SPEC", spec), "np.yaml")
    [np] = inv.network_policies
    assert np.unknown_part == part
    assert np.pod_selector.get(UNKNOWN_NAMESPACE) == UNKNOWN_NAMESPACE
    assert not np.default_deny_ingress


def test_network_policy_literal_selectors_are_known():
    inv = load_kubernetes_text(text("""
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        metadata: {name: np, namespace: llm}
        spec:
          podSelector: {matchLabels: {app: vllm}}
          policyTypes: [Ingress]
          ingress: [{from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: gateway}}}]}]
    """), "np.yaml")
    [np] = inv.network_policies
    assert (np.unknown_part, np.pod_selector) == (None, {"app": "vllm"})


def test_hpa_v2_without_metrics_scales_on_cpu():
    inv = load_kubernetes_text(text("""
        apiVersion: autoscaling/v2
        kind: HorizontalPodAutoscaler
        metadata: {name: h}
        spec:
          scaleTargetRef: {kind: Deployment, name: d}
          maxReplicas: 2
    """), "h.yaml")
    assert inv.autoscalers[0].metrics == ["cpu"]


def test_model_in_a_config_file_is_unknown_with_the_reason():
    inv = load_kubernetes_text(text("""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: cfg}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai
                  command: [vllm, serve, --config, /etc/vllm/config.yaml]
    """), "c.yaml")
    [g] = inv.groups
    assert (g.model, g.model_error, g.engine.extra["config"]) == (None, None, "/etc/vllm/config.yaml")
    # the file may set any other setting too: none of them is vLLM's default (issue 29)
    assert (g.engine.tensor_parallel_size, g.engine.max_model_len, g.engine.extra["api_key"]) == (
        UNKNOWN, UNKNOWN, UNKNOWN)
    assert g.model_unknown == ("it is set in the --config file '/etc/vllm/config.yaml', which shardwise cannot "
                               "read; pass the model on the command line")


def test_model_on_a_volume_path_resolves_by_its_directory_name():
    inv = load_kubernetes_text(text("""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: pvc}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai
                  args: [/mnt/models/Llama-3.1-8B-Instruct, --served-model-name, llama]
    """), "p.yaml")
    [g] = inv.groups
    assert g.model_error is None
    assert (g.model.num_hidden_layers, g.model.hidden_size) == (32, 4096)
    assert g.engine.extra == {"served_model_name": ["llama"]}


def test_bad_production_annotation():
    with pytest.raises(InputError) as err:
        load_kubernetes_text(text("""
            apiVersion: v1
            kind: Pod
            metadata:
              name: p
              annotations:
                shardwise.dev/production: maybe
            spec:
              containers: [{name: vllm, image: vllm/vllm-openai, args: [Qwen/Qwen3-8B]}]
        """), "prod.yaml")
    assert str(err.value) == "prod.yaml:6: shardwise.dev/production: expected \"true\" or \"false\", got 'maybe'"


def test_karpenter_v1beta1_single_instance_type_and_other_nodepool_kinds():
    inv = load_kubernetes_text(text("""
        apiVersion: karpenter.sh/v1beta1
        kind: NodePool
        metadata: {name: g5}
        spec:
          template:
            spec:
              requirements:
                - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.12xlarge]}
                - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
        ---
        apiVersion: example.com/v1
        kind: NodePool
        metadata: {name: not-karpenter}
    """), "k.yaml")
    [p] = inv.pools
    assert (p.name, p.gpu.name, p.gpus_per_node, p.interconnect, p.capacity_type, p.taints) == (
        "g5", "A10G", 4, "pcie", "spot,on-demand", [])
    assert dict(inv.skipped) == {"NodePool": 1}


def test_computed_values_from_a_preview_stay_unknown():
    from shardwise.rules.adapters.k8s import inventory_from_objects

    obj = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "preview", "namespace": "llm"},
        "spec": {"replicas": UNKNOWN, "template": {"spec": {"containers": [{
            "name": "vllm", "image": UNKNOWN, "command": ["vllm", "serve", UNKNOWN],
            "args": ["--tensor-parallel-size", UNKNOWN, "--max-model-len", "8192"],
            "env": [{"name": "A", "value": UNKNOWN}],
            "resources": {"limits": {"nvidia.com/gpu": UNKNOWN}},
        }]}}},
    }
    inv = inventory_from_objects([(obj, Location(urn="urn:pulumi:dev::p::kubernetes:apps/v1:Deployment::preview"))])
    [g] = inv.groups
    assert (g.replicas, g.gpus_per_pod, g.engine.model, g.engine.tensor_parallel_size, g.engine.max_model_len) == (
        UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, 8192)
    assert (g.model, g.model_error) == (None, None)
    assert (g.main_container.image, g.main_container.env) == (UNKNOWN, {"A": UNKNOWN})


def test_model_from_env_var_with_a_base_model_annotation_is_that_model():
    inv = load_kubernetes_text(text("""
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: secret-model
          annotations: {shardwise.dev/base-model: meta-llama/Llama-3.1-8B-Instruct}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai
                  env:
                    - name: MODEL_ID
                      valueFrom: {secretKeyRef: {name: cfg, key: model}}
                  args: ["--model", "$(MODEL_ID)"]
    """), "e.yaml")
    [g] = inv.groups
    assert (g.model.id, g.model.params, g.model_error, g.model_unknown) == (
        "meta-llama/Llama-3.1-8B-Instruct", 8_030_261_248, None, None)


@pytest.mark.parametrize("field,value,message", [
    ("nodeSelector", "[p5.48xlarge]", "nodeSelector: expected a mapping of node labels, got list"),
])
def test_a_node_selector_that_is_not_a_mapping_is_an_input_error(field, value, message):
    with pytest.raises(InputError) as err:
        load_kubernetes_text(text(f"""
            apiVersion: apps/v1
            kind: Deployment
            metadata: {{name: x}}
            spec:
              template:
                spec:
                  {field}: {value}
                  containers:
                    - {{name: vllm, image: vllm/vllm-openai:v0.11.0, args: [meta-llama/Llama-3.1-8B-Instruct]}}
        """), "n.yaml")
    assert (err.value.file, err.value.line, err.value.message) == ("n.yaml", 7, message)


@pytest.mark.parametrize("size", ["0", "-2"])
def test_a_leaderworkerset_of_fewer_than_one_pod_is_an_input_error(size):
    with pytest.raises(InputError) as err:
        load_kubernetes_text(text(f"""
            apiVersion: leaderworkerset.x-k8s.io/v1
            kind: LeaderWorkerSet
            metadata: {{name: x}}
            spec:
              leaderWorkerTemplate:
                size: {size}
                workerTemplate:
                  spec:
                    containers:
                      - {{name: vllm, image: vllm/vllm-openai:v0.11.0, args: [meta-llama/Llama-3.1-8B-Instruct]}}
        """), "l.yaml")
    assert (err.value.file, err.value.line, err.value.message) == (
        "l.yaml", 6, f"spec.leaderWorkerTemplate.size: expected an integer of at least 1, got {int(size)}")


# --- Helm hooks and tests are not serving workloads -----------------------------------------------------------


def test_helm_test_pods_and_hook_jobs_are_no_workloads_but_a_hook_deployment_is():
    """A `helm test` pod and a post-install Job reuse the vLLM image without starting a server: before, each gave
    SW002 ("runs the vLLM image but its command does not start a vLLM server"). Helm waits for a hook Pod or Job
    to finish, so neither serves; a Deployment created at a hook stays and serves. No rule of shardwise applies
    to pods that run no vLLM server, so nothing else is lost by not reading them."""
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import run_rules

    inv = load_inputs([fixture("helm-hooks.yaml")])
    assert [(g.kind, g.name) for g in inv.groups] == [("Deployment", "llm"), ("Deployment", "llm-warm")]
    assert (inv.launch_issues, dict(inv.skipped)) == (
        [], {"Pod (Helm test hook)": 1, "Job (Helm post-install hook)": 1})
    assert sorted((f.code, f.location.line, f.subject) for f in run_rules(ALL_RULES, inv)) == [
        ("SW305", 5, "Namespace llm")]


# --- (group, kind), never a kind alone -------------------------------------------------------------------------


def test_a_kind_of_another_group_is_no_kubernetes_workload():
    """`Deployment` of example.com is a custom resource: a `spec.template` of the wrong type is no input error
    there (the strict checks are Kubernetes' own), and its pod is read by the shape it shares."""
    inv = load_kubernetes_text(text("""
        apiVersion: example.com/v1
        kind: Deployment
        metadata: {name: chat, namespace: ai}
        spec:
          replicas: 3
          template:
            spec:
              containers:
                - {name: vllm, image: vllm/vllm-openai:v0.10.1, args: [--model, Qwen/Qwen2.5-7B-Instruct]}
        ---
        apiVersion: example.com/v1
        kind: Deployment
        metadata: {name: odd}
        spec: {template: 7}
    """), "d.yaml")
    assert [(g.kind, g.name, g.replicas, g.engine.model) for g in inv.groups] == [
        ("Deployment", "chat", 3, "Qwen/Qwen2.5-7B-Instruct")]
    assert dict(inv.skipped) == {"Deployment": 1}
    with pytest.raises(InputError) as err:
        load_kubernetes_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: odd}\nspec: {template: 7}\n",
                             "d.yaml")
    assert err.value.message == "spec.template: expected a mapping, found a number"


@pytest.mark.parametrize(("api", "kind", "replicas"), [
    ("apps/v1", "Deployment", 2), ("extensions/v1beta1", "Deployment", 2), ("apps/v1", "StatefulSet", 2),
    ("apps.kruise.io/v1beta1", "StatefulSet", 2), ("apps.kruise.io/v1alpha1", "CloneSet", 2),
    ("argoproj.io/v1alpha1", "Rollout", 2), ("apps.openshift.io/v1", "DeploymentConfig", 2),
    ("apps/v1", "DaemonSet", "UNKNOWN"), ("apps.kruise.io/v1alpha1", "DaemonSet", "UNKNOWN"),
    ("batch/v1", "Job", 1),
])
def test_workload_kinds_are_known_by_their_group(api, kind, replicas):
    """Argo Rollouts, OpenKruise (CloneSet, Advanced StatefulSet and DaemonSet) and OpenShift's DeploymentConfig
    keep the upstream shape (spec.template, spec.replicas): read as the kind they copy."""
    inv = load_kubernetes_text(text(f"""
        apiVersion: {api}
        kind: {kind}
        metadata: {{name: qwen, namespace: llm}}
        spec:
          replicas: 2
          template:
            metadata: {{labels: {{app: qwen}}}}
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.10.1
                  args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, "8192"]
    """), "w.yaml")
    [g] = inv.groups
    # the labels the controller adds to the first pod, that a Service may select on
    added = {"StatefulSet": {"statefulset.kubernetes.io/pod-name": "qwen-0", "apps.kubernetes.io/pod-index": "0"},
             "Job": {"batch.kubernetes.io/job-name": "qwen", "job-name": "qwen"}}.get(kind, {})
    assert (g.kind, "UNKNOWN" if g.replicas is UNKNOWN else g.replicas, g.unknown_operator, g.pod_labels) == (
        kind, replicas, False, {"app": "qwen", **added})


def test_an_object_whose_api_version_is_not_known_yet_is_read_as_kubernetes_own_kind():
    """At preview an apiVersion may be unknown: a `Service` is then the core Service, not a Knative one."""
    from shardwise.rules.adapters.k8s import inventory_from_objects

    obj = {"apiVersion": UNKNOWN, "kind": "Service", "metadata": {"name": "s", "namespace": "llm"},
           "spec": {"type": "LoadBalancer", "selector": {"app": "x"}, "ports": [{"port": 80}]}}
    inv = inventory_from_objects([(obj, Location("index.ts", None))])
    assert [(s.name, s.type) for s in inv.services] == [("s", "LoadBalancer")]


def test_a_public_service_for_one_statefulset_pod_is_sw306():
    """A per-pod Service (selector statefulset.kubernetes.io/pod-name, which the StatefulSet controller sets) in
    front of vLLM: before, the label was not on the pods shardwise reads and the LoadBalancer passed."""
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import run_rules

    inv = load_kubernetes_text(text("""
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: qwen, namespace: llm}
        spec:
          replicas: 2
          serviceName: qwen
          template:
            spec:
              nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.10.1
                  args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, "8192"]
                  resources: {limits: {nvidia.com/gpu: "1"}}
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: qwen-0-public, namespace: llm, annotations: {service.beta.kubernetes.io/aws-load-balancer-scheme: internet-facing}}
        spec:
          type: LoadBalancer
          selector: {statefulset.kubernetes.io/pod-name: qwen-0}
          ports: [{port: 80, targetPort: 8000}]
    """), "s.yaml")
    assert [(f.code, f.level, f.location.line, f.subject) for f in run_rules(ALL_RULES, inv) if f.code == "SW306"] == [
        ("SW306", "mandatory", 20, "Service llm/qwen-0-public")]


def _lws(name: str, gpus: str) -> str:
    return text(f"""
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata: {{name: {name}, namespace: serving}}
        spec:
          leaderWorkerTemplate:
            size: 2
            workerTemplate:
              spec:
                containers:
                  - name: vllm
                    image: vllm/vllm-openai:v0.11.0
                    command: [vllm, serve]
                    args: [meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, "${{TP}}"]
                    resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}
    """)


def test_envsubst_placeholder_in_args_is_a_crash_only_in_a_document_valid_as_written():
    # the second document's GPU count is a placeholder: it is a template, its ${TP} the value envsubst fills; the
    # first is valid as written (a template elsewhere in the file does not make it one), and vLLM gets ${TP}
    inv = load_kubernetes_text(_lws("real", "8") + "---\n" + _lws("template", '"${GPU_PER_WORKER}"'), "t.yaml")
    assert [(i.subject, i.crash) for i in inv.launch_issues] == [("LeaderWorkerSet serving/real", True)]
    assert [g.engine.tensor_parallel_size for g in inv.groups] == [UNKNOWN, UNKNOWN]


# aws-samples/sample-genai-on-eks manifests/600-finetuning/vllm-with-lora.yaml (MIT-0), its shape: a PersistentVolume
# whose S3 bucket is an envsubst variable beside the Deployment that loads the model from that bucket
_S3_PV = ("apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: s3-bucket-pv}\nspec:\n  capacity: {storage: 30Gi}\n"
          "  accessModes: [ReadOnlyMany]\n  csi:\n    driver: s3.csi.aws.com\n    volumeHandle: s3-csi-bucket-volume\n"
          "    volumeAttributes: {bucketName: '${BUCKET}', region: '${AWS_REGION}'}\n")
_S3_DEPLOY = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: anyvc%s}\nspec:\n  selector: {matchLabels: {m: a}}\n"
              "  template:\n    metadata: {labels: {m: a}}\n    spec:\n      containers:\n        - name: vllm\n"
              "          image: vllm/vllm-openai:v0.11.0\n"
              "          args: ['--model=s3://${%s}/Ministral-3-8B-Instruct-2512/', --load-format=runai_streamer]\n"
              "          resources: {limits: {nvidia.com/gpu: 1}}\n")


@pytest.mark.parametrize(("pv", "var", "crash"), [
    (_S3_PV, "BUCKET", False),  # the PV writes ${BUCKET} where nothing expands it: envsubst fills this file
    (_S3_PV, "MODEL_BUCKET", True),  # a variable the file gives no tool-only field: vLLM gets it as written
    (_S3_PV.replace("volumeAttributes: {bucketName: '${BUCKET}', region: '${AWS_REGION}'}",
                    "volumeAttributes: {bucketName: models}")
     .replace("metadata: {name: s3-bucket-pv}", "metadata: {name: s3-bucket-pv, annotations: {a: '${BUCKET}'}}"),
     "BUCKET", True),  # an annotation (kubectl's last-applied copy of args) is no evidence
    ("", "BUCKET", True),
    # review23: a field a shell runs is no evidence either: a KubeRay RayJob's entrypoint (Ray's job manager runs it
    # in a shell), a Tekton step's script, an Argo Workflows script template's source
    ("apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: sync}\nspec:\n"
     "  entrypoint: aws s3 sync s3://${BUCKET}/models /mnt/models\n", "BUCKET", True),
    ("apiVersion: tekton.dev/v1\nkind: Task\nmetadata: {name: sync}\nspec:\n  steps:\n    - name: sync\n"
     "      image: amazon/aws-cli\n      script: |\n        aws s3 sync s3://${BUCKET}/models /workspace\n",
     "BUCKET", True),
    ("apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {name: sync}\nspec:\n  entrypoint: sync\n"
     "  templates:\n    - name: sync\n      script:\n        image: amazon/aws-cli\n        command: [bash]\n"
     "        source: aws s3 sync s3://${BUCKET}/models /work\n", "BUCKET", True),
    # an Argo CD Application's source is a mapping no shell runs: its ${BUCKET} is a template tool's, as a PV's
    ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: models}\nspec:\n"
     "  source: {repoURL: 'https://github.com/example/${BUCKET}.git', path: deploy}\n", "BUCKET", False),
])
def test_a_variable_the_file_writes_where_nothing_expands_it_is_a_placeholder_in_args(pv, var, crash):
    """envsubst fills a whole file: a ${VAR} that the same file writes in a field Kubernetes never expands and no
    shell reads (a PersistentVolume's bucketName) is the tool's variable, so the same ${VAR} in vLLM's args is a
    placeholder, an unknown, not a word vLLM receives (corpus23); another ${VAR}, or one seen only in an annotation,
    still crashes as written."""
    inv = load_kubernetes_text(pv + ("---\n" if pv else "") + _S3_DEPLOY % ("", var), "lora.yaml")
    assert [(i.subject, i.crash) for i in inv.launch_issues] == ([("Deployment default/anyvc", True)] if crash else [])


@pytest.mark.parametrize("dollar", [r"\x24", r"\u0024", r"\U00000024", "$\\\n      "])
def test_a_variable_written_with_an_escape_is_a_placeholder_as_one_written_plainly(dollar):
    r"""The walk for the variables above is skipped for a text that writes neither ``${`` nor a backslash (lintspeed23:
    no string read from it can hold ``${``); a double-quoted string's escapes (``\x24``, ``\u0024``, ``\U00000024``,
    an escaped line break between ``$`` and ``{``) spell ``${`` without writing it, and are still walked."""
    pv = _S3_PV.replace("bucketName: '${BUCKET}', region: '${AWS_REGION}'", f'bucketName: "{dollar}{{BUCKET}}"')
    deploy = _S3_DEPLOY.replace("args: ['--model=s3://${%s}/", f'args: ["--model=s3://{dollar}{{%s}}/').replace(
        "-2512/', --load", '-2512/", --load')
    for filled, crash in (("BUCKET", False), ("MODEL_BUCKET", True)):
        text = pv + "---\n" + deploy % ("", filled)
        assert "${" not in text
        inv = load_kubernetes_text(text, "lora.yaml")
        assert [(i.subject, i.crash) for i in inv.launch_issues] == (
            [("Deployment default/anyvc", True)] if crash else []), (dollar, filled)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(st.lists(st.sampled_from(["$", "{", "}", "\\", "\\x24", "\\u0024", "\n", "\n  ", " ", "'", '"', "a", ": ",
                                 "- ", "|\n  ", ">\n  ", "#", "\\\n", "${"]), max_size=12))
def test_a_string_read_holds_dollar_brace_only_where_the_text_writes_it_or_a_backslash(parts):
    """:func:`~shardwise.rules.adapters.k8s.inventory.may_hold_envsubst`: no string of the documents read from a text
    holds ``${`` where it says none may (keys and values, every scalar style, both readers' values)."""
    from shardwise.rules.adapters.k8s.inventory import may_hold_envsubst
    from shardwise.rules.adapters.yamlsrc import load_documents

    def strings(v: object) -> list[str]:
        if isinstance(v, str):
            return [v]
        if isinstance(v, dict):
            return [s for k, x in v.items() for s in (*strings(k), *strings(x))]
        if isinstance(v, list):
            return [s for x in v for s in strings(x)]
        return []

    for text in ("".join(parts), "a: " + "".join(parts), 'a: "' + "".join(parts) + '"', "- '" + "".join(parts) + "'"):
        if may_hold_envsubst(text):
            continue
        docs = load_documents(text, "t.yaml")
        assert not any("${" in s for _, d in docs for s in strings(d)), text


def test_the_variables_written_where_nothing_expands_them() -> None:
    """What the walk behind the placeholder check above collects (lintspeed22 made it cheaper): the ``${VAR}`` of
    every string down to level 64 of the object, in mappings of any type and lists, never under a shell's or a
    copy's key (command, args, data, stringData, binaryData, annotations) nor in a script string (a step's
    ``script``; an Argo CD ``source`` mapping is walked), and only envsubst's form."""
    from types import MappingProxyType

    from shardwise.rules.adapters.k8s.workloads import _envsubst_outside_shell

    def nested(depth: int) -> object:  # "${DEEP}" at level ``depth`` of the object
        v: object = "${DEEP}"
        for i in range(depth - 1):
            v = {"k": v} if i % 2 else [v]
        return {"root": v}

    obj = {"metadata": {"name": "pv", "labels": {"b": "x-${LABEL}"}, "annotations": {"a": "${ANNOTATION}"}},
           "spec": {"csi": MappingProxyType({"attrs": ["${IN_LIST}", 3, None, 2.5, True, ("${TUPLE}",)]}),
                    "containers": [{"command": ["${COMMAND}"], "args": ["${ARGS}"],
                                    "env": [{"name": "A", "value": "${A}${B} $(C) ${{ d }} ${9E} ${"}]}]},
           "data": {"s.sh": "${DATA}"},
           "steps": [{"script": "echo ${SCRIPT}", "source": {"repoURL": "${REPO}"}}]}
    assert _envsubst_outside_shell(obj) == {"${LABEL}", "${IN_LIST}", "${A}", "${B}", "${REPO}"}
    assert _envsubst_outside_shell(nested(64)) == {"${DEEP}"}
    assert _envsubst_outside_shell(nested(65)) == set()
    assert _envsubst_outside_shell("${TOP}") == {"${TOP}"}


@pytest.mark.parametrize(("meta", "template"), [
    ({"name": "${JOB_NAME}"}, True),  # ai-dynamo/modelexpress' CI Jobs, filled by envsubst
    ({"name": "vllm-${SUFFIX}"}, True),  # a placeholder inside the name is refused as written too
    ({"name": "vllm", "namespace": "$NAMESPACE"}, True),
    ({"name": "{{ .Release.Name }}-vllm"}, True),  # an unrendered Helm name
    ({"name": "vllm-qwen3-32b"}, False),  # a name valid as written
    ({"name": "vllm", "namespace": "serving"}, False),
    ({}, False),
])
def test_a_placeholder_name_marks_a_template(meta: dict[str, str], template: bool) -> None:
    """corpus10: the API server admits only DNS-1123 names, so a document whose own name or namespace holds an
    envsubst or Helm placeholder is a template a tool fills before it is applied (SW003 then reads ${VAR} in its
    args as the template's value, not as a reference Kubernetes leaves unexpanded)."""
    from shardwise.rules.adapters.k8s.pods import template_name
    from shardwise.rules.adapters.k8s.workloads import is_template

    doc = {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
           "spec": {"template": {"spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
                                                          "resources": {"limits": {"nvidia.com/gpu": 2}}}]}}}}
    assert template_name(doc) is template
    assert is_template(doc) is template


def test_a_term_values_list_a_template_fills_is_not_known():
    """review38: ``values: ${APPS}`` (the whole list of a matchExpressions term, which the template fills) was read as
    no list, so ``In()``, a term no pod matches: an InferencePool's selector selected no pods, and a NetworkPolicy's
    isolated none. Both are not known now (a pool's selector UNKNOWN; the policy's unknown_part names the field)."""
    inv = load_kubernetes_text(text("""
        apiVersion: inference.networking.k8s.io/v1
        kind: InferencePool
        metadata: {name: pool, namespace: llm}
        spec:
          selector:
            matchExpressions:
              - key: app
                operator: In
                values: ${APPS}
          targetPorts: [{number: 8000}]
          endpointPickerRef: {name: epp, port: {number: 9002}}
        ---
        apiVersion: gateway.networking.k8s.io/v1
        kind: HTTPRoute
        metadata: {name: route, namespace: llm}
        spec:
          parentRefs: [{name: inference-gateway}]
          rules:
            - backendRefs: [{group: inference.networking.k8s.io, kind: InferencePool, name: pool}]
        ---
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        metadata: {name: isolate, namespace: llm}
        spec:
          podSelector:
            matchExpressions:
              - key: app
                operator: In
                values: ${APPS}
          policyTypes: [Ingress]
        """), "f.yaml")
    assert [(i.name, [(p.name, p.selector) for p in i.pools]) for i in inv.ingresses] == [
        ("route", [("pool", UNKNOWN)])]
    assert [(p.name, p.unknown_part, p.default_deny_ingress) for p in inv.network_policies] == [
        ("isolate", "spec.podSelector", False)]

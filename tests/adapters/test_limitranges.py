"""limitrange22: what the LimitRanger admission plugin writes into the pods of a namespace, and refuses of them, from
the LimitRanges of the inputs (kubernetes v1.35.4 plugin/pkg/admission/limitranger/admission.go; pkg/apis/core/v1/
defaults.go, SetDefaults_LimitRangeItem)."""

from __future__ import annotations

import pytest
from shardwise.rules.adapters.k8s.inventory import inventory_from_documents, load_kubernetes_text
from shardwise.rules.adapters.k8s.limitranges import add_limit_range, apply_limit_ranges
from shardwise.rules.adapters.yamlsrc import load_documents
from shardwise.rules.model import UNKNOWN, Inventory, Location, ServingGroup


def limit_range(name: str, namespace: str, *items: str) -> str:
    return "\n".join(["apiVersion: v1", "kind: LimitRange", f"metadata: {{name: {name}, namespace: {namespace}}}",
                      "spec:", "  limits:", *(f"    - {i}" for i in items)]) + "\n---\n"


def workload(kind: str = "Deployment", namespace: str = "llm", resources: str = "{requests: {cpu: 4}}",
             tp: int = 1) -> str:
    if kind == "Pod":
        return "\n".join([
            "apiVersion: v1", "kind: Pod", f"metadata: {{name: qwen, namespace: {namespace}}}", "spec:",
            "  containers:", "    - name: vllm", "      image: vllm/vllm-openai:v0.11.0",
            f"      args: [--model, Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, '{tp}']",
            f"      resources: {resources}"]) + "\n"
    return "\n".join([
        "apiVersion: apps/v1", f"kind: {kind}", f"metadata: {{name: qwen, namespace: {namespace}}}", "spec:",
        "  selector: {matchLabels: {app: qwen}}", "  template:", "    metadata: {labels: {app: qwen}}", "    spec:",
        "      containers:", "        - name: vllm", "          image: vllm/vllm-openai:v0.11.0",
        f"          args: [--model, Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, '{tp}']",
        f"          resources: {resources}"]) + "\n"


DEFAULT_ONE = "{type: Container, default: {cpu: '4', nvidia.com/gpu: 1}, defaultRequest: {cpu: '1'}}"


@pytest.mark.parametrize("kind", ["Deployment", "StatefulSet", "Pod"])
def test_a_default_gpu_of_the_namespace_is_the_count_of_a_container_that_writes_none(kind):
    inv = load_kubernetes_text(limit_range("defaults", "llm", DEFAULT_ONE) + workload(kind), "t.yaml")
    g = inv.groups[0]
    assert (g.gpus_per_pod, g.accelerator_resource, g.limit_range, g.main_container.gpus) == (
        1, "nvidia.com/gpu", "llm/defaults", 1)
    assert g.locations["resources"] == Location("t.yaml", 6)  # the default's line: what gives the count


def test_a_max_alone_is_the_default_as_the_api_server_stores_it():
    inv = load_kubernetes_text(limit_range("cap", "llm", "{type: Container, max: {nvidia.com/gpu: '2'}}")
                               + workload(), "t.yaml")
    assert [(g.gpus_per_pod, g.limit_range) for g in inv.groups] == [(2, "llm/cap")]


def test_a_limit_range_of_another_namespace_gives_nothing():
    inv = load_kubernetes_text(limit_range("defaults", "other", DEFAULT_ONE) + workload(), "t.yaml")
    assert [(g.gpus_per_pod, g.limit_range) for g in inv.groups] == [(None, None)]


def test_a_written_limit_wins_over_the_default_and_within_the_max_is_admitted():
    text = limit_range("cap", "llm", "{type: Container, default: {nvidia.com/gpu: 1}, max: {nvidia.com/gpu: 4}}")
    inv = load_kubernetes_text(text + workload(resources="{limits: {nvidia.com/gpu: 4}}", tp=4), "t.yaml")
    assert [(g.gpus_per_pod, g.limit_range) for g in inv.groups] == [(4, None)]


@pytest.mark.parametrize("kind", ["Deployment", "Pod"])
def test_a_limit_above_the_container_max_is_refused_at_admission(kind):
    text = limit_range("cap", "llm", "{type: Container, max: {nvidia.com/gpu: 1}}")
    docs = text + workload(kind, resources="{limits: {nvidia.com/gpu: 2}}", tp=2)
    inv = inventory_from_documents(load_documents(docs, "t.yaml"), docs, "t.yaml")
    assert inv.groups == []
    assert [(e.line, e.message) for e in inv.errors] == [(
        20 if kind == "Deployment" else 16,  # the resources line
        f"{kind} llm/qwen: 2 nvidia.com/gpu per container, but LimitRange llm/cap (t.yaml:6) allows at most 1 per "
        "Container; Kubernetes' LimitRanger refuses " + ("a pod" if kind == "Pod" else "its pods")
        + " (\"maximum nvidia.com/gpu usage per Container is 1, but limit is 2\") and none runs: lower the count to 1 "
        "or raise the LimitRange's max")]


@pytest.mark.parametrize("kind", ["Deployment", "Pod"])
def test_a_request_without_a_limit_above_the_max_is_refused_on_the_request(kind):
    """The LimitRanger's defaults give a container that writes `requests: {nvidia.com/gpu: 2}` and no limit the max as
    its limit (1): the API server's validation then refuses the request that is not its limit, and the LimitRanger's
    maxConstraint, which runs after it, checks the request once the limit passes ("but request is 2", not "limit")."""
    text = limit_range("cap", "llm", "{type: Container, max: {nvidia.com/gpu: 1}}")
    docs = text + workload(kind, resources="{requests: {nvidia.com/gpu: 2}}", tp=2)
    inv = inventory_from_documents(load_documents(docs, "t.yaml"), docs, "t.yaml")
    assert inv.groups == []
    assert [(e.line, e.message) for e in inv.errors] == [(
        20 if kind == "Deployment" else 16,
        f"{kind} llm/qwen: 2 nvidia.com/gpu requested per container without a limit, but LimitRange llm/cap (t.yaml:6) "
        "allows at most 1 per Container; Kubernetes' LimitRanger gives the container its default limit, 1, and the API "
        "server refuses " + ("a pod" if kind == "Pod" else "its pods") + " (\"must be equal to nvidia.com/gpu limit\"; "
        "the LimitRanger's own check would say \"maximum nvidia.com/gpu usage per Container is 1, but request is 2\") "
        "and none runs: lower the count to 1 or raise the LimitRange's max")]


@pytest.mark.parametrize(("items", "refused"), [
    ("{type: Container, default: {nvidia.com/gpu: 1}, max: {nvidia.com/gpu: 4}}", True),
    ("{type: Container, default: {nvidia.com/gpu: 4}}", True),  # a request below its limit is refused too
    ("{type: Container, default: {nvidia.com/gpu: 2}, max: {nvidia.com/gpu: 4}}", False),
    ("{type: Pod, max: {nvidia.com/gpu: 4}}", False),  # a Pod item gives no container a default
])
def test_a_request_without_a_limit_gets_the_default_limit_and_is_refused_where_they_differ(items, refused):
    docs = limit_range("cap", "llm", items) + workload(resources="{requests: {nvidia.com/gpu: 2}}", tp=2)
    inv = inventory_from_documents(load_documents(docs, "t.yaml"), docs, "t.yaml")
    default = "1" if "gpu: 1}" in items else "4"
    assert [(e.line, e.message) for e in inv.errors] == ([(
        20, f"Deployment llm/qwen: 2 nvidia.com/gpu requested per container without a limit, and LimitRange llm/cap "
            f"(t.yaml:6) gives the container a default limit of {default}; Kubernetes' LimitRanger writes that limit at "
            "admission and the API server refuses its pods (\"must be equal to nvidia.com/gpu limit\": nvidia.com/gpu "
            "is never overcommitted, so a container's request must equal its limit) and none runs: write the count "
            "under limits (the request defaults to it)")] if refused else [])
    assert [g.gpus_per_pod for g in inv.groups] == ([] if refused else [2])


def test_a_request_with_its_limit_above_the_max_is_refused_on_the_limit():
    text = limit_range("cap", "llm", "{type: Container, default: {nvidia.com/gpu: 1}, max: {nvidia.com/gpu: 1}}")
    docs = text + workload(resources="{requests: {nvidia.com/gpu: 2}, limits: {nvidia.com/gpu: 2}}", tp=2)
    inv = inventory_from_documents(load_documents(docs, "t.yaml"), docs, "t.yaml")
    assert [e.message.split("(\"")[1].split("\")")[0] for e in inv.errors] == [
        "maximum nvidia.com/gpu usage per Container is 1, but limit is 2"]


def test_containers_summed_above_the_pod_max_are_refused():
    text = limit_range("cap", "llm", "{type: Pod, max: {nvidia.com/gpu: 1}}")
    docs = text + workload(resources="{limits: {nvidia.com/gpu: 2}}", tp=2)
    inv = inventory_from_documents(load_documents(docs, "t.yaml"), docs, "t.yaml")
    assert (inv.groups, [e.message.split(";")[0] for e in inv.errors]) == ([], [
        "Deployment llm/qwen: 2 nvidia.com/gpu per pod, but LimitRange llm/cap (t.yaml:6) allows at most 1 per Pod"])


def test_two_limit_ranges_of_one_namespace_with_other_defaults_leave_the_count_unknown():
    # kubernetes.io "Limit Ranges": which default applies is not deterministic where two LimitRanges give one
    two = limit_range("a", "llm", DEFAULT_ONE) + limit_range("b", "llm", "{type: Container, max: {nvidia.com/gpu: 2}}")
    assert [g.gpus_per_pod for g in load_kubernetes_text(two + workload(), "t.yaml").groups] == [UNKNOWN]
    same = limit_range("a", "llm", DEFAULT_ONE) + limit_range("b", "llm", "{type: Container, max: {nvidia.com/gpu: 1}}")
    assert [g.gpus_per_pod for g in load_kubernetes_text(same + workload(), "t.yaml").groups] == [1]


def test_a_limit_range_not_known_yet_makes_the_count_unknown():
    inv = Inventory()
    add_limit_range({"metadata": {"name": "lr", "namespace": "llm"}, "spec": UNKNOWN}, Location("s.json"), inv)
    add_limit_range({"metadata": {"name": "lr2", "namespace": "llm"},
                     "spec": {"limits": [{"type": "Container", "default": {"nvidia.com/gpu": UNKNOWN}}]}},
                    Location("s.json"), inv)
    assert [lr.default for lr in inv.limit_ranges] == [{"*": UNKNOWN}, {"nvidia.com/gpu": UNKNOWN}]
    inv.groups.append(ServingGroup(name="q", kind="Deployment", namespace="llm", location=Location("s.json")))
    apply_limit_ranges(inv)
    assert [(g.gpus_per_pod, g.accelerator_resource) for g in inv.groups] == [(UNKNOWN, "nvidia.com/gpu")]


def test_a_limit_range_of_another_deployable_unit_gives_nothing():
    def inventory(units: dict[str, str]) -> Inventory:
        inv = Inventory(units=units)
        add_limit_range({"metadata": {"name": "lr", "namespace": "llm"},
                         "spec": {"limits": [{"type": "Container", "default": {"nvidia.com/gpu": 1}}]}},
                        Location("a/limits.yaml", 1), inv)
        inv.groups.append(ServingGroup(name="q", kind="Deployment", namespace="llm", location=Location("b/q.yaml", 1)))
        apply_limit_ranges(inv)
        return inv

    assert [g.gpus_per_pod for g in inventory({"a/limits.yaml": "git:/a", "b/q.yaml": "git:/b"}).groups] == [None]
    assert [g.gpus_per_pod for g in inventory({"a/limits.yaml": "git:/r", "b/q.yaml": "git:/r"}).groups] == [1]


def test_a_default_of_a_network_device_is_no_gpu_count():
    # review24: a namespace of an EKS GPU cluster whose LimitRange gives every container its GPU and EFA devices;
    # the EFA default (vpc.amazonaws.com/efa, an RDMA device rdma/...) is no accelerator, as for a container's own
    # request (catalog.accelerators.is_extended_resource): the GPU default is the count, an EFA one alone gives none
    both = "{type: Container, default: {nvidia.com/gpu: 8, vpc.amazonaws.com/efa: 32}}"
    inv = load_kubernetes_text(limit_range("defaults", "llm", both) + workload(), "t.yaml")
    assert [(g.gpus_per_pod, g.accelerator_resource, g.limit_range) for g in inv.groups] == [
        (8, "nvidia.com/gpu", "llm/defaults")]
    for device in ("vpc.amazonaws.com/efa: 4", "rdma/hca_shared_devices_a: 1"):
        alone = f"{{type: Container, default: {{{device}}}}}"
        inv = load_kubernetes_text(limit_range("defaults", "llm", alone) + workload(), "t.yaml")
        assert [(g.gpus_per_pod, g.accelerator_resource, g.limit_range) for g in inv.groups] == [(None, None, None)]


SIDECAR = """apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen, namespace: llm}
spec:
  selector: {matchLabels: {app: qwen}}
  template:
    metadata: {labels: {app: qwen}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [--model, Qwen/Qwen2.5-7B-Instruct]
          resources:
            limits: {nvidia.com/gpu: 1}
        - name: envoy
          image: envoyproxy/envoy:v1.31.0
        - name: logs
          image: fluent/fluent-bit:3.1
          resources:
            limits: {cpu: 100m, nvidia.com/gpu: 0}
"""


def test_a_sidecar_that_writes_no_gpu_gets_the_default_beside_a_server_that_writes_its_own():
    # review24: the LimitRanger gives every container that writes none of a resource its default (admission.go,
    # mergeContainerResources), the envoy proxy beside a vLLM server that writes its own GPU included; the scheduler
    # counts the pod's containers together (KEP-753): 2 GPUs a pod. A container that writes 0 takes none.
    inv = load_kubernetes_text(limit_range("gpu-defaults", "llm", DEFAULT_ONE) + SIDECAR, "t.yaml")
    g = inv.groups[0]
    assert (g.gpus_per_pod, g.scheduled_gpus, g.limit_range, g.pod_gpus_from) == (1, 2, None, (
        "container `envoy` (1, the default of LimitRange llm/gpu-defaults, which nvidia.com/gpu: 0 in its limits "
        "declines)",))
    apply_limit_ranges(inv)  # resolve_pools may run again: given once
    assert (g.scheduled_gpus, len(g.pod_gpus_from)) == (2, 1)
    capped = limit_range("cap", "llm", "{type: Pod, max: {nvidia.com/gpu: 1}}", DEFAULT_ONE)
    docs = capped + SIDECAR
    inv = inventory_from_documents(load_documents(docs, "t.yaml"), docs, "t.yaml")
    assert (inv.groups, [e.message.split(";")[0] for e in inv.errors]) == ([], [
        "Deployment llm/qwen: 2 nvidia.com/gpu per pod, but LimitRange llm/cap (t.yaml:6) allows at most 1 per Pod"])

"""Accelerator counts are read as the Kubernetes API server reads a resource quantity (hostile5).

A count of ``nvidia.com/gpu`` (or any extended resource) is a quantity: a YAML number or a string with a
decimal, binary or exponent suffix (k8s.io/apimachinery/pkg/api/resource/quantity.go). The API server admits
``1.0``, ``"1e3"``, ``"2000m"`` and ``"1k"`` as whole numbers and refuses a negative, fractional or malformed
count for an extended resource; before, ``1.0`` and ``"1e3"`` were input errors and ``-1`` was read as a
request of -1 GPUs (a mandatory SW204 on an object Kubernetes never admits).
"""

from __future__ import annotations

import textwrap
from fractions import Fraction

import pytest
from shardwise.rules.adapters.k8s import load_kubernetes_text
from shardwise.rules.adapters.k8s.fields import quantity, whole_quantity
from shardwise.rules.model.errors import InputError


@pytest.mark.parametrize("value,parsed", [
    (2, Fraction(2)), (1.0, Fraction(1)), (1.5, Fraction(3, 2)), ("1e3", Fraction(1000)), ("1E0", Fraction(1)),
    ("2000m", Fraction(2)), ("1k", Fraction(1000)), ("1Ki", Fraction(1024)), ("+2", Fraction(2)), (".5", Fraction(1, 2)),
    ("5.", Fraction(5)), (" 2 ", Fraction(2)), ("-1", Fraction(-1)), ("250u", Fraction(1, 4000)),
    ("one", None), (True, None), ([1], None), ("1 k", None), ("e3", None), ("1e99999", None), ("2 GPUs", None),
    (float("nan"), None), (float("inf"), None), (None, None),
    # fuzz17 (seed 17002 case 528, `nvidia.com/gpu: 1Ei`): the exa and exbi suffixes were taken for an exponent
    ("1Ei", Fraction(2**60)), ("1E", Fraction(10**18)), ("2Ei", Fraction(2**61)), ("1.5E", Fraction(15 * 10**17)),
])
def test_quantity_is_read_as_the_api_server_reads_it(value, parsed):
    assert quantity(value) == parsed


@pytest.mark.parametrize("value,count", [
    (1.0, 1), ("1e3", 1000), ("2000m", 2), ("0", 0), (2**63 - 1, 2**63 - 1),
    ("-1", None), (1.5, None), ("1500m", None), (2**63, None), ("one", None),
])
def test_a_whole_quantity_is_a_count_from_0_to_2_63_minus_1(value, count):
    assert whole_quantity(value) == count


def pod(count: str) -> str:
    return textwrap.dedent(f"""\
        apiVersion: v1
        kind: Pod
        metadata: {{name: p}}
        spec:
          containers:
            - name: vllm
              image: vllm/vllm-openai
              args: [org/m]
              resources: {{limits: {{nvidia.com/gpu: {count}}}}}
        """)


@pytest.mark.parametrize("count,gpus", [("1.0", 1), ('"1e3"', 1000), ('"2000m"', 2), ("2", 2), ('"1k"', 1000),
                                        ("1Ei", 2**60), ("1E", 10**18)])
def test_a_gpu_count_written_as_any_quantity_is_read(count, gpus):
    [group] = load_kubernetes_text(pod(count), "t.yaml").groups
    assert group.gpus_per_pod == gpus


@pytest.mark.parametrize("count,message", [
    ("-1", "expected a whole number, got -1 (Kubernetes refuses a negative quantity)"),
    ("1.5", "expected a whole number, got 1.5 (Kubernetes takes only whole numbers of an extended resource)"),
    ('"1500m"', "expected a whole number, got '1500m' (Kubernetes takes only whole numbers of an extended resource)"),
    ("true", "expected a whole number, got true (not a Kubernetes quantity)"),
    ('"2 GPUs"', "expected a whole number, got '2 GPUs' (not a Kubernetes quantity)"),
    ('"1e30"', "expected a whole number, got '1e30' (more than the 2^63-1 a Kubernetes quantity holds)"),
    ("8Ei", "expected a whole number, got '8Ei' (more than the 2^63-1 a Kubernetes quantity holds)"),
])
def test_a_gpu_count_kubernetes_refuses_is_an_input_error_at_its_line(count, message):
    with pytest.raises(InputError) as err:
        load_kubernetes_text(pod(count), "t.yaml")
    assert str(err.value) == f"t.yaml:9: resources.limits.nvidia.com/gpu: {message}"


@pytest.mark.parametrize("number", ["9" * 4301, "1." + "0" * 4300, "1e" + "9" * 4301, "9" * 20_000 + "Gi"])
def test_a_quantity_of_more_digits_than_python_converts_is_none_not_an_internal_error(number):
    """fuzz19 (seed 7402 input 218, a corpus Deployment's `memory: '999…'` of 4,622 digits): Fraction and int raised
    Python's ValueError past 4,300 digits, an internal error for the whole file. Such a number is not read, as an
    exponent past e1000 is not."""
    assert (quantity(number), whole_quantity(number)) == (None, None)
    assert quantity("9" * 4300) == Fraction(int("9" * 4300))


def test_a_memory_limit_of_5000_digits_beside_a_gpu_count_reads_the_pod():
    text = pod("1").replace("resources: {limits: {nvidia.com/gpu: 1}}",
                            f"resources: {{limits: {{nvidia.com/gpu: 1, memory: '{'9' * 5000}'}}}}")
    [group] = load_kubernetes_text(text, "t.yaml").groups
    assert group.gpus_per_pod == 1


@pytest.mark.parametrize("capacity,gpus", [('"8"', 8), ("8.0", 8), ('"8k"', 8000), ('"-8"', None), ('"eight"', None)])
def test_a_node_capacity_is_read_as_a_quantity(capacity, gpus):
    text = ("apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}\n"
            f"status: {{capacity: {{nvidia.com/gpu: {capacity}}}}}\n")
    [node] = load_kubernetes_text(text, "n.yaml").pools
    assert node.gpus_per_node == gpus


# readers19: a request Kubernetes refuses beside its limit. The API server validates each container's resources
# (kubernetes pkg/apis/core/validation/validation.go, ValidateContainerResourceRequirements): a request above its
# limit is refused ("must be less than or equal to cpu limit"), and a resource that is never overcommitted (an
# extended resource such as nvidia.com/gpu, huge pages: pkg/apis/core/helper IsOvercommitAllowed) must request
# exactly its limit ("must be equal to nvidia.com/gpu limit"). Before, shardwise read the limit (2 GPUs requested,
# 1 limited: sized on 1) and went on; the pod is never created, so the object is an input error, never a sizing.
def deployment(requests: str, limits: str, where: str = "containers") -> str:
    """A vLLM Deployment in the shape of the public manifests that write both requests and limits (vLLM's
    docs/deployment/k8s.md example: cpu, memory and nvidia.com/gpu under each); ``where`` is ``initContainers`` to
    give them to an init container that downloads the model instead."""
    init = [
        "      initContainers:",
        "        - name: fetch-model",
        "          image: amazon/aws-cli:2.15.0",
        '          args: [s3, sync, "s3://models/mistral", /models]',
        "          resources:",
        f"            requests: {requests}",
        f"            limits: {limits}",
    ] if where == "initContainers" else []
    mine = (requests, limits) if where == "containers" else ('{cpu: "10", memory: 20G, nvidia.com/gpu: "1"}',) * 2
    return "\n".join([
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata: {name: mistral-7b, namespace: default}",
        "spec:",
        "  replicas: 1",
        "  selector: {matchLabels: {app: mistral-7b}}",
        "  template:",
        "    metadata: {labels: {app: mistral-7b}}",
        "    spec:",
        *init,
        "      containers:",
        "        - name: mistral-7b",
        "          image: vllm/vllm-openai:v0.8.5",
        '          command: ["/bin/sh", "-c"]',
        '          args: ["vllm serve mistralai/Mistral-7B-Instruct-v0.3 --trust-remote-code"]',
        "          resources:",
        f"            requests: {mine[0]}",
        f"            limits: {mine[1]}",
    ]) + "\n"


@pytest.mark.parametrize("requests,limits,line,message", [
    ('{cpu: "10", memory: 20G, nvidia.com/gpu: "2"}', '{cpu: "10", memory: 20G, nvidia.com/gpu: "1"}', 16,
     'spec.template.spec.containers[0].resources.requests.nvidia.com/gpu: 2, but limits.nvidia.com/gpu is 1; '
     'Kubernetes refuses the pod ("must be equal to nvidia.com/gpu limit": nvidia.com/gpu is never overcommitted, '
     'so a container\'s request must equal its limit) and runs neither count: write the count once, under limits '
     '(the request defaults to it)'),
    ('{amd.com/gpu: 1}', '{amd.com/gpu: 2}', 16,  # below the limit: refused as well
     'spec.template.spec.containers[0].resources.requests.amd.com/gpu: 1, but limits.amd.com/gpu is 2; '
     'Kubernetes refuses the pod ("must be equal to amd.com/gpu limit": amd.com/gpu is never overcommitted, so a '
     'container\'s request must equal its limit) and runs neither count: write the count once, under limits (the '
     'request defaults to it)'),
    ('{cpu: "10", memory: 20G, nvidia.com/gpu: "1"}', '{cpu: 4000m, memory: 20G, nvidia.com/gpu: "1"}', 16,
     'spec.template.spec.containers[0].resources.requests.cpu: 10 is more than limits.cpu, 4000m; Kubernetes '
     'refuses the pod ("must be less than or equal to cpu limit"): lower the request or raise the limit'),
    ('{memory: 32Gi, nvidia.com/gpu: 1}', '{memory: 20G, nvidia.com/gpu: 1}', 16,
     'spec.template.spec.containers[0].resources.requests.memory: 32Gi is more than limits.memory, 20G; Kubernetes '
     'refuses the pod ("must be less than or equal to memory limit"): lower the request or raise the limit'),
])
def test_a_request_kubernetes_refuses_beside_its_limit_is_an_input_error(requests, limits, line, message):
    with pytest.raises(InputError) as err:
        load_kubernetes_text(deployment(requests, limits), "t.yaml")
    assert str(err.value) == f"t.yaml:{line}: {message}"


def test_an_init_container_request_above_its_limit_is_an_input_error_too():
    with pytest.raises(InputError) as err:
        load_kubernetes_text(deployment("{cpu: 2, memory: 4Gi}", "{cpu: 1, memory: 4Gi}", "initContainers"), "t.yaml")
    assert str(err.value) == ("t.yaml:15: spec.template.spec.initContainers[0].resources.requests.cpu: 2 is more than "
                              "limits.cpu, 1; Kubernetes refuses the pod (\"must be less than or equal to cpu limit\"): "
                              "lower the request or raise the limit")


@pytest.mark.parametrize("requests,limits,gpus", [
    ('{cpu: "10", memory: 20G, nvidia.com/gpu: "1"}', '{cpu: "10", memory: 20G, nvidia.com/gpu: "1"}', 1),
    ('{cpu: 2, memory: 8Gi, nvidia.com/gpu: 2}', '{cpu: "4", memory: 16Gi, nvidia.com/gpu: "2"}', 2),  # cpu under
    ('{nvidia.com/gpu: "2000m"}', '{nvidia.com/gpu: 2}', 2),  # equal quantities, written two ways
    ('{cpu: 500m}', '{nvidia.com/gpu: 4}', 4),  # the GPU under limits only: its request defaults to it
])
def test_requests_kubernetes_admits_beside_their_limits_are_read(requests, limits, gpus):
    [group] = load_kubernetes_text(deployment(requests, limits), "t.yaml").groups
    assert group.gpus_per_pod == gpus


def test_the_refused_object_hides_none_of_the_others_in_its_file():
    from shardwise.rules.adapters.k8s.inventory import inventory_from_documents
    from shardwise.rules.adapters.yamlsrc import load_documents

    text = deployment("{nvidia.com/gpu: 2}", "{nvidia.com/gpu: 1}") + "---\n" + pod("1")
    inv = inventory_from_documents(load_documents(text, "t.yaml"), text, "t.yaml")
    assert [(e.line, e.message.split(";")[0]) for e in inv.errors] == [
        (16, "spec.template.spec.containers[0].resources.requests.nvidia.com/gpu: 2, but limits.nvidia.com/gpu is 1")]
    assert [(g.name, g.gpus_per_pod) for g in inv.groups] == [("p", 1)]


# lintspeed21: a request written as its limit's own value (the same type, equal) is passed over without parsing
# either (most manifests write `cpu: '32'` under both): exact only if such a pair always parses to one quantity, or
# to no quantity twice, which is what this holds for values of every kind a YAML reader gives.
@pytest.mark.parametrize("value", [
    "32", "192Gi", "500m", " 2 ", "1e3", "1E-2", "1e1001", "2 GPUs", "", "${GPU}", 8, 0, -1, 2**63, 1.0, 0.5, 0.0,
    -0.0, 1e308, float("inf"), float("nan"), True, False, None, [1], {"a": 1},
])
def test_a_request_written_as_its_limit_is_its_limit(value):
    from shardwise.rules.adapters.k8s.pods import check_requests_within_limits

    twin = -0.0 if value == 0.0 and type(value) is float else value  # 0.0 and -0.0: equal, written differently
    assert type(value) is not type(twin) or value != twin or quantity(value) == quantity(twin)
    check_requests_within_limits({"requests": {"cpu": value, "nvidia.com/gpu": value},
                                  "limits": {"cpu": twin, "nvidia.com/gpu": twin}}, "c", "t.yaml", 1)


# readers20: a GPU requested without a limit. The API server refuses, as written, a request of a resource it never
# overcommits that has no limit ("Limit must be set for non overcommitable resources": kubernetes v1.35.4
# pkg/apis/core/validation/validation.go, validateResourceRequirements), but admission runs first and may write the
# limit: the LimitRanger plugin on a Pod (its namespace's default limits), a mutating webhook on any object (GKE
# Autopilot sets a workload's limits to its requests; Hugging Face's GKE TGI examples in the wide corpus write
# `requests: {nvidia.com/gpu: 1}` alone). Neither is in the inputs, so the refusal is not sure and the object is no
# input error; a pod that runs has a limit equal to what it requested, so that count is read.
def request_only(kind: str, api: str, resources: str) -> str:
    """A vLLM workload whose container writes its GPU under ``requests`` only, as public manifests that copied a
    cpu/memory block do."""
    return "\n".join([
        f"apiVersion: {api}", f"kind: {kind}", "metadata: {name: qwen, namespace: serving}", "spec:",
        "  selector: {matchLabels: {app: qwen}}", "  template:", "    metadata: {labels: {app: qwen}}", "    spec:",
        "      containers:", "        - name: vllm", "          image: vllm/vllm-openai:v0.11.0",
        "          args: [--model, Qwen/Qwen2.5-7B-Instruct]",
        f"          resources: {resources}",
    ]) + "\n"


@pytest.mark.parametrize("text", [
    request_only("Deployment", "apps/v1", "{requests: {cpu: 4, memory: 16Gi, nvidia.com/gpu: 2}}"),
    request_only("Deployment", "apps/v1", "{requests: {nvidia.com/gpu: 2}, limits: {cpu: 8, memory: 16Gi}}"),
    request_only("StatefulSet", "apps/v1", "{requests: {nvidia.com/gpu: 2}}"),
    "apiVersion: v1\nkind: Pod\nmetadata: {name: qwen}\nspec:\n  containers:\n    - name: vllm\n"
    "      image: vllm/vllm-openai:v0.11.0\n      args: [--model, Qwen/Qwen2.5-7B-Instruct]\n"
    "      resources: {requests: {nvidia.com/gpu: 2}}\n",
])
def test_a_gpu_requested_without_a_limit_is_read_as_the_pods_count(text):
    inv = load_kubernetes_text(text, "t.yaml")
    assert (inv.errors, [g.gpus_per_pod for g in inv.groups]) == ([], [2])


# readers20: a pod's own resources (spec.resources, PodLevelResources: alpha 1.32, beta and on by default from 1.34)
# take only cpu, memory and hugepages-* (kubernetes v1.35.4 component-helpers resource/helpers.go,
# supportedPodLevelResources; validation.go validatePodResourceName: "Unsupported value"); with the gate off the
# field is dropped. A GPU there was not read and the pod linted as if Kubernetes took it; it is refused, and never the
# pod's GPU on any release.
def pod_level(resources: str, container: str) -> str:
    """A Deployment in the shape of Kubernetes' pod-level resources example (docs "Assign Pod-level CPU and memory
    resources": spec.resources beside the containers'), serving vLLM."""
    return "\n".join([
        "apiVersion: apps/v1", "kind: Deployment", "metadata: {name: qwen, namespace: serving}", "spec:",
        "  selector: {matchLabels: {app: qwen}}", "  template:", "    metadata: {labels: {app: qwen}}", "    spec:",
        "      resources:", f"        limits: {resources}",
        "      containers:", "        - name: vllm", "          image: vllm/vllm-openai:v0.11.0",
        "          args: [--model, Qwen/Qwen2.5-7B-Instruct]", f"          resources: {container}",
    ]) + "\n"


@pytest.mark.parametrize("resources,container", [
    ("{cpu: 8, memory: 32Gi, nvidia.com/gpu: 1}", "{}"),  # the GPU written once, at the pod's level
    ("{nvidia.com/gpu: 1}", "{limits: {nvidia.com/gpu: 1}}"),  # and beside the container's: refused all the same
])
def test_a_gpu_in_a_pods_own_resources_is_an_input_error(resources, container):
    with pytest.raises(InputError) as err:
        load_kubernetes_text(pod_level(resources, container), "t.yaml")
    assert str(err.value) == (
        't.yaml:10: spec.template.spec.resources.limits.nvidia.com/gpu: a pod\'s own resources take only cpu, memory '
        'and hugepages-*; Kubernetes refuses the pod ("Unsupported value: "nvidia.com/gpu"": PodLevelResources, on by '
        "default from 1.34; before, the field is dropped), and on no release does it give the pod a device: request "
        "nvidia.com/gpu in the limits of the container that uses it")


def test_cpu_memory_and_huge_pages_in_a_pods_own_resources_are_admitted_and_the_gpu_is_the_containers():
    inv = load_kubernetes_text(pod_level("{cpu: 8, memory: 32Gi, hugepages-2Mi: 1Gi}", "{limits: {nvidia.com/gpu: 2}}"),
                               "t.yaml")
    assert (inv.errors, [g.gpus_per_pod for g in inv.groups]) == ([], [2])


def test_a_bare_pods_own_gpu_is_refused_and_an_operators_object_is_read_without_it():
    """A Pod is validated as written like a Deployment's template; an operator's object (OpenKruise's StatefulSet, a
    CRD whose schema may prune the field and whose controller writes the pods) is not refused by shardwise, and its
    pod-level GPU is not read as one either: the container's limit is the count."""
    bare = ("apiVersion: v1\nkind: Pod\nmetadata: {name: qwen}\nspec:\n  resources: {limits: {nvidia.com/gpu: 1}}\n"
            "  containers:\n    - name: vllm\n      image: vllm/vllm-openai:v0.11.0\n"
            "      args: [--model, Qwen/Qwen2.5-7B-Instruct]\n")
    with pytest.raises(InputError) as err:
        load_kubernetes_text(bare, "t.yaml")
    assert str(err.value).startswith("t.yaml:5: spec.resources.limits.nvidia.com/gpu: a pod's own resources take only")
    kruise = pod_level("{nvidia.com/gpu: 4}", "{limits: {nvidia.com/gpu: 2}}").replace("apps/v1", "apps.kruise.io/v1beta1")
    kruise = kruise.replace("kind: Deployment", "kind: StatefulSet")
    inv = load_kubernetes_text(kruise, "t.yaml")
    assert (inv.errors, [g.gpus_per_pod for g in inv.groups]) == ([], [2])

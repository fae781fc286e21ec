"""Topology rules that judge the parallel layout against the pods and the fabric (SW204, SW205, SW206,
SW208): each fixture, through the real adapters, fires exactly these findings — line, subject, level,
message and suppression reason. Their levels follow the blocking rule of DESIGN.md: mandatory only
when the tool is sure (fewer GPUs than workers; tensor-parallel or expert traffic over TCP; a multi-node group whose GPU
is unknown), advisory otherwise, saying what would make it sure.
"""

from __future__ import annotations

import pathlib

import pytest
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules
from shardwise.rules.model.errors import InputError

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "rules"
CODES = ("SW204", "SW205", "SW206", "SW208", "SW209")

# (line, subject, level, message, suppression reason) of the rule's own findings, per fixture
EXPECTED = {
    ('SW204', 'fail.yaml'): [
        (19, 'Deployment serving/llama70b-gpu2', 'mandatory', 'the pod requests 2 nvidia.com/gpu but TP4×PP1 starts 4 workers; vLLM cannot start with fewer GPUs than workers', None),
        (22, 'Deployment serving/llama70b-no-gpu', 'mandatory', 'the vLLM container requests no GPUs (nvidia.com/gpu or another accelerator) but TP4×PP1 needs 4 GPUs per pod; the device plugin gives a container only the GPUs it requests', None),
        (58, 'LeaderWorkerSet serving/llama405b-half-gpus', 'mandatory', '2 pods × 4 nvidia.com/gpu = 8 GPUs per group, but TP8×PP2 needs 16; vLLM cannot place all its workers', None),
        (79, 'Deployment serving/qwen32b-tp2-dp4', 'mandatory', 'the pod requests 4 nvidia.com/gpu but TP2×PP1×DP4 starts 8 workers; vLLM cannot start with fewer GPUs than workers', None),
        (84, 'Deployment serving/llama8b-cpuset-image', 'mandatory', 'the vLLM container requests no GPUs (nvidia.com/gpu or another accelerator) but TP1×PP1 needs 1 GPUs per pod; the device plugin gives a container only the GPUs it requests', None),
        (101, 'Deployment serving/llama8b-cpu-team-registry', 'mandatory', 'the vLLM container requests no GPUs (nvidia.com/gpu or another accelerator) but TP1×PP1 needs 1 GPUs per pod; the device plugin gives a container only the GPUs it requests', None),
    ],
    ('SW204', 'pass.yaml'): [
    ],
    ('SW204', 'unknown.yaml'): [
        (18, 'Deployment serving/qwen32b-dp-from-configmap', 'advisory', 'cannot decide: data_parallel_size is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW205', 'fail.yaml'): [
        (17, 'LeaderWorkerSet serving/llama70b-p3-pp2', 'advisory', 'the group spans 2 nodes of pool `instance-type=p3.16xlarge`, which has no EFA or InfiniBand; only pipeline stages cross nodes (TP8 inside a node of 8 GPUs, PP2 across), so activations between stages go over TCP: it works, with more latency per step', None),
        (47, 'LeaderWorkerSet serving/llama405b-p5-no-efa', 'advisory', 'the group spans 2 nodes of EFA pool `instance-type=p5.48xlarge`, but its pods request no vpc.amazonaws.com/efa devices; only pipeline stages cross nodes (TP8 inside a node of 8 GPUs, PP2 across), so activations between stages go over TCP: it works, with more latency per step', None),
        (63, 'LeaderWorkerSet serving/llama70b-p3-tp16', 'mandatory', "the group spans 2 nodes of pool `instance-type=p3.16xlarge`, which has no EFA or InfiniBand, and its tensor-parallel group (TP16) crosses the node boundary (8 GPUs per node): every layer's all-reduce would run over TCP", None),
        (93, 'LeaderWorkerSet serving/qwen3-30b-dp16-no-efa', 'mandatory', "the group spans 2 nodes of EFA pool `instance-type=p5.48xlarge`, but its pods request no vpc.amazonaws.com/efa devices, and the expert layers of Qwen/Qwen3-30B-A3B span the TP1×PP1×DP16 data-parallel group across nodes (8 GPUs per node): every MoE layer's all-to-all would run over TCP", None),
        (109, 'LeaderWorkerSet serving/llama70b-gfd-tp16', 'advisory', "the group spans 2 nodes of pool `gpu.product=NVIDIA-A100-SXM4-80GB`, which does not say whether it has EFA (an instance type or the label shardwise.dev/efa would), and its tensor-parallel group (TP16) crosses the node boundary (8 GPUs per node): every layer's all-reduce would run over TCP unless the nodes have EFA or InfiniBand", None),
    ],
    ('SW205', 'pass.yaml'): [
    ],
    ('SW205', 'unknown.yaml'): [
        (21, 'LeaderWorkerSet serving/llama70b-p3-tp-from-configmap', 'advisory', 'cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW206', 'fail.yaml'): [
        # at the pod spec, where the selector goes
        (13, 'Deployment serving/llama8b-anywhere', 'advisory', 'the vLLM workload has no nodeSelector or node affinity; the capacity rules cannot size this workload (weights, KV cache, context) until its GPU is known; select the GPU pool by node.kubernetes.io/instance-type, nvidia.com/gpu.product or shardwise.dev/pool', None),
        (30, 'Deployment serving/llama8b-nowhere', 'advisory', 'the selector (shardwise.dev/pool=does-not-exist) matches no GPU pool (pools: `gpu-node-1`) and names no GPU type; the capacity rules cannot size this workload (weights, KV cache, context) until its GPU is known; select the GPU pool by node.kubernetes.io/instance-type, nvidia.com/gpu.product or shardwise.dev/pool', None),
        (51, 'Deployment serving/llama70b-gpu9000', 'advisory', "the selector (nvidia.com/gpu.product=gpu-9000) names GPU `gpu-9000`, which is not in shardwise's catalog; the capacity rules cannot size this workload (weights, KV cache, context) until its GPU is known; select the GPU pool by node.kubernetes.io/instance-type, nvidia.com/gpu.product or shardwise.dev/pool", None),
        (73, 'LeaderWorkerSet serving/llama405b-anywhere', 'mandatory', 'the vLLM workload has no nodeSelector or node affinity; the capacity rules cannot size this workload (weights, KV cache, context) until its GPU is known; select the GPU pool by node.kubernetes.io/instance-type, nvidia.com/gpu.product or shardwise.dev/pool', None),
        (108, 'Deployment serving/qwen32b-lab', 'advisory', "pool `gpu-node-1` names GPU `Acme-X1` (nvidia.com/gpu.product), which is not in shardwise's catalog; the capacity rules cannot size this workload (weights, KV cache, context) until its GPU is known; select the GPU pool by node.kubernetes.io/instance-type, nvidia.com/gpu.product or shardwise.dev/pool", None),
    ],
    ('SW206', 'pass.yaml'): [
    ],
    ('SW208', 'fail.yaml'): [
        (19, 'Deployment serving/llama70b-gpu8', 'advisory', 'the pod requests 8 nvidia.com/gpu but TP4×PP1 uses 4; 4 GPUs stay reserved and idle per pod', None),
        (44, 'LeaderWorkerSet serving/llama70b-two-nodes-tp8', 'advisory', '2 pods × 8 nvidia.com/gpu = 16 GPUs per group, but TP8×PP1 uses 8; 8 GPUs stay reserved and idle per group', None),
        (80, 'InferenceService serving/llama70b-kserve', 'advisory', 'the pod requests 8 nvidia.com/gpu but TP4×PP1 uses 4; 4 GPUs stay reserved and idle per pod', None),
    ],
    ('SW208', 'pass.yaml'): [
        (40, 'Deployment serving/llama70b-whole-node', 'advisory', 'the pod requests 8 nvidia.com/gpu but TP4×PP1 uses 4; 4 GPUs stay reserved and idle per pod', 'the node is reserved whole so no neighbour shares its NVSwitch; ticket GPU-77'),
    ],
    ('SW208', 'unknown.yaml'): [
        (18, 'Deployment serving/llama70b-tp-from-configmap', 'advisory', 'cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW209', 'fail.yaml'): [
        (17, 'Deployment serving/llama8b-rocm-image', 'mandatory', 'image rocm/vllm:rocm6.4.1_vllm_0.10.1_20250909 is built for AMD Instinct GPUs (ROCm) but the pod requests nvidia.com/gpu (NVIDIA GPUs); the pod lands on a node whose accelerators this vLLM build cannot use and exits at start-up', None),
        (36, 'Deployment serving/qwen-cpu-image-on-gpu', 'advisory', "image public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.10.1 is vLLM's CPU build but the pod requests nvidia.com/gpu (NVIDIA GPUs); vLLM runs on the CPU and the accelerators stay reserved and idle", None),
    ],
    ('SW209', 'pass.yaml'): [],
}

# (line, message) of the InputError each malformed.yaml raises; its file is the fixture
INPUT_ERRORS = {
    'SW204': (24, "resources.limits.nvidia.com/gpu: expected a whole number, got '$(TP)'"),
    'SW205': (11, "spec.leaderWorkerTemplate.size: expected an integer, got 'two'"),
    'SW209': (19, "resources.limits.nvidia.com/gpu: expected a whole number, got 'one'"),
    'SW206': (21, "services[0].pool: service 'llama-8b' uses pool 'h100', which is not defined"),
}


def findings(code: str, name: str):
    inv = load_inputs([str(FIXTURES / code / name)])
    return [f for f in run_rules(ALL_RULES, inv) if f.code == code]


@pytest.mark.parametrize("code,name", sorted(EXPECTED))
def test_fixture_fires_exactly(code, name):
    got = [(f.location.line, f.subject, f.level, f.message, f.suppression_reason) for f in findings(code, name)]
    assert got == EXPECTED[(code, name)]


@pytest.mark.parametrize("code,name", sorted(k for k in EXPECTED if k[1].startswith("unknown")))
def test_unknown_fixtures_say_cannot_decide(code, name):
    assert [f.undecided for f in findings(code, name)] == [True]


@pytest.mark.parametrize("code", sorted(INPUT_ERRORS))
def test_malformed_fixture_is_an_input_error_with_file_and_line(code):
    path = str(FIXTURES / code / "malformed.yaml")
    with pytest.raises(InputError) as e:
        load_inputs([path])
    line, message = INPUT_ERRORS[code]
    assert (e.value.file, e.value.line, e.value.message) == (path, line, message)


def test_every_fixture_of_these_rules_is_asserted_here():
    on_disk = {(c, p.name) for c in CODES for p in (FIXTURES / c).iterdir()}
    assert on_disk == set(EXPECTED) | {(c, "malformed.yaml") for c in INPUT_ERRORS}


def test_the_cpu_backend_needs_no_gpu_and_no_gpu_pool():
    """vLLM's CPU backend (a CPU image, VLLM_TARGET_DEVICE=cpu, CPU-only settings, KubeAI's cpu profile):
    no GPU request is missing (SW204), no GPU pool is wanted (SW206), and cpu:6 is no GPU count (SW208)."""
    from shardwise.rules.checks._layout import runs_on_cpu

    inv = load_inputs([str(FIXTURES / "SW204" / "pass.yaml")])
    cpu = {g.name for g in inv.groups if runs_on_cpu(g)}
    assert cpu == {"opt-125m-cpu", "qwen-cpu-target", "qwen-cpu-release-image", "llama-3.1-8b-instruct-cpu"}
    kubeai = next(g for g in inv.groups if g.name == "llama-3.1-8b-instruct-cpu")
    assert (kubeai.gpus_per_pod, kubeai.cpu_backend, kubeai.pool) == (None, True, None)
    found = [(f.code, f.subject) for f in run_rules(ALL_RULES, inv) if f.code in ("SW204", "SW206", "SW208")
             and any(f.subject.endswith("/" + name) for name in cpu)]
    assert found == []

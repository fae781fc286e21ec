"""rules/render/multinode.py: the LeaderWorkerSet of a VllmMultiNode (native and Ray launch, EFA), and the
launcher and EFA defaults it takes from the image (rules/vllm/images.py).
"""

from __future__ import annotations

import pytest
from render_support import P5_EFA, multinode
from shardwise.rules.model.spec import EngineArgsSpec
from shardwise.rules.render.multinode import group_shape, render_leaderworkerset, render_vllm_multinode
from shardwise.rules.vllm import images


@pytest.mark.parametrize("image,version,launcher,why", [
    ("vllm/vllm-openai:v0.11.0", None, "ray", "vLLM 0.11.0 predates the native multi-node launch (>= 0.11.1)"),
    ("vllm/vllm-openai:v0.11.1", None, "native", "vLLM 0.11.1 has the native multi-node launch (>= 0.11.1)"),
    ("public.ecr.aws/deep-learning-containers/vllm:0.13.0-gpu-py312-ec2", None, "native",
     "vLLM 0.13.0 has the native multi-node launch (>= 0.11.1)"),
    ("123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:2024-12-01", None, "ray",
     "the vLLM version of `123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:2024-12-01` is not known (set vllm_version); "
     "Ray works with every version"),
    ("123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:2024-12-01", "0.12.0", "native",
     "vLLM 0.12.0 has the native multi-node launch (>= 0.11.1)"),
])
def test_the_launcher_default_matches_the_images_vllm(image, version, launcher, why):
    assert images.choose_launcher("auto", image, version) == (launcher, why)
    lws = render_leaderworkerset(multinode(image=image, vllm_version=version), P5_EFA)
    leader = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]
    assert leader["command"] == (["vllm", "serve"] if launcher == "native" else ["/bin/sh", "-c"])


@pytest.mark.parametrize("image,efa", [
    ("vllm/vllm-openai:v0.13.0", False),
    ("public.ecr.aws/deep-learning-containers/vllm:0.13.0-gpu-py312-ec2", True),
    ("763104351884.dkr.ecr.us-west-2.amazonaws.com/vllm:0.11.0-gpu-py312-cu128-ubuntu22.04-ec2", True),
    ("registry.example.com/vllm-efa:1", None),
])
def test_which_images_carry_libfabric_and_aws_ofi_nccl(image, efa):
    assert images.image_has_efa(image, None) is efa
    assert images.image_has_efa(image, True) is True


def test_leaderworkerset_native_launch():
    spec = multinode()
    lws, svc, monitor = render_vllm_multinode(spec, P5_EFA)
    assert lws["apiVersion"] == "leaderworkerset.x-k8s.io/v1"
    assert "annotations" not in lws["metadata"]  # exclusive topology is opt-in
    assert monitor["spec"]["selector"]["matchLabels"]["role"] == "leader"  # workers serve no /metrics
    tpl = lws["spec"]["leaderWorkerTemplate"]
    assert tpl["size"] == 2
    assert tpl["restartPolicy"] == "RecreateGroupOnPodRestart"
    assert lws["spec"]["replicas"] == 1
    leader = tpl["leaderTemplate"]["spec"]["containers"][0]
    worker = tpl["workerTemplate"]["spec"]["containers"][0]
    engine = spec.engine.to_args() + ["--host", "0.0.0.0"]
    native = ["--distributed-executor-backend", "mp", "--nnodes", "$(LWS_GROUP_SIZE)",
              "--node-rank", "$(LWS_WORKER_INDEX)", "--master-addr", "$(LWS_LEADER_ADDRESS)"]
    assert leader["command"] == worker["command"] == ["vllm", "serve"]
    assert leader["args"] == engine + native
    assert worker["args"] == engine + native + ["--headless"]
    for c in (leader, worker):
        # the AWS EKS EFA guide's pod: every EFA device, 5120Mi of 2 MiB huge pages (request = limit)
        # and a memory request, without which Kubernetes refuses a huge-page request
        assert c["resources"] == {
            "requests": {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32, "hugepages-2Mi": "5120Mi",
                         "memory": "32000Mi"},
            "limits": {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32, "hugepages-2Mi": "5120Mi"},
        }
        assert c["env"][3:] == [
            {"name": "NCCL_SOCKET_IFNAME", "value": "eth0"},
            {"name": "GLOO_SOCKET_IFNAME", "value": "eth0"},
            {"name": "VLLM_HOST_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
            {"name": "FI_PROVIDER", "value": "efa"},
            {"name": "FI_EFA_USE_DEVICE_RDMA", "value": "1"},  # GPUDirect RDMA on p5
        ]
    assert "ports" in leader and "ports" not in worker
    assert leader["startupProbe"]["failureThreshold"] * leader["startupProbe"]["periodSeconds"] >= 2700
    assert "livenessProbe" not in worker
    assert tpl["leaderTemplate"]["metadata"]["labels"]["role"] == "leader"
    assert tpl["leaderTemplate"]["spec"]["volumes"][0] == {
        "name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}
    assert svc["spec"]["selector"] == {"app.kubernetes.io/name": "llama-405b",
                                       "shardwise.dev/serving-group": "llama-405b", "role": "leader"}


def test_leaderworkerset_without_efa_and_with_an_exclusive_topology():
    no_efa = P5_EFA.model_copy(update={"efa": False})
    lws = render_leaderworkerset(multinode(exclusive_topology="topology.k8s.aws/network-node-layer-3"), no_efa)
    c = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]
    assert c["resources"] == {"requests": {"nvidia.com/gpu": 8}, "limits": {"nvidia.com/gpu": 8}}
    assert "FI_PROVIDER" not in [e["name"] for e in c["env"]]
    assert lws["metadata"]["annotations"] == {
        "leaderworkerset.sigs.k8s.io/exclusive-topology": "topology.k8s.aws/network-node-layer-3"}


def test_tensor_parallelism_over_gb200_trays_takes_each_trays_gpus():
    """TP8 on p6e-gb200.36xlarge trays of 4 GB200 (one NVL72 NVLink domain): a group is 2 pods of 4 GPUs, not one
    pod asking for 8 GPUs a tray does not have; TP8 × PP2 on 8-GPU p5 nodes stays PP pods of TP GPUs."""
    gb200 = P5_EFA.model_copy(update={"name": "gb200", "instance_type": "p6e-gb200.36xlarge"})
    spec = multinode(engine=EngineArgsSpec(model="meta-llama/Llama-3.1-405B-Instruct", tensor_parallel_size=8,
                                           max_model_len=8192), exclusive_topology="nvidia.com/gpu.clique")
    assert group_shape(spec, gb200) == (2, 4)
    assert group_shape(multinode(), P5_EFA) == (2, 8)
    assert group_shape(spec, None) == (1, 8)  # no pool: TP GPUs per pod, as before
    lws = render_leaderworkerset(spec, gb200)
    template = lws["spec"]["leaderWorkerTemplate"]
    assert template["size"] == 2
    for role in ("leaderTemplate", "workerTemplate"):
        (c,) = template[role]["spec"]["containers"]
        assert c["resources"]["limits"]["nvidia.com/gpu"] == 4, role
    assert lws["metadata"]["annotations"]["leaderworkerset.sigs.k8s.io/exclusive-topology"] == "nvidia.com/gpu.clique"


def test_leaderworkerset_ray_launch():
    lws = render_leaderworkerset(multinode(launcher="ray"), P5_EFA)
    tpl = lws["spec"]["leaderWorkerTemplate"]
    leader = tpl["leaderTemplate"]["spec"]["containers"][0]
    worker = tpl["workerTemplate"]["spec"]["containers"][0]
    assert leader["command"] == worker["command"] == ["/bin/sh", "-c"]
    (script,) = leader["args"]
    assert script.startswith('ray start --head --port=6379 --node-ip-address="$VLLM_HOST_IP" && ')
    assert "-ge 16 ]" in script  # waits for all TP x PP GPUs to join
    assert script.endswith(
        "exec vllm serve meta-llama/Llama-3.1-405B-Instruct --tensor-parallel-size 8 "
        "--pipeline-parallel-size 2 --max-model-len 32768 --max-num-seqs 32 --host 0.0.0.0 "
        "--distributed-executor-backend ray")
    assert worker["args"] == [
        'ray start --address="$LWS_LEADER_ADDRESS:6379" --node-ip-address="$VLLM_HOST_IP" --block']

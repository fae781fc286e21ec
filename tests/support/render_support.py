"""What the render tests (tests/render/) share: a VllmService and a VllmMultiNode as the stacks write them, a
multi-node EFA pool, and every pod escape hatch."""

from __future__ import annotations

from shardwise.rules.model.spec import EngineArgsSpec, NodePoolSpec, VllmMultiNodeSpec, VllmServiceSpec


def service(**kw) -> VllmServiceSpec:
    base = dict(
        name="llama-70b",
        pool="h100",
        engine=EngineArgsSpec(model="meta-llama/Llama-3.1-70B-Instruct", tensor_parallel_size=4,
                              max_model_len=32768, max_num_seqs=64),
        replicas=2,
        p95_context_tokens=6144,
        model_load_seconds=1200,
        model_cache_gib=200,
    )
    base.update(kw)
    return VllmServiceSpec(**base)


def multinode(**kw) -> VllmMultiNodeSpec:
    base = dict(
        name="llama-405b",
        pool="h100-efa",
        engine=EngineArgsSpec(model="meta-llama/Llama-3.1-405B-Instruct", tensor_parallel_size=8,
                              pipeline_parallel_size=2, max_model_len=32768, max_num_seqs=32),
        image="vllm/vllm-openai:v0.13.0",
        model_load_seconds=2700,
        model_cache_gib=900,
    )
    base.update(kw)
    return VllmMultiNodeSpec(**base)


P5_EFA = NodePoolSpec(name="h100-efa", instance_type="p5.48xlarge", multi_node=True, min_size=2,
                      desired_size=2, max_size=2)


#: Every escape hatch, as a real service would set them.
ESCAPES = {
    "labels": {"team": "inference"}, "annotations": {"example.com/owner": "ml-platform"},
    "env": [{"name": "WANDB_API_KEY", "secret_key_ref": {"name": "wandb", "key": "key"}},
            {"name": "POD_NAME", "field_path": "metadata.name"}],
    "env_from": [{"config_map": "vllm-tuning", "prefix": "VLLM_"}],
    "volumes": [{"name": "templates", "config_map": "chat-templates"}],
    "volume_mounts": [{"name": "templates", "mount_path": "/templates", "read_only": True}],
    "requests": {"cpu": "8", "memory": "64Gi"}, "limits": {"memory": "96Gi"},
    "service_account": {"name": "model-reader", "role_arn": "arn:aws:iam::123456789012:role/reader", "mode": "irsa"},
    "node_selector": {"topology.kubernetes.io/zone": "us-east-1a"},
    "node_affinity": [{"key": "topology.k8s.aws/network-node-layer-3", "operator": "In", "values": ["nn-0a1"]}],
    "tolerations": [{"key": "dedicated", "value": "inference", "effect": "NoSchedule"}],
    "priority_class_name": "inference-high", "image_pull_secrets": ["ecr-pull"],
}

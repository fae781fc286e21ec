"""Generate realistic vLLM-on-Kubernetes manifests for benchmarking ``shardwise lint``.

Each manifest is one file: a Deployment, StatefulSet or LeaderWorkerSet running vLLM (the
``vllm/vllm-openai`` image), sometimes followed by a Service in the same file. Models are real
Hugging Face ids, tensor parallelism is 1/2/4/8, nodes are selected with
``node.kubernetes.io/instance-type`` and pods carry GPU limits, probes and a memory-backed
``/dev/shm``, as production manifests do.

About one file in six is deliberately wrong in a way a capacity-aware linter should catch: a
70B model on a single 24 GB GPU, a TP larger than the node, a GPU limit that is not the TP size,
28 attention heads over TP 8, ``--gpu-memory-utilization 0.99``, no GPU node selection, a
suppression without a reason, a multi-node group without EFA, a liveness probe without a startup
probe. All files are valid YAML, so one run lints every one of them. The first manifest of each
namespace also carries the namespace's default-deny NetworkPolicy.

The output is deterministic for a given ``seed`` (same files, same bytes).

Usage::

    python benchmarks/gen_manifests.py OUT_DIR [-n 2000] [--seed 0]
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import sys
from dataclasses import dataclass
from typing import Any

import yaml

# Real Hugging Face ids with the figures a manifest author would size by (bf16 weights, heads).
MODELS: dict[str, dict[str, Any]] = {
    "meta-llama/Llama-3.1-8B-Instruct": {"weights_gb": 16.1, "heads": 32, "ctx": 131072, "short": "llama-8b"},
    "meta-llama/Llama-3.1-70B-Instruct": {"weights_gb": 141.0, "heads": 64, "ctx": 131072, "short": "llama-70b"},
    "Qwen/Qwen2.5-7B-Instruct": {"weights_gb": 15.2, "heads": 28, "ctx": 32768, "short": "qwen-7b"},
    "Qwen/Qwen2.5-72B-Instruct": {"weights_gb": 145.4, "heads": 64, "ctx": 32768, "short": "qwen-72b"},
    "mistralai/Mistral-7B-Instruct-v0.3": {"weights_gb": 14.5, "heads": 32, "ctx": 32768, "short": "mistral-7b"},
    "Qwen/Qwen2.5-14B-Instruct": {"weights_gb": 29.5, "heads": 40, "ctx": 32768, "short": "qwen-14b"},
    "Qwen/Qwen2.5-32B-Instruct": {"weights_gb": 65.5, "heads": 40, "ctx": 32768, "short": "qwen-32b"},
    "meta-llama/Llama-3.3-70B-Instruct": {"weights_gb": 141.0, "heads": 64, "ctx": 131072, "short": "llama33-70b"},
}

# The instance types manifests select, with what they carry (public EC2 figures).
INSTANCES: dict[str, dict[str, Any]] = {
    "g5.xlarge": {"gpus": 1, "gpu_gb": 24, "cpu": 4, "mem_gi": 16, "efa": False},
    "g5.12xlarge": {"gpus": 4, "gpu_gb": 24, "cpu": 48, "mem_gi": 192, "efa": False},
    "g6e.xlarge": {"gpus": 1, "gpu_gb": 48, "cpu": 4, "mem_gi": 32, "efa": False},
    "p4d.24xlarge": {"gpus": 8, "gpu_gb": 40, "cpu": 96, "mem_gi": 1152, "efa": True},
    "p5.48xlarge": {"gpus": 8, "gpu_gb": 80, "cpu": 192, "mem_gi": 2048, "efa": True},
}

IMAGES = ("vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.10.2", "vllm/vllm-openai:v0.9.2")
NAMESPACES = ("serving", "llm", "inference", "ml-platform", "default")
TEAMS = ("search", "assistant", "support", "ranking", "internal-tools", "research")

# Ways a file is deliberately wrong (see the module docstring).
BROKEN_KINDS = (
    "too-big-for-gpu",
    "tp-larger-than-node",
    "gpu-limit-not-tp",
    "heads-not-divisible",
    "gpu-mem-util-high",
    "no-gpu-selector",
    "suppression-without-reason",
    "multi-node-without-efa",
    "liveness-without-startup-probe",
)
BROKEN_FRACTION = 0.16
SERVICE_FRACTION = 0.45

# libyaml's emitter when PyYAML has it (10x faster); both write the same text for these documents.
_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@dataclass
class Plan:
    """What one manifest runs."""

    index: int
    kind: str  # Deployment | StatefulSet | LeaderWorkerSet
    model: str
    instance: str | None
    tp: int
    pp: int
    gpu_limit: int
    max_model_len: int
    gpu_mem_util: float
    broken: str | None
    with_service: bool
    image: str = IMAGES[0]
    use_affinity: bool = False  # select the node by required node affinity instead of nodeSelector
    shm: str = "8Gi"


def _fits(model: str, instance: str, tp: int) -> bool:
    """Whether the weights plus some KV headroom fit TP GPUs of this instance (a rough author's check)."""
    inst = INSTANCES[instance]
    return tp <= inst["gpus"] and MODELS[model]["weights_gb"] * 1.25 < tp * inst["gpu_gb"] * 0.9


def _valid_tp(model: str, instance: str) -> list[int]:
    heads = MODELS[model]["heads"]
    return [tp for tp in (1, 2, 4, 8) if heads % tp == 0 and _fits(model, instance, tp)]


def _plan(rng: random.Random, index: int) -> Plan:
    broken = rng.choice(BROKEN_KINDS) if rng.random() < BROKEN_FRACTION else None
    r = rng.random()
    kind = "Deployment" if r < 0.6 else "StatefulSet" if r < 0.82 else "LeaderWorkerSet"
    if broken == "multi-node-without-efa":
        kind = "LeaderWorkerSet"

    pp = 1
    instance: str | None  # None: a manifest with no GPU node selector (the "no-gpu-selector" defect)
    if kind == "LeaderWorkerSet":
        # Multi-node: a big model, TP 8 within a node and PP across 2 nodes.
        model = rng.choice(["meta-llama/Llama-3.1-70B-Instruct", "Qwen/Qwen2.5-72B-Instruct",
                            "meta-llama/Llama-3.3-70B-Instruct"])
        instance = rng.choice(["p4d.24xlarge", "p5.48xlarge"])
        tp, pp = rng.choice([(8, 2), (4, 2), (8, 2)]) if instance == "p4d.24xlarge" else (8, 2)
        if broken == "multi-node-without-efa":
            instance = "g5.12xlarge"
            tp, pp = 4, 2
    else:
        # Single node: pick an instance, then a model and TP that fit it (the common, correct case).
        while True:
            instance = rng.choice(list(INSTANCES))
            model = rng.choice(list(MODELS))
            tps = _valid_tp(model, instance)
            if tps:
                # Prefer the smallest TP that fits, sometimes one larger (throughput/latency choice).
                tp = tps[0] if rng.random() < 0.75 or len(tps) == 1 else rng.choice(tps[1:])
                break

    ctx = MODELS[model]["ctx"]
    max_model_len = rng.choice([n for n in (4096, 8192, 16384, 32768) if n <= ctx])
    gpu_mem_util = rng.choice([0.9, 0.9, 0.9, 0.92, 0.95, 0.85])
    gpu_limit = tp

    if broken == "too-big-for-gpu":
        model = rng.choice(["meta-llama/Llama-3.1-70B-Instruct", "Qwen/Qwen2.5-72B-Instruct"])
        if kind == "LeaderWorkerSet":
            instance, tp, pp = "g5.12xlarge", 1, 2
        else:
            instance, tp = rng.choice(["g5.xlarge", "g6e.xlarge"]), 1
        gpu_limit = tp
    elif broken == "tp-larger-than-node":
        instance = rng.choice(["g5.xlarge", "g6e.xlarge", "g5.12xlarge"])
        tp = 8 if instance == "g5.12xlarge" else rng.choice([2, 4])
        gpu_limit = tp
    elif broken == "gpu-limit-not-tp":
        gpu_limit = tp * 2 if tp < 8 else 4
    elif broken == "heads-not-divisible":
        model, tp = "Qwen/Qwen2.5-7B-Instruct", 8
        instance = rng.choice(["p4d.24xlarge", "p5.48xlarge"])
        gpu_limit = tp
        max_model_len = 8192
    elif broken == "gpu-mem-util-high":
        gpu_mem_util = rng.choice([0.99, 1.0])
    elif broken == "no-gpu-selector":
        instance = None

    return Plan(
        index=index, kind=kind, model=model, instance=instance, tp=tp, pp=pp, gpu_limit=gpu_limit,
        max_model_len=max_model_len, gpu_mem_util=gpu_mem_util, broken=broken,
        with_service=rng.random() < SERVICE_FRACTION,
        image=rng.choice(IMAGES),
        use_affinity=rng.random() < 0.2,
        shm=rng.choice(["2Gi", "8Gi", "16Gi", "32Gi"]),
    )


def _vllm_flags(p: Plan, rng: random.Random, port: int) -> list[str]:
    flags = [
        "--tensor-parallel-size", str(p.tp),
        "--max-model-len", str(p.max_model_len),
        "--gpu-memory-utilization", str(p.gpu_mem_util),
        "--port", str(port),
    ]
    if p.pp > 1:
        flags += ["--pipeline-parallel-size", str(p.pp)]
    if rng.random() < 0.4:
        flags += ["--max-num-seqs", str(rng.choice([64, 128, 256]))]
    if rng.random() < 0.3:
        flags += ["--enable-prefix-caching"]
    if rng.random() < 0.2:
        flags += ["--kv-cache-dtype", "fp8"]
    if rng.random() < 0.5:
        flags += ["--served-model-name", MODELS[p.model]["short"]]
    return flags


def _probes(rng: random.Random, port: int, big: bool, startup: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if startup:
        # Room for the model to load: 10-20 min for 7-32B models, 30-40 min for 70B ones (cold cache).
        out["startupProbe"] = {
            "httpGet": {"path": "/health", "port": port},
            "periodSeconds": 10,
            "failureThreshold": rng.choice([180, 240]) if big else rng.choice([60, 90, 120]),
        }
    out["readinessProbe"] = {
        "httpGet": {"path": "/health", "port": port},
        "periodSeconds": 5,
        "failureThreshold": 3,
    }
    out["livenessProbe"] = {
        "httpGet": {"path": "/health", "port": port},
        "initialDelaySeconds": 0 if "startupProbe" in out else rng.choice([120, 300, 600]),
        "periodSeconds": 10,
        "failureThreshold": 3,
    }
    return out


def _container(p: Plan, rng: random.Random, port: int, *, leader: bool = True) -> dict[str, Any]:
    inst = INSTANCES.get(p.instance or "g5.12xlarge", INSTANCES["g5.12xlarge"])
    cpu = max(2, min(inst["cpu"] - 2, 4 * max(p.gpu_limit, 1)))
    mem_gi = max(12, min(inst["mem_gi"] - 4, 24 * max(p.gpu_limit, 1)))
    limits: dict[str, Any] = {"nvidia.com/gpu": p.gpu_limit, "cpu": str(cpu), "memory": f"{mem_gi}Gi"}
    if p.kind == "LeaderWorkerSet" and inst["efa"] and p.broken != "multi-node-without-efa":
        limits["vpc.amazonaws.com/efa"] = 32 if p.instance == "p5.48xlarge" else 4
    c: dict[str, Any] = {"name": "vllm", "image": p.image}

    if p.kind == "LeaderWorkerSet":
        # vLLM's own LWS example: a Ray cluster over the group, vLLM started on the leader.
        if leader:
            serve = " ".join(["vllm", "serve", p.model, *_vllm_flags(p, rng, port)])
            script = (
                "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader "
                f"--ray_cluster_size=$(LWS_GROUP_SIZE); {serve}"
            )
        else:
            script = (
                "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker "
                "--ray_address=$(LWS_LEADER_ADDRESS)"
            )
        c["command"] = ["sh", "-c", script]
    elif rng.random() < 0.5:
        c["command"] = ["vllm", "serve", p.model]
        c["args"] = _vllm_flags(p, rng, port)
    else:
        # The image's entrypoint is the OpenAI server; only args are given.
        c["args"] = ["--model", p.model, *_vllm_flags(p, rng, port)]

    env: list[dict[str, Any]] = [
        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "HF_TOKEN"}}},
        {"name": "HF_HOME", "value": "/models"},
    ]
    if rng.random() < 0.3:
        env.append({"name": "VLLM_LOGGING_LEVEL", "value": "INFO"})
    if p.kind == "LeaderWorkerSet":
        env.append({"name": "NCCL_DEBUG", "value": "WARN"})
    c["env"] = env
    if leader:
        c["ports"] = [{"name": "http", "containerPort": port, "protocol": "TCP"}]
    c["resources"] = {"limits": limits, "requests": dict(limits)}
    if leader:
        c.update(_probes(rng, port, MODELS[p.model]["weights_gb"] > 50,
                         startup=p.broken != "liveness-without-startup-probe"))
    c["volumeMounts"] = [
        {"name": "dshm", "mountPath": "/dev/shm"},
        {"name": "model-cache", "mountPath": "/models"},
    ]
    return c


def _pod_spec(p: Plan, rng: random.Random, labels: dict[str, str], port: int, *, leader: bool = True,
              pvc_template: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if p.instance is not None:
        if not p.use_affinity:
            spec["nodeSelector"] = {"node.kubernetes.io/instance-type": p.instance}
        else:
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": [p.instance]},
                ]}],
            }}}
    spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    spec["terminationGracePeriodSeconds"] = 60
    spec["containers"] = [_container(p, rng, port, leader=leader)]
    shm = {"medium": "Memory", "sizeLimit": p.shm}
    volumes: list[dict[str, Any]] = [{"name": "dshm", "emptyDir": shm}]
    if not pvc_template:
        if rng.random() < 0.5:
            volumes.append({"name": "model-cache", "persistentVolumeClaim": {"claimName": f"{labels['app']}-cache"}})
        else:
            volumes.append({"name": "model-cache", "emptyDir": {"sizeLimit": "200Gi"}})
    spec["volumes"] = volumes
    return spec


def _metadata(name: str, ns: str, labels: dict[str, str], annotations: dict[str, str] | None = None) -> dict[str, Any]:
    md: dict[str, Any] = {"name": name, "namespace": ns, "labels": dict(labels)}
    if annotations:
        md["annotations"] = annotations
    return md


def _workload(p: Plan, rng: random.Random, name: str, ns: str, port: int, team: str) -> dict[str, Any]:
    labels = {"app": name, "app.kubernetes.io/name": "vllm", "app.kubernetes.io/part-of": team}
    annotations: dict[str, str] = {}
    if rng.random() < 0.2:
        annotations["shardwise.dev/p95-context-tokens"] = str(rng.choice([2048, 4096, 6000]))
    if p.broken == "suppression-without-reason":
        annotations["shardwise.dev/ignore"] = rng.choice(["SW104", "SW202"])
    elif rng.random() < 0.05:
        annotations["shardwise.dev/ignore"] = "SW104: benchmarked TP2 latency, p95 TPOT 18 ms"
    replicas = rng.choice([1, 1, 2, 2, 3, 4])
    template = {"metadata": {"labels": dict(labels)}}

    if p.kind == "LeaderWorkerSet":
        size = p.pp
        group_labels = dict(labels)
        leader_tpl = {"metadata": {"labels": {**group_labels, "role": "leader"}},
                      "spec": _pod_spec(p, rng, labels, port, leader=True)}
        worker_tpl = {"metadata": {"labels": {**group_labels, "role": "worker"}},
                      "spec": _pod_spec(p, rng, labels, port, leader=False)}
        return {
            "apiVersion": "leaderworkerset.x-k8s.io/v1",
            "kind": "LeaderWorkerSet",
            "metadata": _metadata(name, ns, labels, annotations),
            "spec": {
                "replicas": rng.choice([1, 1, 2]),
                "leaderWorkerTemplate": {
                    "size": size,
                    "restartPolicy": "RecreateGroupOnPodRestart",
                    "leaderTemplate": leader_tpl,
                    "workerTemplate": worker_tpl,
                },
            },
        }

    pvc = p.kind == "StatefulSet"
    template["spec"] = _pod_spec(p, rng, labels, port, pvc_template=pvc)
    spec: dict[str, Any] = {"replicas": replicas, "selector": {"matchLabels": {"app": name}}}
    if p.kind == "Deployment":
        spec["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}
        spec["template"] = template
        api = "apps/v1"
    else:
        spec["serviceName"] = name
        spec["podManagementPolicy"] = "Parallel"
        spec["template"] = template
        spec["volumeClaimTemplates"] = [{
            "metadata": {"name": "model-cache"},
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "gp3",
                "resources": {"requests": {"storage": rng.choice(["100Gi", "200Gi", "500Gi"])}},
            },
        }]
        api = "apps/v1"
    return {"apiVersion": api, "kind": p.kind, "metadata": _metadata(name, ns, labels, annotations), "spec": spec}


def _service(name: str, ns: str, port: int, lws: bool) -> dict[str, Any]:
    selector = {"app": name}
    if lws:
        selector["role"] = "leader"
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
        "spec": {
            "type": "ClusterIP",
            "selector": selector,
            "ports": [{"name": "http", "port": 80, "targetPort": port, "protocol": "TCP"}],
        },
    }


def _network_policies(ns: str) -> list[dict[str, Any]]:
    """A namespace's default-deny ingress policy and the one that lets the gateway in."""
    return [
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": "default-deny-ingress", "namespace": ns},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress"]},
        },
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": "allow-from-gateway", "namespace": ns},
            "spec": {
                "podSelector": {"matchLabels": {"app.kubernetes.io/name": "vllm"}},
                "policyTypes": ["Ingress"],
                "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {
                    "kubernetes.io/metadata.name": "gateway"}}}]}],
            },
        },
    ]


def render(index: int, rng: random.Random, namespaces_seen: set[str] | None = None) -> tuple[str, str, Plan]:
    """One manifest: (file name, YAML text, plan).

    The first manifest of each namespace (but ``default``) also carries the namespace's
    NetworkPolicies, as a platform team's base manifests would; ``namespaces_seen`` tracks that.
    """
    p = _plan(rng, index)
    short = MODELS[p.model]["short"]
    team = rng.choice(TEAMS)
    name = f"{short}-{team}-{index:05d}"
    ns = rng.choice(NAMESPACES)
    port = rng.choice([8000, 8000, 8000, 8080])
    docs = [_workload(p, rng, name, ns, port, team)]
    if p.with_service:
        docs.append(_service(name, ns, port, p.kind == "LeaderWorkerSet"))
    if namespaces_seen is not None and ns not in namespaces_seen:
        namespaces_seen.add(ns)
        if ns != "default":
            docs.extend(_network_policies(ns))
    header = (
        f"# {p.kind} serving {p.model} (TP {p.tp}"
        + (f", PP {p.pp}" if p.pp > 1 else "")
        + f") on {p.instance or 'any node'}\n"
        "# generated by benchmarks/gen_manifests.py\n"
    )
    body = yaml.dump_all(docs, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=4096)
    kind_slug = {"Deployment": "deploy", "StatefulSet": "sts", "LeaderWorkerSet": "lws"}[p.kind]
    return f"vllm-{index:05d}-{kind_slug}-{short}.yaml", header + body, p


def generate(out_dir: str, n: int = 2000, seed: int = 0) -> list[str]:
    """Write ``n`` manifests into ``out_dir`` (created if needed); return their paths.

    Earlier output of this function in ``out_dir`` (``vllm-*.yaml``) is removed first, so the
    directory holds exactly these ``n`` files. Same ``seed``, same files.
    """
    if n < 0:
        raise ValueError("n must be >= 0")
    os.makedirs(out_dir, exist_ok=True)
    for old in glob.glob(os.path.join(out_dir, "vllm-*.yaml")):
        os.remove(old)
    rng = random.Random(seed)
    seen: set[str] = set()
    paths = []
    for i in range(n):
        fname, text, _ = render(i, rng, seen)
        path = os.path.join(out_dir, fname)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        paths.append(path)
    return paths


def summary(n: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Counts by kind and by deliberate defect of what :func:`generate` writes (without writing)."""
    rng = random.Random(seed)
    seen: set[str] = set()
    kinds: dict[str, int] = {}
    broken: dict[str, int] = {}
    services = 0
    for i in range(n):
        _, _, p = render(i, rng, seen)
        kinds[p.kind] = kinds.get(p.kind, 0) + 1
        if p.broken:
            broken[p.broken] = broken.get(p.broken, 0) + 1
        services += p.with_service
    return {"files": n, "kinds": kinds, "broken": broken, "with_service": services}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", help="directory to write the manifests into")
    ap.add_argument("-n", type=int, default=2000, help="number of manifest files (default 2000)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = ap.parse_args(argv)
    paths = generate(args.out_dir, args.n, args.seed)
    print(f"wrote {len(paths)} manifests to {args.out_dir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

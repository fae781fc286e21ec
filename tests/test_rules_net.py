"""Network, security and reliability rules (SW3xx, SW4xx): every fixture, in its real input format
(Kubernetes YAML, ``pulumi stack export`` and ``pulumi preview --json`` files), through the real
adapters (``load_inputs``), fires exactly these findings of its rule: line, subject, level, message
and suppression reason. ``unknown.*`` fixtures hold values that are unknown at preview (or come
from a ConfigMap); ``malformed.*`` ones are input errors.
"""

from __future__ import annotations

import pathlib

import pytest
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks._net import runtime_ports_covered, world_families
from shardwise.rules.checks.registry import ALL_RULES, rule_by_code
from shardwise.rules.checks.sw306 import dev_mode_on
from shardwise.rules.checks.sw402 import required_startup_seconds
from shardwise.rules.checks.sw403 import metric_kind
from shardwise.rules.checks.sw406 import routing
from shardwise.rules.engine import LintConfig, run_rules
from shardwise.rules.model import Ingress, SgRule
from shardwise.rules.model.errors import InputError

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "rules"
CODES = ("SW301", "SW302", "SW303", "SW304", "SW305", "SW306", "SW307", "SW308", "SW309", "SW310", "SW311",
         "SW312", "SW401", "SW402", "SW403", "SW404", "SW405", "SW406", "SW407", "SW408")

# (line, subject, level, message, suppression reason) of the rule's own findings, per fixture
EXPECTED = {
    ('SW301', 'fail.json'): [
        (7, 'SecurityGroup gpu-nodes', 'mandatory', "security group `gpu-nodes` allows tcp 6379 (Ray GCS) from 0.0.0.0/0; runtime ports must be reachable only from the group's own security group", None),
        (21, 'SecurityGroup gpu-nodes', 'mandatory', "security group `gpu-nodes` allows tcp 1024-65535 (vLLM NIXL side channel 5600, Ray GCS 6379, Ray dashboard 8265, vLLM Mooncake bootstrap 8998, Ray client 10001, vLLM KV transfer 14579, torch.distributed / vLLM data-parallel master 29500, vLLM multi-node master (--master-port) 29501, vLLM data-parallel RPC 29550, Ray dashboard agent 52365 and NCCL's ephemeral ports) from 10.0.0.0/8; runtime ports must be reachable only from the group's own security group", None),
        (61, 'SecurityGroup debug-access', 'mandatory', "security group `debug-access` allows tcp 8265 (Ray dashboard) from 0:0:0:0:0:0:0:0/0; runtime ports must be reachable only from the group's own security group", None),
        (61, 'SecurityGroup debug-access', 'mandatory', "security group `debug-access` allows tcp 29501 (vLLM multi-node master (--master-port)) from 0.0.0.0/1 (with 128.0.0.0/1 of the group's other rules), which together cover every IPv4 address; runtime ports must be reachable only from the group's own security group", None),
        (61, 'SecurityGroup debug-access', 'mandatory', "security group `debug-access` allows tcp 29500-29501 (torch.distributed / vLLM data-parallel master 29500 and vLLM multi-node master (--master-port) 29501) from 128.0.0.0/1 (with 0.0.0.0/1 of the group's other rules), which together cover every IPv4 address; runtime ports must be reachable only from the group's own security group", None),
    ],
    ('SW301', 'fail.yaml'): [
        (4, 'Service serving/ray-head', 'mandatory', "Service `serving/ray-head` of type LoadBalancer exposes port 6379 (Ray GCS) outside the cluster; runtime ports must stay inside the serving group's private network", None),
        (26, 'Ingress serving/ray-dashboard', 'mandatory', "Ingress `serving/ray-dashboard` routes outside traffic to port 8265 (Ray dashboard); runtime ports must stay inside the serving group's private network", None),
        (59, 'Service serving/ray-head-public', 'mandatory', "Service `serving/ray-head-public` of type LoadBalancer exposes port 6379 (Ray GCS, targetPort `gcs`) outside the cluster; runtime ports must stay inside the serving group's private network", None),
        (70, 'Service serving/llama-405b-master', 'mandatory', "Service `serving/llama-405b-master` of type NodePort exposes port 29501 (vLLM multi-node master (--master-port)) outside the cluster; runtime ports must stay inside the serving group's private network", None),
    ],
    ('SW301', 'pass.json'): [
    ],
    ('SW301', 'pass.yaml'): [
    ],
    ('SW301', 'unknown.json'): [
        (6, 'SecurityGroup gpu-nodes', 'mandatory', 'cannot decide: source security group of an ingress rule of `gpu-nodes` is not known (a computed value or an unresolved reference)', None),
        (37, 'NodePool h100', 'mandatory', 'cannot decide: the security-group list of node pool `h100` is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW301', 'unknown.yaml'): [
        (3, 'Service serving/ray-head-public', 'mandatory', 'cannot decide: the port behind targetPort `gcs` of Service `ray-head-public` is not known (no workload in the inputs has the pods it selects; lint it together with them, or give the targetPort as a number)', None),
    ],
    ('SW302', 'fail.json'): [
        (6, 'NodePool h100-efa', 'mandatory', 'node pool `h100-efa` has EFA interfaces but security group `efa` has no all-traffic self-referencing egress rule; EFA needs all traffic allowed from and to the group itself, inbound and outbound', None),
        (17, 'NodePool a100-efa', 'mandatory', 'node pool `a100-efa` has EFA interfaces but security group `efa-ports` has no all-traffic self-referencing ingress rule and no all-traffic self-referencing egress rule; EFA needs all traffic allowed from and to the group itself, inbound and outbound', None),
    ],
    ('SW302', 'pass.json'): [
    ],
    ('SW302', 'unknown.json'): [
        (21, 'NodePool h100-efa', 'mandatory', 'cannot decide: a security group of node pool `h100-efa` is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW303', 'fail.json'): [
        (30, 'NodePool l40s', 'mandatory', 'node pool `l40s` launches GPU nodes into subnet `public-a`, which maps public IPs on launch (map_public_ip_on_launch = true); GPU nodes must be in private subnets', None),
    ],
    ('SW303', 'pass.json'): [
    ],
    ('SW303', 'unknown.json'): [
        (30, 'NodePool l40s', 'mandatory', 'cannot decide: map_public_ip_on_launch of subnet `public-a` is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW304', 'fail.json'): [
        (6, 'LaunchTemplate gpu-lt', 'mandatory', "launch template `gpu-lt` of node pool `h100` sets http_tokens = optional (IMDSv1 allowed) and http_put_response_hop_limit = 2; required: http_tokens = required and http_put_response_hop_limit = 1, so pods cannot take the node's IAM credentials", None),
        (26, 'NodePool l4', 'mandatory', "node pool `l4` has no launch template, so its instance metadata settings are EKS's defaults (with AL2 AMIs: IMDSv1 allowed, hop limit 2); required: a launch template with http_tokens = required and http_put_response_hop_limit = 1", None),
        (39, 'LaunchTemplate a10g-lt', 'mandatory', "launch template `a10g-lt` of node pool `a10g` sets http_put_response_hop_limit = 2; required: http_tokens = required and http_put_response_hop_limit = 1, so pods cannot take the node's IAM credentials", 'the node-local DCGM exporter reads IMDS from a pod; ticket GPU-412 moves it to Pod Identity'),
    ],
    ('SW304', 'fail.yaml'): [
        (2, 'LaunchTemplate gpu', 'mandatory', "launch template `gpu` of node pool `l40s` sets http_tokens = optional (IMDSv1 allowed) and http_put_response_hop_limit = 2; required: http_tokens = required and http_put_response_hop_limit = 1, so pods cannot take the node's IAM credentials", None),
    ],
    ('SW304', 'pass.json'): [
    ],
    ('SW304', 'pass.yaml'): [
    ],
    ('SW304', 'unknown.json'): [
        (5, 'LaunchTemplate gpu-lt', 'mandatory', 'cannot decide: http_tokens of launch template `gpu-lt` is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW305', 'fail.yaml'): [
        (5, 'Namespace serving', 'advisory', 'namespace `serving` (Deployment serving/llama-8b, Deployment serving/qwen-7b) has no default-deny ingress policy (no network policy at all); every pod in the cluster can reach vLLM without the gateway; required: a default-deny ingress policy there, or the namespace in default_deny_namespaces when its policy is managed elsewhere', None),
        (33, 'Namespace llm', 'mandatory', 'namespace `llm` (LeaderWorkerSet llm/llama-405b) has no default-deny ingress policy (NetworkPolicy `allow-gateway` selects only some pods or allows ingress); the runtime ports (Ray, torch.distributed, NCCL) of multi-node llama-405b are open to every pod in the cluster; required: a default-deny ingress policy there, or the namespace in default_deny_namespaces when its policy is managed elsewhere', None),
        (83, 'Namespace cilium-ns', 'advisory', 'namespace `cilium-ns` (Deployment cilium-ns/mistral-7b) has no default-deny ingress policy (CiliumNetworkPolicy `allow-gateway` selects only some pods or allows ingress); its vLLM pods are isolated by the policies that select them, but every other pod there is not; required: a default-deny ingress policy there, or the namespace in default_deny_namespaces when its policy is managed elsewhere', None),
    ],
    ('SW305', 'pass.yaml'): [
    ],
    ('SW305', 'unknown.json'): [
        (5, 'Deployment <unknown>/llama-8b', 'advisory', 'cannot decide: the namespace is not known (a computed value or an unresolved reference)', None),
        (60, 'LeaderWorkerSet <unknown>/llama-405b', 'mandatory', 'cannot decide: the namespace is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW306', 'fail.yaml'): [
        (20, 'Deployment serving/llama-8b', 'mandatory', 'container `vllm` of Deployment serving/llama-8b sets VLLM_SERVER_DEV_MODE=1, which serves unauthenticated development endpoints (/sleep, /reset_prefix_cache, /collective_rpc); required: VLLM_SERVER_DEV_MODE unset or 0', None),
        (31, 'Service serving/llama-8b-public', 'mandatory', 'Service `serving/llama-8b-public` of type LoadBalancer exposes Deployment serving/llama-8b directly on port 80; required: type ClusterIP behind a gateway that authenticates clients', None),
        (41, 'Service serving/llama-8b-nodeport', 'mandatory', 'Service `serving/llama-8b-nodeport` of type NodePort exposes Deployment serving/llama-8b directly on port 8000; required: type ClusterIP behind a gateway that authenticates clients', None),
        (62, 'Deployment serving/qwen-7b', 'advisory', "container `vllm` of Deployment serving/qwen-7b sets VLLM_SERVER_DEV_MODE='true', which is not an integer: vLLM reads it with int() and stops with a ValueError at start-up (dev mode is not on); required: VLLM_SERVER_DEV_MODE unset or 0", None),
        (72, 'Deployment serving/mistral-7b', 'mandatory', 'container `vllm` of Deployment serving/mistral-7b sets VLLM_SERVER_DEV_MODE=1 (from envFrom ConfigMap `vllm-env`), which serves unauthenticated development endpoints (/sleep, /reset_prefix_cache, /collective_rpc); required: VLLM_SERVER_DEV_MODE unset or 0', None),
    ],
    ('SW306', 'pass.yaml'): [
    ],
    ('SW306', 'unknown.yaml'): [
        (3, 'Deployment serving/llama-8b', 'mandatory', 'cannot decide: VLLM_SERVER_DEV_MODE of container `vllm` is not known (a computed value or an unresolved reference)', None),
        (23, 'Deployment serving/qwen-7b', 'mandatory', 'cannot decide: VLLM_SERVER_DEV_MODE of container `vllm` is not known (it may be set by envFrom Secret `vllm-secrets`, which shardwise does not read; set VLLM_SERVER_DEV_MODE in env (env wins over envFrom))', None),
    ],
    ('SW307', 'fail.yaml'): [
        (15, 'Deployment serving/llama-8b', 'advisory', 'container `vllm` of Deployment serving/llama-8b uses image `vllm/vllm-openai:latest` (tag latest); required: a release tag or a digest', None),
        (19, 'Deployment serving/llama-8b', 'advisory', 'container `metrics-proxy` of Deployment serving/llama-8b uses image `registry.example.com:5000/platform/metrics-proxy` (no tag, so :latest); required: a release tag or a digest', None),
    ],
    ('SW307', 'pass.yaml'): [
    ],
    ('SW307', 'unknown.json'): [
        (5, 'Deployment serving/llama-8b', 'advisory', 'cannot decide: image of container `vllm` is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW308', 'fail.yaml'): [
        (21, 'Deployment serving/llama-8b', 'mandatory', 'container `vllm` of Deployment serving/llama-8b passes --api-key a literal value (26 characters); required: the key from a Secret (VLLM_API_KEY from valueFrom.secretKeyRef for --api-key, HF_TOKEN for --hf-token)', None),
        (24, 'Deployment serving/llama-8b', 'mandatory', 'container `vllm` of Deployment serving/llama-8b sets HF_TOKEN to a Hugging Face token written in the manifest (hf_…, 39 characters); required: a valueFrom.secretKeyRef to a Secret', None),
        (35, 'ConfigMap serving/model-download', 'mandatory', 'ConfigMap `serving/model-download` holds a Hugging Face token under HUGGING_FACE_HUB_TOKEN (hf_…, 39 characters); ConfigMaps are not for credentials; required: a Secret', None),
        (36, 'ConfigMap serving/model-download', 'advisory', 'ConfigMap `serving/model-download` holds what looks like a credential under REGISTRY_PASSWORD (15 characters); ConfigMaps are not for credentials; required: a Secret', None),
    ],
    ('SW308', 'pass.yaml'): [
    ],
    ('SW309', 'fail.yaml'): [
        (16, 'LeaderWorkerSet serving/llama-405b', 'mandatory', "LeaderWorkerSet serving/llama-405b sets hostNetwork: true, so its API and runtime ports listen on the node's addresses, outside every NetworkPolicy; required: hostNetwork unset", None),
        (23, 'LeaderWorkerSet serving/llama-405b', 'mandatory', 'container `vllm` of LeaderWorkerSet serving/llama-405b is privileged: it has every device and capability of the node; required: privileged unset (GPUs and EFA come from their device plugins)', None),
        (39, 'Deployment serving/llama-70b', 'advisory', "Deployment serving/llama-70b sets hostIPC: true, so it shares the node's shared memory (usually a /dev/shm workaround: mount a memory-backed emptyDir there instead); required: hostIPC unset", None),
        (45, 'Deployment serving/llama-70b', 'mandatory', 'container `vllm` of Deployment serving/llama-70b adds SYS_ADMIN, which controls the node or its other pods; required: no capabilities beyond IPC_LOCK (for RDMA)', None),
        (45, 'Deployment serving/llama-70b', 'advisory', 'container `vllm` of Deployment serving/llama-70b adds NET_RAW, which vLLM does not need; required: no capabilities beyond IPC_LOCK (for RDMA)', None),
        (45, 'Deployment serving/llama-70b', 'advisory', "container `vllm` of Deployment serving/llama-70b runs with seccomp Unconfined, without the runtime's system-call filter; required: RuntimeDefault (or a Localhost profile)", None),
    ],
    ('SW309', 'pass.yaml'): [
    ],
    ('SW310', 'fail.yaml'): [
        (21, 'Deployment serving/llama-70b', 'mandatory', "container `vllm` of Deployment serving/llama-70b sets NVIDIA_VISIBLE_DEVICES to 'all', which overrides the GPUs the device plugin allocated (it can reach other pods' GPUs); required: the variable unset, GPUs requested with nvidia.com/gpu", None),
        (22, 'Deployment serving/llama-70b', 'mandatory', "container `vllm` of Deployment serving/llama-70b sets CUDA_VISIBLE_DEVICES='4,5,6,7', so vLLM sees 0 devices (the container's 4 are numbered 0-3 inside it) but TP4×PP1 needs 4 in the pod; it cannot start; required: the variable unset (the device plugin already chose the devices)", None),
        (28, 'Deployment serving/llama-70b:vllm-draft', 'advisory', "container `vllm-draft` of Deployment serving/llama-70b:vllm-draft sets NVIDIA_VISIBLE_DEVICES='void', which hides every GPU from the vLLM server; required: the variable unset (request GPUs with nvidia.com/gpu)", None),
    ],
    ('SW310', 'pass.yaml'): [
    ],
    ('SW310', 'unknown.yaml'): [
        (16, 'Deployment serving/llama-70b', 'advisory', 'cannot decide: NVIDIA_VISIBLE_DEVICES of container `vllm` is not known (it may be set by envFrom ConfigMap `gpu-settings`, which is not in the inputs; lint it together with the workload, or set NVIDIA_VISIBLE_DEVICES in env (env wins over envFrom))', None),
        (16, 'Deployment serving/llama-70b', 'advisory', 'cannot decide: CUDA_VISIBLE_DEVICES of container `vllm` is not known (it may be set by envFrom ConfigMap `gpu-settings`, which is not in the inputs; lint it together with the workload, or set CUDA_VISIBLE_DEVICES in env (env wins over envFrom))', None),
    ],
    ('SW401', 'fail.yaml'): [
        (15, 'Deployment serving/llama-70b', 'mandatory', "container `vllm` of Deployment serving/llama-70b runs tensor_parallel_size 4 but mounts nothing at /dev/shm (the container runtime's default is 64 MiB); required: an emptyDir with medium: Memory mounted there", None),
        (37, 'Deployment serving/qwen-32b', 'mandatory', 'container `vllm` of Deployment serving/qwen-32b runs tensor_parallel_size 2 with emptyDir `shm` without medium: Memory (node disk) at /dev/shm; required: an emptyDir with medium: Memory', None),
    ],
    ('SW401', 'pass.yaml'): [
    ],
    ('SW401', 'unknown.yaml'): [
        (20, 'Deployment serving/llama-70b', 'advisory', 'cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW402', 'fail.yaml'): [
        (21, 'Deployment serving/llama-70b', 'mandatory', 'container `vllm` of Deployment serving/llama-70b has a liveness probe that acts after 90 s (initialDelaySeconds 60 + periodSeconds 10 × failureThreshold 3) and no startup probe; loading the model needs about 562 s, so required: a startup probe allowing at least 562 s', None),
        (47, 'Deployment serving/llama-70b-canary', 'mandatory', 'the startup probe of container `vllm` of Deployment serving/llama-70b-canary allows 300 s (initialDelaySeconds 0 + periodSeconds 10 × failureThreshold 30); loading the model needs about 562 s, so required: at least 562 s', None),
    ],
    ('SW402', 'pass.yaml'): [
    ],
    ('SW402', 'unknown.json'): [
        (5, 'Deployment serving/llama-8b', 'advisory', 'cannot decide: startup probe failure_threshold of container `vllm` is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW403', 'fail.yaml'): [
        (20, 'HorizontalPodAutoscaler serving/llama-8b', 'advisory', 'HorizontalPodAutoscaler `serving/llama-8b` scales Deployment serving/llama-8b on cpu; required: queue depth (vllm:num_requests_waiting) or in-flight requests (vllm:num_requests_running)', None),
        (33, 'ScaledObject serving/llama-8b-gpu', 'advisory', 'ScaledObject `serving/llama-8b-gpu` scales Deployment serving/llama-8b on gpu-utilization; required: queue depth (vllm:num_requests_waiting) or in-flight requests (vllm:num_requests_running)', None),
    ],
    # ('SW403', 'malformed.yaml'): InputError tests/fixtures/rules/SW403/malformed.yaml:27: spec.minReplicas: expected an integer, got 'two'
    ('SW403', 'pass.yaml'): [
    ],
    ('SW404', 'fail.yaml'): [
        (10, 'Deployment serving/llama-8b', 'advisory', 'Deployment serving/llama-8b runs in a production stack with 1 warm replica (replicas is 1); required: at least 2', None),
        (29, 'Deployment serving/qwen-7b', 'advisory', 'Deployment serving/qwen-7b runs in a production stack with 1 warm replica (ScaledObject `qwen-7b` keeps a minimum of 1); required: at least 2', None),
    ],
    ('SW404', 'pass.yaml'): [
    ],
    ('SW404', 'unknown.json'): [
        (5, 'Deployment serving/llama-8b', 'advisory', 'cannot decide: replicas is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW405', 'fail.yaml'): [
        (11, 'LeaderWorkerSet serving/llama-405b', 'advisory', "LeaderWorkerSet serving/llama-405b sets restartPolicy None, so a failed pod restarts alone and cannot rejoin its group's NCCL world; required: RecreateGroupOnPodRestart", None),
    ],
    ('SW405', 'pass.yaml'): [
    ],
    ('SW405', 'unknown.json'): [
        (5, 'LeaderWorkerSet serving/llama-405b', 'advisory', 'cannot decide: leaderWorkerTemplate.restartPolicy is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW406', 'autoscaled.yaml'): [
        (29, 'Ingress serving/llm', 'advisory', 'Ingress `serving/llm` balances Deployment serving/llama-8b with round_robin; required: a load-aware algorithm (alb.ingress.kubernetes.io/target-group-attributes: load_balancing.algorithm.type=least_outstanding_requests)', None),
    ],
    ('SW406', 'fail.yaml'): [
        (30, 'Ingress serving/llm', 'advisory', 'Ingress `serving/llm` balances Deployment serving/llama-8b with round_robin; required: a load-aware algorithm (alb.ingress.kubernetes.io/target-group-attributes: load_balancing.algorithm.type=least_outstanding_requests)', None),
        (48, 'Ingress serving/llm-nginx', 'advisory', 'Ingress `serving/llm-nginx` balances Deployment serving/llama-8b with round_robin; required: a gateway that balances by load; ingress-nginx is retired (no fixes after March 2026), so move this route to a maintained Gateway API implementation, such as one running the Gateway API Inference Extension', None),
    ],
    ('SW406', 'pass.yaml'): [
    ],
    ('SW406', 'unknown.json'): [
        (88, 'Ingress serving/llm', 'advisory', 'Ingress `serving/llm` balances Deployment serving/llama-8b with round_robin; required: a load-aware algorithm (alb.ingress.kubernetes.io/target-group-attributes: load_balancing.algorithm.type=least_outstanding_requests)', None),
    ],
    ('SW407', 'fail.yaml'): [
        (15, 'Deployment serving/llama-8b', 'advisory', 'Service `serving/llama-8b` sends traffic to container `vllm` of Deployment serving/llama-8b, which has no readiness probe, so requests reach it while the model is still loading; required: a readinessProbe on GET /health', None),
    ],
    ('SW407', 'pass.yaml'): [
    ],
    ('SW408', 'fail.yaml'): [
        (19, 'Deployment serving/llama-8b', 'advisory', 'container `vllm` of Deployment serving/llama-8b sets CUDA_LAUNCH_BLOCKING=1, which makes every CUDA kernel launch wait until the kernel finishes (the CPU and the GPU stop overlapping), costing a large part of the throughput; required: CUDA_LAUNCH_BLOCKING unset or 0', None),
        (30, 'Deployment serving/llama-8b', 'advisory', 'container `vllm` of Deployment serving/llama-8b sets VLLM_TRACE_FUNCTION=1 (from envFrom ConfigMap `vllm-debug`), which makes vLLM log every Python function call, slowing each step by orders of magnitude; required: VLLM_TRACE_FUNCTION unset or 0', None),
    ],
    ('SW408', 'pass.yaml'): [
    ],
    ('SW408', 'unknown.yaml'): [
        (18, 'Deployment serving/llama-8b', 'advisory', 'cannot decide: CUDA_LAUNCH_BLOCKING of container `vllm` is not known (a computed value or an unresolved reference)', None),
    ],
    ('SW311', 'fail.yaml'): [
        (20, 'Deployment serving/llama-no-tls', 'advisory', "container `vllm` of Deployment serving/llama-no-tls sets CURL_CA_BUNDLE empty, which switches TLS certificate verification off for the model downloads; required: the variable removed (mount a CA bundle for a re-signing proxy)", None),
        (22, 'Deployment serving/llama-no-tls', 'advisory', "container `vllm` of Deployment serving/llama-no-tls sets PYTHONHTTPSVERIFY=0, which switches TLS certificate verification off for the model downloads; required: the variable removed (mount a CA bundle for a re-signing proxy)", None),
    ],
    ('SW311', 'pass.yaml'): [],
    ('SW311', 'unknown.yaml'): [
        (19, 'Deployment serving/llama-ca-from-config', 'advisory', "cannot decide: REQUESTS_CA_BUNDLE of container `vllm` is not known (it comes from a Secret, a ConfigMap or the downward API; an empty value switches TLS verification off)", None),
    ],
    ('SW312', 'fail.yaml'): [
        (19, 'Deployment serving/llama-lora-open', 'advisory', "container `vllm` of Deployment serving/llama-lora-open sets VLLM_ALLOW_RUNTIME_LORA_UPDATING=True, so anyone who reaches its port can load LoRA adapters at run time, and the server checks no API key and no Ingress or HTTPRoute routes to it; required: VLLM_API_KEY from a Secret, or a gateway that authenticates", None),
    ],
    ('SW312', 'pass.yaml'): [],
    ('SW312', 'unknown.yaml'): [
        (19, 'Deployment serving/llama-lora-from-config', 'advisory', "cannot decide: VLLM_ALLOW_RUNTIME_LORA_UPDATING of container `vllm` is not known (it comes from a Secret, a ConfigMap or the downward API; whether runtime LoRA loading is on decides whether the API needs a key)", None),
    ],
}


# (line, message) of the InputError each malformed fixture raises; its file is the fixture. A field of the
# wrong type that a rule reads is an input error, never read as absent.
INPUT_ERRORS = {
    ('SW308', 'malformed.yaml'): (18, "spec.template.spec.containers[0].env: expected a list, found a mapping"),
    ('SW309', 'malformed.yaml'): (14, "spec.template.spec.hostNetwork: expected true or false, found a string"),
    ('SW403', 'malformed.yaml'): (27, "spec.minReplicas: expected an integer, got 'two'"),
    ('SW407', 'malformed.yaml'): (10, "spec.ports: expected a list, found a mapping"),
}


def findings(code: str, name: str, config: LintConfig | None = None):
    inv = load_inputs([str(FIXTURES / code / name)])
    return [f for f in run_rules(ALL_RULES, inv, config) if f.code == code]


@pytest.mark.parametrize("code,name", sorted(EXPECTED))
def test_fixture_fires_exactly(code, name):
    got = [(f.location.line, f.subject, f.level, f.message, f.suppression_reason) for f in findings(code, name)]
    assert got == EXPECTED[(code, name)]


def test_every_fixture_of_these_rules_is_asserted_here():
    # which fixtures each rule must have is checked for every rule in test_registry.py
    for code in CODES:
        assert {p.name for p in (FIXTURES / code).iterdir()} == {n for c, n in [*EXPECTED, *INPUT_ERRORS]
                                                                   if c == code}, code


@pytest.mark.parametrize("code,name", sorted(INPUT_ERRORS))
def test_malformed_fixture_is_an_input_error_with_file_and_line(code, name):
    path = str(FIXTURES / code / name)
    with pytest.raises(InputError) as e:
        load_inputs([path])
    assert (e.value.file, e.value.line, e.value.message) == (path, *INPUT_ERRORS[(code, name)])


@pytest.mark.parametrize("code,name", sorted(k for k in EXPECTED if k[1].startswith("unknown")))
def test_unknown_fixtures_say_cannot_decide(code, name):
    got = findings(code, name)
    undecided = [f for f in got if f.undecided]
    if code == "SW406":  # an unknown replica count is read as "several": the finding stands
        assert [f.undecided for f in got] == [False]
        return
    assert undecided and all(f.message.startswith("cannot decide: ") for f in undecided)
    meta = rule_by_code(code).meta
    if meta.mandatory_when:  # per-hit levels, asserted in EXPECTED
        assert {f.level for f in undecided} == {
            "SW305": {"advisory", "mandatory"},  # mandatory for the multi-node group
            "SW310": {"advisory"},  # an unreadable envFrom: SW306 blocks it already
        }[code]
        return
    level = "advisory" if meta.safe_to_skip_unknown else "mandatory"
    assert {f.level for f in undecided} == {level}


def test_unknown_is_advisory_when_configured_to_warn():
    [f] = [f for f in findings("SW304", "unknown.json", LintConfig(unknown_is_failure=False)) if f.undecided]
    assert f.level == "advisory"


def test_a_suppressed_finding_is_reported_not_dropped():
    [f] = [f for f in findings("SW304", "fail.json") if f.suppressed]
    assert (f.subject, f.blocking, f.suppression_reason) == (
        "LaunchTemplate a10g-lt", False,
        "the node-local DCGM exporter reads IMDS from a pod; ticket GPU-412 moves it to Pod Identity")


def test_config_suppression_needs_the_subject_and_keeps_the_finding():
    from shardwise.rules.engine import SuppressionEntry

    cfg = LintConfig(suppressions=[SuppressionEntry("SW306", "internal NLB, mTLS at the mesh", "Service serving/*")])
    got = [(f.subject, f.suppressed) for f in findings("SW306", "fail.yaml", cfg)]
    assert got == [("Deployment serving/llama-8b", False), ("Service serving/llama-8b-public", True),
                   ("Service serving/llama-8b-nodeport", True), ("Deployment serving/qwen-7b", False),
                   ("Deployment serving/mistral-7b", False)]


def test_production_from_config_turns_sw404_on():
    assert findings("SW404", "pass.yaml", LintConfig(production=False)) == []
    got = [(f.subject, f.message) for f in findings("SW404", "pass.yaml", LintConfig(production=True))]
    assert got == [("Deployment dev/llama-8b-dev", "Deployment dev/llama-8b-dev runs in a production stack "
                                                  "with 1 warm replica (replicas is 1); required: at least 2")]


def test_malformed_kubernetes_input_is_an_input_error_with_file_and_line():
    with pytest.raises(InputError) as e:
        load_inputs([str(FIXTURES / "SW403" / "malformed.yaml")])
    assert str(e.value) == (
        f"{FIXTURES / 'SW403' / 'malformed.yaml'}:27: spec.minReplicas: expected an integer, got 'two'")


def test_malformed_pulumi_input_is_an_input_error_naming_the_resource(tmp_path):
    text = (FIXTURES / "SW301" / "fail.json").read_text().replace('"fromPort": 1024', '"fromPort": "1024-ish"')
    path = tmp_path / "export.json"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        load_inputs([str(path)])
    assert str(e.value) == (
        f"{path}:21: aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule "
        "urn:pulumi:dev::gpu::aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule::gpu-nodes-from-vpc: "
        "fromPort: expected a whole number, found '1024-ish'")


# --- the facts the rules compare against ---------------------------------------------------------


@pytest.mark.parametrize("rule,covered", [
    (SgRule("ingress", "tcp", 6379, 6379), ["Ray GCS 6379"]),
    (SgRule("ingress", "tcp", 8000, 8000), []),
    (SgRule("ingress", "udp", 6379, 6379), []),
    (SgRule("ingress", "tcp", 29000, 30000), ["torch.distributed / vLLM data-parallel master 29500",
                                              "vLLM multi-node master (--master-port) 29501",
                                              "vLLM data-parallel RPC 29550"]),
    (SgRule("ingress", "tcp", 29501, 29501), ["vLLM multi-node master (--master-port) 29501"]),
    (SgRule("ingress", "tcp", 40000, 42000), ["NCCL's ephemeral ports"]),
    (SgRule("ingress", "-1", 0, 0), ["vLLM NIXL side channel 5600", "Ray GCS 6379", "Ray dashboard 8265",
                                     "vLLM Mooncake bootstrap 8998", "Ray client 10001", "vLLM KV transfer 14579",
                                     "torch.distributed / vLLM data-parallel master 29500",
                                     "vLLM multi-node master (--master-port) 29501", "vLLM data-parallel RPC 29550",
                                     "Ray dashboard agent 52365", "NCCL's ephemeral ports"]),
])
def test_runtime_ports_covered(rule, covered):
    assert runtime_ports_covered(rule) == covered


@pytest.mark.parametrize("cidrs,families", [
    (["0.0.0.0/0"], ["IPv4"]), (["::/0"], ["IPv6"]), (["0::0/0"], ["IPv6"]), (["0:0:0:0:0:0:0:0/0"], ["IPv6"]),
    ([" 0.0.0.0/0 "], ["IPv4"]), (["10.0.0.0/0"], ["IPv4"]),  # host bits set: still the whole internet
    (["0.0.0.0/1", "128.0.0.0/1"], ["IPv4"]), (["0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/2"], ["IPv4"]),
    (["0.0.0.0/1"], []), (["10.0.0.0/8", "0.0.0.0/1"], []), (["::/1", "8000::/1", "0.0.0.0/0"], ["IPv4", "IPv6"]),
    (["not-a-cidr"], []), ([], []),
])
def test_the_whole_internet_is_compared_as_networks(cidrs, families):
    assert world_families(cidrs) == families


@pytest.mark.parametrize("metric,kind", [
    ("cpu", "utilization"), ("memory", "utilization"), ("gpu-utilization", "utilization"),
    ("DCGM_FI_DEV_GPU_UTIL", "utilization"), ("vllm:num_requests_waiting", "queue"),
    ("vllm:num_requests_running", "queue"), ("http_requests_total", "other"),
])
def test_metric_kind(metric, kind):
    assert metric_kind(metric) == kind


@pytest.mark.parametrize("annotations,route", [
    ({}, None),
    ({"kubernetes.io/ingress.class": "alb"}, ("alb", "round_robin")),
    ({"alb.ingress.kubernetes.io/target-group-attributes":
      "stickiness.enabled=false,load_balancing.algorithm.type=least_outstanding_requests"},
     ("alb", "least_outstanding_requests")),
    ({"alb.ingress.kubernetes.io/target-group-attributes": "load_balancing.algorithm.type=weighted_random"},
     ("alb", "weighted_random")),
    ({"nginx.ingress.kubernetes.io/upstream-hash-by": "$http_x_session"}, ("nginx", "consistent hash")),
    ({"kubernetes.io/ingress.class": "nginx"}, ("nginx", "round_robin")),
])
def test_routing(annotations, route):
    assert routing(Ingress("x", annotations=annotations)) == route


@pytest.mark.parametrize("value,on", [
    ("0", False), ("00", False), (" 0 ", False), ("-0", False), ("+0", False), ("0_0", False),
    ("1", True), ("01", True), ("2", True), ("-1", True),
    ("true", None), ("false", None), ("", None), ("0.0", None), ("on", None),
])
def test_dev_mode_follows_vllms_int_parsing(value, on):
    # vllm/envs.py: "VLLM_SERVER_DEV_MODE": lambda: bool(int(os.getenv("VLLM_SERVER_DEV_MODE", "0")))
    assert dev_mode_on(value) is on


def test_required_startup_grows_with_the_weights_a_pod_loads():
    inv = load_inputs([str(FIXTURES / "SW402" / "fail.yaml")])
    g = inv.groups[0]
    assert required_startup_seconds(g) == 562  # 300 s + 2 s × 131.4 GiB of bf16 weights
    g.model = None
    assert required_startup_seconds(g) == 300


# --- metadata (the metadata and default level of every rule: test_registry.py) ----------------------


def test_sw305_is_a_mandatory_policy_whose_single_node_hits_stay_advisory():
    from shardwise.rules.checks.registry import rule_by_code

    meta = rule_by_code("SW305").meta
    assert (meta.enforcement, meta.highest_enforcement, meta.enforcement_text) == (
        "advisory", "mandatory", "advisory (mandatory for multi-node groups)")


def test_a_configured_level_wins_over_escalation():
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.checks.registry import rule_by_code
    from shardwise.rules.engine import LintConfig, run_rules

    inv = load_inputs([str(FIXTURES / "SW305" / "fail.yaml")])
    levels = [f.level for f in run_rules([rule_by_code("SW305")], inv)]
    assert levels == ["advisory", "mandatory", "advisory"]
    cfg = LintConfig(enforcement={"SW305": "advisory"})
    assert [f.level for f in run_rules([rule_by_code("SW305")], inv, cfg)] == ["advisory", "advisory", "advisory"]


def test_namespaces_whose_default_deny_lives_elsewhere_are_listed_in_the_config():
    cfg = LintConfig(default_deny_namespaces=("serving", "cilium-*"))
    got = [(f.subject, f.level) for f in findings("SW305", "fail.yaml", cfg)]
    assert got == [("Namespace llm", "mandatory")]


def _samples_folder(tmp_path: pathlib.Path) -> pathlib.Path:
    """Eight sample files in one folder, as repositories of examples have them: each a Deployment with the
    same pod labels and a Service written under the same name, plus one Service of its own."""
    for i in range(8):
        (tmp_path / f"sample-{i}.yaml").write_text(
            "apiVersion: apps/v1\n"
            "kind: Deployment\n"
            f"metadata: {{name: gemma-{i}}}\n"
            "spec:\n"
            "  selector: {matchLabels: {app: gemma-server}}\n"
            "  template:\n"
            "    metadata: {labels: {app: gemma-server}}\n"
            "    spec:\n"
            "      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n"
            "      containers:\n"
            "        - name: vllm\n"
            "          image: vllm/vllm-openai:v0.10.0\n"
            "          args: [--model, google/gemma-2-2b-it, --max-model-len, '4096']\n"
            "          resources: {limits: {nvidia.com/gpu: 1}}\n"
            "---\n"
            "apiVersion: v1\n"
            "kind: Service\n"
            "metadata: {name: llm-service}\n"
            "spec: {selector: {app: gemma-server}, ports: [{port: 8000}]}\n"
            "---\n"
            "apiVersion: v1\n"
            "kind: Service\n"
            f"metadata: {{name: extra-{i}}}\n"
            "spec: {selector: {app: gemma-server}, ports: [{port: 8000}]}\n",
            encoding="utf-8")
    return tmp_path


def test_lists_in_messages_name_each_once_and_count_the_rest(tmp_path):
    inv = load_inputs([str(_samples_folder(tmp_path))], jobs=1)
    found = run_rules([rule_by_code("SW407"), rule_by_code("SW305")], inv)
    sw407 = [f for f in found if f.code == "SW407"]
    assert len(sw407) == 8
    assert sw407[0].message == (
        "Service `default/llm-service`, `default/extra-0`, `default/extra-1`, `default/extra-2`, "
        "`default/extra-3`, `default/extra-4` and 3 more sends traffic to container `vllm` of Deployment "
        "default/gemma-0, which has no readiness probe, so requests reach it while the model is still loading; "
        "required: a readinessProbe on GET /health")
    [sw305] = [f for f in found if f.code == "SW305"]
    assert sw305.message == (
        "namespace `default` (Deployment default/gemma-0, Deployment default/gemma-1, Deployment "
        "default/gemma-2, Deployment default/gemma-3, Deployment default/gemma-4, Deployment default/gemma-5 and "
        "2 more) has no default-deny ingress policy (no network policy at all); every pod in the cluster can "
        "reach vLLM without the gateway; required: a default-deny ingress policy there, or the namespace in "
        "default_deny_namespaces when its policy is managed elsewhere")


def test_listed_keeps_the_first_of_each_name_in_order():
    from shardwise.rules.checks._words import listed

    assert listed([]) == ""
    assert listed(["a", "b", "a", "c"]) == "a, b, c"
    assert listed(["x"] * 40) == "x"
    assert listed([f"n{i}" for i in range(8)], shown=3) == "n0, n1, n2 and 5 more"
    assert listed([f"n{i}" for i in range(6)]) == "n0, n1, n2, n3, n4, n5"


def test_an_object_rule_decides_and_contains_a_crash_per_object():
    from shardwise.rules.engine import ObjectRule, hit
    from shardwise.rules.model import Inventory, Location, NodePool, Suppression, Undecidable

    class OnePoolAtATime(ObjectRule[NodePool]):
        meta = rule_by_code("SW303").meta

        def objects(self, inv):
            return inv.pools

        def check_object(self, pool, inv, config):
            if pool.name == "crashes":
                raise KeyError("boom")
            if pool.name == "unknown":
                raise Undecidable(f"the subnet list of node pool `{pool.name}`")
            yield hit(pool, f"checked {pool.name}")

    reason = Suppression("SW303", "reviewed", Location())
    pools = [NodePool("crashes", Location("a.yaml", 1)), NodePool("unknown", Location("a.yaml", 2), suppressions=[reason]),
             NodePool("fine", Location("a.yaml", 3))]
    got = [(f.subject, f.location.line, f.level, f.internal, f.undecided, f.suppressed, f.message)
           for f in run_rules([OnePoolAtATime()], Inventory(pools=pools))]
    assert got == [
        ("NodePool crashes", 1, "mandatory", True, False, False,
         "internal error in rule gpu-nodes-in-public-subnet: KeyError: 'boom'"),
        ("NodePool unknown", 2, "mandatory", False, True, True,
         "cannot decide: the subnet list of node pool `unknown` is not known (a computed value or an "
         "unresolved reference)"),
        ("NodePool fine", 3, "mandatory", False, False, False, "checked fine"),
    ]

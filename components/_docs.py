"""docs/components.md, made from the ``…Args`` dataclasses and the specs of :mod:`shardwise.rules.model.spec`.

Regenerate with ``python -m shardwise.components._docs > docs/components.md`` (``make docs`` does);
tests/test_component_docs.py fails when the file is stale. Every field of every Args class and spec
model is listed with its type, default and description; the prose around the tables is kept here.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import pathlib
import re
import types
import typing
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined
from shardwise.rules.model import spec as specs

from .cluster import CHARTS, EksCluster, EksClusterArgs
from .environment import ServingEnvironment, ServingEnvironmentArgs
from .multinode import VllmMultiNode, VllmMultiNodeArgs
from .network import RuntimeNetwork, RuntimeNetworkArgs
from .nodepool import GpuNodePool, GpuNodePoolArgs
from .router import InferenceRouter, InferenceRouterArgs
from .vllm import VllmService, VllmServiceArgs

#: (component, Args class, the spec its fields map onto, the component class: its docstring's
#: ``Outputs:`` paragraph says what it outputs)
COMPONENTS: list[tuple[str, type, type[BaseModel] | None, type]] = [
    ("VllmService", VllmServiceArgs, specs.VllmServiceSpec, VllmService),
    ("VllmMultiNode", VllmMultiNodeArgs, specs.VllmMultiNodeSpec, VllmMultiNode),
    ("GpuNodePool", GpuNodePoolArgs, None, GpuNodePool),
    ("RuntimeNetwork", RuntimeNetworkArgs, None, RuntimeNetwork),
    ("InferenceRouter", InferenceRouterArgs, specs.RouterSpec, InferenceRouter),
    ("ServingEnvironment", ServingEnvironmentArgs, None, ServingEnvironment),
    ("EksCluster", EksClusterArgs, None, EksCluster),
]


def outputs_paragraph(component: type) -> str:
    """The ``Outputs:`` paragraph of a component's docstring, without the word."""
    for para in inspect.cleandoc(component.__doc__ or "").split("\n\n"):
        if para.startswith("Outputs:"):
            return para[len("Outputs:"):].strip()
    raise ValueError(f"{component.__name__} documents no outputs")


def output_names(component: type) -> list[str]:
    """The outputs a component documents (the ``name`` spans of its ``Outputs:`` paragraph), in order."""
    return re.findall(r"``([a-z_]+)``", outputs_paragraph(component))


#: Spec models documented in full, in this order.
MODELS: list[type[BaseModel]] = [
    specs.EnvironmentSpec, specs.ClusterSpec, specs.NetworkSpec, specs.NodePoolSpec, specs.VllmServiceSpec,
    specs.VllmMultiNodeSpec, specs.EngineArgsSpec, specs.ModelCacheSpec, specs.AutoscalingSpec, specs.MetricsSpec,
    specs.PodSpec, specs.EnvVarSpec, specs.SecretKeySpec, specs.EnvFromSpec, specs.VolumeSpec, specs.VolumeMountSpec,
    specs.TolerationSpec, specs.ServiceAccountSpec, specs.RouterSpec, specs.ImageCacheSpec, specs.ModelStoreSpec,
    specs.SuppressionSpec,
]

INTRO = """\
# Components

`shardwise.components` (install `shardwise[pulumi]`) has seven Pulumi components. Each takes a typed
`…Args` dataclass; a workload's or router's Args fields are the fields of its spec in
`shardwise.rules.model.spec` — the same pydantic models a stack config (`shardwise:environment`) and
`shardwise lint` read — plus a few of the component's own (the Kubernetes provider, `validate`,
`production`). Pools, networks, environments and clusters take their spec as one field.

**Outputs as inputs.** Names, namespaces, images, ARNs and subnet, security-group and VPC ids accept
`pulumi.Input` values: an `aws.iam.Role(...).arn`, an ECR repository URL with a tag, a namespace
created in the same program, a `StackReference` output, a cluster built in the program. Anywhere in
`pod` (a service account's `role_arn`, a secret's name) an Output may stand too. Values that decide
the sizing (parallelism, lengths, replicas) must be known when the component is created.

**Validation.** Before declaring any child, a component validates its arguments with the shardwise
rules (the same registry as `shardwise lint` and the policy pack) and its own checks (model cache,
escape hatches, image). Every problem is reported at once in one `ArgumentsError`, a
`pulumi.InputPropertyError` whose `property_path`/`reason` are the first problem's, whose `errors`
lists all of them, and whose text names each argument path:

```
VllmService: 2 invalid arguments (at construction)
  cache.throughput_mib_s: a pvc cache needs its read throughput to size the startup probe (...)
  engine.extra_args: --max-model-len is read by the rules: set engine.max_model_len
```

An Output is checked again when it resolves (during `pulumi preview` when the value is known then,
else during `pulumi up`): the field's constraint and the checks that read it (an image that resolves
to `:latest` fails then, `(when `image` resolved to '...')`). A component's `validation` output lists
the arguments checked when they resolve; what only the AWS resources show (whether existing subnets
map public IPs) is left to the policy pack (`shardwise policy-pack-dir`). `validate=False` skips the
checks; `validate={"SW104": "benchmarked: TP2 TPOT p95 18 ms vs 31 ms"}` disables named rules with
the reason, as the linter's suppressions do (a disabled rule's findings are logged, not raised).

**Escape hatches.** `engine.extra_args` passes further `vllm serve` flags; `pod` adds env, env-from,
volumes and mounts, resources beyond GPUs, a service account (EKS Pod Identity or IRSA), labels,
annotations, node selector and affinity terms, tolerations, a priority class and image pull
secrets. What the rules read or shardwise sets is refused there with the typed field to use
(`--tensor-parallel-size` in `extra_args`, a node selector on `shardwise.dev/pool`, an
`nvidia.com/gpu` request, a mount at `/dev/shm`); `shardwise lint` of a stack file refuses the same
entries with the same words (`shardwise.rules.render.pod.escape_hatch_problems`).
"""

FACTS = """\
## What the components do, and how sure we are

**Model cache** (`cache`). `empty-dir` lives with the pod: a container restart keeps it, a
recreated pod downloads again, and a multi-node group (which restarts as a whole) refuses it. `pvc`:
a claim on a storage class (FSx for Lustre `ReadWriteMany` shared by every replica; an EBS
`ReadWriteOnce` claim only for one replica). `node-nvme`: a `hostPath` under `/mnt/k8s-disks/0`, the
RAID-0 of the node's instance-store disks that nodeadm (`localStorage.strategy: RAID0`, pool
`instance_store: raid0`) or Karpenter (`instanceStorePolicy: RAID0`) sets up (checked against
awslabs/amazon-eks-ami `setup-local-disks`); a restarted pod on the same node finds its weights. `s3`:
vLLM streams the safetensors with `--load-format runai_streamer` (in vLLM 0.11.0 and later; the
vllm-openai images install `runai-model-streamer[s3]`), with AWS credentials from the pods' service
account. For local caches an init container downloads the checkpoint once (files already there are
skipped) and vLLM starts with `HF_HUB_OFFLINE=1`.

**Startup budget** = 300 s + 2 × (weights per pod ÷ the cache's throughput), never less than
`model_load_seconds` nor SW402's floor (300 s + 2 s per GiB). Weights per pod are the checkpoint ÷
pipeline stages, from `weights_gib` or the capacity model. Both constants are estimates.

**EFA.** Launch templates follow the EC2 user guide's current layout for instances with several
network cards ("Maximize network bandwidth on Amazon EC2 instances with multiple network cards",
https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html, with its P5/P5e section):
an ENA primary interface (card 0, device 0), an EFA-only interface on card 0 (device 1) and one on
every other card (device 0); 32 EFA devices on a p5.48xlarge or p5e.48xlarge, the catalog's 16 on a
p5en.48xlarge. The guide's earlier layout (an `efa` interface with an IP address at device 1 of cards
1–31) is superseded. Verified against the guide's text only — not launched on hardware here.
EFA pods get `FI_PROVIDER=efa` (plus `FI_EFA_USE_DEVICE_RDMA=1` on
p4d/p5/p6, which have GPUDirect RDMA), every EFA device, 2 MiB huge pages and a memory request. The
image must carry libfabric and aws-ofi-nccl: AWS Deep Learning Container vLLM images do (built from
vllm-openai plus the EFA installer; `public.ecr.aws/deep-learning-containers/vllm:0.13.0-gpu-py312-ec2`
carries EFA installer 1.46.0), vllm/vllm-openai does not; others declare `image_efa`.

**Multi-node launch.** `launcher: auto` uses vLLM's `--nnodes/--node-rank/--master-addr` (executor
`mp`, workers `--headless`) when the image's vLLM is 0.11.1 or later — the flags are in v0.11.1's
`vllm/engine/arg_utils.py` and not in v0.11.0's — and a Ray cluster otherwise or when the version is
unknown. The LeaderWorkerSet exclusive-topology annotation is set only with `exclusive_topology`.

**Draining and routing.** A preStop hook keeps a terminating pod serving until vLLM reports no
running or waiting request (at most `drain_seconds`); the ALB's deregistration delay matches. A
namespace behind an ALB is labelled `elbv2.k8s.aws/pod-readiness-gate-inject: enabled`. A PodMonitor
(or ServiceMonitor) lets KEDA's Prometheus query see `vllm:num_requests_waiting`; `monitor: none`
with a Prometheus autoscaler is refused.

**EksCluster.** Kubernetes 1.35 unless `cluster.version` says otherwise: in EKS standard support until
27 Mar 2027 (EKS's Kubernetes version calendar; 1.33 left standard support on 29 Jul 2026 and 1.34 on
2 Dec 2026, so a cluster created on either pays extended support). The add-ons are not pinned: EKS
installs its default version of each for the cluster's version, and an upgrade of the cluster leaves
them where they are until they are updated. API authentication mode with access entries, a CPU system
node group (IMDSv2, hop limit 1), EKS add-ons (`vpc-cni` with `enableNetworkPolicy`, so the
NetworkPolicies are enforced), and
with Helm the charts the environment needs, pinned to versions seen in public install scripts (not
installed here): {charts}. The AWS Load Balancer Controller and the Cluster Autoscaler get IAM roles
through EKS Pod Identity; the controller's policy is the one given in
`cluster.load_balancer_controller_policy_arn` (shardwise does not write that policy), the autoscaler's
is written here (read Auto Scaling groups, launch templates, instance types and node groups; resize
only the groups EKS tagged as the cluster's). Not installed: a pvc cache's CSI driver.

## A first `pulumi up`

**Order.** Custom resources wait for what installs their CRDs: a ScaledObject for the KEDA release,
PodMonitors and ServiceMonitors for kube-prometheus-stack, a LeaderWorkerSet for the LWS release, the
ALB Ingress for the AWS Load Balancer Controller (`installs` on the workload and router Args; a
ServingEnvironment fills it from the cluster it creates). The cluster waits for its role's policy
attachment and every node group for the node role's; a Deployment or LeaderWorkerSet waits for its
ServiceAccount, cache claim and Pod Identity association.

**Waits.** A workload and its Service (which waits for ready endpoints) get create timeouts of
ceil(first-start budget ÷ 60) + 10 minutes (the first start downloads the weights); the Ingress the
slowest backend's and 10 more (the ALB). An update of the workload replaces its pods (a Deployment's) or
groups (a LeaderWorkerSet's) one after another (`maxSurge: 0, maxUnavailable: 1`), as many as it may run
(the autoscaler's `max_replicas`): its update timeout is ceil(that count × a restart ÷ 60) + 10 minutes,
a restart being the startup budget (and the download again with an `empty-dir` cache, which dies with
its pod), never less than the create timeout. A stuck pod fails `up` at the timeout with the pods'
errors the provider gathered (Pending, image pull, crash loop). A Deployment's `progressDeadlineSeconds`
is one replacement's first start and 600 s, so Kubernetes does not call a rollout stalled while vLLM loads.
The model-cache claim is declared with
`pulumi.com/skipAwait: "true"`: with a `WaitForFirstConsumer` storage class it binds only once a pod
uses it. Helm releases wait 1200 s (kube-prometheus-stack) or 600 s (the others) instead of Helm's
300 s: a first install pulls every image cold onto the small system nodes. Measured under the mocks:
prod llama-70b 42 min (update 85: 8 × 562 s), llama-405b 157 min, its Ingress 167 min;
dev llama-8b 19 min (update 22: 2 × 332 s), its Ingress 29 min. A LeaderWorkerSet is a custom resource, which
the Kubernetes provider considers ready as soon as the API server accepts it; it carries
`pulumi.com/waitFor: '["condition=Available", "jsonpath={.status.readyReplicas}=N"]'` (N = `groups`;
provider v4.18 and later), so `up` waits, within the timeout above (custom timeouts, which the provider
honours for custom resources), until the LWS controller reports every group updated and ready, and fails
when the group never forms.

**What `up` awaits.** The Deployment's pods Ready (its ReplicaSet's ready replicas, the provider's
Deployment await; a pod is Ready once vLLM's `/health` answers 200 on the API port, which it does only
after the engine has loaded and warmed up) and the Service's ready endpoints; for a LeaderWorkerSet the
groups above (the leader's `/health`, which answers only once every worker joined). The autoscaler (a
KEDA ScaledObject or an HPA) is declared after the Deployment is Ready: KEDA at `min_replicas: 0` would
otherwise scale it to zero while the provider awaits it, and the provider counts 0 of 0 replicas as done.
A VllmService that autoscales from zero (`replicas: 0`, `min_replicas: 0`) is declared with one replica,
so the first `up` ends with one replica serving; KEDA then scales it to zero once idle (its cooldown). A
later `up` while it is at zero succeeds without starting a pod (the provider sees 0 of 0 ready): a changed
template is first run at the next scale-up. `replicas: 0` without an autoscaler is declared as asked, and
`up` warns that nothing serves.

**Room in the pool.** The pods `up` waits for (a Deployment's declared replicas, every pod of every group)
must fit the pool's `max_size` nodes: counted per workload (a node of G GPUs holds G ÷ the pod's GPUs of
its pods) and for all a pool's workloads together (their GPUs against `max_size` × G); a stack asking for
more fails at preview at `replicas`, `groups` or the pool's `max_size`, instead of pods Pending until the
rollout timeout. The autoscaler's `max_replicas` beyond the pool is not refused: `up` does not wait for it.

**Updating GPU pools.** A managed GPU node group rolls one node at a time with EKS's `MINIMAL` update
strategy (`updateConfig: {maxUnavailable: 1, updateStrategy: MINIMAL}`): the old node is terminated
before its replacement launches, so a launch-template or AMI change never asks for p5/p4d capacity
beyond the pool's (EKS's `DEFAULT` launches the new instances first, up to two per zone). A change EKS
cannot make in place (subnets, instance types, AMI type, capacity type, node role) replaces the group
delete-before-replace: the old group goes first, and the pool serves nothing until the new one has
joined and the pods started (a first start's budget). The price of both: during an update the pool has
one node (or, replaced, all its nodes) fewer; a multi-node group with a member on a replaced node
restarts. The CPU system node group keeps EKS's default. Checked through the real engine with an AWS
stand-in that plans as the AWS provider does (`tests/e2e/test_node_updates.py`: a launch-template change
updates the template to a new version and the group in place, a subnet change replaces the group, the old
one deleted first); the AWS provider itself is stood in for, and no update has run on EKS
([status.md](status.md)).

**Growing.** Managed GPU node groups ignore `scalingConfig.desiredSize` drift (`ignoreChanges`): the
Cluster Autoscaler (installed on a created cluster when a managed pool's `max_size` exceeds its
`min_size`; a prerequisite otherwise) grows them when KEDA's extra replicas are Pending; Karpenter pools
are NodePools.

**Karpenter and EKS Auto Mode: not in a created cluster.** A cluster the environment creates scales its GPU
pools as managed node groups with the Cluster Autoscaler; it does not install Karpenter, and a `provisioner:
karpenter` pool there fails at preview at `pools[i].provisioner` (karpenter is a prerequisite of the
cluster, listed in `cluster.installed` once you have installed it; the pool then renders its NodePool and
EC2NodeClass, and the node role gets an `EC2_LINUX` access entry). Why not built: a working Karpenter needs
its controller's IAM role and policy, an SQS interruption queue fed by EventBridge rules (Spot
interruptions, rebalance, instance state changes), its CRDs before any NodePool, a chart version matched to
the cluster's Kubernetes version, and a place to run that it does not itself provision; any part missing
leaves NodePools that no controller serves or nodes that are not drained before an interruption, which is
worse than the node groups that work today. EKS Auto Mode would replace what the cluster component declares
(the managed node groups and launch templates with their NVMe RAID-0, ODCR and Capacity Block targeting, EFA
interfaces and placement groups, the add-ons and the Load Balancer Controller) with AWS-managed node pools:
a different component, not an option of this one, and not evaluated here. Both stay open items.

**Network.** Where a workload's service account uses Pod Identity, the namespace's default-deny egress
lets pods reach the EKS Pod Identity agent (169.254.170.23, TCP 80). In existing-VPC mode the S3/ECR
endpoints are opt-in (`network.endpoints: true`): the VPC usually has them, and a second S3 gateway or
an ECR endpoint with private DNS conflicts; the S3 gateway takes each subnet's route table, or the VPC's
main table for a subnet without an explicit association. Lookups (`aws.eks.getCluster`,
`aws.ec2.getRouteTable(s)`) go through the AWS provider given to the component (`opts.provider` /
`providers`), so the right account and region.

## Images, weights and GPU telemetry

**GPU telemetry.** A created cluster (`cluster.gpu_telemetry`, default on) runs NVIDIA's DCGM exporter
(chart `dcgm-exporter` 4.8.2 from https://nvidia.github.io/dcgm-exporter/helm-charts: exporter 4.8.2 on
DCGM 4.5.3, port 9400) in the monitoring namespace, on the GPU nodes only (the pools'
`shardwise.dev/gpu-count` label, their `nvidia.com/gpu` taint tolerated). It exports its default counters
(`DCGM_FI_DEV_GPU_UTIL`, `DCGM_FI_DEV_FB_USED`/`FB_FREE`, power, temperatures, clocks, `DCGM_FI_DEV_XID_ERRORS`)
labelled with the `pod` and `namespace` using each GPU. With kube-prometheus-stack installed, the chart's
ServiceMonitor scrapes it with `honorLabels: true`: without it Prometheus renames those labels
`exported_pod`/`exported_namespace`, and the `gpu` autoscaler's query
(`avg(DCGM_FI_DEV_GPU_UTIL{namespace="…",pod=~"<service>-…"})`) would match nothing. An autoscaler on the
`gpu` metric without the exporter (`gpu_telemetry: false`, or an existing cluster without `dcgm-exporter`
in `cluster.installed`) fails at preview. An HPA (not KEDA) on it also needs a metrics adapter, which is
not installed. No dashboards are installed (Grafana is off in kube-prometheus-stack).

**ECR pull-through cache** (`image_cache`). One ECR pull-through cache rule per upstream registry the
workloads' images come from: Docker Hub (prefix `docker-hub`, upstream `registry-1.docker.io`; ECR
requires a credential, a Secrets Manager secret with the keys `username` and `accessToken` whose name
starts `ecr-pullthroughcache/`, in the stack's account and region: `docker_hub_credential_arn`, checked
at preview) and ECR Public (`ecr-public`, `public.ecr.aws`, no credential). The workloads' image
references are rewritten to the cache (`<account>.dkr.ecr.<region>.amazonaws.com/docker-hub/vllm/vllm-openai:v0.13.0`,
the account the node role's), so every node pulls from ECR in the region through the ECR and S3
endpoints rather than through the NAT gateway, and outside Docker Hub's pull limits; images of other
registries (nvcr.io, your ECR) and images the program gives in `images` are left alone. The node role
keeps `AmazonEC2ContainerRegistryReadOnly` and gets an inline policy with `ecr:BatchImportUpstreamImage`
and `ecr:CreateRepository` on the cache's repositories only (what the first pull of an image through a
rule needs); an existing cluster's role (`node_role_arn`, required) gets it by name. The rules see a
cache copy as its upstream image (version, EFA support). `create_rules: false` uses rules the account
already has with these prefixes (one rule per prefix and account). Only declared under the AWS stand-in:
no image has been pulled through a rule here.

**Model store** (`model_store`). An S3 bucket the environment creates for the weights, so that nodes do not
each download 131-756 GiB from the Hugging Face Hub through the one NAT gateway: private (ACLs disabled,
`BucketOwnerEnforced`; every public access blocked), SSE-S3 encrypted, not versioned, a bucket policy that
denies requests without TLS, and `force_destroy` off unless asked. A workload whose `cache` is `s3` with an
`s3_uri` in that bucket runs `vllm serve s3://bucket/prefix --load-format runai_streamer` (vLLM's Run:ai
Model Streamer: an image of vLLM 0.11.0 or later, checked; the served name stays the model id) and reads it
through the VPC's S3 gateway endpoint with an IAM role the environment creates: trusted by EKS Pod Identity,
`s3:ListBucket` on the bucket and `s3:GetObject` on its objects. The workload gets a service account of its
own (named after it) with that role when it names none, the role when its service account has no `role_arn`,
and keeps its own `role_arn` otherwise; `mode: irsa` without a role fails at preview (no IAM OIDC provider
is made). EKS Pod Identity injects `AWS_REGION` and the container-credential variables the streamer's AWS
SDK reads, and the namespace's default-deny egress admits the Pod Identity agent. Copying the weights in is
yours (`huggingface-cli download`, then `aws s3 sync`), once per revision. Not run here: whether the
streamer's AWS SDK for C++ in a given vLLM image reads Pod Identity's container credentials is not tested (a
role of your own through IRSA is the fallback), and the AWS side is declared under the stand-in only. FSx
for Lustre (a `pvc` cache) is the alternative for weights read as files; it is not created by the
environment.

## Security defaults

**The ALB** (`alb-ingress` routers) listens on HTTPS on 443 with the ACM certificate `certificate_arn`
and the TLS 1.3/1.2 policy `ELBSecurityPolicy-TLS13-1-2-2021-06`; port 80 redirects to it (`http:
redirect`, the controller gives that listener only the redirect) or is not opened (`http: off`). Plain
HTTP on 80 with no certificate is `http: plain`, written to mean it. `inbound_cidrs` become the load
balancer's security-group rules (`alb.ingress.kubernetes.io/inbound-cidrs`) and are required: left
out, the AWS Load Balancer Controller opens the listeners to 0.0.0.0/0, so that too must be written.
Checked at `pulumi preview` (`routers[i].certificate_arn`, `routers[i].inbound_cidrs`).

**vLLM's API key.** The ALB does not authenticate, so every workload behind an ALB router names
`api_key_secret` (a Secret and key); the pods get `VLLM_API_KEY` from that `secretKeyRef`, which vLLM
reads when `--api-key` is not given (the key is in neither the pod spec nor the command line;
`--api-key` in `extra_args` and `VLLM_API_KEY` in `pod.env` are refused). vLLM then asks
`Authorization: Bearer <key>` on `/v1` paths; `/health` (the probes, the ALB's health check) and
`/metrics` (Prometheus) stay open. The program takes the key from the secret config `shardwise:apiKey`
and the environment creates the Secret in each namespace (the pods wait for it), or
`shardwise:apiKeySecretExists: true` says it is made elsewhere; with neither, preview fails at
`services[i].api_key_secret`. An `optional` key ref is refused (a missing Secret would start vLLM open).

**Who may call the API port.** Target type `ip`: the ALB connects to pod IPs from its own subnets. A new
VPC gets one small load-balancer subnet per zone (from the VPC's last /19, after the NAT subnet), and
only those are tagged `kubernetes.io/role/internal-elb`, so the controller places the internal ALB
there; the API port's NetworkPolicy admits the gateway and monitoring namespaces and those subnets'
ranges, not the VPC (pods have VPC addresses, so the VPC's range would let any pod call the model). An
existing VPC names the ranges of its load-balancer subnets in `network.load_balancer_cidrs` (required
with an ALB router, checked at preview). An internet-facing router (`internal: false`) in a new VPC
gets one public subnet per zone (from the VPC's second-last /19, so at most six zones; more fail at
preview at `network.availability_zones`), routed to the internet gateway (made for it when there is no
NAT gateway) and tagged `kubernetes.io/role/elb`, where the controller places an internet-facing ALB
(it finds no subnet otherwise); no subnet maps public IPs at launch, and the API port admits the
public subnets' ranges instead of the internal ones. In an existing VPC its public subnets must carry
that tag, their ranges in `network.load_balancer_cidrs`.

**Security groups and the distributed runtime's ports.** GPU nodes carry the GPU-node group (all
traffic to and from itself: EFA needs it both ways) and the EKS cluster security group, which admits
all traffic from every node and pod of the cluster; an interface admits what any of its groups admits.
So the NCCL, Gloo, Ray and torch.distributed TCP ports of a GPU pod are not confined by security
groups, and cannot be without closing what every pod needs from every node (CoreDNS, Prometheus, the
ALB's health checks, kubelet probes). They are confined per pod by each serving group's NetworkPolicy
(its pods accept other ports only from the group), which the VPC CNI's network policy agent enforces
(`enableNetworkPolicy` on a created cluster; an existing cluster without it enforces none of this).
EFA's own traffic (SRD, outside the kernel's IP stack and so outside NetworkPolicy) can only come from
another EFA interface, and the cluster's CPU nodes have none.

**Non-root pods and Pod Security.** The vllm/vllm-openai image runs as root (`USER root`; its caches
under `/root/.cache`); images built after vLLM PR #40275 (May 2026) also ship a `vllm` user (UID 2000,
GID 0, HOME `/home/vllm`, group-0-writable caches) for `--user 2000:0`, and the image stays root by
default. `run_as_non_root: true` runs the pods as 2000:0 (`runAsNonRoot`, `fsGroup` 2000, no privilege
escalation, every capability dropped, the RuntimeDefault seccomp profile) with `HOME=/home/vllm` on an
emptyDir and the Hugging Face cache at `/home/vllm/.cache/huggingface` (`/root` is closed to UID 2000),
which also serves images without that user; it is refused with a `node-nvme` cache, a root-owned
hostPath. Not run on a cluster here: the stacks keep root. Each namespace the environment creates
enforces the strictest Pod Security level all its pods meet and audits against `restricted`:
`restricted` when every workload runs non-root without a hostPath; `baseline` otherwise (GPUs and EFA
devices come from device plugins, `/dev/shm` is a memory emptyDir: no privileged container, host
namespace or added capability is needed); `privileged` when a pod mounts a hostPath (a `node-nvme`
cache, a `pod.volumes` host_path), which baseline forbids. So prod and dev, whose weights stay on the
nodes' NVMe, enforce `privileged`, and staging `baseline`.

## GPU capacity on a new account

**Quotas.** EC2 counts running instances in vCPUs per quota, and a new account's GPU quotas are small
or zero: P instances (p4d, p5, p5e, p5en) count against "Running On-Demand P instances" (`L-417A185B`),
G instances (g5, g6, g6e) against "Running On-Demand G and VT instances" (`L-DB2E81BA`); spot pools
against "All P Spot Instance Requests" (`L-7212CCBC`) and "All G and VT Spot Instance Requests"
(`L-3819A6DF`). Ask for them in Service Quotas (region of the stack) before the first `up`: without
them the node group's launches fail and the pods stay Pending until the rollout times out. What the
stacks need at their `max_size` (vCPUs from the catalog):

{quotas}

Instances launched into a Capacity Block for ML are bought with the block (`ec2:PurchaseCapacityBlock`);
whether an On-Demand Capacity Reservation or a block draws on the quotas above is not checked here.

**Reservations.** Four on-demand p5.48xlarge are rarely there when asked for. A pool names an
On-Demand Capacity Reservation (`capacity_type: on-demand`, `capacity_reservation_id`: a reservation
for the pool's instance type and Linux/UNIX, accepting targeted launches) or a Capacity Block for ML
(`capacity_type: capacity-block`, the block's `cr-` id) and `availability_zone`, the reservation's zone
(required: a reservation holds instances in one zone, and an instance cannot launch into it from a
subnet of another). The launch template targets it (`capacityReservationSpecification.
capacityReservationTarget`); a Capacity Block adds `instanceMarketOptions.marketType: capacity-block`
and the instance type, and the node group's capacity type is `CAPACITY_BLOCK`. Karpenter pools select
it (`capacityReservationSelectorTerms`, capacity type `reserved`, plus `on-demand` beyond an ODCR). prod's
`h100-efa` pool targets an ODCR in us-east-1a. The reservation itself (and its end: a Capacity Block's
instances are terminated when it expires) is yours; shardwise does not buy or create it.

**Zones that offer the instance type.** A managed pool's node group uses only the subnets whose zone
offers its instance type (`aws.ec2.getInstanceTypeOfferings`, location type `availability-zone`,
through the component's AWS provider) and, with `availability_zone`, that zone's; a multi-node pool
the first of them (one placement group, one zone). The subnets' zones are known in a new VPC and
looked up (`aws.ec2.getSubnet`) in an existing one, so when no subnet is left `pulumi preview` fails
at `subnet_ids` (or `pool.availability_zone`), naming the subnets' zones and the zones that offer the
type. Karpenter pools choose subnets themselves.

### Prerequisites per mode

{prerequisites}

**The Hugging Face token, in every mode.** A gated model needs the token of an account that accepted
its terms, or the pods crash-loop on the download until the rollout times out. The program takes it
from the secret config `shardwise:hfToken` (`pulumi config set --secret shardwise:hfToken hf_…`) and
the environment creates, in each namespace, the Secret the workloads' `hf_token_secret` names (key
`HF_TOKEN`; the pods wait for it); `shardwise:hfTokenSecretExists: true` says the Secret is made
outside the program instead (External Secrets from AWS Secrets Manager). With neither, `pulumi
preview` fails before anything is declared, at `hf_token`, naming the model and why it is gated. The
components take the same as `hf_token` (a `pulumi.Output` secret) and `hf_token_secret_exists`. Gated
here (the Hub tells gating only to a signed-in request, so this is a list with sources, not the
catalog): {gated}. Re-uploads by other organisations (`hugging-quants/…`) set their own gate and are
not listed; a model outside the list that is gated needs the token just the same.

Checked at `pulumi preview`, before anything is declared: each prerequisite the environment needs and
does not have is an error at the spec path that needs it (services[0]: "needs keda on cluster
`llm-dev` (...): not listed in cluster.installed; ..."), and so is a PriorityClass a pod names that
`cluster.priority_classes` does not list. Whether the cluster really runs what it declares is not
looked up (the Kubernetes provider reads no CRDs at preview); a pvc cache's storage class and CSI driver
are not checked.

### What each component creates

* **RuntimeNetwork**: a VPC, private subnets, load-balancer subnets (public ones for an internet-facing
  router), an internet gateway and a NAT gateway (new-VPC mode), the
  GPU-node security group and its rules, the S3/ECR endpoints (new VPC, or opted in), the NetworkPolicies.
* **EksCluster**: the cluster and its IAM role, the node role, access entries, the system node group
  and launch template, the add-ons, the Kubernetes provider, the Helm releases, the controllers' IAM
  roles and Pod Identity associations.
* **GpuNodePool**: a managed node group, its launch template and placement group; or a Karpenter
  NodePool and EC2NodeClass.
* **VllmService** / **VllmMultiNode**: a Deployment (or LeaderWorkerSet), Service, PodDisruptionBudget,
  autoscaler, monitor, and when asked a ServiceAccount, Pod Identity association and cache claim.
* **InferenceRouter**: an ALB Ingress, or Gateway API HTTPRoutes and ReferenceGrants.
* **ServingEnvironment**: all of the above for one stack config, and the workloads' namespaces.

### Stand-ins that remain

The AWS provider (`pulumi-resource-aws`) cannot be built or downloaded here: the tests run the AWS side
under Pulumi's mocks (tests/support/component_mocks.py answers like the provider for the outputs programs read)
and the engine tests under a stand-in provider (tests/support/standin_provider.py) that accepts every input and
plans node-group and launch-template changes as the AWS provider does (ForceNew fields replace). So
IAM policy contents, EKS add-on configuration, launch templates and node groups are checked as the
inputs shardwise sends, not as AWS accepts them; the Helm releases are never installed.

The Kubernetes side meets a real API server: `tests/test_cluster.py` runs `pulumi up` of the dev,
staging and prod stacks (prod without its Helm charts, which this machine cannot fetch) with the real
Kubernetes provider against a local kube-apiserver, controller manager and scheduler (v1.35.4), with
the published CRDs of KEDA, the Prometheus operator and Karpenter installed and kwok playing the
nodes of each GPU pool. Every object is accepted, every vLLM pod is scheduled onto the instance type
the linter sized it for, a second `up` changes nothing, `pulumi destroy` leaves nothing, and a stack the
pack blocks creates nothing. The LeaderWorkerSet controller v0.7.0 runs there with its webhooks (built from
`sigs.k8s.io/lws`, its CRD from the same module): prod's 405B group forms, a leader and a worker pod on the
two `h100-efa` nodes, and `up` waits for the status the controller writes. No container runs (so no probe,
download or vLLM start-up), no other controller of those CRDs runs, and the CRDs and the LWS controller are
put there before `up`, not installed by the stack's Helm charts ([status.md](status.md)).

### Toward `pulumi package add`

A multi-language package (a schema other languages generate SDKs from) is blocked today by the Args
types: unions of a spec model and a mapping (`pool`, `engine`, `cache`, `pod`, `metrics`, `network`,
`cluster`, `spec`), pydantic models as field types (a schema knows objects, not pydantic validators and
patterns), `Any` (`pool`, `workloads`, `routers`, `backends`: a component or a spec), `validate` as
bool-or-mapping, and the `installs` map of resources by name. A schema-friendly Args would take each
spec as one object type generated from the pydantic model, components by reference, and `validate` as
a map of strings. New Args fields here are plain (`bool`, `str`, `Input[str]`) except `installs`.
"""


def _type(annotation: Any) -> str:
    if isinstance(annotation, str):
        text = annotation
    elif typing.get_origin(annotation) is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in typing.get_args(annotation))
    elif isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return " \\| ".join(_type(a) for a in typing.get_args(annotation))
    elif typing.get_origin(annotation) is not None:
        args = ", ".join(_type(a) for a in typing.get_args(annotation))
        return f"{getattr(typing.get_origin(annotation), '__name__', 'tuple')}[{args}]"
    elif annotation is type(None):
        return "None"
    else:
        text = getattr(annotation, "__name__", str(annotation))
    return text.replace("|", "\\|")


def _default(value: Any) -> str:
    if value is PydanticUndefined or value is dataclasses.MISSING:
        return "required"
    if isinstance(value, BaseModel):
        return f"`{type(value).__name__}()`" if value == type(value)() else f"`{value.model_dump()}`"
    if isinstance(value, enum.Enum):
        value = value.value
    if value in ((), {}, []):
        return "empty"
    return f"`{value!r}`".replace("|", "\\|")


def _prose(text: str) -> str:
    """A docstring as Markdown: Sphinx roles become code spans."""
    return re.sub(r":\w+:`~?(?:[\w.]+\.)?([^`]+)`", r"`\1`", inspect.cleandoc(text)).replace("``", "`")


def _row(*cells: str) -> str:
    return "| " + " | ".join(c.replace("\n", " ") for c in cells) + " |"


def args_table(args_cls: type, spec_cls: type[BaseModel] | None) -> list[str]:
    lines = [_row("field", "type", "default", "Output?", "meaning"), "|---|---|---|---|---|"]
    for f in dataclasses.fields(args_cls):
        spec_field = spec_cls.model_fields.get(f.name) if spec_cls is not None else None
        meaning = f.metadata.get("doc") or (spec_field.description if spec_field is not None else "") or ""
        if f.default_factory is not dataclasses.MISSING:
            default = _default(f.default_factory())
        else:
            default = _default(f.default)
        output = "yes" if "pulumi.Input" in str(f.type) else ""
        lines.append(_row(f"`{f.name}`", _type(str(f.type)), default, output, meaning))
    return lines


def model_table(model: type[BaseModel]) -> list[str]:
    doc = _prose(model.__doc__ or "").split("\n\n")[0].replace("\n", " ")
    lines = [f"### `{model.__name__}`", "", doc, "", _row("field", "type", "default", "meaning"),
             "|---|---|---|---|"]
    for name, info in model.model_fields.items():
        default = info.get_default(call_default_factory=True) if not info.is_required() else PydanticUndefined
        lines.append(_row(f"`{name}`", _type(info.annotation), _default(default), info.description or ""))
    return lines


def prerequisites() -> str:
    """The prerequisites table: each, what needs it, and who provides it per mode."""
    from shardwise.rules.render.environment import PREREQUISITES

    from .validation import CREATED_CLUSTER_INSTALLS

    lines = [_row("prerequisite", "what needs it", "new cluster (`cluster.create`)", "existing cluster"),
             "|---|---|---|---|"]
    for name, what in PREREQUISITES.items():
        created = "installed (Helm)" if name in CREATED_CLUSTER_INSTALLS else "yours: list it in `cluster.installed`"
        if name == "aws-load-balancer-controller":
            created = "installed, with `cluster.load_balancer_controller_policy_arn`"
        if name == "dcgm-exporter":
            created = "installed (Helm) unless `cluster.gpu_telemetry: false`"
        lines.append(_row(f"`{name}`", what, created, "yours: list it in `cluster.installed`"))
    lines.append(_row("PriorityClasses", "`pod.priority_class_name`", "yours: list them in `cluster.priority_classes`",
                      "yours: list them in `cluster.priority_classes`"))
    return "\n".join(lines)


#: EC2's vCPU quotas (Service Quotas, service `ec2`) that GPU instances count against, by family letter and
#: purchase: (quota name, quota code).
VCPU_QUOTAS = {
    ("p", "on-demand"): ("Running On-Demand P instances", "L-417A185B"),
    ("g", "on-demand"): ("Running On-Demand G and VT instances", "L-DB2E81BA"),
    ("p", "spot"): ("All P Spot Instance Requests", "L-7212CCBC"),
    ("g", "spot"): ("All G and VT Spot Instance Requests", "L-3819A6DF"),
}


def quotas() -> str:
    """Per stack, the vCPUs of each EC2 quota its GPU pools need at their max_size."""
    import yaml
    from shardwise.rules.catalog.hardware import catalog_instance

    root = pathlib.Path(__file__).resolve().parents[1] / "stacks"
    lines = [_row("stack", "pool", "instances (max_size)", "quota", "vCPUs"), "|---|---|---|---|---|"]
    for env in ("dev", "staging", "prod"):
        config = yaml.safe_load((root / f"Pulumi.{env}.yaml").read_text(encoding="utf-8"))["config"]
        spec = specs.EnvironmentSpec.model_validate(config["shardwise:environment"])
        for pool in spec.pools:
            family = pool.instance_type[0]
            purchase = "spot" if pool.capacity_type == "spot" else "on-demand"
            name, code = VCPU_QUOTAS[(family, purchase)]
            how = {"capacity-block": " (a Capacity Block)"}.get(pool.capacity_type, "")
            if pool.capacity_reservation_id and pool.capacity_type == "on-demand":
                how = f" (in reservation {pool.capacity_reservation_id})"
            vcpus = pool.max_size * catalog_instance(pool.instance_type).vcpus
            lines.append(_row(env, f"`{pool.name}`", f"{pool.max_size} × {pool.instance_type}{how}",
                              f"{name} (`{code}`)", str(vcpus)))
    return "\n".join(lines)


def render() -> str:
    out = [INTRO]
    for name, args_cls, spec_cls, component in COMPONENTS:
        cls_doc = _prose(args_cls.__doc__ or "").replace("\n", " ")
        outputs = _prose(outputs_paragraph(component)).replace("\n", " ")
        out += [f"## {name}", "", f"`{name}(name, {args_cls.__name__}(...), opts=None)`. {cls_doc}", "",
                *args_table(args_cls, spec_cls), "", f"Outputs: {outputs}", ""]
    out += ["## Specs", "", "The schema of stack configs (`shardwise:environment`) and of the fields above.", ""]
    for model in MODELS:
        out += [*model_table(model), ""]
    charts = ", ".join(f"{name} {version}" for name, (_, _, version) in CHARTS.items())
    from .hf_token import GATED

    gated = "; ".join(f"`{pattern.lstrip('^')}…` ({source})" for pattern, _, source in GATED)
    out.append(FACTS.replace("{charts}", charts).replace("{prerequisites}", prerequisites()).replace("{gated}", gated)
               .replace("{quotas}", quotas()))
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    print(render(), end="")

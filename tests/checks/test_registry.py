"""Meta-tests over every rule of the registry (kube-linter style): its metadata, its default
enforcement level, its fixtures and its generated doc page.

What each fixture fires is asserted exactly by test_rule_fixtures.py against the ``.expected`` file beside
it; the freshness of the doc pages by ``shardwise docs --check``.
"""

from __future__ import annotations

import re

import pytest
from repo_paths import ROOT
from shardwise.rules.checks.registry import ALL_RULES, codes, rule_by_code

FIXTURES = ROOT / "tests" / "fixtures" / "rules"
DOCS = ROOT / "rules" / "docs"
CODES = [r.meta.code for r in ALL_RULES]

# The default level of every rule and whether it may skip an unknown input with an advisory note,
# written out: changing either is a decision about what blocks a deployment, not a side effect.
LEVELS = {
    "SW001": ("mandatory", False),
    "SW002": ("advisory", False),
    "SW003": ("mandatory", False),
    "SW004": ("advisory", False),  # mandatory with unknown = "fail" in the config (test_cli)
    "SW005": ("advisory", False),  # an object that mentions vLLM gave no workload (test_generic_reader)
    # capacity: mandatory only beyond the estimate's error band (test_rules_capacity)
    "SW101": ("advisory", False),
    "SW102": ("advisory", False),
    "SW103": ("advisory", False),
    "SW104": ("advisory", False),  # mandatory when replicas surely hold the declared load (test_rules_capacity)
    "SW105": ("advisory", True),
    "SW106": ("advisory", False),
    "SW201": ("advisory", False),  # mandatory when the nodes have no RDMA fabric (test_rules_capacity)
    "SW202": ("advisory", False),  # mandatory when the sharding over PCIe was avoidable (test_rules_capacity)
    "SW203": ("mandatory", False),
    "SW204": ("mandatory", False),
    "SW205": ("advisory", False),  # mandatory when TP or expert traffic crosses nodes (test_rules_topology)
    "SW206": ("advisory", False),  # an unknown GPU is a cannot-decide: mandatory only with unknown = "fail"
    "SW207": ("mandatory", False),
    "SW208": ("advisory", False),
    "SW209": ("advisory", False),  # mandatory for an image built for another accelerator (test_accelerators)
    # security rules fail closed on unknown values; SW305 and SW307 may skip them with a note
    "SW301": ("mandatory", False),
    "SW302": ("mandatory", False),
    "SW303": ("mandatory", False),
    "SW304": ("mandatory", False),
    "SW305": ("advisory", False),  # mandatory for multi-node groups, unknown namespaces included (test_rules_net)
    "SW306": ("mandatory", False),
    "SW307": ("advisory", True),
    "SW308": ("mandatory", False),  # generic credential-like names are advisory hits
    "SW309": ("advisory", False),  # mandatory for hostNetwork, hostPID, privileged, node capabilities
    "SW310": ("advisory", False),  # mandatory for NVIDIA_VISIBLE_DEVICES
    "SW311": ("advisory", True),
    "SW312": ("advisory", True),
    "SW401": ("mandatory", True),
    "SW402": ("mandatory", True),
    "SW403": ("advisory", True),
    "SW404": ("advisory", True),
    "SW405": ("advisory", True),
    "SW406": ("advisory", True),
    "SW407": ("advisory", True),
    "SW408": ("advisory", True),
}

# The rules that do not check `shardwise plan`'s sized replica (it has no manifest: no env, probes, pod or GPU
# request to read), written out for the same reason.
NOT_ON_PLANS = {"SW204", "SW208", "SW209", "SW305", "SW308", "SW309", "SW310", "SW311", "SW312", "SW404", "SW407",
                "SW408"}

# advisory: a finding that does not block (inside the estimate's error, or a load nobody declared)
FIXTURE_KINDS = ("fail", "pass", "advisory", "unknown", "malformed")
FIXTURE_SUFFIXES = (".yaml", ".json")
EXPECTED_SUFFIX = ".expected"  # the findings a fixture fires (test_rule_fixtures.py)
# Fixtures beyond the four kinds, each asserted exactly by its .expected file like the others.
EXTRA_FIXTURES = {
    "SW001": {"unknown-code.yaml"},  # hostile9: a well-formed code that is no rule suppresses nothing: said
    "SW309": {"ptrace.yaml",  # corpus12: SYS_PTRACE reaches the node's processes only with hostPID
              "host-network-platforms.yaml",  # mend18: hostNetwork's remedy as the pod shows its platform
              "cpu-privileged.yaml"},  # corpus43: privileged's remedy on vLLM's CPU build is no GPU request
    "SW103": {"float32-assumed-release.yaml",  # review44: a load short only in float32 on an assumed release
              "ecc-range.yaml",  # ecc1: a load short with ECC on only (L40S) is advisory; beyond ECC off it blocks
              "context-parallel.yaml",  # review27: each GPU keeps 1/(DCP x PCP) of a sequence: never a block there
              "p95-beyond-length.yaml"},  # plancases25: a declared p95 above max_model_len is said, never clamped
    # issues 27 and 29: words vLLM exits on; Ray's dashboard published; an EC2NodeClass kept elsewhere; dev mode
    # through ConfigMaps of the inputs; an envFrom ConfigMap kept elsewhere is not guessed
    "SW209": {"kserve-cpu-build.yaml"},  # mend29: KServe's plain huggingfaceserver tag is its CPU build from v0.15
    "SW003": {"dlc-floating-tag.yaml",  # release37: a DLC floating tag judged at every patch of its line
              "cpu-images.yaml",  # mend37: vLLM's CPU images judged at the release they name
              "quantization-mismatch-own-format.yaml",  # mend37: fp8, compressed-tensors, fbgemm_fp8 checkpoints
              "literal-words.yaml", "declared-release.yaml",
              "kserve-backend-case.yaml",  # mend29: a --backend KServe's Hugging Face server's enum lookup refuses
              "kserve-runtime-placeholders.yaml",  # review50: KServe fills {{.Annotations.tp}} from the service
              "kserve-env-placeholders.yaml",  # mend38: and its env values; a missing key renders empty
              "operators.yaml",  # an undefined $(VAR) in a LeaderWorkerSet blocks, in an operator's template not
              "envsubst-template.yaml",  # ${TP} in a document whose counts are placeholders is the template's
              "angle-placeholders.yaml",  # corpus38: a tutorial's <TP_SIZE>, "<gpu-count>": its reader's to fill
              "absent-flags.yaml",  # a flag the image's vLLM release does not define (vllm.flags), and ones it does
              "undefined-flags.yaml",  # flags47: a flag no option of the release is or begins with (vllm.options)
              "model-option.yaml",  # `vllm serve --model X` where the release raises on it, and where it does not
              "serve-serve-model-flag.yaml",  # corpus11: `serve` doubled, the model in --model (a Knative Service)
              "refused-values.yaml",  # flags48: a value vLLM refuses at start-up (by release where it depends)
              "quantization-mismatch.yaml",  # quant49: --quantization awq/gptq on a bf16/fp8 checkpoint
              "flags-as-command.yaml",  # corpus17: engine flags as the container's command (no such executable)
              "unread-release.yaml",  # flags10: what every release refuses on an unread one; Mamba dtypes by release
              "hf-overrides-not-json.yaml",  # review17: an --hf-overrides json.loads refuses; JSON, dotted keys pass
              # hfover19: JSON that is not an object (null, [], a string, a number), by release
              "hf-overrides-not-an-object.yaml",
              "image-placeholder.yaml",  # corpus22: an image written as a placeholder makes the document a template
              "dynamo-image-placeholder.yaml",  # corpus27: so does a Dynamo mainContainer's placeholder image
              "pip-pinned.yaml",  # small12: a release `pip install vllm==X` pins is the one judged
              "router-routing-logic.yaml",  # mend1: a --routing-logic production-stack's router refuses (advisory)
              "switch-given-value.yaml"},  # mend1: a switch written with a value, by release (vllm.switches)
    "SW102": {"no-pipeline-parallel.yaml",  # a model vLLM builds without SupportsPP refuses any PP > 1, surely
              "tp-unknown-npu.yaml",  # mend24: a TP not known yet on an NPU node, in the device's noun
              "model-dtype-refused.yaml",  # capacity5: float16 for Gemma 2/3 from 0.9.1, bfloat16 below 8.0
              "model-dtype-fork-image.yaml",  # mend28: a fork's tag is its word: the release assumed, advisory
              "model-dtype-dlc-regions.yaml",  # review46: a DLC from an opt-in region's AWS account is AWS's build

              "float32-assumed-release.yaml",  # review44: a KV refusal only float32 on an assumed release makes
              "quantised-reupload-dtype.yaml",  # review44: bfloat16 by auto (< 0.9.0) on a re-upload's unread dtype
              "quantised-float32.yaml",  # review44: AWQ/GPTQ Gemma left float32 on a T4 (0.9.1+) is refused
              "quantisation-capability.yaml",  # quantcap1: a method below its minimum compute capability, by release
              "quantisation-capability-gpu-by-memory.yaml",  # review48: the GPU named by its memory only: undecided
              "ecc-range.yaml",  # ecc1: a KV refusal with ECC on only (L40S) is advisory; beyond the ECC-off figure it blocks
              "context-parallel.yaml",  # review27: vLLM checks cdiv(max_model_len, DCP x PCP) tokens a GPU: advisory
              "tp-unknown.yaml",  # mend17: TP not known, every TP the pod's GPUs allow refused, the largest by KV
              "mig-slice.yaml",  # mig20: a MIG slice's KV cache is sized in its profile's memory
              "eplb-without-expert-parallel.yaml",  # engine20: ParallelConfig refuses EPLB without EP (0.10+)
              "eplb-one-rank.yaml",  # engine21: and EPLB on one EP rank (TP x DP; TP x PCP x DP from 0.26)
              "accelerator-of-another-maker",  # place13: no pool of another accelerator maker holds the pod
              "karpenter-instance-types.yaml",  # karpenter10: judged on the instance types a NodePool lists too
              "affinity-terms-gpus.yaml",  # mend33: nodeSelectorTerms are ORed: judged on the GPU of each term
              "affinity-terms-node-name.yaml",  # review48: a matchFields term admits a node no input describes
              "affinity-terms-pinned-node-pools.yaml",  # review48: a term's pinned node beside declared pools
              "nodes-of-two-gpus.yaml",  # mend33: judged on the GPU of each Node of the inputs the pod may bind to
              "pools-of-two-gpus.yaml", "pools-of-two-gpus-swapped.yaml",  # mend37: every NodePool, in any order
              "pool-and-node-of-two-gpus.yaml", "pool-and-node-of-two-gpus-swapped.yaml",  # and a Node beside them
              "dlc-floating-line-capability.yaml",  # mend37: a floating tag every patch of whose line refuses it
              "node-name.yaml",  # mend37: a pod with spec.nodeName is that Node's, not the scheduler's
              "nvidia-fp8-name-only.yaml",  # mend37: NVIDIA's -FP8 uploads may be served as modelopt
              "packed-kv-dtype.yaml",  # rel034: a packed --kv-cache-dtype no attention backend takes on the GPU
              "mtp-pipeline-parallel.yaml",  # so does an MTP draft whose class lacks SupportsPP, by release
              "vision-band.yaml",  # issue 28: a length to suggest comes from the central estimate, never a band edge
              "multimodal-flags.yaml",  # issue 28: a multimodal flag the release's argument parser refuses
              "gemma4-chunked-mm.yaml",  # issue 28: a prefix-LM model's item above the token budget (0.20+)
              "kubeai-profile.yaml",  # sure31: a KubeAI profile's GPU blocks where KubeAI's values bind it, not by name
              "speculative-drafter.yaml",  # spec45: a drafter checkpoint's weights, known or not (cannot decide)
              "mamba-blocks.yaml",  # mamba55: max_num_seqs above the Mamba cache blocks, refused from 0.20
              "kserve-additional-args.yaml"},  # corpus33: an LLMInferenceService's VLLM_ADDITIONAL_ARGS are vLLM's flags
    "SW206": {"sharded-fits-every-gpu.yaml",  # corpus17: a sharded group that starts anywhere still needs its GPU
              "pinned-pool-without-the-accelerator",  # place14: pinned by name to a pool that never holds it: Pending
              "selector-on-other-hardware.yaml",  # sched19: a selector on hardware that never advertises it: Pending
              "ascend-npu.yaml"},  # mend2: an Ascend workload is told to select its NPU pool, not a GPU one
    "SW101": {"quantised-remedy-capability.yaml",  # read48: the remedy names only checkpoints the GPU and release take
              "cloud-run-knative.yaml",  # corpus9: Cloud Run's run.googleapis.com/accelerator names the GPU
              "cndi-config.yaml",  # corpus45: a cndi_config.yaml's cluster_manifests are the manifests Argo CD applies
              "cndi-template.yaml",  # corpus45: a CNDI template's prompt placeholder is a model not known yet
              "tp-unknown-npu-hpu.yaml",  # mend24: a TP not known yet on an NPU or HPU node, in the device's noun
              "model-float32-below-ampere.yaml",  # capacity5: auto leaves Gemma 2/3 float32 on a T4 or V100 (0.9.1+)
              "ascend-weights-exceed.yaml",  # mend15: weights alone above an NPU's whole memory block on any device
              "ascend-budget-only.yaml",  # mend15: ... and only the CUDA-sized budget failing is advisory there
              "ecc-range.yaml",  # ecc1: a refusal with ECC on only (L40S, A40) is advisory; beyond the ECC-off figure it blocks
              "mig-slice.yaml",  # mig20: a MIG slice is sized with its profile's memory, not the whole GPU's
              "mig-claim.yaml",  # mig21: a DRA claim of a MIG profile is sized as that slice, none named: unknown
              "cpu-offload.yaml",  # review20: --cpu-offload-gb above 0 leaves the GPU's share of the weights unknown
              "cpu-offload-routes.yaml",  # engine21: each route vLLM reads the offload by, and its UVA switch
              "gptq-bits.yaml",  # quantbits: an 8-bit GPTQ checkpoint is 8-bit under --quantization gptq
              "speculative-drafter.yaml",  # spec45: --speculative-model's draft model in the weights
              "remedy-fp8-beyond-any-gpu.yaml",  # review21: a remedy only where it can work (FP8, 627 GiB)
              "karpenter-family-list.yaml",  # karpenter10: judged on every GPU an instance-family list admits
              "karpenter-gpu-memory.yaml",  # karpenter12: a category's families less those a memory floor rules out
              "karpenter-pod-gpu-memory.yaml",  # karp13: the pod's category and GPU-memory selector narrow them
              "karpenter-gpu-count.yaml",  # place13: instance-gpu-count Gt 0 alone is every GPU family
              "karpenter-bare-gpu-name.yaml",  # bare15: EC2's a100 is p4d (40 GB) or p4de (80 GB), v100 p3 or p3dn
              "gfd-bare-product.yaml",  # place16: a bare GFD NVIDIA-A100 is any A100 of the catalog, 40 or 80 GB
              "ack-gpu-name.yaml",  # corpus36: ACK's aliyun.accelerator/nvidia_name names the GPU it sizes on
              "amd-partition.yaml",  # amd17: an MI300X amd.com/gpu is a whole GPU or a partition of one
              "overlay-patches-args",  # place14: an unbuilt overlay patches the args read from the base: advisory
              # review22: a name's quantisation before words not read is neither it nor the base model's bf16
              "quant-word-before-unread-words.yaml",
              "tp-unknown.yaml",  # mend13: a TP not known yet, bounded by the pod's GPUs, fails at every value
              "tpu.yaml"},  # tpu19: a TPU is not sized by the CUDA/ROCm capacity model: said once, advisory
    "SW104": {"canonical.yaml",  # the canonical case blocks without a declared load; a thin reserve; a latency target
              "load-remedy.yaml",  # remedy1: with a declared load the message names the change (replicas 3 → 6, ...)
              "ecc-range.yaml",  # ecc1: on an RTX A6000 (ECC off in the catalog) it blocks only where sure with ECC on
              "heredoc.sh",  # a deploy script's here-documents fed to kubectl, its findings at the script's lines
              "arks-application.yaml",  # corpus16: an Arks application sized on the model of its ArksModel
              "max-num-seqs-default.yaml",  # maxseqs53: one GPU serves only below vLLM's default cap: advisory
              "fewer-stages.yaml",  # planfix16: PP3 where one PP2 engine on two of the GPUs serves (vLLM 22140)
              "amd-partition.yaml",  # amd17: TP8 over MI300X devices that may be CPX partitions: not blocking
              "mig-cannot-start.yaml",  # mig21: a replica that cannot start on MIG (SW204 blocks) is not sized here
              "absurd-gpu-count.yaml",  # loadlimits1: 16,384 GPUs a replica, its counts written with separators
              "pods-never-schedule.yaml",  # readers20: a pod that never schedules (SW201 blocks) is not sized here
              "pods-never-schedule-suppressed.yaml",  # fold22: ... unless SW201 is suppressed there: sized, blocks
              "ascend-npu.yaml",  # mend6: on an Ascend pool the message counts NPUs, not GPUs; mend12: advisory
              "amd-labelled.yaml",  # mend12: an AMD GPU the catalog lacks is sized without ROCm's terms: advisory
              "pcie-tp-in-domain.yaml"},  # mend10: of two layouts of one GPU count, the one whose TP stays in NVLink
    "SW106": {"refusing-layout.yaml",  # a layout that does not start is no yardstick for the variant
              "quantization-refused.yaml",  # mend37: no variant proposed where SW003 says the flag crashes
              "fp8-checkpoint.yaml",  # mend2: an FP8 checkpoint is offered only a smaller (4-bit) variant
              "ascend-npu.yaml",  # mend6: on an Ascend pool the message counts NPUs, not GPUs
              "within-band.yaml",  # mend8: a load within the error band: the band is given, "may not hold"
              "variant-refused.yaml"},  # quantcap1: no AWQ/GPTQ variant where vLLM refuses both (Gemma 2 on a T4)
    "SW201": {"nvl72-clique.yaml",  # TP over GB200 trays kept in one nvidia.com/gpu.clique, and not kept
              "across-pods.yaml",  # a TP group spread over the 1-GPU pods of a multi-node group
              "karpenter-instance-types.yaml",  # karpenter12: judged on every kind a NodePool's type list admits
              "request-beyond-node.yaml",  # a pod's request beyond its node's GPUs where its TP group fits one
              "request-not-whole-gpus.yaml",  # review19: time-sliced, MIG and NeuronCore requests are not of its GPUs
              "native-sidecar.yaml",  # readers19: a native sidecar's and an init container's GPUs count for the pod
              "resource-models.yaml",  # sched19: MIG slices against what a node holds; a claim's "cannot allocate"
              "karpenter-gpu-count.yaml",  # sched19: a NodePool's GPUs per node bounded by its requirements
              "sidecar-mig.yaml",  # review21: a sidecar's MIG slice said against what the node holds
              "sidecar-karpenter.yaml",  # review21: a sidecar's GPU on a NodePool said as Karpenter says it
              "absurd-counts.yaml"},  # mend10: 16,384 GPUs, 1,024 nodes and pods, written with separators
    "SW105": {"shared-gpu.yaml",  # time-sliced, runtime-visible, unified-memory and shared-claim GPUs; a MIG slice
              "extensible-kv-cache.yaml",  # rel034: 0.34's extensible KV cache measures its headroom (default 1.0)
              # the device plugin's sharing configuration among the inputs: cluster-wide, and picked per node
              "time-slicing-config.yaml", "time-slicing-per-node.yaml",
              "assumed-release.yaml",
              "assumed-release-high.yaml"},  # mend5: a high value no finding only in the assumed release: undecided  # mend4: the default of a release the image tag does not name says it is assumed
    "SW202": {"karpenter-nodepool.yaml",  # a Karpenter NodePool by instance family or GPU name keeps the fabric
              "sw104-blocks.yaml",  # remedy1: where SW104 blocks on the same workload, SW202 is advisory beside it
              "pcie-folded-into-sw104.yaml",  # mend10: SW104 names TP1×PP2 on PCIe, so SW202 defers to it
              "ecc-range.yaml",  # ecc1: on RTX A6000s (ECC off in the catalog) blocks only where sure with ECC on
              "refusing-layout.yaml",  # a layout that does not start is never compared with replicas
              "latency.yaml",  # a declared per-token latency target makes the avoidable sharding advisory
              "no-pipeline.yaml",  # pipeline stages that would not start are no alternative, and it says why
              "kv-room.yaml",  # one GPU judged as plan judges it (capacity.layout.serves): room or not, and why
              "karpenter-instance-type.yaml",  # corpus18: the instance type a pod selects from a NodePool's families
              "karpenter-instance-types.yaml"},  # karpenter12: judged on every kind, the billed one passing
    "SW203": {"neuron-heads.yaml"},  # mend28: vLLM refuses 64 heads at TP24 on Neuron too (NxDI's padding is behind it)
    "SW204": {"shared-gpu.yaml",  # GPUs seen without a request are advisory; shares and slices count one each
              "cuda-image-cpu-setting.yaml",  # mend30: the CUDA image never runs the CPU backend its env configures
              "privileged-rocm.yaml",  # corpus26: a privileged container sees every device of its node
              "limitrange-default.yaml",  # limitrange22: a LimitRange's default GPU is the count of a container
              "limitrange-max-tenant.yaml",  # that writes none (a max alone is the default)
              "prefill-context-parallel.yaml",  # engine22: vLLM's world is TP × PP × PCP
              "ray-prefill-context-parallel.yaml",  # review24: a Ray cluster spreads TP × PP × PCP over its pods
              "ray-serve-llm-context-parallel.yaml",  # engine23: a Ray Serve LLM replica holds its placement group's bundles
              "ray-serve-llm-data-parallel.yaml",  # engine24: build_dp_openai_app holds DP x each rank's bundles
              "ray-serve-llm-plain-app-data-parallel.yaml",  # engine25: build_openai_app's vLLM DP: undecided
              "ray-statefulset.yaml",  # a Ray cluster a StatefulSet's script builds over its pods is one engine
              "rbg-ray-roles.yaml",  # corpus12: a RoleBasedGroup's roles joined into one Ray cluster are one engine
              "device-annotation.yaml",  # GPUs an admission webhook or scheduler adds from a pod annotation
              "zero-replicas.yaml",  # corpus13: replicas 0 runs no pod (an HPA leaves it at zero); KEDA wakes it
              "zero-replicas-woken.yaml",  # review13: an HPA of minReplicas 0 or an Argo Rollout's workloadRef runs it
              "zero-replicas-overlay",  # place14: an unbuilt overlay's replicas over a base at 0 runs it
              "client-beside-server.yaml",  # which container is the server: a client beside it, a GPU elsewhere
              "mig.yaml",  # mig20: MIG devices hold one vLLM device per pod whatever their count
              "mig-strategy-label.yaml",  # review23: the strategy label alone is on MIG-disabled nodes too
              "device-flag.yaml",  # --device cpu on the CUDA image is no CPU backend; on a team's own image it is
              "cpu-tpu-images.yaml",  # release37: vLLM's and Red Hat's CPU and TPU builds owe no GPU request
              "kserve-runtime-resources.yaml",  # review50: KServe merges a runtime's resources key by key
              "target-device-env.yaml",  # corpus10: VLLM_TARGET_DEVICE=cpu is a build setting, as --device cpu is
              "native-multinode.yaml",  # corpus10: --nnodes N spreads the layout over N pods (vLLM's own launch)
              "configmap-flags.yaml",  # corpus14: $(VAR) flags from configMapKeyRef of a ConfigMap of the input
              "arks-application.yaml",  # corpus16: an Arks ArksApplication's TP against its instance GPUs × size
              "nebari-llmmodel.yaml",  # corpus21: a Nebari LLMModel's TP against its gpu.count
              "configmap-namespace.yaml",  # corpus15: only a ConfigMap of the pod's own namespace is read for it
              "hardware-profile.yaml",  # corpus15: an OpenShift AI hardware profile gives the GPUs at admission
              "configmap-envfrom.yaml",  # corpus15: $(VAR) flags from an envFrom ConfigMap of the input
              "configmap-other-file",  # xfile46: the ConfigMaps in other files of the folder, joined
              "configmap-script",  # corpus33: a start script mounted from a ConfigMap beside it, run by the command
              "configmap-twice.yaml",
              "kustomize-overlay",  # corpus18: a kustomize overlay's patch (no image) leaves the request to its base
              "llm-inference-service-patch.yaml",  # corpus39: an operator resource's patch leaves its GPUs to the base
              "cpu-instance-family.yaml",  # corpus19: a team's own image on instances without accelerators: CPU build
              "openvino-cpu.yaml",  # corpus22: vLLM's OpenVINO build on the CPU (VLLM_OPENVINO_DEVICE unset or CPU)
              "hardware-profile-inputs.yaml"},  # leftovers47: the named OpenShift AI hardware profile in the inputs  # leftovers47: one ConfigMap twice: same data is one, different data undecided
    "SW208": {"shared-gpu.yaml",  # surplus time-sliced shares and MIG slices
              "prefill-context-parallel.yaml",  # engine22: -pcp ranks are used GPUs, -dcp ones are not
              "device-nouns.yaml"},  # mend30: NeuronCores and NPUs in their own nouns, not "GPUs"
    "SW205": {"efa-template.yaml",  # an EFA count left to envsubst (${EFA_PER_WORKER}) is an unknown
              "karpenter-instance-types.yaml",  # karp13: judged on every kind, EFA on one of them only
              "pods-never-schedule.yaml",  # readers20: pods that never schedule (SW201 blocks): advisory here
              "prefill-context-parallel.yaml"},  # engine23: a node holds TP × PCP blocks or the PCP ranks cross
    "SW301": {"ray-script-lws.yaml",  # review44: vLLM's multi-node-serving.sh read as the ray start it runs
              "ray-dashboard.yaml", "named-port-undeclared.yaml",  # corpus19: a port name the pods do not declare
              "kv-rank-ports.yaml",  # mend24: NIXL's and P2P NCCL's ports of each rank above the base
              "ray-default-worker-ports.yaml",  # mend24: ray start's default worker range, 10002-19999
              "route-namespace-unknown.yaml",  # a backendRef namespace a template fills: cannot decide, not silent
              "other-program.yaml",  # corpus26: a Service whose pods all serve with another engine (SGLang)
              "ray-default-port-only.yaml",  # mend3: Ray's default number alone (Redis, Dragonfly, a Ray head)
              "dist-default-port-only.yaml",  # mend5: torch.distributed's/vLLM's number alone (web app, torchrun)
              "ray-command-from-config.yaml",  # review29: Ray started by a ConfigMap's variable or mounted script
              "ingress-backends-apart.yaml",  # review29: each Service behind an Ingress answers for its own port
              "selectorless-named-target.yaml",  # corpus37: a Service with no selector sends to no pod's port name
              "ray-generic-port-name.yaml",  # mend7: a port named `dashboard`/`client` is no sign of Ray alone
              "ray-own-entrypoint.yaml",  # mend7: a custom image's own entrypoint on a Ray port: advisory
              "dist-ports-by-signal.yaml",  # mend9: each signal opens its own ports (LWS, envFrom, NCCL_COMM_ID)
              "controller-labels.yaml",  # review33: pods selected by their LWS / training operator's labels
              "vllm-ports-by-setting.yaml",  # review33: vLLM opens 29500/29501/29550 as its source does
              "ports-set-by-settings.yaml",  # review33: a port a setting chooses (MASTER_PORT, --…-port)
              "ray-ports-by-node.yaml",  # mend11: a Ray worker's ports, a head's ports its settings choose
              "moriio-ports.yaml",  # mend11: MoRIIO's handshake and notify ports, a KV connector's own
              "moriio-rank-ports.yaml",  # review37: the ports its ranks take above the base ones
              "moriio-rank-ports-tp-unknown.yaml",  # review42: those a TP not known yet may take: cannot decide
              "moriio-rank-ports-dp-unknown.yaml",  # mend28: a DP not known yet: any port above a base may be one
              "kv-rank-ports-size-unknown.yaml",  # mend32: NIXL, Mooncake, P2P NCCL at a size not known
              "kv-rank-ports-taken.yaml",  # review49: a port a sidecar of the pods holds is no rank's; per workload
              "ingress-ports-by-backend.yaml",  # review49: a port routed to one backend is not routed to the others
              "moriio-dp-computed.json",  # mend28: the same where a preview computes the DP; the API port none
              "ray-dashboard-loopback.yaml",  # review37: a head's dashboard on the loopback (Ray's default host)
              "ray-pinned-ports.yaml",  # mend22: the ports ray start's other flags pin (raylet, workers' range)
              "ray-pins-beside-unread.yaml",  # mend25: the readable pins beside a flag from a Secret
              "ray-dashboard-grpc-port.yaml",  # mend28: a head's --dashboard-grpc-port where Ray <= 2.44 is read
              "ray-pin-computed.json",  # mend25: a pin a preview computes: cannot decide at the port it may be
              "ingress-ray-pin-computed.json",  # mend28: the same behind an Ingress; a known pin routed blocks
              "ingress-ports-set-by-settings.yaml",  # mend28: an Ingress to a port the pods' settings choose
              "ingress-service-absent.yaml",  # review46: a runtime port routed to a Service not in the inputs
              "ray-dashboard-grpc-release.yaml",  # review46: the Ray image decides, a digest beside its tag too

              "ray-pin-computed-api-port.json",  # review45: but not at the pods' own vLLM API port
              "ray-start-shell-script.yaml",  # review41: a start script's continued lines and ${VAR:-word} defaults
              "searched-kustomize-namespace",  # corpus34: a searched kustomization's namespace, no vLLM workload
              "gamma-route.yaml"},  # mend23: a GAMMA (mesh) route routes no outside traffic; a Gateway parent does
    "SW302": {"cluster-security-group.json"},  # sure31: no security group named: EKS's cluster group, advisory
    "SW304": {"auto-mode.yaml",  # EKS Auto Mode NodePools: AWS's IMDS settings, no launch template
              "karpenter-nodeclass-elsewhere.yaml",
              "ami-family.json"},  # sure32: no launch template: blocks for AL2 only, the AMI family says why
    "SW004": {"kustomize-base.yaml",  # an LLMInferenceService base that leaves model.uri empty for its overlays
              "path-awq-4bit.yaml",  # corpus10: a path named ...-awq-4bit is sized as its base at int4 AWQ
              "config-generator",  # corpus32: vLLM's --config file from a configMapGenerator of a searched base
              "operator-resource.yaml"},  # corpus37: an operator's resource whose container leaves the model to it
    "SW005": {"gitops.yaml",  # Argo CD, Flux and k3s Helm objects whose values run vLLM
              "kserve-backend-configmap.yaml",  # mend35: KServe HF server --backend=$(VAR) the inputs give no value
              "helmrelease-values-from-input.yaml",  # mend35: valuesFrom naming a ConfigMap of the inputs, said so
              "engine-field-spellings.yaml",  # mend18: engine: vllm, inference_engine, engineType on own kinds
              "image-repository.yaml",  # fuzz13: an operator object naming vLLM's image Helm's way (repository/tag)
              "annotation-patch.yaml",  # the server container in an annotation a controller applies (llm-d FMA)
              "rayllm.yaml",  # RayLLM's application: its model files (engine_config type VLLMEngine) say the engine
              "engine-type.yaml",  # an engine named as a mapping: AI Runway's engine: {type: vllm}
              "kaito-templates.yaml",  # corpus37: a KAITO template's ${presetName} named as a placeholder
              "kaito-inference-config.yaml",  # corpus37: a KAITO inference config's vllm: settings win, said so
              "malformed-kaito-spec.yaml",  # corpus44: a Workspace with its fields under a spec: KAITO refuses
              "heredoc-unapplied.sh",  # a script's vLLM manifest here-document that no kubectl is seen to apply
              "heredoc-mixed.sh",  # the same beside here-documents the script does apply (read and linted)
              "heredoc-image-variable.sh",  # corpus10: a script's pod whose image is a shell variable it sets
              "bench-client.yaml",  # leftovers47: vLLM's benchmark client (`vllm bench serve`) is a client
              "weights-download.yaml",  # corpus32: a Job that only downloads the weights (`modelscope download`)
              "djl-lmi.yaml",  # corpus12: DJL Serving's LMI container told to run vLLM by OPTION_ROLLING_BATCH
              "dynamo-sdk.yaml",  # corpus12: Dynamo 0.1-0.3's `dynamo serve ...:VllmWorker -f config`
              "gateway.yaml",  # small12: a gateway named for vLLM, in front of its Service, is no mention
              "other-engines.yaml",  # corpus19: SGLang, LMDeploy, TGI, trtllm-serve workloads are named, not passed
              "unknown-engines.yaml",  # readers18: LocalAI, Triton, a team's own server on a GPU named, not passed
              "simulators.yaml",  # readers18: llm-d's inference simulator said to be recognised as one
              "operator-engines.yaml",  # corpus20: a NIMService, Dynamo's SGLang and TensorRT-LLM workers
              "llama-ollama.yaml",  # corpus20: llama.cpp and Ollama on GPUs are named, on CPUs not
              "named-images.yaml",  # corpus20: an SGLang-named image, TensorRT-LLM release image serving on GPUs
              "overlay-patches-args",  # newuser11: a searched overlay patches the base's model, TP and pool
              "knative-v1alpha1.yaml",  # mend2: a Knative version Knative removed (0.19) is said so, v1 named
              "vm-container-run.yaml"},  # corpus41: a VM's userData `docker run` of vLLM (Crossplane, KubeVirt)
    "SW002": {"bench.yaml",  # leftovers47: `vllm bench throughput`/`latency`/`sweep` load a model or start servers
              "proxy.yaml",  # small12: a proxy/router named for vLLM, with no GPU, forwarding to a server's URL
              "named-for-vllm.yaml"},  # corpus26: an image named for vLLM is not called the vLLM image
    "SW305": {"no-policy-in-input.yaml",  # no policy in the input: multi-node gaps advisory, saying what decides
              "placeholder-selector.yaml",  # mend14: a policy's selector a template fills selects pods not known yet
              "placeholder-peers.yaml",  # review38: its peers, ipBlock, rules, term values or namespace: not known
              "placeholder-rules-other-pods.yaml"},  # review39: such a policy of other pods decides nothing for vLLM
    "SW401": {"host-ipc.yaml",  # corpus20: hostIPC gives the container the node's /dev/shm (containerd)
              "kserve-runtime-volume.yaml",  # corpus22: a ServingRuntime's spec.volumes are the predictor pod's
              "kserve-runtime-mounts.yaml",  # review50: and its container's volumeMounts by mountPath
              "custom-resource-template.yaml",  # an unmodelled operator's spec.template: advisory, OpenKruise's not
              "prefill-context-parallel.yaml"},  # engine23: a TP1 engine's PCP ranks are workers that talk over NCCL
    "SW306": {"lws-leader.yaml",  # a Service selecting an LWS leader by the labels its controller adds
              "no-ports.yaml",  # mend24: a Service that lists no port says so
              "nodeport-internal.yaml",  # a NodePort and an internal LoadBalancer are advisory
              "aws-lbc.yaml",  # sure31: the AWS Load Balancer Controller's NLB is internal without a scheme
              "cloud-default.yaml",  # sure32: no class, no scheme: sure only where the inputs name GKE, AKS, ...
              "knative.yaml",  # corpus12: a Knative Service's route is public unless the Service is cluster-local
              "kserve.yaml",  # an InferenceService by deployment mode and visibility label (Serverless blocks)
              "kserve-vendored.yaml",  # kserve/website's and Kelvinskell's InferenceServices, verbatim
              "fail-configmap.yaml",
              "ingress.yaml",  # corpus13: an Ingress or HTTPRoute onto a vLLM that checks no API key
              "ingress-class.yaml",  # its reach from its IngressClass's IngressClassParams (EKS Auto Mode)
              "route.yaml",  # an OpenShift Route onto the predictor Service KServe makes for an InferenceService
              "kserve-config.yaml",  # corpus13: KServe's inferenceservice-config in the inputs: default mode, Ingress
              "kserve-config-ingress.yaml",  # its default RawDeployment with Ingress creation on, said so
              "kserve-config-disagree.yaml",  # two that disagree: KServe's shipped default, as without one
              "proxy-sidecar.yaml",  # a proxy sidecar (oauth2-proxy) on the Service's targetPort: advisory
              "proxy-sidecar-routed-port.yaml",  # review50: behind an Ingress, only the Service ports it routes to
              "llmisvc-router.yaml",  # llmisvc49: an LLMInferenceService's router route on a Gateway: advisory
              # gateway51: HTTPRoutes and LLMInferenceService routes judged on the Gateways of the inputs
              "gateway-gke.yaml",  # GKE's external class blocks, its internal one and unadmitted routes do not
              "inference-pool.yaml",  # corpus37: an HTTPRoute onto an InferencePool's pods, as onto a Service's
              "gateway-aws.yaml",  # the AWS LBC's ALB Gateways: LoadBalancerConfiguration scheme, internal default
              "gateway-policies.yaml",  # Envoy Gateway / Istio: not sure; SecurityPolicy, AuthPolicy, Istio silence
              "gateway-files",  # a Gateway in one file, the route and the vLLM Deployment in others
              "gateway-preview.json",  # a computed gatewayClassName, ALB scheme or backendRef kind cannot decide
              "llmisvc-gateway.yaml",  # KServe's default Gateway in the inputs, on GKE's external class
              "llmisvc-gateway-config.yaml",  # the default Gateway an inferenceservice-config of the inputs names
              "cross-namespace-backend.yaml",  # mend16: a backendRef's namespace, as its ReferenceGrants say
              "backend-kinds.yaml",  # mend23: ServiceImport, Backend, a groupless pool, group core; a pool's group
              "route-applied-namespace.yaml",  # mend23: a route naming no namespace against a grant: cannot decide
              "kserve-remote-predictor.yaml",  # mend23: a predictor stand-in of the backendRef's namespace
              "gamma-route.yaml",  # mend23: a GAMMA route (parents are Services) is published by no Gateway
              "route-ref-default.yaml",  # mend29: `namespace: default` from a route naming none: cannot decide
              "backend-kind-placeholder.yaml"},  # mend29: a backendRef's kind or group a template fills: unknown
    "SW308": {"secrets.yaml",  # committed Secrets, placeholders, one finding per value per object
              "script-in-configmap.yaml",  # corpus25: a token inside a script a ConfigMap holds, said by itself
              "default-password.yaml",  # mend3: a product's well-known default password (MinIO's) blocks
              "credential-keys.yaml",  # mend5: secretkey/secretKey/SECRET-KEY; Grafana's, RabbitMQ's defaults
              "default-password-spellings.yaml"},  # review29: secretkey, rootPassword, an env file; an access key
    "SW307": {"template-placeholder.yaml"},  # corpus27: a tag a template's placeholder may hold is not known
    "SW310": {"huge-request.yaml",  # corpus18: a request of 2147483648 GPUs (the fuzz): no list of that length
              "pass-envfrom-elsewhere.yaml",
              "bottlerocket.json",  # sure32: Bottlerocket ignores NVIDIA_VISIBLE_DEVICES when unprivileged
              "cpu-backend.yaml"},  # corpus44: CUDA_VISIBLE_DEVICES='' on vLLM's CPU backend hides no GPU it uses
    "SW312": {"inference-pool.yaml",  # corpus37: an HTTPRoute onto an InferencePool's pods is a route in front
              "placeholder-selector.yaml",  # mend13: a selector a template fills selects pods not known yet
              "cross-namespace-backend.yaml",  # mend16: a route in front of another namespace's pods, by grant
              "gamma-route.yaml"},  # mend23: a GAMMA (mesh) route is no gateway in front
    "SW402": {"model-size.yaml",  # TinyLlama passes a 150 s window, a 70B downloaded at every start does not
              "online-quantization.yaml"},  # mend10: a bf16 checkpoint quantised at load is downloaded at 16 bits
    "SW406": {"autoscaled.yaml",  # an autoscaled target counts its maximum
              "vllm-router.yaml",  # readers14: production-stack's router (vllm-router) and its --routing-logic
              "class-name-only.yaml",  # mend1: the class from spec.ingressClassName or its IngressClass's controller
              "class-name-unknown.json"},  # mend1: a preview's computed ingressClassName is an unknown class
    "SW407": {"startup-probe.yaml"},  # a startup probe on vLLM's port gates readiness; one on a sidecar's does not
    "SW408": {"nccl-trace.yaml"},  # NCCL_DEBUG=TRACE and friends; their INFO levels are quiet
}


def test_codes_are_unique_well_formed_and_in_ascending_order():
    assert len(set(CODES)) == len(CODES)
    assert all(re.fullmatch(r"SW\d{3}", c) for c in CODES), CODES
    assert CODES == sorted(CODES)
    assert codes() == CODES


def test_names_are_unique():
    names = [r.meta.name for r in ALL_RULES]
    assert len(set(names)) == len(names)


def test_rule_by_code_finds_every_rule():
    assert [rule_by_code(c.lower()) for c in CODES] == list(ALL_RULES)
    with pytest.raises(KeyError):
        rule_by_code("SW999")


@pytest.mark.parametrize("code", CODES)
def test_metadata_is_complete(code):
    m = rule_by_code(code).meta
    assert m.code == code
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", m.name), m.name
    assert m.summary.strip() and m.why.strip() and m.bad_example.strip() and m.good_example.strip()
    assert m.remediation.rstrip().endswith("."), m.remediation
    assert m.references and all(r.startswith("https://") for r in m.references), m.references
    assert m.scope in ("resource", "stack")


def test_the_level_table_covers_exactly_the_registry():
    assert sorted(LEVELS) == CODES


@pytest.mark.parametrize("code", CODES)
def test_default_enforcement_and_unknown_handling(code):
    m = rule_by_code(code).meta
    assert (m.enforcement, m.safe_to_skip_unknown) == LEVELS[code]


def test_the_rules_that_skip_plans_are_these():
    assert {c for c in CODES if not rule_by_code(c).meta.applies_to_plans} == NOT_ON_PLANS


def test_every_fixture_folder_belongs_to_a_rule():
    folders = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
    assert folders == CODES
    assert [p.name for p in FIXTURES.iterdir() if not p.is_dir()] == []


@pytest.mark.parametrize("code", CODES)
def test_every_rule_has_a_failing_a_passing_and_an_unknown_or_malformed_fixture(code):
    files = {p.name for p in (FIXTURES / code).iterdir() if p.suffix != EXPECTED_SUFFIX}  # beside each: what it fires
    extra = EXTRA_FIXTURES.get(code, set())
    assert extra <= files, f"{code}: {sorted(extra - files)} listed in EXTRA_FIXTURES but missing"
    kinds = {f.rsplit(".", 1)[0] for f in files - extra}
    others = sorted(f for f in files - extra
                    if f.rsplit(".", 1)[0] not in FIXTURE_KINDS or not f.endswith(FIXTURE_SUFFIXES))
    assert others == [], f"{code}: unexpected fixture files {others}"
    assert {"fail", "pass"} <= kinds, f"{code}: has {sorted(files)}"
    assert kinds & {"unknown", "malformed"}, f"{code}: no unknown or malformed fixture in {sorted(files)}"


def test_every_rule_has_a_doc_page_and_no_page_lacks_a_rule():
    pages = sorted(p.stem for p in DOCS.glob("*.md") if p.name != "README.md")
    assert pages == CODES


@pytest.mark.parametrize("code", CODES)
def test_doc_page_is_the_rules(code):
    lines = (DOCS / f"{code}.md").read_text(encoding="utf-8").splitlines()
    assert f"# {code}: {rule_by_code(code).meta.name}" in lines

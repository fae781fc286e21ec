"""Typed records for the shipped catalogs (GPUs, AWS instance types, model shapes).

Every record names the public `source` its numbers come from. The data lives in
``data/*.json`` beside this module and is loaded lazily by :mod:`shardwise.rules.catalog`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Interconnect = Literal["nvswitch", "nvlink", "pcie", "fabric"]
"""How the accelerators of one node talk: an NVSwitch all-to-all fabric, NVLink bridges/mesh, PCIe
only, or another vendor's own chip-to-chip fabric (AMD Infinity Fabric, Intel Gaudi's on-chip RoCE,
Google's ICI, AWS NeuronLink)."""

Vendor = Literal["nvidia", "amd", "intel", "google", "aws", "huawei", "rebellions", "furiosa"]
"""Who makes an accelerator: the ``vendor`` of a family in the vendor table (:mod:`.accelerators`)."""

Cloud = Literal["aws", "azure", "gcp"]

Precision = Literal["bf16", "fp16", "fp32", "fp8", "int8", "int4", "mxfp4", "nvfp4"]


@dataclass(frozen=True)
class GpuInfo:
    """One accelerator model (an NVIDIA or AMD GPU, an Intel Gaudi, a Google TPU chip, an AWS Neuron device).

    ``memory_gib`` is the total device memory as the serving runtime reports it (CUDA's
    ``torch.cuda.mem_get_info`` total, HIP's on ROCm, JAX's ``bytes_limit`` on TPU), which is what
    ``gpu_memory_utilization`` is a fraction of; ``memory_gb`` is the nominal marketing figure in
    decimal GB (what ``gpus_needed`` takes). One record is one schedulable device: one
    ``amd.com/gpu`` of an MI250X is one of its two GCDs, one ``aws.amazon.com/neuron`` is one chip.
    """

    name: str  # canonical, e.g. "H100-SXM-80GB"
    memory_gb: float  # nominal, decimal GB
    memory_gib: float  # as the runtime reports it
    architecture: str  # "ampere", "ada", "hopper", "blackwell", "turing", "volta", "cdna3", "gaudi2", "tpu-v5e", ...
    fp8: bool  # native FP8 matrix units that vLLM uses for FP8 weights
    aliases: tuple[str, ...] = ()  # other spellings, GFD product labels, Karpenter and GKE names
    #: CUDA compute capability (major, minor) of an NVIDIA part, what vLLM's ``has_device_capability`` /
    #: ``is_device_capability`` / ``is_device_capability_family`` test (NVIDIA's CUDA GPUs page,
    #: https://developer.nvidia.com/cuda-gpus, and the CUDA C++ Programming Guide's compute-capability table): the
    #: ``blackwell`` label holds 10.0 (B200, GB200), 10.3 (B300, GB300) and 12.0 (RTX 5090, the RTX PRO Blackwell
    #: cards). None: another vendor's part.
    compute_capability: tuple[int, int] | None = None
    interconnect: Interconnect = "pcie"  # what multi-GPU servers of this part usually have
    #: Most devices one fast link joins all-to-all on servers of this part: 8 on HGX boards, 72 on
    #: GB200 NVL72, 2 for H100 NVL (NVLink bridges join cards in pairs only), 1 for PCIe-only cards.
    #: For other vendors, their own fabric (AMD Infinity Fabric, TPU ICI, NeuronLink).
    nvlink_domain_size: int = 1
    vendor: Vendor = "nvidia"
    k8s_resource: str = "nvidia.com/gpu"  # the extended resource its device plugin advertises
    source: str = ""
    #: EC2's own figure for one GPU of the part, in MiB (DescribeInstanceTypes
    #: ``GpuInfo.Gpus[].MemoryInfo.SizeInMiB``): the value of Karpenter's and EKS Auto Mode's ``instance-gpu-memory``
    #: label, which a NodePool's ``Gt``/``Lt``/``In`` compares. Not the memory the rules use (``memory_gib``); None
    #: where the catalog does not hold it.
    ec2_memory_mib: int | None = None
    #: GPUs one node of the part carries where no instance type in the catalog says it (``plan`` without
    #: ``--gpus-per-node`` or ``--instance-type``): 4 for the superchip racks' compute trays (GB200, GB300 NVL72);
    #: None: the usual 8 of a multi-GPU server.
    gpus_per_node: int | None = None
    #: CUDA's total with ECC off, on a GDDR part whose ECC the operator switches (``nvidia-smi -e``) and whose
    #: ``memory_gib`` is the ECC-on figure: ECC on such a part keeps 1/16 of the memory for its check bits (48 GB
    #: GDDR6 boards: nvidia-smi total 46068 MiB with ECC on, 49140 MiB with it off). A manifest never says which, so
    #: a capacity finding that a model does not fit blocks only where it fails at this figure too
    #: (:func:`shardwise.rules.capacity.sizing.size_deployment`). None: one figure (HBM parts, whose ECC is always on).
    memory_gib_ecc_off: float | None = None
    #: CUDA's total with ECC on, on such a part whose ``memory_gib`` is the ECC-off figure (the workstation cards,
    #: which ship with ECC off): a finding that fewer GPUs would serve the model blocks only where they serve at this
    #: figure too (SW104). None: one figure, or ``memory_gib`` is already the ECC-on one.
    memory_gib_ecc_on: float | None = None


@dataclass(frozen=True)
class InstanceType:
    """One cloud instance type with accelerators (AWS EC2 unless ``cloud`` says otherwise)."""

    name: str  # "p5.48xlarge"
    gpu: str  # canonical GpuInfo.name
    gpus: int
    interconnect: Interconnect
    efa: bool  # supports Elastic Fabric Adapter
    efa_interfaces: int = 0  # maximum EFA network cards
    vcpus: int = 0
    memory_gib: float = 0.0  # host memory
    network_gbps: float = 0.0
    price_per_hour_usd: float | None = None  # us-east-1 on-demand Linux, where public
    price_source: str = ""  # where the price was read
    price_date: str = ""  # when that source published it (ISO date)
    #: Accelerators one NVLink (or other scale-up) domain joins: the node's own count on HGX
    #: boards, 1 on PCIe-only nodes, more than ``gpus`` where the domain spans nodes (72 for a
    #: p6e-gb200 UltraServer). 0 in the data means "derive it": see ``catalog.lookup._instance_index``.
    nvlink_domain_size: int = 0
    cloud: Cloud = "aws"
    source: str = ""


@dataclass(frozen=True)
class MoeShape:
    """The mixture-of-experts layout of a model."""

    num_experts: int  # routed experts
    experts_per_token: int
    shared_experts: int = 0
    moe_intermediate_size: int = 0


@dataclass(frozen=True)
class MlaShape:
    """Multi-head latent attention (DeepSeek-V2/V3/R1): one latent per token per layer."""

    kv_lora_rank: int
    qk_rope_head_dim: int


@dataclass(frozen=True)
class ModelShape:
    """The shape of one model, from its Hugging Face ``config.json``."""

    id: str  # Hugging Face repository id
    params: int  # total parameters (all experts for MoE)
    num_hidden_layers: int
    hidden_size: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    max_position_embeddings: int
    torch_dtype: str = "bfloat16"
    tie_word_embeddings: bool = False
    precision: Precision = "bf16"  # precision of the stored weights
    quantization: str | None = None  # "awq", "gptq", "fp8", "compressed-tensors", ...
    moe: MoeShape | None = None
    mla: MlaShape | None = None
    aliases: tuple[str, ...] = ()
    base_model: str | None = None  # for quantised re-uploads: the id whose shape this is
    source: str = ""
    extra: dict[str, object] = field(default_factory=dict, compare=False, hash=False)
    #: The config.json keys vLLM reads beyond the fields above, verbatim (``text_config`` merged over
    #: the top level for multimodal checkpoints): attention layout (``sliding_window``,
    #: ``layer_types``, ``sliding_window_pattern``, ``attention_chunk_size``, ``no_rope_layers``,
    #: ``use_sliding_window``, ``max_window_layers``, ``full_attention_interval``, ``linear_*``),
    #: context (``rope_scaling``, ``max_position_embeddings``), ``vision_config`` and
    #: ``quantization_config``. The capacity model derives vLLM's behaviour from these the way vLLM does.
    hf_config: dict[str, object] = field(default_factory=dict, compare=False, hash=False)
    #: Parameters of the vision (or audio) encoder and its projector, included in ``params``:
    #: vLLM loads them with the decoder, and profiles the encoder at start-up. 0 for text-only models.
    vision_params: int = 0
    #: The checkpoint stores an ``lm_head.weight`` of its own, not equal to the input embeddings, though config.json
    #: ties the two (``tie_word_embeddings`` stays as the config says; ``params`` counts the tied model). vLLM 0.29+
    #: builds and loads that head untied (``ModelConfig.maybe_untie_word_embeddings``; re-tied only where the two
    #: tensors are equal, ``model_loader/weight_tying.py``); earlier releases tie it and skip the tensor
    #: (:func:`rules.capacity.sizing.as_loaded`). Set also where a local safetensors index names an
    #: ``lm_head.weight`` under a tied config (``catalog.hfconfig``, tokens38): its total counted the head at every
    #: release before; the index cannot say whether the two tables are equal (vLLM re-ties equal ones after loading),
    #: so from 0.29 the head stays counted as the total counted it, and before 0.29 it is not.
    distinct_lm_head: bool = False

    @property
    def is_moe(self) -> bool:
        return self.moe is not None

    @property
    def embedding_params(self) -> int:
        """Input embeddings plus the LM head when it is not tied to them."""
        n = self.vocab_size * self.hidden_size
        return n if self.tie_word_embeddings else 2 * n

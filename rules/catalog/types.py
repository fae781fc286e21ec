"""Typed records for the shipped catalogs (GPUs, AWS instance types, model shapes).

Every record names the public `source` its numbers come from. The data lives in
``data/*.json`` beside this module and is loaded lazily by :mod:`shardwise.rules.catalog`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Interconnect = Literal["nvswitch", "nvlink", "pcie"]
"""How the GPUs of one node talk: an NVSwitch all-to-all fabric, NVLink bridges/mesh, or PCIe only."""

Precision = Literal["bf16", "fp16", "fp32", "fp8", "int8", "int4", "mxfp4", "nvfp4"]


@dataclass(frozen=True)
class GpuInfo:
    """One GPU model.

    ``memory_gib`` is the total device memory as CUDA reports it (``torch.cuda.mem_get_info``),
    which is what ``gpu_memory_utilization`` is a fraction of; ``memory_gb`` is the nominal
    marketing figure in decimal GB (used by the seeds' ``gpus_needed``).
    """

    name: str  # canonical, e.g. "H100-SXM-80GB"
    memory_gb: float  # nominal, decimal GB
    memory_gib: float  # as CUDA reports it
    architecture: str  # "ampere", "ada", "hopper", "blackwell", "turing", "volta"
    fp8: bool  # native FP8 tensor cores (Ada, Hopper, Blackwell)
    aliases: tuple[str, ...] = ()  # other spellings, GFD product labels, Karpenter gpu names
    interconnect: Interconnect = "pcie"  # what multi-GPU servers of this part usually have
    source: str = ""


@dataclass(frozen=True)
class InstanceType:
    """One AWS EC2 GPU instance type."""

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
    source: str = ""


@dataclass(frozen=True)
class MoeShape:
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

    @property
    def is_moe(self) -> bool:
        return self.moe is not None

    @property
    def embedding_params(self) -> int:
        """Input embeddings plus the LM head when it is not tied to them."""
        n = self.vocab_size * self.hidden_size
        return n if self.tie_word_embeddings else 2 * n

"""The shipped catalogs (GPUs, AWS instance types, model shapes) and their lookups."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from shardwise.rules.catalog import (
    CatalogError,
    MlaShape,
    ModelShape,
    MoeShape,
    derive_params,
    derive_vision_params,
    find_gpu,
    find_instance,
    find_model,
    gpus,
    instance_types,
    instances_for_gpu,
    load_local_model,
    lookup,
    models,
    resolve_precision_from_name,
    weight_bytes_per_param,
)

# --------------------------------------------------------------------------------------------
# Published config.json files (trimmed to the keys that matter, values as published)
# --------------------------------------------------------------------------------------------

LLAMA_31_8B: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "bos_token_id": 128000,
    "eos_token_id": [128001, 128008, 128009],
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "mlp_bias": False,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "rms_norm_eps": 1e-05,
    "rope_scaling": {
        "factor": 8.0,
        "high_freq_factor": 4.0,
        "low_freq_factor": 1.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 128256,
}
LLAMA_31_70B = {
    **LLAMA_31_8B,
    "hidden_size": 8192,
    "intermediate_size": 28672,
    "num_attention_heads": 64,
    "num_hidden_layers": 80,
}
QWEN25_7B: dict[str, Any] = {
    "architectures": ["Qwen2ForCausalLM"],
    "hidden_act": "silu",
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "max_position_embeddings": 32768,
    "max_window_layers": 28,
    "model_type": "qwen2",
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "rope_theta": 1000000.0,
    "sliding_window": 131072,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "use_sliding_window": False,
    "vocab_size": 152064,
}
MISTRAL_7B_V03: dict[str, Any] = {
    "architectures": ["MistralForCausalLM"],
    "hidden_act": "silu",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 32768,
    "model_type": "mistral",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "rope_theta": 1000000.0,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 32768,
}
MIXTRAL_8X7B: dict[str, Any] = {
    "architectures": ["MixtralForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 32768,
    "model_type": "mixtral",
    "num_attention_heads": 32,
    "num_experts_per_tok": 2,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "num_local_experts": 8,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 32000,
}
DEEPSEEK_V3: dict[str, Any] = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "first_k_dense_replace": 3,
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "kv_lora_rank": 512,
    "max_position_embeddings": 163840,
    "model_type": "deepseek_v3",
    "moe_intermediate_size": 2048,
    "moe_layer_freq": 1,
    "n_group": 8,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "num_attention_heads": 128,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 61,
    "num_key_value_heads": 128,
    "num_nextn_predict_layers": 1,
    "q_lora_rank": 1536,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "quantization_config": {
        "activation_scheme": "dynamic",
        "fmt": "e4m3",
        "quant_method": "fp8",
        "weight_block_size": [128, 128],
    },
    "tie_word_embeddings": False,
    "topk_method": "noaux_tc",
    "torch_dtype": "bfloat16",
    "v_head_dim": 128,
    "vocab_size": 129280,
}
QWEN25_7B_AWQ: dict[str, Any] = {
    **QWEN25_7B,
    "torch_dtype": "float16",
    "quantization_config": {
        "bits": 4,
        "group_size": 128,
        "modules_to_not_convert": None,
        "quant_method": "awq",
        "version": "gemm",
        "zero_point": True,
    },
}
# google/gemma-3-4b-it: the text_config leaves heads, head_dim and vocab to the class defaults.
GEMMA3_4B: dict[str, Any] = {
    "architectures": ["Gemma3ForConditionalGeneration"],
    "mm_tokens_per_image": 256,
    "model_type": "gemma3",
    "text_config": {
        "hidden_size": 2560,
        "intermediate_size": 10240,
        "model_type": "gemma3_text",
        "num_hidden_layers": 34,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024,
    },
    "torch_dtype": "bfloat16",
    "vision_config": {
        "hidden_size": 1152,
        "image_size": 896,
        "intermediate_size": 4304,
        "model_type": "siglip_vision_model",
        "num_attention_heads": 16,
        "num_hidden_layers": 27,
        "patch_size": 14,
        "vision_use_head": False,
    },
}
# microsoft/phi-1_5 (transformers' native Phi config): a GELU MLP of two matrices, LayerNorms, biases.
PHI_1_5: dict[str, Any] = {
    "architectures": ["PhiForCausalLM"],
    "hidden_act": "gelu_new",
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "max_position_embeddings": 2048,
    "model_type": "phi",
    "num_attention_heads": 32,
    "num_hidden_layers": 24,
    "num_key_value_heads": 32,
    "partial_rotary_factor": 0.5,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
    "vocab_size": 51200,
}


def write_model(
    tmp_path: Path, config: dict[str, Any], index: dict[str, Any] | None = None, name: str = "model"
) -> Path:
    directory = tmp_path / name
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps(config))
    if index is not None:
        (directory / "model.safetensors.index.json").write_text(json.dumps(index))
    return directory


def config_from_shape(shape: ModelShape) -> dict[str, Any]:
    """Rebuild a config.json from a catalog entry: its fields, its hf_config and extra["config"]."""
    cfg: dict[str, Any] = {
        **shape.hf_config,
        **dict(shape.extra.get("config", {})),  # type: ignore[call-overload]
        "model_type": shape.extra["model_type"],
        "hidden_size": shape.hidden_size,
        "num_hidden_layers": shape.num_hidden_layers,
        "num_attention_heads": shape.num_attention_heads,
        "num_key_value_heads": shape.num_key_value_heads,
        "head_dim": shape.head_dim,
        "intermediate_size": shape.intermediate_size,
        "vocab_size": shape.vocab_size,
        "tie_word_embeddings": shape.tie_word_embeddings,
    }
    if shape.moe is not None:
        cfg.update(
            num_experts=shape.moe.num_experts,
            num_experts_per_tok=shape.moe.experts_per_token,
            n_shared_experts=shape.moe.shared_experts,
            moe_intermediate_size=shape.moe.moe_intermediate_size,
        )
    if shape.mla is not None:
        cfg.update(kv_lora_rank=shape.mla.kv_lora_rank, qk_rope_head_dim=shape.mla.qk_rope_head_dim)
    if shape.extra["model_type"] == "falcon":  # Falcon's KV heads come from multi_query / num_kv_heads
        cfg["num_kv_heads"] = shape.num_key_value_heads
    return cfg


# --------------------------------------------------------------------------------------------
# Data integrity
# --------------------------------------------------------------------------------------------


def test_every_entry_names_an_https_source() -> None:
    records = [*gpus().values(), *instance_types().values(), *models().values()]
    # catalog23: nine GPUs and granite-4.0-h-1b (readers17: MI300A); tokens43: cyankiwi/Qwen3.8-27B-AWQ-INT4;
    # mend36: Qwen/Qwen2.5-32B-Instruct-AWQ
    assert len(records) == 54 + 59 + 263
    for record in records:
        assert record.source.startswith("https://"), record


def test_every_instance_carries_a_catalog_gpu_and_consistent_efa() -> None:
    known = gpus()
    for inst in instance_types().values():
        assert inst.gpu in known, inst.name
        assert inst.gpus >= 1 and inst.vcpus > 0 and inst.memory_gib > 0 and inst.network_gbps > 0
        assert inst.efa == (inst.efa_interfaces > 0), inst.name
        if inst.gpus == 1:
            assert inst.interconnect == "pcie", inst.name


def test_fp8_follows_architecture() -> None:
    for gpu in gpus().values():
        if gpu.vendor == "nvidia":
            assert gpu.fp8 == (gpu.architecture in {"ada", "hopper", "blackwell"}), gpu.name
            assert 0.8 * gpu.memory_gb < gpu.memory_gib < 1.0 * gpu.memory_gb, gpu.name
        else:  # their nominal "GB" are binary: the runtimes report (almost) that many GiB
            assert 0.95 * gpu.memory_gb < gpu.memory_gib <= 1.01 * gpu.memory_gb, gpu.name


def test_vendor_resource_and_link_domain_are_consistent() -> None:
    resources = {
        "nvidia": "nvidia.com/gpu",
        "amd": "amd.com/gpu",
        "intel": "habana.ai/gaudi",
        "google": "google.com/tpu",
        "aws": "aws.amazon.com/neuron",
    }
    for gpu in gpus().values():
        assert gpu.k8s_resource == resources[gpu.vendor], gpu.name
        assert (gpu.interconnect == "fabric") == (gpu.vendor != "nvidia"), gpu.name
        assert (gpu.nvlink_domain_size == 1) == (gpu.interconnect == "pcie"), gpu.name


def test_catalog_shapes_reproduce_their_parameter_counts() -> None:
    """derive_params on each entry's shape gives its params (or the documented derived count)."""
    for shape in models().values():
        expected = shape.extra.get("derived_params", shape.params)
        assert derive_params(config_from_shape(shape)) == expected, shape.id
        assert shape.num_attention_heads % shape.num_key_value_heads == 0, shape.id
        assert shape.extra["params_source"] in {"safetensors", "derived"}, shape.id
        vision = shape.hf_config.get("vision_config")
        audio = dict(shape.extra.get("config", {})).get("audio_config")  # type: ignore[call-overload]
        # a tower is a vision_config (an omni thinker's audio encoder beside it) or an audio-only model's audio_config
        assert (shape.vision_params > 0) == (isinstance(vision, dict) or isinstance(audio, dict)), shape.id


def test_lookups_return_copies() -> None:
    gpus().clear()
    models().clear()
    instance_types().clear()
    assert "H200-141GB" in gpus()
    assert "Qwen/Qwen3-8B" in models()
    assert "p5en.48xlarge" in instance_types()


# --------------------------------------------------------------------------------------------
# GPUs
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("H100", "H100-SXM-80GB"),
        ("H100-80GB", "H100-SXM-80GB"),
        ("H100-SXM", "H100-SXM-80GB"),
        ("h100 sxm", "H100-SXM-80GB"),
        ("H100_SXM", "H100-SXM-80GB"),
        ("NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB"),
        ("NVIDIA-H100-80GB-HBM3-SHARED", "H100-SXM-80GB"),
        ("h100", "H100-SXM-80GB"),
        ("NVIDIA H100 PCIe", "H100-PCIe-80GB"),
        ("NVIDIA-H100-NVL", "H100-NVL-94GB"),
        ("a100-40gb", "A100-40GB"),
        ("A100-80GB", "A100-80GB"),
        ("A100", "A100-40GB"),
        ("NVIDIA-A100-SXM4-40GB", "A100-40GB"),
        ("NVIDIA-A100-SXM4-80GB", "A100-80GB"),
        ("NVIDIA-A100-80GB-PCIe", "A100-PCIe-80GB"),
        ("L40S", "L40S"),
        ("NVIDIA-L40S", "L40S"),
        ("l40s", "L40S"),
        ("NVIDIA-L4", "L4"),
        ("NVIDIA-A10G", "A10G"),
        ("a10g", "A10G"),
        ("NVIDIA-H200", "H200-141GB"),
        ("h200", "H200-141GB"),
        ("NVIDIA-B200", "B200"),
        ("b200", "B200"),
        ("Tesla-T4", "T4"),
        ("t4", "T4"),
        ("Tesla-V100-SXM2-16GB", "V100-16GB"),
        ("Tesla-V100-SXM2-32GB", "V100-32GB"),
        ("v100", "V100-16GB"),
        ("RTX-4090", "RTX-4090"),
        ("4090", "RTX-4090"),
        ("NVIDIA-GeForce-RTX-4090", "RTX-4090"),
        ("NVIDIA GeForce RTX 3090", "RTX-3090"),
        ("rtx 5090", "RTX-5090"),
        ("NVIDIA-RTX-6000-Ada-Generation", "RTX-6000-Ada"),
        # GKE cloud.google.com/gke-accelerator values
        ("nvidia-tesla-t4", "T4"),
        ("nvidia-tesla-a100", "A100-40GB"),
        ("nvidia-a100-80gb", "A100-80GB"),
        ("nvidia-h100-80gb", "H100-SXM-80GB"),
        ("nvidia-h100-mega-80gb", "H100-SXM-80GB"),
        ("nvidia-h200-141gb", "H200-141GB"),
        ("nvidia-b200", "B200"),
        ("nvidia-gb200", "GB200"),
        ("nvidia-rtx-pro-6000", "RTX-PRO-6000-Blackwell"),
        ("nvidia-l4", "L4"),
        # Karpenter instance-gpu-name values of the newer families
        ("b300", "B300"),
        ("rtx-pro-server-6000", "RTX-PRO-6000-Blackwell"),
        # beyond NVIDIA: AMD GPU labeller product names, GKE TPU accelerators, Gaudi, Neuron
        ("AMD_Instinct_MI300X_OAM", "MI300X"),
        ("AMD Instinct MI325X", "MI325X"),
        ("mi300x", "MI300X"),
        ("AMD Instinct MI250X / MI250", "MI250X-GCD"),
        ("Intel Gaudi 2", "Gaudi2"),
        ("HL-225", "Gaudi2"),
        ("gaudi3", "Gaudi3"),
        ("tpu-v5-lite-podslice", "TPU-v5e"),
        ("tpu-v5p-slice", "TPU-v5p"),
        ("tpu-v6e-slice", "TPU-v6e"),
        ("trainium", "Trainium"),
        ("trainium2", "Trainium2"),
        ("inferentia2", "Inferentia2"),
    ],
)
def test_gpu_spellings_resolve_to_canonical_names(spelling: str, canonical: str) -> None:
    assert find_gpu(spelling).name == canonical


@pytest.mark.parametrize(
    ("karpenter_name", "memory_mib", "canonical"),
    [
        ("a100", 40960, "A100-40GB"),
        ("a100", 81920, "A100-80GB"),
        ("v100", 16384, "V100-16GB"),
        ("v100", 32768, "V100-32GB"),
        ("h100", 81559, "H100-SXM-80GB"),
        ("h100", 95830, "H100-NVL-94GB"),
        ("l4", 23034, "L4"),
    ],
)
def test_memory_label_picks_the_size_within_a_family(karpenter_name: str, memory_mib: int, canonical: str) -> None:
    assert find_gpu(karpenter_name, memory_mib=memory_mib).name == canonical


def test_memory_label_never_overrides_a_specific_name() -> None:
    assert find_gpu("A100-80GB", memory_mib=40960).name == "A100-80GB"
    assert find_gpu("NVIDIA-H100-NVL", memory_mib=81559).name == "H100-NVL-94GB"


def test_gpu_records_hold_the_published_figures() -> None:
    h100 = find_gpu("H100")
    assert (h100.memory_gb, h100.memory_gib, h100.architecture, h100.fp8, h100.interconnect) == (
        80,
        79.19,
        "hopper",
        True,
        "nvswitch",
    )
    a10g = find_gpu("A10G")
    assert (a10g.memory_gb, a10g.memory_gib, a10g.fp8, a10g.interconnect) == (24, 22.06, False, "pcie")
    assert find_gpu("A100-80GB").memory_gib == 79.15
    assert find_gpu("H200").memory_gib == 139.81
    assert find_gpu("V100-32GB").interconnect == "nvlink"


def test_totals_as_the_runtime_reports_them() -> None:
    """The issue-8 corrections: CUDA's totals, not nvidia-smi's (B200, RTX 5090, RTX 6000 Ada)."""
    assert {name: find_gpu(name).memory_gib for name in ("B200", "RTX-5090", "RTX-6000-Ada", "B300", "GB200")} == {
        "B200": 178.35,
        "RTX-5090": 31.37,
        "RTX-6000-Ada": 47.5,
        "B300": 267.88,
        "GB200": 184.32,
    }


def test_h100_nvl_is_joined_in_pairs_only() -> None:
    nvl = find_gpu("NVIDIA-H100-NVL")
    assert (nvl.interconnect, nvl.nvlink_domain_size) == ("nvlink", 2)
    assert (find_gpu("H100").nvlink_domain_size, find_gpu("GB200").nvlink_domain_size) == (8, 72)
    assert find_gpu("L40S").nvlink_domain_size == 1


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("MI300X", ("amd", "amd.com/gpu", "cdna3", 192, 191.98, True, "fabric", 8)),
        ("MI325X", ("amd", "amd.com/gpu", "cdna3", 256, 255.98, True, "fabric", 8)),
        ("MI250X", ("amd", "amd.com/gpu", "cdna2", 64, 63.98, False, "fabric", 8)),
        ("Gaudi2", ("intel", "habana.ai/gaudi", "gaudi2", 96, 96.0, True, "fabric", 8)),
        ("Gaudi3", ("intel", "habana.ai/gaudi", "gaudi3", 128, 128.0, True, "fabric", 8)),
        ("TPU-v5e", ("google", "google.com/tpu", "tpu-v5e", 16, 15.75, False, "fabric", 8)),
        ("TPU-v5p", ("google", "google.com/tpu", "tpu-v5p", 95, 95.74, False, "fabric", 4)),
        ("TPU-v6e", ("google", "google.com/tpu", "tpu-v6e", 32, 31.25, False, "fabric", 8)),
        ("Trainium", ("aws", "aws.amazon.com/neuron", "trainium1", 32, 32.0, False, "fabric", 16)),
        ("Trainium2", ("aws", "aws.amazon.com/neuron", "trainium2", 96, 96.0, True, "fabric", 16)),
        ("Inferentia2", ("aws", "aws.amazon.com/neuron", "inferentia2", 32, 32.0, False, "fabric", 12)),
    ],
)
def test_accelerators_beyond_nvidia(name: str, expected: tuple[object, ...]) -> None:
    g = find_gpu(name)
    assert (
        g.vendor,
        g.k8s_resource,
        g.architecture,
        g.memory_gb,
        g.memory_gib,
        g.fp8,
        g.interconnect,
        g.nvlink_domain_size,
    ) == expected
    assert g.source.startswith("https://")


def test_unknown_gpu_suggests_close_names() -> None:
    with pytest.raises(CatalogError) as err:
        find_gpu("H100-SMX")
    assert str(err.value) == "unknown GPU 'H100-SMX'; did you mean: H100-SXM-80GB?"
    with pytest.raises(CatalogError) as err:
        find_gpu("RTX-4080")
    assert str(err.value).startswith("unknown GPU 'RTX-4080'; did you mean: RTX-4090")
    with pytest.raises(CatalogError) as err:
        find_gpu("Radeon-VII")
    assert str(err.value).startswith("unknown GPU 'Radeon-VII'; known: A10, A100-40GB, A100-80GB,")


def test_blank_gpu_name_is_an_error_not_a_match() -> None:
    with pytest.raises(CatalogError, match="expected a GPU name"):
        find_gpu("  ")


# --------------------------------------------------------------------------------------------
# Instances
# --------------------------------------------------------------------------------------------


def test_p5_48xlarge() -> None:
    p5 = find_instance("p5.48xlarge")
    assert (p5.gpu, p5.gpus, p5.interconnect, p5.efa, p5.efa_interfaces) == ("H100-SXM-80GB", 8, "nvswitch", True, 32)
    assert (p5.vcpus, p5.memory_gib, p5.network_gbps, p5.price_per_hour_usd) == (192, 2048.0, 3200.0, 55.04)


def test_g5_12xlarge_is_four_a10g_on_pcie() -> None:
    g5 = find_instance("g5.12xlarge")
    assert (g5.gpu, g5.gpus, g5.interconnect, g5.vcpus, g5.memory_gib, g5.network_gbps) == (
        "A10G",
        4,
        "pcie",
        48,
        192.0,
        40.0,
    )
    # AWS lists EFA for g5.8xlarge and larger (one interface), g5.12xlarge included.
    assert (g5.efa, g5.efa_interfaces) == (True, 1)
    assert find_instance("g5.2xlarge").efa is False


def test_p4_family() -> None:
    p4d = find_instance("p4d.24xlarge")
    assert (p4d.gpu, p4d.gpus, p4d.interconnect, p4d.efa_interfaces) == ("A100-40GB", 8, "nvswitch", 4)
    assert find_instance("p4de.24xlarge").gpu == "A100-80GB"
    assert find_instance("p3.16xlarge").interconnect == "nvlink"
    assert find_instance("p3dn.24xlarge").gpu == "V100-32GB"
    assert find_instance("p5e.48xlarge").price_per_hour_usd is None


def test_newer_instance_types() -> None:
    b300 = find_instance("p6-b300.48xlarge")
    assert (b300.gpu, b300.gpus, b300.interconnect, b300.nvlink_domain_size, b300.efa_interfaces) == (
        "B300",
        8,
        "nvswitch",
        8,
        16,
    )
    assert (b300.vcpus, b300.memory_gib, b300.network_gbps, b300.price_per_hour_usd) == (192, 4096.0, 6400.0, 142.416)
    gb200 = find_instance("p6e-gb200.36xlarge")
    assert (gb200.gpu, gb200.gpus, gb200.nvlink_domain_size, gb200.price_per_hour_usd) == ("GB200", 4, 72, None)
    g7e = find_instance("g7e.48xlarge")
    assert (g7e.gpu, g7e.gpus, g7e.interconnect, g7e.nvlink_domain_size, g7e.efa_interfaces, g7e.price_per_hour_usd) == (
        "RTX-PRO-6000-Blackwell",
        8,
        "pcie",
        1,
        4,
        33.14432,
    )
    assert [i.name for i in instances_for_gpu("rtx-pro-server-6000")] == [
        "g7e.2xlarge",
        "g7e.4xlarge",
        "g7e.8xlarge",
        "g7e.12xlarge",
        "g7e.24xlarge",
        "g7e.48xlarge",
    ]


def test_neuron_and_gaudi_instances() -> None:
    trn2 = find_instance("trn2.48xlarge")
    assert (trn2.gpu, trn2.gpus, trn2.interconnect, trn2.nvlink_domain_size, trn2.price_per_hour_usd) == (
        "Trainium2",
        16,
        "fabric",
        16,
        None,
    )
    assert [(i.name, i.gpus, i.interconnect) for i in instances_for_gpu("inferentia2")] == [
        ("inf2.xlarge", 1, "pcie"),
        ("inf2.8xlarge", 1, "pcie"),
        ("inf2.24xlarge", 6, "fabric"),
        ("inf2.48xlarge", 12, "fabric"),
    ]
    dl1 = find_instance("dl1.24xlarge")
    assert (dl1.gpu, dl1.gpus, dl1.efa_interfaces, dl1.price_per_hour_usd) == ("Gaudi", 8, 4, 13.10904)


def test_instance_lookup_ignores_case_and_suggests() -> None:
    assert find_instance(" P5EN.48XLARGE ").gpu == "H200-141GB"
    with pytest.raises(CatalogError) as err:
        find_instance("p5.48xlarg")
    assert str(err.value).startswith("unknown instance type 'p5.48xlarg'; did you mean: p5.48xlarge")


def test_instances_for_gpu_accepts_any_spelling() -> None:
    assert [i.name for i in instances_for_gpu("NVIDIA-H100-80GB-HBM3")] == ["p5.4xlarge", "p5.48xlarge"]
    assert [i.name for i in instances_for_gpu("h200")] == ["p5e.48xlarge", "p5en.48xlarge"]
    assert [i.name for i in instances_for_gpu("L40S")] == [
        "g6e.xlarge",
        "g6e.2xlarge",
        "g6e.4xlarge",
        "g6e.8xlarge",
        "g6e.16xlarge",
        "g6e.12xlarge",
        "g6e.24xlarge",
        "g6e.48xlarge",
    ]
    assert instances_for_gpu("RTX-4090") == []


# --------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------


def test_llama_31_8b_shape_matches_config_json() -> None:
    m = find_model("meta-llama/Llama-3.1-8B-Instruct")
    assert (
        m.params,
        m.num_hidden_layers,
        m.hidden_size,
        m.num_attention_heads,
        m.num_key_value_heads,
        m.head_dim,
        m.intermediate_size,
        m.vocab_size,
        m.max_position_embeddings,
    ) == (8_030_261_248, 32, 4096, 32, 8, 128, 14336, 128256, 131072)
    assert (m.precision, m.quantization, m.tie_word_embeddings, m.moe, m.mla) == ("bf16", None, False, None, None)
    assert m.source == "https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/blob/main/config.json"


def test_moe_and_mla_shapes() -> None:
    ds = find_model("deepseek-ai/DeepSeek-R1")
    assert (ds.num_hidden_layers, ds.params, ds.precision, ds.quantization) == (61, 671_026_419_200, "fp8", "fp8")
    assert ds.mla == MlaShape(kv_lora_rank=512, qk_rope_head_dim=64)
    assert ds.moe == MoeShape(num_experts=256, experts_per_token=8, shared_experts=1, moe_intermediate_size=2048)
    q3 = find_model("Qwen/Qwen3-30B-A3B")
    assert q3.moe == MoeShape(num_experts=128, experts_per_token=8, shared_experts=0, moe_intermediate_size=768)
    assert (q3.params, q3.num_key_value_heads, q3.head_dim) == (30_532_122_624, 4, 128)
    mixtral = find_model("mistralai/Mixtral-8x22B-Instruct-v0.1")
    assert (mixtral.vocab_size, mixtral.params, mixtral.moe.num_experts if mixtral.moe else 0) == (
        32768,
        140_630_071_296,
        8,
    )
    assert find_model("mistralai/Mixtral-8x22B-v0.1").vocab_size == 32000


def test_deepseek_v2_shapes_are_their_config_json() -> None:
    from shardwise.rules.catalog.hfconfig import derive_params

    v2, lite = find_model("deepseek-ai/DeepSeek-V2"), find_model("deepseek-ai/DeepSeek-V2-Lite")
    assert (v2.moe, v2.mla, v2.hidden_size, v2.intermediate_size, v2.vocab_size) == (
        MoeShape(num_experts=160, experts_per_token=6, shared_experts=2, moe_intermediate_size=1536),
        MlaShape(kv_lora_rank=512, qk_rope_head_dim=64), 5120, 12288, 102400)
    assert (lite.moe, lite.num_attention_heads, lite.hidden_size, lite.intermediate_size) == (
        MoeShape(num_experts=64, experts_per_token=6, shared_experts=2, moe_intermediate_size=1408), 16, 2048, 10944)
    assert v2.hf_config["first_k_dense_replace"] == lite.hf_config["first_k_dense_replace"] == 1
    # the counts are what config.json implies (V2-Lite has no query LoRA: a full-rank q_proj)
    config = {"model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944, "num_hidden_layers": 27,
              "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 102400, "kv_lora_rank": 512,
              "q_lora_rank": None, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
              "n_routed_experts": 64, "n_shared_experts": 2, "num_experts_per_tok": 6, "moe_intermediate_size": 1408,
              "first_k_dense_replace": 1, "tie_word_embeddings": False, "max_position_embeddings": 163840}
    assert derive_params(config) == lite.params
    fp8 = find_model("Qwen/Qwen3-235B-A22B-FP8")
    assert (fp8.params, fp8.precision, fp8.base_model, fp8.source) == (
        235_093_634_560, "fp8", "Qwen/Qwen3-235B-A22B", "https://huggingface.co/Qwen/Qwen3-235B-A22B-FP8/blob/main/config.json")
    assert fp8.hf_config["quantization_config"] == {
        "activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]}


def test_gemma3_counts_its_vision_tower() -> None:
    g = find_model("google/gemma-3-27b-it")
    assert (g.params, g.vision_params, g.head_dim, g.num_key_value_heads) == (27_432_406_640, 423_060_336, 128, 16)
    assert g.params - g.vision_params == 27_009_346_304  # the text decoder


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        ("openai/gpt-oss-20b", (20_914_757_184, 24, 8, 64, "mxfp4", 131_072)),
        ("openai/gpt-oss-120b", (116_829_156_672, 36, 8, 64, "mxfp4", 131_072)),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", (108_641_793_536, 48, 8, 128, "bf16", 10_485_760)),
        ("meta-llama/Llama-4-Maverick-17B-128E-Instruct", (401_583_781_376, 48, 8, 128, "bf16", 1_048_576)),
        ("deepseek-ai/DeepSeek-V3.1", (671_026_419_200, 61, 128, 192, "fp8", 163_840)),
        ("deepseek-ai/DeepSeek-V3.2", (671_877_944_064, 61, 128, 192, "fp8", 163_840)),
        ("deepseek-ai/DeepSeek-V2", (235_741_434_880, 60, 128, 192, "bf16", 163_840)),
        ("deepseek-ai/DeepSeek-V2-Chat-0628", (235_741_434_880, 60, 128, 192, "bf16", 163_840)),
        ("deepseek-ai/DeepSeek-V2-Lite", (15_706_484_224, 27, 16, 192, "bf16", 163_840)),
        ("deepseek-ai/DeepSeek-V2-Lite-Chat", (15_706_484_224, 27, 16, 192, "bf16", 163_840)),
        ("moonshotai/Kimi-K2-Instruct", (1_026_408_232_448, 61, 64, 192, "fp8", 131_072)),
        ("zai-org/GLM-4.5", (352_797_829_024, 92, 8, 128, "bf16", 131_072)),
        ("zai-org/GLM-4.5-Air", (106_852_251_264, 46, 8, 128, "bf16", 131_072)),
        ("zai-org/GLM-4.6", (352_797_829_024, 92, 8, 128, "bf16", 202_752)),
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", (79_674_391_296, 48, 2, 256, "bf16", 262_144)),
        ("Qwen/Qwen3-Coder-480B-A35B-Instruct", (480_154_875_392, 62, 8, 128, "bf16", 262_144)),
        ("Qwen/Qwen2.5-VL-3B-Instruct", (3_754_622_976, 36, 2, 128, "bf16", 128_000)),
        ("Qwen/Qwen2.5-VL-7B-Instruct", (8_292_166_656, 28, 4, 128, "bf16", 128_000)),
        ("Qwen/Qwen2.5-VL-32B-Instruct", (33_448_292_352, 64, 8, 128, "bf16", 128_000)),
        ("Qwen/Qwen2.5-VL-72B-Instruct", (73_406_351_360, 80, 8, 128, "bf16", 128_000)),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", (1_777_088_000, 28, 2, 128, "bf16", 131_072)),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", (7_615_616_512, 28, 4, 128, "bf16", 131_072)),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", (14_770_033_664, 48, 8, 128, "bf16", 131_072)),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", (32_763_876_352, 64, 8, 128, "bf16", 131_072)),
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", (8_030_261_248, 32, 8, 128, "bf16", 131_072)),
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", (70_553_706_496, 80, 8, 128, "bf16", 131_072)),
        ("google/gemma-7b-it", (8_537_680_896, 28, 16, 256, "bf16", 8_192)),
        ("google/gemma-2b-it", (2_506_172_416, 18, 1, 256, "bf16", 8_192)),
        ("mistralai/Mistral-7B-v0.1", (7_241_732_096, 32, 8, 128, "bf16", 32_768)),
        ("mistralai/Mistral-7B-Instruct-v0.2", (7_241_732_096, 32, 8, 128, "bf16", 32_768)),
        ("mistralai/Mistral-Nemo-Instruct-2407", (12_247_782_400, 40, 8, 128, "bf16", 1_024_000)),
        ("mistralai/Mistral-Small-3.1-24B-Instruct-2503", (24_011_361_280, 40, 8, 128, "bf16", 131_072)),
        ("microsoft/phi-1_5", (1_418_270_720, 24, 32, 64, "fp16", 2_048)),
        ("microsoft/phi-2", (2_779_683_840, 32, 32, 80, "fp16", 2_048)),
        ("microsoft/Phi-4-mini-instruct", (3_836_021_760, 32, 8, 128, "bf16", 131_072)),
        ("facebook/opt-125m", (125_239_296, 12, 12, 64, "fp16", 2_048)),
        ("tiiuae/falcon-7b", (6_921_720_704, 32, 1, 64, "bf16", 2_048)),
        ("tiiuae/falcon-40b", (41_303_293_952, 60, 8, 64, "bf16", 2_048)),
        ("tiiuae/Falcon3-7B-Instruct", (7_455_550_464, 28, 4, 256, "bf16", 32_768)),
        ("tiiuae/Falcon3-10B-Instruct", (10_305_653_760, 40, 4, 256, "bf16", 32_768)),
        ("ibm-granite/granite-3.3-8b-instruct", (8_170_864_640, 40, 8, 128, "bf16", 131_072)),
        ("ibm-granite/granite-3.3-2b-instruct", (2_533_539_840, 40, 8, 64, "bf16", 131_072)),
        ("ibm-granite/granite-3.1-8b-instruct", (8_170_848_256, 40, 8, 128, "bf16", 131_072)),
        ("ibm-granite/granite-3.1-2b-instruct", (2_533_531_648, 40, 8, 64, "bf16", 131_072)),
        ("meta-llama/Llama-4-Scout-17B-16E", (108_641_793_536, 48, 8, 128, "bf16", 10_485_760)),
        ("meta-llama/Llama-4-Maverick-17B-128E", (401_583_781_376, 48, 8, 128, "bf16", 1_048_576)),
        ("deepseek-ai/DeepSeek-V3.1-Base", (671_026_419_200, 61, 128, 192, "fp8", 163_840)),
        ("deepseek-ai/DeepSeek-V3.1-Terminus", (671_026_419_200, 61, 128, 192, "fp8", 163_840)),
        ("deepseek-ai/DeepSeek-V3.2-Exp", (671_877_944_064, 61, 128, 192, "fp8", 163_840)),
        ("moonshotai/Kimi-K2-Base", (1_026_408_232_448, 61, 64, 192, "fp8", 131_072)),
        ("moonshotai/Kimi-K2-Instruct-0905", (1_026_408_232_448, 61, 64, 192, "fp8", 262_144)),
        ("Qwen/Qwen3-Next-80B-A3B-Thinking", (79_674_391_296, 48, 2, 256, "bf16", 262_144)),
        ("Qwen/Qwen3-4B-Instruct-2507", (4_022_468_096, 36, 8, 128, "bf16", 262_144)),
        ("Qwen/Qwen3-4B-Thinking-2507", (4_022_468_096, 36, 8, 128, "bf16", 262_144)),
        ("Qwen/Qwen3-30B-A3B-Instruct-2507", (30_532_122_624, 48, 4, 128, "bf16", 262_144)),
        ("Qwen/Qwen3-30B-A3B-Thinking-2507", (30_532_122_624, 48, 4, 128, "bf16", 262_144)),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", (30_532_122_624, 48, 4, 128, "bf16", 262_144)),
        ("Qwen/Qwen3-235B-A22B-Instruct-2507", (235_093_634_560, 94, 4, 128, "bf16", 262_144)),
        ("Qwen/Qwen3-235B-A22B-Thinking-2507", (235_093_634_560, 94, 4, 128, "bf16", 262_144)),
        ("Qwen/Qwen2.5-Coder-0.5B-Instruct", (494_032_768, 24, 2, 64, "bf16", 32_768)),
        ("Qwen/Qwen2.5-Coder-1.5B-Instruct", (1_543_714_304, 28, 2, 128, "bf16", 32_768)),
        ("Qwen/Qwen2.5-Coder-3B-Instruct", (3_085_938_688, 36, 2, 128, "bf16", 32_768)),
        ("Qwen/Qwen2.5-Coder-7B-Instruct", (7_615_616_512, 28, 4, 128, "bf16", 32_768)),
        ("Qwen/Qwen2.5-Coder-14B-Instruct", (14_770_033_664, 48, 8, 128, "bf16", 32_768)),
        ("Qwen/Qwen2.5-Coder-32B-Instruct", (32_763_876_352, 64, 8, 128, "bf16", 32_768)),
        ("Qwen/QwQ-32B", (32_763_876_352, 64, 8, 128, "bf16", 40_960)),
        ("google/gemma-7b", (8_537_680_896, 28, 16, 256, "bf16", 8_192)),
        ("google/gemma-2b", (2_506_172_416, 18, 1, 256, "bf16", 8_192)),
        ("google/gemma-2-2b", (2_614_341_888, 26, 4, 256, "bf16", 8_192)),
        ("google/gemma-2-9b", (9_241_705_984, 42, 8, 256, "bf16", 8_192)),
        ("google/gemma-2-27b", (27_227_128_320, 46, 16, 128, "bf16", 8_192)),
        ("google/gemma-3-4b-pt", (4_300_079_472, 34, 4, 256, "bf16", 131_072)),
        ("google/gemma-3-12b-pt", (12_187_325_040, 48, 8, 256, "bf16", 131_072)),
        ("google/gemma-3-27b-pt", (27_432_406_640, 62, 16, 128, "bf16", 131_072)),
        ("mistralai/Mistral-7B-Instruct-v0.1", (7_241_732_096, 32, 8, 128, "bf16", 32_768)),
        ("mistralai/Mistral-Nemo-Base-2407", (12_247_782_400, 40, 8, 128, "bf16", 1_024_000)),
        ("mistralai/Mistral-Small-3.1-24B-Base-2503", (24_011_361_280, 40, 8, 128, "bf16", 131_072)),
        ("mistralai/Mistral-Small-3.2-24B-Instruct-2506", (24_011_361_280, 40, 8, 128, "bf16", 131_072)),
        ("microsoft/Phi-4-reasoning", (14_659_507_200, 40, 10, 128, "bf16", 32_768)),
        ("microsoft/Phi-4-reasoning-plus", (14_659_507_200, 40, 10, 128, "bf16", 32_768)),
        ("tiiuae/falcon-7b-instruct", (6_921_720_704, 32, 1, 64, "bf16", 2_048)),
        ("tiiuae/falcon-40b-instruct", (41_303_293_952, 60, 8, 64, "bf16", 2_048)),
        ("moonshotai/Kimi-K2-Thinking", (1_026_408_232_448, 61, 64, 192, "int4", 262_144)),
    ],
)
def test_new_catalog_entries(model_id: str, expected: tuple[object, ...]) -> None:
    """Key figures of each 2025-26 entry: params, layers, KV heads, head_dim, precision, context."""
    m = find_model(model_id)
    assert (
        m.params,
        m.num_hidden_layers,
        m.num_key_value_heads,
        m.head_dim,
        m.precision,
        m.max_position_embeddings,
    ) == expected
    assert m.source == f"https://huggingface.co/{model_id}/blob/main/config.json"
    assert (m.id, m.base_model) == (model_id, None)


def test_qwen3_small_models_count_their_tied_head_once() -> None:
    small = {name: find_model(name) for name in ("Qwen/Qwen3-0.6B", "Qwen/Qwen3-1.7B")}
    assert {n: (m.params, m.tie_word_embeddings) for n, m in small.items()} == {
        "Qwen/Qwen3-0.6B": (596_049_920, True),
        "Qwen/Qwen3-1.7B": (1_720_574_976, True),
    }
    assert "751,632,384" in str(small["Qwen/Qwen3-0.6B"].extra["params_note"])


@pytest.mark.parametrize(
    ("model_id", "vision", "text"),
    [
        ("Qwen/Qwen2.5-VL-7B-Instruct", 676_550_144, 7_615_616_512),
        ("Qwen/Qwen2.5-VL-3B-Instruct", 668_684_288, 3_085_938_688),
        ("google/gemma-3-4b-it", 419_816_304, 3_880_263_168),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", 871_932_416, 107_769_861_120),
        ("mistralai/Mistral-Small-3.1-24B-Instruct-2503", 438_958_080, 23_572_403_200),
    ],
)
def test_vision_towers_are_counted_in_params(model_id: str, vision: int, text: int) -> None:
    m = find_model(model_id)
    assert (m.vision_params, m.params - m.vision_params) == (vision, text)
    assert isinstance(m.hf_config["vision_config"], dict)


def test_hf_config_keeps_what_vllm_reads_for_attention_layout() -> None:
    oss = find_model("openai/gpt-oss-20b")
    assert (oss.hf_config["sliding_window"], oss.hf_config["layer_types"][:2], len(oss.hf_config["layer_types"])) == (
        128,
        ["sliding_attention", "full_attention"],
        24,
    )
    assert oss.hf_config["quantization_config"]["quant_method"] == "mxfp4"  # type: ignore[index]
    scout = find_model("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    assert (scout.hf_config["attention_chunk_size"], scout.hf_config["model_type"]) == (8192, "llama4_text")
    gemma = find_model("google/gemma-3-27b-it")
    assert (gemma.hf_config["sliding_window"], gemma.hf_config["sliding_window_pattern"]) == (1024, 6)
    nxt = find_model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert (nxt.hf_config["full_attention_interval"], nxt.hf_config["linear_num_value_heads"]) == (4, 32)
    assert find_model("mistralai/Mistral-7B-Instruct-v0.1").hf_config["sliding_window"] == 4096
    assert find_model("mistralai/Mistral-7B-Instruct-v0.3").hf_config["sliding_window"] is None
    assert find_model("Qwen/Qwen2.5-7B-Instruct").hf_config["use_sliding_window"] is False
    assert find_model("meta-llama/Llama-3.1-8B-Instruct").hf_config["rope_scaling"] == {
        "factor": 8.0,
        "high_freq_factor": 4.0,
        "low_freq_factor": 1.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    }
    # an inheriting entry overrides what differs and keeps the rest
    q = find_model("Qwen/Qwen3-30B-A3B-Instruct-2507")
    assert (q.hf_config["max_position_embeddings"], q.hf_config["rope_theta"], q.hf_config["model_type"]) == (
        262144,
        10000000,
        "qwen3_moe",
    )


def test_every_base_entry_has_an_hf_config() -> None:
    for shape in models().values():
        assert shape.hf_config["max_position_embeddings"] == shape.max_position_embeddings, shape.id
        assert shape.hf_config["model_type"], shape.id


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("meta-llama/Meta-Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"),
        ("meta-llama/Meta-Llama-3.1-70B", "meta-llama/Llama-3.1-70B"),
        ("QWEN/qwen2.5-7b-instruct", "Qwen/Qwen2.5-7B-Instruct"),
        ("  microsoft/phi-4 ", "microsoft/phi-4"),
    ],
)
def test_model_aliases_and_case(spelling: str, canonical: str) -> None:
    m = find_model(spelling)
    assert (m.id, m.base_model) == (canonical, None)


@pytest.mark.parametrize(
    ("model_id", "base", "precision", "quantization"),
    [
        ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "meta-llama/Llama-3.1-70B-Instruct", "int4", "awq"),
        ("hugging-quants/Meta-Llama-3.1-8B-Instruct-GPTQ-INT4", "meta-llama/Llama-3.1-8B-Instruct", "int4", "gptq"),
        ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", "meta-llama/Llama-3.1-70B-Instruct", "fp8", "fp8"),
        ("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "meta-llama/Llama-3.3-70B-Instruct", "fp8", "fp8"),
        (
            "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8",
            "meta-llama/Llama-3.1-8B-Instruct",
            "int8",
            "compressed-tensors",
        ),
        ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "meta-llama/Llama-3.1-8B-Instruct", "int4", "gptq"),
        ("Qwen/Qwen2.5-72B-Instruct-AWQ", "Qwen/Qwen2.5-72B-Instruct", "int4", "awq"),
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "Qwen/Qwen2.5-7B-Instruct", "int4", "gptq"),
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "Qwen/Qwen2.5-7B-Instruct", "int8", "gptq"),
        ("Qwen/Qwen3-30B-A3B-FP8", "Qwen/Qwen3-30B-A3B", "fp8", "fp8"),
        ("TheBloke/Llama-2-70B-Chat-AWQ", "meta-llama/Llama-2-70b-chat-hf", "int4", "awq"),
        ("TheBloke/Mixtral-8x7B-Instruct-v0.1-AWQ", "mistralai/Mixtral-8x7B-Instruct-v0.1", "int4", "awq"),
        ("unsloth/Llama-3.2-1B-Instruct", "meta-llama/Llama-3.2-1B-Instruct", "bf16", None),
        ("unsloth/Llama-3.2-1B-Instruct-unsloth-bnb-4bit", "meta-llama/Llama-3.2-1B-Instruct", "int4", "bitsandbytes"),
        ("RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "fp8", "fp8"),
        ("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "meta-llama/Llama-4-Maverick-17B-128E-Instruct", "fp8", "fp8"),
        ("RedHatAI/Qwen3-32B-NVFP4", "Qwen/Qwen3-32B", "nvfp4", "modelopt"),
        ("nvidia/DeepSeek-R1-FP4", "deepseek-ai/DeepSeek-R1", "nvfp4", "modelopt"),
        ("Qwen/Qwen2.5-VL-7B-Instruct-AWQ", "Qwen/Qwen2.5-VL-7B-Instruct", "int4", "awq"),
        ("Qwen/Qwen3-8B-FP8", "Qwen/Qwen3-8B", "fp8", "fp8"),
        ("qwen3-8b-awq-4bit", "Qwen/Qwen3-8B", "int4", "awq"),
        ("zai-org/GLM-4.5-Air-FP8", "zai-org/GLM-4.5-Air", "fp8", "compressed-tensors"),  # its own entry
        ("QuantTrio/GLM-4.5-Air-FP8", "zai-org/GLM-4.5-Air", "fp8", "fp8"),
        ("RedHatAI/gpt-oss-120b-FP8-dynamic", "openai/gpt-oss-120b", "fp8", "fp8"),
        ("unsloth/gpt-oss-20b-BF16", "openai/gpt-oss-20b", "bf16", None),
        ("Qwen/Qwen2.5-Coder-32B-Instruct-GPTQ-Int8", "Qwen/Qwen2.5-Coder-32B-Instruct", "int8", "gptq"),
        ("neuralmagic/DeepSeek-R1-Distill-Llama-70B-FP8-dynamic", "deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "fp8", "fp8"),
        # AMD's Quark FP8 checkpoints with KV-cache scales (KubeAI's MI300X presets serve them)
        ("amd/Llama-3.1-70B-Instruct-FP8-KV", "meta-llama/Llama-3.1-70B-Instruct", "fp8", "fp8"),
        ("amd/Llama-3.1-405B-Instruct-FP8-KV", "meta-llama/Llama-3.1-405B-Instruct", "fp8", "fp8"),
        ("amd/Mixtral-8x7B-Instruct-v0.1-FP8-KV", "mistralai/Mixtral-8x7B-Instruct-v0.1", "fp8", "fp8"),
    ],
)
def test_quantised_reuploads_resolve_to_the_base_shape(
    model_id: str, base: str, precision: str, quantization: str | None
) -> None:
    resolved = find_model(model_id)
    catalog_base = find_model(base)
    assert (resolved.id, resolved.base_model, resolved.precision, resolved.quantization) == (
        model_id,
        base,
        precision,
        quantization,
    )
    assert (resolved.params, resolved.num_hidden_layers, resolved.num_key_value_heads, resolved.head_dim) == (
        catalog_base.params,
        catalog_base.num_hidden_layers,
        catalog_base.num_key_value_heads,
        catalog_base.head_dim,
    )
    assert catalog_base.precision != precision or quantization is None


def test_gpt_oss_is_natively_mxfp4() -> None:
    m = find_model("openai/gpt-oss-120b")
    assert (m.precision, m.quantization, m.base_model) == ("mxfp4", "mxfp4", None)
    bf16 = find_model("unsloth/gpt-oss-120b-BF16")
    assert (bf16.precision, bf16.quantization, "quantization_config" in bf16.hf_config) == ("bf16", None, False)


def test_quantised_reuploads_carry_the_quantisers_default_config() -> None:
    int8 = find_model("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8")
    assert int8.hf_config["quantization_config"] == {
        "quant_method": "gptq",
        "bits": 8,
        "group_size": 128,
        "desc_act": False,
        "sym": True,
    }
    assert (int8.extra["quantization_config_assumed"], int8.hf_config["model_type"]) == (True, "qwen2")
    assert weight_bytes_per_param(int8.precision, int8.hf_config["quantization_config"]) == 1 + 3 / 128


@pytest.mark.parametrize(
    ("precision", "config", "expected"),
    [
        ("int4", {"quant_method": "gptq", "bits": 4, "group_size": 128}, 0.5 + 2.5 / 128),
        ("int8", {"quant_method": "gptq", "bits": 8, "group_size": 128}, 1 + 3 / 128),
        ("int8", {"quant_method": "gptq", "bits": 8, "group_size": 32}, 1 + 3 / 32),
        ("int4", {"quant_method": "awq", "bits": 4, "group_size": 64}, 0.5 + 2.5 / 64),
        ("int4", None, 0.5 + 2.5 / 128),
        ("nvfp4", {"quant_method": "modelopt", "quant_algo": "NVFP4"}, 0.5625),
        ("mxfp4", {"quant_method": "mxfp4"}, 0.53125),
        ("fp8", {"quant_method": "fp8", "weight_block_size": [128, 128]}, 1.0),
        ("int4", {"quant_method": "bitsandbytes", "load_in_4bit": True}, 0.5 + 1 / 64 + 4 / (64 * 256)),
        (
            "int4",
            {
                "quant_method": "compressed-tensors",
                "config_groups": {"g": {"weights": {"num_bits": 4, "strategy": "group", "group_size": 32}}},
            },
            0.5 + 2 / 32,
        ),
        ("bf16", None, 2.0),
    ],
)
def test_weight_bytes_per_param_counts_scales(precision: Any, config: Any, expected: float) -> None:
    assert weight_bytes_per_param(precision, config) == expected


def test_base_model_overrides_name_matching() -> None:
    m = find_model("acme/support-bot-v7-AWQ", base_model="meta-llama/Llama-3.1-8B-Instruct")
    assert (m.id, m.base_model, m.precision, m.quantization, m.params) == (
        "acme/support-bot-v7-AWQ",
        "meta-llama/Llama-3.1-8B-Instruct",
        "int4",
        "awq",
        8_030_261_248,
    )
    plain = find_model("acme/support-bot-v7", base_model="Qwen/Qwen3-8B")
    assert (plain.precision, plain.quantization, plain.base_model) == ("bf16", None, "Qwen/Qwen3-8B")


def test_unknown_model_suggests_close_names() -> None:
    with pytest.raises(CatalogError) as err:
        find_model("meta-llama/Llama-3.1-8B-Instrukt")
    assert str(err.value) == (
        "unknown model 'meta-llama/Llama-3.1-8B-Instrukt'; did you mean: meta-llama/Llama-3.1-8B-Instruct, "
        "meta-llama/Llama-3.2-1B-Instruct, meta-llama/Meta-Llama-3-8B-Instruct?"
    )
    with pytest.raises(CatalogError) as err:
        find_model("acme/Qwen2.5-7B-Instrukt-AWQ")
    assert str(err.value).startswith(
        "unknown model 'acme/Qwen2.5-7B-Instrukt-AWQ'; did you mean: Qwen/Qwen2.5-7B-Instruct,"
    )
    with pytest.raises(CatalogError) as err:
        find_model("acme/zzz")
    assert str(err.value) == (
        "unknown model 'acme/zzz'; it is not in the catalog: name the catalog model it is a copy of "
        "(annotation shardwise.dev/base-model, base_model in a stack, --base-model for plan) "
        "or give the path of its config.json"
    )


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", ("int4", "awq")),
        ("TheBloke/Llama-2-7B-Chat-AWQ", ("int4", "awq")),
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", ("int4", "gptq")),
        ("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", ("fp8", "fp8")),
        ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", ("int8", "compressed-tensors")),
        ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", ("int4", "gptq")),
        ("nvidia/Llama-3.3-70B-Instruct-NVFP4", ("nvfp4", "modelopt")),
        ("unsloth/Llama-3.2-3B-Instruct-bnb-4bit", ("int4", "bitsandbytes")),
        ("meta-llama/Llama-3.1-8B-Instruct", None),
        ("nvidia/Llama-3.3-70B-Instruct-FP4", ("nvfp4", "modelopt")),
        ("unsloth/gpt-oss-20b-BF16", ("bf16", None)),
        ("amd/Llama-3.1-8B-Instruct-FP8-KV", ("fp8", "fp8")),
        ("FP8", None),
    ],
)
def test_resolve_precision_from_name(model_id: str, expected: tuple[str, str] | None) -> None:
    assert resolve_precision_from_name(model_id) == expected


# --------------------------------------------------------------------------------------------
# derive_params
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "params"),
    [
        (LLAMA_31_8B, 8_030_261_248),
        (LLAMA_31_70B, 70_553_706_496),
        (QWEN25_7B, 7_615_616_512),
        (MISTRAL_7B_V03, 7_248_023_552),
        (MIXTRAL_8X7B, 46_702_792_704),
        (DEEPSEEK_V3, 671_026_419_200),
        (GEMMA3_4B, 4_300_079_472),
        (PHI_1_5, 1_418_270_720),
    ],
)
def test_derive_params_matches_published_counts(config: dict[str, Any], params: int) -> None:
    assert derive_params(config) == params


def test_phi_mlp_is_two_matrices_not_three() -> None:
    """The phi-1.5 correction: counted as a Llama (gated MLP, RMSNorm, no biases) it was 402M too many."""
    assert derive_params(PHI_1_5) == 1_418_270_720
    assert derive_params({**PHI_1_5, "model_type": "llama"}) == 1_820_428_288


def test_derive_vision_params() -> None:
    assert derive_vision_params(GEMMA3_4B) == 419_816_304
    assert derive_vision_params(LLAMA_31_8B) == 0
    assert derive_vision_params({**LLAMA_31_8B, "vision_config": {"model_type": "clip_vision_model"}}) is None


def test_derive_params_counts_tied_embeddings_once() -> None:
    untied = derive_params(LLAMA_31_8B)
    tied = derive_params({**LLAMA_31_8B, "tie_word_embeddings": True})
    assert untied - tied == 128256 * 4096


def test_derive_params_rejects_incomplete_configs() -> None:
    with pytest.raises(CatalogError, match="missing required key\\(s\\) in model config: hidden_size"):
        derive_params({k: v for k, v in LLAMA_31_8B.items() if k != "hidden_size"})
    with pytest.raises(CatalogError, match="hidden_size must be an integer"):
        derive_params({**LLAMA_31_8B, "hidden_size": "4096"})


# --------------------------------------------------------------------------------------------
# load_local_model
# --------------------------------------------------------------------------------------------


def test_local_llama_config_without_index_derives_params(tmp_path: Path) -> None:
    m = load_local_model(write_model(tmp_path, LLAMA_31_8B, name="llama"))
    assert (m.id, m.params, m.num_hidden_layers, m.num_key_value_heads, m.head_dim, m.max_position_embeddings) == (
        "llama",
        8_030_261_248,
        32,
        8,
        128,
        131072,
    )
    assert (m.precision, m.quantization, m.moe, m.mla, m.extra["params_source"]) == (
        "bf16",
        None,
        None,
        None,
        "derived",
    )


def test_local_config_file_path_and_index_total_parameters(tmp_path: Path) -> None:
    index = {"metadata": {"total_parameters": 8_030_261_249, "total_size": 16_060_522_496}, "weight_map": {}}
    directory = write_model(tmp_path, LLAMA_31_8B, index=index)
    m = load_local_model(directory / "config.json")
    assert (m.params, m.extra["params_source"]) == (8_030_261_249, "safetensors index: total_parameters")


def test_local_index_total_size_is_divided_by_dtype_bytes(tmp_path: Path) -> None:
    index = {"metadata": {"total_size": 16_060_522_496}, "weight_map": {}}
    m = load_local_model(write_model(tmp_path, LLAMA_31_8B, index=index))
    assert (m.params, m.extra["params_source"]) == (8_030_261_248, "safetensors index: total_size / 2 bytes")


def test_local_moe_config(tmp_path: Path) -> None:
    m = load_local_model(write_model(tmp_path, MIXTRAL_8X7B))
    assert m.moe == MoeShape(num_experts=8, experts_per_token=2, shared_experts=0, moe_intermediate_size=14336)
    assert (m.params, m.is_moe) == (46_702_792_704, True)


def test_local_deepseek_mla_config(tmp_path: Path) -> None:
    m = load_local_model(write_model(tmp_path, DEEPSEEK_V3))
    assert m.mla == MlaShape(kv_lora_rank=512, qk_rope_head_dim=64)
    assert m.moe == MoeShape(num_experts=256, experts_per_token=8, shared_experts=1, moe_intermediate_size=2048)
    assert (m.params, m.precision, m.quantization, m.head_dim, m.torch_dtype) == (
        671_026_419_200,
        "fp8",
        "fp8",
        192,
        "bfloat16",
    )


def test_local_awq_config_ignores_packed_byte_size(tmp_path: Path) -> None:
    index = {"metadata": {"total_size": 5_547_061_248}, "weight_map": {}}
    m = load_local_model(write_model(tmp_path, QWEN25_7B_AWQ, index=index))
    assert (m.precision, m.quantization, m.params, m.extra["params_source"], m.extra["quant_method"]) == (
        "int4",
        "awq",
        7_615_616_512,
        "derived",
        "awq",
    )


@pytest.mark.parametrize(
    ("weights", "precision"),
    [
        ({"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128}, "int4"),
        ({"num_bits": 8, "type": "int", "strategy": "channel"}, "int8"),
        ({"num_bits": 8, "type": "float", "strategy": "channel"}, "fp8"),
    ],
)
def test_local_compressed_tensors_config(tmp_path: Path, weights: dict[str, Any], precision: str) -> None:
    quant = {
        "quant_method": "compressed-tensors",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights}},
    }
    m = load_local_model(write_model(tmp_path, {**LLAMA_31_8B, "quantization_config": quant}))
    assert (m.precision, m.quantization) == (precision, "compressed-tensors")


def test_local_gemma3_nested_text_config_uses_class_defaults(tmp_path: Path) -> None:
    m = load_local_model(write_model(tmp_path, GEMMA3_4B))
    assert (
        m.num_hidden_layers,
        m.hidden_size,
        m.num_attention_heads,
        m.num_key_value_heads,
        m.head_dim,
        m.vocab_size,
        m.max_position_embeddings,
        m.tie_word_embeddings,
        m.params,
    ) == (34, 2560, 8, 4, 256, 262208, 131072, True, 4_300_079_472)
    assert (m.extra["model_type"], m.vision_params) == ("gemma3_text", 419_816_304)
    assert (m.hf_config["sliding_window"], m.hf_config["mm_tokens_per_image"]) == (1024, 256)
    assert m.hf_config["vision_config"] == GEMMA3_4B["vision_config"]


def test_local_broken_json_names_the_file_and_line(tmp_path: Path) -> None:
    directory = tmp_path / "broken"
    directory.mkdir()
    (directory / "config.json").write_text('{\n  "hidden_size": 4096,\n  "num_hidden_layers": ,\n}\n')
    with pytest.raises(CatalogError) as err:
        load_local_model(directory)
    assert err.value.file == str(directory / "config.json")
    assert err.value.line == 3
    assert str(err.value).startswith(f"{directory / 'config.json'}:3: invalid JSON: ")


def test_local_missing_keys_and_files_are_catalog_errors(tmp_path: Path) -> None:
    incomplete = {k: v for k, v in LLAMA_31_8B.items() if k not in ("num_attention_heads", "vocab_size")}
    directory = write_model(tmp_path, incomplete)
    with pytest.raises(CatalogError) as err:
        load_local_model(directory)
    assert str(err.value) == (
        f"{directory / 'config.json'}: missing required key(s) in model config: num_attention_heads, vocab_size"
    )
    with pytest.raises(CatalogError) as err:
        load_local_model(
            write_model(
                tmp_path, {k: v for k, v in LLAMA_31_8B.items() if k != "max_position_embeddings"}, name="nopos"
            )
        )
    assert str(err.value).endswith("missing required key(s) in model config: max_position_embeddings")
    with pytest.raises(CatalogError) as err:
        load_local_model(tmp_path / "empty-dir-that-does-not-exist")
    assert err.value.file == str(tmp_path / "empty-dir-that-does-not-exist")
    with pytest.raises(CatalogError, match="must be a JSON object"):
        load_local_model(write_model(tmp_path, [1, 2], name="list"))  # type: ignore[arg-type]


def test_local_broken_index_names_the_index(tmp_path: Path) -> None:
    directory = write_model(tmp_path, LLAMA_31_8B)
    (directory / "model.safetensors.index.json").write_text("{oops")
    with pytest.raises(CatalogError) as err:
        load_local_model(directory)
    assert err.value.file == str(directory / "model.safetensors.index.json")


# --------------------------------------------------------------------------------------------
# Loader strictness and import cost
# --------------------------------------------------------------------------------------------


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Point the loader at a scratch data folder (caches cleared before and after)."""
    shipped = Path(lookup._DATA_DIR)
    for name in ("gpus.json", "instances.json", "models.json"):
        (tmp_path / name).write_text((shipped / name).read_text())
    monkeypatch.setattr(lookup, "_DATA_DIR", str(tmp_path))
    caches = (lookup._gpu_index, lookup._instance_index, lookup._model_index)
    for cache in caches:
        cache.cache_clear()
    yield tmp_path
    for cache in caches:
        cache.cache_clear()


def test_loader_rejects_unknown_keys_and_missing_sources(data_dir: Path) -> None:
    entries = json.loads((data_dir / "gpus.json").read_text())
    entries[0]["memory_gbb"] = 16
    (data_dir / "gpus.json").write_text(json.dumps(entries))
    with pytest.raises(CatalogError, match="entry 'T4' has unknown key\\(s\\): memory_gbb"):
        gpus()
    lookup._gpu_index.cache_clear()
    del entries[0]["memory_gbb"]
    entries[0]["source"] = "http://example.com"
    (data_dir / "gpus.json").write_text(json.dumps(entries))
    with pytest.raises(CatalogError, match="entry 'T4' needs an https source URL"):
        gpus()


def test_loader_rejects_instances_with_unknown_gpus(data_dir: Path) -> None:
    entries = json.loads((data_dir / "instances.json").read_text())
    entries[0]["gpu"] = "T5"
    (data_dir / "instances.json").write_text(json.dumps(entries))
    with pytest.raises(CatalogError, match="instance 'g4dn.xlarge' names unknown GPU 'T5'"):
        instance_types()


def test_loader_rejects_a_spelling_shared_by_two_gpus(data_dir: Path) -> None:
    entries = json.loads((data_dir / "gpus.json").read_text())
    entries[0]["aliases"].append("nvidia a10g")
    (data_dir / "gpus.json").write_text(json.dumps(entries))
    with pytest.raises(CatalogError, match="names both"):
        gpus()


def test_import_is_lazy_and_never_imports_pulumi() -> None:
    code = (
        "import sys, shardwise.rules.catalog as c, shardwise.rules.catalog.lookup as lookup\n"
        "assert lookup._gpu_index.cache_info().currsize == 0\n"
        "assert lookup._model_index.cache_info().currsize == 0\n"
        "assert not [m for m in sys.modules if m.startswith(('pulumi', 'pydantic', 'difflib'))]\n"
        "c.find_model('hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4')\n"
        "assert not [m for m in sys.modules if m.startswith('pulumi')]\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


# --- the hardware vocabulary (rules/catalog/hardware.py) -------------------------------------------


def test_one_home_says_what_a_node_carries():
    """plan, the Kubernetes adapter, the renderer and the components ask rules/catalog/hardware.py what a node of an
    instance type is; the adapter's pool_from_labels is the same function."""
    from shardwise.rules.adapters.k8s import nodes
    from shardwise.rules.catalog import hardware
    from shardwise.rules.model import Location

    assert nodes.pool_from_labels is hardware.pool_from_labels
    p5 = hardware.instance_pool("p5.48xlarge", Location("t"))
    assert (p5.gpu.name, p5.gpus_per_node, p5.interconnect, p5.nvlink_domain_size, p5.efa) == (
        "H100-SXM-80GB", 8, "nvswitch", 8, True)
    assert hardware.node_links(p5) == (8, 8)
    g6e = hardware.instance_pool("g6e.12xlarge", Location("t"))
    assert (hardware.node_links(g6e), hardware.instance_nvlink_domain(find_instance("g6e.12xlarge"))) == ((4, 1), 1)
    nvl = hardware.gpu_pool("H100-NVL", 4, Location("t"))  # NVLink bridges join pairs only
    assert (nvl.interconnect, hardware.node_links(nvl)) == ("nvlink", (4, 2))
    assert hardware.instance_pool("p5.48xlarge", Location("t"), gpus_per_node=4).gpus_per_node == 4
    assert hardware.largest_instance("L4").name == "g6.48xlarge"
    assert hardware.instance_with("L4", 4).name == "g6.12xlarge"
    assert (hardware.largest_instance("MI300X"), hardware.instance_with("H100-NVL", 4)) == (None, None)


def test_an_entry_that_restates_its_context_gets_it_from_vllms_derivation():
    """vLLM derives a model's limit from its config (``_get_and_verify_max_len``): with a YaRN ``rope_scaling`` it is
    ``original_max_position_embeddings`` × ``factor``, not ``max_position_embeddings``. An entry that inherits a
    parent's shape and restates ``max_position_embeddings`` must restate the RoPE scaling its own config has, or it
    keeps the parent's limit: Kimi-K2-Instruct-0905, Kimi-K2-Thinking and Kimi-K2.5 (262,144 tokens, YaRN factor 64)
    inherited Kimi-K2-Instruct's factor 32 and were sized at 131,072 tokens."""
    from shardwise.rules.capacity.weights import derived_max_model_len

    raw = {e["id"]: e for e in lookup._read_data("models.json")}
    restated = [i for i, e in raw.items() if "inherits" in e and "max_position_embeddings" in e]
    assert {"moonshotai/Kimi-K2-Instruct-0905", "moonshotai/Kimi-K2-Thinking"} <= set(restated)
    by_id = {i: lookup.find_model_exact(i) for i in (*restated, "moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2.5")}
    wrong = {i: derived_max_model_len(by_id[i]) for i in restated
             if derived_max_model_len(by_id[i]) != raw[i]["max_position_embeddings"]}
    assert wrong == {}
    assert [derived_max_model_len(by_id[i]) for i in ("moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2-Thinking",
                                                      "moonshotai/Kimi-K2.5")] == [131072, 262144, 262144]


def test_minimax_m27_and_its_nvfp4_checkpoint_keep_their_own_config_lengths() -> None:
    """MiniMaxAI/MiniMax-M2.7's own config.json has max_position_embeddings 204,800 and NVIDIA's NVFP4 checkpoint's
    196,608 (both as ai-dynamo/aiconfigurator caches them at 69386f5): the quantised checkpoint is its own entry, not
    the original's shape under another name, and its ignore list keeps lm_head, every layer's self-attention and router
    gate 16-bit (2,779,695,104 parameters), so its weights are 125.17 GiB."""
    from shardwise.rules.capacity.weights import checkpoint_precision, ignored_params, weights_bytes

    original, nvfp4 = find_model("MiniMaxAI/MiniMax-M2.7"), find_model("nvidia/MiniMax-M2.7-NVFP4")
    assert (original.max_position_embeddings, original.precision) == (204_800, "fp8")
    assert (nvfp4.max_position_embeddings, nvfp4.precision, nvfp4.quantization, nvfp4.base_model) == (
        196_608, "nvfp4", "modelopt", "MiniMaxAI/MiniMax-M2.7")
    assert "aiconfigurator/blob/69386f5f55d9e461a87bf6275d973191a5a19fc6" in original.source
    assert ignored_params(nvfp4) == 2_779_695_104
    assert round(weights_bytes(nvfp4, checkpoint_precision(nvfp4)) / 2**30, 2) == 125.17


@pytest.mark.parametrize(("model_id", "base", "ignored", "weights_gib"), [
    ("nvidia/Kimi-K2.6-NVFP4", "moonshotai/Kimi-K2.6", 9_207_343_104, 554.05),
    ("nvidia/Qwen3.5-397B-A17B-NVFP4", "Qwen/Qwen3.5-397B-A17B", 7_638_485_760, 221.43),
])
def test_nvidias_nvfp4_checkpoints_are_sized_with_their_own_ignore_lists(model_id, base, ignored, weights_gib) -> None:
    """NVIDIA's ModelOpt NVFP4 checkpoints leave more than the embeddings 16-bit (their config.json's ignore lists, as
    ai-dynamo/aiconfigurator caches them at 095f58a: Kimi-K2.6's self-attention, first layer, shared experts and vision
    tower; Qwen3.5-397B's linear and full attention, shared experts, vision tower and MTP layer): as catalog entries
    they are sized with those lists, not as the base model wholly 4-bit (541.73 and 211.21 GiB before)."""
    from shardwise.rules.capacity.weights import checkpoint_precision, ignored_params, weights_bytes

    shape = find_model(model_id)
    assert (shape.precision, shape.quantization, shape.base_model) == ("nvfp4", "modelopt", base)
    assert "aiconfigurator/blob/095f58a51c4ca8e61b66ec108d86f223f8d559ce" in shape.source
    assert ignored_params(shape) == ignored
    assert round(weights_bytes(shape, checkpoint_precision(shape)) / 2**30, 2) == weights_gib


def test_ec2_gpu_memory_is_karpenters_label_for_every_nvidia_gpu_ec2_sells():
    """``ec2_memory_mib``: EC2's GpuInfo MemoryInfo.SizeInMiB of one GPU, the value of Karpenter's (and EKS Auto
    Mode's) instance-gpu-memory label, as karpenter-provider-aws's generated instance-types reference lists it (p3
    from its v1.12 page). Every NVIDIA GPU of an EC2 instance type in the catalog has it but GB200 (p6e-gb200, not in
    that reference); it is not the memory the rules use (A10G: 22888 MiB is 22.35 GiB, CUDA reports 22.06)."""
    from shardwise.rules.catalog.lookup import instance_types

    on_ec2 = {i.gpu for i in instance_types().values() if i.cloud == "aws"}
    figures = {name: find_gpu(name).ec2_memory_mib for name in sorted(on_ec2)
               if find_gpu(name).vendor == "nvidia"}
    assert figures == {
        "A10G": 22888, "A100-40GB": 40960, "A100-80GB": 81920, "B200": 183359, "B300": 275040, "GB200": None,
        "H100-SXM-80GB": 81920, "H200-141GB": 144384, "L4": 22888, "L40S": 45776, "RTX-PRO-6000-Blackwell": 98304,
        "T4": 16384, "V100-16GB": 16384, "V100-32GB": 32768}

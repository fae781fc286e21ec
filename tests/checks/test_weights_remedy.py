"""SW101's remedy where no setting of the node's GPUs starts the layout names only what can work (review21)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from shardwise.rules.capacity.sizing import GB, GIB, Device, ReplicaSizing
from shardwise.rules.checks._capacity import _weights_elsewhere

H100 = Device("H100-SXM-80GB", 79.19, "nvidia")


def _sizing(total_gib: float, per_gpu_gib: float, precision: str, gpus: int = 1) -> ReplicaSizing:
    return cast(ReplicaSizing, SimpleNamespace(
        weights_gb_total=total_gib * GIB / GB, weights_gib_per_gpu=per_gpu_gib, usable_gib_per_gpu=71.3,
        gpu_memory_utilization=0.9, weight_precision=precision, gpus=gpus))


def test_an_fp8_checkpoint_no_gpu_holds_is_told_more_gpus_and_fewer_bits_only() -> None:
    # DeepSeek-V3's FP8 weights at TP1: no GPU of the catalog holds 628.6 GiB, and the checkpoint is quantised already
    assert _weights_elsewhere(_sizing(626.7, 628.6, "fp8"), H100, 8) == (
        "spread the weights over at least 9 of these GPUs (626.7 GiB over 71.3 GiB each; more than a node of this "
        "pool holds (8), so across nodes: pipeline parallelism, or data and expert parallelism over pods); or serve a "
        "4-bit quantised checkpoint")


def test_a_16_bit_checkpoint_a_larger_gpu_holds_is_told_all_three() -> None:
    assert _weights_elsewhere(_sizing(131.4, 131.4, "bf16"), H100, None) == (
        "spread the weights over at least 2 of these GPUs (131.4 GiB over 71.3 GiB each); or serve an FP8 or 4-bit "
        "quantised checkpoint; or use a GPU with more memory")


def test_a_4_bit_checkpoint_whose_weights_fit_the_gpus_it_has_is_told_neither_spread_nor_quantisation() -> None:
    # 60 GiB over two GPUs: the weights alone fit two, which it has; a 4-bit checkpoint has no fewer bits to go to
    assert _weights_elsewhere(_sizing(60.0, 75.0, "int4", gpus=2), H100, 8) == "use a GPU with more memory"


def test_where_nothing_named_can_work_it_says_more_gpus() -> None:
    assert _weights_elsewhere(_sizing(100.0, 400.0, "int4", gpus=2), H100, 8) == "spread the weights over more GPUs"


def test_a_layout_that_offloads_weights_to_cpu_memory_is_told_to_offload_more_not_a_gpu_count() -> None:
    # --cpu-offload-gb 4 on Llama-3.1-70B at TP4 on L4s: the checkpoint's bytes over a GPU's budget (7) is no bound
    # when part of them stays in CPU memory (24 GiB offloaded starts it on the 4 GPUs: SW101/cpu-offload.yaml)
    assert _weights_elsewhere(_sizing(131.4, 28.9, "bf16", gpus=4), H100, 4, offloads=True) == (
        "offload more of the weights (a larger --cpu-offload-gb); or serve an FP8 or 4-bit quantised checkpoint; or "
        "use a GPU with more memory")


def test_fewer_bits_names_only_the_kinds_the_gpu_and_release_take() -> None:
    # read48: a T4 at 0.10.0 (Fp8Config requires 8.0), a V100 (AWQConfig 7.5 too; GPTQConfig 6.0), an A10G
    from shardwise.rules.checks._capacity import fewer_bits_words

    t4 = {"awq", "gptq"}
    v100 = {"gptq"}
    assert fewer_bits_words("bf16", t4.__contains__) == ["serve a 4-bit quantised checkpoint"]
    assert fewer_bits_words("fp16", v100.__contains__) == ["serve a 4-bit GPTQ quantised checkpoint"]
    assert fewer_bits_words("bf16", {"fp8", "awq"}.__contains__) == ["serve an FP8 or 4-bit AWQ quantised checkpoint"]
    assert fewer_bits_words("bf16", {"fp8", "awq", "gptq"}.__contains__) == [
        "serve an FP8 or 4-bit quantised checkpoint"]
    assert fewer_bits_words("fp8", {"fp8"}.__contains__) == []  # no 4-bit method taken: nothing to name
    assert fewer_bits_words("bf16", set[str]().__contains__) == []  # Gemma 3 on a T4 at 0.11.0 (float16 refused)

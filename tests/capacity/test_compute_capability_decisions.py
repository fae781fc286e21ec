"""The capacity model's GPU decisions by compute capability, not the architecture label (issue 28, tokens42).

Each decision tests the capability vLLM's source tests: the ``blackwell`` label holds B200/GB200 (10.0), B300/GB300
(10.3) and the RTX 5090 / RTX PRO Blackwell cards (12.0); the DGX Spark's GB10 is 12.1.
"""

from __future__ import annotations

import dataclasses

import pytest
from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import find_gpu, find_model
from shardwise.rules.vllm import kv_dtypes


def _device(name: str, interconnect: str | None = None, nvlink_domain: int | None = None) -> sizing.Device:
    return sizing.Device.of(find_gpu(name), interconnect=interconnect, nvlink_domain=nvlink_domain)


@pytest.mark.parametrize(("cc", "fused"), [
    ((9, 0), True), ((10, 0), True), ((10, 3), True),  # is_device_capability(90) or is_device_capability_family(100)
    ((12, 0), False), ((12, 1), False), ((8, 9), False), ((8, 0), False), ((7, 5), False), ((11, 0), False),
])
def test_vllm_fuses_the_tp_all_reduce_on_9_0_and_the_10x_family_only(cc, fused):
    assert sizing.allreduce_fusion_capability(cc) is fused


def test_an_nvlink_joined_sm_120_pair_counts_no_tp_buffers_where_b200_would():
    # config/vllm.py enable_allreduce_rms_fusion (0.19.0): capability 9.0 or the 10.x family; an RTX PRO 6000 Blackwell
    # pair a node pool declares NVLink-joined is 12.0, so no FlashInfer all-reduce fusion workspace (the label put it
    # with B200 before)
    pro = _device("RTX-PRO-6000-Blackwell", interconnect="nvlink", nvlink_domain=2)
    assert (pro.capability(), pro.nvlink_domain) == ((12, 0), 2)
    as_b200 = dataclasses.replace(pro, compute_capability=(10, 0))
    not_known = dataclasses.replace(pro, compute_capability=None)  # the label alone: charged, as a domain not known
    assert [sizing.tp_buffers_counted(d, 2) for d in (pro, as_b200, not_known)] == [False, True, True]
    s = sizing.EngineSettings(tp=2, max_model_len=32768)
    sized = [sizing.size_deployment(find_model("Qwen/Qwen3-32B"), d, s, "0.19.0") for d in (pro, as_b200)]
    assert [(round(r.non_torch_gib_per_gpu, 2), round(r.available_kv_gib, 4), r.kv_cache_tokens) for r in sized] == [
        (0.22, 52.4071, 429312), (2.22, 50.4071, 412928)]
    # B300 (10.3) is in the family; GB10 (12.1, not in the catalog) is not
    assert sizing.tp_buffers_counted(_device("B300"), 8) is True
    gb10 = sizing.Device("GB10", 121.63, "nvidia", "blackwell", None, compute_capability=(12, 1))
    assert sizing.tp_buffers_counted(gb10, 2) is False


def test_marlin_runs_block_fp8_from_7_5_to_below_8_9():
    m = find_model("MiniMaxAI/MiniMax-M2.7")  # 128 x 128 weight blocks
    s = sizing.EngineSettings(tp=4)
    groups = {name: sizing.marlin_fp8_group(m, s, "fp8", _device(name))
              for name in ("T4", "A100-80GB", "RTX-3090", "L40S", "H100-SXM-80GB", "B300", "RTX-5090")}
    assert groups == {"T4": 128, "A100-80GB": 128, "RTX-3090": 128, "L40S": 0, "H100-SXM-80GB": 0, "B300": 0,
                      "RTX-5090": 0}
    # capability not known (a label-only Blackwell part): nothing charged
    assert sizing.marlin_fp8_group(m, s, "fp8", sizing.Device("GPU", 80.0, "nvidia", "blackwell")) == 0


def test_the_mxfp4_backend_by_capability():
    names = {n: sizing.mxfp4_backend(_device(n)) for n in ("H100-SXM-80GB", "B200", "B300", "GB300", "RTX-5090",
                                                            "RTX-PRO-4500-Blackwell", "L40S", "A100-80GB", "T4")}
    assert {n: b.name if b else None for n, b in names.items()} == {
        "H100-SXM-80GB": "Triton (SM90)", "B200": "FlashInfer TRTLLM (SM100)", "B300": "FlashInfer TRTLLM (SM100)",
        "GB300": "FlashInfer TRTLLM (SM100)", "RTX-5090": "Marlin", "RTX-PRO-4500-Blackwell": "Marlin",
        "L40S": "Marlin", "A100-80GB": "Marlin", "T4": None}
    # GB10 (12.1): Marlin, as TW-10519/VLLM-ROUTER logs/vllm.log at 43179adf prints on 0.13.0 ("[mxfp4.py:161]
    # Using Marlin backend"); the label, read as B200, gave FlashInfer's padded experts (14.15 GiB against 13.72)
    gb10 = sizing.Device("GB10", 121.63, "nvidia", "blackwell", 1, compute_capability=(12, 1))
    assert sizing.mxfp4_backend(gb10) is sizing.MXFP4_BACKENDS["marlin"]
    assert sizing.mxfp4_backend(sizing.Device("GPU", 80.0, "nvidia", "blackwell")) is None  # not known


def _refusal(kind: str, name: str, cc: tuple[int, int] | None) -> str:
    return kv_dtypes.refusal(kind, "nvidia", "blackwell", name, head=128, rope=128, mla=False, sparse_mla=False,
                             bf16=True, sinks=False, capability=cc)


def test_the_gpu_classes_of_the_kv_cache_backends_by_capability():
    classes = [kv_dtypes.gpu_class("nvidia", "blackwell", cc) for cc in ((10, 0), (10, 3), (12, 0), (12, 1), None)]
    assert classes == ["sm100", "sm100", "fa2", "fa2", "unknown-cuda"]
    assert [kv_dtypes.gpu_class("nvidia", a, cc) for a, cc in (("hopper", (9, 0)), ("ampere", (8, 6)),
                                                                ("turing", (7, 5)))] == ["fa2", "fa2", "other-cuda"]
    b300, pro, unknown = (_refusal("nvfp4_4over6", name, cc) for name, cc in (("B300", (10, 3)),
                                                                              ("RTX PRO 6000", (12, 0)), ("GPU", None)))
    t4 = _refusal("nvfp4", "T4", (7, 5))
    assert (b300, unknown) == ("", "")
    assert pro == ("--kv-cache-dtype nvfp4_4over6: FlashInfer takes it on compute capability 10.x only (B200, B300, "
                   "GB200); on RTX PRO 6000 only nvfp4")
    assert t4 == "--kv-cache-dtype nvfp4: only FlashInfer takes it, on NVIDIA GPUs of compute capability 8.0 and later"


def test_a_catalog_device_carries_the_capability_and_a_label_only_one_takes_it_where_the_label_fixes_it():
    assert sizing.Device.of(find_gpu("B300")).capability() == (10, 3)
    assert sizing.Device.of(find_gpu("RTX 5090")).capability() == (12, 0)
    assert sizing.Device.of(find_gpu("MI300X")).capability() is None
    label = [sizing.Device("GPU", 80.0, "nvidia", arch).capability()
             for arch in ("volta", "turing", "ampere", "ada", "hopper", "blackwell", "")]
    assert label == [(7, 0), (7, 5), (8, 0), (8, 9), (9, 0), None, None]
    assert sizing.Device("GB10", 121.63, "nvidia", "blackwell", compute_capability=(12, 1)).capability() == (12, 1)
    assert sizing.Device("MI300X", 191.5, "amd", "cdna3", compute_capability=(9, 0)).capability() is None

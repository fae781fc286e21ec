"""A cold ``torch.compile`` in the profile run (issue 28, tokens33): each start-up log's compile state, the budget
residual by state, and the term :func:`sizing.cold_compile_gib` charges for a cold cache."""

from __future__ import annotations

import dataclasses

import pytest
from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm.versions import parse_version
from startup_logs import compile_rows, compile_state, compile_table, load, score

GIB = 1024**3
LOGS = load()
E = sizing.DEFAULT_ESTIMATES


def _v(text: str) -> sizing.Version:
    v = parse_version(text)
    assert v is not None
    return v


def test_every_row_has_one_compile_state_and_the_sources_name_fifteen():
    # the state a row's source shows (fifteen rows: 'compile' in the data file, with the quote that shows it), else eager
    # where --enforce-eager or the V0 engine rules torch.compile out, else unknown
    states = [compile_state(lg) for lg in LOGS]
    assert {s: states.count(s) for s in ("cold", "warm", "eager", "unknown")} == {
        "cold": 22, "warm": 19, "eager": 48, "unknown": 180}  # set 23: 4 eager (--enforce-eager), 25 unknown;
    # set 24: 4 eager (the A100 rows' eager mode), 8 unknown; set 25: 4 eager (two V0 H100 rows of 0.6.4, the
    # --enforce-eager RTX 3090 pair), 2 unknown (the two-Spark rows quote no compile line); set 26: 5 cold (the L4
    # bench's fresh containers), 5 unknown (the RTX 5090 file and the RTX 5060 Ti note quote no compile line); set 27:
    # 3 cold (the 4090's first start, the 5090's first start, the PRO 6000 pair's first start), 2 warm (their
    # restarts), 5 unknown; set 28: 1 cold (the RTX A5000's 0.13.0 start compiles), 12 warm (ten RTX 3090 starts whose
    # profile run takes 3 - 5 s by the excerpts' timestamps, the T4 pair's AOT cache), 2 unknown (the offloaded starts)
    # set 29: 5 unknown (the posts quote no compile line); set 30: 2 cold (the cookbook's 0.8.2 T4 notebook, the 0.27.1
    # A100 pair's "torch.compile takes"), 1 warm (the 0.19.0 A100-40GB pair's "Directly load the compiled graph")
    assert all(lg.compile_source for lg in LOGS if lg.compile)
    shown = sorted((lg.release, lg.model.id, lg.gpu, lg.compile) for lg in LOGS if lg.compile)
    assert shown == [
        ("0.13.0", "Qwen/Qwen2.5-14B-Instruct-AWQ", "RTX A5000", "cold"),
        ("0.13.0", "Qwen/Qwen2.5-Coder-7B-Instruct", "RTX 5080", "cold"),
        *[("0.17.1", "Qwen/Qwen2.5-7B-Instruct", "RTX 3090", "warm")] * 5,
        *[("0.17.1", "meta-llama/Llama-3.1-8B-Instruct", "RTX 3090", "warm")] * 5,
        ("0.19.0", "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "A100-40GB", "warm"),
        ("0.22.0", "Qwen/Qwen2.5-7B-Instruct", "A10G", "cold"),
        ("0.24.0", "Qwen/Qwen3-32B", "RTX PRO 6000 Blackwell", "cold"),
        ("0.24.0", "Qwen/Qwen3-32B", "RTX PRO 6000 Blackwell", "warm"),
        ("0.24.0", "Qwen/Qwen3-8B", "RTX 4090", "cold"),
        ("0.24.0", "Qwen/Qwen3-8B", "RTX 5090", "cold"),
        ("0.24.0", "Qwen/Qwen3-8B", "RTX 5090", "warm"),
        ("0.26.0", "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "A40", "cold"),
        ("0.26.0", "meta-llama/Llama-3.1-8B-Instruct", "A40", "cold"),
        ("0.26.1", "Qwen/Qwen3-Coder-30B-A3B-Instruct", "A100-80GB", "warm"),
        ("0.27.1", "Qwen/Qwen2.5-0.5B", "RTX 4090", "cold"),
        ("0.27.1", "Qwen/Qwen3.6-27B", "A100-80GB", "cold"),
        ("0.28.0", "Qwen/Qwen2.5-7B-Instruct-AWQ", "L4", "cold"),
        ("0.28.0", "Qwen/Qwen2.5-7B-Instruct-AWQ", "L4", "cold"),
        ("0.28.0", "Qwen/Qwen2.5-7B-Instruct-AWQ", "L4", "cold"),
        ("0.28.0", "Qwen/Qwen3-32B-AWQ", "RTX 4090", "warm"),
        ("0.28.0", "google/gemma-4-E2B-it", "T4", "cold"),
        ("0.28.0", "google/gemma-4-E4B-it-qat-w4a16-ct", "L4", "cold"),
        ("0.28.0", "google/gemma-4-E4B-it-qat-w4a16-ct", "L4", "cold"),
        ("0.29.0", "Qwen/Qwen3-4B-Instruct-2507", "RTX 5060 Ti", "cold"),
        ("0.29.0", "Qwen/Qwen3-8B-FP8", "RTX PRO 4500 1g.16gb", "cold"),
        ("0.29.0", "Qwen/Qwen3-8B-FP8", "RTX PRO 4500 1g.16gb", "cold"),
        ("0.29.0", "RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", "L40S", "cold"),
        ("0.29.0", "google/gemma-4-E2B-it-qat-w4a16-ct", "T4", "warm"),
        ("0.30.0", "Qwen/Qwen2.5-1.5B-Instruct", "T4", "warm"),
        ("0.30.0", "Qwen/Qwen2.5-1.5B-Instruct", "T4", "warm"),
        ("0.30.0", "Qwen/Qwen3-4B-Instruct-2507", "RTX 5060 Ti", "cold"),
        ("0.30.0", "Qwen/Qwen3-4B-Instruct-2507", "RTX 5060 Ti", "warm"),
        ("0.8.2", "unsloth/Llama-3.2-3B-Instruct", "T4", "cold"),
    ]
    # a warm row is sized with a warm cache, every other with vLLM's first start (cold)
    assert {lg.settings.compile_cache for lg in LOGS if lg.compile == "warm"} == {"warm"}
    assert {lg.settings.compile_cache for lg in LOGS if lg.compile != "warm"} == {"cold"}


def test_the_cold_rows_budgets_are_reproduced_but_the_sm_120_hosts_non_torch_memory():
    # shardwise's KV budget less the logged one, GiB, for every row whose compile state is shown: before tokens33
    # the cold rows were +0.55 (A10G), +0.77 and +0.76 (A40), +0.09 (RTX 4090, a 0.5B whose forward pass peaks above its
    # embedding), +1.23 twice (RTX 5060 Ti), the warm ones +0.13 and -0.03; set 21 adds a warm 0.28.0 TP2 pair of
    # RTX 4090s (+0.23, the PCIe pair sized without the NVLink communication buffers: startup_logs.nvlink_domain) and
    # two cold 0.29.0 starts on one MIG slice of an RTX PRO 4500 Blackwell (+1.23, +1.49: 1.28 GiB of non-torch memory
    # against 0.12, their cold-compile peak right), so both hosts whose cold non-torch memory is unmodelled are sm_120;
    # and a cold 0.29.0 Gemma-4-26B-A4B FP8 start on an L40S (-0.01); set 22 a warm 0.29.0 Gemma 4 E2B QAT start on a
    # T4 (+0.27, 0.46 GiB of its weights unattributed: the gemma4-e-weights class; its cold 0.28.0 E2B row on a g4dn T4
    # logs no budget). toksingle10: with Gemma 4's weights as vLLM builds them the E2B QAT row is +0.15 (7.69 GiB of
    # weights against 8.02, quantised Gemma 4's residual) and the text-only 26B-A4B FP8 one +0.76, the 1.02 GiB tower
    # vLLM does not build no longer counted in its weights (startup_logs.MISS_CAUSES "v2-moe-0.29"). tokens14: the warm
    # 0.30.0 RTX 5060 Ti row -0.03 -> +0.06, V2's greedy profile keeping no float32 copy of the logits from 0.28 (its
    # logged peak activation, 0.53, is now met: 0.54; its weights are 0.09 short)
    budgeted = [lg for lg in LOGS if lg.kv_gib is not None]
    shown = sorted((r[0], r[2], r[3]) for r, lg in zip(compile_rows(LOGS), budgeted, strict=True) if lg.compile)
    # set 26: five cold 0.28.0 starts on an L4 (fresh containers): Qwen2.5-7B-Instruct-AWQ +0.13 / +0.14 / +0.14, the
    # Gemma 4 E4B QAT export +0.22 twice (-0.68 before tokens36: 0.28.0 ties the export's own LM head, which 0.29+
    # loads untied, ModelShape.distinct_lm_head; 9.69 GiB of weights against 9.81 logged). tokens36: the warm 0.29.0
    # E2B QAT T4 row +0.15 -> -0.06, its own head now one whole 16-bit table (7.90 GiB against 8.02). Set 27: the
    # RTX 4090's cold 0.24.0 refusal of Qwen3-8B at 40,960 tokens +0.51 (4.61 GiB logged, within tolerance). Set 28:
    # the RTX A5000's cold 0.13.0 Qwen2.5-14B-AWQ start +0.03; ten warm 0.17.1 RTX 3090 starts -0.09 to +0.01 (sized cold,
    # as before they were read warm, -0.43 to -0.63); the warm 0.30.0 T4 pair +0.03 twice. tokens39: the fused-MoE
    # caches held through the sampler run (the modular kernel's workspace buffer) take the cold 26B-A4B FP8 L40S row
    # +0.76 -> +0.61 and the warm 0.26.1 Qwen3-Coder-30B-A3B A100 row +0.13 -> +0.11. Set 30: the cold 0.8.2 T4 V0
    # start -0.20; the cold 0.27.1 Qwen3.6-27B TP2 A100-80GB pair -1.35 and the warm 0.19.0 Llama 3.1 70B AWQ TP2
    # A100-40GB pair -1.69 blind, +0.65 and +0.31 from logs26 (no 0.19+ TP term below compute capability 9.0)
    assert shown == [("cold", "A100-80GB", 0.65), ("cold", "A10G", -0.16), ("cold", "A40", -0.01), ("cold", "A40", -0.0),
                     ("cold", "L4", 0.13), ("cold", "L4", 0.14), ("cold", "L4", 0.14), ("cold", "L4", 0.22),
                     ("cold", "L4", 0.22), ("cold", "L40S", 0.61),
                     ("cold", "RTX 4090", 0.09), ("cold", "RTX 4090", 0.51),
                     ("cold", "RTX 5060 Ti", 0.73), ("cold", "RTX 5060 Ti", 0.73), ("cold", "RTX A5000", 0.03),
                     ("cold", "RTX PRO 4500 1g.16gb", 1.23), ("cold", "RTX PRO 4500 1g.16gb", 1.49),
                     ("cold", "T4", -0.2), ("warm", "A100-40GB", 0.31), ("warm", "A100-80GB", 0.11), ("warm", "RTX 3090", -0.09), ("warm", "RTX 3090", -0.08),
                     ("warm", "RTX 3090", -0.08), ("warm", "RTX 3090", -0.07), ("warm", "RTX 3090", -0.07),
                     ("warm", "RTX 3090", -0.06), ("warm", "RTX 3090", -0.02), ("warm", "RTX 3090", -0.02),
                     ("warm", "RTX 3090", 0.0), ("warm", "RTX 3090", 0.01), ("warm", "RTX 4090", 0.23),
                     ("warm", "RTX 5060 Ti", 0.06), ("warm", "T4", -0.06), ("warm", "T4", 0.03), ("warm", "T4", 0.03)]
    table = compile_table(LOGS).splitlines()
    assert table[0].split() == ["compile", "release", "GPU", "rows", "median", "min", "max", ">", "+0.3"]
    assert table[1].split() == ["cold", "all", "all", "18", "+0.18", "-0.20", "+1.49", "7"]
    assert "warm     all      all                      17   -0.02  -0.09  +0.31      1" in table


def test_a_cold_compile_peaks_at_one_copy_of_the_embedding_from_0_13():
    cold, warm = sizing.EngineSettings(), sizing.EngineSettings(compile_cache="warm")
    llama = find_model("meta-llama/Llama-3.1-8B-Instruct")
    # 128,256 x 4,096 x 2 B: 0.98 GiB, where the 0.26.0 A40 log reads 1.01 of peak activation
    assert sizing.cold_compile_gib(_v("0.26.0"), "v1", cold, E, llama, 2) == pytest.approx(128256 * 4096 * 2 / GIB)
    assert round(sizing.cold_compile_gib(_v("0.26.0"), "v1", cold, E, llama, 2), 3) == 0.979
    # the share of one GPU at TP4
    assert sizing.cold_compile_gib(_v("0.26.0"), "v1", dataclasses.replace(cold, tp=4), E, llama, 2) == pytest.approx(
        128256 * 4096 * 2 / 4 / GIB)
    # nothing warm, eager, on V0, or before 0.13
    assert [sizing.cold_compile_gib(_v(r), eng, s, E, llama, 2) for r, eng, s in (
        ("0.26.0", "v1", warm), ("0.26.0", "v1", sizing.EngineSettings(enforce_eager=True)),
        ("0.9.2", "v0", cold), ("0.12.0", "v1", cold), ("0.11.0", "v1", cold))] == [0.0] * 5
    assert sizing.cold_compile_gib(_v("0.13.0"), "v1", cold, E, llama, 2) > 0
    # Qwen2.5-Coder-7B's 152,064 x 3,584 embedding: the 1.02 GiB 0.13.0's autotuning asked for on an RTX 5080
    coder = find_model("Qwen/Qwen2.5-Coder-7B-Instruct")
    assert round(sizing.cold_compile_gib(_v("0.13.0"), "v1", cold, E, coder, 2), 2) == 1.02


def test_the_compile_peak_is_a_floor_under_the_profile_not_an_addition():
    # the compile runs before the compiled graph does, its scratch freed first: the peak is the larger of the two.
    # Llama-3.1-8B on an A40 at 2,048 tokens: forward and sampler 0.21 GiB, the compile's 0.98 (logged: 1.01)
    a40 = sizing.Device("A40", 44.43, "nvidia", "ampere", 1)
    llama = find_model("meta-llama/Llama-3.1-8B-Instruct")
    s = sizing.EngineSettings(max_model_len=4096, gpu_memory_utilization=0.9, max_num_seqs=256)
    cold = sizing.size_deployment(llama, a40, s, "0.26.0")
    warm = sizing.size_deployment(llama, a40, dataclasses.replace(s, compile_cache="warm"), "0.26.0")
    assert (round(cold.activation_gib_per_gpu, 2), round(warm.activation_gib_per_gpu, 2)) == (0.98, 0.21)
    assert round(warm.available_kv_gib - cold.available_kv_gib, 2) == 0.77
    assert (round(cold.available_kv_gib, 2), cold.kv_cache_tokens) == (23.9, 195776)  # logged 23.9, 195,760
    # a forward pass above the embedding (16,384 tokens) keeps its own peak, cold or warm
    big = dataclasses.replace(s, max_num_batched_tokens=16384)
    assert (sizing.size_deployment(llama, a40, big, "0.26.0").activation_gib_per_gpu
            == sizing.size_deployment(llama, a40, dataclasses.replace(big, compile_cache="warm"),
                                      "0.26.0").activation_gib_per_gpu)


def test_only_the_first_pipeline_stage_holds_the_embedding_and_its_compile_peak():
    # GLM-4.7-FP8 at PP8 on A100-80GB (vllm#32105, set 19): stage 0's peak is raised to its 1.16 GiB embedding share,
    # the other seven stages keep their forward pass
    row = next(lg for lg in LOGS if lg.url == "https://github.com/vllm-project/vllm/issues/32105")
    assert row.settings.pp == 8 and compile_state(row) == "unknown"
    warm = score(dataclasses.replace(row, settings=dataclasses.replace(row.settings, compile_cache="warm"))).sized
    assert (round(score(row).sized.available_kv_gib, 2), round(warm.available_kv_gib, 2)) == (29.94, 29.94)

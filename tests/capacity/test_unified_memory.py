"""A device whose memory is the host's (GB10 of a DGX Spark): what its start-up depends on beyond the manifest
(issue 28: the GB10 rows of sets 10 and 13 keep 1.75 to 3.6 GiB more beside weights and KV cache than modelled)."""

from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import find_model
from startup_logs import load, size

LLAMA8 = find_model("meta-llama/Llama-3.1-8B-Instruct")


def _host_notes(s):
    return [n for n in s.notes if "shares its memory with the host" in n]


def test_a_gb10_sizing_says_the_host_decides_its_start_and_budget():
    # set 10's Gemma 4 AWQ run at --gpu-memory-utilization 0.85 of 121.63 GiB: vLLM needs 103.39 GiB of the host's
    # available RAM free when the engine starts (the repository's README logs 110.73 of 121.63 free)
    row = next(lg for lg in load() if lg.model.id == "cyankiwi/gemma-4-26B-A4B-it-qat-AWQ-INT4")
    (note,) = _host_notes(size(row))
    assert "it starts only if the host has 103.39 GiB (0.85 × 121.63) free" in note
    assert "the KV figures are an upper estimate that depends on the host's free RAM" in note


def test_a_gb10_note_names_a_cold_compiles_host_memory_among_what_the_budget_loses():
    # logs29: the profile's first forward pass compiles (a cold cache), and on an integrated GPU the budget loses the
    # fall in psutil's available RAM from the instance's creation to the profile's end (0.13.0 non_torch_increase,
    # 0.29.0 total_consumed): Inductor's and Triton's host memory is in it
    row = next(lg for lg in load() if lg.model.id == "cyankiwi/gemma-4-26B-A4B-it-qat-AWQ-INT4")
    assert _host_notes(size(row)) == [
        "GB10 shares its memory with the host: vLLM reads free memory there from the host's available RAM (psutil), "
        "so it starts only if the host has 103.39 GiB (0.85 × 121.63) free when the engine starts, and the KV budget "
        "also loses whatever the host allocates while vLLM loads and profiles (other processes, the engine's CPU-side "
        "memory, a cold torch.compile's host memory): the KV figures are an upper estimate that depends on the host's "
        "free RAM"]


def test_a_gpu_with_its_own_memory_gets_no_host_note():
    s = sizing.size_deployment(LLAMA8, sizing.Device("H100", 79.19, "nvidia", "hopper", 8), sizing.EngineSettings(),
                               "0.25.1")
    assert _host_notes(s) == []


def test_the_host_only_takes_from_the_budget_so_a_predicted_refusal_stands():
    # Llama-3.1-8B in BF16 at 0.2 of a GB10 (24.3 GiB): 14.99 GiB of weights, 9.01 GiB of KV cache against the 16.00 a
    # 131,072-token request needs; the host's allocations can only lower the budget further
    gb10 = sizing.Device("GB10", 121.63, "nvidia", "blackwell", 1, compute_capability=(12, 1))
    s = sizing.size_deployment(LLAMA8, gb10, sizing.EngineSettings(gpu_memory_utilization=0.2, max_model_len=131072,
                                                                compile_cache="warm"),
                               "0.25.1")
    assert (s.verdict, s.starts, round(s.available_kv_gib, 2), round(s.needed_kv_gib, 2)) == (
        "refuses", False, 9.01, 16.0)
    assert len(_host_notes(s)) == 1


def test_the_extensible_kv_cache_on_a_gb10_provides_for_no_later_host_allocation():
    # 0.34.0: request_memory skips the start-up check for the extensible cache, which measure_kv_cache_blocks sizes from
    # device_memory_info (psutil's available RAM on an integrated GPU) after the warm-up
    gb10 = sizing.Device("GB10", 121.63, "nvidia", "blackwell", 1, compute_capability=(12, 1))
    s = sizing.size_deployment(LLAMA8, gb10, sizing.EngineSettings(max_model_len=8192), "0.34.0")
    assert s.gpu_memory_utilization == 1.0
    assert _host_notes(s) == [
        "GB10 shares its memory with the host: vLLM's extensible KV cache (0.34+) is sized from the host's available "
        "RAM after the warm-up (psutil) and keeps only its own peak free, so what the host allocates later is not "
        "provided for; vLLM advises setting --gpu-memory-utilization on a unified-memory device. The KV figures are "
        "an upper estimate that depends on the host's free RAM"]

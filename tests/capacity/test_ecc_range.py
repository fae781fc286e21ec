"""A GDDR GPU whose CUDA total depends on its ECC setting (ecc1): a refusal is sure only at the ECC-off figure too."""

import dataclasses

from shardwise.rules.capacity.sizing import Device, EngineSettings, range_note, size_deployment
from shardwise.rules.catalog import find_model, gpus

ECC_CARDS = ("A40", "L40", "L40S", "L20")
GA102_24GB = ("A10G", "A10")


def test_48gb_gddr6_cards_range_from_ecc_on_to_off():
    """The catalog's figure is the ECC-on total; 47.50 GiB (the RTX 6000 Ada's and RTX A6000's, ECC off) the high."""
    table = gpus()
    assert {name: (table[name].memory_gib, table[name].memory_gib_ecc_off) for name in ECC_CARDS} == {
        "A40": (44.43, 47.5), "L40": (44.31, 47.5), "L40S": (44.31, 47.5), "L20": (44.31, 47.5)}
    # HBM parts and the cards the catalog already takes with ECC off have one figure; review27: the 24 GB GA102 data
    # centre cards range to the RTX A5000's 23.66 GiB (the same board, ECC off); mend6: T4 and L4 (ECC on by default)
    # to their ECC-on total + 1.067 x the 1/16 of check bits (the share the twins measured both ways move by)
    assert [n for n, g in table.items() if g.memory_gib_ecc_off is not None] == list(
        n for n in table if n in (*ECC_CARDS, *GA102_24GB, "T4", "L4"))
    assert {n: (table[n].memory_gib, table[n].memory_gib_ecc_off) for n in (*GA102_24GB, "RTX-A5000", "T4", "L4")} == {
        "A10G": (22.06, 23.66), "A10": (22.06, 23.66), "RTX-A5000": (23.66, None), "T4": (14.75, 15.82),
        "L4": (21.99, 23.59)}
    # the GDDR7 RTX PRO Blackwell cards keep one figure: their ECC cost was not found in NVIDIA's documents
    assert {n: (g.memory_gib_ecc_off, g.memory_gib_ecc_on) for n, g in table.items() if n.startswith("RTX-PRO")} == {
        n: (None, None) for n in table if n.startswith("RTX-PRO")}


def test_a10g_kv_cache_at_the_edge():
    """review27: Llama-3.1-8B at TP1 on one A10G, vLLM 0.11.0, 0.9: about 4.24 GiB (-0.9/+0.8) of KV cache with ECC
    on, 5.68 (+-0.9) with ECC off; 48,000 tokens (5.86 GiB) refused with ECC on only may refuse (blocked before),
    56,000 (6.84 GiB) refuses at both, 40,000 (4.88 GiB) is within the ECC-on band already (no note)."""
    a10g = Device.of(gpus()["A10G"])
    assert (a10g.memory_gib, a10g.memory_gib_high) == (22.06, 23.66)
    at = [_sized("meta-llama/Llama-3.1-8B-Instruct", a10g, max_model_len=n) for n in (40000, 48000, 56000)]
    assert [(round(s.needed_kv_gib, 2), s.kv_verdict, range_note(s)) for s in at] == [
        (4.88, "may-refuse", ""),
        (5.86, "may-refuse", "22.06 GiB is the GPU's CUDA total with ECC on, which the sizing takes; with ECC off it "
                             "is 23.66 GiB, where vLLM may start: a manifest does not say which"),
        (6.84, "refuses", "")]


def test_device_takes_the_high_figure_only_with_the_catalogs_memory():
    l40s = gpus()["L40S"]
    assert Device.of(l40s).memory_gib_high == 47.5
    assert Device.of(l40s, 44.31).memory_gib_high == 47.5
    assert Device.of(l40s, 46.0).memory_gib_high is None  # a measured or labelled figure: that one
    assert Device.of(gpus()["H100-SXM-80GB"]).memory_gib_high is None
    assert Device.of(gpus()["RTX-6000-Ada"]).memory_gib_high is None


def _sized(model: str, dev: Device, **kw):
    return size_deployment(find_model(model), dev, EngineSettings(**kw), "0.11.0")


def test_weights_refused_with_ecc_on_only_may_refuse():
    """Mistral-Small-24B in bf16 (43.9 GiB, ±1.2) at 0.95: refused at 0.95 × 44.31 = 42.09 GiB, not at 0.95 × 47.50
    = 45.12 GiB. Every figure stays the catalog's (what plan prints)."""
    l40s = Device.of(gpus()["L40S"])
    one = dataclasses.replace(l40s, memory_gib_high=None)
    kw = {"gpu_memory_utilization": 0.95, "max_model_len": 4096}
    low = _sized("mistralai/Mistral-Small-24B-Instruct-2501", one, **kw)
    assert (low.weights_fit_band, low.kv_verdict, low.verdict) == ("refuses", "refuses", "refuses")
    s = _sized("mistralai/Mistral-Small-24B-Instruct-2501", l40s, **kw)
    assert (s.weights_fit_band, s.kv_verdict, s.verdict, s.margin_verdict) == ("may-refuse",) * 4
    assert (s.gpu_memory_gib, round(s.usable_gib_per_gpu, 2), round(s.available_kv_gib, 2), s.starts) == (
        44.31, 42.09, -2.46, False)
    assert s.notes[-1] == range_note(s) == (
        "44.31 GiB is the GPU's CUDA total with ECC on, which the sizing takes; with ECC off it is 47.50 GiB, "
        "where vLLM may start: a manifest does not say which")
    assert range_note(low) == ""


def test_weights_beyond_the_ecc_off_figure_still_refuse():
    """Mistral-Small-3.1-24B (44.76 GiB, ±1.2) at 0.9: 0.9 × 47.50 = 42.75 GiB refuses too, and no note."""
    s = _sized("mistralai/Mistral-Small-3.1-24B-Instruct-2503", Device.of(gpus()["L40S"]), max_model_len=4096)
    assert (s.weights_fit_band, s.verdict) == ("refuses", "refuses")
    assert range_note(s) == ""


def test_kv_cache_at_the_edge():
    """Llama-3.1-70B FP8 at TP2 on L40S: about 5.27 GiB (±1.6) of KV cache per GPU with ECC on, 8.15 (±1.7) with
    ECC off; 61,440 tokens (9.38 GiB) may refuse, 65,536 (10.0 GiB) refuses at both."""
    l40s = Device.of(gpus()["L40S"])
    off = dataclasses.replace(l40s, memory_gib=47.5, memory_gib_high=None)
    at = {n: _sized("meta-llama/Llama-3.1-70B-Instruct", l40s, tp=2, quantization="fp8", max_model_len=n)
          for n in (61440, 65536)}
    high = _sized("meta-llama/Llama-3.1-70B-Instruct", off, tp=2, quantization="fp8", max_model_len=61440)
    assert (round(at[61440].available_kv_gib, 2), round(high.available_kv_gib, 2)) == (5.27, 8.15)
    assert [(round(s.needed_kv_gib, 2), s.kv_verdict, bool(range_note(s))) for s in at.values()] == [
        (9.38, "may-refuse", True), (10.0, "refuses", False)]


def test_workstation_cards_have_their_ecc_on_figure_below_the_catalogs():
    """The RTX A6000 and RTX 6000 Ada ship with ECC off (the catalog's 47.50 GiB); with it on they report about the
    A40's and L40S's totals, the figure a finding that fewer GPUs serve is judged at (SW104)."""
    table = gpus()
    assert {n: (g.memory_gib, g.memory_gib_ecc_on) for n, g in table.items() if g.memory_gib_ecc_on is not None} == {
        "RTX-A6000": (47.5, 44.43), "RTX-6000-Ada": (47.5, 44.31),
        # mend6: the RTX A5000 is the A10's board (22.06 GiB with ECC on); the RTX 4000 Ada's 1.25 GiB of check bits
        "RTX-A5000": (23.66, 22.06), "RTX-4000-Ada": (19.54, 18.21)}
    assert Device.of(table["RTX-A6000"]).memory_gib_low == 44.43
    assert Device.of(table["RTX-A6000"], 46.0).memory_gib_low is None
    assert Device.of(table["L40S"]).memory_gib_low is None


def test_t4_kv_cache_refused_with_ecc_on_only_may_refuse():
    """mend6: Llama-3.2-3B in fp16 at TP1 on one T4 (GCP, AWS g4dn: ECC on by default), vLLM 0.11.0, 0.9, 70,000 tokens
    (7.48 GiB of KV cache for one request): refused at the ECC-on 14.75 GiB, not at the 15.82 GiB with ECC off, so it
    may refuse (blocked before); 80,000 (8.54 GiB) refuses at both."""
    t4 = Device.of(gpus()["T4"])
    one = dataclasses.replace(t4, memory_gib_high=None)
    kw = {"max_model_len": 70000, "dtype": "half"}
    assert _sized("meta-llama/Llama-3.2-3B-Instruct", one, **kw).kv_verdict == "refuses"
    at = [_sized("meta-llama/Llama-3.2-3B-Instruct", t4, max_model_len=n, dtype="half") for n in (70000, 80000)]
    assert [(round(s.needed_kv_gib, 2), s.kv_verdict, range_note(s)) for s in at] == [
        (7.48, "may-refuse", "14.75 GiB is the GPU's CUDA total with ECC on, which the sizing takes; with ECC off it is "
                             "15.82 GiB, where vLLM may start: a manifest does not say which"),
        (8.54, "refuses", "")]

"""``shardwise plan`` lowers vLLM's default ``--max-num-seqs`` on a smaller layout before it widens the engine
(maxseqs53, issue 28): where what follows the cap (the profile's sampler over the vocabulary above all) is what keeps
one GPU out, the layout is tried at half the default (never below the release's own default for its smallest GPUs,
256), never below the declared load's share of a replica nor the sequences its KV cache holds; plan says so and writes
the cap, and SW104 names it as advisory on a sharded manifest that leaves the cap at the default."""

from __future__ import annotations

import tempfile
from pathlib import Path

from shardwise.rules.app.emit import emit_manifest
from shardwise.rules.app.plan import PlanRequest, make_plan, plan_json, plan_text
from shardwise.rules.capacity.layout import lowered_caps, lowest_default_cap

GEMMA = "google/gemma-3-27b-it"


def _chosen(**kw):
    plan = make_plan(PlanRequest(model=GEMMA, gpu=kw.pop("gpu", "H100"), **kw))
    assert plan.chosen is not None
    c = plan.chosen
    s = c.sizing
    return plan, (c.parallel.text(), s.max_num_seqs, c.max_num_seqs_lowered_from, round(s.kv_cache_gib_per_gpu, 2),
                  s.max_model_len, c.holds)


def test_the_caps_tried_are_one_halving_never_below_the_releases_small_gpu_default():
    from shardwise.rules.vllm.versions import resolve

    v = resolve("0.11.1", None)
    assert [lowered_caps(d, lowest_default_cap(v, d)) for d in (1024, 512, 256)] == [[512], [256], []]
    assert lowered_caps(1024, 1) == [512, 256, 128, 64, 32, 16, 8, 4, 2, 1]


def test_gemma3_27b_on_one_h100_at_0_11_1_lowers_the_cap_before_a_second_gpu():
    """vLLM 0.11.1 sorts the profile's 1,024 sampler rows of 262,208 logits with PyTorch (9.63 GiB): one H100 keeps
    7.45 GiB ± 6.75 of KV cache and plan gave TP2. At 512 rows (4.86 GiB) it keeps 12.22 GiB ± 5.08: TP1 at a
    lowered --max-model-len of 45,056, and the manifest it writes carries --max-num-seqs 512."""
    plan, got = _chosen(vllm_version="0.11.1")
    assert got == ("TP1×PP1", 512, 1024, 12.22, 45056, 1)
    assert round(plan.chosen.sizing.sampler_gib_per_gpu, 2) == 4.86
    rec = plan.recommended()
    assert rec is not None and (rec["max_num_seqs"], rec["max_num_seqs_lowered"], rec["max_num_seqs_default"]) == (
        512, True, False)
    assert "--max-num-seqs 512 (at vLLM's default of 1,024" in rec["text"]
    assert plan_json(plan)["recommended"]["max_num_seqs"] == 512
    text = plan_text(plan)
    assert ("max_num_seqs lowered from vLLM's default of 1,024 on TP1×PP1 (512): at the default, what follows the cap "
            "(the profile's sampler above all) leaves too little KV cache") in text.splitlines()
    manifest = emit_manifest(plan)
    assert "- --max-num-seqs\n" in manifest and "- '512'\n" in manifest
    # lint of what plan wrote sizes the same 512 rows: plan and lint agree, nothing blocks
    from shardwise.rules.app.run import LintOptions, lint_report

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plan.yaml"
        path.write_text(manifest)
        report = lint_report([str(path)], LintOptions(jobs=1))
    assert [f.code for f in report.findings if f.blocking] == []
    assert not [f for f in report.findings if f.code == "SW104"]


def test_gemma3_27b_on_one_h100_at_0_16_0():
    """0.16.0 (still the PyTorch sort, 9.63 GiB at 1,024 rows) leaves one H100 9.99 GiB of KV cache at the default
    cap; with the sort's measured 3 % band (tokens35) that serves the model once --max-model-len is lowered to 20,480,
    and the doctrine lowers the context on one GPU first: the cap stays at vLLM's default."""
    plan, got = _chosen(vllm_version="0.16.0")
    assert got == ("TP1×PP1", 1024, None, 9.99, 20480, 1)
    assert round(plan.chosen.sizing.sampler_gib_per_gpu, 2) == 9.63


def test_with_a_load_the_cap_that_fits_one_gpu_gives_one_gpu_replicas():
    """GKE's NeMo-RL Gemma 3 27B sample read as a load (4 sequences of 4,096) at 0.11.1: two TP1 replicas at 512 rows
    (3 sequences each beyond the band) on p5.4xlarge, where plan gave one TP2 replica on a p5.48xlarge. TP1 holds the
    load at the default 1,024 rows too (one sequence each: 5 replicas with headroom), so the lower cap is taken
    because it holds the same load on fewer replicas (plan._fewer_replicas)."""
    plan, got = _chosen(vllm_version="0.11.1", p95_context=4096, concurrency=4)
    assert got == ("TP1×PP1", 512, 1024, 12.22, 45056, 3)
    ld = plan.chosen.load
    assert ld is not None
    assert (ld.replicas_needed, ld.replicas, ld.gpus, ld.nodes, ld.instance_type, ld.usd_per_hour) == (
        2, 2, 2, 2, "p5.4xlarge", 13.76)


def test_the_declared_concurrency_forbids_a_cap_below_a_replicas_share():
    """At --max-model-len 32,768 one H100 holds no sequence beyond the band at 1,024 rows and at 512 rows holds 513
    of a 16-token p95 context (a short classification prompt: with real contexts the lowered cap is far above what
    one GPU holds, so only such a load reaches the floor). 512 sequences: one replica's share is 512, TP1 at 512 (and
    the headroom replica). 513: one replica would hold them all but run only 512 at once, so the cap is not lowered
    below the load's share and plan widens the engine (TP2 at the default 1,024)."""
    req = dict(vllm_version="0.11.1", max_model_len=32768, p95_context=16)
    plan, got = _chosen(**req, concurrency=512)
    assert got == ("TP1×PP1", 512, 1024, 12.22, 32768, 513)
    assert plan.chosen.load is not None and (plan.chosen.load.replicas_needed, plan.chosen.load.replicas) == (1, 2)
    plan, got = _chosen(**req, concurrency=513)
    assert got[:3] == ("TP2×PP1", 1024, None)
    tp1 = plan.candidates[0]
    assert (tp1.parallel.text(), tp1.sizing.max_num_seqs, tp1.max_num_seqs_lowered, tp1.fits) == (
        "TP1×PP1", 1024, False, False)


def test_a_default_already_low_is_not_lowered():
    """On an A100 80 GB vLLM's default is 256 (the 1,024 tier leaves A100s out, 0.9.2+): one GPU serves Gemma 3 27B
    at its 131,072 tokens with it, and nothing is lowered. And vLLM 0.11.0, whose FlashInfer sampler costs 4.08 GiB at
    1,024 rows, keeps the default on one H100."""
    _, got = _chosen(vllm_version="0.11.1", gpu="A100-80GB")
    assert got == ("TP1×PP1", 256, None, 17.31, 131072, 1)
    _, got = _chosen(vllm_version="0.11.0")
    assert got[:3] == ("TP1×PP1", 1024, None)


def test_a_cap_the_request_gives_is_never_changed():
    """--max-num-seqs 1024 given: plan sizes what it is asked, and one H100 at the default's sampler is not enough."""
    plan = make_plan(PlanRequest(model=GEMMA, gpu="H100", vllm_version="0.11.1", max_num_seqs=1024))
    assert plan.chosen is not None and plan.chosen.parallel.text() == "TP2×PP1"
    assert not any(c.max_num_seqs_lowered for c in plan.candidates)

"""The plan cases of ``data/plan_cases.json``, and how ``shardwise plan`` scores against them.

One place reads the cases and scores them: ``test_plan_cases.py`` holds ``plan`` to each one, and
``benchmarks/bench_plan_cases.py`` prints the scoreboard (right or wrong per case, with what differs, and totals by
kind of case).

Each case is a public recipe (a vLLM recipe, a model card's serving command, vLLM's documentation): the model, the
GPU and node, the release, the load the recipe states and what it runs, given to ``plan`` as its options; and the
plan a reviewer would accept (``expect``): the layout (``engine_text``: ``TP1``, ``TP8 × PP2``, ``TP1 × DP8 with
expert parallelism``; None where no layout should be recommended), whether it starts, the max_model_len, the
mandatory findings (exact), findings that must and must not appear (any level), and for a declared load the
replicas, GPUs, nodes, the instance type billed and its price, or why there is none. ``error``: ``plan`` refuses the
request (a PlanError whose message holds the text). ``lint``: the recommended layout, emitted as a manifest with the
load declared, lints without a mandatory finding (plan and lint agree). ``manifest``: the recipe's own manifest,
vendored under ``data/recipes/`` (``PROVENANCE.json`` gives repository, path, commit and licence); ``lint`` of it must
give exactly the mandatory findings ``expect['manifest_mandatory']`` says, the verdict ``plan`` gives that layout.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from shardwise.rules.app.plan import Plan, PlanError, PlanRequest, engine_text, make_plan

DATA = Path(__file__).with_name("data") / "plan_cases.json"
# the second set, from recipes the first does not use (GKE tutorials, production-stack, llm-d, vLLM's newer guides)
DATA_2 = Path(__file__).with_name("data") / "plan_cases_2.json"
# the third set, from sources neither cites (KubeAI's model catalog, KAITO's workspaces, AIBrix, llm-on-gke)
DATA_3 = Path(__file__).with_name("data") / "plan_cases_3.json"
# the fifth set (issue 28, plancases5), from sources none of them cites (BentoVLLM, dstack, SkyPilot's other recipes)
DATA_5 = Path(__file__).with_name("data") / "plan_cases_5.json"
# the sixth set (issue 28, plancases6), from vLLM recipes none of them cites (Qwen3.5, gemma-4, Kimi-K2.5, Nemotron 3,
# GLM-5.1, Seed-OSS, Qwen3 on MI300X)
DATA_6 = Path(__file__).with_name("data") / "plan_cases_6.json"
# the seventh set (issue 28, plancases7), from NVIDIA Dynamo's recipes, AWS's AI on EKS guides and vLLM GitHub issues
DATA_7 = Path(__file__).with_name("data") / "plan_cases_7.json"
# the eighth set (issue 28, plancases8), from the vLLM blog's Llama 4 post, Moonshot AI's Kimi-K2 deployment guidance,
# the GLM-4.5 README, vLLM's Expert Parallel Deployment doc, the Mistral-Small-3.2 and gpt-oss-20b model cards and
# vLLM issue 6689
DATA_8 = Path(__file__).with_name("data") / "plan_cases_8.json"
# the ninth set (issue 28, plancases9), from vLLM recipes none of them cites (ERNIE 4.5, Llama 3.1 on ROCm, MiniMax-M2.5,
# the Qwen3 SageMaker guides, Llama 3.3 70B and Qwen3-235B on MI355, Llama 4 Scout on Hopper) and llm-d's
# inference-scheduling guide
DATA_9 = Path(__file__).with_name("data") / "plan_cases_9.json"
# the tenth set (issue 28, plancases10), from vLLM recipes none of them cites (Hunyuan-A13B, Kimi-Linear, GLM-4.5V/4.6V,
# the AMD guides for Llama 3.3 70B, MiniMax-M2, Qwen3-Next and Llama 4 Scout, Llama 3.1 405B on MI355, DeepSeek-R1 FP4
# on B200) and KAITO's Qwen2.5-Coder-7B workspace and Mistral-7B InferenceSet
DATA_10 = Path(__file__).with_name("data") / "plan_cases_10.json"
# the eleventh set (issue 28, plancases11), from sources none of them cites (GKE's samples for Gemma 3 27B on A100 40GB,
# Llama 3.3 70B on L4 and p5, Llama 3.1 8B on L4 and Llama 4 Maverick on H200; the vLLM blog's PTPC-FP8 post; vLLM's
# recipe files for GLM-4.6 and Nemotron 3 Ultra)
DATA_11 = Path(__file__).with_name("data") / "plan_cases_11.json"
# the twelfth set (issue 28, plancases12), from vLLM's recipe files none of them cites (Qwen2.5-VL-72B, Qwen3-VL-235B,
# ERNIE 4.5, Kimi-K2 and DeepSeek-V3.1 on MI300X, MiniMax-M2.1, GLM-5.2, Gemma 4 E2B, Qwen3.5-0.8B, Kimi-Linear)
DATA_12 = Path(__file__).with_name("data") / "plan_cases_12.json"
# the thirteenth set (issue 28, plancases13), from vLLM's recipe files none of them cites (DeepSeek-V3.2-Exp, DeepSeek-V3
# FP4, Kimi-K2.6, GLM-4.5, MiniMax-M2.5) and SkyPilot's tasks (Maverick FP8 over two nodes with Ray, Qwen2.5 72B and 7B)
DATA_13 = Path(__file__).with_name("data") / "plan_cases_13.json"
# the fourteenth set (issue 28, plancases14), from vLLM's recipe files none of them cites (Qwen3-Coder-480B, MiniMax-M2.7,
# Phi-4-mini, Qwen3-1.7B, the DeepSeek-V3.2-Exp guide, Kimi-K2.7-Code), NVIDIA Dynamo's DeepSeek-R1 FP4 recipe on GB200,
# LeaderWorkerSet's vLLM example and KubeAI's Tulu 3 8B and DeepSeek-R1 MI300X manifests
DATA_14 = Path(__file__).with_name("data") / "plan_cases_14.json"
# the fifteenth set (issue 28, plancases15), from vLLM's recipe files none of them cites (Qwen3.8-27B on RTX 5090 and
# GB300, LFM2.5-1.2B-Instruct, Hunyuan-A13B's yaml at its benchmark load), KAITO's workspaces (DeepSeek-V3-0324 over six
# 2-GPU VMs, Llama 3.1 8B as DP4, Phi-4, DeepSeek-R1-Distill-Qwen-14B), GKE's NeMo-RL Gemma 3 27B sample and NVIDIA
# Dynamo's 16-GPU GB200 DeepSeek-R1 FP4 recipe
DATA_15 = Path(__file__).with_name("data") / "plan_cases_15.json"
# the sixteenth set (issue 28, plancases13 of 2026-12-06), from sources none of them cites: KServe's LLMInferenceService
# samples (speculative decoding on H100, L40S, A100 40GB and A10G; Nemotron 3 Ultra TP8 + EP; DP16 + EP over two
# nodes), NVIDIA Dynamo's recipes none cites (Llama 3.3 70B disaggregated, gpt-oss-120b, DeepSeek-R1 DP8 + EP on H200
# and GB200, Qwen3.5-122B, Kimi-K2.6) and GitHub issues that state what ran or refused (vLLM 10517, SubgraphRAG 19,
# Qwen3-VL 1489)
DATA_16 = Path(__file__).with_name("data") / "plan_cases_16.json"
# the seventeenth set (issue 28, plancases14 of 2026-12-06), from sources none of them cites: the GKE inference reference
# architecture's vLLM samples (Gemma 3/4, gpt-oss-20b, Llama 3.3 70B, Llama 4 Scout, Qwen3-32B on H100, H200, L4 and
# RTX PRO 6000), vLLM issues and pull requests that state what ran or failed (16712, 16330, 22140, 29240, recipes 96 and
# 394), QwenLM/Qwen3 issue 1387 and cloudrift-ai/emmy's H200 recipes
DATA_17 = Path(__file__).with_name("data") / "plan_cases_17.json"
# the eighteenth set (issue 28, plancases15 of 2026-12-06), from sources none of them cites: KAITO's workspace examples
# on one A100 80 GB, vLLM's recipe files for Kimi-K3 (B200 over two nodes, B300, GB300, MI355X, H200), Kimi-K2-Thinking,
# GLM-4.5V / 4.6V and LFM2.5, NVIDIA Dynamo's Qwen3-32B YaRN and Llama 3.3 70B multi-node recipes, AIBrix's DeepSeek-R1
# on two H20 nodes, llm-d's optimized-baseline reports and vLLM issues 17469 and 18156
DATA_18 = Path(__file__).with_name("data") / "plan_cases_18.json"
# the nineteenth set (issue 28, plancases17 of 2026-12-06), from sources none of them cites: GKE's samples (the ADK Llama
# 3.1 8B on L4, Gemma 1/2/3 on L4, A100 and H100, the Llama 4 base checkpoints, Llama 3.1 70B on TPU v6e), llm-d's guides
# (GLM-5.2-FP8 DP8 + EP on H200, DeepSeek-V3 DP16 + EP on MI355X, DeepSeek-R1-0528 DP16 + EP on GB200, gpt-oss-120b P/D
# on H200 and at 0.9 on H100), KAITO's custom-config workspace, a Red Hat AI Inference Server report, vLLM's recipe
# config files for gpt-oss-120b and Llama 3.3 70B FP8/FP4 and a blog's gpt-oss-120b on one MI300X
DATA_19 = Path(__file__).with_name("data") / "plan_cases_19.json"
# the twentieth set (issue 28, plancases20 of 2026-12-06), from sources none of them cites: GKE's samples (Gemma 7B with an
# fp8_e5m2 cache at 1,200 tokens and at 600 on one L4, Gemma 2 2B on L4, Gemma 2B on an A100 80 GB, the llm-serving-llama
# Maverick Instruct on H200 at v0.10.0), production-stack's CoreWeave Helm values (gpt-oss-120b TP2, Gemma 3 27B at 0.80,
# Qwen3-Next-80B-A3B FP8 TP2 at 0.60, gpt-oss-20b, on H100 at v0.15.1) and KAITO's Mistral-7B-Instruct workspace
DATA_20 = Path(__file__).with_name("data") / "plan_cases_20.json"
# the twenty-first set (issue 28, plancases21 of 2026-12-07), from sources none of them cites: vLLM's recipes for
# DeepSeek-R1-0528 on B200 (TP8 and TP4 + EP, a batch-16 load), DeepSeek-R1 on MI300X (a 128-way load), Qwen3.6-35B-A3B-FP8
# (DP8 + EP, TP8 with MTP), Llama 4 Scout and Maverick on MI300X, Llama 3.1 8B on MI300X and MI355X, Qwen3-14B's YaRN
# limits; llm-d's wide-EP DeepSeek-R1-0528 (DP16 + EP over two H200 nodes) and GLM-5.2-FP8 aggregate (TP8)
DATA_21 = Path(__file__).with_name("data") / "plan_cases_21.json"
# the twenty-second set (issue 28, plancases22 of 2026-12-07), from sources none of them cites: vLLM's GLM-4.5 guide
# (GLM-4.5-Air-FP8 on H100, GLM-4.5-FP8 at its batch-16 benchmark on H200), its QwQ-32B, Llama-3.1-8B (base) and
# Mistral-7B-Instruct-v0.2 recipe files (limits), KServe's dp-ep samples (Qwen3-Coder-30B-A3B DP8/DP16 + EP,
# DeepSeek-V2-Lite DP8 + EP), NVIDIA Dynamo's DeepSeek-R1 DEP16 prefill/decode with EPLB, llm-d's GB200 (A4X) wide-EP
# prefill, AIBrix's two-node Ray fleet and production-stack's tutorial values 02 and 04
DATA_22 = Path(__file__).with_name("data") / "plan_cases_22.json"
# the twenty-third set (issue 28, plancases23 of 2026-12-07), from sources none of them cites: kubernetes-sigs/lws's
# LeaderWorkerSet and DisaggregatedSet basic examples (Llama-3.1-405B TP8 x PP2 over two nodes, Llama-3.1-8B P/D), KServe's
# DeepSeek-R1-0528 DP32 / DP16 + EP samples and single-GPU samples (Qwen2.5-7B on AMD and with KV offloading,
# Qwen3-Coder-30B-A3B-FP8), vLLM's AMD Qwen3-Next guide and its Qwen3-VL-30B-A3B and Gemma 3 12B / 4B recipe files
DATA_23 = Path(__file__).with_name("data") / "plan_cases_23.json"
# the twenty-fourth set (issue 28, plancases24 of 2026-12-07), from sources none of them cites: KServe's DeepSeek-R1-0528
# P/D sample with a pplx decode pool and its Qwen3-Coder-30B-A3B DP16 + EP NVSHMEM sample, llm-d's wide-EP base manifests
# (DeepSeek-R1-0528 DP8 + EP, DeepEP HT and LL) and AMD DeepSeek-V3 MoRI prefill, NVIDIA Dynamo's vllm-dsr1-8gpu recipe,
# GKE's Gemma 4 E2B / 31B and Qwen3-32B (RTX PRO 6000) runtimes and vLLM's DeepSeek-R1-Distill-Llama-70B, Gemma 7B and
# Llama 3.2 1B recipe files
DATA_24 = Path(__file__).with_name("data") / "plan_cases_24.json"
# the twenty-sixth set (issue 28, plancases26 of 2026-12-07), from a source none of them cites: GPUStack's performance lab
# (gpt-oss-120b on H100 at 0.10.2, Qwen3-235B-A22B-Instruct-2507 bf16 and FP8 on H100 at 0.11.0, GLM-4.6 on H200 at
# 0.11.0, DeepSeek-V3.2 TP8 and DP8 + EP on H200 at 0.13.0)
DATA_26 = Path(__file__).with_name("data") / "plan_cases_26.json"
ROOT = Path(__file__).resolve().parents[2]
RECIPES = Path(__file__).with_name("data") / "recipes"  # the recipes' own manifests, vendored with their provenance


@dataclasses.dataclass(frozen=True)
class Case:
    """One plan case: where it comes from, what plan is asked, and the plan a reviewer accepts."""

    id: str
    kind: str  # "1-gpu", "dense", "moe", "multi-node", "gb200", "mi300x", "vl", "hybrid", "limits", "price"
    source: str
    recipe: str
    request: dict[str, Any]
    expect: dict[str, Any]
    why: str
    open_miss: str | None = None
    manifest: str | None = None  # a file under data/recipes: the recipe's manifest, linted beside the plan
    #: why the source does not decide what a reviewer accepts (two layouts it does not weigh against each other...):
    #: the case stays, counted wrong while plan differs from the source, and the scoreboard says so
    ambiguous: str | None = None


def load(*paths: Path) -> list[Case]:
    """The cases of the given files, in order (default: every set)."""
    out: list[Case] = []
    for path in paths or (DATA, DATA_2, DATA_3, DATA_5, DATA_6, DATA_7, DATA_8, DATA_9, DATA_10, DATA_11,
                                   DATA_12, DATA_13, DATA_14, DATA_15, DATA_16, DATA_17, DATA_18,
                                   DATA_19, DATA_20, DATA_21, DATA_22, DATA_23, DATA_24, DATA_26):
        doc = json.loads(path.read_text())
        out += [Case(id=c["id"], kind=c["kind"], source=c["source"], recipe=c["recipe"], request=c["plan"],
                     expect=c["expect"], why=c["why"], open_miss=c.get("open_miss"), manifest=c.get("manifest"),
                     ambiguous=c.get("ambiguous"))
                for c in doc["cases"]]
    return out


def _mandatory_codes(path: str) -> list[str]:
    """The codes of the mandatory findings ``lint`` gives one file."""
    from shardwise.rules.app.run import LintOptions, lint_report

    report = lint_report([path], LintOptions(jobs=1))
    return sorted({f.code for f in report.findings if f.level == "mandatory" and not f.suppressed})


def _lint_mandatory(plan: Plan) -> list[str]:
    """The mandatory findings ``lint`` gives the recommended layout written as a manifest (the load declared)."""
    from shardwise.rules.app.emit import emit_manifest

    text = emit_manifest(plan)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "plan.yaml")
        Path(path).write_text(text)
        return _mandatory_codes(path)


def _price(instance_type: str | None) -> float | None:
    """One node's on-demand price per hour in the catalog."""
    from shardwise.rules.catalog import find_instance

    return find_instance(instance_type).price_per_hour_usd if instance_type else None


def outcome(case: Case) -> dict[str, Any]:
    """What ``plan`` says for the case, in the terms of ``expect``."""
    try:
        plan = make_plan(PlanRequest(**case.request))
    except PlanError as e:
        return {"error": str(e)}
    shown = plan.shown
    s = shown.sizing
    codes = [f.code for f in shown.findings]
    out: dict[str, Any] = {
        "layout": engine_text(plan.chosen.parallel) if plan.chosen is not None else None,
        "starts": shown.starts,
        "world": shown.parallel.world,
        "nodes_per_replica": -(-shown.parallel.world // plan.node.node.gpus),
        "max_model_len": s.max_model_len,
        "max_model_len_lowered": shown.max_model_len_lowered,
        "mandatory": sorted({f.code for f in shown.findings if f.level == "mandatory"}),
        "codes": sorted(set(codes)),
    }
    c = plan.chosen
    if c is not None and c.load is not None:
        ld = c.load
        out.update(replicas=ld.replicas, gpus=ld.gpus, nodes=ld.nodes, instance_type=ld.instance_type,
                   billed_as=ld.billed_as, usd_per_hour=ld.usd_per_hour, no_price=ld.no_price,
                   usd_per_node=_price(ld.instance_type) if ld.usd_per_hour is not None else None)
    if case.expect.get("lint") and c is not None:
        out["lint_mandatory"] = _lint_mandatory(plan)
    if case.manifest is not None:
        out["manifest_mandatory"] = _mandatory_codes(str(RECIPES / case.manifest))
    return out


def misses(case: Case, got: dict[str, Any]) -> list[str]:
    """What differs from the reviewer's plan (empty: right)."""
    e = case.expect
    out: list[str] = []
    if "error" in e or "error" in got:
        if "error" not in e:
            return [f"plan refused the request: {got['error']}"]
        if "error" not in got:
            return [f"plan made a plan ({got.get('layout')}), expected the error '{e['error']}'"]
        return [] if e["error"] in got["error"] else [f"error '{got['error']}' lacks '{e['error']}'"]
    for key in ("layout", "world", "nodes_per_replica", "starts", "max_model_len", "max_model_len_lowered", "mandatory", "replicas",
                "gpus", "nodes", "instance_type", "usd_per_hour", "usd_per_node"):
        if key in e and got.get(key) != e[key]:
            out.append(f"{key} {got.get(key)!r}, expected {e[key]!r}")
    for code in e.get("must", []):
        if code not in got["codes"]:
            out.append(f"no {code} (expected)")
    for code in e.get("must_not", []):
        if code in got["codes"]:
            out.append(f"{code} (must not appear)")
    for key in ("billed_as", "no_price"):
        if key in e and (got.get(key) is None or e[key] not in got[key]):
            out.append(f"{key} {got.get(key)!r} lacks {e[key]!r}")
    if e.get("lint") and got.get("lint_mandatory"):
        out.append(f"lint of the recommended layout: mandatory {got['lint_mandatory']}")
    if "manifest_mandatory" in e or "manifest_mandatory" in got:
        if got.get("manifest_mandatory") != e.get("manifest_mandatory"):
            out.append(f"lint of the recipe's manifest: mandatory {got.get('manifest_mandatory')!r}, expected "
                       f"{e.get('manifest_mandatory')!r}")
    return out


def scoreboard(cases: list[Case]) -> str:
    """Right or wrong per case, then totals by kind and in all."""
    lines: list[str] = []
    right: dict[str, list[bool]] = {}
    ambiguous = 0
    for case in cases:
        wrong = misses(case, outcome(case))
        right.setdefault(case.kind, []).append(not wrong)
        mark = "right" if not wrong else ("AMBIG" if case.ambiguous else "WRONG")
        ambiguous += bool(wrong and case.ambiguous)
        lines.append(f"{mark:5}  {case.id}" + (f": {'; '.join(wrong)}" if wrong else "")
                     + (f" (the source is ambiguous: {case.ambiguous})" if wrong and case.ambiguous else ""))
    lines.append("")
    for kind, oks in right.items():
        lines.append(f"{kind:10} {sum(oks)}/{len(oks)}")
    total = [ok for oks in right.values() for ok in oks]
    lines.append(f"{'all':10} {sum(total)}/{len(total)} right"
                 + (f" ({ambiguous} of the others ambiguous: the source does not decide)" if ambiguous else ""))
    return "\n".join(lines)

"""SW102: one max_model_len request does not fit the KV cache, so vLLM refuses to start."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..capacity.group import (
    context_parallel,
    encoder_length,
    engine_env,
    env_settings,
    gpu_name,
    prefill_context_parallel,
    refused_whatever_tp,
    sizing,
    vllm_version,
)
from ..capacity.sizing import (
    DTYPE_ASSUMED,
    EPLB_ASSUMED,
    LENGTH_BY_RELEASE,
    QUANT_CAPABILITY_UNSURE,
    ReplicaSizing,
    float32_assumed,
    range_note,
)
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject, hit
from ..engine.rule import CANNOT
from ..model import Inventory, ServingGroup, Undecidable, known
from ..vllm.mm_args import KWARGS_FLAG, LIMIT_FLAG
from ..vllm.versions import resolve
from ._capacity import command_crashes, fits_instead, layout_text, refused_whatever_tp_text
from ._unseen import held_back_hits

#: Flags whose value vLLM's argument parser refuses by release (``vllm/mm_args.py``): the finding points at the flag.
_FLAG_KEYS = ((LIMIT_FLAG, "limit_mm_per_prompt"), (KWARGS_FLAG, "mm_processor_kwargs"),
              ("--enable-eplb", "enable_eplb"), ("--dtype", "dtype"), ("--quantization", "quantization"))


#: sizing's refusal of a max_model_len above the model's limit (``max_model_len 200,000 is above the 131,072 tokens
#: meta-llama/Llama-3.1-8B-Instruct allows``): the limit, as a flag value
_ABOVE_LIMIT = re.compile(r"max_model_len [\d,]+ is above the ([\d,]+) tokens ")

class KvCapacityBelowMaxModelLen(GroupRule):
    meta = RuleMeta(
        code="SW102",
        name="kv-capacity-below-max-model-len",
        enforcement="advisory",
        mandatory_when="when the shortfall is larger than the estimate's error band, or vLLM rejects the setting",
        severity="critical",
        summary="The KV cache cannot hold one request of max_model_len tokens: vLLM will refuse to start.",
        why=(
            "At start-up vLLM profiles one forward pass, takes the weights, the activation peak and "
            "the memory outside PyTorch from gpu_memory_utilization × the GPU's memory, and refuses to "
            "start when what is left cannot hold one request of max_model_len tokens (or nothing is left). "
            "It also refuses a max_model_len above the model's own limit, and a multimodal flag its argument "
            "parser cannot read (--limit-mm-per-prompt takes KEY=VALUE pairs up to 0.8.4 and JSON only from 0.10; "
            "--mm-processor-kwargs takes JSON), and --enable-eplb without --enable-expert-parallel (from 0.10, its "
            "ParallelConfig raises \"enable_expert_parallel must be True to use EPLB.\") or with it on one rank (TP × "
            "DP of 1 from 0.10, TP × PCP × DP of 1 from 0.26: \"EPLB requires tensor, prefill-context, or data "
            "parallelism\"; a container that sets VLLM_DP_SIZE, which ParallelConfig reads where --data-parallel-size "
            "is 1, leaves that undecided). From vLLM 0.20 it also "
            "refuses a model with Mamba, Gated DeltaNet or other linear-attention layers whose max_num_seqs exceeds "
            "the KV cache's blocks (each decode sequence needs one block for its state, and full decode CUDA graphs "
            "are captured up to max_num_seqs). Leaving max_model_len at the model's maximum (often 128k tokens) is "
            "the usual cause. It refuses a model dtype too: `--dtype float16` (or `half`) for Gemma 2, Gemma 3, PLaMo "
            "2 and GLM-4 from 0.9.1 (\"does not support float16\"; Gemma 3 1B's `gemma3_text` from 0.10.2), on every "
            "GPU, and bfloat16 on a GPU below compute capability 8.0 (T4, V100) at every release, whether `--dtype "
            "bfloat16` says it or `--dtype auto` takes it from config.json (before 0.9.0; from 0.9.0 `auto` falls back "
            "to float16 there, and from 0.9.1 to float32 for those Gemma models, which SW101 sizes at 4 bytes a "
            "weight, and which an AWQ or GPTQ checkpoint of them refuses: \"torch.float32 is not supported for "
            "quantization method awq\"). It refuses a quantisation method below the method's minimum compute "
            "capability (\"The quantization method fp8 is not supported for the current GPU. Minimum capability: 80. "
            "Current capability: 75.\"), whether --quantization names it or the checkpoint's quantization_config "
            "does: FP8 on a T4 up to 0.13 (7.5 from 0.14.1) and on a V100, AWQ on a V100, gpt-oss's MXFP4 below 8.0, "
            "ModelOpt FP8 below 8.9 up to 0.14.1; that blocks where the release is known and was read, and cannot be "
            "decided where the release is assumed or was not read, or the method is known from the checkpoint's "
            "name only. shardwise estimates what vLLM measures, so the finding blocks only when "
            "the shortfall exceeds the estimate's error band; inside the band it says the server may refuse. Where "
            "--tensor-parallel-size is not known yet (a guide's <TP_SIZE>, a ConfigMap not in the inputs) but the "
            "nvidia.com/gpu a single-pod replica requests bound it, every TP they allow is judged: where each is "
            "surely refused (its weights, its KV cache, or a split of the heads vLLM refuses) and the weights fit "
            "at the largest, the deployment starts at no TP and this rule blocks, once, naming each; SW101 blocks "
            "instead where the weights may not fit even at the largest."
        ),
        bad_example="vllm serve meta-llama/Llama-3.1-8B-Instruct   # max_model_len defaults to 131072 on a 24 GB L4",
        good_example="vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192",
        remediation=(
            "Set --max-model-len to the longest context you serve (the message gives one that fits), use "
            "an fp8 KV cache, raise --gpu-memory-utilization, or shard over more GPUs; for a model with state layers "
            "whose max_num_seqs exceeds the Mamba cache blocks, lower --max-num-seqs to the blocks the message gives."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/configuration/conserving_memory.html",
            "https://github.com/shardwise/shardwise/blob/main/docs/capacity-model.md",
        ),
        scope="stack",  # needs the node pool the workload lands on
    )
    fields = ("max_model_len", "model")  # the line a finding points at

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether its KV cache holds one request of max_model_len tokens")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if g.encoder_config is not None and g.model is None:  # an encoder-only embedder: its length alone
            yield from _encoder_length(g)
            return
        try:
            s = sizing(g, config)
        except Undecidable as u:
            if u.prop != "tensor_parallel_size" or command_crashes(g, inv):
                raise
            every = refused_whatever_tp(g, config)  # every TP the pod's GPUs allow refused (mend17), or undecided
            if every is None:
                raise
            if every.kv_owns:  # the weights fit at the largest TP and its KV cache does not: this rule's refusal
                yield hit(g, refused_whatever_tp_text(g, every), g.at("tensor_parallel_size"), level="mandatory")
            return  # else SW101's: the weights may not fit even at the largest
        if s is None:
            return
        where = f"{s.model_id} at {layout_text(s)} on {gpu_name(g)} ({s.vllm_version_note})"
        flag = next((key for text, key in _FLAG_KEYS if s.refusal.startswith(f"{text} ")), None)
        if s.certain:  # a setting vLLM rejects, whatever the memory
            m = _ABOVE_LIMIT.match(s.refusal)  # what to change: a length the model allows
            fix = f"; set --max-model-len {m.group(1).replace(',', '')} or less" if m else ""
            yield hit(g, f"{where}: {s.refusal}; vLLM will refuse to start{fix}",
                      g.at(flag) if flag else None, level="mandatory")
            return
        if flag and not s.starts and s.verdict == "may-refuse":  # refused only for quotes an entrypoint may strip
            yield hit(g, f"{where}: {s.refusal}; vLLM refuses to start unless the image's entrypoint runs its args "
                         f"through a shell that removes the quotes", g.at(flag))
            return
        # a limit that depends on the release or on the image's transformers (--hf-overrides' RoPE dict): what
        # holds on one may be refused on another, so nothing about the length blocks
        no_ep = next((n for n in s.notes if n.startswith(EPLB_ASSUMED)), "")
        if no_ep:  # refused from 0.10.0, not by 0.9.x: an assumed release does not say which (review21, engine21)
            yield Hit(group_subject(g), f"{CANNOT}{where}: {no_ep.removeprefix(EPLB_ASSUMED)}", g.at("enable_eplb"),
                      tuple(g.suppressions), undecided=True)
        no_dtype = next((n for n in s.notes if n.startswith(DTYPE_ASSUMED) and "refused at start-up" in n), "")
        if no_dtype:  # --dtype half for gemma2 is refused from 0.9.1 only: an assumed release does not say (mend26)
            yield Hit(group_subject(g), f"{CANNOT}{where}: {no_dtype.removeprefix(DTYPE_ASSUMED)}", g.at("dtype"),
                      tuple(g.suppressions), undecided=True)
        no_cap = next((n for n in s.notes if n.startswith(QUANT_CAPABILITY_UNSURE)), "")
        if no_cap:  # the method's minimum compute capability by release, or a method read from a name (quantcap1)
            yield Hit(group_subject(g), f"{CANNOT}{where}: {no_cap.removeprefix(QUANT_CAPABILITY_UNSURE)}",
                      g.at("quantization", "model"), tuple(g.suppressions), undecided=True)
        by_release = next((n for n in s.notes if n.startswith(LENGTH_BY_RELEASE)), "")
        if by_release:
            yield Hit(group_subject(g), f"{CANNOT}{where}: {by_release.removeprefix(LENGTH_BY_RELEASE)}",
                      g.at("hf_overrides", "max_model_len"), tuple(g.suppressions), undecided=True)
            return
        if s.weights_fit_band != "starts":
            return  # SW101 speaks for a model whose weights may not fit
        if s.mamba_verdict != "starts" and s.kv_verdict != "refuses":  # a second check at start-up
            yield _mamba_hit(g, s, where)
        if s.kv_verdict == "starts" or s.mamba_verdict == "refuses":
            return  # a refusal that is sure whatever the KV cache's own check finds inside its band
        cp = context_parallel(g)
        if cp > 1:  # vLLM splits each request's KV cache over the DCP × PCP ranks: the sizing counts it whole
            yield from _context_parallel(g, s, where, cp)
            return
        fix = fits_instead(g, s, config)
        fix = f"; {fix}" if fix else ""
        need = f"one request of {s.max_model_len:,} tokens needs {s.needed_kv_gib:.2f} GiB of KV cache per GPU"
        if s.error_band_gib == 0:  # --kv-cache-memory-bytes: vLLM takes the figure as given
            measured = f"{need}; --kv-cache-memory-bytes gives it {s.available_kv_gib:.2f} GiB"
        else:
            measured = (
                f"{need}; about {s.available_kv_gib:.2f} GiB ({s.kv_band_text}) is left after "
                f"{s.weights_gib_per_gpu:.1f} GiB of weights and {s.activation_gib_per_gpu:.1f} GiB of activations"
            )
        # a drafter checkpoint the catalog does not know (capacity/draft.py): its weights and KV cache are only in
        # the band, so a finding inside the band cannot be decided; one beyond it blocks whatever the drafter weighs
        drafter = next((n for n in s.notes if n.startswith(CANNOT) and "speculative method" in n), "")
        f32 = float32_assumed(s)
        if s.kv_verdict == "refuses" and f32:  # sized in float32 on the assumed release alone (review44): not sure
            yield hit(g, f"{where}: {measured}; vLLM may refuse to start{fix}; not sure: {f32}", level="advisory")
        elif s.kv_verdict == "refuses":
            yield hit(g, f"{where}: {measured}; vLLM will refuse to start{fix}", level="mandatory")
        elif drafter:
            yield Hit(group_subject(g), f"{CANNOT}{where}: {drafter.removeprefix(CANNOT)}; {measured}{fix}",
                      g.at("speculative_config", "speculative_model"), tuple(g.suppressions), undecided=True)
        else:
            yield hit(g, f"{where}: {measured}; {_may_refuse(s)}{fix}")


def _encoder_length(g: ServingGroup) -> Iterable[Hit]:
    """An encoder-only embedder has no KV cache to hold one request, but ``_get_and_verify_max_len`` refuses a
    ``--max-model-len`` above the length it derives (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1): mandatory where every
    file that could raise that length was read, advisory otherwise (round catalog21)."""
    found = encoder_length(g)
    if found is None:
        return
    length, how, unsure = found
    mml = known(g.engine.max_model_len, "max_model_len")
    if mml is None or mml == "auto" or int(mml) <= length:
        return
    # vLLM lets a --max-model-len up to the config.json's own model_max_length through (config/model.py, 0.20.0)
    allowed = (g.encoder_config or {}).get("model_max_length")
    if isinstance(allowed, int) and not isinstance(allowed, bool) and int(mml) <= allowed:
        return
    if env_settings(engine_env(g)).get("allow_long_max_model_len"):
        return
    text = (f"{g.engine.model!r} is an encoder-only embedder: --max-model-len {int(mml):,} is above the {length:,} "
            f"tokens vLLM {vllm_version(g).version} derives ({how}), and vLLM refuses it unless "
            "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1")
    if unsure:
        yield hit(g, f"{text}; not sure: {unsure}", g.at("max_model_len"), level="advisory")
    else:
        yield hit(g, f"{text}; vLLM will refuse to start", g.at("max_model_len"), level="mandatory")


def _mamba_hit(g: ServingGroup, s: ReplicaSizing, where: str) -> Hit:
    """vLLM's check of ``max_num_seqs`` against the blocks of a KV cache with state layers (0.20+), or the assert
    on the largest full decode graph above them (0.14-0.17: Gated DeltaNet and KDA layers;
    :func:`~shardwise.rules.capacity.sizing.mamba_seqs_check`): mandatory beyond the estimate's error band."""
    cap = "vLLM's default" if s.max_num_seqs_default else "--max-num-seqs"
    sure = (f"{s.mamba_blocks_sure:,} beyond the estimate's error of {s.kv_band_text} GiB of KV budget"
            if s.mamba_blocks_sure != s.mamba_blocks else "no estimate error")
    fix = (f"lower --max-num-seqs to {s.mamba_blocks_sure:,} or fewer" if s.mamba_blocks_sure >= 1 else
           "give the KV cache more memory (more GPUs, a higher --gpu-memory-utilization)")
    if resolve(s.vllm_version).behaviour.mamba_seqs == "refused":  # 0.20+: vLLM's own check
        how = (f"vLLM {s.vllm_version} refuses to start with full decode CUDA graphs when max_num_seqs exceeds them "
               f"(\"max_num_seqs (N) exceeds available Mamba cache blocks (M)\")")
    else:  # 0.14-0.17: the decode convolution's assert while the graphs are captured
        how = (f"vLLM {s.vllm_version} captures full decode CUDA graphs up to {s.mamba_batch:,} sequences and fails an "
               f"assert on those above them (causal_conv1d_update: num_cache_lines >= batch)")
    text = (f"{where}: max_num_seqs {s.max_num_seqs:,} ({cap}) against about {s.mamba_blocks:,} Mamba cache blocks "
            f"({sure}): each decode sequence needs one block for its layers' state, and {how}")
    at = None if s.max_num_seqs_default else g.at("max_num_seqs")
    if s.mamba_verdict == "refuses":
        return hit(g, f"{text}; {fix}", at, level="mandatory")
    return hit(g, f"{text}; {_may_refuse(s)}; {fix}", at)


def _context_parallel(g: ServingGroup, s: ReplicaSizing, where: str, cp: int) -> Iterable[Hit]:
    """SW102 where DCP × PCP (``cp``) is above 1 (review27): vLLM checks ``cdiv(max_model_len, cp)`` tokens of one
    request on each GPU (``vllm/v1/kv_cache_interface.py``, ``max_memory_usage_bytes``), so a refusal the sizing
    finds for the whole request is one only where that share does not fit either. Silent where it fits at the low
    side of the band; else advisory, never a block: the sizing does not model how the split meets sliding-window or
    state layers."""
    share = -(-s.max_model_len // cp)
    if share <= s.max_model_len_fit_sure:
        return
    pcp = prefill_context_parallel(g)
    likely = "vLLM is likely to refuse to start" if share > s.max_model_len_fit else "vLLM may refuse to start"
    yield hit(g, f"{where}: with DCP {cp // pcp} × PCP {pcp}, vLLM keeps 1/{cp} of each request's KV cache on each "
                 f"GPU and checks {share:,} of the {s.max_model_len:,} tokens of one request there (about "
                 f"{s.needed_kv_gib / cp:.2f} GiB); about {s.available_kv_gib:.2f} GiB ({s.kv_band_text}) is left, "
                 f"which holds about {s.max_model_len_fit:,} tokens; {likely} (not a block: the sizing does not model "
                 f"the split)")


def _may_refuse(s: ReplicaSizing) -> str:
    """Why a refusal is not sure: the estimate's error, or the GPU's ECC setting (:func:`range_note`)."""
    note = range_note(s)
    return f"vLLM may refuse to start ({note})" if note else "within the estimate's error, so vLLM may refuse to start"

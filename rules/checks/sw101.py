"""SW101: the weights alone do not fit in the memory vLLM may use on each GPU."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import (
    device,
    encoder_fit,
    engine_settings,
    gpu_name,
    offload_bytes,
    refused_whatever_tp,
    require_model,
    sizing,
    tpu_of,
    vllm_version,
    weights_refused_whatever_pcp,
    weights_refused_whatever_tp,
)
from ..capacity.sizing import FLOAT32_BY_AUTO, ReplicaSizing, float32_assumed, online_fp8_load_peak, range_note
from ..catalog.accelerators import device_word, sized_as_cuda
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, Undecidable
from ..model.records import evolve
from ..vllm.versions import possible_rows
from ._capacity import (
    command_crashes,
    device_name,
    layout_text,
    load_surely_above,
    refused_whatever_tp_text,
    tp_bound_text,
    weights_alone_instead,
    weights_fit_instead,
    whole_gib,
)
from ._unseen import held_back_hits
from ._words import an

#: What a workload on Google TPUs gets instead of the capacity rules' findings (:func:`..capacity.group.tpu_of`).
TPU_NOT_CHECKED = (
    "{tpu}: capacity not checked: shardwise's capacity model follows vLLM's CUDA and ROCm workers, and vLLM's TPU "
    "backend sizes its KV cache its own way (XLA's memory limit × gpu_memory_utilization less what its profile run "
    "leaves in use, the head size padded to 128) and loads other weight formats (vLLM 0.11.0: fp8, tpu_int8 and "
    "compressed-tensors, not AWQ or GPTQ), so the weights, the KV cache and the layout are not judged on it; read "
    "the KV cache size the server logs at start-up")


class WeightsDoNotFit(GroupRule):
    meta = RuleMeta(
        code="SW101",
        name="weights-exceed-gpu-memory",
        enforcement="advisory",
        mandatory_when=("when the weights exceed that memory by more than the estimate's error, when with the "
                        "activations they leave the KV cache short of one request by more than the estimate's error, "
                        "or less memory is free at vLLM's first snapshot than gpu_memory_utilization asks"),
        severity="critical",
        summary=("The model's weights per GPU exceed gpu_memory_utilization × the GPU's memory, or what vLLM "
                 "needs outside that budget at start-up does not fit the rest."),
        why=(
            "vLLM loads the weights first. When one GPU's share of them is larger than the memory vLLM "
            "is allowed to use, nothing is left for activations and the KV cache: the server fails at "
            "start-up (out of memory, or 'No available memory for the cache blocks') and Kubernetes "
            "restarts it forever. Weights per GPU are the checkpoint's parameters at the precision served "
            "÷ TP (÷ PP per stage); with --enable-expert-parallel the routed experts are spread over "
            "TP × DP ranks instead. The 1 − gpu_memory_utilization left outside the budget must hold what "
            "vLLM does not charge to it: the CUDA context and NCCL's communicators (allocated before its first "
            "snapshot: too little free memory then and vLLM refuses, 'Free memory on device ... is less than "
            "desired GPU memory utilization'), and, after the KV cache has taken the budget, what vLLM's profile "
            "run did not see: the CUDA graphs (releases before 0.20: one per capture size, up to 1,024 tokens "
            "for gpt-oss), the allocator's slack and whatever the sampler warm-up over max_num_seqs sequences × "
            "the vocabulary needs beyond the peak the profile run reserved inside the budget ('CUDA out of "
            "memory occurred when warming up sampler'). On Google TPUs none of this is the arithmetic vLLM's TPU "
            "backend does (it sizes its KV cache from XLA's memory stats): the capacity rules do not judge a TPU, "
            "and this rule says so once, advisory. Where --tensor-parallel-size is not known yet (a guide's "
            "<TP_SIZE>, a ConfigMap not in the inputs) but the nvidia.com/gpu a single-pod replica requests bound "
            "it (TP × PP cannot exceed them; a privileged container, or one that sets NVIDIA_VISIBLE_DEVICES, may "
            "see every GPU of its node, or those the variable lists, which then bound it), the weights are judged "
            "at the largest TP they allow: a GPU's share "
            "only shrinks as TP grows, so weights that surely fail there fail whatever TP is, and the finding "
            "blocks. Where every TP they allow is refused, some for their KV cache (or a TP that does not split "
            "the heads), one finding blocks: this rule's where the weights may not fit even at the largest, SW102's "
            "where they fit there and one max_model_len request does not; where a TP they allow may start, it "
            "cannot be decided."
        ),
        bad_example="vllm serve meta-llama/Llama-3.1-70B-Instruct   # 131 GiB of bf16 weights on one H100",
        good_example="vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4",
        remediation=(
            "Shard the model over more GPUs of one node with --tensor-parallel-size (or spread a "
            "mixture-of-experts model's experts with --data-parallel-size and --enable-expert-parallel), "
            "use a quantised checkpoint, or pick a GPU with more memory. For the margin: lower "
            "--gpu-memory-utilization, or --max-num-seqs (the CUDA graphs captured and the sampler warm-up grow "
            "with it). Within the estimate's error band, the weights vLLM logs at start-up ('Model loading took') "
            "settle it."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",
            "https://docs.vllm.ai/en/latest/configuration/conserving_memory.html",
        ),
        scope="stack",  # needs the node pool the workload lands on
    )
    fields = ("tensor_parallel_size", "quantization", "model")  # the line a finding points at

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether its model's weights fit its GPUs' memory")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        tpu = tpu_of(g)
        if tpu is not None:
            yield hit(g, TPU_NOT_CHECKED.format(tpu=tpu), level="advisory")
            return
        fit = encoder_fit(g)
        if fit is not None:  # an encoder-only embedder: no KV cache, its weights alone (round catalog21)
            if fit.refuses:
                yield hit(g, f"{g.engine.model!r} is an encoder-only embedder with {fit.text(gpu_name(g))}: the "
                             "weights alone exceed the GPU's memory; vLLM will fail at start-up", level="mandatory")
            elif fit.over_budget:
                yield hit(g, f"{g.engine.model!r} is an encoder-only embedder with {fit.text(gpu_name(g))}: vLLM "
                             "does not hold a model without a KV cache to that budget (it profiles the memory only "
                             "for a KV cache), so it loads, but takes more of the GPU than gpu_memory_utilization "
                             "gives it", level="advisory")
            return
        pcp_unseen = ""
        try:
            s = sizing(g, config)
        except Undecidable as u:
            if u.prop == "tensor_parallel_size":
                if command_crashes(g, inv):
                    raise  # vLLM exits on the command as written: SW003's finding holds this one back
                at_most = weights_refused_whatever_tp(g, config)  # refused at every TP its GPUs allow, or undecided
                if at_most is not None:
                    s, most = at_most
                    yield hit(g, _whatever_tp(g, s, most), level="mandatory")
                    return
                # every TP refused, some by the KV cache (mend17): one finding, of the rule that refuses the largest
                every = refused_whatever_tp(g, config)
                if every is None:
                    raise
                if not every.kv_owns:  # its weights may not fit there, and the KV cache surely does not
                    yield hit(g, refused_whatever_tp_text(g, every), level="mandatory")
                return  # else SW102's: the weights fit at the largest TP, its KV cache does not
            if u.prop != "prefill_context_parallel_size":
                raise
            s = weights_refused_whatever_pcp(g, config)  # the weights refused at every PCP, or undecided
            if s is None:
                raise
            pcp_unseen = " (whatever its --prefill-context-parallel-size, not known yet: each PCP rank holds them)"
        if s is None:
            return
        if s.weights_fit_band == "starts":
            at_load = _load_peak(g, s)
            if at_load is not None:
                yield at_load
                return
            yield from self._margin(g, s)
            return
        # weights above the GPU's whole memory never fit, whatever the estimate's band says
        sure = s.weights_fit_band == "refuses" or s.weights_gib_per_gpu > whole_gib(g, s)
        why32 = next((f" ({n})" for n in s.notes if n.startswith(FLOAT32_BY_AUTO)), "")  # not asked for: say why
        head = (
            f"{s.model_id} in {s.weight_precision}{why32} needs {s.weights_gib_per_gpu:.1f} GiB "
            f"({s.weights_band_text}) of weights per {device_word(g, rank=True)} at {layout_text(s)}{pcp_unseen}"
            f"{_offloaded(g, bool(pcp_unseen))}, but "
            f"gpu_memory_utilization "
            f"{s.gpu_memory_utilization:g} × {s.gpu_memory_gib:.1f} GiB ({device_name(g)}) allows "
            f"{s.usable_gib_per_gpu:.1f} GiB"
        )
        # float32 on some releases only (mend26): not sure; a --dtype refusal on some releases leaves the 16-bit
        # sizing as sure as it was (review44: Gemma 2 27B at --dtype half on a T4 fails on every release)
        by_release = float32_assumed(s)
        if by_release and (sure or s.kv_verdict == "refuses"):
            yield hit(g, f"{head}; vLLM may fail at start-up ({s.vllm_version_note}): {by_release}",
                      level="advisory")
            return
        if sure:
            anywhere = _sure_anywhere(g, s)
            yield evolve(hit(g, f"{head}; vLLM will fail at start-up ({s.vllm_version_note}); "
                                f"{_remedy(g, s, config, anywhere, bool(pcp_unseen))}",
                             level="mandatory"), sure_anywhere=anywhere)
        elif s.kv_verdict == "refuses":
            # the weights are inside their own band, but the whole budget (whose band holds the weights' error too)
            # leaves no KV cache for one request even at the low estimate: as sure as SW102's refusal, which
            # leaves a model whose weights may not fit to this rule
            left = (f"with {s.activation_gib_per_gpu:.1f} GiB of activations about {s.available_kv_gib:.2f} GiB "
                    f"({s.kv_band_text}) is left for the KV cache, and one request of {s.max_model_len:,} "
                    f"tokens needs {s.needed_kv_gib:.2f} GiB")
            yield hit(g, f"{head}; {left}: vLLM will fail at start-up ({s.vllm_version_note}); "
                         f"{weights_fit_instead(g, s, config)}", level="mandatory")
        else:
            # review41: the weights may fit once loaded, but where vLLM surely fails loading them (online FP8 on a
            # 16-bit checkpoint before 0.16.0) that refusal is sure, whatever the band of the FP8 weights says
            at_load = _load_peak(g, s)
            if at_load is not None and at_load.level == "mandatory":
                yield at_load
                return
            yield hit(g, f"{head}: {_unsure(s)}vLLM may fail at start-up ({s.vllm_version_note}){_ecc(s)}")

    def _margin(self, g: ServingGroup, s: ReplicaSizing) -> Iterable[Hit]:
        """The start-up failures outside the KV budget (vLLM's V1 engine)."""
        if s.margin_verdict == "starts" or not s.margin_failure or s.certain:
            return
        if s.margin_after_sizing and s.kv_verdict == "refuses":
            return  # vLLM refuses the KV cache (SW102) before it captures graphs or warms the sampler up
        where = f"{s.model_id} at {layout_text(s)} on {device_name(g)} ({s.vllm_version_note})"
        if s.margin_verdict == "refuses" and not s.margin_after_sizing:
            yield hit(g, f"{where}: {s.margin_failure}; vLLM will fail at start-up", level="mandatory")
        elif s.margin_verdict == "refuses":  # what vLLM's profiling left out varies by release: never a block
            yield hit(g, f"{where}: {s.margin_failure}; vLLM is likely to fail at start-up")
        else:
            yield hit(g, f"{where}: {s.margin_failure}; {_unsure(s)}vLLM may fail at start-up{_ecc(s)}")


#: The first release that quantises a 16-bit checkpoint to FP8 online a layer at a time
#: (``Behaviour.online_fp8_layerwise``)
LAYERWISE_FP8_RELEASE = "0.16.0"


def _load_peak(g: ServingGroup, s: ReplicaSizing) -> Hit | None:
    """SW101's finding where the weights fit once loaded but vLLM's load peak does not fit the GPU's whole memory:
    ``--quantization fp8`` on a 16-bit checkpoint (:func:`..capacity.sizing.online_fp8_load_peak`). Before 0.16.0
    every weight is 16-bit before any is quantised, a sure refusal; on a release not known (no tag, ``latest``, a
    digest) the refusal holds only on an older one: "may", naming 0.16.0; from 0.16.0 the peak is the FP8 weights
    and one layer at 16 bits. Sure only where the lightest the peak may be (less the weights' band, scaled to the
    peak) exceeds the device's whole memory (:func:`._capacity.load_surely_above`); between the budget and the whole
    memory the load is not judged (docs/capacity-model.md, "Online quantisation's peak at load")."""
    rv = vllm_version(g)
    dev = device(g)
    if dev is None or s.weights_gib_per_gpu <= 0:
        return None
    peak = online_fp8_load_peak(require_model(g), dev, engine_settings(g), rv, s)
    if peak is None:
        return None
    whole = whole_gib(g, s)
    old_refuses = load_surely_above(g, s, peak.whole_16bit)
    where = (f"{s.model_id} with --quantization fp8 on its 16-bit checkpoint (no quantization_config: vLLM quantises "
             f"it while loading) at {layout_text(s)}")
    whole_text = f"above the whole {whole:.1f} GiB of the {device_name(g)}"
    if peak.layerwise_release:
        # an assumed release may be an older one (every row; a DLC floating tag's line: its rows, release37)
        if old_refuses and not all(r.online_fp8_layerwise for r in possible_rows(rv)):
            return hit(g, f"{where}: vLLM before {LAYERWISE_FP8_RELEASE} allocates every weight at 16 bits before "
                          f"quantising any, {peak.whole_16bit:.1f} GiB per {device_word(g, rank=True)} at load, "
                          f"{whole_text}, so vLLM may fail loading the model, the release not being known "
                          f"({s.vllm_version_note}); pin an image of "
                          f"vLLM {LAYERWISE_FP8_RELEASE} or later (one layer at a time is 16-bit, "
                          f"{peak.layerwise:.1f} GiB at load) or serve an FP8 checkpoint", level="advisory")
        if load_surely_above(g, s, peak.layerwise):
            return hit(g, f"{where} needs {peak.layerwise:.1f} GiB per {device_word(g, rank=True)} at load (the "
                          f"FP8 weights and one layer at 16 bits), {whole_text}: vLLM will fail loading the model "
                          f"({s.vllm_version_note}); serve an FP8 checkpoint, or shard it over more GPUs with "
                          "--tensor-parallel-size",
                       level="mandatory")
        return None
    if not old_refuses:
        return None
    return hit(g, f"{where}: vLLM {s.vllm_version} allocates every weight at 16 bits before quantising any, "
                  f"{peak.whole_16bit:.1f} GiB per {device_word(g, rank=True)} at load, {whole_text}: vLLM will fail "
                  f"loading the model ({s.vllm_version_note}); use vLLM {LAYERWISE_FP8_RELEASE} or later (one layer "
                  f"at a time is 16-bit, {peak.layerwise:.1f} GiB at load) or serve an FP8 checkpoint",
               level="mandatory")


def _sure_anywhere(g: ServingGroup, s: ReplicaSizing) -> str:
    """Why SW101's refusal is sure on any accelerator, in words (:attr:`..engine.Hit.sure_anywhere`), else "": the
    lightest the weights of one device may be (the estimate less its band's low side; no activation, KV cache, graph or
    collective term, no margin) exceed the device's whole memory (:func:`._capacity.whole_gib`). On an accelerator
    whose plugin sizes memory its own way (Ascend, Gaudi, Neuron: ``catalog.accelerators.sized_as_cuda``) every other
    verdict is an estimate of CUDA's terms, but a checkpoint's share larger than the device cannot load there either
    (mend15)."""
    lightest, whole = s.weights_gib_per_gpu - s.weights_error_below_gib, whole_gib(g, s)
    if lightest <= whole:
        return ""
    return (f"the weights alone, at least {lightest:.1f} GiB per {device_word(g, rank=True)}, exceed its whole "
            f"{whole:.1f} GiB, whatever its plugin's own memory terms")


def _remedy(g: ServingGroup, s: ReplicaSizing, config: LintConfig, anywhere: str, pcp_unseen: bool) -> str:
    """SW101's remedy for a refusal it is sure of: where the PCP is not known, :data:`_PCP_UNSEEN_REMEDY`; where the
    weights alone exceed the device (``anywhere``, :func:`_sure_anywhere`) on an accelerator whose plugin sizes memory
    its own way, one sized from the weights alone (:func:`._capacity.weights_alone_instead`, mend17: "--tensor-
    parallel-size 4 starts" on an Ascend NPU was sized with CUDA's terms); else the layout that starts
    (:func:`._capacity.weights_fit_instead`)."""
    if pcp_unseen:
        return _PCP_UNSEEN_REMEDY
    cuda = sized_as_cuda(g)
    if anywhere and cuda is not None and cuda[1]:
        return weights_alone_instead(g, s, whole_gib(g, s))
    return weights_fit_instead(g, s, config)


def _unsure(s: ReplicaSizing) -> str:
    """Why a failure is not sure: the estimate's error, or (:func:`_ecc`) the GPU's ECC setting."""
    return "" if range_note(s) else "within the estimate's error, so "


def _ecc(s: ReplicaSizing) -> str:
    """The note that a refusal holds with the GPU's ECC on only (:func:`..capacity.sizing.over_range`), else ""."""
    note = range_note(s)
    return f"; {note}" if note else ""


#: SW101's remedy where the weights are refused whatever the --prefill-context-parallel-size not known yet: the layouts
#: weights_fit_instead sizes would name a pod request without the PCP ranks, which the linter cannot count.
_PCP_UNSEEN_REMEDY = ("spread the weights over more GPUs with a wider --tensor-parallel-size or more pipeline stages "
                      "(each prefill context-parallel rank holds the same shard, and multiplies the GPUs a replica "
                      "requests), serve an FP8 or 4-bit quantised checkpoint, or use a GPU with more memory")


def _offloaded(g: ServingGroup, pcp_unseen: bool = False) -> str:
    """Words for a sizing that counted ``--cpu-offload-gb`` (:func:`..capacity.group.offload_bytes`), else ""
    (``pcp_unseen``: sized by :func:`..capacity.group.weights_refused_whatever_pcp`, whose engine settings are not
    :func:`..capacity.group.engine_settings`)."""
    value = g.engine.cpu_offload_gb
    if not (offload_bytes(g) if pcp_unseen else engine_settings(g).cpu_offload_bytes):
        return ""
    return f" besides what --cpu-offload-gb {float(value):g} keeps in CPU memory"


def _whatever_tp(g: ServingGroup, s: ReplicaSizing, most: int) -> str:
    """SW101's finding where ``--tensor-parallel-size`` is not known yet but the weights fail at every value the
    GPUs allow (:func:`..capacity.group.weights_refused_whatever_tp`, mend13): ``s`` is the sizing at the largest,
    ``most``."""
    rank, unit = device_word(g, rank=True), device_word(g)  # mend24: an NPU's or HPU's own noun, as elsewhere
    return (f"whatever --tensor-parallel-size is (not known yet; {tp_bound_text(g, most)}), "
            f"{s.model_id} in {s.weight_precision} needs at least {s.weights_gib_per_gpu:.1f} GiB "
            f"({s.weights_band_text}) of weights per {rank} (at {layout_text(s)}), but gpu_memory_utilization "
            f"{s.gpu_memory_utilization:g} × {s.gpu_memory_gib:.1f} GiB ({device_name(g)}) allows "
            f"{s.usable_gib_per_gpu:.1f} GiB; vLLM will fail at start-up ({s.vllm_version_note}); give the pod more "
            f"{unit}s and set --tensor-parallel-size to them, serve a quantised checkpoint, or use {an(unit)} with "
            "more memory")

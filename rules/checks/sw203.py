"""SW203: weights vLLM cannot split at the tensor-parallel size (heads, KV heads, quantisation blocks/groups)."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import require_model, tp_pp
from ..capacity.layout import tp_allowed, weight_load_refusals
from ..catalog.accelerators import SIZED_VENDORS, group_vendor
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, Undecidable, known
from ..model.shapes import ModelShape
from ._request import gpu_request
from ._unseen import held_back_hits


class HeadsNotDivisibleByTp(GroupRule):
    meta = RuleMeta(
        code="SW203",
        name="heads-not-divisible-by-tp",
        enforcement="mandatory",
        severity="critical",
        summary=("The model's weights do not split at tensor_parallel_size: heads, KV heads or quantisation "
                 "blocks/groups are not whole on every rank, so vLLM refuses to load them."),
        why=(
            "vLLM splits attention by heads: it refuses to start when the attention heads are not a "
            "multiple of TP, and KV heads must either divide evenly across ranks or be replicated "
            "(TP a multiple of the KV heads). Quantised weights must stay whole per rank: block-wise FP8 "
            "checkpoints (128x128 blocks: Qwen3 and DeepSeek FP8 releases) need each rank's MoE expert width "
            "and MLP width to be a multiple of 128 (vLLM: \"The output_size of gate's and up's weight = 320 is "
            "not divisible by weight quantization block_n = 128\" for Qwen3-Coder-480B-A35B-FP8 at TP8), and "
            "AWQ/GPTQ checkpoints a whole number of groups in each row-parallel layer's input. The finding "
            "blocks when the checkpoint's quantization_config (or, for Qwen's own FP8 releases, their model card) "
            "states the block or group size; when the size is assumed (a precision read from the model's name), or "
            "the accelerators are not NVIDIA's or AMD's (vLLM's TPU and Gaudi plugins load quantised weights their "
            "own way), it is advisory. Pipeline stages need at least "
            "one layer each."
        ),
        bad_example="vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 8   # 28 heads",
        good_example="vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 4",
        remediation=(
            "Choose a tensor_parallel_size that divides the model's attention heads and keeps each rank's "
            "expert and MLP width a multiple of the quantisation block or group (Qwen3-235B-A22B-FP8: TP4, not "
            "TP8), or add --enable-expert-parallel so that the experts stay whole."
        ),
        references=("https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",),
        scope="resource",
    )
    fields = ("tensor_parallel_size", "pipeline_parallel_size")  # the line a finding points at

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether its model's heads split over its tensor-parallel ranks")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        model = require_model(g)
        tp, pp = tp_pp(g)
        refusals = weight_load_refusals(model, tp)
        ep = False
        # with data parallelism beside expert parallelism, vLLM's sequence-parallel MoE keeps a Qwen shared expert
        # whole too (layout._tp_shared_expert_width); a DP size the linter cannot see is undecided, never read as 1
        sp = any(r.shared for r in refusals) and tp > 1 and int(
            known(g.engine.data_parallel_size, "data_parallel_size")) > 1
        if (sp or any(r.experts for r in refusals)) and known(g.engine.enable_expert_parallel,
                                                              "enable_expert_parallel"):
            refusals = weight_load_refusals(model, tp, expert_parallel=True, sequence_parallel_moe=sp)
            ep = True
        vendor = group_vendor(g)
        # quantisation blocks and groups are what vLLM's CUDA and ROCm loaders need whole per rank; another vendor's
        # plugin (TPU's tpu-inference, Gaudi's) loads quantised weights its own way: said, never blocking there
        gpu_loaders = vendor is None or vendor in SIZED_VENDORS
        for r in refusals:
            if r.tiles and not gpu_loaders:
                yield hit(g, f"{r.message} on vLLM's CUDA and ROCm builds; on {vendor} accelerators vLLM's plugin "
                             "loads quantised weights its own way, so this is not known to refuse there",
                          level="advisory")
                continue
            yield hit(g, r.message + _instead(model, tp, ep, r.experts, _candidates(g, vendor)),
                      level=None if r.sure else "advisory")
        if pp > model.num_hidden_layers:
            yield hit(g, f"pipeline_parallel_size {pp} exceeds the {model.num_hidden_layers} layers "
                         f"of {model.id}")


#: The tensor-parallel sizes a refusal's message offers instead: those of one node of 2, 4 or 8 GPUs.
_CANDIDATES = (2, 4, 8)
#: On AWS Neuron tensor parallelism counts NeuronCores, of which a node holds more (inf2.48xlarge 24, trn1.32xlarge
#: 32, trn2.48xlarge 64 at its default logical core size): the sizes offered there as well, where the pod holds that
#: many (mend30: a 64-head model refused at TP 24 on inf2.48xlarge was offered 2, 4 or 8, not 16, the size AWS's own
#: 70B-on-inf2 blueprint runs). vLLM's Neuron platform adds no check of the size of its own (vllm/platforms/neuron.py,
#: stored at 00e3ddc5: check_and_update_config sets the worker and the block size only); the heads check of
#: ModelConfig.verify_with_parallel_config applies there as on a GPU (:func:`..capacity.layout.tp_allowed`).
_NEURON_CANDIDATES = (12, 16, 24, 32, 64)


def _candidates(g: ServingGroup, vendor: str | None) -> tuple[int, ...]:
    """The sizes :func:`_instead` may offer for group ``g``: :data:`_CANDIDATES`, and on AWS Neuron those of
    :data:`_NEURON_CANDIDATES` that the NeuronCores its pod holds at fewest allow."""
    if vendor != "aws":
        return _CANDIDATES
    try:
        req, _resource = gpu_request(g)
    except Undecidable:
        return _CANDIDATES
    if req is None:
        return _CANDIDATES
    cores = req.units * req.lo
    return _CANDIDATES + tuple(n for n in _NEURON_CANDIDATES if n <= cores)


def _instead(model: ModelShape, tp: int, ep: bool, experts: bool,
             candidates: tuple[int, ...] = _CANDIDATES) -> str:
    """What to write instead of ``tp``: the sizes of ``candidates`` (:func:`_candidates`) at which the weights split
    (without deciding whether they fit), and --enable-expert-parallel where it keeps the refused experts whole."""
    fits = [n for n in candidates if n != tp and tp_allowed(model, n, expert_parallel=ep)]
    out = ""
    if fits:
        sizes = str(fits[-1]) if len(fits) == 1 else f"{', '.join(map(str, fits[:-1]))} or {fits[-1]}"
        out = f"; the weights split at tensor_parallel_size {sizes}"
    if experts and not ep and tp_allowed(model, tp, expert_parallel=True):
        out += (", or add --enable-expert-parallel, which keeps the experts whole" if out else
                "; add --enable-expert-parallel, which keeps the experts whole")
    return out

"""SW102: one max_model_len request does not fit the KV cache, so vLLM refuses to start."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import gpu_name, sizing
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject, hit
from ..engine.rule import CANNOT
from ..model import Inventory, ServingGroup
from ..vllm.mm_args import KWARGS_FLAG, LIMIT_FLAG
from ._capacity import fits_instead, layout_text

#: Flags whose value vLLM's argument parser refuses by release (``vllm/mm_args.py``): the finding points at the flag.
_FLAG_KEYS = ((LIMIT_FLAG, "limit_mm_per_prompt"), (KWARGS_FLAG, "mm_processor_kwargs"))


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
            "--mm-processor-kwargs takes JSON). Leaving max_model_len at the "
            "model's maximum (often 128k tokens) is the usual cause. shardwise estimates what vLLM "
            "measures, so the finding blocks only when the shortfall exceeds the estimate's error band; "
            "inside the band it says the server may refuse."
        ),
        bad_example="vllm serve meta-llama/Llama-3.1-8B-Instruct   # max_model_len defaults to 131072 on a 24 GB L4",
        good_example="vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192",
        remediation=(
            "Set --max-model-len to the longest context you serve (the message gives one that fits), use "
            "an fp8 KV cache, raise --gpu-memory-utilization, or shard over more GPUs."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/configuration/conserving_memory.html",
            "https://github.com/shardwise/shardwise/blob/main/docs/capacity-model.md",
        ),
        scope="stack",  # needs the node pool the workload lands on
    )
    fields = ("max_model_len", "model")  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        s = sizing(g, config)
        if s is None:
            return
        where = f"{s.model_id} at {layout_text(s)} on {gpu_name(g)} ({s.vllm_version_note})"
        flag = next((key for text, key in _FLAG_KEYS if s.refusal.startswith(f"{text} ")), None)
        if s.certain:  # a setting vLLM rejects, whatever the memory
            yield hit(g, f"{where}: {s.refusal}; vLLM will refuse to start",
                      g.at(flag) if flag else None, level="mandatory")
            return
        if flag and not s.starts and s.verdict == "may-refuse":  # refused only for quotes an entrypoint may strip
            yield hit(g, f"{where}: {s.refusal}; vLLM refuses to start unless the image's entrypoint runs its args "
                         f"through a shell that removes the quotes", g.at(flag))
            return
        if s.weights_fit_band != "starts" or s.kv_verdict == "starts":
            return  # SW101 speaks for a model whose weights may not fit
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
        if s.kv_verdict == "refuses":
            yield hit(g, f"{where}: {measured}; vLLM will refuse to start{fix}", level="mandatory")
        elif drafter:
            yield Hit(group_subject(g), f"{CANNOT}{where}: {drafter.removeprefix(CANNOT)}; {measured}{fix}",
                      g.at("speculative_config", "speculative_model"), tuple(g.suppressions), undecided=True)
        else:
            yield hit(g, f"{where}: {measured}; within the estimate's error, so vLLM may refuse to "
                         f"start{fix}")

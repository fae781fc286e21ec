"""SW105: gpu_memory_utilization outside the sane range."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import engine_env, env_settings, extensible_kv_cache_of, vllm_version
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject, hit
from ..engine.rule import CANNOT
from ..model import Inventory, ServingGroup, known
from ..vllm.versions import cudagraph_estimate_in_budget
from ._sharing import gpu_sharing
from ._unseen import held_back_hits

LOW, HIGH = 0.5, 0.95
#: The first release whose extensible KV cache (on by default on NVIDIA and AMD GPUs) measures what it keeps free.
_EXTENSIBLE_FROM = "0.34"


class MemoryUtilizationOutOfRange(GroupRule):
    meta = RuleMeta(
        code="SW105",
        name="gpu-memory-utilization-out-of-range",
        enforcement="advisory",
        severity="medium",
        summary=f"gpu_memory_utilization is above {HIGH} or below {LOW}.",
        why=(
            "vLLM charges the weights, activations and KV cache to gpu_memory_utilization × the GPU's memory; "
            "the rest must hold what it does not charge: the CUDA context, NCCL buffers, the sampler warm-up "
            "and, before vLLM 0.20, the CUDA graphs. Above 0.95 that is too little and the server fails at "
            "start-up or under load. Below 0.5 half of an expensive GPU sits idle while the KV cache, the "
            "real capacity ceiling, is starved. The default is 0.9, 0.92 from vLLM 0.20. From vLLM 0.34 the "
            "extensible KV cache (CUDA and ROCm, by default) is sized after the warm-up and the CUDA graph capture "
            "and keeps what it measured free itself: its default is 1.0 and a high value is not reported, where the "
            "release is read (the image's tag, a pip pin, the shardwise.dev/vllm-version annotation); where it is "
            "only assumed (a tag that names no vLLM release: the newest is assumed), an older release the image may "
            "run leaves no headroom, so a high value cannot be decided (advisory), and the finding says the release "
            "was assumed and how to declare it. The "
            "fraction is of the "
            "whole GPU's memory, so where the GPU is shared (time-slicing or MPS shares, GPUs seen through "
            "runtimeClassName nvidia without a request, a shared resource claim, the unified memory of a GB10 "
            "or Jetson that the system uses too) a small fraction is the point, and is not reported."
        ),
        bad_example="--gpu-memory-utilization 0.99",
        good_example="--gpu-memory-utilization 0.90",
        remediation=(f"Keep --gpu-memory-utilization between {LOW} and {HIGH}, or leave it unset for the "
                     "release's default (0.9; 0.92 from vLLM 0.20; 1.0 with 0.34's extensible KV cache). Where "
                     "other servers share the GPU, declare "
                     "it (a time-slicing resource, a node label, or the device plugin's sharing configuration "
                     "among the inputs) or suppress the rule with the reason."),
        references=(
            "https://docs.vllm.ai/en/latest/configuration/engine_args.html",
            "https://github.com/NVIDIA/k8s-device-plugin#shared-access-to-gpus",
        ),
        scope="resource",
        safe_to_skip_unknown=True,
    )
    fields = ("gpu_memory_utilization",)  # the line a finding points at

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether its gpu_memory_utilization leaves vLLM headroom")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        value = known(g.engine.gpu_memory_utilization, "gpu_memory_utilization")
        if value is None:
            return  # vLLM's default, inside the range in every release
        u = float(value)
        if not (u > HIGH or u < LOW):
            return
        rv = vllm_version(g)
        b = rv.behaviour
        measured = extensible_kv_cache_of(g)
        default = f"vLLM {rv.version}'s default is {1.0 if measured else b.gpu_memory_utilization:g}"
        if rv.source == "assumed":  # a release the image does not name: say it is assumed and why (its note)
            default = f"the default is {1.0 if measured else b.gpu_memory_utilization:g} in {rv.note}"
        sharing = gpu_sharing(g, inv)
        assumed = rv.source == "assumed"
        if u > HIGH and measured and not (sharing is not None and sharing.shared):
            # 0.34's extensible KV cache measures what it keeps free after the warm-up and the capture: a high
            # fraction leaves no headroom short (v1/worker/extensible_kv_cache.py measure_kv_cache_bytes)
            if assumed:  # only in the release assumed: an older one the image may run leaves no headroom (mend5)
                yield Hit(group_subject(g), f"{CANNOT}whether gpu_memory_utilization {u:g}, above {HIGH}, leaves "
                          f"vLLM headroom: the image's release decides it, and it is {rv.note}. From vLLM "
                          f"{_EXTENSIBLE_FROM}, on NVIDIA and AMD GPUs, the extensible KV cache measures after the "
                          "warm-up what to keep free (its default is 1.0); before it, only the "
                          f"{round((1 - u) * 100, 1):g}% of the GPU's memory vLLM does not charge is left for the "
                          "CUDA context, NCCL buffers, CUDA graphs (before vLLM 0.20), the sampler warm-up and "
                          "fragmentation", g.location, tuple(g.suppressions), undecided=True)
            return
        if u > HIGH:
            # VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 leaves the graphs outside the budget on 0.20+ too
            in_budget = cudagraph_estimate_in_budget(b, env_settings(engine_env(g)).get("cudagraph_profiling"))
            # an assumed release that charges the graphs says so: one the image may run (before 0.20) does not
            graphs = "" if not in_budget else "CUDA graphs before vLLM 0.20, " if assumed else ""
            outside = "the CUDA context, NCCL buffers, " + (graphs if in_budget else "CUDA graphs, ")
            outside += "the sampler warm-up and fragmentation"
            shared = (f"; the GPU is shared ({sharing.how}), and vLLM needs that fraction of all its memory free "
                      "at start") if sharing is not None and sharing.shared else ""
            yield hit(g, f"gpu_memory_utilization is {u:g}, above {HIGH}: no headroom for {outside} "
                         f"({default}){shared}")
        elif sharing is not None and sharing.shared:
            return  # the GPU is shared: a small fraction of its memory is what this server may take
        elif sharing is not None and sharing.memory_gb:
            yield hit(g, f"gpu_memory_utilization is {u:g}, below {LOW}: most of the MIG slice's "
                         f"{sharing.memory_gb} GB is left unused by the KV cache ({default})")
        else:
            yield hit(g, f"gpu_memory_utilization is {u:g}, below {LOW}: most of each GPU's "
                         f"memory is left unused by the KV cache ({default})")

"""SW201: a tensor-parallel group larger than one node's GPUs."""

from __future__ import annotations

from collections.abc import Iterable

from ..catalog.accelerators import catalog_resources, devices_per_unit, layout_counts_devices
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, Undecidable, known
from ._capacity import tp_pp


class TensorParallelLargerThanNode(GroupRule):
    meta = RuleMeta(
        code="SW201",
        name="tensor-parallel-larger-than-node",
        enforcement="mandatory",
        severity="critical",
        summary="tensor_parallel_size is larger than the GPUs of one node in the selected pool.",
        why=(
            "Tensor parallelism all-reduces twice per layer on every token. Inside a node that runs over "
            "NVLink/NVSwitch (~900 GB/s); split across nodes it crosses the network at a few tens of "
            "GB/s at best and time per output token grows 5–20×. Keep TP inside one NVLink domain and span "
            "nodes with pipeline parallelism."
        ),
        bad_example="--tensor-parallel-size 16   # on p5.48xlarge nodes with 8 H100 each",
        good_example="--tensor-parallel-size 8 --pipeline-parallel-size 2   # TP in the node, PP across two",
        remediation=(
            "Set --tensor-parallel-size to at most the GPUs of one node and use --pipeline-parallel-size "
            "for the rest, or choose a pool whose nodes share a multi-node NVLink domain."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",
            "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html",
        ),
    )
    fields = ("tensor_parallel_size",)  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if not g.placement_known or g.pool is None or g.accelerator == "google":
            return  # a TPU slice joins the chips of several hosts by ICI: TP may span them
        tp, _ = tp_pp(g)
        if tp <= 1:
            return
        per_node = known(g.pool.gpus_per_node, f"GPUs per node of pool `{g.pool.name}`")
        if not per_node or tp <= int(per_node):
            return
        unit = catalog_resources().get(g.accelerator or "nvidia", "nvidia.com/gpu")
        if not layout_counts_devices(unit):
            return  # the vendor's compiler places the model over the devices: TP does not count them
        arch = g.pool.gpu.architecture if g.pool.gpu is not None else None
        lo, hi = devices_per_unit(unit, arch) or (1, 1)
        if tp <= int(per_node) * lo:
            return  # the node's devices hold more than one worker each (NeuronCores of a Neuron device)
        if tp <= int(per_node) * hi:
            raise Undecidable(f"the workers one node of pool `{g.pool.name}` holds",
                              f"each of its {int(per_node)} {unit} holds {lo} to {hi} vLLM devices")
        domain = g.pool.nvlink_domain_size or 0
        if g.pool.clique and domain >= tp:
            return
        if (lo, hi) != (1, 1):
            held = f"{int(per_node)} {unit} per node ({int(per_node) * lo} to {int(per_node) * hi} vLLM devices)"
            yield hit(g, f"SW201: pool `{g.pool.name}` has {held} but tensor_parallel_size is {tp}; the TP group "
                         f"would span at least {-(-tp // (int(per_node) * hi))} nodes")
            return
        yield hit(
            g,
            f"SW201: pool `{g.pool.name}` has {int(per_node)} GPUs per node but tensor_parallel_size is {tp}; "
            f"the TP group would span {-(-tp // int(per_node))} nodes without a shared NVLink domain",
        )

"""SW204: a pod requests fewer GPUs than its parallel layout starts workers on."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.group import Layout, layout
from ..capacity.layout import plural
from ..catalog.accelerators import device_word, families_of
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import UNKNOWN, Inventory, ServingGroup, Undecidable
from ._layout import cpu_setting_on_accelerator_image, runs_on_cpu
from ._request import Request, annotated_devices, check_server_elsewhere, counts_layout, device_claims, gpu_request
from ._sharing import gpu_sharing, mig_devices, mig_devices_unsure
from ._unseen import held_back_hits

#: Why a pod's MIG devices hold one vLLM device, whatever their count (the sources named in the rule's ``why``).
ONE_MIG_DEVICE = ("a CUDA process enumerates a single MIG device however many the container is given (NVIDIA MIG user "
                  "guide, \"CUDA Device Enumeration\")")


def _ambiguous(req: Request) -> Undecidable:
    why = "; ".join(a.devices_why for a in families_of(req.resource) if a.devices_why)
    return Undecidable(f"how many vLLM devices {req.units} {req.resource} hold",
                       f"one holds {req.lo} to {req.hi}: {why}" if why else f"one holds {req.lo} to {req.hi}")


def _units(devices: int, req: Request) -> int:
    """The units of ``req.resource`` that hold ``devices`` vLLM devices for sure (each unit holds at least ``lo``)."""
    return -(-devices // max(1, req.lo))


def _mig(g: ServingGroup, inv: Inventory) -> str | None:
    """How the pod's vLLM container gets MIG devices (:func:`~._sharing.mig_devices`), with the classes of its
    resource claims where the inputs hold every one of them."""
    c = g.main_container
    claims = device_claims(g, inv)
    classes = tuple(d.device_class or "" for d in claims) if c is not None and len(claims) == len(c.resource_claims) \
        else ()
    return mig_devices(g, classes)


def _on_mig(g: ServingGroup, inv: Inventory, lay: Layout) -> list[Hit]:
    """The finding that a pod on MIG devices starts more than one vLLM worker (it cannot start), or none."""
    mig = _mig(g, inv)
    per_pod = lay.per_pod
    on_one = per_pod if per_pod is not None else -(-lay.world // lay.pods)  # the fewest one pod must hold
    if mig is None or on_one <= 1:
        return []
    if lay.engine == 1:  # review23: each DP rank is a process of its own (see the class's why)
        raise Undecidable(f"whether {lay.text()} starts on {mig}",
                          "each data-parallel rank is an engine process of its own, which vLLM points at one device "
                          "by CUDA_VISIBLE_DEVICES=<its local rank>; whether the second index names a MIG device "
                          "depends on which GPUs the device plugin took the slices from, which is not in the inputs")
    refusal = (f"refuses to start (\"World size ({lay.engine}) is larger than the number of "
               f"available GPUs (1)\")")
    each = f" in each of its {lay.pods} pods" if lay.pods > 1 else ""
    return [hit(g, f"the pod's vLLM container gets {mig} but {lay.text()} starts "
                   f"{plural(on_one, 'worker')}{each}: {ONE_MIG_DEVICE}, so vLLM sees 1 GPU and {refusal}; "
                   f"serve it at TP1 on one MIG slice that holds the model, or on {on_one} whole GPUs "
                   "(nvidia.com/gpu on nodes without MIG)", location=g.at("resources"))]


def cannot_start(g: ServingGroup, inv: Inventory, config: LintConfig | None = None) -> list[Hit]:
    """SW204's findings that the group's replica cannot start as written because its pods run more than one vLLM
    worker on MIG devices (:func:`_on_mig`, the path of :meth:`GpuRequestNotTp.check_group` that gives them), and
    only those; empty where that is not so or not known. The engine asks it of a group on which a capacity or
    topology rule blocks (mig21, as readers20's SW201 ``pending``): that rule judged a replica that never starts, and
    what SW204 asks (TP1 on one slice, or whole GPUs) changes what it judges, so its finding is advisory and SW204's
    the one that blocks."""
    try:
        if runs_on_cpu(g) or not counts_layout(g):
            return []
        req, _ = gpu_request(g)
        return _on_mig(g, inv, layout(g)) if req is not None else []
    except Undecidable:
        return []


def _write(resource: str, units: int, g: ServingGroup | None = None) -> str:
    """What to write instead: the request, as the container's resources take it, or the device count of the
    resource claims it takes its devices from (dynamic resource allocation)."""
    c = g.main_container if g is not None else None
    if g is not None and g.gpus_written is not None:
        return g.gpus_written.format(units=units)
    if c is not None and c.resource_claims:
        claims = ", ".join(f"`{n}`" for n in c.resource_claims)
        return f"make the resource claim {claims} of the vLLM container allocate {units} devices"
    given = (f" (it writes none: the count is the default of the namespace's LimitRange {g.limit_range}, which "
             "a limit written replaces, within that LimitRange's max)" if g is not None and g.limit_range else "")
    return f"write {resource}: {units} under the vLLM container's resources.limits{given}"


class GpuRequestNotTp(GroupRule):
    meta = RuleMeta(
        code="SW204",
        name="gpu-request-not-tp",
        enforcement="mandatory",
        severity="high",
        summary=("A pod requests fewer GPUs than its layout (TP × PP × local DP ranks) starts vLLM workers on, or runs "
                 "more than one worker on MIG devices, of which a CUDA process sees one."),
        why=(
            "vLLM starts one worker per GPU of its layout: tensor_parallel_size × pipeline_parallel_size × "
            "the data-parallel ranks the pod runs (--data-parallel-size-local, else every rank of "
            "--data-parallel-size). The device plugin shows a container only the GPUs it requests, so with "
            "fewer the server cannot start; with none the container sees no GPU, or (with "
            "NVIDIA_VISIBLE_DEVICES=all in the image) every GPU of the node without the scheduler knowing. In "
            "a multi-node group the pods together must hold the whole layout. Requesting more than the layout "
            "uses is SW208. A container that sees GPUs without a request (runtimeClassName nvidia, "
            "NVIDIA_VISIBLE_DEVICES) shares them outside the scheduler's count: whether it sees enough depends on "
            "the node, so that is advisory; so is a pod of vLLM's CUDA image that requests no GPU but sets what only "
            "its CPU build reads (VLLM_CPU_KVCACHE_SPACE) or VLLM_TARGET_DEVICE=cpu (read when a wheel is built, "
            "never at start-up): that build never runs the CPU backend, and the node decides whether it does not "
            "start (no GPU visible) or serves on GPUs the scheduler does not count. A pod that asks for its devices "
            "by an annotation an admission webhook or "
            "a scheduler reads (the composite DRA driver's composite.dra/gpu-nic-pairs, KAI's gpu-fraction, an "
            "OpenShift AI hardware profile named on an InferenceService) gets them at admission: enough by the "
            "annotation's count is no finding, fewer or no count is undecided. MIG devices (a MIG resource such as "
            "nvidia.com/mig-3g.40gb, nvidia.com/gpu on nodes whose GPU Feature Discovery product names a MIG profile, "
            "...-MIG-3g.40gb, a resource claim of DeviceClass mig.nvidia.com) hold one vLLM device per pod whatever "
            "their count: a CUDA process enumerates a single MIG device however many the container is given "
            "(NVIDIA MIG user guide, \"CUDA Device Enumeration\"; pytorch/pytorch#130181; vllm-project/vllm#7211), so "
            "a layout of more than one worker per pod on them cannot start (vllm/config/parallel.py: \"World size (2) "
            "is larger than the number of available GPUs (1)\"). nvidia.com/mig.strategy=single alone makes that "
            "undecided: GPU Feature Discovery writes it on every node of the device plugin's single strategy, MIG "
            "enabled or not, and that is the GPU operator's default. Data-parallel ranks alone (TP1 × PP1 × DP2) are "
            "undecided there: each rank is an engine process vLLM points at one device by CUDA_VISIBLE_DEVICES, "
            "and whether that index names a MIG device depends on the GPUs the slices come from."
        ),
        bad_example="resources:\n  limits:\n    nvidia.com/gpu: 2\nargs: [..., --tensor-parallel-size, '4']",
        good_example="resources:\n  limits:\n    nvidia.com/gpu: 4\nargs: [..., --tensor-parallel-size, '4']",
        remediation=(
            "Request tensor_parallel_size × pipeline_parallel_size × the pod's data-parallel ranks GPUs in the "
            "vLLM container, and in a LeaderWorkerSet make size × GPUs per pod equal the whole layout. A container "
            "that sees the node's GPUs through runtimeClassName nvidia or NVIDIA_VISIBLE_DEVICES needs the request "
            "too, for the scheduler to count them. On MIG devices, serve at TP1 on one slice that holds the model, or "
            "request whole GPUs on nodes without MIG for a wider layout."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/deployment/k8s.html",
            "https://docs.vllm.ai/en/latest/serving/data_parallel_deployment.html",
            "https://lws.sigs.k8s.io/docs/",
            "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/",
            "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html",
        ),
        scope="resource",
        applies_to_plans=False,
    )
    fields = ("resources",)  # the line a finding points at

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether its pods request the GPUs its layout starts workers on")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if runs_on_cpu(g) or not counts_layout(g):  # the CPU backend needs no accelerator
            return
        lay = layout(g)
        req, resource = gpu_request(g)
        per_pod = lay.per_pod
        if req is None:
            check_server_elsewhere(g)  # another container of the pod holds the GPUs: which one serves?
            need = per_pod if per_pod is not None else -(-lay.world // lay.pods)
            sharing = gpu_sharing(g, inv)
            if sharing is not None and sharing.kind == "no-request":
                yield hit(g, f"the vLLM container requests no GPUs but {lay.text()} needs {need} per pod; it sees "
                             f"the node's GPUs through {sharing.via}, outside the scheduler's count",
                          location=g.at("resources"), level="advisory")
                return
            asked = annotated_devices(g)
            if asked is not None:  # a webhook or scheduler adds the devices at admission
                if asked.count is not None and asked.count >= need:
                    return
                many = f"asks for {asked.count}" if asked.count is not None else "gives no count"
                raise Undecidable("how many GPUs the pod gets at admission",
                                  f"its vLLM container requests none in resources, but {asked.text()} asks "
                                  f"{asked.record.by}; {lay.text()} needs {need} per pod and the annotation {many}, "
                                  "and what the pod gets depends on that component's configuration, which is not "
                                  "in the inputs")
            c = g.main_container
            if c is not None and c.runtime_class is UNKNOWN:
                raise Undecidable("the pod's runtimeClassName", "not known yet, and a class such as nvidia shows "
                                  "the container the node's GPUs without a request")
            cpu_setting = cpu_setting_on_accelerator_image(g)
            if cpu_setting and c is not None and isinstance(c.image, str):
                # mend30: the author meant vLLM's CPU backend, which this build never runs; where the pods land is
                # not sure: a node without a visible NVIDIA GPU (no platform, no start) or a GPU node whose runtime
                # shows the container its GPUs without a request (NVIDIA_VISIBLE_DEVICES=all in the CUDA base image)
                what = (f"sets {cpu_setting}, a setting of vLLM's CPU build" if cpu_setting.startswith("VLLM_CPU")
                        else f"sets {cpu_setting}, which vLLM reads only when its wheel is built (setup.py), never at "
                             "start-up")
                yield hit(g, f"the vLLM container {what}, but its image "
                             f"{c.image} is vLLM's CUDA build, which never runs the CPU backend, "
                             f"and it requests no {resource}: on a node where no NVIDIA GPU is visible vLLM finds "
                             "no platform and does not start, and on a GPU node whose container runtime shows it the "
                             "node's GPUs (the CUDA base image sets NVIDIA_VISIBLE_DEVICES=all) it serves on GPUs "
                             "the scheduler does not count; use vLLM's CPU image (vllm/vllm-openai-cpu, "
                             f"public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo) for the CPU backend, or "
                             f"{_write(resource, need, g)}", location=g.at("resources"), level="advisory")
                return
            profile = (f"; its hardware profile {g.hardware_profile} (in the inputs) names no accelerator to add"
                       if g.hardware_profile is not None else "")
            yield hit(g, f"the vLLM container requests no GPUs ({resource} or another accelerator) but "
                         f"{lay.text()} needs {plural(need, 'GPU')} per pod; the device plugin gives a container "
                         f"only the GPUs it requests{profile}; {_write(resource, need)}", location=g.at("resources"))
            return
        on_mig = _on_mig(g, inv, lay)
        if on_mig:
            yield from on_mig
            return
        pods = lay.pods if per_pod is None else 1
        need = lay.world if per_pod is None else per_pod
        most, fewest = pods * req.units * req.hi, pods * req.units * req.lo
        if fewest < need <= most:
            raise _ambiguous(req)
        if most >= need:
            on_one = per_pod if per_pod is not None else -(-lay.world // lay.pods)  # the fewest one pod must hold
            maybe = mig_devices_unsure(g) if on_one > 1 else None
            if maybe is not None:  # review23: the strategy label is on MIG-disabled nodes too
                raise Undecidable("whether the pod's nvidia.com/gpu are MIG devices",
                                  f"its nodes carry {maybe}, which GPU Feature Discovery writes on every node of the "
                                  "device plugin's single strategy, MIG enabled or not (the GPU operator's default), "
                                  "and no nvidia.com/gpu.product label the pods require names a MIG profile or a whole "
                                  f"GPU: on MIG devices {lay.text()} cannot start, a CUDA process enumerating one MIG "
                                  "device, and on whole GPUs it can")
            return
        word = device_word(g, rank=True)  # mend30: what the layout counts, NeuronCores on Neuron, NPUs on Ascend
        if per_pod is not None:
            in_pods = f" in each of its {lay.pods} pods" if lay.pods > 1 else ""
            yield hit(g, f"the pod requests {req.text(word)} but {lay.text()} starts "
                         f"{plural(per_pod, 'worker')}{in_pods}; vLLM cannot start with fewer {word}s than workers; "
                         f"{_write(req.resource, _units(per_pod, req), g)}", location=g.at("resources"))
        else:
            yield hit(g, f"{lay.pods} pods × {req.text(word)} = {most} {word}s per group, but "
                         f"{lay.text()} needs {lay.world}; vLLM cannot place all its workers; "
                         f"{_write(req.resource, _units(-(-lay.world // lay.pods), req), g)} in each of its {lay.pods} "
                         "pods", location=g.at("resources"))

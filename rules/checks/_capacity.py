"""What the capacity and topology rules alone need: the text of their messages, and which fabric rules speak.

Everything they read of a group's capacity comes through the front door, :mod:`shardwise.rules.capacity.group`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import replace

from ..capacity.group import (
    MIN_SUGGESTED_MAX_MODEL_LEN,
    TpRefusals,
    device,
    engine_settings,
    expected_context,
    gpu_name,
    gpu_of,
    mig_slice_or_none,
    node_gpus_seen,
    require_model,
    sizer,
    suggested_max_model_len,
    unrequested_gpus_seen,
    visible_devices_listed,
    vllm_version,
)
from ..capacity.group import declared_load as _declared_load
from ..capacity.layout import Capped, Load, Parallel, Replication, Reserve, Sizer, tp_allowed, weight_load_refusals
from ..capacity.sizing import (
    BYTES_PER_PARAM,
    GB,
    GIB,
    Device,
    EngineSettings,
    ReplicaSizing,
    online_fp8_load_peak,
    size_deployment,
    variant_refusal,
)
from ..catalog.accelerators import device_word, family_known, group_vendor, non_nccl_vendors
from ..catalog.lookup import gpus
from ..engine import LintConfig, group_subject
from ..model import Inventory, ServingGroup
from ..model import layout_text as _layout_text
from ..model.vocab import ANN_TARGET_CONCURRENCY, ANN_TPOT_TARGET
from ..vllm.versions import possible_rows
from ._words import an


def nccl_rules_apply(g: ServingGroup) -> bool:
    """Whether the NVIDIA fabric rules (NVLink, EFA, /dev/shm for NCCL) speak about this group's devices: not
    for vendors whose collectives run their own library (the vendor table's ``nccl``: TPU ICI, Gaudi HCCL,
    NeuronLink, Ascend HCCL, oneCCL, Rebellions, Furiosa)."""
    if g.accelerator_resource and not family_known(g.accelerator_resource):
        return False  # a family the vendor table does not know: SW204 says it cannot decide, nothing blocks
    return group_vendor(g) not in non_nccl_vendors()


def declared_seqs(g: ServingGroup, config: LintConfig | None = None) -> tuple[int | None, str]:
    """The sequences one replica must hold, as declared, and how (``64 by annotation
    shardwise.dev/target-concurrency over 2 replicas``); (None, "no load declared") without a declared load."""
    load = _declared_load(g, config or LintConfig())
    if load.per_replica is None:
        return None, "no load declared"
    return load.per_replica, load_text(load, g)


def load_source(g: ServingGroup) -> str:
    """Where the group's load is declared: ``plan --concurrency``, a stack's or component's ``target_concurrency``
    (newuser11: a VllmService's ArgumentsError told a Pulumi program to "declare the load (annotation
    shardwise.dev/target-concurrency)", which it cannot write), else the annotation."""
    if g.kind == "plan":
        return "--concurrency"
    return "target_concurrency" if g.declared else f"annotation {ANN_TARGET_CONCURRENCY}"


def load_text(load: Load, g: ServingGroup) -> str:
    """``64 by annotation shardwise.dev/target-concurrency`` (``… over 2 replicas`` when there are several)."""
    over = f" over {load.replicas:,} replicas" if load.replicas > 1 else ""
    return f"{load.concurrency:,} by {load_source(g)}{over}"


def context_text(g: ServingGroup, config: LintConfig, s: ReplicaSizing) -> str:
    """``8,192 tokens (p95 context)`` or ``8,192 tokens (max_model_len)`` where no p95 context is declared."""
    how = "p95 context" if expected_context(g, config) else "max_model_len"
    return f"{s.expected_context:,} tokens ({how})"


def fmt_gib(x: float) -> str:
    return f"{x:.1f} GiB"


def layout_text(s: ReplicaSizing) -> str:
    """The sized engine's layout (:func:`shardwise.rules.model.layout_text`): ``TP4×PP1``, ``TP1×PP1×PCP2`` where
    prefill context-parallel ranks are among its GPUs (``gpus`` is TP × PP × PCP), ``×DP8 EP`` with data-parallel
    ranks and expert parallelism."""
    tp, pp = s.tensor_parallel_size, s.pipeline_parallel_size
    return _layout_text(tp, pp, max(s.gpus // (tp * pp), 1), s.data_parallel_size, s.expert_parallel)


def fits_instead(g: ServingGroup, s: ReplicaSizing, config: LintConfig) -> str:
    """What makes one max_model_len request fit: the max_model_len that does, and the cheapest change that
    keeps max_model_len (a higher utilization, an fp8 KV cache, twice the tensor parallelism)."""
    parts: list[str] = []
    fit, sure = suggested_max_model_len(s)
    if fit and fit < s.max_model_len:
        parts.append(f"--max-model-len {fit} fits" if sure else
                     f"--max-model-len {fit} fits by the central estimate (within the error band no --max-model-len "
                     f"of {MIN_SUGGESTED_MAX_MODEL_LEN:,} tokens or more is sure to)")
    elif not fit and s.max_model_len > MIN_SUGGESTED_MAX_MODEL_LEN:
        parts.append(f"no --max-model-len of {MIN_SUGGESTED_MAX_MODEL_LEN:,} tokens or more fits")
    base = engine_settings(g)
    model = require_model(g)
    dev = device(g)  # the GPU ``s`` was sized on
    assert dev is not None
    version = vllm_version(g)
    candidates: list[tuple[str, EngineSettings]] = []
    current = s.gpu_memory_utilization  # as sized: the release's default when none is set
    for util in (0.92, 0.95):
        if util > current:
            candidates.append((f"--gpu-memory-utilization {util:g}", replace(base, gpu_memory_utilization=util)))
    if not base.kv_cache_dtype.lower().startswith("fp8") and model.mla is None:
        candidates.append(("--kv-cache-dtype fp8", replace(base, kv_cache_dtype="fp8")))
    room = _node_room(g)
    if mig_slice_or_none(g) is not None:
        room = 0  # mig20: a CUDA process sees one MIG device, so no wider TP starts on them (SW204)
    if base.tp * 2 * base.pp <= room and model.num_attention_heads % (base.tp * 2) == 0:
        candidates.append((f"--tensor-parallel-size {base.tp * 2}", replace(base, tp=base.tp * 2)))
    for text, settings in candidates:
        r = size_deployment(model, dev, settings, version, expected_context=expected_context(g, config))
        if r.verdict == "starts" and r.margin_verdict == "starts":  # a change that starts, margin included
            parts.append(f"{text} keeps max_model_len {s.max_model_len:,}")
            break
    return "; ".join(parts)


def weights_fit_instead(g: ServingGroup, s: ReplicaSizing, config: LintConfig) -> str:
    """What makes weights that do not fit one GPU start (SW101's remedy): a higher --gpu-memory-utilization, else the
    smallest wider tensor parallelism (within the node, dividing the attention heads) at which the layout starts,
    margin included, each sized as the group is, with the GPUs the pod must then request where it requests fewer;
    where none does, :func:`_weights_elsewhere`."""
    base = engine_settings(g)
    model = require_model(g)
    dev = device(g)
    assert dev is not None
    version = vllm_version(g)
    candidates: list[tuple[str, EngineSettings]] = []
    for util in (0.92, 0.95):
        if util > s.gpu_memory_utilization:
            candidates.append((f"--gpu-memory-utilization {util:g}", replace(base, gpu_memory_utilization=util)))
    per_node = g.pool.gpus_per_node if g.pool is not None else None
    mig = mig_slice_or_none(g)
    # mig20: a CUDA process sees one MIG device, so no wider TP starts on them (SW204)
    for tp in _wider_tps(base, 0 if mig is not None else _node_room(g)):
        if model.num_attention_heads % tp == 0:
            candidates.append((f"--tensor-parallel-size {tp}", replace(base, tp=tp)))
    unit = g.accelerator_resource or "nvidia.com/gpu"
    word = device_word(g, rank=True)
    for text, settings in candidates:
        r = size_deployment(model, dev, settings, version, expected_context=expected_context(g, config))
        if r.verdict == "starts" and r.margin_verdict == "starts":
            request = _more_requested(g, settings.tp * settings.pp, unit, True)
            return f"{text} starts ({r.weights_gib_per_gpu:.1f} GiB of weights per {word}){request}"
    return _weights_elsewhere(s, dev, per_node if isinstance(per_node, int) else None, bool(base.cpu_offload_bytes),
                              mig[0].name if mig is not None else None, word, _fewer_bits(s, g))


def _node_room(g: ServingGroup) -> int:
    """The GPUs of the group's node, as its pool says, else 8 (the most a node commonly holds): the widest layout
    the remedies name."""
    per_node = g.pool.gpus_per_node if g.pool is not None else None
    return per_node if isinstance(per_node, int) else 8


def _wider_tps(base: EngineSettings, room: int) -> Iterator[int]:
    """The tensor-parallel sizes above ``base``'s, doubling, whose engines (times its pipeline stages) fit ``room``
    GPUs: the wider layouts SW101's remedies try, smallest first."""
    tp = base.tp * 2
    while tp * base.pp <= room:
        yield tp
        tp *= 2


def _more_requested(g: ServingGroup, more: int, unit: str, same_unit: bool) -> str:
    """The words naming the ``more`` devices (``unit``) a single-pod replica must request where it requests fewer, else
    "" (``same_unit`` False: the remedy counts other devices than the pod requests, whose count it cannot name)."""
    asked = g.gpus_per_pod if isinstance(g.gpus_per_pod, int) else None
    one_pod = g.pods_per_group is None or (isinstance(g.pods_per_group, int) and g.pods_per_group == 1)
    fewer = asked is not None and asked < more and one_pod and same_unit
    return f", with {more} {unit} requested per pod" if fewer else ""


def weights_alone_instead(g: ServingGroup, s: ReplicaSizing, whole: float) -> str:
    """SW101's remedy where the weights alone exceed the device's whole memory (``whole``) on an accelerator whose
    plugin sizes memory its own way (:func:`..catalog.accelerators.sized_as_cuda`: Ascend, Gaudi, Neuron; mend17):
    sized from the weights alone, never with CUDA's activation, graph or collective terms, which :func:`weights_fit_
    instead` would size the layout it names with ("--tensor-parallel-size 4 starts" said of an Ascend NPU). The
    smallest wider TP within the node (doubling, as that search does, splitting the weights) at which the weights of
    one device, at their lightest, are below its whole memory: a lower bound, said so; else more devices than a node
    holds. Then a checkpoint of fewer bits, as :func:`_weights_elsewhere` names it."""
    base = engine_settings(g)
    model = require_model(g)
    dev = device(g)
    assert dev is not None
    version = vllm_version(g)
    word = device_word(g, rank=True)
    room = _node_room(g)
    ways: list[str] = []
    for tp in _wider_tps(base, room):
        if tp_allowed(model, tp):
            r = size_deployment(model, dev, replace(base, tp=tp), version)
            if r.weights_gib_per_gpu - r.weights_error_below_gib <= whole:
                request = _more_requested(g, tp * base.pp, str(g.accelerator_resource), device_word(g) == word)
                ways.append(f"spread the weights over more {word}s: at --tensor-parallel-size {tp} they come to "
                            f"about {r.weights_gib_per_gpu:.1f} GiB ({r.weights_band_text}) per {word}, below its "
                            f"whole {whole:.1f} GiB{request} ({_WEIGHTS_ALONE})")
                break
    if not ways:
        ways.append(f"spread the weights over more {word}s than the {room} of one node (they come to "
                    f"{s.weights_gb_total * GB / GIB:.1f} GiB, against its whole {whole:.1f} GiB each; "
                    f"{_WEIGHTS_ALONE})")
    ways.extend(_fewer_bits(s, g))
    return "; or ".join(ways)


def _fewer_bits(s: ReplicaSizing, g: ServingGroup) -> list[str]:
    """A checkpoint of fewer bits than the one served, as a remedy (:func:`fewer_bits_words`), each only where vLLM's
    quantisation config takes one of its methods on the group's GPU at its release
    (:func:`..capacity.sizing.variant_refusal`; read48: "serve an FP8 or 4-bit quantised checkpoint" was said of a T4
    at 0.10.0, whose Fp8Config requires 8.0, and of a V100, where AWQConfig requires 7.5 too)."""
    model, dev = require_model(g), device(g)
    settings, version = engine_settings(g), vllm_version(g)

    def taken(method: str) -> bool:
        return dev is None or not variant_refusal(model, dev, settings, version, (method,))

    return fewer_bits_words(s.weight_precision, taken)


def fewer_bits_words(precision: str, taken: Callable[[str], bool]) -> list[str]:
    """The remedy of a checkpoint of fewer bits than ``precision``: FP8 (as ``fp8``) or 4-bit (AWQ or GPTQ) for 16
    bits, 4-bit for 8 bits, none below; a kind only where ``taken`` says vLLM takes one of its methods, a 4-bit one
    named by its method where only one is taken."""
    bits = BYTES_PER_PARAM.get(precision, 0.0)
    if bits < 1:
        return []
    awq, gptq = taken("awq"), taken("gptq")
    four = "4-bit" if awq and gptq else "4-bit AWQ" if awq else "4-bit GPTQ" if gptq else ""
    kinds = [k for k in ("FP8" if bits >= 2 and taken("fp8") else "", four) if k]
    return [f"serve {an(' or '.join(kinds))} quantised checkpoint"] if kinds else []


#: What :func:`weights_alone_instead` says of the layout it names.
_WEIGHTS_ALONE = ("sized from the weights alone, a lower bound: its plugin's own graph, collective and activation "
                  "memory and the KV cache come on top, which shardwise does not size on this accelerator")


def _weights_elsewhere(s: ReplicaSizing, dev: Device, per_node: int | None, offloads: bool = False,
                       mig_of: str | None = None, word: str = "GPU", fewer: list[str] | None = None) -> str:
    """SW101's remedy where no setting of this node's GPUs starts the layout, each named only where it can work
    (review21: "serve a quantised checkpoint or use a GPU with more memory" was said of DeepSeek-V3's FP8 checkpoint,
    628.6 GiB at TP1 on an H100, which no GPU holds): more GPUs, at least the checkpoint's weights over what one GPU
    may use (a lower bound: replicated layers, activations and the KV cache come on top), across nodes where that is
    more than a node of the pool holds; a checkpoint of fewer bits than the one served (FP8 or 4-bit for 16 bits,
    4-bit for 8 bits, none below); a GPU of the vendor's in the catalog whose memory at this utilisation holds the
    weights this layout puts on one GPU. ``offloads``: ``--cpu-offload-gb`` keeps part of the weights in CPU memory,
    so the GPUs they need are no figure of the checkpoint's bytes: a larger amount is named instead. ``mig_of``: the
    GPU whose MIG slice the group runs on (mig20): more slices hold no more of the model (a CUDA process sees one MIG
    device), so a larger profile of that GPU or a whole GPU is named instead of more GPUs. ``word``: what the devices
    are called (:func:`device_word`; mend17: "of these GPUs" on an Ascend NPU). ``fewer``: the checkpoints of fewer
    bits the GPU and release take (:func:`_fewer_bits`); None: every kind :func:`fewer_bits_words` names."""
    ways: list[str] = []
    total = s.weights_gb_total * GB / GIB
    need = math.ceil(total / s.usable_gib_per_gpu) if s.usable_gib_per_gpu > 0 else 0
    if offloads:
        ways.append("offload more of the weights (a larger --cpu-offload-gb)")
    elif mig_of is not None:
        ways.append(f"serve it on a MIG profile of the {mig_of} with more memory, or on whole GPUs (a CUDA process "
                    "sees one MIG device, so more slices of this one hold no more of it)")
    elif need > s.gpus:
        across = (f"; more than a node of this pool holds ({per_node}), so across nodes: pipeline parallelism, or "
                  "data and expert parallelism over pods" if per_node is not None and need > per_node else "")
        ways.append(f"spread the weights over at least {need} of these {word}s ({total:.1f} GiB over "
                    f"{s.usable_gib_per_gpu:.1f} GiB each{across})")
    ways.extend(fewer if fewer is not None else fewer_bits_words(s.weight_precision, lambda method: True))
    if mig_of is None and any(gpu.vendor == dev.vendor and gpu.memory_gib > dev.memory_gib
                              and gpu.memory_gib * s.gpu_memory_utilization > s.weights_gib_per_gpu
                              for gpu in gpus().values()):
        ways.append(f"use {'an' if word in ('NPU', 'HPU') else 'a'} {word} with more memory")
    return "; or ".join(ways) if ways else f"spread the weights over more {word}s"


def not_starting(s: ReplicaSizing, current: Parallel) -> str:
    """``"TP1×PP2 does not start: …"`` when the layout under review refuses at start-up (``does`` for a
    configuration vLLM rejects whatever the memory, ``would`` for the central estimate), else "": a finding that
    proposes another layout never compares it with what a layout that does not start would hold."""
    if s.starts:
        return ""
    return f"{current.text()} {'does' if s.certain else 'would'} not start: {s.refusal or 'its weights do not fit'}"


def replicas_text(r: Replication, current: Parallel, how: str, context: str,
                  source: str = f"annotation {ANN_TARGET_CONCURRENCY}", down: str = "",
                  change: str = "", word: str = "GPU") -> tuple[str, bool]:
    """What the replicas of a smaller layout hold together against the declared load, and whether that is sure:
    ``2 replicas × TP1×PP1 on the same 2 GPUs hold 110 sequences of 8,192 tokens together: enough for the 64 a
    replica must hold (128 by annotation … over 2 replicas)``, and, where that is sure, the ``change`` that runs them
    (:func:`change_text`). Without a declared load, what they would hold beside what the current layout holds (or
    ``down``: why it does not start), never sure. ``word``: what the devices are called (:func:`device_word`)."""
    alt = r.alt
    them, one = placed(alt.replicas, alt.fit.parallel, current, word)
    together = "" if one else " together"
    if r.need is None:
        where = down or f"{current.text()} holds {r.current_holds:,}"
        return (f"{them} would hold {r.together:,} sequences of {context}{together} where {where}; declare the load "
                f"({source}) to have it judged"), False
    about = "" if alt.fit.sure else "about "
    text = (f"{them} hold{'s' if one else ''} {about}{r.together:,} sequences of {context}{together}: enough for the "
            f"{r.need:,} a replica must hold ({how})")
    if alt.fit.sure:
        return text + (f"; run {'it' if one else 'them'} instead: {change}" if change else ""), True
    return f"{text} (within the estimate's error band)", False


def change_text(g: ServingGroup, current: Parallel, alt: Parallel, engines: int) -> str:
    """The edit that runs ``engines`` engines of ``alt`` where each engine of ``current`` runs, as the workload
    writes it: ``replicas 3 → 6, --tensor-parallel-size 2 → 1, nvidia.com/gpu limit 2 → 1`` (remedy1, newuser12: a
    blocking finding with a declared load named the smaller layout but not the change). Replicas the workload does not
    state as a number are named by their factor (``replicas × 2``); a GPU limit is named only where one pod runs the
    whole engine (not an LWS group's pods, nor a component's or a plan's, which take theirs from the layout)."""
    flag = (lambda name: name) if g.declared or g.kind == "plan" else (lambda name: "--" + name.replace("_", "-"))
    out = []
    if engines != 1:
        n = g.replicas if isinstance(g.replicas, int) and not isinstance(g.replicas, bool) else None
        field = "groups" if g.kind == "VllmMultiNode" else "replicas"  # the component's LeaderWorkerSet replicas
        out.append(f"{field} {n:,} → {n * engines:,}" if n is not None else f"{field} × {engines}")
    if alt.tp != current.tp:
        out.append(f"{flag('tensor_parallel_size')} {current.tp} → {alt.tp}")
    if alt.pp != current.pp:
        out.append(f"{flag('pipeline_parallel_size')} {current.pp} → {alt.pp}")
    per_pod = g.gpus_per_pod
    if (not g.declared and g.kind != "plan" and g.accelerator_resource and g.pods_per_group == 1
            and isinstance(per_pod, int) and per_pod == current.world and alt.world != per_pod):
        out.append(f"{g.accelerator_resource} limit {per_pod:,} → {alt.world:,}")
    return ", ".join(out)


def device_name(g: ServingGroup) -> str:
    """One of the group's devices as a message names it: the catalog's name (``H100 SXM``, ``MI300X cpx_nps4 1/8``),
    else ``unknown NPU`` or ``custom HPU`` in the word of the accelerator the pods request (:func:`device_word`; mend6:
    an Ascend pool sized by its labels was "one unknown GPU")."""
    name = gpu_name(g)
    word = device_word(g, rank=True)
    return name if word == "GPU" or gpu_of(g) is not None else name.replace("GPU", word)


def placed(replicas: int, alt: Parallel, current: Parallel, word: str = "GPU") -> tuple[str, bool]:
    """Where ``replicas`` engines of ``alt`` run on the GPUs of one ``current`` engine, and whether that is one
    engine: ``2 replicas × TP1×PP1 on the same 2 GPUs``, or, where they leave GPUs over (fewer pipeline stages than
    an uneven layout holds, :func:`..capacity.layout.fewer_stages`), ``1 replica × TP1×PP2 on 2 of the 3 GPUs``."""
    used = replicas * alt.world
    noun = "replica" if replicas == 1 else "replicas"
    if used < current.world:
        return f"{replicas:,} {noun} × {alt.text()} on {used:,} of the {current.world:,} {word}s", replicas == 1
    return f"{replicas:,} {noun} × {alt.text()} on the same {current.world:,} {word}s", replicas == 1


def reserve_text(res: Reserve, source: str, current: Parallel | None = None, change: str = "",
                 word: str = "GPU") -> tuple[str, bool]:
    """A smaller layout against the doctrine's reserve (no load declared), and whether that is sure:
    ``2 replicas × TP1×PP1 fit the same GPUs: each starts at max_model_len 131,072 with …``; with ``current``
    given and GPUs left over, ``1 replica × TP1×PP2 on 2 of the 3 GPUs fits: it starts …``."""
    f = res.fit
    s = f.sizing
    alt = f"{res.replicas:,} replicas × {f.parallel.text()}"
    same = f"fit the same {word}s"
    fit, each = same, "each"
    if current is not None and res.replicas * f.parallel.world < current.world:
        alt, one = placed(res.replicas, f.parallel, current, word)
        fit, each = ("fits", "it") if one else ("fit", "each")
    reserve = f"{s.weights_gib_per_gpu:.1f} GiB of weights × {res.kv_reserve:g} = {res.reserve_gib:.1f} GiB"
    if res.sure:
        run = "it" if each == "it" else "them"
        return (f"{alt} {fit}: {each} starts at max_model_len {s.max_model_len:,} with "
                f"{s.kv_cache_gib_per_gpu:.1f} GiB ({s.kv_band_text}) of KV cache per {word} and keeps the KV "
                f"reserve ({reserve} of the {s.usable_gib_per_gpu:.1f} GiB vLLM may use); run {run} instead"
                f"{f' ({change})' if change else ''}, or "
                f"declare the load ({source}) to have it judged against the load"), True
    if res.kept:
        why = (f"{each} starts at max_model_len {s.max_model_len:,} with the KV reserve by the capacity model, whose "
               "estimates follow CUDA and ROCm, not this device's vLLM plugin")
    else:
        why = (f"{each} starts at max_model_len {s.max_model_len:,} with {s.kv_cache_gib_per_gpu:.1f} GiB "
               f"({s.kv_band_text}) of KV cache per {word}, but the KV reserve is thin ({reserve} against the "
               f"{s.usable_gib_per_gpu:.1f} GiB vLLM may use)")
    may = f"may {same}" if fit == same else f"may {fit.removesuffix('s')}"
    return f"{alt} {may}: {why}; declare the load ({source}) to have it judged", False


def capped_text(c: Capped, source: str, word: str = "GPU") -> str:
    """A smaller layout that serves the model only at a lower ``--max-num-seqs`` (no load declared): ``2 replicas ×
    TP1×PP1 would serve it on the same GPUs with --max-num-seqs 512 …``. ``word``: what the devices are called
    (:func:`device_word`; review34: "on the same GPUs" and "per GPU" on an Ascend pool, whose devices the finding's
    first words count as NPUs)."""
    f = c.reserve.fit
    s = f.sizing
    n = c.reserve.replicas
    return (f"{n:,} replicas × {f.parallel.text()} would serve it on the same {word}s with --max-num-seqs "
            f"{c.cap:,} (vLLM's default here is {c.default:,}, and what follows it, the profile's sampler over the "
            f"vocabulary above all, leaves too little KV cache): each starts at max_model_len {s.max_model_len:,} "
            f"with {s.kv_cache_gib_per_gpu:.1f} GiB ({s.kv_band_text}) of KV cache per {word}; set the cap and run "
            f"them, or declare the load ({source}) to have it judged")


def latency_escape(g: ServingGroup, message: str, sure: bool) -> tuple[str, bool]:
    """A declared per-token latency target (annotation shardwise.dev/tpot-target-ms, the stack's
    ``tpot_target_ms``) makes a sure finding about avoidable sharding advisory: the sharding may be there to
    meet it (SW104, SW202)."""
    if not sure or g.tpot_target_ms is None:
        return message, sure
    return (f"{message}; the sharding may be there to meet the per-token latency target of {g.tpot_target_ms:g} ms "
            f"({'tpot_target_ms' if g.declared else ANN_TPOT_TARGET})"), False


def ecc_off_sizing(g: ServingGroup, config: LintConfig) -> ReplicaSizing | None:
    """The group's sizing at its GPU's ECC-off figure where the catalog's is the ECC-on one
    (:attr:`..capacity.sizing.Device.memory_gib_high`), else None: a finding that the load does not fit blocks only
    where it does not fit there either (ecc1)."""
    sz = sizer(g, config)
    high = sz.device.memory_gib_high if sz is not None else None
    if sz is None or not high:
        return None
    dev = replace(sz.device, memory_gib=high, memory_gib_high=None, memory_gib_low=None)
    return size_deployment(sz.model, dev, sz.settings, sz.version, expected_context=sz.expected_context,
                           weights_gib=sz.weights_gib)


def ecc_on_sizer(sz: Sizer) -> tuple[Sizer, ReplicaSizing] | None:
    """A sizer and the engine's sizing at the GPU's ECC-on figure where the catalog's is the ECC-off one
    (:attr:`..capacity.sizing.Device.memory_gib_low`), else None: a finding that fewer GPUs would serve the model
    blocks only where they serve there too (SW104, SW202; ecc1)."""
    low = sz.device.memory_gib_low
    if not low:
        return None
    dev = replace(sz.device, memory_gib=low, memory_gib_low=None)
    return (Sizer(sz.model, dev, sz.settings, sz.version, sz.expected_context, sz.weights_gib),
            size_deployment(sz.model, dev, sz.settings, sz.version, expected_context=sz.expected_context,
                            weights_gib=sz.weights_gib))


def ecc_on_text(sz: Sizer) -> str:
    """What a finding that fewer GPUs serve says where that is not sure with ECC on (:func:`ecc_on_sizer`)."""
    return (f" (with ECC off, {sz.device.memory_gib:.2f} GiB; with ECC on the GPU reports "
            f"{sz.device.memory_gib_low:.2f} GiB, where it is not sure: a manifest does not say which)")


def tp_bound_text(g: ServingGroup, most: int) -> str:
    """Why ``--tensor-parallel-size``, not known yet, is at most ``most`` (:func:`..capacity.group.most_tp_unseen`)."""
    gpus, resource = g.gpus_per_pod, g.accelerator_resource or "GPU"
    c = g.main_container
    seen = unrequested_gpus_seen(c.security.privileged, c.env) if c is not None else ""
    listed = visible_devices_listed(c.env) if seen and c is not None and not seen.startswith("privileged") else 0
    unit = device_word(g)  # mend24: a privileged container on an NPU or HPU node sees that node's devices
    if listed:  # the container may see the GPUs its list names (review39)
        return (f"TP × PP cannot exceed the {unit}s the container may see ({seen} lists {listed}; the {gpus} "
                f"{resource} it requests where the NVIDIA container toolkit ignores the variable), so at most {most}")
    if seen:  # the container may see every GPU of its node (review38)
        return (f"TP × PP cannot exceed the {unit}s of its node ({node_gpus_seen(g)}), all of which the container "
                f"may see ({seen}), so at most {most}")
    return f"TP × PP cannot exceed the {gpus} {resource} a pod gets, so at most {most}"


def refused_whatever_tp_text(g: ServingGroup, r: TpRefusals) -> str:
    """The one blocking finding where ``--tensor-parallel-size`` is not known yet and vLLM refuses every TP the pod's
    GPUs allow (:func:`..capacity.group.refused_whatever_tp`, mend17): what refuses each TP (its weights, the KV
    cache of one max_model_len request, a split of the weights vLLM refuses), then the remedy that starts from the
    largest TP sized (a shorter --max-model-len where the KV cache is short there, else more memory for the
    weights)."""
    tp_top, top = r.top
    rank, unit = device_word(g, rank=True), device_word(g)  # mend24: an NPU's or HPU's own noun, as elsewhere
    parts: list[tuple[int, str]] = []  # by TP, as vLLM would meet them
    for tp, s in r.sized:
        if s.weights_fit_band == "refuses":
            parts.append((tp, f"at {layout_text(s)} {s.weights_gib_per_gpu:.1f} GiB ({s.weights_band_text}) of "
                              f"weights per {rank} exceed it"))
            continue
        band = "" if s.weights_fit_band == "starts" else f" ({s.weights_band_text})"  # its weights may not fit either
        used = f"{s.weights_gib_per_gpu:.1f} GiB{band} of weights and {s.activation_gib_per_gpu:.1f} GiB of activations"
        if s.available_kv_gib <= 0:
            parts.append((tp, f"at {layout_text(s)} {used} leave no KV cache ({s.available_kv_gib:.2f} GiB, "
                              f"{s.kv_band_text})"))
        else:
            parts.append((tp, f"at {layout_text(s)} about {s.available_kv_gib:.2f} GiB ({s.kv_band_text}) is left "
                              f"for the KV cache after {used}, and one request of {s.max_model_len:,} tokens needs "
                              f"{s.needed_kv_gib:.2f} GiB"))
    if r.split:
        tps = [f"TP{tp}" for tp in r.split]
        names = tps[0] if len(tps) == 1 else f"{', '.join(tps[:-1])} and {tps[-1]}"
        parts.append((r.split[0], f"{names} {'does' if len(tps) == 1 else 'do'} not split the weights, which vLLM "
                                  f"refuses ({weight_load_split(g, r.split[0])[0]})"))
    clauses = [text for _, text in sorted(parts, key=lambda p: p[0])]
    if r.kv_owns:
        fit, sure = suggested_max_model_len(top)
        if fit:
            how = "beyond the estimate's error" if sure else "by the central estimate only"
            fix = (f"set --tensor-parallel-size {tp_top} with --max-model-len {fit} or less (it fits there {how}), "
                   f"or give the pod more {unit}s and set --tensor-parallel-size to them")
        else:
            fix = (f"no --max-model-len of {MIN_SUGGESTED_MAX_MODEL_LEN:,} tokens or more fits at TP{tp_top}: give "
                   f"the pod more {unit}s and set --tensor-parallel-size to them")
        fix += f", or use {an(unit)} with more memory"
    else:
        fix = (f"give the pod more {unit}s and set --tensor-parallel-size to them, serve a quantised checkpoint, or "
               f"use {an(unit)} with more memory")
    return (f"whatever --tensor-parallel-size is (not known yet; {tp_bound_text(g, r.most)}), {top.model_id} in "
            f"{top.weight_precision} does not start on {device_name(g)}, where gpu_memory_utilization "
            f"{top.gpu_memory_utilization:g} × {top.gpu_memory_gib:.1f} GiB allows {top.usable_gib_per_gpu:.1f} GiB "
            f"per {rank}: {'; '.join(clauses)}; vLLM will fail at start-up ({top.vllm_version_note}); {fix}")


def weight_load_split(g: ServingGroup, tp: int) -> list[str]:
    """Why vLLM surely refuses to split the group's weights at ``tp`` (:func:`..capacity.layout.weight_load_refusals`,
    sure ones only), in words."""
    return [r.message for r in weight_load_refusals(require_model(g), tp) if r.sure]


def command_crashes(g: ServingGroup, inv: Inventory) -> bool:
    """Whether the group's vLLM command, as written, makes vLLM exit at start-up (an SW003 crash: ``${TP_SIZE}`` in
    args Kubernetes does not expand): its unknowns are then held back by that finding, never decided "whatever they
    are" (mend17)."""
    subject = group_subject(g)
    return any(i.crash and i.subject == subject for i in inv.launch_issues)


def quantization_refused(g: ServingGroup, inv: Inventory) -> bool:
    """Whether SW003 says vLLM exits at start-up on the group's ``--quantization`` (a flag the checkpoint's own
    quantization_config refuses, :func:`~shardwise.rules.vllm.flags.checkpoint_quantization_refused`, or a value the
    release does not take): the layout sized with that flag's format is one that never runs, so the rules that
    propose another layout or format (SW104, SW106) hold back, as they do where no layout starts (mend37)."""
    subject = group_subject(g)
    where = g.at("quantization")
    return any(i.crash and i.subject == subject and i.location == where for i in inv.launch_issues)


def refused_at_load(g: ServingGroup, s: ReplicaSizing, settings: EngineSettings) -> bool:
    """Whether vLLM surely fails loading the weights of the layout ``s`` sizes with ``settings`` (another layout of
    the group; SW101's refusals of online FP8's load peak, :func:`..capacity.sizing.online_fp8_load_peak`): a layout
    a rule suggests must not be one (SW104's smaller replicas). Sure only on a known release, where the peak less
    the weights' band exceeds the device's whole memory (mend20)."""
    dev = device(g)
    if dev is None or s.weights_gib_per_gpu <= 0:
        return False
    rv = vllm_version(g)
    peak = online_fp8_load_peak(require_model(g), dev, settings, rv, s)
    if peak is None or (peak.layerwise_release and not all(r.online_fp8_layerwise for r in possible_rows(rv))):
        return False  # not quantised online; or it may refuse on an older release only: not sure
    return load_surely_above(g, s, peak.gib)


def whole_gib(g: ServingGroup, s: ReplicaSizing) -> float:
    """The device's whole memory: the catalog's or the label's, above the higher figure of a GPU whose memory depends
    on its ECC setting (ecc1)."""
    dev = device(g)
    return max(s.gpu_memory_gib, (dev.memory_gib_high if dev is not None else None) or 0.0)


def load_surely_above(g: ServingGroup, s: ReplicaSizing, peak_gib: float) -> bool:
    """Whether a load peak of ``peak_gib`` per device (online FP8's, :func:`..capacity.sizing.online_fp8_load_peak`)
    exceeds the device's whole memory (:func:`whole_gib`) even at its lightest: less the weights' error band (its
    low side) scaled from the weights ``s`` sizes to the peak. ``s`` holds some weights (``weights_gib_per_gpu`` above
    0). SW101's refusals at load and SW104's layouts that fail at load judge by it alike (mend20)."""
    return peak_gib - s.weights_error_below_gib * peak_gib / s.weights_gib_per_gpu > whole_gib(g, s)

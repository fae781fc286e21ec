"""The rule classes: :class:`Rule`, and the two shapes most rules take, :class:`GroupRule` (one serving group
at a time) and :class:`ObjectRule` (one object of the inventory at a time), with how findings name the objects
they are about and what a crash or an unknown value on one of them becomes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

from ..catalog.accelerators import sized_as_cuda
from ..catalog.partitions import ASSUMED_MODE
from ..model import (
    UNKNOWN_AT,
    Autoscaler,
    Ingress,
    Inventory,
    LaunchIssue,
    Location,
    ModelNotKnown,
    NetworkPolicy,
    NodePool,
    Router,
    ServingGroup,
    Suppression,
    Undecidable,
)
from ..model.records import evolve
from ..model.vocab import ANN_BASE_MODEL
from .findings import Hit, LintConfig, suppressed_by
from .meta import Level, RuleMeta


class Rule:
    """Base class: subclasses set ``meta`` and implement ``check``."""

    meta: ClassVar[RuleMeta]

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:  # pragma: no cover
        raise NotImplementedError

    def applies_to(self, g: ServingGroup) -> bool:
        """Whether the rule checks serving group ``g``: a plan only when its metadata says it applies to plans."""
        return self.meta.applies_to_plans or g.kind != "plan"

    def groups(self, inv: Inventory) -> Iterator[ServingGroup]:
        """The serving groups of ``inv`` the rule checks (:meth:`applies_to`), in input order."""
        return (g for g in inv.groups if self.applies_to(g))


class InventoryObject(Protocol):
    """What a finding about one object of the inventory needs of it: where it is written and its suppressions."""

    @property
    def location(self) -> Location: ...

    @property
    def suppressions(self) -> Sequence[Suppression]: ...


#: The objects whose ``kind`` is their Kubernetes kind (a node pool's says where it was read from).
_KINDED = (Ingress, Autoscaler, NetworkPolicy, Router)


def object_subject(kind: str, name: str, namespace: str | None = None) -> str:
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def group_subject(g: ServingGroup) -> str:
    return object_subject(g.kind, g.name, g.namespace)


def subject_of(obj: InventoryObject) -> str:
    """How findings name an object of the inventory: ``Deployment serving/llama``, ``NodePool gpu``,
    ``SecurityGroup gpu-nodes``, ``Service serving/llama``, ``HTTPRoute serving/chat``."""
    if isinstance(obj, ServingGroup):
        return group_subject(obj)
    if isinstance(obj, LaunchIssue):
        return obj.subject
    named: Any = obj
    kind = named.kind if isinstance(obj, _KINDED) else type(obj).__name__
    return object_subject(kind, named.name, getattr(named, "namespace", None))


def hit(
    obj: InventoryObject,
    message: str,
    location: Location | None = None,
    level: Literal["advisory", "mandatory"] | None = None,
) -> Hit:
    """A hit on one object of the inventory (a serving group, a node pool, a Service ...), carrying its
    suppressions."""
    return Hit(subject_of(obj), message, location or obj.location, tuple(obj.suppressions), level=level)


def level_for(meta: RuleMeta, config: LintConfig) -> Level:
    return config.enforcement.get(meta.code, meta.enforcement)


#: How the message of an undecided finding starts.
CANNOT = "cannot decide: "


def internal_error(meta: RuleMeta, exc: Exception) -> str:
    return f"internal error in rule {meta.name}: {type(exc).__name__}: {exc}"


#: Rules about what an operator may add to the pod it builds (the GPU request, /dev/shm, probes): on a group
#: the generic reader read (``ServingGroup.unknown_operator``) their blocking findings are advisory, and so they
#: are on a patch merged onto a base elsewhere (``ServingGroup.fragment``), which may hold them.
OPERATOR_ADDS = frozenset({"SW204", "SW401", "SW402"})


#: The capacity rules whose verdict is a memory estimate made with the terms of vLLM's CUDA (and ROCm) worker: on an
#: accelerator whose vLLM plugin sizes memory its own way (``catalog.accelerators.sized_as_cuda``) their blocking
#: findings are advisory (mend12: SW104 blocked on an Ascend NPU sized with CUDA's estimates).
SIZED_RULES = frozenset({"SW101", "SW102", "SW103", "SW104", "SW105", "SW106", "SW202"})
#: Of them, those whose blocking verdict is that the model fits in less (fewer GPUs, a smaller layout): unsure too
#: where the estimate leaves out terms that only add (an AMD GPU sized without ROCm's).
FEWER_RULES = frozenset({"SW104", "SW106", "SW202"})


#: The rules that run on a serving runtime read alone (``ServingGroup.template``): those about its own container.
TEMPLATE_CHECKS = frozenset({"SW003", "SW105", "SW307", "SW309", "SW310", "SW401", "SW402", "SW407", "SW408"})


@dataclass(frozen=True)
class NotRunning:
    """A source of "this replica does not run as written": a rule whose blocking finding says a group's replica never
    runs as written (its pods never schedule on the pool, SW201; it cannot start on its MIG devices, SW204). On a group
    where that finding blocks, the other capacity and topology rules' blocking hits judged on the group's GPU or pool
    are advisory with :attr:`note` (:meth:`GroupRule._on_not_running`): the replica they judged never runs, and what
    the source asks to change may change what they judge. One root cause, one blocking finding (DESIGN.md, "When a
    finding blocks"). A source may make only some rules advisory (:attr:`only`): SW205's blocking finding that the TP
    group's all-reduces cross nodes over TCP, beside SW201's finding on the same TCP. The registry makes the list
    (checks/index.py ``wire_not_running``: the engine imports no rule)."""

    #: the rule whose finding blocks
    code: str
    #: its findings that the group's replica does not run as written (empty where that is not so or not known), judged
    #: with the run's configuration (SW104's depends on its --kv-reserve and --p95-context)
    says: Callable[[ServingGroup, Inventory, LintConfig], Sequence[Hit]]
    #: the words added to a hit made advisory; ``{pool}`` is the group's pool
    note: str
    #: the rules that keep their level beside it (the source itself always does)
    keep: frozenset[str] = frozenset()
    #: the only rules it makes advisory; None: every capacity and topology rule
    only: frozenset[str] | None = None

    def applies(self, code: str) -> bool:
        """Whether the source makes the blocking hits of rule ``code`` advisory where it blocks."""
        return code != self.code and code not in self.keep and (self.only is None or code in self.only)


class GroupRule(Rule):
    """A rule that looks at one serving group at a time.

    An unknown value makes *this group* undecided (not the whole inventory): the finding names the
    group and the unknown property. A crash on one group is a mandatory internal-error finding on
    that group; the rule still checks the others. Plans are skipped unless the rule applies to them
    (``RuleMeta.applies_to_plans``).

    ``fields`` names the fields a finding of the rule asks to change (engine flags such as
    ``"tensor_parallel_size"``, or ``ServingGroup.locations`` keys such as ``"resources"``): a hit
    at the group's own location points at the first of them that is written (an undecided one at the
    unknown property first), so the finding's line is the line to change.
    """

    fields: ClassVar[tuple[str, ...]] = ()
    #: The rule reads the pool's own fields (GPUs per node, NVLink domain) as well as, or instead of, the GPU through
    #: the capacity model: a group whose NodePool may launch several kinds of node is judged on every kind whatever
    #: the capacity model was asked (``_on_every_kind``), not only when the GPU was read.
    reads_pool: ClassVar[bool] = False
    #: The sources of "this replica does not run as written" of the run (:meth:`_on_not_running`), in the order they
    #: are asked, given to every group rule by the registry (checks/index.py ``wire_not_running``: the engine imports
    #: no rule); empty: none asked.
    not_running: tuple[NotRunning, ...] = ()

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        groups = inv.groups if config.share is None else inv.groups[config.share[0]:config.share[1]]
        # what the loop asks of every group, looked up once (a lint visits each group once per rule)
        applies = None if type(self).applies_to is Rule.applies_to else self.applies_to
        plans = self.meta.applies_to_plans
        on_templates = self.meta.code in TEMPLATE_CHECKS
        check_group = self.check_group
        fields = self.fields
        for g in groups:
            if applies is None:
                if not plans and g.kind == "plan":  # Rule.applies_to
                    continue
            elif not applies(g):
                continue
            if g.template and not on_templates:
                continue  # the services that run on the template set what this rule reads
            reads, device_reads = g.model_reads, g.device_reads
            try:
                hits = list(check_group(g, inv, config))
                if g.pool_options and (g.device_reads > device_reads or self.reads_pool):  # a kind it may not get
                    hits = self._on_every_kind(hits, g, inv, config)
                if hits:  # most groups give a rule nothing: what a hit is made advisory by is asked of hits only
                    if g.model_assumed and g.model_reads > reads:
                        hits = [self._on_assumed_model(h, g, config) for h in hits]
                    if g.pool is not None and g.pool.gpu_assumed and g.device_reads > device_reads:
                        hits = [self._on_assumed_gpu(h, g, config) for h in hits]
                    if runs_no_replica(g, inv) and not self.meta.code.startswith("SW3"):
                        hits = [self._on_no_replica(h, g, config) for h in hits]
                    if g.patched_by and not self.meta.code.startswith("SW3"):
                        hits = [self._on_patched(h, g, config) for h in hits]
                    if (self.not_running and self.meta.code.startswith(("SW1", "SW2"))
                            and (g.device_reads > device_reads or self.reads_pool)):
                        hits = self._on_not_running(hits, g, inv, config)
                    if hits and self.meta.code in SIZED_RULES and (why := sized_as_cuda(g)) is not None \
                            and (why[1] or self.meta.code in FEWER_RULES):
                        hits = [self._on_sized_as_cuda(h, why[0], config) for h in hits]
                    if g.unknown_operator and self.meta.code in OPERATOR_ADDS:
                        hits = [self._on_unknown_operator(h, g, config) for h in hits]
                    elif g.fragment is not None and (self.meta.code in OPERATOR_ADDS or (
                            g.fragment_args and not self.meta.code.startswith("SW3"))):
                        hits = [self._on_fragment(h, g, config) for h in hits]
            except ModelNotKnown:
                continue  # SW004 reports the unknown model once for the workload, naming this rule
            except Undecidable as u:
                yield Hit(
                    group_subject(g),
                    f"{CANNOT}{u.text}",
                    g.at(u.prop, UNKNOWN_AT, *self.fields),
                    tuple(g.suppressions),
                    undecided=True,
                )
            except Exception as exc:  # noqa: BLE001 - one bad group must not hide the others
                yield Hit(group_subject(g), internal_error(self.meta, exc), g.location, internal=True)
            else:
                for h in hits:
                    yield evolve(h, location=g.at(*fields)) if fields and h.location == g.location else h

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        raise NotImplementedError  # pragma: no cover

    def _on_not_running(self, hits: list[Hit], g: ServingGroup, inv: Inventory, config: LintConfig) -> list[Hit]:
        """The blocking hits of a capacity or topology rule that judged the group's replica on its GPU or pool, where
        a source of :attr:`not_running` blocks because that replica does not run as written, are advisory with the
        source's note (a level set in the configuration wins); the first source that blocks is named. A source blocks
        only where its finding does: not where the configuration lowers or disables it, not on an unknown operator's
        object or a fragment where it is a rule about what the operator adds (advisory there), and not where every one
        of its findings on the group is suppressed (a suppression accepts that finding; it does not make the replica
        run, so the others keep blocking). A rule in the source's ``keep`` keeps its level beside it."""
        demote = [h for h in hits if self.meta.code not in config.enforcement
                  and (h.level or level_for(self.meta, config)) == "mandatory" and not h.undecided]
        if not demote:
            return hits
        for i, source in enumerate(self.not_running):
            if source.applies(self.meta.code) and self._source_blocks(i, g, inv, config):
                pool = (g.pool.variant_of or g.pool.name) if g.pool is not None else ""
                note = source.note.format(pool=pool)
                return [evolve(h, level="advisory", message=f"{h.message} ({note})") if h in demote else h
                        for h in hits]
        return hits

    def _source_blocks(self, i: int, g: ServingGroup, inv: Inventory, config: LintConfig) -> bool:
        """Whether the finding of the ``i``-th source of :attr:`not_running` blocks on the group: at its configured
        level, not advisory on an unknown operator's object or a fragment, not made advisory by an earlier source
        (SW205's beside SW201's Pending pods), and not every one of its findings suppressed."""
        source = self.not_running[i]
        if config.enforcement.get(source.code, "mandatory") != "mandatory" or (
                source.code in OPERATOR_ADDS and (g.unknown_operator or g.fragment is not None)):
            return False
        if any(e.applies(source.code) and self._source_blocks(j, g, inv, config)
               for j, e in enumerate(self.not_running[:i])):
            return False
        # none said, or every one suppressed: a suppression accepts the finding, it does not make the replica run
        return not all(suppressed_by(source.code, h, config) for h in source.says(g, inv, config))

    def _on_sized_as_cuda(self, h: Hit, why: str, config: LintConfig) -> Hit:
        """A blocking memory verdict on an accelerator the capacity model does not size as its own (``why``:
        :func:`~..catalog.accelerators.sized_as_cuda`) is advisory (a level set in the configuration wins): a finding
        blocks only when it is sure (DESIGN.md, "When a finding blocks"), and the estimate is not this device's. A hit
        sure whatever the device's own terms (:attr:`Hit.sure_anywhere`: SW101's weights alone above the device's whole
        memory) keeps blocking, saying so (mend15)."""
        if self.meta.code in config.enforcement or (h.level or level_for(self.meta, config)) != "mandatory":
            return h
        if h.sure_anywhere:
            return evolve(h, message=f"{h.message} (sure on this accelerator too: {h.sure_anywhere})")
        return evolve(h, level="advisory", message=f"{h.message} (advisory: {why})")

    def _on_unknown_operator(self, h: Hit, g: ServingGroup, config: LintConfig) -> Hit:
        """A blocking hit about what an unknown operator may add to the pod is advisory (a level set in the
        configuration wins): the object is not the whole pod."""
        if self.meta.code in config.enforcement or (h.level or level_for(self.meta, config)) != "mandatory":
            return h
        return evolve(h, level="advisory", message=(
            f"{h.message} (advisory: the operator of this {g.kind} builds the pod and may add it; lint the pod it "
            "renders to make this finding blocking)"))

    def _on_no_replica(self, h: Hit, g: ServingGroup, config: LintConfig) -> Hit:
        """A blocking capacity, topology or reliability hit on a workload that runs no replica as written
        (:func:`runs_no_replica`) is advisory (a level set in the configuration wins): nothing starts, so the fault
        shows the moment someone scales it up, and blocking it would stop every change beside it. Security hits
        keep their level: a pod scaled up by hand is exposed without a word."""
        if self.meta.code in config.enforcement or (h.level or level_for(self.meta, config)) != "mandatory":
            return h
        return evolve(h, level="advisory", message=(
            f"{h.message} (advisory: the {g.kind} runs no replica as written (replicas: 0) and no KEDA ScaledObject "
            "or HTTPScaledObject, HorizontalPodAutoscaler of minReplicas 0 or Argo Rollout (workloadRef) in the inputs "
            "runs it from zero (a HorizontalPodAutoscaler of minReplicas 1 or more leaves a target at zero replicas "
            "alone); it blocks once the manifest runs a replica)"))

    def _on_patched(self, h: Hit, g: ServingGroup, config: LintConfig) -> Hit:
        """A blocking capacity, topology or reliability hit on an object whose containers' args, command, env or
        device count (or pod's nodeSelector or affinity) a kustomization that was not built patches
        (``ServingGroup.patched_by``) is advisory (a level set in the configuration wins): the flags read are the
        base's, not those the overlay applies. Security hits keep their level (fail closed)."""
        if self.meta.code in config.enforcement or (h.level or level_for(self.meta, config)) != "mandatory":
            return h
        return evolve(h, level="advisory", message=(
            f"{h.message} (advisory: the kustomization {g.patched_by} patches this container's args, command, env or "
            "device count, or the pod's nodeSelector or affinity, which were read from the base as written; lint what "
            "it builds, `kustomize build` of its folder piped to `shardwise lint -`, to make this finding blocking)"))

    def _on_fragment(self, h: Hit, g: ServingGroup, config: LintConfig) -> Hit:
        """A blocking hit about what a patch leaves to its base (the GPU request, /dev/shm, probes) is advisory (a
        level set in the configuration wins): the object read is not the whole object applied."""
        if self.meta.code in config.enforcement or (h.level or level_for(self.meta, config)) != "mandatory":
            return h
        fix = g.fragment_fix or "lint what the overlay builds, `kustomize build DIR | shardwise lint -`"
        return evolve(h, level="advisory", message=(
            f"{h.message} (advisory: {g.fragment}, which may set it; {fix}, to make this finding blocking)"))

    def _on_assumed_gpu(self, h: Hit, g: ServingGroup, config: LintConfig) -> Hit:
        """A blocking hit that read the GPU of a pool whose GPU is read from a name only (``NodePool.gpu_assumed``)
        is advisory: the nodes may carry another GPU. A level set in the configuration wins."""
        if self.meta.code in config.enforcement or (h.level or level_for(self.meta, config)) != "mandatory":
            return h
        assert g.pool is not None
        return evolve(h, level="advisory", message=f"{h.message} (advisory: {g.pool.gpu_assumed})")

    def _on_every_kind(self, hits: list[Hit], g: ServingGroup, inv: Inventory, config: LintConfig) -> list[Hit]:
        """The hits of a rule that read the GPU of a group whose NodePool may launch several kinds of node for it
        (``ServingGroup.pool_options``), judged on each kind: a blocking hit stays blocking only when the rule
        blocks on every kind (DESIGN.md, "When a finding blocks"); otherwise the hits of the first kind it holds
        on (the billed one first) are advisory and name the kinds it holds on. A level set in the configuration
        wins; a kind the rule cannot decide on is one it is not sure of."""
        kinds = [g.pool, *g.pool_options]
        found: list[list[Hit] | None] = [hits]
        undecided: Undecidable | None = None  # the first kind's that cannot be decided
        for alt in _option_groups(g):
            try:
                found.append(list(self.check_group(alt, inv, config)))
            except Undecidable as u:  # undecided on that kind: not sure there
                undecided = undecided or u
                found.append(None)
            except Exception:  # noqa: BLE001 - failing on that kind: not sure there
                found.append(None)
        fired = [k for k, hs in enumerate(found) if hs]
        if not fired and undecided is not None:
            # silent on every kind it decides, and one it cannot (a pinned node no input describes, review48): the
            # pod may land there, so the rule says it cannot decide, as on that kind alone
            raise undecided
        blocks = [k for k in fired if any((h.level or level_for(self.meta, config)) == "mandatory"
                                          for h in found[k] or ())]
        if not fired or (len(fired) == len(kinds) and len(blocks) in (0, len(kinds))):
            return hits  # the same verdict on every kind
        names = [_kind_name(p) for p in kinds]
        held = ", ".join(names[k] for k in (blocks or fired))
        launch = f"{', '.join(names[:-1])} or {names[-1]}"
        note = (f"NodePool `{g.pool.variant_of if g.pool else ''}` may launch {launch} for this pod and this holds "
                f"on {held} only; select one kind (a nodeSelector on its instance type, family or GPU name) to "
                "have it judged on that one")
        if g.pool_options_from == "terms":  # terms of a required node affinity naming other GPUs
            note = (f"the terms of the required node affinity are ORed, so the pod may land on {launch}, and this "
                    f"holds on {held} only; name one GPU in every term (or keep only the terms of one) to have it "
                    "judged on that one")
        elif g.pool_options_from == "nodes":  # Nodes of the inputs with other GPUs, all admitting the pod
            note = (f"the scheduler may bind the pod to any Node of the inputs its selector admits, {launch}, and "
                    f"this holds on {held} only; select one GPU (a nodeSelector on its instance type or "
                    "nvidia.com/gpu.product) to have it judged on that one")
        elif g.pool_options_from == "pools":  # pools and Nodes of the inputs with other GPUs, all admitting the pod
            note = (f"the pod may land on any node pool or Node of the inputs that admits it, {launch}, and this "
                    f"holds on {held} only; select one GPU (a nodeSelector on its instance type or "
                    "nvidia.com/gpu.product) to have it judged on that one")
        elif g.pool is not None and g.pool.kind in ("node", "selector"):  # a bare GPU name on a Node or a selector
            whose = f"Node `{g.pool.variant_of}`" if g.pool.kind == "node" else f"the selector ({g.pool.variant_of})"
            note = (f"{whose} names a GPU by a bare family name that may be {launch}, and this holds on {held} "
                    "only; name one size (the GPU's full name, as GPU Feature Discovery writes it: "
                    "`NVIDIA-A100-SXM4-80GB`; an instance type or family; or a GPU memory label) to have it judged "
                    "on that one")
        if g.pool is not None and ASSUMED_MODE in g.pool.labels:  # amd17: the sizes one AMD device may be
            gpu = g.pool.gpu.name if g.pool.gpu is not None else "AMD"
            mode = g.pool.labels[ASSUMED_MODE].split(" ", 1)[0]
            if "_" not in mode:  # no mode named (``spx``, ``cpx 1/8``): the whole GPU and the smallest partition
                note = (f"no label or resource names the partition mode of the {gpu} GPUs (the node labeller's "
                        "amd.com/gpu.compute-memory-partition, a mode's resource such as amd.com/cpx_nps4), and the "
                        "ROCm device plugin's default single strategy advertises each partition as one amd.com/gpu, "
                        f"so one device may be {launch}; this holds on {held} only; name the mode (a nodeSelector on "
                        "amd.com/gpu.compute-memory-partition, or request the mode's resource) to have it judged on "
                        "that one")
            else:
                note = (f"in {mode} the {gpu} partitions on one memory partition share it, so one device may be "
                        f"{launch}, and the sources read do not settle which the runtime reports; this holds on "
                        f"{held} only")
        keep = self.meta.code in config.enforcement
        return [evolve(h, message=f"{h.message} (advisory: {note})", level=h.level if keep else "advisory")
                if keep or (h.level or level_for(self.meta, config)) == "mandatory"
                else evolve(h, message=f"{h.message} ({note})") for h in found[fired[0]] or ()]

    def _on_assumed_model(self, h: Hit, g: ServingGroup, config: LintConfig) -> Hit:
        """A blocking hit that rests on a model matched only by the name of its path is advisory: the
        directory may hold another model (SW004 names the entry). A level set in the configuration wins."""
        code = self.meta.code
        if code in config.enforcement or (h.level or level_for(self.meta, config)) != "mandatory":
            return h
        return evolve(h, level="advisory", message=(
            f"{h.message} (advisory: the model was matched to {g.model_assumed} by the name of its path only; "
            f"{ANN_BASE_MODEL} confirms it)"))


#: Kinds whose ``replicas: 0`` runs no pod until someone changes it (a Knative or KServe minimum of zero scales
#: from zero on demand, and is not one of them).
_SCALED_BY_REPLICAS = frozenset({"Deployment", "StatefulSet", "ReplicaSet", "LeaderWorkerSet"})


def runs_no_replica(g: ServingGroup, inv: Inventory) -> bool:
    """Whether ``g`` runs no pod as written: ``replicas: 0`` on a Deployment, StatefulSet, ReplicaSet or
    LeaderWorkerSet, with nothing in the inputs that may run it from zero: a KEDA ScaledObject (KEDA activates a
    target from zero), a HorizontalPodAutoscaler of ``minReplicas: 0`` (Kubernetes' HPA controller disables scaling
    only while the target's replicas are 0 *and* its minimum is not 0, pkg/controller/podautoscaler/horizontal.go;
    a minimum of 0 is admitted only where the HPAScaleToZero gate is on, and there it scales the target from zero),
    an Argo Rollout whose ``workloadRef`` names it (the Rollout runs its pod template at the Rollout's replicas;
    the Deployment is kept at zero by design), or a KEDA HTTP add-on HTTPScaledObject (it scales its target from
    zero on a request). An autoscaler whose target is not known may be this one."""
    if type(g.replicas) is not int or g.replicas != 0 or g.kind not in _SCALED_BY_REPLICAS:
        return False
    if any(ns == g.namespace and kind == g.kind and name == g.name and not (type(n) is int and n == 0)
           for ns, kind, name, n in inv.workload_refs):
        return False
    return not any(a.namespace == g.namespace and (not isinstance(a.target_name, str) or a.target_name == g.name)
                   and (a.kind == "ScaledObject" or (a.kind == "HorizontalPodAutoscaler"
                                                     and type(a.min_replicas) is int and a.min_replicas == 0))
                   for a in inv.autoscalers)


def _kind_name(pool: NodePool | None) -> str:
    """How a finding names one kind of node a NodePool may launch: its requirement's value and its GPU
    (``g6 (L4)``, ``L40S``, ``g6e.12xlarge (L40S)``)."""
    if pool is None:
        return "no pool"
    value = pool.name.split("/", 1)[1] if "/" in pool.name else pool.name
    if pool.gpu is None:
        return value
    return pool.gpu.name if value.lower() in pool.gpu.name.lower() else f"{value} ({pool.gpu.name})"


def _option_groups(g: ServingGroup) -> list[ServingGroup]:
    """``g`` as it would be on each of its other kinds of node (``ServingGroup.pool_options``), made once: its
    own copy, so what the capacity model makes once per group is made for that kind."""
    if len(g.pool_option_groups) != len(g.pool_options):
        from copy import copy  # here: a lint with no such pod imports neither copy nor weakref

        made = []
        for option in g.pool_options:
            alt = copy(g)
            alt.pool, alt.pool_options, alt.pool_option_groups, alt.pool_options_from = option, [], [], ""
            made.append(alt)
        g.pool_option_groups = made
    return g.pool_option_groups


Obj = TypeVar("Obj", bound=InventoryObject)


class ObjectRule(Rule, Generic[Obj]):
    """A rule that looks at one object of the inventory at a time: node pools, security groups, Services,
    Ingresses, autoscalers, ConfigMaps, launch issues, serving groups.

    :meth:`objects` names the objects it checks, in the order it checks them; :meth:`check_object` checks
    one. An unknown value met while checking an object makes *that object* undecided: one "cannot decide"
    finding on it (its subject, its location, its suppressions). A crash on one object is a mandatory
    internal-error finding naming the rule, on that object; the rule still checks the others.
    """

    def objects(self, inv: Inventory) -> Iterable[Obj]:
        raise NotImplementedError  # pragma: no cover

    def check_object(self, obj: Obj, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        raise NotImplementedError  # pragma: no cover

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        for obj in self.objects(inv):
            try:
                hits = list(self.check_object(obj, inv, config))
            except Undecidable as u:
                yield Hit(subject_of(obj), f"{CANNOT}{u.text}", obj.location,
                          tuple(obj.suppressions), undecided=True)
            except Exception as exc:  # noqa: BLE001 - one bad object must not hide the others
                yield Hit(subject_of(obj), internal_error(self.meta, exc), obj.location, internal=True)
            else:
                yield from hits

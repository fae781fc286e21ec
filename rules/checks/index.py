"""The registry as data: every rule's code, module, class and what of the inventory it reads, in code order, so that
a lint run imports only the rules its inventory gives something to say (start-up time).

``reads`` names the collections of :class:`~shardwise.rules.model.Inventory` a rule takes its objects from: with all
of them empty the rule yields nothing (a group rule reads ``groups``; a rule that also fails closed on a workload not
known yet at preview reads ``launch_issues``). :func:`rules_for` imports and makes the rules whose ``reads`` hold
something, in the registry's order; :mod:`.registry` still makes them all (``shardwise rules``, the policy pack,
``plan``). ``tests/checks/test_rule_index.py`` holds this table to the rule modules and checks every ``reads`` on the
rule fixtures.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..engine import LintConfig, Rule, RuleMeta
    from ..model import Inventory, ServingGroup

_G = ("groups",)
_L = ("launch_issues",)
_GL = ("groups", "launch_issues")  # a group rule that also says what a workload not read holds back

#: (code, module of this package, class, collections of the inventory it reads), in the registry's order.
RULES: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("SW001", "sw001", "SuppressionWithoutReason",
     ("groups", "pools", "security_groups", "subnets", "launch_templates", "services", "ingresses", "routers",
      "autoscalers")),
    ("SW002", "sw002", "VllmCommandNotUnderstood", _L),
    ("SW003", "sw003", "VllmCommandCrashes", ("launch_issues", "unknown_words")),
    ("SW004", "sw004", "ModelNotKnownToShardwise", _G),
    ("SW005", "sw005", "VllmMentionedNotRead", _L),
    ("SW101", "sw101", "WeightsDoNotFit", _GL),
    ("SW102", "sw102", "KvCapacityBelowMaxModelLen", _GL),
    ("SW103", "sw103", "KvBudgetBelowLoad", _GL),
    ("SW104", "sw104", "ShardedModelThatFits", _GL),
    ("SW105", "sw105", "MemoryUtilizationOutOfRange", _GL),
    ("SW106", "sw106", "ShardingAvoidableByQuantization", _GL),
    ("SW201", "sw201", "TensorParallelLargerThanNode", _GL),
    ("SW202", "sw202", "TensorParallelOverPcie", _GL),
    ("SW203", "sw203", "HeadsNotDivisibleByTp", _GL),
    ("SW204", "sw204", "GpuRequestNotTp", _GL),
    ("SW205", "sw205", "MultiNodeWithoutFastFabric", _GL),
    ("SW206", "sw206", "WorkloadWithoutGpuPool", _GL),
    ("SW207", "sw207", "ExpertParallelOnDenseModel", _GL),
    ("SW208", "sw208", "GpusRequestedButUnused", _GL),
    ("SW209", "sw209", "ImageForAnotherAccelerator", _GL),
    ("SW301", "sw301", "RuntimePortExposed", ("pools", "security_groups", "services", "ingresses")),
    ("SW302", "sw302", "EfaWithoutSelfReference", ("pools",)),
    ("SW303", "sw303", "GpuNodesInPublicSubnet", ("pools",)),
    ("SW304", "sw304", "ImdsV2NotRequired", ("pools",)),
    ("SW305", "sw305", "NamespaceWithoutDefaultDeny", ("groups", "launch_issues")),
    ("SW306", "sw306", "VllmExposedWithoutGateway", ("services", "ingresses", "groups", "launch_issues")),
    ("SW307", "sw307", "ImageUnpinned", ("groups", "launch_issues")),
    ("SW308", "sw308", "LiteralSecretInManifest", ("groups", "config_maps", "launch_issues")),
    ("SW309", "sw309", "VllmPodWithHostAccess", ("groups", "launch_issues")),
    ("SW310", "sw310", "GpuVisibilitySetByHand", ("groups", "launch_issues")),
    ("SW311", "sw311", "TlsVerificationDisabled", ("groups", "launch_issues")),
    ("SW312", "sw312", "RuntimeLoraWithoutAuth", ("groups", "launch_issues")),
    ("SW401", "sw401", "ParallelWithoutShm", _GL),
    ("SW402", "sw402", "LivenessWithoutStartupProbe", _GL),
    ("SW403", "sw403", "AutoscalingOnUtilization", ("autoscalers",)),
    ("SW404", "sw404", "SingleReplicaInProduction", _G),
    ("SW405", "sw405", "LwsWithoutGroupRestart", _G),
    ("SW406", "sw406", "RoundRobinInFrontOfVllm", ("ingresses", "routers")),
    ("SW407", "sw407", "VllmServiceWithoutReadinessProbe", _GL),
    ("SW408", "sw408", "DebugSwitchInServing", _GL),
)

#: What a rule reads of the inventory besides its ``reads``, only about an object of those (a group's ConfigMaps and
#: device claims, a pool's subnets and security groups, the autoscalers and workload refs that scale a group, the
#: NetworkPolicies of a group's namespace, the Services and groups an Ingress or a router reaches): with its ``reads``
#: empty the rule says nothing, whatever these hold, so neither ``rules_for`` nor the policy pack's skip looks at them.
#: ``tests/checks/test_rule_index.py`` records what each rule reads on every rule fixture, example and stack, and
#: fails on a collection named in neither; and runs every rule with its ``reads`` emptied on an inventory of all of
#: them at once (review25: SW206, SW305, SW306, SW312, SW404 and SW406 read collections they did not name; none
#: could lose a finding by it, packspeed22; SW306, which takes objects from ``ingresses`` too, now reads them).
ALSO_READS: dict[str, tuple[str, ...]] = {
    "SW004": ("config_maps", "pools", "services"),  # mend30: the peers it asks (SW206) read the pools
    "SW101": ("config_maps", "device_claims"),
    "SW102": ("config_maps",),
    "SW103": ("config_maps",),
    "SW104": ("config_maps",),
    "SW105": ("config_maps",),
    "SW201": ("config_maps", "device_claims"),
    "SW202": ("config_maps",),
    "SW204": ("autoscalers", "config_maps", "device_claims", "workload_refs"),
    "SW205": ("config_maps",),
    "SW206": ("device_claims", "pools"),
    "SW208": ("config_maps",),
    "SW301": ("groups", "launch_issues", "pod_ports"),  # corpus26: a Service whose pods all serve with another engine
    "SW302": ("security_groups",),
    "SW303": ("subnets",),
    "SW304": ("launch_templates",),
    "SW305": ("network_policies",),
    "SW306": ("config_maps",),
    "SW310": ("config_maps",),
    "SW311": ("config_maps",),
    "SW312": ("ingresses", "services"),
    "SW403": ("groups",),
    "SW404": ("autoscalers",),
    "SW406": ("autoscalers", "groups", "services"),
    "SW407": ("services",),
    "SW408": ("config_maps",),
}

#: Every rule code, in the registry's order.
CODES: tuple[str, ...] = tuple(code for code, *_ in RULES)


def _make(module: str, cls: str, rules: Callable[[], tuple[Rule, ...]]) -> Rule:
    made: Any = getattr(importlib.import_module(f"{__package__}.{module}"), cls)
    return made(rules) if module == "sw004" else made()  # SW004 asks the run's other rules (as the registry's)


def rules_for(inv: Inventory) -> tuple[Rule, ...]:
    """The rules that may say something about ``inv``, in the registry's order: those whose ``reads`` hold something.
    The others would yield nothing; they are neither imported nor run."""
    made: tuple[Rule, ...] = ()
    made = tuple(_make(module, cls, lambda: made) for _, module, cls, reads in RULES
                 if any(getattr(inv, name) for name in reads))
    wire_not_running(made)
    return made


#: The sources of "this replica does not run as written" (``NotRunning``), in the order they are asked: the rule whose
#: finding blocks, the module and function giving its findings that say so, the note added to the others' hits made
#: advisory, the rules that keep their level beside it, and (where given) the only rules it makes advisory.
NOT_RUNNING: tuple[tuple[str, str, str, str, frozenset[str], frozenset[str] | None], ...] = (
    # readers20: a pod requests more GPUs than a node of its pool holds, so the pods never schedule
    ("SW201", "sw201", "pending",
     "advisory: judged on pool `{pool}`, where the pods never schedule as written (SW201's finding, which blocks); "
     "it blocks once they schedule", frozenset(), None),
    # mig21: more than one vLLM worker per pod on MIG devices, of which a CUDA process sees one; SW201 (where the pod
    # is scheduled) is judged before the replica starts and keeps its level
    ("SW204", "sw204", "cannot_start",
     "advisory: judged on a replica that cannot start as written (SW204's finding, which blocks: more than one vLLM "
     "worker per pod on MIG devices); it blocks once the replica starts", frozenset({"SW201"}), None),
    # fold22: the TP group spans nodes the pods reach by no RDMA fabric, so every all-reduce runs over TCP. SW201 and
    # SW205 both said so and both blocked; SW205 (the fabric between nodes, with the fabric's remedy) owns it, SW201's
    # finding is advisory beside it. Not where an earlier source makes SW205's advisory (the pods never schedule, the
    # replica cannot start on MIG devices): SW201 keeps its level there.
    ("SW205", "sw205", "tcp_between_nodes",
     "advisory: the TCP between the nodes is SW205's finding on this group, which blocks", frozenset(),
     frozenset({"SW201"})),
    # remedy1: a TP group over PCIe that replicas on fewer GPUs replace. SW104 and SW202 both said so and both blocked
    # at the tensor_parallel_size line; SW104 (the model needs fewer GPUs, whatever joins them; its message names the
    # change) owns it, and SW202's finding, the PCIe that makes the waste dearer here, is advisory beside it.
    ("SW104", "sw104", "sharded_beyond_need",
     "advisory: the model needs fewer GPUs per replica, SW104's finding on this group, which blocks; the layout its "
     "change makes is judged again", frozenset(), frozenset({"SW202"})),
)


def wire_not_running(rules: tuple[Rule, ...]) -> None:
    """Give the group rules of a run the sources of :data:`NOT_RUNNING` whose rule is one of them: a rule that blocks
    on a replica one of them says does not run as written is advisory there, the source's finding the one that blocks
    (``GroupRule._on_not_running``). Here, not in the engine, which imports no rule; a source whose rule is not in the
    run says nothing, and no rule is made advisory for it."""
    from ..engine.rule import NotRunning  # the engine is imported by then (the rules are made)

    codes = {r.meta.code for r in rules}
    sources = tuple(NotRunning(code, _once_per_group(code, getattr(importlib.import_module(f"{__package__}.{module}"),
                                                                     name)), note, keep, only)
                    for code, module, name, note, keep, only in NOT_RUNNING if code in codes)
    if not sources:
        return
    for rule in rules:
        if hasattr(rule, "not_running"):  # a GroupRule
            rule.not_running = sources


#: :func:`_once_per_group`'s wrappers, one per source: each run's rules get the same list of sources.
_ONCE: dict[tuple[str, Callable[..., Any]], Callable[..., tuple[Any, ...]]] = {}


def _once_per_group(code: str, says: Callable[[ServingGroup, Inventory, LintConfig], Any]
                    ) -> Callable[[ServingGroup, Inventory, LintConfig], tuple[Any, ...]]:
    """``says``, a source's findings on a group, made once per group and kept beside it (``capacity.group.per_group``):
    each capacity and topology rule with a blocking hit on the group asked the source again (SW201's ``pending``
    sized the group's request against its pool for each of them; issue 30). A group is read against one inventory
    in a run (the pack's second read of a group drops what is kept: ``capacity.group.forget``). The wrapper's
    ``__wrapped__`` is ``says``."""
    made = _ONCE.get((code, says))
    if made is not None:
        return made
    from functools import update_wrapper

    from ..capacity.group import per_group

    def once(g: ServingGroup, inv: Inventory, config: LintConfig) -> tuple[Any, ...]:
        # kept by the settings a source's finding reads (SW104's: the KV reserve and the p95 context), as sizing is
        key = f"not running: {code}:{config.kv_reserve}:{config.p95_context_tokens}"
        return per_group(g, key, lambda group: tuple(says(group, inv, config)))

    made = _ONCE[(code, says)] = update_wrapper(once, says)
    return made


def import_rules_for(inv: Inventory) -> None:
    """Import the modules of the rules :func:`rules_for` would make for ``inv``, and make none: a parallel lint's
    reading process calls it with each batch it read (:func:`~..adapters.read_inputs`' ``meanwhile``), so that the
    rules' imports are done while the other process still reads, not on one core after the reading."""
    for _, module, _, reads in RULES:
        if module not in _IMPORTED and any(getattr(inv, name) for name in reads):
            importlib.import_module(f"{__package__}.{module}")
            _IMPORTED.add(module)


_IMPORTED: set[str] = set()  # the rule modules import_rules_for imported (a set's lookup, not the import system's)


class Metas(Mapping[str, "RuleMeta"]):
    """Every rule's metadata by code, in the registry's order, read from :mod:`.registry` when first asked (the SARIF
    and Markdown reports ask; the text, JSON and GitHub reports never do, so a run writing them imports no rule it
    did not run)."""

    def __init__(self) -> None:
        self._metas: dict[str, RuleMeta] | None = None

    def _all(self) -> dict[str, RuleMeta]:
        if self._metas is None:
            from .registry import ALL_RULES

            self._metas = {r.meta.code: r.meta for r in ALL_RULES}
        return self._metas

    def __getitem__(self, code: str) -> RuleMeta:
        return self._all()[code]

    def __iter__(self) -> Any:
        return iter(self._all())

    def __len__(self) -> int:
        return len(CODES)

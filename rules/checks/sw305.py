"""SW305: a serving namespace without a default-deny ingress policy."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator
from typing import Literal

from ..engine import Hit, LintConfig, Rule, RuleMeta, group_subject
from ..model import (
    RELEASE_NAMESPACE,
    UNKNOWN_NAMESPACE,
    Inventory,
    NetworkPolicy,
    ServingGroup,
    Undecidable,
    is_unknown,
)
from ..model.inventory import EVERY_UNIT
from ..model.unknown import holds_placeholder
from ._cluster import no_cluster
from ._net import is_multi_node
from ._unseen import unseen, unseen_hits
from ._words import listed

#: How a policy of each kind is named in messages.
_KIND_TEXT = {
    ("NetworkPolicy", "networking.k8s.io"): "NetworkPolicy",
    ("NetworkPolicy", "projectcalico.org"): "Calico NetworkPolicy",
}


def policy_text(p: NetworkPolicy) -> str:
    return _KIND_TEXT.get((p.kind, p.api_group), p.kind)


def namespace_text(ns: str) -> str:
    """A namespace as messages name it: a Helm release's that the run does not know is said to be so, never named as
    if it were a namespace of the cluster (newuser11: it read `default`)."""
    if ns == RELEASE_NAMESPACE:
        return f"the namespace the chart is installed in (`{ns}`: helm template was given none)"
    return f"namespace `{ns}`"


def _namespace_unseen(p: NetworkPolicy, ns: str) -> bool:
    """Whether a namespaced policy's namespace is not known yet and may be ``ns``: a preview's computed namespace, or
    one a template fills (``namespace: ${NAMESPACE}``, review38; the same placeholder as a group's namespace is that
    namespace, and covers it)."""
    return p.namespaces is None and p.namespace != ns and (p.namespace == UNKNOWN_NAMESPACE
                                                            or holds_placeholder(p.namespace))


#: The parts of a NetworkPolicy that do not choose the pods it selects: whom it admits and which directions it governs.
_RULE_PARTS = ("spec.ingress", "spec.egress", "spec.policyTypes")


def _may_select(p: NetworkPolicy, groups: list[ServingGroup]) -> bool:
    """Whether policy ``p``, which holds a part not known yet (``unknown_part``), may select a pod of ``groups``, so
    that part decides whether they are exposed: always, where the unknown part is its podSelector or anything else
    than its rules and types; else where its podSelector (as written: a matchExpressions term read as may match) fits
    a group's pod labels, or those labels are not known. A policy of the Redis beside vLLM whose ``policyTypes:
    ${TYPES}`` or ``from: ${CLIENTS}`` a template fills admits or isolates only Redis pods (review39: it made the
    namespace "cannot decide", mandatory for a multi-node group, though vLLM's own policy isolates it)."""
    part = p.unknown_part or ""
    if not any(part == r or part.startswith((r + ".", r + "[")) for r in _RULE_PARTS):
        return True
    # label values hold no "(": such a value is a matchExpressions term, which may match
    written = {k: v for k, v in p.pod_selector.items() if k != UNKNOWN_NAMESPACE}
    return any(is_unknown(g.pod_labels) or all(g.pod_labels.get(k) == v or "(" in v for k, v in written.items())
               for g in groups)


class NamespaceWithoutDefaultDeny(Rule):
    meta = RuleMeta(
        code="SW305",
        name="namespace-without-default-deny",
        enforcement="advisory",
        severity="medium",
        summary=(
            "A namespace that runs vLLM has no default-deny ingress policy (it matters most for multi-node "
            "groups, whose pods talk over unauthenticated runtime ports). One finding per namespace."
        ),
        why=(
            "Without a policy that isolates its pods every pod in the cluster can open connections to every "
            "serving pod: to the OpenAI API without passing the gateway, and for multi-node groups to Ray, "
            "torch.distributed and NCCL ports that accept commands without authentication. A default-deny "
            "policy plus explicit allows (inside one serving group, and the API port from the gateway) keeps "
            "that traffic where it belongs. Kubernetes NetworkPolicies count, and so do Cilium "
            "(CiliumNetworkPolicy, CiliumClusterwideNetworkPolicy), Calico (projectcalico.org/v3 "
            "NetworkPolicy, GlobalNetworkPolicy) and AdminNetworkPolicy/BaselineAdminNetworkPolicy objects "
            "that deny all ingress to every pod of the namespace. A namespace whose policies are managed "
            "elsewhere is listed in the config key default_deny_namespaces. A multi-node group blocks when the "
            "input holds network policies and none denies ingress in its namespace; an input that holds no "
            "network policy at all (a docs sample, an examples folder, a chart whose cluster keeps its policies "
            "in another repository) does not say the cluster has none, so the finding is advisory there and "
            "says what would decide it. When the namespace of a multi-node group is not known the rule cannot "
            "decide, and blocks (it is mandatory for those)."
        ),
        bad_example=(
            "apiVersion: apps/v1\n"
            "kind: Deployment\n"
            "metadata: {name: llama, namespace: serving}\n"
            "# ...and no NetworkPolicy in namespace serving"
        ),
        good_example=(
            "apiVersion: networking.k8s.io/v1\n"
            "kind: NetworkPolicy\n"
            "metadata: {name: default-deny, namespace: serving}\n"
            "spec:\n"
            "  podSelector: {}\n"
            "  policyTypes: [Ingress]"
        ),
        remediation=(
            "Add a NetworkPolicy with an empty podSelector, policyTypes [Ingress] and no ingress rules to "
            "every serving namespace (or the Cilium, Calico or BaselineAdminNetworkPolicy equivalent), then "
            "allow traffic inside each serving group and the API port from the gateway's namespace. Run a CNI "
            "that enforces these policies (the VPC CNI with network policy enabled, Calico or Cilium). When "
            "the policy is managed in another repository, list the namespace in default_deny_namespaces; an input "
            "that holds no network policy at all is judged once the namespace's policies are included in it."
        ),
        references=(
            "https://kubernetes.io/docs/concepts/services-networking/network-policies/#default-deny-all-ingress-traffic",
            "https://docs.aws.amazon.com/eks/latest/userguide/cni-network-policy.html",
            "https://docs.cilium.io/en/stable/security/policy/language/",
            "https://docs.tigera.io/calico/latest/network-policy/get-started/kubernetes-default-deny",
            "https://network-policy-api.sigs.k8s.io/api-overview/",
            "https://docs.vllm.ai/en/latest/usage/security.html",
        ),
        scope="stack",
        mandatory_when="for multi-node groups",
        applies_to_plans=False,
    )

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        by_ns: dict[str, list[ServingGroup]] = {}
        for g in self.groups(inv):
            if g.template:  # a runtime template's pods run in its services' namespaces
                continue
            if g.namespace == UNKNOWN_NAMESPACE:
                u = Undecidable("the namespace")
                yield Hit(group_subject(g), f"cannot decide: {u.text}", g.location, tuple(g.suppressions),
                          undecided=True, level=self._level([g]))
                continue
            by_ns.setdefault(g.namespace, []).append(g)
        blocked: set[str] = set()
        for ns, groups, unit_policies in self._namespaces(inv, by_ns):
            if any(fnmatch.fnmatchcase(ns, pattern) for pattern in config.default_deny_namespaces):
                continue
            unknown_deny = [p for p in unit_policies if _namespace_unseen(p, ns) and p.default_deny_ingress]
            policies = [p for p in unit_policies if p.covers(ns)]
            if any(p.default_deny_ingress for p in policies):
                continue
            exposed = [g for g in groups
                       if is_unknown(g.pod_labels) or not any(p.isolates(ns, g.pod_labels) for p in policies)]
            # anchored at the workload that needs the policy most (a multi-node group whose runtime ports are
            # open, else an exposed one), never at whichever object of the namespace comes first: with many
            # files, that one may be another file's single-GPU sample
            needy = [g for g in exposed if is_multi_node(g)] or exposed or groups
            first = needy[0]
            subject = f"Namespace {ns}"
            suppressions = tuple(s for g in groups for s in g.suppressions)
            unknown = next((p for p in policies if p.unknown_part and _may_select(p, groups)), None)
            if unknown is not None:  # what the policy selects and allows is not known (a preview's computed spec)
                u = Undecidable(f"{unknown.unknown_part} of {policy_text(unknown)} `{unknown.name}`")
                where = unknown.location if unknown.location.file else first.location
                yield Hit(subject, f"cannot decide: {u.text}", where, suppressions, undecided=True,
                          level=self._level(groups))
                continue
            if unknown_deny:
                u = Undecidable(f"the namespace of default-deny {policy_text(unknown_deny[0])} "
                                f"`{unknown_deny[0].name}`")
                yield Hit(subject, f"cannot decide: {u.text}", first.location, suppressions,
                          undecided=True, level=self._level(groups))
                continue
            # a policy whose namespace is not known yet that would isolate an exposed group's pods were it this
            # namespace's: whether they are exposed is not known (review38: `namespace: ${NAMESPACE}` was read as a
            # namespace of its own, and a multi-node group's runtime ports as open to every pod)
            unknown_iso = [p for p in unit_policies if _namespace_unseen(p, ns) and any(
                not is_unknown(g.pod_labels) and p.isolates(p.namespace, g.pod_labels) for g in exposed)]
            if unknown_iso:
                u = Undecidable(f"the namespace of {policy_text(unknown_iso[0])} `{unknown_iso[0].name}`")
                yield Hit(subject, f"cannot decide: {u.text}", first.location, suppressions,
                          undecided=True, level=self._level(groups))
                continue
            # sure only where the input holds the policies: with no network policy in it at all, the cluster's
            # may live in another repository (a docs sample, an examples folder, a chart): say what would decide
            level = self._level(exposed) if unit_policies else None
            if level:
                blocked.add(ns)
            # readers18: rendered by a Flux object, which names no cluster: that cluster's policies are not in it
            flux = "" if unit_policies else no_cluster(first.location.file, "network policies")
            yield Hit(subject, self._message(ns, groups, exposed, policies, bool(unit_policies)) + flux,
                      first.location, suppressions, level=level)
        # a multi-node workload whose pods are not known yet (a preview): its pod labels may escape the policies
        # that select some pods, so only a default-deny policy of its namespace decides
        hidden = [i for i in unseen(inv) if i.multi_node and i.namespace not in blocked and not (
            i.namespace != UNKNOWN_NAMESPACE
            and (any(fnmatch.fnmatchcase(i.namespace, pattern) for pattern in config.default_deny_namespaces)
                 or any(p.default_deny_ingress for p in inv.network_policies if p.covers(i.namespace))))]
        yield from unseen_hits(inv, "whether its namespace's pods can reach its runtime ports",
                               "mandatory" if inv.network_policies else None, only=hidden)

    @staticmethod
    def _namespaces(inv: Inventory, by_ns: dict[str, list[ServingGroup]]
                    ) -> Iterator[tuple[str, list[ServingGroup], list[NetworkPolicy]]]:
        """Each namespace with its groups and the network policies of their deployable unit, split by unit: a
        namespace of one repository or stack is not another's of the same name, and its policies do not isolate the
        other's pods (place16; ``Inventory.same_unit``). A group of every unit (a file named on its own) is judged
        with each unit's groups of its namespace, or alone with every policy where no other group shares it."""
        for ns in sorted(by_ns):
            groups = sorted(by_ns[ns], key=lambda g: (g.location.file or "", g.location.line or 0))
            unit_of = {id(g): inv.units.get(g.location.file or "", EVERY_UNIT) for g in groups}
            own = list(dict.fromkeys(u for u in unit_of.values() if u != EVERY_UNIT))
            if len(own) <= 1:
                anchor = next((g.location.file for g in groups if unit_of[id(g)] != EVERY_UNIT), None)
                yield ns, groups, [p for p in inv.network_policies
                                   if anchor is None or inv.same_unit(p.location.file, anchor)]
                continue
            for u in own:
                part = [g for g in groups if unit_of[id(g)] in (u, EVERY_UNIT)]
                anchor = next(g.location.file for g in part if unit_of[id(g)] == u)
                yield ns, part, [p for p in inv.network_policies if inv.same_unit(p.location.file, anchor)]

    @staticmethod
    def _level(groups: list[ServingGroup]) -> Literal["mandatory"] | None:
        return "mandatory" if any(is_multi_node(g) for g in groups) else None

    @staticmethod
    def _message(ns: str, groups: list[ServingGroup], exposed: list[ServingGroup],
                 policies: list[NetworkPolicy], input_has_policies: bool) -> str:
        names = listed((group_subject(g) for g in groups), shown=2)
        if not policies:
            found = "no network policy at all"
        else:
            shown = ", ".join(f"{policy_text(p)} `{p.name}`" for p in policies[:3])
            more = f" and {len(policies) - 3} more" if len(policies) > 3 else ""
            verbs = "selects only some pods or allows ingress" if len(policies) == 1 else (
                "select only some pods or allow ingress")
            found = f"{shown}{more} {verbs}"
        multi = [g.name for g in exposed if is_multi_node(g)]
        if multi:
            why = (f"the runtime ports (Ray, torch.distributed, NCCL) of multi-node {listed(multi)} are open to "
                   "every pod in the cluster")
        elif exposed:
            why = "every pod in the cluster can reach vLLM without the gateway"
        else:
            why = "its vLLM pods are isolated by the policies that select them, but every other pod there is not"
        if multi and not input_has_policies:
            # advisory: what the input does not hold is not known to be missing from the cluster
            return (f"{namespace_text(ns)} ({names}) has no default-deny ingress policy in the input, which holds no "
                    f"network policy at all; unless the cluster has one, {why}")
        text = f"{namespace_text(ns)} ({names}) has no default-deny ingress policy ({found}); {why}"
        if multi:  # blocking: what to write instead
            where = "that namespace" if ns == RELEASE_NAMESPACE else f"`{ns}`"
            text += (f"; add a NetworkPolicy in {where} that selects every pod (an empty podSelector) with policyTypes "
                     "Ingress and no ingress rule, then allow each group's own pods and the gateway's traffic to the "
                     "API port")
        return text

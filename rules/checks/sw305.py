"""SW305: a serving namespace without a default-deny NetworkPolicy."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject, hit
from ..model import UNKNOWN_NAMESPACE, Inventory, ServingGroup, Undecidable
from ._net import is_multi_node


class NamespaceWithoutDefaultDeny(GroupRule):
    meta = RuleMeta(
        code="SW305",
        name="namespace-without-default-deny",
        enforcement="advisory",
        severity="medium",
        summary=(
            "A namespace that runs vLLM has no default-deny ingress NetworkPolicy (it matters most for "
            "multi-node groups, whose pods talk over unauthenticated runtime ports)."
        ),
        why=(
            "Without a NetworkPolicy every pod in the cluster can open connections to every serving pod: "
            "to the OpenAI API without passing the gateway, and for multi-node groups to Ray, "
            "torch.distributed and NCCL ports that accept commands without authentication. A default-deny "
            "policy plus explicit allows (inside one serving group, and the API port from the gateway) "
            "keeps that traffic where it belongs."
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
            "every serving namespace, then allow traffic inside each serving group and the API port from "
            "the gateway's namespace. Run a CNI that enforces NetworkPolicies (the VPC CNI with network "
            "policy enabled, Calico or Cilium)."
        ),
        references=(
            "https://kubernetes.io/docs/concepts/services-networking/network-policies/#default-deny-all-ingress-traffic",
            "https://docs.aws.amazon.com/eks/latest/userguide/cni-network-policy.html",
            "https://docs.vllm.ai/en/latest/usage/security.html",
        ),
        scope="stack",
        safe_to_skip_unknown=True,
        mandatory_when="for multi-node groups",
    )

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if g.kind == "plan":
            return
        ns = g.namespace
        if ns == UNKNOWN_NAMESPACE:
            raise Undecidable("the namespace")
        policies = [p for p in inv.network_policies if p.namespace == ns]
        if any(p.default_deny_ingress for p in policies):
            return
        found = (
            "there is no NetworkPolicy in it" if not policies
            else f"none of its {len(policies)} NetworkPolicies selects every pod with no ingress rule"
        )
        multi = is_multi_node(g)
        why = (
            "its multi-node group's runtime ports (Ray, torch.distributed, NCCL) are open to every pod"
            if multi else "every pod in the cluster can reach vLLM without the gateway"
        )
        yield hit(
            g,
            f"SW305: namespace `{ns}` of {group_subject(g)} has no default-deny ingress NetworkPolicy "
            f"({found}); {why}",
            level="mandatory" if multi else None,
        )

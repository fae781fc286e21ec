"""SW302: an EFA node pool whose security group lacks all-traffic self-referencing rules."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..engine import Hit, LintConfig, ObjectRule, RuleMeta, hit, subject_of
from ..model import UNKNOWN, UNRESOLVED, Inventory, NodePool, SecurityGroup, Undecidable
from ._net import is_all_traffic, is_self_source, pool_security_groups

#: Pools whose ``efa`` says EFA interfaces are attached (a launch template or a stack entry).
CONFIGURED_KINDS = ("eks-nodegroup", "stack")


def _self_rules(sg: SecurityGroup) -> tuple[bool, bool]:
    """Whether ``sg`` allows all traffic from itself (ingress) and to itself (egress)."""
    ingress = egress = either = False
    for r in sg.rules:
        if is_all_traffic(r) and is_self_source(sg, r):
            if r.direction is UNKNOWN:
                either = True
            elif r.direction == "ingress":
                ingress = True
            else:
                egress = True
    if either and not (ingress and egress):  # the rule of unknown direction may be the missing one
        raise Undecidable(f"type (ingress or egress) of a self-referencing rule of security group `{sg.name}`")
    return ingress, egress


class EfaWithoutSelfReference(ObjectRule[NodePool]):
    meta = RuleMeta(
        code="SW302",
        name="efa-without-self-referencing-security-group",
        enforcement="mandatory",
        severity="high",
        summary=(
            "A node pool with EFA interfaces has no security group that allows all traffic to and from "
            "itself, in both directions."
        ),
        why=(
            "EFA's OS-bypass (SRD) traffic is only delivered between interfaces whose security group allows "
            "all inbound and all outbound traffic from and to that same security group. With a CIDR rule, a "
            "port range or a missing egress rule, libfabric cannot reach its peers: NCCL falls back to TCP "
            "sockets or hangs at start-up, and multi-node groups run many times slower. EFA addresses are not IP "
            "addresses, so an egress rule to 0.0.0.0/0 does not cover them. A pool whose launch template names no "
            "security group gets the EKS cluster security group, created with all traffic in from itself and all "
            "traffic out to 0.0.0.0/0: that finding is advisory, because rules added to that group elsewhere are "
            "not in the inputs."
        ),
        bad_example=(
            "resources:\n"
            "  efa:\n"
            "    type: aws:ec2:SecurityGroup\n"
            "    properties:\n"
            "      ingress:\n"
            "        - {protocol: '-1', fromPort: 0, toPort: 0, self: true}\n"
            "      egress:\n"
            "        - {protocol: '-1', fromPort: 0, toPort: 0, cidrBlocks: [0.0.0.0/0]}"
        ),
        good_example=(
            "resources:\n"
            "  efa:\n"
            "    type: aws:ec2:SecurityGroup\n"
            "    properties:\n"
            "      ingress:\n"
            "        - {protocol: '-1', fromPort: 0, toPort: 0, self: true}\n"
            "      egress:\n"
            "        - {protocol: '-1', fromPort: 0, toPort: 0, self: true}\n"
            "        - {protocol: '-1', fromPort: 0, toPort: 0, cidrBlocks: [0.0.0.0/0]}"
        ),
        remediation=(
            "Add an ingress rule and an egress rule with protocol -1 (all traffic) whose source and "
            "destination is the security group itself, and attach that group to every EFA interface of "
            "the launch template."
        ),
        references=(
            "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html",
            "https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html",
            "https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html",
        ),
        scope="stack",
        safe_to_skip_unknown=False,
    )

    def objects(self, inv: Inventory) -> Iterable[NodePool]:
        return inv.pools

    def check_object(self, pool: NodePool, inv: Inventory, config: LintConfig) -> Iterator[Hit]:
        if pool.kind not in CONFIGURED_KINDS:
            return  # from node labels, `efa` says the instance type supports EFA, not that it is attached
        if pool.efa is UNKNOWN:
            yield Hit(subject_of(pool), f"cannot decide: whether node pool `{pool.name}` has EFA "
                      f"interfaces is not known ({UNRESOLVED})", pool.location,
                      tuple(pool.suppressions), undecided=True)
            return
        if not pool.efa:
            return
        sgs, missing = pool_security_groups(inv, pool)
        if not sgs and missing:
            yield Hit(subject_of(pool), f"cannot decide: node pool `{pool.name}` uses security group "
                      f"`{missing[0]}`, which is not in the inputs", pool.location, tuple(pool.suppressions),
                      undecided=True)
            return
        if not sgs:  # EKS gives the nodes its cluster security group, whose rules are not in the inputs
            yield hit(pool, f"node pool `{pool.name}` has EFA interfaces but its launch template names no security "
                      "group, so EKS gives the nodes the cluster security group; EKS creates that group with all "
                      "traffic in from itself and all traffic out to 0.0.0.0/0, and EFA needs an all-traffic "
                      "egress rule to the group itself (advisory: rules added to the cluster security group "
                      "elsewhere are not in the inputs; name a security group with both self-referencing rules in "
                      "the launch template)", level="advisory")
            return
        lacking = []
        for sg in sgs:
            ingress, egress = _self_rules(sg)
            if ingress and egress:
                return
            gaps = [d for d, ok in (("ingress", ingress), ("egress", egress)) if not ok]
            lacking.append((sg, gaps))
        sg, gaps = lacking[0]
        missing_text = " and ".join(f"no all-traffic self-referencing {d} rule" for d in gaps)
        others = "" if len(lacking) == 1 else f" (nor do its other {len(lacking) - 1} security groups)"
        yield Hit(
            subject_of(pool),
            f"node pool `{pool.name}` has EFA interfaces but security group `{sg.name}` has "
            f"{missing_text}{others}; EFA needs all traffic allowed from and to the group itself, "
            f"inbound and outbound: add to `{sg.name}` {' and '.join(f'an {d} rule' for d in gaps)} of protocol -1 "
            "(all traffic, ports 0 to 0) whose peer is the group itself (self: true)",
            sg.location if (sg.location.urn or sg.location.file) else pool.location,
            (*pool.suppressions, *sg.suppressions),
        )

"""SW301: a distributed-runtime port reachable from outside the serving group."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..engine import Hit, LintConfig, Rule, RuleMeta
from ..model import UNKNOWN, Ingress, Inventory, SecurityGroup, Service, Undecidable, known
from ._net import (
    EXTERNAL_SERVICE_TYPES,
    RUNTIME_PORTS,
    WORLD,
    decide,
    describe_rule_ports,
    object_subject,
    pool_security_groups,
    pool_subject,
    rule_sources,
    runtime_ports_covered,
    sg_subject,
    undecided,
)


class RuntimePortExposed(Rule):
    meta = RuleMeta(
        code="SW301",
        name="runtime-port-exposed",
        enforcement="mandatory",
        severity="critical",
        summary=(
            "A distributed-runtime port (Ray, torch.distributed, vLLM KV transfer, NCCL) is reachable from "
            "outside the serving group's security group, or exposed by a Service or Ingress."
        ),
        why=(
            "Ray's GCS, dashboard and client ports, the torch.distributed store, vLLM's KV-transfer port and "
            "NCCL's sockets carry unauthenticated, unencrypted traffic; vLLM, PyTorch and Ray all say they "
            "must stay on an isolated network. Anyone who reaches them can run code on the GPU nodes or read "
            "and corrupt tensors. vLLM's --api-key guards only the /v1 HTTP routes, not these ports."
        ),
        bad_example=(
            "resources:\n"
            "  gpu-nodes:\n"
            "    type: aws:ec2:SecurityGroup\n"
            "    properties:\n"
            "      ingress:\n"
            "        - protocol: tcp\n"
            "          fromPort: 6379\n"
            "          toPort: 6379\n"
            "          cidrBlocks: [0.0.0.0/0]"
        ),
        good_example=(
            "resources:\n"
            "  gpu-nodes:\n"
            "    type: aws:ec2:SecurityGroup\n"
            "    properties:\n"
            "      ingress:\n"
            "        - protocol: '-1'\n"
            "          fromPort: 0\n"
            "          toPort: 0\n"
            "          self: true"
        ),
        remediation=(
            "Allow runtime traffic on the GPU nodes' security group only from that same security group "
            "(a self-referencing rule), and remove rules that open these ports to CIDR blocks or other "
            "groups. Keep Ray, torch.distributed and KV-transfer ports off LoadBalancer and NodePort "
            "Services and Ingresses; expose only the OpenAI-compatible API port through a gateway."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/usage/security.html",
            "https://docs.ray.io/en/latest/ray-security/index.html",
            "https://github.com/pytorch/pytorch/blob/main/SECURITY.md",
            "https://docs.aws.amazon.com/vpc/latest/userguide/security-group-rules.html",
        ),
        scope="stack",
        safe_to_skip_unknown=False,
    )

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        attached: set[int] = set()
        for pool in inv.pools:
            try:
                found, _ = pool_security_groups(inv, pool)
            except Undecidable as u:
                yield undecided(self.meta, pool_subject(pool), u, pool.location, pool.suppressions)
                continue
            attached.update(id(sg) for sg in found)
        for sg in inv.security_groups:
            yield from decide(self.meta, sg_subject(sg), sg.location, sg.suppressions,
                              self._security_group(sg, id(sg) in attached))
        for svc in inv.services:
            subject = object_subject("Service", svc.name, svc.namespace)
            yield from decide(self.meta, subject, svc.location, svc.suppressions, self._service(svc))
        for ing in inv.ingresses:
            subject = object_subject(ing.kind, ing.name, ing.namespace)
            yield from decide(self.meta, subject, ing.location, ing.suppressions, self._ingress(inv, ing))

    def _security_group(self, sg: SecurityGroup, attached: bool) -> Iterator[Hit]:
        for rule in sg.rules:
            if rule.direction is not UNKNOWN and rule.direction != "ingress":
                continue
            ports = runtime_ports_covered(rule)
            if not ports:
                continue
            sources = rule_sources(sg, rule)
            bad = sources if attached else [s for s in sources if s in WORLD]
            if not bad:
                continue
            if rule.direction is UNKNOWN:  # as an ingress rule it would be a finding
                raise Undecidable(f"type (ingress or egress) of a rule of security group `{sg.name}`")
            what = describe_rule_ports(rule)
            if len(ports) == 1 and rule.from_port == rule.to_port:
                names = ports[0].rsplit(" ", 1)[0]
            else:
                names = _join(ports)
            where = rule.location if (rule.location.file or rule.location.urn) else sg.location
            yield Hit(
                sg_subject(sg),
                f"SW301: security group `{sg.name}` allows {what} ({names}) from {_join(bad)}; runtime "
                "ports must be reachable only from the group's own security group",
                where,
                tuple(sg.suppressions),
            )

    def _service(self, svc: Service) -> Iterator[Hit]:
        kind = known(svc.type, f"type of Service `{svc.name}`")
        if kind not in EXTERNAL_SERVICE_TYPES:
            return
        exposed = sorted({p for p in [*svc.ports, *svc.target_ports] if isinstance(p, int) and p in RUNTIME_PORTS})
        for port in exposed:
            yield Hit(
                object_subject("Service", svc.name, svc.namespace),
                f"SW301: Service `{svc.namespace}/{svc.name}` of type {kind} exposes port {port} "
                f"({RUNTIME_PORTS[port]}) outside the cluster; runtime ports must stay inside the serving "
                "group's private network",
                svc.location,
                tuple(svc.suppressions),
            )

    def _ingress(self, inv: Inventory, ing: Ingress) -> Iterator[Hit]:
        exposed: set[int] = {p for p in ing.ports if isinstance(p, int) and p in RUNTIME_PORTS}
        for name in ing.services:
            for svc in inv.services:
                if svc.name != name or svc.namespace != ing.namespace:
                    continue
                if len(svc.ports) == len(svc.target_ports):
                    for port, target in zip(svc.ports, svc.target_ports, strict=True):
                        routed = not ing.ports or port in ing.ports
                        if routed and isinstance(target, int) and target in RUNTIME_PORTS:
                            exposed.add(target)
        for port in sorted(exposed):
            yield Hit(
                object_subject(ing.kind, ing.name, ing.namespace),
                f"SW301: {ing.kind} `{ing.namespace}/{ing.name}` routes outside traffic to port {port} "
                f"({RUNTIME_PORTS[port]}); runtime ports must stay inside the serving group's private network",
                ing.location,
                tuple(ing.suppressions),
            )


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]

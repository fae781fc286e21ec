"""SW304: IMDSv2 not required, or a metadata hop limit above 1, on GPU nodes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..engine import Hit, LintConfig, ObjectRule, RuleMeta, hit, object_subject, subject_of
from ..model import UNKNOWN, UNRESOLVED, Inventory, LaunchTemplate, NodePool, is_unknown, known
from ._net import ami_family, find_launch_template
from ._words import listed

#: The hop limit that keeps the metadata service's answers from reaching pod network namespaces.
MAX_HOP_LIMIT = 1
#: The pools whose launch settings the inputs carry (those known only from node labels or a stack file do not).
LAUNCHED_KINDS = ("eks-nodegroup", "karpenter", "stack")


def launched_pools(inv: Inventory) -> list[NodePool]:
    return [pool for pool in inv.pools if pool.kind in LAUNCHED_KINDS]


def template_of(inv: Inventory, pool: NodePool) -> LaunchTemplate | None:
    """The launch template of the inputs that ``pool`` names (None: none, unknown, or not in the inputs)."""
    ref = pool.launch_template
    return None if ref is UNKNOWN or ref is None else find_launch_template(inv, ref)


class ImdsV2NotRequired(ObjectRule[NodePool | LaunchTemplate]):
    meta = RuleMeta(
        code="SW304",
        name="imdsv2-not-required",
        enforcement="mandatory",
        severity="high",
        summary=(
            "GPU nodes allow IMDSv1 (http_tokens not required) or let metadata responses travel more than "
            "one hop, so pods can read the node's IAM credentials."
        ),
        why=(
            "Every pod on a node can reach the instance metadata service. With IMDSv1, or with a PUT "
            "response hop limit above 1, a pod (or an SSRF in any HTTP-fetching code it runs, model "
            "downloaders included) can take the node role's credentials: pulling from every ECR "
            "repository, describing the VPC, and whatever else the node role allows. Pods that need AWS "
            "access should get their own role through EKS Pod Identity or IRSA. A managed node group with no "
            "launch template gets the one EKS makes, whose settings follow the AMI family its amiType names: with "
            "Amazon Linux 2 IMDSv1 is allowed and the hop limit is 2 (blocks); Amazon Linux 2023 AMIs require IMDSv2 "
            "(their imds-support is v2.0) and the hop limit EKS gives them is not in the inputs, Bottlerocket's "
            "defaults neither, and with no amiType EKS picks the AMI by the cluster's Kubernetes version (Amazon Linux "
            "2023 from 1.30): advisory, saying so."
        ),
        bad_example=(
            "resources:\n"
            "  gpu-lt:\n"
            "    type: aws:ec2:LaunchTemplate\n"
            "    properties:\n"
            "      metadataOptions:\n"
            "        httpTokens: optional\n"
            "        httpPutResponseHopLimit: 2"
        ),
        good_example=(
            "resources:\n"
            "  gpu-lt:\n"
            "    type: aws:ec2:LaunchTemplate\n"
            "    properties:\n"
            "      metadataOptions:\n"
            "        httpEndpoint: enabled\n"
            "        httpTokens: required\n"
            "        httpPutResponseHopLimit: 1"
        ),
        remediation=(
            "Give every GPU node group a launch template whose metadata options set http_tokens to "
            "required and http_put_response_hop_limit to 1. Give pods that need AWS APIs their own IAM "
            "role with EKS Pod Identity or IRSA instead of the node's. For a Karpenter NodePool whose "
            "EC2NodeClass is kept elsewhere, lint the EC2NodeClass together with the NodePool, or suppress SW304 "
            "on the NodePool naming where it is kept (Karpenter v1's defaults, httpTokens required and hop limit "
            "1, pass; an EC2NodeClass that sets httpTokens: optional or a higher hop limit does not)."
        ),
        references=(
            "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/configuring-instance-metadata-options.html",
            "https://docs.aws.amazon.com/eks/latest/best-practices/identity-and-access-management.html",
            "https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html",
            "https://docs.aws.amazon.com/linux/al2023/ug/imdsv2.html",
            "https://docs.aws.amazon.com/eks/latest/userguide/al2023.html",
        ),
        scope="stack",
        safe_to_skip_unknown=False,
    )

    def objects(self, inv: Inventory) -> Iterable[NodePool | LaunchTemplate]:
        """The pools with launch settings, then the launch templates they use, in the order first used."""
        pools = launched_pools(inv)
        templates: dict[int, LaunchTemplate] = {}
        for pool in pools:
            lt = template_of(inv, pool)
            if lt is not None:
                templates.setdefault(id(lt), lt)
        return [*pools, *templates.values()]

    def check_object(self, obj: NodePool | LaunchTemplate, inv: Inventory, config: LintConfig) -> Iterator[Hit]:
        if isinstance(obj, LaunchTemplate):
            yield from self._template(obj, [p for p in launched_pools(inv) if template_of(inv, p) is obj])
            return
        pool = obj
        ref = pool.launch_template
        if is_unknown(ref):
            what = "EC2NodeClass" if pool.kind == "karpenter" else "launch template"
            yield self._undecided(pool, f"the {what} of node pool `{pool.name}` is not known "
                                        f"({UNRESOLVED})")
        elif ref is None:
            if pool.kind == "eks-nodegroup":  # Karpenter's EC2NodeClass defaults are required / hop limit 1
                yield from self._eks_defaults(pool)
        elif find_launch_template(inv, ref) is None and pool.kind == "karpenter":
            yield from self._node_class_elsewhere(inv, pool, ref)
        elif find_launch_template(inv, ref) is None:
            yield self._undecided(pool, f"node pool `{pool.name}` uses launch template `{ref}`, which "
                                        "is not in the inputs")

    def _eks_defaults(self, pool: NodePool) -> Iterator[Hit]:
        """A managed node group with no launch template of its own: EKS makes one, and what its instances allow
        is the AMI family's (see :func:`ami_family`)."""
        ami = pool.ami_type
        if ami is UNKNOWN:
            yield self._undecided(pool, f"the AMI type of node pool `{pool.name}` is not known ({UNRESOLVED}), "
                                        "and with no launch template it decides the "
                                        "instance metadata settings")
            return
        said = f"`{pool.name}`"
        family = ami_family(ami)
        if family == "AL2":
            yield hit(pool, f"node pool {said} has no launch template and AMI type {ami}, so its instance metadata "
                            "settings are EKS's defaults for Amazon Linux 2 (IMDSv1 allowed, hop limit 2): pods "
                            "can take the node's IAM credentials")
            return
        if family == "AL2023":
            what = (f"AMI type {ami} (Amazon Linux 2023) requires IMDSv2, and the hop limit EKS's own launch template "
                    "gives it is not in the inputs (above 1, pods can take the node's IAM credentials with IMDSv2)")
        elif family == "Bottlerocket":
            what = f"AMI type {ami} (Bottlerocket): its metadata defaults are not in the inputs"
        elif ami is None:
            what = ("no AMI type, so EKS picks it by the cluster's Kubernetes version (Amazon Linux 2023 from 1.30, "
                    "which requires IMDSv2; Amazon Linux 2 before, which allows IMDSv1 with hop limit 2)")
        else:
            what = f"AMI type {ami}: its metadata defaults are not in the inputs"
        yield hit(pool, f"node pool {said} has no launch template, so its instance metadata settings are EKS's "
                        f"defaults: {what} (advisory: give it a launch template with httpTokens required and hop "
                        "limit 1 to make it sure)", level="advisory")

    def _node_class_elsewhere(self, inv: Inventory, pool: NodePool, ref: str) -> Iterator[Hit]:
        """A Karpenter NodePool's EC2NodeClass that is not in the inputs: one advisory note per class, on its
        first pool. Karpenter v1's CRD defaults an EC2NodeClass to httpTokens required and hop limit 1, so
        only a class that overrides them would fail; what it holds is not guessed."""
        pools = [p for p in launched_pools(inv) if p.kind == "karpenter" and p.launch_template == ref]
        if pools[0] is not pool:
            return
        names = list(dict.fromkeys(p.name.split("/", 1)[0] for p in pools))  # a NodePool's variants: one name
        uses = f"NodePool `{names[0]}` uses" if len(names) == 1 else f"NodePools {listed(f'`{n}`' for n in names)} use"
        yield Hit(f"NodePool {names[0]}", (
            f"Karpenter {uses} EC2NodeClass `{ref}`, which is not in the inputs, so its metadataOptions are "
            "not checked"), pool.location, tuple(s for p in pools for s in p.suppressions), level="advisory")

    def _undecided(self, pool: NodePool, why: str) -> Hit:
        return Hit(subject_of(pool), f"cannot decide: {why}", pool.location,
                   tuple(pool.suppressions), undecided=True)

    def _template(self, lt: LaunchTemplate, pools: list[NodePool]) -> Iterator[Hit]:
        names = listed(f"`{p.name}`" for p in pools)
        subject = object_subject(lt.kind, lt.name)
        suppressions = (*lt.suppressions, *(s for p in pools for s in p.suppressions))
        tokens = lt.http_tokens
        hops = lt.http_put_response_hop_limit
        unknown = [prop for prop, v in (("http_tokens", tokens), ("http_put_response_hop_limit", hops))
                   if v is UNKNOWN]
        what = "EC2NodeClass" if lt.kind == "EC2NodeClass" else "launch template"
        if unknown:
            yield Hit(subject, f"cannot decide: {' and '.join(unknown)} of {what} "
                      f"`{lt.name}` is not known ({UNRESOLVED})", lt.location,
                      suppressions, undecided=True)
            return
        problems, fixes = [], []
        ec2nc = lt.kind == "EC2NodeClass"
        if tokens != "required":
            problems.append(f"http_tokens = {tokens or 'unset'} (IMDSv1 allowed)")
            fixes.append("metadataOptions.httpTokens to required" if ec2nc else "http_tokens = required")
        hop = int(known(hops, "http_put_response_hop_limit")) if hops is not None else None
        if hop is not None and hop > MAX_HOP_LIMIT:
            problems.append(f"http_put_response_hop_limit = {hop}")
            fixes.append(f"metadataOptions.httpPutResponseHopLimit to {MAX_HOP_LIMIT}" if ec2nc else
                         f"http_put_response_hop_limit = {MAX_HOP_LIMIT}")
        if not problems:
            return
        yield Hit(
            subject,
            f"{what} `{lt.name}` of node pool {names} sets {' and '.join(problems)}, so pods can take the node's "
            f"IAM credentials; set {' and '.join(fixes)}",
            lt.location,
            suppressions,
        )

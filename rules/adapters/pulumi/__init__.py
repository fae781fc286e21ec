"""Pulumi resources (as the engine, ``pulumi preview --json`` or ``pulumi stack export`` give them)
-> :class:`~shardwise.rules.model.Inventory`. Pure: never imports ``pulumi``.

A resource is its type token, name, URN and properties in the engine's camelCase, with the
parent, dependencies and per-property dependencies when known (:class:`PulumiResource`).

Values are read by :mod:`~shardwise.rules.adapters.pulumi.values`: the engine's unknown sentinels
become :data:`~shardwise.rules.model.UNKNOWN` (never "absent"), secrets are unwrapped, whole floats
become ``int``, and a property of the wrong type is an input error naming its path.

What becomes what:

- ``aws:eks/nodeGroup:NodeGroup`` -> :class:`NodePool` (kind ``eks-nodegroup``): its labels plus
  the labels EKS puts on every node (``eks.amazonaws.com/nodegroup``, ``-capacityType``,
  ``node.kubernetes.io/instance-type``), taints, capacity type, subnets, and from its launch
  template the security groups, EFA interfaces and placement group. The pool is named by its
  ``shardwise.dev/pool`` label, else its ``nodeGroupName``, else the resource name;
- ``aws:ec2/launchTemplate:LaunchTemplate`` -> :class:`LaunchTemplate` (metadata options);
- ``aws:ec2/securityGroup:SecurityGroup`` (inline ``ingress``/``egress``) and the rule resources
  ``aws:ec2/securityGroupRule:SecurityGroupRule``, ``aws:vpc/securityGroupIngressRule:…`` and
  ``aws:vpc/securityGroupEgressRule:…`` -> :class:`SecurityGroup` with its :class:`SgRule` list
  (sources: CIDR blocks, managed prefix lists, security groups);
- ``aws:ec2/subnet:Subnet`` -> :class:`Subnet`; ``aws:ec2/placementGroup:PlacementGroup`` names
  the pool's placement group;
- every ``kubernetes:<group>/<version>:<Kind>`` resource is a manifest read by the Kubernetes
  adapter (:mod:`~shardwise.rules.adapters.pulumi.k8s` says how its unknown values are kept unknown);
- everything else is counted in ``Inventory.skipped``.

The AWS resources are read by :mod:`~shardwise.rules.adapters.pulumi.aws` (references between
them are resolved there: by id, URN or name, else through the property's dependencies, else UNKNOWN).

Suppressions: the AWS tag ``shardwise.dev/ignore`` (``"SW304: reason; SW301: reason"``) on node
groups, launch templates, security groups (and their rule resources) and subnets; the annotation of
the same name on Kubernetes objects.
"""

from __future__ import annotations

from .inventory import (
    IGNORE_TAG,
    LAUNCH_TEMPLATE,
    NODE_GROUP,
    PLACEMENT_GROUP,
    SECURITY_GROUP,
    SG_EGRESS,
    SG_INGRESS,
    SG_RULE,
    SUBNET,
    inventory_from_pulumi_json,
    inventory_from_resources,
    is_pulumi_json,
    load_pulumi_json,
    read_alone,
    resources_from_json,
)
from .k8s import HELM_RELEASE, helm_release_mention, kubernetes, kubernetes_api
from .resource import PulumiResource, merge_state, name_from_urn
from .values import UNKNOWN_SENTINELS, clean, is_unknown_value, json_type

__all__ = [
    "HELM_RELEASE", "IGNORE_TAG", "LAUNCH_TEMPLATE", "NODE_GROUP", "PLACEMENT_GROUP", "SECURITY_GROUP", "SG_EGRESS",
    "SG_INGRESS", "SG_RULE", "SUBNET", "UNKNOWN_SENTINELS", "PulumiResource", "clean", "helm_release_mention",
    "inventory_from_pulumi_json", "inventory_from_resources", "is_pulumi_json", "is_unknown_value", "json_type",
    "kubernetes", "kubernetes_api", "load_pulumi_json", "merge_state", "name_from_urn", "read_alone",
    "resources_from_json",
]

"""Kubernetes manifests (plain, Helm-rendered, multi-document, ``kind: List``) -> :class:`Inventory`.

This package's face: the functions below are re-exported from the modules that hold them
(:mod:`.inventory` reads objects into an inventory, :mod:`.dispatch` picks each object's extractor by
``apiVersion`` group and ``kind``, never the kind alone, :mod:`.unread` records what mentions vLLM but gave no
workload). One extractor per family of objects:

- :mod:`.workloads`: any object with a pod template (Deployment, StatefulSet, DaemonSet, ReplicaSet,
  Job, CronJob, Pod, Argo Rollout, OpenKruise CloneSet, OpenShift DeploymentConfig, LeaderWorkerSet, and
  unknown custom resources with ``spec.template``) whose containers run a vLLM server -> :class:`ServingGroup`
  (pod templates are read by :mod:`.pods`);
- serving operators' resources that start vLLM (:mod:`.serving` holds what they share):
  :mod:`.kserve` (InferenceService, ServingRuntime, ClusterServingRuntime, LLMInferenceService),
  :mod:`.ome` (OME's InferenceService on the ServingRuntime or ClusterServingRuntime it names, in any input),
  :mod:`.ray` (RayCluster, RayService with Ray Serve LLM's ``serveConfigV2``, AIBrix RayClusterFleet),
  :mod:`.operators` (KubeAI Model, Dynamo DynamoGraphDeployment, AIBrix StormService, llm-d ModelService,
  Kaito Workspace), :mod:`.nim` (the NIM operator's NIMService: SW005's "not checked"),
  :mod:`.kthena` (ModelServing, ModelBooster), :mod:`.knative` (Knative Service,
  Configuration, Revision), :mod:`.rbg` (RoleBasedGroup, RoleBasedGroupSet);
- :mod:`.generic`: the floor under them, any object of a (group, kind) no adapter claims that holds a pod spec
  at any depth;
- :mod:`.network`: Service, Ingress, Gateway API HTTPRoute, NetworkPolicy;
- :mod:`.policies`: Cilium, Calico, AdminNetworkPolicy and BaselineAdminNetworkPolicy objects;
- :mod:`.configmaps`: ConfigMap and Secret (their literal data);
- :mod:`.autoscaling`: HorizontalPodAutoscaler (v1, v2) and KEDA ScaledObject;
- :mod:`.nodes`: Node and Karpenter NodePool -> :class:`NodePool` (through
  :func:`~shardwise.rules.catalog.hardware.pool_from_labels`), Karpenter
  EC2NodeClass -> :class:`LaunchTemplate`, and :func:`resolve_pools`;
- Namespace and PodDisruptionBudget are known and need no object; a Helm test, or a Helm hook Pod or Job, is
  no serving workload; every other object is counted in ``Inventory.skipped``.

``shardwise.dev/ignore`` (``"SW104: reason; SW106: reason"``) is read on workloads, Services,
Ingresses, autoscalers and node pools. Every object keeps its file and line. Engine flags point at
the line where the flag is written when the manifest text is available (:func:`load_kubernetes_text`),
else at the container's ``args``/``command`` key.

After building, :func:`resolve_pools` matches each serving group to a node pool. Call it again
after merging inventories from several inputs: it re-resolves groups whose pool was only
synthesised from their own selector.
"""

from __future__ import annotations

from .fields import parse_ignore
from .inventory import (
    inventory_from_documents,
    inventory_from_objects,
    load_kubernetes_file,
    load_kubernetes_text,
)
from .nodes import SELECTOR_POOL_KIND, resolve_pools
from .parse import parse_manifests

__all__ = [
    "SELECTOR_POOL_KIND", "inventory_from_documents", "inventory_from_objects", "load_kubernetes_file",
    "load_kubernetes_text", "parse_ignore", "parse_manifests", "resolve_pools",
]

"""The API groups and kinds of the families :mod:`.dispatch` routes to an extractor module it imports only when the
first object of the family is read (start-up time: a run over plain manifests loads none of them). Their one home:
the extractor modules take them from here."""

from __future__ import annotations

#: Knative Serving (:mod:`.knative`).
KNATIVE_GROUP = "serving.knative.dev"
KNATIVE_KINDS = ("Service", "Configuration", "Revision")
#: RoleBasedGroup, RoleBasedGroupSet (:mod:`.rbg`).
RBG_GROUP = "workloads.x-k8s.io"
RBG_KINDS = ("RoleBasedGroup", "RoleBasedGroupSet")
#: KServe's serving runtimes (:mod:`.kserve`), which its InferenceServices name.
KSERVE_GROUP = "serving.kserve.io"
RUNTIME_KINDS = ("ServingRuntime", "ClusterServingRuntime")
#: OME (:mod:`.ome`): its InferenceService, the runtimes it names and their base models.
OME_GROUP = "ome.io"
OME_SERVICE = "InferenceService"
OME_RUNTIME_KINDS = ("ServingRuntime", "ClusterServingRuntime")
OME_MODEL_KINDS = ("BaseModel", "ClusterBaseModel")
OME_KINDS = (OME_SERVICE, *OME_RUNTIME_KINDS, *OME_MODEL_KINDS)

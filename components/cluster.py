"""EksCluster: an EKS cluster for an environment that creates its own (``cluster.create``).

What a serving environment needs from a new cluster, and nothing it does not: the cluster (API
authentication mode, so access is granted by EKS access entries), its IAM role, the GPU nodes' IAM
role, a small CPU node group for cluster services (GPU nodes carry a NoSchedule taint, so CoreDNS and
the controllers could not run anywhere else), access entries for the admins, EKS managed add-ons, and
with Helm the charts the environment's workloads need (:data:`CHARTS`), and with ``dcgm_exporter`` NVIDIA's DCGM
exporter on the GPU nodes (GPU telemetry; :func:`dcgm_exporter_values`).

With ``load_balancer_controller`` the AWS Load Balancer Controller (an ALB router needs it) with an IAM
role that gets the given policy through EKS Pod Identity, and with ``cluster_autoscaler`` the Cluster
Autoscaler with an IAM role of its own (managed GPU node groups grow when KEDA asks for replicas). The
``vpc-cni`` add-on enforces NetworkPolicies (``enableNetworkPolicy``). The cluster waits for its role's
policy attachment and the node groups for theirs (a race on create, a hang on destroy otherwise).

Not installed, and listed in ``prerequisites``: the CSI driver of a pvc model cache (its add-on and IAM role).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from shardwise.rules.model.spec import ClusterSpec

from ._k8s import doc
from .errors import ArgumentsError

#: Charts the cluster may need: name → (repository, chart, pinned version). Versions were checked
#: against public install scripts that pin them, not by installing them here.
CHARTS: dict[str, tuple[str, str, str]] = {
    "nvidia-device-plugin": ("https://nvidia.github.io/k8s-device-plugin", "nvidia-device-plugin", "0.17.1"),
    "aws-efa-k8s-device-plugin": ("https://aws.github.io/eks-charts", "aws-efa-k8s-device-plugin", "0.5.10"),
    "lws": ("", "oci://registry.k8s.io/lws/charts/lws", "0.7.0"),
    "keda": ("https://kedacore.github.io/charts", "keda", "2.18.3"),
    "kube-prometheus-stack": ("https://prometheus-community.github.io/helm-charts", "kube-prometheus-stack",
                              "78.3.0"),
    # not checked against an install: the controller's 2.13 line and the autoscaler's 1.32 line
    "aws-load-balancer-controller": ("https://aws.github.io/eks-charts", "aws-load-balancer-controller", "1.13.4"),
    "cluster-autoscaler": ("https://kubernetes.github.io/autoscaler", "cluster-autoscaler", "9.46.6"),
    # NVIDIA/dcgm-exporter deployment/Chart.yaml at tag 4.5.3-4.8.2 (691c927): chart 4.8.2, exporter 4.8.2
    # on DCGM 4.5.3; port 9400, a ServiceMonitor, the pod-resources mapping (pod and namespace labels)
    "dcgm-exporter": ("https://nvidia.github.io/dcgm-exporter/helm-charts", "dcgm-exporter", "4.8.2"),
}
#: Seconds Helm waits for each release's resources to be ready (the Release's ``timeout``; Helm's default is
#: 300). A first install on a new cluster pulls every image cold onto the system nodes (two small ones by
#: default): kube-prometheus-stack brings its CRDs, an admission-webhook Job, the operator, Prometheus,
#: Alertmanager, kube-state-metrics and a node exporter on every node, GPU nodes included, which 300 s often
#: does not cover; the controllers with webhooks (LWS, KEDA, the load-balancer controller) wait for their
#: certificates. Device plugins are DaemonSets whose pods wait for GPU nodes to join.
HELM_TIMEOUT_SECONDS: dict[str, int] = {
    "kube-prometheus-stack": 1200,
    "nvidia-device-plugin": 600, "aws-efa-k8s-device-plugin": 600,
    "lws": 600, "keda": 600, "aws-load-balancer-controller": 600, "cluster-autoscaler": 600, "dcgm-exporter": 600,
}
#: Metrics the DCGM exporter chart exports by default (its ``default-counters.csv`` at 4.8.2) that shardwise reads:
#: the ``gpu`` autoscaling metric's query (:func:`shardwise.rules.render.vllm.render_autoscaler`).
DCGM_METRICS = ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_POWER_USAGE",
                "DCGM_FI_DEV_XID_ERRORS")
#: The prerequisite (:data:`shardwise.rules.render.environment.PREREQUISITES`) each chart installs.
PREREQUISITE_OF_CHART = {"kube-prometheus-stack": "prometheus-operator"}
_SYSTEM_NODES = {"shardwise.dev/role": "system"}
POD_IDENTITY_PRINCIPAL = "pods.eks.amazonaws.com"
ADMIN_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
NODE_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryReadOnly", "AmazonEKS_CNI_Policy")
_GPU_NODES = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "shardwise.dev/gpu-count", "operator": "Exists"}]}]}}}
_TOLERATE_ALL = [{"operator": "Exists"}]
#: The GPU nodes' taint (:func:`shardwise.rules.render.nodepool.node_taints`), tolerated by GPU-only DaemonSets.
_TOLERATE_GPU = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def dcgm_exporter_values(service_monitor: bool) -> dict[str, Any]:
    """Values of the DCGM exporter chart: on the GPU nodes only (the pools' ``shardwise.dev/gpu-count`` label),
    tolerating their taint; with ``service_monitor`` (kube-prometheus-stack is installed) the chart's
    ServiceMonitor with ``honorLabels``: the exporter labels each GPU's series with the ``pod`` and ``namespace``
    using it, and without honorLabels Prometheus renames them ``exported_pod``/``exported_namespace`` (its own
    target labels name the exporter's pod), so the ``gpu`` autoscaler's query
    (``DCGM_FI_DEV_GPU_UTIL{namespace=…,pod=~…}``) would match nothing."""
    return {"affinity": _GPU_NODES, "tolerations": _TOLERATE_GPU,
            "serviceMonitor": {"enabled": service_monitor, "honorLabels": True, "interval": "15s"}}


def kubeconfig(cluster_name: str, region: str, endpoint: str, ca_data: str) -> str:
    """A kubeconfig for an EKS cluster that gets its token from the AWS CLI (``aws eks get-token``)."""
    user = {"exec": {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "command": "aws",
        "args": ["eks", "get-token", "--cluster-name", cluster_name, "--region", region, "--output", "json"],
    }}
    return json.dumps({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster_name, "cluster": {"server": endpoint, "certificate-authority-data": ca_data}}],
        "users": [{"name": cluster_name, "user": user}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "current-context": cluster_name,
    })


def _assume(service: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": service}, "Action": ["sts:AssumeRole", "sts:TagSession"]}]})


@dataclass(kw_only=True)
class EksClusterArgs:
    """Arguments of :class:`EksCluster`: the cluster settings of the stack config
    (:class:`~shardwise.rules.model.spec.ClusterSpec`), its name and network, and what the workloads need."""

    name: pulumi.Input[str] = field(metadata=doc("The cluster's name."))
    region: str = field(metadata=doc("AWS region (the kubeconfig's `aws eks get-token`)."))
    subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]] = field(metadata=doc(
        "Private subnets in at least two zones (control-plane interfaces and system nodes)."))
    cluster: ClusterSpec | Mapping[str, Any] = field(default_factory=lambda: ClusterSpec(create=True), metadata=doc(
        "Cluster settings: a ClusterSpec (a stack config's cluster) or a mapping of its fields."))
    role_arn: pulumi.Input[str] | None = field(default=None, metadata=doc(
        "IAM role of the control plane; created when None."))
    node_role_arn: pulumi.Input[str] | None = field(default=None, metadata=doc(
        "IAM role of the nodes; created when None."))
    efa: bool = field(default=False, metadata=doc("Install the EFA device plugin (EFA pools)."))
    leader_worker_set: bool = field(default=False, metadata=doc("Install the LeaderWorkerSet controller."))
    keda: bool = field(default=False, metadata=doc("Install KEDA (KEDA autoscalers)."))
    prometheus: bool = field(default=False, metadata=doc(
        "Install kube-prometheus-stack, selecting every PodMonitor and ServiceMonitor."))
    monitoring_namespace: str = field(default="monitoring", metadata=doc("Namespace of kube-prometheus-stack."))
    karpenter_nodes: bool = field(default=False, metadata=doc(
        "An EC2_LINUX access entry for the node role (Karpenter's nodes join with it)."))
    load_balancer_controller: bool = field(default=False, metadata=doc(
        "Install the AWS Load Balancer Controller (alb-ingress routers); needs "
        "cluster.load_balancer_controller_policy_arn."))
    cluster_autoscaler: bool = field(default=False, metadata=doc(
        "Install the Cluster Autoscaler (managed node groups that grow past min_size)."))
    dcgm_exporter: bool = field(default=False, metadata=doc(
        "Install NVIDIA's DCGM exporter on the GPU nodes, in monitoring_namespace (with its ServiceMonitor when "
        "`prometheus`)."))
    vpc_id: pulumi.Input[str] | None = field(default=None, metadata=doc(
        "The cluster's VPC (the load-balancer controller's `vpcId`)."))


class EksCluster(pulumi.ComponentResource):
    """An EKS cluster with the pieces a serving environment needs (see the module doc).

    Outputs: ``cluster``, ``role``, ``node_role``, ``system_node_group``, ``system_launch_template``,
    ``addons``, ``access_entries``, ``releases``, ``node_policy_attachments``, ``controller_roles``,
    ``provider`` (resources); ``name``, ``endpoint``,
    ``cluster_security_group_id``, ``node_role_arn``, ``oidc_issuer``, ``kubeconfig`` (secret);
    ``prerequisites`` (what is not installed).
    """

    def __init__(self, name: str, args: EksClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = args.cluster if isinstance(args.cluster, ClusterSpec) else ClusterSpec.model_validate(args.cluster)
        problems = cluster_findings(spec)
        if args.load_balancer_controller and spec.load_balancer_controller_policy_arn is None:
            problems.append(("cluster.load_balancer_controller_policy_arn", (
                "the AWS Load Balancer Controller needs an IAM policy shardwise does not write: set this to the "
                "policy made from the iam_policy.json of the controller's release")))
        if problems:
            raise ArgumentsError("EksCluster", problems)
        super().__init__("shardwise:cluster:EksCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.role: aws.iam.Role | None = None
        role_arn = args.role_arn
        cluster_deps: list[pulumi.Resource] = []
        if role_arn is None:
            self.role = aws.iam.Role(f"{name}-cluster", assume_role_policy=_assume("eks.amazonaws.com"), opts=child)
            cluster_deps.append(aws.iam.RolePolicyAttachment(
                f"{name}-cluster-policy", role=self.role.name,
                policy_arn="arn:aws:iam::aws:policy/AmazonEKSClusterPolicy", opts=child))
            role_arn = self.role.arn
        self.node_role: aws.iam.Role | None = None
        self.node_policy_attachments: list[pulumi.Resource] = []
        node_role_arn = args.node_role_arn
        if node_role_arn is None:
            self.node_role = aws.iam.Role(f"{name}-nodes", assume_role_policy=_assume("ec2.amazonaws.com"), opts=child)
            self.node_policy_attachments = [aws.iam.RolePolicyAttachment(
                f"{name}-nodes-{policy}", role=self.node_role.name, policy_arn=f"arn:aws:iam::aws:policy/{policy}",
                opts=child) for policy in NODE_POLICIES]
            node_role_arn = self.node_role.arn
        self.cluster = aws.eks.Cluster(
            f"{name}-cluster", name=args.name, role_arn=role_arn, version=spec.version,
            vpc_config={"subnet_ids": args.subnet_ids, "endpoint_private_access": True,
                        "endpoint_public_access": spec.endpoint_public_access,
                        "public_access_cidrs": list(spec.public_access_cidrs) if spec.endpoint_public_access else None},
            access_config={"authentication_mode": "API", "bootstrap_cluster_creator_admin_permissions": True},
            opts=pulumi.ResourceOptions(parent=self, depends_on=cluster_deps or None))
        self.name = self.cluster.name
        self.endpoint = self.cluster.endpoint
        self.cluster_security_group_id = self.cluster.vpc_config.apply(
            lambda vpc: vpc.cluster_security_group_id if vpc is not None else None)
        self.node_role_arn = pulumi.Output.from_input(node_role_arn)
        self.oidc_issuer = self.cluster.identities.apply(
            lambda ids: ids[0].oidcs[0].issuer if ids and ids[0].oidcs else None)
        self.access_entries: list[pulumi.CustomResource] = []
        for i, principal in enumerate(spec.admin_principal_arns):
            entry = aws.eks.AccessEntry(f"{name}-admin-{i}", cluster_name=self.cluster.name, principal_arn=principal,
                                        type="STANDARD", opts=child)
            self.access_entries.append(entry)
            aws.eks.AccessPolicyAssociation(f"{name}-admin-{i}", cluster_name=self.cluster.name,
                                            principal_arn=principal, policy_arn=ADMIN_POLICY,
                                            access_scope={"type": "cluster"},
                                            opts=pulumi.ResourceOptions(parent=self, depends_on=[entry]))
        if args.karpenter_nodes:
            self.access_entries.append(aws.eks.AccessEntry(
                f"{name}-karpenter-nodes", cluster_name=self.cluster.name, principal_arn=node_role_arn,
                type="EC2_LINUX", opts=child))
        # IMDSv2 with hop limit 1 here too: pods on these nodes must not reach the node role's credentials
        self.system_launch_template = aws.ec2.LaunchTemplate(
            f"{name}-system", description="shardwise system nodes",
            metadata_options={"http_endpoint": "enabled", "http_tokens": "required", "http_put_response_hop_limit": 1},
            block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {
                "volume_size": 50, "volume_type": "gp3", "encrypted": "true", "delete_on_termination": "true"}}],
            update_default_version=True, opts=child)
        self.system_node_group = aws.eks.NodeGroup(
            f"{name}-system", cluster_name=self.cluster.name, node_role_arn=node_role_arn, subnet_ids=args.subnet_ids,
            instance_types=[spec.system_instance_type], ami_type="AL2023_x86_64_STANDARD",
            scaling_config={"min_size": spec.system_nodes, "desired_size": spec.system_nodes,
                            "max_size": spec.system_nodes + 1},
            launch_template={"id": self.system_launch_template.id,
                             "version": self.system_launch_template.latest_version.apply(str)},
            labels=_SYSTEM_NODES, opts=pulumi.ResourceOptions(
                parent=self, depends_on=self.node_policy_attachments or None,
                ignore_changes=["scalingConfig.desiredSize"] if args.cluster_autoscaler else None))
        after_nodes = pulumi.ResourceOptions(parent=self, depends_on=[self.system_node_group])
        # enableNetworkPolicy: the VPC CNI's network policy agent enforces the NetworkPolicies shardwise declares
        self.addons = {a: aws.eks.Addon(f"{name}-{a}", cluster_name=self.cluster.name, addon_name=a,
                                        resolve_conflicts_on_create="OVERWRITE",
                                        configuration_values=ADDON_CONFIGURATION.get(a),
                                        opts=after_nodes if a == "coredns" else child)
                       for a in spec.addons}
        ca_data = self.cluster.certificate_authority.apply(lambda ca: ca.data if ca is not None else "")
        self.kubeconfig: pulumi.Output[str] = pulumi.Output.secret(pulumi.Output.all(  # type: ignore[arg-type]
            self.cluster.name, self.cluster.endpoint, ca_data).apply(
            lambda v: kubeconfig(v[0], args.region, v[1], v[2])))
        self.provider = k8s.Provider(f"{name}-k8s", kubeconfig=self.kubeconfig, enable_server_side_apply=True,
                                     opts=pulumi.ResourceOptions(parent=self, depends_on=list(self.addons.values())))
        self.controller_roles: dict[str, aws.iam.Role] = {}
        self._associations: dict[str, aws.eks.PodIdentityAssociation] = {}
        self.releases = self._charts(name, spec, args) if spec.helm_charts else {}
        self.prerequisites = ["the CSI driver of a pvc model cache (add-on and IAM role)"]
        self.register_outputs({
            "cluster": self.cluster, "role": self.role, "node_role": self.node_role,
            "system_node_group": self.system_node_group, "system_launch_template": self.system_launch_template,
            "addons": self.addons,
            "access_entries": self.access_entries, "releases": self.releases, "name": self.name,
            "endpoint": self.endpoint, "cluster_security_group_id": self.cluster_security_group_id,
            "node_role_arn": self.node_role_arn, "oidc_issuer": self.oidc_issuer, "kubeconfig": self.kubeconfig,
            "prerequisites": self.prerequisites, "provider": self.provider,
            "node_policy_attachments": self.node_policy_attachments, "controller_roles": self.controller_roles,
        })

    def _charts(self, name: str, spec: ClusterSpec, args: EksClusterArgs) -> dict[str, k8s.helm.v3.Release]:
        wanted: dict[str, tuple[str, Any]] = {
            "nvidia-device-plugin": ("kube-system", {"affinity": _GPU_NODES, "tolerations": _TOLERATE_ALL}),
        }
        if args.efa:
            wanted["aws-efa-k8s-device-plugin"] = ("kube-system", {
                "nodeSelector": {"shardwise.dev/efa": "true"}, "tolerations": _TOLERATE_ALL})
        if args.leader_worker_set:
            wanted["lws"] = ("lws-system", {})
        if args.keda:
            wanted["keda"] = ("keda", {})
        if args.prometheus:
            wanted["kube-prometheus-stack"] = (args.monitoring_namespace, {
                "grafana": {"enabled": False},
                # select every PodMonitor/ServiceMonitor, not only the chart's own
                "prometheus": {"prometheusSpec": {"podMonitorSelectorNilUsesHelmValues": False,
                                                  "serviceMonitorSelectorNilUsesHelmValues": False}}})
        if args.load_balancer_controller:
            role = self._controller_role(name, "aws-load-balancer-controller",
                                         spec.load_balancer_controller_policy_arn or "")
            wanted["aws-load-balancer-controller"] = ("kube-system", pulumi.Output.all(
                self.cluster.name, args.vpc_id).apply(lambda v: {
                    # region and VPC given: the controller would read them from IMDS, which hop limit 1 keeps
                    # from pods
                    "clusterName": v[0], "region": args.region, **({"vpcId": v[1]} if v[1] else {}),
                    "nodeSelector": _SYSTEM_NODES, "serviceAccount": {"name": "aws-load-balancer-controller"}}))
        if args.cluster_autoscaler:
            role = self._controller_role(name, "cluster-autoscaler", None)
            aws.iam.RolePolicy(f"{name}-cluster-autoscaler", role=role.name,
                               policy=self.cluster.name.apply(autoscaler_policy),
                               opts=pulumi.ResourceOptions(parent=self))
            wanted["cluster-autoscaler"] = ("kube-system", self.cluster.name.apply(lambda cluster: {
                "cloudProvider": "aws", "awsRegion": args.region, "nodeSelector": _SYSTEM_NODES,
                # finds the managed node groups' Auto Scaling groups by the tags EKS puts on them
                "autoDiscovery": {"clusterName": cluster},
                "rbac": {"serviceAccount": {"name": "cluster-autoscaler"}},
                "extraArgs": {"balance-similar-node-groups": True}}))
        if args.dcgm_exporter:
            wanted["dcgm-exporter"] = (args.monitoring_namespace, dcgm_exporter_values(args.prometheus))
        releases: dict[str, k8s.helm.v3.Release] = {}
        for chart_name, (namespace, values) in wanted.items():
            repo, chart, version = CHARTS[chart_name]
            deps: list[pulumi.Resource] = [self.system_node_group]
            if chart_name in self.controller_roles:  # its pods get their credentials at start
                deps.append(self._associations[chart_name])
            if chart_name == "dcgm-exporter" and args.prometheus:  # its ServiceMonitor's CRD
                deps.append(releases["kube-prometheus-stack"])
            releases[chart_name] = k8s.helm.v3.Release(
                f"{name}-{chart_name}", name=chart_name, chart=chart,
                version=spec.chart_versions.get(chart_name, version),
                repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=repo) if repo else None,
                namespace=namespace, create_namespace=True, values=values,
                timeout=HELM_TIMEOUT_SECONDS[chart_name],
                opts=pulumi.ResourceOptions(parent=self, provider=self.provider, depends_on=deps))
        return releases

    def _controller_role(self, name: str, controller: str, policy_arn: str | None) -> aws.iam.Role:
        """An IAM role for a controller in kube-system, given to its service account by EKS Pod Identity."""
        child = pulumi.ResourceOptions(parent=self)
        role = aws.iam.Role(f"{name}-{controller}", assume_role_policy=_assume(POD_IDENTITY_PRINCIPAL), opts=child)
        if policy_arn:
            aws.iam.RolePolicyAttachment(f"{name}-{controller}", role=role.name, policy_arn=policy_arn, opts=child)
        self.controller_roles[controller] = role
        self._associations[controller] = aws.eks.PodIdentityAssociation(
            f"{name}-{controller}", cluster_name=self.cluster.name, namespace="kube-system",
            service_account=controller, role_arn=role.arn,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.addons[a] for a in self.addons
                                                                 if a == "eks-pod-identity-agent"] or None))
        return role

    def installs(self) -> dict[str, k8s.helm.v3.Release]:
        """The releases by the prerequisite each installs (:data:`shardwise.rules.render.environment.PREREQUISITES`)."""
        return {PREREQUISITE_OF_CHART.get(c, c): r for c, r in self.releases.items()}


def cluster_findings(spec: ClusterSpec, prefix: str = "cluster.") -> list[tuple[str, str]]:
    """Problems of a created cluster's settings found before anything is declared: a public API endpoint
    needs the CIDRs that may reach it (EKS would open it to 0.0.0.0/0)."""
    if spec.create and spec.endpoint_public_access and not spec.public_access_cidrs:
        return [(f"{prefix}public_access_cidrs", "the API endpoint is public (endpoint_public_access) but no CIDR "
                 "may reach it is given, and EKS would open it to 0.0.0.0/0: list the networks that may (your "
                 "office, VPN or CI egress), or set endpoint_public_access: false and reach it from the VPC")]
    return []


#: Add-on configuration (``configurationValues``) by add-on name.
ADDON_CONFIGURATION = {"vpc-cni": json.dumps({"enableNetworkPolicy": "true"})}


def autoscaler_policy(cluster: str) -> str:
    """The Cluster Autoscaler's IAM policy: read Auto Scaling groups, launch templates, instance types and
    managed node groups (their labels and taints, to scale a group up from zero); change the size of, and
    terminate instances in, only the Auto Scaling groups EKS tagged as this cluster's."""
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Resource": "*", "Action": [
            "autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeAutoScalingInstances",
            "autoscaling:DescribeLaunchConfigurations", "autoscaling:DescribeScalingActivities",
            "autoscaling:DescribeTags", "ec2:DescribeImages", "ec2:DescribeInstanceTypes",
            "ec2:DescribeLaunchTemplateVersions", "ec2:GetInstanceTypesFromInstanceRequirements",
            "eks:DescribeNodegroup"]},
        {"Effect": "Allow", "Resource": "*",
         "Action": ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
         "Condition": {"StringEquals": {f"aws:ResourceTag/k8s.io/cluster-autoscaler/{cluster}": "owned"}}},
    ]})

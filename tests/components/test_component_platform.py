"""What an EKS practitioner expects a created environment to bring, under Pulumi mocks through the stacks'
``__main__.py``: GPU telemetry (NVIDIA's DCGM exporter on the GPU nodes, its series keeping the pod and
namespace the ``gpu`` autoscaler selects on), a model store (an S3 bucket the serving pods stream from),
an ECR pull-through cache for the vLLM image, and public subnets for an internet-facing router. The AWS
provider is a stand-in here: these are the resources declared, never created (docs/status.md)."""

from __future__ import annotations

from typing import Any

from component_mocks import run_program
from test_components import broken, refused, stack_run

RELEASE = "kubernetes:helm.sh/v3:Release"


def test_a_created_cluster_runs_the_dcgm_exporter_on_the_gpu_nodes_only():
    run = stack_run("prod")
    dcgm = run.one(RELEASE, "prod-cluster-dcgm-exporter")
    assert {k: dcgm.inputs[k] for k in ("name", "chart", "version", "namespace", "timeout")} == {
        "name": "dcgm-exporter", "chart": "dcgm-exporter", "version": "4.8.2", "namespace": "monitoring",
        "timeout": 600}
    assert dcgm.inputs["repositoryOpts"] == {"repo": "https://nvidia.github.io/dcgm-exporter/helm-charts"}
    assert dcgm.inputs["values"] == {
        # the nodes every GPU pool labels, and their taint (nvidia.com/gpu=true:NoSchedule) tolerated, nothing else
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "shardwise.dev/gpu-count", "operator": "Exists"}]}]}}},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        # the chart's ServiceMonitor, keeping the exporter's pod/namespace labels (else exported_pod/…)
        "serviceMonitor": {"enabled": True, "honorLabels": True, "interval": "15s"}}
    # the ServiceMonitor's CRD comes with kube-prometheus-stack
    assert f"{RELEASE}::prod-cluster-kube-prometheus-stack" in run.depends_on(RELEASE, "prod-cluster-dcgm-exporter")


def test_the_gpu_autoscaler_reads_a_metric_the_exporter_exports_with_the_labels_it_selects_on():
    from shardwise.components.cluster import DCGM_METRICS, dcgm_exporter_values

    def edit(env: dict[str, Any]) -> None:
        env["services"][0]["autoscaling"].update(metric="gpu", threshold=80)

    run = run_program(broken("prod", edit), stack="prod")
    query = run.one("kubernetes:keda.sh/v1alpha1:ScaledObject", "prod-llama-70b-scaledobject").inputs[
        "spec"]["triggers"][0]["metadata"]["query"]
    assert query == 'avg(DCGM_FI_DEV_GPU_UTIL{namespace="serving",pod=~"llama-70b-[a-z0-9]+-[a-z0-9]+"})'
    assert query.split("(", 1)[1].split("{", 1)[0] in DCGM_METRICS
    assert dcgm_exporter_values(True)["serviceMonitor"]["honorLabels"] is True
    # without Prometheus there is nothing to select the monitor: none is made (its CRD would be missing)
    assert dcgm_exporter_values(False)["serviceMonitor"]["enabled"] is False


def test_gpu_autoscaling_without_the_exporter_fails_at_preview():
    def edit(env: dict[str, Any]) -> None:
        env["cluster"]["gpu_telemetry"] = False
        env["services"][0]["autoscaling"].update(metric="gpu", threshold=80)

    err, _ = refused(broken("prod", edit))
    assert err.errors == [{"property_path": "services[0].autoscaling.metric", "reason": (
        "needs dcgm-exporter on cluster `llm-prod` (NVIDIA's DCGM exporter on the GPU nodes, scraped with its pod "
        "and namespace labels kept: an autoscaler on the `gpu` metric reads DCGM_FI_DEV_GPU_UTIL): its charts do "
        "not install it; install it and list it in cluster.installed")}]


def test_gpu_telemetry_off_installs_no_exporter():
    def edit(env: dict[str, Any]) -> None:
        env["cluster"]["gpu_telemetry"] = False

    run = run_program(broken("prod", edit), stack="prod")
    assert "dcgm-exporter" not in {r.inputs["name"] for r in run.of_type(RELEASE)}

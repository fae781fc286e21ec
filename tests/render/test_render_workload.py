"""rules/render/workload.py: what every serving workload shares (shared memory, the startup probe, image pinning,
labels and the metrics monitor).
"""

from __future__ import annotations

import pytest
from render_support import service
from shardwise.rules.render.workload import (
    PROBE_PERIOD_SECONDS,
    group_labels,
    render_monitor,
    selector_labels,
    shm_size_gib,
    startup_failure_threshold,
    unpinned_image_reason,
)


@pytest.mark.parametrize("gpus,gib", [(1, 4), (2, 4), (4, 8), (8, 16)])
def test_shm_size_rule(gpus, gib):
    assert shm_size_gib(gpus) == gib


@pytest.mark.parametrize("load", [30, 61, 600, 900, 1201, 2700, 7200])
def test_startup_probe_covers_the_model_load_and_no_more_than_one_period(load):
    t = startup_failure_threshold(load)
    assert t * PROBE_PERIOD_SECONDS >= load
    assert (t - 1) * PROBE_PERIOD_SECONDS < load


@pytest.mark.parametrize("image,pinned", [
    ("vllm/vllm-openai:v0.11.0", True),
    ("vllm/vllm-openai@sha256:" + "a" * 64, True),
    ("registry.example.com:5000/vllm:v1", True),
    ("vllm/vllm-openai", False),
    ("vllm/vllm-openai:latest", False),
    ("registry.example.com:5000/vllm", False),
])
def test_unpinned_images(image, pinned):
    reason = unpinned_image_reason(image)
    assert (reason is None) == pinned
    if not pinned:
        assert image in reason


def test_monitors_for_the_autoscalers_query():
    pm = render_monitor(service(metrics={"labels": {"release": "kps"}, "interval_seconds": 30}))
    assert pm == {"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor", "metadata": {
        "name": "llama-70b", "namespace": "serving", "labels": {"release": "kps", **group_labels("llama-70b")}},
        "spec": {"selector": {"matchLabels": selector_labels("llama-70b")},
                 "podMetricsEndpoints": [{"port": "http", "path": "/metrics", "interval": "30s"}]}}
    sm = render_monitor(service(metrics={"monitor": "service-monitor"}))
    assert (sm["kind"], sm["spec"]["endpoints"]) == ("ServiceMonitor", [{"port": "http", "path": "/metrics",
                                                                          "interval": "15s"}])
    assert render_monitor(service(metrics={"monitor": "none"})) is None

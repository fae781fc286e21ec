"""``components._k8s.canonical_quantity``: resource quantities as the API server writes them back.

The values are what ``resource.MustParse(x).String()`` gives in k8s.io/apimachinery (a binary suffix moves to
the largest one the amount is a whole multiple of, a decimal amount to the largest power of 1000; below 1Ki a
binary amount is written in decimal form); a LeaderWorkerSet's pod templates are declared in that form so the
LWS webhook's re-encoding does not show as a change on the next ``up`` (tests/e2e/test_cluster.py).
"""

from __future__ import annotations

import pytest
from shardwise.components._k8s import canonical_pod_quantities, canonical_quantity


@pytest.mark.parametrize(("given", "stored"), [
    (8, "8"), ("32", "32"), (0, "0"), (1000, "1k"), ("2000", "2k"), ("1000m", "1"), ("500m", "500m"),
    ("5120Mi", "5Gi"), ("32000Mi", "32000Mi"), ("1024Ki", "1Mi"), ("100Gi", "100Gi"), ("512Ki", "512Ki"),
    ("1.5Gi", "1.5Gi"),  # not a whole number: left as given
])
def test_a_quantity_takes_the_form_the_api_server_stores(given, stored):
    assert canonical_quantity(given) == stored


def test_only_the_leader_and_worker_containers_resources_change():
    res = {"limits": {"nvidia.com/gpu": 8, "hugepages-2Mi": "5120Mi"},
           "requests": {"nvidia.com/gpu": 8, "hugepages-2Mi": "5120Mi", "memory": "32000Mi"}}
    lws = {"kind": "LeaderWorkerSet", "spec": {"replicas": 1, "leaderWorkerTemplate": {
        "size": 2,
        "leaderTemplate": {"spec": {"containers": [{"name": "vllm", "resources": res}]}},
        "workerTemplate": {"spec": {"containers": [{"name": "vllm", "resources": res}],
                                    "initContainers": [{"name": "raid", "resources": {"limits": {"cpu": 1000}}}]}},
    }}}
    got = canonical_pod_quantities(lws)
    want = {"limits": {"nvidia.com/gpu": "8", "hugepages-2Mi": "5Gi"},
            "requests": {"nvidia.com/gpu": "8", "hugepages-2Mi": "5Gi", "memory": "32000Mi"}}
    lwt = got["spec"]["leaderWorkerTemplate"]
    assert lwt["leaderTemplate"]["spec"]["containers"][0]["resources"] == want
    assert lwt["workerTemplate"]["spec"]["containers"][0]["resources"] == want
    assert lwt["workerTemplate"]["spec"]["initContainers"][0]["resources"] == {"limits": {"cpu": "1k"}}
    assert (got["spec"]["replicas"], lwt["size"]) == (1, 2)
    assert lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]["resources"] is res  # copied

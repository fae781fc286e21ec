"""SW206's shortcut: a workload without a GPU selector is not reported when it starts on the smallest GPU of
the catalog, which takes its weights and the KV cache of one max_model_len sequence."""

from __future__ import annotations

import os

from repo_paths import FIXTURES
from shardwise.rules.adapters import load_inputs
from shardwise.rules.capacity.sizing import size_replica
from shardwise.rules.catalog import find_model
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules

FIXTURE = os.path.join(FIXTURES, "k8s", "accelerators", "phi4-mini-any-gpu.yaml")


def test_phi4_mini_at_its_default_context_does_not_fit_the_smallest_gpu() -> None:
    s = size_replica(find_model("microsoft/Phi-4-mini-instruct"), 14.75)  # a T4
    assert (round(s.weights_gib_per_gpu, 1), s.needed_kv_gib, s.max_model_len, s.verdict) == (
        7.2, 16.0, 131072, "refuses")


def test_sw206_counts_one_max_model_len_sequence() -> None:
    found = [(f.code, f.level, f.undecided, f.subject, f.location.line, f.message)
             for f in run_rules(ALL_RULES, load_inputs([FIXTURE])) if f.code == "SW206"]
    assert found == [
        ("SW206", "advisory", True, "Deployment default/phi4-mini-default", 13,
         "the vLLM workload has no nodeSelector or node affinity, so the capacity rules cannot size this "
         "workload"),
    ]  # phi4-mini-4k (--max-model-len 4096) starts on any GPU

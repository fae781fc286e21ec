"""A blocking finding that reads a GPU known only by a name (``NodePool.gpu_assumed``: a KubeAI resource profile that
no values KubeAI ships bind to a GPU) is advisory and says why; a level set in the configuration wins."""

from __future__ import annotations

from repo_paths import ROOT
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, run_rules

FIXTURE = str(ROOT / "tests" / "fixtures" / "rules" / "SW102" / "kubeai-profile.yaml")
NOTE = (" (advisory: the GPU is read from the name of resource profile `nvidia-gpu-t4`, to which KubeAI's shipped "
        "values bind no node selector, so which GPU the pod gets is set in the cluster's KubeAI resourceProfiles, "
        "which are not in the inputs)")


def _sw102(config: LintConfig | None = None) -> dict[str, tuple[str, str]]:
    return {f.subject: (f.level, f.message) for f in run_rules(ALL_RULES, load_inputs([FIXTURE]), config or LintConfig())
            if f.code == "SW102"}


def test_the_pools_say_whether_their_gpu_is_assumed():
    pools = {g.name: g.pool.gpu_assumed != "" for g in load_inputs([FIXTURE]).groups if g.pool is not None}
    assert pools == {"llama-3.1-8b-instruct-fp8-l4": False, "llama-3.1-8b-instruct-fp8-l4-8k": False,
                     "llama-3.2-3b-instruct-t4": True, "llama-3.1-8b-instruct-fp8-a10g": True}


def test_a_gpu_read_from_a_name_makes_the_refusal_advisory():
    found = _sw102()
    assert sorted((s, level) for s, (level, _) in found.items()) == [
        ("Model default/llama-3.1-8b-instruct-fp8-a10g", "advisory"),
        ("Model default/llama-3.1-8b-instruct-fp8-l4", "mandatory"),
        ("Model default/llama-3.2-3b-instruct-t4", "advisory"),
    ]
    assert found["Model default/llama-3.2-3b-instruct-t4"][1].endswith(NOTE)


def test_a_configured_level_wins_over_the_assumed_gpu():
    level, message = _sw102(LintConfig(enforcement={"SW102": "mandatory"}))["Model default/llama-3.2-3b-instruct-t4"]
    assert level == "mandatory"
    # the release assumed is 0.34.0, whose extensible KV cache leaves a T4 39,936 tokens with a first start's cold
    # compile peak (one copy of the 128,256 x 3,072 embedding; 46,080 without it): kubeai-profile's fixture
    assert not message.endswith(NOTE) and message.endswith(
        "--max-model-len 39936 fits; --tensor-parallel-size 2 keeps max_model_len 131,072")

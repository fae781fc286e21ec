"""mig21: one root cause, one blocking finding. Where SW204 blocks because a pod runs more than one vLLM worker on
MIG devices (a CUDA process enumerates one: the replica cannot start), the capacity and topology rules that judged
that replica are advisory; SW204's is the finding that blocks."""

from __future__ import annotations

import pytest
import repo_paths
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, run_rules

FIXTURES = repo_paths.FIXTURES / "rules"

# cannot_start() must give exactly SW204's MIG findings (a path of check_group that yields them and cannot_start()
# does not follow, or the reverse, fails here), on every SW204 fixture and the MIG fixtures of the others.
CANNOT_START_FIXTURES = sorted(
    [p for p in (FIXTURES / "SW204").glob("*.yaml") if not p.name.startswith("malformed")]
    + [FIXTURES / "SW104" / "mig-cannot-start.yaml", FIXTURES / "SW201" / "sidecar-mig.yaml",
       FIXTURES / "SW201" / "resource-models.yaml", FIXTURES / "SW101" / "mig-claim.yaml"])


@pytest.mark.parametrize("path", CANNOT_START_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_cannot_start_is_sw204s_mig_findings(path):
    from shardwise.rules.checks.sw204 import cannot_start

    inv = load_inputs([str(path)])
    # where the pods never schedule either, SW201 blocks and SW204's finding carries readers20's advisory note
    said = sorted((f.subject, f.message.removeprefix("SW204: ").split(" (advisory: judged on pool `")[0])
                  for f in run_rules(ALL_RULES, inv)
                  if f.code == "SW204" and not f.undecided and "MIG device" in f.message)
    asked = sorted((h.subject, h.message) for g in inv.groups for h in cannot_start(g, inv))
    assert asked == said


def test_sharding_judged_on_a_replica_that_cannot_start_on_mig_does_not_block():
    inv = load_inputs([str(FIXTURES / "SW104" / "mig-cannot-start.yaml")])
    found = run_rules(ALL_RULES, inv)
    levels = {(f.code, f.subject.rsplit("/", 1)[1]): f.level for f in found if f.code in ("SW104", "SW204")}
    assert levels == {("SW104", "llama-8b-tp2-mig-slices"): "advisory", ("SW204", "llama-8b-tp2-mig-slices"): "mandatory",
                      ("SW104", "llama-8b-tp2-whole-gpus"): "mandatory"}
    [note] = [f.message for f in found if f.code == "SW104" and f.subject.endswith("mig-slices")]
    assert note.endswith("(advisory: judged on a replica that cannot start as written (SW204's finding, which blocks: "
                         "more than one vLLM worker per pod on MIG devices); it blocks once the replica starts)")


def test_the_rules_a_lint_makes_ask_sw204_and_a_configuration_that_lowers_sw204_keeps_the_others_blocking():
    """The CLI makes only the rules its inventory needs (checks/index.py rules_for), wired as the registry's are; where
    the configuration makes SW204 advisory (or disables it) nothing blocks on the replica, so SW104 keeps its level;
    a level the configuration sets for SW104 wins."""
    from shardwise.rules.checks.index import rules_for

    inv = load_inputs([str(FIXTURES / "SW104" / "mig-cannot-start.yaml")])

    def levels(config):
        return sorted((f.code, f.level) for f in run_rules(rules_for(inv), inv, config)
                      if f.code in ("SW104", "SW204") and f.subject.endswith("mig-slices"))

    assert levels(LintConfig()) == [("SW104", "advisory"), ("SW204", "mandatory")]
    assert levels(LintConfig(enforcement={"SW204": "advisory"})) == [("SW104", "mandatory"), ("SW204", "advisory")]
    assert levels(LintConfig(enforcement={"SW204": "disabled"})) == [("SW104", "mandatory")]
    assert levels(LintConfig(enforcement={"SW104": "mandatory"})) == [("SW104", "mandatory"), ("SW204", "mandatory")]

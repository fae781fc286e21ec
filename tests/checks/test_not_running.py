"""fold22: one mechanism for "this replica does not run as written". Each source (SW201: the pods never schedule on
their pool; SW204: more than one vLLM worker per pod on MIG devices) is a rule whose blocking finding makes the other
capacity and topology findings judged on that replica advisory (GroupRule._on_not_running); the registry and the
rules a lint makes (checks/index.py wire_not_running) give every group rule the same list."""

from __future__ import annotations

import pytest
import repo_paths
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, run_rules
from shardwise.rules.engine.rule import GroupRule

FIXTURES = repo_paths.FIXTURES / "rules"
PENDING_NOTE = ("(advisory: judged on pool `instance-type=Standard_NC40ads_H100_v5`, where the pods never schedule as "
                "written (SW201's finding, which blocks); it blocks once they schedule)")


def test_every_group_rule_asks_one_list_of_sources_in_order():
    from shardwise.rules.checks import sw104, sw201, sw204, sw205
    from shardwise.rules.checks.index import rules_for

    groups = [r for r in ALL_RULES if isinstance(r, GroupRule)]
    [sources] = {r.not_running for r in groups}
    # each source's findings are asked once per group (checks/index.py _once_per_group): the wrapper wraps the source
    assert [(s.code, s.says.__wrapped__, s.keep, s.only) for s in sources] == [  # type: ignore[attr-defined]
        ("SW201", sw201.pending, frozenset(), None), ("SW204", sw204.cannot_start, frozenset({"SW201"}), None),
        ("SW205", sw205.tcp_between_nodes, frozenset(), frozenset({"SW201"})),
        ("SW104", sw104.sharded_beyond_need, frozenset(), frozenset({"SW202"}))]  # remedy1
    made = rules_for(load_inputs([str(FIXTURES / "SW201" / "sidecar-mig.yaml")]))
    assert {r.not_running for r in made if isinstance(r, GroupRule)} == {sources}
    assert not any(hasattr(r, "not_running") for r in made if not isinstance(r, GroupRule))


def test_a_source_is_asked_once_per_group():
    """A source's findings on a group are made once and kept beside it, however many rules ask (issue 30)."""
    from shardwise.rules.checks.index import _once_per_group

    asked = []

    def says(g, inv, config):
        asked.append(g)
        return [len(asked)]

    class Group:  # per_group keeps what it makes by the group's identity, beside a weak reference to it
        pass

    once = _once_per_group("SW999", says)
    assert _once_per_group("SW999", says) is once and once.__wrapped__ is says  # type: ignore[attr-defined]
    a, b = Group(), Group()
    run = LintConfig()
    assert [once(a, None, run), once(a, None, run), once(b, None, run), once(a, None, run)] == [(1,), (1,), (2,), (1,)]
    assert asked == [a, b]
    # review30: kept by the settings a source reads (SW104's KV reserve and p95 context): another run's are asked anew
    assert [once(a, None, LintConfig(p95_context_tokens=2048)), once(a, None, LintConfig(kv_reserve=2.0)),
            once(a, None, LintConfig())] == [(3,), (4,), (1,)]


P95_FOLD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama8b-a10g-tp2
  namespace: serving
  annotations:
    shardwise.dev/target-concurrency: "6"
spec:
  selector: {matchLabels: {app: llama8b-a10g-tp2}}
  template:
    metadata: {labels: {app: llama8b-a10g-tp2}}
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: g5.12xlarge
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [meta-llama/Llama-3.1-8B-Instruct, --tensor-parallel-size, "2", --max-model-len, "12288"]
          resources:
            limits: {nvidia.com/gpu: 2}
"""


def test_sw104_folds_sw202_as_judged_with_the_run_s_settings(tmp_path):
    """review30: the fold asked SW104's finding at the default settings, not the run's. An 8B model at TP2 on the
    PCIe-only A10Gs of g5.12xlarge, max_model_len 12,288, 6 sequences declared: counted at max_model_len, 2 TP1
    replicas hold them only within the estimate's error band (SW104 advisory) and SW202 is advisory (nothing to
    replace the TP2 surely); with --p95-context 2048 both judge the TP1 replicas sure. SW104 then blocks and names the
    change, and SW202 is advisory beside it: one cause, one blocking finding (before: both blocked, the fold asked at
    the default p95)."""
    path = tmp_path / "p95-fold.yaml"
    path.write_text(P95_FOLD)
    inv = load_inputs([str(path)])

    def levels(config: LintConfig) -> dict[str, str | None]:
        return {f.code: f.level for f in run_rules(ALL_RULES, inv, config) if f.code in ("SW104", "SW202")}

    assert levels(LintConfig()) == {"SW104": "advisory", "SW202": "advisory"}
    assert levels(LintConfig(p95_context_tokens=2048)) == {"SW104": "mandatory", "SW202": "advisory"}
    [note] = [f.message for f in run_rules(ALL_RULES, inv, LintConfig(p95_context_tokens=2048)) if f.code == "SW202"]
    assert note.endswith("(advisory: the model needs fewer GPUs per replica, SW104's finding on this group, which "
                         "blocks; the layout its change makes is judged again)")


def test_where_both_sources_say_so_the_first_that_blocks_names_it():
    """SW201/sidecar-mig.yaml's first pod asks three MIG slices of a node that holds two (SW201) and runs TP2 on MIG
    devices (SW204): SW201's finding blocks, SW104's and SW204's carry SW201's note (the first source), and SW201,
    which SW204's source leaves at its level, is not made advisory by it."""
    inv = load_inputs([str(FIXTURES / "SW201" / "sidecar-mig.yaml")])

    def said(config=None):
        return sorted((f.code, f.level, f.message.endswith(PENDING_NOTE), "SW204's finding, which blocks" in f.message)
                      for f in run_rules(ALL_RULES, inv, config or LintConfig())
                      if f.code in ("SW104", "SW201", "SW204") and f.subject.endswith("/llama-8b-mig-with-embedder"))

    assert said() == [("SW104", "advisory", True, False), ("SW201", "mandatory", False, False),
                      ("SW204", "advisory", True, False)]
    # SW201 lowered: SW204's source is the one that blocks, and SW104 carries its note; SW201 keeps its (configured)
    # level beside it
    assert said(LintConfig(enforcement={"SW201": "advisory"})) == [
        ("SW104", "advisory", False, True), ("SW201", "advisory", False, False), ("SW204", "mandatory", False, False)]
    # both lowered: nothing says the replica does not run, and SW104 blocks
    assert said(LintConfig(enforcement={"SW201": "advisory", "SW204": "advisory"})) == [
        ("SW104", "mandatory", False, False), ("SW201", "advisory", False, False), ("SW204", "advisory", False, False)]


def test_a_suppressed_source_leaves_the_others_blocking():
    """A suppression accepts the source's finding; it does not make the replica run (DESIGN.md, "When a finding
    blocks"): where every finding of the source on the group is suppressed (the workload's annotation, or the
    configuration's entry whose glob matches the subject), nothing blocks for that replica, so the others keep their
    level. A suppression of another rule, of another subject or without a reason changes nothing."""
    from shardwise.rules.engine.findings import SuppressionEntry

    inv = load_inputs([str(FIXTURES / "SW104" / "mig-cannot-start.yaml")])

    def sw104(*entries):
        return [(f.level, f.message.endswith("it blocks once the replica starts)"))
                for f in run_rules(ALL_RULES, inv, LintConfig(suppressions=list(entries)))
                if f.code == "SW104" and f.subject.endswith("/llama-8b-tp2-mig-slices")]

    assert sw104() == [("advisory", True)]
    assert sw104(SuppressionEntry("SW204", "MIG layout reviewed", "Deployment serving/llama-8b-tp2-*")) == [
        ("mandatory", False)]
    assert sw104(SuppressionEntry("SW204", "MIG layout reviewed", "Deployment serving/other-*")) == [("advisory", True)]
    assert sw104(SuppressionEntry("SW204", "", "*")) == [("advisory", True)]
    assert sw104(SuppressionEntry("SW202", "PCIe measured", "*")) == [("advisory", True)]

    pending = load_inputs([str(FIXTURES / "SW104" / "pods-never-schedule-suppressed.yaml")])
    found = run_rules(ALL_RULES, pending)
    assert sorted((f.code, f.subject.rsplit("/", 1)[1], f.level, f.suppressed) for f in found
                  if f.code in ("SW104", "SW201")) == [
        ("SW104", "llama-8b-tp2-sw201-suppressed", "mandatory", False),
        ("SW104", "llama-8b-tp2-sw202-suppressed", "advisory", False),
        ("SW201", "llama-8b-tp2-sw201-suppressed", "mandatory", True),
        ("SW201", "llama-8b-tp2-sw202-suppressed", "mandatory", False)]


TCP_NOTE = "(advisory: the TCP between the nodes is SW205's finding on this group, which blocks)"


def test_the_tcp_between_nodes_blocks_once_by_sw205():
    """SW201/fail.yaml: three LeaderWorkerSets whose TP16 spans two 8-GPU nodes that no fabric joins (a pool without
    EFA, twice; an EFA pool whose pods request no EFA devices). SW201 and SW205 both said every all-reduce runs over
    TCP and both blocked. SW205 owns it (the rule about the fabric between nodes, whose remedy names both ways out);
    SW201's is advisory beside it. The fourth workload's pods never schedule: SW201 keeps blocking there."""
    from shardwise.rules.engine.findings import SuppressionEntry

    inv = load_inputs([str(FIXTURES / "SW201" / "fail.yaml")])

    def said(config=None):
        return sorted((f.code, f.subject.rsplit("/", 1)[1], f.level, f.message.endswith(TCP_NOTE))
                      for f in run_rules(ALL_RULES, inv, config or LintConfig()) if f.code in ("SW201", "SW205"))

    assert said() == [
        ("SW201", "llama405b-tp16-efa-unused", "advisory", True),
        ("SW201", "llama405b-tp16-no-fabric", "advisory", True),
        ("SW201", "llama8b-two-gpus-on-one-gpu-nodes", "mandatory", False),
        ("SW201", "qwen3-235b-tp16-no-fabric", "advisory", True),
        ("SW205", "llama405b-tp16-efa-unused", "mandatory", False),
        ("SW205", "llama405b-tp16-no-fabric", "mandatory", False),
        ("SW205", "qwen3-235b-tp16-no-fabric", "mandatory", False)]
    # where SW205 does not block (lowered, or its finding suppressed), SW201 blocks on the TCP, as before
    lowered = said(LintConfig(enforcement={"SW205": "advisory"}))
    assert [(c, w, lvl) for c, w, lvl, _ in lowered if c == "SW201"] == [
        ("SW201", "llama405b-tp16-efa-unused", "mandatory"), ("SW201", "llama405b-tp16-no-fabric", "mandatory"),
        ("SW201", "llama8b-two-gpus-on-one-gpu-nodes", "mandatory"), ("SW201", "qwen3-235b-tp16-no-fabric", "mandatory")]
    one = said(LintConfig(suppressions=[SuppressionEntry("SW205", "fabric reviewed", "*/qwen3-235b-tp16-no-fabric")]))
    assert [(w, lvl, note) for c, w, lvl, note in one if c == "SW201"] == [
        ("llama405b-tp16-efa-unused", "advisory", True), ("llama405b-tp16-no-fabric", "advisory", True),
        ("llama8b-two-gpus-on-one-gpu-nodes", "mandatory", False), ("qwen3-235b-tp16-no-fabric", "mandatory", False)]


def test_sw205_made_advisory_by_the_pending_pods_leaves_sw201_blocking():
    """SW205/pods-never-schedule.yaml: on 4-GPU nodes the 8-GPU pods never schedule; SW201 blocks on that and SW205's
    TCP finding is advisory beside it, so SW205 does not own a blocking finding there and SW201 is not made advisory
    for it (the two sources would otherwise leave nothing blocking). On 8-GPU nodes SW205 blocks and SW201 is
    advisory."""
    inv = load_inputs([str(FIXTURES / "SW205" / "pods-never-schedule.yaml")])
    assert sorted((f.code, f.subject.rsplit("/", 1)[1], f.level, f.message.endswith(TCP_NOTE))
                  for f in run_rules(ALL_RULES, inv) if f.code in ("SW201", "SW205")) == [
        ("SW201", "llama70b-tp16-pods-fit", "advisory", True),
        ("SW201", "llama70b-tp16-pods-too-big", "mandatory", False),
        ("SW205", "llama70b-tp16-pods-fit", "mandatory", False),
        ("SW205", "llama70b-tp16-pods-too-big", "advisory", False)]


PP_NVL = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama70b-h100nvl-tp4-pp2
  namespace: serving
  annotations:
    shardwise.dev/target-concurrency: "LOAD"
spec:
  selector: {matchLabels: {app: llama70b}}
  template:
    metadata: {labels: {app: llama70b}}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-NVL
        nvidia.com/gpu.count: "8"
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, "4", --pipeline-parallel-size, "2",
                 --max-model-len, "8192"]
          resources:
            limits: {nvidia.com/gpu: 8}
"""


@pytest.mark.parametrize(("load", "sw104", "sw202"), [
    # 4 × TP2×PP1 hold 48 together: SW104's change keeps TP inside the bridged pairs; SW202 folds beside it
    ("16", "replicas 1 → 4, --tensor-parallel-size 4 → 2, --pipeline-parallel-size 2 → 1, nvidia.com/gpu limit 8 → 2",
     "advisory"),
    # 48 a replica: SW104's fewest GPUs are 4 a replica; of the layouts of 4 GPUs, 2 × TP2×PP2 on the bridges hold
    # them, and SW104 names them before TP4×PP1 over PCIe between the pairs (mend10: it named TP4×PP1, and SW202,
    # naming TP2×PP2, kept blocking beside it: one blocking finding and one remedy now)
    ("48", "replicas 1 → 2, --tensor-parallel-size 4 → 2, nvidia.com/gpu limit 8 → 4", "advisory"),
])
def test_sw202_folds_beside_sw104_only_where_its_change_keeps_tp_inside_nvlink(tmp_path, load, sw104, sw202):
    """review30: remedy1 folded SW202 beside every blocking SW104, but with two pipeline stages SW104's change may
    keep the TP group over PCIe (TP4×PP2 on eight H100 NVL, NVLink-bridged in pairs). mend10: of the layouts of the
    fewest GPUs SW104 names one whose TP stays in the NVLink domain where one holds the load, so SW202 folds in
    both cases here; it keeps blocking only where no such layout of that count holds the load."""
    path = tmp_path / "pp-nvl.yaml"
    path.write_text(PP_NVL.replace("LOAD", load))
    found = {f.code: f for f in run_rules(ALL_RULES, load_inputs([str(path)])) if f.code in ("SW104", "SW202")}
    assert found["SW104"].level == "mandatory" and f"run them instead: {sw104} (vLLM" in found["SW104"].message
    assert found["SW202"].level == sw202
    assert found["SW202"].message.endswith("which blocks; the layout its change makes is judged again)") == (
        sw202 == "advisory")

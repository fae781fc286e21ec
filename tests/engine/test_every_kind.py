"""A finding that reads the GPU of a pod whose Karpenter NodePool may launch several kinds of node for it is judged
on every kind (``ServingGroup.pool_options``): blocking only where it blocks on each, advisory naming the kinds it
holds on otherwise (DESIGN.md, "When a finding blocks"); a level set in the configuration wins. The fixtures
(tests/fixtures/rules/SW101/karpenter-family-list.yaml, SW102/karpenter-instance-types.yaml) hold the messages."""

from __future__ import annotations

from repo_paths import ROOT
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, run_rules

RULES = ROOT / "tests" / "fixtures" / "rules"
NOTE = (" (advisory: NodePool `gpu` may launch g5 (A10G) or g6e (L40S) for this pod and this holds on g5 (A10G) only; "
        "select one kind (a nodeSelector on its instance type, family or GPU name) to have it judged on that one)")


def _found(path: str, code: str, config: LintConfig | None = None) -> dict[str, tuple[str, str]]:
    return {f.subject: (f.level, f.message) for f in run_rules(ALL_RULES, load_inputs([path]), config or LintConfig())
            if f.code == code}


def test_a_finding_on_some_kinds_only_is_advisory_and_names_them():
    found = _found(str(RULES / "SW101" / "karpenter-family-list.yaml"), "SW101")
    assert {s: level for s, (level, _) in found.items()} == {
        "Deployment serving/llama70b-any": "mandatory", "Deployment serving/qwen14b-any": "advisory",
        "Deployment serving/qwen14b-a10g": "mandatory"}
    assert found["Deployment serving/qwen14b-any"][1].endswith(NOTE)
    assert "(advisory" not in found["Deployment serving/llama70b-any"][1]  # blocks on the A10G and on the L40S


def test_a_level_set_in_the_configuration_wins_and_the_note_stays():
    found = _found(str(RULES / "SW101" / "karpenter-family-list.yaml"), "SW101",
                   LintConfig(enforcement={"SW101": "mandatory"}))
    level, message = found["Deployment serving/qwen14b-any"]
    assert (level, message.endswith(NOTE)) == ("mandatory", True)


def test_a_finding_on_another_kind_than_the_billed_one_is_reported_from_that_kind():
    """The one-GPU pod is billed on g6e.xlarge (L40S), where 131,072 tokens fit; on g6.12xlarge (L4) they do not."""
    found = _found(str(RULES / "SW102" / "karpenter-instance-types.yaml"), "SW102")
    assert {s: level for s, (level, _) in found.items()} == {
        "Deployment serving/llama8b-128k-any": "advisory", "Deployment serving/llama8b-128k-l4": "mandatory"}
    assert " on L4 " in found["Deployment serving/llama8b-128k-any"][1]


POD = """apiVersion: apps/v1
kind: Deployment
metadata: {name: llama3b-g5-or-pinned, namespace: serving}
spec:
  replicas: 1
  selector: {matchLabels: {app: llama3b}}
  template:
    metadata: {labels: {app: llama3b}}
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge]}
              - matchFields:
                  - {key: metadata.name, operator: In, values: [ip-10-0-1-5.ec2.internal]}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [--model, meta-llama/Llama-3.2-3B-Instruct, --quantization, fp8, --max-model-len, "131072"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_silent_on_every_kind_it_decides_and_undecided_on_one_is_undecided(tmp_path):
    """review48: the pod may land on g5.xlarge's A10G, where FP8 starts and 131,072 tokens fit, or on the node its
    second term names, whose GPU no input describes: judged on the A10G alone it passed in silence."""
    path = tmp_path / "pod.yaml"
    path.write_text(POD)
    why = ("cannot decide: GPU memory of node pool `hostname=ip-10-0-1-5.ec2.internal` is not known (the pod is pinned "
           "to node `ip-10-0-1-5.ec2.internal` by its kubernetes.io/hostname label, and no input describes that node's "
           "GPUs: lint the node's manifest with the rest (`kubectl get node ip-10-0-1-5.ec2.internal -o yaml`: GPU "
           "Feature Discovery's nvidia.com/gpu.product and gpu.count labels), or select the node by a GPU label)")
    found = [(f.code, f.level, f.undecided, f.location.line, f.message)
             for f in run_rules(ALL_RULES, load_inputs([str(path)]), LintConfig()) if f.code.startswith(("SW1", "SW2"))]
    # all three passed in silence before (judged on the A10G, and the pinned node undecided there was dropped)
    assert found == [("SW206", "advisory", True, 10, why), ("SW101", "advisory", True, 21, why),
                     ("SW102", "advisory", True, 21, why)]

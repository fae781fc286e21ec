"""Network, security and reliability rules (SW3xx, SW4xx). Every fixture, in its real input format
(Kubernetes YAML, ``pulumi stack export`` and ``pulumi preview --json`` files), through the real
adapters (``load_inputs``), fires exactly the findings of its rule written beside it: line, level,
subject, message and suppression reason (``SW301/fail.json.expected``, test_rule_fixtures.py).
``unknown.*`` fixtures hold values that are unknown at preview (or come from a ConfigMap);
``malformed.*`` ones are input errors: a field of the wrong type that a rule reads is an input error,
never read as absent. Here: what the rules do with unknown values, configuration and suppressions.
"""

from __future__ import annotations

import pathlib

import pytest
import repo_paths
from shardwise.rules.adapters import load_inputs
from shardwise.rules.adapters.k8s.network import add_ingress
from shardwise.rules.checks._net import runtime_ports_covered, world_families
from shardwise.rules.checks.registry import ALL_RULES, rule_by_code
from shardwise.rules.checks.sw306 import dev_mode_on
from shardwise.rules.checks.sw402 import required_startup_seconds
from shardwise.rules.checks.sw403 import metric_kind
from shardwise.rules.checks.sw406 import routing
from shardwise.rules.engine import LintConfig, run_rules
from shardwise.rules.model import UNKNOWN, Ingress, Inventory, Location, SgRule, Undecidable
from shardwise.rules.model.errors import InputError

FIXTURES = repo_paths.FIXTURES / "rules"
CODES = ("SW301", "SW302", "SW303", "SW304", "SW305", "SW306", "SW307", "SW308", "SW309", "SW310", "SW311",
         "SW312", "SW401", "SW402", "SW403", "SW404", "SW405", "SW406", "SW407", "SW408")



def inputs(code: str, kind: str) -> list[str]:
    """The names of ``code``'s fixtures of one kind (``unknown.yaml``, ``unknown.json``)."""
    return sorted(p.name for p in (FIXTURES / code).glob(f"{kind}.*") if p.suffix in (".yaml", ".json"))


def findings(code: str, name: str, config: LintConfig | None = None):
    inv = load_inputs([str(FIXTURES / code / name)])
    return [f for f in run_rules(ALL_RULES, inv, config) if f.code == code]


@pytest.mark.parametrize("code,name", [(c, n) for c in CODES for n in inputs(c, "unknown")])
def test_unknown_fixtures_say_cannot_decide(code, name):
    got = findings(code, name)
    undecided = [f for f in got if f.undecided]
    if code == "SW406":  # an unknown replica count is read as "several": the finding stands
        assert [f.undecided for f in got] == [False]
        return
    assert undecided and all(f.message.startswith("cannot decide: ") for f in undecided)
    meta = rule_by_code(code).meta
    if meta.mandatory_when:  # per-hit levels, asserted in the .expected files
        assert {f.level for f in undecided} == {
            "SW305": {"advisory", "mandatory"},  # mandatory for the multi-node group
            "SW310": {"mandatory"},  # NVIDIA_VISIBLE_DEVICES not known yet (it overrides the device plugin)
        }[code]
        return
    level = "advisory" if meta.safe_to_skip_unknown else "mandatory"
    assert {f.level for f in undecided} == {level}


def test_unknown_is_advisory_when_configured_to_warn():
    [f] = [f for f in findings("SW304", "unknown.json", LintConfig(unknown_is_failure=False)) if f.undecided]
    assert f.level == "advisory"


def test_a_suppressed_finding_is_reported_not_dropped():
    [f] = [f for f in findings("SW304", "fail.json") if f.suppressed]
    assert (f.subject, f.blocking, f.suppression_reason) == (
        "LaunchTemplate a10g-lt", False,
        "the node-local DCGM exporter reads IMDS from a pod; ticket GPU-412 moves it to Pod Identity")


def test_config_suppression_needs_the_subject_and_keeps_the_finding():
    from shardwise.rules.engine import SuppressionEntry

    cfg = LintConfig(suppressions=[SuppressionEntry("SW306", "internal NLB, mTLS at the mesh", "Service serving/*")])
    got = [(f.subject, f.suppressed) for f in findings("SW306", "fail.yaml", cfg)]
    assert got == [("Deployment serving/llama-8b", False), ("Service serving/llama-8b-public", True),
                   ("Service serving/llama-8b-nodeport", True), ("Deployment serving/qwen-7b", False),
                   ("Deployment serving/mistral-7b", False)]


def test_production_from_config_turns_sw404_on():
    assert findings("SW404", "pass.yaml", LintConfig(production=False)) == []
    got = [(f.subject, f.message) for f in findings("SW404", "pass.yaml", LintConfig(production=True))]
    assert got == [("Deployment dev/llama-8b-dev", "1 warm replica in production (replicas is 1), where at "
                                                  "least 2 are required; production: the run's `production` "
                                                  "setting")]


def test_malformed_kubernetes_input_is_an_input_error_with_file_and_line():
    with pytest.raises(InputError) as e:
        load_inputs([str(FIXTURES / "SW403" / "malformed.yaml")])
    assert str(e.value) == (
        f"{FIXTURES / 'SW403' / 'malformed.yaml'}:27: spec.minReplicas: expected an integer, got 'two'")


def test_malformed_pulumi_input_is_an_input_error_naming_the_resource(tmp_path):
    text = (FIXTURES / "SW301" / "fail.json").read_text().replace('"fromPort": 1024', '"fromPort": "1024-ish"')
    path = tmp_path / "export.json"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        load_inputs([str(path)])
    assert str(e.value) == (
        f"{path}:21: aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule "
        "urn:pulumi:dev::gpu::aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule::gpu-nodes-from-vpc: "
        "fromPort: expected a whole number, found '1024-ish'")


# --- the facts the rules compare against ---------------------------------------------------------


@pytest.mark.parametrize("rule,covered", [
    (SgRule("ingress", "tcp", 6379, 6379), ["Ray GCS 6379"]),
    (SgRule("ingress", "tcp", 8000, 8000), []),
    (SgRule("ingress", "udp", 6379, 6379), []),
    (SgRule("ingress", "tcp", 29000, 30000), ["torch.distributed / vLLM data-parallel master 29500",
                                              "vLLM multi-node master (--master-port) 29501",
                                              "vLLM data-parallel RPC 29550"]),
    (SgRule("ingress", "tcp", 29501, 29501), ["vLLM multi-node master (--master-port) 29501"]),
    (SgRule("ingress", "tcp", 40000, 42000), ["NCCL's ephemeral ports"]),
    (SgRule("ingress", "-1", 0, 0), ["vLLM NIXL side channel 5600", "Ray GCS 6379", "Ray dashboard 8265",
                                     "vLLM Mooncake bootstrap 8998", "Ray client 10001", "vLLM KV transfer 14579",
                                     "torch.distributed / vLLM data-parallel master 29500",
                                     "vLLM multi-node master (--master-port) 29501", "vLLM data-parallel RPC 29550",
                                     "Ray dashboard agent 52365", "NCCL's ephemeral ports"]),
])
def test_runtime_ports_covered(rule, covered):
    assert runtime_ports_covered(rule) == covered


@pytest.mark.parametrize("cidrs,families", [
    (["0.0.0.0/0"], ["IPv4"]), (["::/0"], ["IPv6"]), (["0::0/0"], ["IPv6"]), (["0:0:0:0:0:0:0:0/0"], ["IPv6"]),
    ([" 0.0.0.0/0 "], ["IPv4"]), (["10.0.0.0/0"], ["IPv4"]),  # host bits set: still the whole internet
    (["0.0.0.0/1", "128.0.0.0/1"], ["IPv4"]), (["0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/2"], ["IPv4"]),
    (["0.0.0.0/1"], []), (["10.0.0.0/8", "0.0.0.0/1"], []), (["::/1", "8000::/1", "0.0.0.0/0"], ["IPv4", "IPv6"]),
    (["not-a-cidr"], []), ([], []),
])
def test_the_whole_internet_is_compared_as_networks(cidrs, families):
    assert world_families(cidrs) == families


@pytest.mark.parametrize("metric,kind", [
    ("cpu", "utilization"), ("memory", "utilization"), ("gpu-utilization", "utilization"),
    ("DCGM_FI_DEV_GPU_UTIL", "utilization"), ("vllm:num_requests_waiting", "queue"),
    ("vllm:num_requests_running", "queue"), ("http_requests_total", "other"),
])
def test_metric_kind(metric, kind):
    assert metric_kind(metric) == kind


@pytest.mark.parametrize("annotations,route", [
    ({}, None),
    ({"kubernetes.io/ingress.class": "alb"}, ("alb", "round_robin")),
    ({"alb.ingress.kubernetes.io/target-group-attributes":
      "stickiness.enabled=false,load_balancing.algorithm.type=least_outstanding_requests"},
     ("alb", "least_outstanding_requests")),
    ({"alb.ingress.kubernetes.io/target-group-attributes": "load_balancing.algorithm.type=weighted_random"},
     ("alb", "weighted_random")),
    ({"nginx.ingress.kubernetes.io/upstream-hash-by": "$http_x_session"}, ("nginx", "consistent hash")),
    ({"kubernetes.io/ingress.class": "nginx"}, ("nginx", "round_robin")),
])
def test_routing(annotations, route):
    # through the adapter, which reads the class from spec.ingressClassName, else this annotation
    inv = Inventory()
    add_ingress({"kind": "Ingress", "metadata": {"name": "x", "annotations": annotations}}, Location(), inv)
    assert routing(inv.ingresses[0]) == route


@pytest.mark.parametrize("class_name,controller,route", [
    ("alb", None, ("alb", "round_robin")),  # the AWS Load Balancer Controller chart's IngressClass
    ("nginx", None, ("nginx", "round_robin")),  # ingress-nginx chart's IngressClass
    ("internal", "ingress.k8s.aws/alb", ("alb", "round_robin")),  # an IngressClass of the inputs names the controller
    ("internal", "eks.amazonaws.com/alb", ("alb", "round_robin")),  # EKS Auto Mode's
    ("public", "k8s.io/ingress-nginx", ("nginx", "round_robin")),
    ("traefik", None, None),  # a controller the rule does not read
    (None, None, None),  # the cluster's default class, not in the inputs
])
def test_routing_by_class_field(class_name, controller, route):
    assert routing(Ingress("x", class_name=class_name, class_controller=controller)) == route


def test_routing_unknown_class_is_unknown():
    # a class not known yet (a preview's computed ingressClassName) may name any controller: never "no controller"
    with pytest.raises(Undecidable, match="the ingress class of Ingress `x`"):
        routing(Ingress("x", class_name=UNKNOWN))


@pytest.mark.parametrize("value,on", [
    ("0", False), ("00", False), (" 0 ", False), ("-0", False), ("+0", False), ("0_0", False),
    ("1", True), ("01", True), ("2", True), ("-1", True),
    ("true", None), ("false", None), ("", None), ("0.0", None), ("on", None),
])
def test_dev_mode_follows_vllms_int_parsing(value, on):
    # vllm/envs.py: "VLLM_SERVER_DEV_MODE": lambda: bool(int(os.getenv("VLLM_SERVER_DEV_MODE", "0")))
    assert dev_mode_on(value) is on


def test_required_startup_grows_with_the_weights_a_pod_loads():
    inv = load_inputs([str(FIXTURES / "SW402" / "fail.yaml")])
    g = inv.groups[0]
    assert required_startup_seconds(g) == 562  # 300 s + 2 s × 131.4 GiB of bf16 weights
    g.model = None
    assert required_startup_seconds(g) == 300


# --- metadata (the metadata and default level of every rule: test_registry.py) ----------------------


def test_sw305_is_a_mandatory_policy_whose_single_node_hits_stay_advisory():
    from shardwise.rules.checks.registry import rule_by_code

    meta = rule_by_code("SW305").meta
    assert (meta.enforcement, meta.highest_enforcement, meta.enforcement_text) == (
        "advisory", "mandatory", "advisory (mandatory for multi-node groups)")


def test_a_configured_level_wins_over_escalation():
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.checks.registry import rule_by_code
    from shardwise.rules.engine import LintConfig, run_rules

    inv = load_inputs([str(FIXTURES / "SW305" / "fail.yaml")])
    levels = [f.level for f in run_rules([rule_by_code("SW305")], inv)]
    assert levels == ["advisory", "mandatory", "advisory"]
    cfg = LintConfig(enforcement={"SW305": "advisory"})
    assert [f.level for f in run_rules([rule_by_code("SW305")], inv, cfg)] == ["advisory", "advisory", "advisory"]


def test_namespaces_whose_default_deny_lives_elsewhere_are_listed_in_the_config():
    cfg = LintConfig(default_deny_namespaces=("serving", "cilium-*"))
    got = [(f.subject, f.level) for f in findings("SW305", "fail.yaml", cfg)]
    assert got == [("Namespace llm", "mandatory")]


def _samples_folder(tmp_path: pathlib.Path) -> pathlib.Path:
    """Eight sample files in one folder, as repositories of examples have them: each a Deployment with the
    same pod labels and a Service written under the same name, plus one Service of its own."""
    for i in range(8):
        (tmp_path / f"sample-{i}.yaml").write_text(
            "apiVersion: apps/v1\n"
            "kind: Deployment\n"
            f"metadata: {{name: gemma-{i}}}\n"
            "spec:\n"
            "  selector: {matchLabels: {app: gemma-server}}\n"
            "  template:\n"
            "    metadata: {labels: {app: gemma-server}}\n"
            "    spec:\n"
            "      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n"
            "      containers:\n"
            "        - name: vllm\n"
            "          image: vllm/vllm-openai:v0.10.0\n"
            "          args: [--model, google/gemma-2-2b-it, --max-model-len, '4096']\n"
            "          resources: {limits: {nvidia.com/gpu: 1}}\n"
            "---\n"
            "apiVersion: v1\n"
            "kind: Service\n"
            "metadata: {name: llm-service}\n"
            "spec: {selector: {app: gemma-server}, ports: [{port: 8000}]}\n"
            "---\n"
            "apiVersion: v1\n"
            "kind: Service\n"
            f"metadata: {{name: extra-{i}}}\n"
            "spec: {selector: {app: gemma-server}, ports: [{port: 8000}]}\n",
            encoding="utf-8")
    return tmp_path


def test_lists_in_messages_name_each_once_and_count_the_rest(tmp_path):
    inv = load_inputs([str(_samples_folder(tmp_path))], jobs=1)
    found = run_rules([rule_by_code("SW407"), rule_by_code("SW305")], inv)
    sw407 = [f for f in found if f.code == "SW407"]
    assert len(sw407) == 8
    assert sw407[0].message == (
        "Service `default/llm-service`, `default/extra-0`, `default/extra-1`, `default/extra-2`, "
        "`default/extra-3`, `default/extra-4` and 3 more sends traffic to container `vllm` while its model loads: "
        "it has no readiness probe and no startup probe on its API port")
    [sw305] = [f for f in found if f.code == "SW305"]
    assert sw305.message == (
        "namespace `default` (Deployment default/gemma-0, Deployment default/gemma-1 and 6 more) has no "
        "default-deny ingress policy (no network policy at all); every pod in the cluster can reach vLLM without "
        "the gateway")


def test_listed_keeps_the_first_of_each_name_in_order():
    from shardwise.rules.checks._words import listed

    assert listed([]) == ""
    assert listed(["a", "b", "a", "c"]) == "a, b, c"
    assert listed(["x"] * 40) == "x"
    assert listed([f"n{i}" for i in range(8)], shown=3) == "n0, n1, n2 and 5 more"
    assert listed([f"n{i}" for i in range(6)]) == "n0, n1, n2, n3, n4, n5"


def test_an_object_rule_decides_and_contains_a_crash_per_object():
    from shardwise.rules.engine import ObjectRule, hit
    from shardwise.rules.model import Inventory, Location, NodePool, Suppression, Undecidable

    class OnePoolAtATime(ObjectRule[NodePool]):
        meta = rule_by_code("SW303").meta

        def objects(self, inv):
            return inv.pools

        def check_object(self, pool, inv, config):
            if pool.name == "crashes":
                raise KeyError("boom")
            if pool.name == "unknown":
                raise Undecidable(f"the subnet list of node pool `{pool.name}`")
            yield hit(pool, f"checked {pool.name}")

    reason = Suppression("SW303", "reviewed", Location())
    pools = [NodePool("crashes", Location("a.yaml", 1)), NodePool("unknown", Location("a.yaml", 2), suppressions=[reason]),
             NodePool("fine", Location("a.yaml", 3))]
    got = [(f.subject, f.location.line, f.level, f.internal, f.undecided, f.suppressed, f.message)
           for f in run_rules([OnePoolAtATime()], Inventory(pools=pools))]
    assert got == [
        ("NodePool crashes", 1, "mandatory", True, False, False,
         "internal error in rule gpu-nodes-in-public-subnet: KeyError: 'boom'"),
        ("NodePool unknown", 2, "mandatory", False, True, True,
         "cannot decide: the subnet list of node pool `unknown` is not known (a computed value or an "
         "unresolved reference): write it literally in the inputs (not a reference to a ConfigMap or Secret, nor a "
         "computed output)"),
        ("NodePool fine", 3, "mandatory", False, False, False, "checked fine"),
    ]


@pytest.mark.parametrize("name, value", [
    ("HF_TOKEN", "insert-your-huggingface-token-here"), ("HF_TOKEN", "<token>"), ("VLLM_API_KEY", "changeme"),
    ("OPENAI_API_KEY", "xxx"), ("HF_TOKEN", "${HF_TOKEN}"), ("HF_TOKEN", "{{ .Values.hfToken }}"),
    ("HF_TOKEN", "your-token"), ("HF_TOKEN", "YOUR_HF_TOKEN"), ("HF_TOKEN", "hf_" + "x" * 34),
    ("VLLM_API_KEY", "token-abc123"), ("OPENAI_API_KEY", "EMPTY"), ("OPENAI_API_KEY", "not-needed"),
    ("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE"), ("HF_TOKEN", "hf-token"), ("VLLM_API_KEY", "REPLACE_ME"),
    ("HF_TOKEN", "__HF_TOKEN__"), ("HF_TOKEN", "#{HfToken}#"), ("HF_TOKEN", "put your token here"),
    ("HF_TOKEN", "HF_TOKEN"), ("MAX_TOKENS", "4096"), ("VLLM_API_KEY", "changeme123"),
    # corpus19: a NIM Secret's fill-in (MohammadB88/rag-anythingllm, models/nvidia_nim/*_all_resources.yaml)
    ("NGC_API_KEY", "API_KEY_GENERATED_FROM_NGC"), ("HF_TOKEN", "token-from-hf-settings"), ("NGC_API_KEY", "PASTE_NGC_KEY"),
])
def test_sw308_placeholders_are_no_credential(name, value):
    from shardwise.rules.checks.sw308 import judge

    assert judge(name, value) is None


@pytest.mark.parametrize("name, value, found", [
    ("ANY", "hf_Q7wErTy9UiOpAsDf3GhJkLzX5cVbNmQwE2", ("a Hugging Face token", "mandatory")),
    ("ANY", "AKIA4V7QZ2XK9TBM3N5P", ("an AWS access key id", "mandatory")),
    ("VLLM_API_KEY", "serving-key-2026-prod-41f9", ("a VLLM_API_KEY credential", "mandatory")),
    ("HF_TOKEN", "my-own-mirror-k3y-2026", ("a literal value not shaped like a Hugging Face token", "advisory")),
    ("REGISTRY_PASSWORD", "Tr0ub4dor-and-3", ("what looks like a credential", "advisory")),
    # words a person chose, not words that say where a key comes from: still a literal credential
    ("VLLM_API_KEY", "key-for-team-alpha", ("a VLLM_API_KEY credential", "mandatory")),
    ("NGC_API_KEY", "nvapi-4fQ9zL2xV7bN1mK8pR3tY6wE0sA5dG2hJ9kC", ("a NGC_API_KEY credential", "mandatory")),
])
def test_sw308_the_value_shape_decides(name, value, found):
    from shardwise.rules.checks.sw308 import judge

    assert judge(name, value) == found


def test_sw308_judges_each_name_and_value_once_with_a_bounded_memo(monkeypatch):
    """SW308 judges a container's variables through a memo (issue 30: the same variables repeat file after file):
    the same answers as judge, each (name, text value) kept once, the memo emptied when full; a value that is not
    text (UNKNOWN) is judged every time and never kept."""
    from shardwise.rules.checks import sw308
    from shardwise.rules.model import UNKNOWN

    monkeypatch.setattr(sw308, "_JUDGED", {})
    monkeypatch.setattr(sw308, "_JUDGED_MAX", 2)
    token = "hf_Q7wErTy9UiOpAsDf3GhJkLzX5cVbNmQwE2"
    assert sw308.judged("ANY", token) == ("a Hugging Face token", "mandatory")
    assert sw308.judged("HF_TOKEN", "<token>") is None
    assert sw308._JUDGED == {("ANY", token): ("a Hugging Face token", "mandatory"), ("HF_TOKEN", "<token>"): None}
    assert sw308.judged("HF_TOKEN", "<token>") is None and len(sw308._JUDGED) == 2  # found, not judged again
    assert sw308.judged("VLLM_API_KEY", "serving-key-2026-prod-41f9") == ("a VLLM_API_KEY credential", "mandatory")
    assert list(sw308._JUDGED) == [("VLLM_API_KEY", "serving-key-2026-prod-41f9")]  # full: started again
    assert sw308.judged("HF_TOKEN", UNKNOWN) is None and len(sw308._JUDGED) == 1


def test_sw402_startup_band_from_the_model_size():
    """The start-up band (rules/capacity/cache.py): engine start-up 30-120 s with torch.compile, weights read at
    4 to 0.5 GiB/s, the checkpoint downloaded at 1 GiB/s to 100 MiB/s when the pod downloads at every start."""
    from shardwise.rules.capacity.cache import startup_estimate

    tiny = startup_estimate(2.049, 1, "every start", "compile")
    assert (tiny.low_seconds, tiny.high_seconds) == (32, 146)
    big = startup_estimate(131.42, 1, "every start", "compile")
    assert (big.low_seconds, big.high_seconds) == (194, 1729)
    cached = startup_estimate(131.42, 1, "cached", "compile")
    assert (cached.low_seconds, cached.high_seconds) == (62, 383)
    assert startup_estimate(131.42, 1, "possible", "eager").high_seconds == 60 + 263 + 1346
    unknown = startup_estimate(None, 1, "every start", "graphs")
    assert (unknown.low_seconds, unknown.high_seconds, unknown.terms()) == (
        20, 90, "weights of a size not known; CUDA graphs")


def test_sw305_is_anchored_at_the_multi_node_group_that_needs_the_policy(tmp_path):
    # kserve docs/samples/llmisvc: a single-GPU sample sorts first in namespace default, the multi-node group
    # that makes the finding blocking is in another file; the finding points at that one
    (tmp_path / "a-single-gpu.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: small}\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.10.1\n"
        "          args: [--model, Qwen/Qwen2.5-7B-Instruct]\n          resources: {limits: {nvidia.com/gpu: 1}}\n")
    (tmp_path / "b-multi-node.yaml").write_text(
        "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: big}\nspec:\n"
        "  leaderWorkerTemplate:\n    size: 2\n    workerTemplate:\n      spec:\n        containers:\n"
        "          - name: vllm\n            image: vllm/vllm-openai:v0.10.1\n"
        "            command: [vllm, serve, meta-llama/Llama-3.1-405B-Instruct, --tensor-parallel-size, '8',"
        " --pipeline-parallel-size, '2']\n            resources: {limits: {nvidia.com/gpu: 8}}\n")
    # the input holds the cluster's policies (a default-deny for another namespace): the gap in default is sure
    (tmp_path / "c-policies.yaml").write_text(
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny, namespace: monitoring}\n"
        "spec: {podSelector: {}, policyTypes: [Ingress]}\n")
    inv = load_inputs([str(tmp_path / n) for n in ("a-single-gpu.yaml", "b-multi-node.yaml", "c-policies.yaml")])
    [f] = [f for f in run_rules(ALL_RULES, inv) if f.code == "SW305"]
    assert (f.level, f.subject, pathlib.Path(f.location.file).name, f.location.line) == (
        "mandatory", "Namespace default", "b-multi-node.yaml", 1)
    # without any policy in the input the cluster's may live elsewhere: advisory, at the same place
    inv = load_inputs([str(tmp_path / "a-single-gpu.yaml"), str(tmp_path / "b-multi-node.yaml")])
    [f] = [f for f in run_rules(ALL_RULES, inv) if f.code == "SW305"]
    assert (f.level, f.subject, pathlib.Path(f.location.file).name, f.location.line) == (
        "advisory", "Namespace default", "b-multi-node.yaml", 1)


_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
  namespace: serving
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: llama}}
  template:
    metadata:
      labels: {{app: llama}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "meta-llama/Llama-3.1-8B-Instruct"]
          resources:
            limits: {{nvidia.com/gpu: 1}}
"""


def test_a_workload_met_in_two_files_is_named_once_in_a_message(tmp_path):
    # the same Deployment in a base and a copied overlay (two files, one name): the Service and the
    # ingress that reach it name it once, not once per file
    for folder in ("base", "prod"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "deployment.yaml").write_text(_DEPLOYMENT.format(replicas=2), encoding="utf-8")
    (tmp_path / "base" / "service.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: llama\n  namespace: serving\n"
        "  annotations: {service.beta.kubernetes.io/aws-load-balancer-scheme: internet-facing}\n"
        "spec:\n  type: LoadBalancer\n  selector: {app: llama}\n  ports: [{port: 80, targetPort: 8000}]\n",
        encoding="utf-8")
    (tmp_path / "base" / "ingress.yaml").write_text(
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: llama\n  namespace: serving\n"
        "  annotations: {alb.ingress.kubernetes.io/target-type: ip}\n"
        "spec:\n  ingressClassName: alb\n  rules:\n    - http:\n        paths:\n          - path: /\n"
        "            pathType: Prefix\n            backend: {service: {name: llama, port: {number: 80}}}\n",
        encoding="utf-8")
    inv = load_inputs([str(tmp_path)], jobs=1)
    found = run_rules([rule_by_code("SW306"), rule_by_code("SW406")], inv)
    service, ingress = sorted((f for f in found if f.code == "SW306"), key=lambda f: f.subject, reverse=True)
    assert service.message == (
        "Service `serving/llama` of type LoadBalancer exposes Deployment serving/llama directly on port 80, "
        "with no gateway that authenticates clients; make it `type: ClusterIP` and publish vLLM only through a "
        "gateway or Ingress that does")
    assert (ingress.subject, ingress.level) == ("Ingress serving/llama", "advisory")
    assert ingress.message == (
        "Ingress `serving/llama` routes to Deployment serving/llama (Service `llama`) on an ALB, and vLLM checks no "
        "API key there (no --api-key, no VLLM_API_KEY): whoever reaches it can call every route (advisory: without "
        "`alb.ingress.kubernetes.io/scheme` the controller makes it internal unless the IngressClass's "
        "IngressClassParams set a scheme, which the inputs do not show)")
    [sw406] = [f for f in found if f.code == "SW406"]
    assert sw406.message == "balances Deployment serving/llama with round_robin, which ignores each replica's load"


_SW312_GROUPS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: %(name)s, namespace: serving}
spec:
  selector: {matchLabels: {app: %(name)s}}
  template:
    metadata: {labels: {app: %(name)s}}
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192", --enable-lora]
          env:
            - {name: VLLM_ALLOW_RUNTIME_LORA_UPDATING, value: "True"}
          resources:
            limits: {nvidia.com/gpu: 1}
---
apiVersion: v1
kind: Service
metadata: {name: %(name)s, namespace: serving}
spec:
  selector: {app: %(name)s}
  ports: [{port: 8000, targetPort: 8000}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: %(name)s, namespace: serving}
spec:
  rules:
    - http:
        paths:
          - path: /
            pathType: Prefix
            backend: {service: {name: %(name)s, port: {number: 8000}}}
"""


@pytest.mark.parametrize("order", [("other", "lora"), ("lora", "other")])
def test_sw312_answer_for_a_group_ignores_another_groups_unknown_labels(tmp_path, order):
    # Two LoRA servers, each behind its own Ingress; the pods' labels of `other` are not known yet (as at a Pulumi
    # preview). Whether an Ingress routes to `lora` must not depend on `other` nor on the input order (on main, an
    # Ingress met after `other`'s unknown was counted as not in front of `lora`, a finding that came and went).
    path = tmp_path / "two.yaml"
    path.write_text("---\n".join(_SW312_GROUPS % {"name": n} for n in order))
    inv = load_inputs([str(path)])
    for g in inv.groups:
        if g.name == "other":
            g.pod_labels = UNKNOWN
    got = sorted((f.subject, f.level, f.undecided, f.message) for f in run_rules(ALL_RULES, inv, None)
                 if f.code == "SW312")
    assert got == [(
        "Deployment serving/other", "advisory", True,
        "cannot decide: the label set of the pods of Deployment `other` is not known (a computed value or an "
        "unresolved reference) (whether an Ingress routes to it); container `vllm` sets "
        "VLLM_ALLOW_RUNTIME_LORA_UPDATING=True with no API key: write it literally in the inputs (not a reference to "
        "a ConfigMap or Secret, nor a computed output)",
    )]


_TWO_BEHIND_ONE_INGRESS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: %(name)s, namespace: serving}
spec:
  replicas: 2
  selector: {matchLabels: {app: %(name)s}}
  template:
    metadata: {labels: {app: %(name)s}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "meta-llama/Llama-3.1-8B-Instruct"]
          resources:
            limits: {nvidia.com/gpu: 1}
---
apiVersion: v1
kind: Service
metadata: {name: %(name)s, namespace: serving}
spec:
  selector: {app: %(name)s}
  ports: [{port: 80, targetPort: 8000}]
"""

_ONE_INGRESS = """\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: chat
  namespace: serving
  annotations: {alb.ingress.kubernetes.io/scheme: internet-facing, alb.ingress.kubernetes.io/target-type: ip}
spec:
  ingressClassName: alb
  rules:
    - http:
        paths:
          - {path: /a, pathType: Prefix, backend: {service: {name: a, port: {number: 80}}}}
          - {path: /b, pathType: Prefix, backend: {service: {name: b, port: {number: 80}}}}
"""


@pytest.mark.parametrize("order", [("other", "a"), ("a", "other")])
def test_sw306_sw406_judge_each_group_behind_an_ingress_on_its_own(tmp_path, order):
    # One Ingress in front of `a` (known labels, two replicas, no API key) and `other` (its pods' labels not known
    # yet, as at a Pulumi preview). On main, `_net.groups_behind` raised at `other` and the whole Ingress was
    # "cannot decide" for SW306 and SW406, hiding the sure finding on `a`; now `a` gets it, `other` its own "cannot
    # decide", in either input order.
    path = tmp_path / "two.yaml"
    path.write_text("---\n".join([*(_TWO_BEHIND_ONE_INGRESS % {"name": n} for n in order),
                                  _ONE_INGRESS.replace("name: b,", "name: other,")]))
    inv = load_inputs([str(path)])
    for g in inv.groups:
        if g.name == "other":
            g.pod_labels = UNKNOWN
    got = sorted((f.code, f.level, f.undecided, f.message) for f in run_rules(ALL_RULES, inv, None)
                 if f.code in ("SW306", "SW406") and f.subject == "Ingress serving/chat")
    unknown = ("cannot decide: the label set of the pods of Deployment `other` is not known (a computed value or an "
               "unresolved reference): write it literally in the inputs (not a reference to a ConfigMap or Secret, nor a "
               "computed output)")
    assert got == [
        ("SW306", "mandatory", False,
         "Ingress `serving/chat` routes to Deployment serving/a (Service `a`) on an internet-facing ALB "
         "(`alb.ingress.kubernetes.io/scheme: internet-facing`), and vLLM checks no API key there (no --api-key, no VLLM_API_KEY): whoever reaches it can call every route; "
         "set VLLM_API_KEY in the vLLM container from a Secret (valueFrom.secretKeyRef), or authenticate the clients "
         "at the gateway or the load balancer"),
        ("SW306", "mandatory", True, unknown),
        ("SW406", "advisory", False,
         "balances Deployment serving/a with round_robin, which ignores each replica's load"),
        ("SW406", "advisory", True, unknown),
    ]


_RAY_ROUTE = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: ray-head, namespace: ray}
spec:
  selector: {matchLabels: {app: ray-head}}
  template:
    metadata: {labels: {app: ray-head}}
    spec:
      containers:
        - name: ray-head
          image: rayproject/ray:2.40.0
          command: ["ray", "start", "--head", "--dashboard-host=0.0.0.0", "--block"]
          ports: [{containerPort: 8265, name: dashboard}]
---
apiVersion: v1
kind: Service
metadata: {name: ray-head, namespace: ray}
spec:
  selector: {app: ray-head}
  ports: [{name: dashboard, port: 8265, targetPort: 8265}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: dash, namespace: llm-d}
spec:
  rules: [{backendRefs: [{name: ray-head, namespace: ray, port: 8265}]}]
"""
_RAY_GRANT = """
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: from-llm-d, namespace: ray}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: llm-d}]
  to: [{group: "", kind: Service}]
"""


def test_sw301_judges_a_backendref_of_another_namespace_by_its_grant():
    """An HTTPRoute in llm-d onto Ray's dashboard in ray: with the ReferenceGrant of ray in the inputs the route
    reaches it (mandatory); without one, whether it does is for a grant outside the inputs, which blocks nothing
    (mend16); a grant of ray for another namespace's routes: the Gateway does not send there."""
    from shardwise.rules.adapters.k8s import load_kubernetes_text

    def sw301(text: str) -> list[tuple[str, bool, str]]:
        inv = load_kubernetes_text(text, "t.yaml")
        return [(f.level, f.undecided, f.message) for f in run_rules([rule_by_code("SW301")], inv)]

    [(level, undecided, message)] = sw301(_RAY_ROUTE + _RAY_GRANT)
    assert (level, undecided, message[:73]) == ("mandatory", False, "HTTPRoute `llm-d/dash` routes outside traffic "
                                                                    "to port 8265 (Ray dashboard")
    assert sw301(_RAY_ROUTE) == []
    assert sw301(_RAY_ROUTE + _RAY_GRANT.replace("namespace: llm-d", "namespace: team-a")) == []


def test_sw312_names_the_one_mesh_route_that_fronts_a_server_and_why_it_is_no_gateway(tmp_path):
    """SW312/gamma-route.yaml names two mesh routes of vllm-lora; with one of them only, the finding names it alone
    (mend29: "no Ingress or HTTPRoute in front" read as if no route named the server)."""
    text = (FIXTURES / "SW312" / "gamma-route.yaml").read_text()
    path = tmp_path / "gamma.yaml"
    path.write_text(text[:text.index("---\n# Linkerd's spelling")])
    inv = load_inputs([str(path)])
    got = [f.message for f in run_rules(ALL_RULES, inv, None) if f.code == "SW312"]
    assert got == ["container `lora` sets VLLM_ALLOW_RUNTIME_LORA_UPDATING=true with no API key and no Ingress or "
                   "HTTPRoute in front (HTTPRoute `llm/lora-mesh` names it, but only as a mesh route: its parents are "
                   "Services (GAMMA), so it routes what the mesh's clients send to them and is no gateway that could "
                   "authenticate those clients), so anyone who reaches its port can load LoRA adapters at run time"]

"""rules/adapters/stack.py: Pulumi stack files -> the domain model, and the example stacks pass."""

from __future__ import annotations

import pathlib
import textwrap

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import load_inputs
from shardwise.rules.adapters.stack import (
    is_stack_file,
    load_stack_file,
    load_stack_spec,
    sizing_summary,
)
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, run_rules
from shardwise.rules.model.errors import InputError

STACKS = ROOT / "stacks"
REGISTERED = {r.meta.code for r in ALL_RULES}


def stack(env: str) -> str:
    return str(STACKS / f"Pulumi.{env}.yaml")


def line_of(path: str, text: str, occurrence: int = 1) -> int:
    seen = 0
    for i, line in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        if text in line:
            seen += 1
            if seen == occurrence:
                return i
    raise AssertionError(f"{text!r} not in {path}")


# --- the example stacks ----------------------------------------------------------------------

#: Every finding each stack is allowed to produce: (code, subject, suppressed). Nothing mandatory.
EXPECTED = {
    "dev": set(),
    "staging": set(),
    "prod": {
        ("SW106", "Deployment serving/llama-70b", True),
        ("SW404", "LeaderWorkerSet serving/llama-405b", True),
    },
}


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_example_stacks_have_no_mandatory_finding(env):
    findings = run_rules(ALL_RULES, load_stack_file(stack(env)), LintConfig())
    assert [f for f in findings if f.blocking] == []
    got = {(f.code, f.subject, f.suppressed) for f in findings}
    assert got == {e for e in EXPECTED[env] if e[0] in REGISTERED}


def test_prod_inventory():
    path = stack("prod")
    inv = load_stack_file(path)
    assert {g.name: g.production for g in inv.groups} == {"llama-70b": True, "llama-405b": True}  # its own, not the run's
    assert inv.sources == [path]
    groups = {g.name: g for g in inv.groups}
    g70, g405 = groups["llama-70b"], groups["llama-405b"]
    assert (g70.kind, g70.location.line, g70.pool.name, g70.gpus_per_pod, g70.replicas) == (
        "Deployment", line_of(path, "- name: llama-70b"), "h100", 4, 4)
    assert g70.p95_context == 6144
    assert [(s.code, s.location.line) for s in g70.suppressions] == [("SW106", g70.location.line)]
    assert (g405.kind, g405.pool.name, g405.pods_per_group, g405.gpus_per_pod) == ("LeaderWorkerSet", "h100-efa", 2, 8)
    # exclusive topology is opt-in (a default the pool's nodes may not carry would leave the group Pending)
    assert (g405.restart_policy, g405.exclusive_topology) == ("RecreateGroupOnPodRestart", None)
    assert g405.location.line == line_of(path, "- name: llama-405b")

    pools = {p.name: p for p in inv.pools}
    h100, efa = pools["h100"], pools["h100-efa"]
    for p in (h100, efa):
        assert (p.kind, p.gpus_per_node, p.interconnect, p.nvlink_domain_size, p.gpu.name) == (
            "stack", 8, "nvswitch", 8, "H100-SXM-80GB")
        assert p.security_groups == ["prod-gpu-nodes"]
        assert [(t.key, t.value, t.effect) for t in p.taints] == [("nvidia.com/gpu", "true", "NoSchedule")]
    assert (h100.efa, h100.placement_group, len(h100.subnets)) == (False, None, 3)
    assert (efa.efa, efa.placement_group, efa.subnets) == (True, "h100-efa-placement", ["prod-private-us-east-1a"])
    assert efa.location.line == line_of(path, "- name: h100-efa")

    (sg, endpoints) = inv.security_groups
    assert [(r.direction, r.protocol, r.self_ref, r.cidrs, r.from_port, r.to_port) for r in sg.rules] == [
        ("ingress", "-1", True, [], 0, 0), ("egress", "-1", True, [], 0, 0),
        ("egress", "tcp", False, ["0.0.0.0/0"], 443, 443)]
    assert [(r.direction, r.cidrs, r.from_port) for r in endpoints.rules] == [("ingress", ["10.42.0.0/16"], 443)]
    assert [(s.name, s.map_public_ip_on_launch) for s in inv.subnets] == [
        ("prod-private-us-east-1a", False), ("prod-private-us-east-1b", False),
        ("prod-private-us-east-1c", False), ("prod-lb-us-east-1a", False), ("prod-lb-us-east-1b", False),
        ("prod-lb-us-east-1c", False), ("prod-nat-us-east-1a", False)]
    assert [(lt.name, lt.http_tokens, lt.http_put_response_hop_limit) for lt in inv.launch_templates] == [
        ("h100-launch-template", "required", 1), ("h100-efa-launch-template", "required", 1)]
    assert [(i.name, i.services) for i in inv.ingresses] == [("llm", ["llama-70b", "llama-405b"])]
    assert [(a.kind, a.name, a.metrics, a.min_replicas, a.scale_down_window_seconds) for a in inv.autoscalers] == [
        ("ScaledObject", "llama-70b", ["vllm:num_requests_waiting"], 4, 600)]
    assert sorted(p.name for p in inv.network_policies) == sorted([
        "default-deny", "allow-dns", "allow-https-egress", "llama-70b-intra-group", "llama-70b-api",
        "llama-405b-intra-group", "llama-405b-api"])


def test_dev_karpenter_pool_gets_the_network():
    path = stack("dev")
    inv = load_stack_file(path)
    (pool,) = inv.pools
    assert (pool.name, pool.kind, pool.capacity_type, pool.launch_template) == ("l40s", "karpenter", "spot", "l40s")
    assert (pool.gpus_per_node, pool.interconnect, pool.efa, pool.gpu.name) == (1, "pcie", False, "L40S")
    assert pool.security_groups == ["dev-gpu-nodes"]
    assert pool.subnets == ["subnet-0d1e2f3a4b5c60001", "subnet-0d1e2f3a4b5c60002"]  # the existing VPC's
    assert inv.subnets == []  # existing subnets: what they map at launch is for the policy pack (SW303)
    assert pool.location.line == line_of(path, "- name: l40s")
    (lt,) = inv.launch_templates  # the EC2NodeClass
    assert (lt.name, lt.http_tokens, lt.http_put_response_hop_limit, lt.location.line) == (
        "l40s", "required", 1, pool.location.line)
    (g,) = inv.groups
    assert g.pool is pool


def test_sizing_summary():
    spec, _ = load_stack_spec(stack("prod"))
    s = sizing_summary(spec)
    assert list(s) == ["llama-70b", "llama-405b"]
    assert {k: s["llama-70b"][k] for k in ("gpus", "weights_gib_per_gpu", "kv_cache_tokens", "max_concurrency",
                                           "concurrency_at_expected_context", "starts")} == {
        "gpus": 4, "weights_gib_per_gpu": 32.885, "kv_cache_tokens": 487328, "max_concurrency": 14.872,
        "concurrency_at_expected_context": 79, "starts": True}
    assert {k: s["llama-405b"][k] for k in ("gpus", "weights_gib_per_gpu", "kv_cache_tokens", "max_concurrency")} == {
        "gpus": 16, "weights_gib_per_gpu": 47.279, "kv_cache_tokens": 799568, "max_concurrency": 24.401}
    dev, _ = load_stack_spec(stack("dev"))
    assert sizing_summary(dev)["llama-8b"]["kv_cache_tokens"] == 201184
    staging, _ = load_stack_spec(stack("staging"))
    assert sizing_summary(staging)["llama-70b-awq"]["weight_precision"] == "int4"
    # the startup budget from the weights and the cache's throughput (never below SW402's floor)
    assert {k: (v["startup_budget_seconds"], v["cache_throughput_mib_s"]) for k, v in s.items()} == {
        "llama-70b": (562, 2000.0), "llama-405b": (1055, 2000.0)}
    assert sizing_summary(staging)["llama-70b-awq"]["startup_budget_seconds"] == 374


def test_the_input_dispatcher_reads_the_stacks_directory():
    inv = load_inputs([str(STACKS)])
    assert sorted((g.name, g.production) for g in inv.groups) == [
        ("llama-405b", True), ("llama-70b", True), ("llama-70b-awq", False), ("llama-8b", False)]
    assert all(g.pool is not None for g in inv.groups)
    # linted together, each stack keeps its own production flag: dev and staging are not production
    findings = run_rules(ALL_RULES, inv, LintConfig())
    assert {(f.code, f.subject, f.suppressed) for f in findings} == {
        e for env in EXPECTED.values() for e in env if e[0] in REGISTERED}


# --- errors point at the offending line --------------------------------------------------------

GOOD = """\
config:
  aws:region: us-east-1
  myproject:environment:
    name: test
    cluster_name: c
    node_role_arn: arn:aws:iam::123456789012:role/gpu
    pools:
      - name: h100
        instance_type: p5.48xlarge
    services:
      - name: llama
        pool: h100
        engine:
          model: meta-llama/Llama-3.1-8B-Instruct
          max_model_len: 8192
"""


def write(tmp_path, text: str) -> str:
    p = tmp_path / "Pulumi.test.yaml"
    p.write_text(textwrap.dedent(text))
    return str(p)


def test_any_project_prefix_is_accepted(tmp_path):
    inv = load_stack_file(write(tmp_path, GOOD))
    assert [g.name for g in inv.groups] == ["llama"]
    assert inv.groups[0].location.line == 11


def test_a_bad_value_names_its_line(tmp_path):
    bad = GOOD.replace("max_model_len: 8192", "max_model_len: 8192\n          tensor_parallel_size: 0")
    path = write(tmp_path, bad)
    with pytest.raises(InputError) as e:
        load_stack_file(path)
    assert (e.value.file, e.value.line) == (path, 16)
    assert e.value.message == "services[0].engine.tensor_parallel_size: Input should be greater than or equal to 1"


def test_an_unknown_key_names_its_line(tmp_path):
    path = write(tmp_path, GOOD.replace("        pool: h100\n", "        pool: h100\n        replica: 2\n"))
    with pytest.raises(InputError) as e:
        load_stack_file(path)
    assert e.value.line == 13
    assert e.value.message == "services[0].replica: Extra inputs are not permitted"


def test_a_cross_reference_error_names_the_referring_key(tmp_path):
    path = write(tmp_path, GOOD.replace("        pool: h100\n", "        pool: a100\n"))
    with pytest.raises(InputError) as e:
        load_stack_file(path)
    assert e.value.line == 12
    assert e.value.message == "services[0].pool: service 'llama' uses pool 'a100', which is not defined"


def test_an_environment_wide_error_names_the_environment(tmp_path):
    path = write(tmp_path, GOOD.replace("    services:\n", "      - name: h100\n        instance_type: p5.4xlarge\n"
                                                          "    services:\n"))
    with pytest.raises(InputError) as e:
        load_stack_file(path)
    assert e.value.line == 4
    assert e.value.message == "environment: pool names must be unique"


def test_an_unknown_instance_type_names_its_line(tmp_path):
    path = write(tmp_path, GOOD.replace("p5.48xlarge", "p5.48xlarg"))
    with pytest.raises(InputError) as e:
        load_stack_file(path)
    assert e.value.line == 9
    assert e.value.message.startswith("pools[0].instance_type: unknown instance type 'p5.48xlarg'")


def test_not_a_stack_file(tmp_path):
    path = write(tmp_path, "config:\n  aws:region: us-east-1\n")
    with pytest.raises(InputError, match="not a Pulumi stack file"):
        load_stack_file(path)


def test_environment_as_a_json_string(tmp_path):
    import json

    import yaml

    value = yaml.safe_load(GOOD)["config"]["myproject:environment"]
    path = write(tmp_path, "config:\n  shardwise:environment: " + json.dumps(json.dumps(value)) + "\n")
    assert [g.name for g in load_stack_file(path).groups] == ["llama"]


@pytest.mark.parametrize("data,expected", [
    ({"config": {"shardwise:environment": {}}}, True),
    ({"config": {"other:environment": {}}}, True),
    ({"config": {"aws:region": "us-east-1"}}, False),
    ({"config": {"a:b:environment": {}}}, False),
    ({"apiVersion": "v1", "kind": "Service"}, False),
    ([], False),
])
def test_is_stack_file(data, expected):
    assert is_stack_file(data) is expected


# --- the declared load -------------------------------------------------------------------------


def test_a_stack_declares_its_load_with_target_concurrency(tmp_path):
    """target_concurrency is the load of the whole service (its replicas together): rendered as the annotation the
    Kubernetes adapter reads, so lint, the pack and the components size the same load."""
    load = "        replicas: 2\n        target_concurrency: 300\n        p95_context_tokens: 8192\n"
    inv = load_stack_file(write(tmp_path, GOOD.replace("        pool: h100\n", "        pool: h100\n" + load)))
    [g] = inv.groups
    assert (g.target_concurrency, g.replicas, g.p95_context) == (300, 2, 8192)
    assert g.annotations["shardwise.dev/target-concurrency"] == "300"
    [f] = [f for f in run_rules(ALL_RULES, inv) if f.code == "SW103"]
    assert (f.level, f.message) == ("mandatory", (
        "the declared load of 300 sequences (target_concurrency) over 2 replicas: "  # newuser11: the stack's field
        "150 per replica × 8,192 tokens (p95 context) needs 150.0 GiB of KV cache per GPU, but "
        "meta-llama/Llama-3.1-8B-Instruct at TP1×PP1 on H100-SXM-80GB (vLLM 0.11.0 from the image tag) holds about "
        "54.1 GiB (±2.9): 54 such sequences per replica; run 6 replicas to hold it, or use an fp8 KV cache "
        "(--kv-cache-dtype fp8) or a wider layout"))
    # without it there is no load to judge: vLLM's max_num_seqs (1,024 here) is a cap, not a load
    inv = load_stack_file(write(tmp_path, GOOD))
    assert [f for f in run_rules(ALL_RULES, inv) if f.code == "SW103"] == []


def test_a_stack_s_findings_name_its_fields_not_annotations(tmp_path):
    """newuser11: an 8B model at TP2 declared by a stack (or a component) was told to "declare the load (annotation
    shardwise.dev/target-concurrency)", an annotation neither can write; the stack's field is target_concurrency."""
    tp2 = "          tensor_parallel_size: 2\n"
    inv = load_stack_file(write(tmp_path, GOOD + tp2))
    [f] = [f for f in run_rules(ALL_RULES, inv) if f.code == "SW104"]
    assert (f.level, f.message) == ("mandatory", (
        "meta-llama/Llama-3.1-8B-Instruct is sharded over 2 GPUs per replica (TP2×PP1) on H100-SXM-80GB, but 2 "
        "replicas × TP1×PP1 fit the same GPUs: each starts at max_model_len 8,192 with 54.1 GiB (±2.9) of KV cache "
        "per GPU and keeps the KV reserve (15.0 GiB of weights × 1.4 = 21.0 GiB of the 71.3 GiB vLLM may use); run "
        "them instead (replicas 1 → 2, tensor_parallel_size 2 → 1), or declare the load (target_concurrency) to have "
        "it judged against the load (vLLM 0.11.0 from the image tag)"))


def test_target_concurrency_is_bounded():
    from shardwise.rules.model.spec import VllmServiceSpec

    with pytest.raises(ValueError, match="target_concurrency\n  Input should be greater than or equal to 1"):
        VllmServiceSpec(name="a", pool="p", engine={"model": "m"}, target_concurrency=0)


def test_the_components_sizing_is_what_lint_says_of_the_manifests_they_render(tmp_path):
    """``VllmService.sizing`` (:func:`workload_sizing`) and ``shardwise lint`` of the objects the components
    render (a Karpenter GpuNodePool and the VllmService) size the same serving group through the same front door.
    Before, the sizing output took the spec's unset gpu_memory_utilization as 0.9 where the Deployment leaves
    the flag out and vLLM 0.20+ uses 0.92: 195,616 KV tokens in the output, 202,880 in lint (201,104 for both since
    the 0.20 CUDA graph term follows vLLM's profile_cudagraph_memory instead of a flat 0.4 GiB; 197,104 since a cold
    torch.compile's peak, one copy of the embedding, is charged)."""
    import json

    from shardwise.rules.adapters.stack import workload_sizing
    from shardwise.rules.app.run import LintOptions, lint_report
    from shardwise.rules.model.spec import EnvironmentSpec
    from shardwise.rules.render.environment import render_environment_objects

    spec = EnvironmentSpec.model_validate({
        "name": "agree", "cluster_name": "c", "network": {"vpc_id": "vpc-0000000000000000a",
                                                          "private_subnet_ids": ["subnet-0000000000000000a"]},
        "pools": [{"name": "l40s", "instance_type": "g6e.xlarge", "provisioner": "karpenter"}],
        "services": [{"name": "llama-8b", "pool": "l40s", "image": "vllm/vllm-openai:v0.20.0",
                      "p95_context_tokens": 8192,
                      "engine": {"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 32768}}],
    })
    docs = [json.dumps(obj) for _, obj in render_environment_objects(spec)]
    path = tmp_path / "rendered.yaml"
    path.write_text("\n---\n".join(docs))
    report = lint_report([str(path)], LintOptions(jobs=1))
    (linted,) = [w for w in report.workloads if w["name"] == "llama-8b"]
    sized = workload_sizing(spec.services[0], spec.pools[0])
    assert (sized["kv_cache_tokens"], sized["max_model_len"], sized["max_num_seqs"]) == (
        linted["kv_cache_tokens"], linted["max_model_len"], linted["max_num_seqs"]) == (197_104, 32768, 256)
    assert round(sized["weights_gib_per_gpu"], 2) == linted["weights_gib_per_gpu"]
    assert round(sized["kv_cache_gib_per_gpu"], 2) == linted["kv_cache_gib_per_gpu"]


def test_lint_refuses_what_the_components_refuse_in_the_escape_hatches(tmp_path):
    """engine22: an owned flag in engine.extra_args (--cpu-offload-gb, typed since engine21) and an owned pod entry
    are refused by `shardwise lint` of the stack file with the components' own words (one list,
    render.pod.environment_escape_problems), at the first one's line."""
    from shardwise.components.validation import environment_findings

    bad = GOOD.replace("          max_model_len: 8192\n",
                       "          max_model_len: 8192\n"
                       "          extra_args: [--cpu-offload-gb, '8', --trust-remote-code]\n"
                       "        pod:\n"
                       "          env: [{name: HF_HOME, value: /x}]\n")
    path = write(tmp_path, bad)
    with pytest.raises(InputError) as e:
        load_stack_file(path)
    assert (e.value.file, e.value.line) == (path, 18)
    assert e.value.message == ("services[0].pod.env[0].name: `HF_HOME` is set by shardwise; also "
                               "services[0].engine.extra_args (line 16): --cpu-offload-gb is read by the rules: set "
                               "engine.cpu_offload_gb")
    from shardwise.rules.adapters.stack import spec_from_value
    from shardwise.rules.adapters.yamlsrc import load_all
    value = next(iter(load_all(pathlib.Path(path).read_text(), path)))["config"]["myproject:environment"]
    found, _ = environment_findings(spec_from_value(value, path))
    assert [f for f in found if "extra_args" in f[0] or "pod." in f[0]] == [
        ("services[0].pod.env[0].name", "`HF_HOME` is set by shardwise"),
        ("services[0].engine.extra_args", "--cpu-offload-gb is read by the rules: set engine.cpu_offload_gb"),
    ]


def test_a_stack_without_owned_escape_hatches_still_loads(tmp_path):
    ok = GOOD.replace("          max_model_len: 8192\n",
                      "          max_model_len: 8192\n          extra_args: [--trust-remote-code]\n")
    inv = load_stack_file(write(tmp_path, ok))
    assert [g.name for g in inv.groups] == ["llama"]

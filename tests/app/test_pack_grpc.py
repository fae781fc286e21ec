"""The CrossGuard policy pack, end to end through the analyzer protocol.

The pack runs as its own process, started exactly as the Python language host starts it, and is
driven over gRPC in the engine's order (see :mod:`grpc_harness`). It is fed what the real
``__main__.py`` registers under Pulumi's mocks for each stack in ``stacks/`` (a preview: ids and
other computed outputs unknown, references known only through property dependencies), with the
stack config in ``PULUMI_CONFIG`` as the engine passes it.

Broken variants come from a broken stack config with the components' own check turned off (what
the program would declare if it did not refuse), or from editing one recorded resource the way a
hand-written program would declare it. Each gets exactly the expected mandatory diagnostics:
(policy name, code its message starts with, resource).

The pure half of the pack (:mod:`shardwise.rules.app.crossguard`) is tested first, without the SDK.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from grpc_harness import PYTHON, ROOT, Diagnostic, PackProcess, Resource
from pulumi_mocks import Recorded, engine_config, load_stack_config, record
from shardwise.rules.adapters.pulumi import PulumiResource
from shardwise.rules.app import crossguard
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, Rule, RuleMeta
from shardwise.rules.model import Inventory

# every test here runs on each of the pack's transports (its own, then grpcio's: tests/conftest.py)
pytestmark = pytest.mark.usefixtures("pack_transport")

STACKS = ("dev", "staging", "prod")
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


# =================================================================================================
# The pure half
# =================================================================================================


def test_one_policy_per_rule_then_the_notes_and_error_policies():
    specs = crossguard.policy_specs(ALL_RULES)
    assert [s.name for s in specs[:len(ALL_RULES)]] == [r.meta.name for r in ALL_RULES]
    assert [(s.name, s.scope, s.enforcement) for s in specs[len(ALL_RULES):]] == [
        ("shardwise-resource-notes", "resource", "advisory"),
        ("shardwise-stack-notes", "stack", "advisory"),
        ("shardwise-resource-internal-error", "resource", "mandatory"),
        ("shardwise-stack-internal-error", "stack", "mandatory"),
    ]
    for rule, spec in zip(ALL_RULES, specs, strict=False):
        m = rule.meta
        assert (spec.code, spec.scope, spec.enforcement, spec.severity, spec.remediation, spec.url) == (
            m.code, m.scope, m.highest_enforcement, m.severity, m.remediation, None)
        assert spec.description == f"{m.code}: {m.summary}"
        assert spec.config_schema is crossguard.CONFIG_SCHEMA


def test_lint_config_from_policy_config_and_stack():
    ctx = crossguard.StackContext(production=True)
    cfg = crossguard.lint_config({
        "kv_reserve": 1.6, "p95_context_tokens": 4096.0, "usable_fraction": 0.85, "unknown_is_failure": False,
        "suppressions": [{"subject": "Deployment serving/*", "reason": "benchmarked"}, {"reason": " "}],
    }, "SW104", ctx)
    assert (cfg.kv_reserve, cfg.p95_context_tokens, cfg.usable_fraction, cfg.unknown_is_failure, cfg.production) == (
        1.6, 4096, 0.85, False, True)
    assert [(e.code, e.subject, e.reason) for e in cfg.suppressions] == [("SW104", "Deployment serving/*", "benchmarked")]
    assert crossguard.lint_config({"production": False}, "SW404", ctx).production is False
    assert crossguard.lint_config(None, "SW404", crossguard.StackContext()).production is None
    assert crossguard.lint_config({"default_deny_namespaces": ["serving", "team-*", 3]}, "SW305",
                                  ctx).default_deny_namespaces == ("serving", "team-*")


def test_stack_context_reads_the_environment_from_pulumi_config():
    cfg = engine_config(load_stack_config(ROOT / "stacks" / "Pulumi.prod.yaml"))
    ctx = crossguard.stack_context({"PULUMI_CONFIG": json.dumps(cfg)})
    assert ctx == crossguard.StackContext(production=True)
    dev = engine_config(load_stack_config(ROOT / "stacks" / "Pulumi.dev.yaml"))
    assert crossguard.stack_context({"PULUMI_CONFIG": json.dumps(dev)}) == crossguard.StackContext(production=False)
    assert crossguard.stack_context({}) == crossguard.StackContext()
    assert crossguard.stack_context({"PULUMI_CONFIG": "{nope"}).error == "PULUMI_CONFIG is not JSON"
    bad = crossguard.stack_context({"PULUMI_CONFIG": json.dumps({"shardwise:environment": '{"name": "x"}'})})
    assert bad.error is not None and bad.error.startswith("shardwise:environment: ")


class _Crash(Rule):
    meta = RuleMeta("SW999", "always-crashes", "advisory", "low", "Crashes.", "w", "b", "g", "Fix it.",
                    scope="stack")

    def check(self, inv, config):
        raise KeyError("boom")


def test_a_crashing_rule_is_a_mandatory_internal_error_naming_rule_and_where():
    a = crossguard.Analysis(Inventory(), "resource", "kubernetes:apps/v1:Deployment llama")
    assert a.run(_Crash(), LintConfig()) == []
    assert a.internal == [crossguard.Report(
        "shardwise-resource-internal-error",
        "SW999: internal error in rule always-crashes: KeyError: 'boom' "
        "(while checking kubernetes:apps/v1:Deployment llama)")]


def test_a_registry_rule_runs_only_where_the_collections_it_reads_hold_something(monkeypatch):
    """As ``lint`` does (``checks.index.rules_for``): a rule whose ``reads`` are all empty would yield nothing, so
    the pack does not run it; a rule the registry does not make always runs."""
    from collections import Counter

    from shardwise.rules.model import NetworkPolicy

    rule = next(r for r in ALL_RULES if r.meta.code == "SW403")  # reads the autoscalers only

    def crash(self, inv, config):
        raise KeyError("ran")

    monkeypatch.setattr(type(rule), "check", crash)
    where = "kubernetes:core/v1:Namespace serving"
    empty = crossguard.Analysis(Inventory(skipped=Counter({"Namespace": 1})), "resource", where)
    assert (empty.run(rule, LintConfig()), empty.internal) == ([], [])
    other = crossguard.Analysis(Inventory(network_policies=[NetworkPolicy.__new__(NetworkPolicy)]), "resource", where)
    assert (other.run(rule, LintConfig()), other.internal) == ([], [])

    class Subclass(type(rule)):  # type: ignore[misc]
        pass

    held = crossguard.Analysis(Inventory(autoscalers=[object()]), "resource", where)  # type: ignore[list-item]
    assert held.run(rule, LintConfig()) == []
    assert held.run(Subclass(), LintConfig()) == []
    assert [r.message.split(": ", 1)[1] for r in held.internal] == [
        "internal error in rule autoscaling-on-utilization: KeyError: 'ran' (while checking " + where + ")"] * 2
    assert (empty.run(Subclass(), LintConfig()), len(empty.internal)) == ([], 1)



def test_a_policy_is_idle_only_where_its_check_would_return_nothing_and_change_nothing(monkeypatch):
    """The pack's Analyze loop skips a registry rule's policy without configuration where :meth:`Analysis.idle`
    says so: every collection the rule reads is empty and the configuration of a policy without one is made
    (making it may fail, which ``check`` reports, so until then the policy runs)."""
    from collections import Counter

    rule = next(r for r in ALL_RULES if r.meta.code == "SW403")  # reads the autoscalers only
    reads = crossguard.rule_reads(rule)
    assert reads == ("autoscalers",)
    assert crossguard.rule_reads(type("Subclass", (type(rule),), {})()) is None  # not the registry's: always runs

    where = "kubernetes:core/v1:Namespace serving"
    context = crossguard.StackContext()
    empty = crossguard.Analysis(Inventory(skipped=Counter({"Namespace": 1})), "resource", where)
    held = crossguard.Analysis(Inventory(autoscalers=[object()]), "resource", where)  # type: ignore[list-item]
    monkeypatch.setattr(crossguard, "_UNCONFIGURED", {})
    assert not empty.idle(reads, context)  # the unconfigured configuration is not made yet: check makes it
    assert (empty.check(rule, None, context), empty.notes, empty.internal) == ([], [], [])
    assert empty.idle(reads, context)
    assert not held.idle(reads, context)


def test_a_resource_reports_nothing_only_of_a_type_not_read_alone_clean_and_once_configured(monkeypatch):
    """packspeed21: the pack's ``Analyze`` makes no analysis where :func:`crossguard.reports_nothing` says so: a type
    the inventory reader reads nothing of alone, properties that clean without error (else the analysis reports
    them) and the configuration of a policy without one made (else the first rule's check makes it)."""
    context = crossguard.StackContext()
    role = {"assumeRolePolicy": UNKNOWN, "tags": {"team": "serving"}}
    monkeypatch.setattr(crossguard, "_UNCONFIGURED", {})
    assert not crossguard.reports_nothing("aws:iam/role:Role", role, context)
    crossguard._policy_config(None, "SW101", context)
    assert crossguard.reports_nothing("aws:iam/role:Role", role, context)
    assert crossguard.reports_nothing("kubernetes:helm.sh/v3:Release", {"values": {"replicas": 1.0}}, context)
    # a Helm release of a vLLM chart is SW005's (review34): the analysis reads it
    assert not crossguard.reports_nothing("kubernetes:helm.sh/v3:Release", {"chart": "vllm-stack"}, context)
    assert not crossguard.reports_nothing("kubernetes:helm.sh/v3:Release", {"chart": "app-template", "values": {
        "controllers": {"vllm": {"containers": {"main": {"image": {"repository": "vllm/vllm-openai"}}}}}}}, context)
    assert not crossguard.reports_nothing("aws:ec2/subnet:Subnet", {}, context)
    assert not crossguard.reports_nothing("kubernetes:core/v1:Namespace", {"metadata": {"name": "a"}}, context)
    odd = {"policy": {"4dabf18193072939515e22adb298388d": "not-a-signature"}}
    assert not crossguard.reports_nothing("aws:iam/role:Role", odd, context)
    analysis = crossguard.resource_analysis(PulumiResource("aws:iam/role:Role", "r", "urn:r", odd), context)
    assert [r.message for r in analysis.internal] == [
        "shardwise: cannot read aws:iam/role:Role `r`: unrecognised Pulumi value signature 'not-a-signature'; no rule "
        "checked it"]


def test_an_unreadable_resource_is_a_mandatory_internal_error():
    bad = PulumiResource("aws:ec2/subnet:Subnet", "weird", "urn:s", {"mapPublicIpOnLaunch": "perhaps"})
    a = crossguard.stack_analysis([bad], crossguard.StackContext())
    assert a.internal == [crossguard.Report(
        "shardwise-stack-internal-error",
        "shardwise: cannot read aws:ec2/subnet:Subnet `weird`: mapPublicIpOnLaunch: expected true or false, found 'perhaps'; "
        "no rule checked it", "urn:s")]


def test_request_cache_builds_once_per_request():
    cache = crossguard.RequestCache()
    built: list[int] = []

    def build() -> crossguard.Analysis:
        built.append(1)
        return crossguard.Analysis(Inventory(), "stack", "the stack")

    first = cache.get("k", 0, build)
    assert cache.get("k", 3, build) is first and len(built) == 1  # later policies of the same request
    assert cache.get("k", 1, build) is not first and len(built) == 2  # the first policy again: a new request
    assert cache.get("other", 5, build) is not first and len(built) == 3


# =================================================================================================
# End to end
# =================================================================================================

def resources_of(recorded: list[Recorded]) -> list[Resource]:
    return [Resource(r.type, r.name, r.urn, copy.deepcopy(r.props), r.parent, tuple(r.dependencies),
                     {k: list(v) for k, v in r.property_dependencies.items()}) for r in recorded]


def stack_config(stack: str) -> dict[str, Any]:
    return load_stack_config(ROOT / "stacks" / f"Pulumi.{stack}.yaml")


def broken_config(stack: str, edit) -> dict[str, Any]:
    cfg = copy.deepcopy(stack_config(stack))
    edit(cfg["shardwise:environment"])
    return cfg


def _service(**engine):
    def edit(env):
        env["services"][0]["engine"].update(engine)
    return edit


def _canonical(env):
    """Issue 27's canonical case: Llama-3.1-8B at TP2 on H100s with no load declared (nor a p95 context). One H100
    starts it at max_model_len with the KV reserve beyond the error band: the sharding blocks."""
    svc = env["services"][0]
    svc["engine"].update(model="meta-llama/Llama-3.1-8B-Instruct", tensor_parallel_size=2)
    for key in ("target_concurrency", "p95_context_tokens"):
        svc.pop(key, None)


def _tp16(env):
    env["services"][0]["engine"].update(model="meta-llama/Llama-3.1-405B-Instruct", tensor_parallel_size=16,
                                        max_num_seqs=32)
    env["services"][0]["model_load_seconds"] = 2400


def _pcie(env):
    env["pools"][0]["instance_type"] = "g6e.12xlarge"  # 4 L40S joined by PCIe
    # an 8B model one L40S holds with the declared load: TP2 over PCIe was avoidable
    env["services"][0]["engine"].update(model="meta-llama/Llama-3.1-8B-Instruct", tensor_parallel_size=2,
                                        max_num_seqs=8)


def _load(concurrency: int):
    def edit(env):
        env["services"][0]["target_concurrency"] = concurrency
    return edit


CONFIG_VARIANTS = {
    "8b-at-tp2": ("prod", _service(model="meta-llama/Llama-3.1-8B-Instruct", tensor_parallel_size=2)),
    "8b-at-tp2-no-load": ("prod", _canonical),
    "tp16-on-8-gpu-nodes": ("prod", _tp16),
    "kv-budget-too-small": ("prod", _load(4096)),  # 1,024 sequences a replica (max_num_seqs is no load)
    "tp-on-pcie-pool": ("staging", _pcie),
}


@pytest.fixture(scope="module")
def recordings() -> dict[str, tuple[dict[str, Any], list[Recorded]]]:
    """Every stack and every broken config, recorded in parallel child processes."""
    jobs: dict[str, tuple[str, dict[str, Any], bool]] = {s: (s, stack_config(s), False) for s in STACKS}
    for name, (stack, edit) in CONFIG_VARIANTS.items():
        jobs[name] = (stack, broken_config(stack, edit), True)

    def run(item):
        name, (stack, cfg, skip) = item
        return name, (cfg, record(ROOT / "stacks" / f"Pulumi.{stack}.yaml", config=cfg, skip_validation=skip,
                                  stack=stack))

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        return dict(pool.map(run, jobs.items()))


def analyze(stack: str, config: dict[str, Any], resources: list[Resource], policy_config=None,
            env: dict[str, str] | None = None, argv: list[str] | None = None) -> list[Diagnostic]:
    with PackProcess(stack=stack, config=engine_config(config), extra_env=env, argv=argv) as pack:
        diagnostics = pack.run(resources, policy_config)
        assert [m for level, m in pack.engine.logs if level >= 3] == []  # no errors logged to the engine
        assert pack.proc.poll() is None
    return diagnostics


def short(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def mandatory(diagnostics: list[Diagnostic]) -> set[tuple[str, str | None, str]]:
    return {(d.policy, d.code, short(d.urn)) for d in diagnostics if d.level == "mandatory"}


def advisory(diagnostics: list[Diagnostic]) -> set[tuple[str, str | None, str]]:
    return {(d.policy, d.code, short(d.urn)) for d in diagnostics if d.level == "advisory"}


def find(resources: list[Resource], name: str) -> Resource:
    [r] = [r for r in resources if r.name == name]
    return r


@pytest.mark.slow
def test_methods_the_servicer_does_not_implement_and_unknown_ones_are_refused_alike(pack_transport):
    """pulumi-policy's servicer leaves ``Handshake`` and ``Cancel`` to the generated base class (``UNIMPLEMENTED``,
    "Method not implemented!"); a method of no service is "Method not found!": the same codes and details on
    either transport, and the connection goes on serving."""
    import grpc
    from google.protobuf import empty_pb2
    from pulumi.runtime.proto import analyzer_pb2

    with PackProcess(stack="dev", config=engine_config(stack_config("dev"))) as pack:
        assert pack.transport == pack_transport
        refusals = []
        for call in (lambda: pack.stub.Cancel(empty_pb2.Empty()),
                     lambda: pack.stub.Handshake(analyzer_pb2.AnalyzerHandshakeRequest(engine_address="x")),
                     lambda: pack.channel.unary_unary("/pulumirpc.Analyzer/NoSuchMethod")(b"")):
            with pytest.raises(grpc.RpcError) as e:
                call()
            refusals.append((e.value.code(), e.value.details()))
        assert refusals == [(grpc.StatusCode.UNIMPLEMENTED, "Method not implemented!")] * 2 + [
            (grpc.StatusCode.UNIMPLEMENTED, "Method not found!")]
        assert pack.plugin_info().version
        # the CLI calls Handshake and Cancel in every preview and shows what the pack writes to stderr under the
        # stack: the refusals are answers, not tracebacks (grpcio's logger prints nothing; the own transport
        # printed "Exception calling application: Method not implemented!" with a traceback before adopt17)
        pack.proc.terminate()
        pack.proc.wait(10)
        err = pack.proc.stderr.read().decode(errors="replace") if pack.proc.stderr else ""
        assert "Method not implemented" not in err and "Traceback" not in err, err


@pytest.mark.slow
def test_analyzer_info_describes_every_policy():
    from pulumi.runtime.proto import analyzer_pb2

    with PackProcess(stack="dev", config=engine_config(stack_config("dev"))) as pack:
        pack.handshake()
        pack.configure_stack()
        info = pack.info()
        assert pack.plugin_info().version
    assert (info.name, info.supportsConfig) == ("shardwise", True)
    levels = {"advisory": analyzer_pb2.ADVISORY, "mandatory": analyzer_pb2.MANDATORY}
    severities = {"low": analyzer_pb2.POLICY_SEVERITY_LOW, "medium": analyzer_pb2.POLICY_SEVERITY_MEDIUM,
                  "high": analyzer_pb2.POLICY_SEVERITY_HIGH, "critical": analyzer_pb2.POLICY_SEVERITY_CRITICAL}
    types = {"resource": analyzer_pb2.POLICY_TYPE_RESOURCE, "stack": analyzer_pb2.POLICY_TYPE_STACK}
    assert len(info.policies) == len(ALL_RULES) + 4
    for rule, p in zip(ALL_RULES, info.policies, strict=False):
        m = rule.meta
        assert (p.name, p.description, p.enforcementLevel, p.severity, p.policy_type, p.remediation_steps, p.url) == (
            m.name, f"{m.code}: {m.summary}", levels[m.highest_enforcement], severities[m.severity], types[m.scope],
            m.remediation, "")  # no docs site yet: no URL (SHARDWISE_DOCS_URL gives one)
        assert set(p.configSchema.properties) == set(crossguard.CONFIG_SCHEMA)
        assert info.initialConfig[p.name].enforcementLevel == levels[m.highest_enforcement]
    assert [p.name for p in info.policies[len(ALL_RULES):]] == [
        "shardwise-resource-notes", "shardwise-stack-notes", "shardwise-resource-internal-error",
        "shardwise-stack-internal-error"]


@pytest.mark.slow
@pytest.mark.parametrize("stack", STACKS)
def test_example_stacks_pass(recordings, stack):
    cfg, recorded = recordings[stack]
    diagnostics = analyze(stack, cfg, resources_of(recorded))
    assert mandatory(diagnostics) == set()
    expected_notes = {
        "dev": set(),
        "staging": set(),
        "prod": {("shardwise-stack-notes", "SW106", "prod-llama-70b-deployment"),
                 ("shardwise-stack-notes", "SW404", "prod-llama-405b-leaderworkerset")},
    }[stack]
    assert advisory(diagnostics) == expected_notes
    for d in diagnostics:
        assert d.message.startswith(f"{d.code} suppressed: "), d.message


EXPECTED_CONFIG_VARIANTS = {
    "8b-at-tp2": {("sharded-model-that-fits", "SW104", "prod-llama-70b-deployment")},
    "8b-at-tp2-no-load": {("sharded-model-that-fits", "SW104", "prod-llama-70b-deployment")},
    "tp16-on-8-gpu-nodes": {("tensor-parallel-larger-than-node", "SW201", "prod-llama-70b-deployment")},
    "kv-budget-too-small": {("kv-budget-below-load", "SW103", "prod-llama-70b-deployment")},
    # remedy1: one cause, one blocking finding: SW202's avoidable TP over PCIe is advisory beside SW104's
    "tp-on-pcie-pool": {("sharded-model-that-fits", "SW104", "staging-llama-70b-awq-deployment")},
}


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(CONFIG_VARIANTS))
def test_broken_stack_configs_are_blocked(recordings, variant):
    stack = CONFIG_VARIANTS[variant][0]
    cfg, recorded = recordings[variant]
    diagnostics = analyze(stack, cfg, resources_of(recorded))
    assert mandatory(diagnostics) == EXPECTED_CONFIG_VARIANTS[variant]
    for d in diagnostics:
        if d.level == "mandatory":
            assert d.description.startswith(d.code + ": ") and d.message.startswith(d.code + ": ")


def _open_ray_port(resources: list[Resource]) -> list[Resource]:
    sg = find(resources, "prod-network-gpu-nodes")
    rule_type = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
    name = "prod-network-gpu-nodes-ingress-ray-anywhere"
    return [*resources, Resource(
        rule_type, name, sg.urn.replace(sg.type, rule_type).rsplit("::", 1)[0] + "::" + name,
        {"securityGroupId": UNKNOWN, "ipProtocol": "tcp", "fromPort": 6379, "toPort": 6379,
         "cidrIpv4": "0.0.0.0/0", "description": "Ray head from anywhere"},
        sg.parent, (sg.urn,), {"securityGroupId": [sg.urn]})]


def _no_shm(resources: list[Resource]) -> list[Resource]:
    spec = find(resources, "prod-llama-70b-deployment").props["spec"]["template"]["spec"]
    spec["volumes"] = [v for v in spec["volumes"] if v["name"] != "dshm"]
    c = spec["containers"][0]
    c["volumeMounts"] = [m for m in c["volumeMounts"] if m["mountPath"] != "/dev/shm"]
    return resources


def _imds_v1(resources: list[Resource]) -> list[Resource]:
    find(resources, "prod-h100-launch-template").props["metadataOptions"]["httpTokens"] = "optional"
    return resources


def _efa_without_egress(resources: list[Resource]) -> list[Resource]:
    return [r for r in resources if r.name != "prod-network-gpu-nodes-egress-self"]


def _public_subnet(resources: list[Resource]) -> list[Resource]:
    find(resources, "prod-network-private-us-east-1a").props["mapPublicIpOnLaunch"] = True
    return resources


def _load_balancer(resources: list[Resource]) -> list[Resource]:
    # an internet-facing one: on this EKS stack a LoadBalancer without a scheme is internal where the AWS Load
    # Balancer Controller or Auto Mode provisions it (advisory), public only with the in-tree provider
    props = find(resources, "prod-llama-70b-service").props
    props["spec"]["type"] = "LoadBalancer"
    props.setdefault("metadata", {}).setdefault("annotations", {})[
        "service.beta.kubernetes.io/aws-load-balancer-scheme"] = "internet-facing"
    return resources


RESOURCE_VARIANTS = {
    "sg-open-on-6379": (_open_ray_port, {
        ("runtime-port-exposed", "SW301", "prod-network-gpu-nodes-ingress-ray-anywhere")}),
    "no-shm-with-tp4": (_no_shm, {("parallel-without-shm", "SW401", "prod-llama-70b-deployment")}),
    "imdsv1-launch-template": (_imds_v1, {("imdsv2-not-required", "SW304", "prod-h100-launch-template")}),
    "efa-sg-without-self-egress": (_efa_without_egress, {
        ("efa-without-self-referencing-security-group", "SW302", "prod-network-gpu-nodes")}),
    "gpu-nodes-in-public-subnet": (_public_subnet, {
        ("gpu-nodes-in-public-subnet", "SW303", "prod-h100-node-group"),
        ("gpu-nodes-in-public-subnet", "SW303", "prod-h100-efa-node-group"),
        ("gpu-nodes-in-public-subnet", "SW303", "prod-cluster-system")}),  # the created cluster's system nodes
    "vllm-behind-load-balancer": (_load_balancer, {
        ("vllm-exposed-without-gateway", "SW306", "prod-llama-70b-service")}),
}


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(RESOURCE_VARIANTS))
def test_broken_resources_are_blocked(recordings, variant):
    edit, expected = RESOURCE_VARIANTS[variant]
    cfg, recorded = recordings["prod"]
    diagnostics = analyze("prod", cfg, edit(resources_of(recorded)))
    assert mandatory(diagnostics) == expected


@pytest.mark.slow
def test_policy_config_overrides_enforcement_and_suppresses(recordings):
    cfg, recorded = recordings["8b-at-tp2"]
    resources = resources_of(recorded)
    advisory_level = analyze("prod", cfg, resources, {"sharded-model-that-fits": {"enforcementLevel": "advisory"}})
    assert mandatory(advisory_level) == set()
    assert ("sharded-model-that-fits", "SW104", "prod-llama-70b-deployment") in advisory(advisory_level)

    suppressed = analyze("prod", cfg, resources, {"sharded-model-that-fits": {
        "suppressions": [{"subject": "Deployment serving/*", "reason": "benchmarked: TP2 TPOT p95 18 ms vs 31 ms"}]}})
    assert mandatory(suppressed) == set()
    [note] = [d for d in suppressed if d.code == "SW104"]
    assert (note.policy, note.level) == ("shardwise-stack-notes", "advisory")
    assert note.message.startswith("SW104 suppressed: benchmarked: TP2 TPOT p95 18 ms vs 31 ms (finding: SW104: ")

    disabled = analyze("prod", cfg, _imds_v1(resources_of(recordings["prod"][1])),
                       {"imdsv2-not-required": {"enforcementLevel": "disabled"}})
    assert mandatory(disabled) == set()


@pytest.mark.slow
def test_unresolvable_references_fail_closed(recordings):
    cfg, recorded = recordings["prod"]
    resources = resources_of(recorded)
    for r in resources:  # an engine that sent no property dependencies: references stay unknown
        r.property_dependencies = {}
    diagnostics = analyze("prod", cfg, resources)
    got = {(d.policy, d.code, short(d.urn)) for d in diagnostics
           if d.level == "mandatory" and "cannot decide" in d.message}
    assert got == mandatory(diagnostics) == {
        ("runtime-port-exposed", "SW301", "prod-h100-node-group"),
        ("runtime-port-exposed", "SW301", "prod-h100-efa-node-group"),
        ("runtime-port-exposed", "SW301", "prod-network-gpu-nodes-ingress-self"),
        ("efa-without-self-referencing-security-group", "SW302", "prod-h100-node-group"),
        ("efa-without-self-referencing-security-group", "SW302", "prod-h100-efa-node-group"),
        ("gpu-nodes-in-public-subnet", "SW303", "prod-h100-node-group"),
        ("gpu-nodes-in-public-subnet", "SW303", "prod-h100-efa-node-group"),
        ("imdsv2-not-required", "SW304", "prod-h100-node-group"),
        ("imdsv2-not-required", "SW304", "prod-h100-efa-node-group"),
        # prod creates its cluster: the CPU system node group is judged like the GPU ones
        ("runtime-port-exposed", "SW301", "prod-cluster-system"),
        ("efa-without-self-referencing-security-group", "SW302", "prod-cluster-system"),
        ("gpu-nodes-in-public-subnet", "SW303", "prod-cluster-system"),
        ("imdsv2-not-required", "SW304", "prod-cluster-system"),
    }


@pytest.mark.slow
def test_an_unreadable_resource_is_a_mandatory_diagnostic_naming_it(recordings):
    cfg, recorded = recordings["prod"]
    resources = resources_of(recorded)
    find(resources, "prod-network-private-us-east-1a").props["mapPublicIpOnLaunch"] = "perhaps"
    diagnostics = analyze("prod", cfg, resources)
    assert mandatory(diagnostics) == {
        ("shardwise-resource-internal-error", None, "prod-network-private-us-east-1a"),
        ("shardwise-stack-internal-error", None, "prod-network-private-us-east-1a"),
    }
    for d in diagnostics:
        if d.level == "mandatory":
            assert d.message == ("shardwise: cannot read aws:ec2/subnet:Subnet `prod-network-private-us-east-1a`: "
                                 "mapPublicIpOnLaunch: expected true or false, found 'perhaps'; no rule checked it")


@pytest.mark.slow
@pytest.mark.slow
def test_the_stack_config_of_configure_stack_when_no_language_host_set_it(recordings):
    """Started as an executable pack path, the pack gets no PULUMI_CONFIG: the engine's ConfigureStack
    carries the config, and prod's production setting puts SW404 in force as it does from the env."""
    cfg, recorded = recordings["prod"]
    expected = {("shardwise-stack-notes", "SW106", "prod-llama-70b-deployment"),
                ("shardwise-stack-notes", "SW404", "prod-llama-405b-leaderworkerset")}
    with PackProcess(stack="prod", config=engine_config(cfg), config_in_env=False) as pack:
        assert advisory(pack.run(resources_of(recorded))) == expected
    with PackProcess(stack="prod", config=None, config_in_env=False) as pack:  # no config at all: not in force
        assert advisory(pack.run(resources_of(recorded))) == {
            ("shardwise-stack-notes", "SW106", "prod-llama-70b-deployment")}


@pytest.mark.slow
def test_started_as_a_script_too(recordings):
    cfg, recorded = recordings["dev"]
    with PackProcess(stack="dev", config=engine_config(cfg),
                     argv=[PYTHON, str(ROOT / "rules" / "__main__.py"), "127.0.0.1:1"]) as pack:
        assert pack.port > 0
        assert mandatory(pack.run(resources_of(recorded))) == set()


@pytest.mark.slow
def test_the_pack_directory_for_an_installation_serves_the_same_policies(recordings, tmp_path):
    from shardwise.rules.app.crossguard import pack_dir

    pack = pack_dir(str(tmp_path / "pack"))
    cfg, recorded = recordings["dev"]
    with PackProcess(stack="dev", config=engine_config(cfg),
                     argv=[PYTHON, "-m", "pulumi.policy", "127.0.0.1:1", pack]) as server:
        assert server.port > 0
        assert mandatory(server.run(resources_of(recorded))) == set()


# --- parity with `shardwise lint` on the same resources as a `pulumi stack export` -----------------


def stack_export(resources: list[Resource]) -> dict[str, Any]:
    return {"version": 3, "deployment": {"manifest": {"version": "v3.200.0"}, "resources": [
        {"urn": r.urn, "custom": True, "type": r.type, "inputs": r.props, "outputs": r.props,
         "parent": r.parent, "dependencies": list(r.dependencies),
         "propertyDependencies": dict(r.property_dependencies or {})}
        for r in resources]}}


def preview_json(resources: list[Resource]) -> dict[str, Any]:
    """``pulumi preview --json`` of a first deployment: one create step per resource, its outputs the
    provider's preview (unknowns included)."""
    from grpc_harness import preview_outputs

    return {"steps": [
        {"op": "create", "urn": r.urn, "provider": "", "newState": {
            "urn": r.urn, "custom": True, "type": r.type, "inputs": r.props,
            "outputs": preview_outputs(r.type, r.props), "parent": r.parent, "dependencies": list(r.dependencies),
            "propertyDependencies": {k: list(v) for k, v in (r.property_dependencies or {}).items() if list(v)}}}
        for r in resources], "changeSummary": {"create": len(resources)}}


def pack_findings(diagnostics: list[Diagnostic]) -> set[tuple[str | None, str, str, bool]]:
    out: set[tuple[str | None, str, str, bool]] = set()
    for d in diagnostics:
        if d.message.startswith(f"{d.code} suppressed: "):
            finding = d.message[d.message.index("(finding: ") + len("(finding: "):-1]
            out.add((d.code, d.urn, finding, True))
        else:
            out.add((d.code, d.urn, d.message, False))
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "document"), [("prod", "export"), ("8b-at-tp2", "export"),
                                                   ("broken-resources", "export"), ("broken-resources", "preview")])
def test_lint_on_a_stack_export_finds_what_the_pack_finds(recordings, tmp_path, variant, document):
    if variant == "broken-resources":
        cfg, recorded = recordings["prod"]
        resources = _load_balancer(_imds_v1(_no_shm(_open_ray_port(resources_of(recorded)))))
    else:
        cfg, recorded = recordings[variant]
        resources = resources_of(recorded)
    diagnostics = analyze("prod", cfg, resources)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(stack_export(resources) if document == "export" else preview_json(resources), indent=2))
    (tmp_path / "shardwise.toml").write_text("production = true\n")
    proc = subprocess.run([str(ROOT / ".venv" / "bin" / "shardwise"), "lint", str(path), "--format", "json",
                           "--config", str(tmp_path / "shardwise.toml")],
                          capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode in (0, 1), proc.stderr
    lint = {(f["code"], f["urn"], f["message"], f["suppressed"]) for f in json.loads(proc.stdout)["findings"]}
    # the same findings, each saying where its production setting came from (mend10): the config file for lint, the
    # stack's `shardwise:environment` for the pack
    said = "; production: shardwise.toml sets `production`"
    assert {(c, u, m.replace(said, _PACK_PRODUCTION), s) for c, u, m, s in lint} == pack_findings(diagnostics)
    assert any(said in m for _, _, m, _ in lint) == any(_PACK_PRODUCTION in m for _, _, m, _ in
                                                       pack_findings(diagnostics))
    assert (proc.returncode == 1) == bool(mandatory(diagnostics))


_PACK_PRODUCTION = "; production: the stack's `shardwise:environment` config sets `production`"  # mend24: its key


@pytest.mark.slow
def test_concurrent_requests_keep_their_diagnostics_apart(recordings):
    cfg, recorded = recordings["8b-at-tp2"]
    resources = _no_shm(resources_of(recorded))
    with PackProcess(stack="prod", config=engine_config(cfg)) as pack:
        pack.handshake()
        pack.configure_stack()
        pack.info()
        sequential = [pack.analyze(r) for r in resources]
        with ThreadPoolExecutor(max_workers=8) as pool:
            concurrent = list(pool.map(pack.analyze, resources * 4))
            stacks = list(pool.map(pack.analyze_stack, [resources] * 4))
    assert concurrent == sequential * 4
    assert all(s == stacks[0] for s in stacks)
    assert mandatory([d for ds in concurrent for d in ds]) == {
        ("parallel-without-shm", "SW401", "prod-llama-70b-deployment")}
    assert mandatory(stacks[0]) == {("sharded-model-that-fits", "SW104", "prod-llama-70b-deployment")}


@pytest.mark.slow
def test_each_configure_sets_the_levels_and_config_of_the_analyze_requests_after_it(recordings):
    """The pack keeps what its loop runs (levels, configs) per ``Configure``: each new one is obeyed at once."""
    cfg, recorded = recordings["8b-at-tp2"]
    resource = find(_no_shm(resources_of(recorded)), "prod-llama-70b-deployment")
    with PackProcess(stack="prod", config=engine_config(cfg)) as pack:
        pack.handshake()
        pack.configure_stack()
        info = pack.info()

        def shm() -> list[tuple[str, str]]:
            return [(d.policy, d.level) for d in pack.analyze(resource) if d.policy == "parallel-without-shm"]

        first = shm()
        pack.configure(info, {"parallel-without-shm": {"enforcementLevel": "disabled"}})
        disabled = shm()
        pack.configure(info, {"parallel-without-shm": {"enforcementLevel": "advisory"}})
        advisory = shm()
        pack.configure(info, {})
        again = shm()
    assert (first, disabled, advisory, again) == (
        [("parallel-without-shm", "mandatory")], [], [("parallel-without-shm", "advisory")],
        [("parallel-without-shm", "mandatory")])


# --- no RPC fails because of what it is sent ---------------------------------------------------------


def test_a_crash_in_a_rule_or_its_config_is_an_internal_error_report():
    a = crossguard.Analysis(Inventory(), "stack", "the stack")
    assert a.check(_Crash(), None, crossguard.StackContext()) == []
    assert a.check(ALL_RULES[0], {"kv_reserve": "lots"}, crossguard.StackContext()) == []
    assert a.internal == [
        crossguard.Report("shardwise-stack-internal-error",
                          "SW999: internal error in rule always-crashes: KeyError: 'boom' (while checking the stack)"),
        crossguard.Report("shardwise-stack-internal-error",
                          f"{ALL_RULES[0].meta.code}: internal error in rule {ALL_RULES[0].meta.name}: ValueError: "
                          "could not convert string to float: 'lots' (while checking the stack)"),
    ]


def test_policy_config_the_pack_cannot_take_is_named():
    """hostile9: a property the schema does not list, a value of another type or out of its bounds, a policy the
    pack does not have: each named with its policy (the engine's schema check lets unlisted names through)."""
    names = ["sharded-model-that-fits", "vllm-pod-with-host-access"]
    ok = {"kv_reserve": 1.6, "p95_context_tokens": 4096.0, "usable_fraction": 1, "unknown_is_failure": False,
          "production": True, "default_deny_namespaces": ["team-*"],
          "suppressions": [{"subject": "Deployment serving/*", "reason": "benchmarked"}, {"reason": "r"}]}
    assert crossguard.policy_config_errors("sharded-model-that-fits", ok, names) == []
    assert crossguard.policy_config_errors("sharded-model-that-fits", {}, names) == []
    assert crossguard.policy_config_errors("no-such", {}, names) == ["`no-such` is no policy of this pack"]
    p = "vllm-pod-with-host-access"
    assert crossguard.policy_config_errors(p, {
        "kv_reserv": 1.2, "kv_reserve": 0.5, "usable_fraction": 0, "p95_context_tokens": 1.5, "production": "false",
        "unknown_is_failure": 0, "default_deny_namespaces": "serving",
        "suppressions": [{"subject": "*"}, {"reason": "x", "code": "SW309"}, "SW309", {"reason": "x", "subject": 3}],
    }, names) == [
        "`vllm-pod-with-host-access`: unknown property 'kv_reserv'; the properties are kv_reserve, p95_context_tokens, "
        "usable_fraction, production, unknown_is_failure, default_deny_namespaces, suppressions",
        "`vllm-pod-with-host-access`: kv_reserve is the number 0.5; expected a number from 1 to 10",
        "`vllm-pod-with-host-access`: usable_fraction is the number 0; expected a number from 0 to 1 (above it)",
        "`vllm-pod-with-host-access`: p95_context_tokens is the number 1.5; expected a whole number of at least 1",
        "`vllm-pod-with-host-access`: production is the string 'false'; expected true or false",
        "`vllm-pod-with-host-access`: unknown_is_failure is the number 0; expected true or false",
        "`vllm-pod-with-host-access`: default_deny_namespaces is the string 'serving'; expected a list of namespace "
        "globs (non-empty strings)",
        "`vllm-pod-with-host-access`: suppressions[0] has no reason (a non-empty string): every suppression needs one",
        "`vllm-pod-with-host-access`: suppressions[1]: unknown key 'code'; an entry has a reason and an optional "
        "subject (a glob), and suppresses this policy",
        "`vllm-pod-with-host-access`: suppressions[2] is the string 'SW309'; expected an object with a reason",
        "`vllm-pod-with-host-access`: suppressions[3].subject is the number 3; expected a glob",
    ]
    assert crossguard.policy_config_errors(p, {"kv_reserve": float("nan")}, names) == [
        "`vllm-pod-with-host-access`: kv_reserve is the number nan; expected a number from 1 to 10"]


def test_configure_with_a_config_the_pack_cannot_take_is_refused(recordings):
    """The RPC fails naming the policy and the property (the preview stops: fail closed); was read as another value
    (``production: "false"`` as true), ignored (``kv_reserv``) or an internal error of every rule
    (``kv_reserve: "x"``). A valid config after it is taken."""
    import grpc

    cfg, recorded = recordings["8b-at-tp2"]
    with PackProcess(stack="prod", config=engine_config(cfg)) as pack:
        pack.handshake()
        pack.configure_stack()
        info = pack.info()
        with pytest.raises(grpc.RpcError) as e:
            pack.configure(info, {"sharded-model-that-fits": {"kv_reserve": "x", "kv_reserv": 1.2}})
        pack.configure(info, {"sharded-model-that-fits": {"enforcementLevel": "advisory", "kv_reserve": 2}})
    assert e.value.details() == (
        "Exception calling application: shardwise: the policy config cannot be taken: `sharded-model-that-fits`: "
        "unknown property 'kv_reserv'; the properties are kv_reserve, p95_context_tokens, usable_fraction, "
        "production, unknown_is_failure, default_deny_namespaces, suppressions; `sharded-model-that-fits`: "
        "kv_reserve is the string 'x'; expected a number from 1 to 10")


def test_a_crash_while_reading_the_resources_is_an_internal_error_report(monkeypatch):
    from shardwise.rules.adapters import pulumi as adapter

    def crash(*args, **kwargs):
        raise TypeError("an unknown value has no truth value; use known() first")

    monkeypatch.setattr(adapter, "inventory_from_resources", crash)
    res = PulumiResource("aws:ec2/subnet:Subnet", "a", "urn:s", {})
    assert crossguard.stack_analysis([res], crossguard.StackContext()).internal == [crossguard.Report(
        "shardwise-stack-internal-error", "shardwise: internal error while reading the stack: TypeError: an unknown "
        "value has no truth value; use known() first; no rule checked it")]
    assert crossguard.resource_analysis(res, crossguard.StackContext()).internal == [crossguard.Report(
        "shardwise-resource-internal-error", "shardwise: internal error while reading aws:ec2/subnet:Subnet a: "
        "TypeError: an unknown value has no truth value; use known() first; no rule checked it")]


#: a preview's unknown output, and what decides it (engine.what_decides: the pack's resources have URNs)
UNDECIDED = ("is not known (a computed value or an unresolved reference): lint the `pulumi up` state, or write the "
             "value as a literal")


@pytest.mark.slow
def test_unknown_instance_types_with_gpu_workloads_are_undecided_not_a_failed_rpc(recordings):
    cfg, recorded = recordings["prod"]
    resources = resources_of(recorded)
    group = find(resources, "prod-h100-node-group").props  # as a hand-written program declares it:
    group["instanceTypes"] = UNKNOWN  # from another resource's output
    group["labels"] = {"shardwise.dev/pool": "h100"}  # and no labels that say which GPU
    diagnostics = analyze("prod", cfg, resources)
    assert [d for d in diagnostics if "internal-error" in d.policy] == []
    # undecided capacity and topology findings are advisory unless the pack config says
    # unknown_is_failure: nothing blocks the preview, every rule that could not run says so
    assert [d for d in diagnostics if d.level == "mandatory"] == []
    memory = f"GPU memory of node pool `h100` {UNDECIDED}"
    advisory = {(d.code, short(d.urn), d.message) for d in diagnostics
                if d.level == "advisory" and d.code in ("SW101", "SW102", "SW103", "SW104", "SW201")}
    assert advisory == {  # (SW103 too: the prod stack declares its load)
        *((code, "prod-llama-70b-deployment", f"{code}: cannot decide: {memory}")
          for code in ("SW101", "SW102", "SW103", "SW104")),
        ("SW201", "prod-llama-70b-deployment", f"SW201: cannot decide: GPUs per node of pool `h100` {UNDECIDED}"),
    }


SIG = "4dabf18193072939515e22adb298388d"


@pytest.mark.slow
def test_a_value_the_sdk_cannot_read_fails_the_request(recordings):
    """pulumi-policy reads every resource's properties before any policy runs; a value signature it does
    not know fails that RPC (the engine then stops the preview: nothing is allowed through). The pack uses
    only the SDK's public API, which has no hook before that reading."""
    import grpc

    cfg, recorded = recordings["prod"]
    resources = resources_of(recorded)
    find(resources, "prod-network-private-us-east-1a").props["tags"] = {"x": {SIG: "not-a-signature"}}
    with pytest.raises(grpc.RpcError) as e:
        analyze("prod", cfg, resources)
    assert e.value.code() == grpc.StatusCode.UNKNOWN


def test_a_provider_the_sdk_cannot_read_fails_every_request_naming_it():
    """packspeed12: the pack reads a provider's message once per content (the SDK read it for each request); one
    it cannot read is never taken as read: each request naming it fails, and one naming a readable provider does
    not."""
    import grpc
    from grpc_harness import struct
    from pulumi.runtime.proto import analyzer_pb2

    ns = Resource("kubernetes:core/v1:Namespace", "serving", "urn:pulumi:dev::p::kubernetes:core/v1:Namespace::serving",
                  {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "serving"}})

    def provider(props: dict[str, Any]) -> Any:
        return analyzer_pb2.AnalyzerProviderResource(
            type="pulumi:providers:kubernetes", name="eks", urn="urn:pulumi:dev::p::pulumi:providers:kubernetes::eks",
            properties=struct(props))

    good, bad = provider({"version": "4.34.2"}), provider({"kubeconfig": {SIG: "not-a-signature"}})
    with PackProcess(stack="dev", config=engine_config(stack_config("dev"))) as pack:
        pack.handshake()
        pack.configure_stack()
        pack.info()
        for prov, fails in ((bad, True), (good, False), (bad, True), (good, False)):
            request = pack.analyze_request(ns)
            request.provider.CopyFrom(prov)
            if fails:
                with pytest.raises(grpc.RpcError) as e:
                    pack.analyze(request)
                assert e.value.code() == grpc.StatusCode.UNKNOWN
            else:
                assert pack.analyze(request) == []


# --- AnalyzeStack gets outputs: what a provider computes is unknown at preview --------------------------


def test_stack_policies_read_outputs_with_the_inputs_analyze_saw():
    urn = "urn:pulumi:prod::shardwise::aws:ec2/securityGroup:SecurityGroup::gpu"
    inputs = {"description": "GPU nodes", "ingress": [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}]}
    outputs = {**inputs, "id": UNKNOWN, "arn": UNKNOWN, "egress": UNKNOWN, "ownerId": "123456789012"}
    memory = crossguard.AnalyzedInputs()
    assert memory.merged(urn, outputs) == outputs  # not analyzed: the outputs as they are
    memory.remember(urn, inputs)
    # unknown outputs the program did not set are the provider's to compute; known ones are kept
    assert memory.merged(urn, outputs) == {**inputs, "ownerId": "123456789012"}
    assert memory.merged(urn, {**outputs, "ingress": UNKNOWN}) == {**inputs, "ownerId": "123456789012"}


def test_analyzed_inputs_give_the_dict_analyze_read_only_for_the_same_bytes():
    """packspeed12: ``AnalyzeStack`` takes the dict ``Analyze`` read where the engine sent the same message (its
    deterministic bytes), and the cleaned properties of a Kubernetes object made then; anything else is read anew."""
    from shardwise.rules.adapters.pulumi import clean, merge_state

    urn = "urn:pulumi:prod::shardwise::kubernetes:core/v1:Service::api"
    props = {"kind": "Service", "metadata": {"name": "api"}, "spec": {"ports": [{"port": 8000.0}]}}
    memory = crossguard.AnalyzedInputs()
    memory.remember(urn, props, b"sent")
    assert memory.has_sent(urn) and memory.sent(urn, b"sent") is props
    assert memory.sent(urn, b"changed") is None and memory.sent("urn:other", b"sent") is None
    assert memory.merged(urn, props) is props and merge_state(props, props) == props
    res = PulumiResource("kubernetes:core/v1:Service", "api", urn, props)
    made = memory.cleaned(res)
    assert made == clean(props) == {"kind": "Service", "metadata": {"name": "api"}, "spec": {"ports": [{"port": 8000}]}}
    assert memory.cleaned(res) is made  # the Kubernetes object's cleaned properties, made once
    other = PulumiResource(res.type, "api", urn, copy.deepcopy(props))  # an equal dict, not the one remembered
    assert memory.cleaned(other) == made and memory.cleaned(other) is not made
    sg_urn = "urn:pulumi:prod::shardwise::aws:ec2/securityGroup:SecurityGroup::gpu"
    memory.remember(sg_urn, {"description": "GPU nodes"}, b"sg")
    sg = PulumiResource("aws:ec2/securityGroup:SecurityGroup", "gpu", sg_urn, memory.sent(sg_urn, b"sg") or {})
    assert memory.cleaned(sg) == {"description": "GPU nodes"} and memory.cleaned(sg) is not memory.cleaned(sg)
    memory.remember(urn, props)  # remembered again without its message (the SDK read it): never given by bytes
    assert not memory.has_sent(urn) and memory.sent(urn, b"sent") is None


def test_the_stack_takes_the_objects_analyze_read_once_without_what_the_rules_kept_on_them():
    """packspeed13: the stack's reading of a Kubernetes object ``Analyze`` read (the same cleaned properties, type,
    name and location) takes the objects the reader made then, once, without the capacity model's answers kept for
    its groups (made without the pool the stack resolves) nor their groups on other kinds of node; anything else is
    read anew."""
    from shardwise.rules.adapters.pulumi import kubernetes_api
    from shardwise.rules.capacity import group as capacity_group

    urn = "urn:pulumi:prod::shardwise::kubernetes:apps/v1:Deployment::llama"
    container = {"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
                 "args": ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "1"],
                 "resources": {"limits": {"nvidia.com/gpu": 1.0}}}
    props = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "llama", "namespace": "serving"},
             "spec": {"replicas": 2.0, "template": {"spec": {"containers": [container]}}}}
    api = kubernetes_api("kubernetes:apps/v1:Deployment")
    assert api is not None
    memory = crossguard.AnalyzedInputs()
    memory.remember(urn, props, b"sent")
    res = PulumiResource("kubernetes:apps/v1:Deployment", "llama", urn, props)
    read = memory.kubernetes(res, memory.cleaned(res), api)
    [g] = read.groups
    assert (g.name, g.replicas, g.gpus_per_pod) == ("llama", 2, 1)
    capacity_group.per_group(g, "seen", lambda _: "made without a pool")
    g.pool_option_groups = [g]
    stack_res = PulumiResource(res.type, res.name, urn, memory.merged(urn, memory.sent(urn, b"sent")))
    taken = memory.kubernetes_again(stack_res, memory.cleaned(stack_res), api)
    assert taken is read and taken.groups[0] is g and g.pool_option_groups == []
    assert capacity_group.per_group(g, "seen", lambda _: "made again") == "made again"
    again = memory.kubernetes_again(stack_res, memory.cleaned(stack_res), api)  # given once
    assert again is not read and again.groups[0] is not g and again.groups == [g]
    # another name, or cleaned properties that are not the ones Analyze read: read anew
    memory.kubernetes(res, memory.cleaned(res), api)
    renamed = PulumiResource(res.type, "other", urn, stack_res.props)
    assert memory.kubernetes_again(renamed, memory.cleaned(renamed), api) is not read
    read = memory.kubernetes(res, memory.cleaned(res), api)
    assert memory.kubernetes_again(stack_res, copy.deepcopy(memory.cleaned(stack_res)), api) is not read
    # remembered again (a second Analyze of the resource): what the first one read is not given
    read = memory.kubernetes(res, memory.cleaned(res), api)
    memory.remember(urn, props, b"sent")
    assert memory.kubernetes_again(stack_res, memory.cleaned(stack_res), api) is not read


def _sg_verdicts(diagnostics: list[Diagnostic]) -> set[tuple[str, str | None, str, str]]:
    return {(d.policy, d.code, short(d.urn), d.message) for d in diagnostics if d.level == "mandatory"}


@pytest.mark.slow
def test_stack_policies_without_analyze_fail_closed_on_computed_outputs(recordings):
    from grpc_harness import engine_extras

    cfg, recorded = recordings["prod"]
    resources = resources_of(recorded)
    with PackProcess(stack="prod", config=engine_config(cfg)) as pack:  # AnalyzeStack only
        pack.handshake()
        pack.configure_stack()
        pack.info()
        diagnostics = pack.analyze_stack([*engine_extras(resources, "prod", "shardwise"), *resources])
    # the security groups' rules are separate resources; their `ingress`/`egress` outputs are the
    # provider's read-back, unknown at preview: without the inputs, nothing says they are not set
    protocol = f"cannot decide: protocol of a security group rule {UNDECIDED}"
    assert _sg_verdicts(diagnostics) == {
        ("runtime-port-exposed", "SW301", "prod-network-endpoints", f"SW301: {protocol}"),
        ("runtime-port-exposed", "SW301", "prod-network-gpu-nodes", f"SW301: {protocol}"),
        ("efa-without-self-referencing-security-group", "SW302", "prod-h100-efa-node-group", f"SW302: {protocol}"),
    }


# --- the pack's own reading of the engine's properties, and Remediate -----------------------------------


def _struct(props: dict[str, Any]) -> Any:
    from google.protobuf import struct_pb2

    s = struct_pb2.Struct()
    s.update(props)
    return s


def test_the_pack_reads_plain_properties_as_the_sdk_does():
    """``plain_properties`` gives what pulumi-policy's MessageToDict + deserialize_properties give, key order
    included; the SDK's proxies of them copy back (``raw``) to the same dict."""
    from google.protobuf import json_format
    from pulumi_policy.deserialize import deserialize_properties
    from pulumi_policy.proxy import unknown_checking_proxy
    from shardwise.rules import __main__ as wiring

    props = {
        "metadata": {"name": "llama", "namespace": "serving", "labels": {"b": "2", "a": "1"}},
        "spec": {"replicas": 2, "paused": False, "minReadySeconds": 0.5, "selector": None,
                 "template": {"spec": {"containers": [{"args": ["--tensor-parallel-size", "8"], "env": []}]}}},
        "tags": UNKNOWN, "ports": [80, 443.0, UNKNOWN, [], {}], "empty": {},
    }
    message = _struct(props)
    sdk = deserialize_properties(json_format.MessageToDict(message))
    ours = wiring.plain_properties(message)
    assert json.dumps(ours) == json.dumps(sdk)  # same values, types and key order
    assert ours["spec"]["replicas"] == 2.0 and isinstance(ours["spec"]["replicas"], float)
    assert json.dumps(wiring.raw(unknown_checking_proxy(sdk))) == json.dumps(ours)
    lazy = wiring._LazyProxy(ours, unknown_checking_proxy)
    assert wiring.raw(lazy) is ours
    assert sorted(lazy) == sorted(props) and len(lazy) == len(props)  # read by anyone else: the SDK's proxy
    from pulumi_policy.proxy import UnknownValueError

    with pytest.raises(UnknownValueError):
        lazy["tags"]


def _containers(value: Any) -> list[Any]:
    """Every dict and list in ``value``, itself included."""
    if isinstance(value, dict):
        return [value, *(c for v in value.values() for c in _containers(v))]
    if isinstance(value, list):
        return [value, *(c for v in value for c in _containers(v))]
    return []


def _typed(value: Any) -> Any:
    """``value`` with every leaf's type beside it (``1`` and ``1.0`` and ``True`` told apart), for exact equality."""
    if isinstance(value, dict):
        return [(k, _typed(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


_DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment", "__inputs": {"a": 1}, "__initialApiVersion": "apps/v1",
    "metadata": {"name": "llama", "namespace": "serving", "labels": {"b": "2", "a": "1"},
                 "annotations": {"__kept": "nested double underscores stay"}},
    "spec": {"replicas": 2, "paused": False, "minReadySeconds": 0.5, "selector": None, "progressDeadlineSeconds": 1e3,
             "template": {"spec": {"containers": [{"args": ["--tensor-parallel-size", "8", "--x", 1.25], "env": [],
                                                   "resources": {"limits": {"nvidia.com/gpu": 8}}}],
                                   "volumes": [[], {}, None, True]}}},
}


@pytest.mark.parametrize("props", [
    _DEPLOYMENT,
    {**_DEPLOYMENT, "metadata": {"name": UNKNOWN, "namespace": "serving"}},  # a sentinel: no manifest
    {**_DEPLOYMENT, "__hidden": [UNKNOWN]},  # one under a top-level `__` key, which the manifest leaves out
    {}, {"spec": {"ports": [UNKNOWN, 80]}},
])
def test_the_pack_reads_a_kubernetes_object_in_one_walk(props):
    """``kubernetes_properties`` gives, in one walk of the engine's message, what the pack's three walks give:
    ``plain_properties``'s dict (the SDK's reading), ``clean`` of it and, where it holds no unknown, the
    Kubernetes reader's copy of that (``prepare_manifest``): equal values of equal types in the same order, the
    copy's dicts and lists new."""
    from shardwise.rules import __main__ as wiring
    from shardwise.rules.adapters.pulumi import clean
    from shardwise.rules.adapters.pulumi.k8s import prepare_manifest

    message = _struct(props)
    ours = wiring.kubernetes_properties(message)
    plain = wiring.plain_properties(message)
    assert type(ours) is wiring._Plain and _typed(ours) == _typed(plain)
    assert plain.cleaned is None and plain.manifest is None
    cleaned = clean(plain)
    assert _typed(ours.cleaned) == _typed(cleaned)
    if UNKNOWN in json.dumps(props):  # a sentinel anywhere: the reader makes its manifest itself
        assert ours.manifest is None
    else:
        manifest, unknown = prepare_manifest(ours.cleaned)
        assert unknown == []
        assert _typed(ours.manifest) == _typed(manifest)
        shared = {id(c) for c in [*_containers(ours), *_containers(ours.cleaned)]}
        assert not [c for c in _containers(ours.manifest) if id(c) in shared]
    assert not {id(c) for c in _containers(ours)} & {id(c) for c in _containers(ours.cleaned)}


def test_the_one_walk_of_a_deployment_has_exact_values():
    """What ``kubernetes_properties`` makes of a Deployment, written out: whole numbers as ``int`` once cleaned,
    the top-level ``__`` keys out of the manifest."""
    from shardwise.rules import __main__ as wiring

    ours = wiring.kubernetes_properties(_struct(_DEPLOYMENT))
    assert ours["spec"]["replicas"] == 2.0 and type(ours["spec"]["replicas"]) is float
    assert type(ours.cleaned["spec"]["replicas"]) is int and type(ours.cleaned["spec"]["minReadySeconds"]) is float
    assert ours.cleaned["spec"]["progressDeadlineSeconds"] == 1000
    assert list(ours.cleaned) == list(ours)  # the message's order (upb's maps keep one of their own)
    assert ours.manifest is not None and list(ours.manifest) == [k for k in ours if not k.startswith("__")]
    assert sorted(ours.manifest) == ["apiVersion", "kind", "metadata", "spec"]
    assert ours.manifest["metadata"]["annotations"] == {"__kept": "nested double underscores stay"}
    assert ours.manifest["spec"]["template"]["spec"]["containers"][0]["args"] == ["--tensor-parallel-size", "8",
                                                                                 "--x", 1.25]
    from shardwise.rules.model import UNKNOWN as READ_AS_UNKNOWN

    unknown = wiring.kubernetes_properties(_struct({**_DEPLOYMENT, "spec": {"replicas": UNKNOWN}}))
    assert unknown["spec"]["replicas"] == UNKNOWN and unknown.manifest is None
    assert unknown.cleaned["spec"]["replicas"] is READ_AS_UNKNOWN


@pytest.mark.parametrize("value", [
    {SIG: "1b47061264138c4ac30d75fd1eb44270", "value": "hf_token"},  # a secret: the SDK's reading unwraps it
    {SIG: "c44067f5952c0a294b673a41bacd8c17", "text": "x"},  # an asset: an object
    {SIG: "not-a-signature"},  # one the SDK refuses
    float("inf"), float("nan"),  # numbers MessageToDict refuses
])
def test_the_pack_leaves_signatures_and_odd_numbers_to_the_sdk(value):
    from shardwise.rules import __main__ as wiring

    for props in ({"a": value}, {"a": {"b": [1, value]}}):
        with pytest.raises(wiring._NotPlain):
            wiring.plain_properties(_struct(props))
        with pytest.raises(wiring._NotPlain):  # nor read in one walk: the SDK's reading, then clean, as before
            wiring.kubernetes_properties(_struct(props))


@pytest.mark.slow
def test_remediate_is_answered_unimplemented_unless_a_policy_remediates(recordings):
    """The engine calls Remediate for every resource; no shardwise policy remediates, so while none is at the
    remediate level the pack does not serve it (the engine reads UNIMPLEMENTED as an empty answer). A policy
    configured at that level gets pulumi-policy's answer: not applicable."""
    import grpc
    from pulumi.runtime.proto import analyzer_pb2

    cfg, recorded = recordings["dev"]
    request = None
    with PackProcess(stack="dev", config=engine_config(cfg)) as pack:
        pack.handshake()
        pack.configure_stack()
        info = pack.info()
        request = pack.analyze_request(resources_of(recorded)[0])
        with pytest.raises(grpc.RpcError) as e:
            pack.stub.Remediate(request)
        assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED
        pack.configure(info, {"suppression-without-reason": {"enforcementLevel": "remediate"}})
        answer = pack.stub.Remediate(request)
        assert (list(answer.remediations), [(n.policy_name, n.reason) for n in answer.not_applicable]) == (
            [], [("suppression-without-reason", "Policy does not implement remediate")])
        pack.configure(info, {})
        with pytest.raises(grpc.RpcError) as e:
            pack.stub.Remediate(request)
        assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED
        assert isinstance(pack.stub.Analyze(request), analyzer_pb2.AnalyzeResponse)


# --- the pack's own Analyze loop answers as pulumi-policy's does ------------------------------------------------

_LOOPS = r"""
import json, sys
from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy import policy as sdk
from shardwise.rules import __main__ as wiring

resources, overrides = json.load(open(sys.argv[1], encoding="utf-8"))
read = wiring.crossguard.resource_analysis


built = []  # the analyses made


def resource_analysis(res, context, *memo):  # a resource the pack cannot make an analysis of: every policy crashes
    built.append(res.urn)
    if res.urn.endswith("::boom"):
        raise RuntimeError("boom")
    return read(res, context, *memo)


wiring.crossguard.resource_analysis = resource_analysis
pack = wiring._Pack()
policies = pack.policies()
sdk_analyze = sdk._PolicyAnalyzerServicer.Analyze  # the SDK's own loop, kept before the wiring replaces it
wiring._Wiring(sdk, pack).install(sdk, sdk._PolicyAnalyzerServicer)
servicer = sdk._PolicyAnalyzerServicer("shardwise", "0.1.0", policies, sdk.EnforcementLevel.ADVISORY,
                                       pack.initial_config())
configure = analyzer_pb2.ConfigureAnalyzerRequest()
levels = {"advisory": analyzer_pb2.ADVISORY, "mandatory": analyzer_pb2.MANDATORY,
          "disabled": analyzer_pb2.DISABLED, "remediate": analyzer_pb2.REMEDIATE}
for name, level in pack.initial_config().items():
    o = dict(overrides.get(name, {}))
    cfg = analyzer_pb2.PolicyConfig(enforcementLevel=levels[o.pop("enforcementLevel", level["enforcementLevel"].value)])
    if o:
        cfg.properties.update(o)
    configure.policyConfig[name].CopyFrom(cfg)
servicer.Configure(configure, None)
servicer.ConfigureStack(analyzer_pb2.AnalyzerStackConfigureRequest(tags={"team": "serving"}), None)
ours = servicer.Analyze  # the wiring's: the pack's loop
assert wiring._Dispatch(sdk, pack).ours(servicer) is not None
out = []
for type_, name, urn, props, parent in resources:
    struct = struct_pb2.Struct()
    struct.update(props)
    request = analyzer_pb2.AnalyzeRequest(type=type_, name=name, urn=urn, properties=struct,
                                          options=analyzer_pb2.AnalyzerResourceOptions(parent=parent))
    built.clear()
    a = ours(request, None).SerializeToString(deterministic=True)
    made = bool(built)
    b = sdk_analyze(servicer, request, None).SerializeToString(deterministic=True)
    out.append([a == b, [d.policyName for d in analyzer_pb2.AnalyzeResponse.FromString(a).diagnostics], made])
print(json.dumps(out))
"""


@pytest.mark.slow
@pytest.mark.parametrize("configured", [True, False], ids=["a-policy-configured", "levels-only"])
def test_the_packs_analyze_loop_answers_as_the_sdks_does(recordings, tmp_path, configured):
    """Each resource of a stack with a per-resource violation, with one policy disabled, one at the remediate level
    (reported as mandatory), one raised to mandatory and (``a-policy-configured``) one configured, and the stack's
    tags: the pack's loop and pulumi-policy's give the same bytes. So does a resource whose analysis crashes (every
    policy's crash reported by the internal-error policy of its own request, none left to the next one).

    packspeed21: with no policy configured, the pack's loop makes no analysis of a resource whose type the inventory
    reader reads nothing of (:func:`~shardwise.rules.adapters.pulumi.read_alone`) once the configuration of a policy
    without one is made (by the first analysis): it answers the SDK's empty answer at once. With a policy
    configured, whose configuration each request reads (and may fail on), every resource is analysed."""
    from shardwise.rules.adapters.pulumi import read_alone

    signature = "4dabf18193072939515e22adb298388d"
    cfg, recorded = recordings["prod"]
    resources = _no_shm(resources_of(recorded))
    first = next(r for r in resources if read_alone(r.type))  # an analysis that crashes is made: a type it reads
    boom = Resource(first.type, "boom", first.urn.rsplit("::", 1)[0] + "::boom", dict(first.props))
    resources = [*resources[:2], boom, *resources[2:]]
    overrides = {"parallel-without-shm": {"enforcementLevel": "remediate"},
                 "liveness-without-startup-probe": {"enforcementLevel": "disabled"},
                 "image-unpinned": {"enforcementLevel": "mandatory"}}
    if configured:
        overrides["gpu-memory-utilization-out-of-range"] = {"usable_fraction": 0.9}
    names = {s.name for s in crossguard.policy_specs(ALL_RULES) if s.scope == "resource"}
    assert set(overrides) <= names
    data = tmp_path / "requests.json"
    data.write_text(json.dumps([[[r.type, r.name, r.urn, r.props, r.parent] for r in resources], overrides]),
                    encoding="utf-8")
    proc = subprocess.run([PYTHON, "-c", _LOOPS, str(data)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    answers = json.loads(proc.stdout)
    assert len(answers) == len(resources) and all(same for same, _, _ in answers)
    assert sum(len(names) for _, names, _ in answers) >= 1 + 22  # the violation is among them, and the crashes
    assert answers[2][1] == ["shardwise-resource-internal-error"] * 22  # 20 rules not disabled, the notes, its own
    made = [m for _, _, m in answers]
    # a value with a signature (a secret: a provider's kubeconfig) is read by the SDK's functions, as before
    signed = [signature in json.dumps(r.props) for r in resources]
    expected = [configured or read_alone(r.type) or signed[i] or not any(made[:i]) for i, r in enumerate(resources)]
    assert made == expected
    assert made.count(False) >= (0 if configured else 50)  # roles, VPCs, Helm releases, components...
    assert "shardwise-resource-internal-error" not in answers[3][1]


_STACK_REUSE = r"""
import json, sys
from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy import policy as sdk
from shardwise.rules import __main__ as wiring
from shardwise.rules.checks.registry import ALL_RULES

resources = json.load(open(sys.argv[1], encoding="utf-8"))
sys.path.insert(0, "tests/support")
from grpc_harness import struct  # the harness's: secrets as the engine sends them


def reordered(v):  # the engine (Go) marshals each map of each request in an order of its own
    if isinstance(v, dict):
        return {k: reordered(v[k]) for k in reversed(list(v))}
    return [reordered(x) for x in v] if isinstance(v, list) else v


def stack(reuse):
    pack = wiring._Pack()
    keys = {}
    groups = {}  # URN -> the serving groups Analyze read, after every resource rule ran on them
    for type_, name, urn, props, parent, outputs, deps, property_deps in resources:  # Analyze, as the pack reads it
        message = struct(props)
        try:
            read = wiring._LazyProxy(wiring.plain_properties(message), None)
            keys[urn] = message.SerializeToString(deterministic=True)
        except wiring._NotPlain:  # a secret: the SDK's reading, remembered without its message
            read = sdk.unknown_checking_proxy(sdk.deserialize_properties(sdk.json_format.MessageToDict(message)))
        one = pack.resource_analysis(type_, name, urn, read, parent, keys.get(urn))
        for rule in ALL_RULES:
            if rule.meta.scope == "resource":
                one.check(rule, None, pack.context)
        groups[urn] = list(one.inventory.groups)
    request = analyzer_pb2.AnalyzeStackRequest()
    for type_, name, urn, props, parent, outputs, deps, property_deps in resources:
        r = request.resources.add()
        r.type, r.name, r.urn, r.parent = type_, name, urn, parent
        r.properties.CopyFrom(struct(reordered(outputs)))
        r.dependencies.extend(deps)
        for k, urns in property_deps.items():
            if urns:
                r.propertyDependencies[k].urns.extend(urns)
    read = wiring._Wiring(sdk, pack).read_properties
    served = wiring._StackRequest(request.resources, read, pack.inputs if reuse else None)
    analysis = served.analysis(pack)
    taken = [u for (_, _, u, *_), p in zip(resources, served._props) if u in keys and p is pack.inputs.sent(u, keys[u])]
    reports = [[r.policy, r.message, r.urn] for rule in ALL_RULES
               for r in analysis.check(rule, None, pack.context)]
    reports += [[r.policy, r.message, r.urn] for r in [*analysis.notes, *analysis.internal]]
    shared = sorted(u for u, gs in groups.items() if gs and all(any(g is h for h in analysis.inventory.groups)
                                                                for g in gs))
    return taken, sorted(keys), reports, shared


print(json.dumps([stack(True), stack(False)]))
"""


@pytest.mark.slow
def test_the_stack_reads_the_properties_analyze_read_only_where_the_engine_sent_them_again(recordings, tmp_path):
    """packspeed12: where the engine sends a resource's properties to ``AnalyzeStack`` as it sent them to ``Analyze``
    (the same content; Go marshals the maps in another order each time), the stack policies take the dict and the
    cleaned properties ``Analyze`` made, and report exactly what reading the stack's message anew reports; a resource
    whose outputs differ (a Service and a Deployment the provider gave a status, the AWS resources' computed
    attributes) is read from the stack's message."""
    from grpc_harness import preview_outputs

    cfg, recorded = recordings["kv-budget-too-small"]
    resources = resources_of(recorded)
    service, deployment = find(resources, "prod-llama-70b-service"), find(resources, "prod-llama-70b-deployment")
    outputs = {service.urn: {**service.props, "status": {"loadBalancer": {}}},
               deployment.urn: {**deployment.props, "status": {"replicas": 4}}}
    rows = [[r.type, r.name, r.urn, r.props, r.parent, outputs.get(r.urn, preview_outputs(r.type, r.props)),
             list(r.dependencies), dict(r.property_dependencies or {})] for r in resources]
    data = tmp_path / "stack.json"
    data.write_text(json.dumps(rows), encoding="utf-8")
    env = {**os.environ, "PULUMI_CONFIG": json.dumps(engine_config(cfg)), "PULUMI_STACK": "prod",
           "PULUMI_PROJECT": "shardwise", "PULUMI_DRY_RUN": "true"}
    proc = subprocess.run([PYTHON, "-c", _STACK_REUSE, str(data)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    (taken, plain, reused, shared), (none, _, anew, unshared) = json.loads(proc.stdout)
    again = {r.urn for r in resources if r.urn not in outputs and preview_outputs(r.type, r.props) == r.props}
    assert none == [] and set(taken) == again & set(plain)  # every resource read by the pack and sent again
    kinds = {r.urn: r.type for r in resources}
    assert len([u for u in taken if kinds[u].startswith("kubernetes:")]) >= 20
    assert reused == anew
    # packspeed13: the serving groups Analyze read (and ran every resource rule on) are the stack's where the engine
    # sent the same properties again (the LeaderWorkerSet); the Deployment whose outputs have a status is read anew
    assert [short(u) for u in shared] == ["prod-llama-405b-leaderworkerset"] and unshared == []
    assert [(p, short(u)) for p, m, u in reused if m.startswith("SW103: the declared load of 4,096 sequences")] == [
        ("kv-budget-below-load", "prod-llama-70b-deployment")]


@pytest.mark.parametrize(("props", "said"), [
    ({"spec": {"replicas": float("nan")}}, "spec.replicas is NaN"),
    ({"spec": {"ports": [{"port": 80}, {"port": float("-inf")}]}}, "spec.ports[1].port is -Infinity"),
    ({"metadata": {"name": "x"}, "spec": {SIG: "1b47061264138c4ac30d75fd1eb44270", "value": {"n": float("inf")}}},
     "spec.n is Infinity"),
    ({"a": float("nan"), "b": float("inf")}, "a is NaN"),  # the first met
    ({"spec": {"replicas": 2}}, None),
])
def test_a_number_that_is_not_finite_is_named_by_its_property(props, said):
    """hostile8: the SDK's words ("Fail to serialize NaN for Value.number_value") named no property; the pack's
    refusal names it (a secret's value under the secret's own path)."""
    from shardwise.rules import __main__ as wiring

    assert wiring.not_finite(_struct(props)) == said


def test_a_number_that_is_not_finite_fails_the_request_naming_the_resource():
    """hostile8: Analyze and AnalyzeStack of a resource holding NaN still fail (the preview stops: fail closed),
    in words that name the resource and the property; before, the SDK's words named neither."""
    import grpc

    dep = Resource("kubernetes:apps/v1:Deployment", "llama", "urn:pulumi:dev::p::kubernetes:apps/v1:Deployment::llama",
                   {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "llama"},
                    "spec": {"replicas": float("nan")}})
    want = ("shardwise: cannot read kubernetes:apps/v1:Deployment `llama`: spec.replicas is NaN: a number that is not "
            "finite, which JSON cannot hold and no Kubernetes or AWS field takes; the request is refused (fix the "
            "program's value)")
    with PackProcess(stack="dev", config=engine_config(stack_config("dev"))) as pack:
        pack.handshake()
        for call in (lambda: pack.analyze(dep), lambda: pack.analyze_stack([dep])):
            with pytest.raises(grpc.RpcError) as e:
                call()
            assert e.value.details() == f"Exception calling application: {want}"
        assert pack.proc.poll() is None


@pytest.mark.parametrize(("kind", "depth"), [("lists", 600), ("objects", 1200)])
def test_properties_nested_past_the_readers_recursion_fail_the_request_naming_the_resource(kind, depth):
    """fuzz23: a property nested 600 lists (1,200 objects) deep (the engine forwards up to protobuf-go's 10,000 message levels,
    about 5,000 of lists) failed Analyze and AnalyzeStack with Python's words ("maximum recursion depth exceeded"),
    naming no resource, and wrote a traceback of a thousand frames to the pack's stderr. The request still fails
    (the preview stops), naming the resource; 200 levels deep are read as any property."""
    import sys

    import grpc

    def nested(depth: int) -> Any:
        value: Any = "leaf"
        for _ in range(depth):
            value = [value] if kind == "lists" else {"a": value}
        return value

    def deployment(depth: int) -> Resource:
        return Resource("kubernetes:apps/v1:Deployment", "llama",
                        "urn:pulumi:dev::p::kubernetes:apps/v1:Deployment::llama",
                        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "llama"},
                         "spec": {"replicas": 1, "x": nested(depth)}})

    want = ("shardwise: cannot read kubernetes:apps/v1:Deployment `llama`: its properties nest deeper than shardwise "
            "reads (lists or objects hundreds of levels deep), which no Kubernetes or AWS field does; the request is "
            "refused (fix the program's value)")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)  # this process builds the request (the harness's conversion recurses)
    try:
        with PackProcess(stack="dev", config=engine_config(stack_config("dev"))) as pack:
            pack.handshake()
            deep, shallow = deployment(depth), deployment(200)
            requests = [pack.analyze_request(deep), pack.stack_request([deep])]
            for call in (lambda: pack.analyze(requests[0]), lambda: pack.analyze_stack(requests[1])):
                with pytest.raises(grpc.RpcError) as e:
                    call()
                assert e.value.details() == f"Exception calling application: {want}"
            assert pack.analyze(pack.analyze_request(shallow)) == []
            assert pack.proc.poll() is None
    finally:
        sys.setrecursionlimit(limit)

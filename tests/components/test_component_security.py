"""Security defaults of the components, under Pulumi mocks through the stacks' ``__main__.py``: the ALB listens on
HTTPS to the ranges the stack names, vLLM asks for an API key read from a Secret, and the API port admits the load
balancer's own subnets, not the VPC."""

from __future__ import annotations

from typing import Any

from pulumi_mocks import STACK_SECRETS
from test_components import broken, container, env_of, refused, stack_config, stack_run

INGRESS = "kubernetes:networking.k8s.io/v1:Ingress"
POLICY = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
CERT = "arn:aws:acm:us-east-1:123456789012:certificate/7f3e4d5c-6a71-4c8d-8e9f-1a2b3c4d5e6f"


def _alb(ann: dict[str, str]) -> dict[str, str]:
    keys = ("listen-ports", "certificate-arn", "ssl-policy", "ssl-redirect", "inbound-cidrs", "scheme")
    return {k.rsplit("/", 1)[1]: v for k, v in ann.items() if k.rsplit("/", 1)[1] in keys}


def test_prod_alb_is_https_with_a_redirect_and_open_to_the_named_ranges_only():
    ing = stack_run("prod").one(INGRESS, "prod-llm-ingress-llm").inputs
    assert _alb(ing["metadata"]["annotations"]) == {
        "scheme": "internal", "listen-ports": '[{"HTTP": 80}, {"HTTPS": 443}]', "certificate-arn": CERT,
        "ssl-policy": "ELBSecurityPolicy-TLS13-1-2-2021-06", "ssl-redirect": "443",
        "inbound-cidrs": "10.42.0.0/16,10.100.0.0/16"}


def test_vllm_reads_its_api_key_from_the_secret_the_environment_makes():
    run = stack_run("prod")
    key = run.one("kubernetes:core/v1:Secret", "prod-api-key-serving-vllm-api-key").inputs
    assert key["metadata"] == {"name": "vllm-api-key", "namespace": "serving",
                               "labels": {"app.kubernetes.io/managed-by": "shardwise"}}
    assert key["stringData"]["value"] == {"api-key": STACK_SECRETS["prod"]["shardwise:apiKey"]}  # a secret
    ref = {"secretKeyRef": {"name": "vllm-api-key", "key": "api-key", "optional": False}}
    dep = run.one("kubernetes:apps/v1:Deployment", "prod-llama-70b-deployment").inputs
    lws = run.one("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "prod-llama-405b-leaderworkerset").inputs
    for c in (container(dep), container(lws, "leaderTemplate"), container(lws, "workerTemplate")):
        assert env_of(c)["VLLM_API_KEY"] == ref
        # never on the command line or in the pod spec in clear
        assert not any("api-key" in a or "api_key" in a for a in [*c.get("command", []), *c.get("args", [])])


def test_the_api_port_admits_the_load_balancer_subnets_not_the_vpc():
    run = stack_run("prod")
    # the new VPC's load-balancer subnets: the last /19's /22s after the NAT's, one per zone
    lb = {r.name: r.inputs for r in run.of_type("aws:ec2/subnet:Subnet") if "-lb-" in r.name}
    assert {n: (s["cidrBlock"], s["availabilityZone"], s["tags"]["kubernetes.io/role/internal-elb"])
            for n, s in lb.items()} == {
        "prod-network-lb-us-east-1a": ("10.42.228.0/22", "us-east-1a", "1"),
        "prod-network-lb-us-east-1b": ("10.42.232.0/22", "us-east-1b", "1"),
        "prod-network-lb-us-east-1c": ("10.42.236.0/22", "us-east-1c", "1")}
    # the nodes' subnets are not tagged for load balancers: the controller places the ALB in the subnets above
    private = [r.inputs["tags"] for r in run.of_type("aws:ec2/subnet:Subnet") if "-private-" in r.name]
    assert len(private) == 3 and all("kubernetes.io/role/internal-elb" not in t for t in private)
    api = run.one(POLICY, "prod-network-serving-llama-70b-api").inputs["spec"]["ingress"][0]["from"]
    assert [p for p in api if "ipBlock" in p] == [{"ipBlock": {"cidr": c}} for c in (
        "10.42.228.0/22", "10.42.232.0/22", "10.42.236.0/22")]
    # an existing VPC: the ranges its stack names
    dev = stack_run("dev").one(POLICY, "dev-network-serving-llama-8b-api").inputs["spec"]["ingress"][0]["from"]
    assert [p for p in dev if "ipBlock" in p] == [{"ipBlock": {"cidr": "10.40.240.0/24"}},
                                                  {"ipBlock": {"cidr": "10.40.241.0/24"}}]


def test_an_alb_without_https_ranges_or_api_key_fails_at_preview_naming_each():
    def edit(env: dict[str, Any]) -> None:
        router = env["routers"][0]
        del router["certificate_arn"], router["inbound_cidrs"]
        del env["services"][0]["api_key_secret"]
        del env["network"]["load_balancer_cidrs"]

    err, _ = refused(broken("dev", edit))
    assert err.errors == [
        {"property_path": "routers[0].certificate_arn", "reason": (
            "router `llm` listens on HTTPS (http `redirect`): give the ACM certificate's ARN, or set http `plain` to "
            "serve HTTP only")},
        {"property_path": "routers[0].inbound_cidrs", "reason": (
            "router `llm`: without inbound_cidrs the AWS Load Balancer Controller opens the load balancer to "
            "0.0.0.0/0; list the client ranges (0.0.0.0/0 too, written to mean it)")},
        {"property_path": "routers[0].services", "reason": (
            "`llama-8b` is behind ALB router `llm`, which does not authenticate: give `llama-8b` an api_key_secret "
            "(vLLM's API key, env VLLM_API_KEY)")},
        {"property_path": "network.load_balancer_cidrs", "reason": (
            "routers[0] is an ALB whose targets are pod IPs, in an existing VPC: name the CIDRs of the subnets the "
            "load balancer is placed in (tagged kubernetes.io/role/internal-elb); the API port's NetworkPolicy "
            "admits those only (the whole VPC would let every pod call the model directly)")},
    ]


def test_plain_http_is_said_to_mean_it_and_an_optional_key_is_refused():
    def edit(env: dict[str, Any]) -> None:
        router = env["routers"][0]
        del router["certificate_arn"]
        router["http"] = "plain"
        env["services"][0]["api_key_secret"]["optional"] = True

    err, _ = refused(broken("dev", edit))
    assert err.errors == [{"property_path": "routers[0].services", "reason": (
        "`llama-8b`'s api_key_secret is optional: a missing Secret would start vLLM without authentication; make it "
        "required")}]


def test_an_api_key_secret_nothing_makes_fails_at_preview():
    config = {k: v for k, v in stack_config("staging").items() if k != "shardwise:apiKey"}
    err, _ = refused(config)
    assert err.errors == [{"property_path": "services[0].api_key_secret", "reason": (
        "nothing creates the Secret `vllm-api-key` that `llama-70b-awq` reads vLLM's API key from: give api_key "
        "(a Pulumi secret, e.g. `pulumi config set --secret shardwise:apiKey …`), or set api_key_secret_exists when "
        "the Secret is made outside this program")}]


def test_a_non_root_workload_makes_its_namespace_enforce_restricted():
    from component_mocks import run_program

    def edit(env: dict[str, Any]) -> None:
        env["services"][0]["run_as_non_root"] = True  # staging's cache is a pvc: no hostPath

    run = run_program(broken("staging", edit), stack="staging")
    (ns,) = run.of_type("kubernetes:core/v1:Namespace")
    assert {k: v for k, v in ns.inputs["metadata"]["labels"].items() if k.startswith("pod-security")} == {
        "pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/audit": "restricted"}
    dep = run.one("kubernetes:apps/v1:Deployment", "staging-llama-70b-awq-deployment").inputs
    assert dep["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == 2000
    assert container(dep)["securityContext"] == {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


def test_non_root_with_a_node_nvme_cache_fails_at_preview():
    def edit(env: dict[str, Any]) -> None:
        env["services"][0]["run_as_non_root"] = True

    err, _ = refused(broken("dev", edit))
    assert err.errors == [{"property_path": "services[0].run_as_non_root", "reason": (
        "a node-nvme cache is a hostPath directory the kubelet creates owned by root: UID 2000 could not write the "
        "download there; use a pvc or s3 cache, or run as root")}]

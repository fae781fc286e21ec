"""Services, Ingresses, network policies and routers judge only the workloads of their own deployable unit (place16).

place14 scoped node pools by deployable unit (rules/adapters/units.py): two repositories linted in one run are two
clusters. Services, NetworkPolicies and Ingresses were not: a LoadBalancer Service of one repository was reported as
exposing the other's Deployment of the same labels (SW306), its default-deny policy hid the other's namespace
(SW305), its Ingress counted as "in front" of the other's LoRA server (SW312), and its Service as sending traffic to
the other's unready pods (SW407). The shapes are those of the wide corpus's one-run lint over many checkouts: both
repositories serve vLLM in namespace ``default`` with pods labelled ``app: vllm`` (kubernetes/examples'
AI/vllm-deployment, syeda-anjum/quick-inference-demo's vllm-service.yaml).
"""

from __future__ import annotations

import pathlib

from shardwise.rules.adapters import read_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: vllm}}}}
  template:
    metadata: {{labels: {{app: vllm}}}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [Qwen/Qwen2.5-1.5B-Instruct]
          env:
            - {{name: VLLM_ALLOW_RUNTIME_LORA_UPDATING, value: "true"}}
          ports: [{{containerPort: 8000}}]
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""

LOAD_BALANCER = """\
apiVersion: v1
kind: Service
metadata: {name: vllm-service}
spec:
  type: LoadBalancer
  selector: {app: vllm}
  ports: [{port: 8000, targetPort: 8000}]
"""

DENY = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny}
spec:
  podSelector: {}
  policyTypes: [Ingress]
"""

INGRESS = """\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: vllm}
spec:
  rules:
    - http:
        paths:
          - path: /
            pathType: Prefix
            backend: {service: {name: vllm-service, port: {number: 8000}}}
"""


def _repos(root: pathlib.Path, git: bool = True) -> tuple[pathlib.Path, pathlib.Path]:
    """Two checkouts side by side: ``platform`` (its Deployment, a LoadBalancer Service, a default-deny policy, an
    Ingress) and ``team-app`` (a Deployment of the same labels in the same namespace, and nothing else)."""
    a, b = root / "platform", root / "team-app"
    for repo in (a, b):
        repo.mkdir()
        if git:
            (repo / ".git").mkdir()
    (a / "vllm.yaml").write_text(DEPLOYMENT.format(name="platform-vllm"), encoding="utf-8")
    (a / "service.yaml").write_text(LOAD_BALANCER, encoding="utf-8")
    (a / "policy.yaml").write_text(DENY, encoding="utf-8")
    (a / "ingress.yaml").write_text(INGRESS, encoding="utf-8")
    (b / "vllm.yaml").write_text(DEPLOYMENT.format(name="team-vllm"), encoding="utf-8")
    return a, b


def _findings(paths: list[pathlib.Path], code: str) -> list[tuple[str, str, str]]:
    inv = read_inputs([str(p) for p in paths], jobs=1)
    assert not inv.errors
    return sorted((f.subject, f.level, f.message) for f in run_rules(ALL_RULES, inv) if f.code == code)


def test_a_service_exposes_only_its_own_repositorys_pods(tmp_path):
    """SW306: the LoadBalancer of ``platform`` exposes its own Deployment only (on main: both, and the other
    repository's Deployment named as exposed by it)."""
    a, b = _repos(tmp_path)
    found = _findings([a, b], "SW306")
    assert [s for s, _, _ in found] == ["Ingress default/vllm", "Service default/vllm-service"]
    assert found[0][2].startswith("Ingress `default/vllm` routes to Deployment default/platform-vllm (Service "
                                  "`vllm-service`) through the cluster's default ingress controller,")
    assert found[1][2].startswith("Service `default/vllm-service` of type LoadBalancer exposes Deployment "
                              "default/platform-vllm directly on port 8000,")


def test_another_repositorys_default_deny_does_not_isolate_this_namespace(tmp_path):
    """SW305: ``team-app``'s namespace ``default`` holds no policy of its own; ``platform``'s default-deny is another
    cluster's (on main: no finding at all for team-app, the other repository's policy counted)."""
    a, b = _repos(tmp_path)
    assert _findings([a, b], "SW305") == [(
        "Namespace default", "advisory",
        "namespace `default` (Deployment default/team-vllm) has no default-deny ingress policy (no network policy "
        "at all); every pod in the cluster can reach vLLM without the gateway")]


def test_another_repositorys_ingress_is_not_in_front_of_a_lora_server(tmp_path):
    """SW312: the Ingress of ``platform`` routes to its own LoRA server, not to ``team-app``'s (on main: neither
    finding, ``team-app``'s server counted as behind the other repository's Ingress)."""
    a, b = _repos(tmp_path)
    assert _findings([a, b], "SW312") == [(
        "Deployment default/team-vllm", "advisory",
        "container `vllm` sets VLLM_ALLOW_RUNTIME_LORA_UPDATING=true with no API key and no Ingress or HTTPRoute in "
        "front, so anyone who reaches its port can load LoRA adapters at run time")]


def test_another_repositorys_service_sends_no_traffic_here(tmp_path):
    """SW407: only ``platform``'s Deployment is behind a Service (on main: both, ``team-app``'s unready pods said to
    get the other repository's traffic)."""
    a, b = _repos(tmp_path)
    assert [s for s, _, _ in _findings([a, b], "SW407")] == ["Deployment default/platform-vllm"]


def test_one_repository_is_one_unit_as_before(tmp_path):
    """The same files in one git work tree (one cluster): the Service exposes both Deployments, the default-deny
    policy covers both, the Ingress is in front of both, as on main."""
    a, b = _repos(tmp_path, git=False)
    (tmp_path / ".git").mkdir()
    found = _findings([a, b], "SW306")
    assert "routes to Deployment default/platform-vllm (Service `vllm-service`), Deployment default/team-vllm " \
        "(Service `vllm-service`) through" in found[0][2]
    assert "exposes Deployment default/platform-vllm, Deployment default/team-vllm directly" in found[1][2]
    assert _findings([a, b], "SW305") == []
    assert _findings([a, b], "SW312") == []
    assert [s for s, _, _ in _findings([a, b], "SW407")] == ["Deployment default/platform-vllm",
                                                             "Deployment default/team-vllm"]


RAY_HEAD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: ray-head}}
spec:
  selector: {{matchLabels: {{app: ray-head}}}}
  template:
    metadata: {{labels: {{app: ray-head}}}}
    spec:
      containers:
        - name: ray-head
          image: rayproject/ray:2.40.0
          ports: [{{name: dashboard, containerPort: {port}}}]
"""

DASHBOARD_LB = """\
apiVersion: v1
kind: Service
metadata: {name: ray-dashboard}
spec:
  type: LoadBalancer
  selector: {app: ray-head}
  ports: [{port: 80, targetPort: dashboard}]
"""


def test_a_named_target_port_resolves_on_its_own_repositorys_pods(tmp_path):
    """readers17: a Service's named ``targetPort`` is resolved on the container ports of the pods it selects, which
    are its own cluster's (``platform`` names ``dashboard`` port 8080, an authenticating proxy); another checkout's pod
    of the same labels names ``dashboard`` 8265 (Ray's dashboard). On main SW301 reported the ``platform`` Service as
    exposing 8265; within one repository that pod is selected and it still does."""
    a, b = _repos(tmp_path)
    (a / "ray.yaml").write_text(RAY_HEAD.format(port=8080), encoding="utf-8")
    (a / "dashboard.yaml").write_text(DASHBOARD_LB, encoding="utf-8")
    (b / "ray.yaml").write_text(RAY_HEAD.format(port=8265), encoding="utf-8")
    assert _findings([a, b], "SW301") == []
    (a / "ray.yaml").write_text(RAY_HEAD.format(port=8265), encoding="utf-8")
    assert _findings([a, b], "SW301") == [(
        "Service default/ray-dashboard", "mandatory", "Service `default/ray-dashboard` of type LoadBalancer exposes "
        "port 8265 (Ray dashboard, targetPort `dashboard`) outside the cluster; make the Service type ClusterIP (the "
        "group's pods still reach it inside the cluster; reach a dashboard with kubectl port-forward), or take this "
        "port off it and leave only the API port")]


def test_a_finding_on_what_flux_rendered_names_the_object_and_the_missing_facts():
    """readers18 (rules/checks/_cluster.py): Flux's objects name no cluster; a finding on what one rendered says so."""
    from shardwise.rules.checks._cluster import flux_subject, no_cluster

    assert flux_subject("charts/vllm/templates/deployment.yaml (via HelmRelease flux-system/chat-70b)") == (
        "HelmRelease flux-system/chat-70b")
    assert flux_subject("deploy/k.yaml (kustomize build) (via Kustomization flux-system/summarize)") == (
        "Kustomization flux-system/summarize")
    # newuser17: a built object placed at its origin's line, named by its overlay and then by the Flux object
    assert flux_subject("deploy/base/d.yaml (via deploy/prod/kustomization.yaml) (via Kustomization flux-system/p)") == (
        "Kustomization flux-system/p")
    assert flux_subject("charts/vllm/templates/deployment.yaml (via Application argocd/chat)") is None
    assert flux_subject(None) is None
    assert no_cluster("a.yaml (via HelmRelease ns/x)", "GPU nodes and node pools") == (
        "; HelmRelease ns/x, which deploys it, names no cluster (Flux applies it to the cluster Flux runs in, or to the "
        "one its spec.kubeConfig Secret names), so that cluster's GPU nodes and node pools are known only where the "
        "inputs hold them")
    assert no_cluster("a.yaml", "network policies") == ""


def test_a_native_sidecars_named_ports_count_for_a_services_target_port():
    """readers18: an init container with `restartPolicy: Always` (a native sidecar, Kubernetes 1.29+ by default) runs
    for the pod's life, and the EndpointSlice controller's findPort looks up a named targetPort in its ports after the
    containers' (kubernetes staging/src/k8s.io/endpointslice/utils.go: "also support sidecar container
    (initContainer with restartPolicy=Always)"). A plain init container's ports do not count; a container's name wins
    over a sidecar's of the same name."""
    from shardwise.rules.adapters import load_text

    inv = load_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  selector: {matchLabels: {a: b}}\n"
        "  template:\n    metadata: {labels: {a: b}}\n    spec:\n      initContainers:\n"
        "      - {name: fetch, image: busybox, ports: [{name: early, containerPort: 7000}]}\n"
        "      - name: proxy\n        image: quay.io/oauth2-proxy/oauth2-proxy:v7.6.0\n        restartPolicy: Always\n"
        "        ports: [{name: https, containerPort: 8443}, {name: http, containerPort: 9999}]\n"
        "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.11.0\n"
        "        args: [--model, Qwen/Qwen2.5-7B-Instruct]\n        ports: [{name: http, containerPort: 8000}]\n"
        "        resources: {limits: {nvidia.com/gpu: 1}}\n", "vllm.yaml")
    assert [p.named for p in inv.pod_ports] == [{"http": 8000, "https": 8443}]

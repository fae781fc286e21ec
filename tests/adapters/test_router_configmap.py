"""readers16: production-stack's router (``vllm-router``) reads ``--routing-logic $(VAR)`` as kubelet expands it, from
the ConfigMaps of the inputs (``configMapKeyRef``, ``envFrom``), in the router's file or another input
(rules/adapters/k8s/router.py, configjoin.py); otherwise unknown, and SW406 names what was written."""

from __future__ import annotations

from shardwise.rules.adapters.k8s import load_kubernetes_text
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules
from shardwise.rules.model import UNKNOWN, Inventory


def sw406(inv: Inventory) -> list[tuple[str, str, int | None, str]]:
    return [(f.subject, f.message, f.location.line, f.level) for f in run_rules(ALL_RULES, inv) if f.code == "SW406"]


_ENGINES = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama, namespace: ai}
spec:
  replicas: 2
  selector: {matchLabels: {model: llama}}
  template:
    metadata: {labels: {model: llama, environment: prod}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          command: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct]
          resources: {limits: {nvidia.com/gpu: 1}}
"""
_CM_ROUTER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: router, namespace: ai}
spec:
  selector: {matchLabels: {app: router}}
  template:
    metadata: {labels: {app: router}}
    spec:
      containers:
        - name: router
          image: lmcache/lmstack-router:0.1.12
          args: [--service-discovery, k8s, --k8s-namespace, ai, --k8s-label-selector, environment=prod,
                 --routing-logic, $(ROUTING_LOGIC)]
          env:
            - name: ROUTING_LOGIC
              valueFrom: {configMapKeyRef: {name: router-config, key: logic}}
"""
_CM = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: router-config, namespace: ai}
data: {logic: roundrobin}
"""
_BALANCES = ("Deployment ai/router", "vllm-router balances Deployment ai/llama with --routing-logic roundrobin, which "
             "ignores each replica's load", 10, "advisory")


def test_router_routing_logic_from_a_configmap_of_the_inputs(tmp_path):
    """``--routing-logic $(ROUTING_LOGIC)`` set by ``configMapKeyRef`` or ``envFrom``: kubelet expands it from the
    ConfigMap, which the rules read where the inputs hold it (the router's file or another input); without it the
    logic is unknown, and SW406 names what was written (advisory)."""
    from shardwise.rules.app.run import LintOptions, lint_report

    same = load_kubernetes_text("---\n".join([_ENGINES, _CM_ROUTER, _CM]), "f.yaml")
    assert [(r.logic, r.written) for r in same.routers] == [("roundrobin", {})]
    want = (_BALANCES[0], _BALANCES[1], 25, "advisory")
    assert sw406(same) == [want]
    alone = load_kubernetes_text("---\n".join([_ENGINES, _CM_ROUTER]), "f.yaml")
    assert [(r.logic, r.written) for r in alone.routers] == [(UNKNOWN, {"--routing-logic": "$(ROUTING_LOGIC)"})]
    assert sw406(alone) == [("Deployment ai/router", "cannot decide: the router's --routing-logic `$(ROUTING_LOGIC)` "
                             "is not known (a value no literal env or ConfigMap of the inputs gives: lint the ConfigMap that sets it with the "
                             "router, or write it literally)", 25, "advisory")]
    env_from = _CM_ROUTER.replace(
        "          env:\n            - name: ROUTING_LOGIC\n              valueFrom: {configMapKeyRef: {name: "
        "router-config, key: logic}}\n", "          envFrom:\n            - configMapRef: {name: router-config}\n"
        "              prefix: ROUTING_\n")
    assert env_from != _CM_ROUTER
    cm = _CM.replace("{logic: roundrobin}", "{LOGIC: roundrobin}")
    assert [r.logic for r in load_kubernetes_text("---\n".join([env_from, cm]), "f.yaml").routers] == ["roundrobin"]
    # a Secret among the envFrom sources may set any variable: not known
    secret = env_from.replace("              prefix: ROUTING_\n",
                              "              prefix: ROUTING_\n            - secretRef: {name: s}\n")
    assert [r.logic for r in load_kubernetes_text("---\n".join([secret, cm]), "f.yaml").routers] == [UNKNOWN]
    # the ConfigMap in another file of the run: joined once every input is read
    for name, text in (("engines.yaml", _ENGINES), ("router.yaml", _CM_ROUTER), ("cm.yaml", _CM)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    report = lint_report([str(tmp_path / n) for n in ("engines.yaml", "router.yaml", "cm.yaml")],
                         LintOptions(jobs=1))
    assert [(f.subject, f.message, f.location.line) for f in report.findings if f.code == "SW406"] == [
        (_BALANCES[0], _BALANCES[1], _BALANCES[2])]

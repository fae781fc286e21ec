"""The Deployment the catalog's family tests lint: one vLLM server of ``model`` at TP ``tp`` on ``instance``.

Each round of new catalog families checks that a manifest serving every new model is decided (no SW004, no
"cannot decide") and gets only the findings its layout earns; they all lint this one shape."""

from __future__ import annotations

from pathlib import Path

from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import Finding, run_rules

_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: server
  namespace: llm
spec:
  replicas: {replicas}
  selector:
    matchLabels:
      app: llm
  template:
    metadata:
      labels:
        app: llm
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: {instance}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.20.0
          command: ["vllm", "serve"]
          args: [{model}, --tensor-parallel-size, "{tp}", --max-model-len, "32768"{extra}]
          resources:
            limits:
              nvidia.com/gpu: {tp}
"""


def deployment(model: str, tp: int, *, replicas: int = 1, instance: str = "p5.48xlarge", extra: str = "") -> str:
    """The manifest's text; ``extra``: more vLLM arguments, written as ``, --flag, value``."""
    return _DEPLOYMENT.format(model=model, tp=tp, replicas=replicas, instance=instance, extra=extra)


def lint(tmp_path: Path, text: str) -> list[Finding]:
    """Every finding of linting ``text`` as one file."""
    path = tmp_path / "server.yaml"
    path.write_text(text)
    return run_rules(ALL_RULES, load_inputs([str(path)]))

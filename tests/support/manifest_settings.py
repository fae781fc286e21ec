"""The engine settings shardwise reads from a one-GPU vLLM Deployment written with the flags a test gives: for the
tests that check a manifest's flag reaches the capacity model, as a team would write it."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def engine_settings_for(tmp_path: Path, image_tag: str, args: str, flags: str = "") -> Any:
    """``args`` and ``flags``: the args list's items as written in YAML (``"--model", "org/m"``); ``flags`` starts
    with a comma when given."""
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.capacity.group import engine_settings

    path = tmp_path / "deploy.yaml"
    path.write_text(f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: qwen}}
spec:
  selector: {{matchLabels: {{app: qwen}}}}
  template:
    metadata: {{labels: {{app: qwen}}}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:{image_tag}
          args: [{args}{flags}]
          resources:
            limits: {{nvidia.com/gpu: 1}}
""")
    [g] = load_inputs([str(path)]).groups
    return engine_settings(g)

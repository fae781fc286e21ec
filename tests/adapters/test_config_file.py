"""vLLM's ``--config FILE`` read from the ConfigMap the container mounts there (adapters/k8s/configfile.py).

The shape is leehosanganson/homelab's kubernetes/apps/vllm: ``vllm serve --config /etc/vllm/config.yaml`` in a
``sh -c``, the file a ConfigMap key mounted with ``subPath``; here the ConfigMap and the Deployment share a file.
"""

from __future__ import annotations

from shardwise.rules.adapters.k8s import load_kubernetes_text
from shardwise.rules.model import UNKNOWN

CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: vllm-config
data:
  config.yaml: |
    model: unsloth/Qwen3-8B-unsloth-bnb-4bit
    # model: openai/gpt-oss-20b
    uvicorn-log-level: "info"
    max_num_seqs: 4
    max_model_len: 20480
    enforce_eager: true
    enable_prefix_caching: false
    tensor-parallel-size: 1
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm-backend
spec:
  selector:
    matchLabels: {app: llm-backend}
  template:
    metadata:
      labels: {app: llm-backend}
    spec:
      volumes:
        - name: vllm-config-volume
          configMap:
            name: vllm-config
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: ["/bin/sh", "-c"]
          args:
            - vllm serve --config /etc/vllm/config.yamlEXTRA
          resources:
            limits:
              nvidia.com/gpu: 1
          volumeMounts:
            - name: vllm-config-volume
              mountPath: MOUNT
SUB"""


def _deployment(extra: str, mount: str, sub: str) -> str:
    return DEPLOYMENT.replace("EXTRA", extra).replace("MOUNT", mount).replace("SUB", sub)


def _engine(text: str):
    [g] = load_kubernetes_text(text, "vllm.yaml").groups
    return g.engine


def test_the_config_file_from_a_configmap_of_the_input_is_read():
    e = _engine(CONFIG_MAP + "---\n" + _deployment(extra="", mount="/etc/vllm/config.yaml",
                                                          sub="              subPath: config.yaml\n"))
    assert (e.model, e.max_num_seqs, e.max_model_len, e.tensor_parallel_size, e.enforce_eager) == (
        "unsloth/Qwen3-8B-unsloth-bnb-4bit", 4, 20480, 1, True)
    assert e.gpu_memory_utilization is None  # not in the file: not set (vLLM's default), no longer unknown


def test_the_command_line_wins_over_the_config_file_and_a_mounted_folder_works():
    e = _engine(_deployment(extra=" --max-model-len 8192", mount="/etc/vllm", sub="") + "---\n" + CONFIG_MAP)
    assert (e.model, e.max_model_len, e.max_num_seqs) == ("unsloth/Qwen3-8B-unsloth-bnb-4bit", 8192, 4)


def test_a_config_file_not_in_the_input_leaves_the_settings_unknown():
    e = _engine(_deployment(extra="", mount="/etc/vllm/config.yaml", sub="              subPath: config.yaml\n"))
    assert e.model is UNKNOWN and e.max_model_len is UNKNOWN and e.extra["config"] == "/etc/vllm/config.yaml"


def test_a_configmap_of_that_name_in_another_namespace_is_not_the_pods():
    """kubelet mounts ``configMap.name`` from the pod's namespace: a vllm-config of namespace prod in the inputs
    is not the file of a pod in namespace dev (its settings stay unknown); the pod of prod reads it."""
    prod = CONFIG_MAP.replace("  name: vllm-config\n", "  name: vllm-config\n  namespace: prod\n")
    sub = "              subPath: config.yaml\n"
    dev = _deployment(extra="", mount="/etc/vllm/config.yaml", sub=sub).replace(
        "  name: llm-backend\n", "  name: llm-backend\n  namespace: dev\n", 1)
    e = _engine(prod + "---\n" + dev)
    assert e.model is UNKNOWN and e.max_model_len is UNKNOWN
    e = _engine(prod + "---\n" + dev.replace("namespace: dev", "namespace: prod"))
    assert (e.model, e.max_model_len) == ("unsloth/Qwen3-8B-unsloth-bnb-4bit", 20480)

"""Engine flags written as ``$(VAR)`` where ``VAR`` comes from ``valueFrom.configMapKeyRef`` of a ConfigMap in the
same input (adapters/k8s/pods.py ``_env``, adapters/k8s/configfile.py ``config_map_key``).

kubelet resolves each env entry, a ConfigMap key included, before it expands ``$(VAR)`` in the command and
args (Kubernetes' "Define dependent environment variables"; kubelet makeEnvironmentVariables). The shape is
ovh/public-cloud-examples' gpu-cluster-for-vllm-deployment-and-observability/vllm/vllm-deployment-2nodes.yaml
(wide corpus batch 14): every engine flag is ``$(NAME)``, each from a key of ConfigMap ``vllm-config`` written
above the Deployment in the same file. It was read as an unknown model, TP and gpu_memory_utilization. A
ConfigMap that is not in the input, a key it lacks, or a name that two ConfigMaps of the input share leaves the
value unknown, as before.
"""

from __future__ import annotations

from shardwise.rules.adapters.k8s import load_kubernetes_text
from shardwise.rules.model import UNKNOWN

CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: vllm-config
  namespace: NS
data:
  model_name: "Qwen/Qwen3-VL-8B-Instruct"
  tensor_parallel_size: "2"
  gpu_memory_utilization: "0.90"
  max_model_len: "8192"
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen3-vl
  namespace: vllm
spec:
  selector:
    matchLabels: {app: qwen3-vl}
  template:
    metadata:
      labels: {app: qwen3-vl}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        command: [python3, -m, vllm.entrypoints.openai.api_server]
        args:
          - --model
          - $(MODEL_NAME)
          - --tensor-parallel-size
          - $(TENSOR_PARALLEL_SIZE)
          - --gpu-memory-utilization
          - $(GPU_MEMORY_UTILIZATION)
          - --max-model-len
          - $(MAX_MODEL_LEN)
        env:
        - name: MODEL_NAME
          valueFrom:
            configMapKeyRef: {name: vllm-config, key: model_name}
        - name: TENSOR_PARALLEL_SIZE
          valueFrom:
            configMapKeyRef: {name: vllm-config, key: tensor_parallel_size}
        - name: GPU_MEMORY_UTILIZATION
          valueFrom:
            configMapKeyRef: {name: vllm-config, key: KEY}
        - name: MAX_MODEL_LEN
          valueFrom:
            configMapKeyRef: {name: vllm-config, key: max_model_len}
        - name: HUGGING_FACE_HUB_TOKEN
          valueFrom:
            secretKeyRef: {name: huggingface-secret, key: token}
        resources:
          limits:
            nvidia.com/gpu: 2
"""


def _engine(text: str):
    [g] = load_kubernetes_text(text, "vllm.yaml").groups
    return g.engine


def _deployment(key: str = "gpu_memory_utilization") -> str:
    return DEPLOYMENT.replace("KEY", key)


def test_flags_from_a_configmap_of_the_input_are_read():
    e = _engine(CONFIG_MAP.replace("NS", "vllm") + "---\n" + _deployment())
    assert (e.model, e.tensor_parallel_size, e.gpu_memory_utilization, e.max_model_len) == (
        "Qwen/Qwen3-VL-8B-Instruct", 2, 0.9, 8192)


def test_the_configmap_may_follow_the_workload():
    e = _engine(_deployment() + "---\n" + CONFIG_MAP.replace("NS", "vllm"))
    assert (e.model, e.tensor_parallel_size, e.max_model_len) == ("Qwen/Qwen3-VL-8B-Instruct", 2, 8192)


def test_a_configmap_not_in_the_input_leaves_the_flags_unknown():
    e = _engine(_deployment())
    assert e.model is UNKNOWN and e.tensor_parallel_size is UNKNOWN and e.max_model_len is UNKNOWN


def test_a_key_the_configmap_lacks_leaves_that_flag_unknown():
    e = _engine(CONFIG_MAP.replace("NS", "vllm") + "---\n" + _deployment(key="gmu"))
    assert e.gpu_memory_utilization is UNKNOWN
    assert (e.model, e.tensor_parallel_size) == ("Qwen/Qwen3-VL-8B-Instruct", 2)


def test_two_configmaps_of_that_name_in_the_pods_namespace_leave_the_flags_unknown():
    twin = CONFIG_MAP.replace("NS", "vllm").replace('"2"', '"4"')
    e = _engine(CONFIG_MAP.replace("NS", "vllm") + "---\n" + twin + "---\n" + _deployment())
    assert e.tensor_parallel_size is UNKNOWN and e.model is UNKNOWN


def test_a_configmap_of_that_name_in_another_namespace_is_not_the_pods():
    """kubelet looks configMapKeyRef.name up in the pod's namespace: staging's vllm-config (TP 4) is not read for a
    pod in vllm, whether vllm's own is in the input (then it is read alone) or not (then the flags stay unknown)."""
    staging = CONFIG_MAP.replace("NS", "staging").replace('"2"', '"4"')
    e = _engine(CONFIG_MAP.replace("NS", "vllm") + "---\n" + staging + "---\n" + _deployment())
    assert (e.model, e.tensor_parallel_size) == ("Qwen/Qwen3-VL-8B-Instruct", 2)
    e = _engine(staging + "---\n" + _deployment())
    assert e.tensor_parallel_size is UNKNOWN and e.model is UNKNOWN


def test_an_unset_namespace_is_default_on_either_side():
    unset = CONFIG_MAP.replace("  namespace: NS\n", "")
    e = _engine(unset + "---\n" + _deployment().replace("  namespace: vllm\n", ""))
    assert e.tensor_parallel_size == 2
    e = _engine(unset + "---\n" + _deployment())  # the ConfigMap in default, the pod in vllm
    assert e.tensor_parallel_size is UNKNOWN
    e = _engine(CONFIG_MAP.replace("NS", "default") + "---\n" + _deployment().replace("  namespace: vllm\n", ""))
    assert e.tensor_parallel_size == 2


ENV_FROM = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-openai
  namespace: vllm
spec:
  selector:
    matchLabels: {app: vllm-openai}
  template:
    metadata:
      labels: {app: vllm-openai}
    spec:
      containers:
      - name: vllm-openai
        image: vllm/vllm-openai:v0.11.0
        args: ["--model", "$(VLLM_MODEL)", "--tensor-parallel-size", "$(TP)", "--port", "$(VLLM_PORT)"]
        envFrom:
        - configMapRef:
            name: vllm-openai-config
SOURCES
        env:
        - name: VLLM_PORT
          value: "8001"
        resources:
          limits:
            nvidia.com/gpu: 2
"""

ENV_FROM_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: vllm-openai-config
  namespace: NS
data:
  VLLM_MODEL: "TinyLlama/TinyLlama-1.1B-Chat-v1.0"
  TP: "2"
  VLLM_PORT: "8000"
"""


def _env_from(sources: str = "") -> str:
    return ENV_FROM.replace("SOURCES\n", sources)


def test_flags_from_an_envfrom_configmap_of_the_input_are_read():
    """QuentinHamonic/llm-ops-sandbox's k8s/vllm (wide corpus batch 15): every flag is $(VAR) of a ConfigMap the
    container takes whole by envFrom; kubelet sets its keys first, then env over them (VLLM_PORT), then expands."""
    e = _engine(ENV_FROM_MAP.replace("NS", "vllm") + "---\n" + _env_from())
    assert (e.model, e.tensor_parallel_size, e.port) == ("TinyLlama/TinyLlama-1.1B-Chat-v1.0", 2, 8001)


def test_an_envfrom_prefix_names_the_variables():
    prefixed = _env_from().replace("        - configMapRef:\n", "        - prefix: CFG_\n          configMapRef:\n")
    e = _engine(ENV_FROM_MAP.replace("NS", "vllm") + "---\n" + prefixed.replace("$(TP)", "$(CFG_TP)"))
    assert e.tensor_parallel_size == 2
    inv = load_kubernetes_text(ENV_FROM_MAP.replace("NS", "vllm") + "---\n" + prefixed, "vllm.yaml")
    [g] = inv.groups  # unprefixed, $(VLLM_MODEL) and $(TP) are defined by nothing: kubelet keeps them as written
    assert g.engine.tensor_parallel_size is UNKNOWN
    assert any("$(VLLM_MODEL), which the container" in i.reason for i in inv.launch_issues)


def test_an_envfrom_that_is_not_all_configmaps_of_the_input_leaves_the_flags_unknown():
    secret = "        - secretRef:\n            name: hf-token\n"
    e = _engine(ENV_FROM_MAP.replace("NS", "vllm") + "---\n" + _env_from(secret))
    assert e.model is UNKNOWN and e.tensor_parallel_size is UNKNOWN
    e = _engine(_env_from())  # the ConfigMap is not in the input
    assert e.model is UNKNOWN and e.tensor_parallel_size is UNKNOWN
    e = _engine(ENV_FROM_MAP.replace("NS", "staging") + "---\n" + _env_from())  # another namespace's
    assert e.model is UNKNOWN and e.tensor_parallel_size is UNKNOWN

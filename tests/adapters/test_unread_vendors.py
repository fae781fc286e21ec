"""readers16: serving objects whose engine settings are not in the inputs say so (SW005, advisory), never a silent
pass: AMD AIM Engine's kinds (aim.eai.amd.com, amd-enterprise-ai/aim-engine v0.2.1) and OCI AI Blueprints recipes
(oracle-quickstart/oci-ai-blueprints v1.0.11), in the shapes of their public samples."""

from __future__ import annotations

from shardwise.rules.adapters.k8s.unread import AIM_WHY
from shardwise.rules.adapters.load import load_text
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules
from shardwise.rules.model import Inventory


def sw005(inv: Inventory) -> list[tuple[str, str, int | None, str]]:
    return [(f.subject, f.message, f.location.line, f.level) for f in run_rules(ALL_RULES, inv) if f.code == "SW005"]


# aim-engine's e2e test tests/e2e/aimservice/common/autoscaling/service.yaml (v0.2.1), as the wide corpus holds it
_AIM_SERVICE = """\
# Service with autoscaling configuration
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMService
metadata:
  name: test-autoscaling-service
spec:
  model:
    name: test-autoscaling-model
  minReplicas: 1
  maxReplicas: 3
"""
_AIM_MODEL = """\
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMModel
metadata:
  name: custom
spec:
  image: amdenterpriseai/aim-base:0.8
  custom:
    templates:
      - name: mi300x
        env:
          - name: VLLM_USE_V1
            value: "1"
"""


def test_aim_objects_say_why_they_are_not_read():
    assert sw005(load_text(_AIM_SERVICE, "svc.yaml")) == [(
        "AIMService default/test-autoscaling-service",
        "not read: it is an AMD AIM AIMService, whose engine is vLLM or another as the AIM image's profile says, and "
        + AIM_WHY, 2, "advisory")]
    [(subject, message, line, level)] = sw005(load_text(_AIM_MODEL, "model.yaml"))
    assert (subject, line, level) == ("AIMModel default/custom", 11, "advisory")
    assert message == f"not read: it mentions vLLM (vLLM's environment variable VLLM_USE_V1) but {AIM_WHY}"
    # another group's AIMService is no AIM object: nothing names vLLM, nothing to say
    assert sw005(load_text(_AIM_SERVICE.replace("aim.eai.amd.com", "example.com"), "svc.yaml")) == []


# docs/sample_blueprints/model_serving/llm_inference_with_vllm/vllm-open-hf-model.json (oci-ai-blueprints v1.0.11)
_RECIPE = """\
{
  "recipe_id": "llm_inference_nvidia",
  "recipe_mode": "service",
  "deployment_name": "vllm-open-hf-model",
  "recipe_image_uri": "docker.io/vllm/vllm-openai:v0.9.1",
  "recipe_node_shape": "VM.GPU.A10.2",
  "recipe_container_env": [
    {"key": "tensor_parallel_size", "value": "2"},
    {"key": "model_name", "value": "NousResearch/Meta-Llama-3-8B-Instruct"}
  ],
  "recipe_replica_count": 1,
  "recipe_nvidia_gpu_count": 2,
  "recipe_container_command_args": ["--model", "$(model_name)", "--tensor-parallel-size", "$(tensor_parallel_size)"]
}
"""


def test_oci_recipe_naming_vllm_says_why_it_is_not_read():
    inv = load_text(_RECIPE, "recipe.json")
    assert inv.skipped_files == [] and inv.groups == []
    assert sw005(inv) == [(
        "OCI AI Blueprints recipe vllm-open-hf-model",
        "not read: it mentions vLLM (the vLLM image docker.io/vllm/vllm-openai:v0.9.1) but it is an OCI AI Blueprints "
        "recipe (recipe_node_shape 'VM.GPU.A10.2'; recipe_nvidia_gpu_count 2; recipe_replica_count 1; arguments "
        "`--model NousResearch/Meta-Llama-3-8B-Instruct --tensor-parallel-size 2`), which the blueprints control "
        "plane turns into pods on OKE in a way the blueprints repository does not publish (only the recipe's schema: "
        "how the pods are placed on the shape's nodes, how a multi-node recipe is spread and where the shared memory "
        "is mounted are not given): shardwise does not read recipes, so lint the Deployment the "
        "blueprint creates (kubectl get deployment -o yaml)", 5, "advisory")]
    # a recipe of another image and no vLLM flag (a fine-tuning job): skipped, saying what it is
    other = _RECIPE.replace("docker.io/vllm/vllm-openai:v0.9.1", "iad.ocir.io/x/trainer:1").replace(
        '"--model", "$(model_name)", "--tensor-parallel-size", "$(tensor_parallel_size)"', '"--epochs", "3"')
    inv = load_text(other, "recipe.json")
    assert (inv.skipped_files, sw005(inv)) == (
        [("recipe.json", "OCI AI Blueprints recipe that names no vLLM image or flag")], [])

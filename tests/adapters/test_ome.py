"""OME (ome.io) read through the real Kubernetes adapter: an InferenceService is linted as what OME deploys for
it, its runtime's pod with the service's replicas, engine and decoder overrides, namespace and base model, when
the runtime is anywhere in the inputs; a service whose runtime is not, or that names none, is undecided (SW005).

The fixtures under fixtures/k8s/ome/ are written in the shapes of OME's v1beta1 API (pkg/apis/ome/v1beta1:
InferenceService, ServingRuntime, ClusterServingRuntime, BaseModel, ClusterBaseModel) and its runtimes under
config/runtimes; each test asserts every group and every finding exactly.
"""

from __future__ import annotations

import os
import pickle

from repo_paths import FIXTURES
from shardwise.rules.adapters import load_file, load_inputs, load_text
from shardwise.rules.adapters.k8s import load_kubernetes_text, resolve_pools
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, run_rules
from shardwise.rules.model import UNKNOWN, Inventory, ServingGroup

FIX = os.path.join(FIXTURES, "k8s", "ome")


def load(*names: str) -> Inventory:
    return load_inputs([os.path.join(FIX, n) for n in names])


def text_of(name: str) -> str:
    with open(os.path.join(FIX, name), encoding="utf-8") as f:
        return f.read()


def show(v: object) -> object:
    return "UNKNOWN" if v is UNKNOWN else v


def groups(inv: Inventory) -> list[tuple]:
    """(kind, namespace, name, line, model, TP, PP, max_model_len, GPUs per pod, replicas, pods per group, pool,
    template)"""
    return [(g.kind, g.namespace, g.name, g.location.line, show(g.engine.model), g.engine.tensor_parallel_size,
             g.engine.pipeline_parallel_size, g.engine.max_model_len, show(g.gpus_per_pod), show(g.replicas),
             show(g.pods_per_group), g.pool.name if g.pool else None, g.template) for g in inv.groups]


def the_group(inv: Inventory, expected: tuple) -> ServingGroup:
    """The one group of ``inv``, after asserting it is ``expected`` (as :func:`groups` writes a group)."""
    assert groups(inv) == [expected]
    return inv.groups[0]


def findings(inv: Inventory) -> list[tuple]:
    return [(f.code, f.level, os.path.basename(f.location.file or ""), f.location.line, f.undecided, f.message)
            for f in run_rules(ALL_RULES, inv, LintConfig())]


def test_a_service_is_linted_as_its_runtimes_pod_with_its_own_overrides():
    inv = load("llama-8b-on-l4.yaml")
    # the runtime's runner (its --max-model-len 131072, 1 GPU, /dev/shm), the service's namespace, replicas
    # (minReplicas 2) and node selector (L4), the model from the ClusterBaseModel's storageUri; the runtime is
    # not linted alone as well
    g = the_group(inv, ("InferenceService", "chat", "llama-chat", 81, "meta-llama/Llama-3.1-8B-Instruct", 1, 1,
                        131072, 1, 2, 1, "instance-type=g6.xlarge", False))
    assert ({k: v.line for k, v in g.engine.locations.items()}, g.at("replicas").line, g.at("nodeSelector").line,
            g.main_container.name, [v.name for v in g.volumes]) == (
        {"model": 19, "port": 55, "served_model_name": 56, "max_model_len": 57}, 82, 84, "ome-container", ["dshm"])
    assert findings(inv) == [
        ("SW102", "mandatory", "llama-8b-on-l4.yaml", 57, False, "meta-llama/Llama-3.1-8B-Instruct at "
         "TP1×PP1 on L4 (vLLM 0.10.1 from the image tag): one request of 131,072 tokens needs 16.00 GiB of KV cache "
         "per GPU; about 4.18 GiB (−0.9/+0.8) is left after 15.0 GiB of weights and 0.5 GiB of activations; vLLM will "
         "refuse to start; --max-model-len 26624 fits")]


def test_runtime_service_and_model_in_different_files_are_joined():
    inv = load("cross-file")
    # the runtime of the older shape (its pod at the top of its spec, ome-container the engine), its TP4 script
    # serving $MODEL_PATH; the service asks for 2 GPUs per pod and 3 replicas; each field points at its file
    g = the_group(inv, ("InferenceService", "llm", "llama-70b", 15, "meta-llama/Llama-3.3-70B-Instruct", 4, 1, 65536,
                        2, 3, 1, "instance-type=p5.48xlarge", False))
    where = {k: (os.path.basename(v.file or ""), v.line) for k, v in g.locations.items()
             if k in ("resources", "replicas", "affinity", "image")}
    assert where == {"resources": ("service.yaml", 19), "replicas": ("service.yaml", 16),
                     "affinity": ("runtime.yaml", 27), "image": ("runtime.yaml", 37)}
    assert {k: (os.path.basename(v.file or ""), v.line) for k, v in g.engine.locations.items()
            if k in ("model", "tensor_parallel_size")} == {
        "model": ("model.yaml", 13), "tensor_parallel_size": ("runtime.yaml", 45)}
    assert findings(inv) == [
        ("SW106", "advisory", "runtime.yaml", 45, False, "meta-llama/Llama-3.3-70B-Instruct takes 4 GPUs a "
         "replica (TP4×PP1, bf16); a 4-bit AWQ/GPTQ variant (39.8 GB of weights) fits on one H100-SXM-80GB, so those 4 "
         "GPUs could run 4 one-GPU replicas holding 48 sequences of 8,192 tokens (p95 context) together, where TP4×PP1 "
         "holds 54 (both central estimates; 49 beyond its error band); declare the load (annotation "
         "shardwise.dev/target-concurrency) to have it judged (vLLM 0.10.1 from the image tag)"),
        # the service's 2 GPUs do not hold the runtime's TP4; OME may add GPUs from an accelerator class: advisory
        ("SW204", "advisory", "service.yaml", 19, False, "the pod requests 2 nvidia.com/gpu but TP4×PP1 starts "
         "4 workers; vLLM cannot start with fewer GPUs than workers; write nvidia.com/gpu: 4 under the vLLM container's resources.limits "
         "(advisory: the operator of this InferenceService "
         "builds the pod and may add it; lint the pod it renders to make this finding blocking)"),
    ]


def test_files_read_apart_and_merged_are_joined_like_one_run():
    """Each file is read alone (in a forked reader, pickled back) and the inventories merged: the runtime's
    template group and the service's SW005 record give way to the joined group."""
    pieces = [load_file(os.path.join(FIX, "cross-file", f"{n}.yaml")) for n in ("service", "runtime", "model")]
    assert [(len(p.groups), len(p.launch_issues)) for p in pieces] == [(0, 1), (1, 0), (0, 0)]
    inv = Inventory()
    for piece in pieces:
        inv.extend(pickle.loads(pickle.dumps(piece)))
    resolve_pools(inv)
    assert [(g.name, g.engine.model, g.gpus_per_pod) for g in inv.groups] == [
        ("llama-70b", "meta-llama/Llama-3.3-70B-Instruct", 2)]
    assert inv.launch_issues == []


def test_a_runtime_alone_is_a_template_and_a_service_alone_is_undecided():
    runtime = load(os.path.join("cross-file", "runtime.yaml"))
    assert [(g.kind, g.name, g.template, show(g.replicas)) for g in runtime.groups] == [
        ("ClusterServingRuntime", "vllm-llama-3-3-70b-instruct", True, "UNKNOWN")]
    service = load(os.path.join("cross-file", "service.yaml"))
    assert (service.groups, findings(service)) == ([], [
        ("SW005", "advisory", "service.yaml", 14, True, "not read: OME deploys it on the ServingRuntime or "
         "ClusterServingRuntime `vllm-llama-3-3-70b-instruct`, which is not in the inputs, so what it runs (the vLLM "
         "command, its layout, GPUs and image) is not known: lint it together with that runtime")])


def test_services_whose_runtime_is_not_known_are_undecided_never_passed():
    inv = load("unlinked.yaml")
    assert inv.groups == []
    assert findings(inv) == [
        ("SW005", "advisory", "unlinked.yaml", 12, True, "not read: OME deploys it on the ServingRuntime or "
         "ClusterServingRuntime `vllm-mistral-7b-instruct`, which is not in the inputs, so what it runs (the vLLM "
         "command, its layout, GPUs and image) is not known: lint it together with that runtime"),
        ("SW005", "advisory", "unlinked.yaml", 22, True, "not read: it names no runtime (spec.runtime), so OME "
         "picks one when it deploys it: a runtime whose supportedModelFormats (with autoSelect) match the format and "
         "architecture of the BaseModel or ClusterBaseModel `llama-3-3-70b-instruct` and whose modelSizeRange holds "
         "its size; shardwise does not guess that pick: set spec.runtime.name and lint the service together with "
         "that runtime"),
    ]


def test_a_leader_and_worker_engine_is_one_multi_node_group():
    inv = load("multi-node.yaml")
    # leader + worker.size 1: 2 pods, TP8 in each node, PP2 across, EFA in both: nothing to report
    g = the_group(inv, ("InferenceService", "llm", "llama-405b", 95, "meta-llama/Llama-3.1-405B-Instruct", 8, 2,
                        16384, 8, 2, 2, "instance-type=p5.48xlarge", False))
    assert g.main_container is not None and g.main_container.env["LWS_GROUP_SIZE"] == "2"
    assert findings(inv) == []


def test_engine_and_decoder_are_each_their_own_group():
    inv = load("prefill-decode.yaml")
    # the namespaced ServingRuntime and BaseModel of the service's namespace; the runtime's top nodeSelector
    # under both components; the decoder's own replicas and GPU request
    assert groups(inv) == [
        ("InferenceService", "pd", "qwen3-pd/engine", 69, "Qwen/Qwen3-8B", 1, 1, 16384, 1, 1, 1,
         "instance-type=g6e.xlarge", False),
        ("InferenceService", "pd", "qwen3-pd/decoder", 71, "Qwen/Qwen3-8B", 1, 1, 16384, 2, 3, 1,
         "instance-type=g6e.xlarge", False),
    ]
    # the decoder's 2 GPUs on a 1-GPU g6e.xlarge: the pod never schedules (SW201), and one of them would idle
    assert findings(inv) == [
        ("SW201", "mandatory", "prefill-decode.yaml", 74, False, "a pod of this workload requests 2 nvidia.com/gpu "
         "for TP1×PP1, but a node of pool `instance-type=g6e.xlarge` has 1, so the pod stays Pending (Insufficient "
         "nvidia.com/gpu); select a pool with 2 or more GPUs per node, or request the 1 nvidia.com/gpu TP1×PP1 uses"),
        ("SW208", "advisory", "prefill-decode.yaml", 74, False, "the pod requests 2 nvidia.com/gpu but "
         "TP1×PP1 uses 1; 1 GPU stays reserved and idle per pod")]


def test_a_base_model_not_in_the_inputs_is_named_in_sw004():
    inv = load("model-missing.yaml")
    assert groups(inv) == [
        ("InferenceService", "ml", "custom-model", 19, "UNKNOWN", 2, 1, None, 2, 1, 1, "instance-type=g6e.12xlarge",
         False)]
    sw004 = [m for code, _, _, _, _, m in findings(inv) if code == "SW004"]
    assert sw004 == [
        "shardwise does not know the model: it is the weights of the BaseModel or ClusterBaseModel "
        "`team-finetune-32b` that OME mounts at $MODEL_PATH, which is not in the inputs: lint them together, or name "
        "the model with the annotation shardwise.dev/base-model; SW101, SW102, SW104, SW106, SW202, SW203 could not "
        "run on it"]


def test_a_base_model_stored_elsewhere_than_hugging_face_names_no_model():
    text = "---\n".join(text_of(os.path.join("cross-file", f"{n}.yaml")) for n in ("model", "runtime", "service"))
    inv = load_kubernetes_text(text.replace("hf://meta-llama/Llama-3.3-70B-Instruct",
                                            "oci://n/ai/b/models/o/llama-3-3-70b"), "all.yaml")
    assert [(show(g.engine.model), g.model_unknown) for g in inv.groups] == [(
        "UNKNOWN", "it is the weights of the ClusterBaseModel `llama-3-3-70b-instruct` that OME mounts at $MODEL_PATH, "
        "whose spec.storage.storageUri (oci://n/ai/b/models/o/llama-3-3-70b) is not a Hugging Face repository "
        "(hf://org/name): lint them together, or name the model with the annotation shardwise.dev/base-model")]


def test_a_namespaced_runtime_is_found_only_in_the_services_namespace():
    text = text_of("prefill-decode.yaml")
    inv = load_kubernetes_text(text.replace("  name: qwen3-pd\n  namespace: pd", "  name: qwen3-pd\n  namespace: x"),
                               "pd.yaml")
    assert [(g.kind, g.name, g.template) for g in inv.groups] == [
        ("ServingRuntime", "vllm-qwen3-8b-pd", True),
        ("ServingRuntime", "vllm-qwen3-8b-pd/decoderConfig", True)]
    assert [i.subject for i in inv.launch_issues] == ["InferenceService x/qwen3-pd"]


def test_a_service_field_of_the_wrong_type_is_an_input_error_at_its_line():
    text = text_of("llama-8b-on-l4.yaml").replace("    minReplicas: 2\n", "    minReplicas: two\n")
    inv = load_text(text, "bad.yaml")
    assert [(e.line, e.message) for e in inv.errors] == [(82, "spec.engine.minReplicas: expected an integer, got 'two'")]


def test_resolve_pools_tells_kserve_cross_references_from_omes_by_their_kind():
    """resolve_pools imports OME's joiner only for OME references and KServe's only for KServe's, telling them
    apart by the ``kserve `` prefix of KServe's reference kinds, and joins Ingresses to their classes by the
    ``ingress class`` prefix of the network reader's: no OME kind may carry either."""
    from shardwise.rules.adapters.k8s import groups, kserve, network

    assert kserve.SERVICE_REF.startswith("kserve ") and kserve.RUNTIME_REF.startswith("kserve ")
    assert network.INGRESS_CLASS_REF.startswith("ingress class")
    assert network.INGRESS_PARAMS_REF.startswith("ingress class")
    ome_kinds = {groups.OME_SERVICE, *groups.OME_RUNTIME_KINDS, *groups.OME_MODEL_KINDS}
    assert ome_kinds and not any(k.startswith(("kserve ", "ingress class")) for k in ome_kinds)


def test_an_ingress_class_alone_loads_no_ome_joiner():
    """Inputs whose only cross references are an IngressClass and its params: OME's joiner is not imported."""
    import subprocess
    import sys

    code = ("import sys\nfrom shardwise.rules.adapters.k8s.inventory import inventory_from_documents\n"
            "from shardwise.rules.adapters.k8s.nodes import resolve_pools\n"
            "from shardwise.rules.adapters.yamlsrc import load_documents\n"
            "text = 'apiVersion: networking.k8s.io/v1\\nkind: IngressClass\\nmetadata: {name: alb}\\n"
            "spec: {controller: eks.amazonaws.com/alb}\\n'\n"
            "inv = inventory_from_documents(load_documents(text, 'c.yaml'), text, 'c.yaml')\n"
            "assert [r.kind for r in inv.cross_refs] == ['ingress class'], inv.cross_refs\n"
            "resolve_pools(inv)\n"
            "print('shardwise.rules.adapters.k8s.ome' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

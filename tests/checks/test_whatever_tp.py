"""A --tensor-parallel-size not known yet where vLLM refuses every TP the pod's GPUs allow (mend17): one blocking
finding, of the rule that refuses the largest TP (SW101 where the weights may not fit there, SW102 where only the KV
cache does not), and SW101, SW102 and SW104 leave the "cannot decide" the other rules still share. Where some TP
may start, or the command exits as written (SW003), nothing moves. The messages are in the fixtures
SW102/tp-unknown.yaml and SW101/tp-unknown.yaml; this asserts what each workload gets from every rule, merged as the
reports merge it."""

from __future__ import annotations

import contextlib
import io
import json

from repo_paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "rules"
#: What holds back the topology rules where TP is not known: SW106 onwards, once SW101, SW102 and SW104 are decided.
REST = ["SW106", "SW201", "SW202", "SW203", "SW204", "SW208", "SW401"]
ALL = ["SW101", "SW102", "SW104", *REST]


def _findings(path: str) -> list[tuple[str, str, list[str], str]]:
    from shardwise.rules.app.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(["lint", str(FIXTURES / path), "--format", "json", "--fail-on", "none"])
    return [(f["subject"].removeprefix("Deployment serving/"), f["level"], f["codes"], f["message"].split(": ")[1])
            for f in json.loads(buf.getvalue())["findings"] if f["code"] != "SW305"]


def test_every_tp_refused_is_one_finding_of_the_rule_that_refuses_the_largest() -> None:
    assert _findings("SW102/tp-unknown.yaml") == [
        ("llama70b-h100-tp-envsubst", "mandatory", ["SW102"], "whatever --tensor-parallel-size is (not known yet; TP × PP cannot exceed the 2 nvidia.com/gpu a pod gets, so at most 2), meta-llama/Llama-3.1-70B-Instruct in bf16 does not start on H100-SXM-80GB, where gpu_memory_utilization 0.9 × 79.2 GiB allows 71.3 GiB per GPU"),  # noqa: E501
        ("llama70b-h100-tp-envsubst", "advisory", REST, "cannot decide"),
        ("vllm-llama70b", "mandatory", ["SW102"], "whatever --tensor-parallel-size is (not known yet; TP × PP cannot exceed the 4 nvidia.com/gpu a pod gets, so at most 4), meta-llama/Llama-3.1-70B-Instruct in bf16 does not start on A100-40GB, where gpu_memory_utilization 0.9 × 39.4 GiB allows 35.5 GiB per GPU"),  # noqa: E501
        ("vllm-llama70b", "advisory", REST, "cannot decide"),
        ("llama8b-l4-tp-placeholder", "mandatory", ["SW102"], "whatever --tensor-parallel-size is (not known yet; TP × PP cannot exceed the 1 nvidia.com/gpu a pod gets, so at most 1), meta-llama/Llama-3.1-8B-Instruct in bf16 does not start on L4, where gpu_memory_utilization 0.9 × 22.0 GiB allows 19.8 GiB per GPU"),  # noqa: E501
        ("llama8b-l4-tp-placeholder", "advisory", REST, "cannot decide"),
        # TP2 starts on two L4s: undecided, as before
        ("llama8b-l4x2-tp-placeholder", "advisory", ALL, "cannot decide"),
        # `${TP_SIZE}` with no shell: vLLM exits on the flag as written, which holds every capacity rule back
        ("llama70b-h100-tp-unexpanded", "mandatory", ["SW003"], "container 'vllm'"),
        ("llama70b-h100-tp-unexpanded", "advisory", ALL, "held back by the SW003 error"),
    ]


def test_the_weights_refusal_at_the_largest_tp_is_sw101_s_and_sw102_sw104_are_decided() -> None:
    found = _findings("SW101/tp-unknown.yaml")
    assert [(s, level, codes) for s, level, codes, _ in found] == [
        ("llama70b-l40s-tp-placeholder", "mandatory", ["SW101"]),  # mend13: the weights fail at every TP
        ("llama70b-l40s-tp-placeholder", "advisory", REST),  # SW102 and SW104 no longer wait for TP
        ("llama70b-l40s-tp-from-script", "mandatory", ["SW101"]),
        ("llama70b-l40s-tp-from-script", "advisory", REST),
        ("llama70b-l40s-tp-from-configmap", "advisory", ALL),  # TP4 holds the weights and 8,192 tokens
        ("llama8b-l40s-tp-placeholder", "advisory", ALL),
        # review38: a privileged container may see its node's four L40S, and TP4 holds the weights
        ("llama70b-l40s-tp-privileged", "advisory", ALL),
        ("llama70b-l40s-tp-privileged", "mandatory", ["SW309"]),
        # review38: NVIDIA_VISIBLE_DEVICES=all on a one-L40S node: TP1 is the only TP, and the weights fail there
        ("llama70b-l40s-tp-visible-all", "mandatory", ["SW101"]),
        ("llama70b-l40s-tp-visible-all", "advisory", REST),
        ("llama70b-l40s-tp-visible-all", "mandatory", ["SW310"]),
        # TP1's weights, then TP2's KV cache with weights inside their band: SW101's, as at a TP written
        ("llama70b-h100-tp-placeholder-util", "mandatory", ["SW101"]),
        ("llama70b-h100-tp-placeholder-util", "advisory", REST),
        # review39: a listed NVIDIA_VISIBLE_DEVICES bounds TP by the larger of the list and the request (2 here)
        ("llama70b-l40s-tp-visible-list", "mandatory", ["SW101"]),
        ("llama70b-l40s-tp-visible-list", "advisory", REST),
        ("llama70b-l40s-tp-visible-list", "mandatory", ["SW310"]),
        # review39: a list a template fills is not one device: the node's GPUs bound TP, and TP4 may start
        ("llama70b-l40s-tp-visible-template", "advisory", ALL),
        ("llama70b-l40s-tp-visible-template", "mandatory", ["SW310"]),
    ]


#: One L4 a pod, --tensor-parallel-size a guide's placeholder: Qwen2.5-7B with the YaRN --hf-overrides its model card
#: gives for 131,072 tokens (https://huggingface.co/Qwen/Qwen2.5-7B-Instruct, "Processing Long Texts"), or Llama-3.1-8B
#: with none. {image}, {model} and {flags} are filled per case.
_ONE_L4 = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: serving}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      nodeSelector: {{node.kubernetes.io/instance-type: g6.xlarge}}
      containers:
        - name: vllm
          image: vllm/vllm-openai:{image}
          command: ["/bin/sh", "-c"]
          args:
            - exec vllm serve {model} --tensor-parallel-size {tp} {flags}
          resources:
            limits: {{nvidia.com/gpu: 1}}
"""
_YARN = """--hf-overrides '{"rope_scaling":{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}}'"""


def test_a_kv_refusal_at_a_length_that_depends_on_what_runs_is_not_every_tp_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # review40: on 0.20 - 0.23 (transformers 4 or 5) or an assumed release, the YaRN override's limit is 32,768 or
    # 131,072 tokens. At TP1 written SW102 cannot decide (7 GiB for 131,072 tokens do not fit, 1.75 GiB for 32,768
    # do); mend17 blocked it as "refused whatever TP is", sizing the 131,072 only.
    docs = [
        _ONE_L4.format(name="qwen7b-yarn-020", image="v0.20.0", model="Qwen/Qwen2.5-7B-Instruct", tp="${TP_SIZE}",
                       flags=_YARN),
        _ONE_L4.format(name="qwen7b-yarn-022", image="v0.22.0", model="Qwen/Qwen2.5-7B-Instruct", tp="${TP_SIZE}",
                       flags=_YARN),
        _ONE_L4.format(name="qwen7b-yarn-020-tp1", image="v0.20.0", model="Qwen/Qwen2.5-7B-Instruct", tp="1",
                       flags=_YARN),
        # the same release without the override: one length, and every TP (TP1) refused for its KV cache still blocks
        _ONE_L4.format(name="llama8b-020", image="v0.20.0", model="meta-llama/Llama-3.1-8B-Instruct",
                       tp="${TP_SIZE}", flags=""),
    ]
    path = tmp_path / "one-l4.yaml"
    path.write_text("---\n".join(docs), encoding="utf-8")
    found = [(s, level, codes, text) for s, level, codes, text in _findings(str(path))
             if "SW101" in codes or "SW102" in codes]
    assert found == [
        ("qwen7b-yarn-020", "advisory", ALL, "cannot decide"),
        ("qwen7b-yarn-022", "advisory", ALL, "cannot decide"),
        ("qwen7b-yarn-020-tp1", "advisory", ["SW102"], "cannot decide"),
        ("llama8b-020", "mandatory", ["SW102"], "whatever --tensor-parallel-size is (not known yet; TP × PP cannot exceed the 1 nvidia.com/gpu a pod gets, so at most 1), meta-llama/Llama-3.1-8B-Instruct in bf16 does not start on L4, where gpu_memory_utilization 0.92 × 22.0 GiB allows 20.2 GiB per GPU"),  # noqa: E501
    ]


def test_a_kv_refusal_at_every_length_what_runs_may_take_is_every_tp_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # review42: review40 left every TP undecided where the KV verdict came with a length that depends on what runs,
    # even where the shortest of those lengths is refused too. Qwen2.5-7B with its YaRN override on 0.20.0 (32,768 or
    # 131,072 tokens by the image's transformers), gpu_memory_utilization 0.6 on one L4: 14.2 GiB of weights and
    # 1.0 GiB of activations leave -2.74 GiB (−1.4/+1.2), short of 32,768 tokens' 1.75 GiB too. With TP not known (at
    # most 1 here) it was "cannot decide" while the same pod at TP1 written blocks (SW101); now both block.
    from shardwise.rules.app.cli import main

    docs = [
        _ONE_L4.format(name="qwen7b-yarn-u60", image="v0.20.0", model="Qwen/Qwen2.5-7B-Instruct", tp="${TP_SIZE}",
                       flags=f"--gpu-memory-utilization 0.6 {_YARN}"),
        _ONE_L4.format(name="qwen7b-yarn-u60-tp1", image="v0.20.0", model="Qwen/Qwen2.5-7B-Instruct", tp="1",
                       flags=f"--gpu-memory-utilization 0.6 {_YARN}"),
    ]
    path = tmp_path / "one-l4.yaml"
    path.write_text("---\n".join(docs), encoding="utf-8")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(["lint", str(path), "--format", "json", "--fail-on", "none"])
    found = [(f["subject"].removeprefix("Deployment serving/"), f["level"], f["codes"], f["message"])
             for f in json.loads(buf.getvalue())["findings"] if "SW101" in f["codes"] or "SW102" in f["codes"]]
    assert found == [
        ("qwen7b-yarn-u60", "mandatory", ["SW101"], "SW101: whatever --tensor-parallel-size is (not known yet; TP × PP cannot exceed the 1 nvidia.com/gpu a pod gets, so at most 1), Qwen/Qwen2.5-7B-Instruct in bf16 does not start on L4, where gpu_memory_utilization 0.6 × 22.0 GiB allows 13.2 GiB per GPU: at TP1×PP1 14.2 GiB (−0.1/+0.6) of weights and 1.0 GiB of activations leave no KV cache (-2.74 GiB, −1.4/+1.2); vLLM will fail at start-up (vLLM 0.20.0 from the image tag); give the pod more GPUs and set --tensor-parallel-size to them, serve a quantised checkpoint, or use a GPU with more memory"),  # noqa: E501
        # written TP1: SW101 blocked already (its weights may not fit and no KV cache is left); SW102's length note
        ("qwen7b-yarn-u60-tp1", "mandatory", ["SW101"], "SW101: Qwen/Qwen2.5-7B-Instruct in bf16 needs 14.2 GiB (−0.1/+0.6) of weights per GPU at TP1×PP1, but gpu_memory_utilization 0.6 × 22.0 GiB (L4) allows 13.2 GiB; with 1.0 GiB of activations about -2.74 GiB (−1.4/+1.2) is left for the KV cache, and one request of 131,072 tokens needs 7.00 GiB: vLLM will fail at start-up (vLLM 0.20.0 from the image tag); spread the weights over at least 2 of these GPUs (14.2 GiB over 13.2 GiB each; more than a node of this pool holds (1), so across nodes: pipeline parallelism, or data and expert parallelism over pods); or serve an FP8 or 4-bit quantised checkpoint; or use a GPU with more memory"),  # noqa: E501
        ("qwen7b-yarn-u60-tp1", "advisory", ["SW102"], "SW102: cannot decide: Qwen/Qwen2.5-7B-Instruct at TP1×PP1 on L4 (vLLM 0.20.0 from the image tag): vLLM 0.20.0 takes transformers 4 or 5 (its requirements allow both) and the limit Qwen/Qwen2.5-7B-Instruct takes under its --hf-overrides rope_scaling depends on it: 32,768 or 131,072 tokens (under transformers 4 patch_rope_parameters has read the checkpoint's RoPE parameters before the override is set); write the override as rope_parameters or set max_position_embeddings with it"),  # noqa: E501
    ]

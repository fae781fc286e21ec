"""SW101 on the load peak of ``--quantization fp8`` on a 16-bit checkpoint (vLLM quantises it online): before vLLM
0.16.0 every weight is allocated at 16 bits before any is quantised, so the rank's 16-bit weights must fit at load;
from 0.16.0 one layer at a time is (mend19, mend20; docs/capacity-model.md, "Online quantisation's peak at load")."""

from __future__ import annotations

import json

import pytest
from shardwise.rules.vllm.versions import behaviour

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: m
  namespace: serving
spec:
  selector: {{matchLabels: {{app: m}}}}
  template:
    metadata: {{labels: {{app: m}}}}
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
      containers:
        - name: vllm
          image: vllm/vllm-openai{tag}
          command: [vllm, serve]
          args: [meta-llama/Llama-3.1-70B-Instruct, --quantization, fp8, --max-model-len, "8192",
                 --max-num-seqs, "16"{extra}]
          resources:
            limits: {{nvidia.com/gpu: {gpus}}}
"""


def _sw101(tmp_path, tag: str, extra: str = "", gpus: int = 1) -> list[tuple[str, str]]:
    from shardwise.rules.app.cli import main

    (tmp_path / "g.yaml").write_text(DEPLOYMENT.format(tag=tag, extra=extra, gpus=gpus), encoding="utf-8")
    out = tmp_path / "r.json"
    main(["lint", str(tmp_path / "g.yaml"), "--format", "json", "--output", str(out)])
    return [(f["level"], f["message"]) for f in json.loads(out.read_text(encoding="utf-8"))["findings"]
            if f["code"] == "SW101"]


def test_the_rows_name_0_16_0_as_the_first_release_that_quantises_a_layer_at_a_time() -> None:
    assert [behaviour(v).online_fp8_layerwise for v in ("0.11.0", "0.15.1", "0.16.0", "0.17.0", "0.34.0")] == [
        False, False, True, True, True]


WHERE = ("SW101: meta-llama/Llama-3.1-70B-Instruct with --quantization fp8 on its 16-bit checkpoint (no "
         "quantization_config: vLLM quantises it while loading) at TP1×PP1: ")


@pytest.mark.parametrize("release", ["0.11.0", "0.15.1"])
def test_before_0_16_0_the_16_bit_weights_at_load_block(tmp_path, release: str) -> None:
    """67.7 GiB of FP8 weights fit the 71.3 GiB budget of an H100 80GB, but 131.4 GiB of bf16 weights are on it before
    any is quantised: above its whole 79.2 GiB."""
    assert _sw101(tmp_path, f":v{release}") == [("mandatory", (
        f"{WHERE}vLLM {release} allocates every weight at 16 bits before quantising any, 131.4 GiB per GPU at load, "
        "above the whole 79.2 GiB of the H100-SXM-80GB: vLLM will fail loading the model "
        f"(vLLM {release} from the image tag); use vLLM 0.16.0 or later (one layer at a time is 16-bit, 69.3 GiB at "
        "load) or serve an FP8 checkpoint"))]


def test_from_0_16_0_the_load_peak_is_one_layer_at_16_bits_and_passes(tmp_path) -> None:
    """67.7 GiB of FP8 weights and one decoder layer's 0.80 G quantised parameters at two bytes: 69.3 GiB."""
    assert _sw101(tmp_path, ":v0.16.0") == []


@pytest.mark.parametrize(("tag", "why"), [
    (":latest", "tag latest names no vLLM release"),
    ("", "image without a tag"),
])
def test_a_release_not_known_may_refuse_naming_0_16_0(tmp_path, tag: str, why: str) -> None:
    assert _sw101(tmp_path, tag) == [("advisory", (
        f"{WHERE}vLLM before 0.16.0 allocates every weight at 16 bits before quantising any, 131.4 GiB per GPU at "
        "load, above the whole 79.2 GiB of the H100-SXM-80GB, so vLLM may fail loading the model, the release not "
        f"being known (vLLM 0.34.0, assumed: {why}; declare it with the annotation shardwise.dev/vllm-version); pin an "
        "image of vLLM 0.16.0 or later (one layer at a time is 16-bit, 69.3 GiB at load) or serve an FP8 "
        "checkpoint"))]


def test_16_bit_weights_that_fit_the_gpu_at_load_pass_on_an_old_release(tmp_path) -> None:
    """TP2: 65.7 GiB of bf16 weights a GPU at load, below the H100's 79.2 GiB: the load peak does not refuse."""
    assert _sw101(tmp_path, ":v0.11.0", extra=', --tensor-parallel-size, "2"', gpus=2) == []


def test_plan_recommends_no_layout_whose_16_bit_weights_fail_at_load(capsys) -> None:
    """bf16 Llama-3.1-405B with --quantization fp8 at vLLM 0.11.0 on H100s: TP8 holds 47.8 GiB of FP8 weights a GPU
    but 94.6 GiB of bf16 at load, so it is refused; TP8×PP2 (47.3 GiB at load) is recommended, and SW104 no longer
    tells TP8×PP4 to run TP8×PP1 replicas (it named 4 × TP8×PP1 before the load peak was modelled)."""
    from shardwise.rules.app.cli import main

    main(["plan", "--model", "meta-llama/Llama-3.1-405B-Instruct", "--quantization", "fp8", "--gpu", "H100",
          "--vllm-version", "0.11.0", "--p95-context", "8192"])
    out = capsys.readouterr().out
    assert out.count("recommended: TP8 × PP2;") == 1
    [tp8] = [line.split() for line in out.splitlines() if line.split()[:4] == ["8", "1", "1", "8"]]
    # the weights fit once loaded; the load surely refuses (mandatory SW101), which outranks the margin's advisory one
    assert (tp8[4], tp8[-2:]) == ("47.77", ["no", "SW101"])
    assert "TP8×PP1 fit the same GPUs" not in out


SHORT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: m
  namespace: serving
spec:
  selector: {{matchLabels: {{app: m}}}}
  template:
    metadata: {{labels: {{app: m}}}}
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v{release}
          command: [vllm, serve]
          args: [meta-llama/Llama-3.1-70B-Instruct, --quantization, fp8, --max-model-len, "512", --max-num-seqs, "1",
                 --max-num-batched-tokens, "512", --enforce-eager, --gpu-memory-utilization, "0.86"]
          resources:
            limits: {{nvidia.com/gpu: 1}}
"""


@pytest.mark.parametrize(("release", "expected"), [
    # review41: the FP8 weights (67.7 GiB ±1.7) may or may not fit the 68.1 GiB budget, a short context leaves the
    # KV cache its room: "may fail" where vLLM 0.15.1 surely fails, 131.4 GiB of bf16 at load; it blocks there
    ("0.15.1", ("mandatory", f"{WHERE}vLLM 0.15.1 allocates every weight at 16 bits before quantising any, 131.4 GiB "
                             "per GPU at load, above the whole 79.2 GiB of the H100-SXM-80GB: vLLM will fail loading "
                             "the model (vLLM 0.15.1 from the image tag); use vLLM 0.16.0 or later (one layer at a "
                             "time is 16-bit, 69.3 GiB at load) or serve an FP8 checkpoint")),
    # from 0.16.0 the load peak (69.3 GiB) is below the whole memory: the weights' own band says "may"
    ("0.16.0", ("advisory", "SW101: meta-llama/Llama-3.1-70B-Instruct in fp8 needs 67.7 GiB (±1.7) of weights per GPU "
                            "at TP1×PP1, but gpu_memory_utilization 0.86 × 79.2 GiB (H100-SXM-80GB) allows 68.1 GiB: "
                            "within the estimate's error, so vLLM may fail at start-up (vLLM 0.16.0 from the image "
                            "tag)")),
])
def test_fp8_weights_within_their_band_still_block_where_the_16_bit_load_surely_fails(
        tmp_path, release: str, expected: tuple[str, str]) -> None:
    from shardwise.rules.app.cli import main

    (tmp_path / "g.yaml").write_text(SHORT.format(release=release), encoding="utf-8")
    out = tmp_path / "r.json"
    main(["lint", str(tmp_path / "g.yaml"), "--format", "json", "--output", str(out)])
    assert [(f["level"], f["message"]) for f in json.loads(out.read_text(encoding="utf-8"))["findings"]
            if f["code"] == "SW101"] == [expected]


def _sw101_image(tmp_path, image: str) -> list[tuple[str, str]]:
    from shardwise.rules.app.cli import main

    text = DEPLOYMENT.replace("vllm/vllm-openai{tag}", image).format(extra="", gpus=1)
    (tmp_path / "g.yaml").write_text(text, encoding="utf-8")
    out = tmp_path / "r.json"
    main(["lint", str(tmp_path / "g.yaml"), "--format", "json", "--output", str(out)])
    return [(f["level"], f["message"]) for f in json.loads(out.read_text(encoding="utf-8"))["findings"]
            if f["code"] == "SW101"]


def test_a_dlc_floating_tag_whose_every_patch_loads_a_layer_at_a_time_passes(tmp_path) -> None:
    """release37: vllm:0.17-gpu-py312-ec2 is one of 0.17.0 and 0.17.1, both from 0.16.0 on: no 16-bit load peak, where
    an assumed release of any line (latest) may refuse (above)."""
    assert _sw101_image(tmp_path, "public.ecr.aws/deep-learning-containers/vllm:0.17-gpu-py312-ec2") == []


def test_a_dlc_floating_tag_whose_every_patch_loads_16_bit_weights_blocks(tmp_path) -> None:
    """release37: vllm:0.15-gpu-py312-ec2 is a 0.15 patch, all before 0.16.0: the 16-bit load peak refuses on each."""
    assert _sw101_image(tmp_path, "763104351884.dkr.ecr.us-east-1.amazonaws.com/vllm:0.15-gpu-py312-ec2") == [
        ("mandatory", (
            f"{WHERE}vLLM 0.15.0 allocates every weight at 16 bits before quantising any, 131.4 GiB per GPU at load, "
            "above the whole 79.2 GiB of the H100-SXM-80GB: vLLM will fail loading the model (vLLM 0.15.0, assumed: "
            "tag 0.15-gpu-py312-ec2 is AWS's floating tag of the vLLM 0.15 line, which AWS moves to each patch it "
            "publishes, so the image holds one of 0.15.x (none of whose patches shardwise read), sized as 0.15.0; pin "
            "a full tag such as 0.15.0-gpu-py312-ec2; declare it with the annotation shardwise.dev/vllm-version); use "
            "vLLM 0.16.0 or later (one layer at a time is 16-bit, 69.3 GiB at load) or serve an FP8 checkpoint"))]

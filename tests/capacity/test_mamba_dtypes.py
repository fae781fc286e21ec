"""``--mamba-cache-dtype`` and ``--mamba-ssm-cache-dtype``: the dtypes of a state layer's conv and recurrent state,
which set the state's page, the attention block aligned to it and the Mamba cache blocks (``kv_layout.StateDtypes``,
``kv_layout.state_dtype_bytes``).

Read in the wheels at the tags (paths inside ``vllm/``): ``config/cache.py`` ``MambaDType`` is "auto", "float32",
"float16" in 0.14.1 - 0.20.0 and adds "bfloat16" by 0.23.0 (0.28.0, 0.34.0), both flags default "auto";
``model_executor/layers/mamba/mamba_utils.py`` ``MambaStateDtypeCalculator._mamba_state_dtype``: the conv state takes
``mamba_cache_dtype`` ("auto": the model dtype), the recurrent state ``mamba_ssm_cache_dtype`` and, where that is
"auto", the conv state's dtype; ``gated_delta_net_state_dtype`` passes the ssm flag from 0.17.1 (0.14.1 and 0.15.0 give
both states ``mamba_cache_dtype``). ``model_executor/models/config.py`` replaces an "auto" ssm dtype first:
``NemotronHForCausalLMConfig`` with config.json's ``mamba_ssm_cache_dtype``, else float16 (0.14.1 - 0.19.0) or
``DEFAULT_MAMBA_SSM_CACHE_DTYPE`` float32 (0.20.0 - 0.34.0); ``Qwen3_5ForConditionalGenerationConfig`` with config.json's
``mamba_ssm_dtype`` (float32 in the published configs), and an explicit flag wins over it with a warning.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from shardwise.rules.adapters import load_inputs
from shardwise.rules.app.cli import main
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.group import engine_settings
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm import kv_layout
from shardwise.rules.vllm.versions import resolve

GIB = 1024**3
H100 = sizing.Device("H100", 79.18, "nvidia", "hopper")
# phivan3008/meeting-translator vllm_serve.log at 59159b20 (vLLM 0.27.1, one H100, Qwen3.6-27B-FP8, 4,096 tokens, 0.88)
# without its --enforce-eager and --max-num-seqs 32, as tests/capacity/test_mamba_seqs.py sizes it
RUN = sizing.EngineSettings(max_model_len=4096, gpu_memory_utilization=0.88, max_num_batched_tokens=4096,
                            pip_install=True, flashinfer_installed=True)
QWEN36 = find_model("Qwen/Qwen3.6-27B-FP8")
NANO9B = find_model("nvidia/NVIDIA-Nemotron-Nano-9B-v2")


def test_each_release_row_says_what_the_flags_reach():
    rows = {v: (resolve(v).behaviour.gdn_ssm_dtype, resolve(v).behaviour.nemotron_h_ssm_dtype)
            for v in ("0.14.1", "0.15.0", "0.17.1", "0.19.0", "0.20.0", "0.28.0", "0.34.0")}
    assert rows == {"0.14.1": (False, "float16"), "0.15.0": (False, "float16"), "0.17.1": (True, "float16"),
                    "0.19.0": (True, "float16"), "0.20.0": (True, "float32"), "0.28.0": (True, "float32"),
                    "0.34.0": (True, "float32")}


def test_the_state_bytes_follow_the_flags_and_the_models_hooks():
    S = kv_layout.StateDtypes
    # Qwen3.6-27B, TP1: 48 Gated DeltaNet value heads; conv (2 × 16 × 128 + 48 × 128) × 3 = 30,720 values, recurrent
    # 48 × 128 × 128 = 786,432 values; the Qwen3.5 hook makes an "auto" recurrent state float32 (mamba_ssm_dtype)
    conv, ssm = 30_720, 786_432
    assert kv_layout._state_bytes(QWEN36, 1, 2, dt=S()) == conv * 2 + ssm * 4 == 3_207_168
    assert kv_layout._state_bytes(QWEN36, 1, 2, dt=S(ssm="bfloat16")) == conv * 2 + ssm * 2 == 1_634_304
    assert kv_layout._state_bytes(QWEN36, 1, 2, dt=S(mamba="float32")) == conv * 4 + ssm * 4 == 3_268_608
    assert kv_layout._state_bytes(QWEN36, 1, 2, dt=S(mamba="float32", ssm="float16")) == conv * 4 + ssm * 2
    # 0.14 - 0.15: a Gated DeltaNet layer's recurrent state takes --mamba-cache-dtype, whatever the ssm flag says
    assert kv_layout._state_bytes(QWEN36, 1, 2, dt=S(ssm="float32", gdn_ssm=False)) == conv * 2 + ssm * 2
    # Qwen3-Next has no hook: "auto" is the conv state's dtype, bf16; the flag makes it float32
    nxt = find_model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert kv_layout.state_dtype_bytes(nxt, S()) == (2, 2)
    assert kv_layout.state_dtype_bytes(nxt, S(ssm="float32")) == (2, 4)
    assert kv_layout.state_dtype_bytes(nxt, S(mamba="float32")) == (4, 4)
    # Nemotron-Nano-9B-v2 (its config.json names no mamba_ssm_cache_dtype): Mamba2 128 heads × 80 × state 128, conv
    # (10,240 + 2 × 8 × 128) × 3; float32 from 0.20, float16 before, the flag either way
    conv2, ssm2 = (128 * 80 + 2 * 8 * 128) * 3, 128 * 80 * 128
    assert kv_layout.mamba2_state_bytes(NANO9B, 1, 2, S()) == conv2 * 2 + ssm2 * 4 == 5_316_608
    assert kv_layout.mamba2_state_bytes(NANO9B, 1, 2, S(nemotron_h_ssm="float16")) == conv2 * 2 + ssm2 * 2
    assert kv_layout.mamba2_state_bytes(NANO9B, 1, 2, S(ssm="float32", nemotron_h_ssm="float16")) == 5_316_608
    # Nemotron-3-Nano-30B's config.json says float32: the release's default does not matter
    nano30 = find_model("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    assert kv_layout.state_dtype_bytes(nano30, S(nemotron_h_ssm="float16")) == (2, 4)
    # a value outside the choices is refused by vLLM's parser; it counts as "auto"
    assert kv_layout.state_dtype_bytes(nxt, S(ssm="fp8")) == (2, 2)


def test_a_bf16_recurrent_state_doubles_the_blocks_and_the_default_cap_starts():
    auto = sizing.size_deployment(QWEN36, H100, RUN, "0.27.1")
    bf16 = sizing.size_deployment(QWEN36, H100, dataclasses.replace(RUN, mamba_ssm_cache_dtype="bfloat16"), "0.27.1")
    # the same budget; the page falls from 784 to 400 tokens (16 × cdiv(1,634,304, 16 × 4,096)), the blocks double.
    # (tokens41: 802 and 1,571 blocks before, when the dense hybrid was sized on Model Runner V2 at 0.27.1; vLLM runs it
    # on V1, whose FlashInfer profile sampler over 1,024 × 248,320 logits leaves 1.79 GiB less budget, 38.38 -> 36.59)
    assert bf16.available_kv_gib == auto.available_kv_gib
    assert (auto.block_size, auto.mamba_blocks, auto.mamba_verdict) == (784, 764, "refuses")
    assert (bf16.block_size, bf16.mamba_blocks, bf16.mamba_blocks_sure, bf16.mamba_verdict, bf16.starts) == (
        400, 1498, 1372, "starts", True)
    assert bf16.mamba_blocks == int(bf16.available_kv_gib * GIB) // (400 * 4096) // 16
    # a float32 conv state widens the page by 16 tokens: 800, 749 blocks
    f32 = sizing.size_deployment(QWEN36, H100, dataclasses.replace(RUN, mamba_cache_dtype="float32"), "0.27.1")
    assert (f32.block_size, f32.mamba_blocks, f32.mamba_verdict) == (800, 749, "refuses")


def _manifest(image: str, args: str) -> str:
    # the shape of phivan3008/meeting-translator's start as a Deployment on one H100 (p5.4xlarge)
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen36-27b
  namespace: serving
spec:
  selector: {{matchLabels: {{app: qwen36-27b}}}}
  template:
    metadata: {{labels: {{app: qwen36-27b}}}}
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: p5.4xlarge
      containers:
        - name: vllm
          image: {image}
          args: [Qwen/Qwen3.6-27B-FP8, --max-model-len, "4096", --gpu-memory-utilization, "0.88"{args}]
          resources:
            limits: {{nvidia.com/gpu: 1}}
"""


def test_a_manifest_reaches_the_settings_in_both_spellings(tmp_path: Path):
    path = tmp_path / "deploy.yaml"
    path.write_text(_manifest("vllm/vllm-openai:v0.27.1", ", --mamba_ssm_cache_dtype, bfloat16, "
                                                          "--mamba-cache-dtype=float32"))
    (g,) = load_inputs([str(path)]).groups
    s = engine_settings(g)
    assert (s.mamba_cache_dtype, s.mamba_ssm_cache_dtype) == ("float32", "bfloat16")
    path.write_text(_manifest("vllm/vllm-openai:v0.27.1", ""))
    (g,) = load_inputs([str(path)]).groups
    s = engine_settings(g)
    assert (s.mamba_cache_dtype, s.mamba_ssm_cache_dtype) == ("auto", "auto")


def test_lint_reads_the_flag_where_it_decides_the_refusal(tmp_path: Path, capsys):
    path = tmp_path / "deploy.yaml"
    path.write_text(_manifest("vllm/vllm-openai:v0.27.1", ""))
    main(["lint", str(path), "--format", "json"])
    auto = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "SW102"]
    path.write_text(_manifest("vllm/vllm-openai:v0.27.1", ", --mamba-ssm-cache-dtype, bfloat16"))
    main(["lint", str(path), "--format", "json"])
    bf16 = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "SW102"]
    assert [f["level"] for f in auto] == ["mandatory"]
    assert "Mamba cache blocks" in auto[0]["message"]
    assert bf16 == []


def test_plan_takes_the_flags_as_engine_args(capsys):
    base = ["plan", "--model", "Qwen/Qwen3.6-27B-FP8", "--gpu", "H100", "--tp", "1", "--vllm-version", "0.27.1",
            "--max-model-len", "4096", "--gpu-memory-utilization", "0.88", "--json"]
    rc_auto = main([*base, "--max-num-seqs", "1024"])
    auto = json.loads(capsys.readouterr().out)
    rc_low = main(base)
    low = json.loads(capsys.readouterr().out)
    rc_bf16 = main([*base, "--engine-arg", "mamba-ssm-cache-dtype=bfloat16"])
    bf16 = json.loads(capsys.readouterr().out)
    # a cap of 1,024 against 763 blocks is refused (SW102, mandatory); at vLLM's default plan lowers it to the 699
    # blocks the default cap surely keeps (699 leave 730 sure, but a cap of 730 is not sure to start:
    # plan._mamba_capped keeps 699); with a bf16 recurrent state 1,497 blocks: the default starts, nothing lowered
    # (tokens41: 801, 753 and 1,570 on Model Runner V2)
    assert (rc_auto, auto["block_size"], auto["mamba_blocks"], auto["verdict"]) == (1, 784, 763, "refuses")
    assert [f["level"] for f in auto["findings"] if f["code"] == "SW102"] == ["mandatory"]
    assert (rc_low, low["max_num_seqs"], low["mamba_blocks_sure"], low["verdict"]) == (0, 699, 730, "starts")
    assert (rc_bf16, bf16["block_size"], bf16["mamba_blocks"], bf16["mamba_blocks_sure"], bf16["verdict"],
            bf16["max_num_seqs"]) == (0, 400, 1497, 1371, "starts", 1024)
    assert not [f for f in bf16["findings"] if f["code"] == "SW102"]

"""vLLM's quantisation capability check as the sizing asks it (``sizing.quantization_capability_refusal``) on a GPU the
inputs name by its memory only (review48): its compute capability is not known, so a method some GPU vLLM runs on
(7.0 and up) is refused is a note that cannot decide, never a silent pass and never a refusal."""

from __future__ import annotations

from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm.versions import resolve

CUSTOM = sizing.Device.of(None, 15.0)  # a GPU known only by its memory (nvidia.com/gpu.memory: 15360)
T4 = sizing.Device("T4", 14.58, "nvidia", "turing")


def _ask(model_id: str, device: sizing.Device, image: str, quantization: str | None = None) -> tuple[str, list[str]]:
    model = find_model(model_id)
    assert model is not None
    notes: list[str] = []
    said = sizing.quantization_capability_refusal(model, sizing.EngineSettings(quantization=quantization), device,
                                                  resolve(image=image), notes)
    return said, notes


def test_a_gpu_named_by_its_memory_only_cannot_decide_a_method_some_gpu_refuses() -> None:
    assert CUSTOM.capability() is None
    said, notes = _ask("meta-llama/Llama-3.2-3B-Instruct", CUSTOM, "vllm/vllm-openai:v0.11.0", "fp8")
    assert said == ""
    assert notes == [
        f"{sizing.QUANT_CAPABILITY_UNSURE}vLLM 0.11.0 requires compute capability 8.0 for --quantization fp8 and "
        "refuses it below at start-up, but the inputs name the GPU by its memory only, not its compute capability; "
        "name the GPU (nvidia.com/gpu.product, an instance type)"]
    # on an assumed release the minimum is only the nearest release read's
    said, notes = _ask("meta-llama/Llama-3.2-3B-Instruct", CUSTOM, "vllm/vllm-openai:latest", "fp8")
    assert said == ""
    assert notes == [
        f"{sizing.QUANT_CAPABILITY_UNSURE}vLLM 0.34.0 may require compute capability 7.5 for --quantization fp8 (vLLM "
        "0.29.0, the newest release shardwise read, requires 7.5; vLLM 0.34.0 was not read) and refuses it below at "
        "start-up, but the inputs name the GPU by its memory only, not its compute capability; name the GPU "
        "(nvidia.com/gpu.product, an instance type)"]


def test_a_method_every_gpu_vllm_runs_on_takes_says_nothing() -> None:
    assert _ask("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", CUSTOM, "vllm/vllm-openai:v0.10.2") == ("", [])  # GPTQ 6.0
    assert _ask("meta-llama/Llama-3.2-3B-Instruct", CUSTOM, "vllm/vllm-openai:v0.11.0") == ("", [])  # no method


def test_a_named_gpu_is_still_decided() -> None:
    said, notes = _ask("meta-llama/Llama-3.2-3B-Instruct", T4, "vllm/vllm-openai:v0.11.0", "fp8")
    assert notes == []
    assert said.startswith("--quantization fp8: vLLM 0.11.0 refuses the fp8 method on T4, compute capability 7.5 (")


def test_the_float32_refusal_quotes_the_supported_list_only_where_a_release_read_prints_it() -> None:
    """AWQConfig/GPTQConfig list [torch.half] in the 0.9.1 - 0.14.1 wheels; AutoAWQConfig/AutoGPTQConfig list
    [torch.half, torch.bfloat16] at 0.29.0 (review48: 0.29.0 and later were quoted with the older list)."""
    said = '"torch.float32 is not supported for quantization method awq.'
    assert [sizing._half_only_text("awq", sizing._release(v)) for v in ("0.13.0", "0.20.0", "0.29.0", "0.34.0")] == [
        f'{said} Supported dtypes: [torch.float16]"', f'{said}", AWQ and GPTQ taking no float32',
        f'{said} Supported dtypes: [torch.float16, torch.bfloat16]"', f'{said}", AWQ and GPTQ taking no float32']

"""Each quantisation method's minimum compute capability by release (``shardwise.rules.vllm.quant_capability``,
quantcap1): the figures are the ``get_min_capability()`` of the config class ``method_to_config`` names, read in the
wheels of the releases in ``READ`` (docs/capacity-model.md has the table)."""

from __future__ import annotations

import pytest
from shardwise.rules.vllm import quant_capability as qc
from shardwise.rules.vllm.versions import parse_version

T4, V100, A10G, L4 = (7, 5), (7, 0), (8, 6), (8, 9)


def _check(method: str, cc: tuple[int, int], version: str) -> qc.CapabilityCheck | None:
    v = parse_version(version)
    assert v is not None
    return qc.check(method, cc, v)


@pytest.mark.parametrize(("method", "cc", "version", "minimum"), [
    ("fp8", T4, "0.11.0", 80),  # Fp8Config 80 to 0.13.0 (FP8 Marlin needed 8.0)
    ("fp8", T4, "0.13.0", 80),
    ("fp8", T4, "0.11.1", 80),  # between 0.11.0 and 0.12.0, both read at 80
    ("fp8", V100, "0.29.0", 75),  # 7.5 from 0.14.1: still above a V100
    ("awq", V100, "0.10.2", 75),  # AWQConfig 75 at every release read
    ("mxfp4", T4, "0.10.2", 80),  # Mxfp4Config (gpt-oss) 80 from 0.10.1.1
    ("modelopt", A10G, "0.11.0", 89),  # ModelOptFp8Config 89 to 0.14.1: no Marlin fallback
    ("modelopt_fp4", T4, "0.13.0", 80),
    ("experts_int8", T4, "0.29.0", 80),
])
def test_refused_where_every_release_read_around_it_agrees(method: str, cc: tuple[int, int], version: str,
                                                           minimum: int) -> None:
    assert _check(method, cc, version) == qc.CapabilityCheck(True, True, minimum, "")


@pytest.mark.parametrize(("method", "cc", "version"), [
    ("fp8", T4, "0.14.1"),  # FP8 Marlin's Turing kernels (vllm-project/vllm#29901)
    ("fp8", A10G, "0.11.0"),  # weight-only FP8 through Marlin from 8.0
    ("fp8", L4, "0.8.4"),
    ("fp8", A10G, "0.6.0"),  # before the first release read, but above its 8.0 and after #5975 (0.5.1)
    ("awq", T4, "0.11.0"),
    ("gptq", V100, "0.10.2"),  # GPTQConfig 60
    ("bitsandbytes", V100, "0.13.0"),  # 70
    ("compressed-tensors", V100, "0.29.0"),  # the config's 70 (its schemes check theirs at load)
    ("modelopt", A10G, "0.29.0"),  # 80 at 0.29.0
    ("unknown-method", T4, "0.11.0"),
])
def test_taken(method: str, cc: tuple[int, int], version: str) -> None:
    assert _check(method, cc, version) is None


def test_a_release_between_two_that_differ_is_not_decided() -> None:
    assert _check("fp8", T4, "0.14.0") == qc.CapabilityCheck(
        False, False, 80, "vLLM 0.13.0 requires 8.0 and 0.14.1 requires 7.5; vLLM 0.14.0 was not read")
    assert _check("modelopt", A10G, "0.20.0") == qc.CapabilityCheck(
        False, False, 89, "vLLM 0.14.1 requires 8.9 and 0.29.0 requires 8.0; vLLM 0.20.0 was not read")


def test_a_release_after_the_last_read_is_not_decided() -> None:
    assert _check("fp8", V100, "0.34.0") == qc.CapabilityCheck(
        False, False, 75, "vLLM 0.29.0, the newest release shardwise read, requires 7.5; vLLM 0.34.0 was not read")
    # a method gone from the newest release read: its last reading
    assert _check("bitsandbytes", (6, 1), "0.29.0") == qc.CapabilityCheck(
        False, False, 70, "vLLM 0.14.1, the newest release shardwise read, requires 7.0; vLLM 0.29.0 was not read")


def test_fp8_before_marlin_is_not_decided_on_ampere() -> None:
    assert _check("fp8", A10G, "0.5.0") == qc.CapabilityCheck(
        False, False, 89, "vLLM releases before 0.5.1 required 8.9, which FP8 Marlin lowered to 8.0 (vllm-project/"
                          "vllm#5975); vLLM 0.5.0 was not read")


def test_releases_refusing_and_the_first_taking() -> None:
    refusing, taking = qc.releases_refusing("fp8", T4)
    assert refusing == ["0.8.4", "0.8.5", "0.9.0", "0.9.1", "0.9.2", "0.10.0", "0.10.1.1", "0.10.2", "0.11.0",
                        "0.12.0", "0.13.0"]
    assert taking == ["0.14.1", "0.19.0", "0.29.0"]
    assert qc.span(refusing) == "from 0.8.4 to 0.13.0"
    v = parse_version("0.11.0")
    assert v is not None
    assert qc.first_taking_after("fp8", T4, v) == "0.14.1"
    assert qc.first_taking_after("awq", V100, v) == ""
    assert qc.message("fp8", 80, T4) == ('"The quantization method fp8 is not supported for the current GPU. Minimum '
                                         'capability: 80. Current capability: 75."')


def test_compressed_tensors_weight_only_fp8_scheme() -> None:
    """CompressedTensorsW8A16Fp8 (where W8A8Fp8's 8.9 is missing) requires 8.0 to 0.14.1 and 7.5 at 0.29.0, above
    CompressedTensorsConfig's own 7.0."""
    assert _check(qc.SCHEME_FP8, T4, "0.14.1") == qc.CapabilityCheck(True, True, 80, "")
    assert _check(qc.SCHEME_FP8, T4, "0.29.0") is None
    assert _check(qc.SCHEME_FP8, A10G, "0.10.2") is None
    assert _check("compressed-tensors", T4, "0.14.1") is None

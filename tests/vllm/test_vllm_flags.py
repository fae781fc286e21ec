"""The flags a vLLM release does not define (``shardwise.rules.vllm.flags``), read from vLLM's source at each release:
which image names a release read, and which words of a command line vLLM's argument parser exits on."""

from __future__ import annotations

import pytest
from shardwise.rules.vllm.flags import (
    GAPS,
    RELEASES_READ,
    absent_flag,
    fork_build,
    model_option_raises,
    release_read,
)
from shardwise.rules.vllm.versions import Version, parse_version


def _release(text: str) -> Version:
    v = parse_version(text)
    assert v is not None
    return v


@pytest.mark.parametrize(("image", "release"), [
    ("vllm/vllm-openai:v0.10.1", "0.10.1"),
    ("docker.io/vllm/vllm-openai:v0.10.1.1", "0.10.1.1"),
    ("vllm/vllm-openai:v0.20.1-cu129", "0.20.1"),  # the same release built for CUDA 12.9
    ("public.ecr.aws/deep-learning-containers/vllm:0.13.0-gpu-py312-ec2", "0.13.0"),  # AWS DLC: FROM vllm-openai
    ("vllm/vllm-openai:v0.8.5.post1", "0.8.5"),  # a post release read: the gaps of its release
    ("vllm/vllm-openai:v0.23.0@sha256:6d8429e38e3747723ca07ee1b17972e09bb9c51c4032b266f24fb1cc3b22ed8f", "0.23.0"),
])
def test_an_image_of_vllms_own_build_names_a_release_read(image: str, release: str) -> None:
    assert release_read(image) == _release(release)


@pytest.mark.parametrize("image", [
    "vllm/vllm-openai:latest",
    "vllm/vllm-openai",
    "vllm/vllm-openai@sha256:6d8429e38e3747723ca07ee1b17972e09bb9c51c4032b266f24fb1cc3b22ed8f",
    "vllm/vllm-openai:nightly-0d4f48fa",
    "vllm/vllm-openai:v0.13.0rc1",  # a release candidate's flags are not the release's
    "vllm/vllm-openai:v0.15.1",  # no source distribution on PyPI: not read
    "vllm/vllm-openai:v0.6.1.post1",  # a post release not read
    "vllm/vllm-openai:v0.99.0",  # newer than the table
    "rocm/vllm:rocm6.4.1_vllm_0.10.0_20250812",  # ROCm's fork, flags of its own
    "lmcache/vllm-openai:v0.3.1",
    "",
])
def test_no_release_read_for_other_images(image: str) -> None:
    assert release_read(image) is None


def test_a_flag_removed_before_the_release_is_found_in_each_spelling() -> None:
    at = _release("0.10.1")
    words = ["vllm", "serve", "m", "--device=cuda"]
    assert absent_flag(words, ["m", "--device=cuda"], at) is not None
    found = absent_flag(words, ["m", "--max-model-len", "8192", "--device", "cuda"], at)
    assert found is not None and found[0] == "--device"
    assert found[1].startswith("`--device` is not a flag of vLLM 0.10.1 (the release the image names): it was "
                               "removed in 0.10.0")
    swap = absent_flag(words, ["m", "--swap_space", "16"], _release("0.19.0"))  # vLLM turns _ into -
    assert swap is not None and swap[0] == "--swap_space" and swap[1].startswith("`--swap-space` is not a flag")
    # 0.5.0 has no FlexibleArgumentParser: `_` is not turned into `-`, so the dashed name's gap says nothing
    assert absent_flag(words, ["--model", "m", "--async_scheduling"], _release("0.5.0")) is None
    assert absent_flag(words, ["--model", "m", "--async-scheduling"], _release("0.5.0")) is not None


def test_a_flag_the_release_still_defines_is_not_found() -> None:
    words = ["vllm", "serve"]
    assert absent_flag(words, ["m", "--device", "cuda"], _release("0.9.2")) is None  # removed only in 0.10.0
    assert absent_flag(words, ["m", "--swap-space", "16"], _release("0.17.0")) is None  # removed in 0.18.0
    # from 0.24.0 --device is a unique prefix of --device-ids, which argparse's abbreviations accept
    assert absent_flag(words, ["m", "--device", "0"], _release("0.24.0")) is None


def test_a_flag_added_after_the_release_is_found() -> None:
    words = ["vllm", "serve"]
    found = absent_flag(words, ["m", "--async-scheduling"], _release("0.9.2"))
    assert found is not None and "first appears in 0.10.0: use an image of vLLM 0.10.0 or later" in found[1]
    assert absent_flag(words, ["m", "--async-scheduling"], _release("0.10.0")) is None
    assert absent_flag(words, ["m", "--nnodes=2"], _release("0.11.0")) is not None
    assert absent_flag(words, ["m", "--nnodes=2"], _release("0.11.1")) is None


def test_words_not_read_as_a_flag_name() -> None:
    at = _release("0.13.0")
    words = ["vllm", "serve"]
    assert absent_flag(words, ["m", "--$(TASK_FLAG)", "embed"], at) is None  # a name not known
    assert absent_flag(words, ["m", "--${TASK_FLAG}", "embed"], at) is None
    assert absent_flag(words, ["m", "--", "--task"], at) is None  # after `--`: a positional
    assert absent_flag(words, ["m", "-task"], at) is None  # not a long option
    assert absent_flag(words, ["m", "--task", "embed"], at) is not None


def test_other_programs_parse_flags_of_their_own() -> None:
    at = _release("0.13.0")
    for module in ("dynamo.vllm", "vllm.entrypoints.api_server", "vllm.entrypoints.grpc_server"):
        assert absent_flag(["python3", "-m", module, "--task", "embed"], ["--task", "embed"], at) is None
    assert absent_flag(["sh", "-c", "python3 -m dynamo.vllm --task embed"], ["--task", "embed"], at) is None
    assert absent_flag(["python3", "-m", "vllm.entrypoints.openai.api_server"], ["--task", "embed"], at) is not None


def test_the_table_names_releases_read() -> None:
    for gap in GAPS:
        assert gap.first in RELEASES_READ, gap
        assert gap.until is None or gap.until in RELEASES_READ, gap
        assert gap.until is None or _release(gap.first) < _release(gap.until), gap


@pytest.mark.parametrize(("tokens", "release", "raises"), [
    # 0.8.3-0.11.0: FlexibleArgumentParser.parse_args raises on the word `--model` only
    (["--model", "Qwen/Qwen2.5-7B-Instruct", "--port", "8000"], "0.8.3", True),
    (["--port", "8000", "--model", "Qwen/Qwen2.5-7B-Instruct"], "0.11.0", True),
    (["--model=Qwen/Qwen2.5-7B-Instruct"], "0.10.1.1", False),
    (["Qwen/Qwen2.5-7B-Instruct", "--", "--model", "x"], "0.9.2", False),  # after `--`: not vLLM's flag
    # 0.5.5-0.8.2: `serve` raises on any --model other than EngineArgs' default, both spellings
    (["Qwen/Qwen2.5-7B-Instruct", "--model=Qwen/Qwen2.5-7B-Instruct"], "0.6.4", True),
    (["Qwen/Qwen2.5-7B-Instruct", "--model", "Qwen/Qwen2.5-7B-Instruct"], "0.5.5", True),
    (["Qwen/Qwen2.5-7B-Instruct", "--model", "facebook/opt-125m"], "0.8.2", False),
    # before 0.5.5 the positional wins; from 0.11.1 vLLM warns and moves the model first
    (["Qwen/Qwen2-1.5B-Instruct", "--model", "Qwen/Qwen2-1.5B-Instruct"], "0.5.4", False),
    (["--model", "Qwen/Qwen2.5-7B-Instruct"], "0.11.1", False),
    (["--model", "Qwen/Qwen2.5-7B-Instruct"], "0.20.0", False),
    (["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "4096"], "0.10.0", False),
])
def test_vllm_serve_refuses_the_model_given_as_an_option(tokens: list[str], release: str, raises: bool) -> None:
    why = model_option_raises(tokens, _release(release))
    assert (why is not None) == raises
    if why is not None:
        assert why.startswith(f"`vllm serve` in vLLM {release} (the release the image names) refuses `--model`")


def test_the_extensible_kv_cache_flag_first_appears_in_0_34():
    # engine/arg_utils.py: --enable-extensible-kv-cache is absent in 0.33.0 and added in 0.34.0
    from shardwise.rules.vllm.flags import flag_gap
    from shardwise.rules.vllm.versions import parse_version

    assert flag_gap("enable-extensible-kv-cache", parse_version("0.33.0")) == (
        "first appears in 0.34.0 (the extensible KV cache): use an image of vLLM 0.34.0 or later, or remove it")
    assert flag_gap("enable-extensible-kv-cache", parse_version("0.34.0")) is None


def test_a_switch_spelled_with_no_is_absent_where_the_switch_is():
    # argparse's BooleanOptionalAction defines --no-X beside --X: a release without --X has neither
    from shardwise.rules.vllm.flags import absent_flag, word_gap
    from shardwise.rules.vllm.versions import parse_version

    old, new = parse_version("0.33.0"), parse_version("0.34.0")
    assert word_gap("no-enable-extensible-kv-cache", old) == (
        "first appears in 0.34.0 (the extensible KV cache): use an image of vLLM 0.34.0 or later, or remove it")
    assert word_gap("no-enable-extensible-kv-cache", new) is None
    assert word_gap("no-async-scheduling", parse_version("0.9.2")) == (
        "first appears in 0.10.0: use an image of vLLM 0.10.0 or later, or remove it")
    got = absent_flag(["vllm", "serve", "m", "--no-enable-extensible-kv-cache"], ["--no-enable-extensible-kv-cache"], old)
    assert got is not None and got[0] == "--no-enable-extensible-kv-cache"


# flags47: every option string of the releases images pin most, as data (rules/vllm/options.py)


def test_the_option_data_holds_exactly_the_releases_collected():
    from shardwise.rules.vllm.flags import RELEASES_READ
    from shardwise.rules.vllm.options import OPTION_RELEASES, release_options

    assert OPTION_RELEASES == RELEASES_READ  # flags48: every release read is collected
    sizes = {r: len(release_options(r) or ()) for r in ("0.5.0", "0.6.6", "0.10.0", "0.11.0", "0.18.0", "0.34.0")}
    assert sizes == {"0.5.0": 758, "0.6.6": 1477, "0.10.0": 2276, "0.11.0": 2534, "0.18.0": 3156, "0.34.0": 4745}
    assert release_options("0.15.0") is None  # no source distribution on PyPI: not collected
    assert release_options("0.35.0") is None  # newer than the data


def test_a_release_s_options_are_the_names_its_mask_sets_bit_by_bit():
    """release_options picks the names with itertools.compress over the mask's binary digits: the same names, in the
    same (sorted) order, as asking each name its bit (byte i // 8, bit i % 8), for every release; and the file read
    line by line as the data's format says (comments, ``@RELEASE HEX`` lines, one name a line)."""
    from shardwise.rules.vllm.options import _DATA, OPTION_RELEASES, _load, release_options

    with open(_DATA, encoding="utf-8") as f:
        lines = f.read().split("\n")
    names = tuple(line for line in lines if line and not line.startswith(("#", "@")))
    masks = {line[1:].split(" ")[0]: line.split(" ")[1] for line in lines if line.startswith("@")}
    assert _load() == (names, masks) and list(_load()[1]) == list(masks)
    assert list(names) == sorted(names)  # undefined_option bisects them
    for release in OPTION_RELEASES:
        bits = bytes.fromhex(masks[release])
        assert release_options(release) == tuple(n for i, n in enumerate(names) if bits[i // 8] >> (i % 8) & 1)


def test_a_flag_is_undefined_only_where_no_option_is_or_begins_with_it():
    from shardwise.rules.vllm.options import closest_option, undefined_option

    v11 = parse_version("0.11.0")
    assert v11 is not None
    assert undefined_option("bogus-flag-xyz", v11)
    assert undefined_option("gpu-memory-utilisation", v11)
    assert closest_option("gpu-memory-utilisation", v11) == "gpu-memory-utilization"
    assert closest_option("max-model-length", v11) == "max-model-len"
    assert closest_option("bogus-flag-xyz", v11) is None
    assert not undefined_option("gpu-memory-utilization", v11)
    assert not undefined_option("gpu-mem", v11)  # a unique prefix: argparse's allow_abbrev
    assert not undefined_option("max", v11)  # an ambiguous prefix exits too, but is not judged here: silence
    assert not undefined_option("no-enable-prefix-caching", v11)  # BooleanOptionalAction's --no- form
    assert not undefined_option("help", v11)  # argparse's own
    assert undefined_option("bogus-flag-xyz", parse_version("0.10.0"))  # collected by flags48
    assert not undefined_option("bogus-flag-xyz", parse_version("0.15.0"))  # not collected (no sdist): not judged
    assert not undefined_option("bogus-flag-xyz", parse_version("0.35.0"))  # newer than the data: not judged


def test_the_option_data_and_the_gaps_disagree_only_towards_silence():
    """GAPS and the collected data are two readings of the same sources. Where GAPS rules a flag out and the data
    does not, the data over-counts (an error message still names the removed flag: `--task`, `--device`): silence.
    Where the data rules a flag out and GAPS does not, it is a flag's arrival GAPS does not record (GAPS holds its
    removal): `--enable-reasoning` came in 0.7.1 with `--reasoning-parser` (no "enable_reasoning" or
    "enable-reasoning" anywhere in 0.6.6.post1's sdist); `--num-scheduler-steps` in 0.5.5, `--disable-async-output-proc`
    in 0.6.0, `--task` and `--override-pooler-config` in 0.6.4 (no such string in the sdist before)."""
    from collections import Counter

    from shardwise.rules.vllm.options import OPTION_RELEASES, undefined_option

    data_only: dict[str, list[str]] = {}
    gaps_only: Counter[str] = Counter()
    for flag in sorted({g.flag for g in GAPS}):
        for release in sorted(OPTION_RELEASES, key=lambda r: tuple(map(int, r.split(".")))):
            v = parse_version(release)
            assert v is not None
            data, table = undefined_option(flag, v), any(g.holds(v) for g in GAPS if g.flag == flag)
            if data and not table:
                data_only.setdefault(flag, []).append(release)
            if table and not data:
                gaps_only[flag] += 1
    up_to = lambda last: [r for r in ("0.5.0", "0.5.1", "0.5.2", "0.5.3", "0.5.4", "0.5.5", "0.6.0", "0.6.1",  # noqa: E731
                                      "0.6.2", "0.6.3", "0.6.4", "0.6.5", "0.6.6", "0.7.0")[:last]]
    assert data_only == {"disable-async-output-proc": up_to(6), "disable-frontend-multiprocessing": up_to(4),
                         "enable-prompt-adapter": up_to(2), "enable-reasoning": up_to(14),
                         "multi-step-stream-outputs": up_to(8), "num-scheduler-steps": up_to(5),
                         "override-pooler-config": up_to(10), "task": up_to(10)}
    assert gaps_only == {"num-speculative-tokens": 45, "task": 30, "device": 25, "guided-decoding-backend": 22,
                         "speculative-config": 19, "runner": 17, "data-parallel-size": 3, "convert": 1}


def test_the_option_data_is_sorted_and_names_exactly_the_releases_judged():
    """``undefined_option`` finds a prefix by bisection (the names must be sorted), and a release is judged only
    where the data holds it: the file's release lines and ``OPTION_RELEASES`` are one list."""
    from shardwise.rules.vllm import options

    names, has = options._load()
    assert list(names) == sorted(set(names))
    assert set(has) == set(options.OPTION_RELEASES)


# flags48: values a release refuses


#: start-up log settings keys and the flags that set them
_LOGGED_FLAGS = {"max_model_len": "--max-model-len", "gpu_memory_utilization": "--gpu-memory-utilization",
                 "tp": "--tensor-parallel-size", "pp": "--pipeline-parallel-size", "dp": "--data-parallel-size",
                 "max_num_seqs": "--max-num-seqs", "max_num_batched_tokens": "--max-num-batched-tokens",
                 "dtype": "--dtype", "kv_cache_dtype": "--kv-cache-dtype", "block_size": "--block-size",
                 "quantization": "--quantization", "mm_encoder_tp_mode": "--mm-encoder-tp-mode"}


def test_no_logged_start_up_is_refused():
    """Every public start-up log started: its settings, written as the flags that set them, at its release, are
    refused neither by lint's value reading (``RefusedValue``) nor by the release's own (``release_value_refused``)."""
    import json
    import sys
    from pathlib import Path

    from shardwise.rules.vllm.args import parse_serve_args
    from shardwise.rules.vllm.flags import release_value_refused

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "capacity"))
    from startup_logs import SETS

    judged = 0
    for path in SETS:
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data if isinstance(data, list) else data["cases"]:
            words = ["vllm", "serve", case["model"]]
            for key, flag in _LOGGED_FLAGS.items():
                value = (case.get("settings") or {}).get(key)
                if value is not None and not isinstance(value, (dict, list, bool)):
                    words += [flag, str(value)]
            parse_serve_args(words[2:])  # raises on a refused value
            release = release_read(f"vllm/vllm-openai:v{case['release']}")
            if release is not None:
                judged += 1
                assert release_value_refused(words, words[2:], release) is None, (case["release"], words)
    assert judged == 239  # set 22: 16 rows more; set 23: 23 more (its six 0.26.1 pre-release rows name no image release_read knows); set 24: its 12 rows
    # set 25: its two 0.8.1 rows (the 0.6.4 main-branch and 0.29.1rc1 builds name no image release_read knows);
    # set 26: its 10 rows; set 27: its 10 rows; set 28: its 15 rows; set 29: its 5 rows; set 30: its 3 rows


def test_a_value_is_refused_by_release_only_before_the_release_that_takes_it():
    from shardwise.rules.vllm.flags import release_value_refused

    def judged(release: str, *tokens: str) -> tuple[str, str] | None:
        at = parse_version(release)
        assert at is not None
        return release_value_refused(["vllm", "serve", "m", *tokens], list(tokens), at)

    got = judged("0.8.3", "--max-model-len", "32k")
    assert got == ("32k", "`--max-model-len 32k` is not a value vLLM 0.8.3 (the release the image names) takes: its "
                          "argument parser reads --max-model-len with int() (engine/arg_utils.py; the k/M forms came "
                          "in 0.8.4 with human_readable_int), so it exits at start-up (\"invalid int value: '32k'\") "
                          "and the pod crash-loops; write the number in full, or use an image of vLLM 0.8.4 or later")
    assert judged("0.8.4", "--max-model-len", "32k") is None
    # mend2: an empty or "None" --quantization is None to every release's type, and refused by the choices of 0.9.0 to
    # 0.12.0 only (the Literal's values with the word "None"; None itself listed before, a metavar from 0.13.0)
    refused = [r for r in ("0.8.4", "0.8.5", "0.9.0", "0.10.1", "0.11.2", "0.12.0", "0.13.0", "0.34.0")
               if judged(r, "--quantization=") is not None]
    assert refused == ["0.9.0", "0.10.1", "0.11.2", "0.12.0"]
    assert [judged(r, "--quantization", "None") is not None for r in ("0.8.5", "0.9.0", "0.13.0")] == [
        False, True, False]
    assert judged("0.10.1", "--quantization", "fp8") is None
    # review30: the short spelling `-q` (add_argument("--quantization", "-q", ...), engine/arg_utils.py of the 0.12.0,
    # 0.19.0, 0.25.1, 0.26.0 and 0.29.0 wheels) with an empty value, as a word or after `=` (argparse splits `-q=` at
    # the `=`), is the same refusal; another short flag's value (`-tp 2`, `-O3`) is nothing judged here
    assert [judged(r, "-q", "") is not None for r in ("0.8.5", "0.9.0", "0.12.0", "0.13.0")] == [
        False, True, True, False]
    long = judged("0.10.1", "--quantization=", "-tp", "2")
    assert long is not None and judged("0.10.1", "-q=") == ("-q=", long[1])
    assert judged("0.10.1", "-q", "") == ("", long[1])
    assert judged("0.10.1", "-q", "None") is not None
    assert judged("0.10.1", "-q", "fp8", "-tp", "2", "-O3") is None
    # mend2: CacheConfig.gpu_memory_utilization admits None in 0.34.0 only: an empty value is unset there, float()'s
    # refusal before
    assert [judged(r, "--gpu-memory-utilization=") is not None for r in ("0.8.4", "0.20.0", "0.33.0", "0.34.0")] == [
        True, True, True, False]
    assert judged("0.33.0", "--gpu-memory-utilization", "None") is not None
    assert judged("0.33.0", "--gpu-memory-utilization", "0.9") is None
    assert judged("0.12.0", "--quantization=") == (
        "--quantization=", "an empty `--quantization` is not a value vLLM 0.12.0 (the release the image names) takes: "
        "its argument parser turns it into None and checks that against the quantization methods it lists, which "
        "hold the word 'None', not None (engine/arg_utils.py get_kwargs, 0.9.0 to 0.12.0), so it exits at start-up "
        "(\"invalid choice: None\") and the pod crash-loops; drop the flag (vLLM then reads the checkpoint's "
        "quantization_config), or use an image of vLLM 0.13.0 or later, which reads it as unset")
    assert judged("0.8.3", "--max-model-len", "32768") is None
    assert judged("0.9.0", "--max_num_batched_tokens=8K") is not None  # `_` for `-`, the inline shape
    assert judged("0.9.1", "--max-num-batched-tokens", "8K") is None
    assert judged("0.8.3", "--max-model-len", "$(LEN)") is None  # a reference: not judged
    assert judged("0.8.3", "--", "--max-model-len", "32k") is None  # after `--`: not vLLM's
    got = judged("0.10.2", "--kv-cache-dtype", "bfloat16")
    assert got is not None and got[1] == (
        "`--kv-cache-dtype bfloat16` is not a value vLLM 0.10.2 (the release the image names) takes: its argument "
        "parser's choices there are auto, fp8, fp8_e4m3, fp8_e5m2, fp8_inc (bfloat16 came in 0.11.0), so it exits "
        "at start-up (\"invalid choice\") and the pod crash-loops; use an image of vLLM 0.11.0 or later")
    assert judged("0.11.0", "--kv-cache-dtype", "bfloat16") is None
    assert judged("0.32.0", "--kv-cache-dtype", "octave_k3v4") is not None  # came in 0.33.0
    assert judged("0.33.0", "--kv-cache-dtype", "octave_k3v4") is None
    assert judged("0.10.2", "--kv-cache-dtype", "fp9") is None  # no release takes it: args.py refuses it
    at = parse_version("0.8.3")
    assert at is not None  # another program's parser: not judged
    assert release_value_refused(["python", "-m", "dynamo.vllm", "--max-model-len", "32k"],
                                 ["--max-model-len", "32k"], at) is None


def test_a_refused_value_names_the_word_that_holds_it():
    import pytest
    from shardwise.rules.vllm.args import RefusedValue, parse_serve_args

    with pytest.raises(RefusedValue) as e:
        parse_serve_args(["m", "--max-num-seqs", "8", "--gpu-memory-utilization", "1.5"])
    assert (e.value.at, e.value.inline, e.value.crash) == (
        4, False, "--gpu-memory-utilization: '1.5' is not a fraction greater than 0 and at most 1: vLLM refuses it "
                  "at start-up (it exits) and the pod crash-loops")
    with pytest.raises(RefusedValue) as e:
        parse_serve_args(["m", "--dtype=bfloat17"])
    assert (e.value.at, e.value.inline) == (1, True)
    with pytest.raises(RefusedValue) as e:
        parse_serve_args(["m", "--enforce-eager=yes-please"])
    assert (e.value.at, e.value.inline) == (1, True)
    with pytest.raises(Exception) as e:  # shardwise cannot size it, vLLM may take it: an input error, not a crash
        parse_serve_args(["m", "--gpu-memory-utilization", "nan"])
    assert not isinstance(e.value, RefusedValue) and str(e.value) == (
        "--gpu-memory-utilization: 'nan' is not a finite number")


def test_no_logged_start_up_is_refused_for_its_quantization():
    """quant49: every public start-up log with `--quantization` started; where its model is a catalog id, the
    checkpoint's own quantisation refuses none of them (four, all `--quantization fp8` on a BF16 checkpoint: online)."""
    import json
    import sys
    from pathlib import Path

    from shardwise.rules.catalog.lookup import find_model_exact
    from shardwise.rules.vllm.flags import checkpoint_quantization_refused

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "capacity"))
    from startup_logs import SETS

    judged = []
    for path in SETS:
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data if isinstance(data, list) else data["cases"]:
            q = (case.get("settings") or {}).get("quantization")
            shape = find_model_exact(case["model"]) if q is not None else None
            if shape is not None:
                judged.append((case["model"], q))
                assert checkpoint_quantization_refused(q, case["model"], shape.quantization, shape.precision) is None
    assert sorted(judged) == [("Qwen/Qwen3-30B-A3B-Instruct-2507", "fp8"), ("ibm-granite/granite-4.0-micro", "fp8"),
                              ("mistralai/Mistral-7B-Instruct-v0.3", "fp8"), ("zai-org/GLM-5.1", "fp8")]


def test_checkpoint_quantization_refused_by_pair():
    """quant49: which (checkpoint format, --quantization) pairs vLLM refuses at every release read, and which it
    starts or shardwise does not judge (_verify_quantization, the override methods, get_quant_config)."""
    from shardwise.rules.vllm.flags import checkpoint_quantization_refused as refused

    assert refused("gptq", "m/x", None, "fp16") == (
        "`--quantization gptq` loads a GPTQ checkpoint, and m/x has fp16 weights and no quantization_config: vLLM "
        "raises \"Cannot find the config file for gptq\" while loading it (get_quant_config, model_executor/"
        "model_loader/weight_utils.py, every release read: 0.6.6.post1, 0.9.2, 0.11.0, 0.14.1, 0.19.0, 0.25.1, "
        "0.33.0 and 0.34.0) and the pod crash-loops; drop --quantization, use one that quantises at load (fp8, "
        "bitsandbytes), or serve a GPTQ checkpoint of the model")
    assert refused("awq", "m/y", "compressed-tensors", "int4") == (
        "`--quantization awq` does not match m/y's own quantization_config (quant_method compressed-tensors), and "
        "no override method takes it: vLLM raises \"Quantization method specified in the model config "
        "(compressed-tensors) does not match the quantization method specified in the `quantization` argument "
        "(awq).\" (ModelConfig._verify_quantization, every release read: 0.6.6.post1, 0.9.2, 0.11.0, 0.14.1, "
        "0.19.0, 0.25.1, 0.33.0 and 0.34.0) and the pod crash-loops; drop --quantization (vLLM reads the "
        "checkpoint's own method) or write --quantization compressed-tensors")
    # starts: online quantisation of a 16-bit checkpoint, the checkpoint's own method, the marlin overrides
    assert refused("fp8", "m/x", None, "bf16") is None
    assert refused("bitsandbytes", "m/x", None, "bf16") is None
    assert refused("fp8", "m/x", "fp8", "fp8") is None
    assert refused("awq", "m/x", "awq", "int4") is None  # not judged: awq_marlin / auto_awq take it
    # not judged: an mxfp4 checkpoint (gpt_oss_mxfp4 overrides from 0.2x), an auto-round one (inc claims it),
    # a checkpoint whose weights are not 16/32-bit yet whose method is unstated
    assert refused("gptq", "m/x", "mxfp4", "mxfp4") is None
    assert refused("gptq", "m/x", "auto-round", "int4") is None
    assert refused("awq", "m/x", None, "int4") is None
    # read48: a load-time method on an AWQ or GPTQ checkpoint: no override method takes fp8 or bitsandbytes there
    assert refused("fp8", "m/awq", "awq", "int4") == (
        "`--quantization fp8` does not match m/awq's own quantization_config (quant_method awq), and no override "
        "method takes it: vLLM raises \"Quantization method specified in the model config (awq) does not match the "
        "quantization method specified in the `quantization` argument (fp8).\" (ModelConfig._verify_quantization, "
        "every release read: 0.6.6.post1, 0.9.2, 0.11.0, 0.14.1, 0.19.0, 0.25.1, 0.33.0 and 0.34.0) and the pod "
        "crash-loops; drop --quantization (vLLM reads the checkpoint's own method, through its Marlin kernels where "
        "the GPU has them) or write --quantization awq")
    assert refused("bitsandbytes", "m/gptq", "GPTQ", "int4") is not None
    assert refused("fp8", "m/x", "mxfp4", "mxfp4") is None  # not judged: gpt_oss_mxfp4's override
    # mend37: no override claims an fp8, compressed-tensors or fbgemm_fp8 checkpoint, whatever the flag (read49)
    assert refused("fp8", "zai-org/GLM-4.5-Air-FP8", "compressed-tensors", "fp8") == (
        "`--quantization fp8` does not match zai-org/GLM-4.5-Air-FP8's own quantization_config (quant_method "
        "compressed-tensors), and no override method takes it: vLLM raises \"Quantization method specified in the model "
        "config (compressed-tensors) does not match the quantization method specified in the `quantization` argument "
        "(fp8).\" (ModelConfig._verify_quantization, every release read: 0.6.6.post1, 0.9.2, 0.11.0, 0.14.1, 0.19.0, "
        "0.25.1, 0.33.0 and 0.34.0) and the pod crash-loops; drop --quantization (vLLM reads the checkpoint's own "
        "method) or write --quantization compressed-tensors")
    assert "(quant_method fbgemm_fp8)" in (refused("fp8", "m/405b", "fbgemm_fp8", "fp8") or "")
    assert "(quant_method fp8)" in (refused("modelopt", "m/qwen", "fp8", "fp8") or "")
    assert "(quant_method compressed-tensors)" in (refused("fp8", "m/x", "compressed_tensors", "fp8") or "")
    assert refused("compressed-tensors", "m/x", "compressed-tensors", "fp8") is None  # its own method
    assert refused("fp8", "m/x", "modelopt", "fp8") is None  # ModelOpt's override claims it whatever the flag


def test_a_mamba_cache_dtype_is_refused_outside_the_releases_choices():
    """MambaDType (config/cache.py; vllm/config.py in 0.10.x), read in every source distribution from 0.10.1 to
    0.34.0: auto/float32 from 0.10.1, float16 from 0.13.0, bfloat16 from 0.22.0; argparse's choices count case."""
    from shardwise.rules.vllm.flags import release_value_refused

    def judged(release: str, *tokens: str) -> tuple[str, str] | None:
        at = parse_version(release)
        assert at is not None
        return release_value_refused(["vllm", "serve", "m", *tokens], list(tokens), at)

    assert judged("0.21.0", "--mamba-ssm-cache-dtype", "bfloat16") == ("bfloat16", (
        "`--mamba-ssm-cache-dtype bfloat16` is not a value vLLM 0.21.0 (the release the image names) takes: its "
        "argument parser's choices there are auto, float32, float16 (MambaDType, config/cache.py; bfloat16 came in "
        "0.22.0), so it exits at start-up (\"invalid choice\") and the pod crash-loops; use an image of vLLM 0.22.0 "
        "or later"))
    assert judged("0.22.0", "--mamba-ssm-cache-dtype", "bfloat16") is None
    assert judged("0.12.0", "--mamba_cache_dtype=float16") == ("--mamba_cache_dtype=float16", (
        "`--mamba-cache-dtype float16` is not a value vLLM 0.12.0 (the release the image names) takes: its argument "
        "parser's choices there are auto, float32 (MambaDType, config/cache.py; float16 came in 0.13.0), so it exits "
        "at start-up (\"invalid choice\") and the pod crash-loops; use an image of vLLM 0.13.0 or later"))
    assert judged("0.13.0", "--mamba-cache-dtype", "float16") is None
    assert judged("0.10.1", "--mamba-cache-dtype", "float32") is None
    got = judged("0.34.0", "--mamba-ssm-cache-dtype", "BFloat16")
    assert got is not None and got[1].endswith(
        "so it exits at start-up (\"invalid choice\") and the pod crash-loops; write one of them (auto, float32, "
        "float16, bfloat16; no release read to 0.34.0 takes BFloat16)")
    assert judged("0.10.0", "--mamba-cache-dtype", "float64") is None  # the flag itself is absent there (SW003 too)
    assert judged("0.28.0", "--mamba-ssm-cache-dtype", "$(DTYPE)") is None  # a reference: not judged


def test_an_image_naming_no_release_read_is_judged_on_what_every_release_refuses():
    from shardwise.rules.vllm.flags import unread_release_refusal

    def judged(image: str | None, *tokens: str) -> tuple[str, str] | None:
        return unread_release_refusal(["vllm", "serve", "m", *tokens], list(tokens), image)

    got = judged("vllm/vllm-openai:latest", "--intra-node-data-parallel-size", "2")
    assert got == ("--intra-node-data-parallel-size", (
        "`--intra-node-data-parallel-size` is defined by no vLLM release read, 0.5.0 to 0.34.0 (no option string of "
        "any is or begins with it), so each exits at start-up on it (\"unrecognized arguments\"); the image "
        "vllm/vllm-openai:latest names no release read: unless its vLLM is newer than 0.34.0 or a build of its own "
        "that takes it, the pod crash-loops; pin a release tag (vllm/vllm-openai:v0.34.0) or declare the release "
        "the image holds (the annotation shardwise.dev/vllm-version) to have it judged for sure; did you mean `--new-data-parallel-size`?"))
    assert judged("vllm/vllm-openai:nightly", "--mamba-ssm-cache-dtype", "fp8_e4m3") == ("fp8_e4m3", (
        "`--mamba-ssm-cache-dtype fp8_e4m3` is a value no vLLM release read takes (0.10.1 to 0.34.0; its choices in "
        "0.34.0 are auto, float32, float16, bfloat16: MambaDType, config/cache.py), so each exits at start-up on it "
        "(\"invalid choice\"); the image vllm/vllm-openai:nightly names no release read: unless its vLLM is newer "
        "than 0.34.0 or a build of its own that takes it, the pod crash-loops; pin a release tag "
        "(vllm/vllm-openai:v0.34.0) or declare the release the image holds (the annotation "
        "shardwise.dev/vllm-version) to have it judged for sure"))
    assert judged(None, "--gpu-memory-utilisation", "0.9") is not None  # no image at all
    # defined by some release read (removed, added late), a unique prefix, `_` for `-`, after `--`: not judged
    assert judged("vllm/vllm-openai:latest", "--swap-space", "4", "--enable-extensible-kv-cache", "--gpu-memory",
                  "0.9", "--max_model_len", "8192", "--", "--wrapper-only") is None
    assert judged("vllm/vllm-openai:latest", "--mamba-ssm-cache-dtype", "bfloat16") is None  # the newest takes it
    assert judged("vllm/vllm-openai:latest", "--$(EXTRA_FLAG)") is None  # a reference: its name is not known
    assert judged("vllm/vllm-openai:v0.4.2", "--bogus-flag-xyz") is None  # older than every release read
    assert unread_release_refusal(["python3", "-m", "dynamo.vllm", "--bogus-flag-xyz"], ["--bogus-flag-xyz"],
                                  "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.0") is None  # another program's parser


def test_an_hf_overrides_that_is_json_but_no_object_is_refused_from_0_10():
    """hfover19: 0.10.0 - 0.34.0 hand a value that is not `{...}` on as a string (``union_dict_and_str``) and
    ModelConfig refuses it; 0.9.2 and before (``type=json.loads``) are not judged; an object, text that is not JSON
    (args.py's, on every release) and a reference are not this check's."""
    from shardwise.rules.vllm.flags import not_a_json_object, release_value_refused, unread_release_refusal
    from shardwise.rules.vllm.versions import parse_version

    assert [not_a_json_object(v) for v in ("null", " [] ", '"yarn"', "131072", "1.5", "true", "{}", '{"a": 1}',
                                           "{'a': 1}", "$(HF)", "")] == [
        "null", "an array", "a string", "a number", "a number", "a boolean", None, None, None, None, None]
    for release, refused in (("0.9.2", False), ("0.10.0", True), ("0.18.0", True), ("0.34.0", True)):
        tokens = ["--model", "Qwen/Qwen3-32B", "--hf-overrides", "null"]
        found = release_value_refused(["vllm", "serve", *tokens], tokens, parse_version(release))
        assert (found is not None) == refused, release
        if found is not None:
            assert found[0] == "null" and found[1].startswith("`--hf-overrides null` is null, not a JSON object")
    tokens = ["--hf-overrides=[]"]
    assert release_value_refused(tokens, tokens, parse_version("0.11.0"))[0] == "--hf-overrides=[]"
    assert release_value_refused(["--hf-overrides", "{}"], ["--hf-overrides", "{}"], parse_version("0.11.0")) is None
    latest = unread_release_refusal(["--hf-overrides", "5"], ["--hf-overrides", "5"], "vllm/vllm-openai:latest")
    assert latest is not None and "every release read from 0.10.0 to 0.34.0 exits at start-up on it" in latest[1]
    assert unread_release_refusal(["--hf-overrides", "5"], ["--hf-overrides", "5"], "vllm/vllm-openai:v0.9.2.post9") \
        is None


# mend1: an option that takes no value (a switch) written with one makes the release's argparse exit


def test_the_switch_data_holds_exactly_the_releases_collected_and_only_their_options():
    from shardwise.rules.vllm.options import OPTION_RELEASES, release_options
    from shardwise.rules.vllm.switches import _load, releases_read

    assert releases_read() == OPTION_RELEASES
    for release, names in _load().items():
        options = set(release_options(release) or ())
        assert names and names <= options, (release, sorted(names - options))


@pytest.mark.parametrize(("release", "tokens", "word"), [
    # corpus28's shapes on 0.6.3: store_true there
    ("0.6.3", ["--model", "m", "--disable-log-stats=false"], "--disable-log-stats=false"),
    ("0.6.3", ["--model", "m", "--enable-prefix-caching=$(X)"], "--enable-prefix-caching=$(X)"),
    ("0.6.3", ["--model", "m", "--disable_log_stats=false"], "--disable_log_stats=false"),  # `_` read as `-`
    ("0.12.0", ["m", "--enforce-eager", "true"], "true"),  # after the model: a positional nothing takes
    ("0.12.0", ["--model", "m", "--enforce-eager", "False"], "False"),
    ("0.12.0", ["m", "--no-enforce-eager=true"], "--no-enforce-eager=true"),  # BooleanOptionalAction's --no- form
    ("0.8.5", ["--model", "m", "--trust-remote-code=True"], "--trust-remote-code=True"),
    # StoreBoolean (nargs="?") on 0.6.3: it takes a value
    ("0.6.3", ["--model", "m", "--enable-chunked-prefill=false"], None),
    ("0.12.0", ["--trust-remote-code", "m"], None),  # the model after a switch is the positional model
    ("0.12.0", ["--enforce-eager", "true"], None),  # no model besides: `true` would be read as the model
    ("0.12.0", ["m", "--enforce-eager"], None),
    ("0.12.0", ["m", "--max-model-len=8192"], None),  # an option that takes a value
])
def test_a_switch_given_a_value_is_refused_by_the_release(release: str, tokens: list[str], word: str | None) -> None:
    from shardwise.rules.vllm.flags import release_value_refused

    found = release_value_refused(["vllm", "serve", *tokens], tokens, parse_version(release))
    assert (found[0] if found else None) == word
    if found:
        assert f"takes no value in vLLM {release} (the release the image names)" in found[1]
        assert "exits at start-up" in found[1]


def test_a_switch_given_a_value_on_an_image_naming_no_release_read_is_advisory():
    from shardwise.rules.vllm.flags import switch_at_every_release, unread_release_refusal

    assert switch_at_every_release("enforce-eager") and switch_at_every_release("trust-remote-code")
    assert not switch_at_every_release("enable-chunked-prefill")  # StoreBoolean in the 0.5 and 0.6 releases
    assert not switch_at_every_release("max-model-len")
    tokens = ["m", "--enforce-eager=true"]
    found = unread_release_refusal(["vllm", "serve", *tokens], tokens, "vllm/vllm-openai:latest")
    assert found is not None and found[0] == "--enforce-eager=true"
    assert found[1].startswith("`--enforce-eager` takes no value at any vLLM release read (0.5.0 to 0.34.0, each")


def test_gaudi_fork_builds_are_not_judged_by_a_declared_release():
    """capacity5: HabanaAI/vllm-fork's parser is not the upstream release its version names (fp8_inc before 0.10.0,
    --use-padding-aware-scheduling), so a Gaudi image is a fork build; upstream images are not."""
    assert fork_build("opea/vllm-gaudi:1.3")
    assert fork_build("vault.habana.ai/gaudi-docker/1.21.0/ubuntu22.04/habanalabs/vllm-installer-2.6.0:1.21.0-555")
    assert fork_build("ghcr.io/example/vllm-fork:v0.6.6.post1")
    assert fork_build("registry.example.com/vllm-hpu:0.9.1")
    assert not fork_build("vllm/vllm-openai:v0.9.1")
    assert not fork_build("rocm/vllm:latest")
    assert not fork_build("registry.example.com/vllm-chpu:1")  # hpu inside a word is not the device
    assert not fork_build(None)

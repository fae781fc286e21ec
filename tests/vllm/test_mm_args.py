"""vLLM's parser of --limit-mm-per-prompt and --mm-processor-kwargs, by release (rules/vllm/mm_args.py): the words
``vllm serve`` exits with, as engine/arg_utils.py of 0.6.3 - 0.22.0 writes them."""

from __future__ import annotations

import pytest
from shardwise.rules.vllm.mm_args import KWARGS_FLAG, LIMIT_FLAG, parse_error, refusal
from shardwise.rules.vllm.versions import behaviour

LOADS = "<function loads at 0x…>"


@pytest.mark.parametrize(("release", "limit", "kwargs"), [
    ("0.6.3", "kvs", "loads"), ("0.8.3", "kvs", "loads"), ("0.8.4", "kvs", "loads"),
    ("0.8.5", "json-or-kvs", "loads"), ("0.9.2", "json-or-kvs", "json-or-kvs"),
    ("0.10.0", "json", "json"), ("0.11.0", "json", "json"), ("0.14.0", "json", "json"), ("0.22.0", "json", "json"),
])
def test_each_release_reads_the_flags_as_its_arg_utils_does(release, limit, kwargs):
    b = behaviour(release)
    assert (b.mm_limit_parse, b.mm_kwargs_parse) == (limit, kwargs)


def test_key_value_pairs_up_to_0_8_4():
    assert parse_error(LIMIT_FLAG, "image=1,video=0", "kvs") is None
    assert parse_error(LIMIT_FLAG, "IMAGE = 2", "kvs") is None  # keys lower-cased, parts stripped
    assert parse_error(LIMIT_FLAG, "", "kvs") is None  # nullable_kvs: no limit
    assert parse_error(LIMIT_FLAG, "image=x", "kvs") == (
        "argument --limit-mm-per-prompt: Failed to parse value of item image=x")
    assert parse_error(LIMIT_FLAG, '{"image": 1}', "kvs") == (
        "argument --limit-mm-per-prompt: Each item should be in the form KEY=VALUE")
    assert parse_error(LIMIT_FLAG, "image=1,image=2", "kvs") == (
        "argument --limit-mm-per-prompt: Conflicting values specified for key: image")


def test_json_loads_as_argparse_converts_it_up_to_0_8_5():
    assert parse_error(KWARGS_FLAG, '{"max_pixels": 1003520}', "loads") is None
    assert parse_error(KWARGS_FLAG, "{max_pixels: 1003520}", "loads") == (
        "argument --mm-processor-kwargs: invalid loads value: '{max_pixels: 1003520}'")
    assert parse_error(KWARGS_FLAG, "max_pixels=1003520", "loads") == (
        "argument --mm-processor-kwargs: invalid loads value: 'max_pixels=1003520'")


def test_json_or_pairs_in_0_8_5_to_0_9():
    assert parse_error(LIMIT_FLAG, '{"image": 2, "video": 0}', "json-or-kvs") is None
    assert parse_error(LIMIT_FLAG, "image=2,video=0", "json-or-kvs") is None  # deprecated, still read
    assert parse_error(KWARGS_FLAG, "max_pixels=1003520", "json-or-kvs") is None
    assert parse_error(KWARGS_FLAG, "None", "json-or-kvs") is None
    assert parse_error(LIMIT_FLAG, "{image: 2}", "json-or-kvs") == (
        f"argument --limit-mm-per-prompt: Value {{image: 2}} cannot be converted to {LOADS}.")
    assert parse_error(LIMIT_FLAG, "image=two", "json-or-kvs") == (
        "argument --limit-mm-per-prompt: Failed to parse value of item image=two")


def test_json_only_from_0_10():
    assert parse_error(LIMIT_FLAG, '{"image": {"count": 1}, "video": 0}', "json") is None
    assert parse_error(KWARGS_FLAG, '{"max_pixels": 1003520}', "json") is None
    assert parse_error(KWARGS_FLAG, "", "json") is None  # an Optional field: "" and "None" are None
    assert parse_error(LIMIT_FLAG, "image=1,video=0", "json") == (
        f"argument --limit-mm-per-prompt: Value image=1,video=0 cannot be converted to {LOADS}.")
    assert parse_error(LIMIT_FLAG, "None", "json") == (
        f"argument --limit-mm-per-prompt: Value None cannot be converted to {LOADS}.")
    assert parse_error(KWARGS_FLAG, "{'max_pixels': 1003520}", "json") == (
        f"argument --mm-processor-kwargs: Value {{'max_pixels': 1003520}} cannot be converted to {LOADS}.")


def test_the_refusal_names_the_flag_the_release_and_what_it_reads():
    assert refusal(LIMIT_FLAG, '{"image": 1}', "json", "0.11.0") is None
    assert refusal(LIMIT_FLAG, "image=1", "json", "0.11.0") == (
        "--limit-mm-per-prompt 'image=1' is not what vLLM 0.11.0 reads there (JSON only ('{\"image\": 1}'; the "
        "KEY=VALUE pairs were read up to 0.9)): it exits with \"argument --limit-mm-per-prompt: Value image=1 cannot "
        f"be converted to {LOADS}.\"")


def test_quotes_no_shell_removes_are_named_where_the_text_inside_is_read():
    """A container's args reach vLLM as written (GKE Model Garden's gemma3-12b-deploy.yaml in the wide corpus has
    ``--limit_mm_per_prompt='image=5'``): the refusal says the quotes are the cause where the text inside is read."""
    assert refusal(LIMIT_FLAG, "'image=5'", "kvs", "0.8.4") == (
        "--limit-mm-per-prompt \"'image=5'\" is not what vLLM 0.8.4 reads there (KEY=VALUE pairs of integers "
        "(image=1,video=0); JSON only from 0.8.5): it exits with \"argument --limit-mm-per-prompt: Failed to parse "
        "value of item 'image=5'\"; the quotes are part of the value (Kubernetes passes a container's args as written; "
        "only a shell would remove them): image=5 without them is read")
    assert refusal(KWARGS_FLAG, "'{\"do_pan_and_scan\": true}'", "json", "0.11.0").endswith(
        "; the quotes are part of the value (Kubernetes passes a container's args as written; only a shell would "
        "remove them): {\"do_pan_and_scan\": true} without them is read")
    # inside the quotes the 0.11 parser still refuses pairs: the quotes are not named as the cause
    assert refusal(LIMIT_FLAG, "'image=5'", "json", "0.11.0") == (
        "--limit-mm-per-prompt \"'image=5'\" is not what vLLM 0.11.0 reads there (JSON only ('{\"image\": 1}'; the "
        "KEY=VALUE pairs were read up to 0.9)): it exits with \"argument --limit-mm-per-prompt: Value 'image=5' "
        f"cannot be converted to {LOADS}.\"")
    assert refusal(LIMIT_FLAG, "image=x", "kvs", "0.8.4") == (
        "--limit-mm-per-prompt 'image=x' is not what vLLM 0.8.4 reads there (KEY=VALUE pairs of integers "
        "(image=1,video=0); JSON only from 0.8.5): it exits with \"argument --limit-mm-per-prompt: Failed to parse "
        "value of item image=x\"")


def test_where_the_release_is_assumed_the_refusal_says_no_release_reads_the_value():
    from shardwise.rules.vllm.mm_args import no_release_reads
    assert no_release_reads(LIMIT_FLAG, "'image=5'") == (
        "; no vLLM release reads it: the quotes are part of the value (Kubernetes passes a container's args as written; "
        "only a shell would remove them), and image=5 without them is read by some releases")
    assert no_release_reads(LIMIT_FLAG, "image=x") == "; no vLLM release reads it"
    assert no_release_reads(LIMIT_FLAG, "'image=x'") == "; no vLLM release reads it"


def test_a_refusal_is_quotes_only_where_the_text_inside_them_is_read():
    """Only such a refusal depends on whether a shell stands between Kubernetes and vLLM's parser (an image's own
    entrypoint script may be one): the others are refused whatever removes the quotes."""
    from shardwise.rules.vllm.mm_args import quotes_only
    assert quotes_only(LIMIT_FLAG, "'image=5'", "kvs") is True
    assert quotes_only(LIMIT_FLAG, "'image=5'", "json") is False  # 0.10+ refuses image=5 too
    assert quotes_only(LIMIT_FLAG, "'{\"image\": 5}'", "json") is True
    assert quotes_only(LIMIT_FLAG, "image=x", "kvs") is False  # no quotes
    assert quotes_only(LIMIT_FLAG, "'image=5'", None) is True  # release assumed: read up to 0.9
    assert quotes_only(LIMIT_FLAG, "'image=x'", None) is False  # no release reads image=x
    assert quotes_only(KWARGS_FLAG, "'{\"max_pixels\": 1003520}'", "json") is True


def test_every_parse_a_release_has_is_listed():
    from shardwise.rules.vllm.mm_args import EVERY_PARSE
    from shardwise.rules.vllm.versions import RANGES
    seen_limit = {b.mm_limit_parse for b in RANGES}
    seen_kwargs = {b.mm_kwargs_parse for b in RANGES}
    assert (seen_limit, seen_kwargs) == (set(EVERY_PARSE[LIMIT_FLAG]), set(EVERY_PARSE[KWARGS_FLAG]))


@pytest.mark.parametrize(("flag", "value", "every"), [
    (LIMIT_FLAG, "image=2", False),  # read up to 0.9
    (LIMIT_FLAG, '{"image": 2}', False),  # read from 0.8.5
    (LIMIT_FLAG, "image=x", True),  # neither pairs of integers nor JSON
    (KWARGS_FLAG, '{"max_pixels": 1003520}', False),
    (KWARGS_FLAG, "{max_pixels: 1003520}", True),  # not JSON, nor pairs
    (LIMIT_FLAG, "'image=5'", True),  # shell quotes kept in exec args: "5'" is no integer, and it is not JSON
])
def test_a_value_some_release_reads_is_not_refused_by_every_release(flag, value, every):
    from shardwise.rules.vllm.mm_args import refused_by_every_release
    assert refused_by_every_release(flag, value) is every

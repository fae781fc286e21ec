"""Container command lines -> EngineArgs: every launch form and flag spelling the adapter accepts."""

from __future__ import annotations

import re
import shlex

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings
from shardwise.rules.model import UNKNOWN, UNKNOWN_TOKEN, EngineArgs, Location
from shardwise.rules.model.errors import InputError
from shardwise.rules.model.unknown import PLACEHOLDER_VALUE
from shardwise.rules.vllm.args import (
    bench_subcommand,
    downloads_weights_only,
    expand_k8s,
    find_vllm_invocation,
    parse_vllm_command,
    script_words,
)

LOC = Location("deploy.yaml", 12)


def parse(command, args=(), env=None, image=None, location=None):
    return parse_vllm_command(list(command), list(args), env or {}, image, location)


# --- launch forms ------------------------------------------------------------------------------


def test_vllm_serve_positional_model_and_flags():
    e = parse(["vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "4",
               "--max-model-len", "32768", "--gpu-memory-utilization", "0.95"])
    assert e == EngineArgs(model="meta-llama/Llama-3.1-70B-Instruct", tensor_parallel_size=4,
                           max_model_len=32768, gpu_memory_utilization=0.95)


def test_command_and_args_split_after_serve():
    e = parse(["vllm", "serve"], ["Qwen/Qwen3-8B", "--max-num-seqs", "64"])
    assert (e.model, e.max_num_seqs) == ("Qwen/Qwen3-8B", 64)


def test_command_and_args_split_after_vllm():
    e = parse(["/usr/local/bin/vllm"], ["serve", "Qwen/Qwen3-8B", "-tp", "2"])
    assert (e.model, e.tensor_parallel_size) == ("Qwen/Qwen3-8B", 2)


def test_python_module_api_server_with_model_equals():
    e = parse(["python3", "-m", "vllm.entrypoints.openai.api_server"],
              ["--model=Qwen/Qwen2.5-7B-Instruct", "--dtype=bfloat16", "--port=8080"])
    assert (e.model, e.dtype, e.port) == ("Qwen/Qwen2.5-7B-Instruct", "bfloat16", 8080)


def test_vllm_grpc_server_takes_the_engine_args():
    # vllm/entrypoints/grpc_server.py ("python -m vllm.entrypoints.grpc_server --model <model_path>"), as the
    # gateway-api-inference-extension's gpu-grpc-deployment.yaml runs it
    e = parse(["python3", "-m", "vllm.entrypoints.grpc_server"],
              ["--model", "Qwen/Qwen3-32B", "--tensor-parallel-size", "1", "--gpu-memory-utilization", "0.90",
               "--max-model-len", "16000", "--port", "8000"])
    assert (e.model, e.tensor_parallel_size, e.gpu_memory_utilization, e.max_model_len, e.port) == (
        "Qwen/Qwen3-32B", 1, 0.9, 16000, 8000)


def test_python_unbuffered_flag_before_module():
    e = parse(["python", "-u", "-m", "vllm.entrypoints.openai.api_server", "--model", "m/x"])
    assert e.model == "m/x"


def test_python_api_server_positional_goes_to_extra():
    e = parse(["python3.11", "-m", "vllm.entrypoints.openai.api_server", "--model", "m/x", "stray"])
    assert (e.model, e.extra) == ("m/x", {"positional": ["stray"]})


def test_serve_model_flag_and_positional_positional_wins():
    e = parse(["vllm", "serve", "org/positional", "--model", "org/flag"])
    assert e.model == "org/positional"


def test_sh_c_script_with_exec_and_and_and():
    script = "pip install hf_transfer && exec vllm serve mistralai/Mistral-7B-Instruct-v0.3 --enforce-eager"
    e = parse(["sh", "-c", script])
    assert (e.model, e.enforce_eager) == ("mistralai/Mistral-7B-Instruct-v0.3", True)


def test_bash_lc_multiline_script_with_comments_continuations_and_redirects():
    script = (
        "set -e\n"
        "# start the server\n"
        "echo starting   # trailing comment\n"
        "vllm serve org/m \\\n"
        "  --tensor-parallel-size 2 \\\n"
        "  --max-num-seqs 32 2>&1 | tee /tmp/log\n"
        "echo done\n"
    )
    e = parse(["/bin/bash", "-lc"], [script])
    assert (e.model, e.tensor_parallel_size, e.max_num_seqs, e.extra) == ("org/m", 2, 32, {})


def test_shell_script_after_ray_start():
    e = parse(["sh", "-c", "ray start --head --port=6379; vllm serve org/m -pp 2 --distributed-executor-backend ray"])
    assert (e.model, e.pipeline_parallel_size, e.distributed_executor_backend) == ("org/m", 2, "ray")


def test_a_script_that_runs_one_of_two_vllm_invocations_leaves_what_they_differ_in_unknown():
    """review34: a start script that picks its server by a variable (`if [ "${ROLE}" = prefill ]; then vllm serve …
    -tp 4; else vllm serve … -tp 2; fi`, in a Deployment or a script a ConfigMap mounts) was read as its first
    invocation, and a pod of 2 GPUs that runs the decode branch blocked on SW204 for the prefill branch's TP4. What
    runs is decided when the script runs: what the invocations share is read, where they differ not known."""
    script = ('set -euo pipefail\nif [ "${ROLE}" = "prefill" ]; then\n'
              "  exec vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 4 --port 8000 --enforce-eager\n"
              "else\n  exec vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --port 8000\nfi\n")
    e = parse(["/bin/bash", "-c"], [script], env={"ROLE": "decode"})
    assert (e.model, e.tensor_parallel_size, e.port, e.enforce_eager) == ("Qwen/Qwen2.5-7B-Instruct", UNKNOWN, 8000,
                                                                          UNKNOWN)
    # the same invocation twice, or a client after the server, is the one server as before
    e = parse(["sh", "-c", "vllm serve org/m -tp 2 &\nsleep 60\nvllm serve org/m -tp 2"])
    assert (e.model, e.tensor_parallel_size) == ("org/m", 2)
    # models that differ: the model is a placeholder (not known), as an unset variable's is
    e = parse(["sh", "-c", 'if [ -d /models/a ]; then vllm serve /models/a -tp 2; else vllm serve org/b -tp 2; fi'])
    assert (e.model, e.tensor_parallel_size) == ("${SCRIPT_BRANCH}", 2)


def test_shell_script_without_vllm_is_not_a_server():
    assert parse(["sh", "-c", "ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"]) is None


def test_sh_c_script_passes_its_positional_parameters_with_quoted_at():
    # aws-samples/sample-llm-inference-on-eks k8s-manifest/vllm/glm-5.2-fp8-p5en-vllm.yaml (corpus18): the words after
    # the script are $0 ("vllm") and the positional parameters "$@" expands to (POSIX sh -c)
    script = "lmcache server --l1-size-gb 400 --eviction-policy LRU &\nsleep 5\nexec vllm serve \"$@\"\n"
    e = parse(["bash", "-c"], [script, "vllm", "zai-org/GLM-5.2-FP8", "--host=0.0.0.0", "--tensor-parallel-size=8",
                                "--max-model-len=131072", "--kv-cache-dtype=fp8", "--gpu-memory-utilization=0.85"])
    assert (e.model, e.tensor_parallel_size, e.max_model_len, e.kv_cache_dtype, e.gpu_memory_utilization) == (
        "zai-org/GLM-5.2-FP8", 8, 131072, "fp8", 0.85)
    # `--` as $0, unquoted $*; the script's own flags come first
    e = parse(["sh", "-c", "exec vllm serve --enforce-eager $*", "--", "org/m", "--max-num-seqs", "16"])
    assert (e.model, e.enforce_eager, e.max_num_seqs) == ("org/m", True, 16)
    # nothing after the script: "$@" stays a word shardwise cannot read (the model unknown), as before
    e = parse(["sh", "-c", 'exec vllm serve "$@"'])
    assert (e.model, e.extra["positional"]) == (UNKNOWN, ["$@"])


def test_shell_script_python_api_server():
    e = parse(["bash", "-ec", "python3 -m vllm.entrypoints.openai.api_server --model org/m -tp 8"])
    assert (e.model, e.tensor_parallel_size) == ("org/m", 8)


def test_args_only_on_vllm_openai_image_positional_model():
    e = parse([], ["org/m", "--max-model-len", "4096"], image="vllm/vllm-openai:v0.10.1")
    assert (e.model, e.max_model_len) == ("org/m", 4096)


def test_args_only_on_vllm_openai_image_model_flag():
    e = parse([], ["--model", "org/m"], image="123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm-openai@sha256:ab")
    assert e.model == "org/m"


def test_args_only_on_other_image_is_not_a_server():
    assert parse([], ["--model", "org/m"], image="ghcr.io/example/tgi:2") is None


@pytest.mark.parametrize("image", [
    "opea/vllm-gaudi:1.2",
    "rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521",
    "rocm/vllm-dev:nightly",
    "docker.io/lmcache/vllm-openai:v0.3.1",
    "763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-inference-vllm-neuronx:0.9.1-neuronx-py310-sdk2.24.0",
    "vault.habana.ai/gaudi-docker/1.21.0/ubuntu22.04/habanalabs/vllm-installer-2.6.0:latest",
    "us-docker.pkg.dev/vertex-ai/vertex-vision-model-garden-dockers/pytorch-vllm-serve:latest",
    "public.ecr.aws/data-on-eks/neuron-sdk2.20-vllm0.5.0-neuron:v8",  # a version written onto the word
    "ghcr.io/vllm-project/vllm:v0.11.0",  # the organisation does not count, the repository does
])
def test_args_only_on_derived_vllm_images(image):
    e = parse([], ["--model", "org/m", "--tensor-parallel-size", "2"], image=image)
    assert (e.model, e.tensor_parallel_size) == ("org/m", 2)


@pytest.mark.parametrize("image", [
    "vllm.example.com/team/server:1",  # "vllm" only in the registry host
    "ghcr.io/example/vllmish-server:2",  # not a word of its own
    "ghcr.io/huggingface/text-generation-inference:3.0",
    # vLLM's GitHub organisation publishes its tools too (newuser6: guidellm's Job was "a vLLM image" to SW002)
    "ghcr.io/vllm-project/guidellm:v0.5.0",
    "ghcr.io/vllm-project/semantic-router/extproc:latest",
])
def test_args_only_on_images_that_are_not_vllm(image):
    assert parse([], ["--model", "org/m", "--num-shard", "2"], image=image) is None


@pytest.mark.parametrize(("image", "args"), [
    # HAMi's benchmark job: a client beside the server, its image and its args both a client's
    ("<your-registry>/vllm-bench-client:latest",
     ["--vllm-url", "http://127.0.0.1:8000/v1/chat/completions", "--model", "Qwen3-8B", "--warmup", "30"]),
    # a load generator on a vLLM image: the server's address in a flag vLLM's server does not take
    ("vllm/vllm-openai:v0.10.1", ["--model", "Qwen/Qwen3-8B", "--base-url=http://vllm:8000"]),
    ("ghcr.io/team/vllm-loadgen:1", ["--model", "org/m", "--openai-api-base", "http://vllm:8000/v1"]),
])
def test_args_only_of_a_client_are_not_a_server(image, args):
    assert parse([], args, image=image) is None


def test_args_only_with_a_flag_only_vllm_takes_are_vllm_args_on_any_image():
    e = parse([], ["--model", "org/m", "--gpu-memory-utilization=0.85", "--max_model_len", "8192"],
              image="registry.example.com/ml/llm-server:2024.11")
    assert (e.model, e.gpu_memory_utilization, e.max_model_len) == ("org/m", 0.85, 8192)


def test_args_only_with_shared_flags_on_an_unknown_image_are_not_vllm():
    # SGLang and TGI take --tensor-parallel-size / --served-model-name too: not enough to say vLLM
    assert parse([], ["--model", "org/m", "--tensor-parallel-size", "2", "--served-model-name", "m"],
                 image="lmsysorg/sglang:v0.4.6") is None


def test_vllm_image_without_args_starts_nothing_shardwise_can_read():
    assert parse([], [], image="vllm/vllm-openai:v0.10.1") is None


def test_dynamo_vllm_worker_module():
    e = parse(["python3", "-m", "dynamo.vllm"], ["--model", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"])
    assert (e.model, e.tensor_parallel_size) == ("Qwen/Qwen3-8B", 2)
    e = parse(["/bin/sh", "-c"], ["python3 -m dynamo.vllm --model Qwen/Qwen3-8B --is-prefill-worker"])
    assert (e.model, e.extra) == ("Qwen/Qwen3-8B", {"is_prefill_worker": True})


def test_doubled_serve_reads_serve_as_the_model():
    e = parse([], ["serve", "org/m", "--max-model-len", "4096"], image="vllm/vllm-openai:v0.10.1")
    assert (e.model, e.extra, e.max_model_len) == ("serve", {"positional": ["org/m"]}, 4096)


def test_command_given_on_vllm_image_replaces_entrypoint():
    assert parse(["sleep", "infinity"], [], image="vllm/vllm-openai:latest") is None


def test_non_vllm_container():
    assert parse(["nginx", "-g", "daemon off;"], image="nginx:1.27") is None


def test_wrappers_before_vllm():
    e = parse(["/usr/bin/tini", "--", "vllm", "serve", "org/m"])
    assert e.model == "org/m"


# --- flag spellings ----------------------------------------------------------------------------


def test_equals_and_space_forms_agree():
    a = parse(["vllm", "serve", "m/x", "--max-num-batched-tokens=8192", "--block-size", "32"])
    b = parse(["vllm", "serve", "m/x", "--max-num-batched-tokens", "8192", "--block-size=32"])
    assert (a.max_num_batched_tokens, a.block_size) == (b.max_num_batched_tokens, b.block_size) == (8192, 32)


def test_underscore_spellings():
    e = parse(["vllm", "serve", "m/x", "--tensor_parallel_size", "2", "--max_model_len=2048",
               "--gpu_memory_utilization", "0.8", "--kv_cache_dtype", "fp8"])
    assert (e.tensor_parallel_size, e.max_model_len, e.gpu_memory_utilization, e.kv_cache_dtype) == (
        2, 2048, 0.8, "fp8")


def test_boolean_flags_and_negations():
    e = parse(["vllm", "serve", "m/x", "--enforce-eager", "--enable-expert-parallel",
               "--no-enable-prefix-caching", "--trust-remote-code"])
    assert (e.enforce_eager, e.enable_expert_parallel) == (True, True)
    assert e.extra == {"enable_prefix_caching": False, "trust_remote_code": True}


def test_boolean_flag_with_explicit_value():
    e = parse(["vllm", "serve", "m/x", "--enforce-eager=false", "--enable-chunked-prefill", "False"])
    assert e.enforce_eager is False
    assert (e.enable_chunked_prefill, e.extra) == (False, {})


def test_boolean_flag_does_not_swallow_positional_model():
    e = parse(["vllm", "serve", "--trust-remote-code", "org/m"])
    assert (e.model, e.extra) == ("org/m", {"trust_remote_code": True})


def test_short_parallel_flags():
    e = parse(["vllm", "serve", "m/x", "-tp", "4", "-pp", "2", "-dp", "2", "-q", "fp8", "-ep"])
    assert (e.tensor_parallel_size, e.pipeline_parallel_size, e.data_parallel_size, e.quantization,
            e.enable_expert_parallel) == (4, 2, 2, "fp8", True)


def test_short_flag_with_equals():
    assert parse(["vllm", "serve", "m/x", "-tp=8"]).tensor_parallel_size == 8


def test_human_readable_lengths():
    e = parse(["vllm", "serve", "m/x", "--max-model-len", "32k", "--max-num-batched-tokens", "2K"])
    assert (e.max_model_len, e.max_num_batched_tokens) == (32000, 2048)


def test_a_decimal_with_a_binary_suffix_is_refused_as_vllm_refuses_it():
    """vLLM's human_readable_int (vllm/engine/arg_utils.py, v0.14.1): 25.6k is 25,600, 2K is 2,048, but 1.5M is
    "Decimals are not allowed with binary suffixes"."""
    assert parse(["vllm", "serve", "m/x", "--max-model-len", "25.6k"]).max_model_len == 25600
    with pytest.raises(InputError) as err:
        parse(["vllm", "serve", "m/x", "--max-model-len", "1.5M"], location=LOC)
    assert str(err.value) == "deploy.yaml:12: --max-model-len: '1.5M' is not an integer (e.g. 8192 or 32k)"


def test_max_model_len_auto():
    e = parse(["vllm", "serve", "m/x", "--max-model-len", "auto"])
    assert (e.max_model_len, e.extra) == ("auto", {})


def test_multinode_and_server_flags():
    e = parse(["vllm", "serve", "m/x", "--nnodes", "2", "--node-rank", "1", "--master-addr", "10.0.0.5",
               "--master-port", "29500", "--distributed-executor-backend", "mp", "--port", "8000",
               "--api-key", "s3cr3t", "--host", "0.0.0.0"])
    assert (e.nnodes, e.distributed_executor_backend, e.port) == (2, "mp", 8000)
    assert e.extra == {"node_rank": 1, "master_addr": "10.0.0.5", "master_port": 29500,
                       "api_key": "<redacted>", "host": "0.0.0.0"}


def test_unknown_flags_go_to_extra():
    e = parse(["vllm", "serve", "m/x", "--swap-space", "4", "--chat-template=/t.jinja", "--some-switch",
               "--served-model-name", "llama", "llama-70b", "-O3"])
    assert e.extra == {"swap_space": 4.0, "chat_template": "/t.jinja", "some_switch": True,
                       "served_model_name": ["llama", "llama-70b"], "compilation_config": "3"}


def test_list_valued_flags_take_every_word_up_to_the_next_flag():
    # kedify-on-eks-blueprint's Deployment: `--cudagraph-capture-sizes 1 2 4 8 16 24 32` after `--model`; vLLM
    # gives list-typed settings nargs="+", so none of the sizes is a positional model that would win over --model
    e = parse(["vllm", "serve", "--model", "s3://bucket/models/mistral-7b-awq/", "--max-model-len", "4096",
               "--cudagraph-capture-sizes", "1", "2", "4", "8", "16", "24", "32", "--port", "8000"])
    assert (e.model, e.max_model_len, e.port) == ("s3://bucket/models/mistral-7b-awq/", 4096, 8000)
    assert e.extra == {"cudagraph_capture_sizes": ["1", "2", "4", "8", "16", "24", "32"]}
    e = parse(["vllm", "serve", "org/m", "--cuda-graph-sizes", "1", "2", "--ignore-patterns", "original/**",
               "*.pth"])
    assert e.model == "org/m" and e.extra == {"cuda_graph_sizes": ["1", "2"],
                                              "ignore_patterns": ["original/**", "*.pth"]}


def test_json_valued_flag():
    e = parse(["vllm", "serve", "m/x", "--speculative-config", '{"method": "ngram", "num_speculative_tokens": 5}'])
    assert e.extra == {"speculative_config": '{"method": "ngram", "num_speculative_tokens": 5}'}


# --- bad values ----------------------------------------------------------------------------------


def test_unparseable_number_names_the_flag():
    with pytest.raises(InputError) as err:
        parse(["vllm", "serve", "m/x", "--tensor-parallel-size", "abc"], location=LOC)
    assert str(err.value) == "deploy.yaml:12: --tensor-parallel-size: 'abc' is not an integer"


def test_unparseable_float():
    with pytest.raises(InputError, match=r"--gpu-memory-utilization: 'ninety' is not a number"):
        parse(["vllm", "serve", "m/x", "--gpu-memory-utilization=ninety"])


def test_zero_tensor_parallel_is_rejected():
    with pytest.raises(InputError, match=r"-tp: '0' is not a positive integer"):
        parse(["vllm", "serve", "m/x", "-tp", "0"])


def test_missing_value():
    with pytest.raises(InputError, match=r"--max-model-len: expects a value"):
        parse(["vllm", "serve", "m/x", "--max-model-len"])


# --- environment ---------------------------------------------------------------------------------


def test_k8s_expansion_in_command_and_args():
    env = {"MODEL_ID": "org/m", "TP": "4"}
    e = parse(["vllm", "serve", "$(MODEL_ID)"], ["--tensor-parallel-size", "$(TP)"], env)
    assert (e.model, e.tensor_parallel_size) == ("org/m", 4)


def test_k8s_escaped_reference_stays_literal():
    assert expand_k8s("$$(MODEL) $(MODEL) $(NOPE)", {"MODEL": "x"}) == "$(MODEL) x $(NOPE)"


def test_unresolved_reference_makes_typed_field_unknown_and_keeps_model_literal():
    e = parse(["vllm", "serve", "$(MODEL_ID)", "--tensor-parallel-size", "$(TP)", "--master-addr",
               "$(LWS_LEADER_ADDRESS)"])
    assert e.model == "$(MODEL_ID)"
    assert e.tensor_parallel_size is UNKNOWN
    assert e.extra == {"master_addr": "$(LWS_LEADER_ADDRESS)"}


def test_model_from_env_only_when_referenced():
    with_ref = parse([], ["--model", "$(MODEL_NAME)"], {"MODEL_NAME": "org/m"}, "vllm/vllm-openai")
    without = parse([], ["-tp", "2"], {"MODEL": "org/m", "MODEL_ID": "org/m"}, "vllm/vllm-openai")
    assert with_ref.model == "org/m"
    assert without.model is None


def test_shell_variables_defaults_and_word_splitting():
    script = 'exec vllm serve "$MODEL" --tensor-parallel-size ${TP} --max-num-seqs ${SEQS:-48} $EXTRA'
    env = {"MODEL": "org/m", "TP": "2", "EXTRA": "--enforce-eager --max-model-len 8192"}
    e = parse(["sh", "-c", script], env=env)
    assert (e.model, e.tensor_parallel_size, e.max_num_seqs, e.enforce_eager, e.max_model_len) == (
        "org/m", 2, 48, True, 8192)


def test_shell_assignments_in_script():
    e = parse(["bash", "-c", "export MODEL=org/m\nTP=4\nvllm serve $MODEL -tp $TP"])
    assert (e.model, e.tensor_parallel_size) == ("org/m", 4)


def test_shell_unset_variable_is_unknown():
    e = parse(["sh", "-c", "vllm serve org/m --max-model-len $MAX_LEN"])
    assert e.max_model_len is UNKNOWN


def test_shell_arithmetic_expansion_is_one_unknown_word():
    # llm-d's wide-EP guide (llm-d-incubation/llm-d-infra quickstart/examples/wide-ep-lws/ms-wide-ep/values.yaml):
    # `$((...))` was split at its parentheses, so --data-parallel-size read the word `$` and SW003 blocked a
    # launch the shell computes; the flag after it still reads
    script = ("START_RANK=$(( ${LWS_WORKER_INDEX:-0} * DP_SIZE_LOCAL ))\n"
              "exec vllm serve org/m --tensor-parallel-size $TP_SIZE \\\n"
              "  --data-parallel-size $((LWS_GROUP_SIZE * DP_SIZE_LOCAL)) --data-parallel-size-local $DP_SIZE_LOCAL \\\n"
              "  --data-parallel-start-rank $START_RANK --port 8200")
    e = parse(["/bin/bash", "-c"], [script], env={"TP_SIZE": "1", "DP_SIZE_LOCAL": "8"})
    assert (e.model, e.tensor_parallel_size, e.data_parallel_size, e.port) == ("org/m", 1, UNKNOWN, 8200)
    # an extra flag keeps its unresolved word, as with an unset $VAR
    assert e.extra == {"data_parallel_size_local": 8, "data_parallel_start_rank": "${ARITHMETIC_RESULT}"}


def test_shell_command_substitution_is_one_unknown_word():
    # review18: a command substitution is what the shell prints when the script runs, not a value as written; an
    # unquoted `$(cat FILE)` was split at its parentheses (the flag read the word `$`) and a backquoted `cat FILE`
    # was read as written, so SW003 blocked `--max-model-len` / `--hf-overrides` read from a mounted file
    # (bash(1), Command Substitution: `$(command)` or `` `command` ``)
    for sub in ("$(cat /etc/vllm/len)", '"$(cat /etc/vllm/len)"', "`cat /etc/vllm/len`", '"`cat /etc/vllm/len`"',
                "$(tr -d '\\n' < /etc/vllm/len)"):
        e = parse(["sh", "-c", f"exec vllm serve org/m --max-model-len {sub} --port 8200"])
        assert (e.model, e.max_model_len, e.port) == ("org/m", UNKNOWN, 8200), sub
    e = parse(["/bin/bash", "-c"], ['vllm serve org/m --hf-overrides "`cat /etc/hf/overrides.json`" --port 8200'])
    assert (e.model, e.port, e.extra) == ("org/m", 8200, {"hf_overrides": "${COMMAND_OUTPUT}"})
    # written in exec form (no shell), the same words reach vLLM as written: its argparse refuses them
    with pytest.raises(InputError, match="is not an integer"):
        parse(["vllm", "serve", "org/m", "--max-model-len", "`cat /etc/vllm/len`"])


def test_an_angle_bracket_placeholder_in_a_script_is_one_unknown_word():
    # corpus21: llm-d/llm-d-workload-variant-autoscaler hack/vllm-benchmark-deployment.yaml runs
    # `vllm serve <model-id> \` in `bash -c` and says "Replace <model-id> with your model identifier". Split as shell,
    # `<model-id>` was an input redirection from `model-id` plus an output redirection that swallowed the next flag,
    # so the script named no model and the file was refused (an input error, exit 2). It is a template's placeholder:
    # an unknown, as `${MODEL}` is.
    script = ("vllm serve <model-id> \\\n--trust-remote-code \\\n--download-dir /models-cache \\\n"
              "--dtype float16 \\\n--max-num-seqs 64 \\\n--port 8000\n")
    e = parse(["/bin/bash", "-c"], [script])
    assert (e.model, e.dtype, e.max_num_seqs, e.port) == (PLACEHOLDER_VALUE, "float16", 64, 8000)
    assert e.extra == {"trust_remote_code": True, "download_dir": "/models-cache"}
    e = parse(["sh", "-c", "vllm serve org/m --max-model-len <max-len> --port 8200"])
    assert (e.model, e.max_model_len, e.port) == ("org/m", UNKNOWN, 8200)
    # real redirections keep their meaning: the word after `<` or `>` is a file, not an argument
    e = parse(["sh", "-c", "vllm serve org/m --port 8200 --enforce-eager > /tmp/log 2>&1 < /dev/null"])
    assert (e.model, e.port, e.enforce_eager) == ("org/m", 8200, True)
    # a number is a file descriptor only written against its operator (bash(1), Redirection: "[n]>word"): the port
    # before ` > /tmp/log` is the flag's value (it was dropped as an fd, and the flag refused as having none, exit 2)
    for tail in (" > /tmp/vllm.log 2>&1 &", " >/tmp/vllm.log", " 1> /tmp/o 2>/tmp/e", " 2>&1 | tee /tmp/log"):
        e = parse(["sh", "-c", "vllm serve org/m --max-model-len 4096 --port 8200" + tail])
        assert (e.model, e.max_model_len, e.port) == ("org/m", 4096, 8200), tail


def test_an_angle_bracket_placeholder_in_exec_form_is_an_unknown_not_a_value():
    # corpus38: tutorials' manifests leave `<TP_SIZE>`-style values for their reader to fill (AWS's and Red Hat's
    # guides: `--tensor-parallel-size=<TP_SIZE>`, `--max-model-len=<MAX_MODEL_LEN>`; `vllm serve` with the model
    # `<model-name>`). Written without a shell they were read as values: SW003's sure crash ("not an integer") and a
    # model the catalog lacks. No value vLLM takes is written so: an unknown, as the script's `<max-len>` is.
    e = parse(["python3", "-m", "vllm.entrypoints.openai.api_server"],
              ["--port=8080", "--served-model-name=<MODEL_NAME>", "--tensor-parallel-size=<TP_SIZE>",
               "--max-model-len=<MAX_MODEL_LEN>", "--gpu-memory-utilization", "<gpu mem util>", "--max-num-seqs=4"])
    assert (e.port, e.tensor_parallel_size, e.max_model_len, e.gpu_memory_utilization, e.max_num_seqs) == (
        8080, UNKNOWN, UNKNOWN, UNKNOWN, 4)
    e = parse(["vllm", "serve"], ["<model-name>", "--tensor-parallel-size=<tp-size>", "--max-model-len=16000"])
    assert (e.model, e.tensor_parallel_size, e.max_model_len) == (PLACEHOLDER_VALUE, UNKNOWN, 16000)
    # only a whole value is one: a word with text around the brackets is read as written and still refused
    with pytest.raises(InputError, match="is not an integer"):
        parse(["vllm", "serve", "org/m", "--max-model-len", "<4096"])
    with pytest.raises(InputError, match="is not an integer"):
        parse(["vllm", "serve", "org/m", "--max-model-len=len-<MAX>"])
    e = parse(["vllm", "serve", "org/m", "--served-model-name", "a<b>"])
    assert e.extra == {"served_model_name": ["a<b>"]}


def test_a_redirection_inside_quotes_is_part_of_the_word():
    # bash(1), QUOTING: quotes remove the special meaning of `>`, so `"a 2>b"` is one word, written as it is; the
    # file-descriptor marker was left inside it (corpus21). Outside the quotes the same script still redirects.
    script = 'vllm serve org/m --served-model-name "a 2>b" --port 8200 2>&1'
    e = parse(["sh", "-c", script])
    assert (e.model, e.port, e.extra) == ("org/m", 8200, {"served_model_name": ["a 2>b"]})
    e = parse(["sh", "-c", "vllm serve org/m --served-model-name 'x 1>y' --port 8200 >/tmp/log"])
    assert (e.model, e.port, e.extra) == ("org/m", 8200, {"served_model_name": ["x 1>y"]})
    e = parse(["sh", "-c", 'vllm serve org/m --served-model-name a\\ 2\\>b --port 8200'])
    assert (e.model, e.port, e.extra) == ("org/m", 8200, {"served_model_name": ["a 2>b"]})
    # unquoted, the same words redirect: `2>b` sends stderr to b and the name is `a`
    e = parse(["sh", "-c", "vllm serve org/m --served-model-name a 2>b --port 8200"])
    assert (e.model, e.port, e.extra) == ("org/m", 8200, {"served_model_name": ["a"]})


def test_a_double_quoted_expansion_is_one_word_whatever_blanks_its_value_holds():
    # GoogleCloudPlatform/devrel-demos ai-ml/disagg-tpu-llm-d/values_tpu.yaml: `--kv-transfer-config "${KV_CONFIG}"`
    # with KV_CONFIG a JSON object holding blanks was split into words as if unquoted (shlex removes the quotes), and
    # its pieces read as positionals: the model and TP unknown. bash does not split an expansion within double quotes
    script = ('KV_CONFIG="{\\"kv_connector\\":\\"TPUConnector\\", \\"kv_role\\":\\"kv_consumer\\", '
              '\\"kv_ip\\" : \\"$POD_IP\\"}"\n'
              'echo "KV_CONFIG=$KV_CONFIG"\n'
              'python3 -m vllm.entrypoints.openai.api_server \\\n  --model "Qwen/Qwen3-32B" --tensor-parallel-size 4 \\\n'
              '  --kv-transfer-config "${KV_CONFIG}" --max-model-len 8192')
    e = parse(["/bin/bash", "-c", script], env={"POD_IP": "10.0.0.7"})
    assert (e.model, e.tensor_parallel_size, e.max_model_len) == ("Qwen/Qwen3-32B", 4, 8192)
    assert e.extra["kv_transfer_config"] == ('{"kv_connector":"TPUConnector", "kv_role":"kv_consumer", '
                                           '"kv_ip" : "10.0.0.7"}')
    # `"$X"` too; unquoted, the same value still splits into words (and its second word is a positional)
    e = parse(["sh", "-c", 'A="x y"; vllm serve org/m --kv-transfer-config "$A" --max-model-len 9'])
    assert (e.model, e.max_model_len, e.extra) == ("org/m", 9, {"kv_transfer_config": "x y"})
    e = parse(["sh", "-c", 'A="x y"; vllm serve org/m --kv-transfer-config $A --max-model-len 9'])
    assert (e.max_model_len, e.extra) == (9, {"kv_transfer_config": "x", "positional": ["y"]})


def test_k8s_expansion_happens_before_the_shell():
    e = parse(["sh", "-c", "vllm serve $(MODEL) --port $(PORT)"], env={"MODEL": "org/m", "PORT": "9000"})
    assert (e.model, e.port) == ("org/m", 9000)


# --- locations -----------------------------------------------------------------------------------


def test_every_flag_set_gets_the_location():
    e = parse(["vllm", "serve", "m/x", "-tp", "2", "--enforce-eager"], location=LOC)
    assert e.locations == {"model": LOC, "tensor_parallel_size": LOC, "enforce_eager": LOC}


def test_locate_refines_per_token():
    seen = []

    def locate(token):
        seen.append(token)
        return Location("f.yaml", {"--max_model_len": 30, "m/x": 28}.get(token)) if token != "-tp" else None

    e = parse_vllm_command(["vllm", "serve", "m/x", "--max_model_len=4096", "-tp", "2"], [], {}, None, LOC, locate)
    assert seen == ["--max_model_len", "-tp", "m/x"]
    assert e.locations == {"max_model_len": Location("f.yaml", 30), "tensor_parallel_size": LOC,
                           "model": Location("f.yaml", 28)}


def test_find_invocation_reports_form():
    assert find_vllm_invocation(["python3", "-m", "vllm.entrypoints.openai.api_server"], ["--model", "m"], {}) == (
        "api_server", ["--model", "m"])
    assert find_vllm_invocation(["python3", "-m", "vllm.entrypoints.cli.main", "serve", "m"], [], {}) == (
        "serve", ["m"])


def test_kv_cache_memory_bytes_is_a_human_readable_int():
    e = parse(["vllm", "serve", "m/x", "--kv-cache-memory-bytes", "20G"])
    assert (e.kv_cache_memory_bytes, e.extra) == (20 * 2**30, {})


_SCRIPT_CHARS = "ab -=/.:$_{}0\t\n;&|()<>~*?,@%+!"


@settings(max_examples=400, derandomize=True, deadline=None)
@given(st.text(alphabet=_SCRIPT_CHARS, max_size=60))
def test_scripts_without_quotes_split_as_shlex_splits_them(text):
    """The plain split (no quotes, backslashes or comments) gives shlex's words, operators included."""
    lex = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lex.whitespace_split = True
    assert script_words(text) == list(lex)


def test_script_words_of_a_launcher_and_of_quoted_text():
    assert script_words("pip install x&&vllm serve m --port=8000 2>&1|tee log;exec  a") == [
        "pip", "install", "x", "&&", "vllm", "serve", "m", "--port=8000", "2", ">&", "1", "|", "tee", "log", ";",
        "exec", "a"]
    assert script_words("vllm serve 'my model' --x \"a b\" # comment") == ["vllm", "serve", "my model", "--x", "a b"]
    assert script_words("echo 'unterminated") == ["echo", "'unterminated"]  # shlex refuses it: split on blanks


# --- settings that may be set out of sight (issue 29) ----------------------------------------------


def test_a_config_file_leaves_every_setting_not_on_the_command_line_unknown():
    """vLLM reads the --config YAML for what the command line does not give (command line > config file >
    defaults): a setting that is not written is not vLLM's default."""
    engine = parse_vllm_command(["vllm", "serve"], ["meta-llama/Llama-3.1-8B-Instruct", "--config", "/etc/vllm.yaml",
                                                   "--max-model-len", "8192"], {})
    assert engine is not None
    assert (engine.model, engine.max_model_len, engine.tensor_parallel_size, engine.pipeline_parallel_size,
            engine.gpu_memory_utilization) == ("meta-llama/Llama-3.1-8B-Instruct", 8192, UNKNOWN, UNKNOWN, UNKNOWN)


def test_a_whole_unknown_argument_list_carries_flags_and_is_not_the_model():
    """At preview a computed ``args`` list is one unknown word: it is not TP1×PP1, nor a model name."""
    engine = parse_vllm_command([], [UNKNOWN_TOKEN], {}, image="vllm/vllm-openai:v0.11.0")
    assert engine is not None
    assert (engine.model, engine.tensor_parallel_size, engine.pipeline_parallel_size) == (UNKNOWN, UNKNOWN, UNKNOWN)


# --- words vLLM exits on, as Kubernetes passes them (issue 27 class 6, issue 29) --------------------------


M8 = "meta-llama/Llama-3.1-8B-Instruct"


U = "$(SHARDWISE_UNKNOWN_VALUE)"


@pytest.mark.parametrize(("command", "args", "env", "unknown", "crash"), [
    ([], [M8, "--tensor-parallel-size 2"], {}, (), (1, "--tensor-parallel-size=$(SHARDWISE_UNKNOWN_VALUE)", None)),
    ([], [M8, "-tp 2"], {}, (), (1, "-tp=$(SHARDWISE_UNKNOWN_VALUE)", None)),
    ([], [M8, "--tensor-parallel-size=${TP}"], {"TP": "2"}, (), (1, "--tensor-parallel-size=" + U, None)),
    ([], [M8, "--max-model-len", "$MAX_LEN"], {}, (), (2, U, None)),
    # undefined: a crash where the pod runs as read, which the reader decides (pending on the variable)
    (["vllm", "serve"], [M8, "--tensor-parallel-size", "$(TP)"], {}, (), (4, U, "TP")),
    ([], [M8, "--gpu-memory-utilization", "{{ .Values.gpuMem }}"], {}, (), (2, U, None)),
    ([], ["", "--max-model-len", "8192"], {}, (), (0, "", None)),
    ([], ["$(MODEL)"], {}, (), (0, "$(MODEL)", "MODEL")),
    # $$ escapes: Kubernetes passes $(TP) whatever the env holds
    ([], [M8, "--tensor-parallel-size", "$$(TP)"], {"TP": "2"}, (), (2, U, None)),
    ([], [M8, "--tensor-parallel-size", "$$TP"], {"TP": "2"}, (), (2, U, None)),  # vLLM receives $TP
    # an env value expands only the variables before it: TP_ARG holds $(TP) as written
    ([], [M8, "--tensor-parallel-size", "$(TP_ARG)"], {"TP_ARG": "$(TP)", "TP": "2"}, (), (2, U, "TP")),
    # not crashes: Kubernetes or a shell expands them, or the value is merely unknown
    ([], [M8, "--tensor-parallel-size", "$(TP)"], {"TP": "2"}, (), None),
    ([], [M8, "--tensor-parallel-size", "$(TP)"], {}, ("TP",), None),  # valueFrom: a Secret, the downward API
    ([], [M8, "--tensor-parallel-size", "$(TP)"], {}, ("*",), None),  # envFrom may define it
    ([], [M8, "--port", "$(LLAMA_SERVICE_PORT)"], {}, (), None),  # a Service's variable (enableServiceLinks)
    (["/bin/sh", "-c"], [f"vllm serve {M8} --tensor-parallel-size ${{TP}}"], {"TP": "2"}, (), None),
    ([], [M8, "--served-model-name=llama 8b", "--host", "$(POD_IP)"], {}, ("POD_IP",), None),
    ([], [M8, "--tensor-parallel-size", "$(SHARDWISE_UNKNOWN_VALUE)"], {}, (), None),  # a preview's unknown
    (["/opt/start.sh", "vllm", "serve"], [M8, "--tensor-parallel-size=${TP}"], {}, (), None),  # a script may expand
], ids=["one-item", "one-item-short", "shell-syntax", "dollar-var", "undefined", "helm", "empty-model",
        "undefined-model", "escaped", "escaped-shell", "env-value-before-its-variable", "defined", "value-from", "env-from",
        "service-link", "shell", "name-with-space", "preview-unknown", "wrapper-script"])
def test_a_word_vllm_exits_on_is_a_crash_and_the_setting_it_was_meant_for_is_unknown(command, args, env, unknown,
                                                                                     crash):
    from shardwise.rules.vllm.args import literal_crash

    found = literal_crash(command, args, env, "vllm/vllm-openai:v0.11.0", unknown)
    assert ((found.at, found.word, found.pending) if found else None) == crash


# --- values vLLM's argparse restricts to choices (hostile5) -----------------------------------------------------


@pytest.mark.parametrize("flag,value,choices", [
    ("--dtype", "bogus", "auto, half, float16, bfloat16, float, float32"),
    ("--dtype", "bf16", "auto, half, float16, bfloat16, float, float32"),  # the catalog's word, not vLLM's
    ("--kv-cache-dtype", "fp9", "auto, float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla, "
     "turboquant_k8v4, turboquant_4bit_nc, turboquant_k3v4_nc, turboquant_3bit_nc, int4_per_token_head, "
     "int8_per_token_head, fp8_per_token_head, nvfp4, nvfp4_ds_mla, octave_k3v4, octave_k3v3, octave_k3v3_compact, "
     "ultraquant_4bit, nvfp4_4over6"),
    ("--runner", "bogus", "auto, generate, pooling, draft"),
    ("--mm-encoder-tp-mode", "x", "weights, data"),
])
def test_a_value_no_vllm_release_takes_is_an_input_error_not_the_default(flag, value, choices):
    """Before, ``--dtype bogus`` was sized as the checkpoint's dtype and ``--mm-encoder-tp-mode x`` as weights: a
    server that exits at start-up read as one that serves."""
    with pytest.raises(InputError) as err:
        parse(["vllm", "serve", "org/m", flag, value], location=LOC)
    assert str(err.value) == (f"deploy.yaml:12: {flag}: {value!r} is none of the values vLLM takes ({choices}); "
                              "vLLM exits at start-up")


@pytest.mark.parametrize("words,field,value", [
    (["--dtype", "BFloat16"], "dtype", "BFloat16"),
    (["--dtype=half"], "dtype", "half"),
    (["--kv-cache-dtype", "fp8_e4m3"], "kv_cache_dtype", "fp8_e4m3"),
    (["--kv-cache-dtype", "octave_k3v4"], "kv_cache_dtype", "octave_k3v4"),  # CacheDType of 0.33.0 and 0.34.0
    (["--dtype", "$(DTYPE)"], "dtype", UNKNOWN),  # not known yet: undecided, never refused
])
def test_a_value_some_release_takes_is_read(words, field, value):
    e = parse(["vllm", "serve", "org/m", *words], location=LOC)
    assert getattr(e, field) == value


@pytest.mark.parametrize("words,key,value", [
    (["--runner", "pooling"], "runner", "pooling"),
    (["--mm-encoder-tp-mode", "data"], "mm_encoder_tp_mode", "data"),
])
def test_a_choice_flag_kept_in_extra_is_read(words, key, value):
    e = parse(["vllm", "serve", "org/m", *words], location=LOC)
    assert e.extra[key] == value


# vLLM's benchmarks (leftovers47): which subcommand a container runs, read as vLLM's CLI reads it
# (vllm/entrypoints/cli/benchmark/*.py at v0.34.0); `serve` is the client, the others build an engine or servers.
@pytest.mark.parametrize(("command", "args", "expected"), [
    (["vllm", "bench", "serve"], ["--base-url", "http://vllm:8000"], "serve"),
    (["vllm"], ["bench", "throughput", "--model", "m"], "throughput"),
    (["python3", "-u", "-m", "vllm.entrypoints.cli.main", "bench", "latency"], [], "latency"),
    (["python", "-m", "vllm", "bench", "mm-processor"], [], "mm-processor"),
    (["bash", "-c"], ["set -e; for C in 1 2; do vllm bench serve --max-concurrency $C; done"], "serve"),
    (["/bin/sh", "-c", "python3 /workspace/benchmarks/benchmark_serving.py --backend vllm"], [], "serve"),
    (["python3", "benchmarks/benchmark_throughput.py", "--model", "m"], [], "throughput"),
    (["vllm", "bench"], [], ""),
    (["vllm", "serve", "m"], [], None),  # the server
    (["python3", "-m", "vllm.entrypoints.cli.main", "serve", "m"], [], None),
    (["bash", "-c", "python3 /opt/bench/run_load.py --url http://vllm:8000"], [], None),  # a script of its own
])
def test_bench_subcommand_reads_vllms_benchmark_cli(command, args, expected):
    assert bench_subcommand(command, args) == expected


@pytest.mark.parametrize("command, args, expected", [
    (["bash", "-c"], ['set -ex\nif [[ "$USE_MODELSCOPE" == "1" ]]; then\n  exec modelscope download --model="$M"\n'
                      'else\n  exec huggingface-cli download --local-dir=/data/$M $M\nfi\n'], "modelscope download"),
    (["hf", "download", "Qwen/Qwen3-8B", "--local-dir", "/models"], [], "hf download"),
    (["sh", "-c", "mkdir -p /models && HF_HUB_ENABLE_HF_TRANSFER=1 huggingface-cli download m/x"], [],
     "huggingface-cli download"),
    # another program runs too, or nothing is downloaded: not a download container
    (["bash", "-c", "huggingface-cli download m/x --local-dir /m && python3 /app/serve.py"], [], None),
    (["bash", "-c", "hf download m/x && vllm serve /m"], [], None),
    (["bash", "-c", "set -ex; echo ready"], [], None),
    (["hf", "upload", "m/x", "."], [], None),
    (["sleep", "infinity"], [], None),
])
def test_downloads_weights_only_names_a_container_that_only_fetches_the_model(command, args, expected):
    """corpus32: a Job in the vLLM image whose script only runs `modelscope download` or `huggingface-cli download`
    (imroc/tke-guide's shape) is no server: SW005 says what it runs instead of SW002's "cannot check"."""
    assert downloads_weights_only(command, args) == expected


@pytest.mark.parametrize("value", ["", "None"])
def test_an_empty_kv_cache_memory_bytes_is_unset_as_vllm_s_optional_type_reads_it(value):
    """--kv-cache-memory-bytes comes from CacheConfig.kv_cache_memory_bytes (int | None), so vLLM's argparse type is
    optional_type(human_readable_int): "" and "None" are None, the flag at its default (vllm/engine/arg_utils.py
    _compute_kwargs). It was the crash "'' is not an integer" (SW003) on llm-d's DeepSeek-V4 decode worker
    (corpus30), whose script writes --kv-cache-memory-bytes=${KV_CACHE_MEMORY_BYTES-} with the variable unset."""
    e = parse(["vllm", "serve", "m/x", f"--kv-cache-memory-bytes={value}"])
    assert (e.kv_cache_memory_bytes, e.extra) == (None, {})
    e = parse(["/bin/bash", "-c"], ["exec vllm serve m/x --port 8200 --kv-cache-memory-bytes=${KV_CACHE_MEMORY_BYTES-}"],
              env={})
    assert (e.model, e.port, e.kv_cache_memory_bytes) == ("m/x", 8200, None)


@pytest.mark.parametrize("argv, message", [
    (["--kv-cache-memory-bytes", "none"], "--kv-cache-memory-bytes: 'none' is not an integer (e.g. 8192 or 32k)"),
    (["--tensor-parallel-size="], "--tensor-parallel-size: '' is not an integer"),  # ParallelConfig: int = 1
])
def test_an_empty_value_of_a_flag_vllm_types_without_none_is_still_refused(argv, message):
    with pytest.raises(InputError, match=f"^{re.escape(message)}"):
        parse(["vllm", "serve", "m/x", *argv])


@pytest.mark.parametrize("value", ["", "None"])
def test_an_empty_gpu_memory_utilization_is_unset_here_and_refused_by_release(value):
    """0.34.0 declares CacheConfig.gpu_memory_utilization ``float | None``: "" and "None" are unset there; the earlier
    releases' float() refusal is judged by the image's release (flags.OPTIONAL_SINCE, test_vllm_flags)."""
    e = parse(["vllm", "serve", "m/x", f"--gpu-memory-utilization={value}"])
    assert (e.gpu_memory_utilization, e.extra) == (None, {})


@pytest.mark.parametrize("value", ["", "None"])
def test_an_empty_quantization_is_unset_as_vllm_s_nullable_and_optional_types_read_it(value):
    """--quantization is typed nullable_str (0.5.0 to 0.8.4) and optional_type(str) (0.8.5 on): "" and "None" are
    None, vLLM then reading the checkpoint's quantization_config (mend2). The releases whose argparse refuses that
    None (0.9.0 to 0.12.0) are judged by the image's release (test_vllm_flags)."""
    e = parse(["vllm", "serve", "m/x", f"--quantization={value}"])
    assert (e.quantization, e.extra) == (None, {})
    e = parse(["/bin/sh", "-c"], ["vllm serve m/x --quantization=${QUANT-} --max-num-seqs 8"], env={})
    assert (e.model, e.quantization, e.max_num_seqs) == ("m/x", None, 8)


@pytest.mark.parametrize("argv, message", [
    (["--max-model-len="], "--max-model-len: '' is not an integer (e.g. 8192 or 32k)"),  # ModelConfig: int, no None
    (["--max-num-seqs="], "--max-num-seqs: '' is not an integer"),  # SchedulerConfig: int, no None, 0.5.0 to 0.34.0
    (["--block-size="], "--block-size: '' is not an integer"),  # CacheConfig: BlockSize / int, no None
])
def test_an_empty_value_of_a_flag_typed_without_none_at_every_release_is_refused(argv, message):
    with pytest.raises(InputError, match=f"^{re.escape(message)}"):
        parse(["vllm", "serve", "m/x", *argv])

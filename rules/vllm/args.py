"""A container's command line -> :class:`~shardwise.rules.model.EngineArgs` (``vllm serve`` flags).

Recognised launch forms:

- ``vllm serve MODEL [flags]`` (also after wrappers such as ``exec``, ``env``, ``tini --``);
- ``python[3] -m vllm.entrypoints.openai.api_server --model MODEL [flags]`` (also vLLM's gRPC server
  ``vllm.entrypoints.grpc_server`` and NVIDIA Dynamo's ``python3 -m dynamo.vllm --model MODEL [flags]``);
- shell forms, ``sh -c "..."`` / ``bash -lc "..."``: the script is split into simple commands
  (``;``, ``&&``, ``||``, ``|``, newlines) and the first vLLM invocation is used;
- the command/args split either way (``command: [vllm, serve]`` + ``args: [MODEL, ...]``);
- only ``args`` on a vLLM image (``vllm`` a word of the repository: ``vllm/vllm-openai``, ``rocm/vllm``,
  ``opea/vllm-gaudi``, ``lmcache/vllm-openai``, ...) or with a flag only vLLM takes
  (``--gpu-memory-utilization``, ``--max-model-len``, ...): they are ``vllm serve`` args.

Kubernetes ``$(VAR)`` references are expanded from the container's env in command and args
(``$$`` escapes); ``$VAR``, ``${VAR}`` and ``${VAR:-default}`` are expanded inside shell scripts,
with simple ``VAR=value`` / ``export VAR=value`` assignments in the script taken into account.
A reference that cannot be resolved (a variable from a Secret or the downward API) leaves a
typed field :data:`~shardwise.rules.model.UNKNOWN`; the model keeps the literal reference so the
caller can say which variable was missing.

Flags: ``--flag value`` and ``--flag=value``, underscore spellings (``--max_model_len``), boolean
flags with their ``--no-`` forms, the short spellings ``-tp``, ``-pp``, ``-dp``, ``-q`` and the
rest of vLLM's short aliases. Unknown flags land in :attr:`EngineArgs.extra` under their
snake_case name; :attr:`EngineArgs.locations` is keyed the same way (the field name for known
flags, e.g. ``"tensor_parallel_size"``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, NamedTuple

from ..model import UNKNOWN, UNKNOWN_AT, UNKNOWN_TOKEN, EngineArgs, Location
from ..model.errors import InputError
from ..model.unknown import PLACEHOLDER_VALUE, holds_placeholder, is_angle_placeholder, is_placeholder
from .imageref import parse_image
from .images import image_info

# ---------------------------------------------------------------------------------------------
# Flag table
# ---------------------------------------------------------------------------------------------

# dashed flag name -> (EngineArgs field or extra key, kind). Kinds: int, posint, float, str, bool,
# hint (human-readable int: 32k, 1M), hint_auto (the same, or auto / -1), fraction (a number in (0, 1]),
# names (one or more values).
_FLAGS: dict[str, tuple[str, str]] = {
    "model": ("model", "str"),
    "tensor-parallel-size": ("tensor_parallel_size", "posint"),
    "pipeline-parallel-size": ("pipeline_parallel_size", "posint"),
    "data-parallel-size": ("data_parallel_size", "posint"),
    "enable-expert-parallel": ("enable_expert_parallel", "bool"),
    "gpu-memory-utilization": ("gpu_memory_utilization", "fraction"),
    "max-model-len": ("max_model_len", "hint_auto"),
    "max-num-seqs": ("max_num_seqs", "posint"),
    "max-num-batched-tokens": ("max_num_batched_tokens", "hint"),
    "dtype": ("dtype", "str"),
    "quantization": ("quantization", "str"),
    "kv-cache-dtype": ("kv_cache_dtype", "str"),
    "block-size": ("block_size", "posint"),
    "enforce-eager": ("enforce_eager", "bool"),
    "distributed-executor-backend": ("distributed_executor_backend", "str"),
    "nnodes": ("nnodes", "posint"),
    "port": ("port", "int"),
    # typed extras
    "node-rank": ("node_rank", "int"),
    "master-addr": ("master_addr", "str"),
    "master-port": ("master_port", "int"),
    "api-key": ("api_key", "secret"),
    "host": ("host", "str"),
    "served-model-name": ("served_model_name", "names"),
    "lora-modules": ("lora_modules", "names"),  # nargs="+": name=path or JSON, one or more
    # list-typed settings, which vLLM's argparse gives nargs="+" (EngineArgs' list fields):
    # `--cudagraph-capture-sizes 1 2 4 8` takes every word up to the next flag, none is the model
    "cudagraph-capture-sizes": ("cudagraph_capture_sizes", "names"),
    "cuda-graph-sizes": ("cuda_graph_sizes", "names"),  # its older spelling (SchedulerConfig)
    "ignore-patterns": ("ignore_patterns", "names"),
    "logits-processors": ("logits_processors", "names"),
    "collect-detailed-traces": ("collect_detailed_traces", "names"),
    "allowed-media-domains": ("allowed_media_domains", "names"),
    "data-parallel-size-local": ("data_parallel_size_local", "int"),
    "kv-cache-memory-bytes": ("kv_cache_memory_bytes", "hint"),
    "data-parallel-rank": ("data_parallel_rank", "int"),
    "data-parallel-start-rank": ("data_parallel_start_rank", "int"),
    "data-parallel-address": ("data_parallel_address", "str"),
    "data-parallel-rpc-port": ("data_parallel_rpc_port", "int"),
    "data-parallel-backend": ("data_parallel_backend", "str"),
    "decode-context-parallel-size": ("decode_context_parallel_size", "posint"),
    "prefill-context-parallel-size": ("prefill_context_parallel_size", "posint"),
    "swap-space": ("swap_space", "float"),
    "cpu-offload-gb": ("cpu_offload_gb", "float"),
    "compilation-config": ("compilation_config", "str"),
    "config": ("config", "str"),
    # a JSON object of config.json overrides: vLLM 0.7 - 0.10 register it with `type=json.loads`, 0.11 - 0.34 with
    # `union_dict_and_str` (json.loads on a `{...}` value; another word reaches ModelConfig, a pydantic dataclass whose
    # `HfOverrides = dict[str, Any] | Callable` refuses a string): text json.loads refuses makes vLLM exit at start-up
    "hf-overrides": ("hf_overrides", "json"),
}

#: Flags the capacity model reads whose values vLLM's argparse restricts to a list (``choices``), each with every
#: value some release takes (vLLM 0.6.6.post1 to 0.34.0: the ``choices`` of engine/arg_utils.py in 0.6.6, then the
#: ``Literal`` types ModelDType, CacheDType, RunnerOption/RunnerType and MMEncoderTPMode of vllm/config; CacheDType
#: gains nvfp4_4over6 by 0.29.0, nvfp4_ds_mla in 0.30.0, ultraquant_4bit in 0.32.0 and the three octave_* in 0.33.0,
#: sized by ``kv_dtypes`` with the releases that take them (``Behaviour.packed_kv_dtypes``), and 0.33.0 and 0.34.0
#: let a platform plugin register more, checked when the attention backend is chosen, so a plugin's own dtype is
#: refused here until it is listed). A value no
#: release takes makes vLLM exit at start-up; read as the default it would size a server that never starts, so it is
#: an input error. Compared without case: what vLLM refuses only for its case is read as meant.
_CHOICES: dict[str, tuple[str, ...]] = {
    "dtype": ("auto", "half", "float16", "bfloat16", "float", "float32"),
    "kv-cache-dtype": ("auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla",
                       "turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc", "turboquant_3bit_nc",
                       "int4_per_token_head", "int8_per_token_head", "fp8_per_token_head", "nvfp4",
                       "nvfp4_ds_mla", "octave_k3v4", "octave_k3v3", "octave_k3v3_compact", "ultraquant_4bit",
                       "nvfp4_4over6"),
    "runner": ("auto", "generate", "pooling", "draft"),
    "mm-encoder-tp-mode": ("weights", "data"),
}

#: Flags vLLM registers from a config field whose type admits None (not a bool), for which its argparse type is
#: ``optional_type(...)``: the value ``""`` or ``"None"`` is None, the flag left at its default (vllm/engine/
#: arg_utils.py ``_compute_kwargs``: "If None is in type_hints, make the argument optional", and
#: vllm/utils/argparse_utils.py ``optional_type``; CacheConfig.kv_cache_memory_bytes is ``int | None`` from 0.10.2).
#: A launch script's ``--kv-cache-memory-bytes=${KV_CACHE_MEMORY_BYTES-}`` with the variable unset gives that flag an
#: empty value, which vLLM takes as unset (corpus30: llm-d's DeepSeek-V4 wide-EP decode worker), not a refusal. Flags
#: EngineArgs registers with an explicit ``type=int`` (the data-parallel ranks and addresses) are not among them.
#: ``--quantization`` too: ``nullable_str`` (0.5.0 to 0.8.4) and ``optional_type(str)`` (0.8.5 on) read "" and "None"
#: as None, vLLM then taking the checkpoint's quantization_config; the releases whose argparse then refuses that None
#: (0.9.0 to 0.12.0: "invalid choice: None") are flags.QUANTIZATION_NONE_REFUSED, judged by the image's release.
#: ``--gpu-memory-utilization`` too: CacheConfig.gpu_memory_utilization is ``float | None`` in 0.34.0 (its default
#: resolved at start-up), so "" and "None" are unset there; every earlier release read declares it ``float`` and its
#: float() refuses them (flags.OPTIONAL_SINCE, judged by the image's release). Every other flag shardwise types is
#: declared without None at every release read (0.5.0 to 0.34.0: the int fields max_model_len, max_num_seqs,
#: max_num_batched_tokens, block_size and the parallel sizes, swap_space, cpu_offload_gb): vLLM's int() or float()
#: refuses their empty value, and so does SW003.
_OPTIONAL = frozenset({"kv-cache-memory-bytes", "quantization", "gpu-memory-utilization"})

_SHORT: dict[str, str] = {
    "tp": "tensor-parallel-size",
    "pp": "pipeline-parallel-size",
    "dp": "data-parallel-size",
    "dpl": "data-parallel-size-local",
    "dpn": "data-parallel-rank",
    "dpr": "data-parallel-start-rank",
    "dpa": "data-parallel-address",
    "dpp": "data-parallel-rpc-port",
    "dpb": "data-parallel-backend",
    "dcp": "decode-context-parallel-size",
    "pcp": "prefill-context-parallel-size",
    "ep": "enable-expert-parallel",
    "q": "quantization",
    "n": "nnodes",
    "r": "node-rank",
    "O": "compilation-config",
}

# Boolean vLLM flags that take no value (so the next token is not consumed as one).
_BOOL_FLAGS = frozenset({
    "enable-expert-parallel", "enforce-eager", "trust-remote-code", "enable-prefix-caching",
    "enable-extensible-kv-cache",
    "enable-chunked-prefill", "disable-log-requests", "enable-log-requests", "disable-log-stats",
    "enable-lora", "disable-custom-all-reduce", "enable-auto-tool-choice", "headless",
    "disable-frontend-multiprocessing", "enable-sleep-mode", "disable-sliding-window",
    "skip-tokenizer-init", "enable-eplb", "enable-dbo", "async-scheduling", "disable-fastapi-docs",
    "enable-prompt-tokens-details", "enable-server-load-tracking", "enable-force-include-usage",
    "enable-request-id-headers", "disable-uvicorn-access-log", "enable-ssl-refresh",
    "return-tokens-as-token-ids", "disable-async-output-proc", "calculate-kv-scales",
    "enable-log-outputs", "enable-tokenizer-info-endpoint", "disable-cascade-attn",
    "enable-multimodal-encoder-data-parallel", "use-tqdm-on-load", "enable-return-routed-experts",
    "disable-mm-preprocessor-cache", "ray-workers-use-nsight", "enable-lora-bias",
    "fully-sharded-loras", "enable-mfu-metrics", "kv-sharing-fast-prefill",
})

_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})

# vLLM's human_readable_int: lower-case suffixes are decimal (k = 1e3), upper-case binary (K = 2**10).
_HUMAN = re.compile(r"^(\d+(?:\.\d+)?)([kKmMgGtT])$")
_HUMAN_MULT = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12,
               "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}

def human_int(text: str) -> int:
    """An integer as vLLM's ``human_readable_int`` reads one (vllm/engine/arg_utils.py, v0.14.1): ``8192``,
    ``32k`` = 32,000, ``25.6k`` = 25,600, ``32K`` = 32,768; a decimal with a binary (upper-case) suffix, ``1.5M``,
    is refused there ("Decimals are not allowed with binary suffixes") and here. ValueError or OverflowError when
    it is none."""
    m = _HUMAN.match(text)
    if m is None:
        return int(text)
    number, suffix = m.groups()
    if suffix.isupper():
        return int(number) * _HUMAN_MULT[suffix]  # ValueError for a decimal, as vLLM
    return int(float(number) * _HUMAN_MULT[suffix])


#: vLLM hands its integer settings to PyTorch and CUDA as 64-bit integers; anything larger is no setting
#: (and would overflow the float arithmetic of the capacity model).
_INT64 = 2**63

_UNRESOLVED = re.compile(r"\$(?:\(|\{|[A-Za-z_])")

_SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh", "ksh"})
_PYTHON = re.compile(r"^python(?:\d+(?:\.\d+)?)?$")
# Modules that take vLLM's engine flags with the model as ``--model``: vLLM's own API servers, and
# NVIDIA Dynamo's vLLM worker (``python -m dynamo.vllm --model ...``).
_API_SERVER_MODULES = frozenset({"vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server", "dynamo.vllm",
                                 "vllm.entrypoints.grpc_server"})  # vLLM's gRPC server takes the engine args too
_CLI_MODULES = frozenset({"vllm.entrypoints.cli.main", "vllm"})
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", ";;", "|&"})
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
_K8S_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.\-]*)\)")
_K8S_REF_LEFT = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.\-]*)\)")
_SHELL_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")

Locate = Callable[[str], "Location | None"]


def is_unresolved(value: str) -> bool:
    """Whether ``value`` still holds a ``$(VAR)``, ``${VAR}`` or ``$VAR`` reference."""
    return bool(_UNRESOLVED.search(value))


#: The most bytes one argument or one environment string may hold on Linux (``MAX_ARG_STRLEN``, 32 pages:
#: include/uapi/linux/binfmts.h); ``execve`` refuses a longer one (E2BIG), so such a container cannot start.
MAX_ARG_STRLEN = 131072


def expand_k8s(text: str, env: Mapping[str, str]) -> str:
    """Expand Kubernetes ``$(VAR)`` references; ``$$`` is a literal ``$``; unknown refs stay. Kubernetes expands
    each env value over the ones before it, so values can double at each step (``E1=$(E0)$(E0)``, …, ``E40``): an
    expansion past :data:`MAX_ARG_STRLEN` characters is :class:`InputError` (no location: the caller's), found
    before the text is built (it held the linter for ever: fuzz15)."""
    if "$" not in text:
        return text
    total = len(text)
    # a loop, not re.sub with a closure: compiled by mypyc, a nested function that rebinds ``total`` is an object
    # and an environment referring to each other, a reference cycle at every call that the pack, serving with the
    # collector off, would never free (tests/app/test_pack_cycles.py)
    parts: list[str] = []
    pos = 0
    for m in _K8S_REF.finditer(text):
        whole = m.group(0)
        if whole == "$$":
            value = "$"
        else:
            found = env.get(m.group(1))
            if not isinstance(found, str):
                continue  # an unknown reference stays as written
            value = found
            total += len(value) - len(whole)
            if total > MAX_ARG_STRLEN:
                raise InputError(f"its $(VAR) references expand to more than {MAX_ARG_STRLEN:,} characters, the most "
                                 "one argument or environment string may hold on Linux (MAX_ARG_STRLEN): the "
                                 "container could not start")
        parts.append(text[pos:m.start()])
        parts.append(value)
        pos = m.end()
    if not parts:
        return text
    parts.append(text[pos:])
    return "".join(parts)


def names_unknown(value: str, unknown: Collection[str]) -> bool:
    """Whether ``value``, an env value after :func:`expand_k8s` over the variables defined before it, still
    refers to a variable Kubernetes resolves but shardwise cannot read: one in ``unknown`` (a Secret, a
    ConfigMap, the downward API; ``"*"`` when envFrom may define any) or a Service's variable."""
    if "$(" not in value:  # no reference at all (most values): no findall, no generator
        return False
    for name in _K8S_REF_LEFT.findall(value):
        if name in unknown or "*" in unknown or _SERVICE_ENV.search(name):
            return True
    return False


def _expand_shell(token: str, env: Mapping[str, str], unknown: Collection[str] = ()) -> str:
    """Expand ``$VAR``, ``${VAR}`` and ``${VAR:-default}`` from ``env``. A variable named in ``unknown``
    (set from a Secret, a ConfigMap or the downward API; ``"*"``: any variable, when ``envFrom`` may set
    it) keeps its reference, default or not: its value is not known, and it is not absent."""
    if "$" not in token:
        return token

    def sub(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(4)
        value = env.get(name)
        op, default = m.group(2), m.group(3)
        if value is None and (name in unknown or "*" in unknown):
            return m.group(0)
        if op is not None:
            if value is None or (op.startswith(":") and value == ""):
                return _expand_shell(default or "", env, unknown)
            return value
        return value if isinstance(value, str) else m.group(0)

    return _SHELL_REF.sub(sub, token)


# ---------------------------------------------------------------------------------------------
# Finding the vLLM invocation
# ---------------------------------------------------------------------------------------------


def _base(token: str) -> str:
    return token[token.rfind("/") + 1:]  # os.path.basename on POSIX, without its fspath and separator look-ups


def _find_in_argv(argv: Sequence[str]) -> tuple[str, list[str]] | None:
    """(form, argument list after the program) for the first vLLM invocation in ``argv``."""
    n = len(argv)
    for i, tok in enumerate(argv):
        base = _base(tok)
        if base == "vllm" and i + 1 < n and argv[i + 1] == "serve":
            return "serve", list(argv[i + 2:])
        if _PYTHON.match(base):
            j = i + 1
            while j < n and argv[j].startswith("-") and argv[j] != "-m":
                j += 1
            if j + 1 < n and argv[j] == "-m":
                module = argv[j + 1]
                if module in _API_SERVER_MODULES:
                    return "api_server", list(argv[j + 2:])
                if module in _CLI_MODULES and j + 2 < n and argv[j + 2] == "serve":
                    return "serve", list(argv[j + 3:])
    return None


def _shell_call(argv: Sequence[str]) -> tuple[str, list[str]] | None:
    """(the script, the words after it) of ``sh -c SCRIPT [NAME [ARG...]]`` (any shell, flags like ``-lc``/``-ec``),
    else None. The words after the script are the script's ``$0`` and positional parameters (POSIX sh, -c: "the
    remaining arguments shall be assigned to the positional parameters", the first of them to ``$0``)."""
    if not argv or _base(argv[0]) not in _SHELLS:
        return None
    i = 1
    while i < len(argv):
        tok = argv[i]
        if tok == "-o" or tok == "+o":
            i += 2
            continue
        if tok.startswith("-") and not tok.startswith("--") and "c" in tok[1:]:
            i += 1
            if i < len(argv) and argv[i] == "--":  # `bash -lc -- SCRIPT`: the end of the options
                i += 1
            return (argv[i], list(argv[i + 1:])) if i < len(argv) else None
        if tok.startswith(("-", "+")):
            i += 1
            continue
        return None  # `sh script.sh`: a script file we cannot read
    return None


def shell_call(argv: Sequence[str]) -> tuple[str, list[str]] | None:
    """(the script, the words after it) of ``sh -c SCRIPT [NAME [ARG...]]``, else None (:func:`_shell_call`): for
    adapters/k8s/configfile.py, which reads a script file a container runs from a mounted ConfigMap."""
    return _shell_call(argv)


def _shell_script(argv: Sequence[str]) -> str | None:
    """The script of ``sh -c SCRIPT`` (any shell, flags like ``-lc``/``-ec``), else None."""
    call = _shell_call(argv)
    return call[0] if call is not None else None


#: A word that is all of a script's positional parameters: ``"$@"`` (quotes removed by the split) and ``$*``.
_ALL_POSITIONAL = frozenset(("$@", "${@}", "$*", "${*}"))


_NEEDS_SHLEX = re.compile(r"[\"'\\#]")
_SHELL_WORD = re.compile(r"[;&|()<>]+|[^ \t\r\n;&|()<>]+")


def script_words(text: str) -> list[str]:
    """The words and operators of a shell script as ``shlex`` splits them (POSIX rules, ``;&|()<>``
    runs as operators); without quotes, backslashes or comments that is a plain split, done by a regex."""
    if _NEEDS_SHLEX.search(text) is None:
        return _SHELL_WORD.findall(text)
    import shlex  # quotes, backslashes or comments: rare in a container's args (start-up time)

    try:
        lex = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
        lex.whitespace_split = True
        return list(lex)
    except ValueError:
        return text.split()


#: A shell arithmetic expansion, ``$(( LWS_GROUP_SIZE * DP_SIZE_LOCAL ))`` (one level of parentheses inside).
_ARITHMETIC = re.compile(r"\$\(\((?:[^()]|\([^()]*\))*\)\)")
#: What an arithmetic expansion reads as: a value the shell computes when the script runs, not known here (and
#: not its ``(`` and ``)`` split as operators, which left the flag before it with the word ``$``).
ARITHMETIC_RESULT = "${ARITHMETIC_RESULT}"
#: A command substitution, ``$(cat /etc/vllm/len)`` (one level of parentheses inside, not an arithmetic ``$((``) or
#: ```cat /etc/vllm/len``` (bash(1), Command Substitution): what the command prints when the script runs.
_COMMAND_SUBSTITUTION = re.compile(r"\$\((?!\()(?:[^()]|\([^()]*\))*\)|`[^`\n]*`")
#: What a command substitution reads as: not known here (review18: `$(cat FILE)` unquoted was split at its parentheses,
#: leaving the flag the word ``$``, and a backquoted command was read as written; SW003 blocked both).
COMMAND_OUTPUT = "${COMMAND_OUTPUT}"
#: A redirection's file descriptor, the digits written against its operator (``2>&1``, ``1>log``, ``0<in``): bash
#: reads a number as one only so (bash(1), Redirection: "[n]>word"); ``--port 8000 > /tmp/log`` passes 8000 to the
#: command (corpus21: such a port was dropped as if it were the fd, and the flag refused as having no value, exit 2).
#: Inside quotes a redirection is no redirection at all (bash(1), QUOTING: quoting removes the special meaning of
#: metacharacters): ``--served-model-name "a 2>b"`` is one word, written as it is (corpus21 noticed the marker left in
#: such a word). So quoted spans and escaped characters are matched first and kept; only digits outside them mark.
_FD_REDIRECT = re.compile(r"""'[^']*'|"(?:\\.|[^"\\])*"|\\.|(?<![^\s;&|()])(\d+)(?=[<>])""", re.S)
#: What marks such digits among a script's words: a control character no script's word holds.
_FD = "\x1e"
#: A template's angle-bracket placeholder written in a script, ``vllm serve <model-id>``: a name in ``<`` ``>`` with
#: nothing between it and the brackets, after a blank or the script's start and before a blank, ``;``, ``&``, ``|``,
#: ``)`` or the end. As shell it is an input redirection from the file ``model-id`` and an output redirection, so the
#: word is lost and the next one becomes the output file: no script means that, the file says "Replace <model-id>"
#: (corpus21: llm-d/llm-d-workload-variant-autoscaler hack/vllm-benchmark-deployment.yaml was refused as naming no
#: model, exit 2). Heredocs (``<<EOF``), ``2>&1``, ``>/dev/null``, ``< file`` and ``<(cmd)`` do not match.
_ANGLE_PLACEHOLDER = re.compile(r"(?<![^\s;&|(])<([A-Za-z][A-Za-z0-9_.:/-]*)>(?=[\s;&|)]|$)")


#: A word that is one double-quoted parameter expansion, ``"${KV_CONFIG}"`` or ``"$EXTRA"``: the shell does not split
#: its value into words (bash(1), Word Splitting: only "the results of parameter expansion ... that did not occur
#: within double quotes"), while shlex removes the quotes that say so.
_QUOTED_REF = re.compile(r'(?<![^\s;&|()])"(\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*)"(?=[\s;&|()<>]|$)')
#: What marks such a word among a script's words (:func:`_split_script` with ``quoted``): a control character no
#: script's word holds.
QUOTED = "\x1f"


def _mark_fd(m: re.Match[str]) -> str:
    """A redirection's file descriptor marked with :data:`_FD`; a quoted span or an escaped character as written."""
    return _FD + m.group(1) if m.group(1) is not None else m.group(0)


def _split_script(script: str, quoted: bool = False) -> list[list[str]]:
    """Split a shell script into simple commands (lists of words, unexpanded); an arithmetic expansion is one word,
    :data:`ARITHMETIC_RESULT`, a command substitution one word, :data:`COMMAND_OUTPUT`, and a template's ``<name>``
    placeholder one word, :data:`PLACEHOLDER_VALUE`. With ``quoted``, a word
    that is one double-quoted parameter expansion (``"${KV_CONFIG}"``) starts with :data:`QUOTED`: its value is one
    word, whatever blanks it holds."""
    text = script.replace("\\\r\n", " ").replace("\\\n", " ")
    if "$((" in text:
        text = _ARITHMETIC.sub(ARITHMETIC_RESULT, text)
    if "$(" in text or "`" in text:
        text = _COMMAND_SUBSTITUTION.sub(COMMAND_OUTPUT, text)
    if "<" in text:
        text = _ANGLE_PLACEHOLDER.sub(PLACEHOLDER_VALUE, text)
    if ">" in text or "<" in text:  # `2>&1`: the fd is written against its operator; `--port 8000 > log` is no fd
        text = _FD_REDIRECT.sub(_mark_fd, text)
    if quoted and '"$' in text:
        text = _QUOTED_REF.sub(f'"{QUOTED}\\1"', text)
    text = text.replace("\n", "\n; ")  # after the newline, so a trailing comment cannot eat it
    words = script_words(text)
    commands: list[list[str]] = []
    current: list[str] = []
    skip_next = False
    for w in words:
        if skip_next:
            skip_next = False
            continue
        if w in _SEPARATORS:
            if current:
                commands.append(current)
            current = []
            continue
        if w and set(w) <= set("<>&|"):  # a redirection: drop it and its target
            if current and current[-1].startswith(_FD):
                current.pop()
            skip_next = True
            continue
        current.append(w)
    if current:
        commands.append(current)
    return commands


def split_script(script: str) -> list[list[str]]:
    """A shell script's simple commands, each its unexpanded words (:func:`_split_script`)."""
    return _split_script(script)


def _assignments(words: list[str]) -> tuple[list[re.Match[str]], list[str], bool]:
    """(the ``A=b`` assignments leading a command, the command after them, whether they persist): `A=b` and
    `export A=b` persist; `A=b cmd` only sets cmd's environment."""
    prefix = 1 if words and words[0] in ("export", "declare", "local", "readonly") else 0
    rest = words[prefix:]
    assigns: list[re.Match[str]] = []
    while rest and (m := _ASSIGN.match(rest[0])) is not None:
        assigns.append(m)
        rest = rest[1:]
    return assigns, rest, not rest or bool(prefix)


def _find_in_script(script: str, env: Mapping[str, str], unknown: Collection[str] = (),
                    operands: Sequence[str] = ()) -> tuple[str, list[str]] | None:
    """The vLLM invocation of a shell script run as ``sh -c SCRIPT`` followed by ``operands`` (``$0``, then the
    positional parameters a ``"$@"`` of the script expands to: ``sh -c 'exec vllm serve "$@"' vllm MODEL
    --tensor-parallel-size 8`` runs ``vllm serve MODEL --tensor-parallel-size 8``)."""
    if ("vllm" not in script and not any("vllm" in v for v in env.values() if isinstance(v, str))
            and not any("vllm" in w for w in operands)):
        return None  # cheap exit for the many containers that run some other script
    local = dict(env)
    first: tuple[str, list[str]] | None = None
    for words in _split_script(script, quoted=True):
        assigns, rest, persist = _assignments(words)
        if persist:
            for m in assigns:
                local[m.group(1)] = _expand_shell(m.group(2), local, unknown)
        if not rest:
            continue
        expanded: list[str] = []
        for w in rest:
            if w in _ALL_POSITIONAL and operands:
                expanded.extend(operands[1:])
                continue
            if w.startswith(QUOTED):  # "${KV_CONFIG}": one word, its value not split
                expanded.append(_expand_shell(w[1:], local, unknown))
                continue
            value = _expand_shell(w, local, unknown)
            whole = _SHELL_REF.fullmatch(w)
            if whole and value != w and any(c.isspace() for c in value):
                try:
                    import shlex

                    expanded.extend(shlex.split(value))  # unquoted $EXTRA_ARGS word-splits
                except ValueError:
                    expanded.extend(value.split())
            else:
                expanded.append(value)
        inner = _shell_call(expanded)
        if inner is not None:
            found = _find_in_script(inner[0], local, unknown, inner[1])
        else:
            found = _find_in_argv(expanded)
        if found is None:
            continue
        if first is None:
            first = found
        elif found[0] == first[0] and found[1] != first[1]:
            first = (first[0], _either(first[1], found[1]))
    return first


#: What :func:`_either` writes where two vLLM invocations of one script differ: a reference no environment sets, which
#: the flag readers take for a value not known (a placeholder), never for either branch's value
BRANCH = "${SCRIPT_BRANCH}"


def _flag_words(args: Sequence[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The positional words of vLLM's argument list ``args`` and each flag's words after the flag itself (``[]`` for
    a switch, ``[value]`` for ``--flag value`` or ``--flag=value``), by flag as written."""
    positional: list[str] = []
    flags: dict[str, list[str]] = {}
    i = 0
    while i < len(args):
        word = args[i]
        if word.startswith("-") and not _looks_negative_number(word):
            name, eq, value = word.partition("=")
            if eq:
                flags[name] = [value]
            elif takes_value(word) and i + 1 < len(args):
                flags[name] = [args[i + 1]]
                i += 1
            else:
                flags[name] = []
        else:
            positional.append(word)
        i += 1
    return positional, flags


def _either(one: Sequence[str], other: Sequence[str]) -> list[str]:
    """One argument list for two vLLM invocations of a script that runs one or the other (``if [ "$ROLE" = prefill
    ]; then vllm serve … -tp 4; else vllm serve … -tp 2; fi``): which runs is decided when the script runs, so a
    word on which they differ is :data:`BRANCH`, not known (a switch only one sets,
    ``--enforce-eager=${SCRIPT_BRANCH}``: on or off). review34: the first was read as what runs, and a pod of 2 GPUs
    whose decode branch runs TP2 was blocked by SW204 for the prefill branch's TP4."""
    pos_one, flags_one = _flag_words(one)
    pos_other, flags_other = _flag_words(other)
    out = [w if k < len(pos_other) and pos_other[k] == w else BRANCH for k, w in enumerate(pos_one)]
    for name in dict.fromkeys([*flags_one, *flags_other]):
        if name in flags_one and flags_one[name] == flags_other.get(name):
            out.extend([name, *flags_one[name]])
        elif takes_value(name):
            out.extend([name, BRANCH])
        else:
            out.append(f"{name}={BRANCH}")  # a switch one branch sets: on or off, not known
    return out


def script_assignments(argv: Sequence[str], names: Collection[str]) -> dict[str, str]:
    """The values a ``sh -c`` script in ``argv`` gives the variables ``names`` that persist to the commands
    after it (``export A=b``, ``A=b`` on its own; not ``A=b cmd``), as written; nested ``sh -c`` scripts
    included. Empty when ``argv`` runs no script."""
    script = _shell_script(list(argv))
    out: dict[str, str] = {}
    if script is None:
        return out
    for words in _split_script(script):
        assigns, rest, persist = _assignments(words)
        if persist:
            for m in assigns:
                if m.group(1) in names:
                    out[m.group(1)] = m.group(2)
        elif _shell_script(rest) is not None:
            out.update(script_assignments(rest, names))
    return out


def _repository(image: str) -> str:
    """The repository path of an image reference, lower-cased, without registry host, tag or digest."""
    return parse_image(image).path.lower()


#: ``vllm`` as a word of the repository path, a version written onto it included (``neuron-sdk2.20-vllm0.5.0-neuron``).
_VLLM_WORD = re.compile(r"(?:^|[/_.-])vllm(?:v?\d+(?:\.\d+)*)?(?:[/_.-]|$)")


#: Path segments that name an organisation whose registry holds vLLM's tools beside (or instead of) the server: the
#: GitHub organisation ``vllm-project`` publishes ``ghcr.io/vllm-project/guidellm`` (a benchmark client) and
#: ``ghcr.io/vllm-project/semantic-router/extproc`` (a router); the segment alone makes no image a vLLM server.
_ORGANISATIONS = frozenset({"vllm-project"})


#: Words of an image repository that name a simulator of vLLM's server, not the server: llm-d's inference simulator
#: (``ghcr.io/llm-d/llm-d-inference-sim``, a Go program first built as ``vllm-sim``, "designed to mimic the behavior
#: of vLLM without the need for GPUs", README at eec055a; it takes vLLM's flag names, ``--model``,
#: ``--max-model-len``, ``--max-num-seqs``, ``--max-loras``: docs/configuration.md), AIBrix's
#: ``aibrix/vllm-simulator`` ("Mocked vLLM application", development/app/README.md), and mock or emulator builds named
#: so. It holds no model and needs no accelerator (corpus16: nginx/nginx-gateway-fabric's guardrails example was
#: read as a vLLM engine and blocked for requesting no GPU).
_SIMULATOR_WORDS = re.compile(r"(?:^|[/_.-])(?:sim|simulator|mock|emulator)(?:[/_.-]|$)")


def is_simulator_image(image: str | None) -> bool:
    """Whether the image is a simulator or mock of vLLM's server (:data:`_SIMULATOR_WORDS` in the image's own name,
    the repository path's last segment), not an engine. A registry folder or organisation so named
    (``registry.example.com/mock/vllm-openai``, ``ghcr.io/sim-lab/vllm-openai``) holds real builds too: read as a
    simulator, such a vLLM server gave no workload and no finding (review17)."""
    return bool(image) and _SIMULATOR_WORDS.search(_repository(str(image)).rsplit("/", 1)[-1]) is not None


@functools.lru_cache(maxsize=1024)
def is_vllm_image(image: str | None) -> bool:
    """Whether the image is a vLLM server build: ``vllm/vllm-openai``, ``rocm/vllm``, ``opea/vllm-gaudi``,
    ``lmcache/vllm-openai``, AWS's ``pytorch-inference-vllm-neuronx``, ``neuron-sdk2.20-vllm0.5.0-neuron``, ...
    (``vllm`` as a word of the repository path, a version may follow; the registry host does not count, and
    neither does an organisation of :data:`_ORGANISATIONS`: ``ghcr.io/vllm-project/guidellm`` is a client; a
    simulator named for vLLM, ``ghcr.io/llm-d/vllm-sim`` or ``aibrix/vllm-simulator``, is no build of it)."""
    if not image or is_simulator_image(image):
        return False
    path = "/".join(part for part in _repository(str(image)).split("/") if part not in _ORGANISATIONS)
    return _VLLM_WORD.search(path) is not None


#: Flags that only vLLM's server takes (TGI, SGLang and llama.cpp spell theirs otherwise). Args that
#: carry one of them are vLLM's own arguments, whatever the image is called.
_VLLM_ONLY_FLAGS = frozenset({
    "gpu-memory-utilization", "max-model-len", "max-num-seqs", "enforce-eager", "swap-space",
    "max-num-batched-tokens", "distributed-executor-backend", "enable-prefix-caching",
})


def has_vllm_only_flag(tokens: Sequence[str]) -> bool:
    for tok in tokens:
        if tok.startswith("--") and _normalise(tok[2:].partition("=")[0]) in _VLLM_ONLY_FLAGS:
            return True
    return False


#: The image's own name (the repository path's last segment) when it is a build of vLLM's server: ``vllm`` alone
#: (``rocm/vllm``, ``quay.io/modh/vllm``, a version may follow) or with words that name the build's accelerator or API
#: (``vllm-openai``, ``vllm-tpu``, ``vllm-gaudi``, ``vllm-openvino``, ``vllm-openai-ubi9``).
_BUILD_NAME = re.compile(r"vllm(?:v?\d+(?:\.\d+)*)?(?:[_.-](?:openai|tpu|rocm|cuda|cpu|gpu|gaudi|hpu|xpu|neuron|"
                         r"neuronx|ascend|openvino|ubi\d*|arm64|amd64|v?\d+(?:\.\d+)*))*")


def names_vllm_build(image: str | None) -> bool:
    """Whether the image is known as a build of vLLM's server by its name (:data:`_BUILD_NAME`, or a family
    :func:`.images.image_info` knows), not only named for vLLM: ``quay.io/joopark/vllm-optimizer-backend`` (a web
    backend of a project about vLLM) and ``ghcr.io/acme/deepseek-ocr-vllm/ocr-service`` are images of other programs
    whose names hold the word (corpus26)."""
    if not image or not is_vllm_image(image):
        return False
    if image_info(image).family != "other":
        return True
    return _BUILD_NAME.fullmatch(_repository(str(image)).rsplit("/", 1)[-1]) is not None


#: Words of an image repository that name a client of a vLLM server (``vllm-bench-client``), not the server.
_CLIENT_WORDS = re.compile(r"(?:^|[/_.-])client(?:[/_.-]|$)")


#: A server's address with its port, ``http://llm-vllm:8000``, ``https://10.2.1.155:8000/v1``: what a proxy, router
#: or gateway forwards requests to.
_SERVER_URL = re.compile(r"https?://[^\s/:@]+:\d+")


def fronts_a_server(image: str | None, gpus: Any, words: Sequence[str], env: Mapping[str, Any]) -> bool:
    """Whether a container whose image is named for vLLM but runs no vLLM is a proxy, router or gateway in front of
    a vLLM server, not the engine: its image is none of vLLM's own builds (:func:`.images.image_info`'s family is
    ``other``: ``ghcr.io/timblakely/vllm-proxy``, ``.../k8s-vllm-inference-poc-gateway``), it requests no
    accelerator, and its arguments or environment address a server by URL and port (``BACKEND_URL:
    http://llm-vllm:8000``, ``vllm-router --prefill http://10.2.1.155:8000``). An engine holds its model on
    accelerators; a container without one that forwards to a server's port is that server's client."""
    if gpus is not None and not (isinstance(gpus, int) and gpus == 0):  # an accelerator, or a count not known
        return False
    if not image or is_placeholder(image) or image_info(image).family != "other":  # (a placeholder: not known)
        return False
    for w in words:
        if "://" in w and _SERVER_URL.search(w):
            return True
    return any(isinstance(v, str) and "://" in v and _SERVER_URL.search(v) is not None for v in env.values())


def is_client_argv(tokens: Sequence[str]) -> bool:
    """Whether ``tokens`` are a client's: a flag that names the server it talks to (``--vllm-url``,
    ``--base-url``, ``--server-url``, ``--api-base``). vLLM's server takes no flag ending in ``url`` and none
    named ``api-base``; benchmark and load clients take the server's address that way (vLLM's own
    ``vllm bench serve --base-url``)."""
    for tok in tokens:
        if tok.startswith("--"):
            name = _normalise(tok[2:].partition("=")[0])
            if name.endswith("url") or name.endswith("api-base"):
                return True
    return False


#: vLLM's benchmark subcommands (``vllm bench NAME``, vllm/entrypoints/cli/benchmark/*.py at v0.34.0) by what runs in
#: the container. ``serve`` (vllm/benchmarks/serve.py) only sends HTTP requests (aiohttp) to a server named by
#: ``--base-url`` or ``--host``/``--port``: a client, no engine and no GPU.
BENCH_CLIENTS = frozenset({"serve"})
#: ``throughput``, ``latency``, ``startup``, ``forward`` and ``mm-processor`` build an engine in the container
#: (``EngineArgs.from_cli_args`` then ``LLM``; throughput's ``--backend`` hf and mii load the model too): the model
#: is on the container's GPUs, with engine flags, but no server is started. ``sweep`` starts the servers its
#: ``--serve-cmd`` string names.
BENCH_ENGINES = frozenset({"throughput", "latency", "startup", "forward", "mm-processor"})
#: The scripts of vLLM's benchmarks/ folder the CLI replaced (before 0.10 they ran as written; from then they print
#: the ``vllm bench`` command and exit): by the subcommand that replaced each.
_BENCH_SCRIPTS = {"benchmark_serving.py": "serve", "benchmark_serving_structured_output.py": "serve",
                  "benchmark_throughput.py": "throughput", "benchmark_latency.py": "latency"}


def _bench_in_words(words: Sequence[str]) -> str | None:
    n = len(words)
    for i, tok in enumerate(words):
        base = _base(tok)
        if base == "vllm" and i + 1 < n and words[i + 1] == "bench":
            return words[i + 2] if i + 2 < n else ""
        if base in _BENCH_SCRIPTS:
            return _BENCH_SCRIPTS[base]
        if _PYTHON.match(base):
            j = i + 1
            while j < n and words[j].startswith("-") and words[j] != "-m":
                j += 1
            if j + 2 < n and words[j] == "-m" and words[j + 1] in _CLI_MODULES and words[j + 2] == "bench":
                return words[j + 3] if j + 3 < n else ""
    return None


def bench_subcommand(command: Sequence[str], args: Sequence[str]) -> str | None:
    """The vLLM benchmark a container runs (``vllm bench serve``, ``python -m vllm.entrypoints.cli.main bench
    throughput``, ``python3 benchmarks/benchmark_serving.py``; directly or in a ``sh -c`` script): its subcommand
    (``""`` when none is written), else None. See :data:`BENCH_CLIENTS` and :data:`BENCH_ENGINES`."""
    argv = [str(t) for t in (*command, *args)]
    script = _shell_script(argv)
    if script is None:
        return _bench_in_words(argv)
    for words in _split_script(script):
        found = _bench_in_words(words)
        if found is not None:
            return found
    return None


#: Programs that fetch a model's weights and exit, by their download subcommand: the Hugging Face Hub's CLI
#: (``huggingface-cli download``, and ``hf download`` that replaced it in huggingface_hub 0.34) and ModelScope's
#: (``modelscope download --model ID --local_dir DIR``). Neither starts a server or holds a GPU.
_DOWNLOADERS = frozenset({"huggingface-cli", "hf", "modelscope"})
#: Words that start a simple command of a download script and run nothing of their own: the shell's control words
#: and builtins a script writes around the download (``set -ex``, ``if [[ ... ]]; then``, ``mkdir -p``, ``echo``).
_SCRIPT_WORDS = frozenset({"if", "then", "else", "elif", "fi", "[", "[[", "test", "set", "echo", "printf", "mkdir",
                           "cd", "ls", "export", "true", ":"})
_KEYWORDS = frozenset({"if", "then", "else", "elif", "exec"})


def downloads_weights_only(command: Sequence[str], args: Sequence[str]) -> str | None:
    """The download program (``modelscope download``) where every simple command a container runs is one of
    :data:`_DOWNLOADERS`' download subcommands or a word of :data:`_SCRIPT_WORDS`, and one at least downloads (a model
    download Job in the vLLM image, corpus32): such a container fetches weights and exits, it is no server. None
    where any other program runs (``huggingface-cli download X && python serve.py`` stays a container shardwise
    cannot read)."""
    argv = [str(t) for t in (*command, *args)]
    script = _shell_script(argv)
    found: str | None = None
    for words in (_split_script(script) if script is not None else [argv]):
        at = 0
        while at < len(words) and (words[at] in _KEYWORDS or _ASSIGN.match(words[at])):
            at += 1  # `then exec modelscope download ...`, `HF_HUB_ENABLE_HF_TRANSFER=1 hf download ...`
        if at == len(words):
            continue
        base = _base(words[at])
        if base in _DOWNLOADERS and at + 1 < len(words) and words[at + 1] == "download":
            found = found or f"{base} download"
        elif base not in _SCRIPT_WORDS:
            return None
    return found


def _client_image(image: str | None) -> bool:
    return bool(image) and _CLIENT_WORDS.search(_repository(str(image))) is not None


def find_vllm_invocation(
    command: Sequence[str], args: Sequence[str], env: Mapping[str, str], image: str | None = None,
    unknown_env: Collection[str] = (),
) -> tuple[str, list[str]] | None:
    """(form, vLLM's own arguments) for the container, or None when it does not run vLLM.

    A container that gives only ``args`` runs its image's entrypoint: on a vLLM image
    (:func:`is_vllm_image`), or when the args carry a flag only vLLM takes, they are ``vllm serve``
    arguments (the entrypoint of ``vllm/vllm-openai``; the API-server module of older and derived
    images takes the same flags). Args that name a server's address (:func:`is_client_argv`) or an image named
    for a client (``vllm-bench-client``) are a client's, whose ``--model`` names the model it asks for.
    """
    argv = [expand_k8s(str(t), env) for t in (*command, *args)]
    call = _shell_call(argv)
    if call is not None:
        script, operands = call
        # A $(NAME) left after Kubernetes' expansion is a variable shardwise cannot read (Kubernetes puts its
        # value into the script before the shell runs) or a command substitution: an unknown word either way.
        unknown = set(unknown_env)

        def unresolved(m: re.Match[str]) -> str:
            unknown.add(m.group(1))
            return "${" + m.group(1) + "}"

        found = _find_in_script(_K8S_REF_LEFT.sub(unresolved, script), env, unknown, operands)
    else:
        found = _find_in_argv(argv)
    if (found is None and not command and argv and (is_vllm_image(image) or has_vllm_only_flag(argv))
            and not is_client_argv(argv) and not _client_image(image) and not is_simulator_image(image)):
        # a client of the server (its address in a flag, a client image) is not it, nor a simulator that takes
        # vLLM's flags (llm-d's inference simulator: ``--model``, ``--max-model-len``)
        found = ("serve", argv)
    if found is not None and call is None:
        found = (found[0], _angle_words(found[1]))
    return found


def _angle_words(tokens: list[str]) -> list[str]:
    """``tokens`` (exec form, no shell) with each word that is a template's angle-bracket placeholder as a whole
    (``<model-name>``, ``--tensor-parallel-size=<TP_SIZE>``'s value: :func:`..model.unknown.is_angle_placeholder`)
    written as :data:`PLACEHOLDER_VALUE`, a value not known yet, as a script's ``vllm serve <model-id>`` reads
    (:data:`_ANGLE_PLACEHOLDER`). No value vLLM takes is written so: read as written, ``<TP_SIZE>`` was SW003's sure
    crash ("not an integer") and ``<model-name>`` a model the catalog lacks (corpus38: tutorials' manifests, which
    their reader fills before applying them)."""
    if not any("<" in t for t in tokens):
        return tokens
    out: list[str] = []
    for t in tokens:
        if is_angle_placeholder(t):
            out.append(PLACEHOLDER_VALUE)
            continue
        flag, eq, value = t.partition("=")
        if eq and flag.startswith("-") and is_angle_placeholder(value):
            out.append(f"{flag}={PLACEHOLDER_VALUE}")
            continue
        out.append(t)
    return out


# ---------------------------------------------------------------------------------------------
# Flag parsing
# ---------------------------------------------------------------------------------------------


class RefusedValue(InputError):
    """A value, as written, that vLLM's argument parser or its config validation refuses at start-up (a number that
    is no number, a fraction above 1, a count below 1, a word outside a flag's ``choices``): vLLM exits and the pod
    crash-loops. ``at``: the index, in the tokens parsed, of the word holding it; ``inline``: whether that word is
    ``--flag=value``. A caller that knows the workload reads the setting as unknown in its place and reports the
    crash (SW003) on the workload; others report it as the input error it is."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None, at: int = -1,
                 inline: bool = False) -> None:
        super().__init__(message, file, line)
        self.at = at
        self.inline = inline

    def __reduce__(self):  # type: ignore[override]
        return (type(self), (self.message, self.file, self.line, self.at, self.inline))

    @property
    def crash(self) -> str:
        """Why the pod crash-loops, as SW003 says it."""
        if self.message.endswith("vLLM exits at start-up"):
            return f"{self.message} and the pod crash-loops"
        return f"{self.message}: vLLM refuses it at start-up (it exits) and the pod crash-loops"


def _err(flag: str, value: str, what: str, location: Location | None, refused: bool = True) -> InputError:
    """``refused``: vLLM surely exits on the value at start-up (argparse's type conversion or ``choices``, a config
    field's bounds), a :class:`RefusedValue`; else an input error (a value shardwise cannot size: an infinite number,
    an integer beyond 64 bits, a count below 1 that vLLM may read as "unset")."""
    loc = location or Location()
    return (RefusedValue if refused else InputError)(f"{flag}: {value!r} is not {what}", loc.file, loc.line)


def _convert(kind: str, flag: str, value: str, location: Location | None) -> Any:
    if is_unresolved(value):
        return UNKNOWN
    v = value.strip()
    if kind in ("int", "posint"):
        try:
            n = int(v)
        except ValueError:
            raise _err(flag, value, "an integer", location) from None
        if kind == "posint" and n < 1:  # ParallelConfig's sizes are Field(ge=1) (0.25.1); block_size a choice
            raise _err(flag, value, "a positive integer", location)
        if not -_INT64 <= n < _INT64:
            raise _err(flag, value, "a 64-bit integer", location, refused=False)
        return n
    if kind in ("hint", "hint_auto"):
        if kind == "hint_auto" and (v.lower() == "auto" or v == "-1"):  # vLLM: fit the KV cache
            return "auto"
        try:
            n = human_int(v)
        except (ValueError, OverflowError):  # OverflowError: 1e400k is an infinite float
            raise _err(flag, value, "an integer (e.g. 8192 or 32k)", location) from None
        if n < 1:
            raise _err(flag, value, "a positive integer", location, refused=False)
        if n >= _INT64:
            raise _err(flag, value, "a 64-bit integer", location, refused=False)
        return n
    if kind in ("float", "fraction"):
        try:
            x = float(v)
        except ValueError:
            raise _err(flag, value, "a number", location) from None
        if not math.isfinite(x):  # float() reads inf and nan: argparse takes them
            raise _err(flag, value, "a finite number", location, refused=False)
        # vLLM refuses to start outside (0, 1]: CacheConfig "GPU memory utilization must be less than 1.0" (0.11.0),
        # no memory for the KV cache at 0 or below
        if kind == "fraction" and not 0 < x <= 1:
            raise _err(flag, value, "a fraction greater than 0 and at most 1", location)
        return x
    if kind == "bool":
        low = v.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise _err(flag, value, "true or false", location)
    if kind == "secret":
        return "<redacted>"
    if kind == "json":
        if holds_placeholder(v) or v == UNKNOWN_TOKEN:  # a template's value, not known yet: kept as written
            return value
        import json  # only for a --hf-overrides (a one-file lint imports no json: start-up time)

        try:
            json.loads(v)
        except ValueError:  # json.JSONDecodeError; argparse: "Value ... cannot be converted to <function loads>"
            raise _err(flag, value, "JSON (vLLM's argument parser reads it with json.loads)", location) from None
        return value
    return value


def _refusing(kind: str, flag: str, value: str, location: Location | None, at: int, inline: bool) -> Any:
    """:func:`_convert`, its error a :class:`RefusedValue` of the word at ``at``."""
    try:
        return _convert(kind, flag, value, location)
    except RefusedValue as e:
        raise RefusedValue(e.message, e.file, e.line, at, inline) from None


_FIELDS = frozenset(f.name for f in dataclasses.fields(EngineArgs)) - {"extra", "locations"}


def _set(engine: EngineArgs, key: str, value: Any) -> None:
    if key in _FIELDS:
        setattr(engine, key, value)
    else:
        engine.extra[key] = value


def _normalise(name: str) -> str:
    return name.replace("_", "-")


def parse_serve_args(
    tokens: Sequence[str],
    form: str = "serve",
    location: Location | None = None,
    locate: Locate | None = None,
) -> EngineArgs:
    """Parse vLLM's own arguments (everything after ``vllm serve`` / the api_server module)."""
    engine = EngineArgs()
    positionals: list[str] = []
    positional_model: str | None = None
    carriers: list[str] = []  # unresolved words where a flag could stand (see _undecide_carried)
    set_at: dict[str, int] = {}  # key -> index of the token that set it last
    last_carrier = -1
    n = len(tokens)
    i = 0

    def where(token: str) -> Location | None:
        found = locate(token) if locate is not None else None
        return found or location

    while i < n:
        tok = tokens[i]
        i += 1
        if tok == "--":
            positionals.extend(tokens[i:])
            break
        if tok.startswith("-") and len(tok) > 1 and not _looks_negative_number(tok):
            spelled, eq, inline = tok.partition("=")
            if tok.startswith("--"):
                name = _normalise(spelled[2:])
            else:
                short = spelled[1:]
                if short not in _SHORT and short[:1] == "O" and len(short) > 1:  # -O3
                    name, eq, inline = "compilation-config", "=", short[1:]
                else:
                    name = _SHORT.get(short, _normalise(short))
            negated = False
            if name.startswith("no-") and (name[3:] in _BOOL_FLAGS or _FLAGS.get(name[3:], ("", ""))[1] == "bool"):
                name, negated = name[3:], True
            key, kind = _FLAGS.get(name, (name.replace("-", "_"), ""))
            if not kind:
                kind = "bool" if name in _BOOL_FLAGS else "raw"
            loc = where(spelled)
            if kind == "bool":
                if eq:
                    value: Any = _refusing(kind, spelled, inline, loc, i - 1, True)
                elif i < n and tokens[i].strip().lower() in _TRUE | _FALSE:
                    value = _convert("bool", spelled, tokens[i], loc)
                    i += 1
                else:
                    value = True
                if negated and value is not UNKNOWN:
                    value = not value
            elif kind == "names":
                values = [inline] if eq else []
                while i < n and not tokens[i].startswith("-"):
                    if values and (is_unresolved(tokens[i]) or _carries_words(tokens[i])):
                        # after a first value, a word not resolved (`--served-model-name llama $EXTRA_ARGS`) is one
                        # more value or flags (argparse ends a nargs="+" list at the first word that is a flag):
                        # it carries flags too, never read as leaving the settings after it at their defaults
                        carriers.append(tokens[i])
                        last_carrier = i + 1
                    values.append(tokens[i])
                    i += 1
                value = values
            else:
                if eq:
                    raw = inline
                elif i < n and (not tokens[i].startswith("-") or _looks_negative_number(tokens[i])):
                    raw = tokens[i]
                    i += 1
                elif kind == "raw":
                    raw = None  # an unknown flag with no value: a switch
                else:
                    loc = loc or Location()
                    raise InputError(f"{spelled}: expects a value", loc.file, loc.line)
                if raw is None:
                    value = True
                elif kind == "raw" or (is_unresolved(raw) and (key == "model" or key not in _FIELDS)):
                    value = raw  # extras and the model keep an unresolved reference as written
                elif name in _OPTIONAL and raw in ("", "None"):
                    value = None  # vLLM's optional_type: the flag left at its default
                else:
                    value = _refusing(kind, spelled, raw, loc, i - 1, bool(eq))
                choices = _CHOICES.get(name)
                if choices is not None and isinstance(value, str) and not is_unresolved(value) \
                        and value.strip().lower() not in choices:
                    said = loc or Location()
                    raise RefusedValue(f"{spelled}: {value!r} is none of the values vLLM takes "
                                       f"({', '.join(choices)}); vLLM exits at start-up", said.file, said.line,
                                       i - 1, bool(eq))
            _set(engine, key, value)
            set_at[key] = i
            if loc is not None:
                engine.locations[key] = loc
        else:
            # an unresolved word after --model is a carrier of flags, not the model: Kubernetes expands
            # $(VAR) to one word, which vLLM's argparse reads as a positional only when it holds a space
            # (a whole argument list not known yet, UNKNOWN_TOKEN, is never one word: it carries flags)
            if form == "serve" and positional_model is None and not _carries_words(tok) and tok != UNKNOWN_TOKEN \
                    and not (is_unresolved(tok) and "model" in set_at):
                positional_model = tok
            else:
                positionals.append(tok)
                if is_unresolved(tok) or _carries_words(tok):
                    carriers.append(tok)
                    last_carrier = i

    if positional_model is not None:  # vLLM: the positional model_tag wins over --model
        if "model" in set_at and engine.model is not None:
            engine.extra["model_flag"] = engine.model  # what --model said (a doubled `serve` shadows it)
        engine.model = positional_model
        loc = where(positional_model)
        if loc is not None:
            engine.locations["model"] = loc
    if positionals:
        engine.extra["positional"] = positionals
    if carriers:
        _undecide_carried(engine, carriers, set_at, last_carrier, positional_model is not None)
        at = where(tokens[last_carrier - 1])
        if at is not None:
            engine.locations[UNKNOWN_AT] = at  # where the settings it may carry became unknown
    if "config" in set_at:
        _undecide_config_file(engine, set_at)
    return engine


def _undecide_config_file(engine: EngineArgs, set_at: Mapping[str, int]) -> None:
    """``--config FILE``: vLLM reads every setting from the YAML file that the command line does not give
    (command line > config file > defaults; vllm/utils FlexibleArgumentParser, docs/configuration/serve_args.md).
    The file is not read, so every setting not on the command line is unknown, not vLLM's default (the
    model is left to the reader, which says it is in the file)."""
    for key in sorted(_FIELDS - {"model"}):
        if key not in set_at:
            setattr(engine, key, UNKNOWN)
    for key in _CARRIED_EXTRAS:
        if key not in set_at and engine.extra.get(key) != "<redacted>":
            engine.extra[key] = UNKNOWN
    at = engine.locations.get("config")
    if at is not None:
        engine.locations.setdefault(UNKNOWN_AT, at)


#: Extras the rules read, which a flag carrier could set as well as the typed fields.
_CARRIED_EXTRAS = ("data_parallel_size_local", "master_port", "data_parallel_rpc_port", "node_rank", "api_key",
                   "hf_token", "host")


def _carries_words(tok: str) -> bool:
    """``"$@"`` / ``$*``: every argument the script was given."""
    return tok in ("$@", "$*", "${@}", "${*}")


def _undecide_carried(engine: EngineArgs, carriers: list[str], set_at: Mapping[str, int], last: int,
                      positional_model: bool) -> None:
    """A word vLLM receives that shardwise cannot resolve (``$(EXTRA_ARGS)`` from a ConfigMap, ``$EXTRA_ARGS``
    in a shell script, ``"$@"``, an unknown value at preview) can carry any flag, e.g.
    ``--tensor-parallel-size=8``; vLLM's last occurrence of a flag wins. Every setting not written after
    the last such word is therefore unknown, not its default: the rules that read it say they cannot
    decide."""
    engine.extra["flag_carriers"] = list(carriers)
    for key in sorted(_FIELDS - {"model"}):
        if set_at.get(key, -1) < last:
            setattr(engine, key, UNKNOWN)
            engine.locations.pop(key, None)
    if not positional_model and set_at.get("model", -1) < last:
        engine.model = UNKNOWN
    for key in _CARRIED_EXTRAS:
        if set_at.get(key, -1) < last and engine.extra.get(key) != "<redacted>":
            engine.extra[key] = UNKNOWN


def short_flag_name(short: str) -> str | None:
    """The dashed long name of the vLLM option whose short spelling is ``short`` (``q`` for ``-q``:
    ``--quantization``; ``tp``, ``pp``, ``dp``, ...), None for a word that is none."""
    return _SHORT.get(short)


def takes_value(word: str) -> bool:
    """Whether ``word`` is a flag vLLM defines (:data:`_FLAGS`) written without ``=`` whose value is the next word
    (``--tensor-parallel-size``, ``-tp``; not a switch such as ``--enforce-eager``): the next word is its value,
    never a flag, whatever it turns out to be (:func:`parse_serve_args` reads it so)."""
    if not word.startswith("-") or "=" in word or _looks_negative_number(word):
        return False
    name = _normalise(word[2:]) if word.startswith("--") else _SHORT.get(word[1:], _normalise(word[1:]))
    return name in _FLAGS and _FLAGS[name][1] != "bool"


def _looks_negative_number(tok: str) -> bool:
    if tok.startswith("--"):  # a long flag: never a number (float() would raise, which costs more)
        return False
    try:
        float(tok)
    except ValueError:
        return False
    return True


def parse_vllm_command(
    command: Sequence[str],
    args: Sequence[str],
    env: Mapping[str, str],
    image: str | None = None,
    location: Location | None = None,
    locate: Locate | None = None,
    unknown_env: Collection[str] = (),
) -> EngineArgs | None:
    """The vLLM engine settings of a container, or None when it does not run a vLLM server.

    ``env`` holds the container's literal environment (variables from Secrets, ConfigMaps or the
    downward API left out: references to them stay unresolved). ``location`` is recorded for every
    flag that was set; ``locate``, when given, maps a flag as written (``"--max_model_len"``,
    ``"-tp"``) or the positional model to a more precise location. A value that does not parse
    raises :class:`~shardwise.rules.model.errors.InputError` naming the flag. ``unknown_env`` names the variables
    whose values are not known (``"*"``: any, when ``envFrom`` may set them); a reference to one that
    could carry flags makes the settings it could override unknown (:func:`_undecide_carried`).
    """
    found = find_vllm_invocation(command, args, env, image, unknown_env)
    if found is None:
        return None
    form, tokens = found
    return parse_serve_args(tokens, form, location, locate)


# ---------------------------------------------------------------------------------------------
# Literal words that make vLLM exit (not unknowns)
# ---------------------------------------------------------------------------------------------

#: Flag kinds whose value vLLM's argument parser converts (int(), float(), human-readable int, bool): a word
#: it cannot convert makes it exit with "invalid ... value".
_CONVERTED = frozenset({"int", "posint", "hint", "hint_auto", "float", "fraction", "bool"})
#: Programs that run the rest of their arguments as they are (no shell, no expansion).
_EXEC_WRAPPERS = frozenset({"exec", "env", "tini", "dumb-init", "nice", "nohup", "stdbuf", "taskset", "numactl",
                            "--", "python", "python3", "vllm", "serve", "-m"})
_HELM = re.compile(r"\{\{.*?\}\}", re.S)
#: A placeholder KServe fills from an InferenceService's labels or annotations in its predictor's container
#: (``ReplacePlaceholders``, kserve/kserve pkg/controller/v1beta1/inferenceservice/utils/utils.go at 00bd5d06: the
#: container's JSON executed as an html/template, whose escaper skips the untyped nil a missing map key gives, so a
#: key the metadata does not hold renders as an empty string). Helm's own objects are ``.Values``, ``.Release``,
#: ``.Chart``..., never ``.Labels`` or ``.Annotations``.
_KSERVE_META = re.compile(
    r"\{\{-?\s*(?:\.(?P<map>Labels|Annotations)\.(?P<key>[A-Za-z_][A-Za-z0-9_]*)"
    r"|index\s+\.(?P<imap>Labels|Annotations)\s+\"(?P<ikey>[^\"\\]*)\")\s*-?\}\}")
#: The variables Kubernetes gives a container for each Service of its namespace (enableServiceLinks, on by
#: default): ``$(LLAMA_SERVICE_HOST)``, ``$(LLAMA_SERVICE_PORT)``, ``$(LLAMA_PORT_8000_TCP_ADDR)``... are expanded
#: in command and args too, from Services the inputs may not hold.
_SERVICE_ENV = re.compile(r"_SERVICE_(HOST|PORT)|_PORT(_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?$")
_SHELL_SYNTAX = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*")


#: A ``$(VAR)`` reference as text (what an escaped ``$$(VAR)`` or an env value Kubernetes left unexpanded holds).
_REF_TEXT = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.\-]*)\)")


@dataclasses.dataclass(frozen=True)
class Leftover:
    """A part of a word that reaches vLLM as written though it was meant as a reference.

    ``how``: ``undefined`` (a ``$(VAR)`` the container's env does not define), ``unexpanded`` (``$(VAR)`` names
    an env value that holds a ``$(X)`` Kubernetes did not expand: X is defined after it, or nowhere),
    ``escaped`` (``$$(VAR)``: Kubernetes passes ``$(VAR)``), ``shell`` (``${VAR}``, ``$VAR``), ``helm``
    (``{{ }}``). ``name``: the variable that decides it for ``undefined`` and ``unexpanded`` (whatever defines
    it in the pod that really runs, an operator or a kustomize overlay, would change the word), else None."""

    text: str
    how: str
    name: str | None = None


def _k8s_literal(word: str, env: Mapping[str, str], unknown_env: Collection[str]) -> tuple[str, Leftover | None]:
    """(the word as the container receives it, with references whose value is not known replaced by
    UNKNOWN_TOKEN; the first part of it that stays literal though it was meant as a reference, else None).

    Kubernetes expands ``$(VAR)`` in command and args from the container's env (env, envFrom and the Service
    variables) and leaves an undefined one as written; ``$$`` escapes a ``$`` (``$$(VAR)`` is passed as
    ``$(VAR)``); an env value expands only the variables defined before it, and what it holds is not expanded
    again. It never expands ``${VAR}`` or ``$VAR`` (only a shell does), nor a Helm ``{{ }}``."""
    if "$" not in word and "{{" not in word:  # no reference of any kind (most words): as written
        return word, None
    leftover: list[Leftover] = []

    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "$$":
            after = _REF_TEXT.match(word, m.end() - 1)
            if after is not None and word[m.end():m.end() + 1] == "(":
                leftover.append(Leftover("$" + after.group(0), "escaped"))
            return "$"
        name = m.group(1)
        value = env.get(name)
        if isinstance(value, str):
            inner = _REF_TEXT.search(value)
            if inner is not None and UNKNOWN_TOKEN not in value:
                leftover.append(Leftover(m.group(0), "unexpanded", inner.group(1)))
            return value
        if name in unknown_env or "*" in unknown_env or m.group(0) == UNKNOWN_TOKEN or _SERVICE_ENV.search(name):
            return UNKNOWN_TOKEN
        leftover.append(Leftover(m.group(0), "undefined", name))
        return m.group(0)

    text = _K8S_REF.sub(sub, word)
    rest = text.replace(UNKNOWN_TOKEN, "")
    for pattern, how in ((_SHELL_SYNTAX, "shell"), (_HELM, "helm")):
        found = pattern.search(rest)
        if found is not None:
            leftover.append(Leftover(found.group(0), how))
    return text, (leftover[0] if leftover else None)


#: What a word needs for :func:`literal_crash` to find a crash in it (besides being empty or ending in an empty
#: ``=`` value): a space (a flag and its value in one word), a ``$`` (a reference of any kind) or a Helm ``{{``.
_MAY_CRASH = re.compile(r"\s|\$|\{\{")


class Crash(NamedTuple):
    """A word vLLM exits on (:func:`literal_crash`)."""

    at: int  # the word's index in ``[*command, *args]``
    word: str  # the word to read in its place
    why: str
    #: The variable whose absence from the container's env makes it a crash (an undefined ``$(VAR)``), else None:
    #: sure only where the object read is the pod that runs (not a kustomize patch, not an operator's template)
    pending: str | None = None
    #: Whether the word is a template's placeholder (``${TP}``, ``$TP``, ``{{ }}``): no crash in a document that is
    #: evidently a template (one Kubernetes would refuse as written), where the tool fills it before it applies
    placeholder: bool = False


def literal_crash(command: Sequence[str], args: Sequence[str], env: Mapping[str, str], image: str | None = None,
                  unknown_env: Collection[str] = ()) -> Crash | None:
    """(index in ``[*command, *args]`` of the word, the word to read in its place, why vLLM exits) when a word
    the container passes to vLLM as written, without a shell, makes vLLM's argument parsing or model loading
    fail at start-up; None otherwise. The word to read instead leaves the setting it was meant for unknown
    (the deployment is broken; the other rules do not build on a guess of what was meant).

    - a flag and its value in one list item (``"--tensor-parallel-size 2"``): argparse splits ``--flag=value``
      but not a word with a space, which it reads as a positional: "unrecognized arguments" (or the model);
    - a reference Kubernetes leaves as written (``${TP}``, ``$TP``, an undefined ``$(TP)``, an escaped
      ``$$(TP)``, a ``$(VAR)`` whose env value holds a reference to a variable defined after it, a Helm ``{{ }}``)
      as the value of a flag vLLM converts (an integer, a number, a boolean) or as the model;
    - an empty model (``vllm serve ""``, ``--model ""``).

    A shell form (``sh -c "..."``) is left alone: the shell splits the words and expands its own variables.
    A reference whose value is not known (a Secret, the downward API, an envFrom source) is an unknown, not
    a crash."""
    words = [str(w) for w in (*command, *args)]
    for w in words:  # a loop, not any() over a generator: asked of every container
        if not w or w[-1] == "=" or _MAY_CRASH.search(w):
            break
    else:
        return None  # no empty word or value (--model=), no space, reference or placeholder: nothing below crashes
    if _shell_script([expand_k8s(w, env) for w in words]) is not None:
        return None
    received = [_k8s_literal(w, env, unknown_env) for w in words]
    argv = [text for text, _ in received]
    found = _find_in_argv(argv)
    if found is None and not command and argv and (is_vllm_image(image) or has_vllm_only_flag(argv)):
        found = ("serve", argv)
    if found is None:
        return None
    form, tokens = found
    start = len(argv) - len(tokens)
    if any(not (_base(w) in _EXEC_WRAPPERS or _PYTHON.match(_base(w)) or w.startswith("-") or _ASSIGN.match(w)
                or w in _API_SERVER_MODULES or w in _CLI_MODULES) for w in argv[:start]):
        return None  # a wrapper program of its own may split or expand the words: not sure
    model_seen = False
    i = 0
    while i < len(tokens):
        tok, at = tokens[i], start + i
        i += 1
        leftover = received[at][1]
        if tok == "--":
            break
        if tok.startswith("-") and len(tok) > 1 and not _looks_negative_number(tok):
            spelled, eq, inline = tok.partition("=")
            if any(c.isspace() for c in spelled):
                flag = spelled.split()[0]
                return Crash(at, f"{flag}={UNKNOWN_TOKEN}", (
                    f"the argument {words[at]!r} is one list item, one word with a space in it, which vLLM's "
                    f"argument parser does not split (it splits only {flag}=VALUE), so vLLM exits at start-up"))
            name = _SHORT.get(spelled[1:], "") if not tok.startswith("--") else _normalise(spelled[2:])
            key, kind = _FLAGS.get(name, ("", "bool" if name in _BOOL_FLAGS else "raw"))
            if kind == "bool" and not eq:
                continue
            if eq:
                value, vat = inline, at
            elif i < len(tokens) and not tokens[i].startswith("-"):
                value, vat = tokens[i], start + i
                i += 1
            else:
                continue
            why = _value_crash(key, kind, value, received[vat][1], words[vat])
            if why is not None:
                return Crash(vat, f"{spelled}={UNKNOWN_TOKEN}" if eq else UNKNOWN_TOKEN, f"{spelled} {why}",
                             _pending(received[vat][1]), _placeholder(received[vat][1]))
        elif form == "serve" and not model_seen:
            model_seen = True
            why = _value_crash("model", "str", tok, leftover, words[at])
            if why is not None:  # read as written: a model shardwise cannot name
                return Crash(at, words[at], f"the model {why}", _pending(leftover), _placeholder(leftover))
    return None


def _pending(leftover: Leftover | None) -> str | None:
    return leftover.name if leftover is not None and leftover.how in ("undefined", "unexpanded") else None


def _placeholder(leftover: Leftover | None) -> bool:
    return leftover is not None and leftover.how in ("shell", "helm")


def _value_crash(key: str, kind: str, value: str, leftover: Leftover | None, written: str) -> str | None:
    """Why vLLM exits on ``value`` of a flag (``key``, ``kind``), or None."""
    if key == "model" and value == "":
        return "is empty: vLLM finds no model named '' and exits"
    if leftover is None or UNKNOWN_TOKEN in value or not (kind in _CONVERTED or key == "model"):
        return None
    text = leftover.text
    kserve = _KSERVE_META.search(text) if leftover.how == "helm" else None
    if kserve is not None:
        which = kserve.group("map") or kserve.group("imap") or ""
        how = (f"is KServe's placeholder {kserve.group(0)}, and the InferenceService's metadata holds no "
               f"{which[:-1].lower()} {kserve.group('key') or kserve.group('ikey')!r} to fill it with: KServe "
               "renders a key its metadata does not hold as an empty string, so vLLM receives "
               f"{_KSERVE_META.sub('', value)!r} (written {written!r})")
        written = ""
    elif leftover.how == "helm":
        how = "is an unrendered Helm placeholder: the file was not rendered (helm template), so vLLM receives it"
    elif leftover.how == "undefined":
        how = (f"refers to {text}, which the container's env does not define: Kubernetes leaves an undefined "
               "$(VAR) as written, so vLLM receives it")
    elif leftover.how == "unexpanded":
        how = (f"refers to {text}, whose env value holds $({leftover.name}), which Kubernetes does not expand (an "
               "env value expands only the variables defined before it in the container's env), so vLLM "
               f"receives $({leftover.name}) (written {written!r})")
        written = ""
    elif leftover.how == "escaped":
        how = (f"escapes a reference: Kubernetes passes {text} as {text[1:]} ($$ is a literal $), so vLLM receives "
               f"{text[1:]} (written {written!r})")
        written = ""
    else:
        how = (f"uses {text}: Kubernetes expands only $(VAR) in command and args (a shell expands ${{VAR}} and "
               "$VAR, and there is none here), so vLLM receives it")
    what = "cannot load a model by that name" if key == "model" else "cannot read it as a value of the flag"
    return f"{how}{f' as written ({written!r})' if written else ''} and {what}, and exits at start-up"

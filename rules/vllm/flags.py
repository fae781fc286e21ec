"""``vllm serve`` flags that a vLLM release does not define: its argument parser exits on them at start-up.

vLLM reads its command line with argparse (``FlexibleArgumentParser``, ``vllm/utils``): an option the release does
not define ends the process with "error: unrecognized arguments: --FLAG" (exit code 2) before anything loads, and
the pod crash-loops. vLLM's parser keeps argparse's ``allow_abbrev`` (no release read sets it), so a word that is
a unique prefix of a defined option is taken as that option: a flag counts as absent only where no option of the
release *is or begins with* it. ``FlexibleArgumentParser.parse_args`` turns ``_`` into ``-`` in a flag's name
(from 0.5.1; 0.5.0 has no such parser, and a flag spelled with ``_`` is not judged there), so ``--swap_space`` is
``--swap-space``; ``--flag=value`` is read by its name.

:data:`GAPS` is a table read from vLLM's source at each release in :data:`RELEASES_READ` (the source
distributions on PyPI; the files vLLM's serve and OpenAI API-server parsers are built from, and more:
``engine/``, ``entrypoints/`` (``openai/cli_args.py``; ``launchers/`` from 0.29, ``common/`` from 0.33;
``cli/serve.py``), ``utils`` (``FlexibleArgumentParser``; from 0.2x ``EnableDisableAction`` pairs ``--enable-x``
with ``--disable-x``), ``config``, ``v1/engine/``, ``platforms/``, ``tool_parsers/``, ``scripts.py`` and the
tensorizer loader). Per release, every option string those files can register was collected, over-counted on purpose:
every string literal shaped like a long option, the fields of a dataclass whose fields become flags
(``FrontendArgs``), their ``--no-`` forms and their ``--enable-``/``--disable-`` twins. A flag counts as absent at
a release only where no string of that set is or begins with it; so the table errs only towards silence.

Beyond the table, :mod:`shardwise.rules.vllm.options` holds, as data, every option string of every release read
(:data:`~shardwise.rules.vllm.options.OPTION_RELEASES`), collected the same way: a flag (a typo, a made-up one) that
no option of such a release is or begins with is judged absent there too, naming the closest option.
:func:`release_value_refused` judges the values a release's parser refuses and a later one takes;
:func:`checkpoint_quantization_refused` a ``--quantization`` the checkpoint's own format refuses at every release read.

A release not in :data:`RELEASES_READ` (one not read, a release candidate, a nightly, anything newer) has no gap;
:func:`unread_release_refusal` judges only what every release read refuses (a flag none defines, a Mamba cache
dtype none takes), for an advisory finding.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from .args import short_flag_name
from .imageref import parse_image
from .images import image_info
from .options import OPTION_RELEASES, closest_option, undefined_option
from .switches import releases_read, takes_no_value
from .versions import Version, command_script, floating_line, parse_version, pip_pin, version_from_image

#: The releases whose source was read for :data:`GAPS`: every source distribution vLLM publishes on PyPI from 0.5.0
#: to 0.34.0 (0.15.0 and 0.15.1 have none, so they are not here) — the same releases whose option names were
#: collected, so one list (:data:`~shardwise.rules.vllm.options.OPTION_RELEASES`).
RELEASES_READ: frozenset[str] = OPTION_RELEASES
#: The post releases read, each with the same gaps as its release (a ``.postN`` tag reads as its release):
#: a post release not here (0.6.1.post1) is not judged.
POSTS_READ: tuple[str, ...] = ("0.5.0.post1", "0.5.3.post1", "0.6.1.post2", "0.6.3.post1", "0.6.4.post1",
                               "0.6.6.post1", "0.8.5.post1")


@dataclass(frozen=True)
class FlagGap:
    """``--flag`` is defined by no option of the releases read from ``first`` up to (not including) ``until``
    (None: through the newest release read)."""

    flag: str  # dashed, without ``--``
    first: str
    until: str | None
    #: What happened to it and what to write instead, as a clause: "was removed in 0.10.0: vLLM picks ...".
    what: str

    def holds(self, release: Version) -> bool:
        first = parse_version(self.first)
        until = parse_version(self.until) if self.until else None
        assert first is not None
        return first <= release and (until is None or release < until)


_OLDEST = "0.5.0"
_SPECULATIVE = ("was removed in 0.8.3: write `--speculative-config '{\"model\": \"NAME\", "
                "\"num_speculative_tokens\": N}'`")


def _added(release: str, what: str = "") -> str:
    return (f"first appears in {release}{f' ({what})' if what else ''}: use an image of vLLM {release} or later, "
            "or remove it")


#: Flags removed from, or added to, ``vllm serve``, for the releases read. Only flags that manifests write.
GAPS: tuple[FlagGap, ...] = (
    # removed
    FlagGap("device", "0.10.0", "0.24.0",  # 0.24 adds --device-ids, of which --device is then a unique prefix
            "was removed in 0.10.0 (deprecated as having no effect, vllm-project/vllm#18399, #21349): vLLM picks its "
            "platform from how the image was built"),
    FlagGap("use-v2-block-manager", "0.10.0", None,
            "was removed in 0.10.0 (the v2 block manager is the only one; the flag had no effect)"),
    FlagGap("tokenizer-pool-size", "0.10.0", None, "was removed in 0.10.0 (tokenizer pools are gone)"),
    FlagGap("tokenizer-pool-type", "0.10.0", None, "was removed in 0.10.0 (tokenizer pools are gone)"),
    FlagGap("enable-reasoning", "0.10.0", None,
            "was removed in 0.10.0: `--reasoning-parser NAME` alone turns reasoning output on"),
    FlagGap("num-scheduler-steps", "0.10.1", None, "was removed in 0.10.1 with multi-step scheduling"),
    FlagGap("multi-step-stream-outputs", "0.10.1", None, "was removed in 0.10.1 with multi-step scheduling"),
    FlagGap("enable-prompt-adapter", "0.10.2", None, "was removed in 0.10.2 with prompt adapters"),
    FlagGap("preemption-mode", "0.11.0", None, "was removed in 0.11.0 with the V0 engine (V1 recomputes)"),
    FlagGap("max-seq-len-to-capture", "0.11.0", None, "was removed in 0.11.0 with the V0 engine"),
    FlagGap("scheduler-delay-factor", "0.11.0", None, "was removed in 0.11.0 with the V0 engine"),
    FlagGap("disable-async-output-proc", "0.11.0", None, "was removed in 0.11.0 with the V0 engine"),
    FlagGap("rope-scaling", "0.11.1", None,
            "was removed in 0.11.1: give it in `--hf-overrides` (its `rope_scaling` key)"),
    FlagGap("rope-theta", "0.11.1", None, "was removed in 0.11.1: give it in `--hf-overrides` (its `rope_theta` key)"),
    FlagGap("guided-decoding-backend", "0.12.0", None,
            "was removed in 0.12.0 (deprecated in 0.11): write `--structured-outputs-config "
            "'{\"backend\": \"NAME\"}'`"),
    FlagGap("num-lookahead-slots", "0.12.0", None, "was removed in 0.12.0"),
    FlagGap("override-pooler-config", "0.12.0", None, "was removed in 0.12.0: write `--pooler-config`"),
    FlagGap("task", "0.13.0", None,
            "was removed in 0.13.0: for a pooling model write `--runner pooling` (and `--convert embed`, "
            "`classify` or `reward` to adapt a generative one)"),
    FlagGap("swap-space", "0.18.0", None, "was removed in 0.18.0 (V1 keeps no CPU swap space)"),
    FlagGap("disable-frontend-multiprocessing", "0.19.0", None, "was removed in 0.19.0"),
    FlagGap("worker-use-ray", "0.7.0", None,
            "was removed in 0.7.0: write `--distributed-executor-backend ray`"),
    FlagGap("speculative-model", "0.8.3", None,
            _SPECULATIVE),
    FlagGap("num-speculative-tokens", "0.8.3", None,
            _SPECULATIVE),
    # added: absent before the release that brought them
    FlagGap("async-scheduling", _OLDEST, "0.10.0", _added("0.10.0")),
    FlagGap("structured-outputs-config", _OLDEST, "0.11.0", _added("0.11.0")),
    FlagGap("nnodes", _OLDEST, "0.11.1", _added("0.11.1", "vLLM's own multi-node launch")),
    FlagGap("node-rank", _OLDEST, "0.11.1", _added("0.11.1", "vLLM's own multi-node launch")),
    FlagGap("master-addr", _OLDEST, "0.11.1", _added("0.11.1", "vLLM's own multi-node launch")),
    FlagGap("enable-expert-parallel", _OLDEST, "0.8.0", _added("0.8.0")),
    FlagGap("data-parallel-size", _OLDEST, "0.8.3", _added("0.8.3")),
    FlagGap("reasoning-parser", _OLDEST, "0.7.1", _added("0.7.1")),
    FlagGap("enable-sleep-mode", _OLDEST, "0.7.0", _added("0.7.0")),
    FlagGap("kv-transfer-config", _OLDEST, "0.6.5", _added("0.6.5")),
    FlagGap("speculative-config", _OLDEST, "0.8.2", _added("0.8.2")),
    FlagGap("runner", _OLDEST, "0.10.1", _added("0.10.1")),
    # --convert came with --runner: no string "--convert..." in 0.10.0's source, arg_utils.py's model_group
    # registers it in 0.10.1
    FlagGap("convert", _OLDEST, "0.10.1", _added("0.10.1")),
    # no mm_encoder_tp_mode anywhere in 0.10.1.1's source; MultiModalConfig's field and its flag in 0.10.2
    FlagGap("mm-encoder-tp-mode", _OLDEST, "0.10.2", _added("0.10.2")),
    FlagGap("kv-cache-memory-bytes", _OLDEST, "0.10.2", _added("0.10.2")),
    # engine/arg_utils.py and config/cache.py: absent in 0.33.0, added in 0.34.0 (the extensible KV cache)
    FlagGap("enable-extensible-kv-cache", _OLDEST, "0.34.0", _added("0.34.0", "the extensible KV cache")),
)

_BY_FLAG: dict[str, tuple[FlagGap, ...]] = {}
for _gap in GAPS:
    _BY_FLAG[_gap.flag] = (*_BY_FLAG.get(_gap.flag, ()), _gap)

#: The first release whose parser turns ``_`` into ``-`` in a flag's name (``FlexibleArgumentParser``).
_UNDERSCORES_SINCE = Version((0, 5, 1))
#: Tags that name no release's own build: a release candidate, a development build, a nightly.
_NOT_A_RELEASE = re.compile(r"rc\d|dev|nightly")
#: The programs whose parser is vLLM's serve parser (``vllm serve``, vLLM's OpenAI API server); others (the old
#: demo ``vllm.entrypoints.api_server``, the gRPC server, NVIDIA Dynamo) define flags of their own.
_OTHER_PARSERS = frozenset({"vllm.entrypoints.api_server", "vllm.entrypoints.grpc_server", "dynamo.vllm"})


#: vLLM's own CPU builds (docs/getting_started/installation/cpu.md; its Kubernetes guide's "Deployment with CPUs"):
#: built from the release's source with VLLM_TARGET_DEVICE=cpu, their entrypoint ``vllm serve`` with the release's
#: own parser (the parser is made from EngineArgs, whatever the platform), so a flag is judged as on the CUDA image of
#: that release (read49: ``--device=cpu`` at 0.12.0, which EngineArgs lost in 0.10.0, vllm-project/vllm#21349, passed
#: in silence on ``vllm/vllm-openai-cpu:v0.12.0`` while ``vllm/vllm-openai:v0.12.0`` got SW003).
_CPU_RELEASE = re.compile(r"(?:docker\.io/)?vllm/vllm-openai-cpu"
                          r"|public\.ecr\.aws/q9t5s3a7/vllm(?:-arm64)?-cpu-release-repo")


@functools.lru_cache(maxsize=4096)  # asked of every vLLM container's image
def release_read(image: str | None) -> Version | None:
    """The vLLM release an image of vLLM's own build names, when its source was read (:data:`RELEASES_READ`);
    None for ``latest``, a digest alone, a nightly or release candidate, another family, a release not read."""
    if not image:
        return None
    if image_info(image).family not in ("vllm-openai", "aws-dlc") and not _CPU_RELEASE.fullmatch(
            parse_image(image).qualified.lower()):
        return None
    tag = (parse_image(image).tag or "").lower()
    if _NOT_A_RELEASE.search(tag) or ("post" in tag and not any(p in tag for p in POSTS_READ)):
        return None
    found = version_from_image(image)
    return found if found is not None and str(found) in RELEASES_READ else None


#: How a finding names the release it judged the flags against, where an image's tag named it.
BY_IMAGE = "(the release the image names)"


@functools.lru_cache(maxsize=256)
def line_releases(image: str | None) -> tuple[Version, ...]:
    """The releases read (:data:`RELEASES_READ`) of the line an AWS DLC floating tag holds one patch of
    (:func:`.versions.floating_line`: ``vllm:0.11-gpu-py312`` → 0.11.0, 0.11.1, 0.11.2), oldest first; () for
    another image, or a line none of whose patches was read."""
    line = floating_line(image) if image else None
    if line is None:
        return ()
    prefix = f"{line[0]}.{line[1]}."
    return tuple(sorted(v for v in (parse_version(r) for r in RELEASES_READ if r.startswith(prefix))
                        if v is not None))


#: An image built from HabanaAI/vllm-fork, Intel Gaudi's fork of vLLM (``opea/vllm-gaudi``, Habana's
#: ``vault.habana.ai/gaudi-docker/.../vllm-installer-...``, ``vllm-fork:...-gaudi``): its argument parser is not the
#: upstream release its version names. It took ``--kv-cache-dtype fp8_inc`` from August 2024 (HabanaAI/vllm-fork#144,
#: upstream only from 0.10.0) and defines options upstream never had (``--use-padding-aware-scheduling``,
#: ``--max-num-prefill-seqs``), so a release a workload declares (``shardwise.dev/vllm-version``) is not the parser it
#: runs (capacity5). vllm-project/vllm-gaudi's plugin images run an upstream release, but their names do not tell
#: them apart, so every Gaudi image is judged as a fork: only on what every release read refuses, advisory.
_FORK_BUILD = re.compile(r"gaudi|habana|(?<![a-z])hpu(?![a-z])|vllm-fork", re.IGNORECASE)


def fork_build(image: str | None) -> bool:
    """Whether ``image`` names a build of a vLLM fork whose argument parser its version does not fix
    (:data:`_FORK_BUILD`)."""
    return bool(image) and _FORK_BUILD.search(str(image)) is not None


def flags_release(image: str | None, words: list[str]
                  ) -> tuple[Version | None, str, str | None, Version | None]:
    """The release a vLLM container's flags are judged against: (the release, or None where none read is known;
    how a finding names it, as :data:`BY_IMAGE` does; where the release is not known, what the advisory
    (:func:`unread_release_refusal`) says names none, None for the image, and the release pinned, if any).
    ``words`` is the container's command line. A release its command pins with
    pip (``pip install vllm==0.10.0``, :func:`.versions.pip_pin`) is the one that runs, whatever the image's tag,
    and is judged as an image tag naming it would be (:func:`release_read`: a release not read is unknown); an
    install that pins none (``pip install -U vllm``, a range) is PyPI's newest at start-up, unknown."""
    pinned = pip_pin(command_script(words), image) if any("vllm" in w for w in words) else None
    if pinned is None:
        return release_read(image), BY_IMAGE, None, None
    if pinned.source == "pip-pin":
        said = f"(the release `{pinned.detail}` installs)"
        if str(pinned.version) in RELEASES_READ:
            return pinned.version, said, None, None
        return None, said, f"`{pinned.detail}` names no release read", pinned.version
    return None, BY_IMAGE, f"{pinned.detail.partition(' (')[0]}, so PyPI's newest at start-up runs", None


def absent_flag(words: list[str], tokens: list[str], release: Version) -> tuple[str, str] | None:
    """(the word as vLLM receives it, why vLLM exits) for the first flag in ``tokens`` (vLLM's own arguments) that
    ``release`` does not define; None when neither :data:`GAPS` nor the release's option set
    (:mod:`shardwise.rules.vllm.options`) rules any out. ``words`` is the whole command line (to see which program
    parses the flags). A word still holding a reference (``$X``,
    ``$(X)``, ``{{ }}``) is not judged: its name is not known."""
    line = "\0".join(words)  # one search per program over the whole line: a name holds no NUL, so none spans two words
    for m in _OTHER_PARSERS:  # a loop, not any() over a generator: asked of every vLLM container
        if m in line:
            return None
    for tok in tokens:
        if tok == "--":
            break
        if not tok.startswith("--") or len(tok) < 3:
            continue
        name = tok[2:].partition("=")[0]
        # a verdict of the name and the release alone, memoised for the names flags have (a long word is judged
        # afresh: the memo keeps no large text alive)
        why = _name_absent_at(name, release.parts) if len(name) <= 64 else _name_absent(name, release)
        if why is not None:
            return tok, why
    return None


@functools.lru_cache(maxsize=4096)  # asked of every flag of every vLLM container: a few dozen names a run
def _name_absent_at(name: str, parts: tuple[int, ...]) -> str | None:
    """:func:`_name_absent` of the release numbered ``parts``, memoised by the name and the numbers: a tuple of ints
    hashes and compares in C, where a :class:`Version` key called its dataclass ``__hash__`` (and ``__eq__`` for
    another object of the same release) in Python at every lookup, six a container (``absent_flag`` 23.5M → 21.3M
    instructions over 400 generated files)."""
    return _name_absent(name, Version(parts))


def _name_absent(name: str, release: Version) -> str | None:
    """Why vLLM ``release`` exits on the flag ``--name`` as written (``name`` without ``--`` and its ``=value``), or
    None (:func:`absent_flag`, which asks it of each flag in turn): a verdict of the name and the release alone."""
    if "$" in name or "{" in name or "." in name or (name and name.split() != [name]):
        return None  # (a name split by whitespace, as str.isspace tells it, is not one word: a blank in it)
    if "_" in name and release < _UNDERSCORES_SINCE:
        return None  # 0.5.0 reads `--swap_space` as written
    name = name.replace("_", "-")
    what = word_gap(name, release)
    if what is not None:
        return (f"`--{name}` is not a flag of vLLM {release} {BY_IMAGE}: it "
                f"{what}; vLLM's argument parser defines no option that is or begins with "
                f"`--{name}` there, so it exits at start-up (\"unrecognized arguments\") and the pod "
                f"crash-loops")
    if undefined_option(name, release):
        close = closest_option(name, release)
        return (f"`--{name}` is not a flag of vLLM {release} {BY_IMAGE}: no option "
                f"of that release is or begins with it (every option string of its source was read), so "
                f"vLLM's argument parser exits at start-up (\"unrecognized arguments\") and the pod "
                f"crash-loops" + (f"; did you mean `--{close}`?" if close else ""))
    return None


def word_gap(name: str, release: Version) -> str | None:
    """:func:`flag_gap` of a flag as written: a switch's ``no-`` spelling (argparse's ``BooleanOptionalAction``:
    ``--no-async-scheduling``, ``--no-enable-extensible-kv-cache``) is absent wherever the switch is."""
    what = flag_gap(name, release)
    if what is None and name.startswith("no-"):
        what = flag_gap(name[3:], release)
    return what


def flag_gap(name: str, release: Version) -> str | None:
    """Why ``release`` defines no ``--name`` (the :data:`GAPS` entry that holds: "was removed in 0.13.0: ...",
    "was added in 0.10.1"), or None when none rules it out."""
    for gap in _BY_FLAG.get(name, ()):
        if gap.holds(release):
            return gap.what
    return None


#: ``vllm serve`` refuses the model given as ``--model`` (read in every source distribution from 0.5.3 to 0.11.2):
#: from 0.5.5 to 0.8.2 its ``serve`` (``vllm/scripts.py``, then ``vllm/entrypoints/cli/serve.py`` from 0.7.3)
#: raises ValueError("With `vllm serve`, you should provide the model as a positional argument instead of via the
#: `--model` option.") when ``args.model`` is not EngineArgs' default (``facebook/opt-125m``), and its
#: ``model_tag`` positional is required besides; from 0.8.3 to 0.11.0 ``FlexibleArgumentParser.parse_args``
#: (``vllm/utils.py``, ``vllm/utils/__init__.py`` from 0.10) raises the same before parsing when the arguments
#: start with ``serve`` and a word is exactly ``--model`` (``--model=X`` passes there). From 0.11.1
#: (``utils/argparse_utils.py``) it only warns and moves the model to the front. 0.5.3 and 0.5.4 let the
#: positional win silently: not judged.
MODEL_VALUE_RAISES: tuple[Version, Version] = (Version((0, 5, 5)), Version((0, 8, 3)))
MODEL_WORD_RAISES: tuple[Version, Version] = (Version((0, 8, 3)), Version((0, 11, 1)))
_ENGINE_DEFAULT_MODEL = "facebook/opt-125m"


def model_option_raises(tokens: list[str], release: Version) -> str | None:
    """Why ``vllm serve`` (called as such: ``vllm serve`` or ``python -m vllm.entrypoints.cli.main serve``, not the
    OpenAI API-server module that the images of those releases run as their entrypoint) exits on ``tokens``, its
    arguments, at ``release``; None when it does not (:data:`MODEL_VALUE_RAISES`, :data:`MODEL_WORD_RAISES`). A
    value still holding a reference counts: vLLM compares it only with the default model's name."""
    by_value = MODEL_VALUE_RAISES[0] <= release < MODEL_VALUE_RAISES[1]
    by_word = MODEL_WORD_RAISES[0] <= release < MODEL_WORD_RAISES[1]
    if not (by_value or by_word):
        return None
    for i, tok in enumerate(tokens):
        if tok == "--":
            return None
        if by_word and tok == "--model":
            break
        if by_value and (tok == "--model" or tok.startswith("--model=")):
            value = tok.partition("=")[2] if "=" in tok else (tokens[i + 1] if i + 1 < len(tokens) else "")
            if value != _ENGINE_DEFAULT_MODEL:
                break
    else:
        return None
    return (f"`vllm serve` in vLLM {release} {BY_IMAGE} refuses `--model`: it raises \"With "
            "`vllm serve`, you should provide the model as a positional argument ... instead of via the `--model` "
            "option\" before anything loads (0.5.5-0.11.0; from 0.11.1 it only warns), so the pod crash-loops; "
            "write the model first, `vllm serve MODEL ...`")


#: The first release whose parser reads a flag's value with ``human_readable_int`` (``32k``, ``1M``), read in each
#: release's ``engine/arg_utils.py``: ``--max-model-len`` from 0.8.4 (``type=human_readable_int``; 0.8.3 has
#: ``type=int``), ``--max-num-batched-tokens`` from 0.9.1 (``if name in {"max_model_len", "max_num_batched_tokens"}``;
#: 0.9.0 names ``max_model_len`` alone), ``--kv-cache-memory-bytes`` from its first release (0.10.2). Before it
#: argparse's ``int`` refuses such a value ("argument --max-model-len: invalid int value: '32k'") and vLLM exits.
HUMAN_INT_SINCE: dict[str, Version] = {"max-model-len": Version((0, 8, 4)),
                                       "max-num-batched-tokens": Version((0, 9, 1))}
_SUFFIXED = re.compile(r"^\d+(?:\.\d+)?[kKmMgGtT]$")


#: The first release whose ``--kv-cache-dtype`` choices take each value, read in each release's source (the
#: ``choices`` of ``engine/arg_utils.py`` to 0.8.4, then the ``CacheDType`` Literal of vllm/config, which argparse
#: gets as ``choices``); no value was dropped from 0.5.0 to 0.34.0. From 0.33.0 a platform plugin may register more
#: (checked when the attention backend is chosen), so only releases up to :data:`KV_DTYPE_CHOICES_UNTIL` are judged.
KV_DTYPE_SINCE: dict[str, str] = {
    "auto": "0.5.0", "fp8": "0.5.0", "fp8_e4m3": "0.5.0", "fp8_e5m2": "0.5.0", "fp8_inc": "0.10.0",
    "bfloat16": "0.11.0", "fp8_ds_mla": "0.11.1", "float16": "0.18.0", "turboquant_k8v4": "0.20.0",
    "turboquant_4bit_nc": "0.20.0", "turboquant_k3v4_nc": "0.20.0", "turboquant_3bit_nc": "0.20.0",
    "int8_per_token_head": "0.20.0", "fp8_per_token_head": "0.20.0", "nvfp4": "0.20.0",
    "int4_per_token_head": "0.25.0", "nvfp4_4over6": "0.28.0", "nvfp4_ds_mla": "0.30.0", "ultraquant_4bit": "0.32.0",
    "octave_k3v4": "0.33.0", "octave_k3v3": "0.33.0", "octave_k3v3_compact": "0.33.0",
}
KV_DTYPE_CHOICES_UNTIL = Version((0, 33, 0))

#: ``--mamba-cache-dtype`` and ``--mamba-ssm-cache-dtype`` (both first in 0.10.1; before it the flags themselves are
#: absent): the first release whose choices take each value, read in every source distribution from 0.10.1 to 0.34.0
#: (``MambaDType``, ``config/cache.py``; ``vllm/config.py`` in 0.10.x): ``auto``/``float32`` from 0.10.1, ``float16``
#: from 0.13.0 (0.12.0 has none), ``bfloat16`` from 0.22.0 (0.21.0 has none); no value was dropped. EngineArgs types
#: both fields with that Literal and ``literal_to_kwargs`` hands argparse ``choices`` (``type=str``: case counts,
#: ``BFloat16`` is refused); no plugin registers more.
MAMBA_DTYPE_SINCE: dict[str, str] = {"auto": "0.10.1", "float32": "0.10.1", "float16": "0.13.0", "bfloat16": "0.22.0"}
MAMBA_DTYPE_FLAGS = ("mamba-cache-dtype", "mamba-ssm-cache-dtype")
_MAMBA_DTYPE_FLAGS_SINCE = Version((0, 10, 1))


#: The first release read whose argument parser hands an ``--hf-overrides`` value that is not a JSON object on as a
#: string, which ModelConfig refuses (:func:`not_a_json_object`): ``union_dict_and_str`` (engine/arg_utils.py: a
#: value matching ``{...}`` goes to json.loads, any other is ``str(val)``) with ModelConfig a pydantic dataclass
#: whose ``hf_overrides`` is ``dict[str, Any] | Callable`` (config/__init__.py, config/model.py), read at 0.10.0,
#: 0.10.1.1, 0.10.2, 0.11.0, 0.11.2, 0.14.1, 0.29.0 and 0.34.0. Before it (0.8.5: ``type=json.loads``) ``null``
#: reached ModelConfig as None; not read further, so not judged.
HF_OVERRIDES_OBJECT_SINCE = Version((0, 10, 0))

#: The releases whose parser refuses an empty or ``None`` ``--quantization`` (from, until), read in every sdist from
#: 0.5.0 to 0.34.0: 0.9.0 builds the flag from ModelConfig.quantization, ``Optional[QuantizationMethods]`` (a
#: ``Literal``; ``SkipValidation[...]`` from 0.9.1), so engine/arg_utils.py's get_kwargs gives it the Literal's values
#: as ``choices`` with the string "None" appended, and the type ``optional_type(str)``, which turns "" and "None" into
#: None: argparse checks that None against the choices and exits ("invalid choice: None"). 0.5.0 to 0.8.4
#: (``type=nullable_str``) and 0.8.5 (``optional_type(str)``) list None itself among the choices, and from 0.13.0 the
#: field is ``QuantizationMethods | str | None``, whose values become a ``metavar``, not choices: there the value is
#: None, the flag unset (vllm.args reads it so).
QUANTIZATION_NONE_REFUSED = (Version((0, 9, 0)), Version((0, 13, 0)))

#: Flags read as unset when empty or ``None`` (vllm.args ``_OPTIONAL``) that a release's field admits None only from
#: this release on: before it vLLM's parser reads the value with float() and exits. ``--gpu-memory-utilization`` is
#: ``type=float`` in engine/arg_utils.py to 0.8.4, then CacheConfig.gpu_memory_utilization ``float`` (default 0.9,
#: 0.92 from 0.20.0) to 0.33.0, and ``float | None`` in 0.34.0 (config/cache.py; get_kwargs gives it
#: ``optional_type(float)``), every sdist read.
OPTIONAL_SINCE: dict[str, Version] = {"gpu-memory-utilization": Version((0, 34, 0))}


def not_a_json_object(value: str) -> str | None:
    """What ``value`` is as JSON where json.loads reads it as something other than an object (``null``, ``[]``,
    ``"yarn"``, ``5``: "null", "an array", "a string", "a number"), else None (an object, or text that is not JSON,
    which :mod:`shardwise.rules.vllm.args` refuses on every release)."""
    v = value.strip()
    if not v or v.startswith("{") or "$" in v:
        return None
    import json  # only for an --hf-overrides (a one-file lint imports no json: start-up time)

    try:
        parsed = json.loads(v)
    except (ValueError, RecursionError):
        return None
    if isinstance(parsed, dict):
        return None
    return ("null" if parsed is None else "a boolean" if isinstance(parsed, bool) else "an array"
            if isinstance(parsed, list) else "a string" if isinstance(parsed, str) else "a number")


def _hf_overrides_why(v: str, what: str) -> str:
    return (f"`--hf-overrides {v}` is {what}, not a JSON object: vLLM's argument parser hands a value that is not "
            "`{...}` on as a string (engine/arg_utils.py union_dict_and_str) and ModelConfig, whose hf_overrides is a "
            "dict or a callable, refuses it (pydantic)")


def _release(text: str) -> Version:
    found = parse_version(text)
    assert found is not None, text
    return found


def _flag_values(tokens: list[str]) -> list[tuple[str, str, str]]:
    """(name, value, the word holding it) of each ``--flag VALUE`` / ``--flag=VALUE`` in ``tokens`` up to ``--``,
    the name dashed; a short spelling vLLM defines (``-q ""``, ``-q=``: argparse reads both as ``--quantization``
    with an empty value) under its long name."""
    out = []
    for i, tok in enumerate(tokens):
        if tok == "--":
            break
        if not tok.startswith("-"):
            continue
        spelled, eq, inline = tok.partition("=")
        if spelled.startswith("--"):
            name = spelled[2:].replace("_", "-")
        else:
            short = short_flag_name(spelled[1:])
            if short is None:
                continue
            name = short
        if eq:
            out.append((name, inline, tok))
        elif i + 1 < len(tokens) and not tokens[i + 1].startswith("-"):
            out.append((name, tokens[i + 1], tokens[i + 1]))
    return out


#: The words that say a switch is given a value (``--enforce-eager true``): read so only where the model is given
#: elsewhere, so the word can be no positional model.
_BOOL_WORDS = frozenset(("true", "false"))


def _model_elsewhere(tokens: list[str], at: int) -> bool:
    """Whether ``tokens`` give the model before the word at ``at`` or as ``--model``: the word is then a positional
    nothing takes ("unrecognized arguments")."""
    return any(t == "--model" or t.startswith("--model=") for t in tokens) or (
        at > 0 and bool(tokens) and not tokens[0].startswith("-"))


def switch_given_value(tokens: list[str], holds: Callable[[str], bool]) -> tuple[str, str, str] | None:
    """(the word, the switch's name, the value) of the first option in ``tokens`` (vLLM's own arguments, up to
    ``--``) that ``holds`` says takes no value (:mod:`.switches`) and is given one: ``--name=VALUE`` (any value, an
    empty or a ``$(VAR)`` one too: argparse refuses the ``=`` itself), or ``--name true``/``false`` where the model
    is given elsewhere. None when there is none."""
    for i, tok in enumerate(tokens):
        if tok == "--":
            break
        if not tok.startswith("--") or len(tok) < 3:
            continue
        spelled, eq, inline = tok.partition("=")
        name = spelled[2:].replace("_", "-")
        if not holds(name):
            continue
        if eq:
            return tok, name, inline
        nxt = tokens[i + 1].strip() if i + 1 < len(tokens) else ""
        if nxt.lower() in _BOOL_WORDS and _model_elsewhere(tokens, i + 1):
            return tokens[i + 1], name, nxt
    return None


def _switch_why(word: str, name: str, value: str, negates: bool, where: str) -> str:
    """Why vLLM exits on the switch ``--name`` given ``value`` in ``word`` (``--name=value``, or the word after it)."""
    refusal = (f"\"argument --{name}: ignored explicit argument '{value}'\"" if word.startswith("--") else
               f"\"unrecognized arguments: {value}\": the model is given, and nothing takes the word")
    off = f" (or `--no-{name}`)" if negates else ""
    return (f"`--{name}` takes no value {where} (a switch: argparse's store_true or BooleanOptionalAction), so "
            f"given `{value}` its argument parser exits at start-up ({refusal}) and the pod crash-loops; write "
            f"`--{name}` alone to turn it on, or leave it out to leave it off{off}")


def release_value_refused(words: list[str], tokens: list[str], release: Version) -> tuple[str, str] | None:
    """(the word holding the value, why vLLM exits) for the first value in ``tokens`` (vLLM's own arguments) that
    ``release``'s argument parser refuses while a later release takes it: ``--max-model-len 32k`` where the release
    reads it with int() (:data:`HUMAN_INT_SINCE`), a ``--kv-cache-dtype`` that came later (:data:`KV_DTYPE_SINCE`).
    None when there is none, or when ``words`` (the whole command line) runs another program's parser. A value no
    release takes is :mod:`shardwise.rules.vllm.args`'s to refuse (a Mamba cache dtype is refused here, against the
release's choices, :data:`MAMBA_DTYPE_SINCE`); one holding a reference is not judged."""
    line = "\0".join(words)
    for m in _OTHER_PARSERS:
        if m in line:
            return None
    read = str(release)
    switched = switch_given_value(tokens, lambda name: takes_no_value(name, read))
    if switched is not None:
        word, name, value = switched
        return word, _switch_why(word, name, value, takes_no_value(f"no-{name}", read),
                                 f"in vLLM {release} {BY_IMAGE}")
    for name, value, word in _flag_values(tokens):
        v = value.strip()
        if "$" in v or "{" in v:
            continue
        if name == "hf-overrides" and release >= HF_OVERRIDES_OBJECT_SINCE and (what := not_a_json_object(v)):
            return word, (f"{_hf_overrides_why(v, what)}: vLLM {release} {BY_IMAGE} exits at start-up, as every "
                          f"release read from {HF_OVERRIDES_OBJECT_SINCE} does, and the pod crash-loops; write a JSON "
                          "object (`{}` overrides nothing) or drop the flag")
        if (name == "quantization" and value in ("", "None")
                and QUANTIZATION_NONE_REFUSED[0] <= release < QUANTIZATION_NONE_REFUSED[1]):
            what = "an empty `--quantization`" if value == "" else "`--quantization None`"
            return word, (
                f"{what} is not a value vLLM {release} {BY_IMAGE} takes: its argument parser turns it into None and "
                "checks that against the quantization methods it lists, which hold the word 'None', not None "
                "(engine/arg_utils.py get_kwargs, 0.9.0 to 0.12.0), so it exits at start-up (\"invalid choice: None\") "
                "and the pod crash-loops; drop the flag (vLLM then reads the checkpoint's quantization_config), or use "
                f"an image of vLLM {QUANTIZATION_NONE_REFUSED[1]} or later, which reads it as unset")
        none_from = OPTIONAL_SINCE.get(name)
        if none_from is not None and release < none_from and value in ("", "None"):
            return word, (
                f"`--{name} {value or chr(34) * 2}` is not a value vLLM {release} {BY_IMAGE} takes: its argument "
                f"parser reads --{name} with float() (engine/arg_utils.py; the field admits None from {none_from}), "
                f"so it exits at start-up (\"invalid float value: '{value}'\") and the pod crash-loops; drop the "
                "flag, or write a fraction in (0, 1]")
        since = HUMAN_INT_SINCE.get(name)
        if since is not None and release < since and _SUFFIXED.match(v):
            return word, (
                f"`--{name} {v}` is not a value vLLM {release} {BY_IMAGE} takes: its "
                f"argument parser reads --{name} with int() (engine/arg_utils.py; the k/M forms came in {since} "
                f"with human_readable_int), so it exits at start-up (\"invalid int value: '{v}'\") and "
                f"the pod crash-loops; write the number in full, or use an image of vLLM {since} or later")
        if name == "kv-cache-dtype" and release < KV_DTYPE_CHOICES_UNTIL:
            came = KV_DTYPE_SINCE.get(v.lower())
            if came is not None and release < _release(came):
                taken = ", ".join(k for k, r in KV_DTYPE_SINCE.items() if _release(r) <= release)
                return word, (
                    f"`--kv-cache-dtype {v}` is not a value vLLM {release} {BY_IMAGE} takes: "
                    f"its argument parser's choices there are {taken} ({v} came in {came}), so it exits at start-up "
                    f"(\"invalid choice\") and the pod crash-loops; use an image of vLLM {came} or later")
        if name in MAMBA_DTYPE_FLAGS and release >= _MAMBA_DTYPE_FLAGS_SINCE:
            choices = [k for k, r in MAMBA_DTYPE_SINCE.items() if _release(r) <= release]
            if v not in choices:
                came = MAMBA_DTYPE_SINCE.get(v)
                fix = (f"use an image of vLLM {came} or later" if came is not None else
                       f"write one of them ({', '.join(choices)}; no release read to {NEWEST_READ} takes {v})")
                return word, (
                    f"`--{name} {v}` is not a value vLLM {release} {BY_IMAGE} takes: its argument "
                    f"parser's choices there are {', '.join(choices)} (MambaDType, config/cache.py"
                    f"{f'; {v} came in {came}' if came else ''}), so it exits at start-up (\"invalid choice\") and the "
                    f"pod crash-loops; {fix}")
    return None


NEWEST_READ = max(RELEASES_READ, key=_release)
_OLDEST_READ = min(RELEASES_READ, key=_release)


@functools.lru_cache(maxsize=1024)
def switch_at_every_release(name: str) -> bool:
    """Whether ``--name`` takes no value at every release read that defines it, and at least one does: each exits
    on it written with a value (where it is not defined, on the flag itself). Every release read must have been read
    for switches (:func:`.switches.releases_read`)."""
    if switch_releases() != RELEASES_READ:
        return False
    defined = [r for r in RELEASES_READ if not undefined_option(name, _release(r))]
    return bool(defined) and all(takes_no_value(name, r) for r in defined)


def switch_releases() -> frozenset[str]:
    return releases_read()


@functools.lru_cache(maxsize=4096)  # asked of every flag of a vLLM container whose image names no release read
def no_release_defines(name: str) -> bool:
    """Whether no release read (:data:`RELEASES_READ`) defines ``--name`` (dashed, without ``--``): no option of any
    of them is or begins with it."""
    return all(undefined_option(name, _release(r)) for r in RELEASES_READ)


def unread_release_refusal(words: list[str], tokens: list[str], image: str | None,
                           named_as: str | None = None, named: Version | None = None) -> tuple[str, str] | None:
    """(the word, why vLLM would exit) for the first flag in ``tokens`` (vLLM's own arguments) that no release read
    defines, or the first ``--mamba-cache-dtype`` / ``--mamba-ssm-cache-dtype`` value no release read takes, on an
    image whose tag names no release read (``latest``, a digest, a nightly, a team's own image, a release newer
    than :data:`NEWEST_READ` or between those read): every release read exits on it, and a release not read might
    define it, so the caller reports it as advisory. None when there is none, for an image naming a release older
    than the oldest read, or when ``words`` (the whole command line) runs another program's parser."""
    line = "\0".join(words)
    for m in _OTHER_PARSERS:
        if m in line:
            return None
    if named_as is None:
        named = version_from_image(image) if image else None
    if named is not None and named < _release(_OLDEST_READ):
        return None
    pin = (f"(vllm=={NEWEST_READ})" if named_as is not None else
           f"tag (vllm/vllm-openai:v{NEWEST_READ}) or declare the release the image holds (the annotation "
           "shardwise.dev/vllm-version)")
    if named_as is None:  # (the image's)
        named_as = f"the image {image} names no release read" if image else "the container names no image"
    unless = (f"{named_as}: unless its vLLM is newer than {NEWEST_READ} or a build of its own that takes it, the pod "
              f"crash-loops; pin a release {pin} to have it judged for sure")
    for tok in tokens:
        if tok == "--":
            break
        if not tok.startswith("--") or len(tok) < 3:
            continue
        name = tok[2:].partition("=")[0]
        if "$" in name or "{" in name or "." in name or name.split() != [name] or len(name) > 64:
            continue
        name = name.replace("_", "-")
        if no_release_defines(name):
            close = closest_option(name, _release(NEWEST_READ))
            return tok, (f"`--{name}` is defined by no vLLM release read, {_OLDEST_READ} to {NEWEST_READ} (no option "
                         f"string of any is or begins with it), so each exits at start-up on it (\"unrecognized "
                         f"arguments\"); {unless}" + (f"; did you mean `--{close}`?" if close else ""))
    switched = switch_given_value(tokens, switch_at_every_release)
    if switched is not None:
        word, name, value = switched
        return word, (_switch_why(word, name, value, False, f"at any vLLM release read ({_OLDEST_READ} to "
                                  f"{NEWEST_READ}, each that defines it)") + f"; {unless}")
    for name, value, word in _flag_values(tokens):
        v = value.strip()
        if (name == "hf-overrides" and (named is None or named >= HF_OVERRIDES_OBJECT_SINCE)
                and (what := not_a_json_object(v))):
            return word, (f"{_hf_overrides_why(v, what)}: every release read from {HF_OVERRIDES_OBJECT_SINCE} to "
                          f"{NEWEST_READ} exits at start-up on it (before {HF_OVERRIDES_OBJECT_SINCE} it is not "
                          f"judged); {unless}")
        if name in MAMBA_DTYPE_FLAGS and v and "$" not in v and "{" not in v and v not in MAMBA_DTYPE_SINCE:
            return word, (f"`--{name} {v}` is a value no vLLM release read takes ({_MAMBA_DTYPE_FLAGS_SINCE} to "
                          f"{NEWEST_READ}; its choices in {NEWEST_READ} are {', '.join(MAMBA_DTYPE_SINCE)}: "
                          f"MambaDType, config/cache.py), so each exits at start-up on it (\"invalid choice\"); "
                          f"{unless}")
    return None


#: The ``--quantization`` methods that only read a checkpoint already in their format (its ``quantization_config``
#: or its quant_config.json / quantize_config.json): no release quantises to them at load.
CHECKPOINT_FORMAT_METHODS = frozenset(("awq", "awq_marlin", "gptq", "gptq_marlin"))
#: The checkpoint ``quant_method`` values no override method claims for those four at any release read:
#: ``_verify_quantization`` then compares them and raises.
_NOT_CLAIMED = frozenset(("fp8", "compressed-tensors"))
#: The checkpoint ``quant_method`` values no override method claims whatever ``--quantization`` says (mend37): an
#: override (``override_quantization_method``) claims a checkpoint by its own quant_method (GPTQ/AWQ Marlin, BitBLAS,
#: IPEX and MoeWNA16 a gptq or awq one, ModelOpt and Petit a modelopt one, Mxfp4 an mxfp4 one), and none claims an
#: fp8, compressed-tensors or fbgemm_fp8 one, so any other flag reaches the comparison in ``_verify_quantization`` and
#: is refused (zai-org/GLM-4.5-Air-FP8 with fp8, Llama-3.1-405B-Instruct-FP8 with fp8, Qwen3-30B-A3B-FP8 with modelopt).
_OWN_FORMAT_ONLY = frozenset(("fp8", "compressed-tensors", "fbgemm_fp8"))
#: The overrides it relies on are those :func:`checkpoint_quantization_refused`'s docstring lists, read by quant49 and
#: read48 in :data:`QUANT_CHECK_READ` (this extension re-read no source of its own).
#: ``--quantization`` methods that quantise at load and that no override method claims on an AWQ or GPTQ checkpoint
#: (the marlin ones take ``awq_marlin``/``gptq_marlin``/``marlin``, ``auto_awq``/``auto_gptq`` ``awq``/``gptq``,
#: ``moe_wna16`` its own name, ``humming`` its own name at 0.34.0, ``ipex``/``cpu_wna16`` only on CPU/XPU):
#: ``_verify_quantization`` compares them with the checkpoint's ``awq``/``gptq`` and raises (read48).
LOAD_TIME_ON_INT4 = frozenset(("fp8", "bitsandbytes"))
#: The checkpoint ``quant_method`` values :data:`LOAD_TIME_ON_INT4` are judged on.
INT4_CHECKPOINT_METHODS = frozenset(("awq", "gptq"))
#: The releases whose ``_verify_quantization``, override methods and ``get_quant_config`` were read for it.
QUANT_CHECK_READ = "0.6.6.post1, 0.9.2, 0.11.0, 0.14.1, 0.19.0, 0.25.1, 0.33.0 and 0.34.0"


def quantization_mismatch_message(checkpoint_method: str, quantization: str) -> str:
    """vLLM's words (``ModelConfig._verify_quantization``) for a ``--quantization`` no override method takes on a
    checkpoint whose ``quantization_config`` names another method, quoted."""
    return (f"\"Quantization method specified in the model config ({checkpoint_method}) does not match the "
            f"quantization method specified in the `quantization` argument ({quantization}).\"")


def checkpoint_quantization_refused(quantization: str, model_id: str, checkpoint_method: str | None,
                                    precision: str) -> str | None:
    """Why vLLM exits when ``--quantization quantization`` serves the checkpoint ``model_id`` whose own
    ``quantization_config`` names ``checkpoint_method`` (None: it has none, its weights stored at ``precision``),
    or None when it starts or it is not judged. Only :data:`CHECKPOINT_FORMAT_METHODS` are judged, on a
    checkpoint without a quantization_config (16- or 32-bit weights) or one in a format of :data:`_NOT_CLAIMED`:
    the override methods (``awq_marlin``/``auto_awq`` for quant_method awq, ``gptq_marlin``/``auto_gptq`` for
    gptq, ``moe_wna16`` when named, ``ipex``/``cpu_wna16`` for awq/gptq checkpoints, ``inc`` for auto-round,
    ``modelopt`` for modelopt ones) claim none of them. The caller knows the checkpoint exactly (a catalog id)."""
    q = quantization.strip()
    if q in LOAD_TIME_ON_INT4 and (checkpoint_method or "").strip().lower() in INT4_CHECKPOINT_METHODS:
        own = (checkpoint_method or "").strip().lower()
        return (f"`--quantization {q}` does not match {model_id}'s own quantization_config (quant_method {own}), "
                f"and no override method takes it: vLLM raises {quantization_mismatch_message(own, q)} "
                f"(ModelConfig._verify_quantization, every release read: {QUANT_CHECK_READ}) and the pod "
                f"crash-loops; drop --quantization (vLLM reads the checkpoint's own method, through its Marlin "
                f"kernels where the GPU has them) or write --quantization {own}")
    own = (checkpoint_method or "").strip().lower().replace("compressed_tensors", "compressed-tensors")
    if own in _OWN_FORMAT_ONLY and q.lower() != own and q not in CHECKPOINT_FORMAT_METHODS:
        return (f"`--quantization {q}` does not match {model_id}'s own quantization_config (quant_method {own}), "
                f"and no override method takes it: vLLM raises {quantization_mismatch_message(own, q)} "
                f"(ModelConfig._verify_quantization, every release read: {QUANT_CHECK_READ}) and the pod "
                f"crash-loops; drop --quantization (vLLM reads the checkpoint's own method) or write --quantization "
                f"{own}")
    if q not in CHECKPOINT_FORMAT_METHODS:
        return None
    if checkpoint_method is None:
        if precision not in ("bf16", "fp16", "fp32"):
            return None
        fmt = "an AWQ" if q.startswith("awq") else "a GPTQ"
        return (f"`--quantization {q}` loads {fmt} checkpoint, and "
                f"{model_id} has {precision} weights and no quantization_config: vLLM raises \"Cannot find the "
                f"config file for {q}\" while loading it (get_quant_config, model_executor/model_loader/"
                f"weight_utils.py, every release read: {QUANT_CHECK_READ}) and the pod crash-loops; drop "
                f"--quantization, use one that quantises at load (fp8, bitsandbytes), or serve {fmt} "
                "checkpoint of the model")
    method = checkpoint_method.strip().lower()
    if method not in _NOT_CLAIMED:
        return None
    return (f"`--quantization {q}` does not match {model_id}'s own quantization_config (quant_method {method}), "
            f"and no override method takes it: vLLM raises \"Quantization method specified in the model config "
            f"({method}) does not match the quantization method specified in the `quantization` argument ({q}).\" "
            f"(ModelConfig._verify_quantization, every release read: {QUANT_CHECK_READ}) and the pod crash-loops; "
            f"drop --quantization (vLLM reads the checkpoint's own method) or write --quantization {method}")

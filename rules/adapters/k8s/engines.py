"""LLM servers other than vLLM, known by what a container runs: a workload that serves a model with one of them
gets a word (SW005) instead of passing as if nothing served a model there.

What each engine's container runs, from its own documentation and images:

- SGLang: ``python3 -m sglang.launch_server`` (sgl-project/sglang, docs/basic_usage and docker/k8s-sglang-service.yaml);
  images ``lmsysorg/sglang``.
- Text Generation Inference: ``text-generation-launcher`` (huggingface/text-generation-inference, launcher/);
  images ``ghcr.io/huggingface/text-generation-inference`` and Google's
  ``…/huggingface-text-generation-inference-cu…`` builds.
- LoRAX, a TGI fork: ``lorax-launcher``; images ``ghcr.io/predibase/lorax``.
- LMDeploy: ``lmdeploy serve api_server`` (InternLM/lmdeploy, k8s/deployment.yaml); images ``openmmlab/lmdeploy``.
- TensorRT-LLM's OpenAI server: ``trtllm-serve`` (NVIDIA/TensorRT-LLM, docs/source/commands/trtllm-serve); its image
  alone is a toolkit, not a server, so only the command counts.
- NVIDIA NIM: its images under ``nvcr.io/nim/`` (NVIDIA/nim-deploy, k8s-nim-operator's NIMService samples) run NIM's
  own server, which picks its backend (TensorRT-LLM, vLLM, SGLang) by profile at start-up: not a ``vllm serve`` whose
  flags the manifest holds. The NIM operator's ``NIMService`` builds such a pod itself (:mod:`.nim`).
- NVIDIA Dynamo's SGLang and TensorRT-LLM workers: ``python3 -m dynamo.sglang`` and ``python3 -m dynamo.trtllm``
  (ai-dynamo/dynamo, examples/backends/sglang/deploy/agg.yaml and examples/backends/trtllm/deploy/agg.yaml;
  ``dynamo.sglang.worker`` and ``dynamo.sglang.decode_worker`` in the 0.4 examples): the engine's own flags, not
  vLLM's, in a DynamoGraphDeployment's worker (Dynamo's vLLM worker, ``dynamo.vllm``, is read as vLLM).
- llama.cpp's server: ``llama-server`` (ggml-org/llama.cpp, tools/server/README.md); images
  ``ghcr.io/ggml-org/llama.cpp:server…`` (``ggerganov/llama.cpp`` before the move), whose ``:server`` tags run it
  (``:full`` and ``:light`` are its command-line tools).
- Ollama: ``ollama serve`` (ollama/ollama, docs/docker.md: the image's entrypoint is ``/bin/ollama`` with ``serve``);
  images ``ollama/ollama``.
- LocalAI: its binary ``local-ai`` (mudler/LocalAI, README "Containers"); images ``localai/localai`` (Docker Hub,
  ``latest-gpu-nvidia-cuda-12`` and the like) and ``quay.io/go-skynet/local-ai``.
- Triton Inference Server: ``tritonserver --model-repository`` (triton-inference-server/server, docs), by its command
  only (its image ``nvcr.io/nvidia/tritonserver`` runs whatever command it is given). Its ``…-vllm-python-py3`` tags
  carry the vLLM backend (triton-inference-server/vllm_backend README): a model whose ``config.pbtxt`` says
  ``backend: "vllm"`` takes its engine settings from ``model.json`` in the model repository, not from a command line,
  so shardwise reads none of them; the word names the backend (:data:`_BACKEND_TAGS`).

llama.cpp, Ollama and LocalAI are named only on a container that requests accelerators (:data:`GPU_ONLY`), and
Triton too (it serves any framework's models, a classifier on CPUs as well): on CPUs they run a homelab's small
models, where the gate has nothing of vLLM's to look for; on a GPU a team that expects the gate to look at every model
server on its accelerators must hear that this one was not. A container given accelerators that serves a model by
signs a server gives (a probe on a model server's route, a model named in its environment or flags) though nothing
names its engine gets the same word (:func:`unrecognised_server`); a simulator of one is said to be one
(:func:`simulator`).

A container is read word by word (the first :data:`_WORDS` words, the first :data:`_CHARS` characters of each), the
first :data:`_CONTAINERS` containers of a pod: the joined command line is never built, and a hostile pod (thousands
of containers whose words alias one large scalar) costs a bounded scan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ...catalog.accelerators import runtime_visibility
from ...model import Container
from ...model.inventory import UNRECOGNISED_ENGINE
from ...vllm.args import is_simulator_image

#: (engine, what its command runs, what its image's repository says) — None where that says nothing.
ENGINES: tuple[tuple[str, re.Pattern[str] | None, re.Pattern[str] | None], ...] = (
    ("SGLang", re.compile(r"\b(?:sglang\.launch_server\b|dynamo\.sglang(?:\.(?:worker|decode_worker))?(?![\w.]))"),
     re.compile(r"(?:^|/)lmsysorg/sglang(?:[:@]|$)")),
    ("Text Generation Inference", re.compile(r"(?<![\w-])text-generation-launcher\b"),
     re.compile(r"text-generation-inference")),
    ("LoRAX", re.compile(r"(?<![\w-])lorax-launcher\b"), re.compile(r"(?:^|/)predibase/lorax(?:[:@]|$)")),
    ("LMDeploy", re.compile(r"\blmdeploy\s+serve\b"), re.compile(r"(?:^|/)openmmlab/lmdeploy(?:[:@]|$)")),
    ("TensorRT-LLM", re.compile(r"(?:(?<![\w-])trtllm-serve\b|\bdynamo\.trtllm(?![\w.]))"), None),
    ("NVIDIA NIM", None, re.compile(r"(?:^|/)nvcr\.io/nim/")),
    ("llama.cpp", re.compile(r"(?<![\w-])llama-server\b"),
     re.compile(r"(?:^|/)(?:ggml-org|ggerganov)/llama\.cpp:server")),
    ("Ollama", re.compile(r"\bollama\s+serve\b"), re.compile(r"(?:^|/)ollama/ollama(?:[:@]|$)")),
    ("LocalAI", re.compile(r"(?<![\w.-])local-ai(?![\w./-])"),
     re.compile(r"(?:^|/)(?:localai/localai|go-skynet/local-ai)(?:[:@]|$)")),
    # (Triton's image runs what it is given: its entrypoint, nvidia_entrypoint.sh, starts no server by itself, so a
    # GPU test pod on it that sleeps serves nothing: aws-samples/amazon-eks-machine-learning-with-terraform-and-kubeflow
    # eks-cluster/tests/test-gpu.yaml)
    ("Triton Inference Server", re.compile(r"(?<![\w.-])tritonserver(?![\w./-])"), None),
)
#: What a workload's word names where no engine was named (:func:`simulator`, :func:`unrecognised_server`): an object
#: that mentions vLLM says that instead (``adapters.k8s.inventory``), which names what of vLLM it holds.
WEAK_ENGINES = frozenset({"a simulator", UNRECOGNISED_ENGINE})
#: Engines named only where the container requests accelerators (a count, a count not known yet, or a device claim).
GPU_ONLY = frozenset({"llama.cpp", "Ollama", "LocalAI", "Triton Inference Server"})
#: An image tag that names the backend an engine's build carries: Triton's ``24.09-vllm-python-py3`` (vLLM) and
#: ``-trtllm-python-py3`` (TensorRT-LLM), from NGC's tritonserver tags.
_BACKEND_TAGS: dict[str, tuple[tuple[re.Pattern[str], str], ...]] = {
    "Triton Inference Server": (
        (re.compile(r":[^/@]*(?<![a-z0-9])vllm(?![a-z0-9])"), "its vLLM backend, whose engine settings are the "
         "model repository's model.json, not flags shardwise reads"),
        (re.compile(r":[^/@]*(?<![a-z0-9])trtllm(?![a-z0-9])"), "its TensorRT-LLM backend"),
    ),
}
#: Images a team builds or an engine ships that say the engine only by name, read on a container given accelerators
#: (a router or a client of the same name runs on CPUs): SGLang, Ollama or llama.cpp as a word of the image's own name
#: (``sglang-snapshot:replace-me``, ai-dynamo/snapshot docs/guides/sglang/deployment.yaml), and TensorRT-LLM's release
#: image on a container that serves on a port (the image is a toolkit: ai-dynamo/snapshot's tensorrt-llm guide runs its
#: own LLM-API app on port 8000; a batch job declares no port).
_NAMED_IMAGES: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    ("SGLang", re.compile(r"(?:^|/)[^/:@]*(?<![a-z0-9])sglang(?![a-z0-9])[^/:@]*(?:[:@]|$)", re.IGNORECASE), False),
    ("TensorRT-LLM", re.compile(r"(?:^|/)tensorrt-llm/release(?:[:@]|$)"), True),
    # a team's Ollama or llama.cpp build (GoogleCloudPlatform/backlogged-pinball-backend k8s/ollama.yaml:
    # us-docker.pkg.dev/backlogged-ai/llm/ollama:v1.0.0 on two H100)
    ("Ollama", re.compile(r"(?:^|/)[^/:@]*(?<![a-z0-9])ollama(?![a-z0-9])[^/:@]*(?:[:@]|$)", re.IGNORECASE), False),
    ("llama.cpp", re.compile(r"(?:^|/)[^/:@]*(?<![a-z0-9])llama[._-]?cpp(?![a-z0-9])[^/:@]*(?:[:@]|$)", re.IGNORECASE),
     False),
)
_WORDS = 32
_CHARS = 2048
_CONTAINERS = 16
#: The engines' commands as one pattern, a named group each: a word is scanned once, not once per engine.
_COMMANDS = re.compile("|".join(f"(?P<e{i}>{command.pattern})" for i, (_, command, _) in enumerate(ENGINES)
                                if command is not None))


def _seen(words: list[str]) -> tuple[str, str] | None:
    """(the engine, what of ``words`` names it) for the first engine command in one word or across two neighbours
    (``lmdeploy``, ``serve``)."""
    words = [w[:_CHARS] for w in words[:_WORDS] if isinstance(w, str)]
    for i, w in enumerate(words):
        m = _COMMANDS.search(w)
        if m is None and i + 1 < len(words):
            m = _COMMANDS.search(f"{w[-64:]} {words[i + 1][:64]}")
        if m is not None and m.lastgroup is not None:
            return ENGINES[int(m.lastgroup[1:])][0], m.group(0)
    return None


def other_engine(containers: Iterable[Container]) -> tuple[Container, str, str] | None:
    """(the container, the engine, what said so) for the first container that runs an LLM server other than vLLM,
    by its command first, then by its image; None when none does."""
    found = None
    for n, c in enumerate(containers):
        if n == _CONTAINERS:
            break
        accelerated = _accelerated(c)
        seen = _seen([*c.command[:_WORDS], *c.args[:_WORDS]][:_WORDS])
        if seen is not None and (accelerated or seen[0] not in GPU_ONLY):
            return c, _with_backend(seen[0], c.image), f"its command runs `{seen[1]}`"
        if found is None and seen is None and isinstance(c.image, str):
            for engine, _, image in ENGINES:
                if image is not None and image.search(c.image[:_CHARS]):
                    if accelerated or engine not in GPU_ONLY:
                        found = c, _with_backend(engine, c.image), f"its image is {c.image}"
                    break
            else:
                if accelerated:
                    for engine, named, port in _NAMED_IMAGES:
                        if named.search(c.image[:_CHARS]) and (c.ports or not port):
                            found = c, engine, f"its image is {c.image}, on a container given accelerators"
                            break
    return found


def _with_backend(engine: str, image: object) -> str:
    """``engine``, with the backend its image's tag names (:data:`_BACKEND_TAGS`) after it."""
    if isinstance(image, str):
        for tag, backend in _BACKEND_TAGS.get(engine, ()):
            if tag.search(image[:_CHARS]):
                return f"{engine} ({backend})"
    return engine


#: Probe paths that only a model server answers: the OpenAI API's model list (vLLM, SGLang, TGI, LocalAI, llama.cpp
#: and the servers that copy them), the KServe/Triton v2 protocol's health and model routes, and ``/health`` as
#: vLLM's, TGI's and SGLang's servers spell it. A web app's ``/healthz`` or a notebook's ``/api`` is none of them.
_SERVING_PATHS = re.compile(
    r"^/(?:v1/models|health|v1/health|v2/health/(?:ready|live)|v2/models(?:/[^?]*)?)/?(?:\?.*)?$")
#: Environment variables that name the model a server loads: Hugging Face's and the engines' own spellings
#: (TGI's ``MODEL_ID``, KServe's Hugging Face runtime's ``HF_MODEL_ID``, a team's ``MODEL_NAME``/``MODEL``).
_MODEL_ENV = re.compile(r"^(?:HF_|HUGGING_?FACE_)?MODEL(?:_ID|_NAME|_REPO|_PATH)?$|^SERVED_MODEL_NAME$")
#: A Hugging Face repository id (``org/name``), the value a model variable holds.
_HF_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,95}$")
#: Flags by which a server's command names its model (``--model``, TGI's ``--model-id``, ``--model-path``).
_MODEL_FLAGS = frozenset({"--model", "--model-id", "--model-path", "--model-name", "--served-model-name"})


def unrecognised_server(containers: Iterable[Container]) -> tuple[Container, str] | None:
    """(the container, what says it serves a model) for the first container given accelerators that serves a model
    though neither its command nor its image names a server shardwise knows (vLLM's or :data:`ENGINES`'): a team's own
    image running a script of its own, ``python server.py``. A server declares a port or a probe; it serves a model
    where a probe asks a model server's route (:data:`_SERVING_PATHS`), an environment variable names a Hugging Face
    model (:data:`_MODEL_ENV`) or a flag names the model (:data:`_MODEL_FLAGS`). A training Job (no port, no probe)
    and a notebook (no serving route, no model) are not servers of a model. None when no container is one."""
    for n, c in enumerate(containers):
        if n == _CONTAINERS:
            break
        if not _accelerated(c) or not (c.ports or c.probes):
            continue
        for probe in c.probes.values():
            if isinstance(probe.path, str) and _SERVING_PATHS.match(probe.path[:_CHARS]):
                return c, f"its {probe.kind} probe asks {probe.path}"
        for name, value in list(c.env.items())[:_WORDS]:
            if _MODEL_ENV.match(name) and isinstance(value, str) and _HF_ID.match(value[:_CHARS]):
                return c, f"{name} names the model {value}"
        words = [w for w in [*c.command[:_WORDS], *c.args[:_WORDS]][:_WORDS] if isinstance(w, str)]
        for i, w in enumerate(words):
            flag, eq, value = w[:_CHARS].partition("=")
            if flag in _MODEL_FLAGS and (eq or i + 1 < len(words)):
                return c, f"its command names the model (`{flag} {value if eq else words[i + 1][:_CHARS]}`)"
    return None


#: What an LLM server's simulator names in its image or its arguments: vLLM, an LLM, inference, or a ``--model`` flag
#: (llm-d's ``llm-d-inference-sim --model Qwen/Qwen2.5-1.5B-Instruct``). A ``mock-server`` image with none of them is
#: some other service's mock.
_SIMULATES_LLM = re.compile(r"(?<![a-z0-9])(?:vllm|llm|inference)(?![a-z0-9])", re.IGNORECASE)


def simulator(containers: Iterable[Container]) -> Container | None:
    """The first container that runs a simulator of an LLM server
    (:func:`~shardwise.rules.vllm.args.is_simulator_image`: llm-d's inference simulator, "designed to mimic the
    behavior of vLLM without the need for GPUs", AIBrix's ``vllm-simulator``): it loads no model and holds no KV
    cache, so no rule has anything of a server to check, and the run says it recognised one rather than passing in
    silence. None when no container is one."""
    for n, c in enumerate(containers):
        if n == _CONTAINERS:
            break
        if not isinstance(c.image, str) or not is_simulator_image(c.image[:_CHARS]):
            continue
        words = [w[:_CHARS] for w in [*c.command[:_WORDS], *c.args[:_WORDS]] if isinstance(w, str)]
        if _SIMULATES_LLM.search(c.image[:_CHARS]) or any(w.partition("=")[0] == "--model" for w in words):
            return c
    return None


def _accelerated(c: Container) -> bool:
    """Whether ``c`` is given accelerators: a count above 0, a count not known yet, a device claim, or a RuntimeClass
    that shows it the node's devices without a request (``runtimeClassName: nvidia``, as homelab Ollama pods write)."""
    gpus = c.gpus
    return (bool(c.resource_claims) or (gpus is not None and not (isinstance(gpus, (int, float)) and gpus <= 0))
            or (isinstance(c.runtime_class, str) and runtime_visibility(c.runtime_class)))

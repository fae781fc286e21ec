"""SW402: a liveness probe without a startup probe that covers loading the model."""

from __future__ import annotations

from collections.abc import Iterable

from ..capacity.cache import (
    BASE_STARTUP_SECONDS,
    SECONDS_PER_WEIGHT_GIB,
    Download,
    EngineStart,
    StartupEstimate,
    is_local_model,
    startup_estimate,
)
from ..capacity.group import require_model
from ..capacity.sizing import QuantizationUnknown, weight_precision, weights_bytes
from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import UNKNOWN, UNKNOWN_TOKEN, Container, Inventory, Probe, ServingGroup, Undecidable, known
from ..vllm.args import is_unresolved
from ..vllm.imageref import parse_image
from ._capacity import vllm_version
from ._unseen import held_back_hits


def _pods(g: ServingGroup) -> int:
    return g.pods_per_group if isinstance(g.pods_per_group, int) and g.pods_per_group > 0 else 1


def _checkpoint_gib(g: ServingGroup) -> float | None:
    """The checkpoint's weights in GiB as stored (parameters × bytes per parameter), None when the model is not known.

    ``--dtype`` is not read: it is the dtype vLLM casts the weights to in the accelerator's memory, not what it
    downloads or reads. vLLM's DefaultModelLoader downloads the checkpoint's files as the repository holds them and
    reads each tensor as stored (model_loader/default_loader.py; weight_utils.py ``safetensors_weights_iterator``);
    ``default_weight_loader`` casts it where it copies it into a parameter made at the model's dtype. So each value
    ``--dtype`` can take (auto, half, float16, bfloat16, float, float32) gives the same download and read, and the
    same verdict: one not known yet holds nothing back (mend6; review27 found SW402 held back on it).

    Nor is ``--quantization`` (mend10): a method that quantises at load (``fp8``, ``bitsandbytes``, ``experts_int8``
    on a 16-bit checkpoint) downloads and reads the 16-bit files and quantises what it has read, layer by layer or
    after the loop (``Fp8LinearMethod``/``Fp8OnlineLinearMethod`` in model_executor/layers/quantization/fp8.py take
    ``params_dtype`` weights from the loader; vLLM PRs 29196, 31914), and a method that reads a quantised checkpoint
    reads its own format, which the model's precision already is. The checkpoint was sized at the quantised
    precision: a bf16 Llama-3.1-70B with ``--quantization fp8`` was 67.7 GiB read and downloaded, where the files hold
    131.4."""
    if g.model is None:
        return None
    try:
        return weights_bytes(g.model, weight_precision(g.model, "auto", None), None) / 2**30
    except (KeyError, ValueError, TypeError, QuantizationUnknown):
        return None


def _unknown_weights(g: ServingGroup) -> str | None:
    """The value not known yet (a preview's computed value, an unresolved reference) that the checkpoint's size waits
    for: the model; None where none is (a model shardwise does not know stays one whose size is not known, as
    before). Never the dtype nor the quantization: the checkpoint is downloaded and read as stored whatever they are
    (:func:`_checkpoint_gib`; unknown24 held SW402 back on an unknown quantization until mend10)."""
    if g.engine.model is UNKNOWN:
        return "the model"
    return None


def required_startup_seconds(g: ServingGroup) -> int:
    """The startup window the components render at the least for the group: 300 s + 2 s per GiB of the pod's
    weights (:mod:`shardwise.rules.capacity.cache`), above the top of SW402's band when nothing is downloaded."""
    gib = _checkpoint_gib(g)
    if gib is None:
        return BASE_STARTUP_SECONDS
    return int(BASE_STARTUP_SECONDS + SECONDS_PER_WEIGHT_GIB * gib / _pods(g))


#: Builds of vLLM that carry no model weights: a Hub model id is downloaded when their container starts.
_STOCK_IMAGES = frozenset({"vllm/vllm-openai", "vllm/vllm-openai-cpu", "vllm/vllm-tpu", "rocm/vllm", "rocm/vllm-dev",
                           "lmcache/vllm-openai"})
#: Where the Hugging Face cache is when nothing moves it: the stock images run as root.
_DEFAULT_HF_HOME = "/root/.cache/huggingface"


def _on(value: object) -> bool | None:
    if value is UNKNOWN:
        return None
    return isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on")


def download_mode(g: ServingGroup, c: Container) -> Download:
    """Whether the vLLM container downloads the checkpoint when it starts (see cache.startup_estimate)."""
    model = g.engine.model
    if not isinstance(model, str) or is_local_model(model):
        return "none"
    offline = [_on(c.env.get(name)) for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")]
    if any(offline):
        return "none"
    if None in offline:
        return "possible"  # a value that is not known yet may turn the download off
    image = c.image if isinstance(c.image, str) else None
    if image is None or parse_image(image.lower()).path not in _STOCK_IMAGES:
        return "possible"  # the image may hold the weights
    download_dir = g.engine.extra.get("download_dir")
    hub_cache, hf_home = c.env.get("HF_HUB_CACHE"), c.env.get("HF_HOME")
    if UNKNOWN in (download_dir, hub_cache, hf_home) or (isinstance(download_dir, str) and is_unresolved(download_dir)):
        return "possible"  # a --download-dir not known yet (kept as written: an extra) may be on a volume, or not
    cache = str(download_dir or hub_cache or f"{(hf_home or _DEFAULT_HF_HOME).rstrip('/')}/hub")
    unknown = False
    for path in c.volume_mounts.values():
        if path == UNKNOWN_TOKEN:
            unknown = True  # a mount path not known at preview may be the cache's, or not
            continue
        root = path.rstrip("/") or "/"
        if root == "/" or cache == root or cache.startswith(root + "/"):
            return "cached"  # a volume keeps the cache across container restarts, whatever the unknown mount is
    return "possible" if unknown else "every start"


def engine_start(g: ServingGroup) -> EngineStart:
    if g.engine.enforce_eager is True:
        return "eager"
    try:
        return "compile" if vllm_version(g).behaviour.engine == "v1" else "graphs"
    except (ValueError, KeyError):
        return "compile"


def estimate(g: ServingGroup, c: Container) -> StartupEstimate:
    return startup_estimate(_checkpoint_gib(g), _pods(g), download_mode(g, c), engine_start(g))


def _checked(p: Probe, container: str) -> Probe:
    if all(getattr(p, f) is UNKNOWN for f in ("initial_delay_seconds", "period_seconds", "failure_threshold")):
        known(UNKNOWN, f"the {p.kind} probe of container `{container}`")  # the whole probe (a preview's unknown)
    for field in ("initial_delay_seconds", "period_seconds", "failure_threshold"):
        known(getattr(p, field), f"{p.kind} probe {field} of container `{container}`")
    return p


def _budget(p: Probe) -> str:
    return (f"{p.budget_seconds} s (initialDelaySeconds {p.initial_delay_seconds} + periodSeconds "
            f"{p.period_seconds} × failureThreshold {p.failure_threshold})")


class LivenessWithoutStartupProbe(GroupRule):
    meta = RuleMeta(
        code="SW402",
        name="liveness-without-startup-probe",
        enforcement="mandatory",
        severity="high",
        summary=(
            "A vLLM container's probes can kill it before the model has loaded: a liveness probe that gives up "
            "sooner, with no startup probe, or a startup probe that gives up sooner."
        ),
        why=(
            "vLLM answers /health only after it has downloaded (when its cache is empty) and loaded the weights, "
            "profiled memory, compiled the model and captured CUDA graphs: seconds for a small model, many "
            "minutes for a large one. A liveness probe whose failures add up before that (initialDelaySeconds + "
            "periodSeconds × failureThreshold) kills the container mid-start, and the pod restarts forever "
            "(CrashLoopBackOff) without serving once. A startup probe holds the liveness probe back until the "
            "first success; without one, the liveness probe itself must wait long enough. The start-up is "
            "estimated as a band from the model's size, the vLLM release and whether the pod downloads the "
            "checkpoint at every start (docs/capacity-model.md, \"Start-up time\"): a window below the band is "
            "mandatory, one inside it advisory."
        ),
        bad_example=(
            "livenessProbe:\n"
            "  httpGet: {path: /health, port: 8000}\n"
            "  periodSeconds: 10\n"
            "  failureThreshold: 3"
        ),
        good_example=(
            "startupProbe:\n"
            "  httpGet: {path: /health, port: 8000}\n"
            "  periodSeconds: 10\n"
            "  failureThreshold: 90   # 15 minutes to load\n"
            "livenessProbe:\n"
            "  httpGet: {path: /health, port: 8000}\n"
            "  periodSeconds: 10\n"
            "  failureThreshold: 3"
        ),
        remediation=(
            "Add a startupProbe on /health whose periodSeconds × failureThreshold (plus "
            "initialDelaySeconds) exceeds the longest start-up you have measured, with margin; keep the Hugging "
            "Face cache on a volume so a restart does not download the checkpoint again. Where the message gives "
            "a band, measure the start-up on this hardware and allow its upper end. Keep the liveness probe "
            "for detecting a hung server after start-up."
        ),
        references=(
            "https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#define-startup-probes",
            "https://docs.vllm.ai/en/latest/deployment/k8s.html",
            "https://docs.vllm.ai/en/latest/design/torch_compile.html",
        ),
        scope="resource",
        safe_to_skip_unknown=True,
    )
    fields = ("probe:liveness", "probe:startup")  # the line a finding points at

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether its probes give the model time to load")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        c = g.main_container
        if c is None:
            return
        liveness = c.probes.get("liveness")
        if liveness is None:
            return
        liveness = _checked(liveness, c.name)
        startup = c.probes.get("startup")
        if startup is not None:
            startup = _checked(startup, c.name)
        window = (startup or liveness).budget_seconds
        est = estimate(g, c)
        if est.checkpoint_gib is None and window >= est.low_seconds and not g.template:
            # the weights' size waits for a value not known yet: never a checkpoint of nothing (the estimate without
            # its read and download terms, which any window passes); a window below even that fails whatever it is. A
            # serving runtime (a template) serves the model of each service that names it: judged as before
            unknown = _unknown_weights(g)
            if unknown == "the model":
                require_model(g)  # as the capacity rules: SW004 names the rule where it reports the model
            if unknown is not None:
                raise Undecidable(unknown)
        if window >= est.high_seconds:  # the first kill comes after the slowest start the estimate allows
            return
        sure = window < est.low_seconds
        cached = ""
        kept_high: int | None = None  # the estimate's top with the Hugging Face cache on a volume
        if est.download == "every start":
            kept_high = startup_estimate(est.checkpoint_gib, _pods(g), "cached", est.engine).high_seconds
            cached = f"; up to {kept_high} s with the cache on a volume"
        need = (f"starting {'needs' if sure else 'takes an estimated'} {est.low_seconds}-{est.high_seconds} s "
                f"({est.terms()}){cached}")
        if startup is None:
            instead = _add_startup(est.high_seconds, kept_high)
            yield hit(g, f"container `{c.name}` has a liveness probe that acts after {_budget(liveness)} and no "
                         f"startup probe, but {need}; {instead}", level="mandatory" if sure else "advisory")
        else:
            instead = _raise_threshold(startup, est.high_seconds, kept_high)
            yield hit(g, f"the startup probe of container `{c.name}` allows {_budget(startup)}, but {need}; "
                         f"{instead}", location=g.at("probe:startup"), level="mandatory" if sure else "advisory")


def _add_startup(seconds: int, cached: int | None) -> str:
    """The startup probe to write: /health every 10 s, failing for at least ``seconds`` (the estimate's top), or
    ``cached`` seconds with the Hugging Face cache on a volume (None: nothing to keep)."""
    threshold = -(-seconds // 10)
    out = (f"add a startupProbe on /health with periodSeconds 10 and failureThreshold {threshold} "
           f"({threshold * 10} s, at least the estimate's upper end)")
    if cached is not None:
        out += f", or {-(-cached // 10)} with the cache on a volume"
    return out


def _raise_threshold(p: Probe, seconds: int, cached: int | None) -> str:
    """The failureThreshold that makes probe ``p`` wait ``seconds`` (the estimate's top) with its own period and
    initial delay, or ``cached`` seconds with the Hugging Face cache on a volume (None: nothing to keep)."""
    period = max(1, int(p.period_seconds))
    delay = max(0, int(p.initial_delay_seconds))

    def threshold(s: int) -> int:
        return max(1, -(-(s - delay) // period))

    out = (f"raise its failureThreshold to {threshold(seconds)} (initialDelaySeconds {delay} + periodSeconds "
           f"{period} × {threshold(seconds)} = {delay + period * threshold(seconds)} s, at least the estimate's upper "
           "end)")
    if cached is not None:
        out += f", or to {threshold(cached)} with the cache on a volume"
    return out

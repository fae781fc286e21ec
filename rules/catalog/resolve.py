"""A serving group's model -> its :class:`~shardwise.rules.model.shapes.ModelShape`.

:func:`resolve_model` finds the shape of the model a vLLM server names, in this order:

1. the annotation ``shardwise.dev/base-model`` on the workload: a catalog id (the served model is
   a copy of it; a quantisation its name states is kept) or the path of a ``config.json``
   (relative to the repository root, i.e. the directory shardwise runs in, or to the manifest);
2. a local path the model argument names that holds a ``config.json``;
3. the catalog, by id or alias, or as a quantised re-upload of a catalog model
   (``RedHatAI/…-FP8-dynamic``);
4. the ``models`` directories of the configuration (``model_dirs``): ``<dir>/<org>/<name>/config.json``
   with an optional ``model.safetensors.index.json`` beside it;
5. the local Hugging Face cache (``HF_HUB_CACHE``, else ``HF_HOME/hub``, else
   ``~/.cache/huggingface/hub``): ``models--<org>--<name>/snapshots/<rev>/config.json``, read offline;
6. for a path (``/models/llama-3.1-8b-instruct``, ``s3://bucket/llama-3.1-8b-instruct``), a catalog
   entry whose name matches the last path component (an OCI modelcar's image tag; for a revision
   folder, ``…/org/name/main``, the ``org/name`` above it). This is a guess: the group records which
   entry it assumed (``model_assumed``) and SW004 says so.

When nothing matches, the group records why (``model_unknown``, with the closest catalog names):
SW004 reports it once per workload with the three ways to teach the model, and the rules that need
the model's shape stay silent on that workload instead of each reporting "cannot decide". A
``config.json`` that cannot be read is an input error (``model_error``) with its file and line.

:func:`fetch_configs` (``shardwise lint --fetch-configs``) downloads missing ``config.json`` files
into the Hugging Face cache with ``huggingface_hub``, imported only then.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..model import UNKNOWN, UNKNOWN_TOKEN, ServingGroup
from ..model.errors import CatalogError, InputError
from ..model.files import inside, read_file_bytes
from ..model.shapes import ModelShape
from ..model.unknown import PLACEHOLDER_VALUE
from ..model.vocab import ANN_BASE_MODEL
from ..vllm.args import is_unresolved
from . import unsized
from .lookup import find_model, find_model_exact

#: The three ways to teach shardwise a model (SW004's remediation says them; kept for callers that print them).
TEACH_HINT = (
    "teach it one of three ways: the annotation shardwise.dev/base-model naming the catalog model it is a "
    "copy of or the repository path of its config.json; a models directory (config key model_dirs, "
    "<dir>/<org>/<name>/config.json); or its config.json in the local Hugging Face cache "
    "(HF_HOME; `shardwise lint --fetch-configs` downloads it)"
)

_REMOTE_PREFIXES = ("s3://", "gs://", "gcs://", "az://", "abfs://", "hf://", "pvc://", "oci://", "file://")


@dataclass(frozen=True)
class ModelSources:
    """Where models the catalog lacks are looked up (set once per run by :func:`configure`)."""

    model_dirs: tuple[str, ...] = ()
    hf_cache: str | None = None  # None: from the environment (HF_HUB_CACHE, HF_HOME)
    repo_root: str | None = None  # None: the current directory


_SOURCES = ModelSources()


def configure(model_dirs: Iterable[str] = (), hf_cache: str | None = None, repo_root: str | None = None) -> None:
    """Set the run's model sources (the CLI calls this before reading inputs; forked readers inherit it)."""
    global _SOURCES
    _SOURCES = ModelSources(tuple(model_dirs), hf_cache, repo_root)
    _MODEL_CACHE.clear()


def sources() -> ModelSources:
    return _SOURCES


def hf_cache_dir(environ: dict[str, str] | None = None) -> str:
    """The Hugging Face hub cache directory, as ``huggingface_hub`` resolves it."""
    env = os.environ if environ is None else environ
    if env.get("HF_HUB_CACHE"):
        return env["HF_HUB_CACHE"]
    if env.get("HF_HOME"):
        return os.path.join(env["HF_HOME"], "hub")
    xdg = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "huggingface", "hub")


def _looks_like_path(model: str) -> bool:
    return model.startswith(("/", "./", "../", "~")) or model.endswith(".json") or _is_remote(model)


def drafter_config_shape(model_id: str) -> ModelShape | None:
    """The shape of a speculative drafter checkpoint (``--speculative-config``'s ``model``) from its ``config.json``
    where this run can read one: a local directory the id names, the configured ``model_dirs``, the Hugging Face
    cache (offline), as :func:`resolve_model` looks a served model up; None where none is found or it cannot be
    read (the drafter is then not known: ``capacity/draft.py`` says it cannot decide)."""
    if not isinstance(model_id, str) or not model_id:
        return None
    src = sources()
    path = (model_id if os.path.isfile(os.path.join(model_id, "config.json")) else None) \
        or find_in_model_dirs(model_id, src.model_dirs) or find_in_hf_cache(model_id, src.hf_cache)
    if path is None:
        return None
    from .hfconfig import load_local_model  # a config.json to read: the reader is imported then (start-up time)

    try:
        shape = load_local_model(path)
    except CatalogError:
        return None
    return dataclasses.replace(shape, id=model_id)


def _is_remote(model: str) -> bool:
    return model.lower().startswith(_REMOTE_PREFIXES)


def _repo_id(model: str) -> str | None:
    """``org/name`` when ``model`` has the shape of a Hugging Face repository id."""
    parts = model.strip().split("/")
    if len(parts) == 2 and all(parts) and not _looks_like_path(model):
        return model.strip()
    return None


_MODEL_CACHE: dict[tuple[str, str | None], Any] = {}  # (id, base) -> ModelShape | CatalogError


def _find_model(model: str, base: str | None) -> Any:
    """``catalog.find_model``, memoised: thousands of manifests name the same few models."""
    key = (model, base)
    found = _MODEL_CACHE.get(key)
    if found is None:
        try:
            found = find_model(model, base)
        except CatalogError as err:
            found = err
        if len(_MODEL_CACHE) < 4096:
            _MODEL_CACHE[key] = found
    if isinstance(found, CatalogError):
        raise CatalogError(found.message, found.file, found.line)  # a fresh one: no traceback piles up
    return found


def _not_in_catalog(name: str, err: CatalogError) -> str:
    """``'acme/x' is not in the catalog`` with the catalog's suggestions, if it has any."""
    _, _, rest = err.message.partition("; did you mean: ")
    return f"{name!r} is not in the catalog" + (f"; did you mean: {rest}" if rest else "")


def _load_config(path: str, model_id: str, how: str) -> Any:
    """A shape from a config.json (or its directory), named ``model_id``, saying how it was found."""
    from .hfconfig import load_local_model  # a config.json to read: the reader is imported then (start-up time)

    shape = load_local_model(path)
    return dataclasses.replace(shape, id=model_id, extra={**shape.extra, "taught_by": how})


def find_in_model_dirs(model_id: str, dirs: Iterable[str]) -> str | None:
    """``<dir>/<org>/<name>/config.json`` for the first configured directory that has it."""
    repo = _repo_id(model_id)
    if repo is None:
        return None
    org, name = repo.split("/")
    for directory in dirs:
        candidate = os.path.join(directory, org, name, "config.json")
        # there but no regular file (a FIFO, a folder, a broken link): found, so reading it says what it is (fuzz13:
        # it was passed over, and the model said to be unknown)
        if os.path.lexists(candidate):
            return candidate
    return None


def find_in_hf_cache(model_id: str, cache: str | None = None) -> str | None:
    """The cached ``config.json`` of ``org/name``: the snapshot ``refs/main`` names, else the newest."""
    repo = _repo_id(model_id)
    if repo is None:
        return None
    root = os.path.join(cache or hf_cache_dir(), "models--" + repo.replace("/", "--"))
    if not os.path.isdir(root):
        return None
    try:
        # a regular file only, its first 4 KiB (a commit hash): a FIFO there held the run in open() for ever
        # (review17; read_file_bytes opens without waiting and refuses what is not a regular file)
        ref = read_file_bytes(os.path.join(root, "refs", "main"), limit=4096, head=True)
        revision = ref.decode("utf-8", "replace").strip()
        preferred = os.path.join(root, "snapshots", revision, "config.json")
        if revision and os.path.lexists(preferred):
            return preferred
    except (OSError, ValueError, InputError):  # ValueError: a NUL in the revision
        pass
    import glob  # only when refs/main names no snapshot (start-up time)

    found = glob.glob(os.path.join(glob.escape(root), "snapshots", "*", "config.json"))
    return max(found, key=os.path.getmtime) if found else None


def _readable_here(path: str, base_dir: str | None) -> bool:
    """Whether a path a manifest names may be read: inside the repository root (the directory shardwise runs in)
    or the manifest's directory, symbolic links followed. Nothing a repository names is read from elsewhere
    (``/proc/self/environ``, ``../../etc/passwd``); the models directories (``model_dirs``) and the Hugging Face
    cache are the user's own, and are read wherever they are."""
    roots = [_SOURCES.repo_root or os.getcwd(), *([base_dir] if base_dir else [])]
    return any(inside(path, r) for r in roots)


def _local_model_path(model: str, base_dir: str | None) -> str | None:
    expanded = os.path.expanduser(model)
    candidates = [expanded] if os.path.isabs(expanded) else [os.path.join(base_dir or ".", expanded), expanded]
    for path in (c for c in candidates if _readable_here(c, base_dir)):
        if os.path.isdir(path) and os.path.lexists(os.path.join(path, "config.json")):
            return path
        if path.endswith(".json") and os.path.isfile(path):
            return path
    return None


def _annotation_config(value: str, base_dir: str | None) -> str | None:
    """The config.json an annotation value names, relative to the repository root or the manifest."""
    if not (value.endswith(".json") or value.startswith(("/", "./", "../", "~"))):
        return None
    expanded = os.path.expanduser(value)
    roots = [] if os.path.isabs(expanded) else [_SOURCES.repo_root or os.getcwd(), base_dir or "."]
    for candidate in [os.path.join(r, expanded) for r in roots] or [expanded]:
        if os.path.isfile(candidate):
            return candidate
        if os.path.isdir(candidate) and os.path.lexists(os.path.join(candidate, "config.json")):
            return os.path.join(candidate, "config.json")
    return os.path.join(roots[0], expanded) if roots else expanded


def _taught(model_id: str) -> tuple[str, str] | None:
    """(config.json path, how) from the run's model directories or the Hugging Face cache."""
    path = find_in_model_dirs(model_id, _SOURCES.model_dirs)
    if path is not None:
        return path, "model_dirs"
    path = find_in_hf_cache(model_id, _SOURCES.hf_cache)
    if path is not None:
        return path, "Hugging Face cache"
    return None


def _revision_dir(name: str) -> bool:
    """``main`` or a 40-hex commit: a folder that holds one revision of the model named above it."""
    return name == "main" or (len(name) == 40 and all(c in "0123456789abcdef" for c in name))


#: A modelcar image's name that says its packaging around the model's: ``modelcar-<model>`` or ``<model>-modelcar``
#: (a remainder without a digit, as ``modelcar-catalog``, names no model).
_MODELCAR_AFFIX = re.compile(r"(?i)^(?:modelcar[-_](.+)|(.+?)[-_]modelcar)$")
#: An OCI tag that is a version or a moving label (``0.0.5``, ``v1.2-rc1``, ``latest``): it names no model, the image
#: does (``oci://quay.io/ckavili/phi2-modelcar:0.0.5``, rh-ai-kickstart/dynamic-model-router; corpus16).
_VERSION_TAG = re.compile(r"(?i)^(?:v?\d+(?:[._-]\d+)*(?:[._-]?(?:rc|post|dev|alpha|beta)\d*)?|latest|stable|main)$")


def _guessed_names(model: str) -> list[str]:
    """The names a path may give its model, most specific first: its last component (``/models/Llama-3.1-8B``);
    for an OCI image (KServe's modelcars), the tag that names the model (``oci://quay.io/…/modelcar-catalog:
    llama-3.2-1b-instruct``) and then the image's name (only the image's when the tag is a version); for a
    revision folder (``/models/microsoft/phi-2/main``, a
    40-hex commit as the Hugging Face cache's snapshots), the ``org/name`` above it; for the Hugging Face cache's own
    folders (``gs://bucket/models--Qwen--Qwen3.5-397B-A17B-FP8/snapshots/<commit>``, a cache copied whole), the
    repository they hold."""
    parts = [p for p in model.rstrip("/").split("/") if p]
    tail = parts[-1] if parts else ""
    if not tail or tail in (".", ".."):
        return []
    names = [tail]
    if model.lower().startswith("oci://") and ":" in tail:
        image, _, tag = tail.rpartition(":")
        names = [image] if _VERSION_TAG.match(tag) else [tag, image]
        # the packaging named beside the model: Red Hat's `registry.redhat.io/rhelai1/modelcar-granite-3-1-8b-
        # instruct-quantized-w8a8:1.5`, `phi2-modelcar:0.0.5` (corpus17); tried after the name as written
        names += [bare for n in names if (m := _MODELCAR_AFFIX.match(n))
                  and re.search(r"\d", bare := m.group(1) or m.group(2))]
    elif _revision_dir(tail) and len(parts) >= 3 and parts[-2] == "snapshots" and (hub := _hub_cache_repo(parts[-3])):
        names = [hub]  # the Hugging Face cache's own layout, copied to a bucket or a volume whole
    elif _revision_dir(tail) and len(parts) >= 2:
        names = ([parts[-3] + "/" + parts[-2]] if len(parts) >= 3 else []) + [parts[-2]]
    elif hub := _hub_cache_repo(tail):
        names = [hub]
    return [n for n in names if n]


def _hub_cache_repo(folder: str) -> str | None:
    """``org/name`` of a Hugging Face cache folder, ``models--<org>--<name>`` (huggingface_hub's
    ``repo_folder_name``: the repository id with ``/`` written ``--``; the Hub refuses ``--`` inside a name, so the
    split is unambiguous), or None for any other folder."""
    if not folder.startswith("models--"):
        return None
    parts = folder[len("models--"):].split("--")
    return "/".join(parts) if len(parts) in (1, 2) and all(parts) else None


def _name_guess(model: str) -> Any:
    """The catalog entry a path's name gives (:func:`_guessed_names`), or None."""
    for name in _guessed_names(model):
        try:
            return _find_model(name, None)
        except CatalogError:
            continue
    return None


def resolve_model(group: ServingGroup, base_dir: str | None = None) -> None:
    """Set ``group.model`` (and ``model_assumed`` for a name guess), or ``model_unknown`` / ``model_error``."""
    model = group.engine.model
    loc = group.engine.locations.get("model", group.location)
    if not isinstance(model, str) or not model:
        return
    if UNKNOWN_TOKEN in model or model == PLACEHOLDER_VALUE:
        group.engine.model = UNKNOWN  # a computed value: rules that need the model say they cannot decide
        return
    named = (group.annotations.get(ANN_BASE_MODEL) or "").strip() or None
    try:
        if named is not None:
            _resolve_annotated(group, model, named, base_dir)
        elif is_unresolved(model):
            group.engine.model = UNKNOWN
            group.model_unknown = (
                f"it is {model}, set from a Secret, ConfigMap or the downward API, so shardwise cannot see which "
                f"model it is; name the model with the annotation {ANN_BASE_MODEL} (a catalog id, or the "
                "repository path of its config.json), or lint the ConfigMap that sets it with the workload"
            )
        else:
            _resolve_named(group, model, base_dir)
    except CatalogError as err:  # a config.json that cannot be read: an input error with its file and line
        where = f"{err.file}:{err.line}: " if err.file and err.line else (f"{err.file}: " if err.file else "")
        group.model_error = f"{loc}: {where}{err.message}"
    _not_sized(group, model)
    if group.model is not None and any(k == "rope_scaling" or k.startswith("hf_overrides") for k in group.engine.extra):
        # --hf-overrides (and the --rope-scaling of releases before 0.11.1) change the context limit vLLM derives;
        # the config reader is imported only then (start-up time)
        from .hfconfig import hf_overrides_of, with_hf_overrides

        group.model = with_hf_overrides(group.model, hf_overrides_of(group.engine.extra))


def _not_sized(group: ServingGroup, model: str) -> None:
    """A family shardwise recognises but does not size (:mod:`.unsized`: DeepSeek-V4, MiniMax-M3, MiMo-V2, Step-3.5 /
    3.7), found by its config.json or,
    where nothing was found, by its name: undecided with the reason, never sized as what a name or a config's
    shapes would suggest."""
    shape = group.model
    if shape is not None and unsized.is_dsv4_config(shape.hf_config):
        named = (group.annotations.get(ANN_BASE_MODEL) or "").strip()
        group.model, group.model_assumed = None, None
        group.model_unknown = unsized.reason(model if unsized.is_dsv4_name(model) or not named else named,
                                             by_config=True)
    elif shape is not None and unsized.family_of_config(shape.hf_config) is not None:
        named = (group.annotations.get(ANN_BASE_MODEL) or "").strip()
        group.model, group.model_assumed = None, None
        group.model_unknown = unsized.family_reason(model if unsized.family_of_name(model) or not named else named,
                                                    shape.hf_config)
    elif shape is None and group.model_unknown and not group.model_error:
        named = (group.annotations.get(ANN_BASE_MODEL) or "").strip()
        for name in (named, model):
            if name and unsized.is_dsv4_name(name):
                group.model_unknown = unsized.reason(name)
                break
            if name and unsized.family_of_name(name) is not None:
                group.model_unknown = unsized.family_reason(name)
                break


def _resolve_annotated(group: ServingGroup, model: str, named: str, base_dir: str | None) -> None:
    config = _annotation_config(named, base_dir)
    shown = model if not is_unresolved(model) else named
    if config is not None:
        if not os.path.lexists(config):
            group.model_unknown = f"the annotation {ANN_BASE_MODEL} names {named!r}, and there is no such file"
            return
        if not _readable_here(config, base_dir):
            real = os.path.realpath(config)
            which = f", which is {real}," if real != named else ""
            raise CatalogError(
                f"the annotation {ANN_BASE_MODEL} names {named!r}{which} outside the repository and the manifest's "
                "directory: not read; put the config.json in the repository or in a models directory (config key "
                "model_dirs)")
        group.model = _load_config(config, shown, f"annotation {ANN_BASE_MODEL}")
        return
    try:
        group.model = _find_model(shown if not is_unresolved(model) else named, named)
    except CatalogError as err:
        group.model_unknown = f"the annotation {ANN_BASE_MODEL} names {_not_in_catalog(named, err)}"


def _resolve_named(group: ServingGroup, model: str, base_dir: str | None) -> None:
    local = _local_model_path(model, base_dir) if _looks_like_path(model) and not _is_remote(model) else None
    if local is not None:
        group.model = _load_config(local, os.path.basename(os.path.abspath(local).rstrip("/")) or model, "local path")
        return
    if not _looks_like_path(model):
        exact = find_model_exact(model)
        if exact is not None:
            group.model = exact
            return
        taught = _taught(model)  # a team's fine-tune wins over a catalog model of the same name
        if taught is not None:
            group.model = _load_config(taught[0], model, taught[1])
            return
        try:
            group.model = _find_model(model, None)  # a quantised re-upload of a catalog model
        except CatalogError as err:
            group.model_unknown = _not_in_catalog(model, err)
        return
    guess = _name_guess(model)
    if guess is not None:
        group.model = guess
        group.model_assumed = guess.base_model or guess.id
        return
    names = _guessed_names(model) or [model.rstrip("/").rsplit("/", 1)[-1]]
    group.model_unknown = (
        f"{model!r} is a path whose config.json shardwise cannot read here, and its name {names[0]!r} matches no "
        f"catalog model; name the model with the annotation {ANN_BASE_MODEL} (a catalog id, or the repository "
        "path of its config.json) or put its config.json in a models directory (--model-dir)"
    )


def model_input_errors(groups: Iterable[ServingGroup]) -> list[InputError]:
    """The input errors of groups whose model's ``config.json`` could not be read (file and line)."""
    out = []
    for g in groups:
        if g.model_error:
            loc = g.engine.locations.get("model", g.location)
            prefix = f"{loc}: "
            message = g.model_error[len(prefix):] if g.model_error.startswith(prefix) else g.model_error
            out.append(InputError(message, loc.file, loc.line))
    return out


def fetch_configs(model_ids: Iterable[str], cache: str | None = None, token: str | None = None) -> dict[str, str]:
    """Download the ``config.json`` (and safetensors index) of each repository id into the HF cache.

    Returns id -> what happened ("downloaded", or why not). Needs ``huggingface_hub`` (``pip install
    huggingface_hub``) and network access; a gated repository needs a token (``HF_TOKEN``).
    """
    try:
        from huggingface_hub import hf_hub_download  # deferred: not a dependency of the linter
    except ImportError:
        raise CatalogError("--fetch-configs needs huggingface_hub: pip install huggingface_hub") from None
    results: dict[str, str] = {}
    for model_id in dict.fromkeys(model_ids):
        if _repo_id(model_id) is None:
            results[model_id] = "not a Hugging Face repository id"
            continue
        try:
            hf_hub_download(model_id, "config.json", cache_dir=cache or _SOURCES.hf_cache, token=token)
        except Exception as exc:  # noqa: BLE001 - report every failure (gated, missing, offline) and go on
            results[model_id] = f"not downloaded: {type(exc).__name__}: {exc}".splitlines()[0]
            continue
        try:
            hf_hub_download(model_id, "model.safetensors.index.json", cache_dir=cache or _SOURCES.hf_cache,
                            token=token)
        except Exception:  # noqa: BLE001,S110 - single-file checkpoints have no index
            pass
        results[model_id] = "downloaded"
    return results


def fetch_unknown(groups: list[ServingGroup]) -> dict[str, str]:
    """``--fetch-configs``: download the configs of the groups' unknown models, then resolve them again."""
    wanted = unknown_repo_ids(groups)
    if not wanted:
        return {}
    try:
        results = fetch_configs(wanted)
    except CatalogError as err:
        return {model_id: err.message for model_id in wanted}
    for g in groups:
        if g.model is None and g.model_unknown and results.get(str(g.engine.model)) == "downloaded":
            g.model_unknown = None
            resolve_model(g, os.path.dirname(g.location.file) if g.location.file else None)
    return results


def unknown_repo_ids(groups: Iterable[ServingGroup]) -> list[str]:
    """Repository ids of groups whose model is unknown (what ``--fetch-configs`` should download)."""
    out = []
    for g in groups:
        if g.model is None and g.model_unknown and isinstance(g.engine.model, str) and _repo_id(g.engine.model):
            out.append(g.engine.model)
    return list(dict.fromkeys(out))

"""The floor under the specific adapters: vLLM found wherever an object of any kind holds a pod spec.

Serving operators nest the pod they run at any depth and under any name: ``spec.template.spec``,
``roles[].entryTemplate.spec`` (kthena), ``engineConfig.runner`` (OME, one container instead of a list),
``leader``/``worker``, ``podSpec``, ``extraPodSpec``… :func:`add_generic` walks an object that no
specific adapter reads and takes as a pod spec

- every mapping holding a ``containers`` list of mappings, and
- every mapping holding, under any key, one container mapping (``image`` and ``command`` or ``args``):
  that mapping is the pod spec, the container its only container;

and reads each through :func:`.pods.read_pod` like a Deployment's template (image, command, args, a
``sh -c`` script that calls ``vllm serve``). What the object says about the pod is read where it can be:
its template ``metadata`` (the mapping beside the pod spec's ``spec`` key), the replicas (the product of
the ``replicas`` — else ``minReplicas`` — written on the way from ``spec`` down to the pod; not known
when none is written, since the operator decides), and placement and the GPU request from the object's
other pod specs (a leader's workers). A pod spec beside other pods that could belong to the same engine
(more pod specs that request accelerators or run a vLLM image) spans an unknown number of pods.

:func:`vllm_mentions` is the other half of "never silent": what in an object that gave no workload says
it runs vLLM (an image, a command, ``pip install vllm``, a parallel-size flag), for SW005.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from ...model import UNKNOWN, Inventory, Location
from ...vllm.args import fronts_a_server, is_vllm_image
from ...vllm.envs import ENGINE_ENV
from ..yamlsrc import LineDict
from .fields import api_group, as_list, as_map
from .ome import merge
from .parse import Lines
from .pods import read_pod
from .serving import with_containers
from .workloads import fill_placement, left_to_operator, make_group, note_launch

#: Serving runtimes: pod templates that the services naming them fill in (ServingGroup.template).
TEMPLATE_KINDS = frozenset({"ServingRuntime", "ClusterServingRuntime"})
#: The API groups whose runtimes those are (KServe, OME).
TEMPLATE_GROUPS = frozenset({"serving.kserve.io", "ome.io"})
#: Keys that never hold the pod an object runs (its own metadata, its observed state).
_NOT_POD = frozenset({"metadata", "status", "annotations", "labels", "selector", "nodeSelector", "affinity",
                      "tolerations", "volumes", "env", "envFrom", "resources", "securityContext"})
#: Path words too generic to name a role in a group's name.
_PLAIN = frozenset({"spec", "template", "podSpec", "pod", "podTemplate", "items", "containers", "roles",
                    "engineConfig", "config", "deployment"})


class FoundPod:
    """A pod spec found in an object: the spec (a container found alone is wrapped in one), its template
    metadata, the path to it and the mappings on the way (for replicas)."""

    __slots__ = ("spec", "meta", "path", "ancestors", "label")

    def __init__(self, spec: Mapping[str, Any], meta: Any, path: str, ancestors: list[Mapping[str, Any]],
                 label: list[str]) -> None:
        self.spec, self.meta, self.path, self.ancestors, self.label = spec, meta, path, ancestors, label


def _is_container(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("image"), str)
            and ("command" in value or "args" in value))


def find_pods(obj: Mapping[str, Any]) -> list[FoundPod]:
    """Every pod spec in ``obj`` (outside its metadata and status), in the order written."""
    out: list[FoundPod] = []
    _walk(obj.get("spec"), "spec", None, [], [], out, 0)
    for key, value in obj.items():  # some operators (Kaito) keep their fields beside spec
        if key not in ("spec", "apiVersion", "kind") and key not in _NOT_POD and isinstance(value, dict | list):
            _walk(value, key, None, [], [key], out, 0)
    return out


def _walk(node: Any, path: str, parent: Any, ancestors: list[Mapping[str, Any]], label: list[str],
          out: list[FoundPod], depth: int) -> None:
    if depth > 12:
        return
    if isinstance(node, list):
        for i, item in enumerate(node):
            name = as_map(item).get("name")
            _walk(item, f"{path}[{i}]", None, ancestors, [*label, str(name)] if isinstance(name, str) else label,
                  out, depth + 1)
        return
    if not isinstance(node, dict):
        return
    meta = as_map(parent).get("metadata") if path.endswith("spec") else None
    containers = node.get("containers")
    alone = [k for k, v in node.items() if k not in ("containers", "initContainers") and _is_container(v)]
    skip: set[str] = set()
    if isinstance(containers, list) and any(isinstance(c, dict) for c in containers):
        out.append(FoundPod(node, meta, path, ancestors, label))
        skip = {"containers", "initContainers"}
    elif alone:
        key = alone[0]
        c = node[key]
        if not c.get("name") and isinstance(c, LineDict):
            c = LineDict({**c, "name": key})
            c.line, c.key_lines = node[key].line, node[key].key_lines
        spec = with_containers(node, [c])
        out.append(FoundPod(spec, meta, f"{path}.{key}", ancestors, label))
        skip = {key}
    below = [*ancestors, node]
    for key, value in node.items():
        if key in skip or key in _NOT_POD or not isinstance(value, dict | list):
            continue
        _walk(value, f"{path}.{key}", node, below, label if key in _PLAIN else [*label, key], out, depth + 1)


def _fill_patches(found: list[FoundPod]) -> set[int]:
    """Operators build a pod from a template and patches of it (RoleBasedGroup's ``templateRef`` + ``patch``, a
    leader patch over a shared template): a container without an image in one pod spec is a patch of the
    container of the same name that has one in another pod spec of the object, merged onto it as a strategic
    merge patch. Returns the indices of the pod specs patched that way: bases, not pods of their own."""
    named: dict[str, tuple[Mapping[str, Any], int]] = {}
    for i, f in enumerate(found):
        for c in as_list(f.spec.get("containers")):
            if isinstance(c, dict) and isinstance(c.get("image"), str) and isinstance(c.get("name"), str):
                named.setdefault(c["name"], (c, i))
    bases: set[int] = set()
    for j, f in enumerate(found):
        containers = as_list(f.spec.get("containers"))
        merged = []
        for c in containers:
            base = named.get(str(c.get("name"))) if isinstance(c, dict) and "image" not in c else None
            if base is not None and base[1] != j:
                c = merge(base[0], c)
                bases.add(base[1])
            merged.append(c)
        if merged != containers:
            f.spec = with_containers(f.spec, merged)
    return bases


def _replicas(found: FoundPod) -> Any:
    """The product of the ``replicas`` written on the way to the pod (``minReplicas`` where a level has
    none); UNKNOWN when none is written or one is not a whole number."""
    product, seen = 1, False
    for holder in found.ancestors:
        value = holder.get("replicas", holder.get("minReplicas"))
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return UNKNOWN
        product, seen = product * value, True
    return product if seen else UNKNOWN


def _replicas_beside(kind: str, found: FoundPod) -> str | None:
    """Why the replicas of a pod spec are not known where the object writes ``replicas`` (or ``minReplicas``) in the
    mapping that holds its containers, not on the way down to it (readers16): the object's schema says what that
    number counts (this engine's pods, a group's, every role's), and it is not read here, so it is not guessed.
    None when nothing is written there."""
    for key in ("replicas", "minReplicas"):
        if key in found.spec:
            value = found.spec[key]
            at = found.path.rsplit(".", 1)[0] if found.path.endswith(tuple(f".{k}" for k in found.spec)) else found.path
            return (f"`{at}.{key}: {value}` is written beside the pod's containers, but {kind}'s schema is not read "
                    "here, so which pods it counts is not known: lint the pods its operator creates")
    return None


def _may_be_engine_pod(found: FoundPod) -> bool:
    """A pod spec that could be a worker of a multi-pod engine: it runs a vLLM image or asks for accelerators."""
    for c in as_list(found.spec.get("containers")):
        c = as_map(c)
        if isinstance(c.get("image"), str) and is_vllm_image(c["image"]):
            return True
        res = as_map(c.get("resources"))
        if any("/" in str(k) and not str(k).startswith(("hugepages-", "ephemeral")) for part in ("limits", "requests")
               for k in as_map(res.get(part))):
            return True
    return False


def add_generic(kind: str, obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    """A serving group for each pod spec of ``obj`` whose container runs vLLM; True when one was added or a
    vLLM-looking pod was recorded as not read (SW002)."""
    found = find_pods(obj)
    if not found:
        return False
    bases = _fill_patches(found)
    file = loc.file
    file_lines = lines.get(file) if lines is not None and file is not None else None
    pods = [(f, read_pod(f.meta, f.spec, file, file_lines, {}, where=loc, path=f.path)) for f in found]
    serving = [(f, p) for f, p in pods if p.engine is not None]
    name = str(as_map(obj.get("metadata")).get("name") or as_map(obj.get("metadata")).get("generateName")
               or "unnamed")
    if not serving:
        unread = next(((f, p) for f, p in pods if p.unread is not None), None)
        if unread is None:
            return False
        note_launch(inv, kind, obj, loc, unread[1], None, _name(name, unread[0], len(pods)))
        return True
    others = [(f, p) for i, (f, p) in enumerate(pods) if p.engine is None and i not in bases]
    for f, pod in serving:
        for _, other in others:
            fill_placement(pod, other)
        where = Location(file, f.spec.line if isinstance(f.spec, LineDict) and f.spec.line else loc.line)
        group_name = _name(name, f, len(serving))
        template = kind in TEMPLATE_KINDS and api_group(obj) in TEMPLATE_GROUPS
        group = make_group(kind, obj, where, pod, _replicas(f), file, name=group_name, template=template,
                           model_left_to=left_to_operator(kind, obj))
        if group.replicas is UNKNOWN:
            group.replicas_why = _replicas_beside(kind, f)
        group.unknown_operator = True
        group.template = template
        if any(_may_be_engine_pod(o) for o, _ in others):
            group.pods_per_group = UNKNOWN  # workers of the same engine, in a number the operator decides
        inv.groups.append(group)
        note_launch(inv, kind, obj, where, pod, group, group_name)
        for more in pod.more:
            g = make_group(kind, obj, where, more, group.replicas, file,
                           name=f"{group_name}:{more.vllm.name if more.vllm else 'container'}", template=template,
                           model_left_to=left_to_operator(kind, obj))
            g.containers = [more.vllm] if more.vllm else []
            g.unknown_operator = True
            g.template = group.template
            group.containers = [c for c in group.containers if c is not more.vllm]
            inv.groups.append(g)
    return True


def _name(name: str, found: FoundPod, count: int) -> str:
    label = [w for w in found.label if w not in _PLAIN]
    return "/".join([name, *label]) if count > 1 and label else name


# --- never silent ---------------------------------------------------------------------------------------

_LAUNCH = re.compile(r"\bvllm\s+serve\b|\bvllm\.entrypoints\b|\bpip3?\s+install\b[^\n;&|]*\bvllm\b"
                     r"|--tensor[-_]parallel[-_]size\b|--pipeline[-_]parallel[-_]size\b|-m\s+vllm\b")
#: vLLM in a package list written as text (Ray's ``runtimeEnvYAML``: ``pip: [vllm==0.10.1]``, ``- vllm``).
_PIP_LIST = re.compile(r"^[ \t]*(?:pip:[ \t]*\[[^\]\n]*?|-[ \t]*)['\"]?(vllm(?:[=<>~!]=?[^\s,'\"\]]*)?)"
                       r"['\"]?[ \t]*(?:[,\]]|$)", re.MULTILINE)
#: A container runtime's ``run`` written in a script a string holds (cloud-init userData of a virtual machine, a
#: Crossplane composite's or a KubeVirt VM's start-up script): ``docker run``, ``podman run``, ``nerdctl run``, with its
#: words up to the command's end (a backslash at a line's end continues it).
_CONTAINER_RUN = re.compile(r"\b(docker|podman|nerdctl)[ \t]+(?:container[ \t]+)?run\b((?:\\\n|[^\n;&|])*)")
#: A package list (Ray's runtime_env ``pip``) that installs vLLM.
_VLLM_REQUIREMENT = re.compile(r"^vllm(?:[=<>~!\[\s]|$)")


def _fronts(container: Any, image: str) -> bool:
    """Whether ``container`` (a container's fields, where its image is named) is a proxy, router or gateway in front
    of a vLLM server (:func:`~shardwise.rules.vllm.args.fronts_a_server`): its image does not say it runs vLLM."""
    if not isinstance(container, Mapping) or "image" not in container:
        return False
    res = as_map(container.get("resources"))
    accelerators = any("/" in str(k) and not str(k).startswith(("hugepages-", "ephemeral"))
                       for part in ("limits", "requests") for k in as_map(res.get(part)))
    words = [w for key in ("command", "args") for w in as_list(container.get(key)) if isinstance(w, str)]
    env = {str(e.get("name")): e.get("value") for e in as_list(container.get("env")) if isinstance(e, Mapping)}
    return fronts_a_server(image, 1 if accelerators else None, words, env)


#: The words of a mention that is a container runtime's run of a vLLM image (:func:`container_run_image`).
RUN_OF_IMAGE = " run` of the vLLM image "


def container_run_image(text: str) -> tuple[str, str] | None:
    """(the runtime, the image) of the first ``docker run`` (or podman's, nerdctl's) in ``text`` whose words name a
    vLLM image (``docker run -d --gpus all -p 8000:8000 vllm/vllm-openai:latest --model ...``), else None. Paths, a
    flag's ``=`` value and expansions are never the image (``-v /models/vllm:/models``)."""
    if "run" not in text:
        return None
    for m in _CONTAINER_RUN.finditer(text):
        for word in m.group(2).replace("\\\n", " ").split():
            word = word.strip("'\"")
            if word.startswith(("-", "/", ".", "$", "~")) or "=" in word:
                continue
            if is_vllm_image(word):
                return m.group(1), word
    return None


def vllm_mentions(obj: Any) -> tuple[str, Location | None] | None:
    """The first thing in ``obj`` that says it runs vLLM, as words for a message and its line: a vLLM
    image, a vLLM launch or install in a command or script, a parallel-size flag, an environment variable only
    the vLLM engine reads (:data:`~shardwise.rules.vllm.envs.ENGINE_ENV`); None when nothing does."""
    for key, value, holder in _strings(obj):
        if key.lower().endswith("image") and is_vllm_image(value) and not _fronts(holder, value):
            return f"the vLLM image {value}", _at(holder, key)
        m = _LAUNCH.search(value)
        if m is not None:
            return f"`{' '.join(m.group(0).split())}`", _at(holder, key)
        run = container_run_image(value)
        if run is not None:
            return f"`{run[0]}{RUN_OF_IMAGE}{run[1]}", _at(holder, key)
        if value.strip() == "vllm" and key in ("command", "args"):
            return "the command `vllm`", _at(holder, key)
        if key == "name" and value in ENGINE_ENV and isinstance(holder, dict) and (
                "value" in holder or "valueFrom" in holder):
            return f"vLLM's environment variable {value}", _at(holder, key)
        if key == "pip" and _VLLM_REQUIREMENT.match(value.strip()):
            return f"the package requirement `{value.strip()}`", _at(holder, key)
        m = _PIP_LIST.search(value) if "pip" in value else None  # a list item `- vllm` only in a package list
        if m is not None:
            return f"the package requirement `{m.group(1)}`", _at(holder, key)
    return None


#: A container image written in an embedded YAML text (a pod patch in an annotation): ``image: x``, ``- image: x``.
_TEXT_IMAGE = re.compile(r"^[ \t]*-?[ \t]*image:[ \t]*['\"]?([^\s'\"#]+)", re.MULTILINE)


def annotation_mentions(obj: Any) -> tuple[str, Location | None, str] | None:
    """(what, its line, the annotation) when an annotation of ``obj`` (its own or a pod template's) holds a
    container text that runs vLLM: a pod patch a controller applies to build the server's pod (llm-d's dual-pods
    controller reads ``dual-pod.llm-d.ai/server-patch``). Only texts that write an ``image:`` or a vLLM launch count:
    annotations that name vLLM's metrics or routes (``vllm:num_requests_waiting``) are no container. At any depth,
    in document order (as :func:`_strings`)."""
    stack: list[tuple[bool, Any]] = [(False, obj)]  # (an annotations mapping, the node)
    while stack:
        annotations, node = stack.pop()
        if annotations:
            for key, text in node.items():
                if not isinstance(text, str) or "\n" not in text:
                    continue
                for m in _TEXT_IMAGE.finditer(text):
                    if is_vllm_image(m.group(1)):
                        return f"the vLLM image {m.group(1)}", _at(node, str(key)), str(key)
                launch = _LAUNCH.search(text)
                if launch is not None and "containers:" in text:
                    return f"`{' '.join(launch.group(0).split())}`", _at(node, str(key)), str(key)
        elif isinstance(node, dict):
            stack.extend((k == "annotations" and isinstance(v, dict), v) for k, v in reversed(node.items())
                         if k != "status")
        elif isinstance(node, list):
            stack.extend((False, v) for v in reversed(node))
    return None


def _at(holder: Any, key: str) -> Location | None:
    if isinstance(holder, LineDict):
        return Location(None, holder.key_lines.get(key, holder.line))
    return None


def _strings(node: Any) -> Iterator[tuple[str, str, Any]]:
    """(key, string, the mapping that holds it) for every string under ``node``, in document order and at any depth
    (a list's strings take the key of the list). The reader bounds nesting and refuses a recursive alias; a bound of
    40 levels here passed a vLLM container nested 100 levels deep without a word (fuzz18: seed 7301 case 1144)."""
    stack: list[tuple[Any, str, Any]] = [(node, "", None)]
    while stack:
        item, key, holder = stack.pop()
        if isinstance(item, str):
            yield key, item, holder
        elif isinstance(item, dict):
            stack.extend((v, str(k), item) for k, v in reversed(item.items()) if k != "status")
        elif isinstance(item, list):
            stack.extend((v, key, holder) for v in reversed(item))

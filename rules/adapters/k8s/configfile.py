"""vLLM's ``--config FILE`` read from the ConfigMap that the container mounts at that path, when the ConfigMap
is in the same input (DESIGN: rules resolve ConfigMap values that are in the input).

``vllm serve --config /etc/vllm/config.yaml`` reads every setting the command line does not give from that YAML
file (vLLM's FlexibleArgumentParser: the file's keys are the flags' names, the command line wins). A homelab
Deployment mounts the file from a ConfigMap (``volumes: [{name: c, configMap: {name: vllm-config}}]``,
``volumeMounts: [{name: c, mountPath: /etc/vllm/config.yaml, subPath: config.yaml}]``); its settings are then
known. A file that is not mounted from a ConfigMap of the input, or a ConfigMap whose name is ambiguous,
stays unread: the settings stay unknown (vllm/args.py ``_undecide_config_file``).

A pod reads only ConfigMaps of its own namespace (kubelet looks ``configMap.name`` and ``configMapKeyRef.name`` up
in the pod's namespace): a ConfigMap of that name in another namespace of the inputs is not the pod's. A namespace
left unset is ``default``, on either side, as everywhere in this project.

A ConfigMap kept in another file of the inputs (a kustomization's ``configmap.yaml`` beside its
``deployment.yaml``) is joined once every input is read: a pod that looked up a ConfigMap its own input does not
hold records the names it missed (:func:`pods_of`), and :mod:`.configjoin` reads it again with every ConfigMap
of the inputs known (:func:`joined_config_maps`). Two ConfigMaps of one name in one namespace stay ambiguous there
too: the value stays unknown.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from ...model.errors import InputError
from ...vllm.args import shell_call, split_script
from ..yamlsrc import DuplicateKey, load_documents
from .fields import as_map

#: (namespace, ConfigMap name) -> the ``data`` of each ConfigMap of that namespace and name in the input being read.
_CONFIG_MAPS: ContextVar[dict[tuple[str, str], list[Mapping[str, Any]]] | None] = ContextVar("vllm_config_maps",
                                                                                            default=None)
#: The namespace of the object whose pods are being read (its ``metadata.namespace``, ``default`` when unset).
_NAMESPACE: ContextVar[str] = ContextVar("vllm_config_namespace", default="default")
#: The names of the ConfigMaps the object being read looked up and its input does not hold (:func:`pods_of`).
_MISSED: ContextVar[set[str] | None] = ContextVar("vllm_config_missed", default=None)
#: Every ConfigMap of all the inputs, while a pod that missed one is read again (:func:`joined_config_maps`).
_JOINED: ContextVar[dict[tuple[str, str], list[Mapping[str, Any]]] | None] = ContextVar("vllm_config_joined",
                                                                                         default=None)


def namespace_of(obj: Mapping[str, Any]) -> str:
    """An object's namespace as the API server sets it when the manifest names none: ``default``."""
    return str(as_map(obj.get("metadata")).get("namespace") or "default")


class _ConfigMapsOf:
    """:func:`config_maps_of`'s context: a class, not a ``@contextmanager`` generator (entered once for every file read
    and :class:`_PodsOf` once for every object: a generator, its context manager and its ``StopIteration`` at the exit
    each time; ``timeit`` on a loaded machine, generator then class: this one 6.5 → 3.0 us, pods_of's 7.9 → 5.5 us)."""

    __slots__ = ("objs", "token")

    def __init__(self, objs: Iterable[tuple[Mapping[str, Any], Any]]) -> None:
        self.objs = objs

    def __enter__(self) -> None:
        joined = _JOINED.get()
        found: dict[tuple[str, str], list[Mapping[str, Any]]] = {} if joined is None else joined
        for obj, _ in self.objs if joined is None else ():
            if obj.get("kind") == "ConfigMap" and str(obj.get("apiVersion", "")) == "v1":
                name = as_map(obj.get("metadata")).get("name")
                if isinstance(name, str):
                    held = found.setdefault((namespace_of(obj), name), [])
                    data = as_map(obj.get("data"))
                    if data not in held:  # two copies with the same data are one value, as in the join (configjoin.py)
                        held.append(data)
        self.token = _CONFIG_MAPS.set(found)

    def __exit__(self, *exc: object) -> None:
        _CONFIG_MAPS.reset(self.token)


def config_maps_of(objs: Iterable[tuple[Mapping[str, Any], Any]]) -> _ConfigMapsOf:
    """Make the input's ConfigMaps known to :func:`mounted_config` while the input is read (every input's, while
    :func:`joined_config_maps` holds them)."""
    return _ConfigMapsOf(objs)


class _PodsOf:
    """:func:`pods_of`'s context (a class: see :class:`_ConfigMapsOf`)."""

    __slots__ = ("obj", "missed", "token", "token_missed")

    def __init__(self, obj: Mapping[str, Any]) -> None:
        self.obj = obj

    def __enter__(self) -> set[str]:
        self.missed: set[str] = set()
        self.token = _NAMESPACE.set(namespace_of(self.obj))
        self.token_missed = _MISSED.set(self.missed)
        return self.missed

    def __exit__(self, *exc: object) -> None:
        _MISSED.reset(self.token_missed)
        _NAMESPACE.reset(self.token)


def pods_of(obj: Mapping[str, Any]) -> _PodsOf:
    """While ``obj`` is read, its pods look ConfigMaps up in its namespace only; what it yields ends up holding
    the names of the ConfigMaps they looked up and the input does not hold (to be joined from other inputs)."""
    return _PodsOf(obj)


@contextmanager
def joined_config_maps(maps: dict[tuple[str, str], list[Mapping[str, Any]]]) -> Iterator[None]:
    """While objects are read again, their pods look ConfigMaps up in ``maps`` ((namespace, name) -> the ``data``
    of each ConfigMap of that namespace and name in all the inputs) rather than in their own input only."""
    token = _JOINED.set(maps)
    try:
        yield
    finally:
        _JOINED.reset(token)


def _datas(name: str, namespace: str | None = None) -> list[Mapping[str, Any]]:
    """The ``data`` of each ConfigMap called ``name`` in the namespace of the pod being read (or ``namespace``); a
    name the input does not hold is noted for the join (:func:`pods_of`), and so is one it holds twice with
    different data (the join names both files in what decides the values read from it)."""
    datas = (_CONFIG_MAPS.get() or {}).get((namespace or _NAMESPACE.get(), name), [])
    if len(datas) != 1:  # none, or two with different data
        missed = _MISSED.get()
        if missed is not None:
            missed.add(name)
    return datas


def mounted_config(path: str, container: Mapping[str, Any], spec: Mapping[str, Any]) -> str | None:
    """The text of the file at ``path`` in the container when it comes from a ConfigMap of the input."""
    listed = spec.get("volumes")
    mounts = container.get("volumeMounts")
    if not isinstance(listed, list) or not isinstance(mounts, list):
        return None  # not a list: the pod's reader says so (an input error), nothing is mounted from it here
    volumes = {v["name"]: v for v in listed  # a name that is no string names no mount
               if isinstance(v, Mapping) and isinstance(v.get("name"), str)}
    for m in mounts:
        if not isinstance(m, Mapping):
            continue
        volume = m.get("name")
        if not isinstance(volume, str):  # a list or a mapping names no volume (it was a TypeError: fuzz22)
            continue
        source = as_map(as_map(volumes.get(volume)).get("configMap"))
        name = source.get("name")
        mount = str(m.get("mountPath") or "").rstrip("/")
        if not isinstance(name, str) or not mount:
            continue
        sub = m.get("subPath")
        if isinstance(sub, str) and sub:
            if path != mount:
                continue
            rel = sub
        elif path.startswith(mount + "/"):
            rel = path[len(mount) + 1:]
        else:
            continue
        items = [i for i in source.get("items") or [] if isinstance(i, Mapping)]
        key = next((str(i.get("key")) for i in items if i.get("path") == rel), None) if items else rel
        datas = _datas(name)
        if key is None or len(datas) != 1:
            return None  # not projected there, not in the pod's namespace of the input, or ambiguous: unread
        text = datas[0].get(key)
        return text if isinstance(text, str) else None
    return None


#: Shells whose ``SHELL FILE`` runs a script file (POSIX sh and the shells that read it), as vllm/args.py knows them.
_SCRIPT_SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh", "ksh"})


def _script_call(words: Sequence[str], cwd: str | None) -> tuple[str, list[str]] | None:
    """(the absolute path of the script file, its operands) that one simple command runs: ``bash FILE ARG...`` (a
    shell's options before the file), ``source FILE`` / ``. FILE``, or ``FILE ARG...`` written as a path
    (``/scripts/start.sh``, ``./prefill.sh``); ``exec`` before any of them. A relative path is the working
    directory's (``cd DIR`` before it, else the container's ``workingDir``); where that is not known (the image's
    WORKDIR), or the path holds a variable, None."""
    if words and words[0] == "exec":
        words = words[1:]
    if not words:
        return None
    head = words[0]
    at = 0
    if head.rsplit("/", 1)[-1] in _SCRIPT_SHELLS:
        at = 1
        while at < len(words) and words[at].startswith(("-", "+")) and words[at] != "--":
            if "c" in words[at][1:] and not words[at].startswith("--"):
                return None  # `bash -c SCRIPT`: an inline script, not a file
            at += 2 if words[at] in ("-o", "+o") else 1  # `bash -o pipefail FILE`
        if at < len(words) and words[at] == "--":
            at += 1
        if at >= len(words):
            return None
    elif head in ("source", "."):
        at = 1
        if len(words) < 2:
            return None
    elif "/" not in head:
        return None  # a program looked up in PATH, not a file of a mounted folder
    path = words[at]
    if "$" in path or "`" in path or not path:
        return None
    if not path.startswith("/"):
        if cwd is None:
            return None
        path = f"{cwd.rstrip('/')}/{path}"
    return posixpath.normpath(path), list(words[at + 1:])


def mounted_script(argv: Sequence[str], container: Mapping[str, Any],
                   spec: Mapping[str, Any]) -> tuple[str, list[str]] | None:
    """(the text, then its ``$0`` and operands) of the shell script that a container runs from a file mounted from a
    ConfigMap of the input (DESIGN: rules resolve ConfigMap values that are in the input): ``command: [/bin/bash,
    /scripts/start.sh]``, or ``bash -c "cd /workspace && ./prefill.sh"`` with ``prefill.sh`` mounted there by
    ``subPath`` or a mounted folder. The script is what runs, as the container's own ``sh -c`` script would be; a
    file whose ``#!`` line names no shell (a Python program), one not mounted from a ConfigMap of the pod's
    namespace in the inputs, or a command that is not so plain, is None: unread, as before."""
    if not container.get("volumeMounts") or not argv:  # cheap exit: most containers mount no script
        return None
    if not isinstance(spec.get("volumes"), list):  # none, or not a list (the pod's reader says so, as an input error)
        return None
    workdir = container.get("workingDir")
    cwd = posixpath.normpath(workdir) if isinstance(workdir, str) and workdir.startswith("/") else None
    call = shell_call(argv)
    commands = [list(argv)] if call is None else split_script(call[0])
    first_found: tuple[str, list[str]] | None = None
    for words in commands:
        if len(words) == 2 and words[0] == "cd":  # `cd /workspace && ./prefill.sh`
            cwd = _directory(words[1], cwd)
            continue
        found = _script_call(words, cwd)
        text = mounted_config(found[0], container, spec) if found is not None else None
        if found is None or text is None:
            continue  # no file, or one shardwise cannot read (the image's own script): on to the next command
        interpreter = text.lstrip().split("\n", 1)[0]
        if interpreter.startswith("#!") and not {w.rsplit("/", 1)[-1] for w in interpreter[2:].split()} \
                & _SCRIPT_SHELLS:
            continue  # `#!/usr/bin/env python3`: no shell script
        script = (text, [found[0], *found[1]])
        if "vllm" in text:
            return script
        first_found = first_found or script
    return first_found


def _directory(target: str, cwd: str | None) -> str | None:
    """The working directory after ``cd TARGET`` from ``cwd`` (None: not known)."""
    if "$" in target or "`" in target or target.startswith("~") or target == "-":
        return None
    if target.startswith("/"):
        return posixpath.normpath(target)
    return posixpath.normpath(f"{cwd}/{target}") if cwd is not None else None


def config_map_data(name: str, namespace: str | None = None) -> Mapping[str, Any] | None:
    """The ``data`` of ConfigMap ``name`` of the pod's namespace (or ``namespace``) in the input being read (every
    input's while :func:`joined_config_maps` holds them); None when the input holds none of that name, or two with
    different data (noted for the join, as for :func:`config_map_key`)."""
    datas = _datas(name, namespace)
    return datas[0] if len(datas) == 1 else None


def config_map_unread(name: str, namespace: str | None = None) -> str:
    """Why :func:`config_map_data` reads no data of ConfigMap ``name`` (mend25): ``not in the inputs`` where no input
    holds it, else that the inputs hold it more than once with different data (which one the cluster holds is not
    known), never said to be absent then."""
    n = len((_CONFIG_MAPS.get() or {}).get((namespace or _NAMESPACE.get(), name), []))
    if n < 2:
        return "not in the inputs"
    times = "twice" if n == 2 else f"{n} times"
    return f"in the inputs {times} with different data, of which the cluster holds one"


def config_map_key(name: str, key: str) -> str | None:
    """The value of ``key`` in ConfigMap ``name`` of the pod's namespace in the input being read, for an env
    variable set by ``valueFrom.configMapKeyRef``: kubelet resolves it before it expands ``$(VAR)`` in the
    command, the args and later env values. None when no ConfigMap of that name is in the pod's namespace of the
    input, when more than one is (ambiguous, as for :func:`mounted_config`), or when it has no such string key:
    the variable stays unknown."""
    datas = _datas(name)
    if len(datas) != 1:
        return None
    value = datas[0].get(key)
    return value if isinstance(value, str) else None


def env_from_values(env_from: Any, shown_only: bool = False) -> dict[str, str] | None:
    """The variables a container's ``envFrom`` sets, when every source is a ConfigMap of the pod's namespace in
    the input being read: kubelet sets each of its ``data`` keys (after ``prefix``), a later source over an
    earlier, before ``env`` and before it expands ``$(VAR)`` (makeEnvironmentVariables). None when a source is a
    Secret, a ConfigMap not in the input or named twice there (ambiguous), or holds a value not known: then any
    variable may come from it and stays unknown. ``shown_only`` (:func:`env_from_known`): a Secret, or a ConfigMap
    the input does not hold, sets nothing instead."""
    if not isinstance(env_from, list):
        return None
    values: dict[str, str] = {}
    for item in env_from:
        if shown_only and isinstance(item, Mapping) and "secretRef" in item:
            continue
        ref = item.get("configMapRef") if isinstance(item, Mapping) else None
        name = ref.get("name") if isinstance(ref, Mapping) else None
        prefix = item.get("prefix", "") if isinstance(item, Mapping) else None
        datas = _datas(name) if isinstance(name, str) else []
        if shown_only and not datas and isinstance(name, str) and isinstance(prefix, str):
            continue  # not in the input
        if len(datas) != 1 or not isinstance(prefix, str) or "secretRef" in item:
            return None
        for key, value in datas[0].items():
            if not isinstance(value, str):
                return None
            values[f"{prefix}{key}"] = value
    return values


def env_from_known(env_from: Any) -> dict[str, str] | None:
    """The variables a container's ``envFrom`` sets that the input shows: those of its ConfigMaps of the input (as
    :func:`env_from_values`). A Secret, or a ConfigMap the input does not hold, sets nothing a rule judges: what it
    could contain is not an unknown (DESIGN.md, "Unknown, and what is not"). None where the input names a source it
    cannot read yet: a name or prefix not known, two ConfigMaps of the name with different data, a value not known."""
    return env_from_values(env_from, shown_only=True)


def config_tokens(text: str) -> list[str] | None:
    """The flags vLLM reads from a ``--config`` YAML file (its FlexibleArgumentParser: ``key: value`` is
    ``--key value``, ``true`` a switch and ``false`` left out, a list its items, a mapping its JSON); None when
    the text is no mapping."""
    # the project's YAML reader (vLLM reads the file with yaml.safe_load: one document, a repeated key's last value)
    docs = [doc for _, doc in load_documents(text, "--config") if not isinstance(doc, DuplicateKey)]
    if len(docs) != 1 or isinstance(docs[0], InputError):
        return None
    doc = docs[0]
    if not isinstance(doc, Mapping):
        return None
    tokens: list[str] = []
    for key, value in doc.items():
        flag = f"--{key}"
        if value is None or value is False:
            continue
        if value is True:
            tokens.append(flag)
        elif isinstance(value, list):
            tokens += [flag, *(str(v) for v in value)]
        elif isinstance(value, Mapping):
            import json  # only a --config file with a mapping (start-up time)

            tokens += [flag, json.dumps(value)]
        else:
            tokens += [flag, str(value)]
    return tokens

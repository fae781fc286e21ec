"""One file's text into an :class:`~shardwise.rules.model.Inventory`, the adapter picked by its parsed content.

:func:`load_text` is what every other path into the adapters ends in (a file, stdin, a chart's or a
kustomization's rendered output): a Pulumi stack config, a ``pulumi preview --json`` / ``pulumi stack
export`` file, or Kubernetes manifests (:mod:`.kinds`). The adapters are imported only when a file needs
them, so linting manifests never imports pydantic.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..model import Inventory, LaunchIssue, Location
from ..model.errors import InputError
from ..model.files import read_file_bytes
from . import kinds
from .datasize import may_be_oversized, oversized_data, oversized_parsed, refuse_oversized
from .select import PROGRAM_ENDS
from .shellname import is_script
from .yamlsrc import (
    DuplicateKey,
    LocalTagError,
    load_documents,
    load_untagged,
    parse_documents,
    read_text,
    split_documents,
)


def load_text(text: str, file: str, namespace: str | None = None) -> Inventory:
    """One file's inventory, by its parsed content; its input errors are in ``errors``, and a file that
    is not an input is in ``skipped_files``. ``namespace``: the namespace the manifests are applied in (a Helm
    release's), given to each namespaced object that names none (:func:`.kinds.fill_namespace`)."""
    # the inventory an error is reported in is made here, when one is: a manifest's is made by its reader, and an
    # Inventory (twenty-eight fields, each a new list, dict or Counter) made for every file only to be dropped cost
    # about 8 us of each file's reading. Every path of _load_text that fills an inventory it made returns it at once.
    try:
        return _load_text(text, file, namespace)
    except InputError as e:  # an error about the whole file
        inv = Inventory()
        inv.errors.append(e)
    except RecursionError:
        inv = Inventory()
        inv.errors.append(InputError("nested too deeply to read", file))
    except Exception as e:  # noqa: BLE001 - a bug on one file must not hide the others; it fails the run
        if os.environ.get("SHARDWISE_DEBUG"):
            raise
        inv = Inventory(errors=[InputError(
            f"internal error while reading this file: {type(e).__name__}: {e} (set SHARDWISE_DEBUG=1 for the "
            "traceback; please report it)", file)])
    if file not in inv.sources:
        inv.sources.append(file)
    return inv


class UnparsedJson(InputError):
    """A ``.json`` file that breaks JSON's grammar and whose text names nothing an input has
    (:data:`_NAMES_AN_INPUT`): an input error where the file was named, skipped where a searched folder met it
    (:func:`~shardwise.rules.adapters.read_inputs`; fuzz19)."""

    reason = ""  # the skip reason where a searched folder met it: :data:`UNPARSED_JSON` unless a subclass says


class NonFiniteJson(UnparsedJson):
    """An :class:`UnparsedJson` whose only fault is a ``NaN`` or ``Infinity`` (:class:`.jsonsrc.JsonNonFinite`):
    data a Python program saved (corpus27: smeyanoff/kuberay-serving-system's data/sample.json, a feature row with
    ``NaN``, beside its KubeRay manifests, made the repository's lint exit 2)."""

    reason = ("JSON with NaN or Infinity naming no Kubernetes object, Pulumi resource or vLLM server (data a Python "
              "program wrote)")


class DuplicateKeyJson(UnparsedJson):
    """An :class:`UnparsedJson` whose only fault is a key written twice (:class:`.jsonsrc.JsonDuplicateKey`) and that,
    read as Python's and Go's parsers read it (the last value kept), is no input (:func:`.kinds.json_kind`): a tool's
    file. corpus33: wilfierd/mlops keeps Grafana dashboards (``fieldConfig`` twice in a panel; Grafana keeps the last)
    beside its KubeRay and vLLM manifests, and the repository's lint exited 2. A Kubernetes object, a Pulumi preview
    or an OCI recipe with a key written twice stays an input error wherever it was met."""

    reason = ("JSON with a key written twice naming no Kubernetes object, Pulumi resource or vLLM server (a tool's "
              "file, such as a Grafana dashboard)")


class ApplicationTagYaml(UnparsedJson):
    """A YAML file PyYAML refused for a local tag (``!env_var``, ``!secret``, ``!Find``: YAML's tags "specific to a
    single application") that, with those tags read as kubectl reads them, holds no Kubernetes object, stack or chart
    values (:func:`_application_tags`): the application's own configuration, skipped where a searched folder met it,
    an input error where it was named, as an :class:`UnparsedJson` file. corpus29: GitOps trees keep Recyclarr's
    config (``api_key: !env_var SONARR_API_KEY``), ESPHome devices (``password: !secret ota``) and authentik
    blueprints (``!Find``, ``!KeyOf``) beside the manifests Flux applies, and each made the whole run exit 2. A
    Kubernetes object with such a tag (``namespace: !Ref Namespace``) stays an input error wherever it was met."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None, column: int | None = None,
                 reason: str = "") -> None:
        super().__init__(message, file, line, column)
        self.reason = reason

    def __reduce__(self):  # type: ignore[no-untyped-def]  # survives a trip to a worker process, reason included
        return (type(self), (self.message, self.file, self.line, self.column, self.reason))


#: What in a JSON file's text says it may be an input, whether or not it parses: a Kubernetes object's ``apiVersion``
#: or ``kind`` key, a Pulumi preview's or state's keys (:func:`.kinds.json_kind`), an OCI recipe's, or a vLLM server
#: (its image, its launch, a flag only ``vllm serve`` takes). A file that does not parse and names one of them is an
#: input error wherever it was met: a broken manifest never passes as a tool's configuration.
#: A key is matched quoted or not (``{apiVersion: v1}`` in a ``.json`` file is YAML's flow style, not JSON), and any
#: ``\\u`` escape counts, since one can spell any key.
_NAMES_AN_INPUT = re.compile(
    r"\b(?:apiVersion|kind|urn|steps|deployment|resources|recipe_image_uri)\b[\"']?\s*:|\\u"
    r"|\bvllm\s+serve\b|\bvllm\.entrypoints\b|\bvllm/vllm-|--tensor-parallel-size\b", re.IGNORECASE)
#: The skip reason of an :class:`UnparsedJson` file met while searching a folder.
UNPARSED_JSON = "unparsable JSON naming no Kubernetes object, Pulumi resource or vLLM server (a tool's configuration)"


def _no_input_read_leniently(text: str, file: str) -> bool:
    """Whether ``text``, a JSON file with a key written twice, read keeping each key's last value (as Python's and
    Go's parsers do), is no input of shardwise's: not a Kubernetes object, a Pulumi preview or state, nor an OCI
    recipe (:func:`.kinds.json_kind` gives the reason it is not one)."""
    import json

    try:
        data = json.loads(text)
        kind = kinds.json_kind(data, file)
    except (ValueError, RecursionError, InputError):  # refused otherwise too, or it looks like a Pulumi file
        return False
    return kind not in (kinds.KUBERNETES, kinds.PULUMI, kinds.OCI_RECIPE)


#: A Triton model configuration's backend line: ``backend: "vllm"`` (protobuf text format; the quotes optional).
_TRITON_VLLM_BACKEND = re.compile(r"^\s*backend\s*:\s*[\"']?vllm[\"']?\s*(?:#.*)?$", re.MULTILINE)


def _triton_vllm_model(file: str) -> bool:
    """Whether ``file`` is the ``<model>/<version>/model.json`` of a Triton model repository whose
    ``<model>/config.pbtxt`` says ``backend: "vllm"`` (triton-inference-server/vllm_backend README.md): its engine
    arguments, even a ``model`` alone, configure a vLLM server (:data:`.kinds.TRITON_VLLM`)."""
    if os.path.basename(file) != "model.json":
        return False
    config = os.path.join(os.path.dirname(os.path.dirname(file)), "config.pbtxt")
    try:
        text = read_file_bytes(config, limit=65536, head=True).decode("utf-8", "replace")
    except (InputError, OSError):
        return False
    return _TRITON_VLLM_BACKEND.search(text) is not None


#: The skip reason of a file of several JSON values (JSON Lines) none of which is an input (:func:`_json_stream`).
JSON_LINES = ("JSON Lines (several JSON values, one after another) of which none is a Kubernetes object "
              "(data a program appended)")


def _json_stream(text: str, file: str) -> Inventory | None:
    """The inventory of a text that is two or more JSON values one after another (:func:`.jsonsrc.json_value_spans`),
    or ``None`` where the text is not such a sequence.

    Kubernetes objects one after another (``kubectl create --dry-run=client -o json`` run per object and appended,
    ``jq .`` over a list's items) are read object by object, each at its own lines, as kubectl reads them:
    apimachinery's ``yaml.NewYAMLOrJSONDecoder`` (kubernetes/apimachinery pkg/util/yaml/decoder.go, which kubectl's
    resource builder uses for every file) takes a text that starts with ``{`` for JSON and decodes it with Go's
    ``json.Decoder``, one value after another until the end, each an object. Before, such a file was the input error
    "cannot parse JSON: Extra data" (exit 2). That holds where every value is an object, one at least is Kubernetes
    and none is a Pulumi file or an OCI recipe; the objects are then read as the documents of a YAML stream are.

    Where every value is data (json_kind says neither Kubernetes, Pulumi nor an OCI recipe) the file is skipped:
    benchmark results appended run by run (corpus30: nerdalert/vllm-bench-automation's
    vllm-benchmark-graphs/results.json, nine runs of vLLM's serving benchmark, one a line, with a "deployment" key
    naming the llm-d setup benchmarked, failed the repository's lint with exit 2 "cannot parse JSON: Extra data").
    A stream mixing a Kubernetes object with a value that is no object (kubectl refuses it), or holding a Pulumi file
    or an OCI recipe, stays the input error it was. A value that looks like a broken Pulumi file is the input error
    :func:`.kinds.json_kind` raises, as in a file of one value."""
    from .jsonsrc import json_value_spans, yaml_readable

    spans = json_value_spans(text)
    if spans is None:
        return None
    found = {kinds.json_kind(value, file) for _, _, value in spans}
    if kinds.PULUMI in found or kinds.OCI_RECIPE in found:
        return None
    if kinds.KUBERNETES not in found:
        return Inventory(skipped_files=[(file, JSON_LINES)])
    if not all(isinstance(value, dict) for _, _, value in spans):
        return None
    docs: list[tuple[int | None, object]] = []
    for start, end, _ in spans:
        starts: list[int] = []
        # each value parsed alone, its lines counted from the file's first (a value may start mid-line: "}{")
        parsed = parse_documents(yaml_readable(text[start:end]), file, text.count("\n", 0, start), starts)
        docs.extend(zip(starts, parsed, strict=True))
    from .k8s import inventory_from_documents

    return inventory_from_documents(docs, text, file)


def _load_text(text: str, file: str, namespace: str | None = None) -> Inventory:
    if is_script(file, text):
        return _load_script(text, file, Inventory())
    if file.endswith(".tf"):
        return Inventory(skipped_files=[(file, terraform_skip(text))])
    stripped = text.lstrip()
    if not stripped:  # read, and nothing in it
        return Inventory(sources=[file])
    if stripped[:1] == "{" and may_be_oversized(text):
        # fuzz26: a ConfigMap or Secret in JSON (or one flow mapping) over the API server's 1 MiB, said from its text
        # before any parse (json's, with its checks, took 3.5 s and 730 MB for 1,800,000 keys)
        too_big = oversized_data(text)
        if too_big is not None:
            return Inventory(sources=[file], errors=[InputError(too_big[1], file, too_big[0] + 1)])
    if file.endswith(".json") or stripped[:1] in "{[":
        # only a text that may be JSON (start-up time: its patterns, and json)
        from .jsonsrc import JsonDuplicateKey, JsonNonFinite, JsonSyntaxError, parse_json

        try:
            data = parse_json(text, file)
        except InputError as e:
            if isinstance(e, JsonSyntaxError):
                stream = _json_stream(text, file)
                if stream is not None:
                    return stream
            if file.endswith(".json"):
                if isinstance(e, JsonSyntaxError) and not _NAMES_AN_INPUT.search(text):
                    # a tool's JSON with comments or trailing commas (opencode.json, .eslintrc.json)
                    raise UnparsedJson(e.message, e.file, e.line, e.column) from None
                if isinstance(e, JsonNonFinite) and not _NAMES_AN_INPUT.search(text):
                    # a data file Python's json module wrote with NaN (corpus27)
                    raise NonFiniteJson(e.message, e.file, e.line, e.column) from None
                if isinstance(e, JsonDuplicateKey) and _no_input_read_leniently(text, file):
                    # a tool's file with a key written twice (a Grafana dashboard: corpus33)
                    raise DuplicateKeyJson(e.message, e.file, e.line, e.column) from None
                raise
        else:
            kind = kinds.json_kind(data, file)
            if kind == kinds.OCI_RECIPE:
                from .ocirecipe import recipe_inventory

                return recipe_inventory(data, file, text)
            if kind == kinds.PULUMI:
                from .pulumi import inventory_from_pulumi_json

                stack = inventory_from_pulumi_json(data, file, text)
                stack.stacks.append(file)
                return stack
            if kind != kinds.KUBERNETES:
                if kind == kinds.GENERIC_JSON and _triton_vllm_model(file):
                    kind = kinds.TRITON_VLLM
                return Inventory(skipped_files=[(file, kind)])
            if "\\u" in text:
                from .jsonsrc import yaml_readable

                text = yaml_readable(text)
    if may_be_oversized(text):  # review45: a ConfigMap or Secret the API server refuses for its data's size is
        # said from its text, not parsed (2,450,000 keys: 18.9 s of CPU and 1.1 GB, and a pass)
        readable, too_large = refuse_oversized(text, file, split_documents(text))
        docs = [*load_documents(readable, file), *((e.line, e) for e in too_large)]
    else:
        docs = load_documents(text, file)
    refused = next((d for _, d in docs if isinstance(d, LocalTagError)), None)
    if refused is not None:
        _application_tags(text, file, refused)
    kind = kinds.yaml_kind(docs, file)
    if kind == kinds.STACK:
        from .stack import load_stack_text

        stack = load_stack_text(text, file)
        stack.stacks.append(file)
        return stack
    if kind != kinds.KUBERNETES:
        rendered = _chart_values(docs, text, file)
        if rendered is not None:
            return rendered
        if "cluster_manifests" in text:  # CNDI: the manifests its configuration or template writes (corpus45)
            cndi = _cndi_config(docs, text, file)
            if cndi is not None:
                twice = [d.unread() for _, d in docs if isinstance(d, DuplicateKey)]
                # CNDI parses its configuration strictly (Deno's std/yaml, a js-yaml port, refuses a duplicated
                # mapping key): an input error, as for any other YAML, not a manifest read with the last value
                return Inventory(sources=[file], errors=list(twice)) if twice else cndi
        duplicates = [d.unread() for _, d in docs if isinstance(d, DuplicateKey)]
        if duplicates and kinds.ansible_file(file, docs):  # Ansible keeps the last value, with a warning
            return Inventory(skipped_files=[(file, kinds.ANSIBLE)])
        if duplicates:  # not an input, but its YAML is broken: an error as before, not a skip
            return Inventory(sources=[file], errors=list(duplicates))
        if kind == "Docker Compose file":  # one that starts vLLM says so (a file of another name that is one)
            from .programs import compose_skip

            kind = compose_skip(text)
        return Inventory(skipped_files=[(file, kind)])
    from .k8s import inventory_from_documents

    # fuzz25: a ConfigMap or Secret whose data is over 1 MiB only once its aliases are expanded; fuzz26: a Secret over
    # it once its stringData is merged into its data (the text counts only the larger of the two)
    if "&" in text or may_be_oversized(text):
        aliased = "&" in text
        docs = [(line, _expanded_oversize(d, file, line, aliased)) for line, d in docs]
    if namespace is not None:
        kinds.fill_namespace(docs, namespace)
    return inventory_from_documents(docs, text, file)


def _expanded_oversize(doc: Any, file: str, line: int | None, aliased: bool) -> Any:
    """``doc``, or the input error of :func:`.datasize.oversized_parsed` at its first line where it has one."""
    message = oversized_parsed(doc, aliased)
    return doc if message is None else InputError(message, file, line)


def _application_tags(text: str, file: str, refused: InputError) -> None:
    """Raise :class:`ApplicationTagYaml` where ``text``, which PyYAML ``refused`` for a local tag, read with its local
    tags as kubectl reads them, is no input: no Kubernetes object, stack, or chart values shardwise renders. Return
    where it may be one, or does not parse even so: ``refused`` is reported as before."""
    try:
        values, tags = load_untagged(text, file)
    except InputError:
        return
    docs: list[tuple[int | None, object]] = [(None, v) for v in values]
    kind = kinds.yaml_kind(docs, file)
    if kind in (kinds.KUBERNETES, kinds.STACK) or _chart_values(docs, text, file) is not None:
        return
    raise ApplicationTagYaml(refused.message, file, refused.line, refused.column,
                             f"{kind}, with YAML tags only its application reads ({', '.join(tags)})")


def _chart_values(docs: list[tuple[int | None, object]], text: str, file: str) -> Inventory | None:
    """A Helm values file of a chart whose rendering is known (llm-d's ``llm-d-modelservice``,
    :mod:`.k8s.modelservice`): the inventory of the objects it renders, None for any other file or when it renders
    no server."""
    if not any(isinstance(d, dict) and "modelArtifacts" in d for _, d in docs):
        return None  # most YAML that is no object (start-up time: the chart readers are not imported)
    from .k8s.modelservice import is_modelservice_values

    found = [d for _, d in docs if is_modelservice_values(d)]
    if not found:
        return None
    from .k8s.inventory import inventory_from_rendered
    from .k8s.modelservice import modelservice_objects

    objs = [o for d in found for o in modelservice_objects(d, None, None, None)]  # type: ignore[arg-type]
    if not objs:
        return None
    inv = inventory_from_rendered(objs, text, file)
    if inv.errors:  # name the values key the user wrote, not the field the chart renders it into
        from .k8s.helmrelease import named_for_values

        for doc in found:
            inv.errors = [named_for_values(e, doc, "") for e in inv.errors]
    # only llm-d's inference simulator (the chart's default container), or nothing vLLM: Helm values, as before
    return inv if inv.groups or inv.launch_issues or inv.errors else None


def _cndi_config(docs: list[tuple[int | None, object]], text: str, file: str) -> Inventory | None:
    """A CNDI configuration or template (:mod:`.cndi`): the inventory of the manifests under its
    ``cluster_manifests``, a skip that says why when it writes none, None for any other file."""
    from .cndi import CNDI_NO_MANIFESTS, cndi_manifests

    manifests = cndi_manifests(docs)
    if manifests is None:
        return None
    if not manifests:
        return Inventory(skipped_files=[(file, CNDI_NO_MANIFESTS)])
    from .k8s import inventory_from_documents

    return inventory_from_documents(manifests, text, file)


#: Why a Terraform file is not read (:func:`terraform_skip`).
TERRAFORM = "Terraform configuration (HCL is not read)"


#: A Terraform argument that names a Helm chart (``helm_release``'s ``chart``, a module's input of that name) or a
#: container image (``kubernetes_deployment``'s ``container { image = ... }``), with its quoted value.
_TF_CHART = re.compile(r'^[ \t]*chart[ \t]*=[ \t]*"([^"\n]+)"')
_TF_IMAGE = re.compile(r'^[ \t]*image[ \t]*=[ \t]*"([^"\n]+)"')
#: The Helm charts whose pods are vLLM's server: production-stack's ``vllm-stack``
#: (https://vllm-project.github.io/production-stack), and charts named ``vllm`` (substratusai's, an OCI ``.../vllm``).
_VLLM_CHARTS = frozenset({"vllm", "vllm-stack"})


#: A KAITO Workspace or InferenceSet a Terraform file declares (corpus44): YAML in a ``kubectl_manifest`` /
#: ``kubernetes_manifest`` heredoc (``apiVersion: kaito.sh/v1alpha1``) or an HCL object (``apiVersion =
#: "kaito.sh/v1beta1"``); its kind next to it, the name of its inference preset below it, and the annotation that
#: runs the Hugging Face transformers runtime instead of vLLM, KAITO's default since v0.4.0 (kaito-project/kaito
#: docs/inference/README.md, "Inference runtime selection"; the annotation is ``kaito.sh/runtime``,
#: AnnotationWorkspaceRuntime in api/v1beta1/labels.go).
_TF_KAITO = re.compile(r'^[ \t]*"?apiVersion"?[ \t]*[:=][ \t]*["\']?kaito\.sh/')
_TF_KAITO_KIND = re.compile(r'^[ \t]*"?kind"?[ \t]*[:=][ \t]*["\']?(Workspace|InferenceSet)["\']?[ \t]*,?[ \t]*$')
_TF_KAITO_INFERENCE = re.compile(r'^[ \t]*"?inference"?[ \t]*[:=]')
_TF_KAITO_PRESET = re.compile(r'^[ \t]*"?preset"?[ \t]*[:=]')
_TF_KAITO_NAME = re.compile(r'^[ \t]*"?name"?[ \t]*[:=][ \t]*["\']?([^"\'\n]+?)["\']?[ \t]*,?[ \t]*$')
_TF_KAITO_TRANSFORMERS = re.compile(r'kaito\.sh/runtime"?[ \t]*[:=][ \t]*["\']?transformers', re.I)


def _terraform_kaito(lines: list[str]) -> str | None:
    """What :func:`_terraform_vllm` says of a KAITO Workspace or InferenceSet declared in Terraform whose inference
    preset KAITO runs with vLLM (cmendible/kaito-rag and paolosalvatori/aks-kaito-terraform write a Workspace as
    a ``kubectl_manifest`` heredoc); None when the file declares none, or only ones on the transformers runtime."""
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith(("#", "//")) or not _TF_KAITO.match(line):
            continue
        end = next((i for i in range(n, len(lines)) if _TF_KAITO.match(lines[i])), len(lines))
        block = lines[max(0, n - 4):end]
        kind = next((m.group(1) for m in map(_TF_KAITO_KIND.match, block) if m is not None), None)
        if kind is None or any(_TF_KAITO_TRANSFORMERS.search(b) for b in block):
            continue
        after = lines[n:end]
        start = next((i for i, b in enumerate(after) if _TF_KAITO_INFERENCE.match(b)), None)
        if start is None:
            continue  # a tuning Workspace: no server
        preset = next((i for i in range(start, len(after)) if _TF_KAITO_PRESET.match(after[i])), None)
        name = None if preset is None else next(
            (m.group(1) for m in map(_TF_KAITO_NAME.match, after[preset + 1:preset + 4]) if m is not None), None)
        named = ("" if name is None else f" `{name}`, a value Terraform fills," if "${" in name or "var." in name
                 else f" '{name}'")
        return (f"declares a KAITO {kind} (`kaito.sh` at line {n}) whose inference preset{named} KAITO runs with "
                f"vLLM, its default runtime: shardwise reads no HCL, so that server is not linted; write the {kind} "
                f"as YAML (or `kubectl get {kind.lower()} -o yaml` once applied) to lint it, and lint the pod KAITO "
                "renders (kubectl get pod -o yaml) to check the layout")
    return None


def _terraform_vllm(text: str) -> str | None:
    """What a Terraform file deploys of vLLM that :func:`.shell.serves_vllm` does not see, said for its skip reason:
    a ``helm_release`` of vLLM's chart, or a container of an image named for vLLM (``.../vllm-release-x:1.0``, whose
    entrypoint starts the server), at the first such line outside a comment, else a KAITO Workspace or InferenceSet
    it declares (:func:`_terraform_kaito`); None when it names none of them."""
    from ..vllm.args import is_vllm_image

    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("#", "//")):
            continue
        chart = _TF_CHART.match(line)
        if chart is not None and chart.group(1).strip().lower().rstrip("/").rsplit("/", 1)[-1] in _VLLM_CHARTS:
            return (f"installs vLLM's Helm chart `{chart.group(1)}` (line {n}): shardwise reads no HCL, so the servers "
                    "that chart runs are not linted; lint the chart rendered with the release's values (helm "
                    "template, with the values it sets, piped to shardwise lint -)")
        image = _TF_IMAGE.match(line)
        if image is not None and is_vllm_image(re.sub(r"\$\{[^}]*\}", "x", image.group(1))):
            return (f"runs an image named for vLLM (`{image.group(1)}` at line {n}): shardwise reads no HCL, so that "
                    "workload is not linted; write the Kubernetes object it declares as YAML (or `kubectl get -o "
                    "yaml` once applied) to lint it")
    return _terraform_kaito(text.splitlines())


def terraform_skip(text: str) -> str:
    """Why a Terraform file (``*.tf``) is skipped: shardwise reads no HCL, and says so of one that starts a vLLM
    server (its image, ``vllm serve``, the API server module or a vLLM-only flag, as :mod:`.shell` reads a script),
    whose workload (a ``kubernetes_deployment`` or the like) is then not linted, and of one that installs vLLM's
    Helm chart or runs an image named for vLLM (:func:`_terraform_vllm`)."""
    from .shell import serves_vllm

    found = serves_vllm(text)
    if found is None:
        other = _terraform_vllm(text)
        return TERRAFORM if other is None else f"Terraform configuration that {other}"
    line, word = found
    return (f"Terraform configuration that starts vLLM (`{word}` at line {line}): shardwise reads no HCL, so that "
            "server is not linted; a Kubernetes object it declares can be (write it as YAML, or `kubectl get -o yaml` "
            "once applied), a server it starts on a virtual machine cannot")


def _unapplied(file: str, stray: tuple[int, str], read: int) -> LaunchIssue:
    """SW005's record of a script's here-document that reads as a vLLM manifest but reaches no kubectl this reader
    sees (``read``: how many of the script's other here-documents were read, which the reason says)."""
    line, what = stray
    others = ("" if not read else " (the other here-document, which it applies, was read and linted)" if read == 1
              else f" (the {read} other here-documents, which it applies, were read and linted)")
    return LaunchIssue(
        f"shell script {os.path.basename(file)}", "", (
            f"its here-document at line {line} reads as a vLLM manifest (`{what}`) but shardwise saw it "
            f"fed to no `kubectl apply|create`{others}: it reads a script's manifests from here-documents piped to "
            "`kubectl apply|create -f -` (directly, through cat or envsubst) or written to a file the "
            "script applies by the same name (`cat > F <<EOF` then `kubectl apply -f F`); lint the "
            "manifest the script applies (render it and lint the output)"),
        Location(file, line), mentioned=True)


def _load_script(text: str, file: str, inv: Inventory) -> Inventory:
    """A shell script: the manifests its here-documents feed to ``kubectl apply/create`` (:mod:`.shell`), read at
    the script's lines; a script with none is skipped with that reason (which says when it mentions vLLM). Where
    one of its here-documents reads as a vLLM manifest that it feeds to no kubectl this reader sees, that is
    recorded for SW005 with why it was not read, whether or not other here-documents of the script were read."""
    from .shell import NO_MANIFEST, NO_MANIFEST_VLLM, envsubst_inputs, manifest_text

    found = manifest_text(text, file)
    filled = _envsubst_files(file, envsubst_inputs(text))
    if found.text is None:
        inv.envsubst_files.extend(filled)
        inv.errors.extend(found.errors)
        if found.errors:
            inv.sources.append(file)
        elif found.stray is not None:
            inv.sources.append(file)
            inv.launch_issues.append(_unapplied(file, found.stray, 0))
        elif any(serves for *_, serves in [*found.filled, *found.assembled]):
            inv.sources.append(file)
            inv.launch_issues.extend(_filled(file, f) for f in found.filled if f[3] is not None)
            inv.launch_issues.extend(_assembled(file, a) for a in found.assembled if a[3] is not None)
        elif found.filled:
            opened, line, expansion, _ = found.filled[0]
            inv.skipped_files.append((file, _filled_reason(opened, line, expansion)))
        elif found.assembled:
            inv.skipped_files.append((file, _assembled_reason(*found.assembled[0][:3])))
        else:
            inv.skipped_files.append((file, NO_MANIFEST_VLLM if found.mention is not None else NO_MANIFEST))
        return inv
    docs = load_documents(found.text, file)
    from .k8s import inventory_from_documents

    read = inventory_from_documents(docs, found.text, file)
    read.envsubst_files.extend(filled)
    read.errors[:0] = found.errors
    if found.stray is not None:
        read.launch_issues.append(_unapplied(file, found.stray, found.documents))
    read.launch_issues.extend(_filled(file, f) for f in found.filled if f[3] is not None)
    read.launch_issues.extend(_assembled(file, a) for a in found.assembled if a[3] is not None)
    if found.serves is not None:
        for opened, start, end, line, variable in found.image_variables:
            if not any(start <= g.location.line < end for g in read.groups if g.location.line is not None) and not any(
                    start <= i.location.line < end for i in read.launch_issues if i.location.line is not None):
                read.launch_issues.append(_image_variable(file, found.serves, opened, line, variable))
    return read


def _envsubst_files(script: str, names: list[str]) -> list[str]:
    """The files a script pipes through envsubst (:func:`.shell.envsubst_inputs`), each as the script names it (a
    path from wherever it runs, often the repository's root) and joined to the script's own folder."""
    out: list[str] = []
    for name in names:
        if os.path.isabs(name):
            out.append(os.path.normpath(name))
            continue
        out.append(os.path.normpath(name))
        out.append(os.path.normpath(os.path.join(os.path.dirname(script), name)))
    return sorted(set(out))


def _filled_reason(opened: int, line: int, expansion: str) -> str:
    """Why a script's applied here-document was not read: a line of it is only a shell expansion (:mod:`.shell`)."""
    if expansion[:1] in "[{":  # a flow collection whose items an expansion stands for (corpus40)
        what = f"has a flow collection with a shell expansion where its items or keys go, `{expansion}`"
        writes = "the shell writes items there (any number, or none)"
    else:
        what = (f"has a line that is only the shell expansion `{expansion}`" if expansion[:1] in "$`\"'"
                else f"has a line that ends in a shell expansion YAML leaves room for only as lines, `{expansion}`")
        writes = "the shell writes lines of YAML there (or none)"
    return (f"shell script whose here-document at line {opened}, which it applies, {what} (line {line}): {writes} "
            "when the script runs, so the manifest kubectl gets is not known here and that here-document is not read; "
            "render the manifest (run the script with `kubectl apply --dry-run=client -o yaml`) and lint the output")


def _filled(file: str, filled: tuple[int, int, str, str | None]) -> LaunchIssue:
    """SW005's record of an applied here-document that runs a vLLM server but is not read, because a line of it is
    only a shell expansion the script fills with lines when it runs (:func:`_filled_reason`)."""
    opened, line, expansion, serves = filled
    return LaunchIssue(
        f"shell script {os.path.basename(file)}", "",
        f"its here-document at line {opened} runs vLLM (`{serves}`) but is not read: "
        + _filled_reason(opened, line, expansion).split(f"(line {line}): ", 1)[1],
        Location(file, line), mentioned=True)


def _assembled_why(opened: int, appended: int, target: str) -> str:
    """Why the here-documents a script assembles the file it applies from are not read (:func:`_assembled_reason`)."""
    return (f"the script assembles it from several here-documents (the first at line {opened}, appended to at line "
            f"{appended}, `cat >> {target}`), some of them maybe under a condition: no one piece is the manifest and "
            "what kubectl gets is not known here, so they are not read; render the manifest (run the script with "
            "`kubectl apply --dry-run=client -o yaml`) and lint the output")


def _assembled_reason(opened: int, appended: int, target: str) -> str:
    """Why a script's applied here-documents were not read: the script assembles the file it applies from several of
    them (:func:`.shell._assembled_targets`)."""
    return f"shell script whose applied manifest `{target}` is not read: " + _assembled_why(opened, appended, target)


def _assembled(file: str, assembled: tuple[int, int, str, str | None]) -> LaunchIssue:
    """SW005's record of a file a script assembles from here-documents and applies, which runs a vLLM server."""
    opened, appended, target, serves = assembled
    return LaunchIssue(
        f"shell script {os.path.basename(file)}", "",
        f"the manifest it applies, `{target}`, runs vLLM (`{serves}`) but is not read: "
        + _assembled_why(opened, appended, target),
        Location(file, opened), mentioned=True)


def _image_variable(file: str, serves: tuple[int, str], opened: int, line: int, variable: str) -> LaunchIssue:
    """SW005's record of a pod a script applies whose image is a shell variable, in a script that runs a vLLM server
    (``serves``: the line and word that says so, outside the manifests): the shell fills the image when the script
    runs, and this reader does not run it, so no workload is read from the pod."""
    at, word = serves
    return LaunchIssue(
        f"shell script {os.path.basename(file)}", "", (
            f"the script runs vLLM (`{word}` at line {at}) but the pod its here-document at line {opened} applies "
            f"takes its image from the shell variable `{variable}`, which the shell fills when the script runs; "
            "shardwise reads a script's here-documents as written and does not run it, so no workload was read "
            "from that pod: lint the manifest the script applies (render it, e.g. with `kubectl create "
            "--dry-run=client -o yaml`, and lint the output)"),
        Location(file, line), mentioned=True)


def _program(path: str) -> Inventory:
    """A program source (:mod:`.programs`), skipped with its reason: only its head is read, for a vLLM mention. It is
    not among the files read (``sources``), as a Terraform file is not (newuser10): a chart repository with a
    Dockerfile beside its charts, or a Pulumi program's sources, passed having linted nothing, because the one
    skipped file counted as read and hid that nothing else was (:func:`~shardwise.rules.adapters._unrendered_error`),
    and the summary counted the file both as read and as skipped."""
    from .programs import HEAD_BYTES, program_skip

    text = read_file_bytes(path, path, HEAD_BYTES, head=True).decode("utf-8", "replace")
    return Inventory(skipped_files=[(path, program_skip(path, text))])


#: The run's memo (:func:`run_memo`): a file's inventory, and the text of a file that names a GitOps API group, by
#: :func:`_memo_key`. None outside :func:`~shardwise.rules.adapters.read_inputs`.
_MEMO: dict[tuple[object, ...], Inventory] | None = None
_MEMO_TEXT: dict[tuple[object, ...], str] = {}
#: The key of each file :func:`load_file` read in this process, by path; and the paths another process read whose
#: text names no GitOps API group (:func:`adopt`).
_KEYS: dict[str, tuple[object, ...]] = {}
_SEEN: set[str] = set()
#: What a reading process sends back of a batch (:func:`marked_texts`): the key and text of each file naming a
#: GitOps API group.
Marked = list[tuple[tuple[object, ...], str]]
#: What in a file's text says the GitOps plan (:func:`.gitops.plan`) will read it again: its text is kept.
GITOPS_MARKS = ("argoproj.io/", "toolkit.fluxcd.io/")


@contextmanager
def run_memo() -> Iterator[None]:
    """Within it, :func:`load_file` reads a file once (hostile18: a run whose GitOps object builds a kustomization
    read every file three times: to find the object, to plan its sources, and again without the folder it builds).
    A file is known again by its path, as given, and what decides its content (device, inode, size, modification and
    change times, links followed): a file changed meanwhile is read again. Nested uses share the outer memo."""
    global _MEMO
    if _MEMO is not None:
        yield
        return
    _MEMO = {}
    try:
        yield
    finally:
        _MEMO = None
        _MEMO_TEXT.clear()
        _KEYS.clear()
        _SEEN.clear()


def marked_texts(files: list[str]) -> Marked:
    """The key and text of each of ``files``, read by this process in the run, that names a GitOps API group."""
    keys = (_KEYS.get(f) for f in files)
    return [(k, _MEMO_TEXT[k]) for k in keys if k is not None and k in _MEMO_TEXT]


def adopt(files: list[str], marked: Marked) -> None:
    """Take into this process's memo what another process read of ``files`` (:func:`marked_texts`): the texts that
    name a GitOps API group, and that the others name none (the GitOps plan does not read them again)."""
    if _MEMO is None:
        return
    _MEMO_TEXT.update(marked)
    texts = {k[0] for k, _ in marked}
    _SEEN.update(f for f in files if f not in texts)


def _memo_key(path: str) -> tuple[object, ...] | None:
    if _MEMO is None or path == "-":
        return None
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None  # read as before: the reading says why it cannot
    if not stat.S_ISREG(st.st_mode):
        return None  # a FIFO, a device: what it holds is not decided by its metadata
    return (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def gitops_text(path: str) -> str | None:
    """The text of ``path`` for the GitOps plan (:func:`.gitops.plan`): from the run's memo where :func:`load_file`
    kept it, None where this run read the file and it names no GitOps API group, else read now
    (:func:`.yamlsrc.read_text`)."""
    if path in _SEEN:
        return None
    key = _memo_key(path)
    if key is not None and _MEMO is not None:
        text = _MEMO_TEXT.get(key)
        if text is not None:
            return text
        if key in _MEMO:
            return None
    return read_text(path)


def load_file(path: str) -> Inventory:
    """One file (``-`` for stdin) as :func:`load_text` reads it; a file that cannot be read is an input error. In
    :func:`run_memo`, a file read before in this process is not read again."""
    key = _memo_key(path)
    if key is None:
        return _load_file(path)
    assert _MEMO is not None
    inv = _MEMO.get(key)
    if inv is None:
        inv = _MEMO[key] = _load_file(path, key)
        _KEYS[path] = key
    return inv


def _load_file(path: str, key: tuple[object, ...] | None = None) -> Inventory:
    name = "<stdin>" if path == "-" else path
    try:
        if path.endswith(PROGRAM_ENDS) or "ockerfile" in path or "ontainerfile" in path:
            from .programs import is_program

            if is_program(path):
                return _program(path)
        text = read_text(path)
        if key is not None and any(m in text for m in GITOPS_MARKS):
            _MEMO_TEXT[key] = text
    except InputError as e:
        inv = Inventory(sources=[name])
        inv.errors.append(e)
        return inv
    if path == "-" and not text.strip():
        # `helm template … | shardwise lint -` where helm failed: a step without `set -o pipefail` (a GitHub
        # Actions `run:` with no `shell:` is `bash -e`) sees only shardwise's status, so reading nothing
        # must not pass the gate
        inv = Inventory(sources=[name])
        inv.errors.append(InputError(
            "standard input is empty: nothing was linted (did the command before the pipe fail? "
            "run the pipe under set -o pipefail)", name))
        return inv
    return load_text(text, name)

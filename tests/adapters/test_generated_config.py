"""A kustomization not built (met while searching) makes the ConfigMaps of its configMapGenerator known, so a
Deployment's mounted vLLM ``--config`` file from one is read (corpus32; the fixture SW004/config-generator/ reads
the whole folder). Kustomization shapes from kustomize's configMapGenerator documentation: ``KEY=PATH`` and bare
``PATH`` files, ``KEY=VALUE`` literals, ``behavior: merge`` in an overlay."""

from __future__ import annotations

import pathlib

from shardwise.rules.adapters.generated import generated_config_maps


def _kustomization(folder: pathlib.Path, text: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kustomization.yaml").write_text(text)
    return str(folder / "kustomization.yaml")


def test_files_and_literals_make_the_config_map(tmp_path: pathlib.Path) -> None:
    (tmp_path / "vllm-config.yaml").write_text("model: Qwen/Qwen2.5-7B-Instruct\n")
    (tmp_path / "chat.jinja").write_text("{{ messages }}\n")
    k = _kustomization(tmp_path, "namespace: ai\nconfigMapGenerator:\n  - name: vllm-config\n    files:\n"
                                 "      - config.yaml=vllm-config.yaml\n      - chat.jinja\n"
                                 "    literals:\n      - LOG_LEVEL=debug\n      - 'ARGS=\"--a=b\"'\n")
    [cm] = generated_config_maps([k])
    assert (cm.namespace, cm.name, cm.location.file) == ("ai", "vllm-config", k)
    assert cm.data == {"config.yaml": "model: Qwen/Qwen2.5-7B-Instruct\n", "chat.jinja": "{{ messages }}\n",
                       "LOG_LEVEL": "debug", "ARGS": "--a=b"}


def test_what_is_not_known_here_makes_nothing(tmp_path: pathlib.Path) -> None:
    (tmp_path / "outside.yaml").write_text("model: x\n")
    (tmp_path / "base" / "env").mkdir(parents=True)
    (tmp_path / "base" / "env" / "vllm.env").write_text("A=1\n")
    k = _kustomization(tmp_path / "base", "configMapGenerator:\n"
                                          "  - name: missing\n    files: [config.yaml=not-committed.yaml]\n"
                                          "  - name: outside\n    files: [config.yaml=../outside.yaml]\n"
                                          "  - name: from-env\n    envs: [env/vllm.env]\n"
                                          "  - name: remote\n    files: [c=https://example.com/c.yaml]\n")
    assert generated_config_maps([k]) == []


def test_a_merged_or_replaced_name_stays_unknown(tmp_path: pathlib.Path) -> None:
    (tmp_path / "base" / "c.yaml").parent.mkdir(parents=True)
    (tmp_path / "base" / "c.yaml").write_text("model: a\n")
    base = _kustomization(tmp_path / "base", "namespace: llm\nconfigMapGenerator:\n  - name: c\n    files: [c.yaml]\n"
                                             "  - name: kept\n    namespace: ignored\n    literals: [A=1]\n")
    prod = _kustomization(tmp_path / "prod", "resources: [../base]\nconfigMapGenerator:\n  - name: c\n"
                                             "    behavior: merge\n    literals: [B=2]\n")
    assert [(cm.namespace, cm.name, cm.data) for cm in generated_config_maps([base, prod])] == [
        ("llm", "kept", {"A": "1"})]  # the kustomization's namespace over the generator's own


def test_the_generator_s_own_namespace(tmp_path: pathlib.Path) -> None:
    k = _kustomization(tmp_path, "configMapGenerator:\n  - name: settings\n    namespace: model-serving\n"
                                 "    literals: [instanceType=g6e.12xlarge]\n")
    assert [(cm.namespace, cm.name) for cm in generated_config_maps([k])] == [("model-serving", "settings")]


def test_a_namespace_moves_the_config_map_with_the_files_it_reaches(tmp_path: pathlib.Path) -> None:
    (tmp_path / "deployment.yaml").write_text("kind: Deployment\n")
    (tmp_path / "c.yaml").write_text("model: a\n")
    k = _kustomization(tmp_path, "namespace: llm\nresources: [deployment.yaml]\n"
                                 "configMapGenerator:\n  - name: c\n    files: [c.yaml]\n")
    readers = {str(tmp_path / "deployment.yaml"): {"default"}, str(tmp_path / "other.yaml"): {"elsewhere"}}
    assert [(cm.namespace, cm.name) for cm in generated_config_maps([k], readers)] == [("llm", "c"), ("default", "c")]


def test_a_hashed_name_is_met_only_by_the_files_the_kustomization_reaches(tmp_path: pathlib.Path) -> None:
    """review30: kustomize appends the data's hash to a generated ConfigMap's name (vllm-config-<hash>) and rewrites
    only the references of the objects it builds (kustomize api/filters/nameref, the generator's
    ``options.disableNameSuffixHash`` or the kustomization's ``generatorOptions``, either of which turns it off:
    api/types/generatoroptions.go MergeGlobalOptionsIntoLocal, "a local false cannot override a global true"). A
    Deployment another kustomization reaches, or none, that names ``vllm-config`` meets another ConfigMap."""
    (tmp_path / "deployment.yaml").write_text("kind: Deployment\n")
    (tmp_path / "c.yaml").write_text("model: a\n")
    k = _kustomization(tmp_path, "resources: [deployment.yaml]\nconfigMapGenerator:\n  - name: c\n    files: [c.yaml]\n"
                                 "  - name: d\n    options: {disableNameSuffixHash: true}\n    literals: [A=1]\n")
    assert [(cm.name, cm.seen_by) for cm in generated_config_maps([k])] == [
        ("c", frozenset({str(tmp_path / "deployment.yaml")})), ("d", None)]
    g = _kustomization(tmp_path / "g", "generatorOptions:\n  disableNameSuffixHash: true\n"
                                       "configMapGenerator:\n  - name: e\n    options: {disableNameSuffixHash: false}\n"
                                       "    literals: [A=1]\n")
    assert [(cm.name, cm.seen_by) for cm in generated_config_maps([g])] == [("e", None)]


def test_a_workload_no_generating_kustomization_reaches_keeps_its_config_unknown(tmp_path: pathlib.Path) -> None:
    """review30: searched, app-a's Deployment (no kustomization) read app-b's generated vllm-config, which the cluster
    holds as vllm-config-<hash> only for app-b's build; app-b's own Deployment reads it."""
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.model import is_unknown

    def deployment(name: str) -> str:
        return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n"
                f"  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n"
                f"    metadata: {{labels: {{app: {name}}}}}\n    spec:\n"
                "      nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}\n      containers:\n"
                "        - name: vllm\n          image: vllm/vllm-openai:v0.11.0\n"
                "          command: [vllm, serve, --config, /etc/vllm/config.yaml]\n"
                "          resources: {limits: {nvidia.com/gpu: 1}}\n"
                "          volumeMounts: [{name: c, mountPath: /etc/vllm/config.yaml, subPath: config.yaml}]\n"
                "      volumes: [{name: c, configMap: {name: vllm-config}}]\n")

    (tmp_path / "app-a").mkdir()
    (tmp_path / "app-a" / "deployment.yaml").write_text(deployment("a"))
    (tmp_path / "app-b").mkdir()
    (tmp_path / "app-b" / "deployment.yaml").write_text(deployment("b"))
    (tmp_path / "app-b" / "vllm-config.yaml").write_text("model: Qwen/Qwen2.5-7B-Instruct\n")
    _kustomization(tmp_path / "app-b", "resources: [deployment.yaml]\nconfigMapGenerator:\n  - name: vllm-config\n"
                                       "    files: [config.yaml=vllm-config.yaml]\n")
    inv = load_inputs([str(tmp_path)])
    models = {g.name: g.engine.model for g in inv.groups}
    assert models["b"] == "Qwen/Qwen2.5-7B-Instruct"
    assert is_unknown(models["a"])


def test_a_name_an_overlay_patches_as_a_config_map_stays_unknown(tmp_path: pathlib.Path) -> None:
    """review30: an overlay whose patches (a target of kind ConfigMap, a strategic merge patch of one, a target of no
    kind, a name as kustomize's anchored regular expression) or replacements may change a base's generated ConfigMap
    builds other data than the generator gives: the name stays unknown, as a merged one does. kustomize v5.8.1 builds
    the JSON 6902 shapes here (of kind ConfigMap, and of no kind with a name pattern) into the overlay's data."""
    (tmp_path / "base").mkdir()
    for name in ("a", "b", "c", "d", "e", "kept"):
        (tmp_path / "base" / f"{name}.yaml").write_text("model: a\n")
    base = _kustomization(tmp_path / "base", "configMapGenerator:\n" + "".join(
        f"  - name: vllm-{name}\n    files: [config.yaml={name}.yaml]\n" for name in ("a", "b", "c", "d", "e", "kept")))
    replace = "    patch: |-\n      - op: replace\n        path: /data/config.yaml\n        value: 'model: b'\n"
    prod = _kustomization(tmp_path / "prod", (
        "resources: [../base]\npatches:\n"
        "  - target: {kind: ConfigMap, name: vllm-a}\n" + replace +
        "  - patch: |-\n      kind: ConfigMap\n      metadata: {name: vllm-b}\n      data: {config.yaml: 'model: b'}\n"
        "  - target: {name: vllm-c.*}\n" + replace +
        "  - target: {kind: Deployment, name: vllm-kept}\n" + replace +
        "replacements:\n  - source: {kind: Deployment, name: x}\n"
        "    targets: [{select: {kind: ConfigMap, name: 'vllm-(d|e)'}, fieldPaths: [data.x]}]\n"))
    assert [cm.name for cm in generated_config_maps([base])] == [f"vllm-{n}" for n in ("a", "b", "c", "d", "e", "kept")]
    assert [cm.name for cm in generated_config_maps([base, prod])] == ["vllm-kept"]


def test_a_name_a_replacement_file_or_a_transformer_may_change_stays_unknown(tmp_path: pathlib.Path) -> None:
    """review32: a replacement held in a file (``replacements: [{path: replacement.yaml}]``, kustomize's site docs,
    Reference/API/replacements) and a ``transformers`` configuration (a PatchTransformer of the ConfigMap, a
    ReplacementTransformer, a file not read, a strategic merge patch transformer that may patch any) change the data
    of a base's generated ConfigMap as inline patches do; a transformer of labels or names changes no data."""
    (tmp_path / "base").mkdir()
    names = ("a", "b", "c", "kept")
    for name in names:
        (tmp_path / "base" / f"{name}.yaml").write_text("model: a\n")
    base = _kustomization(tmp_path / "base", "configMapGenerator:\n" + "".join(
        f"  - name: vllm-{name}\n    files: [config.yaml={name}.yaml]\n" for name in names))
    prod = _kustomization(tmp_path / "prod", "resources: [../base]\nreplacements:\n  - path: replacement.yaml\n"
                                             "transformers: [labels.yaml, patch.yaml, replace.yaml]\n")
    (tmp_path / "prod" / "replacement.yaml").write_text(
        "source: {kind: Deployment, name: x, fieldPath: metadata.name}\n"
        "targets:\n  - select: {kind: ConfigMap, name: vllm-a}\n    fieldPaths: [data.config\\.yaml]\n"
        "  - select: {kind: Deployment, name: vllm-kept}\n    fieldPaths: [metadata.name]\n")
    (tmp_path / "prod" / "labels.yaml").write_text(
        "apiVersion: builtin\nkind: LabelTransformer\nmetadata: {name: l}\nlabels: {env: prod}\n"
        "fieldSpecs: [{path: metadata/labels, create: true}]\n")
    (tmp_path / "prod" / "patch.yaml").write_text(
        "apiVersion: builtin\nkind: PatchTransformer\nmetadata: {name: p}\ntarget: {kind: ConfigMap, name: vllm-b}\n"
        "patch: '[{\"op\": \"replace\", \"path\": \"/data/config.yaml\", \"value\": \"model: b\"}]'\n")
    (tmp_path / "prod" / "replace.yaml").write_text(
        "apiVersion: builtin\nkind: ReplacementTransformer\nmetadata: {name: r}\nreplacements:\n"
        "  - source: {kind: Deployment, name: x}\n    targets: [{select: {kind: ConfigMap, name: vllm-c}, "
        "fieldPaths: [data.x]}]\n")
    assert [cm.name for cm in generated_config_maps([base, prod])] == ["vllm-kept"]
    smp = _kustomization(tmp_path / "smp", "resources: [../base]\ntransformers: [smp.yaml]\n")
    (tmp_path / "smp" / "smp.yaml").write_text(
        "apiVersion: builtin\nkind: PatchStrategicMergeTransformer\nmetadata: {name: s}\npaths: [cm.yaml]\n")
    assert [cm.name for cm in generated_config_maps([base, smp])] == []
    missing = _kustomization(tmp_path / "missing", "resources: [../base]\nreplacements: [{path: gone.yaml}]\n")
    assert [cm.name for cm in generated_config_maps([base, missing])] == []

"""Program sources that deploy vLLM are never passed over unseen (progsrc13; Terraform's ``*.tf`` before them,
corpus13): a searched folder takes Jsonnet, CUE, KCL and Dockerfiles, and TypeScript, JavaScript, Python and Go only
beside a Pulumi.yaml or under a cdk.json / cdk8s.yaml, reads the head of each and skips it with what to lint instead,
naming the line that starts vLLM. A file named on the command line gets the same reason, never a YAML parse error."""

from __future__ import annotations

import os

from repo_paths import FIXTURES
from shardwise.rules.adapters import read_inputs
from shardwise.rules.adapters.load import load_file
from shardwise.rules.adapters.programs import HEAD_BYTES

DIR = os.path.join(FIXTURES, "inputs", "programs")
PULUMI = "lint the program's `pulumi preview --json` output or its `pulumi stack export`, which shardwise reads"
NO_PROGRAM = "shardwise reads no program source, so that server is not linted; "
EXPECTED = [
    ("cdk8s/cdk8s.yaml", "cdk8s project file"),
    ("cdk8s/main.ts", "cdk8s app in TypeScript that starts vLLM (`vllm/vllm-openai` at line 20): " + NO_PROGRAM
     + "lint what `cdk8s synth` writes (the manifests in dist/)"),
    ("docker/Dockerfile", "Dockerfile that starts vLLM (`\"vllm\", \"serve\"` at line 10): it builds a container "
     "image, not a deployment, so that server is not linted here; lint the Kubernetes manifest that runs the image "
     "(its flags, GPUs and probes are there)"),
    ("docker/Dockerfile.proxy", "Dockerfile (a container image, not a deployment)"),
    ("jsonnet/labels.libsonnet", "Jsonnet library source (program source is not read)"),
    ("jsonnet/vllm.jsonnet", "Jsonnet source that starts vLLM (`vllm/vllm-openai` at line 17): " + NO_PROGRAM
     + "lint its output (`jsonnet -y FILE`)"),
    ("pulumi-ts/Pulumi.yaml", "Pulumi project file"),
    ("pulumi-ts/config.ts", "Pulumi program in TypeScript (program source is not read: lint its `pulumi preview --json` output)"),
    ("pulumi-ts/index.ts", "Pulumi program in TypeScript that starts vLLM (`vllm/vllm-openai` at line 21): "
     + NO_PROGRAM + PULUMI),
    ("pulumi-yaml/Pulumi.yaml", "Pulumi YAML program that starts vLLM (`vllm/vllm-openai` at line 22): shardwise "
     "does not run the program, so that server is not linted; " + PULUMI),
]


def test_a_searched_folder_skips_program_sources_with_what_to_lint_instead():
    inv = read_inputs([DIR], jobs=1)
    assert inv.groups == [] and inv.errors == [] and inv.launch_issues == []
    assert [(os.path.relpath(f, DIR), why) for f, why in inv.skipped_files] == EXPECTED
    # scripts/bench.py runs `vllm serve` but lies in no Pulumi, CDK or cdk8s project: a search does not open it
    assert not any(f.endswith(".py") for f in [*inv.sources, *(f for f, _ in inv.skipped_files)])


def test_a_program_source_named_is_skipped_the_same_way_not_a_yaml_error():
    for name, why in EXPECTED:
        if name.endswith((".ts", ".jsonnet", ".libsonnet")) or "Dockerfile" in name:
            inv = load_file(os.path.join(DIR, name))
            assert inv.errors == [] and inv.groups == []
            assert inv.skipped_files == [(os.path.join(DIR, name), why)]
    path = os.path.join(DIR, "scripts", "bench.py")
    assert load_file(path).skipped_files == [(path, (
        "Python source that starts vLLM (`\"vllm\", \"serve\"` at line 4): " + NO_PROGRAM + "lint what the program "
        "deploys, rendered: a Pulumi program's `pulumi preview --json` output or `pulumi stack export` (which "
        "shardwise reads), `cdk8s synth` output, or the manifests as YAML"))]


def test_a_cdk_app_in_a_package_folder_below_cdk_json(tmp_path):
    (tmp_path / "cdk.json").write_text('{"app": "python3 app.py"}\n', encoding="utf-8")
    (tmp_path / "app.py").write_text("import aws_cdk as cdk\napp = cdk.App()\n", encoding="utf-8")
    (tmp_path / "llm").mkdir()
    (tmp_path / "llm" / "stack.py").write_text(
        'cluster.add_manifest("vllm", {"apiVersion": "apps/v1", "kind": "Deployment",\n'
        '    "spec": {"template": {"spec": {"containers": [{"image": "vllm/vllm-openai:v0.11.0"}]}}}})\n',
        encoding="utf-8")
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert [(os.path.relpath(f, tmp_path), why) for f, why in inv.skipped_files] == [
        ("app.py", "AWS CDK app in Python (program source is not read)"),
        ("cdk.json", "AWS CDK project file"),
        ("llm/stack.py", "AWS CDK app in Python that starts vLLM (`vllm/vllm-openai` at line 2): " + NO_PROGRAM
         + "`cdk synth` writes a CloudFormation template, which shardwise does not read: lint the Kubernetes "
         "manifests the app applies, written as YAML")]


def test_only_the_head_of_a_program_source_is_read(tmp_path):
    path = tmp_path / "big.jsonnet"
    path.write_text("// generated\n" + "{}\n" * HEAD_BYTES + "{ image: 'vllm/vllm-openai:v0.11.0' }\n",
                    encoding="utf-8")
    assert load_file(str(path)).skipped_files == [(str(path), "Jsonnet source (program source is not read)")]


def test_a_comment_that_names_vllm_starts_nothing(tmp_path):
    jsonnet = tmp_path / "a.jsonnet"
    jsonnet.write_text("// see vllm/vllm-openai\nlocal x = 1;\n", encoding="utf-8")
    docker = tmp_path / "Containerfile"
    docker.write_text("# FROM vllm/vllm-openai later\nFROM python:3.12\n", encoding="utf-8")
    assert load_file(str(jsonnet)).skipped_files == [(str(jsonnet), "Jsonnet source (program source is not read)")]
    assert load_file(str(docker)).skipped_files == [(str(docker), "Dockerfile (a container image, not a deployment)")]


def test_cue_and_kcl_say_what_to_lint(tmp_path):
    cue = tmp_path / "vllm.cue"
    cue.write_text('package llm\n\ndeployment: vllm: spec: template: spec: containers: [{\n'
                   '\timage: "vllm/vllm-openai:v0.11.0"\n}]\n', encoding="utf-8")
    kcl = tmp_path / "main.k"
    kcl.write_text('import k8s.api.apps.v1 as apps\n\napps.Deployment {\n    metadata.name = "vllm"\n'
                   '    spec.template.spec.containers = [{name = "vllm", image = "vllm/vllm-openai:v0.11.0"}]\n}\n',
                   encoding="utf-8")
    assert load_file(str(cue)).skipped_files == [(str(cue), (
        "CUE source that starts vLLM (`vllm/vllm-openai` at line 4): " + NO_PROGRAM
        + "lint what `cue export --out yaml` prints"))]
    assert load_file(str(kcl)).skipped_files == [(str(kcl), (
        "KCL source that starts vLLM (`vllm/vllm-openai` at line 5): " + NO_PROGRAM + "lint what `kcl run` prints"))]


def test_a_pulumi_program_of_shardwise_components_says_they_check_it_when_it_runs(tmp_path):
    """newuser12: a Pulumi program of the components (docs/pulumi.md's shape) was skipped as "shardwise reads no
    program source, so that server is not linted", as if no rule judged it; its VllmService raises an ArgumentsError
    (SW104 for a 7B model at TP2 on L40S) when `pulumi preview` runs it. The reason says so, whether or not the
    program names the vLLM image; a program that does not import the components keeps the reason it had."""
    (tmp_path / "Pulumi.yaml").write_text("name: serving\nruntime: python\n", encoding="utf-8")
    (tmp_path / "__main__.py").write_text(
        "import pulumi\nfrom shardwise.components import VllmService, VllmServiceArgs\n\n"
        "svc = VllmService('qwen', VllmServiceArgs(name='qwen', image='vllm/vllm-openai:v0.8.5',\n"
        "    engine={'model': 'Qwen/Qwen2.5-7B-Instruct', 'tensor_parallel_size': 2}))\n", encoding="utf-8")
    (tmp_path / "other.py").write_text(
        "# from shardwise.components import VllmService (a comment)\nimport pulumi_kubernetes as k8s\n"
        "k8s.apps.v1.Deployment('x', spec={'template': {'spec': {'containers': [{'image': 'vllm/vllm-openai'}]}}})\n",
        encoding="utf-8")
    (tmp_path / "pools.py").write_text("from shardwise import components as sw\n", encoding="utf-8")
    inv = read_inputs([str(tmp_path)], jobs=1)
    uses = ("Pulumi program in Python that uses shardwise's components (`shardwise.components` at line {}): they check "
            "their arguments with these rules when the program runs, so `pulumi preview` fails on a blocking finding "
            "(an ArgumentsError naming the argument); shardwise reads no program source: lint its `pulumi preview "
            "--json` output with the rest to judge what it deploys beside the other inputs")
    assert [(os.path.relpath(f, tmp_path), why) for f, why in inv.skipped_files] == [
        ("Pulumi.yaml", "Pulumi project file"),
        ("__main__.py", uses.format(2)),
        ("other.py", "Pulumi program in Python that starts vLLM (`vllm/vllm-openai` at line 3): " + NO_PROGRAM + PULUMI),
        ("pools.py", uses.format(1)),
    ]


def _notebook(cells: list[tuple[str, list[str]]]) -> str:
    """A Jupyter notebook as nbformat 4 writes it (json.dumps, indent 1): each source line on a line of its own."""
    import json

    return json.dumps({"cells": [{"cell_type": kind, "id": f"c{n}", "metadata": {}, "source": source,
                                  **({"execution_count": None, "outputs": []} if kind == "code" else {})}
                                 for n, (kind, source) in enumerate(cells)],
                       "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
                       "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def test_a_jupyter_notebook_is_never_passed_over_unseen(tmp_path):
    """corpus37 (mjhermanson-nv/dynamo-grove-brev's labs, in their shape): a notebook whose %%bash cell applies a vLLM
    Deployment from a here-document was neither read nor counted by a searched folder; it is skipped now with the line
    of the file that mentions vLLM (nbformat writes each source line on a line of its own) and what to lint instead.
    One that mentions no vLLM is counted as a notebook not read."""
    deploy = tmp_path / "lab1.ipynb"
    deploy.write_text(_notebook([
        ("markdown", ["## Deploy the model\n", "\n", "Apply the Deployment, then wait for its pod.\n"]),
        ("code", ["%%bash\n", "cat <<EOF | kubectl apply -n llm -f -\n", "apiVersion: apps/v1\n", "kind: Deployment\n",
                  "metadata:\n", "  name: qwen\n", "spec:\n", "  template:\n", "    spec:\n", "      containers:\n",
                  "      - name: vllm\n", "        image: vllm/vllm-openai:v0.10.1\n", "EOF"]),
    ]), encoding="utf-8")
    plots = tmp_path / "plots.ipynb"
    plots.write_text(_notebook([("code", ["import matplotlib.pyplot as plt\n", "plt.plot([1, 2])"])]),
                     encoding="utf-8")
    line = deploy.read_text(encoding="utf-8").splitlines().index('    "        image: vllm/vllm-openai:v0.10.1\\n",') + 1
    assert line == 29
    inv = read_inputs([str(tmp_path)], jobs=1)
    assert inv.groups == [] and inv.errors == [] and inv.sources == []
    assert sorted(inv.skipped_files) == [
        (str(deploy), "Jupyter notebook that mentions vLLM (`vllm/vllm-openai` at line 29): shardwise reads no "
                      "notebook, so a server its cells start, or a manifest they apply, is not linted; save the "
                      "manifests its cells apply as files and lint them (a cell's `kubectl apply -f FILE` names one; "
                      "a here-document fed to kubectl apply is one)"),
        (str(plots), "Jupyter notebook (not read)"),
    ]

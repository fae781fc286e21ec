"""The input layer of ``shardwise lint``: one bad input never hides the rest, files that are not inputs
are skipped and counted, exclusion patterns, several reports from one run.

Every input here is written for the test in the shape real repositories have (Helm output with
``# Source:`` comments, a chart directory, Pulumi projects, CI files); each assertion is the exact line,
count or message a user sees.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import jsonschema
import pytest
import yaml
from repo_paths import ROOT, SCHEMAS
from shardwise.rules.adapters import load_inputs, read_inputs
from shardwise.rules.adapters.kinds import ANSIBLE, ANSIBLE_VAULT, HELM_INDEX, OMNI, SKYSHIFT, TALOS, YAMALE
from shardwise.rules.adapters.select import Excludes, compile_pattern, select_inputs, skipped_by_name
from shardwise.rules.app.cli import main
from shardwise.rules.model.errors import InputError

SCHEMA = json.loads((SCHEMAS / "sarif-2.1.0-trimmed.json").read_text())


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


def put(root: Path, rel: str, text: str) -> str:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return rel


def lint(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(["lint", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def vllm_deployment(name: str, gpus: str = "1") -> str:
    """A vLLM Deployment on one L40S (g6e.xlarge) that no capacity rule blocks (13 lines)."""
    return textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: {name}, namespace: serving}}
        spec:
          replicas: 2
          template:
            spec:
              nodeSelector: {{node.kubernetes.io/instance-type: g6e.xlarge}}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192", --max-num-seqs, "16"]
                  resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}
        """)


# Helm output: a Secret whose placeholder was never rendered, then the serving Deployment.
HELM_OUTPUT = """\
---
# Source: llm/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata: {name: hf-token}
stringData:
  token: {{ .Values.hfToken }}
---
# Source: llm/templates/deployment.yaml
""" + vllm_deployment("llama8b")


# ------------------------------------------------------------------------- never abort: documents


def test_a_broken_document_is_an_error_and_the_others_are_linted(work, capsys):
    put(work, "rendered.yaml", HELM_OUTPUT)
    rc, out, err = lint(capsys, "rendered.yaml", "--format", "json")
    doc = json.loads(out)
    assert rc == 2
    assert doc["input_errors"] == [{
        "file": "rendered.yaml", "line": 7,
        "message": "cannot parse YAML: a template placeholder {{ … }} is not YAML; render the template first "
                   "(helm template …)",
    }]
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment serving/llama8b"]
    assert doc["summary"]["workloads"] == 1
    assert err.splitlines()[0] == (
        "shardwise: error: rendered.yaml:7: cannot parse YAML: a template placeholder {{ … }} is not YAML; "
        "render the template first (helm template …)")


def test_the_same_file_read_strictly_raises_the_error():
    path = ROOT / "tests" / "fixtures"  # any real directory: the strict reader still stops at the first error
    with pytest.raises(InputError) as err:
        load_inputs([str(path / "no-such.yaml")])
    assert str(err.value) == f"{path / 'no-such.yaml'}: no such file or directory"


def test_an_object_that_is_an_input_error_does_not_hide_its_neighbours(work, capsys):
    bad = vllm_deployment("broken", gpus='"two"')
    put(work, "two.yaml", vllm_deployment("good") + "---\n" + bad)
    rc, out, _ = lint(capsys, "two.yaml", "--format", "json")
    doc = json.loads(out)
    assert rc == 2
    assert doc["input_errors"] == [
        {"file": "two.yaml", "line": 27, "message": "resources.limits.nvidia.com/gpu: expected a whole number, "
                                                    "got 'two' (not a Kubernetes quantity)"}]  # the line of the second container
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment serving/good"]


@pytest.mark.parametrize("doc,message", [
    ("just text\n", "expected a Kubernetes object (a mapping), found a string"),
    ("- a\n- b\n", "expected a Kubernetes object (a mapping), found a list"),
    ("metadata: {name: x}\nspec: {replicas: 1}\n", "object has no apiVersion"),
])
def test_a_document_that_is_not_an_object_next_to_objects_is_an_error(work, capsys, doc, message):
    put(work, "m.yaml", vllm_deployment("good") + "---\n" + doc)
    rc, out, _ = lint(capsys, "m.yaml", "--format", "json")
    d = json.loads(out)
    assert (rc, d["input_errors"], d["summary"]["workloads"]) == (
        2, [{"file": "m.yaml", "line": 15, "message": message}], 1)


def test_several_files_with_errors_are_all_reported_in_input_order(work, capsys):
    put(work, "a/1.yaml", "a: [\n")
    put(work, "a/2.yaml", vllm_deployment("ok"))
    (work / "a" / "3.json").write_bytes(b'{"deployment": {"resources": [], "x": NaN}}\n')
    (work / "a" / "4.yaml").write_bytes(b"apiVersion: v1\nkind: Service\nmetadata: {name: \xe9}\n")
    rc, out, err = lint(capsys, "a")
    assert rc == 2
    assert out.splitlines()[:3] == [
        "a/1.yaml:2:1: error: cannot parse YAML: did not find expected node content",
        "a/3.json:1: error: cannot parse JSON: NaN is not a JSON number (JSON has no NaN or infinity); write a "
        "number, or null",
        "a/4.yaml:3: error: not UTF-8 text: byte 0xE9 at column 18 is not UTF-8; save the file as UTF-8",
    ]
    assert out.splitlines()[-1].startswith("shardwise: 4 files read, 1 workload, ")
    assert out.splitlines()[-1].endswith(" — failed: 3 input errors")


@pytest.mark.slow  # starts processes: in make test, not in the edit loop (make test-fast)
def test_the_parallel_reader_keeps_every_error_and_its_line(tmp_path):
    good = (ROOT / "tests/fixtures/rules/SW104/pass.yaml").read_text(encoding="utf-8")
    for i in range(220):
        (tmp_path / f"{i:04d}.yaml").write_text(good)
    (tmp_path / "0100.yaml").write_text("kind: [broken\n")
    (tmp_path / "0150.yaml").write_text(good + "---\na: 1\na: 2\n")
    one, two = read_inputs([str(tmp_path)], jobs=1), read_inputs([str(tmp_path)], jobs=2)
    # 0150.yaml's last document is read despite its duplicate key: it is no Kubernetes object either
    expected = [(str(tmp_path / "0100.yaml"), 2), (str(tmp_path / "0150.yaml"), len(good.splitlines()) + 2),
                (str(tmp_path / "0150.yaml"), len(good.splitlines()) + 3)]
    assert [(e.file, e.line) for e in one.errors] == [(e.file, e.line) for e in two.errors] == expected
    per_file = [g.name for g in load_inputs([str(ROOT / "tests/fixtures/rules/SW104/pass.yaml")]).groups]
    assert [g.name for g in one.groups] == [g.name for g in two.groups] == per_file * 219  # all but 0100.yaml


# ------------------------------------------------------------------------ files that are not inputs


REPO = {
    "Pulumi.yaml": "name: gpu-infra\nruntime: python\n",
    "Pulumi.prod.yaml": "config:\n  aws:region: us-east-1\n  gpu-infra:environment: production\n",
    "PulumiPolicy.yaml": "runtime: python\ndescription: org policies\n",
    "package.json": '{"name": "infra", "version": "1.0.0", "devDependencies": {"@pulumi/pulumi": "^3"}}\n',
    "kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [deploy/]\n",
    "docker-compose.yml": "services:\n  api: {image: vllm/vllm-openai:v0.11.0}\n",
    ".gitlab-ci.yml": "stages: [lint]\nlint: {script: [shardwise lint deploy/]}\n",
    "charts/llm/Chart.yaml": "apiVersion: v2\nname: llm\nversion: 0.3.1\n",
    "charts/llm/values.yaml": "replicaCount: 2\nmodel: meta-llama/Llama-3.1-8B-Instruct\n",
    "charts/llm/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
                                            "  name: {{ include \"llm.fullname\" . }}\n",
    "charts/llm/files/runtime.yaml": "apiVersion: serving.kserve.io/v1alpha1\nkind: ClusterServingRuntime\n"
                                     "metadata:\n  name: {{ .Values.runtime.name }}\n",
    "ci/pipeline.yml": "on:\n  pull_request:\njobs:\n  lint: {runs-on: ubuntu-latest}\n",
    "ci/compose.dev.yaml": "services:\n  web: {build: .}\n",
    "meta/chart-copy.yaml": "apiVersion: v2\nname: llm\nversion: 0.3.1\n",
    "meta/kustomize-base.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Component\n",
    "meta/app-config.yaml": "log_level: debug\nfeatures: [a, b]\n",
    "meta/other-stack.yaml": "config:\n  myapp:environment: staging\n",
    "meta/report.json": '{"tool": "x", "results": [1, 2]}\n',
}


#: REPO's docker-compose.yml runs the vLLM image: its skip reason says so (mend4)
COMPOSE_VLLM = ("Docker Compose file that starts vLLM (`vllm/vllm-openai` at line 2): shardwise reads no Compose "
                "service, so that server is not linted; a Kubernetes manifest of it can be (written by hand, or by "
                "`kompose convert`)")


def test_files_that_are_not_inputs_are_skipped_and_counted(work, capsys):
    for rel, text in REPO.items():
        put(work, rel, text)
    put(work, "deploy/llama8b.yaml", vllm_deployment("llama8b"))
    # building what the search meets switched off, as without helm and kustomize on PATH: with them, the root
    # kustomization (`resources: [deploy/]`, a folder with no kustomization) and the chart (an include of a template
    # it does not define) fail to build, each an advisory SW005 that says so (tests/adapters/test_found_builds.py)
    rc, out, err = lint(capsys, ".", "--format", "json", "--no-build-found")
    doc = json.loads(out)
    assert (rc, err.splitlines()[0]) == (0, (
        "shardwise: 1 file read, 1 workload, 0 mandatory findings, 1 advisory finding, 0 suppressed; skipped 18 files that "
        "are not inputs: CI configuration×2, Helm chart metadata×2, Kustomize file×2, "
        "Pulumi stack configuration with no `<project>:environment` (no stack of shardwise's components)×2, "
        f"Docker Compose file×1, {COMPOSE_VLLM}×1, Helm chart file (not rendered)×1, "
        "Helm chart template (not rendered)×1, Helm values×1, "
        "JSON that is not a Kubernetes object nor a Pulumi preview or state file×1, Node.js project file×1, "
        "Pulumi policy pack project×1, Pulumi project file×1, YAML that is not a Kubernetes object×1 (charts and "
        "kustomizations found by searching a folder and not built (no tool, a failed build, --no-build-found) are "
        "not rendered: name their folder, or pipe helm template or "
        "kustomize build to shardwise lint -) — passed"))
    assert doc["skipped_files"] == [
        {"file": ".gitlab-ci.yml", "reason": "CI configuration"},
        {"file": "Pulumi.prod.yaml", "reason": "Pulumi stack configuration with no `<project>:environment` (no stack of shardwise's components)"},
        {"file": "Pulumi.yaml", "reason": "Pulumi project file"},
        {"file": "PulumiPolicy.yaml", "reason": "Pulumi policy pack project"},
        {"file": "docker-compose.yml", "reason": COMPOSE_VLLM},
        {"file": "kustomization.yaml", "reason": "Kustomize file"},
        {"file": "package.json", "reason": "Node.js project file"},
        {"file": "charts/llm/Chart.yaml", "reason": "Helm chart metadata"},
        {"file": "charts/llm/values.yaml", "reason": "Helm values"},
        {"file": "charts/llm/files/runtime.yaml", "reason": "Helm chart file (not rendered)"},
        {"file": "charts/llm/templates/deployment.yaml", "reason": "Helm chart template (not rendered)"},
        {"file": "ci/compose.dev.yaml", "reason": "Docker Compose file"},
        {"file": "ci/pipeline.yml", "reason": "CI configuration"},
        {"file": "meta/app-config.yaml", "reason": "YAML that is not a Kubernetes object"},
        {"file": "meta/chart-copy.yaml", "reason": "Helm chart metadata"},
        {"file": "meta/kustomize-base.yaml", "reason": "Kustomize file"},
        {"file": "meta/other-stack.yaml", "reason": "Pulumi stack configuration with no `<project>:environment` (no stack of shardwise's components)"},
        {"file": "meta/report.json", "reason": "JSON that is not a Kubernetes object nor a Pulumi preview or "
                                                 "state file"},
    ]


# nebius/nebius-ps-services examples/inference/vllm/qwen72b-inference-vllm.yaml (Apache-2.0), its shape: a SkyPilot
# task launched on Kubernetes, whose `config:` holds SkyPilot's own settings (the pod it builds)
SKYPILOT_TASK = (
    "name: qwen72b-vllm-serve\n\nresources:\n  cloud: kubernetes\n  image_id: docker:vllm/vllm-openai:v0.11.0\n"
    "  accelerators: H200:8\nnum_nodes: 1\n\nenvs:\n  MODEL_ID: Qwen/Qwen2.5-72B-Instruct\n\n"
    "config:\n  kubernetes:\n    pod_config:\n      spec:\n        nodeSelector:\n"
    "          nvidia.com/gpu.present: \"true\"\n\nrun: |\n  vllm serve \"$MODEL_ID\" --tensor-parallel-size 8\n")


@pytest.mark.parametrize(("text", "reason"), [
    (SKYPILOT_TASK, "SkyPilot task"),
    ("service:\n  readiness_probe: /v1/models\nresources:\n  accelerators: {L4: 1}\n  ports: [8000]\n"
     "run: python -m vllm.entrypoints.openai.api_server --model $MODEL_NAME\n", "SkyPilot task"),
    ("config:\n  aws:region: us-east-1\n  gpu-infra:environment: production\n",
     "Pulumi stack configuration with no `<project>:environment` (no stack of shardwise's components)"),
    ("encryptionsalt: v1:abc\nconfig: {}\n", "Pulumi stack configuration with no `<project>:environment` (no stack of shardwise's components)"),
    ("config:\n  kubernetes: {pod_config: {}}\nlog_level: debug\n", "YAML that is not a Kubernetes object"),
    ("resources:\n  cpus: 2\nrun: make\n", "YAML that is not a Kubernetes object"),
])
def test_a_skypilot_task_is_named_as_one_not_as_a_pulumi_stack_configuration(work, capsys, text, reason):
    """A SkyPilot task is no manifest (SkyPilot builds the pod it launches): skipped as what it is. Its `config:`
    made it read as a Pulumi stack's settings (corpus23, nebius/nebius-ps-services); a Pulumi stack's `config:`
    has namespaced keys (`aws:region`), a SkyPilot task's do not, and a `resources` of SkyPilot's fields with a
    `run` is SkyPilot's alone."""
    put(work, "tasks/serve.yaml", text)
    rc, out, _ = lint(capsys, "tasks/serve.yaml", "--format", "json")
    assert (rc, json.loads(out)["skipped_files"]) == (0, [{"file": "tasks/serve.yaml", "reason": reason}])


# ray-project/ray doc/source/serve/doc_code/pd_dissagregation/nixl_example.yaml (Apache-2.0), its shape: a Ray Serve
# config file of Ray Serve LLM's prefill/decode application, vLLM engine_kwargs in each config
RAY_SERVE_PD = (
    "applications:\n  - args:\n      prefill_config:\n        model_loading_config:\n"
    "          model_id: meta-llama/Llama-3.1-8B-Instruct\n        engine_kwargs:\n          kv_transfer_config:\n"
    "            kv_connector: NixlConnector\n            kv_role: kv_producer\n      decode_config:\n"
    "        model_loading_config:\n          model_id: meta-llama/Llama-3.1-8B-Instruct\n"
    "        engine_kwargs:\n          kv_transfer_config: {kv_connector: NixlConnector, kv_role: kv_consumer}\n"
    "    import_path: ray.serve.llm:build_pd_openai_app\n    name: pd-disaggregation-nixl\n    route_prefix: \"/\"\n")
RAY_SERVE = ("Ray Serve config file (for `serve deploy` or `serve run` on a running Ray cluster, not a Kubernetes object; "
             "the same applications in a KubeRay RayService's serveConfigV2 are read and linted)")


@pytest.mark.parametrize(("text", "reason"), [
    (RAY_SERVE_PD, RAY_SERVE),
    ("proxy_location: EveryNode\nhttp_options: {host: 0.0.0.0, port: 8000}\napplications:\n- name: llm\n"
     "  import_path: ray.serve.llm:build_openai_app\n  args: {llm_configs: [{model_loading_config: {model_id: q}}]}\n",
     RAY_SERVE),
    ("applications: []\n", "YAML that is not a Kubernetes object"),
    ("applications:\n- name: app\n  route_prefix: /\n", "YAML that is not a Kubernetes object"),
])
def test_a_ray_serve_config_file_is_named_as_one(work, capsys, text, reason):
    """A Ray Serve config file (`applications`, each with an `import_path`), for `serve deploy` on a running Ray
    cluster, is no manifest: skipped as what it is, saying that the same applications are linted in a RayService
    (corpus25: ray-project/ray's prefill/decode examples, vLLM engines of Ray Serve LLM, were "YAML that is not a
    Kubernetes object"). An empty list, or applications without an import path, are not read as one."""
    put(work, "serve/config.yaml", text)
    rc, out, _ = lint(capsys, "serve/config.yaml", "--format", "json")
    assert (rc, json.loads(out)["skipped_files"]) == (0, [{"file": "serve/config.yaml", "reason": reason}])


# aws-samples/sample-genai-on-eks (MIT-0), its shape: the workshop's Deployments load s3://${S3_BUCKET_NAME}/...,
# and another of its files writes ${S3_BUCKET_NAME} as a PersistentVolume's bucket, which only envsubst fills
S3_PV = ("apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: s3-bucket-pv}\nspec:\n  capacity: {storage: 30Gi}\n"
         "  accessModes: [ReadOnlyMany]\n  csi:\n    driver: s3.csi.aws.com\n    volumeHandle: s3-csi-bucket-volume\n"
         "    volumeAttributes: {bucketName: '${S3_BUCKET_NAME}'}\n")
S3_DEPLOY = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: mistral}\nspec:\n  selector: {matchLabels: {m: a}}\n"
             "  template:\n    metadata: {labels: {m: a}}\n    spec:\n      containers:\n        - name: vllm\n"
             "          image: vllm/vllm-openai:v0.11.0\n"
             "          args: ['--model=s3://${S3_BUCKET_NAME}/Ministral-3-8B-Instruct-2512/']\n"
             "          resources: {limits: {nvidia.com/gpu: 1}}\n")


def test_a_variable_another_input_writes_where_only_envsubst_fills_it_is_no_crash(work, capsys):
    """corpus23: a ${VAR} of vLLM's args that another file of the inputs writes where nothing but a template tool
    fills it (a PersistentVolume's bucketName) is that tool's variable: the repository's files go through envsubst,
    so SW003 does not block it. Linted alone, the Deployment's file says nothing of the tool, and the crash stands."""
    put(work, "manifests/100-vllm/vllm-deployment.yml", S3_DEPLOY)
    put(work, "manifests/600-finetuning/vllm-with-lora.yaml", S3_PV)

    def sw003(*argv: str) -> list[tuple[str, str]]:
        rc, out, _ = lint(capsys, *argv, "--format", "json")
        return [(f["code"], f["level"]) for f in json.loads(out)["findings"] if f["code"] == "SW003"]

    assert sw003("manifests") == []
    assert sw003("manifests/100-vllm/vllm-deployment.yml") == [("SW003", "mandatory")]
    put(work, "manifests/600-finetuning/vllm-with-lora.yaml", S3_PV.replace("S3_BUCKET_NAME", "OTHER_BUCKET"))
    assert sw003("manifests") == [("SW003", "mandatory")]  # another variable says nothing of this one
    # review23: nor does the variable where a shell runs it (a RayJob's entrypoint: Ray's job manager runs a shell)
    put(work, "manifests/600-finetuning/vllm-with-lora.yaml", "apiVersion: ray.io/v1\nkind: RayJob\n"
        "metadata: {name: sync}\nspec:\n  entrypoint: aws s3 sync s3://${S3_BUCKET_NAME}/models /mnt/models\n")
    assert sw003("manifests") == [("SW003", "mandatory")]


# gnosia93/inference-on-eks's code/eval/vllm-eval.yaml, its shape (a Deployment whose args are `--model=${MODEL}`),
# and the step its lesson runs, here as a deploy script: `envsubst < vllm-eval.yaml > "$manifest"`, then apply it
EVAL_DEPLOY = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm-eval, namespace: llm-eval}\nspec:\n"
               "  selector: {matchLabels: {app: vllm-eval}}\n  template:\n    metadata: {labels: {app: vllm-eval}}\n"
               "    spec:\n      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.11.0\n"
               "          args: ['--model=${MODEL}', '--served-model-name=${MODEL}', --max-model-len=8192]\n"
               "          resources: {limits: {nvidia.com/gpu: 1}}\n")


@pytest.mark.parametrize(("script", "name"), [
    ('#!/bin/bash\nfor m in $MODELS; do\n  export MODEL=$m\n  envsubst < vllm-eval.yaml > "eval-$m.yaml"\n'
     '  kubectl -n llm-eval apply -f "eval-$m.yaml"\ndone\n', "deploy/eval/run.sh"),
    ("#!/bin/sh\nenvsubst <deploy/eval/vllm-eval.yaml | kubectl apply -f -\n", "scripts/up.sh"),
    ("#!/bin/sh\ncat deploy/eval/vllm-eval.yaml | envsubst | kubectl apply -f -\n", "scripts/up.sh"),
])
def test_a_file_a_deploy_script_pipes_through_envsubst_holds_placeholders_not_a_crash(work, capsys, script, name):
    """corpus25: a ${VAR} of vLLM's args in a file that a deploy script of the inputs pipes through envsubst is the
    template's placeholder (the script fills it before kubectl sees it), so SW003 does not block it, whether the
    script names the file from its own folder or from the repository's root. Linted alone, or beside a script that
    pipes another file (or one whose name the shell builds) through envsubst, the crash stands."""
    put(work, "deploy/eval/vllm-eval.yaml", EVAL_DEPLOY)
    put(work, name, script)

    def sw003(*argv: str) -> list[tuple[str, str]]:
        rc, out, _ = lint(capsys, *argv, "--format", "json")
        return [(f["code"], f["level"]) for f in json.loads(out)["findings"] if f["code"] == "SW003"]

    assert sw003(".") == []
    assert sw003("deploy/eval/vllm-eval.yaml") == [("SW003", "mandatory")]
    put(work, name, script.replace("vllm-eval.yaml", "other.yaml"))
    assert sw003(".") == [("SW003", "mandatory")]
    put(work, name, "#!/bin/sh\nenvsubst < \"$DIR/vllm-eval.yaml\" | kubectl apply -f -\n")
    assert sw003(".") == [("SW003", "mandatory")]


@pytest.mark.parametrize("direct", ["kubectl apply -f deploy/eval/vllm-eval.yaml",
                                    "kubectl apply -f deploy/eval/", "kubectl -n llm-eval create -f deploy/eval"])
def test_a_file_a_script_also_applies_as_written_keeps_its_crash(work, capsys, direct):
    """review26: corpus25 drops SW003's crash on a ${VAR} of a file a deploy script pipes through envsubst. Where the
    same script also hands that file to kubectl as written (the file, or its folder: kubectl reads each manifest of a
    folder), that apply sends vLLM --model=${MODEL} unfilled, so the crash stands; a folder's sub-folder (no -R) or
    a commented-out apply does not count."""
    put(work, "deploy/eval/vllm-eval.yaml", EVAL_DEPLOY)

    def sw003(script: str) -> list[tuple[str, str]]:
        put(work, "scripts/up.sh", script)
        rc, out, _ = lint(capsys, ".", "--format", "json")
        return [(f["code"], f["level"]) for f in json.loads(out)["findings"] if f["code"] == "SW003"]

    rendered = "envsubst < deploy/eval/vllm-eval.yaml | kubectl apply -f -\n"
    assert sw003(f"#!/bin/sh\n{direct}\n{rendered}") == [("SW003", "mandatory")]
    assert sw003(f"#!/bin/sh\n# {direct}\n{rendered}") == []
    assert sw003(f"#!/bin/sh\nkubectl apply -f deploy/\n{rendered}") == []


def test_only_files_that_are_not_inputs_is_a_clean_run_with_a_note(work, capsys):
    put(work, "Chart.yaml", REPO["charts/llm/Chart.yaml"])
    put(work, "values.yaml", "replicaCount: 1\n")
    assert lint(capsys, ".") == (0, (
        "shardwise: 0 files read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed; skipped 2 files that are not inputs: Helm chart metadata×1, Helm values×1 — "
        "passed\n"), "")


def test_a_ci_file_named_on_the_command_line_is_skipped_too(work, capsys):
    put(work, ".github/workflows/lint.yml", "on: [pull_request]\njobs: {lint: {runs-on: ubuntu-latest}}\n")
    rc, out, _ = lint(capsys, ".github/workflows/lint.yml")
    assert (rc, out.splitlines()[-1]) == (0, (
        "shardwise: 0 files read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed; skipped 1 file that is not an input: CI configuration×1 — passed"))


LWS_TEMPLATE = (  # aws-samples/aws-do-eks .../nemotron/ultra/agg/lws.yaml-template: envsubst fills it before kubectl apply
    "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: ${DEPLOYMENT_NAME}\n"
    "  labels: { app.kubernetes.io/part-of: ${DEPLOYMENT_NAME}, app.kubernetes.io/component: worker }\n"
    "spec:\n  leaderWorkerTemplate:\n    size: ${NUM_NODES}\n    leaderTemplate:\n      spec:\n        containers:\n"
    "          - name: worker\n            image: ${REGISTRY}${IMAGE}${TAG}\n"
    "            command: [\"python3\", \"-m\", \"dynamo.vllm\", \"--model\", \"${MODEL_NAME}\"]\n"
    "            resources: { limits: { nvidia.com/gpu: ${GPU_PER_WORKER} } }\n")


def test_manifest_templates_met_while_searching_are_skipped_with_the_reason(work, capsys):
    # a manifest kept as a template is not YAML until a tool fills it: searching a folder, it was passed over in
    # silence (no workload, no word); now it is skipped and counted with the reason. Helm's _helpers.tpl and other
    # files are no manifests at all (not counted); a plain manifest beside the templates is still read.
    put(work, "agg/lws.yaml-template", LWS_TEMPLATE)
    put(work, "agg/deployment.yml.tpl", LWS_TEMPLATE)
    put(work, "ansible/pod.yaml.j2", "apiVersion: v1\nkind: Pod\nmetadata: {name: '{{ pod_name }}'}\n")
    put(work, "e2e/lws.yaml.jinja2", "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n"
        "  name: vllm\nspec:\n  replicas: {{ replicas | default(1) }}\n")  # vllm-ascend's nightly multi-node test
    put(work, "charts/llm/templates/_helpers.tpl", "{{- define \"llm.fullname\" -}}llm{{- end }}\n")
    put(work, "agg/README.template", "fill in ${MODEL_NAME}\n")
    put(work, "deploy/llama8b.yaml", vllm_deployment("llama8b"))
    rc, out, _ = lint(capsys, ".", "--format", "json")
    doc = json.loads(out)
    why = ("manifest template (not rendered: fill its placeholders, with envsubst or the tool it is for, and lint "
           "the output)")
    assert (rc, doc["input_errors"], doc["skipped_files"], [w["name"] for w in doc["workloads"]]) == (0, [], [
        {"file": "agg/deployment.yml.tpl", "reason": why},
        {"file": "agg/lws.yaml-template", "reason": why},
        {"file": "ansible/pod.yaml.j2", "reason": why},
        {"file": "e2e/lws.yaml.jinja2", "reason": why}], ["llama8b"])
    rc, out, _ = lint(capsys, "agg/lws.yaml-template", "--format", "json")  # named on the command line: read
    assert (rc, json.loads(out)["skipped_files"]) == (2, [])


#: A vLLM Deployment kept for Terraform's templatefile (corpus38, the shape cloud samples use): ``${...}``
#: interpolations and a ``%{ for }`` directive that writes one list item per extra argument.
TF_TEMPLATE = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  template:\n    spec:\n"
    "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:${vllm_tag}\n          args:\n"
    "            - --model=${model}\n%{ for a in extra_args ~}\n            - \"${a}\"\n%{ endfor ~}\n"
    "          resources:\n            limits:\n              nvidia.com/gpu: ${gpus}\n")


def test_terraform_templates_are_skipped_or_said_to_be_terraform_templates(work, capsys):
    # corpus38: `deploy.yaml.tftpl`, the suffix Terraform's templatefile documentation recommends, was passed over in
    # silence while searching (no workload, no word): it is skipped with the reason, as `deploy.yaml.tpl` is
    put(work, "k8s/vllm.yaml.tftpl", TF_TEMPLATE)
    put(work, "deploy/llama8b.yaml", vllm_deployment("llama8b"))
    rc, out, _ = lint(capsys, ".", "--format", "json")
    doc = json.loads(out)
    why = ("manifest template (not rendered: fill its placeholders, with envsubst or the tool it is for, and lint "
           "the output)")
    assert (rc, doc["input_errors"], doc["skipped_files"], [w["name"] for w in doc["workloads"]]) == (
        0, [], [{"file": "k8s/vllm.yaml.tftpl", "reason": why}], ["llama8b"])
    # the same template named `.yaml` is read, and is no YAML: the error names the Terraform directive, where the
    # parser said "could not find expected directive name" (a `%` opens a YAML directive)
    put(work, "k8s/vllm.yaml", TF_TEMPLATE)
    rc, out, _ = lint(capsys, "k8s/vllm.yaml", "--format", "json")
    assert (rc, json.loads(out)["input_errors"]) == (2, [{
        "file": "k8s/vllm.yaml", "line": 13,
        "message": "cannot parse YAML: a Terraform template directive %{ … } is not YAML; render the template first "
                   "(Terraform's templatefile) and lint what it writes"}])


def test_tool_configurations_with_a_kind_but_no_api_version_are_not_inputs(work, capsys):
    # defenseunicorns/leapfrogai: Zarf's zarf.yaml and UDS CLI's uds-bundle.yaml write `kind:` without `apiVersion`
    # (no Kubernetes object does); they deploy charts, they are no broken manifests (exit 0, skipped with a reason)
    put(work, "packages/vllm/zarf.yaml", "# yaml-language-server: $schema=zarf.schema.json\nkind: ZarfPackageConfig\n"
        "metadata:\n  name: vllm\n  version: \"###ZARF_PKG_TMPL_IMAGE_VERSION###\"\ncomponents:\n  - name: vllm-model\n"
        "    required: true\n    images:\n      - ghcr.io/defenseunicorns/leapfrogai/vllm:###ZARF_PKG_TMPL_IMAGE_VERSION###\n")
    put(work, "bundles/uds-bundle.yaml", "kind: UDSBundle\nmetadata:\n  name: leapfrogai\n  version: dev\npackages:\n"
        "  - name: vllm\n    path: ../../packages/vllm\n    ref: dev\n")
    put(work, "deploy/broken.yaml", "kind: Deployment\nmetadata: {name: x}\nspec: {}\n")
    rc, out, _ = lint(capsys, "packages", "bundles", "--format", "json")
    doc = json.loads(out)
    assert (rc, doc["input_errors"], doc["skipped_files"]) == (0, [], [
        {"file": "packages/vllm/zarf.yaml", "reason": "Zarf package configuration"},
        {"file": "bundles/uds-bundle.yaml", "reason": "UDS bundle configuration"}])
    rc, out, _ = lint(capsys, "deploy/broken.yaml", "--format", "json")  # a Deployment without apiVersion: broken
    assert (rc, [e["message"] for e in json.loads(out)["input_errors"]]) == (2, ["object has no apiVersion"])


def test_grafana_provisioning_files_are_not_broken_manifests(work, capsys):
    # corpus16 (harshit-ojha0324/forge's deploy/local/grafana): Grafana's provisioning files write `apiVersion: 1`
    # (their format's version, a number) and no kind; they were two input errors and exit 2. A Kubernetes object with
    # a number for apiVersion and a kind stays an input error.
    put(work, "deploy/grafana/provisioning/datasources/prometheus.yml", "apiVersion: 1\n\ndatasources:\n"
        "  - name: Prometheus\n    type: prometheus\n    access: proxy\n    url: http://prometheus:9090\n")
    put(work, "deploy/grafana/provisioning/dashboards/dashboards.yml", "apiVersion: 1\n\nproviders:\n"
        "  - name: forge\n    type: file\n    options:\n      path: /var/lib/grafana/dashboards\n")
    put(work, "broken/deployment.yaml", "apiVersion: 1\nkind: Deployment\nmetadata: {name: x}\nspec: {}\n")
    rc, out, _ = lint(capsys, "deploy", "--format", "json")
    doc = json.loads(out)
    assert (rc, doc["input_errors"], doc["skipped_files"]) == (0, [], [
        {"file": "deploy/grafana/provisioning/dashboards/dashboards.yml", "reason": "Grafana provisioning file"},
        {"file": "deploy/grafana/provisioning/datasources/prometheus.yml", "reason": "Grafana provisioning file"}])
    rc, out, _ = lint(capsys, "broken", "--format", "json")
    assert (rc, [e["message"] for e in json.loads(out)["input_errors"]]) == (
        2, ["apiVersion: expected a string, found a number"])


def test_a_shardwise_stack_of_the_project_is_never_skipped(work, capsys):
    # a stack file whose shardwise:environment went missing is broken, not "another project's"
    put(work, "Pulumi.dev.yaml", "config:\n  aws:region: us-east-1\n  shardwise:cluster: dev\n")
    rc, out, _ = lint(capsys, "Pulumi.dev.yaml", "--format", "json")
    assert (rc, json.loads(out)["input_errors"]) == (2, [{
        "file": "Pulumi.dev.yaml", "line": 1,
        "message": "not a Pulumi stack file with `shardwise:environment` under `config:`"}])


def test_a_stack_in_flow_style_is_a_stack(work, capsys):
    # detected from the parsed document, not a pattern over the text
    block = (ROOT / "stacks" / "Pulumi.staging.yaml").read_text(encoding="utf-8")
    flow = yaml.safe_dump(yaml.safe_load(block), default_flow_style=True, width=10_000, sort_keys=False)
    assert flow.startswith("{config: {")
    put(work, "block/Pulumi.staging.yaml", block)
    put(work, "flow/Pulumi.staging.yaml", flow)
    rc_block, out_block, _ = lint(capsys, "block", "--format", "json")
    rc_flow, out_flow, _ = lint(capsys, "flow", "--format", "json")
    a, b = json.loads(out_block), json.loads(out_flow)
    assert rc_flow == rc_block
    assert [f["code"] for f in b["findings"]] == [f["code"] for f in a["findings"]]
    assert [w["subject"] for w in b["workloads"]] == [w["subject"] for w in a["workloads"]] != []


def test_json_that_looks_like_pulumi_but_is_not_is_an_error(work, capsys):
    put(work, "preview.json", '{"steps": "none", "changeSummary": {}}\n')
    rc, out, _ = lint(capsys, "preview.json", "--format", "json")
    assert (rc, json.loads(out)["input_errors"]) == (2, [{
        "file": "preview.json", "line": 1,
        "message": "looks like a Pulumi preview or state file (deployment, steps or resources) but has no list of "
                   "resources with urn and type; expected `pulumi preview --json` or `pulumi stack export` output"}])


@pytest.mark.parametrize("text", [
    '{"version": 3, "deployment": {"manifest": {}, "resources": {}}}',  # a state whose resources are no list
    '{"steps": [{"urn": "urn:pulumi:dev::p::x::y"}], "runId": 7}',  # a step with no op, beside a key Pulumi does not write
    '{"changeSummary": {"create": 1}, "report": "x"}',
])
def test_json_meant_as_a_pulumi_file_stays_an_error(work, capsys, text):
    # a Pulumi key holding what Pulumi writes there, or only keys Pulumi writes: a broken preview or state file
    put(work, "preview.json", text + "\n")
    rc, out, _ = lint(capsys, "preview.json", "--format", "json")
    assert (rc, [e["message"] for e in json.loads(out)["input_errors"]]) == (2, [
        "looks like a Pulumi preview or state file (deployment, steps or resources) but has no list of resources with "
        "urn and type; expected `pulumi preview --json` or `pulumi stack export` output"])


@pytest.mark.parametrize("text,reason", [
    # a tokenizer vocabulary (gpt2-vocab.json's shape: tokens to ids, Kubernetes' and Pulumi's words among them)
    ('{"!": 0, "kind": 11031, "steps": 20214, "deployment": 10247, "metadata": 38993, "spec": 16684}',
     "JSON table of numbers (a tokenizer vocabulary or an id map), not a Kubernetes object"),
    # Cloud Build's build config: `steps` of builder images
    ('{"steps": [{"name": "gcr.io/cloud-builders/docker", "args": ["build", "-t", "img", "."]}], "timeout": "1200s"}',
     "JSON that is not a Kubernetes object nor a Pulumi preview or state file"),
    # an application's own settings with a `deployment` section
    ('{"deployment": {"replicas": 2, "region": "us-east-1"}, "logging": {"level": "info"}}',
     "JSON that is not a Kubernetes object nor a Pulumi preview or state file"),
])
def test_json_with_a_pulumi_word_of_another_format_is_skipped(work, capsys, text, reason):
    # corpus26: coreweave/kubernetes-cloud's gpt2-vocab.json made its whole folder exit 2 as a broken Pulumi preview
    put(work, "app/settings.json", text + "\n")
    put(work, "app/deploy.yaml", vllm_deployment("chat"))
    rc, out, _ = lint(capsys, "app", "--format", "json")
    doc = json.loads(out)
    assert (rc, doc["input_errors"], doc["skipped_files"]) == (
        0, [], [{"file": "app/settings.json", "reason": reason}])


#: Ciphertext in an Ansible Vault file's shape (hexadecimal, 80 characters a line); random, no vault's
VAULT_HEX = ("c7f5b5df0090f1feb7dee024d3ab4f15c49f85dac1b63a41a6124cc53c4f8cf8d91cf8db8bc892d848afac382e258dca9239"
             "289c80e23a5b4c2a3985119541fc2df0fb18bb300dbbc60362c5145f307e6d564742fb0bfeedfeef86d5b37fd713af152195")


@pytest.mark.parametrize("rel,text,reason", [
    # an agent runtime's registry (the shape of s-aws/vllm-agent-gateway's runtime/*.json: schema_version, a kind in
    # snake_case, its own lists)
    ("runtime/skills.json", '{"schema_version": 1, "kind": "skill_registry", "skills": [{"id": "triage"}]}',
     "JSON that is not a Kubernetes object nor a Pulumi preview or state file"),
    ("runtime/policy.yaml", "schema_version: 1\nkind: release_policy\nrules: [{id: gate}]\n",
     "YAML that is not a Kubernetes object"),
    # Prow's label configuration (.prowlabels.yaml): `kind` is a list of label values
    (".prowlabels.yaml", "kind:\n  - 'bug'\n  - 'feature'\npriority:\n  - 'p0'\n",
     "YAML that is not a Kubernetes object"),
    # a Talos machine configuration (corpus27: talosctl's v1alpha1 document, then a HostnameConfig document)
    ("cluster/controlplane.yaml", "version: v1alpha1\nmachine:\n  type: controlplane\n  token: <GENERATED>\n"
     "cluster:\n  clusterName: lab\n---\napiVersion: v1alpha1\nkind: HostnameConfig\nauto: stable\n", TALOS),
    # a Talos patch of one named document
    ("cluster/patch.yaml", "apiVersion: v1alpha1\nkind: NetworkRuleConfig\nname: ingress\n", TALOS),
    # an Omni cluster template (corpus29: a home cluster's bootstrap/omni/cluster-template.yaml, in the shape of
    # docs.siderolabs.com/omni/reference/cluster-templates): a Cluster, its ControlPlane and Workers, a Machine
    ("bootstrap/omni/cluster-template.yaml", "kind: Cluster\nname: lab\nkubernetes:\n  version: v1.33.2\ntalos:\n"
     "  version: v1.10.5\npatches:\n  - idOverride: 050-time-sync\n    inline:\n      machine:\n        time:\n"
     "          bootTimeout: 2m\n---\nkind: ControlPlane\nmachines:\n  - 88d0b080-43be-11ef-9fe8-3b0f229ef000\n---\n"
     "kind: Workers\nmachines:\n  - c1f22c00-4390-11ef-a299-436f6535c900\n---\nkind: Machine\n"
     "name: c1f22c00-4390-11ef-a299-436f6535c900\ninstall:\n  disk: /dev/nvme0n1\n", OMNI),
    # a Helm chart repository's index committed beside the charts it serves (corpus34: `helm repo index` output,
    # apiVersion v1, entries of chart versions with their urls and digest)
    ("charts/index.yaml", "apiVersion: v1\nentries:\n  vllm-server:\n  - apiVersion: v2\n    appVersion: 0.11.0\n"
     "    created: \"2025-10-02T09:14:11.20311Z\"\n    description: vLLM behind an ingress\n"
     "    digest: 6b1f0c3de5b2a4b0e1d3c2a9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b\n    name: vllm-server\n"
     "    type: application\n    urls:\n    - https://example.github.io/charts/vllm-server-0.3.1.tgz\n"
     "    version: 0.3.1\ngenerated: \"2025-10-02T09:14:11.19887Z\"\n", HELM_INDEX),
    # a group_vars file Ansible Vault encrypted whole (corpus34: `ansible-vault encrypt`'s header and hex lines)
    ("ansible/group_vars/all/vault.yml", "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join([VAULT_HEX[i:i + 80] for i in
     range(0, len(VAULT_HEX), 80)]) + "\n", ANSIBLE_VAULT),
    ("ansible/host_vars/gpu1.yml", "$ANSIBLE_VAULT;1.2;AES256;prod\n" + VAULT_HEX[:80] + "\n", ANSIBLE_VAULT),
    # chart-testing's Yamale schema for Chart.yaml at a chart repository's root, beside ct.yaml (corpus40: the shape
    # of helm/chart-testing's etc/chart_schema.yaml: `apiVersion: str()`, then the definitions it includes)
    ("chart_schema.yaml", "name: str()\nversion: str()\nappVersion: any(str(), num(), required=False)\n"
     "apiVersion: str()\nkeywords: list(str(), required=False)\nmaintainers: list(include('maintainer'), "
     "required=False)\nannotations: map(str(), str(), required=False)\n---\nmaintainer:\n  name: str(required=False)\n"
     "  email: str(required=False)\n---\ndependency:\n  name: str()\n  version: str()\n  tags: list(str(), "
     "required=False)\n", YAMALE),
    # SkyShift's objects (corpus42: sky-shift/skyshift's examples, `skyctl apply -f`): a Job that runs vLLM across
    # its clusters (flat resources naming the accelerator, `run`), a Service of its own spelling, a Cluster, a
    # FilterPolicy with the Job it places, none with an apiVersion
    ("examples/vllm-demo/vllm.yaml", "kind: Job\nmetadata:\n  name: vllm\n  labels:\n    app: vllm\nspec:\n"
     "  replicas: 2\n  image: vllm/vllm-openai:latest\n  resources:\n    cpus: 4\n    L4: 1\n    memory: 12G\n"
     "  ports:\n    - 8000\n  envs:\n    HUGGING_FACE_HUB_TOKEN: \"\"\n  run: |\n"
     "    vllm serve meta-llama/Llama-3.1-8B-Instruct --max_model_len 8000\n  restartPolicy: Always\n", SKYSHIFT),
    ("examples/vllm-demo/vllm_service.yaml", "kind: Service\nmetadata:\n  name: vllm-service\nspec:\n"
     "  type: LoadBalancer\n  primary_cluster: cluster1\n  selector:\n    app: vllm\n  ports:\n"
     "    - protocol: TCP\n      port: 80\n      target_port: 8000\n", SKYSHIFT),
    ("examples/cluster_config.yaml", "kind: Cluster\nmetadata:\n  name: onprem\n  manager_type: kubernetes\n",
     SKYSHIFT),
    ("examples/placement/job.yaml", "kind: FilterPolicy\nmetadata:\n  name: gpu-only\nspec:\n"
     "  cluster_filter:\n    include: [cluster-0]\n---\nkind: Job\nmetadata:\n  name: batch\nspec:\n"
     "  image: ubuntu:latest\n  resources:\n    cpus: 1\n    memory: 128\n  run: sleep 300\n", SKYSHIFT),
])
def test_a_kind_of_another_format_is_not_a_kubernetes_object(work, capsys, rel, text, reason):
    put(work, rel, text)
    put(work, "deploy.yaml", vllm_deployment("chat"))
    rc, out, _ = lint(capsys, ".", "--format", "json")
    doc = json.loads(out)
    assert (rc, doc["input_errors"], doc["skipped_files"]) == (0, [], [{"file": rel, "reason": reason}])


def test_a_v1alpha1_object_with_metadata_is_read_not_skipped_as_talos(work, capsys):
    # Talos's documents carry neither metadata nor spec: an object that does is read as Kubernetes, as before
    put(work, "app.yaml", "apiVersion: v1alpha1\nkind: Deployment\nmetadata:\n  name: x\nspec: {}\n")
    rc, out, _ = lint(capsys, "app.yaml", "--format", "json")
    doc = json.loads(out)
    assert (rc, doc["skipped_files"], doc["summary"]["skipped"]) == (0, [], {"Deployment": 1})


@pytest.mark.parametrize("text,message", [
    ('{"kind": "Deployment", "spec": {"replicas": 1}}', "object has no apiVersion"),  # a Kubernetes kind's name

    ('{"kind": 5, "metadata": {"name": "x"}}', "object has no apiVersion"),  # a kind of the wrong type
])
def test_a_kubernetes_kind_without_api_version_stays_an_error(work, capsys, text, message):
    put(work, "app.json", text)
    rc, out, _ = lint(capsys, "app.json", "--format", "json")
    assert (rc, [e["message"] for e in json.loads(out)["input_errors"]]) == (2, [message])


def test_text_only_headed_as_a_vault_stays_an_error(work, capsys):
    # text that only starts as a vault's header is a manifest mangled, not ciphertext
    put(work, "app.yaml", "$ANSIBLE_VAULT;1.1;AES256 see README for the password\n")
    rc, out, _ = lint(capsys, "app.yaml", "--format", "json")
    assert (rc, [e["message"] for e in json.loads(out)["input_errors"]]) == (
        2, ["expected a Kubernetes object (a mapping), found a string"])


@pytest.mark.parametrize("text", [
    "apiVersion: str()\nkind: str()\nmetadata:\n  name: vllm\n",  # one value is no validator: an object
    "apiVersion: v1\nkind: ConfigMap\ndata:\n  check: str()\n",  # a ConfigMap whose data reads like one
])
def test_a_manifest_with_a_value_that_is_no_validator_is_not_a_yamale_schema(work, capsys, text):
    put(work, "app.yaml", text)
    rc, out, _ = lint(capsys, "app.yaml", "--format", "json")
    assert json.loads(out)["skipped_files"] == []


def test_an_object_with_entries_is_read_not_skipped_as_a_helm_index(work, capsys):
    # a kind (or metadata) makes it an object, whatever its other fields are named
    put(work, "app.yaml", "apiVersion: v1\nkind: Service\nentries:\n  a:\n  - version: 1\n")
    rc, out, _ = lint(capsys, "app.yaml", "--format", "json")
    doc = json.loads(out)
    assert (rc, doc["skipped_files"], doc["summary"]["files"]) == (0, [], 1)


@pytest.mark.parametrize("text", [
    "kind: Machine\nname: worker-1\n",  # an Omni kind alone: no template (no Cluster with Talos's versions)
    "kind: Cluster\nname: lab\nspec:\n  clusterNetwork: {}\n",  # a Cluster API object that lost its apiVersion
    "kind: Cluster\nname: lab\ntalos:\n  version: v1.10.5\n---\nkind: Deployment\nmetadata:\n  name: x\n",
    # Kubernetes objects that lost their apiVersion, in Kubernetes' own fields: no SkyShift object (corpus42)
    "kind: Job\nmetadata:\n  name: x\nspec:\n  template:\n    spec:\n      containers: []\n",
    "kind: Service\nmetadata:\n  name: x\nspec:\n  ports:\n    - port: 80\n      targetPort: 8000\n",
    "kind: Job\nmetadata:\n  name: x\nspec:\n  run: sleep 1\n---\nkind: Deployment\nmetadata:\n  name: y\n",
])
def test_yaml_that_is_no_omni_template_stays_an_error(work, capsys, text):
    put(work, "app.yaml", text)
    rc, out, _ = lint(capsys, "app.yaml", "--format", "json")
    assert (rc, [e["message"] for e in json.loads(out)["input_errors"]][-1:]) == (2, ["object has no apiVersion"])


@pytest.mark.parametrize("rel,reason", [
    ("Chart.yaml", "Helm chart metadata"), ("deploy/kustomization.yml", "Kustomize file"),
    ("infra/Pulumi.yaml", "Pulumi project file"), ("PulumiPolicy.yaml", "Pulumi policy pack project"),
    ("web/package.json", "Node.js project file"), ("docker-compose.prod.yml", "Docker Compose file"),
    ("compose.yaml", "Docker Compose file"), (".pre-commit-config.yaml", "pre-commit configuration"),
    ("repo/.github/workflows/ci.yaml", "CI configuration"), (".shardwise.yaml", "shardwise configuration"),
    ("deploy/app.yaml", None), ("Pulumi.prod.yaml", None), ("values.yaml", None),  # read, and sorted by content
])
def test_skipped_by_name(tmp_path, rel, reason):
    assert skipped_by_name(str(tmp_path / rel)) == reason


#: A Backstage software template in the shape backstage/software-templates and the scaffolder docs write
#: ("Writing Templates": `fetch:template` copies `url: ./skeleton`, filling Nunjucks from `values`).
_BACKSTAGE_TEMPLATE = """\
    apiVersion: scaffolder.backstage.io/v1beta3
    kind: Template
    metadata:
      name: vllm-service
      title: vLLM inference service
    spec:
      owner: platform-team
      type: service
      parameters:
        - title: Model
          required: [name, modelId]
          properties:
            name: {type: string}
            modelId: {type: string}
      steps:
        - id: fetch-base
          name: Fetch Base
          action: fetch:template
          input:
            url: ./skeleton
            values:
              name: ${{ parameters.name }}
              modelId: ${{ parameters.modelId }}
        - id: fetch-docs
          action: fetch:template
          input:
            url: './content'
    """
_SKELETON_DEPLOYMENT = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: ${{ values.name }}
    spec:
      replicas: ${{ values.replicas }}
      template:
        spec:
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.11.0
              args:
                - ${{ values.modelId }}
    {%- if values.enforceEager %}
                - --enforce-eager
    {%- endif %}
    """


def test_a_backstage_skeleton_is_a_template_skipped_with_its_reason(work, capsys):
    """corpus28: a Backstage scaffolder skeleton (`${{ values.name }}`, `{%- if %}`) met while searching made the
    whole repository's run exit 2 ("cannot parse YAML"). It is a template the scaffolder fills, as a chart's
    templates/ are: skipped with that reason, in the folders the template's `fetch:template` steps name (and
    `skeleton/`, the convention), at any depth below them; a folder beside them is still read."""
    put(work, "templates/vllm/template.yaml", _BACKSTAGE_TEMPLATE)
    put(work, "templates/vllm/skeleton/k8s/deployment.yaml", _SKELETON_DEPLOYMENT)
    put(work, "templates/vllm/content/deployment.yaml", _SKELETON_DEPLOYMENT)
    put(work, "templates/vllm/other/deployment.yaml", vllm_deployment("other"))
    rc, out, _ = lint(capsys, ".", "--format", "json")
    doc = json.loads(out)
    reason = "Backstage software template skeleton (not rendered: lint what the scaffolder writes)"
    assert (rc, doc["input_errors"]) == (0, [])
    assert doc["skipped_files"] == [{"file": "templates/vllm/content/deployment.yaml", "reason": reason},
                                    {"file": "templates/vllm/skeleton/k8s/deployment.yaml", "reason": reason}]
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment serving/other"]
    # a folder named skeleton beside no Backstage template is read as any other
    put(work, "plain/template.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    assert skipped_by_name(str(work / "plain/skeleton/deployment.yaml")) is None


# ------------------------------------------------------------------------------------- exclusions


@pytest.mark.parametrize("pattern,path,is_dir,excluded", [
    ("*.json", "a/b/preview.json", False, True),       # no slash: a name at any depth
    ("legacy/", "legacy", True, True),                  # a directory...
    ("legacy/", "legacy", False, False),                # ...only a directory
    ("legacy/", "legacy/x.yaml", False, True),          # and what is under it
    ("/deploy/old.yaml", "deploy/old.yaml", False, True),
    ("deploy/old.yaml", "x/deploy/old.yaml", False, False),  # a slash anchors it to the current directory
    ("charts/**/templates/", "charts/a/b/templates", True, True),
    ("charts/**/templates/", "charts/templates", True, True),  # ** also matches no directory
    ("**/tmp-*.yaml", "a/b/tmp-1.yaml", False, True),
    ("dep?oy/*", "deploy/x.yaml", False, True),
    ("dep?oy/*", "deploy/a/x.yaml", False, True),       # through the directory deploy/a
    ("[ab].yaml", "b.yaml", False, True),
    ("[!ab].yaml", "b.yaml", False, False),
    ("# a comment", "# a comment", False, False),
    ("\\#x.yaml", "#x.yaml", False, True),
])
def test_exclude_patterns_are_gitignore_like(work, pattern, path, is_dir, excluded):
    assert Excludes.from_lines([pattern]).excluded(path, is_dir) is excluded


def test_a_later_pattern_re_includes_but_never_under_an_excluded_directory(work):
    ex = Excludes.from_lines(["*.yaml", "!keep.yaml", "old/"])
    assert (ex.excluded("a/x.yaml", False), ex.excluded("a/keep.yaml", False),
            ex.excluded("old/keep.yaml", False)) == (True, False, True)
    assert compile_pattern("   ") is None and compile_pattern("!/") is None


def test_exclude_flag_ignore_file_and_config_key_together(work, capsys):
    put(work, "deploy/a.yaml", vllm_deployment("a"))
    put(work, "deploy/b.yaml", vllm_deployment("b"))
    put(work, "legacy/c.yaml", "a: [broken\n")
    put(work, "vendor/d.yaml", "a: [broken\n")
    put(work, "deploy/e.yaml", vllm_deployment("e"))
    put(work, ".shardwiseignore", "# not ours\nvendor/\n\n*.yaml\n!deploy/*.yaml\n")
    put(work, "shardwise.toml", 'exclude = ["legacy/"]\n')
    rc, out, _ = lint(capsys, ".", "--exclude", "deploy/e.yaml", "--format", "json")
    doc = json.loads(out)
    assert rc == 0
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment serving/a", "Deployment serving/b"]
    assert doc["excluded"] == ["legacy/", "vendor/", "deploy/e.yaml"]  # as the walk meets them
    assert doc["summary"]["excluded"] == 3


def test_an_excluded_file_named_on_the_command_line_is_not_read(work, capsys):
    put(work, "broken.yaml", "a: [\n")
    assert lint(capsys, "broken.yaml", "--exclude", "broken.yaml") == (0, (
        "shardwise: 0 files read, 0 workloads (no vLLM workload found in the inputs), 0 mandatory findings, 0 advisory "
        "findings, 0 suppressed; excluded 1 path — passed\n"), "")


def test_config_exclude_must_be_patterns(work, capsys):
    put(work, "shardwise.toml", "exclude = 3\n")
    put(work, "a.yaml", vllm_deployment("a"))
    assert lint(capsys, "a.yaml") == (2, "", (
        'shardwise: error: shardwise.toml:1: exclude must be a list of path patterns (gitignore-like, e.g. '
        '"charts/**/templates/")\n'))


# -------------------------------------------------------------------------------- what was read


def test_an_unreadable_directory_is_named_with_the_os_error(work, capsys, monkeypatch):
    put(work, "deploy/a.yaml", vllm_deployment("a"))
    (work / "deploy" / "private").mkdir()
    real_scandir = os.scandir

    def scandir(path):  # as listing a directory it may not read fails (root may list any)
        if str(path).endswith("private"):
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr("shardwise.rules.adapters.select.os.scandir", scandir)
    rc, out, _ = lint(capsys, "deploy")
    assert rc == 2
    assert out.splitlines()[0] == "deploy/private: error: cannot read directory: Permission denied"
    assert out.splitlines()[-1].startswith("shardwise: 1 file read, 1 workload, ")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any directory")
def test_an_unreadable_directory_for_real(work, capsys):
    (work / "locked").mkdir()
    (work / "locked").chmod(0)
    try:
        rc, out, _ = lint(capsys, ".")
    finally:
        (work / "locked").chmod(0o755)
    assert (rc, out.splitlines()[0]) == (2, "locked: error: cannot read directory: Permission denied")


def test_selection_counts(work):
    put(work, "x/a.yaml", "")
    put(work, "x/c/Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n")  # met while searching: skipped
    put(work, "x/notes.txt", "not an input suffix: not met at all\n")
    put(work, "x/.hidden/b.yaml", "")
    put(work, "x/node_modules/c.yaml", "")
    sel = select_inputs(["x", "missing"], Excludes.from_lines(["a.yaml"]))
    assert (sel.files, sel.skipped, sel.excluded, [str(e) for e in sel.errors]) == (
        [], [("x/c/Chart.yaml", "Helm chart metadata")], ["x/a.yaml"], ["missing: no such file or directory"])


# ------------------------------------------------------------------------------ several reports


def test_several_reports_from_one_run(work, capsys):
    put(work, "deploy/tp.yaml", vllm_deployment("llama8b"))
    put(work, "deploy/bad.yaml", "a: b\na: c\n")
    (work / "out").mkdir()
    rc, out, err = lint(capsys, "deploy", "--format", "sarif=out/shardwise.sarif", "--format", "markdown=report.md",
                        "--format", "github", "--format", "json=out/r.json")
    assert rc == 2
    assert out.splitlines()[0] == (
        "::error file=deploy/bad.yaml,line=2,title=shardwise input error::cannot parse YAML: duplicate key 'a' "
        "(first written on line 1): a mapping's keys must be unique, keep one")
    assert err.splitlines() == [
        "shardwise: error: deploy/bad.yaml:2: cannot parse YAML: duplicate key 'a' (first written on line 1): a "
        "mapping's keys must be unique, keep one",
        "shardwise: 2 files read, 1 workload, 0 mandatory findings, 1 advisory finding, 0 suppressed — failed: 1 input error",
    ]
    sarif = json.loads((work / "out" / "shardwise.sarif").read_text())
    jsonschema.validate(sarif, SCHEMA)
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["locations"][0]["physicalLocation"]["region"] for n in notes] == [{"startLine": 2}]
    assert "### Input errors\n\n- `deploy/bad.yaml:2` — cannot parse YAML: duplicate key" in (
        work / "report.md").read_text()
    assert json.loads((work / "out" / "r.json").read_text())["summary"]["input_errors"] == 1


def test_output_flag_still_names_the_single_report(work, capsys):
    put(work, "a.yaml", vllm_deployment("a"))
    assert lint(capsys, "a.yaml", "--format", "sarif", "--output", "a.sarif")[0] == 0
    assert json.loads((work / "a.sarif").read_text())["version"] == "2.1.0"
    assert lint(capsys, "a.yaml", "--format", "sarif", "--format", "text", "--output", "a.txt") == (
        2, "", "shardwise: error: --output FILE takes one report, but sarif and text have no file of their own; "
               "write --format FMT=FILE\n")


@pytest.mark.parametrize("argv,message", [
    (["--format", "json", "--format", "markdown"],
     "only one report can go to standard output, not json and markdown; write the others to files: "
     "--format FMT=FILE"),
    (["--format", "json=r", "--format", "sarif=./r"], "the json and sarif reports would both be written to ./r"),
    (["--format", "sarif=a.sarif", "--output", "b"],
     "--output FILE is the file of the format given without =FILE, and every --format names its own file"),
])
def test_report_destinations_that_collide_are_usage_errors(work, capsys, argv, message):
    put(work, "a.yaml", vllm_deployment("a"))
    assert lint(capsys, "a.yaml", *argv) == (2, "", f"shardwise: error: {message}\n")


def test_unknown_format_names_the_choices(work, capsys):
    rc, _, err = lint(capsys, "a.yaml", "--format", "xml=x")
    assert rc == 2
    assert err.splitlines()[-1] == (
        "shardwise lint: error: argument --format: unknown format 'xml'; expected one of text, json, sarif, github, "
        "markdown, optionally =FILE")


def test_the_workflow_lints_once():
    """The workflow runs the action (action.yml) once; the action's one lint writes every report (SARIF, the
    step summary, the JSON verdict its last step reads, the annotations)."""
    workflow = (ROOT / ".github" / "workflows" / "shardwise.yml").read_text(encoding="utf-8")
    steps = [line.strip() for line in workflow.splitlines() if not line.lstrip().startswith("#")]
    assert [line for line in steps if "shardwise lint" in line or "uses: ./" in line] == [
        "uses: ./"]
    action = (ROOT / "action.yml").read_text(encoding="utf-8").splitlines()
    runs = action.index("runs:")  # the inputs' descriptions above it name the command in prose
    [i] = [i for i, line in enumerate(action) if i > runs and line.strip().startswith("shardwise lint")]
    # --progress (newuser12): the step's log is no terminal, so without it a long read says nothing until it ends
    assert [line.strip() for line in action[i:i + 2]] == [
        'shardwise lint $INPUT_PATHS "${args[@]}" --progress --format "sarif=$INPUT_SARIF_FILE" \\',
        '--format "markdown=$report" --format "json=$verdict" --format github || rc=$?']


def test_the_readme_fixture_helm_output_with_a_broken_secret(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    rc, out, err = lint(capsys, "tests/fixtures/inputs/helm-rendered-broken-secret.yaml", "--no-color")
    assert (rc, err) == (2, "")
    lines = out.splitlines()
    assert lines[0] == (
        "tests/fixtures/inputs/helm-rendered-broken-secret.yaml:13: error: cannot parse YAML: a template placeholder "
        "{{ … }} is not YAML; render the template first (helm template …)")
    assert lines[-1].startswith("shardwise: 1 file read, 1 workload, 0 mandatory findings, ")
    assert lines[-1].endswith(" — failed: 1 input error")


def test_an_unrendered_chart_template_is_named_where_its_template_action_is(capsys, monkeypatch):
    """Charts' templates as committed (corpus: robo-cap/helm-charts, danchev/helm-charts, giantswarm/vllm): YAML
    fails a line or more after the template action, on a line that is plain YAML (`annotations:`, the text of a
    {{/* comment */}}); the report names the action's line and says to render the chart, not the parser's "could
    not find expected ':'" (line 10) or "did not find expected ',' or '}'" (line 4). The Service after the
    comment-headed document is still read: no error of its own."""
    monkeypatch.chdir(ROOT)
    rc, out, err = lint(capsys, "tests/fixtures/inputs/helm-template-block-action.yaml",
                        "tests/fixtures/inputs/helm-template-comment-header.yaml", "--no-color")
    assert (rc, err) == (2, "")
    problem = "error: cannot parse YAML: a template placeholder {{ … }} is not YAML; render the template first " \
              "(helm template …)"
    assert out.splitlines()[:-1] == [
        f"tests/fixtures/inputs/helm-template-block-action.yaml:9: {problem}",
        f"tests/fixtures/inputs/helm-template-comment-header.yaml:1: {problem}",
    ]
    assert out.splitlines()[-1].endswith(" — failed: 2 input errors")


def test_a_bug_on_one_file_is_reported_on_that_file_and_the_others_are_linted(work, capsys, monkeypatch):
    import shardwise.rules.adapters.k8s as k8s

    real = k8s.inventory_from_documents

    def flaky(docs, text, file):
        if file.endswith("b.yaml"):
            raise KeyError("spec")
        return real(docs, text, file)

    monkeypatch.setattr(k8s, "inventory_from_documents", flaky)
    monkeypatch.delenv("SHARDWISE_DEBUG", raising=False)
    put(work, "d/a.yaml", vllm_deployment("a"))
    put(work, "d/b.yaml", vllm_deployment("b"))
    rc, out, _ = lint(capsys, "d", "--format", "json")
    doc = json.loads(out)
    assert rc == 2
    assert doc["input_errors"] == [{"file": "d/b.yaml", "line": None, "message": (
        "internal error while reading this file: KeyError: 'spec' (set SHARDWISE_DEBUG=1 for the traceback; please "
        "report it)")}]
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment serving/a"]
    monkeypatch.setenv("SHARDWISE_DEBUG", "1")
    with pytest.raises(KeyError):
        read_inputs(["d"], jobs=1)


def test_a_stack_environment_written_as_json_text_is_checked_as_json(work, capsys):
    put(work, "Pulumi.dev.yaml", 'config:\n  shardwise:environment: \'{"name": "dev", "name": "prod"}\'\n')
    rc, out, _ = lint(capsys, "Pulumi.dev.yaml", "--format", "json")
    assert (rc, json.loads(out)["input_errors"]) == (2, [{
        "file": "Pulumi.dev.yaml", "line": 2,
        "message": 'shardwise:environment: not a mapping nor JSON: duplicate key "name": an object\'s keys must be '
                   "unique, keep one"}])


_DUPLICATE_ENV = """apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen, namespace: llm}
spec:
  template:
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          command: [vllm, serve, Qwen/Qwen2.5-7B-Instruct, --max-model-len, "8192"]
          env:
            - {name: A, value: "1"}
          env:
            - {name: HF_TOKEN, value: hf_abcdefghijklmnopqrstuvwxyz123456}
          resources: {limits: {nvidia.com/gpu: "1"}}
"""


#: A role's task that sets a file's mode twice (corpus34: a homelab's roles/<tool>/tasks/main.yaml, in that shape)
_TASK_MODE_TWICE = """- name: Mark the installed CLI version
  ansible.builtin.file:
    path: "/usr/local/bin/.cli-{{ cli_version }}"
    state: touch
    mode: "0644"
    modification_time: preserve
    mode: "0755"
"""
#: A playbook whose play sets `become` twice
_PLAY_BECOME_TWICE = """- hosts: gpu_nodes
  become: true
  become: false
  roles:
    - nvidia-driver
"""


@pytest.mark.parametrize("rel,text", [
    ("ansible/devbox/roles/kubernetes-tools/tasks/main.yaml", _TASK_MODE_TWICE),
    ("inventory/group_vars/gpu.yml", "driver_version: 550\ndriver_version: 560\n"),
    ("site.yml", _PLAY_BECOME_TWICE),
])
def test_an_ansible_file_with_a_key_written_twice_is_skipped_as_ansible_reads_it(work, capsys, rel, text):
    # Ansible keeps the last value and warns: the repository's lint no longer exits 2 on a file it does not read
    put(work, rel, text)
    put(work, "deploy.yaml", vllm_deployment("chat"))
    rc, out, _ = lint(capsys, ".", "--format", "json")
    doc = json.loads(out)
    assert (rc, doc["input_errors"], doc["skipped_files"]) == (0, [], [{"file": rel, "reason": ANSIBLE}])


def test_a_key_written_twice_outside_ansible_stays_an_input_error(work, capsys):
    # the same task list in a folder Ansible does not read, and no play: broken YAML, as before
    put(work, "notes/steps.yaml", _TASK_MODE_TWICE)
    rc, out, _ = lint(capsys, ".", "--format", "json")
    assert (rc, [(e["line"], e["message"]) for e in json.loads(out)["input_errors"]]) == (2, [(
        7, "cannot parse YAML: duplicate key 'mode' (first written on line 5): a mapping's keys must be unique, keep one")])


def test_a_duplicate_key_is_an_input_error_and_the_document_is_still_linted(work):
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import run_rules

    path = put(work, "dup.yaml", _DUPLICATE_ENV)
    inv = read_inputs([path])
    assert [(e.line, e.message) for e in inv.errors] == [
        (14, "duplicate key 'env' (first written on line 12): a mapping's keys must be unique, keep one (the rest "
             "of the document is still checked, with the last value)")]
    [g] = inv.groups
    assert (g.name, sorted(g.containers[0].env)) == ("qwen", ["HF_TOKEN"])  # the last env, as lenient readers keep
    secret = [(f.code, f.location.line) for f in run_rules(ALL_RULES, inv) if f.code == "SW308"]
    assert secret == [("SW308", 15)]


def test_helm_values_that_switch_the_workload_kind_are_values_not_a_manifest(work, capsys):
    """A chart that lets its values pick Deployment or StatefulSet writes a top-level ``kind:`` in its values
    (infracloudio/charts' vllm chart, vendored in the wide corpus); a GitOps repository keeps such values files
    outside the chart (``values-prod.yaml`` beside an Argo CD Application). They are Helm values, skipped with
    that reason; an object named like values that kept its ``metadata`` but lost its ``apiVersion`` is still an
    input error."""
    put(work, "apps/vllm/values-prod.yaml", """\
        replicaCount: 1
        kind: Deployment
        image:
          repository: vllm/vllm-openai
        config:
          model: "bigscience/bloom-560m"
        """)
    put(work, "apps/vllm/chart-values.yaml", "kind: StatefulSet\nstrategy: {}\n")
    put(work, "broken/values.yaml", "kind: Deployment\nmetadata: {name: vllm}\nspec: {replicas: 1}\n")
    rc, out, err = lint(capsys, ".", "--format", "json")
    doc = json.loads(out)
    assert doc["skipped_files"] == [{"file": "apps/vllm/chart-values.yaml", "reason": "Helm values"},
                                    {"file": "apps/vllm/values-prod.yaml", "reason": "Helm values"}]
    assert rc == 2 and [(e["file"], e["message"]) for e in doc["input_errors"]] == [
        ("broken/values.yaml", "object has no apiVersion")]


def test_the_summarys_render_hint_names_the_skip_reasons_the_readers_give():
    """The summary's hint (charts and kustomizations are not rendered when found by searching) keys on the skip
    reasons select.py and kinds.py write: a reason renamed there must be renamed in the report too."""
    from shardwise.rules.adapters import select
    from shardwise.rules.report import result

    assert result._UNRENDERED_KINDS == {select.CHART_TEMPLATE, select.CHART_FILE, select._NAMED["kustomization.yaml"]}

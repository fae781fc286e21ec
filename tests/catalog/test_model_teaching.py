"""Teaching shardwise a model the catalog lacks: the base-model annotation (catalog id or config.json
path), the ``model_dirs`` directories, the local Hugging Face cache (read offline), and the path
names that are matched to a catalog entry only with a finding that says so (SW004)."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import load_inputs
from shardwise.rules.app.cli import main
from shardwise.rules.catalog import find_model, resolve
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import LintConfig, run_rules
from shardwise.rules.model import ServingGroup

# A fine-tune of Llama 3.1 8B with a shorter context and a smaller vocabulary, so its shape is its own.
FINE_TUNE: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 16384,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 128000,
}
FINE_TUNE_PARAMS = 8_028_164_096  # derived: Llama 3.1 8B less 256 vocabulary rows in embeddings and head


@pytest.fixture(autouse=True)
def clean_sources(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No model dirs, an empty Hugging Face cache of our own, and the test's folder as repository root."""
    for var in ("HF_HOME", "HF_HUB_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.chdir(tmp_path)
    resolve.configure()
    yield
    resolve.configure()


def manifest(model: str, annotation: str | None = None, name: str = "bot") -> str:
    ann = f"\n  annotations:\n    shardwise.dev/base-model: {annotation}" if annotation else ""
    return textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {name}
          namespace: serving""") + ann + textwrap.dedent(f"""
        spec:
          replicas: 2
          selector: {{matchLabels: {{app: {name}}}}}
          template:
            metadata: {{labels: {{app: {name}}}}}
            spec:
              nodeSelector:
                node.kubernetes.io/instance-type: g6e.xlarge
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  args: [{model}, --max-model-len, "8192"]
                  resources:
                    limits: {{nvidia.com/gpu: 1}}
        """)


def group_of(path: Path) -> ServingGroup:
    [g] = load_inputs([str(path)]).groups
    return g


def write_config(directory: Path, config: dict[str, Any] | None = None, index: dict[str, Any] | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(config or FINE_TUNE))
    if index is not None:
        (directory / "model.safetensors.index.json").write_text(json.dumps(index))
    return directory / "config.json"


def sw004(path: Path, config: LintConfig | None = None) -> list[tuple[int | None, str, bool]]:
    inv = load_inputs([str(path)])
    return [(f.location.line, f.level, f.undecided) for f in run_rules(ALL_RULES, inv, config) if f.code == "SW004"]


# --- (1) the annotation: a catalog id or a config.json path ---------------------------------------------------


def test_annotation_with_a_repository_relative_config_path(tmp_path: Path):
    write_config(tmp_path / "models" / "acme" / "support-bot-v7")
    deploy = tmp_path / "deploy" / "bot.yaml"
    deploy.parent.mkdir()
    deploy.write_text(manifest("acme/support-bot-v7", "models/acme/support-bot-v7/config.json"))
    g = group_of(deploy)
    assert (g.model_unknown, g.model_error, g.model_assumed) == (None, None, None)
    assert g.model is not None
    assert (g.model.id, g.model.params, g.model.max_position_embeddings, g.model.vocab_size) == (
        "acme/support-bot-v7", FINE_TUNE_PARAMS, 16384, 128000)
    assert g.model.extra["taught_by"] == "annotation shardwise.dev/base-model"
    assert sw004(deploy) == []


def test_annotation_config_path_relative_to_the_manifest(tmp_path: Path):
    (tmp_path / "elsewhere").mkdir()
    deploy = tmp_path / "deploy" / "bot.yaml"
    write_config(tmp_path / "deploy" / "model")
    deploy.write_text(manifest("acme/support-bot-v7", "./model/config.json"))
    g = group_of(deploy)
    assert g.model is not None and (g.model.id, g.model.params) == ("acme/support-bot-v7", FINE_TUNE_PARAMS)


def test_annotation_naming_a_missing_config_or_an_unknown_catalog_id(tmp_path: Path):
    deploy = tmp_path / "bot.yaml"
    deploy.write_text(manifest("acme/support-bot-v7", "models/acme/gone/config.json"))
    g = group_of(deploy)
    assert (g.model, g.model_unknown) == (
        None, "the annotation shardwise.dev/base-model names 'models/acme/gone/config.json', and there is no such file")
    deploy.write_text(manifest("acme/support-bot-v7", "meta-llama/Llama-3.1-8B-Instrukt"))
    g = group_of(deploy)
    assert g.model_unknown == (
        "the annotation shardwise.dev/base-model names 'meta-llama/Llama-3.1-8B-Instrukt' is not in the catalog; "
        "did you mean: meta-llama/Llama-3.1-8B-Instruct, meta-llama/Llama-3.2-1B-Instruct, "
        "meta-llama/Meta-Llama-3-8B-Instruct?"
    )
    assert sw004(deploy) == [(7, "advisory", True)]  # the annotation's line


def test_annotation_config_that_is_not_json_is_an_input_error_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    broken = tmp_path / "models" / "acme" / "bot" / "config.json"
    broken.parent.mkdir(parents=True)
    broken.write_text('{\n  "hidden_size": 4096,\n  oops\n}\n')
    (tmp_path / "bot.yaml").write_text(manifest("acme/bot", "models/acme/bot/config.json"))
    assert main(["lint", "bot.yaml"]) == 2  # an input error, reported after everything readable was linted
    out = capsys.readouterr().out
    assert out.splitlines()[0] == (
        f"bot.yaml:19: error: {broken}:3: invalid JSON: Expecting property name enclosed in double quotes"
    )
    assert out.splitlines()[-1].endswith("— failed: 1 input error")
    assert "SW004" not in out and "SW101" not in out  # the error says it all; no "cannot decide" per rule


# --- (2) model directories ------------------------------------------------------------------------------------


def test_model_dirs_teach_a_fine_tune_with_its_safetensors_index(tmp_path: Path):
    index = {"metadata": {"total_size": 2 * FINE_TUNE_PARAMS}, "weight_map": {}}
    write_config(tmp_path / "models" / "acme" / "support-bot-v7", index=index)
    deploy = tmp_path / "bot.yaml"
    deploy.write_text(manifest("acme/support-bot-v7"))
    assert group_of(deploy).model is None  # not configured: unknown
    resolve.configure(model_dirs=[str(tmp_path / "models")])
    g = group_of(deploy)
    assert g.model is not None
    assert (g.model.id, g.model.params, g.model.extra["params_source"], g.model.extra["taught_by"]) == (
        "acme/support-bot-v7", FINE_TUNE_PARAMS, "safetensors index: total_size / 2 bytes", "model_dirs")


def test_a_fine_tune_in_model_dirs_wins_over_a_catalog_name_match(tmp_path: Path):
    # acme/Llama-3.1-8B-Instruct would otherwise resolve by its name to Meta's entry
    write_config(tmp_path / "models" / "acme" / "Llama-3.1-8B-Instruct")
    deploy = tmp_path / "bot.yaml"
    deploy.write_text(manifest("acme/Llama-3.1-8B-Instruct"))
    assert group_of(deploy).model.vocab_size == 128256  # type: ignore[union-attr]
    resolve.configure(model_dirs=[str(tmp_path / "models")])
    assert group_of(deploy).model.vocab_size == 128000  # type: ignore[union-attr]


def test_cli_model_dirs_from_the_config_file_and_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    write_config(tmp_path / "team-models" / "acme" / "support-bot-v7")
    (tmp_path / "bot.yaml").write_text(manifest("acme/support-bot-v7"))
    assert main(["lint", "bot.yaml", "--format", "json"]) == 0
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert "SW004" in codes
    assert main(["lint", "bot.yaml", "--format", "json", "--model-dir", "team-models"]) in (0, 1)
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert "SW004" not in codes
    (tmp_path / "shardwise.toml").write_text('model_dirs = ["team-models"]\n')
    assert main(["lint", "bot.yaml", "--format", "json"]) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    assert "SW004" not in [f["code"] for f in report["findings"]]
    assert report["workloads"][0]["model"] == "acme/support-bot-v7"
    assert main(["lint", "bot.yaml", "--model-dir", "missing"]) == 2
    assert capsys.readouterr().err == "shardwise: error: --model-dir missing: not a directory\n"


@pytest.mark.parametrize(("kind", "what"), [
    ("fifo", "it is a FIFO (named pipe), not a regular file; shardwise reads only regular files"),
    ("directory", "it is a directory, not a regular file; shardwise reads only regular files"),
    ("loop", "a loop of symbolic links (each names another, and none a file)"),
])
def test_a_config_in_model_dirs_that_is_no_file_is_an_input_error(tmp_path: Path, kind: str, what: str,
                                                                    capsys: pytest.CaptureFixture[str]):
    """fuzz13: ``<dir>/<org>/<name>/config.json`` there but no regular file was passed over: the model was
    "not in the catalog" (SW004), and nothing said the configured directory's config.json could not be read."""
    import os

    config = tmp_path / "team-models" / "acme" / "support-bot-v7" / "config.json"
    config.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(config)
    elif kind == "directory":
        config.mkdir()
    else:
        config.symlink_to("config.json")
    (tmp_path / "bot.yaml").write_text(manifest("acme/support-bot-v7"))
    assert main(["lint", "bot.yaml", "--format", "json", "--model-dir", "team-models"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert report["input_errors"] == [{"file": "bot.yaml", "line": 17,  # the model's line
                                       "message": f"{config}: cannot read model config: {what}"}]
    assert "SW004" not in [f["code"] for f in report["findings"]]


# --- (3) the local Hugging Face cache, offline -----------------------------------------------------------------


def cache_entry(cache: Path, repo: str, revision: str, config: dict[str, Any] | None = None, main_ref: bool = True) -> Path:
    root = cache / ("models--" + repo.replace("/", "--"))
    path = write_config(root / "snapshots" / revision, config)
    if main_ref:
        (root / "refs").mkdir(parents=True, exist_ok=True)
        (root / "refs" / "main").write_text(revision)
    return path


def test_hf_cache_under_hf_home(tmp_path: Path):
    cache_entry(tmp_path / "hf-home" / "hub", "acme/support-bot-v7", "0123abcd")
    deploy = tmp_path / "bot.yaml"
    deploy.write_text(manifest("acme/support-bot-v7"))
    g = group_of(deploy)
    assert g.model is not None
    assert (g.model.id, g.model.params, g.model.extra["taught_by"]) == (
        "acme/support-bot-v7", FINE_TUNE_PARAMS, "Hugging Face cache")
    assert g.model.source == str(tmp_path / "hf-home" / "hub" / "models--acme--support-bot-v7" / "snapshots"
                                 / "0123abcd" / "config.json")


def test_hf_cache_prefers_the_revision_refs_main_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    cache = tmp_path / "hub-cache"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))  # wins over HF_HOME, as in huggingface_hub
    cache_entry(cache, "acme/bot", "old", {**FINE_TUNE, "max_position_embeddings": 4096}, main_ref=False)
    cache_entry(cache, "acme/bot", "current")
    assert resolve.find_in_hf_cache("acme/bot") == str(cache / "models--acme--bot" / "snapshots" / "current"
                                                       / "config.json")
    (cache / "models--acme--bot" / "refs" / "main").unlink()
    newest = cache / "models--acme--bot" / "snapshots" / "old" / "config.json"
    import os

    os.utime(newest, (2_000_000_000, 2_000_000_000))
    assert resolve.find_in_hf_cache("acme/bot") == str(newest)
    assert resolve.find_in_hf_cache("/models/acme/bot") is None


def test_hf_cache_refs_main_that_is_a_fifo_does_not_hold_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """review17: ``refs/main`` was opened with open(), which waits for a writer when it is a FIFO: the run never
    ended (fuzz15 bounded a FIFO as the cache itself, not inside it). It is read as a missing ref: the newest
    snapshot is taken."""
    import os
    import signal

    def hung(signum: int, frame: object) -> None:  # noqa: ARG001 - the signal handler's signature
        raise TimeoutError("find_in_hf_cache still waiting after 20 s")

    cache = tmp_path / "hub-cache"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    cache_entry(cache, "acme/bot", "current", main_ref=False)
    (cache / "models--acme--bot" / "refs").mkdir(parents=True, exist_ok=True)
    os.mkfifo(cache / "models--acme--bot" / "refs" / "main")
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        found = resolve.find_in_hf_cache("acme/bot")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert found == str(cache / "models--acme--bot" / "snapshots" / "current" / "config.json")


def test_hf_cache_dir_follows_the_environment():
    assert resolve.hf_cache_dir({"HF_HUB_CACHE": "/c", "HF_HOME": "/h"}) == "/c"
    assert resolve.hf_cache_dir({"HF_HOME": "/h"}) == "/h/hub"
    assert resolve.hf_cache_dir({"XDG_CACHE_HOME": "/x"}) == "/x/huggingface/hub"


def test_fetch_configs_without_huggingface_hub_says_how_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # offline CI: the package is not installed
    (tmp_path / "bot.yaml").write_text(manifest("acme/support-bot-v7"))
    assert main(["lint", "bot.yaml", "--fetch-configs"]) == 0
    err = capsys.readouterr().err
    assert err == ("shardwise: --fetch-configs: acme/support-bot-v7: --fetch-configs needs huggingface_hub: "
                   "pip install huggingface_hub\n")


def test_the_linter_start_up_does_not_import_huggingface_hub():
    import subprocess

    code = ("import sys\nfrom shardwise.rules.app.cli import main\n"
            "main(['lint', 'examples/k8s'])\n"
            "assert 'huggingface_hub' not in sys.modules\n")
    root = ROOT
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=False)
    assert result.returncode == 0, result.stderr


# --- model paths: never silently guessed ------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "assumed"), [
    ("/models/llama-3.1-8b-instruct", "meta-llama/Llama-3.1-8B-Instruct"),
    ("s3://weights-bucket/prod/llama-3.1-8b-instruct", "meta-llama/Llama-3.1-8B-Instruct"),
    ("/mnt/models/Qwen3-32B-FP8", "Qwen/Qwen3-32B"),
    # KServe modelcars: the image tag names the model (rh-ai-quickstart/vllm-tool-calling's InferenceServices)
    ("oci://quay.io/redhat-ai-services/modelcar-catalog:llama-3.2-1b-instruct", "meta-llama/Llama-3.2-1B-Instruct"),
    # a revision folder under org/name (Kelvinskell/k8s-llm-serving-platform's KServe and Deployment manifests)
    ("/models/microsoft/phi-2/main", "microsoft/phi-2"),
    ("/models/TinyLlama/TinyLlama-1.1B-Chat-v1.0/main", "TinyLlama/TinyLlama-1.1B-Chat-v1.0"),
    ("/cache/meta-llama/Llama-3.1-8B-Instruct/0e9e39f249a16976918f6564b8830bc894c89659",
     "meta-llama/Llama-3.1-8B-Instruct"),
    # a version written with a dash for its dot (aws-samples/gen-ai-on-eks's vllm-deployment.yaml)
    ("/local-storage/models/mistral-7b-v0-3", "mistralai/Mistral-7B-v0.3"),
    # corpus17: a modelcar image named for its packaging around the model (Red Hat's rhelai1 ModelCars,
    # redhat-ai-americas/rhoai-demo-setup's InferenceServices; phi2-modelcar, rh-ai-kickstart/dynamic-model-router)
    ("oci://registry.redhat.io/rhelai1/modelcar-llama-3-1-8b-instruct-quantized-w4a16:1.5",
     "meta-llama/Llama-3.1-8B-Instruct"),
    ("oci://registry.redhat.io/rhelai1/modelcar-granite-3-1-8b-instruct-quantized-w8a8:1.5",
     "ibm-granite/granite-3.1-8b-instruct"),
    ("oci://registry.redhat.io/rhelai1/modelcar-qwen3-8b-fp8-dynamic:1.5", "Qwen/Qwen3-8B"),
    ("oci://quay.io/ckavili/phi2-modelcar:0.0.5", "microsoft/phi-2"),
    # catalog10: the Hugging Face cache's own layout copied to a bucket (GoogleCloudPlatform/devrel-demos's
    # kueue-lws-*-model-streamer.yaml) or mounted whole: models--<org>--<name>[/snapshots/<commit>]
    ("gs://MODEL_WEIGHT_BUCKET/models--Qwen--Qwen3.5-397B-A17B-FP8/snapshots/ea5b4f81096f3901c91dea97f81324302495781d",
     "Qwen/Qwen3.5-397B-A17B"),
    ("/root/.cache/huggingface/hub/models--microsoft--phi-2", "microsoft/phi-2"),
])
def test_a_path_matched_by_name_says_which_entry_it_assumed(tmp_path: Path, model: str, assumed: str):
    deploy = tmp_path / "bot.yaml"
    deploy.write_text(manifest(model))
    g = group_of(deploy)
    assert (g.model_assumed, g.model_unknown) == (assumed, None)
    [f] = [f for f in run_rules(ALL_RULES, load_inputs([str(deploy)])) if f.code == "SW004"]
    assert (f.location.line, f.level, f.undecided, f.message) == (
        17, "advisory", False,
        f"the model {model!r} is a path; shardwise sized it as the catalog model {assumed}, which its name "
        f"matches. Confirm it with the annotation shardwise.dev/base-model: {assumed} (or the path of its config.json)",
    )


def test_a_path_whose_name_matches_nothing_is_unknown(tmp_path: Path):
    deploy = tmp_path / "bot.yaml"
    deploy.write_text(manifest("/models/support-bot-v7"))
    g = group_of(deploy)
    assert (g.model, g.model_unknown) == (
        None, "'/models/support-bot-v7' is a path whose config.json shardwise cannot read here, and its name "
        "'support-bot-v7' matches no catalog model; name the model with the annotation shardwise.dev/base-model (a "
        "catalog id, or the repository path of its config.json) or put its config.json in a models directory "
        "(--model-dir)")


@pytest.mark.parametrize(("model", "name"), [
    # a modelcar whose tag names no catalog model is said by its tag, not "modelcar-catalog:granite-…" (granite-3.2-8b-
    # instruct, the tag this case had, is in the catalog since catalog13: test_families_catalog13.py)
    ("oci://quay.io/redhat-ai-services/modelcar-catalog:granite-3.0-8b-instruct", "granite-3.0-8b-instruct"),
    ("/tmp/models/mistral-7b-v0-2", "mistral-7b-v0-2"),  # no base Mistral-7B-v0.2 in the catalog
    ("/models/acme/support-bot/main", "acme/support-bot"),
    # corpus16: a modelcar tagged with a version is said by its image, never by the version (was '0.0.5'); corpus17:
    # by the image's name as written when the name without `modelcar-` matches nothing either
    ("oci://registry.redhat.io/rhelai1/modelcar-granite-7b-starter:1.4.0", "modelcar-granite-7b-starter"),
    ("oci://registry.example.com/acme/support-bot:v2.1-rc1", "support-bot"),
    ("oci://registry.example.com/acme/support-bot:latest", "support-bot"),
    # catalog10: a cache folder of a model the catalog lacks is said by its repository, not `models--acme--…`
    ("/hub/models--acme--support-bot/snapshots/0e9e39f249a16976918f6564b8830bc894c89659", "acme/support-bot"),
])
def test_a_path_whose_names_match_nothing_says_the_name_it_tried(tmp_path: Path, model: str, name: str):
    deploy = tmp_path / "bot.yaml"
    deploy.write_text(manifest(model))
    g = group_of(deploy)
    assert (g.model, g.model_unknown) == (
        None, f"{model!r} is a path whose config.json shardwise cannot read here, and its name {name!r} matches no "
        "catalog model; name the model with the annotation shardwise.dev/base-model (a catalog id, or the repository "
        "path of its config.json) or put its config.json in a models directory (--model-dir)")


def test_a_dotted_version_written_with_a_dash_resolves():
    assert find_model("mistralai/mistral-7b-v0-3").base_model == "mistralai/Mistral-7B-v0.3"
    assert find_model("Qwen/Qwen2-5-7B-Instruct-AWQ").base_model == "Qwen/Qwen2.5-7B-Instruct"


def test_an_annotated_path_is_not_a_guess(tmp_path: Path):
    deploy = tmp_path / "bot.yaml"
    deploy.write_text(manifest("/models/llama-3.1-8b-instruct", "meta-llama/Llama-3.1-8B-Instruct"))
    g = group_of(deploy)
    assert (g.model_assumed, g.model.base_model) == (None, "meta-llama/Llama-3.1-8B-Instruct")  # type: ignore[union-attr]
    assert sw004(deploy) == []


def test_a_local_path_with_a_config_is_read(tmp_path: Path):
    write_config(tmp_path / "weights" / "support-bot-v7")
    deploy = tmp_path / "bot.yaml"
    deploy.write_text(manifest("./weights/support-bot-v7"))
    g = group_of(deploy)
    assert g.model is not None and (g.model.id, g.model.params, g.model_assumed) == (
        "support-bot-v7", FINE_TUNE_PARAMS, None)


# --- (6) unknown: one finding, only that workload's model rules undecided --------------------------------------


def test_an_unknown_model_leaves_the_other_workloads_and_rules_alone(tmp_path: Path):
    deploy = tmp_path / "two.yaml"
    loaded = manifest("Qwen/Qwen2.5-7B-Instruct", name="qwen").replace(  # a declared load SW103 sizes
        "namespace: serving", 'namespace: serving\n  annotations: {shardwise.dev/target-concurrency: "4096"}')
    deploy.write_text(manifest("acme/support-bot-v7") + "---\n" + loaded)
    findings = run_rules(ALL_RULES, load_inputs([str(deploy)]))
    bot = {f.code for f in findings if f.subject == "Deployment serving/bot"}
    qwen = {f.code for f in findings if f.subject == "Deployment serving/qwen"}
    assert "SW004" in bot and "SW004" not in qwen
    assert not bot & {"SW101", "SW102", "SW103", "SW104", "SW106", "SW203", "SW207"}
    assert "SW103" in qwen  # the known model's capacity rules still ran
    [note] = [f for f in findings if f.code == "SW004"]
    assert "SW101, SW102, SW104, SW106, SW203 could not run on it" in note.message


def test_sw004_is_mandatory_only_with_unknown_fail_configured(tmp_path: Path):
    deploy = tmp_path / "bot.yaml"
    deploy.write_text(manifest("acme/support-bot-v7"))
    assert sw004(deploy) == [(17, "advisory", True)]
    assert sw004(deploy, LintConfig(unknown_is_failure=True, unknown_configured=True)) == [(17, "mandatory", True)]
    assert sw004(deploy, LintConfig(unknown_is_failure=False, unknown_configured=True)) == [(17, "advisory", True)]


def _capacity_findings(path: Path) -> list[tuple[str, str, str]]:
    return [(f.code, f.level, f.message) for f in run_rules(ALL_RULES, load_inputs([str(path)]))
            if f.code.startswith("SW1")]


def test_a_blocking_finding_on_a_model_assumed_from_its_path_is_advisory(tmp_path: Path):
    # a 70B model on one 48 GB L40S: blocking when the annotation says which model it is ...
    sure = tmp_path / "sure.yaml"
    sure.write_text(manifest("/models/llama-3.1-70b-instruct", "meta-llama/Llama-3.1-70B-Instruct"))
    weights = ("in bf16 needs 131.4 GiB (−0.7/+2.9) of weights per GPU at TP1×PP1, but gpu_memory_utilization 0.9 × "
               "44.3 GiB (L40S) allows 39.9 GiB; vLLM will fail at start-up (vLLM 0.11.0 from the image tag); spread the "
               "weights over at least 4 of these GPUs (131.4 GiB over 39.9 GiB each; more than a node of this pool "
               "holds (1), so across nodes: pipeline parallelism, or data and expert parallelism over pods); or serve "
               "an FP8 or 4-bit quantised checkpoint; or use a GPU with more memory")
    assert [f for f in _capacity_findings(sure) if f[0] == "SW101"] == [
        ("SW101", "mandatory", f"/models/llama-3.1-70b-instruct {weights}")]
    # ... advisory, saying why and what makes it blocking, when only the path's name matched the catalog
    guessed = tmp_path / "guessed.yaml"
    guessed.write_text(manifest("/models/llama-3.1-70b-instruct"))
    assert [f for f in _capacity_findings(guessed) if f[0] == "SW101"] == [(
        "SW101", "advisory",
        f"llama-3.1-70b-instruct {weights} (advisory: the model was matched to meta-llama/Llama-3.1-70B-Instruct by the name of its "
        "path only; shardwise.dev/base-model confirms it)")]
    # no finding of the guessed workload blocks
    assert [f for f in _capacity_findings(guessed) if f[1] == "mandatory"] == []


def test_a_configured_level_wins_over_the_assumed_model(tmp_path: Path):
    guessed = tmp_path / "guessed.yaml"
    guessed.write_text(manifest("/models/llama-3.1-70b-instruct"))
    cfg = LintConfig(enforcement={"SW101": "mandatory"})
    [f] = [f for f in run_rules(ALL_RULES, load_inputs([str(guessed)]), cfg) if f.code == "SW101"]
    assert (f.level, f.message) == (
        "mandatory",
        "llama-3.1-70b-instruct in bf16 needs 131.4 GiB (−0.7/+2.9) of weights per GPU at TP1×PP1, but "
        "gpu_memory_utilization 0.9 × 44.3 GiB (L40S) allows 39.9 GiB; vLLM will fail at start-up (vLLM 0.11.0 "
        "from the image tag); spread the weights over at least 4 of these GPUs (131.4 GiB over 39.9 GiB each; more "
        "than a node of this pool holds (1), so across nodes: pipeline parallelism, or data and expert parallelism "
        "over pods); or serve an FP8 or 4-bit quantised checkpoint; or use a GPU with more memory")


def test_a_rule_reading_the_sizing_another_rule_made_counts_the_assumed_model(tmp_path: Path):
    """The sizing is made once per group (the first rule to ask, SW101) and read by the others: SW102's refusal of a
    max_model_len above the model's limit rests on the model as much as SW101's weights do, so on a model matched by
    the name of its path only it is advisory (review25: SW102 read the kept sizing without counting the model read and
    blocked, where the directory may hold a model of a longer context)."""
    refusal = ("at TP1×PP1 on L40S (vLLM 0.11.0 from the image tag): max_model_len 200,000 is above the 131,072 tokens "
               "{name} allows (vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1); vLLM will refuse to start; "
               "set --max-model-len 131072 or less")
    sure = tmp_path / "sure.yaml"
    sure.write_text(manifest("/models/llama-3.1-8b-instruct", "meta-llama/Llama-3.1-8B-Instruct").replace(
        '"8192"', '"200000"'))
    name = "/models/llama-3.1-8b-instruct"
    assert _capacity_findings(sure) == [("SW102", "mandatory", f"{name} {refusal.format(name=name)}")]
    guessed = tmp_path / "guessed.yaml"
    guessed.write_text(manifest("/models/llama-3.1-8b-instruct").replace('"8192"', '"200000"'))
    name = "llama-3.1-8b-instruct"
    assert _capacity_findings(guessed) == [(
        "SW102", "advisory", f"{name} {refusal.format(name=name)} (advisory: the model was matched to "
        "meta-llama/Llama-3.1-8B-Instruct by the name of its path only; shardwise.dev/base-model confirms it)")]

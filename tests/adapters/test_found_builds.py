"""Kustomizations and charts met while searching a folder are built as a user deploys them (newuser14,
rules/adapters/found.py).

newuser13's hard-gate trial: ``shardwise lint deploy/`` on a repository whose ``deploy/overlays/prod`` patches a vLLM
Deployment's args to ``--tensor-parallel-size 2`` (a model one GPU holds) passed with an advisory SW005 only. The
repository of these tests (tests/fixtures/found/repo, written for them in the shape of a service's repository: a
base, dev and prod overlays, a strategic-merge patch in each and a JSON 6902 patch of the args and GPUs in prod, and
a chart of its own with its values) is linted as searched; the tests that build are marked ``tools`` (helm and
kustomize from scripts/build-tools.sh), those without the tools run with nothing on PATH.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import read_inputs
from shardwise.rules.adapters.charts import Renderer
from shardwise.rules.adapters.found import MAX_FOUND_BUILDS, found_leaves
from shardwise.rules.adapters.select import select_inputs
from shardwise.rules.app.cli import main
from tools_support import find_tool, require_tool

REPO = os.path.join(ROOT, "tests", "fixtures", "found", "repo")
# newuser17: what an overlay builds is at the repository's lines, its base's objects named by the overlay (was the
# build output's, `deploy/overlays/prod/kustomization.yaml (kustomize build)`: 13 for the Deployment, 38 for the flag)
PROD = "deploy/base/deployment.yaml (via deploy/overlays/prod/kustomization.yaml)"
DEV = "deploy/base/deployment.yaml (via deploy/overlays/dev/kustomization.yaml)"
#: prod's JSON 6902 operation that appends `--tensor-parallel-size` (its `value:` line), inline in the kustomization
PROD_TP = ("deploy/overlays/prod/kustomization.yaml", 15)
CHART = "charts/vllm/templates/deployment.yaml"


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    """A copy of the repository, as the current directory."""
    shutil.copytree(REPO, tmp_path / "repo")
    monkeypatch.chdir(tmp_path / "repo")
    return tmp_path / "repo"


@pytest.fixture()
def tools(monkeypatch):
    """helm and kustomize as built by scripts/build-tools.sh, first on PATH."""
    for name in ("helm", "kustomize"):
        require_tool(name)
        path = find_tool(name)
        assert path is not None
        monkeypatch.setenv("PATH", os.path.dirname(path) + os.pathsep + os.environ["PATH"])


@pytest.fixture()
def no_tools(tmp_path, monkeypatch):
    """Nothing on PATH: no helm, no kustomize, no kubectl."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def lint(capsys, *argv: str) -> tuple[int, dict]:
    rc = main(["lint", *argv, "--format", "json"])
    out, _ = capsys.readouterr()
    return rc, json.loads(out)


def rows(doc: dict) -> list[tuple[str, str, str, int | None, str]]:
    return [(f["code"], f["level"], f["file"], f["line"], f["subject"]) for f in doc["findings"]]


@pytest.mark.tools
def test_the_overlays_and_the_chart_met_while_searching_are_judged_as_built(repo, tools, capsys):
    """What `kustomize build` of each overlay and `helm template` of the chart deploy is judged, each object once:
    prod's TP2 of an 8B model one L40S holds blocks (SW104, at the patch line that appends the flag), as the chart's
    TP4 of a 7B does; the base's raw Deployment, the patch files and dev's build are not judged a second time, and
    nothing is said to be unbuilt."""
    rc, doc = lint(capsys, ".")
    assert rows(doc) == [
        ("SW305", "advisory", CHART, 1, "Namespace RELEASE-NAMESPACE"),
        ("SW104", "mandatory", CHART, 23, "Deployment RELEASE-NAMESPACE/vllm"),
        ("SW202", "advisory", CHART, 23, "Deployment RELEASE-NAMESPACE/vllm"),
        ("SW305", "advisory", DEV, 1, "Namespace llm-dev"),
        ("SW305", "advisory", PROD, 1, "Namespace llm-prod"),
        ("SW104", "mandatory", *PROD_TP, "Deployment llm-prod/llama-chat"),
        ("SW202", "advisory", *PROD_TP, "Deployment llm-prod/llama-chat"),
    ]
    assert rc == 1
    assert [(w["file"], w["namespace"], w["replicas"], w["tensor_parallel_size"]) for w in doc["workloads"]] == [
        (DEV, "llm-dev", 1, 1), (PROD, "llm-prod", 2, 2), (CHART, "RELEASE-NAMESPACE", 1, 4)]
    assert (doc["skipped_files"], doc["input_errors"]) == ([], [])
    # the same findings as naming the overlays and the chart (what docs/ci.md said to do before)
    rc2, named = lint(capsys, "deploy/overlays/dev", "deploy/overlays/prod", "charts/vllm")
    assert (rc2, sorted(rows(named))) == (rc, sorted(rows(doc)))


@pytest.mark.tools
def test_a_search_of_the_deploy_folder_alone_builds_its_overlays(repo, tools, capsys):
    """newuser13's command, `shardwise lint deploy/`: it failed on prod's TP2 where it passed."""
    rc, doc = lint(capsys, "deploy/")
    assert (rc, [r for r in rows(doc) if r[1] == "mandatory"]) == (1, [
        ("SW104", "mandatory", *PROD_TP, "Deployment llm-prod/llama-chat")])


def test_without_the_tools_what_is_not_built_is_said_and_require_build_fails_the_run(repo, no_tools, capsys):
    """No kustomize, kubectl or helm on PATH: the overlays and the chart are read as before (the bases raw, under
    each overlay's replicas and namespace), and each object an overlay patches, and the chart, is an SW005 record
    that says why it was not built; advisory, so the run passes, unless require_build is set."""
    rc, doc = lint(capsys, "deploy", "charts")
    sw005 = [(f["level"], f["file"], f["line"], f["subject"], f["message"]) for f in doc["findings"]
             if f["code"] == "SW005"]
    assert rc == 0
    assert [s[:4] for s in sw005] == [
        ("advisory", "charts/vllm/templates/deployment.yaml", 23, "Helm chart vllm"),
        ("advisory", "deploy/overlays/dev/kustomization.yaml", 6, "Deployment llm-dev/llama-chat"),
        ("advisory", "deploy/overlays/prod/kustomization.yaml", 8, "Deployment llm-prod/llama-chat"),
    ]
    assert "but this chart, met while searching a folder, was not rendered (helm is not on PATH), so" in sw005[0][4]
    assert ("is not applied: the overlay deploy/overlays/prod, met while searching a folder, was not built (neither "
            "kustomize nor kubectl is on PATH), so this object was linted as its base writes it") in sw005[2][4]
    assert [f for f in doc["findings"] if f["level"] == "mandatory"] == []
    rc, doc = lint(capsys, "deploy", "charts", "--require-build")
    assert rc == 1
    assert [(f["code"], f["level"], f["subject"]) for f in doc["findings"] if f["level"] == "mandatory"] == [
        ("SW005", "mandatory", "Helm chart vllm"),
        ("SW005", "mandatory", "Deployment llm-dev/llama-chat"),
        ("SW005", "mandatory", "Deployment llm-prod/llama-chat"),
    ]
    assert all(f["message"].endswith("(blocking: require_build)") for f in doc["findings"] if f["level"] == "mandatory")


@pytest.mark.tools
def test_the_switch_turns_building_off_and_the_config_file_sets_both(repo, tools, capsys):
    """`--no-build-found` (or build_found = false) reads what the search meets as before, and the records say the
    switch is why; require_build = true in the config file makes them block as --require-build does."""
    rc, doc = lint(capsys, ".", "--no-build-found")
    assert rc == 0
    off = [f["message"] for f in doc["findings"] if f["code"] == "SW005"]
    assert len(off) == 3 and all("(building what a search meets is switched off: --no-build-found, or build_found = "
                                 "false in the configuration)" in m for m in off)
    (repo / "shardwise.toml").write_text("build_found = false\nrequire_build = true\n", encoding="utf-8")
    rc, doc = lint(capsys, ".")
    assert (rc, sorted(f["subject"] for f in doc["findings"] if f["level"] == "mandatory")) == (1, [
        "Deployment llm-dev/llama-chat", "Deployment llm-prod/llama-chat", "Helm chart vllm"])
    (repo / "shardwise.toml").write_text("require_build = true\n", encoding="utf-8")
    rc, doc = lint(capsys, ".")  # everything built: nothing not judged, the findings of the builds alone
    assert [(f["code"], f["level"], f["file"]) for f in doc["findings"] if f["level"] == "mandatory"] == [
        ("SW104", "mandatory", CHART), ("SW104", "mandatory", PROD_TP[0])]


def test_build_found_must_be_true_or_false(repo, capsys):
    (repo / "shardwise.toml").write_text('build_found = "yes"\n', encoding="utf-8")
    assert main(["lint", "deploy"]) == 2
    assert capsys.readouterr().err == "shardwise: error: shardwise.toml:1: build_found must be true or false, got 'yes'\n"


@pytest.mark.tools
def test_an_overlay_that_does_not_build_is_read_as_before_and_says_why(repo, tools, capsys):
    """A remote base without --fetch-remote-bases (kustomize would git fetch it): prod is not built, its base is read
    raw for it and its record says why; dev, which builds, is judged as built, its base not read raw for it."""
    prod = repo / "deploy/overlays/prod/kustomization.yaml"
    prod.write_text(prod.read_text(encoding="utf-8").replace(
        "  - ../../base\n", "  - ../../base\n  - https://github.com/acme/llm-monitoring//base?ref=v1.2.0\n"),
        encoding="utf-8")
    rc, doc = lint(capsys, "deploy")
    (record,) = [f for f in doc["findings"] if f["code"] == "SW005"]
    assert (record["level"], record["file"], record["line"], record["subject"]) == (
        "advisory", "deploy/overlays/prod/kustomization.yaml", 9, "Deployment llm-prod/llama-chat")
    assert "the overlay deploy/overlays/prod, met while searching a folder, was not built (its build failed: " in (
        record["message"])
    assert "remote" in record["message"]
    assert sorted((w["file"], w["namespace"]) for w in doc["workloads"]) == [
        ("deploy/base/deployment.yaml", "llm-prod"), (DEV, "llm-dev")]
    assert rc == 0  # prod's TP2 was not judged: advisory, as before; --require-build fails it
    assert main(["lint", "deploy", "--require-build"]) == 1
    capsys.readouterr()


@pytest.mark.tools
def test_a_values_file_beside_the_chart_other_than_its_defaults_stays_said(repo, tools, capsys):
    """The chart is rendered with its own values.yaml only: a values-prod.yaml beside it, which helm reads only when
    told, configures a release that was not judged, and says so (SW005, `Helm values`)."""
    (repo / "charts/vllm/values-prod.yaml").write_text(
        "model: Qwen/Qwen2.5-72B-Instruct\ntensorParallelSize: 8\ngpus: 8\nimage:\n  repository: vllm/vllm-openai\n",
        encoding="utf-8")
    rc, doc = lint(capsys, "charts")
    assert [(f["code"], f["subject"], f["file"], f["line"]) for f in doc["findings"] if f["code"] == "SW005"] == [
        ("SW005", "Helm values values-prod.yaml", "charts/vllm/values-prod.yaml", 5)]
    assert [w["tensor_parallel_size"] for w in doc["workloads"]] == [4]
    assert doc["skipped_files"] == [{"file": "charts/vllm/values-prod.yaml", "reason": "Helm values"}]


@pytest.mark.tools
def test_a_chart_whose_defaults_deploy_no_server_its_templates_run_is_said(repo, tools, capsys):
    """review35: a chart whose values.yaml switches its vLLM Deployment off (`enabled: false`, as charts with an
    optional server write) and whose values-prod.yaml switches it on, with nothing in that file that names vLLM, was
    built with its defaults, deployed nothing and passed in silence (unbuilt, its template was an SW005 record). It
    is an SW005 record at the template's mention that names the values files beside the chart."""
    chart = repo / "charts/vllm"
    template = (chart / "templates/deployment.yaml").read_text(encoding="utf-8")
    (chart / "templates/deployment.yaml").write_text("{{- if .Values.enabled }}\n" + template + "{{- end }}\n",
                                                     encoding="utf-8")
    (chart / "values.yaml").write_text((chart / "values.yaml").read_text(encoding="utf-8") + "enabled: false\n",
                                       encoding="utf-8")
    (chart / "values-prod.yaml").write_text("enabled: true\n", encoding="utf-8")
    rc, doc = lint(capsys, "charts")
    # the first mention, in the template (one line below where the fixture writes it, under the `if`)
    line = next(i for i, text in enumerate(template.splitlines(), 2) if "--tensor-parallel-size" in text)
    assert line == 24
    assert (rc, doc["workloads"], [(f["code"], f["level"], f["subject"], f["file"], f["line"], f["message"])
                                   for f in doc["findings"]]) == (0, [], [
        ("SW005", "advisory", "Helm chart vllm", CHART, 24,
         "SW005: not read: its templates/deployment.yaml runs vLLM (`--tensor-parallel-size` at line 24), but this chart, met while searching a folder, was built with its values.yaml alone and "
         "deployed no vLLM workload: the values that switch the server on were not judged; to lint them: shardwise "
         "lint charts/vllm --values charts/vllm/values-prod.yaml")])
    # what it names deploys the server, and is judged
    rc, doc = lint(capsys, "charts/vllm", "--values", "charts/vllm/values-prod.yaml")
    assert [w["tensor_parallel_size"] for w in doc["workloads"]] == [4]


def test_only_the_leaves_are_built_and_a_component_is_none(repo):
    """A base is listed by the overlays: built through them, never alone; a kustomize Component neither."""
    (repo / "deploy/components/gpu").mkdir(parents=True)
    (repo / "deploy/components/gpu/kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches: []\n", encoding="utf-8")
    assert found_leaves(select_inputs(["deploy"])) == ["deploy/overlays/dev", "deploy/overlays/prod"]


def test_past_the_bound_the_rest_are_not_built_and_say_why(repo, monkeypatch):
    """At most MAX_FOUND_BUILDS builds a run; the rest are read as before, their records naming the bound."""
    import shardwise.rules.adapters.found as found

    built: list[str] = []

    class Counting(Renderer):
        def render(self, directory):  # type: ignore[override]
            built.append(directory)
            return super().render(directory)

    monkeypatch.setattr(found, "MAX_FOUND_BUILDS", 1)
    inv = read_inputs(["deploy"], jobs=1, render=Counting(which=lambda _: "/bin/false"), build_found=True)
    assert built == ["deploy/overlays/dev"]  # /bin/false builds nothing: dev's build failed, prod was past the bound
    reasons = sorted(li.reason for li in inv.launch_issues if li.not_built)
    assert len(reasons) == 2 and "its build failed: kustomize build failed" in reasons[0]
    assert "shardwise builds at most 1 kustomizations and charts met while searching in one run" in reasons[1]
    assert MAX_FOUND_BUILDS == 100


def test_the_library_reads_what_it_meets_unbuilt_unless_asked(repo, monkeypatch):
    """read_inputs (the policy pack's and the tests' entry) builds nothing unless build_found is given: the lint
    command gives it."""
    monkeypatch.setenv("PATH", "")
    inv = read_inputs(["deploy"], jobs=1)
    assert sorted((g.location.file, g.namespace) for g in inv.groups) == [
        ("deploy/base/deployment.yaml (via deploy/overlays/dev/kustomization.yaml)", "llm-dev"),
        ("deploy/base/deployment.yaml (via deploy/overlays/prod/kustomization.yaml)", "llm-prod"),
        ("deploy/overlays/dev/patch-replicas.yaml", "default")]  # a patch read as a workload: what building ends
    assert not any(li.not_built for li in inv.launch_issues)


@pytest.mark.tools
def test_a_leaf_whose_build_fails_and_that_nothing_else_names_is_said(repo, tools, monkeypatch, capsys):
    """Linted from inside the prod overlay (`lint .`), its base is outside the folder: the build is refused and no
    object of it is read, so no record of an object names it, and the run passed over nothing before. Now the leaf
    itself is an SW005 record that says why it was not built: advisory, blocking with require_build."""
    monkeypatch.chdir(repo / "deploy/overlays/prod")
    for flags, rc_wanted, level in (((), 0, "advisory"), (("--require-build",), 1, "mandatory")):
        rc, doc = lint(capsys, ".", *flags)
        (f,) = doc["findings"]
        assert (rc, f["code"], f["level"], f["file"], f["line"], f["subject"]) == (
            rc_wanted, "SW005", level, "kustomization.yaml", 1, "Kustomization .")
        assert f["message"].startswith("SW005: not read: what it deploys was not judged: this kustomization, met "
                                       "while searching a folder, was not built (its build failed: resources entry "
                                       "'../../base'")
        assert f["message"].endswith("to lint what it deploys: kustomize build . | shardwise lint -"
                                     + (" (blocking: require_build)" if flags else ""))


def test_without_the_tool_a_leaf_that_nothing_else_names_is_said_only_under_require_build(repo, no_tools, capsys):
    """No kustomize on PATH is one fact of the whole run, not one per overlay: a leaf that patches no vLLM object (its
    base read raw, under its replicas and namespace) gets no record of its own, unless require_build asks that every
    one be built."""
    (repo / "deploy/overlays/dev/kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: llm-dev\nresources:\n"
        "  - ../../base\n", encoding="utf-8")
    rc, doc = lint(capsys, "deploy")
    assert (rc, [f["subject"] for f in doc["findings"] if f["code"] == "SW005"]) == (
        0, ["Deployment llm-prod/llama-chat"])
    rc, doc = lint(capsys, "deploy", "--require-build")
    assert (rc, [(f["subject"], f["file"]) for f in doc["findings"] if f["level"] == "mandatory"]) == (1, [
        ("Kustomization deploy/overlays/dev", "deploy/overlays/dev/kustomization.yaml"),
        ("Deployment llm-prod/llama-chat", "deploy/overlays/prod/kustomization.yaml")])


def _unset_tensor_parallel(repo, line: str) -> None:
    """The chart's `--tensor-parallel-size` and its value replaced by ``line``, which prints a value its values.yaml
    lacks (`tensorParallel`, where the chart's values.yaml writes `tensorParallelSize`)."""
    template = repo / "charts/vllm/templates/deployment.yaml"
    text = template.read_text(encoding="utf-8")
    old = "            - --tensor-parallel-size\n            - {{ .Values.tensorParallelSize | quote }}\n"
    assert old in text
    template.write_text(text.replace(old, line), encoding="utf-8")


UNSET = ("(the template prints {{ .Values.tensorParallel }} at line %d, a value that no values file (values.yaml "
         "included) and no --set gives, so helm rendered it empty: give `tensorParallel` in the release's values)")


@pytest.mark.tools
def test_a_chart_that_renders_a_flag_without_its_value_says_it_was_built_and_which_value_to_give(repo, tools, capsys):
    """newuser15: a pull request that writes `--tensor-parallel-size {{ .Values.tensorParallel }}` and gives no value:
    helm renders it, and vLLM's flag has no value. The chart's record said `was not built (its build failed: …)`,
    though helm had succeeded, and not which value to give; it says the chart was built, what could not be read,
    where, and the value; linting the chart names the value at the line."""
    _unset_tensor_parallel(repo, "            - --tensor-parallel-size {{ .Values.tensorParallel }}\n")
    rc, doc = lint(capsys, "charts")
    assert [(f["code"], f["level"], f["file"], f["line"], f["message"]) for f in doc["findings"]] == [
        ("SW005", "advisory", "charts/vllm/Chart.yaml", 1,
         "SW005: not read: what it deploys was not judged: this chart, met while searching a folder, was built, but "
         "what its build emitted could not be read: --tensor-parallel-size: expects a value " + UNSET % 23
         + f" (at {CHART}:23); to lint what it deploys: shardwise lint charts/vllm")]
    # nothing else was read: the run is the input error that names the folder to lint, and says it was built
    # (mend24: it said "not rendered when met while searching")
    assert rc == 2
    assert [e["message"] for e in doc["input_errors"]] == [
        "no file was read: the only inputs met are charts or kustomizations met while searching a folder, built, but "
        "what their build emitted could not be read: charts/vllm (Helm chart); to lint them, and see what could not "
        "be read at its line: shardwise lint charts/vllm"]
    rc, doc = lint(capsys, "charts/vllm")
    assert (rc, [(e["file"], e["line"], e["message"]) for e in doc["input_errors"]]) == (2, [
        (CHART, 23, "--tensor-parallel-size: expects a value " + UNSET % 23)])


@pytest.mark.tools
def test_a_chart_that_renders_an_empty_value_vllm_refuses_names_the_value(repo, tools, capsys):
    """The value on a line of its own (`- {{ .Values.tensorParallel }}` under `- --tensor-parallel-size`): the rendered
    empty word is a value vLLM refuses (SW003, blocking, at the flag's line, where the value's line points), and the
    finding names the value to give."""
    _unset_tensor_parallel(repo, "            - --tensor-parallel-size\n            - {{ .Values.tensorParallel }}\n")
    rc, doc = lint(capsys, "charts")
    assert [(f["code"], f["level"], f["file"], f["line"], f["message"]) for f in doc["findings"]
            if f["level"] == "mandatory"] == [
        ("SW003", "mandatory", CHART, 23,
         "SW003: container 'vllm': --tensor-parallel-size: '' is not an integer: vLLM refuses it at start-up (it "
         "exits) and the pod crash-loops " + UNSET % 24)]
    assert rc == 1


@pytest.mark.tools
def test_an_overlay_that_builds_a_flag_without_its_value_says_it_was_built(repo, tools, capsys):
    """The kustomize side of the same: prod's patch adds `--tensor-parallel-size` and no value. kustomize builds it; what
    it emits cannot be read, at the patch line that appends the flag, and prod's record says so rather than that the build
    failed (prod's object is read as its base writes it, as for an overlay not built); dev is judged as built."""
    prod = repo / "deploy/overlays/prod/kustomization.yaml"
    text = prod.read_text(encoding="utf-8")
    old = '      - op: add\n        path: /spec/template/spec/containers/0/args/-\n        value: "2"\n'
    assert old in text
    prod.write_text(text.replace(old, ""), encoding="utf-8")
    rc, doc = lint(capsys, "deploy")
    assert [(f["code"], f["level"], f["file"], f["line"], f["message"]) for f in doc["findings"]
            if f["code"] == "SW005"] == [
        ("SW005", "advisory", "deploy/overlays/prod/kustomization.yaml", 8,
         "SW005: not read: what deploy/overlays/prod/kustomization.yaml patches in (its containers' args, command, env "
         "or device count, or its pods' nodeSelector or affinity) is not applied: the overlay deploy/overlays/prod, met "
         "while searching a folder, was built, but what its build emitted could not be read: --tensor-parallel-size: "
         f"expects a value (at {PROD_TP[0]}:{PROD_TP[1]}), so this object was linted as its base writes it (the model, the flags, the "
         "GPUs and the pool) and its capacity, topology and reliability findings do not block; to lint what it "
         "deploys: shardwise lint deploy/overlays/prod")]
    assert [(w["file"], w["namespace"]) for w in doc["workloads"]] == [
        ("deploy/base/deployment.yaml", "llm-prod"), (DEV, "llm-dev")]
    assert rc == 0

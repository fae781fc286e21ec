"""Helm charts and Kustomize directories named on the command line are rendered by the real tools
(rules/adapters/charts.py); findings point at the template file and line a rendered line came from.

The chart (tests/fixtures/charts/llm) and the kustomization (tests/fixtures/kustomize) were written
for these tests. The mapping logic is tested on rendered text the tests write; the end-to-end tests
run helm and kustomize built by scripts/build-tools.sh (marker ``tools``: skipped without them,
required in CI).
"""

from __future__ import annotations

import json
import os

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters.charts import helm_error_location, line_map, name_unset_values, split_sources
from shardwise.rules.app.cli import main
from shardwise.rules.model import Inventory
from shardwise.rules.model.errors import InputError
from tools_support import find_tool, require_tool

CHART = "tests/fixtures/charts/llm"
DEPLOYMENT = f"{CHART}/templates/deployment.yaml"


def lint_json(capsys, *argv: str) -> tuple[int, dict, str]:
    rc = main(["lint", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    return rc, json.loads(out), err


def findings(doc: dict) -> list[tuple[str, str, str | None, int | None]]:
    return [(f["code"], f["level"], f["file"], f["line"]) for f in doc["findings"]]


# ------------------------------------------------------------------------------------- the mapping


TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "x.fullname" . }}
  labels:
    {{- include "x.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  template:
    spec:
      containers:
        - name: vllm
          args:
            - --tensor-parallel-size={{ .Values.tp }}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
"""

RENDERED = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: r-x
  labels:
    app.kubernetes.io/name: x
    app.kubernetes.io/instance: r
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: vllm
          args:
            - --tensor-parallel-size=2
          resources:
            limits:
              nvidia.com/gpu: 2
"""


def test_each_rendered_line_maps_to_its_template_line():
    # lines an include or toYaml produced point at the line above them that has a literal twin
    assert line_map(RENDERED, TEMPLATE) == [1, 2, 3, 4, 5, 5, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15, 15]


def test_split_sources():
    rendered = "---\n# Source: x/templates/a.yaml\nkind: A\n---\n# Source: x/templates/b.yaml\nkind: B\n---\nkind: C\n"
    assert split_sources(rendered) == [("x/templates/a.yaml", "kind: A\n"), ("x/templates/b.yaml", "kind: B\nkind: C\n")]
    assert split_sources("kind: Plain\n") == [(None, "kind: Plain\n")]


# --------------------------------------------------------------------------------------------- helm


@pytest.fixture()
def tools_on_path(monkeypatch):
    """helm and kustomize as built by scripts/build-tools.sh, first on PATH; cwd = the repository."""
    monkeypatch.chdir(ROOT)
    for name in ("helm", "kustomize"):
        path = find_tool(name)
        if path:
            monkeypatch.setenv("PATH", os.path.dirname(path) + os.pathsep + os.environ["PATH"])


@pytest.mark.tools
def test_chart_rendered_by_helm_points_at_template_lines(tools_on_path, capsys):
    require_tool("helm")
    rc, doc, _ = lint_json(capsys, CHART)
    assert rc == 1
    assert findings(doc) == [
        ("SW305", "advisory", DEPLOYMENT, 1),
        ("SW407", "advisory", DEPLOYMENT, 20),  # - name: vllm
        # - --tensor-parallel-size={{ .Values.tensorParallelSize }}; an 8B model at TP2 on H100 blocks without a
        # declared load: one GPU keeps the doctrine's KV reserve (weights × 1.4) beside the weights
        ("SW104", "mandatory", DEPLOYMENT, 24),
    ]  # no SW103: the chart declares no load (vLLM's --max-num-seqs is a cap, not a load)
    (w,) = doc["workloads"]
    assert (w["subject"], w["replicas"], w["tensor_parallel_size"], w["file"], w["cost"]["nodes"]) == (
        "Deployment RELEASE-NAMESPACE/llm-llm", 2, 2, DEPLOYMENT, 1)
    assert doc["summary"]["files"] == 2  # the two templates: service.yaml and deployment.yaml


@pytest.mark.parametrize(("message", "where"), [
    ("parse error at (llm/templates/deployment.yaml:9): unexpected <template> in operand",
     ("c/llm/templates/deployment.yaml", 9)),
    ("execution error at (llm/templates/deployment.yaml:8:15): replicas is required", ("c/llm/templates/deployment.yaml", 8)),
    ('template: llm/templates/deployment.yaml:8:22: executing "llm/templates/deployment.yaml" at <.Values.a.b>: nil',
     ("c/llm/templates/deployment.yaml", 8)),
    ("execution error at (llm/charts/redis/templates/x.yaml:3:1): no", ("c/llm/charts/redis/templates/x.yaml", 3)),
    ("YAML parse error on llm/templates/deployment.yaml: error converting YAML to JSON: yaml: line 2: did not find",
     ("c/llm/templates/deployment.yaml", None)),
    ("cannot load values.yaml: error converting YAML to JSON: yaml: line 2: exceeded max depth of 10000",
     ("c/llm/values.yaml", 2)),
    ("cannot load Chart.yaml: error unmarshaling JSON: json: cannot unmarshal array", ("c/llm/Chart.yaml", None)),
    ("failed to parse prod.yaml: error converting YAML to JSON: yaml: line 4: mapping values", ("prod.yaml", 4)),
    ("failed to parse other.yaml: error converting YAML to JSON: yaml: line 4: mapping values", (None, None)),
    ("An error occurred while checking for chart dependencies: missing in charts/ directory: redis", (None, None)),
    # fuzz25: a subchart's broken file is the subchart's (a folder: its file and line; packed: the archive), never
    # the chart's own values.yaml
    ("error unpacking subchart sub in llm: cannot load values.yaml: error converting YAML to JSON: yaml: line 2: did",
     ("c/llm/charts/sub/values.yaml", 2)),
    ("error unpacking subchart sub in llm: error unpacking subchart in in sub: cannot load Chart.yaml: error conv",
     ("c/llm/charts/sub/charts/in/Chart.yaml", None)),
    ("error unpacking subchart sub.tgz in llm: cannot load values.yaml: error converting YAML to JSON: yaml: line 2: d",
     ("c/llm/charts/sub.tgz", None)),
    ("error unpacking subchart sub in llm: error unpacking subchart in.tgz in sub: error unpacking subchart c.tgz in "
     "in: cannot load values.yaml: error converting YAML to JSON: yaml: document contains excessive aliasing",
     ("c/llm/charts/sub/charts/in.tgz", None)),
    ("error unpacking subchart sub.tgz in llm: chart illegally references parent directory", ("c/llm/charts/sub.tgz", None)),
    ("error unpacking subchart sub in llm: chart illegally references parent directory", (None, None)),
])
def test_where_a_helm_error_is(message, where):
    """hostile9: each helm failure was an input error at the chart's Chart.yaml without a line; helm's words say the
    template and its line, or the values file (the chart's own, or a --values file of the run) and its line."""
    assert helm_error_location(f"helm template failed: Error: {message}", "c/llm", ["prod.yaml"]) == where


#: A chart whose vLLM line prints two values (newuser15): ``{{ .Values.command }}`` set in values.yaml, the
#: parallel size not; the ``--max-model-len`` line has a default, so helm never renders it empty.
_UNSET_TEMPLATE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: ["/bin/sh", "-c"]
          args:
            - {{ .Values.command }} --tensor-parallel-size {{ .Values.engine.tensorParallelSize }}
            - --max-model-len={{ .Values.maxModelLen | default 8192 }}
          ports:
            - containerPort: {{ $.Values.port }}
"""


def _unset_chart(tmp_path, values: str):
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(values)
    (chart / "templates" / "deployment.yaml").write_text(_UNSET_TEMPLATE)
    return str(chart)


def _errors_at(chart: str, *where: tuple[str, int], values=(), sets=()) -> list[str]:
    inv = Inventory()
    inv.errors += [InputError("--tensor-parallel-size: expects a value", f"{chart}/{f}", n) for f, n in where]
    name_unset_values(inv, chart, list(values), list(sets))
    return [e.message for e in inv.errors]


UNSET_SAYS = ("--tensor-parallel-size: expects a value (the template prints {{ .Values.engine.tensorParallelSize }} "
              "at line 13, a value that no values file (values.yaml included) and no --set gives, so helm rendered it "
              "empty: give `engine.tensorParallelSize` in the release's values)")


def test_a_null_a_values_file_writes_deletes_the_charts_default_as_helm_coalesces(tmp_path):
    """mend25: helm deletes a key a release's values set to null, the chart's default with it (pkg/chartutil
    coalesce.go, coalesceValues and CoalesceTables: "When the YAML value is null, we remove the value's key"), at any
    depth; values files merge among themselves first, the last one's value winning (a null too). shardwise kept the
    default and named nothing."""
    chart = _unset_chart(tmp_path, "command: x\nengine: {tensorParallelSize: 1, maxNumSeqs: 8}\nport: 8000\n")
    at = ("templates/deployment.yaml", 12)
    assert _errors_at(chart, at) == ["--tensor-parallel-size: expects a value"]  # the chart's default: given

    def files(*texts: str) -> list[str]:
        paths = []
        for i, text in enumerate(texts):
            path = tmp_path / f"v{len(list(tmp_path.iterdir()))}-{i}.yaml"
            path.write_text(text)
            paths.append(str(path))
        return paths

    # the nested key set to null, or the map above it: deleted, helm rendered it empty
    assert _errors_at(chart, at, values=files("engine: {tensorParallelSize: null}\n")) == [UNSET_SAYS]
    assert _errors_at(chart, at, values=files("engine: null\n")) == [UNSET_SAYS]
    assert _errors_at(chart, at, values=files("engine:\n  tensorParallelSize:\n")) == [UNSET_SAYS]  # YAML's null
    # a later values file sets it again: given; a later one sets it to null: deleted
    assert _errors_at(chart, at, values=files("engine: {tensorParallelSize: null}\n", "engine: {tensorParallelSize: 2}\n")
                      ) == ["--tensor-parallel-size: expects a value"]
    assert _errors_at(chart, at, values=files("engine: {tensorParallelSize: 2}\n", "engine: {tensorParallelSize: null}\n")
                      ) == [UNSET_SAYS]
    # a sibling set to null leaves the key alone
    assert _errors_at(chart, at, values=files("engine: {maxNumSeqs: null}\n")) == [
        "--tensor-parallel-size: expects a value"]


def test_an_error_where_a_template_prints_a_value_never_given_names_the_value(tmp_path):
    """newuser15: a pull request that adds ``--tensor-parallel-size {{ .Values.engine.tensorParallelSize }}`` and no
    value failed with ``--tensor-parallel-size: expects a value`` at the line above it (``args:``, where the rendered
    line points): the error now names the value to give. The lines that point there (no literal text of their own)
    are read; a value set by values.yaml, a values file or --set, or printed through a pipeline, is not named."""
    chart = _unset_chart(tmp_path, "command: vllm serve meta-llama/Llama-3.1-8B-Instruct\nport: 8000\n")
    assert _errors_at(chart, ("templates/deployment.yaml", 12)) == [UNSET_SAYS]  # args: (the line the error is at)
    assert _errors_at(chart, ("templates/deployment.yaml", 13)) == [UNSET_SAYS]
    # the next line has its own literal text: an error there is not about line 13's value
    assert _errors_at(chart, ("templates/deployment.yaml", 14)) == ["--tensor-parallel-size: expects a value"]
    prod = tmp_path / "prod.yaml"
    prod.write_text("engine: {tensorParallelSize: 2}\n")
    assert _errors_at(chart, ("templates/deployment.yaml", 12), values=[str(prod)]) == [
        "--tensor-parallel-size: expects a value"]
    for given in ("engine.tensorParallelSize=2", "a=1,engine.tensorParallelSize=2"):
        assert _errors_at(chart, ("templates/deployment.yaml", 12), sets=[("--set", given)]) == [
            "--tensor-parallel-size: expects a value"], given
    # a value the chart's values set to something that is not a map on the way is not called missing
    other = _unset_chart(tmp_path / "o", "command: x\nengine: [1]\nport: 8000\n")
    assert _errors_at(other, ("templates/deployment.yaml", 12)) == ["--tensor-parallel-size: expects a value"]
    # $.Values at the root, unset: named too (line 16, a line with literal text of its own)
    noport = _unset_chart(tmp_path / "p", "command: x\nengine: {tensorParallelSize: 1}\n")
    assert _errors_at(noport, ("templates/deployment.yaml", 16)) == [
        "--tensor-parallel-size: expects a value (the template prints {{ .Values.port }} at line 16, a value that no "
        "values file (values.yaml included) and no --set gives, so helm rendered it empty: give `port` in the "
        "release's values)"]
    # a values file that cannot be read: nothing is said of any value; an error outside the chart's own templates
    # (a subchart's, whose values are its own) neither
    assert _errors_at(chart, ("templates/deployment.yaml", 12), values=[str(tmp_path / "absent.yaml")]) == [
        "--tensor-parallel-size: expects a value"]
    assert _errors_at(chart, ("charts/sub/templates/deployment.yaml", 12)) == ["--tensor-parallel-size: expects a value"]


def test_a_set_to_null_gives_no_value_as_helm_deletes_the_key(tmp_path):
    """mend29: ``--set key=null`` (null in any case) is nil to helm's strvals (pkg/strvals/parser.go typedVal), and
    coalescing deletes the key, the chart's default and a values file's value with it: the template prints nothing.
    It counted as given, and the error said only what the rendered text lacked. ``--set-string`` gives the string
    ``null``; the last --set that names the key decides."""
    chart = _unset_chart(tmp_path, "command: x\nengine: {tensorParallelSize: 1}\nport: 8000\n")
    at = ("templates/deployment.yaml", 12)
    prod = tmp_path / "prod.yaml"
    prod.write_text("engine: {tensorParallelSize: 2}\n")
    for sets in ([("--set", "engine.tensorParallelSize=null")], [("--set", "engine.tensorParallelSize=NULL")],
                 [("--set", "engine=null")], [("--set", "a=1,engine.tensorParallelSize=Null")],
                 [("--set", "engine.tensorParallelSize=2"), ("--set", "engine.tensorParallelSize=null")]):
        assert _errors_at(chart, at, values=[str(prod)], sets=sets) == [UNSET_SAYS], sets
    for sets in ([("--set-string", "engine.tensorParallelSize=null")],
                 [("--set", "engine.tensorParallelSize=null"), ("--set", "engine.tensorParallelSize=2")],
                 [("--set", "engine=null"), ("--set", "engine.tensorParallelSize=4")],
                 [("--set", "engine.maxNumSeqs=null")]):  # a sibling: the key keeps its value
        assert _errors_at(chart, at, sets=sets) == ["--tensor-parallel-size: expects a value"], sets


@pytest.mark.tools
def test_a_chart_rendering_a_value_never_given_fails_naming_it(tools_on_path, capsys, tmp_path):
    require_tool("helm")
    # engine: {} (a value missing inside a map the values have; where the map is missing too, helm itself fails:
    # "nil pointer evaluating interface {}.tensorParallelSize", at the template's line)
    chart = _unset_chart(tmp_path, "command: vllm serve meta-llama/Llama-3.1-8B-Instruct\nengine: {}\nport: 8000\n")
    rc, doc, _ = lint_json(capsys, chart)
    assert rc == 2
    assert [(e["file"], e["line"], e["message"]) for e in doc["input_errors"]] == [
        (f"{chart}/templates/deployment.yaml", 12, UNSET_SAYS)]
    rc, doc, _ = lint_json(capsys, chart, "--set", "engine.tensorParallelSize=1")
    assert (doc["input_errors"], [w["tensor_parallel_size"] for w in doc["workloads"]]) == ([], [1])


@pytest.mark.tools
def test_a_failing_required_is_an_input_error_at_its_template_line(tools_on_path, capsys, tmp_path):
    require_tool("helm")
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: other-name\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  a: {{ required \"set a\" .Values.a }}\n")
    rc, doc, _ = lint_json(capsys, str(chart))
    assert rc == 2
    [error] = doc["input_errors"]
    assert (error["file"], error["line"]) == (f"{chart}/templates/cm.yaml", 5)
    assert error["message"].startswith("helm template failed: Error: execution error at (other-name/templates/cm.yaml:5:")


@pytest.mark.tools
def test_set_and_values_reach_helm(tools_on_path, capsys, tmp_path):
    require_tool("helm")
    values = tmp_path / "prod.yaml"
    values.write_text("tensorParallelSize: 1\nresources: {limits: {nvidia.com/gpu: 1}}\n")
    rc, doc, _ = lint_json(capsys, CHART, "--values", str(values), "--set", "serviceType=LoadBalancer")
    assert rc == 0
    assert findings(doc) == [
        ("SW305", "advisory", DEPLOYMENT, 1),
        ("SW407", "advisory", DEPLOYMENT, 20),
        # type: LoadBalancer from --set; advisory: on the chart's EKS nodes (p5.48xlarge) with no scheme annotation,
        # the AWS Load Balancer Controller or Auto Mode would make it internal, the in-tree provider public
        ("SW306", "advisory", f"{CHART}/templates/service.yaml", 6),
    ]


@pytest.mark.parametrize("kind", ["fifo", "device", "directory", "larger than a file may be"])
def test_a_values_file_helm_could_not_read_is_refused_before_helm_runs(capsys, monkeypatch, tmp_path, kind):
    """helm reads a --values file whole: a FIFO held the run for the 120 s timeout, /dev/zero grew helm past
    3 GB until it crashed with a Go stack in the message. A regular one is held to the bytes any file may hold
    (hostile18: 32 MiB, as every input; one byte more is refused, helm not run)."""
    from shardwise.rules.model.files import MAX_FILE_BYTES

    monkeypatch.chdir(ROOT)
    called = tmp_path / "called"
    (tmp_path / "helm").write_text(f"#!/bin/sh\ntouch {called}\nexit 1\n")
    (tmp_path / "helm").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    values = {"fifo": str(tmp_path / "v.yaml"), "device": "/dev/zero", "directory": str(tmp_path),
              "larger than a file may be": str(tmp_path / "v.yaml")}[kind]
    if kind == "fifo":
        os.mkfifo(values)
    elif kind != "device" and kind != "directory":
        with open(values, "wb") as f:  # sparse: no disk used
            f.truncate(MAX_FILE_BYTES + 1)
    what = {"fifo": "cannot read: it is a FIFO (named pipe), not a regular file; shardwise reads only regular files",
            "device": "cannot read: it is a character device, not a regular file; shardwise reads only regular files",
            "directory": "cannot read: it is a directory, not a regular file; shardwise reads only regular files",
            "larger than a file may be": "not read: the file is larger than 32 MiB, the most shardwise reads from one "
                                         "file"}[kind]
    rc, doc, _ = lint_json(capsys, CHART, "--values", values)
    assert (rc, doc["input_errors"]) == (2, [{
        "file": f"{CHART}/Chart.yaml", "line": None,
        "message": f"the chart is not rendered: --values {values}: {what}"}])
    assert not called.exists()


def _fake_helm(tmp_path, monkeypatch, script: str) -> None:
    """A ``helm`` on PATH that runs ``script`` (sh), and nothing else on PATH but what it needs."""
    (tmp_path / "helm").write_text(f"#!/bin/sh\n{script}\n")
    (tmp_path / "helm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin")


def test_a_chart_that_renders_without_end_is_stopped_at_the_limit(capsys, monkeypatch, tmp_path):
    """The whole output was held in memory until helm ended (a `range until 100000000` in a template)."""
    monkeypatch.chdir(ROOT)
    _fake_helm(tmp_path, monkeypatch, "exec yes 'key: value'")
    rc, doc, _ = lint_json(capsys, CHART)
    assert (rc, doc["input_errors"]) == (2, [{
        "file": f"{CHART}/Chart.yaml", "line": None,
        "message": "helm template wrote more than 32 MiB, the most shardwise reads from one file: stopped"}])


def test_a_chart_that_does_not_finish_is_stopped_at_the_timeout(capsys, monkeypatch, tmp_path):
    from shardwise.rules.adapters import charts

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(charts, "_TIMEOUT_S", 1)
    _load(monkeypatch, 0.5, 2)  # an idle machine: the limit as it is
    _fake_helm(tmp_path, monkeypatch, "echo 'kind: ConfigMap'; exec sleep 60")
    rc, doc, _ = lint_json(capsys, CHART)
    assert (rc, doc["input_errors"]) == (2, [{
        "file": f"{CHART}/Chart.yaml", "line": None, "message": "helm template did not finish in 1 s"}])


def _load(monkeypatch, load: float, cores: int) -> None:
    from shardwise.rules.model import wall

    monkeypatch.setattr(wall.os, "getloadavg", lambda: (load, 0.0, 0.0))
    monkeypatch.setattr(wall.os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)


def test_the_wall_time_limit_grows_with_the_load_per_core(capsys, monkeypatch, tmp_path):
    """loadlimits1: on a runner whose cores are shared the tool has the CPU part of the time, and a fixed wall limit
    stopped a good chart as "did not finish"; at a load of 5 per core the limit is five times as long."""
    from shardwise.rules.adapters import charts

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(charts, "_TIMEOUT_S", 1)
    _load(monkeypatch, 10.0, 2)
    _fake_helm(tmp_path, monkeypatch, "echo 'kind: ConfigMap'; exec sleep 60")
    rc, doc, _ = lint_json(capsys, CHART)
    assert (rc, doc["input_errors"]) == (2, [{
        "file": f"{CHART}/Chart.yaml", "line": None,
        "message": "helm template did not finish in 5 s (1 s times the machine's load per core)"}])


def test_a_chart_holding_a_link_out_of_the_repository_is_not_rendered(capsys, monkeypatch, tmp_path):
    """fuzz20: helm follows every symbolic link of the chart it loads ("Contents of linked file included and used"),
    so a template linked to a file elsewhere on the machine was rendered and linted as the chart's; a folder the chart
    links to inside the repository is walked too. helm does not run; a link inside the repository is helm's."""
    import shutil

    repo, outside = tmp_path / "repo", tmp_path / "elsewhere"
    shutil.copytree(ROOT / CHART, repo / "llm")
    (outside / "sub").mkdir(parents=True)
    (outside / "deploy.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n")
    (repo / "shared").mkdir()
    (repo / "shared" / "labels.tpl").write_text('{{- define "x.extra" -}}a: b{{- end -}}\n')
    (repo / "llm" / "templates" / "labels.tpl").symlink_to("../../shared/labels.tpl")  # inside: fine
    monkeypatch.chdir(repo)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_helm(bin_dir, monkeypatch, f"touch {tmp_path / 'ran'}; exit 1")
    for link, target in (("llm/templates/extra.yaml", outside / "deploy.yaml"), ("llm/files", outside),
                         ("shared/out", outside / "sub")):
        (repo / link).symlink_to(target)
        if link.startswith("shared"):
            (repo / "llm" / "templates" / "shared").symlink_to("../../shared")  # inside, holding a link out
        rc, doc, _ = lint_json(capsys, "llm")
        where = "llm/templates/shared/out" if link.startswith("shared") else link
        assert (rc, doc["input_errors"]) == (2, [{
            "file": where, "line": None,
            "message": f"the chart is not rendered: a symbolic link to {target}, outside the current directory; "
                       "helm would read what it leads to (shardwise reads nothing from outside the repository)"}]), link
        assert not (tmp_path / "ran").exists()
        (repo / link).unlink()
    rc, doc, _ = lint_json(capsys, "llm")  # the links inside the repository: helm runs (and fails, as written)
    assert rc == 2 and (tmp_path / "ran").exists()


def test_a_tool_is_stopped_at_its_cpu_limit(capsys, monkeypatch, tmp_path):
    """fuzz20: a template that loops without writing (`tpl` of a value that calls `tpl` on itself) ran helm for its
    whole wall-time limit, at a core's full use; it is stopped at the CPU limit (the hard one: SIGKILL)."""
    from shardwise.rules.adapters import charts

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(charts, "_CPU_S", 1)
    _fake_helm(tmp_path, monkeypatch, "while :; do :; done")
    rc, doc, _ = lint_json(capsys, CHART)
    assert (rc, doc["input_errors"]) == (2, [{
        "file": f"{CHART}/Chart.yaml", "line": None,
        "message": "helm template used more than 1 s of CPU, the most shardwise lets it use: stopped"}])


def test_a_tool_is_stopped_at_its_memory_limit(capsys, monkeypatch, tmp_path):
    """fuzz20: helm builds a template's whole output in memory before it writes any (`range until 100000000` took
    9 GiB); the tool gets no more data than the limit."""
    import sys

    from shardwise.rules.adapters import charts

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(charts, "_MEMORY_BYTES", 64 << 20)
    _fake_helm(tmp_path, monkeypatch, f"exec {sys.executable} -c 'b = bytearray(256 << 20)'")
    rc, doc, _ = lint_json(capsys, CHART)
    assert (rc, doc["input_errors"][0]["message"].split("; ")[-1]) == (2, "MemoryError")


GO_STACK_OVERFLOW = """\
runtime: goroutine stack exceeds 1000000000-byte limit
runtime: sp=0x3c0c4fe403a8 stack=[0x3c0c4fe40000, 0x3c0c6fe40000]
fatal error: stack overflow

runtime stack:
runtime.throw({0x3439bb6?, 0x7ffd2a5e0e28?})
\truntime/panic.go:1229 +0x48 fp=0x7ffd2a5e0dd8 sp=0x7ffd2a5e0da8 pc=0x1209088
runtime.newstack()
\truntime/stack.go:1164 +0x5c5 fp=0x7ffd2a5e0f08 sp=0x7ffd2a5e0dd8 pc=0x11f3f25
"""


MEMORY_SAID = "out of memory: shardwise lets helm and kustomize use at most 1024 MiB of memory"
#: The shape helm's crash took on ``range until 100000000`` under shardwise's 1 GiB limit in the runs that did not say
#: ``fatal error: runtime: out of memory`` (fuzz26, hostile case fz20-chart-range-1e8): a signal in the runtime's own
#: code (Go runtime/signal_unix.go ``sigpanic``), then the register dump; addresses and frames are illustrative.
GO_SIGNAL_IN_RUNTIME = """\
fatal error: unexpected signal during runtime execution
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x46c2b5]

runtime stack:
runtime.throw({0x2a5f0b1?, 0x0?})
\truntime/panic.go:1101 +0x48 fp=0x7ffc7d1e1c30 sp=0x7ffc7d1e1c00 pc=0x4665a8
rax    0x0
rbx    0xc0000a6000
rip    0x46c2b5
rflags 0x10246
cs     0x33
fs     0x0
gs     0x0
"""
#: The bare form of runtime/signal_unix.go ``fatalsignal`` (a signal where no goroutine can take it).
GO_FATALSIGNAL = """\
SIGSEGV: segmentation violation
PC=0x46c2b5 m=4 sigcode=1 addr=0x0

goroutine 0 gp=0xc000102a80 m=4 mp=0xc000100008 [idle]:
rax    0x0
cs     0x33
fs     0x0
gs     0x0
"""


@pytest.mark.parametrize(("stderr", "said"), [
    (GO_STACK_OVERFLOW + "\tcreated by main.runInstall in goroutine 1\n" * 2000,
     "fatal error: stack overflow (goroutine stack exceeds 1000000000-byte limit)"),
    ("runtime: out of memory: cannot allocate 4194304-byte block (7602176 in use)\nfatal error: out of memory\n\n"
     "goroutine 1 gp=0x4dfa79021e0 m=0 mp=0x4f1fa40 [running, locked to thread]:\n",
     "out of memory: shardwise lets helm and kustomize use at most 1024 MiB of memory"),
    ("fatal error: runtime: out of memory\n\nruntime stack:\n",
     "out of memory: shardwise lets helm and kustomize use at most 1024 MiB of memory"),
    ("fatal error: out of memory allocating heap arena metadata\n\nruntime stack:\n",
     "out of memory: shardwise lets helm and kustomize use at most 1024 MiB of memory"),
    ("panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation "
     "code=0x1 addr=0x0 pc=0x1d0a2f5]\n\ngoroutine 1 [running]:\n",
     "panic: runtime error: invalid memory address or nil pointer dereference"),
    # fuzz26: under the memory limit the runtime sometimes crashes by a signal in its own code instead
    (GO_SIGNAL_IN_RUNTIME, MEMORY_SAID),
    (GO_FATALSIGNAL, MEMORY_SAID),
    ("unexpected fault address 0x7f3a00000000\nfatal error: fault\n[signal SIGBUS: bus error code=0x2 "
     "addr=0x7f3a00000000 pc=0x46a1b3]\n\ngoroutine 1 gp=0xc000002380 m=0 mp=0x4f1fa40 [running]:\n", MEMORY_SAID),
    ("fatal error: runtime: cannot allocate memory\n\ngoroutine 1 [running]:\n", MEMORY_SAID),
    ("runtime: failed to create new OS thread (have 7 already; errno=12)\nruntime: may need to increase max user "
     "processes (ulimit -u)\nfatal error: newosproc\n", MEMORY_SAID),
    ("runtime: out of memory: cannot allocate 8192-byte block (3932160 in use)\n", MEMORY_SAID),
    ("Error: failed to run post-renderer ./render: fork/exec ./render: cannot allocate memory\n", MEMORY_SAID),
    ("Error: error while running post render on files: signal: killed\n",
     "a program it ran was killed (signal: killed): shardwise lets helm and kustomize and what they run use at most "
     "1024 MiB of memory and 30 s of CPU"),
    # a template's own words are not the runtime's
    ("Error: values don't meet the specifications of the schema(s): out of memory\n",
     "Error: values don't meet the specifications of the schema(s): out of memory"),
    ("fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\n",
     "fatal error: all goroutines are asleep - deadlock!"),
])
def test_a_go_crash_is_reported_by_its_fatal_error_not_its_dump(capsys, monkeypatch, tmp_path, stderr, said):
    """fuzz20: helm's crash (a stack overflow of a template that calls itself through `tpl`) was reported by the last
    lines of its goroutine dump (`created by main.runInstall in goroutine 1; helm.sh/helm/v3@v3.22.0/...`). The
    shapes are helm v3.22.0's (Go 1.25) own, on those templates."""
    monkeypatch.chdir(ROOT)
    (tmp_path / "stderr.txt").write_text(stderr)
    _fake_helm(tmp_path, monkeypatch, f"cat {tmp_path / 'stderr.txt'} >&2; exit 2")
    rc, doc, _ = lint_json(capsys, CHART)
    assert (rc, doc["input_errors"]) == (2, [{
        "file": f"{CHART}/Chart.yaml", "line": None, "message": f"helm template failed: {said}"}])


def test_a_tool_that_fails_is_reported_with_the_last_lines_of_its_errors(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    _fake_helm(tmp_path, monkeypatch, "yes 'noise' | head -n 40000 >&2; echo 'Error: one' >&2; "
                                      "echo 'Error: two' >&2; exit 3")
    rc, doc, _ = lint_json(capsys, CHART)
    assert (rc, doc["input_errors"]) == (2, [{
        "file": f"{CHART}/Chart.yaml", "line": None,
        "message": "helm template failed: noise; Error: one; Error: two"}])


def test_a_tools_klog_header_is_not_part_of_its_error(capsys, monkeypatch, tmp_path):
    """fuzz18 (seed 7301 case 858): kubectl kustomize (v1.32) writes its error through klog, each line headed by the
    time and its process id (``E1206 20:16:40.943496   21334 run.go:72] ``), so two lints of the same inputs gave
    two reports. The header is dropped; a line that is only a header says nothing."""
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/kustomize/base", tmp_path / "base")
    _stop_kustomize(tmp_path, monkeypatch, "echo 'W1206 20:16:40.943001   21334 warnings.go:70] ' >&2; "
                                           "echo 'E1206 20:16:40.943496   21334 run.go:72] \"command failed\" "
                                           "err=\"kustomization.yaml is empty\"' >&2; exit 1")
    rc, doc, _ = lint_json(capsys, "base")
    assert (rc, doc["input_errors"][0]["message"].split(";")[0]) == (
        2, 'kustomize build failed: "command failed" err="kustomization.yaml is empty"')


@pytest.mark.tools
def test_a_helm_error_is_an_input_error_of_the_chart(tools_on_path, capsys):
    require_tool("helm")
    rc, doc, _ = lint_json(capsys, CHART, "--set", "image=oops")
    assert rc == 2
    (e,) = doc["input_errors"]
    # hostile9: at the template line helm names (was the chart's Chart.yaml, no line)
    assert (e["file"], e["line"]) == (f"{CHART}/templates/deployment.yaml", 21)
    assert e["message"].startswith("helm template failed: Error: template: llm/templates/deployment.yaml:21:")


def test_without_helm_the_error_says_how_to_install_it(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it
    rc, doc, err = lint_json(capsys, CHART)
    assert (rc, doc["input_errors"]) == (2, [{
        "file": f"{CHART}/Chart.yaml", "line": None,
        "message": "this Helm chart cannot be rendered: the helm binary is not on PATH; install it from "
                   "https://helm.sh/docs/intro/install/ (or: go install helm.sh/helm/v3/cmd/helm@v3.22.0), or render "
                   f"it yourself: helm template NAME {CHART} | shardwise lint -"}])


def test_a_chart_met_while_searching_is_not_rendered(capsys, monkeypatch):
    """With building switched off (newuser14: else helm renders it, tests/adapters/test_found_builds.py)."""
    monkeypatch.chdir(ROOT)
    rc, doc, _ = lint_json(capsys, "tests/fixtures/charts", "--no-build-found")
    # nothing else read: no silent pass over the skipped chart, an input error that names it and how to lint it
    assert doc["input_errors"] == [{
        "file": None, "line": None,
        "message": "no file was read: the only inputs met are charts or kustomizations, not rendered when met while "
                   f"searching a folder (or as .): {CHART} (Helm chart); to lint them: shardwise lint {CHART}"}]
    assert (rc, doc["workloads"], doc["skipped_files"]) == (2, [], [
        {"file": f"{CHART}/Chart.yaml", "reason": "Helm chart metadata"},
        {"file": f"{CHART}/values.yaml", "reason": "Helm values"},
        {"file": f"{CHART}/templates/deployment.yaml", "reason": "Helm chart template (not rendered)"},
        {"file": f"{CHART}/templates/service.yaml", "reason": "Helm chart template (not rendered)"},
    ])


def _repository_with_a_chart(tmp_path, chart_files: dict[str, str]) -> None:
    """A service's repository: a plain manifest that is read, and a chart of its own under charts/."""
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "config.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  LOG_LEVEL: info\n")
    for rel, text in chart_files.items():
        path = tmp_path / "charts" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_chart_that_runs_vllm_met_beside_other_files_is_named_by_sw005(capsys, monkeypatch, tmp_path):
    """A service's own chart, met while searching a repository that holds other files too, and not rendered (here
    building is switched off; without helm on PATH, or where its render fails, the same): its workloads are not
    linted, and the report says so where the chart says it runs vLLM (SW005 at the first mention, with why and the
    command that lints it) instead of passing with only a count of skipped files (adopt20)."""
    chart = os.path.join(ROOT, CHART)
    files = {}
    for folder, _, names in os.walk(chart):
        for n in names:
            full = os.path.join(folder, n)
            with open(full) as fh:
                files[os.path.join("llm", os.path.relpath(full, chart))] = fh.read()
    _repository_with_a_chart(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, ".", "--no-build-found")
    assert (rc, doc["input_errors"], doc["workloads"]) == (0, [], [])
    assert [(f["code"], f["level"], f["subject"], f["file"], f["line"], f["message"]) for f in doc["findings"]] == [
        ("SW005", "advisory", "Helm chart llm", "charts/llm/templates/deployment.yaml", 24,
         "SW005: not read: its templates/deployment.yaml runs vLLM (`--tensor-parallel-size` at line 24), but this "
         "chart, met while searching a folder, was not rendered (building what a search meets is switched off: "
         "--no-build-found, or build_found = false in the configuration), so none of its workloads was linted; to "
         "lint them: shardwise lint charts/llm (with --values FILE for the values you deploy with)")]
    # --fail-on advisory makes it fail the run, as an unread server should where a team gates on advisories
    assert main(["lint", ".", "--no-build-found", "--fail-on", "advisory", "--format", "github"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("::error file=charts/llm/templates/deployment.yaml,line=24,title=vllm-mentioned-not-read::"
                          "SW005: not read: its templates/deployment.yaml runs vLLM")


def test_a_chart_that_runs_no_vllm_met_while_searching_is_no_finding(capsys, monkeypatch, tmp_path):
    """A chart of something else (a cache, a dashboard) met while searching and not rendered (building switched off)
    is skipped as before, with no finding: a Service or label named vllm is no vLLM server."""
    _repository_with_a_chart(tmp_path, {
        "redis/Chart.yaml": "apiVersion: v2\nname: redis\nversion: 0.1.0\n",
        "redis/values.yaml": "image:\n  repository: redis\n  tag: '7'\nvllmService: vllm-openai\n",
        "redis/templates/deployment.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n"
            "  labels: {app.kubernetes.io/part-of: vllm}\nspec:\n  template:\n    spec:\n      containers:\n"
            "        - name: redis\n          image: \"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"\n"
            "          env: [{name: UPSTREAM, value: 'http://vllm-openai:8000/v1'}]\n"),
    })
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, ".", "--no-build-found")
    assert (rc, doc["input_errors"], doc["findings"]) == (0, [], [])
    assert [s["reason"] for s in doc["skipped_files"]] == [
        "Helm chart metadata", "Helm values", "Helm chart template (not rendered)"]


#: A values file in the shape of vLLM production-stack's (tutorials/assets/values-*.yaml): the chart renders a
#: Deployment of vllm/vllm-openai from it; shardwise reads a values file only with its chart.
STACK_VALUES = """\
servingEngineSpec:
  modelSpec:
  - name: "llama3"
    repository: "vllm/vllm-openai"
    tag: "v0.9.1"
    modelURL: "meta-llama/Llama-3.1-8B-Instruct"
    replicaCount: 1
    requestGPU: 1
    vllmConfig:
      tensorParallelSize: 2
"""


def _values_findings(doc: dict) -> list[tuple]:
    return [(f["code"], f["level"], f["subject"], f["file"], f["line"], f["message"]) for f in doc["findings"]]


def test_a_values_file_that_configures_vllm_named_alone_is_named_by_sw005(capsys, monkeypatch, tmp_path):
    """newuser9: `shardwise lint values-prod.yaml` read nothing and passed (`skipped 1 file that is not an input:
    Helm values×1 — passed`), though the file configures vLLM. SW005 now names it with how to lint what it
    configures: through helm template where no chart is beside it, with the chart's folder where one is."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "values-prod.yaml").write_text(STACK_VALUES)
    rc, doc, _ = lint_json(capsys, "values-prod.yaml")
    assert (rc, doc["input_errors"], doc["workloads"]) == (0, [], [])
    assert _values_findings(doc) == [
        ("SW005", "advisory", "Helm values values-prod.yaml", "values-prod.yaml", 4,
         "SW005: not read: it configures vLLM (`repository: vllm/vllm-openai` at line 4), but a Helm values file is "
         "read only with its chart, so none of the workloads it configures was linted; to lint them: helm template "
         "RELEASE CHART -f values-prod.yaml | shardwise lint - (CHART: the chart it is deployed with)")]
    # the same file in its chart's folder: the chart is named, with the file as --values
    (tmp_path / "charts" / "stack").mkdir(parents=True)
    (tmp_path / "charts" / "stack" / "Chart.yaml").write_text("apiVersion: v2\nname: stack\nversion: 0.1.0\n")
    (tmp_path / "charts" / "stack" / "values-prod.yaml").write_text(STACK_VALUES)
    rc, doc, _ = lint_json(capsys, "charts/stack/values-prod.yaml")
    assert (rc, [f[5].rpartition("to lint them: ")[2] for f in _values_findings(doc)]) == (
        0, ["shardwise lint charts/stack --values charts/stack/values-prod.yaml"])
    # met while searching a folder beside a manifest that is read: said too; --fail-on advisory fails on it
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "config.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  LOG_LEVEL: info\n")
    os.replace(tmp_path / "values-prod.yaml", tmp_path / "deploy" / "values-prod.yaml")
    rc, doc, _ = lint_json(capsys, "deploy", "--fail-on", "advisory")
    assert (rc, [(f[0], f[3], f[4]) for f in _values_findings(doc)]) == (1, [("SW005", "deploy/values-prod.yaml", 4)])


def test_a_values_file_of_something_else_named_alone_is_no_finding(capsys, monkeypatch, tmp_path):
    """A values file that names no vLLM server (a cache's; a URL of a Service named vllm) is skipped as before."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "values.yaml").write_text(
        "image:\n  repository: redis\n  tag: '7'\nupstream: http://vllm-openai:8000/v1\n")
    rc, doc, _ = lint_json(capsys, "values.yaml")
    assert (rc, doc["findings"], [s["reason"] for s in doc["skipped_files"]]) == (0, [], ["Helm values"])


def test_a_values_file_naming_a_vllm_build_under_a_registry_path_is_named_by_sw005(capsys, monkeypatch, tmp_path):
    """corpus24: Neural Magic's nm-vllm chart keeps its image as `repository: ghcr.io/neuralmagic/nm-vllm-openai`
    (an organisation's path under a registry, as `quay.io/rh-aiservices-bu/vllm-openai-ubi9` is); the values file
    named alone was skipped as `Helm values` without SW005, which only took `vllm-openai` one segment below a
    registry. Any registry path (a port included) now counts; a URL's host and a Service's name still do not."""
    monkeypatch.chdir(tmp_path)
    for n, (image, line) in enumerate([("ghcr.io/neuralmagic/nm-vllm-openai", 3),
                                       ("quay.io/rh-aiservices-bu/vllm-openai-ubi9", 3),
                                       ("registry.example.com:5000/ml/serving/vllm-openai", 3)]):
        name = f"values-{n}.yaml"
        (tmp_path / name).write_text(
            f"replicaCount: 1\nimage:\n  repository: {image}\n  tag: v0.1.0\nmodelName: mistralai/Mistral-7B-v0.1\n"
            "apiServer:\n  extraArgs: [--dtype, float16]\n")
        rc, doc, _ = lint_json(capsys, name)
        assert (rc, [(f[0], f[2], f[4]) for f in _values_findings(doc)]) == (
            0, [("SW005", f"Helm values {name}", line)])
        words = image.removesuffix("-ubi9")  # the mention quoted ends with the image's vllm-openai
        assert f"(`repository: {words}` at line {line})" in doc["findings"][0]["message"]
    (tmp_path / "values-url.yaml").write_text(
        "image:\n  repository: ghcr.io/acme/gateway\nupstream: http://vllm-openai:8000/v1\nvllmService: vllm-openai\n")
    rc, doc, _ = lint_json(capsys, "values-url.yaml")
    assert (rc, doc["findings"], [s["reason"] for s in doc["skipped_files"]]) == (0, [], ["Helm values"])


def test_a_values_file_naming_vllm_only_in_comments_is_no_finding(capsys, monkeypatch, tmp_path):
    """corpus24: AccelBench's chart values say `# ... route through <account>.dkr.ecr.<region>.amazonaws.com/dockerhub/
    vllm/vllm-openai` of the images its API pulls for the pods it creates, and an umbrella chart's values keep their
    vLLM models as commented examples (`#   - --tensor-parallel-size`); SW005 quoted those comments as the values
    configuring vLLM. A comment's line configures nothing: the first mention on a line of YAML is named."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "values.yaml").write_text(
        "api:\n  image: ghcr.io/acme/bench-api:1.2\n"
        "# When enabled, image pulls route through a mirror of docker.io/vllm/vllm-openai\n"
        "models:\n#  llama:\n#    args:\n#    - --tensor-parallel-size\n#    - \"1\"\n")
    rc, doc, _ = lint_json(capsys, "values.yaml")
    assert (rc, doc["findings"], [s["reason"] for s in doc["skipped_files"]]) == (0, [], ["Helm values"])
    # a comment above the image's line: the image's line is the one named
    (tmp_path / "values.yaml").write_text(
        "# -- images: https://hub.docker.com/r/vllm/vllm-openai/tags\nimage:\n  name: \"vllm/vllm-openai\"\n  tag: ''\n")
    rc, doc, _ = lint_json(capsys, "values.yaml")
    assert (rc, [(f[0], f[4]) for f in _values_findings(doc)]) == (0, [("SW005", 3)])
    assert "(`vllm/vllm-openai` at line 3)" in doc["findings"][0]["message"]


# ---------------------------------------------------------------------------------------- kustomize


@pytest.mark.tools
def test_kustomization_built_and_linted(tools_on_path, capsys):
    require_tool("kustomize")
    # newuser17: at the base's lines, through the overlay (was the build output's, `... (kustomize build)`: 1, 11, 14)
    where = ("tests/fixtures/kustomize/base/deployment.yaml (via tests/fixtures/kustomize/overlays/prod/"
             "kustomization.yaml)")
    for named in ("tests/fixtures/kustomize/overlays/prod", "tests/fixtures/kustomize/overlays/prod/kustomization.yaml"):
        rc, doc, _ = lint_json(capsys, named)
        assert rc == 1
        assert findings(doc) == [
            ("SW305", "advisory", where, 1),
            ("SW401", "mandatory", where, 12),  # - name: vllm (the container: no /dev/shm for TP4)
            # no SW104: 70B at TP2 leaves ~5 GiB of KV per GPU, within the error band, so TP2 does not pass the
            # `serves` judgement plan uses either (room for a KV cache beyond the band); plan recommends TP4 too
            ("SW106", "advisory", where, 14),
        ]
        (w,) = doc["workloads"]  # the overlay's namespace and replicas
        assert (w["subject"], w["replicas"], w["cost"]["nodes"], w["cost"]["hourly_usd"]) == (
            "Deployment serving/llama70b", 3, 2, 110.08)


@pytest.mark.tools
def test_a_kustomization_named_beside_a_chart_with_values_is_built_as_it_is(tools_on_path, capsys, tmp_path):
    """A platform repository lints its chart with the environment's values and its overlays in one run (the
    hard gate's one job): --values and --set go to the chart, the overlay builds as without them (newuser7: it was
    an input error, '--values and --set are Helm chart values; a Kustomize directory takes none')."""
    require_tool("helm")
    require_tool("kustomize")
    overlay = "tests/fixtures/kustomize/overlays/prod"
    values = tmp_path / "prod.yaml"
    values.write_text("tensorParallelSize: 1\nresources: {limits: {nvidia.com/gpu: 1}}\n")
    rc, alone, _ = lint_json(capsys, overlay)
    rc, chart, _ = lint_json(capsys, CHART, "--values", str(values))
    rc, both, _ = lint_json(capsys, CHART, overlay, "--values", str(values))
    assert (rc, both["input_errors"]) == (1, [])
    assert findings(both) == findings(chart) + findings(alone)
    assert [w["subject"] for w in both["workloads"]] == ["Deployment RELEASE-NAMESPACE/llm-llm", "Deployment serving/llama70b"]


BROKEN_KUSTOMIZATION = "tests/fixtures/kustomize-broken"


def test_a_kustomization_that_does_not_build_is_an_error_and_its_files_are_still_linted(capsys, monkeypatch,
                                                                                          tmp_path):
    """Without kustomize or kubectl (and the same for a build that fails): the error stays, and the
    directory's manifests are read one by one, so the workload in them is linted, not left unread."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it
    rc, doc, _ = lint_json(capsys, BROKEN_KUSTOMIZATION)
    where = f"{BROKEN_KUSTOMIZATION}/kustomization.yaml"
    assert (rc, doc["input_errors"]) == (2, [{
        "file": where, "line": None,
        "message": "this Kustomize directory cannot be built: neither kustomize nor kubectl is on PATH; install one "
                   "from https://kubectl.docs.kubernetes.io/installation/kustomize/ (or: go install "
                   "sigs.k8s.io/kustomize/kustomize/v5@v5.8.1; `kubectl kustomize` works too), or build it yourself: "
                   f"kustomize build {BROKEN_KUSTOMIZATION} | shardwise lint -; its 1 YAML file was read one by one "
                   "instead (patches, overlays and generators not applied)"}])
    (w,) = doc["workloads"]
    assert (w["subject"], w["file"], w["gpu"], w["max_model_len"]) == (
        "Deployment serving/llama8b", f"{BROKEN_KUSTOMIZATION}/deploy/llama8b.yaml", "L4", 131072)
    file = f"{BROKEN_KUSTOMIZATION}/deploy/llama8b.yaml"
    # the 131,072-token default does not fit one L4; at the args line, where --max-model-len goes
    assert findings(doc) == [("SW305", "advisory", file, 1), ("SW102", "mandatory", file, 19)]


@pytest.mark.tools
def test_a_kustomize_build_failure_keeps_its_message_and_reads_the_files(tools_on_path, capsys, monkeypatch):
    require_tool("kustomize")
    monkeypatch.chdir(ROOT)
    rc, doc, _ = lint_json(capsys, BROKEN_KUSTOMIZATION)
    (e,) = doc["input_errors"]
    assert rc == 2 and e["message"].startswith("kustomize build failed: Error: accumulating resources:"), e
    assert e["message"].endswith("; its 1 YAML file was read one by one instead (patches, overlays and generators "
                                 "not applied)")
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment serving/llama8b"]


def _special(path, kind: str) -> str:
    """``path`` made a FIFO, a directory, a link that loops or one that leads nowhere; what shardwise says it is."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        os.mkdir(path)
    elif kind == "loop":
        os.symlink(os.path.basename(path), path)
    else:
        os.symlink("nowhere", path)
    return {"fifo": "it is a FIFO (named pipe), not a regular file; shardwise reads only regular files",
            "directory": "it is a directory, not a regular file; shardwise reads only regular files",
            "loop": "a loop of symbolic links (each names another, and none a file)",
            "dangling": "a symbolic link to nowhere, which does not exist"}[kind]


@pytest.mark.parametrize("kind", ["fifo", "directory", "loop", "dangling"])
def test_a_chart_whose_chart_yaml_is_no_file_is_refused_naming_it(capsys, monkeypatch, tmp_path, kind):
    """fuzz13: a chart directory whose Chart.yaml was a FIFO, a directory or a broken link was no chart at all: its
    templates were read as plain YAML (their placeholders the input errors, "render the template first") and
    nothing named the Chart.yaml. It is a chart that is not rendered, helm not run (a FIFO would hold it); its
    files are read one by one, as a kustomization's that does not build, so a manifest beside it is still linted."""
    import shutil

    shutil.copytree(ROOT / CHART, tmp_path / "llm")
    (tmp_path / "llm" / "Chart.yaml").unlink()
    what = _special(tmp_path / "llm" / "Chart.yaml", kind)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_helm(bin_dir, monkeypatch, f"touch {tmp_path}/called; exit 1")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "llm" / "plain.yaml").write_text((ROOT / "tests/fixtures/k8s/bad-tp.yaml").read_text())
    rc, doc, _ = lint_json(capsys, "llm")
    assert (rc, doc["input_errors"][0]) == (2, {
        "file": "llm/Chart.yaml", "line": None, "message": f"the chart is not rendered: cannot read: {what}; its 4 "
                                                           "YAML files were read one by one instead (templates not "
                                                           "rendered)"})
    assert [(e["file"], e["line"]) for e in doc["input_errors"][1:]] == [
        ("llm/templates/deployment.yaml", 6), ("llm/templates/service.yaml", 8)]  # placeholders, as plain YAML
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment default/bad-tp"]
    assert not (tmp_path / "called").exists()


@pytest.mark.parametrize("kind", ["fifo", "directory", "loop"])
def test_a_kustomization_file_that_is_no_file_is_refused_naming_it(capsys, monkeypatch, tmp_path, kind):
    """fuzz13: a kustomization.yaml that was a directory (or a link that loops) left its folder read as plain
    manifests with no word that the kustomization was not built; a FIFO one was skipped as a Kustomize file. It is
    an input error naming it, the folder's manifests read one by one as for any kustomization that does not build."""
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/kustomize/base", tmp_path / "base")
    (tmp_path / "base" / "kustomization.yaml").unlink()
    what = _special(tmp_path / "base" / "kustomization.yaml", kind)
    (tmp_path / "kustomize").write_text(f"#!/bin/sh\ntouch {tmp_path}/called\nexit 1\n")
    (tmp_path / "kustomize").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, "base")
    assert (rc, doc["input_errors"][0]) == (2, {
        "file": "base/kustomization.yaml", "line": None,
        "message": f"the kustomization is not built: cannot read: {what}; its 1 YAML file was read one by one "
                   "instead (patches, overlays and generators not applied)"})
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment default/llama70b"]
    assert not (tmp_path / "called").exists()


@pytest.mark.parametrize("what", ["base", "resource"])
def test_a_fifo_a_kustomization_builds_from_is_refused_not_waited_for(capsys, monkeypatch, tmp_path, what):
    """fuzz13: an overlay whose base's kustomization.yaml (or a resource it lists) was a FIFO held kustomize, and
    the run, for the 120 s timeout. Refused before kustomize runs, at the FIFO's path."""
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/kustomize", tmp_path / "k")
    fifo = tmp_path / "k" / "base" / ("kustomization.yaml" if what == "base" else "deployment.yaml")
    fifo.unlink()
    os.mkfifo(fifo)
    (tmp_path / "kustomize").write_text(f"#!/bin/sh\ntouch {tmp_path}/called\nexec sleep 60\n")
    (tmp_path / "kustomize").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, "k/overlays/prod")
    fifo_said = "cannot read: it is a FIFO (named pipe), not a regular file; shardwise reads only regular files"
    message = (f"the kustomization is not built: {fifo_said}" if what == "base" else
               f"the kustomization k/base/kustomization.yaml is not built: its resources entry 'deployment.yaml': "
               f"{fifo_said}")
    assert (rc, doc["input_errors"]) == (2, [{"file": f"k/base/{fifo.name}", "line": None, "message": message}])
    assert not (tmp_path / "called").exists()


#: fuzz14: a file a kustomization reads besides its bases, each field kustomize reads one from, the entry as written
#: and the words the input error says it with
_KUST_FILE_FIELDS = [
    ("patches:\n  - path: p.yaml\n", "p.yaml", "patches path entry 'p.yaml'"),
    ("patchesStrategicMerge:\n  - p.yaml\n", "p.yaml", "patchesStrategicMerge entry 'p.yaml'"),
    ("patchesJson6902:\n  - path: p.json\n    target: {kind: Deployment, name: llama70b}\n", "p.json",
     "patchesJson6902 path entry 'p.json'"),
    ("replacements:\n  - path: r.yaml\n", "r.yaml", "replacements path entry 'r.yaml'"),
    ("configMapGenerator:\n  - name: c\n    files: [key=f.txt]\n", "f.txt", "configMapGenerator files entry 'f.txt'"),
    ("secretGenerator:\n  - name: s\n    envs: [s.env]\n", "s.env", "secretGenerator envs entry 's.env'"),
    ("configMapGenerator:\n  - name: c\n    env: c.env\n", "c.env", "configMapGenerator env entry 'c.env'"),
    ("crds: [crd.json]\n", "crd.json", "crds entry 'crd.json'"),
    ("configurations: [conf.yaml]\n", "conf.yaml", "configurations entry 'conf.yaml'"),
    ("transformers: [t.yaml]\n", "t.yaml", "transformers entry 't.yaml'"),
    ("openapi:\n  path: schema.json\n", "schema.json", "openapi path entry 'schema.json'"),
]


@pytest.mark.parametrize(("extra", "rel", "said"), _KUST_FILE_FIELDS, ids=[r[2].split(" entry")[0] for r in _KUST_FILE_FIELDS])
def test_a_fifo_a_kustomization_patches_or_generates_from_is_refused_not_waited_for(capsys, monkeypatch, tmp_path,
                                                                                   extra, rel, said):
    """fuzz14: a patch, replacement, generator source, CRD, configuration, transformer or OpenAPI schema that was a
    FIFO held kustomize, and the run, for the 120 s timeout (fuzz13 refused a FIFO base or resource only). Refused
    before kustomize runs, at the FIFO's path; the folder's manifests read one by one as for any kustomization that
    does not build."""
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/kustomize/base", tmp_path / "base")
    with open(tmp_path / "base" / "kustomization.yaml", "a") as f:
        f.write(extra)
    os.mkfifo(tmp_path / "base" / rel)
    (tmp_path / "kustomize").write_text(f"#!/bin/sh\ntouch {tmp_path}/called\nexec sleep 60\n")
    (tmp_path / "kustomize").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, "base")
    fifo_said = "cannot read: it is a FIFO (named pipe), not a regular file; shardwise reads only regular files"
    n = 2 if rel.endswith((".yaml", ".json")) else 1
    assert (rc, doc["input_errors"][0]) == (2, {
        "file": f"base/{rel}", "line": None,
        "message": f"the kustomization base/kustomization.yaml is not built: its {said}: {fifo_said}; its {n} YAML "
                   f"file{'s were' if n == 2 else ' was'} read one by one instead (patches, overlays and generators "
                   "not applied)"})
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment default/llama70b"]
    assert not (tmp_path / "called").exists()


def test_an_inline_patch_and_a_missing_patch_file_are_left_to_kustomize(capsys, monkeypatch, tmp_path):
    """fuzz14's check reads only files that exist: an inline strategic-merge patch (a string of YAML) and a patch file
    that is missing reach kustomize, whose own words say what is wrong."""
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/kustomize/base", tmp_path / "base")
    with open(tmp_path / "base" / "kustomization.yaml", "a") as f:
        f.write("patchesStrategicMerge:\n  - |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: x}\n"
                "patches:\n  - path: missing.yaml\n")
    _fake_kustomize = f"#!/bin/sh\ntouch {tmp_path}/called\necho 'Error: missing.yaml: no such file' >&2\nexit 1\n"
    (tmp_path / "kustomize").write_text(_fake_kustomize)
    (tmp_path / "kustomize").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, "base")
    assert (rc, doc["input_errors"][0]["file"], doc["input_errors"][0]["message"].split(";")[0]) == (
        2, "base/kustomization.yaml", "kustomize build failed: Error: missing.yaml: no such file")
    assert (tmp_path / "called").exists()


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_chart_whose_helmignore_is_no_file_is_refused_naming_it(capsys, monkeypatch, tmp_path, kind):
    """fuzz14: helm opens a chart's .helmignore before it checks that the chart's files are regular: a FIFO there held
    helm, and the run, for the 120 s timeout. It is an input error at it, helm not run; a chart without one renders."""
    import shutil

    shutil.copytree(ROOT / CHART, tmp_path / "llm")
    (tmp_path / "llm" / ".helmignore").unlink(missing_ok=True)
    what = _special(tmp_path / "llm" / ".helmignore", kind)
    _fake_helm(tmp_path, monkeypatch, f"touch {tmp_path}/called; exec sleep 60")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, "llm")
    assert (rc, doc["input_errors"]) == (2, [{"file": "llm/.helmignore", "line": None,
                                              "message": f"the chart is not rendered: cannot read: {what}"}])
    assert not (tmp_path / "called").exists()


def _ops(n: int) -> list[dict[str, str]]:
    return [{"op": "add", "path": f"/metadata/labels/l{i}", "value": "x"} for i in range(n)]


@pytest.mark.parametrize("how", ["file", "inline", "split over an overlay and its base"])
def test_a_json6902_patch_past_the_bound_is_refused_not_left_to_run_for_minutes(capsys, monkeypatch, tmp_path, how):
    """fuzz15: kustomize applies each JSON 6902 operation to the whole object, so a patch of 20,000 ``add``
    operations took it over a minute (4,000: 1.6 s), held only by the 120 s timeout. Past 5,000 operations in one
    kustomization and what it includes the kustomization is refused before kustomize runs, with the count and the
    bound; its files read one by one."""
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/kustomize/base", tmp_path / "base")
    target = "    target: {kind: Deployment, name: llama70b}\n"
    top = "base"
    if how == "file":
        (tmp_path / "base" / "p.json").write_text(json.dumps(_ops(20000)))
        with open(tmp_path / "base" / "kustomization.yaml", "a") as f:
            f.write("patchesJson6902:\n  - path: p.json\n" + target)
        said, counted = "patchesJson6902 entry 'p.json'", 20000
    elif how == "inline":
        ops = "".join(f"      - {{op: add, path: /metadata/labels/l{i}, value: x}}\n" for i in range(5001))
        with open(tmp_path / "base" / "kustomization.yaml", "a") as f:
            f.write("patches:\n  - patch: |-\n" + ops + target)
        said, counted = "patches entry 'patch'", 5001
    else:
        (tmp_path / "base" / "p.json").write_text(json.dumps(_ops(3000)))
        with open(tmp_path / "base" / "kustomization.yaml", "a") as f:
            f.write("patches:\n  - path: p.json\n" + target)
        (tmp_path / "overlay").mkdir()
        (tmp_path / "overlay" / "p.yaml").write_text("".join(
            f"- op: add\n  path: /metadata/annotations/a{i}\n  value: x\n" for i in range(3000)))
        (tmp_path / "overlay" / "kustomization.yaml").write_text(
            "resources: [../base]\npatches:\n  - path: p.yaml\n" + target)
        top, said, counted = "overlay", "patches entry 'p.json'", 6000
    (tmp_path / "kustomize").write_text(f"#!/bin/sh\ntouch {tmp_path}/called\nexec sleep 60\n")
    (tmp_path / "kustomize").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, top)
    where = "base/kustomization.yaml"
    assert (rc, doc["input_errors"][0]["file"], doc["input_errors"][0]["message"].split("; its ")[0]) == (
        2, where, f"the kustomization is not built: its JSON 6902 patches hold more than 5,000 operations "
                  f"({counted:,} counted up to its {said}); kustomize applies each to the whole object (20,000 took "
                  f"it over a minute), so shardwise bounds them; build it yourself: kustomize build {top} | "
                  "shardwise lint -")
    # hostile18: the named folder's files are not read one by one after the refusal (they were, as for a kustomization
    # that fails to build): skipped for it, each once
    n = 1 if top == "overlay" else 2 if how == "file" else 1
    assert doc["input_errors"][0]["message"].endswith(
        f"; its {n} YAML file{'s were' if n == 2 else ' was'} not read one by one either (what shardwise does not hand "
        "kustomize it does not read another way)")
    assert (doc["workloads"], len(doc["input_errors"])) == ([], 1)
    assert sorted(s["file"] for s in doc["skipped_files"]) == sorted(
        f"{top}/{f}" for f in os.listdir(tmp_path / top) if f.endswith((".yaml", ".json")))
    assert {s["reason"] for s in doc["skipped_files"]} == {
        "in a kustomization refused for its size (not read: the input error says why)"}
    assert not (tmp_path / "called").exists()


def test_a_json6902_patch_within_the_bound_reaches_kustomize(capsys, monkeypatch, tmp_path):
    """fuzz15: 5,000 operations (the bound) and a strategic-merge patch beside them are kustomize's to apply."""
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/kustomize/base", tmp_path / "base")
    (tmp_path / "base" / "p.json").write_text(json.dumps(_ops(5000)))
    (tmp_path / "base" / "s.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: llama70b}\n")
    with open(tmp_path / "base" / "kustomization.yaml", "a") as f:
        f.write("patches:\n  - path: p.json\n    target: {kind: Deployment}\n  - path: s.yaml\n")
    (tmp_path / "kustomize").write_text(f"#!/bin/sh\ntouch {tmp_path}/called\necho 'Error: stop here' >&2\nexit 1\n")
    (tmp_path / "kustomize").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, "base")
    assert (rc, doc["input_errors"][0]["message"].split(";")[0]) == (2, "kustomize build failed: Error: stop here")
    assert (tmp_path / "called").exists()


def _stop_kustomize(tmp_path, monkeypatch, script: str) -> None:
    (tmp_path / "kustomize").write_text(f"#!/bin/sh\ntouch {tmp_path}/called\n{script}\n")
    (tmp_path / "kustomize").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.chdir(tmp_path)


def _labels(n: int) -> str:
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: wide\n  labels:\n"
            + "".join(f"    l{i}: v\n" for i in range(n)))


@pytest.mark.parametrize("how", ["resource", "strategic-merge patch", "generator"])
def test_a_mapping_too_wide_for_kustomize_is_refused_naming_its_file(capsys, monkeypatch, tmp_path, how):
    """fuzz15 left open, fuzz16: a Deployment of 20,000 labels (290 KB, no patch) took kustomize v5.8.1 28-56 s, held
    only by the 120 s timeout: its work grows with the square of a mapping's keys (4,000 labels 3.1 s, 10,000 13.1 s
    here). Past 10,000 keys in one mapping of what it is handed (a resource, a patch, a generator's literals) the
    kustomization is refused before kustomize runs, at the file that holds it, with the count and the bound."""
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/kustomize/base", tmp_path / "base")
    kz = tmp_path / "base" / "kustomization.yaml"
    if how == "resource":
        (tmp_path / "base" / "wide.yaml").write_text(_labels(20000))
        kz.write_text(kz.read_text() + "  - wide.yaml\n")
        where, keys = "base/wide.yaml", 20000
    elif how == "strategic-merge patch":
        (tmp_path / "base" / "wide.yaml").write_text(_labels(10001))
        kz.write_text(kz.read_text() + "patches:\n  - path: wide.yaml\n")
        where, keys = "base/wide.yaml", 10001
    else:
        kz.write_text(kz.read_text() + "configMapGenerator:\n  - name: wide\n    literals:\n"
                      + "".join(f"      - k{i}=v\n" for i in range(10001)))
        where, keys = "base/kustomization.yaml", 10001
    _stop_kustomize(tmp_path, monkeypatch, "exec sleep 60")
    rc, doc, _ = lint_json(capsys, "base")
    assert (rc, doc["input_errors"][0]["file"], doc["input_errors"][0]["message"].split("; its ")[0]) == (
        2, where, f"the kustomization is not built: a mapping of {keys:,} keys, more than the 10,000 shardwise hands "
                  "kustomize (its work grows with the square of a mapping's keys: 20,000 labels took it 28-56 s); "
                  "build it yourself: kustomize build base | shardwise lint -")
    assert not (tmp_path / "called").exists()


@pytest.mark.parametrize("generators", [1, 2])
def test_too_many_objects_for_kustomize_over_an_overlay_and_its_base_are_refused(capsys, monkeypatch, tmp_path,
                                                                                generators):
    """fuzz16: kustomize's work grows with the square of the objects it is handed (v5.8.1 here: 2,000 ConfigMaps
    27.7 s, 4,000 202 s). Past 2,500 in a kustomization and those it includes (documents of its resource files, one
    per generator entry) it is an input error at the named kustomization, kustomize not run; 2,500 reach it."""
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/kustomize/base", tmp_path / "base")
    cms = "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  a: b\n" for i in range(1249))
    (tmp_path / "base" / "cms.yaml").write_text(cms)
    kz = tmp_path / "base" / "kustomization.yaml"
    kz.write_text(kz.read_text() + "  - cms.yaml\n")  # the Deployment and 1,249 ConfigMaps
    (tmp_path / "overlay").mkdir()
    (tmp_path / "overlay" / "cms.yaml").write_text(cms.replace("name: c", "name: o"))
    gens = "".join(f"  - {{name: g{i}, literals: [a=b]}}\n" for i in range(generators))
    (tmp_path / "overlay" / "kustomization.yaml").write_text(
        "resources: [../base, cms.yaml]\nconfigMapGenerator:\n" + gens)  # 1,249 and the generators
    _stop_kustomize(tmp_path, monkeypatch, "echo 'Error: stop here' >&2; exit 1")
    rc, doc, _ = lint_json(capsys, "overlay")
    if generators == 1:
        assert (rc, doc["input_errors"][0]["message"].split(";")[0]) == (2, "kustomize build failed: Error: stop here")
        assert (tmp_path / "called").exists()
        return
    assert (rc, doc["input_errors"][0]["file"], doc["input_errors"][0]["message"].split("; its ")[0]) == (
        2, "overlay/kustomization.yaml", "the kustomization is not built: it and the kustomizations it includes hold "
        "2,501 objects, more than the 2,500 shardwise hands kustomize (its work grows with the square of the objects: "
        "4,000 ConfigMaps took it 202 s); build it yourself: kustomize build overlay | shardwise lint -")
    assert not (tmp_path / "called").exists()


def test_a_mapping_of_10000_keys_reaches_kustomize(capsys, monkeypatch, tmp_path):
    """fuzz16: the bound itself (a Deployment of 10,000 labels, 13.1 s for kustomize v5.8.1 here) is kustomize's."""
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/kustomize/base", tmp_path / "base")
    (tmp_path / "base" / "wide.yaml").write_text(_labels(10000))
    kz = tmp_path / "base" / "kustomization.yaml"
    kz.write_text(kz.read_text() + "  - wide.yaml\n")
    _stop_kustomize(tmp_path, monkeypatch, "echo 'Error: stop here' >&2; exit 1")
    rc, doc, _ = lint_json(capsys, "base")
    assert (rc, doc["input_errors"][0]["message"].split(";")[0]) == (2, "kustomize build failed: Error: stop here")
    assert (tmp_path / "called").exists()


def _configmaps(first: int, count: int, keys: int) -> str:
    return "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n"
                   + "".join(f"  k{k}: v\n" for k in range(keys)) for i in range(first, first + count))


def test_everything_kustomize_would_read_is_bounded_not_only_objects_and_widths(capsys, monkeypatch, tmp_path):
    """fuzz16 left open, fuzz17: 2,500 objects of 10,000 keys each passed both of fuzz16's bounds and held kustomize
    until the 120 s timeout; its work grows with all it reads (v5.8.1 here: 2,500 ConfigMaps of 195 keys, 1,002,500
    nodes, 80.8 s). Here 60 ConfigMaps of 5,000 data keys in six files (widest 5,000, 60 objects: within both) hand
    it 600,600 nodes: past 500,000 it is an input error at the file that passed the bound, kustomize not run, and
    the files after it are not even parsed."""
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/kustomize/base", tmp_path / "base")
    kz = tmp_path / "base" / "kustomization.yaml"
    for f in range(6):
        (tmp_path / "base" / f"cm{f}.yaml").write_text(_configmaps(10 * f, 10, 5000))
    kz.write_text(kz.read_text() + "".join(f"  - cm{f}.yaml\n" for f in range(6)))
    _stop_kustomize(tmp_path, monkeypatch, "exec sleep 60")
    from shardwise.rules.adapters import yamlsrc

    parsed: list[str] = []
    parse = yamlsrc._parse
    monkeypatch.setattr(yamlsrc, "_parse", lambda text, file, *a, **k: parsed.append(file) or parse(text, file, *a, **k))
    rc, doc, _ = lint_json(capsys, "base")
    # hostile18: each file parsed once, by the count, up to the one that passes the bound; none read one by one after
    # the refusal (the files were all parsed a second time, the hostile one included)
    assert [os.path.basename(f) for f in parsed if f.startswith("base/")] == [
        "kustomization.yaml", "deployment.yaml", "cm0.yaml", "cm1.yaml", "cm2.yaml", "cm3.yaml", "cm4.yaml"]
    assert len(doc["skipped_files"]) == 8 and doc["workloads"] == []
    # the Deployment's file first, then 100,010 nodes a file: the fifth file passes 500,000
    counted = int(doc["input_errors"][0]["message"].split(" YAML nodes (")[1].split(" counted")[0].replace(",", ""))
    assert (rc, doc["input_errors"][0]["file"], doc["input_errors"][0]["message"].split("; its ")[0]) == (
        2, "base/cm4.yaml", "the kustomization is not built: it and the kustomizations it includes hand kustomize "
        f"more than 500,000 YAML nodes ({counted:,} counted by this file: kustomize's work grows with all it reads, "
        "and 2,500 objects of 10,000 keys each held it past 120 s); build it yourself: kustomize build base | "
        "shardwise lint -")
    assert 500_000 < counted < 500_000 + 100_010
    assert not (tmp_path / "called").exists()


def test_the_node_bound_counts_keys_values_and_items_and_its_edge_reaches_kustomize(capsys, monkeypatch, tmp_path):
    """fuzz17: a node is every mapping, list and scalar, each mapping key counted too. The Deployment fixture and a
    ConfigMap are counted exactly; at the bound kustomize runs, one node past it does not."""
    import shutil

    from shardwise.rules.adapters import charts

    # the mapping, its keys a and c and their values, the list's 1, 2 and mapping, that mapping's key b and None
    assert charts._shape({"a": [1, 2, {"b": None}], "c": "d"}) == (2, 10)
    assert charts._shape("x") == (0, 1)
    shutil.copytree(ROOT / "tests/fixtures/kustomize/base", tmp_path / "base")
    # the object, its 4 keys and their values, metadata's name and its value, 3 data keys and values: 17
    (tmp_path / "base" / "cm.yaml").write_text(_configmaps(0, 1, 3))
    kz = tmp_path / "base" / "kustomization.yaml"
    kz.write_text(kz.read_text() + "  - cm.yaml\n")
    from shardwise.rules.adapters.yamlsrc import load_all

    total = sum(charts._shape(d)[1] for f in sorted((tmp_path / "base").glob("*.yaml")) if f.name != "kustomization.yaml"
                for d in load_all(f.read_text(), str(f)) if d is not None)
    assert charts._shape(next(iter(load_all(_configmaps(0, 1, 3), "x"))))[1] == 17
    _stop_kustomize(tmp_path, monkeypatch, "echo 'Error: stop here' >&2; exit 1")
    monkeypatch.setattr(charts, "MAX_KUSTOMIZE_NODES", total)
    rc, doc, _ = lint_json(capsys, "base")
    assert (rc, doc["input_errors"][0]["message"].split(";")[0]) == (2, "kustomize build failed: Error: stop here")
    assert (tmp_path / "called").exists()
    (tmp_path / "called").unlink()
    monkeypatch.setattr(charts, "MAX_KUSTOMIZE_NODES", total - 1)
    rc, doc, _ = lint_json(capsys, "base")
    assert (rc, doc["input_errors"][0]["file"]) == (2, "base/cm.yaml")
    assert doc["input_errors"][0]["message"].startswith(
        f"the kustomization is not built: it and the kustomizations it includes hand kustomize more than "
        f"{total - 1:,} YAML nodes ({total:,} counted by this file:")
    assert not (tmp_path / "called").exists()


_RELEASE_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-vllm
spec:
  replicas: 1
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""
#: a default-deny policy in the release's namespace, as charts write it, and a cluster-scoped object beside it
_RELEASE_POLICY = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: default-deny
  namespace: {{ .Release.Namespace }}
spec:
  podSelector: {}
  policyTypes: [Ingress]
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: {{ .Release.Name }}-alb
spec:
  controller: ingress.k8s.aws/alb
"""


@pytest.mark.tools
def test_a_chart_named_alone_is_in_its_release_namespace_never_default(tools_on_path, capsys, tmp_path):
    """newuser11: a chart rendered without a namespace read its objects (those that name none, and those that write
    `{{ .Release.Namespace }}`, which helm renders as `default`) as in namespace `default`, and SW305 said namespace
    `default` has no default-deny policy. The namespace it is installed in is not known: every object of the release
    shares RELEASE-NAMESPACE, so the chart's own policy there covers its pods, and without one SW305 says which."""
    require_tool("helm")
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "deployment.yaml").write_text(_RELEASE_DEPLOYMENT)
    rc, doc, _ = lint_json(capsys, str(chart))
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment RELEASE-NAMESPACE/c-vllm"]
    assert [(f["subject"], f["message"]) for f in doc["findings"] if f["code"] == "SW305"] == [(
        "Namespace RELEASE-NAMESPACE",
        "SW305: the namespace the chart is installed in (`RELEASE-NAMESPACE`: helm template was given none) "
        "(Deployment RELEASE-NAMESPACE/c-vllm) has no default-deny ingress policy (no network policy at all); every "
        "pod in the cluster can reach vLLM without the gateway")]
    (chart / "templates" / "policy.yaml").write_text(_RELEASE_POLICY)
    rc, doc, _ = lint_json(capsys, str(chart))
    assert (doc["input_errors"], [w["tensor_parallel_size"] for w in doc["workloads"]]) == ([], [1])
    assert [f["code"] for f in doc["findings"] if f["code"] == "SW305"] == []


def test_a_release_namespace_goes_to_namespaced_objects_that_name_none():
    from shardwise.rules.adapters.kinds import fill_namespace

    docs: list = [(1, {"kind": "Deployment", "metadata": {"name": "a"}}),
                  (5, {"kind": "Service", "metadata": {"name": "b", "namespace": "serving"}}),
                  (9, {"kind": "IngressClass", "metadata": {"name": "alb"}}),
                  (12, {"kind": "List", "items": [{"kind": "ConfigMap", "metadata": {"name": "c"}},
                                                  {"kind": "Namespace", "metadata": {"name": "d"}}]}),
                  (20, "not an object")]
    fill_namespace(docs, "llm")
    assert [d[1]["metadata"].get("namespace") for d in docs[:3]] == ["llm", "serving", None]
    assert [i["metadata"].get("namespace") for i in docs[3][1]["items"]] == ["llm", None]


def test_a_values_file_running_vllms_cpu_release_image_is_named_by_sw005(capsys, monkeypatch, tmp_path):
    """corpus43: brokedba/vllm-lab's production-stack values for a CPU cluster
    (examples/k8s/local/cpu-tinyllama-values.yaml) run vLLM's CPU release image,
    `public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo`, the one vLLM's Kubernetes guide names for CPUs; named alone
    the file was skipped as `Helm values` without SW005, which took only `vllm-openai` as vLLM's image. The arm64
    build is taken too; a repository of another name that holds the words is not."""
    monkeypatch.chdir(tmp_path)
    cpu = STACK_VALUES.replace('"vllm/vllm-openai"', '"public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo"').replace(
        "    requestGPU: 1\n", "    requestGPU: 0\n")
    for name, text in (("values-cpu.yaml", cpu),
                       ("values-arm.yaml", cpu.replace("vllm-cpu-release-repo", "vllm-arm64-cpu-release-repo"))):
        (tmp_path / name).write_text(text)
        rc, doc, _ = lint_json(capsys, name)
        assert (rc, doc["workloads"], [(f[0], f[2], f[4]) for f in _values_findings(doc)]) == (
            0, [], [("SW005", f"Helm values {name}", 4)]), name
        assert f"`repository: public.ecr.aws/q9t5s3a7/{'vllm-arm64' if 'arm' in name else 'vllm'}-cpu-release-" \
               "repo` at line 4" in doc["findings"][0]["message"]
    (tmp_path / "values-other.yaml").write_text(cpu.replace("vllm-cpu-release-repo", "myvllm-cpu-release-repo-ui"))
    rc, doc, _ = lint_json(capsys, "values-other.yaml")
    assert (rc, doc["findings"], [s["reason"] for s in doc["skipped_files"]]) == (0, [], ["Helm values"])


def test_the_only_chart_built_but_not_read_is_said_to_be_built(capsys, monkeypatch, tmp_path):
    """mend24: where the only chart a search met was built (helm rendered it) but what helm printed could not be read,
    the run's input error said the chart was "not rendered when met while searching"; it says it was built and what
    it emitted could not be read (its SW005 record says what, and where). Beside a kustomization that was not built
    (no kustomize or kubectl on PATH), each folder is said to be what it is."""
    repo = tmp_path / "repo"
    (repo / "charts" / "vllm" / "templates").mkdir(parents=True)
    (repo / "charts" / "vllm" / "Chart.yaml").write_text("apiVersion: v2\nname: vllm\nversion: 0.1.0\n")
    (repo / "charts" / "vllm" / "values.yaml").write_text("image: vllm/vllm-openai\n")
    (repo / "charts" / "vllm" / "templates" / "deploy.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "helm").write_text(  # renders the chart, into YAML that does not parse
        '#!/bin/sh\nprintf -- "---\\n# Source: vllm/templates/deploy.yaml\\napiVersion: apps/v1\\nkind: Deployment\\n'
        'metadata: {name: [unclosed\\n"\n')
    (bin_dir / "helm").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))  # helm only: no kustomize, no kubectl
    monkeypatch.chdir(repo)
    rc, doc, _ = lint_json(capsys, ".")
    assert (rc, [e["message"] for e in doc["input_errors"]]) == (2, [
        "no file was read: the only inputs met are charts or kustomizations met while searching a folder, built, but "
        "what their build emitted could not be read: charts/vllm (Helm chart); to lint them, and see what could not "
        "be read at its line: shardwise lint charts/vllm"])
    assert [f["message"] for f in doc["findings"]] == [
        "SW005: not read: what it deploys was not judged: this chart, met while searching a folder, was built, but "
        "what its build emitted could not be read: cannot parse YAML: did not find expected ',' or ']' (at "
        "charts/vllm/templates/deploy.yaml:4); to lint what it deploys: shardwise lint charts/vllm"]
    (repo / "deploy" / "prod").mkdir(parents=True)
    (repo / "deploy" / "prod" / "kustomization.yaml").write_text("resources:\n  - github.com/example/base?ref=v1\n")
    rc, doc, _ = lint_json(capsys, ".")
    assert (rc, [e["message"] for e in doc["input_errors"]]) == (2, [
        "no file was read: the only inputs met are charts or kustomizations met while searching a folder (or as .), "
        "not rendered, or built and what their build emitted could not be read: charts/vllm (Helm chart: built, but "
        "what its build emitted could not be read), deploy/prod (kustomization); to lint them: shardwise lint "
        "charts/vllm deploy/prod"])


# ------------------------------------------------------------ fuzz24: what helm and kustomize read, read here first

#: Ten anchors, each a list of ten aliases of the one before: 10**10 values once expanded (a "billion laughs").
_LAUGHS = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))
_TOO_COSTLY = "cannot parse YAML: its aliases expand to more than 1,000,000 values"
_NOT_HANDED = "so shardwise hands {tool} no file it refuses to read itself"

#: A file a kustomization hands kustomize to parse as YAML, the entry that names it, and how the error names it
_KUST_YAML_FIELDS = [
    ("resources:\n  - bomb.yaml\n", "resources entry 'bomb.yaml'"),
    ("patches:\n  - path: bomb.yaml\n", "patches entry 'bomb.yaml'"),
    ("patchesStrategicMerge:\n  - bomb.yaml\n", "patchesStrategicMerge entry 'bomb.yaml'"),
    ("configurations: [bomb.yaml]\n", "configurations entry 'bomb.yaml'"),
]


@pytest.mark.parametrize(("extra", "said"), _KUST_YAML_FIELDS, ids=[r[1].split(" entry")[0] for r in _KUST_YAML_FIELDS])
def test_an_alias_bomb_a_kustomization_names_is_refused_before_kustomize_reads_it(capsys, monkeypatch, tmp_path,
                                                                                  extra, said):
    """fuzz24: a resource (or a patch, or a configuration) of anchors that expand without end was handed to kustomize,
    which grew to shardwise's 1 GiB memory bound in 3-11 s before the run refused the file when it read the folder one
    by one. Every file kustomize parses as YAML is read with shardwise's own reader first: refused at the
    kustomization, kustomize not run, the folder's files read one by one (the bomb refused at its own line)."""
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/kustomize/base", tmp_path / "base")
    (tmp_path / "base" / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" + extra.replace(
            "resources:\n", "resources:\n  - deployment.yaml\n") + ("" if "resources" in extra else
                                                                     "resources:\n  - deployment.yaml\n"))
    (tmp_path / "base" / "bomb.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  "
                                                 + _LAUGHS.replace("\n", "\n  "))
    (tmp_path / "kustomize").write_text(f"#!/bin/sh\ntouch {tmp_path}/called\nexit 1\n")
    (tmp_path / "kustomize").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, "base")
    assert (rc, doc["input_errors"]) == (2, [
        {"file": "base/kustomization.yaml", "line": None,
         "message": f"the kustomization is not built: its {said} (line 1): {_TOO_COSTLY}; kustomize would read it "
                    f"whole, {_NOT_HANDED.format(tool='kustomize')}; its 2 YAML files were read one by one instead "
                    "(patches, overlays and generators not applied)"},
        {"file": "base/bomb.yaml", "line": 1, "message": _TOO_COSTLY}])
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment default/llama70b"]
    assert not (tmp_path / "called").exists()


def _chart_copy(tmp_path) -> str:
    import shutil

    shutil.copytree(ROOT / CHART, tmp_path / "llm")
    return "llm"


@pytest.mark.parametrize("where", ["values.yaml", "subchart values.yaml", "subchart values.yaml, no Chart.yaml",
                                   "--values"])
def test_an_alias_bomb_helm_would_read_is_refused_before_helm_runs(capsys, monkeypatch, tmp_path, where):
    """fuzz24: a values file of anchors that expand without end (the chart's own, a subchart's under charts/, or a
    --values file) was handed to helm, which read it whole before refusing it in its own words. Read with shardwise's
    own reader first: refused at the file and its line, helm not run."""
    chart = _chart_copy(tmp_path)
    bomb = "replicas: 2\n" + _LAUGHS
    if where == "values.yaml":
        (tmp_path / chart / "values.yaml").write_text(bomb)
        rel, argv, prefix = f"{chart}/values.yaml", [], ""
    elif where.startswith("subchart values.yaml"):  # helm parses its values.yaml before it finds no Chart.yaml
        sub = tmp_path / chart / "charts" / "sub"
        (sub / "templates").mkdir(parents=True)
        if "no Chart.yaml" not in where:
            (sub / "Chart.yaml").write_text("apiVersion: v2\nname: sub\nversion: 0.1.0\n")
        (sub / "values.yaml").write_text(bomb)
        rel, argv, prefix = f"{chart}/charts/sub/values.yaml", [], ""
    else:
        (tmp_path / "bomb.yaml").write_text(bomb)
        rel, argv, prefix = "bomb.yaml", ["--values", "bomb.yaml"], "--values bomb.yaml: "
    _fake_helm(tmp_path, monkeypatch, f"touch {tmp_path}/called\nexit 1")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, chart, *argv)
    assert rc == 2
    assert doc["input_errors"][0] == {
        "file": rel, "line": 1,
        "message": f"the chart is not rendered: {prefix}{_TOO_COSTLY}; helm would read it whole, "
                   f"{_NOT_HANDED.format(tool='helm')}"}
    assert not (tmp_path / "called").exists()


def _packed(files: dict[str, bytes]) -> bytes:
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.mark.parametrize("kind", ["alias bomb values.yaml", "fifo", "sparse 2 GiB"])
def test_a_packed_subchart_helm_could_not_read_is_refused_before_helm_runs(capsys, monkeypatch, tmp_path, kind):
    """mend29: helm loads every charts/*.tgz of a chart whole, as an archive (pkg/chart/loader), and parses its
    values.yaml; the pre-read of fuzz24 read subchart folders only, so a packed subchart went to helm unread. Its file
    and its values.yaml are read with shardwise's own reader first: refused at the archive's path, helm not run."""
    chart = _chart_copy(tmp_path)
    (tmp_path / chart / "charts").mkdir(exist_ok=True)
    path = tmp_path / chart / "charts" / "sub-0.1.0.tgz"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "sparse 2 GiB":
        with open(path, "wb") as f:
            f.truncate(2 << 30)
    else:
        path.write_bytes(_packed({"sub/Chart.yaml": b"apiVersion: v2\nname: sub\nversion: 0.1.0\n",
                                  "sub/values.yaml": ("replicas: 2\n" + _LAUGHS).encode()}))
    what = {"sparse 2 GiB": "not read: the file is larger than 32 MiB, the most shardwise reads from one file",
            "fifo": "cannot read: it is a FIFO (named pipe), not a regular file; shardwise reads only regular files",
            "alias bomb values.yaml": f"sub/values.yaml in this packed subchart: {_TOO_COSTLY}; helm would read it "
                                      f"whole, {_NOT_HANDED.format(tool='helm')}"}[kind]
    _fake_helm(tmp_path, monkeypatch, f"touch {tmp_path}/called\nexit 1")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, chart)
    assert rc == 2
    assert doc["input_errors"][0]["file"] == f"{chart}/charts/sub-0.1.0.tgz"
    assert doc["input_errors"][0]["message"].startswith(f"the chart is not rendered: {what}")
    assert not (tmp_path / "called").exists()


def test_a_packed_subchart_helm_can_read_goes_to_helm(monkeypatch, tmp_path):
    """A packed subchart of plain values, one that is no archive (helm's to refuse) and one the .helmignore excludes
    are not refused by the pre-read."""
    from shardwise.rules.adapters.charts import _check_chart_files

    chart = tmp_path / _chart_copy(tmp_path)
    (chart / "charts").mkdir(exist_ok=True)
    (chart / "charts" / "sub-0.1.0.tgz").write_bytes(_packed({
        "sub/Chart.yaml": b"apiVersion: v2\nname: sub\nversion: 0.1.0\n", "sub/values.yaml": b"replicas: 2\n"}))
    (chart / "charts" / "junk.tgz").write_bytes(b"not gzip")
    os.mkfifo(chart / "charts" / "old.tgz")
    (chart / ".helmignore").write_text("old.tgz\n")
    _check_chart_files(str(chart))  # no InputError


@pytest.mark.parametrize("kind", ["sparse 2 GiB", "fifo", "dangling link"])
def test_a_template_helm_could_not_read_is_refused_before_helm_runs(capsys, monkeypatch, tmp_path, kind):
    """fuzz24: helm reads every file of a chart's templates/ whole: a 2 GiB template (a sparse file, no disk used)
    reached helm's memory bound, a FIFO held it until its timeout. Refused at the template's path, helm not run."""
    chart = _chart_copy(tmp_path)
    path = tmp_path / chart / "templates" / "big.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dangling link":
        os.symlink("gone.yaml", path)
    else:
        with open(path, "wb") as f:
            f.truncate(2 << 30)
    what = {"sparse 2 GiB": "not read: the file is larger than 32 MiB, the most shardwise reads from one file",
            "fifo": "cannot read: it is a FIFO (named pipe), not a regular file; shardwise reads only regular files",
            "dangling link": "cannot read: a symbolic link to gone.yaml, which does not exist"}[kind]
    _fake_helm(tmp_path, monkeypatch, f"touch {tmp_path}/called\nexit 1")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, chart)
    assert rc == 2
    assert doc["input_errors"][0]["file"] == f"{chart}/templates/big.yaml"
    assert doc["input_errors"][0]["message"].startswith(f"the chart is not rendered: {what}")
    assert not (tmp_path / "called").exists()


@pytest.mark.parametrize("shape", ["ignored folder, 40 MiB blob", "ignored folder, fifo", "ignored subchart",
                                   "ignored by base name", "default templates/.?*"])
def test_what_the_helmignore_excludes_is_not_read_before_helm_runs(capsys, monkeypatch, tmp_path, shape):
    """mend27: the pre-read of fuzz24 read files the chart's .helmignore excludes, which helm never loads (helm
    pkg/chart/loader LoadDir skips what pkg/ignore matches): the chart was refused though helm renders it."""
    chart = _chart_copy(tmp_path)
    root = tmp_path / chart
    ignore = {"ignored folder, 40 MiB blob": "# test data\ntemplates/fixtures/\n",
              "ignored folder, fifo": "templates/fixtures/\n",
              "ignored subchart": "charts/old/\n",
              "ignored by base name": "*.bin\n",
              "default templates/.?*": ""}[shape]
    (root / ".helmignore").write_text(ignore)
    if shape.startswith("ignored folder"):
        (root / "templates" / "fixtures").mkdir()
        if shape.endswith("fifo"):
            os.mkfifo(root / "templates" / "fixtures" / "pipe")
        else:
            with open(root / "templates" / "fixtures" / "blob.yaml", "wb") as f:
                f.truncate(40 << 20)
    elif shape == "ignored subchart":
        (root / "charts" / "old" / "templates").mkdir(parents=True)
        (root / "charts" / "old" / "Chart.yaml").write_text("apiVersion: v2\nname: old\nversion: 0.1.0\n")
        (root / "charts" / "old" / "values.yaml").write_text("replicas: 2\n" + _LAUGHS)
    elif shape == "ignored by base name":
        os.mkfifo(root / "templates" / "dump.bin")
    else:
        os.mkfifo(root / "templates" / ".pipe")
    _fake_helm(tmp_path, monkeypatch, "echo 'apiVersion: v1'; echo 'kind: ConfigMap'; echo 'metadata: {name: x}'")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, chart)
    assert (rc, doc["input_errors"]) == (0, [])


@pytest.mark.parametrize("ignore", ["templates/other/\n", "pipe/\n", "templates/fixtures\n# x/\n", "charts/\n"])
def test_a_bomb_the_helmignore_does_not_exclude_is_still_refused(capsys, monkeypatch, tmp_path, ignore):
    """mend27: only what the .helmignore excludes is skipped: a folder rule names another folder, a folder-only
    rule does not match a file of that name, a rule with a slash matches from the chart's top only when it names the path (here it does not: the
    FIFO is templates/big/fixtures), a folder rule that does not match."""
    chart = _chart_copy(tmp_path)
    root = tmp_path / chart
    (root / ".helmignore").write_text(ignore)
    (root / "templates" / "big" / "fixtures").mkdir(parents=True)
    os.mkfifo(root / "templates" / "big" / "fixtures" / "pipe")
    _fake_helm(tmp_path, monkeypatch, f"touch {tmp_path}/called\nexit 1")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, chart)
    assert rc == 2
    assert doc["input_errors"][0]["file"] == f"{chart}/templates/big/fixtures/pipe"
    assert not (tmp_path / "called").exists()


@pytest.mark.parametrize(("ignore", "line", "rule", "why"), [
    ("templates/fixtures/**\n", 1, "templates/fixtures/**", "double-star (**) syntax is not supported"),
    ("# test data\n*.md\n\n  **/*.bak  \n", 4, "**/*.bak", "double-star (**) syntax is not supported"),
    ("!docs/**\n", 1, "!docs/**", "double-star (**) syntax is not supported"),
    ("*.md\n[abc\n", 2, "[abc", "syntax error in pattern (Go's filepath.Match)"),
    ("[]x]\n", 1, "[]x]", "syntax error in pattern (Go's filepath.Match)"),
    ("notes\\\n", 1, "notes\\", "syntax error in pattern (Go's filepath.Match)"),
])
def test_a_helmignore_rule_helm_refuses_is_an_input_error_at_its_line(capsys, monkeypatch, tmp_path, ignore, line,
                                                                       rule, why):
    """review45: helm v3 pkg/ignore/rules.go parseRule refuses a rule holding `**` and one filepath.Match calls
    malformed, and LoadDir fails on it: no chart is loaded. shardwise skipped the rule and read the chart as if it
    ignored nothing (here a FIFO under the folder the `**` rule meant to ignore was the error). Now the run refuses the
    .helmignore at the rule's line, and helm is not run."""
    chart = _chart_copy(tmp_path)
    root = tmp_path / chart
    (root / ".helmignore").write_text(ignore)
    (root / "templates" / "fixtures").mkdir()
    os.mkfifo(root / "templates" / "fixtures" / "pipe")
    _fake_helm(tmp_path, monkeypatch, f"touch {tmp_path}/called\nexit 1")
    monkeypatch.chdir(tmp_path)
    rc, doc, _ = lint_json(capsys, chart)
    assert (rc, doc["input_errors"]) == (2, [{
        "file": f"{chart}/.helmignore", "line": line,
        "message": f"the chart is not rendered: helm refuses the .helmignore rule `{rule}` at line {line}: {why}; helm "
                   "loads no chart whose .helmignore holds one (a rule with no `/` matches that name in every folder, "
                   "`*.bak`; a folder's rule, `name/`, ignores all under it)"}])
    assert not (tmp_path / "called").exists()


@pytest.mark.parametrize(("pattern", "bad"), [
    ("*.md", False), ("[a-c]x", False), ("[^a]", False), ("\\[x", False), ("[\\]]", False), ("!*.md", False),
    ("templates/", False), ("[*]", False), ("[a", True), ("[]", True), ("[-a]", True), ("[a-]", True),
    ("x\\", True), ("[\\", True), ("a*[", True), ("[^]", True),
])
def test_go_bad_pattern_is_filepath_match_err_bad_pattern(pattern, bad):
    """Go's filepath.Match (go1.22, Unix) answers ErrBadPattern for these, whatever the name (it checks the rest of
    the pattern before it answers false), and matches or not without error for the others."""
    from shardwise.rules.adapters.charts import _go_bad_pattern

    assert _go_bad_pattern(pattern) is bad


def test_kustomize_words_name_the_repository_files_not_the_checkout_folder(tmp_path, monkeypatch):
    """review45: kustomize makes each path it reads absolute before it says it; a path inside the run's folder is
    written relative to it (the folder itself as `.`), one that only starts with the folder's name, or lies outside
    it, is left as it is."""
    from shardwise.rules.adapters.charts import repository_relative

    (tmp_path / "repo").mkdir()
    os.symlink(tmp_path / "repo", tmp_path / "link")
    monkeypatch.chdir(tmp_path / "link")  # getcwd is the real path; the named one is rewritten as well
    real = str(tmp_path / "repo")
    said = (f"accumulating resources from 'gone.yaml': evalsymlink failure on '{real}/overlays/prod/gone.yaml' : "
            f"lstat {real}/overlays/prod/gone.yaml: no such file or directory; cycle detected: candidate root "
            f"'{real}' contains visited root '{real}/base'; {real}2/x.yaml, /elsewhere{real}/y.yaml, /etc/hosts")
    assert repository_relative(said) == (
        "accumulating resources from 'gone.yaml': evalsymlink failure on 'overlays/prod/gone.yaml' : lstat "
        "overlays/prod/gone.yaml: no such file or directory; cycle detected: candidate root '.' contains visited "
        f"root 'base'; {real}2/x.yaml, /elsewhere{real}/y.yaml, /etc/hosts")


@pytest.mark.tools
def test_a_failed_kustomize_build_names_repository_paths(capsys, monkeypatch, tmp_path):
    """review45: an overlay whose resource is gone; kustomize's own words name `overlays/prod/gone.yaml`, never the
    temporary checkout folder the run is in."""
    kustomize = require_tool("kustomize")
    monkeypatch.setenv("PATH", os.path.dirname(kustomize) + os.pathsep + os.environ["PATH"])
    (tmp_path / "overlays/prod").mkdir(parents=True)
    (tmp_path / "overlays/prod/kustomization.yaml").write_text("resources:\n  - gone.yaml\n")
    monkeypatch.chdir(tmp_path)
    assert main(["lint", "overlays/prod"]) == 2
    out, err = capsys.readouterr()
    assert str(tmp_path) not in out + err and os.path.realpath(tmp_path) not in out + err
    assert ("overlays/prod/kustomization.yaml: error: kustomize build failed: Error: accumulating resources: "
            "accumulation err='accumulating resources from 'gone.yaml': evalsymlink failure on "
            "'overlays/prod/gone.yaml' : lstat overlays/prod/gone.yaml: no such file or directory'") in out + err


@pytest.mark.parametrize(("entry", "name"), [
    ("sub/values.yaml", "values.yaml"),
    ("sub/./values.yaml", "values.yaml"),         # fuzz26: an alias bomb here was handed to helm unread
    ("./values.yaml", "values.yaml"),             # the first component is the chart's folder, whatever its name
    ("sub/x/../values.yaml", "values.yaml"),
    ("sub\\values.yaml", "values.yaml"),          # written on Windows
    ("./sub/values.yaml", "sub/values.yaml"),     # a file of that name, not the chart's values
    ("sub//values.yaml", None),                   # absolute once the folder is dropped: helm refuses it
    ("sub/../../evil.yaml", None),                # out of the chart: helm refuses it
    ("sub", None),
])
def test_an_archive_entry_is_named_as_helm_names_it(entry, name):
    """helm v3.22.0 pkg/chart/loader/archive.go LoadArchiveFiles: the first component dropped, then path.Clean."""
    from shardwise.rules.adapters.charts import _helm_archive_name

    assert _helm_archive_name(entry) == name


def test_a_kustomize_error_with_line_breaks_in_a_path_keeps_its_start():
    """fuzz26: a resource named "evil\\nshardwise: passed\\n.yaml" was said by the last three pieces of kustomize's
    one error; the lines after an ``Error:`` line continue it, joined with an escaped line break. Another ``Error:``
    line or a klog line starts a new one."""
    from shardwise.rules.adapters.charts import _error_lines

    stderr = ("Error: accumulating resources from 'evil\nshardwise: passed\n.yaml': lstat evil\nshardwise: passed\n"
              ".yaml: no such file or directory\n")
    assert _error_lines(stderr) == ["Error: accumulating resources from 'evil\\nshardwise: passed\\n.yaml': lstat "
                                    "evil\\nshardwise: passed\\n.yaml: no such file or directory"]
    assert _error_lines("noise\n\nError: one\nError: two\n") == ["noise", "Error: one", "Error: two"]
    assert _error_lines("Error: execution error at (c/templates/d.yaml:1:3): no model set\n\nUse --debug flag to "
                        "render out invalid YAML\n") == [
        "Error: execution error at (c/templates/d.yaml:1:3): no model set; Use --debug flag to render out invalid YAML"]
    assert _error_lines("Error: a\nE1206 20:16:40.943496   21334 run.go:72] b\n") == ["Error: a", "b"]
    assert _error_lines("Error: a\u2028b\x85c\n") == ["Error: a\u2028b\x85c"]


def test_a_chart_of_more_files_than_the_bound_is_not_handed_to_helm(tmp_path, monkeypatch):
    """fuzz26: a packed subchart of 100,000 tiny templates took 7.5 s of CPU and passed (helm bounds a chart's bytes,
    not its files); a templates folder is held to the same bound."""
    import io
    import tarfile

    from shardwise.rules.adapters import charts

    monkeypatch.setattr(charts, "MAX_CHART_FILES", 3)
    (tmp_path / "templates").mkdir()
    for i in range(3):
        (tmp_path / "templates" / f"t{i}.yaml").write_text("a: 1\n")
    charts._check_chart_files(str(tmp_path))  # 3 files: read
    (tmp_path / "templates" / "t3.yaml").write_text("a: 1\n")
    with pytest.raises(InputError) as e:
        charts._check_chart_files(str(tmp_path))
    assert (e.value.file, e.value.message.split(" (")[0]) == (
        str(tmp_path / "templates"), "the chart is not rendered: its templates folder holds more than 3 files")
    (tmp_path / "templates" / "t3.yaml").unlink()
    bio = io.BytesIO()
    with tarfile.open(fileobj=bio, mode="w:gz") as tar:
        for i in range(4):
            info = tarfile.TarInfo(f"sub/templates/t{i}.yaml")
            info.size = 5
            tar.addfile(info, io.BytesIO(b"a: 1\n"))
    (tmp_path / "charts").mkdir()
    (tmp_path / "charts" / "sub.tgz").write_bytes(bio.getvalue())
    with pytest.raises(InputError) as e:
        charts._check_chart_files(str(tmp_path))
    assert (e.value.file, e.value.message.split(" (")[0]) == (
        str(tmp_path / "charts" / "sub.tgz"), "the chart is not rendered: this packed subchart holds more than 3 files")

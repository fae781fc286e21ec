"""GitOps objects whose source is the linted checkout are rendered as Argo CD / Flux render them
(rules/adapters/gitops.py); the others stay SW005 records that say why they were not rendered.

The repository tests/fixtures/gitops/llm-platform was written for these tests in the shape GitOps repositories
have (an app-of-apps folder, a chart, Applications with their own values, an ApplicationSet, Flux objects); each
test copies it into a git checkout whose origin is https://github.com/acme/llm-platform.git (no network).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters.gitops import Checkout, normalise_url, outcomes, plan, stands_for
from shardwise.rules.app.cli import main
from tools_support import find_tool, require_tool

FIXTURE = os.path.join(ROOT, "tests/fixtures/gitops/llm-platform")
ORIGIN = "https://github.com/acme/llm-platform.git"
DEPLOYMENT = "charts/vllm/templates/deployment.yaml"
OPTION = "; if this checkout stands for {0}, say so with --gitops-revision {0} (or gitops_revision in the config file)"


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    """The fixture repository as a git checkout on branch main, origin set; cwd = its root; helm on PATH."""
    root = tmp_path / "llm-platform"
    shutil.copytree(FIXTURE, root)
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", ORIGIN]):
        subprocess.run(["git", *args], cwd=root, check=True)
    monkeypatch.chdir(root)
    for name in ("helm", "kustomize"):
        path = find_tool(name)
        if path:
            monkeypatch.setenv("PATH", os.path.dirname(path) + os.pathsep + os.environ["PATH"])
    return root


def lint_json(capsys, *argv: str) -> tuple[int, dict]:
    rc = main(["lint", *argv, "--format", "json"])
    out, _ = capsys.readouterr()
    return rc, json.loads(out)


@pytest.mark.parametrize("url", [
    "https://github.com/acme/llm-platform.git", "https://github.com/acme/llm-platform",
    "https://github.com/acme/llm-platform/", "git@github.com:acme/llm-platform.git",
    "ssh://git@github.com/acme/llm-platform", "ssh://git@GitHub.com:22/acme/llm-platform.git",
    "https://user@github.com/acme/llm-platform.git",
])
def test_each_spelling_of_one_repository_is_the_same(url):
    assert normalise_url(url) == "github.com/acme/llm-platform"


def test_other_repositories_differ():
    assert normalise_url("https://github.com/acme/llm-platform-infra.git") == "github.com/acme/llm-platform-infra"
    assert normalise_url("git@gitlab.com:acme/llm-platform.git") == "gitlab.com/acme/llm-platform"


def test_the_checked_out_revision_and_no_other():
    co = Checkout("/r", "github.com/acme/x", "main", "0123456789abcdef0123456789abcdef01234567", frozenset({"v1.4.0"}))
    for same in ("", "HEAD", "main", "refs/heads/main", "v1.4.0", "refs/tags/v1.4.0", "0123456", co.commit):
        assert co.revision_why(same) is None, same
    assert co.revision_why("v2.0.0") == ("its revision 'v2.0.0' is not the one checked out here (main), so the files "
                                         "it renders may differ from these" + OPTION.format("v2.0.0"))
    assert co.revision_why("0123457") is not None


def findings(doc: dict) -> list[tuple[str, str, str, int | None, str]]:
    return [(f["code"], f["level"], f["file"], f["line"], f["subject"]) for f in doc["findings"]]


VIA_PROD = f"{DEPLOYMENT} (via Application argocd/chat-prod)"
VIA_STAGING = f"{DEPLOYMENT} (via Application argocd/chat-staging)"
VIA_FLUX = f"{DEPLOYMENT} (via HelmRelease flux-system/chat-70b)"
# newuser17: at the Deployment's own file and line, named by the kustomization that built it (was the build output's,
# `deploy/summarize/kustomization.yaml (kustomize build)`, line 1)
VIA_KUSTOMIZE = ("deploy/summarize/deployment.yaml (via deploy/summarize/kustomization.yaml) (via Kustomization "
                 "flux-system/summarize)")


@pytest.mark.tools
def test_the_repository_renders_what_its_gitops_objects_say(repo, capsys):
    require_tool("helm")
    rc, doc = lint_json(capsys, ".")
    assert rc == 1
    assert findings(doc) == [
        ("SW005", "advisory", "apps/chat-canary.yaml", 16, "Application argocd/chat-canary"),
        ("SW005", "advisory", "apps/embed-upstream.yaml", 18, "Application argocd/embed"),
        ("SW005", "advisory", "appsets/chat-envs.yaml", 29, "ApplicationSet argocd/chat-envs"),
        ("SW305", "advisory", VIA_PROD, 1, "Namespace llm-prod"),
        # valuesObject's TP4 over the value file's TP8 (its values text, TP2, ignored); parameters' gpus=2: an 8B
        # model sharded over 4 GPUs (SW104) that the pod does not even request (SW204), at the template's lines
        ("SW104", "mandatory", VIA_PROD, 25, "Deployment llm-prod/chat-vllm"),
        ("SW204", "mandatory", VIA_PROD, 27, "Deployment llm-prod/chat-vllm"),
        ("SW305", "advisory", VIA_STAGING, 1, "Namespace llm-staging"),
        # Flux's inline values: 70B at TP4 on the 4 GPUs it needs (no SW104/SW204; the 4-bit advice only)
        ("SW106", "advisory", VIA_FLUX, 25, "Deployment llm-prod/llm-prod-chat-70b-vllm"),
        # built as Flux builds it: in the kustomization's namespace, and not also read alone (in default)
        ("SW305", "advisory", VIA_KUSTOMIZE, 2, "Namespace summarize"),  # (a comment on line 1)
    ]
    rows = [(w["subject"], w["file"], w["replicas"], w["tensor_parallel_size"]) for w in doc["workloads"]]
    assert rows == [
        # release name helm.releaseName (chat), namespace spec.destination.namespace; replicas the chart's 1: Argo CD
        # hands helm valuesObject and ignores the values text beside it (its replicaCount 2: review49, was read)
        ("Deployment llm-prod/chat-vllm", VIA_PROD, 1, 4),
        # no releaseName: the Application's name; its $values file is missing and ignoreMissingValueFiles is set
        ("Deployment llm-staging/chat-staging-vllm", VIA_STAGING, 1, 1),
        # Flux: release targetNamespace-name, in targetNamespace
        ("Deployment llm-prod/llm-prod-chat-70b-vllm", VIA_FLUX, 1, 4),
        ("Deployment summarize/summarize", VIA_KUSTOMIZE, 1, 1),
    ]
    # readers18: the finding on what a Flux Kustomization built says that object names no cluster, and which facts of
    # it are missing; an Argo CD Application's (a destination named) does not
    sw305 = {f["file"]: f["message"] for f in doc["findings"] if f["code"] == "SW305"}
    assert sw305[VIA_KUSTOMIZE].endswith(
        "; Kustomization flux-system/summarize, which deploys it, names no cluster (Flux applies it to the cluster Flux "
        "runs in, or to the one its spec.kubeConfig Secret names), so that cluster's network policies are known only "
        "where the inputs hold them")
    assert [f for f, m in sw305.items() if "names no cluster" in m] == [VIA_KUSTOMIZE]
    messages = {f["file"]: f["message"] for f in doc["findings"] if f["code"] == "SW005"}
    assert messages == {
        "apps/chat-canary.yaml": (
            "SW005: not read: it mentions vLLM (the vLLM image vllm/vllm-openai as its Helm parameter image.repository) "
            "but it was not rendered: its revision 'v2.0.0' is not the one checked out here (main), so the files it "
            "renders may differ from these" + OPTION.format("v2.0.0") + ARGO),
        "apps/embed-upstream.yaml": (
            # a chart modelled here (production-stack, prodstack.py) whose values it refuses: its required
            # requestMemory and requestCPU are not written, so helm renders nothing
            "SW005: not read: it mentions vLLM (the vLLM image vllm/vllm-openai in its Helm values) but it was not "
            "rendered: the chart refuses its values (servingEngineSpec.modelSpec[0] has no requestMemory or "
            "requestCPU, which it requires): it renders nothing" + ARGO),
        "appsets/chat-envs.yaml": (
            "SW005: not read: it mentions vLLM (the vLLM image vllm/vllm-openai as its Helm parameter image.repository) "
            "but it was not rendered: its template's fields ({{path.basename}}, {{path}}) are filled in by its "
            "generators when Argo CD runs them: the Applications it makes are unknown until then, and not guessed" + ARGO),
    }
    # the rendered Applications and HelmRelease are no unknown kinds; the chart's own files are not "not rendered"
    # (the root Application and Flux's own sync: folders of GitOps objects, read one by one)
    assert doc["summary"]["skipped"] == {"Application": 3, "ApplicationSet": 1, "GitRepository": 1, "Kustomization": 1}
    assert doc["skipped_files"] == [{"file": "environments/prod/values.yaml", "reason": "Helm values"}]
    assert doc["input_errors"] == []


@pytest.mark.tools
def test_a_chart_named_and_rendered_through_an_application_shows_both_apart(repo, capsys):
    """The chart's defaults fit (nothing blocks); the Application's values do not: the reviewer sees the chart's
    own findings under its template's name and the Application's under ``(via ...)``."""
    require_tool("helm")
    rc, doc = lint_json(capsys, "charts/vllm", "apps/chat-prod.yaml")
    assert rc == 1
    assert findings(doc) == [
        ("SW305", "advisory", DEPLOYMENT, 1, "Namespace RELEASE-NAMESPACE"),
        ("SW305", "advisory", VIA_PROD, 1, "Namespace llm-prod"),
        ("SW104", "mandatory", VIA_PROD, 25, "Deployment llm-prod/chat-vllm"),
        ("SW204", "mandatory", VIA_PROD, 27, "Deployment llm-prod/chat-vllm"),
    ]
    rc, doc = lint_json(capsys, "charts/vllm")
    assert (rc, findings(doc)) == (0, [("SW305", "advisory", DEPLOYMENT, 1, "Namespace RELEASE-NAMESPACE")])


#: What SW005 said of an Argo CD object before, after why it was not rendered.
ARGO = ("; Argo CD renders the Helm chart it names in the cluster, so its pods are not in the inputs: lint the chart "
        "rendered with these values (helm template, with the values or parameters set here)")


def _sw005(capsys, *paths: str) -> list[str]:
    _, doc = lint_json(capsys, *paths)
    return [f["message"].split(" but ", 1)[1] for f in doc["findings"] if f["code"] == "SW005"]


@pytest.mark.parametrize("remote", ["git@github.com:acme/llm-platform-infra.git", None])
def test_another_repository_is_not_rendered(repo, capsys, remote):
    """Another origin, or none (then nothing is told to be this repository): one message, whatever the remote."""
    if remote is None:
        subprocess.run(["git", "remote", "remove", "origin"], check=True)
    else:
        subprocess.run(["git", "remote", "set-url", "origin", remote], check=True)
    assert _sw005(capsys, "apps/chat-canary.yaml") == [
        "it was not rendered: its source https://github.com/acme/llm-platform.git is not this checkout's git remote "
        "(origin): not fetched" + ARGO]


def test_a_flux_release_whose_git_repository_is_not_in_the_inputs(repo, capsys):
    (repo / "clusters/prod/chat.yaml").write_text(
        (repo / "clusters/prod/chat.yaml").read_text().replace("model: meta", "image: {repository: vllm/vllm-openai}\n"
                                                               "    model: meta"))
    assert _sw005(capsys, "clusters/prod/chat.yaml") == [
        "it was not rendered: its GitRepository flux-system/llm-platform is not in the inputs, so where it points is "
        "not known; it names no cluster (Flux applies it to the cluster Flux runs in, or to the one its "
        "spec.kubeConfig Secret names), so that cluster's GPU nodes, node pools and network policies are known only "
        "where the inputs hold them; Flux renders the Helm chart it names in the cluster, so its pods are not in the inputs: lint the "
        "chart rendered with these values (helm template, with the values or parameters set here)"]


def test_outcomes_say_why_a_path_is_not_rendered(repo):
    co = Checkout(str(repo), "github.com/acme/llm-platform", "main", None, frozenset())
    app = repo / "apps" / "x.yaml"
    for path, why in [
        ("charts/missing", "its path 'charts/missing' is not a folder of this checkout"),
        ("../elsewhere", "its path '../elsewhere' leads outside the repository"),
        ("apps", "its path 'apps' holds neither a Chart.yaml nor a kustomization (a plain folder of manifests is "
                 "linted by naming it)"),
    ]:
        app.write_text("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: x}\nspec:\n  source:\n"
                       f"    repoURL: {ORIGIN}\n    path: {path}\n")
        (res,) = [r for r in outcomes([str(app)], co)]
        assert (res.sources, res.why_not and res.why_not.split(f" ({repo})")[0]) == ([], why)


@pytest.mark.tools
@pytest.mark.parametrize(("path", "said"), [
    ("../../../../etc", "../../../../etc: app path outside root"),
    ("/etc", "/etc: app path is absolute"),
    ("charts/nothing", "charts/nothing: app path does not exist"),
    ("charts/vllm/Chart.yaml", "charts/vllm/Chart.yaml: app path is not a directory"),
])
def test_an_application_path_argo_cd_refuses_is_an_input_error(repo, capsys, path, said):
    """fuzz16: an Application of this checkout at this revision whose path escapes the repository, is absolute, or
    names no folder is refused by Argo CD (argo-cd util/app/path/path.go: "app path outside root", "is absolute",
    "does not exist", "is not a directory"), so it syncs nothing. chat-staging's own manifest names no vLLM (its values
    file does), so nothing was said: its workload vanished from the run, the Application counted among "objects of
    unknown kinds", exit 0. It is an input error at the Application; the rest is linted (chat-prod's chart, rendered by
    helm: without helm on PATH it is an input error too, so the test needs the tool)."""
    require_tool("helm")
    app = repo / "apps" / "chat-staging.yaml"
    app.write_text(app.read_text().replace("path: charts/vllm", f"path: {path}"))
    rc, doc = lint_json(capsys, "apps")
    assert (rc, [(e["file"], e["line"], e["message"]) for e in doc["input_errors"]]) == (2, [(
        "apps/chat-staging.yaml", 2, f"Application argocd/chat-staging: Argo CD refuses its source in this repository "
        f"({said}; argo-cd util/app/path): it syncs nothing; point the path at a folder of the repository")])
    assert "Deployment llm-staging/chat-staging-vllm" not in [w["subject"] for w in doc["workloads"]]
    assert [w["subject"] for w in doc["workloads"]] == ["Deployment llm-prod/chat-vllm"]  # chat-prod, rendered


def test_a_run_without_gitops_objects_does_not_load_the_gitops_reader():
    code = ("import sys; from shardwise.rules.app.cli import main; main(['lint', 'tests/fixtures/rules/SW104/fail.yaml',"
            " '--output', '/dev/null']); print('shardwise.rules.adapters.gitops' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=False)
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_a_sync_of_a_folder_of_gitops_objects_is_not_built(repo):
    """Flux's own Kustomization over the cluster's folder (here given a kustomization.yaml): building it would read
    the HelmRelease and Kustomizations a second time, inside the build; they are read one by one instead."""
    (repo / "clusters/prod/kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [sources.yaml, chat.yaml]\n")
    files = [str(p.relative_to(repo)) for p in sorted((repo / "clusters/prod").rglob("*.yaml"))]
    whys = {r.subject: (len(r.sources), r.why_not) for r in plan(files)}
    assert whys == {
        "HelmRelease flux-system/chat-70b": (1, None),
        "Kustomization flux-system/flux-system": (0, (
            "its path clusters/prod holds GitOps objects of the inputs (the sync of a folder of Applications, "
            "HelmReleases or Kustomizations): they are read one by one instead")),
        "Kustomization flux-system/summarize": (1, None),
    }


def test_value_files_outside_the_repository_or_fetched_are_refused(repo, tmp_path):
    """helm would read any file it is given (or fetch a URL): only files of the repository are passed to it."""
    (tmp_path / "secret.yaml").write_text("token: x\n")
    os.symlink(tmp_path / "secret.yaml", repo / "environments/prod/link.yaml")
    co = Checkout(str(repo), "github.com/acme/llm-platform", "main", None, frozenset())
    app = repo / "apps" / "x.yaml"
    for value_file, why in [
        ("https://example.com/values.yaml", "its value file https://example.com/values.yaml is a URL: not fetched"),
        ("../../../secret.yaml", "its value file ../../../secret.yaml is outside the repository: not read"),
        ("../../environments/prod/link.yaml",
         "its value file ../../environments/prod/link.yaml is outside the repository: not read"),
        # review20: a folder of the repository whose name begins with two dots is inside it
        ("../../..cfg/values.yaml", "its value file ../../..cfg/values.yaml is not in this checkout"),
    ]:
        app.write_text("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: x}\nspec:\n  source:\n"
                       f"    repoURL: {ORIGIN}\n    path: charts/vllm\n    helm: {{valueFiles: [{value_file!r}]}}\n")
        (res,) = outcomes([str(app)], co)
        assert (res.sources, res.why_not) == ([], why)


def test_objects_whose_paths_leave_the_tree_say_so(repo, capsys):
    """readers18: a Flux Kustomization whose path leaves the repository and an Argo CD Application whose
    `$values/../../x.yaml` does each get SW005 (advisory) naming the path; the value file said "is not in this
    checkout" where no file was there, as if a checkout would hold it."""
    (repo / "clusters/prod/escape.yaml").write_text(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: escape, namespace: "
        "flux-system}\nspec:\n  path: ../elsewhere/deploy\n  sourceRef: {kind: GitRepository, name: llm-platform}\n")
    (repo / "apps/escape.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: esc}\nspec:\n  sources:\n"
        f"  - repoURL: {ORIGIN}\n    path: charts/vllm\n    helm: {{valueFiles: ['$values/../../x.yaml']}}\n"
        f"  - repoURL: {ORIGIN}\n    ref: values\n")
    rc, doc = lint_json(capsys, "clusters/prod/escape.yaml", "clusters/prod/sources.yaml", "apps/escape.yaml")
    assert (rc, [(f["code"], f["level"], f["file"], f["message"].split("; ")[0]) for f in doc["findings"]]) == (0, [
        ("SW005", "advisory", "apps/escape.yaml", "SW005: not read: what it deploys was not read: its value file "
                                                  "$values/../../x.yaml is outside the repository: not read"),
        ("SW005", "advisory", "clusters/prod/escape.yaml", "SW005: not read: what it deploys was not read: its path "
                                                           "'../elsewhere/deploy' leads outside the repository")])


FLUX_KS = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: k, namespace: flux-system}\n"
           "spec:\n  path: ./deploy/summarize\n  sourceRef: {kind: GitRepository, name: llm-platform}\n")
FLUX_HR = ("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: h, namespace: flux-system}\n"
           "spec:\n  chart: {spec: {chart: ./charts/vllm, sourceRef: {kind: GitRepository, name: llm-platform}}}\n")
ARGO_APP = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  source:\n"
            f"    repoURL: {ORIGIN}\n")


@pytest.mark.parametrize(("text", "why"), [
    (ARGO_APP + "    path: charts/vllm\n    helm: {fileParameters: [{name: cfg, path: files/cfg.json}]}\n",
     "its helm.fileParameters are not passed to helm here (--set-file): not rendered"),
    (ARGO_APP + "    path: deploy/summarize\n    kustomize: {images: ['vllm/vllm-openai:v0.12.0']}\n",
     "its kustomize options (images, name prefix, patches ...) are Argo CD's to apply, not the kustomization's: "
     "not rendered"),
    (FLUX_HR + "  postRenderers: [{kustomize: {patches: []}}]\n",
     "its postRenderers (kustomize patches over the rendered chart) are Flux's to apply: not rendered"),
    (FLUX_HR + "  valuesFrom: [{kind: ConfigMap, name: chat-values}]\n",
     "its valuesFrom merges the values of ConfigMap `chat-values` (key `values.yaml`) under its spec.values (Flux "
     "merges them in order, then spec.values over them), which shardwise does not merge: not rendered"),
    (FLUX_KS + "  postBuild: {substitute: {TP: '4'}}\n",
     "its own postBuild are Flux's to apply over the kustomization (postBuild substitutes variables the inputs may "
     "not hold): not rendered"),
    (FLUX_KS, None),
    (FLUX_HR, None),
    # corpus37 (redhat-ai-services/ai-accelerator's overlays, in their shape): kustomize patches of an Application
    # and of an ApplicationSet name no repoURL, which Argo CD requires; they read "its source  is not this
    # checkout's git remote (origin): not fetched", an empty source between the spaces
    ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  source:\n"
     "    path: deploy/summarize\n",
     "it names no source repository (spec.source.repoURL): a patch of such an object names only what it changes, "
     "and one applied as written is refused"),
    ("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s}\nspec:\n  generators:\n"
     "  - list: {elements: [{values: {name: chat, path: deploy/summarize}}]}\n",
     "it names no source repository (its template's spec.source.repoURL): a patch of such an object names only "
     "what it changes, and one applied as written is refused"),
])
def test_what_argo_cd_or_flux_would_add_is_not_guessed(repo, text, why):
    co = Checkout(str(repo), "github.com/acme/llm-platform", "main", None, frozenset())
    (repo / "apps" / "x.yaml").write_text(text)
    found = {r.subject: (len(r.sources), r.why_not) for r in outcomes(
        ["apps/x.yaml", "clusters/prod/sources.yaml"], co)}
    (subject,) = [s for s in found if not s.startswith("GitRepository")]
    assert found[subject] == ((0, why) if why else (1, None))


@pytest.mark.tools
def test_diff_renders_the_base_as_this_checkout_at_the_base_commit(repo, capsys):
    """``shardwise diff`` lints the base from ``git archive`` (no .git): its GitOps objects are still this checkout's,
    so a change of an Application's values shows as what it fixes, not as every finding of the render added."""
    require_tool("helm")
    subprocess.run(["git", "add", "-A"], check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base"],
                   check=True)
    prod = repo / "apps/chat-prod.yaml"
    prod.write_text(prod.read_text().replace("        tensorParallelSize: 4\n", "        tensorParallelSize: 2\n"))
    main(["diff", "HEAD", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["findings"]["added"] == []
    assert [(f["code"], f["file"], f["line"]) for f in doc["findings"]["fixed"]] == [("SW204", VIA_PROD, 27)]
    assert doc["base_input_errors"] == doc["head_input_errors"] == []


# ------------------------------------------------------------- the branch a pull request's detached checkout stands for

SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize(("env", "detached", "expected"), [
    ({}, True, (None, None)),
    # a pull request's target branch, as each CI names it (GitHub: pull_request/pull_request_target events only)
    ({"GITHUB_BASE_REF": "main", "GITHUB_REF_NAME": "7/merge", "GITHUB_REF_TYPE": "branch"}, True,
     ("main", "GITHUB_BASE_REF")),
    ({"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "release-1"}, True, ("release-1", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME")),
    ({"SYSTEM_PULLREQUEST_TARGETBRANCH": "refs/heads/main"}, True, ("main", "SYSTEM_PULLREQUEST_TARGETBRANCH")),
    ({"SYSTEM_PULLREQUEST_TARGETBRANCH": "main"}, False, ("main", "SYSTEM_PULLREQUEST_TARGETBRANCH")),
    ({"BITBUCKET_PR_DESTINATION_BRANCH": "develop"}, True, ("develop", "BITBUCKET_PR_DESTINATION_BRANCH")),
    # GitHub sets GITHUB_BASE_REF empty on other events: then the branch pushed, on a detached HEAD only
    ({"GITHUB_BASE_REF": "", "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch"}, True,
     ("main", "GITHUB_REF_NAME")),
    ({"GITHUB_BASE_REF": "", "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch"}, False, (None, None)),
    ({"GITHUB_REF_NAME": "v1.4.0", "GITHUB_REF_TYPE": "tag"}, True, (None, None)),
    ({"CI_COMMIT_BRANCH": "main"}, True, ("main", "CI_COMMIT_BRANCH")),
    ({"CI_COMMIT_BRANCH": "main"}, False, (None, None)),
])
def test_the_branch_a_ci_says_a_checkout_stands_for(env, detached, expected):
    assert stands_for(env, detached) == expected


def test_the_option_wins_over_what_the_ci_says():
    env = {"GITHUB_BASE_REF": "main"}
    assert stands_for(env, True, ("refs/heads/release-2", "--gitops-revision")) == ("release-2", "--gitops-revision")
    assert stands_for(env, True, ("", "--gitops-revision")) == ("main", "GITHUB_BASE_REF")


def test_a_detached_checkout_standing_for_a_branch():
    co = Checkout("/r", "github.com/acme/x", None, SHA, frozenset(), "main", "GITHUB_BASE_REF")
    for same in ("main", "refs/heads/main", "HEAD", "0123456", SHA):
        assert co.revision_why(same) is None, same
    assert co.revision_why("release-1") == (
        "its revision 'release-1' is not the one checked out here (0123456789ab, standing for main by "
        "GITHUB_BASE_REF), so the files it renders may differ from these" + OPTION.format("release-1"))
    alone = Checkout("/r", "github.com/acme/x", None, SHA, frozenset())
    assert alone.revision_why("main") == (
        "its revision 'main' is not the one checked out here (0123456789ab), so the files it renders may differ "
        "from these" + OPTION.format("main"))


@pytest.fixture()
def detached(repo):
    """The fixture repository as a pull request's CI job checks it out: a detached merge commit."""
    subprocess.run(["git", "add", "-A"], check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "merge"],
                   check=True)
    subprocess.run(["git", "checkout", "-q", "--detach"], check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


PROD_FINDINGS = [("SW305", "advisory", VIA_PROD, 1, "Namespace llm-prod"),
                 ("SW104", "mandatory", VIA_PROD, 25, "Deployment llm-prod/chat-vllm"),
                 ("SW204", "mandatory", VIA_PROD, 27, "Deployment llm-prod/chat-vllm")]


def test_a_detached_checkout_does_not_render_a_branch_it_is_not_told_of(detached, capsys):
    """Without a CI's word or the option, a detached checkout is its commit only. chat-prod's own fields do not name
    vLLM, but what it deploys was not read: SW005 says why (readers17; before, it was only counted among the skipped
    objects of unknown kinds)."""
    [res] = plan(["apps/chat-prod.yaml"])
    assert (res.subject, res.sources, res.why_not) == (
        "Application argocd/chat-prod", [],
        f"its revision 'main' is not the one checked out here ({detached[:12]}), so the files it renders may differ "
        "from these" + OPTION.format("main"))
    doc = lint_json(capsys, "apps/chat-prod.yaml")[1]
    assert findings(doc) == [("SW005", "advisory", "apps/chat-prod.yaml", 2, "Application argocd/chat-prod")]
    assert doc["findings"][0]["message"] == (
        f"SW005: not read: what it deploys was not read: {res.why_not}; lint that source (a checkout of it, or what it "
        "renders) with the rest, or suppress SW005 on it with the reason it deploys no vLLM server")


@pytest.mark.tools
@pytest.mark.parametrize("how", ["GITHUB_BASE_REF", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "option", "config"])
def test_a_pull_requests_checkout_renders_its_target_branch(detached, capsys, monkeypatch, how):
    """Application chat-prod is pinned to targetRevision main: in a pull request into main, its checkout (a detached
    merge commit) holds what main will hold, so the Application is rendered and judged there."""
    require_tool("helm")
    args = ["apps/chat-prod.yaml"]
    if how == "option":
        args += ["--gitops-revision", "main"]
    elif how == "config":
        with open("shardwise.toml", "w", encoding="utf-8") as fh:
            fh.write('gitops_revision = "main"\n')
    else:
        monkeypatch.setenv(how, "main")
    rc, doc = lint_json(capsys, *args)
    assert rc == 1
    assert findings(doc) == PROD_FINDINGS
    assert doc["input_errors"] == []


def test_the_option_names_another_branch_than_the_pull_requests(detached, monkeypatch):
    monkeypatch.setenv("GITHUB_BASE_REF", "main")
    [res] = plan(["apps/chat-canary.yaml"], ("release-1", "--gitops-revision"))
    assert res.why_not == (
        f"its revision 'v2.0.0' is not the one checked out here ({detached[:12]}, standing for release-1 by "
        "--gitops-revision), so the files it renders may differ from these" + OPTION.format("v2.0.0"))
    assert plan(["apps/chat-prod.yaml"], ("release-1", "--gitops-revision"))[0].sources == []
    assert [s.release for s in plan(["apps/chat-prod.yaml"])[0].sources] == ["chat"]


@pytest.mark.tools
def test_a_flux_git_repository_on_the_branch_pushed(detached, capsys, monkeypatch):
    """GitLab checks a push out detached and names its branch in CI_COMMIT_BRANCH; Flux's GitRepository follows
    branch main: its HelmRelease is rendered."""
    require_tool("helm")
    flux = ["clusters/prod/sources.yaml", "clusters/prod/chat.yaml"]
    assert [(r.subject, r.why_not) for r in plan(flux)] == [(
        "HelmRelease flux-system/chat-70b",
        f"its revision 'main' is not the one checked out here ({detached[:12]}), so the files it renders may differ "
        "from these" + OPTION.format("main"))]
    assert findings(lint_json(capsys, *flux)[1]) == [
        ("SW005", "advisory", "clusters/prod/chat.yaml", 2, "HelmRelease flux-system/chat-70b")]
    monkeypatch.setenv("CI_COMMIT_BRANCH", "main")
    assert findings(lint_json(capsys, *flux)[1]) == [
        ("SW305", "advisory", VIA_FLUX, 1, "Namespace llm-prod"),
        ("SW106", "advisory", VIA_FLUX, 25, "Deployment llm-prod/llm-prod-chat-70b-vllm")]


def test_an_application_of_another_repository_that_names_no_vllm_says_why(repo, capsys):
    """readers17 (adopt17's reproducer): an Application whose repoURL is not the checkout's origin and whose own
    fields name no vLLM was only counted as "skipped 1 object of unknown kinds: Application×1"; what it deploys may
    be vLLM, so SW005 (advisory) names the source it cannot read. Nothing blocks on it."""
    (repo / "apps" / "other.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: models, namespace: argocd}\n"
        "spec:\n  project: default\n  source:\n    repoURL: https://github.com/acme/model-serving.git\n"
        "    targetRevision: main\n    path: overlays/prod\n"
        "  destination: {server: https://kubernetes.default.svc, namespace: llm}\n", encoding="utf-8")
    rc, doc = lint_json(capsys, "apps/other.yaml")
    assert rc == 0
    assert [(f["code"], f["level"], f["line"], f["subject"], f["message"]) for f in doc["findings"]] == [(
        "SW005", "advisory", 1, "Application argocd/models",
        "SW005: not read: what it deploys was not read: its source https://github.com/acme/model-serving.git is not "
        "this checkout's git remote (origin): not fetched; lint that source (a checkout of it, or what it renders) "
        "with the rest, or suppress SW005 on it with the reason it deploys no vLLM server")]
    assert doc["summary"]["skipped"] == {}  # no longer also an object of an unknown kind
    # corpus28: the Application names no vLLM, so the summary does not say it mentions vLLM
    assert doc["summary"]["note"] == ("no vLLM workload found in the inputs; 1 object deploys a source that was not "
                                      "read: see SW005")


def test_a_run_renders_at_most_so_many_gitops_sources(repo, capsys, monkeypatch):
    """fuzz20: each source an Application or Flux object names is a helm or kustomize run (about 0.2 s), and a file of
    10,000 Applications naming one chart (2.5 MB) held the run for half an hour. Past the bound the next object is an
    input error saying how many were left, and each left says why in its SW005 record."""
    require_tool("helm")
    from shardwise.rules.adapters import gitops

    monkeypatch.setattr(gitops, "MAX_GITOPS_RENDERS", 2)
    rc, doc = lint_json(capsys, ".")
    assert rc == 2
    assert [(w["subject"], w["file"]) for w in doc["workloads"]] == [
        ("Deployment llm-prod/chat-vllm", VIA_PROD), ("Deployment llm-staging/chat-staging-vllm", VIA_STAGING)]
    assert doc["input_errors"] == [{
        "file": "clusters/prod/chat.yaml", "line": 2, "message": (
            "HelmRelease flux-system/chat-70b: its source charts/vllm was not rendered, nor the sources of the GitOps "
            "object after it: this run has rendered 2 GitOps sources, and shardwise renders at most 2 in one run (each "
            "runs helm or kustomize); lint the repository's GitOps objects a part at a time")}]
    sw005 = {f["subject"]: f["message"] for f in doc["findings"] if f["code"] == "SW005"}
    assert "shardwise renders at most 2 GitOps sources in one run" in sw005["HelmRelease flux-system/chat-70b"]


@pytest.mark.tools
def test_what_an_applications_kustomize_source_builds_is_in_its_destination_namespace(repo, capsys):
    """newuser12: Argo CD applies each namespaced object its source renders that names no namespace in
    ``spec.destination.namespace`` (argo-cd's ApplicationDestination: "The namespace will only be set for
    namespace-scoped resources that have not set a value for .metadata.namespace"), a kustomize source's as a
    chart's. A chart's were (mend1); a kustomization's were read in ``default``: ``Deployment default/embed``, and
    the default-deny policy of ``embed`` beside it did not cover it (SW305 on namespace ``default``). An object that
    names its own namespace keeps it."""
    require_tool("kustomize")
    base = repo / "deploy" / "embed"
    base.mkdir(parents=True)
    (base / "kustomization.yaml").write_text("resources: [deployment.yaml, service.yaml]\n", encoding="utf-8")
    (base / "deployment.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: embed}\nspec:\n  replicas: 1\n"
        "  selector: {matchLabels: {app: embed}}\n  template:\n    metadata: {labels: {app: embed}}\n    spec:\n"
        "      nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}\n      containers:\n"
        "        - name: vllm\n          image: vllm/vllm-openai:v0.8.5\n"
        "          args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, '8192']\n"
        "          resources: {limits: {nvidia.com/gpu: 1}}\n", encoding="utf-8")
    (base / "service.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata: {name: embed, namespace: edge}\nspec:\n  selector: {app: embed}\n"
        "  ports: [{port: 8000}]\n", encoding="utf-8")
    (repo / "apps" / "embed.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: embed, namespace: argocd}\n"
        f"spec:\n  project: default\n  source:\n    repoURL: {ORIGIN}\n    targetRevision: HEAD\n"
        "    path: deploy/embed\n  destination: {server: https://kubernetes.default.svc, namespace: embed}\n",
        encoding="utf-8")
    (repo / "policy.yaml").write_text(
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny, namespace: embed}\n"
        "spec: {podSelector: {}, policyTypes: [Ingress]}\n", encoding="utf-8")
    via = "deploy/embed/deployment.yaml (via deploy/embed/kustomization.yaml) (via Application argocd/embed)"
    rc, doc = lint_json(capsys, "apps/embed.yaml", "policy.yaml")
    assert (rc, doc["input_errors"]) == (0, [])
    assert [(w["subject"], w["file"]) for w in doc["workloads"]] == [("Deployment embed/embed", via)]
    # embed's default-deny covers it (no SW305); the Service keeps its own namespace, edge, so it selects no pod of
    # embed (no SW407 for a Service sending traffic to it)
    assert findings(doc) == []


@pytest.mark.tools
def test_helm_refusing_an_application_s_inline_values_names_the_field_not_a_temporary_file(tmp_path, monkeypatch,
                                                                                           capsys):
    """review45: helm's error named the temporary file shardwise hands an Application's `helm.values` in
    (`/tmp/shardwise-gitops-mkv87mmj/values-0.yaml`); it names the field."""
    helm = require_tool("helm")
    monkeypatch.setenv("PATH", os.path.dirname(helm) + os.pathsep + os.environ["PATH"])
    (tmp_path / "chart/templates").mkdir(parents=True)
    (tmp_path / "chart/Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    (tmp_path / "chart/templates/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    (tmp_path / "app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: qwen, namespace: argocd}\nspec:\n"
        "  project: default\n  source:\n    repoURL: https://github.com/acme/llm.git\n    targetRevision: HEAD\n"
        "    path: chart\n    helm:\n      values: |\n        engine:\n          tp: [unclosed\n"
        "  destination: {server: https://kubernetes.default.svc, namespace: serving}\n")
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", "https://github.com/acme/llm.git"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True)
    monkeypatch.chdir(tmp_path)
    assert main(["lint", "app.yaml"]) == 2
    out, err = capsys.readouterr()
    assert "shardwise-gitops-" not in out + err
    assert ("app.yaml:1: error: Application argocd/qwen: its source chart was not rendered: helm template failed: "
            "Error: failed to parse its helm.values: error converting YAML to JSON: yaml: line 2: did not find "
            "expected ',' or ']'") in out + err
